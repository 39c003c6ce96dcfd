/* bench_simd.h - the vector type of the hand-written C baselines (SGEMM,
 * the FMA peak): GCC vector extensions at the width the compiler was told
 * (-march=native), so the same source is AVX-512 code on an AVX-512
 * machine and AVX2 code elsewhere. */
#ifndef BENCH_SIMD_H
#define BENCH_SIMD_H

#ifdef __AVX512F__
#define BENCH_VW 16    /* floats per vector register */
#define BENCH_VREGS 32 /* vector registers */
#else
#define BENCH_VW 8
#define BENCH_VREGS 16
#endif

typedef float vfloat __attribute__((vector_size(BENCH_VW * sizeof(float))));

#endif
