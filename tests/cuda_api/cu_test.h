/* cu_test.h - what the driver-API tests share.  Each test is built twice
 * when NVIDIA's toolkit is installed: against ptxjit's own
 * include/ptxjit/cuda_driver.h, and against NVIDIA's cuda.h
 * (PTXJIT_TEST_NVIDIA_HEADER) linked with -lcuda, which then resolves to
 * ptxjit's libcuda.so.1 through LD_LIBRARY_PATH or LD_PRELOAD. */
#ifndef CU_TEST_H
#define CU_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#ifdef PTXJIT_TEST_NVIDIA_HEADER
#include <cuda.h>
#else
#include "ptxjit/cuda_driver.h"
#endif

#include "test_util.h"

static inline const char *cu_test_name(CUresult r)
{
    const char *s = NULL;
    return cuGetErrorName(r, &s) == CUDA_SUCCESS && s ? s : "(unknown CUresult)";
}

static inline void cu_test_expect(CUresult got, CUresult want, const char *call, const char *file,
                                  int line)
{
    if (got != want)
        fail_msg("%s:%d: %s returned %s (%d), expected %s (%d)", file, line, call,
                 cu_test_name(got), (int)got, cu_test_name(want), (int)want);
}

#define CU_EXPECT(want, call) cu_test_expect((call), (want), #call, __FILE__, __LINE__)
#define CU_OK(call) CU_EXPECT(CUDA_SUCCESS, call)

/* Reads a file under tests/ (rel: "cuda/fatbin/add1.ptx"); NUL-terminated. */
static inline char *cu_test_file(const char *rel, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", PTXJIT_TEST_DIR, rel);
    char *data = tu_read_file(path, len);
    if (!data)
        fail_msg("cannot read %s", path);
    return data;
}

/* Reads a file of the PTX corpus (tests/ptx/corpus); NUL-terminated. */
static inline char *cu_test_corpus(const char *name)
{
    char rel[512];
    snprintf(rel, sizeof rel, "ptx/corpus/%s", name);
    size_t len;
    return cu_test_file(rel, &len);
}

/* Loads a corpus file into the current context. */
static inline CUmodule cu_test_load(const char *name)
{
    char *ptx = cu_test_corpus(name);
    CUmodule m = NULL;
    CU_OK(cuModuleLoadData(&m, ptx));
    free(ptx);
    return m;
}

/* cuInit, then the primary context of device 0 made current. */
static inline CUcontext cu_test_primary(void)
{
    CUdevice dev;
    CUcontext ctx;
    CU_OK(cuInit(0));
    CU_OK(cuDeviceGet(&dev, 0));
    CU_OK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_OK(cuCtxSetCurrent(ctx));
    return ctx;
}

#endif
