/* lower_wmma.c - wmma.load, wmma.store and wmma.mma (PTX ISA 9.7.14.4).
 *
 * The ISA leaves the fragment layouts unspecified; the layout here is what
 * an NVIDIA H200 (sm_90) shows a program that reads fragment registers
 * (tests/gpu/results/tensor.res, decoded from its "tags" input set for all
 * 192 wmma probes): every fragment is built from 8x8 "cores" of the
 * mma.sync m16n8k* layouts.  Lane l = 4g + t holds, in one register (two
 * for 8-byte accumulator pairs), `per` consecutive elements of row g of a
 * core: A in its MxK view, B in its NxK view (B transposed), C and D in
 * their MxN view, `per` being 32 bits of A/B elements (one f64) and two
 * accumulator elements.  Cores are taken row half first, then along the
 * columns, then by tiles of 16 rows (B: 8 rows); m8n32k16 is the m32n8k16
 * layout of the transposed product (D^T = B^T A^T).  f16 multiplicands are
 * 16 elements per lane in every shape: the cores repeat.  Sub-byte
 * elements move as 32-bit words (only their K-major layouts exist).
 *
 * A fragment moves between memory and registers a core at a time: the
 * core's memory lines are loaded as vectors and one shuffle puts them in
 * lane order (stores: the inverse, masked by the active lanes).  wmma.mma
 * moves its fragments through row-major scratch matrices the same way and
 * multiplies those: a broadcast A element times a row of B, accumulated
 * into a row of D. */
#include "lower_internal.h"

#include <stdlib.h>

/* One fragment's layout over the warp; sizes in units (elements, or
 * 32-bit words of sub-byte elements). */
typedef struct frag {
    ptx_wmma_fragment f;
    unsigned rows, cols; /* of its matrix */
    unsigned unit_bits;
    unsigned view_rows, view_cols; /* the view cores tile */
    unsigned per;                  /* units of a core row a lane holds */
    unsigned tile;                 /* rows of a tile of cores: 16 or 8 */
    bool trans;                    /* the view is the matrix transposed */
    unsigned units;                /* per lane, repeats included */
    unsigned per_reg;              /* units per register */
} frag;

static bool frag_init(frag *g, uint8_t shape, uint8_t which, ptx_type t)
{
    uint32_t m, n, k;
    if (!ptx_wmma_frag(shape, which, t, &g->f) || !ptx_wmma_dims(shape, &m, &n, &k))
        return false;
    unsigned bits = ptx_type_bits(t);
    g->unit_bits = bits < 8 ? 32 : bits;
    unsigned ku = k * bits / g->unit_bits, pair = g->unit_bits >= 32 ? 1 : 32 / g->unit_bits;
    bool m8n32 = m == 8 && n == 32;
    g->rows = which == PTX_FRAG_B ? ku : g->f.rows;
    g->cols = which == PTX_FRAG_A ? ku : g->f.cols;
    if (which == PTX_FRAG_A) {
        g->view_rows = m, g->view_cols = ku, g->per = pair, g->tile = m < 16 ? m : 16, g->trans = false;
    } else if (which == PTX_FRAG_B) {
        g->view_rows = n, g->view_cols = ku, g->per = pair, g->tile = m8n32 ? 16 : 8, g->trans = true;
    } else {
        g->view_rows = m8n32 ? n : m, g->view_cols = m8n32 ? m : n, g->per = 2;
        g->tile = g->view_rows < 16 ? g->view_rows : 16, g->trans = m8n32;
    }
    g->units = g->f.elems * bits / g->unit_bits;
    g->per_reg = g->f.reg_bits / g->unit_bits;
    return true;
}

/* The matrix position of unit e of lane l (the layout in the header). */
static void position(const frag *g, unsigned lane, unsigned e, unsigned *row, unsigned *col)
{
    unsigned gid = lane / 4, tid = lane % 4, chunk = 4 * g->per, halves = g->tile / 8;
    unsigned chunks = g->view_cols / chunk, cores = g->view_rows / 8 * chunks;
    unsigned q = e / g->per % cores, j = e % g->per;
    unsigned half = q % halves, c = q / halves % chunks, tile = q / halves / chunks;
    unsigned vr = tile * g->tile + half * 8 + gid, vc = c * chunk + tid * g->per + j;
    *row = g->trans ? vc : vr;
    *col = g->trans ? vr : vc;
}

/* Where a matrix lies: its first unit's address (i64), the units from one
 * line (row or column) to the next (i64), and whether lines are rows. */
typedef struct place {
    LLVMValueRef base, ld;
    bool row_major;
} place;

/* The lines and the span within them that register r covers. */
typedef struct box {
    unsigned line0, nlines, pos0, len;
} box;

static void line_pos(const frag *g, bool row_major, unsigned lane, unsigned e, unsigned *line, unsigned *pos)
{
    unsigned row, col;
    position(g, lane, e, &row, &col);
    *line = row_major ? row : col;
    *pos = row_major ? col : row;
}

static box reg_box(const frag *g, bool row_major, unsigned r)
{
    unsigned lmin = ~0u, lmax = 0, pmin = ~0u, pmax = 0;
    for (unsigned l = 0; l < W; l++)
        for (unsigned j = 0; j < g->per_reg; j++) {
            unsigned line, pos;
            line_pos(g, row_major, l, r * g->per_reg + j, &line, &pos);
            lmin = line < lmin ? line : lmin, lmax = line > lmax ? line : lmax;
            pmin = pos < pmin ? pos : pmin, pmax = pos > pmax ? pos : pmax;
        }
    return (box){lmin, lmax - lmin + 1, pmin, pmax - pmin + 1};
}

static bool overlap(box a, box b)
{
    return a.line0 < b.line0 + b.nlines && b.line0 < a.line0 + a.nlines && a.pos0 < b.pos0 + b.len &&
           b.pos0 < a.pos0 + a.len;
}

static box join(box a, box b)
{
    unsigned l0 = a.line0 < b.line0 ? a.line0 : b.line0, p0 = a.pos0 < b.pos0 ? a.pos0 : b.pos0;
    unsigned l1 = a.line0 + a.nlines > b.line0 + b.nlines ? a.line0 + a.nlines : b.line0 + b.nlines;
    unsigned p1 = a.pos0 + a.len > b.pos0 + b.len ? a.pos0 + a.len : b.pos0 + b.len;
    return (box){l0, l1 - l0, p0, p1 - p0};
}

/* A register past the fragment's distinct units repeats an earlier one. */
static bool is_repeat(const frag *g, unsigned r)
{
    return r * g->per_reg >= g->rows * g->cols / W;
}

static LLVMValueRef shuffle(lw *L, LLVMValueRef a, LLVMValueRef b, const unsigned *idx, unsigned n)
{
    LLVMValueRef *m = malloc(n * sizeof *m);
    if (!m)
        abort();
    for (unsigned i = 0; i < n; i++)
        m[i] = const_i32(L, idx[i]);
    LLVMValueRef v = LLVMBuildShuffleVector(L->b, a, b ? b : LLVMGetPoison(LLVMTypeOf(a)), LLVMConstVector(m, n), "");
    free(m);
    return v;
}

/* v[0] ++ v[1] ++ ... (equal vector types), in a tree of shuffles; an odd
 * one out pairs with poison, which only pads the end. */
static LLVMValueRef concat(lw *L, LLVMValueRef *v, unsigned n)
{
    while (n > 1) {
        unsigned len = LLVMGetVectorSize(LLVMTypeOf(v[0]));
        unsigned *idx = malloc(2 * len * sizeof *idx);
        if (!idx)
            abort();
        for (unsigned i = 0; i < 2 * len; i++)
            idx[i] = i;
        for (unsigned i = 0; i < n; i += 2)
            v[i / 2] = shuffle(L, v[i], i + 1 < n ? v[i + 1] : LLVMGetPoison(LLVMTypeOf(v[i])), idx, 2 * len);
        free(idx);
        n = (n + 1) / 2;
    }
    return v[0];
}

/* Address of unit (line, pos). */
static LLVMValueRef unit_address(lw *L, const frag *g, const place *p, unsigned line, unsigned pos)
{
    LLVMValueRef u = LLVMBuildAdd(L->b, LLVMBuildMul(L->b, p->ld, const_i64(L, line), ""), const_i64(L, pos), "");
    LLVMValueRef bytes = LLVMBuildMul(L->b, u, const_i64(L, g->unit_bits / 8), "");
    return LLVMBuildIntToPtr(L->b, LLVMBuildAdd(L->b, p->base, bytes, ""), L->ptr, "");
}

static LLVMTypeRef unit_type(lw *L, const frag *g) { return LLVMIntTypeInContext(L->ctx, g->unit_bits); }

/* The lines of a box, one vector load each, concatenated. */
static LLVMValueRef load_box(fn *F, const frag *g, const place *p, box bx)
{
    lw *L = F->L;
    LLVMTypeRef vt = LLVMVectorType(unit_type(L, g), bx.len);
    LLVMValueRef *lines = malloc(bx.nlines * sizeof *lines);
    if (!lines)
        abort();
    for (unsigned i = 0; i < bx.nlines; i++) {
        lines[i] = LLVMBuildLoad2(L->b, vt, unit_address(L, g, p, bx.line0 + i, bx.pos0), "wmma.line");
        LLVMSetAlignment(lines[i], g->unit_bits / 8);
    }
    LLVMValueRef v = concat(L, lines, bx.nlines);
    free(lines);
    return v;
}

/* The fragment's registers (<32 x i32>, or <32 x i64> for f64) from the
 * matrix at p. */
static void frag_load(fn *F, const frag *g, const place *p, LLVMValueRef *regs)
{
    lw *L = F->L;
    LLVMTypeRef rt = vec_of(LLVMIntTypeInContext(L->ctx, g->f.reg_bits));
    unsigned n = W * g->per_reg, *idx = malloc(n * sizeof *idx);
    if (!idx)
        abort();
    for (unsigned r = 0; r < g->f.nregs; r++) {
        unsigned distinct = g->rows * g->cols / W / g->per_reg;
        if (is_repeat(g, r)) {
            regs[r] = regs[r % distinct];
            continue;
        }
        box bx = reg_box(g, p->row_major, r);
        for (unsigned l = 0; l < W; l++)
            for (unsigned j = 0; j < g->per_reg; j++) {
                unsigned line, pos;
                line_pos(g, p->row_major, l, r * g->per_reg + j, &line, &pos);
                idx[l * g->per_reg + j] = (line - bx.line0) * bx.len + pos - bx.pos0;
            }
        LLVMValueRef v = shuffle(L, load_box(F, g, p, bx), NULL, idx, n);
        regs[r] = LLVMBuildBitCast(L->b, v, rt, "");
    }
    free(idx);
}

/* The fragment's registers to the matrix at p, the units of lanes in
 * `mask` only (<32 x i1>; NULL: all).  Registers sharing a box are stored
 * together. */
static void frag_store(fn *F, const frag *g, const place *p, LLVMValueRef *regs, LLVMValueRef mask)
{
    lw *L = F->L;
    LLVMTypeRef ut = unit_type(L, g), uvt = LLVMVectorType(ut, W * g->per_reg);
    LLVMValueRef lane_units = NULL; /* the mask widened to units */
    if (mask) {
        unsigned *widen = malloc(W * g->per_reg * sizeof *widen);
        if (!widen)
            abort();
        for (unsigned i = 0; i < W * g->per_reg; i++)
            widen[i] = i / g->per_reg;
        lane_units = shuffle(L, mask, NULL, widen, W * g->per_reg);
        free(widen);
    }
    bool *done = calloc(g->f.nregs, sizeof *done);
    unsigned *group = malloc(g->f.nregs * sizeof *group);
    if (!done || !group)
        abort();
    for (unsigned r = 0; r < g->f.nregs; r++) {
        if (done[r] || is_repeat(g, r))
            continue;
        /* the registers whose boxes overlap fill their joint box (a core) */
        box bx = reg_box(g, p->row_major, r);
        unsigned ng = 1;
        group[0] = r, done[r] = true;
        for (bool grew = true; grew;) {
            grew = false;
            for (unsigned s = r + 1; s < g->f.nregs; s++)
                if (!done[s] && !is_repeat(g, s) && overlap(reg_box(g, p->row_major, s), bx)) {
                    bx = join(bx, reg_box(g, p->row_major, s));
                    group[ng++] = s, done[s] = true, grew = true;
                }
        }
        unsigned total = bx.nlines * bx.len;
        if (total != ng * W * g->per_reg) { /* the layout tiles its cores: never */
            lw_error(L, (ptx_loc){0, 0}, "internal error: a wmma box has gaps");
            break;
        }
        LLVMValueRef *src = malloc(ng * 2 * sizeof *src);
        unsigned *idx = malloc(total * sizeof *idx);
        if (!src || !idx)
            abort();
        for (unsigned k = 0; k < ng; k++) {
            src[k] = LLVMBuildBitCast(L->b, regs[group[k]], uvt, "");
            src[ng + k] = lane_units;
        }
        for (unsigned k = 0; k < ng; k++) /* box unit <- (register k, lane, unit) */
            for (unsigned l = 0; l < W; l++)
                for (unsigned j = 0; j < g->per_reg; j++) {
                    unsigned line, pos;
                    line_pos(g, p->row_major, l, group[k] * g->per_reg + j, &line, &pos);
                    idx[(line - bx.line0) * bx.len + pos - bx.pos0] = (k * W + l) * g->per_reg + j;
                }
        LLVMValueRef vals = shuffle(L, concat(L, src, ng), NULL, idx, total);
        LLVMValueRef on = mask ? shuffle(L, concat(L, src + ng, ng), NULL, idx, total) : NULL;
        unsigned *slice = malloc(bx.len * sizeof *slice);
        if (!slice)
            abort();
        for (unsigned i = 0; i < bx.nlines; i++) {
            for (unsigned j = 0; j < bx.len; j++)
                slice[j] = i * bx.len + j;
            LLVMValueRef v = shuffle(L, vals, NULL, slice, bx.len);
            LLVMValueRef ptr = unit_address(L, g, p, bx.line0 + i, bx.pos0);
            if (!on) {
                LLVMSetAlignment(LLVMBuildStore(L->b, v, ptr), g->unit_bits / 8);
                continue;
            }
            LLVMTypeRef t[2] = {LLVMTypeOf(v), L->ptr};
            LLVMValueRef a[4] = {v, ptr, const_i32(L, g->unit_bits / 8), shuffle(L, on, NULL, slice, bx.len)};
            call_intrinsic(L, "llvm.masked.store", t, 2, a, 4);
        }
        free(slice);
        free(src);
        free(idx);
    }
    free(done);
    free(group);
}

/* ---- the instructions ---------------------------------------------------- */

static ptx_type inst_type(const ptx_instr *in) { return (ptx_type)in->types[in->ntypes - 1]; }

/* The fragment operand's registers (operand o: a brace list). */
static void read_regs(fn *F, const frag *g, const ptx_operand *o, LLVMValueRef *regs)
{
    for (unsigned r = 0; r < g->f.nregs; r++)
        regs[r] = read_opd(F, &o->elems[r], g->f.reg_bits == 64 ? PTX_TYPE_B64 : PTX_TYPE_B32, false);
}

static void write_regs(fn *F, const frag *g, const ptx_operand *o, LLVMValueRef *regs, LLVMValueRef mask)
{
    for (unsigned r = 0; r < g->f.nregs; r++)
        write_reg(F, &o->elems[r], regs[r], g->f.reg_bits == 64 ? PTX_TYPE_B64 : PTX_TYPE_B32, false, mask);
}

/* The first active lane's address and stride: the instruction is
 * .sync.aligned, so every lane gives the same (a GPU leaves other cases
 * undefined).  No stride: the matrix's own leading dimension. */
static place memory_place(fn *F, const ptx_instr *in, const frag *g, const ptx_operand *addr,
                          const ptx_operand *stride, LLVMValueRef lane)
{
    lw *L = F->L;
    place p = {.row_major = in->mod[PTX_CAT_LAYOUT] == PTX_LAYOUT_ROW};
    LLVMValueRef a = address_of(F, in, addr, in->mod[PTX_CAT_SPACE]);
    p.base = LLVMBuildExtractElement(L->b, a, lane, "");
    unsigned bits = ptx_type_bits(g->f.type), natural = p.row_major ? g->f.cols : g->f.rows;
    LLVMValueRef s = stride ? LLVMBuildExtractElement(L->b, read_opd(F, stride, PTX_TYPE_U32, false), lane, "")
                            : const_i32(L, natural);
    s = LLVMBuildZExt(L->b, s, L->i64, "");
    if (g->unit_bits != bits) /* sub-byte: the stride counts elements, a line is words */
        s = LLVMBuildUDiv(L->b, s, const_i64(L, g->unit_bits / bits), "");
    p.ld = s;
    return p;
}

/* Runs the access only when some lane is active (a guard may leave none,
 * and then there is no address to use). */
static void lower_move(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    lw *L = F->L;
    bool load = in->op == PTX_OP_WMMA_LOAD;
    frag g;
    if (!frag_init(&g, in->mod[PTX_CAT_SHAPE], in->mod[PTX_CAT_FRAG], inst_type(in))) {
        lw_error(L, in->loc, "unsupported wmma fragment");
        return;
    }
    LLVMValueRef bits = mask_bits(F, mask);
    LLVMBasicBlockRef run = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "wmma.run");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "wmma.done");
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntNE, bits, const_i32(L, 0), ""), run, done);
    LLVMPositionBuilderAtEnd(L->b, run);
    place p = memory_place(F, in, &g, &in->opds[load ? 1 : 0], in->nopds > 2 ? &in->opds[2] : NULL,
                           first_lane(F, mask));
    LLVMValueRef regs[16];
    if (load) {
        frag_load(F, &g, &p, regs);
        write_regs(F, &g, &in->opds[0], regs, mask);
    } else {
        read_regs(F, &g, &in->opds[1], regs);
        frag_store(F, &g, &p, regs, mask);
    }
    LLVMBuildBr(L->b, done);
    LLVMPositionBuilderAtEnd(L->b, done);
}

/* The element types of d, a, b, c (f16 multiplicands: .dtype.ctype). */
static void mma_types(const ptx_instr *in, ptx_type t[4])
{
    for (int i = 0; i < 4; i++)
        t[i] = (ptx_type)in->types[i < in->ntypes ? i : 0];
    if (in->ntypes == 2)
        t[3] = (ptx_type)in->types[1], t[1] = t[2] = PTX_TYPE_F16;
}

/* A row-major scratch matrix for g's units. */
static place scratch(fn *F, const frag *g, const char *name)
{
    lw *L = F->L;
    LLVMValueRef a = entry_alloca(F, LLVMArrayType2(L->i8, g->rows * g->cols * g->unit_bits / 8), name);
    return (place){LLVMBuildPtrToInt(L->b, a, L->i64, ""), const_i64(L, g->cols), true};
}

static LLVMValueRef place_ptr(lw *L, const place *p) { return LLVMBuildIntToPtr(L->b, p->base, L->ptr, ""); }

/* d = a * b + c: the fragments through row-major scratch matrices. */
static void lower_wmma_mma(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    lw *L = F->L;
    static const uint8_t frags[4] = {PTX_FRAG_D, PTX_FRAG_A, PTX_FRAG_B, PTX_FRAG_C};
    uint8_t shape = in->mod[PTX_CAT_SHAPE];
    ptx_type t[4];
    mma_types(in, t);
    frag g[4];
    place p[4];
    LLVMValueRef regs[16];
    for (int i = 0; i < 4; i++)
        if (!frag_init(&g[i], shape, frags[i], t[i])) {
            lw_error(L, in->loc, "unsupported wmma.mma form");
            return;
        }
    static const char *const names[4] = {"wmma.d", "wmma.a", "wmma.b", "wmma.c"};
    for (int i = 0; i < 4; i++)
        p[i] = scratch(F, &g[i], names[i]);
    for (int i = 1; i < 4; i++) {
        read_regs(F, &g[i], &in->opds[i], regs);
        frag_store(F, &g[i], &p[i], regs, NULL);
    }
    uint32_t m, n, k;
    ptx_wmma_dims(shape, &m, &n, &k);
    matmul mm = {m, n, k, t[1], t[2], t[3], t[0], (in->flags & PTX_FLAG_BIT(SATFINITE)) != 0, in->mod[PTX_CAT_BOOL],
                 in->mod[PTX_CAT_ROUND]};
    lower_matmul(F, &mm, place_ptr(L, &p[1]), place_ptr(L, &p[2]), place_ptr(L, &p[3]), place_ptr(L, &p[0]));
    frag_load(F, &g[0], &p[0], regs);
    write_regs(F, &g[0], &in->opds[0], regs, mask);
}

bool lower_wmma(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    switch (in->op) {
    case PTX_OP_WMMA_LOAD:
    case PTX_OP_WMMA_STORE:
        lower_move(F, in, mask);
        return true;
    case PTX_OP_WMMA_MMA:
        lower_wmma_mma(F, in, mask);
        return true;
    default:
        return false;
    }
}
