/* shared_window.c - guarded .shared windows (see shared_window.h). */
#include "shared_window.h"

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

/* Below the base: negative offsets and small underflows. */
#define GUARD_BELOW ((size_t)64 << 10)
#define SPAN_ABOVE ((size_t)1 << 32)
/* A GPU allocates a CTA's shared memory in 128-byte units and faults only
 * past the unit (measured on an H100 and an H200: a 16-byte array takes
 * offsets up to 127, a 40000-byte one up to 40063).  The bytes end at a
 * page, so the unit also keeps a warp's masked vector accesses (32 lanes
 * of 4 bytes from the first element) off the guard page: a masked-off
 * lane on an inaccessible page costs the CPU a microcode assist of ~140 ns
 * per load. */
#define GRANULE ((size_t)128)

static size_t round_up(size_t x, size_t a) { return (x + a - 1) / a * a; }

/* Reserves the window for at least `need` bytes: 4 GiB above the base when
 * the address space allows; under a tight address-space limit (ulimit -v)
 * a quarter of that, and so on down to the bytes needed plus a guard page
 * (a far offset may then miss the window, but launches still run). */
static int reserve(rt_shared_window *w, size_t need)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    for (size_t span = SPAN_ABOVE; span >= need; span /= 4) {
        size_t size = round_up(GUARD_BELOW, page) + span + page;
        void *p = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p != MAP_FAILED) {
            w->region = p;
            w->region_size = size;
            return 0;
        }
        if (span / 4 < need && span > need)
            span = need * 4; /* the last try: exactly what is needed */
    }
    w->region = NULL;
    return -1;
}

/* Bytes above the base the reservation covers. */
static size_t span_of(const rt_shared_window *w, size_t page)
{
    return w->region_size - round_up(GUARD_BELOW, page) - page;
}

char *rt_shared_window_resize(rt_shared_window *w, size_t size, size_t align)
{
    if (align < 16)
        align = 16;
    if (w->base && size == w->size && align == w->align)
        return w->base;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t sized = round_up(round_up(size ? size : 1, GRANULE), align);
    if (align > page || sized > SPAN_ABOVE)
        return NULL;
    size_t open = round_up(sized, page);
    if (w->region && open > span_of(w, page)) { /* a smaller reservation outgrown */
        munmap(w->region, w->region_size);
        *w = (rt_shared_window){0};
    }
    if (!w->region && reserve(w, open))
        return NULL;
    char *start = w->region + round_up(GUARD_BELOW, page);
    if (open != w->open) {
        /* Close what was open beyond the new size, open what is new. */
        if (open < w->open && mprotect(start + open, w->open - open, PROT_NONE))
            return NULL;
        if (mprotect(start, open, PROT_READ | PROT_WRITE))
            return NULL;
        w->open = open;
    }
    w->base = start + open - sized;
    w->size = size;
    w->align = align;
    return w->base;
}

void rt_shared_window_free(rt_shared_window *w)
{
    if (w->region)
        munmap(w->region, w->region_size);
    *w = (rt_shared_window){0};
}
