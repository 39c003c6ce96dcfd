/* shared_window.h - a worker's .shared window, fenced by inaccessible
 * memory so that an out-of-range shared access faults (and is reported as
 * an invalid memory access) instead of writing into host memory.
 *
 * Shared addresses are 32-bit offsets added to the window's base, so the
 * window reserves 4 GiB of address space above it (and a guard below) and
 * opens only the bytes the CTA owns; the open bytes end at a page
 * boundary, rounded to a GPU's allocation unit (128 bytes) and the
 * window's alignment.  Where the address space is limited (ulimit -v) it takes
 * less, down to the open bytes and a guard page. */
#ifndef RT_SHARED_WINDOW_H
#define RT_SHARED_WINDOW_H

#include <stddef.h>

typedef struct rt_shared_window {
    char *region;            /* the reservation, NULL until first use */
    size_t region_size;
    size_t open;             /* accessible bytes (a page multiple) */
    char *base;              /* where the CTA's shared bytes start */
    size_t size, align;      /* of the current base */
} rt_shared_window;

/* Makes `size` bytes accessible at an `align`-aligned base (align a power
 * of two, at least 16) and returns the base; NULL when out of memory or
 * address space. */
char *rt_shared_window_resize(rt_shared_window *w, size_t size, size_t align);
void rt_shared_window_free(rt_shared_window *w);

#endif
