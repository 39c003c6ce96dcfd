/* print.c - writes the IR back as PTX.  The output re-parses to an equal IR
 * (the round-trip tests check this); debug directives are not reproduced. */
#include "ptx.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct out {
    char *s;
    size_t n, cap;
    bool oom;
} out;

static void put(out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(out *o, const char *fmt, ...)
{
    if (o->oom)
        return;
    if (!o->s && !(o->s = malloc(o->cap = 4096))) {
        o->oom = true;
        return;
    }
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(o->s + o->n, o->cap - o->n, fmt, ap);
        va_end(ap);
        if (k < 0) {
            o->oom = true;
            return;
        }
        if ((size_t)k < o->cap - o->n) {
            o->n += (size_t)k;
            return;
        }
        size_t ncap = (o->cap + (size_t)k + 1) * 2;
        char *s = realloc(o->s, ncap);
        if (!s) {
            o->oom = true;
            return;
        }
        o->s = s;
        o->cap = ncap;
    }
}

static void put_init(out *o, const ptx_init *in)
{
    switch (in->kind) {
    case PTX_INIT_INT: put(o, "%" PRId64, (int64_t)in->ival); break;
    case PTX_INIT_F32: put(o, "0f%08" PRIX64, in->ival); break;
    case PTX_INIT_F64: put(o, "0d%016" PRIX64, in->ival); break;
    case PTX_INIT_SYM:
    case PTX_INIT_GENERIC:
    case PTX_INIT_MASK:
        if (in->kind == PTX_INIT_GENERIC)
            put(o, "generic(");
        else if (in->kind == PTX_INIT_MASK)
            put(o, "0x%" PRIX64 "(", in->mask);
        put(o, "%s", in->sym);
        if (in->ival && in->kind == PTX_INIT_MASK)
            put(o, "+%" PRId64, (int64_t)in->ival);
        if (in->kind != PTX_INIT_SYM)
            put(o, ")");
        if (in->ival && in->kind != PTX_INIT_MASK) /* ptxas wants generic(a)+8 */
            put(o, "+%" PRId64, (int64_t)in->ival);
        break;
    case PTX_INIT_NAMED:
        put(o, "%s = ", in->sym);
        put_init(o, in->elems[0]);
        break;
    case PTX_INIT_LIST:
        put(o, "{");
        for (uint32_t i = 0; i < in->nelems; i++)
            put_init(o, in->elems[i]), put(o, i + 1 < in->nelems ? ", " : "");
        put(o, "}");
        break;
    }
}

static void put_linkage(out *o, uint32_t l)
{
    static const char *const names[] = {".visible ", ".extern ", ".weak ", ".common "};
    for (int i = 0; i < 4; i++)
        if (l & (1u << i))
            put(o, "%s", names[i]);
}

static void put_var(out *o, const ptx_var *v)
{
    put_linkage(o, v->linkage);
    put(o, ".%s", v->space_sub ? ptx_mod_text(PTX_CAT_SPACE, v->space_sub)
                               : ptx_space_name(v->space));
    if (v->managed)
        put(o, " .attribute(.managed)");
    if (v->align)
        put(o, " .align %u", v->align);
    if (v->vec)
        put(o, " .v%u", v->vec);
    put(o, " .%s", ptx_type_name(v->type));
    if (v->is_ptr) {
        put(o, " .ptr");
        if (v->ptr_space)
            put(o, ".%s", ptx_space_name((ptx_space)v->ptr_space));
        if (v->ptr_align)
            put(o, ".align %u", v->ptr_align);
    }
    put(o, " %s", v->name);
    if (v->nreg)
        put(o, "<%u>", v->nreg);
    for (uint32_t i = 0; i < v->ndims; i++)
        v->dims[i] ? put(o, "[%" PRIu64 "]", v->dims[i]) : put(o, "[]");
    if (v->init) {
        put(o, " = ");
        put_init(o, v->init);
    }
}

static void put_operand(out *o, const ptx_operand *x)
{
    if (x->neg)
        put(o, "!");
    if (x->minus)
        put(o, "-");
    switch (x->kind) {
    case PTX_OPD_NAME: put(o, "%s", x->name); break;
    case PTX_OPD_SREG:
        if (x->sreg == PTX_SREG_ENVREG || x->sreg == PTX_SREG_PM)
            put(o, "%s%u", ptx_sreg_name((ptx_sreg)x->sreg), x->sreg_index);
        else if (x->sreg == PTX_SREG_PM64)
            put(o, "%%pm%u_64", x->sreg_index);
        else
            put(o, "%s", ptx_sreg_name((ptx_sreg)x->sreg));
        break;
    case PTX_OPD_IMM: put(o, "%" PRId64, (int64_t)x->imm); break;
    case PTX_OPD_F32: put(o, "0f%08" PRIX64, x->imm); break;
    case PTX_OPD_F64: put(o, "0d%016" PRIX64, x->imm); break;
    case PTX_OPD_ADDR:
        put(o, "[");
        if (x->nelems) {
            put_operand(o, &x->elems[0]);
            if (x->imm)
                put(o, "+%" PRId64, (int64_t)x->imm);
        } else {
            put(o, "%" PRId64, (int64_t)x->imm);
        }
        put(o, "]");
        break;
    case PTX_OPD_TEXADDR:
        put(o, "[");
        for (uint32_t i = 0; i < x->nelems; i++)
            put_operand(o, &x->elems[i]), put(o, i + 1 < x->nelems ? ", " : "");
        put(o, "]");
        break;
    case PTX_OPD_VEC:
    case PTX_OPD_LIST:
        put(o, x->kind == PTX_OPD_VEC ? "{" : "(");
        for (uint32_t i = 0; i < x->nelems; i++)
            put_operand(o, &x->elems[i]), put(o, i + 1 < x->nelems ? ", " : "");
        put(o, x->kind == PTX_OPD_VEC ? "}" : ")");
        break;
    case PTX_OPD_PAIR:
        put_operand(o, &x->elems[0]);
        put(o, "|");
        put_operand(o, &x->elems[1]);
        break;
    case PTX_OPD_SINK: put(o, "_"); break;
    }
    if (x->comp)
        put(o, ".%c", "xyzw"[x->comp - 1]);
    if (x->vsel)
        put(o, ".%s", (const char *[]){"", "b0", "b1", "b2", "b3", "h0", "h1"}[x->vsel]);
    if (x->kind == PTX_OPD_NAME && x->has_offset) /* ptxas takes "+(-1)", not "+-1" */
        put(o, (int64_t)x->imm < 0 ? "+(%" PRId64 ")" : "+%" PRId64, (int64_t)x->imm);
}

/* Modifiers of an instruction built without source order. */
static void put_mods_canonical(out *o, const ptx_instr *in)
{
    for (int c = 0; c < PTX_CAT_COUNT; c++)
        if (c != PTX_CAT_FLAG && in->mod[c])
            put(o, ".%s", ptx_mod_text((ptx_modcat)c, in->mod[c]));
    for (int b = 0; b < 32; b++)
        if (in->flags & (1u << b))
            put(o, ".%s", ptx_mod_text(PTX_CAT_FLAG, (uint8_t)(PTX_FLAG_FTZ + b)));
    for (int t = 0; t < in->ntypes; t++)
        put(o, ".%s", ptx_type_name((ptx_type)in->types[t]));
}

static void put_instr(out *o, const ptx_instr *in)
{
    if (in->has_guard) {
        put(o, "@");
        put_operand(o, &in->guard);
        put(o, " ");
    }
    put(o, "%s", ptx_op_name(in->op));
    for (int i = 0; i < in->nsuffix; i++) {
        unsigned code = in->suffix[i];
        put(o, ".%s", code >= PTX_SUFFIX_TYPE ? ptx_type_name((ptx_type)(code - PTX_SUFFIX_TYPE))
                                              : ptx_mod_text(PTX_CAT_FLAG, (uint8_t)code));
    }
    if (!in->nsuffix)
        put_mods_canonical(o, in);
    for (uint32_t i = 0; i < in->nopds; i++) {
        put(o, i ? ", " : " ");
        put_operand(o, &in->opds[i]);
    }
    put(o, ";");
}

static void put_params(out *o, ptx_var *const *v, uint32_t n)
{
    put(o, "(");
    for (uint32_t i = 0; i < n; i++) {
        put(o, i ? ",\n    " : "\n    ");
        put_var(o, v[i]);
    }
    put(o, n ? "\n)" : ")");
}

static void put_dim3(out *o, const char *name, const uint32_t d[3])
{
    if (!d[0])
        return;
    put(o, "\n.%s %u", name, d[0]);
    for (int i = 1; i < 3 && d[i]; i++)
        put(o, ", %u", d[i]);
}

static void put_signature(out *o, const ptx_func *f)
{
    if (f->nrets || !f->is_entry) {
        if (f->nrets) {
            put_params(o, f->rets, f->nrets);
            put(o, " ");
        }
    }
    put(o, "%s", f->name);
    if (f->nparams || f->is_entry)
        put_params(o, f->params, f->nparams);
    if (f->noreturn)
        put(o, " .noreturn");
}

static void put_stmt(out *o, const ptx_stmt *s, int *indent)
{
    if (s->kind == PTX_STMT_SCOPE_END)
        (*indent)--;
    put(o, "%*s", s->kind == PTX_STMT_LABEL ? 0 : *indent * 4, "");
    switch (s->kind) {
    case PTX_STMT_INSTR: put_instr(o, s->instr); break;
    case PTX_STMT_LABEL: put(o, "%s:", s->name); break;
    case PTX_STMT_VAR: put_var(o, s->var), put(o, ";"); break;
    case PTX_STMT_SCOPE_BEGIN: put(o, "{"), (*indent)++; break;
    case PTX_STMT_SCOPE_END: put(o, "}"); break;
    case PTX_STMT_PRAGMA: put(o, ".pragma \"%s\";", s->text); break;
    case PTX_STMT_PROTOTYPE:
        put(o, "%s: .callprototype ", s->name);
        put_signature(o, s->proto);
        put(o, ";");
        break;
    case PTX_STMT_BRANCHTARGETS:
    case PTX_STMT_CALLTARGETS:
        put(o, "%s: .%s ", s->name,
            s->kind == PTX_STMT_BRANCHTARGETS ? "branchtargets" : "calltargets");
        for (uint32_t i = 0; i < s->ntargets; i++)
            put(o, "%s%s", s->targets[i].name, i + 1 < s->ntargets ? ", " : ";");
        break;
    }
    put(o, "\n");
}

static void put_func(out *o, const ptx_func *f)
{
    put_linkage(o, f->linkage);
    put(o, f->is_entry ? ".entry " : ".func ");
    put_signature(o, f);
    put_dim3(o, "maxntid", f->maxntid);
    put_dim3(o, "reqntid", f->reqntid);
    put_dim3(o, "reqnctapercluster", f->reqnctapercluster);
    static const char *const names[] = {"minnctapersm", "maxnctapersm", "maxnreg",
                                        "maxclusterrank"};
    const uint32_t vals[] = {f->minnctapersm, f->maxnctapersm, f->maxnreg, f->maxclusterrank};
    for (int i = 0; i < 4; i++)
        if (vals[i])
            put(o, "\n.%s %u", names[i], vals[i]);
    if (f->explicitcluster)
        put(o, "\n.explicitcluster");
    for (uint32_t i = 0; i < f->npragmas; i++)
        put(o, "\n.pragma \"%s\";", f->pragmas[i]);
    if (!f->has_body) {
        put(o, ";\n\n");
        return;
    }
    put(o, "\n{\n");
    int indent = 1;
    for (uint32_t i = 0; i < f->nbody; i++)
        put_stmt(o, &f->body[i], &indent);
    put(o, "}\n\n");
}

char *ptx_print(const ptx_module *m)
{
    out o = {0};
    put(&o, "//\n// Generated by ptxjit\n//\n\n");
    if (m->version_major)
        put(&o, ".version %u.%u\n", m->version_major, m->version_minor);
    if (m->sm) {
        put(&o, ".target sm_%u", m->sm);
        if (m->sm_suffix)
            put(&o, "%c", m->sm_suffix);
        static const char *const flags[] = {"texmode_unified", "texmode_independent", "debug",
                                            "map_f64_to_f32"};
        for (int i = 0; i < 4; i++)
            if (m->target_flags & (1u << i))
                put(&o, ", %s", flags[i]);
        put(&o, "\n");
    }
    if (m->address_size)
        put(&o, ".address_size %u\n", m->address_size);
    put(&o, "\n");
    for (uint32_t i = 0; i < m->nitems; i++) {
        const ptx_item *it = &m->items[i];
        if (it->kind == PTX_ITEM_VAR)
            put_var(&o, it->var), put(&o, ";\n\n");
        else if (it->kind == PTX_ITEM_FUNC)
            put_func(&o, it->func);
        else
            put(&o, ".pragma \"%s\";\n\n", it->text);
    }
    if (o.oom) {
        free(o.s);
        return NULL;
    }
    return o.s;
}
