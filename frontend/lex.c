/* lex.c - the PTX lexer. */
#include "lex.h"

#include <stdlib.h>
#include <string.h>

typedef struct lexer {
    const char *src, *end, *p;
    uint32_t line;
    const char *line_start;
    ptx_diags *diags;
    tokens *out;
    size_t cap;
} lexer;

static bool is_follow(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '$';
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static int hex_val(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static ptx_loc here(const lexer *lx)
{
    return (ptx_loc){lx->line, (uint32_t)(lx->p - lx->line_start) + 1};
}

static token *push(lexer *lx, tok_kind kind, const char *start, ptx_loc loc, bool space)
{
    if (lx->out->n == lx->cap) {
        size_t ncap = lx->cap ? lx->cap * 2 : 1024;
        token *v = realloc(lx->out->v, ncap * sizeof *v);
        if (!v)
            return NULL;
        lx->out->v = v;
        lx->cap = ncap;
    }
    token *t = &lx->out->v[lx->out->n++];
    memset(t, 0, sizeof *t);
    t->kind = kind;
    t->loc = loc;
    t->text = start;
    t->len = (uint32_t)(lx->p - start);
    t->space_before = space;
    return t;
}

/* Skips blanks and comments; returns whether anything was skipped. */
static bool skip_space(lexer *lx)
{
    const char *start = lx->p;
    while (lx->p < lx->end) {
        char c = *lx->p;
        if (c == '\n') {
            lx->p++;
            lx->line++;
            lx->line_start = lx->p;
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            lx->p++;
        } else if (c == '/' && lx->p + 1 < lx->end && lx->p[1] == '/') {
            while (lx->p < lx->end && *lx->p != '\n')
                lx->p++;
        } else if (c == '/' && lx->p + 1 < lx->end && lx->p[1] == '*') {
            ptx_loc loc = here(lx);
            lx->p += 2;
            for (;;) {
                if (lx->p >= lx->end) {
                    ptx_diag_add(lx->diags, loc, "unterminated comment");
                    break;
                }
                if (*lx->p == '*' && lx->p + 1 < lx->end && lx->p[1] == '/') {
                    lx->p += 2;
                    break;
                }
                if (*lx->p == '\n') {
                    lx->line++;
                    lx->line_start = lx->p + 1;
                }
                lx->p++;
            }
        } else {
            break;
        }
    }
    return lx->p != start;
}

/* Integer literal: decimal, 0x hex, 0b binary, 0 octal; optional U suffix. */
static bool lex_int(lexer *lx, token *t)
{
    const char *s = t->text, *e = lx->p;
    uint64_t v = 0;
    unsigned base = 10;
    bool overflow = false;
    if (e > s && (e[-1] == 'U' || e[-1] == 'u'))
        t->is_unsigned = true, e--;
    if (e - s > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        base = 16, s += 2;
    else if (e - s > 1 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B'))
        base = 2, s += 2;
    else if (e - s > 1 && s[0] == '0')
        base = 8, s += 1;
    if (s == e)
        return false;
    for (; s < e; s++) {
        int d = hex_val(*s);
        if (d < 0 || (unsigned)d >= base)
            return false;
        if (v > (UINT64_MAX - (unsigned)d) / base)
            overflow = true;
        v = v * base + (unsigned)d;
    }
    if (overflow) {
        ptx_diag_add(lx->diags, t->loc, "integer literal '%.*s' does not fit in 64 bits",
                     (int)t->len, t->text);
        v = 0;
    }
    t->ival = v;
    /* ISA: a literal is .s64 unless it needs .u64 or has the U suffix. */
    if (v > INT64_MAX)
        t->is_unsigned = true;
    return true;
}

/* 0fXXXXXXXX (f32 bits) and 0dXXXXXXXXXXXXXXXX (f64 bits). */
static bool lex_hex_float(token *t)
{
    size_t digits = t->len - 2;
    bool is32 = t->text[1] == 'f' || t->text[1] == 'F';
    if (digits != (is32 ? 8u : 16u))
        return false;
    uint64_t v = 0;
    for (size_t i = 2; i < t->len; i++) {
        int d = hex_val(t->text[i]);
        if (d < 0)
            return false;
        v = v << 4 | (unsigned)d;
    }
    t->kind = is32 ? T_F32 : T_F64;
    t->ival = v;
    return true;
}

static bool lex_decimal_float(lexer *lx, token *t)
{
    char buf[128];
    if (t->len >= sizeof buf) {
        ptx_diag_add(lx->diags, t->loc, "floating-point literal too long");
        return true;
    }
    memcpy(buf, t->text, t->len);
    buf[t->len] = 0;
    char *end;
    double d = strtod(buf, &end);
    if (*end)
        return false;
    t->kind = T_F64;
    memcpy(&t->ival, &d, sizeof d);
    return true;
}

static bool lex_number(lexer *lx, ptx_loc loc, bool space)
{
    const char *start = lx->p;
    bool is_float = false;
    if (lx->p + 1 < lx->end && lx->p[0] == '0' && strchr("fFdD", lx->p[1]) && lx->p[1]) {
        lx->p += 2;
        while (lx->p < lx->end && is_follow(*lx->p))
            lx->p++;
        token *t = push(lx, T_F64, start, loc, space);
        if (!t)
            return false;
        if (!lex_hex_float(t))
            ptx_diag_add(lx->diags, loc, "malformed hexadecimal float '%.*s'", (int)t->len, start);
        return true;
    }
    while (lx->p < lx->end) {
        char c = *lx->p;
        if (is_follow(c)) {
            if ((c == 'e' || c == 'E') && !(start[0] == '0' && start + 1 < lx->end &&
                                             (start[1] == 'x' || start[1] == 'X'))) {
                is_float = true;
                lx->p++;
                if (lx->p < lx->end && (*lx->p == '+' || *lx->p == '-'))
                    lx->p++;
                continue;
            }
            lx->p++;
        } else if (c == '.' && lx->p + 1 < lx->end && is_digit(lx->p[1])) {
            is_float = true;
            lx->p++;
        } else if (c == '.' && !(lx->p + 1 < lx->end && is_follow(lx->p[1]))) {
            is_float = true; /* "1." */
            lx->p++;
        } else {
            break;
        }
    }
    token *t = push(lx, T_INT, start, loc, space);
    if (!t)
        return false;
    bool ok = is_float ? lex_decimal_float(lx, t) : lex_int(lx, t);
    if (!ok)
        ptx_diag_add(lx->diags, loc, "malformed number '%.*s'", (int)t->len, start);
    return true;
}

static bool lex_string(lexer *lx, ptx_loc loc, bool space)
{
    lx->p++;
    const char *start = lx->p;
    while (lx->p < lx->end && *lx->p != '"' && *lx->p != '\n') {
        if (*lx->p == '\\' && lx->p + 1 < lx->end && lx->p[1] != '\n')
            lx->p++;
        lx->p++;
    }
    token *t = push(lx, T_STRING, start, loc, space);
    if (!t)
        return false;
    if (lx->p < lx->end && *lx->p == '"')
        lx->p++;
    else
        ptx_diag_add(lx->diags, loc, "unterminated string literal");
    return true;
}

/* A modifier that starts with a digit, as texture geometries do (".2d",
 * ".3d", ".2dms"): digits then a letter that cannot continue a number. */
static bool digit_modifier(const char *p, const char *end)
{
    p++;
    while (p < end && is_digit(*p))
        p++;
    return p < end && is_follow(*p) && *p != 'e' && *p != 'E';
}

/* ".name" with optional "::seg" parts, e.g. ".shared::cluster", ".L2::128B". */
static bool lex_dot(lexer *lx, ptx_loc loc, bool space)
{
    lx->p++;
    const char *start = lx->p;
    for (;;) {
        while (lx->p < lx->end && is_follow(*lx->p))
            lx->p++;
        if (lx->p + 2 < lx->end && lx->p[0] == ':' && lx->p[1] == ':' && is_follow(lx->p[2]))
            lx->p += 2;
        else
            break;
    }
    return push(lx, T_DOT, start, loc, space) != NULL;
}

static const char *const two_char_ops[] = {"<<", ">>", "<=", ">=", "==", "!=", "&&", "||"};

static bool lex_punct(lexer *lx, ptx_loc loc, bool space)
{
    const char *start = lx->p;
    char c = *lx->p;
    if (lx->p + 1 < lx->end)
        for (size_t i = 0; i < sizeof two_char_ops / sizeof two_char_ops[0]; i++)
            if (c == two_char_ops[i][0] && lx->p[1] == two_char_ops[i][1]) {
                lx->p += 2;
                token *t = push(lx, T_PUNCT, start, loc, space);
                if (!t)
                    return false;
                t->p[0] = c;
                t->p[1] = two_char_ops[i][1];
                return true;
            }
    if (!strchr(",;:()[]{}<>+-*/%!~&|^?=@", c) || c == 0) {
        unsigned char u = (unsigned char)c;
        if (u >= 32 && u < 127)
            ptx_diag_add(lx->diags, loc, "unexpected character '%c'", c);
        else
            ptx_diag_add(lx->diags, loc, "unexpected byte 0x%02x", u);
        lx->p++;
        return true;
    }
    lx->p++;
    token *t = push(lx, T_PUNCT, start, loc, space);
    if (!t)
        return false;
    t->p[0] = c;
    return true;
}

bool lex_all(const char *src, size_t len, tokens *out, ptx_diags *diags)
{
    lexer lx = {src, src + len, src, 1, src, diags, out, 0};
    out->v = NULL;
    out->n = 0;
    for (;;) {
        bool space = skip_space(&lx) || lx.p == src;
        ptx_loc loc = here(&lx);
        if (lx.p >= lx.end) {
            if (!push(&lx, T_EOF, lx.p, loc, space))
                return false;
            /* the doubling's slack goes before the parser's allocations start */
            token *v = realloc(out->v, out->n * sizeof *v);
            if (v)
                out->v = v;
            return true;
        }
        char c = *lx.p;
        bool ok;
        if (is_follow(c) && !is_digit(c)) {
            const char *start = lx.p;
            while (lx.p < lx.end && is_follow(*lx.p))
                lx.p++;
            ok = push(&lx, T_IDENT, start, loc, space) != NULL;
        } else if (c == '%' && lx.p + 1 < lx.end && is_follow(lx.p[1])) {
            const char *start = lx.p++;
            while (lx.p < lx.end && is_follow(*lx.p))
                lx.p++;
            ok = push(&lx, T_IDENT, start, loc, space) != NULL;
        } else if (is_digit(c) || (c == '.' && lx.p + 1 < lx.end && is_digit(lx.p[1]) && !digit_modifier(lx.p, lx.end))) {
            ok = lex_number(&lx, loc, space);
        } else if (c == '.') {
            ok = lex_dot(&lx, loc, space);
        } else if (c == '"') {
            ok = lex_string(&lx, loc, space);
        } else {
            ok = lex_punct(&lx, loc, space);
        }
        if (!ok)
            return false;
    }
}

void tokens_free(tokens *t)
{
    free(t->v);
    t->v = NULL;
    t->n = 0;
}
