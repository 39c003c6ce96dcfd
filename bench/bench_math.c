/* bench_math.c - a transcendental-heavy kernel (sin, cos, ex2, lg2
 * .approx per element, as nvcc -use_fast_math emits for sinf, cosf, expf,
 * log2f) through ptxjit, next to the same computation in C + OpenMP with
 * scalar libm calls.  ptxjit lowers these instructions to glibc libmvec
 * vector calls (8 lanes per call with AVX2); before that, LLVM scalarized
 * them into one libm call per lane.
 *
 * Usage: bench_math [SCALE]   (SCALE 1 = 4M elements) */
#include "ptxjit/ptxjit.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { RUNS = 7 };

static const char kernel[] =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry math_mix(.param .u64 px, .param .u64 py, .param .u32 pn)\n{\n"
    "  .reg .pred %p<2>; .reg .b32 %r<8>; .reg .f32 %f<12>; .reg .b64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [px]; ld.param.u64 %rd2, [py]; ld.param.u32 %r1, [pn];\n"
    "  mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x;\n"
    "  mad.lo.s32 %r5, %r2, %r3, %r4; setp.ge.u32 %p1, %r5, %r1; @%p1 bra $Lend;\n"
    "  mul.wide.u32 %rd3, %r5, 4; add.s64 %rd4, %rd1, %rd3; ld.global.f32 %f1, [%rd4];\n"
    "  sin.approx.f32 %f2, %f1;\n"
    "  cos.approx.f32 %f3, %f1;\n"
    "  mul.f32 %f4, %f1, 0f3FB8AA3B;\n"          /* x * log2(e): expf(x) */
    "  ex2.approx.f32 %f5, %f4;\n"
    "  abs.f32 %f6, %f1; add.f32 %f6, %f6, 0f3F800000;\n"
    "  lg2.approx.f32 %f7, %f6;\n"
    "  fma.rn.f32 %f8, %f2, %f3, %f5; add.f32 %f8, %f8, %f7;\n"
    "  add.s64 %rd5, %rd2, %rd3; st.global.f32 [%rd5], %f8;\n"
    "$Lend:\n  ret;\n}\n";

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void c_version(const float *x, float *y, int n)
{
#pragma omp parallel for
    for (int i = 0; i < n; i++) {
        float v = x[i];
        y[i] = fmaf(sinf(v), cosf(v), exp2f(v * 1.44269502f)) + log2f(fabsf(v) + 1.0f);
    }
}

int main(int argc, char **argv)
{
    double scale = argc > 1 ? atof(argv[1]) : 1.0;
    int n = (int)(4194304 * (scale > 0 ? scale : 1));
    float *x = malloc(sizeof(float) * (size_t)n), *y = malloc(sizeof(float) * (size_t)n);
    float *yc = malloc(sizeof(float) * (size_t)n);
    for (int i = 0; i < n; i++)
        x[i] = (float)(((double)rand() / RAND_MAX) * 20.0 - 10.0);
    char err[512], *log = NULL;
    ptxjit_ctx *ctx = ptxjit_create(0, err, sizeof err);
    ptxjit_stats st;
    ptxjit_module *m = ctx ? ptxjit_load(ctx, kernel, sizeof kernel - 1, "math.ptx", &log, &st) : NULL;
    if (!m) {
        fprintf(stderr, "bench_math: %s\n", ctx ? (log ? log : "load failed") : err);
        return 2;
    }
    const ptxjit_kernel *k = ptxjit_kernel_get(m, "math_mix");
    struct { const float *x; float *y; unsigned n; } p = {x, y, (unsigned)n};
    ptxjit_launch_cfg cfg = {{(unsigned)((n + 255) / 256), 1, 1}, {256, 1, 1}, 0, &p, NULL};
    double best = 1e30, bestc = 1e30;
    for (int r = 0; r < RUNS; r++) {
        double t = now();
        if (ptxjit_launch(ctx, k, &cfg, err, sizeof err) != PTXJIT_OK) {
            fprintf(stderr, "bench_math: %s\n", err);
            return 1;
        }
        t = now() - t;
        best = t < best ? t : best;
        t = now();
        c_version(x, yc, n);
        t = now() - t;
        bestc = t < bestc ? t : bestc;
    }
    double maxdiff = 0;
    for (int i = 0; i < n; i++)
        maxdiff = fmax(maxdiff, fabs((double)y[i] - yc[i]) / fmax(1.0, fabs((double)yc[i])));
    printf("sin+cos+ex2+lg2 n=%d   ptxjit %8.3f ms (%.2f ns/elem)   C+OpenMP libm %8.3f ms   ratio %5.2fx"
           "   compile %.0f ms   max rel. diff %.1e\n",
           n, best * 1e3, best * 1e9 / n, bestc * 1e3, best / bestc, (st.optimize + st.codegen) * 1e3, maxdiff);
    ptxjit_module_unload(m);
    ptxjit_destroy(ctx);
    free(log), free(x), free(y), free(yc);
    return 0;
}
