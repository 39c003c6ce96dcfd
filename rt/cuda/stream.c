/* stream.c - streams: creation, the legacy NULL stream, per-thread default
 * streams, submission, synchronization and host callbacks.
 *
 * Submission runs an operation to completion on the submitting thread,
 * holding the stream's lock (so a stream's work stays in order) and the
 * context's legacy lock: shared by blocking streams, exclusive for the
 * legacy NULL stream.  That gives NVIDIA's legacy-stream semantics (the
 * NULL stream waits for, and is waited for by, every blocking stream),
 * while non-blocking and per-thread streams on different host threads run
 * at the same time. */
#include "cu_internal.h"

#include <stdlib.h>

_Thread_local bool cu_tls_ptds;

struct CUstream_st *cu_stream_new(struct CUctx_st *ctx, cu_stream_type type, unsigned flags,
                                  int priority)
{
    struct CUstream_st *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->ctx = ctx;
    s->type = type;
    s->flags = flags;
    s->priority = priority;
    s->id = cu_next_id();
    pthread_mutex_init(&s->lock, NULL);
    if (!cu_handle_add(s, CU_KIND_STREAM)) {
        pthread_mutex_destroy(&s->lock);
        free(s);
        return NULL;
    }
    pthread_mutex_lock(&ctx->lock);
    cu_list_push(&ctx->streams, &s->node);
    pthread_mutex_unlock(&ctx->lock);
    return s;
}

/* Waits for the stream's work, then frees it (unlinks it from its context). */
void cu_stream_free(struct CUstream_st *s)
{
    cu_handle_remove(s);
    pthread_mutex_lock(&s->lock);
    pthread_mutex_unlock(&s->lock);
    pthread_mutex_lock(&s->ctx->lock);
    cu_list_unlink(&s->node);
    pthread_mutex_unlock(&s->ctx->lock);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

/* ---- legacy-stream ordering --------------------------------------------------------------- */

static pthread_rwlock_t *legacy_lock(struct CUctx_st *ctx)
{
    return &ctx->legacy_lock;
}

static bool blocking(const struct CUstream_st *s)
{
    return !(s->flags & CU_STREAM_NON_BLOCKING);
}

static void order_enter(struct CUstream_st *s)
{
    if (s->type == CU_STREAM_LEGACY_NULL)
        pthread_rwlock_wrlock(legacy_lock(s->ctx));
    else if (blocking(s))
        pthread_rwlock_rdlock(legacy_lock(s->ctx));
    pthread_mutex_lock(&s->lock);
}

static void order_leave(struct CUstream_st *s)
{
    pthread_mutex_unlock(&s->lock);
    if (s->type == CU_STREAM_LEGACY_NULL || blocking(s))
        pthread_rwlock_unlock(legacy_lock(s->ctx));
}

/* Kernel faults poison the context, as on a GPU. */
static bool is_sticky(CUresult r)
{
    return r == CUDA_ERROR_ILLEGAL_ADDRESS || r == CUDA_ERROR_LAUNCH_FAILED ||
           r == CUDA_ERROR_ASSERT || r == CUDA_ERROR_ILLEGAL_INSTRUCTION ||
           r == CUDA_ERROR_MISALIGNED_ADDRESS || r == CUDA_ERROR_HARDWARE_STACK_ERROR ||
           r == CUDA_ERROR_INVALID_ADDRESS_SPACE || r == CUDA_ERROR_INVALID_PC;
}

CUresult cu_stream_submit(struct CUstream_st *s, cu_op *op)
{
    order_enter(s);
    CUresult r = cu_ctx_sticky(s->ctx);
    if (!r) {
        r = op->run(op);
        if (is_sticky(r))
            cu_ctx_set_sticky(s->ctx, r);
    }
    order_leave(s);
    if (op->release)
        op->release(op);
    else
        free(op);
    return r;
}

CUresult cu_stream_sync(struct CUstream_st *s)
{
    order_enter(s);
    order_leave(s);
    return cu_ctx_sticky(s->ctx);
}

CUresult cu_ctx_sync(struct CUctx_st *ctx)
{
    /* Exclusive legacy ordering waits for every blocking stream; the
     * non-blocking ones are waited for one by one. */
    pthread_rwlock_wrlock(legacy_lock(ctx));
    pthread_rwlock_unlock(legacy_lock(ctx));
    pthread_mutex_lock(&ctx->lock);
    for (cu_list_node *n = ctx->streams.next; n != &ctx->streams; n = n->next) {
        struct CUstream_st *s = CU_CONTAINER(n, struct CUstream_st, node);
        pthread_mutex_lock(&s->lock);
        pthread_mutex_unlock(&s->lock);
    }
    pthread_mutex_unlock(&ctx->lock);
    return cu_ctx_sticky(ctx);
}

/* ---- resolving stream arguments ---------------------------------------------------------- */

enum { PTDS_SLOTS = 16 };
typedef struct ptds_slot {
    unsigned long long ctx_id;
    struct CUstream_st *s;
} ptds_slot;
static _Thread_local ptds_slot ptds[PTDS_SLOTS];
static _Thread_local unsigned ptds_next;

/* This thread's default stream in ctx, created on first use.  Context ids
 * are never reused, so a slot of a destroyed context never matches. */
static struct CUstream_st *per_thread_stream(struct CUctx_st *ctx)
{
    for (unsigned i = 0; i < PTDS_SLOTS; i++)
        if (ptds[i].s && ptds[i].ctx_id == ctx->id)
            return ptds[i].s;
    struct CUstream_st *s = cu_stream_new(ctx, CU_STREAM_PTDS, 0, 0);
    if (s)
        ptds[ptds_next++ % PTDS_SLOTS] = (ptds_slot){ctx->id, s};
    return s;
}

CUresult cu_stream_resolve(CUstream h, struct CUctx_st **ctx, struct CUstream_st **out)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (h && h != CU_STREAM_LEGACY && h != CU_STREAM_PER_THREAD) {
        if (!cu_handle_valid(h, CU_KIND_STREAM))
            return CUDA_ERROR_INVALID_HANDLE;
        *ctx = h->ctx;
        *out = h;
        return CUDA_SUCCESS;
    }
    if ((r = cu_ctx_current(ctx)))
        return r;
    bool per_thread = h == CU_STREAM_PER_THREAD || (!h && cu_tls_ptds);
    *out = per_thread ? per_thread_stream(*ctx) : (*ctx)->legacy;
    return *out ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

/* ---- the API ------------------------------------------------------------------------------- */

CUresult cuStreamCreateWithPriority(CUstream *phStream, unsigned int flags, int priority)
{
    struct CUctx_st *c;
    CUresult r = cu_ctx_current(&c);
    if (r)
        return r;
    if (!phStream || (flags & ~(unsigned)CU_STREAM_NON_BLOCKING))
        return CUDA_ERROR_INVALID_VALUE;
    /* Out-of-range priorities are clamped, as NVIDIA documents. */
    priority = priority > 0 ? 0 : priority < -5 ? -5 : priority;
    struct CUstream_st *s = cu_stream_new(c, CU_STREAM_USER, flags, priority);
    if (!s)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *phStream = s;
    return CUDA_SUCCESS;
}

CUresult cuStreamCreate(CUstream *phStream, unsigned int Flags)
{
    return cuStreamCreateWithPriority(phStream, Flags, 0);
}

CUresult cuStreamDestroy_v2(CUstream hStream)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!hStream || hStream == CU_STREAM_LEGACY || hStream == CU_STREAM_PER_THREAD ||
        !cu_handle_valid(hStream, CU_KIND_STREAM) || hStream->type != CU_STREAM_USER)
        return CUDA_ERROR_INVALID_HANDLE;
    cu_stream_free(hStream);
    return CUDA_SUCCESS;
}

void cu_ctx_free_streams(struct CUctx_st *ctx)
{
    pthread_mutex_lock(&ctx->lock);
    while (!cu_list_empty(&ctx->streams)) {
        struct CUstream_st *s = CU_CONTAINER(ctx->streams.next, struct CUstream_st, node);
        pthread_mutex_unlock(&ctx->lock);
        cu_stream_free(s);
        pthread_mutex_lock(&ctx->lock);
    }
    pthread_mutex_unlock(&ctx->lock);
    cu_ctx_free_events(ctx);
}

CUresult cuStreamSynchronize(CUstream hStream)
{
    struct CUctx_st *c;
    struct CUstream_st *s;
    CUresult r = cu_stream_resolve(hStream, &c, &s);
    return r ? r : cu_stream_sync(s);
}

/* Work runs when submitted, so a stream is idle whenever no other thread
 * is running its work. */
CUresult cuStreamQuery(CUstream hStream)
{
    struct CUctx_st *c;
    struct CUstream_st *s;
    CUresult r = cu_stream_resolve(hStream, &c, &s);
    if (r || (r = cu_ctx_sticky(c)))
        return r;
    if (pthread_mutex_trylock(&s->lock))
        return CUDA_ERROR_NOT_READY;
    pthread_mutex_unlock(&s->lock);
    return CUDA_SUCCESS;
}

CUresult cuStreamGetPriority(CUstream hStream, int *priority)
{
    struct CUctx_st *c;
    struct CUstream_st *s;
    CUresult r = cu_stream_resolve(hStream, &c, &s);
    if (r)
        return r;
    if (!priority)
        return CUDA_ERROR_INVALID_VALUE;
    *priority = s->priority;
    return CUDA_SUCCESS;
}

CUresult cuStreamGetFlags(CUstream hStream, unsigned int *flags)
{
    struct CUctx_st *c;
    struct CUstream_st *s;
    CUresult r = cu_stream_resolve(hStream, &c, &s);
    if (r)
        return r;
    if (!flags)
        return CUDA_ERROR_INVALID_VALUE;
    *flags = s->flags;
    return CUDA_SUCCESS;
}

CUresult cuStreamGetId(CUstream hStream, unsigned long long *streamId)
{
    struct CUctx_st *c;
    struct CUstream_st *s;
    CUresult r = cu_stream_resolve(hStream, &c, &s);
    if (r)
        return r;
    if (!streamId)
        return CUDA_ERROR_INVALID_VALUE;
    *streamId = s->id;
    return CUDA_SUCCESS;
}

CUresult cuStreamGetCtx(CUstream hStream, CUcontext *pctx)
{
    struct CUctx_st *c;
    struct CUstream_st *s;
    CUresult r = cu_stream_resolve(hStream, &c, &s);
    if (r)
        return r;
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    *pctx = c;
    return CUDA_SUCCESS;
}

CUresult cuStreamGetCtx_v2(CUstream hStream, CUcontext *pCtx, CUgreenCtx *pGreenCtx)
{
    if (!pGreenCtx)
        return cu_check_init() ? cu_check_init() : CUDA_ERROR_INVALID_VALUE;
    CUresult r = cuStreamGetCtx(hStream, pCtx);
    if (!r)
        *pGreenCtx = NULL;
    return r;
}

CUresult cuStreamGetDevice(CUstream hStream, CUdevice *device)
{
    struct CUctx_st *c;
    struct CUstream_st *s;
    CUresult r = cu_stream_resolve(hStream, &c, &s);
    if (r)
        return r;
    if (!device)
        return CUDA_ERROR_INVALID_VALUE;
    *device = 0;
    return CUDA_SUCCESS;
}

CUresult cuStreamIsCapturing(CUstream hStream, CUstreamCaptureStatus *captureStatus)
{
    struct CUctx_st *c;
    struct CUstream_st *s;
    CUresult r = cu_stream_resolve(hStream, &c, &s);
    if (r)
        return r;
    if (!captureStatus)
        return CUDA_ERROR_INVALID_VALUE;
    *captureStatus = CU_STREAM_CAPTURE_STATUS_NONE;
    return CUDA_SUCCESS;
}

/* Managed memory is visible to every stream and the host at all times. */
CUresult cuStreamAttachMemAsync(CUstream hStream, CUdeviceptr dptr, size_t length,
                                unsigned int flags)
{
    struct CUctx_st *c;
    struct CUstream_st *s;
    CUresult r = cu_stream_resolve(hStream, &c, &s);
    if (r)
        return r;
    cu_alloc a;
    if (!cu_map_find((uintptr_t)dptr, 1, &a) || a.kind != CU_MEM_MANAGED ||
        (length && length != a.size) ||
        (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST &&
         flags != CU_MEM_ATTACH_SINGLE))
        return CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS;
}

/* ---- host functions in stream order ------------------------------------------------------ */

typedef struct host_op {
    cu_op op;
    CUhostFn fn;
    CUstreamCallback cb;
    CUstream handle;
    void *data;
} host_op;

static CUresult host_op_run(cu_op *op)
{
    host_op *h = (host_op *)op;
    if (h->fn)
        h->fn(h->data);
    else
        h->cb(h->handle, cu_ctx_sticky(op->ctx), h->data);
    return CUDA_SUCCESS;
}

static CUresult submit_host(CUstream hStream, CUhostFn fn, CUstreamCallback cb, void *data)
{
    struct CUctx_st *c;
    struct CUstream_st *s;
    CUresult r = cu_stream_resolve(hStream, &c, &s);
    if (r || (r = cu_ctx_sticky(c)))
        return r;
    host_op *op = malloc(sizeof *op);
    if (!op)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *op = (host_op){{host_op_run, NULL, c}, fn, cb, hStream, data};
    return cu_stream_submit(s, &op->op);
}

CUresult cuLaunchHostFunc(CUstream hStream, CUhostFn fn, void *userData)
{
    if (!fn)
        return cu_check_init() ? cu_check_init() : CUDA_ERROR_INVALID_VALUE;
    return submit_host(hStream, fn, NULL, userData);
}

CUresult cuStreamAddCallback(CUstream hStream, CUstreamCallback callback, void *userData,
                             unsigned int flags)
{
    if (!callback || flags != 0)
        return cu_check_init() ? cu_check_init() : CUDA_ERROR_INVALID_VALUE;
    return submit_host(hStream, NULL, callback, userData);
}

/* ---- memory operations in stream order --------------------------------------------------- */

typedef struct write_op {
    cu_op op;
    uintptr_t addr;
    uint64_t value;
    bool wide;
} write_op;

static CUresult write_op_run(cu_op *op)
{
    write_op *w = (write_op *)op;
    if (w->wide)
        atomic_store((_Atomic uint64_t *)w->addr, w->value);
    else
        atomic_store((_Atomic uint32_t *)w->addr, (uint32_t)w->value);
    return CUDA_SUCCESS;
}

static CUresult write_value(CUstream hStream, CUdeviceptr addr, uint64_t value, unsigned flags,
                            bool wide)
{
    struct CUctx_st *c;
    struct CUstream_st *s;
    CUresult r = cu_stream_resolve(hStream, &c, &s);
    if (r || (r = cu_ctx_sticky(c)))
        return r;
    size_t n = wide ? 8 : 4;
    if ((flags & ~(unsigned)CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER) || addr % n ||
        !cu_map_find((uintptr_t)addr, n, NULL))
        return CUDA_ERROR_INVALID_VALUE;
    write_op *op = malloc(sizeof *op);
    if (!op)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *op = (write_op){{write_op_run, NULL, c}, (uintptr_t)addr, value, wide};
    return cu_stream_submit(s, &op->op);
}

CUresult cuStreamWriteValue32_v2(CUstream stream, CUdeviceptr addr, cuuint32_t value,
                                 unsigned int flags)
{
    return write_value(stream, addr, value, flags, false);
}

CUresult cuStreamWriteValue64_v2(CUstream stream, CUdeviceptr addr, cuuint64_t value,
                                 unsigned int flags)
{
    return write_value(stream, addr, value, flags, true);
}

/* Waiting on memory needs work that runs behind the submitting thread's
 * back (a later write would come from this very thread). */
CUresult cuStreamWaitValue32_v2(CUstream stream, CUdeviceptr addr, cuuint32_t value,
                                unsigned int flags)
{
    (void)stream, (void)addr, (void)value, (void)flags;
    return cu_check_init() ? cu_check_init() : CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuStreamWaitValue64_v2(CUstream stream, CUdeviceptr addr, cuuint64_t value,
                                unsigned int flags)
{
    (void)stream, (void)addr, (void)value, (void)flags;
    return cu_check_init() ? cu_check_init() : CUDA_ERROR_NOT_SUPPORTED;
}
