/* bench_omp.c - the C + OpenMP baselines of bench_kernels but SGEMM
 * (bench_sgemm.c).  The loops use schedule(guided): like ptxjit and pocl,
 * which hand out CTAs / work-groups as threads come free, a thread that
 * the shared machine preempts does not hold up the rest. */
#include "bench_omp.h"

#include <string.h>

void omp_saxpy(const void *args)
{
    const omp_saxpy_args *p = args;
    float a = p->a, *y = p->y;
    const float *x = p->x;
#pragma omp parallel for simd schedule(guided)
    for (int i = 0; i < p->n; i++)
        y[i] = a * x[i] + y[i];
}

/* Whole blocks are loops of a known length (vectorized without a
 * remainder loop: twice as fast as one loop with a variable end); the
 * partial last block, if any, is summed apart. */
void omp_block_sums(const void *args)
{
    const omp_block_sums_args *p = args;
    int whole = p->n / 256;
#pragma omp parallel for schedule(guided)
    for (int b = 0; b < whole; b++) {
        const float *in = p->in + (size_t)b * 256;
        float s = 0;
#pragma omp simd reduction(+ : s)
        for (int i = 0; i < 256; i++)
            s += in[i];
        p->partial[b] = s;
    }
    if (whole * 256 < p->n) {
        float s = 0;
        for (int i = whole * 256; i < p->n; i++)
            s += p->in[i];
        p->partial[whole] = s;
    }
}

/* One row of the stencil; the first and last column are copied. */
static void stencil_row(int nx, float c0, float c1, const float *in, float *out)
{
    out[0] = in[0];
#pragma omp simd
    for (int x = 1; x < nx - 1; x++)
        out[x] = c0 * in[x] + c1 * ((in[x - 1] + in[x + 1]) + (in[x - nx] + in[x + nx]));
    out[nx - 1] = in[nx - 1];
}

void omp_stencil5(const void *args)
{
    const omp_stencil5_args *p = args;
    int nx = p->nx, ny = p->ny;
#pragma omp parallel for schedule(guided)
    for (int y = 0; y < ny; y++) {
        const float *in = p->in + (size_t)y * nx;
        float *out = p->out + (size_t)y * nx;
        if (y == 0 || y == ny - 1)
            memcpy(out, in, sizeof(float) * (size_t)nx);
        else
            stencil_row(nx, p->c0, p->c1, in, out);
    }
}

/* Each thread counts into private bins, then adds them to hist: 256
 * atomics per thread instead of one per byte. */
void omp_histogram256(const void *args)
{
    const omp_histogram_args *p = args;
    const unsigned char *data = p->data;
#pragma omp parallel
    {
        unsigned bins[256] = {0};
#pragma omp for schedule(guided) nowait
        for (int i = 0; i < p->n; i++)
            bins[data[i]]++;
        for (int b = 0; b < 256; b++)
            if (bins[b]) {
#pragma omp atomic
                p->hist[b] += bins[b];
            }
    }
}

/* Tiles of TILE x TILE: a tile's rows of in and its rows of out stay in
 * L1 while it is moved. */
enum { TILE = 32 };

void omp_transpose(const void *args)
{
    const omp_transpose_args *p = args;
    int w = p->width, h = p->height;
#pragma omp parallel for collapse(2) schedule(guided)
    for (int y0 = 0; y0 < h; y0 += TILE)
        for (int x0 = 0; x0 < w; x0 += TILE) {
            int y1 = h - y0 < TILE ? h : y0 + TILE, x1 = w - x0 < TILE ? w : x0 + TILE;
            for (int x = x0; x < x1; x++)
                for (int y = y0; y < y1; y++)
                    p->out[(size_t)x * h + y] = p->in[(size_t)y * w + x];
        }
}
