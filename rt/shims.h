/* shims.h - declarations of the runtime entry points (their prototypes
 * come from ptxjit/abi.h) and the launch hooks they use. */
#ifndef RT_SHIMS_H
#define RT_SHIMS_H

#include "ptxjit/abi.h"

#include <stddef.h>

#define X(name, ret, params) ret name params;
PTXJIT_RT_ENTRY_POINTS(X)
#undef X

/* Records one printf line for the launch of `cta` (launch.c). */
void rt_shim_printf_record(ptxjit_cta *cta, uint32_t thread, const char *text, size_t len);

#endif
