/* lower_intmix.c - mixed-width integer instructions per the ISA
 * pseudo-code: dp4a, dp2a, sad, mul24, mad24, the packed half-word forms
 * of add/sub/min/max (.u16x2, .s16x2) and the SIMD video instructions
 * (vadd2/4, vsub, vavrg, vabsdiff, vmin, vmax, vset), cvt.pack.sat. */
#include "lower_internal.h"

#include <string.h>

static LLVMValueRef v32(fn *F, uint32_t v) { return splat(F->L, const_i32(F->L, v)); }

/* Part k of width w bits of x, sign- or zero-extended to 32 bits. */
LLVMValueRef int_part(fn *F, LLVMValueRef x, unsigned k, unsigned w, bool sign)
{
    LLVMBuilderRef b = F->L->b;
    LLVMValueRef sh = LLVMBuildShl(b, x, v32(F, 32 - w * (k + 1)), "");
    return sign ? LLVMBuildAShr(b, sh, v32(F, 32 - w), "") : LLVMBuildLShr(b, sh, v32(F, 32 - w), "");
}

static bool is_s(const ptx_instr *in, int i) { return ptx_type_class((ptx_type)in->types[i]) == 'S'; }

/* dp4a.atype.btype d, a, b, c: c + sum of the four byte products. */
static LLVMValueRef dp4a(fn *F, const ptx_instr *in)
{
    LLVMBuilderRef b = F->L->b;
    LLVMValueRef a = read_opd(F, &in->opds[1], PTX_TYPE_B32, false);
    LLVMValueRef x = read_opd(F, &in->opds[2], PTX_TYPE_B32, false);
    LLVMValueRef acc = read_opd(F, &in->opds[3], PTX_TYPE_B32, false);
    for (unsigned k = 0; k < 4; k++)
        acc = LLVMBuildAdd(b, acc, LLVMBuildMul(b, int_part(F, a, k, 8, is_s(in, 0)), int_part(F, x, k, 8, is_s(in, 1)), ""), "");
    return acc;
}

/* dp2a.lo/.hi d, a, b, c: two 16-bit halves of a times bytes 0,1 (lo) or
 * 2,3 (hi) of b. */
static LLVMValueRef dp2a(fn *F, const ptx_instr *in)
{
    LLVMBuilderRef b = F->L->b;
    LLVMValueRef a = read_opd(F, &in->opds[1], PTX_TYPE_B32, false);
    LLVMValueRef x = read_opd(F, &in->opds[2], PTX_TYPE_B32, false);
    LLVMValueRef acc = read_opd(F, &in->opds[3], PTX_TYPE_B32, false);
    unsigned j = in->mod[PTX_CAT_WIDTH] == PTX_WIDTH_HI ? 2 : 0;
    for (unsigned k = 0; k < 2; k++)
        acc = LLVMBuildAdd(b, acc, LLVMBuildMul(b, int_part(F, a, k, 16, is_s(in, 0)), int_part(F, x, j + k, 8, is_s(in, 1)), ""), "");
    return acc;
}

/* sad d, a, b, c: c + |a - b| */
static LLVMValueRef sad(fn *F, const ptx_instr *in, ptx_type t)
{
    LLVMBuilderRef b = F->L->b;
    bool s = ptx_type_class(t) == 'S';
    LLVMValueRef x = read_opd(F, &in->opds[1], t, false), y = read_opd(F, &in->opds[2], t, false);
    LLVMValueRef lt = LLVMBuildICmp(b, s ? LLVMIntSLT : LLVMIntULT, x, y, "");
    LLVMValueRef diff = LLVMBuildSelect(b, lt, LLVMBuildSub(b, y, x, ""), LLVMBuildSub(b, x, y, ""), "");
    return LLVMBuildAdd(b, diff, read_opd(F, &in->opds[3], t, false), "");
}

/* mul24.lo/.hi: the 48-bit product of the low 24 bits (sign-extended for
 * .s32); .lo keeps bits 31..0, .hi bits 47..16.  mad24 adds c to that;
 * mad24.hi.sat.s32 saturates the sum. */
static LLVMValueRef mul24(fn *F, const ptx_instr *in, ptx_type t)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    bool s = ptx_type_class(t) == 'S';
    LLVMTypeRef w = vec_of(L->i64);
    LLVMValueRef x = int_part(F, read_opd(F, &in->opds[1], t, false), 0, 24, s);
    LLVMValueRef y = int_part(F, read_opd(F, &in->opds[2], t, false), 0, 24, s);
    LLVMValueRef p = LLVMBuildMul(b, s ? LLVMBuildSExt(b, x, w, "") : LLVMBuildZExt(b, x, w, ""),
                                  s ? LLVMBuildSExt(b, y, w, "") : LLVMBuildZExt(b, y, w, ""), "");
    if (in->mod[PTX_CAT_WIDTH] == PTX_WIDTH_HI)
        p = LLVMBuildLShr(b, p, splat(L, const_i64(L, 16)), "");
    LLVMValueRef r = LLVMBuildTrunc(b, p, vec_of(L->i32), "");
    if (in->op != PTX_OP_MAD24)
        return r;
    LLVMValueRef c = read_opd(F, &in->opds[3], t, false);
    if (in->flags & PTX_FLAG_BIT(SAT)) {
        LLVMTypeRef vt = LLVMTypeOf(r);
        return call_intrinsic(L, "llvm.sadd.sat", &vt, 1, (LLVMValueRef[]){r, c}, 2);
    }
    return LLVMBuildAdd(b, r, c, "");
}

/* add/sub/min/max{.relu}.u16x2/.s16x2: the two half words independently,
 * as <64 x i16> (lane i's low half is element 2i). */
static LLVMValueRef packed16(fn *F, const ptx_instr *in, ptx_type t)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMTypeRef h = LLVMVectorType(L->i16, 2 * W);
    LLVMValueRef x = LLVMBuildBitCast(b, read_opd(F, &in->opds[1], PTX_TYPE_B32, false), h, "");
    LLVMValueRef y = LLVMBuildBitCast(b, read_opd(F, &in->opds[2], PTX_TYPE_B32, false), h, "");
    bool s = t == PTX_TYPE_S16X2;
    LLVMValueRef r;
    switch (in->op) {
    case PTX_OP_ADD: r = LLVMBuildAdd(b, x, y, ""); break;
    case PTX_OP_SUB: r = LLVMBuildSub(b, x, y, ""); break;
    default: {
        const char *name = in->op == PTX_OP_MIN ? (s ? "llvm.smin" : "llvm.umin") : (s ? "llvm.smax" : "llvm.umax");
        r = call_intrinsic(L, name, &h, 1, (LLVMValueRef[]){x, y}, 2);
        if (in->flags & PTX_FLAG_BIT(RELU))
            r = call_intrinsic(L, "llvm.smax", &h, 1, (LLVMValueRef[]){r, LLVMConstNull(h)}, 2);
    }
    }
    return LLVMBuildBitCast(b, r, vec_of(L->i32), "");
}

/* cvt.sat between integers: a clamped to the destination type's range,
 * compared in the source type (every bound that can bind fits in it). */
LLVMValueRef lower_int_sat(fn *F, LLVMValueRef a, ptx_type st, ptx_type dt)
{
    lw *L = F->L;
    unsigned sb = 8 * ptx_type_size(st), db = 8 * ptx_type_size(dt);
    bool ss = ptx_type_class(st) == 'S', ds = ptx_type_class(dt) == 'S';
    LLVMTypeRef vt = LLVMTypeOf(a), et = storage_int(L, st);
    uint64_t dmax = ds ? (1ull << (db - 1)) - 1 : db == 64 ? UINT64_MAX : (1ull << db) - 1;
    uint64_t smax = ss ? (1ull << (sb - 1)) - 1 : sb == 64 ? UINT64_MAX : (1ull << sb) - 1;
    if (ss && (!ds || db < sb)) { /* the lower bound: 0 or the destination's minimum */
        uint64_t lo = ds ? (uint64_t)-(int64_t)(1ull << (db - 1)) : 0;
        a = call_intrinsic(L, "llvm.smax", &vt, 1, (LLVMValueRef[]){a, splat(L, LLVMConstInt(et, lo, false))}, 2);
    }
    if (dmax < smax)
        a = call_intrinsic(L, ss ? "llvm.smin" : "llvm.umin", &vt, 1,
                           (LLVMValueRef[]){a, splat(L, LLVMConstInt(et, dmax, false))}, 2);
    return a;
}

/* Forms of this file's instructions the ISA does not define get an error
 * rather than a guess. */
static bool form_ok(fn *F, const ptx_instr *in, ptx_type t)
{
    const char *why = NULL;
    bool sat = in->flags & PTX_FLAG_BIT(SAT);
    switch (in->op) {
    case PTX_OP_MUL24:
    case PTX_OP_MAD24:
        if (t != PTX_TYPE_U32 && t != PTX_TYPE_S32)
            why = "is defined for .u32 and .s32 only";
        else if (sat && (t != PTX_TYPE_S32 || in->mod[PTX_CAT_WIDTH] != PTX_WIDTH_HI))
            why = "takes .sat only as mad24.hi.sat.s32";
        break;
    case PTX_OP_ADD: case PTX_OP_SUB: case PTX_OP_MIN: case PTX_OP_MAX:
        if (sat || (in->flags & PTX_FLAG_BIT(CC)))
            why = "takes neither .sat nor .cc on packed half words";
        else if ((in->flags & PTX_FLAG_BIT(RELU)) && (t != PTX_TYPE_S16X2 || in->op == PTX_OP_ADD || in->op == PTX_OP_SUB))
            why = "takes .relu only as min/max.relu.s16x2";
        break;
    default: break;
    }
    if (why)
        lw_error(F->L, in->loc, "'%s.%s' %s", ptx_op_name(in->op), ptx_type_name(t), why);
    return !why;
}

/* SIMD video: each 8-bit (x4) or 16-bit (x2) part of a and b, extended by
 * its type; results saturated to the destination part type with .sat, then
 * packed, or summed into c with the .add secondary operation.  Byte
 * selectors and merge masks are not written by compilers; the checker
 * refuses them. */
static LLVMValueRef simd_video(fn *F, const ptx_instr *in)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    const char *name = ptx_op_name(in->op);
    unsigned w = name[strlen(name) - 1] == '4' ? 8 : 16, n = 32 / w;
    bool set = in->op == PTX_OP_VSET2 || in->op == PTX_OP_VSET4;
    int at = set ? 0 : 1, bt = set ? 1 : 2;
    bool as = is_s(in, at), bs = is_s(in, bt), ds = !set && is_s(in, 0), sgn = as || bs;
    LLVMValueRef a = read_opd(F, &in->opds[1], PTX_TYPE_B32, false);
    LLVMValueRef x = read_opd(F, &in->opds[2], PTX_TYPE_B32, false);
    LLVMValueRef c = read_opd(F, &in->opds[3], PTX_TYPE_B32, false);
    bool add = in->mod[PTX_CAT_RED] == PTX_RED_ADD;
    LLVMValueRef acc = add ? c : v32(F, 0);
    for (unsigned i = 0; i < n; i++) {
        LLVMValueRef p = int_part(F, a, i, w, as), q = int_part(F, x, i, w, bs), r;
        switch (in->op) {
        case PTX_OP_VADD2: case PTX_OP_VADD4: r = LLVMBuildAdd(b, p, q, ""); break;
        case PTX_OP_VSUB2: case PTX_OP_VSUB4: r = LLVMBuildSub(b, p, q, ""); break;
        case PTX_OP_VAVRG2: case PTX_OP_VAVRG4: /* rounded average, no overflow in 32 bits */
            r = LLVMBuildAdd(b, LLVMBuildAdd(b, p, q, ""), v32(F, 1), "");
            r = sgn ? LLVMBuildAShr(b, r, v32(F, 1), "") : LLVMBuildLShr(b, r, v32(F, 1), "");
            break;
        case PTX_OP_VABSDIFF2: case PTX_OP_VABSDIFF4: {
            LLVMValueRef d = LLVMBuildSub(b, p, q, "");
            r = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, d, v32(F, 0), ""), LLVMBuildNeg(b, d, ""), d, "");
            break;
        }
        case PTX_OP_VMIN2: case PTX_OP_VMIN4:
        case PTX_OP_VMAX2: case PTX_OP_VMAX4: {
            bool mn = in->op == PTX_OP_VMIN2 || in->op == PTX_OP_VMIN4;
            LLVMValueRef lt = LLVMBuildICmp(b, sgn ? LLVMIntSLT : LLVMIntULT, p, q, "");
            r = LLVMBuildSelect(b, lt, mn ? p : q, mn ? q : p, "");
            break;
        }
        default: { /* vset */
            LLVMIntPredicate pr;
            int_predicate(in->mod[PTX_CAT_CMP], sgn, &pr); /* the checker allows .eq .. .ge */
            r = LLVMBuildZExt(b, LLVMBuildICmp(b, pr, p, q, ""), vec_of(L->i32), "");
        }
        }
        if (in->flags & PTX_FLAG_BIT(SAT)) { /* clamp to the part's range */
            int64_t lo = ds ? -(1ll << (w - 1)) : 0, hi = ds ? (1ll << (w - 1)) - 1 : (1ll << w) - 1;
            r = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, r, v32(F, (uint32_t)lo), ""), v32(F, (uint32_t)lo), r, "");
            r = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSGT, r, v32(F, (uint32_t)hi), ""), v32(F, (uint32_t)hi), r, "");
        }
        if (add)
            acc = LLVMBuildAdd(b, acc, r, "");
        else
            acc = LLVMBuildOr(b, acc, LLVMBuildShl(b, LLVMBuildAnd(b, r, v32(F, (1u << w) - 1), ""),
                                                  v32(F, i * w), ""), "");
    }
    return acc;
}

/* cvt.pack.sat: a and b (.s32) saturated to the convert type, b in the
 * low part and a above it; for 8-bit types the low bits of c fill the
 * rest (ISA pseudo-code). */
static LLVMValueRef cvt_pack(fn *F, const ptx_instr *in)
{
    LLVMBuilderRef b = F->L->b;
    ptx_type ct = (ptx_type)in->types[0];
    unsigned w = 8 * ptx_type_size(ct);
    bool sign = ptx_type_class(ct) == 'S';
    int32_t lo = sign ? -(1 << (w - 1)) : 0, hi = sign ? (1 << (w - 1)) - 1 : (1 << w) - 1;
    LLVMValueRef part[2];
    for (int i = 0; i < 2; i++) {
        LLVMValueRef x = read_opd(F, &in->opds[1 + i], PTX_TYPE_S32, false);
        x = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, x, v32(F, (uint32_t)lo), ""), v32(F, (uint32_t)lo), x, "");
        x = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSGT, x, v32(F, (uint32_t)hi), ""), v32(F, (uint32_t)hi), x, "");
        part[i] = LLVMBuildAnd(b, x, v32(F, (1u << w) - 1), "");
    }
    LLVMValueRef d = LLVMBuildOr(b, part[1], LLVMBuildShl(b, part[0], v32(F, w), ""), "");
    if (in->nopds == 4)
        d = LLVMBuildOr(b, d, LLVMBuildShl(b, read_opd(F, &in->opds[3], PTX_TYPE_B32, false), v32(F, 2 * w), ""), "");
    return d;
}

bool lower_intmix(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    ptx_type t = in->ntypes ? (ptx_type)in->types[0] : PTX_TYPE_NONE;
    LLVMValueRef r;
    bool packed = t == PTX_TYPE_U16X2 || t == PTX_TYPE_S16X2;
    if ((packed || in->op == PTX_OP_MUL24 || in->op == PTX_OP_MAD24) && !form_ok(F, in, t))
        return true;
    switch (in->op) {
    case PTX_OP_ADD: case PTX_OP_SUB: case PTX_OP_MIN: case PTX_OP_MAX:
        if (!packed)
            return false;
        r = packed16(F, in, t), t = PTX_TYPE_B32;
        break;
    case PTX_OP_DP4A: r = dp4a(F, in), t = PTX_TYPE_B32; break;
    case PTX_OP_DP2A: r = dp2a(F, in), t = PTX_TYPE_B32; break;
    case PTX_OP_SAD:
        if (ptx_type_size(t) != 4 && ptx_type_size(t) != 8 && ptx_type_size(t) != 2)
            return false;
        r = sad(F, in, t);
        break;
    case PTX_OP_VADD2: case PTX_OP_VADD4: case PTX_OP_VSUB2: case PTX_OP_VSUB4:
    case PTX_OP_VAVRG2: case PTX_OP_VAVRG4: case PTX_OP_VABSDIFF2: case PTX_OP_VABSDIFF4:
    case PTX_OP_VMIN2: case PTX_OP_VMIN4: case PTX_OP_VMAX2: case PTX_OP_VMAX4:
    case PTX_OP_VSET2: case PTX_OP_VSET4:
        r = simd_video(F, in), t = PTX_TYPE_B32;
        break;
    case PTX_OP_MUL24:
    case PTX_OP_MAD24:
        r = mul24(F, in, t);
        break;
    case PTX_OP_CVT_PACK: r = cvt_pack(F, in), t = PTX_TYPE_B32; break;
    default: return false;
    }
    write_reg(F, &in->opds[0], r, t, false, mask);
    return true;
}
