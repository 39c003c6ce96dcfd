/* lower_arith.c - integer arithmetic, logic, shifts, compares, selects
 * and mov, on <32 x T> vectors; float arithmetic is in lower_float.c and
 * cvt in lower_cvt.c.  Where the CPU differs from the ISA the code says
 * so: division never traps, shifts clamp. */
#include "lower_internal.h"

#include <string.h>

static char cls(ptx_type t) { return ptx_type_class(t); }
static bool is_f(ptx_type t) { return cls(t) == 'F'; }
static bool is_signed(ptx_type t) { return cls(t) == 'S'; }

static LLVMValueRef opd(fn *F, const ptx_instr *in, uint32_t i, ptx_type t)
{
    return read_opd(F, &in->opds[i], t, is_signed(t));
}

static void dst(fn *F, const ptx_instr *in, LLVMValueRef v, ptx_type t, LLVMValueRef mask)
{
    write_reg(F, &in->opds[0], v, t, is_signed(t), mask);
}

static LLVMValueRef intrin1(fn *F, const char *name, LLVMValueRef a)
{
    LLVMTypeRef t = LLVMTypeOf(a);
    return call_intrinsic(F->L, name, &t, 1, &a, 1);
}

static LLVMValueRef intrin2(fn *F, const char *name, LLVMValueRef a, LLVMValueRef b)
{
    LLVMTypeRef t = LLVMTypeOf(a);
    LLVMValueRef args[2] = {a, b};
    return call_intrinsic(F->L, name, &t, 1, args, 2);
}

static LLVMValueRef vconst(fn *F, LLVMTypeRef scalar, uint64_t v)
{
    return splat(F->L, LLVMConstInt(scalar, v, false));
}

static LLVMValueRef vreal(fn *F, LLVMTypeRef scalar, double d)
{
    return splat(F->L, LLVMConstReal(scalar, d));
}

/* .ftz: subnormal f32 inputs and results become zero of the same sign. */
static LLVMValueRef ftz(fn *F, const ptx_instr *in, LLVMValueRef v, ptx_type t)
{
    lw *L = F->L;
    if (!(in->flags & PTX_FLAG_BIT(FTZ)) || t != PTX_TYPE_F32)
        return v;
    LLVMValueRef a = intrin1(F, "llvm.fabs", v);
    LLVMValueRef tiny = LLVMBuildFCmp(L->b, LLVMRealOLT, a, vreal(F, L->f32, 0x1p-126), "");
    LLVMValueRef zero = intrin2(F, "llvm.copysign", vreal(F, L->f32, 0.0), v);
    return LLVMBuildSelect(L->b, tiny, zero, v, "");
}

static LLVMValueRef fopd(fn *F, const ptx_instr *in, uint32_t i, ptx_type t)
{
    return ftz(F, in, opd(F, in, i, t), t);
}

/* ---- integer helpers ---- */

/* High half of the double-width product. */
static LLVMValueRef mul_hi(fn *F, LLVMValueRef a, LLVMValueRef b, ptx_type t)
{
    lw *L = F->L;
    unsigned bits = 8 * ptx_type_size(t);
    LLVMTypeRef wide = vec_of(LLVMIntTypeInContext(L->ctx, 2 * bits));
    LLVMValueRef wa = is_signed(t) ? LLVMBuildSExt(L->b, a, wide, "") : LLVMBuildZExt(L->b, a, wide, "");
    LLVMValueRef wb = is_signed(t) ? LLVMBuildSExt(L->b, b, wide, "") : LLVMBuildZExt(L->b, b, wide, "");
    LLVMValueRef p = LLVMBuildMul(L->b, wa, wb, "");
    p = LLVMBuildLShr(L->b, p, vconst(F, LLVMIntTypeInContext(L->ctx, 2 * bits), bits), "");
    return LLVMBuildTrunc(L->b, p, LLVMTypeOf(a), "");
}

static LLVMValueRef widen(fn *F, LLVMValueRef v, ptx_type t)
{
    lw *L = F->L;
    LLVMTypeRef wide = vec_of(LLVMIntTypeInContext(L->ctx, 16 * ptx_type_size(t)));
    return is_signed(t) ? LLVMBuildSExt(L->b, v, wide, "") : LLVMBuildZExt(L->b, v, wide, "");
}

static ptx_type wide_type(ptx_type t)
{
    switch (ptx_type_size(t)) {
    case 1: return is_signed(t) ? PTX_TYPE_S16 : PTX_TYPE_U16;
    case 2: return is_signed(t) ? PTX_TYPE_S32 : PTX_TYPE_U32;
    default: return is_signed(t) ? PTX_TYPE_S64 : PTX_TYPE_U64;
    }
}

/* Integer product per .lo/.hi/.wide; *rt receives the result type. */
static LLVMValueRef int_mul(fn *F, const ptx_instr *in, LLVMValueRef a, LLVMValueRef b,
                            ptx_type t, ptx_type *rt)
{
    *rt = t;
    switch (in->mod[PTX_CAT_WIDTH]) {
    case PTX_WIDTH_HI: return mul_hi(F, a, b, t);
    case PTX_WIDTH_WIDE:
        *rt = wide_type(t);
        return LLVMBuildMul(F->L->b, widen(F, a, t), widen(F, b, t), "");
    default: return LLVMBuildMul(F->L->b, a, b, "");
    }
}

/* x86 division traps on zero and INT_MIN / -1; PTX does not.  A zero
 * divisor gives all ones for div and the dividend for rem (what NVIDIA
 * GPUs return); INT_MIN / -1 wraps. */
static LLVMValueRef int_divrem(fn *F, LLVMValueRef a, LLVMValueRef b, ptx_type t, bool rem)
{
    lw *L = F->L;
    LLVMTypeRef st = storage_int(L, t);
    LLVMValueRef zero = LLVMConstNull(vec_of(st)), one = vconst(F, st, 1);
    LLVMValueRef bz = LLVMBuildICmp(L->b, LLVMIntEQ, b, zero, "");
    LLVMValueRef unsafe = bz;
    if (is_signed(t)) {
        unsigned bits = 8 * ptx_type_size(t);
        LLVMValueRef min = vconst(F, st, 1ull << (bits - 1));
        LLVMValueRef ovf = LLVMBuildAnd(L->b, LLVMBuildICmp(L->b, LLVMIntEQ, a, min, ""),
                                        LLVMBuildICmp(L->b, LLVMIntEQ, b, LLVMConstAllOnes(vec_of(st)), ""), "");
        unsafe = LLVMBuildOr(L->b, bz, ovf, "");
    }
    LLVMValueRef safe_b = LLVMBuildSelect(L->b, unsafe, one, b, "");
    LLVMValueRef r = rem ? (is_signed(t) ? LLVMBuildSRem(L->b, a, safe_b, "") : LLVMBuildURem(L->b, a, safe_b, ""))
                         : (is_signed(t) ? LLVMBuildSDiv(L->b, a, safe_b, "") : LLVMBuildUDiv(L->b, a, safe_b, ""));
    /* a / 1 == a already gives INT_MIN for the overflow case; rem gives 0.
     * By zero, div and rem give all ones on a GPU (an H200 shows it). */
    LLVMValueRef ones = LLVMConstAllOnes(vec_of(st));
    if (is_signed(t) && rem)
        r = LLVMBuildSelect(L->b, unsafe, LLVMBuildSelect(L->b, bz, ones, zero, ""), r, "");
    else
        r = LLVMBuildSelect(L->b, bz, ones, r, "");
    return r;
}

/* Shifts clamp: shl/shr.u by >= width give 0, shr.s fills with the sign. */
static LLVMValueRef shift(fn *F, const ptx_instr *in, LLVMValueRef a, LLVMValueRef n32, ptx_type t)
{
    lw *L = F->L;
    LLVMTypeRef st = storage_int(L, t);
    unsigned bits = 8 * ptx_type_size(t);
    LLVMValueRef big = LLVMBuildICmp(L->b, LLVMIntUGE, n32, vconst(F, L->i32, bits), "");
    LLVMValueRef n = LLVMBuildSelect(L->b, big, vconst(F, L->i32, bits - 1), n32, "");
    if (bits < 32)
        n = LLVMBuildTrunc(L->b, n, vec_of(st), "");
    else if (bits > 32)
        n = LLVMBuildZExt(L->b, n, vec_of(st), "");
    if (in->op == PTX_OP_SHL)
        return LLVMBuildSelect(L->b, big, LLVMConstNull(vec_of(st)), LLVMBuildShl(L->b, a, n, ""), "");
    if (is_signed(t))
        return LLVMBuildAShr(L->b, a, n, "");
    return LLVMBuildSelect(L->b, big, LLVMConstNull(vec_of(st)), LLVMBuildLShr(L->b, a, n, ""), "");
}

/* ---- compares ---- */

/* Float comparison predicates (the u forms are true on NaN). */
LLVMValueRef lower_fcompare(fn *F, const ptx_instr *in, LLVMValueRef a, LLVMValueRef b)
{
    lw *L = F->L;
    LLVMRealPredicate p;
    switch (in->mod[PTX_CAT_CMP]) {
    case PTX_CMP_EQ: p = LLVMRealOEQ; break;
    case PTX_CMP_NE: p = LLVMRealONE; break;
    case PTX_CMP_LT: p = LLVMRealOLT; break;
    case PTX_CMP_LE: p = LLVMRealOLE; break;
    case PTX_CMP_GT: p = LLVMRealOGT; break;
    case PTX_CMP_GE: p = LLVMRealOGE; break;
    case PTX_CMP_EQU: p = LLVMRealUEQ; break;
    case PTX_CMP_NEU: p = LLVMRealUNE; break;
    case PTX_CMP_LTU: p = LLVMRealULT; break;
    case PTX_CMP_LEU: p = LLVMRealULE; break;
    case PTX_CMP_GTU: p = LLVMRealUGT; break;
    case PTX_CMP_GEU: p = LLVMRealUGE; break;
    case PTX_CMP_NUM: p = LLVMRealORD; break;
    case PTX_CMP_NAN: p = LLVMRealUNO; break;
    default: lw_error(L, in->loc, "comparison not valid for floats"); p = LLVMRealOEQ;
    }
    return LLVMBuildFCmp(L->b, p, a, b, "");
}

bool int_predicate(uint8_t cmp, bool sign, LLVMIntPredicate *p)
{
    switch (cmp) {
    case PTX_CMP_EQ: *p = LLVMIntEQ; return true;
    case PTX_CMP_NE: *p = LLVMIntNE; return true;
    case PTX_CMP_LT: *p = sign ? LLVMIntSLT : LLVMIntULT; return true;
    case PTX_CMP_LE: *p = sign ? LLVMIntSLE : LLVMIntULE; return true;
    case PTX_CMP_GT: *p = sign ? LLVMIntSGT : LLVMIntUGT; return true;
    case PTX_CMP_GE: *p = sign ? LLVMIntSGE : LLVMIntUGE; return true;
    case PTX_CMP_LO: *p = LLVMIntULT; return true;
    case PTX_CMP_LS: *p = LLVMIntULE; return true;
    case PTX_CMP_HI: *p = LLVMIntUGT; return true;
    case PTX_CMP_HS: *p = LLVMIntUGE; return true;
    default: *p = LLVMIntEQ; return false;
    }
}

static LLVMValueRef compare(fn *F, const ptx_instr *in, LLVMValueRef a, LLVMValueRef b, ptx_type t)
{
    lw *L = F->L;
    if (is_f(t))
        return lower_fcompare(F, in, a, b);
    LLVMIntPredicate p;
    if (!int_predicate(in->mod[PTX_CAT_CMP], is_signed(t), &p))
        lw_error(L, in->loc, "comparison not valid for integers");
    return LLVMBuildICmp(L->b, p, a, b, "");
}

LLVMValueRef lower_bool_combine(fn *F, const ptx_instr *in, LLVMValueRef r, LLVMValueRef c)
{
    lw *L = F->L;
    switch (in->mod[PTX_CAT_BOOL]) {
    case PTX_BOOL_AND: return LLVMBuildAnd(L->b, r, c, "");
    case PTX_BOOL_OR: return LLVMBuildOr(L->b, r, c, "");
    case PTX_BOOL_XOR: return LLVMBuildXor(L->b, r, c, "");
    default: return r;
    }
}

static void lower_setp(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    lw *L = F->L;
    ptx_type t = (ptx_type)in->types[0];
    LLVMValueRef r = compare(F, in, fopd(F, in, 1, t), fopd(F, in, 2, t), t);
    LLVMValueRef c = in->nopds > 3 ? opd(F, in, 3, PTX_TYPE_PRED) : NULL;
    LLVMValueRef p = c ? lower_bool_combine(F, in, r, c) : r;
    const ptx_operand *d = &in->opds[0];
    if (d->kind == PTX_OPD_PAIR) {
        LLVMValueRef nr = LLVMBuildNot(L->b, r, "");
        write_reg(F, &d->elems[0], p, PTX_TYPE_PRED, false, mask);
        write_reg(F, &d->elems[1], c ? lower_bool_combine(F, in, nr, c) : nr, PTX_TYPE_PRED, false, mask);
    } else {
        write_reg(F, d, p, PTX_TYPE_PRED, false, mask);
    }
}

/* set: like setp, but the destination gets all ones (1.0f for f32). */
static void lower_set(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    lw *L = F->L;
    ptx_type dt = (ptx_type)in->types[0], st = (ptx_type)in->types[1];
    LLVMValueRef r = compare(F, in, fopd(F, in, 1, st), fopd(F, in, 2, st), st);
    if (in->nopds > 3)
        r = lower_bool_combine(F, in, r, opd(F, in, 3, PTX_TYPE_PRED));
    LLVMTypeRef dst_t = scalar_type(L, dt);
    LLVMValueRef one = is_f(dt) ? vreal(F, dst_t, 1.0) : LLVMConstAllOnes(vec_of(dst_t));
    dst(F, in, LLVMBuildSelect(L->b, r, one, LLVMConstNull(vec_of(dst_t)), ""), dt, mask);
}

/* ---- families ---- */

/* Carry chains: add.cc/addc/sub.cc/subc/mad.cc/madc share the warp's
 * carry flag, one bit per lane.  As on the hardware, subtraction is
 * a + ~b + CF: sub.cc leaves CF = 1 when nothing was borrowed and subc
 * borrows when CF = 0.  Pure sub chains read the same either way; nvcc's
 * own 128-bit division reads sub.cc's flag with addc. */
static LLVMValueRef carry_slot(fn *F)
{
    if (!F->carry) {
        F->carry = entry_alloca(F, vec_of(F->L->i1), "cc");
        LLVMBuilderRef b = LLVMCreateBuilderInContext(F->L->ctx);
        LLVMPositionBuilderBefore(b, F->alloca_ip);
        LLVMBuildStore(b, LLVMConstNull(vec_of(F->L->i1)), F->carry);
        LLVMDisposeBuilder(b);
    }
    return F->carry;
}

/* a + b + CF (or a - b - !CF); the carry out (for subtraction: no borrow)
 * goes to the flag under the mask when the instruction has .cc. */
static LLVMValueRef add_carry(fn *F, const ptx_instr *in, LLVMValueRef a, LLVMValueRef b,
                              bool sub, bool cin, LLVMValueRef mask)
{
    lw *L = F->L;
    LLVMBuilderRef bd = L->b;
    LLVMTypeRef vt = LLVMTypeOf(a);
    LLVMValueRef c = cin ? LLVMBuildLoad2(bd, vec_of(L->i1), carry_slot(F), "") : NULL;
    LLVMValueRef c1 = c ? LLVMBuildZExt(bd, c, vt, "") : LLVMConstNull(vt);
    LLVMValueRef r, out;
    if (!sub) {
        LLVMValueRef s1 = LLVMBuildAdd(bd, a, b, "");
        r = LLVMBuildAdd(bd, s1, c1, "");
        out = LLVMBuildOr(bd, LLVMBuildICmp(bd, LLVMIntULT, s1, a, ""),
                          LLVMBuildICmp(bd, LLVMIntULT, r, s1, ""), "");
    } else {
        LLVMValueRef bin = c ? LLVMBuildZExt(bd, LLVMBuildNot(bd, c, ""), vt, "") : LLVMConstNull(vt);
        LLVMValueRef d1 = LLVMBuildSub(bd, a, b, "");
        r = LLVMBuildSub(bd, d1, bin, "");
        out = LLVMBuildNot(bd, LLVMBuildOr(bd, LLVMBuildICmp(bd, LLVMIntULT, a, b, ""),
                                           LLVMBuildICmp(bd, LLVMIntULT, d1, bin, ""), ""), "");
    }
    if (in->flags & PTX_FLAG_BIT(CC)) {
        LLVMValueRef old = LLVMBuildLoad2(bd, vec_of(L->i1), carry_slot(F), "");
        LLVMBuildStore(bd, LLVMBuildSelect(bd, mask, out, old, ""), carry_slot(F));
    }
    return r;
}

/* .sat and .relu on integers exist in few forms (add/sub.sat.s32,
 * mad.hi.sat.s32, min/max.relu.s32); others are an error, not a guess. */
static bool int_mods_ok(fn *F, const ptx_instr *in, ptx_type t)
{
    bool sat = in->flags & PTX_FLAG_BIT(SAT), relu = in->flags & PTX_FLAG_BIT(RELU);
    bool hi = in->mod[PTX_CAT_WIDTH] == PTX_WIDTH_HI;
    if (sat && !(t == PTX_TYPE_S32 && (in->op == PTX_OP_ADD || in->op == PTX_OP_SUB ||
                                       (in->op == PTX_OP_MAD && hi)))) {
        lw_error(F->L, in->loc, "'.sat' is not defined for '%s.%s'", ptx_op_name(in->op), ptx_type_name(t));
        return false;
    }
    if (in->op == PTX_OP_ABS && !is_signed(t)) {
        lw_error(F->L, in->loc, "'abs.%s' is not defined by the ISA (abs takes signed types)", ptx_type_name(t));
        return false;
    }
    if (relu && t != PTX_TYPE_S32) {
        lw_error(F->L, in->loc, "'.relu' is not defined for '%s.%s'", ptx_op_name(in->op), ptx_type_name(t));
        return false;
    }
    return true;
}

static bool lower_int_op(fn *F, const ptx_instr *in, ptx_type t, LLVMValueRef mask)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef a, c, r = NULL;
    ptx_type rt = t;
    if (t == PTX_TYPE_U16X2 || t == PTX_TYPE_S16X2)
        return false; /* packed half words: lower_intmix.c */
    if (!int_mods_ok(F, in, t))
        return true;
    switch (in->op) {
    case PTX_OP_ADDC:
    case PTX_OP_SUBC:
        r = add_carry(F, in, opd(F, in, 1, t), opd(F, in, 2, t), in->op == PTX_OP_SUBC, true, mask);
        break;
    case PTX_OP_ADD:
    case PTX_OP_SUB:
        a = opd(F, in, 1, t), c = opd(F, in, 2, t);
        if (in->flags & PTX_FLAG_BIT(CC)) {
            r = add_carry(F, in, a, c, in->op == PTX_OP_SUB, false, mask);
            break;
        }
        if (in->flags & PTX_FLAG_BIT(SAT)) /* .sat: s32 only */
            r = intrin2(F, in->op == PTX_OP_ADD ? "llvm.sadd.sat" : "llvm.ssub.sat", a, c);
        else
            r = in->op == PTX_OP_ADD ? LLVMBuildAdd(b, a, c, "") : LLVMBuildSub(b, a, c, "");
        break;
    case PTX_OP_MUL:
        r = int_mul(F, in, opd(F, in, 1, t), opd(F, in, 2, t), t, &rt);
        break;
    case PTX_OP_MAD:
    case PTX_OP_MADC:
        r = int_mul(F, in, opd(F, in, 1, t), opd(F, in, 2, t), t, &rt);
        if (in->flags & PTX_FLAG_BIT(SAT)) /* mad.hi.sat.s32: the sum saturates */
            r = intrin2(F, "llvm.sadd.sat", r, opd(F, in, 3, rt));
        else if (in->op == PTX_OP_MADC || (in->flags & PTX_FLAG_BIT(CC)))
            r = add_carry(F, in, r, opd(F, in, 3, rt), false, in->op == PTX_OP_MADC, mask);
        else
            r = LLVMBuildAdd(b, r, opd(F, in, 3, rt), "");
        break;
    case PTX_OP_DIV:
    case PTX_OP_REM:
        r = int_divrem(F, opd(F, in, 1, t), opd(F, in, 2, t), t, in->op == PTX_OP_REM);
        break;
    case PTX_OP_ABS:
        a = opd(F, in, 1, t);
        r = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, a, LLVMConstNull(LLVMTypeOf(a)), ""),
                            LLVMBuildNeg(b, a, ""), a, "");
        break;
    case PTX_OP_NEG: r = LLVMBuildNeg(b, opd(F, in, 1, t), ""); break;
    case PTX_OP_MIN:
    case PTX_OP_MAX: {
        bool s = is_signed(t), mn = in->op == PTX_OP_MIN;
        const char *op = mn ? (s ? "llvm.smin" : "llvm.umin") : (s ? "llvm.smax" : "llvm.umax");
        r = intrin2(F, op, opd(F, in, 1, t), opd(F, in, 2, t));
        if (in->nopds == 4)
            r = intrin2(F, op, r, opd(F, in, 3, t));
        if (in->flags & PTX_FLAG_BIT(RELU)) /* .s32 only: negative results become 0 */
            r = intrin2(F, "llvm.smax", r, LLVMConstNull(LLVMTypeOf(r)));
        break;
    }
    case PTX_OP_SHL:
    case PTX_OP_SHR:
        r = shift(F, in, opd(F, in, 1, t), read_opd(F, &in->opds[2], PTX_TYPE_U32, false), t);
        break;
    default: return false;
    }
    dst(F, in, r, rt, mask);
    return true;
}

static bool lower_logic(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    lw *L = F->L;
    ptx_type t = (ptx_type)in->types[0];
    LLVMValueRef a = opd(F, in, 1, t), r;
    switch (in->op) {
    case PTX_OP_AND: r = LLVMBuildAnd(L->b, a, opd(F, in, 2, t), ""); break;
    case PTX_OP_OR: r = LLVMBuildOr(L->b, a, opd(F, in, 2, t), ""); break;
    case PTX_OP_XOR: r = LLVMBuildXor(L->b, a, opd(F, in, 2, t), ""); break;
    case PTX_OP_NOT: r = LLVMBuildNot(L->b, a, ""); break;
    default: { /* cnot */
        LLVMValueRef z = LLVMBuildICmp(L->b, LLVMIntEQ, a, LLVMConstNull(LLVMTypeOf(a)), "");
        r = LLVMBuildZExt(L->b, z, LLVMTypeOf(a), "");
        if (t == PTX_TYPE_PRED)
            r = z;
    }
    }
    dst(F, in, r, t, mask);
    return true;
}

static void lower_selp(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    ptx_type t = (ptx_type)in->types[0];
    LLVMValueRef c = opd(F, in, 3, PTX_TYPE_PRED);
    dst(F, in, LLVMBuildSelect(F->L->b, c, opd(F, in, 1, t), opd(F, in, 2, t), ""), t, mask);
}

/* slct: d = c >= 0 ? a : b, c of the second type. */
static void lower_slct(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    lw *L = F->L;
    ptx_type t = (ptx_type)in->types[0], ct = (ptx_type)in->types[1];
    LLVMValueRef c = fopd(F, in, 3, ct), ge;
    if (is_f(ct))
        ge = LLVMBuildFCmp(L->b, LLVMRealOGE, c, vreal(F, scalar_type(L, ct), 0.0), "");
    else
        ge = LLVMBuildICmp(L->b, LLVMIntSGE, c, LLVMConstNull(LLVMTypeOf(c)), "");
    dst(F, in, LLVMBuildSelect(L->b, ge, opd(F, in, 1, t), opd(F, in, 2, t), ""), t, mask);
}

/* mov, including pack ({a,b} -> d) and unpack (d -> {a,b}), little-endian. */
static void lower_mov(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    lw *L = F->L;
    ptx_type t = (ptx_type)in->types[0];
    const ptx_operand *d = &in->opds[0], *a = &in->opds[1];
    uint32_t size = ptx_type_size(t);
    if (in->mod[PTX_CAT_VEC]) { /* mov.v2/.v4: all reads first ({v.y, v.x} swaps) */
        LLVMValueRef e[4];
        for (uint32_t i = 0; i < a->nelems && i < 4; i++)
            e[i] = read_opd(F, &a->elems[i], t, false);
        for (uint32_t i = 0; i < d->nelems && i < 4; i++)
            write_reg(F, &d->elems[i], e[i], t, false, mask);
        return;
    }
    if (a->kind == PTX_OPD_VEC || d->kind == PTX_OPD_VEC) {
        const ptx_operand *v = a->kind == PTX_OPD_VEC ? a : d;
        uint32_t part = size / v->nelems;
        ptx_type pt = bit_type_of_size(part), wt = bit_type_of_size(size);
        LLVMTypeRef wide = vec_of(storage_int(L, wt));
        if (v == a) {
            LLVMValueRef acc = LLVMConstNull(wide);
            for (uint32_t i = 0; i < v->nelems; i++) {
                if (v->elems[i].kind == PTX_OPD_SINK)
                    continue;
                LLVMValueRef e = LLVMBuildZExt(L->b, read_opd(F, &v->elems[i], pt, false), wide, "");
                e = LLVMBuildShl(L->b, e, vconst(F, storage_int(L, wt), 8ull * part * i), "");
                acc = LLVMBuildOr(L->b, acc, e, "");
            }
            write_reg(F, d, to_type(F, acc, wt, t, false), t, false, mask);
        } else {
            LLVMValueRef src = read_opd(F, a, wt, false);
            for (uint32_t i = 0; i < v->nelems; i++) {
                LLVMValueRef e = LLVMBuildLShr(L->b, src, vconst(F, storage_int(L, wt), 8ull * part * i), "");
                e = LLVMBuildTrunc(L->b, e, vec_of(storage_int(L, pt)), "");
                write_reg(F, &v->elems[i], e, pt, false, mask);
            }
        }
        return;
    }
    dst(F, in, read_opd(F, a, t, false), t, mask);
}

bool lower_arith(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    ptx_type t = in->ntypes ? (ptx_type)in->types[0] : PTX_TYPE_NONE;
    switch (in->op) {
    case PTX_OP_ADD: case PTX_OP_SUB: case PTX_OP_MUL: case PTX_OP_MAD: case PTX_OP_DIV:
    case PTX_OP_ABS: case PTX_OP_NEG: case PTX_OP_MIN: case PTX_OP_MAX:
        return is_f(t) ? lower_float(F, in, mask) : lower_int_op(F, in, t, mask);
    case PTX_OP_REM: case PTX_OP_SHL: case PTX_OP_SHR: case PTX_OP_ADDC: case PTX_OP_SUBC:
    case PTX_OP_MADC:
        return lower_int_op(F, in, t, mask);
    case PTX_OP_FMA: case PTX_OP_SQRT: case PTX_OP_RCP: case PTX_OP_RSQRT: case PTX_OP_EX2:
    case PTX_OP_LG2: case PTX_OP_SIN: case PTX_OP_COS: case PTX_OP_TANH:
        return lower_float(F, in, mask);
    case PTX_OP_AND: case PTX_OP_OR: case PTX_OP_XOR: case PTX_OP_NOT: case PTX_OP_CNOT:
        return lower_logic(F, in, mask);
    case PTX_OP_SETP: lower_setp(F, in, mask); return true;
    case PTX_OP_SET: lower_set(F, in, mask); return true;
    case PTX_OP_SELP: lower_selp(F, in, mask); return true;
    case PTX_OP_SLCT: lower_slct(F, in, mask); return true;
    case PTX_OP_MOV: lower_mov(F, in, mask); return true;
    case PTX_OP_CVT: return lower_cvt(F, in, mask);
    default: return false;
    }
}
