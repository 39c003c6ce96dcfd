/* vecmath.c - binds the vector math names of PTXJIT_VECMATH (glibc
 * libmvec's names and vector ABI) for the JIT: to libmvec's routines when
 * the C library has them, otherwise to loops over the scalar libm routine
 * with the same ABI, so that compiled code always links.  (LLJIT would
 * also search the process, but libmvec is not loaded unless linked.) */
#include "launch.h"

#include <dlfcn.h>
#include <immintrin.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define FALLBACKS(fn)                                                                              \
    static __m128 fb_b_##fn(__m128 x)                                                              \
    {                                                                                              \
        float v[4];                                                                                \
        _mm_storeu_ps(v, x);                                                                       \
        for (int i = 0; i < 4; i++)                                                                \
            v[i] = fn(v[i]);                                                                       \
        return _mm_loadu_ps(v);                                                                    \
    }                                                                                              \
    __attribute__((target("avx2"))) static __m256 fb_d_##fn(__m256 x)                              \
    {                                                                                              \
        float v[8];                                                                                \
        _mm256_storeu_ps(v, x);                                                                    \
        for (int i = 0; i < 8; i++)                                                                \
            v[i] = fn(v[i]);                                                                       \
        return _mm256_loadu_ps(v);                                                                 \
    }                                                                                              \
    __attribute__((target("avx512f"))) static __m512 fb_e_##fn(__m512 x)                           \
    {                                                                                              \
        float v[16];                                                                               \
        _mm512_storeu_ps(v, x);                                                                    \
        for (int i = 0; i < 16; i++)                                                               \
            v[i] = fn(v[i]);                                                                       \
        return _mm512_loadu_ps(v);                                                                 \
    }
PTXJIT_VECMATH(FALLBACKS)
#undef FALLBACKS

enum { NFUNCS = 0
#define X(fn) +1
       PTXJIT_VECMATH(X)
#undef X
};

static rt_symbol syms[3 * NFUNCS];
static char names[3 * NFUNCS][32];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void bind(void)
{
    /* RTLD_NODELETE: the addresses stay valid for the life of the process.
     * PTXJIT_NO_LIBMVEC=1 binds the fallbacks (tested that way too). */
    const char *off = getenv("PTXJIT_NO_LIBMVEC");
    void *lib = off && *off == '1' ? NULL : dlopen("libmvec.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    size_t i = 0;
#define BIND(fn, isa, lanes)                                                                       \
    snprintf(names[i], sizeof names[i], "_ZGV" #isa "N" #lanes "v_%s", #fn);                        \
    syms[i] = (rt_symbol){names[i], lib ? dlsym(lib, names[i]) : NULL};                             \
    if (!syms[i].addr)                                                                             \
        syms[i].addr = (void *)fb_##isa##_##fn;                                                    \
    i++;
#define X(fn) BIND(fn, b, 4) BIND(fn, d, 8) BIND(fn, e, 16)
    PTXJIT_VECMATH(X)
#undef X
#undef BIND
    if (lib)
        dlclose(lib);
}

const rt_symbol *rt_vecmath_symbols(size_t *n)
{
    pthread_once(&once, bind);
    *n = 3 * NFUNCS;
    return syms;
}
