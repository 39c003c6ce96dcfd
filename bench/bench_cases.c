/* bench_cases.c - the seven kernels of issue 11's table as bench cases:
 * problem sizes, inputs, launch shapes and what each peer leaves where.
 * The inputs are small integers and dyadic fractions, so every result is
 * exact in float whatever the order of the additions: the peers must agree
 * bit for bit. */
#include "bench.h"
#include "bench_omp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *case_alloc(bench_case *c, size_t bytes)
{
    void *p = c->nmem < sizeof c->mem / sizeof c->mem[0]
                  ? aligned_alloc(64, (bytes + 63) / 64 * 64) : NULL;
    if (!p) {
        fprintf(stderr, "bench: %s: cannot allocate %zu bytes\n", c->name, bytes);
        exit(2);
    }
    return c->mem[c->nmem++] = p;
}

void bench_case_free(bench_case *c)
{
    ocl_task_destroy(c->ocl);
    for (unsigned i = 0; i < c->nmem; i++)
        free(c->mem[i]);
}

static void fits(const bench_case *c, size_t size, size_t room)
{
    if (size > room) {
        fprintf(stderr, "bench: %s: %zu bytes of arguments, room for %zu\n", c->name, size, room);
        exit(2);
    }
}

/* The ptxjit launch: kernel name of corpus file, grid and block shapes, the
 * parameter buffer as CUDA lays it out (a C struct of the same members). */
static void set_jit(bench_case *c, bench_env *env, const char *file, const char *kernel,
                    const unsigned grid[3], const unsigned block[3], const void *params,
                    size_t size)
{
    c->kernel = bench_kernel(env, file, kernel);
    fits(c, size, sizeof c->params);
    memcpy(c->params, params, size);
    c->cfg = (ptxjit_launch_cfg){{grid[0], grid[1], grid[2]}, {block[0], block[1], block[2]},
                                 0, c->params, NULL};
}

/* The pocl task, with the same NDRange (global = grid * block). */
static void set_ocl(bench_case *c, bench_env *env, const char *kernel, const ocl_arg *args,
                    unsigned nargs)
{
    if (!env->ocl)
        return;
    ocl_job job = {kernel, 0, {1, 1, 1}, {1, 1, 1}, args, nargs};
    for (unsigned d = 0; d < 3; d++) {
        job.local[d] = c->cfg.block[d];
        job.global[d] = (size_t)c->cfg.grid[d] * c->cfg.block[d];
        if (c->cfg.grid[d] * c->cfg.block[d] > 1)
            job.dims = d + 1;
    }
    char err[4096];
    c->ocl = ocl_task_create(env->ocl, &job, err, sizeof err);
    if (!c->ocl) {
        fprintf(stderr, "bench: pocl %s: %s\n", kernel, err);
        exit(2);
    }
}

static void set_omp(bench_case *c, void (*fn)(const void *), const void *args, size_t size)
{
    c->omp = fn;
    fits(c, size, sizeof c->omp_args);
    memcpy(c->omp_args, args, size);
}

static void set_out(bench_case *c, out_type type, size_t count, void *jit, void *ocl, void *omp)
{
    c->type = type, c->count = count;
    c->out[PEER_JIT] = jit, c->out[PEER_OCL] = c->ocl ? ocl : NULL, c->out[PEER_OMP] = omp;
}

/* n0 elements at scale 1, at least 1024. */
static int scaled(const bench_env *env, double n0)
{
    double n = n0 * env->scale;
    return n < 1024 ? 1024 : (int)n;
}

/* The side of a square grid of scale * side0^2 points, in whole 32s. */
static int scaled_side(const bench_env *env, double side0)
{
    int s = (int)(side0 * sqrt(env->scale)) / 32 * 32;
    return s < 32 ? 32 : s;
}

static float *floats(bench_case *c, size_t n) { return case_alloc(c, sizeof(float) * n); }

/* n in the table's unit: 16M, 1.6M, 160K. */
static const char *count_name(char *buf, size_t size, int n)
{
    if (n >= 1 << 20)
        snprintf(buf, size, "%.3gM", n / 1048576.0);
    else
        snprintf(buf, size, "%.3gK", n / 1024.0);
    return buf;
}

/* --- the cases, in the order of the table --------------------------------- */

static void setup_saxpy(bench_case *c, bench_env *env)
{
    int n = scaled(env, 1 << 24);
    char count[16];
    snprintf(c->name, sizeof c->name, "saxpy, %s floats", count_name(count, sizeof count, n));
    float a = 2.0f, *x = floats(c, n), *yj = floats(c, n), *yo = floats(c, n),
          *yc = floats(c, n);
    for (int i = 0; i < n; i++)
        x[i] = (float)(i % 1000), yj[i] = yc[i] = 1.0f;
    unsigned blocks = (unsigned)(n / 256 / 16 + 1); /* 16 elements per thread */
    struct { int n; float a; const float *x; float *y; } p = {n, a, x, yj};
    set_jit(c, env, "vector_ops.sm_80.ptx", "saxpy_gridstride", (unsigned[]){blocks, 1, 1},
            (unsigned[]){256, 1, 1}, &p, sizeof p);
    size_t bytes = sizeof(float) * (size_t)n;
    ocl_arg args[] = {{false, sizeof n, &n, NULL}, {false, sizeof a, &a, NULL},
                      {true, bytes, x, NULL}, {true, bytes, yc, yo}};
    set_ocl(c, env, "saxpy_gridstride", args, 4);
    set_omp(c, omp_saxpy, &(omp_saxpy_args){n, a, x, yc}, sizeof(omp_saxpy_args));
    set_out(c, OUT_F32, (size_t)n, yj, yo, yc);
    c->bytes = 3.0 * (double)bytes, c->working_set = 2 * bytes; /* x, y read and written */
}

/* A block reduction (what in the name): 256 threads per block,
 * partial[block] = its sum. */
static void setup_block_sums(bench_case *c, bench_env *env, const char *what, const char *file,
                             const char *kernel, bool twin)
{
    int n = scaled(env, 1 << 24), blocks = (n + 255) / 256;
    char count[16];
    snprintf(c->name, sizeof c->name, "%s, %s floats", what, count_name(count, sizeof count, n));
    float *in = floats(c, n), *pj = floats(c, blocks), *po = floats(c, blocks),
          *pc = floats(c, blocks);
    for (int i = 0; i < n; i++)
        in[i] = (float)(i % 7) * 0.25f;
    struct { const float *in; float *partial; int n; } p = {in, pj, n};
    set_jit(c, env, file, kernel, (unsigned[]){blocks, 1, 1}, (unsigned[]){256, 1, 1}, &p,
            sizeof p);
    ocl_arg args[] = {{true, sizeof(float) * (size_t)n, in, NULL},
                      {true, sizeof(float) * (size_t)blocks, pc, po}, {false, sizeof n, &n, NULL}};
    if (twin)
        set_ocl(c, env, kernel, args, 3);
    set_omp(c, omp_block_sums, &(omp_block_sums_args){n, in, pc}, sizeof(omp_block_sums_args));
    set_out(c, OUT_F32, (size_t)blocks, pj, po, pc);
}

static void setup_reduce_tree(bench_case *c, bench_env *env)
{
    setup_block_sums(c, env, "block tree reduction in shared memory", "reduce_shared.sm_80.ptx",
                     "reduce_sum_static", true);
}

/* OpenCL 1.2 has no sub-group shuffles: no pocl twin. */
static void setup_reduce_shfl(bench_case *c, bench_env *env)
{
    setup_block_sums(c, env, "reduction with __shfl_down_sync", "bench_kernels.sm_80.ptx",
                     "reduce_sum_shfl", false);
}

static void setup_sgemm(bench_case *c, bench_env *env)
{
    int s = (int)(1024 * cbrt(env->scale)) / 16 * 16;
    s = s < 16 ? 16 : s;
    snprintf(c->name, sizeof c->name, "16x16 tiled SGEMM, %dx%d", s, s);
    size_t nn = (size_t)s * s, bytes = sizeof(float) * nn;
    float alpha = 1.0f, beta = 0.0f, *a = floats(c, nn), *b = floats(c, nn), *cj = floats(c, nn),
          *co = floats(c, nn), *cc = floats(c, nn);
    for (size_t i = 0; i < nn; i++)
        a[i] = (float)(i % 13) * 0.5f, b[i] = (float)(i % 7) * 0.25f, cj[i] = cc[i] = 0;
    unsigned g = (unsigned)s / 16;
    struct { int m, n, k; float alpha; const float *a, *b; float beta; float *c; } p = {
        s, s, s, alpha, a, b, beta, cj};
    set_jit(c, env, "sgemm.sm_80.ptx", "sgemm_tiled16", (unsigned[]){g, g, 1},
            (unsigned[]){16, 16, 1}, &p, sizeof p);
    ocl_arg args[] = {{false, sizeof s, &s, NULL},       {false, sizeof s, &s, NULL},
                      {false, sizeof s, &s, NULL},       {false, sizeof alpha, &alpha, NULL},
                      {true, bytes, a, NULL},            {true, bytes, b, NULL},
                      {false, sizeof beta, &beta, NULL}, {true, bytes, cc, co}};
    set_ocl(c, env, "sgemm_tiled16", args, 8);
    float *packed = floats(c, omp_sgemm_packed_floats(s, s));
    set_omp(c, omp_sgemm, &(omp_sgemm_args){s, s, s, alpha, a, b, beta, cc, packed},
            sizeof(omp_sgemm_args));
    set_out(c, OUT_F32, nn, cj, co, cc);
    c->flops = 2.0 * s * (double)nn;
}

static void setup_stencil(bench_case *c, bench_env *env)
{
    int nx = scaled_side(env, 4096), ny = nx;
    snprintf(c->name, sizeof c->name, "2D 5-point stencil, %dx%d, 16x16 blocks", nx, ny);
    size_t nn = (size_t)nx * ny, bytes = sizeof(float) * nn;
    float c0 = 0.5f, c1 = 0.125f, *in = floats(c, nn), *oj = floats(c, nn), *oo = floats(c, nn),
          *oc = floats(c, nn);
    for (size_t i = 0; i < nn; i++)
        in[i] = (float)(i * 7 % 17);
    struct { const float *in; float *out; int nx, ny; float c0, c1; } p = {in, oj, nx, ny, c0, c1};
    set_jit(c, env, "bench_kernels.sm_80.ptx", "stencil5",
            (unsigned[]){(unsigned)nx / 16, (unsigned)ny / 16, 1}, (unsigned[]){16, 16, 1}, &p,
            sizeof p);
    ocl_arg args[] = {{true, bytes, in, NULL},        {true, bytes, oc, oo},
                      {false, sizeof nx, &nx, NULL},  {false, sizeof ny, &ny, NULL},
                      {false, sizeof c0, &c0, NULL},  {false, sizeof c1, &c1, NULL}};
    set_ocl(c, env, "stencil5", args, 6);
    set_omp(c, omp_stencil5, &(omp_stencil5_args){nx, ny, c0, c1, in, oc},
            sizeof(omp_stencil5_args));
    set_out(c, OUT_F32, nn, oj, oo, oc);
    c->bytes = 3.0 * (double)bytes, c->working_set = 2 * bytes; /* in, out + its RFO */
}

static void setup_histogram(bench_case *c, bench_env *env)
{
    int n = scaled(env, 1 << 24);
    char count[16];
    snprintf(c->name, sizeof c->name, "256-bin histogram, %s bytes",
             count_name(count, sizeof count, n));
    unsigned char *data = case_alloc(c, (size_t)n);
    unsigned *hj = case_alloc(c, 1024), *ho = case_alloc(c, 1024), *hc = case_alloc(c, 1024);
    unsigned x = 2463534242u; /* xorshift32: bytes spread over all bins */
    for (int i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        data[i] = (unsigned char)(x >> 24);
    }
    memset(hj, 0, 1024), memset(hc, 0, 1024);
    struct { const unsigned char *data; int n; unsigned *hist; } p = {data, n, hj};
    /* 256 blocks: each a long grid-stride loop, as histogram codes launch */
    set_jit(c, env, "atomics_shared.sm_80.ptx", "histogram256", (unsigned[]){256, 1, 1},
            (unsigned[]){256, 1, 1}, &p, sizeof p);
    ocl_arg args[] = {{true, (size_t)n, data, NULL}, {false, sizeof n, &n, NULL},
                      {true, 1024, hc, ho}};
    set_ocl(c, env, "histogram256", args, 3);
    set_omp(c, omp_histogram256, &(omp_histogram_args){n, data, hc}, sizeof(omp_histogram_args));
    set_out(c, OUT_U32, 256, hj, ho, hc);
}

static void setup_transpose(bench_case *c, bench_env *env)
{
    int w = scaled_side(env, 4096), h = w;
    snprintf(c->name, sizeof c->name, "tiled transpose, %dx%d", w, h);
    size_t nn = (size_t)w * h, bytes = sizeof(float) * nn;
    float *in = floats(c, nn), *oj = floats(c, nn), *oo = floats(c, nn), *oc = floats(c, nn);
    for (size_t i = 0; i < nn; i++)
        in[i] = (float)(i & 0xffffff);
    struct { const float *in; float *out; int w, h; } p = {in, oj, w, h};
    set_jit(c, env, "image2d.sm_80.ptx", "transpose32",
            (unsigned[]){(unsigned)w / 32, (unsigned)h / 32, 1}, (unsigned[]){32, 8, 1}, &p,
            sizeof p);
    ocl_arg args[] = {{true, bytes, in, NULL}, {true, bytes, oc, oo}, {false, sizeof w, &w, NULL},
                      {false, sizeof h, &h, NULL}};
    set_ocl(c, env, "transpose32", args, 4);
    set_omp(c, omp_transpose, &(omp_transpose_args){w, h, in, oc}, sizeof(omp_transpose_args));
    set_out(c, OUT_F32, nn, oj, oo, oc);
    c->bytes = 3.0 * (double)bytes, c->working_set = 2 * bytes; /* in, out + its RFO */
}

const bench_setup bench_setups[] = {setup_saxpy,   setup_reduce_tree, setup_reduce_shfl,
                                    setup_sgemm,   setup_stencil,     setup_histogram,
                                    setup_transpose};
const unsigned bench_ncases = sizeof bench_setups / sizeof bench_setups[0];
