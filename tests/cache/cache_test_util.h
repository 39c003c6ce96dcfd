/* cache_test_util.h - helpers of the cache tests: temporary directories,
 * capturing stderr, files. */
#ifndef PTXJIT_CACHE_TEST_UTIL_H
#define PTXJIT_CACHE_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* A new empty directory (malloc'd path); ct_rmrf removes it and its files. */
char *ct_tmpdir(void);
void ct_rmrf(const char *dir);

/* Redirects stderr to a file until ct_capture_end, which returns what was
 * written (malloc'd). */
void ct_capture_begin(void);
char *ct_capture_end(void);

/* Lines of text containing needle. */
int ct_count_lines(const char *text, const char *needle);

void ct_write_file(const char *path, const void *data, size_t len);
int ct_file_exists(const char *path);
/* Files in dir whose names start with prefix. */
int ct_count_files(const char *dir, const char *prefix);
uint64_t ct_file_size(const char *path);
/* Sets a file's modification time to `seconds` after the epoch. */
void ct_set_mtime(const char *path, long seconds);

#endif
