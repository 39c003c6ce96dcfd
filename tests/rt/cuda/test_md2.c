/* test_md2.c - rt/cuda/md2: the seven test vectors of RFC 1319's appendix
 * A.5, every split of a message across updates, and HMAC-MD2 against RFC
 * 2104's definition H(K ^ opad, H(K ^ ipad, text)) written out here with
 * one-shot digests of concatenated buffers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "md2.h"

static void hex(const uint8_t *d, char out[2 * CU_MD2_DIGEST + 1])
{
    for (int i = 0; i < CU_MD2_DIGEST; i++)
        snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static void rfc1319_vectors(void **state)
{
    (void)state;
    static const struct {
        const char *msg, *digest;
    } v[] = {
        {"", "8350e5a3e24c153df2275c9f80692773"},
        {"a", "32ec01ec4a6dac72c0ab96fb34c0b5d1"},
        {"abc", "da853b0d3f88d99b30283a69e6ded6bb"},
        {"message digest", "ab4f496bfb2a530b219ff33031fe06b0"},
        {"abcdefghijklmnopqrstuvwxyz", "4e8ddff3650292ab5a4108c3aa47940b"},
        {"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
         "da33def2a42df13975352846c30338cd"},
        {"1234567890123456789012345678901234567890123456789012345678901234567890"
         "1234567890",
         "d5976f79d83d3a0dc9806c3c66f3efd8"},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        uint8_t d[CU_MD2_DIGEST];
        char got[2 * CU_MD2_DIGEST + 1];
        cu_md2_digest(v[i].msg, strlen(v[i].msg), d);
        hex(d, got);
        assert_string_equal(got, v[i].digest);
    }
}

/* Updates of any size give the one-shot digest. */
static void split_updates(void **state)
{
    (void)state;
    const char *msg = "12345678901234567890123456789012345678901234567890123456789012345678901";
    size_t len = strlen(msg);
    uint8_t want[CU_MD2_DIGEST];
    cu_md2_digest(msg, len, want);
    for (size_t a = 0; a <= len; a++)
        for (size_t b = a; b <= len; b += 7) {
            cu_md2 h;
            uint8_t got[CU_MD2_DIGEST];
            cu_md2_init(&h);
            cu_md2_update(&h, msg, a);
            cu_md2_update(&h, msg + a, b - a);
            cu_md2_update(&h, msg + b, len - b);
            cu_md2_final(&h, got);
            assert_memory_equal(got, want, CU_MD2_DIGEST);
        }
}

static void hmac_reference(const uint8_t *key, size_t keylen, const uint8_t *msg, size_t len,
                           uint8_t out[CU_MD2_DIGEST])
{
    uint8_t k[16] = {0}, buf[16 + 256], inner[16];
    memcpy(k, key, keylen);
    for (int i = 0; i < 16; i++)
        buf[i] = k[i] ^ 0x36;
    memcpy(buf + 16, msg, len);
    cu_md2_digest(buf, 16 + len, inner);
    for (int i = 0; i < 16; i++)
        buf[i] = k[i] ^ 0x5c;
    memcpy(buf + 16, inner, 16);
    cu_md2_digest(buf, 32, out);
}

static void hmac_definition(void **state)
{
    (void)state;
    uint8_t key[16], msg[200];
    for (int i = 0; i < 16; i++)
        key[i] = (uint8_t)(0xa5 + 29 * i);
    for (int i = 0; i < 200; i++)
        msg[i] = (uint8_t)(i * 7 + 3);
    size_t keylens[] = {0, 5, 16}, lens[] = {0, 1, 15, 16, 17, 95, 200};
    for (size_t k = 0; k < 3; k++)
        for (size_t l = 0; l < 7; l++) {
            uint8_t want[16], got[16];
            hmac_reference(key, keylens[k], msg, lens[l], want);
            cu_hmac_md2(key, keylens[k], msg, lens[l], got);
            assert_memory_equal(got, want, 16);
        }
    /* The key matters, and so does every byte of the message. */
    uint8_t a[16], b[16];
    cu_hmac_md2(key, 16, msg, 64, a);
    key[15] ^= 1;
    cu_hmac_md2(key, 16, msg, 64, b);
    assert_memory_not_equal(a, b, 16);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rfc1319_vectors),
        cmocka_unit_test(split_updates),
        cmocka_unit_test(hmac_definition),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
