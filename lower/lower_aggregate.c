/* lower_aggregate.c - warp-aggregated atomics.  When every active lane of
 * an integer add/and/or/xor/min/max atomic targets one address, the warp
 * reduces the operands (inactive lanes contribute the identity), does one
 * read-modify-write with the total, and hands each lane old op (exclusive
 * prefix of the lanes below it): exactly what the lanes would have seen
 * had they run one after another in lane order. */
#include "lower_internal.h"

/* True when the mask has a lane and every active lane's address is the
 * same.  All 32 lanes active (a histogram's loop): each equals the next,
 * one rotation and a compare.  Otherwise the least and the greatest
 * active address are equal: two vector reductions.  (The first active
 * lane's address, a variable-index extract, went through the stack, and
 * the load waited for the wide store: 18% of the histogram.) */
LLVMValueRef lanes_share_address(fn *F, LLVMValueRef addrs, LLVMValueRef mask)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMTypeRef vt = LLVMTypeOf(addrs), bt = vec_of(L->i1);
    LLVMValueRef bits = mask_bits(F, mask);
    LLVMBasicBlockRef full = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "share.full");
    LLVMBasicBlockRef part = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "share.part");
    LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "share.join");
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, bits, const_i32(L, UINT32_MAX), ""), full, part);

    LLVMPositionBuilderAtEnd(b, full);
    LLVMValueRef next[W];
    for (unsigned i = 0; i < W; i++)
        next[i] = const_i32(L, (i + 1) % W);
    LLVMValueRef rotated = LLVMBuildShuffleVector(b, addrs, LLVMGetPoison(vt), LLVMConstVector(next, W), "");
    LLVMValueRef eq = LLVMBuildICmp(b, LLVMIntEQ, addrs, rotated, "");
    LLVMValueRef same_full = call_intrinsic(L, "llvm.vector.reduce.and", &bt, 1, &eq, 1);
    LLVMBuildBr(b, join);

    LLVMPositionBuilderAtEnd(b, part);
    LLVMValueRef lo = LLVMBuildSelect(b, mask, addrs, LLVMConstAllOnes(vt), "");
    LLVMValueRef hi = LLVMBuildSelect(b, mask, addrs, LLVMConstNull(vt), "");
    LLVMValueRef least = call_intrinsic(L, "llvm.vector.reduce.umin", &vt, 1, &lo, 1);
    LLVMValueRef greatest = call_intrinsic(L, "llvm.vector.reduce.umax", &vt, 1, &hi, 1);
    LLVMValueRef any = LLVMBuildICmp(b, LLVMIntNE, bits, const_i32(L, 0), "");
    LLVMValueRef same_part = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntEQ, least, greatest, ""), any, "");
    LLVMBuildBr(b, join);

    LLVMPositionBuilderAtEnd(b, join);
    LLVMValueRef same = LLVMBuildPhi(b, L->i1, "same");
    LLVMValueRef vals[2] = {same_full, same_part};
    LLVMBasicBlockRef from[2] = {full, part};
    LLVMAddIncoming(same, vals, from, 2);
    return same;
}

static LLVMValueRef identity(LLVMTypeRef t, uint8_t red, bool s)
{
    unsigned n = LLVMGetIntTypeWidth(t);
    uint64_t ones = n == 64 ? ~0ull : (1ull << n) - 1, smin = 1ull << (n - 1);
    switch (red) {
    case PTX_RED_AND: return LLVMConstInt(t, ones, false);
    case PTX_RED_MIN: return LLVMConstInt(t, s ? smin - 1 : ones, false);
    case PTX_RED_MAX: return LLVMConstInt(t, s ? smin : 0, false);
    default: return LLVMConstInt(t, 0, false); /* add, or, xor */
    }
}

/* x op y, lane by lane (or on scalars). */
static LLVMValueRef op2(fn *F, uint8_t red, bool s, LLVMValueRef x, LLVMValueRef y)
{
    lw *L = F->L;
    LLVMTypeRef t = LLVMTypeOf(x);
    LLVMValueRef args[2] = {x, y};
    switch (red) {
    case PTX_RED_ADD: return LLVMBuildAdd(L->b, x, y, "");
    case PTX_RED_AND: return LLVMBuildAnd(L->b, x, y, "");
    case PTX_RED_OR: return LLVMBuildOr(L->b, x, y, "");
    case PTX_RED_XOR: return LLVMBuildXor(L->b, x, y, "");
    case PTX_RED_MIN: return call_intrinsic(L, s ? "llvm.smin" : "llvm.umin", &t, 1, args, 2);
    default: return call_intrinsic(L, s ? "llvm.smax" : "llvm.umax", &t, 1, args, 2);
    }
}

static LLVMValueRef reduce(fn *F, uint8_t red, bool s, LLVMValueRef v)
{
    const char *name;
    switch (red) {
    case PTX_RED_ADD: name = "llvm.vector.reduce.add"; break;
    case PTX_RED_AND: name = "llvm.vector.reduce.and"; break;
    case PTX_RED_OR: name = "llvm.vector.reduce.or"; break;
    case PTX_RED_XOR: name = "llvm.vector.reduce.xor"; break;
    case PTX_RED_MIN: name = s ? "llvm.vector.reduce.smin" : "llvm.vector.reduce.umin"; break;
    default: name = s ? "llvm.vector.reduce.smax" : "llvm.vector.reduce.umax"; break;
    }
    LLVMTypeRef vt = LLVMTypeOf(v);
    return call_intrinsic(F->L, name, &vt, 1, &v, 1);
}

/* v shifted up by `by` lanes, the identity shifted in at lane 0. */
static LLVMValueRef shift_up(fn *F, LLVMValueRef v, LLVMValueRef id, uint32_t by)
{
    lw *L = F->L;
    LLVMValueRef idx[W];
    for (uint32_t i = 0; i < W; i++)
        idx[i] = const_i32(L, i >= by ? i - by : W);
    return LLVMBuildShuffleVector(L->b, v, splat(L, id), LLVMConstVector(idx, W), "");
}

/* Lane i: op over lanes 0..i-1 (log-step scan, then one shift). */
static LLVMValueRef exclusive_scan(fn *F, uint8_t red, bool s, LLVMValueRef v, LLVMValueRef id)
{
    for (uint32_t by = 1; by < W; by *= 2)
        v = op2(F, red, s, v, shift_up(F, v, id, by));
    return shift_up(F, v, id, 1);
}

void atomic_aggregate(fn *F, const struct atom_op *op, uint8_t red, bool s, LLVMValueRef addrs, LLVMValueRef v,
                      LLVMValueRef out, LLVMValueRef mask)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef id = identity(LLVMGetElementType(LLVMTypeOf(v)), red, s);
    v = LLVMBuildSelect(b, mask, v, splat(L, id), "");
    LLVMValueRef args[2] = {mask_bits(F, mask), LLVMConstInt(L->i1, 0, false)};
    LLVMValueRef first = call_intrinsic(L, "llvm.cttz", &L->i32, 1, args, 2);
    LLVMValueRef addr = LLVMBuildExtractElement(b, addrs, first, "");
    LLVMValueRef old = atomic_rmw_at(F, op, addr, reduce(F, red, s, v));
    if (out)
        LLVMBuildStore(b, op2(F, red, s, splat(L, old), exclusive_scan(F, red, s, v, id)), out);
}
