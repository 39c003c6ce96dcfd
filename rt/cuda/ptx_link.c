/* ptx_link.c - linking PTX modules into one, at the text level.
 *
 * Each input is checked by the frontend, then cut into module-scope
 * statements.  The output has one header (the highest .version, the
 * newest .target, 64-bit addresses), then every input's variables, then
 * every input's functions, so a variable defined in one input is declared
 * before another uses it.  An `.extern` declaration that another input
 * defines becomes a forward declaration with the definition's linkage (or
 * disappears, for variables); repeated extern declarations appear once;
 * internal names that collide with another input's module-scope names are
 * renamed in the later input (nvcc gives every module a `$str`).  Externs
 * nobody defines stay (vprintf, malloc, __assertfail are the runtime's).
 * Two strong definitions of one visible name are an error. */
#define _GNU_SOURCE
#include "cu_internal.h"

#include "ptx.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { LINK_VISIBLE = 1, LINK_EXTERN = 2, LINK_WEAK = 4, LINK_COMMON = 8 };

typedef struct stmt {
    size_t start, end;           /* bytes of the input */
    bool is_func, is_header, has_body;
    unsigned linkage;
    char name[256];
} stmt;

typedef struct unit {
    const char *text, *name;
    size_t len;
    stmt *s;
    size_t n;
    int version, sm;
    char target[64];             /* the .target line's operands */
    char **renamed;              /* names this input renames */
    size_t nrenamed;
    size_t index;
} unit;

/* ---- scanning -------------------------------------------------------------------------- */

static bool ident_start(char c) { return isalpha((unsigned char)c) || c == '_' || c == '$' || c == '%'; }
static bool ident_char(char c) { return isalnum((unsigned char)c) || c == '_' || c == '$'; }

/* Skips a comment or string at i; returns the index after it, or i. */
static size_t skip_opaque(const char *t, size_t len, size_t i)
{
    if (t[i] == '/' && i + 1 < len && t[i + 1] == '/') {
        while (i < len && t[i] != '\n')
            i++;
    } else if (t[i] == '/' && i + 1 < len && t[i + 1] == '*') {
        for (i += 2; i + 1 < len && !(t[i] == '*' && t[i + 1] == '/'); i++)
            ;
        i = i + 2 < len ? i + 2 : len;
    } else if (t[i] == '"') {
        for (i++; i < len && t[i] != '"'; i++)
            if (t[i] == '\\')
                i++;
        i = i < len ? i + 1 : len;
    }
    return i;
}

/* The next token at or after *i: its start and length; false at the end. */
static bool next_token(const char *t, size_t len, size_t *i, size_t *tok, size_t *toklen)
{
    for (;;) {
        while (*i < len && isspace((unsigned char)t[*i]))
            (*i)++;
        if (*i >= len)
            return false;
        size_t j = skip_opaque(t, len, *i);
        if (j != *i && t[*i] != '"') {
            *i = j;
            continue;
        }
        *tok = *i;
        if (j != *i)
            *i = j; /* a string */
        else if (t[*i] == '.' || ident_start(t[*i]) || isdigit((unsigned char)t[*i]))
            for ((*i)++; *i < len && (ident_char(t[*i]) || t[*i] == ':'); (*i)++)
                ;
        else
            (*i)++;
        *toklen = *i - *tok;
        return true;
    }
}

static bool tok_is(const char *t, size_t tok, size_t n, const char *s)
{
    return n == strlen(s) && !memcmp(t + tok, s, n);
}

/* Reads one module-scope statement starting at *i. */
static bool read_stmt(const char *t, size_t len, size_t *i, stmt *s)
{
    size_t tok, n;
    *s = (stmt){0};
    if (!next_token(t, len, i, &tok, &n))
        return false;
    s->start = tok;
    if (tok_is(t, tok, n, ".version") || tok_is(t, tok, n, ".target") ||
        tok_is(t, tok, n, ".address_size") || tok_is(t, tok, n, ".file")) {
        while (*i < len && t[*i] != '\n')
            *i = skip_opaque(t, len, *i) == *i ? *i + 1 : skip_opaque(t, len, *i);
        s->is_header = true;
        s->end = *i;
        return true;
    }
    int depth = 0, parens = 0;
    bool named = false;
    for (;;) {
        if (t[tok] == '{')
            depth++, s->has_body = s->is_func || s->has_body;
        else if (t[tok] == '}' && --depth == 0 && s->is_func)
            break;
        else if (t[tok] == '(')
            parens++;
        else if (t[tok] == ')')
            parens--;
        else if (t[tok] == ';' && depth == 0 && parens == 0)
            break;
        else if (depth == 0 && parens == 0) {
            if (tok_is(t, tok, n, ".visible"))
                s->linkage |= LINK_VISIBLE;
            else if (tok_is(t, tok, n, ".extern"))
                s->linkage |= LINK_EXTERN;
            else if (tok_is(t, tok, n, ".weak"))
                s->linkage |= LINK_WEAK;
            else if (tok_is(t, tok, n, ".common"))
                s->linkage |= LINK_COMMON;
            else if (tok_is(t, tok, n, ".func") || tok_is(t, tok, n, ".entry"))
                s->is_func = true;
            else if (!named && ident_start(t[tok]) && n < sizeof s->name) {
                memcpy(s->name, t + tok, n);
                named = true;
            }
        }
        if (!next_token(t, len, i, &tok, &n))
            break;
    }
    s->end = *i;
    return true;
}

static CUresult split(unit *u)
{
    size_t i = 0, cap = 0;
    stmt s;
    while (read_stmt(u->text, u->len, &i, &s)) {
        if (u->n == cap) {
            cap = cap ? cap * 2 : 64;
            stmt *grown = realloc(u->s, cap * sizeof *grown);
            if (!grown)
                return CUDA_ERROR_OUT_OF_MEMORY;
            u->s = grown;
        }
        u->s[u->n++] = s;
    }
    u->version = cu_ptx_directive_version(u->text, u->len, ".version");
    u->sm = cu_ptx_directive_version(u->text, u->len, ".target");
    for (size_t k = 0; k < u->n; k++)
        if (u->s[k].is_header && !strncmp(u->text + u->s[k].start, ".target", 7)) {
            size_t a = u->s[k].start + 7, b = u->s[k].end;
            while (a < b && isspace((unsigned char)u->text[a]))
                a++;
            while (b > a && isspace((unsigned char)u->text[b - 1]))
                b--;
            snprintf(u->target, sizeof u->target, "%.*s", (int)(b - a), u->text + a);
        }
    return CUDA_SUCCESS;
}

/* ---- symbols ----------------------------------------------------------------------------- */

static bool is_definition(const stmt *s)
{
    return !s->is_header && s->name[0] && !(s->linkage & LINK_EXTERN) &&
           (!s->is_func || s->has_body);
}

/* The statement of another input that defines name with external
 * linkage, if any. */
static const stmt *defined_elsewhere(unit *u, size_t nu, size_t self, const char *name)
{
    for (size_t i = 0; i < nu; i++)
        for (size_t k = 0; i != self && k < u[i].n; k++)
            if (is_definition(&u[i].s[k]) && (u[i].s[k].linkage & (LINK_VISIBLE | LINK_WEAK | LINK_COMMON)) &&
                !strcmp(u[i].s[k].name, name))
                return &u[i].s[k];
    return NULL;
}

static bool named_in(const unit *u, const char *name)
{
    for (size_t k = 0; k < u->n; k++)
        if (!strcmp(u->s[k].name, name))
            return true;
    return false;
}

/* Internal names of input i that an earlier input also uses. */
static CUresult plan_renames(unit *u, size_t i)
{
    for (size_t k = 0; k < u[i].n; k++) {
        const stmt *s = &u[i].s[k];
        if (!s->name[0] || s->is_header || s->linkage)
            continue;
        bool clash = false;
        for (size_t j = 0; j < i && !clash; j++)
            clash = named_in(&u[j], s->name);
        if (!clash)
            continue;
        char **grown = realloc(u[i].renamed, (u[i].nrenamed + 1) * sizeof *grown);
        if (!grown)
            return CUDA_ERROR_OUT_OF_MEMORY;
        u[i].renamed = grown;
        u[i].renamed[u[i].nrenamed++] = u[i].s[k].name;
    }
    return CUDA_SUCCESS;
}

static CUresult check_duplicates(unit *u, size_t nu, FILE *err)
{
    for (size_t i = 0; i < nu; i++)
        for (size_t k = 0; k < u[i].n; k++) {
            const stmt *s = &u[i].s[k];
            if (!is_definition(s) || !(s->linkage & LINK_VISIBLE))
                continue;
            for (size_t j = i + 1; j < nu; j++)
                for (size_t m = 0; m < u[j].n; m++)
                    if (is_definition(&u[j].s[m]) && (u[j].s[m].linkage & LINK_VISIBLE) &&
                        !strcmp(u[j].s[m].name, s->name)) {
                        fprintf(err, "%s: error: multiple definition of '%s' (first in %s)\n",
                                u[j].name, s->name, u[i].name);
                        return CUDA_ERROR_INVALID_PTX;
                    }
        }
    return CUDA_SUCCESS;
}

/* ---- output ------------------------------------------------------------------------------- */

/* Copies [a, b) of input u, renaming its clashing internal names and
 * replacing the first `.extern` with `linkage` when given. */
static void emit(FILE *f, const unit *u, size_t a, size_t b, const char *linkage)
{
    size_t i = a;
    while (i < b) {
        size_t j = skip_opaque(u->text, b, i);
        if (j != i) {
            fwrite(u->text + i, 1, j - i, f);
            i = j;
        } else if (ident_start(u->text[i]) || u->text[i] == '.') {
            size_t e = i + 1;
            while (e < b && ident_char(u->text[e]))
                e++;
            const char *tok = u->text + i;
            size_t n = e - i;
            bool done = false;
            if (linkage && n == 7 && !memcmp(tok, ".extern", 7)) {
                fputs(linkage, f);
                linkage = NULL;
                done = true;
            }
            for (size_t r = 0; !done && r < u->nrenamed; r++)
                if (strlen(u->renamed[r]) == n && !memcmp(tok, u->renamed[r], n)) {
                    fprintf(f, "%.*s_ptxjit_l%zu", (int)n, tok, u->index);
                    done = true;
                }
            if (!done)
                fwrite(tok, 1, n, f);
            i = e;
        } else if (isdigit((unsigned char)u->text[i])) {
            size_t e = i + 1;
            while (e < b && ident_char(u->text[e]))
                e++;
            fwrite(u->text + i, 1, e - i, f);
            i = e;
        } else {
            fputc(u->text[i++], f);
        }
    }
    fputc('\n', f);
}

/* Whether an extern declaration of this name was already written. */
static bool seen_extern(char ***seen, size_t *n, const char *name)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp((*seen)[i], name))
            return true;
    char **grown = realloc(*seen, (*n + 1) * sizeof *grown);
    if (grown) {
        *seen = grown;
        grown[(*n)++] = (char *)name;
    }
    return false;
}

static void write_section(FILE *f, unit *u, size_t nu, bool funcs, char ***seen, size_t *nseen)
{
    for (size_t i = 0; i < nu; i++)
        for (size_t k = 0; k < u[i].n; k++) {
            const stmt *s = &u[i].s[k];
            if (s->is_header || s->is_func != funcs)
                continue;
            const char *linkage = NULL;
            if (s->linkage & LINK_EXTERN) {
                const stmt *def = defined_elsewhere(u, nu, i, s->name);
                if (def && !funcs)
                    continue; /* the definition is written instead */
                if (def)
                    linkage = def->linkage & LINK_WEAK ? ".weak" : ".visible";
                else if (seen_extern(seen, nseen, s->name))
                    continue;
            }
            emit(f, &u[i], s->start, s->end, linkage);
        }
}

static char *render_diags(const ptx_diags *d, const char *name, const char *src, size_t len)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    if (!f)
        return NULL;
    ptx_diags_print(d, name, src, len, f);
    fclose(f);
    return buf;
}

/* Parses and checks one text; on errors returns their rendering. */
static char *check_text(const char *text, size_t len, const char *name)
{
    ptx_diags d = {0};
    ptx_module *m = ptx_parse(text, len, name, &d);
    if (m && !d.n)
        ptx_check(m, &d);
    char *out = d.n ? render_diags(&d, name, text, len) : NULL;
    if (d.n && !out)
        out = strdup("error: the PTX has errors\n");
    ptx_module_free(m);
    ptx_diags_free(&d);
    return out;
}

CUresult cu_ptx_link(const char **texts, const size_t *lens, const char **names, size_t n,
                     char **out, size_t *outlen, char **errors)
{
    *out = *errors = NULL;
    for (size_t i = 0; i < n; i++)
        if ((*errors = check_text(texts[i], lens[i], names[i])))
            return CUDA_ERROR_INVALID_PTX;
    unit *u = calloc(n, sizeof *u);
    char *buf = NULL, *ebuf = NULL, **seen = NULL;
    size_t size = 0, esize = 0, nseen = 0;
    FILE *f = open_memstream(&buf, &size), *err = open_memstream(&ebuf, &esize);
    CUresult r = u && f && err ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
    size_t newest = 0;
    for (size_t i = 0; !r && i < n; i++) {
        u[i] = (unit){.text = texts[i], .len = lens[i], .name = names[i], .index = i};
        if (!(r = split(&u[i])) && !(r = plan_renames(u, i)) && u[i].sm > u[newest].sm)
            newest = i;
    }
    if (!r)
        r = check_duplicates(u, n, err);
    if (!r) {
        int version = 0;
        for (size_t i = 0; i < n; i++)
            version = u[i].version > version ? u[i].version : version;
        fprintf(f, ".version %d.%d\n.target %s\n.address_size 64\n\n", version / 10, version % 10,
                u[newest].target[0] ? u[newest].target : "sm_52");
        write_section(f, u, n, false, &seen, &nseen);
        write_section(f, u, n, true, &seen, &nseen);
    }
    if (f)
        fclose(f);
    if (err)
        fclose(err);
    for (size_t i = 0; u && i < n; i++) {
        free(u[i].s);
        free(u[i].renamed);
    }
    free(u);
    free(seen);
    if (!r && (*errors = check_text(buf, size, "linked")))
        r = CUDA_ERROR_INVALID_PTX;
    if (r) {
        free(buf);
        if (!*errors && ebuf && *ebuf)
            *errors = ebuf;
        else
            free(ebuf);
        return r;
    }
    free(ebuf);
    *out = buf;
    *outlen = size;
    return CUDA_SUCCESS;
}
