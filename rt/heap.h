/* heap.h - the device malloc heap (CUDA's in-kernel malloc/free): a fixed
 * size region per context (CU_LIMIT_MALLOC_HEAP_SIZE, default 8 MiB),
 * mapped at the first malloc and freed with its owner.  malloc returns
 * NULL once the region is used up; free ignores what the heap did not hand
 * out or already took back (a double free, a cuMemAlloc pointer), so a
 * kernel's misuse cannot reach the host's allocator. */
#ifndef RT_HEAP_H
#define RT_HEAP_H

#include "ptxjit/ptxjit.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ptxjit_heap rt_heap;

enum { RT_HEAP_DEFAULT = 8 << 20 };

/* A heap of `limit` bytes (nothing mapped yet); NULL without memory. */
rt_heap *rt_heap_create(size_t limit);
void rt_heap_destroy(rt_heap *h);
/* Changes the size; false once a kernel has allocated from it (CUDA
 * refuses the change after a launch that used malloc). */
bool rt_heap_set_limit(rt_heap *h, size_t limit);
size_t rt_heap_limit(const rt_heap *h);

void *rt_heap_malloc(rt_heap *h, uint64_t size);
void rt_heap_free(rt_heap *h, void *p);

/* The heap of the launch the calling worker is running (for the shims). */
void rt_heap_enter(rt_heap *h);
rt_heap *rt_heap_current(void);

#endif
