/* cache_stats.c - hit and miss counts shared by every process using a
 * cache directory: a small text file ("hits N\nmisses N\n") read and
 * rewritten under an exclusive flock, so no update is lost. */
#include "cache_internal.h"

#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <sys/file.h>
#include <unistd.h>

static void parse(const char *buf, uint64_t *hits, uint64_t *misses)
{
    if (sscanf(buf, "hits %" SCNu64 "\nmisses %" SCNu64, hits, misses) != 2)
        *hits = *misses = 0; /* damaged: start again */
}

static void read_locked(int fd, uint64_t *hits, uint64_t *misses)
{
    char buf[128];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    buf[n > 0 ? n : 0] = 0;
    parse(buf, hits, misses);
}

static int open_stats(const char *dir, int flags)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%s", dir, CACHE_STATS_FILE) >= (int)sizeof path)
        return -1;
    return open(path, flags | O_CLOEXEC | O_NOFOLLOW, 0600);
}

void cache_stats_read(const char *dir, uint64_t *hits, uint64_t *misses)
{
    *hits = *misses = 0;
    int fd = open_stats(dir, O_RDONLY);
    if (fd < 0)
        return;
    if (!flock(fd, LOCK_SH))
        read_locked(fd, hits, misses);
    close(fd);
}

void cache_record(cache *c, bool hit)
{
    /* No O_CREAT of the directory: a cache that was never stored into has
     * nothing to count. */
    int fd = open_stats(cache_dir(c), O_RDWR | O_CREAT);
    if (fd < 0)
        return;
    if (!flock(fd, LOCK_EX)) {
        uint64_t hits, misses;
        read_locked(fd, &hits, &misses);
        *(hit ? &hits : &misses) += 1;
        char buf[128];
        int n = snprintf(buf, sizeof buf, "hits %" PRIu64 "\nmisses %" PRIu64 "\n", hits, misses);
        if (pwrite(fd, buf, (size_t)n, 0) == n)
            (void)!ftruncate(fd, n);
    }
    close(fd); /* releases the lock */
}
