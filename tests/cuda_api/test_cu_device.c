/* test_cu_device.c - initialization, versions, error strings, the device
 * and its attributes, and cuGetProcAddress.  Expected values come from
 * NVIDIA's documentation (CUDA 13.0 driver API reference, "Compute
 * Capabilities" table of the programming guide) and from the machine
 * (worker count, physical memory). */
#include "cu_test.h"

#include <unistd.h>

/* Before cuInit every call that needs the driver says so; a few do not
 * need it.  This must run first (cmocka runs tests in order). */
static void test_not_initialized(void **state)
{
    (void)state;
    int n = -1, v = 0;
    CUdevice d;
    CU_EXPECT(CUDA_ERROR_NOT_INITIALIZED, cuDeviceGetCount(&n));
    CU_EXPECT(CUDA_ERROR_NOT_INITIALIZED, cuDeviceGet(&d, 0));
    CU_EXPECT(CUDA_ERROR_NOT_INITIALIZED, cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 0));
    CUdeviceptr p;
    CU_EXPECT(CUDA_ERROR_NOT_INITIALIZED, cuMemAlloc(&p, 16));
    CU_OK(cuDriverGetVersion(&v));
    assert_int_equal(v, 13000);
    const char *s;
    CU_OK(cuGetErrorName(CUDA_ERROR_INVALID_VALUE, &s));
    assert_string_equal(s, "CUDA_ERROR_INVALID_VALUE");
    void *fn = NULL;
    CU_OK(cuGetProcAddress("cuInit", &fn, 13000, CU_GET_PROC_ADDRESS_DEFAULT, NULL));
    assert_ptr_equal(fn, (void *)cuInit);
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuInit(1));
    CU_OK(cuInit(0));
    CU_OK(cuInit(0)); /* idempotent */
}

/* cuGetErrorName returns the enumerator's name and cuGetErrorString some
 * text for every documented code; unknown codes are INVALID_VALUE with
 * a NULL string. */
static void test_error_strings(void **state)
{
    (void)state;
    static const struct {
        CUresult code;
        const char *name;
    } codes[] = {
        {CUDA_SUCCESS, "CUDA_SUCCESS"},
        {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY"},
        {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE"},
        {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX"},
        {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND"},
        {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS"},
        {CUDA_ERROR_ASSERT, "CUDA_ERROR_ASSERT"},
        {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED"},
        {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED"},
        {CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN"},
    };
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        const char *s = NULL;
        CU_OK(cuGetErrorName(codes[i].code, &s));
        assert_string_equal(s, codes[i].name);
        s = NULL;
        CU_OK(cuGetErrorString(codes[i].code, &s));
        assert_non_null(s);
        assert_true(strlen(s) > 3);
    }
    /* every value in the documented ranges either has both or neither */
    int named = 0;
    for (int c = 0; c <= 1000; c++) {
        const char *n = NULL, *t = NULL;
        CUresult rn = cuGetErrorName((CUresult)c, &n), rt = cuGetErrorString((CUresult)c, &t);
        assert_int_equal(rn, rt);
        if (rn == CUDA_SUCCESS) {
            named++;
            assert_true(!strncmp(n, "CUDA_", 5));
        } else {
            assert_int_equal(rn, CUDA_ERROR_INVALID_VALUE);
            assert_null(n);
            assert_null(t);
        }
    }
    assert_int_equal(named, 101); /* the CUresult enumerators of CUDA 13.0 */
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuGetErrorName(CUDA_SUCCESS, NULL));
}

static int attr(CUdevice_attribute a)
{
    int v = -12345;
    CU_OK(cuDeviceGetAttribute(&v, a, 0));
    return v;
}

static long expected_workers(void)
{
    const char *e = getenv("PTXJIT_THREADS");
    return e && atoi(e) > 0 ? atoi(e) : sysconf(_SC_NPROCESSORS_ONLN);
}

static void test_device_identity(void **state)
{
    (void)state;
    int n;
    CU_OK(cuDeviceGetCount(&n));
    assert_int_equal(n, 1);
    CUdevice d = -1;
    CU_OK(cuDeviceGet(&d, 0));
    assert_int_equal(d, 0);
    CU_EXPECT(CUDA_ERROR_INVALID_DEVICE, cuDeviceGet(&d, 1));
    CU_EXPECT(CUDA_ERROR_INVALID_DEVICE, cuDeviceGet(&d, -1));
    char name[256];
    CU_OK(cuDeviceGetName(name, sizeof name, 0));
    assert_true(!strncmp(name, "ptxjit", 6));
    char small[7];
    CU_OK(cuDeviceGetName(small, sizeof small, 0));
    assert_string_equal(small, "ptxjit");
    CU_EXPECT(CUDA_ERROR_INVALID_DEVICE, cuDeviceGetName(name, sizeof name, 3));
    CUuuid u1, u2;
    CU_OK(cuDeviceGetUuid(&u1, 0));
    CU_OK(cuDeviceGetUuid(&u2, 0));
    assert_memory_equal(&u1, &u2, sizeof u1);
    assert_int_equal((u1.bytes[6] >> 4) & 0xf, 4); /* a version-4 style UUID */
    size_t mem;
    CU_OK(cuDeviceTotalMem(&mem, 0));
    assert_int_equal(mem, (size_t)sysconf(_SC_PHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE));
    char bus[64];
    CU_OK(cuDeviceGetPCIBusId(bus, sizeof bus, 0));
    assert_string_equal(bus, "0000:00:00.0");
    CU_OK(cuDeviceGetByPCIBusId(&d, "0000:00:00.0"));
    CU_OK(cuDeviceGetByPCIBusId(&d, "00:00.0"));
    assert_int_equal(d, 0);
    CU_EXPECT(CUDA_ERROR_INVALID_DEVICE, cuDeviceGetByPCIBusId(&d, "0000:41:00.0"));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuDeviceGetByPCIBusId(&d, "not a bus id"));
    int major, minor;
    CU_OK(cuDeviceComputeCapability(&major, &minor, 0));
    int can = -1;
    CU_OK(cuDeviceCanAccessPeer(&can, 0, 0));
    assert_int_equal(can, 0);
}

/* Values a CUDA program sizes its work by. */
static void test_device_attributes(void **state)
{
    (void)state;
    assert_int_equal(attr(CU_DEVICE_ATTRIBUTE_WARP_SIZE), 32);
    assert_int_equal(attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK), 1024);
    assert_int_equal(attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X), 1024);
    assert_int_equal(attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y), 1024);
    assert_int_equal(attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z), 64);
    assert_int_equal(attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X), 2147483647);
    assert_int_equal(attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y), 65535);
    assert_int_equal(attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z), 65535);
    assert_int_equal(attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK), 49152);
    assert_int_equal(attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT), expected_workers());
    assert_int_equal(attr(CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING), 1);
    assert_int_equal(attr(CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY), 1);
    assert_int_equal(attr(CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS), 1);
    assert_int_equal(attr(CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH), 1);
    assert_int_equal(attr(CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY), 1);
    assert_int_equal(attr(CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY), 65536);
    assert_int_equal(attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK), 65536);
    assert_true(attr(CU_DEVICE_ATTRIBUTE_CLOCK_RATE) > 0);
    assert_true(attr(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE) > 0);
    assert_true(attr(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH) > 0);
    assert_true(attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE) > 0);
    int major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    int minor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    const char *cc = getenv("PTXJIT_CC");
    if (!cc) { /* the default: an sm_80 part (A100) */
        assert_int_equal(major, 8);
        assert_int_equal(minor, 0);
        assert_int_equal(attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN), 166912);
        assert_int_equal(attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR), 167936);
        assert_int_equal(attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR), 2048);
        assert_int_equal(attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR), 32);
    } else if (!strcmp(cc, "9.0")) { /* an sm_90 part (H100) */
        assert_int_equal(major, 9);
        assert_int_equal(minor, 0);
        assert_int_equal(attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN), 232448);
        assert_int_equal(attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR), 233472);
    }
    /* every attribute has a value; beyond the last one is an error */
    for (int a = 1; a <= 147; a++) {
        int v = -12345;
        CU_OK(cuDeviceGetAttribute(&v, (CUdevice_attribute)a, 0));
        assert_true(v != -12345);
    }
    int v;
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuDeviceGetAttribute(&v, (CUdevice_attribute)0, 0));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuDeviceGetAttribute(&v, (CUdevice_attribute)1000, 0));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuDeviceGetAttribute(NULL, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 0));
    CU_EXPECT(CUDA_ERROR_INVALID_DEVICE, cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 1));
    CUdevprop p;
    CU_OK(cuDeviceGetProperties(&p, 0));
    assert_int_equal(p.maxThreadsPerBlock, 1024);
    assert_int_equal(p.SIMDWidth, 32);
    assert_int_equal(p.maxGridSize[1], 65535);
}

typedef CUresult (*alloc_fn)(CUdeviceptr *, size_t);

/* Every function resolves by base name and version: the newest variant
 * not newer than the version asked for; the per-thread flavour on request. */
static void test_proc_address(void **state)
{
    (void)state;
    void *fn = NULL;
    CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    CU_OK(cuGetProcAddress("cuMemAlloc", &fn, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &st));
    assert_int_equal(st, CU_GET_PROC_ADDRESS_SUCCESS);
    assert_ptr_equal(fn, (void *)cuMemAlloc); /* cuMemAlloc_v2 */
    CU_OK(cuGetProcAddress("cuCtxCreate", &fn, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &st));
    void *v2 = fn;
    CU_OK(cuGetProcAddress("cuCtxCreate", &fn, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &st));
    assert_ptr_equal(fn, (void *)cuCtxCreate); /* cuCtxCreate_v4 */
    assert_ptr_not_equal(fn, v2);
    void *legacy, *ptds;
    CU_OK(cuGetProcAddress("cuMemcpyHtoD", &legacy, 13000, CU_GET_PROC_ADDRESS_LEGACY_STREAM, &st));
    CU_OK(cuGetProcAddress("cuMemcpyHtoD", &ptds, 13000,
                           CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &st));
    assert_ptr_equal(legacy, (void *)cuMemcpyHtoD);
    assert_ptr_not_equal(legacy, ptds);
    /* functions without a per-thread flavour give the plain one */
    CU_OK(cuGetProcAddress("cuDeviceGetCount", &ptds, 13000,
                           CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &st));
    assert_ptr_equal(ptds, (void *)cuDeviceGetCount);
    /* a resolved pointer works */
    alloc_fn f;
    CU_OK(cuGetProcAddress("cuMemAlloc", (void **)&f, 13000, 0, NULL));
    CUcontext ctx;
    CU_OK(cuDevicePrimaryCtxRetain(&ctx, 0));
    CU_OK(cuCtxPushCurrent(ctx));
    CUdeviceptr p = 0;
    CU_OK(f(&p, 64));
    assert_true(p != 0);
    CU_OK(cuMemFree(p));
    CU_OK(cuCtxPopCurrent(NULL));
    CU_OK(cuDevicePrimaryCtxRelease(0));
    /* unknown names and versions before a function existed: CUDA_SUCCESS
     * and a NULL function (the documentation; an H200's driver 580 too) */
    fn = (void *)1;
    CU_OK(cuGetProcAddress("cuNoSuchThing", &fn, 13000, 0, &st));
    assert_null(fn);
    assert_int_equal(st, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
    fn = (void *)1;
    CU_OK(cuGetProcAddress("cuLaunchKernelEx", &fn, 11000, 0, &st));
    assert_null(fn);
    assert_int_equal(st, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
    CU_OK(cuGetProcAddress("cuMemAlloc_v2", &fn, 13000, 0, &st));
    assert_null(fn);
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuGetProcAddress(NULL, &fn, 13000, 0, &st));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuGetProcAddress("cuInit", NULL, 13000, 0, &st));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuGetProcAddress("cuInit", &fn, 13000, 8, &st));
    /* an entry point ptxjit does not implement resolves and says so */
    CU_OK(cuGetProcAddress("cuGraphCreate", &fn, 13000, 0, &st));
    assert_non_null(fn);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_not_initialized),
        cmocka_unit_test(test_error_strings),
        cmocka_unit_test(test_device_identity),
        cmocka_unit_test(test_device_attributes),
        cmocka_unit_test(test_proc_address),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
