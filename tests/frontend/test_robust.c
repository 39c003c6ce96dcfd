/* test_robust.c - hostile input: the frontend reports errors and returns;
 * it never crashes, hangs or grows without bound (deep nesting, huge
 * numbers, truncation, NUL bytes, very long lines, random bytes). */
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

#define HDR ".version 8.5\n.target sm_80\n.address_size 64\n"

/* Parses and checks; returns the first diagnostic's text (static) or "". */
static const char *first_error(const char *src, size_t len, uint32_t *count)
{
    static char msg[512];
    ptx_diags d = {0};
    ptx_module *m = ptx_parse(src, len, "r.ptx", &d);
    assert_non_null(m);
    if (d.n == 0)
        ptx_check(m, &d);
    snprintf(msg, sizeof msg, "%s", d.n ? d.v[0].msg : "");
    if (count)
        *count = d.n;
    ptx_diags_free(&d);
    ptx_module_free(m);
    return msg;
}

static char *repeat(const char *head, const char *unit, size_t times, const char *tail)
{
    size_t hl = strlen(head), ul = strlen(unit), tl = strlen(tail);
    char *s = malloc(hl + ul * times + tl + 1), *p = s;
    memcpy(p, head, hl), p += hl;
    for (size_t i = 0; i < times; i++)
        memcpy(p, unit, ul), p += ul;
    memcpy(p, tail, tl + 1);
    return s;
}

static void test_deep_scopes(void **state)
{
    char *s = repeat(HDR ".entry k() {", "{", 100000, "");
    assert_non_null(strstr(first_error(s, strlen(s), NULL), "nested too deeply"));
    free(s);
}

static void test_deep_expression(void **state)
{
    char *s = repeat(HDR ".entry k() { .reg .b32 %r; mov.u32 %r, ", "(", 100000, "1");
    assert_non_null(strstr(first_error(s, strlen(s), NULL), "nested too deeply"));
    free(s);
    s = repeat(HDR ".entry k() { .reg .b32 %r; mov.u32 %r, ", "-", 100000, "1;}");
    assert_non_null(strstr(first_error(s, strlen(s), NULL), "nested too deeply"));
    free(s);
}

static void test_deep_initializer(void **state)
{
    char *s = repeat(HDR ".global .u32 g[1] = ", "{", 100000, "");
    assert_non_null(strstr(first_error(s, strlen(s), NULL), "nested too deeply"));
    free(s);
}

static void test_huge_numbers(void **state)
{
    const char *s = HDR ".global .u32 g = 123456789012345678901234567890;\n";
    assert_non_null(strstr(first_error(s, strlen(s), NULL), "does not fit in 64 bits"));
    s = HDR ".global .u32 g[99999999999999];\n";
    assert_non_null(strstr(first_error(s, strlen(s), NULL), "too large"));
    s = HDR ".entry k() { .reg .b32 %r<99999999999>; }\n";
    assert_non_null(strstr(first_error(s, strlen(s), NULL), "register count"));
    s = HDR ".global .f64 g = 1e999999;\n"; /* overflows to inf: accepted like C */
    first_error(s, strlen(s), NULL);
}

static void test_nul_bytes(void **state)
{
    char s[] = HDR ".entry k() { ret;\0 }\n";
    uint32_t n;
    assert_non_null(strstr(first_error(s, sizeof s - 1, &n), "unexpected byte 0x00"));
}

static void test_long_line(void **state)
{
    char *s = repeat(HDR ".entry k() { .reg .b32 %", "x", 100000, "; ret; }\n");
    uint32_t n;
    assert_string_equal(first_error(s, strlen(s), &n), "");
    free(s);
    s = repeat(HDR ".entry k() { bra ", "L", 100000, "; }\n");
    const char *msg = first_error(s, strlen(s), &n);
    assert_true(n == 1 && strlen(msg) < 512); /* messages stay short */
    free(s);
}

static void test_truncated_files(void **state)
{
    size_t len;
    char *src = tu_read_file(PTXJIT_TEST_DIR "/ptx/corpus/ptxjit-features.hand.ptx", &len);
    if (!src)
        skip();
    /* Every cut point in the first 4 KiB, then a sample of the rest. */
    for (size_t cut = 0; cut < len; cut += cut < 4096 ? 1 : 97)
        first_error(src, cut, NULL);
    free(src);
}

static void test_random_bytes_and_mutations(void **state)
{
    uint64_t x = 0x9E3779B97F4A7C15ull;
    size_t n = 1 << 20;
    char *buf = malloc(n);
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        buf[i] = (char)(x >> 32);
    }
    uint32_t count;
    first_error(buf, n, &count);
    assert_true(count > 0 && count <= PTX_MAX_DIAGS);
    free(buf);
    size_t len;
    char *src = tu_read_file(PTXJIT_TEST_DIR "/ptx/corpus/ptxjit-features.hand.ptx", &len);
    if (!src)
        skip();
    static const char junk[] = "{}[]();,.%@!<>0fx_$\"\n\0";
    for (int round = 0; round < 400; round++) {
        char *m = malloc(len);
        memcpy(m, src, len);
        for (int k = 0; k < 4; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            m[x % len] = junk[(x >> 40) % (sizeof junk - 1)];
        }
        first_error(m, len, NULL);
        free(m);
    }
    free(src);
}

static void parse_one(const char *path, void *ctx)
{
    size_t len;
    char *src = tu_read_file(path, &len);
    assert_non_null(src);
    first_error(src, len, NULL);
    free(src);
    (*(int *)ctx)++;
}

/* Inputs that once crashed or hung the parser, found by tests/fuzz. */
static void test_fuzz_regressions(void **state)
{
    int n = 0;
    tu_for_each_file(PTXJIT_TEST_DIR "/ptx/fuzz-regressions", ".ptx", parse_one, &n);
    print_message("parsed %d fuzz regression inputs\n", n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deep_scopes),
        cmocka_unit_test(test_deep_expression),
        cmocka_unit_test(test_deep_initializer),
        cmocka_unit_test(test_huge_numbers),
        cmocka_unit_test(test_nul_bytes),
        cmocka_unit_test(test_long_line),
        cmocka_unit_test(test_truncated_files),
        cmocka_unit_test(test_random_bytes_and_mutations),
        cmocka_unit_test(test_fuzz_regressions),
    };
    return cmocka_run_group_tests_name("robust", tests, NULL, NULL);
}
