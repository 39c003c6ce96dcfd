/* parse.c - recursive-descent parser for PTX modules: directives, variable
 * declarations with initializers, functions and their bodies.  Instructions
 * and operands are in parse_instr.c, constant expressions in expr.c. */
#include "parse.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers shared with the other parser files ---- */

bool tok_is(const token *t, tok_kind k, const char *text)
{
    return t->kind == k && strlen(text) == t->len && memcmp(t->text, text, t->len) == 0;
}

void perr(parser *p, const token *t, const char *fmt, ...)
{
    if (p->failed)
        return;
    p->failed = true;
    char buf[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    ptx_diag_add(p->diags, t->loc, "%s", buf);
}

void *palloc(parser *p, size_t n)
{
    void *r = arena_alloc(p->a, n);
    if (!r)
        p->oom = true;
    return r;
}

const char *pstr(parser *p, const token *t)
{
    const char *s = intern(&p->names, p->a, t->text, t->len);
    if (!s)
        p->oom = true;
    return s ? s : "";
}

bool accept_punct(parser *p, char c)
{
    if (!is_punct(peek(p), c))
        return false;
    next_tok(p);
    return true;
}

static const char *tok_desc(const token *t, char *buf, size_t n)
{
    if (t->kind == T_EOF)
        return "end of file";
    snprintf(buf, n, "'%s%.*s'", t->kind == T_DOT ? "." : "", (int)(t->len > 40 ? 40 : t->len),
             t->text);
    return buf;
}

bool expect_punct(parser *p, char c, const char *context)
{
    if (accept_punct(p, c))
        return true;
    char buf[64];
    perr(p, peek(p), "expected '%c' in %s, found %s", c, context, tok_desc(peek(p), buf, sizeof buf));
    return false;
}

/* After an error: skips to the end of the statement (past ';'), stopping
 * before a '}' or a directive that starts a new top-level item.  At top
 * level a braced block (a function body) is skipped whole. */
static void resync(parser *p, bool top_level)
{
    /* In a body, a '{' on the statement's line opens a vector operand (and
     * its '}' closes it), not a scope. */
    uint32_t line = peek(p)->loc.line, braces = 0;
    for (;;) {
        const token *t = peek(p);
        if (!top_level && t->loc.line == line && (is_punct(t, '{') || (braces && is_punct(t, '}')))) {
            braces += is_punct(t, '{') ? 1 : -1;
            next_tok(p);
            continue;
        }
        if (t->kind == T_EOF || (!top_level && (is_punct(t, '}') || is_punct(t, '{'))))
            break;
        if (top_level && t->kind == T_DOT && t->loc.col == 1 && t->space_before)
            break;
        next_tok(p);
        if (is_punct(t, ';'))
            break;
        if (top_level && is_punct(t, '{')) {
            for (uint64_t depth = 1; depth && peek(p)->kind != T_EOF;)
                depth += is_punct(peek(p), '{') - is_punct(next_tok(p), '}');
            break;
        }
    }
    p->failed = false;
}

static bool expect_int(parser *p, uint64_t *v, const char *what)
{
    return parse_int_const(p, v, what);
}

static bool expect_ident(parser *p, const token **out, const char *what)
{
    const token *t = peek(p);
    if (t->kind != T_IDENT) {
        char buf[64];
        perr(p, t, "expected %s, found %s", what, tok_desc(t, buf, sizeof buf));
        return false;
    }
    *out = next_tok(p);
    return true;
}

/* ---- module header directives ---- */

static void parse_version(parser *p)
{
    const token *t = next_tok(p);
    unsigned maj = 0, min = 0;
    char buf[32];
    int k = 0;
    if ((t->kind == T_F64 || t->kind == T_INT) && t->len < sizeof buf) {
        memcpy(buf, t->text, t->len);
        buf[t->len] = 0;
        if (sscanf(buf, "%u.%u%n", &maj, &min, &k) == 2 && (size_t)k == t->len && maj < 100 &&
            min < 100) {
            p->m->version_major = maj;
            p->m->version_minor = min;
            return;
        }
    }
    perr(p, t, "expected a version number like 8.5 after .version");
}

static void parse_target(parser *p)
{
    do {
        const token *t;
        if (!expect_ident(p, &t, "a target name"))
            return;
        unsigned sm = 0;
        char buf[64];
        if (t->len < sizeof buf) {
            memcpy(buf, t->text, t->len);
            buf[t->len] = 0;
        } else {
            buf[0] = 0;
        }
        int k = 0;
        if (sscanf(buf, "sm_%u%n", &sm, &k) == 1 && sm < 10000 &&
            ((size_t)k == t->len || ((size_t)k + 1 == t->len && strchr("af", buf[k])))) {
            p->m->sm = sm;
            p->m->sm_suffix = (size_t)k < t->len ? buf[k] : 0;
        } else if (!strcmp(buf, "texmode_unified")) {
            p->m->target_flags |= PTX_TARGET_TEXMODE_UNIFIED;
        } else if (!strcmp(buf, "texmode_independent")) {
            p->m->target_flags |= PTX_TARGET_TEXMODE_INDEPENDENT;
        } else if (!strcmp(buf, "debug")) {
            p->m->target_flags |= PTX_TARGET_DEBUG;
        } else if (!strcmp(buf, "map_f64_to_f32")) {
            p->m->target_flags |= PTX_TARGET_MAP_F64_TO_F32;
        } else {
            perr(p, t, "unknown target '%.*s'", (int)t->len, t->text);
            return;
        }
    } while (accept_punct(p, ','));
}

/* Skips a directive that runs to the end of its line (.loc, .file). */
static void skip_line(parser *p, uint32_t line)
{
    while (peek(p)->kind != T_EOF && peek(p)->loc.line == line && !is_punct(peek(p), '}'))
        next_tok(p);
}

/* .section name { ... } : DWARF data, skipped with brace matching. */
static void skip_section(parser *p)
{
    const token *start = peek(p);
    while (peek(p)->kind != T_EOF && !is_punct(peek(p), '{'))
        next_tok(p);
    if (!accept_punct(p, '{')) {
        perr(p, start, "expected '{' after .section");
        return;
    }
    for (uint64_t depth = 1; depth > 0;) {
        const token *t = next_tok(p);
        if (t->kind == T_EOF) {
            perr(p, start, "unterminated .section");
            return;
        }
        depth += is_punct(t, '{') - is_punct(t, '}');
    }
}

/* ---- variable declarations ---- */

static ptx_space space_of(const token *t, uint8_t *sub)
{
    static const struct { const char *name; ptx_space sp; uint8_t sub; } tab[] = {
        {"reg", PTX_SP_REG, 0}, {"sreg", PTX_SP_SREG, 0}, {"const", PTX_SP_CONST, 0},
        {"global", PTX_SP_GLOBAL, 0}, {"local", PTX_SP_LOCAL, 0}, {"param", PTX_SP_PARAM, 0},
        {"shared", PTX_SP_SHARED, 0}, {"tex", PTX_SP_TEX, 0},
        {"shared::cta", PTX_SP_SHARED, PTX_SPACE_SHARED_CTA},
        {"shared::cluster", PTX_SP_SHARED, PTX_SPACE_SHARED_CLUSTER},
        {"param::entry", PTX_SP_PARAM, PTX_SPACE_PARAM_ENTRY},
        {"param::func", PTX_SP_PARAM, PTX_SPACE_PARAM_FUNC},
    };
    if (t->kind != T_DOT)
        return PTX_SP_NONE;
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
        if (tok_is(t, T_DOT, tab[i].name)) {
            *sub = tab[i].sub;
            return tab[i].sp;
        }
    return PTX_SP_NONE;
}

static uint32_t linkage_of(const token *t)
{
    if (tok_is(t, T_DOT, "visible"))
        return PTX_LINK_VISIBLE;
    if (tok_is(t, T_DOT, "extern"))
        return PTX_LINK_EXTERN;
    if (tok_is(t, T_DOT, "weak"))
        return PTX_LINK_WEAK;
    if (tok_is(t, T_DOT, "common"))
        return PTX_LINK_COMMON;
    return 0;
}

static bool parse_align(parser *p, uint32_t *align)
{
    const token *t = peek(p);
    uint64_t v;
    if (!expect_int(p, &v, ".align"))
        return false;
    if (v == 0 || (v & (v - 1)) || v > (1u << 20)) {
        perr(p, t, ".align must be a power of two no larger than 1048576");
        return false;
    }
    *align = (uint32_t)v;
    return true;
}

static ptx_init *parse_init(parser *p);

/* mask(addr): written 0xFF00(sym+off) in PTX. */
static ptx_init *parse_init_symbolic(parser *p, ptx_init_kind kind, uint64_t mask)
{
    const token *start = peek(p);
    bool paren = kind != PTX_INIT_SYM;
    if (paren && !expect_punct(p, '(', "initializer"))
        return NULL;
    const token *name;
    if (!expect_ident(p, &name, "a variable name"))
        return NULL;
    ptx_init *in = palloc(p, sizeof *in);
    if (!in)
        return NULL;
    in->kind = kind;
    in->loc = start->loc;
    in->sym = pstr(p, name);
    in->mask = mask;
    if (is_punct(peek(p), '+') || is_punct(peek(p), '-')) {
        bool minus = is_punct(next_tok(p), '-');
        uint64_t off;
        if (!expect_int(p, &off, "address offset"))
            return NULL;
        in->ival = minus ? 0 - off : off;
    }
    if (paren && !expect_punct(p, ')', "initializer"))
        return NULL;
    /* generic(sym)+off is also accepted with the offset outside */
    if (paren && (is_punct(peek(p), '+') || is_punct(peek(p), '-'))) {
        bool minus = is_punct(next_tok(p), '-');
        uint64_t off;
        if (!expect_int(p, &off, "address offset"))
            return NULL;
        in->ival += minus ? 0 - off : off;
    }
    return in;
}

/* attribute = value in a .samplerref initializer */
static ptx_init *parse_init_named(parser *p)
{
    const token *name = next_tok(p);
    next_tok(p); /* = */
    ptx_init *in = palloc(p, sizeof *in), *v = NULL;
    if (!in || !(v = parse_init(p)) || !(in->elems = palloc(p, sizeof *in->elems)))
        return NULL;
    in->kind = PTX_INIT_NAMED;
    in->loc = name->loc;
    in->sym = pstr(p, name);
    in->elems[0] = v;
    in->nelems = 1;
    return in;
}

static ptx_init *parse_init_list(parser *p)
{
    const token *start = next_tok(p); /* { */
    ptx_init *in = palloc(p, sizeof *in);
    if (!in)
        return NULL;
    in->kind = PTX_INIT_LIST;
    in->loc = start->loc;
    size_t cap = 0;
    if (!is_punct(peek(p), '}'))
        do {
            ptx_init *e = peek(p)->kind == T_IDENT && is_punct(peek_at(p, 1), '=') ? parse_init_named(p)
                                                                                   : parse_init(p);
            ptx_init **slot = e ? ARENA_PUSH(p->a, in->elems, in->nelems, cap) : NULL;
            if (!slot)
                return NULL;
            *slot = e;
        } while (accept_punct(p, ','));
    return expect_punct(p, '}', "initializer list") ? in : NULL;
}

static ptx_init *parse_init(parser *p)
{
    const token *t = peek(p);
    if (++p->depth > PARSE_MAX_DEPTH) {
        perr(p, t, "initializer nested too deeply");
        return NULL;
    }
    ptx_init *in = NULL;
    if (is_punct(t, '{')) {
        in = parse_init_list(p);
    } else if (tok_is(t, T_IDENT, "generic") && is_punct(peek_at(p, 1), '(')) {
        next_tok(p);
        in = parse_init_symbolic(p, PTX_INIT_GENERIC, 0);
    } else if (t->kind == T_IDENT) {
        in = parse_init_symbolic(p, PTX_INIT_SYM, 0);
    } else if (t->kind == T_INT && is_punct(peek_at(p, 1), '(') &&
               peek_at(p, 2)->kind == T_IDENT) {
        next_tok(p);
        in = parse_init_symbolic(p, PTX_INIT_MASK, t->ival);
    } else {
        cval v;
        if (parse_const(p, &v) && (in = palloc(p, sizeof *in))) {
            in->kind = v.kind == CV_INT ? PTX_INIT_INT : v.kind == CV_F32 ? PTX_INIT_F32
                                                                          : PTX_INIT_F64;
            in->loc = t->loc;
            in->ival = v.v;
        }
    }
    p->depth--;
    return in;
}

/* Attributes shared by every name of one declaration. */
typedef struct decl_attrs {
    uint32_t linkage, align;
    ptx_space space;
    uint8_t space_sub, vec;
    ptx_type type;
    bool managed;
    bool is_ptr;         /* .ptr [.space] [.align N], kernel parameters only */
    uint8_t ptr_space;
    uint32_t ptr_align;
} decl_attrs;

/* .ptr [.space] [.align N] after a kernel parameter's type. */
static bool parse_ptr_attr(parser *p, decl_attrs *d)
{
    d->is_ptr = true;
    uint8_t sub;
    ptx_space sp = space_of(peek(p), &sub);
    if (sp == PTX_SP_GLOBAL || sp == PTX_SP_CONST || sp == PTX_SP_LOCAL || sp == PTX_SP_SHARED) {
        next_tok(p);
        d->ptr_space = (uint8_t)sp;
    }
    if (tok_is(peek(p), T_DOT, "align")) {
        next_tok(p);
        return parse_align(p, &d->ptr_align);
    }
    return true;
}

/* Parses the directives before a variable's name, in any order. */
static bool parse_decl_attrs(parser *p, decl_attrs *d)
{
    for (;;) {
        const token *t = peek(p);
        uint32_t link;
        uint8_t sub = 0;
        ptx_space sp;
        ptx_type ty;
        if (t->kind != T_DOT)
            break;
        if ((link = linkage_of(t))) {
            next_tok(p);
            d->linkage |= link;
        } else if ((sp = space_of(t, &sub)) != PTX_SP_NONE) {
            next_tok(p);
            if (d->space) {
                perr(p, t, "more than one state space in a declaration");
                return false;
            }
            d->space = sp;
            d->space_sub = sub;
        } else if (tok_is(t, T_DOT, "align")) {
            next_tok(p);
            if (!parse_align(p, &d->align))
                return false;
        } else if (tok_is(t, T_DOT, "v2") || tok_is(t, T_DOT, "v4") || tok_is(t, T_DOT, "v8")) {
            next_tok(p);
            d->vec = (uint8_t)(t->text[1] - '0');
        } else if (tok_is(t, T_DOT, "attribute")) {
            next_tok(p);
            if (!expect_punct(p, '(', ".attribute") || !tok_is(peek(p), T_DOT, "managed")) {
                perr(p, peek(p), "expected .managed in .attribute");
                return false;
            }
            next_tok(p);
            d->managed = true;
            if (!expect_punct(p, ')', ".attribute"))
                return false;
        } else if (tok_is(t, T_DOT, "ptr")) {
            next_tok(p);
            if (!parse_ptr_attr(p, d))
                return false;
        } else if ((ty = ptx_type_lookup(t->text, t->len)) != PTX_TYPE_NONE) {
            next_tok(p);
            if (d->type) {
                perr(p, t, "more than one type in a declaration");
                return false;
            }
            d->type = ty;
        } else {
            break;
        }
    }
    if (!d->type) {
        char buf[64];
        perr(p, peek(p), "expected a type in declaration, found %s", tok_desc(peek(p), buf, sizeof buf));
        return false;
    }
    return true;
}

/* name[<N>] [dims] after the attributes. */
static ptx_var *parse_declarator(parser *p, const decl_attrs *d)
{
    const token *name;
    if (!expect_ident(p, &name, "a variable name"))
        return NULL;
    ptx_var *v = palloc(p, sizeof *v);
    if (!v)
        return NULL;
    v->name = pstr(p, name);
    v->loc = name->loc;
    v->space = d->space;
    v->space_sub = d->space_sub;
    v->type = d->type;
    v->vec = d->vec;
    v->align = d->align;
    v->linkage = d->linkage;
    v->managed = d->managed;
    v->is_ptr = d->is_ptr;
    v->ptr_space = d->ptr_space;
    v->ptr_align = d->ptr_align;
    if (is_punct(peek(p), '<')) {
        next_tok(p);
        const token *t = next_tok(p); /* a literal: an expression would eat the '>' */
        uint64_t n = t->ival;
        if (t->kind != T_INT) {
            perr(p, t, "expected a register count");
            return NULL;
        }
        if (!expect_punct(p, '>', "register declaration"))
            return NULL;
        if (n == 0 || n > (1u << 24)) {
            perr(p, t, "register count must be between 1 and 16777216");
            return NULL;
        }
        v->nreg = (uint32_t)n;
    }
    while (is_punct(peek(p), '[')) {
        const token *t = next_tok(p);
        if (v->ndims == PTX_MAX_DIMS) {
            perr(p, t, "too many array dimensions (at most %d)", PTX_MAX_DIMS);
            return NULL;
        }
        uint64_t n = 0;
        if (!is_punct(peek(p), ']') && !expect_int(p, &n, "array size"))
            return NULL;
        if (!expect_punct(p, ']', "array declaration"))
            return NULL;
        if (n > (1ull << 40)) {
            perr(p, t, "array size %llu is too large", (unsigned long long)n);
            return NULL;
        }
        v->dims[v->ndims++] = n;
    }
    if (accept_punct(p, '='))
        v->init = parse_init(p);
    return v;
}

/* One declaration statement; adds each declared name through emit(). */
typedef void (*emit_fn)(parser *p, void *ctx, ptx_var *v);

static bool parse_var_decl(parser *p, emit_fn emit, void *ctx)
{
    decl_attrs d = {0};
    if (!parse_decl_attrs(p, &d))
        return false;
    if (!d.space) {
        perr(p, peek(p), "declaration without a state space");
        return false;
    }
    do {
        ptx_var *v = parse_declarator(p, &d);
        if (!v || p->failed)
            return false;
        emit(p, ctx, v);
    } while (accept_punct(p, ','));
    return expect_punct(p, ';', "declaration");
}

/* ---- functions ---- */

static bool parse_param_list(parser *p, ptx_var ***out, uint32_t *n)
{
    size_t cap = 0;
    if (!expect_punct(p, '(', "parameter list"))
        return false;
    if (accept_punct(p, ')'))
        return true;
    do {
        decl_attrs d = {0};
        const token *t = peek(p);
        if (!parse_decl_attrs(p, &d))
            return false;
        if (d.space != PTX_SP_PARAM && d.space != PTX_SP_REG) {
            perr(p, t, "parameters must be .param or .reg");
            return false;
        }
        ptx_var *v = parse_declarator(p, &d);
        ptx_var **slot = v ? ARENA_PUSH(p->a, *out, *n, cap) : NULL;
        if (!slot)
            return false;
        *slot = v;
    } while (accept_punct(p, ','));
    return expect_punct(p, ')', "parameter list");
}

static bool parse_dim3(parser *p, uint32_t out[3], const char *what)
{
    for (int i = 0; i < 3; i++) {
        const token *t = peek(p);
        uint64_t v;
        if (!expect_int(p, &v, what))
            return false;
        if (v == 0 || v > UINT32_MAX) {
            perr(p, t, "%s must be between 1 and 4294967295", what);
            return false;
        }
        out[i] = (uint32_t)v;
        if (!accept_punct(p, ','))
            break;
    }
    return true;
}

static bool parse_u32_directive(parser *p, uint32_t *out, const char *what)
{
    const token *t = peek(p);
    uint64_t v;
    if (!expect_int(p, &v, what))
        return false;
    if (v > UINT32_MAX) {
        perr(p, t, "%s is too large", what);
        return false;
    }
    *out = (uint32_t)v;
    return true;
}

static bool push_pragma(parser *p, const char ***v, uint32_t *n, size_t *cap)
{
    const token *t = peek(p);
    if (t->kind != T_STRING) {
        perr(p, t, "expected a string after .pragma");
        return false;
    }
    next_tok(p);
    const char **slot = ARENA_PUSH(p->a, *v, *n, *cap);
    if (!slot)
        return false;
    *slot = pstr(p, t);
    return expect_punct(p, ';', ".pragma");
}

/* Performance-tuning directives between the header and the body. */
static bool parse_perf_directives(parser *p, ptx_func *f)
{
    size_t pcap = 0;
    for (;;) {
        const token *t = peek(p);
        bool ok = true;
        if (t->kind != T_DOT)
            return true;
        next_tok(p);
        if (tok_is(t, T_DOT, "maxntid"))
            ok = parse_dim3(p, f->maxntid, ".maxntid");
        else if (tok_is(t, T_DOT, "reqntid"))
            ok = parse_dim3(p, f->reqntid, ".reqntid");
        else if (tok_is(t, T_DOT, "reqnctapercluster"))
            ok = parse_dim3(p, f->reqnctapercluster, ".reqnctapercluster");
        else if (tok_is(t, T_DOT, "minnctapersm"))
            ok = parse_u32_directive(p, &f->minnctapersm, ".minnctapersm");
        else if (tok_is(t, T_DOT, "maxnctapersm"))
            ok = parse_u32_directive(p, &f->maxnctapersm, ".maxnctapersm");
        else if (tok_is(t, T_DOT, "maxnreg"))
            ok = parse_u32_directive(p, &f->maxnreg, ".maxnreg");
        else if (tok_is(t, T_DOT, "maxclusterrank"))
            ok = parse_u32_directive(p, &f->maxclusterrank, ".maxclusterrank");
        else if (tok_is(t, T_DOT, "explicitcluster"))
            f->explicitcluster = true;
        else if (tok_is(t, T_DOT, "noreturn"))
            f->noreturn = true;
        else if (tok_is(t, T_DOT, "pragma"))
            ok = push_pragma(p, &f->pragmas, &f->npragmas, &pcap);
        else {
            perr(p, t, "unknown function directive '.%.*s'", (int)t->len, t->text);
            return false;
        }
        if (!ok)
            return false;
    }
}

/* A function's statements while it is parsed: grown on the heap, then
 * copied into the arena at their final size (growing in the arena would
 * leave every outgrown copy there, twice the body's size or more). */
typedef struct body {
    ptx_stmt *v;
    uint32_t n;
    size_t cap;
} body;

static ptx_stmt *add_stmt(parser *p, body *b, ptx_stmt_kind kind, ptx_loc loc)
{
    if (b->n == b->cap) {
        size_t ncap = b->cap ? b->cap * 2 : 16;
        ptx_stmt *v = b->n < UINT32_MAX ? realloc(b->v, ncap * sizeof *v) : NULL;
        if (!v) {
            p->oom = true;
            return NULL;
        }
        b->v = v;
        b->cap = ncap;
    }
    ptx_stmt *s = &b->v[b->n++];
    memset(s, 0, sizeof *s);
    s->kind = kind;
    s->loc = loc;
    return s;
}

static void emit_local_var(parser *p, void *ctx, ptx_var *v)
{
    ptx_stmt *s = add_stmt(p, ctx, PTX_STMT_VAR, v->loc);
    if (s)
        s->var = v;
}

static ptx_func *parse_prototype(parser *p, const token *start);

/* label: followed by .callprototype, .branchtargets or .calltargets. */
static bool parse_label_directive(parser *p, body *b, const token *name)
{
    const token *d = next_tok(p);
    if (tok_is(d, T_DOT, "callprototype")) {
        ptx_func *proto = parse_prototype(p, d);
        ptx_stmt *s = proto ? add_stmt(p, b, PTX_STMT_PROTOTYPE, name->loc) : NULL;
        if (!s)
            return false;
        s->name = pstr(p, name);
        s->proto = proto;
        return expect_punct(p, ';', ".callprototype");
    }
    bool br = tok_is(d, T_DOT, "branchtargets");
    if (!br && !tok_is(d, T_DOT, "calltargets")) {
        perr(p, d, "unexpected directive '.%.*s' after label", (int)d->len, d->text);
        return false;
    }
    ptx_stmt *s = add_stmt(p, b, br ? PTX_STMT_BRANCHTARGETS : PTX_STMT_CALLTARGETS, name->loc);
    if (!s)
        return false;
    s->name = pstr(p, name);
    size_t cap = 0;
    do {
        const token *t;
        if (!expect_ident(p, &t, br ? "a label" : "a function name"))
            return false;
        ptx_operand *o = ARENA_PUSH(p->a, s->targets, s->ntargets, cap);
        if (!o)
            return false;
        memset(o, 0, sizeof *o);
        o->kind = PTX_OPD_NAME;
        o->loc = t->loc;
        o->name = pstr(p, t);
        o->label = -1;
    } while (accept_punct(p, ','));
    return expect_punct(p, ';', br ? ".branchtargets" : ".calltargets");
}

static bool parse_body_stmt(parser *p, body *b)
{
    const token *t = peek(p);
    if (is_punct(t, '{')) {
        next_tok(p);
        if (++p->depth > PARSE_MAX_DEPTH) {
            perr(p, t, "blocks nested too deeply");
            return false;
        }
        return add_stmt(p, b, PTX_STMT_SCOPE_BEGIN, t->loc) != NULL;
    }
    if (t->kind == T_IDENT && is_punct(peek_at(p, 1), ':')) {
        next_tok(p);
        next_tok(p);
        if (peek(p)->kind == T_DOT && !tok_is(peek(p), T_DOT, "loc") &&
            !tok_is(peek(p), T_DOT, "pragma") && space_of(peek(p), &(uint8_t){0}) == PTX_SP_NONE)
            return parse_label_directive(p, b, t);
        ptx_stmt *s = add_stmt(p, b, PTX_STMT_LABEL, t->loc);
        if (s)
            s->name = pstr(p, t);
        return s != NULL;
    }
    if (t->kind == T_DOT) {
        if (tok_is(t, T_DOT, "loc") || tok_is(t, T_DOT, "file")) {
            next_tok(p);
            skip_line(p, t->loc.line);
            return true;
        }
        if (tok_is(t, T_DOT, "pragma")) {
            next_tok(p);
            if (peek(p)->kind != T_STRING) {
                perr(p, peek(p), "expected a string after .pragma");
                return false;
            }
            ptx_stmt *s = add_stmt(p, b, PTX_STMT_PRAGMA, t->loc);
            if (!s)
                return false;
            s->text = pstr(p, next_tok(p));
            return expect_punct(p, ';', ".pragma");
        }
        return parse_var_decl(p, emit_local_var, b);
    }
    ptx_instr *in = parse_instr(p);
    ptx_stmt *s = in ? add_stmt(p, b, PTX_STMT_INSTR, in->loc) : NULL;
    if (s)
        s->instr = in;
    return s != NULL;
}

static void parse_body(parser *p, ptx_func *f, const token *open)
{
    body b = {0};
    uint32_t base_depth = p->depth;
    for (;;) {
        const token *t = peek(p);
        if (t->kind == T_EOF) {
            ptx_diag_add(p->diags, open->loc, "unterminated function body of '%s'", f->name);
            break;
        }
        if (is_punct(t, '}')) {
            next_tok(p);
            if (p->depth == base_depth)
                break;
            p->depth--;
            if (!add_stmt(p, &b, PTX_STMT_SCOPE_END, t->loc))
                break;
            continue;
        }
        size_t start = p->i;
        if (!parse_body_stmt(p, &b)) {
            if (p->i == start && !is_punct(peek(p), '}'))
                next_tok(p); /* always make progress */
            resync(p, false);
        }
        if (p->oom)
            break;
    }
    p->depth = base_depth;
    f->body = b.n ? arena_alloc(p->a, b.n * sizeof *b.v) : NULL;
    if (f->body)
        memcpy(f->body, b.v, b.n * sizeof *b.v);
    else if (b.n)
        p->oom = true;
    f->nbody = f->body ? b.n : 0;
    free(b.v);
}

/* .callprototype _ (params) or (.param ret) _ (params). */
static ptx_func *parse_prototype(parser *p, const token *start)
{
    ptx_func *f = palloc(p, sizeof *f);
    if (!f)
        return NULL;
    f->loc = start->loc;
    f->name = "_";
    if (is_punct(peek(p), '(') && !parse_param_list(p, &f->rets, &f->nrets))
        return NULL;
    const token *t;
    if (!expect_ident(p, &t, "'_' in .callprototype"))
        return NULL;
    if (is_punct(peek(p), '(') && !parse_param_list(p, &f->params, &f->nparams))
        return NULL;
    if (tok_is(peek(p), T_DOT, "noreturn")) {
        next_tok(p);
        f->noreturn = true;
    }
    return f;
}

static ptx_func *parse_function(parser *p, uint32_t linkage)
{
    const token *kw = next_tok(p);
    ptx_func *f = palloc(p, sizeof *f);
    if (!f)
        return NULL;
    f->is_entry = tok_is(kw, T_DOT, "entry");
    f->linkage = linkage;
    f->loc = kw->loc;
    if (!f->is_entry && is_punct(peek(p), '(') && !parse_param_list(p, &f->rets, &f->nrets))
        return NULL;
    const token *name;
    if (!expect_ident(p, &name, "a function name"))
        return NULL;
    f->name = pstr(p, name);
    f->loc = name->loc;
    if (is_punct(peek(p), '(') && !parse_param_list(p, &f->params, &f->nparams))
        return NULL;
    if (!parse_perf_directives(p, f))
        return NULL;
    if (accept_punct(p, ';'))
        return f;
    const token *open = peek(p);
    if (!expect_punct(p, '{', "function definition"))
        return NULL;
    f->has_body = true;
    parse_body(p, f, open);
    return f;
}

/* ---- module ---- */

static ptx_item *add_item(parser *p, size_t *cap, ptx_item_kind kind)
{
    ptx_item *it = ARENA_PUSH(p->a, p->m->items, p->m->nitems, *cap);
    if (!it) {
        p->oom = true;
        return NULL;
    }
    memset(it, 0, sizeof *it);
    it->kind = kind;
    return it;
}

typedef struct item_ctx {
    size_t *cap;
} item_ctx;

static void emit_module_var(parser *p, void *ctx, ptx_var *v)
{
    ptx_item *it = add_item(p, ((item_ctx *)ctx)->cap, PTX_ITEM_VAR);
    if (it)
        it->var = v;
}

static bool parse_module_directive(parser *p, size_t *cap)
{
    const token *t = peek(p);
    if (tok_is(t, T_DOT, "version")) {
        next_tok(p);
        parse_version(p);
    } else if (tok_is(t, T_DOT, "target")) {
        next_tok(p);
        parse_target(p);
    } else if (tok_is(t, T_DOT, "address_size")) {
        next_tok(p);
        const token *v = peek(p);
        uint64_t n;
        if (!expect_int(p, &n, ".address_size"))
            return false;
        if (n != 32 && n != 64) {
            perr(p, v, ".address_size must be 32 or 64");
            return false;
        }
        p->m->address_size = (uint32_t)n;
    } else if (tok_is(t, T_DOT, "file") || tok_is(t, T_DOT, "loc")) {
        next_tok(p);
        skip_line(p, t->loc.line);
    } else if (tok_is(t, T_DOT, "section")) {
        next_tok(p);
        skip_section(p);
    } else if (tok_is(t, T_DOT, "pragma")) {
        next_tok(p);
        const token *s = peek(p);
        if (s->kind != T_STRING) {
            perr(p, s, "expected a string after .pragma");
            return false;
        }
        next_tok(p);
        ptx_item *it = add_item(p, cap, PTX_ITEM_PRAGMA);
        if (!it)
            return false;
        it->text = pstr(p, s);
        return expect_punct(p, ';', ".pragma");
    } else {
        uint32_t linkage = 0, l;
        size_t save = p->i;
        while ((l = linkage_of(peek(p)))) {
            linkage |= l;
            next_tok(p);
        }
        const token *k = peek(p);
        if (tok_is(k, T_DOT, "entry") || tok_is(k, T_DOT, "func")) {
            ptx_func *f = parse_function(p, linkage);
            ptx_item *it = f ? add_item(p, cap, PTX_ITEM_FUNC) : NULL;
            if (it)
                it->func = f;
            return it != NULL;
        }
        p->i = save;
        if (k->kind == T_DOT)
            return parse_var_decl(p, emit_module_var, &(item_ctx){cap});
        char buf[64];
        perr(p, t, "expected a directive, found %s", tok_desc(t, buf, sizeof buf));
        return false;
    }
    return !p->failed;
}

ptx_module *ptx_parse(const char *src, size_t len, const char *filename, ptx_diags *diags)
{
    ptx_arena *a = arena_new();
    ptx_module *m = a ? arena_alloc(a, sizeof *m) : NULL;
    tokens toks = {0};
    if (!m || !lex_all(src, len, &toks, diags)) {
        tokens_free(&toks);
        arena_free(a);
        return NULL;
    }
    m->arena = a;
    m->filename = arena_strndup(a, filename, strlen(filename));
    parser p = {.t = toks.v, .n = toks.n, .m = m, .a = a, .diags = diags};
    size_t cap = 0;
    while (peek(&p)->kind != T_EOF && !p.oom) {
        if (is_punct(peek(&p), '}')) {
            perr(&p, next_tok(&p), "unmatched '}'");
            p.failed = false;
            continue;
        }
        size_t start = p.i;
        if (!parse_module_directive(&p, &cap)) {
            if (p.i == start)
                next_tok(&p); /* always make progress */
            resync(&p, true);
        }
        p.failed = false;
    }
    tokens_free(&toks);
    intern_free(&p.names);
    if (p.oom) {
        ptx_module_free(m);
        return NULL;
    }
    return m;
}

void ptx_module_free(ptx_module *m)
{
    if (m)
        arena_free(m->arena);
}
