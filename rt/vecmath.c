/* vecmath.c - binds the vector math names of PTXJIT_VECMATH (glibc
 * libmvec's names and vector ABI) for the JIT: to libmvec's routines when
 * the C library has them, otherwise to loops over the scalar libm routine
 * with the same ABI, so that compiled code always links.  (LLJIT would
 * also search the process, but libmvec is not loaded unless linked.) */
#include "launch.h"
#include "vecmath.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

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
    size_t i = 0, f = 0; /* f: the routine's place in PTXJIT_VECMATH */
#define BIND(fn, isa, lanes)                                                                       \
    snprintf(names[i], sizeof names[i], "_ZGV" #isa "N" #lanes "v_%s", #fn);                        \
    syms[i] = (rt_symbol){names[i], lib ? dlsym(lib, names[i]) : NULL};                             \
    if (!syms[i].addr)                                                                             \
        syms[i].addr = rt_vecmath_fallback_##isa[f];                                               \
    i++;
#define X(fn) BIND(fn, b, 4) BIND(fn, d, 8) BIND(fn, e, 16) f++;
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
