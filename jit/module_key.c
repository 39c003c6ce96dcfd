/* module_key.c - cache keys of modules.  The module's name is not an
 * input: it only labels diagnostics, and a load that hits has none. */
#include "module_key.h"

#include <stdio.h>

void module_key_inputs_of(jit_engine *j, const void *ptx, size_t len, module_key_inputs *in)
{
    unsigned maj, min, patch;
    LLVMGetVersion(&maj, &min, &patch);
    snprintf(in->llvm_buf, sizeof in->llvm_buf, "%u.%u.%u", maj, min, patch);
    in->ptx = ptx;
    in->ptx_len = len;
    in->version = PTXJIT_VERSION;
    in->build = jit_build_id;
    in->llvm = in->llvm_buf;
    in->triple = jit_triple(j);
    in->cpu = jit_cpu(j);
    in->features = jit_features(j);
    in->options = jit_options(j);
}

void module_key(const module_key_inputs *in, cache_key *out)
{
    cache_keyer k;
    cache_key_begin(&k);
    cache_key_add(&k, "ptx", in->ptx, in->ptx_len);
    cache_key_add_str(&k, "version", in->version);
    cache_key_add_str(&k, "build", in->build);
    cache_key_add_str(&k, "llvm", in->llvm);
    cache_key_add_str(&k, "triple", in->triple);
    cache_key_add_str(&k, "cpu", in->cpu);
    cache_key_add_str(&k, "features", in->features);
    cache_key_add_str(&k, "options", in->options);
    cache_key_end(&k, out);
}

void kernel_key(const cache_key *module, const char *kernel, const uint32_t ntid[3],
                cache_key *out)
{
    uint8_t shape[12];
    for (int i = 0; i < 12; i++) /* little-endian, as the entries' integers */
        shape[i] = (uint8_t)(ntid[i / 4] >> (8 * (i % 4)));
    cache_keyer k;
    cache_key_begin(&k);
    cache_key_add(&k, "module", module->b, sizeof module->b);
    cache_key_add_str(&k, "kernel", kernel);
    cache_key_add(&k, "ntid", shape, sizeof shape);
    cache_key_end(&k, out);
}
