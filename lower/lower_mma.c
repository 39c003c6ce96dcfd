/* lower_mma.c - mma.sync: the per-lane fragment layouts of the PTX ISA
 * ("Matrix fragments for mma.m*n*k*"), and the product through
 * lower_mma_core.c.
 *
 * With g = lane / 4, t = lane % 4 and P elements per 32-bit register
 * (f64: one per 64-bit register; b1: the word counts as one element of a
 * K measured in words), element i = r * P + e of a lane (register r,
 * element e) sits at
 *   A   row g + 8 * (r & 1)          col t * P + e + 4P * (r >> 1)   (M = 16)
 *       row g                        col t * P + e                   (M = 8)
 *   B   row t * P + e + 4P * r       col g
 *   C,D row g + 8 * (i >> 1)         col 2t + (i & 1)
 * for every shape and type except m8n8k4 .f16, which runs four 8x8x4
 * products, one per quad pair (lanes 4q..4q+3 hold rows 0-3, lanes
 * 4q+16..4q+19 rows 4-7; h = 4 in the high group, else 0):
 *   A .row  row t + h, col i            A .col  row i + h, col t
 *   B .row  row t, col i + h            B .col  row i, col t + h
 *   C .f16  row t + h, col i
 *   C .f32  row (t & 1) + (i & 2) + h, col (t & 2) + (i & 1) + (i & 4). */
#include "lower_internal.h"

#include <stdlib.h>

enum { OPD_A, OPD_B, OPD_C, OPD_D };

/* m8n8k4 .f16: element i of `lane` in operand w of its quad pair's product. */
static void quad_pair_pos(const ptx_mma_form *f, int w, unsigned lane, unsigned i, unsigned *row, unsigned *col)
{
    unsigned t = lane % 4, h = lane >= 16 ? 4 : 0;
    switch (w) {
    case OPD_A:
        *row = f->a_col ? i + h : t + h;
        *col = f->a_col ? t : i;
        return;
    case OPD_B:
        *row = f->b_col ? i : t;
        *col = f->b_col ? t + h : i + h;
        return;
    default:
        if ((w == OPD_C ? f->c : f->d) == PTX_TYPE_F16) {
            *row = t + h;
            *col = i;
        } else {
            *row = (t & 1) + (i & 2) + h;
            *col = (t & 2) + (i & 1) + (i & 4);
        }
        return;
    }
}

/* Where element i of `lane` sits in operand w: batch, row, column. */
static void frag_pos(const ptx_mma_form *f, int w, unsigned lane, unsigned i, unsigned *q, unsigned *row,
                     unsigned *col)
{
    unsigned g = lane / 4, t = lane % 4;
    *q = f->quad_pairs ? g % 4 : 0;
    if (f->quad_pairs) {
        quad_pair_pos(f, w, lane, i, row, col);
        return;
    }
    unsigned p = mma_elems_per_reg(w == OPD_A ? f->a : f->b), r = i / p, e = i % p;
    switch (w) {
    case OPD_A:
        *row = f->m == 16 ? g + 8 * (r & 1) : g;
        *col = t * p + e + (f->m == 16 ? 4 * p * (r >> 1) : 0);
        return;
    case OPD_B:
        *row = t * p + e + 4 * p * r;
        *col = g;
        return;
    default:
        *row = g + 8 * (i >> 1);
        *col = 2 * t + (i & 1);
        return;
    }
}

/* For operand w: pos[e * 32 + lane] = the flat matrix position of element
 * e of lane, and where[position] = e * 32 + lane (its inverse). */
static void frag_maps(const ptx_mma_form *f, const mma_shape *s, int w, unsigned *pos, unsigned *where)
{
    unsigned rows = w == OPD_A ? s->m : w == OPD_B ? s->k : s->m;
    unsigned cols = w == OPD_A ? s->k : s->n;
    unsigned nel = f->nregs[w] * mma_elems_per_reg(w == OPD_A ? f->a : w == OPD_B ? f->b : w == OPD_C ? f->c : f->d);
    for (unsigned e = 0; e < nel; e++)
        for (unsigned lane = 0; lane < W; lane++) {
            unsigned q, row, col;
            frag_pos(f, w, lane, e, &q, &row, &col);
            unsigned p = (q * rows + row) * cols + col;
            pos[e * W + lane] = p;
            if (where)
                where[p] = e * W + lane;
        }
}

/* The registers of a braced operand as <32 x i32> (<32 x i64> for f64). */
static void read_regs(fn *F, const ptx_operand *o, unsigned n, unsigned bytes, LLVMValueRef *regs)
{
    const ptx_operand *e = o->kind == PTX_OPD_VEC ? o->elems : o;
    for (unsigned r = 0; r < n; r++)
        regs[r] = read_opd(F, &e[r], bytes == 8 ? PTX_TYPE_B64 : PTX_TYPE_B32, false);
}

/* Operand w as a flat matrix of its compute type. */
static LLVMValueRef operand_matrix(fn *F, const ptx_mma_form *f, const mma_shape *s, int w, const ptx_operand *o)
{
    ptx_type t = w == OPD_A ? f->a : w == OPD_B ? f->b : f->c;
    unsigned per = mma_elems_per_reg(t), nel = f->nregs[w] * per, npos = nel * W;
    LLVMValueRef regs[16], *elems = malloc(nel * sizeof *elems);
    unsigned *pos = malloc(npos * sizeof *pos), *where = malloc(npos * sizeof *where);
    if (!elems || !pos || !where)
        abort();
    read_regs(F, o, f->nregs[w], f->regbytes[w], regs);
    mma_unpack(F, regs, f->nregs[w], t, elems);
    frag_maps(f, s, w, pos, where);
    LLVMValueRef m = mma_gather(F, elems, nel, where, npos);
    free(elems);
    free(pos);
    free(where);
    return m;
}

static void lower_mma(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    ptx_mma_form f;
    if (ptx_mma_form_of(in, &f)) { /* the checker refused it already */
        lw_error(F->L, in->loc, "unsupported mma form");
        return;
    }
    mma_shape s = {f.quad_pairs ? 4 : 1, f.m, f.n, f.a == PTX_TYPE_B1 ? f.k / 32u : f.k, f.a, f.b, f.c, f.d,
                   f.satfinite, f.and_popc, MMA_SUM_CHAIN, f.rnd};
    s.sum = f.quad_pairs ? MMA_SUM_C_LAST : mma_default_sum(&s);
    LLVMValueRef a = operand_matrix(F, &f, &s, OPD_A, &in->opds[1]);
    LLVMValueRef b = operand_matrix(F, &f, &s, OPD_B, &in->opds[2]);
    LLVMValueRef c = operand_matrix(F, &f, &s, OPD_C, &in->opds[3]);
    LLVMValueRef d = mma_product(F, &s, a, b, c);
    unsigned nel = f.elems[OPD_D];
    unsigned *pos = malloc(nel * W * sizeof *pos);
    LLVMValueRef elems[64], regs[16];
    if (!pos)
        abort();
    frag_maps(&f, &s, OPD_D, pos, NULL);
    mma_scatter(F, d, pos, nel, elems);
    free(pos);
    mma_pack(F, elems, f.nregs[OPD_D], f.d, regs);
    const ptx_operand *o = &in->opds[0];
    const ptx_operand *e = o->kind == PTX_OPD_VEC ? o->elems : o;
    for (unsigned r = 0; r < f.nregs[OPD_D]; r++)
        write_reg(F, &e[r], regs[r], f.regbytes[OPD_D] == 8 ? PTX_TYPE_B64 : PTX_TYPE_B32, false, mask);
}

bool lower_matrix(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    switch (in->op) {
    case PTX_OP_MMA:
        lower_mma(F, in, mask);
        return true;
    case PTX_OP_LDMATRIX:
    case PTX_OP_STMATRIX:
    case PTX_OP_MOVMATRIX:
        lower_matrix_move(F, in, mask);
        return true;
    default:
        return false;
    }
}
