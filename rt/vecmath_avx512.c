/* vecmath_avx512.c - the vector math fallbacks on 16 lanes
 * (vecmath_fallback.h), compiled with -mavx512f: called only where the JIT
 * targets AVX-512. */
#define FB_VEC __m512
#define FB_LANES 16
#define FB_LOAD _mm512_loadu_ps
#define FB_STORE _mm512_storeu_ps
#define FB_TABLE rt_vecmath_fallback_e
#include "vecmath_fallback.h"
