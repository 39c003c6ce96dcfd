/* queue.c - stream queues: the packet ring, enqueue with the legacy
 * default stream's implicit synchronisation, packet execution, host-side
 * sync.  Threads and scheduling are in sched.c (see queue.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "queue_impl.h"
#include "condwait.h"

#define RING_MIN 16u

/* --- lifetime ---------------------------------------------------------------- */

rt_queue *rt__queue_new(rt_sched *s, unsigned flags, int priority)
{
    rt_queue *q = calloc(1, sizeof *q);
    if (!q)
        return NULL;
    q->ring = malloc(RING_MIN * sizeof *q->ring);
    if (!q->ring || rt_cond_init(&q->drained) != 0) {
        free(q->ring);
        free(q);
        return NULL;
    }
    pthread_mutex_init(&q->lock, NULL);
    q->cap = RING_MIN;
    q->sched = s;
    q->flags = flags;
    q->priority = priority;
    q->state = RT_QS_IDLE;
    atomic_init(&q->refs, 1);
    rt__sched_add_queue(s, q);
    return q;
}

rt_queue *rt_queue_create(rt_sched *s, unsigned flags, int priority)
{
    if (!s || (flags & ~RT_QUEUE_NON_BLOCKING))
        return NULL;
    return rt__queue_new(s, flags, priority);
}

int rt__queue_tryref(rt_queue *q)
{
    unsigned n = atomic_load(&q->refs);
    while (n != 0)
        if (atomic_compare_exchange_weak(&q->refs, &n, n + 1))
            return 1;
    return 0;
}

/* Runs only when idle and destroyed: the ring is empty. */
static void queue_free(rt_queue *q)
{
    rt__sched_remove_queue(q->sched, q);
    pthread_cond_destroy(&q->drained);
    pthread_mutex_destroy(&q->lock);
    free(q->ring);
    free(q);
}

void rt__queue_unref(rt_queue *q)
{
    if (atomic_fetch_sub(&q->refs, 1) == 1)
        queue_free(q);
}

void rt__queue_retire(rt_queue *q)
{
    pthread_mutex_lock(&q->lock);
    int was_alive = !q->destroyed;
    q->destroyed = 1;
    pthread_mutex_unlock(&q->lock);
    if (was_alive)
        rt__queue_unref(q);
}

int rt_queue_destroy(rt_queue *q)
{
    if (!q || (q->flags & RT_QUEUE_LEGACY))
        return RT_Q_INVALID;
    rt__queue_retire(q);
    return RT_Q_OK;
}

unsigned rt_queue_flags(const rt_queue *q) { return q->flags; }
int rt_queue_priority(const rt_queue *q) { return q->priority; }

/* --- the ring (q->lock) ----------------------------------------------------------- */

static int ring_push(rt_queue *q, const rt_packet *p)
{
    if (q->count == q->cap) {
        rt_packet *n = malloc(2 * q->cap * sizeof *n);
        if (!n)
            return RT_Q_NOMEM;
        for (size_t i = 0; i < q->count; i++)
            n[i] = q->ring[(q->head + i) & (q->cap - 1)];
        free(q->ring);
        q->ring = n;
        q->head = 0;
        q->cap *= 2;
    }
    q->ring[(q->head + q->count) & (q->cap - 1)] = *p;
    q->count++;
    return RT_Q_OK;
}

/* Appends p; an idle queue becomes active (a reference, a processor).
 * `internal` packets (implicit-sync markers) may go to a destroyed queue
 * that is still draining. */
static int push_locked(rt_queue *q, const rt_packet *p, int internal)
{
    if (q->destroyed && !internal)
        return RT_Q_INVALID;
    int rc = ring_push(q, p);
    if (rc != RT_Q_OK)
        return rc;
    q->enqueued++;
    if (q->active)
        return RT_Q_OK;
    atomic_fetch_add(&q->refs, 1);
    q->active = 1;
    rc = rt__sched_activate(q);
    if (rc != RT_Q_OK) {
        q->active = 0;
        atomic_fetch_sub(&q->refs, 1); /* the owner's or caller's reference remains */
        q->count--;
        q->enqueued--;
    }
    return rc;
}

static int push(rt_queue *q, const rt_packet *p, int internal)
{
    pthread_mutex_lock(&q->lock);
    int rc = push_locked(q, p, internal);
    pthread_mutex_unlock(&q->lock);
    return rc;
}

/* --- markers and barriers ------------------------------------------------------- */

/* A signal for all work on q so far, or NULL (*out) when all of it is done. */
static int pending_marker(rt_queue *q, rt_signal **out)
{
    *out = NULL;
    pthread_mutex_lock(&q->lock);
    int rc = RT_Q_OK;
    if (q->completed != q->enqueued) {
        rt_signal *m = rt_signal_create();
        rt_packet p = {.kind = RT_PKT_MARKER, .signal = m};
        rc = m ? push_locked(q, &p, 1) : RT_Q_NOMEM;
        if (rc == RT_Q_OK) {
            rt_signal_retain(m); /* one for the packet, one for the caller */
            *out = m;
        } else {
            rt_signal_release(m);
        }
    }
    pthread_mutex_unlock(&q->lock);
    return rc;
}

/* A barrier on the pending signals among deps (no implicit sync). */
static int push_barrier(rt_queue *q, rt_signal *const *deps, size_t n)
{
    size_t pending = 0;
    for (size_t i = 0; i < n; i++)
        pending += deps[i] && !rt_signal_done(deps[i]);
    if (pending == 0)
        return RT_Q_OK;
    rt_signal **own = malloc(pending * sizeof *own);
    if (!own)
        return RT_Q_NOMEM;
    size_t k = 0;
    for (size_t i = 0; i < n && k < pending; i++)
        if (deps[i] && !rt_signal_done(deps[i])) {
            rt_signal_retain(deps[i]);
            own[k++] = deps[i];
        }
    rt_packet p = {.kind = RT_PKT_BARRIER, .u.barrier = {own, k}};
    int rc = push(q, &p, 0);
    if (rc != RT_Q_OK) {
        for (size_t i = 0; i < k; i++)
            rt_signal_release(own[i]);
        free(own);
    }
    return rc;
}

int rt_queue_barrier(rt_queue *q, rt_signal *const *deps, size_t n)
{
    if (!q || (n && !deps))
        return RT_Q_INVALID;
    return push_barrier(q, deps, n);
}

/* --- the legacy default stream ------------------------------------------------ */

/* Work on the legacy queue waits for all prior work of blocking queues. */
static int legacy_waits_for_blocking(rt_queue *legacy)
{
    size_t n;
    rt_queue **qs = rt__sched_snapshot(legacy->sched, &n);
    if (!qs)
        return RT_Q_NOMEM;
    rt_signal **marks = calloc(n ? n : 1, sizeof *marks);
    size_t k = 0;
    int rc = marks ? RT_Q_OK : RT_Q_NOMEM;
    for (size_t i = 0; i < n; i++) {
        rt_queue *q = qs[i];
        if (rc == RT_Q_OK && q != legacy && !(q->flags & RT_QUEUE_NON_BLOCKING)) {
            rt_signal *m;
            rc = pending_marker(q, &m);
            if (m)
                marks[k++] = m;
        }
        rt__queue_unref(q);
    }
    free(qs);
    if (rc == RT_Q_OK)
        rc = push_barrier(legacy, marks, k);
    for (size_t i = 0; i < k; i++)
        rt_signal_release(marks[i]);
    free(marks);
    return rc;
}

/* Work on a blocking queue waits for prior legacy work. */
static int blocking_waits_for_legacy(rt_queue *q, rt_queue *legacy)
{
    rt_signal *m;
    int rc = pending_marker(legacy, &m);
    if (rc != RT_Q_OK || !m)
        return rc;
    rc = push_barrier(q, &m, 1);
    rt_signal_release(m);
    return rc;
}

static int implicit_sync(rt_queue *q)
{
    rt_queue *legacy = q->sched->legacy;
    if (q->flags & RT_QUEUE_NON_BLOCKING)
        return RT_Q_OK;
    if (q == legacy)
        return legacy_waits_for_blocking(q);
    return blocking_waits_for_legacy(q, legacy);
}

/* Work packets: implicit sync first, then the packet. */
static int submit(rt_queue *q, const rt_packet *p)
{
    int rc = implicit_sync(q);
    return rc == RT_Q_OK ? push(q, p, 0) : rc;
}

/* --- enqueue ------------------------------------------------------------------ */

int rt_queue_kernel(rt_queue *q, rt_kernel_fn fn, void *arg, rt_release_fn release)
{
    if (!q || !fn)
        return RT_Q_INVALID;
    rt_packet p = {.kind = RT_PKT_KERNEL, .u.kernel = {fn, arg, release}};
    return submit(q, &p);
}

int rt_queue_copy(rt_queue *q, void *dst, const void *src, size_t bytes)
{
    if (!q || (bytes && (!dst || !src)))
        return RT_Q_INVALID;
    rt_packet p = {.kind = RT_PKT_COPY, .u.copy = {dst, src, bytes}};
    return submit(q, &p);
}

int rt_queue_memset(rt_queue *q, void *dst, size_t pitch, uint32_t value, unsigned elem_size,
                    size_t width, size_t height)
{
    if (!q || (elem_size != 1 && elem_size != 2 && elem_size != 4))
        return RT_Q_INVALID;
    if (width && height && (!dst || (height > 1 && pitch < width * elem_size)))
        return RT_Q_INVALID;
    rt_packet p = {.kind = RT_PKT_MEMSET,
                   .u.memset = {dst, pitch, width, height, value, elem_size}};
    return submit(q, &p);
}

int rt_queue_host(rt_queue *q, rt_host_fn fn, void *arg)
{
    if (!q || !fn)
        return RT_Q_INVALID;
    rt_packet p = {.kind = RT_PKT_HOST, .u.host = {fn, arg}};
    return submit(q, &p);
}

rt_signal *rt_queue_marker(rt_queue *q)
{
    if (!q || implicit_sync(q) != RT_Q_OK)
        return NULL;
    rt_signal *m = rt_signal_create();
    if (!m)
        return NULL;
    pthread_mutex_lock(&q->lock);
    int now = q->completed == q->enqueued; /* everything before it is done */
    int rc = q->destroyed ? RT_Q_INVALID : RT_Q_OK;
    if (!now && rc == RT_Q_OK) {
        rt_packet p = {.kind = RT_PKT_MARKER, .signal = m};
        rc = push_locked(q, &p, 0);
        if (rc == RT_Q_OK)
            rt_signal_retain(m);
    }
    pthread_mutex_unlock(&q->lock);
    if (rc != RT_Q_OK) {
        rt_signal_release(m);
        return NULL;
    }
    if (now)
        rt_signal_complete(m, rt_sched_error(q->sched));
    return m;
}

/* --- running packets ------------------------------------------------------------ */

static void fill(void *dst, uint32_t value, unsigned elem, size_t count)
{
    if (elem == 1) {
        memset(dst, (int)(value & 0xff), count);
        return;
    }
    uint8_t *d = dst;
    for (size_t i = 0; i < count; i++, d += elem)
        memcpy(d, &value, elem); /* little endian: the low elem bytes */
}

static void run_memset(const rt_packet *p)
{
    uint8_t *row = p->u.memset.dst;
    for (size_t r = 0; r < p->u.memset.height; r++, row += p->u.memset.pitch)
        fill(row, p->u.memset.value, p->u.memset.elem, p->u.memset.width);
}

/* Runs one packet; returns the error it caused (a failed kernel), else 0. */
static int run_packet(rt_queue *q, rt_packet *p)
{
    int sticky = atomic_load(&q->sched->sticky);
    int err = 0;
    switch (p->kind) {
    case RT_PKT_KERNEL:
        if (!sticky)
            err = p->u.kernel.fn(p->u.kernel.arg);
        if (err && !(err & RT_TRANSIENT)) { /* a transient one: finish() keeps it */
            int none = 0;
            atomic_compare_exchange_strong(&q->sched->sticky, &none, err);
        }
        if (p->u.kernel.release)
            p->u.kernel.release(p->u.kernel.arg);
        break;
    case RT_PKT_COPY:
        if (!sticky && p->u.copy.bytes)
            memmove(p->u.copy.dst, p->u.copy.src, p->u.copy.bytes);
        break;
    case RT_PKT_MEMSET:
        if (!sticky)
            run_memset(p);
        break;
    case RT_PKT_HOST:
        p->u.host.fn(p->u.host.arg, sticky);
        break;
    case RT_PKT_BARRIER:
        for (size_t i = 0; i < p->u.barrier.n; i++)
            rt_signal_release(p->u.barrier.deps[i]);
        free(p->u.barrier.deps);
        break;
    case RT_PKT_MARKER:
        break;
    }
    return err;
}

/* The packet's signal completes in the same critical section that counts
 * the packet done: a stream sync or query never disagrees with an event
 * recorded on it.  (Lock order q->lock, then the signal's; its callbacks
 * take only a scheduler lock.) */
static void finish(rt_queue *q, rt_packet *p, int err)
{
    pthread_mutex_lock(&q->lock);
    q->completed++;
    if (err & RT_TRANSIENT) {
        if (!q->transient)
            q->transient = err & ~RT_TRANSIENT;
    } else if (err && !q->error) {
        q->error = err;
    }
    if (p->signal)
        rt_signal_complete(p->signal, rt_sched_error(q->sched));
    if (q->sync_waiters)
        pthread_cond_broadcast(&q->drained);
    pthread_mutex_unlock(&q->lock);
    rt_signal_release(p->signal);
}

/* Parks q on the first pending signal of the head barrier p: 1 if parked
 * (q now belongs to whoever the signal wakes), 0 if all have completed. */
static int park_on_pending(rt_queue *q, const rt_packet *p)
{
    rt_sched *s = q->sched;
    for (size_t i = 0; i < p->u.barrier.n; i++) {
        rt_signal *dep = p->u.barrier.deps[i];
        if (rt_signal_done(dep))
            continue;
        /* PARKED before registering: the callback may run at once. */
        pthread_mutex_lock(&s->lock);
        rt__sched_set_state(q, RT_QS_PARKED);
        pthread_mutex_unlock(&s->lock);
        q->park = (rt_signal_waiter){.fn = rt__sched_wake, .arg = q};
        if (rt_signal_on_complete(dep, &q->park))
            return 1;
        pthread_mutex_lock(&s->lock);
        rt__sched_set_state(q, RT_QS_RUNNING);
        pthread_mutex_unlock(&s->lock);
    }
    return 0;
}

/* The queue ran dry (q->lock held): idle, drop the activity reference
 * after unlocking. */
static void go_idle(rt_queue *q)
{
    q->active = 0;
    pthread_mutex_lock(&q->sched->lock);
    rt__sched_set_state(q, RT_QS_IDLE);
    pthread_mutex_unlock(&q->sched->lock);
}

void rt__queue_process(rt_queue *q, uint64_t until)
{
    for (;;) {
        pthread_mutex_lock(&q->lock);
        if (q->count == 0) {
            go_idle(q);
            pthread_mutex_unlock(&q->lock);
            rt__queue_unref(q);
            return;
        }
        if (q->completed >= until) {
            pthread_mutex_unlock(&q->lock);
            rt__sched_requeue(q);
            return;
        }
        rt_packet p = q->ring[q->head];
        if (p.kind == RT_PKT_BARRIER) {
            /* Only this processor pops, so the head stays put unlocked. */
            pthread_mutex_unlock(&q->lock);
            if (park_on_pending(q, &p))
                return;
            pthread_mutex_lock(&q->lock);
        }
        q->head = (q->head + 1) & (q->cap - 1);
        q->count--;
        pthread_mutex_unlock(&q->lock);
        finish(q, &p, run_packet(q, &p));
    }
}

/* --- host-side waits -------------------------------------------------------------- */

static int queue_status(rt_queue *q)
{
    return q->error ? q->error : rt_sched_error(q->sched);
}

/* A thread about to sleep until q has run its packets runs them itself
 * when no processor has taken q yet: a launch followed by a sync costs no
 * hand-off to a processor thread and back.  Nothing about the stream
 * changes: one owner at a time runs the packets in order, through the same
 * code, and a barrier still parks the queue.  It runs only the packets the
 * sync waits for, so work enqueued meanwhile cannot hold it.  Only for
 * unbounded waits: a packet cannot be left half-way at a deadline. */
static void help(rt_queue *q, uint64_t target, uint64_t timeout_ns)
{
    if (timeout_ns != RT_WAIT_FOREVER || !rt__sched_claim(q))
        return;
    pthread_mutex_unlock(&q->lock);
    rt__queue_process(q, target);
    pthread_mutex_lock(&q->lock);
}

int rt_queue_sync(rt_queue *q, uint64_t timeout_ns)
{
    if (!q)
        return RT_Q_INVALID;
    struct timespec deadline;
    rt_deadline(&deadline, timeout_ns);
    pthread_mutex_lock(&q->lock);
    uint64_t target = q->enqueued;
    int rc = 0;
    if (q->completed < target)
        help(q, target, timeout_ns);
    while (q->completed < target && rc != ETIMEDOUT) {
        q->sync_waiters++;
        rc = rt_cond_wait_until(&q->drained, &q->lock, timeout_ns, &deadline);
        q->sync_waiters--;
    }
    int st = q->completed >= target ? queue_status(q) : RT_Q_TIMEOUT;
    if (st == RT_Q_OK && q->transient) { /* reported once */
        st = q->transient;
        q->transient = 0;
    }
    pthread_mutex_unlock(&q->lock);
    return st;
}

int rt_queue_query(rt_queue *q)
{
    if (!q)
        return RT_Q_INVALID;
    pthread_mutex_lock(&q->lock);
    int st = q->completed < q->enqueued ? RT_Q_NOT_READY : queue_status(q);
    pthread_mutex_unlock(&q->lock);
    return st;
}
