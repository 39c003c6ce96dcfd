/* fatbin_glue.c - fat binaries (a container or nvcc's wrapper of one):
 * the PTX entry fatbin.c selects for the device's compute capability, its
 * statuses mapped to the CUresults NVIDIA's driver returns. */
#include "cu_internal.h"

#include "fatbin.h"

#include <stdio.h>
#include <stdlib.h>
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

static uint64_t read_le(const uint8_t *p, unsigned bytes)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < bytes; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* A size-less image (cuModuleLoadData, nvcc's wrapper) is as large as its
 * container's header says, and a corrupted header must not walk the
 * parser past the real memory: the claimed bytes are copied first with
 * cu_safe_copy (an unreadable byte is an error, not a fault), then parsed
 * with their size known. */
static rt_fatbin_status copy_claimed(const void *image, uint8_t **copy, size_t *size)
{
    uint8_t hdr[16];
    if (cu_safe_copy(hdr, image, sizeof hdr))
        return RT_FATBIN_CORRUPT;
    if (read_le(hdr, 4) == RT_FATBIN_WRAPPER_MAGIC) {
        image = (const void *)(uintptr_t)read_le(hdr + 8, 8);
        if (!image || cu_safe_copy(hdr, image, sizeof hdr))
            return RT_FATBIN_CORRUPT;
    }
    uint64_t head = read_le(hdr + 6, 2), body = read_le(hdr + 8, 8);
    /* a header shorter than itself would leave a size of 0: "unknown" */
    if (read_le(hdr, 4) != RT_FATBIN_MAGIC || head < sizeof hdr || body > RT_FATBIN_MAX_PAYLOAD)
        return RT_FATBIN_CORRUPT;
    size_t total = (size_t)(head + body);
    uint8_t *buf = malloc(total);
    if (!buf)
        return RT_FATBIN_NOMEM;
    if (cu_safe_copy(buf, image, total)) {
        free(buf);
        return RT_FATBIN_CORRUPT;
    }
    *copy = buf;
    *size = total;
    return RT_FATBIN_OK;
}

CUresult cu_fatbin_ptx(const void *image, size_t size, char **ptx, size_t *len, char **why)
{
    const cu_device_cfg *d = cu_device();
    unsigned cc = (unsigned)(d->cc_major * 10 + d->cc_minor);
    size_t n = 0;
    uint8_t *copy = NULL;
    /* a wrapper's container has no size but its header's, whatever size says */
    bool sizeless = !size || (size >= 4 && read_le(image, 4) == RT_FATBIN_WRAPPER_MAGIC);
    rt_fatbin_status st = sizeless ? copy_claimed(image, &copy, &size) : RT_FATBIN_OK;
    if (st == RT_FATBIN_OK)
        st = rt_fatbin_ptx(copy ? copy : image, size, cc, ptx, &n);
    free(copy);
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
