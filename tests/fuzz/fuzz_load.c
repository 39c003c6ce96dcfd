/* fuzz_load.c - libFuzzer target for the driver's loader entry points: an
 * input is a module image (PTX text, fat binary, nvcc's wrapper, cubin) as
 * cuModuleLoadDataEx sees it with its size and cuModuleLoadData sees it
 * without one, then (split at NUL bytes) up to three PTX inputs of a
 * cuLink.  Any input must load or fail with an error, never crash, hang or
 * leak.  The JIT itself is left out (the parser's target covers the
 * frontend; LLVM is not ours to fuzz): this is image recognition, fat
 * binary parsing and decompression, header checks and PTX linking. */
#define _GNU_SOURCE /* process_vm_readv */
#include "cu_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

/* The device and the safe copy the loader needs, as libcuda.so.1 has them. */
const cu_device_cfg *cu_device(void)
{
    static const cu_device_cfg dev = {.cc_major = 8, .cc_minor = 0, .sm_count = 1};
    return &dev;
}

CUresult cu_safe_copy(void *dst, const void *src, size_t n)
{
    struct iovec local = {dst, n}, remote = {(void *)src, n};
    return n == 0 || process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)n
               ? CUDA_SUCCESS
               : CUDA_ERROR_INVALID_VALUE;
}

static void load_image(const void *image, size_t size)
{
    char *ptx = NULL, *why = NULL;
    size_t len = 0;
    if (cu_image_ptx(image, size, &ptx, &len, &why) == CUDA_SUCCESS) {
        char *header = NULL;
        cu_ptx_check_header(ptx, len, "fuzz.ptx", &header);
        free(header);
    }
    free(ptx);
    free(why);
}

enum { MAX_LINK_INPUTS = 3 };

static void link_parts(const uint8_t *data, size_t size)
{
    char *texts[MAX_LINK_INPUTS];
    size_t lens[MAX_LINK_INPUTS], n = 0, start = 0;
    for (size_t i = 0; i <= size && n < MAX_LINK_INPUTS; i++)
        if (i == size || data[i] == 0) {
            lens[n] = i - start;
            texts[n] = malloc(lens[n] + 1);
            memcpy(texts[n], data + start, lens[n]);
            texts[n][lens[n]] = 0;
            n++;
            start = i + 1;
        }
    const char *names[MAX_LINK_INPUTS] = {"a.ptx", "b.ptx", "c.ptx"};
    char *out = NULL, *errors = NULL;
    size_t outlen = 0;
    cu_ptx_link((const char **)texts, lens, names, n, &out, &outlen, &errors);
    free(out);
    free(errors);
    for (size_t i = 0; i < n; i++)
        free(texts[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    load_image(data, size);
    /* without a size: the text ends at its NUL, a fat binary where its
     * header says (copied safely, whatever it claims) */
    uint8_t *copy = malloc(size + 1);
    memcpy(copy, data, size);
    copy[size] = 0;
    load_image(copy, 0);
    free(copy);
    link_parts(data, size);
    return 0;
}
