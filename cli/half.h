/* half.h - IEEE binary16 (f16) and bfloat16 (bf16) conversions.
 *
 * Narrowing conversions go straight from double (no intermediate float, so
 * there is no double rounding) with round-to-nearest-even.  They handle
 * signed zeros, subnormal results, overflow (to infinity of the right sign,
 * as IEEE round-to-nearest requires: f16 65520 and above become inf) and
 * NaN (kept a quiet NaN with the sign and the top payload bits).
 *
 * Widening conversions to float are exact: every f16 and bf16 value,
 * subnormals included, is a float value. */
#ifndef PTXJIT_HALF_H
#define PTXJIT_HALF_H

#include <stdint.h>

/* double -> f16 bits (1 sign, 5 exponent, 10 fraction bits). */
uint16_t half_f16_from_double(double x);
/* f16 bits -> float, exactly. */
float half_f16_to_float(uint16_t h);

/* double -> bf16 bits (1 sign, 8 exponent, 7 fraction bits). */
uint16_t half_bf16_from_double(double x);
/* bf16 bits -> float, exactly. */
float half_bf16_to_float(uint16_t h);

#endif
