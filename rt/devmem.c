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

void *rt_devmem_alloc(size_t size)
{
    size_t page = page_size(), data = data_bytes(size);
    if (!size || !data)
        return NULL;
    char *m = mmap(NULL, data + 2 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    if (mprotect(m + page, data, PROT_READ | PROT_WRITE)) {
        munmap(m, data + 2 * page);
        return NULL;
    }
    return m + page;
}

void rt_devmem_free(void *p, size_t size)
{
    if (!p)
        return;
    size_t page = page_size();
    munmap((char *)p - page, data_bytes(size) + 2 * page);
}
