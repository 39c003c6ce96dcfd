/* context.c - contexts: the per-thread current-context stack, created
 * contexts, the device's primary context, limits and configuration.
 *
 * A context owns its modules, streams, events and allocations; destroying
 * it (or releasing the primary context for the last time, or resetting it)
 * frees them all.  Handles stay in the registry only while the context
 * lives, so another thread that still has it current gets
 * CUDA_ERROR_CONTEXT_IS_DESTROYED rather than a dangling pointer. */
#include "cu_internal.h"

#include <stdlib.h>
#include <string.h>

enum { STACK_MAX = 64 };

static _Thread_local struct CUctx_st *stack[STACK_MAX];
static _Thread_local int depth;

static pthread_mutex_t ctx_lock = PTHREAD_MUTEX_INITIALIZER; /* create/destroy/primary state */
static pthread_cond_t ctx_idle = PTHREAD_COND_INITIALIZER;   /* users at 0; a primary stopped */
static struct CUctx_st *primary;

void cu_list_init(cu_list_node *h) { h->prev = h->next = h; }
bool cu_list_empty(const cu_list_node *h) { return h->next == h; }

void cu_list_push(cu_list_node *h, cu_list_node *n)
{
    n->prev = h->prev;
    n->next = h;
    h->prev->next = n;
    h->prev = n;
}

void cu_list_unlink(cu_list_node *n)
{
    n->prev->next = n->next;
    n->next->prev = n->prev;
    n->prev = n->next = n;
}

/* Defaults of an NVIDIA driver. */
static void ctx_reset_state(struct CUctx_st *c, unsigned flags)
{
    c->flags = flags;
    c->api_version = 3020;
    memset(c->limits, 0, sizeof c->limits);
    c->limits[CU_LIMIT_STACK_SIZE] = 1024;
    c->limits[CU_LIMIT_PRINTF_FIFO_SIZE] = 1 << 20;
    c->limits[CU_LIMIT_MALLOC_HEAP_SIZE] = 8 << 20;
    c->limits[CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH] = 2;
    c->limits[CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT] = 2048;
    c->limits[CU_LIMIT_MAX_L2_FETCH_GRANULARITY] = 128;
    c->cache_config = CU_FUNC_CACHE_PREFER_NONE;
    c->smem_config = CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE;
    c->default_pool = c->current_pool = NULL;
    cu_list_init(&c->modules);
    cu_list_init(&c->libraries);
    cu_list_init(&c->streams);
    cu_list_init(&c->events);
}

/* Brings up a context's resources: its id, its stream scheduler and the
 * legacy NULL stream. */
static bool ctx_start(struct CUctx_st *c, unsigned flags)
{
    ctx_reset_state(c, flags);
    c->id = cu_next_id();
    c->sched = rt_sched_create(NULL);
    c->heap = ptxjit_heap_create(c->limits[CU_LIMIT_MALLOC_HEAP_SIZE]);
    c->legacy = c->sched && c->heap ? cu_stream_new(c, CU_STREAM_LEGACY_NULL, 0, 0) : NULL;
    if (!c->legacy) {
        rt_sched_destroy(c->sched);
        ptxjit_heap_destroy(c->heap);
        c->sched = NULL;
        c->heap = NULL;
    }
    return c->legacy != NULL;
}

/* Waits for the context's work and frees everything it owns. */
static void ctx_stop(struct CUctx_st *c)
{
    cu_ctx_sync(c);
    cu_ctx_free_modules(c);
    cu_ctx_free_streams(c);
    rt_sched_destroy(c->sched);
    c->sched = NULL;
    ptxjit_heap_destroy(c->heap);
    c->heap = NULL;
    cu_map_release_ctx(c);
    c->legacy = NULL;
}

struct CUctx_st *cu_primary(void)
{
    pthread_mutex_lock(&ctx_lock);
    if (!primary && (primary = calloc(1, sizeof *primary))) {
        pthread_mutex_init(&primary->lock, NULL);
        primary->primary = true;
        ctx_reset_state(primary, 0);
        if (!cu_handle_add(primary, CU_KIND_CONTEXT)) {
            free(primary);
            primary = NULL;
        }
    }
    pthread_mutex_unlock(&ctx_lock);
    return primary;
}

struct CUctx_st *cu_ctx_top(void) { return depth ? stack[depth - 1] : NULL; }

/* The primary context before its first retain (or after its last release):
 * NVIDIA's runtime makes it current first and retains it afterwards. */
static bool is_idle_primary(const struct CUctx_st *c)
{
    return c && cu_handle_valid(c, CU_KIND_CONTEXT) && c->primary && !c->active;
}

bool cu_ctx_valid(const struct CUctx_st *c)
{
    return c && cu_handle_valid(c, CU_KIND_CONTEXT) && (!c->primary || c->active);
}

CUresult cu_ctx_current(struct CUctx_st **out)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    struct CUctx_st *c = depth ? stack[depth - 1] : NULL;
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (!cu_ctx_valid(c))
        return CUDA_ERROR_CONTEXT_IS_DESTROYED;
    *out = c;
    return CUDA_SUCCESS;
}

CUresult cu_ctx_hold(CUstream stream, struct CUctx_st **out)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    struct CUctx_st *c = depth ? stack[depth - 1] : NULL;
    if (!stream && !c)
        return CUDA_ERROR_INVALID_CONTEXT;
    pthread_mutex_lock(&ctx_lock);
    struct CUstream_st *s = stream ? cu_stream_handle_get(stream) : NULL;
    if (stream && !s)
        r = CUDA_ERROR_INVALID_HANDLE;
    else if (!cu_ctx_valid(c = s ? s->ctx : c))
        r = CUDA_ERROR_CONTEXT_IS_DESTROYED;
    else
        atomic_fetch_add(&c->users, 1);
    pthread_mutex_unlock(&ctx_lock);
    if (!r)
        *out = c;
    return r;
}

void cu_ctx_release(struct CUctx_st *c)
{
    if (atomic_fetch_sub(&c->users, 1) == 1) {
        pthread_mutex_lock(&ctx_lock);
        pthread_cond_broadcast(&ctx_idle);
        pthread_mutex_unlock(&ctx_lock);
    }
}

/* Waits until no call holds c (ctx_lock held; c already invalid, so no new
 * hold succeeds). */
static void ctx_wait_unused(struct CUctx_st *c)
{
    while (atomic_load(&c->users) > 0)
        pthread_cond_wait(&ctx_idle, &ctx_lock);
}

CUresult cu_ctx_enter(struct CUctx_st **out)
{
    CUresult r = cu_ctx_current(out);
    return r ? r : cu_ctx_sticky(*out);
}

CUresult cu_ctx_sticky(const struct CUctx_st *c)
{
    int e = c->sched ? rt_sched_error(c->sched) : 0;
    return e > 0 ? (CUresult)e : CUDA_SUCCESS;
}

/* ---- creation and destruction ---------------------------------------------- */

static CUresult ctx_create(CUcontext *pctx, unsigned flags, CUdevice dev)
{
    CUresult r = cu_check_device(dev);
    if (r)
        return r;
    if (!pctx || (flags & ~(unsigned)CU_CTX_FLAGS_MASK) || (flags & CU_CTX_SCHED_MASK) == 3 ||
        (flags & CU_CTX_SCHED_MASK) > CU_CTX_SCHED_BLOCKING_SYNC)
        return CUDA_ERROR_INVALID_VALUE;
    if (depth == STACK_MAX)
        return CUDA_ERROR_OUT_OF_MEMORY;
    struct CUctx_st *c = calloc(1, sizeof *c);
    if (!c)
        return CUDA_ERROR_OUT_OF_MEMORY;
    pthread_mutex_init(&c->lock, NULL);
    if (!cu_handle_add(c, CU_KIND_CONTEXT)) {
        free(c);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    if (!ctx_start(c, flags)) {
        cu_handle_remove(c);
        pthread_mutex_destroy(&c->lock);
        free(c);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    stack[depth++] = c;
    *pctx = c;
    return CUDA_SUCCESS;
}

CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
    return ctx_create(pctx, flags, dev);
}

/* Execution affinity (a share of the SMs) is not supported, as
 * cuDeviceGetExecAffinitySupport says. */
CUresult cuCtxCreate_v3(CUcontext *pctx, CUexecAffinityParam *paramsArray, int numParams,
                        unsigned int flags, CUdevice dev)
{
    if (numParams < 0 || (numParams > 0 && !paramsArray))
        return CUDA_ERROR_INVALID_VALUE;
    if (numParams > 0)
        return cu_init_or(CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY);
    return ctx_create(pctx, flags, dev);
}

CUresult cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *params, unsigned int flags,
                        CUdevice dev)
{
    if (params && params->numExecAffinityParams > 0)
        return cu_init_or(CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY);
    if (params && params->cigParams)
        return cu_init_or(CUDA_ERROR_NOT_SUPPORTED);
    return ctx_create(pctx, flags, dev);
}

CUresult cuCtxDestroy_v2(CUcontext ctx)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!ctx) /* NVIDIA's driver 580 says so, not INVALID_CONTEXT */
        return CUDA_ERROR_INVALID_VALUE;
    if (!cu_handle_valid(ctx, CU_KIND_CONTEXT) || ctx->primary)
        return CUDA_ERROR_INVALID_CONTEXT;
    cu_ctx_local_release(ctx); /* the context still answers while they run */
    pthread_mutex_lock(&ctx_lock);
    bool ok = ctx && cu_handle_valid(ctx, CU_KIND_CONTEXT) && !ctx->primary;
    if (ok) {
        cu_handle_remove(ctx);
        ctx_wait_unused(ctx);
    }
    pthread_mutex_unlock(&ctx_lock);
    if (!ok)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (depth && stack[depth - 1] == ctx)
        depth--;
    ctx_stop(ctx);
    pthread_mutex_destroy(&ctx->lock);
    free(ctx);
    return CUDA_SUCCESS;
}

/* ---- the current-context stack ----------------------------------------------------- */

CUresult cuCtxPushCurrent_v2(CUcontext ctx)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!cu_ctx_valid(ctx))
        return CUDA_ERROR_INVALID_CONTEXT;
    if (depth == STACK_MAX)
        return CUDA_ERROR_OUT_OF_MEMORY;
    stack[depth++] = ctx;
    return CUDA_SUCCESS;
}

CUresult cuCtxPopCurrent_v2(CUcontext *pctx)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!depth)
        return CUDA_ERROR_INVALID_CONTEXT;
    struct CUctx_st *c = stack[--depth];
    if (pctx)
        *pctx = c;
    return CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext ctx)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!ctx) {
        if (depth)
            depth--;
        return CUDA_SUCCESS;
    }
    if (!cu_ctx_valid(ctx) && !is_idle_primary(ctx))
        return CUDA_ERROR_INVALID_CONTEXT;
    if (!depth)
        depth = 1;
    stack[depth - 1] = ctx;
    return CUDA_SUCCESS;
}

CUresult cuCtxGetCurrent(CUcontext *pctx)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    *pctx = depth ? stack[depth - 1] : NULL;
    return CUDA_SUCCESS;
}

/* An explicit context argument, or the current one when it is NULL. */
static CUresult ctx_or_current(CUcontext ctx, struct CUctx_st **out)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!ctx)
        return cu_ctx_current(out);
    if (!cu_ctx_valid(ctx))
        return CUDA_ERROR_INVALID_CONTEXT;
    *out = ctx;
    return CUDA_SUCCESS;
}

/* Answers for an unretained primary context too: it has its device. */
CUresult cuCtxGetDevice(CUdevice *device)
{
    struct CUctx_st *c;
    CUresult r = cu_ctx_current(&c);
    if (r && is_idle_primary(cu_ctx_top()))
        r = CUDA_SUCCESS;
    if (r)
        return r;
    if (!device)
        return CUDA_ERROR_INVALID_VALUE;
    *device = 0;
    return CUDA_SUCCESS;
}

CUresult cuCtxGetDevice_v2(CUdevice *device, CUcontext ctx)
{
    if (cu_abi12()) /* a CUDA 12 client found this name: it passes no context */
        return cuCtxGetDevice(device);
    struct CUctx_st *c;
    CUresult r = ctx_or_current(ctx, &c);
    if (r)
        return r;
    if (!device)
        return CUDA_ERROR_INVALID_VALUE;
    *device = 0;
    return CUDA_SUCCESS;
}

CUresult cuCtxGetFlags(unsigned int *flags)
{
    struct CUctx_st *c;
    CUresult r = cu_ctx_current(&c);
    if (r)
        return r;
    if (!flags)
        return CUDA_ERROR_INVALID_VALUE;
    /* host memory is always mapped (unified addressing): NVIDIA's driver
     * reports CU_CTX_MAP_HOST in every context's flags */
    *flags = c->flags | CU_CTX_MAP_HOST;
    return CUDA_SUCCESS;
}

CUresult cuCtxSetFlags(unsigned int flags)
{
    struct CUctx_st *c;
    CUresult r = cu_ctx_current(&c);
    if (r)
        return r;
    if (flags & ~(unsigned)CU_CTX_FLAGS_MASK)
        return CUDA_ERROR_INVALID_VALUE;
    c->flags = flags;
    return CUDA_SUCCESS;
}

CUresult cuCtxGetId(CUcontext ctx, unsigned long long *ctxId)
{
    struct CUctx_st *c;
    CUresult r = ctx_or_current(ctx, &c);
    if (r)
        return r;
    if (!ctxId)
        return CUDA_ERROR_INVALID_VALUE;
    *ctxId = c->id;
    return CUDA_SUCCESS;
}

CUresult cuCtxSynchronize(void)
{
    struct CUctx_st *c;
    CUresult r = cu_ctx_hold(NULL, &c);
    if (r)
        return r;
    r = cu_ctx_sync(c);
    cu_ctx_release(c);
    return r;
}

CUresult cuCtxSynchronize_v2(CUcontext ctx)
{
    if (cu_abi12()) /* a CUDA 12 client found this name: it passes no context */
        return cuCtxSynchronize();
    struct CUctx_st *c;
    CUresult r = ctx_or_current(ctx, &c);
    return r ? r : cu_ctx_sync(c);
}

CUresult cuCtxGetApiVersion(CUcontext ctx, unsigned int *version)
{
    struct CUctx_st *c;
    CUresult r = ctx_or_current(ctx, &c);
    if (r)
        return r;
    if (!version)
        return CUDA_ERROR_INVALID_VALUE;
    *version = c->api_version;
    return CUDA_SUCCESS;
}

/* ---- limits and configuration --------------------------------------------------------- */

CUresult cuCtxSetLimit(CUlimit limit, size_t value)
{
    struct CUctx_st *c;
    CUresult r = cu_ctx_current(&c);
    if (r)
        return r;
    switch (limit) {
    case CU_LIMIT_STACK_SIZE:
    case CU_LIMIT_PRINTF_FIFO_SIZE:
    case CU_LIMIT_MALLOC_HEAP_SIZE:
    case CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT:
        break;
    case CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH:
        if (value > 24)
            return CUDA_ERROR_INVALID_VALUE;
        break;
    case CU_LIMIT_MAX_L2_FETCH_GRANULARITY:
        if (value > 128)
            return CUDA_ERROR_INVALID_VALUE;
        /* NVIDIA rounds to the supported granularities 0, 32, 64, 128. */
        value = value == 0 ? 0 : value <= 32 ? 32 : value <= 64 ? 64 : 128;
        break;
    case CU_LIMIT_PERSISTING_L2_CACHE_SIZE:
        if (value != 0) /* no persisting L2 (MAX_PERSISTING_L2_CACHE_SIZE is 0) */
            return CUDA_ERROR_INVALID_VALUE;
        break;
    case CU_LIMIT_SHMEM_SIZE:
    case CU_LIMIT_CIG_ENABLED:
    case CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED:
        return CUDA_ERROR_UNSUPPORTED_LIMIT;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
    pthread_mutex_lock(&c->lock);
    /* CUDA refuses a new heap size after a kernel used malloc */
    bool ok = limit != CU_LIMIT_MALLOC_HEAP_SIZE || ptxjit_heap_set_limit(c->heap, value);
    if (ok)
        c->limits[limit] = value;
    pthread_mutex_unlock(&c->lock);
    return ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuCtxGetLimit(size_t *pvalue, CUlimit limit)
{
    struct CUctx_st *c;
    CUresult r = cu_ctx_current(&c);
    if (r)
        return r;
    if (!pvalue || limit < 0 || limit >= CU_LIMIT_MAX)
        return CUDA_ERROR_INVALID_VALUE;
    if (limit >= CU_LIMIT_SHMEM_SIZE)
        return CUDA_ERROR_UNSUPPORTED_LIMIT;
    pthread_mutex_lock(&c->lock);
    *pvalue = c->limits[limit];
    pthread_mutex_unlock(&c->lock);
    return CUDA_SUCCESS;
}

CUresult cuCtxGetCacheConfig(CUfunc_cache *pconfig)
{
    struct CUctx_st *c;
    CUresult r = cu_ctx_current(&c);
    if (r)
        return r;
    if (!pconfig)
        return CUDA_ERROR_INVALID_VALUE;
    *pconfig = c->cache_config;
    return CUDA_SUCCESS;
}

CUresult cuCtxSetCacheConfig(CUfunc_cache config)
{
    struct CUctx_st *c;
    CUresult r = cu_ctx_current(&c);
    if (r)
        return r;
    if (config < CU_FUNC_CACHE_PREFER_NONE || config > CU_FUNC_CACHE_PREFER_EQUAL)
        return CUDA_ERROR_INVALID_VALUE;
    c->cache_config = config;
    return CUDA_SUCCESS;
}

CUresult cuCtxGetSharedMemConfig(CUsharedconfig *pConfig)
{
    struct CUctx_st *c;
    CUresult r = cu_ctx_current(&c);
    if (r)
        return r;
    if (!pConfig)
        return CUDA_ERROR_INVALID_VALUE;
    *pConfig = c->smem_config;
    return CUDA_SUCCESS;
}

CUresult cuCtxSetSharedMemConfig(CUsharedconfig config)
{
    struct CUctx_st *c;
    CUresult r = cu_ctx_current(&c);
    if (r)
        return r;
    if (config < CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE ||
        config > CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE)
        return CUDA_ERROR_INVALID_VALUE;
    c->smem_config = config;
    return CUDA_SUCCESS;
}

/* Priorities: 0 (least) to -5 (greatest), as on NVIDIA's parts. */
CUresult cuCtxGetStreamPriorityRange(int *leastPriority, int *greatestPriority)
{
    struct CUctx_st *c;
    CUresult r = cu_ctx_current(&c);
    if (r)
        return r;
    if (leastPriority)
        *leastPriority = 0;
    if (greatestPriority)
        *greatestPriority = -5;
    return CUDA_SUCCESS;
}

CUresult cuCtxResetPersistingL2Cache(void)
{
    struct CUctx_st *c;
    return cu_ctx_current(&c);
}

CUresult cuCtxGetExecAffinity(CUexecAffinityParam *pExecAffinity, CUexecAffinityType type)
{
    struct CUctx_st *c;
    CUresult r = cu_ctx_current(&c);
    if (r)
        return r;
    if (!pExecAffinity || type != CU_EXEC_AFFINITY_TYPE_SM_COUNT)
        return CUDA_ERROR_INVALID_VALUE;
    pExecAffinity->type = type;
    pExecAffinity->param.smCount.val = (unsigned)cu_device()->sm_count;
    return CUDA_SUCCESS;
}

/* One device: no context is ever a peer of another. */
CUresult cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int Flags)
{
    struct CUctx_st *c;
    CUresult r = cu_ctx_current(&c);
    if (r)
        return r;
    if (Flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (!cu_ctx_valid(peerContext))
        return CUDA_ERROR_INVALID_CONTEXT;
    return CUDA_ERROR_PEER_ACCESS_UNSUPPORTED;
}

CUresult cuCtxDisablePeerAccess(CUcontext peerContext)
{
    struct CUctx_st *c;
    CUresult r = cu_ctx_current(&c);
    if (r)
        return r;
    if (!cu_ctx_valid(peerContext))
        return CUDA_ERROR_INVALID_CONTEXT;
    return CUDA_ERROR_PEER_ACCESS_NOT_ENABLED;
}

/* ---- the primary context ------------------------------------------------------------- */

/* Until a stop under way has finished (ctx_lock held). */
static void primary_wait_stopped(const struct CUctx_st *p)
{
    while (p->stopping)
        pthread_cond_wait(&ctx_idle, &ctx_lock);
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
    CUresult r = cu_check_device(dev);
    if (r)
        return r;
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    struct CUctx_st *p = cu_primary();
    if (!p)
        return CUDA_ERROR_OUT_OF_MEMORY;
    pthread_mutex_lock(&ctx_lock);
    primary_wait_stopped(p);
    if (!p->active) {
        unsigned flags = p->flags;
        if (!ctx_start(p, flags))
            r = CUDA_ERROR_OUT_OF_MEMORY;
        else
            p->active = true;
    }
    if (!r)
        p->primary_refs++;
    pthread_mutex_unlock(&ctx_lock);
    if (!r)
        *pctx = p;
    return r;
}

/* Deactivates the primary context (ctx_lock held).  Waiting for the calls
 * in flight lets go of ctx_lock: `stopping` keeps a retain meanwhile from
 * starting the context that this stop then tears down. */
static void primary_stop(struct CUctx_st *p)
{
    p->active = false;
    p->primary_refs = 0;
    p->stopping = true;
    ctx_wait_unused(p);
    ctx_stop(p);
    unsigned flags = p->flags;
    ctx_reset_state(p, flags);
    p->stopping = false;
    pthread_cond_broadcast(&ctx_idle);
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
    CUresult r = cu_check_device(dev);
    if (r)
        return r;
    struct CUctx_st *p = cu_primary();
    if (!p)
        return CUDA_ERROR_OUT_OF_MEMORY;
    pthread_mutex_lock(&ctx_lock);
    bool last = p->active && p->primary_refs == 1;
    if (!p->active)
        r = CUDA_ERROR_INVALID_CONTEXT;
    else if (!last)
        p->primary_refs--;
    pthread_mutex_unlock(&ctx_lock);
    if (!last)
        return r;
    /* The destructors run unlocked; a retain meanwhile keeps it alive. */
    cu_ctx_local_release(p);
    pthread_mutex_lock(&ctx_lock);
    if (p->active && --p->primary_refs == 0)
        primary_stop(p);
    pthread_mutex_unlock(&ctx_lock);
    return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev)
{
    CUresult r = cu_check_device(dev);
    if (r)
        return r;
    struct CUctx_st *p = cu_primary();
    if (!p)
        return CUDA_ERROR_OUT_OF_MEMORY;
    cu_ctx_local_release(p); /* unlocked: destructors may call the driver */
    pthread_mutex_lock(&ctx_lock);
    if (p->active)
        primary_stop(p);
    else
        primary_wait_stopped(p); /* another thread's stop: done when this returns */
    pthread_mutex_unlock(&ctx_lock);
    return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active)
{
    CUresult r = cu_check_device(dev);
    if (r)
        return r;
    if (!flags || !active)
        return CUDA_ERROR_INVALID_VALUE;
    struct CUctx_st *p = cu_primary();
    if (!p)
        return CUDA_ERROR_OUT_OF_MEMORY;
    pthread_mutex_lock(&ctx_lock);
    *flags = p->flags;
    *active = p->active;
    pthread_mutex_unlock(&ctx_lock);
    return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned int flags)
{
    CUresult r = cu_check_device(dev);
    if (r)
        return r;
    if ((flags & ~(unsigned)CU_CTX_FLAGS_MASK) || (flags & CU_CTX_SCHED_MASK) == 3 ||
        (flags & CU_CTX_SCHED_MASK) > CU_CTX_SCHED_BLOCKING_SYNC)
        return CUDA_ERROR_INVALID_VALUE;
    struct CUctx_st *p = cu_primary();
    if (!p)
        return CUDA_ERROR_OUT_OF_MEMORY;
    pthread_mutex_lock(&ctx_lock);
    p->flags = flags;
    pthread_mutex_unlock(&ctx_lock);
    return CUDA_SUCCESS;
}

/* The CUDA 10 entry point refuses to change an active primary context. */
CUresult cu_primary_set_flags_v1(CUdevice dev, unsigned int flags)
{
    struct CUctx_st *p = cu_check_device(dev) ? NULL : cu_primary();
    if (p && p->active)
        return CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE;
    return cuDevicePrimaryCtxSetFlags_v2(dev, flags);
}
