/* vecmath_sse.c - the vector math fallbacks on 4 lanes (vecmath_fallback.h). */
#define FB_VEC __m128
#define FB_LANES 4
#define FB_LOAD _mm_loadu_ps
#define FB_STORE _mm_storeu_ps
#define FB_TABLE rt_vecmath_fallback_b
#include "vecmath_fallback.h"
