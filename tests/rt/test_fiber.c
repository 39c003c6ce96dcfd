/* test_fiber.c - rt/fiber: switching between the main context and fibers,
 * warp-like round-robin scheduling, what a switch preserves (callee-saved
 * registers) and what it leaves to the thread (rounding mode, MXCSR), deep
 * stacks, and guard pages.
 *
 * cmocka's assertions longjmp to the test's frame on the main stack, so code
 * running on a fiber stack only records what it saw; the checks happen on
 * the main context. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <fenv.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xmmintrin.h>

#include "fiber.h"

#define STACK_64K ((size_t)64 * 1024)
#define STACK_256K ((size_t)256 * 1024)

/* --- ping-pong between main and two fibers ------------------------------ */

typedef struct pingpong {
    rt_fiber main, a, b;
    long value;
    int steps_a, steps_b;
} pingpong;

/* a transforms the value and hands it to b, b transforms it and returns it
 * to main: main -> a -> b -> main, forever. */
static void pp_a(void *arg)
{
    pingpong *p = arg;
    for (;;) {
        p->value = p->value * 3 + 1;
        p->steps_a++;
        rt_fiber_switch(&p->a, &p->b);
    }
}

static void pp_b(void *arg)
{
    pingpong *p = arg;
    for (;;) {
        p->value += 7;
        p->steps_b++;
        rt_fiber_switch(&p->b, &p->main);
    }
}

static void test_pingpong_main_and_two_fibers(void **state)
{
    pingpong p = {0};
    void *sa = rt_stack_alloc(STACK_64K), *sb = rt_stack_alloc(STACK_64K);
    assert_non_null(sa);
    assert_non_null(sb);
    assert_true(rt_fiber_init(&p.a, sa, STACK_64K, pp_a, &p));
    assert_true(rt_fiber_init(&p.b, sb, STACK_64K, pp_b, &p));
    for (long i = 0; i < 1000; i++) {
        p.value = i;
        rt_fiber_switch(&p.main, &p.a);
        assert_int_equal(p.value, i * 3 + 1 + 7);
        assert_int_equal(p.steps_a, i + 1);
        assert_int_equal(p.steps_b, i + 1);
    }
    rt_stack_free(sa, STACK_64K);
    rt_stack_free(sb, STACK_64K);
}

/* --- 64 fibers, round-robin, like warps meeting at barriers ------------- */

#define NFIB 64
#define ROUNDS 40

typedef struct rr_sched rr_sched;
typedef struct rr_warp {
    rr_sched *s;
    int id;
} rr_warp;

struct rr_sched {
    rt_fiber main;
    rt_fiber f[NFIB];
    rr_warp w[NFIB];
    void *stack[NFIB];
    bool chain;          /* fibers yield to the next fiber, not to main */
    int counter;         /* incremented once per fiber per round */
    int bad;             /* times a fiber saw a counter it did not expect */
    int log[NFIB * ROUNDS];
    int nlog;
    bool done[NFIB];
};

/* Where a fiber goes when it yields: back to the scheduler, or (chain mode,
 * as a barrier implementation would) straight to the next warp, with the
 * last warp of a round returning to main. */
static rt_fiber *rr_next(rr_sched *s, int id)
{
    if (!s->chain || id == NFIB - 1)
        return &s->main;
    return &s->f[id + 1];
}

static void rr_body(void *arg)
{
    rr_warp *w = arg;
    rr_sched *s = w->s;
    for (int r = 0; r < ROUNDS; r++) {
        if (s->counter != r * NFIB + w->id)
            s->bad++;
        s->counter++;
        s->log[s->nlog++] = w->id * 1000 + r;
        rt_fiber_switch(&s->f[w->id], rr_next(s, w->id));
    }
    s->done[w->id] = true;
    for (;;)
        rt_fiber_switch(&s->f[w->id], &s->main);
}

static void rr_setup(rr_sched *s, bool chain)
{
    memset(s, 0, sizeof *s);
    s->chain = chain;
    for (int i = 0; i < NFIB; i++) {
        s->w[i] = (rr_warp){s, i};
        s->stack[i] = rt_stack_alloc(STACK_64K);
        assert_non_null(s->stack[i]);
        assert_true(rt_fiber_init(&s->f[i], s->stack[i], STACK_64K, rr_body, &s->w[i]));
    }
}

static void rr_check_and_free(rr_sched *s)
{
    assert_int_equal(s->bad, 0);
    assert_int_equal(s->counter, NFIB * ROUNDS);
    assert_int_equal(s->nlog, NFIB * ROUNDS);
    for (int k = 0; k < NFIB * ROUNDS; k++)
        assert_int_equal(s->log[k], (k % NFIB) * 1000 + k / NFIB);
    for (int i = 0; i < NFIB; i++) {
        assert_true(s->done[i]);
        rt_stack_free(s->stack[i], STACK_64K);
    }
}

static void test_round_robin_64_fibers_via_scheduler(void **state)
{
    static rr_sched s;
    rr_setup(&s, false);
    /* One extra round: every fiber marks itself done and yields. */
    for (int r = 0; r <= ROUNDS; r++)
        for (int i = 0; i < NFIB; i++)
            rt_fiber_switch(&s.main, &s.f[i]);
    rr_check_and_free(&s);
}

static void test_round_robin_64_fibers_chained(void **state)
{
    static rr_sched s;
    rr_setup(&s, true);
    for (int r = 0; r < ROUNDS; r++)
        rt_fiber_switch(&s.main, &s.f[0]);
    for (int i = 0; i < NFIB; i++)
        rt_fiber_switch(&s.main, &s.f[i]);
    rr_check_and_free(&s);
}

/* --- what a switch preserves ------------------------------------------- */

typedef struct regs_pair {
    rt_fiber main, fib;
    int fiber_bad;
    int fiber_rounds;
} regs_pair;

static volatile uint64_t held_src[12] = {1, 22, 333, 4444, 55555, 666666, 7777777, 88888888,
                                         999999999, 0x1010101010, 0xABCDEF, 0xFEDCBA987};
static volatile double held_fsrc[6] = {0.5, -1.25, 3e100, 1e-300, 6.0221e23, -0.0};

/* Puts junk in every callee-saved register the compiler lets us name, then
 * switches: a switch that failed to restore one of them would hand the
 * other side this junk. */
static __attribute__((noinline)) void junk_switch(rt_fiber *from, rt_fiber *to)
{
    __asm__ volatile("movq $0x0BADBAD1, %%rbx\n\t"
                     "movq $0x0BADBAD2, %%r12\n\t"
                     "movq $0x0BADBAD3, %%r13\n\t"
                     "movq $0x0BADBAD4, %%r14\n\t"
                     "movq $0x0BADBAD5, %%r15\n\t"
                     :
                     :
                     : "rbx", "r12", "r13", "r14", "r15");
    rt_fiber_switch(from, to);
}

/* Holds 12 integers and 6 doubles across a switch.  At -O2 the integers
 * occupy the callee-saved registers (the rest spill); the doubles are
 * spilled by the caller, as vector registers are in JIT code. */
static __attribute__((noinline)) int hold_values(rt_fiber *from, rt_fiber *to, uint64_t salt)
{
    uint64_t a0 = held_src[0] ^ salt, a1 = held_src[1] ^ salt, a2 = held_src[2] ^ salt;
    uint64_t a3 = held_src[3] ^ salt, a4 = held_src[4] ^ salt, a5 = held_src[5] ^ salt;
    uint64_t a6 = held_src[6] ^ salt, a7 = held_src[7] ^ salt, a8 = held_src[8] ^ salt;
    uint64_t a9 = held_src[9] ^ salt, a10 = held_src[10] ^ salt, a11 = held_src[11] ^ salt;
    double d0 = held_fsrc[0] + (double)salt, d1 = held_fsrc[1], d2 = held_fsrc[2];
    double d3 = held_fsrc[3], d4 = held_fsrc[4], d5 = held_fsrc[5] - (double)salt;
    rt_fiber_switch(from, to);
    int bad = 0;
    bad += a0 != (held_src[0] ^ salt);
    bad += a1 != (held_src[1] ^ salt);
    bad += a2 != (held_src[2] ^ salt);
    bad += a3 != (held_src[3] ^ salt);
    bad += a4 != (held_src[4] ^ salt);
    bad += a5 != (held_src[5] ^ salt);
    bad += a6 != (held_src[6] ^ salt);
    bad += a7 != (held_src[7] ^ salt);
    bad += a8 != (held_src[8] ^ salt);
    bad += a9 != (held_src[9] ^ salt);
    bad += a10 != (held_src[10] ^ salt);
    bad += a11 != (held_src[11] ^ salt);
    bad += d0 != held_fsrc[0] + (double)salt;
    bad += d1 != held_fsrc[1];
    bad += d2 != held_fsrc[2];
    bad += d3 != held_fsrc[3];
    bad += d4 != held_fsrc[4];
    bad += d5 != held_fsrc[5] - (double)salt;
    return bad;
}

/* Each side in turn holds values while the other comes back with junk in
 * its registers. */
static void regs_fiber(void *arg)
{
    regs_pair *p = arg;
    for (uint64_t salt = 1000;; salt++) {
        junk_switch(&p->fib, &p->main);
        p->fiber_bad += hold_values(&p->fib, &p->main, salt);
        p->fiber_rounds++;
    }
}

static void test_callee_saved_registers_and_floats_survive(void **state)
{
    regs_pair p = {0};
    void *st = rt_stack_alloc(STACK_64K);
    assert_non_null(st);
    assert_true(rt_fiber_init(&p.fib, st, STACK_64K, regs_fiber, &p));
    rt_fiber_switch(&p.main, &p.fib); /* the fiber waits in junk_switch */
    for (uint64_t salt = 0; salt < 100; salt++) {
        assert_int_equal(hold_values(&p.main, &p.fib, salt), 0);
        junk_switch(&p.main, &p.fib);
    }
    assert_int_equal(p.fiber_rounds, 100);
    assert_int_equal(p.fiber_bad, 0);
    rt_stack_free(st, STACK_64K);
}

/* MXCSR and the x87 control word belong to the thread, not to a fiber: the
 * switch leaves them alone (kernel code never changes them; the launch
 * sets them once per chunk, rt/fpenv.h). */
typedef struct round_pair {
    rt_fiber main, fib;
    int first_mode;          /* the mode a fresh fiber starts with */
    unsigned first_csr;
} round_pair;

static void round_fiber(void *arg)
{
    round_pair *p = arg;
    p->first_mode = fegetround();
    p->first_csr = _mm_getcsr();
    fesetround(FE_UPWARD);
    for (;;)
        rt_fiber_switch(&p->fib, &p->main);
}

static void test_rounding_mode_is_the_threads(void **state)
{
    round_pair p = {0};
    void *st = rt_stack_alloc(STACK_64K);
    assert_non_null(st);
    assert_true(rt_fiber_init(&p.fib, st, STACK_64K, round_fiber, &p));
    unsigned host_csr = _mm_getcsr();
    assert_int_equal(fesetround(FE_DOWNWARD), 0);
    unsigned main_csr = _mm_getcsr();
    rt_fiber_switch(&p.main, &p.fib);
    assert_int_equal(p.first_mode, FE_DOWNWARD);
    assert_int_equal(p.first_csr & 0xffc0u, main_csr & 0xffc0u);
    assert_int_equal(fegetround(), FE_UPWARD);
    fesetround(FE_TONEAREST);
    _mm_setcsr(host_csr);
    rt_stack_free(st, STACK_64K);
}

/* --- stacks ------------------------------------------------------------- */

typedef struct deep {
    rt_fiber main, fib;
    uintptr_t top;
    size_t stop_at;      /* recurse until this many bytes of stack are used */
    bool abandon;        /* at the bottom, switch away for good */
    long frames;
    long corrupt;
    size_t used;
} deep;

/* Each frame fills a buffer, recurses, then checks the buffer survived. */
static long recurse(deep *d, long depth)
{
    volatile unsigned char buf[192];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (unsigned char)(depth * 7 + i);
    uintptr_t fp = (uintptr_t)__builtin_frame_address(0);
    long n = 1;
    if (d->top - fp < d->stop_at) {
        n += recurse(d, depth + 1);
    } else {
        d->used = d->top - fp;
        while (d->abandon)
            rt_fiber_switch(&d->fib, &d->main);
    }
    for (size_t i = 0; i < sizeof buf; i++)
        d->corrupt += buf[i] != (unsigned char)(depth * 7 + i);
    return n;
}

static void deep_fiber(void *arg)
{
    deep *d = arg;
    d->frames = recurse(d, 0);
    for (;;)
        rt_fiber_switch(&d->fib, &d->main);
}

static void test_deep_recursion_on_256k_stack(void **state)
{
    deep d = {0};
    char *st = rt_stack_alloc(STACK_256K);
    assert_non_null(st);
    d.top = (uintptr_t)st + STACK_256K;
    d.stop_at = 200 * 1024;
    assert_true(rt_fiber_init(&d.fib, st, STACK_256K, deep_fiber, &d));
    rt_fiber_switch(&d.main, &d.fib);
    assert_true(d.used >= 200 * 1024);
    assert_true(d.frames > 200);
    assert_int_equal(d.corrupt, 0);
    rt_stack_free(st, STACK_256K);
}

/* Runs fn in a child process and returns its wait status.  The child gets
 * the default SIGSEGV action: ASan's own handler would turn the fault into
 * an exit code. */
static int in_child(void (*fn)(void), int stderr_fd)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        signal(SIGSEGV, SIG_DFL);
        signal(SIGBUS, SIG_DFL);
        if (stderr_fd >= 0)
            dup2(stderr_fd, 2);
        fn();
        _exit(0);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return status;
}

static void overflow_in_fiber(void)
{
    static deep d;
    char *st = rt_stack_alloc(STACK_64K);
    if (!st)
        _exit(2);
    d.top = (uintptr_t)st + STACK_64K;
    d.stop_at = SIZE_MAX; /* never stops */
    if (!rt_fiber_init(&d.fib, st, STACK_64K, deep_fiber, &d))
        _exit(3);
    rt_fiber_switch(&d.main, &d.fib);
    _exit(4); /* unreachable: the fiber overflowed */
}

static void test_stack_overflow_in_fiber_faults(void **state)
{
    int status = in_child(overflow_in_fiber, -1);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGSEGV);
}

static void write_below_stack(void)
{
    volatile char *st = rt_stack_alloc(4096);
    if (!st)
        _exit(2);
    st[-1] = 1;
    _exit(4);
}

static void test_guard_below_stack_faults(void **state)
{
    int status = in_child(write_below_stack, -1);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGSEGV);
}

static void test_stack_alloc_rounds_and_is_writable(void **state)
{
    assert_null(rt_stack_alloc(0));
    rt_stack_free(NULL, 123);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t sizes[] = {1, 1000, page, page + 1, STACK_256K};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        char *st = rt_stack_alloc(sizes[k]);
        assert_non_null(st);
        assert_int_equal((uintptr_t)st % page, 0);
        /* The whole rounded-up size is usable. */
        size_t usable = (sizes[k] + page - 1) / page * page;
        memset(st, 0xA5, usable);
        assert_int_equal((unsigned char)st[usable - 1], 0xA5);
        rt_stack_free(st, sizes[k]);
    }
}

/* --- misuse ------------------------------------------------------------- */

static void returns_at_once(void *arg) { (void)arg; }

static void run_returning_fiber(void)
{
    static rt_fiber main_f, f;
    void *st = rt_stack_alloc(STACK_64K);
    if (!st || !rt_fiber_init(&f, st, STACK_64K, returns_at_once, NULL))
        _exit(2);
    rt_fiber_switch(&main_f, &f);
    _exit(4);
}

static void test_returning_entry_aborts_with_message(void **state)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    int status = in_child(run_returning_fiber, fds[1]);
    close(fds[1]);
    char msg[512] = {0};
    ssize_t got = read(fds[0], msg, sizeof msg - 1);
    close(fds[0]);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGABRT);
    assert_true(got > 0);
    assert_non_null(strstr(msg, "fiber entry function returned"));
}

static void noop_entry(void *arg) { (void)arg; }

static void test_init_rejects_bad_arguments(void **state)
{
    rt_fiber f;
    char small[RT_FIBER_MIN_STACK - 1];
    void *st = rt_stack_alloc(STACK_64K);
    assert_false(rt_fiber_init(&f, NULL, STACK_64K, noop_entry, NULL));
    assert_false(rt_fiber_init(&f, st, STACK_64K, NULL, NULL));
    assert_false(rt_fiber_init(&f, small, sizeof small, noop_entry, NULL));
    assert_false(rt_fiber_init(NULL, st, STACK_64K, noop_entry, NULL));
    assert_true(rt_fiber_init(&f, st, STACK_64K, noop_entry, NULL));
    rt_stack_free(st, STACK_64K);
}

/* Like recurse, with a differently sized frame, so that its locals land
 * where recurse's redzones were. */
static long recurse_odd(deep *d, long depth)
{
    volatile uint32_t buf[13];
    for (size_t i = 0; i < 13; i++)
        buf[i] = (uint32_t)(depth * 5 + i);
    long n = 1;
    if (d->top - (uintptr_t)__builtin_frame_address(0) < d->stop_at)
        n += recurse_odd(d, depth + 1);
    for (size_t i = 0; i < 13; i++)
        d->corrupt += buf[i] != (uint32_t)(depth * 5 + i);
    return n;
}

static void deep_odd_fiber(void *arg)
{
    deep *d = arg;
    d->frames = recurse_odd(d, 0);
    for (;;)
        rt_fiber_switch(&d->fib, &d->main);
}

/* A warp abandoned in the middle of deep calls leaves its frames (and, under
 * ASan, their poisoned redzones) behind; a new fiber on the same stack must
 * run cleanly. */
static void test_stack_reused_after_abandoned_fiber(void **state)
{
    char *st = rt_stack_alloc(STACK_64K);
    assert_non_null(st);
    deep d = {0};
    d.top = (uintptr_t)st + STACK_64K;
    d.stop_at = 40 * 1024;
    d.abandon = true;
    assert_true(rt_fiber_init(&d.fib, st, STACK_64K, deep_fiber, &d));
    rt_fiber_switch(&d.main, &d.fib);
    assert_true(d.used >= 40 * 1024);

    deep e = {0};
    e.top = d.top;
    e.stop_at = 48 * 1024;
    assert_true(rt_fiber_init(&e.fib, st, STACK_64K, deep_odd_fiber, &e));
    rt_fiber_switch(&e.main, &e.fib);
    assert_true(e.frames > 100);
    assert_int_equal(e.corrupt, 0);
    rt_stack_free(st, STACK_64K);
}

/* longjmp inside a fiber: ASan unpoisons the stack it jumps within, and
 * complains if it does not know that stack (missing switch annotations). */
typedef struct jumper {
    rt_fiber main, fib;
    jmp_buf env;
    int landed;
} jumper;

static __attribute__((noinline)) void jump_back(jumper *j)
{
    volatile char pad[64];
    pad[0] = 1;
    longjmp(j->env, pad[0]);
}

static void jumper_fiber(void *arg)
{
    jumper *j = arg;
    if (setjmp(j->env) == 0)
        jump_back(j);
    j->landed++;
    for (;;)
        rt_fiber_switch(&j->fib, &j->main);
}

static void longjmp_in_fiber(void)
{
    static jumper j;
    void *st = rt_stack_alloc(STACK_64K);
    if (!st || !rt_fiber_init(&j.fib, st, STACK_64K, jumper_fiber, &j))
        _exit(2);
    rt_fiber_switch(&j.main, &j.fib);
    _exit(j.landed == 1 ? 0 : 3);
}

static void test_longjmp_within_fiber(void **state)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    int status = in_child(longjmp_in_fiber, fds[1]);
    close(fds[1]);
    char msg[4096] = {0};
    ssize_t got = read(fds[0], msg, sizeof msg - 1);
    close(fds[0]);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    if (got > 0)
        fail_msg("unexpected output from the child: %s", msg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pingpong_main_and_two_fibers),
        cmocka_unit_test(test_round_robin_64_fibers_via_scheduler),
        cmocka_unit_test(test_round_robin_64_fibers_chained),
        cmocka_unit_test(test_callee_saved_registers_and_floats_survive),
        cmocka_unit_test(test_rounding_mode_is_the_threads),
        cmocka_unit_test(test_deep_recursion_on_256k_stack),
        cmocka_unit_test(test_stack_overflow_in_fiber_faults),
        cmocka_unit_test(test_guard_below_stack_faults),
        cmocka_unit_test(test_stack_alloc_rounds_and_is_writable),
        cmocka_unit_test(test_returning_entry_aborts_with_message),
        cmocka_unit_test(test_init_rejects_bad_arguments),
        cmocka_unit_test(test_stack_reused_after_abandoned_fiber),
        cmocka_unit_test(test_longjmp_within_fiber),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
