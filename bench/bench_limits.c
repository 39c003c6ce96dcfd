/* bench_limits.c - the machine limits of bench_kernels (bench_limits.h). */
#include "bench_limits.h"
#include "bench_clock.h"
#include "bench_simd.h"

#include <omp.h>
#include <stdlib.h>

struct stream_probe {
    size_t working_set; /* as asked for */
    size_t bytes;       /* used */
    float *mem;
};

stream_probe *stream_probe_create(size_t working_set)
{
    stream_probe *s = malloc(sizeof *s);
    /* a multiple of 3 x 64: the halves and thirds start on cache lines */
    size_t bytes = working_set / 192 * 192;
    float *mem = s && bytes ? aligned_alloc(64, bytes) : NULL;
    if (!mem) {
        free(s);
        return NULL;
    }
    size_t n = bytes / sizeof(float);
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        mem[i] = (float)(i & 1023);
    s->working_set = working_set, s->bytes = bytes, s->mem = mem;
    return s;
}

void stream_probe_destroy(stream_probe *s)
{
    if (s)
        free(s->mem);
    free(s);
}

size_t stream_probe_working_set(const stream_probe *s) { return s->working_set; }

/* schedule(guided) as in the baselines: on a shared machine a thread that
 * is preempted leaves its work to the others. */
static void copy(size_t n, const float *restrict a, float *restrict b)
{
#pragma omp parallel for simd schedule(guided)
    for (size_t i = 0; i < n; i++)
        b[i] = a[i];
}

static void triad(size_t n, float *restrict a, const float *restrict b, const float *restrict c)
{
#pragma omp parallel for simd schedule(guided)
    for (size_t i = 0; i < n; i++)
        a[i] = b[i] + 3.0f * c[i];
}

static void axpy(size_t n, const float *restrict a, float *restrict b)
{
#pragma omp parallel for simd schedule(guided)
    for (size_t i = 0; i < n; i++)
        b[i] = b[i] + 3.0f * a[i];
}

const char *const stream_loop_names[STREAM_LOOPS] = {"copy", "triad", "axpy"};

/* bw = max(bw, bytes / the seconds since t). */
static void keep_best(double *bw, double bytes, double t)
{
    t = bench_now() - t;
    if (bytes / t > *bw)
        *bw = bytes / t;
}

void stream_probe_run(stream_probe *s, double bw[STREAM_LOOPS])
{
    size_t half = s->bytes / 2 / sizeof(float), third = s->bytes / 3 / sizeof(float);
    double t = bench_now();
    copy(half, s->mem, s->mem + half);
    keep_best(&bw[STREAM_COPY], 12.0 * half, t);
    t = bench_now();
    triad(third, s->mem, s->mem + third, s->mem + 2 * third);
    keep_best(&bw[STREAM_TRIAD], 16.0 * third, t);
    t = bench_now();
    axpy(half, s->mem, s->mem + half);
    keep_best(&bw[STREAM_AXPY], 12.0 * half, t);
}

/* Enough chains to cover the FMA latency on every FMA port (4 cycles x 2
 * ports needs 8), leaving registers to spare; the work in chunks that the
 * threads take as they come free. */
enum { CHAINS = BENCH_VREGS / 2, FMA_CHUNKS = 64, FMA_ITERS = 1 << 16 };

/* The chains of one thread; their sum, so that none is dead code. */
static float fma_chains(float seed)
{
    vfloat acc[CHAINS], m = (vfloat){0} + 0.999f, add = (vfloat){0} + 1e-3f;
#pragma GCC unroll 32
    for (int c = 0; c < CHAINS; c++)
        acc[c] = (vfloat){0} + seed + (float)c;
    for (int i = 0; i < FMA_ITERS; i++)
#pragma GCC unroll 32
        for (int c = 0; c < CHAINS; c++)
            acc[c] = acc[c] * m + add; /* contracted to one FMA (GNU C) */
    float sum = 0;
    for (int c = 0; c < CHAINS; c++)
        for (int l = 0; l < BENCH_VW; l++)
            sum += acc[c][l];
    return sum;
}

double fma_peak_run(void)
{
    float sum = 0;
    double t = bench_now();
#pragma omp parallel for schedule(dynamic) reduction(+ : sum)
    for (int chunk = 0; chunk < FMA_CHUNKS; chunk++)
        sum += fma_chains((float)chunk);
    t = bench_now() - t;
    volatile float sink = sum; /* keeps the chains */
    (void)sink;
    return 2.0 * BENCH_VW * CHAINS * (double)FMA_ITERS * FMA_CHUNKS / t;
}

double omp_empty_run(int reps)
{
    int threads = omp_get_max_threads();
    double t = bench_now();
    for (int r = 0; r < reps; r++) {
#pragma omp parallel for schedule(static)
        for (int i = 0; i < threads; i++)
            __asm__ volatile("" ::: "memory");
    }
    return (bench_now() - t) / reps;
}
