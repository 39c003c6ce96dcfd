/* test_progress.c - execution-model guarantees through the whole pipeline:
 * lanes spinning on a lock held by a lane of the same warp make progress
 * (Volta-style independent scheduling), a lane waits for a flag another
 * lane of its warp sets, a faulting kernel leaves the context usable, the
 * host's own fault handlers keep working beside the runtime's, and kernels
 * compute in the default floating-point mode whatever mode the host set. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <fenv.h>
#include <signal.h>
#include <xmmintrin.h>

#include "ptxjit/ptxjit.h"
#include "test_util.h"

static ptxjit_module *load(ptxjit_ctx *ctx, const char *file)
{
    char path[512];
    snprintf(path, sizeof path, "%s/ptx/corpus/%s", PTXJIT_TEST_DIR, file);
    size_t len;
    char *src = tu_read_file(path, &len), *log = NULL;
    assert_non_null(src);
    ptxjit_module *m = ptxjit_load(ctx, src, len, path, &log, NULL);
    if (!m)
        fail_msg("%s did not load:\n%s", file, log ? log : "");
    free(src);
    return m;
}

static void launch(ptxjit_ctx *ctx, ptxjit_module *m, const char *name, uint32_t grid,
                   uint32_t block, const void *params)
{
    char err[512];
    ptxjit_launch_cfg cfg = {{grid, 1, 1}, {block, 1, 1}, 0, params, NULL};
    const ptxjit_kernel *k = ptxjit_kernel_get(m, name);
    assert_non_null(k);
    if (ptxjit_launch(ctx, k, &cfg, err, sizeof err) != PTXJIT_OK)
        fail_msg("%s: %s", name, err);
}

static void spinlock_in_one_warp(unsigned workers)
{
    char err[256];
    ptxjit_ctx *ctx = ptxjit_create(workers, err, sizeof err);
    assert_non_null(ctx);
    ptxjit_module *m = load(ctx, "forward_progress.sm_80.ptx");
    for (uint32_t block = 32; block <= 96; block += 32) {
        int lock = 0, counter = 5, order[192];
        struct { int *lock, *counter, *order; } p = {&lock, &counter, order};
        launch(ctx, m, "warp_spinlock", 2, block, &p);
        assert_int_equal(counter, 5 + 2 * (int)block);
        int seen[192] = {0};
        for (uint32_t i = 0; i < 2 * block; i++) { /* a permutation of 5 .. */
            assert_in_range(order[i], 5, 5 + 2 * block - 1);
            assert_int_equal(seen[order[i] - 5]++, 0);
        }
    }
    ptxjit_module_unload(m);
    ptxjit_destroy(ctx);
}

static void test_spinlock_one_worker(void **state) { spinlock_in_one_warp(1); }
static void test_spinlock_two_workers(void **state) { spinlock_in_one_warp(2); }

static void test_lane_waits_for_lane(void **state)
{
    char err[256];
    ptxjit_ctx *ctx = ptxjit_create(2, err, sizeof err);
    ptxjit_module *m = load(ctx, "forward_progress.sm_80.ptx");
    int flag[4] = {0}, out[128] = {0};
    struct { int *flag, *out; } p = {flag, out};
    launch(ctx, m, "spin_until_flag", 2, 64, &p);
    for (int i = 0; i < 128; i++)
        assert_int_equal(out[i], 1);
    for (int w = 0; w < 4; w++)
        assert_int_equal(flag[w], 1);
    ptxjit_module_unload(m);
    ptxjit_destroy(ctx);
}

/* Lanes leaving a loop at different times meet at the barrier after it. */
static void test_divergent_loop_then_barrier(void **state)
{
    char err[256];
    ptxjit_ctx *ctx = ptxjit_create(2, err, sizeof err);
    ptxjit_module *m = load(ctx, "forward_progress.sm_80.ptx");
    int out[300];
    struct { int *out; } p = {out};
    launch(ctx, m, "loop_then_barrier", 3, 100, &p);
    for (int g = 0; g < 300; g++) {
        unsigned t = (unsigned)(g % 100 + 1) % 100, acc = 0;
        for (unsigned i = 0; i < t * 3; i++)
            acc += i ^ t;
        assert_int_equal(out[g], (int)acc);
    }
    ptxjit_module_unload(m);
    ptxjit_destroy(ctx);
}

/* Warps without a barrier between them: warp 0 waits for warp 1 of its
 * CTA, on a flag (ld.acquire) or on a lock warp 1 holds (atom.cas), so warp
 * 0 can only finish if it lets warp 1 run.  Spins are bounded: a warp
 * that never gets the flag or the lock reports it instead of hanging. */
static const char later_warp_src[] =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry wait_later(.param .u64 pdata, .param .u64 pflags, .param .u64 pout, .param .u32 by_lock)\n{\n"
    "  .reg .pred %p<8>; .reg .b32 %r<16>; .reg .b64 %rd<16>;\n"
    "  ld.param.u64 %rd1, [pdata]; ld.param.u64 %rd2, [pflags]; ld.param.u64 %rd3, [pout];\n"
    "  ld.param.u32 %r9, [by_lock]; setp.ne.u32 %p5, %r9, 0;\n"
    "  mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; shr.u32 %r3, %r1, 5; and.b32 %r4, %r1, 31;\n"
    "  mul.wide.u32 %rd4, %r2, 4; add.s64 %rd5, %rd2, %rd4;\n"          /* this CTA's flag or lock */
    "  mad.lo.s32 %r5, %r2, 32, %r4; mul.wide.u32 %rd6, %r5, 4; add.s64 %rd7, %rd1, %rd6;\n"
    "  setp.eq.u32 %p1, %r3, 0; @%p1 bra $WAIT;\n"
    /* warp 1: data, then release the flag or the lock */
    "  mad.lo.s32 %r6, %r5, 3, 7; st.global.u32 [%rd7], %r6; bar.warp.sync -1;\n"
    "  setp.ne.u32 %p2, %r4, 0; @%p2 bra $END;\n"
    "  @%p5 atom.release.gpu.global.exch.b32 %r7, [%rd5], 0;\n"
    "  @!%p5 st.release.gpu.global.u32 [%rd5], 1;\n"
    "  bra $END;\n"
    "$WAIT:\n"                                                           /* warp 0, every lane */
    "  mov.u32 %r10, 0;\n"
    "$SPIN:\n"
    "  add.u32 %r10, %r10, 1; setp.gt.u32 %p3, %r10, 4000000; @%p3 bra $GIVEUP;\n"
    "  @%p5 atom.acquire.gpu.global.cas.b32 %r11, [%rd5], 0, 0;\n"    /* free (0)? */
    "  @!%p5 ld.acquire.gpu.global.u32 %r11, [%rd5];\n"
    "  @%p5 setp.ne.u32 %p4, %r11, 0; @!%p5 setp.eq.u32 %p4, %r11, 0;\n"
    "  @%p4 bra $SPIN;\n"
    "  ld.global.u32 %r12, [%rd7]; add.u32 %r12, %r12, 1;\n"
    "  add.s64 %rd8, %rd3, %rd6; st.global.u32 [%rd8], %r12; bra $END;\n"
    "$GIVEUP:\n  add.s64 %rd8, %rd3, %rd6; st.global.u32 [%rd8], 0xdead;\n"
    "$END:\n  ret;\n}\n";

static void test_warp_waits_for_later_warp(void **state)
{
    (void)state;
    enum { NB = 3 };
    for (unsigned workers = 1; workers <= 2; workers++) {
        char err[512], *log = NULL;
        ptxjit_ctx *ctx = ptxjit_create(workers, err, sizeof err);
        assert_non_null(ctx);
        ptxjit_module *m = ptxjit_load(ctx, later_warp_src, sizeof later_warp_src - 1, "later.ptx", &log, NULL);
        if (!m)
            fail_msg("did not load:\n%s", log ? log : "");
        const ptxjit_kernel *k = ptxjit_kernel_get(m, "wait_later");
        for (uint32_t by_lock = 0; by_lock <= 1; by_lock++) {
            uint32_t data[NB * 32] = {0}, flags[NB], out[NB * 32] = {0};
            for (int b = 0; b < NB; b++)
                flags[b] = by_lock; /* the lock starts held by warp 1; the flag starts down */
            struct { void *data, *flags, *out; uint32_t by_lock; } p = {data, flags, out, by_lock};
            ptxjit_launch_cfg cfg = {{NB, 1, 1}, {64, 1, 1}, 0, &p, NULL};
            if (ptxjit_launch(ctx, k, &cfg, err, sizeof err) != PTXJIT_OK)
                fail_msg("%s", err);
            for (uint32_t i = 0; i < NB * 32; i++)
                if (out[i] != i * 3 + 8)
                    fail_msg("%s, %u worker(s): thread %u of warp 0 got %#x, want %u", by_lock ? "lock" : "flag",
                             workers, i, out[i], i * 3 + 8);
        }
        free(log);
        ptxjit_module_unload(m);
        ptxjit_destroy(ctx);
    }
}

/* An invalid address stops the launch with a message naming the kernel; the
 * next launch in the same context runs normally. */
static void test_fault_then_recover(void **state)
{
    char err[512];
    ptxjit_ctx *ctx = ptxjit_create(2, err, sizeof err);
    ptxjit_module *m = load(ctx, "vector_ops.sm_80.ptx");
    const ptxjit_kernel *k = ptxjit_kernel_get(m, "vec_add");
    float a[100], b[100], c[100];
    for (int i = 0; i < 100; i++)
        a[i] = (float)i, b[i] = 2.0f * (float)i;
    struct { const float *a, *b; float *c; int n; } bad = {a, b, (float *)16, 100};
    ptxjit_launch_cfg cfg = {{4, 1, 1}, {32, 1, 1}, 0, &bad, NULL};
    assert_int_equal(ptxjit_launch(ctx, k, &cfg, err, sizeof err), PTXJIT_ERR_FAULT);
    assert_non_null(strstr(err, "vec_add"));
    assert_non_null(strstr(err, "invalid memory access"));
    struct { const float *a, *b; float *c; int n; } good = {a, b, c, 100};
    cfg.params = &good;
    assert_int_equal(ptxjit_launch(ctx, k, &cfg, err, sizeof err), PTXJIT_OK);
    for (int i = 0; i < 100; i++)
        assert_true(c[i] == 3.0f * (float)i);
    ptxjit_module_unload(m);
    ptxjit_destroy(ctx);
}

/* A host SIGSEGV handler that recovers (as a JVM or a test harness does)
 * sees the host's own faults, before and after kernel faults, and kernel
 * faults stay contained whether it was installed before the first launch
 * or between launches; destroying the context leaves it installed. */
static sigjmp_buf host_jb;
static volatile sig_atomic_t host_faults;

static void host_handler(int sig, siginfo_t *si, void *uc)
{
    (void)sig, (void)si, (void)uc;
    host_faults++;
    siglongjmp(host_jb, 1);
}

static void install_host_handler(struct sigaction *old)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = host_handler;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    assert_int_equal(sigaction(SIGSEGV, &sa, old), 0);
}

static void host_fault(void)
{
    volatile uintptr_t bad = 16; /* opaque to the compiler's bounds checks */
    if (sigsetjmp(host_jb, 1) == 0)
        *(volatile int *)bad = 1;
}

static void kernel_fault(ptxjit_ctx *ctx, const ptxjit_kernel *k)
{
    float a[64] = {0};
    struct { const float *a, *b; float *c; int n; } bad = {a, a, (float *)16, 64};
    ptxjit_launch_cfg cfg = {{2, 1, 1}, {32, 1, 1}, 0, &bad, NULL};
    char err[512];
    assert_int_equal(ptxjit_launch(ctx, k, &cfg, err, sizeof err), PTXJIT_ERR_FAULT);
}

static void test_host_fault_handlers_chain(void **state)
{
    struct sigaction harness, cur;
    install_host_handler(&harness);
    host_faults = 0;
    char err[512];
    ptxjit_ctx *ctx = ptxjit_create(2, err, sizeof err);
    ptxjit_module *m = load(ctx, "vector_ops.sm_80.ptx");
    const ptxjit_kernel *k = ptxjit_kernel_get(m, "vec_add");
    host_fault();
    kernel_fault(ctx, k);
    host_fault();
    kernel_fault(ctx, k);
    assert_int_equal(host_faults, 2);
    install_host_handler(NULL); /* between launches, over the runtime's */
    kernel_fault(ctx, k);
    host_fault();
    assert_int_equal(host_faults, 3);
    ptxjit_module_unload(m);
    ptxjit_destroy(ctx);
    assert_int_equal(sigaction(SIGSEGV, NULL, &cur), 0);
    assert_true((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == host_handler);
    assert_int_equal(sigaction(SIGSEGV, &harness, NULL), 0);
}

/* Kernels run in round-to-nearest without FTZ/DAZ whatever mode the host
 * chose: on the launching thread (a worker of its own launch) and on pool
 * threads started while the host's mode was on, as warps in a loop, as
 * resumable warps and as fibers.  The host's mode comes back after the launch.  Each
 * thread sums 1/3 FP_ITERS times, so that the launch lasts long enough
 * for the pool thread to wake and take chunks. */
static const char fpmode_src[] =
    ".version 7.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry fpmode(.param .u64 pout, .param .f32 pnum, .param .f32 pden, .param .f32 ptiny,\n"
    "    .param .u32 piters)\n{\n"
    "  .reg .pred %p; .reg .f32 %f<8>; .reg .b32 %r<8>; .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [pout]; ld.param.f32 %f1, [pnum]; ld.param.f32 %f2, [pden];\n"
    "  ld.param.f32 %f3, [ptiny]; ld.param.u32 %r5, [piters];\n"
    "  mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mad.lo.s32 %r3, %r2, 64, %r1;\n"
    "  div.rn.f32 %f4, %f1, %f2; mul.rn.f32 %f5, %f3, 0f3F000000;\n"
    "  mov.f32 %f6, 0f00000000; mov.u32 %r4, 0;\n"
    "$L: add.rn.f32 %f6, %f6, %f4; add.u32 %r4, %r4, 1; setp.lt.u32 %p, %r4, %r5; @%p bra $L;\n"
    "  mul.wide.u32 %rd2, %r3, 8; add.s64 %rd3, %rd1, %rd2;\n"
    "  BAR st.global.v2.f32 [%rd3], {%f6, %f5};\n"
    "  ret;\n}\n";

enum { FP_CTAS = 256, FP_ITERS = 1000 };

/* Round down (1/3 to nearest rounds up) with FTZ + DAZ; returns the old MXCSR. */
static unsigned host_fp_mode(void)
{
    unsigned old = _mm_getcsr();
    fesetround(FE_DOWNWARD);
    _mm_setcsr(_mm_getcsr() | 0x8040u);
    return old;
}

/* How the CTA's warps run: a loop, a loop of resumable warps (a barrier),
 * fibers (a barrier and a nanosleep, which waits with the stack kept). */
enum warp_mode { WARPS_LOOP, WARPS_RESUMABLE, WARPS_FIBERS };

static void fpmode_case(enum warp_mode mode, unsigned workers)
{
    static const char *const waits[] = {"", "bar.sync 0;", "bar.sync 0; nanosleep.u32 1;"};
    char src[sizeof fpmode_src + 40], err[512], *log = NULL;
    const char *bar = strstr(fpmode_src, "BAR");
    snprintf(src, sizeof src, "%.*s%s%s", (int)(bar - fpmode_src), fpmode_src, waits[mode], bar + 3);
    unsigned host_csr = host_fp_mode(); /* the pool threads inherit it */
    ptxjit_ctx *ctx = ptxjit_create(workers, err, sizeof err);
    _mm_setcsr(host_csr);
    fesetround(FE_TONEAREST);
    ptxjit_module *m = ptxjit_load(ctx, src, strlen(src), "fpmode.ptx", &log, NULL);
    if (!m)
        fail_msg("did not load:\n%s", log ? log : "");
    const ptxjit_kernel *k = ptxjit_kernel_get(m, "fpmode");
    assert_true(ptxjit_kernel_info_of(k)->uses_barriers == (mode == WARPS_FIBERS));
    assert_true((ptxjit_kernel_info_of(k)->frame_size != 0) == (mode == WARPS_RESUMABLE));
    volatile float num = 1.0f, den = 3.0f, tiny = 0x1p-140f;
    /* the references, in the defaults: nearest, subnormals */
    volatile float sum = 0.0f, half_tiny = tiny * 0.5f;
    for (int i = 0; i < FP_ITERS; i++)
        sum += num / den;
    static float out[FP_CTAS * 64][2];
    struct { void *out; float num, den, tiny; uint32_t iters; } p = {out, num, den, tiny, FP_ITERS};
    ptxjit_launch_cfg cfg = {{FP_CTAS, 1, 1}, {64, 1, 1}, 0, &p, NULL};
    for (int run = 0; run < 3; run++) {
        memset(out, 0, sizeof out);
        host_fp_mode();
        unsigned host_mode = _mm_getcsr();
        ptxjit_status st = ptxjit_launch(ctx, k, &cfg, err, sizeof err);
        unsigned after = _mm_getcsr(), rounding = (unsigned)fegetround();
        _mm_setcsr(host_csr);
        fesetround(FE_TONEAREST);
        if (st != PTXJIT_OK)
            fail_msg("%s", err);
        assert_int_equal(after & 0xffc0u, host_mode & 0xffc0u);
        assert_int_equal(rounding, FE_DOWNWARD);
        for (int i = 0; i < FP_CTAS * 64; i++)
            if (out[i][0] != sum || out[i][1] != half_tiny || half_tiny == 0.0f)
                fail_msg("%u worker(s), %s: thread %d got %a and %a", workers,
                         (const char *[]){"loop", "resumable", "fibers"}[mode], i, out[i][0], out[i][1]);
    }
    free(log);
    ptxjit_module_unload(m);
    ptxjit_destroy(ctx);
}

static void test_kernels_ignore_the_host_fp_mode(void **state)
{
    for (unsigned workers = 1; workers <= 2; workers++) {
        for (int mode = WARPS_LOOP; mode <= WARPS_FIBERS; mode++)
            fpmode_case((enum warp_mode)mode, workers);
    }
}

/* Forms not supported yet (vector red.min/.max, for now; ptxas takes
 * it) are load errors naming file:line and the instruction. */
static void test_unsupported_is_an_error(void **state)
{
    static const char src[] = ".version 8.1\n.target sm_90\n.address_size 64\n"
                              ".visible .entry k(.param .u64 p)\n{\n"
                              "    .reg .b64 %rd<2>;\n"
                              "    .reg .b32 %r<3>;\n"
                              "    red.global.v2.bf16x2.min.noftz [%rd1], {%r1, %r2};\n"
                              "    ret;\n}\n";
    char err[256], *log = NULL;
    ptxjit_ctx *ctx = ptxjit_create(1, err, sizeof err);
    ptxjit_module *m = ptxjit_load(ctx, src, sizeof src - 1, "unsup.ptx", &log, NULL);
    assert_null(m);
    assert_non_null(log);
    assert_non_null(strstr(log, "unsup.ptx:8:5: error: 'red.min.bf16x2': vector .min/.max is not supported yet"));
    free(log);
    ptxjit_destroy(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spinlock_one_worker),
        cmocka_unit_test(test_spinlock_two_workers),
        cmocka_unit_test(test_lane_waits_for_lane),
        cmocka_unit_test(test_divergent_loop_then_barrier),
        cmocka_unit_test(test_warp_waits_for_later_warp),
        cmocka_unit_test(test_fault_then_recover),
        cmocka_unit_test(test_host_fault_handlers_chain),
        cmocka_unit_test(test_kernels_ignore_the_host_fp_mode),
        cmocka_unit_test(test_unsupported_is_an_error),
    };
    return cmocka_run_group_tests_name("progress", tests, NULL, NULL);
}
