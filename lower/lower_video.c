/* lower_video.c - the scalar video instructions: vadd, vsub, vabsdiff,
 * vmin, vmax, vshl, vshr, vset and vmad.
 *
 * Sources a and b are the selected byte, half word or word, extended by
 * their type to 64 bits (the ISA's .s33); the primary result is exact in
 * 64 bits (its .s34), vshl's wrapped to 34 bits.  Then .sat or the 32-bit
 * reading by dtype, the secondary operation (.add/.min/.max with c) or the
 * merge into c, as an H200 computes them where it departs from the ISA
 * text (tests/gpu/results/video; video_result says how).  vmad follows its
 * own pseudo-code in 128 bits. */
#include "lower_internal.h"

static LLVMValueRef k64(fn *F, uint64_t v) { return splat(F->L, const_i64(F->L, v)); }
static LLVMValueRef k32(fn *F, uint32_t v) { return splat(F->L, const_i32(F->L, v)); }
static bool is_signed(ptx_type t) { return ptx_type_class(t) == 'S'; }

static LLVMValueRef ext64(fn *F, LLVMValueRef x, bool sign)
{
    LLVMBuilderRef b = F->L->b;
    LLVMTypeRef t = vec_of(F->L->i64);
    return sign ? LLVMBuildSExt(b, x, t, "") : LLVMBuildZExt(b, x, t, "");
}

/* Byte k (.b0-.b3) or half word k (.h0/.h1) of a selector; width 32 for none. */
static unsigned sel_width(uint8_t sel) { return sel == PTX_VSEL_NONE ? 32 : sel <= PTX_VSEL_B3 ? 8 : 16; }
static unsigned sel_index(uint8_t sel) { return sel == PTX_VSEL_NONE ? 0 : sel <= PTX_VSEL_B3 ? sel - PTX_VSEL_B0 : sel - PTX_VSEL_H0; }

/* partSelectSignExtend(x, type, sel), as a 64-bit value. */
static LLVMValueRef video_src(fn *F, const ptx_operand *o, ptx_type t)
{
    LLVMValueRef x = read_opd(F, o, PTX_TYPE_B32, false);
    if (o->vsel)
        x = int_part(F, x, sel_index(o->vsel), sel_width(o->vsel), is_signed(t));
    return ext64(F, x, is_signed(t));
}

static LLVMValueRef minmax(fn *F, bool max, LLVMValueRef a, LLVMValueRef b)
{
    LLVMTypeRef t = LLVMTypeOf(a);
    return call_intrinsic(F->L, max ? "llvm.smax" : "llvm.smin", &t, 1, (LLVMValueRef[]){a, b}, 2);
}

/* vshl/vshr: b is a .u32 amount, clamped to 32 or wrapped to 5 bits.
 * The left shift keeps 64 bits; video_op wraps it to the GPU's 34. */
static LLVMValueRef video_shift(fn *F, const ptx_instr *in, LLVMValueRef a, LLVMValueRef n)
{
    LLVMBuilderRef b = F->L->b;
    LLVMTypeRef t = LLVMTypeOf(a);
    if (in->flags & PTX_FLAG_BIT(WRAP))
        n = LLVMBuildAnd(b, n, k64(F, 31), "");
    else
        n = call_intrinsic(F->L, "llvm.umin", &t, 1, (LLVMValueRef[]){n, k64(F, 32)}, 2);
    return in->op == PTX_OP_VSHR ? LLVMBuildAShr(b, a, n, "") : LLVMBuildShl(b, a, n, "");
}

/* The primary operation on the extended a and b. */
static LLVMValueRef video_primary(fn *F, const ptx_instr *in, LLVMValueRef a, LLVMValueRef x)
{
    LLVMBuilderRef b = F->L->b;
    switch (in->op) {
    case PTX_OP_VADD: return LLVMBuildAdd(b, a, x, "");
    case PTX_OP_VSUB: return LLVMBuildSub(b, a, x, "");
    case PTX_OP_VABSDIFF: {
        LLVMTypeRef t = LLVMTypeOf(a);
        return call_intrinsic(F->L, "llvm.abs", &t, 1,
                              (LLVMValueRef[]){LLVMBuildSub(b, a, x, ""), LLVMConstInt(F->L->i1, 0, false)}, 2);
    }
    case PTX_OP_VMIN: return minmax(F, false, a, x);
    case PTX_OP_VMAX: return minmax(F, true, a, x);
    case PTX_OP_VSHL: case PTX_OP_VSHR: return video_shift(F, in, a, x);
    default: { /* vset: a and b are extended to 64 bits, so a signed compare is exact */
        LLVMIntPredicate p;
        int_predicate(in->mod[PTX_CAT_CMP], true, &p); /* the checker allows .eq .. .ge */
        return ext64(F, LLVMBuildICmp(b, p, a, x, ""), false);
    }
    }
}

/* The low 32 bits of r, extended by `sign` to 64. */
static LLVMValueRef low32(fn *F, LLVMValueRef r, bool sign)
{
    return ext64(F, LLVMBuildTrunc(F->L->b, r, vec_of(F->L->i32), ""), sign);
}

/* The low `bits` bits of r, sign-extended. */
static LLVMValueRef wrap_signed(fn *F, LLVMValueRef r, unsigned bits)
{
    LLVMBuilderRef b = F->L->b;
    return LLVMBuildAShr(b, LLVMBuildShl(b, r, k64(F, 64 - bits), ""), k64(F, 64 - bits), "");
}

static bool is_minmax(uint8_t op2) { return op2 == PTX_RED_MIN || op2 == PTX_RED_MAX; }

/* vshl: .sat (whole word or field) clamps the shifted value wrapped to 34
 * bits to dtype's 32-bit range; .min/.max compare its 64 bits (read by
 * dtype's sign: video_op); otherwise 32 bits. */
static LLVMValueRef vshl_result(fn *F, const ptx_instr *in, LLVMValueRef r, bool ds)
{
    if (in->flags & PTX_FLAG_BIT(SAT)) {
        LLVMValueRef w = wrap_signed(F, r, 34);
        uint64_t lo = ds ? (uint64_t)INT32_MIN : 0, hi = ds ? INT32_MAX : UINT32_MAX;
        return minmax(F, false, minmax(F, true, w, k64(F, lo)), k64(F, hi));
    }
    return is_minmax(in->mod[PTX_CAT_RED]) ? r : low32(F, r, ds);
}

/* The result before the secondary operation, as the H200 computes it (but
 * vshl: vshl_result).  .sat on a whole word: signed clamps to s32;
 * unsigned clamps a negative result to 0 and keeps an overflow (it wraps).
 * .sat on a byte or half word: vshr truncates a signed result and clamps a
 * negative unsigned one to 0; the others clamp the result, read as
 * unsigned 64 bits, to the field's maximum (a negative result saturates
 * high).  Without .sat the 32 bits are read by dtype's sign, but
 * vabsdiff/vmin/vmax keep the exact result for .min/.max/.add (33 bits
 * when unsigned), vshr its 32 bits for .min/.max. */
static LLVMValueRef video_result(fn *F, const ptx_instr *in, LLVMValueRef r, bool ds)
{
    LLVMBuilderRef b = F->L->b;
    uint8_t dsel = in->opds[0].vsel, op2 = in->mod[PTX_CAT_RED];
    LLVMTypeRef t64 = vec_of(F->L->i64);
    if (in->flags & PTX_FLAG_BIT(SAT)) {
        if (dsel == PTX_VSEL_NONE && ds)
            return minmax(F, false, minmax(F, true, r, k64(F, (uint64_t)INT32_MIN)), k64(F, INT32_MAX));
        if (dsel == PTX_VSEL_NONE || (in->op == PTX_OP_VSHR && !ds))
            return minmax(F, true, r, k64(F, 0));
        if (in->op == PTX_OP_VSHR)
            return low32(F, r, false);
        unsigned w = sel_width(dsel);
        uint64_t top = ds ? (1ull << (w - 1)) - 1 : (1ull << w) - 1;
        return call_intrinsic(F->L, "llvm.umin", &t64, 1, (LLVMValueRef[]){r, k64(F, top)}, 2);
    }
    bool exact = op2 && (in->op == PTX_OP_VABSDIFF || in->op == PTX_OP_VMIN || in->op == PTX_OP_VMAX);
    if (exact)
        return ds ? r : LLVMBuildAnd(b, r, k64(F, (1ull << 33) - 1), "");
    if (in->op == PTX_OP_VSHR && is_minmax(op2))
        return ds ? r : low32(F, r, false);
    return low32(F, r, ds);
}

/* optMerge: the low byte/half of r into the selected field of c; but .h1
 * takes r's own high half (as the GPU does). */
static LLVMValueRef video_merge(fn *F, uint8_t sel, LLVMValueRef r, LLVMValueRef c)
{
    LLVMBuilderRef b = F->L->b;
    unsigned w = sel_width(sel), sh = sel == PTX_VSEL_H1 ? 0 : w * sel_index(sel);
    uint32_t field = ((1u << w) - 1) << (w * sel_index(sel));
    LLVMValueRef lo = LLVMBuildAnd(b, LLVMBuildShl(b, r, k32(F, sh), ""), k32(F, field), "");
    return LLVMBuildOr(b, lo, LLVMBuildAnd(b, c, k32(F, ~field), ""), "");
}

static LLVMValueRef video_op(fn *F, const ptx_instr *in)
{
    LLVMBuilderRef b = F->L->b;
    bool set = in->op == PTX_OP_VSET;
    ptx_type at = (ptx_type)in->types[set ? 0 : 1], bt = (ptx_type)in->types[set ? 1 : 2];
    bool ds = !set && is_signed((ptx_type)in->types[0]); /* vset's 0/1 is unsigned */
    LLVMValueRef r = video_primary(F, in, video_src(F, &in->opds[1], at), video_src(F, &in->opds[2], bt));
    if (in->op == PTX_OP_VSHL)
        r = vshl_result(F, in, r, ds);
    else if (!set)
        r = video_result(F, in, r, ds);
    uint8_t op2 = in->mod[PTX_CAT_RED];
    if (in->nopds < 4 || (!op2 && !in->opds[0].vsel))
        return LLVMBuildTrunc(b, r, vec_of(F->L->i32), "");
    LLVMValueRef c = read_opd(F, &in->opds[3], PTX_TYPE_B32, false);
    if (!op2)
        return video_merge(F, in->opds[0].vsel, LLVMBuildTrunc(b, r, vec_of(F->L->i32), ""), c);
    /* an unsigned vadd/vsub result (vshr: for .min; vshl: under .sat) with
     * bit 31 set compares above every c: its 32 bits sign-extended, read
     * as 33 */
    bool add = in->op == PTX_OP_VADD || in->op == PTX_OP_VSUB, sat = in->flags & PTX_FLAG_BIT(SAT);
    if (!set && !ds && is_minmax(op2) &&
        (add || (in->op == PTX_OP_VSHR && op2 == PTX_RED_MIN) || (in->op == PTX_OP_VSHL && sat)))
        r = LLVMBuildAnd(b, low32(F, r, true), k64(F, (1ull << 33) - 1), "");
    LLVMValueRef c64 = ext64(F, c, set ? is_signed(at) : ds); /* vset's c by atype */
    /* vshl's unsigned 64 bits compare unsigned; every other value here fits 34 bits */
    bool unsigned_cmp = in->op == PTX_OP_VSHL && !ds && !sat;
    LLVMTypeRef t64 = vec_of(F->L->i64);
    if (op2 == PTX_RED_ADD)
        r = LLVMBuildAdd(b, r, c64, "");
    else if (unsigned_cmp)
        r = call_intrinsic(F->L, op2 == PTX_RED_MAX ? "llvm.umax" : "llvm.umin", &t64, 1,
                           (LLVMValueRef[]){r, c64}, 2);
    else
        r = minmax(F, op2 == PTX_RED_MAX, r, c64);
    return LLVMBuildTrunc(b, r, vec_of(F->L->i32), "");
}

/* vmad: (a*b) + c in 128 bits; a negated product is ~(a*b) + 1, a negated
 * c is ~c + 1 (extended after the complement), .po adds 1; then .shr7 or
 * .shr15, the low 64 bits, and .sat clamps those to the final type.  As on
 * the H200: a whole-word a or b is signed whatever its type, and c is
 * always sign-extended. */
static LLVMValueRef video_mad(fn *F, const ptx_instr *in)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    const ptx_operand *o = in->opds;
    LLVMTypeRef t128 = vec_of(LLVMInt128TypeInContext(L->ctx)), t64 = vec_of(L->i64);
    bool negp = o[1].minus != o[2].minus, negc = o[3].minus;
    bool sfinal = is_signed((ptx_type)in->types[1]) || is_signed((ptx_type)in->types[2]) || negp || negc;
    ptx_type ta = o[1].vsel ? (ptx_type)in->types[1] : PTX_TYPE_S32, tb = o[2].vsel ? (ptx_type)in->types[2] : PTX_TYPE_S32;
    LLVMValueRef a = LLVMBuildSExt(b, video_src(F, &o[1], ta), t128, "");
    LLVMValueRef x = LLVMBuildSExt(b, video_src(F, &o[2], tb), t128, "");
    LLVMValueRef p = LLVMBuildMul(b, a, x, "");
    LLVMValueRef c = read_opd(F, &o[3], PTX_TYPE_B32, false);
    bool lsb = in->mod[PTX_CAT_MODE] == PTX_MODE_PO || negp || negc;
    if (in->mod[PTX_CAT_MODE] != PTX_MODE_PO && negp)
        p = LLVMBuildNot(b, p, "");
    else if (in->mod[PTX_CAT_MODE] != PTX_MODE_PO && negc)
        c = LLVMBuildNot(b, c, "");
    c = LLVMBuildSExt(b, c, t128, "");
    p = LLVMBuildAdd(b, p, c, "");
    if (lsb)
        p = LLVMBuildAdd(b, p, splat(L, LLVMConstInt(LLVMInt128TypeInContext(L->ctx), 1, false)), "");
    if (in->mod[PTX_CAT_SCALE])
        p = LLVMBuildAShr(b, p, splat(L, LLVMConstInt(LLVMInt128TypeInContext(L->ctx),
                                                      in->mod[PTX_CAT_SCALE] == PTX_SCALE_SHR7 ? 7 : 15, false)), "");
    LLVMValueRef r = LLVMBuildTrunc(b, p, t64, "");
    if (in->flags & PTX_FLAG_BIT(SAT)) {
        if (sfinal)
            r = minmax(F, false, minmax(F, true, r, k64(F, (uint64_t)INT32_MIN)), k64(F, INT32_MAX));
        else
            r = call_intrinsic(L, "llvm.umin", &t64, 1, (LLVMValueRef[]){r, k64(F, UINT32_MAX)}, 2);
    }
    return LLVMBuildTrunc(b, r, vec_of(L->i32), "");
}

bool lower_video(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    LLVMValueRef r;
    switch (in->op) {
    case PTX_OP_VADD: case PTX_OP_VSUB: case PTX_OP_VABSDIFF: case PTX_OP_VMIN: case PTX_OP_VMAX:
    case PTX_OP_VSHL: case PTX_OP_VSHR: case PTX_OP_VSET:
        r = video_op(F, in);
        break;
    case PTX_OP_VMAD: r = video_mad(F, in); break;
    default: return false;
    }
    write_reg(F, &in->opds[0], r, PTX_TYPE_B32, false, mask); /* any merge is in r */
    return true;
}
