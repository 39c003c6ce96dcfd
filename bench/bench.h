/* bench.h - the cases bench_kernels times: one kernel of the table as each
 * peer runs it (ptxjit on the nvcc PTX of the fixture corpus, pocl on the
 * OpenCL C twin, the C + OpenMP baseline), the results they leave to be
 * compared, and the machine limit the kernel is measured against. */
#ifndef BENCH_H
#define BENCH_H

#include "bench_limits.h"
#include "ocl_peer.h"
#include "ptxjit/ptxjit.h"

enum { PEER_JIT, PEER_OCL, PEER_OMP, NPEERS };

/* What the bench needs to set a case up. */
typedef struct bench_env {
    ptxjit_ctx *ctx;
    ocl_peer *ocl;      /* NULL: no pocl column */
    const char *corpus; /* directory of the PTX fixtures */
    double scale;       /* 1: the default problem sizes */
    struct {            /* modules loaded so far, compiled with the cache off */
        char file[64];
        ptxjit_module *module;
        double seconds;
    } modules[8];
    unsigned nmodules;
} bench_env;

typedef enum out_type { OUT_F32, OUT_U32 } out_type;

typedef struct bench_case {
    char name[64]; /* the table's row */
    /* ptxjit: the launch, with its parameter buffer */
    const ptxjit_kernel *kernel;
    ptxjit_launch_cfg cfg;
    _Alignas(16) unsigned char params[64];
    /* pocl: NULL when pocl is absent or the kernel has no twin */
    ocl_task *ocl;
    /* C + OpenMP: fn(args) */
    void (*omp)(const void *args);
    _Alignas(16) unsigned char omp_args[64];
    /* each peer's result: count elements of type at out[peer] */
    out_type type;
    size_t count;
    void *out[NPEERS];
    /* the limit: bytes moved per run (counted as bench_limits.h says) in
     * a working set (bandwidth), or flops per run (FMA peak); 0 when not
     * measured against one */
    double bytes, flops;
    size_t working_set;
    /* seconds: the first run and the best of the timed ones */
    double first[NPEERS], best[NPEERS];
    void *mem[8]; /* freed with the case */
    unsigned nmem;
} bench_case;

/* Sets a case up (ptxjit kernel loaded, pocl task created, data
 * allocated and filled); exits on failure. */
typedef void (*bench_setup)(bench_case *c, bench_env *env);
extern const bench_setup bench_setups[];
extern const unsigned bench_ncases;
void bench_case_free(bench_case *c);

/* The machine limits seen in the run: stream bandwidth per working set
 * (bytes per second, the best round) and the FMA peak (FLOP/s). */
typedef struct bench_machine {
    struct {
        stream_probe *probe;
        double bw[STREAM_LOOPS];
    } streams[4];
    unsigned nstreams;
    double fma;
} bench_machine;

/* The best stream bandwidth measured over working_set bytes (of any
 * loop); 0 if none. */
double bench_stream_limit(const bench_machine *m, size_t working_set);

/* Prints the table of the timed rounds: per kernel each peer's best time,
 * the ratios, the fraction of the machine limit reached, the geomeans. */
void bench_report(const bench_case *cases, unsigned n, const bench_machine *m);
/* Empty-kernel launch + synchronize against an empty OpenMP parallel for,
 * best of rounds. */
void bench_launch_overhead(bench_env *env, int rounds);
/* Cold (cache off) and warm (cache hit) load + first launch of a module. */
void bench_compile_times(bench_env *env);

/* A kernel of a corpus module (file loaded once per env); exits if absent. */
const ptxjit_kernel *bench_kernel(bench_env *env, const char *file, const char *name);
/* The text of corpus file (free() it); exits if it cannot be read. */
char *bench_read_corpus(const bench_env *env, const char *file, size_t *len);
/* Launches k (cfg), exits on failure. */
void bench_launch(bench_env *env, const ptxjit_kernel *k, const ptxjit_launch_cfg *cfg);

#endif
