/* memory.c - allocation: device, pitched, pinned host, registered host and
 * managed memory, all of it host memory the kernels address directly
 * (unified addressing).  Every range goes into the allocation map, which
 * the copy functions, cuMemGetAddressRange and the pointer attributes
 * consult. */
#include "cu_internal.h"

#include <stdio.h>
#include <string.h>
#include <sys/sysinfo.h>

static cu_alloc new_alloc(uintptr_t base, size_t size, cu_mem_kind kind, struct CUctx_st *ctx,
                          unsigned flags, CUmemoryPool pool)
{
    return (cu_alloc){.base = base, .size = size, .kind = kind, .ctx = ctx, .flags = flags,
                      .id = cu_next_id(), .pool = pool,
                      .preferred = {CU_MEM_LOCATION_TYPE_INVALID, 0},
                      .last_prefetch = {CU_MEM_LOCATION_TYPE_INVALID, 0}};
}

CUresult cu_mem_alloc_kind(struct CUctx_st *ctx, size_t size, cu_mem_kind kind, unsigned flags,
                           CUmemoryPool pool, void **out)
{
    void *p = cu_mem_alloc_raw(size);
    if (!p)
        return CUDA_ERROR_OUT_OF_MEMORY;
    cu_alloc a = new_alloc((uintptr_t)p, size, kind, ctx, flags, pool);
    if (!cu_map_insert(&a)) {
        cu_mem_free_raw(p, size);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *out = p;
    return CUDA_SUCCESS;
}

CUresult cu_mem_free_kind(uintptr_t base, unsigned kind_mask)
{
    cu_alloc a;
    if (!cu_map_find(base, 1, &a) || a.base != base || !(kind_mask & CU_MEM_BIT(a.kind)))
        return CUDA_ERROR_INVALID_VALUE;
    if (!cu_map_remove(base, a.kind, &a))
        return CUDA_ERROR_INVALID_VALUE; /* freed by another thread meanwhile */
    if (a.kind != CU_MEM_REGISTERED)
        cu_mem_free_raw((void *)a.base, a.size);
    return CUDA_SUCCESS;
}

/* ---- device memory ------------------------------------------------------------------- */

static CUresult mem_alloc(struct CUctx_st *c, CUdeviceptr *dptr, size_t bytesize)
{
    CUresult r = cu_ctx_sticky(c);
    if (r)
        return r;
    if (!dptr || !bytesize)
        return CUDA_ERROR_INVALID_VALUE;
    void *p;
    r = cu_mem_alloc_kind(c, bytesize, CU_MEM_DEVICE, 0, NULL, &p);
    if (!r)
        *dptr = (CUdeviceptr)(uintptr_t)p;
    return r;
}

/* Holds the context (cu_ctx_hold): a cuCtxDestroy meanwhile waits. */
CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
    struct CUctx_st *c;
    CUresult r = cu_ctx_hold(NULL, &c);
    if (r)
        return r;
    r = mem_alloc(c, dptr, bytesize);
    cu_ctx_release(c);
    return r;
}

/* Rows start at multiples of 512 bytes (the texture pitch NVIDIA aligns
 * to); elements must be 4, 8 or 16 bytes. */
CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes, size_t Height,
                            unsigned int ElementSizeBytes)
{
    struct CUctx_st *c;
    CUresult r = cu_ctx_enter(&c);
    if (r)
        return r;
    if (!dptr || !pPitch || !WidthInBytes || !Height ||
        (ElementSizeBytes != 4 && ElementSizeBytes != 8 && ElementSizeBytes != 16))
        return CUDA_ERROR_INVALID_VALUE;
    if (WidthInBytes > (size_t)1 << 40 || Height > (size_t)1 << 40)
        return CUDA_ERROR_OUT_OF_MEMORY;
    size_t pitch = (WidthInBytes + 511) & ~(size_t)511;
    void *p;
    r = cu_mem_alloc_kind(c, pitch * Height, CU_MEM_DEVICE, 0, NULL, &p);
    if (r)
        return r;
    *dptr = (CUdeviceptr)(uintptr_t)p;
    *pPitch = pitch;
    return CUDA_SUCCESS;
}

/* Waits for the context's work first: kernels in flight may still use it. */
static CUresult mem_free(struct CUctx_st *c, CUdeviceptr dptr)
{
    if (!dptr)
        return CUDA_SUCCESS;
    cu_ctx_sync(c);
    CUresult r = cu_mem_free_kind((uintptr_t)dptr, CU_MEM_BIT(CU_MEM_DEVICE) |
                                                       CU_MEM_BIT(CU_MEM_MANAGED) |
                                                       CU_MEM_BIT(CU_MEM_POOL));
    return r ? r : cu_ctx_sticky(c);
}

CUresult cuMemFree_v2(CUdeviceptr dptr)
{
    struct CUctx_st *c;
    CUresult r = cu_ctx_hold(NULL, &c);
    if (r)
        return r;
    r = mem_free(c, dptr);
    cu_ctx_release(c);
    return r;
}

CUresult cuMemGetAddressRange_v2(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr)
{
    struct CUctx_st *c;
    CUresult r = cu_ctx_enter(&c);
    if (r)
        return r;
    cu_alloc a;
    if (!cu_map_find((uintptr_t)dptr, 1, &a))
        return CUDA_ERROR_NOT_FOUND;
    if (pbase)
        *pbase = (CUdeviceptr)a.base;
    if (psize)
        *psize = a.size;
    return CUDA_SUCCESS;
}

/* Free: what the kernel says is available; total: physical memory. */
CUresult cuMemGetInfo_v2(size_t *free, size_t *total)
{
    struct CUctx_st *c;
    CUresult r = cu_ctx_enter(&c);
    if (r)
        return r;
    if (!free || !total)
        return CUDA_ERROR_INVALID_VALUE;
    *total = cu_device()->total_mem;
    *free = *total;
    FILE *f = fopen("/proc/meminfo", "r");
    if (f) {
        char line[256];
        unsigned long long kb;
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
                *free = (size_t)kb * 1024;
                break;
            }
        fclose(f);
    } else {
        struct sysinfo si;
        if (!sysinfo(&si))
            *free = (size_t)si.freeram * si.mem_unit;
    }
    if (*free > *total)
        *free = *total;
    return CUDA_SUCCESS;
}

/* ---- pinned and registered host memory --------------------------------------------------- */

CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)
{
    struct CUctx_st *c;
    CUresult r = cu_ctx_enter(&c);
    if (r)
        return r;
    if (!pp || !bytesize ||
        (Flags & ~(unsigned)(CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP |
                             CU_MEMHOSTALLOC_WRITECOMBINED)))
        return CUDA_ERROR_INVALID_VALUE;
    return cu_mem_alloc_kind(c, bytesize, CU_MEM_HOST, Flags, NULL, pp);
}

CUresult cuMemAllocHost_v2(void **pp, size_t bytesize) { return cuMemHostAlloc(pp, bytesize, 0); }

CUresult cuMemFreeHost(void *p)
{
    struct CUctx_st *c;
    CUresult r = cu_ctx_current(&c);
    if (r)
        return r;
    cu_ctx_sync(c);
    return cu_mem_free_kind((uintptr_t)p, CU_MEM_BIT(CU_MEM_HOST));
}

CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *pdptr, void *p, unsigned int Flags)
{
    struct CUctx_st *c;
    CUresult r = cu_ctx_enter(&c);
    if (r)
        return r;
    cu_alloc a;
    if (!pdptr || Flags != 0 || !cu_map_find((uintptr_t)p, 1, &a) ||
        (a.kind != CU_MEM_HOST && a.kind != CU_MEM_REGISTERED))
        return CUDA_ERROR_INVALID_VALUE;
    *pdptr = (CUdeviceptr)(uintptr_t)p;
    return CUDA_SUCCESS;
}

CUresult cuMemHostGetFlags(unsigned int *pFlags, void *p)
{
    struct CUctx_st *c;
    CUresult r = cu_ctx_enter(&c);
    if (r)
        return r;
    cu_alloc a;
    if (!pFlags || !cu_map_find((uintptr_t)p, 1, &a) || a.kind != CU_MEM_HOST)
        return CUDA_ERROR_INVALID_VALUE;
    *pFlags = a.flags;
    return CUDA_SUCCESS;
}

CUresult cuMemHostRegister_v2(void *p, size_t bytesize, unsigned int Flags)
{
    struct CUctx_st *c;
    CUresult r = cu_ctx_enter(&c);
    if (r)
        return r;
    if (!p || !bytesize || (uintptr_t)p + bytesize < (uintptr_t)p ||
        (Flags & ~(unsigned)(CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP |
                             CU_MEMHOSTREGISTER_IOMEMORY | CU_MEMHOSTREGISTER_READ_ONLY)))
        return CUDA_ERROR_INVALID_VALUE;
    if (Flags & CU_MEMHOSTREGISTER_IOMEMORY)
        return CUDA_ERROR_NOT_SUPPORTED;
    if (!cu_host_range_accessible((uintptr_t)p, bytesize, !(Flags & CU_MEMHOSTREGISTER_READ_ONLY)))
        return CUDA_ERROR_INVALID_VALUE;
    cu_alloc a = new_alloc((uintptr_t)p, bytesize, CU_MEM_REGISTERED, c, Flags, NULL);
    return cu_map_insert(&a) ? CUDA_SUCCESS : CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
}

CUresult cuMemHostUnregister(void *p)
{
    struct CUctx_st *c;
    CUresult r = cu_ctx_current(&c);
    if (r)
        return r;
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    cu_ctx_sync(c);
    return cu_map_remove((uintptr_t)p, CU_MEM_REGISTERED, NULL)
               ? CUDA_SUCCESS
               : CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
}

/* ---- managed memory ------------------------------------------------------------------ */

CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags)
{
    struct CUctx_st *c;
    CUresult r = cu_ctx_enter(&c);
    if (r)
        return r;
    if (!dptr || !bytesize || (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST))
        return CUDA_ERROR_INVALID_VALUE;
    void *p;
    r = cu_mem_alloc_kind(c, bytesize, CU_MEM_MANAGED, flags, NULL, &p);
    if (!r)
        *dptr = (CUdeviceptr)(uintptr_t)p;
    return r;
}

static bool location_ok(CUmemLocation loc)
{
    switch (loc.type) {
    case CU_MEM_LOCATION_TYPE_DEVICE: return loc.id == 0;
    case CU_MEM_LOCATION_TYPE_HOST:
    case CU_MEM_LOCATION_TYPE_HOST_NUMA:
    case CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT: return true;
    default: return false;
    }
}

typedef struct advice {
    CUmem_advise what;
    CUmemLocation loc;
} advice;

static void apply_advice(cu_alloc *a, void *arg)
{
    const advice *v = arg;
    if (a->kind != CU_MEM_MANAGED)
        return;
    switch (v->what) {
    case CU_MEM_ADVISE_SET_READ_MOSTLY: a->read_mostly = true; break;
    case CU_MEM_ADVISE_UNSET_READ_MOSTLY: a->read_mostly = false; break;
    case CU_MEM_ADVISE_SET_PREFERRED_LOCATION: a->preferred = v->loc; break;
    case CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION:
        a->preferred = (CUmemLocation){CU_MEM_LOCATION_TYPE_INVALID, 0};
        break;
    case CU_MEM_ADVISE_SET_ACCESSED_BY: a->accessed_by = v->loc.type == CU_MEM_LOCATION_TYPE_DEVICE; break;
    case CU_MEM_ADVISE_UNSET_ACCESSED_BY: a->accessed_by = false; break;
    }
}

/* Advice is recorded on managed allocations (cuMemRangeGetAttribute reads
 * it back); it changes nothing else, all memory being host memory.  Other
 * memory is accepted, as on a system with pageable memory access. */
CUresult cuMemAdvise_v2(CUdeviceptr devPtr, size_t count, CUmem_advise advice_, CUmemLocation location)
{
    struct CUctx_st *c;
    CUresult r = cu_ctx_enter(&c);
    if (r)
        return r;
    if (!devPtr || !count || advice_ < CU_MEM_ADVISE_SET_READ_MOSTLY ||
        advice_ > CU_MEM_ADVISE_UNSET_ACCESSED_BY)
        return CUDA_ERROR_INVALID_VALUE;
    bool needs_loc = advice_ == CU_MEM_ADVISE_SET_PREFERRED_LOCATION ||
                     advice_ == CU_MEM_ADVISE_SET_ACCESSED_BY;
    if (needs_loc && !location_ok(location)) /* not INVALID_DEVICE: NVIDIA's driver 580 */
        return CUDA_ERROR_INVALID_VALUE;
    advice v = {advice_, location};
    cu_map_update((uintptr_t)devPtr, count, apply_advice, &v);
    return CUDA_SUCCESS;
}

static void record_prefetch(cu_alloc *a, void *arg)
{
    if (a->kind == CU_MEM_MANAGED)
        a->last_prefetch = *(const CUmemLocation *)arg;
}

/* Prefetching moves nothing (host memory is already everywhere); it is
 * stream-ordered only in that the stream must be valid. */
CUresult cuMemPrefetchAsync_v2(CUdeviceptr devPtr, size_t count, CUmemLocation location,
                               unsigned int flags, CUstream hStream)
{
    struct CUctx_st *c;
    struct CUstream_st *s;
    CUresult r = cu_stream_resolve(hStream, &c, &s);
    if (r)
        return r;
    if (!devPtr || !count || flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (!location_ok(location))
        return CUDA_ERROR_INVALID_DEVICE;
    cu_map_update((uintptr_t)devPtr, count, record_prefetch, &location);
    return CUDA_SUCCESS;
}

CUresult cuMemPrefetchAsync_v2_ptsz(CUdeviceptr devPtr, size_t count, CUmemLocation location,
                                    unsigned int flags, CUstream hStream)
{
    bool old = cu_tls_ptds;
    cu_tls_ptds = true;
    CUresult r = cuMemPrefetchAsync_v2(devPtr, count, location, flags, hStream);
    cu_tls_ptds = old;
    return r;
}

/* ---- range and pointer attributes ----------------------------------------------------- */

static int location_device(CUmemLocation l)
{
    return l.type == CU_MEM_LOCATION_TYPE_DEVICE ? l.id
           : l.type == CU_MEM_LOCATION_TYPE_INVALID ? CU_DEVICE_INVALID
                                                    : CU_DEVICE_CPU;
}

CUresult cuMemRangeGetAttribute(void *data, size_t dataSize, CUmem_range_attribute attribute,
                                CUdeviceptr devPtr, size_t count)
{
    struct CUctx_st *c;
    CUresult r = cu_ctx_enter(&c);
    if (r)
        return r;
    cu_alloc a;
    if (!data || !count || !cu_map_find((uintptr_t)devPtr, count, &a) || a.kind != CU_MEM_MANAGED)
        return CUDA_ERROR_INVALID_VALUE;
    int v;
    switch (attribute) {
    case CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY: v = a.read_mostly; break;
    case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION: v = location_device(a.preferred); break;
    case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION: v = location_device(a.last_prefetch); break;
    case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE: v = a.preferred.type; break;
    case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID: v = a.preferred.id; break;
    case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE: v = a.last_prefetch.type; break;
    case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID: v = a.last_prefetch.id; break;
    case CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY:
        if (dataSize % 4 || !dataSize)
            return CUDA_ERROR_INVALID_VALUE;
        for (size_t i = 0; i < dataSize / 4; i++)
            ((int *)data)[i] = i == 0 && a.accessed_by ? 0 : CU_DEVICE_INVALID;
        return CUDA_SUCCESS;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
    if (dataSize != 4)
        return CUDA_ERROR_INVALID_VALUE;
    memcpy(data, &v, 4);
    return CUDA_SUCCESS;
}

CUresult cuMemRangeGetAttributes(void **data, size_t *dataSizes,
                                 CUmem_range_attribute *attributes, size_t numAttributes,
                                 CUdeviceptr devPtr, size_t count)
{
    if (!data || !dataSizes || !attributes || !numAttributes)
        return cu_init_or(CUDA_ERROR_INVALID_VALUE);
    for (size_t i = 0; i < numAttributes; i++) {
        CUresult r = cuMemRangeGetAttribute(data[i], dataSizes[i], attributes[i], devPtr, count);
        if (r)
            return r;
    }
    return CUDA_SUCCESS;
}

static void put(void *data, const void *v, size_t n) { memcpy(data, v, n); }

/* cuMemAllocManaged memory, or a module's .managed variable. */
static bool is_managed(const cu_alloc *a)
{
    return a->kind == CU_MEM_MANAGED || (a->kind == CU_MEM_GLOBAL && (a->flags & CU_MEM_ATTACH_GLOBAL));
}

/* One attribute of a tracked allocation.  NVIDIA's types: CUcontext,
 * unsigned int, CUdeviceptr, void *, bool, unsigned long long, int, size_t. */
static CUresult pointer_attr(void *data, CUpointer_attribute attr, uintptr_t p, const cu_alloc *a)
{
    bool is_host = a->kind == CU_MEM_HOST || a->kind == CU_MEM_REGISTERED;
    bool yes = true, no = false;
    unsigned managed = is_managed(a);
    unsigned long long zero64 = 0, id = a->id;
    int dev = 0;
    void *start = (void *)a->base;
    switch (attr) {
    case CU_POINTER_ATTRIBUTE_CONTEXT: put(data, &a->ctx, sizeof(CUcontext)); break;
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE: {
        unsigned t = is_host ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
        put(data, &t, sizeof t);
        break;
    }
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER: {
        CUdeviceptr d = (CUdeviceptr)p;
        put(data, &d, sizeof d);
        break;
    }
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:
        if (!is_host && !managed)
            return CUDA_ERROR_INVALID_VALUE; /* device memory has no host mapping */
        put(data, &p, sizeof(void *));
        break;
    case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS: put(data, &a->sync_memops, sizeof(bool)); break;
    case CU_POINTER_ATTRIBUTE_BUFFER_ID:
    case CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID: put(data, &id, sizeof id); break;
    /* callers pass an unsigned int (NVIDIA's samples, cudart) */
    case CU_POINTER_ATTRIBUTE_IS_MANAGED: put(data, &managed, sizeof managed); break;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: put(data, &dev, sizeof dev); break;
    case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE:
    case CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE:
    case CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE: put(data, &no, sizeof(bool)); break;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
    case CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR: put(data, &start, sizeof start); break;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
    case CU_POINTER_ATTRIBUTE_MAPPING_SIZE: put(data, &a->size, sizeof(size_t)); break;
    case CU_POINTER_ATTRIBUTE_MAPPED: put(data, &yes, sizeof(bool)); break;
    case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES: put(data, &zero64, sizeof zero64); break;
    case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS: {
        int f = (a->flags & CU_MEMHOSTREGISTER_READ_ONLY) && a->kind == CU_MEM_REGISTERED
                    ? CU_MEM_ACCESS_FLAGS_PROT_READ
                    : CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        put(data, &f, sizeof f);
        break;
    }
    case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE: put(data, &a->pool, sizeof(CUmemoryPool)); break;
    case CU_POINTER_ATTRIBUTE_P2P_TOKENS: return CUDA_ERROR_NOT_SUPPORTED;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

CUresult cuPointerGetAttribute(void *data, CUpointer_attribute attribute, CUdeviceptr ptr)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    cu_alloc a;
    if (!data || !ptr || !cu_map_find((uintptr_t)ptr, 1, &a))
        return CUDA_ERROR_INVALID_VALUE;
    return pointer_attr(data, attribute, (uintptr_t)ptr, &a);
}

/* What an attribute of memory the driver does not know reads as: device
 * ordinal -2, everything else zero of the attribute's width. */
static CUresult unknown_attr(void *data, CUpointer_attribute attr)
{
    int dev = CU_DEVICE_INVALID;
    unsigned char zero[8] = {0};
    switch (attr) {
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: put(data, &dev, sizeof dev); break;
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
    case CU_POINTER_ATTRIBUTE_IS_MANAGED:
    case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS: put(data, zero, sizeof(int)); break;
    case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS:
    case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE:
    case CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE:
    case CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE:
    case CU_POINTER_ATTRIBUTE_MAPPED: put(data, zero, sizeof(bool)); break;
    case CU_POINTER_ATTRIBUTE_P2P_TOKENS: return CUDA_ERROR_NOT_SUPPORTED;
    default:
        if (attr < CU_POINTER_ATTRIBUTE_CONTEXT || attr > CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE)
            return CUDA_ERROR_INVALID_VALUE;
        put(data, zero, 8); /* pointers, sizes, 64-bit ids */
    }
    return CUDA_SUCCESS;
}

/* Unlike the single query, an unknown pointer is not an error, and device
 * memory's host pointer reads as NULL. */
CUresult cuPointerGetAttributes(unsigned int numAttributes, CUpointer_attribute *attributes,
                                void **data, CUdeviceptr ptr)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!numAttributes || !attributes || !data)
        return CUDA_ERROR_INVALID_VALUE;
    cu_alloc a;
    bool known = ptr && cu_map_find((uintptr_t)ptr, 1, &a);
    for (unsigned i = 0; i < numAttributes; i++) {
        if (!data[i])
            continue;
        r = known ? pointer_attr(data[i], attributes[i], (uintptr_t)ptr, &a)
                  : unknown_attr(data[i], attributes[i]);
        if (r == CUDA_ERROR_INVALID_VALUE && known &&
            attributes[i] == CU_POINTER_ATTRIBUTE_HOST_POINTER)
            r = unknown_attr(data[i], attributes[i]);
        if (r)
            return r;
    }
    return CUDA_SUCCESS;
}

static void set_sync_memops(cu_alloc *a, void *arg) { a->sync_memops = *(const bool *)arg; }

CUresult cuPointerSetAttribute(const void *value, CUpointer_attribute attribute, CUdeviceptr ptr)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!value || attribute != CU_POINTER_ATTRIBUTE_SYNC_MEMOPS)
        return CUDA_ERROR_INVALID_VALUE;
    bool v = *(const bool *)value;
    return cu_map_update((uintptr_t)ptr, 1, set_sync_memops, &v) ? CUDA_SUCCESS
                                                                    : CUDA_ERROR_INVALID_VALUE;
}
