/* launch.c - kernel launches: cuLaunchKernel (kernelParams or the `extra`
 * parameter buffer), cuLaunchKernelEx with its attributes, and cooperative
 * launches; validation with the CUresults NVIDIA's driver returns, then a
 * launch operation in stream order.  A kernel fault becomes the context's
 * sticky error (ILLEGAL_ADDRESS, MISALIGNED_ADDRESS, LAUNCH_FAILED for
 * trap, ASSERT).  A cooperative grid runs all its blocks at once and gets
 * the workspace that cg::this_grid().sync() needs; in a plain launch that
 * sync traps (LAUNCH_FAILED), as the code nvcc emits does when is_valid()
 * is false. */
#include "cu_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

CUresult cu_result_of(ptxjit_status st)
{
    switch (st) {
    case PTXJIT_OK: return CUDA_SUCCESS;
    case PTXJIT_ERR_FAULT: return CUDA_ERROR_ILLEGAL_ADDRESS;
    case PTXJIT_ERR_TRAP: return CUDA_ERROR_LAUNCH_FAILED;
    case PTXJIT_ERR_ASSERT: return CUDA_ERROR_ASSERT;
    case PTXJIT_ERR_MISALIGNED: return CUDA_ERROR_MISALIGNED_ADDRESS;
    case PTXJIT_ERR_NOMEM: return CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
}

typedef struct launch_op {
    cu_op op;
    const ptxjit_kernel *k;
    ptxjit_launch_cfg cfg;
    bool cooperative;
    _Alignas(16) unsigned char params[]; /* the parameter buffer: aligned as a GPU's, so that
                                          * an aligned access through its address is */
} launch_op;

static CUresult launch_run(cu_op *op)
{
    launch_op *l = (launch_op *)op;
    char err[640];
    ptxjit_launch_opts opts = {.cooperative = l->cooperative, .heap = l->op.ctx->heap};
    ptxjit_status st = ptxjit_launch_with(cu_engine(), l->k, &l->cfg, &opts, err, sizeof err);
    /* A GPU's driver gives only the error code; the line says which
     * kernel, block and address */
    if (st)
        fprintf(stderr, "ptxjit: %s\n", err);
    return cu_result_of(st);
}

/* ---- validation ------------------------------------------------------------------------------ */

static CUresult check_dims(const struct CUfunc_st *f, const unsigned g[3], const unsigned b[3])
{
    static const unsigned gmax[3] = {2147483647u, 65535u, 65535u}, bmax[3] = {1024, 1024, 64};
    for (int i = 0; i < 3; i++)
        if (!g[i] || !b[i] || g[i] > gmax[i] || b[i] > bmax[i])
            return CUDA_ERROR_INVALID_VALUE;
    uint64_t threads = (uint64_t)b[0] * b[1] * b[2];
    int max = 0;
    cu_func_get_attr(f, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &max);
    if (threads > (uint64_t)max)
        return CUDA_ERROR_INVALID_VALUE;
    const uint32_t *req = f->info->reqntid;
    if (req[0] && (b[0] != req[0] || b[1] != (req[1] ? req[1] : 1) || b[2] != (req[2] ? req[2] : 1)))
        return CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS;
}

/* Copies the arguments into the parameter buffer: kernelParams[i] points
 * at argument i; `extra` carries a ready buffer and its size. */
static CUresult gather_params(const ptxjit_kernel_info *ki, void **params, void **extra,
                              unsigned char *buf)
{
    if (params && extra)
        return CUDA_ERROR_INVALID_VALUE;
    if (extra) {
        const void *ptr = NULL;
        const size_t *size = NULL;
        for (size_t i = 0; extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
            if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
                ptr = extra[i + 1];
            else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE)
                size = extra[i + 1];
            else
                return CUDA_ERROR_INVALID_VALUE;
        }
        if (ki->param_bytes && (!ptr || !size || *size < ki->param_bytes))
            return CUDA_ERROR_INVALID_VALUE;
        if (ki->param_bytes)
            memcpy(buf, ptr, ki->param_bytes);
        return CUDA_SUCCESS;
    }
    if (ki->nparams && !params)
        return CUDA_ERROR_INVALID_VALUE;
    for (uint32_t i = 0; i < ki->nparams; i++) {
        if (!params[i])
            return CUDA_ERROR_INVALID_VALUE;
        memcpy(buf + ki->params[i].offset, params[i], ki->params[i].size);
    }
    return CUDA_SUCCESS;
}

static CUresult launch_in(const cu_launch_req *r, struct CUctx_st *ctx, struct CUstream_st *s)
{
    struct CUfunc_st *f;
    CUresult e = cu_func_resolve(r->f, &f);
    if (e)
        return e;
    if (f->mod->ctx != ctx)
        return CUDA_ERROR_INVALID_HANDLE;
    if ((e = cu_ctx_sticky(ctx)) || (e = check_dims(f, r->grid, r->block)))
        return e;
    if ((int64_t)r->smem > f->max_dyn_smem)
        return CUDA_ERROR_INVALID_VALUE;
    if (r->cooperative) {
        uint64_t blocks = (uint64_t)r->grid[0] * r->grid[1] * r->grid[2];
        int per_sm = cu_func_blocks_per_sm(f, (int)(r->block[0] * r->block[1] * r->block[2]), r->smem);
        if (blocks > (uint64_t)per_sm * (uint64_t)cu_device()->sm_count)
            return CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE;
    }
    const ptxjit_kernel_info *ki = f->info;
    launch_op *op = malloc(sizeof *op + ki->param_bytes);
    if (!op)
        return CUDA_ERROR_OUT_OF_MEMORY;
    if ((e = gather_params(ki, r->params, r->extra, op->params))) {
        free(op);
        return e;
    }
    op->op = (cu_op){launch_run, NULL, ctx};
    op->k = f->k;
    op->cooperative = r->cooperative;
    op->cfg = (ptxjit_launch_cfg){.shared_bytes = r->smem, .params = op->params};
    memcpy(op->cfg.grid, r->grid, sizeof op->cfg.grid);
    memcpy(op->cfg.block, r->block, sizeof op->cfg.block);
    return cu_stream_submit(s, &op->op);
}

/* Holds the context while submitting: a concurrent cuCtxDestroy waits for
 * the launch to be queued (then for the queue), or the launch fails with
 * CUDA_ERROR_CONTEXT_IS_DESTROYED. */
CUresult cu_launch(const cu_launch_req *r)
{
    struct CUctx_st *ctx;
    struct CUstream_st *s;
    CUresult e = cu_stream_hold(r->stream, &ctx, &s);
    if (e)
        return e;
    e = launch_in(r, ctx, s);
    cu_ctx_release(ctx);
    return e;
}

/* ---- entry points ----------------------------------------------------------------------------- */

CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                        unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                        unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                        void **kernelParams, void **extra)
{
    cu_launch_req r = {f, {gridDimX, gridDimY, gridDimZ}, {blockDimX, blockDimY, blockDimZ},
                       sharedMemBytes, hStream, kernelParams, extra, false};
    return cu_launch(&r);
}

CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                   unsigned int gridDimZ, unsigned int blockDimX,
                                   unsigned int blockDimY, unsigned int blockDimZ,
                                   unsigned int sharedMemBytes, CUstream hStream,
                                   void **kernelParams)
{
    cu_launch_req r = {f, {gridDimX, gridDimY, gridDimZ}, {blockDimX, blockDimY, blockDimZ},
                       sharedMemBytes, hStream, kernelParams, NULL, true};
    return cu_launch(&r);
}

/* Applies one launch attribute; events to record after the launch are
 * returned through *event. */
static CUresult launch_attr(const CUlaunchAttribute *a, cu_launch_req *r, CUevent *event)
{
    const CUlaunchAttributeValue *v = &a->value;
    switch (a->id) {
    case CU_LAUNCH_ATTRIBUTE_IGNORE:
    case CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW:
    case CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY:
    case CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
    case CU_LAUNCH_ATTRIBUTE_PRIORITY:
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP:
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN:
    case CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
    case CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING:
        return CUDA_SUCCESS; /* hints */
    case CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION:
        return CUDA_SUCCESS; /* launches in a stream are serialized anyway */
    case CU_LAUNCH_ATTRIBUTE_COOPERATIVE:
        r->cooperative = v->cooperative != 0;
        return CUDA_SUCCESS;
    case CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION:
    case CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION: {
        unsigned x = v->clusterDim.x, y = v->clusterDim.y, z = v->clusterDim.z;
        if (!x || !y || !z || r->grid[0] % x || r->grid[1] % y || r->grid[2] % z)
            return CUDA_ERROR_INVALID_CLUSTER_SIZE;
        return x * y * z == 1 ? CUDA_SUCCESS : CUDA_ERROR_NOT_SUPPORTED;
    }
    case CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT:
        *event = v->programmaticEvent.event;
        return CUDA_SUCCESS;
    case CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT:
        *event = v->launchCompletionEvent.event;
        return CUDA_SUCCESS;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

/* Programmatic and launch-completion events are recorded once the whole
 * grid finished: later than a GPU triggers them, never earlier. */
CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f, void **kernelParams,
                          void **extra)
{
    CUresult e = cu_check_init();
    if (e)
        return e;
    if (!config || (config->numAttrs && !config->attrs))
        return CUDA_ERROR_INVALID_VALUE;
    cu_launch_req r = {f,
                       {config->gridDimX, config->gridDimY, config->gridDimZ},
                       {config->blockDimX, config->blockDimY, config->blockDimZ},
                       config->sharedMemBytes,
                       config->hStream,
                       kernelParams,
                       extra,
                       false};
    CUevent events[2] = {NULL, NULL};
    unsigned nev = 0;
    for (unsigned i = 0; i < config->numAttrs; i++) {
        CUevent ev = NULL;
        if ((e = launch_attr(&config->attrs[i], &r, &ev)))
            return e;
        if (ev && nev < 2)
            events[nev++] = ev;
    }
    if ((e = cu_launch(&r)))
        return e;
    for (unsigned i = 0; i < nev; i++)
        if ((e = cuEventRecord(events[i], config->hStream)))
            return e;
    return CUDA_SUCCESS;
}
