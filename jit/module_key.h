/* module_key.h - the cache key of a module: a hash of every input that
 * decides the object file compiled from a PTX text.  Internal to jit/. */
#ifndef PTXJIT_MODULE_KEY_H
#define PTXJIT_MODULE_KEY_H

#include "cache.h"
#include "jit.h"

typedef struct module_key_inputs {
    const void *ptx;
    size_t ptx_len;
    const char *version;   /* ptxjit's release */
    const char *build;     /* jit_build_id: the compiler's sources */
    const char *llvm;      /* the LLVM library in use, "19.1.7" */
    const char *triple, *cpu, *features; /* the target machine */
    const char *options;   /* jit_options: pipeline and codegen settings */
    char llvm_buf[32];
} module_key_inputs;

/* The inputs for compiling ptx with engine j (in->ptx points at ptx). */
void module_key_inputs_of(jit_engine *j, const void *ptx, size_t len, module_key_inputs *in);

void module_key(const module_key_inputs *in, cache_key *out);

/* The key of one compiled kernel of a module: the module's key, the
 * kernel's name and the block shape it is specialized for (0s: generic). */
void kernel_key(const cache_key *module, const char *kernel, const uint32_t ntid[3],
                cache_key *out);

#endif
