/* export_tables.c - cuGetExportTable: the private interfaces NVIDIA's CUDA
 * runtime (libcudart, static or shared, CUDA 12.4 to 13) asks the driver
 * for before its first call.  Without them every runtime-API program fails
 * at its first call.  The UUIDs, slots and behaviour are interoperability
 * facts recorded in ../shared/CUDART.md; slot 0 holds a table's size in
 * bytes except in the context-local-storage table.  Slots the runtime was
 * never seen calling answer CUDA_ERROR_NOT_SUPPORTED. */
#include "cu_internal.h"
#include "md2.h"

#include <string.h>
#include <time.h>
#include <unistd.h>

typedef void (*slot_fn)(void);
typedef union slot {
    uintptr_t size;
    slot_fn fn;
} slot;

#define SIZE_SLOT(nslots) {.size = (nslots) * sizeof(slot)}
#define FN(f) {.fn = (slot_fn)(f)}

static CUresult unsupported(void) { return CUDA_ERROR_NOT_SUPPORTED; }

/* ---- CUDART_INTERFACE ------------------------------------------------------------------ */

/* The device's primary context, not retained: the runtime makes it current
 * and retains it afterwards. */
static CUresult primary_unretained(CUcontext *out, CUdevice dev)
{
    CUresult r = cu_check_device(dev);
    if (r)
        return r;
    if (!out)
        return CUDA_ERROR_INVALID_VALUE;
    *out = cu_primary();
    return *out ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

static const slot cudart_interface[13] = {
    SIZE_SLOT(13),     FN(unsupported), FN(primary_unretained), FN(unsupported),
    FN(unsupported),   FN(unsupported), FN(unsupported),        FN(unsupported),
    FN(unsupported),   FN(unsupported), FN(unsupported),        FN(unsupported),
    FN(unsupported),
};

/* ---- TOOLS_RUNTIME_CALLBACK_HOOKS ---------------------------------------------------------- */

/* Buffers the driver owns for profiling tools' callbacks; nothing here
 * reads them. */
static uint32_t hooks_buffer_a[1024], hooks_buffer_b[14];

static CUresult hooks_a(void **buf, size_t *size)
{
    if (buf)
        *buf = hooks_buffer_a;
    if (size)
        *size = sizeof hooks_buffer_a;
    return CUDA_SUCCESS;
}

static CUresult hooks_b(void **buf, size_t *size)
{
    if (buf)
        *buf = hooks_buffer_b;
    if (size)
        *size = sizeof hooks_buffer_b;
    return CUDA_SUCCESS;
}

static const slot runtime_callback_hooks[7] = {
    SIZE_SLOT(7), FN(unsupported), FN(hooks_a),     FN(unsupported),
    FN(unsupported), FN(unsupported), FN(hooks_b),
};

/* ---- TOOLS_TLS: must exist; never called ------------------------------------------------------ */

static const slot tools_tls[4] = {SIZE_SLOT(4), FN(unsupported), FN(unsupported), FN(unsupported)};

/* ---- CONTEXT_LOCAL_STORAGE: no size slot ------------------------------------------------------- */

static const slot context_local_storage[4] = {
    FN(cu_ctx_local_put), FN(cu_ctx_local_delete), FN(cu_ctx_local_get), {.fn = NULL}};

/* ---- CONTEXT_CHECKS ------------------------------------------------------------------------ */

/* No context here wraps another (the runtime's question about green or
 * interop contexts). */
static CUresult context_is_wrapped(CUcontext ctx, uint32_t *wrapped, CUcontext *inner)
{
    (void)ctx, (void)inner;
    if (wrapped)
        *wrapped = 0;
    return CUDA_SUCCESS;
}

static uint32_t context_checks_flags(void) { return 0; }

static const slot context_checks[4] = {SIZE_SLOT(4), FN(unsupported), FN(context_is_wrapped),
                                       FN(context_checks_flags)};

/* ---- INTEGRITY_CHECK ------------------------------------------------------------------------- */

static CUresult integrity_answer(uint32_t version, uint64_t unix_seconds, uint64_t out[2]);

static const slot integrity_check[3] = {SIZE_SLOT(3), FN(integrity_answer), FN(unsupported)};

/* The key of the keyed answer. */
static const uint8_t integrity_key[16] = {0x14, 0x6a, 0xdd, 0xae, 0x53, 0xa9, 0xa7, 0x52,
                                          0xaa, 0x08, 0x41, 0x36, 0x0b, 0xf5, 0x5a, 0x9f};

typedef struct msg_buf {
    uint8_t b[48 + 28 * 8]; /* the fixed part, then 28 bytes per device (up to 8) */
    size_t n;
    bool overflow;
} msg_buf;

static void put_le(msg_buf *m, uint64_t v, size_t bytes)
{
    if (m->n + bytes > sizeof m->b) {
        m->overflow = true;
        return;
    }
    for (size_t i = 0; i < bytes; i++)
        m->b[m->n++] = (uint8_t)(v >> (8 * i));
}

/* The runtime's handshake: the first two versions it asks get fixed
 * answers, the third (the one it verifies) HMAC-MD2 over the facts the
 * public API reports about this driver, process, thread and devices. */
static CUresult integrity_answer(uint32_t version, uint64_t unix_seconds, uint64_t out[2])
{
    if (!out)
        return CUDA_ERROR_INVALID_VALUE;
    if (version % 10 == 0 || version % 10 == 1) {
        out[0] = version % 10 == 0 ? 0x3341181C03CB675Cull : 0x1841181C03CB675Cull;
        out[1] = 0x8ED383AA1F4CD1E8ull;
        return CUDA_SUCCESS;
    }
    int driver = 0, ndev = 0;
    CUresult r = cuDriverGetVersion(&driver);
    if (!r)
        r = cuDeviceGetCount(&ndev);
    if (r)
        return r;
    msg_buf m = {.n = 0};
    put_le(&m, (uint32_t)driver, 4);
    put_le(&m, version, 4);
    put_le(&m, (uint32_t)getpid(), 4);
    put_le(&m, (uint32_t)pthread_self(), 4);
    put_le(&m, (uintptr_t)cudart_interface, 8);
    put_le(&m, (uintptr_t)integrity_check, 8);
    put_le(&m, (uintptr_t)integrity_check[1].fn, 8);
    put_le(&m, unix_seconds, 8);
    for (CUdevice d = 0; d < ndev && !r; d++) {
        CUuuid uuid;
        int domain, bus, device;
        if ((r = cuDeviceGetUuid_v2(&uuid, d)) ||
            (r = cuDeviceGetAttribute(&domain, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, d)) ||
            (r = cuDeviceGetAttribute(&bus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, d)) ||
            (r = cuDeviceGetAttribute(&device, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, d)))
            break;
        for (int i = 0; i < 16; i++)
            put_le(&m, (uint8_t)uuid.bytes[i], 1);
        put_le(&m, (uint32_t)domain, 4);
        put_le(&m, (uint32_t)bus, 4);
        put_le(&m, (uint32_t)device, 4);
    }
    if (r)
        return r;
    if (m.overflow)
        return CUDA_ERROR_UNKNOWN;
    uint8_t digest[CU_MD2_DIGEST];
    cu_hmac_md2(integrity_key, sizeof integrity_key, m.b, m.n, digest);
    memcpy(out, digest, sizeof digest);
    return CUDA_SUCCESS;
}

/* ---- the directory ----------------------------------------------------------------------------- */

static const struct {
    uint8_t uuid[16];
    const slot *table;
} tables[] = {
    {{0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a, 0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9},
     cudart_interface},
    {{0xa0, 0x94, 0x79, 0x8c, 0x2e, 0x74, 0x2e, 0x74, 0x93, 0xf2, 0x08, 0x00, 0x20, 0x0c, 0x0a, 0x66},
     runtime_callback_hooks},
    {{0x42, 0xd8, 0x5a, 0x81, 0x23, 0xf6, 0xcb, 0x47, 0x82, 0x98, 0xf6, 0xe7, 0x8a, 0x3a, 0xec, 0xdc},
     tools_tls},
    {{0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11, 0xa8, 0xc3, 0x68, 0xf3, 0x55, 0xd8, 0x95, 0x93},
     context_local_storage},
    {{0x26, 0x3e, 0x88, 0x60, 0x7c, 0xd2, 0x61, 0x43, 0x92, 0xf6, 0xbb, 0xd5, 0x00, 0x6d, 0xfa, 0x7e},
     context_checks},
    {{0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b, 0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1, 0xf2},
     integrity_check},
};

/* Unknown tables (cuBLAS's, a probe the runtime makes before cuInit) stay
 * CUDA_ERROR_NOT_SUPPORTED; the runtime tolerates that. */
CUresult cuGetExportTable(const void **ppExportTable, const CUuuid *pExportTableId)
{
    if (!ppExportTable || !pExportTableId)
        return CUDA_ERROR_INVALID_VALUE;
    *ppExportTable = NULL;
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
        if (!memcmp(tables[i].uuid, pExportTableId->bytes, 16)) {
            *ppExportTable = tables[i].table;
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_NOT_SUPPORTED;
}
