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
    bool managed;
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

/* The metadata and the object file as one byte string, and back
 * (module_meta_io.c).  pack: -1 when out of memory.  unpack: -1 with the
 * problem in why when buf is not a well-formed packing; *obj then points
 * into buf. */
int module_meta_pack(const module_meta *mm, const void *obj, size_t objsize, void **out,
                     size_t *outlen);
int module_meta_unpack(const void *buf, size_t len, module_meta *mm, const void **obj,
                       size_t *objsize, char *why, size_t whylen);

#endif
