/* test_util.h - small helpers shared by the cmocka tests. */
#ifndef PTXJIT_TEST_UTIL_H
#define PTXJIT_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Reads a whole file; NULL if unreadable.  Caller frees. */
char *tu_read_file(const char *path, size_t *len);

/* Calls fn(path, ctx) for each regular file under dir (recursively) whose
 * name ends with suffix, in sorted order; returns how many were visited. */
size_t tu_for_each_file(const char *dir, const char *suffix,
                        void (*fn)(const char *path, void *ctx), void *ctx);

/* Floats from and to their bit patterns (low 32 bits for f32). */
float tu_f32(uint64_t bits);
uint64_t tu_f32_bits(float f);
double tu_f64(uint64_t bits);
uint64_t tu_f64_bits(double d);

#endif
