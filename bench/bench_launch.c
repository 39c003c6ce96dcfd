/* bench_launch.c - the cost of launching an empty kernel and waiting for
 * it, next to an empty OpenMP parallel for, in the same run:
 *
 *   omp           #pragma omp parallel for over one item per thread
 *   embed         ptxjit_launch (synchronous by definition)
 *   cu+ctxsync    cuLaunchKernel on the legacy stream, then cuCtxSynchronize
 *   cu+strsync    cuLaunchKernel on a created stream, then cuStreamSynchronize
 *
 * each for a grid of one CTA (runs on the calling thread) and of 16 CTAs
 * per worker (every worker takes part).  Rounds interleave the variants;
 * each prints its best batch mean in microseconds and its ratio to omp.
 *
 * Usage: bench_launch [ROUNDS]   (PTXJIT_THREADS sets the workers; match
 * it with OMP_NUM_THREADS to compare like with like) */
#include "ptxjit/cuda_driver.h"
#include "ptxjit/ptxjit.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { BATCH = 2000, VARIANTS = 4 };

static const char *const ptx = ".version 8.0\n.target sm_80\n.address_size 64\n"
                               ".visible .entry empty()\n{\n  ret;\n}\n";

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct bench {
    ptxjit_ctx *ctx;
    const ptxjit_kernel *k;
    CUfunction f;
    CUstream stream;
    unsigned grid;
    volatile int sink[1024];
} bench;

static void die(const char *what)
{
    fprintf(stderr, "bench_launch: %s\n", what);
    exit(1);
}

static void run_omp(bench *b)
{
    int n = omp_get_max_threads();
#pragma omp parallel for
    for (int i = 0; i < n; i++)
        b->sink[i] = i;
}

static void run_embed(bench *b)
{
    ptxjit_launch_cfg cfg = {{b->grid, 1, 1}, {32, 1, 1}, 0, NULL, NULL};
    char err[256];
    if (ptxjit_launch(b->ctx, b->k, &cfg, err, sizeof err) != PTXJIT_OK)
        die(err);
}

static void run_cu(bench *b, CUstream s)
{
    if (cuLaunchKernel(b->f, b->grid, 1, 1, 32, 1, 1, 0, s, NULL, NULL) != CUDA_SUCCESS)
        die("cuLaunchKernel failed");
    CUresult r = s ? cuStreamSynchronize(s) : cuCtxSynchronize();
    if (r != CUDA_SUCCESS)
        die("synchronize failed");
}

static void run_variant(bench *b, int v)
{
    switch (v) {
    case 0: run_omp(b); break;
    case 1: run_embed(b); break;
    case 2: run_cu(b, NULL); break;
    default: run_cu(b, b->stream); break;
    }
}

static void setup(bench *b)
{
    char err[256], *log = NULL;
    b->ctx = ptxjit_create(0, err, sizeof err);
    if (!b->ctx)
        die(err);
    ptxjit_module *m = ptxjit_load(b->ctx, ptx, strlen(ptx), "empty.ptx", &log, NULL);
    if (!m)
        die(log ? log : "cannot load the kernel");
    b->k = ptxjit_kernel_get(m, "empty");
    CUcontext c;
    CUmodule cm;
    if (cuInit(0) || cuDevicePrimaryCtxRetain(&c, 0) || cuCtxSetCurrent(c) ||
        cuModuleLoadData(&cm, ptx) || cuModuleGetFunction(&b->f, cm, "empty") ||
        cuStreamCreate(&b->stream, 0))
        die("driver API set-up failed");
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 15;
    static bench b;
    setup(&b);
    unsigned workers = (unsigned)omp_get_max_threads();
    static const char *const names[VARIANTS] = {"omp parallel for", "ptxjit_launch",
                                                "cuLaunchKernel+cuCtxSynchronize",
                                                "cuLaunchKernel+cuStreamSynchronize"};
    unsigned grids[2] = {1, 16 * workers};
    printf("empty launch + wait, best mean of %d rounds x %d, %u OpenMP threads\n", rounds, BATCH,
           workers);
    for (int g = 0; g < 2; g++) {
        b.grid = grids[g];
        double best[VARIANTS];
        for (int v = 0; v < VARIANTS; v++)
            best[v] = 1e30;
        for (int r = 0; r < rounds; r++)
            for (int v = 0; v < VARIANTS; v++) {
                run_variant(&b, v); /* warm: threads awake, code loaded */
                double t = now();
                for (int i = 0; i < BATCH; i++)
                    run_variant(&b, v);
                t = (now() - t) / BATCH;
                best[v] = t < best[v] ? t : best[v];
            }
        printf("grid of %u CTA%s of 32 threads:\n", b.grid, b.grid > 1 ? "s" : "");
        for (int v = 0; v < VARIANTS; v++)
            printf("  %-36s %7.2f us   ratio to omp %5.2fx\n", names[v], best[v] * 1e6,
                   best[v] / best[0]);
    }
    return 0;
}
