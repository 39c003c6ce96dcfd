/* intern.h - one arena copy of each distinct name a parse meets: register
 * names repeat in nearly every instruction, and a copy each cost more than
 * the operand holding it. */
#ifndef PTX_INTERN_H
#define PTX_INTERN_H

#include "arena.h"

#include <stddef.h>

typedef struct intern_table {
    const char **slots; /* open addressing; NULL = empty */
    size_t cap, n;
} intern_table;

/* The arena's copy of s[0..len), made at its first use; NULL without
 * memory. */
const char *intern(intern_table *t, ptx_arena *a, const char *s, size_t len);
/* Frees the table (the strings stay in the arena). */
void intern_free(intern_table *t);

#endif
