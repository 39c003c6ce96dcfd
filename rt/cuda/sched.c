/* sched.c - the packet processors of one context: an elastic pool of
 * threads taking runnable queues (see queue.h for the policy). */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>

#include "queue_impl.h"
#include "condwait.h"

#define DEFAULT_MAX_THREADS 256u
#define DEFAULT_LINGER_NS 1000000000ull

/* Doorbells.  Waking a sleeping processor costs the enqueuing thread a
 * futex call and then contention on s->lock with the thread it woke, most
 * of a launch's cost, and in vain when a sync runs the packets itself (see
 * rt_queue_sync).  So for POLL_WINDOW_NS after the last activity an idle
 * processor looks for runnable queues every POLL_NS, sleeping in between,
 * and a queue becoming runnable wakes nobody while enough of them look.
 * Work not synchronized on starts within POLL_NS; a processor polls at most
 * POLL_WINDOW_NS / POLL_NS times before it sleeps until woken, so an idle
 * context costs no CPU, and launches further apart than the window are
 * woken for as before. */
#define POLL_NS 100000ull
#define POLL_WINDOW_NS 500000ull

typedef struct rt_sched_thread {
    pthread_t tid;
    rt_sched *sched;
    struct rt_sched_thread *next;
} rt_sched_thread;

/* --- the runnable list (s->lock) ------------------------------------------- */

/* After every queue of equal or higher priority (lower value): priority
 * order, FIFO within one priority. */
static void push_runnable(rt_sched *s, rt_queue *q)
{
    rt_queue **at = &s->runnable;
    while (*at && (*at)->priority <= q->priority)
        at = &(*at)->next_runnable;
    q->next_runnable = *at;
    *at = q;
    s->nrunnable++;
}

static rt_queue *pop_runnable(rt_sched *s)
{
    rt_queue *q = s->runnable;
    if (q) {
        s->runnable = q->next_runnable;
        q->next_runnable = NULL;
        s->nrunnable--;
    }
    return q;
}

static void remove_runnable(rt_sched *s, rt_queue *q)
{
    for (rt_queue **at = &s->runnable; *at; at = &(*at)->next_runnable)
        if (*at == q) {
            *at = q->next_runnable;
            s->nrunnable--;
            return;
        }
}

/* --- processor threads --------------------------------------------------- */

static void *processor_main(void *arg)
{
    rt_sched_thread *self = arg;
    rt_sched *s = self->sched;
    pthread_mutex_lock(&s->lock);
    for (;;) {
        rt_queue *q = pop_runnable(s);
        if (q) {
            q->by_processor = 1;
            rt__sched_set_state(q, RT_QS_RUNNING);
            pthread_mutex_unlock(&s->lock);
            rt__queue_process(q, UINT64_MAX);
            pthread_mutex_lock(&s->lock);
            s->last_activity = rt_clock_ns();
            continue;
        }
        if (s->shutdown)
            break;
        struct timespec deadline;
        if (rt_clock_ns() - s->last_activity < POLL_WINDOW_NS) {
            s->npolling++;
            rt_deadline(&deadline, POLL_NS);
            rt_cond_wait_until(&s->poll, &s->lock, POLL_NS, &deadline);
            s->npolling--;
            continue;
        }
        rt_deadline(&deadline, s->linger_ns);
        int rc = rt_cond_wait_until(&s->work, &s->lock, s->linger_ns, &deadline);
        if (rc == ETIMEDOUT && !s->runnable)
            break;
    }
    /* Joined by the next spawn or by rt_sched_destroy: after this unlock
     * the thread touches nothing of s. */
    s->nthreads--;
    self->next = s->dead;
    s->dead = self;
    pthread_cond_broadcast(&s->gone);
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

/* Joins exited threads.  Safe under s->lock: a thread is listed only after
 * its last use of the lock. */
static void reap(rt_sched *s)
{
    while (s->dead) {
        rt_sched_thread *t = s->dead;
        s->dead = t->next;
        pthread_join(t->tid, NULL);
        free(t);
    }
}

/* Starts a processor (s->lock held).  Like the worker pool's threads it
 * blocks every signal but the synchronous fault signals, which fault
 * containment handles on the faulting thread. */
static int spawn(rt_sched *s)
{
    reap(s);
    rt_sched_thread *t = malloc(sizeof *t);
    if (!t)
        return RT_Q_NOMEM;
    t->sched = s;
    sigset_t mask, old;
    sigfillset(&mask);
    sigdelset(&mask, SIGSEGV);
    sigdelset(&mask, SIGBUS);
    sigdelset(&mask, SIGFPE);
    sigdelset(&mask, SIGILL);
    sigdelset(&mask, SIGTRAP);
    pthread_sigmask(SIG_SETMASK, &mask, &old);
    int rc = pthread_create(&t->tid, NULL, processor_main, t);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        free(t);
        return RT_Q_NOMEM;
    }
    s->nthreads++;
    return RT_Q_OK;
}

/* After a push: start a processor when the runnable queues outnumber the
 * processors that own none (a thread per stream with work), wake a
 * sleeping one when they outnumber those polling.  Fails only when no
 * processor exists at all. */
static int ensure_processor(rt_sched *s)
{
    s->last_activity = rt_clock_ns();
    if (s->nrunnable > s->nthreads - s->nrunning && s->nthreads < s->max_threads &&
        spawn(s) != RT_Q_OK && s->nthreads == 0)
        return RT_Q_NOMEM;
    if (s->nrunnable > s->npolling)
        pthread_cond_signal(&s->work);
    return RT_Q_OK;
}

/* --- queue hooks (queue_impl.h) -------------------------------------------- */

/* A processor stops counting as running once its queue leaves its hands
 * (idle, parked), not once it is back waiting for work: a queue activated
 * in between must not start another thread.  (It did, one per launch that
 * a sync ran itself while the processor was on its way back.) */
void rt__sched_set_state(rt_queue *q, rt_queue_state st)
{
    rt_sched *s = q->sched;
    if (q->by_processor && q->state == RT_QS_RUNNING)
        s->nrunning--;
    if (q->by_processor && st == RT_QS_RUNNING)
        s->nrunning++;
    q->state = st;
}

static void make_runnable(rt_sched *s, rt_queue *q)
{
    rt__sched_set_state(q, RT_QS_RUNNABLE);
    push_runnable(s, q);
    /* With no thread at all and none to be had the queue waits for the
     * next spawn; there is no caller to report it to. */
    ensure_processor(s);
}

int rt__sched_activate(rt_queue *q)
{
    rt_sched *s = q->sched;
    pthread_mutex_lock(&s->lock);
    q->state = RT_QS_RUNNABLE;
    push_runnable(s, q);
    int rc = ensure_processor(s);
    if (rc != RT_Q_OK) {
        remove_runnable(s, q);
        q->state = RT_QS_IDLE;
    }
    pthread_mutex_unlock(&s->lock);
    return rc;
}

void rt__sched_wake(void *queue)
{
    rt_queue *q = queue;
    rt_sched *s = q->sched;
    pthread_mutex_lock(&s->lock);
    if (q->state == RT_QS_PARKED)
        make_runnable(s, q);
    pthread_mutex_unlock(&s->lock);
}

int rt__sched_claim(rt_queue *q)
{
    rt_sched *s = q->sched;
    pthread_mutex_lock(&s->lock);
    int claimed = q->state == RT_QS_RUNNABLE;
    if (claimed) {
        remove_runnable(s, q);
        q->by_processor = 0;
        rt__sched_set_state(q, RT_QS_RUNNING);
    }
    pthread_mutex_unlock(&s->lock);
    return claimed;
}

void rt__sched_requeue(rt_queue *q)
{
    rt_sched *s = q->sched;
    pthread_mutex_lock(&s->lock);
    make_runnable(s, q);
    pthread_mutex_unlock(&s->lock);
}

void rt__sched_add_queue(rt_sched *s, rt_queue *q)
{
    pthread_mutex_lock(&s->lock);
    q->prev = NULL;
    q->next = s->queues;
    if (s->queues)
        s->queues->prev = q;
    s->queues = q;
    s->nqueues++;
    pthread_mutex_unlock(&s->lock);
}

void rt__sched_remove_queue(rt_sched *s, rt_queue *q)
{
    pthread_mutex_lock(&s->lock);
    if (q->prev)
        q->prev->next = q->next;
    else
        s->queues = q->next;
    if (q->next)
        q->next->prev = q->prev;
    s->nqueues--;
    pthread_cond_broadcast(&s->gone);
    pthread_mutex_unlock(&s->lock);
}

/* Referenced snapshot of the live queues (for sync and destroy); *n set. */
rt_queue **rt__sched_snapshot(rt_sched *s, size_t *n)
{
    pthread_mutex_lock(&s->lock);
    rt_queue **qs = malloc((s->nqueues ? s->nqueues : 1) * sizeof *qs);
    *n = 0;
    for (rt_queue *q = s->queues; qs && q; q = q->next)
        if (rt__queue_tryref(q))
            qs[(*n)++] = q;
    pthread_mutex_unlock(&s->lock);
    return qs;
}

/* --- the scheduler ---------------------------------------------------------- */

rt_sched *rt_sched_create(const rt_sched_config *cfg)
{
    rt_sched *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->max_threads = cfg && cfg->max_threads ? cfg->max_threads : DEFAULT_MAX_THREADS;
    s->linger_ns = cfg && cfg->linger_ns ? cfg->linger_ns : DEFAULT_LINGER_NS;
    pthread_mutex_init(&s->lock, NULL);
    rt_cond_init(&s->work);
    rt_cond_init(&s->poll);
    rt_cond_init(&s->gone);
    s->legacy = rt__queue_new(s, RT_QUEUE_LEGACY, 0);
    if (!s->legacy) {
        rt_sched_destroy(s);
        return NULL;
    }
    return s;
}

void rt_sched_destroy(rt_sched *s)
{
    if (!s)
        return;
    size_t n;
    rt_queue **qs = rt__sched_snapshot(s, &n);
    for (size_t i = 0; qs && i < n; i++) {
        rt__queue_retire(qs[i]);
        rt__queue_unref(qs[i]);
    }
    free(qs);
    pthread_mutex_lock(&s->lock);
    while (s->nqueues)
        pthread_cond_wait(&s->gone, &s->lock);
    s->shutdown = 1;
    pthread_cond_broadcast(&s->work);
    pthread_cond_broadcast(&s->poll);
    while (s->nthreads)
        pthread_cond_wait(&s->gone, &s->lock);
    reap(s);
    pthread_mutex_unlock(&s->lock);
    pthread_cond_destroy(&s->work);
    pthread_cond_destroy(&s->poll);
    pthread_cond_destroy(&s->gone);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

rt_queue *rt_sched_legacy(rt_sched *s)
{
    return s->legacy;
}

int rt_sched_sync(rt_sched *s, uint64_t timeout_ns)
{
    size_t n;
    rt_queue **qs = rt__sched_snapshot(s, &n);
    if (!qs)
        return RT_Q_NOMEM;
    uint64_t end = timeout_ns == RT_WAIT_FOREVER ? 0 : rt_clock_ns() + timeout_ns;
    int rc = RT_Q_OK;
    for (size_t i = 0; i < n; i++) {
        if (rc != RT_Q_TIMEOUT) {
            uint64_t now = rt_clock_ns();
            uint64_t left = timeout_ns == RT_WAIT_FOREVER ? RT_WAIT_FOREVER
                                                          : (end > now ? end - now : 0);
            int r = rt_queue_sync(qs[i], left);
            if (r != RT_Q_OK && (rc == RT_Q_OK || r == RT_Q_TIMEOUT))
                rc = r;
        }
        rt__queue_unref(qs[i]);
    }
    free(qs);
    return rc;
}

int rt_sched_error(const rt_sched *s)
{
    return atomic_load(&((rt_sched *)s)->sticky);
}

unsigned rt_sched_threads(rt_sched *s)
{
    pthread_mutex_lock(&s->lock);
    unsigned n = s->nthreads;
    pthread_mutex_unlock(&s->lock);
    return n;
}
