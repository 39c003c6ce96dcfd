/* lower_halfcvt.c - cvt to and from f16/bf16, the packing forms
 * (cvt.f16x2.f32 d, a, b: a to the upper half), and the fp8 pairs
 * (.e4m3x2, .e5m2x2).
 *
 * Every source is first made an f32 that is exact or rounded to odd (f64
 * and 32-bit integers through f64; 64-bit integers rounded to nearest and
 * compared back as integers): f32 has more than two bits beyond f16's and
 * bf16's precision, so rounding that value once more, to nearest or in a
 * directed mode, gives the correctly rounded result.  .sat clamps to
 * [0, 1], .relu turns negative results into +0, .satfinite turns
 * infinities into the largest finite value; NaN results are the canonical
 * NaN (0x7fff for halves, 0x7f for fp8, 0x7fffffff for f32), except where
 * an H200 keeps payload bits: an f64 NaN narrowed to f16/bf16, and bf16
 * widened to f32 (a shift); a NaN converted to an integer is
 * cvt_int_nan's. */
#include "lower_internal.h"

#include <math.h>

static bool has(const ptx_instr *in, unsigned flag) { return (in->flags & flag) != 0; }

static bool is_half(ptx_type t) { return t == PTX_TYPE_F16 || t == PTX_TYPE_BF16; }
static bool is_fp8x2(ptx_type t) { return t == PTX_TYPE_E4M3X2 || t == PTX_TYPE_E5M2X2; }
static bool is_directed(uint8_t r) { return r == PTX_ROUND_RZ || r == PTX_ROUND_RM || r == PTX_ROUND_RP; }

static LLVMValueRef i32v(fn *F, uint32_t v) { return splat(F->L, const_i32(F->L, v)); }

static void unsupported(fn *F, const ptx_instr *in)
{
    ptx_type dt = (ptx_type)in->types[0], st = (ptx_type)in->types[1];
    uint8_t r = in->mod[PTX_CAT_ROUND];
    lw_error(F->L, in->loc, "cvt%s%s.%s.%s with these modifiers is not supported", r ? "." : "",
             r ? ptx_mod_text(PTX_CAT_ROUND, r) : "", ptx_type_name(dt), ptx_type_name(st));
}

/* An f64 as an f32 rounded to odd. */
static LLVMValueRef f64_odd(fn *F, LLVMValueRef d)
{
    lw *L = F->L;
    LLVMValueRef s = LLVMBuildFPTrunc(L->b, d, vec_of(L->f32), "");
    LLVMValueRef back = LLVMBuildFPExt(L->b, s, vec_of(L->f64), "");
    LLVMValueRef pos = LLVMBuildFCmp(L->b, LLVMRealOGT, d, back, "");
    LLVMValueRef neg = LLVMBuildFCmp(L->b, LLVMRealOLT, d, back, "");
    return half_odd(F, s, pos, neg);
}

/* Operand i as an f32 that is exact or rounded to odd. */
static LLVMValueRef source_f32(fn *F, const ptx_instr *in, uint32_t i, ptx_type st)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    const ptx_operand *o = &in->opds[i];
    char c = ptx_type_class(st);
    if (st == PTX_TYPE_F32)
        return fl_src(F, in, i, st);
    if (st == PTX_TYPE_F64)
        return f64_odd(F, read_opd(F, o, st, false));
    if (is_half(st))
        return half_widen(F, half_bits(F, o, st), st);
    LLVMValueRef a = read_opd(F, o, st, c == 'S');
    if (ptx_type_size(st) < 8)
        return f64_odd(F, c == 'S' ? LLVMBuildSIToFP(b, a, vec_of(L->f64), "") : LLVMBuildUIToFP(b, a, vec_of(L->f64), ""));
    LLVMValueRef s = c == 'S' ? LLVMBuildSIToFP(b, a, vec_of(L->f32), "") : LLVMBuildUIToFP(b, a, vec_of(L->f32), "");
    LLVMValueRef pos, neg;
    cvt_int64_error(F, a, c == 'S', s, &pos, &neg);
    return half_odd(F, s, pos, neg);
}

/* An exact-or-odd f32 to f16/bf16 bits in the instruction's mode. */
static LLVMValueRef to_half(fn *F, const ptx_instr *in, LLVMValueRef f, ptx_type dt)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    uint8_t r = in->mod[PTX_CAT_ROUND];
    if (has(in, PTX_FLAG_BIT(SAT)))
        f = fl_sat(F, f);
    if (has(in, PTX_FLAG_BIT(RELU))) {
        LLVMValueRef le0 = LLVMBuildFCmp(b, LLVMRealOLE, f, LLVMConstNull(LLVMTypeOf(f)), "");
        f = LLVMBuildSelect(b, le0, LLVMConstNull(LLVMTypeOf(f)), f, "");
    }
    LLVMValueRef h = half_narrow(F, f, dt);
    if (is_directed(r)) {
        LLVMValueRef back = half_widen(F, h, dt);
        LLVMValueRef pos = LLVMBuildFCmp(b, LLVMRealOGT, f, back, "");
        LLVMValueRef neg = LLVMBuildFCmp(b, LLVMRealOLT, f, back, "");
        h = step_bits(F, h, pos, neg, r);
    }
    if (has(in, PTX_FLAG_BIT(SATFINITE))) {
        uint16_t inf = dt == PTX_TYPE_BF16 ? 0x7f80 : 0x7c00;
        LLVMValueRef mag = LLVMBuildAnd(b, h, splat(L, LLVMConstInt(L->i16, 0x7fff, false)), "");
        LLVMValueRef isinf = LLVMBuildICmp(b, LLVMIntEQ, mag, splat(L, LLVMConstInt(L->i16, inf, false)), "");
        h = LLVMBuildSelect(b, isinf, LLVMBuildSub(b, h, splat(L, LLVMConstInt(L->i16, 1, false)), ""), h, "");
    }
    return h;
}

/* An exact f32 to an fp8 code, rounded to nearest even and saturated to
 * the largest finite value (.satfinite); NaN -> 0x7f.  The value scaled
 * by a power of two to hold the code's significand in its integer part
 * rounds with one roundeven. */
static LLVMValueRef to_fp8(fn *F, const ptx_instr *in, LLVMValueRef f, bool e4m3)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMTypeRef vt = LLVMTypeOf(f), it = vec_of(L->i32);
    int m8 = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15;
    uint32_t maxcode = e4m3 ? 0x7e : 0x7b;
    LLVMValueRef bits = LLVMBuildBitCast(b, f, it, "");
    LLVMValueRef sign = LLVMBuildLShr(b, bits, i32v(F, 31), "");
    LLVMValueRef a = call_intrinsic(L, "llvm.fabs", &vt, 1, &f, 1);
    LLVMValueRef e = LLVMBuildSub(b, LLVMBuildAnd(b, LLVMBuildLShr(b, bits, i32v(F, 23), ""), i32v(F, 0xff), ""), i32v(F, 127), "");
    LLVMTypeRef i32t = L->i32;
    LLVMValueRef emin = splat(L, LLVMConstInt(i32t, (uint64_t)(1 - bias), true));
    e = call_intrinsic(L, "llvm.smax", &it, 1, (LLVMValueRef[]){e, emin}, 2);
    e = call_intrinsic(L, "llvm.smin", &it, 1, (LLVMValueRef[]){e, i32v(F, 100)}, 2);
    LLVMValueRef scl = LLVMBuildShl(b, LLVMBuildSub(b, i32v(F, (uint32_t)(m8 + 127)), e, ""), i32v(F, 23), "");
    LLVMValueRef finite = LLVMBuildFCmp(b, LLVMRealOLT, a, splat(L, LLVMConstReal(L->f32, 0x1p120)), "");
    LLVMValueRef q = LLVMBuildFMul(b, LLVMBuildSelect(b, finite, a, LLVMConstNull(vt), ""), LLVMBuildBitCast(b, scl, vt, ""), "");
    q = call_intrinsic(L, "llvm.roundeven", &vt, 1, &q, 1);
    LLVMValueRef code = LLVMBuildAdd(b, LLVMBuildShl(b, LLVMBuildAdd(b, e, i32v(F, (uint32_t)(bias - 1)), ""), i32v(F, (uint32_t)m8), ""),
                                     LLVMBuildFPToUI(b, q, it, ""), "");
    code = LLVMBuildSelect(b, finite, code, i32v(F, maxcode), "");
    code = call_intrinsic(L, "llvm.umin", &it, 1, (LLVMValueRef[]){code, i32v(F, maxcode)}, 2);
    code = LLVMBuildOr(b, code, LLVMBuildShl(b, sign, i32v(F, 7), ""), "");
    if (has(in, PTX_FLAG_BIT(RELU)))
        code = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntNE, sign, i32v(F, 0), ""), i32v(F, 0), code, "");
    code = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealUNO, f, f, ""), i32v(F, 0x7f), code, "");
    return code;
}

/* An fp8 code (in the low byte of each i32 lane) as an exact f32; NaN
 * codes give NaN. */
static LLVMValueRef from_fp8(fn *F, LLVMValueRef c, bool e4m3)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMTypeRef ft = vec_of(L->f32);
    int m8 = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15, ebits = e4m3 ? 4 : 5;
    LLVMValueRef E = LLVMBuildAnd(b, LLVMBuildLShr(b, c, i32v(F, (uint32_t)m8), ""), i32v(F, (1u << ebits) - 1), "");
    LLVMValueRef M = LLVMBuildAnd(b, c, i32v(F, (1u << m8) - 1), "");
    LLVMValueRef sub = LLVMBuildICmp(b, LLVMIntEQ, E, i32v(F, 0), "");
    LLVMValueRef sig = LLVMBuildSelect(b, sub, M, LLVMBuildOr(b, M, i32v(F, 1u << m8), ""), "");
    LLVMValueRef ex = LLVMBuildSelect(b, sub, i32v(F, 1), E, ""); /* value = sig * 2^(ex - bias - m8) */
    LLVMValueRef p2 = LLVMBuildShl(b, LLVMBuildAdd(b, ex, i32v(F, (uint32_t)(127 - bias - m8)), ""), i32v(F, 23), "");
    LLVMValueRef v = LLVMBuildFMul(b, LLVMBuildUIToFP(b, sig, ft, ""), LLVMBuildBitCast(b, p2, ft, ""), "");
    LLVMValueRef top = i32v(F, (1u << ebits) - 1);
    LLVMValueRef nan = e4m3 ? LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntEQ, E, top, ""), LLVMBuildICmp(b, LLVMIntEQ, M, i32v(F, 7), ""), "")
                            : LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntEQ, E, top, ""), LLVMBuildICmp(b, LLVMIntNE, M, i32v(F, 0), ""), "");
    LLVMValueRef inf = e4m3 ? LLVMConstNull(vec_of(L->i1))
                            : LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntEQ, E, top, ""), LLVMBuildICmp(b, LLVMIntEQ, M, i32v(F, 0), ""), "");
    v = LLVMBuildSelect(b, inf, splat(L, LLVMConstReal(L->f32, INFINITY)), v, "");
    v = LLVMBuildSelect(b, nan, splat(L, LLVMConstReal(L->f32, NAN)), v, "");
    LLVMValueRef neg = LLVMBuildICmp(b, LLVMIntNE, LLVMBuildAnd(b, c, i32v(F, 0x80), ""), i32v(F, 0), "");
    return LLVMBuildSelect(b, neg, LLVMBuildFNeg(b, v, ""), v, "");
}

/* Two 16-bit values (or 8-bit, for fp8) packed: hi in the upper part. */
static LLVMValueRef pack(fn *F, LLVMValueRef hi, LLVMValueRef lo, unsigned part, LLVMTypeRef wide)
{
    LLVMBuilderRef b = F->L->b;
    LLVMValueRef h = LLVMBuildZExt(b, hi, wide, ""), l = LLVMBuildZExt(b, lo, wide, "");
    LLVMValueRef sh = splat(F->L, LLVMConstInt(LLVMGetElementType(wide), part, false));
    return LLVMBuildOr(b, LLVMBuildShl(b, h, sh, ""), l, "");
}

static bool cvt_to_fp8(fn *F, const ptx_instr *in, ptx_type dt, ptx_type st, LLVMValueRef mask)
{
    lw *L = F->L;
    bool e4m3 = dt == PTX_TYPE_E4M3X2;
    LLVMValueRef hi, lo;
    if (in->mod[PTX_CAT_ROUND] != PTX_ROUND_RN || !has(in, PTX_FLAG_BIT(SATFINITE)))
        return false;
    if (st == PTX_TYPE_F32 && in->nopds == 3) {
        hi = to_fp8(F, in, read_opd(F, &in->opds[1], st, false), e4m3);
        lo = to_fp8(F, in, read_opd(F, &in->opds[2], st, false), e4m3);
    } else if (st == PTX_TYPE_F16X2 && in->nopds == 2) {
        LLVMValueRef w = half_widen(F, half_bits(F, &in->opds[1], st), st);
        lo = to_fp8(F, in, lane_half(F, w, 0), e4m3);
        hi = to_fp8(F, in, lane_half(F, w, 1), e4m3);
    } else {
        return false;
    }
    LLVMValueRef v = pack(F, LLVMBuildTrunc(L->b, hi, vec_of(L->i8), ""), LLVMBuildTrunc(L->b, lo, vec_of(L->i8), ""), 8,
                          vec_of(L->i16));
    write_reg(F, &in->opds[0], v, PTX_TYPE_B16, false, mask);
    return true;
}

static bool cvt_from_fp8(fn *F, const ptx_instr *in, ptx_type dt, ptx_type st, LLVMValueRef mask)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    uint8_t r = in->mod[PTX_CAT_ROUND];
    if (dt != PTX_TYPE_F16X2 || (r && r != PTX_ROUND_RN) || in->nopds != 2)
        return false;
    LLVMValueRef c = LLVMBuildZExt(b, read_opd(F, &in->opds[1], PTX_TYPE_B16, false), vec_of(L->i32), "");
    LLVMValueRef h[2];
    for (int i = 0; i < 2; i++) {
        LLVMValueRef code = i ? LLVMBuildLShr(b, c, i32v(F, 8), "") : c;
        LLVMValueRef f = from_fp8(F, LLVMBuildAnd(b, code, i32v(F, 0xff), ""), st == PTX_TYPE_E4M3X2);
        h[i] = to_half(F, in, f, PTX_TYPE_F16);
    }
    write_reg(F, &in->opds[0], pack(F, h[1], h[0], 16, vec_of(L->i32)), PTX_TYPE_B32, false, mask);
    return true;
}

/* From f16/bf16: widened exactly, then as from f32. */
static bool cvt_from_half(fn *F, const ptx_instr *in, ptx_type dt, ptx_type st, LLVMValueRef mask)
{
    lw *L = F->L;
    uint8_t r = in->mod[PTX_CAT_ROUND];
    LLVMValueRef f = half_widen(F, half_bits(F, &in->opds[1], st), st);
    if (dt == PTX_TYPE_F32 || dt == PTX_TYPE_F64) {
        if (r)
            return false;
        /* bf16 -> f32 is f32's high half, NaN payload and all (as on an H200) */
        LLVMValueRef v = dt == PTX_TYPE_F64 ? LLVMBuildFPExt(L->b, f, vec_of(L->f64), "")
                       : st == PTX_TYPE_BF16 && !in->flags ? f : fl_result(F, in, f);
        write_reg(F, &in->opds[0], v, dt, false, mask);
        return true;
    }
    if (ptx_type_class(dt) != 'S' && ptx_type_class(dt) != 'U')
        return false;
    const char *rf = r == PTX_ROUND_RNI ? "llvm.roundeven" : r == PTX_ROUND_RMI ? "llvm.floor"
                   : r == PTX_ROUND_RPI ? "llvm.ceil" : "llvm.trunc";
    f = call_intrinsic(L, rf, &(LLVMTypeRef){vec_of(L->f32)}, 1, &f, 1);
    LLVMTypeRef tys[2] = {vec_of(storage_int(L, dt)), vec_of(L->f32)};
    LLVMValueRef v = call_intrinsic(L, ptx_type_class(dt) == 'S' ? "llvm.fptosi.sat" : "llvm.fptoui.sat", tys, 2, &f, 1);
    v = cvt_int_nan(F, f, v, dt, false);
    write_reg(F, &in->opds[0], v, dt, ptx_type_class(dt) == 'S', mask);
    return true;
}

static bool cvt_to_half(fn *F, const ptx_instr *in, ptx_type dt, ptx_type st, LLVMValueRef mask)
{
    uint8_t r = in->mod[PTX_CAT_ROUND];
    bool pair = dt == PTX_TYPE_F16X2 || dt == PTX_TYPE_BF16X2;
    ptx_type et = dt == PTX_TYPE_F16X2 ? PTX_TYPE_F16 : dt == PTX_TYPE_BF16X2 ? PTX_TYPE_BF16 : dt;
    if (pair) {
        if (st != PTX_TYPE_F32 || in->nopds != 3 || !(r == PTX_ROUND_RN || is_directed(r)))
            return false;
        LLVMValueRef hi = to_half(F, in, source_f32(F, in, 1, st), et);
        LLVMValueRef lo = to_half(F, in, source_f32(F, in, 2, st), et);
        write_reg(F, &in->opds[0], pack(F, hi, lo, 16, vec_of(F->L->i32)), PTX_TYPE_B32, false, mask);
        return true;
    }
    if (in->nopds != 2)
        return false;
    if (st == dt) { /* .rni etc: round to an integral value */
        const char *rf = r == PTX_ROUND_RNI ? "llvm.roundeven" : r == PTX_ROUND_RMI ? "llvm.floor"
                       : r == PTX_ROUND_RPI ? "llvm.ceil" : r == PTX_ROUND_RZI ? "llvm.trunc" : NULL;
        LLVMValueRef f = source_f32(F, in, 1, st);
        if (rf)
            f = call_intrinsic(F->L, rf, &(LLVMTypeRef){vec_of(F->L->f32)}, 1, &f, 1);
        else if (r)
            return false;
        write_reg(F, &in->opds[0], to_half(F, in, f, dt), PTX_TYPE_B16, false, mask);
        return true;
    }
    if (is_half(st) || !(!r || r == PTX_ROUND_RN || is_directed(r)))
        return false; /* f16 <-> bf16 is not a PTX conversion */
    LLVMValueRef h = to_half(F, in, source_f32(F, in, 1, st), dt);
    if (st == PTX_TYPE_F64 && !has(in, PTX_FLAG_BIT(SAT))) { /* NaN: sign and top payload bits, as on an H200 */
        LLVMValueRef d = read_opd(F, &in->opds[1], st, false);
        LLVMValueRef nan = cvt_f64_nan_bits(F, d, 16, dt == PTX_TYPE_BF16 ? 7 : 10);
        h = LLVMBuildSelect(F->L->b, LLVMBuildFCmp(F->L->b, LLVMRealUNO, d, d, ""), nan, h, "");
    }
    write_reg(F, &in->opds[0], h, PTX_TYPE_B16, false, mask);
    return true;
}

bool lower_half_cvt(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    ptx_type dt = (ptx_type)in->types[0], st = (ptx_type)in->types[1];
    unsigned allowed = PTX_FLAG_BIT(SAT) | PTX_FLAG_BIT(FTZ) | PTX_FLAG_BIT(RELU) | PTX_FLAG_BIT(SATFINITE);
    bool ok = false;
    if (!(in->flags & ~allowed)) {
        if (is_fp8x2(dt))
            ok = cvt_to_fp8(F, in, dt, st, mask);
        else if (is_fp8x2(st))
            ok = cvt_from_fp8(F, in, dt, st, mask);
        else if (is_half(dt) || dt == PTX_TYPE_F16X2 || dt == PTX_TYPE_BF16X2)
            ok = cvt_to_half(F, in, dt, st, mask);
        else if (is_half(st))
            ok = cvt_from_half(F, in, dt, st, mask);
    }
    if (!ok)
        unsupported(F, in);
    return true;
}
