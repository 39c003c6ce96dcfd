/* symtab.c - scoped symbol table over open addressing. */
#include "symtab.h"

#include <stdlib.h>
#include <string.h>

void symtab_init(symtab *t) { memset(t, 0, sizeof *t); }

void symtab_free(symtab *t)
{
    free(t->v);
    free(t->index);
    memset(t, 0, sizeof *t);
}

static uint32_t hash(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static bool same(const char *name, const char *s, size_t n)
{
    return strncmp(name, s, n) == 0 && name[n] == 0;
}

/* The slot holding name s, or the empty slot where it would go. */
static uint32_t slot_of(const symtab *t, const char *s, size_t n)
{
    uint32_t mask = t->nslots - 1, i = hash(s, n) & mask;
    while (t->index[i] && !same(t->v[t->index[i] - 1].name, s, n))
        i = (i + 1) & mask;
    return i;
}

const sym *symtab_find(const symtab *t, const char *s, size_t n)
{
    if (!t->nslots)
        return NULL;
    int32_t e = t->index[slot_of(t, s, n)];
    return e > 0 && t->v[e - 1].depth != UINT32_MAX ? &t->v[e - 1] : NULL; /* DEAD */
}

static bool rehash(symtab *t)
{
    uint32_t nslots = t->nslots ? t->nslots * 2 : 64;
    int32_t *old = t->index;
    uint32_t oldn = t->nslots;
    t->index = calloc(nslots, sizeof *t->index);
    if (!t->index) {
        t->index = old;
        return false;
    }
    t->nslots = nslots;
    for (uint32_t i = 0; i < oldn; i++)
        if (old[i]) {
            const char *name = t->v[old[i] - 1].name;
            t->index[slot_of(t, name, strlen(name))] = old[i];
        }
    free(old);
    return true;
}

enum { DEAD = UINT32_MAX };

const sym *symtab_add(symtab *t, const char *name, sym_kind kind, void *decl, int32_t label)
{
    size_t len = strlen(name);
    const sym *prev = symtab_find(t, name, len);
    if (prev && prev->depth == t->depth)
        return prev;
    if ((t->n + 1) * 2 > t->nslots && !rehash(t)) {
        t->oom = true;
        return NULL;
    }
    if (t->n == t->cap) {
        uint32_t ncap = t->cap ? t->cap * 2 : 64;
        sym *v = realloc(t->v, ncap * sizeof *v);
        if (!v) {
            t->oom = true;
            return NULL;
        }
        t->v = v;
        t->cap = ncap;
    }
    uint32_t slot = slot_of(t, name, len);
    t->v[t->n] = (sym){name, kind, decl, label, t->depth, prev ? t->index[slot] - 1 : -1};
    t->index[slot] = (int32_t)++t->n;
    return NULL;
}

void symtab_push(symtab *t)
{
    if (t->depth + 1 < sizeof t->scope_start / sizeof t->scope_start[0])
        t->scope_start[++t->depth] = t->n;
}

/* Entries are never removed: a popped name's slot keeps pointing at its dead
 * entry so probe chains stay intact, or goes back to the entry it shadowed. */
void symtab_pop(symtab *t)
{
    if (t->depth == 0)
        return;
    for (uint32_t i = t->n; i-- > t->scope_start[t->depth];) {
        sym *e = &t->v[i];
        if (e->depth != t->depth)
            continue;
        uint32_t slot = slot_of(t, e->name, strlen(e->name));
        if (e->shadowed >= 0)
            t->index[slot] = e->shadowed + 1;
        e->depth = DEAD;
    }
    t->depth--;
}
