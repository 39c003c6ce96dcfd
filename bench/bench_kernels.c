/* bench_kernels.c - ptxjit against plain C + OpenMP on the same machine, in
 * the same run: saxpy (grid-stride), a shared-memory block reduction and a
 * 16x16 shared-tiled SGEMM, from the fixture corpus.  Prints the best of R
 * runs for each and the ratio ptxjit / C (lower is better for ptxjit).
 *
 * Usage: bench_kernels [SCALE]   (SCALE 1 = default sizes; CI uses less) */
#include "ptxjit/ptxjit.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { RUNS = 5 };

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc(*len + 1);
    if (s && fread(s, 1, *len, f) != *len) {
        free(s);
        s = NULL;
    }
    fclose(f);
    return s;
}

static ptxjit_module *load(ptxjit_ctx *ctx, const char *dir, const char *file)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    size_t len;
    char *src = read_file(path, &len), *log = NULL;
    if (!src) {
        fprintf(stderr, "bench: cannot read %s\n", path);
        exit(2);
    }
    ptxjit_module *m = ptxjit_load(ctx, src, len, path, &log, NULL);
    if (!m) {
        fprintf(stderr, "bench: %s did not load:\n%s", path, log ? log : "");
        exit(2);
    }
    free(log);
    free(src);
    return m;
}

/* Parameter blocks, packed as CUDA packs them. */
typedef struct { int n; float a; const float *x; float *y; } saxpy_params;
typedef struct { const float *in; float *partial; int n; } reduce_params;
typedef struct { int m, n, k; float alpha; const float *a, *b; float beta; float *c; } gemm_params;

static double time_kernel(ptxjit_ctx *ctx, const ptxjit_kernel *k, ptxjit_launch_cfg *cfg)
{
    char err[512];
    double best = 1e30;
    for (int r = 0; r < RUNS; r++) {
        double t = now();
        if (ptxjit_launch(ctx, k, cfg, err, sizeof err) != PTXJIT_OK) {
            fprintf(stderr, "bench: %s\n", err);
            exit(1);
        }
        t = now() - t;
        best = t < best ? t : best;
    }
    return best;
}

static void report(const char *name, double jit, double c, double err)
{
    printf("%-28s ptxjit %9.3f ms   C+OpenMP %9.3f ms   ratio %6.2fx   max rel. diff %.1e\n",
           name, jit * 1e3, c * 1e3, jit / c, err);
}

static void bench_saxpy(ptxjit_ctx *ctx, const char *dir, int n)
{
    ptxjit_module *m = load(ctx, dir, "vector_ops.sm_80.ptx");
    float *x = malloc(sizeof(float) * n), *y = malloc(sizeof(float) * n),
          *yc = malloc(sizeof(float) * n);
    for (int i = 0; i < n; i++)
        x[i] = (float)(i % 1000), y[i] = yc[i] = 1.0f;
    saxpy_params p = {n, 2.0f, x, y};
    ptxjit_launch_cfg cfg = {{(unsigned)(n / 256 / 16 + 1), 1, 1}, {256, 1, 1}, 0, &p, NULL};
    double tj = time_kernel(ctx, ptxjit_kernel_get(m, "saxpy_gridstride"), &cfg);
    double tc = 1e30;
    for (int r = 0; r < RUNS; r++) {
        double t = now();
#pragma omp parallel for
        for (int i = 0; i < n; i++)
            yc[i] = 2.0f * x[i] + yc[i];
        t = now() - t;
        tc = t < tc ? t : tc;
    }
    double err = 0;
    for (int i = 0; i < n; i++)
        err = fmax(err, fabs(y[i] - yc[i]) / fmax(1.0, fabs(yc[i])));
    char name[64];
    snprintf(name, sizeof name, "saxpy n=%d", n);
    report(name, tj, tc, err);
    free(x), free(y), free(yc);
    ptxjit_module_unload(m);
}

static void bench_reduce(ptxjit_ctx *ctx, const char *dir, int n)
{
    ptxjit_module *m = load(ctx, dir, "reduce_shared.sm_80.ptx");
    int blocks = (n + 255) / 256;
    float *in = malloc(sizeof(float) * n), *part = calloc(blocks, sizeof(float)),
          *pc = calloc(blocks, sizeof(float));
    for (int i = 0; i < n; i++)
        in[i] = (float)(i % 7) * 0.25f;
    reduce_params p = {in, part, n};
    ptxjit_launch_cfg cfg = {{(unsigned)blocks, 1, 1}, {256, 1, 1}, 0, &p, NULL};
    double tj = time_kernel(ctx, ptxjit_kernel_get(m, "reduce_sum_static"), &cfg);
    double tc = 1e30;
    for (int r = 0; r < RUNS; r++) {
        double t = now();
#pragma omp parallel for
        for (int b = 0; b < blocks; b++) {
            float s = 0;
            for (int i = b * 256; i < b * 256 + 256 && i < n; i++)
                s += in[i];
            pc[b] = s;
        }
        t = now() - t;
        tc = t < tc ? t : tc;
    }
    double err = 0;
    for (int b = 0; b < blocks; b++)
        err = fmax(err, fabs(part[b] - pc[b]) / fmax(1.0, fabs(pc[b])));
    char name[64];
    snprintf(name, sizeof name, "block reduce n=%d", n);
    report(name, tj, tc, err);
    free(in), free(part), free(pc);
    ptxjit_module_unload(m);
}

static void bench_sgemm(ptxjit_ctx *ctx, const char *dir, int s)
{
    ptxjit_module *m = load(ctx, dir, "sgemm.sm_80.ptx");
    size_t nn = (size_t)s * s;
    float *a = malloc(sizeof(float) * nn), *b = malloc(sizeof(float) * nn),
          *c = calloc(nn, sizeof(float)), *cc = calloc(nn, sizeof(float));
    for (size_t i = 0; i < nn; i++)
        a[i] = (float)(i % 13) * 0.5f, b[i] = (float)(i % 7) * 0.25f;
    gemm_params p = {s, s, s, 1.0f, a, b, 0.0f, c};
    unsigned g = (unsigned)(s + 15) / 16;
    ptxjit_launch_cfg cfg = {{g, g, 1}, {16, 16, 1}, 0, &p, NULL};
    double tj = time_kernel(ctx, ptxjit_kernel_get(m, "sgemm_tiled16"), &cfg);
    double tc = 1e30;
    for (int r = 0; r < RUNS; r++) {
        double t = now();
#pragma omp parallel for
        for (int i = 0; i < s; i++) {
            float *row = cc + (size_t)i * s;
            for (int j = 0; j < s; j++)
                row[j] = 0;
            for (int k = 0; k < s; k++) {
                float aik = a[(size_t)i * s + k];
                for (int j = 0; j < s; j++)
                    row[j] += aik * b[(size_t)k * s + j];
            }
        }
        t = now() - t;
        tc = t < tc ? t : tc;
    }
    double err = 0;
    for (size_t i = 0; i < nn; i++)
        err = fmax(err, fabs(c[i] - cc[i]) / fmax(1.0, fabs(cc[i])));
    char name[64];
    snprintf(name, sizeof name, "sgemm tiled16 %dx%d", s, s);
    report(name, tj, tc, err);
    free(a), free(b), free(c), free(cc);
    ptxjit_module_unload(m);
}

int main(int argc, char **argv)
{
    double scale = argc > 1 ? atof(argv[1]) : 1.0;
    const char *dir = getenv("PTXJIT_CORPUS") ? getenv("PTXJIT_CORPUS") : PTXJIT_CORPUS_DIR;
    char err[512];
    ptxjit_ctx *ctx = ptxjit_create(0, err, sizeof err);
    if (!ctx) {
        fprintf(stderr, "bench: %s\n", err);
        return 1;
    }
    printf("ptxjit vs C+OpenMP (%d OpenMP threads; ptxjit workers: $PTXJIT_THREADS or all CPUs); "
           "best of %d runs\n", omp_get_max_threads(), RUNS);
    bench_saxpy(ctx, dir, (int)(16777216 * scale));
    bench_reduce(ctx, dir, (int)(16777216 * scale));
    bench_sgemm(ctx, dir, (int)(512 * sqrt(scale)) / 16 * 16 + 16);
    ptxjit_destroy(ctx);
    return 0;
}
