/* abi_nvidia.c - the same facts under NVIDIA's cuda.h. */
#include <cuda.h>

#define ABI_ARRAY abi_nvidia
#define ABI_ARRAY_COUNT abi_nvidia_count
#include "abi_values.h"
