/* bench_kernels.c - ptxjit against its peers on the same machine, in the same
 * run: pocl (OpenCL C twins of the kernels, bench_kernels.cl, on pocl's CPU
 * device) and plain C + OpenMP.  Kernels: saxpy (grid-stride), a
 * shared-memory block reduction and a 16x16 shared-tiled SGEMM, from the
 * fixture corpus.  Each peer runs WARMUP untimed times, then RUNS timed;
 * the best timed run counts.  The OpenMP loops use schedule(guided): like
 * ptxjit and pocl, which hand out CTAs / work-groups as threads come free,
 * a preempted thread does not hold up the rest.  Every result is checked against the C one
 * (exit 1 if any differs); compile times are reported apart.
 *
 * Usage: bench_kernels [SCALE [THREADS]]
 *   SCALE 1 = default sizes; THREADS (default: online CPUs) pins ptxjit's
 *   workers, OpenMP's threads and pocl's POCL_MAX_PTHREAD_COUNT alike. */
#include "ocl_peer.h"
#include "ptxjit/ptxjit.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Same counts for every peer (saxpy's result depends on them).  Many runs
 * because the development machine is shared: the best run is the one that
 * was not preempted. */
enum { WARMUP = 2, RUNS = 15 };

/* Largest relative difference from the C result that counts as correct
 * (the inputs make every result exact in float; this allows for order). */
#define TOLERANCE 1e-5

typedef struct bench {
    ptxjit_ctx *ctx;
    ocl_peer *ocl; /* NULL: no pocl column */
    const char *corpus;
    bool wrong;    /* some result differed from the C one */
} bench;

/* One kernel's measurements, in seconds. */
typedef struct result {
    double jit, jit_first, ocl, ocl_first, omp;
    double jit_diff, ocl_diff; /* max relative difference from C */
    char compile[160];         /* what ptxjit_load took */
} result;

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
    if (s)
        s[*len] = '\0';
    fclose(f);
    return s;
}

static char *must_read(const char *path, size_t *len)
{
    char *s = read_file(path, len);
    if (!s) {
        fprintf(stderr, "bench: cannot read %s\n", path);
        exit(2);
    }
    return s;
}

/* Loads (compiles: the bench turns the cache off) a corpus module and
 * says in res how long that took. */
static ptxjit_module *load(bench *b, const char *file, result *res)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", b->corpus, file);
    size_t len;
    char *src = must_read(path, &len), *log = NULL;
    double t = now();
    ptxjit_module *m = ptxjit_load(b->ctx, src, len, path, &log, NULL);
    t = now() - t;
    if (!m) {
        fprintf(stderr, "bench: %s did not load:\n%s", path, log ? log : "");
        exit(2);
    }
    ptxjit_stats s = ptxjit_module_stats(m);
    snprintf(res->compile, sizeof res->compile,
             "ptxjit_load %s %.1f ms (%u kernels; optimize %.1f, codegen %.1f)", file, t * 1e3,
             ptxjit_kernel_count(m), s.optimize * 1e3, s.codegen * 1e3);
    free(log);
    free(src);
    return m;
}

/* WARMUP + RUNS launches; the first's time and the best timed one. */
static void time_jit(bench *b, ptxjit_module *m, const char *kernel, ptxjit_launch_cfg *cfg,
                     result *res)
{
    const ptxjit_kernel *k = ptxjit_kernel_get(m, kernel);
    char err[512];
    res->jit = 1e30;
    for (int r = 0; r < WARMUP + RUNS; r++) {
        double t = now();
        if (!k || ptxjit_launch(b->ctx, k, cfg, err, sizeof err) != PTXJIT_OK) {
            fprintf(stderr, "bench: %s: %s\n", kernel, k ? err : "no such kernel");
            exit(1);
        }
        t = now() - t;
        if (r == 0)
            res->jit_first = t;
        if (r >= WARMUP && t < res->jit)
            res->jit = t;
    }
}

/* The same for pocl; no column (0) when there is no peer. */
static void time_ocl(bench *b, const ocl_job *job, result *res)
{
    res->ocl = res->ocl_first = 0;
    if (!b->ocl)
        return;
    char err[4096];
    ocl_times t;
    if (!ocl_peer_time(b->ocl, job, &t, err, sizeof err)) {
        fprintf(stderr, "bench: pocl %s: %s\n", job->kernel, err);
        exit(1);
    }
    res->ocl = t.best, res->ocl_first = t.first;
}

/* The same for a C + OpenMP function. */
static double time_omp(void (*fn)(void *), void *arg)
{
    double best = 1e30;
    for (int r = 0; r < WARMUP + RUNS; r++) {
        double t = now();
        fn(arg);
        t = now() - t;
        if (r >= WARMUP && t < best)
            best = t;
    }
    return best;
}

static double max_rel_diff(const float *got, const float *want, size_t n)
{
    double d = 0;
    for (size_t i = 0; i < n; i++)
        d = fmax(d, fabs((double)got[i] - want[i]) / fmax(1.0, fabs((double)want[i])));
    return d;
}

static const char *verdict(bench *b, double diff)
{
    if (diff <= TOLERANCE)
        return "ok";
    b->wrong = true;
    return "WRONG";
}

static void report(bench *b, const char *name, const result *r)
{
    printf("%-32s %10.3f", name, r->jit * 1e3);
    if (b->ocl)
        printf(" %10.3f", r->ocl * 1e3);
    else
        printf(" %10s", "-");
    printf(" %10.3f", r->omp * 1e3);
    if (b->ocl)
        printf(" %11.2fx", r->jit / r->ocl);
    else
        printf(" %12s", "-");
    printf(" %11.2fx   ptxjit %s (%.0e)", r->jit / r->omp, verdict(b, r->jit_diff), r->jit_diff);
    if (b->ocl)
        printf(", pocl %s (%.0e)", verdict(b, r->ocl_diff), r->ocl_diff);
    printf("\n    compile: %s; first launch: ptxjit %.1f ms", r->compile, r->jit_first * 1e3);
    if (b->ocl)
        printf(", pocl %.1f ms (compiles the work-group function)", r->ocl_first * 1e3);
    printf("\n");
}

/* --- saxpy ---------------------------------------------------------------- */

typedef struct saxpy_data { int n; const float *x; float *y; } saxpy_data;

static void omp_saxpy(void *arg)
{
    saxpy_data *d = arg;
#pragma omp parallel for schedule(guided)
    for (int i = 0; i < d->n; i++)
        d->y[i] = 2.0f * d->x[i] + d->y[i];
}

/* Every peer runs WARMUP + RUNS times on its own y, from the same start. */
static void bench_saxpy(bench *b, int n)
{
    result r;
    ptxjit_module *m = load(b, "vector_ops.sm_80.ptx", &r);
    size_t bytes = sizeof(float) * (size_t)n;
    float *x = malloc(bytes), *y0 = malloc(bytes), *yj = malloc(bytes), *yo = malloc(bytes),
          *yc = malloc(bytes);
    for (int i = 0; i < n; i++)
        x[i] = (float)(i % 1000), y0[i] = yj[i] = yc[i] = 1.0f;
    float a = 2.0f;
    unsigned blocks = (unsigned)(n / 256 / 16 + 1);

    struct { int n; float a; const float *x; float *y; } p = {n, a, x, yj};
    ptxjit_launch_cfg cfg = {{blocks, 1, 1}, {256, 1, 1}, 0, &p, NULL};
    time_jit(b, m, "saxpy_gridstride", &cfg, &r);
    ocl_arg args[] = {{false, sizeof n, &n, NULL}, {false, sizeof a, &a, NULL},
                      {true, bytes, x, NULL}, {true, bytes, y0, yo}};
    ocl_job job = {"saxpy_gridstride", 1, {blocks * 256u}, {256}, args, 4, WARMUP, RUNS};
    time_ocl(b, &job, &r);
    r.omp = time_omp(omp_saxpy, &(saxpy_data){n, x, yc});

    r.jit_diff = max_rel_diff(yj, yc, (size_t)n);
    r.ocl_diff = b->ocl ? max_rel_diff(yo, yc, (size_t)n) : 0;
    char name[64];
    snprintf(name, sizeof name, "saxpy n=%d", n);
    report(b, name, &r);
    free(x), free(y0), free(yj), free(yo), free(yc);
    ptxjit_module_unload(m);
}

/* --- block reduction ------------------------------------------------------ */

typedef struct reduce_data { int n, blocks; const float *in; float *partial; } reduce_data;

static void omp_reduce(void *arg)
{
    reduce_data *d = arg;
#pragma omp parallel for schedule(guided)
    for (int g = 0; g < d->blocks; g++) {
        float s = 0;
        for (int i = g * 256; i < g * 256 + 256 && i < d->n; i++)
            s += d->in[i];
        d->partial[g] = s;
    }
}

static void bench_reduce(bench *b, int n)
{
    result r;
    ptxjit_module *m = load(b, "reduce_shared.sm_80.ptx", &r);
    int blocks = (n + 255) / 256;
    size_t pbytes = sizeof(float) * (size_t)blocks;
    float *in = malloc(sizeof(float) * (size_t)n), *pj = calloc(blocks, sizeof(float)),
          *po = calloc(blocks, sizeof(float)), *pc = calloc(blocks, sizeof(float));
    for (int i = 0; i < n; i++)
        in[i] = (float)(i % 7) * 0.25f;

    struct { const float *in; float *partial; int n; } p = {in, pj, n};
    ptxjit_launch_cfg cfg = {{(unsigned)blocks, 1, 1}, {256, 1, 1}, 0, &p, NULL};
    time_jit(b, m, "reduce_sum_static", &cfg, &r);
    ocl_arg args[] = {{true, sizeof(float) * (size_t)n, in, NULL}, {true, pbytes, po, po},
                      {false, sizeof n, &n, NULL}};
    ocl_job job = {"reduce_sum_static", 1, {(size_t)blocks * 256}, {256}, args, 3, WARMUP, RUNS};
    time_ocl(b, &job, &r);
    r.omp = time_omp(omp_reduce, &(reduce_data){n, blocks, in, pc});

    r.jit_diff = max_rel_diff(pj, pc, (size_t)blocks);
    r.ocl_diff = b->ocl ? max_rel_diff(po, pc, (size_t)blocks) : 0;
    char name[64];
    snprintf(name, sizeof name, "block reduce n=%d", n);
    report(b, name, &r);
    free(in), free(pj), free(po), free(pc);
    ptxjit_module_unload(m);
}

/* --- SGEMM ---------------------------------------------------------------- */

typedef struct gemm_data { int s; const float *a, *b; float *c; } gemm_data;

static void omp_sgemm(void *arg)
{
    gemm_data *d = arg;
    int s = d->s;
#pragma omp parallel for schedule(guided)
    for (int i = 0; i < s; i++) {
        float *row = d->c + (size_t)i * s;
        for (int j = 0; j < s; j++)
            row[j] = 0;
        for (int k = 0; k < s; k++) {
            float aik = d->a[(size_t)i * s + k];
            for (int j = 0; j < s; j++)
                row[j] += aik * d->b[(size_t)k * s + j];
        }
    }
}

static void bench_sgemm(bench *b, int s)
{
    result r;
    ptxjit_module *m = load(b, "sgemm.sm_80.ptx", &r);
    size_t nn = (size_t)s * s, bytes = sizeof(float) * nn;
    float *a = malloc(bytes), *bm = malloc(bytes), *cj = calloc(nn, sizeof(float)),
          *co = calloc(nn, sizeof(float)), *cc = calloc(nn, sizeof(float));
    for (size_t i = 0; i < nn; i++)
        a[i] = (float)(i % 13) * 0.5f, bm[i] = (float)(i % 7) * 0.25f;
    float alpha = 1.0f, beta = 0.0f;
    unsigned g = (unsigned)(s + 15) / 16;

    struct { int m, n, k; float alpha; const float *a, *b; float beta; float *c; } p = {
        s, s, s, alpha, a, bm, beta, cj};
    ptxjit_launch_cfg cfg = {{g, g, 1}, {16, 16, 1}, 0, &p, NULL};
    time_jit(b, m, "sgemm_tiled16", &cfg, &r);
    ocl_arg args[] = {{false, sizeof s, &s, NULL},         {false, sizeof s, &s, NULL},
                      {false, sizeof s, &s, NULL},         {false, sizeof alpha, &alpha, NULL},
                      {true, bytes, a, NULL},              {true, bytes, bm, NULL},
                      {false, sizeof beta, &beta, NULL},   {true, bytes, co, co}};
    ocl_job job = {"sgemm_tiled16", 2, {g * 16u, g * 16u}, {16, 16}, args, 8, WARMUP, RUNS};
    time_ocl(b, &job, &r);
    r.omp = time_omp(omp_sgemm, &(gemm_data){s, a, bm, cc});

    r.jit_diff = max_rel_diff(cj, cc, nn);
    r.ocl_diff = b->ocl ? max_rel_diff(co, cc, nn) : 0;
    char name[64];
    snprintf(name, sizeof name, "sgemm tiled16 %dx%d", s, s);
    report(b, name, &r);
    free(a), free(bm), free(cj), free(co), free(cc);
    ptxjit_module_unload(m);
}

/* --- setup ---------------------------------------------------------------- */

/* pocl, with the OpenCL source built; NULL (and why) when unavailable. */
static ocl_peer *open_pocl(unsigned threads)
{
    char why[4096];
    ocl_peer *p = ocl_peer_open(threads, why, sizeof why);
    if (!p) {
        printf("pocl: not measured: %s\n", why);
        return NULL;
    }
    const char *path = getenv("PTXJIT_BENCH_CL") ? getenv("PTXJIT_BENCH_CL") : PTXJIT_BENCH_CL;
    size_t len;
    char *src = must_read(path, &len);
    double t = ocl_peer_build(p, src, why, sizeof why);
    free(src);
    if (t < 0) {
        fprintf(stderr, "bench: %s: %s\n", path, why);
        exit(2);
    }
    printf("pocl: %s\n", ocl_peer_name(p));
    printf("pocl compile: clBuildProgram bench_kernels.cl %.1f ms (3 kernels; the work-group "
           "functions are compiled at each kernel's first launch)\n", t * 1e3);
    return p;
}

static ptxjit_ctx *open_ptxjit(unsigned threads)
{
    char err[512];
    ptxjit_ctx *ctx = ptxjit_create(threads, err, sizeof err);
    ptxjit_cache_opts off = {false, NULL, 0};
    if (!ctx || ptxjit_set_cache(ctx, &off) != PTXJIT_OK) {
        fprintf(stderr, "bench: %s\n", ctx ? "cannot turn the cache off" : err);
        exit(1);
    }
    return ctx;
}

static unsigned thread_count(int argc, char **argv)
{
    long t = argc > 2 ? atol(argv[2]) : sysconf(_SC_NPROCESSORS_ONLN);
    return t > 0 ? (unsigned)t : 1;
}

static void print_load(const char *when)
{
    double load[3] = {-1, -1, -1};
    getloadavg(load, 3);
    printf("load average %s: %.2f %.2f %.2f\n", when, load[0], load[1], load[2]);
}

static void print_threads(const bench *b, unsigned threads)
{
    unsigned jit = ptxjit_workers(b->ctx), omp = (unsigned)omp_get_max_threads(),
             ocl = b->ocl ? ocl_peer_units(b->ocl) : threads;
    printf("threads: ptxjit workers %u, OpenMP %u, pocl compute units ", jit, omp);
    if (b->ocl)
        printf("%u (POCL_MAX_PTHREAD_COUNT=%s)", ocl, getenv("POCL_MAX_PTHREAD_COUNT"));
    else
        printf("-");
    printf("%s\n", jit == omp && omp == ocl ? "" : "  ** NOT THE SAME **");
    print_load("before");
    printf("each peer: %d warm-up run(s) excluded, best of %d timed runs\n\n", WARMUP, RUNS);
    printf("%-32s %10s %10s %10s %12s %12s   check vs C (max rel. diff)\n", "kernel",
           "ptxjit ms", "pocl ms", "C+OMP ms", "ptxjit/pocl", "ptxjit/OMP");
}

int main(int argc, char **argv)
{
    double scale = argc > 1 ? atof(argv[1]) : 1.0;
    unsigned threads = thread_count(argc, argv);
    bench b = {0};
    b.corpus = getenv("PTXJIT_CORPUS") ? getenv("PTXJIT_CORPUS") : PTXJIT_CORPUS_DIR;
    omp_set_num_threads((int)threads);
    b.ctx = open_ptxjit(threads);
    b.ocl = open_pocl(threads);
    print_threads(&b, threads);
    bench_saxpy(&b, (int)(16777216 * scale));
    bench_reduce(&b, (int)(16777216 * scale));
    bench_sgemm(&b, (int)(512 * sqrt(scale)) / 16 * 16 + 16);
    print_load("after");
    ocl_peer_close(b.ocl);
    ptxjit_destroy(b.ctx);
    if (b.wrong)
        fprintf(stderr, "bench: some results differ from the C reference\n");
    return b.wrong ? 1 : 0;
}
