/* lex.h - PTX tokens.  The whole input is tokenized up front into an array
 * (memory is linear in the input) so the parser can look ahead freely. */
#ifndef PTX_LEX_H
#define PTX_LEX_H

#include "ptx.h"

typedef enum tok_kind {
    T_EOF,
    T_IDENT,   /* foo, %r1, $L__BB0_1, _ */
    T_DOT,     /* .name or .name::sub (text excludes the leading dot) */
    T_INT,     /* integer literal; ival, is_unsigned */
    T_F32,     /* 0fXXXXXXXX; ival holds the bits */
    T_F64,     /* 0dXXXXXXXXXXXXXXXX or decimal float; ival holds the bits */
    T_STRING,  /* "..." (text excludes quotes, escapes kept) */
    T_PUNCT,   /* one- or two-character operator; p[0], p[1] */
} tok_kind;

/* 32 bytes: the whole input's tokens are in memory at once. */
typedef struct token {
    uint32_t len;           /* text length */
    uint8_t kind;           /* tok_kind */
    bool is_unsigned : 1;   /* T_INT with U suffix */
    bool space_before : 1;  /* whitespace precedes: ".x" after "%tid" must be glued */
    char p[2];              /* punctuation characters, p[1] = 0 for one-char */
    ptx_loc loc;
    const char *text;       /* points into the source */
    uint64_t ival;
} token;

typedef struct tokens {
    token *v;
    size_t n;
} tokens;

/* Tokenizes src; lexical errors go to diags (bad characters are skipped).
 * Returns false only when out of memory. */
bool lex_all(const char *src, size_t len, tokens *out, ptx_diags *diags);
void tokens_free(tokens *t);

#endif
