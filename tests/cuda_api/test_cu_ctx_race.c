/* test_cu_ctx_race.c - cuCtxDestroy while other threads work in the
 * context: each of them sees its calls fail with
 * CUDA_ERROR_CONTEXT_IS_DESTROYED (or, for the handles that went with the
 * context, CUDA_ERROR_INVALID_HANDLE / _CONTEXT) from then on, never a
 * use after free; the process goes on creating contexts and launching. */
#include "cu_test.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

enum { WORKERS = 3, N = 4096 };

typedef struct race {
    CUcontext ctx;
    CUfunction f;
    CUdeviceptr a, c;
    atomic_int started;
    atomic_int launches;
} race;

typedef struct worker_result {
    CUresult first_error;
    long launches;
} worker_result;

static bool acceptable(CUresult r)
{
    return r == CUDA_ERROR_CONTEXT_IS_DESTROYED || r == CUDA_ERROR_INVALID_HANDLE ||
           r == CUDA_ERROR_INVALID_CONTEXT;
}

/* Launches, copies and synchronizes in the shared context until a call
 * fails; records the first failure. */
static void *worker_main(void *arg)
{
    race *rc = arg;
    worker_result *res = calloc(1, sizeof *res);
    if (cuCtxSetCurrent(rc->ctx) != CUDA_SUCCESS) {
        res->first_error = CUDA_ERROR_CONTEXT_IS_DESTROYED;
        atomic_fetch_add(&rc->started, 1);
        return res;
    }
    atomic_fetch_add(&rc->started, 1);
    int n = N;
    void *args[] = {&rc->a, &rc->a, &rc->c, &n};
    float host[16];
    for (;;) {
        CUresult r = cuLaunchKernel(rc->f, N / 256, 1, 1, 256, 1, 1, 0, NULL, args, NULL);
        if (r == CUDA_SUCCESS)
            r = cuMemcpyDtoH(host, rc->c, sizeof host);
        if (r == CUDA_SUCCESS)
            r = cuStreamSynchronize(NULL);
        if (r == CUDA_SUCCESS)
            r = cuCtxSynchronize();
        if (r != CUDA_SUCCESS) {
            res->first_error = r;
            break;
        }
        res->launches++;
        atomic_fetch_add(&rc->launches, 1);
    }
    return res;
}

static void one_round(void)
{
    race rc = {0};
    CU_OK(cuCtxCreate(&rc.ctx, NULL, 0, 0));
    CUmodule m = cu_test_load("vector_ops.sm_80.ptx");
    CU_OK(cuModuleGetFunction(&rc.f, m, "vec_add"));
    CU_OK(cuMemAlloc(&rc.a, N * sizeof(float)));
    CU_OK(cuMemAlloc(&rc.c, N * sizeof(float)));
    pthread_t t[WORKERS];
    for (int i = 0; i < WORKERS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, worker_main, &rc), 0);
    while (atomic_load(&rc.started) < WORKERS || atomic_load(&rc.launches) < 3 * WORKERS)
        sched_yield();
    CU_OK(cuCtxDestroy(rc.ctx));
    for (int i = 0; i < WORKERS; i++) {
        worker_result *res;
        assert_int_equal(pthread_join(t[i], (void **)&res), 0);
        if (!acceptable(res->first_error))
            fail_msg("worker %d: %s after %ld launches", i, cu_test_name(res->first_error),
                     res->launches);
        free(res);
    }
}

static void test_destroy_under_launches(void **state)
{
    (void)state;
    for (int i = 0; i < 20; i++)
        one_round();
    /* the driver still works */
    CUcontext c;
    CU_OK(cuCtxCreate(&c, NULL, 0, 0));
    CUdeviceptr p;
    CU_OK(cuMemAlloc(&p, 64));
    CU_OK(cuMemsetD8(p, 1, 64));
    CU_OK(cuCtxSynchronize());
    CU_OK(cuCtxDestroy(c));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_destroy_under_launches),
    };
    CU_OK(cuInit(0));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
