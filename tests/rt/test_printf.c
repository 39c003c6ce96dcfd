/* test_printf.c - device printf: the formatter against the host's snprintf
 * (argument buffers built as the CUDA ABI lays them out), the argument
 * walk's bounds (guard page), adversarial formats, and the ordered log. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "printf.h"

/* ---- The CUDA argument buffer, built from the argument types ---- */

typedef struct abuf {
    _Alignas(8) unsigned char b[1024];
    size_t n;
} abuf;

static void ab_put(abuf *a, const void *v, size_t sz)
{
    a->n = (a->n + sz - 1) / sz * sz; /* each argument aligned to its size */
    assert_true(a->n + sz <= sizeof a->b);
    memcpy(a->b + a->n, v, sz);
    a->n += sz;
}
static void put_i32(abuf *a, int32_t v) { ab_put(a, &v, 4); }
static void put_i64(abuf *a, int64_t v) { ab_put(a, &v, 8); }
static void put_f64(abuf *a, double v) { ab_put(a, &v, 8); }
static void put_ptr(abuf *a, const void *p)
{
    uint64_t v = (uint64_t)(uintptr_t)p;
    ab_put(a, &v, 8);
}

static void expect_text(const rt_strbuf *sb, int n, const char *want, size_t wn,
                        const char *fmt, int line)
{
    if (n < 0 || (size_t)n != wn || sb->len != wn || (wn && memcmp(sb->s, want, wn) != 0))
        fail_msg("line %d: format \"%s\": got %d \"%.*s\", want %zu \"%.*s\"", line, fmt, n,
                 (int)sb->len, sb->s ? sb->s : "", wn, (int)wn, want);
}

/* Formats fmt both ways: the host's vsnprintf over the C arguments, and
 * rt_printf_format over the buffer built from them.  sig names each
 * argument's C type (after promotion): i int, u unsigned, L long long,
 * l long, z size_t, d double, p pointer. */
__attribute__((format(printf, 2, 4))) static void check_at(int line, const char *fmt,
                                                          const char *sig, ...)
{
    va_list ap, ref;
    va_start(ap, sig);
    va_copy(ref, ap);
    abuf a = {.n = 0};
    for (const char *c = sig; *c; c++) {
        switch (*c) {
        case 'i': put_i32(&a, va_arg(ap, int)); break;
        case 'u': put_i32(&a, (int32_t)va_arg(ap, unsigned)); break;
        case 'L': put_i64(&a, va_arg(ap, long long)); break;
        case 'l': put_i64(&a, va_arg(ap, long)); break;
        case 'z': put_i64(&a, (int64_t)va_arg(ap, size_t)); break;
        case 'd': put_f64(&a, va_arg(ap, double)); break;
        case 'p': put_ptr(&a, va_arg(ap, void *)); break;
        default: fail_msg("bad signature letter %c", *c);
        }
    }
    va_end(ap);
    static char want[16384];
    int wn = vsnprintf(want, sizeof want, fmt, ref);
    va_end(ref);
    assert_true(wn >= 0 && (size_t)wn < sizeof want);

    rt_strbuf sb = RT_STRBUF_INIT;
    int n = rt_printf_format(&sb, fmt, a.n ? a.b : NULL, a.n);
    expect_text(&sb, n, want, (size_t)wn, fmt, line);

    /* The layout the format implies is exactly the one built here. */
    size_t need = 0;
    assert_int_equal(rt_printf_arg_layout(fmt, &need), strlen(sig));
    assert_int_equal(need, a.n);
    /* One byte short of the last argument: -1 and nothing appended. */
    if (a.n) {
        assert_int_equal(rt_printf_format(&sb, fmt, a.b, a.n - 1), -1);
        assert_int_equal(sb.len, (size_t)wn);
    }
    rt_strbuf_free(&sb);
}
#define CHECK(...) check_at(__LINE__, __VA_ARGS__)
/* For flag combinations that C leaves to the library (and gcc warns about)
 * but glibc defines: passed as a non-literal to skip -Wformat. */
#define CHECK_ODD(fmt, ...)                                                                        \
    do {                                                                                           \
        const char *odd_fmt_ = fmt;                                                                \
        check_at(__LINE__, odd_fmt_, __VA_ARGS__);                                                 \
    } while (0)

/* Formats without host reference: compare with a hand-written result. */
static void expect_at(int line, const char *fmt, const abuf *a, const char *want, size_t wn)
{
    rt_strbuf sb = RT_STRBUF_INIT;
    int n = rt_printf_format(&sb, fmt, a ? a->b : NULL, a ? a->n : 0);
    expect_text(&sb, n, want, wn, fmt, line);
    rt_strbuf_free(&sb);
}
#define EXPECT(fmt, a, want) expect_at(__LINE__, fmt, a, want, strlen(want))

/* ---- Conversions against the host ---- */

static void test_signed_integers(void **state)
{
    (void)state;
    CHECK("%d|%i|%d|%d", "iiii", 0, -1, INT_MAX, INT_MIN);
    CHECK_ODD("[%5d][%-5d][%05d][%+d][% d][%+ d][%+05d]", "iiiiiii", 42, 42, -42, 42, 42, 42, -42);
    CHECK_ODD("[%.3d][%8.3d][%-8.3d][%08.3d][%.0d][%+.0d][% .0d][%5.0d]", "iiiiiiii", 7, -7, 7, 7,
          0, 0, 0, 0);
    CHECK("[%hd][%hhd][%hd][%hhd][%hhi]", "iiiii", 70000, 300, -32769, 200, -129);
    CHECK("[%ld][%lld][%zd][%jd][%td][%li]", "lLzlll", LONG_MIN, LLONG_MAX, (ssize_t)-5,
          (intmax_t)123456789012LL, (ptrdiff_t)-1, 99L);
    CHECK("[%+20lld][%-+20lld][%020lld][%.19lld]", "LLLL", 1LL, -1LL, LLONG_MIN, 1LL);
    CHECK("%ld %ld", "ll", LONG_MIN, LONG_MAX);
}

static void test_unsigned_integers(void **state)
{
    (void)state;
    CHECK("%u %x %X %o", "uuuu", 4294967295u, 0xdeadbeefu, 0xdeadbeefu, 0777u);
    CHECK("[%#x][%#X][%#o][%#x][%#o][%#.0o][%#.0x][%.0o][%#5o][%#.5o]", "uuuuuuuuuu", 255u, 255u,
          8u, 0u, 0u, 0u, 0u, 0u, 1u, 1u);
    CHECK("[%#010x][%#-10x][%010o][%-#10o][%10.4x][%-10.4X]", "uuuuuu", 0xabu, 0xabu, 8u, 8u,
          0xfu, 0xfu);
    CHECK("[%hu][%hhu][%hx][%hhX][%#ho][%hhu]", "uuuuuu", 70000u, 300u, 0x12345678u,
          0x1ffu, 0x10000u, 0xffffffffu);
    CHECK("[%lu][%llx][%#llX][%llo][%zu][%jx][%zx]", "lLLLzlz", (unsigned long)-1L, 0x123456789abcdefLL,
          0xfedcba987654321LL, 01234567012345670LL, (size_t)SIZE_MAX, (uintmax_t)1, (size_t)0x7f);
}

static void test_chars_and_strings(void **state)
{
    (void)state;
    CHECK("[%c][%3c][%-3c][%c]", "iiii", 'a', 'b', 'c', 0xe9);
    CHECK("%c%c%c", "iii", 'x' + 256, 'y', 'z');
    CHECK("[%s][%10s][%-10s][%.2s][%10.2s][%-10.2s][%.0s][%s]", "pppppppp", "hello", "hello",
          "hello", "hello", "hello", "hello", "hello", "");
    const char *volatile nul = NULL; /* volatile: hide the null from -Wformat */
    CHECK("[%s][%8s][%-8s][%.6s][%.5s][%.0s]", "pppppp", nul, nul, nul, nul, nul, nul);
    CHECK("100%% [%%] %s%%", "p", "done");
    /* %c of 0 writes a NUL byte into the text. */
    CHECK("a%cb", "i", 0);
}

static void test_pointers(void **state)
{
    (void)state;
    void *p = (void *)(uintptr_t)0x7ffd1234abcdULL, *q = (void *)(uintptr_t)1;
    void *volatile nil = NULL;
    CHECK_ODD("[%p][%20p][%-20p][%020p][%.16p][%+p][% p][%p]", "pppppppp", p, p, p, p, p, p, p, q);
    CHECK("[%p][%10p][%-10p]", "ppp", nil, nil, nil);
    void *all = (void *)(uintptr_t)UINT64_MAX;
    CHECK("%p", "p", all);
}

static void test_floats(void **state)
{
    (void)state;
    CHECK("%f %F %e %E %g %G %a %A", "dddddddd", 3.14159, 2.5, 12345.678, -0.000123, 1e-5, 1e20,
          1.0, -0.1);
    CHECK("[%10.3f][%-10.3f][%010.3f][%+.2e][% .3g][%#.0f][%#g][%#.3x]", "ddddddd" "u", 3.14159,
          -3.14159, -2.5, 6.02e23, 1.0, 3.0, 1.5, 15u);
    CHECK("[%f][%e][%g][%a][%F][%5.1f][%-8f][%08f]", "dddddddd", INFINITY, -INFINITY, NAN, 0.0,
          -INFINITY, NAN, INFINITY, -INFINITY);
    CHECK("[%.0f][%.0f][%.0f][%.20f][%.17g][%.0e][%.13a]", "ddddddd", 0.5, 1.5, 2.5, 0.1, 0.1,
          15.0, 1.0 / 3.0);
    CHECK("[%g][%g][%g][%e][%a]", "ddddd", 5e-324, 1.7976931348623157e308, -0.0, 2.2250738585072014e-308,
          5e-324);
    CHECK("%lf|%lg", "dd", 1.25, 2.5); /* l: still a double */
    CHECK("%.60f", "d", 1.0 / 3.0);
    /* L: device code has no long double; the buffer holds a double. */
    abuf a = {.n = 0};
    put_f64(&a, 2.5);
    put_f64(&a, -1e10);
    EXPECT("%Lf|%Le", &a, "2.500000|-1.000000e+10");
}

static void test_star_width_and_precision(void **state)
{
    (void)state;
    CHECK("[%*d][%-*d][%*d]", "iiiiii", 6, 42, 6, 42, -6, 42);
    CHECK("[%.*f][%.*f][%.*d][%.*s]", "ididiiip", 2, 3.14159, -1, 3.14159, 5, 42, 3, "abcdef");
    CHECK("[%*.*f][%-*.*e][%*.*s]", "iidiidiip", 12, 4, 2.0, 12, 2, 1234.5, 8, 2, "xyz");
    /* '*' ints are 4-byte slots even before an 8-byte argument. */
    CHECK("%*lld|%.*f|%*p", "iLidip", 25, -7LL, 3, 1.0, 20, (void *)(uintptr_t)0xabc);
}

static void test_mixed_alignment(void **state)
{
    (void)state;
    /* int@0, pad, double@8, int@16, pad, long long@24. */
    CHECK("%d %f %d %lld", "idiL", 1, 2.5, 3, 4LL);
    CHECK("%c%s%hd%p%u%lld%f", "ipipuLd", 'A', "bc", 9, (void *)&state, 5u, -1LL, 0.25);
    CHECK("%hhd %g %x %s %ld %c %e", "iduplid", -1, 0.5, 16u, "s", -9L, '!', 1e9);
    /* Inline layout check: the offsets the ABI gives "%d %f %d %lld". */
    size_t need = 0;
    assert_int_equal(rt_printf_arg_layout("%d %f %d %lld", &need), 4);
    assert_int_equal(need, 32);
    assert_int_equal(rt_printf_arg_layout("%d", &need), 1);
    assert_int_equal(need, 4);
    assert_int_equal(rt_printf_arg_layout("%d%p", &need), 2);
    assert_int_equal(need, 16);
    assert_int_equal(rt_printf_arg_layout("no args %%", &need), 0);
    assert_int_equal(need, 0);
    assert_int_equal(rt_printf_arg_layout(NULL, &need), -1);
}

/* Random specs, each checked against the host's snprintf given the same
 * value; the specs are then run together over one argument buffer. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

static void test_random_specs_vs_host(void **state)
{
    (void)state;
    static const char *const int_lens[] = {"", "hh", "h", "l", "ll", "z", "j", "t"};
    static const char *const strs[] = {"", "a", "hello world", "0123456789abcdef", NULL};
    static const double dbls[] = {0.0, -0.0, 1.0, -1.5, 0.1, 123456.789, 1e300, -1e-300,
                                  5e-324, 1e15, 9.9999e-5, 0.5, INFINITY, -INFINITY};
    for (int iter = 0; iter < 3000; iter++) {
        char fmt_all[512] = "", want_all[16384] = "";
        size_t want_len = 0;
        abuf a = {.n = 0};
        int nspecs = 1 + (int)(rnd() % 4);
        for (int k = 0; k < nspecs; k++) {
            char f[64];
            int fl = 0;
            f[fl++] = '%';
            for (const char *c = "-+ #0"; *c; c++)
                if (rnd() % 4 == 0)
                    f[fl++] = *c;
            int wkind = (int)(rnd() % 3), pkind = (int)(rnd() % 3);
            int wv = (int)(rnd() % 25) - (wkind == 2 ? 12 : 0);
            int pv = (int)(rnd() % 20) - (pkind == 2 ? 5 : 0);
            if (wkind == 1)
                fl += sprintf(f + fl, "%d", wv);
            else if (wkind == 2)
                f[fl++] = '*';
            if (pkind == 1)
                fl += sprintf(f + fl, ".%d", pv < 0 ? 0 : pv);
            else if (pkind == 2)
                fl += sprintf(f + fl, ".*");
            if (pkind == 1 && pv < 0)
                pv = 0;
            int cls = (int)(rnd() % 5);
            char conv;
            const char *len = "";
            if (cls == 0 || cls == 1) {
                conv = "diouxX"[rnd() % 6];
                len = int_lens[rnd() % 8];
            } else if (cls == 2) {
                conv = "fFeEgGaA"[rnd() % 8];
            } else if (cls == 3) {
                conv = "csp"[rnd() % 3];
            } else {
                conv = "fegdx"[rnd() % 5];
            }
            fl += sprintf(f + fl, "%s%c", len, conv);
            f[fl] = '\0';

            if (wkind == 2)
                put_i32(&a, wv);
            if (pkind == 2)
                put_i32(&a, pv);
            /* The value, and the host's rendering of this one spec. */
            char one[8192];
            int n1;
            int nstar = (wkind == 2) + (pkind == 2);
            int s0 = wkind == 2 ? wv : pv, s1 = pv;
#define HOST(v)                                                                                    \
    (nstar == 0   ? snprintf(one, sizeof one, f, v)                                                \
     : nstar == 1 ? snprintf(one, sizeof one, f, s0, v)                                            \
                  : snprintf(one, sizeof one, f, s0, s1, v))
            if (strchr("diouxX", conv)) {
                bool wide = len[0] == 'l' || len[0] == 'z' || len[0] == 'j' || len[0] == 't';
                uint64_t bits = rnd();
                int sh = (int)(rnd() % 64);
                bits >>= sh; /* small and large magnitudes */
                if (rnd() % 2)
                    bits = ~bits;
                if (wide) {
                    put_i64(&a, (int64_t)bits);
                    n1 = HOST((long long)bits);
                } else {
                    put_i32(&a, (int32_t)(uint32_t)bits);
                    n1 = HOST((int)(uint32_t)bits);
                }
            } else if (strchr("fFeEgGaA", conv)) {
                double d;
                if (rnd() % 2) {
                    d = dbls[rnd() % (sizeof dbls / sizeof dbls[0])];
                } else {
                    uint64_t bits = rnd();
                    memcpy(&d, &bits, sizeof d);
                }
                put_f64(&a, d);
                n1 = HOST(d);
            } else if (conv == 'c') {
                int c = (int)(rnd() % 256);
                put_i32(&a, c);
                n1 = HOST(c);
            } else if (conv == 's') {
                const char *s = strs[rnd() % 5];
                put_ptr(&a, s);
                n1 = HOST(s);
            } else {
                void *p = (void *)(uintptr_t)(rnd() % 3 == 0 ? 0 : rnd() >> (rnd() % 64));
                put_ptr(&a, p);
                n1 = HOST(p);
            }
#undef HOST
            assert_true(n1 >= 0 && (size_t)n1 < sizeof one);
            char sep[16];
            int sl = snprintf(sep, sizeof sep, "<%d>", k);
            assert_true(want_len + (size_t)n1 + (size_t)sl < sizeof want_all);
            memcpy(want_all + want_len, one, (size_t)n1);
            want_len += (size_t)n1;
            memcpy(want_all + want_len, sep, (size_t)sl);
            want_len += (size_t)sl;
            strcat(fmt_all, f);
            strcat(fmt_all, sep);
        }
        rt_strbuf sb = RT_STRBUF_INIT;
        int n = rt_printf_format(&sb, fmt_all, a.b, a.n);
        expect_text(&sb, n, want_all, want_len, fmt_all, __LINE__);
        size_t need = 0;
        rt_printf_arg_layout(fmt_all, &need);
        assert_int_equal(need, a.n);
        rt_strbuf_free(&sb);
    }
}

/* ---- Buffers, bounds and adversarial formats ---- */

static void test_no_arguments(void **state)
{
    (void)state;
    EXPECT("hello, world\n", NULL, "hello, world\n");
    EXPECT("100%% sure", NULL, "100% sure");
    EXPECT("", NULL, "");
    /* A conversion with no buffer: -1. */
    rt_strbuf sb = RT_STRBUF_INIT;
    assert_int_equal(rt_printf_format(&sb, "%d", NULL, 0), -1);
    assert_int_equal(rt_printf_format(&sb, "%d", NULL, SIZE_MAX), -1);
    assert_int_equal(sb.len, 0);
    assert_int_equal(rt_printf_format(NULL, "x", NULL, 0), -1);
    assert_int_equal(rt_printf_format(&sb, NULL, NULL, 0), -1);
    /* Appends, returning only what this call added. */
    assert_int_equal(rt_printf_format(&sb, "abc", NULL, 0), 3);
    assert_int_equal(rt_printf_format(&sb, "de", NULL, 0), 2);
    assert_string_equal(sb.s, "abcde");
    assert_int_equal(sb.len, 5);
    rt_strbuf_clear(&sb);
    assert_int_equal(sb.len, 0);
    assert_string_equal(sb.s, "");
    rt_strbuf_free(&sb);
    rt_strbuf_free(&sb); /* idempotent */
}

static void test_truncated_buffer_at_guard_page(void **state)
{
    (void)state;
    long pg = sysconf(_SC_PAGESIZE);
    unsigned char *m = mmap(NULL, (size_t)pg * 2, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(m != MAP_FAILED);
    assert_int_equal(mprotect(m + pg, (size_t)pg, PROT_NONE), 0);
    unsigned char *end = m + pg; /* first byte that faults */

    const char *fmt = "%d %f %d %lld";
    abuf a = {.n = 0};
    put_i32(&a, -7);
    put_f64(&a, 0.5);
    put_i32(&a, 9);
    put_i64(&a, 1LL << 40);
    assert_int_equal(a.n, 32);

    rt_strbuf sb = RT_STRBUF_INIT;
    assert_int_equal(rt_strbuf_append(&sb, "keep:", 5), 0);
    /* Exactly enough bytes, ending at the guard page: formats. */
    memcpy(end - 32, a.b, 32);
    assert_int_equal(rt_printf_format(&sb, fmt, end - 32, 32), 27);
    assert_string_equal(sb.s, "keep:-7 0.500000 9 1099511627776");
    /* Every shorter buffer, also ending at the guard page: -1, nothing
     * appended, and no read past the end (it would fault). */
    for (size_t k = 0; k < 32; k++) {
        rt_strbuf_clear(&sb);
        assert_int_equal(rt_strbuf_append(&sb, "keep:", 5), 0);
        memcpy(end - k, a.b, k);
        assert_int_equal(rt_printf_format(&sb, fmt, end - k, k), -1);
        assert_int_equal(sb.len, 5);
        assert_string_equal(sb.s, "keep:");
    }
    /* A %s precision bounds the read of an unterminated string. */
    memcpy(end - 5, "abcde", 5);
    abuf s3 = {.n = 0};
    put_ptr(&s3, end - 5);
    put_ptr(&s3, end - 5);
    put_ptr(&s3, end - 5);
    EXPECT("[%.5s][%8.5s][%-7.3s]", &s3, "[abcde][   abcde][abc    ]");
    rt_strbuf_free(&sb);
    munmap(m, (size_t)pg * 2);
}

static void test_adversarial_formats(void **state)
{
    (void)state;
    abuf a = {.n = 0};
    put_i32(&a, 7);
    /* Incomplete specs at the end print as they stand and consume nothing. */
    EXPECT("%", NULL, "%");
    EXPECT("abc%", NULL, "abc%");
    EXPECT("%5", NULL, "%5");
    EXPECT("%-08.3", NULL, "%-08.3");
    EXPECT("%.*", NULL, "%.*");
    EXPECT("%ll", NULL, "%ll");
    EXPECT("%d%", &a, "7%");
    /* Unknown conversions print as they stand; the next one gets the arg. */
    EXPECT("%y", NULL, "%y");
    EXPECT("%5k|%d", &a, "%5k|7");
    EXPECT("%1$d", NULL, "%1$d");
    EXPECT("%m%b", NULL, "%m%b");
    EXPECT("%5%|%-5%|%%", NULL, "%|%|%");

    /* Huge widths and precisions are clamped to RT_PRINTF_MAX_FIELD. */
    rt_strbuf sb = RT_STRBUF_INIT;
    assert_int_equal(rt_printf_format(&sb, "%999999999d", a.b, a.n), RT_PRINTF_MAX_FIELD);
    assert_int_equal(sb.s[RT_PRINTF_MAX_FIELD - 1], '7');
    assert_int_equal(sb.s[0], ' ');
    rt_strbuf_clear(&sb);
    assert_int_equal(rt_printf_format(&sb, "%99999999999999999999d", a.b, a.n),
                     RT_PRINTF_MAX_FIELD);
    rt_strbuf_clear(&sb);
    assert_int_equal(rt_printf_format(&sb, "%.999999999d", a.b, a.n), RT_PRINTF_MAX_FIELD);
    assert_int_equal(sb.s[0], '0');
    rt_strbuf_clear(&sb);
    /* Under the clamp, identical to the host. */
    CHECK("%4096d|%-4000x|%.4096d", "iui", 1, 2u, 3);

    abuf w = {.n = 0};
    put_i32(&w, INT_MAX);
    put_i32(&w, 5);
    assert_int_equal(rt_printf_format(&sb, "%*d", w.b, w.n), RT_PRINTF_MAX_FIELD);
    rt_strbuf_clear(&sb);
    abuf wm = {.n = 0};
    put_i32(&wm, INT_MIN); /* negative: left-justified, magnitude clamped */
    put_i32(&wm, 5);
    assert_int_equal(rt_printf_format(&sb, "%*d", wm.b, wm.n), RT_PRINTF_MAX_FIELD);
    assert_int_equal(sb.s[0], '5');
    assert_int_equal(sb.s[RT_PRINTF_MAX_FIELD - 1], ' ');
    rt_strbuf_clear(&sb);
    abuf pf = {.n = 0};
    put_i32(&pf, INT_MAX);
    put_f64(&pf, 1.0);
    assert_int_equal(rt_printf_format(&sb, "%.*f", pf.b, pf.n), 2 + RT_PRINTF_MAX_FIELD);
    assert_memory_equal(sb.s, "1.000", 5);
    rt_strbuf_clear(&sb);
    abuf pe = {.n = 0};
    put_f64(&pe, 1e300);
    assert_true(rt_printf_format(&sb, "%999999999.999999999f", pe.b, pe.n) <=
                RT_PRINTF_MAX_FIELD + 302);
    rt_strbuf_free(&sb);
}

static void test_percent_n_is_skipped(void **state)
{
    (void)state;
    int sentinel = 12345;
    abuf a = {.n = 0};
    put_i32(&a, 1);
    put_ptr(&a, &sentinel); /* the %n slot: an 8-byte pointer, never written */
    put_i32(&a, 2);
    EXPECT("a%db%nc%d", &a, "a1bc2");
    assert_int_equal(sentinel, 12345);
    size_t need = 0;
    assert_int_equal(rt_printf_arg_layout("a%db%nc%d", &need), 3);
    assert_int_equal(need, 20);
    abuf b = {.n = 0};
    put_ptr(&b, &sentinel);
    put_ptr(&b, &sentinel);
    EXPECT("%hhn%lln|", &b, "|");
    assert_int_equal(sentinel, 12345);
}

static void test_argument_limit_of_32(void **state)
{
    (void)state;
    char fmt[256] = "", want[256] = "";
    abuf a = {.n = 0};
    for (int i = 0; i < 33; i++) {
        strcat(fmt, "%d,");
        put_i32(&a, i);
        if (i < 32)
            sprintf(want + strlen(want), "%d,", i);
    }
    strcat(want, "%d,"); /* the 33rd is printed as it stands */
    EXPECT(fmt, &a, want);
    size_t need = 0;
    assert_int_equal(rt_printf_arg_layout(fmt, &need), 32);
    assert_int_equal(need, 128);
    /* '*' counts as an argument; %% never does. */
    char f2[256] = "";
    abuf b = {.n = 0};
    for (int i = 0; i < 31; i++) {
        strcat(f2, "%d");
        put_i32(&b, 1);
    }
    strcat(f2, "%%%*d|%d");
    put_i32(&b, 1);
    char w2[64];
    memset(w2, '1', 31);
    strcpy(w2 + 31, "%%*d|1");
    EXPECT(f2, &b, w2);
}

static void test_wide_chars(void **state)
{
    (void)state;
    static const uint32_t ws[] = {'h', 'i', 0x263a, '!', 0};
    abuf a = {.n = 0};
    put_i32(&a, 'A');
    put_i32(&a, 0x263a);
    put_ptr(&a, ws);
    put_ptr(&a, ws);
    put_ptr(&a, NULL);
    EXPECT("%lc%C|%ls|%6.2S|%ls", &a, "A?|hi?!|    hi|(null)");
}

/* ---- The ordered log ---- */

static char *flush_to_string(rt_printf_log *log, size_t *written, size_t *len)
{
    char *s = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&s, &n);
    assert_non_null(f);
    *written = rt_printf_log_flush(log, f);
    fclose(f);
    *len = n;
    return s;
}

typedef struct item {
    uint32_t cta, thread, seq;
    char text[40];
} item;

typedef struct worker_arg {
    rt_printf_log *log;
    const item *items;
    const size_t *order;
    size_t n, start, step;
} worker_arg;

static void *worker(void *p)
{
    worker_arg *w = p;
    for (size_t i = w->start; i < w->n; i += w->step) {
        const item *it = &w->items[w->order[i]];
        rt_printf_log_add(w->log, it->cta, it->thread, it->seq, it->text, strlen(it->text));
    }
    return NULL;
}

enum { NCTA = 6, NTHR = 40, NSEQ = 3, NITEMS = NCTA * NTHR * NSEQ };

/* Items in sorted order (the expected flush order), varied lengths. */
static item *make_items(void)
{
    item *v = calloc(NITEMS, sizeof *v);
    assert_non_null(v);
    size_t k = 0;
    for (uint32_t c = 0; c < NCTA; c++)
        for (uint32_t t = 0; t < NTHR; t++)
            for (uint32_t s = 0; s < NSEQ; s++, k++) {
                v[k].cta = c * 1000; /* sparse cta ids */
                v[k].thread = t;
                v[k].seq = s;
                snprintf(v[k].text, sizeof v[k].text, "cta %u thread %u seq %u%.*s\n", c * 1000, t,
                         s, (int)(k % 7), "+++++++");
            }
    return v;
}

/* Adds all items from 4 threads, in an order scrambled by seed. */
static void add_scrambled(rt_printf_log *log, const item *items, uint64_t seed)
{
    size_t order[NITEMS];
    for (size_t i = 0; i < NITEMS; i++)
        order[i] = i;
    rng_state = seed;
    for (size_t i = NITEMS - 1; i > 0; i--) {
        size_t j = rnd() % (i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    pthread_t th[4];
    worker_arg wa[4];
    for (size_t t = 0; t < 4; t++) {
        wa[t] = (worker_arg){log, items, order, NITEMS, t, 4};
        assert_int_equal(pthread_create(&th[t], NULL, worker, &wa[t]), 0);
    }
    for (int t = 0; t < 4; t++)
        pthread_join(th[t], NULL);
}

static void test_log_sorted_from_threads(void **state)
{
    (void)state;
    item *items = make_items();
    char *want = malloc(NITEMS * sizeof items[0].text);
    size_t wl = 0;
    for (size_t i = 0; i < NITEMS; i++) {
        size_t l = strlen(items[i].text);
        memcpy(want + wl, items[i].text, l);
        wl += l;
    }
    rt_printf_log *log = rt_printf_log_create();
    assert_non_null(log);
    assert_int_equal(rt_printf_log_limit(log), RT_PRINTF_DEFAULT_LIMIT);
    for (uint64_t seed = 1; seed <= 4; seed++) {
        add_scrambled(log, items, seed * 0x12345ULL);
        assert_int_equal(rt_printf_log_buffered(log), wl);
        size_t written, len;
        char *got = flush_to_string(log, &written, &len);
        assert_int_equal(written, wl);
        assert_int_equal(len, wl);
        assert_memory_equal(got, want, wl);
        free(got);
        assert_int_equal(rt_printf_log_buffered(log), 0);
    }
    assert_int_equal(rt_printf_log_dropped(log), 0);
    rt_printf_log_destroy(log);
    free(want);
    free(items);
}

static void test_log_flush_empty(void **state)
{
    (void)state;
    rt_printf_log *log = rt_printf_log_create();
    size_t written, len;
    char *got = flush_to_string(log, &written, &len);
    assert_int_equal(written, 0);
    assert_int_equal(len, 0);
    free(got);
    /* Empty records are neither stored nor dropped. */
    rt_printf_log_add(log, 0, 0, 0, "", 0);
    assert_int_equal(rt_printf_log_flush(log, NULL), 0);
    assert_int_equal(rt_printf_log_dropped(log), 0);
    /* NULL output discards. */
    rt_printf_log_add(log, 0, 0, 0, "x", 1);
    assert_int_equal(rt_printf_log_buffered(log), 1);
    assert_int_equal(rt_printf_log_flush(log, NULL), 0);
    assert_int_equal(rt_printf_log_buffered(log), 0);
    got = flush_to_string(log, &written, &len);
    assert_int_equal(written, 0);
    free(got);
    rt_printf_log_destroy(log);
    rt_printf_log_destroy(NULL);
}

static void test_log_limit_and_drops(void **state)
{
    (void)state;
    rt_printf_log *log = rt_printf_log_create();
    rt_printf_log_set_limit(log, 10);
    assert_int_equal(rt_printf_log_limit(log), 10);
    /* Text with embedded NULs is kept byte for byte. */
    rt_printf_log_add(log, 3, 0, 0, "cc\0c", 4);
    rt_printf_log_add(log, 1, 0, 0, "aaaa", 4);
    rt_printf_log_add(log, 2, 0, 0, "bbbb", 4); /* evicts cta 3: keeps the prefix */
    rt_printf_log_add(log, 4, 0, 0, "d", 1);    /* after the evicted one: dropped */
    rt_printf_log_add(log, 0, 0, 0, "too long for it", 15); /* alone over the cap */
    rt_printf_log_add(log, 0, 5, 0, "e", 1);    /* fits, sorts first */
    assert_int_equal(rt_printf_log_dropped(log), 3);
    assert_int_equal(rt_printf_log_buffered(log), 9);
    size_t written, len;
    char *got = flush_to_string(log, &written, &len);
    assert_int_equal(written, 9);
    assert_int_equal(len, 9);
    assert_memory_equal(got, "eaaaabbbb", 9);
    free(got);
    /* After a flush the cap is available again and the cutoff is gone. */
    rt_printf_log_add(log, 9, 0, 0, "0123456789", 10);
    rt_printf_log_add(log, 9, 0, 1, "x", 1);
    assert_int_equal(rt_printf_log_dropped(log), 4);
    got = flush_to_string(log, &written, &len);
    assert_int_equal(written, 10);
    free(got);
    /* Limit 0 drops everything. */
    rt_printf_log_set_limit(log, 0);
    rt_printf_log_add(log, 0, 0, 0, "x", 1);
    assert_int_equal(rt_printf_log_dropped(log), 5);
    assert_int_equal(rt_printf_log_flush(log, NULL), 0);
    rt_printf_log_destroy(log);
}

/* Over the cap, from scrambled threads: the output is still the longest
 * sorted prefix that fits, and the drop count is the rest. */
static void test_log_overflow_is_deterministic(void **state)
{
    (void)state;
    item *items = make_items();
    size_t limit = 3000, prefix = 0, kept = 0;
    while (kept < NITEMS && prefix + strlen(items[kept].text) <= limit)
        prefix += strlen(items[kept++].text);
    assert_true(kept > 10 && kept < NITEMS);
    rt_printf_log *log = rt_printf_log_create();
    uint64_t dropped_before = 0;
    for (uint64_t seed = 1; seed <= 6; seed++) {
        rt_printf_log_set_limit(log, limit);
        add_scrambled(log, items, seed * 0x9876543ULL);
        assert_int_equal(rt_printf_log_dropped(log) - dropped_before, NITEMS - kept);
        dropped_before = rt_printf_log_dropped(log);
        size_t written, len;
        char *got = flush_to_string(log, &written, &len);
        assert_int_equal(written, prefix);
        size_t off = 0;
        for (size_t i = 0; i < kept; i++) {
            size_t l = strlen(items[i].text);
            assert_memory_equal(got + off, items[i].text, l);
            off += l;
        }
        free(got);
    }
    rt_printf_log_destroy(log);
    free(items);
}

static void test_log_vprintf(void **state)
{
    (void)state;
    rt_printf_log *log = rt_printf_log_create();
    abuf a = {.n = 0};
    put_i32(&a, 2);
    put_f64(&a, 0.5);
    assert_int_equal(rt_printf_log_vprintf(log, 1, 0, 0, "t%d %.1f\n", a.b), 2);
    assert_int_equal(rt_printf_log_vprintf(log, 0, 3, 0, "hi\n", NULL), 0);
    assert_int_equal(rt_printf_log_vprintf(log, 0, 3, 1, NULL, NULL), -1);
    size_t written, len;
    char *got = flush_to_string(log, &written, &len);
    assert_int_equal(len, 10);
    assert_memory_equal(got, "hi\nt2 0.5\n", 10);
    free(got);
    rt_printf_log_destroy(log);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_signed_integers),
        cmocka_unit_test(test_unsigned_integers),
        cmocka_unit_test(test_chars_and_strings),
        cmocka_unit_test(test_pointers),
        cmocka_unit_test(test_floats),
        cmocka_unit_test(test_star_width_and_precision),
        cmocka_unit_test(test_mixed_alignment),
        cmocka_unit_test(test_random_specs_vs_host),
        cmocka_unit_test(test_no_arguments),
        cmocka_unit_test(test_truncated_buffer_at_guard_page),
        cmocka_unit_test(test_adversarial_formats),
        cmocka_unit_test(test_percent_n_is_skipped),
        cmocka_unit_test(test_argument_limit_of_32),
        cmocka_unit_test(test_wide_chars),
        cmocka_unit_test(test_log_sorted_from_threads),
        cmocka_unit_test(test_log_flush_empty),
        cmocka_unit_test(test_log_limit_and_drops),
        cmocka_unit_test(test_log_overflow_is_deterministic),
        cmocka_unit_test(test_log_vprintf),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
