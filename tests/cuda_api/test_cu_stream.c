/* test_cu_stream.c - streams and events: creation with flags and
 * priorities, ordering of kernels, copies and host functions within a
 * stream, cross-stream waits on events, event timing, stream memory
 * operations, and misuse of destroyed or forged handles.  Kernels come
 * from tests/cuda/vector_ops.cu; results are checked against C. */
#include "cu_test.h"

#include <pthread.h>

static CUmodule mod;
static CUfunction scale; /* scale_inplace(float *x, float s, unsigned n): x[i] *= s */

static int setup(void **state)
{
    (void)state;
    cu_test_primary();
    mod = cu_test_load("vector_ops.sm_80.ptx");
    CU_OK(cuModuleGetFunction(&scale, mod, "scale_inplace"));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    CU_OK(cuModuleUnload(mod));
    CU_OK(cuDevicePrimaryCtxRelease(0));
    return 0;
}

static CUresult launch_scale(CUstream s, CUdeviceptr x, float factor, unsigned n)
{
    void *args[] = {&x, &factor, &n};
    return cuLaunchKernel(scale, (n + 127) / 128, 1, 1, 128, 1, 1, 0, s, args, NULL);
}

static void test_create_and_query(void **state)
{
    (void)state;
    CUstream a, b;
    CU_OK(cuStreamCreate(&a, CU_STREAM_NON_BLOCKING));
    CU_OK(cuStreamCreateWithPriority(&b, 0, -100)); /* clamped to the greatest */
    int prio;
    CU_OK(cuStreamGetPriority(b, &prio));
    assert_int_equal(prio, -5);
    CU_OK(cuStreamGetPriority(a, &prio));
    assert_int_equal(prio, 0);
    unsigned flags;
    CU_OK(cuStreamGetFlags(a, &flags));
    assert_int_equal(flags, CU_STREAM_NON_BLOCKING);
    CU_OK(cuStreamGetFlags(b, &flags));
    assert_int_equal(flags, 0);
    CUcontext c, cur;
    CU_OK(cuStreamGetCtx(a, &c));
    CU_OK(cuCtxGetCurrent(&cur));
    assert_ptr_equal(c, cur);
    unsigned long long ia, ib, inull;
    CU_OK(cuStreamGetId(a, &ia));
    CU_OK(cuStreamGetId(b, &ib));
    CU_OK(cuStreamGetId(NULL, &inull));
    assert_true(ia != ib && ia != inull && ib != inull);
    CUdevice d = -1;
    CU_OK(cuStreamGetDevice(a, &d));
    assert_int_equal(d, 0);
    CUstreamCaptureStatus cs;
    CU_OK(cuStreamIsCapturing(a, &cs));
    assert_int_equal(cs, CU_STREAM_CAPTURE_STATUS_NONE);
    CU_OK(cuStreamQuery(a));
    CU_OK(cuStreamSynchronize(a));
    CU_OK(cuStreamSynchronize(CU_STREAM_LEGACY));
    CU_OK(cuStreamSynchronize(CU_STREAM_PER_THREAD));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuStreamCreate(&a, 4));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuStreamCreate(NULL, 0));
    CU_OK(cuStreamDestroy(a));
    CU_OK(cuStreamDestroy(b));
    /* destroyed, NULL and forged handles */
    CU_EXPECT(CUDA_ERROR_INVALID_HANDLE, cuStreamDestroy(a));
    CU_EXPECT(CUDA_ERROR_INVALID_HANDLE, cuStreamSynchronize(a));
    CU_EXPECT(CUDA_ERROR_INVALID_HANDLE, cuStreamQuery(a));
    CU_EXPECT(CUDA_ERROR_INVALID_HANDLE, cuStreamDestroy(NULL));
    int junk[8];
    CU_EXPECT(CUDA_ERROR_INVALID_HANDLE, cuStreamGetPriority((CUstream)junk, &prio));
}

/* Host functions see the effects of the work before them in the stream. */
typedef struct seen {
    CUdeviceptr x;
    float first;
    int calls;
    CUresult status;
    CUstream stream;
} seen;

static void host_fn(void *p)
{
    seen *s = p;
    s->first = *(float *)(uintptr_t)s->x; /* device memory is host memory */
    s->calls++;
}

static void callback(CUstream stream, CUresult status, void *p)
{
    seen *s = p;
    s->status = status;
    s->stream = stream;
    s->calls++;
}

static void test_order_within_stream(void **state)
{
    (void)state;
    enum { N = 1000 };
    float h[N];
    for (int i = 0; i < N; i++)
        h[i] = (float)(i + 1);
    CUstream s;
    CU_OK(cuStreamCreate(&s, 0));
    CUdeviceptr x;
    CU_OK(cuMemAlloc(&x, sizeof h));
    seen sn = {x, 0, 0, CUDA_ERROR_UNKNOWN, NULL};
    CU_OK(cuMemcpyHtoDAsync(x, h, sizeof h, s));
    CU_OK(launch_scale(s, x, 2.0f, N));
    CU_OK(launch_scale(s, x, -0.5f, N));
    CU_OK(cuLaunchHostFunc(s, host_fn, &sn));
    CU_OK(launch_scale(s, x, 3.0f, N));
    CU_OK(cuStreamAddCallback(s, callback, &sn, 0));
    float back[N];
    CU_OK(cuMemcpyDtoHAsync(back, x, sizeof back, s));
    CU_OK(cuStreamSynchronize(s));
    assert_int_equal(sn.calls, 2);
    assert_true(sn.first == -1.0f); /* 1 * 2 * -0.5, before the last scale */
    CU_OK(sn.status);
    assert_ptr_equal(sn.stream, s);
    for (int i = 0; i < N; i++)
        assert_true(back[i] == h[i] * 2.0f * -0.5f * 3.0f);
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuLaunchHostFunc(s, NULL, NULL));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuStreamAddCallback(s, callback, &sn, 1));
    CU_OK(cuMemFree(x));
    CU_OK(cuStreamDestroy(s));
}

static void test_events(void **state)
{
    (void)state;
    enum { N = 1 << 16 };
    CUevent start, stop, untimed, never;
    CU_OK(cuEventCreate(&start, CU_EVENT_DEFAULT));
    CU_OK(cuEventCreate(&stop, CU_EVENT_BLOCKING_SYNC));
    CU_OK(cuEventCreate(&untimed, CU_EVENT_DISABLE_TIMING));
    CU_OK(cuEventCreate(&never, 0));
    CU_OK(cuEventQuery(never)); /* never recorded: complete */
    CU_OK(cuEventSynchronize(never));
    CUstream s;
    CU_OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CUdeviceptr x;
    CU_OK(cuMemAlloc(&x, N * 4));
    CU_OK(cuMemsetD32(x, 0x3f800000, N)); /* 1.0f */
    CU_OK(cuEventRecord(start, s));
    for (int i = 0; i < 20; i++)
        CU_OK(launch_scale(s, x, 1.0f, N));
    CU_OK(cuEventRecordWithFlags(stop, s, CU_EVENT_RECORD_DEFAULT));
    CU_OK(cuEventRecord(untimed, s));
    CU_OK(cuEventSynchronize(stop));
    CU_OK(cuEventQuery(stop));
    float ms = -1;
    CU_OK(cuEventElapsedTime(&ms, start, stop));
    assert_true(ms >= 0.0f && ms < 60000.0f);
    CU_EXPECT(CUDA_ERROR_INVALID_HANDLE, cuEventElapsedTime(&ms, start, untimed));
    CU_EXPECT(CUDA_ERROR_INVALID_HANDLE, cuEventElapsedTime(&ms, start, never));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuEventElapsedTime(NULL, start, stop));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuEventCreate(&never, 0x40));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuEventRecordWithFlags(stop, s, 0x10));
    CU_OK(cuEventDestroy(start));
    CU_EXPECT(CUDA_ERROR_INVALID_HANDLE, cuEventQuery(start));
    CU_EXPECT(CUDA_ERROR_INVALID_HANDLE, cuEventRecord(start, s));
    CU_EXPECT(CUDA_ERROR_INVALID_HANDLE, cuEventDestroy(start));
    CU_OK(cuEventDestroy(stop));
    CU_OK(cuEventDestroy(untimed));
    CU_OK(cuEventDestroy(never));
    CU_OK(cuStreamDestroy(s));
    CU_OK(cuMemFree(x));
}

/* A producer thread's stream and a consumer thread's stream: the
 * consumer waits on the producer's event before it scales. */
typedef struct handoff {
    CUcontext ctx;
    CUstream s;
    CUevent ready;
    CUdeviceptr x;
    pthread_barrier_t *recorded;
    CUresult r;
} handoff;

static void *producer(void *p)
{
    handoff *h = p;
    cuCtxSetCurrent(h->ctx);
    h->r = launch_scale(h->s, h->x, 4.0f, 512);
    if (!h->r)
        h->r = cuEventRecord(h->ready, h->s);
    pthread_barrier_wait(h->recorded);
    return NULL;
}

static void test_cross_stream_wait(void **state)
{
    (void)state;
    float init[512];
    for (int i = 0; i < 512; i++)
        init[i] = (float)i;
    pthread_barrier_t bar;
    pthread_barrier_init(&bar, NULL, 2);
    handoff h = {NULL, NULL, NULL, 0, &bar, CUDA_ERROR_UNKNOWN};
    CU_OK(cuCtxGetCurrent(&h.ctx));
    CU_OK(cuStreamCreate(&h.s, CU_STREAM_NON_BLOCKING));
    CU_OK(cuEventCreate(&h.ready, CU_EVENT_DISABLE_TIMING));
    CU_OK(cuMemAlloc(&h.x, sizeof init));
    CU_OK(cuMemcpyHtoD(h.x, init, sizeof init));
    CUstream mine;
    CU_OK(cuStreamCreate(&mine, CU_STREAM_NON_BLOCKING));
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, producer, &h), 0);
    pthread_barrier_wait(&bar);
    CU_OK(cuStreamWaitEvent(mine, h.ready, 0));
    CU_OK(launch_scale(mine, h.x, 0.5f, 512));
    float back[512];
    CU_OK(cuMemcpyDtoHAsync(back, h.x, sizeof back, mine));
    CU_OK(cuStreamSynchronize(mine));
    pthread_join(t, NULL);
    CU_OK(h.r);
    for (int i = 0; i < 512; i++)
        assert_true(back[i] == init[i] * 2.0f);
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuStreamWaitEvent(mine, h.ready, 0x8));
    CU_OK(cuEventDestroy(h.ready));
    CU_EXPECT(CUDA_ERROR_INVALID_HANDLE, cuStreamWaitEvent(mine, h.ready, 0));
    CU_OK(cuStreamDestroy(h.s));
    CU_OK(cuStreamDestroy(mine));
    CU_OK(cuMemFree(h.x));
    pthread_barrier_destroy(&bar);
}

/* The NULL stream orders with blocking streams: work in s, then in the
 * NULL stream, then in s again, sees each other's results. */
static void test_legacy_stream_ordering(void **state)
{
    (void)state;
    CUstream s;
    CU_OK(cuStreamCreate(&s, CU_STREAM_DEFAULT));
    CUdeviceptr x;
    CU_OK(cuMemAlloc(&x, 256 * 4));
    CU_OK(cuMemsetD32Async(x, 0x40000000, 256, s)); /* 2.0f */
    CU_OK(launch_scale(NULL, x, 3.0f, 256));
    CU_OK(launch_scale(s, x, 5.0f, 256));
    float back[256];
    CU_OK(cuMemcpyDtoH(back, x, sizeof back)); /* synchronous: waits for s too */
    for (int i = 0; i < 256; i++)
        assert_true(back[i] == 30.0f);
    CU_OK(cuStreamDestroy(s));
    CU_OK(cuMemFree(x));
}

static void test_stream_memory_operations(void **state)
{
    (void)state;
    CUdeviceptr flag;
    CU_OK(cuMemAlloc(&flag, 16));
    CU_OK(cuMemsetD8(flag, 0, 16));
    CU_OK(cuStreamWriteValue32(NULL, flag, 0xabcd1234u, 0));
    CU_OK(cuStreamWriteValue64(NULL, flag + 8, 0x1122334455667788ull, 0));
    CU_OK(cuStreamSynchronize(NULL));
    uint32_t w[4];
    CU_OK(cuMemcpyDtoH(w, flag, 16));
    assert_int_equal(w[0], 0xabcd1234u);
    assert_int_equal(w[2], 0x55667788u);
    assert_int_equal(w[3], 0x11223344u);
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuStreamWriteValue32(NULL, flag + 2, 1, 0));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuStreamWriteValue32(NULL, (CUdeviceptr)0x100, 1, 0));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuStreamWaitValue32(NULL, flag, 1, 0x10));
    /* A stream held by a wait: its later work runs only once the host
     * writes the value (device memory is host memory), and the wait of a
     * second stream is released by the first stream's write. */
    CUstream a, b;
    CU_OK(cuStreamCreate(&a, CU_STREAM_NON_BLOCKING));
    CU_OK(cuStreamCreate(&b, CU_STREAM_NON_BLOCKING));
    CUdeviceptr x;
    CU_OK(cuMemAlloc(&x, 64 * 4));
    CU_OK(cuMemsetD32(x, 0x3f800000, 64)); /* 1.0f */
    CU_OK(cuMemsetD8(flag, 0, 16));
    CU_OK(cuStreamWaitValue32(a, flag, 5, CU_STREAM_WAIT_VALUE_GEQ));
    CU_OK(launch_scale(a, x, 2.0f, 64));
    CU_OK(cuStreamWriteValue32(a, flag + 8, 1, 0));
    CU_OK(cuStreamWaitValue64(b, flag + 8, 1, CU_STREAM_WAIT_VALUE_EQ));
    CU_OK(launch_scale(b, x, 3.0f, 64));
    CU_EXPECT(CUDA_ERROR_NOT_READY, cuStreamQuery(a)); /* still waiting */
    __atomic_store_n((uint32_t *)(uintptr_t)flag, 7u, __ATOMIC_RELEASE);
    CU_OK(cuStreamSynchronize(b));
    float back[64];
    CU_OK(cuMemcpyDtoH(back, x, sizeof back));
    for (int i = 0; i < 64; i++)
        assert_true(back[i] == 6.0f);
    CU_OK(cuStreamDestroy(a));
    CU_OK(cuStreamDestroy(b));
    CU_OK(cuMemFree(x));
    CU_OK(cuMemFree(flag));
}

/* Two streams run at once: a kernel in stream a spins until a kernel in
 * stream b sets a flag (giving up after 2^31 polls, which a serializing
 * implementation would reach: out stays 0 then). */
static const char handshake_ptx[] =
    ".version 7.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry wait_flag(.param .u64 flag, .param .u64 out)\n"
    "{\n"
    "  .reg .pred %p<3>; .reg .b32 %r<4>; .reg .b64 %rd<3>;\n"
    "  ld.param.u64 %rd1, [flag];\n"
    "  ld.param.u64 %rd2, [out];\n"
    "  mov.u32 %r1, 0;\n"
    "LOOP:\n"
    "  ld.volatile.global.u32 %r2, [%rd1];\n"
    "  setp.ne.u32 %p1, %r2, 0;\n"
    "  @%p1 bra DONE;\n"
    "  add.u32 %r1, %r1, 1;\n"
    "  setp.lt.u32 %p2, %r1, -2147483648;\n"
    "  @%p2 bra LOOP;\n"
    "DONE:\n"
    "  st.global.u32 [%rd2], %r2;\n"
    "  ret;\n"
    "}\n"
    ".visible .entry set_flag(.param .u64 flag)\n"
    "{\n"
    "  .reg .b32 %r<2>; .reg .b64 %rd<2>;\n"
    "  ld.param.u64 %rd1, [flag];\n"
    "  mov.u32 %r1, 1;\n"
    "  st.volatile.global.u32 [%rd1], %r1;\n"
    "  ret;\n"
    "}\n";

static void test_streams_run_concurrently(void **state)
{
    (void)state;
    CUmodule m;
    CU_OK(cuModuleLoadData(&m, handshake_ptx));
    CUfunction wait_fn, set_fn;
    CU_OK(cuModuleGetFunction(&wait_fn, m, "wait_flag"));
    CU_OK(cuModuleGetFunction(&set_fn, m, "set_flag"));
    CUdeviceptr flag, out;
    CU_OK(cuMemAlloc(&flag, 4));
    CU_OK(cuMemAlloc(&out, 4));
    CUstream a, b;
    CU_OK(cuStreamCreate(&a, CU_STREAM_NON_BLOCKING));
    CU_OK(cuStreamCreate(&b, CU_STREAM_NON_BLOCKING));
    void *wargs[] = {&flag, &out};
    void *sargs[] = {&flag};
    CU_OK(cuLaunchKernel(wait_fn, 1, 1, 1, 1, 1, 1, 0, a, wargs, NULL));
    CU_OK(cuLaunchKernel(set_fn, 1, 1, 1, 1, 1, 1, 0, b, sargs, NULL));
    CU_OK(cuStreamSynchronize(a));
    CU_OK(cuStreamSynchronize(b));
    unsigned saw = 0;
    CU_OK(cuMemcpyDtoH(&saw, out, 4));
    assert_int_equal(saw, 1);
    CU_OK(cuStreamDestroy(a));
    CU_OK(cuStreamDestroy(b));
    CU_OK(cuModuleUnload(m));
}

/* A destroyed stream's handle stays invalid after new streams take its
 * place (its memory, its slot): handles are generation-checked, so a stale
 * handle never reaches another stream's work. */
static void test_stale_handle_after_reuse(void **state)
{
    (void)state;
    cu_test_primary();
    for (int round = 0; round < 64; round++) {
        CUstream old, fresh[4];
        CU_OK(cuStreamCreate(&old, 0));
        CU_OK(cuStreamDestroy(old));
        for (int i = 0; i < 4; i++)
            CU_OK(cuStreamCreate(&fresh[i], 0));
        CU_EXPECT(CUDA_ERROR_INVALID_HANDLE, cuStreamSynchronize(old));
        CU_EXPECT(CUDA_ERROR_INVALID_HANDLE, cuStreamQuery(old));
        CU_EXPECT(CUDA_ERROR_INVALID_HANDLE, cuStreamDestroy(old));
        CUdeviceptr p;
        CU_OK(cuMemAlloc(&p, 64));
        CU_EXPECT(CUDA_ERROR_INVALID_HANDLE, cuMemsetD8Async(p, 1, 64, old));
        for (int i = 0; i < 4; i++) {
            assert_true(fresh[i] != old);
            CU_OK(cuMemsetD8Async(p, (unsigned char)i, 64, fresh[i]));
            CU_OK(cuStreamSynchronize(fresh[i]));
            CU_OK(cuStreamDestroy(fresh[i]));
        }
        CU_OK(cuMemFree(p));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create_and_query),
        cmocka_unit_test(test_order_within_stream),
        cmocka_unit_test(test_events),
        cmocka_unit_test(test_cross_stream_wait),
        cmocka_unit_test(test_legacy_stream_ordering),
        cmocka_unit_test(test_stream_memory_operations),
        cmocka_unit_test(test_streams_run_concurrently),
        cmocka_unit_test(test_stale_handle_after_reuse),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
