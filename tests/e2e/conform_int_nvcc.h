/* conform_int_nvcc.h - the "nvcc" family of test_conform_int: the kernels
 * of tests/cuda/int_conform.cu (CUDA integer intrinsics and inline PTX as
 * nvcc compiles them) with their references. */
#ifndef CONFORM_INT_NVCC_H
#define CONFORM_INT_NVCC_H

#include "conform.h"

enum { CONFORM_INT_NVCC_NOPS = 55 };
extern const conform_op conform_int_nvcc_ops[CONFORM_INT_NVCC_NOPS];

#endif
