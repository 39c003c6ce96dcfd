/* cache_debug.h - debug channels: PTXJIT_DEBUG is a comma-separated list
 * of channel names (parse, lower, jit, cache, rt) or "all"; messages of an
 * enabled channel go to stderr as "ptxjit: CHANNEL: message". */
#ifndef PTXJIT_CACHE_DEBUG_H
#define PTXJIT_CACHE_DEBUG_H

#include <stdbool.h>

/* Whether `channel` is named in $PTXJIT_DEBUG (read on every call: cheap,
 * and tests may change the environment). */
bool cache_debug_on(const char *channel);

/* One line on the cache channel, when enabled. */
void cache_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
