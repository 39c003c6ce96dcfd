/* arena.c - bump allocator: blocks chained, each at least 64 KiB. */
#include "arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { BLOCK_MIN = 64 * 1024, ALIGN = 16 };

typedef struct block {
    struct block *next;
    size_t size, used;
    _Alignas(16) unsigned char data[];
} block;

struct ptx_arena {
    block *head;
    size_t total;
};

ptx_arena *arena_new(void) { return calloc(1, sizeof(ptx_arena)); }

void arena_free(ptx_arena *a)
{
    if (!a)
        return;
    for (block *b = a->head, *next; b; b = next) {
        next = b->next;
        free(b);
    }
    free(a);
}

void *arena_alloc(ptx_arena *a, size_t n)
{
    if (n > SIZE_MAX / 4)
        return NULL;
    n = (n + ALIGN - 1) & ~(size_t)(ALIGN - 1);
    block *b = a->head;
    if (!b || b->size - b->used < n) {
        size_t size = n > BLOCK_MIN ? n : BLOCK_MIN;
        b = malloc(sizeof(block) + size);
        if (!b)
            return NULL;
        b->size = size;
        b->used = 0;
        b->next = a->head;
        a->head = b;
        a->total += size;
    }
    void *p = b->data + b->used;
    b->used += n;
    memset(p, 0, n);
    return p;
}

char *arena_strndup(ptx_arena *a, const char *s, size_t n)
{
    char *p = arena_alloc(a, n + 1);
    if (p)
        memcpy(p, s, n);
    return p;
}

void *arena_grow(ptx_arena *a, void *old, size_t elem, size_t *cap, size_t need)
{
    size_t ncap = *cap ? *cap : 4;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2 / elem)
            return NULL;
        ncap *= 2;
    }
    void *p = arena_alloc(a, ncap * elem);
    if (!p)
        return NULL;
    if (old)
        memcpy(p, old, *cap * elem);
    *cap = ncap;
    return p;
}

size_t arena_bytes(const ptx_arena *a) { return a->total; }
