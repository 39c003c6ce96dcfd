/* stream_handles.c - CUstream values are generation-checked handles, not
 * addresses: (slot + 1) << 32 | generation.  Destroying a stream bumps its
 * slot's generation, so its old handle stays invalid even after the slot
 * (or the stream's memory) is used again - an address-keyed registry would
 * take a stale handle for the new stream living at the same address. */
#include "cu_internal.h"

#include <stdlib.h>

typedef struct stream_slot {
    struct CUstream_st *s;   /* NULL: free */
    uint32_t gen;
    uint32_t next_free;      /* index + 1 of the next free slot, 0: none */
} stream_slot;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static stream_slot *slots;
static uint32_t nslots, cap, free_head;

static CUstream encode(uint32_t index, uint32_t gen)
{
    return (CUstream)(uintptr_t)(((uint64_t)index + 1) << 32 | gen);
}

/* The slot a handle names if its generation is current (lock held). */
static stream_slot *slot_of(CUstream h)
{
    uint64_t v = (uint64_t)(uintptr_t)h, index = (v >> 32) - 1;
    if (!(v >> 32) || index >= nslots || !slots[index].s || slots[index].gen != (uint32_t)v)
        return NULL;
    return &slots[index];
}

CUstream cu_stream_handle_add(struct CUstream_st *s)
{
    CUstream h = NULL;
    pthread_mutex_lock(&lock);
    uint32_t index = free_head ? free_head - 1 : nslots;
    if (!free_head && nslots == cap && cap < UINT32_MAX / 2) {
        uint32_t ncap = cap ? cap * 2 : 64;
        stream_slot *grown = realloc(slots, ncap * sizeof *slots);
        if (grown) {
            slots = grown;
            cap = ncap;
        }
    }
    if (free_head || nslots < cap) {
        if (free_head)
            free_head = slots[index].next_free;
        else
            slots[nslots++] = (stream_slot){0};
        slots[index].s = s;
        h = encode(index, slots[index].gen);
    }
    pthread_mutex_unlock(&lock);
    return h;
}

void cu_stream_handle_remove(CUstream h)
{
    pthread_mutex_lock(&lock);
    stream_slot *sl = slot_of(h);
    if (sl) {
        sl->s = NULL;
        sl->gen++;
        sl->next_free = free_head;
        free_head = (uint32_t)(sl - slots) + 1;
    }
    pthread_mutex_unlock(&lock);
}

struct CUstream_st *cu_stream_handle_get(CUstream h)
{
    pthread_mutex_lock(&lock);
    stream_slot *sl = slot_of(h);
    struct CUstream_st *s = sl ? sl->s : NULL;
    pthread_mutex_unlock(&lock);
    return s;
}
