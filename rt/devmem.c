/* devmem.c - device memory mappings with guard pages (see devmem.h).
 * One PROT_NONE reservation of guard + data + guard, then the data pages
 * made accessible: two system calls, and neighbouring guards merge into
 * one kernel mapping. */
#include "devmem.h"

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

static size_t page_size(void)
{
    static size_t page;
    if (!page) {
        long p = sysconf(_SC_PAGESIZE);
        page = p > 0 ? (size_t)p : 4096;
    }
    return page;
}

/* The data pages of a size-byte allocation; 0 if that overflows. */
static size_t data_bytes(size_t size)
{
    size_t page = page_size();
    if (size > SIZE_MAX - 3 * page)
        return 0;
    return (size + page - 1) & ~(page - 1);
}

/* Allocations of at least this many bytes start on a huge-page boundary
 * and ask for transparent huge pages: a kernel walking a large array a
 * few megabytes apart per warp (grid-stride loops, columns) would
 * otherwise miss the TLB on nearly every access, as GPU memory, mapped in
 * large pages, does not. */
enum { HUGE_PAGE = 2 << 20 };

void *rt_devmem_alloc(size_t size)
{
    size_t page = page_size(), data = data_bytes(size);
    if (!size || !data)
        return NULL;
    size_t slack = data >= HUGE_PAGE && data <= SIZE_MAX - 4 * (size_t)HUGE_PAGE ? HUGE_PAGE : 0;
    size_t span = data + 2 * page + slack;
    char *m = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    char *start = m + page;
    if (slack) {
        /* Keep one guard page below the aligned start and one above the
         * data; the rest of the reservation goes back. */
        start = (char *)(((uintptr_t)start + HUGE_PAGE - 1) & ~((uintptr_t)HUGE_PAGE - 1));
        char *end = start + data + page;
        if (start - page > m)
            munmap(m, (size_t)(start - page - m));
        if (m + span > end)
            munmap(end, (size_t)(m + span - end));
    }
    if (mprotect(start, data, PROT_READ | PROT_WRITE)) {
        munmap(start - page, data + 2 * page);
        return NULL;
    }
#ifdef MADV_HUGEPAGE
    if (slack)
        madvise(start, data, MADV_HUGEPAGE); /* advice: failure changes nothing */
#endif
    return start;
}

void rt_devmem_free(void *p, size_t size)
{
    if (!p)
        return;
    size_t page = page_size();
    munmap((char *)p - page, data_bytes(size) + 2 * page);
}
