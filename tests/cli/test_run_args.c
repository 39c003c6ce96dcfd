/* test_run_args.c - the `ptxjit run` argument/buffer layer (cli/run_args.h)
 * and the f16/bf16 conversions (cli/half.h).  Expected bit patterns are
 * worked out by hand from the IEEE 754 binary16 / bfloat16 layouts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "half.h"
#include "ptxjit/ptxjit.h"
#include "run_args.h"

/* ---- helpers ---- */

static char errbuf[1024];

static uint64_t scalar_ok(runargs_type t, const char *v)
{
    uint64_t bits = 0xdeadbeef;
    errbuf[0] = 0;
    if (runargs_parse_scalar(t, v, &bits, errbuf, sizeof errbuf) != 0)
        fail_msg("%s '%s' rejected: %s", runargs_type_name(t), v, errbuf);
    return bits;
}

static void scalar_bad(runargs_type t, const char *v)
{
    uint64_t bits = 0;
    errbuf[0] = 0;
    if (runargs_parse_scalar(t, v, &bits, errbuf, sizeof errbuf) == 0)
        fail_msg("%s '%s' accepted as 0x%llx", runargs_type_name(t), v, (unsigned long long)bits);
    assert_true(errbuf[0] != 0);
}

static void arg_ok(const char *spec, size_t index, runargs_arg *a)
{
    errbuf[0] = 0;
    if (runargs_parse_arg(spec, index, a, errbuf, sizeof errbuf) != 0)
        fail_msg("--arg %s rejected: %s", spec, errbuf);
}

/* Parses spec, expecting failure with exactly `want`. */
static void arg_err(const char *spec, const char *want)
{
    runargs_arg a;
    errbuf[0] = 0;
    if (runargs_parse_arg(spec, 0, &a, errbuf, sizeof errbuf) == 0) {
        runargs_free(&a);
        fail_msg("--arg %s accepted", spec);
    }
    if (want)
        assert_string_equal(errbuf, want);
    else
        assert_true(errbuf[0] != 0);
}

/* Parses and materializes a buffer spec. */
static void buf_ok(const char *spec, runargs_arg *a)
{
    arg_ok(spec, 0, a);
    assert_true(a->is_buffer);
    if (runargs_materialize(a, errbuf, sizeof errbuf) != 0)
        fail_msg("materialize %s: %s", spec, errbuf);
    assert_non_null(a->data);
    assert_int_equal((uintptr_t)a->data % RUNARGS_BUFFER_ALIGN, 0);
}

static uint16_t u16_at(const runargs_arg *a, size_t i)
{
    uint16_t v;
    memcpy(&v, (const char *)a->data + 2 * i, 2);
    return v;
}

static uint32_t u32_at(const runargs_arg *a, size_t i)
{
    uint32_t v;
    memcpy(&v, (const char *)a->data + 4 * i, 4);
    return v;
}

static uint64_t u64_at(const runargs_arg *a, size_t i)
{
    uint64_t v;
    memcpy(&v, (const char *)a->data + 8 * i, 8);
    return v;
}

static uint64_t f64bits(double d)
{
    uint64_t b;
    memcpy(&b, &d, 8);
    return b;
}

static uint32_t f32bits(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}

static float f32of(uint32_t b)
{
    float f;
    memcpy(&f, &b, 4);
    return f;
}

static char *temp_file(const void *data, size_t n)
{
    char *path = strdup("/tmp/ptxjit_runargs_XXXXXX");
    assert_non_null(path);
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    if (n)
        assert_int_equal(write(fd, data, n), (ssize_t)n);
    close(fd);
    return path;
}

/* ---- types ---- */

static void test_types(void **state)
{
    (void)state;
    static const char *names[] = {"u8", "s8", "u16", "s16", "u32", "s32",
                                  "u64", "s64", "f16", "bf16", "f32", "f64"};
    static const size_t sizes[] = {1, 1, 2, 2, 4, 4, 8, 8, 2, 2, 4, 8};
    for (int t = 0; t < RUNARGS_TYPE_COUNT; t++) {
        assert_string_equal(runargs_type_name((runargs_type)t), names[t]);
        assert_int_equal(runargs_type_size((runargs_type)t), sizes[t]);
        runargs_type got;
        assert_true(runargs_type_lookup(names[t], strlen(names[t]), &got));
        assert_int_equal(got, t);
    }
    runargs_type got;
    assert_false(runargs_type_lookup("b32", 3, &got));
    assert_false(runargs_type_lookup("f3", 2, &got));
    assert_false(runargs_type_lookup("f320", 4, &got));
    assert_true(runargs_type_lookup("f32[", 3, &got));
    assert_int_equal(got, RUNARGS_F32);
}

/* ---- integer scalars ---- */

static void test_scalar_unsigned(void **state)
{
    (void)state;
    assert_int_equal(scalar_ok(RUNARGS_U8, "0"), 0);
    assert_int_equal(scalar_ok(RUNARGS_U8, "255"), 255);
    assert_int_equal(scalar_ok(RUNARGS_U8, "0xff"), 255);
    assert_int_equal(scalar_ok(RUNARGS_U8, "0XFF"), 255);
    assert_int_equal(scalar_ok(RUNARGS_U8, "+7"), 7);
    scalar_bad(RUNARGS_U8, "256");
    scalar_bad(RUNARGS_U8, "0x100");
    scalar_bad(RUNARGS_U8, "-1");
    scalar_bad(RUNARGS_U8, "-0");

    assert_int_equal(scalar_ok(RUNARGS_U16, "65535"), 65535);
    assert_int_equal(scalar_ok(RUNARGS_U16, "0xFFFF"), 0xFFFF);
    scalar_bad(RUNARGS_U16, "65536");

    assert_int_equal(scalar_ok(RUNARGS_U32, "1024"), 1024);
    assert_int_equal(scalar_ok(RUNARGS_U32, "4294967295"), UINT32_MAX);
    assert_int_equal(scalar_ok(RUNARGS_U32, "0xFFFFFFFF"), UINT32_MAX);
    assert_int_equal(scalar_ok(RUNARGS_U32, "007"), 7); /* decimal, not octal */
    scalar_bad(RUNARGS_U32, "4294967296");
    scalar_bad(RUNARGS_U32, "-1");

    assert_int_equal(scalar_ok(RUNARGS_U64, "0x10"), 16);
    assert_true(scalar_ok(RUNARGS_U64, "18446744073709551615") == UINT64_MAX);
    assert_true(scalar_ok(RUNARGS_U64, "0xffffffffffffffff") == UINT64_MAX);
    scalar_bad(RUNARGS_U64, "18446744073709551616");
    scalar_bad(RUNARGS_U64, "0x10000000000000000");
    scalar_bad(RUNARGS_U64, "99999999999999999999999999");
}

static void test_scalar_signed(void **state)
{
    (void)state;
    assert_int_equal(scalar_ok(RUNARGS_S8, "-128"), 0x80);
    assert_int_equal(scalar_ok(RUNARGS_S8, "127"), 0x7f);
    assert_int_equal(scalar_ok(RUNARGS_S8, "-1"), 0xff);
    assert_int_equal(scalar_ok(RUNARGS_S8, "0xff"), 0xff);   /* bit pattern */
    assert_int_equal(scalar_ok(RUNARGS_S8, "-0x80"), 0x80);
    scalar_bad(RUNARGS_S8, "128");
    scalar_bad(RUNARGS_S8, "-129");
    scalar_bad(RUNARGS_S8, "0x100");
    scalar_bad(RUNARGS_S8, "-0x81");
    scalar_bad(RUNARGS_S8, "+0xff"); /* a signed hex value follows the decimal rule */

    assert_int_equal(scalar_ok(RUNARGS_S16, "-32768"), 0x8000);
    assert_int_equal(scalar_ok(RUNARGS_S16, "32767"), 0x7fff);
    scalar_bad(RUNARGS_S16, "32768");
    scalar_bad(RUNARGS_S16, "-32769");

    assert_int_equal(scalar_ok(RUNARGS_S32, "-3"), 0xFFFFFFFDu);
    assert_int_equal(scalar_ok(RUNARGS_S32, "-2147483648"), 0x80000000u);
    assert_int_equal(scalar_ok(RUNARGS_S32, "2147483647"), 0x7FFFFFFF);
    assert_int_equal(scalar_ok(RUNARGS_S32, "0xFFFFFFFF"), 0xFFFFFFFFu);
    scalar_bad(RUNARGS_S32, "2147483648");
    scalar_bad(RUNARGS_S32, "-2147483649");

    assert_true(scalar_ok(RUNARGS_S64, "-9223372036854775808") == UINT64_C(0x8000000000000000));
    assert_true(scalar_ok(RUNARGS_S64, "9223372036854775807") == UINT64_C(0x7FFFFFFFFFFFFFFF));
    assert_true(scalar_ok(RUNARGS_S64, "-1") == UINT64_MAX);
    scalar_bad(RUNARGS_S64, "9223372036854775808");
    scalar_bad(RUNARGS_S64, "-9223372036854775809");
}

static void test_scalar_malformed(void **state)
{
    (void)state;
    static const char *bad[] = {"", "+", "-", "12a", " 1", "1 ", "0x", "0xg", "1.5",
                                "1e3", "--1", "+-1", "0b101", "١"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        scalar_bad(RUNARGS_U32, bad[i]);
        scalar_bad(RUNARGS_S32, bad[i]);
    }
}

/* ---- float scalars ---- */

static void test_scalar_float(void **state)
{
    (void)state;
    assert_int_equal(scalar_ok(RUNARGS_F32, "2.5"), 0x40200000);
    assert_int_equal(scalar_ok(RUNARGS_F32, "1"), 0x3F800000);
    assert_int_equal(scalar_ok(RUNARGS_F32, "-0"), 0x80000000u);
    assert_int_equal(scalar_ok(RUNARGS_F32, "0.1"), 0x3DCCCCCD);
    assert_int_equal(scalar_ok(RUNARGS_F32, "0x1p-4"), 0x3D800000);
    assert_int_equal(scalar_ok(RUNARGS_F32, "inf"), 0x7F800000);
    assert_int_equal(scalar_ok(RUNARGS_F32, "-inf"), 0xFF800000u);
    assert_int_equal(scalar_ok(RUNARGS_F32, "3.40282347e38"), 0x7F7FFFFF);
    assert_int_equal(scalar_ok(RUNARGS_F32, "1e-45"), 0x00000001); /* subnormal */
    assert_int_equal(scalar_ok(RUNARGS_F32, "1e-50"), 0);          /* underflow is fine */
    assert_true(isnan(f32of((uint32_t)scalar_ok(RUNARGS_F32, "nan"))));
    scalar_bad(RUNARGS_F32, "1e39");
    scalar_bad(RUNARGS_F32, "-1e39");

    assert_true(scalar_ok(RUNARGS_F64, "1e-3") == f64bits(1e-3));
    assert_true(scalar_ok(RUNARGS_F64, "-2.5") == UINT64_C(0xC004000000000000));
    assert_true(scalar_ok(RUNARGS_F64, "1.7976931348623157e308") == UINT64_C(0x7FEFFFFFFFFFFFFF));
    assert_true(scalar_ok(RUNARGS_F64, "4.9e-324") == 1);
    scalar_bad(RUNARGS_F64, "1e400");
    scalar_bad(RUNARGS_F64, "-1e400");

    assert_int_equal(scalar_ok(RUNARGS_F16, "1"), 0x3C00);
    assert_int_equal(scalar_ok(RUNARGS_F16, "-2"), 0xC000);
    assert_int_equal(scalar_ok(RUNARGS_F16, "65504"), 0x7BFF);
    assert_int_equal(scalar_ok(RUNARGS_F16, "65519"), 0x7BFF); /* rounds down to max */
    assert_int_equal(scalar_ok(RUNARGS_F16, "inf"), 0x7C00);
    assert_int_equal(scalar_ok(RUNARGS_F16, "1e-10"), 0);
    scalar_bad(RUNARGS_F16, "65520"); /* rounds to inf */
    scalar_bad(RUNARGS_F16, "-70000");

    assert_int_equal(scalar_ok(RUNARGS_BF16, "1"), 0x3F80);
    assert_int_equal(scalar_ok(RUNARGS_BF16, "1e38"), 0x7E96); /* 1.1755*2^126: 0xFD, 22/128 */
    scalar_bad(RUNARGS_BF16, "3.4e38"); /* above the largest bf16, 3.3895e38, rounds to inf */

    static const char *bad[] = {"", " 1", "1 ", "abc", "1.0x", "1,5", "--1"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        for (int t = RUNARGS_F16; t <= RUNARGS_F64; t++)
            scalar_bad((runargs_type)t, bad[i]);
}

/* ---- --arg scalar specs and messages ---- */

static void test_arg_scalar_specs(void **state)
{
    (void)state;
    runargs_arg a;
    arg_ok("u32:1024", 3, &a);
    assert_false(a.is_buffer);
    assert_int_equal(a.type, RUNARGS_U32);
    assert_int_equal(a.scalar, 1024);
    assert_int_equal(a.index, 3);
    assert_string_equal(a.spec, "u32:1024");
    assert_int_equal(runargs_arg_param_size(&a), 4);
    runargs_free(&a);
    assert_null(a.spec);
    runargs_free(&a); /* twice is harmless */

    arg_ok("s32:-3", 0, &a);
    assert_int_equal(a.scalar, 0xFFFFFFFDu);
    runargs_free(&a);
    arg_ok("f32:2.5", 0, &a);
    assert_int_equal(a.scalar, 0x40200000);
    runargs_free(&a);
    arg_ok("f64:1e-3", 0, &a);
    assert_true(a.scalar == f64bits(1e-3));
    assert_int_equal(runargs_arg_param_size(&a), 8);
    runargs_free(&a);
    arg_ok("u64:0x10", 0, &a);
    assert_int_equal(a.scalar, 16);
    runargs_free(&a);
    arg_ok("f16:1", 0, &a);
    assert_int_equal(a.scalar, 0x3C00);
    assert_int_equal(runargs_arg_param_size(&a), 2);
    runargs_free(&a);

    arg_err("u8:300", "--arg 0 (u8:300): value '300' is out of range for u8 (0 to 255)");
    arg_err("s8:-129", "--arg 0 (s8:-129): value '-129' is out of range for s8 (-128 to 127)");
    arg_err("u32:-1", "--arg 0 (u32:-1): negative value '-1' for unsigned type u32");
    arg_err("s8:0x1ff", "--arg 0 (s8:0x1ff): value '0x1ff' is out of range for s8 (-128 to 127, "
                        "or 0x0 to 0xff as a bit pattern)");
    arg_err("u32:12x", "--arg 0 (u32:12x): '12x' is not a valid u32 integer");
    arg_err("u32:", "--arg 0 (u32:): '' is not a valid u32 integer");
    arg_err("f32:abc", "--arg 0 (f32:abc): 'abc' is not a valid f32 number");
    arg_err("f16:1e5", "--arg 0 (f16:1e5): value '1e5' is out of range for f16 (magnitude at "
                       "most 65504)");
    arg_err("i32:1", "--arg 0 (i32:1): unknown type 'i32' (types: u8 s8 u16 s16 u32 s32 u64 s64 "
                     "f16 bf16 f32 f64)");
    arg_err("float[4]:zeros", "--arg 0 (float[4]:zeros): unknown type 'float' (types: u8 s8 u16 "
                              "s16 u32 s32 u64 s64 f16 bf16 f32 f64)");
    arg_err("u32", "--arg 0 (u32): expected TYPE:VALUE");
    arg_err("", "--arg 0 (): expected TYPE:VALUE or TYPE[N]:INIT");
    arg_err(":5", "--arg 0 (:5): expected TYPE:VALUE or TYPE[N]:INIT");
}

/* ---- --arg buffer specs ---- */

static void test_arg_buffer_specs(void **state)
{
    (void)state;
    runargs_arg a;
    arg_ok("f32[1024]:zeros", 1, &a);
    assert_true(a.is_buffer);
    assert_int_equal(a.type, RUNARGS_F32);
    assert_int_equal(a.count, 1024);
    assert_int_equal(a.bytes, 4096);
    assert_int_equal(a.init, RUNARGS_INIT_ZEROS);
    assert_null(a.data);
    assert_int_equal(runargs_arg_param_size(&a), 8);
    runargs_free(&a);

    arg_ok("u16[0x10]:fill=0x1234", 0, &a);
    assert_int_equal(a.count, 16);
    assert_int_equal(a.init, RUNARGS_INIT_FILL);
    assert_int_equal(a.fill, 0x1234);
    runargs_free(&a);

    arg_ok("u8[3]:rand", 0, &a);
    assert_int_equal(a.init, RUNARGS_INIT_RAND);
    assert_true(a.seed == RUNARGS_DEFAULT_SEED);
    runargs_free(&a);
    arg_ok("u8[3]:rand=42", 0, &a);
    assert_int_equal(a.seed, 42);
    runargs_free(&a);
    arg_ok("f64[2]:file=/some/dir:with:colons/x.bin", 0, &a);
    assert_int_equal(a.init, RUNARGS_INIT_FILE);
    assert_string_equal(a.path, "/some/dir:with:colons/x.bin");
    runargs_free(&a);

    /* The 2^40-byte limit: exactly at it parses (not allocated here). */
    arg_ok("u8[1099511627776]:zeros", 0, &a);
    runargs_free(&a);
    arg_ok("f32[274877906944]:zeros", 0, &a);
    runargs_free(&a);
    arg_err("u8[1099511627777]:zeros",
            "--arg 0 (u8[1099511627777]:zeros): u8[1099511627777] needs more than the limit of "
            "1099511627776 bytes (2^40) for a buffer");
    arg_err("f32[274877906945]:zeros", NULL);
    arg_err("f64[99999999999999999999999]:zeros",
            "--arg 0 (f64[99999999999999999999999]:zeros): f64[99999999999999999999999] needs "
            "more than the limit of 1099511627776 bytes (2^40) for a buffer");
    arg_ok("u8[00000000000000000000000000000000000000000000000000000000000000000000001]:iota", 0,
           &a);
    assert_int_equal(a.count, 1);
    runargs_free(&a);

    arg_err("f32[0]:zeros", "--arg 0 (f32[0]:zeros): element count must be positive");
    arg_err("f32[]:zeros", "--arg 0 (f32[]:zeros): element count '' is not a positive integer");
    arg_err("f32[-4]:zeros",
            "--arg 0 (f32[-4]:zeros): element count '-4' is not a positive integer");
    arg_err("f32[4x]:zeros",
            "--arg 0 (f32[4x]:zeros): element count '4x' is not a positive integer");
    arg_err("f32[4]", "--arg 0 (f32[4]): expected TYPE[N]:INIT");
    arg_err("f32[4:zeros", "--arg 0 (f32[4:zeros): expected TYPE[N]:INIT");
    arg_err("f32[4]x:zeros", "--arg 0 (f32[4]x:zeros): expected TYPE[N]:INIT");
    arg_err("f32[4]:ones", "--arg 0 (f32[4]:ones): unknown buffer initializer 'ones' (expected "
                           "zeros, fill=V, iota, rand[=SEED] or file=PATH)");
    arg_err("f32[4]:", NULL);
    arg_err("u8[4]:fill=256", "--arg 0 (u8[4]:fill=256): fill: value '256' is out of range for u8 "
                              "(0 to 255)");
    arg_err("u8[4]:fill=", NULL);
    arg_err("u8[4]:rand=x", "--arg 0 (u8[4]:rand=x): rand seed: 'x' is not a non-negative integer");
    arg_err("u8[4]:rand=-1", NULL);
    arg_err("u8[4]:file=", "--arg 0 (u8[4]:file=): file= needs a path");
}

/* ---- buffer contents ---- */

static void test_init_zeros_fill(void **state)
{
    (void)state;
    runargs_arg a;
    buf_ok("u32[100]:zeros", &a);
    for (size_t i = 0; i < 100; i++)
        assert_int_equal(u32_at(&a, i), 0);
    runargs_free(&a);

    buf_ok("u16[5]:fill=0x1234", &a);
    const unsigned char *b = a.data;
    for (size_t i = 0; i < 5; i++) {
        assert_int_equal(b[2 * i], 0x34); /* little-endian */
        assert_int_equal(b[2 * i + 1], 0x12);
    }
    runargs_free(&a);

    buf_ok("s8[7]:fill=-2", &a);
    for (size_t i = 0; i < 7; i++)
        assert_int_equal(((unsigned char *)a.data)[i], 0xFE);
    runargs_free(&a);

    buf_ok("f32[9]:fill=2.5", &a);
    for (size_t i = 0; i < 9; i++)
        assert_int_equal(u32_at(&a, i), 0x40200000);
    runargs_free(&a);

    buf_ok("f64[3]:fill=-0.0", &a);
    for (size_t i = 0; i < 3; i++)
        assert_true(u64_at(&a, i) == UINT64_C(0x8000000000000000));
    runargs_free(&a);

    buf_ok("f16[4]:fill=1", &a);
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(u16_at(&a, i), 0x3C00);
    runargs_free(&a);

    buf_ok("bf16[4]:fill=-2", &a);
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(u16_at(&a, i), 0xC000);
    runargs_free(&a);

    buf_ok("u64[2]:fill=0xfedcba9876543210", &a);
    assert_true(u64_at(&a, 0) == UINT64_C(0xfedcba9876543210));
    assert_true(u64_at(&a, 1) == UINT64_C(0xfedcba9876543210));
    runargs_free(&a);
}

static void test_init_iota(void **state)
{
    (void)state;
    runargs_arg a;
    buf_ok("u32[1000]:iota", &a);
    for (uint32_t i = 0; i < 1000; i++)
        assert_int_equal(u32_at(&a, i), i);
    runargs_free(&a);

    buf_ok("u8[300]:iota", &a); /* wraps modulo 256 */
    const unsigned char *b = a.data;
    assert_int_equal(b[255], 255);
    assert_int_equal(b[256], 0);
    assert_int_equal(b[299], 43);
    runargs_free(&a);

    buf_ok("s8[200]:iota", &a);
    assert_int_equal((int8_t)((unsigned char *)a.data)[127], 127);
    assert_int_equal((int8_t)((unsigned char *)a.data)[128], -128);
    runargs_free(&a);

    buf_ok("s64[3]:iota", &a);
    assert_int_equal(u64_at(&a, 2), 2);
    runargs_free(&a);

    buf_ok("f32[5]:iota", &a);
    static const uint32_t f32w[] = {0x00000000, 0x3F800000, 0x40000000, 0x40400000, 0x40800000};
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(u32_at(&a, i), f32w[i]);
    runargs_free(&a);

    buf_ok("f64[4]:iota", &a);
    static const uint64_t f64w[] = {0, UINT64_C(0x3FF0000000000000), UINT64_C(0x4000000000000000),
                                    UINT64_C(0x4008000000000000)};
    for (size_t i = 0; i < 4; i++)
        assert_true(u64_at(&a, i) == f64w[i]);
    runargs_free(&a);

    /* f16: 0, 1, 2, 3, 4, 5 = 1.25*2^2, 6 = 1.5*2^2, 7 = 1.75*2^2, 8 */
    buf_ok("f16[70000]:iota", &a);
    static const uint16_t f16w[] = {0x0000, 0x3C00, 0x4000, 0x4200, 0x4400,
                                    0x4500, 0x4600, 0x4700, 0x4800};
    for (size_t i = 0; i < 9; i++)
        assert_int_equal(u16_at(&a, i), f16w[i]);
    assert_int_equal(u16_at(&a, 1024), 0x6400);  /* 2^10 */
    assert_int_equal(u16_at(&a, 2047), 0x67FF);  /* last odd integer that fits */
    assert_int_equal(u16_at(&a, 2048), 0x6800);
    assert_int_equal(u16_at(&a, 2049), 0x6800);  /* tie -> even (2048) */
    assert_int_equal(u16_at(&a, 2051), 0x6802);  /* tie -> even (2052) */
    assert_int_equal(u16_at(&a, 65504), 0x7BFF);
    assert_int_equal(u16_at(&a, 65519), 0x7BFF);
    assert_int_equal(u16_at(&a, 65520), 0x7C00); /* tie to even 65536: inf */
    assert_int_equal(u16_at(&a, 69999), 0x7C00);
    runargs_free(&a);

    buf_ok("bf16[300]:iota", &a);
    static const uint16_t bf16w[] = {0x0000, 0x3F80, 0x4000, 0x4040, 0x4080, 0x40A0};
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(u16_at(&a, i), bf16w[i]);
    assert_int_equal(u16_at(&a, 256), 0x4380); /* 2^8 */
    assert_int_equal(u16_at(&a, 257), 0x4380); /* 257 = tie between 256 and 258 -> 256 */
    assert_int_equal(u16_at(&a, 259), 0x4382); /* tie between 258 and 260 -> 260 */
    runargs_free(&a);
}

static void test_init_rand(void **state)
{
    (void)state;
    runargs_arg a, b;

    /* splitmix64 reference outputs for seed 0. */
    buf_ok("u64[3]:rand=0", &a);
    assert_true(u64_at(&a, 0) == UINT64_C(0xe220a8397b1dcdaf));
    assert_true(u64_at(&a, 1) == UINT64_C(0x6e789e6aa1b965f4));
    assert_true(u64_at(&a, 2) == UINT64_C(0x06c45d188009454f));
    runargs_free(&a);

    static const char *types[] = {"u8", "s8", "u16", "s16", "u32", "s32",
                                  "u64", "s64", "f16", "bf16", "f32", "f64"};
    for (size_t t = 0; t < 12; t++) {
        char s1[64], s2[64], s3[64], s4[64];
        snprintf(s1, sizeof s1, "%s[1000]:rand=7", types[t]);
        snprintf(s2, sizeof s2, "%s[1000]:rand=7", types[t]);
        snprintf(s3, sizeof s3, "%s[1000]:rand=8", types[t]);
        buf_ok(s1, &a);
        buf_ok(s2, &b);
        assert_memory_equal(a.data, b.data, a.bytes); /* same seed, same bytes */
        runargs_free(&b);
        buf_ok(s3, &b);
        assert_memory_not_equal(a.data, b.data, a.bytes);
        runargs_free(&b);
        snprintf(s4, sizeof s4, "%s[10]:rand=7", types[t]); /* a prefix of the longer one */
        buf_ok(s4, &b);
        assert_memory_equal(a.data, b.data, b.bytes);
        runargs_free(&b);
        runargs_free(&a);

        /* default seed == the documented constant */
        snprintf(s1, sizeof s1, "%s[64]:rand", types[t]);
        snprintf(s2, sizeof s2, "%s[64]:rand=0x%llx", types[t],
                 (unsigned long long)RUNARGS_DEFAULT_SEED);
        buf_ok(s1, &a);
        buf_ok(s2, &b);
        assert_memory_equal(a.data, b.data, a.bytes);
        runargs_free(&a);
        runargs_free(&b);
    }

    /* floats in [0, 1), spread out */
    buf_ok("f32[10000]:rand", &a);
    float lo = 1, hi = 0;
    for (size_t i = 0; i < 10000; i++) {
        float f = f32of(u32_at(&a, i));
        assert_true(f >= 0.0f && f < 1.0f);
        lo = f < lo ? f : lo;
        hi = f > hi ? f : hi;
    }
    assert_true(lo < 0.01f && hi > 0.99f);
    runargs_free(&a);
    buf_ok("f64[10000]:rand=3", &a);
    for (size_t i = 0; i < 10000; i++) {
        double d;
        memcpy(&d, (char *)a.data + 8 * i, 8);
        assert_true(d >= 0.0 && d < 1.0);
    }
    runargs_free(&a);
    buf_ok("f16[10000]:rand", &a);
    for (size_t i = 0; i < 10000; i++) {
        float f = half_f16_to_float(u16_at(&a, i));
        assert_true(f >= 0.0f && f < 1.0f);
    }
    runargs_free(&a);
    buf_ok("bf16[10000]:rand", &a);
    for (size_t i = 0; i < 10000; i++) {
        float f = half_bf16_to_float(u16_at(&a, i));
        assert_true(f >= 0.0f && f < 1.0f);
    }
    runargs_free(&a);

    /* integers span the type's range */
    buf_ok("u8[4096]:rand", &a);
    int seen[256] = {0};
    for (size_t i = 0; i < 4096; i++)
        seen[((unsigned char *)a.data)[i]] = 1;
    int distinct = 0;
    for (int i = 0; i < 256; i++)
        distinct += seen[i];
    assert_true(distinct > 240);
    runargs_free(&a);
    buf_ok("s32[1000]:rand", &a);
    int neg = 0;
    for (size_t i = 0; i < 1000; i++)
        neg += (int32_t)u32_at(&a, i) < 0;
    assert_true(neg > 400 && neg < 600);
    runargs_free(&a);
}

static void test_init_file(void **state)
{
    (void)state;
    unsigned char bytes[16];
    for (int i = 0; i < 16; i++)
        bytes[i] = (unsigned char)(i * 17 + 1);
    char *path = temp_file(bytes, 16);
    char spec[256];
    runargs_arg a;

    snprintf(spec, sizeof spec, "f32[4]:file=%s", path);
    buf_ok(spec, &a);
    assert_int_equal(a.bytes, 16);
    assert_memory_equal(a.data, bytes, 16);
    runargs_free(&a);

    snprintf(spec, sizeof spec, "u8[16]:file=%s", path);
    buf_ok(spec, &a);
    assert_memory_equal(a.data, bytes, 16);
    runargs_free(&a);

    char want[512];
    /* too small a file for the buffer */
    snprintf(spec, sizeof spec, "f32[5]:file=%s", path);
    arg_ok(spec, 2, &a);
    assert_int_equal(runargs_materialize(&a, errbuf, sizeof errbuf), -1);
    snprintf(want, sizeof want, "--arg 2 (%s): file '%s' is 16 bytes but f32[5] needs 20 bytes",
             spec, path);
    assert_string_equal(errbuf, want);
    assert_null(a.data);
    runargs_free(&a);

    /* too large */
    snprintf(spec, sizeof spec, "u16[7]:file=%s", path);
    arg_ok(spec, 0, &a);
    assert_int_equal(runargs_materialize(&a, errbuf, sizeof errbuf), -1);
    snprintf(want, sizeof want, "--arg 0 (%s): file '%s' is 16 bytes but u16[7] needs 14 bytes",
             spec, path);
    assert_string_equal(errbuf, want);
    runargs_free(&a);

    /* empty file */
    char *empty = temp_file(NULL, 0);
    snprintf(spec, sizeof spec, "u8[1]:file=%s", empty);
    arg_ok(spec, 0, &a);
    assert_int_equal(runargs_materialize(&a, errbuf, sizeof errbuf), -1);
    snprintf(want, sizeof want, "--arg 0 (%s): file '%s' is 0 bytes but u8[1] needs 1 bytes",
             spec, empty);
    assert_string_equal(errbuf, want);
    runargs_free(&a);

    /* missing file */
    arg_ok("u8[1]:file=/nonexistent/ptxjit/x.bin", 0, &a);
    assert_int_equal(runargs_materialize(&a, errbuf, sizeof errbuf), -1);
    assert_string_equal(errbuf, "--arg 0 (u8[1]:file=/nonexistent/ptxjit/x.bin): cannot read "
                                "'/nonexistent/ptxjit/x.bin': No such file or directory");
    runargs_free(&a);

    unlink(path);
    unlink(empty);
    free(path);
    free(empty);
}

static void test_materialize_misc(void **state)
{
    (void)state;
    runargs_arg a;
    /* scalars: nothing to do */
    arg_ok("u32:5", 0, &a);
    assert_int_equal(runargs_materialize(&a, errbuf, sizeof errbuf), 0);
    assert_null(a.data);
    runargs_free(&a);
    /* twice: keeps the first allocation */
    buf_ok("u8[3]:iota", &a);
    void *p = a.data;
    ((unsigned char *)a.data)[0] = 99;
    assert_int_equal(runargs_materialize(&a, errbuf, sizeof errbuf), 0);
    assert_ptr_equal(a.data, p);
    assert_int_equal(((unsigned char *)a.data)[0], 99);
    /* the allocation's padding up to 64 bytes is zeroed */
    for (size_t i = 3; i < 64; i++)
        assert_int_equal(((unsigned char *)a.data)[i], 0);
    runargs_free(&a);
}

/* ---- f16 / bf16 conversions ---- */

static void test_f16_from_double(void **state)
{
    (void)state;
    static const struct {
        double x;
        uint16_t h;
    } cases[] = {
        {0.0, 0x0000},
        {-0.0, 0x8000},
        {1.0, 0x3C00},
        {-1.0, 0xBC00},
        {2.0, 0x4000},
        {0.5, 0x3800},
        {1.5, 0x3E00},
        {0.1, 0x2E66},
        {1.0 / 3.0, 0x3555},
        {65504.0, 0x7BFF},             /* max finite */
        {65519.99, 0x7BFF},
        {65520.0, 0x7C00},             /* halfway to 65536, ties to even: inf */
        {1e6, 0x7C00},
        {-65520.0, 0xFC00},
        {DBL_MAX, 0x7C00},
        {INFINITY, 0x7C00},
        {-INFINITY, 0xFC00},
        {0x1p-14, 0x0400},             /* smallest normal */
        {0x1p-14 - 0x1p-24, 0x03FF},   /* largest subnormal */
        {1023.5 * 0x1p-24, 0x0400},    /* tie between 0x3FF and 0x400: even */
        {1022.5 * 0x1p-24, 0x03FE},    /* tie: even */
        {0x1p-24, 0x0001},             /* smallest subnormal */
        {-0x1p-24, 0x8001},
        {0x1p-25, 0x0000},             /* tie between 0 and 2^-24: even (0) */
        {-0x1p-25, 0x8000},
        {0x1.8p-25, 0x0001},           /* above the tie */
        {0x1p-25 + 0x1p-60, 0x0001},
        {0x1.8p-24, 0x0002},           /* 1.5 ulp: tie -> even (2) */
        {0x1.4p-24, 0x0001},
        {1e-300, 0x0000},
        {-1e-300, 0x8000},
        {4.9e-324, 0x0000},            /* a double subnormal */
        {1.0 + 0x1p-11, 0x3C00},       /* tie -> even */
        {1.0 + 0x1p-11 + 0x1p-40, 0x3C01},
        {1.0 + 0x1p-10, 0x3C01},
        {1.0 + 0x1.8p-10, 0x3C02},     /* tie -> even (0x3C02) */
        {2047.0 + 0x1p-1, 0x6800},     /* 2047.5 rounds to 2048 */
        {0x1.ffcp15, 0x7BFF},          /* 65504 in hex */
        {0x1.ffep15, 0x7C00},          /* 65520 */
        {0x1.ffdfffffffffp15, 0x7BFF}, /* just below the tie */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        uint16_t h = half_f16_from_double(cases[i].x);
        if (h != cases[i].h)
            fail_msg("f16(%a) = 0x%04x, want 0x%04x", cases[i].x, h, cases[i].h);
    }
    /* NaN stays NaN, quiet, with its sign */
    uint16_t n = half_f16_from_double(NAN);
    assert_int_equal(n & 0x7C00, 0x7C00);
    assert_true((n & 0x03FF) != 0);
    assert_true(n & 0x0200);
    n = half_f16_from_double(-NAN);
    assert_int_equal(n & 0xFC00, 0xFC00);
    assert_true((n & 0x03FF) != 0);
    /* a signaling NaN with only low payload bits is still a NaN */
    uint64_t snan = UINT64_C(0x7FF0000000000001);
    double ds;
    memcpy(&ds, &snan, 8);
    n = half_f16_from_double(ds);
    assert_int_equal(n & 0x7C00, 0x7C00);
    assert_true((n & 0x03FF) != 0);
}

static void test_f16_to_float(void **state)
{
    (void)state;
    assert_true(half_f16_to_float(0x3C00) == 1.0f);
    assert_true(half_f16_to_float(0xC000) == -2.0f);
    assert_true(half_f16_to_float(0x7BFF) == 65504.0f);
    assert_true(half_f16_to_float(0x0001) == 0x1p-24f);
    assert_true(half_f16_to_float(0x03FF) == 1023 * 0x1p-24f);
    assert_true(half_f16_to_float(0x0400) == 0x1p-14f);
    assert_true(half_f16_to_float(0x3555) == 0x1.554p-2f);
    assert_true(half_f16_to_float(0x7C00) == INFINITY);
    assert_true(half_f16_to_float(0xFC00) == -INFINITY);
    assert_true(isnan(half_f16_to_float(0x7E00)));
    assert_true(isnan(half_f16_to_float(0x7C01)));
    assert_true(isnan(half_f16_to_float(0xFE00)));
    float z = half_f16_to_float(0x8000);
    assert_true(z == 0.0f && signbit(z));
    assert_int_equal(f32bits(half_f16_to_float(0x0000)), 0);

    /* every non-NaN value round-trips */
    for (uint32_t h = 0; h < 0x10000; h++) {
        if ((h & 0x7C00) == 0x7C00 && (h & 0x3FF))
            continue;
        uint16_t back = half_f16_from_double(half_f16_to_float((uint16_t)h));
        if (back != h)
            fail_msg("f16 0x%04x -> %a -> 0x%04x", h, (double)half_f16_to_float((uint16_t)h),
                     back);
    }
    /* NaNs stay NaN through a round trip */
    assert_int_equal(half_f16_from_double(half_f16_to_float(0x7E00)), 0x7E00);
}

static void test_bf16(void **state)
{
    (void)state;
    static const struct {
        double x;
        uint16_t h;
    } cases[] = {
        {1.0, 0x3F80},
        {-2.0, 0xC000},
        {3.0, 0x4040},
        {0.0, 0x0000},
        {-0.0, 0x8000},
        {0.1, 0x3DCD},
        {1.0 + 0x1p-8, 0x3F80},         /* tie -> even */
        {1.0 + 0x1.8p-7, 0x3F82},       /* tie -> even */
        {1.0 + 0x1p-7, 0x3F81},
        {0x1.fep127, 0x7F7F},           /* max finite */
        {0x1.ffp127, 0x7F80},           /* halfway above max: inf */
        {(double)FLT_MAX, 0x7F80},
        {1e39, 0x7F80},
        {-1e39, 0xFF80},
        {INFINITY, 0x7F80},
        {-INFINITY, 0xFF80},
        {0x1p-126, 0x0080},             /* smallest normal */
        {0x1p-133, 0x0001},             /* smallest subnormal */
        {0x1p-134, 0x0000},             /* tie -> even (0) */
        {0x1.8p-134, 0x0001},
        {1e-40, 0x0001},
        {1e-300, 0x0000},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        uint16_t h = half_bf16_from_double(cases[i].x);
        if (h != cases[i].h)
            fail_msg("bf16(%a) = 0x%04x, want 0x%04x", cases[i].x, h, cases[i].h);
    }
    uint16_t n = half_bf16_from_double(NAN);
    assert_int_equal(n & 0x7F80, 0x7F80);
    assert_true((n & 0x7F) != 0);
    assert_true(half_bf16_to_float(0x3F80) == 1.0f);
    assert_true(half_bf16_to_float(0x0001) == 0x1p-133f);
    assert_true(isnan(half_bf16_to_float(0x7FC0)));
    for (uint32_t h = 0; h < 0x10000; h++) {
        if ((h & 0x7F80) == 0x7F80 && (h & 0x7F))
            continue;
        uint16_t back = half_bf16_from_double(half_bf16_to_float((uint16_t)h));
        if (back != h)
            fail_msg("bf16 0x%04x -> 0x%04x", h, back);
    }
}

/* ---- kernel parameters ---- */

static const char kernels_src[] =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry vadd(.param .u64 vadd_param_0, .param .u64 vadd_param_1,\n"
    "                     .param .u64 vadd_param_2)\n{\n    ret;\n}\n"
    ".visible .entry mixed(.param .u8 a, .param .u64 b, .param .u16 c,\n"
    "    .param .align 16 .b8 s[20], .param .f32 d, .param .align 8 .b8 t[3],\n"
    "    .param .u32 e, .param .f64 f)\n{\n    ret;\n}\n"
    ".entry scale(.param .u64 .ptr.global.align 16 p, .param .u32 n, .param .f32 k,\n"
    "    .param .b8 arr[2][3], .param .u16 h)\n{\n    ret;\n}\n"
    ".entry none()\n{\n    ret;\n}\n"
    ".entry one(.param .u32 x)\n{\n    ret;\n}\n";

/* The kernels are loaded through the library, so their parameter layout is
 * the one `ptxjit run` gets (from a compile or from the cache). */
static ptxjit_ctx *ctx;
static ptxjit_module *mod;

static ptxjit_module *load(const char *src)
{
    char *log = NULL;
    ptxjit_module *m = ptxjit_load(ctx, src, strlen(src), "k.ptx", &log, NULL);
    if (!m)
        fprintf(stderr, "load failed: %s\n", log ? log : "oom");
    free(log);
    return m;
}

static int setup_module(void **state)
{
    (void)state;
    char err[256];
    ctx = ptxjit_create(1, err, sizeof err);
    if (!ctx) {
        fprintf(stderr, "ptxjit_create: %s\n", err);
        return -1;
    }
    mod = load(kernels_src);
    return mod ? 0 : -1;
}

static int teardown_module(void **state)
{
    (void)state;
    ptxjit_module_unload(mod);
    ptxjit_destroy(ctx);
    return 0;
}

static const ptxjit_kernel_info *kernel(const char *name)
{
    const ptxjit_kernel *k = ptxjit_kernel_get(mod, name);
    if (!k)
        fail_msg("no kernel %s", name);
    return ptxjit_kernel_info_of(k);
}

/* Parses n specs into args. */
static void parse_args(runargs_arg *args, const char *const *specs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        arg_ok(specs[i], i, &args[i]);
}

static void free_args(runargs_arg *args, size_t n)
{
    for (size_t i = 0; i < n; i++)
        runargs_free(&args[i]);
}

static void test_param_layout(void **state)
{
    (void)state;
    const ptxjit_kernel_info *k = kernel("mixed");
    static const uint64_t sizes[] = {1, 8, 2, 20, 4, 3, 4, 8};
    static const uint32_t aligns[] = {1, 8, 2, 16, 4, 8, 4, 8};
    assert_int_equal(k->nparams, 8);
    for (uint32_t i = 0; i < 8; i++) {
        uint64_t sz;
        uint32_t al;
        assert_int_equal(runargs_param_layout(&k->params[i], &sz, &al), 0);
        assert_int_equal(sz, sizes[i]);
        assert_int_equal(al, aligns[i]);
    }
    char ty[64];
    runargs_param_type_str(&k->params[3], ty, sizeof ty);
    assert_string_equal(ty, ".b8[20]");
    runargs_param_type_str(&k->params[7], ty, sizeof ty);
    assert_string_equal(ty, ".f64");

    k = kernel("scale");
    uint64_t sz;
    uint32_t al;
    /* .ptr.global.align 16 is the pointee's alignment, not the parameter's */
    assert_int_equal(runargs_param_layout(&k->params[0], &sz, &al), 0);
    assert_int_equal(sz, 8);
    assert_int_equal(al, 8);
    assert_int_equal(runargs_param_layout(&k->params[3], &sz, &al), 0);
    assert_int_equal(sz, 6);
    assert_int_equal(al, 1);
    runargs_param_type_str(&k->params[3], ty, sizeof ty);
    assert_string_equal(ty, ".b8[2][3]");

    /* hand-built vector and unsized parameters */
    ptxjit_param_info v = {.name = "v", .type = "f32", .vec = 4, .count = 1, .size = 16,
                           .align = 16};
    assert_int_equal(runargs_param_layout(&v, &sz, &al), 0);
    assert_int_equal(sz, 16);
    assert_int_equal(al, 16);
    runargs_param_type_str(&v, ty, sizeof ty);
    assert_string_equal(ty, ".v4.f32");
    ptxjit_param_info u = {.name = "u", .type = "b8", .ndims = 1, .align = 1};
    assert_int_equal(runargs_param_layout(&u, &sz, &al), -1);
    runargs_param_type_str(&u, ty, sizeof ty);
    assert_string_equal(ty, ".b8[]");
}

/* By-value arrays cannot be given a scalar of another size. */
static void test_check_by_value_array(void **state)
{
    (void)state;
    const ptxjit_kernel_info *k = kernel("mixed");
    static const char *const specs[] = {"u8:7", "u64:0x1122334455667788", "u16:0xBEEF",
                                        "u8:1", "f32:1", "u8:2", "u32:9", "f64:1"};
    runargs_arg args[8];
    parse_args(args, specs, 8);
    assert_int_equal(runargs_check_kernel(k, args, 8, errbuf, sizeof errbuf), -1);
    assert_string_equal(errbuf,
                        "--arg 3 (u8:1) is 1 bytes but parameter 's' is .b8[20] (20 bytes)");
    free_args(args, 8);
}

static void test_pack_offsets(void **state)
{
    (void)state;
    /* A kernel whose arrays are sized like scalars, to pack through them. */
    static const char src[] =
        ".version 8.0\n.target sm_80\n.address_size 64\n"
        ".entry k(.param .u8 a, .param .u64 b, .param .u16 c, .param .align 16 .b8 s[8],\n"
        "    .param .f32 d, .param .align 8 .b8 t[2], .param .u32 e, .param .f64 f,\n"
        "    .param .u64 p, .param .b8 q[1], .param .f16 g, .param .align 4 .b8 w[1])\n"
        "{\n    ret;\n}\n";
    ptxjit_module *m = load(src);
    assert_non_null(m);
    const ptxjit_kernel_info *k = ptxjit_kernel_info_of(ptxjit_kernel_get(m, "k"));
    assert_int_equal(k->nparams, 12);

    static const char *const specs[] = {
        "u8:7", "u64:0x1122334455667788", "u16:0xBEEF", "f64:2", "f32:2.5", "u16:0x0102",
        "s32:-1", "f64:-0", "f32[4]:iota", "s8:-2", "f16:1", "u8:0x5A"};
    runargs_arg args[12];
    parse_args(args, specs, 12);
    for (size_t i = 0; i < 12; i++)
        assert_int_equal(runargs_materialize(&args[i], errbuf, sizeof errbuf), 0);

    void *buf;
    size_t size, off[12];
    assert_int_equal(runargs_pack_params(k, args, 12, &buf, &size, off, errbuf, sizeof errbuf), 0);
    /* a@0 b@8 c@16 s@32(.align 16) d@40 t@48(.align 8) e@52 f@56 p@64 q@72 g@74 w@76 -> 77 */
    static const size_t want[] = {0, 8, 16, 32, 40, 48, 52, 56, 64, 72, 74, 76};
    for (size_t i = 0; i < 12; i++)
        assert_int_equal(off[i], want[i]);
    assert_int_equal(size, 77);

    unsigned char expect[77] = {0};
    expect[0] = 7;
    uint64_t b64 = UINT64_C(0x1122334455667788);
    memcpy(expect + 8, &b64, 8);
    expect[16] = 0xEF;
    expect[17] = 0xBE;
    uint64_t two = f64bits(2.0);
    memcpy(expect + 32, &two, 8);
    uint32_t f25 = 0x40200000;
    memcpy(expect + 40, &f25, 4);
    expect[48] = 0x02;
    expect[49] = 0x01;
    memset(expect + 52, 0xFF, 4);
    expect[63] = 0x80; /* -0.0 */
    uint64_t ptr = (uint64_t)(uintptr_t)args[8].data;
    memcpy(expect + 64, &ptr, 8);
    expect[72] = 0xFE;
    expect[74] = 0x00;
    expect[75] = 0x3C;
    expect[76] = 0x5A;
    assert_memory_equal(buf, expect, 77);
    free(buf);

    /* offsets may be NULL */
    assert_int_equal(runargs_pack_params(k, args, 12, &buf, &size, NULL, errbuf, sizeof errbuf), 0);
    assert_int_equal(size, 77);
    free(buf);

    /* an unmaterialized buffer cannot be packed */
    runargs_free(&args[8]);
    arg_ok("f32[4]:iota", 8, &args[8]);
    assert_int_equal(runargs_pack_params(k, args, 12, &buf, &size, NULL, errbuf, sizeof errbuf), -1);
    assert_string_equal(errbuf, "--arg 8 (f32[4]:iota): buffer not materialized");
    assert_null(buf);

    free_args(args, 12);
    ptxjit_module_unload(m);
}

static void test_pack_vadd_and_empty(void **state)
{
    (void)state;
    const ptxjit_kernel_info *k = kernel("vadd");
    static const char *const specs[] = {"f32[8]:iota", "f32[8]:fill=1", "f32[8]:zeros"};
    runargs_arg args[3];
    parse_args(args, specs, 3);
    for (size_t i = 0; i < 3; i++)
        assert_int_equal(runargs_materialize(&args[i], errbuf, sizeof errbuf), 0);
    void *buf;
    size_t size;
    assert_int_equal(runargs_pack_params(k, args, 3, &buf, &size, NULL, errbuf, sizeof errbuf), 0);
    assert_int_equal(size, 24);
    for (size_t i = 0; i < 3; i++) {
        uint64_t p;
        memcpy(&p, (char *)buf + 8 * i, 8);
        assert_true(p == (uint64_t)(uintptr_t)args[i].data);
    }
    free(buf);
    free_args(args, 3);

    assert_int_equal(runargs_pack_params(kernel("none"), NULL, 0, &buf, &size, NULL, errbuf,
                                         sizeof errbuf), 0);
    assert_non_null(buf);
    assert_int_equal(size, 0);
    free(buf);
}

static void test_check_kernel_messages(void **state)
{
    (void)state;
    runargs_arg args[4];

    static const char *const two[] = {"f32[4]:zeros", "f32[4]:zeros"};
    parse_args(args, two, 2);
    assert_int_equal(runargs_check_kernel(kernel("vadd"), args, 2, errbuf, sizeof errbuf), -1);
    assert_string_equal(errbuf, "kernel 'vadd' takes 3 parameters (vadd_param_0, vadd_param_1, "
                                "vadd_param_2), 2 --arg given");
    assert_int_equal(runargs_check_kernel(kernel("one"), args, 2, errbuf, sizeof errbuf), -1);
    assert_string_equal(errbuf, "kernel 'one' takes 1 parameter (x), 2 --arg given");
    assert_int_equal(runargs_check_kernel(kernel("none"), args, 2, errbuf, sizeof errbuf), -1);
    assert_string_equal(errbuf, "kernel 'none' takes no parameters, 2 --arg given");
    assert_int_equal(runargs_check_kernel(kernel("one"), args, 0, errbuf, sizeof errbuf), -1);
    assert_string_equal(errbuf, "kernel 'one' takes 1 parameter (x), 0 --arg given");
    assert_int_equal(runargs_check_kernel(kernel("none"), NULL, 0, errbuf, sizeof errbuf), 0);
    free_args(args, 2);

    /* scale(.u64 p, .u32 n, .f32 k, .b8 arr[2][3], .u16 h) */
    const ptxjit_kernel_info *k = kernel("scale");
    static const char *const specs[] = {"f32[4]:zeros", "u16:5", "f32:1", "u8:0", "u16:0"};
    runargs_arg five[5];
    parse_args(five, specs, 5);
    assert_int_equal(runargs_check_kernel(k, five, 5, errbuf, sizeof errbuf), -1);
    assert_string_equal(errbuf, "--arg 1 (u16:5) is 2 bytes but parameter 'n' is .u32 (4 bytes)");
    runargs_free(&five[1]);
    arg_ok("f32:5", 1, &five[1]); /* same size, different type: accepted */
    assert_int_equal(runargs_check_kernel(k, five, 5, errbuf, sizeof errbuf), -1);
    assert_string_equal(errbuf,
                        "--arg 3 (u8:0) is 1 bytes but parameter 'arr' is .b8[2][3] (6 bytes)");
    runargs_free(&five[1]);
    arg_ok("u32[4]:zeros", 1, &five[1]);
    assert_int_equal(runargs_check_kernel(k, five, 5, errbuf, sizeof errbuf), -1);
    assert_string_equal(errbuf, "--arg 1 (u32[4]:zeros) is a buffer (an 8-byte pointer) but "
                                "parameter 'n' is .u32 (4 bytes)");
    runargs_free(&five[0]);
    arg_ok("u32:1", 0, &five[0]);
    runargs_free(&five[1]);
    arg_ok("u32:1", 1, &five[1]);
    assert_int_equal(runargs_check_kernel(k, five, 5, errbuf, sizeof errbuf), -1);
    assert_string_equal(errbuf, "--arg 0 (u32:1) is 4 bytes but parameter 'p' is .u64 (8 bytes)");
    runargs_free(&five[0]);
    arg_ok("u64:0x1000", 0, &five[0]); /* a raw address for a pointer: fine */
    runargs_free(&five[3]);
    arg_ok("u16:0", 3, &five[3]);
    assert_int_equal(runargs_check_kernel(k, five, 5, errbuf, sizeof errbuf), -1);
    assert_string_equal(errbuf,
                        "--arg 3 (u16:0) is 2 bytes but parameter 'arr' is .b8[2][3] (6 bytes)");
    free_args(five, 5);

    /* a parameter without a size */
    ptxjit_param_info u = {.name = "p", .type = "b8", .ndims = 1, .align = 1};
    ptxjit_kernel_info fk = {.name = "k", .nparams = 1, .params = &u};
    arg_ok("u8:1", 0, &args[0]);
    assert_int_equal(runargs_check_kernel(&fk, args, 1, errbuf, sizeof errbuf), -1);
    assert_string_equal(errbuf, "parameter 'p' of kernel 'k' has an unsized array type .b8[]");
    runargs_free(&args[0]);

    /* all good */
    static const char *const good[] = {"f64[2]:zeros", "f64[2]:zeros", "u64:9"};
    parse_args(args, good, 3);
    assert_int_equal(runargs_check_kernel(kernel("vadd"), args, 3, errbuf, sizeof errbuf), 0);
    free_args(args, 3);
}

/* ---- -g / -b ---- */

static void dim_ok(const char *s, runargs_dim_kind kind, uint32_t x, uint32_t y, uint32_t z)
{
    uint32_t v[3] = {0, 0, 0};
    if (runargs_parse_dim3(s, kind, v, errbuf, sizeof errbuf))
        fail_msg("dim3 '%s' rejected: %s", s, errbuf);
    assert_int_equal(v[0], x);
    assert_int_equal(v[1], y);
    assert_int_equal(v[2], z);
}

static void dim_bad(const char *s, runargs_dim_kind kind, const char *want)
{
    uint32_t v[3] = {7, 7, 7};
    errbuf[0] = 0;
    if (runargs_parse_dim3(s, kind, v, errbuf, sizeof errbuf) == 0)
        fail_msg("dim3 '%s' accepted", s);
    assert_int_equal(v[0], 7); /* untouched */
    if (want)
        assert_string_equal(errbuf, want);
    else
        assert_true(errbuf[0] != 0);
}

static void test_dim3(void **state)
{
    (void)state;
    const runargs_dim_kind G = RUNARGS_DIM_GRID, B = RUNARGS_DIM_BLOCK;
    dim_ok("1", G, 1, 1, 1);
    dim_ok("128", G, 128, 1, 1);
    dim_ok("4,5", G, 4, 5, 1);
    dim_ok("4,5,6", G, 4, 5, 6);
    dim_ok("2147483647", G, 2147483647u, 1, 1);
    dim_ok("2147483647,65535,65535", G, 2147483647u, 65535, 65535);
    dim_ok("1024", B, 1024, 1, 1);
    dim_ok("32,32", B, 32, 32, 1);
    dim_ok("8,8,16", B, 8, 8, 16);
    dim_ok("1,1,1024", B, 1, 1, 1024);
    dim_ok("007", B, 7, 1, 1);

    dim_bad("2147483648", G, "-g '2147483648': grid x is 2147483648, more than 2147483647");
    dim_bad("99999999999999999999999999999999999", G, NULL);
    dim_bad("1,65536", G, "-g '1,65536': grid y is 65536, more than 65535");
    dim_bad("1,1,65536", G, "-g '1,1,65536': grid z is 65536, more than 65535");
    dim_bad("0", G, "-g '0': grid x must be a positive integer, got '0'");
    dim_bad("4,0", B, "-b '4,0': block y must be a positive integer, got '0'");
    dim_bad("", G, "-g '': grid x must be a positive integer, got ''");
    dim_bad("4,", G, "-g '4,': grid y must be a positive integer, got ''");
    dim_bad(",4", G, NULL);
    dim_bad("4,,4", G, NULL);
    dim_bad("-4", G, "-g '-4': grid x must be a positive integer, got '-4'");
    dim_bad("+4", G, NULL);
    dim_bad("0x10", G, NULL);
    dim_bad("4 ", G, NULL);
    dim_bad("1,2,3,4", G, "-g '1,2,3,4': expected X[,Y[,Z]] (at most 3 dimensions)");
    dim_bad("1025", B, "-b '1025': block of 1025 threads, more than 1024");
    dim_bad("32,33", B, "-b '32,33': block of 1056 threads, more than 1024");
    dim_bad("2147483647,2147483647,2147483647", B, NULL); /* no 64-bit overflow surprise */
    dim_bad("65536,65536,2", B, NULL);                   /* product 2^33 */
}

/* ---- integers, --out, --print ---- */

static void test_parse_u64(void **state)
{
    (void)state;
    uint64_t v;
    assert_int_equal(runargs_parse_u64("0", 0, 10, &v, errbuf, sizeof errbuf), 0);
    assert_int_equal(v, 0);
    assert_int_equal(runargs_parse_u64("0xC000", 0, UINT64_MAX, &v, errbuf, sizeof errbuf), 0);
    assert_int_equal(v, 0xC000);
    assert_int_equal(runargs_parse_u64("0", 1, 100, &v, errbuf, sizeof errbuf), -1);
    assert_string_equal(errbuf, "'0' is out of range (1 to 100)");
    assert_int_equal(runargs_parse_u64("x", 1, 100, &v, errbuf, sizeof errbuf), -1);
    assert_string_equal(errbuf, "'x' is not a non-negative integer");
    assert_int_equal(runargs_parse_u64("-1", 0, 100, &v, errbuf, sizeof errbuf), -1);
    assert_int_equal(runargs_parse_u64("", 0, 100, &v, errbuf, sizeof errbuf), -1);
    assert_int_equal(runargs_parse_u64("18446744073709551616", 0, UINT64_MAX, &v, errbuf,
                                       sizeof errbuf), -1);
    /* err may be NULL */
    assert_int_equal(runargs_parse_u64("x", 0, 1, &v, NULL, 0), -1);
}

static void test_out_print_parse(void **state)
{
    (void)state;
    runargs_out o;
    assert_int_equal(runargs_parse_out("2=out.bin", &o, errbuf, sizeof errbuf), 0);
    assert_int_equal(o.index, 2);
    assert_string_equal(o.path, "out.bin");
    assert_int_equal(runargs_parse_out("10=a=b", &o, errbuf, sizeof errbuf), 0);
    assert_int_equal(o.index, 10);
    assert_string_equal(o.path, "a=b");
    assert_int_equal(runargs_parse_out("2", &o, errbuf, sizeof errbuf), -1);
    assert_string_equal(errbuf, "--out '2': expected N=PATH");
    assert_int_equal(runargs_parse_out("2=", &o, errbuf, sizeof errbuf), -1);
    assert_string_equal(errbuf, "--out '2=': empty PATH");
    assert_int_equal(runargs_parse_out("=x", &o, errbuf, sizeof errbuf), -1);
    assert_string_equal(errbuf, "--out '=x': argument index '' is not a non-negative integer");
    assert_int_equal(runargs_parse_out("a=x", &o, errbuf, sizeof errbuf), -1);
    assert_int_equal(runargs_parse_out("-1=x", &o, errbuf, sizeof errbuf), -1);
    assert_int_equal(runargs_parse_out("99999999999999999999999=x", &o, errbuf, sizeof errbuf),
                     -1);
    assert_string_equal(errbuf, "--out '99999999999999999999999=x': argument index "
                                "'99999999999999999999999' is too large");
    assert_int_equal(runargs_parse_out("0x1=x", &o, errbuf, sizeof errbuf), -1);

    runargs_print p;
    assert_int_equal(runargs_parse_print("3", &p, errbuf, sizeof errbuf), 0);
    assert_int_equal(p.index, 3);
    assert_int_equal(p.count, 0);
    assert_int_equal(runargs_parse_print("0:16", &p, errbuf, sizeof errbuf), 0);
    assert_int_equal(p.index, 0);
    assert_int_equal(p.count, 16);
    assert_int_equal(runargs_parse_print("0:0", &p, errbuf, sizeof errbuf), -1);
    assert_string_equal(errbuf, "--print '0:0': COUNT '0' is out of range (1 to "
                                "18446744073709551615)");
    assert_int_equal(runargs_parse_print("0:", &p, errbuf, sizeof errbuf), -1);
    assert_int_equal(runargs_parse_print("x", &p, errbuf, sizeof errbuf), -1);
    assert_string_equal(errbuf, "--print 'x': argument index 'x' is not a non-negative integer");
    assert_int_equal(runargs_parse_print("", &p, errbuf, sizeof errbuf), -1);
    assert_int_equal(runargs_parse_print("1:2:3", &p, errbuf, sizeof errbuf), -1);

    runargs_arg args[2];
    static const char *const specs[] = {"u32:7", "f32[4]:zeros"};
    parse_args(args, specs, 2);
    assert_int_equal(runargs_check_ref("--out", 1, args, 2, errbuf, sizeof errbuf), 0);
    assert_int_equal(runargs_check_ref("--print", 0, args, 2, errbuf, sizeof errbuf), -1);
    assert_string_equal(errbuf, "--print 0: --arg 0 (u32:7) is a scalar, not a buffer");
    assert_int_equal(runargs_check_ref("--out", 2, args, 2, errbuf, sizeof errbuf), -1);
    assert_string_equal(errbuf, "--out 2: there is no --arg 2 (2 --arg given)");
    free_args(args, 2);
}

/* Prints through open_memstream and compares. */
static void print_is(const runargs_arg *a, uint64_t count, const char *want)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    assert_int_equal(runargs_print_buffer(f, a, count), 0);
    fclose(f);
    assert_string_equal(text, want);
    free(text);
}

static void test_print_format(void **state)
{
    (void)state;
    runargs_arg a;
    buf_ok("u32[10]:iota", &a);
    print_is(&a, 0, "arg 0 (u32[10]):\n"
                    "0: 0 1 2 3 4 5 6 7\n"
                    "8: 8 9\n");
    print_is(&a, 3, "arg 0 (u32[10]), first 3:\n"
                    "0: 0 1 2\n");
    print_is(&a, 10, "arg 0 (u32[10]):\n"
                     "0: 0 1 2 3 4 5 6 7\n"
                     "8: 8 9\n");
    print_is(&a, 1000, "arg 0 (u32[10]):\n" /* clamped */
                       "0: 0 1 2 3 4 5 6 7\n"
                       "8: 8 9\n");
    runargs_free(&a);

    arg_ok("u16[17]:iota", 2, &a);
    assert_int_equal(runargs_materialize(&a, errbuf, sizeof errbuf), 0);
    print_is(&a, 0, "arg 2 (u16[17]):\n"
                    " 0:  0  1  2  3  4  5  6  7\n"
                    " 8:  8  9 10 11 12 13 14 15\n"
                    "16: 16\n");
    print_is(&a, 8, "arg 2 (u16[17]), first 8:\n"
                    "0: 0 1 2 3 4 5 6 7\n");
    runargs_free(&a);

    buf_ok("f32[4]:zeros", &a);
    float fv[4] = {0.5f, -1.25f, 0.1f, 3e-8f};
    memcpy(a.data, fv, sizeof fv);
    print_is(&a, 0, "arg 0 (f32[4]):\n"
                    "0:            0.5          -1.25    0.100000001 2.99999989e-08\n");
    runargs_free(&a);

    buf_ok("f64[3]:zeros", &a);
    double dv[3] = {0.1, -2, 1e300};
    memcpy(a.data, dv, sizeof dv);
    print_is(&a, 0, "arg 0 (f64[3]):\n"
                    "0:     0.10000000000000001                      -2 1.0000000000000001e+300\n");
    runargs_free(&a);

    buf_ok("f16[5]:zeros", &a);
    uint16_t hv[5] = {0x2E66, 0x3C00, 0x7BFF, 0xFC00, 0x0001};
    memcpy(a.data, hv, sizeof hv);
    print_is(&a, 0, "arg 0 (f16[5]):\n"
                    "0:   0.099976          1      65504       -inf 5.9605e-08\n");
    runargs_free(&a);

    buf_ok("bf16[3]:zeros", &a);
    uint16_t bv[3] = {0x3DCD, 0x3F80, 0x4049};
    memcpy(a.data, bv, sizeof bv);
    print_is(&a, 0, "arg 0 (bf16[3]):\n"
                    "0: 0.1001      1  3.141\n");
    runargs_free(&a);

    buf_ok("s8[4]:zeros", &a);
    int8_t sv[4] = {-128, 127, -1, 0};
    memcpy(a.data, sv, sizeof sv);
    print_is(&a, 0, "arg 0 (s8[4]):\n"
                    "0: -128  127   -1    0\n");
    runargs_free(&a);

    buf_ok("u64[2]:fill=18446744073709551615", &a);
    print_is(&a, 0, "arg 0 (u64[2]):\n"
                    "0: 18446744073709551615 18446744073709551615\n");
    runargs_free(&a);
    buf_ok("s64[1]:fill=-9223372036854775808", &a);
    print_is(&a, 0, "arg 0 (s64[1]):\n"
                    "0: -9223372036854775808\n");
    runargs_free(&a);
    buf_ok("s16[2]:fill=-32768", &a);
    print_is(&a, 0, "arg 0 (s16[2]):\n"
                    "0: -32768 -32768\n");
    runargs_free(&a);
    buf_ok("s32[1]:fill=-7", &a);
    print_is(&a, 0, "arg 0 (s32[1]):\n"
                    "0: -7\n");
    runargs_free(&a);

    /* scalars and unmaterialized buffers print nothing */
    arg_ok("u32:1", 0, &a);
    assert_int_equal(runargs_print_buffer(stdout, &a, 0), -1);
    runargs_free(&a);
    arg_ok("u32[2]:zeros", 0, &a);
    assert_int_equal(runargs_print_buffer(stdout, &a, 0), -1);
    runargs_free(&a);

    char s[64];
    uint16_t h = 0x7E00;
    runargs_format_elem(s, sizeof s, RUNARGS_F16, &h);
    assert_string_equal(s, "nan");
}

static void test_write_buffer(void **state)
{
    (void)state;
    runargs_arg a;
    buf_ok("u16[5]:iota", &a);
    char *path = temp_file(NULL, 0);
    assert_int_equal(runargs_write_buffer(&a, path, errbuf, sizeof errbuf), 0);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    unsigned char got[32];
    size_t n = fread(got, 1, sizeof got, f);
    fclose(f);
    assert_int_equal(n, 10); /* exactly N * 2 bytes, no padding */
    static const unsigned char want[10] = {0, 0, 1, 0, 2, 0, 3, 0, 4, 0};
    assert_memory_equal(got, want, 10);

    /* round trip through file= */
    char spec[256];
    snprintf(spec, sizeof spec, "u16[5]:file=%s", path);
    runargs_arg b;
    buf_ok(spec, &b);
    assert_memory_equal(a.data, b.data, 10);
    runargs_free(&b);

    assert_int_equal(runargs_write_buffer(&a, "/nonexistent/ptxjit/out.bin", errbuf,
                                          sizeof errbuf), -1);
    assert_string_equal(errbuf,
                        "cannot write '/nonexistent/ptxjit/out.bin': No such file or directory");
    runargs_free(&a);

    arg_ok("u32:1", 4, &a);
    assert_int_equal(runargs_write_buffer(&a, path, errbuf, sizeof errbuf), -1);
    char msg[512];
    snprintf(msg, sizeof msg, "cannot write '%s': --arg 4 (u32:1) is not a materialized buffer",
             path);
    assert_string_equal(errbuf, msg);
    runargs_free(&a);

    unlink(path);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_types),
        cmocka_unit_test(test_scalar_unsigned),
        cmocka_unit_test(test_scalar_signed),
        cmocka_unit_test(test_scalar_malformed),
        cmocka_unit_test(test_scalar_float),
        cmocka_unit_test(test_arg_scalar_specs),
        cmocka_unit_test(test_arg_buffer_specs),
        cmocka_unit_test(test_init_zeros_fill),
        cmocka_unit_test(test_init_iota),
        cmocka_unit_test(test_init_rand),
        cmocka_unit_test(test_init_file),
        cmocka_unit_test(test_materialize_misc),
        cmocka_unit_test(test_f16_from_double),
        cmocka_unit_test(test_f16_to_float),
        cmocka_unit_test(test_bf16),
        cmocka_unit_test(test_param_layout),
        cmocka_unit_test(test_check_by_value_array),
        cmocka_unit_test(test_pack_offsets),
        cmocka_unit_test(test_pack_vadd_and_empty),
        cmocka_unit_test(test_check_kernel_messages),
        cmocka_unit_test(test_dim3),
        cmocka_unit_test(test_parse_u64),
        cmocka_unit_test(test_out_print_parse),
        cmocka_unit_test(test_print_format),
        cmocka_unit_test(test_write_buffer),
    };
    return cmocka_run_group_tests(tests, setup_module, teardown_module);
}
