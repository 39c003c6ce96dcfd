/* fatbin_glue.c - fat binaries (a container or nvcc's wrapper of one):
 * the PTX entry fatbin.c selects for the device's compute capability, its
 * statuses mapped to the CUresults NVIDIA's driver returns. */
#include "cu_internal.h"

#include "fatbin.h"

#include <stdio.h>
#include <string.h>

static CUresult result_of(rt_fatbin_status st)
{
    switch (st) {
    case RT_FATBIN_OK: return CUDA_SUCCESS;
    case RT_FATBIN_NO_PTX:
    case RT_FATBIN_NO_COMPATIBLE_PTX: return CUDA_ERROR_NO_BINARY_FOR_GPU;
    case RT_FATBIN_NOMEM: return CUDA_ERROR_OUT_OF_MEMORY;
    default: return CUDA_ERROR_INVALID_IMAGE;
    }
}

CUresult cu_fatbin_ptx(const void *image, size_t size, char **ptx, size_t *len, char **why)
{
    const cu_device_cfg *d = cu_device();
    unsigned cc = (unsigned)(d->cc_major * 10 + d->cc_minor);
    size_t n = 0;
    rt_fatbin_status st = rt_fatbin_ptx(image, size, cc, ptx, &n);
    if (st == RT_FATBIN_OK) {
        *len = n;
        return CUDA_SUCCESS;
    }
    *ptx = NULL;
    char msg[256];
    snprintf(msg, sizeof msg, "fat binary: %s (device compute capability %d.%d)",
             rt_fatbin_strerror(st), d->cc_major, d->cc_minor);
    *why = strdup(msg);
    return result_of(st);
}
