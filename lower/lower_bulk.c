/* lower_bulk.c - the bulk asynchronous copies of sm_90 (cp.async.bulk),
 * which nvcc emits for cuda::memcpy_async and cuda::device::memcpy_async_tx.
 *
 * As with cp.async, a copy is done when it is issued: each active lane
 * copies its `size` bytes at once.  The mbarrier form then performs the
 * copy's complete-tx of `size` bytes on the mbarrier, which is exactly
 * what the hardware does when the copy lands (the tx-count may dip below
 * zero until the matching expect-tx, as the ISA allows); the bulk-group
 * form has nothing to signal, so commit_group and wait_group are no-ops.
 * A multicast copy writes into other CTAs of the cluster, and clusters
 * here are one CTA, so it is a load error rather than a guess. */
#include "lower_internal.h"

typedef struct bulk_copy {
    LLVMValueRef dst, src, size, mbar; /* mbar: NULL for .bulk_group */
} bulk_copy;

static void bulk_lane(fn *F, LLVMValueRef lane, void *ctx)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    bulk_copy *c = ctx;
    LLVMValueRef d = LLVMBuildIntToPtr(b, LLVMBuildExtractElement(b, c->dst, lane, ""), L->ptr, "");
    LLVMValueRef s = LLVMBuildIntToPtr(b, LLVMBuildExtractElement(b, c->src, lane, ""), L->ptr, "");
    LLVMValueRef n = LLVMBuildExtractElement(b, c->size, lane, "");
    LLVMBuildMemCpy(b, d, 1, s, 1, n);
    if (!c->mbar)
        return;
    LLVMTypeRef p[3] = {L->ptr, L->i32, L->i64};
    LLVMValueRef f = declare_rt(L, "ptxjit_rt_mbarrier", L->i64, p, 3);
    LLVMValueRef bar = LLVMBuildIntToPtr(b, LLVMBuildExtractElement(b, c->mbar, lane, ""), L->ptr, "");
    LLVMValueRef args[3] = {bar, const_i32(L, PTXJIT_MBAR_COMPLETE_TX), n};
    LLVMBuildCall2(b, LLVMGlobalGetValueType(f), f, args, 3, "");
}

static void lower_bulk_copy(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    lw *L = F->L;
    if (in->flags & PTX_FLAG_BIT(MULTICAST)) {
        lw_error(L, in->loc, "cp.async.bulk .multicast::cluster needs clusters of more than one CTA");
        return;
    }
    if (in->flags & PTX_FLAG_BIT(CP_MASK)) {
        lw_error(L, in->loc, "cp.async.bulk .cp_mask (sm_100) is not supported");
        return;
    }
    bulk_copy c = {
        .dst = address_of(F, in, &in->opds[0], in->mod[PTX_CAT_SPACE]),
        .src = address_of(F, in, &in->opds[1], in->mod[PTX_CAT_SPACE2]),
        .size = to_type(F, read_opd(F, &in->opds[2], PTX_TYPE_U32, false), PTX_TYPE_U32, PTX_TYPE_U64, false),
    };
    if (in->mod[PTX_CAT_COMPLETION] == PTX_COMPLETION_MBARRIER_TX)
        c.mbar = address_of(F, in, &in->opds[3], PTX_SPACE_SHARED_CLUSTER);
    for_each_lane(F, mask, bulk_lane, &c);
}

bool lower_bulk(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    switch (in->op) {
    case PTX_OP_CP_ASYNC_BULK:
        lower_bulk_copy(F, in, mask);
        return true;
    case PTX_OP_CP_ASYNC_BULK_COMMIT_GROUP:
    case PTX_OP_CP_ASYNC_BULK_WAIT_GROUP:
    case PTX_OP_CP_ASYNC_BULK_PREFETCH: /* a cache hint */
        return true;
    default:
        return false;
    }
}
