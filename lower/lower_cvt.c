/* lower_cvt.c - cvt between integer and float types (f32, f64, tf32; the
 * half-precision and packed forms are in lower_half.c):
 *   float -> int   round per .rni/.rzi/.rmi/.rpi (default .rzi), then
 *                  saturate to the destination's range; NaN gives what an
 *                  H200 gives (cvt_int_nan);
 *   int -> float   correctly rounded per .rn/.rz/.rm/.rp: 32-bit integers
 *                  are exact in f64, 64-bit ones are rounded to nearest and
 *                  compared back as integers for the directed modes;
 *   float -> float widening is exact; narrowing rounds per mode (an f64
 *                  NaN keeps its sign and top payload bits, quieted, as
 *                  on an H200); the same type with .rni etc. rounds to an
 *                  integral value;
 *   .ftz (f32 sources and results), .sat (clamp to [0, 1]), and an f32 NaN
 *   result is the canonical NaN. */
#include "lower_internal.h"

#include <math.h>

static char cls(ptx_type t) { return ptx_type_class(t); }
static bool is_f(ptx_type t) { return cls(t) == 'F'; }
static bool is_signed(ptx_type t) { return cls(t) == 'S'; }
static bool has(const ptx_instr *in, unsigned flag) { return (in->flags & flag) != 0; }

static bool is_directed(uint8_t r) { return r == PTX_ROUND_RZ || r == PTX_ROUND_RM || r == PTX_ROUND_RP; }

static LLVMValueRef intrin1(fn *F, const char *name, LLVMValueRef a)
{
    LLVMTypeRef t = LLVMTypeOf(a);
    return call_intrinsic(F->L, name, &t, 1, &a, 1);
}

/* The integral-rounding intrinsic of .rni/.rzi/.rmi/.rpi (NULL: none). */
static const char *rint_intrinsic(uint8_t r)
{
    switch (r) {
    case PTX_ROUND_RNI: return "llvm.roundeven";
    case PTX_ROUND_RMI: return "llvm.floor";
    case PTX_ROUND_RPI: return "llvm.ceil";
    case PTX_ROUND_RZI: return "llvm.trunc";
    default: return NULL;
    }
}

static void unsupported(fn *F, const ptx_instr *in)
{
    ptx_type dt = (ptx_type)in->types[0], st = (ptx_type)in->types[1];
    lw_error(F->L, in->loc, "cvt%s%s.%s.%s is not supported", in->mod[PTX_CAT_ROUND] ? "." : "",
             in->mod[PTX_CAT_ROUND] ? ptx_mod_text(PTX_CAT_ROUND, in->mod[PTX_CAT_ROUND]) : "",
             ptx_type_name(dt), ptx_type_name(st));
}

/* NaN -> integer, as an H200 (sm_90) converts it: from f64 the bit pattern
 * of the destination's signed minimum (0x80000000, 0x8000, s8 -128,
 * also for unsigned types); from f32/f16/bf16 0x8000000000000000 into a
 * 64-bit integer and 0 into a narrower one.  The ISA leaves it open. */
LLVMValueRef cvt_int_nan(fn *F, LLVMValueRef f, LLVMValueRef v, ptx_type dt, bool from_f64)
{
    lw *L = F->L;
    LLVMTypeRef it = storage_int(L, dt);
    unsigned bits = LLVMGetIntTypeWidth(it);
    uint64_t nan_int = from_f64 || bits == 64 ? 1ull << (bits - 1) : 0;
    LLVMValueRef isnan = LLVMBuildFCmp(L->b, LLVMRealUNO, f, f, "");
    return LLVMBuildSelect(L->b, isnan, splat(L, LLVMConstInt(it, nan_int, false)), v, "");
}

LLVMValueRef cvt_f64_nan_bits(fn *F, LLVMValueRef d, unsigned width, unsigned mant)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMTypeRef i64v = vec_of(L->i64);
    LLVMValueRef x = LLVMBuildBitCast(b, d, i64v, "");
    LLVMValueRef sign = LLVMBuildShl(b, LLVMBuildLShr(b, x, splat(L, const_i64(L, 63)), ""), splat(L, const_i64(L, width - 1)), "");
    LLVMValueRef payload = LLVMBuildAnd(b, LLVMBuildLShr(b, x, splat(L, const_i64(L, 52 - mant)), ""),
                                        splat(L, const_i64(L, (1ull << mant) - 1)), "");
    uint64_t quiet_nan = ((1ull << (width - 1)) - 1) & ~((1ull << (mant - 1)) - 1); /* exponent ones, quiet bit */
    LLVMValueRef r = LLVMBuildOr(b, LLVMBuildOr(b, sign, payload, ""), splat(L, const_i64(L, quiet_nan)), "");
    return LLVMBuildTrunc(b, r, vec_of(LLVMIntTypeInContext(L->ctx, width)), "");
}

/* float -> integer: round, then saturate. */
static LLVMValueRef float_to_int(fn *F, const ptx_instr *in, LLVMValueRef a, ptx_type st, ptx_type dt)
{
    const char *rf = rint_intrinsic(in->mod[PTX_CAT_ROUND]);
    LLVMValueRef r = intrin1(F, rf ? rf : "llvm.trunc", a);
    LLVMTypeRef tys[2] = {vec_of(storage_int(F->L, dt)), LLVMTypeOf(r)};
    r = call_intrinsic(F->L, is_signed(dt) ? "llvm.fptosi.sat" : "llvm.fptoui.sat", tys, 2, &r, 1);
    return cvt_int_nan(F, a, r, dt, st == PTX_TYPE_F64);
}

/* The sign of a - s for a 64-bit integer a and s, its conversion to
 * f32/f64 rounded to nearest: s converted back is exact, unless s rounded
 * up to the power of two just past the integer range (then a < s). */
void cvt_int64_error(fn *F, LLVMValueRef a, bool sgn, LLVMValueRef s, LLVMValueRef *pos, LLVMValueRef *neg)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMTypeRef vt = LLVMTypeOf(s), it = LLVMTypeOf(a);
    LLVMValueRef past = LLVMBuildFCmp(b, LLVMRealOGE, s, splat(L, LLVMConstReal(LLVMGetElementType(vt), sgn ? 0x1p63 : 0x1p64)), "");
    LLVMValueRef safe = LLVMBuildSelect(b, past, LLVMConstNull(vt), s, "");
    LLVMValueRef back = sgn ? LLVMBuildFPToSI(b, safe, it, "") : LLVMBuildFPToUI(b, safe, it, "");
    LLVMValueRef gt = LLVMBuildICmp(b, sgn ? LLVMIntSGT : LLVMIntUGT, a, back, "");
    LLVMValueRef lt = LLVMBuildICmp(b, sgn ? LLVMIntSLT : LLVMIntULT, a, back, "");
    *pos = LLVMBuildAnd(b, gt, LLVMBuildNot(b, past, ""), "");
    *neg = LLVMBuildOr(b, lt, past, "");
}

static LLVMValueRef int64_directed(fn *F, LLVMValueRef a, bool sgn, LLVMTypeRef et, uint8_t mode)
{
    LLVMBuilderRef b = F->L->b;
    LLVMValueRef s = sgn ? LLVMBuildSIToFP(b, a, vec_of(et), "") : LLVMBuildUIToFP(b, a, vec_of(et), ""), pos, neg;
    cvt_int64_error(F, a, sgn, s, &pos, &neg);
    return round_step(F, s, pos, neg, mode);
}

static LLVMValueRef int_to_float(fn *F, const ptx_instr *in, LLVMValueRef a, ptx_type st, ptx_type dt)
{
    lw *L = F->L;
    uint8_t r = in->mod[PTX_CAT_ROUND];
    LLVMTypeRef et = scalar_type(L, dt);
    bool sgn = is_signed(st);
    if (!is_directed(r))
        return sgn ? LLVMBuildSIToFP(L->b, a, vec_of(et), "") : LLVMBuildUIToFP(L->b, a, vec_of(et), "");
    if (ptx_type_size(st) == 8)
        return int64_directed(F, a, sgn, et, r);
    LLVMValueRef d = sgn ? LLVMBuildSIToFP(L->b, a, vec_of(L->f64), "") : LLVMBuildUIToFP(L->b, a, vec_of(L->f64), "");
    return dt == PTX_TYPE_F32 ? narrow_directed(F, d, r) : d; /* exact in f64 */
}

static LLVMValueRef float_to_float(fn *F, const ptx_instr *in, LLVMValueRef a, ptx_type st, ptx_type dt)
{
    lw *L = F->L;
    uint8_t r = in->mod[PTX_CAT_ROUND];
    if (dt == PTX_TYPE_F64 && st == PTX_TYPE_F32)
        return LLVMBuildFPExt(L->b, a, vec_of(L->f64), "");
    if (dt == PTX_TYPE_F32 && st == PTX_TYPE_F64)
        return is_directed(r) ? narrow_directed(F, a, r) : LLVMBuildFPTrunc(L->b, a, vec_of(L->f32), "");
    /* NaN payloads of f64 -> f32 are replaced after the result rules */
    const char *rf = rint_intrinsic(r); /* the same type: round to an integral value */
    return rf ? intrin1(F, rf, a) : a;
}

/* tf32: f32 layout with the low 13 significand bits zero.  .rna rounds
 * half away from zero (add half a unit to the magnitude), .rn half to
 * even, .rz truncates; .satfinite turns infinities into the largest
 * finite tf32.  NaN, as on an H200: .rn/.rz give 0x7fffe000; .rna
 * truncates the payload (0x7f800001 becomes infinity), and .rna.satfinite
 * then takes one unit off any all-ones exponent (NaNs too). */
static LLVMValueRef to_tf32(fn *F, const ptx_instr *in, LLVMValueRef a)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMTypeRef it = vec_of(L->i32);
    LLVMValueRef bits = LLVMBuildBitCast(b, a, it, ""), add;
    uint8_t r = in->mod[PTX_CAT_ROUND];
    if (r == PTX_ROUND_RZ)
        add = LLVMConstNull(it);
    else if (r == PTX_ROUND_RN)
        add = LLVMBuildAdd(b, splat(L, const_i32(L, 0xfff)),
                           LLVMBuildAnd(b, LLVMBuildLShr(b, bits, splat(L, const_i32(L, 13)), ""), splat(L, const_i32(L, 1)), ""), "");
    else
        add = splat(L, const_i32(L, 0x1000));
    LLVMValueRef low_cleared = splat(L, const_i32(L, 0xffffe000u));
    LLVMValueRef rb = LLVMBuildAnd(b, LLVMBuildAdd(b, bits, add, ""), low_cleared, "");
    LLVMValueRef mag = LLVMBuildAnd(b, bits, splat(L, const_i32(L, 0x7fffffff)), "");
    LLVMValueRef inf_or_nan = LLVMBuildICmp(b, LLVMIntUGE, mag, splat(L, const_i32(L, 0x7f800000)), "");
    LLVMValueRef is_nan = LLVMBuildICmp(b, LLVMIntUGT, mag, splat(L, const_i32(L, 0x7f800000)), "");
    rb = LLVMBuildSelect(b, inf_or_nan, LLVMBuildAnd(b, bits, low_cleared, ""), rb, "");
    if (r != PTX_ROUND_RNA)
        rb = LLVMBuildSelect(b, is_nan, splat(L, const_i32(L, 0x7fffe000)), rb, "");
    if (has(in, PTX_FLAG_BIT(SATFINITE))) {
        LLVMValueRef expo = splat(L, const_i32(L, 0x7f800000));
        LLVMValueRef top = LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildAnd(b, rb, expo, ""), expo, "");
        if (r != PTX_ROUND_RNA) /* infinities only */
            top = LLVMBuildAnd(b, top, LLVMBuildNot(b, is_nan, ""), "");
        rb = LLVMBuildSelect(b, top, LLVMBuildSub(b, rb, splat(L, const_i32(L, 0x2000)), ""), rb, "");
    }
    LLVMValueRef v = LLVMBuildBitCast(b, rb, vec_of(L->f32), "");
    if (has(in, PTX_FLAG_BIT(RELU))) {
        LLVMValueRef lt0 = LLVMBuildFCmp(b, LLVMRealOLE, v, LLVMConstNull(vec_of(L->f32)), ""); /* -0 too */
        v = LLVMBuildSelect(b, lt0, LLVMConstNull(vec_of(L->f32)), v, "");
    }
    return v;
}

/* Integer rounding (.rni...) for float -> int and float -> the same
 * float; .rn/.rz/.rm/.rp where a float result is rounded; nothing else
 * (.rna, .rs, or a mode of the wrong kind) is lowered. */
static bool rounding_ok(const ptx_instr *in, ptx_type st, ptx_type dt)
{
    uint8_t r = in->mod[PTX_CAT_ROUND];
    bool irnd = r == PTX_ROUND_RNI || r == PTX_ROUND_RZI || r == PTX_ROUND_RMI || r == PTX_ROUND_RPI;
    bool frnd = r == PTX_ROUND_RN || is_directed(r);
    if (!r)
        return true;
    if (is_f(st) && (!is_f(dt) || st == dt))
        return irnd;
    return frnd && is_f(dt);
}

bool lower_cvt(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    lw *L = F->L;
    ptx_type dt = (ptx_type)in->types[0], st = (ptx_type)in->types[1];
    bool half = dt == PTX_TYPE_F16 || dt == PTX_TYPE_BF16 || st == PTX_TYPE_F16 || st == PTX_TYPE_BF16 ||
                dt == PTX_TYPE_F16X2 || dt == PTX_TYPE_BF16X2 || dt == PTX_TYPE_E4M3X2 || dt == PTX_TYPE_E5M2X2 ||
                st == PTX_TYPE_E4M3X2 || st == PTX_TYPE_E5M2X2 || st == PTX_TYPE_F16X2 || st == PTX_TYPE_BF16X2;
    if (half)
        return lower_half_cvt(F, in, mask);
    if (ptx_type_size(dt) > 8 || ptx_type_size(st) > 8 || in->nopds != 2 ||
        (is_f(st) && st != PTX_TYPE_F32 && st != PTX_TYPE_F64) ||
        (is_f(dt) && dt != PTX_TYPE_F32 && dt != PTX_TYPE_F64 && dt != PTX_TYPE_TF32)) {
        unsupported(F, in);
        return true;
    }
    uint8_t rnd = in->mod[PTX_CAT_ROUND];
    if (dt == PTX_TYPE_TF32) {
        if (st != PTX_TYPE_F32 || (rnd != PTX_ROUND_RNA && rnd != PTX_ROUND_RN && rnd != PTX_ROUND_RZ) ||
            (in->flags & ~(PTX_FLAG_BIT(SATFINITE) | PTX_FLAG_BIT(RELU)))) {
            unsupported(F, in);
            return true;
        }
        LLVMValueRef v = to_tf32(F, in, read_opd(F, &in->opds[1], st, false));
        write_reg(F, &in->opds[0], LLVMBuildBitCast(L->b, v, vec_of(L->i32), ""), PTX_TYPE_B32, false, mask);
        return true;
    }
    if (!rounding_ok(in, st, dt) || (in->flags & ~(PTX_FLAG_BIT(FTZ) | PTX_FLAG_BIT(SAT)))) {
        unsupported(F, in);
        return true;
    }
    LLVMValueRef a = is_f(st) ? fl_src(F, in, 1, st) : read_opd(F, &in->opds[1], st, is_signed(st)), r;
    if (is_f(st) && !is_f(dt)) {
        r = float_to_int(F, in, a, st, dt);
    } else if (!is_f(st) && is_f(dt)) {
        r = fl_result(F, in, int_to_float(F, in, a, st, dt));
    } else if (is_f(st) && is_f(dt)) {
        r = fl_result(F, in, float_to_float(F, in, a, st, dt));
        if (st == PTX_TYPE_F64 && dt == PTX_TYPE_F32 && has(in, PTX_FLAG_BIT(FTZ)))
            r = fl_ftz_tiny(F, a, rnd, r); /* tininess after rounding, as on an H200 */
        if (st == PTX_TYPE_F64 && dt == PTX_TYPE_F32 && !has(in, PTX_FLAG_BIT(SAT))) {
            LLVMValueRef nan = LLVMBuildBitCast(L->b, cvt_f64_nan_bits(F, a, 32, 23), vec_of(L->f32), "");
            r = LLVMBuildSelect(L->b, LLVMBuildFCmp(L->b, LLVMRealUNO, a, a, ""), nan, r, "");
        }
    } else { /* int -> int: the read already sign- or zero-extended */
        r = has(in, PTX_FLAG_BIT(SAT)) ? lower_int_sat(F, a, st, dt) : a; /* lower_intmix.c */
        uint32_t ss = ptx_type_size(st), ds = ptx_type_size(dt);
        LLVMTypeRef dv = vec_of(storage_int(L, dt));
        if (ds < ss)
            r = LLVMBuildTrunc(L->b, r, dv, "");
        else if (ds > ss)
            r = is_signed(st) ? LLVMBuildSExt(L->b, r, dv, "") : LLVMBuildZExt(L->b, r, dv, "");
    }
    write_reg(F, &in->opds[0], r, dt, is_signed(dt), mask);
    return true;
}
