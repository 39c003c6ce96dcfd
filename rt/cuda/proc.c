/* proc.c - cuGetProcAddress: every exported entry point by base name,
 * CUDA version and stream flavour, from procs.def.  The variant returned
 * is the newest one whose version does not exceed the one requested; with
 * CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, the per-thread default
 * stream variant where one exists. */
#define PTXJIT_CUDA_NO_MACROS
#include "legacy.h"

#include <string.h>

/* Entry points ptxjit does not implement (stubs.c) have no prototype in
 * the header: any declaration will do for taking their address. */
#define S(sym) CUresult sym(void);
#include "stubs.def"
#undef S

typedef void (*cu_fn)(void);

typedef struct proc {
    const char *name;
    int version;
    bool per_thread;
    cu_fn fn;
} proc;

#define DEFAULT false
#define PER_THREAD true
static const proc procs[] = {
#define P(name, version, kind, sym) {#name, version, kind, (cu_fn)sym},
#include "procs.def"
#undef P
};
#undef DEFAULT
#undef PER_THREAD

/* The best variant of one flavour: newest not newer than version. */
static const proc *best(const char *symbol, int version, bool per_thread, bool *known)
{
    const proc *b = NULL;
    for (size_t i = 0; i < sizeof procs / sizeof procs[0]; i++) {
        const proc *p = &procs[i];
        if (strcmp(p->name, symbol))
            continue;
        *known = true;
        if (p->per_thread == per_thread && p->version <= version && (!b || p->version > b->version))
            b = p;
    }
    return b;
}

CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                             CUdriverProcAddressQueryResult *symbolStatus)
{
    if (!symbol || !pfn ||
        (flags & ~(cuuint64_t)(CU_GET_PROC_ADDRESS_LEGACY_STREAM |
                               CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM)))
        return CUDA_ERROR_INVALID_VALUE;
    *pfn = NULL;
    bool known = false;
    const proc *p = NULL;
    if (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM)
        p = best(symbol, cudaVersion, true, &known);
    if (!p)
        p = best(symbol, cudaVersion, false, &known);
    if (symbolStatus)
        *symbolStatus = p       ? CU_GET_PROC_ADDRESS_SUCCESS
                        : known ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT
                                : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    /* not found is still CUDA_SUCCESS with a NULL function, as the
     * documentation says and NVIDIA's driver 580 does */
    if (p)
        *pfn = (void *)p->fn;
    return CUDA_SUCCESS;
}
