/* cache_blake2b.h - BLAKE2b (RFC 7693), written from the RFC: the cache's
 * key and checksum hash.  Digests of 1 to 64 bytes, optional key of up to
 * 64 bytes, incremental input. */
#ifndef PTXJIT_CACHE_BLAKE2B_H
#define PTXJIT_CACHE_BLAKE2B_H

#include <stddef.h>
#include <stdint.h>

#define CACHE_B2B_BLOCK 128
#define CACHE_B2B_MAX_OUT 64
#define CACHE_B2B_MAX_KEY 64

typedef struct cache_b2b {
    uint64_t h[8];
    uint64_t t[2];                  /* bytes compressed so far (128-bit counter) */
    uint8_t buf[CACHE_B2B_BLOCK];   /* the pending block */
    size_t nbuf;
    size_t outlen;
} cache_b2b;

/* outlen 1..64, keylen 0..64 (key may be NULL when keylen is 0); -1 when
 * out of range. */
int cache_b2b_init(cache_b2b *s, size_t outlen, const void *key, size_t keylen);
void cache_b2b_update(cache_b2b *s, const void *data, size_t len);
/* Writes s->outlen bytes to out. */
void cache_b2b_final(cache_b2b *s, void *out);

/* One-shot, unkeyed. */
void cache_b2b_hash(void *out, size_t outlen, const void *data, size_t len);

#endif
