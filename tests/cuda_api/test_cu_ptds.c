/* test_cu_ptds.c - a program built with CUDA_API_PER_THREAD_DEFAULT_STREAM
 * (nvcc --default-stream per-thread): the header routes stream-ordered
 * calls to their _ptds/_ptsz entry points, where the NULL stream is the
 * calling thread's own default stream rather than the legacy one.  Each
 * thread's NULL stream is distinct (and distinct from CU_STREAM_LEGACY),
 * is the same stream as CU_STREAM_PER_THREAD, and work in it is ordered. */
#define CUDA_API_PER_THREAD_DEFAULT_STREAM 1
#include "cu_test.h"

#include <pthread.h>

static CUcontext ctx;
static CUfunction scale;

typedef struct ids {
    unsigned long long null_id, per_thread_id;
    int bad;
    CUresult err;
} ids;

static void *thread_main(void *arg)
{
    ids *t = arg;
    cuCtxSetCurrent(ctx);
    t->err = cuStreamGetId(NULL, &t->null_id);
    if (!t->err)
        t->err = cuStreamGetId(CU_STREAM_PER_THREAD, &t->per_thread_id);
    /* kernels and copies in this thread's NULL stream, in order */
    float h[256];
    for (int i = 0; i < 256; i++)
        h[i] = (float)i;
    CUdeviceptr d;
    if (!t->err)
        t->err = cuMemAlloc(&d, sizeof h);
    float f = 2.0f;
    unsigned n = 256;
    void *args[] = {&d, &f, &n};
    for (int rep = 0; rep < 20 && !t->err; rep++) {
        t->err = cuMemcpyHtoDAsync(d, h, sizeof h, NULL);
        if (!t->err)
            t->err = cuLaunchKernel(scale, 2, 1, 1, 128, 1, 1, 0, NULL, args, NULL);
        float back[256];
        if (!t->err)
            t->err = cuMemcpyDtoHAsync(back, d, sizeof back, NULL);
        if (!t->err)
            t->err = cuStreamSynchronize(NULL);
        for (int i = 0; i < 256 && !t->err; i++)
            t->bad += back[i] != 2.0f * h[i];
    }
    if (!t->err)
        t->err = cuMemFree(d);
    return NULL;
}

static void test_per_thread_streams(void **state)
{
    (void)state;
    ids t[3] = {{0}};
    pthread_t th[3];
    for (int i = 0; i < 3; i++)
        assert_int_equal(pthread_create(&th[i], NULL, thread_main, &t[i]), 0);
    for (int i = 0; i < 3; i++)
        pthread_join(th[i], NULL);
    unsigned long long legacy;
    CU_OK(cuStreamGetId(CU_STREAM_LEGACY, &legacy));
    for (int i = 0; i < 3; i++) {
        CU_OK(t[i].err);
        assert_int_equal(t[i].bad, 0);
        assert_true(t[i].null_id == t[i].per_thread_id);
        assert_true(t[i].null_id != legacy);
        for (int j = 0; j < i; j++)
            assert_true(t[i].null_id != t[j].null_id);
    }
}

/* The header bound the per-thread entry points, and cuGetProcAddress hands
 * out the same ones for CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM. */
static void test_bindings(void **state)
{
    (void)state;
    void *fn;
    CU_OK(cuGetProcAddress("cuLaunchKernel", &fn, 13000,
                           CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, NULL));
    assert_ptr_equal(fn, (void *)cuLaunchKernel);
    CU_OK(cuGetProcAddress("cuMemcpyHtoD", &fn, 13000,
                           CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, NULL));
    assert_ptr_equal(fn, (void *)cuMemcpyHtoD);
    void *legacy;
    CU_OK(cuGetProcAddress("cuLaunchKernel", &legacy, 13000, CU_GET_PROC_ADDRESS_LEGACY_STREAM,
                           NULL));
    assert_ptr_not_equal((void *)cuLaunchKernel, legacy);
}

int main(void)
{
    ctx = cu_test_primary();
    CUmodule m = cu_test_load("vector_ops.sm_80.ptx");
    CU_OK(cuModuleGetFunction(&scale, m, "scale_inplace"));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_per_thread_streams),
        cmocka_unit_test(test_bindings),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    CU_OK(cuModuleUnload(m));
    CU_OK(cuDevicePrimaryCtxRelease(0));
    return rc;
}
