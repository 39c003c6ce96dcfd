/* bench_report.c - the table bench_kernels prints (Markdown, so it can go
 * into the README as it is): per kernel each peer's best time, ptxjit's
 * ratios to the peers, the fraction of the machine limit each peer reached,
 * and the geomeans of the ratios. */
#include "bench.h"

#include <math.h>
#include <stdio.h>

static const char *const peer_names[NPEERS] = {"ptxjit", "pocl", "OpenMP"};

static void cell_ms(double s)
{
    if (s > 0 && isfinite(s))
        printf(" %.2f |", s * 1e3);
    else
        printf(" - |");
}

static void cell_ratio(double num, double den)
{
    if (num > 0 && den > 0 && isfinite(num) && isfinite(den))
        printf(" %.2fx |", num / den);
    else
        printf(" - |");
}

/* "OpenMP / pocl / ptxjit % of the limit": stream bandwidth or FMA peak. */
static void cell_limit(const bench_case *c, const bench_machine *m)
{
    double limit = c->flops ? m->fma : bench_stream_limit(m, c->working_set);
    double work = c->flops ? c->flops : c->bytes;
    if (!work || limit <= 0) {
        printf(" - |\n");
        return;
    }
    static const int order[NPEERS] = {PEER_OMP, PEER_OCL, PEER_JIT};
    for (int i = 0; i < NPEERS; i++) {
        double t = c->best[order[i]];
        if (t > 0 && isfinite(t))
            printf("%s%.0f%%", i ? " / " : " ", 100 * work / t / limit);
        else
            printf("%s-", i ? " / " : " ");
    }
    if (c->flops)
        printf(" of %.0f GFLOP/s FMA peak |\n", limit * 1e-9);
    else
        printf(" of %.0f GB/s stream |\n", limit * 1e-9);
}

/* The geomean of ptxjit's time over the peer's, where both ran. */
static void print_geomean(const bench_case *cases, unsigned n, int peer)
{
    double logs = 0;
    unsigned k = 0;
    for (unsigned i = 0; i < n; i++) {
        double jit = cases[i].best[PEER_JIT], other = cases[i].best[peer];
        if (jit > 0 && other > 0 && isfinite(jit) && isfinite(other))
            logs += log(jit / other), k++;
    }
    if (k)
        printf("geomean ptxjit/%s: %.2fx over %u kernels\n", peer_names[peer], exp(logs / k), k);
    else
        printf("geomean ptxjit/%s: -\n", peer_names[peer]);
}

static void print_limits(const bench_machine *m)
{
    printf("machine limits (best round):");
    for (unsigned i = 0; i < m->nstreams; i++) {
        printf(" stream over %.0f MiB:", stream_probe_working_set(m->streams[i].probe) / 1048576.0);
        for (int loop = 0; loop < STREAM_LOOPS; loop++)
            printf(" %s %.1f GB/s%s", stream_loop_names[loop], m->streams[i].bw[loop] * 1e-9,
                   loop + 1 < STREAM_LOOPS ? "," : ";");
    }
    printf(" FMA peak %.0f GFLOP/s\n", m->fma * 1e-9);
}

/* The first (untimed) run: pocl compiles its work-group function there,
 * ptxjit whatever it compiles at launch. */
static void print_first_runs(const bench_case *cases, unsigned n)
{
    printf("first runs (ms, untimed; compiles at first launch included):\n");
    for (unsigned i = 0; i < n; i++) {
        printf("  %s:", cases[i].name);
        for (int p = 0; p < NPEERS; p++)
            if (p != PEER_OCL || cases[i].ocl)
                printf(" %s %.1f", peer_names[p], cases[i].first[p] * 1e3);
        printf("\n");
    }
}

void bench_report(const bench_case *cases, unsigned n, const bench_machine *m)
{
    printf("| kernel | OpenMP ms | pocl ms | ptxjit ms | ptxjit/OpenMP | ptxjit/pocl |"
           " OpenMP / pocl / ptxjit of the limit |\n");
    printf("|---|---|---|---|---|---|---|\n");
    for (unsigned i = 0; i < n; i++) {
        const bench_case *c = &cases[i];
        printf("| %s |", c->name);
        cell_ms(c->best[PEER_OMP]);
        cell_ms(c->ocl ? c->best[PEER_OCL] : 0);
        cell_ms(c->best[PEER_JIT]);
        cell_ratio(c->best[PEER_JIT], c->best[PEER_OMP]);
        cell_ratio(c->best[PEER_JIT], c->ocl ? c->best[PEER_OCL] : 0);
        cell_limit(c, m);
    }
    printf("\n");
    print_geomean(cases, n, PEER_OMP);
    print_geomean(cases, n, PEER_OCL);
    print_limits(m);
    print_first_runs(cases, n);
}
