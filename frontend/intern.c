/* intern.c - interned names (see intern.h). */
#include "intern.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static size_t hash(const char *s, size_t len)
{
    uint64_t h = 14695981039346656037u; /* FNV-1a */
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211u;
    return (size_t)h;
}

static bool same(const char *interned, const char *s, size_t len)
{
    return !strncmp(interned, s, len) && !interned[len];
}

/* Doubles the table (kept at most half full); false without memory. */
static bool grow(intern_table *t)
{
    size_t cap = t->cap ? t->cap * 2 : 256;
    const char **slots = calloc(cap, sizeof *slots);
    if (!slots)
        return false;
    for (size_t i = 0; i < t->cap; i++) {
        const char *s = t->slots[i];
        if (!s)
            continue;
        size_t j = hash(s, strlen(s)) & (cap - 1);
        while (slots[j])
            j = (j + 1) & (cap - 1);
        slots[j] = s;
    }
    free(t->slots);
    t->slots = slots;
    t->cap = cap;
    return true;
}

const char *intern(intern_table *t, ptx_arena *a, const char *s, size_t len)
{
    if (t->n * 2 >= t->cap && !grow(t))
        return arena_strndup(a, s, len); /* a copy of its own still serves */
    size_t j = hash(s, len) & (t->cap - 1);
    for (; t->slots[j]; j = (j + 1) & (t->cap - 1))
        if (same(t->slots[j], s, len))
            return t->slots[j];
    char *copy = arena_strndup(a, s, len);
    if (copy) {
        t->slots[j] = copy;
        t->n++;
    }
    return copy;
}

void intern_free(intern_table *t)
{
    free(t->slots);
    *t = (intern_table){0};
}
