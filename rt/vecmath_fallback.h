/* vecmath_fallback.h - libmvec's vector functions as loops over the scalar
 * libm routine, for a C library without libmvec (vecmath.c binds them).
 * Included by one file per vector ISA, each compiled for its ISA
 * (rt/CMakeLists.txt): clang passes a vector argument as the file's target
 * has it, whatever a function's target attribute says, so a 512-bit vector
 * reached a fallback of a plain file in memory where the compiled code
 * passes it in zmm0 (wrong results under PTXJIT_NO_LIBMVEC=1).
 *
 * The including file defines FB_VEC (the vector type), FB_LANES, FB_LOAD,
 * FB_STORE and FB_TABLE (the name of the table of addresses). */
#include <immintrin.h>
#include <math.h>

#include "vecmath.h"

#define FALLBACK(fn)                                                                               \
    static FB_VEC fb_##fn(FB_VEC x)                                                                \
    {                                                                                              \
        float v[FB_LANES];                                                                         \
        FB_STORE(v, x);                                                                            \
        for (int i = 0; i < FB_LANES; i++)                                                         \
            v[i] = fn(v[i]);                                                                       \
        return FB_LOAD(v);                                                                         \
    }
PTXJIT_VECMATH(FALLBACK)
#undef FALLBACK

#define ADDRESS(fn) (void *)fb_##fn,
void *const FB_TABLE[] = {PTXJIT_VECMATH(ADDRESS)};
#undef ADDRESS
