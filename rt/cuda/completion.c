/* completion.c - completion signals (see completion.h).  The done flag is read
 * without the lock (acquire) so queries and a queue's barrier check cost an
 * atomic load; everything else happens under the signal's mutex. */
#include "completion.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "condwait.h"

struct rt_signal {
    _Atomic int done;
    _Atomic unsigned refs;
    int status;             /* valid once done */
    uint64_t when_ns;       /* valid once done */
    pthread_mutex_t lock;
    pthread_cond_t cv;
    unsigned sleepers;      /* threads in rt_signal_wait */
    rt_signal_waiter *waiters;
};

uint64_t rt_clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

rt_signal *rt_signal_create(void)
{
    rt_signal *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    atomic_init(&s->refs, 1);
    pthread_mutex_init(&s->lock, NULL);
    if (rt_cond_init(&s->cv) != 0) {
        pthread_mutex_destroy(&s->lock);
        free(s);
        return NULL;
    }
    return s;
}

void rt_signal_retain(rt_signal *s)
{
    atomic_fetch_add_explicit(&s->refs, 1, memory_order_relaxed);
}

void rt_signal_release(rt_signal *s)
{
    if (!s || atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) != 1)
        return;
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

void rt_signal_complete(rt_signal *s, int status)
{
    pthread_mutex_lock(&s->lock);
    if (atomic_load_explicit(&s->done, memory_order_relaxed)) {
        pthread_mutex_unlock(&s->lock);
        return;
    }
    s->status = status;
    s->when_ns = rt_clock_ns();
    atomic_store_explicit(&s->done, 1, memory_order_release);
    rt_signal_waiter *w = s->waiters;
    s->waiters = NULL;
    if (s->sleepers)
        pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->lock);
    /* Callbacks run unlocked: they take other locks (a scheduler's).  Each
     * node may be reused by its owner as soon as its fn starts, so read
     * next first. */
    while (w) {
        rt_signal_waiter *next = w->next;
        w->fn(w->arg);
        w = next;
    }
}

int rt_signal_done(const rt_signal *s)
{
    return atomic_load_explicit(&((rt_signal *)s)->done, memory_order_acquire);
}

int rt_signal_wait(rt_signal *s, uint64_t timeout_ns)
{
    if (rt_signal_done(s))
        return s->status;
    struct timespec deadline;
    rt_deadline(&deadline, timeout_ns);
    pthread_mutex_lock(&s->lock);
    int rc = 0;
    while (!atomic_load_explicit(&s->done, memory_order_relaxed) && rc != ETIMEDOUT) {
        s->sleepers++;
        rc = rt_cond_wait_until(&s->cv, &s->lock, timeout_ns, &deadline);
        s->sleepers--;
    }
    int st = atomic_load_explicit(&s->done, memory_order_relaxed) ? s->status : RT_Q_TIMEOUT;
    pthread_mutex_unlock(&s->lock);
    return st;
}

int rt_signal_status(const rt_signal *s)
{
    return rt_signal_done(s) ? s->status : RT_Q_NOT_READY;
}

int rt_signal_timestamp(const rt_signal *s, uint64_t *ns)
{
    if (!rt_signal_done(s))
        return RT_Q_NOT_READY;
    *ns = s->when_ns;
    return RT_Q_OK;
}

int rt_signal_elapsed_ms(const rt_signal *start, const rt_signal *end, float *ms)
{
    uint64_t a, b;
    if (rt_signal_timestamp(start, &a) != RT_Q_OK || rt_signal_timestamp(end, &b) != RT_Q_OK)
        return RT_Q_NOT_READY;
    double d = b >= a ? (double)(b - a) : -(double)(a - b);
    *ms = (float)(d / 1e6);
    return RT_Q_OK;
}

int rt_signal_on_complete(rt_signal *s, rt_signal_waiter *w)
{
    if (rt_signal_done(s))
        return 0;
    pthread_mutex_lock(&s->lock);
    int registered = !atomic_load_explicit(&s->done, memory_order_relaxed);
    if (registered) {
        w->next = s->waiters;
        s->waiters = w;
    }
    pthread_mutex_unlock(&s->lock);
    return registered;
}
