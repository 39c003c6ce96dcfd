/* test_cu_launch.c - launching kernels through the driver API: arguments
 * by kernelParams and by the `extra` buffer, cuLaunchKernelEx, cooperative
 * launches, and the validation errors NVIDIA documents.  Kernels come from
 * tests/cuda/vector_ops.cu (PTX in the corpus); results are checked
 * against C references written from the kernels' documented semantics. */
#include "cu_test.h"

#include <math.h>

static CUcontext ctx;
static CUmodule mod;

static int setup(void **state)
{
    (void)state;
    ctx = cu_test_primary();
    mod = cu_test_load("vector_ops.sm_80.ptx");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    CU_OK(cuModuleUnload(mod));
    CU_OK(cuDevicePrimaryCtxRelease(0));
    return 0;
}

static CUfunction get(const char *name)
{
    CUfunction f;
    CU_OK(cuModuleGetFunction(&f, mod, name));
    return f;
}

static CUdeviceptr upload(const void *host, size_t bytes)
{
    CUdeviceptr d;
    CU_OK(cuMemAlloc(&d, bytes));
    CU_OK(cuMemcpyHtoD(d, host, bytes));
    return d;
}

/* c[i] = a[i] + b[i] for i < n: 1000 elements in 4 blocks of 256 (the
 * last 24 threads fail the bounds check). */
static void test_vec_add_kernel_params(void **state)
{
    (void)state;
    enum { N = 1000 };
    float a[N], b[N], c[N];
    for (int i = 0; i < N; i++) {
        a[i] = (float)i * 0.5f;
        b[i] = 3.0f - (float)i;
    }
    CUdeviceptr da = upload(a, sizeof a), db = upload(b, sizeof b), dc;
    CU_OK(cuMemAlloc(&dc, sizeof c));
    CU_OK(cuMemsetD32(dc, 0x7fc00000u, N)); /* NaN: every element must be written */
    int n = N;
    void *args[] = {&da, &db, &dc, &n};
    CU_OK(cuLaunchKernel(get("vec_add"), 4, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
    CU_OK(cuCtxSynchronize());
    CU_OK(cuMemcpyDtoH(c, dc, sizeof c));
    for (int i = 0; i < N; i++)
        assert_true(c[i] == a[i] + b[i]);
    CU_OK(cuMemFree(da));
    CU_OK(cuMemFree(db));
    CU_OK(cuMemFree(dc));
}

/* saxpy_gridstride(int n, float alpha, const float *x, float *y) with its
 * parameters packed by hand as CUDA lays them out: n at 0, alpha at 4, x
 * at 8, y at 16 (24 bytes); a grid smaller than n exercises the loop. */
static void test_saxpy_extra_buffer(void **state)
{
    (void)state;
    enum { N = 3000 };
    float x[N], y[N], want[N];
    for (int i = 0; i < N; i++) {
        x[i] = (float)(i % 97) - 40.0f;
        y[i] = (float)(i % 13) * 0.25f;
    }
    float alpha = 1.5f;
    for (int i = 0; i < N; i++)
        want[i] = fmaf(alpha, x[i], y[i]);
    CUdeviceptr dx = upload(x, sizeof x), dy = upload(y, sizeof y);
    struct {
        int n;
        float alpha;
        CUdeviceptr x, y;
    } buf = {N, alpha, dx, dy};
    assert_int_equal(sizeof buf, 24);
    size_t size = sizeof buf;
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                     CU_LAUNCH_PARAM_END};
    CU_OK(cuLaunchKernel(get("saxpy_gridstride"), 3, 1, 1, 128, 1, 1, 0, NULL, NULL, extra));
    CU_OK(cuMemcpyDtoH(y, dy, sizeof y));
    for (int i = 0; i < N; i++)
        assert_true(y[i] == want[i]);
    /* a buffer shorter than the parameters is refused */
    size = 16;
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE,
              cuLaunchKernel(get("saxpy_gridstride"), 1, 1, 1, 32, 1, 1, 0, NULL, NULL, extra));
    CU_OK(cuMemFree(dx));
    CU_OK(cuMemFree(dy));
}

/* axpby_f64(long long n, double a, const double *x, double b, double *y):
 * y[i] = fma(a, x[i], b * y[i]), launched with cuLaunchKernelEx on a
 * stream, with hint attributes that must be accepted. */
static void test_axpby_launch_ex(void **state)
{
    (void)state;
    enum { N = 777 };
    double x[N], y[N], want[N];
    for (int i = 0; i < N; i++) {
        x[i] = i * 0.125 - 7.0;
        y[i] = 1.0 / (i + 1);
    }
    double a = -2.5, b = 0.75;
    for (int i = 0; i < N; i++)
        want[i] = fma(a, x[i], b * y[i]);
    CUdeviceptr dx = upload(x, sizeof x), dy = upload(y, sizeof y);
    long long n = N;
    void *args[] = {&n, &a, &dx, &b, &dy};
    CUstream s;
    CU_OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CUlaunchAttribute attrs[2];
    memset(attrs, 0, sizeof attrs);
    attrs[0].id = CU_LAUNCH_ATTRIBUTE_PRIORITY;
    attrs[0].value.priority = -1;
    attrs[1].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attrs[1].value.clusterDim.x = attrs[1].value.clusterDim.y = attrs[1].value.clusterDim.z = 1;
    CUlaunchConfig cfg = {.gridDimX = 2, .gridDimY = 1, .gridDimZ = 1, .blockDimX = 96,
                          .blockDimY = 1, .blockDimZ = 1, .sharedMemBytes = 0, .hStream = s,
                          .attrs = attrs, .numAttrs = 2};
    CU_OK(cuLaunchKernelEx(&cfg, get("axpby_f64"), args, NULL));
    CU_OK(cuStreamSynchronize(s));
    CU_OK(cuMemcpyDtoH(y, dy, sizeof y));
    for (int i = 0; i < N; i++)
        assert_true(y[i] == want[i]);
    /* clusters of more than one block do not exist here */
    attrs[1].value.clusterDim.x = 2;
    CU_EXPECT(CUDA_ERROR_NOT_SUPPORTED, cuLaunchKernelEx(&cfg, get("axpby_f64"), args, NULL));
    CU_OK(cuStreamDestroy(s));
    CU_OK(cuMemFree(dx));
    CU_OK(cuMemFree(dy));
}

/* Launch-time validation: each bad argument is the CUresult NVIDIA's
 * driver documents, and nothing runs. */
static void test_launch_validation(void **state)
{
    (void)state;
    CUfunction f = get("scale_inplace");
    float v[64];
    for (int i = 0; i < 64; i++)
        v[i] = (float)i;
    CUdeviceptr d = upload(v, sizeof v);
    float s = 2.0f;
    unsigned n = 64;
    void *args[] = {&d, &s, &n};
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuLaunchKernel(f, 0, 1, 1, 64, 1, 1, 0, NULL, args, NULL));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuLaunchKernel(f, 1, 1, 1, 0, 1, 1, 0, NULL, args, NULL));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuLaunchKernel(f, 1, 1, 1, 1025, 1, 1, 0, NULL, args, NULL));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuLaunchKernel(f, 1, 1, 1, 32, 32, 2, 0, NULL, args, NULL));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuLaunchKernel(f, 1, 1, 1, 1, 1, 65, 0, NULL, args, NULL));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuLaunchKernel(f, 1, 65536, 1, 64, 1, 1, 0, NULL, args, NULL));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE,
              cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 48 * 1024 + 1, NULL, args, NULL));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, NULL, NULL, NULL));
    size_t size = 16;
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, args, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                     CU_LAUNCH_PARAM_END};
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, NULL, args, extra));
    CU_EXPECT(CUDA_ERROR_INVALID_HANDLE,
              cuLaunchKernel(NULL, 1, 1, 1, 64, 1, 1, 0, NULL, args, NULL));
    CU_EXPECT(CUDA_ERROR_INVALID_HANDLE,
              cuLaunchKernel((CUfunction)v, 1, 1, 1, 64, 1, 1, 0, NULL, args, NULL));
    CU_EXPECT(CUDA_ERROR_INVALID_HANDLE,
              cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, (CUstream)v, args, NULL));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuLaunchKernelEx(NULL, f, args, NULL));
    /* none of the above ran */
    float back[64];
    CU_OK(cuMemcpyDtoH(back, d, sizeof back));
    assert_memory_equal(back, v, sizeof v);
    /* a 1x2x2 grid: the kernel indexes by blockIdx.x only, so all four
     * blocks scale every element */
    CU_OK(cuLaunchKernel(f, 1, 2, 2, 64, 1, 1, 0, NULL, args, NULL));
    CU_OK(cuMemcpyDtoH(back, d, sizeof back));
    for (int i = 0; i < 64; i++)
        assert_true(back[i] == v[i] * 16.0f);
    CU_OK(cuMemFree(d));
}

/* Dynamic shared memory above 48 KiB needs the function's opt-in. */
static void test_dynamic_shared_opt_in(void **state)
{
    (void)state;
    CUfunction f = get("scale_inplace");
    CUdeviceptr d;
    CU_OK(cuMemAlloc(&d, 256));
    float s = 1.0f;
    unsigned n = 0;
    void *args[] = {&d, &s, &n};
    int optin;
    CU_OK(cuDeviceGetAttribute(&optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 0));
    assert_true(optin > 48 * 1024);
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE,
              cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 64 * 1024, NULL, args, NULL));
    CU_OK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 64 * 1024));
    int v;
    CU_OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, f));
    assert_int_equal(v, 64 * 1024);
    CU_OK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 64 * 1024, NULL, args, NULL));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE,
              cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, optin + 1));
    CU_OK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 48 * 1024));
    CU_OK(cuMemFree(d));
}

/* A cooperative grid must fit on the device at once. */
static void test_cooperative_launch(void **state)
{
    (void)state;
    CUfunction f = get("scale_inplace");
    float v[256];
    for (int i = 0; i < 256; i++)
        v[i] = (float)i;
    CUdeviceptr d = upload(v, sizeof v);
    float s = 3.0f;
    unsigned n = 256;
    void *args[] = {&d, &s, &n};
    int per_sm, sms;
    CU_OK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, f, 128, 0));
    CU_OK(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0));
    assert_true(per_sm > 0);
    CU_OK(cuLaunchCooperativeKernel(f, 2, 1, 1, 128, 1, 1, 0, NULL, args));
    float back[256];
    CU_OK(cuMemcpyDtoH(back, d, sizeof back));
    for (int i = 0; i < 256; i++)
        assert_true(back[i] == v[i] * 3.0f);
    CU_EXPECT(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE,
              cuLaunchCooperativeKernel(f, (unsigned)(per_sm * sms + 1), 1, 1, 128, 1, 1, 0, NULL,
                                        args));
    CU_OK(cuMemFree(d));
}

/* The occupancy calculator on the default device (compute capability 8.0:
 * 2048 threads, 32 blocks, 64 K registers and 164 KiB of shared memory per
 * SM), for scale_inplace at 32 registers a thread, worked out by hand:
 * 256 threads = 8 warps: 64/8 = 8 by warps, 65536/(1024*8) = 8 by
 * registers; with 48 KiB of dynamic shared memory 167936/49152 = 3. */
static void test_occupancy(void **state)
{
    (void)state;
    if (getenv("PTXJIT_CC"))
        skip();
    CUfunction f = get("scale_inplace");
    int n = -1, regs;
    CU_OK(cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, f));
    assert_int_equal(regs, 32);
    CU_OK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, 256, 0));
    assert_int_equal(n, 8);
    CU_OK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, 256, 49152));
    assert_int_equal(n, 3);
    CU_OK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, 1024, 0));
    assert_int_equal(n, 2);
    CU_OK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, 32, 0));
    assert_int_equal(n, 32); /* the block limit */
    CU_OK(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&n, f, 1025, 0, 0));
    assert_int_equal(n, 0);
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, 0, 0));
    int grid = 0, block = 0, sms;
    CU_OK(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0));
    CU_OK(cuOccupancyMaxPotentialBlockSize(&grid, &block, f, NULL, 0, 0));
    assert_int_equal(block, 1024); /* 2048 threads resident; ties go to the larger */
    assert_int_equal(grid, 2 * sms);
    /* under a limit of 200 threads: 200 -> 9 blocks (1800 threads), 192 ->
     * 10 (1920), 160 -> 12 (1920), 128 -> 16 (2048), 96 -> 21, 64 -> 32
     * (2048, not more), 32 -> 32: 128 wins */
    CU_OK(cuOccupancyMaxPotentialBlockSize(&grid, &block, f, NULL, 0, 200));
    assert_int_equal(block, 128);
    assert_int_equal(grid, 16 * sms);
    size_t avail = 0;
    CU_OK(cuOccupancyAvailableDynamicSMemPerBlock(&avail, f, 2, 256));
    assert_int_equal(avail, 167936 / 2);
    CU_EXPECT(CUDA_ERROR_INVALID_HANDLE,
              cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, (CUfunction)&n, 256, 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vec_add_kernel_params),
        cmocka_unit_test(test_saxpy_extra_buffer),
        cmocka_unit_test(test_axpby_launch_ex),
        cmocka_unit_test(test_launch_validation),
        cmocka_unit_test(test_dynamic_shared_opt_in),
        cmocka_unit_test(test_cooperative_launch),
        cmocka_unit_test(test_occupancy),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
