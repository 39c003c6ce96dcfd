/* specialize.h - when a launch gets code compiled for its block shape.
 *
 * Knowing the block shape turns %ntid into constants and %tid into
 * divisions by constants (or none), and lets lowering prove address
 * strides.  A kernel keeps a generic version for any shape and gets at
 * most SPEC_MAX_SHAPES specialized ones; PTXJIT_SPECIALIZE picks the
 * policy.  Internal to jit/. */
#ifndef PTXJIT_SPECIALIZE_H
#define PTXJIT_SPECIALIZE_H

#include <stdbool.h>
#include <stdint.h>

#define SPEC_MAX_SHAPES 4
#define SPEC_TRACK 8      /* shapes whose launches are counted, per kernel */

typedef enum spec_mode {
    SPEC_AUTO,            /* unset, "1" or "auto": when it pays (spec_wanted) */
    SPEC_OFF,             /* "0": generic code only */
    SPEC_ALWAYS,          /* "always": every shape at its first launch */
} spec_mode;

/* PTXJIT_SPECIALIZE; an unknown value warns once on stderr and is auto. */
spec_mode spec_mode_from_env(void);

/* Time the generic code has spent running each shape of one kernel. */
typedef struct spec_history {
    uint32_t shape[SPEC_TRACK][3];
    double seconds[SPEC_TRACK];
    uint32_t n;
} spec_history;

/* Whether a launch of block shape `block` should get code specialized for
 * it, when none exists yet and a slot is free.  first: the kernel has no
 * code at all yet; compile_s: what compiling it took (0: unknown). */
bool spec_wanted(spec_mode mode, const spec_history *h, const uint32_t block[3], bool first,
                 double compile_s);

/* Counts seconds of generic code running a launch of block shape. */
void spec_record(spec_history *h, const uint32_t block[3], double seconds);

#endif
