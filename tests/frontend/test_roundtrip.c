/* test_roundtrip.c - every PTX file of the corpus (tests/ptx/corpus: nvcc
 * and clang output, hand-written producer styles) parses and checks
 * cleanly, prints, re-parses to an equal IR, and printing is a fixpoint. */
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

typedef struct stats {
    int files, failures;
} stats;

static ptx_module *parse_clean(const char *src, size_t len, const char *name, stats *st)
{
    ptx_diags d = {0};
    ptx_module *m = ptx_parse(src, len, name, &d);
    if (m && d.n == 0)
        ptx_check(m, &d);
    if (!m || d.n) {
        ptx_diags_print(&d, name, src, len, stderr);
        st->failures++;
        ptx_module_free(m);
        m = NULL;
    }
    ptx_diags_free(&d);
    return m;
}

static void roundtrip(const char *path, void *ctx)
{
    stats *st = ctx;
    size_t len;
    char *src = tu_read_file(path, &len);
    assert_non_null(src);
    st->files++;
    ptx_module *a = parse_clean(src, len, path, st);
    char *text = a ? ptx_print(a) : NULL;
    ptx_module *b = text ? parse_clean(text, strlen(text), "<printed>", st) : NULL;
    if (b) {
        char why[200];
        if (!ptx_module_equal(a, b, why, sizeof why)) {
            print_error("%s: re-parsed IR differs: %s\n", path, why);
            st->failures++;
        }
        char *again = ptx_print(b);
        if (!again || strcmp(again, text) != 0) {
            print_error("%s: printing is not a fixpoint\n", path);
            st->failures++;
        }
        free(again);
    }
    ptx_module_free(a);
    ptx_module_free(b);
    free(text);
    free(src);
}

static void test_corpus_roundtrip(void **state)
{
    stats st = {0};
    tu_for_each_file(PTXJIT_TEST_DIR "/ptx/corpus", ".ptx", roundtrip, &st);
    print_message("round-tripped %d corpus files\n", st.files);
    assert_true(st.files > 0);
    assert_int_equal(st.failures, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corpus_roundtrip),
    };
    return cmocka_run_group_tests_name("roundtrip", tests, NULL, NULL);
}
