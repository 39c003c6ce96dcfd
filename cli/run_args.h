/* run_args.h - the argument and buffer layer of `ptxjit run`.
 *
 *   ptxjit run FILE.ptx [-k NAME] [-g X[,Y[,Z]]] [-b X[,Y[,Z]]] [--shared BYTES]
 *              [--arg SPEC]... [--out N=PATH]... [--print N[:COUNT]]...
 *              [--repeat R] [--stats]
 *
 * Typical use by the command:
 *
 *   runargs_arg args[n];                        one per --arg, in order
 *   runargs_parse_arg(spec_i, i, &args[i], ...)  syntax, types, ranges
 *   runargs_check_kernel(kernel, args, n, ...)   count and sizes vs .param list
 *   runargs_materialize(&args[i], ...)           allocate + initialize buffers
 *   runargs_pack_params(kernel, args, n, ...)    CUDA-layout parameter block
 *   ... launch ...
 *   runargs_check_ref() for each --out / --print, then
 *   runargs_write_buffer() / runargs_print_buffer()
 *   runargs_free(&args[i])
 *
 * Error convention: functions returning int return 0 on success and -1 on
 * failure, after writing a one-line message without a trailing newline or an
 * "error:" prefix to err[0..errlen) (err may be NULL when errlen is 0).
 * Messages name the option and the offending text, e.g.
 *   --arg 2 (u16:5) is 2 bytes but parameter 'n' is .u32 (4 bytes)
 *
 * ---- --arg SPEC ----
 *
 * Scalars: TYPE:VALUE.  Buffers: TYPE[N]:INIT, passed as an 8-byte pointer.
 * TYPE is one of u8 s8 u16 s16 u32 s32 u64 s64 f16 bf16 f32 f64.
 *
 * Integer VALUEs are decimal or 0x-prefixed hexadecimal with an optional
 * sign; no whitespace.  Unsigned types reject any '-'.  Decimal values must
 * lie in the type's range (s8: -128..127).  An unsigned hexadecimal value
 * for a signed type is a bit pattern of the type's width (s8:0xff is -1;
 * s8:0x100 is out of range); a signed one (-0x80) follows the decimal rule.
 *
 * Float VALUEs use strtod syntax (1e-3, -2.5, 0x1p-4, inf, nan).  A finite
 * value whose magnitude rounds to infinity in TYPE (f16:70000, f32:1e39,
 * f64:1e400) is an error; underflow to subnormals or zero is not.  f32 is
 * parsed with strtof (correctly rounded); f16/bf16 are parsed to double and
 * rounded to nearest-even (see half.h).
 *
 * N is a positive integer (decimal or 0x hex) with N * sizeof(TYPE) at most
 * RUNARGS_MAX_BUFFER_BYTES.  INIT is one of
 *   zeros        all bytes zero
 *   fill=V       every element V (VALUE syntax above)
 *   iota         element i is i converted to TYPE: integer types wrap modulo
 *                2^bits, floats round to nearest-even (f16 above 2048 loses
 *                integers, above 65519 is inf)
 *   rand[=SEED]  deterministic: element i comes from the i-th output of
 *                splitmix64 started at SEED (RUNARGS_DEFAULT_SEED when
 *                omitted), so the contents depend only on TYPE and SEED and
 *                a longer buffer extends a shorter one.  Integer types take
 *                the low bits (uniform over the type's range); f64 is
 *                uniform in [0,1) on a 2^-53 grid, f32 on 2^-24, f16 on
 *                2^-11, bf16 on 2^-8 (all exactly representable, never 1).
 *                Two buffers with the same TYPE and SEED are identical.
 *   file=PATH    the raw little-endian bytes of PATH, whose size must be
 *                exactly N * sizeof(TYPE); read by runargs_materialize.
 *
 * ---- other options ----
 *
 * -g/-b X[,Y[,Z]]: runargs_parse_dim3.  --out N=PATH / --print N[:COUNT]:
 * runargs_parse_out / runargs_parse_print, N the 0-based --arg index; it
 * must name a buffer (runargs_check_ref).  --shared / --repeat:
 * runargs_parse_u64.
 */
#ifndef PTXJIT_RUN_ARGS_H
#define PTXJIT_RUN_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ptxjit/ptxjit.h"

/* ---- element types ---- */

typedef enum runargs_type {
    RUNARGS_U8, RUNARGS_S8, RUNARGS_U16, RUNARGS_S16,
    RUNARGS_U32, RUNARGS_S32, RUNARGS_U64, RUNARGS_S64,
    RUNARGS_F16, RUNARGS_BF16, RUNARGS_F32, RUNARGS_F64,
    RUNARGS_TYPE_COUNT
} runargs_type;

/* "u8", "bf16", ...; "?" for an invalid value. */
const char *runargs_type_name(runargs_type t);
/* Size in bytes (1, 2, 4 or 8); 0 for an invalid value. */
size_t runargs_type_size(runargs_type t);
/* Looks up s[0..n); returns false when it is not a type name. */
bool runargs_type_lookup(const char *s, size_t n, runargs_type *out);

/* ---- --arg ---- */

typedef enum runargs_init {
    RUNARGS_INIT_NONE,  /* a scalar */
    RUNARGS_INIT_ZEROS,
    RUNARGS_INIT_FILL,
    RUNARGS_INIT_IOTA,
    RUNARGS_INIT_RAND,
    RUNARGS_INIT_FILE,
} runargs_init;

#define RUNARGS_DEFAULT_SEED UINT64_C(0x5eed5eed5eed5eed)
#define RUNARGS_MAX_BUFFER_BYTES (UINT64_C(1) << 40)
#define RUNARGS_BUFFER_ALIGN 64

typedef struct runargs_arg {
    char *spec;          /* copy of the SPEC text, for messages */
    size_t index;        /* 0-based position among the --arg options */
    runargs_type type;
    bool is_buffer;
    /* scalar: the value's bits, zero-extended (s8 -3 is 0xfd, f32 1.0 is
     * 0x3f800000); passed little-endian in runargs_type_size(type) bytes */
    uint64_t scalar;
    /* buffer: */
    uint64_t count;      /* N elements */
    runargs_init init;
    uint64_t fill;       /* RUNARGS_INIT_FILL: the element's bits, as scalar */
    uint64_t seed;       /* RUNARGS_INIT_RAND */
    char *path;          /* RUNARGS_INIT_FILE */
    void *data;          /* NULL until runargs_materialize, then device memory
                          * (ptxjit_mem_alloc: page aligned, guard pages) followed
                          * by zeros up to the next multiple of RUNARGS_BUFFER_ALIGN */
    size_t bytes;        /* count * type size */
} runargs_arg;

/* Parses VALUE for a scalar of type t into its bits (see runargs_arg.scalar).
 * The message names the value and, for range errors, the type's range, e.g.
 * "value '300' is out of range for u8 (0 to 255)". */
int runargs_parse_scalar(runargs_type t, const char *value, uint64_t *bits, char *err,
                         size_t errlen);

/* Parses --arg number `index` (0-based).  *out is overwritten (it need not be
 * initialized); on success it owns copies of the strings and must be released
 * with runargs_free; on failure it holds nothing.  Messages start with
 * "--arg INDEX (SPEC): ". */
int runargs_parse_arg(const char *spec, size_t index, runargs_arg *out, char *err,
                      size_t errlen);

/* Allocates and initializes a buffer argument's data (a no-op for scalars and
 * for buffers already materialized).  Fails on allocation failure and on
 * file= problems (unreadable, or a size other than N * sizeof(TYPE): the
 * message states both sizes). */
int runargs_materialize(runargs_arg *a, char *err, size_t errlen);

/* Releases what a owns and zeroes it; safe on a zeroed or freed arg. */
void runargs_free(runargs_arg *a);

/* Bytes the argument occupies in the parameter block: the scalar's size, or 8
 * (a pointer) for a buffer. */
size_t runargs_arg_param_size(const runargs_arg *a);

/* ---- kernel parameters ---- */

/* Kernels are described by ptxjit_kernel_info (ptxjit_kernel_info_of), which
 * a module loaded from the compiled-code cache has without any parse. */

/* Size and alignment of a kernel .param as the library laid it out (size =
 * type size x vector width x product of array dims; alignment = .align when
 * given, else the element's natural alignment).  Returns -1 for a parameter
 * without a size (an unsized array [] or no type). */
int runargs_param_layout(const ptxjit_param_info *param, uint64_t *size, uint32_t *align);

/* Writes the parameter's type as in messages: ".u32", ".b8[16]", ".v2.f32". */
void runargs_param_type_str(const ptxjit_param_info *param, char *buf, size_t len);

/* Checks the arguments against kernel->params: their count, then for each
 * its size (buffers need an 8-byte parameter).  Messages:
 *   kernel 'vadd' takes 3 parameters (vadd_param_0, vadd_param_1, vadd_param_2), 2 --arg given
 *   --arg 2 (u16:5) is 2 bytes but parameter 'n' is .u32 (4 bytes)
 *   --arg 0 (f32[4]:zeros) is a buffer (an 8-byte pointer) but parameter 'n' is .u32 (4 bytes)
 *   parameter 'p' of kernel 'k' has an unsized array type .b8[] */
int runargs_check_kernel(const ptxjit_kernel_info *kernel, const runargs_arg *args, size_t nargs,
                         char *err, size_t errlen);

/* Builds the kernel parameter block laid out like CUDA's: parameter i at
 * its offset in kernel->params (the first offset at or after the end of
 * parameter i-1 that is a multiple of its alignment), padding zeroed; scalars as their
 * little-endian bits, buffers as the 8-byte address of their data.  Runs
 * runargs_check_kernel first, and needs every buffer materialized.  On
 * success *buf (malloc'd, free() it; never NULL, even for no parameters)
 * holds *size bytes: the end of the last parameter, not padded further.  When
 * offsets is non-NULL, offsets[i] receives parameter i's offset (it must have
 * room for nargs entries). */
int runargs_pack_params(const ptxjit_kernel_info *kernel, const runargs_arg *args, size_t nargs,
                        void **buf, size_t *size, size_t *offsets, char *err, size_t errlen);

/* ---- -g / -b ---- */

typedef enum runargs_dim_kind { RUNARGS_DIM_GRID, RUNARGS_DIM_BLOCK } runargs_dim_kind;

#define RUNARGS_DIM_MAX UINT32_C(2147483647)  /* any component */
#define RUNARGS_GRID_YZ_MAX UINT32_C(65535)   /* grid y and z */
#define RUNARGS_BLOCK_THREADS_MAX 1024        /* block x*y*z */

/* Parses "X[,Y[,Z]]": decimal integers from 1 to RUNARGS_DIM_MAX, missing
 * components 1.  A grid's y and z are at most RUNARGS_GRID_YZ_MAX; a block
 * has at most RUNARGS_BLOCK_THREADS_MAX threads.  Messages start with
 * "-g 'TEXT': " or "-b 'TEXT': ". */
int runargs_parse_dim3(const char *s, runargs_dim_kind kind, uint32_t out[3], char *err,
                       size_t errlen);

/* ---- integers for --shared, --repeat, counts ---- */

/* Parses a decimal or 0x-hex integer in [min, max] (no sign, no spaces).
 * Messages: "'x' is not a non-negative integer", "'0' is out of range (1 to
 * 100)"; the caller adds the option name. */
int runargs_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out, char *err,
                      size_t errlen);

/* ---- --out / --print ---- */

typedef struct runargs_out {
    size_t index;        /* --arg index */
    const char *path;    /* points into the parsed string */
} runargs_out;

/* Parses "N=PATH" (PATH non-empty, may contain '='). */
int runargs_parse_out(const char *s, runargs_out *out, char *err, size_t errlen);

typedef struct runargs_print {
    size_t index;        /* --arg index */
    uint64_t count;      /* elements to print; 0 = all */
} runargs_print;

/* Parses "N" or "N:COUNT" (COUNT >= 1). */
int runargs_parse_print(const char *s, runargs_print *out, char *err, size_t errlen);

/* Checks that --arg `index` exists and is a buffer, for option `opt`
 * ("--out", "--print").  Messages:
 *   --out 3: there is no --arg 3 (3 --arg given)
 *   --print 1: --arg 1 (u32:7) is a scalar, not a buffer */
int runargs_check_ref(const char *opt, size_t index, const runargs_arg *args, size_t nargs,
                      char *err, size_t errlen);

/* Formats one element (elem points at its little-endian bytes): integers in
 * decimal, f32 with %.9g, f64 with %.17g, f16 with %.5g and bf16 with %.4g
 * of the value converted to float (each the digits that identify the value
 * uniquely).  Returns what snprintf returns. */
int runargs_format_elem(char *buf, size_t len, runargs_type t, const void *elem);

/* Prints the first `count` elements of a materialized buffer (0 or more than
 * N: all of them):
 *
 *   arg 2 (f32[10]):                 or, when fewer than N:  arg 2 (f32[10]), first 4:
 *   0:   0 0.5   1 1.5   2 2.5   3 3.5
 *   8:   4 4.5
 *
 * eight per line, each line led by the index of its first element, values
 * right-aligned to the widest one printed.  Returns -1 (printing nothing)
 * for a scalar or an unmaterialized buffer, else 0. */
int runargs_print_buffer(FILE *f, const runargs_arg *a, uint64_t count);

/* Writes a materialized buffer's N * sizeof(TYPE) bytes to path (created or
 * truncated).  Message: "cannot write 'PATH': REASON". */
int runargs_write_buffer(const runargs_arg *a, const char *path, char *err, size_t errlen);

#endif
