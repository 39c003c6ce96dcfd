/* expr.c - PTX constant expressions: C operators and precedence over 64-bit
 * integers; a result is unsigned when either operand is (ISA 4.6).  Float
 * literals may appear alone, optionally negated. */
#include "parse.h"

#include <string.h>

static bool parse_ternary(parser *p, cval *v);

static bool need_int(parser *p, const token *t, const cval *v)
{
    if (v->kind == CV_INT)
        return true;
    perr(p, t, "floating-point value in an integer expression");
    return false;
}

static bool parse_primary(parser *p, cval *v)
{
    const token *t = peek(p);
    if (++p->depth > PARSE_MAX_DEPTH) {
        perr(p, t, "expression nested too deeply");
        return false;
    }
    bool ok = true;
    if (t->kind == T_INT) {
        next_tok(p);
        *v = (cval){CV_INT, t->is_unsigned, t->ival};
    } else if (t->kind == T_F32 || t->kind == T_F64) {
        next_tok(p);
        *v = (cval){t->kind == T_F32 ? CV_F32 : CV_F64, false, t->ival};
    } else if (tok_is(t, T_IDENT, "WARP_SZ")) { /* the ISA's predefined constant */
        next_tok(p);
        *v = (cval){CV_INT, false, PTX_WARP_SZ};
    } else if (is_punct(t, '(')) {
        next_tok(p);
        ok = parse_ternary(p, v) && expect_punct(p, ')', "expression");
    } else if (is_punct(t, '-') || is_punct(t, '+') || is_punct(t, '!') || is_punct(t, '~')) {
        next_tok(p);
        ok = parse_primary(p, v);
        if (ok && v->kind != CV_INT) {
            if (t->p[0] == '-')
                v->v ^= v->kind == CV_F32 ? 0x80000000u : 0x8000000000000000u;
            else if (t->p[0] != '+')
                ok = need_int(p, t, v);
        } else if (ok) {
            if (t->p[0] == '-')
                v->v = 0 - v->v;
            else if (t->p[0] == '~')
                v->v = ~v->v;
            else if (t->p[0] == '!')
                *v = (cval){CV_INT, false, v->v == 0};
        }
    } else {
        perr(p, t, "expected a constant expression, found '%.*s'", (int)t->len, t->text);
        ok = false;
    }
    p->depth--;
    return ok;
}

/* Binary operators by precedence level, lowest first. */
static const char *const levels[][4] = {
    {"||"}, {"&&"}, {"|"}, {"^"}, {"&"}, {"==", "!="}, {"<", ">", "<=", ">="},
    {"<<", ">>"}, {"+", "-"}, {"*", "/", "%"},
};
enum { NLEVELS = sizeof levels / sizeof levels[0] };

static const char *match_op(const token *t, int level)
{
    if (t->kind != T_PUNCT)
        return NULL;
    for (int k = 0; k < 4 && levels[level][k]; k++) {
        const char *op = levels[level][k];
        if (t->p[0] == op[0] && t->p[1] == op[1])
            return op;
    }
    return NULL;
}

static bool apply(parser *p, const token *t, const char *op, cval *l, const cval *r)
{
    bool uns = l->is_unsigned || r->is_unsigned;
    uint64_t a = l->v, b = r->v, res;
    int64_t sa = (int64_t)a, sb = (int64_t)b;
    switch (op[0] << 8 | op[1]) {
    case '|' << 8 | '|': res = a || b, uns = false; break;
    case '&' << 8 | '&': res = a && b, uns = false; break;
    case '|' << 8: res = a | b; break;
    case '^' << 8: res = a ^ b; break;
    case '&' << 8: res = a & b; break;
    case '=' << 8 | '=': res = a == b, uns = false; break;
    case '!' << 8 | '=': res = a != b, uns = false; break;
    case '<' << 8: res = uns ? a < b : sa < sb, uns = false; break;
    case '>' << 8: res = uns ? a > b : sa > sb, uns = false; break;
    case '<' << 8 | '=': res = uns ? a <= b : sa <= sb, uns = false; break;
    case '>' << 8 | '=': res = uns ? a >= b : sa >= sb, uns = false; break;
    case '<' << 8 | '<': res = b >= 64 ? 0 : a << b, uns = l->is_unsigned; break;
    case '>' << 8 | '>':
        uns = l->is_unsigned;
        if (uns)
            res = b >= 64 ? 0 : a >> b;
        else
            res = (uint64_t)(b >= 64 ? (sa < 0 ? -1 : 0) : sa >> b);
        break;
    case '+' << 8: res = a + b; break;
    case '-' << 8: res = a - b; break;
    case '*' << 8: res = a * b; break;
    case '/' << 8:
    case '%' << 8:
        if (b == 0) {
            perr(p, t, "division by zero in constant expression");
            return false;
        }
        if (uns)
            res = op[0] == '/' ? a / b : a % b;
        else if (sb == -1)
            res = op[0] == '/' ? 0 - a : 0; /* INT64_MIN / -1 wraps */
        else
            res = (uint64_t)(op[0] == '/' ? sa / sb : sa % sb);
        break;
    default: return false;
    }
    *l = (cval){CV_INT, uns, res};
    return true;
}

static bool parse_binary(parser *p, cval *v, int level)
{
    if (level == NLEVELS)
        return parse_primary(p, v);
    if (!parse_binary(p, v, level + 1))
        return false;
    const char *op;
    while ((op = match_op(peek(p), level))) {
        const token *t = next_tok(p);
        cval r;
        if (!parse_binary(p, &r, level + 1) || !need_int(p, t, v) || !need_int(p, t, &r) ||
            !apply(p, t, op, v, &r))
            return false;
    }
    return true;
}

static bool parse_ternary(parser *p, cval *v)
{
    if (!parse_binary(p, v, 0))
        return false;
    if (!is_punct(peek(p), '?'))
        return true;
    const token *t = next_tok(p);
    cval a, b;
    if (!need_int(p, t, v) || !parse_ternary(p, &a) || !expect_punct(p, ':', "'?:'") ||
        !parse_ternary(p, &b))
        return false;
    *v = v->v ? a : b;
    return true;
}

bool parse_const(parser *p, cval *out) { return parse_ternary(p, out); }

bool parse_int_const(parser *p, uint64_t *out, const char *what)
{
    const token *t = peek(p);
    cval v;
    if (!parse_const(p, &v))
        return false;
    if (v.kind != CV_INT) {
        perr(p, t, "%s must be an integer", what);
        return false;
    }
    *out = v.v;
    return true;
}
