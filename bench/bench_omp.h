/* bench_omp.h - the C + OpenMP baselines of bench_kernels: each computes
 * what its CUDA twin computes (the same outputs from the same inputs),
 * written as a careful C programmer writes it for a CPU: a parallel for over
 * rows or blocks, inner loops the compiler vectorizes, cache blocking where
 * the access pattern needs it.  Every function takes its argument struct
 * through a const void * so the driver can time them alike. */
#ifndef BENCH_OMP_H
#define BENCH_OMP_H

/* y[i] = a * x[i] + y[i] for i < n. */
typedef struct omp_saxpy_args {
    int n;
    float a;
    const float *x;
    float *y;
} omp_saxpy_args;
void omp_saxpy(const void *args);

/* partial[b] = in[256b] + ... + in[256b + 255] (elements >= n count as 0):
 * what both block reductions leave. */
typedef struct omp_block_sums_args {
    int n;
    const float *in;
    float *partial;
} omp_block_sums_args;
void omp_block_sums(const void *args);

/* C[m x n] = alpha * A[m x k] B[k x n] + beta * C, row-major; packed is
 * scratch for omp_sgemm_packed_floats(k, n) floats, 64-byte aligned. */
typedef struct omp_sgemm_args {
    int m, n, k;
    float alpha;
    const float *a, *b;
    float beta;
    float *c, *packed;
} omp_sgemm_args;
void omp_sgemm(const void *args);
unsigned long omp_sgemm_packed_floats(int k, int n);

/* out = in on the border of the ny x nx grid; inside,
 * out[p] = c0 * in[p] + c1 * ((in[p-1] + in[p+1]) + (in[p-nx] + in[p+nx])). */
typedef struct omp_stencil5_args {
    int nx, ny;
    float c0, c1;
    const float *in;
    float *out;
} omp_stencil5_args;
void omp_stencil5(const void *args);

/* hist[b] += the number of data[i] == b, i < n (hist accumulates, like the
 * CUDA kernel's global atomics). */
typedef struct omp_histogram_args {
    int n;
    const unsigned char *data;
    unsigned *hist;
} omp_histogram_args;
void omp_histogram256(const void *args);

/* out[x * height + y] = in[y * width + x]. */
typedef struct omp_transpose_args {
    int width, height;
    const float *in;
    float *out;
} omp_transpose_args;
void omp_transpose(const void *args);

#endif
