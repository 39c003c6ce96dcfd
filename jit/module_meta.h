/* module_meta.h - what a compiled module needs besides its object file to
 * be loaded and launched: kernels (symbols, parameter layout, shared
 * memory, launch bounds) and exported variables.  Plain data with owned
 * strings, so that the cache can store it next to the object and a cache
 * hit needs no PTX parse.  Internal to jit/ and cache/. */
#ifndef PTXJIT_MODULE_META_H
#define PTXJIT_MODULE_META_H

#include "ptxjit/ptxjit.h"

typedef struct mm_kernel {
    ptxjit_kernel_info info; /* info.name, info.params and their strings are owned */
    char *symbol;            /* the warp function in the object */
} mm_kernel;

typedef struct mm_global {
    char *name;              /* PTX name */
    char *symbol;            /* in the object */
    uint64_t size;
    bool is_const;
} mm_global;

typedef struct module_meta {
    mm_kernel *kernels;
    uint32_t nkernels;
    mm_global *globals;
    uint32_t nglobals;
} module_meta;

void module_meta_free(module_meta *mm);

/* Fills mm from a successful lowering; -1 when out of memory or a
 * parameter is too large. */
struct lower_result;
int module_meta_from_lower(const struct lower_result *lr, module_meta *mm);

#endif
