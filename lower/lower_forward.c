/* lower_forward.c - reads that see one definition get their own copy of it.
 *
 * nvcc reuses registers: `mov.u32 %r35, %tid.y` starts a loop counter that
 * the loop increments, and the address `As + 64 * %r35` computed before
 * the loop reads the first definition only.  Since %r35 has two
 * definitions, the address is not a pure function of each lane's
 * immutable values (lower_live.c's rematerialization), so it is blended,
 * saved at every barrier and its shape (lower_shape.c) is lost.
 *
 * A read whose only reaching definition D is a pure instruction reads a
 * private register instead, written by a copy of D lowered right after it.
 * The copy has one definition; if its operands are immutable per lane
 * too, the rematerialization analysis accepts it and so everything
 * computed from it; copies it does not accept are dropped again.
 *
 * Reaching definitions are approximated safely: within the block, the
 * last earlier definition; else every block's last definition whose block
 * can reach the read's block (ignoring kills on the way).  Reading a
 * register no definition reached is undefined in PTX, so D's value is
 * right for every lane that reads. */
#include "lower_internal.h"

#include <stdlib.h>
#include <string.h>

enum { MAX_BLOCKS = 4096 }; /* above this the reachability sets cost too much */

typedef struct def_list {
    uint32_t n, cap;
    uint32_t *stmt; /* defining statements, in body order */
    bool opaque;    /* written in a way the analysis does not follow */
} def_list;

typedef struct forward {
    ptrmap defs;       /* ptx_var* -> def_list[elements] */
    uint64_t *reach;   /* reach[b]: blocks reachable from b by one edge or more */
    uint8_t *reach_done;
    uint32_t words;
    ptrmap use_def;    /* operand* -> defining ptx_instr* */
} forward;

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        abort(); /* lowering has no partial-failure path */
    return p;
}

static def_list *defs_of(forward *fw, const ptx_var *v)
{
    def_list *d = ptrmap_get(&fw->defs, v);
    if (!d) {
        d = xcalloc(reg_elems(v), sizeof *d);
        ptrmap_put(&fw->defs, v, d);
    }
    return d;
}

/* Every register in o is written opaquely (calls, vector destinations). */
static void mark_opaque(forward *fw, const ptx_operand *o)
{
    if (is_reg_opd(o) && reg_elem(o) < reg_elems(o->var))
        defs_of(fw, o->var)[reg_elem(o)].opaque = true;
    for (uint32_t i = 0; i < o->nelems; i++)
        mark_opaque(fw, &o->elems[i]);
}

static void add_def(forward *fw, const ptx_operand *o, uint32_t stmt)
{
    def_list *d = &defs_of(fw, o->var)[reg_elem(o)];
    if (d->n == d->cap) {
        d->cap = d->cap ? 2 * d->cap : 4;
        d->stmt = realloc(d->stmt, d->cap * sizeof *d->stmt);
        if (!d->stmt)
            abort();
    }
    d->stmt[d->n++] = stmt;
}

static void collect_defs(fn *F, forward *fw)
{
    const ptx_func *f = F->f;
    for (uint32_t i = 0; i < f->nrets + f->nparams; i++) { /* written by the caller */
        const ptx_var *v = i < f->nrets ? f->rets[i] : f->params[i - f->nrets];
        if (v->space == PTX_SP_REG)
            for (uint32_t k = 0; k < reg_elems(v); k++)
                defs_of(fw, v)[k].opaque = true;
    }
    for (uint32_t i = 0; i < f->nbody; i++) {
        if (f->body[i].kind != PTX_STMT_INSTR)
            continue;
        const ptx_instr *in = f->body[i].instr;
        if (in->op == PTX_OP_CALL) {
            for (uint32_t j = 0; j < in->nopds; j++)
                mark_opaque(fw, &in->opds[j]);
        } else if (in->nopds && instr_defines_first(in)) {
            const ptx_operand *d = &in->opds[0];
            if (is_reg_opd(d) && !d->comp && !d->nelems && reg_elem(d) < reg_elems(d->var))
                add_def(fw, d, i);
            else
                mark_opaque(fw, d);
        } else if (in->nopds && instr_writes_opaque(in)) {
            mark_opaque(fw, &in->opds[0]);
        }
    }
}

/* The last statement of each block, for its successors. */
static const ptx_instr *block_last(fn *F, uint32_t b, const uint32_t *first, const uint32_t *end)
{
    for (uint32_t i = end[b]; i-- > first[b];)
        if (F->f->body[i].kind == PTX_STMT_INSTR)
            return F->f->body[i].instr;
    return NULL;
}

/* Whether a path of one edge or more leads from block a to block b. */
static bool reaches(fn *F, forward *fw, uint32_t a, uint32_t b, const uint32_t *first, const uint32_t *end)
{
    uint64_t *r = fw->reach + (size_t)a * fw->words;
    if (!fw->reach_done[a]) {
        uint32_t *stack = xcalloc(F->nblocks, sizeof *stack), top = 0;
        stack[top++] = a;
        while (top) {
            uint32_t x = stack[--top], succ[64];
            uint32_t ns = block_successors(F, x, block_last(F, x, first, end), succ, 64);
            for (uint32_t e = 0; e < ns; e++) {
                uint32_t s = succ[e];
                if (!(r[s / 64] >> (s % 64) & 1)) {
                    r[s / 64] |= 1ull << (s % 64);
                    stack[top++] = s;
                }
            }
        }
        free(stack);
        fw->reach_done[a] = 1;
    }
    return r[b / 64] >> (b % 64) & 1;
}

static bool int_types(const ptx_instr *in)
{
    for (uint32_t i = 0; i < in->ntypes; i++)
        switch (in->types[i]) {
        case PTX_TYPE_F16: case PTX_TYPE_F16X2: case PTX_TYPE_BF16: case PTX_TYPE_BF16X2:
        case PTX_TYPE_F32: case PTX_TYPE_F64: case PTX_TYPE_PRED:
            return false;
        default:
            break;
        }
    return true;
}

/* The one definition that can reach the read of o at statement i, if it
 * is a pure, unguarded integer definition other than the reader. */
static const ptx_instr *reaching_def(fn *F, forward *fw, const ptx_operand *o, uint32_t i, const uint32_t *first,
                                     const uint32_t *end)
{
    def_list *dl = ptrmap_get(&fw->defs, o->var);
    if (!dl || reg_elem(o) >= reg_elems(o->var))
        return NULL;
    dl += reg_elem(o);
    if (dl->opaque || dl->n < 2) /* one definition: lower_live.c handles it */
        return NULL;
    uint32_t b = F->block_of_stmt[i], found = UINT32_MAX, reached = UINT32_MAX;
    for (uint32_t k = dl->n; k-- > 0;)
        if (dl->stmt[k] < i && dl->stmt[k] >= first[b]) {
            found = dl->stmt[k];
            break;
        }
    for (uint32_t k = 0; found == UINT32_MAX && k < dl->n; k++) { /* each block's last definition */
        uint32_t x = F->block_of_stmt[dl->stmt[k]];
        bool last_in_block = k + 1 == dl->n || F->block_of_stmt[dl->stmt[k + 1]] != x;
        if (!last_in_block || !reaches(F, fw, x, b, first, end))
            continue;
        if (reached != UINT32_MAX)
            return NULL; /* a second block's definition reaches too */
        reached = dl->stmt[k];
    }
    if (found == UINT32_MAX)
        found = reached;
    if (found == UINT32_MAX)
        return NULL; /* nothing reaches: no read to forward */
    const ptx_instr *d = F->f->body[found].instr;
    if (found == i || d->has_guard || o->var->type == PTX_TYPE_PRED || !int_types(d) || !pure_def(F, d))
        return NULL;
    return d;
}

static void find_reads(fn *F, forward *fw, const ptx_operand *o, uint32_t i, const uint32_t *first,
                       const uint32_t *end)
{
    if (is_reg_opd(o)) {
        const ptx_instr *d = reaching_def(F, fw, o, i, first, end);
        if (d)
            ptrmap_put(&fw->use_def, o, (void *)d);
    }
    for (uint32_t k = 0; k < o->nelems; k++)
        find_reads(F, fw, &o->elems[k], i, first, end);
}

/* The copy of d writing a fresh register; its operands read what d's do. */
static ptx_instr *make_copy(fn *F, const ptx_instr *d)
{
    const ptx_operand *dst = &d->opds[0];
    ptx_var *v = xcalloc(1, sizeof *v);
    *v = *dst->var;
    v->nreg = 0;
    v->vec = 0;
    ptx_instr *c = xcalloc(1, sizeof *c);
    *c = *d;
    c->opds = xcalloc(d->nopds, sizeof *c->opds);
    memcpy(c->opds, d->opds, d->nopds * sizeof *c->opds);
    c->opds[0].var = v;
    c->opds[0].reg_index = 0;
    reg_add_copy(F, v, c, dst->var, reg_elem(dst));
    F->fwd_owned = realloc(F->fwd_owned, (F->nfwd_owned + 3) * sizeof *F->fwd_owned);
    if (!F->fwd_owned)
        abort();
    F->fwd_owned[F->nfwd_owned++] = v;
    F->fwd_owned[F->nfwd_owned++] = c->opds;
    F->fwd_owned[F->nfwd_owned++] = c;
    return c;
}

void analyze_forwarding(fn *F)
{
    const ptx_func *f = F->f;
    uint32_t nb = F->nblocks;
    if (!nb || nb > MAX_BLOCKS || !f->nbody)
        return;
    forward fw = {0};
    fw.words = (nb + 63) / 64;
    fw.reach = xcalloc((size_t)nb * fw.words, sizeof *fw.reach);
    fw.reach_done = xcalloc(nb, 1);
    uint32_t *first = xcalloc(nb, sizeof *first), *end = xcalloc(nb, sizeof *end);
    for (uint32_t b = 0; b < nb; b++)
        first[b] = UINT32_MAX;
    for (uint32_t i = 0; i < f->nbody; i++) {
        uint32_t b = F->block_of_stmt[i];
        if (b >= nb)
            continue;
        if (first[b] == UINT32_MAX)
            first[b] = i;
        end[b] = i + 1;
    }
    collect_defs(F, &fw);
    for (uint32_t i = 0; i < f->nbody; i++) {
        if (f->body[i].kind != PTX_STMT_INSTR || F->block_of_stmt[i] >= nb)
            continue;
        const ptx_instr *in = f->body[i].instr;
        if (in->op == PTX_OP_CALL)
            continue;
        if (in->has_guard)
            find_reads(F, &fw, &in->guard, i, first, end);
        bool def = in->nopds && instr_defines_first(in);
        for (uint32_t j = def ? 1 : 0; j < in->nopds; j++)
            find_reads(F, &fw, &in->opds[j], i, first, end);
    }
    /* one copy per definition; uses (and the copies' own operands) read it */
    ptrmap copy_of = {0};
    for (uint32_t i = 0; i < fw.use_def.cap; i++)
        if (fw.use_def.keys[i] && !ptrmap_get(&copy_of, fw.use_def.vals[i]))
            ptrmap_put(&copy_of, fw.use_def.vals[i], make_copy(F, fw.use_def.vals[i]));
    for (uint32_t i = 0; i < fw.use_def.cap; i++)
        if (fw.use_def.keys[i]) {
            ptx_instr *c = ptrmap_get(&copy_of, fw.use_def.vals[i]);
            ptrmap_put(&F->fwd_read, fw.use_def.keys[i], &c->opds[0]);
        }
    for (uint32_t i = 0; i < copy_of.cap; i++)
        if (copy_of.keys[i]) {
            const ptx_instr *d = copy_of.keys[i];
            ptx_instr *c = copy_of.vals[i];
            ptrmap_put(&F->fwd_copy, d, c);
            for (uint32_t j = 1; j < d->nopds; j++) {
                const ptx_operand *r = ptrmap_get(&F->fwd_read, &d->opds[j]);
                if (r)
                    ptrmap_put(&F->fwd_read, &c->opds[j], (void *)r);
            }
        }
    ptrmap_free(&copy_of);
    for (uint32_t i = 0; i < fw.defs.cap; i++)
        if (fw.defs.keys[i]) {
            def_list *d = fw.defs.vals[i];
            for (uint32_t k = 0; k < reg_elems(fw.defs.keys[i]); k++)
                free(d[k].stmt);
            free(d);
        }
    ptrmap_free(&fw.defs);
    ptrmap_free(&fw.use_def);
    free(fw.reach), free(fw.reach_done), free(first), free(end);
}

/* After analyze_remat: copies it did not accept are not used. */
void prune_forwarding(fn *F)
{
    for (uint32_t i = 0; i < F->fwd_read.cap; i++) {
        const ptx_operand *r = F->fwd_read.vals[i];
        if (F->fwd_read.keys[i] && r && !reg_is_remat(F, r->var, 0))
            F->fwd_read.vals[i] = NULL;
    }
    for (uint32_t i = 0; i < F->fwd_copy.cap; i++) {
        const ptx_instr *c = F->fwd_copy.vals[i];
        if (F->fwd_copy.keys[i] && c && !reg_is_remat(F, c->opds[0].var, 0))
            F->fwd_copy.vals[i] = NULL;
    }
}

const ptx_operand *forwarded(fn *F, const ptx_operand *o)
{
    const ptx_operand *r = F->fwd_read.n ? ptrmap_get(&F->fwd_read, o) : NULL;
    return r ? r : o;
}

const ptx_instr *forward_copy(fn *F, const ptx_instr *in)
{
    return F->fwd_copy.n ? ptrmap_get(&F->fwd_copy, in) : NULL;
}

void forwarding_free(fn *F)
{
    for (uint32_t i = 0; i < F->nfwd_owned; i++)
        free(F->fwd_owned[i]);
    free(F->fwd_owned);
    F->fwd_owned = NULL;
    F->nfwd_owned = 0;
    ptrmap_free(&F->fwd_read);
    ptrmap_free(&F->fwd_copy);
}
