/* half.c - f16 and bf16 conversions; see half.h. */
#include "half.h"

#include <string.h>

/* Rounds x to a binary format with `mbits` fraction bits and `ebits`
 * exponent bits (IEEE layout, implicit leading bit, subnormals), ties to
 * even, and returns its bits. */
static uint32_t narrow(double x, int mbits, int ebits)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    uint32_t sgn = (uint32_t)(b >> 63) << (mbits + ebits);
    int exp = (int)((b >> 52) & 0x7FF);
    uint64_t frac = b & ((UINT64_C(1) << 52) - 1);
    uint32_t inf = ((UINT32_C(1) << ebits) - 1) << mbits;
    int bias = (1 << (ebits - 1)) - 1;
    int emin = 1 - bias, emax = bias;

    if (exp == 0x7FF) {
        if (frac == 0)
            return sgn | inf;
        /* Quiet NaN, keeping the top payload bits. */
        return sgn | inf | (UINT32_C(1) << (mbits - 1)) | (uint32_t)(frac >> (52 - mbits));
    }
    if (exp == 0) /* zero or a double subnormal: far below half the smallest subnormal */
        return sgn;

    int e = exp - 1023;                        /* x = m * 2^(e-52) */
    uint64_t m = frac | (UINT64_C(1) << 52);
    if (e > emax)
        return sgn | inf;
    int q = (e < emin ? emin : e) - mbits;     /* exponent of the result's ulp */
    int s = q - e + 52;                        /* x in ulps = m / 2^s; s >= 52 - mbits */
    if (s >= 54)                               /* m / 2^s < 1/2: rounds to zero */
        return sgn;
    uint64_t r = m >> s;
    uint64_t rem = m & ((UINT64_C(1) << s) - 1);
    uint64_t half = UINT64_C(1) << (s - 1);
    if (rem > half || (rem == half && (r & 1)))
        r++;
    uint32_t bits;
    if (e < emin)       /* subnormal; r == 2^mbits is the smallest normal */
        bits = (uint32_t)r;
    else                /* r in [2^mbits, 2^(mbits+1)]; a carry bumps the exponent */
        bits = ((uint32_t)(e + bias) << mbits) + (uint32_t)r - (UINT32_C(1) << mbits);
    if (bits >= inf)
        bits = inf;
    return sgn | bits;
}

uint16_t half_f16_from_double(double x) { return (uint16_t)narrow(x, 10, 5); }
uint16_t half_bf16_from_double(double x) { return (uint16_t)narrow(x, 7, 8); }

float half_f16_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15);
    uint32_t exp = (h >> 10) & 0x1F;
    uint32_t frac = h & 0x3FF;
    if (exp == 0x1F) {
        uint32_t fb = (sign << 31) | 0x7F800000u | (frac << 13);
        float f;
        memcpy(&f, &fb, sizeof f);
        return f;
    }
    if (exp == 0) { /* subnormal: frac * 2^-24, exact */
        float mag = (float)frac * 0x1p-24f;
        return sign ? -mag : mag;
    }
    uint32_t fb = (sign << 31) | ((exp + 127 - 15) << 23) | (frac << 13);
    float f;
    memcpy(&f, &fb, sizeof f);
    return f;
}

float half_bf16_to_float(uint16_t h)
{
    uint32_t fb = (uint32_t)h << 16;
    float f;
    memcpy(&f, &fb, sizeof f);
    return f;
}
