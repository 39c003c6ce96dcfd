/* cache_kernel.h - the PTX module the cache's pipeline tests load:
 * out[i] = in[i] * K + i + bias, with K in the code and bias (a module
 * variable) in the data, so that variants differ in text, key and result. */
#ifndef PTXJIT_CACHE_KERNEL_H
#define PTXJIT_CACHE_KERNEL_H

#include "ptxjit/ptxjit.h"

#include <stdint.h>

/* The PTX of variant (k, bias), malloc'd. */
char *ck_ptx(uint32_t k, uint32_t bias);

/* Loads nothing: runs kernel "scale" of m on n elements and compares with
 * the C reference; returns the number of wrong elements (n + 1 when the
 * launch fails or bias is not the variable's value). */
uint32_t ck_check(ptxjit_ctx *ctx, const ptxjit_module *m, uint32_t k, uint32_t bias);

#endif
