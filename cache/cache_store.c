/* cache_store.c - looking entries up and publishing them: a reader opens
 * <key>.pjc and verifies it; a writer writes a temporary file in the same
 * directory, fsyncs it and renames it over <key>.pjc, so a reader sees the
 * old file, the new one or none, never a mix (rename is atomic within a
 * file system).  Concurrent writers of one key write identical bytes, so
 * whichever rename lands last is as good as the other. */
#define _GNU_SOURCE /* mkostemp */
#include "cache_debug.h"
#include "cache_entry.h"
#include "cache_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct cache {
    char *dir;
    uint64_t max_bytes;
    atomic_bool warned; /* the one stderr warning of this handle was given
                           (kernels compile and store on several threads) */
    atomic_bool untrusted; /* the directory or an entry failed the trust test */
};

cache *cache_open(const char *dir, uint64_t max_bytes)
{
    cache *c = calloc(1, sizeof *c);
    if (!c || !(c->dir = strdup(dir))) {
        free(c);
        return NULL;
    }
    c->max_bytes = max_bytes;
    return c;
}

void cache_close(cache *c)
{
    if (!c)
        return;
    free(c->dir);
    free(c);
}

const char *cache_dir(const cache *c) { return c->dir; }

static bool entry_path(const cache *c, const cache_key *key, char *path, size_t len)
{
    char hex[CACHE_KEY_HEX + 1];
    cache_key_hex(key, hex);
    int n = snprintf(path, len, "%s/%s%s", c->dir, hex, CACHE_ENTRY_SUFFIX);
    return n > 0 && (size_t)n < len;
}

/* Reads the whole of a regular file of at most max bytes. */
static int read_all(int fd, size_t size, void **out)
{
    char *buf = malloc(size ? size : 1);
    if (!buf)
        return -1;
    size_t got = 0;
    while (got < size) {
        ssize_t n = read(fd, buf + got, size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    if (got != size) {
        free(buf);
        return -1;
    }
    *out = buf;
    return 0;
}

/* Deletes path if it is still the file open as fd: a writer may have
 * replaced a bad entry with a good one meanwhile. */
static void unlink_if_same(const char *path, const struct stat *seen)
{
    struct stat now;
    if (lstat(path, &now) || now.st_dev != seen->st_dev || now.st_ino != seen->st_ino)
        return;
    if (S_ISDIR(now.st_mode))
        rmdir(path); /* an empty one; anything else stays a miss */
    else
        unlink(path);
}

/* Whom the cache trusts, as ccache and pip decide: a directory or entry
 * that another user owns, or that anyone but its owner may write, could
 * hold code someone else planted (a checksum proves nothing against an
 * author who recomputes it).  Such a cache is not used at all: one
 * warning, then every lookup is a miss and nothing is stored. */
static bool trusted(const struct stat *st)
{
    return st->st_uid == geteuid() && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

static bool distrust(cache *c, const char *path, const struct stat *st)
{
    atomic_store(&c->untrusted, true);
    if (!atomic_exchange(&c->warned, true))
        fprintf(stderr, "ptxjit: warning: compilation cache '%s': '%s' is %s; continuing without "
                "the cache\n", c->dir, path,
                st->st_uid != geteuid() ? "owned by another user" : "writable by other users");
    cache_debug("untrusted: %s (uid %u, mode %o)", path, (unsigned)st->st_uid,
                (unsigned)(st->st_mode & 07777));
    return false;
}

/* The directory, unless it does not exist yet (then nothing is read from
 * it, and cache_put creates it private before checking again). */
static bool dir_trusted(cache *c)
{
    if (atomic_load(&c->untrusted))
        return false;
    struct stat st;
    return stat(c->dir, &st) || trusted(&st) || distrust(c, c->dir, &st);
}

/* Damaged entries are reported (debug channel) and deleted: a miss. */
static int reject(const char *path, const struct stat *st, const char *why)
{
    cache_debug("bad entry %s: %s; deleted", path, why);
    unlink_if_same(path, st);
    return -1;
}

int cache_get(cache *c, const cache_key *key, void **data, size_t *size)
{
    char path[PATH_MAX], why[256];
    if (!entry_path(c, key, path, sizeof path) || !dir_trusted(c))
        return -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
        if (errno != ENOENT)
            cache_debug("cannot open %s: %s", path, strerror(errno));
        cache_debug("miss %s", path);
        return -1;
    }
    struct stat st;
    void *raw = NULL;
    int rc = -1;
    const uint64_t limit = CACHE_HEADER_SIZE + CACHE_MAX_PAYLOAD + (CACHE_MAX_PAYLOAD >> 7) + 4096;
    if (fstat(fd, &st))
        cache_debug("cannot stat %s: %s", path, strerror(errno));
    else if (!S_ISREG(st.st_mode))
        reject(path, &st, "not a regular file");
    else if (!trusted(&st))
        distrust(c, path, &st);
    else if ((uint64_t)st.st_size > limit)
        reject(path, &st, "larger than any entry");
    else if (read_all(fd, (size_t)st.st_size, &raw))
        cache_debug("cannot read %s", path);
    else if ((rc = cache_entry_decode(key, raw, (size_t)st.st_size, data, size, why,
                                      sizeof why)) == -1)
        reject(path, &st, why);
    if (rc == 0) {
        futimens(fd, NULL); /* most recently used (a read-only cache stays usable) */
        cache_debug("hit %s", path);
    }
    free(raw);
    close(fd);
    return rc == 0 ? 0 : -1;
}

/* Warns on stderr the first time this handle fails to write. */
static int put_failed(cache *c, const char *what, int err)
{
    if (!atomic_exchange(&c->warned, true))
        fprintf(stderr, "ptxjit: warning: compilation cache '%s': %s: %s; continuing without "
                "storing compiled code\n", c->dir, what, strerror(err));
    cache_debug("store failed: %s: %s", what, strerror(err));
    return -1;
}

/* mkdir -p with mode 0700 for every component created. */
static int make_dir(char *path)
{
    struct stat st;
    if (!stat(path, &st))
        return S_ISDIR(st.st_mode) ? 0 : (errno = ENOTDIR, -1);
    char *slash = strrchr(path, '/');
    if (slash && slash != path) {
        *slash = 0;
        int r = make_dir(path);
        *slash = '/';
        if (r)
            return -1;
    }
    return mkdir(path, 0700) && errno != EEXIST ? -1 : 0;
}

static int write_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Writes the entry to a new temporary file and renames it into place. */
static int publish(cache *c, const char *path, const void *entry, size_t size)
{
    char tmp[PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s/%sXXXXXX", c->dir, CACHE_TMP_PREFIX) >= (int)sizeof tmp)
        return put_failed(c, "path too long", ENAMETOOLONG);
    int fd = mkostemp(tmp, O_CLOEXEC); /* mode 0600 */
    if (fd < 0)
        return put_failed(c, "creating a file", errno);
    const char *what = NULL;
    if (write_all(fd, entry, size))
        what = "writing";
    else if (fsync(fd))
        what = "syncing";
    int err = errno;
    if (close(fd) && !what)
        what = "writing", err = errno;
    if (!what && rename(tmp, path))
        what = "renaming", err = errno;
    if (what) {
        unlink(tmp);
        return put_failed(c, what, err);
    }
    return 0;
}

int cache_put(cache *c, const cache_key *key, const void *data, size_t size)
{
    char path[PATH_MAX];
    void *entry;
    size_t esize;
    if (!entry_path(c, key, path, sizeof path))
        return put_failed(c, "path too long", ENAMETOOLONG);
    /* Every time: `ptxjit cache clear` may have removed it meanwhile. */
    if (make_dir(c->dir))
        return put_failed(c, "creating the directory", errno);
    if (!dir_trusted(c))
        return -1;
    if (cache_entry_encode(key, data, size, &entry, &esize))
        return put_failed(c, "compressing", ENOMEM);
    int rc = publish(c, path, entry, esize);
    free(entry);
    if (rc)
        return -1;
    cache_debug("stored %s (%zu bytes, %zu uncompressed)", path, esize, size);
    cache_evict(c->dir, c->max_bytes);
    return 0;
}

void cache_drop(cache *c, const cache_key *key, const char *why)
{
    char path[PATH_MAX];
    if (!entry_path(c, key, path, sizeof path))
        return;
    cache_debug("bad entry %s: %s; deleted", path, why);
    unlink(path);
}
