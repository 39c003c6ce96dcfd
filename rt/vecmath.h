/* vecmath.h - the fallbacks of the vector math routines (vecmath.c): per
 * ISA (libmvec's letters b: SSE, d: AVX2, e: AVX-512), the address of each
 * routine of PTXJIT_VECMATH in its order. */
#ifndef PTXJIT_RT_VECMATH_H
#define PTXJIT_RT_VECMATH_H

#include "ptxjit/abi.h"

extern void *const rt_vecmath_fallback_b[];
extern void *const rt_vecmath_fallback_d[];
extern void *const rt_vecmath_fallback_e[];

#endif
