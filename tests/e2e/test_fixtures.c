/* test_fixtures.c - fixture kernels (tests/cuda, compiled by nvcc and clang)
 * through the whole pipeline against C references written from the
 * kernels' documented semantics: vector add, grid-stride saxpy, divergent
 * loops, shared-memory reductions with barriers and dynamic shared memory,
 * tiled SGEMM, local arrays passed to a .func, recursion, 3D grids, const
 * memory, printf, warp shuffles and votes, shared-memory atomics, a block
 * sum through shuffles, a 2D stencil.  Each runs with 1 and 2 workers, with block sizes that
 * are not multiples of 32 and a partial last block. */
#include <math.h>
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

static ptxjit_ctx *ctxs[2]; /* 1 worker, 2 workers */

static const char *const variants[] = {"sm_80", "clang.sm_80", "sm_75"};

/* Runs `kernel` from `<base>.<variant>.ptx` on each context; returns the
 * number of (context, variant) combinations that ran. */
typedef void (*check_fn)(ptxjit_ctx *ctx, const ptxjit_kernel *k);

static int for_each_config(const char *base, const char *kernel, check_fn check)
{
    int ran = 0;
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++)
        for (int c = 0; c < 2; c++) {
            char file[128];
            snprintf(file, sizeof file, "%s.%s.ptx", base, variants[v]);
            char path[512];
            snprintf(path, sizeof path, "%s/ptx/corpus/%s", PTXJIT_TEST_DIR, file);
            FILE *f = fopen(path, "r");
            if (!f)
                continue;
            fclose(f);
            size_t len;
            char *src = tu_read_file(path, &len), *log = NULL;
            ptxjit_module *m = ptxjit_load(ctxs[c], src, len, path, &log, NULL);
            free(src);
            if (!m)
                fail_msg("%s did not load:\n%s", file, log ? log : "");
            const ptxjit_kernel *k = ptxjit_kernel_get(m, kernel);
            if (!k)
                fail_msg("%s has no kernel %s", file, kernel);
            check(ctxs[c], k);
            ptxjit_module_unload(m);
            ran++;
        }
    return ran;
}

static void launch(ptxjit_ctx *ctx, const ptxjit_kernel *k, uint32_t gx, uint32_t gy, uint32_t gz,
                   uint32_t bx, uint32_t by, uint32_t bz, uint32_t shared, const void *params,
                   FILE *out)
{
    char err[512];
    ptxjit_launch_cfg cfg = {{gx, gy, gz}, {bx, by, bz}, shared, params, out};
    ptxjit_status st = ptxjit_launch(ctx, k, &cfg, err, sizeof err);
    if (st != PTXJIT_OK)
        fail_msg("launch of %s failed (%d): %s", ptxjit_kernel_name(k), st, err);
}

/* ---- kernels ---- */

static void check_vec_add(ptxjit_ctx *ctx, const ptxjit_kernel *k)
{
    enum { N = 1000 };
    static float a[N], b[N], c[N];
    for (int i = 0; i < N; i++)
        a[i] = (float)i * 0.5f, b[i] = 3.0f - (float)i, c[i] = -1.0f;
    struct { const float *a, *b; float *c; int n; } p = {a, b, c, N};
    launch(ctx, k, 11, 1, 1, 96, 1, 1, 0, &p, NULL); /* 1056 threads, partial last block */
    for (int i = 0; i < N; i++)
        assert_true(c[i] == a[i] + b[i]);
}

static void check_saxpy(ptxjit_ctx *ctx, const ptxjit_kernel *k)
{
    enum { N = 5000 };
    static float x[N], y[N], ref[N];
    for (int i = 0; i < N; i++)
        x[i] = (float)(i % 97), y[i] = ref[i] = (float)(i % 13) - 6.0f;
    struct { int n; float a; const float *x; float *y; } p = {N, 1.5f, x, y};
    launch(ctx, k, 3, 1, 1, 100, 1, 1, 0, &p, NULL); /* 300 threads: the loop iterates */
    for (int i = 0; i < N; i++)
        assert_true(y[i] == fmaf(1.5f, x[i], ref[i]) || y[i] == 1.5f * x[i] + ref[i]);
}

static void check_lane_trip_loop(ptxjit_ctx *ctx, const ptxjit_kernel *k)
{
    enum { N = 777 };
    static int out[N];
    struct { int *out; int n; } p = {out, N};
    launch(ctx, k, 8, 1, 1, 100, 1, 1, 0, &p, NULL);
    for (int g = 0; g < N; g++) {
        uint32_t acc = 0;
        for (uint32_t j = 0; j < (uint32_t)(g % 37); j++)
            acc += (j * (uint32_t)g) ^ j;
        assert_int_equal(out[g], (int)acc);
    }
}

static void check_collatz(ptxjit_ctx *ctx, const ptxjit_kernel *k)
{
    enum { N = 300 };
    static unsigned in[N], steps[N];
    for (int i = 0; i < N; i++)
        in[i] = (unsigned)(i * 7919 % 100000);
    struct { const unsigned *in; unsigned *s; int n; } p = {in, steps, N};
    launch(ctx, k, 4, 1, 1, 80, 1, 1, 0, &p, NULL);
    for (int i = 0; i < N; i++) {
        unsigned x = in[i], s = 0;
        while (x > 1 && s < 1000)
            x = (x & 1) ? 3 * x + 1 : x / 2, s++;
        assert_int_equal(steps[i], s);
    }
}

/* Block sums of 256 threads (a shared-memory tree or warp shuffles):
 * partial[b] = the sum of block b's elements, the last block partly past n. */
static void check_block_sums(ptxjit_ctx *ctx, const ptxjit_kernel *k)
{
    enum { N = 1000, B = 4 };
    static float in[N], part[B];
    for (int i = 0; i < N; i++)
        in[i] = (float)(i % 13) - 4.0f;
    struct { const float *in; float *p; int n; } p = {in, part, N};
    launch(ctx, k, B, 1, 1, 256, 1, 1, 0, &p, NULL);
    for (int b = 0; b < B; b++) {
        float s = 0; /* small integers: any order is exact */
        for (int i = b * 256; i < b * 256 + 256 && i < N; i++)
            s += in[i];
        assert_true(part[b] == s);
    }
}

static void check_reduce_dynamic(ptxjit_ctx *ctx, const ptxjit_kernel *k)
{
    enum { N = 10000 };
    static int in[N];
    long long out = 0, ref = 0;
    for (int i = 0; i < N; i++)
        in[i] = i * 37 - 50000, ref += in[i];
    struct { const int *in; long long *out; int n; } p = {in, &out, N};
    launch(ctx, k, 5, 1, 1, 128, 1, 1, 128 * 8, &p, NULL);
    assert_int_equal(out, ref);
}

static void check_sgemm(ptxjit_ctx *ctx, const ptxjit_kernel *k)
{
    enum { M = 37, N = 45, K = 29 };
    static float a[M * K], b[K * N], c[M * N], ref[M * N];
    for (int i = 0; i < M * K; i++)
        a[i] = (float)(i % 7) - 3.0f;
    for (int i = 0; i < K * N; i++)
        b[i] = (float)(i % 5) * 0.5f;
    for (int i = 0; i < M * N; i++)
        c[i] = ref[i] = (float)(i % 3);
    for (int r = 0; r < M; r++)
        for (int col = 0; col < N; col++) {
            float acc = 0;
            for (int q = 0; q < K; q++)
                acc += a[r * K + q] * b[q * N + col]; /* exact: small halves */
            ref[r * N + col] = 2.0f * acc + 0.5f * ref[r * N + col];
        }
    struct { int m, n, k; float alpha; const float *a, *b; float beta; float *c; } p = {
        M, N, K, 2.0f, a, b, 0.5f, c};
    launch(ctx, k, (N + 15) / 16, (M + 15) / 16, 1, 16, 16, 1, 0, &p, NULL);
    for (int i = 0; i < M * N; i++)
        if (c[i] != ref[i])
            fail_msg("C[%d][%d] = %g, want %g", i / N, i % N, (double)c[i], (double)ref[i]);
}

static int cmp_int(const void *x, const void *y)
{
    return (*(const int *)x > *(const int *)y) - (*(const int *)x < *(const int *)y);
}

static void check_median(ptxjit_ctx *ctx, const ptxjit_kernel *k)
{
    enum { N = 250 };
    static int in[N], out[N];
    for (int i = 0; i < N; i++)
        in[i] = (i * 7919) % 1000 - 500;
    struct { const int *in; int *out; int n; } p = {in, out, N};
    launch(ctx, k, 3, 1, 1, 100, 1, 1, 0, &p, NULL);
    for (int g = 0; g < N; g++) {
        int w[9];
        for (int q = 0; q < 9; q++)
            w[q] = in[(g + q) % N];
        qsort(w, 9, sizeof *w, cmp_int);
        assert_int_equal(out[g], w[4]);
    }
}

static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

static void check_fib(ptxjit_ctx *ctx, const ptxjit_kernel *k)
{
    enum { N = 70 };
    static int out[N];
    struct { int *out; int n; } p = {out, N};
    launch(ctx, k, 2, 1, 1, 40, 1, 1, 0, &p, NULL);
    for (int g = 0; g < N; g++)
        assert_int_equal(out[g], fib(g % 20));
}

static void check_index3d(ptxjit_ctx *ctx, const ptxjit_kernel *k)
{
    enum { NX = 13, NY = 7, NZ = 5 };
    static unsigned out[NX * NY * NZ];
    memset(out, 0, sizeof out);
    struct { unsigned *out; int nx, ny, nz; } p = {out, NX, NY, NZ};
    launch(ctx, k, 3, 2, 3, 5, 4, 2, 0, &p, NULL); /* 40-thread 3D blocks */
    for (unsigned i = 0; i < NX * NY * NZ; i++)
        assert_int_equal(out[i], i * 2 + 1);
}

static void check_poly(ptxjit_ctx *ctx, const ptxjit_kernel *k)
{
    static const float c[8] = {1.0f, -0.5f, 0.25f, -0.125f, 0.0625f, 2.0f, -1.0f, 0.5f};
    enum { N = 200 };
    static float x[N], y[N];
    for (int i = 0; i < N; i++)
        x[i] = (float)i / 64.0f - 1.5f;
    struct { const float *x; float *y; int n; } p = {x, y, N};
    launch(ctx, k, 3, 1, 1, 70, 1, 1, 0, &p, NULL);
    for (int i = 0; i < N; i++) {
        float acc = c[7], acc2 = c[7];
        for (int q = 6; q >= 0; q--)
            acc = fmaf(acc, x[i], c[q]), acc2 = acc2 * x[i] + c[q];
        assert_true(y[i] == acc || y[i] == acc2); /* contracted or not */
    }
}

static void check_printf(ptxjit_ctx *ctx, const ptxjit_kernel *k)
{
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    launch(ctx, k, 3, 1, 1, 50, 1, 1, 0, NULL, out); /* gids 0 and 64 print */
    fclose(out);
    const char *want = "block (0,0,0) thread (0,0,0) of grid (3,1,1) x block (50,1,1)\n"
                       "no-args line\n"
                       "block (1,0,0) thread (14,0,0) of grid (3,1,1) x block (50,1,1)\n"
                       "block (2,0,0) thread (28,0,0) of grid (3,1,1) x block (50,1,1)\n";
    assert_string_equal(text, want);
    free(text);
}

static void check_warp_scan(ptxjit_ctx *ctx, const ptxjit_kernel *k)
{
    enum { N = 128 };
    static int in[N], out[N];
    for (int i = 0; i < N; i++)
        in[i] = (i * 37) % 11 - 5;
    struct { const int *in; int *out; } p = {in, out};
    launch(ctx, k, 2, 1, 1, 64, 1, 1, 0, &p, NULL);
    for (int g = 0; g < N; g++) {
        int s = 0;
        for (int j = g & ~31; j <= g; j++)
            s += in[j];
        assert_int_equal(out[g], s);
    }
}

static void check_shfl_broadcast(ptxjit_ctx *ctx, const ptxjit_kernel *k)
{
    enum { N = 96 };
    static int in[N], out[N];
    for (int i = 0; i < N; i++)
        in[i] = i * 1000 + 7;
    struct { const int *in; int *out; int src; } p = {in, out, 37}; /* 37 & 31 = 5 */
    launch(ctx, k, 1, 1, 1, N, 1, 1, 0, &p, NULL);
    for (int g = 0; g < N; g++)
        assert_int_equal(out[g], in[(g & ~31) + 5]);
}

static void check_ballot(ptxjit_ctx *ctx, const ptxjit_kernel *k)
{
    enum { N = 128, WARPS = N / 32 };
    static float in[N];
    static unsigned ballots[WARPS];
    static int counts[WARPS], ranks[N];
    for (int i = 0; i < N; i++)
        in[i] = (float)((i * 7919) % 100);
    struct { const float *in; float t; unsigned *b; int *c, *r; } p = {in, 50.0f, ballots, counts, ranks};
    launch(ctx, k, 2, 1, 1, 64, 1, 1, 0, &p, NULL);
    for (int w = 0; w < WARPS; w++) {
        unsigned b = 0;
        for (int l = 0; l < 32; l++)
            b |= (in[w * 32 + l] > 50.0f ? 1u : 0u) << l;
        assert_int_equal(ballots[w], b);
        assert_int_equal(counts[w], __builtin_popcount(b));
        for (int l = 0; l < 32; l++)
            assert_int_equal(ranks[w * 32 + l], __builtin_popcount(b & ((1u << l) - 1)));
    }
}

static void check_histogram(ptxjit_ctx *ctx, const ptxjit_kernel *k)
{
    enum { N = 5000 };
    static unsigned char data[N];
    static unsigned hist[256], ref[256];
    memset(hist, 0, sizeof hist);
    memset(ref, 0, sizeof ref);
    for (int i = 0; i < N; i++)
        data[i] = (unsigned char)((i * 131) % 251 % 40), ref[data[i]]++;
    struct { const unsigned char *d; int n; unsigned *h; } p = {data, N, hist};
    launch(ctx, k, 3, 1, 1, 100, 1, 1, 0, &p, NULL);
    for (int b = 0; b < 256; b++)
        assert_int_equal(hist[b], ref[b]);
}

/* Two block shapes in turn: 16x16, and 13x7 (91 threads, partial warps
 * and partial blocks at the right and bottom edges). */
static void check_stencil5(ptxjit_ctx *ctx, const ptxjit_kernel *k)
{
    enum { NX = 70, NY = 45 };
    static float in[NX * NY], out[NX * NY];
    for (int i = 0; i < NX * NY; i++)
        in[i] = (float)(i * 7 % 17);
    static const uint32_t shapes[2][2] = {{16, 16}, {13, 7}};
    for (int s = 0; s < 2; s++) {
        uint32_t bx = shapes[s][0], by = shapes[s][1];
        memset(out, 0xff, sizeof out);
        struct { const float *in; float *out; int nx, ny; float c0, c1; } p = {in, out, NX, NY,
                                                                             0.5f, 0.125f};
        launch(ctx, k, (NX + bx - 1) / bx, (NY + by - 1) / by, 1, bx, by, 1, 0, &p, NULL);
        for (int y = 0; y < NY; y++)
            for (int x = 0; x < NX; x++) {
                int q = y * NX + x;
                float want = in[q]; /* dyadic small values: exact in any order */
                if (x > 0 && y > 0 && x < NX - 1 && y < NY - 1)
                    want = 0.5f * in[q] +
                           0.125f * ((in[q - 1] + in[q + 1]) + (in[q - NX] + in[q + NX]));
                assert_true(out[q] == want);
            }
    }
}

/* ---- tests ---- */

#define FIXTURE_TEST(name, base, kernel, fn)                                                    \
    static void name(void **state)                                                              \
    {                                                                                           \
        (void)state;                                                                            \
        assert_true(for_each_config(base, kernel, fn) >= 2);                                    \
    }

FIXTURE_TEST(test_vec_add, "vector_ops", "vec_add", check_vec_add)
FIXTURE_TEST(test_saxpy_gridstride, "vector_ops", "saxpy_gridstride", check_saxpy)
FIXTURE_TEST(test_divergent_trip_counts, "divergence", "lane_trip_loop", check_lane_trip_loop)
FIXTURE_TEST(test_divergent_while, "divergence", "collatz_steps", check_collatz)
FIXTURE_TEST(test_shared_reduce_barriers, "reduce_shared", "reduce_sum_static", check_block_sums)
FIXTURE_TEST(test_dynamic_shared, "reduce_shared", "reduce_sum_dynamic", check_reduce_dynamic)
FIXTURE_TEST(test_sgemm_tiled_shared, "sgemm", "sgemm_tiled16", check_sgemm)
FIXTURE_TEST(test_local_array_to_func, "local_arrays", "median_of_window", check_median)
FIXTURE_TEST(test_recursion, "recursion", "fib_kernel", check_fib)
FIXTURE_TEST(test_3d_grid, "grid3d", "index3d", check_index3d)
FIXTURE_TEST(test_const_memory, "globals_const", "poly_eval", check_poly)
FIXTURE_TEST(test_printf_order, "printf_kernel", "print_grid_info", check_printf)
FIXTURE_TEST(test_shfl_up_scan, "warp_shuffle", "warp_inclusive_scan", check_warp_scan)
FIXTURE_TEST(test_shfl_broadcast, "warp_shuffle", "shfl_broadcast", check_shfl_broadcast)
FIXTURE_TEST(test_ballot_popc, "warp_vote", "ballot_popc", check_ballot)
FIXTURE_TEST(test_shared_atomics_histogram, "atomics_shared", "histogram256", check_histogram)
FIXTURE_TEST(test_shfl_block_reduce, "bench_kernels", "reduce_sum_shfl", check_block_sums)
FIXTURE_TEST(test_stencil5_two_shapes, "bench_kernels", "stencil5", check_stencil5)

static int setup(void **state)
{
    (void)state;
    char err[256];
    ctxs[0] = ptxjit_create(1, err, sizeof err);
    ctxs[1] = ptxjit_create(2, err, sizeof err);
    return ctxs[0] && ctxs[1] ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    ptxjit_destroy(ctxs[0]);
    ptxjit_destroy(ctxs[1]);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vec_add),
        cmocka_unit_test(test_saxpy_gridstride),
        cmocka_unit_test(test_divergent_trip_counts),
        cmocka_unit_test(test_divergent_while),
        cmocka_unit_test(test_shared_reduce_barriers),
        cmocka_unit_test(test_dynamic_shared),
        cmocka_unit_test(test_sgemm_tiled_shared),
        cmocka_unit_test(test_local_array_to_func),
        cmocka_unit_test(test_recursion),
        cmocka_unit_test(test_3d_grid),
        cmocka_unit_test(test_const_memory),
        cmocka_unit_test(test_printf_order),
        cmocka_unit_test(test_shfl_up_scan),
        cmocka_unit_test(test_shfl_broadcast),
        cmocka_unit_test(test_ballot_popc),
        cmocka_unit_test(test_shared_atomics_histogram),
        cmocka_unit_test(test_shfl_block_reduce),
        cmocka_unit_test(test_stencil5_two_shapes),
    };
    return cmocka_run_group_tests_name("fixtures", tests, setup, teardown);
}
