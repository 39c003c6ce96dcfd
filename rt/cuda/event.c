/* event.c - events: markers recorded in stream order, with timestamps for
 * cuEventElapsedTime; waits of one stream on another's event. */
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

static void event_free(struct CUevent_st *e)
{
    cu_handle_remove(e);
    pthread_mutex_lock(&e->ctx->lock);
    cu_list_unlink(&e->node);
    pthread_mutex_unlock(&e->ctx->lock);
    pthread_mutex_destroy(&e->lock);
    free(e);
}

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

typedef struct record_op {
    cu_op op;
    struct CUevent_st *e;
    unsigned long long seq;
} record_op;

/* Marks the event reached, unless a later record superseded this one. */
static CUresult record_run(cu_op *op)
{
    record_op *r = (record_op *)op;
    pthread_mutex_lock(&r->e->lock);
    if (r->e->seq == r->seq) {
        r->e->time_ms = cu_now_ms();
        r->e->done = true;
    }
    pthread_mutex_unlock(&r->e->lock);
    return CUDA_SUCCESS;
}

static CUresult record(CUevent hEvent, CUstream hStream, unsigned flags)
{
    struct CUctx_st *c;
    struct CUstream_st *s;
    CUresult r = cu_stream_resolve(hStream, &c, &s);
    if (r)
        return r;
    if (!event_valid(hEvent))
        return CUDA_ERROR_INVALID_HANDLE;
    if (flags & ~(unsigned)CU_EVENT_RECORD_EXTERNAL)
        return CUDA_ERROR_INVALID_VALUE;
    if (hEvent->ctx != c)
        return CUDA_ERROR_INVALID_HANDLE;
    if ((r = cu_ctx_sticky(c)))
        return r;
    record_op *op = malloc(sizeof *op);
    if (!op)
        return CUDA_ERROR_OUT_OF_MEMORY;
    pthread_mutex_lock(&hEvent->lock);
    hEvent->recorded = true;
    hEvent->done = false;
    unsigned long long seq = ++hEvent->seq;
    pthread_mutex_unlock(&hEvent->lock);
    *op = (record_op){{record_run, NULL, c}, hEvent, seq};
    return cu_stream_submit(s, &op->op);
}

CUresult cuEventRecord(CUevent hEvent, CUstream hStream) { return record(hEvent, hStream, 0); }

CUresult cuEventRecordWithFlags(CUevent hEvent, CUstream hStream, unsigned int flags)
{
    return record(hEvent, hStream, flags);
}

/* Recording on the context's NULL stream (CUDA 12.5's context-wide forms). */
CUresult cuCtxRecordEvent(CUcontext hCtx, CUevent hEvent)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!cu_ctx_valid(hCtx))
        return CUDA_ERROR_INVALID_CONTEXT;
    return record(hEvent, hCtx->legacy, 0);
}

/* ---- waiting and querying ------------------------------------------------------------------ */

/* Whether the event's latest record has been reached (a never-recorded
 * event counts as reached). */
static bool reached(struct CUevent_st *e)
{
    pthread_mutex_lock(&e->lock);
    bool done = !e->recorded || e->done;
    pthread_mutex_unlock(&e->lock);
    return done;
}

CUresult cuEventQuery(CUevent hEvent)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!event_valid(hEvent))
        return CUDA_ERROR_INVALID_HANDLE;
    if ((r = cu_ctx_sticky(hEvent->ctx)))
        return r;
    return reached(hEvent) ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

/* Records run to completion when submitted; one in progress on another
 * thread is waited for through the context's streams. */
CUresult cuEventSynchronize(CUevent hEvent)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!event_valid(hEvent))
        return CUDA_ERROR_INVALID_HANDLE;
    while (!reached(hEvent)) {
        r = cu_ctx_sync(hEvent->ctx);
        if (r)
            return r;
    }
    return cu_ctx_sticky(hEvent->ctx);
}

/* Work submitted later to hStream waits for the event's latest record,
 * which has already been reached when its stream's submission returned. */
CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags)
{
    struct CUctx_st *c;
    struct CUstream_st *s;
    CUresult r = cu_stream_resolve(hStream, &c, &s);
    if (r)
        return r;
    if (!event_valid(hEvent))
        return CUDA_ERROR_INVALID_HANDLE;
    if (Flags & ~(unsigned)CU_EVENT_WAIT_EXTERNAL)
        return CUDA_ERROR_INVALID_VALUE;
    while (!reached(hEvent))
        if ((r = cu_ctx_sync(hEvent->ctx)))
            return r;
    return cu_ctx_sticky(c);
}

CUresult cuCtxWaitEvent(CUcontext hCtx, CUevent hEvent)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!cu_ctx_valid(hCtx))
        return CUDA_ERROR_INVALID_CONTEXT;
    return cuStreamWaitEvent(hCtx->legacy, hEvent, 0);
}

CUresult cuEventElapsedTime_v2(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!pMilliseconds)
        return CUDA_ERROR_INVALID_VALUE;
    if (!event_valid(hStart) || !event_valid(hEnd))
        return CUDA_ERROR_INVALID_HANDLE;
    if ((hStart->flags | hEnd->flags) & CU_EVENT_DISABLE_TIMING)
        return CUDA_ERROR_INVALID_HANDLE;
    pthread_mutex_lock(&hStart->lock);
    bool rec0 = hStart->recorded, done0 = hStart->done;
    double t0 = hStart->time_ms;
    pthread_mutex_unlock(&hStart->lock);
    pthread_mutex_lock(&hEnd->lock);
    bool rec1 = hEnd->recorded, done1 = hEnd->done;
    double t1 = hEnd->time_ms;
    pthread_mutex_unlock(&hEnd->lock);
    if (!rec0 || !rec1)
        return CUDA_ERROR_INVALID_HANDLE;
    if (!done0 || !done1)
        return CUDA_ERROR_NOT_READY;
    *pMilliseconds = (float)(t1 - t0);
    return CUDA_SUCCESS;
}
