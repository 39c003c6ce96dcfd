/* test_cu_export.c - what NVIDIA's CUDA runtime needs from the driver
 * besides the public API (../shared/CUDART.md): cuGetExportTable's six
 * tables and its refusal of others, the integrity answer (recomputed here
 * from the public API's facts and the documented message layout, with
 * MD2 checked separately against RFC 1319 in test_md2), the primary
 * context made current before it is retained, context-local storage whose
 * destructors run (unlocked: they call the driver) when a context goes
 * away, and a library's .managed variables with no context current. */
#include "cu_test.h"

#include <pthread.h>
#include <unistd.h>

#include "md2.h"

typedef void (*slot_fn)(void);
typedef union slot {
    uintptr_t size;
    slot_fn fn;
} slot;

static const slot *table(const unsigned char uuid[16])
{
    CUuuid id;
    memcpy(id.bytes, uuid, 16);
    const void *t = NULL;
    CU_OK(cuGetExportTable(&t, &id));
    assert_non_null(t);
    return t;
}

static const unsigned char CUDART_INTERFACE[16] = {0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a,
                                                   0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9};
static const unsigned char HOOKS[16] = {0xa0, 0x94, 0x79, 0x8c, 0x2e, 0x74, 0x2e, 0x74,
                                        0x93, 0xf2, 0x08, 0x00, 0x20, 0x0c, 0x0a, 0x66};
static const unsigned char TOOLS_TLS[16] = {0x42, 0xd8, 0x5a, 0x81, 0x23, 0xf6, 0xcb, 0x47,
                                            0x82, 0x98, 0xf6, 0xe7, 0x8a, 0x3a, 0xec, 0xdc};
static const unsigned char CLS[16] = {0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11,
                                      0xa8, 0xc3, 0x68, 0xf3, 0x55, 0xd8, 0x95, 0x93};
static const unsigned char CHECKS[16] = {0x26, 0x3e, 0x88, 0x60, 0x7c, 0xd2, 0x61, 0x43,
                                         0x92, 0xf6, 0xbb, 0xd5, 0x00, 0x6d, 0xfa, 0x7e};
static const unsigned char INTEGRITY[16] = {0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b,
                                            0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1, 0xf2};

typedef CUresult (*get_primary_fn)(CUcontext *, CUdevice);
typedef void (*cls_dtor)(CUcontext, void *, void *);
typedef CUresult (*cls_put_fn)(CUcontext, void *, void *, cls_dtor);
typedef CUresult (*cls_delete_fn)(CUcontext, void *);
typedef CUresult (*cls_get_fn)(void **, CUcontext, void *);
typedef CUresult (*integrity_fn)(uint32_t, uint64_t, uint64_t[2]);
typedef CUresult (*hooks_fn)(void **, size_t *);
typedef CUresult (*wrapped_fn)(CUcontext, uint32_t *, CUcontext *);

static int setup(void **state)
{
    (void)state;
    CU_OK(cuInit(0));
    return 0;
}

static void test_tables(void **state)
{
    (void)state;
    const unsigned char *sized[] = {CUDART_INTERFACE, HOOKS, TOOLS_TLS, CHECKS, INTEGRITY};
    const uintptr_t slots[] = {13, 7, 4, 4, 3};
    for (int i = 0; i < 5; i++)
        assert_int_equal(table(sized[i])[0].size, slots[i] * sizeof(slot));
    const slot *cls = table(CLS); /* no size: three functions and NULL */
    assert_non_null(cls[0].fn);
    assert_non_null(cls[2].fn);
    assert_null(cls[3].fn);

    void *buf = NULL;
    size_t size = 0;
    CU_OK(((hooks_fn)table(HOOKS)[2].fn)(&buf, &size));
    assert_non_null(buf);
    assert_true(size >= 1024 * sizeof(uint32_t));
    CU_OK(((hooks_fn)table(HOOKS)[6].fn)(&buf, &size));
    assert_true(size >= 14 * sizeof(uint32_t));
    uint32_t wrapped = 7;
    CU_OK(((wrapped_fn)table(CHECKS)[2].fn)(NULL, &wrapped, NULL));
    assert_int_equal(wrapped, 0);
    assert_int_equal(((uint32_t(*)(void))table(CHECKS)[3].fn)(), 0);

    /* Unknown tables: the runtime's early probe and cuBLAS's. */
    const unsigned char unknown[2][16] = {
        {0xf8, 0xcf, 0xf9, 0x51, 0x21, 0x46, 0x8b, 0x4e, 0xb9, 0xe2, 0xfb, 0x46, 0x9e, 0x7c, 0x0d, 0xd9},
        {0x21, 0x31, 0x8c, 0x60, 0x97, 0x14, 0x32, 0x48, 0x8c, 0xa6, 0x41, 0xff, 0x73, 0x24, 0xc8, 0xf2}};
    for (int i = 0; i < 2; i++) {
        CUuuid id;
        memcpy(id.bytes, unknown[i], 16);
        const void *t = &id;
        assert_int_not_equal(cuGetExportTable(&t, &id), CUDA_SUCCESS);
        assert_null(t);
    }
    CUuuid id;
    memcpy(id.bytes, CLS, 16);
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuGetExportTable(NULL, &id));
}

static void put_le(unsigned char *m, size_t *n, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        m[(*n)++] = (unsigned char)(v >> (8 * i));
}

/* The third answer is keyed by the driver version, the caller's version,
 * process and thread, the table addresses, the time and each device's
 * UUID and PCI ids: recomputed here from what the public API reports. */
static void test_integrity(void **state)
{
    (void)state;
    const slot *t = table(INTEGRITY);
    integrity_fn answer = (integrity_fn)t[1].fn;
    uint64_t out[2];
    CU_OK(answer(13000, 1700000000, out));
    assert_true(out[0] == 0x3341181C03CB675Cull && out[1] == 0x8ED383AA1F4CD1E8ull);
    CU_OK(answer(12041, 1700000000, out));
    assert_true(out[0] == 0x1841181C03CB675Cull && out[1] == 0x8ED383AA1F4CD1E8ull);

    uint64_t when = 1764000000;
    unsigned char m[256];
    size_t n = 0;
    int driver, ndev;
    CU_OK(cuDriverGetVersion(&driver));
    CU_OK(cuDeviceGetCount(&ndev));
    put_le(m, &n, (uint32_t)driver, 4);
    put_le(m, &n, 13002, 4);
    put_le(m, &n, (uint32_t)getpid(), 4);
    put_le(m, &n, (uint32_t)pthread_self(), 4);
    put_le(m, &n, (uintptr_t)table(CUDART_INTERFACE), 8);
    put_le(m, &n, (uintptr_t)t, 8);
    put_le(m, &n, (uintptr_t)t[1].fn, 8);
    put_le(m, &n, when, 8);
    for (int d = 0; d < ndev; d++) {
        CUuuid u;
        int dom, bus, dev;
        CU_OK(cuDeviceGetUuid(&u, d));
        CU_OK(cuDeviceGetAttribute(&dom, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, d));
        CU_OK(cuDeviceGetAttribute(&bus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, d));
        CU_OK(cuDeviceGetAttribute(&dev, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, d));
        memcpy(m + n, u.bytes, 16);
        n += 16;
        put_le(m, &n, (uint32_t)dom, 4);
        put_le(m, &n, (uint32_t)bus, 4);
        put_le(m, &n, (uint32_t)dev, 4);
    }
    static const uint8_t key[16] = {0x14, 0x6A, 0xDD, 0xAE, 0x53, 0xA9, 0xA7, 0x52,
                                    0xAA, 0x08, 0x41, 0x36, 0x0B, 0xF5, 0x5A, 0x9F};
    uint64_t want[2];
    cu_hmac_md2(key, 16, m, n, (uint8_t *)want);
    CU_OK(answer(13002, when, out));
    assert_memory_equal(out, want, sizeof want);
    CU_OK(answer(13002, when + 1, out)); /* the time is part of it */
    assert_memory_not_equal(out, want, sizeof want);
}

/* The runtime makes the primary context current before retaining it. */
static void test_primary_current_before_retain(void **state)
{
    (void)state;
    CUcontext p = NULL, q = NULL;
    CU_OK(((get_primary_fn)table(CUDART_INTERFACE)[2].fn)(&p, 0));
    assert_non_null(p);
    unsigned flags;
    int active;
    CU_OK(cuDevicePrimaryCtxGetState(0, &flags, &active));
    assert_int_equal(active, 0); /* not retained by asking */
    CU_OK(cuCtxSetCurrent(p));
    CUdevice dev = -1;
    CU_OK(cuCtxGetDevice(&dev));
    assert_int_equal(dev, 0);
    CUdeviceptr ptr;
    assert_int_not_equal(cuMemAlloc(&ptr, 16), CUDA_SUCCESS);
    CU_OK(cuDevicePrimaryCtxRetain(&q, 0));
    assert_ptr_equal(p, q);
    CU_OK(cuMemAlloc(&ptr, 16));
    CU_OK(cuMemFree(ptr));
    CU_OK(cuDevicePrimaryCtxRelease(0));
    CU_OK(cuCtxSetCurrent(NULL));
    CUcontext forged = (CUcontext)(uintptr_t)0x1000;
    CU_EXPECT(CUDA_ERROR_INVALID_CONTEXT, cuCtxSetCurrent(forged));
}

/* ---- context-local storage ----------------------------------------------------------- */

static struct {
    int runs;
    CUcontext ctx;
    void *key, *value;
    CUresult state_rc;
} seen;

/* Calls the driver, as the runtime's destructor does: a library lock held
 * around it would deadlock here. */
static void dtor(CUcontext ctx, void *key, void *value)
{
    seen.runs++;
    seen.ctx = ctx;
    seen.key = key;
    seen.value = value;
    unsigned flags;
    int active;
    seen.state_rc = cuDevicePrimaryCtxGetState(0, &flags, &active);
    void *v;
    ((cls_get_fn)table(CLS)[2].fn)(&v, ctx, key);
}

static int key_a, key_b, val_a, val_b;

static void test_context_local_storage(void **state)
{
    (void)state;
    const slot *t = table(CLS);
    cls_put_fn put = (cls_put_fn)t[0].fn;
    cls_delete_fn del = (cls_delete_fn)t[1].fn;
    cls_get_fn get = (cls_get_fn)t[2].fn;
    void *v = NULL;
    CU_OK(cuCtxSetCurrent(NULL));
    CU_EXPECT(CUDA_ERROR_INVALID_CONTEXT, get(&v, NULL, &key_a));

    /* A created context: put, get, replace, delete; the destructor at destroy. */
    CUcontext c;
    CU_OK(cuCtxCreate(&c, NULL, 0, 0));
    assert_int_not_equal(get(&v, NULL, &key_a), CUDA_SUCCESS);
    CU_OK(put(NULL, &key_a, &val_a, dtor));
    CU_OK(put(c, &key_b, &val_b, NULL));
    CU_OK(get(&v, c, &key_a));
    assert_ptr_equal(v, &val_a);
    CU_OK(get(&v, NULL, &key_b));
    assert_ptr_equal(v, &val_b);
    CU_OK(del(NULL, &key_b));
    assert_int_not_equal(get(&v, NULL, &key_b), CUDA_SUCCESS);
    assert_int_not_equal(del(NULL, &key_b), CUDA_SUCCESS);
    memset(&seen, 0, sizeof seen);
    CU_OK(cuCtxDestroy(c));
    assert_int_equal(seen.runs, 1);
    assert_ptr_equal(seen.ctx, c);
    assert_ptr_equal(seen.key, &key_a);
    assert_ptr_equal(seen.value, &val_a);
    CU_OK(seen.state_rc);

    /* The primary context: not on a release that is not the last; on the
     * last one; on a reset; each time once. */
    CUcontext p;
    CU_OK(cuDevicePrimaryCtxRetain(&p, 0));
    CU_OK(cuDevicePrimaryCtxRetain(&p, 0));
    CU_OK(cuCtxSetCurrent(p));
    CU_OK(put(NULL, &key_a, &val_b, dtor));
    memset(&seen, 0, sizeof seen);
    CU_OK(cuDevicePrimaryCtxRelease(0));
    assert_int_equal(seen.runs, 0);
    CU_OK(get(&v, NULL, &key_a));
    CU_OK(cuDevicePrimaryCtxRelease(0));
    assert_int_equal(seen.runs, 1);
    assert_ptr_equal(seen.ctx, p);
    assert_ptr_equal(seen.value, &val_b);
    CU_OK(seen.state_rc);
    assert_int_not_equal(get(&v, p, &key_a), CUDA_SUCCESS);

    CU_OK(cuDevicePrimaryCtxRetain(&p, 0));
    CU_OK(put(p, &key_b, &val_a, dtor));
    memset(&seen, 0, sizeof seen);
    CU_OK(cuDevicePrimaryCtxReset(0));
    assert_int_equal(seen.runs, 1);
    assert_ptr_equal(seen.key, &key_b);
    CU_OK(cuDevicePrimaryCtxReset(0)); /* nothing left to destroy */
    assert_int_equal(seen.runs, 1);
    CU_OK(cuCtxSetCurrent(NULL));
}

/* ---- managed variables of a library ----------------------------------------------------- */

static const char managed_ptx[] =
    ".version 7.0\n"
    ".target sm_70\n"
    ".address_size 64\n"
    ".global .attribute(.managed) .align 4 .u32 counter = 5;\n"
    ".global .align 4 .u32 plain = 7;\n"
    ".visible .entry bump()\n"
    "{\n"
    "  .reg .b32 %r<3>;\n"
    "  ld.global.u32 %r1, [counter];\n"
    "  add.u32 %r1, %r1, 1;\n"
    "  st.global.u32 [counter], %r1;\n"
    "  ld.global.u32 %r2, [plain];\n"
    "  add.u32 %r2, %r2, 10;\n"
    "  st.global.u32 [plain], %r2;\n"
    "  ret;\n"
    "}\n";

static unsigned read_plain(CUlibrary lib)
{
    CUdeviceptr p;
    size_t n;
    unsigned v = 0;
    CU_OK(cuLibraryGetGlobal(&p, &n, lib, "plain"));
    CU_OK(cuMemcpyDtoH(&v, p, sizeof v));
    return v;
}

static void test_managed_without_context(void **state)
{
    (void)state;
    CU_OK(cuCtxSetCurrent(NULL));
    CUlibrary lib;
    CU_OK(cuLibraryLoadData(&lib, managed_ptx, NULL, NULL, 0, NULL, NULL, 0));
    CUdeviceptr m;
    size_t bytes = 0;
    CU_OK(cuLibraryGetManaged(&m, &bytes, lib, "counter"));
    assert_int_equal(bytes, 4);
    volatile unsigned *counter = (unsigned *)(uintptr_t)m;
    assert_int_equal(*counter, 5);
    CU_EXPECT(CUDA_ERROR_NOT_FOUND, cuLibraryGetManaged(&m, &bytes, lib, "plain"));
    CU_EXPECT(CUDA_ERROR_NOT_FOUND, cuLibraryGetManaged(&m, &bytes, lib, "absent"));

    CUkernel k;
    CU_OK(cuLibraryGetKernel(&k, lib, "bump"));
    for (int round = 0; round < 2; round++) {
        CUcontext p;
        CU_OK(cuDevicePrimaryCtxRetain(&p, 0));
        CU_OK(cuCtxSetCurrent(p));
        CUdeviceptr again;
        CU_OK(cuLibraryGetManaged(&again, NULL, lib, "counter"));
        assert_true(again == m); /* one storage, whatever the context */
        *counter = 40 + round;
        CU_OK(cuLaunchKernel((CUfunction)k, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
        CU_OK(cuCtxSynchronize());
        assert_int_equal(*counter, 41 + round);
        assert_int_equal(read_plain(lib), 17); /* a fresh context starts from 7 */
        CU_OK(cuDevicePrimaryCtxReset(0));
    }
    CU_OK(cuCtxSetCurrent(NULL));
    CU_OK(cuLibraryUnload(lib));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tables),
        cmocka_unit_test(test_integrity),
        cmocka_unit_test(test_primary_current_before_retain),
        cmocka_unit_test(test_context_local_storage),
        cmocka_unit_test(test_managed_without_context),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
