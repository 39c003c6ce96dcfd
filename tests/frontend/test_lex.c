/* test_lex.c - the lexer, token by token: literals (ISA 4.5), identifiers,
 * dotted names with ::, operators, comments, and source locations. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lex.h"

static tokens lex_ok(const char *src)
{
    tokens t;
    ptx_diags d = {0};
    assert_true(lex_all(src, strlen(src), &t, &d));
    if (d.n)
        fail_msg("unexpected lexer error: %s", d.v[0].msg);
    ptx_diags_free(&d);
    return t;
}

static void assert_tok(const token *t, tok_kind k, const char *text)
{
    assert_int_equal(t->kind, k);
    assert_int_equal(t->len, strlen(text));
    assert_memory_equal(t->text, text, t->len);
}

static void test_4_5_integer_literals(void **state)
{
    tokens t = lex_ok("42 0x2A 0X2a 052 0b101010 42U 0 18446744073709551615");
    static const uint64_t want[] = {42, 42, 42, 42, 42, 42, 0, UINT64_MAX};
    for (int i = 0; i < 8; i++) {
        assert_int_equal(t.v[i].kind, T_INT);
        assert_int_equal(t.v[i].ival, want[i]);
    }
    assert_false(t.v[0].is_unsigned);
    assert_true(t.v[5].is_unsigned);
    assert_true(t.v[7].is_unsigned); /* does not fit .s64 */
    assert_int_equal(t.v[8].kind, T_EOF);
    tokens_free(&t);
}

static void test_4_5_float_literals(void **state)
{
    tokens t = lex_ok("0f3F800000 0F7FC00000 0d3FF0000000000000 1.5 .25 1e3 2.5e-1 1.");
    assert_int_equal(t.v[0].kind, T_F32);
    assert_int_equal(t.v[0].ival, 0x3F800000);
    assert_int_equal(t.v[1].kind, T_F32);
    assert_int_equal(t.v[1].ival, 0x7FC00000);
    assert_int_equal(t.v[2].kind, T_F64);
    assert_int_equal(t.v[2].ival, 0x3FF0000000000000ull);
    static const double want[] = {1.5, 0.25, 1000.0, 0.25, 1.0};
    for (int i = 0; i < 5; i++) {
        double d;
        assert_int_equal(t.v[3 + i].kind, T_F64);
        memcpy(&d, &t.v[3 + i].ival, sizeof d);
        assert_true(d == want[i]);
    }
    tokens_free(&t);
}

static void test_4_4_identifiers_and_dots(void **state)
{
    tokens t = lex_ok("%r12 $L__BB0_1 _Z3fooPf __local_depot0 _ .shared::cluster .L2::128B .v4");
    assert_tok(&t.v[0], T_IDENT, "%r12");
    assert_tok(&t.v[1], T_IDENT, "$L__BB0_1");
    assert_tok(&t.v[2], T_IDENT, "_Z3fooPf");
    assert_tok(&t.v[3], T_IDENT, "__local_depot0");
    assert_tok(&t.v[4], T_IDENT, "_");
    assert_tok(&t.v[5], T_DOT, "shared::cluster");
    assert_tok(&t.v[6], T_DOT, "L2::128B");
    assert_tok(&t.v[7], T_DOT, "v4");
    tokens_free(&t);
}

static void test_glued_modifiers(void **state)
{
    tokens t = lex_ok("ld.global.u32 %tid.x, %r .x");
    assert_tok(&t.v[0], T_IDENT, "ld");
    assert_false(t.v[1].space_before);
    assert_tok(&t.v[1], T_DOT, "global");
    assert_tok(&t.v[4], T_DOT, "x");
    assert_false(t.v[4].space_before);
    assert_tok(&t.v[7], T_DOT, "x");
    assert_true(t.v[7].space_before);
    tokens_free(&t);
}

static void test_operators_and_comments(void **state)
{
    tokens t = lex_ok("a<<b // line comment\n>>=/* block\n comment */<= >= == != && || @!{}[]();,:|");
    const char *want[] = {"<<", ">>", "=", "<=", ">=", "==", "!=", "&&", "||", "@", "!",
                          "{", "}", "[", "]", "(", ")", ";", ",", ":", "|"};
    assert_tok(&t.v[0], T_IDENT, "a");
    size_t k = 1;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++, k++) {
        if (k == 2)
            k++; /* b */
        assert_tok(&t.v[k], T_PUNCT, want[i]);
    }
    tokens_free(&t);
}

static void test_locations(void **state)
{
    tokens t = lex_ok("a\n  b /* x\n y */ c\n\td");
    assert_int_equal(t.v[0].loc.line, 1);
    assert_int_equal(t.v[0].loc.col, 1);
    assert_int_equal(t.v[1].loc.line, 2);
    assert_int_equal(t.v[1].loc.col, 3);
    assert_int_equal(t.v[2].loc.line, 3);
    assert_int_equal(t.v[2].loc.col, 7);
    assert_int_equal(t.v[3].loc.line, 4);
    assert_int_equal(t.v[3].loc.col, 2);
    tokens_free(&t);
}

static void test_strings(void **state)
{
    tokens t = lex_ok("\"nounroll\" \"a\\\"b\"");
    assert_tok(&t.v[0], T_STRING, "nounroll");
    assert_tok(&t.v[1], T_STRING, "a\\\"b");
    tokens_free(&t);
}

static void test_lexical_errors(void **state)
{
    static const struct { const char *src, *msg; } cases[] = {
        {"99999999999999999999", "does not fit in 64 bits"},
        {"0f3F80", "malformed hexadecimal float"},
        {"0d3FF0", "malformed hexadecimal float"},
        {"09", "malformed number"},
        {"0b102", "malformed number"},
        {"#", "unexpected character '#'"},
        {"\x01", "unexpected byte 0x01"},
        {"\"abc", "unterminated string literal"},
        {"/* abc", "unterminated comment"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tokens t;
        ptx_diags d = {0};
        assert_true(lex_all(cases[i].src, strlen(cases[i].src), &t, &d));
        assert_int_equal(d.n, 1);
        if (!strstr(d.v[0].msg, cases[i].msg))
            fail_msg("'%s': got '%s', want '%s'", cases[i].src, d.v[0].msg, cases[i].msg);
        assert_int_equal(t.v[t.n - 1].kind, T_EOF);
        ptx_diags_free(&d);
        tokens_free(&t);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_4_5_integer_literals),
        cmocka_unit_test(test_4_5_float_literals),
        cmocka_unit_test(test_4_4_identifiers_and_dots),
        cmocka_unit_test(test_glued_modifiers),
        cmocka_unit_test(test_operators_and_comments),
        cmocka_unit_test(test_locations),
        cmocka_unit_test(test_strings),
        cmocka_unit_test(test_lexical_errors),
    };
    return cmocka_run_group_tests_name("lex", tests, NULL, NULL);
}
