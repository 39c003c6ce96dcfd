/* parse.h - parser state shared by the parser's files (internal). */
#ifndef PTX_PARSE_H
#define PTX_PARSE_H

#include "arena.h"
#include "intern.h"
#include "lex.h"

/* Nesting bound for scopes, expressions and initializers: deep input gets an
 * error instead of exhausting the stack. */
#define PARSE_MAX_DEPTH 200

typedef struct parser {
    const token *t;
    size_t n, i;
    ptx_module *m;
    ptx_arena *a;
    intern_table names; /* pstr's strings */
    ptx_diags *diags;
    uint32_t depth;
    bool oom;
    bool failed; /* current statement had an error: stop reporting until resync */
} parser;

/* A constant value from an expression. */
typedef struct cval {
    enum { CV_INT, CV_F32, CV_F64 } kind;
    bool is_unsigned;
    uint64_t v;
} cval;

static inline const token *peek(const parser *p) { return &p->t[p->i]; }
static inline const token *peek_at(const parser *p, size_t k)
{
    return p->i + k < p->n ? &p->t[p->i + k] : &p->t[p->n - 1];
}
static inline const token *next_tok(parser *p)
{
    const token *t = &p->t[p->i];
    if (t->kind != T_EOF)
        p->i++;
    return t;
}
static inline bool is_punct(const token *t, char c)
{
    return t->kind == T_PUNCT && t->p[0] == c && t->p[1] == 0;
}
static inline bool is_punct2(const token *t, char c0, char c1)
{
    return t->kind == T_PUNCT && t->p[0] == c0 && t->p[1] == c1;
}
bool tok_is(const token *t, tok_kind k, const char *text);
bool accept_punct(parser *p, char c);
bool expect_punct(parser *p, char c, const char *context);
void perr(parser *p, const token *t, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void *palloc(parser *p, size_t n);
const char *pstr(parser *p, const token *t);

/* expr.c */
bool parse_const(parser *p, cval *out);
bool parse_int_const(parser *p, uint64_t *out, const char *what);

/* parse_instr.c */
ptx_instr *parse_instr(parser *p);
bool parse_operand(parser *p, ptx_operand *o, bool in_call);

#endif
