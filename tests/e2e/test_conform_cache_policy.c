/* test_conform_cache_policy.c - cache policies (createpolicy, sm_80) and
 * the accesses that take one (.L2::cache_hint), as Triton and CUDA's
 * cuda::apply_access_property emit them, through the whole pipeline:
 *   - loads, vector loads, stores, atom and red with a policy operand move
 *     the same data as without one, under a partial mask (C reference);
 *   - a policy is an opaque value, but equal requests give equal policies
 *     (a fraction left out is 1.0) and createpolicy.cvt passes the access
 *     property through, so a program comparing them sees what a GPU shows;
 *   - the forms the ISA does not have are load errors naming the line
 *     (more in tests/ptx/check/types-cache-policy.ptx);
 *   - the fixture tests/cuda/cache_policy.cu (cuda::annotated_ptr) as nvcc
 *     compiles it for sm_75, sm_80 and sm_90. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "conform.h"
#include "ptxjit/ptxjit.h"
#include "test_util.h"

#define HEADER ".version 8.0\n.target sm_80\n.address_size 64\n"

static const char hints_src[] = HEADER
    ".visible .entry hints(.param .u64 pin, .param .u64 pout, .param .u64 ppol, .param .u64 psum, .param .u32 n)\n"
    "{\n"
    "  .reg .pred %p<4>; .reg .b32 %r<16>; .reg .b64 %rd<24>;\n"
    "  ld.param.u64 %rd1, [pin]; ld.param.u64 %rd2, [pout]; ld.param.u64 %rd3, [ppol];\n"
    "  ld.param.u64 %rd4, [psum]; ld.param.u32 %r1, [n];\n"
    "  createpolicy.fractional.L2::evict_last.b64 %rd10, 1.0;\n"
    "  createpolicy.fractional.L2::evict_last.b64 %rd11;\n"
    "  createpolicy.fractional.L2::evict_first.L2::evict_unchanged.b64 %rd12, 0f3E800000;\n"
    "  createpolicy.range.global.L2::evict_last.L2::evict_first.b64 %rd13, [%rd1], 64, 4096;\n"
    "  createpolicy.cvt.L2.b64 %rd14, %rd12;\n"
    "  mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x;\n"
    "  mad.lo.s32 %r5, %r2, %r3, %r4; setp.ge.u32 %p1, %r5, %r1; @%p1 bra $END;\n"
    "  mul.wide.u32 %rd5, %r5, 8; add.s64 %rd6, %rd1, %rd5; add.s64 %rd7, %rd2, %rd5;\n"
    "  ld.global.L2::cache_hint.u32 %r6, [%rd6], %rd10;\n"
    "  ld.global.nc.L1::no_allocate.L2::cache_hint.v2.u32 {%r7, %r8}, [%rd6], %rd12;\n"
    "  and.b32 %r9, %r4, 1; setp.eq.u32 %p2, %r9, 1;\n"               /* odd lanes store */
    "  mad.lo.s32 %r10, %r6, 3, %r8;\n"
    "  @%p2 st.global.L1::evict_last.L2::cache_hint.v2.u32 [%rd7], {%r10, %r7}, %rd13;\n"
    "  @!%p2 atom.global.add.L2::cache_hint.u32 %r11, [%rd4], %r7, %rd11;\n"
    "  @!%p2 red.global.add.L2::cache_hint.u32 [%rd4+4], 1, %rd10;\n"
    "  setp.ne.u32 %p3, %r5, 0; @%p3 bra $END;\n"
    "  st.global.v2.u64 [%rd3], {%rd10, %rd11}; st.global.v2.u64 [%rd3+16], {%rd12, %rd13};\n"
    "  st.global.u64 [%rd3+32], %rd14;\n"
    "$END:\n  ret;\n}\n";

static void test_hinted_accesses_move_data(void **state)
{
    (void)state;
    enum { N = 333, BLOCK = 96 };
    for (unsigned workers = 1; workers <= 2; workers++) {
        char err[256], *log = NULL;
        ptxjit_ctx *ctx = ptxjit_create(workers, err, sizeof err);
        assert_non_null(ctx);
        ptxjit_module *m = ptxjit_load(ctx, hints_src, sizeof hints_src - 1, "hints.ptx", &log, NULL);
        if (!m)
            fail_msg("did not load:\n%s", log ? log : "");
        static uint32_t in[2 * N], out[2 * N];
        uint64_t pol[5] = {0};
        uint32_t sum[2] = {0, 0}, want_sum = 0, evens = 0;
        for (uint32_t i = 0; i < 2 * N; i++)
            in[i] = i * 2654435761u, out[i] = 0xdeadbeef;
        struct { void *in, *out, *pol, *sum; uint32_t n; } p = {in, out, pol, sum, N};
        ptxjit_launch_cfg cfg = {{(N + BLOCK - 1) / BLOCK, 1, 1}, {BLOCK, 1, 1}, 0, &p, NULL};
        if (ptxjit_launch(ctx, ptxjit_kernel_get(m, "hints"), &cfg, err, sizeof err) != PTXJIT_OK)
            fail_msg("%s", err);
        unsigned wrong = 0;
        for (uint32_t t = 0; t < N; t++) {
            uint32_t lo = in[2 * t], hi = in[2 * t + 1];
            bool odd = (t % BLOCK) & 1;
            wrong += out[2 * t] != (odd ? lo * 3 + hi : 0xdeadbeef);
            wrong += out[2 * t + 1] != (odd ? lo : 0xdeadbeef);
            if (!odd)
                want_sum += lo, evens++;
        }
        if (wrong)
            fail_msg("%u wrong words on %u worker(s)", wrong, workers);
        assert_int_equal(sum[0], want_sum);
        assert_int_equal(sum[1], evens);
        assert_true(pol[0] == pol[1]); /* fraction 1.0, written or left out */
        assert_true(pol[0] != pol[2] && pol[2] != pol[3] && pol[0] != pol[3]);
        assert_true(pol[4] == pol[2]); /* cvt: the access property through */
        ptxjit_module_unload(m);
        ptxjit_destroy(ctx);
        free(log);
    }
}

/* One bad form per module: the load fails and the log names its line. */
static void test_bad_forms_are_load_errors(void **state)
{
    (void)state;
    static const conform_bad bad[] = {
        {"createpolicy.fractional.L2::evict_last.b64 %rd1, 0.0;", "must be in (0, 1]"},
        {"createpolicy.fractional.L2::evict_last.u32 %r1, 0.5;", ".b64 cache policy"},
        {"createpolicy.fractional.L2::evict_first.L2::evict_normal.b64 %rd1;", "primary priority"},
        {"createpolicy.range.L2::evict_last.b64 %rd1, [%rd2], 16;", "takes 4 operands"},
        {"createpolicy.cvt.L2::evict_last.b64 %rd1, %rd2;", "createpolicy.cvt.L2.b64"},
        {"createpolicy.L2::evict_last.b64 %rd1;", "createpolicy.fractional, createpolicy.range"},
        {"atom.global.cas.L2::cache_hint.b32 %r1, [%rd1], %r1, %r1, %rd2;", "atom.cas takes no .L2::cache_hint"},
    };
    assert_int_equal(conform_expect_load_errors("sm_80", bad, sizeof bad / sizeof bad[0]), 0);
}

/* tests/cuda/cache_policy.cu as nvcc compiles it (sm_80/90 with cache
 * hints and libcu++'s integer-built policies, sm_75 without): references
 * from the kernels' comments. */
static void test_fixture_annotated_ptr(void **state)
{
    (void)state;
    static const char *const variants[] = {"sm_75", "sm_80", "sm_90"};
    enum { N = 1000, BLOCK = 128, GRID = (N + BLOCK - 1) / BLOCK };
    char err[256];
    ptxjit_ctx *ctx = ptxjit_create(2, err, sizeof err);
    assert_non_null(ctx);
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        char path[512], *log = NULL;
        size_t len;
        snprintf(path, sizeof path, "%s/ptx/corpus/cache_policy.%s.ptx", PTXJIT_TEST_DIR, variants[v]);
        char *src = tu_read_file(path, &len);
        assert_non_null(src);
        ptxjit_module *m = ptxjit_load(ctx, src, len, path, &log, NULL);
        if (!m)
            fail_msg("%s did not load:\n%s", path, log ? log : "");
        free(src), free(log);
        ptxjit_launch_cfg cfg = {{GRID, 1, 1}, {BLOCK, 1, 1}, 0, NULL, NULL};

        static float fin[N], fout[N];
        for (int i = 0; i < N; i++)
            fin[i] = (float)i * 0.37f - 11.0f, fout[i] = -1;
        struct { void *in, *out; int n; float k; } ps = {fin, fout, N - 3, 1.5f};
        cfg.params = &ps;
        assert_int_equal(ptxjit_launch(ctx, ptxjit_kernel_get(m, "scale_persisting"), &cfg, err, sizeof err), PTXJIT_OK);
        for (int i = 0; i < N; i++)
            if (fout[i] != (i < N - 3 ? fin[i] * 1.5f : -1.0f))
                fail_msg("%s scale_persisting[%d] = %g", variants[v], i, fout[i]);

        static int iin[N], iout[N];
        for (int i = 0; i < N; i++)
            iin[i] = i * i - 500, iout[i] = -1;
        struct { void *in, *out; int n; } pf = {iin, iout, N};
        cfg.params = &pf;
        assert_int_equal(ptxjit_launch(ctx, ptxjit_kernel_get(m, "fraction_sum"), &cfg, err, sizeof err), PTXJIT_OK);
        for (int i = 0; i < N; i++)
            if (iout[i] != iin[i] + iin[N - 1 - i])
                fail_msg("%s fraction_sum[%d] = %d", variants[v], i, iout[i]);

        int counter[4] = {0}, want[4] = {0};
        for (int i = 0; i < N; i++)
            want[i % 4] += iin[i];
        struct { void *counter, *data; int n; } pr = {counter, iin, N};
        cfg.params = &pr;
        assert_int_equal(ptxjit_launch(ctx, ptxjit_kernel_get(m, "range_atomic"), &cfg, err, sizeof err), PTXJIT_OK);
        for (int k = 0; k < 4; k++)
            if (counter[k] != want[k])
                fail_msg("%s range_atomic counter[%d] = %d, want %d", variants[v], k, counter[k], want[k]);
        ptxjit_module_unload(m);
    }
    ptxjit_destroy(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hinted_accesses_move_data),
        cmocka_unit_test(test_bad_forms_are_load_errors),
        cmocka_unit_test(test_fixture_annotated_ptr),
    };
    return cmocka_run_group_tests_name("cache_policy", tests, NULL, NULL);
}
