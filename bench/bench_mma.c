/* bench_mma.c - tensor-core throughput: each warp multiply-accumulates a
 * 16x16x16 tile again and again (two mma.sync.m16n8k16, f16 inputs, f32
 * accumulators, fragments in registers), and the rate is given as a
 * fraction of the machine's FMA peak measured in the same run
 * (bench_limits.c).  A second kernel does the same with m16n8k8 bf16, a
 * third with s8 m16n8k32 (integer: counted as 2 operations per
 * multiply-add like the others).
 *
 * Usage: bench_mma [ITERS]   (tile products per warp; default 4096) */
#include "bench_limits.h"
#include "ptxjit/ptxjit.h"

#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { RUNS = 5, WARPS = 256 };

/* A warp's A, B fragments from `in` (8 words per lane), then ITERS times
 * D(16x16) += A(16xK) B(Kx16) as two mma (n = 8 each); D to `out`. */
#define KERNEL(NAME, MMA, NA, NB)                                                                   \
    ".visible .entry " NAME "(.param .u64 pin, .param .u64 pout, .param .u32 piters)\n{\n"          \
    "  .reg .b32 %a<4>; .reg .b32 %b<4>; .reg .b32 %d<8>; .reg .u32 %i, %n, %t;\n"                 \
    "  .reg .u64 %in, %out, %off; .reg .pred %p;\n"                                                 \
    "  ld.param.u64 %in, [pin]; ld.param.u64 %out, [pout]; ld.param.u32 %n, [piters];\n"           \
    "  mov.u32 %t, %tid.x; and.b32 %t, %t, 31; mul.wide.u32 %off, %t, 32; add.s64 %in, %in, %off;\n" \
    "  ld.global.v4.b32 {%a0, %a1, %a2, %a3}, [%in]; ld.global.v4.b32 {%b0, %b1, %b2, %b3}, [%in+16];\n" \
    "  mov.b32 %d0, 0; mov.b32 %d1, 0; mov.b32 %d2, 0; mov.b32 %d3, 0;\n"                           \
    "  mov.b32 %d4, 0; mov.b32 %d5, 0; mov.b32 %d6, 0; mov.b32 %d7, 0;\n"                           \
    "  mov.u32 %i, 0;\n"                                                                            \
    "$Lloop:\n"                                                                                     \
    "  " MMA " {%d0, %d1, %d2, %d3}, " NA ", " NB ", {%d0, %d1, %d2, %d3};\n"                      \
    "  " MMA " {%d4, %d5, %d6, %d7}, " NA ", " NB ", {%d4, %d5, %d6, %d7};\n"                      \
    "  add.u32 %i, %i, 1; setp.lt.u32 %p, %i, %n; @%p bra $Lloop;\n"                                \
    "  mov.u32 %t, %tid.x; mov.u32 %i, %ctaid.x; mad.lo.u32 %t, %i, 32, %t;\n"                     \
    "  mul.wide.u32 %off, %t, 32; add.s64 %out, %out, %off;\n"                                      \
    "  st.global.v4.b32 [%out], {%d0, %d1, %d2, %d3}; st.global.v4.b32 [%out+16], {%d4, %d5, %d6, %d7};\n" \
    "  ret;\n}\n"

static const char module[] =
    ".version 8.0\n.target sm_80\n.address_size 64\n" KERNEL(
        "mma_f16", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "{%a0, %a1, %a2, %a3}", "{%b0, %b1}")
        KERNEL("mma_bf16", "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32", "{%a0, %a1}", "{%b0}")
            KERNEL("mma_s8", "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", "{%a0, %a1, %a2, %a3}",
                   "{%b0, %b1}");

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Best of RUNS launches of WARPS one-warp blocks: seconds. */
static double time_kernel(ptxjit_ctx *ctx, const ptxjit_kernel *k, void *in, void *out, uint32_t iters)
{
    struct {
        void *in, *out;
        uint32_t iters;
    } p = {in, out, iters};
    ptxjit_launch_cfg cfg = {{WARPS, 1, 1}, {32, 1, 1}, 0, &p, NULL};
    char err[256];
    double best = 1e30;
    for (int r = 0; r <= RUNS; r++) { /* the first compiles */
        double t = now();
        if (ptxjit_launch(ctx, k, &cfg, err, sizeof err) != PTXJIT_OK) {
            fprintf(stderr, "bench_mma: %s\n", err);
            exit(1);
        }
        t = now() - t;
        if (r && t < best)
            best = t;
    }
    return best;
}

int main(int argc, char **argv)
{
    uint32_t iters = argc > 1 ? (uint32_t)atoi(argv[1]) : 4096;
    char err[256], *log = NULL;
    ptxjit_ctx *ctx = ptxjit_create(0, err, sizeof err);
    if (!ctx) {
        fprintf(stderr, "bench_mma: %s\n", err);
        return 1;
    }
    ptxjit_module *m = ptxjit_load(ctx, module, sizeof module - 1, "bench_mma", &log, NULL);
    if (!m) {
        fprintf(stderr, "bench_mma: %s\n", log ? log : "load failed");
        return 1;
    }
    /* inputs near 1 in each kernel's type (no subnormal products: x86 slows
     * down on those); the f32 sums stay far from overflow */
    static const uint32_t one[] = {0x3c003c00u, 0x3f803f80u, 0x01010101u};
    uint32_t *in = malloc(32 * 32), *out = malloc((size_t)WARPS * 32 * 32);
    fma_peak_run();
    double peak = fma_peak_run();
    static const char *const names[] = {"mma_f16", "mma_bf16", "mma_s8"};
    static const unsigned k_of[] = {16, 8, 32};
    printf("bench_mma: %u warps x %u iterations of a 16x16xK tile product, %d threads\n", WARPS, iters,
           omp_get_max_threads());
    printf("| kernel | instruction | GFLOP/s | of %.0f GFLOP/s FMA peak |\n|---|---|---|---|\n", peak * 1e-9);
    for (int i = 0; i < 3; i++) {
        const ptxjit_kernel *k = ptxjit_kernel_get(m, names[i]);
        for (int j = 0; j < 32 * 8; j++)
            in[j] = one[i] + (uint32_t)(j % 7); /* low mantissa bits vary */
        double t = time_kernel(ctx, k, in, out, iters);
        double flops = 2.0 * 16 * 16 * k_of[i] * iters * WARPS;
        printf("| %s | m16n8k%u x2 | %.1f | %.1f%% |\n", names[i], k_of[i], flops / t * 1e-9, 100 * flops / t / peak);
    }
    free(in);
    free(out);
    ptxjit_module_unload(m);
    ptxjit_destroy(ctx);
    return 0;
}
