/* lower_round.c - directed rounding (.rz .rm .rp) without changing the
 * CPU's rounding mode: compute the round-to-nearest result s, find the
 * sign of the exact error (exact - s) with an error-free transformation,
 * and step s one unit in the last place when the mode requires it.
 *
 *   add/sub   TwoSum (always exact)
 *   mul/div/sqrt f32, fma f32, f64 -> f32   in f64, where products and
 *             remainders are exact (f64 has more than 2*24+2 bits, so the
 *             f64 quotient and square root round correctly to f32)
 *   mul/div/sqrt f64   fma remainders on operands scaled to [1, 2) and s
 *             scaled alike, so no remainder underflows or overflows (for a
 *             subnormal s the remainder is rounded, but keeps its sign)
 *   fma f64   the same scaling, and the sign of u1 + u2 + c - s (u1 + u2
 *             the exact product) summed exactly as an expansion
 */
#include "lower_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static LLVMValueRef intrin(fn *F, const char *name, LLVMValueRef *args, unsigned n)
{
    LLVMTypeRef t = LLVMTypeOf(args[0]);
    return call_intrinsic(F->L, name, &t, 1, args, n);
}

static LLVMValueRef fconst(fn *F, LLVMTypeRef et, double d) { return splat(F->L, LLVMConstReal(et, d)); }

/* The bits of a rounded-to-nearest result stepped by one ulp where the
 * mode asks; pos/neg say exact > s, exact < s.  The sign and zero tests
 * are on the bits: LLVM 19 miscompiles some compares of <32 x half> with
 * AVX512-FP16 (an ogt folded into the olt of the same operands). */
LLVMValueRef step_bits(fn *F, LLVMValueRef bits, LLVMValueRef pos, LLVMValueRef neg, uint8_t mode)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMTypeRef it = LLVMGetElementType(LLVMTypeOf(bits)), vt = LLVMTypeOf(bits);
    LLVMValueRef one = splat(L, LLVMConstInt(it, 1, false));
    uint64_t sign = 1ull << (LLVMGetIntTypeWidth(it) - 1);
    LLVMValueRef mag = LLVMBuildAnd(b, bits, splat(L, LLVMConstInt(it, sign - 1, false)), "");
    LLVMValueRef zero = LLVMBuildICmp(b, LLVMIntEQ, mag, LLVMConstNull(vt), "");
    LLVMValueRef negv = LLVMBuildICmp(b, LLVMIntSLT, bits, LLVMConstNull(vt), "");
    LLVMValueRef nz = LLVMBuildNot(b, zero, "");
    LLVMValueRef gt0 = LLVMBuildAnd(b, nz, LLVMBuildNot(b, negv, ""), ""), lt0 = LLVMBuildAnd(b, nz, negv, "");
    LLVMValueRef dec = LLVMBuildSub(b, bits, one, ""), inc = LLVMBuildAdd(b, bits, one, "");
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
    return LLVMBuildBitCast(L->b, step_bits(F, bits, pos, neg, mode), vt, "");
}

LLVMValueRef round_step(fn *F, LLVMValueRef s, LLVMValueRef pos, LLVMValueRef neg, uint8_t mode)
{
    return step(F, s, pos, neg, mode);
}

/* Error signs from comparing an exact wider value with s widened. */
static void compare_exact(fn *F, LLVMValueRef exact, LLVMValueRef s_wide, LLVMValueRef *pos, LLVMValueRef *neg)
{
    LLVMBuilderRef b = F->L->b;
    *pos = LLVMBuildFCmp(b, LLVMRealOGT, exact, s_wide, "");
    *neg = LLVMBuildFCmp(b, LLVMRealOLT, exact, s_wide, "");
}

static LLVMValueRef is_finite(fn *F, LLVMValueRef v)
{
    LLVMTypeRef vt = LLVMTypeOf(v), et = LLVMGetElementType(vt);
    return LLVMBuildFCmp(F->L->b, LLVMRealONE, intrin(F, "llvm.fabs", &v, 1), fconst(F, et, INFINITY), "");
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

/* fma under .rm: an exact zero result is -0 unless a*b and c are both
 * +0 (round to nearest, which s came from, gives +0). */
static LLVMValueRef fma_rm_zero(fn *F, LLVMValueRef r, LLVMValueRef s, LLVMValueRef pos, LLVMValueRef neg,
                                LLVMValueRef *x, uint8_t mode)
{
    if (mode != PTX_ROUND_RM)
        return r;
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMTypeRef vt = LLVMTypeOf(r), et = LLVMGetElementType(vt);
    LLVMTypeRef it = vec_of(et == L->f64 ? L->i64 : L->i32);
    LLVMValueRef prod = LLVMBuildFMul(b, x[0], x[1], "");
    LLVMValueRef pz = LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildBitCast(b, prod, it, ""), LLVMConstNull(it), "");
    LLVMValueRef cz = LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildBitCast(b, x[2], it, ""), LLVMConstNull(it), "");
    LLVMValueRef sz = LLVMBuildFCmp(b, LLVMRealOEQ, s, LLVMConstNull(LLVMTypeOf(s)), "");
    LLVMValueRef exact = LLVMBuildNot(b, LLVMBuildOr(b, pos, neg, ""), "");
    LLVMValueRef neg0 = LLVMBuildAnd(b, LLVMBuildAnd(b, sz, exact, ""), LLVMBuildNot(b, LLVMBuildAnd(b, pz, cz, ""), ""), "");
    return LLVMBuildSelect(b, neg0, fconst(F, et, -0.0), r, "");
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
        return fma_rm_zero(F, step(F, s, pos, neg, mode), s, pos, neg, x, mode);
    }
    }
    return step(F, s, pos, neg, mode);
}

/* ---- f64: scaled remainders ---- */

static LLVMValueRef i64c(fn *F, int64_t v) { return splat(F->L, LLVMConstInt(F->L->i64, (uint64_t)v, true)); }

/* k with |x| * 2^-k in [1, 2) for finite nonzero x (subnormals too);
 * 0 for zero, inf and NaN, so that scaling leaves those alone. */
static LLVMValueRef exp_of(fn *F, LLVMValueRef x)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMTypeRef it = vec_of(L->i64);
    LLVMValueRef big = LLVMBuildFMul(b, x, fconst(F, L->f64, 0x1p54), ""); /* normalizes subnormals */
    LLVMValueRef be = LLVMBuildAnd(b, LLVMBuildLShr(b, LLVMBuildBitCast(b, x, it, ""), i64c(F, 52), ""), i64c(F, 0x7ff), "");
    LLVMValueRef bb = LLVMBuildAnd(b, LLVMBuildLShr(b, LLVMBuildBitCast(b, big, it, ""), i64c(F, 52), ""), i64c(F, 0x7ff), "");
    LLVMValueRef sub = LLVMBuildICmp(b, LLVMIntEQ, be, i64c(F, 0), "");
    LLVMValueRef k = LLVMBuildSelect(b, sub, LLVMBuildSub(b, bb, i64c(F, 1023 + 54), ""),
                                     LLVMBuildSub(b, be, i64c(F, 1023), ""), "");
    LLVMValueRef special = LLVMBuildOr(b, LLVMBuildFCmp(b, LLVMRealOEQ, x, LLVMConstNull(LLVMTypeOf(x)), ""),
                                       LLVMBuildICmp(b, LLVMIntEQ, be, i64c(F, 0x7ff), ""), "");
    return LLVMBuildSelect(b, special, i64c(F, 0), k, "");
}

/* x * 2^k, exactly while the result is normal or the scaling goes up;
 * |k| < 2200, in three power-of-two factors that stay normal. */
static LLVMValueRef scale(fn *F, LLVMValueRef x, LLVMValueRef k)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef k1 = LLVMBuildSDiv(b, k, i64c(F, 3), "");
    LLVMValueRef k3 = LLVMBuildSub(b, k, LLVMBuildAdd(b, k1, k1, ""), "");
    LLVMValueRef parts[3] = {k1, k1, k3};
    for (int i = 0; i < 3; i++) {
        LLVMValueRef bits = LLVMBuildShl(b, LLVMBuildAdd(b, parts[i], i64c(F, 1023), ""), i64c(F, 52), "");
        x = LLVMBuildFMul(b, x, LLVMBuildBitCast(b, bits, vec_of(L->f64), ""), "");
    }
    return x;
}

static LLVMValueRef fma3(fn *F, LLVMValueRef a, LLVMValueRef c, LLVMValueRef d)
{
    return intrin(F, "llvm.fma", (LLVMValueRef[]){a, c, d}, 3);
}

static LLVMValueRef f64_mul_dir(fn *F, LLVMValueRef a, LLVMValueRef c, uint8_t mode)
{
    LLVMBuilderRef b = F->L->b;
    LLVMValueRef s = LLVMBuildFMul(b, a, c, ""), pos, neg;
    LLVMValueRef ka = exp_of(F, a), kc = exp_of(F, c);
    LLVMValueRef ma = scale(F, a, LLVMBuildNeg(b, ka, "")), mc = scale(F, c, LLVMBuildNeg(b, kc, ""));
    LLVMValueRef ss = scale(F, s, LLVMBuildNeg(b, LLVMBuildAdd(b, ka, kc, ""), ""));
    sign_of(F, fma3(F, ma, mc, LLVMBuildFNeg(b, ss, "")), &pos, &neg);
    return step(F, s, pos, neg, mode);
}

static LLVMValueRef f64_div_dir(fn *F, LLVMValueRef a, LLVMValueRef c, uint8_t mode)
{
    LLVMBuilderRef b = F->L->b;
    LLVMValueRef s = LLVMBuildFDiv(b, a, c, ""), rp, rn;
    LLVMValueRef ka = exp_of(F, a), kc = exp_of(F, c);
    LLVMValueRef ma = scale(F, a, LLVMBuildNeg(b, ka, "")), mc = scale(F, c, LLVMBuildNeg(b, kc, ""));
    LLVMValueRef ss = scale(F, s, LLVMBuildSub(b, kc, ka, ""));
    sign_of(F, fma3(F, LLVMBuildFNeg(b, ss, ""), mc, ma), &rp, &rn);
    LLVMValueRef cneg = LLVMBuildFCmp(b, LLVMRealOLT, c, LLVMConstNull(LLVMTypeOf(c)), "");
    return step(F, s, LLVMBuildSelect(b, cneg, rn, rp, ""), LLVMBuildSelect(b, cneg, rp, rn, ""), mode);
}

static LLVMValueRef f64_sqrt_dir(fn *F, LLVMValueRef x, uint8_t mode)
{
    LLVMBuilderRef b = F->L->b;
    LLVMValueRef s = intrin(F, "llvm.sqrt", &x, 1), pos, neg;
    LLVMValueRef k = exp_of(F, x);
    k = LLVMBuildAnd(b, k, i64c(F, -2), ""); /* even, so x * 2^-k is in [1, 4) */
    LLVMValueRef m = scale(F, x, LLVMBuildNeg(b, k, ""));
    LLVMValueRef ss = scale(F, s, LLVMBuildNeg(b, LLVMBuildAShr(b, k, i64c(F, 1), ""), ""));
    sign_of(F, fma3(F, LLVMBuildFNeg(b, ss, ""), ss, m), &pos, &neg);
    return step(F, s, pos, neg, mode);
}

/* TwoSum: s + e == a + c exactly. */
static LLVMValueRef two_sum(fn *F, LLVMValueRef a, LLVMValueRef c, LLVMValueRef *e)
{
    LLVMBuilderRef b = F->L->b;
    LLVMValueRef s = LLVMBuildFAdd(b, a, c, "");
    LLVMValueRef bb = LLVMBuildFSub(b, s, a, "");
    *e = LLVMBuildFAdd(b, LLVMBuildFSub(b, a, LLVMBuildFSub(b, s, bb, ""), ""), LLVMBuildFSub(b, c, bb, ""), "");
    return s;
}

/* The sign of x0 + x1 + x2 + x3 (|x0| <= ulp(x1): an exact product pair
 * x1 + x0) as the sign of its most significant nonzero component after
 * growing a nonoverlapping expansion (Shewchuk's Grow-Expansion). */
static LLVMValueRef sum4_sign(fn *F, LLVMValueRef x0, LLVMValueRef x1, LLVMValueRef x2, LLVMValueRef x3)
{
    LLVMBuilderRef b = F->L->b;
    LLVMValueRef h1, h2, g1, g2, g3;
    LLVMValueRef q1 = two_sum(F, x0, x2, &h1);
    LLVMValueRef q2 = two_sum(F, x1, q1, &h2);
    LLVMValueRef r1 = two_sum(F, h1, x3, &g1);
    LLVMValueRef r2 = two_sum(F, h2, r1, &g2);
    LLVMValueRef r3 = two_sum(F, q2, r2, &g3);
    LLVMValueRef z = LLVMConstNull(LLVMTypeOf(x0)), sgn = g1;
    LLVMValueRef comps[3] = {g2, g3, r3};
    for (int i = 0; i < 3; i++)
        sgn = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealONE, comps[i], z, ""), comps[i], sgn, "");
    return sgn;
}

static LLVMValueRef f64_fma_dir(fn *F, LLVMValueRef *x, uint8_t mode)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef a = x[0], c = x[1], d = x[2];
    LLVMTypeRef vt = LLVMTypeOf(a);
    LLVMValueRef s = fma3(F, a, c, d), pos, neg;
    LLVMValueRef ka = exp_of(F, a), kc = exp_of(F, c), kd = exp_of(F, d);
    /* a zero product: no scaling (s is d, or a signed zero, exactly) */
    LLVMValueRef pz = LLVMBuildOr(b, LLVMBuildFCmp(b, LLVMRealOEQ, a, LLVMConstNull(vt), ""),
                                  LLVMBuildFCmp(b, LLVMRealOEQ, c, LLVMConstNull(vt), ""), "");
    LLVMValueRef k = LLVMBuildSelect(b, pz, i64c(F, 0), LLVMBuildAdd(b, ka, kc, ""), ""), nk = LLVMBuildNeg(b, k, "");
    LLVMValueRef ma = scale(F, a, LLVMBuildNeg(b, ka, "")), mc = scale(F, c, LLVMBuildNeg(b, kc, ""));
    LLVMValueRef u1 = LLVMBuildFMul(b, ma, mc, ""), u2 = fma3(F, ma, mc, LLVMBuildFNeg(b, u1, ""));
    /* d far above a nonzero product: s == d and the error has the
     * product's sign */
    LLVMValueRef far = LLVMBuildICmp(b, LLVMIntSGT, LLVMBuildSub(b, kd, k, ""), i64c(F, 200), "");
    LLVMValueRef dnz = LLVMBuildFCmp(b, LLVMRealONE, d, LLVMConstNull(vt), "");
    far = LLVMBuildAnd(b, LLVMBuildAnd(b, far, dnz, ""), LLVMBuildNot(b, pz, ""), "");
    LLVMValueRef ds = LLVMBuildSelect(b, far, LLVMConstNull(vt), scale(F, d, nk), "");
    LLVMValueRef ss = LLVMBuildSelect(b, far, LLVMConstNull(vt), scale(F, s, nk), "");
    LLVMValueRef sgn = sum4_sign(F, u2, u1, ds, LLVMBuildFNeg(b, ss, ""));
    /* a d scaled to zero matters only when the rest cancels exactly */
    LLVMValueRef dzero = LLVMBuildFCmp(b, LLVMRealOEQ, ds, LLVMConstNull(vt), "");
    LLVMValueRef szero = LLVMBuildFCmp(b, LLVMRealOEQ, sgn, LLVMConstNull(vt), "");
    sgn = LLVMBuildSelect(b, LLVMBuildAnd(b, dzero, szero, ""), d, sgn, "");
    sign_of(F, sgn, &pos, &neg);
    /* overflow from finite operands: the exact value is finite */
    LLVMValueRef fin = LLVMBuildAnd(b, LLVMBuildAnd(b, is_finite(F, a), is_finite(F, c), ""), is_finite(F, d), "");
    LLVMValueRef ovf = LLVMBuildAnd(b, fin, LLVMBuildNot(b, is_finite(F, s), ""), "");
    LLVMValueRef sgt = LLVMBuildFCmp(b, LLVMRealOGT, s, LLVMConstNull(vt), "");
    pos = LLVMBuildSelect(b, ovf, LLVMBuildNot(b, sgt, ""), pos, "");
    neg = LLVMBuildSelect(b, ovf, sgt, neg, "");
    pos = LLVMBuildAnd(b, pos, fin, ""), neg = LLVMBuildAnd(b, neg, fin, "");
    return fma_rm_zero(F, step(F, s, pos, neg, mode), s, pos, neg, x, mode);
}

/* Lanes [first, first + W) of v (n elements) as a W-lane vector, zeros
 * past its end. */
static LLVMValueRef slice_w(fn *F, LLVMValueRef v, unsigned n, unsigned first)
{
    LLVMValueRef mask[W];
    for (unsigned i = 0; i < W; i++)
        mask[i] = const_i32(F->L, first + i < n ? first + i : n); /* n: the zero vector's first lane */
    return LLVMBuildShuffleVector(F->L->b, v, LLVMConstNull(LLVMTypeOf(v)), LLVMConstVector(mask, W), "");
}

/* r (n elements) with lanes [first, first + W) replaced by part's. */
static LLVMValueRef put_lanes(fn *F, LLVMValueRef r, unsigned n, unsigned first, LLVMValueRef part)
{
    lw *L = F->L;
    LLVMValueRef *mask = malloc(n * sizeof *mask);
    if (!mask)
        abort();
    for (unsigned j = 0; j < n; j++) /* part resized to n lanes, its lane j - first at j */
        mask[j] = j >= first && j - first < W ? const_i32(L, j - first) : LLVMGetUndef(L->i32);
    LLVMValueRef wide = LLVMBuildShuffleVector(L->b, part, LLVMGetPoison(LLVMTypeOf(part)), LLVMConstVector(mask, n), "");
    for (unsigned j = 0; j < n; j++)
        mask[j] = const_i32(L, j >= first && j - first < W ? n + j : j);
    r = LLVMBuildShuffleVector(L->b, r, wide, LLVMConstVector(mask, n), "");
    free(mask);
    return r;
}

/* f64_fma_dir over W lanes as a function of the module, one per mode: an
 * f64 tensor-core product makes K * (elements / W) of these, and as many
 * inlined copies would take seconds to compile. */
static LLVMValueRef fma_dir_function(fn *F, uint8_t mode, LLVMTypeRef *ft)
{
    lw *L = F->L;
    LLVMTypeRef vt = vec_of(L->f64), params[3] = {vt, vt, vt};
    *ft = LLVMFunctionType(vt, params, 3, false);
    char name[32];
    snprintf(name, sizeof name, "ptxjit.fma.f64.%s", ptx_mod_text(PTX_CAT_ROUND, mode));
    LLVMValueRef f = LLVMGetNamedFunction(L->mod, name);
    if (f)
        return f;
    f = LLVMAddFunction(L->mod, name, *ft);
    LLVMSetLinkage(f, LLVMInternalLinkage);
    LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                            LLVMCreateEnumAttribute(L->ctx, LLVMGetEnumAttributeKindForName("noinline", 8), 0));
    LLVMBasicBlockRef caller = LLVMGetInsertBlock(L->b);
    LLVMPositionBuilderAtEnd(L->b, LLVMAppendBasicBlockInContext(L->ctx, f, "entry"));
    fn body = {.L = L, .fn = f};
    LLVMValueRef x[3] = {LLVMGetParam(f, 0), LLVMGetParam(f, 1), LLVMGetParam(f, 2)};
    LLVMBuildRet(L->b, f64_fma_dir(&body, x, mode));
    LLVMPositionBuilderAtEnd(L->b, caller);
    return f;
}

LLVMValueRef fma_f64_directed(fn *F, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c, uint8_t mode)
{
    LLVMTypeRef ft;
    LLVMValueRef f = fma_dir_function(F, mode, &ft);
    unsigned n = LLVMGetVectorSize(LLVMTypeOf(c));
    LLVMValueRef r = c;
    for (unsigned first = 0; first < n; first += W) {
        LLVMValueRef x[3] = {slice_w(F, a, n, first), slice_w(F, b, n, first), slice_w(F, c, n, first)};
        r = put_lanes(F, r, n, first, LLVMBuildCall2(F->L->b, ft, f, x, 3, ""));
    }
    return r;
}

/* add/sub/mul/div/sqrt/fma with .rz/.rm/.rp on f32/f64; NULL if this
 * combination is not handled (the caller reports it). */
LLVMValueRef round_directed(fn *F, const ptx_instr *in, ptx_type t, LLVMValueRef *x)
{
    uint8_t mode = in->mod[PTX_CAT_ROUND];
    bool f32 = t == PTX_TYPE_F32;
    switch (in->op) {
    case PTX_OP_ADD: return add_dir(F, x[0], x[1], mode);
    case PTX_OP_SUB: return add_dir(F, x[0], LLVMBuildFNeg(F->L->b, x[1], ""), mode);
    case PTX_OP_MUL: return f32 ? f32_dir(F, in->op, x, mode) : f64_mul_dir(F, x[0], x[1], mode);
    case PTX_OP_DIV: return f32 ? f32_dir(F, in->op, x, mode) : f64_div_dir(F, x[0], x[1], mode);
    case PTX_OP_SQRT: return f32 ? f32_dir(F, in->op, x, mode) : f64_sqrt_dir(F, x[0], mode);
    case PTX_OP_RCP: {
        LLVMValueRef one = fconst(F, f32 ? F->L->f32 : F->L->f64, 1.0);
        if (!f32)
            return f64_div_dir(F, one, x[0], mode);
        LLVMValueRef y[2] = {one, x[0]};
        return f32_dir(F, PTX_OP_DIV, y, mode);
    }
    default:
        return f32 ? f32_dir(F, PTX_OP_FMA, x, mode) : f64_fma_dir(F, x, mode);
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
