/* stream.c - streams on the HSA-style queues of queue.h: each context owns
 * an rt_sched (its processor threads, the legacy NULL stream's queue, the
 * sticky error); a CUstream wraps one rt_queue.  Work is enqueued and runs
 * on the processor threads, in stream order, concurrently across streams;
 * the queues apply the legacy default stream's implicit synchronisation.
 * Per-thread default streams are blocking queues keyed by thread. */
#include "cu_internal.h"

#include <stdlib.h>
#include <time.h>

_Thread_local bool cu_tls_ptds;

/* A queue-layer return code as a CUresult. */
CUresult cu_queue_result(int rc)
{
    switch (rc) {
    case RT_Q_OK: return CUDA_SUCCESS;
    case RT_Q_NOT_READY: return CUDA_ERROR_NOT_READY;
    case RT_Q_NOMEM: return CUDA_ERROR_OUT_OF_MEMORY;
    case RT_Q_INVALID: return CUDA_ERROR_INVALID_HANDLE;
    case RT_Q_TIMEOUT: return CUDA_ERROR_TIMEOUT;
    default: return rc > 0 ? (CUresult)rc : CUDA_ERROR_UNKNOWN;
    }
}

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
    s->q = type == CU_STREAM_LEGACY_NULL
               ? rt_sched_legacy(ctx->sched)
               : rt_queue_create(ctx->sched, flags & CU_STREAM_NON_BLOCKING ? RT_QUEUE_NON_BLOCKING : 0,
                                 priority);
    if (!s->q || !(s->handle = cu_stream_handle_add(s))) {
        if (s->q && type != CU_STREAM_LEGACY_NULL)
            rt_queue_destroy(s->q);
        free(s);
        return NULL;
    }
    pthread_mutex_lock(&ctx->lock);
    cu_list_push(&ctx->streams, &s->node);
    pthread_mutex_unlock(&ctx->lock);
    return s;
}

/* Frees the handle at once; the queue's pending work still runs (CUDA:
 * destroying a stream does not wait). */
void cu_stream_free(struct CUstream_st *s)
{
    cu_stream_handle_remove(s->handle);
    pthread_mutex_lock(&s->ctx->lock);
    cu_list_unlink(&s->node);
    pthread_mutex_unlock(&s->ctx->lock);
    if (s->type != CU_STREAM_LEGACY_NULL)
        rt_queue_destroy(s->q);
    free(s);
}

/* ---- submission and waiting ---------------------------------------------------------- */

/* A launch that could not get memory fails as on a GPU, where it is
 * refused at once: for itself, not for the context. */
static int op_run(void *arg)
{
    cu_op *op = arg;
    CUresult r = op->run(op);
    bool transient = r == CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES || r == CUDA_ERROR_OUT_OF_MEMORY;
    return transient ? RT_TRANSIENT | (int)r : (int)r;
}

static void op_release(void *arg)
{
    cu_op *op = arg;
    if (op->release)
        op->release(op);
    else
        free(op);
}

CUresult cu_stream_submit(struct CUstream_st *s, cu_op *op)
{
    int rc = rt_queue_kernel(s->q, op_run, op, op_release);
    if (rc)
        op_release(op);
    return cu_queue_result(rc);
}

CUresult cu_stream_sync(struct CUstream_st *s)
{
    return cu_queue_result(rt_queue_sync(s->q, RT_WAIT_FOREVER));
}

CUresult cu_ctx_sync(struct CUctx_st *ctx)
{
    return ctx->sched ? cu_queue_result(rt_sched_sync(ctx->sched, RT_WAIT_FOREVER))
                      : CUDA_SUCCESS;
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
        struct CUstream_st *s = cu_stream_handle_get(h);
        if (!s)
            return CUDA_ERROR_INVALID_HANDLE;
        *ctx = s->ctx;
        *out = s;
        return CUDA_SUCCESS;
    }
    if ((r = cu_ctx_current(ctx)))
        return r;
    bool per_thread = h == CU_STREAM_PER_THREAD || (!h && cu_tls_ptds);
    *out = per_thread ? per_thread_stream(*ctx) : (*ctx)->legacy;
    return *out ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult cu_stream_hold(CUstream h, struct CUctx_st **ctx, struct CUstream_st **out)
{
    bool handle = h && h != CU_STREAM_LEGACY && h != CU_STREAM_PER_THREAD;
    CUresult r = cu_ctx_hold(handle ? h : NULL, ctx);
    if (r)
        return r;
    r = cu_stream_resolve(h, ctx, out);
    if (r)
        cu_ctx_release(*ctx);
    return r;
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
    *phStream = s->handle;
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
    struct CUstream_st *s = cu_stream_handle_get(hStream);
    if (!s || s->type != CU_STREAM_USER)
        return CUDA_ERROR_INVALID_HANDLE;
    cu_stream_free(s);
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
    CUresult r = cu_stream_hold(hStream, &c, &s);
    if (r)
        return r;
    r = cu_stream_sync(s);
    cu_ctx_release(c);
    return r;
}

CUresult cuStreamQuery(CUstream hStream)
{
    struct CUctx_st *c;
    struct CUstream_st *s;
    CUresult r = cu_stream_hold(hStream, &c, &s);
    if (r)
        return r;
    r = cu_queue_result(rt_queue_query(s->q));
    cu_ctx_release(c);
    return r;
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
        return cu_init_or(CUDA_ERROR_INVALID_VALUE);
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

typedef struct host_call {
    CUhostFn fn;
    CUstreamCallback cb;
    CUstream handle;
    void *data;
} host_call;

/* Runs on a processor thread.  cuLaunchHostFunc's functions are skipped
 * once the context has an error; cuStreamAddCallback's get it as status. */
static void host_run(void *arg, int status)
{
    host_call *h = arg;
    if (h->cb)
        h->cb(h->handle, cu_queue_result(status), h->data);
    else if (!status)
        h->fn(h->data);
    free(h);
}

static CUresult submit_host(CUstream hStream, CUhostFn fn, CUstreamCallback cb, void *data)
{
    struct CUctx_st *c;
    struct CUstream_st *s;
    CUresult r = cu_stream_resolve(hStream, &c, &s);
    if (r || (r = cu_ctx_sticky(c)))
        return r;
    host_call *h = malloc(sizeof *h);
    if (!h)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *h = (host_call){fn, cb, hStream, data};
    int rc = rt_queue_host(s->q, host_run, h);
    if (rc)
        free(h);
    return cu_queue_result(rc);
}

CUresult cuLaunchHostFunc(CUstream hStream, CUhostFn fn, void *userData)
{
    if (!fn)
        return cu_init_or(CUDA_ERROR_INVALID_VALUE);
    return submit_host(hStream, fn, NULL, userData);
}

CUresult cuStreamAddCallback(CUstream hStream, CUstreamCallback callback, void *userData,
                             unsigned int flags)
{
    if (!callback || flags != 0)
        return cu_init_or(CUDA_ERROR_INVALID_VALUE);
    return submit_host(hStream, NULL, callback, userData);
}

/* ---- memory operations in stream order --------------------------------------------------- */

typedef struct value_op {
    cu_op op;
    uintptr_t addr;
    uint64_t value;
    unsigned flags;
    bool wide;
} value_op;

static CUresult write_run(cu_op *op)
{
    value_op *w = (value_op *)op;
    if (w->wide)
        atomic_store((_Atomic uint64_t *)w->addr, w->value);
    else
        atomic_store((_Atomic uint32_t *)w->addr, (uint32_t)w->value);
    return CUDA_SUCCESS;
}

static bool wait_done(const value_op *w)
{
    uint64_t v = w->wide ? atomic_load((_Atomic uint64_t *)w->addr)
                         : atomic_load((_Atomic uint32_t *)w->addr);
    uint64_t want = w->value;
    switch (w->flags & 3u) {
    case CU_STREAM_WAIT_VALUE_GEQ:
        return w->wide ? (int64_t)(v - want) >= 0 : (int32_t)(uint32_t)(v - want) >= 0;
    case CU_STREAM_WAIT_VALUE_EQ: return v == want;
    case CU_STREAM_WAIT_VALUE_AND: return (v & want) != 0;
    default: return (w->wide ? ~(v | want) : (uint32_t)~(v | want)) != 0; /* NOR */
    }
}

/* Holds this stream's processor thread until the condition holds, polling
 * with a backoff that tops out at 50 microseconds. */
static CUresult wait_run(cu_op *op)
{
    value_op *w = (value_op *)op;
    long ns = 100;
    while (!wait_done(w)) {
        struct timespec ts = {0, ns};
        nanosleep(&ts, NULL);
        if (ns < 50000)
            ns *= 2;
    }
    return CUDA_SUCCESS;
}

static CUresult value_op_submit(CUstream hStream, CUdeviceptr addr, uint64_t value,
                                unsigned flags, bool wide, bool wait)
{
    struct CUctx_st *c;
    struct CUstream_st *s;
    CUresult r = cu_stream_resolve(hStream, &c, &s);
    if (r || (r = cu_ctx_sticky(c)))
        return r;
    size_t n = wide ? 8 : 4;
    unsigned known = wait ? 3u | CU_STREAM_WAIT_VALUE_FLUSH : CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER;
    if ((flags & ~known) || addr % n || !cu_map_find((uintptr_t)addr, n, NULL))
        return CUDA_ERROR_INVALID_VALUE;
    value_op *op = malloc(sizeof *op);
    if (!op)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *op = (value_op){{wait ? wait_run : write_run, NULL, c}, (uintptr_t)addr, value, flags, wide};
    return cu_stream_submit(s, &op->op);
}

CUresult cuStreamWriteValue32_v2(CUstream stream, CUdeviceptr addr, cuuint32_t value,
                                 unsigned int flags)
{
    return value_op_submit(stream, addr, value, flags, false, false);
}

CUresult cuStreamWriteValue64_v2(CUstream stream, CUdeviceptr addr, cuuint64_t value,
                                 unsigned int flags)
{
    return value_op_submit(stream, addr, value, flags, true, false);
}

CUresult cuStreamWaitValue32_v2(CUstream stream, CUdeviceptr addr, cuuint32_t value,
                                unsigned int flags)
{
    return value_op_submit(stream, addr, value, flags, false, true);
}

CUresult cuStreamWaitValue64_v2(CUstream stream, CUdeviceptr addr, cuuint64_t value,
                                unsigned int flags)
{
    return value_op_submit(stream, addr, value, flags, true, true);
}
