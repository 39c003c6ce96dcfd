/* lower_half.c - f16/bf16 arithmetic, scalar and packed (.f16x2,
 * .bf16x2): add sub mul fma (.rn, .ftz, .sat, .relu), neg abs, min max
 * (.NaN, .xorsign.abs), setp/set (a predicate per half for pairs), and
 * the ex2/tanh approximations.  Conversions are in lower_halfcvt.c.
 *
 * Values are widened exactly to f32 (a pair to 64 lanes, low half first),
 * computed, and rounded back once to nearest even:
 *   add, sub, mul  rounded in f32 first: f32 has more than twice the
 *                  precision plus two bits, so rounding twice gives the
 *                  correctly rounded result;
 *   fma            the f32 (f16) or f64 (bf16, whose products leave the
 *                  f32 range) sum is made round-to-odd with its TwoSum
 *                  error, so the final rounding is correct.
 * NaN results are the canonical NaN 0x7fff; .ftz (f16 only) flushes
 * subnormal inputs and results to zero of the same sign. */
#include "lower_internal.h"

#include <math.h>

bool half_is_pair(ptx_type t) { return t == PTX_TYPE_F16X2 || t == PTX_TYPE_BF16X2; }
bool half_is_bf(ptx_type t) { return t == PTX_TYPE_BF16 || t == PTX_TYPE_BF16X2; }

static bool is_half(ptx_type t)
{
    return t == PTX_TYPE_F16 || t == PTX_TYPE_BF16 || half_is_pair(t);
}

static bool has(const ptx_instr *in, unsigned flag) { return (in->flags & flag) != 0; }

LLVMValueRef half_splat(LLVMValueRef c, unsigned n)
{
    LLVMValueRef v[2 * W];
    for (unsigned i = 0; i < n; i++)
        v[i] = c;
    return LLVMConstVector(v, n);
}

static LLVMValueRef i32n(fn *F, uint32_t v, unsigned n) { return half_splat(const_i32(F->L, v), n); }

static LLVMValueRef f32n(fn *F, double d, unsigned n) { return half_splat(LLVMConstReal(F->L->f32, d), n); }

/* <n x i16> half (or bf16) bits widened exactly to <n x float>. */
LLVMValueRef half_widen(fn *F, LLVMValueRef h, ptx_type t)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    unsigned n = LLVMGetVectorSize(LLVMTypeOf(h));
    if (!half_is_bf(t))
        return LLVMBuildFPExt(b, LLVMBuildBitCast(b, h, LLVMVectorType(L->f16, n), ""), LLVMVectorType(L->f32, n), "");
    LLVMValueRef w = LLVMBuildShl(b, LLVMBuildZExt(b, h, LLVMVectorType(L->i32, n), ""), i32n(F, 16, n), "");
    return LLVMBuildBitCast(b, w, LLVMVectorType(L->f32, n), ""); /* bf16: f32's high half */
}

/* The halves of an operand as <n x i16> (n = 64 for pairs, low first). */
LLVMValueRef half_bits(fn *F, const ptx_operand *o, ptx_type t)
{
    unsigned n = half_is_pair(t) ? 2 * W : W;
    LLVMValueRef v = read_opd(F, o, half_is_pair(t) ? PTX_TYPE_B32 : PTX_TYPE_B16, false);
    return LLVMBuildBitCast(F->L->b, v, LLVMVectorType(F->L->i16, n), "");
}

/* <n x float> rounded to nearest even as <n x i16>; NaN -> 0x7fff.  bf16
 * is rounded with integer operations (no compiler-rt helper needed). */
LLVMValueRef half_narrow(fn *F, LLVMValueRef v, ptx_type t)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    unsigned n = LLVMGetVectorSize(LLVMTypeOf(v));
    LLVMTypeRef vh = LLVMVectorType(L->i16, n);
    LLVMValueRef r;
    if (!half_is_bf(t)) {
        r = LLVMBuildBitCast(b, LLVMBuildFPTrunc(b, v, LLVMVectorType(L->f16, n), ""), vh, "");
    } else {
        LLVMValueRef bits = LLVMBuildBitCast(b, v, LLVMVectorType(L->i32, n), "");
        LLVMValueRef lsb = LLVMBuildAnd(b, LLVMBuildLShr(b, bits, i32n(F, 16, n), ""), i32n(F, 1, n), "");
        r = LLVMBuildAdd(b, bits, LLVMBuildAdd(b, i32n(F, 0x7fff, n), lsb, ""), "");
        r = LLVMBuildTrunc(b, LLVMBuildLShr(b, r, i32n(F, 16, n), ""), vh, "");
    }
    LLVMValueRef nan = LLVMBuildFCmp(b, LLVMRealUNO, v, v, "");
    return LLVMBuildSelect(b, nan, half_splat(LLVMConstInt(L->i16, 0x7fff, false), n), r, "");
}

/* f16 .ftz on widened values: |v| below 2^-14 becomes zero of its sign. */
static LLVMValueRef ftz_wide(fn *F, LLVMValueRef v)
{
    lw *L = F->L;
    LLVMTypeRef vt = LLVMTypeOf(v);
    unsigned n = LLVMGetVectorSize(vt);
    LLVMValueRef a = call_intrinsic(L, "llvm.fabs", &vt, 1, &v, 1);
    LLVMValueRef tiny = LLVMBuildFCmp(L->b, LLVMRealOLT, a, f32n(F, 0x1p-14, n), "");
    LLVMValueRef z = call_intrinsic(L, "llvm.copysign", &vt, 1, (LLVMValueRef[]){LLVMConstNull(vt), v}, 2);
    return LLVMBuildSelect(L->b, tiny, z, v, "");
}

/* f16 .ftz on result bits: a zero exponent keeps only the sign. */
static LLVMValueRef ftz_bits(fn *F, LLVMValueRef h)
{
    lw *L = F->L;
    LLVMTypeRef vt = LLVMTypeOf(h);
    unsigned n = LLVMGetVectorSize(vt);
    LLVMValueRef c7c = half_splat(LLVMConstInt(L->i16, 0x7c00, false), n);
    LLVMValueRef sub = LLVMBuildICmp(L->b, LLVMIntEQ, LLVMBuildAnd(L->b, h, c7c, ""), LLVMConstNull(vt), "");
    LLVMValueRef sign = LLVMBuildAnd(L->b, h, half_splat(LLVMConstInt(L->i16, 0x8000, false), n), "");
    return LLVMBuildSelect(L->b, sub, sign, h, "");
}

/* Round-to-odd of s (f32, rounded to nearest) given the sign of the
 * exact value's error (pos: exact > s, neg: exact < s): an inexact result
 * becomes its neighbour toward zero with the last bit set. */
LLVMValueRef half_odd(fn *F, LLVMValueRef s, LLVMValueRef pos, LLVMValueRef neg)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMTypeRef vt = LLVMTypeOf(s);
    unsigned n = LLVMGetVectorSize(vt);
    LLVMValueRef bits = LLVMBuildBitCast(b, s, LLVMVectorType(L->i32, n), "");
    LLVMValueRef gt0 = LLVMBuildFCmp(b, LLVMRealOGT, s, LLVMConstNull(vt), "");
    LLVMValueRef lt0 = LLVMBuildFCmp(b, LLVMRealOLT, s, LLVMConstNull(vt), "");
    LLVMValueRef away = LLVMBuildOr(b, LLVMBuildAnd(b, gt0, neg, ""), LLVMBuildAnd(b, lt0, pos, ""), "");
    LLVMValueRef toward = LLVMBuildSelect(b, away, LLVMBuildSub(b, bits, i32n(F, 1, n), ""), bits, "");
    LLVMValueRef odd = LLVMBuildOr(b, toward, i32n(F, 1, n), "");
    bits = LLVMBuildSelect(b, LLVMBuildOr(b, pos, neg, ""), odd, bits, "");
    return LLVMBuildBitCast(b, bits, vt, "");
}

/* TwoSum: s + *e == a + c exactly. */
static LLVMValueRef two_sum(fn *F, LLVMValueRef a, LLVMValueRef c, LLVMValueRef *e)
{
    LLVMBuilderRef b = F->L->b;
    LLVMValueRef s = LLVMBuildFAdd(b, a, c, "");
    LLVMValueRef bb = LLVMBuildFSub(b, s, a, "");
    *e = LLVMBuildFAdd(b, LLVMBuildFSub(b, a, LLVMBuildFSub(b, s, bb, ""), ""), LLVMBuildFSub(b, c, bb, ""), "");
    return s;
}

static void sign_of(fn *F, LLVMValueRef e, LLVMValueRef *pos, LLVMValueRef *neg)
{
    LLVMValueRef z = LLVMConstNull(LLVMTypeOf(e));
    *pos = LLVMBuildFCmp(F->L->b, LLVMRealOGT, e, z, "");
    *neg = LLVMBuildFCmp(F->L->b, LLVMRealOLT, e, z, "");
}

/* a*b + c as an f32 rounded to odd (then exact to round to a half). */
static LLVMValueRef fma_odd(fn *F, LLVMValueRef *x, bool bf)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef pos, neg, e;
    if (!bf) { /* f16: the product is exact in f32 */
        LLVMValueRef s = two_sum(F, LLVMBuildFMul(b, x[0], x[1], ""), x[2], &e);
        sign_of(F, e, &pos, &neg);
        return half_odd(F, s, pos, neg);
    }
    unsigned n = LLVMGetVectorSize(LLVMTypeOf(x[0]));
    LLVMTypeRef dt = LLVMVectorType(L->f64, n);
    LLVMValueRef p = LLVMBuildFMul(b, LLVMBuildFPExt(b, x[0], dt, ""), LLVMBuildFPExt(b, x[1], dt, ""), "");
    LLVMValueRef s = two_sum(F, p, LLVMBuildFPExt(b, x[2], dt, ""), &e);
    LLVMValueRef f = LLVMBuildFPTrunc(b, s, LLVMVectorType(L->f32, n), "");
    LLVMValueRef t = LLVMBuildFSub(b, s, LLVMBuildFPExt(b, f, dt, ""), "");
    LLVMValueRef tz = LLVMBuildFCmp(b, LLVMRealOEQ, t, LLVMConstNull(dt), "");
    LLVMValueRef tp, tn, ep, en;
    sign_of(F, t, &tp, &tn);
    sign_of(F, e, &ep, &en);
    return half_odd(F, f, LLVMBuildSelect(b, tz, ep, tp, ""), LLVMBuildSelect(b, tz, en, tn, ""));
}

static void write_halves(fn *F, const ptx_instr *in, LLVMValueRef h, ptx_type t, LLVMValueRef mask)
{
    ptx_type st = half_is_pair(t) ? PTX_TYPE_B32 : PTX_TYPE_B16;
    h = LLVMBuildBitCast(F->L->b, h, vec_of(storage_int(F->L, st)), "");
    write_reg(F, &in->opds[0], h, st, false, mask);
}

static void unsupported(fn *F, const ptx_instr *in, ptx_type t)
{
    lw_error(F->L, in->loc, "this form of '%s' on .%s is not supported", ptx_op_name(in->op), ptx_type_name(t));
}

/* Widened sources, flushed under .ftz (f16 only). */
static void sources(fn *F, const ptx_instr *in, ptx_type t, LLVMValueRef *x, uint32_t from)
{
    for (uint32_t i = from; i < in->nopds && i - from < 3; i++) {
        x[i - from] = half_widen(F, half_bits(F, &in->opds[i], t), t);
        if (has(in, PTX_FLAG_BIT(FTZ)))
            x[i - from] = ftz_wide(F, x[i - from]);
    }
}

static void lower_half_arith(fn *F, const ptx_instr *in, ptx_type t, LLVMValueRef mask)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef x[3], v;
    sources(F, in, t, x, 1);
    switch (in->op) {
    case PTX_OP_ADD: v = LLVMBuildFAdd(b, x[0], x[1], ""); break;
    case PTX_OP_SUB: v = LLVMBuildFSub(b, x[0], x[1], ""); break;
    case PTX_OP_MUL: v = LLVMBuildFMul(b, x[0], x[1], ""); break;
    default: v = fma_odd(F, x, half_is_bf(t)); break;
    }
    if (has(in, PTX_FLAG_BIT(SAT)))
        v = fl_sat(F, v);
    if (has(in, PTX_FLAG_BIT(RELU))) { /* negative -> +0; NaN stays NaN */
        LLVMValueRef neg = LLVMBuildFCmp(b, LLVMRealOLE, v, LLVMConstNull(LLVMTypeOf(v)), "");
        v = LLVMBuildSelect(b, neg, LLVMConstNull(LLVMTypeOf(v)), v, "");
    }
    /* .ftz on an H200: flushed when tiny after rounding to 11 bits with an
     * unbounded exponent (v is exact or rounded to odd, so v scaled by 2^14
     * rounds as the exact result would) */
    if (has(in, PTX_FLAG_BIT(FTZ))) {
        LLVMTypeRef vt = LLVMTypeOf(v);
        unsigned n = LLVMGetVectorSize(vt);
        LLVMValueRef scaled = half_narrow(F, LLVMBuildFMul(b, v, f32n(F, 0x1p14, n), ""), t);
        LLVMValueRef tiny = LLVMBuildICmp(b, LLVMIntULT, LLVMBuildAnd(b, scaled, half_splat(LLVMConstInt(L->i16, 0x7fff, false), n), ""),
                                          half_splat(LLVMConstInt(L->i16, 0x3c00, false), n), "");
        LLVMValueRef z = call_intrinsic(L, "llvm.copysign", &vt, 1, (LLVMValueRef[]){LLVMConstNull(vt), v}, 2);
        v = LLVMBuildSelect(b, tiny, z, v, "");
    }
    write_halves(F, in, half_narrow(F, v, t), t, mask);
}

/* neg, abs: the sign bit of each half; a NaN half gives the canonical NaN
 * 0x7fff, as on an H200 (the ISA: an unspecified NaN). */
static void lower_half_sign(fn *F, const ptx_instr *in, ptx_type t, LLVMValueRef mask)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef h = half_bits(F, &in->opds[1], t);
    unsigned n = LLVMGetVectorSize(LLVMTypeOf(h));
    if (has(in, PTX_FLAG_BIT(FTZ)))
        h = ftz_bits(F, h);
    LLVMValueRef sb = half_splat(LLVMConstInt(L->i16, 0x8000, false), n);
    LLVMValueRef magmask = half_splat(LLVMConstInt(L->i16, 0x7fff, false), n);
    LLVMValueRef inf = half_splat(LLVMConstInt(L->i16, half_is_bf(t) ? 0x7f80 : 0x7c00, false), n);
    LLVMValueRef nan = LLVMBuildICmp(b, LLVMIntUGT, LLVMBuildAnd(b, h, magmask, ""), inf, "");
    h = in->op == PTX_OP_NEG ? LLVMBuildXor(b, h, sb, "") : LLVMBuildAnd(b, h, magmask, "");
    h = LLVMBuildSelect(b, nan, magmask, h, "");
    write_halves(F, in, h, t, mask);
}

static void lower_half_minmax(fn *F, const ptx_instr *in, ptx_type t, LLVMValueRef mask)
{
    LLVMValueRef x[3];
    sources(F, in, t, x, 1);
    LLVMValueRef v = fl_minmax(F, in, x, in->nopds - 1);
    write_halves(F, in, half_narrow(F, v, t), t, mask);
}

/* setp/set: compared widened (exact).  For pairs, setp's p|q gets the
 * low half's result in p and the high half's in q. */
static void lower_half_compare(fn *F, const ptx_instr *in, ptx_type t, LLVMValueRef mask)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef x[2];
    uint32_t first = 1;
    ptx_type ct = in->op == PTX_OP_SET ? (ptx_type)in->types[1] : t;
    for (uint32_t i = 0; i < 2; i++) {
        x[i] = half_widen(F, half_bits(F, &in->opds[first + i], ct), ct);
        if (has(in, PTX_FLAG_BIT(FTZ)))
            x[i] = ftz_wide(F, x[i]);
    }
    LLVMValueRef r = lower_fcompare(F, in, x[0], x[1]);
    LLVMValueRef c = in->nopds > 3 ? read_opd(F, &in->opds[3], PTX_TYPE_PRED, false) : NULL;
    const ptx_operand *d = &in->opds[0];
    if (in->op == PTX_OP_SETP) {
        if (!half_is_pair(ct)) {
            LLVMValueRef p = c ? lower_bool_combine(F, in, r, c) : r;
            LLVMValueRef nr = LLVMBuildNot(b, r, "");
            if (d->kind == PTX_OPD_PAIR) {
                write_reg(F, &d->elems[0], p, PTX_TYPE_PRED, false, mask);
                write_reg(F, &d->elems[1], c ? lower_bool_combine(F, in, nr, c) : nr, PTX_TYPE_PRED, false, mask);
            } else {
                write_reg(F, d, p, PTX_TYPE_PRED, false, mask);
            }
            return;
        }
        LLVMValueRef lo = lane_half(F, r, 0), hi = lane_half(F, r, 1);
        if (c)
            lo = lower_bool_combine(F, in, lo, c), hi = lower_bool_combine(F, in, hi, c);
        if (d->kind != PTX_OPD_PAIR) {
            unsupported(F, in, ct);
            return;
        }
        write_reg(F, &d->elems[0], lo, PTX_TYPE_PRED, false, mask);
        write_reg(F, &d->elems[1], hi, PTX_TYPE_PRED, false, mask);
        return;
    }
    /* set: 1.0 or 0 in the destination type (per half for pairs), all ones
     * or 0 for integer destinations */
    if (c)
        r = lower_bool_combine(F, in, r, c);
    ptx_type dt = (ptx_type)in->types[0];
    unsigned n = LLVMGetVectorSize(LLVMTypeOf(r));
    LLVMValueRef one = is_half(dt) ? half_narrow(F, f32n(F, 1.0, n), dt)
                                   : half_splat(LLVMConstInt(L->i16, 0xffff, false), n);
    LLVMValueRef h = LLVMBuildSelect(b, r, one, LLVMConstNull(LLVMTypeOf(one)), "");
    if (half_is_pair(ct) && ptx_type_size(dt) == 4) {
        write_halves(F, in, h, PTX_TYPE_F16X2, mask);
    } else if (!half_is_pair(ct) && is_half(dt)) {
        write_halves(F, in, h, dt, mask);
    } else if (!half_is_pair(ct)) {
        LLVMTypeRef it = vec_of(storage_int(L, dt));
        LLVMValueRef v = LLVMBuildSelect(b, r, LLVMConstAllOnes(it), LLVMConstNull(it), "");
        if (dt == PTX_TYPE_F32)
            v = LLVMBuildBitCast(b, LLVMBuildSelect(b, r, f32n(F, 1.0, W), LLVMConstNull(vec_of(L->f32)), ""), it, "");
        write_reg(F, d, v, dt, false, mask);
    } else {
        unsupported(F, in, ct);
    }
}

/* Lanes 2i + which of a 64-lane vector (one half of each pair). */
LLVMValueRef lane_half(fn *F, LLVMValueRef v, unsigned which)
{
    LLVMValueRef idx[W];
    for (unsigned i = 0; i < W; i++)
        idx[i] = const_i32(F->L, 2 * i + which);
    return LLVMBuildShuffleVector(F->L->b, v, LLVMGetUndef(LLVMTypeOf(v)), LLVMConstVector(idx, W), "");
}

/* ex2 and tanh: the f32 routine on widened values, rounded once more.
 * bf16 ex2 exists only with .ftz: subnormal inputs and results flush. */
static void lower_half_approx(fn *F, const ptx_instr *in, ptx_type t, LLVMValueRef mask)
{
    LLVMValueRef x = half_widen(F, half_bits(F, &in->opds[1], t), t);
    bool ftz = has(in, PTX_FLAG_BIT(FTZ));
    LLVMTypeRef vt = LLVMTypeOf(x);
    unsigned n = LLVMGetVectorSize(vt);
    double tiny = half_is_bf(t) ? 0x1p-126 : 0x1p-14;
    if (ftz) {
        LLVMValueRef a = call_intrinsic(F->L, "llvm.fabs", &vt, 1, &x, 1);
        LLVMValueRef sub = LLVMBuildFCmp(F->L->b, LLVMRealOLT, a, f32n(F, tiny, n), "");
        x = LLVMBuildSelect(F->L->b, sub, LLVMConstNull(vt), x, "");
    }
    LLVMValueRef v = lower_vmath(F, in->op == PTX_OP_EX2 ? "exp2f" : "tanhf", x);
    if (ftz) {
        LLVMValueRef sub = LLVMBuildFCmp(F->L->b, LLVMRealOLT, v, f32n(F, tiny, n), "");
        v = LLVMBuildSelect(F->L->b, sub, LLVMConstNull(vt), v, "");
    }
    write_halves(F, in, half_narrow(F, v, t), t, mask);
}

bool lower_half(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    ptx_type t = in->ntypes ? (ptx_type)in->types[0] : PTX_TYPE_NONE;
    if (in->op == PTX_OP_SET && in->ntypes > 1)
        t = (ptx_type)in->types[1];
    if (!is_half(t))
        return false;
    uint8_t r = in->mod[PTX_CAT_ROUND];
    unsigned f = in->flags;
    unsigned ftz = PTX_FLAG_BIT(FTZ), sat = PTX_FLAG_BIT(SAT), relu = PTX_FLAG_BIT(RELU);
    unsigned ok;
    bool bf = half_is_bf(t);
    switch (in->op) {
    case PTX_OP_ADD: case PTX_OP_SUB: case PTX_OP_MUL: case PTX_OP_FMA:
        ok = bf ? (in->op == PTX_OP_FMA ? relu : 0) : ftz | sat | (in->op == PTX_OP_FMA ? relu : 0);
        if ((r && r != PTX_ROUND_RN) || (f & ~ok) || ((f & sat) && (f & relu)))
            break;
        lower_half_arith(F, in, t, mask);
        return true;
    case PTX_OP_NEG: case PTX_OP_ABS:
        if (f & ~(bf ? 0 : ftz))
            break;
        lower_half_sign(F, in, t, mask);
        return true;
    case PTX_OP_MIN: case PTX_OP_MAX:
        if ((f & ~(PTX_FLAG_BIT(NAN) | PTX_FLAG_BIT(XORSIGN) | PTX_FLAG_BIT(ABS) | (bf ? 0 : ftz))) ||
            in->nopds != 3)
            break;
        lower_half_minmax(F, in, t, mask);
        return true;
    case PTX_OP_SETP: case PTX_OP_SET:
        if (f & ~(bf ? 0 : ftz))
            break;
        lower_half_compare(F, in, t, mask);
        return true;
    case PTX_OP_EX2: case PTX_OP_TANH:
        ok = PTX_FLAG_BIT(APPROX) | (in->op == PTX_OP_EX2 ? ftz : 0);
        if ((f & ~ok) || (in->op == PTX_OP_EX2 && bf != ((f & ftz) != 0)))
            break;
        lower_half_approx(F, in, t, mask);
        return true;
    case PTX_OP_MOV: case PTX_OP_SELP: case PTX_OP_CVT: case PTX_OP_ATOM: case PTX_OP_RED:
    case PTX_OP_CP_REDUCE_ASYNC_BULK:
        return false; /* bit moves (lower_arith.c), conversions (lower_cvt.c), atomics (lower_atomic.c,
                       * lower_bulk.c) */
    default:
        break;
    }
    unsupported(F, in, t);
    return true;
}
