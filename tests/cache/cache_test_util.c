/* cache_test_util.c - see cache_test_util.h. */
#define _GNU_SOURCE
#include "cache_test_util.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *ct_tmpdir(void)
{
    const char *t = getenv("TMPDIR");
    char *p = NULL;
    if (asprintf(&p, "%s/ptxjit-cache-test.XXXXXX", t && *t ? t : "/tmp") < 0 || !mkdtemp(p)) {
        perror("ct_tmpdir");
        abort();
    }
    return p;
}

void ct_rmrf(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        unlink(dir);
        return;
    }
    for (struct dirent *de; (de = readdir(d));) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        char *p;
        if (asprintf(&p, "%s/%s", dir, de->d_name) < 0)
            abort();
        struct stat st;
        if (!lstat(p, &st) && S_ISDIR(st.st_mode))
            ct_rmrf(p);
        else
            unlink(p);
        free(p);
    }
    closedir(d);
    rmdir(dir);
}

static int saved_fd = -1;
static FILE *capture;

void ct_capture_begin(void)
{
    fflush(stderr);
    capture = tmpfile();
    saved_fd = dup(2);
    if (!capture || saved_fd < 0 || dup2(fileno(capture), 2) < 0)
        abort();
}

char *ct_capture_end(void)
{
    fflush(stderr);
    dup2(saved_fd, 2);
    close(saved_fd);
    off_t n = lseek(fileno(capture), 0, SEEK_END);
    char *buf = calloc(1, (size_t)n + 1);
    if (!buf || pread(fileno(capture), buf, (size_t)n, 0) != n)
        abort();
    fclose(capture);
    return buf;
}

int ct_count_lines(const char *text, const char *needle)
{
    int n = 0;
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (memmem(line, len, needle, strlen(needle)))
            n++;
        line += len + (end != NULL);
    }
    return n;
}

void ct_write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len || fclose(f))
        abort();
}

int ct_file_exists(const char *path)
{
    struct stat st;
    return !stat(path, &st);
}

uint64_t ct_file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) ? 0 : (uint64_t)st.st_size;
}

void ct_set_mtime(const char *path, long seconds)
{
    struct timespec ts[2] = {{seconds, 0}, {seconds, 0}};
    if (utimensat(AT_FDCWD, path, ts, 0))
        abort();
}

int ct_count_files(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *de; d && (de = readdir(d));)
        n += !strncmp(de->d_name, prefix, strlen(prefix));
    if (d)
        closedir(d);
    return n;
}
