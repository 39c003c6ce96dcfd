/* test_cu_abi12.c - PTXJIT_CUDA_ABI (rt/cuda/abi.c): by default the CUDA 13
 * ABI (driver version 13000; cuCtxGetDevice_v2 and cuCtxSynchronize_v2 take
 * a context and refuse a bad one); with PTXJIT_CUDA_ABI=12 (ctest runs this
 * test both ways) the driver reports 12.9 and those names act as CUDA 12's
 * cuCtxGetDevice and cuCtxSynchronize, as a CUDA-12-era client that found
 * them by name calls them: whatever is in the second argument's register is
 * ignored. */
#include "cu_test.h"

static bool abi12(void)
{
    const char *v = getenv("PTXJIT_CUDA_ABI");
    return v && !strcmp(v, "12");
}

static void test_abi(void **state)
{
    (void)state;
    cu_test_primary();
    int version = 0;
    CU_OK(cuDriverGetVersion(&version));
    assert_int_equal(version, abi12() ? 12090 : 13000);

    CUcontext garbage = (CUcontext)(uintptr_t)0x5eed;
    CUdevice dev = -1;
    CUresult r = cuCtxGetDevice_v2(&dev, garbage);
    if (abi12()) {
        CU_OK(r);
        assert_int_equal(dev, 0);
        CU_OK(cuCtxSynchronize_v2(garbage));
    } else {
        CU_EXPECT(CUDA_ERROR_INVALID_CONTEXT, r);
        CU_EXPECT(CUDA_ERROR_INVALID_CONTEXT, cuCtxSynchronize_v2(garbage));
        CU_OK(cuCtxGetDevice_v2(&dev, NULL));
        assert_int_equal(dev, 0);
    }
    /* the unversioned names are the same in both */
    CU_OK(cuCtxSynchronize());
    dev = -1;
    CU_OK(cuCtxGetDevice(&dev));
    assert_int_equal(dev, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_abi)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
