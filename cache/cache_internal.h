/* cache_internal.h - what the cache's files share: file names in a cache
 * directory and the statistics file.  Not for use outside cache/. */
#ifndef PTXJIT_CACHE_INTERNAL_H
#define PTXJIT_CACHE_INTERNAL_H

#include "cache.h"

#include <stdbool.h>

/* <64 hex digits>.pjc: an entry.  .tmp-*: an entry being written.  stats:
 * hit and miss counts. */
#define CACHE_ENTRY_SUFFIX ".pjc"
#define CACHE_TMP_PREFIX ".tmp-"
#define CACHE_STATS_FILE "stats"
/* Temporary files older than this are left over from a crashed writer. */
#define CACHE_STALE_TMP_SECONDS 600

bool cache_is_entry_name(const char *name);

/* Evicts least recently used entries of dir until their sizes sum to at
 * most max_bytes, and deletes stale temporary files. */
void cache_evict(const char *dir, uint64_t max_bytes);

/* Reads the statistics file (0, 0 when absent). */
void cache_stats_read(const char *dir, uint64_t *hits, uint64_t *misses);

#endif
