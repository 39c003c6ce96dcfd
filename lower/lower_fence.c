/* lower_fence.c - fence, membar and fence.proxy (DESIGN.md "Memory model
 * and atomics").
 *
 *   fence.sc (gpu, cluster, sys), membar.gl/.sys  -> fence seq_cst (mfence)
 *   fence.acq_rel/.acquire/.release (same scopes) -> the same LLVM ordering
 *                                                    (no instruction on x86)
 *   any .cta fence, membar.cta                    -> single-thread fence: the
 *                                                    CTA's warps share one OS thread
 *   fence.proxy.*, membar.proxy.*                 -> single-thread fence: every
 *                                                    proxy is the same memory here and
 *                                                    async copies complete when issued
 * A cluster is one CTA today, so .cluster orders like .gpu (safe either way). */
#include "lower_internal.h"

static LLVMAtomicOrdering fence_order(uint8_t sem)
{
    switch (sem) {
    case PTX_SEM_SC: return LLVMAtomicOrderingSequentiallyConsistent;
    case PTX_SEM_ACQUIRE: return LLVMAtomicOrderingAcquire;
    case PTX_SEM_RELEASE: return LLVMAtomicOrderingRelease;
    default: return LLVMAtomicOrderingAcquireRelease; /* .acq_rel, the default */
    }
}

bool lower_fence(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    (void)mask; /* a fence orders the warp's own accesses; no lane state */
    LLVMBuilderRef b = F->L->b;
    uint8_t scope = in->mod[PTX_CAT_SCOPE];
    switch (in->op) {
    case PTX_OP_MEMBAR: /* a synonym of fence.sc with scope cta, gpu (gl) or sys */
        LLVMBuildFence(b, LLVMAtomicOrderingSequentiallyConsistent, scope == PTX_SCOPE_CTA, "");
        return true;
    case PTX_OP_FENCE:
        if (in->mod[PTX_CAT_MODE] == PTX_MODE_MBARRIER_INIT) /* fence.mbarrier_init.release */
            LLVMBuildFence(b, LLVMAtomicOrderingRelease, false, "");
        else
            LLVMBuildFence(b, fence_order(in->mod[PTX_CAT_SEM]), scope == PTX_SCOPE_CTA, "");
        return true;
    case PTX_OP_FENCE_PROXY:
    case PTX_OP_MEMBAR_PROXY: /* a synonym of fence.proxy */
        LLVMBuildFence(b, LLVMAtomicOrderingSequentiallyConsistent, true, "");
        return true;
    default:
        return false;
    }
}
