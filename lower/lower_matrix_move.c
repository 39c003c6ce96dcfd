/* lower_matrix_move.c - ldmatrix, stmatrix, movmatrix: 8x8 matrices of
 * b16 between memory rows and the mma fragment layout.
 *
 * Matrix j of an .x1/.x2/.x4 access has its 8 rows at the addresses held
 * by lanes 8j..8j+7 (16 bytes a row).  In register j, lane l holds row
 * l / 4, columns 2 (l % 4) and 2 (l % 4) + 1 (low half first); with .trans
 * it holds the transposed matrix's, i.e. column l / 4 of rows 2 (l % 4) and
 * 2 (l % 4) + 1.  A lane's register is read (written) through another
 * lane's address, so only lanes whose address lane is active take part:
 * with the whole warp there, as .aligned requires, that is every lane. */
#include "lower_internal.h"

static LLVMValueRef lane_shuffle(fn *F, LLVMValueRef v, unsigned (*src)(unsigned lane, unsigned arg), unsigned arg)
{
    LLVMValueRef idx[W];
    for (unsigned l = 0; l < W; l++)
        idx[l] = const_i32(F->L, src(l, arg));
    return LLVMBuildShuffleVector(F->L->b, v, LLVMGetPoison(LLVMTypeOf(v)), LLVMConstVector(idx, W), "");
}

/* The lane holding the address of the row that lane l reads in matrix j:
 * row l / 4 (plain), rows 2 (l % 4) + half (.trans, arg = 2j + half). */
static unsigned row_lane(unsigned l, unsigned j) { return 8 * j + l / 4; }
static unsigned trans_row_lane(unsigned l, unsigned arg) { return 8 * (arg / 2) + 2 * (l % 4) + arg % 2; }

/* The byte offset within that row: 4 (l % 4) plain, 2 (l / 4) transposed. */
static LLVMValueRef row_offset(fn *F, bool trans)
{
    LLVMValueRef o[W];
    for (unsigned l = 0; l < W; l++)
        o[l] = const_i64(F->L, trans ? 2 * (l / 4) : 4 * (l % 4));
    return LLVMConstVector(o, W);
}

typedef struct access {
    LLVMValueRef addrs, mask; /* per lane: this lane's row address; lanes executing */
    bool trans;
} access;

/* Addresses and mask of the part of register j that lane l moves: the
 * whole 32 bits (plain) or half h (.trans). */
static void part(fn *F, const access *a, unsigned j, unsigned h, LLVMValueRef *addrs, LLVMValueRef *mask)
{
    LLVMBuilderRef b = F->L->b;
    unsigned (*src)(unsigned, unsigned) = a->trans ? trans_row_lane : row_lane;
    unsigned arg = a->trans ? 2 * j + h : j;
    *addrs = LLVMBuildAdd(b, lane_shuffle(F, a->addrs, src, arg), row_offset(F, a->trans), "");
    *mask = LLVMBuildAnd(b, a->mask, lane_shuffle(F, a->mask, src, arg), "");
}

static void lower_ldmatrix(fn *F, const ptx_instr *in, const access *a, unsigned n)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    const ptx_operand *d = in->opds[0].kind == PTX_OPD_VEC ? in->opds[0].elems : &in->opds[0];
    for (unsigned j = 0; j < n; j++) {
        LLVMValueRef addrs, mask, v;
        if (!a->trans) {
            part(F, a, j, 0, &addrs, &mask);
            v = masked_load(F, addrs, L->i32, 4, mask);
        } else {
            LLVMValueRef h[2];
            for (unsigned k = 0; k < 2; k++) {
                part(F, a, j, k, &addrs, &mask);
                h[k] = LLVMBuildZExt(b, masked_load(F, addrs, L->i16, 2, mask), vec_of(L->i32), "");
            }
            v = LLVMBuildOr(b, h[0], LLVMBuildShl(b, h[1], splat(L, const_i32(L, 16)), ""), "");
        }
        write_reg(F, &d[j], v, PTX_TYPE_B32, false, a->mask);
    }
}

static void lower_stmatrix(fn *F, const ptx_instr *in, const access *a, unsigned n)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    const ptx_operand *s = in->opds[1].kind == PTX_OPD_VEC ? in->opds[1].elems : &in->opds[1];
    for (unsigned j = 0; j < n; j++) {
        LLVMValueRef v = read_opd(F, &s[j], PTX_TYPE_B32, false), addrs, mask;
        if (!a->trans) {
            part(F, a, j, 0, &addrs, &mask);
            masked_store(F, addrs, v, 4, mask);
            continue;
        }
        for (unsigned k = 0; k < 2; k++) {
            part(F, a, j, k, &addrs, &mask);
            LLVMValueRef half = LLVMBuildTrunc(b, LLVMBuildLShr(b, v, splat(L, const_i32(L, 16 * k)), ""),
                                               vec_of(L->i16), "");
            masked_store(F, addrs, half, 2, mask);
        }
    }
}

/* movmatrix.trans: lane l's halves are M[2 (l % 4) + h][l / 4], held by
 * lane 4 (2 (l % 4) + h) + l / 8 as its half (l / 4) % 2. */
static void lower_movmatrix(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef v = LLVMBuildBitCast(b, read_opd(F, &in->opds[1], PTX_TYPE_B32, false),
                                      LLVMVectorType(L->i16, 2 * W), "");
    LLVMValueRef idx[2 * W];
    for (unsigned l = 0; l < W; l++)
        for (unsigned h = 0; h < 2; h++)
            idx[2 * l + h] = const_i32(L, 2 * (4 * (2 * (l % 4) + h) + l / 8) + (l / 4) % 2);
    v = LLVMBuildShuffleVector(b, v, LLVMGetPoison(LLVMTypeOf(v)), LLVMConstVector(idx, 2 * W), "");
    write_reg(F, &in->opds[0], LLVMBuildBitCast(b, v, vec_of(L->i32), ""), PTX_TYPE_B32, false, mask);
}

void lower_matrix_move(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    if (in->op == PTX_OP_MOVMATRIX) {
        lower_movmatrix(F, in, mask);
        return;
    }
    bool ld = in->op == PTX_OP_LDMATRIX;
    uint8_t num = in->mod[PTX_CAT_NUM];
    unsigned n = num == PTX_NUM_X1 ? 1 : num == PTX_NUM_X2 ? 2 : 4;
    access a = {address_of(F, in, &in->opds[ld ? 1 : 0], in->mod[PTX_CAT_SPACE]), mask,
                (in->flags & PTX_FLAG_BIT(TRANS)) != 0};
    if (ld)
        lower_ldmatrix(F, in, &a, n);
    else
        lower_stmatrix(F, in, &a, n);
}
