/* devmem.h - device memory: every allocation in a mapping of its own,
 * between two inaccessible guard pages, never in the host's malloc heap.
 * A kernel running a little past an allocation stays within its last page
 * (silent, as within a GPU allocation's granularity) or hits a guard page
 * (an illegal-address fault); either way no host data is touched.
 * Allocations of 2 MiB or more start on a 2 MiB boundary, advised into
 * transparent huge pages. */
#ifndef RT_DEVMEM_H
#define RT_DEVMEM_H

#include <stddef.h>

/* size bytes, page aligned, zero-filled, committed on first touch; NULL
 * when size is 0 or the mapping fails. */
void *rt_devmem_alloc(size_t size);
/* p and size as allocated; p NULL does nothing. */
void rt_devmem_free(void *p, size_t size);

#endif
