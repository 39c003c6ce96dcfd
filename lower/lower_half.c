/* lower_half.c - f16/bf16 arithmetic, scalar and packed (.f16x2, .bf16x2).
 *
 * Values are widened to f32, computed and rounded back once (round to
 * nearest even).  f32 has at least twice the precision of f16 and bf16 plus
 * two bits, so a single +, - or * rounded through f32 equals the directly
 * rounded result; for fma the product is exact in f32 and the one rounded
 * addition has the same property.  bf16 is converted with integer
 * operations, so no compiler-rt helper is needed. */
#include "lower_internal.h"

static bool is_half(ptx_type t)
{
    return t == PTX_TYPE_F16 || t == PTX_TYPE_BF16 || t == PTX_TYPE_F16X2 ||
           t == PTX_TYPE_BF16X2;
}

static bool is_pair(ptx_type t) { return t == PTX_TYPE_F16X2 || t == PTX_TYPE_BF16X2; }

/* The operand as <N x half|bfloat> (N = 64 for pairs, low half first). */
static bool is_bf(ptx_type t) { return t == PTX_TYPE_BF16 || t == PTX_TYPE_BF16X2; }

static LLVMValueRef splat_n(LLVMValueRef c, unsigned n)
{
    LLVMValueRef v[2 * W];
    for (unsigned i = 0; i < n; i++)
        v[i] = c;
    return LLVMConstVector(v, n);
}

/* The operand widened to <N x float> (N = 64 for pairs, low half first). */
static LLVMValueRef read_wide(fn *F, const ptx_operand *o, ptx_type t, unsigned n)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef v = read_opd(F, o, is_pair(t) ? PTX_TYPE_B32 : PTX_TYPE_B16, false);
    LLVMValueRef h = LLVMBuildBitCast(b, v, LLVMVectorType(L->i16, n), "");
    if (!is_bf(t))
        return LLVMBuildFPExt(b, LLVMBuildBitCast(b, h, LLVMVectorType(L->f16, n), ""),
                              LLVMVectorType(L->f32, n), "");
    LLVMValueRef w = LLVMBuildZExt(b, h, LLVMVectorType(L->i32, n), ""); /* bf16: f32's high half */
    w = LLVMBuildShl(b, w, splat_n(const_i32(L, 16), n), "");
    return LLVMBuildBitCast(b, w, LLVMVectorType(L->f32, n), "");
}

/* <32 x i16> half (or bf16) bits widened exactly to <32 x float>. */
static LLVMValueRef read_wide_bits(fn *F, LLVMValueRef h, ptx_type t)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    if (!is_bf(t))
        return LLVMBuildFPExt(b, LLVMBuildBitCast(b, h, vec_of(L->f16), ""), vec_of(L->f32), "");
    LLVMValueRef w = LLVMBuildShl(b, LLVMBuildZExt(b, h, vec_of(L->i32), ""), splat(L, const_i32(L, 16)), "");
    return LLVMBuildBitCast(b, w, vec_of(L->f32), "");
}

/* <N x float> rounded to nearest even as <N x i16> halves. */
static LLVMValueRef narrow(fn *F, LLVMValueRef v, ptx_type t, unsigned n)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    if (!is_bf(t))
        return LLVMBuildBitCast(b, LLVMBuildFPTrunc(b, v, LLVMVectorType(L->f16, n), ""),
                                LLVMVectorType(L->i16, n), "");
    LLVMTypeRef vi = LLVMVectorType(L->i32, n);
    LLVMValueRef bits = LLVMBuildBitCast(b, v, vi, "");
    LLVMValueRef lsb = LLVMBuildAnd(b, LLVMBuildLShr(b, bits, splat_n(const_i32(L, 16), n), ""),
                                    splat_n(const_i32(L, 1), n), "");
    LLVMValueRef r = LLVMBuildAdd(b, bits, LLVMBuildAdd(b, splat_n(const_i32(L, 0x7fff), n), lsb, ""), "");
    r = LLVMBuildLShr(b, r, splat_n(const_i32(L, 16), n), "");
    /* NaN stays a (quiet) NaN with its sign */
    LLVMValueRef nan = LLVMBuildFCmp(b, LLVMRealUNO, v, v, "");
    LLVMValueRef qnan = LLVMBuildOr(b, LLVMBuildLShr(b, bits, splat_n(const_i32(L, 16), n), ""),
                                    splat_n(const_i32(L, 0x40), n), "");
    r = LLVMBuildSelect(b, nan, qnan, r, "");
    return LLVMBuildTrunc(b, r, LLVMVectorType(L->i16, n), "");
}

static LLVMValueRef intrin(fn *F, const char *name, LLVMValueRef *args, unsigned n)
{
    LLVMTypeRef t = LLVMTypeOf(args[0]);
    return call_intrinsic(F->L, name, &t, 1, args, n);
}

bool lower_half(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    lw *L = F->L;
    ptx_type t = in->ntypes ? (ptx_type)in->types[0] : PTX_TYPE_NONE;
    if (!is_half(t))
        return false;
    switch (in->op) {
    case PTX_OP_ADD: case PTX_OP_SUB: case PTX_OP_MUL: case PTX_OP_FMA: case PTX_OP_NEG:
    case PTX_OP_ABS: case PTX_OP_MIN: case PTX_OP_MAX:
        break;
    default:
        return false;
    }
    uint8_t r = in->mod[PTX_CAT_ROUND];
    if ((r && r != PTX_ROUND_RN) || (in->flags & ~(PTX_FLAG_BIT(SAT))) ||
        ((in->op == PTX_OP_MIN || in->op == PTX_OP_MAX) && in->nopds != 3)) {
        lw_error(L, in->loc, "this form of '%s' on .%s is not supported yet", ptx_op_name(in->op),
                 ptx_type_name(t));
        return true;
    }
    LLVMBuilderRef b = L->b;
    unsigned n = is_pair(t) ? 2 * W : W;
    LLVMTypeRef wide = LLVMVectorType(L->f32, n);
    LLVMValueRef x[3];
    for (uint32_t i = 1; i < in->nopds; i++)
        x[i - 1] = read_wide(F, &in->opds[i], t, n);
    LLVMValueRef v;
    switch (in->op) {
    case PTX_OP_ADD: v = LLVMBuildFAdd(b, x[0], x[1], ""); break;
    case PTX_OP_SUB: v = LLVMBuildFSub(b, x[0], x[1], ""); break;
    case PTX_OP_MUL: v = LLVMBuildFMul(b, x[0], x[1], ""); break;
    case PTX_OP_FMA: v = intrin(F, "llvm.fma", x, 3); break;
    case PTX_OP_NEG: v = LLVMBuildFNeg(b, x[0], ""); break;
    case PTX_OP_ABS: v = intrin(F, "llvm.fabs", x, 1); break;
    case PTX_OP_MIN: v = intrin(F, "llvm.minnum", x, 2); break;
    default: v = intrin(F, "llvm.maxnum", x, 2); break;
    }
    if (in->flags & PTX_FLAG_BIT(SAT)) { /* clamp to [0, 1], NaN -> 0 */
        LLVMValueRef lo = intrin(F, "llvm.maxnum", (LLVMValueRef[]){v, LLVMConstNull(wide)}, 2);
        v = intrin(F, "llvm.minnum", (LLVMValueRef[]){lo, splat_n(LLVMConstReal(L->f32, 1.0), n)}, 2);
    }
    v = narrow(F, v, t, n);
    ptx_type st = is_pair(t) ? PTX_TYPE_B32 : PTX_TYPE_B16;
    v = LLVMBuildBitCast(b, v, vec_of(storage_int(L, st)), "");
    write_reg(F, &in->opds[0], v, st, false, mask);
    return true;
}

/* f64 -> f32 rounded to odd: exact results stay, others become the nearer
 * f32 toward zero with the last bit set.  Rounding that to f16/bf16 to
 * nearest is then correct (f32 has more than two extra bits). */
static LLVMValueRef f64_to_f32_odd(fn *F, LLVMValueRef d)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef f = LLVMBuildFPTrunc(b, d, vec_of(L->f32), "");
    LLVMValueRef back = LLVMBuildFPExt(b, f, vec_of(L->f64), "");
    LLVMValueRef bits = LLVMBuildBitCast(b, f, vec_of(L->i32), "");
    LLVMValueRef abs_f = call_intrinsic(L, "llvm.fabs", &(LLVMTypeRef){vec_of(L->f64)}, 1, &back, 1);
    LLVMValueRef abs_d = call_intrinsic(L, "llvm.fabs", &(LLVMTypeRef){vec_of(L->f64)}, 1, &d, 1);
    LLVMValueRef inexact = LLVMBuildFCmp(b, LLVMRealONE, back, d, "");
    LLVMValueRef above = LLVMBuildFCmp(b, LLVMRealOGT, abs_f, abs_d, ""); /* rounded away from 0 */
    LLVMValueRef toward0 = LLVMBuildSelect(b, above, LLVMBuildSub(b, bits, splat(L, const_i32(L, 1)), ""), bits, "");
    LLVMValueRef odd = LLVMBuildOr(b, toward0, splat(L, const_i32(L, 1)), "");
    bits = LLVMBuildSelect(b, inexact, odd, bits, "");
    return LLVMBuildBitCast(b, bits, vec_of(L->f32), "");
}

/* cvt to or from .f16/.bf16: through f32 (exact for halves), rounding to
 * nearest even; f64 and 32-bit integers reach f32 rounded to odd. */
bool lower_half_cvt(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    ptx_type dt = (ptx_type)in->types[0], st = (ptx_type)in->types[1];
    uint8_t r = in->mod[PTX_CAT_ROUND];
    bool to_half = dt == PTX_TYPE_F16 || dt == PTX_TYPE_BF16;
    char scls = ptx_type_class(st);
    if (in->flags & ~PTX_FLAG_BIT(SAT) & ~PTX_FLAG_BIT(FTZ))
        goto unsupported;
    bool directed = r == PTX_ROUND_RZ || r == PTX_ROUND_RM || r == PTX_ROUND_RP;
    if (to_half) {
        if ((r && r != PTX_ROUND_RN && !directed) || (scls != 'F' && ptx_type_size(st) > 4))
            goto unsupported;
        LLVMValueRef f;
        if (st == PTX_TYPE_F32) {
            f = read_opd(F, &in->opds[1], st, false);
        } else if (st == PTX_TYPE_F16 || st == PTX_TYPE_BF16) {
            f = read_wide(F, &in->opds[1], st, W);
        } else {
            LLVMValueRef d = st == PTX_TYPE_F64 ? read_opd(F, &in->opds[1], st, false)
                           : scls == 'S' ? LLVMBuildSIToFP(b, read_opd(F, &in->opds[1], st, true), vec_of(L->f64), "")
                                         : LLVMBuildUIToFP(b, read_opd(F, &in->opds[1], st, false), vec_of(L->f64), "");
            f = f64_to_f32_odd(F, d);
        }
        if (in->flags & PTX_FLAG_BIT(SAT)) {
            LLVMValueRef lo = call_intrinsic(L, "llvm.maxnum", &(LLVMTypeRef){vec_of(L->f32)}, 1,
                                             (LLVMValueRef[]){f, LLVMConstNull(vec_of(L->f32))}, 2);
            f = call_intrinsic(L, "llvm.minnum", &(LLVMTypeRef){vec_of(L->f32)}, 1,
                               (LLVMValueRef[]){lo, splat(L, LLVMConstReal(L->f32, 1.0))}, 2);
        }
        LLVMValueRef h = narrow(F, f, dt, W);
        if (directed) { /* compare the exact source with the nearest half */
            LLVMValueRef src = st == PTX_TYPE_F32 || st == PTX_TYPE_F16 || st == PTX_TYPE_BF16 ? f
                             : st == PTX_TYPE_F64 ? read_opd(F, &in->opds[1], st, false)
                             : scls == 'S' ? LLVMBuildSIToFP(b, read_opd(F, &in->opds[1], st, true), vec_of(L->f64), "")
                                           : LLVMBuildUIToFP(b, read_opd(F, &in->opds[1], st, false), vec_of(L->f64), "");
            LLVMValueRef back = read_wide_bits(F, h, dt);
            if (LLVMGetElementType(LLVMTypeOf(src)) == L->f64)
                back = LLVMBuildFPExt(b, back, vec_of(L->f64), "");
            LLVMValueRef pos = LLVMBuildFCmp(b, LLVMRealOGT, src, back, "");
            LLVMValueRef neg = LLVMBuildFCmp(b, LLVMRealOLT, src, back, "");
            h = step_bits(F, h, back, pos, neg, r);
        }
        write_reg(F, &in->opds[0], h, PTX_TYPE_B16, false, mask);
        return true;
    }
    /* from a half: widen exactly, then the f32 conversion rules */
    LLVMValueRef f = read_wide(F, &in->opds[1], st, W);
    if (dt == PTX_TYPE_F32 || dt == PTX_TYPE_F64) {
        if (r && r != PTX_ROUND_RN)
            goto unsupported;
        LLVMValueRef v = dt == PTX_TYPE_F64 ? LLVMBuildFPExt(b, f, vec_of(L->f64), "") : f;
        write_reg(F, &in->opds[0], v, dt, false, mask);
        return true;
    }
    const char *rf = r == PTX_ROUND_RNI ? "llvm.roundeven" : r == PTX_ROUND_RMI ? "llvm.floor"
                   : r == PTX_ROUND_RPI ? "llvm.ceil" : "llvm.trunc";
    f = call_intrinsic(L, rf, &(LLVMTypeRef){vec_of(L->f32)}, 1, &f, 1);
    LLVMTypeRef tys[2] = {vec_of(storage_int(L, dt)), vec_of(L->f32)};
    LLVMValueRef v = call_intrinsic(L, ptx_type_class(dt) == 'S' ? "llvm.fptosi.sat" : "llvm.fptoui.sat",
                                    tys, 2, &f, 1);
    write_reg(F, &in->opds[0], v, dt, ptx_type_class(dt) == 'S', mask);
    return true;
unsupported:
    lw_error(L, in->loc, "cvt.%s.%s with these modifiers is not supported yet", ptx_type_name(dt),
             ptx_type_name(st));
    return true;
}
