/* cache_dir.c - the directory as a whole: least-recently-used eviction
 * (an entry's modification time is its last use: cache_get touches it),
 * usage, clearing.  Other processes may delete the same files at the same
 * time, so a file that vanished is not an error. */
#include "cache_debug.h"
#include "cache_internal.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

bool cache_is_entry_name(const char *name)
{
    for (int i = 0; i < CACHE_KEY_HEX; i++)
        if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f')))
            return false;
    return !strcmp(name + CACHE_KEY_HEX, CACHE_ENTRY_SUFFIX);
}

typedef struct dir_entry {
    char name[CACHE_KEY_HEX + sizeof CACHE_ENTRY_SUFFIX];
    struct timespec used;
    uint64_t size;
} dir_entry;

typedef struct dir_scan {
    dir_entry *v;
    size_t n, cap;
    uint64_t bytes;
} dir_scan;

static bool is_stale_tmp(const char *name, const struct stat *st, time_t now)
{
    return !strncmp(name, CACHE_TMP_PREFIX, strlen(CACHE_TMP_PREFIX)) &&
           now - st->st_mtime > CACHE_STALE_TMP_SECONDS;
}

static int push(dir_scan *s, const char *name, const struct stat *st)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        dir_entry *v = realloc(s->v, cap * sizeof *v);
        if (!v)
            return -1;
        s->v = v;
        s->cap = cap;
    }
    dir_entry *e = &s->v[s->n++];
    memcpy(e->name, name, sizeof e->name); /* an entry name: exactly this long */
    e->used = st->st_mtim;
    e->size = (uint64_t)st->st_size;
    s->bytes += e->size;
    return 0;
}

/* Lists the entries of dir; deletes stale temporary files on the way. */
static int scan(const char *dir, dir_scan *s)
{
    *s = (dir_scan){0};
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    time_t now = time(NULL);
    char path[PATH_MAX];
    struct stat st;
    for (struct dirent *de; (de = readdir(d));) {
        if (snprintf(path, sizeof path, "%s/%s", dir, de->d_name) >= (int)sizeof path ||
            lstat(path, &st) || !S_ISREG(st.st_mode))
            continue;
        if (is_stale_tmp(de->d_name, &st, now))
            unlink(path);
        else if (cache_is_entry_name(de->d_name) && push(s, de->d_name, &st)) {
            closedir(d);
            free(s->v);
            return errno = ENOMEM, -1;
        }
    }
    closedir(d);
    return 0;
}

static int older(const void *a, const void *b)
{
    const dir_entry *x = a, *y = b;
    if (x->used.tv_sec != y->used.tv_sec)
        return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
    if (x->used.tv_nsec != y->used.tv_nsec)
        return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
    return strcmp(x->name, y->name);
}

void cache_evict(const char *dir, uint64_t max_bytes)
{
    dir_scan s;
    if (scan(dir, &s))
        return;
    if (s.bytes > max_bytes) {
        qsort(s.v, s.n, sizeof *s.v, older);
        char path[PATH_MAX];
        for (size_t i = 0; i < s.n && s.bytes > max_bytes; i++) {
            snprintf(path, sizeof path, "%s/%s", dir, s.v[i].name);
            if (!unlink(path) || errno == ENOENT) {
                s.bytes -= s.v[i].size;
                cache_debug("evicted %s (%llu bytes)", path, (unsigned long long)s.v[i].size);
            }
        }
    }
    free(s.v);
}

int cache_usage_of(const char *dir, cache_usage *u)
{
    dir_scan s;
    *u = (cache_usage){0};
    if (scan(dir, &s))
        return -1;
    u->entries = s.n;
    u->bytes = s.bytes;
    free(s.v);
    cache_stats_read(dir, &u->hits, &u->misses);
    return 0;
}

int cache_clear(const char *dir, uint64_t *removed)
{
    dir_scan s;
    *removed = 0;
    if (scan(dir, &s))
        return -1;
    char path[PATH_MAX];
    for (size_t i = 0; i < s.n; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, s.v[i].name);
        if (!unlink(path))
            ++*removed;
    }
    free(s.v);
    snprintf(path, sizeof path, "%s/%s", dir, CACHE_STATS_FILE);
    unlink(path);
    return 0;
}
