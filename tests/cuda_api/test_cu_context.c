/* test_cu_context.c - contexts: the primary context's reference counting,
 * reset and flags; created contexts; the per-thread current-context stack;
 * limits and configuration; misuse (destroyed and forged handles).
 * Expectations follow NVIDIA's driver API reference (defaults such as the
 * 1 KiB stack, 1 MiB printf FIFO and 8 MiB malloc heap are documented
 * there). */
#include "cu_test.h"

#include <malloc.h>

#include <pthread.h>

static int setup(void **state)
{
    (void)state;
    CU_OK(cuInit(0));
    return 0;
}

static void test_primary_refcount(void **state)
{
    (void)state;
    unsigned flags = 99;
    int active = -1;
    CU_OK(cuDevicePrimaryCtxGetState(0, &flags, &active));
    assert_int_equal(active, 0);
    CUcontext a, b;
    CU_OK(cuDevicePrimaryCtxRetain(&a, 0));
    CU_OK(cuDevicePrimaryCtxRetain(&b, 0));
    assert_ptr_equal(a, b);
    CU_OK(cuDevicePrimaryCtxGetState(0, &flags, &active));
    assert_int_equal(active, 1);
    CU_OK(cuCtxSetCurrent(a));
    CUdeviceptr p;
    CU_OK(cuMemAlloc(&p, 1024));
    CU_OK(cuDevicePrimaryCtxRelease(0));
    CU_OK(cuDevicePrimaryCtxGetState(0, &flags, &active));
    assert_int_equal(active, 1); /* one reference left */
    CU_OK(cuMemGetAddressRange(NULL, NULL, p));
    CU_OK(cuDevicePrimaryCtxRelease(0));
    CU_OK(cuDevicePrimaryCtxGetState(0, &flags, &active));
    assert_int_equal(active, 0);
    /* the context is current but no longer initialized: its memory went */
    CU_EXPECT(CUDA_ERROR_CONTEXT_IS_DESTROYED, cuMemGetAddressRange(NULL, NULL, p));
    CU_EXPECT(CUDA_ERROR_CONTEXT_IS_DESTROYED, cuMemAlloc(&p, 16));
    CU_EXPECT(CUDA_ERROR_INVALID_CONTEXT, cuDevicePrimaryCtxRelease(0));
    /* retaining again brings it back, under the same handle */
    CU_OK(cuDevicePrimaryCtxRetain(&b, 0));
    assert_ptr_equal(a, b);
    CU_OK(cuMemAlloc(&p, 16));
    CU_OK(cuMemFree(p));
    CU_OK(cuDevicePrimaryCtxRelease(0));
    CU_OK(cuCtxSetCurrent(NULL));
}

static void test_primary_reset_and_flags(void **state)
{
    (void)state;
    CUcontext c;
    CU_OK(cuDevicePrimaryCtxSetFlags(0, CU_CTX_SCHED_BLOCKING_SYNC));
    CU_OK(cuDevicePrimaryCtxRetain(&c, 0));
    unsigned flags;
    int active;
    CU_OK(cuDevicePrimaryCtxGetState(0, &flags, &active));
    assert_int_equal(flags, CU_CTX_SCHED_BLOCKING_SYNC);
    CU_OK(cuCtxPushCurrent(c));
    CU_OK(cuCtxGetFlags(&flags)); /* host memory is always mapped (as NVIDIA's driver says) */
    assert_int_equal(flags, CU_CTX_SCHED_BLOCKING_SYNC | CU_CTX_MAP_HOST);
    CUdeviceptr p;
    CU_OK(cuMemAlloc(&p, 4096));
    CU_OK(cuDevicePrimaryCtxReset(0));
    CU_OK(cuDevicePrimaryCtxGetState(0, &flags, &active));
    assert_int_equal(active, 0);
    CU_OK(cuDevicePrimaryCtxRetain(&c, 0));
    CU_EXPECT(CUDA_ERROR_NOT_FOUND, cuMemGetAddressRange(NULL, NULL, p)); /* reset freed it */
    CU_OK(cuDevicePrimaryCtxRelease(0));
    CU_OK(cuCtxPopCurrent(NULL));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuDevicePrimaryCtxSetFlags(0, 0x100));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuDevicePrimaryCtxSetFlags(0, 3)); /* spin|yield */
    CU_EXPECT(CUDA_ERROR_INVALID_DEVICE, cuDevicePrimaryCtxSetFlags(1, 0));
    CU_OK(cuDevicePrimaryCtxSetFlags(0, 0));
}

static void test_stack(void **state)
{
    (void)state;
    CUcontext a, b, cur;
    CU_OK(cuCtxCreate(&a, NULL, 0, 0));
    CU_OK(cuCtxGetCurrent(&cur));
    assert_ptr_equal(cur, a);
    CU_OK(cuCtxCreate(&b, NULL, CU_CTX_SCHED_SPIN, 0));
    CU_OK(cuCtxGetCurrent(&cur));
    assert_ptr_equal(cur, b);
    unsigned long long ida, idb;
    CU_OK(cuCtxGetId(a, &ida));
    CU_OK(cuCtxGetId(b, &idb));
    assert_true(ida != idb);
    CU_OK(cuCtxPopCurrent(&cur));
    assert_ptr_equal(cur, b);
    CU_OK(cuCtxGetCurrent(&cur));
    assert_ptr_equal(cur, a);
    CU_OK(cuCtxPushCurrent(b));
    CU_OK(cuCtxSetCurrent(a)); /* replaces the top */
    CU_OK(cuCtxPopCurrent(&cur));
    assert_ptr_equal(cur, a);
    CU_OK(cuCtxGetCurrent(&cur));
    assert_ptr_equal(cur, a);
    /* destroying the current context pops it */
    CU_OK(cuCtxPushCurrent(b));
    CU_OK(cuCtxDestroy(b));
    CU_OK(cuCtxGetCurrent(&cur));
    assert_ptr_equal(cur, a);
    CU_EXPECT(CUDA_ERROR_INVALID_CONTEXT, cuCtxDestroy(b)); /* NVIDIA's driver: this, or 709 */
    CU_EXPECT(CUDA_ERROR_INVALID_CONTEXT, cuCtxPushCurrent(b));
    CU_OK(cuCtxDestroy(a));
    CU_OK(cuCtxGetCurrent(&cur));
    assert_null(cur);
    CU_EXPECT(CUDA_ERROR_INVALID_CONTEXT, cuCtxPopCurrent(&cur));
    CU_EXPECT(CUDA_ERROR_INVALID_CONTEXT, cuCtxSynchronize());
    CUdeviceptr p;
    CU_EXPECT(CUDA_ERROR_INVALID_CONTEXT, cuMemAlloc(&p, 16));
}

/* The current context is per thread; a context destroyed by one thread is
 * CONTEXT_IS_DESTROYED for another that still has it current. */
typedef struct thread_arg {
    CUcontext ctx;
    CUresult before, alloc, after;
    pthread_barrier_t *bar;
} thread_arg;

static void *other_thread(void *p)
{
    thread_arg *t = p;
    CUcontext cur = (CUcontext)1;
    cuCtxGetCurrent(&cur);
    t->before = cur == NULL ? CUDA_SUCCESS : CUDA_ERROR_UNKNOWN;
    cuCtxSetCurrent(t->ctx);
    CUdeviceptr d;
    t->alloc = cuMemAlloc(&d, 64);
    pthread_barrier_wait(t->bar); /* main destroys the context */
    pthread_barrier_wait(t->bar);
    t->after = cuMemAlloc(&d, 64);
    return NULL;
}

static void test_per_thread_current(void **state)
{
    (void)state;
    CUcontext c;
    CU_OK(cuCtxCreate(&c, NULL, 0, 0));
    pthread_barrier_t bar;
    pthread_barrier_init(&bar, NULL, 2);
    thread_arg t = {c, CUDA_ERROR_UNKNOWN, CUDA_ERROR_UNKNOWN, CUDA_ERROR_UNKNOWN, &bar};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, other_thread, &t), 0);
    pthread_barrier_wait(&bar);
    CU_OK(cuCtxDestroy(c));
    pthread_barrier_wait(&bar);
    pthread_join(th, NULL);
    pthread_barrier_destroy(&bar);
    CU_OK(t.before);
    CU_OK(t.alloc);
    CU_EXPECT(CUDA_ERROR_CONTEXT_IS_DESTROYED, t.after);
}

static void test_limits_and_config(void **state)
{
    (void)state;
    CUcontext c;
    CU_OK(cuCtxCreate(&c, NULL, 0, 0));
    size_t v;
    CU_OK(cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE));
    assert_int_equal(v, 1024);
    CU_OK(cuCtxGetLimit(&v, CU_LIMIT_PRINTF_FIFO_SIZE));
    assert_int_equal(v, 1 << 20);
    CU_OK(cuCtxGetLimit(&v, CU_LIMIT_MALLOC_HEAP_SIZE));
    assert_int_equal(v, 8 << 20);
    CU_OK(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 4096));
    CU_OK(cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE));
    assert_int_equal(v, 4096);
    CU_OK(cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE, 64 << 20));
    CU_OK(cuCtxGetLimit(&v, CU_LIMIT_MALLOC_HEAP_SIZE));
    assert_int_equal(v, 64 << 20);
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuCtxSetLimit((CUlimit)100, 1));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuCtxGetLimit(NULL, CU_LIMIT_STACK_SIZE));
    CU_EXPECT(CUDA_ERROR_UNSUPPORTED_LIMIT, cuCtxSetLimit(CU_LIMIT_CIG_ENABLED, 1));
    CUfunc_cache cc;
    CU_OK(cuCtxGetCacheConfig(&cc));
    assert_int_equal(cc, CU_FUNC_CACHE_PREFER_NONE);
    CU_OK(cuCtxSetCacheConfig(CU_FUNC_CACHE_PREFER_SHARED));
    CU_OK(cuCtxGetCacheConfig(&cc));
    assert_int_equal(cc, CU_FUNC_CACHE_PREFER_SHARED);
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuCtxSetCacheConfig((CUfunc_cache)9));
    int least = 1, greatest = 1;
    CU_OK(cuCtxGetStreamPriorityRange(&least, &greatest));
    assert_int_equal(least, 0);
    assert_int_equal(greatest, -5);
    unsigned ver;
    CU_OK(cuCtxGetApiVersion(c, &ver));
    assert_int_equal(ver, 3020);
    CUdevice d = -1;
    CU_OK(cuCtxGetDevice(&d));
    assert_int_equal(d, 0);
    CU_OK(cuCtxSetFlags(CU_CTX_SYNC_MEMOPS));
    unsigned flags;
    CU_OK(cuCtxGetFlags(&flags));
    assert_int_equal(flags, CU_CTX_SYNC_MEMOPS | CU_CTX_MAP_HOST);
    CU_OK(cuCtxSynchronize());
    /* the other contexts of the device are not peers */
    CUcontext c2;
    CU_OK(cuCtxCreate(&c2, NULL, 0, 0));
    CU_EXPECT(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, cuCtxEnablePeerAccess(c, 0));
    CU_OK(cuCtxDestroy(c2));
    CU_OK(cuCtxDestroy(c));
}

static void test_misuse(void **state)
{
    (void)state;
    CUcontext c;
    int junk[16];
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuCtxCreate(NULL, NULL, 0, 0));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuCtxCreate(&c, NULL, 0x1000, 0));
    CU_EXPECT(CUDA_ERROR_INVALID_DEVICE, cuCtxCreate(&c, NULL, 0, 7));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuCtxDestroy(NULL));
    CU_EXPECT(CUDA_ERROR_INVALID_CONTEXT, cuCtxDestroy((CUcontext)junk));
    CU_EXPECT(CUDA_ERROR_INVALID_CONTEXT, cuCtxPushCurrent((CUcontext)junk));
    CU_EXPECT(CUDA_ERROR_INVALID_CONTEXT, cuCtxSetCurrent((CUcontext)junk));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuCtxGetCurrent(NULL));
    unsigned long long id;
    CU_EXPECT(CUDA_ERROR_INVALID_CONTEXT, cuCtxGetId((CUcontext)junk, &id));
    /* the primary context is not destroyed through cuCtxDestroy */
    CUcontext p;
    CU_OK(cuDevicePrimaryCtxRetain(&p, 0));
    CU_EXPECT(CUDA_ERROR_INVALID_CONTEXT, cuCtxDestroy(p));
    CU_OK(cuDevicePrimaryCtxRelease(0));
}

/* Creating and destroying contexts (with a stream and an allocation each)
 * leaks nothing: the host heap in use after 2000 cycles is what it was
 * after the first 100 (within 64 KiB; a leak of a few KiB a cycle would
 * show as megabytes). */
static void test_create_destroy_leaks_nothing(void **state)
{
    (void)state;
    CU_OK(cuInit(0));
    size_t base = 0;
    for (int i = 0; i < 2100; i++) {
        if (i == 100)
            base = mallinfo2().uordblks;
        CUcontext c;
        CU_OK(cuCtxCreate(&c, NULL, 0, 0));
        CUstream s;
        CU_OK(cuStreamCreate(&s, 0));
        CUdeviceptr p;
        CU_OK(cuMemAlloc(&p, 64));
        CU_OK(cuStreamDestroy(s));
        CU_OK(cuCtxDestroy(c));
    }
    size_t now = mallinfo2().uordblks;
    if (now > base + (64 << 10))
        fail_msg("heap in use grew from %zu to %zu bytes over 2000 contexts", base, now);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_primary_refcount),
        cmocka_unit_test(test_primary_reset_and_flags),
        cmocka_unit_test(test_stack),
        cmocka_unit_test(test_per_thread_current),
        cmocka_unit_test(test_limits_and_config),
        cmocka_unit_test(test_misuse),
        cmocka_unit_test(test_create_destroy_leaks_nothing),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
