/* vecmath.c - binds the vector math names of PTXJIT_VECMATH (glibc
 * libmvec's names and vector ABI) for the JIT: to libmvec's routines when
 * the C library has them, otherwise to loops over the scalar libm routine
 * with the same ABI, so that compiled code always links. */
#include "launch.h"

#include <dlfcn.h>
#include <immintrin.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>

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
    }
PTXJIT_VECMATH(FALLBACKS)
#undef FALLBACKS

enum { NFUNCS = 0
#define X(fn) +1
       PTXJIT_VECMATH(X)
#undef X
};

static rt_symbol syms[2 * NFUNCS];
static char names[2 * NFUNCS][32];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void bind(void)
{
    /* RTLD_NODELETE: the addresses stay valid for the life of the process */
    void *lib = dlopen("libmvec.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    size_t i = 0;
#define X(fn)                                                                                      \
    snprintf(names[i], sizeof names[i], "_ZGVbN4v_%s", #fn);                                        \
    syms[i] = (rt_symbol){names[i], lib ? dlsym(lib, names[i]) : NULL};                             \
    if (!syms[i].addr)                                                                             \
        syms[i].addr = (void *)fb_b_##fn;                                                          \
    i++;                                                                                           \
    snprintf(names[i], sizeof names[i], "_ZGVdN8v_%s", #fn);                                        \
    syms[i] = (rt_symbol){names[i], lib ? dlsym(lib, names[i]) : NULL};                             \
    if (!syms[i].addr)                                                                             \
        syms[i].addr = (void *)fb_d_##fn;                                                          \
    i++;
    PTXJIT_VECMATH(X)
#undef X
    if (lib)
        dlclose(lib);
}

const rt_symbol *rt_vecmath_symbols(size_t *n)
{
    pthread_once(&once, bind);
    *n = 2 * NFUNCS;
    return syms;
}
