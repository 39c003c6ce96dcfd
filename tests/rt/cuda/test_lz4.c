/* test_lz4.c - rt/cuda/lz4: the raw block decoder against blocks built by
 * hand from the format description (each vector's expected output worked
 * out in its comment), against frames written by the reference `lz4`
 * command (tests/cuda/fatbin/pattern.*.lz4, rebuilt here from the pattern's
 * definition), and against truncated and mutated input (errors, never an
 * access outside the buffers: ASan checks reads, canaries check writes). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lz4.h"
#include "test_util.h"

#define CANARY 0xA5

/* Decodes into a heap buffer of exactly cap bytes followed by canaries and
 * checks the canaries survived; returns the status, output in *out (caller
 * frees). */
static rt_lz4_status decode(const uint8_t *src, size_t n, size_t cap, uint8_t **out,
                            size_t *len)
{
    /* src copied to its own allocation so ASan sees any over-read. */
    uint8_t *in = malloc(n ? n : 1);
    memcpy(in, src, n);
    uint8_t *dst = malloc(cap + 16);
    memset(dst, CANARY, cap + 16);
    rt_lz4_status st = rt_lz4_decode_block(in, n, dst, cap, len);
    for (size_t i = cap; i < cap + 16; i++)
        assert_int_equal(dst[i], CANARY);
    assert_true(*len <= cap);
    free(in);
    *out = dst;
    return st;
}

static void expect_ok(const uint8_t *src, size_t n, const char *want, size_t want_len)
{
    uint8_t *out;
    size_t len;
    assert_int_equal(decode(src, n, want_len, &out, &len), RT_LZ4_OK);
    assert_int_equal(len, want_len);
    assert_memory_equal(out, want, want_len);
    free(out);
    /* More room changes nothing. */
    assert_int_equal(decode(src, n, want_len + 100, &out, &len), RT_LZ4_OK);
    assert_int_equal(len, want_len);
    free(out);
}

static void expect_err(const uint8_t *src, size_t n, size_t cap, rt_lz4_status want)
{
    uint8_t *out;
    size_t len;
    assert_int_equal(decode(src, n, cap, &out, &len), want);
    free(out);
}

/* --- hand-made blocks ---------------------------------------------------- */

static void test_empty_block_is_empty_output(void **state)
{
    expect_ok((const uint8_t *)"", 0, "", 0);
}

static void test_literals_only(void **state)
{
    /* token 0x50: 5 literals, no match (the input ends). */
    static const uint8_t b[] = {0x50, 'h', 'e', 'l', 'l', 'o'};
    expect_ok(b, sizeof b, "hello", 5);
}

static void test_literal_length_extension(void **state)
{
    /* Nibble 15 followed by 0: exactly 15 literals. */
    uint8_t b[2 + 15];
    char want[15];
    b[0] = 0xF0;
    b[1] = 0;
    for (int i = 0; i < 15; i++)
        b[2 + i] = (uint8_t)(want[i] = (char)('A' + i));
    expect_ok(b, sizeof b, want, 15);
    /* 15 + 255 + 3 = 273 literals: two continuation bytes. */
    uint8_t c[3 + 273];
    char want2[273];
    c[0] = 0xF0, c[1] = 255, c[2] = 3;
    for (int i = 0; i < 273; i++)
        c[3 + i] = (uint8_t)(want2[i] = (char)(i * 7));
    expect_ok(c, sizeof c, want2, 273);
}

static void test_overlapping_match_repeats(void **state)
{
    /* 'a', then a match at offset 1 of 6 + 4 = 10: eleven 'a'. */
    static const uint8_t b[] = {0x16, 'a', 1, 0};
    expect_ok(b, sizeof b, "aaaaaaaaaaa", 11);
    /* "ab", match offset 2 length 0 + 4, then literals "!": "ababab!". */
    static const uint8_t c[] = {0x20, 'a', 'b', 2, 0, 0x10, '!'};
    expect_ok(c, sizeof c, "ababab!", 7);
    /* "xyz", offset 3 length 5 + 4 = 9 overlapping three times, "." */
    static const uint8_t d[] = {0x35, 'x', 'y', 'z', 3, 0, 0x10, '.'};
    expect_ok(d, sizeof d, "xyzxyzxyzxyz.", 13);
}

static void test_disjoint_match_and_trailing_literals(void **state)
{
    /* "abcdef", match offset 6 length 2 + 4 = 6, then "!". */
    static const uint8_t b[] = {0x62, 'a', 'b', 'c', 'd', 'e', 'f', 6, 0, 0x10, '!'};
    expect_ok(b, sizeof b, "abcdefabcdef!", 13);
    /* Match from the middle: "0123456789", offset 7 length 4: "3456". */
    static const uint8_t c[] = {0xA0, '0', '1', '2', '3', '4', '5', '6', '7', '8', '9',
                                7, 0, 0x00};
    /* The last token 0x00 is a sequence with no literals that ends the block. */
    expect_ok(c, sizeof c, "01234567893456", 14);
}

static void test_match_length_extension(void **state)
{
    /* 'x', match offset 1 of 15 + 255 + 10 + 4 = 284: 285 'x'. */
    static const uint8_t b[] = {0x1F, 'x', 1, 0, 255, 10};
    char want[285];
    memset(want, 'x', sizeof want);
    expect_ok(b, sizeof b, want, sizeof want);
}

static void test_two_byte_offset_little_endian(void **state)
{
    /* 300 literals, then offset 0x012C (300) length 4: the first 4 again. */
    uint8_t b[3 + 300 + 3];
    char want[304];
    b[0] = 0xF0, b[1] = 255, b[2] = 300 - 15 - 255;
    for (int i = 0; i < 300; i++)
        b[3 + i] = (uint8_t)(want[i] = (char)(i % 251));
    b[303] = 0x2C, b[304] = 0x01, b[305] = 0x00;
    memcpy(want + 300, want, 4);
    /* The token of the literals sequence carries the match length 0 (+4). */
    expect_ok(b, sizeof b, want, sizeof want);
}

static void test_bad_offsets(void **state)
{
    static const uint8_t zero[] = {0x10, 'a', 0, 0};       /* offset 0 */
    static const uint8_t before[] = {0x20, 'a', 'b', 3, 0}; /* 3 > 2 bytes out */
    static const uint8_t first[] = {0x00, 1, 0};           /* match with no output */
    expect_err(zero, sizeof zero, 100, RT_LZ4_BAD_OFFSET);
    expect_err(before, sizeof before, 100, RT_LZ4_BAD_OFFSET);
    expect_err(first, sizeof first, 100, RT_LZ4_BAD_OFFSET);
}

static void test_truncated_sequences(void **state)
{
    static const uint8_t lit_ext[] = {0xF0};                /* length continues */
    static const uint8_t lits[] = {0x50, 'h', 'e', 'l'};    /* 3 of 5 literals */
    static const uint8_t offset[] = {0x14, 'a', 1};         /* half an offset */
    static const uint8_t match_ext[] = {0x1F, 'a', 1, 0, 255}; /* length continues */
    expect_err(lit_ext, sizeof lit_ext, 100, RT_LZ4_TRUNCATED);
    expect_err(lits, sizeof lits, 100, RT_LZ4_TRUNCATED);
    expect_err(offset, sizeof offset, 100, RT_LZ4_TRUNCATED);
    expect_err(match_ext, sizeof match_ext, 1000, RT_LZ4_TRUNCATED);
}

static void test_output_bounds(void **state)
{
    static const uint8_t lits[] = {0x50, 'h', 'e', 'l', 'l', 'o'};
    static const uint8_t match[] = {0x16, 'a', 1, 0};   /* 11 bytes */
    expect_err(lits, sizeof lits, 4, RT_LZ4_OVERFLOW);
    expect_err(lits, sizeof lits, 0, RT_LZ4_OVERFLOW);
    expect_err(match, sizeof match, 10, RT_LZ4_OVERFLOW);
    expect_err(match, sizeof match, 4, RT_LZ4_OVERFLOW); /* less than the minimum match */
    uint8_t *out;
    size_t len;
    assert_int_equal(decode(match, sizeof match, 11, &out, &len), RT_LZ4_OK);
    assert_int_equal(len, 11);
    free(out);
}

static void test_huge_lengths_saturate(void **state)
{
    /* A literal length made of 100,000 continuation bytes of 255 (25.5 MB)
     * then a 0: far beyond the capacity, reported as overflow. */
    size_t n = 100002;
    uint8_t *b = malloc(n);
    b[0] = 0xF0;
    memset(b + 1, 255, n - 2);
    b[n - 1] = 0;
    expect_err(b, n, 1 << 20, RT_LZ4_OVERFLOW);
    /* The same run cut short: truncated. */
    expect_err(b, n - 1, 1 << 20, RT_LZ4_TRUNCATED);
    free(b);
}

/* --- the reference compressor's frames ------------------------------------ */

static size_t make_pattern(uint8_t *p)
{
    static const char pat[] = "PTXJIT-lz4 ";
    size_t n = 0;
    memset(p, 'z', 4000);
    n = 4000;
    for (int i = 0; i < 3000; i++)
        p[n++] = (uint8_t)pat[i % 11];
    uint32_t x = 1;
    for (int i = 0; i < 2048; i++) {
        x = x * 1103515245u + 12345u;
        p[n++] = (uint8_t)(x >> 16);
    }
    memcpy(p + n, p + n - 2048, 2048);
    return n + 2048;
}

/* The first block of an LZ4 frame: magic 0x184D2204, FLG (bit 3: content
 * size follows, bit 0: dictionary id), BD, header checksum, then a u32 block
 * size whose top bit marks a stored (uncompressed) block. */
static const uint8_t *frame_block(const uint8_t *f, size_t n, size_t *blen)
{
    assert_true(n > 11);
    assert_int_equal(f[0] | f[1] << 8 | f[2] << 16 | (uint32_t)f[3] << 24, 0x184D2204u);
    size_t off = 4 + 2 + ((f[4] & 8) ? 8 : 0) + ((f[4] & 1) ? 4 : 0) + 1;
    uint32_t bs = f[off] | f[off + 1] << 8 | f[off + 2] << 16 | (uint32_t)f[off + 3] << 24;
    assert_int_equal(bs >> 31, 0); /* compressed */
    assert_true(off + 4 + bs <= n);
    *blen = bs;
    return f + off + 4;
}

static void check_frame(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/cuda/fatbin/%s", PTXJIT_TEST_DIR, name);
    size_t fn;
    uint8_t *frame = (uint8_t *)tu_read_file(path, &fn);
    assert_non_null(frame);
    uint8_t want[12000];
    size_t want_len = make_pattern(want);
    size_t blen;
    const uint8_t *blk = frame_block(frame, fn, &blen);

    uint8_t *out;
    size_t len;
    assert_int_equal(decode(blk, blen, want_len, &out, &len), RT_LZ4_OK);
    assert_int_equal(len, want_len);
    assert_memory_equal(out, want, want_len);
    free(out);

    /* Every truncation: an error or a shorter block; what was written is
     * always a prefix of the pattern. */
    for (size_t cut = 0; cut < blen; cut++) {
        rt_lz4_status st = decode(blk, cut, want_len, &out, &len);
        if (st == RT_LZ4_OK)
            assert_true(len < want_len);
        assert_memory_equal(out, want, len);
        free(out);
    }
    /* Every capacity short of the output: overflow. */
    for (size_t cap = 0; cap < want_len; cap += 97) {
        assert_int_equal(decode(blk, blen, cap, &out, &len), RT_LZ4_OVERFLOW);
        free(out);
    }
    free(frame);
}

static void test_reference_frames_decode(void **state)
{
    check_frame("pattern.fast.lz4");
    check_frame("pattern.hc.lz4");
}

static void test_random_mutations_stay_in_bounds(void **state)
{
    char path[512];
    snprintf(path, sizeof path, "%s/cuda/fatbin/pattern.hc.lz4", PTXJIT_TEST_DIR);
    size_t fn, blen;
    uint8_t *frame = (uint8_t *)tu_read_file(path, &fn);
    assert_non_null(frame);
    const uint8_t *blk = frame_block(frame, fn, &blen);
    uint8_t *m = malloc(blen);
    uint32_t seed = 12345;
    for (int iter = 0; iter < 3000; iter++) {
        memcpy(m, blk, blen);
        for (int k = 0; k < 1 + iter % 4; k++) {
            seed = seed * 1664525u + 1013904223u;
            m[(seed >> 8) % blen] = (uint8_t)(seed >> 24);
        }
        uint8_t *out;
        size_t len;
        rt_lz4_status st = decode(m, blen, 11096, &out, &len);
        assert_true(st >= RT_LZ4_OK && st <= RT_LZ4_BAD_OFFSET);
        free(out);
    }
    free(m);
    free(frame);
}

static void test_strerror_names_each_status(void **state)
{
    assert_string_equal(rt_lz4_strerror(RT_LZ4_OK), "ok");
    assert_non_null(strstr(rt_lz4_strerror(RT_LZ4_TRUNCATED), "truncated"));
    assert_non_null(strstr(rt_lz4_strerror(RT_LZ4_OVERFLOW), "larger"));
    assert_non_null(strstr(rt_lz4_strerror(RT_LZ4_BAD_OFFSET), "offset"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_block_is_empty_output),
        cmocka_unit_test(test_literals_only),
        cmocka_unit_test(test_literal_length_extension),
        cmocka_unit_test(test_overlapping_match_repeats),
        cmocka_unit_test(test_disjoint_match_and_trailing_literals),
        cmocka_unit_test(test_match_length_extension),
        cmocka_unit_test(test_two_byte_offset_little_endian),
        cmocka_unit_test(test_bad_offsets),
        cmocka_unit_test(test_truncated_sequences),
        cmocka_unit_test(test_output_bounds),
        cmocka_unit_test(test_huge_lengths_saturate),
        cmocka_unit_test(test_reference_frames_decode),
        cmocka_unit_test(test_random_mutations_stay_in_bounds),
        cmocka_unit_test(test_strerror_names_each_status),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
