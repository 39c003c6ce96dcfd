/* test_cu_memory.c - memory: device, pitched, pinned, registered and
 * managed allocations; address ranges and pointer attributes; every copy
 * shape (1D, 2D, 3D, peer, async) and memset width; stream-ordered
 * allocation and pools; and misuse - bad pointers, sizes and freed memory
 * are CUresults, never crashes.  Copies are checked byte for byte against
 * the same copy done by C loops. */
#include "cu_test.h"

#include <sys/mman.h>

static CUcontext ctx;

static int setup(void **state)
{
    (void)state;
    ctx = cu_test_primary();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    CU_OK(cuDevicePrimaryCtxRelease(0));
    return 0;
}

static void fill_pattern(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)((i * 131 + seed * 7 + (i >> 8)) & 0xff);
}

static void test_alloc_free(void **state)
{
    (void)state;
    CUdeviceptr p, q;
    CU_OK(cuMemAlloc(&p, 1000));
    assert_int_equal(p % 256, 0);
    CU_OK(cuMemAlloc(&q, 3 << 20)); /* a large one too */
    CUdeviceptr base;
    size_t size;
    CU_OK(cuMemGetAddressRange(&base, &size, p + 999));
    assert_true(base == p);
    assert_int_equal(size, 1000);
    CU_EXPECT(CUDA_ERROR_NOT_FOUND, cuMemGetAddressRange(&base, &size, p + 1000 + (1 << 20)));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemFree(p + 8)); /* not the start */
    CU_OK(cuMemFree(p));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemFree(p)); /* twice */
    CU_OK(cuMemFree(q));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemAlloc(&p, 0));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemAlloc(NULL, 16));
    CU_EXPECT(CUDA_ERROR_OUT_OF_MEMORY, cuMemAlloc(&p, (size_t)1 << 62));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemFree((CUdeviceptr)0xdead0000));
    CU_OK(cuMemFree(0));
    size_t free_b, total;
    CU_OK(cuMemGetInfo(&free_b, &total));
    size_t dev_total;
    CU_OK(cuDeviceTotalMem(&dev_total, 0));
    assert_int_equal(total, dev_total);
    assert_true(free_b > 0 && free_b <= total);
}

static void test_pitched(void **state)
{
    (void)state;
    CUdeviceptr p;
    size_t pitch = 0;
    CU_OK(cuMemAllocPitch(&p, &pitch, 1000, 7, 4));
    assert_true(pitch >= 1000 && pitch % 512 == 0);
    size_t size;
    CU_OK(cuMemGetAddressRange(NULL, &size, p));
    assert_true(size >= pitch * 7);
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemAllocPitch(&p, &pitch, 100, 1, 3));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemAllocPitch(&p, &pitch, 0, 1, 4));
    CU_OK(cuMemFree(p));
}

static void test_host_memory(void **state)
{
    (void)state;
    void *h;
    CU_OK(cuMemHostAlloc(&h, 4096, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE));
    unsigned flags;
    CU_OK(cuMemHostGetFlags(&flags, h));
    assert_int_equal(flags, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE);
    CUdeviceptr d;
    CU_OK(cuMemHostGetDevicePointer(&d, (char *)h + 100, 0));
    assert_true(d == (CUdeviceptr)(uintptr_t)h + 100); /* unified addressing */
    unsigned type = 0;
    CU_OK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d));
    assert_int_equal(type, CU_MEMORYTYPE_HOST);
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemHostAlloc(&h, 16, 0x80));
    CU_OK(cuMemFreeHost(h));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemFreeHost(h));
    CU_OK(cuMemAllocHost(&h, 100));
    CUdeviceptr dev;
    CU_OK(cuMemAlloc(&dev, 100));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemFreeHost((void *)(uintptr_t)dev));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemFree((CUdeviceptr)(uintptr_t)h));
    CU_OK(cuMemFree(dev));
    CU_OK(cuMemFreeHost(h));

    /* registered memory: pageable memory the driver now knows */
    char *buf = malloc(8192);
    CU_OK(cuMemHostRegister(buf, 8192, CU_MEMHOSTREGISTER_DEVICEMAP));
    CU_EXPECT(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, cuMemHostRegister(buf + 100, 64, 0));
    CU_OK(cuMemHostGetDevicePointer(&d, buf, 0));
    assert_true(d == (CUdeviceptr)(uintptr_t)buf);
    CU_OK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d + 10));
    assert_int_equal(type, CU_MEMORYTYPE_HOST);
    CU_OK(cuMemHostUnregister(buf));
    CU_EXPECT(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, cuMemHostUnregister(buf));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemHostRegister(NULL, 64, 0));
    free(buf);
}

/* cuMemHostRegister takes only memory the process can use: an unmapped
 * range, one that runs past the end of a mapping, an inaccessible page, or
 * read-only memory registered for writing are CUDA_ERROR_INVALID_VALUE, and
 * nothing is registered (a copy from there would fault the host). */
static void test_register_unmapped(void **state)
{
    (void)state;
    cu_test_primary();
    size_t page = 4096;
    char *m = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(m != MAP_FAILED);
    assert_int_equal(munmap(m + 2 * page, 2 * page), 0); /* pages 2, 3: unmapped */
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemHostRegister(m + 2 * page, page, 0));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemHostRegister(m + page, 2 * page, 0));
    assert_int_equal(mprotect(m + page, page, PROT_NONE), 0);
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemHostRegister(m, 2 * page, 0));
    assert_int_equal(mprotect(m + page, page, PROT_READ), 0);
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemHostRegister(m + page, page, 0));
    CU_OK(cuMemHostRegister(m + page, page, CU_MEMHOSTREGISTER_READ_ONLY));
    CU_OK(cuMemHostUnregister(m + page));
    CU_OK(cuMemHostRegister(m, page, 0));
    /* what failed to register is unknown to the driver: a copy from the
     * hole is an error, not a fault */
    CUdeviceptr d;
    CU_OK(cuMemAlloc(&d, page));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemcpyHtoD(d, m + 2 * page, 64));
    CU_OK(cuMemcpyHtoD(d, m, 64));
    CU_OK(cuMemFree(d));
    CU_OK(cuMemHostUnregister(m));
    munmap(m, 2 * page);
    /* the lowest page and the top of the address space */
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemHostRegister((void *)(uintptr_t)0x1000, page, 0));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE,
              cuMemHostRegister((void *)(uintptr_t)0x7ffffffff000ull, page, 0));
}

static void test_managed_and_advice(void **state)
{
    (void)state;
    CUdeviceptr m;
    CU_OK(cuMemAllocManaged(&m, 1 << 16, CU_MEM_ATTACH_GLOBAL));
    memset((void *)(uintptr_t)m, 7, 1 << 16); /* host access, directly */
    unsigned managed[2] = {0, 0xdeadbeef}; /* an unsigned int, as callers pass */
    CU_OK(cuPointerGetAttribute(managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, m));
    assert_int_equal(managed[0], 1);
    assert_int_equal(managed[1], 0xdeadbeef);
    CUmemLocation dev = {CU_MEM_LOCATION_TYPE_DEVICE, 0}, host = {CU_MEM_LOCATION_TYPE_HOST, 0};
    int v = -9;
    CU_OK(cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, 4096));
    assert_int_equal(v, 0);
    CU_OK(cuMemAdvise(m, 4096, CU_MEM_ADVISE_SET_READ_MOSTLY, dev));
    CU_OK(cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, 4096));
    assert_int_equal(v, 1);
    CU_OK(cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, m, 4096));
    assert_int_equal(v, CU_DEVICE_INVALID);
    CU_OK(cuMemAdvise(m, 4096, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, host));
    CU_OK(cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, m, 4096));
    assert_int_equal(v, CU_DEVICE_CPU);
    CU_OK(cuMemPrefetchAsync(m, 1 << 16, dev, 0, NULL));
    CU_OK(cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m, 4096));
    assert_int_equal(v, 0);
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, /* as NVIDIA's driver answers */
              cuMemAdvise(m, 4096, CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
                          (CUmemLocation){CU_MEM_LOCATION_TYPE_DEVICE, 3}));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemAdvise(m, 0, CU_MEM_ADVISE_SET_READ_MOSTLY, dev));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemAllocManaged(&m, 64, 0));
    CU_OK(cuStreamAttachMemAsync(NULL, m, 0, CU_MEM_ATTACH_HOST));
    CU_OK(cuStreamSynchronize(NULL));
    CU_OK(cuMemFree(m));
}

static void test_pointer_attributes(void **state)
{
    (void)state;
    CUdeviceptr a, b;
    CU_OK(cuMemAlloc(&a, 300));
    CU_OK(cuMemAlloc(&b, 300));
    CUcontext c = NULL;
    CU_OK(cuPointerGetAttribute(&c, CU_POINTER_ATTRIBUTE_CONTEXT, a + 5));
    assert_ptr_equal(c, ctx);
    unsigned type = 0;
    CU_OK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, a));
    assert_int_equal(type, CU_MEMORYTYPE_DEVICE);
    CUdeviceptr start = 0;
    size_t size = 0;
    CU_OK(cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, a + 299));
    CU_OK(cuPointerGetAttribute(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, a + 299));
    assert_true(start == a);
    assert_int_equal(size, 300);
    unsigned long long ida = 0, idb = 0;
    CU_OK(cuPointerGetAttribute(&ida, CU_POINTER_ATTRIBUTE_BUFFER_ID, a));
    CU_OK(cuPointerGetAttribute(&idb, CU_POINTER_ATTRIBUTE_BUFFER_ID, b));
    assert_true(ida != idb);
    int ord = -1;
    CU_OK(cuPointerGetAttribute(&ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, a));
    assert_int_equal(ord, 0);
    void *hp;
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuPointerGetAttribute(&hp, CU_POINTER_ATTRIBUTE_HOST_POINTER, a));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE,
              cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)0x1000));
    /* several at once; an unknown pointer reads as type 0, ordinal -2 */
    CUpointer_attribute attrs[3] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                    CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                    CU_POINTER_ATTRIBUTE_IS_MANAGED};
    unsigned managed = 0xffffffff;
    type = 99;
    ord = 99;
    void *data[3] = {&type, &ord, &managed};
    CU_OK(cuPointerGetAttributes(3, attrs, data, (CUdeviceptr)0x1000));
    assert_int_equal(type, 0);
    assert_int_equal(ord, -2);
    assert_int_equal(managed, 0);
    CU_OK(cuPointerGetAttributes(3, attrs, data, b));
    assert_int_equal(type, CU_MEMORYTYPE_DEVICE);
    assert_int_equal(ord, 0);
    bool sync = true;
    CU_OK(cuPointerSetAttribute(&sync, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, a));
    sync = false;
    CU_OK(cuPointerGetAttribute(&sync, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, a));
    assert_true(sync);
    CU_OK(cuMemFree(a));
    CU_OK(cuMemFree(b));
}

/* An address certainly not readable: pages reserved without access (kept
 * for the process's life: pages handed back to the system could be mapped
 * again by another thread, ASan's or the runtime's, before the copy). */
static void *unmapped(void)
{
    void *p = mmap(NULL, 1 << 16, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    assert_true(p != MAP_FAILED);
    return p;
}

static void test_copies_1d(void **state)
{
    (void)state;
    enum { N = 70000 };
    unsigned char *src = malloc(N), *back = malloc(N);
    fill_pattern(src, N, 1);
    CUdeviceptr a, b;
    CU_OK(cuMemAlloc(&a, N));
    CU_OK(cuMemAlloc(&b, N));
    CU_OK(cuMemcpyHtoD(a, src, N));
    CU_OK(cuMemcpyDtoD(b, a, N));
    memset(back, 0, N);
    CU_OK(cuMemcpyDtoH(back, b, N));
    assert_memory_equal(back, src, N);
    /* unified copies: device to pageable host, with offsets */
    memset(back, 0, N);
    CU_OK(cuMemcpy((CUdeviceptr)(uintptr_t)back + 3, b + 10, 1000));
    assert_memory_equal(back + 3, src + 10, 1000);
    /* out of the allocation, bad device pointers, bad host pointers */
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemcpyHtoD(a + 1, src, N));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemcpyDtoH(back, a + N - 10, 11));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemcpyHtoD((CUdeviceptr)0xdeadbeef000, src, 16));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemcpyDtoD(a, (CUdeviceptr)(uintptr_t)src, 16));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemcpyDtoH((void *)16, a, 16));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemcpyHtoD(a, unmapped(), 4096));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemcpyDtoH(unmapped(), a, 4096));
    const void *readonly = "a string literal";
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemcpyDtoH((void *)readonly, a, 8));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemcpy(a, 0, 16));
    CU_OK(cuMemcpyHtoD(a, src, 0)); /* nothing to copy */
    /* freed memory is no longer a device pointer */
    CU_OK(cuMemFree(b));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemcpyDtoH(back, b, 16));
    /* async copies in a stream */
    CUstream s;
    CU_OK(cuStreamCreate(&s, 0));
    unsigned char *pinned;
    CU_OK(cuMemAllocHost((void **)&pinned, N));
    CU_OK(cuMemcpyHtoDAsync(a, src, N, s));
    CU_OK(cuMemcpyDtoHAsync(pinned, a, N, s));
    CU_OK(cuStreamSynchronize(s));
    assert_memory_equal(pinned, src, N);
    CU_OK(cuStreamDestroy(s));
    CU_OK(cuMemFreeHost(pinned));
    CU_OK(cuMemFree(a));
    free(src);
    free(back);
}

/* The reference: copy a w x h region between pitched buffers. */
static void copy2d_ref(unsigned char *dst, size_t dx, size_t dy, size_t dpitch,
                       const unsigned char *src, size_t sx, size_t sy, size_t spitch, size_t w,
                       size_t h)
{
    for (size_t y = 0; y < h; y++)
        memcpy(dst + (dy + y) * dpitch + dx, src + (sy + y) * spitch + sx, w);
}

static void test_copies_2d(void **state)
{
    (void)state;
    enum { SP = 100, SH = 40, W = 37, H = 25 };
    unsigned char src[SP * SH], want[SP * SH], got[SP * SH];
    fill_pattern(src, sizeof src, 2);
    CUdeviceptr d;
    size_t pitch;
    CU_OK(cuMemAllocPitch(&d, &pitch, 64, SH, 4));
    CU_OK(cuMemsetD8(d, 0, pitch * SH));
    /* host (x=5, y=3) -> device (x=2, y=4) */
    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_HOST;
    c.srcHost = src;
    c.srcPitch = SP;
    c.srcXInBytes = 5;
    c.srcY = 3;
    c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c.dstDevice = d;
    c.dstPitch = pitch;
    c.dstXInBytes = 2;
    c.dstY = 4;
    c.WidthInBytes = W;
    c.Height = H;
    CU_OK(cuMemcpy2D(&c));
    /* device (x=2, y=4) -> host (x=0, y=0), pitch SP: the round trip */
    CUDA_MEMCPY2D r;
    memset(&r, 0, sizeof r);
    r.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    r.srcDevice = d;
    r.srcPitch = pitch;
    r.srcXInBytes = 2;
    r.srcY = 4;
    r.dstMemoryType = CU_MEMORYTYPE_HOST;
    r.dstHost = got;
    r.dstPitch = SP;
    r.WidthInBytes = W;
    r.Height = H;
    memset(got, 0xee, sizeof got);
    memset(want, 0xee, sizeof want);
    CU_OK(cuMemcpy2D(&r));
    copy2d_ref(want, 0, 0, SP, src, 5, 3, SP, W, H);
    assert_memory_equal(got, want, sizeof got);
    /* the same through unified addressing and the async form */
    r.srcMemoryType = CU_MEMORYTYPE_UNIFIED;
    memset(got, 0xee, sizeof got);
    CU_OK(cuMemcpy2DAsync(&r, NULL));
    CU_OK(cuStreamSynchronize(NULL));
    assert_memory_equal(got, want, sizeof got);
    CU_OK(cuMemcpy2DUnaligned(&r));
    /* misuse: a pitch below the width, a region past the allocation, arrays */
    r.srcPitch = W - 1;
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemcpy2D(&r));
    r.srcPitch = pitch;
    r.srcY = SH - H + 1;
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemcpy2D(&r));
    r.srcY = 0;
    r.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemcpy2D(&r));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemcpy2D(NULL));
    CU_OK(cuMemFree(d));
}

static void test_copies_3d(void **state)
{
    (void)state;
    enum { P = 16, RH = 10, D = 6 }; /* pitch, rows per slice, slices */
    unsigned char src[P * RH * D], got[P * RH * D], want[P * RH * D];
    fill_pattern(src, sizeof src, 3);
    CUdeviceptr d;
    CU_OK(cuMemAlloc(&d, sizeof src));
    CU_OK(cuMemcpyHtoD(d, src, sizeof src));
    /* a 5 x 4 x 3 box at (x=3, y=2, z=1) of the device volume -> (1, 1, 2)
     * of a host volume of the same shape */
    CUDA_MEMCPY3D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    c.srcDevice = d;
    c.srcPitch = P;
    c.srcHeight = RH;
    c.srcXInBytes = 3;
    c.srcY = 2;
    c.srcZ = 1;
    c.dstMemoryType = CU_MEMORYTYPE_HOST;
    c.dstHost = got;
    c.dstPitch = P;
    c.dstHeight = RH;
    c.dstXInBytes = 1;
    c.dstY = 1;
    c.dstZ = 2;
    c.WidthInBytes = 5;
    c.Height = 4;
    c.Depth = 3;
    memset(got, 0, sizeof got);
    memset(want, 0, sizeof want);
    for (size_t z = 0; z < 3; z++)
        for (size_t y = 0; y < 4; y++)
            memcpy(want + ((2 + z) * RH + 1 + y) * P + 1, src + ((1 + z) * RH + 2 + y) * P + 3, 5);
    CU_OK(cuMemcpy3D(&c));
    assert_memory_equal(got, want, sizeof got);
    memset(got, 0, sizeof got);
    CU_OK(cuMemcpy3DAsync(&c, NULL));
    CU_OK(cuCtxSynchronize());
    assert_memory_equal(got, want, sizeof got);
    /* the peer form between two contexts of the device */
    CUcontext other;
    CU_OK(cuCtxCreate(&other, NULL, 0, 0));
    CU_OK(cuCtxPopCurrent(NULL));
    CUDA_MEMCPY3D_PEER pc;
    memset(&pc, 0, sizeof pc);
    pc.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    pc.srcDevice = d;
    pc.srcContext = ctx;
    pc.srcPitch = P;
    pc.srcHeight = RH;
    pc.srcXInBytes = 3;
    pc.srcY = 2;
    pc.srcZ = 1;
    pc.dstMemoryType = CU_MEMORYTYPE_HOST;
    pc.dstHost = got;
    pc.dstContext = other;
    pc.dstPitch = P;
    pc.dstHeight = RH;
    pc.dstXInBytes = 1;
    pc.dstY = 1;
    pc.dstZ = 2;
    pc.WidthInBytes = 5;
    pc.Height = 4;
    pc.Depth = 3;
    memset(got, 0, sizeof got);
    CU_OK(cuMemcpy3DPeer(&pc));
    assert_memory_equal(got, want, sizeof got);
    CU_OK(cuCtxDestroy(other));
    pc.dstContext = other; /* destroyed */
    CU_EXPECT(CUDA_ERROR_INVALID_CONTEXT, cuMemcpy3DPeer(&pc));
    /* LOD must be 0; the box must stay inside the allocation */
    c.srcLOD = 1;
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemcpy3D(&c));
    c.srcLOD = 0;
    c.srcZ = D - 2;
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemcpy3D(&c));
    CU_OK(cuMemFree(d));
}

static void test_memsets(void **state)
{
    (void)state;
    enum { N = 1000 };
    CUdeviceptr d;
    CU_OK(cuMemAlloc(&d, N * 4));
    uint32_t got[N];
    CU_OK(cuMemsetD32(d, 0xdeadbeef, N));
    CU_OK(cuMemcpyDtoH(got, d, sizeof got));
    for (int i = 0; i < N; i++)
        assert_int_equal(got[i], 0xdeadbeef);
    CU_OK(cuMemsetD16(d + 2, 0x1234, 3));
    CU_OK(cuMemsetD8(d + 12, 0x55, 5));
    CU_OK(cuMemcpyDtoH(got, d, 32));
    assert_int_equal(got[0], 0x1234beef);
    assert_int_equal(got[1], 0x12341234);
    assert_int_equal(got[2], 0xdeadbeef); /* bytes 2..7 took the u16s */
    assert_int_equal(got[3], 0x55555555);
    assert_int_equal(got[4], 0xdeadbe55); /* bytes 12..16 took the u8s */
    /* 2D: 3 rows of 5 u16 at pitch 20 bytes */
    CU_OK(cuMemsetD32(d, 0, N));
    CU_OK(cuMemsetD2D16(d, 20, 0xabcd, 5, 3));
    uint16_t h[40];
    CU_OK(cuMemcpyDtoH(h, d, sizeof h));
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 10; x++)
            assert_int_equal(h[y * 10 + x], y < 3 && x < 5 ? 0xabcd : 0);
    CU_OK(cuMemsetD2D32Async(d, 8, 7, 2, 4, NULL));
    CU_OK(cuMemsetD2D8Async(d + 100, 4, 9, 3, 2, NULL));
    CU_OK(cuMemsetD8Async(d + 200, 1, 8, NULL));
    CU_OK(cuMemsetD16Async(d + 208, 2, 4, NULL));
    CU_OK(cuMemsetD32Async(d + 216, 3, 2, NULL));
    CU_OK(cuStreamSynchronize(NULL));
    CU_OK(cuMemsetD2D8(d + 300, 16, 0xff, 16, 1));
    CU_OK(cuMemsetD2D32(d + 400, 16, 5, 4, 2));
    unsigned char bytes[232];
    CU_OK(cuMemcpyDtoH(bytes, d, sizeof bytes));
    assert_int_equal(bytes[0], 7);
    assert_int_equal(bytes[8], 7);
    assert_int_equal(bytes[100], 9);
    assert_int_equal(bytes[103], 0);
    assert_int_equal(bytes[104], 9);
    assert_int_equal(bytes[200], 1);
    assert_int_equal(bytes[208], 2);
    assert_int_equal(bytes[209], 0);
    assert_int_equal(bytes[216], 3);
    /* misaligned, outside, NULL */
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemsetD32(d + 2, 0, 4));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemsetD16(d + 1, 0, 4));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemsetD8(d, 0, N * 4 + 1));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemsetD8(0, 0, 1));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemsetD2D8(d, 4, 0, 8, 2)); /* pitch < width */
    CU_OK(cuMemFree(d));
}

static void test_peer_copy(void **state)
{
    (void)state;
    CUcontext other;
    CU_OK(cuCtxCreate(&other, NULL, 0, 0));
    CUdeviceptr theirs;
    CU_OK(cuMemAlloc(&theirs, 256));
    CU_OK(cuCtxPopCurrent(NULL));
    CUdeviceptr mine;
    CU_OK(cuMemAlloc(&mine, 256));
    unsigned char src[256], got[256];
    fill_pattern(src, 256, 4);
    CU_OK(cuMemcpyHtoD(mine, src, 256));
    CU_OK(cuMemcpyPeer(theirs, other, mine, ctx, 256));
    CU_OK(cuMemcpyDtoH(got, theirs, 256));
    assert_memory_equal(got, src, 256);
    CU_OK(cuMemcpyPeerAsync(mine, ctx, theirs, other, 128, NULL));
    CU_OK(cuStreamSynchronize(NULL)); /* the copy reads memory `other` owns */
    CU_OK(cuCtxDestroy(other));       /* frees `theirs` */
    CU_EXPECT(CUDA_ERROR_INVALID_CONTEXT, cuMemcpyPeer(mine, ctx, theirs, other, 16));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemcpyDtoH(got, theirs, 16));
    CU_OK(cuMemFree(mine));
}

static void test_async_alloc_and_pools(void **state)
{
    (void)state;
    CUstream s;
    CU_OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CUmemoryPool def, cur;
    CU_OK(cuDeviceGetDefaultMemPool(&def, 0));
    CU_OK(cuDeviceGetMemPool(&cur, 0));
    assert_ptr_equal(def, cur);
    cuuint64_t used = 1;
    cuuint64_t zero = 0;
    CU_OK(cuMemPoolSetAttribute(def, CU_MEMPOOL_ATTR_USED_MEM_HIGH, &zero));
    CU_OK(cuMemPoolGetAttribute(def, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used));
    cuuint64_t before = used;
    CUdeviceptr p;
    CU_OK(cuMemAllocAsync(&p, 5000, s));
    CU_OK(cuMemPoolGetAttribute(def, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used));
    assert_int_equal(used, before + 5000);
    CU_OK(cuMemsetD8Async(p, 0x42, 5000, s));
    unsigned char h[5000];
    CU_OK(cuMemcpyDtoHAsync(h, p, 5000, s));
    CU_OK(cuMemFreeAsync(p, s));
    CU_OK(cuStreamSynchronize(s));
    for (int i = 0; i < 5000; i++)
        assert_int_equal(h[i], 0x42);
    CU_OK(cuMemPoolGetAttribute(def, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used));
    assert_int_equal(used, before);
    CU_OK(cuMemPoolGetAttribute(def, CU_MEMPOOL_ATTR_USED_MEM_HIGH, &used));
    assert_true(used >= before + 5000);
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemFreeAsync(p, s)); /* freed already */
    /* a pool of our own */
    CUmemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    props.location.id = 0;
    CUmemoryPool pool;
    CU_OK(cuMemPoolCreate(&pool, &props));
    CU_OK(cuMemAllocFromPoolAsync(&p, 100, pool, s));
    CUmemoryPool owner = NULL;
    CU_OK(cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, p));
    assert_ptr_equal(owner, pool);
    CU_OK(cuMemFreeAsync(p, s));
    cuuint64_t threshold = 1 << 20;
    CU_OK(cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold));
    threshold = 0;
    CU_OK(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold));
    assert_int_equal(threshold, 1 << 20);
    CU_OK(cuDeviceSetMemPool(0, pool));
    CU_OK(cuDeviceGetMemPool(&cur, 0));
    assert_ptr_equal(cur, pool);
    CU_OK(cuStreamSynchronize(s));
    CU_OK(cuMemPoolDestroy(pool));
    CU_OK(cuDeviceGetMemPool(&cur, 0));
    assert_ptr_equal(cur, def); /* back to the default */
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemPoolDestroy(pool));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemPoolDestroy(def));
    props.location.id = 5;
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemPoolCreate(&pool, &props));
    CU_OK(cuMemAllocAsync(&p, 0, s)); /* zero bytes: success, as NVIDIA's driver answers */
    CU_OK(cuStreamDestroy(s));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alloc_free),
        cmocka_unit_test(test_pitched),
        cmocka_unit_test(test_host_memory),
        cmocka_unit_test(test_managed_and_advice),
        cmocka_unit_test(test_pointer_attributes),
        cmocka_unit_test(test_copies_1d),
        cmocka_unit_test(test_copies_2d),
        cmocka_unit_test(test_copies_3d),
        cmocka_unit_test(test_memsets),
        cmocka_unit_test(test_register_unmapped),
        cmocka_unit_test(test_peer_copy),
        cmocka_unit_test(test_async_alloc_and_pools),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
