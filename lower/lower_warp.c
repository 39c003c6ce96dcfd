/* lower_warp.c - warp collectives: shfl.sync, vote.sync, activemask,
 * match.sync, redux.sync, elect.sync, bar.warp.sync.  The warp is one
 * vector, so a collective is a cross-lane vector operation over the lanes
 * that execute it and that its member mask names; the lanes it names met
 * before it ran (lower_converge.c). */
#include "lower_internal.h"

/* a[j] for each lane: spill the 32-bit vector, gather it back by index. */
static LLVMValueRef permute(fn *F, LLVMValueRef a, LLVMValueRef j)
{
    lw *L = F->L;
    LLVMTypeRef vt = LLVMTypeOf(a), pvt = vec_of(L->ptr);
    LLVMValueRef tmp = entry_alloca(F, vt, "shfl");
    LLVMBuildStore(L->b, a, tmp);
    LLVMValueRef ptrs = LLVMBuildGEP2(L->b, L->i32, tmp, &j, 1, "");
    LLVMTypeRef tys[2] = {vt, pvt};
    LLVMValueRef args[4] = {ptrs, const_i32(L, 4), LLVMConstAllOnes(vec_of(L->i1)),
                            LLVMGetPoison(vt)};
    return call_intrinsic(L, "llvm.masked.gather", tys, 2, args, 4);
}

/* ISA: shfl.sync d|p, a, b, c, membermask (c packs clamp and segment mask). */
static void lower_shfl(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef a = read_opd(F, &in->opds[1], PTX_TYPE_B32, false);
    LLVMValueRef bv = LLVMBuildAnd(b, read_opd(F, &in->opds[2], PTX_TYPE_U32, false),
                                   splat(L, const_i32(L, 31)), "");
    LLVMValueRef c = read_opd(F, &in->opds[3], PTX_TYPE_U32, false);
    LLVMValueRef cval = LLVMBuildAnd(b, c, splat(L, const_i32(L, 31)), "");
    LLVMValueRef seg = LLVMBuildAnd(b, LLVMBuildLShr(b, c, splat(L, const_i32(L, 8)), ""),
                                    splat(L, const_i32(L, 31)), "");
    LLVMValueRef nseg = LLVMBuildNot(b, seg, "");
    LLVMValueRef minl = LLVMBuildAnd(b, F->lane, seg, "");
    LLVMValueRef maxl = LLVMBuildOr(b, minl, LLVMBuildAnd(b, cval, nseg, ""), "");
    LLVMValueRef j, ok;
    switch (in->mod[PTX_CAT_MODE]) {
    case PTX_MODE_UP:
        j = LLVMBuildSub(b, F->lane, bv, "");
        ok = LLVMBuildICmp(b, LLVMIntSGE, j, maxl, "");
        break;
    case PTX_MODE_DOWN:
        j = LLVMBuildAdd(b, F->lane, bv, "");
        ok = LLVMBuildICmp(b, LLVMIntSLE, j, maxl, "");
        break;
    case PTX_MODE_BFLY:
        j = LLVMBuildXor(b, F->lane, bv, "");
        ok = LLVMBuildICmp(b, LLVMIntSLE, j, maxl, "");
        break;
    default: /* idx */
        j = LLVMBuildOr(b, minl, LLVMBuildAnd(b, bv, nseg, ""), "");
        ok = LLVMBuildICmp(b, LLVMIntSLE, j, maxl, "");
        break;
    }
    j = LLVMBuildSelect(b, ok, j, F->lane, "");
    LLVMValueRef d = permute(F, a, j);
    const ptx_operand *dst = &in->opds[0];
    if (dst->kind == PTX_OPD_PAIR) {
        write_reg(F, &dst->elems[0], d, PTX_TYPE_B32, false, mask);
        write_reg(F, &dst->elems[1], ok, PTX_TYPE_PRED, false, mask);
    } else {
        write_reg(F, dst, d, PTX_TYPE_B32, false, mask);
    }
}

static LLVMValueRef reduce(fn *F, const char *name, LLVMValueRef v)
{
    LLVMTypeRef t = LLVMTypeOf(v);
    return call_intrinsic(F->L, name, &t, 1, &v, 1);
}

/* The lanes taking part: those executing it that the member mask names. */
static LLVMValueRef participants(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    lw *L = F->L;
    LLVMValueRef mm = membermask_bits(F, in, mask);
    LLVMValueRef one = LLVMBuildShl(L->b, splat(L, const_i32(L, 1)), F->lane, "");
    LLVMValueRef named = LLVMBuildICmp(L->b, LLVMIntNE, LLVMBuildAnd(L->b, splat(L, mm), one, ""),
                                       LLVMConstNull(vec_of(L->i32)), "");
    return LLVMBuildAnd(L->b, mask, named, "");
}

/* vote.sync.{all,any,uni}.pred d, {!}a, membermask; vote.sync.ballot.b32. */
static void lower_vote(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef part = participants(F, in, mask);
    LLVMValueRef p = read_opd(F, &in->opds[1], PTX_TYPE_PRED, false);
    LLVMValueRef on = LLVMBuildAnd(b, p, part, "");
    LLVMValueRef r;
    switch (in->mod[PTX_CAT_MODE]) {
    case PTX_MODE_BALLOT:
        write_reg(F, &in->opds[0], splat(L, mask_bits(F, on)), PTX_TYPE_B32, false, mask);
        return;
    case PTX_MODE_ALL:
        r = LLVMBuildICmp(b, LLVMIntEQ, mask_bits(F, on), mask_bits(F, part), "");
        break;
    case PTX_MODE_ANY:
        r = LLVMBuildICmp(b, LLVMIntNE, mask_bits(F, on), const_i32(L, 0), "");
        break;
    default: { /* uni: all or none */
        LLVMValueRef none = LLVMBuildICmp(b, LLVMIntEQ, mask_bits(F, on), const_i32(L, 0), "");
        LLVMValueRef all = LLVMBuildICmp(b, LLVMIntEQ, mask_bits(F, on), mask_bits(F, part), "");
        r = LLVMBuildOr(b, none, all, "");
    }
    }
    write_reg(F, &in->opds[0], splat(L, r), PTX_TYPE_PRED, false, mask);
}

/* match.any: lanes holding the same value; match.all: all or nothing. */
static void lower_match(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    ptx_type t = (ptx_type)in->types[0];
    LLVMValueRef a = read_opd(F, &in->opds[1], t, false);
    LLVMValueRef part = participants(F, in, mask);
    LLVMValueRef bits = mask_bits(F, part);
    LLVMValueRef acc = LLVMConstNull(vec_of(L->i32));
    for (uint32_t k = 0; k < W; k++) {
        LLVMValueRef ak = splat(L, LLVMBuildExtractElement(b, a, const_i32(L, k), ""));
        LLVMValueRef eq = LLVMBuildZExt(b, LLVMBuildICmp(b, LLVMIntEQ, a, ak, ""), vec_of(L->i32), "");
        LLVMValueRef active = LLVMBuildAnd(b, LLVMBuildLShr(b, bits, const_i32(L, k), ""), const_i32(L, 1), "");
        eq = LLVMBuildAnd(b, eq, splat(L, active), "");
        acc = LLVMBuildOr(b, acc, LLVMBuildShl(b, eq, splat(L, const_i32(L, k)), ""), "");
    }
    const ptx_operand *d = &in->opds[0], *dv = d->kind == PTX_OPD_PAIR ? &d->elems[0] : d;
    if (in->mod[PTX_CAT_MODE] == PTX_MODE_ANY) {
        write_reg(F, dv, acc, PTX_TYPE_B32, false, mask);
        return;
    }
    LLVMValueRef same = LLVMBuildICmp(b, LLVMIntEQ, acc, splat(L, bits), "");
    LLVMValueRef all = reduce(F, "llvm.vector.reduce.and",
                              LLVMBuildOr(b, same, LLVMBuildNot(b, part, ""), ""));
    LLVMValueRef r = LLVMBuildSelect(b, all, splat(L, bits), LLVMConstNull(vec_of(L->i32)), "");
    write_reg(F, dv, r, PTX_TYPE_B32, false, mask);
    if (d->kind == PTX_OPD_PAIR)
        write_reg(F, &d->elems[1], splat(L, all), PTX_TYPE_PRED, false, mask);
}

/* redux.sync on .u32/.s32/.b32: integer reductions over the participants. */
static void redux_int(fn *F, const ptx_instr *in, LLVMValueRef part, LLVMValueRef mask)
{
    lw *L = F->L;
    ptx_type t = (ptx_type)in->types[0];
    bool s = ptx_type_class(t) == 'S';
    LLVMValueRef a = read_opd(F, &in->opds[1], t, false);
    LLVMValueRef id;
    const char *name;
    switch (in->mod[PTX_CAT_RED]) {
    case PTX_RED_ADD: name = "llvm.vector.reduce.add"; id = const_i32(L, 0); break;
    case PTX_RED_AND: name = "llvm.vector.reduce.and"; id = const_i32(L, UINT32_MAX); break;
    case PTX_RED_OR: name = "llvm.vector.reduce.or"; id = const_i32(L, 0); break;
    case PTX_RED_XOR: name = "llvm.vector.reduce.xor"; id = const_i32(L, 0); break;
    case PTX_RED_MIN:
        name = s ? "llvm.vector.reduce.smin" : "llvm.vector.reduce.umin";
        id = const_i32(L, s ? INT32_MAX : UINT32_MAX);
        break;
    default:
        name = s ? "llvm.vector.reduce.smax" : "llvm.vector.reduce.umax";
        id = const_i32(L, s ? (uint32_t)INT32_MIN : 0);
        break;
    }
    LLVMValueRef r = reduce(F, name, LLVMBuildSelect(L->b, part, a, splat(L, id), ""));
    write_reg(F, &in->opds[0], splat(L, r), t, false, mask);
}

/* redux.sync.{min,max}{.abs}{.NaN}.f32 (PTX 8.6): +0 > -0; NaN inputs are
 * ignored (all NaN: canonical NaN) or, with .NaN, make the result the
 * canonical NaN.  Floats are ordered as integers: flipping the magnitude
 * bits of negative values makes signed integer order the float order. */
static void redux_f32(fn *F, const ptx_instr *in, LLVMValueRef part, LLVMValueRef mask)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMTypeRef v32 = vec_of(L->i32);
    bool is_min = in->mod[PTX_CAT_RED] == PTX_RED_MIN;
    LLVMValueRef x = read_opd(F, &in->opds[1], PTX_TYPE_B32, false);
    LLVMValueRef mag = LLVMBuildAnd(b, x, splat(L, const_i32(L, 0x7fffffff)), "");
    if (in->flags & PTX_FLAG_BIT(ABS))
        x = mag;
    LLVMValueRef nan = LLVMBuildAnd(b, part, LLVMBuildICmp(b, LLVMIntUGT, mag, splat(L, const_i32(L, 0x7f800000)), ""), "");
    LLVMValueRef num = LLVMBuildAnd(b, part, LLVMBuildNot(b, nan, ""), "");
    LLVMValueRef neg = LLVMBuildICmp(b, LLVMIntSLT, x, LLVMConstNull(v32), "");
    LLVMValueRef flip = LLVMBuildSelect(b, neg, splat(L, const_i32(L, 0x7fffffff)), LLVMConstNull(v32), "");
    LLVMValueRef key = LLVMBuildXor(b, x, flip, "");
    LLVMValueRef id = const_i32(L, is_min ? INT32_MAX : (uint32_t)INT32_MIN);
    LLVMValueRef k = reduce(F, is_min ? "llvm.vector.reduce.smin" : "llvm.vector.reduce.smax",
                            LLVMBuildSelect(b, num, key, splat(L, id), ""));
    LLVMValueRef kneg = LLVMBuildICmp(b, LLVMIntSLT, k, const_i32(L, 0), "");
    LLVMValueRef r = LLVMBuildXor(b, k, LLVMBuildSelect(b, kneg, const_i32(L, 0x7fffffff), const_i32(L, 0), ""), "");
    LLVMTypeRef v1 = vec_of(L->i1);
    LLVMValueRef any_nan = call_intrinsic(L, "llvm.vector.reduce.or", &v1, 1, &nan, 1);
    LLVMValueRef any_num = call_intrinsic(L, "llvm.vector.reduce.or", &v1, 1, &num, 1);
    LLVMValueRef to_nan = (in->flags & PTX_FLAG_BIT(NAN)) ? LLVMBuildOr(b, any_nan, LLVMBuildNot(b, any_num, ""), "")
                                                          : LLVMBuildNot(b, any_num, "");
    r = LLVMBuildSelect(b, to_nan, const_i32(L, 0x7fffffff), r, "");
    write_reg(F, &in->opds[0], splat(L, r), PTX_TYPE_B32, false, mask);
}

static void lower_redux(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    LLVMValueRef part = participants(F, in, mask);
    if (ptx_type_class((ptx_type)in->types[0]) == 'F')
        redux_f32(F, in, part, mask);
    else
        redux_int(F, in, part, mask);
}

/* elect.sync d|p, membermask: the leader is the lowest participating lane
 * (the ISA asks only for a deterministic choice). */
static void lower_elect(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    lw *L = F->L;
    LLVMValueRef part = participants(F, in, mask);
    LLVMValueRef leader = first_lane(F, part);
    const ptx_operand *d = &in->opds[0];
    const ptx_operand *dv = d->kind == PTX_OPD_PAIR ? &d->elems[0] : d;
    if (dv->kind != PTX_OPD_SINK)
        write_reg(F, dv, splat(L, leader), PTX_TYPE_U32, false, mask);
    if (d->kind == PTX_OPD_PAIR && d->elems[1].kind != PTX_OPD_SINK) {
        LLVMValueRef is = LLVMBuildICmp(L->b, LLVMIntEQ, F->lane, splat(L, leader), "");
        write_reg(F, &d->elems[1], LLVMBuildAnd(L->b, is, part, ""), PTX_TYPE_PRED, false, mask);
    }
}

bool lower_warp(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    switch (in->op) {
    case PTX_OP_SHFL: lower_shfl(F, in, mask); return true;
    case PTX_OP_VOTE: lower_vote(F, in, mask); return true;
    case PTX_OP_MATCH: lower_match(F, in, mask); return true;
    case PTX_OP_REDUX: lower_redux(F, in, mask); return true;
    case PTX_OP_ELECT: lower_elect(F, in, mask); return true;
    case PTX_OP_ACTIVEMASK:
        write_reg(F, &in->opds[0], splat(F->L, mask_bits(F, mask)), PTX_TYPE_B32, false, mask);
        return true;
    case PTX_OP_BAR_WARP_SYNC:
        return true; /* the lanes met at the block's arrival check */
    default: return false;
    }
}
