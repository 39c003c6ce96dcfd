/* pool.c - worker threads, chunked parallel_for, futex sleeping.
 *
 * One launch at a time (launch_lock).  The launcher writes the job, then
 * hands it to the helpers it needs by bumping each one's `go` word; a helper
 * spins on its own word for a while and then sleeps on it with a futex.
 * Everyone claims chunks from next_chunk; each helper decrements `running`
 * when it has no more, and the launcher waits for zero, so a worker index
 * is never used by two threads at once and the job fields are never written
 * while a helper reads them.
 *
 * Sleep/wake handshakes are Dekker-style on seq_cst atomics: the sleeper
 * publishes "sleeping" then re-reads the word, the waker publishes the word
 * then reads "sleeping", so at least one of them sees the other and the
 * futex syscall happens only when someone really sleeps. */
#define _GNU_SOURCE
#include "pool.h"

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

/* One pool thread.  Each sits on its own cache line so that a helper's
 * polling does not disturb the others. */
typedef struct rt_pool_slot {
    alignas(RT_CACHE_LINE) _Atomic uint32_t go; /* bumped to hand over a job */
    _Atomic uint32_t sleeping;                   /* in (or about to enter) futex wait */
    unsigned index;
    bool started;
    pthread_t thread;
    rt_pool *pool;
} rt_pool_slot;

struct rt_pool {
    unsigned size;
    rt_pool_slot *slots; /* [1, size); slot 0 is the caller and unused */
    pthread_mutex_t launch_lock;
    _Atomic bool stopping;

    /* The job: written by the launcher only while no helper runs. */
    rt_pool_fn fn;
    void *ctx;
    uint64_t n, chunk, nchunks;

    alignas(RT_CACHE_LINE) _Atomic uint64_t next_chunk;
    _Atomic int result; /* first nonzero fn result, 0 while none */

    alignas(RT_CACHE_LINE) _Atomic uint32_t running; /* helpers not yet done */
    _Atomic uint32_t launcher_sleeping;
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
static bool claim_chunk(rt_pool *p, uint64_t *begin, uint64_t *end)
{
    if (atomic_load(&p->result) != 0)
        return false;
    /* A compare-exchange rather than fetch_add: the counter never passes
     * nchunks, so it cannot wrap whatever n is. */
    uint64_t c = atomic_load_explicit(&p->next_chunk, memory_order_relaxed);
    do {
        if (c >= p->nchunks)
            return false;
    } while (!atomic_compare_exchange_weak_explicit(&p->next_chunk, &c, c + 1,
                                                    memory_order_relaxed, memory_order_relaxed));
    *begin = c * p->chunk;
    *end = p->n - *begin > p->chunk ? *begin + p->chunk : p->n;
    return true;
}

static void run_chunks(rt_pool *p, unsigned worker)
{
    uint64_t begin, end;
    while (claim_chunk(p, &begin, &end)) {
        int rc = p->fn(p->ctx, worker, begin, end);
        if (rc != 0) {
            int none = 0;
            atomic_compare_exchange_strong(&p->result, &none, rc);
            return;
        }
    }
}

/* --- helpers -------------------------------------------------------------- */

/* Waits until the launcher bumps s->go past `seen`; returns the new value. */
static uint32_t wait_for_job(rt_pool_slot *s, uint32_t seen)
{
    uint32_t go;
    rt_spin spin = {0};
    do {
        go = atomic_load_explicit(&s->go, memory_order_acquire);
        if (go != seen)
            return go;
    } while (spin_again(&spin));
    atomic_store(&s->sleeping, 1);
    while ((go = atomic_load(&s->go)) == seen)
        futex_wait(&s->go, seen);
    atomic_store_explicit(&s->sleeping, 0, memory_order_relaxed);
    return go;
}

static void helper_done(rt_pool *p)
{
    /* The pool outlives this call: rt_pool_destroy joins before freeing.
     * A wake that lands in the next launch's wait is harmless. */
    if (atomic_fetch_sub(&p->running, 1) == 1 && atomic_load(&p->launcher_sleeping))
        futex_wake(&p->running, 1);
}

static void *helper_main(void *arg)
{
    rt_pool_slot *s = arg;
    rt_pool *p = s->pool;
    uint32_t seen = 0;
    for (;;) {
        seen = wait_for_job(s, seen);
        if (atomic_load(&p->stopping))
            return NULL;
        run_chunks(p, s->index);
        helper_done(p);
    }
}

/* Hands the current job to helper i, waking it only if it sleeps. */
static void hand_job(rt_pool_slot *s)
{
    atomic_fetch_add(&s->go, 1);
    if (atomic_load(&s->sleeping))
        futex_wake(&s->go, 1);
}

static void wait_for_helpers(rt_pool *p)
{
    rt_spin spin = {0};
    do {
        if (atomic_load_explicit(&p->running, memory_order_acquire) == 0)
            return;
    } while (spin_again(&spin));
    atomic_store(&p->launcher_sleeping, 1);
    uint32_t r;
    while ((r = atomic_load(&p->running)) != 0)
        futex_wait(&p->running, r);
    atomic_store_explicit(&p->launcher_sleeping, 0, memory_order_relaxed);
}

/* --- parallel_for --------------------------------------------------------- */

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
    pthread_mutex_lock(&p->launch_lock);
    p->fn = fn;
    p->ctx = ctx;
    p->n = n;
    p->chunk = pick_chunk(p, n, chunk);
    p->nchunks = (n - 1) / p->chunk + 1;
    atomic_store_explicit(&p->next_chunk, 0, memory_order_relaxed);
    atomic_store_explicit(&p->result, 0, memory_order_relaxed);
    /* Wake no more helpers than there are chunks beyond the caller's. */
    uint64_t helpers = p->nchunks - 1 < p->size - 1 ? p->nchunks - 1 : p->size - 1;
    atomic_store(&p->running, (uint32_t)helpers);
    for (unsigned i = 1; i <= helpers; i++)
        hand_job(&p->slots[i]);
    run_chunks(p, 0);
    wait_for_helpers(p);
    int rc = atomic_load(&p->result);
    pthread_mutex_unlock(&p->launch_lock);
    return rc;
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
    for (unsigned i = 1; i < p->size; i++)
        if (p->slots[i].started)
            hand_job(&p->slots[i]);
    for (unsigned i = 1; i < p->size; i++)
        if (p->slots[i].started)
            pthread_join(p->slots[i].thread, NULL);
}

static void free_pool(rt_pool *p)
{
    pthread_mutex_destroy(&p->launch_lock);
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
    p->slots = aligned_alloc(RT_CACHE_LINE, nthreads * sizeof *p->slots);
    if (!p->slots || pthread_mutex_init(&p->launch_lock, NULL) != 0) {
        free(p->slots);
        free(p);
        return NULL;
    }
    memset(p->slots, 0, nthreads * sizeof *p->slots);
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
    pthread_mutex_lock(&p->launch_lock);
    stop_helpers(p);
    pthread_mutex_unlock(&p->launch_lock);
    free_pool(p);
}

unsigned rt_pool_size(const rt_pool *p) { return p->size; }
