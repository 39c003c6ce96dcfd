/* lower_intmix.c - mixed-width integer instructions per the ISA
 * pseudo-code: dp4a, dp2a, sad, mul24, mad24. */
#include "lower_internal.h"

static LLVMValueRef v32(fn *F, uint32_t v) { return splat(F->L, const_i32(F->L, v)); }

/* Part k of width w bits of x, sign- or zero-extended to 32 bits. */
static LLVMValueRef part(fn *F, LLVMValueRef x, unsigned k, unsigned w, bool sign)
{
    LLVMBuilderRef b = F->L->b;
    LLVMValueRef sh = LLVMBuildShl(b, x, v32(F, 32 - w * (k + 1)), "");
    return sign ? LLVMBuildAShr(b, sh, v32(F, 32 - w), "") : LLVMBuildLShr(b, sh, v32(F, 32 - w), "");
}

static bool is_s(const ptx_instr *in, int i) { return ptx_type_class((ptx_type)in->types[i]) == 'S'; }

/* dp4a.atype.btype d, a, b, c: c + sum of the four byte products. */
static LLVMValueRef dp4a(fn *F, const ptx_instr *in)
{
    LLVMBuilderRef b = F->L->b;
    LLVMValueRef a = read_opd(F, &in->opds[1], PTX_TYPE_B32, false);
    LLVMValueRef x = read_opd(F, &in->opds[2], PTX_TYPE_B32, false);
    LLVMValueRef acc = read_opd(F, &in->opds[3], PTX_TYPE_B32, false);
    for (unsigned k = 0; k < 4; k++)
        acc = LLVMBuildAdd(b, acc, LLVMBuildMul(b, part(F, a, k, 8, is_s(in, 0)), part(F, x, k, 8, is_s(in, 1)), ""), "");
    return acc;
}

/* dp2a.lo/.hi d, a, b, c: two 16-bit halves of a times bytes 0,1 (lo) or
 * 2,3 (hi) of b. */
static LLVMValueRef dp2a(fn *F, const ptx_instr *in)
{
    LLVMBuilderRef b = F->L->b;
    LLVMValueRef a = read_opd(F, &in->opds[1], PTX_TYPE_B32, false);
    LLVMValueRef x = read_opd(F, &in->opds[2], PTX_TYPE_B32, false);
    LLVMValueRef acc = read_opd(F, &in->opds[3], PTX_TYPE_B32, false);
    unsigned j = in->mod[PTX_CAT_WIDTH] == PTX_WIDTH_HI ? 2 : 0;
    for (unsigned k = 0; k < 2; k++)
        acc = LLVMBuildAdd(b, acc, LLVMBuildMul(b, part(F, a, k, 16, is_s(in, 0)), part(F, x, j + k, 8, is_s(in, 1)), ""), "");
    return acc;
}

/* sad d, a, b, c: c + |a - b| */
static LLVMValueRef sad(fn *F, const ptx_instr *in, ptx_type t)
{
    LLVMBuilderRef b = F->L->b;
    bool s = ptx_type_class(t) == 'S';
    LLVMValueRef x = read_opd(F, &in->opds[1], t, false), y = read_opd(F, &in->opds[2], t, false);
    LLVMValueRef lt = LLVMBuildICmp(b, s ? LLVMIntSLT : LLVMIntULT, x, y, "");
    LLVMValueRef diff = LLVMBuildSelect(b, lt, LLVMBuildSub(b, y, x, ""), LLVMBuildSub(b, x, y, ""), "");
    return LLVMBuildAdd(b, diff, read_opd(F, &in->opds[3], t, false), "");
}

/* mul24.lo/.hi: the 48-bit product of the low 24 bits (sign-extended for
 * .s32); .lo keeps bits 31..0, .hi bits 47..16. */
static LLVMValueRef mul24(fn *F, const ptx_instr *in, ptx_type t)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    bool s = ptx_type_class(t) == 'S';
    LLVMTypeRef w = vec_of(L->i64);
    LLVMValueRef x = part(F, read_opd(F, &in->opds[1], t, false), 0, 24, s);
    LLVMValueRef y = part(F, read_opd(F, &in->opds[2], t, false), 0, 24, s);
    LLVMValueRef p = LLVMBuildMul(b, s ? LLVMBuildSExt(b, x, w, "") : LLVMBuildZExt(b, x, w, ""),
                                  s ? LLVMBuildSExt(b, y, w, "") : LLVMBuildZExt(b, y, w, ""), "");
    if (in->mod[PTX_CAT_WIDTH] == PTX_WIDTH_HI)
        p = LLVMBuildLShr(b, p, splat(L, const_i64(L, 16)), "");
    LLVMValueRef r = LLVMBuildTrunc(b, p, vec_of(L->i32), "");
    if (in->op == PTX_OP_MAD24)
        r = LLVMBuildAdd(b, r, read_opd(F, &in->opds[3], t, false), "");
    return r;
}

bool lower_intmix(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    ptx_type t = in->ntypes ? (ptx_type)in->types[0] : PTX_TYPE_NONE;
    LLVMValueRef r;
    switch (in->op) {
    case PTX_OP_DP4A: r = dp4a(F, in), t = PTX_TYPE_B32; break;
    case PTX_OP_DP2A: r = dp2a(F, in), t = PTX_TYPE_B32; break;
    case PTX_OP_SAD:
        if (ptx_type_size(t) != 4 && ptx_type_size(t) != 8 && ptx_type_size(t) != 2)
            return false;
        r = sad(F, in, t);
        break;
    case PTX_OP_MUL24:
    case PTX_OP_MAD24:
        if (in->flags & PTX_FLAG_BIT(SAT))
            return false;
        r = mul24(F, in, t);
        break;
    default: return false;
    }
    write_reg(F, &in->opds[0], r, t, false, mask);
    return true;
}
