/* equal.c - structural equality of modules, for round-trip tests and the
 * fuzzer.  Compares what the source says; resolved links are derived. */
#include "ptx.h"

#include <stdio.h>
#include <string.h>

typedef struct cmp {
    char *why;
    size_t len;
} cmp;

static bool differ(cmp *c, ptx_loc loc, const char *what)
{
    if (c->why && c->len)
        snprintf(c->why, c->len, "%u:%u: %s differs", loc.line, loc.col, what);
    return false;
}

static bool str_eq(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

static bool init_eq(cmp *c, const ptx_init *a, const ptx_init *b)
{
    if (!a || !b)
        return a == b || differ(c, a ? a->loc : b->loc, "initializer presence");
    if (a->kind != b->kind || a->ival != b->ival || a->mask != b->mask || !str_eq(a->sym, b->sym) ||
        a->nelems != b->nelems)
        return differ(c, a->loc, "initializer");
    for (uint32_t i = 0; i < a->nelems; i++)
        if (!init_eq(c, a->elems[i], b->elems[i]))
            return false;
    return true;
}

static bool var_eq(cmp *c, const ptx_var *a, const ptx_var *b)
{
    if (!str_eq(a->name, b->name) || a->space != b->space || a->space_sub != b->space_sub ||
        a->type != b->type || a->vec != b->vec || a->align != b->align ||
        a->linkage != b->linkage || a->nreg != b->nreg || a->ndims != b->ndims ||
        a->is_ptr != b->is_ptr || a->ptr_space != b->ptr_space || a->ptr_align != b->ptr_align ||
        a->managed != b->managed || memcmp(a->dims, b->dims, sizeof a->dims) != 0)
        return differ(c, a->loc, "declaration");
    return init_eq(c, a->init, b->init);
}

static bool operand_eq(cmp *c, const ptx_operand *a, const ptx_operand *b)
{
    if (a->kind != b->kind || a->neg != b->neg || a->comp != b->comp || a->vsel != b->vsel || a->minus != b->minus || a->has_offset != b->has_offset || a->sreg != b->sreg ||
        a->sreg_index != b->sreg_index || !str_eq(a->name, b->name) || a->imm != b->imm ||
        a->nelems != b->nelems)
        return differ(c, a->loc, "operand");
    for (uint32_t i = 0; i < a->nelems; i++)
        if (!operand_eq(c, &a->elems[i], &b->elems[i]))
            return false;
    return true;
}

static bool instr_eq(cmp *c, const ptx_instr *a, const ptx_instr *b)
{
    if (a->op != b->op || a->ntypes != b->ntypes || memcmp(a->types, b->types, sizeof a->types) ||
        memcmp(a->mod, b->mod, sizeof a->mod) || a->flags != b->flags ||
        a->has_guard != b->has_guard || a->nopds != b->nopds)
        return differ(c, a->loc, "instruction");
    if (a->has_guard && !operand_eq(c, &a->guard, &b->guard))
        return false;
    for (uint32_t i = 0; i < a->nopds; i++)
        if (!operand_eq(c, &a->opds[i], &b->opds[i]))
            return false;
    return true;
}

static bool func_eq(cmp *c, const ptx_func *a, const ptx_func *b);

static bool stmt_eq(cmp *c, const ptx_stmt *a, const ptx_stmt *b)
{
    if (a->kind != b->kind || !str_eq(a->name, b->name) || !str_eq(a->text, b->text) ||
        a->ntargets != b->ntargets)
        return differ(c, a->loc, "statement");
    for (uint32_t i = 0; i < a->ntargets; i++)
        if (!operand_eq(c, &a->targets[i], &b->targets[i]))
            return false;
    switch (a->kind) {
    case PTX_STMT_INSTR: return instr_eq(c, a->instr, b->instr);
    case PTX_STMT_VAR: return var_eq(c, a->var, b->var);
    case PTX_STMT_PROTOTYPE: return func_eq(c, a->proto, b->proto);
    default: return true;
    }
}

static bool vars_eq(cmp *c, ptx_var *const *a, ptx_var *const *b, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (!var_eq(c, a[i], b[i]))
            return false;
    return true;
}

static bool func_eq(cmp *c, const ptx_func *a, const ptx_func *b)
{
    if (!str_eq(a->name, b->name) || a->is_entry != b->is_entry || a->has_body != b->has_body ||
        a->noreturn != b->noreturn || a->linkage != b->linkage || a->nparams != b->nparams ||
        a->nrets != b->nrets || memcmp(a->maxntid, b->maxntid, sizeof a->maxntid) ||
        memcmp(a->reqntid, b->reqntid, sizeof a->reqntid) ||
        memcmp(a->reqnctapercluster, b->reqnctapercluster, sizeof a->reqnctapercluster) ||
        a->minnctapersm != b->minnctapersm || a->maxnctapersm != b->maxnctapersm ||
        a->maxnreg != b->maxnreg || a->maxclusterrank != b->maxclusterrank ||
        a->explicitcluster != b->explicitcluster || a->npragmas != b->npragmas ||
        a->nbody != b->nbody)
        return differ(c, a->loc, "function header");
    for (uint32_t i = 0; i < a->npragmas; i++)
        if (!str_eq(a->pragmas[i], b->pragmas[i]))
            return differ(c, a->loc, "function pragma");
    if (!vars_eq(c, a->params, b->params, a->nparams) || !vars_eq(c, a->rets, b->rets, a->nrets))
        return false;
    for (uint32_t i = 0; i < a->nbody; i++)
        if (!stmt_eq(c, &a->body[i], &b->body[i]))
            return false;
    return true;
}

bool ptx_module_equal(const ptx_module *a, const ptx_module *b, char *why, size_t whylen)
{
    cmp c = {why, whylen};
    if (why && whylen)
        why[0] = 0;
    ptx_loc top = {1, 1};
    if (a->version_major != b->version_major || a->version_minor != b->version_minor ||
        a->sm != b->sm || a->sm_suffix != b->sm_suffix || a->target_flags != b->target_flags ||
        a->address_size != b->address_size)
        return differ(&c, top, "module header");
    if (a->nitems != b->nitems)
        return differ(&c, top, "number of module items");
    for (uint32_t i = 0; i < a->nitems; i++) {
        const ptx_item *x = &a->items[i], *y = &b->items[i];
        if (x->kind != y->kind)
            return differ(&c, top, "module item kind");
        bool ok = x->kind == PTX_ITEM_VAR    ? var_eq(&c, x->var, y->var)
                  : x->kind == PTX_ITEM_FUNC ? func_eq(&c, x->func, y->func)
                                             : str_eq(x->text, y->text) || differ(&c, top, "pragma");
        if (!ok)
            return false;
    }
    return true;
}
