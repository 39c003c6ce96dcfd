/* event.c - events: each record is a marker in its stream's queue, a
 * completion signal that completes (timestamped) when the work before it
 * has; waits of one stream on another's event are barrier packets on that
 * signal, so no thread blocks for them. */
#include "cu_internal.h"

#include <stdlib.h>

static bool event_valid(CUevent e) { return e && cu_handle_valid(e, CU_KIND_EVENT); }

CUresult cuEventCreate(CUevent *phEvent, unsigned int Flags)
{
    struct CUctx_st *c;
    CUresult r = cu_ctx_current(&c);
    if (r)
        return r;
    unsigned known = CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS;
    if (!phEvent || (Flags & ~known))
        return CUDA_ERROR_INVALID_VALUE;
    /* Interprocess events must not time (NVIDIA's rule). */
    if ((Flags & CU_EVENT_INTERPROCESS) && !(Flags & CU_EVENT_DISABLE_TIMING))
        return CUDA_ERROR_INVALID_VALUE;
    struct CUevent_st *e = calloc(1, sizeof *e);
    if (!e)
        return CUDA_ERROR_OUT_OF_MEMORY;
    e->ctx = c;
    e->flags = Flags;
    pthread_mutex_init(&e->lock, NULL);
    if (!cu_handle_add(e, CU_KIND_EVENT)) {
        free(e);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    pthread_mutex_lock(&c->lock);
    cu_list_push(&c->events, &e->node);
    pthread_mutex_unlock(&c->lock);
    *phEvent = e;
    return CUDA_SUCCESS;
}

/* The signal of the event's latest record (a reference for the caller),
 * NULL if it was never recorded. */
static rt_signal *latest(struct CUevent_st *e)
{
    pthread_mutex_lock(&e->lock);
    rt_signal *s = e->sig;
    if (s)
        rt_signal_retain(s);
    pthread_mutex_unlock(&e->lock);
    return s;
}

static void event_free(struct CUevent_st *e)
{
    cu_handle_remove(e);
    pthread_mutex_lock(&e->ctx->lock);
    cu_list_unlink(&e->node);
    pthread_mutex_unlock(&e->ctx->lock);
    rt_signal_release(e->sig);
    pthread_mutex_destroy(&e->lock);
    free(e);
}

/* Destroying an event whose record is pending is allowed: the signal lives
 * on in the queue. */
CUresult cuEventDestroy_v2(CUevent hEvent)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!event_valid(hEvent))
        return CUDA_ERROR_INVALID_HANDLE;
    event_free(hEvent);
    return CUDA_SUCCESS;
}

void cu_ctx_free_events(struct CUctx_st *ctx)
{
    pthread_mutex_lock(&ctx->lock);
    while (!cu_list_empty(&ctx->events)) {
        struct CUevent_st *e = CU_CONTAINER(ctx->events.next, struct CUevent_st, node);
        pthread_mutex_unlock(&ctx->lock);
        event_free(e);
        pthread_mutex_lock(&ctx->lock);
    }
    pthread_mutex_unlock(&ctx->lock);
}

/* ---- recording ------------------------------------------------------------------------------ */

static CUresult record(CUevent hEvent, struct CUstream_st *s, struct CUctx_st *c, unsigned flags)
{
    if (!event_valid(hEvent))
        return CUDA_ERROR_INVALID_HANDLE;
    if (flags & ~(unsigned)CU_EVENT_RECORD_EXTERNAL)
        return CUDA_ERROR_INVALID_VALUE;
    if (hEvent->ctx != c)
        return CUDA_ERROR_INVALID_HANDLE;
    CUresult r = cu_ctx_sticky(c);
    if (r)
        return r;
    rt_signal *sig = rt_queue_marker(s->q);
    if (!sig)
        return CUDA_ERROR_OUT_OF_MEMORY;
    pthread_mutex_lock(&hEvent->lock);
    rt_signal *old = hEvent->sig;
    hEvent->sig = sig;
    pthread_mutex_unlock(&hEvent->lock);
    rt_signal_release(old);
    return CUDA_SUCCESS;
}

static CUresult record_on(CUevent hEvent, CUstream hStream, unsigned flags)
{
    struct CUctx_st *c;
    struct CUstream_st *s;
    CUresult r = cu_stream_resolve(hStream, &c, &s);
    return r ? r : record(hEvent, s, c, flags);
}

CUresult cuEventRecord(CUevent hEvent, CUstream hStream) { return record_on(hEvent, hStream, 0); }

CUresult cuEventRecordWithFlags(CUevent hEvent, CUstream hStream, unsigned int flags)
{
    return record_on(hEvent, hStream, flags);
}

/* Recording on the context's NULL stream (CUDA 12.5's context-wide forms). */
CUresult cuCtxRecordEvent(CUcontext hCtx, CUevent hEvent)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!cu_ctx_valid(hCtx))
        return CUDA_ERROR_INVALID_CONTEXT;
    return record(hEvent, hCtx->legacy, hCtx, 0);
}

/* ---- waiting and querying ------------------------------------------------------------------ */

/* A never-recorded event counts as complete. */
CUresult cuEventQuery(CUevent hEvent)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!event_valid(hEvent))
        return CUDA_ERROR_INVALID_HANDLE;
    rt_signal *s = latest(hEvent);
    if (!s)
        return CUDA_SUCCESS;
    r = cu_queue_result(rt_signal_status(s));
    rt_signal_release(s);
    return r;
}

CUresult cuEventSynchronize(CUevent hEvent)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!event_valid(hEvent))
        return CUDA_ERROR_INVALID_HANDLE;
    rt_signal *s = latest(hEvent);
    if (!s)
        return CUDA_SUCCESS;
    r = cu_queue_result(rt_signal_wait(s, RT_WAIT_FOREVER));
    rt_signal_release(s);
    return r;
}

/* Work submitted later to hStream waits for the event's latest record. */
static CUresult wait_event(struct CUstream_st *s, struct CUctx_st *c, CUevent hEvent,
                           unsigned flags)
{
    if (!event_valid(hEvent))
        return CUDA_ERROR_INVALID_HANDLE;
    if (flags & ~(unsigned)CU_EVENT_WAIT_EXTERNAL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = cu_ctx_sticky(c);
    if (r)
        return r;
    rt_signal *sig = latest(hEvent);
    if (!sig)
        return CUDA_SUCCESS;
    r = cu_queue_result(rt_queue_barrier(s->q, &sig, 1));
    rt_signal_release(sig);
    return r;
}

CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags)
{
    struct CUctx_st *c;
    struct CUstream_st *s;
    CUresult r = cu_stream_resolve(hStream, &c, &s);
    return r ? r : wait_event(s, c, hEvent, Flags);
}

CUresult cuCtxWaitEvent(CUcontext hCtx, CUevent hEvent)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!cu_ctx_valid(hCtx))
        return CUDA_ERROR_INVALID_CONTEXT;
    return wait_event(hCtx->legacy, hCtx, hEvent, 0);
}

CUresult cuEventElapsedTime_v2(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!pMilliseconds)
        return CUDA_ERROR_INVALID_VALUE;
    if (!event_valid(hStart) || !event_valid(hEnd) ||
        ((hStart->flags | hEnd->flags) & CU_EVENT_DISABLE_TIMING))
        return CUDA_ERROR_INVALID_HANDLE;
    rt_signal *a = latest(hStart), *b = latest(hEnd);
    if (!a || !b)
        r = CUDA_ERROR_INVALID_HANDLE; /* never recorded */
    else
        r = cu_queue_result(rt_signal_elapsed_ms(a, b, pMilliseconds));
    rt_signal_release(a);
    rt_signal_release(b);
    return r;
}
