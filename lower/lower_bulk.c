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
 * here are one CTA, so it is a load error rather than a guess.
 *
 * cp.reduce.async.bulk is the same with each element of the destination
 * atomically combined with the source's (lower_atomic.c's read-modify-
 * writes, element by element).  The addresses and size of both must be
 * multiples of 16 bytes, or the launch fails with a misaligned address as
 * on the hardware. */
#include "lower_internal.h"

typedef struct bulk_copy {
    LLVMValueRef dst, src, size, mbar; /* mbar: NULL for .bulk_group */
    const ptx_instr *reduce;           /* cp.reduce.async.bulk, else NULL */
    const ptx_instr *in;
} bulk_copy;

/* Fails the launch unless dst, src and n are all multiples of 16. */
static void check_aligned(fn *F, const ptx_instr *in, LLVMValueRef d, LLVMValueRef s, LLVMValueRef n)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef any = LLVMBuildOr(b, LLVMBuildOr(b, d, s, ""), n, "");
    LLVMValueRef bad = LLVMBuildICmp(b, LLVMIntNE, LLVMBuildAnd(b, any, const_i64(L, 15), ""), const_i64(L, 0), "");
    LLVMBasicBlockRef fail = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "bulk.misaligned");
    LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "bulk.aligned");
    LLVMBuildCondBr(b, bad, fail, ok);
    LLVMPositionBuilderAtEnd(b, fail);
    LLVMTypeRef p[2] = {L->ptr, L->i32};
    LLVMValueRef f = declare_rt(L, "ptxjit_rt_bulk_misaligned", L->voidt, p, 2);
    LLVMValueRef args[2] = {F->cta, const_i32(L, in->loc.line)};
    LLVMBuildCall2(b, LLVMGlobalGetValueType(f), f, args, 2, "");
    LLVMBuildUnreachable(b);
    LLVMPositionBuilderAtEnd(b, ok);
}

static void reduce_lane(fn *F, const ptx_instr *in, LLVMValueRef d, LLVMValueRef s, LLVMValueRef n)
{
    bool shared = in->mod[PTX_CAT_SPACE] != PTX_SPACE_GLOBAL;
    atomic_bulk_reduce(F, in->mod[PTX_CAT_RED], (ptx_type)in->types[0], shared, d, s, n);
}

static void bulk_lane(fn *F, LLVMValueRef lane, void *ctx)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    bulk_copy *c = ctx;
    LLVMValueRef d = LLVMBuildExtractElement(b, c->dst, lane, "");
    LLVMValueRef s = LLVMBuildExtractElement(b, c->src, lane, "");
    LLVMValueRef n = LLVMBuildExtractElement(b, c->size, lane, "");
    check_aligned(F, c->in, d, s, n);
    if (c->reduce)
        reduce_lane(F, c->reduce, d, s, n);
    else
        LLVMBuildMemCpy(b, LLVMBuildIntToPtr(b, d, L->ptr, ""), 1, LLVMBuildIntToPtr(b, s, L->ptr, ""), 1, n);
    if (!c->mbar)
        return;
    LLVMTypeRef p[3] = {L->ptr, L->i32, L->i64};
    LLVMValueRef f = declare_rt(L, "ptxjit_rt_mbarrier", L->i64, p, 3);
    LLVMValueRef bar = LLVMBuildIntToPtr(b, LLVMBuildExtractElement(b, c->mbar, lane, ""), L->ptr, "");
    LLVMValueRef args[3] = {bar, const_i32(L, PTXJIT_MBAR_COMPLETE_TX), n};
    LLVMBuildCall2(b, LLVMGlobalGetValueType(f), f, args, 3, "");
}

/* f16/bf16 .min/.max: the ISA does not say how they treat NaN and -0. */
static bool reduce_form_ok(fn *F, const ptx_instr *in)
{
    ptx_type t = (ptx_type)in->types[0];
    uint8_t red = in->mod[PTX_CAT_RED];
    if ((t == PTX_TYPE_F16 || t == PTX_TYPE_BF16) && red != PTX_RED_ADD) {
        lw_error(F->L, in->loc, "'cp.reduce.async.bulk.%s.%s' is not supported (NaN and signed-zero "
                                "semantics unspecified)", ptx_mod_text(PTX_CAT_RED, red), ptx_type_name(t));
        return false;
    }
    return true;
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
    if (in->op == PTX_OP_CP_REDUCE_ASYNC_BULK && !reduce_form_ok(F, in))
        return;
    bulk_copy c = {
        .reduce = in->op == PTX_OP_CP_REDUCE_ASYNC_BULK ? in : NULL,
        .in = in,
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
    case PTX_OP_CP_REDUCE_ASYNC_BULK:
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
