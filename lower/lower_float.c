/* lower_float.c - f32/f64 arithmetic as NVIDIA GPUs compute it:
 *   add sub mul div fma mad sqrt rcp (correctly rounded; .rz/.rm/.rp in
 *   lower_round.c), abs neg (sign-bit operations; f32 NaN canonical),
 *   min max (.NaN, .xorsign.abs, three operands; -0 < +0).
 * .ftz flushes f32 subnormal inputs and results to zero of the same sign
 * (results tiny after rounding with an unbounded exponent, fl_ftz_tiny),
 * .sat clamps to [+0, 1] (NaN and -0 give +0), and an f32 NaN result is
 * the canonical NaN 0x7fffffff whatever the inputs' payloads (f64 NaN
 * results keep the host's NaN: the ISA does not fix their payload). */
#include "lower_internal.h"

static ptx_type ftype(const ptx_instr *in) { return (ptx_type)in->types[0]; }
static bool has(const ptx_instr *in, unsigned flag) { return (in->flags & flag) != 0; }

/* Constants shaped like v (32 lanes, or 64 for half pairs). */
static LLVMValueRef like(LLVMValueRef v, LLVMValueRef scalar)
{
    return half_splat(scalar, LLVMGetVectorSize(LLVMTypeOf(v)));
}

static LLVMValueRef vreal(LLVMValueRef v, double d)
{
    return like(v, LLVMConstReal(LLVMGetElementType(LLVMTypeOf(v)), d));
}

static LLVMValueRef vint(LLVMValueRef v, LLVMTypeRef it, uint64_t x) { return like(v, LLVMConstInt(it, x, false)); }

static LLVMValueRef intrin1(fn *F, const char *name, LLVMValueRef a)
{
    LLVMTypeRef t = LLVMTypeOf(a);
    return call_intrinsic(F->L, name, &t, 1, &a, 1);
}

/* The integer type of a float vector's lanes. */
static LLVMTypeRef bits_type(fn *F, LLVMValueRef v)
{
    LLVMTypeRef et = LLVMGetElementType(LLVMTypeOf(v));
    return LLVMIntTypeInContext(F->L->ctx, et == F->L->f64 ? 64 : et == F->L->f32 ? 32 : 16);
}

static LLVMValueRef as_bits(fn *F, LLVMValueRef v)
{
    return LLVMBuildBitCast(F->L->b, v, LLVMVectorType(bits_type(F, v), LLVMGetVectorSize(LLVMTypeOf(v))), "");
}

LLVMValueRef fl_is_nan(fn *F, LLVMValueRef v)
{
    return LLVMBuildFCmp(F->L->b, LLVMRealUNO, v, v, "");
}

/* f32 NaN results become 0x7fffffff (f64 values pass unchanged). */
LLVMValueRef fl_canon(fn *F, LLVMValueRef v)
{
    lw *L = F->L;
    LLVMTypeRef vt = LLVMTypeOf(v);
    if (LLVMGetElementType(vt) != L->f32)
        return v;
    LLVMValueRef cn = LLVMBuildBitCast(L->b, vint(v, L->i32, 0x7fffffff), vt, "");
    return LLVMBuildSelect(L->b, fl_is_nan(F, v), cn, v, "");
}

/* Subnormal lanes become zero of the same sign (f32; f64 only for the
 * f64 approximations that take .ftz). */
LLVMValueRef fl_ftz(fn *F, LLVMValueRef v)
{
    lw *L = F->L;
    LLVMTypeRef vt = LLVMTypeOf(v), et = LLVMGetElementType(vt);
    if (et != L->f32 && et != L->f64)
        return v;
    bool d = et == L->f64;
    LLVMTypeRef it = d ? L->i64 : L->i32;
    LLVMValueRef bits = as_bits(F, v);
    LLVMValueRef expo = LLVMBuildAnd(L->b, bits, vint(v, it, d ? 0x7ff0000000000000ull : 0x7f800000), "");
    LLVMValueRef sub = LLVMBuildICmp(L->b, LLVMIntEQ, expo, LLVMConstNull(LLVMTypeOf(bits)), "");
    LLVMValueRef sign = LLVMBuildAnd(L->b, bits, vint(v, it, d ? 1ull << 63 : 0x80000000u), "");
    return LLVMBuildBitCast(L->b, LLVMBuildSelect(L->b, sub, sign, bits, ""), vt, "");
}

/* .sat: clamp to [+0, 1]; NaN and -0 become +0. */
LLVMValueRef fl_sat(fn *F, LLVMValueRef v)
{
    lw *L = F->L;
    LLVMTypeRef vt = LLVMTypeOf(v);
    LLVMValueRef pos = LLVMBuildFCmp(L->b, LLVMRealOGT, v, LLVMConstNull(vt), ""); /* false for NaN, -0 */
    LLVMValueRef r = LLVMBuildSelect(L->b, pos, v, LLVMConstNull(vt), "");
    LLVMValueRef big = LLVMBuildFCmp(L->b, LLVMRealOGT, r, vreal(v, 1.0), "");
    return LLVMBuildSelect(L->b, big, vreal(v, 1.0), r, "");
}

/* Result rules shared by f32/f64 arithmetic: .ftz, canonical NaN (unless
 * nothing sees the destination's NaN bits, lower_nan.c), .sat. */
LLVMValueRef fl_result(fn *F, const ptx_instr *in, LLVMValueRef v)
{
    if (has(in, PTX_FLAG_BIT(FTZ)))
        v = fl_ftz(F, v);
    if (!nan_bits_unseen(F, &in->opds[0]))
        v = fl_canon(F, v);
    if (has(in, PTX_FLAG_BIT(SAT)))
        v = fl_sat(F, v);
    return v;
}

/* A source operand, flushed under .ftz. */
LLVMValueRef fl_src(fn *F, const ptx_instr *in, uint32_t i, ptx_type t)
{
    LLVMValueRef v = read_opd(F, &in->opds[i], t, false);
    return has(in, PTX_FLAG_BIT(FTZ)) ? fl_ftz(F, v) : v;
}

static void fl_write(fn *F, const ptx_instr *in, LLVMValueRef v, LLVMValueRef mask)
{
    write_reg(F, &in->opds[0], v, ftype(in), false, mask);
}

static uint8_t rounding(const ptx_instr *in) { return in->mod[PTX_CAT_ROUND]; }

static bool is_directed(uint8_t r) { return r == PTX_ROUND_RZ || r == PTX_ROUND_RM || r == PTX_ROUND_RP; }

/* .ftz as an H200 applies it (f32 mul, div, fma; cvt.f32.f64; f16 in
 * lower_half.c): a result is flushed when it is tiny after rounding to 24
 * bits with an unbounded exponent (IEEE 754's "tininess after rounding"),
 * so a value that rounds up to 2^-126 only on the subnormal grid is
 * flushed.  e is the exact value in f64, or one that rounds to f32 as the
 * exact one does (an f64 quotient; a sum rounded to odd); scaled by 2^126
 * it is rounded in the instruction's mode and compared with 1. */
LLVMValueRef fl_ftz_tiny(fn *F, LLVMValueRef e, uint8_t mode, LLVMValueRef r)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef scaled = LLVMBuildFMul(b, e, vreal(e, 0x1p126), "");
    LLVMValueRef t = is_directed(mode) ? narrow_directed(F, scaled, mode) : LLVMBuildFPTrunc(b, scaled, vec_of(L->f32), "");
    LLVMValueRef tiny = LLVMBuildFCmp(b, LLVMRealOLT, intrin1(F, "llvm.fabs", t), vreal(t, 1.0), "");
    LLVMTypeRef vt = LLVMTypeOf(r);
    LLVMValueRef zero = call_intrinsic(L, "llvm.copysign", &vt, 1, (LLVMValueRef[]){LLVMConstNull(vt), r}, 2);
    return LLVMBuildSelect(b, tiny, zero, r, "");
}

/* a*b + c for f32 a b c in f64, rounded to odd: the product is exact, the
 * sum's error comes from TwoSum, and an inexact sum with an even last bit
 * steps one f64 ulp toward the error.  53 bits rounded to odd round to 24
 * bits in any mode as the exact value does. */
static LLVMValueRef fma_f64_odd(fn *F, LLVMValueRef a, LLVMValueRef c, LLVMValueRef d)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef p = LLVMBuildFMul(b, a, c, "");
    LLVMValueRef s = LLVMBuildFAdd(b, p, d, "");
    LLVMValueRef bb = LLVMBuildFSub(b, s, p, "");
    LLVMValueRef err = LLVMBuildFAdd(b, LLVMBuildFSub(b, p, LLVMBuildFSub(b, s, bb, ""), ""), LLVMBuildFSub(b, d, bb, ""), "");
    LLVMTypeRef it = vec_of(L->i64);
    LLVMValueRef bits = LLVMBuildBitCast(b, s, it, "");
    LLVMValueRef even = LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildAnd(b, bits, splat(L, const_i64(L, 1)), ""), LLVMConstNull(it), "");
    LLVMValueRef zero = LLVMConstNull(LLVMTypeOf(s));
    LLVMValueRef inexact = LLVMBuildFCmp(b, LLVMRealONE, err, zero, "");
    LLVMValueRef away = LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildFCmp(b, LLVMRealOGT, err, zero, ""),
                                      LLVMBuildFCmp(b, LLVMRealOGT, s, zero, ""), ""); /* error has s's sign: grow |s| */
    LLVMValueRef stepped = LLVMBuildSelect(b, away, LLVMBuildAdd(b, bits, splat(L, const_i64(L, 1)), ""),
                                           LLVMBuildSub(b, bits, splat(L, const_i64(L, 1)), ""), "");
    bits = LLVMBuildSelect(b, LLVMBuildAnd(b, even, inexact, ""), stepped, bits, "");
    return LLVMBuildBitCast(b, bits, LLVMTypeOf(s), "");
}

static LLVMValueRef ftz_after_rounding(fn *F, const ptx_instr *in, LLVMValueRef *x, LLVMValueRef r)
{
    LLVMBuilderRef b = F->L->b;
    LLVMTypeRef dt = vec_of(F->L->f64);
    if (!has(in, PTX_FLAG_BIT(FTZ)) || ftype(in) != PTX_TYPE_F32)
        return r;
    LLVMValueRef a = LLVMBuildFPExt(b, x[0], dt, ""), e;
    switch (in->op) {
    case PTX_OP_MUL: e = LLVMBuildFMul(b, a, LLVMBuildFPExt(b, x[1], dt, ""), ""); break;
    case PTX_OP_DIV: e = LLVMBuildFDiv(b, a, LLVMBuildFPExt(b, x[1], dt, ""), ""); break;
    case PTX_OP_RCP: e = LLVMBuildFDiv(b, vreal(a, 1.0), a, ""); break;
    case PTX_OP_FMA: case PTX_OP_MAD:
        e = fma_f64_odd(F, a, LLVMBuildFPExt(b, x[1], dt, ""), LLVMBuildFPExt(b, x[2], dt, ""));
        break;
    default: return r; /* add, sub: results below 2^-126 are exact; sqrt: none */
    }
    return fl_ftz_tiny(F, e, rounding(in), r);
}

/* IEEE operations: add sub mul div fma mad sqrt rcp, round to nearest or
 * directed. */
static void lower_ieee(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    ptx_type t = ftype(in);
    LLVMValueRef x[3] = {0};
    uint32_t nsrc = in->nopds - 1 < 3 ? in->nopds - 1 : 3;
    for (uint32_t i = 0; i < nsrc; i++)
        x[i] = fl_src(F, in, i + 1, t);
    LLVMValueRef r;
    if (is_directed(rounding(in))) {
        r = round_directed(F, in, t, x);
    } else {
        switch (in->op) {
        case PTX_OP_ADD: r = LLVMBuildFAdd(b, x[0], x[1], ""); break;
        case PTX_OP_SUB: r = LLVMBuildFSub(b, x[0], x[1], ""); break;
        case PTX_OP_MUL: r = LLVMBuildFMul(b, x[0], x[1], ""); break;
        case PTX_OP_DIV: r = LLVMBuildFDiv(b, x[0], x[1], ""); break;
        case PTX_OP_SQRT: r = intrin1(F, "llvm.sqrt", x[0]); break;
        case PTX_OP_RCP: r = LLVMBuildFDiv(b, vreal(x[0], 1.0), x[0], ""); break;
        default: { /* fma, mad */
            LLVMTypeRef vt = LLVMTypeOf(x[0]);
            r = call_intrinsic(L, "llvm.fma", &vt, 1, x, 3);
        }
        }
    }
    fl_write(F, in, fl_result(F, in, ftz_after_rounding(F, in, x, r)), mask);
}

/* minmax2 on the bits of f32 values (halves widened): LLVM narrows a
 * float llvm.minimum of widened halves to a half one, whose x86 code
 * loses its NaN on CPUs without AVX512-FP16 (a Zen 4 gave min.NaN(NaN,
 * -0) = -0).  Sign-magnitude made two's complement orders as IEEE
 * minimum does (-0 < +0). */
static LLVMValueRef bits_minmax2(fn *F, bool is_min, bool nan, LLVMValueRef a, LLVMValueRef c)
{
    LLVMBuilderRef b = F->L->b;
    LLVMTypeRef it = bits_type(F, a);
    LLVMValueRef ab = as_bits(F, a), cb = as_bits(F, c);
    LLVMValueRef mag = vint(a, it, 0x7fffffff), inf = vint(a, it, 0x7f800000), zero = LLVMConstNull(LLVMTypeOf(ab));
    LLVMValueRef ka = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, ab, zero, ""), LLVMBuildXor(b, ab, mag, ""), ab, "");
    LLVMValueRef kc = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, cb, zero, ""), LLVMBuildXor(b, cb, mag, ""), cb, "");
    LLVMValueRef r = LLVMBuildSelect(b, LLVMBuildICmp(b, is_min ? LLVMIntSLT : LLVMIntSGT, ka, kc, ""), ab, cb, "");
    LLVMValueRef anan = LLVMBuildICmp(b, LLVMIntUGT, LLVMBuildAnd(b, ab, mag, ""), inf, "");
    LLVMValueRef cnan = LLVMBuildICmp(b, LLVMIntUGT, LLVMBuildAnd(b, cb, mag, ""), inf, "");
    if (nan) {
        r = LLVMBuildSelect(b, LLVMBuildOr(b, anan, cnan, ""), mag, r, "");
    } else {
        r = LLVMBuildSelect(b, cnan, ab, r, "");
        r = LLVMBuildSelect(b, anan, cb, r, "");
    }
    return LLVMBuildBitCast(b, r, LLVMTypeOf(a), "");
}

/* One min/max step: IEEE minimum/maximum (-0 < +0, NaN in -> NaN out);
 * without .NaN a NaN operand yields the other one. */
static LLVMValueRef minmax2(fn *F, bool is_min, bool nan, LLVMValueRef a, LLVMValueRef c, bool halves)
{
    LLVMBuilderRef b = F->L->b;
    LLVMTypeRef t = LLVMTypeOf(a);
    if (halves && LLVMGetElementType(t) == F->L->f32) /* lane vectors, as bits_type assumes */
        return bits_minmax2(F, is_min, nan, a, c);
    LLVMValueRef r = call_intrinsic(F->L, is_min ? "llvm.minimum" : "llvm.maximum", &t, 1,
                                    (LLVMValueRef[]){a, c}, 2);
    if (nan)
        return r;
    r = LLVMBuildSelect(b, fl_is_nan(F, c), a, r, "");
    return LLVMBuildSelect(b, fl_is_nan(F, a), c, r, "");
}

/* min/max: the non-NaN operand (canonical NaN when all are NaN); .NaN:
 * canonical NaN when any is; .abs compares magnitudes; .xorsign gives a
 * non-NaN result the xor of the operands' signs. */
LLVMValueRef fl_minmax(fn *F, const ptx_instr *in, LLVMValueRef *x, uint32_t n)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    bool is_min = in->op == PTX_OP_MIN, nan = has(in, PTX_FLAG_BIT(NAN));
    bool xs = has(in, PTX_FLAG_BIT(XORSIGN));
    LLVMValueRef sign = NULL;
    for (uint32_t i = 0; i < n; i++) {
        if (xs) {
            LLVMValueRef bits = as_bits(F, x[i]);
            sign = sign ? LLVMBuildXor(b, sign, bits, "") : bits;
        }
        if (xs || has(in, PTX_FLAG_BIT(ABS)))
            x[i] = intrin1(F, "llvm.fabs", x[i]);
    }
    ptx_type t = ftype(in);
    bool halves = t == PTX_TYPE_F16 || t == PTX_TYPE_F16X2 || t == PTX_TYPE_BF16 || t == PTX_TYPE_BF16X2;
    LLVMValueRef r = minmax2(F, is_min, nan, x[0], x[1], halves);
    for (uint32_t i = 2; i < n; i++)
        r = minmax2(F, is_min, nan, r, x[i], halves);
    LLVMTypeRef it = bits_type(F, r);
    unsigned w = LLVMGetIntTypeWidth(it);
    uint64_t sb = 1ull << (w - 1);
    LLVMValueRef isnan = fl_is_nan(F, r);
    LLVMValueRef rb = as_bits(F, r);
    if (sign) {
        LLVMValueRef mag = LLVMBuildAnd(b, rb, vint(r, it, sb - 1), "");
        rb = LLVMBuildOr(b, mag, LLVMBuildAnd(b, sign, vint(r, it, sb), ""), "");
    }
    if (w != 32 || !nan_bits_unseen(F, &in->opds[0])) /* f32 only: lower_nan.c reasons about f32 reads */
        rb = LLVMBuildSelect(b, isnan, vint(r, it, sb - 1), rb, ""); /* canonical NaN */
    return LLVMBuildBitCast(b, rb, LLVMTypeOf(r), "");
}

static void lower_minmax(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    LLVMValueRef x[3];
    uint32_t n = in->nopds - 1;
    for (uint32_t i = 0; i < n && i < 3; i++)
        x[i] = fl_src(F, in, i + 1, ftype(in));
    LLVMValueRef r = fl_minmax(F, in, x, n);
    if (has(in, PTX_FLAG_BIT(FTZ)))
        r = fl_ftz(F, r);
    fl_write(F, in, r, mask);
}

/* abs, neg: clear or flip the sign bit.  An f32 NaN gives the canonical
 * NaN, as on an H200 (the ISA: an unspecified NaN); f64 NaNs keep their
 * payload. */
static void lower_sign(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    lw *L = F->L;
    LLVMValueRef x = fl_src(F, in, 1, ftype(in)), bits = as_bits(F, x);
    LLVMTypeRef it = bits_type(F, x);
    uint64_t sb = 1ull << (LLVMGetIntTypeWidth(it) - 1);
    LLVMValueRef r = in->op == PTX_OP_NEG ? LLVMBuildXor(L->b, bits, vint(x, it, sb), "")
                                          : LLVMBuildAnd(L->b, bits, vint(x, it, sb - 1), "");
    r = LLVMBuildBitCast(L->b, r, LLVMTypeOf(x), "");
    if (!nan_bits_unseen(F, &in->opds[0]))
        r = fl_canon(F, r);
    fl_write(F, in, r, mask);
}

static bool is_approx(const ptx_instr *in)
{
    return has(in, PTX_FLAG_BIT(APPROX)) || has(in, PTX_FLAG_BIT(FULL));
}

/* The modifiers each f32/f64 instruction takes; anything else (say
 * max.relu.f32, a mixed-precision add.f32.f16) is refused rather than
 * ignored. */
static unsigned allowed_flags(ptx_opcode op)
{
    unsigned ftz = PTX_FLAG_BIT(FTZ), approx = PTX_FLAG_BIT(APPROX);
    switch (op) {
    case PTX_OP_ADD: case PTX_OP_SUB: case PTX_OP_MUL: case PTX_OP_FMA: case PTX_OP_MAD:
        return ftz | PTX_FLAG_BIT(SAT);
    case PTX_OP_DIV: return ftz | approx | PTX_FLAG_BIT(FULL);
    case PTX_OP_MIN: case PTX_OP_MAX:
        return ftz | PTX_FLAG_BIT(NAN) | PTX_FLAG_BIT(XORSIGN) | PTX_FLAG_BIT(ABS);
    case PTX_OP_ABS: case PTX_OP_NEG: return ftz;
    case PTX_OP_TANH: return approx;
    default: return ftz | approx; /* sqrt rcp rsqrt ex2 lg2 sin cos */
    }
}

bool lower_float(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    ptx_type t = in->ntypes ? ftype(in) : PTX_TYPE_NONE;
    if (t != PTX_TYPE_F32 && t != PTX_TYPE_F64)
        return false;
    if ((in->flags & ~allowed_flags(in->op)) || in->ntypes > 1) {
        lw_error(F->L, in->loc, "this form of '%s' on .%s is not supported", ptx_op_name(in->op), ptx_type_name(t));
        return true;
    }
    switch (in->op) {
    case PTX_OP_ABS: case PTX_OP_NEG:
        lower_sign(F, in, mask);
        return true;
    case PTX_OP_MIN: case PTX_OP_MAX:
        lower_minmax(F, in, mask);
        return true;
    case PTX_OP_DIV: case PTX_OP_SQRT: case PTX_OP_RCP:
        if (is_approx(in))
            return lower_math(F, in, mask);
        lower_ieee(F, in, mask);
        return true;
    case PTX_OP_ADD: case PTX_OP_SUB: case PTX_OP_MUL: case PTX_OP_FMA: case PTX_OP_MAD:
        if (rounding(in) && rounding(in) != PTX_ROUND_RN && !is_directed(rounding(in))) {
            lw_error(F->L, in->loc, "rounding modifier .%s is not valid on '%s'",
                     ptx_mod_text(PTX_CAT_ROUND, rounding(in)), ptx_op_name(in->op));
            return true;
        }
        lower_ieee(F, in, mask);
        return true;
    default:
        return lower_math(F, in, mask);
    }
}
