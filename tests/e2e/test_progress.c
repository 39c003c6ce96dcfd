/* test_progress.c - execution-model guarantees through the whole pipeline:
 * lanes spinning on a lock held by a lane of the same warp make progress
 * (Volta-style independent scheduling), a lane waits for a flag another
 * lane of its warp sets, and a faulting kernel leaves the context usable. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

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

/* Unsupported instructions (tensor cores, for now) are load errors naming
 * file:line and the opcode. */
static void test_unsupported_is_an_error(void **state)
{
    static const char src[] = ".version 8.0\n.target sm_80\n.address_size 64\n"
                              ".visible .entry k(.param .u64 p)\n{\n"
                              "    .reg .b32 %r<3>;\n"
                              "    ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r1}, [%r2];\n"
                              "    ret;\n}\n";
    char err[256], *log = NULL;
    ptxjit_ctx *ctx = ptxjit_create(1, err, sizeof err);
    ptxjit_module *m = ptxjit_load(ctx, src, sizeof src - 1, "unsup.ptx", &log, NULL);
    assert_null(m);
    assert_non_null(log);
    assert_non_null(strstr(log, "unsup.ptx:7:5: error: instruction 'ldmatrix' is not supported yet"));
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
        cmocka_unit_test(test_fault_then_recover),
        cmocka_unit_test(test_unsupported_is_an_error),
    };
    return cmocka_run_group_tests_name("progress", tests, NULL, NULL);
}
