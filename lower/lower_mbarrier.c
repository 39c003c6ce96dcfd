/* lower_mbarrier.c - mbarrier.* and cp.async.mbarrier.arrive.
 *
 * The object's state machine is the runtime's (rt/mbarrier.c, contract in
 * ptxjit/abi.h); each active lane performs its operation in lane order,
 * like any per-thread access to shared memory.  A test that finds its
 * phase incomplete lets the CTA's other warps run and tests once more, so
 * that a wait loop (try_wait or test_wait in a loop) makes progress on one
 * OS thread instead of spinning. */
#include "lower_internal.h"

typedef struct mbar_call {
    LLVMValueRef addrs, args, out; /* out: alloca <32 x i64>, or NULL */
    uint32_t op;
} mbar_call;

static void mbar_lane(fn *F, LLVMValueRef lane, void *ctx)
{
    lw *L = F->L;
    mbar_call *c = ctx;
    LLVMTypeRef p[3] = {L->ptr, L->i32, L->i64};
    LLVMValueRef f = declare_rt(L, "ptxjit_rt_mbarrier", L->i64, p, 3);
    LLVMValueRef addr = LLVMBuildExtractElement(L->b, c->addrs, lane, "");
    LLVMValueRef arg = c->args ? LLVMBuildExtractElement(L->b, c->args, lane, "") : const_i64(L, 0);
    LLVMValueRef args[3] = {LLVMBuildIntToPtr(L->b, addr, L->ptr, ""), const_i32(L, c->op), arg};
    LLVMValueRef r = LLVMBuildCall2(L->b, LLVMGlobalGetValueType(f), f, args, 3, "");
    if (c->out)
        LLVMBuildStore(L->b, r, LLVMBuildGEP2(L->b, L->i64, c->out, &lane, 1, ""));
}

/* Runs `op` for every lane of mask; returns the per-lane results. */
static LLVMValueRef mbar_each(fn *F, LLVMValueRef mask, LLVMValueRef addrs, LLVMValueRef args,
                              uint32_t op)
{
    lw *L = F->L;
    mbar_call c = {addrs, args, entry_alloca(F, vec_of(L->i64), "mbar"), op};
    LLVMBuildStore(L->b, LLVMConstNull(vec_of(L->i64)), c.out);
    for_each_lane(F, mask, mbar_lane, &c);
    return LLVMBuildLoad2(L->b, vec_of(L->i64), c.out, "");
}

/* The object's addresses: an mbarrier is a .b64, 8-byte aligned. */
static LLVMValueRef mbar_addr(fn *F, const ptx_instr *in, uint32_t k, LLVMValueRef mask)
{
    LLVMValueRef a = address_of(F, in, &in->opds[k], in->mod[PTX_CAT_SPACE]);
    check_alignment(F, in, a, mask, 8);
    return a;
}

static LLVMValueRef arg64(fn *F, const ptx_instr *in, uint32_t k, ptx_type t)
{
    return to_type(F, read_opd(F, &in->opds[k], t, false), t, PTX_TYPE_U64, false);
}

/* mbarrier.arrive{.noComplete}{.expect_tx} state, [addr]{, count|txCount};
 * mbarrier.arrive_drop likewise.  (.noComplete promises the arrive does
 * not complete the phase; an arrive that keeps the promise is a plain
 * arrive.) */
static void lower_arrive(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    lw *L = F->L;
    bool drop = in->op == PTX_OP_MBARRIER_ARRIVE_DROP, tx = in->flags & PTX_FLAG_BIT(EXPECT_TX);
    uint32_t op = tx ? (drop ? PTXJIT_MBAR_ARRIVE_DROP_TX : PTXJIT_MBAR_ARRIVE_TX)
                     : (drop ? PTXJIT_MBAR_ARRIVE_DROP : PTXJIT_MBAR_ARRIVE);
    LLVMValueRef n = in->nopds > 2 ? arg64(F, in, 2, PTX_TYPE_U32) : splat(L, const_i64(L, 1));
    LLVMValueRef token = mbar_each(F, mask, mbar_addr(F, in, 1, mask), n, op);
    if (in->opds[0].kind != PTX_OPD_SINK)
        write_reg(F, &in->opds[0], token, PTX_TYPE_B64, false, mask);
}

/* mbarrier.test_wait / try_wait {.parity} p, [addr], state|parity{, hint}. */
static void lower_test(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    bool parity = in->flags & PTX_FLAG_BIT(PARITY);
    uint32_t op = parity ? PTXJIT_MBAR_TEST_PARITY : PTXJIT_MBAR_TEST;
    LLVMValueRef addrs = mbar_addr(F, in, 1, mask);
    LLVMValueRef arg = arg64(F, in, 2, parity ? PTX_TYPE_U32 : PTX_TYPE_B64);
    LLVMValueRef done = mbar_each(F, mask, addrs, arg, op);
    LLVMValueRef open = LLVMBuildAnd(b, mask, LLVMBuildICmp(b, LLVMIntEQ, done, LLVMConstNull(vec_of(L->i64)), ""), "");
    LLVMValueRef any_open = LLVMBuildICmp(b, LLVMIntNE, mask_bits(F, open), const_i32(L, 0), "");
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(b);
    LLVMBasicBlockRef again = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "mbar.again");
    LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "mbar.tested");
    LLVMBuildCondBr(b, any_open, again, join);
    LLVMPositionBuilderAtEnd(b, again);
    yield_warp(F);
    LLVMValueRef done2 = mbar_each(F, open, addrs, arg, op);
    LLVMValueRef merged = LLVMBuildSelect(b, open, done2, done, "");
    LLVMBasicBlockRef again_end = LLVMGetInsertBlock(b);
    LLVMBuildBr(b, join);
    LLVMPositionBuilderAtEnd(b, join);
    LLVMValueRef phi = LLVMBuildPhi(b, vec_of(L->i64), "");
    LLVMValueRef vals[2] = {done, merged};
    LLVMBasicBlockRef from[2] = {pre, again_end};
    LLVMAddIncoming(phi, vals, from, 2);
    LLVMValueRef p = LLVMBuildICmp(b, LLVMIntNE, phi, LLVMConstNull(vec_of(L->i64)), "");
    write_reg(F, &in->opds[0], p, PTX_TYPE_PRED, false, mask);
}

/* mbarrier.pending_count.b64 count, state: read from the token. */
static void lower_pending_count(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    lw *L = F->L;
    LLVMValueRef s = read_opd(F, &in->opds[1], PTX_TYPE_B64, false);
    LLVMValueRef n = LLVMBuildAnd(L->b, s, splat(L, const_i64(L, PTXJIT_MBAR_TOKEN_COUNT)), "");
    write_reg(F, &in->opds[0], LLVMBuildTrunc(L->b, n, vec_of(L->i32), ""), PTX_TYPE_U32, false, mask);
}

bool lower_mbarrier(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    switch (in->op) {
    case PTX_OP_MBARRIER_INIT:
        mbar_each(F, mask, mbar_addr(F, in, 0, mask), arg64(F, in, 1, PTX_TYPE_U32), PTXJIT_MBAR_INIT);
        return true;
    case PTX_OP_MBARRIER_INVAL:
        mbar_each(F, mask, mbar_addr(F, in, 0, mask), NULL, PTXJIT_MBAR_INVAL);
        return true;
    case PTX_OP_MBARRIER_EXPECT_TX:
    case PTX_OP_MBARRIER_COMPLETE_TX:
        mbar_each(F, mask, mbar_addr(F, in, 0, mask), arg64(F, in, 1, PTX_TYPE_U32),
                  in->op == PTX_OP_MBARRIER_EXPECT_TX ? PTXJIT_MBAR_EXPECT_TX : PTXJIT_MBAR_COMPLETE_TX);
        return true;
    case PTX_OP_MBARRIER_ARRIVE:
    case PTX_OP_MBARRIER_ARRIVE_DROP:
        lower_arrive(F, in, mask);
        return true;
    case PTX_OP_MBARRIER_TEST_WAIT:
    case PTX_OP_MBARRIER_TRY_WAIT:
        lower_test(F, in, mask);
        return true;
    case PTX_OP_MBARRIER_PENDING_COUNT:
        lower_pending_count(F, in, mask);
        return true;
    case PTX_OP_CP_ASYNC_MBARRIER_ARRIVE:
        /* cp.async copies complete when issued, so the arrive-on happens at
         * once: with .noinc it is an arrival; without, the pending count is
         * first raised by one, a net change of zero. */
        if (in->flags & PTX_FLAG_BIT(NOINC))
            mbar_each(F, mask, mbar_addr(F, in, 0, mask), splat(F->L, const_i64(F->L, 1)), PTXJIT_MBAR_ARRIVE);
        return true;
    default:
        return false;
    }
}
