/* fref.h - an exact reference for IEEE-style floating point, written for
 * the conformance tests independently of ptxjit's lowering: values are
 * decoded to integer significands, every operation is carried out exactly
 * (128-bit integers, with a sticky bit standing for discarded nonzero
 * bits), and the result is rounded once to the destination format in the
 * requested direction. */
#ifndef PTXJIT_FREF_H
#define PTXJIT_FREF_H

#include <stdbool.h>
#include <stdint.h>

/* Formats: bits of precision (with the implicit bit), exponent bits, and
 * whether the all-ones exponent encodes inf/NaN (IEEE) or, as in e4m3,
 * only the all-ones pattern is NaN and there is no infinity. */
typedef enum { FR_F16, FR_BF16, FR_TF32, FR_F32, FR_F64, FR_E4M3, FR_E5M2, FR_NFMT } fr_fmt;

/* Rounding: to nearest even, toward zero, down, up, to nearest away. */
typedef enum { FR_RN, FR_RZ, FR_RM, FR_RP, FR_RNA } fr_mode;

/* An exact value: cls 0 zero, 1 finite, 2 inf, 3 NaN.  Finite values are
 * (-1)^sign * (m + (sticky ? a fraction in (0,1) : 0)) * 2^e. */
typedef struct fr_val {
    int cls, sign;
    unsigned __int128 m;
    int e;
    bool sticky;
} fr_val;

unsigned fr_width(fr_fmt f);     /* storage bits */
fr_val fr_decode(fr_fmt f, uint64_t bits);
/* Rounds exactly once; NaN results are returned as the format's
 * canonical NaN (all ones, positive).  Formats without infinity (e4m3)
 * overflow to NaN here; cvt's .satfinite is the caller's business. */
uint64_t fr_round(fr_fmt f, fr_val v, fr_mode mode);
/* The largest finite value's encoding with the given sign. */
uint64_t fr_max_finite(fr_fmt f, int sign);
uint64_t fr_canonical_nan(fr_fmt f);
bool fr_is_nan(fr_fmt f, uint64_t bits);
bool fr_is_subnormal(fr_fmt f, uint64_t bits);

/* Exact arithmetic (IEEE special-value rules; the zero sign of an exact
 * zero sum depends on the rounding mode, hence the mode argument). */
fr_val fr_add(fr_val a, fr_val b, fr_mode mode);
fr_val fr_mul(fr_val a, fr_val b);
fr_val fr_fma(fr_val a, fr_val b, fr_val c, fr_mode mode);
fr_val fr_div(fr_val a, fr_val b);
fr_val fr_sqrt(fr_val a);
fr_val fr_from_int(int64_t v, bool is_signed);
fr_val fr_neg(fr_val a);

/* Rounds to an integral value in the given direction (exact result,
 * keeps the sign of a zero). */
fr_val fr_rint(fr_val a, fr_mode mode);
/* Converts to an integer of `bits` bits, rounding in the given direction,
 * saturating, NaN -> 0. */
uint64_t fr_to_int(fr_val a, fr_mode mode, unsigned bits, bool is_signed);

/* Convenience: double value of an exact finite value (for error bounds). */
long double fr_to_ld(fr_fmt f, uint64_t bits);

#endif
