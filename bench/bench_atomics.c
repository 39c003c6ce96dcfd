/* bench_atomics.c - atomics under ptxjit next to plain C + OpenMP, same run:
 *
 *   ticket    every thread takes atomicAdd(&counter, 1) and stores it (the
 *             stream-compaction counter): one address per warp, result used
 *   count     red.global.add: one address, result unused
 *   max       atom.global.max.s32 of every thread's value into one cell
 *   hist      a global 256-bin histogram of random bytes: scattered addresses
 *   shist     the same privatised in shared memory, then merged
 *
 * ticket, count and max take the warp-aggregated path (one RMW per warp);
 * hist takes one atomic per lane; shist one plain RMW per lane.  Prints the
 * best of R runs and the ratio ptxjit / C (lower is better for ptxjit).
 *
 * Usage: bench_atomics [SCALE]   (SCALE 1 = 2^24 threads) */
#include "ptxjit/ptxjit.h"

#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { RUNS = 5, BLOCK = 256 };

static const char *const ptx =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry ticket(.param .u64 pc, .param .u64 pout, .param .u32 pn)\n{\n"
    "  .reg .pred %p; .reg .b32 %r<8>; .reg .b64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [pc]; ld.param.u64 %rd2, [pout]; ld.param.u32 %r5, [pn];\n"
    "  mov.u32 %r1, %ctaid.x; mov.u32 %r2, %ntid.x; mov.u32 %r3, %tid.x; mad.lo.s32 %r4, %r1, %r2, %r3;\n"
    "  setp.ge.u32 %p, %r4, %r5; @%p bra $E;\n"
    "  atom.global.add.u32 %r6, [%rd1], 1;\n"
    "  mul.wide.u32 %rd3, %r4, 4; add.s64 %rd4, %rd2, %rd3; st.global.u32 [%rd4], %r6;\n"
    "$E: ret;\n}\n"
    ".visible .entry count(.param .u64 pc, .param .u64 pin, .param .u32 pn)\n{\n"
    "  .reg .pred %p; .reg .b32 %r<8>; .reg .b64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [pc]; ld.param.u64 %rd2, [pin]; ld.param.u32 %r5, [pn];\n"
    "  mov.u32 %r1, %ctaid.x; mov.u32 %r2, %ntid.x; mov.u32 %r3, %tid.x; mad.lo.s32 %r4, %r1, %r2, %r3;\n"
    "  setp.ge.u32 %p, %r4, %r5; @%p bra $E;\n"
    "  mul.wide.u32 %rd3, %r4, 4; add.s64 %rd4, %rd2, %rd3; ld.global.u32 %r6, [%rd4];\n"
    "  red.global.add.u32 [%rd1], %r6;\n"
    "$E: ret;\n}\n"
    ".visible .entry vmax(.param .u64 pc, .param .u64 pin, .param .u32 pn)\n{\n"
    "  .reg .pred %p; .reg .b32 %r<8>; .reg .b64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [pc]; ld.param.u64 %rd2, [pin]; ld.param.u32 %r5, [pn];\n"
    "  mov.u32 %r1, %ctaid.x; mov.u32 %r2, %ntid.x; mov.u32 %r3, %tid.x; mad.lo.s32 %r4, %r1, %r2, %r3;\n"
    "  setp.ge.u32 %p, %r4, %r5; @%p bra $E;\n"
    "  mul.wide.u32 %rd3, %r4, 4; add.s64 %rd4, %rd2, %rd3; ld.global.u32 %r6, [%rd4];\n"
    "  atom.global.max.s32 %r7, [%rd1], %r6;\n"
    "$E: ret;\n}\n"
    ".visible .entry hist(.param .u64 ph, .param .u64 pin, .param .u32 pn)\n{\n"
    "  .reg .pred %p; .reg .b32 %r<8>; .reg .b64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [ph]; ld.param.u64 %rd2, [pin]; ld.param.u32 %r5, [pn];\n"
    "  mov.u32 %r1, %ctaid.x; mov.u32 %r2, %ntid.x; mov.u32 %r3, %tid.x; mad.lo.s32 %r4, %r1, %r2, %r3;\n"
    "  setp.ge.u32 %p, %r4, %r5; @%p bra $E;\n"
    "  mul.wide.u32 %rd3, %r4, 4; add.s64 %rd4, %rd2, %rd3; ld.global.u32 %r6, [%rd4];\n"
    "  and.b32 %r6, %r6, 255; mul.wide.u32 %rd5, %r6, 4; add.s64 %rd6, %rd1, %rd5;\n"
    "  red.global.add.u32 [%rd6], 1;\n"
    "$E: ret;\n}\n"
    ".visible .entry shist(.param .u64 ph, .param .u64 pin, .param .u32 pn)\n{\n"
    "  .reg .pred %p<3>; .reg .b32 %r<12>; .reg .b64 %rd<8>;\n"
    "  .shared .align 4 .b32 sh[256];\n"
    "  ld.param.u64 %rd1, [ph]; ld.param.u64 %rd2, [pin]; ld.param.u32 %r5, [pn];\n"
    "  mov.u32 %r1, %ctaid.x; mov.u32 %r2, %ntid.x; mov.u32 %r3, %tid.x; mad.lo.s32 %r4, %r1, %r2, %r3;\n"
    "  mov.u32 %r9, sh; shl.b32 %r10, %r3, 2; add.u32 %r10, %r9, %r10; st.shared.u32 [%r10], 0;\n"
    "  bar.sync 0;\n"
    "  setp.lt.u32 %p1, %r4, %r5; mul.wide.u32 %rd3, %r4, 4; add.s64 %rd4, %rd2, %rd3;\n"
    "  @%p1 ld.global.u32 %r6, [%rd4]; and.b32 %r6, %r6, 255; shl.b32 %r7, %r6, 2; add.u32 %r7, %r9, %r7;\n"
    "  @%p1 atom.shared.add.u32 %r8, [%r7], 1;\n"
    "  bar.sync 0;\n"
    "  ld.shared.u32 %r11, [%r10]; setp.ne.u32 %p2, %r11, 0;\n"
    "  mul.wide.u32 %rd5, %r3, 4; add.s64 %rd6, %rd1, %rd5; @%p2 red.global.add.u32 [%rd6], %r11;\n"
    "  ret;\n}\n";

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct { void *a, *b; uint32_t n; } params;

/* Best of RUNS launches; reset() runs before each. */
static double time_kernel(ptxjit_ctx *ctx, ptxjit_module *m, const char *name, const params *p,
                          void (*reset)(const params *))
{
    const ptxjit_kernel *k = ptxjit_kernel_get(m, name);
    ptxjit_launch_cfg cfg = {{(p->n + BLOCK - 1) / BLOCK, 1, 1}, {BLOCK, 1, 1}, 0, p, NULL};
    char err[512];
    double best = 1e30;
    for (int r = 0; r < RUNS; r++) {
        reset(p);
        double t = now();
        if (ptxjit_launch(ctx, k, &cfg, err, sizeof err) != PTXJIT_OK) {
            fprintf(stderr, "bench: %s\n", err);
            exit(1);
        }
        t = now() - t;
        best = t < best ? t : best;
    }
    return best;
}

static void zero_first(const params *p) { memset(p->a, 0, 256 * sizeof(uint32_t)); }

static double best_of(void (*fn)(const params *), const params *p)
{
    double best = 1e30;
    for (int r = 0; r < RUNS; r++) {
        zero_first(p);
        double t = now();
        fn(p);
        t = now() - t;
        best = t < best ? t : best;
    }
    return best;
}

static void c_ticket(const params *p)
{
    uint32_t *c = p->a, *out = p->b;
#pragma omp parallel for
    for (uint32_t i = 0; i < p->n; i++) {
        uint32_t t;
#pragma omp atomic capture
        t = (*c)++;
        out[i] = t;
    }
}

static void c_count(const params *p)
{
    uint32_t *c = p->a;
    const uint32_t *in = p->b;
#pragma omp parallel for
    for (uint32_t i = 0; i < p->n; i++) {
#pragma omp atomic
        *c += in[i];
    }
}

static void c_max(const params *p)
{
    int32_t *c = p->a;
    const int32_t *in = p->b;
#pragma omp parallel for
    for (uint32_t i = 0; i < p->n; i++) {
        int32_t old = __atomic_load_n(c, __ATOMIC_RELAXED);
        while (in[i] > old && !__atomic_compare_exchange_n(c, &old, in[i], 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            ;
    }
}

static void c_hist(const params *p)
{
    uint32_t *h = p->a;
    const uint32_t *in = p->b;
#pragma omp parallel for
    for (uint32_t i = 0; i < p->n; i++) {
#pragma omp atomic
        h[in[i] & 255]++;
    }
}

static void c_shist(const params *p)
{
    uint32_t *h = p->a;
    const uint32_t *in = p->b;
#pragma omp parallel
    {
        uint32_t local[256] = {0};
#pragma omp for
        for (uint32_t i = 0; i < p->n; i++)
            local[in[i] & 255]++;
        for (int b = 0; b < 256; b++)
            if (local[b]) {
#pragma omp atomic
                h[b] += local[b];
            }
    }
}

static void report(const char *name, double tj, double tc, int ok)
{
    printf("%-8s ptxjit %8.3f ms   C+OpenMP %8.3f ms   ratio %6.2fx   %s\n", name, tj * 1e3, tc * 1e3, tj / tc,
           ok ? "results agree" : "RESULTS DIFFER");
}

int main(int argc, char **argv)
{
    double scale = argc > 1 ? atof(argv[1]) : 1.0;
    uint32_t n = (uint32_t)(scale * (1 << 24));
    n = n < BLOCK ? BLOCK : n;
    char err[256], *log = NULL;
    ptxjit_ctx *ctx = ptxjit_create(0, err, sizeof err);
    ptxjit_module *m = ctx ? ptxjit_load(ctx, ptx, strlen(ptx), "bench_atomics.ptx", &log, NULL) : NULL;
    if (!m) {
        fprintf(stderr, "bench: %s\n", log ? log : err);
        return 2;
    }
    uint32_t *in = malloc((size_t)n * 4), *out = malloc((size_t)n * 4), cell[256], ref[256];
    uint64_t x = 0x9E3779B97F4A7C15ull, sum = 0;
    int32_t vmax = INT32_MIN;
    for (uint32_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        in[i] = (uint32_t)(x >> 40);
        sum += in[i];
        vmax = (int32_t)in[i] > vmax ? (int32_t)in[i] : vmax;
    }
    printf("atomics: ptxjit vs C+OpenMP (%d OpenMP threads), %u threads, best of %d runs\n", omp_get_max_threads(), n,
           RUNS);
    params pj = {cell, out, n}, pc = {ref, out, n};
    double tj = time_kernel(ctx, m, "ticket", &pj, zero_first), tc = best_of(c_ticket, &pc);
    report("ticket", tj, tc, cell[0] == n);
    pj.b = pc.b = in;
    tj = time_kernel(ctx, m, "count", &pj, zero_first), tc = best_of(c_count, &pc);
    report("count", tj, tc, cell[0] == (uint32_t)sum && ref[0] == (uint32_t)sum);
    tj = time_kernel(ctx, m, "vmax", &pj, zero_first), tc = best_of(c_max, &pc);
    report("max", tj, tc, (int32_t)cell[0] == vmax && (int32_t)ref[0] == vmax);
    tj = time_kernel(ctx, m, "hist", &pj, zero_first), tc = best_of(c_hist, &pc);
    report("hist", tj, tc, !memcmp(cell, ref, sizeof ref));
    tj = time_kernel(ctx, m, "shist", &pj, zero_first), tc = best_of(c_shist, &pc);
    report("shist", tj, tc, !memcmp(cell, ref, sizeof ref));
    free(in);
    free(out);
    free(log);
    ptxjit_module_unload(m);
    ptxjit_destroy(ctx);
    return 0;
}
