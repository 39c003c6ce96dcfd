/* cache.h - the compiled-code cache: a content-addressed store of byte
 * strings on disk, one zstd-compressed file per entry.
 *
 *   cache_keyer k;  cache_key key;
 *   cache_key_begin(&k);
 *   cache_key_add(&k, "ptx", src, len);   ... every input of the compiler
 *   cache_key_end(&k, &key);
 *   cache *c = cache_open(dir, max_bytes);
 *   if (cache_get(c, &key, &data, &size) == 0) ... hit (data malloc'd)
 *   else { ...compile...; cache_put(c, &key, data, size); }
 *
 * Entries are published atomically (temp file, fsync, rename), so any
 * number of processes may share a directory; a reader verifies an entry
 * (cache_entry.h) and deletes one that fails.  A cache that cannot be
 * written never fails the caller: cache_put warns once on stderr.  Knows
 * nothing of LLVM or of what the bytes mean. */
#ifndef PTXJIT_CACHE_H
#define PTXJIT_CACHE_H

#include "cache_blake2b.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- keys ---- */

#define CACHE_KEY_BYTES 32
#define CACHE_KEY_HEX (2 * CACHE_KEY_BYTES)

typedef struct cache_key {
    uint8_t b[CACHE_KEY_BYTES];
} cache_key;

typedef struct cache_keyer {
    cache_b2b h;
} cache_keyer;

/* BLAKE2b-256 over labelled, length-prefixed components, so that no two
 * different component lists hash the same bytes. */
void cache_key_begin(cache_keyer *k);
void cache_key_add(cache_keyer *k, const char *label, const void *data, size_t len);
void cache_key_add_str(cache_keyer *k, const char *label, const char *s);
void cache_key_end(cache_keyer *k, cache_key *out);
/* Lower-case hex, NUL-terminated (CACHE_KEY_HEX + 1 bytes). */
void cache_key_hex(const cache_key *k, char *hex);

/* ---- configuration from the environment ---- */

#define CACHE_DEFAULT_MAX_BYTES (UINT64_C(256) << 20)

typedef struct cache_config {
    bool enabled;        /* false: PTXJIT_CACHE_DISABLE */
    char *dir;           /* malloc'd (even when disabled); NULL without a home */
    uint64_t max_bytes;
} cache_config;

/* PTXJIT_CACHE_DISABLE (any value but "" and "0": off), PTXJIT_CACHE_PATH,
 * else $XDG_CACHE_HOME/ptxjit (absolute paths only, as XDG says), else
 * $HOME/.cache/ptxjit; PTXJIT_CACHE_MAXSIZE (cache_parse_size; default
 * 256 MiB).  A malformed MAXSIZE is described in warn (empty otherwise)
 * and the default is used.  Returns -1 only when out of memory. */
int cache_config_from_env(cache_config *cfg, char *warn, size_t warnlen);
void cache_config_free(cache_config *cfg);

/* Decimal bytes with an optional suffix K, M, G or T (powers of 1024,
 * either case, optionally followed by "i", "B" or "iB"): "1048576", "64M",
 * "2GiB".  At least 1 byte.  -1 when malformed or out of range. */
int cache_parse_size(const char *s, uint64_t *out);

/* ---- the store ---- */

typedef struct cache cache;

/* A handle on directory dir (created with mode 0700, parents included, at
 * the first store).  max_bytes bounds the sum of entry sizes.  NULL only
 * when out of memory. */
cache *cache_open(const char *dir, uint64_t max_bytes);
void cache_close(cache *c);
const char *cache_dir(const cache *c);

/* 0 and *data (malloc'd, *size bytes) for a valid entry, which becomes the
 * most recently used; -1 for a miss.  A damaged entry is reported on the
 * cache debug channel, deleted, and is a miss. */
int cache_get(cache *c, const cache_key *key, void **data, size_t *size);

/* Stores data under key, then evicts least recently used entries until
 * the directory holds at most max_bytes.  -1 when it cannot (the first
 * failure of a handle is a warning on stderr). */
int cache_put(cache *c, const cache_key *key, const void *data, size_t size);

/* Deletes the entry for key: the caller found a verified entry unusable. */
void cache_drop(cache *c, const cache_key *key, const char *why);

/* Counts a hit or a miss in the directory's statistics file. */
void cache_record(cache *c, bool hit);

/* ---- the directory as a whole (ptxjit cache stats / clear) ---- */

typedef struct cache_usage {
    uint64_t entries, bytes;  /* entry files and the sum of their sizes */
    uint64_t hits, misses;    /* from the statistics file; 0 without one */
} cache_usage;

/* -1 with errno when dir cannot be read (ENOENT: no cache yet). */
int cache_usage_of(const char *dir, cache_usage *u);

/* Deletes every entry, stale temporary file and the statistics; *removed
 * counts the entries.  -1 with errno when dir cannot be read. */
int cache_clear(const char *dir, uint64_t *removed);

#endif
