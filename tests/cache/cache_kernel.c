/* cache_kernel.c - see cache_kernel.h. */
#define _GNU_SOURCE
#include "cache_kernel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *ck_ptx(uint32_t k, uint32_t bias)
{
    char *s = NULL;
    int n = asprintf(&s,
        ".version 7.0\n.target sm_80\n.address_size 64\n"
        ".visible .global .align 4 .u32 bias = %u;\n"
        ".visible .entry scale(.param .u64 out, .param .u64 in, .param .u32 n)\n"
        "{\n"
        "  .reg .b32 %%r<8>; .reg .b64 %%rd<8>; .reg .pred %%p;\n"
        "  ld.param.u64 %%rd1, [out];\n"
        "  ld.param.u64 %%rd2, [in];\n"
        "  ld.param.u32 %%r1, [n];\n"
        "  mov.u32 %%r2, %%tid.x;\n"
        "  mov.u32 %%r3, %%ctaid.x;\n"
        "  mov.u32 %%r4, %%ntid.x;\n"
        "  mad.lo.u32 %%r2, %%r3, %%r4, %%r2;\n"
        "  setp.ge.u32 %%p, %%r2, %%r1;\n"
        "  @%%p bra DONE;\n"
        "  mul.wide.u32 %%rd3, %%r2, 4;\n"
        "  add.u64 %%rd4, %%rd2, %%rd3;\n"
        "  ld.global.u32 %%r5, [%%rd4];\n"
        "  mad.lo.u32 %%r5, %%r5, %u, %%r2;\n"
        "  ld.global.u32 %%r6, [bias];\n"
        "  add.u32 %%r5, %%r5, %%r6;\n"
        "  add.u64 %%rd5, %%rd1, %%rd3;\n"
        "  st.global.u32 [%%rd5], %%r5;\n"
        "DONE:\n"
        "  ret;\n"
        "}\n",
        bias, k);
    return n < 0 ? NULL : s;
}

uint32_t ck_check(ptxjit_ctx *ctx, const ptxjit_module *m, uint32_t k, uint32_t bias)
{
    enum { N = 300 };
    const ptxjit_kernel *kern = ptxjit_kernel_get(m, "scale");
    const ptxjit_global_info *g = ptxjit_global_get(m, "bias");
    if (!kern || !g || g->size != 4 || *(uint32_t *)g->addr != bias)
        return N + 1;
    uint32_t in[N], out[N];
    for (uint32_t i = 0; i < N; i++) {
        in[i] = i * 2654435761u;
        out[i] = 0xdeadbeef;
    }
    struct { uint64_t out, in; uint32_t n; } params = {(uintptr_t)out, (uintptr_t)in, N};
    const ptxjit_kernel_info *ki = ptxjit_kernel_info_of(kern);
    if (ki->param_bytes != 20 || ki->params[2].offset != 16)
        return N + 1;
    ptxjit_launch_cfg cfg = {.grid = {3, 1, 1}, .block = {128, 1, 1}, .params = &params};
    char err[256];
    if (ptxjit_launch(ctx, kern, &cfg, err, sizeof err) != PTXJIT_OK)
        return N + 1;
    uint32_t wrong = 0;
    for (uint32_t i = 0; i < N; i++)
        wrong += out[i] != in[i] * k + i + bias; /* u32 arithmetic wraps, as mad.lo/add do */
    return wrong;
}
