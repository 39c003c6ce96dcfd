/* lower_matmul.c - D = A * B + C on small row-major matrices in memory,
 * the arithmetic of the tensor-core instructions (wmma.mma today).
 *
 * One row of D at a time (an IR loop over the rows): the row of C, then
 * for each k a broadcast A[m][k] times the row k of B, accumulated in the
 * instruction's precision:
 *   f16 and bf16 into an f32 D: the H200's truncating sum (below);
 *   f16 into an f16 D, tf32: fused multiply-adds in f32, in k order (the
 *     products are exact in f32), an f16 accumulator widened on the way in
 *     and rounded (RN) on the way out; tf32 uses the top 19 bits of each
 *     f32 (these fit the recording bit for bit for f16 D, within 1e-4
 *     for tf32);
 *   f64: fused multiply-adds in order, each rounded per .rn/.rz/.rm/.rp;
 *   float NaN results: the GPU's canonical bits (f32, f16);
 *   integers: exact in 64 bits, then wrapped to 32 bits or, with
 *     .satfinite, clamped to the s32 range;
 *   b1: popc(A[m] op B[:,n]) over 32-bit words.
 * Sub-byte operands are 32-bit words: A's rows and B's columns packed
 * along K (B is stored as K/8 or K/32 rows of words, row-major). */
#include "lower_internal.h"

static bool is_int_elem(ptx_type t)
{
    return t == PTX_TYPE_S8 || t == PTX_TYPE_U8 || t == PTX_TYPE_S4 || t == PTX_TYPE_U4;
}

static LLVMTypeRef acc_type(lw *L, const matmul *mm)
{
    if (mm->a == PTX_TYPE_F64)
        return L->f64;
    if (is_int_elem(mm->a) || mm->a == PTX_TYPE_B1)
        return L->i64;
    return L->f32;
}

static LLVMValueRef gep(lw *L, LLVMValueRef base, LLVMValueRef byte_off)
{
    return LLVMBuildGEP2(L->b, L->i8, base, &byte_off, 1, "");
}

static LLVMValueRef vsplat(lw *L, LLVMValueRef s, unsigned n)
{
    LLVMTypeRef vt = LLVMVectorType(LLVMTypeOf(s), n);
    LLVMValueRef v = LLVMBuildInsertElement(L->b, LLVMGetPoison(vt), s, const_i32(L, 0), "");
    return LLVMBuildShuffleVector(L->b, v, LLVMGetPoison(vt), LLVMConstNull(LLVMVectorType(L->i32, n)), "");
}

static LLVMValueRef vconst(lw *L, LLVMTypeRef t, uint64_t c, unsigned n)
{
    return vsplat(L, LLVMConstInt(t, c, false), n);
}

/* Multiplicand values of type t as the accumulator type: a scalar (n = 0)
 * or an <n x> row, from `bits` (the raw elements, i16/i32/i64). Sub-byte
 * elements: element `sub` of each word. */
static LLVMValueRef widen(lw *L, const matmul *mm, ptx_type t, LLVMValueRef raw, unsigned n, unsigned sub)
{
    LLVMTypeRef (*vt)(LLVMTypeRef, unsigned) = LLVMVectorType;
    LLVMTypeRef at = acc_type(L, mm), wt = n ? vt(at, n) : at;
    switch (t) {
    case PTX_TYPE_F16:
    case PTX_TYPE_BF16: {
        LLVMTypeRef h = t == PTX_TYPE_F16 ? L->f16 : L->bf16;
        return LLVMBuildFPExt(L->b, LLVMBuildBitCast(L->b, raw, n ? vt(h, n) : h, ""), wt, "");
    }
    case PTX_TYPE_TF32: { /* the tensor cores read 10 mantissa bits */
        LLVMValueRef keep = n ? vconst(L, L->i32, 0xffffe000u, n) : const_i32(L, 0xffffe000u);
        return LLVMBuildBitCast(L->b, LLVMBuildAnd(L->b, raw, keep, ""), wt, "");
    }
    case PTX_TYPE_F32:
    case PTX_TYPE_F64:
        return LLVMBuildBitCast(L->b, raw, wt, "");
    case PTX_TYPE_S8:
    case PTX_TYPE_S32:
        return LLVMBuildSExt(L->b, raw, wt, "");
    case PTX_TYPE_U8:
        return LLVMBuildZExt(L->b, raw, wt, "");
    case PTX_TYPE_S4:
    case PTX_TYPE_U4: { /* shift the nibble to the top, then back down */
        LLVMValueRef w = n ? LLVMBuildZExt(L->b, raw, vt(L->i64, n), "") : LLVMBuildZExt(L->b, raw, L->i64, "");
        LLVMValueRef up = n ? vconst(L, L->i64, 60 - 4 * sub, n) : const_i64(L, 60 - 4 * sub);
        LLVMValueRef down = n ? vconst(L, L->i64, 60, n) : const_i64(L, 60);
        w = LLVMBuildShl(L->b, w, up, "");
        return t == PTX_TYPE_S4 ? LLVMBuildAShr(L->b, w, down, "") : LLVMBuildLShr(L->b, w, down, "");
    }
    default:
        return raw;
    }
}

static unsigned elem_bytes(ptx_type t) { return t == PTX_TYPE_S4 || t == PTX_TYPE_U4 || t == PTX_TYPE_B1 ? 4 : ptx_type_size(t); }

static LLVMTypeRef raw_type(lw *L, ptx_type t) { return LLVMIntTypeInContext(L->ctx, 8 * elem_bytes(t)); }

/* acc + popc(a op b) per column (b1, one word of K). */
static LLVMValueRef popc_step(lw *L, const matmul *mm, LLVMValueRef acc, LLVMValueRef a, LLVMValueRef brow, unsigned n)
{
    LLVMValueRef av = vsplat(L, a, n);
    LLVMValueRef x = mm->bop == PTX_BOOL_AND ? LLVMBuildAnd(L->b, av, brow, "") : LLVMBuildXor(L->b, av, brow, "");
    LLVMTypeRef vt = LLVMVectorType(L->i32, n);
    LLVMValueRef c = call_intrinsic(L, "llvm.ctpop", &vt, 1, &x, 1);
    return LLVMBuildAdd(L->b, acc, LLVMBuildZExt(L->b, c, LLVMVectorType(L->i64, n), ""), "");
}

/* Bits of a float row with every NaN replaced by the GPU's (all ones
 * but the sign). */
static LLVMValueRef canonical_nan(lw *L, LLVMValueRef v, LLVMTypeRef it, uint64_t nan, unsigned n)
{
    LLVMValueRef bits = LLVMBuildBitCast(L->b, v, LLVMVectorType(it, n), "");
    LLVMValueRef is_nan = LLVMBuildFCmp(L->b, LLVMRealUNO, v, v, "");
    return LLVMBuildSelect(L->b, is_nan, vconst(L, it, nan, n), bits, "");
}

/* The row of D from the accumulated row. */
static LLVMValueRef narrow(lw *L, const matmul *mm, LLVMValueRef acc, unsigned n)
{
    LLVMTypeRef (*vt)(LLVMTypeRef, unsigned) = LLVMVectorType;
    if (mm->d == PTX_TYPE_F16)
        return canonical_nan(L, LLVMBuildFPTrunc(L->b, acc, vt(L->f16, n), ""), L->i16, 0x7fff, n);
    if (mm->d == PTX_TYPE_F32)
        return canonical_nan(L, acc, L->i32, 0x7fffffff, n);
    if (mm->d != PTX_TYPE_S32)
        return LLVMBuildBitCast(L->b, acc, vt(raw_type(L, mm->d), n), "");
    if (mm->satfinite) {
        LLVMTypeRef t = vt(L->i64, n);
        LLVMValueRef lo = vconst(L, L->i64, (uint64_t)INT32_MIN, n), hi = vconst(L, L->i64, INT32_MAX, n);
        acc = call_intrinsic(L, "llvm.smax", &t, 1, (LLVMValueRef[]){acc, lo}, 2);
        acc = call_intrinsic(L, "llvm.smin", &t, 1, (LLVMValueRef[]){acc, hi}, 2);
    }
    return LLVMBuildTrunc(L->b, acc, vt(L->i32, n), "");
}

/* The H200's sum for f16 and bf16 multiplicands into f32 (its recording
 * but a few elements, 1 ulp off): C and the K exact products as one
 * fixed-point sum whose unit is 2^(E - 27), E the largest exponent among
 * C's and the products' (a product's exponent is its inputs' added:
 * frexp's, as the hardware adds them before it multiplies), each term
 * truncated to the unit, the sum rounded toward zero to f32.  e[i] holds term i's exponent
 * as a biased field (0 for a zero term).  Terms are <n x double> here. */
#define TRUNC_BITS 27

/* The biased exponent field of each element of v (float or double lanes). */
static LLVMValueRef exp_field(lw *L, LLVMValueRef v, unsigned n)
{
    bool dbl = LLVMGetElementType(LLVMTypeOf(v)) == L->f64;
    LLVMTypeRef it = LLVMVectorType(dbl ? L->i64 : L->i32, n);
    LLVMValueRef e = LLVMBuildLShr(L->b, LLVMBuildBitCast(L->b, v, it, ""), vconst(L, LLVMGetElementType(it), dbl ? 52 : 23, n), "");
    return LLVMBuildAnd(L->b, e, vconst(L, LLVMGetElementType(it), dbl ? 0x7ff : 0xff, n), "");
}

/* The exponent field a product of x and y is aligned by (see above): the
 * inputs' exponents added; 0 when the product is zero. */
static LLVMValueRef product_exp(lw *L, LLVMValueRef x, LLVMValueRef y, LLVMValueRef prod, unsigned n)
{
    bool dbl = LLVMGetElementType(LLVMTypeOf(x)) == L->f64;
    LLVMTypeRef et = dbl ? L->i64 : L->i32;
    LLVMValueRef e = LLVMBuildAdd(L->b, exp_field(L, x, n), exp_field(L, y, n), "");
    e = LLVMBuildSub(L->b, e, vconst(L, et, dbl ? 1022 : 126, n), "");
    LLVMValueRef zero = LLVMBuildFCmp(L->b, LLVMRealOEQ, prod, LLVMConstNull(LLVMTypeOf(prod)), "");
    return LLVMBuildSelect(L->b, zero, LLVMConstNull(LLVMTypeOf(e)), e, "");
}

static LLVMValueRef largest(lw *L, LLVMValueRef *e, unsigned nt, unsigned n)
{
    LLVMTypeRef it = LLVMTypeOf(e[0]);
    LLVMValueRef emax = vconst(L, LLVMGetElementType(it), 64, n); /* all zero: any scale will do */
    for (unsigned i = 0; i < nt; i++)
        emax = call_intrinsic(L, "llvm.smax", &it, 1, (LLVMValueRef[]){emax, e[i]}, 2);
    return emax;
}

static LLVMValueRef truncating_sum(lw *L, LLVMValueRef *t, LLVMValueRef *e, unsigned nt, unsigned n)
{
    LLVMTypeRef it = LLVMVectorType(L->i64, n), dt = LLVMVectorType(L->f64, n);
    LLVMValueRef emax = largest(L, e, nt, n);
    /* scale 2^(TRUNC_BITS - x) and back 2^(x - TRUNC_BITS), x = frexp's exponent = biased - 1022 */
    LLVMValueRef up = LLVMBuildSub(L->b, vconst(L, L->i64, 2045 + TRUNC_BITS, n), emax, "");
    LLVMValueRef down = LLVMBuildSub(L->b, emax, vconst(L, L->i64, TRUNC_BITS - 1, n), "");
    LLVMValueRef fifty_two = vconst(L, L->i64, 52, n);
    up = LLVMBuildBitCast(L->b, LLVMBuildShl(L->b, up, fifty_two, ""), dt, "");
    down = LLVMBuildBitCast(L->b, LLVMBuildShl(L->b, down, fifty_two, ""), dt, "");
    (void)it;
    LLVMValueRef sum = LLVMConstNull(dt);
    for (unsigned i = 0; i < nt; i++) {
        LLVMValueRef x = LLVMBuildFMul(L->b, t[i], up, "");
        sum = LLVMBuildFAdd(L->b, sum, call_intrinsic(L, "llvm.trunc", &dt, 1, &x, 1), "");
    }
    sum = LLVMBuildFMul(L->b, sum, down, "");
    /* toward zero: one step down in magnitude where rounding went up */
    LLVMTypeRef ft = LLVMVectorType(L->f32, n);
    LLVMValueRef f = LLVMBuildFPTrunc(L->b, sum, ft, "");
    LLVMValueRef back = LLVMBuildFPExt(L->b, f, dt, "");
    LLVMValueRef grew = LLVMBuildFCmp(L->b, LLVMRealOGT, call_intrinsic(L, "llvm.fabs", &dt, 1, &back, 1),
                                      call_intrinsic(L, "llvm.fabs", &dt, 1, &sum, 1), "");
    LLVMTypeRef i32v = LLVMVectorType(L->i32, n);
    LLVMValueRef bits = LLVMBuildBitCast(L->b, f, i32v, "");
    LLVMValueRef less = LLVMBuildSub(L->b, bits, vconst(L, L->i32, 1, n), "");
    return LLVMBuildBitCast(L->b, LLVMBuildSelect(L->b, grew, less, bits, ""), ft, "");
}

/* The same sum for f16 multiplicands, in f32 lanes (half the vector work):
 * their products are exact in f32 and at least 2^-48 when not zero, so the
 * scaled terms are integers below 2^27, summed in 64 bits.  A sum with an
 * infinity or NaN is the IEEE sum; one of zero products is C (a zero: +0,
 * as the f64 form gives). */
static LLVMValueRef truncating_sum_f32(lw *L, LLVMValueRef *t, LLVMValueRef *e, unsigned nt, unsigned n)
{
    LLVMTypeRef it = LLVMVectorType(L->i32, n), lt = LLVMVectorType(L->i64, n), ft = LLVMVectorType(L->f32, n);
    LLVMValueRef emax = largest(L, e, nt, n), ieee = t[0], special = NULL;
    for (unsigned i = 0; i < nt; i++) {
        LLVMValueRef inf_nan = LLVMBuildICmp(L->b, LLVMIntEQ, exp_field(L, t[i], n), vconst(L, L->i32, 0xff, n), "");
        special = special ? LLVMBuildOr(L->b, special, inf_nan, "") : inf_nan;
        if (i)
            ieee = LLVMBuildFAdd(L->b, ieee, t[i], "");
    }
    /* scale 2^(TRUNC_BITS - x) and back, x = frexp's exponent = biased - 126 */
    LLVMValueRef twenty_three = vconst(L, L->i32, 23, n);
    LLVMValueRef up = LLVMBuildSub(L->b, vconst(L, L->i32, 253 + TRUNC_BITS, n), emax, "");
    LLVMValueRef down = LLVMBuildSub(L->b, emax, vconst(L, L->i32, TRUNC_BITS - 1, n), "");
    up = LLVMBuildBitCast(L->b, LLVMBuildShl(L->b, up, twenty_three, ""), ft, "");
    down = LLVMBuildBitCast(L->b, LLVMBuildShl(L->b, down, twenty_three, ""), ft, "");
    /* fptosi truncates toward zero; two 32-bit partial sums of at most 9
     * terms each cannot overflow, their sum may */
    LLVMValueRef part[2] = {LLVMConstNull(it), LLVMConstNull(it)};
    for (unsigned i = 0; i < nt; i++) {
        LLVMValueRef *p = &part[i * 2 >= nt];
        *p = LLVMBuildAdd(L->b, *p, LLVMBuildFPToSI(L->b, LLVMBuildFMul(L->b, t[i], up, ""), it, ""), "");
    }
    LLVMValueRef sum = LLVMBuildAdd(L->b, LLVMBuildSExt(L->b, part[0], lt, ""), LLVMBuildSExt(L->b, part[1], lt, ""), "");
    /* toward zero to 24 bits: clear the bits below them, then convert exactly */
    LLVMValueRef no = LLVMConstInt(L->i1, 0, false);
    LLVMValueRef mag = call_intrinsic(L, "llvm.abs", &lt, 1, (LLVMValueRef[]){sum, no}, 2);
    LLVMValueRef lz = call_intrinsic(L, "llvm.ctlz", &lt, 1, (LLVMValueRef[]){mag, no}, 2);
    LLVMValueRef drop = call_intrinsic(L, "llvm.usub.sat", &lt, 1, (LLVMValueRef[]){vconst(L, L->i64, 40, n), lz}, 2);
    mag = LLVMBuildAnd(L->b, mag, LLVMBuildShl(L->b, vconst(L, L->i64, ~0ull, n), drop, ""), "");
    LLVMValueRef neg = LLVMBuildICmp(L->b, LLVMIntSLT, sum, LLVMConstNull(lt), "");
    sum = LLVMBuildSelect(L->b, neg, LLVMBuildNeg(L->b, mag, ""), mag, "");
    LLVMValueRef r = LLVMBuildFMul(L->b, LLVMBuildSIToFP(L->b, sum, ft, ""), down, "");
    LLVMValueRef small = LLVMBuildICmp(L->b, LLVMIntEQ, emax, vconst(L, L->i32, 64, n), "");
    LLVMValueRef c_or_zero = LLVMBuildSelect(L->b, LLVMBuildFCmp(L->b, LLVMRealOEQ, t[0], LLVMConstNull(ft), ""),
                                             LLVMConstNull(ft), t[0], "");
    r = LLVMBuildSelect(L->b, small, c_or_zero, r, "");
    return LLVMBuildSelect(L->b, special, ieee, r, "");
}

static bool sums_truncated(const matmul *mm)
{
    return (mm->a == PTX_TYPE_F16 || mm->a == PTX_TYPE_BF16) && mm->d == PTX_TYPE_F32;
}

void lower_matmul(fn *F, const matmul *mm, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c, LLVMValueRef d)
{
    lw *L = F->L;
    unsigned n = mm->n, per = mm->a == PTX_TYPE_S4 || mm->a == PTX_TYPE_U4 ? 8 : mm->a == PTX_TYPE_B1 ? 32 : 1;
    unsigned kw = mm->k / per; /* K in words of A's rows and B's rows */
    unsigned ab = elem_bytes(mm->a), cb = elem_bytes(mm->c), db = elem_bytes(mm->d);
    LLVMTypeRef at = raw_type(L, mm->a), ct = raw_type(L, mm->c);
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(L->b);
    LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "mm.row");
    LLVMBasicBlockRef out = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "mm.done");
    LLVMBuildBr(L->b, loop);
    LLVMPositionBuilderAtEnd(L->b, loop);
    LLVMValueRef m = LLVMBuildPhi(L->b, L->i64, "m");
    LLVMValueRef crow = LLVMBuildLoad2(L->b, LLVMVectorType(ct, n),
                                       gep(L, c, LLVMBuildMul(L->b, m, const_i64(L, n * cb), "")), "");
    LLVMSetAlignment(crow, 1);
    LLVMValueRef acc = widen(L, mm, mm->c, crow, n, 0);
    LLVMValueRef terms[33], exps[33]; /* sums_truncated: C, then the products, and their exponents */
    unsigned nt = 0;
    bool narrow_terms = mm->a == PTX_TYPE_F16; /* truncating_sum_f32 */
    LLVMTypeRef term_t = LLVMVectorType(narrow_terms ? L->f32 : L->f64, n);
    if (sums_truncated(mm)) {
        terms[nt] = narrow_terms ? acc : LLVMBuildFPExt(L->b, acc, term_t, "");
        exps[nt] = exp_field(L, terms[nt], n);
        nt++;
    }
    LLVMValueRef arow = gep(L, a, LLVMBuildMul(L->b, m, const_i64(L, kw * ab), ""));
    for (unsigned w = 0; w < kw; w++) {
        LLVMValueRef araw = LLVMBuildLoad2(L->b, at, gep(L, arow, const_i64(L, w * ab)), "");
        LLVMValueRef braw = LLVMBuildLoad2(L->b, LLVMVectorType(at, n), gep(L, b, const_i64(L, (uint64_t)w * n * ab)), "");
        LLVMSetAlignment(araw, 1);
        LLVMSetAlignment(braw, 1);
        if (mm->a == PTX_TYPE_B1) {
            acc = popc_step(L, mm, acc, araw, braw, n);
            continue;
        }
        for (unsigned s = 0; s < per; s++) {
            LLVMValueRef av = vsplat(L, widen(L, mm, mm->a, araw, 0, s), n);
            LLVMValueRef bv = widen(L, mm, mm->b, braw, n, s);
            if (sums_truncated(mm)) { /* exact products */
                LLVMValueRef x = narrow_terms ? av : LLVMBuildFPExt(L->b, av, term_t, "");
                LLVMValueRef y = narrow_terms ? bv : LLVMBuildFPExt(L->b, bv, term_t, "");
                terms[nt] = LLVMBuildFMul(L->b, x, y, "");
                exps[nt] = product_exp(L, x, y, terms[nt], n);
                nt++;
            } else if (acc_type(L, mm) == L->i64) {
                acc = LLVMBuildAdd(L->b, acc, LLVMBuildMul(L->b, av, bv, ""), "");
            } else if (mm->rnd && mm->rnd != PTX_ROUND_RN) { /* f64 */
                acc = fma_f64_directed(F, av, bv, acc, mm->rnd);
            } else {
                LLVMTypeRef vt = LLVMTypeOf(acc);
                acc = call_intrinsic(L, "llvm.fma", &vt, 1, (LLVMValueRef[]){av, bv, acc}, 3);
            }
        }
    }
    if (sums_truncated(mm))
        acc = narrow_terms ? truncating_sum_f32(L, terms, exps, nt, n) : truncating_sum(L, terms, exps, nt, n);
    LLVMValueRef st = LLVMBuildStore(L->b, narrow(L, mm, acc, n),
                                     gep(L, d, LLVMBuildMul(L->b, m, const_i64(L, n * db), "")));
    LLVMSetAlignment(st, 1);
    LLVMValueRef next = LLVMBuildAdd(L->b, m, const_i64(L, 1), "");
    LLVMValueRef zero = const_i64(L, 0);
    LLVMAddIncoming(m, &zero, &pre, 1);
    LLVMBasicBlockRef body_end = LLVMGetInsertBlock(L->b);
    LLVMAddIncoming(m, &next, &body_end, 1);
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntULT, next, const_i64(L, mm->m), ""), loop, out);
    LLVMPositionBuilderAtEnd(L->b, out);
}
