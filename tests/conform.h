/* conform.h - the conformance harness: one instruction (or a short PTX
 * sequence) at a time, run through ptxjit over thousands of threads and
 * compared with a C reference written from the ISA text.
 *
 * An op is a PTX body template over a destination and up to four inputs,
 * or a kernel of a PTX file (the nvcc-generated corpus).  The harness
 * builds the inputs (edge values per input width, their combinations,
 * then random values), wraps the template in a kernel, launches it over
 * partial warps converged, inside an odd-lane branch and under an
 * odd-lane guard, and reports every mismatch with its inputs.
 *
 * Every kernel, generated or from a file, has the parameters
 *   (.u64 a, .u64 b, .u64 c, .u64 e, .u64 d, .u32 n)
 * -- four input arrays, the output array, the thread count -- so the same
 * kernels can run on a GPU (tests/gpu/conform_gpu.c) from what
 * conform_emit() writes, and conform_check_gpu() compares the recorded
 * GPU outputs with the references. */
#ifndef PTXJIT_CONFORM_H
#define PTXJIT_CONFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { CONFORM_MAX_IN = 4 };

/* Modes an op runs in (bit set; 0 means all three). */
enum {
    CONFORM_CONVERGED = 1, /* every thread runs the body */
    CONFORM_DIVERGENT = 2, /* only odd threads branch into it */
    CONFORM_GUARDED = 4,   /* the body's instructions are guarded by an odd-thread predicate */
    CONFORM_EVERY_K = 8,   /* with a sweep: every k in every mode (default: k = 0 only
                            * outside converged mode, as masking does not depend on k) */
};

typedef struct conform_op conform_op;

/* The expected destination bits for inputs x[0..3] (zero-extended to 64
 * bits); k is the sweep index (0 without a sweep). */
typedef uint64_t (*conform_ref_fn)(const conform_op *op, unsigned k, const uint64_t *x);
/* Whether got matches want (both truncated to the destination width);
 * NULL means bit equality. */
typedef bool (*conform_same_fn)(const conform_op *op, unsigned k, uint64_t got, uint64_t want);

struct conform_op {
    const char *name;  /* letters, digits and '_': kernel names derive from it */
    /* Template: the body, with %d (destination register), %a %b %c %e
     * (input registers), %k (the sweep text) and %g (the guard prefix,
     * empty outside guarded mode; templates of more than one instruction
     * must place it, single instructions get it in front).  Templates may
     * open a { } scope with their own registers; avoid the names above.
     * NULL: the op is `kernel` of the PTX file `file` instead. */
    const char *ptx;
    const char *file;   /* PTX file (absolute, or relative to the conform_suite dir) */
    const char *kernel; /* the kernel's name in file */
    uint8_t dw;                /* destination width in bytes: 2, 4 or 8 */
    uint8_t w[CONFORM_MAX_IN]; /* input widths in bytes: 2, 4, 8, or 0 = unused */
    conform_ref_fn ref;
    conform_same_fn same;
    /* Extra edge values for each input, on top of the defaults of its width. */
    const uint64_t *edges[CONFORM_MAX_IN];
    uint8_t nedges[CONFORM_MAX_IN];
    unsigned nk;              /* sweep: one kernel per k < nk with %k substituted */
    const char *const *kstr;  /* the text of %k for each k (NULL: k in decimal); it may
                               * use the other placeholders */
    unsigned nrandom;         /* random input sets (0: CONFORM_NRANDOM) */
    unsigned modes;           /* CONFORM_* bits (0: all three; file kernels: converged) */
    const char *target;       /* .target for this op's module (NULL: the suite's) */
    const void *user;         /* free for the reference */
};

enum { CONFORM_NRANDOM = 4000, CONFORM_EDGE_CAP = 12000, CONFORM_BLOCK = 100 };

typedef struct conform_suite {
    const char *name;    /* names the GPU results folder: <gpu dir>/<name>/ */
    const char *version; /* .version of generated modules, e.g. "8.0" */
    const char *target;  /* .target of generated modules, e.g. "sm_80" */
    const char *dir;     /* base for relative op files (NULL: the working directory) */
    unsigned workers;    /* ptxjit worker threads (0: ptxjit's default) */
} conform_suite;

/* Runs every op through ptxjit in its modes against its reference.
 * Returns the number of failures (mismatching threads, and ops that did
 * not load or launch); each is reported on stderr with its inputs. */
int conform_run(const conform_suite *s, const conform_op *ops, size_t nops);

/* GPU cross-check.  conform_emit writes, into dir, each op's PTX, its
 * input arrays and one manifest line per converged kernel (see
 * tests/gpu/conform_gpu.c for the format); GPU runs use CONFORM_GPU_NRANDOM
 * random inputs to keep recorded outputs small.  Returns 0 on success. */
enum { CONFORM_GPU_NRANDOM = 1000 };
int conform_emit(const conform_suite *s, const conform_op *ops, size_t nops, const char *dir);

/* Compares the references with the GPU outputs recorded in
 * <gpu_dir>/<suite name>/<kernel>.out.  Returns the number of mismatches;
 * *checked receives how many kernels had usable results and *stale how
 * many had results for other inputs (reported, not compared).  Returns -1
 * when the folder does not exist. */
int conform_check_gpu(const conform_suite *s, const conform_op *ops, size_t nops, const char *gpu_dir,
                      unsigned *checked, unsigned *stale);

/* ---- the pieces, for harnesses with other needs ---- */

/* Input sets of an op: x[i][t] for input i and thread t; returns the
 * thread count.  Deterministic: seeded by the op's name.  Free with
 * conform_inputs_free. */
size_t conform_inputs(const conform_op *op, unsigned nrandom, uint64_t *x[CONFORM_MAX_IN]);
void conform_inputs_free(uint64_t *x[CONFORM_MAX_IN]);

/* The kernel name of an op for sweep index k and mode (a CONFORM_* bit),
 * written to buf. */
void conform_kernel_name(char *buf, size_t len, const conform_op *op, unsigned k, unsigned mode);

/* The PTX module of a template op (all sweep indices and modes); malloc'd. */
char *conform_module(const conform_suite *s, const conform_op *op);

/* FNV-1a over n bytes, continuing from h (0xcbf29ce484222325 to start):
 * the key of inputs and recordings. */
uint64_t conform_fnv(uint64_t h, const void *p, size_t n);

/* A recorded GPU output, "PJCFOUT1", u64 input hash, u32 n, u32 dw, then
 * n * dw bytes (tests/gpu/conform_gpu.c): the whole file (*len bytes, the
 * outputs at offset 24), or NULL when absent or not such a file. */
char *conform_read_result(const char *path, uint64_t *hash, uint32_t *n, uint32_t *dw, size_t *len);

/* The truncation of v to w bytes. */
uint64_t conform_trunc(uint64_t v, unsigned w);

/* An instruction that must not load, and words its error must contain. */
typedef struct conform_bad {
    const char *instr, *says;
} conform_bad;

/* Loads each instruction alone in a kernel for `target` (registers
 * %r<8> .b32, %rd<8> .b64, %f<8> .f32, %h<8> .b16; %rd1 holds the .u64
 * parameter p) and reports every one that loads, or whose log does not
 * name its line (8) and say `says`.  Returns how many were wrong. */
int conform_expect_load_errors(const char *target, const conform_bad *bad, size_t n);

#endif
