/* lower_mma_core.c - the warp matrix product D = A * B + C, shared by
 * mma.sync and wmma.mma.
 *
 * A warp's fragments are per-lane registers; the product wants whole
 * matrices.  Each register is unpacked into its elements, one <32 x T>
 * vector per element index (mma_unpack); a layout maps every matrix
 * position to the (element, lane) holding it, and one constant shuffle
 * over the concatenated element vectors builds the matrix as a flat
 * row-major vector (mma_gather).  The product runs over k as rank-1
 * updates of the whole MxN result: the column k of A, broadcast along
 * rows, times the row k of B, broadcast along columns, both constant
 * shuffles, then one vector multiply-add over M*N elements.  The result
 * goes back to fragments with the inverse shuffle (mma_scatter) and is
 * packed into registers (mma_pack).  Constant shuffles of shuffles fold,
 * so a fragment's element reaches the product in one permute.
 *
 * Integer products are exact and summed in 32 bits, wrapping, or with
 * .satfinite clamped once C is added; b1 sums popc(a op b) of 32-bit
 * words.  Float sums follow the GPU's own order and rounding
 * (lower_mma_float.c). */
#include "lower_internal.h"

#include <stdlib.h>

/* The type a matrix element is computed in. */
LLVMTypeRef mma_compute_type(lw *L, ptx_type t)
{
    switch (t) {
    case PTX_TYPE_F64: return L->f64;
    case PTX_TYPE_F16: case PTX_TYPE_BF16: case PTX_TYPE_TF32: case PTX_TYPE_F32:
    case PTX_TYPE_E4M3: case PTX_TYPE_E5M2: return L->f32;
    default: return L->i32;
    }
}

/* Elements per register (b1: the 32-bit word is one element). */
unsigned mma_elems_per_reg(ptx_type t)
{
    if (t == PTX_TYPE_F64 || t == PTX_TYPE_B1)
        return 1;
    return 32 / ptx_type_bits(t);
}

static LLVMValueRef vconst_i32(fn *F, uint32_t v) { return splat(F->L, const_i32(F->L, v)); }

LLVMValueRef mma_splat(LLVMValueRef c, unsigned n)
{
    LLVMValueRef *v = malloc(n * sizeof *v);
    if (!v)
        abort();
    for (unsigned i = 0; i < n; i++)
        v[i] = c;
    LLVMValueRef r = LLVMConstVector(v, n);
    free(v);
    return r;
}

/* e4m3 bits (low byte of x, <32 x i32>) as f32: no infinities, S.1111.111
 * is NaN, exponent bias 7. */
static LLVMValueRef e4m3_to_f32(fn *F, LLVMValueRef x)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMTypeRef vf = vec_of(L->f32);
    LLVMValueRef sign = LLVMBuildShl(b, LLVMBuildAnd(b, x, vconst_i32(F, 0x80), ""), vconst_i32(F, 24), "");
    LLVMValueRef mag = LLVMBuildAnd(b, x, vconst_i32(F, 0x7f), "");
    /* normal: exponent + (127 - 7), mantissa to the top of f32's */
    LLVMValueRef normal = LLVMBuildAdd(b, LLVMBuildShl(b, mag, vconst_i32(F, 20), ""), vconst_i32(F, 120u << 23), "");
    /* subnormal (exponent 0): m * 2^-9, exact */
    LLVMValueRef sub = LLVMBuildFMul(b, LLVMBuildUIToFP(b, mag, vf, ""), splat(L, LLVMConstReal(L->f32, 1.0 / 512)), "");
    LLVMValueRef is_sub = LLVMBuildICmp(b, LLVMIntULT, mag, vconst_i32(F, 8), "");
    LLVMValueRef bits = LLVMBuildSelect(b, is_sub, LLVMBuildBitCast(b, sub, vec_of(L->i32), ""), normal, "");
    bits = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, mag, vconst_i32(F, 0x7f), ""), vconst_i32(F, 0x7fffffff),
                           bits, "");
    return LLVMBuildBitCast(b, LLVMBuildOr(b, bits, sign, ""), vf, "");
}

/* Element e of width `bits` of each lane's 32-bit register r. */
static LLVMValueRef field(fn *F, LLVMValueRef r, unsigned e, unsigned bits, bool sign)
{
    return int_part(F, r, e, bits, sign);
}

void mma_unpack(fn *F, const LLVMValueRef *regs, unsigned nregs, ptx_type t, LLVMValueRef *elems)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    unsigned per = mma_elems_per_reg(t), bits = ptx_type_bits(t);
    for (unsigned r = 0; r < nregs; r++)
        for (unsigned e = 0; e < per; e++) {
            LLVMValueRef x = regs[r], v;
            switch (t) {
            case PTX_TYPE_F64:
                v = LLVMBuildBitCast(b, x, vec_of(L->f64), "");
                break;
            case PTX_TYPE_F32:
                v = LLVMBuildBitCast(b, x, vec_of(L->f32), "");
                break;
            case PTX_TYPE_TF32: /* the GPU reads 19 bits: sign, exponent, 10 of mantissa */
                v = LLVMBuildBitCast(b, LLVMBuildAnd(b, x, vconst_i32(F, 0xffffe000u), ""), vec_of(L->f32), "");
                break;
            case PTX_TYPE_F16:
            case PTX_TYPE_BF16:
                v = half_widen(F, LLVMBuildTrunc(b, field(F, x, e, 16, false), vec_of(L->i16), ""), t);
                break;
            case PTX_TYPE_E5M2: /* the high byte of an f16 */
                v = half_widen(F, LLVMBuildTrunc(b, LLVMBuildShl(b, field(F, x, e, 8, false), vconst_i32(F, 8), ""),
                                                 vec_of(L->i16), ""),
                               PTX_TYPE_F16);
                break;
            case PTX_TYPE_E4M3:
                v = e4m3_to_f32(F, field(F, x, e, 8, false));
                break;
            case PTX_TYPE_B1:
            case PTX_TYPE_S32:
            case PTX_TYPE_B32:
                v = x;
                break;
            default: /* s8 u8 s4 u4 */
                v = field(F, x, e, bits, ptx_type_class(t) == 'S');
                break;
            }
            elems[r * per + e] = v;
        }
}

void mma_pack(fn *F, const LLVMValueRef *elems, unsigned nregs, ptx_type t, LLVMValueRef *regs)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    for (unsigned r = 0; r < nregs; r++) {
        if (t == PTX_TYPE_F16 || t == PTX_TYPE_BF16) {
            LLVMValueRef lo = LLVMBuildZExt(b, half_narrow(F, elems[2 * r], t), vec_of(L->i32), "");
            LLVMValueRef hi = LLVMBuildZExt(b, half_narrow(F, elems[2 * r + 1], t), vec_of(L->i32), "");
            regs[r] = LLVMBuildOr(b, lo, LLVMBuildShl(b, hi, vconst_i32(F, 16), ""), "");
        } else if (t == PTX_TYPE_F64) {
            regs[r] = LLVMBuildBitCast(b, elems[r], vec_of(L->i64), "");
        } else {
            regs[r] = LLVMBuildBitCast(b, elems[r], vec_of(L->i32), "");
        }
    }
}

/* The vectors v[0..n) (all of one type) end to end. */
static LLVMValueRef concat(fn *F, const LLVMValueRef *v, unsigned n)
{
    LLVMBuilderRef b = F->L->b;
    unsigned p = 1;
    while (p < n)
        p *= 2;
    LLVMValueRef *t = malloc(p * sizeof *t);
    if (!t)
        abort();
    for (unsigned i = 0; i < p; i++)
        t[i] = i < n ? v[i] : LLVMGetPoison(LLVMTypeOf(v[0]));
    for (; p > 1; p /= 2) {
        unsigned len = LLVMGetVectorSize(LLVMTypeOf(t[0]));
        LLVMValueRef *mask = malloc(2 * len * sizeof *mask);
        if (!mask)
            abort();
        for (unsigned i = 0; i < 2 * len; i++)
            mask[i] = const_i32(F->L, i);
        for (unsigned i = 0; i < p / 2; i++)
            t[i] = LLVMBuildShuffleVector(b, t[2 * i], t[2 * i + 1], LLVMConstVector(mask, 2 * len), "");
        free(mask);
    }
    LLVMValueRef r = t[0];
    free(t);
    return r;
}

/* shuffle(v, idx[0..n)) */
static LLVMValueRef pick(fn *F, LLVMValueRef v, const unsigned *idx, unsigned n)
{
    LLVMValueRef *mask = malloc(n * sizeof *mask);
    if (!mask)
        abort();
    for (unsigned i = 0; i < n; i++)
        mask[i] = const_i32(F->L, idx[i]);
    LLVMValueRef r = LLVMBuildShuffleVector(F->L->b, v, LLVMGetPoison(LLVMTypeOf(v)), LLVMConstVector(mask, n), "");
    free(mask);
    return r;
}

LLVMValueRef mma_gather(fn *F, const LLVMValueRef *elems, unsigned nelems, const unsigned *where, unsigned npos)
{
    return pick(F, concat(F, elems, nelems), where, npos);
}

void mma_scatter(fn *F, LLVMValueRef matrix, const unsigned *pos, unsigned nelems, LLVMValueRef *elems)
{
    for (unsigned e = 0; e < nelems; e++)
        elems[e] = pick(F, matrix, pos + e * W, W);
}

/* Column k of A broadcast along each row of the MxN result, and row k of
 * B broadcast down each column, batch after batch. */
void mma_rank1_part(fn *F, const mma_shape *s, LLVMValueRef a, LLVMValueRef b, unsigned k, unsigned first,
                    unsigned count, LLVMValueRef *ak, LLVMValueRef *bk)
{
    unsigned *ia = malloc(count * sizeof *ia), *ib = malloc(count * sizeof *ib);
    if (!ia || !ib)
        abort();
    for (unsigned p = 0; p < count; p++) {
        unsigned o = first + p, q = o / (s->m * s->n), i = o / s->n % s->m, j = o % s->n;
        ia[p] = (q * s->m + i) * s->k + k;
        ib[p] = (q * s->k + k) * s->n + j;
    }
    *ak = pick(F, a, ia, count);
    *bk = pick(F, b, ib, count);
    free(ia);
    free(ib);
}

void mma_rank1(fn *F, const mma_shape *s, LLVMValueRef a, LLVMValueRef b, unsigned k, LLVMValueRef *ak,
               LLVMValueRef *bk)
{
    mma_rank1_part(F, s, a, b, k, 0, s->batch * s->m * s->n, ak, bk);
}

LLVMValueRef mma_part(fn *F, LLVMValueRef v, unsigned first, unsigned count)
{
    unsigned *idx = malloc(count * sizeof *idx);
    if (!idx)
        abort();
    for (unsigned i = 0; i < count; i++)
        idx[i] = first + i;
    LLVMValueRef r = pick(F, v, idx, count);
    free(idx);
    return r;
}

LLVMValueRef mma_join(fn *F, const LLVMValueRef *parts, unsigned n)
{
    return concat(F, parts, n);
}

static LLVMValueRef int_product(fn *F, const mma_shape *s, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c)
{
    lw *L = F->L;
    LLVMBuilderRef bld = L->b;
    unsigned n = s->batch * s->m * s->n;
    LLVMTypeRef vt = LLVMVectorType(L->i32, n);
    LLVMValueRef sum = LLVMConstNull(vt);
    for (unsigned k = 0; k < s->k; k++) {
        LLVMValueRef ak, bk, t;
        mma_rank1(F, s, a, b, k, &ak, &bk);
        if (s->a == PTX_TYPE_B1) {
            t = s->and_popc ? LLVMBuildAnd(bld, ak, bk, "") : LLVMBuildXor(bld, ak, bk, "");
            t = call_intrinsic(L, "llvm.ctpop", &vt, 1, &t, 1);
        } else {
            t = LLVMBuildMul(bld, ak, bk, "");
        }
        sum = LLVMBuildAdd(bld, sum, t, "");
    }
    if (!s->satfinite)
        return LLVMBuildAdd(bld, sum, c, "");
    /* the products' sum fits in 32 bits; adding C may not */
    LLVMTypeRef wt = LLVMVectorType(L->i64, n);
    LLVMValueRef w = LLVMBuildAdd(bld, LLVMBuildSExt(bld, sum, wt, ""), LLVMBuildSExt(bld, c, wt, ""), "");
    LLVMValueRef lo = LLVMConstInt(L->i64, (uint64_t)(int64_t)INT32_MIN, true), hi = LLVMConstInt(L->i64, INT32_MAX, false);
    LLVMValueRef vlo = mma_splat(lo, n), vhi = mma_splat(hi, n);
    w = LLVMBuildSelect(bld, LLVMBuildICmp(bld, LLVMIntSLT, w, vlo, ""), vlo, w, "");
    w = LLVMBuildSelect(bld, LLVMBuildICmp(bld, LLVMIntSGT, w, vhi, ""), vhi, w, "");
    return LLVMBuildTrunc(bld, w, vt, "");
}

LLVMValueRef mma_product(fn *F, const mma_shape *s, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c)
{
    if (mma_compute_type(F->L, s->a) == F->L->i32)
        return int_product(F, s, a, b, c);
    return mma_float_product(F, s, a, b, c);
}
