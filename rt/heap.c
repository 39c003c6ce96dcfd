/* heap.c - the device malloc heap (see heap.h).  One devmem mapping (guard
 * pages around it) carved by a bump pointer; freed blocks go to a free list
 * per size: exact 16-byte classes up to SMALL_MAX, one first-fit list
 * (split on reuse) above.  Each block has a 16-byte header whose check
 * word ties it to its address and size, so free() of anything else - a
 * pointer the heap never returned, one already freed, one inside a block -
 * is recognised and ignored, and free-list links that a kernel scribbled
 * over (a use after free) are dropped rather than followed. */
#include "heap.h"

#include "devmem.h"

#include <pthread.h>
#include <stdlib.h>

enum { GRANULE = 16, SMALL_MAX = 2048, NSMALL = SMALL_MAX / GRANULE + 1 };

#define HEAP_MAGIC 0x9e3779b97f4a7c15ull

typedef struct block_header {
    uint64_t size;   /* bytes of the block, header included; low bit: in use */
    uint64_t check;  /* HEAP_MAGIC ^ address ^ size */
} block_header;

struct ptxjit_heap {
    pthread_mutex_t lock;
    size_t limit;
    char *base;      /* NULL until the first malloc */
    size_t used;     /* bump offset */
    block_header *small[NSMALL], *large; /* free lists, linked through the payload */
};

static _Thread_local rt_heap *current;

void rt_heap_enter(rt_heap *h) { current = h; }
rt_heap *rt_heap_current(void) { return current; }

rt_heap *rt_heap_create(size_t limit)
{
    rt_heap *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    pthread_mutex_init(&h->lock, NULL);
    h->limit = limit;
    return h;
}

void rt_heap_destroy(rt_heap *h)
{
    if (!h)
        return;
    rt_devmem_free(h->base, h->limit);
    pthread_mutex_destroy(&h->lock);
    free(h);
}

bool rt_heap_set_limit(rt_heap *h, size_t limit)
{
    pthread_mutex_lock(&h->lock);
    bool ok = !h->base;
    if (ok)
        h->limit = limit;
    pthread_mutex_unlock(&h->lock);
    return ok;
}

size_t rt_heap_limit(const rt_heap *h) { return h->limit; }

static uint64_t check_of(const block_header *b, uint64_t size)
{
    return HEAP_MAGIC ^ (uint64_t)(uintptr_t)b ^ size;
}

static void stamp(block_header *b, uint64_t size, bool in_use)
{
    b->size = size | in_use;
    b->check = check_of(b, b->size);
}

/* A header the heap wrote, inside the carved part of the region. */
static bool genuine(const rt_heap *h, const block_header *b)
{
    uintptr_t p = (uintptr_t)b, lo = (uintptr_t)h->base;
    if (!h->base || p < lo || p % GRANULE || p - lo + sizeof *b > h->used)
        return false;
    uint64_t size = b->size & ~(uint64_t)1;
    return b->check == check_of(b, b->size) && size >= 2 * GRANULE && size % GRANULE == 0 &&
           p - lo + size <= h->used;
}

static block_header **link_of(block_header *b) { return (block_header **)(b + 1); }

/* Pops the head of a free list, dropping the list if it was corrupted. */
static block_header *pop(rt_heap *h, block_header **list)
{
    block_header *b = *list;
    if (!b)
        return NULL;
    if (!genuine(h, b) || (b->size & 1)) {
        *list = NULL;
        return NULL;
    }
    *list = *link_of(b);
    return b;
}

static void push(block_header **list, block_header *b)
{
    *link_of(b) = *list;
    *list = b;
}

/* First fit among the large free blocks; a remainder of a large block's
 * size goes back to the list. */
static block_header *take_large(rt_heap *h, uint64_t size)
{
    for (block_header **at = &h->large; *at;) {
        block_header *b = *at;
        if (!genuine(h, b) || (b->size & 1)) {
            *at = NULL;
            return NULL;
        }
        if (b->size >= size) {
            *at = *link_of(b);
            uint64_t rest = b->size - size;
            if (rest > SMALL_MAX) {
                block_header *r = (block_header *)((char *)b + size);
                stamp(r, rest, false);
                push(&h->large, r);
                stamp(b, size, false);
            }
            return b;
        }
        at = link_of(b);
    }
    return NULL;
}

static block_header *carve(rt_heap *h, uint64_t size)
{
    if (!h->base && !(h->base = rt_devmem_alloc(h->limit)))
        return NULL;
    if (size > h->limit - h->used)
        return NULL;
    block_header *b = (block_header *)(h->base + h->used);
    h->used += size;
    return b;
}

void *rt_heap_malloc(rt_heap *h, uint64_t request)
{
    if (!h || request > h->limit)
        return NULL;
    uint64_t size = (request + sizeof(block_header) + GRANULE - 1) / GRANULE * GRANULE;
    if (size < 2 * GRANULE)
        size = 2 * GRANULE;
    pthread_mutex_lock(&h->lock);
    block_header *b = size <= SMALL_MAX ? pop(h, &h->small[size / GRANULE]) : take_large(h, size);
    if (b)
        size = b->size;
    else
        b = carve(h, size);
    if (b)
        stamp(b, size, true);
    pthread_mutex_unlock(&h->lock);
    return b ? b + 1 : NULL;
}

void rt_heap_free(rt_heap *h, void *p)
{
    if (!h || !p)
        return;
    block_header *b = (block_header *)p - 1;
    pthread_mutex_lock(&h->lock);
    if (genuine(h, b) && (b->size & 1)) {
        uint64_t size = b->size & ~(uint64_t)1;
        stamp(b, size, false);
        push(size <= SMALL_MAX ? &h->small[size / GRANULE] : &h->large, b);
    }
    pthread_mutex_unlock(&h->lock);
}
