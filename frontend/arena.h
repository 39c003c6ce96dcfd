/* arena.h - bump allocation for one parsed module; freed all at once. */
#ifndef PTX_ARENA_H
#define PTX_ARENA_H

#include <stddef.h>

typedef struct ptx_arena ptx_arena;

ptx_arena *arena_new(void);
void arena_free(ptx_arena *a);
/* Zeroed memory; NULL when out of memory or n is absurd. */
void *arena_alloc(ptx_arena *a, size_t n);
char *arena_strndup(ptx_arena *a, const char *s, size_t n);
/* Grows an array allocated from the arena to hold at least need elements.
 * The old block is abandoned (arenas never free), so capacities double. */
void *arena_grow(ptx_arena *a, void *old, size_t elem, size_t *cap, size_t need);
size_t arena_bytes(const ptx_arena *a);

#define ARENA_PUSH(a, arr, n, cap)                                                              \
    ((n) < (cap) || ((arr) = arena_grow((a), (arr), sizeof *(arr), &(cap), (n) + 1)) != NULL    \
         ? &(arr)[(n)++]                                                                        \
         : NULL)

#endif
