/* lower_round.c - directed rounding (.rz .rm .rp) without changing the
 * CPU's rounding mode: compute the round-to-nearest result s, find the
 * sign of the exact error (exact - s) with an error-free transformation,
 * and step s one unit in the last place when the mode requires it.
 *
 *   add/sub   TwoSum (always exact)
 *   mul/div/sqrt f32, fma f32, f64 -> f32   in f64, where products and
 *             remainders are exact (f64 has more than 2*24+2 bits, so the
 *             f64 quotient and square root round correctly to f32)
 *   mul/div/sqrt f64   fma remainders (exact unless the result is subnormal)
 */
#include "lower_internal.h"

#include <math.h>

static LLVMValueRef intrin(fn *F, const char *name, LLVMValueRef *args, unsigned n)
{
    LLVMTypeRef t = LLVMTypeOf(args[0]);
    return call_intrinsic(F->L, name, &t, 1, args, n);
}

static LLVMValueRef fconst(fn *F, LLVMTypeRef et, double d) { return splat(F->L, LLVMConstReal(et, d)); }

/* The bits of a rounded-to-nearest result stepped by one ulp where the
 * mode asks; v is the same value in any float type (for its sign); pos/neg
 * say exact > s, exact < s. */
LLVMValueRef step_bits(fn *F, LLVMValueRef bits, LLVMValueRef v, LLVMValueRef pos, LLVMValueRef neg,
                       uint8_t mode)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMTypeRef it = LLVMGetElementType(LLVMTypeOf(bits)), vt = LLVMTypeOf(v);
    LLVMValueRef one = splat(L, LLVMConstInt(it, 1, false));
    LLVMValueRef gt0 = LLVMBuildFCmp(b, LLVMRealOGT, v, LLVMConstNull(vt), "");
    LLVMValueRef lt0 = LLVMBuildFCmp(b, LLVMRealOLT, v, LLVMConstNull(vt), "");
    LLVMValueRef zero = LLVMBuildFCmp(b, LLVMRealOEQ, v, LLVMConstNull(vt), "");
    LLVMValueRef dec = LLVMBuildSub(b, bits, one, ""), inc = LLVMBuildAdd(b, bits, one, "");
    uint64_t sign = 1ull << (LLVMGetIntTypeWidth(it) - 1);
    LLVMValueRef r = bits;
    if (mode == PTX_ROUND_RZ) { /* toward zero: shrink the magnitude */
        LLVMValueRef shrink = LLVMBuildOr(b, LLVMBuildAnd(b, gt0, neg, ""), LLVMBuildAnd(b, lt0, pos, ""), "");
        r = LLVMBuildSelect(b, shrink, dec, bits, "");
    } else if (mode == PTX_ROUND_RM) { /* toward -inf */
        r = LLVMBuildSelect(b, LLVMBuildAnd(b, neg, gt0, ""), dec, r, "");
        r = LLVMBuildSelect(b, LLVMBuildAnd(b, neg, lt0, ""), inc, r, "");
        r = LLVMBuildSelect(b, LLVMBuildAnd(b, neg, zero, ""), splat(L, LLVMConstInt(it, sign | 1, false)), r, "");
    } else { /* toward +inf */
        r = LLVMBuildSelect(b, LLVMBuildAnd(b, pos, gt0, ""), inc, r, "");
        r = LLVMBuildSelect(b, LLVMBuildAnd(b, pos, lt0, ""), dec, r, "");
        r = LLVMBuildSelect(b, LLVMBuildAnd(b, pos, zero, ""), one, r, "");
    }
    return r;
}

static LLVMValueRef step(fn *F, LLVMValueRef s, LLVMValueRef pos, LLVMValueRef neg, uint8_t mode)
{
    lw *L = F->L;
    LLVMTypeRef vt = LLVMTypeOf(s), et = LLVMGetElementType(vt);
    LLVMTypeRef it = LLVMIntTypeInContext(L->ctx, et == L->f64 ? 64 : 32);
    LLVMValueRef bits = LLVMBuildBitCast(L->b, s, vec_of(it), "");
    return LLVMBuildBitCast(L->b, step_bits(F, bits, s, pos, neg, mode), vt, "");
}

/* Error signs from comparing an exact wider value with s widened. */
static void compare_exact(fn *F, LLVMValueRef exact, LLVMValueRef s_wide, LLVMValueRef *pos, LLVMValueRef *neg)
{
    LLVMBuilderRef b = F->L->b;
    *pos = LLVMBuildFCmp(b, LLVMRealOGT, exact, s_wide, "");
    *neg = LLVMBuildFCmp(b, LLVMRealOLT, exact, s_wide, "");
}

static void sign_of(fn *F, LLVMValueRef e, LLVMValueRef *pos, LLVMValueRef *neg)
{
    LLVMValueRef z = LLVMConstNull(LLVMTypeOf(e));
    *pos = LLVMBuildFCmp(F->L->b, LLVMRealOGT, e, z, "");
    *neg = LLVMBuildFCmp(F->L->b, LLVMRealOLT, e, z, "");
}

/* a + b rounded per mode (b already negated for sub). */
static LLVMValueRef add_dir(fn *F, LLVMValueRef a, LLVMValueRef c, uint8_t mode)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef s = LLVMBuildFAdd(b, a, c, "");
    LLVMValueRef bb = LLVMBuildFSub(b, s, a, "");
    LLVMValueRef e = LLVMBuildFAdd(b, LLVMBuildFSub(b, a, LLVMBuildFSub(b, s, bb, ""), ""),
                                   LLVMBuildFSub(b, c, bb, ""), "");
    LLVMValueRef pos, neg;
    sign_of(F, e, &pos, &neg);
    /* overflow to infinity from finite operands: the exact sum is finite */
    LLVMTypeRef vt = LLVMTypeOf(s), et = LLVMGetElementType(vt);
    LLVMValueRef fin_a = LLVMBuildFCmp(b, LLVMRealONE, intrin(F, "llvm.fabs", &a, 1), fconst(F, et, INFINITY), "");
    LLVMValueRef fin_c = LLVMBuildFCmp(b, LLVMRealONE, intrin(F, "llvm.fabs", &c, 1), fconst(F, et, INFINITY), "");
    LLVMValueRef inf_s = LLVMBuildFCmp(b, LLVMRealOEQ, intrin(F, "llvm.fabs", &s, 1), fconst(F, et, INFINITY), "");
    LLVMValueRef ovf = LLVMBuildAnd(b, inf_s, LLVMBuildAnd(b, fin_a, fin_c, ""), "");
    LLVMValueRef sgt = LLVMBuildFCmp(b, LLVMRealOGT, s, LLVMConstNull(vt), "");
    pos = LLVMBuildOr(b, pos, LLVMBuildAnd(b, ovf, LLVMBuildNot(b, sgt, ""), ""), "");
    neg = LLVMBuildOr(b, neg, LLVMBuildAnd(b, ovf, sgt, ""), "");
    LLVMValueRef r = step(F, s, pos, neg, mode);
    if (mode == PTX_ROUND_RM) { /* an exact zero sum is -0, unless both operands are +0 */
        LLVMTypeRef it = LLVMIntTypeInContext(L->ctx, et == L->f64 ? 64 : 32);
        LLVMValueRef za = LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildBitCast(b, a, vec_of(it), ""), LLVMConstNull(vec_of(it)), "");
        LLVMValueRef zc = LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildBitCast(b, c, vec_of(it), ""), LLVMConstNull(vec_of(it)), "");
        LLVMValueRef zero = LLVMBuildFCmp(b, LLVMRealOEQ, s, LLVMConstNull(vt), "");
        LLVMValueRef exact = LLVMBuildNot(b, LLVMBuildOr(b, pos, neg, ""), "");
        LLVMValueRef negzero = LLVMBuildAnd(b, LLVMBuildAnd(b, zero, exact, ""), LLVMBuildNot(b, LLVMBuildAnd(b, za, zc, ""), ""), "");
        r = LLVMBuildSelect(b, negzero, fconst(F, et, -0.0), r, "");
    }
    return r;
}

/* The rounded result of op over f32 operands via exact f64 arithmetic. */
static LLVMValueRef f32_dir(fn *F, ptx_opcode op, LLVMValueRef *x, uint8_t mode)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMTypeRef d = vec_of(L->f64), f = vec_of(L->f32);
    LLVMValueRef a = LLVMBuildFPExt(b, x[0], d, ""), c = op != PTX_OP_SQRT ? LLVMBuildFPExt(b, x[1], d, "") : NULL;
    LLVMValueRef s, sw, pos, neg;
    switch (op) {
    case PTX_OP_MUL: { /* the f64 product is exact */
        LLVMValueRef p = LLVMBuildFMul(b, a, c, "");
        s = LLVMBuildFPTrunc(b, p, f, "");
        compare_exact(F, p, LLVMBuildFPExt(b, s, d, ""), &pos, &neg);
        break;
    }
    case PTX_OP_DIV: { /* sign of a - s*b, exact in f64, times the sign of b */
        s = LLVMBuildFPTrunc(b, LLVMBuildFDiv(b, a, c, ""), f, "");
        sw = LLVMBuildFPExt(b, s, d, "");
        LLVMValueRef rem = intrin(F, "llvm.fma", (LLVMValueRef[]){LLVMBuildFNeg(b, sw, ""), c, a}, 3);
        LLVMValueRef bneg = LLVMBuildFCmp(b, LLVMRealOLT, c, LLVMConstNull(d), "");
        LLVMValueRef rp, rn;
        sign_of(F, rem, &rp, &rn);
        pos = LLVMBuildSelect(b, bneg, rn, rp, "");
        neg = LLVMBuildSelect(b, bneg, rp, rn, "");
        break;
    }
    case PTX_OP_SQRT: {
        s = LLVMBuildFPTrunc(b, intrin(F, "llvm.sqrt", &a, 1), f, "");
        sw = LLVMBuildFPExt(b, s, d, "");
        sign_of(F, intrin(F, "llvm.fma", (LLVMValueRef[]){LLVMBuildFNeg(b, sw, ""), sw, a}, 3), &pos, &neg);
        break;
    }
    default: { /* fma: exact product, TwoSum in f64, then the f32 step */
        LLVMValueRef p = LLVMBuildFMul(b, a, c, ""), e3 = LLVMBuildFPExt(b, x[2], d, "");
        LLVMValueRef s1 = LLVMBuildFAdd(b, p, e3, "");
        LLVMValueRef bb = LLVMBuildFSub(b, s1, p, "");
        LLVMValueRef e1 = LLVMBuildFAdd(b, LLVMBuildFSub(b, p, LLVMBuildFSub(b, s1, bb, ""), ""),
                                        LLVMBuildFSub(b, e3, bb, ""), "");
        s = LLVMBuildFPTrunc(b, s1, f, "");
        LLVMValueRef t = LLVMBuildFSub(b, s1, LLVMBuildFPExt(b, s, d, ""), "");
        LLVMValueRef tz = LLVMBuildFCmp(b, LLVMRealOEQ, t, LLVMConstNull(d), "");
        LLVMValueRef tp, tn, ep, en;
        sign_of(F, t, &tp, &tn);
        sign_of(F, e1, &ep, &en);
        pos = LLVMBuildSelect(b, tz, ep, tp, "");
        neg = LLVMBuildSelect(b, tz, en, tn, "");
        break;
    }
    }
    return step(F, s, pos, neg, mode);
}

/* f64 mul/div/sqrt through fma remainders. */
static LLVMValueRef f64_dir(fn *F, ptx_opcode op, LLVMValueRef *x, uint8_t mode)
{
    LLVMBuilderRef b = F->L->b;
    LLVMValueRef s, pos, neg;
    if (op == PTX_OP_MUL) {
        s = LLVMBuildFMul(b, x[0], x[1], "");
        sign_of(F, intrin(F, "llvm.fma", (LLVMValueRef[]){x[0], x[1], LLVMBuildFNeg(b, s, "")}, 3), &pos, &neg);
    } else if (op == PTX_OP_DIV) {
        s = LLVMBuildFDiv(b, x[0], x[1], "");
        LLVMValueRef rem = intrin(F, "llvm.fma", (LLVMValueRef[]){LLVMBuildFNeg(b, s, ""), x[1], x[0]}, 3);
        LLVMValueRef bneg = LLVMBuildFCmp(b, LLVMRealOLT, x[1], LLVMConstNull(LLVMTypeOf(s)), "");
        LLVMValueRef rp, rn;
        sign_of(F, rem, &rp, &rn);
        pos = LLVMBuildSelect(b, bneg, rn, rp, "");
        neg = LLVMBuildSelect(b, bneg, rp, rn, "");
    } else {
        s = intrin(F, "llvm.sqrt", x, 1);
        sign_of(F, intrin(F, "llvm.fma", (LLVMValueRef[]){LLVMBuildFNeg(b, s, ""), s, x[0]}, 3), &pos, &neg);
    }
    return step(F, s, pos, neg, mode);
}

/* add/sub/mul/div/sqrt/fma with .rz/.rm/.rp on f32/f64; NULL if this
 * combination is not handled (the caller reports it). */
LLVMValueRef round_directed(fn *F, const ptx_instr *in, ptx_type t, LLVMValueRef *x)
{
    uint8_t mode = in->mod[PTX_CAT_ROUND];
    if (mode != PTX_ROUND_RZ && mode != PTX_ROUND_RM && mode != PTX_ROUND_RP)
        return NULL;
    switch (in->op) {
    case PTX_OP_ADD: return add_dir(F, x[0], x[1], mode);
    case PTX_OP_SUB: return add_dir(F, x[0], LLVMBuildFNeg(F->L->b, x[1], ""), mode);
    case PTX_OP_MUL: case PTX_OP_DIV: case PTX_OP_SQRT:
        return t == PTX_TYPE_F32 ? f32_dir(F, in->op, x, mode) : f64_dir(F, in->op, x, mode);
    case PTX_OP_FMA: case PTX_OP_MAD:
        return t == PTX_TYPE_F32 ? f32_dir(F, PTX_OP_FMA, x, mode) : NULL;
    case PTX_OP_RCP:
        x[1] = x[0];
        x[0] = fconst(F, t == PTX_TYPE_F32 ? F->L->f32 : F->L->f64, 1.0);
        return t == PTX_TYPE_F32 ? f32_dir(F, PTX_OP_DIV, x, mode) : f64_dir(F, PTX_OP_DIV, x, mode);
    default: return NULL;
    }
}

/* f64 -> f32 under a directed mode. */
LLVMValueRef narrow_directed(fn *F, LLVMValueRef d, uint8_t mode)
{
    lw *L = F->L;
    LLVMValueRef s = LLVMBuildFPTrunc(L->b, d, vec_of(L->f32), ""), pos, neg;
    compare_exact(F, d, LLVMBuildFPExt(L->b, s, vec_of(L->f64), ""), &pos, &neg);
    return step(F, s, pos, neg, mode);
}
