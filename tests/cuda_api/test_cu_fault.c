/* test_cu_fault.c - kernel faults through the driver API, one per kind:
 * an invalid memory access (CUDA_ERROR_ILLEGAL_ADDRESS), a trap
 * (CUDA_ERROR_LAUNCH_FAILED), a failed device assert (CUDA_ERROR_ASSERT).
 * As on a GPU the error comes back from the launch or the next
 * synchronizing call, sticks to the context (every later call in it
 * returns it), and goes with the context: a destroyed-and-recreated
 * context, or a reset primary context, works again.  The host survives.
 * Kernels: tests/cuda/malloc_assert.cu and vector_ops.cu. */
#include "cu_test.h"

#include <unistd.h>

static CUfunction load_fn(const char *file, const char *name, CUmodule *mod)
{
    *mod = cu_test_load(file);
    CUfunction f;
    CU_OK(cuModuleGetFunction(&f, *mod, name));
    return f;
}

/* Launches `name` on in[] = {3, 1, -4, 1, 5} in a fresh context and
 * checks that `want` sticks; returns with the context destroyed. */
static void fault_in_fresh_context(const char *name, CUresult want)
{
    CUcontext c;
    CU_OK(cuCtxCreate(&c, NULL, 0, 0));
    CUmodule m;
    CUfunction f = load_fn("malloc_assert.sm_80.ptx", name, &m);
    int in[5] = {3, 1, -4, 1, 5};
    CUdeviceptr din, dout;
    CU_OK(cuMemAlloc(&din, sizeof in));
    CU_OK(cuMemAlloc(&dout, sizeof in));
    CU_OK(cuMemcpyHtoD(din, in, sizeof in));
    int n = 5;
    void *args[] = {&din, &dout, &n};
    CUresult r = cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL);
    if (r == CUDA_SUCCESS)
        r = cuCtxSynchronize();
    CU_EXPECT(want, r);
    /* sticky: every later call in the context reports it */
    CU_EXPECT(want, cuCtxSynchronize());
    CUdeviceptr p;
    CU_EXPECT(want, cuMemAlloc(&p, 16));
    CU_EXPECT(want, cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL));
    int out[5];
    CU_EXPECT(want, cuMemcpyDtoH(out, dout, sizeof out));
    CU_EXPECT(want, cuStreamSynchronize(NULL));
    /* ... but the context can still be destroyed */
    CU_OK(cuCtxDestroy(c));
}

static void test_trap(void **state)
{
    (void)state;
    fault_in_fresh_context("trap_if_negative", CUDA_ERROR_LAUNCH_FAILED);
}

static void test_assert(void **state)
{
    (void)state;
    fault_in_fresh_context("check_nonneg", CUDA_ERROR_ASSERT);
}

/* The line of malloc_assert.cu holding `text`, counted here from the source. */
static int source_line(const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/cuda/malloc_assert.cu", PTXJIT_TEST_DIR);
    size_t len;
    char *src = tu_read_file(path, &len);
    if (!src)
        fail_msg("cannot read %s", path);
    char *at = strstr(src, text);
    assert_non_null(at);
    int line = 1;
    for (char *p = src; p < at; p++)
        line += *p == '\n';
    free(src);
    return line;
}

/* The failed assert is printed as a GPU prints it, on standard output
 * (through the printf stream): file:line: function: block, thread, text. */
static void test_assert_message(void **state)
{
    (void)state;
    fflush(stdout);
    int saved = dup(1);
    FILE *capture = tmpfile();
    assert_non_null(capture);
    dup2(fileno(capture), 1);
    fault_in_fresh_context("check_nonneg", CUDA_ERROR_ASSERT);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    char out[4096] = "";
    rewind(capture);
    size_t n = fread(out, 1, sizeof out - 1, capture);
    out[n] = '\0';
    fclose(capture);
    char want[256];
    snprintf(want, sizeof want, "malloc_assert.cu:%d: ", source_line("assert(in[gid] >= 0);"));
    const char *at = strstr(out, want);
    if (!at)
        fail_msg("no '%s' in the output: %s", want, out);
    /* in = {3, 1, -4, 1, 5}: thread 2 of block 0 fails */
    const char *tail = ": block: [0,0,0], thread: [2,0,0] Assertion `in[gid] >= 0` failed.\n";
    if (!strstr(at, tail))
        fail_msg("no '%s' in the output: %s", tail, out);
    assert_non_null(strstr(at, "check_nonneg"));
}

/* vec_add with an output pointer into unmapped memory. */
static void test_illegal_address_and_recovery(void **state)
{
    (void)state;
    CUcontext p = cu_test_primary();
    CUmodule m;
    CUfunction f = load_fn("vector_ops.sm_80.ptx", "vec_add", &m);
    CUdeviceptr a;
    CU_OK(cuMemAlloc(&a, 1024));
    CUdeviceptr bad = 0x10;
    int n = 256;
    void *args[] = {&a, &a, &bad, &n};
    CUresult r = cuLaunchKernel(f, 1, 1, 1, 256, 1, 1, 0, NULL, args, NULL);
    if (r == CUDA_SUCCESS)
        r = cuCtxSynchronize();
    CU_EXPECT(CUDA_ERROR_ILLEGAL_ADDRESS, r);
    CU_EXPECT(CUDA_ERROR_ILLEGAL_ADDRESS, cuMemsetD8(a, 0, 16));
    CU_EXPECT(CUDA_ERROR_ILLEGAL_ADDRESS, cuCtxSynchronize());
    /* resetting the primary context clears it */
    CU_OK(cuDevicePrimaryCtxReset(0));
    CUcontext again;
    CU_OK(cuDevicePrimaryCtxRetain(&again, 0));
    assert_ptr_equal(again, p);
    CU_OK(cuCtxSynchronize());
    f = load_fn("vector_ops.sm_80.ptx", "vec_add", &m);
    float x[256], y[256];
    for (int i = 0; i < 256; i++)
        x[i] = (float)i;
    CUdeviceptr dx, dy;
    CU_OK(cuMemAlloc(&dx, sizeof x));
    CU_OK(cuMemAlloc(&dy, sizeof y));
    CU_OK(cuMemcpyHtoD(dx, x, sizeof x));
    void *ok_args[] = {&dx, &dx, &dy, &n};
    CU_OK(cuLaunchKernel(f, 1, 1, 1, 256, 1, 1, 0, NULL, ok_args, NULL));
    CU_OK(cuMemcpyDtoH(y, dy, sizeof y));
    for (int i = 0; i < 256; i++)
        assert_true(y[i] == 2.0f * x[i]);
    CU_OK(cuModuleUnload(m));
    /* the reset dropped cu_test_primary's reference; one is left */
    CU_OK(cuDevicePrimaryCtxRelease(0));
    CU_EXPECT(CUDA_ERROR_INVALID_CONTEXT, cuDevicePrimaryCtxRelease(0));
    CU_OK(cuCtxSetCurrent(NULL));
}

/* A fault in one context leaves another context alone. */
static void test_fault_is_per_context(void **state)
{
    (void)state;
    CUcontext healthy;
    CU_OK(cuCtxCreate(&healthy, NULL, 0, 0));
    fault_in_fresh_context("trap_if_negative", CUDA_ERROR_LAUNCH_FAILED);
    CU_OK(cuCtxPushCurrent(healthy));
    CUdeviceptr p;
    CU_OK(cuMemAlloc(&p, 64));
    CU_OK(cuCtxSynchronize());
    CU_OK(cuCtxDestroy(healthy));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trap),
        cmocka_unit_test(test_assert),
        cmocka_unit_test(test_assert_message),
        cmocka_unit_test(test_illegal_address_and_recovery),
        cmocka_unit_test(test_fault_is_per_context),
    };
    CU_OK(cuInit(0));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
