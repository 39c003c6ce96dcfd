/* test_cu_primary_race.c - the primary context retained and released by
 * several threads at once, each working in it while it holds a
 * reference: a last release waits for the context's work, and a retain
 * arriving meanwhile must get a context that stays alive until its own
 * release (not one the waiting release then tears down).  A release waits
 * for calls in flight too: another thread keeps the primary context
 * current without a reference (as a runtime's threads may) and keeps
 * synchronizing in it, which is CONTEXT_IS_DESTROYED while it is inactive.  Every call
 * made while holding a reference succeeds and every memset reads back;
 * the process survives. */
#include "cu_test.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

/* Fewer rounds under a sanitizer, ten times slower. */
#if defined(__SANITIZE_ADDRESS__)
enum { ROUNDS = 100 };
#else
enum { ROUNDS = 400 };
#endif
enum { THREADS = 4, WORDS = 1 << 16 };

typedef struct worker_result {
    int round;
    const char *what;
    CUresult r;
} worker_result;

/* One thread: retain, queue work (so that a last release has something to
 * wait for), check it, release. */
static void *worker_main(void *arg)
{
    unsigned id = (unsigned)(uintptr_t)arg;
    worker_result *res = calloc(1, sizeof *res);
    uint32_t *host = malloc(WORDS * sizeof *host);
    for (int i = 0; i < ROUNDS && res->r == CUDA_SUCCESS; i++) {
        res->round = i;
        CUcontext ctx;
        CUdeviceptr p = 0;
        uint32_t value = id << 16 | (unsigned)i;
#define STEP(x)                                                                                    \
    if (res->r == CUDA_SUCCESS && (res->r = (x)) != CUDA_SUCCESS)                                  \
    res->what = #x
        STEP(cuDevicePrimaryCtxRetain(&ctx, 0));
        if (res->r)
            break;
        STEP(cuCtxSetCurrent(ctx));
        STEP(cuMemAlloc(&p, WORDS * sizeof *host));
        STEP(cuMemsetD32Async(p, value, WORDS, NULL));
        STEP(cuMemcpyDtoH(host, p, WORDS * sizeof *host));
        if (!res->r)
            for (size_t k = 0; k < WORDS; k++)
                if (host[k] != value) {
                    res->r = CUDA_ERROR_UNKNOWN;
                    res->what = "the memset's words read back";
                    break;
                }
        /* work left queued for the release; the allocation goes with the
         * context when the last reference is released */
        STEP(cuMemsetD32Async(p, ~value, WORDS, NULL));
        STEP(cuCtxSetCurrent(NULL));
        STEP(cuDevicePrimaryCtxRelease(0));
#undef STEP
        /* so that now and then every reference is released */
        usleep((id * 37 + (unsigned)i * 11) % 400);
    }
    free(host);
    return res;
}

static atomic_bool done;

/* Works in the primary context without holding a reference: a memset
 * of 8 MiB, then a free that waits for it.  While the context is
 * inactive that is CONTEXT_IS_DESTROYED; an allocation that went with an
 * earlier activation is INVALID_VALUE. */
static void *bystander_main(void *arg)
{
    CUcontext ctx = arg;
    CUresult bad = CUDA_SUCCESS;
    if (cuCtxSetCurrent(ctx) != CUDA_SUCCESS)
        bad = CUDA_ERROR_UNKNOWN;
    while (!bad && !atomic_load(&done)) {
        CUdeviceptr p;
        CUresult r = cuMemAlloc(&p, 8 << 20);
        if (r == CUDA_SUCCESS && (r = cuMemsetD32Async(p, 7, 2 << 20, NULL)) == CUDA_SUCCESS)
            r = cuMemFree(p);
        if (r != CUDA_SUCCESS && r != CUDA_ERROR_CONTEXT_IS_DESTROYED &&
            r != CUDA_ERROR_INVALID_VALUE)
            bad = r;
    }
    return (void *)(uintptr_t)bad;
}

static void test_retain_release_race(void **state)
{
    (void)state;
    CUcontext primary;
    CU_OK(cuDevicePrimaryCtxRetain(&primary, 0));
    CU_OK(cuDevicePrimaryCtxRelease(0));
    pthread_t bystander, t[THREADS];
    assert_int_equal(pthread_create(&bystander, NULL, bystander_main, primary), 0);
    for (unsigned i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, worker_main, (void *)(uintptr_t)i), 0);
    for (int i = 0; i < THREADS; i++) {
        worker_result *res;
        assert_int_equal(pthread_join(t[i], (void **)&res), 0);
        if (res->r)
            fail_msg("thread %d, round %d: %s gave %s", i, res->round, res->what,
                     cu_test_name(res->r));
        free(res);
    }
    atomic_store(&done, true);
    void *bad;
    assert_int_equal(pthread_join(bystander, &bad), 0);
    if (bad)
        fail_msg("working without a reference gave %s", cu_test_name((CUresult)(uintptr_t)bad));
    /* every reference was released: the context is inactive, and comes back */
    unsigned flags;
    int active;
    CU_OK(cuDevicePrimaryCtxGetState(0, &flags, &active));
    assert_int_equal(active, 0);
    CUcontext ctx;
    CU_OK(cuDevicePrimaryCtxRetain(&ctx, 0));
    CU_OK(cuCtxSetCurrent(ctx));
    CUdeviceptr p;
    CU_OK(cuMemAlloc(&p, 64));
    CU_OK(cuMemsetD8(p, 1, 64));
    CU_OK(cuCtxSynchronize());
    CU_OK(cuMemFree(p));
    CU_OK(cuDevicePrimaryCtxRelease(0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_retain_release_race),
    };
    CU_OK(cuInit(0));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
