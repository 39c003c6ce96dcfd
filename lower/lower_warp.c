/* lower_warp.c - warp collectives: shfl.sync, vote.sync, activemask,
 * match.sync, redux.sync.  The warp is one vector, so a collective is a
 * cross-lane vector operation over the lanes that execute it. */
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

static void lower_vote(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef part = mask; /* the executing lanes (membermask covers them) */
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
    LLVMValueRef bits = mask_bits(F, mask);
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
                              LLVMBuildOr(b, same, LLVMBuildNot(b, mask, ""), ""));
    LLVMValueRef r = LLVMBuildSelect(b, all, splat(L, bits), LLVMConstNull(vec_of(L->i32)), "");
    write_reg(F, dv, r, PTX_TYPE_B32, false, mask);
    if (d->kind == PTX_OPD_PAIR)
        write_reg(F, &d->elems[1], splat(L, all), PTX_TYPE_PRED, false, mask);
}

/* redux.sync: integer reductions over the executing lanes. */
static bool lower_redux(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    ptx_type t = (ptx_type)in->types[0];
    if (ptx_type_class(t) == 'F')
        return false;
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
    LLVMValueRef r = reduce(F, name, LLVMBuildSelect(b, mask, a, splat(L, id), ""));
    write_reg(F, &in->opds[0], splat(L, r), t, false, mask);
    return true;
}

bool lower_warp(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    switch (in->op) {
    case PTX_OP_SHFL: lower_shfl(F, in, mask); return true;
    case PTX_OP_VOTE: lower_vote(F, in, mask); return true;
    case PTX_OP_MATCH: lower_match(F, in, mask); return true;
    case PTX_OP_REDUX: return lower_redux(F, in, mask);
    case PTX_OP_ACTIVEMASK:
        write_reg(F, &in->opds[0], splat(F->L, mask_bits(F, mask)), PTX_TYPE_B32, false, mask);
        return true;
    default: return false;
    }
}
