/* lower_mma_float.c - how the GPU sums a float matrix product, bit for
 * bit (found from the outputs an H200 recorded, tests/gpu/tensor_gpu.c).
 *
 * f16, bf16 and tf32 inputs with an f32 D (m16n8k8, m16n8k16, m16n8k4/k8
 * tf32): the products are exact and, with C, summed in one fixed-point
 * addition.  Its scale is set by the largest exponent E among C's and the
 * products' estimates, a product's estimate being the sum of its inputs'
 * exponents (a product of significands in [1, 4) takes two integer bits);
 * every term is truncated toward zero to a multiple of 2^(E - 27), the
 * truncated terms add exactly, and the sum is rounded toward zero to f32.
 * A NaN or infinite term makes the plain sum's NaN or infinity (the scaled
 * finite terms vanish beside it).
 *
 * Other forms: m8n8k4 .f16 adds the products in k order in f32 (round to
 * nearest) from zero, then C; the other f16 D forms are the f32 fused
 * multiply-add chain onto C; an f16 D is rounded once, at the end;
 * e4m3/e5m2 products sum exactly (in f64: few significant bits) and round
 * once to D; f64 is a fused multiply-add chain (each step rounded per
 * .rn/.rz/.rm/.rp) whose NaNs are a product's NaN input first, then the
 * sum's (an invalid operation makes 0xfff8000000000000).  f32 NaN results
 * are 0x7fffffff. */
#include "lower_internal.h"

#include <math.h>

/* The aligned sum's fraction: terms keep bits down to 2^(E - 27). */
#define ALIGN_BITS 27

static LLVMTypeRef vec_n(LLVMTypeRef t, unsigned n) { return LLVMVectorType(t, n); }

static LLVMValueRef fma_n(fn *F, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c)
{
    LLVMTypeRef vt = LLVMTypeOf(c);
    return call_intrinsic(F->L, "llvm.fma", &vt, 1, (LLVMValueRef[]){a, b, c}, 3);
}

/* frexp's exponent of each f32 (|x| in [2^(e-1), 2^e)), from its bits;
 * zeros get a value below any product's. */
static LLVMValueRef exponent_of(fn *F, LLVMValueRef x)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    unsigned n = LLVMGetVectorSize(LLVMTypeOf(x));
    LLVMValueRef bits = LLVMBuildBitCast(b, x, vec_n(L->i32, n), "");
    LLVMValueRef e = LLVMBuildAnd(b, LLVMBuildLShr(b, bits, mma_splat(const_i32(L, 23), n), ""),
                                  mma_splat(const_i32(L, 0xff), n), "");
    e = LLVMBuildSub(b, e, mma_splat(const_i32(L, 126), n), "");
    LLVMValueRef zero = LLVMBuildFCmp(b, LLVMRealOEQ, x, LLVMConstNull(LLVMTypeOf(x)), "");
    return LLVMBuildSelect(b, zero, mma_splat(const_i32(L, (uint32_t)-2000), n), e, "");
}

static LLVMValueRef imax(fn *F, LLVMValueRef a, LLVMValueRef b)
{
    LLVMBuilderRef bld = F->L->b;
    return LLVMBuildSelect(bld, LLVMBuildICmp(bld, LLVMIntSGT, a, b, ""), a, b, "");
}

/* 2^(shift + sign * E) as f64, E an i32 vector in range. */
static LLVMValueRef pow2(fn *F, LLVMValueRef e, int sign, int shift)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    unsigned n = LLVMGetVectorSize(LLVMTypeOf(e));
    LLVMValueRef x = sign > 0 ? e : LLVMBuildNeg(b, e, "");
    x = LLVMBuildAdd(b, x, mma_splat(const_i32(L, (uint32_t)(1023 + shift)), n), "");
    x = LLVMBuildShl(b, LLVMBuildZExt(b, x, vec_n(L->i64, n), ""), mma_splat(const_i64(L, 52), n), "");
    return LLVMBuildBitCast(b, x, vec_n(L->f64, n), "");
}

/* f64 -> f32 rounded toward zero. */
static LLVMValueRef narrow_rz(fn *F, LLVMValueRef d)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    unsigned n = LLVMGetVectorSize(LLVMTypeOf(d));
    LLVMTypeRef vf = vec_n(L->f32, n), vd = LLVMTypeOf(d);
    LLVMValueRef f = LLVMBuildFPTrunc(b, d, vf, "");
    LLVMValueRef back = LLVMBuildFPExt(b, f, vd, "");
    LLVMValueRef away = LLVMBuildFCmp(b, LLVMRealOGT, call_intrinsic(L, "llvm.fabs", &vd, 1, &back, 1),
                                      call_intrinsic(L, "llvm.fabs", &vd, 1, &d, 1), "");
    LLVMValueRef bits = LLVMBuildBitCast(b, f, vec_n(L->i32, n), "");
    LLVMValueRef less = LLVMBuildSub(b, bits, mma_splat(const_i32(L, 1), n), "");
    return LLVMBuildBitCast(b, LLVMBuildSelect(b, away, less, bits, ""), vf, "");
}

/* Elements [first, first + n) of the result, in f64: the scaled products
 * are exact, truncate, and add exactly (below 2^32). */
static LLVMValueRef aligned_part_f64(fn *F, const mma_shape *s, LLVMValueRef ad, LLVMValueRef bd, LLVMValueRef c,
                                     LLVMValueRef e, unsigned first)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    unsigned n = LLVMGetVectorSize(LLVMTypeOf(c));
    LLVMTypeRef vd = vec_n(L->f64, n);
    LLVMValueRef up = pow2(F, e, -1, ALIGN_BITS), down = pow2(F, e, 1, -ALIGN_BITS);
    LLVMValueRef acc = LLVMBuildFMul(b, LLVMBuildFPExt(b, c, vd, ""), up, "");
    acc = call_intrinsic(L, "llvm.trunc", &vd, 1, &acc, 1);
    for (unsigned k = 0; k < s->k; k++) {
        LLVMValueRef ak, bk;
        mma_rank1_part(F, s, ad, bd, k, first, n, &ak, &bk);
        LLVMValueRef t = LLVMBuildFMul(b, LLVMBuildFMul(b, ak, bk, ""), up, "");
        acc = LLVMBuildFAdd(b, acc, call_intrinsic(L, "llvm.trunc", &vd, 1, &t, 1), "");
    }
    /* an infinite or NaN term makes acc what the plain sum would be */
    return narrow_rz(F, LLVMBuildFMul(b, acc, down, ""));
}

/* The same for f16 inputs, in f32: a product (22 bits) is exact in f32,
 * scaled it truncates to an integer below 2^27, and up to 15 of those add
 * exactly in 32 bits.  The plain f32 sum stands for infinite and NaN
 * terms (finite f16 products cannot overflow it); where every product is
 * zero and C is below the f32 scale's range, the result is C. */
static LLVMValueRef aligned_part_f16(fn *F, const mma_shape *s, LLVMValueRef a, LLVMValueRef bm, LLVMValueRef c,
                                     LLVMValueRef e, unsigned first)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    unsigned n = LLVMGetVectorSize(LLVMTypeOf(c));
    LLVMTypeRef vf = vec_n(L->f32, n), vi = vec_n(L->i32, n), vd = vec_n(L->f64, n);
    LLVMValueRef low = mma_splat(const_i32(L, (uint32_t)-100), n);
    LLVMValueRef tiny = LLVMBuildICmp(b, LLVMIntSLT, e, low, "");
    LLVMValueRef x = LLVMBuildSub(b, mma_splat(const_i32(L, 127 + ALIGN_BITS), n), imax(F, e, low), "");
    LLVMValueRef up = LLVMBuildBitCast(b, LLVMBuildShl(b, x, mma_splat(const_i32(L, 23), n), ""), vf, "");
    LLVMValueRef sums[8], plain = c;
    unsigned nsums = 1, terms = 1;
    sums[0] = LLVMBuildFPToSI(b, LLVMBuildFMul(b, c, up, ""), vi, "");
    for (unsigned k = 0; k < s->k; k++) {
        LLVMValueRef ak, bk;
        mma_rank1_part(F, s, a, bm, k, first, n, &ak, &bk);
        LLVMValueRef p = LLVMBuildFMul(b, ak, bk, "");
        plain = LLVMBuildFAdd(b, plain, p, "");
        LLVMValueRef t = LLVMBuildFPToSI(b, LLVMBuildFMul(b, p, up, ""), vi, "");
        if (terms == 15) { /* 15 terms below 2^27 stay below 2^31 */
            sums[nsums++] = t;
            terms = 1;
            continue;
        }
        sums[nsums - 1] = LLVMBuildAdd(b, sums[nsums - 1], t, "");
        terms++;
    }
    LLVMValueRef d = LLVMBuildSIToFP(b, sums[0], vd, "");
    for (unsigned i = 1; i < nsums; i++)
        d = LLVMBuildFAdd(b, d, LLVMBuildSIToFP(b, sums[i], vd, ""), "");
    LLVMValueRef r = narrow_rz(F, LLVMBuildFMul(b, d, pow2(F, e, 1, -ALIGN_BITS), ""));
    LLVMValueRef inf = mma_splat(LLVMConstReal(L->f32, INFINITY), n);
    LLVMValueRef finite = LLVMBuildFCmp(b, LLVMRealOLT, call_intrinsic(L, "llvm.fabs", &vf, 1, &plain, 1), inf, "");
    r = LLVMBuildSelect(b, finite, r, plain, "");
    return LLVMBuildSelect(b, tiny, c, r, "");
}

/* Result elements per part: the sums, scales and a product of a part stay
 * in vector registers (64 f32 lanes: 4 AVX-512 registers each). */
#define PART_F32 64
#define PART_F64 32

static LLVMValueRef aligned_sum(fn *F, const mma_shape *s, LLVMValueRef a, LLVMValueRef bm, LLVMValueRef c)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    unsigned n = LLVMGetVectorSize(LLVMTypeOf(c));
    /* the scale: exponents of A and B once, broadcast like the values */
    LLVMValueRef ea = exponent_of(F, a), eb = exponent_of(F, bm), e = exponent_of(F, c);
    for (unsigned k = 0; k < s->k; k++) {
        LLVMValueRef eak, ebk;
        mma_rank1(F, s, ea, eb, k, &eak, &ebk);
        e = imax(F, e, LLVMBuildAdd(b, eak, ebk, ""));
    }
    e = imax(F, e, mma_splat(const_i32(L, (uint32_t)-900), n)); /* all zero: any scale in range */
    bool f16 = s->a == PTX_TYPE_F16;
    unsigned part = f16 ? PART_F32 : PART_F64, nparts = (n + part - 1) / part;
    if (n % part)
        part = n, nparts = 1;
    LLVMValueRef ad = a, bd = bm, parts[16];
    if (!f16) { /* widened once, before the broadcasts (f32 -> f64 is exact) */
        ad = LLVMBuildFPExt(b, a, vec_n(L->f64, LLVMGetVectorSize(LLVMTypeOf(a))), "");
        bd = LLVMBuildFPExt(b, bm, vec_n(L->f64, LLVMGetVectorSize(LLVMTypeOf(bm))), "");
    }
    for (unsigned i = 0; i < nparts; i++) {
        LLVMValueRef cp = mma_part(F, c, i * part, part), ep = mma_part(F, e, i * part, part);
        parts[i] = f16 ? aligned_part_f16(F, s, ad, bd, cp, ep, i * part)
                       : aligned_part_f64(F, s, ad, bd, cp, ep, i * part);
    }
    return nparts == 1 ? parts[0] : mma_join(F, parts, nparts);
}

/* The NaN an f64 multiply-add step leaves: a NaN input of the product
 * first, then the NaN sum so far; else the step's value (an invalid
 * operation makes 0xfff8...).  (The GPU agrees but for the sign of some
 * NaNs where both kinds meet.) */
static LLVMValueRef f64_nan_step(fn *F, LLVMValueRef a, LLVMValueRef b, LLVMValueRef acc, LLVMValueRef next)
{
    LLVMBuilderRef bld = F->L->b;
    LLVMValueRef r = LLVMBuildSelect(bld, LLVMBuildFCmp(bld, LLVMRealUNO, acc, acc, ""), acc, next, "");
    return LLVMBuildSelect(bld, LLVMBuildFCmp(bld, LLVMRealUNO, a, b, ""), LLVMBuildFMul(bld, a, b, ""), r, "");
}

static bool directed(uint8_t rnd) { return rnd && rnd != PTX_ROUND_RN; }

static LLVMValueRef chain_sum(fn *F, const mma_shape *s, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c, bool c_last)
{
    LLVMBuilderRef bld = F->L->b;
    LLVMValueRef acc = c_last ? LLVMConstNull(LLVMTypeOf(c)) : c;
    for (unsigned k = 0; k < s->k; k++) {
        LLVMValueRef ak, bk;
        mma_rank1(F, s, a, b, k, &ak, &bk);
        LLVMValueRef next = directed(s->rnd) ? fma_f64_directed(F, ak, bk, acc, s->rnd) : fma_n(F, ak, bk, acc);
        if (s->d == PTX_TYPE_F64)
            next = f64_nan_step(F, ak, bk, acc, next);
        acc = next;
    }
    return c_last ? LLVMBuildFAdd(bld, acc, c, "") : acc;
}

static LLVMValueRef exact_sum(fn *F, const mma_shape *s, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c)
{
    lw *L = F->L;
    LLVMBuilderRef bld = L->b;
    unsigned n = LLVMGetVectorSize(LLVMTypeOf(c));
    LLVMTypeRef vd = vec_n(L->f64, n);
    LLVMValueRef acc = LLVMBuildFPExt(bld, c, vd, "");
    for (unsigned k = 0; k < s->k; k++) {
        LLVMValueRef ak, bk;
        mma_rank1(F, s, a, b, k, &ak, &bk);
        acc = fma_n(F, LLVMBuildFPExt(bld, ak, vd, ""), LLVMBuildFPExt(bld, bk, vd, ""), acc);
    }
    if (s->d != PTX_TYPE_F16)
        return LLVMBuildFPTrunc(bld, acc, LLVMTypeOf(c), "");
    /* rounded once, to f16; widening back is exact */
    LLVMValueRef h = LLVMBuildFPTrunc(bld, acc, vec_n(L->f16, n), "");
    return LLVMBuildFPExt(bld, h, LLVMTypeOf(c), "");
}

mma_sum mma_default_sum(const mma_shape *s)
{
    if (s->a == PTX_TYPE_F64)
        return MMA_SUM_CHAIN;
    if (s->a == PTX_TYPE_E4M3 || s->a == PTX_TYPE_E5M2)
        return MMA_SUM_EXACT;
    return s->d == PTX_TYPE_F32 ? MMA_SUM_ALIGNED : MMA_SUM_CHAIN;
}

LLVMValueRef mma_float_product(fn *F, const mma_shape *s, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c)
{
    LLVMValueRef d;
    switch (s->sum) {
    case MMA_SUM_ALIGNED: d = aligned_sum(F, s, a, b, c); break;
    case MMA_SUM_C_LAST: d = chain_sum(F, s, a, b, c, true); break;
    case MMA_SUM_EXACT: d = exact_sum(F, s, a, b, c); break;
    default: d = chain_sum(F, s, a, b, c, false); break;
    }
    if (s->d != PTX_TYPE_F32)
        return d;
    LLVMBuilderRef bld = F->L->b;
    LLVMTypeRef vt = LLVMTypeOf(d);
    LLVMValueRef nan = LLVMBuildBitCast(bld, mma_splat(const_i32(F->L, 0x7fffffff), LLVMGetVectorSize(vt)), vt, "");
    return LLVMBuildSelect(bld, LLVMBuildFCmp(bld, LLVMRealUNO, d, d, ""), nan, d, "");
}
