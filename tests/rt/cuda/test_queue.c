/* test_queue.c - rt/cuda/queue and completion signals: order within a
 * stream, concurrency across streams, barrier-AND, event timing, host
 * callbacks, sticky errors, destroy with pending work, the legacy default
 * stream, priorities, 8 threads x 1000 enqueues.
 *
 * References are the CUDA stream semantics stated in each test and logs the
 * packets write.  Packets run on processor threads where cmocka cannot
 * assert: they record into atomics and logs, the main thread asserts.  No
 * wait is unbounded: gates give up after WAIT_NS and make the packet fail,
 * every sync has a timeout, so a bug fails a test instead of hanging it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "queue.h"

#define WAIT_NS (10ull * 1000000000ull)
#define MS (1000000ull)
#define GATE_TIMEOUT_ERR 999 /* a gated packet waited WAIT_NS in vain */

/* --- helpers ------------------------------------------------------------------ */

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(unsigned ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* A gate packets wait on; plain pthreads, independent of the code tested. */
typedef struct gate {
    pthread_mutex_t m;
    pthread_cond_t cv;
    int open;
} gate;

static void gate_init(gate *g)
{
    pthread_mutex_init(&g->m, NULL);
    pthread_cond_init(&g->cv, NULL);
    g->open = 0;
}

static void gate_open(gate *g)
{
    pthread_mutex_lock(&g->m);
    g->open = 1;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->m);
}

/* 0 once open, GATE_TIMEOUT_ERR after WAIT_NS. */
static int gate_wait(gate *g)
{
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += (time_t)(WAIT_NS / 1000000000u);
    pthread_mutex_lock(&g->m);
    int rc = 0;
    while (!g->open && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&g->cv, &g->m, &dl);
    int open = g->open;
    pthread_mutex_unlock(&g->m);
    return open ? 0 : GATE_TIMEOUT_ERR;
}

static void gate_destroy(gate *g)
{
    pthread_cond_destroy(&g->cv);
    pthread_mutex_destroy(&g->m);
}

static int gated_kernel(void *arg) { return gate_wait(arg); }

/* An append-only log of small integers written by packets. */
#define LOG_MAX 20000
typedef struct log_t {
    _Atomic size_t n;
    int v[LOG_MAX];
} log_t;

static void log_put(log_t *l, int v)
{
    size_t i = atomic_fetch_add(&l->n, 1);
    if (i < LOG_MAX)
        l->v[i] = v;
}

typedef struct entry {
    log_t *log;
    int value;
} entry;

static int log_kernel(void *arg)
{
    entry *e = arg;
    log_put(e->log, e->value);
    return 0;
}

static void free_arg(void *arg) { free(arg); }

static int enqueue_log(rt_queue *q, log_t *l, int value)
{
    entry *e = malloc(sizeof *e);
    *e = (entry){l, value};
    return rt_queue_kernel(q, log_kernel, e, free_arg);
}

static rt_sched *sched_of(unsigned max_threads, uint64_t linger_ns)
{
    rt_sched_config cfg = {max_threads, linger_ns};
    rt_sched *s = rt_sched_create(&cfg);
    assert_non_null(s);
    return s;
}

static rt_queue *queue_of(rt_sched *s, unsigned flags, int prio)
{
    rt_queue *q = rt_queue_create(s, flags, prio);
    assert_non_null(q);
    return q;
}

static void expect_log(const log_t *l, const int *want, size_t n)
{
    assert_int_equal(atomic_load(&l->n), n);
    for (size_t i = 0; i < n; i++)
        if (l->v[i] != want[i])
            fail_msg("log[%zu] = %d, wanted %d", i, l->v[i], want[i]);
}

/* --- order within a stream ------------------------------------------------------ */

typedef struct add_index {
    int *a;
    size_t n;
} add_index;

static int add_index_kernel(void *arg)
{
    add_index *k = arg;
    for (size_t i = 0; i < k->n; i++)
        k->a[i] += (int)i;
    return 0;
}

static void test_packets_run_in_order(void **state)
{
    rt_sched *s = sched_of(0, 0);
    rt_queue *q = queue_of(s, 0, 0);
    int a[64], b[64];
    memset(a, 0x55, sizeof a);
    memset(b, 0x55, sizeof b);
    add_index k = {a, 64};
    /* a = 7; a[i] += i; b = a; first 10 halfwords of b = 0x1234. */
    assert_int_equal(rt_queue_memset(q, a, 0, 7, 4, 64, 1), RT_Q_OK);
    assert_int_equal(rt_queue_kernel(q, add_index_kernel, &k, NULL), RT_Q_OK);
    assert_int_equal(rt_queue_copy(q, b, a, sizeof a), RT_Q_OK);
    assert_int_equal(rt_queue_memset(q, b, 0, 0xAB1234, 2, 10, 1), RT_Q_OK);
    log_t *l = calloc(1, sizeof *l);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(enqueue_log(q, l, i), RT_Q_OK);
    assert_int_equal(rt_queue_sync(q, WAIT_NS), RT_Q_OK);
    for (int i = 0; i < 64; i++) {
        assert_int_equal(a[i], 7 + i);
        assert_int_equal(b[i], i < 5 ? 0x12341234 : 7 + i);
    }
    int want[1000];
    for (int i = 0; i < 1000; i++)
        want[i] = i;
    expect_log(l, want, 1000);
    free(l);
    rt_queue_destroy(q);
    rt_sched_destroy(s);
}

static void test_memset_2d_rows(void **state)
{
    rt_sched *s = sched_of(0, 0);
    rt_queue *q = queue_of(s, RT_QUEUE_NON_BLOCKING, 0);
    uint8_t buf[48];
    memset(buf, 0x11, sizeof buf);
    /* 3 rows, 16 bytes apart, of 5 halfwords 0xBEEF (bytes EF BE). */
    assert_int_equal(rt_queue_memset(q, buf, 16, 0xBEEF, 2, 5, 3), RT_Q_OK);
    assert_int_equal(rt_queue_sync(q, WAIT_NS), RT_Q_OK);
    for (int i = 0; i < 48; i++) {
        int in_row = i % 16 < 10;
        uint8_t want = in_row ? (i % 2 ? 0xBE : 0xEF) : 0x11;
        if (buf[i] != want)
            fail_msg("byte %d = %#x, wanted %#x", i, buf[i], want);
    }
    /* Bad element sizes and pitches are refused. */
    assert_int_equal(rt_queue_memset(q, buf, 16, 0, 3, 5, 1), RT_Q_INVALID);
    assert_int_equal(rt_queue_memset(q, buf, 4, 0, 2, 5, 2), RT_Q_INVALID);
    rt_queue_destroy(q);
    rt_sched_destroy(s);
}

/* Host functions log their index and count nonzero statuses. */
static _Atomic int host_bad_status;

static void log_host(void *arg, int status)
{
    entry *e = arg;
    if (status != 0)
        atomic_fetch_add(&host_bad_status, 1);
    log_put(e->log, e->value);
}

static void test_host_callbacks_in_order(void **state)
{
    rt_sched *s = sched_of(0, 0);
    rt_queue *q = queue_of(s, 0, 0);
    log_t *l = calloc(1, sizeof *l);
    entry *es = malloc(400 * sizeof *es);
    int want[400];
    atomic_store(&host_bad_status, 0);
    /* Host functions interleaved with kernels keep their order. */
    for (int i = 0; i < 400; i++) {
        es[i] = (entry){l, i};
        want[i] = i;
        if (i % 3 == 0)
            assert_int_equal(enqueue_log(q, l, i), RT_Q_OK);
        else
            assert_int_equal(rt_queue_host(q, log_host, &es[i]), RT_Q_OK);
    }
    assert_int_equal(rt_queue_sync(q, WAIT_NS), RT_Q_OK);
    expect_log(l, want, 400);
    assert_int_equal(atomic_load(&host_bad_status), 0);
    free(es);
    free(l);
    rt_queue_destroy(q);
    rt_sched_destroy(s);
}

/* --- across streams -------------------------------------------------------------- */

static void test_streams_wait_on_each_others_markers(void **state)
{
    /* Ping-pong: A's step 2k, then B (after A's marker) step 2k+1, then A
     * (after B's marker) step 2k+2...: the log is 0..99 only if each
     * barrier holds its stream until the other's marker completes. */
    rt_sched *s = sched_of(0, 0);
    rt_queue *a = queue_of(s, RT_QUEUE_NON_BLOCKING, 0);
    rt_queue *b = queue_of(s, RT_QUEUE_NON_BLOCKING, 0);
    log_t *l = calloc(1, sizeof *l);
    int want[100];
    for (int k = 0; k < 100; k++) {
        rt_queue *q = k % 2 ? b : a, *other = k % 2 ? a : b;
        want[k] = k;
        assert_int_equal(enqueue_log(q, l, k), RT_Q_OK);
        rt_signal *m = rt_queue_marker(q);
        assert_non_null(m);
        assert_int_equal(rt_queue_barrier(other, &m, 1), RT_Q_OK);
        rt_signal_release(m);
    }
    assert_int_equal(rt_queue_sync(a, WAIT_NS), RT_Q_OK);
    assert_int_equal(rt_queue_sync(b, WAIT_NS), RT_Q_OK);
    expect_log(l, want, 100);
    free(l);
    rt_queue_destroy(a);
    rt_queue_destroy(b);
    rt_sched_destroy(s);
}

/* Two packets that each wait for the other to have started: both finish
 * only if two streams run at the same time. */
typedef struct rendezvous {
    _Atomic int arrived[2];
} rendezvous;

typedef struct meet_arg {
    rendezvous *r;
    int me;
} meet_arg;

static int meet_kernel(void *arg)
{
    meet_arg *m = arg;
    atomic_store(&m->r->arrived[m->me], 1);
    uint64_t end = now_ns() + WAIT_NS;
    while (!atomic_load(&m->r->arrived[1 - m->me]))
        if (now_ns() > end)
            return GATE_TIMEOUT_ERR;
        else
            sleep_ms(1);
    return 0;
}

static void test_streams_run_concurrently(void **state)
{
    rt_sched *s = sched_of(0, 0);
    rt_queue *a = queue_of(s, 0, 0), *b = queue_of(s, 0, 0);
    rendezvous r = {0};
    meet_arg ma = {&r, 0}, mb = {&r, 1};
    assert_int_equal(rt_queue_kernel(a, meet_kernel, &ma, NULL), RT_Q_OK);
    assert_int_equal(rt_queue_kernel(b, meet_kernel, &mb, NULL), RT_Q_OK);
    assert_int_equal(rt_queue_sync(a, WAIT_NS), RT_Q_OK);
    assert_int_equal(rt_queue_sync(b, WAIT_NS), RT_Q_OK);
    rt_queue_destroy(a);
    rt_queue_destroy(b);
    rt_sched_destroy(s);
}

typedef struct span {
    uint64_t start, end;
} span;

static int sleepy_kernel(void *arg)
{
    span *sp = arg;
    sp->start = now_ns();
    sleep_ms(100);
    sp->end = now_ns();
    return 0;
}

static void test_slow_packets_overlap_in_time(void **state)
{
    rt_sched *s = sched_of(0, 0);
    rt_queue *a = queue_of(s, 0, 0), *b = queue_of(s, 0, 0);
    span sa, sb;
    assert_int_equal(rt_queue_kernel(a, sleepy_kernel, &sa, NULL), RT_Q_OK);
    assert_int_equal(rt_queue_kernel(b, sleepy_kernel, &sb, NULL), RT_Q_OK);
    assert_int_equal(rt_queue_sync(a, WAIT_NS), RT_Q_OK);
    assert_int_equal(rt_queue_sync(b, WAIT_NS), RT_Q_OK);
    assert_true(sa.start < sb.end && sb.start < sa.end);
    rt_queue_destroy(a);
    rt_queue_destroy(b);
    rt_sched_destroy(s);
}

/* --- barrier-AND ------------------------------------------------------------------ */

static int set_flag_kernel(void *arg)
{
    atomic_store((_Atomic int *)arg, 1);
    return 0;
}

static void test_barrier_waits_for_every_signal(void **state)
{
    rt_sched *s = sched_of(0, 0);
    rt_queue *c = queue_of(s, 0, 0);
    rt_signal *deps[4] = {rt_signal_create(), NULL, rt_signal_create(), rt_signal_create()};
    _Atomic int ran = 0;
    assert_int_equal(rt_queue_barrier(c, deps, 4), RT_Q_OK);
    assert_int_equal(rt_queue_kernel(c, set_flag_kernel, (void *)&ran, NULL), RT_Q_OK);
    rt_signal *m = rt_queue_marker(c);
    rt_signal_complete(deps[0], 0);
    rt_signal_complete(deps[3], 0);
    sleep_ms(30);
    assert_int_equal(atomic_load(&ran), 0);
    assert_false(rt_signal_done(m));
    assert_int_equal(rt_queue_query(c), RT_Q_NOT_READY);
    rt_signal_complete(deps[2], 0); /* the last one */
    assert_int_equal(rt_signal_wait(m, WAIT_NS), RT_Q_OK);
    assert_int_equal(atomic_load(&ran), 1);
    /* Completed and NULL signals alone make no barrier. */
    assert_int_equal(rt_queue_barrier(c, deps, 4), RT_Q_OK);
    assert_int_equal(rt_queue_query(c), RT_Q_OK);
    for (int i = 0; i < 4; i++)
        rt_signal_release(deps[i]);
    rt_signal_release(m);
    rt_queue_destroy(c);
    rt_sched_destroy(s);
}

static void test_barrier_on_gated_streams(void **state)
{
    /* C waits for markers of three streams, each held by a gate. */
    rt_sched *s = sched_of(0, 0);
    rt_queue *src[3], *c = queue_of(s, 0, 0);
    gate g[3];
    rt_signal *marks[3];
    for (int i = 0; i < 3; i++) {
        gate_init(&g[i]);
        src[i] = queue_of(s, RT_QUEUE_NON_BLOCKING, 0);
        assert_int_equal(rt_queue_kernel(src[i], gated_kernel, &g[i], NULL), RT_Q_OK);
        marks[i] = rt_queue_marker(src[i]);
        assert_non_null(marks[i]);
    }
    _Atomic int ran = 0;
    assert_int_equal(rt_queue_barrier(c, marks, 3), RT_Q_OK);
    assert_int_equal(rt_queue_kernel(c, set_flag_kernel, (void *)&ran, NULL), RT_Q_OK);
    for (int i = 0; i < 3; i++) {
        sleep_ms(10);
        assert_int_equal(atomic_load(&ran), 0);
        gate_open(&g[(i + 1) % 3]);
    }
    assert_int_equal(rt_queue_sync(c, WAIT_NS), RT_Q_OK);
    assert_int_equal(atomic_load(&ran), 1);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(rt_signal_status(marks[i]), RT_Q_OK);
        rt_signal_release(marks[i]);
        rt_queue_destroy(src[i]);
    }
    rt_queue_destroy(c);
    rt_sched_destroy(s);
    for (int i = 0; i < 3; i++)
        gate_destroy(&g[i]);
}

/* --- events: timing ----------------------------------------------------------------- */

static int sleep30_kernel(void *arg)
{
    sleep_ms(30);
    return 0;
}

static void test_marker_timing(void **state)
{
    rt_sched *s = sched_of(0, 0);
    rt_queue *q = queue_of(s, 0, 0);
    uint64_t before = now_ns();
    rt_signal *m1 = rt_queue_marker(q); /* idle queue: complete at once */
    assert_true(rt_signal_done(m1));
    assert_int_equal(rt_queue_kernel(q, sleep30_kernel, NULL, NULL), RT_Q_OK);
    rt_signal *m2 = rt_queue_marker(q);
    assert_int_equal(rt_signal_wait(m2, WAIT_NS), RT_Q_OK);
    uint64_t after = now_ns(), t1, t2;
    assert_int_equal(rt_signal_timestamp(m1, &t1), RT_Q_OK);
    assert_int_equal(rt_signal_timestamp(m2, &t2), RT_Q_OK);
    assert_true(before <= t1 && t1 <= t2 && t2 <= after);
    float ms, back, zero;
    assert_int_equal(rt_signal_elapsed_ms(m1, m2, &ms), RT_Q_OK);
    assert_true(ms >= 29.0f && ms <= (float)(after - before) / 1e6f + 0.01f);
    assert_int_equal(rt_signal_elapsed_ms(m2, m1, &back), RT_Q_OK);
    assert_true(back == -ms);
    assert_int_equal(rt_signal_elapsed_ms(m1, m1, &zero), RT_Q_OK);
    assert_true(zero == 0.0f);
    /* A pending marker has no time yet. */
    gate g;
    gate_init(&g);
    assert_int_equal(rt_queue_kernel(q, gated_kernel, &g, NULL), RT_Q_OK);
    rt_signal *m3 = rt_queue_marker(q);
    assert_int_equal(rt_signal_elapsed_ms(m1, m3, &ms), RT_Q_NOT_READY);
    assert_int_equal(rt_signal_status(m3), RT_Q_NOT_READY);
    assert_int_equal(rt_signal_wait(m3, 10 * MS), RT_Q_TIMEOUT);
    assert_int_equal(rt_queue_sync(q, 10 * MS), RT_Q_TIMEOUT);
    gate_open(&g);
    assert_int_equal(rt_signal_wait(m3, WAIT_NS), RT_Q_OK);
    assert_int_equal(rt_signal_elapsed_ms(m2, m3, &ms), RT_Q_OK);
    assert_true(ms >= 0.0f);
    rt_signal_release(m1);
    rt_signal_release(m2);
    rt_signal_release(m3);
    rt_queue_destroy(q);
    rt_sched_destroy(s);
    gate_destroy(&g);
}

/* --- errors ------------------------------------------------------------------------- */

static int fail_kernel(void *arg) { return 700; /* CUDA_ERROR_ILLEGAL_ADDRESS */ }

static _Atomic int host_status_seen;
static void record_status(void *arg, int status) { atomic_store(&host_status_seen, status); }

static _Atomic int releases;
static void count_release(void *arg) { atomic_fetch_add(&releases, 1); }

static void test_kernel_error_is_sticky(void **state)
{
    rt_sched *s = sched_of(0, 0);
    rt_queue *q1 = queue_of(s, 0, 0), *q2 = queue_of(s, RT_QUEUE_NON_BLOCKING, 0);
    log_t *l = calloc(1, sizeof *l);
    int x = 5, y = 9;
    atomic_store(&releases, 0);
    atomic_store(&host_status_seen, -1);
    assert_int_equal(enqueue_log(q1, l, 1), RT_Q_OK);
    assert_int_equal(rt_queue_kernel(q1, fail_kernel, NULL, count_release), RT_Q_OK);
    assert_int_equal(enqueue_log(q1, l, 3), RT_Q_OK);        /* skipped */
    assert_int_equal(rt_queue_copy(q1, &x, &y, sizeof x), RT_Q_OK); /* skipped */
    assert_int_equal(rt_queue_host(q1, record_status, NULL), RT_Q_OK);
    rt_signal *m = rt_queue_marker(q1);
    assert_int_equal(rt_queue_sync(q1, WAIT_NS), 700);
    assert_int_equal(rt_signal_status(m), 700);
    assert_int_equal(atomic_load(&host_status_seen), 700);
    assert_int_equal(x, 5);
    assert_int_equal(rt_sched_error(s), 700);
    int want[] = {1};
    expect_log(l, want, 1);
    assert_int_equal(atomic_load(&releases), 1);
    /* Sticky for the whole context: another stream's work is skipped too. */
    assert_int_equal(rt_queue_kernel(q2, fail_kernel, NULL, count_release), RT_Q_OK);
    assert_int_equal(enqueue_log(q2, l, 4), RT_Q_OK);
    assert_int_equal(rt_queue_sync(q2, WAIT_NS), 700);
    assert_int_equal(rt_queue_query(q2), 700);
    assert_int_equal(rt_sched_sync(s, WAIT_NS), 700);
    expect_log(l, want, 1);
    assert_int_equal(atomic_load(&releases), 2);
    rt_signal *idle = rt_queue_marker(q2);
    assert_int_equal(rt_signal_status(idle), 700);
    rt_signal_release(idle);
    rt_signal_release(m);
    free(l);
    rt_queue_destroy(q1);
    rt_queue_destroy(q2);
    rt_sched_destroy(s);
    /* A new context starts clean. */
    s = sched_of(0, 0);
    assert_int_equal(rt_sched_error(s), 0);
    assert_int_equal(rt_sched_sync(s, WAIT_NS), 0);
    rt_sched_destroy(s);
}

/* --- destroy with pending work -------------------------------------------------------- */

static _Atomic int counter;
static int count_kernel(void *arg)
{
    atomic_fetch_add(&counter, 1);
    return 0;
}

static void test_destroy_completes_pending_work(void **state)
{
    rt_sched *s = sched_of(0, 0);
    rt_queue *q = queue_of(s, 0, 0);
    gate g;
    gate_init(&g);
    atomic_store(&counter, 0);
    atomic_store(&releases, 0);
    assert_int_equal(rt_queue_kernel(q, gated_kernel, &g, count_release), RT_Q_OK);
    for (int i = 0; i < 100; i++)
        assert_int_equal(rt_queue_kernel(q, count_kernel, NULL, count_release), RT_Q_OK);
    rt_signal *m = rt_queue_marker(q);
    uint64_t t0 = now_ns();
    assert_int_equal(rt_queue_destroy(q), RT_Q_OK); /* returns at once */
    assert_true(now_ns() - t0 < 1000 * MS);
    assert_int_equal(atomic_load(&counter), 0);
    gate_open(&g);
    assert_int_equal(rt_signal_wait(m, WAIT_NS), RT_Q_OK);
    assert_int_equal(atomic_load(&counter), 100);
    assert_int_equal(atomic_load(&releases), 101);
    rt_signal_release(m);
    rt_sched_destroy(s);
    gate_destroy(&g);
}

static void *open_later(void *arg)
{
    sleep_ms(50);
    gate_open(arg);
    return NULL;
}

static void test_context_destroy_drains_destroyed_streams(void **state)
{
    rt_sched *s = sched_of(0, 0);
    rt_queue *q = queue_of(s, 0, 0), *kept = queue_of(s, 0, 0);
    gate g;
    gate_init(&g);
    atomic_store(&counter, 0);
    assert_int_equal(rt_queue_kernel(q, gated_kernel, &g, NULL), RT_Q_OK);
    assert_int_equal(rt_queue_kernel(q, count_kernel, NULL, NULL), RT_Q_OK);
    assert_int_equal(rt_queue_kernel(kept, count_kernel, NULL, NULL), RT_Q_OK);
    rt_queue_destroy(q);
    pthread_t t;
    pthread_create(&t, NULL, open_later, &g);
    /* Destroys `kept` too, after its work. */
    rt_sched_destroy(s);
    assert_int_equal(atomic_load(&counter), 2);
    pthread_join(t, NULL);
    gate_destroy(&g);
}

/* --- the legacy default stream ----------------------------------------------------- */

static void test_legacy_stream_orders_blocking_streams(void **state)
{
    rt_sched *s = sched_of(0, 0);
    rt_queue *legacy = rt_sched_legacy(s);
    rt_queue *s1 = queue_of(s, 0, 0), *s2 = queue_of(s, 0, 0);
    rt_queue *nb = queue_of(s, RT_QUEUE_NON_BLOCKING, 0);
    log_t *l = calloc(1, sizeof *l);
    gate g;
    gate_init(&g);
    /* s1: gate then 1; legacy: 2 (after s1); s2: 3 (after legacy);
     * nb: 4 (independent, runs while s1 is held). */
    assert_int_equal(rt_queue_kernel(s1, gated_kernel, &g, NULL), RT_Q_OK);
    assert_int_equal(enqueue_log(s1, l, 1), RT_Q_OK);
    assert_int_equal(enqueue_log(legacy, l, 2), RT_Q_OK);
    assert_int_equal(enqueue_log(s2, l, 3), RT_Q_OK);
    assert_int_equal(enqueue_log(nb, l, 4), RT_Q_OK);
    assert_int_equal(rt_queue_sync(nb, WAIT_NS), RT_Q_OK);
    sleep_ms(30);
    int first[] = {4};
    expect_log(l, first, 1);
    assert_int_equal(rt_queue_query(legacy), RT_Q_NOT_READY);
    assert_int_equal(rt_queue_query(s2), RT_Q_NOT_READY);
    gate_open(&g);
    assert_int_equal(rt_queue_sync(s2, WAIT_NS), RT_Q_OK);
    int all[] = {4, 1, 2, 3};
    expect_log(l, all, 4);
    free(l);
    rt_queue_destroy(s1);
    rt_queue_destroy(s2);
    rt_queue_destroy(nb);
    rt_sched_destroy(s);
    gate_destroy(&g);
}

static void test_non_blocking_stream_does_not_hold_legacy(void **state)
{
    rt_sched *s = sched_of(0, 0);
    rt_queue *legacy = rt_sched_legacy(s);
    rt_queue *nb = queue_of(s, RT_QUEUE_NON_BLOCKING, 0);
    gate g;
    gate_init(&g);
    atomic_store(&counter, 0);
    assert_int_equal(rt_queue_kernel(nb, gated_kernel, &g, NULL), RT_Q_OK);
    assert_int_equal(rt_queue_kernel(legacy, count_kernel, NULL, NULL), RT_Q_OK);
    assert_int_equal(rt_queue_sync(legacy, WAIT_NS), RT_Q_OK);
    assert_int_equal(atomic_load(&counter), 1);
    /* ...and legacy work does not hold it: more work on nb runs at once. */
    assert_int_equal(rt_queue_kernel(legacy, gated_kernel, &g, NULL), RT_Q_OK);
    gate_open(&g);
    assert_int_equal(rt_queue_sync(nb, WAIT_NS), RT_Q_OK);
    assert_int_equal(rt_sched_sync(s, WAIT_NS), RT_Q_OK);
    assert_int_equal(rt_queue_destroy(legacy), RT_Q_INVALID);
    rt_queue_destroy(nb);
    rt_sched_destroy(s);
    gate_destroy(&g);
}

static void test_legacy_marker_waits_for_blocking_work(void **state)
{
    /* cuEventRecord on the NULL stream covers prior work of blocking
     * streams; on a blocking stream, prior NULL-stream work. */
    rt_sched *s = sched_of(0, 0);
    rt_queue *legacy = rt_sched_legacy(s), *b = queue_of(s, 0, 0);
    gate g;
    gate_init(&g);
    assert_int_equal(rt_queue_kernel(b, gated_kernel, &g, NULL), RT_Q_OK);
    rt_signal *ml = rt_queue_marker(legacy);
    rt_signal *mb = rt_queue_marker(b);
    sleep_ms(20);
    assert_false(rt_signal_done(ml));
    assert_false(rt_signal_done(mb));
    gate_open(&g);
    assert_int_equal(rt_signal_wait(ml, WAIT_NS), RT_Q_OK);
    assert_int_equal(rt_signal_wait(mb, WAIT_NS), RT_Q_OK);
    rt_signal_release(ml);
    rt_signal_release(mb);
    rt_queue_destroy(b);
    rt_sched_destroy(s);
    gate_destroy(&g);
}

/* --- priorities, limits, idle threads ----------------------------------------------- */

static void test_priorities_stored_and_ordered(void **state)
{
    /* One processor: while it is held, a low- and then a high-priority
     * stream get work; the high one (lower value) runs first. */
    rt_sched *s = sched_of(1, 0);
    rt_queue *hold = queue_of(s, RT_QUEUE_NON_BLOCKING, 0);
    rt_queue *lo = queue_of(s, RT_QUEUE_NON_BLOCKING, 0);
    rt_queue *hi = queue_of(s, RT_QUEUE_NON_BLOCKING, -1);
    assert_int_equal(rt_queue_priority(lo), 0);
    assert_int_equal(rt_queue_priority(hi), -1);
    assert_int_equal(rt_queue_flags(hi), RT_QUEUE_NON_BLOCKING);
    log_t *l = calloc(1, sizeof *l);
    gate g;
    gate_init(&g);
    assert_int_equal(rt_queue_kernel(hold, gated_kernel, &g, NULL), RT_Q_OK);
    sleep_ms(20); /* the processor has taken `hold` */
    assert_int_equal(enqueue_log(lo, l, 0), RT_Q_OK);
    assert_int_equal(enqueue_log(hi, l, -1), RT_Q_OK);
    assert_int_equal(rt_sched_threads(s), 1);
    gate_open(&g);
    assert_int_equal(rt_sched_sync(s, WAIT_NS), RT_Q_OK);
    int want[] = {-1, 0};
    expect_log(l, want, 2);
    free(l);
    rt_queue_destroy(hold);
    rt_queue_destroy(lo);
    rt_queue_destroy(hi);
    rt_sched_destroy(s);
    gate_destroy(&g);
}

/* An unbounded sync runs the packets it waits for on the calling thread
 * when no processor has taken them: it needs no processor at all (the only
 * one is held here).  Work enqueued after the sync began is left to the
 * processors.  (Were the help missing, the gate's timeout would end the
 * wait with GATE_TIMEOUT_ERR rather than hang the test.) */
typedef struct helped {
    rt_queue *q;
    log_t *log;
    pthread_t ran_on;
} helped;

static int record_thread_kernel(void *arg)
{
    ((helped *)arg)->ran_on = pthread_self();
    return 0;
}

static void enqueue_late(void *arg, int status)
{
    helped *h = arg;
    enqueue_log(h->q, h->log, 7);
}

static void test_unbounded_sync_runs_packets_itself(void **state)
{
    rt_sched *s = sched_of(1, 0);
    rt_queue *hold = queue_of(s, RT_QUEUE_NON_BLOCKING, 0);
    rt_queue *q = queue_of(s, RT_QUEUE_NON_BLOCKING, 0);
    gate g;
    gate_init(&g);
    assert_int_equal(rt_queue_kernel(hold, gated_kernel, &g, NULL), RT_Q_OK);
    sleep_ms(20); /* the processor has taken `hold` */
    helped h = {q, calloc(1, sizeof(log_t)), 0};
    assert_int_equal(rt_queue_kernel(q, record_thread_kernel, &h, NULL), RT_Q_OK);
    assert_int_equal(rt_queue_host(q, enqueue_late, &h), RT_Q_OK);
    assert_int_equal(rt_queue_sync(q, RT_WAIT_FOREVER), RT_Q_OK);
    assert_true(pthread_equal(h.ran_on, pthread_self()));
    assert_int_equal(atomic_load(&h.log->n), 0);
    assert_int_equal(rt_queue_query(q), RT_Q_NOT_READY);
    gate_open(&g);
    assert_int_equal(rt_sched_sync(s, WAIT_NS), RT_Q_OK);
    int want[] = {7};
    expect_log(h.log, want, 1);
    free(h.log);
    rt_queue_destroy(hold);
    rt_queue_destroy(q);
    rt_sched_destroy(s);
    gate_destroy(&g);
}

/* Launch, sync, launch, sync: the syncs run the packets themselves, and
 * one stream needs no more than one processor (a processor on its way back
 * to wait once counted as busy, and every launch then started a thread).
 * Work nobody syncs on still runs, both while the processor polls (just
 * after activity, no wake-up) and once it sleeps (woken). */
static void expect_runs_unsynced(rt_queue *q)
{
    int before = atomic_load(&counter);
    uint64_t t0 = now_ns();
    assert_int_equal(rt_queue_kernel(q, count_kernel, NULL, NULL), RT_Q_OK);
    rt_signal *m = rt_queue_marker(q);
    assert_int_equal(rt_signal_wait(m, WAIT_NS), RT_Q_OK);
    assert_true(now_ns() - t0 < 1000 * MS);
    assert_int_equal(atomic_load(&counter), before + 1);
    rt_signal_release(m);
}

static void test_launch_sync_loop_keeps_one_processor(void **state)
{
    rt_sched *s = sched_of(0, 0);
    rt_queue *q = queue_of(s, 0, 0);
    atomic_store(&counter, 0);
    for (int i = 0; i < 20000; i++) {
        assert_int_equal(rt_queue_kernel(q, count_kernel, NULL, NULL), RT_Q_OK);
        assert_int_equal(rt_queue_sync(q, RT_WAIT_FOREVER), RT_Q_OK);
    }
    assert_int_equal(atomic_load(&counter), 20000);
    assert_true(rt_sched_threads(s) <= 1);
    expect_runs_unsynced(q);
    sleep_ms(20);
    expect_runs_unsynced(q);
    rt_queue_destroy(q);
    rt_sched_destroy(s);
}

static void test_many_streams_then_threads_retire(void **state)
{
    rt_sched *s = sched_of(8, 20 * MS);
    enum { N = 500 };
    rt_queue **qs = malloc(N * sizeof *qs);
    atomic_store(&counter, 0);
    for (int i = 0; i < N; i++) {
        qs[i] = queue_of(s, i % 2 ? RT_QUEUE_NON_BLOCKING : 0, i % 3 - 1);
        assert_int_equal(rt_queue_kernel(qs[i], count_kernel, NULL, NULL), RT_Q_OK);
    }
    assert_true(rt_sched_threads(s) <= 8);
    assert_int_equal(rt_sched_sync(s, WAIT_NS), RT_Q_OK);
    assert_int_equal(atomic_load(&counter), N);
    for (int i = 0; i < N; i++)
        rt_queue_destroy(qs[i]);
    free(qs);
    uint64_t end = now_ns() + WAIT_NS;
    while (rt_sched_threads(s) != 0 && now_ns() < end)
        sleep_ms(5);
    assert_int_equal(rt_sched_threads(s), 0);
    /* Work after the threads retired starts new ones. */
    rt_queue *q = queue_of(s, 0, 0);
    assert_int_equal(rt_queue_kernel(q, count_kernel, NULL, NULL), RT_Q_OK);
    assert_int_equal(rt_queue_sync(q, WAIT_NS), RT_Q_OK);
    assert_int_equal(atomic_load(&counter), N + 1);
    rt_queue_destroy(q);
    rt_sched_destroy(s);
}

static void test_bad_arguments(void **state)
{
    rt_sched *s = sched_of(0, 0);
    rt_queue *q = queue_of(s, 0, 0);
    assert_null(rt_queue_create(s, RT_QUEUE_LEGACY, 0));
    assert_null(rt_queue_create(NULL, 0, 0));
    assert_int_equal(rt_queue_kernel(q, NULL, NULL, NULL), RT_Q_INVALID);
    assert_int_equal(rt_queue_host(q, NULL, NULL), RT_Q_INVALID);
    assert_int_equal(rt_queue_copy(q, NULL, &q, 4), RT_Q_INVALID);
    assert_int_equal(rt_queue_barrier(q, NULL, 2), RT_Q_INVALID);
    assert_int_equal(rt_queue_destroy(NULL), RT_Q_INVALID);
    assert_int_equal(rt_queue_sync(q, 0), RT_Q_OK);
    rt_queue_destroy(q);
    rt_sched_destroy(s);
    rt_sched_destroy(NULL);
}

/* --- signals on their own ------------------------------------------------------------ */

static _Atomic int callbacks;
static void bump(void *arg) { atomic_fetch_add(&callbacks, 1); }

static void *wait_signal(void *arg) { return (void *)(intptr_t)rt_signal_wait(arg, WAIT_NS); }

static void test_signal_completes_once_and_wakes_all(void **state)
{
    rt_signal *sig = rt_signal_create();
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, wait_signal, sig);
    atomic_store(&callbacks, 0);
    rt_signal_waiter w1 = {bump, NULL, NULL}, w2 = {bump, NULL, NULL}, w3 = {bump, NULL, NULL};
    assert_int_equal(rt_signal_on_complete(sig, &w1), 1);
    assert_int_equal(rt_signal_on_complete(sig, &w2), 1);
    assert_int_equal(rt_signal_wait(sig, 0), RT_Q_TIMEOUT);
    sleep_ms(10);
    rt_signal_complete(sig, 42);
    rt_signal_complete(sig, 7); /* ignored */
    for (int i = 0; i < 4; i++) {
        void *rc;
        pthread_join(t[i], &rc);
        assert_int_equal((intptr_t)rc, 42);
    }
    assert_int_equal(atomic_load(&callbacks), 2);
    assert_int_equal(rt_signal_on_complete(sig, &w3), 0); /* too late: not called */
    assert_int_equal(atomic_load(&callbacks), 2);
    assert_int_equal(rt_signal_status(sig), 42);
    rt_signal_release(sig);
}

/* --- 8 threads x 1000 enqueues ---------------------------------------------------------- */

enum { STRESS_THREADS = 8, STRESS_OPS = 1000 };

typedef struct stress {
    rt_sched *s;
    rt_queue *shared[2];
    _Atomic int bad_order;
    _Atomic int ran;
    _Atomic int last[STRESS_THREADS][2]; /* last sequence seen per thread and shared queue */
    _Atomic int own_last[STRESS_THREADS];
} stress;

typedef struct stress_pkt {
    stress *st;
    int thread, seq, lane; /* lane 0/1: shared queue, 2: own queue */
} stress_pkt;

static int stress_kernel(void *arg)
{
    stress_pkt *p = arg;
    _Atomic int *last = p->lane < 2 ? &p->st->last[p->thread][p->lane] : &p->st->own_last[p->thread];
    if (atomic_load(last) >= p->seq)
        atomic_fetch_add(&p->st->bad_order, 1);
    atomic_store(last, p->seq);
    atomic_fetch_add(&p->st->ran, 1);
    return 0;
}

typedef struct stress_thread {
    stress *st;
    int id;
    int failures;
} stress_thread;

static void *stress_main(void *arg)
{
    stress_thread *t = arg;
    stress *st = t->st;
    rt_queue *own = rt_queue_create(st->s, t->id % 2 ? RT_QUEUE_NON_BLOCKING : 0, 0);
    for (int i = 0; i < STRESS_OPS; i++) {
        int lane = i % 3;
        rt_queue *q = lane < 2 ? st->shared[lane] : own;
        stress_pkt *p = malloc(sizeof *p);
        *p = (stress_pkt){st, t->id, i, lane};
        t->failures += rt_queue_kernel(q, stress_kernel, p, free_arg) != RT_Q_OK;
        if (i % 50 == 49) { /* cross-stream dependencies now and then */
            rt_signal *m = rt_queue_marker(own);
            t->failures += !m || rt_queue_barrier(st->shared[i % 2], &m, 1) != RT_Q_OK;
            rt_signal_release(m);
        }
    }
    t->failures += rt_queue_sync(own, WAIT_NS) != RT_Q_OK;
    rt_queue_destroy(own);
    return NULL;
}

static void test_stress_eight_threads(void **state)
{
    stress *st = calloc(1, sizeof *st);
    st->s = sched_of(0, 0);
    st->shared[0] = queue_of(st->s, 0, 0);
    st->shared[1] = queue_of(st->s, RT_QUEUE_NON_BLOCKING, 0);
    for (int i = 0; i < STRESS_THREADS; i++) {
        atomic_store(&st->own_last[i], -1);
        atomic_store(&st->last[i][0], -1);
        atomic_store(&st->last[i][1], -1);
    }
    pthread_t tids[STRESS_THREADS];
    stress_thread ts[STRESS_THREADS];
    for (int i = 0; i < STRESS_THREADS; i++) {
        ts[i] = (stress_thread){st, i, 0};
        pthread_create(&tids[i], NULL, stress_main, &ts[i]);
    }
    for (int i = 0; i < STRESS_THREADS; i++) {
        pthread_join(tids[i], NULL);
        assert_int_equal(ts[i].failures, 0);
    }
    assert_int_equal(rt_sched_sync(st->s, WAIT_NS), RT_Q_OK);
    assert_int_equal(atomic_load(&st->ran), STRESS_THREADS * STRESS_OPS);
    assert_int_equal(atomic_load(&st->bad_order), 0);
    rt_queue_destroy(st->shared[0]);
    rt_queue_destroy(st->shared[1]);
    rt_sched_destroy(st->s);
    free(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_packets_run_in_order),
        cmocka_unit_test(test_memset_2d_rows),
        cmocka_unit_test(test_host_callbacks_in_order),
        cmocka_unit_test(test_streams_wait_on_each_others_markers),
        cmocka_unit_test(test_streams_run_concurrently),
        cmocka_unit_test(test_slow_packets_overlap_in_time),
        cmocka_unit_test(test_barrier_waits_for_every_signal),
        cmocka_unit_test(test_barrier_on_gated_streams),
        cmocka_unit_test(test_marker_timing),
        cmocka_unit_test(test_kernel_error_is_sticky),
        cmocka_unit_test(test_destroy_completes_pending_work),
        cmocka_unit_test(test_context_destroy_drains_destroyed_streams),
        cmocka_unit_test(test_legacy_stream_orders_blocking_streams),
        cmocka_unit_test(test_non_blocking_stream_does_not_hold_legacy),
        cmocka_unit_test(test_legacy_marker_waits_for_blocking_work),
        cmocka_unit_test(test_priorities_stored_and_ordered),
        cmocka_unit_test(test_unbounded_sync_runs_packets_itself),
        cmocka_unit_test(test_launch_sync_loop_keeps_one_processor),
        cmocka_unit_test(test_many_streams_then_threads_retire),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_signal_completes_once_and_wakes_all),
        cmocka_unit_test(test_stress_eight_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
