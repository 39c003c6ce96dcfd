/* test_check.c - diagnostics.  Each tests/ptx/check/<area>-<case>.ptx lists
 * the errors it must produce in comments of the form
 *     //! LINE:COL: message text
 * and the frontend must report exactly those (same positions, each message
 * containing the text), no more.  A file without //! lines must be clean. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ptx.h"
#include "test_util.h"

typedef struct expect {
    unsigned line, col;
    char text[200];
    bool seen;
} expect;

static size_t read_expectations(const char *src, expect *e, size_t max)
{
    size_t n = 0;
    for (const char *p = strstr(src, "//!"); p && n < max; p = strstr(p + 3, "//!")) {
        int used = 0;
        if (sscanf(p + 3, " %u:%u: %n", &e[n].line, &e[n].col, &used) < 2)
            continue;
        const char *t = p + 3 + used, *end = strchr(t, '\n');
        size_t len = end ? (size_t)(end - t) : strlen(t);
        if (len >= sizeof e[n].text)
            len = sizeof e[n].text - 1;
        memcpy(e[n].text, t, len);
        e[n].text[len] = 0;
        e[n].seen = false;
        n++;
    }
    return n;
}

static void check_file(const char *path, void *ctx)
{
    int *failures = ctx;
    size_t len;
    char *src = tu_read_file(path, &len);
    assert_non_null(src);
    expect exp[64];
    size_t nexp = read_expectations(src, exp, 64);
    ptx_diags d = {0};
    ptx_module *m = ptx_parse(src, len, path, &d);
    assert_non_null(m);
    if (d.n == 0)
        ptx_check(m, &d);
    for (uint32_t i = 0; i < d.n; i++) {
        bool matched = false;
        for (size_t k = 0; k < nexp && !matched; k++)
            if (!exp[k].seen && exp[k].line == d.v[i].loc.line && exp[k].col == d.v[i].loc.col &&
                strstr(d.v[i].msg, exp[k].text)) {
                exp[k].seen = matched = true;
            }
        if (!matched) {
            print_error("%s:%u:%u: unexpected diagnostic: %s\n", path, d.v[i].loc.line,
                        d.v[i].loc.col, d.v[i].msg);
            (*failures)++;
        }
    }
    for (size_t k = 0; k < nexp; k++)
        if (!exp[k].seen) {
            print_error("%s:%u:%u: expected diagnostic not reported: %s\n", path, exp[k].line,
                        exp[k].col, exp[k].text);
            (*failures)++;
        }
    ptx_diags_free(&d);
    ptx_module_free(m);
    free(src);
}

static void test_check_corpus(void **state)
{
    int failures = 0;
    size_t n = tu_for_each_file(PTXJIT_TEST_DIR "/ptx/check", ".ptx", check_file, &failures);
    assert_true(n >= 10);
    assert_int_equal(failures, 0);
}

/* Diagnostics are capped, so pathological input cannot flood memory. */
static void test_diagnostics_are_bounded(void **state)
{
    size_t n = 100000;
    char *src = malloc(n);
    memset(src, '#', n);
    ptx_diags d = {0};
    ptx_module *m = ptx_parse(src, n, "hash.ptx", &d);
    assert_non_null(m);
    assert_int_equal(d.n, PTX_MAX_DIAGS);
    assert_true(d.dropped > 0);
    ptx_diags_free(&d);
    ptx_module_free(m);
    free(src);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check_corpus),
        cmocka_unit_test(test_diagnostics_are_bounded),
    };
    return cmocka_run_group_tests_name("check", tests, NULL, NULL);
}
