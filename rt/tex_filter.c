/* tex_filter.c - the arithmetic of linear filtering, as an H200 does it
 * (tests/gpu/results/tex.res, recorded by tests/gpu/tex_gpu.c).
 *
 * The programming guide gives the weights 9 bits with 8 fractional bits.
 * The recording shows how they combine: the product of two axes' weights
 * is rounded to 8 fractional bits (half up) and the other corners take
 * what is left, so the weights always sum to exactly 1.  Float texels are
 * aligned to the largest one's exponent with 27 bits below its leading
 * bit (the rest cut off), summed without further rounding and rounded
 * once, halfway cases away from zero; 8- and 16-bit normalized texels are
 * summed as integers and the result is rounded to a 16-bit normalized
 * value. */
#include "texture.h"

#include <math.h>

uint32_t rt_tex_corner_weights(const uint32_t *frac, uint32_t dims, uint32_t w[8])
{
    w[0] = 256;
    uint32_t n = 1;
    for (uint32_t d = 0; d < dims; d++, n *= 2) {
        /* corner k + n is corner k one texel further along d; the products
         * are rounded for every corner but the first, which takes the rest
         * of the axis's weight (on the GPU, a tie rounds a*b up, not
         * (1-a)*b) */
        uint32_t rest = frac[d];
        for (uint32_t k = n - 1; k > 0; k--) {
            w[k + n] = (w[k] * frac[d] + 128) >> 8;
            w[k + n] = w[k + n] > rest ? rest : w[k + n]; /* 3D rounding never overdraws */
            w[k] -= w[k + n];
            rest -= w[k + n];
        }
        w[n] = rest;
        w[0] -= rest;
    }
    return n;
}

/* The float nearest s, halfway cases away from zero. */
static float round_half_away(long double s)
{
    float r = (float)s;
    if ((long double)r == s || isnan(r) || isinf(r))
        return r;
    float other = nextafterf(r, s > (long double)r ? INFINITY : -INFINITY);
    if (fabsl(s - (long double)r) == fabsl((long double)other - s) && fabsf(other) > fabsf(r))
        return other;
    return r;
}

float rt_tex_blend_float(const uint32_t *w, const float *v, uint32_t n)
{
    float top = 0;
    for (uint32_t k = 0; k < n; k++)
        top = isfinite(v[k]) && fabsf(v[k]) > top ? fabsf(v[k]) : top;
    int unit = top > 0 ? ilogbf(top) - 27 : 0;
    long double s = 0; /* 9-bit weights times 28-bit aligned texels: exact */
    for (uint32_t k = 0; k < n; k++) {
        long double t = isfinite(v[k]) && top > 0 ? ldexpl(truncl(ldexpl(v[k], -unit)), unit) : v[k];
        s += (long double)w[k] * t;
    }
    return round_half_away(s / 256);
}

float rt_tex_blend_norm(const uint32_t *w, const int64_t *t, uint32_t n, int64_t maxv, bool sgn)
{
    int64_t s = 0, q = sgn ? 32767 : 65535;
    for (uint32_t k = 0; k < n; k++)
        s += (int64_t)w[k] * t[k];
    /* s / (256 * maxv) as a 16-bit normalized value, rounded half up */
    int64_t den = 256 * maxv, x = (int64_t)floorl(((long double)s * q + (long double)den / 2) / den);
    float v = (float)x / (float)q;
    return v < -1.0f ? -1.0f : v;
}

int64_t rt_tex_norm_quantize(float c, int64_t maxv, bool sgn)
{
    float lo = sgn ? -1.0f : 0.0f;
    c = isnan(c) ? 0.0f : c < lo ? lo : c > 1.0f ? 1.0f : c;
    return (int64_t)ceilf(c * (float)maxv - 0.5f); /* 0.5 * 255 reads 127 on the GPU */
}
