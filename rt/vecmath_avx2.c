/* vecmath_avx2.c - the vector math fallbacks on 8 lanes (vecmath_fallback.h),
 * compiled with -mavx2: called only where the JIT targets AVX2. */
#define FB_VEC __m256
#define FB_LANES 8
#define FB_LOAD _mm256_loadu_ps
#define FB_STORE _mm256_storeu_ps
#define FB_TABLE rt_vecmath_fallback_d
#include "vecmath_fallback.h"
