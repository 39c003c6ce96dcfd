/* bench_kernels.c - ptxjit against its peers on the same machine, in the
 * same process: pocl (OpenCL C twins of the kernels, bench_kernels.cl, on
 * pocl's CPU device) and C + OpenMP written as a careful C programmer
 * writes it (bench_omp.c, bench_sgemm.c).  The kernels are the seven of
 * issue 11's table (bench_cases.c).
 *
 * The machine is shared and noisy, so the peers run interleaved: each round
 * runs every kernel on every peer (the order of the peers rotating from
 * round to round), then the machine-limit probes (bench_limits.c).  A run
 * that is timed follows a pause (bench_quiesce) and an untimed run of the
 * same kernel on the same peer: its data is then in cache, as in a loop of
 * launches (the L3 holds a kernel's whole working set), and its threads
 * are awake.  WARMUP rounds are untimed (compiles at first launch happen
 * there), and each peer's best timed round counts.  Every result is checked against the
 * C one (exit 1 if any differs).  Then the launch overhead and the compile
 * times of one module.
 *
 * Usage: bench_kernels [SCALE [THREADS [ROUNDS]]]
 *   SCALE 1 = default sizes; THREADS (default: online CPUs) pins ptxjit's
 *   workers, OpenMP's threads and pocl's POCL_MAX_PTHREAD_COUNT alike;
 *   ROUNDS timed rounds (default 12). */
#include "bench.h"
#include "bench_clock.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { WARMUP = 1, DEFAULT_ROUNDS = 12 };

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

char *bench_read_corpus(const bench_env *env, const char *file, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", env->corpus, file);
    return must_read(path, len);
}

/* Loads (compiles: the context's cache is off) a corpus module. */
static ptxjit_module *load_module(bench_env *env, const char *file, double *seconds)
{
    size_t len;
    char *src = bench_read_corpus(env, file, &len), *log = NULL;
    double t = bench_now();
    ptxjit_module *m = ptxjit_load(env->ctx, src, len, file, &log, NULL);
    *seconds = bench_now() - t;
    if (!m) {
        fprintf(stderr, "bench: %s did not load:\n%s", file, log ? log : "");
        exit(2);
    }
    free(log);
    free(src);
    return m;
}

const ptxjit_kernel *bench_kernel(bench_env *env, const char *file, const char *name)
{
    unsigned i = 0;
    while (i < env->nmodules && strcmp(env->modules[i].file, file) != 0)
        i++;
    if (i == env->nmodules) {
        if (i == sizeof env->modules / sizeof env->modules[0]) {
            fprintf(stderr, "bench: too many modules\n");
            exit(2);
        }
        snprintf(env->modules[i].file, sizeof env->modules[i].file, "%s", file);
        env->modules[i].module = load_module(env, file, &env->modules[i].seconds);
        env->nmodules++;
    }
    const ptxjit_kernel *k = ptxjit_kernel_get(env->modules[i].module, name);
    if (!k) {
        fprintf(stderr, "bench: %s has no kernel %s\n", file, name);
        exit(2);
    }
    return k;
}

void bench_launch(bench_env *env, const ptxjit_kernel *k, const ptxjit_launch_cfg *cfg)
{
    char err[512];
    if (ptxjit_launch(env->ctx, k, cfg, err, sizeof err) != PTXJIT_OK) {
        fprintf(stderr, "bench: %s: %s\n", ptxjit_kernel_name(k), err);
        exit(1);
    }
}

/* One run of a case on a peer: its seconds. */
static double run_peer(bench_env *env, bench_case *c, int peer)
{
    double t = bench_now();
    if (peer == PEER_JIT) {
        bench_launch(env, c->kernel, &c->cfg);
    } else if (peer == PEER_OMP) {
        c->omp(c->omp_args);
    } else {
        char err[512];
        t = ocl_task_run(c->ocl, err, sizeof err);
        if (t < 0) {
            fprintf(stderr, "bench: pocl %s: %s\n", c->name, err);
            exit(1);
        }
        return t;
    }
    return bench_now() - t;
}

/* Round r: every case on every peer, peers in an order rotated by r so
 * that none always runs right after another (caches, clock boost). */
static void run_round(bench_env *env, bench_case *cases, unsigned n, int r, bool timed)
{
    for (unsigned i = 0; i < n; i++)
        for (int j = 0; j < NPEERS; j++) {
            int peer = (r + j) % NPEERS;
            if (peer == PEER_OCL && !cases[i].ocl)
                continue; /* no pocl, or no twin */
            bench_quiesce();
            double warm = run_peer(env, &cases[i], peer), t = run_peer(env, &cases[i], peer);
            if (r == 0)
                cases[i].first[peer] = warm;
            if (timed && t < cases[i].best[peer])
                cases[i].best[peer] = t;
        }
}

static void probe_machine(bench_machine *m, bool timed)
{
    for (unsigned i = 0; i < m->nstreams; i++) {
        double warm[STREAM_LOOPS] = {0};
        bench_quiesce();
        stream_probe_run(m->streams[i].probe, warm); /* its data into the cache */
        stream_probe_run(m->streams[i].probe, timed ? m->streams[i].bw : warm);
    }
    bench_quiesce();
    fma_peak_run();
    double fma = fma_peak_run();
    if (timed)
        m->fma = fmax(m->fma, fma);
}

/* The stream probe over working_set bytes, or -1. */
static int find_stream(const bench_machine *m, size_t working_set)
{
    for (unsigned i = 0; i < m->nstreams; i++)
        if (stream_probe_working_set(m->streams[i].probe) == working_set)
            return (int)i;
    return -1;
}

double bench_stream_limit(const bench_machine *m, size_t working_set)
{
    int i = find_stream(m, working_set);
    double best = 0;
    for (int loop = 0; i >= 0 && loop < STREAM_LOOPS; loop++)
        best = fmax(best, m->streams[i].bw[loop]);
    return best;
}

/* A stream probe for each working set a case is measured against. */
static void add_streams(bench_machine *m, const bench_case *cases, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        size_t ws = cases[i].working_set;
        if (!cases[i].bytes || find_stream(m, ws) >= 0)
            continue;
        stream_probe *p = m->nstreams < sizeof m->streams / sizeof m->streams[0]
                              ? stream_probe_create(ws) : NULL;
        if (!p) {
            fprintf(stderr, "bench: no room for a %zu-byte stream probe\n", ws);
            exit(2);
        }
        m->streams[m->nstreams++].probe = p;
    }
}

/* Element i of a result. */
static double element(const bench_case *c, int peer, size_t i)
{
    if (c->type == OUT_F32)
        return ((const float *)c->out[peer])[i];
    return ((const unsigned *)c->out[peer])[i];
}

static double max_rel_diff(const bench_case *c, int peer)
{
    double d = 0;
    for (size_t i = 0; i < c->count; i++) {
        double got = element(c, peer, i), want = element(c, PEER_OMP, i);
        if (isnan(got) != isnan(want))
            return INFINITY;
        d = fmax(d, fabs(got - want) / fmax(1.0, fabs(want)));
    }
    return d;
}

/* Compares ptxjit's and pocl's results with C's; false if any differs.
 * The inputs make every result exact in float, so any difference is a
 * wrong result, not rounding. */
static bool check(bench_case *cases, unsigned n)
{
    bool ok = true;
    for (unsigned i = 0; i < n; i++) {
        char err[512];
        if (cases[i].ocl && !ocl_task_read(cases[i].ocl, err, sizeof err)) {
            fprintf(stderr, "bench: pocl %s: %s\n", cases[i].name, err);
            exit(1);
        }
        for (int peer = PEER_JIT; peer <= PEER_OCL; peer++) {
            double d = cases[i].out[peer] ? max_rel_diff(&cases[i], peer) : 0;
            if (d != 0) {
                printf("WRONG: %s: %s differs from C (max rel. diff %.1e)\n", cases[i].name,
                       peer == PEER_JIT ? "ptxjit" : "pocl", d);
                ok = false;
            }
        }
    }
    printf("results: %s\n", ok ? "ptxjit and pocl equal C's on every kernel" : "WRONG");
    return ok;
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
    printf("pocl compile: clBuildProgram bench_kernels.cl %.1f ms (work-group functions are "
           "compiled at each kernel's first launch)\n", t * 1e3);
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

static void print_threads(const bench_env *env, unsigned threads)
{
    unsigned jit = ptxjit_workers(env->ctx), omp = (unsigned)omp_get_max_threads(),
             ocl = env->ocl ? ocl_peer_units(env->ocl) : threads;
    printf("threads: ptxjit workers %u, OpenMP %u, pocl compute units ", jit, omp);
    if (env->ocl)
        printf("%u (POCL_MAX_PTHREAD_COUNT=%s)", ocl, getenv("POCL_MAX_PTHREAD_COUNT"));
    else
        printf("-");
    printf("%s\n", jit == omp && omp == ocl ? "" : "  ** NOT THE SAME **");
}

static void print_compiles(const bench_env *env)
{
    for (unsigned i = 0; i < env->nmodules; i++) {
        ptxjit_stats s = ptxjit_module_stats(env->modules[i].module);
        printf("ptxjit compile (cache off): %s %.1f ms (%u kernels; optimize %.1f, codegen %.1f)\n",
               env->modules[i].file, env->modules[i].seconds * 1e3,
               ptxjit_kernel_count(env->modules[i].module), s.optimize * 1e3, s.codegen * 1e3);
    }
}

int main(int argc, char **argv)
{
    unsigned threads = thread_count(argc, argv);
    int rounds = argc > 3 ? atoi(argv[3]) : DEFAULT_ROUNDS;
    bench_env env = {.scale = argc > 1 ? atof(argv[1]) : 1.0};
    env.corpus = getenv("PTXJIT_CORPUS") ? getenv("PTXJIT_CORPUS") : PTXJIT_CORPUS_DIR;
    if (env.scale <= 0 || rounds < 1) {
        fprintf(stderr, "usage: bench_kernels [SCALE [THREADS [ROUNDS]]]\n");
        return 2;
    }
    omp_set_num_threads((int)threads);
    env.ctx = open_ptxjit(threads);
    env.ocl = open_pocl(threads);
    print_threads(&env, threads);
    print_load("before");

    bench_case *cases = calloc(bench_ncases, sizeof *cases);
    bench_machine machine = {0};
    for (unsigned i = 0; i < bench_ncases; i++) {
        bench_setups[i](&cases[i], &env);
        for (int p = 0; p < NPEERS; p++)
            cases[i].best[p] = INFINITY;
    }
    print_compiles(&env);
    add_streams(&machine, cases, bench_ncases);
    for (int r = 0; r < WARMUP + rounds; r++) {
        run_round(&env, cases, bench_ncases, r, r >= WARMUP);
        probe_machine(&machine, r >= WARMUP);
    }
    printf("%d rounds, the first %d untimed; each peer's best timed round\n\n", WARMUP + rounds,
           WARMUP);
    bool ok = check(cases, bench_ncases);
    bench_report(cases, bench_ncases, &machine);
    bench_launch_overhead(&env, rounds);
    bench_compile_times(&env);
    print_load("after");

    for (unsigned i = 0; i < bench_ncases; i++)
        bench_case_free(&cases[i]);
    free(cases);
    for (unsigned i = 0; i < machine.nstreams; i++)
        stream_probe_destroy(machine.streams[i].probe);
    for (unsigned i = 0; i < env.nmodules; i++)
        ptxjit_module_unload(env.modules[i].module);
    ocl_peer_close(env.ocl);
    ptxjit_destroy(env.ctx);
    return ok ? 0 : 1;
}
