/* test_mma_gemm.c - the mma.sync GEMMs of tests/cuda/mma_sync.cu (ldmatrix
 * from shared tiles, mma.sync m16n8k16 or, for sm_75, m16n8k8) as nvcc and
 * clang compiled them, against a C reference GEMM.
 *
 * Inputs are small integers and halves, so every product and partial sum
 * is exact in f32: the GPU's order and rounding of the sum cannot show,
 * and the comparison is bit for bit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ptxjit/ptxjit.h"
#include "test_ctx.h"
#include "test_util.h"

static const char *const VARIANTS[] = {"sm_80", "sm_90", "sm_75", "clang.sm_80"};

typedef struct gemm {
    int M, N, K;
    uint16_t *A, *B; /* f16 bits */
    float *C, *D, *want, *bias;
    int *live;       /* per (block, warp, k-tile): multiply or skip */
} gemm;

static uint32_t rng_state;

static int rnd(int lo, int hi)
{
    rng_state = rng_state * 1664525u + 1013904223u;
    return lo + (int)((rng_state >> 8) % (uint32_t)(hi - lo + 1));
}

/* An f16 of a small integer times 0.5 (exact). */
static uint16_t half_of(int twice)
{
    if (!twice)
        return 0;
    unsigned sign = twice < 0, m = (unsigned)(twice < 0 ? -twice : twice), e = 24; /* m * 2^-1 = (m / 2^10) * 2^(24 - 15) */
    while (m >= 2048)
        m >>= 1, e++;
    while (m < 1024)
        m <<= 1, e--;
    return (uint16_t)(sign << 15 | e << 10 | (m & 1023));
}

static float half_value(uint16_t h)
{
    int e = h >> 10 & 31, m = h & 1023;
    float v = e ? (float)(1024 + m) * (float)(1.0 / 1024) : 0;
    for (; e > 15; e--)
        v *= 2;
    for (; e && e < 15; e++)
        v /= 2;
    return h >> 15 ? -v : v;
}

static void gemm_init(gemm *g, int M, int N, int K, uint32_t seed)
{
    g->M = M, g->N = N, g->K = K;
    rng_state = seed;
    g->A = malloc((size_t)M * K * 2), g->B = malloc((size_t)K * N * 2);
    g->C = malloc((size_t)M * N * 4), g->D = malloc((size_t)M * N * 4), g->want = malloc((size_t)M * N * 4);
    int blocks = (M / 32) * (N / 16);
    g->live = malloc((size_t)blocks * 4 * (K / 16) * sizeof *g->live);
    g->bias = malloc((size_t)blocks * 128 * 4);
    assert_true(g->A && g->B && g->C && g->D && g->want && g->live && g->bias);
    for (int i = 0; i < M * K; i++)
        g->A[i] = half_of(rnd(-8, 8));
    for (int i = 0; i < K * N; i++)
        g->B[i] = half_of(rnd(-6, 6));
    for (int i = 0; i < M * N; i++)
        g->C[i] = (float)rnd(-16, 16);
    for (int i = 0; i < blocks * 4 * (K / 16); i++)
        g->live[i] = rnd(0, 2) != 0;
    memset(g->D, 0xcc, (size_t)M * N * 4);
}

static void gemm_free(gemm *g)
{
    free(g->A), free(g->B), free(g->C), free(g->D), free(g->want), free(g->live), free(g->bias);
}

/* The reference: D = A * B + C, where `sparse` skipping the k-tiles a warp
 * does not multiply and adding each lane's bias. */
static void gemm_ref(gemm *g, int sparse)
{
    int N = g->N, K = g->K, gx = N / 16;
    for (int r = 0; r < g->M; r++)
        for (int c = 0; c < N; c++) {
            int block = (r / 32) * gx + c / 16, warp = (r % 32) / 16 * 2 + (c % 16) / 8;
            int lane = (r % 16) % 8 * 4 + (c % 8) / 2; /* rows g and g + 8 share a lane */
            float acc = g->C[r * N + c];
            for (int k = 0; k < K; k++)
                if (!sparse || g->live[(block * 4 + warp) * (K / 16) + k / 16])
                    acc += half_value(g->A[r * K + k]) * half_value(g->B[k * N + c]);
            g->want[r * N + c] = acc + (sparse ? 0.5f * (float)(lane % 7) : 0);
        }
}


static ptxjit_module *load_variant(const char *variant)
{
    char path[512];
    snprintf(path, sizeof path, "%s/ptx/corpus/mma_sync.%s.ptx", PTXJIT_TEST_DIR, variant);
    size_t len;
    char *src = tu_read_file(path, &len), *log = NULL;
    if (!src)
        fail_msg("cannot read %s", path);
    ptxjit_module *m = ptxjit_load(test_ctx, src, len, path, &log, NULL);
    free(src);
    if (!m)
        fail_msg("%s does not load: %s", path, log ? log : "?");
    free(log);
    return m;
}

static void run(const char *variant, const char *kernel, int M, int N, int K, uint32_t seed)
{
    ptxjit_module *m = load_variant(variant);
    const ptxjit_kernel *k = ptxjit_kernel_get(m, kernel);
    assert_non_null(k);
    gemm g;
    gemm_init(&g, M, N, K, seed);
    int sparse = !strcmp(kernel, "mma_gemm_sparse");
    gemm_ref(&g, sparse);
    unsigned char params[128];
    size_t n = 0;
    const void *ptrs[4] = {g.A, g.B, g.C, g.D};
    memcpy(params, ptrs, sizeof ptrs), n = sizeof ptrs;
    int dims[4] = {M, N, K, 0};
    memcpy(params + n, dims, 12), n += 16; /* three ints, then 8-byte alignment */
    const void *extra[2] = {g.live, g.bias};
    memcpy(params + n, extra, sizeof extra);
    ptxjit_launch_cfg cfg = {{(uint32_t)N / 16, (uint32_t)M / 32, 1}, {128, 1, 1}, 0, params, NULL};
    char err[256];
    ptxjit_status st = ptxjit_launch(test_ctx, k, &cfg, err, sizeof err);
    if (st != PTXJIT_OK)
        fail_msg("%s %s: launch failed: %s", variant, kernel, err);
    for (int i = 0; i < M * N; i++)
        if (memcmp(&g.D[i], &g.want[i], 4))
            fail_msg("%s %s %dx%dx%d: D[%d][%d] = %a, want %a", variant, kernel, M, N, K, i / N, i % N, g.D[i],
                     g.want[i]);
    gemm_free(&g);
    ptxjit_module_unload(m);
}

static void test_gemm(void **state)
{
    (void)state;
    for (size_t v = 0; v < sizeof VARIANTS / sizeof VARIANTS[0]; v++) {
        run(VARIANTS[v], "mma_gemm", 32, 16, 16, 1);
        run(VARIANTS[v], "mma_gemm", 64, 48, 80, 2);
    }
}

/* The mma under a warp-uniform, data-dependent branch, after the warp's
 * lanes diverged and met again. */
static void test_gemm_sparse(void **state)
{
    (void)state;
    for (size_t v = 0; v < sizeof VARIANTS / sizeof VARIANTS[0]; v++)
        run(VARIANTS[v], "mma_gemm_sparse", 64, 32, 64, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gemm),
        cmocka_unit_test(test_gemm_sparse),
    };
    return cmocka_run_group_tests(tests, test_ctx_setup, test_ctx_teardown);
}
