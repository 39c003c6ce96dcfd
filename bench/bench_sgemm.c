/* bench_sgemm.c - the C + OpenMP SGEMM baseline: blocked the way BLIS-like
 * C code is.  B is packed per KC-deep slab into panels of NR columns (one
 * panel stays in L1, the slab in L2), and an MR x NR micro-tile of C is
 * accumulated in vector registers: per k, NV vector loads of B, MR
 * broadcasts of A and MR * NV fused multiply-adds.  The tiles of a slab are
 * shared out over the threads by rows of MR. */
#include "bench_omp.h"
#include "bench_simd.h"

#include <string.h>

/* Accumulators take 3/4 of the vector registers; the rest hold B and the
 * broadcast of A.  (AVX-512: 12 x 32; AVX2: 6 x 16, the usual shapes.) */
enum { NV = 2, NR = NV * BENCH_VW, MR = 3 * BENCH_VREGS / (4 * NV), KC = 256 };

unsigned long omp_sgemm_packed_floats(int k, int n)
{
    return (unsigned long)(k < KC ? k : KC) * (unsigned long)n;
}

/* C[MR x NR] += alpha * A[MR x kc] Bp[kc x NR] (Bp a packed panel). */
static void micro_tile(int kc, float alpha, const float *a, int lda, const float *bp, float *c,
                       int ldc)
{
    vfloat acc[MR][NV] = {{{0}}};
    for (int k = 0; k < kc; k++) {
        const vfloat *b = (const vfloat *)(bp + (size_t)k * NR);
#pragma GCC unroll 16
        for (int i = 0; i < MR; i++) {
            vfloat ai = (vfloat){0} + a[(size_t)i * lda + k];
#pragma GCC unroll 4
            for (int v = 0; v < NV; v++)
                acc[i][v] += ai * b[v];
        }
    }
#pragma GCC unroll 16
    for (int i = 0; i < MR; i++)
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++) {
            vfloat cv;
            float *row = c + (size_t)i * ldc + v * BENCH_VW;
            memcpy(&cv, row, sizeof cv); /* rows of C need not be aligned */
            cv += alpha * acc[i][v];
            memcpy(row, &cv, sizeof cv);
        }
}

/* A tile at the edge of C (mr < MR rows or nr < NR columns), from B as it
 * is: plain loops. */
static void edge_tile(int mr, int nr, int kc, float alpha, const float *a, int lda,
                      const float *b, int ldb, float *c, int ldc)
{
    for (int i = 0; i < mr; i++)
        for (int k = 0; k < kc; k++) {
            float aik = alpha * a[(size_t)i * lda + k];
            for (int j = 0; j < nr; j++)
                c[(size_t)i * ldc + j] += aik * b[(size_t)k * ldb + j];
        }
}

/* Rows pc..pc+kc of B, its whole panels of NR columns one after another
 * (each kc x NR, row-major). */
static void pack_slab(const omp_sgemm_args *p, int pc, int kc)
{
#pragma omp for schedule(static)
    for (int jr = 0; jr < p->n / NR; jr++)
        for (int k = 0; k < kc; k++)
            memcpy(p->packed + ((size_t)jr * kc + k) * NR, p->b + (size_t)(pc + k) * p->n + jr * NR,
                   sizeof(float) * NR);
}

/* C += alpha * A[:, pc..pc+kc] B[pc..pc+kc, :]. */
static void multiply_slab(const omp_sgemm_args *p, int pc, int kc)
{
    int m = p->m, n = p->n, k = p->k;
#pragma omp for schedule(guided)
    for (int ir = 0; ir < m; ir += MR) {
        int mr = m - ir < MR ? m - ir : MR;
        const float *a = p->a + (size_t)ir * k + pc;
        float *c = p->c + (size_t)ir * n;
        for (int jr = 0; jr < n; jr += NR) {
            int nr = n - jr < NR ? n - jr : NR;
            if (mr == MR && nr == NR)
                micro_tile(kc, p->alpha, a, k, p->packed + (size_t)jr * kc, c + jr, n);
            else
                edge_tile(mr, nr, kc, p->alpha, a, k, p->b + (size_t)pc * n + jr, n, c + jr, n);
        }
    }
}

static void scale_c(const omp_sgemm_args *p)
{
    size_t mn = (size_t)p->m * p->n;
#pragma omp for simd schedule(static)
    for (size_t i = 0; i < mn; i++)
        p->c[i] = p->beta == 0 ? 0 : p->beta * p->c[i]; /* beta 0: C may hold NaN */
}

void omp_sgemm(const void *args)
{
    const omp_sgemm_args *p = args;
#pragma omp parallel
    {
        scale_c(p);
        for (int pc = 0; pc < p->k; pc += KC) {
            int kc = p->k - pc < KC ? p->k - pc : KC;
            pack_slab(p, pc, kc); /* the implied barriers order packing and use */
            multiply_slab(p, pc, kc);
        }
    }
}
