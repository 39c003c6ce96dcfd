/* test_cu_stress.c - many host threads at once: 8 threads, each with two
 * streams of its own, 1000 iterations of copy in, kernel, event, cross-
 * stream wait and copy out; every result checked against C.  Plus threads
 * that create and destroy their own contexts, modules and allocations while
 * the others launch.  Kernel: scale_inplace from tests/cuda/vector_ops.cu
 * (x[i] *= s for i < n). */
#include "cu_test.h"

#include <pthread.h>

enum { THREADS = 8, ITERS = 1000, N = 256 };

static CUcontext primary;
static CUfunction scale;

typedef struct worker {
    int id;
    int bad;          /* wrong results */
    CUresult err;     /* first failing call */
    int line;
} worker;

#define TRY(w, call)                                                                           \
    do {                                                                                       \
        CUresult r_ = (call);                                                                  \
        if (r_ != CUDA_SUCCESS && (w)->err == CUDA_SUCCESS) {                                  \
            (w)->err = r_;                                                                     \
            (w)->line = __LINE__;                                                              \
        }                                                                                      \
    } while (0)

static void *launch_loop(void *arg)
{
    worker *w = arg;
    TRY(w, cuCtxSetCurrent(primary));
    CUstream s[2];
    CUevent ev[2];
    CUdeviceptr d[2];
    float *h[2], src[N];
    for (int k = 0; k < 2; k++) {
        TRY(w, cuStreamCreate(&s[k], k ? CU_STREAM_NON_BLOCKING : CU_STREAM_DEFAULT));
        TRY(w, cuEventCreate(&ev[k], CU_EVENT_DISABLE_TIMING));
        TRY(w, cuMemAlloc(&d[k], N * sizeof(float)));
        TRY(w, cuMemAllocHost((void **)&h[k], N * sizeof(float)));
    }
    if (w->err)
        return NULL;
    for (int i = 0; i < ITERS && !w->err; i++) {
        int k = i & 1;
        float base = (float)(w->id * ITERS + i);
        for (int j = 0; j < N; j++)
            src[j] = base + (float)j;
        float factor = k ? 3.0f : 2.0f;
        unsigned n = N;
        void *args[] = {&d[k], &factor, &n};
        if (k) /* stream 1 also waits for stream 0's last work */
            TRY(w, cuStreamWaitEvent(s[1], ev[0], 0));
        TRY(w, cuMemcpyHtoDAsync(d[k], src, sizeof src, s[k]));
        TRY(w, cuLaunchKernel(scale, 2, 1, 1, 128, 1, 1, 0, s[k], args, NULL));
        TRY(w, cuEventRecord(ev[k], s[k]));
        TRY(w, cuMemcpyDtoHAsync(h[k], d[k], sizeof src, s[k]));
        if (k) {
            TRY(w, cuStreamSynchronize(s[0]));
            TRY(w, cuEventSynchronize(ev[1]));
            TRY(w, cuStreamSynchronize(s[1]));
            for (int j = 0; j < N; j++) {
                w->bad += h[0][j] != ((base - 1.0f) + (float)j) * 2.0f;
                w->bad += h[1][j] != (base + (float)j) * 3.0f;
            }
        }
    }
    for (int k = 0; k < 2; k++) {
        TRY(w, cuStreamDestroy(s[k]));
        TRY(w, cuEventDestroy(ev[k]));
        TRY(w, cuMemFree(d[k]));
        TRY(w, cuMemFreeHost(h[k]));
    }
    return NULL;
}

/* Context churn beside the launches: create, load, launch, destroy. */
static void *churn(void *arg)
{
    worker *w = arg;
    char *ptx = cu_test_corpus("vector_ops.sm_80.ptx");
    for (int i = 0; i < 5 && !w->err; i++) {
        CUcontext c;
        TRY(w, cuCtxCreate(&c, NULL, 0, 0));
        CUmodule m;
        CUfunction f;
        TRY(w, cuModuleLoadData(&m, ptx));
        TRY(w, cuModuleGetFunction(&f, m, "scale_inplace"));
        CUdeviceptr d;
        TRY(w, cuMemAlloc(&d, N * sizeof(float)));
        TRY(w, cuMemsetD32(d, 0x3f800000, N)); /* 1.0f */
        float factor = 5.0f;
        unsigned n = N;
        void *args[] = {&d, &factor, &n};
        TRY(w, cuLaunchKernel(f, 2, 1, 1, 128, 1, 1, 0, NULL, args, NULL));
        float back[N];
        TRY(w, cuMemcpyDtoH(back, d, sizeof back));
        for (int j = 0; j < N && !w->err; j++)
            w->bad += back[j] != 5.0f;
        TRY(w, cuCtxDestroy(c)); /* frees the module and the memory */
    }
    free(ptx);
    return NULL;
}

static void test_threads_streams_events(void **state)
{
    (void)state;
    worker ws[THREADS + 2];
    pthread_t t[THREADS + 2];
    for (int i = 0; i < THREADS + 2; i++) {
        ws[i] = (worker){i, 0, CUDA_SUCCESS, 0};
        assert_int_equal(pthread_create(&t[i], NULL, i < THREADS ? launch_loop : churn, &ws[i]), 0);
    }
    for (int i = 0; i < THREADS + 2; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < THREADS + 2; i++) {
        if (ws[i].err)
            fail_msg("thread %d: line %d returned %s", i, ws[i].line, cu_test_name(ws[i].err));
        assert_int_equal(ws[i].bad, 0);
    }
}

int main(void)
{
    primary = cu_test_primary();
    CUmodule m = cu_test_load("vector_ops.sm_80.ptx");
    CU_OK(cuModuleGetFunction(&scale, m, "scale_inplace"));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_streams_events),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    CU_OK(cuModuleUnload(m));
    CU_OK(cuDevicePrimaryCtxRelease(0));
    return rc;
}
