/* memmap.c - the allocation map: every range the driver handed out or
 * registered, sorted by base address, looked up by any address inside it
 * (cuMemGetAddressRange, cuPointerGetAttribute, copy validation).  A
 * sorted array under a reader-writer lock: lookups are a binary search,
 * inserts and removals a memmove. */
#include "cu_internal.h"
#include "devmem.h"

#include <stdlib.h>
#include <string.h>

static pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;
static cu_alloc *allocs;
static size_t n, cap;

/* Index of the first allocation with base > p. */
static size_t upper(uintptr_t p)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (allocs[mid].base <= p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

bool cu_map_insert(const cu_alloc *a)
{
    if (!a->size || a->base + a->size < a->base)
        return false;
    pthread_rwlock_wrlock(&lock);
    bool ok = false;
    size_t i = upper(a->base);
    bool overlaps = (i > 0 && allocs[i - 1].base + allocs[i - 1].size > a->base) ||
                    (i < n && allocs[i].base < a->base + a->size);
    if (!overlaps && n == cap) {
        size_t ncap = cap ? cap * 2 : 64;
        cu_alloc *grown = realloc(allocs, ncap * sizeof *allocs);
        if (grown) {
            allocs = grown;
            cap = ncap;
        }
    }
    if (!overlaps && n < cap) {
        memmove(&allocs[i + 1], &allocs[i], (n - i) * sizeof *allocs);
        allocs[i] = *a;
        n++;
        ok = true;
    }
    pthread_rwlock_unlock(&lock);
    return ok;
}

bool cu_map_remove(uintptr_t base, cu_mem_kind kind, cu_alloc *removed)
{
    pthread_rwlock_wrlock(&lock);
    size_t i = upper(base);
    bool ok = i > 0 && allocs[i - 1].base == base && allocs[i - 1].kind == kind;
    if (ok) {
        if (removed)
            *removed = allocs[i - 1];
        memmove(&allocs[i - 1], &allocs[i], (n - i) * sizeof *allocs);
        n--;
    }
    pthread_rwlock_unlock(&lock);
    return ok;
}

bool cu_map_find(uintptr_t p, size_t len, cu_alloc *out)
{
    if (len == 0)
        len = 1;
    if (p + len < p)
        return false;
    pthread_rwlock_rdlock(&lock);
    size_t i = upper(p);
    bool ok = i > 0 && p + len <= allocs[i - 1].base + allocs[i - 1].size;
    if (ok && out)
        *out = allocs[i - 1];
    pthread_rwlock_unlock(&lock);
    return ok;
}

bool cu_map_update(uintptr_t p, size_t len, void (*fn)(cu_alloc *a, void *arg), void *arg)
{
    if (len == 0)
        len = 1;
    if (p + len < p)
        return false;
    pthread_rwlock_wrlock(&lock);
    size_t i = upper(p);
    bool ok = i > 0 && p + len <= allocs[i - 1].base + allocs[i - 1].size;
    if (ok)
        fn(&allocs[i - 1], arg);
    pthread_rwlock_unlock(&lock);
    return ok;
}

bool cu_mem_is_device(uintptr_t p, size_t len) { return p && cu_map_find(p, len, NULL); }

/* Takes every allocation of ctx out of the map, then frees them. */
void cu_map_release_ctx(struct CUctx_st *ctx)
{
    pthread_rwlock_wrlock(&lock);
    cu_alloc *gone = malloc((n ? n : 1) * sizeof *gone);
    size_t ngone = 0, kept = 0;
    for (size_t i = 0; i < n; i++) {
        /* Module variables belong to their module (freed with it); if the
         * list cannot be had, leak rather than free what is in use. */
        if (gone && allocs[i].ctx == ctx && allocs[i].kind != CU_MEM_GLOBAL)
            gone[ngone++] = allocs[i];
        else
            allocs[kept++] = allocs[i];
    }
    n = kept;
    pthread_rwlock_unlock(&lock);
    for (size_t i = 0; i < ngone; i++)
        if (gone[i].kind != CU_MEM_REGISTERED)
            cu_mem_free_raw((void *)gone[i].base, gone[i].size);
    free(gone);
}

/* Device memory comes from devmem.c: its own mappings between guard
 * pages, zeroed (fresh device memory on a GPU reads as zeros), so that a
 * kernel's overrun never reaches the host's heap. */
void *cu_mem_alloc_raw(size_t size)
{
    if (!size || size > cu_device()->total_mem)
        return NULL;
    return rt_devmem_alloc(size);
}

void cu_mem_free_raw(void *p, size_t size) { rt_devmem_free(p, size); }
