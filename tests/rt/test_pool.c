/* test_pool.c - rt/pool: coverage of the index range, chunking, worker
 * index bounds and exclusivity, early stop, many small launches, sizing
 * from PTXJIT_THREADS, and concurrent launches from several threads.
 *
 * cmocka's assertions are not thread-safe, so code running on pool threads
 * only counts what it saw in atomics; the main thread asserts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pool.h"

/* Every test builds its pools through here, so PTXJIT_THREADS left in the
 * environment by one test cannot leak into another. */
static rt_pool *pool_of(unsigned n)
{
    unsetenv("PTXJIT_THREADS");
    rt_pool *p = rt_pool_create(n);
    assert_non_null(p);
    return p;
}

/* --- sum ---------------------------------------------------------------- */

typedef struct sum_ctx {
    _Atomic uint64_t sum;
} sum_ctx;

static int add_range(void *ctx, unsigned worker, uint64_t begin, uint64_t end)
{
    sum_ctx *s = ctx;
    uint64_t local = 0;
    for (uint64_t i = begin; i < end; i++)
        local += i;
    atomic_fetch_add(&s->sum, local);
    return 0;
}

static void test_sum_of_a_million_matches_closed_form(void **state)
{
    rt_pool *p = pool_of(4);
    const uint64_t n = 1000000;
    uint64_t chunks[] = {0, 1, 1000, 4096, 999999, 2000000};
    for (size_t k = 0; k < sizeof chunks / sizeof chunks[0]; k++) {
        sum_ctx s = {0};
        assert_int_equal(rt_pool_parallel_for(p, n, chunks[k], add_range, &s), 0);
        assert_int_equal(atomic_load(&s.sum), n * (n - 1) / 2);
    }
    rt_pool_destroy(p);
}

/* --- coverage and chunk shape ------------------------------------------- */

typedef struct cover_ctx {
    _Atomic uint8_t *hits;  /* times each index was visited */
    uint64_t n, chunk;      /* chunk as the pool should have chosen it */
    _Atomic int bad_shape;  /* chunks not aligned or not of the expected size */
    _Atomic uint64_t calls;
} cover_ctx;

static int mark_range(void *ctx, unsigned worker, uint64_t begin, uint64_t end)
{
    cover_ctx *c = ctx;
    uint64_t want_end = begin + c->chunk < c->n ? begin + c->chunk : c->n;
    if (begin % c->chunk != 0 || end != want_end || begin >= end)
        atomic_fetch_add(&c->bad_shape, 1);
    for (uint64_t i = begin; i < end && i < c->n; i++)
        atomic_fetch_add(&c->hits[i], 1);
    atomic_fetch_add(&c->calls, 1);
    return 0;
}

/* Runs one launch and checks each index was visited exactly once in chunks
 * of `expect_chunk` items. */
static void check_cover(rt_pool *p, uint64_t n, uint64_t chunk, uint64_t expect_chunk)
{
    cover_ctx c = {.n = n, .chunk = expect_chunk};
    c.hits = calloc(n ? n : 1, sizeof *c.hits);
    assert_non_null(c.hits);
    assert_int_equal(rt_pool_parallel_for(p, n, chunk, mark_range, &c), 0);
    for (uint64_t i = 0; i < n; i++)
        if (atomic_load(&c.hits[i]) != 1)
            fail_msg("n=%lu chunk=%lu: index %lu visited %u times", (unsigned long)n,
                     (unsigned long)chunk, (unsigned long)i, (unsigned)atomic_load(&c.hits[i]));
    assert_int_equal(atomic_load(&c.bad_shape), 0);
    uint64_t want_calls = n ? (n + expect_chunk - 1) / expect_chunk : 0;
    assert_int_equal(atomic_load(&c.calls), want_calls);
    free(c.hits);
}

static void test_every_index_exactly_once(void **state)
{
    rt_pool *p = pool_of(3);
    check_cover(p, 1000, 7, 7);           /* n not divisible by chunk */
    check_cover(p, 1000, 1000, 1000);     /* one chunk */
    check_cover(p, 5, 100, 100);          /* chunk > n */
    check_cover(p, 64, 1, 1);
    check_cover(p, 100003, 13, 13);
    check_cover(p, 1, 1, 1);
    check_cover(p, 0, 3, 3);              /* nothing at all */
    /* chunk 0: about n / (8 * workers), at least 1 */
    check_cover(p, 100003, 0, 100003 / 24);
    check_cover(p, 10, 0, 1);
    rt_pool_destroy(p);
}

static int must_not_run(void *ctx, unsigned worker, uint64_t begin, uint64_t end)
{
    atomic_fetch_add((_Atomic int *)ctx, 1);
    return 99;
}

static void test_empty_range_calls_nothing(void **state)
{
    rt_pool *p = pool_of(2);
    _Atomic int calls = 0;
    assert_int_equal(rt_pool_parallel_for(p, 0, 0, must_not_run, &calls), 0);
    assert_int_equal(rt_pool_parallel_for(p, 0, 5, must_not_run, &calls), 0);
    assert_int_equal(atomic_load(&calls), 0);
    rt_pool_destroy(p);
}

/* --- worker indices ------------------------------------------------------ */

#define MAX_WORKERS 128

typedef struct excl_ctx {
    unsigned size;
    _Atomic int busy[MAX_WORKERS];
    _Atomic uint64_t used[MAX_WORKERS]; /* chunks run per worker */
    _Atomic int out_of_range;
    _Atomic int overlap;                /* a worker index used twice at once */
} excl_ctx;

static int use_worker_slot(void *ctx, unsigned worker, uint64_t begin, uint64_t end)
{
    excl_ctx *e = ctx;
    if (worker >= e->size || worker >= MAX_WORKERS) {
        atomic_fetch_add(&e->out_of_range, 1);
        return 0;
    }
    if (atomic_exchange(&e->busy[worker], 1) != 0)
        atomic_fetch_add(&e->overlap, 1);
    /* Stay a little while so that overlaps have a chance to show. */
    for (volatile int spin = 0; spin < 200; spin++)
        ;
    atomic_fetch_add(&e->used[worker], 1);
    atomic_store(&e->busy[worker], 0);
    return 0;
}

static void test_worker_index_in_bounds_and_exclusive(void **state)
{
    rt_pool *p = pool_of(4);
    static excl_ctx e;
    memset(&e, 0, sizeof e);
    e.size = rt_pool_size(p);
    assert_int_equal(e.size, 4);
    for (int rep = 0; rep < 200; rep++)
        assert_int_equal(rt_pool_parallel_for(p, 4000, 1, use_worker_slot, &e), 0);
    assert_int_equal(atomic_load(&e.out_of_range), 0);
    assert_int_equal(atomic_load(&e.overlap), 0);
    uint64_t total = 0;
    for (unsigned w = 0; w < e.size; w++)
        total += atomic_load(&e.used[w]);
    assert_int_equal(total, 200 * 4000);
    /* The caller always takes part. */
    assert_true(atomic_load(&e.used[0]) > 0);
    rt_pool_destroy(p);
}

/* Two host threads launching on one pool at the same time: worker indices
 * (pool threads and launching threads alike) stay below rt_pool_slots and
 * exclusive, and every launch completes. */
typedef struct race_arg {
    rt_pool *p;
    excl_ctx *e;
    int failures;
} race_arg;

static void *launch_many(void *arg)
{
    race_arg *r = arg;
    for (int i = 0; i < 300; i++)
        if (rt_pool_parallel_for(r->p, 64, 1, use_worker_slot, r->e) != 0)
            r->failures++;
    return NULL;
}

static void test_concurrent_launches_keep_indices_exclusive(void **state)
{
    rt_pool *p = pool_of(3);
    static excl_ctx e;
    memset(&e, 0, sizeof e);
    e.size = rt_pool_slots(p);
    assert_int_equal(e.size, 3 + RT_POOL_CALLERS - 1);
    race_arg a = {p, &e, 0}, b = {p, &e, 0};
    pthread_t ta, tb;
    assert_int_equal(pthread_create(&ta, NULL, launch_many, &a), 0);
    assert_int_equal(pthread_create(&tb, NULL, launch_many, &b), 0);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    assert_int_equal(a.failures + b.failures, 0);
    assert_int_equal(atomic_load(&e.overlap), 0);
    assert_int_equal(atomic_load(&e.out_of_range), 0);
    uint64_t total = 0;
    for (unsigned w = 0; w < e.size; w++)
        total += atomic_load(&e.used[w]);
    assert_int_equal(total, 2 * 300 * 64);
    rt_pool_destroy(p);
}

/* Launches from two threads run at the same time: the first launch's only
 * item waits for the second launch's item, which can only run if the
 * second launch is not queued behind the first.  A serializing pool times
 * out (after 10 s) and the first launch reports failure. */
typedef struct handshake {
    _Atomic int second_ran;
} handshake;

static int wait_for_second(void *ctx, unsigned worker, uint64_t begin, uint64_t end)
{
    handshake *h = ctx;
    for (int i = 0; i < 10000 && !atomic_load(&h->second_ran); i++)
        usleep(1000);
    return atomic_load(&h->second_ran) ? 0 : 1;
}

static int second(void *ctx, unsigned worker, uint64_t begin, uint64_t end)
{
    atomic_store(&((handshake *)ctx)->second_ran, 1);
    return 0;
}

typedef struct overlap_arg {
    rt_pool *p;
    handshake *h;
    int rc;
} overlap_arg;

static void *launch_first(void *arg)
{
    overlap_arg *o = arg;
    o->rc = rt_pool_parallel_for(o->p, 1, 1, wait_for_second, o->h);
    return NULL;
}

static void test_launches_from_two_threads_overlap(void **state)
{
    for (unsigned size = 1; size <= 2; size++) {
        rt_pool *p = pool_of(size);
        handshake h = {0};
        overlap_arg o = {p, &h, -1};
        pthread_t t;
        assert_int_equal(pthread_create(&t, NULL, launch_first, &o), 0);
        usleep(20000); /* let the first launch start */
        assert_int_equal(rt_pool_parallel_for(p, 1, 1, second, &h), 0);
        pthread_join(t, NULL);
        assert_int_equal(o.rc, 0);
        rt_pool_destroy(p);
    }
}

/* --- early stop ---------------------------------------------------------- */

typedef struct stop_ctx {
    uint64_t fail_from;          /* chunks starting here or later fail */
    _Atomic uint64_t ran_ok;     /* chunks below fail_from that ran */
    _Atomic uint64_t ran_failing;
    _Atomic uint8_t *seen;
} stop_ctx;

static int fail_late_chunks(void *ctx, unsigned worker, uint64_t begin, uint64_t end)
{
    stop_ctx *s = ctx;
    atomic_fetch_add(&s->seen[begin], 1);
    if (begin >= s->fail_from) {
        atomic_fetch_add(&s->ran_failing, 1);
        return 100 + (int)worker; /* nonzero, and says who failed */
    }
    atomic_fetch_add(&s->ran_ok, 1);
    return 0;
}

static void test_error_stops_handing_out_chunks(void **state)
{
    const uint64_t n = 100000;
    unsigned sizes[] = {1, 2, 4};
    for (size_t k = 0; k < 3; k++) {
        rt_pool *p = pool_of(sizes[k]);
        for (int rep = 0; rep < 20; rep++) {
            stop_ctx s = {.fail_from = 10};
            s.seen = calloc(n, sizeof *s.seen);
            assert_non_null(s.seen);
            int rc = rt_pool_parallel_for(p, n, 1, fail_late_chunks, &s);
            assert_true(rc >= 100 && rc < 100 + (int)sizes[k]);
            /* Chunks are claimed in order: all before the failure ran. */
            for (uint64_t i = 0; i < 10; i++)
                assert_int_equal(atomic_load(&s.seen[i]), 1);
            assert_int_equal(atomic_load(&s.ran_ok), 10);
            /* Each worker stops after its own first failure, and nobody
             * starts chunks once a failure is visible. */
            assert_true(atomic_load(&s.ran_failing) >= 1);
            assert_true(atomic_load(&s.ran_failing) <= sizes[k]);
            free(s.seen);
        }
        /* The pool is still usable after a failed launch. */
        sum_ctx sum = {0};
        assert_int_equal(rt_pool_parallel_for(p, 1000, 0, add_range, &sum), 0);
        assert_int_equal(atomic_load(&sum.sum), 999 * 1000 / 2);
        rt_pool_destroy(p);
    }
}

static int fail_at_once(void *ctx, unsigned worker, uint64_t begin, uint64_t end) { return -7; }

static void test_single_chunk_failure_is_returned(void **state)
{
    rt_pool *p = pool_of(2);
    assert_int_equal(rt_pool_parallel_for(p, 5, 10, fail_at_once, NULL), -7);
    assert_int_equal(rt_pool_parallel_for(p, 1, 0, fail_at_once, NULL), -7);
    rt_pool_destroy(p);
}

/* --- many small launches ------------------------------------------------- */

static int count_items(void *ctx, unsigned worker, uint64_t begin, uint64_t end)
{
    atomic_fetch_add((_Atomic uint64_t *)ctx, end - begin);
    return 0;
}

static void test_ten_thousand_tiny_launches(void **state)
{
    rt_pool *p = pool_of(2);
    _Atomic uint64_t items = 0;
    for (int i = 0; i < 10000; i++)
        assert_int_equal(rt_pool_parallel_for(p, (uint64_t)(i % 5), 1, count_items, &items), 0);
    /* i % 5 items per launch: 2000 * (0 + 1 + 2 + 3 + 4) */
    assert_int_equal(atomic_load(&items), 20000);
    rt_pool_destroy(p);
}

/* A pool whose helpers have gone to sleep wakes up for the next launch. */
static void test_launch_after_idle(void **state)
{
    rt_pool *p = pool_of(3);
    for (int i = 0; i < 3; i++) {
        usleep(20000);
        sum_ctx s = {0};
        assert_int_equal(rt_pool_parallel_for(p, 3000, 1, add_range, &s), 0);
        assert_int_equal(atomic_load(&s.sum), 2999 * 3000 / 2);
    }
    rt_pool_destroy(p);
}

/* --- sizing -------------------------------------------------------------- */

static void test_ptxjit_threads_is_respected(void **state)
{
    setenv("PTXJIT_THREADS", "3", 1);
    rt_pool *p = rt_pool_create(0);
    unsetenv("PTXJIT_THREADS");
    assert_non_null(p);
    assert_int_equal(rt_pool_size(p), 3);
    static excl_ctx e;
    memset(&e, 0, sizeof e);
    e.size = 3;
    assert_int_equal(rt_pool_parallel_for(p, 3000, 1, use_worker_slot, &e), 0);
    assert_int_equal(atomic_load(&e.out_of_range), 0);
    rt_pool_destroy(p);
}

static void test_bad_ptxjit_threads_falls_back_to_cpus(void **state)
{
    unsigned cpus = (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
    const char *bad[] = {"0", "-3", "abc", "", "4x", " 4", "+2", "99999999999999999999999"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        setenv("PTXJIT_THREADS", bad[k], 1);
        rt_pool *p = rt_pool_create(0);
        unsetenv("PTXJIT_THREADS");
        assert_non_null(p);
        if (rt_pool_size(p) != cpus)
            fail_msg("PTXJIT_THREADS=\"%s\" gave %u workers, want %u", bad[k], rt_pool_size(p),
                     cpus);
        rt_pool_destroy(p);
    }
    /* An explicit count wins over the environment. */
    setenv("PTXJIT_THREADS", "3", 1);
    rt_pool *p = rt_pool_create(2);
    unsetenv("PTXJIT_THREADS");
    assert_int_equal(rt_pool_size(p), 2);
    rt_pool_destroy(p);
}

typedef struct caller_ctx {
    pthread_t caller;
    _Atomic int elsewhere; /* calls not on the calling thread or not worker 0 */
    _Atomic uint64_t items;
} caller_ctx;

static int on_caller(void *ctx, unsigned worker, uint64_t begin, uint64_t end)
{
    caller_ctx *c = ctx;
    if (worker != 0 || !pthread_equal(pthread_self(), c->caller))
        atomic_fetch_add(&c->elsewhere, 1);
    atomic_fetch_add(&c->items, end - begin);
    return 0;
}

static void test_pool_of_one_runs_on_caller(void **state)
{
    rt_pool *p = pool_of(1);
    assert_int_equal(rt_pool_size(p), 1);
    caller_ctx c = {.caller = pthread_self()};
    assert_int_equal(rt_pool_parallel_for(p, 10000, 1, on_caller, &c), 0);
    assert_int_equal(rt_pool_parallel_for(p, 10000, 0, on_caller, &c), 0);
    assert_int_equal(atomic_load(&c.elsewhere), 0);
    assert_int_equal(atomic_load(&c.items), 20000);
    rt_pool_destroy(p);
}

/* Pool threads block asynchronous signals (the host's handlers should not
 * run on them) but not the synchronous fault signals. */
typedef struct mask_ctx {
    _Atomic int helper_calls;
    _Atomic int wrong_mask;
} mask_ctx;

static int check_mask(void *ctx, unsigned worker, uint64_t begin, uint64_t end)
{
    mask_ctx *m = ctx;
    /* Everyone stays busy for a while, so that the helpers get chunks. */
    usleep(1000);
    if (worker == 0)
        return 0;
    sigset_t cur;
    pthread_sigmask(SIG_BLOCK, NULL, &cur);
    static const int blocked[] = {SIGINT, SIGTERM, SIGUSR1, SIGUSR2, SIGCHLD, SIGALRM, SIGPIPE};
    static const int open[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
    for (size_t i = 0; i < sizeof blocked / sizeof blocked[0]; i++)
        if (!sigismember(&cur, blocked[i]))
            atomic_fetch_add(&m->wrong_mask, 1);
    for (size_t i = 0; i < sizeof open / sizeof open[0]; i++)
        if (sigismember(&cur, open[i]))
            atomic_fetch_add(&m->wrong_mask, 1);
    atomic_fetch_add(&m->helper_calls, 1);
    return 0;
}

static void test_helpers_block_async_signals_only(void **state)
{
    sigset_t before, after;
    pthread_sigmask(SIG_BLOCK, NULL, &before);
    rt_pool *p = pool_of(3);
    pthread_sigmask(SIG_BLOCK, NULL, &after);
    /* The caller's own mask is left as it was. */
    assert_int_equal(sigismember(&after, SIGINT), sigismember(&before, SIGINT));
    assert_int_equal(sigismember(&after, SIGTERM), sigismember(&before, SIGTERM));
    mask_ctx m = {0};
    assert_int_equal(rt_pool_parallel_for(p, 60, 1, check_mask, &m), 0);
    assert_true(atomic_load(&m.helper_calls) > 0);
    assert_int_equal(atomic_load(&m.wrong_mask), 0);
    rt_pool_destroy(p);
}

static void test_create_destroy_without_work(void **state)
{
    for (unsigned n = 1; n <= 8; n++)
        rt_pool_destroy(pool_of(n));
    rt_pool_destroy(NULL);
    /* 0 with no environment: one worker per online CPU. */
    rt_pool *p = pool_of(0);
    assert_int_equal(rt_pool_size(p), (unsigned)sysconf(_SC_NPROCESSORS_ONLN));
    rt_pool_destroy(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sum_of_a_million_matches_closed_form),
        cmocka_unit_test(test_every_index_exactly_once),
        cmocka_unit_test(test_empty_range_calls_nothing),
        cmocka_unit_test(test_worker_index_in_bounds_and_exclusive),
        cmocka_unit_test(test_concurrent_launches_keep_indices_exclusive),
        cmocka_unit_test(test_launches_from_two_threads_overlap),
        cmocka_unit_test(test_error_stops_handing_out_chunks),
        cmocka_unit_test(test_single_chunk_failure_is_returned),
        cmocka_unit_test(test_ten_thousand_tiny_launches),
        cmocka_unit_test(test_launch_after_idle),
        cmocka_unit_test(test_ptxjit_threads_is_respected),
        cmocka_unit_test(test_bad_ptxjit_threads_falls_back_to_cpus),
        cmocka_unit_test(test_pool_of_one_runs_on_caller),
        cmocka_unit_test(test_helpers_block_async_signals_only),
        cmocka_unit_test(test_create_destroy_without_work),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
