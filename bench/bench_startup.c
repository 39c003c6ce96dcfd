/* bench_startup.c - what a kernel costs before it computes anything: the
 * launch of an empty kernel (launch + synchronize through the embedding
 * API, against an empty OpenMP parallel for) and the compile of a module,
 * cold (cache off) and warm (a cache hit). */
#define _XOPEN_SOURCE 700 /* nftw, mkdtemp */
#include "bench.h"
#include "bench_clock.h"

#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { LAUNCHES = 400 };

/* Seconds per launch of k with cfg, the mean of LAUNCHES. */
static double launch_run(bench_env *env, const ptxjit_kernel *k, const ptxjit_launch_cfg *cfg)
{
    bench_quiesce();
    double t = bench_now();
    for (int i = 0; i < LAUNCHES; i++)
        bench_launch(env, k, cfg);
    return (bench_now() - t) / LAUNCHES;
}

void bench_launch_overhead(bench_env *env, int rounds)
{
    const ptxjit_kernel *k = bench_kernel(env, "bench_kernels.sm_80.ptx", "empty_kernel");
    unsigned workers = ptxjit_workers(env->ctx);
    static const char no_params[8];
    ptxjit_launch_cfg one = {{1, 1, 1}, {32, 1, 1}, 0, no_params, NULL};
    ptxjit_launch_cfg wide = {{workers, 1, 1}, {256, 1, 1}, 0, no_params, NULL};
    double best_one = INFINITY, best_wide = INFINITY, best_omp = INFINITY;
    for (int r = 0; r <= rounds; r++) { /* round 0 warms up */
        double t_one = launch_run(env, k, &one), t_wide = launch_run(env, k, &wide);
        bench_quiesce();
        double t_omp = omp_empty_run(LAUNCHES);
        if (r > 0) {
            best_one = fmin(best_one, t_one);
            best_wide = fmin(best_wide, t_wide);
            best_omp = fmin(best_omp, t_omp);
        }
    }
    printf("launch overhead (empty kernel, launch + synchronize; best of %d rounds of %d): "
           "ptxjit %.2f us (1 block of 32 threads), %.2f us (%u blocks of 256 threads); "
           "OpenMP empty parallel for %.2f us\n",
           rounds, LAUNCHES, best_one * 1e6, best_wide * 1e6, workers, best_omp * 1e6);
}

/* The module the compile times are taken on, and a kernel of it that a
 * small launch runs (a compile at first launch counts too). */
static const char compile_file[] = "sgemm.sm_80.ptx";
enum { SMALL = 64 };

typedef struct load_times {
    double load, first_launch;
    ptxjit_stats stats;
} load_times;

static load_times load_and_launch(bench_env *env, const char *src, size_t len)
{
    load_times lt;
    char *log = NULL;
    double t = bench_now();
    ptxjit_module *m = ptxjit_load(env->ctx, src, len, compile_file, &log, &lt.stats);
    lt.load = bench_now() - t;
    const ptxjit_kernel *k = m ? ptxjit_kernel_get(m, "sgemm_tiled16") : NULL;
    if (!k) {
        fprintf(stderr, "bench: %s: %s\n", compile_file, log ? log : "no sgemm_tiled16");
        exit(2);
    }
    free(log);
    static float a[SMALL * SMALL], c[SMALL * SMALL];
    struct { int m, n, k; float alpha; const float *a, *b; float beta; float *c; } p = {
        SMALL, SMALL, SMALL, 1.0f, a, a, 0.0f, c};
    ptxjit_launch_cfg cfg = {{SMALL / 16, SMALL / 16, 1}, {16, 16, 1}, 0, &p, NULL};
    t = bench_now();
    bench_launch(env, k, &cfg);
    lt.first_launch = bench_now() - t;
    ptxjit_module_unload(m);
    return lt;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

/* The context's cache in a fresh temporary directory (NULL: none made). */
static char *temporary_cache(bench_env *env, char *dir)
{
    ptxjit_cache_opts on = {true, dir, 0};
    if (!mkdtemp(dir) || ptxjit_set_cache(env->ctx, &on) != PTXJIT_OK)
        return NULL;
    return dir;
}

void bench_compile_times(bench_env *env)
{
    size_t len;
    char *src = bench_read_corpus(env, compile_file, &len);
    load_times cold = load_and_launch(env, src, len); /* the context's cache is off */
    char dir[] = "/tmp/ptxjit-bench-cache-XXXXXX";
    load_times warm = {0};
    bool have_warm = temporary_cache(env, dir) != NULL;
    if (have_warm) {
        load_and_launch(env, src, len); /* compiles and stores */
        warm = load_and_launch(env, src, len);
        have_warm = warm.stats.cache_result == PTXJIT_CACHE_HIT;
        nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    }
    ptxjit_cache_opts off = {false, NULL, 0};
    ptxjit_set_cache(env->ctx, &off);
    free(src);
    printf("compile %s (%zu KB): cold (cache off): load %.1f ms (parse %.1f, lower %.1f, "
           "optimize %.1f, codegen %.1f) + first launch %.1f ms",
           compile_file, len / 1024, cold.load * 1e3, cold.stats.parse * 1e3,
           cold.stats.lower * 1e3, cold.stats.optimize * 1e3, cold.stats.codegen * 1e3,
           cold.first_launch * 1e3);
    if (have_warm)
        printf("; warm (cache hit): load %.1f ms (cache %.1f) + first launch %.1f ms\n",
               warm.load * 1e3, warm.stats.cache * 1e3, warm.first_launch * 1e3);
    else
        printf("; warm: not measured (no cache hit)\n");
}
