/* conform_gpu.c - runs conformance kernels through the CUDA driver API and
 * records their outputs, so the C references of tests/conform.c can be
 * checked against a real GPU (scripts/gpu-crosscheck.sh).
 *
 *   conform_gpu EMIT_DIR OUT_DIR
 *
 * EMIT_DIR is what `test_conform_* --emit` wrote: a manifest, the PTX files
 * and the input arrays.  Manifest lines (after a '#' header line) are
 *   kernel ptx inputs n dw w_a w_b w_c w_e hash
 * and each kernel has the parameters (.u64 a, b, c, e, d, .u32 n): four
 * input arrays of n elements of w_* bytes (0: unused), the output array of
 * n elements of dw bytes, and n.  The launch is the harness's: blocks of
 * 100 threads.  Each output goes to OUT_DIR/<kernel>.out as
 *   "PJCFOUT1", u64 hash (the manifest's), u32 n, u32 dw, n * dw bytes.
 *
 * Plain C and driver API only, so it builds on a GPU machine with nothing
 * but the toolkit (against NVIDIA's cuda.h, -lcuda) -- and against
 * ptxjit's own header and libcuda.so.1, which is how the tests keep it
 * working without a GPU. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef PTXJIT_TEST_NVIDIA_HEADER
#include <cuda.h>
#else
#include "ptxjit/cuda_driver.h"
#endif

enum { BLOCK = 100, NIN = 4 };

typedef struct line {
    char kernel[160], ptx[256], inputs[256];
    size_t n;
    unsigned dw, w[NIN];
    unsigned long long hash;
} line;

static int cu_failed(CUresult r, const char *what, const char *kernel)
{
    if (r == CUDA_SUCCESS)
        return 0;
    const char *name = NULL;
    cuGetErrorName(r, &name);
    fprintf(stderr, "conform_gpu: %s: %s failed: %s\n", kernel, what, name ? name : "?");
    return 1;
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            char *bigger = realloc(buf, 2 * cap + 1);
            if (!bigger) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = bigger, cap *= 2;
        }
    }
    fclose(f);
    if (buf) {
        buf[n] = 0;
        *len = n;
    }
    return buf;
}

/* The module of a PTX file, loaded once and kept while the next lines use
 * the same file (the manifest lists a file's kernels together). */
static CUmodule module_for(const char *dir, const char *ptx, char *loaded, size_t cap, CUmodule *current)
{
    if (*current && !strcmp(loaded, ptx))
        return *current;
    if (*current)
        cuModuleUnload(*current);
    *current = NULL;
    char path[1024];
    size_t len;
    snprintf(path, sizeof path, "%s/%s", dir, ptx);
    char *text = read_all(path, &len);
    if (!text) {
        fprintf(stderr, "conform_gpu: cannot read %s\n", path);
        return NULL;
    }
    char log[4096] = "";
    CUjit_option opt[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *val[] = {log, (void *)(uintptr_t)sizeof log};
    CUresult r = cuModuleLoadDataEx(current, text, 2, opt, val);
    free(text);
    if (r != CUDA_SUCCESS) {
        cu_failed(r, "cuModuleLoadDataEx", ptx);
        fprintf(stderr, "%s\n", log);
        *current = NULL;
        return NULL;
    }
    snprintf(loaded, cap, "%s", ptx);
    return *current;
}

static int write_result(const char *out_dir, const line *l, const void *out)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.out", out_dir, l->kernel);
    FILE *f = fopen(path, "wb");
    uint64_t hash = l->hash;
    uint32_t n = (uint32_t)l->n, dw = l->dw;
    int ok = f && fwrite("PJCFOUT1", 1, 8, f) == 8 && fwrite(&hash, 8, 1, f) == 1 && fwrite(&n, 4, 1, f) == 1 &&
             fwrite(&dw, 4, 1, f) == 1 && fwrite(out, dw, l->n, f) == l->n;
    if (f && fclose(f) != 0)
        ok = 0;
    if (!ok)
        fprintf(stderr, "conform_gpu: cannot write %s\n", path);
    return !ok;
}

/* One kernel: inputs to the device, launch, output back and recorded. */
static int run_line(CUmodule mod, const char *dir, const char *out_dir, const line *l)
{
    CUfunction fn;
    if (cu_failed(cuModuleGetFunction(&fn, mod, l->kernel), "cuModuleGetFunction", l->kernel))
        return 1;
    char path[1024];
    size_t len, want = 0;
    snprintf(path, sizeof path, "%s/%s", dir, l->inputs);
    for (int i = 0; i < NIN; i++)
        want += (size_t)l->w[i] * l->n;
    char *in = read_all(path, &len);
    if (!in || len != want) {
        fprintf(stderr, "conform_gpu: %s: %zu bytes, expected %zu\n", path, in ? len : 0, want);
        free(in);
        return 1;
    }
    CUdeviceptr buf[NIN + 1] = {0};
    int bad = 0;
    size_t at = 0;
    for (int i = 0; i < NIN && !bad; i++) {
        size_t bytes = (size_t)l->w[i] * l->n;
        if (!bytes)
            continue;
        bad = cu_failed(cuMemAlloc(&buf[i], bytes), "cuMemAlloc", l->kernel) ||
              cu_failed(cuMemcpyHtoD(buf[i], in + at, bytes), "cuMemcpyHtoD", l->kernel);
        at += bytes;
    }
    size_t out_bytes = (size_t)l->dw * l->n;
    char *out = malloc(out_bytes ? out_bytes : 1);
    if (!bad)
        bad = cu_failed(cuMemAlloc(&buf[NIN], out_bytes), "cuMemAlloc", l->kernel) ||
              cu_failed(cuMemsetD8(buf[NIN], 0xcc, out_bytes), "cuMemsetD8", l->kernel);
    if (!bad) {
        unsigned n = (unsigned)l->n;
        void *params[] = {&buf[0], &buf[1], &buf[2], &buf[3], &buf[NIN], &n};
        unsigned grid = (unsigned)((l->n + BLOCK - 1) / BLOCK);
        bad = cu_failed(cuLaunchKernel(fn, grid, 1, 1, BLOCK, 1, 1, 0, NULL, params, NULL), "cuLaunchKernel",
                        l->kernel) ||
              cu_failed(cuCtxSynchronize(), "cuCtxSynchronize", l->kernel) ||
              cu_failed(cuMemcpyDtoH(out, buf[NIN], out_bytes), "cuMemcpyDtoH", l->kernel);
    }
    if (!bad)
        bad = write_result(out_dir, l, out);
    for (int i = 0; i <= NIN; i++)
        if (buf[i])
            cuMemFree(buf[i]);
    free(out);
    free(in);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: conform_gpu EMIT_DIR OUT_DIR\n");
        return 2;
    }
    const char *dir = argv[1], *out_dir = argv[2];
    char path[1024];
    snprintf(path, sizeof path, "%s/manifest", dir);
    FILE *manifest = fopen(path, "r");
    if (!manifest) {
        fprintf(stderr, "conform_gpu: cannot read %s\n", path);
        return 2;
    }
    CUdevice dev;
    CUcontext ctx;
    if (cu_failed(cuInit(0), "cuInit", "-") || cu_failed(cuDeviceGet(&dev, 0), "cuDeviceGet", "-") ||
        cu_failed(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain", "-") ||
        cu_failed(cuCtxSetCurrent(ctx), "cuCtxSetCurrent", "-")) {
        fclose(manifest);
        return 1;
    }
    char name[256] = "", text[2048], loaded[256] = "";
    cuDeviceGetName(name, sizeof name, dev);
    CUmodule mod = NULL;
    unsigned ran = 0, failed = 0;
    while (fgets(text, sizeof text, manifest)) {
        if (text[0] == '#' || text[0] == '\n')
            continue;
        line l;
        if (sscanf(text, "%159s %255s %255s %zu %u %u %u %u %u %llx", l.kernel, l.ptx, l.inputs, &l.n, &l.dw,
                   &l.w[0], &l.w[1], &l.w[2], &l.w[3], &l.hash) != 10) {
            fprintf(stderr, "conform_gpu: bad manifest line: %s", text);
            failed++;
            continue;
        }
        CUmodule m = module_for(dir, l.ptx, loaded, sizeof loaded, &mod);
        if (!m || run_line(m, dir, out_dir, &l))
            failed++;
        else
            ran++;
    }
    fclose(manifest);
    if (mod)
        cuModuleUnload(mod);
    cuDevicePrimaryCtxRelease(dev);
    printf("conform_gpu: %s: %u kernels recorded, %u failed\n", name, ran, failed);
    return failed ? 1 : 0;
}
