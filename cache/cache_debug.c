/* cache_debug.c - the PTXJIT_DEBUG channel test and the cache channel's
 * printer. */
#include "cache_debug.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool cache_debug_on(const char *channel)
{
    const char *s = getenv("PTXJIT_DEBUG");
    size_t want = strlen(channel);
    while (s && *s) {
        size_t n = strcspn(s, ",");
        if ((n == want && !strncmp(s, channel, n)) || (n == 3 && !strncmp(s, "all", 3)))
            return true;
        s += n + (s[n] == ',');
    }
    return false;
}

void cache_debug(const char *fmt, ...)
{
    if (!cache_debug_on("cache"))
        return;
    /* One buffered write per line, so lines of concurrent processes do not
     * interleave. */
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "ptxjit: cache: %s\n", line);
}
