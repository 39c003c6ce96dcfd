/* cache_entry.h - the on-disk format of one cache entry.
 *
 *   offset size
 *        0    8  magic "PTXJCACH"
 *        8    4  format version (CACHE_FORMAT_VERSION)
 *       12    4  flags, 0
 *       16   32  the key
 *       48    8  uncompressed payload size
 *       56    8  compressed size (the bytes after the header)
 *       64   32  checksum: BLAKE2b-256 of bytes 0..63 and the compressed bytes
 *       96    -  one zstd frame (content size and content checksum included)
 *
 * Integers are little-endian.  A reader checks, in order: the size against
 * the header, magic, version, flags, sizes, checksum, key, then that the
 * frame decompresses to exactly the stated size. */
#ifndef PTXJIT_CACHE_ENTRY_H
#define PTXJIT_CACHE_ENTRY_H

#include "cache.h"

#define CACHE_MAGIC "PTXJCACH"
#define CACHE_FORMAT_VERSION 1
#define CACHE_HEADER_SIZE 96
#define CACHE_OFF_VERSION 8
#define CACHE_OFF_FLAGS 12
#define CACHE_OFF_KEY 16
#define CACHE_OFF_USIZE 48
#define CACHE_OFF_CSIZE 56
#define CACHE_OFF_CHECKSUM 64
#define CACHE_MAX_PAYLOAD (UINT64_C(1) << 30)

/* Builds an entry (malloc'd, *size bytes) for payload under key; -1 when
 * out of memory or the payload is larger than CACHE_MAX_PAYLOAD. */
int cache_entry_encode(const cache_key *key, const void *payload, size_t len, void **entry,
                       size_t *size);

/* Verifies an entry read from disk for key.  0 and *payload (malloc'd,
 * *len bytes); else -1 with what is wrong in why ("checksum mismatch"),
 * or -2 when out of memory (the entry may be fine). */
int cache_entry_decode(const cache_key *key, const void *entry, size_t size, void **payload,
                       size_t *len, char *why, size_t whylen);

/* Recomputes the checksum of an entry of `size` bytes (at least the
 * header) in place. */
void cache_entry_seal(void *entry, size_t size);

#endif
