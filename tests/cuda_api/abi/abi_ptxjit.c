/* abi_ptxjit.c - the ABI facts under ptxjit's header. */
#include "ptxjit/cuda_driver.h"

#define ABI_ARRAY abi_ptxjit
#define ABI_ARRAY_COUNT abi_ptxjit_count
#include "abi_values.h"

/* The expressions' text, for messages. */
#define F(e) #e,
const char *const abi_names[] = {
#define X(name, value, text) F(name)
#include "ptxjit/cuda_results.def"
#undef X
#include "abi_facts.def"
};
