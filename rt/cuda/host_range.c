/* host_range.c - whether a range of host memory is mapped and accessible,
 * read from /proc/self/maps (sorted by address): cuMemHostRegister takes
 * only memory the process can really read (and write, unless registered
 * read-only), so that later copies and kernels using it cannot fault in
 * the host's name. */
#include "cu_internal.h"

#include <stdio.h>

bool cu_host_range_accessible(uintptr_t p, size_t n, bool writable)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return false;
    uintptr_t need = p, end = p + n; /* [need, end) not yet covered */
    char line[512];
    while (need < end && fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        char perms[5];
        if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perms) != 3)
            continue;
        if (hi <= need)
            continue;
        if (lo > need || perms[0] != 'r' || (writable && perms[1] != 'w'))
            break; /* a hole, or memory it may not use */
        need = hi;
    }
    fclose(f);
    return need >= end;
}
