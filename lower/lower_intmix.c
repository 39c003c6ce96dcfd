/* lower_intmix.c - mixed-width integer instructions per the ISA
 * pseudo-code: dp4a, dp2a, sad, mul24, mad24 and the SIMD video
 * instructions (vadd2/4, vsub, vavrg, vabsdiff, vmin, vmax, vset). */
#include "lower_internal.h"

#include <string.h>

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

/* SIMD video: each 8-bit (x4) or 16-bit (x2) part of a and b, extended by
 * its type; results saturated to the destination part type with .sat, then
 * packed, or summed into c with the .add secondary operation.  Byte
 * selectors and merge masks are not written by compilers and not parsed. */
static LLVMValueRef simd_video(fn *F, const ptx_instr *in)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    const char *name = ptx_op_name(in->op);
    unsigned w = name[strlen(name) - 1] == '4' ? 8 : 16, n = 32 / w;
    bool set = in->op == PTX_OP_VSET2 || in->op == PTX_OP_VSET4;
    int at = set ? 0 : 1, bt = set ? 1 : 2;
    bool as = is_s(in, at), bs = is_s(in, bt), ds = !set && is_s(in, 0), sgn = as || bs;
    LLVMValueRef a = read_opd(F, &in->opds[1], PTX_TYPE_B32, false);
    LLVMValueRef x = read_opd(F, &in->opds[2], PTX_TYPE_B32, false);
    LLVMValueRef c = read_opd(F, &in->opds[3], PTX_TYPE_B32, false);
    bool add = in->mod[PTX_CAT_RED] == PTX_RED_ADD;
    LLVMValueRef acc = add ? c : v32(F, 0);
    for (unsigned i = 0; i < n; i++) {
        LLVMValueRef p = part(F, a, i, w, as), q = part(F, x, i, w, bs), r;
        switch (in->op) {
        case PTX_OP_VADD2: case PTX_OP_VADD4: r = LLVMBuildAdd(b, p, q, ""); break;
        case PTX_OP_VSUB2: case PTX_OP_VSUB4: r = LLVMBuildSub(b, p, q, ""); break;
        case PTX_OP_VAVRG2: case PTX_OP_VAVRG4: /* rounded average, no overflow in 32 bits */
            r = LLVMBuildAdd(b, LLVMBuildAdd(b, p, q, ""), v32(F, 1), "");
            r = sgn ? LLVMBuildAShr(b, r, v32(F, 1), "") : LLVMBuildLShr(b, r, v32(F, 1), "");
            break;
        case PTX_OP_VABSDIFF2: case PTX_OP_VABSDIFF4: {
            LLVMValueRef d = LLVMBuildSub(b, p, q, "");
            r = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, d, v32(F, 0), ""), LLVMBuildNeg(b, d, ""), d, "");
            break;
        }
        case PTX_OP_VMIN2: case PTX_OP_VMIN4:
        case PTX_OP_VMAX2: case PTX_OP_VMAX4: {
            bool mn = in->op == PTX_OP_VMIN2 || in->op == PTX_OP_VMIN4;
            LLVMValueRef lt = LLVMBuildICmp(b, sgn ? LLVMIntSLT : LLVMIntULT, p, q, "");
            r = LLVMBuildSelect(b, lt, mn ? p : q, mn ? q : p, "");
            break;
        }
        default: { /* vset */
            LLVMIntPredicate pr;
            switch (in->mod[PTX_CAT_CMP]) {
            case PTX_CMP_EQ: pr = LLVMIntEQ; break;
            case PTX_CMP_NE: pr = LLVMIntNE; break;
            case PTX_CMP_LT: pr = sgn ? LLVMIntSLT : LLVMIntULT; break;
            case PTX_CMP_LE: pr = sgn ? LLVMIntSLE : LLVMIntULE; break;
            case PTX_CMP_GT: pr = sgn ? LLVMIntSGT : LLVMIntUGT; break;
            default: pr = sgn ? LLVMIntSGE : LLVMIntUGE; break;
            }
            r = LLVMBuildZExt(b, LLVMBuildICmp(b, pr, p, q, ""), vec_of(L->i32), "");
        }
        }
        if (in->flags & PTX_FLAG_BIT(SAT)) { /* clamp to the part's range */
            int64_t lo = ds ? -(1ll << (w - 1)) : 0, hi = ds ? (1ll << (w - 1)) - 1 : (1ll << w) - 1;
            r = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, r, v32(F, (uint32_t)lo), ""), v32(F, (uint32_t)lo), r, "");
            r = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSGT, r, v32(F, (uint32_t)hi), ""), v32(F, (uint32_t)hi), r, "");
        }
        if (add)
            acc = LLVMBuildAdd(b, acc, r, "");
        else
            acc = LLVMBuildOr(b, acc, LLVMBuildShl(b, LLVMBuildAnd(b, r, v32(F, (1u << w) - 1), ""),
                                                  v32(F, i * w), ""), "");
    }
    return acc;
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
    case PTX_OP_VADD2: case PTX_OP_VADD4: case PTX_OP_VSUB2: case PTX_OP_VSUB4:
    case PTX_OP_VAVRG2: case PTX_OP_VAVRG4: case PTX_OP_VABSDIFF2: case PTX_OP_VABSDIFF4:
    case PTX_OP_VMIN2: case PTX_OP_VMIN4: case PTX_OP_VMAX2: case PTX_OP_VMAX4:
    case PTX_OP_VSET2: case PTX_OP_VSET4:
        if (in->mod[PTX_CAT_RED] && in->mod[PTX_CAT_RED] != PTX_RED_ADD)
            return false; /* .min/.max secondary operations: not yet */
        r = simd_video(F, in), t = PTX_TYPE_B32;
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
