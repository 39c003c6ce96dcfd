/* perf_map.h - PTXJIT_PERF_MAP=1: the JIT's functions in /tmp/perf-PID.map. */
#ifndef PTXJIT_PERF_MAP_H
#define PTXJIT_PERF_MAP_H

#include <stdbool.h>
#include <stddef.h>

bool jit_perf_map_enabled(void);

/* Appends the functions of the object `obj` (an ELF relocatable), placed by
 * the load addresses `addrs` of its symbols `syms`; quietly nothing when
 * the map cannot be written. */
void jit_perf_map_add(const void *obj, size_t size, const char *const *syms, void *const *addrs,
                      size_t n);

#endif
