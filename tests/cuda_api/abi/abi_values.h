/* abi_values.h - the value of every fact in abi_facts.def (and every
 * CUresult), as one header or the other sees it; included by
 * abi_ptxjit.c (ptxjit's cuda_driver.h) and abi_nvidia.c (NVIDIA's cuda.h)
 * with ABI_ARRAY naming the array. */
#include <stddef.h>
#include <stdint.h>

#define F(e) (long long)(e),
const long long ABI_ARRAY[] = {
#define X(name, value, text) F(name)
#include "ptxjit/cuda_results.def"
#undef X
#include "abi_facts.def"
};
#undef F
const size_t ABI_ARRAY_COUNT = sizeof ABI_ARRAY / sizeof ABI_ARRAY[0];
