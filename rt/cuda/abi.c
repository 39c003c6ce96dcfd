/* abi.c - PTXJIT_CUDA_ABI: which CUDA driver ABI the library presents.
 * CUDA 13 (the default) re-used names a CUDA-12-era client may find by
 * name (numba 0.56 tries NAME_v2 before NAME): cuCtxGetDevice_v2 and
 * cuCtxSynchronize_v2 gained a context argument, cuMemcpyBatchAsync_v2 and
 * cuMemcpy3DBatchAsync_v2 (and their _ptsz forms) lost failIdx.  With
 * PTXJIT_CUDA_ABI=12 those names behave as the CUDA 12 entry points of the
 * same purpose and cuDriverGetVersion reports 12.9 (the batched copies are
 * CUDA_ERROR_NOT_SUPPORTED under either ABI). */
#include "cu_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool abi12;

static void read_env(void)
{
    const char *v = getenv("PTXJIT_CUDA_ABI");
    if (!v || !*v || !strcmp(v, "13"))
        return;
    if (!strcmp(v, "12"))
        abi12 = true;
    else
        fprintf(stderr, "ptxjit: ignoring PTXJIT_CUDA_ABI='%s' (12 or 13); using 13\n", v);
}

bool cu_abi12(void)
{
    pthread_once(&once, read_env);
    return abi12;
}
