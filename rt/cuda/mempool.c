/* mempool.c - stream-ordered allocation (cuMemAllocAsync, cuMemFreeAsync)
 * and memory pools.  Memory comes from the allocator at the call and goes
 * back when the stream reaches the free; a pool keeps its attributes and
 * usage counters (nothing is cached, so reserved equals used). */
#include "cu_internal.h"

#include <stdlib.h>
#include <string.h>

struct CUmemPoolHandle_st {
    CUmemPoolProps props;
    pthread_mutex_t lock;
    int reuse[3];                /* REUSE_FOLLOW_EVENT_DEPENDENCIES .. INTERNAL_DEPENDENCIES */
    cuuint64_t release_threshold;
    cuuint64_t used, used_high, reserved_high;
    bool is_default;
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct CUmemPoolHandle_st default_pool;
static _Atomic(struct CUmemPoolHandle_st *) current_pool;

static void pool_init(struct CUmemPoolHandle_st *p, const CUmemPoolProps *props)
{
    p->props = *props;
    pthread_mutex_init(&p->lock, NULL);
    p->reuse[0] = p->reuse[1] = p->reuse[2] = 1;
}

static void default_init(void)
{
    CUmemPoolProps props = {.allocType = CU_MEM_ALLOCATION_TYPE_PINNED,
                            .location = {CU_MEM_LOCATION_TYPE_DEVICE, 0}};
    pool_init(&default_pool, &props);
    default_pool.is_default = true;
    cu_handle_add(&default_pool, CU_KIND_POOL);
    atomic_store(&current_pool, &default_pool);
}

static struct CUmemPoolHandle_st *get_default(void)
{
    pthread_once(&once, default_init);
    return &default_pool;
}

static bool pool_valid(CUmemoryPool p)
{
    get_default();
    return p && cu_handle_valid(p, CU_KIND_POOL);
}

static void pool_account(struct CUmemPoolHandle_st *p, size_t n, bool alloc)
{
    pthread_mutex_lock(&p->lock);
    p->used = alloc ? p->used + n : p->used - (n <= p->used ? n : p->used);
    if (p->used > p->used_high)
        p->used_high = p->used;
    if (p->used > p->reserved_high)
        p->reserved_high = p->used;
    pthread_mutex_unlock(&p->lock);
}

/* ---- allocation --------------------------------------------------------------------------- */

static CUresult alloc_async(CUdeviceptr *dptr, size_t n, CUmemoryPool pool, CUstream h)
{
    struct CUctx_st *c;
    struct CUstream_st *s;
    CUresult r = cu_stream_resolve(h, &c, &s);
    if (r || (r = cu_ctx_sticky(c)))
        return r;
    if (!dptr)
        return CUDA_ERROR_INVALID_VALUE;
    if (!n) { /* nothing, and NULL: what NVIDIA's driver 580 does */
        *dptr = 0;
        return CUDA_SUCCESS;
    }
    if (!pool)
        pool = atomic_load(&current_pool) ? atomic_load(&current_pool) : get_default();
    if (!pool_valid(pool))
        return CUDA_ERROR_INVALID_VALUE;
    if (pool->props.maxSize && pool->used + n > pool->props.maxSize)
        return CUDA_ERROR_OUT_OF_MEMORY;
    void *p;
    r = cu_mem_alloc_kind(c, n, CU_MEM_POOL, 0, pool, &p);
    if (r)
        return r;
    pool_account(pool, n, true);
    *dptr = (CUdeviceptr)(uintptr_t)p;
    return CUDA_SUCCESS;
}

CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
    return alloc_async(dptr, bytesize, NULL, hStream);
}

CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool,
                                 CUstream hStream)
{
    if (!pool)
        return cu_init_or(CUDA_ERROR_INVALID_VALUE);
    return alloc_async(dptr, bytesize, pool, hStream);
}

typedef struct free_op {
    cu_op op;
    uintptr_t base;
} free_op;

static CUresult free_run(cu_op *op)
{
    cu_alloc a;
    uintptr_t base = ((free_op *)op)->base;
    if (!cu_map_find(base, 1, &a) || a.base != base)
        return CUDA_SUCCESS; /* freed by its context's destruction meanwhile */
    if (a.pool && pool_valid(a.pool))
        pool_account(a.pool, a.size, false);
    /* never an error: a failure here would poison the context */
    cu_mem_free_kind(base, CU_MEM_BIT(CU_MEM_POOL) | CU_MEM_BIT(CU_MEM_DEVICE));
    return CUDA_SUCCESS;
}

/* Frees when the stream reaches this point.  Memory from cuMemAlloc may be
 * freed this way too. */
CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream)
{
    struct CUctx_st *c;
    struct CUstream_st *s;
    CUresult r = cu_stream_resolve(hStream, &c, &s);
    if (r || (r = cu_ctx_sticky(c)))
        return r;
    cu_alloc a;
    if (!dptr || !cu_map_find((uintptr_t)dptr, 1, &a) || a.base != (uintptr_t)dptr ||
        (a.kind != CU_MEM_POOL && a.kind != CU_MEM_DEVICE))
        return CUDA_ERROR_INVALID_VALUE;
    free_op *op = malloc(sizeof *op);
    if (!op)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *op = (free_op){{free_run, NULL, c}, (uintptr_t)dptr};
    return cu_stream_submit(s, &op->op);
}

/* ---- pools ---------------------------------------------------------------------------------- */

CUresult cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *props)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!pool || !props || props->allocType != CU_MEM_ALLOCATION_TYPE_PINNED)
        return CUDA_ERROR_INVALID_VALUE;
    bool device = props->location.type == CU_MEM_LOCATION_TYPE_DEVICE;
    bool host = props->location.type == CU_MEM_LOCATION_TYPE_HOST ||
                props->location.type == CU_MEM_LOCATION_TYPE_HOST_NUMA;
    if ((!device && !host) || (device && props->location.id != 0))
        return CUDA_ERROR_INVALID_VALUE;
    if (props->handleTypes != CU_MEM_HANDLE_TYPE_NONE)
        return CUDA_ERROR_NOT_SUPPORTED; /* no inter-process sharing */
    struct CUmemPoolHandle_st *p = calloc(1, sizeof *p);
    if (!p)
        return CUDA_ERROR_OUT_OF_MEMORY;
    pool_init(p, props);
    if (!cu_handle_add(p, CU_KIND_POOL)) {
        free(p);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *pool = p;
    return CUDA_SUCCESS;
}

CUresult cuMemPoolDestroy(CUmemoryPool pool)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!pool_valid(pool) || pool->is_default)
        return CUDA_ERROR_INVALID_VALUE;
    struct CUmemPoolHandle_st *expected = pool;
    atomic_compare_exchange_strong(&current_pool, &expected, &default_pool);
    cu_handle_remove(pool);
    pthread_mutex_destroy(&pool->lock);
    free(pool);
    return CUDA_SUCCESS;
}

CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t minBytesToKeep)
{
    (void)minBytesToKeep;
    CUresult r = cu_check_init();
    if (r)
        return r;
    return pool_valid(pool) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!pool_valid(pool) || !value)
        return CUDA_ERROR_INVALID_VALUE;
    cuuint64_t v64;
    pthread_mutex_lock(&pool->lock);
    switch (attr) {
    case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
        pool->reuse[attr - 1] = *(int *)value != 0;
        break;
    case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD:
        memcpy(&pool->release_threshold, value, sizeof v64);
        break;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH:
    case CU_MEMPOOL_ATTR_USED_MEM_HIGH:
        memcpy(&v64, value, sizeof v64);
        if (v64 != 0) { /* only a reset to zero is allowed */
            r = CUDA_ERROR_INVALID_VALUE;
            break;
        }
        if (attr == CU_MEMPOOL_ATTR_USED_MEM_HIGH)
            pool->used_high = pool->used;
        else
            pool->reserved_high = pool->used;
        break;
    default:
        r = CUDA_ERROR_INVALID_VALUE;
    }
    pthread_mutex_unlock(&pool->lock);
    return r;
}

CUresult cuMemPoolGetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!pool_valid(pool) || !value)
        return CUDA_ERROR_INVALID_VALUE;
    cuuint64_t v = 0;
    pthread_mutex_lock(&pool->lock);
    switch (attr) {
    case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
        *(int *)value = pool->reuse[attr - 1];
        break;
    case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD: v = pool->release_threshold; break;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT:
    case CU_MEMPOOL_ATTR_USED_MEM_CURRENT: v = pool->used; break;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH: v = pool->reserved_high; break;
    case CU_MEMPOOL_ATTR_USED_MEM_HIGH: v = pool->used_high; break;
    default: r = CUDA_ERROR_INVALID_VALUE;
    }
    pthread_mutex_unlock(&pool->lock);
    if (!r && attr >= CU_MEMPOOL_ATTR_RELEASE_THRESHOLD)
        memcpy(value, &v, sizeof v);
    return r;
}

CUresult cuMemPoolSetAccess(CUmemoryPool pool, const CUmemAccessDesc *map, size_t count)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!pool_valid(pool) || (count && !map))
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < count; i++)
        if (map[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE || map[i].location.id != 0)
            return CUDA_ERROR_INVALID_DEVICE;
    return CUDA_SUCCESS;
}

CUresult cuMemPoolGetAccess(CUmemAccess_flags *flags, CUmemoryPool memPool, CUmemLocation *location)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!flags || !location || !pool_valid(memPool))
        return CUDA_ERROR_INVALID_VALUE;
    if (location->type != CU_MEM_LOCATION_TYPE_DEVICE || location->id != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    *flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool_out, CUdevice dev)
{
    CUresult r = cu_check_device(dev);
    if (r)
        return r;
    if (!pool_out)
        return CUDA_ERROR_INVALID_VALUE;
    *pool_out = get_default();
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetMemPool(CUmemoryPool *pool, CUdevice dev)
{
    CUresult r = cu_check_device(dev);
    if (r)
        return r;
    if (!pool)
        return CUDA_ERROR_INVALID_VALUE;
    get_default();
    *pool = atomic_load(&current_pool);
    return CUDA_SUCCESS;
}

CUresult cuDeviceSetMemPool(CUdevice dev, CUmemoryPool pool)
{
    CUresult r = cu_check_device(dev);
    if (r)
        return r;
    if (!pool_valid(pool) || pool->props.location.type != CU_MEM_LOCATION_TYPE_DEVICE)
        return CUDA_ERROR_INVALID_VALUE;
    atomic_store(&current_pool, pool);
    return CUDA_SUCCESS;
}
