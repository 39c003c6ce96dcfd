/* fref.c - exact floating-point reference (see fref.h).  Integer
 * significands only: no host floating-point operation decides a result. */
#include "fref.h"

#include <assert.h>
#include <math.h>

typedef unsigned __int128 u128;

typedef struct fmt_info {
    int p, ebits, bias, shift; /* shift: unused low storage bits (tf32) */
    bool ieee;                 /* all-ones exponent is inf/NaN */
    unsigned width;
} fmt_info;

static const fmt_info fmts[FR_NFMT] = {
    [FR_F16] = {11, 5, 15, 0, true, 16},
    [FR_BF16] = {8, 8, 127, 0, true, 16},
    [FR_TF32] = {11, 8, 127, 13, true, 32},
    [FR_F32] = {24, 8, 127, 0, true, 32},
    [FR_F64] = {53, 11, 1023, 0, true, 64},
    [FR_E4M3] = {4, 4, 7, 0, false, 8},
    [FR_E5M2] = {3, 5, 15, 0, true, 8},
};

unsigned fr_width(fr_fmt f) { return fmts[f].width; }

static int msb(u128 m)
{
    uint64_t hi = (uint64_t)(m >> 64);
    return hi ? 127 - __builtin_clzll(hi) : 63 - __builtin_clzll((uint64_t)m);
}

/* Shifts m so that its top bit is at `to`; only lossless shifts (left, or
 * right over zero bits) are allowed here.  An inexact value (sticky) must
 * already carry at least 60 bits, more than every format's precision (53)
 * plus a guard bit, so the discarded fraction acts only as a sticky bit. */
static fr_val norm_to(fr_val v, int to)
{
    int s = to - msb(v.m);
    if (s > 0) {
        assert(!v.sticky || msb(v.m) >= 60);
        v.m <<= s;
        v.e -= s;
    } else if (s < 0) {
        assert((v.m & (((u128)1 << -s) - 1)) == 0);
        v.m >>= -s;
        v.e += -s;
    }
    return v;
}

/* Drops trailing zero bits (exact values only). */
static fr_val trim(fr_val v)
{
    while (v.m && !(v.m & 1) && !v.sticky)
        v.m >>= 1, v.e++;
    return v;
}

static uint64_t encode(const fmt_info *fi, int sign, uint64_t biased, uint64_t frac)
{
    unsigned fb = (unsigned)fi->p - 1 + (unsigned)fi->shift;
    return ((uint64_t)sign << (fi->width - 1)) | (biased << fb) | (frac << fi->shift);
}

uint64_t fr_canonical_nan(fr_fmt f)
{
    const fmt_info *fi = &fmts[f];
    return fi->width == 64 ? 0x7fffffffffffffffull : (1ull << (fi->width - 1)) - 1;
}

uint64_t fr_max_finite(fr_fmt f, int sign)
{
    const fmt_info *fi = &fmts[f];
    uint64_t top = (1ull << fi->ebits) - 1, frac = (1ull << (fi->p - 1)) - 1;
    if (fi->ieee)
        return encode(fi, sign, top - 1, frac);
    return encode(fi, sign, top, frac - 1); /* e4m3: S.1111.110 */
}

static uint64_t inf_bits(fr_fmt f, int sign)
{
    const fmt_info *fi = &fmts[f];
    if (!fi->ieee)
        return fr_canonical_nan(f);
    return encode(fi, sign, (1ull << fi->ebits) - 1, 0);
}

fr_val fr_decode(fr_fmt f, uint64_t bits)
{
    const fmt_info *fi = &fmts[f];
    fr_val v = {0};
    unsigned fb = (unsigned)fi->p - 1;
    v.sign = (int)((bits >> (fi->width - 1)) & 1);
    uint64_t frac = (bits >> fi->shift) & ((1ull << fb) - 1);
    uint64_t biased = (bits >> (fb + fi->shift)) & ((1ull << fi->ebits) - 1);
    uint64_t top = (1ull << fi->ebits) - 1;
    if (fi->ieee && biased == top) {
        v.cls = frac ? 3 : 2;
        return v;
    }
    if (!fi->ieee && biased == top && frac == (1ull << fb) - 1) {
        v.cls = 3;
        return v;
    }
    if (biased == 0 && frac == 0)
        return v; /* zero */
    v.cls = 1;
    if (biased == 0) {
        v.m = frac;
        v.e = 1 - fi->bias - (int)fb;
    } else {
        v.m = frac | (1ull << fb);
        v.e = (int)biased - fi->bias - (int)fb;
    }
    return v;
}

bool fr_is_nan(fr_fmt f, uint64_t bits) { return fr_decode(f, bits).cls == 3; }

bool fr_is_subnormal(fr_fmt f, uint64_t bits)
{
    const fmt_info *fi = &fmts[f];
    uint64_t biased = (bits >> (fi->p - 1 + fi->shift)) & ((1ull << fi->ebits) - 1);
    return biased == 0 && fr_decode(f, bits).cls == 1;
}

/* m >> k with the first discarded bit (guard) and whether anything below
 * it (or the sticky fraction) is nonzero. */
static u128 shr_round(u128 m, int k, bool sticky, bool *guard, bool *rest)
{
    if (k <= 0) {
        *guard = false;
        *rest = sticky;
        return m << -k;
    }
    if (k > 128) {
        *guard = false;
        *rest = m != 0 || sticky;
        return 0;
    }
    *guard = (m >> (k - 1)) & 1;
    *rest = sticky || (k > 1 && (m & (((u128)1 << (k - 1)) - 1)) != 0);
    return k == 128 ? 0 : m >> k;
}

static bool round_up(fr_mode mode, int sign, bool odd, bool guard, bool rest)
{
    switch (mode) {
    case FR_RN: return guard && (rest || odd);
    case FR_RNA: return guard;
    case FR_RZ: return false;
    case FR_RM: return sign && (guard || rest);
    default: return !sign && (guard || rest);
    }
}

static uint64_t overflow(fr_fmt f, int sign, fr_mode mode)
{
    bool to_inf = mode == FR_RN || mode == FR_RNA || (mode == FR_RM && sign) || (mode == FR_RP && !sign);
    return to_inf ? inf_bits(f, sign) : fr_max_finite(f, sign);
}

uint64_t fr_round(fr_fmt f, fr_val v, fr_mode mode)
{
    const fmt_info *fi = &fmts[f];
    if (v.cls == 3)
        return fr_canonical_nan(f);
    if (v.cls == 2)
        return inf_bits(f, v.sign);
    if (v.cls == 0 || (v.m == 0 && !v.sticky))
        return encode(fi, v.sign, 0, 0);
    assert(v.m != 0);
    v = norm_to(v, 126);
    int p = fi->p, emin = 1 - fi->bias;
    int E = v.e + 126;
    int q = E - (p - 1) > emin - (p - 1) ? E - (p - 1) : emin - (p - 1);
    bool guard, rest;
    u128 mant = shr_round(v.m, q - v.e, v.sticky, &guard, &rest);
    if (round_up(mode, v.sign, (unsigned)mant & 1, guard, rest))
        mant++;
    if (mant == (u128)1 << p)
        mant >>= 1, q++;
    if (mant == 0)
        return encode(fi, v.sign, 0, 0);
    uint64_t biased = 0, frac = (uint64_t)mant;
    if (mant >= (u128)1 << (p - 1)) {
        biased = (uint64_t)(q + p - 1 + fi->bias);
        frac = (uint64_t)mant - (1ull << (p - 1));
    }
    uint64_t top = (1ull << fi->ebits) - 1;
    bool ovf = fi->ieee ? biased >= top
                        : (biased > top || (biased == top && frac == (1ull << (p - 1)) - 1));
    if (q + p - 1 + fi->bias > (int)top)
        ovf = true;
    if (ovf)
        return overflow(f, v.sign, mode);
    return encode(fi, v.sign, biased, frac);
}

static fr_val nan_val(void) { return (fr_val){.cls = 3}; }
static fr_val zero_val(int sign) { return (fr_val){.cls = 0, .sign = sign}; }
static fr_val inf_val(int sign) { return (fr_val){.cls = 2, .sign = sign}; }

fr_val fr_neg(fr_val a)
{
    a.sign ^= 1;
    return a;
}

fr_val fr_add(fr_val a, fr_val b, fr_mode mode)
{
    if (a.cls == 3 || b.cls == 3)
        return nan_val();
    if (a.cls == 2 && b.cls == 2)
        return a.sign == b.sign ? a : nan_val();
    if (a.cls == 2)
        return a;
    if (b.cls == 2)
        return b;
    if (a.cls == 0 && b.cls == 0)
        return zero_val(a.sign == b.sign ? a.sign : mode == FR_RM);
    if (a.cls == 0)
        return b;
    if (b.cls == 0)
        return a;
    assert(!a.sticky && !b.sticky);
    a = norm_to(trim(a), 125);
    b = norm_to(trim(b), 125);
    if (a.e < b.e) {
        fr_val t = a;
        a = b;
        b = t;
    }
    int d = a.e - b.e;
    bool guard, rest;
    u128 bm = shr_round(b.m, d, false, &guard, &rest);
    bool lost = guard || rest;
    fr_val r = {.cls = 1, .e = a.e};
    if (a.sign == b.sign) {
        r.m = a.m + bm;
        r.sign = a.sign;
        r.sticky = lost;
    } else if (lost) { /* a - (bm + frac): a - bm - 1 plus a fraction in (0,1) */
        r.m = a.m - bm - 1;
        r.sign = a.sign;
        r.sticky = true;
    } else if (a.m >= bm) {
        r.m = a.m - bm;
        r.sign = a.sign;
    } else {
        r.m = bm - a.m;
        r.sign = b.sign;
    }
    if (r.m == 0 && !r.sticky)
        return zero_val(mode == FR_RM);
    return r;
}

fr_val fr_mul(fr_val a, fr_val b)
{
    int sign = a.sign ^ b.sign;
    if (a.cls == 3 || b.cls == 3)
        return nan_val();
    if ((a.cls == 2 && b.cls == 0) || (a.cls == 0 && b.cls == 2))
        return nan_val();
    if (a.cls == 2 || b.cls == 2)
        return inf_val(sign);
    if (a.cls == 0 || b.cls == 0)
        return zero_val(sign);
    a = trim(a), b = trim(b);
    assert(msb(a.m) < 64 && msb(b.m) < 64 && !a.sticky && !b.sticky);
    return (fr_val){.cls = 1, .sign = sign, .m = a.m * b.m, .e = a.e + b.e};
}

fr_val fr_fma(fr_val a, fr_val b, fr_val c, fr_mode mode)
{
    fr_val p = fr_mul(a, b);
    if (p.cls == 3 || c.cls == 3)
        return nan_val();
    return fr_add(p, c, mode);
}

fr_val fr_div(fr_val a, fr_val b)
{
    int sign = a.sign ^ b.sign;
    if (a.cls == 3 || b.cls == 3)
        return nan_val();
    if ((a.cls == 2 && b.cls == 2) || (a.cls == 0 && b.cls == 0))
        return nan_val();
    if (a.cls == 2 || b.cls == 0)
        return inf_val(sign);
    if (a.cls == 0 || b.cls == 2)
        return zero_val(sign);
    a = norm_to(trim(a), 126);
    b = trim(b);
    assert(msb(b.m) < 64);
    fr_val r = {.cls = 1, .sign = sign, .m = a.m / b.m, .e = a.e - b.e};
    r.sticky = a.m % b.m != 0;
    return r;
}

static u128 isqrt128(u128 m)
{
    uint64_t r = (uint64_t)sqrtl((long double)m);
    while ((u128)r * r > m)
        r--;
    while ((u128)(r + 1) * (r + 1) <= m)
        r++;
    return r;
}

fr_val fr_sqrt(fr_val a)
{
    if (a.cls == 3 || (a.sign && a.cls != 0))
        return nan_val();
    if (a.cls != 1)
        return a;
    a = norm_to(trim(a), 125);
    if (a.e & 1) {
        a.m <<= 1;
        a.e -= 1;
    }
    u128 r = isqrt128(a.m);
    return (fr_val){.cls = 1, .m = r, .e = a.e / 2, .sticky = r * r != a.m};
}

fr_val fr_from_int(int64_t v, bool is_signed)
{
    fr_val r = {0};
    uint64_t u = (uint64_t)v;
    if (is_signed && v < 0) {
        r.sign = 1;
        u = 0 - u;
    }
    if (u) {
        r.cls = 1;
        r.m = u;
    }
    return r;
}

fr_val fr_rint(fr_val a, fr_mode mode)
{
    if (a.cls != 1 || a.e >= 0)
        return a;
    assert(!a.sticky);
    bool guard, rest;
    u128 mant = shr_round(a.m, -a.e, false, &guard, &rest);
    if (round_up(mode, a.sign, (unsigned)mant & 1, guard, rest))
        mant++;
    if (!mant)
        return zero_val(a.sign);
    return (fr_val){.cls = 1, .sign = a.sign, .m = mant, .e = 0};
}

uint64_t fr_to_int(fr_val a, fr_mode mode, unsigned bits, bool is_signed)
{
    uint64_t umax = bits == 64 ? ~0ull : (1ull << bits) - 1;
    uint64_t smax = umax >> 1, smin = smax + 1; /* two's complement bits of the minimum */
    uint64_t hi = is_signed ? smax : umax, lo = is_signed ? smin : 0;
    if (a.cls == 3)
        return 0;
    if (a.cls == 2)
        return a.sign ? lo : hi;
    fr_val r = fr_rint(a, mode);
    if (r.cls == 0)
        return 0;
    if (r.e > 64 || msb(r.m) + r.e >= 64)
        return r.sign ? lo : hi;
    u128 mag = r.m << r.e;
    if (r.sign) {
        if (!is_signed)
            return 0;
        if (mag > (u128)smax + 1)
            return lo;
        return (0 - (uint64_t)mag) & umax;
    }
    return mag > hi ? hi : (uint64_t)mag;
}

long double fr_to_ld(fr_fmt f, uint64_t bits)
{
    fr_val v = fr_decode(f, bits);
    long double s = v.sign ? -1.0L : 1.0L;
    switch (v.cls) {
    case 0: return s * 0.0L;
    case 2: return s * INFINITY;
    case 3: return NAN;
    default: return s * ldexpl((long double)v.m, v.e);
    }
}
