/* read_file.c - whole-file input for the ptxjit command (pipes included). */
#include "read_file.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *cli_read_file(const char *path, size_t max, size_t *len)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        if (n > max) { /* an endless input (/dev/zero) ends here */
            free(buf);
            buf = NULL;
            errno = EFBIG;
            break;
        }
        char *nb = cap < (SIZE_MAX >> 1) ? realloc(buf, cap *= 2) : NULL;
        if (!nb) {
            free(buf);
            errno = ENOMEM;
        }
        buf = nb;
    }
    int err = ferror(f) ? EIO : 0;
    if (f != stdin)
        fclose(f);
    if (buf && err) {
        free(buf);
        errno = err;
        return NULL;
    }
    *len = n;
    return buf;
}
