/* pool.c - worker threads, concurrent chunked parallel_for, futex sleeping.
 *
 * A launch posts a job (on the launching thread's stack) in the pool's job
 * list and bumps `work_seq`; pool threads spin on that word for a while and
 * then sleep on it with a futex.  A pool thread attaches to the oldest job
 * with unclaimed chunks (under jobs_lock), claims chunks from it until none
 * are left, detaches and looks again.  The launching thread runs chunks of
 * its own job, then unlists it (so nobody attaches any more) and waits for
 * the attached threads to detach; the job never outlives its launch.
 *
 * Sleep/wake handshakes are Dekker-style on seq_cst atomics: the sleeper
 * publishes "sleeping" then re-reads the word, the waker publishes the word
 * then reads "sleeping", so at least one of them sees the other and the
 * futex syscall happens only when someone really sleeps. */
#define _GNU_SOURCE
#include "pool.h"

#include "fpenv.h"

#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
static inline void cpu_relax(void) { _mm_pause(); }
#else
static inline void cpu_relax(void) {}
#endif

/* How long an idle helper polls for the next job, and the launcher for the
 * helpers, before sleeping.  Waking a sleeping thread costs 20-120 us on the
 * reference VM, so a host loop that launches back to back must find the
 * helpers still polling; an idle pool stops using CPU after this long.
 * Measured in time, not iterations: `pause` costs from ~10 to ~140 cycles
 * depending on the CPU. */
#define RT_POOL_SPIN_NS 100000u
/* Polls that only `pause` (about a microsecond) before yielding the CPU. */
#define RT_POOL_PAUSE_POLLS 32u

#define RT_CACHE_LINE 64

/* One pool thread. */
typedef struct rt_pool_slot {
    unsigned index;
    bool started;
    pthread_t thread;
    rt_pool *pool;
} rt_pool_slot;

/* Set in a job's `users` while its launcher sleeps waiting for them. */
#define WAITER 0x80000000u

typedef struct rt_job {
    rt_pool_fn fn;
    void *ctx;
    uint64_t n, chunk, nchunks;
    struct rt_job *next;               /* in the pool's list, under jobs_lock */
    alignas(RT_CACHE_LINE) _Atomic uint64_t next_chunk;
    _Atomic int result;                /* first nonzero fn result, 0 while none */
    alignas(RT_CACHE_LINE) _Atomic uint32_t users; /* pool threads attached, | WAITER */
} rt_job;

struct rt_pool {
    unsigned size;
    rt_pool_slot *slots;               /* [1, size); slot 0 is a launcher's */
    _Atomic bool stopping;

    pthread_mutex_t jobs_lock;
    rt_job *head, *tail;               /* running launches, oldest first */

    pthread_mutex_t caller_lock;       /* launching threads' worker indices */
    pthread_cond_t caller_free;
    uint64_t callers;                  /* bit k: caller index k taken */

    alignas(RT_CACHE_LINE) _Atomic uint32_t work_seq; /* bumped per posted job */
    _Atomic uint32_t sleepers;         /* pool threads in (or entering) futex wait */
};

/* --- futex ---------------------------------------------------------------- */

/* Sleeps while *word == expected (the kernel checks atomically). */
static void futex_wait(_Atomic uint32_t *word, uint32_t expected)
{
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *word, int count)
{
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_PRIVATE, count, NULL, NULL, 0);
}

/* --- bounded polling ------------------------------------------------------ */

typedef struct rt_spin {
    unsigned polls;
    uint64_t deadline; /* 0 until the clock is first read */
} rt_spin;

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts); /* vDSO: no syscall */
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Polls once; false when the polling budget is spent.  The first polls
 * only `pause`; later ones sched_yield, because the thread we are waiting
 * for is often queued on this very CPU (the scheduler puts a wakee next to
 * its waker) and would otherwise wait out our whole budget: measured, a
 * cold 2-worker launch took 220 us with pause alone, ~11 us with yields.
 * The clock is read every 32 polls, and not at all in a short wait. */
static bool spin_again(rt_spin *s)
{
    if (s->polls < RT_POOL_PAUSE_POLLS)
        cpu_relax();
    else
        sched_yield();
    if ((++s->polls & 31) != 0)
        return true;
    uint64_t now = mono_ns();
    if (s->deadline == 0)
        s->deadline = now + RT_POOL_SPIN_NS;
    return now < s->deadline;
}

/* --- running chunks ------------------------------------------------------- */

/* Claims the next chunk unless all are gone or some fn failed.  A claimed
 * chunk always runs, so the chunks that ran form a prefix of [0, nchunks):
 * after a failure, everything before the failing chunk still ran. */
static bool claim_chunk(rt_job *j, uint64_t *begin, uint64_t *end)
{
    if (atomic_load(&j->result) != 0)
        return false;
    /* A compare-exchange rather than fetch_add: the counter never passes
     * nchunks, so it cannot wrap whatever n is. */
    uint64_t c = atomic_load_explicit(&j->next_chunk, memory_order_relaxed);
    do {
        if (c >= j->nchunks)
            return false;
    } while (!atomic_compare_exchange_weak_explicit(&j->next_chunk, &c, c + 1,
                                                    memory_order_relaxed, memory_order_relaxed));
    *begin = c * j->chunk;
    *end = j->n - *begin > j->chunk ? *begin + j->chunk : j->n;
    return true;
}

static void run_chunks(rt_job *j, unsigned worker)
{
    uint64_t begin, end;
    while (claim_chunk(j, &begin, &end)) {
        int rc = j->fn(j->ctx, worker, begin, end);
        if (rc != 0) {
            int none = 0;
            atomic_compare_exchange_strong(&j->result, &none, rc);
            return;
        }
    }
}

/* --- the job list ----------------------------------------------------------- */

static bool has_work(rt_job *j)
{
    return atomic_load(&j->result) == 0 &&
           atomic_load_explicit(&j->next_chunk, memory_order_relaxed) < j->nchunks;
}

/* The oldest job with chunks left, attached to; NULL if none. */
static rt_job *attach(rt_pool *p)
{
    pthread_mutex_lock(&p->jobs_lock);
    rt_job *j = p->head;
    while (j && !has_work(j))
        j = j->next;
    if (j)
        atomic_fetch_add(&j->users, 1);
    pthread_mutex_unlock(&p->jobs_lock);
    return j;
}

/* After this the job may be gone: only the futex word's address is used. */
static void detach(rt_job *j)
{
    if (atomic_fetch_sub(&j->users, 1) == (WAITER | 1))
        futex_wake(&j->users, 1);
}

static void post(rt_pool *p, rt_job *j)
{
    pthread_mutex_lock(&p->jobs_lock);
    if (p->tail)
        p->tail->next = j;
    else
        p->head = j;
    p->tail = j;
    pthread_mutex_unlock(&p->jobs_lock);
    atomic_fetch_add(&p->work_seq, 1);
    /* Wake no more pool threads than there are chunks beyond the caller's. */
    uint64_t want = j->nchunks - 1 < p->size - 1 ? j->nchunks - 1 : p->size - 1;
    if (want && atomic_load(&p->sleepers))
        futex_wake(&p->work_seq, (int)want);
}

static void unlist(rt_pool *p, rt_job *j)
{
    pthread_mutex_lock(&p->jobs_lock);
    rt_job **pp = &p->head, *prev = NULL;
    while (*pp != j) {
        prev = *pp;
        pp = &(*pp)->next;
    }
    *pp = j->next;
    if (p->tail == j)
        p->tail = prev;
    pthread_mutex_unlock(&p->jobs_lock);
}

/* Waits until no pool thread is attached to the (unlisted) job. */
static void wait_detached(rt_job *j)
{
    rt_spin spin = {0};
    do {
        if (atomic_load_explicit(&j->users, memory_order_acquire) == 0)
            return;
    } while (spin_again(&spin));
    uint32_t u;
    while ((u = atomic_load(&j->users)) & ~WAITER) {
        if (u & WAITER || atomic_compare_exchange_strong(&j->users, &u, u | WAITER))
            futex_wait(&j->users, u | WAITER);
    }
}

/* --- pool threads ------------------------------------------------------------- */

/* Waits until the job count moves past `seen` (or the pool stops). */
static void wait_for_work(rt_pool *p, uint32_t seen)
{
    rt_spin spin = {0};
    do {
        if (atomic_load_explicit(&p->work_seq, memory_order_acquire) != seen)
            return;
    } while (spin_again(&spin));
    atomic_fetch_add(&p->sleepers, 1);
    while (atomic_load(&p->work_seq) == seen)
        futex_wait(&p->work_seq, seen);
    atomic_fetch_sub(&p->sleepers, 1);
}

static void *helper_main(void *arg)
{
    rt_pool_slot *s = arg;
    rt_pool *p = s->pool;
    rt_fpenv_set_default(); /* not the creating thread's, which it inherits */
    for (;;) {
        uint32_t seen = atomic_load(&p->work_seq);
        if (atomic_load(&p->stopping))
            return NULL;
        rt_job *j = attach(p);
        if (j) {
            run_chunks(j, s->index);
            detach(j);
        } else {
            wait_for_work(p, seen);
        }
    }
}

/* --- launching threads ---------------------------------------------------------- */

/* A worker index for a launching thread: 0 if free, else size + k - 1. */
static unsigned caller_acquire(rt_pool *p)
{
    pthread_mutex_lock(&p->caller_lock);
    while (p->callers == UINT64_MAX)
        pthread_cond_wait(&p->caller_free, &p->caller_lock);
    unsigned k = (unsigned)__builtin_ctzll(~p->callers);
    p->callers |= 1ull << k;
    pthread_mutex_unlock(&p->caller_lock);
    return k == 0 ? 0 : p->size + k - 1;
}

static void caller_release(rt_pool *p, unsigned worker)
{
    unsigned k = worker == 0 ? 0 : worker - p->size + 1;
    pthread_mutex_lock(&p->caller_lock);
    p->callers &= ~(1ull << k);
    pthread_cond_signal(&p->caller_free);
    pthread_mutex_unlock(&p->caller_lock);
}

/* --- parallel_for ------------------------------------------------------------- */

static uint64_t pick_chunk(const rt_pool *p, uint64_t n, uint64_t chunk)
{
    if (chunk != 0)
        return chunk;
    chunk = n / (8 * (uint64_t)p->size);
    return chunk ? chunk : 1;
}

int rt_pool_parallel_for(rt_pool *p, uint64_t n, uint64_t chunk, rt_pool_fn fn, void *ctx)
{
    if (n == 0)
        return 0;
    rt_job j;
    memset(&j, 0, sizeof j);
    j.fn = fn;
    j.ctx = ctx;
    j.n = n;
    j.chunk = pick_chunk(p, n, chunk);
    j.nchunks = (n - 1) / j.chunk + 1;
    unsigned me = caller_acquire(p);
    if (j.nchunks > 1 && p->size > 1)
        post(p, &j);
    run_chunks(&j, me);
    if (j.nchunks > 1 && p->size > 1) {
        unlist(p, &j);
        wait_detached(&j);
    }
    caller_release(p, me);
    return atomic_load(&j.result);
}

/* --- create / destroy ----------------------------------------------------- */

/* $PTXJIT_THREADS if it is a positive decimal integer, else 0. */
static unsigned threads_from_env(void)
{
    const char *s = getenv("PTXJIT_THREADS");
    if (!s || *s < '0' || *s > '9')
        return 0;
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno != 0 || *end != '\0' || v == 0)
        return 0;
    return v > RT_POOL_MAX_THREADS ? RT_POOL_MAX_THREADS : (unsigned)v;
}

static unsigned default_threads(void)
{
    unsigned env = threads_from_env();
    if (env)
        return env;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus > 0 ? (unsigned)cpus : 1;
}

/* Stops and joins the helpers started so far; used by destroy and by a
 * create that failed half-way. */
static void stop_helpers(rt_pool *p)
{
    atomic_store(&p->stopping, true);
    atomic_fetch_add(&p->work_seq, 1);
    futex_wake(&p->work_seq, INT32_MAX);
    for (unsigned i = 1; i < p->size; i++)
        if (p->slots[i].started)
            pthread_join(p->slots[i].thread, NULL);
}

static void free_pool(rt_pool *p)
{
    pthread_mutex_destroy(&p->jobs_lock);
    pthread_mutex_destroy(&p->caller_lock);
    pthread_cond_destroy(&p->caller_free);
    free(p->slots);
    free(p);
}

/* Helpers inherit the creating thread's signal mask, so block the
 * asynchronous signals around pthread_create: no window in which a signal
 * meant for the host's threads lands on a helper. */
static bool start_helpers(rt_pool *p)
{
    sigset_t block, old;
    sigfillset(&block);
    sigdelset(&block, SIGSEGV);
    sigdelset(&block, SIGBUS);
    sigdelset(&block, SIGFPE);
    sigdelset(&block, SIGILL);
    sigdelset(&block, SIGTRAP);
    pthread_sigmask(SIG_SETMASK, &block, &old);
    bool ok = true;
    for (unsigned i = 1; i < p->size && ok; i++) {
        rt_pool_slot *s = &p->slots[i];
        s->index = i;
        s->pool = p;
        s->started = pthread_create(&s->thread, NULL, helper_main, s) == 0;
        ok = s->started;
        if (ok) {
            /* Shows in top/gdb; the kernel keeps 15 characters. */
            char name[32];
            snprintf(name, sizeof name, "ptxjit-w%u", i);
            name[15] = '\0';
            pthread_setname_np(s->thread, name);
        }
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return ok;
}

rt_pool *rt_pool_create(unsigned nthreads)
{
    if (nthreads == 0)
        nthreads = default_threads();
    if (nthreads > RT_POOL_MAX_THREADS)
        nthreads = RT_POOL_MAX_THREADS;
    rt_pool *p = aligned_alloc(RT_CACHE_LINE, sizeof *p);
    if (!p)
        return NULL;
    memset(p, 0, sizeof *p);
    p->size = nthreads;
    p->slots = calloc(nthreads, sizeof *p->slots);
    if (!p->slots) {
        free(p);
        return NULL;
    }
    pthread_mutex_init(&p->jobs_lock, NULL);
    pthread_mutex_init(&p->caller_lock, NULL);
    pthread_cond_init(&p->caller_free, NULL);
    if (!start_helpers(p)) {
        stop_helpers(p);
        free_pool(p);
        return NULL;
    }
    return p;
}

void rt_pool_destroy(rt_pool *p)
{
    if (!p)
        return;
    stop_helpers(p);
    free_pool(p);
}

unsigned rt_pool_size(const rt_pool *p) { return p->size; }
unsigned rt_pool_slots(const rt_pool *p) { return p->size + RT_POOL_CALLERS - 1; }
