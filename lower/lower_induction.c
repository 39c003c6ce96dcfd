/* lower_induction.c - per-lane counters with uniform steps, split in two.
 *
 * nvcc strength-reduces a loop's per-lane index into a register of its
 * own: `add.s64 %rd15, %rd7, %rd8` before the loop (a function of %tid
 * and uniform values), `add.s64 %rd15, %rd15, 64` in it; grid-stride
 * loops step `i += ntid * nctaid`.  With two definitions the register is
 * neither rematerialized nor uniform (lower_live.c): a barrier saves it as
 * a vector, and its address shape (lower_shape.c) reaches the access
 * through a phi or a frame reload, tested lane by lane at run time.
 *
 * Every step adds the same amount to every lane, so the register is its
 * start plus a uniform sum.  Before any analysis, this pass rewrites the
 * function to say so.  For such a register r:
 *
 *     start   r = f(tid, ...)   ->   B = f(tid, ...);  O = 0
 *     step    r = r + u         ->   O = O + u
 *     read    ... r ...         ->   T = B + O;  ... T ...
 *
 * B has one pure definition (rematerialized: recomputed where T is, so
 * the shape and its scalar guards are visible at the access), O is
 * uniform where the steps are, and T is written just before its one
 * reader.  The rewrite is exact whatever the later analyses conclude
 * (addition modulo the register's width), so it is only restricted to
 * where it pays: the start reads per-lane immutable values (%tid among
 * them) and each step adds an immutable uniform value. */
#include "lower_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct reg_defs {
    uint32_t n;                 /* definitions */
    bool opaque;                /* written another way */
    uint32_t stmt;              /* the last one's statement */
} reg_defs;

typedef struct split {
    ptx_var *base, *sum;
    uint32_t start;             /* the start's statement, or UINT32_MAX */
    bool rejected;              /* a definition that is neither start nor step */
    ptx_type type;              /* integer type of the sums */
} split;

typedef struct pass {
    fn *F;
    ptrmap defs;                /* ptx_var* -> reg_defs[elements] */
    ptrmap splits;              /* ptx_var* -> split*[elements] (NULL: not split) */
    uint32_t *src_lo, *src_hi;  /* per label statement: its branches' first and last statement */
    uint32_t nowned_cap;
    uint32_t ndecls;            /* of new registers */
    ptrmap memo[2];             /* ptx_instr* -> immutable()'s answer, without and with %tid */
    bool overflow;              /* an instruction reads more than MAX_READ splits */
} pass;

enum { DEPTH = 16, REACH = 512 }; /* bounds on the searches below */

static void *owned_alloc(pass *P, size_t size)
{
    fn *F = P->F;
    void *p = calloc(1, size ? size : 1);
    if (F->niv_owned == P->nowned_cap) {
        P->nowned_cap = P->nowned_cap ? 2 * P->nowned_cap : 64;
        F->iv_owned = realloc(F->iv_owned, P->nowned_cap * sizeof *F->iv_owned);
    }
    if (!p || !F->iv_owned)
        abort(); /* lowering has no partial-failure path */
    F->iv_owned[F->niv_owned++] = p;
    return p;
}

static const ptx_instr *instr_at(pass *P, uint32_t i)
{
    const ptx_stmt *s = &P->F->f->body[i];
    return s->kind == PTX_STMT_INSTR ? s->instr : NULL;
}

static reg_defs *defs_at(pass *P, const ptx_operand *o)
{
    reg_defs *d = ptrmap_get(&P->defs, o->var);
    if (!d) {
        d = owned_alloc(P, reg_elems(o->var) * sizeof *d);
        ptrmap_put(&P->defs, o->var, d);
    }
    uint32_t k = reg_elem(o);
    return k < reg_elems(o->var) ? &d[k] : NULL;
}

static void mark_opaque(pass *P, const ptx_operand *o)
{
    if (is_reg_opd(o)) {
        reg_defs *d = defs_at(P, o);
        if (d)
            d->opaque = true;
    }
    for (uint32_t i = 0; i < o->nelems; i++)
        mark_opaque(P, &o->elems[i]);
}

/* A plain register destination: operand 0, written whole. */
static const ptx_operand *plain_dest(const ptx_instr *in)
{
    const ptx_operand *o = in->nopds && in->op != PTX_OP_CALL && instr_defines_first(in) ? &in->opds[0] : NULL;
    return o && is_reg_opd(o) && !o->comp && !o->nelems ? o : NULL;
}

static void label_source(pass *P, uint32_t label, uint32_t from)
{
    if (P->src_lo[label] > from)
        P->src_lo[label] = from;
    if (P->src_hi[label] < from || P->src_hi[label] == UINT32_MAX)
        P->src_hi[label] = from;
}

static void scan_body(pass *P)
{
    const ptx_func *f = P->F->f;
    P->src_lo = owned_alloc(P, (f->nbody + 1) * sizeof *P->src_lo);
    P->src_hi = owned_alloc(P, (f->nbody + 1) * sizeof *P->src_hi);
    for (uint32_t i = 0; i < f->nbody; i++)
        P->src_lo[i] = P->src_hi[i] = UINT32_MAX;
    for (uint32_t i = 0; i < f->nbody; i++) {
        const ptx_instr *in = instr_at(P, i);
        if (!in)
            continue;
        if (in->op == PTX_OP_BRA && in->nopds && in->opds[0].label >= 0)
            label_source(P, (uint32_t)in->opds[0].label, i);
        if (in->op == PTX_OP_BRX_IDX && in->nopds > 1 && in->opds[1].label >= 0) {
            const ptx_stmt *t = &f->body[in->opds[1].label];
            for (uint32_t j = 0; j < t->ntargets; j++)
                if (t->targets[j].label >= 0) { /* any path: never linear */
                    label_source(P, (uint32_t)t->targets[j].label, 0);
                    label_source(P, (uint32_t)t->targets[j].label, f->nbody);
                }
        }
        const ptx_operand *d = plain_dest(in);
        if (in->op == PTX_OP_CALL) {
            for (uint32_t j = 0; j < in->nopds; j++)
                mark_opaque(P, &in->opds[j]);
        } else if (d) {
            reg_defs *r = defs_at(P, d);
            if (r) {
                r->n++;
                r->stmt = i;
            }
        } else if (in->nopds && (instr_defines_first(in) || instr_writes_opaque(in))) {
            mark_opaque(P, &in->opds[0]);
        }
    }
}

static bool same_reg(const ptx_operand *a, const ptx_operand *b)
{
    return is_reg_opd(a) && is_reg_opd(b) && a->var == b->var && !a->comp && !b->comp &&
           reg_elem(a) == reg_elem(b);
}

/* The statement of the definition of register o that every path to its
 * read at statement `at` last passes, or UINT32_MAX.  Found by walking
 * back a straight stretch of the body: each label on the way must be
 * branched to only from between that definition and the read. */
static uint32_t reaching_def(pass *P, const ptx_operand *o, uint32_t at)
{
    const reg_defs *d = defs_at(P, o);
    if (!d || d->opaque || !d->n)
        return UINT32_MAX;
    if (d->n == 1)
        return d->stmt;
    uint32_t lowest_source = UINT32_MAX;
    for (uint32_t i = at, steps = 0; i-- > 0 && steps < REACH; steps++) {
        const ptx_stmt *s = &P->F->f->body[i];
        if (s->kind == PTX_STMT_LABEL && P->src_lo[i] != UINT32_MAX) {
            if (P->src_hi[i] >= at)
                return UINT32_MAX;
            if (P->src_lo[i] < lowest_source)
                lowest_source = P->src_lo[i];
        }
        const ptx_operand *w = s->kind == PTX_STMT_INSTR ? plain_dest(s->instr) : NULL;
        if (w && same_reg(w, o))
            return i < lowest_source ? i : UINT32_MAX;
    }
    return UINT32_MAX;
}

/* o, read at statement `at`, has a value fixed for the warp's life: an
 * immediate, an address, a kernel parameter, a launch constant, %tid or
 * %laneid where per_lane, or a register whose reaching definition is
 * unguarded and pure over such values.  *lane is set when the value
 * depends on the lane. */
static bool immutable(pass *P, const ptx_operand *o, uint32_t at, bool per_lane, bool *lane, unsigned depth)
{
    switch (o->kind) {
    case PTX_OPD_IMM: case PTX_OPD_F32: case PTX_OPD_F64:
        return true;
    case PTX_OPD_SREG:
        switch (o->sreg) {
        case PTX_SREG_NTID: case PTX_SREG_NCTAID: case PTX_SREG_CTAID:
            return true;
        case PTX_SREG_TID: case PTX_SREG_LANEID:
            *lane = true;
            return per_lane;
        default:
            return false;
        }
    case PTX_OPD_NAME:
        if (!is_reg_opd(o))
            return o->var && (o->var->space == PTX_SP_GLOBAL || o->var->space == PTX_SP_CONST ||
                              o->var->space == PTX_SP_SHARED || o->var->space == PTX_SP_PARAM);
        break;
    default:
        return false;
    }
    uint32_t s = o->comp || !depth ? UINT32_MAX : reaching_def(P, o, at);
    const ptx_instr *in = s == UINT32_MAX ? NULL : instr_at(P, s);
    if (!in || in->has_guard || !pure_def(P->F, in))
        return false;
    /* remembered per definition: 1 uniform, 2 per lane, 3 neither */
    uintptr_t known = (uintptr_t)ptrmap_get(&P->memo[per_lane], in);
    if (!known) {
        bool ok = true, own_lane = false;
        for (uint32_t i = 1; ok && i < in->nopds && in->op != PTX_OP_LD; i++) /* ld: a kernel parameter */
            ok = immutable(P, &in->opds[i], s, per_lane, &own_lane, depth - 1);
        known = !ok ? 3 : own_lane ? 2 : 1;
        ptrmap_put(&P->memo[per_lane], in, (void *)known);
    }
    *lane |= known == 2;
    return known != 3;
}

static bool int_type(ptx_type t, uint32_t size)
{
    switch (t) {
    case PTX_TYPE_B32: case PTX_TYPE_S32: case PTX_TYPE_U32:
        return size == 4;
    case PTX_TYPE_B64: case PTX_TYPE_S64: case PTX_TYPE_U64:
        return size == 8;
    default:
        return false;
    }
}

/* The operand a step of r at statement i adds (r = r + u, u + r, r - u),
 * else -1. */
static int step_operand(pass *P, const ptx_instr *in, uint32_t i)
{
    const ptx_operand *r = &in->opds[0];
    if ((in->op != PTX_OP_ADD && in->op != PTX_OP_SUB) || in->has_guard || in->nopds != 3 || in->ntypes != 1 ||
        in->flags || !int_type((ptx_type)in->types[0], ptx_type_size(r->var->type)))
        return -1;
    for (int u = 1; u <= 2; u++) {
        bool lane = false;
        if (same_reg(&in->opds[3 - u], r) && (u == 2 || in->op == PTX_OP_ADD) &&
            !same_reg(&in->opds[u], r) && immutable(P, &in->opds[u], i, false, &lane, DEPTH))
            return u;
    }
    return -1;
}

static ptx_type sum_type(ptx_type t)
{
    return t == PTX_TYPE_B32 ? PTX_TYPE_U32 : t == PTX_TYPE_B64 ? PTX_TYPE_U64 : t;
}

/* A register of like's type, named after the split one (for dumps). */
static ptx_var *fresh_reg(pass *P, const ptx_var *like, const char *name, const char *suffix)
{
    ptx_var *v = owned_alloc(P, sizeof *v);
    *v = *like;
    v->nreg = 0;
    v->vec = 0;
    char *n = owned_alloc(P, strlen(name) + strlen(suffix) + 1);
    strcat(strcpy(n, name), suffix);
    v->name = n;
    return v;
}

static ptx_operand reg_opd(ptx_var *v, ptx_loc loc)
{
    return (ptx_operand){.kind = PTX_OPD_NAME, .loc = loc, .name = v->name, .var = v, .label = -1};
}

static split *split_of(pass *P, const ptx_operand *o)
{
    if (!is_reg_opd(o) || o->comp)
        return NULL;
    split **s = ptrmap_get(&P->splits, o->var);
    return s ? s[reg_elem(o)] : NULL;
}

/* The start of a candidate: unguarded, pure, over per-lane immutable
 * values that depend on the lane. */
static bool good_start(pass *P, const ptx_instr *in, uint32_t i)
{
    if (in->has_guard || !pure_def(P->F, in) || in->op == PTX_OP_LD)
        return false;
    bool lane = false;
    for (uint32_t j = 1; j < in->nopds; j++)
        if (same_reg(&in->opds[j], &in->opds[0]) || !immutable(P, &in->opds[j], i, true, &lane, DEPTH))
            return false;
    return lane;
}

/* The registers worth splitting: one start, steps of immutable uniform
 * values, no other definition. */
static uint32_t find_splits(pass *P)
{
    const ptx_func *f = P->F->f;
    for (uint32_t i = 0; i < P->defs.cap; i++) {
        if (!P->defs.keys[i])
            continue;
        const ptx_var *v = P->defs.keys[i];
        reg_defs *d = P->defs.vals[i];
        for (uint32_t k = 0; k < reg_elems(v); k++)
            if (!d[k].opaque && d[k].n >= 2 && !v->vec && int_type(v->type, ptx_type_size(v->type))) {
                split **s = ptrmap_get(&P->splits, v);
                if (!s) {
                    s = owned_alloc(P, reg_elems(v) * sizeof *s);
                    ptrmap_put(&P->splits, v, s);
                }
                s[k] = owned_alloc(P, sizeof **s);
                s[k]->start = UINT32_MAX;
                s[k]->type = sum_type(v->type);
            }
    }
    for (uint32_t i = 0; i < f->nbody; i++) {
        const ptx_instr *in = instr_at(P, i);
        const ptx_operand *d = in ? plain_dest(in) : NULL;
        split *c = d ? split_of(P, d) : NULL;
        if (!c || c->rejected || step_operand(P, in, i) > 0)
            continue;
        if (c->start == UINT32_MAX && good_start(P, in, i))
            c->start = i;
        else
            c->rejected = true;
    }
    uint32_t nsplit = 0;
    for (uint32_t i = 0; i < P->splits.cap; i++) {
        if (!P->splits.keys[i])
            continue;
        const ptx_var *v = P->splits.keys[i];
        split **s = P->splits.vals[i];
        for (uint32_t k = 0; k < reg_elems(v); k++) {
            if (s[k] && (s[k]->rejected || s[k]->start == UINT32_MAX)) {
                s[k] = NULL;
            } else if (s[k]) {
                const char *name = instr_at(P, s[k]->start)->opds[0].name;
                s[k]->base = fresh_reg(P, v, name, ".start");
                s[k]->sum = fresh_reg(P, v, name, ".sum");
                nsplit++;
            }
        }
    }
    return nsplit;
}

/* ---- the rewritten body ---- */

typedef struct body {
    ptx_stmt *s;
    uint32_t n, cap;
} body;

static void emit(body *b, const ptx_stmt *s)
{
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 64;
        b->s = realloc(b->s, b->cap * sizeof *b->s);
        if (!b->s)
            abort();
    }
    b->s[b->n++] = *s;
}

static void emit_instr(pass *P, body *b, const ptx_stmt *like, ptx_instr *in)
{
    ptx_stmt s = *like;
    s.kind = PTX_STMT_INSTR;
    s.instr = in;
    emit(b, &s);
}

/* Registers are saved across barriers by their declarations
 * (lower_resume.c): the new ones are declared at the top of the body. */
static void declare(pass *P, body *decls, ptx_var *v)
{
    ptx_stmt s = {.kind = PTX_STMT_VAR, .loc = v->loc, .var = v};
    emit(decls, &s);
}

static ptx_instr *new_instr(pass *P, const ptx_instr *like, ptx_opcode op, ptx_type t, uint32_t nopds)
{
    ptx_instr *in = owned_alloc(P, sizeof *in);
    in->loc = like->loc;
    in->op = op;
    in->ntypes = 1;
    in->types[0] = (uint8_t)t;
    in->opds = owned_alloc(P, nopds * sizeof *in->opds);
    in->nopds = nopds;
    return in;
}

/* A copy of o with the reads of split registers replaced (read[k] by
 * repl[k]) and labels renumbered. */
static void copy_operand(pass *P, ptx_operand *dst, const ptx_operand *o, split **read, ptx_var **repl,
                         uint32_t nread, const uint32_t *renum)
{
    *dst = *o;
    if (o->kind == PTX_OPD_NAME && o->label >= 0 && !o->var)
        dst->label = (int32_t)renum[o->label];
    split *s = split_of(P, o);
    for (uint32_t k = 0; s && k < nread; k++)
        if (read[k] == s)
            *dst = reg_opd(repl[k], o->loc);
    if (o->nelems) {
        dst->elems = owned_alloc(P, o->nelems * sizeof *dst->elems);
        for (uint32_t i = 0; i < o->nelems; i++)
            copy_operand(P, &dst->elems[i], &o->elems[i], read, repl, nread, renum);
    }
}

static ptx_instr *copy_instr(pass *P, const ptx_instr *in, split **read, ptx_var **repl, uint32_t nread,
                             const uint32_t *renum)
{
    ptx_instr *c = owned_alloc(P, sizeof *c);
    *c = *in;
    c->opds = owned_alloc(P, in->nopds * sizeof *c->opds);
    for (uint32_t i = 0; i < in->nopds; i++)
        copy_operand(P, &c->opds[i], &in->opds[i], read, repl, nread, renum);
    return c;
}

enum { MAX_READ = 8 };

/* The splits o reads at statement i, each once; sum[k] is set for those a
 * step may reach (read as B + O, the others as B). */
static void find_reads(pass *P, const ptx_operand *o, uint32_t i, split **read, bool *sum, uint32_t *nread)
{
    split *s = split_of(P, o);
    uint32_t k = 0;
    while (s && k < *nread && read[k] != s)
        k++;
    if (s && k == *nread && k == MAX_READ)
        P->overflow = true; /* not rewritten at all */
    if (s && k == *nread && k < MAX_READ) {
        read[k] = s;
        sum[k] = reaching_def(P, o, i) != s->start;
        (*nread)++;
    }
    for (uint32_t e = 0; e < o->nelems; e++)
        find_reads(P, &o->elems[e], i, read, sum, nread);
}

/* The statements that replace statement i (counted when b is NULL). */
static uint32_t rewrite(pass *P, body *b, body *decls, uint32_t i, const uint32_t *renum)
{
    const ptx_stmt *st = &P->F->f->body[i];
    if (st->kind != PTX_STMT_INSTR) {
        if (b) {
            ptx_stmt s = *st;
            if (st->ntargets) {
                s.targets = owned_alloc(P, st->ntargets * sizeof *s.targets);
                for (uint32_t k = 0; k < st->ntargets; k++)
                    copy_operand(P, &s.targets[k], &st->targets[k], NULL, NULL, 0, renum);
            }
            emit(b, &s);
        }
        return 1;
    }
    const ptx_instr *in = st->instr;
    const ptx_operand *dest = plain_dest(in);
    split *d = dest ? split_of(P, dest) : NULL;
    split *read[MAX_READ];
    bool sum[MAX_READ];
    uint32_t nread = 0, nsum = 0;
    for (uint32_t j = in->nopds && instr_defines_first(in) ? 1 : 0; j < in->nopds; j++)
        find_reads(P, &in->opds[j], i, read, sum, &nread);
    for (uint32_t k = 0; k < nread; k++)
        if (read[k] == d) /* a step's own read: of O */
            read[k--] = read[--nread];
    for (uint32_t k = 0; k < nread; k++)
        nsum += sum[k];
    uint32_t n = nsum + (d && d->start == i ? 2 : 1);
    if (!b) {
        P->ndecls += nsum + (d && d->start == i ? 2 : 0);
        return n;
    }
    ptx_var *repl[MAX_READ];
    for (uint32_t k = 0; k < nread; k++) {
        repl[k] = read[k]->base;
        if (!sum[k])
            continue;
        /* T = B + O, just before the reader */
        repl[k] = fresh_reg(P, read[k]->base, instr_at(P, read[k]->start)->opds[0].name, ".at");
        ptx_instr *t = new_instr(P, in, PTX_OP_ADD, read[k]->type, 3);
        t->opds[0] = reg_opd(repl[k], in->loc);
        t->opds[1] = reg_opd(read[k]->base, in->loc);
        t->opds[2] = reg_opd(read[k]->sum, in->loc);
        ptrmap_put(&P->F->iv_sums, t, t);
        declare(P, decls, repl[k]);
        emit_instr(P, b, st, t);
    }
    ptx_instr *c = copy_instr(P, in, read, repl, nread, renum);
    if (d && d->start == i) { /* B = f(...); O = 0 */
        declare(P, decls, d->base);
        declare(P, decls, d->sum);
        c->opds[0] = reg_opd(d->base, dest->loc);
        emit_instr(P, b, st, c);
        ptx_instr *z = new_instr(P, in, PTX_OP_MOV, d->type, 2);
        z->opds[0] = reg_opd(d->sum, dest->loc);
        z->opds[1] = (ptx_operand){.kind = PTX_OPD_IMM, .loc = in->loc, .label = -1};
        emit_instr(P, b, st, z);
    } else if (d) { /* a step: O = O + u */
        int u = step_operand(P, in, i);
        c->opds[0] = reg_opd(d->sum, dest->loc);
        c->opds[3 - u] = reg_opd(d->sum, in->opds[3 - u].loc);
        emit_instr(P, b, st, c);
    } else {
        emit_instr(P, b, st, c);
    }
    return n;
}

static void dump(const ptx_func *g)
{
    ptx_item it = {.kind = PTX_ITEM_FUNC, .func = (ptx_func *)g};
    ptx_module m = {.items = &it, .nitems = 1};
    char *txt = ptx_print(&m);
    fputs(txt, stderr);
    free(txt);
}

/* The function with the splits made: statement i starts at renum[i]. */
static const ptx_func *rewritten(pass *P, const uint32_t *renum)
{
    const ptx_func *f = P->F->f;
    body b = {0}, decls = {0};
    for (uint32_t i = 0; i < f->nbody; i++)
        rewrite(P, &b, &decls, i, renum);
    ptx_func *g = owned_alloc(P, sizeof *g);
    *g = *f;
    g->nbody = decls.n + b.n;
    g->body = owned_alloc(P, g->nbody * sizeof *g->body);
    memcpy(g->body, decls.s, decls.n * sizeof *g->body);
    memcpy(g->body + decls.n, b.s, b.n * sizeof *g->body);
    free(b.s);
    free(decls.s);
    if (getenv("PTXJIT_IV_DUMP"))
        dump(g);
    return g;
}

const ptx_func *split_inductions(fn *F)
{
    const ptx_func *f = F->f;
    if (!F->is_entry || !f->nbody || getenv("PTXJIT_NO_IV_SPLIT"))
        return f;
    pass P = {.F = F};
    scan_body(&P);
    const ptx_func *out = f;
    if (find_splits(&P)) {
        /* the statements each one becomes, and the declarations, which come first */
        uint32_t *renum = owned_alloc(&P, (f->nbody + 1) * sizeof *renum);
        for (uint32_t i = 0; i < f->nbody; i++)
            renum[i + 1] = rewrite(&P, NULL, NULL, i, NULL);
        renum[0] = P.ndecls;
        for (uint32_t i = 1; i <= f->nbody; i++)
            renum[i] += renum[i - 1];
        if (!P.overflow)
            out = rewritten(&P, renum);
    }
    ptrmap_free(&P.defs);
    ptrmap_free(&P.splits);
    ptrmap_free(&P.memo[0]);
    ptrmap_free(&P.memo[1]);
    return out;
}

void inductions_free(fn *F)
{
    for (uint32_t i = 0; i < F->niv_owned; i++)
        free(F->iv_owned[i]);
    free(F->iv_owned);
    F->iv_owned = NULL;
    F->niv_owned = 0;
    ptrmap_free(&F->iv_sums);
}
