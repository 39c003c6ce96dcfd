/* diag.c - diagnostics: collected as values, printed clang-style. */
#include "ptx.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ptx_diag_add(ptx_diags *d, ptx_loc loc, const char *fmt, ...)
{
    if (d->n >= PTX_MAX_DIAGS) {
        d->dropped++;
        return;
    }
    if (d->n == d->cap) {
        uint32_t ncap = d->cap ? d->cap * 2 : 16;
        ptx_diag *v = realloc(d->v, ncap * sizeof *v);
        if (!v) {
            d->dropped++;
            return;
        }
        d->v = v;
        d->cap = ncap;
    }
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char *msg = strdup(buf);
    if (!msg) {
        d->dropped++;
        return;
    }
    d->v[d->n].loc = loc;
    d->v[d->n].msg = msg;
    d->n++;
}

void ptx_diags_free(ptx_diags *d)
{
    for (uint32_t i = 0; i < d->n; i++)
        free(d->v[i].msg);
    free(d->v);
    memset(d, 0, sizeof *d);
}

/* Finds the start of 1-based line `line` by scanning; diagnostics are few. */
static const char *line_start(const char *src, size_t len, uint32_t line, size_t *linelen)
{
    const char *p = src, *end = src + len;
    for (uint32_t l = 1; l < line && p < end; l++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            return NULL;
        p = nl + 1;
    }
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    *linelen = (size_t)((nl ? nl : end) - p);
    return p;
}

/* Shows at most this many characters of a source line around the column. */
enum { WINDOW = 100 };

static void print_excerpt(FILE *f, const char *src, size_t len, ptx_loc loc)
{
    size_t n;
    const char *s = line_start(src, len, loc.line, &n);
    if (!s || loc.col == 0)
        return;
    size_t col = loc.col - 1, from = 0;
    if (col > n)
        col = n;
    if (col > WINDOW / 2)
        from = col - WINDOW / 2;
    size_t to = from + WINDOW < n ? from + WINDOW : n;
    fputs("    ", f);
    if (from)
        fputs("...", f);
    for (size_t i = from; i < to; i++) {
        unsigned char c = (unsigned char)s[i];
        fputc(c == '\t' ? ' ' : (c < 32 || c >= 127) ? '?' : c, f);
    }
    if (to < n)
        fputs("...", f);
    fputs("\n    ", f);
    if (from)
        fputs("   ", f);
    for (size_t i = from; i < col; i++)
        fputc(' ', f);
    fputs("^\n", f);
}

void ptx_diags_print(const ptx_diags *d, const char *filename, const char *src, size_t len,
                     void *stream)
{
    FILE *f = stream;
    for (uint32_t i = 0; i < d->n; i++) {
        fprintf(f, "%s:%u:%u: error: %s\n", filename, d->v[i].loc.line, d->v[i].loc.col,
                d->v[i].msg);
        if (src)
            print_excerpt(f, src, len, d->v[i].loc);
    }
    if (d->dropped)
        fprintf(f, "%s: error: %u more errors not shown\n", filename, d->dropped);
}
