/* cache_entry.c - encoding and verifying cache entries (cache_entry.h). */
#include "cache_entry.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

/* Fast levels: compressing must stay small next to a compile. */
#define ZSTD_LEVEL 3

static void put_le(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static void checksum(const uint8_t *entry, size_t size, uint8_t out[32])
{
    cache_b2b h;
    cache_b2b_init(&h, 32, NULL, 0);
    cache_b2b_update(&h, entry, CACHE_OFF_CHECKSUM);
    cache_b2b_update(&h, entry + CACHE_HEADER_SIZE, size - CACHE_HEADER_SIZE);
    cache_b2b_final(&h, out);
}

void cache_entry_seal(void *entry, size_t size)
{
    checksum(entry, size, (uint8_t *)entry + CACHE_OFF_CHECKSUM);
}

static size_t compress(const void *src, size_t len, uint8_t *dst, size_t cap)
{
    ZSTD_CCtx *z = ZSTD_createCCtx();
    if (!z)
        return 0;
    size_t n = ZSTD_CCtx_setParameter(z, ZSTD_c_compressionLevel, ZSTD_LEVEL);
    if (!ZSTD_isError(n))
        n = ZSTD_CCtx_setParameter(z, ZSTD_c_checksumFlag, 1);
    if (!ZSTD_isError(n))
        n = ZSTD_CCtx_setParameter(z, ZSTD_c_contentSizeFlag, 1);
    if (!ZSTD_isError(n))
        n = ZSTD_compress2(z, dst, cap, src, len);
    ZSTD_freeCCtx(z);
    return ZSTD_isError(n) ? 0 : n;
}

int cache_entry_encode(const cache_key *key, const void *payload, size_t len, void **entry,
                       size_t *size)
{
    *entry = NULL;
    if ((uint64_t)len > CACHE_MAX_PAYLOAD)
        return -1;
    size_t cap = CACHE_HEADER_SIZE + ZSTD_compressBound(len);
    uint8_t *e = malloc(cap);
    if (!e)
        return -1;
    size_t csize = compress(payload, len, e + CACHE_HEADER_SIZE, cap - CACHE_HEADER_SIZE);
    if (!csize) {
        free(e);
        return -1;
    }
    memcpy(e, CACHE_MAGIC, 8);
    put_le(e + CACHE_OFF_VERSION, CACHE_FORMAT_VERSION, 4);
    put_le(e + CACHE_OFF_FLAGS, 0, 4);
    memcpy(e + CACHE_OFF_KEY, key->b, CACHE_KEY_BYTES);
    put_le(e + CACHE_OFF_USIZE, len, 8);
    put_le(e + CACHE_OFF_CSIZE, csize, 8);
    *size = CACHE_HEADER_SIZE + csize;
    cache_entry_seal(e, *size);
    *entry = e;
    return 0;
}

static int bad(char *why, size_t whylen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int bad(char *why, size_t whylen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, whylen, fmt, ap);
    va_end(ap);
    return -1;
}

/* Everything that can be checked without decompressing. */
static int check_header(const cache_key *key, const uint8_t *e, size_t size, char *why,
                        size_t whylen)
{
    if (size < CACHE_HEADER_SIZE)
        return bad(why, whylen, "truncated: %zu bytes, shorter than the header", size);
    if (memcmp(e, CACHE_MAGIC, 8))
        return bad(why, whylen, "bad magic");
    uint64_t version = get_le(e + CACHE_OFF_VERSION, 4);
    if (version != CACHE_FORMAT_VERSION)
        return bad(why, whylen, "format version %" PRIu64 ", this ptxjit reads %d", version,
                   CACHE_FORMAT_VERSION);
    if (get_le(e + CACHE_OFF_FLAGS, 4))
        return bad(why, whylen, "unknown flags 0x%" PRIx64, get_le(e + CACHE_OFF_FLAGS, 4));
    uint64_t usize = get_le(e + CACHE_OFF_USIZE, 8), csize = get_le(e + CACHE_OFF_CSIZE, 8);
    if (csize != size - CACHE_HEADER_SIZE)
        return bad(why, whylen, "%s: %zu bytes after the header, %" PRIu64 " expected",
                   csize > size - CACHE_HEADER_SIZE ? "truncated" : "bad size",
                   size - CACHE_HEADER_SIZE, csize);
    if (usize > CACHE_MAX_PAYLOAD)
        return bad(why, whylen, "payload size %" PRIu64 " is out of range", usize);
    uint8_t sum[32];
    checksum(e, size, sum);
    if (memcmp(sum, e + CACHE_OFF_CHECKSUM, sizeof sum))
        return bad(why, whylen, "checksum mismatch");
    if (memcmp(e + CACHE_OFF_KEY, key->b, CACHE_KEY_BYTES))
        return bad(why, whylen, "the entry is for another key");
    return 0;
}

int cache_entry_decode(const cache_key *key, const void *entry, size_t size, void **payload,
                       size_t *len, char *why, size_t whylen)
{
    const uint8_t *e = entry;
    *payload = NULL;
    if (check_header(key, e, size, why, whylen))
        return -1;
    uint64_t usize = get_le(e + CACHE_OFF_USIZE, 8);
    const uint8_t *frame = e + CACHE_HEADER_SIZE;
    size_t fsize = size - CACHE_HEADER_SIZE;
    unsigned long long content = ZSTD_getFrameContentSize(frame, fsize);
    if (content != usize)
        return bad(why, whylen, "the compressed frame does not hold %" PRIu64 " bytes", usize);
    uint8_t *out = malloc(usize ? usize : 1);
    if (!out)
        return bad(why, whylen, "out of memory"), -2;
    size_t n = ZSTD_decompress(out, usize, frame, fsize);
    if (ZSTD_isError(n) || n != usize) {
        free(out);
        return bad(why, whylen, "decompression failed: %s",
                   ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short output");
    }
    *payload = out;
    *len = usize;
    return 0;
}
