/* cache_cmd.c - `ptxjit cache stats` and `ptxjit cache clear`: the
 * compilation cache of the environment (PTXJIT_CACHE_PATH, ...), the one
 * `ptxjit run` uses. */
#include "cache_cmd.h"

#include "cache.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

enum { EXIT_OK = 0, EXIT_USAGE = 2 };

static double mib(uint64_t bytes) { return (double)bytes / (1024.0 * 1024.0); }

static int stats(const cache_config *cfg)
{
    cache_usage u;
    if (cache_usage_of(cfg->dir, &u) && errno != ENOENT) {
        fprintf(stderr, "ptxjit cache: cannot read '%s': %s\n", cfg->dir, strerror(errno));
        return EXIT_USAGE;
    }
    printf("directory: %s%s\n", cfg->dir,
           cfg->enabled ? "" : " (disabled by PTXJIT_CACHE_DISABLE)");
    printf("entries:   %" PRIu64 "\n", u.entries);
    printf("size:      %" PRIu64 " bytes (%.1f MiB of at most %.1f MiB)\n", u.bytes, mib(u.bytes),
           mib(cfg->max_bytes));
    printf("hits:      %" PRIu64 "\n", u.hits);
    printf("misses:    %" PRIu64 "\n", u.misses);
    return EXIT_OK;
}

static int clear(const cache_config *cfg)
{
    uint64_t removed;
    if (cache_clear(cfg->dir, &removed)) {
        if (errno != ENOENT) {
            fprintf(stderr, "ptxjit cache: cannot clear '%s': %s\n", cfg->dir, strerror(errno));
            return EXIT_USAGE;
        }
        removed = 0;
    }
    printf("removed %" PRIu64 " entr%s from %s\n", removed, removed == 1 ? "y" : "ies", cfg->dir);
    return EXIT_OK;
}

int cmd_cache(int argc, char **argv)
{
    if (argc != 2 || (strcmp(argv[1], "stats") && strcmp(argv[1], "clear"))) {
        fprintf(stderr, "ptxjit cache: expected 'stats' or 'clear'\n(see ptxjit --help)\n");
        return EXIT_USAGE;
    }
    cache_config cfg;
    char warn[256];
    if (cache_config_from_env(&cfg, warn, sizeof warn)) {
        fprintf(stderr, "ptxjit cache: out of memory\n");
        return EXIT_USAGE;
    }
    if (warn[0])
        fprintf(stderr, "ptxjit: warning: %s\n", warn);
    /* Stats and clear work on a disabled cache's directory too. */
    int rc;
    if (!cfg.dir) {
        fprintf(stderr, "ptxjit cache: no cache directory (no home directory; set "
                "PTXJIT_CACHE_PATH)\n");
        rc = EXIT_USAGE;
    } else {
        rc = !strcmp(argv[1], "stats") ? stats(&cfg) : clear(&cfg);
    }
    cache_config_free(&cfg);
    return rc;
}
