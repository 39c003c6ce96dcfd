/* memory_budget.h - whether an LLVM compile can fit in the memory the
 * process may still map. */
#ifndef PTXJIT_MEMORY_BUDGET_H
#define PTXJIT_MEMORY_BUDGET_H

#include "ptx.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Statements a compile lowers: every function of m when kernel is NULL,
 * else the kernel and every .func (the most it can call). */
uint64_t memory_budget_statements(const ptx_module *m, const char *kernel);

/* True when compiling that many statements is estimated to fit under the
 * process's address-space and data limits (RLIMIT_AS, RLIMIT_DATA), or
 * when there are none; else false, with a message in err. */
bool memory_budget_fits(uint64_t statements, char *err, size_t errlen);

#endif
