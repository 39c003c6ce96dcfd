/* test_cache.c - the cache library on its own (cache/): BLAKE2b against
 * the RFC 7693 and BLAKE2 reference test vectors, keys, configuration from
 * the environment, the entry format and its verification (every header
 * byte, every payload byte, every truncation), the store, LRU eviction,
 * unwritable and full directories, and concurrent processes. */
#define _GNU_SOURCE /* asprintf */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cache.h"
#include "cache_entry.h"
#include "cache_test_util.h"

/* ---- helpers ---- */

static void hex_of(const uint8_t *b, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", b[i]);
}

static void assert_b2b(const void *data, size_t len, const void *key, size_t keylen,
                       size_t outlen, const char *want)
{
    cache_b2b s;
    uint8_t out[64];
    char hex[129];
    assert_int_equal(cache_b2b_init(&s, outlen, key, keylen), 0);
    cache_b2b_update(&s, data, len);
    cache_b2b_final(&s, out);
    hex_of(out, outlen, hex);
    assert_string_equal(hex, want);
}

/* Deterministic incompressible bytes. */
static void fill_random(uint8_t *p, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        p[i] = (uint8_t)(seed >> 56);
    }
}

static cache_key key_of(const char *s)
{
    cache_keyer k;
    cache_key key;
    cache_key_begin(&k);
    cache_key_add_str(&k, "test", s);
    cache_key_end(&k, &key);
    return key;
}

static char *entry_path(const char *dir, const cache_key *key)
{
    char hex[CACHE_KEY_HEX + 1], *p;
    cache_key_hex(key, hex);
    if (asprintf(&p, "%s/%s.pjc", dir, hex) < 0)
        abort();
    return p;
}

/* ---- BLAKE2b ---- */

static void test_blake2b_rfc7693(void **state)
{
    (void)state;
    /* RFC 7693 Appendix A: BLAKE2b-512("abc") */
    assert_b2b("abc", 3, NULL, 0, 64,
               "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1"
               "7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923");
    /* BLAKE2b-512 of the empty string */
    assert_b2b("", 0, NULL, 0, 64,
               "786a02f742015903c6c6fd852552d272912f4740e15847618a86e217f71f5419"
               "d25e1031afee585313896444934eb04b903a685b1448b755d56f701afe9be2ce");
    /* BLAKE2b-256 (the cache's key length): the digest length is a parameter,
     * not a truncation */
    assert_b2b("abc", 3, NULL, 0, 32,
               "bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319");
    cache_b2b s;
    assert_int_equal(cache_b2b_init(&s, 0, NULL, 0), -1);
    assert_int_equal(cache_b2b_init(&s, 65, NULL, 0), -1);
    assert_int_equal(cache_b2b_init(&s, 32, "k", 65), -1);
}

/* The BLAKE2 reference test vectors (blake2b-kat.txt): key 00 01 .. 3f,
 * input 00 01 .. (n-1), 64-byte digests; lengths around the block size. */
static void test_blake2b_kat(void **state)
{
    (void)state;
    static const struct { size_t n; const char *hash; } kat[] = {
        {0, "10ebb67700b1868efb4417987acf4690ae9d972fb7a590c2f02871799aaa4786"
            "b5e996e8f0f4eb981fc214b005f42d2ff4233499391653df7aefcbc13fc51568"},
        {1, "961f6dd1e4dd30f63901690c512e78e4b45e4742ed197c3c5e45c549fd25f2e4"
            "187b0bc9fe30492b16b0d0bc4ef9b0f34c7003fac09a5ef1532e69430234cebd"},
        {2, "da2cfbe2d8409a0f38026113884f84b50156371ae304c4430173d08a99d9fb1b"
            "983164a3770706d537f49e0c916d9f32b95cc37a95b99d857436f0232c88a965"},
        {127, "76d2d819c92bce55fa8e092ab1bf9b9eab237a25267986cacf2b8ee14d214d73"
              "0dc9a5aa2d7b596e86a1fd8fa0804c77402d2fcd45083688b218b1cdfa0dcbcb"},
        {128, "72065ee4dd91c2d8509fa1fc28a37c7fc9fa7d5b3f8ad3d0d7a25626b57b1b44"
              "788d4caf806290425f9890a3a2a35a905ab4b37acfd0da6e4517b2525c9651e4"},
        {129, "64475dfe7600d7171bea0b394e27c9b00d8e74dd1e416a79473682ad3dfdbb70"
              "6631558055cfc8a40e07bd015a4540dcdea15883cbbf31412df1de1cd4152b91"},
        {255, "142709d62e28fcccd0af97fad0f8465b971e82201dc51070faa0372aa43e9248"
              "4be1c1e73ba10906d5d1853db6a4106e0a7bf9800d373d6dee2d46d62ef2a461"},
    };
    uint8_t key[64], in[256];
    for (int i = 0; i < 64; i++)
        key[i] = (uint8_t)i;
    for (int i = 0; i < 256; i++)
        in[i] = (uint8_t)i;
    for (size_t i = 0; i < sizeof kat / sizeof *kat; i++)
        assert_b2b(in, kat[i].n, key, 64, 64, kat[i].hash);
}

/* Unkeyed BLAKE2b-256 of byte i = (7i + 3) mod 256, as computed by the
 * reference implementation (Python's hashlib.blake2b), fed in one piece
 * and in pieces of every size from 1 to 300. */
static void test_blake2b_incremental(void **state)
{
    (void)state;
    static const struct { size_t n; const char *hash; } ref[] = {
        {0, "0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8"},
        {1, "e88bd757ad5b9bedf372d8d3f0cf6c962a469db61a265f6418e1ffed86da29ec"},
        {127, "c9ae3859964b35f04c54b36d33cf299d7290ee621005d28e51598a943560aaaa"},
        {128, "f0501d06597880592bc49234eef100ec1ff349058d0e9d9b753504e24af86dd6"},
        {129, "a34a4e1e03c541dfbf3099c4b6c143c022ced65c28bd7e8a10e0a098461aecf0"},
        {256, "d93ebb9c802f5630ab22516fd82b6c21bc8bd551d531349b715f046ed11ed871"},
        {1000, "d62b6c768ce1afc8367e0498ab2f8e3f7c178c35b1429f14c4604b545d200f52"},
    };
    uint8_t in[1000];
    for (int i = 0; i < 1000; i++)
        in[i] = (uint8_t)((7 * i + 3) % 256);
    for (size_t r = 0; r < sizeof ref / sizeof *ref; r++) {
        size_t n = ref[r].n;
        assert_b2b(in, n, NULL, 0, 32, ref[r].hash);
        for (size_t piece = 1; piece <= 300; piece++) {
            cache_b2b s;
            uint8_t out[32];
            char hex[65];
            cache_b2b_init(&s, 32, NULL, 0);
            for (size_t off = 0; off < n; off += piece)
                cache_b2b_update(&s, in + off, n - off < piece ? n - off : piece);
            cache_b2b_final(&s, out);
            hex_of(out, 32, hex);
            assert_string_equal(hex, ref[r].hash);
        }
    }
    /* one million 'a' (a long input: the 128-bit counter's low word) */
    static uint8_t a[1000000];
    memset(a, 'a', sizeof a);
    uint8_t out[32];
    char hex[65];
    cache_b2b_hash(out, 32, a, sizeof a);
    hex_of(out, 32, hex);
    assert_string_equal(hex, "0741850f36cba4259628355d1073e24ddb9ca0e1bfac36fd39ae5dc2101e23a4");
}

/* ---- keys ---- */

static void test_key_components(void **state)
{
    (void)state;
    cache_keyer k;
    cache_key a, b, c, d;
    cache_key_begin(&k);
    cache_key_add(&k, "x", "ab", 2);
    cache_key_add(&k, "y", "c", 1);
    cache_key_end(&k, &a);
    /* moving a byte between components changes the key (length prefixes) */
    cache_key_begin(&k);
    cache_key_add(&k, "x", "a", 1);
    cache_key_add(&k, "y", "bc", 2);
    cache_key_end(&k, &b);
    /* so does a label */
    cache_key_begin(&k);
    cache_key_add(&k, "x", "ab", 2);
    cache_key_add(&k, "z", "c", 1);
    cache_key_end(&k, &c);
    /* and the same components give the same key */
    cache_key_begin(&k);
    cache_key_add(&k, "x", "ab", 2);
    cache_key_add_str(&k, "y", "c");
    cache_key_end(&k, &d);
    assert_memory_not_equal(a.b, b.b, CACHE_KEY_BYTES);
    assert_memory_not_equal(a.b, c.b, CACHE_KEY_BYTES);
    assert_memory_equal(a.b, d.b, CACHE_KEY_BYTES);
    char hex[CACHE_KEY_HEX + 1];
    cache_key_hex(&a, hex);
    assert_int_equal(strlen(hex), 64);
    assert_int_equal(strspn(hex, "0123456789abcdef"), 64);
    char want[3];
    sprintf(want, "%02x", a.b[0]);
    assert_memory_equal(hex, want, 2);
}

/* ---- configuration ---- */

static void test_parse_size(void **state)
{
    (void)state;
    static const struct { const char *s; uint64_t v; } good[] = {
        {"1", 1}, {"268435456", 268435456}, {"512K", 512 << 10}, {"512k", 512 << 10},
        {"64M", 64 << 20}, {"64MiB", 64 << 20}, {"64MB", 64 << 20}, {"2G", 2ULL << 30},
        {"1T", 1ULL << 40}, {"100b", 100}, {"3Mi", 3 << 20},
    };
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        uint64_t v = 0;
        assert_int_equal(cache_parse_size(good[i].s, &v), 0);
        assert_true(v == good[i].v);
    }
    static const char *const bad[] = {"", "0", "0M", "-1", "M", "12X", "1.5G", " 1", "1 ",
                                      "99999999999999999999", "20000000T", "1KiBB", "1iB"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        uint64_t v = 0;
        if (cache_parse_size(bad[i], &v) == 0)
            fail_msg("'%s' accepted as %llu", bad[i], (unsigned long long)v);
    }
}

static void test_config_env(void **state)
{
    (void)state;
    cache_config cfg;
    char warn[256];
    unsetenv("PTXJIT_CACHE_DISABLE");
    unsetenv("PTXJIT_CACHE_MAXSIZE");
    setenv("PTXJIT_CACHE_PATH", "/some/where", 1);
    setenv("XDG_CACHE_HOME", "/xdg", 1);
    setenv("HOME", "/home/u", 1);
    assert_int_equal(cache_config_from_env(&cfg, warn, sizeof warn), 0);
    assert_true(cfg.enabled);
    assert_string_equal(cfg.dir, "/some/where");
    assert_true(cfg.max_bytes == 256ULL << 20);
    assert_string_equal(warn, "");
    cache_config_free(&cfg);

    unsetenv("PTXJIT_CACHE_PATH");
    cache_config_from_env(&cfg, warn, sizeof warn);
    assert_string_equal(cfg.dir, "/xdg/ptxjit");
    cache_config_free(&cfg);

    setenv("XDG_CACHE_HOME", "relative/dir", 1); /* XDG: relative paths are ignored */
    cache_config_from_env(&cfg, warn, sizeof warn);
    assert_string_equal(cfg.dir, "/home/u/.cache/ptxjit");
    cache_config_free(&cfg);

    unsetenv("XDG_CACHE_HOME");
    setenv("PTXJIT_CACHE_PATH", "", 1); /* empty: unset */
    cache_config_from_env(&cfg, warn, sizeof warn);
    assert_string_equal(cfg.dir, "/home/u/.cache/ptxjit");
    cache_config_free(&cfg);

    static const struct { const char *v; bool enabled; } off[] = {
        {"1", false}, {"yes", false}, {"0", true}, {"", true}};
    for (size_t i = 0; i < 4; i++) {
        setenv("PTXJIT_CACHE_DISABLE", off[i].v, 1);
        cache_config_from_env(&cfg, warn, sizeof warn);
        assert_int_equal(cfg.enabled, off[i].enabled);
        assert_non_null(cfg.dir); /* known even when off: `ptxjit cache clear` */
        cache_config_free(&cfg);
    }
    unsetenv("PTXJIT_CACHE_DISABLE");

    setenv("PTXJIT_CACHE_MAXSIZE", "10M", 1);
    cache_config_from_env(&cfg, warn, sizeof warn);
    assert_true(cfg.max_bytes == 10ULL << 20);
    assert_string_equal(warn, "");
    cache_config_free(&cfg);
    setenv("PTXJIT_CACHE_MAXSIZE", "lots", 1);
    cache_config_from_env(&cfg, warn, sizeof warn);
    assert_true(cfg.max_bytes == CACHE_DEFAULT_MAX_BYTES);
    assert_non_null(strstr(warn, "PTXJIT_CACHE_MAXSIZE='lots'"));
    cache_config_free(&cfg);
    unsetenv("PTXJIT_CACHE_MAXSIZE");
}

/* ---- the entry format ---- */

static uint8_t payload[20000];

/* An entry for the first len bytes of payload: half random, half 'x'. */
static void *make_entry_of(const cache_key *key, size_t len, size_t *size)
{
    void *e;
    fill_random(payload, len / 2, 1);
    memset(payload + len / 2, 'x', len - len / 2); /* the compressible half */
    assert_int_equal(cache_entry_encode(key, payload, len, &e, size), 0);
    return e;
}

static void *make_entry(const cache_key *key, size_t *size)
{
    return make_entry_of(key, sizeof payload, size);
}

static void expect_bad(const cache_key *key, const void *e, size_t size, const char *why_part)
{
    void *out = (void *)1;
    size_t len;
    char why[256] = "";
    if (cache_entry_decode(key, e, size, &out, &len, why, sizeof why) != -1)
        fail_msg("a damaged entry (%s expected) was accepted", why_part ? why_part : "a rejection");
    assert_null(out);
    if (why_part && !strstr(why, why_part))
        fail_msg("'%s' does not mention '%s'", why, why_part);
}

static void test_entry_roundtrip(void **state)
{
    (void)state;
    cache_key key = key_of("roundtrip");
    size_t size;
    uint8_t *e = make_entry(&key, &size);
    assert_true(size < sizeof payload); /* the compressible half shrank */
    assert_memory_equal(e, "PTXJCACH", 8);
    assert_int_equal(e[CACHE_OFF_VERSION], CACHE_FORMAT_VERSION);
    assert_memory_equal(e + CACHE_OFF_KEY, key.b, CACHE_KEY_BYTES);
    void *out;
    size_t len;
    char why[256];
    assert_int_equal(cache_entry_decode(&key, e, size, &out, &len, why, sizeof why), 0);
    assert_int_equal(len, sizeof payload);
    assert_memory_equal(out, payload, len);
    free(out);
    free(e);
    /* an empty payload is an entry too */
    assert_int_equal(cache_entry_encode(&key, "", 0, (void **)&e, &size), 0);
    assert_int_equal(cache_entry_decode(&key, e, size, &out, &len, why, sizeof why), 0);
    assert_int_equal(len, 0);
    free(out);
    free(e);
}

/* Every single-bit flip anywhere (header or frame) and every truncation
 * is detected. */
static void test_entry_every_byte(void **state)
{
    (void)state;
    cache_key key = key_of("flips");
    size_t size;
    uint8_t *e = make_entry_of(&key, 3000, &size); /* small: each try hashes it all */
    for (size_t i = 0; i < size; i++) {
        for (int bit = 0; bit < 8; bit += 7) {
            e[i] ^= (uint8_t)(1 << bit);
            expect_bad(&key, e, size, NULL);
            e[i] ^= (uint8_t)(1 << bit);
        }
    }
    for (size_t n = 0; n < size; n++)
        expect_bad(&key, e, n, n < CACHE_HEADER_SIZE ? "shorter than the header" : "truncated");
    uint8_t *longer = malloc(size + 1);
    memcpy(longer, e, size);
    longer[size] = 0;
    expect_bad(&key, longer, size + 1, "bad size");
    free(longer);
    free(e);
}

/* Each header field is checked for itself: a damaged field with a
 * recomputed checksum is still caught, by the check that names it. */
static void test_entry_fields(void **state)
{
    (void)state;
    cache_key key = key_of("fields"), other = key_of("other");
    size_t size;
    uint8_t *good = make_entry(&key, &size);
    uint8_t *e = malloc(size);
    static const struct { size_t off; uint8_t x; const char *why; } cases[] = {
        {0, 0x01, "bad magic"},
        {7, 0x80, "bad magic"},
        {CACHE_OFF_VERSION, 0x03, "format version 2, this ptxjit reads 1"},
        {CACHE_OFF_VERSION + 3, 0x01, "format version"},
        {CACHE_OFF_FLAGS, 0x01, "unknown flags 0x1"},
        {CACHE_OFF_KEY + 5, 0x10, "another key"},
        {CACHE_OFF_USIZE, 0x01, "does not hold"},
        {CACHE_OFF_USIZE + 7, 0x01, "out of range"},
        {CACHE_OFF_CSIZE, 0x01, "bytes after the header"},
        {CACHE_OFF_CSIZE + 5, 0x01, "truncated"},
        {CACHE_HEADER_SIZE + 40, 0x01, "decompression failed"},
        {CACHE_HEADER_SIZE + 1000, 0x01, "decompression failed"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        memcpy(e, good, size);
        e[cases[i].off] ^= cases[i].x;
        expect_bad(&key, e, size, NULL); /* as written: caught (often by the checksum) */
        cache_entry_seal(e, size);
        expect_bad(&key, e, size, cases[i].why);
    }
    /* the last byte of the frame is the end of zstd's content checksum */
    memcpy(e, good, size);
    e[size - 1] ^= 0x40;
    cache_entry_seal(e, size);
    expect_bad(&key, e, size, "decompression failed");
    /* the checksum field itself */
    memcpy(e, good, size);
    e[CACHE_OFF_CHECKSUM + 31] ^= 1;
    expect_bad(&key, e, size, "checksum mismatch");
    /* a valid entry read for another key */
    expect_bad(&other, good, size, "another key");
    free(e);
    free(good);
}

/* ---- the store ---- */

static void test_store_roundtrip(void **state)
{
    (void)state;
    char *tmp = ct_tmpdir(), *dir;
    assert_true(asprintf(&dir, "%s/a/b/cache", tmp) > 0);
    cache *c = cache_open(dir, 1 << 20);
    cache_key key = key_of("store");
    void *data;
    size_t size;
    assert_int_equal(cache_get(c, &key, &data, &size), -1); /* no directory yet */
    assert_int_equal(cache_put(c, &key, "hello cache", 11), 0);
    struct stat st;
    assert_int_equal(stat(dir, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700); /* private, parents too */
    char *parent;
    assert_true(asprintf(&parent, "%s/a", tmp) > 0);
    assert_int_equal(stat(parent, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    char *path = entry_path(dir, &key);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_int_equal(cache_get(c, &key, &data, &size), 0);
    assert_int_equal(size, 11);
    assert_memory_equal(data, "hello cache", 11);
    free(data);
    /* nothing but the entry: no temporary file left behind */
    cache_usage u;
    assert_int_equal(cache_usage_of(dir, &u), 0);
    assert_int_equal(u.entries, 1);
    assert_int_equal(u.bytes, st.st_size);
    cache_record(c, true);
    cache_record(c, true);
    cache_record(c, false);
    assert_int_equal(cache_usage_of(dir, &u), 0);
    assert_int_equal(u.hits, 2);
    assert_int_equal(u.misses, 1);
    uint64_t removed;
    assert_int_equal(cache_clear(dir, &removed), 0);
    assert_int_equal(removed, 1);
    assert_int_equal(cache_usage_of(dir, &u), 0);
    assert_int_equal(u.entries + u.hits + u.misses, 0);
    /* a cleared (even deleted) directory is made again at the next store */
    ct_rmrf(dir);
    assert_int_equal(cache_put(c, &key, "again", 5), 0);
    assert_int_equal(cache_get(c, &key, &data, &size), 0);
    free(data);
    cache_close(c);
    free(path);
    free(parent);
    free(dir);
    ct_rmrf(tmp);
    free(tmp);
}

/* A damaged file is reported once on the debug channel, deleted, a miss. */
static void test_store_damaged_file(void **state)
{
    (void)state;
    char *dir = ct_tmpdir();
    cache *c = cache_open(dir, 1 << 20);
    cache_key key = key_of("damaged");
    char *path = entry_path(dir, &key);
    uint8_t *raw = malloc(sizeof payload);
    fill_random(raw, sizeof payload, 9);
    setenv("PTXJIT_DEBUG", "cache", 1);
    static const size_t cut[] = {0, 10, CACHE_HEADER_SIZE, 3000};
    for (int i = 0; i < 5; i++) {
        assert_int_equal(cache_put(c, &key, raw, sizeof payload), 0);
        size_t n;
        void *bytes = NULL;
        FILE *f = fopen(path, "rb");
        assert_non_null(f);
        bytes = malloc(50000);
        n = fread(bytes, 1, 50000, f);
        fclose(f);
        if (i < 4)
            n = cut[i]; /* truncated */
        else
            ((uint8_t *)bytes)[n / 2] ^= 4; /* a flipped bit */
        ct_write_file(path, bytes, n);
        free(bytes);
        void *data;
        size_t size;
        ct_capture_begin();
        int rc = cache_get(c, &key, &data, &size);
        char *err = ct_capture_end();
        assert_int_equal(rc, -1);
        assert_int_equal(ct_count_lines(err, "bad entry"), 1);
        assert_false(ct_file_exists(path));
        free(err);
    }
    unsetenv("PTXJIT_DEBUG");
    /* without the debug channel: silent */
    assert_int_equal(cache_put(c, &key, raw, sizeof payload), 0);
    ct_write_file(path, "junk", 4);
    void *data;
    size_t size;
    ct_capture_begin();
    assert_int_equal(cache_get(c, &key, &data, &size), -1);
    char *err = ct_capture_end();
    assert_string_equal(err, "");
    free(err);
    free(raw);
    free(path);
    cache_close(c);
    ct_rmrf(dir);
    free(dir);
}

/* Least recently used first; cache_get makes an entry the most recent. */
static void test_evict_lru(void **state)
{
    (void)state;
    char *dir = ct_tmpdir();
    uint8_t *raw = malloc(4000);
    cache_key keys[4];
    char *paths[4];
    cache *c = cache_open(dir, 1 << 30);
    for (int i = 0; i < 4; i++) {
        char name[8];
        sprintf(name, "k%d", i);
        keys[i] = key_of(name);
        paths[i] = entry_path(dir, &keys[i]);
    }
    for (int i = 0; i < 3; i++) {
        fill_random(raw, 4000, (uint64_t)i + 100); /* incompressible: equal sizes */
        assert_int_equal(cache_put(c, &keys[i], raw, 4000), 0);
        ct_set_mtime(paths[i], 1000000 + i); /* k0 oldest, k2 newest */
    }
    uint64_t one = ct_file_size(paths[0]);
    assert_true(one > 4000);
    cache_close(c);
    /* room for exactly three entries */
    c = cache_open(dir, 3 * one);
    void *data;
    size_t size;
    assert_int_equal(cache_get(c, &keys[0], &data, &size), 0); /* k0 is now the newest */
    free(data);
    fill_random(raw, 4000, 103);
    assert_int_equal(cache_put(c, &keys[3], raw, 4000), 0);
    assert_true(ct_file_exists(paths[0]));
    assert_false(ct_file_exists(paths[1])); /* the least recently used */
    assert_true(ct_file_exists(paths[2]));
    assert_true(ct_file_exists(paths[3]));
    cache_close(c);
    /* a smaller bound evicts down to it, oldest first */
    ct_set_mtime(paths[0], 2000000);
    ct_set_mtime(paths[2], 2000001);
    ct_set_mtime(paths[3], 2000002);
    c = cache_open(dir, one + one / 2);
    fill_random(raw, 4000, 104);
    assert_int_equal(cache_put(c, &keys[1], raw, 4000), 0);
    assert_false(ct_file_exists(paths[0]));
    assert_false(ct_file_exists(paths[2]));
    assert_false(ct_file_exists(paths[3]));
    assert_true(ct_file_exists(paths[1])); /* just stored: the newest */
    cache_usage u;
    assert_int_equal(cache_usage_of(dir, &u), 0);
    assert_int_equal(u.entries, 1);
    cache_close(c);
    /* stale temporary files (a crashed writer's) go; a fresh one stays */
    char *stale, *fresh;
    assert_true(asprintf(&stale, "%s/.tmp-old", dir) > 0);
    assert_true(asprintf(&fresh, "%s/.tmp-new", dir) > 0);
    ct_write_file(stale, "x", 1);
    ct_write_file(fresh, "x", 1);
    ct_set_mtime(stale, 1000);
    assert_int_equal(cache_usage_of(dir, &u), 0);
    assert_false(ct_file_exists(stale));
    assert_true(ct_file_exists(fresh));
    for (int i = 0; i < 4; i++)
        free(paths[i]);
    free(stale);
    free(fresh);
    free(raw);
    ct_rmrf(dir);
    free(dir);
}

/* A directory that cannot be made: every store fails, one warning. */
static void test_unwritable(void **state)
{
    (void)state;
    char *tmp = ct_tmpdir(), *file, *dir;
    assert_true(asprintf(&file, "%s/file", tmp) > 0);
    assert_true(asprintf(&dir, "%s/file/cache", tmp) > 0);
    ct_write_file(file, "x", 1); /* a regular file where a directory should be */
    cache *c = cache_open(dir, 1 << 20);
    cache_key key = key_of("nowhere");
    ct_capture_begin();
    assert_int_equal(cache_put(c, &key, "abc", 3), -1);
    assert_int_equal(cache_put(c, &key, "abc", 3), -1);
    void *data;
    size_t size;
    assert_int_equal(cache_get(c, &key, &data, &size), -1);
    cache_record(c, false);
    char *err = ct_capture_end();
    assert_int_equal(ct_count_lines(err, ""), 1); /* one line, the warning */
    assert_int_equal(ct_count_lines(err, "warning"), 1);
    assert_non_null(strstr(err, "creating the directory: Not a directory"));
    free(err);
    cache_close(c);
    free(file);
    free(dir);
    ct_rmrf(tmp);
    free(tmp);
}

/* A handle on dir: the entry stored under `key` is refused, with one
 * warning naming why, and the handle then neither reads nor writes. */
static void expect_refused(const char *dir, const cache_key *key, const char *why)
{
    cache *c = cache_open(dir, 1 << 20);
    ct_capture_begin();
    void *data;
    size_t size;
    assert_int_equal(cache_get(c, key, &data, &size), -1);
    cache_key other = key_of("other");
    assert_int_equal(cache_put(c, &other, "planted?", 8), -1);
    assert_int_equal(cache_get(c, &other, &data, &size), -1);
    char *err = ct_capture_end();
    assert_int_equal(ct_count_lines(err, "warning"), 1);
    assert_non_null(strstr(err, why));
    assert_non_null(strstr(err, "continuing without the cache"));
    char *path = entry_path(dir, &other);
    assert_false(ct_file_exists(path));
    free(path);
    free(err);
    cache_close(c);
}

/* Whom the cache trusts: a directory or entry owned by another user, or
 * writable by anyone but its owner (a shared PTXJIT_CACHE_PATH where
 * another account can plant an entry with a valid checksum) is not used. */
static void test_untrusted(void **state)
{
    (void)state;
    char *tmp = ct_tmpdir(), *dir;
    assert_true(asprintf(&dir, "%s/cache", tmp) > 0);
    cache_key key = key_of("victim");
    cache *c = cache_open(dir, 1 << 20);
    assert_int_equal(cache_put(c, &key, "trusted", 7), 0);
    cache_close(c);
    char *path = entry_path(dir, &key);
    assert_int_equal(chmod(path, 0666), 0);
    expect_refused(dir, &key, "writable by other users");
    assert_int_equal(chmod(path, 0620), 0);
    expect_refused(dir, &key, "writable by other users");
    assert_int_equal(chmod(path, 0600), 0);
    assert_int_equal(chmod(dir, 0777), 0);
    expect_refused(dir, &key, "writable by other users");
    assert_int_equal(chmod(dir, 01777), 0); /* sticky, as /tmp: still anyone's */
    expect_refused(dir, &key, "writable by other users");
    assert_int_equal(chmod(dir, 0755), 0); /* readable by others is fine */
    c = cache_open(dir, 1 << 20);
    void *data;
    size_t size;
    assert_int_equal(cache_get(c, &key, &data, &size), 0);
    assert_memory_equal(data, "trusted", 7);
    free(data);
    cache_close(c);
    if (geteuid() == 0) { /* root can hand files to another user */
        assert_int_equal(chown(path, 65534, 65534), 0);
        expect_refused(dir, &key, "owned by another user");
        assert_int_equal(chown(path, 0, 0), 0);
        assert_int_equal(chown(dir, 65534, 65534), 0);
        expect_refused(dir, &key, "owned by another user");
    } else {
        printf("test_untrusted: other owners skipped (needs root to chown)\n");
    }
    free(path);
    free(dir);
    ct_rmrf(tmp);
    free(tmp);
}

/* A full disk (simulated with a file-size limit): the store fails, one
 * warning, no temporary file left; small entries still fit. */
static void test_full(void **state)
{
    (void)state;
    char *dir = ct_tmpdir();
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN); /* writes past the limit fail with EFBIG */
        struct rlimit rl = {8192, 8192};
        setrlimit(RLIMIT_FSIZE, &rl);
        cache *c = cache_open(dir, 1 << 20);
        uint8_t big[20000];
        fill_random(big, sizeof big, 5);
        cache_key key = key_of("big");
        ct_capture_begin();
        int r1 = cache_put(c, &key, big, sizeof big);
        int r2 = cache_put(c, &key, big, sizeof big);
        int r3 = cache_put(c, &key, "small", 5);
        char *err = ct_capture_end();
        cache_usage u;
        cache_usage_of(dir, &u);
        int tmpfiles = ct_count_files(dir, ".tmp-");
        _exit(!(r1 == -1 && r2 == -1 && r3 == 0 && ct_count_lines(err, "warning") == 1 &&
                strstr(err, "File too large") && u.entries == 1 && !tmpfiles));
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    ct_rmrf(dir);
    free(dir);
}

/* ---- concurrency ---- */

/* Processes counting hits at once lose no update. */
static void test_stats_concurrent(void **state)
{
    (void)state;
    char *dir = ct_tmpdir();
    enum { PROCS = 6, EACH = 200 };
    pid_t pids[PROCS];
    for (int p = 0; p < PROCS; p++) {
        if ((pids[p] = fork()) == 0) {
            cache *c = cache_open(dir, 1 << 20);
            for (int i = 0; i < EACH; i++)
                cache_record(c, i % 4 != 0);
            _exit(0);
        }
    }
    for (int p = 0; p < PROCS; p++) {
        int status;
        waitpid(pids[p], &status, 0);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    cache_usage u;
    assert_int_equal(cache_usage_of(dir, &u), 0);
    assert_int_equal(u.hits, PROCS * EACH * 3 / 4);
    assert_int_equal(u.misses, PROCS * EACH / 4);
    ct_rmrf(dir);
    free(dir);
}

/* Writers and readers of the same and different keys at once: every
 * read is a miss or the exact payload, never a torn entry; a small bound
 * makes evictions race with them too. */
static void test_store_concurrent(void **state)
{
    (void)state;
    char *dir = ct_tmpdir();
    enum { PROCS = 6, ROUNDS = 150, KEYS = 5, LEN = 30000 };
    pid_t pids[PROCS];
    for (int p = 0; p < PROCS; p++) {
        if ((pids[p] = fork()) == 0) {
            cache *c = cache_open(dir, 4 * LEN);
            static uint8_t want[KEYS][LEN];
            cache_key keys[KEYS];
            for (int k = 0; k < KEYS; k++) {
                char name[8];
                sprintf(name, "c%d", k);
                keys[k] = key_of(name);
                fill_random(want[k], LEN, (uint64_t)k);
            }
            int bad = 0, hits = 0;
            for (int r = 0; r < ROUNDS; r++) {
                int k = (r / 10 + p) % KEYS; /* runs of one key: misses then hits */
                void *data;
                size_t size;
                if (cache_get(c, &keys[k], &data, &size) == 0) {
                    hits++;
                    bad += size != LEN || memcmp(data, want[k], LEN);
                    free(data);
                } else if (cache_put(c, &keys[k], want[k], LEN)) {
                    bad++;
                }
            }
            cache_close(c);
            _exit(bad ? 1 : hits ? 0 : 2);
        }
    }
    for (int p = 0; p < PROCS; p++) {
        int status;
        waitpid(pids[p], &status, 0);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
    }
    cache_usage u;
    assert_int_equal(cache_usage_of(dir, &u), 0);
    assert_true(u.entries >= 1 && u.entries <= 4);
    ct_rmrf(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blake2b_rfc7693),
        cmocka_unit_test(test_blake2b_kat),
        cmocka_unit_test(test_blake2b_incremental),
        cmocka_unit_test(test_key_components),
        cmocka_unit_test(test_parse_size),
        cmocka_unit_test(test_config_env),
        cmocka_unit_test(test_entry_roundtrip),
        cmocka_unit_test(test_entry_every_byte),
        cmocka_unit_test(test_entry_fields),
        cmocka_unit_test(test_store_roundtrip),
        cmocka_unit_test(test_store_damaged_file),
        cmocka_unit_test(test_evict_lru),
        cmocka_unit_test(test_unwritable),
        cmocka_unit_test(test_untrusted),
        cmocka_unit_test(test_full),
        cmocka_unit_test(test_stats_concurrent),
        cmocka_unit_test(test_store_concurrent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
