/* symtab.h - scoped symbol table: name -> declaration, with shadowing.
 * A hash index points at the innermost entry of each name; popping a scope
 * restores the entries it shadowed. */
#ifndef PTX_SYMTAB_H
#define PTX_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum sym_kind { SYM_VAR, SYM_FUNC, SYM_LABEL } sym_kind;

typedef struct sym {
    const char *name;
    sym_kind kind;
    void *decl;       /* ptx_var*, ptx_func* */
    int32_t label;    /* statement index for labels */
    uint32_t depth;
    int32_t shadowed; /* previous entry with this name, -1 if none */
} sym;

typedef struct symtab {
    sym *v;
    uint32_t n, cap;
    int32_t *index; /* hash slots: entry number + 1, 0 = empty */
    uint32_t nslots;
    uint32_t depth;
    uint32_t scope_start[256]; /* first entry of each open scope */
    bool oom;
} symtab;

void symtab_init(symtab *t);
void symtab_free(symtab *t);
/* Innermost entry named s[0..n), or NULL. */
const sym *symtab_find(const symtab *t, const char *s, size_t n);
/* Adds an entry at the current depth.  Returns the entry it collides with at
 * the same depth (a redefinition) without adding, or NULL on success. */
const sym *symtab_add(symtab *t, const char *name, sym_kind kind, void *decl, int32_t label);
/* Scopes nest at most 255 deep (the parser bounds nesting lower). */
void symtab_push(symtab *t);
void symtab_pop(symtab *t);

#endif
