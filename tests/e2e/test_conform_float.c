/* test_conform_float.c - floating-point conformance: every float
 * instruction form, one at a time, on edge values (NaN payloads, signaling
 * NaNs, +-0, +-inf, subnormals, largest finite, halfway cases, values near
 * overflow) and thousands of random inputs, against references written
 * from the PTX ISA's semantics:
 *   - correctly rounded operations (.rn .rz .rm .rp, conversions) against
 *     fref.c, which computes exactly on integer significands and rounds once
 *     (and which is itself cross-checked against the host FPU run in each
 *     rounding mode);
 *   - approximate operations against long double libm within the ISA's
 *     stated error bound (written next to each case, measured maxima
 *     printed);
 *   - NaN results: f32, f16, bf16 results are the canonical NaN
 *     (0x7fffffff, 0x7fff), as NVIDIA GPUs produce; f64 NaN results may be
 *     any NaN (the ISA does not say).
 * Where the ISA leaves a result open (NaN into integers, NaN payloads of
 * narrowing conversions, tf32 NaNs, testp.normal of zero) or states an
 * approximation loosely, the references follow what an H200 (sm_90) gives:
 * its outputs for every case are in tests/gpu/results/float, and
 * test_gpu_results checks them against these references on every run.
 * CONFORM_FILTER=substring runs only the cases whose name contains it;
 * --check-gpu DIR compares only the recordings (CONFORM_GPU_ALL=1 prints
 * every difference). */
#include <fenv.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "conform.h"
#include "fref.h"
#include "ptxjit/ptxjit.h"
#include "test_util.h"

/* ------------------------------------------------------------------------
 * Cases
 * ------------------------------------------------------------------------ */

/* Operand kinds: h f16, b bf16, f f32, d f64, t tf32 (f32 storage), H
 * f16x2, B bf16x2, q e4m3x2, Q e5m2x2, i s32, u u32, l s64, L u64, s s16,
 * S u16, c s8 and C u8 (in 16-bit registers), p u32 holding predicates. */
typedef struct fcase fcase;
typedef uint64_t (*ref_fn)(const fcase *c, uint64_t a, uint64_t b, uint64_t cc);
/* Approximate check: returns false when got is outside the bound; *err is
 * the error in the case's unit (for the printed maximum). */
typedef bool (*approx_fn)(const fcase *c, uint64_t a, uint64_t b, uint64_t got, double *err);

enum { G_NEAR = 1, G_FMA = 2, G_EXH = 4, G_POS = 8 };

struct fcase {
    char name[80];
    char ptx[480];
    char kd, ka, kb, kc;
    int gen;
    ref_fn ref;
    ref_fn alt; /* another result the ISA allows (a mul and add contracted into an fma), or NULL */
    approx_fn approx;
    /* parameters of the generic references */
    int op, mode, fmt, flags, fmt2;
    double bound;
    const char *unit;
    double lo, hi; /* dense sweep: half the random inputs uniform in [lo, hi] */
    const uint64_t (*extra)[3]; /* hand-picked (a, b, c) inputs */
    size_t nextra;
    /* results */
    double max_err;
    unsigned failures;
};

enum { F_FTZ = 1, F_SAT = 2, F_RELU = 4, F_SATFINITE = 8, F_NAN = 16, F_XORSIGN = 32, F_ANYNAN = 64 };

static fcase *cases;
static size_t ncases, capcases;

static fcase *add_case(const char *name, const char *kinds, const char *ptx)
{
    if (ncases == capcases) {
        capcases = capcases ? 2 * capcases : 64;
        cases = realloc(cases, capcases * sizeof *cases);
    }
    fcase *c = &cases[ncases++];
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", name);
    snprintf(c->ptx, sizeof c->ptx, "%s", ptx);
    c->kd = kinds[0];
    c->ka = kinds[1];
    c->kb = kinds[1] ? kinds[2] : 0;
    c->kc = c->kb ? kinds[3] : 0;
    return c;
}

static unsigned kind_size(char k)
{
    switch (k) {
    case 'd': case 'l': case 'L': return 8;
    case 'f': case 't': case 'H': case 'B': case 'i': case 'u': case 'p': return 4;
    case 0: return 0;
    default: return 2;
    }
}

/* ------------------------------------------------------------------------
 * Bits helpers
 * ------------------------------------------------------------------------ */

#define f32v tu_f32
#define f32b tu_f32_bits
#define f64v tu_f64
#define f64b tu_f64_bits

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
    uint64_t x = rng_state;
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    return rng_state = x;
}

static fr_fmt kind_fmt(char k)
{
    switch (k) {
    case 'h': case 'H': return FR_F16;
    case 'b': case 'B': return FR_BF16;
    case 'd': return FR_F64;
    case 't': return FR_TF32;
    case 'q': return FR_E4M3;
    case 'Q': return FR_E5M2;
    default: return FR_F32;
    }
}

/* ------------------------------------------------------------------------
 * Inputs: edge values first (their cross product for two operands), then
 * random values biased toward the interesting binades.
 * ------------------------------------------------------------------------ */

static const uint64_t edge_f32[] = {
    0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x00000002, 0x007fffff, 0x807fffff,
    0x00800000, 0x80800000, 0x00800001, 0x3f800000, 0xbf800000, 0x3f800001, 0x3f7fffff,
    0x3fc00000, 0x3f000000, 0xbf000000, 0x40200000, 0xc0200000, 0x40600000, 0x3eaaaaab,
    0x3effffff, 0x4b000000, 0x4b000001, 0x4b7fffff, 0x4b800000, 0x4effffff, 0x4f000000,
    0xcf000000, 0xcf000001, 0x4f7fffff, 0x4f800000, 0x5effffff, 0x5f000000, 0xdf000000,
    0x5f800000, 0x7f7fffff, 0xff7fffff, 0x7f000000, 0x7f800000, 0xff800000, 0x7fc00000,
    0x7f800001, 0xffc12345, 0x7fbfffff, 0x0c000000, 0x33800000, 0x34000000, 0x477fe000,
    0x477ff000, 0x38800000, 0x387fc000, 0x40490fdb, 0xc2c80000, 0x43160000, 0x42fe0000,
};
static const uint64_t edge_f64[] = {
    0, 0x8000000000000000ull, 1, 0x8000000000000001ull, 0x000fffffffffffffull,
    0x0010000000000000ull, 0x8010000000000000ull, 0x3ff0000000000000ull, 0xbff0000000000000ull,
    0x3ff0000000000001ull, 0x3fefffffffffffffull, 0x3ff8000000000000ull, 0x3fe0000000000000ull,
    0x4004000000000000ull, 0xc004000000000000ull, 0x3fd5555555555555ull, 0x4330000000000000ull,
    0x4330000000000001ull, 0x433fffffffffffffull, 0x41dfffffffc00000ull, 0x41e0000000000000ull,
    0xc1e0000000000000ull, 0xc1e0000000200000ull, 0x41efffffffe00000ull, 0x43dfffffffffffffull,
    0x43e0000000000000ull, 0xc3e0000000000000ull, 0x43f0000000000000ull, 0x7fefffffffffffffull,
    0xffefffffffffffffull, 0x7fe0000000000000ull, 0x7ff0000000000000ull, 0xfff0000000000000ull,
    0x7ff8000000000000ull, 0x7ff0000000000001ull, 0xfff8123456789abcull, 0x36a0000000000000ull,
    0x3690000000000000ull, 0x47efffffe0000000ull, 0x47effffff0000000ull, 0x380fffffe0000000ull,
    0x3810000000000000ull, 0x36a0000010000000ull, 0x400921fb54442d18ull, 0x1000000000000000ull,
};
static const uint64_t edge_f16[] = {
    0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x8400, 0x3c00, 0xbc00, 0x3c01, 0x3bff,
    0x3e00, 0x3800, 0x4100, 0xc100, 0x3555, 0x6400, 0x6401, 0x67ff, 0x6800, 0x7bff, 0xfbff,
    0x7c00, 0xfc00, 0x7e00, 0x7c01, 0xfe12, 0x7dff, 0x5bff, 0x4248,
};
static const uint64_t edge_bf16[] = {
    0x0000, 0x8000, 0x0001, 0x8001, 0x007f, 0x0080, 0x8080, 0x3f80, 0xbf80, 0x3f81, 0x3f7f,
    0x3fc0, 0x3f00, 0x4020, 0xc020, 0x3eab, 0x4b00, 0x4b01, 0x4f00, 0x7f7f, 0xff7f, 0x7f80,
    0xff80, 0x7fc0, 0x7f81, 0xffc1, 0x4049, 0x4300,
};
static const uint64_t edge_i32[] = {
    0, 1, 0xffffffff, 2, 0xfffffffe, 0x7fffffff, 0x80000000, 0x80000001, 0x01000000, 0x01000001,
    0x01000003, 0xfeffffff, 0x02000002, 0x7fffffbf, 0x7fffffc0, 0x7fffff80, 0xffffffbf,
    0x00ffffff, 0x00800001, 0x12345678, 0xfffff800, 65535, 65536, 0xffff8000, 32767, 255, 128,
};
static const uint64_t edge_i64[] = {
    0, 1, ~0ull, 2, 0x7fffffffffffffffull, 0x8000000000000000ull, 0x8000000000000001ull,
    0x0020000000000000ull, 0x0020000000000001ull, 0x0020000000000003ull, 0xffdfffffffffffffull,
    0x0040000000000002ull, 0x7ffffffffffffdffull, 0x7ffffffffffffe00ull, 0x7ffffffffffffc00ull,
    0x01000001, 0x0000000100000001ull, 0xfffffffeffffffffull, 0xffffffffffffffffull >> 1 >> 10,
    0x8000000000000400ull, 0x8000000000000401ull, 0xfffffffffffff800ull, 0x123456789abcdefull,
    0xfedcba9876543210ull, 0x0000008000000001ull, 0xffffff7fffffffffull,
};

static const uint64_t *edges(char k, size_t *n)
{
#define E(a) (*n = sizeof a / sizeof a[0], a)
    switch (k) {
    case 'h': case 'H': return E(edge_f16);
    case 'b': case 'B': return E(edge_bf16);
    case 'f': case 't': return E(edge_f32);
    case 'd': return E(edge_f64);
    case 'l': case 'L': return E(edge_i64);
    default: return E(edge_i32);
    }
#undef E
}

/* A random value of a float format: random bits, or a random significand
 * in a binade near an edge (subnormal boundary, 1, the integer limits,
 * overflow), or a small integer / half-integer. */
static uint64_t rand_float(fr_fmt f)
{
    int p, ebits;
    switch (f) {
    case FR_F16: p = 11, ebits = 5; break;
    case FR_BF16: p = 8, ebits = 8; break;
    case FR_F64: p = 53, ebits = 11; break;
    default: p = 24, ebits = 8; break;
    }
    unsigned width = fr_width(f);
    uint64_t r = rnd(), sign = (r >> 63) << (width - 1);
    uint64_t fracmask = (1ull << (p - 1)) - 1, top = (1ull << ebits) - 1;
    uint64_t frac = rnd() & fracmask;
    switch (r % 8) {
    case 0: case 1: return width == 64 ? rnd() : rnd() & ((1ull << width) - 1);
    case 2: { /* near the subnormal boundary */
        uint64_t be = rnd() % 4;
        return sign | (be << (p - 1)) | frac;
    }
    case 3: { /* near overflow */
        uint64_t be = top - 1 - rnd() % 3;
        return sign | (be << (p - 1)) | frac;
    }
    case 4: { /* small integers and halves */
        double v = (double)(int)(rnd() % 2001 - 1000) / (double)(1 << (rnd() % 3));
        if (f == FR_F64)
            return f64b(v);
        return fr_round(f, fr_div(fr_from_int((int64_t)(v * 4), true), fr_from_int(4, false)), FR_RN);
    }
    case 5: { /* a significand with a run of ones or zeros (rounding edges) */
        uint64_t run = (rnd() & 1) ? fracmask : 0;
        uint64_t keep = rnd() % (unsigned)p;
        frac = (frac & ~(fracmask >> keep)) | (run & (fracmask >> keep));
    }
    /* fall through */
    default: { /* around 1, and the integer conversion limits */
        int bias = (int)(top >> 1);
        int span = f == FR_F16 ? 16 : 70;
        int64_t e = bias + (int64_t)(rnd() % (uint64_t)(2 * span)) - span / 2;
        if (e <= 0 || e >= (int64_t)top)
            e = bias;
        return sign | ((uint64_t)e << (p - 1)) | frac;
    }
    }
}

static uint64_t rand_value(char k)
{
    uint64_t r = rnd();
    switch (k) {
    case 'H': case 'B': return rand_float(kind_fmt(k)) | rand_float(kind_fmt(k)) << 16;
    case 'q': case 'Q': return r & 0xffff;
    case 'i': case 'u': return (r % 4) ? r & 0xffffffffu : (r >> 40) & 0xffffff;
    case 'l': case 'L': return (r % 4) ? r : r >> (r % 64);
    case 's': case 'S': case 'c': case 'C': return r & 0xffff;
    default: return rand_float(kind_fmt(k));
    }
}

/* The value of an edge list entry for a packed pair: the same edge in both
 * halves half the time, otherwise two different ones. */
static uint64_t pair_edge(const uint64_t *e, size_t ne, size_t i)
{
    return e[i % ne] | e[(i * 7 + 3) % ne] << 16;
}

static uint64_t host_fma_near(const fcase *c, uint64_t a, uint64_t b)
{
    /* c close to -(a*b): exercises cancellation and exact zero results */
    long double p = fr_to_ld(kind_fmt(c->ka), a) * fr_to_ld(kind_fmt(c->kb), b);
    fr_fmt f = kind_fmt(c->kc);
    uint64_t bits;
    if (f == FR_F64)
        bits = f64b((double)-p);
    else if (f == FR_F32)
        bits = f32b((float)-p);
    else
        return rand_value(c->kc);
    int64_t delta = (int64_t)(rnd() % 5) - 2;
    return (bits + (uint64_t)delta) & (fr_width(f) == 64 ? ~0ull : 0xffffffffull);
}

static size_t make_inputs(const fcase *c, uint64_t **pa, uint64_t **pb, uint64_t **pc)
{
    /* each case's inputs from its name alone: the same in every run and
     * on the GPU machine, whatever ran before */
    rng_state = 0x9E3779B97F4A7C15ull;
    for (const char *q = c->name; *q; q++)
        rng_state = (rng_state ^ (uint8_t)*q) * 0x100000001b3ull;
    rng_state |= 1;
    size_t na, nb;
    const uint64_t *ea = edges(c->ka, &na), *eb = c->kb ? edges(c->kb, &nb) : NULL;
    size_t nedge = c->kb ? na * nb : na;
    size_t nrand = c->kb ? 6000 : 4000;
    size_t n = ((c->gen & G_EXH) ? 65536 : nedge + nrand) + c->nextra;
    uint64_t *a = calloc(n, 8), *b = calloc(n, 8), *cc = calloc(n, 8);
    bool pair_a = c->ka == 'H' || c->ka == 'B', pair_b = c->kb == 'H' || c->kb == 'B';
    for (size_t i = 0; i < n; i++) {
        if (c->gen & G_EXH) {
            a[i] = pair_a ? (i | (i ^ 0x8000) << 16) : i;
        } else if (i < nedge) {
            a[i] = pair_a ? pair_edge(ea, na, i % na) : ea[i % na];
            if (c->kb)
                b[i] = pair_b ? pair_edge(eb, nb, i / na) : eb[i / na];
        } else {
            a[i] = rand_value(c->ka);
            if (c->kb)
                b[i] = rand_value(c->kb);
        }
        if (c->kb && ((c->gen & G_EXH) || i >= nedge) && (c->gen & G_NEAR) && rnd() % 2) {
            int64_t delta = (int64_t)(rnd() % 9) - 4;
            unsigned w = kind_size(c->ka) * 8;
            uint64_t signbit = 1ull << (w - 1);
            b[i] = (a[i] + (uint64_t)delta) ^ (rnd() % 2 ? signbit : 0);
            if (w < 64)
                b[i] &= (1ull << w) - 1;
        }
        if (c->kb && (c->gen & G_EXH))
            b[i] = rand_value(c->kb);
        if (c->kc) {
            size_t nc;
            const uint64_t *ec = edges(c->kc, &nc);
            cc[i] = i < nedge ? ec[(i * 5 + i / na) % nc] : rand_value(c->kc);
            if ((c->gen & G_FMA) && i >= nedge && rnd() % 2)
                cc[i] = host_fma_near(c, a[i], b[i]);
        }
        if (c->hi > c->lo && i >= nedge && rnd() % 2) {
            double u = c->lo + (c->hi - c->lo) * (double)(rnd() >> 11) * 0x1p-53;
            fr_fmt f = kind_fmt(c->ka);
            uint64_t v = f == FR_F64 ? f64b(u) : f == FR_F32 ? f32b((float)u) : fr_round(f, fr_decode(FR_F64, f64b(u)), FR_RN);
            a[i] = (c->ka == 'H' || c->ka == 'B') ? v | v << 16 : v;
        }
        if (i >= n - c->nextra) {
            const uint64_t *x = c->extra[i - (n - c->nextra)];
            a[i] = x[0], b[i] = x[1], cc[i] = x[2];
        }
        if (c->gen & G_POS) {
            unsigned w = kind_size(c->ka) * 8;
            a[i] &= ~(1ull << (w - 1));
        }
    }
    *pa = a, *pb = b, *pc = cc;
    return n;
}

/* ------------------------------------------------------------------------
 * Kernels: one per case; %d %a %b %c stand for registers of the operand
 * sizes, loaded from and stored to arrays indexed by the global thread id.
 * ------------------------------------------------------------------------ */

static const char *reg_type(char k)
{
    switch (kind_size(k)) {
    case 2: return "b16";
    case 8: return "b64";
    default: return "b32";
    }
}

static void expand(char *out, size_t len, const char *tmpl)
{
    size_t n = 0;
    for (const char *p = tmpl; *p && n + 8 < len; p++) {
        if (p[0] == '%' && strchr("dabc", p[1]) && p[1] && !((p[2] >= 'a' && p[2] <= 'z') || (p[2] >= '0' && p[2] <= '9'))) {
            n += (size_t)snprintf(out + n, len - n, "%%v%c", p[1]);
            p++;
        } else {
            out[n++] = *p;
        }
    }
    out[n] = 0;
}

static size_t emit_kernel(char *out, size_t len, const fcase *c, size_t idx)
{
    char body[640], decl[256] = "", loads[768] = "";
    expand(body, sizeof body, c->ptx);
    const char ks[4] = {c->kd, c->ka, c->kb, c->kc}, *nm = "dabc";
    size_t dl = 0, ll = 0;
    for (int i = 0; i < 4; i++) {
        if (!ks[i])
            continue;
        dl += (size_t)snprintf(decl + dl, sizeof decl - dl, " .reg .%s %%v%c;", reg_type(ks[i]), nm[i]);
        if (i == 0)
            continue;
        ll += (size_t)snprintf(loads + ll, sizeof loads - ll,
                               "  ld.param.u64 %%rd2, [p%c]; mad.lo.u64 %%rd3, %%rd1, %u, %%rd2; "
                               "ld.global.%s %%v%c, [%%rd3];\n",
                               nm[i], kind_size(ks[i]), reg_type(ks[i]), nm[i]);
    }
    return (size_t)snprintf(out, len,
        ".visible .entry k%zu(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd, .param .u32 pn)\n"
        "{\n  .reg .pred %%p<2>; .reg .b32 %%r<6>; .reg .b64 %%rd<4>;%s\n"
        "  mov.u32 %%r1, %%ctaid.x; mov.u32 %%r2, %%ntid.x; mov.u32 %%r3, %%tid.x;\n"
        "  mad.lo.s32 %%r1, %%r1, %%r2, %%r3; ld.param.u32 %%r4, [pn];\n"
        "  setp.ge.u32 %%p1, %%r1, %%r4; @%%p1 bra $Lend;\n"
        "  cvt.u64.u32 %%rd1, %%r1;\n%s"
        "  %s\n"
        "  ld.param.u64 %%rd2, [pd]; mad.lo.u64 %%rd3, %%rd1, %u, %%rd2; st.global.%s [%%rd3], %%vd;\n"
        "$Lend:\n  ret;\n}\n",
        idx, decl, loads, body, kind_size(c->kd), reg_type(c->kd));
}

/* ------------------------------------------------------------------------
 * Running and checking
 * ------------------------------------------------------------------------ */

static bool selected(const fcase *c)
{
    const char *f = getenv("CONFORM_FILTER");
    return !f || !*f || strstr(c->name, f);
}

static void store(void *arr, size_t i, unsigned size, uint64_t v)
{
    switch (size) {
    case 2: ((uint16_t *)arr)[i] = (uint16_t)v; break;
    case 4: ((uint32_t *)arr)[i] = (uint32_t)v; break;
    case 8: ((uint64_t *)arr)[i] = v; break;
    default: break;
    }
}

static uint64_t fetch(const void *arr, size_t i, unsigned size)
{
    switch (size) {
    case 2: return ((const uint16_t *)arr)[i];
    case 4: return ((const uint32_t *)arr)[i];
    default: return ((const uint64_t *)arr)[i];
    }
}

static bool both_nan(char k, uint64_t x, uint64_t y)
{
    fr_fmt f = kind_fmt(k);
    return fr_is_nan(f, x) && fr_is_nan(f, y);
}

static bool exact_ok(const fcase *c, uint64_t got, uint64_t want)
{
    if (got == want)
        return true;
    /* f64 NaN payloads are not specified; neither is any NaN where a case
     * says so */
    if ((c->kd == 'd' || (c->flags & F_ANYNAN)) && both_nan(c->kd, got, want))
        return true;
    return false;
}

static void run_case(ptxjit_ctx *ctx, ptxjit_module *m, fcase *c, size_t idx)
{
    uint64_t *a, *b, *cc;
    size_t n = make_inputs(c, &a, &b, &cc);
    unsigned sa = kind_size(c->ka), sb = kind_size(c->kb), sc = kind_size(c->kc), sd = kind_size(c->kd);
    void *da = calloc(n, sa ? sa : 1), *db = calloc(n, sb ? sb : 1), *dc = calloc(n, sc ? sc : 1);
    void *dd = calloc(n, sd);
    for (size_t i = 0; i < n; i++) {
        store(da, i, sa, a[i]);
        store(db, i, sb, b[i]);
        store(dc, i, sc, cc[i]);
    }
    char name[32], err[256];
    snprintf(name, sizeof name, "k%zu", idx);
    const ptxjit_kernel *k = ptxjit_kernel_get(m, name);
    assert_non_null(k);
    struct { void *a, *b, *c, *d; uint32_t n; } p = {da, db, dc, dd, (uint32_t)n};
    ptxjit_launch_cfg cfg = {{(uint32_t)((n + 127) / 128), 1, 1}, {128, 1, 1}, 0, &p, NULL};
    if (ptxjit_launch(ctx, k, &cfg, err, sizeof err) != PTXJIT_OK)
        fail_msg("%s: %s", c->name, err);
    for (size_t i = 0; i < n; i++) {
        uint64_t got = fetch(dd, i, sd);
        bool ok;
        uint64_t want = 0;
        if (c->approx) {
            double e = 0;
            ok = c->approx(c, a[i], b[i], got, &e);
            if (e > c->max_err)
                c->max_err = e;
        } else {
            want = c->ref(c, a[i], b[i], cc[i]);
            ok = exact_ok(c, got, want) || (c->alt && exact_ok(c, got, c->alt(c, a[i], b[i], cc[i])));
        }
        if (!ok && c->failures++ < 6) {
            if (c->approx)
                print_error("%s: a=%#llx b=%#llx: got %#llx, outside %g %s\n", c->name, (unsigned long long)a[i],
                            (unsigned long long)b[i], (unsigned long long)got, c->bound, c->unit);
            else
                print_error("%s: a=%#llx b=%#llx c=%#llx: got %#llx, want %#llx\n", c->name,
                            (unsigned long long)a[i], (unsigned long long)b[i], (unsigned long long)cc[i],
                            (unsigned long long)got, (unsigned long long)want);
        }
    }
    free(a), free(b), free(cc), free(da), free(db), free(dc), free(dd);
}

/* Builds one module with a kernel per selected case in [from, to), runs
 * them all and asserts that none failed. */
static void run_cases(size_t from, size_t to)
{
    size_t cap = 1 << 20, len = 0;
    char *src = malloc(cap);
    /* sm_100: three-source min/max and .rz/.rn .satfinite tf32 are cases */
    len += (size_t)snprintf(src, cap, ".version 8.6\n.target sm_100\n.address_size 64\n");
    size_t nsel = 0;
    for (size_t i = from; i < to; i++)
        if (selected(&cases[i])) {
            len += emit_kernel(src + len, cap - len, &cases[i], i);
            nsel++;
        }
    if (!nsel) {
        free(src);
        skip();
    }
    char err[256], *log = NULL;
    ptxjit_ctx *ctx = ptxjit_create(2, err, sizeof err);
    assert_non_null(ctx);
    ptxjit_module *m = ptxjit_load(ctx, src, len, "conform.ptx", &log, NULL);
    if (!m)
        fail_msg("%s", log ? log : "load failed");
    unsigned failed = 0;
    for (size_t i = from; i < to; i++) {
        if (!selected(&cases[i]))
            continue;
        run_case(ctx, m, &cases[i], i);
        if (cases[i].approx)
            print_message("  %-34s max error %.3g %s (ISA bound %.3g)\n", cases[i].name, cases[i].max_err,
                          cases[i].unit, cases[i].bound);
        failed += cases[i].failures != 0;
    }
    free(log);
    free(src);
    ptxjit_module_unload(m);
    ptxjit_destroy(ctx);
    assert_int_equal(failed, 0);
}

/* ------------------------------------------------------------------------
 * References for correctly rounded operations
 * ------------------------------------------------------------------------ */

enum { OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_FMA, OP_SQRT, OP_RCP, OP_CVT, OP_RINT, OP_TOINT };

static const char *mode_name[] = {"rn", "rz", "rm", "rp", "rna"};

static int fmt_emin(fr_fmt f) { return f == FR_F16 ? -14 : f == FR_F64 ? -1022 : -126; }
static int fmt_p(fr_fmt f) { return f == FR_F16 ? 11 : f == FR_BF16 ? 8 : f == FR_F64 ? 53 : 24; }

/* A float operand as an exact value, flushed to zero under .ftz (f32). */
static fr_val fval(fr_fmt f, uint64_t bits, int flags)
{
    fr_val v = fr_decode(f, bits);
    if ((flags & F_FTZ) && fr_is_subnormal(f, bits))
        v = (fr_val){.cls = 0, .sign = v.sign};
    return v;
}

static uint64_t one_bits(fr_fmt f) { return fr_round(f, fr_from_int(1, false), FR_RN); }

/* Result post-processing: .ftz flushes subnormal results (sign kept);
 * .sat clamps to [0, 1] with NaN and -0 -> +0; .relu clamps negative
 * results to +0 and keeps NaN canonical. */
static uint64_t post(fr_fmt f, uint64_t r, int flags)
{
    unsigned w = fr_width(f);
    uint64_t signbit = 1ull << (w - 1);
    if ((flags & F_FTZ) && fr_is_subnormal(f, r))
        r &= signbit;
    if (flags & F_SAT) {
        fr_val v = fr_decode(f, r);
        if (v.cls == 3 || v.sign)
            return 0;
        if (v.cls == 2 || (v.cls == 1 && fr_round(f, v, FR_RN) > one_bits(f)))
            return one_bits(f);
    }
    if ((flags & F_RELU) && !fr_is_nan(f, r) && (r & signbit))
        return 0;
    if ((flags & F_SATFINITE) && fr_decode(f, r).cls == 2)
        return fr_max_finite(f, (r & signbit) != 0);
    return r;
}

/* Whether an exact finite value is below the format's smallest normal. */
static bool below_normal(fr_fmt f, fr_val v)
{
    if (v.cls != 1)
        return false;
    int top = v.e;
    for (unsigned __int128 m = v.m >> 1; m; m >>= 1)
        top++;
    return top < fmt_emin(f);
}

/* .ftz on an H200 flushes a result that is tiny after rounding (IEEE 754:
 * rounded to the format's precision with an unbounded exponent, below the
 * smallest normal), so a value that rounds up to the smallest normal only
 * on the subnormal grid is flushed: recorded for f32 mul and div (whose
 * last step is an fma on the GPU), f16 mul and fma, and cvt.ftz.f32.f64;
 * taken to hold for f32 fma and rcp too (add and sub results below the
 * smallest normal are exact, sqrt has none). */
static bool ftz_flushes(fr_fmt f, int op, int flags, fr_val v, fr_mode mode)
{
    (void)op;
    if (!(flags & F_FTZ) || !below_normal(f, v))
        return false;
    fr_val w = v;
    w.e -= fmt_emin(f); /* the smallest normal scaled to 1 */
    uint64_t r = fr_round(f, w, mode) & ~(1ull << (fr_width(f) - 1));
    return r != one_bits(f);
}

static uint64_t arith1(fr_fmt f, int op, fr_mode mode, int flags, uint64_t a, uint64_t b, uint64_t c)
{
    fr_val x = fval(f, a, flags), y = fval(f, b, flags), z = fval(f, c, flags), v;
    switch (op) {
    case OP_ADD: v = fr_add(x, y, mode); break;
    case OP_SUB: v = fr_add(x, fr_neg(y), mode); break;
    case OP_MUL: v = fr_mul(x, y); break;
    case OP_DIV: v = fr_div(x, y); break;
    case OP_FMA: v = fr_fma(x, y, z, mode); break;
    case OP_SQRT: v = fr_sqrt(x); break;
    default: v = fr_div(fr_from_int(1, false), x); break; /* rcp */
    }
    if (ftz_flushes(f, op, flags, v, mode))
        return post(f, (uint64_t)v.sign << (fr_width(f) - 1), flags);
    return post(f, fr_round(f, v, mode), flags);
}

static uint64_t ref_arith(const fcase *c, uint64_t a, uint64_t b, uint64_t cc)
{
    if (c->kd == 'H' || c->kd == 'B') { /* packed: per half */
        uint64_t lo = arith1(c->fmt, c->op, c->mode, c->flags, a & 0xffff, b & 0xffff, cc & 0xffff);
        uint64_t hi = arith1(c->fmt, c->op, c->mode, c->flags, a >> 16, b >> 16, cc >> 16);
        return lo | hi << 16;
    }
    return arith1(c->fmt, c->op, c->mode, c->flags, a, b, cc);
}

static bool kind_signed(char k) { return strchr("ilsc", k) != NULL; }
static unsigned kind_bits(char k) { return (k == 'c' || k == 'C') ? 8 : kind_size(k) * 8; }
static bool kind_float(char k) { return strchr("hbfdtHBqQ", k) != NULL; }

static int64_t int_operand(char k, uint64_t bits)
{
    unsigned w = kind_bits(k);
    uint64_t v = w == 64 ? bits : bits & ((1ull << w) - 1);
    if (kind_signed(k) && w < 64 && (v >> (w - 1)))
        v |= ~0ull << w;
    return (int64_t)v;
}

/* A NaN converted, as recorded on an H200 (the ISA leaves these open):
 * into an integer, from f64 the bits of the destination's signed minimum
 * (unsigned types too), from narrower floats 1 << 63 into 64 bits and 0
 * into fewer; from f64 into a narrower float, the sign and the top payload
 * bits, quieted; bf16 into f32, its bits shifted up (payload kept). */
static uint64_t cvt_nan(const fcase *c, uint64_t a)
{
    fr_fmt sf = kind_fmt(c->ka), df = kind_fmt(c->kd);
    if (!kind_float(c->kd)) {
        unsigned bits = kind_bits(c->kd);
        uint64_t r = sf == FR_F64 || bits == 64 ? 1ull << (bits - 1) : 0;
        return kind_signed(c->kd) && bits < kind_size(c->kd) * 8 ? (uint64_t)(int64_t)(int8_t)r & 0xffff : r;
    }
    if (sf == FR_BF16 && df == FR_F32 && !c->flags)
        return a << 16;
    if (sf == FR_F64 && df != FR_F64 && !(c->flags & F_SAT)) {
        unsigned w = fr_width(df), mant = fmt_p(df) - 1;
        uint64_t quiet_nan = ((1ull << (w - 1)) - 1) & ~((1ull << (mant - 1)) - 1);
        return (a >> 63) << (w - 1) | quiet_nan | ((a >> (52 - mant)) & ((1ull << mant) - 1));
    }
    return fr_canonical_nan(df);
}

/* cvt d, a: types from the operand kinds; c->op selects rounding to an
 * integral value (OP_RINT: float -> same float with .rni etc.). */
static uint64_t ref_cvt(const fcase *c, uint64_t a, uint64_t b, uint64_t cc)
{
    (void)b, (void)cc;
    fr_fmt sf = kind_fmt(c->ka), df = kind_fmt(c->kd);
    int sflags = sf == FR_F32 ? c->flags : c->flags & ~F_FTZ; /* .ftz: f32 only */
    int dflags = df == FR_F32 ? c->flags : c->flags & ~F_FTZ;
    if (!kind_float(c->ka)) {
        fr_val v = fr_from_int(int_operand(c->ka, a), kind_signed(c->ka));
        return post(df, fr_round(df, v, c->mode), dflags);
    }
    fr_val v = fval(sf, a, sflags);
    if (v.cls == 3 && (!kind_float(c->kd) || !(c->flags & F_SAT)))
        return cvt_nan(c, a);
    if (!kind_float(c->kd)) {
        uint64_t r = fr_to_int(v, c->mode, kind_bits(c->kd), kind_signed(c->kd));
        if (kind_signed(c->kd) && kind_bits(c->kd) < kind_size(c->kd) * 8) /* s8 in 16 bits */
            r = (uint64_t)(int64_t)(int8_t)r & 0xffff;
        return r;
    }
    if (c->op == OP_RINT)
        v = fr_rint(v, c->mode);
    if (sf == FR_F64 && ftz_flushes(df, OP_CVT, dflags, v, c->mode))
        return post(df, (uint64_t)v.sign << (fr_width(df) - 1), dflags);
    return post(df, fr_round(df, v, c->mode), dflags);
}

/* min/max: the non-NaN operand when one is NaN, canonical NaN when both
 * are (.NaN: when either is); -0 < +0; .abs compares magnitudes;
 * .xorsign gives a non-NaN result the xor of the operands' signs. */
static uint64_t minmax1(fr_fmt f, bool is_min, int flags, int n, const uint64_t *x)
{
    unsigned w = fr_width(f);
    uint64_t signbit = 1ull << (w - 1), sign = 0, best = 0;
    bool have = false, any_nan = false;
    for (int i = 0; i < n; i++) {
        uint64_t v = x[i];
        if ((flags & F_FTZ) && fr_is_subnormal(f, v))
            v &= signbit;
        sign ^= v & signbit;
        if (flags & F_XORSIGN)
            v &= ~signbit;
        if (fr_is_nan(f, v)) {
            any_nan = true;
            continue;
        }
        if (!have) {
            best = v, have = true;
            continue;
        }
        long double lv = fr_to_ld(f, v), lb = fr_to_ld(f, best);
        bool less = lv < lb || (lv == lb && (v & signbit) && !(best & signbit));
        if (is_min ? less : (lb < lv || (lv == lb && (best & signbit) && !(v & signbit))))
            best = v;
    }
    if (!have || (any_nan && (flags & F_NAN)))
        return fr_canonical_nan(f);
    if (flags & F_XORSIGN)
        best = (best & ~signbit) | sign;
    return best;
}

static uint64_t ref_minmax(const fcase *c, uint64_t a, uint64_t b, uint64_t cc)
{
    bool is_min = c->op == 0;
    int n = c->kc ? 3 : 2;
    if (c->kd == 'H' || c->kd == 'B') {
        uint64_t lo[3] = {a & 0xffff, b & 0xffff, cc & 0xffff}, hi[3] = {a >> 16, b >> 16, cc >> 16};
        return minmax1(c->fmt, is_min, c->flags, n, lo) | minmax1(c->fmt, is_min, c->flags, n, hi) << 16;
    }
    uint64_t x[3] = {a, b, cc};
    return minmax1(c->fmt, is_min, c->flags, n, x);
}

/* Comparisons: eq ne lt le gt ge are false on NaN (ne too), the u forms
 * true; num / nan test orderedness. */
enum { C_EQ, C_NE, C_LT, C_LE, C_GT, C_GE, C_EQU, C_NEU, C_LTU, C_LEU, C_GTU, C_GEU, C_NUM, C_NAN };
static const char *cmp_name[] = {"eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};

static bool cmp1(fr_fmt f, int op, int flags, uint64_t a, uint64_t b)
{
    fr_val x = fval(f, a, flags), y = fval(f, b, flags);
    bool un = x.cls == 3 || y.cls == 3;
    long double lx = fr_to_ld(f, a), ly = fr_to_ld(f, b);
    if (x.cls == 0)
        lx = 0;
    if (y.cls == 0)
        ly = 0;
    switch (op) {
    case C_EQ: return !un && lx == ly;
    case C_NE: return !un && lx != ly;
    case C_LT: return !un && lx < ly;
    case C_LE: return !un && lx <= ly;
    case C_GT: return !un && lx > ly;
    case C_GE: return !un && lx >= ly;
    case C_EQU: return un || lx == ly;
    case C_NEU: return un || lx != ly;
    case C_LTU: return un || lx < ly;
    case C_LEU: return un || lx <= ly;
    case C_GTU: return un || lx > ly;
    case C_GEU: return un || lx >= ly;
    case C_NUM: return !un;
    default: return un;
    }
}

/* setp: bit 0 the predicate, bit 1 its complement (p|q form); packed
 * pairs: bits 0/1 for the low half, 2/3 for the high half. */
static uint64_t ref_setp(const fcase *c, uint64_t a, uint64_t b, uint64_t cc)
{
    (void)cc;
    if (c->ka == 'H' || c->ka == 'B') {
        bool lo = cmp1(c->fmt, c->op, c->flags, a & 0xffff, b & 0xffff);
        bool hi = cmp1(c->fmt, c->op, c->flags, a >> 16, b >> 16);
        return (uint64_t)lo | (uint64_t)hi << 1;
    }
    bool p = cmp1(c->fmt, c->op, c->flags, a, b);
    if (c->ka == 'h' || c->ka == 'b')
        return p; /* no second predicate (see setp_case) */
    return (uint64_t)p | (uint64_t)!p << 1;
}

/* neg, abs: sign-bit operations; .ftz flushes a subnormal input first.
 * A NaN gives the canonical NaN except in f64 (the ISA: an unspecified
 * NaN; an H200 canonicalises f32, f16 and bf16 ones).  copysign d, a, b:
 * |b| with a's sign, payloads kept. */
enum { U_NEG, U_ABS, U_COPYSIGN };
static uint64_t ref_bitop(const fcase *c, uint64_t a, uint64_t b, uint64_t cc)
{
    (void)cc;
    fr_fmt f = c->fmt;
    unsigned w = kind_size(c->kd) * 8, hw = fr_width(f);
    uint64_t r = 0;
    for (unsigned s = 0; s < w; s += hw) {
        uint64_t m = hw == 64 ? ~0ull : (1ull << hw) - 1, sb = 1ull << (hw - 1);
        uint64_t x = (a >> s) & m, y = (b >> s) & m;
        if ((c->flags & F_FTZ) && fr_is_subnormal(f, x))
            x &= sb;
        uint64_t v = c->op == U_NEG ? x ^ sb : c->op == U_ABS ? x & ~sb : (y & ~sb) | (x & sb);
        if (c->op != U_COPYSIGN && f != FR_F64 && fr_is_nan(f, x))
            v = fr_canonical_nan(f);
        r |= v << s;
    }
    return r;
}

/* set.cmp.dtype.stype: per element (per half for pairs) all ones for an
 * integer destination, 1.0 for a float one, else 0. */
static uint64_t ref_set(const fcase *c, uint64_t a, uint64_t b, uint64_t cc)
{
    (void)cc;
    bool pair = c->ka == 'H' || c->ka == 'B';
    fr_fmt df = kind_float(c->kd) ? kind_fmt(c->kd) : FR_NFMT;
    unsigned ew = pair ? 16 : kind_size(c->kd) * 8;
    uint64_t one = df == FR_NFMT ? (ew == 64 ? ~0ull : (1ull << ew) - 1) : one_bits(df), r = 0;
    for (int h = 0; h < (pair ? 2 : 1); h++) {
        uint64_t x = pair ? (a >> 16 * h) & 0xffff : a, y = pair ? (b >> 16 * h) & 0xffff : b;
        if (cmp1(c->fmt, c->op, c->flags, x, y))
            r |= one << (ew * h);
    }
    return r;
}

/* slct.dtype.f32 d, a, b, c: a if c >= 0 (.ftz: c flushed first), else b. */
static uint64_t ref_slct(const fcase *c, uint64_t a, uint64_t b, uint64_t cc)
{
    fr_val v = fval(FR_F32, cc, c->flags);
    return (v.cls == 0 || (v.cls != 3 && !v.sign)) ? a : b;
}

enum { T_FINITE, T_INFINITE, T_NUMBER, T_NOTANUMBER, T_NORMAL, T_SUBNORMAL };
static const char *testp_name[] = {"finite", "infinite", "number", "notanumber", "normal", "subnormal"};
static uint64_t ref_testp(const fcase *c, uint64_t a, uint64_t b, uint64_t cc)
{
    (void)b, (void)cc;
    fr_val v = fr_decode(c->fmt, a);
    bool sub = fr_is_subnormal(c->fmt, a);
    switch (c->op) {
    case T_FINITE: return v.cls <= 1;
    case T_INFINITE: return v.cls == 2;
    case T_NUMBER: return v.cls != 3;
    case T_NOTANUMBER: return v.cls == 3;
    case T_NORMAL: return v.cls <= 1 && !sub; /* +-0 too: an H200 says so */
    default: return sub;
    }
}

/* ------------------------------------------------------------------------
 * Approximate operations: long double libm is the exact value (64-bit
 * significand, far below every bound checked here).
 * ------------------------------------------------------------------------ */

enum { AP_EX2, AP_LG2, AP_SIN, AP_COS, AP_TANH, AP_RSQRT, AP_RCP, AP_SQRT, AP_DIV };
enum { M_ULP, M_REL, M_ABS, M_ABSREL, M_RELN };


static long double ulp_of(fr_fmt f, long double x)
{
    int e = x == 0 ? fmt_emin(f) : ilogbl(x);
    if (e < fmt_emin(f))
        e = fmt_emin(f);
    return ldexpl(1.0L, e - fmt_p(f) + 1);
}

static long double ap_exact(int op, long double x, long double y)
{
    switch (op) {
    case AP_EX2: return exp2l(x);
    case AP_LG2: return x == 0 ? -INFINITY : log2l(x);
    case AP_SIN: return sinl(x);
    case AP_COS: return cosl(x);
    case AP_TANH: return tanhl(x);
    case AP_RSQRT: return x == 0 ? (signbit(x) ? -INFINITY : INFINITY) : 1.0L / sqrtl(x);
    case AP_RCP: return 1.0L / x;
    case AP_SQRT: return sqrtl(x);
    default: return x / y;
    }
}

/* sin/cos.approx.f32 on an H200 see x times 1/(2 pi) in f32, rounded
 * toward zero (FMUL.RZ ahead of MUFU.SIN/COS): its error beyond [-pi, pi]
 * is that rounding's, growing with |x|, and from 2^26 or so the argument
 * is a whole number of turns.  The exact function of that argument. */
static long double sincos_of_turns(int op, long double x)
{
    fr_val turns = fr_mul(fr_decode(FR_F64, f64b((double)x)), fr_decode(FR_F32, 0x3e22f983)); /* f32(1/(2 pi)) */
    long double t = fr_to_ld(FR_F32, fr_round(FR_F32, turns, FR_RZ));
    long double r = 2 * 3.141592653589793238462643383279503L * (t - nearbyintl(t));
    return op == AP_SIN ? sinl(r) : cosl(r);
}

/* rcp/rsqrt.approx.ftz.f64 (c->mode AP_GROSS): the ISA's gross
 * approximation takes the operand's high 32 bits and gives 32 (the low
 * ones zero); the error is in units of the result's 20th significand bit. */
enum { AP_GROSS = 2 };

static bool approx1(const fcase *c, uint64_t a, uint64_t b, uint64_t got, double *err)
{
    fr_fmt f = c->fmt;
    bool gross = c->mode == AP_GROSS;
    if (gross && (got & 0xffffffffu))
        return false;
    if (gross)
        a &= ~0xffffffffull;
    fr_val va = fval(f, a, c->flags), vb = fval(f, b, c->flags);
    long double x = va.cls == 0 ? (va.sign ? -0.0L : 0.0L) : fr_to_ld(f, a);
    long double y = vb.cls == 0 ? (vb.sign ? -0.0L : 0.0L) : fr_to_ld(f, b);
    bool sincos = c->op == AP_SIN || c->op == AP_COS;
    long double want = sincos && x != 0 ? sincos_of_turns(c->op, x) : ap_exact(c->op, x, y);
    long double maxf = fr_to_ld(f, fr_max_finite(f, 0)), minn = ldexpl(1.0L, fmt_emin(f));
    fr_val g = fr_decode(f, got);
    *err = 0;
    if (c->op == AP_DIV && c->mode == 1 && fabsl(y) > ldexpl(1, 126) && fabsl(y) < ldexpl(1, 128) && isfinite(y)) {
        /* div.approx: for 2^126 < |b| < 2^128 the ISA gives 0, or NaN when a is inf */
        if (isinf(x) || isnan(x))
            return got == fr_canonical_nan(f);
        return g.cls == 0 && g.sign == (va.sign ^ vb.sign);
    }
    if (c->op == AP_DIV && c->mode == 1 && (fabsl(y) < minn || isinf(y)))
        return true; /* outside the range the ISA bounds */
    if (isnan(want))
        return f == FR_F64 ? g.cls == 3 : got == fr_canonical_nan(f);
    if (isinf(want) && fabsl(want) > 0 && !(fabsl(x) < INFINITY && c->op == AP_EX2))
        return g.cls == 2 && g.sign == (want < 0);
    if (g.cls == 3)
        return false;
    if (want == 0 && sincos && x != 0) /* whole turns: a zero of either sign */
        return g.cls == 0;
    if (want == 0) /* exact zeros (sin 0, tanh 0, lg2 1, rsqrt inf...) come out exactly */
        return g.cls == 0 && (c->op == AP_LG2 || c->op == AP_RSQRT || g.sign == (signbit(want) != 0));
    if ((c->flags & F_FTZ) && fabsl(want) < minn && g.cls == 0)
        return true; /* flushed */
    /* infinity counts as the power of two just past the largest finite
     * value, and so do exact results beyond it (which round to infinity) */
    long double over = maxf + ulp_of(f, maxf);
    long double gv = g.cls == 2 ? copysignl(over, g.sign ? -1.0L : 1.0L) : g.cls == 0 ? 0 : fr_to_ld(f, got);
    if (fabsl(want) > over)
        want = copysignl(over, want);
    long double d = fabsl(gv - want), e;
    switch (c->unit[0] == 'u' ? M_ULP : c->unit[0] == 'r' ? (c->unit[3] == '*' ? M_RELN : M_REL)
                              : c->unit[3] == '/' ? M_ABSREL : M_ABS) {
    case M_ULP: e = d / (ulp_of(f, want) * (gross ? 0x1p32L : 1)); break;
    case M_REL: e = d / fabsl(want); break;
    case M_RELN: e = d / fmaxl(fabsl(want), minn); break;
    case M_ABSREL: e = d / fmaxl(1, fabsl(want)); break;
    default: e = d; break;
    }
    *err = (double)e;
    return e <= c->bound;
}

static bool ref_approx(const fcase *c, uint64_t a, uint64_t b, uint64_t got, double *err)
{
    if (c->kd == 'H' || c->kd == 'B') {
        double e1 = 0, e2 = 0;
        bool ok = approx1(c, a & 0xffff, b & 0xffff, got & 0xffff, &e1) &&
                  approx1(c, a >> 16, b >> 16, got >> 16, &e2);
        *err = e1 > e2 ? e1 : e2;
        return ok;
    }
    return approx1(c, a, b, got, err);
}

/* ------------------------------------------------------------------------
 * Case lists
 * ------------------------------------------------------------------------ */

static const char *op_text[] = {"add", "sub", "mul", "div", "fma", "sqrt", "rcp"};

static char kind_of_type(const char *t)
{
    static const char *names[] = {"f16", "bf16", "f32", "f64", "tf32", "f16x2", "bf16x2", "e4m3x2", "e5m2x2",
                                  "s32", "u32", "s64", "u64", "s16", "u16", "s8", "u8"};
    static const char kinds[] = "hbfdtHBqQiulLsScC";
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(names[i], t))
            return kinds[i];
    return 0;
}

static const char *flag_text(int flags)
{
    static char buf[64];
    snprintf(buf, sizeof buf, "%s%s%s%s%s%s", (flags & F_FTZ) ? ".ftz" : "", (flags & F_SAT) ? ".sat" : "",
             (flags & F_SATFINITE) ? ".satfinite" : "", (flags & F_RELU) ? ".relu" : "",
             (flags & F_NAN) ? ".NaN" : "", (flags & F_XORSIGN) ? ".xorsign.abs" : "");
    return buf;
}

/* op.mode.flags.type with 1, 2 or 3 sources; mode -1 leaves it out
 * (the default, round to nearest); mad is fma under another name. */
static fcase *arith_case(const char *type, const char *optext, int op, int mode, int flags)
{
    char name[80], ptx[160], kinds[5] = {0};
    char k = kind_of_type(type);
    int nsrc = op == OP_SQRT || op == OP_RCP ? 1 : op == OP_FMA ? 3 : 2;
    char rnd[8] = "";
    if (mode >= 0)
        snprintf(rnd, sizeof rnd, ".%s", mode_name[mode]);
    snprintf(name, sizeof name, "%s%s%s.%s", optext, rnd, flag_text(flags), type);
    snprintf(ptx, sizeof ptx, "%s %%d, %%a%s%s;", name, nsrc > 1 ? ", %b" : "", nsrc > 2 ? ", %c" : "");
    for (int i = 0; i <= nsrc; i++)
        kinds[i] = k;
    fcase *c = add_case(name, kinds, ptx);
    c->ref = ref_arith;
    c->op = op;
    c->mode = mode < 0 ? FR_RN : mode;
    c->flags = flags;
    c->fmt = kind_fmt(k);
    c->gen = op == OP_ADD || op == OP_SUB ? G_NEAR : op == OP_FMA ? G_FMA : 0;
    return c;
}

static size_t build_arith(const char *type)
{
    size_t first = ncases;
    bool f32 = !strcmp(type, "f32");
    for (int op = OP_ADD; op <= OP_RCP; op++)
        for (int mode = FR_RN; mode <= FR_RP; mode++)
            for (int flags = 0; flags <= (f32 ? F_FTZ | F_SAT : 0); flags++) {
                bool sat_ok = op == OP_ADD || op == OP_SUB || op == OP_MUL || op == OP_FMA;
                if ((flags & F_SAT) && !sat_ok)
                    continue;
                arith_case(type, op_text[op], op, mode, flags);
                if (op == OP_FMA && mode == FR_RN)
                    arith_case(type, "mad", op, mode, flags);
            }
    /* the default rounding */
    for (int op = OP_ADD; op <= OP_MUL; op++)
        arith_case(type, op_text[op], op, -1, 0);
    return first;
}

static const char *rint_name[] = {"rni", "rzi", "rmi", "rpi"};

static fcase *cvt_case(const char *dt, const char *st, const char *rnd, int mode, int flags)
{
    char name[80], ptx[160], kinds[3] = {kind_of_type(dt), kind_of_type(st), 0};
    snprintf(name, sizeof name, "cvt%s%s%s.%s.%s", *rnd ? "." : "", rnd, flag_text(flags), dt, st);
    snprintf(ptx, sizeof ptx, "%s %%d, %%a;", name);
    fcase *c = add_case(name, kinds, ptx);
    c->ref = ref_cvt;
    c->mode = mode;
    c->flags = flags;
    c->op = OP_CVT;
    return c;
}

static const char *float_types[] = {"f16", "bf16", "f32", "f64"};
static const char *int_types[] = {"s32", "u32", "s64", "u64", "s16", "u16", "s8", "u8"};

static size_t build_cvt_int(void)
{
    size_t first = ncases;
    for (int f = 0; f < 4; f++)
        for (int i = 0; i < 8; i++) {
            int nm = i < 4 ? 4 : 2; /* every mode for the wide integers */
            if (f == 1 && i >= 6)
                continue; /* bf16 <-> s8/u8: not in ptxas's cvt */
            for (int m = 0; m < nm; m++) {
                cvt_case(int_types[i], float_types[f], rint_name[m], m, 0);
                if (f == 2 && i < 4)
                    cvt_case(int_types[i], float_types[f], rint_name[m], m, F_FTZ);
                cvt_case(float_types[f], int_types[i], mode_name[m], m, 0);
            }
        }
    return first;
}

static size_t build_cvt_float(void)
{
    size_t first = ncases;
    for (int d = 0; d < 4; d++)
        for (int s = 0; s < 4; s++) {
            const char *dt = float_types[d], *st = float_types[s];
            bool narrow = d < s, same = d == s;
            if ((d == 0 && s == 1) || (d == 1 && s == 0))
                continue; /* f16 <-> bf16: not in the ISA's cvt */
            if (same) {
                for (int m = 0; m < 4; m++) {
                    fcase *c = cvt_case(dt, st, rint_name[m], m, 0);
                    c->op = OP_RINT;
                    if (d == 2) {
                        c = cvt_case(dt, st, rint_name[m], m, F_FTZ);
                        c->op = OP_RINT;
                    }
                }
                if (d == 2) {
                    cvt_case(dt, st, "", FR_RN, F_SAT);
                    cvt_case(dt, st, "", FR_RN, F_FTZ | F_SAT);
                }
                continue;
            }
            if (!narrow) {
                cvt_case(dt, st, "", FR_RN, 0);
                if (s == 2)
                    cvt_case(dt, st, "", FR_RN, F_FTZ);
                continue;
            }
            for (int m = 0; m < 4; m++) {
                cvt_case(dt, st, mode_name[m], m, 0);
                if (d == 2)
                    cvt_case(dt, st, mode_name[m], m, F_FTZ);
            }
            if (d != 1) /* bf16 takes .satfinite, not .sat */
                cvt_case(dt, st, "rn", FR_RN, F_SAT);
            if (d < 2 && s == 2) {
                cvt_case(dt, st, "rn", FR_RN, F_RELU);
                cvt_case(dt, st, "rn", FR_RN, F_SATFINITE);
                cvt_case(dt, st, "rz", FR_RZ, F_SATFINITE | F_RELU);
            }
        }
    return first;
}

/* set.cmp{.ftz}.dtype.stype d, a, b. */
static void set_case(int cmp, int flags, const char *dt, const char *st)
{
    char name[80], ptx[160], k = kind_of_type(st), kk[4] = {kind_of_type(dt), k, k, 0};
    if (!kk[0])
        kk[0] = 'S';
    snprintf(name, sizeof name, "set.%s%s.%s.%s", cmp_name[cmp], (flags & F_FTZ) ? ".ftz" : "", dt, st);
    snprintf(ptx, sizeof ptx, "%s %%d, %%a, %%b;", name);
    fcase *c = add_case(name, kk, ptx);
    c->ref = ref_set, c->op = cmp, c->flags = flags, c->fmt = kind_fmt(k), c->gen = G_NEAR;
}

/* setp.cmp{.ftz}.type p|q, a, b; d = p | q << 1. */
static void setp_case(const char *ty, int cmp, int ftz)
{
    char name[80], ptx[320], k = kind_of_type(ty);
    snprintf(name, sizeof name, "setp.%s%s.%s", cmp_name[cmp], ftz ? ".ftz" : "", ty);
    if (k == 'h' || k == 'b') /* one predicate: ptxas takes p|q for f16x2/bf16x2 and wider types only */
        snprintf(ptx, sizeof ptx, "{ .reg .pred %%q1; %s %%q1, %%a, %%b; selp.b32 %%d, 1, 0, %%q1; }", name);
    else
        snprintf(ptx, sizeof ptx,
                 "{ .reg .pred %%q1, %%q2; .reg .b32 %%t1, %%t2; %s %%q1|%%q2, %%a, %%b; "
                 "selp.b32 %%t1, 1, 0, %%q1; selp.b32 %%t2, 2, 0, %%q2; or.b32 %%d, %%t1, %%t2; }", name);
    char kk[4] = {'p', k, k, 0};
    fcase *c = add_case(name, kk, ptx);
    c->ref = ref_setp, c->op = cmp, c->flags = ftz ? F_FTZ : 0, c->fmt = kind_fmt(k), c->gen = G_NEAR;
}

static size_t build_misc(void)
{
    size_t first = ncases;
    char name[80], ptx[320];
    static const int mm_flags[] = {0, F_NAN, F_XORSIGN, F_NAN | F_XORSIGN, F_FTZ, F_FTZ | F_NAN};
    for (int t = 2; t <= 3; t++) {
        const char *ty = float_types[t];
        char k = kind_of_type(ty);
        char k3[4] = {k, k, k, 0}, k4[5] = {k, k, k, k, 0}, k2[3] = {k, k, 0};
        for (int op = 0; op < 2; op++)
            for (int fi = 0; fi < (t == 2 ? 6 : 1); fi++) {
                snprintf(name, sizeof name, "%s%s.%s", op ? "max" : "min", flag_text(mm_flags[fi]), ty);
                snprintf(ptx, sizeof ptx, "%s %%d, %%a, %%b;", name);
                fcase *c = add_case(name, k3, ptx);
                c->ref = ref_minmax, c->op = op, c->flags = mm_flags[fi], c->fmt = kind_fmt(k);
                c->gen = G_NEAR;
                if (t == 2 && fi < 2 && fi != 2) { /* three inputs (sm_100) */
                    snprintf(name, sizeof name, "%s%s.%s.3", op ? "max" : "min", flag_text(mm_flags[fi]), ty);
                    snprintf(ptx, sizeof ptx, "%s%s.%s %%d, %%a, %%b, %%c;", op ? "max" : "min", flag_text(mm_flags[fi]), ty);
                    c = add_case(name, k4, ptx);
                    c->ref = ref_minmax, c->op = op, c->flags = mm_flags[fi], c->fmt = kind_fmt(k);
                }
            }
        for (int u = U_NEG; u <= U_COPYSIGN; u++)
            for (int ftz = 0; ftz <= (t == 2 && u != U_COPYSIGN); ftz++) {
                static const char *un[] = {"neg", "abs", "copysign"};
                snprintf(name, sizeof name, "%s%s.%s", un[u], ftz ? ".ftz" : "", ty);
                snprintf(ptx, sizeof ptx, "%s %%d, %%a%s;", name, u == U_COPYSIGN ? ", %b" : "");
                fcase *c = add_case(name, u == U_COPYSIGN ? k3 : k2, ptx);
                c->ref = ref_bitop, c->op = u, c->flags = ftz ? F_FTZ : 0, c->fmt = kind_fmt(k);
            }
        for (int m = T_FINITE; m <= T_SUBNORMAL; m++) {
            snprintf(name, sizeof name, "testp.%s.%s", testp_name[m], ty);
            snprintf(ptx, sizeof ptx, "{ .reg .pred %%q; %s %%q, %%a; selp.b32 %%d, 1, 0, %%q; }", name);
            char kk[3] = {'p', k, 0};
            fcase *c = add_case(name, kk, ptx);
            c->ref = ref_testp, c->op = m, c->fmt = kind_fmt(k);
        }
        for (int cmp = C_EQ; cmp <= C_NAN; cmp++)
            for (int ftz = 0; ftz <= (t == 2); ftz++)
                setp_case(ty, cmp, ftz);
        static const int set_cmps[] = {C_LT, C_NEU, C_GEU, C_NAN};
        for (int i = 0; i < 4; i++) {
            set_case(set_cmps[i], 0, "u32", ty);
            set_case(set_cmps[i], t == 2 && i == 0 ? F_FTZ : 0, "f32", ty);
        }
    }
    for (int ftz = 0; ftz <= 1; ftz++) {
        snprintf(name, sizeof name, "slct%s.b32.f32", ftz ? ".ftz" : "");
        snprintf(ptx, sizeof ptx, "%s %%d, %%a, %%b, %%c;", name);
        fcase *c = add_case(name, "uuuf", ptx);
        c->ref = ref_slct, c->flags = ftz ? F_FTZ : 0;
    }
    return first;
}

/* f16/bf16 and their pairs: arithmetic (.rn only in the ISA; .ftz and
 * .sat for f16, .relu for fma), neg/abs, min/max, setp with every
 * comparison (a predicate per half for pairs). */
static size_t build_half(void)
{
    size_t first = ncases;
    static const char *ht[] = {"f16", "f16x2", "bf16", "bf16x2"};
    char name[80], ptx[320];
    for (int ti = 0; ti < 4; ti++) {
        const char *ty = ht[ti];
        bool bf = ti >= 2;
        char k = kind_of_type(ty);
        char k2[3] = {k, k, 0}, k3[4] = {k, k, k, 0};
        fr_fmt f = kind_fmt(k);
        static const int fl[] = {0, F_FTZ, F_SAT, F_FTZ | F_SAT, F_RELU, F_FTZ | F_RELU};
        for (int op = OP_ADD; op <= OP_FMA; op++) {
            if (op == OP_DIV)
                continue;
            for (int fi = 0; fi < 6; fi++) {
                int flags = fl[fi];
                if ((bf && (flags & (F_FTZ | F_SAT))) || ((flags & F_RELU) && op != OP_FMA))
                    continue;
                fcase *c = arith_case(ty, op_text[op], op, FR_RN, flags);
                c->fmt = f;
                if (op == OP_FMA && ti == 0) { /* rounding a*b + c twice (f32, then f16) would be wrong */
                    static const uint64_t dr[][3] = {{0x4200, 0x6156, 0x0001}, {0xc200, 0x6156, 0x8001},
                                                     {0x4200, 0x6156, 0x8001}, {0x3c01, 0x3c01, 0x0001}};
                    c->extra = dr, c->nextra = 4;
                }
                if (op != OP_FMA && fi == 0)
                    arith_case(ty, op_text[op], op, -1, 0)->fmt = f;
            }
        }
        static const int mm_flags[] = {0, F_NAN, F_XORSIGN, F_NAN | F_XORSIGN, F_FTZ, F_FTZ | F_NAN | F_XORSIGN};
        for (int op = 0; op < 2; op++)
            for (int fi = 0; fi < 6; fi++) {
                if (bf && (mm_flags[fi] & F_FTZ))
                    continue;
                snprintf(name, sizeof name, "%s%s.%s", op ? "max" : "min", flag_text(mm_flags[fi]), ty);
                snprintf(ptx, sizeof ptx, "%s %%d, %%a, %%b;", name);
                fcase *c = add_case(name, k3, ptx);
                c->ref = ref_minmax, c->op = op, c->flags = mm_flags[fi], c->fmt = f, c->gen = G_NEAR;
            }
        for (int u = U_NEG; u <= U_ABS; u++)
            for (int ftz = 0; ftz <= !bf; ftz++) {
                snprintf(name, sizeof name, "%s%s.%s", u == U_NEG ? "neg" : "abs", ftz ? ".ftz" : "", ty);
                snprintf(ptx, sizeof ptx, "%s %%d, %%a;", name);
                fcase *c = add_case(name, k2, ptx);
                c->ref = ref_bitop, c->op = u, c->flags = ftz ? F_FTZ : 0, c->fmt = f;
            }
        for (int cmp = C_EQ; cmp <= C_NAN; cmp++)
            for (int ftz = 0; ftz <= !bf; ftz++)
                setp_case(ty, cmp, ftz);
        set_case(C_LT, 0, ty, ty);
        set_case(C_GEU, bf ? 0 : F_FTZ, ty, ty);
        set_case(C_NE, 0, ti % 2 ? "u32" : "u16", ty);
    }
    return first;
}

/* One approximate case: the ISA's bound in the given unit ("ulp", "rel",
 * "rel*" relative to max(|exact|, smallest normal), "abs", "abs/rel"
 * absolute below 1 and relative above). */
static fcase *approx_case(const char *text, const char *type, int op, int flags, double bound,
                          const char *unit)
{
    char name[80], ptx[160], k = kind_of_type(type);
    bool two = op == AP_DIV;
    char kinds[4] = {k, k, two ? k : 0, 0};
    snprintf(name, sizeof name, "%s.%s", text, type);
    snprintf(ptx, sizeof ptx, "%s %%d, %%a%s;", name, two ? ", %b" : "");
    fcase *c = add_case(name, kinds, ptx);
    c->approx = ref_approx, c->op = op, c->flags = flags, c->fmt = kind_fmt(k);
    c->bound = bound, c->unit = unit;
    return c;
}

static size_t build_approx(void)
{
    size_t first = ncases;
    const double pi = 3.14159265358979323846;
    for (int ftz = 0; ftz <= 1; ftz++) {
        int fl = ftz ? F_FTZ : 0;
        const char *z = ftz ? ".ftz" : "";
        char t[40];
        fcase *c;
        /* ex2.approx.f32: max 2 ulp over the full range (PTX ISA, ex2) */
        snprintf(t, sizeof t, "ex2.approx%s", z);
        c = approx_case(t, "f32", AP_EX2, fl, 2, "ulp");
        c->lo = -160, c->hi = 130;
        /* lg2.approx.f32: max 2^-22 absolute/relative error (PTX ISA, lg2) */
        snprintf(t, sizeof t, "lg2.approx%s", z);
        c = approx_case(t, "f32", AP_LG2, fl, 0x1p-22, "abs/rel");
        c->lo = 0, c->hi = 4;
        /* sin/cos.approx.f32: max absolute error 2^-20.5 in [-pi, pi] and
         * looser out to [-100pi, 100pi] (PTX ISA, sin/cos); checked at
         * 2^-20.5 everywhere against the function of the argument an H200
         * reduces to (sincos_of_turns: its error beyond pi is that
         * reduction's) */
        snprintf(t, sizeof t, "sin.approx%s", z);
        c = approx_case(t, "f32", AP_SIN, fl, exp2(-20.5), "abs");
        c->lo = -100 * pi, c->hi = 100 * pi;
        snprintf(t, sizeof t, "cos.approx%s", z);
        c = approx_case(t, "f32", AP_COS, fl, exp2(-20.5), "abs");
        c->lo = -100 * pi, c->hi = 100 * pi;
        /* rsqrt.approx.f32: max relative error 2^-22.9 (PTX ISA, rsqrt) */
        snprintf(t, sizeof t, "rsqrt.approx%s", z);
        approx_case(t, "f32", AP_RSQRT, fl, exp2(-22.9), "rel");
        /* rcp.approx.f32: max 1 ulp (PTX ISA, rcp) */
        snprintf(t, sizeof t, "rcp.approx%s", z);
        approx_case(t, "f32", AP_RCP, fl, 1, "ulp");
        /* sqrt.approx.f32: max relative error 2^-23 (PTX ISA, sqrt) */
        snprintf(t, sizeof t, "sqrt.approx%s", z);
        approx_case(t, "f32", AP_SQRT, fl, 0x1p-23, "rel");
        /* div.approx.f32: max 2 ulp for |b| in [2^-126, 2^126]; 0 (NaN for
         * infinite a) for 2^126 < |b| < 2^128 (PTX ISA, div) */
        snprintf(t, sizeof t, "div.approx%s", z);
        c = approx_case(t, "f32", AP_DIV, fl, 2, "ulp");
        c->mode = 1;
        /* div.full.f32: max 2 ulp over the full range (PTX ISA, div) */
        snprintf(t, sizeof t, "div.full%s", z);
        approx_case(t, "f32", AP_DIV, fl, 2, "ulp");
    }
    /* tanh.approx.f32: max relative error 2^-11 (PTX ISA, tanh) */
    fcase *c = approx_case("tanh.approx", "f32", AP_TANH, 0, 0x1p-11, "rel");
    c->lo = -10, c->hi = 10;
    /* f64 approximations: rcp.approx.ftz.f64 and rsqrt.approx.ftz.f64 are
     * the ISA's gross ones (high 32 bits in, high 32 bits out, the low ones
     * zero): within a unit of the 20th significand bit of the exact
     * function of the high word (an H200: 0.98 at most); rsqrt.approx.f64
     * within 2^-51 */
    approx_case("rcp.approx.ftz", "f64", AP_RCP, F_FTZ, 1, "ulp")->mode = AP_GROSS;
    approx_case("rsqrt.approx", "f64", AP_RSQRT, 0, 0x1p-51, "rel");
    approx_case("rsqrt.approx.ftz", "f64", AP_RSQRT, F_FTZ, 1, "ulp")->mode = AP_GROSS;
    /* half precision: ex2 max relative error 2^-9.9 (f16), 2^-7 (bf16,
     * .ftz only); tanh max absolute error 2^-10.987 (f16), 2^-8 (bf16)
     * (PTX ISA, half precision ex2 / tanh).  An H200's bf16 tanh of
     * +-0x3f3f is 1.00007 * 2^-8 off (0x3f21 for 0.63288): checked at
     * 2^-8 * (1 + 2^-10) */
    static const char *ht[] = {"f16", "f16x2", "bf16", "bf16x2"};
    for (int i = 0; i < 4; i++) {
        bool bf = i >= 2;
        c = approx_case(bf ? "ex2.approx.ftz" : "ex2.approx", ht[i], AP_EX2, bf ? F_FTZ : 0, bf ? 0x1p-7 : exp2(-9.9),
                        "rel*");
        c->gen = i % 2 ? 0 : G_EXH;
        c = approx_case("tanh.approx", ht[i], AP_TANH, 0, bf ? 0x1.004p-8 : exp2(-10.987), "abs");
        c->gen = i % 2 ? 0 : G_EXH;
    }
    return first;
}

/* One element of a packed conversion from an exact value: fp8 formats
 * saturate (.satfinite is required) and have NaN 0x7f. */
static uint64_t pack_elem(fr_fmt df, fr_val v, int mode, int flags)
{
    if (df == FR_E4M3 || df == FR_E5M2) {
        if (v.cls == 3)
            return 0x7f;
        if ((flags & F_RELU) && v.sign)
            return 0;
        uint64_t r = fr_round(df, v, (fr_mode)mode);
        fr_val rv = fr_decode(df, r);
        if (rv.cls >= 2) /* overflow: inf (e5m2) or the NaN pattern (e4m3) */
            r = fr_max_finite(df, v.sign);
        return r;
    }
    return post(df, fr_round(df, v, (fr_mode)mode), flags);
}

/* cvt.tf32.f32 of the f32 bits a.  NaN as on an H200: .rn/.rz give
 * 0x7fffe000; .rna truncates the payload (0x7f800001 becomes infinity),
 * and .satfinite then takes a unit off an all-ones exponent. */
static uint64_t tf32_elem(uint64_t a, int mode, int flags)
{
    if (!fr_is_nan(FR_F32, a))
        return pack_elem(FR_TF32, fr_decode(FR_F32, a), mode, flags);
    if (mode != FR_RNA)
        return 0x7fffe000;
    uint64_t r = a & 0xffffe000u;
    return (flags & F_SATFINITE) && (r & 0x7f800000) == 0x7f800000 ? r - 0x2000 : r;
}

/* cvt.{f16x2,bf16x2,e4m3x2,e5m2x2}.f32 d, a, b (a to the upper part);
 * .e4m3x2.f16x2 and .f16x2.{e4m3x2,e5m2x2} d, a (low part from low). */
static uint64_t ref_pack(const fcase *c, uint64_t a, uint64_t b, uint64_t cc)
{
    (void)cc;
    fr_fmt df = (fr_fmt)c->fmt, sf = (fr_fmt)c->fmt2;
    unsigned dw = fr_width(df);
    if (c->kb) /* two f32 sources */
        return pack_elem(df, fr_decode(sf, a), c->mode, c->flags) << dw |
               pack_elem(df, fr_decode(sf, b), c->mode, c->flags);
    if (df == FR_TF32)
        return tf32_elem(a, c->mode, c->flags);
    unsigned sw = fr_width(sf);
    uint64_t r = 0;
    for (int i = 0; i < 2; i++) {
        fr_val v = fr_decode(sf, (a >> (i * sw)) & ((1ull << sw) - 1));
        r |= pack_elem(df, v, c->mode, c->flags) << (i * dw);
    }
    return r;
}

static size_t build_pack(void)
{
    size_t first = ncases;
    char name[80], ptx[160];
    struct { const char *dt, *st, *rnd; int mode, flags; fr_fmt df, sf; } p[] = {
        {"f16x2", "f32", "rn", FR_RN, 0, FR_F16, FR_F32},
        {"f16x2", "f32", "rz", FR_RZ, 0, FR_F16, FR_F32},
        {"f16x2", "f32", "rn", FR_RN, F_RELU, FR_F16, FR_F32},
        {"f16x2", "f32", "rn", FR_RN, F_SATFINITE, FR_F16, FR_F32},
        {"f16x2", "f32", "rz", FR_RZ, F_SATFINITE | F_RELU, FR_F16, FR_F32},
        {"bf16x2", "f32", "rn", FR_RN, 0, FR_BF16, FR_F32},
        {"bf16x2", "f32", "rz", FR_RZ, 0, FR_BF16, FR_F32},
        {"bf16x2", "f32", "rn", FR_RN, F_RELU | F_SATFINITE, FR_BF16, FR_F32},
        {"e4m3x2", "f32", "rn", FR_RN, F_SATFINITE, FR_E4M3, FR_F32},
        {"e4m3x2", "f32", "rn", FR_RN, F_SATFINITE | F_RELU, FR_E4M3, FR_F32},
        {"e5m2x2", "f32", "rn", FR_RN, F_SATFINITE, FR_E5M2, FR_F32},
        {"e5m2x2", "f32", "rn", FR_RN, F_SATFINITE | F_RELU, FR_E5M2, FR_F32},
        {"e4m3x2", "f16x2", "rn", FR_RN, F_SATFINITE, FR_E4M3, FR_F16},
        {"e5m2x2", "f16x2", "rn", FR_RN, F_SATFINITE, FR_E5M2, FR_F16},
        {"f16x2", "e4m3x2", "rn", FR_RN, 0, FR_F16, FR_E4M3},
        {"f16x2", "e4m3x2", "rn", FR_RN, F_RELU, FR_F16, FR_E4M3},
        {"f16x2", "e5m2x2", "rn", FR_RN, 0, FR_F16, FR_E5M2},
    };
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) {
        bool two = !strcmp(p[i].st, "f32");
        char kinds[4] = {kind_of_type(p[i].dt), kind_of_type(p[i].st), two ? 'f' : 0, 0};
        snprintf(name, sizeof name, "cvt.%s%s.%s.%s", p[i].rnd, flag_text(p[i].flags), p[i].dt, p[i].st);
        snprintf(ptx, sizeof ptx, "%s %%d, %%a%s;", name, two ? ", %b" : "");
        fcase *c = add_case(name, kinds, ptx);
        c->ref = ref_pack, c->mode = p[i].mode, c->flags = p[i].flags, c->fmt = p[i].df, c->fmt2 = p[i].sf;
        if (!two && (p[i].sf == FR_E4M3 || p[i].sf == FR_E5M2))
            c->gen = G_EXH; /* every pair of codes */
    }
    /* tf32: f32 layout, 10 significand bits; .rna ties away from zero */
    struct { const char *rnd; int mode, flags; } t[] = {
        {"rna", FR_RNA, 0}, {"rna", FR_RNA, F_SATFINITE}, {"rn", FR_RN, 0}, {"rz", FR_RZ, 0},
        {"rn", FR_RN, F_RELU}, {"rn", FR_RN, F_SATFINITE}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        fcase *c = cvt_case("tf32", "f32", t[i].rnd, t[i].mode, t[i].flags);
        c->ref = ref_pack, c->fmt = FR_TF32, c->fmt2 = FR_F32;
        c->kb = 0;
    }
    return first;
}

/* ------------------------------------------------------------------------
 * NaN results flowing on: an f32 NaN result is the canonical NaN wherever
 * its bits can be seen, however it travels (moves, shuffles, sign
 * operations, selects, loops, branches) and whatever reads it (stores,
 * integer operations, widening, further arithmetic, comparisons).  ptxjit
 * leaves NaNs nobody can see uncanonicalised (lower/lower_nan.c); these
 * cases check that nobody can.  Edge inputs make NaNs of both signs from
 * inf - inf, 0 * inf and NaN operands with payloads.
 * ------------------------------------------------------------------------ */

enum { CH_MOV, CH_ARITH, CH_FMA3, CH_SETP, CH_NEG, CH_ABS_ARITH, CH_SHFL_ARITH, CH_SHFL_MOV, CH_CVT64, CH_INT,
       CH_MAX, CH_MIN_NEG, CH_MIN_ARITH, CH_SELP, CH_SELP_ARITH, CH_CVTI, CH_TESTP, CH_SAT, CH_LOOP_MOV,
       CH_LOOP_ARITH, CH_BRANCH, CH_ROTATE, CH_COUNT };

static uint64_t f32op(int op, uint64_t a, uint64_t b, uint64_t c) { return arith1(FR_F32, op, FR_RN, 0, a, b, c); }

static uint64_t f32minmax(bool is_min, int flags, uint64_t a, uint64_t b)
{
    uint64_t x[2] = {a, b};
    return minmax1(FR_F32, is_min, flags, 2, x);
}

static uint64_t ref_chain(const fcase *c, uint64_t a, uint64_t b, uint64_t cc)
{
    uint64_t mul = f32op(OP_MUL, a, b, 0), add = f32op(OP_ADD, a, b, 0), sub = f32op(OP_SUB, a, b, 0), t;
    bool pos = cmp1(FR_F32, C_GT, 0, cc, 0);
    switch (c->op) {
    case CH_MOV: return mul;
    case CH_ARITH: return f32op(OP_ADD, mul, cc, 0);
    case CH_FMA3:
        t = f32op(OP_FMA, a, b, cc);
        return f32op(OP_FMA, f32op(OP_FMA, t, a, b), cc, t);
    case CH_SETP: return cmp1(FR_F32, C_LTU, 0, sub, cc);
    case CH_NEG: return fr_is_nan(FR_F32, mul) ? mul : mul ^ 0x80000000u; /* NaN: canonical, see ref_bitop */
    case CH_ABS_ARITH: return f32op(OP_SUB, cc, mul & 0x7fffffffu, 0);
    case CH_SHFL_ARITH: return f32op(OP_MUL, add, cc, 0);
    case CH_SHFL_MOV: return add;
    case CH_CVT64: return f64b((double)f32v(add)) >> 32;
    case CH_INT: return sub ^ 0x80000001u;
    case CH_MAX: return f32minmax(false, 0, mul, cc);
    case CH_MIN_NEG: t = f32minmax(true, F_NAN, a, b); return fr_is_nan(FR_F32, t) ? t : t ^ 0x80000000u;
    case CH_MIN_ARITH: return f32op(OP_ADD, f32minmax(true, F_NAN, a, b), cc, 0);
    case CH_SELP: return pos ? sub : cc;
    case CH_SELP_ARITH: t = pos ? sub : cc; return f32op(OP_MUL, t, t, 0);
    case CH_CVTI: return (uint32_t)fr_to_int(fr_decode(FR_F32, mul), FR_RZ, 32, true);
    case CH_TESTP: return fr_is_nan(FR_F32, mul);
    case CH_SAT: return post(FR_F32, f32op(OP_ADD, mul, cc, 0), F_SAT);
    case CH_LOOP_MOV: case CH_LOOP_ARITH:
        t = cc;
        for (int i = 0; i < 3; i++)
            t = f32op(OP_FMA, a, b, t);
        return c->op == CH_LOOP_MOV ? t : f32op(OP_MUL, t, cc, 0);
    case CH_BRANCH: return (cc & 1) ? add : f32op(OP_MUL, add, cc, 0);
    default: return add; /* CH_ROTATE: add's result reaches %d in the second round */
    }
}

/* The ISA lets a mul and an add without rounding modifiers become one fma
 * (PTX ISA, add/mul: "mul/add sequences with no rounding modifiers may be
 * optimized to use fused-multiply-add instructions"); ptxas does so for
 * the arith and sat chains, ptxjit does not.  Their fused results. */
static uint64_t ref_chain_fused(const fcase *c, uint64_t a, uint64_t b, uint64_t cc)
{
    uint64_t fused = f32op(OP_FMA, a, b, cc);
    return c->op == CH_SAT ? post(FR_F32, fused, F_SAT) : fused;
}

static size_t build_chain(void)
{
    static const struct { const char *name, *kinds, *ptx; } ch[CH_COUNT] = {
        [CH_MOV] = {"mov", "ffff", "{ .reg .f32 %t; mul.f32 %t, %a, %b; mov.b32 %d, %t; }"},
        [CH_ARITH] = {"arith", "ffff", "{ .reg .f32 %t; mul.f32 %t, %a, %b; add.f32 %d, %t, %c; }"},
        [CH_FMA3] = {"fma3", "ffff", "{ .reg .f32 %t, %u; fma.rn.f32 %t, %a, %b, %c; fma.rn.f32 %u, %t, %a, %b; "
                                     "fma.rn.f32 %d, %u, %c, %t; }"},
        [CH_SETP] = {"setp", "pfff", "{ .reg .f32 %t; .reg .pred %q; sub.f32 %t, %a, %b; setp.ltu.f32 %q, %t, %c; "
                                     "selp.b32 %d, 1, 0, %q; }"},
        [CH_NEG] = {"neg", "ffff", "{ .reg .f32 %t; mul.f32 %t, %a, %b; neg.f32 %d, %t; }"},
        [CH_ABS_ARITH] = {"abs.arith", "ffff", "{ .reg .f32 %t, %u; mul.f32 %t, %a, %b; abs.f32 %u, %t; sub.f32 %d, %c, %u; }"},
        [CH_SHFL_ARITH] = {"shfl.arith", "ffff", "{ .reg .f32 %t; .reg .b32 %s, %m; add.f32 %t, %a, %b; mov.b32 %s, %t; "
                                                 "activemask.b32 %m; shfl.sync.bfly.b32 %s, %s, 0, 0x1f, %m; mov.b32 %t, %s; "
                                                 "mul.f32 %d, %t, %c; }"},
        [CH_SHFL_MOV] = {"shfl.mov", "ffff", "{ .reg .f32 %t; .reg .b32 %s, %m; add.f32 %t, %a, %b; mov.b32 %s, %t; "
                                             "activemask.b32 %m; shfl.sync.bfly.b32 %s, %s, 0, 0x1f, %m; mov.b32 %d, %s; }"},
        [CH_CVT64] = {"cvt.f64", "uffu", "{ .reg .f32 %t; .reg .f64 %x; .reg .b32 %lo; add.f32 %t, %a, %b; "
                                         "cvt.f64.f32 %x, %t; mov.b64 {%lo, %d}, %x; }"},
        [CH_INT] = {"xor.b32", "uffu", "{ .reg .f32 %t; .reg .b32 %s; sub.f32 %t, %a, %b; mov.b32 %s, %t; "
                                       "xor.b32 %d, %s, 0x80000001; }"},
        [CH_MAX] = {"max", "ffff", "{ .reg .f32 %t; mul.f32 %t, %a, %b; max.f32 %d, %t, %c; }"},
        [CH_MIN_NEG] = {"min.NaN.neg", "ffff", "{ .reg .f32 %t; min.NaN.f32 %t, %a, %b; neg.f32 %d, %t; }"},
        [CH_MIN_ARITH] = {"min.NaN.arith", "ffff", "{ .reg .f32 %t; min.NaN.f32 %t, %a, %b; add.f32 %d, %t, %c; }"},
        [CH_SELP] = {"selp", "ffff", "{ .reg .f32 %t; .reg .pred %q; sub.f32 %t, %a, %b; setp.gt.f32 %q, %c, 0f00000000; "
                                     "selp.f32 %d, %t, %c, %q; }"},
        [CH_SELP_ARITH] = {"selp.arith", "ffff", "{ .reg .f32 %t, %u; .reg .pred %q; sub.f32 %t, %a, %b; "
                                                 "setp.gt.f32 %q, %c, 0f00000000; selp.f32 %u, %t, %c, %q; mul.f32 %d, %u, %u; }"},
        [CH_CVTI] = {"cvt.rzi.s32", "iffi", "{ .reg .f32 %t; mul.f32 %t, %a, %b; cvt.rzi.s32.f32 %d, %t; }"},
        [CH_TESTP] = {"testp", "pffp", "{ .reg .f32 %t; .reg .pred %q; mul.f32 %t, %a, %b; testp.notanumber.f32 %q, %t; "
                                       "selp.b32 %d, 1, 0, %q; }"},
        [CH_SAT] = {"sat", "ffff", "{ .reg .f32 %t; mul.f32 %t, %a, %b; add.sat.f32 %d, %t, %c; }"},
        [CH_LOOP_MOV] = {"loop.mov", "ffff", "{ .reg .f32 %t; .reg .b32 %i; .reg .pred %q; mov.f32 %t, %c; mov.u32 %i, 0;\n"
                                             "$Lacc: fma.rn.f32 %t, %a, %b, %t; add.u32 %i, %i, 1; setp.lt.u32 %q, %i, 3; "
                                             "@%q bra $Lacc; mov.b32 %d, %t; }"},
        [CH_LOOP_ARITH] = {"loop.arith", "ffff", "{ .reg .f32 %t; .reg .b32 %i; .reg .pred %q; mov.f32 %t, %c; mov.u32 %i, 0;\n"
                                                 "$Lacc: fma.rn.f32 %t, %a, %b, %t; add.u32 %i, %i, 1; setp.lt.u32 %q, %i, 3; "
                                                 "@%q bra $Lacc; mul.f32 %d, %t, %c; }"},
        [CH_BRANCH] = {"branch", "ffff", "{ .reg .f32 %t; .reg .b32 %s; .reg .pred %q; add.f32 %t, %a, %b; mov.b32 %s, %c; "
                                         "and.b32 %s, %s, 1; setp.ne.u32 %q, %s, 0; @%q bra $Lodd; mul.f32 %d, %t, %c; "
                                         "bra.uni $Ljoin;\n$Lodd: mov.b32 %d, %t;\n$Ljoin: }"},
        /* the moves are in the opposite order to the flow: seen only after two passes */
        [CH_ROTATE] = {"rotate", "ffff", "{ .reg .f32 %t, %u, %w; .reg .b32 %i; .reg .pred %q; mov.f32 %u, %c; mov.u32 %i, 0;\n"
                                         "$Lrot: mov.f32 %w, %u; add.f32 %t, %a, %b; mov.f32 %u, %t; add.u32 %i, %i, 1; "
                                         "setp.lt.u32 %q, %i, 2; @%q bra $Lrot; mov.b32 %d, %w; }"},
    };
    size_t first = ncases;
    for (int i = 0; i < CH_COUNT; i++) {
        char name[80];
        snprintf(name, sizeof name, "nan.%s.f32", ch[i].name);
        fcase *c = add_case(name, ch[i].kinds, ch[i].ptx);
        c->ref = ref_chain, c->op = i, c->fmt = FR_F32, c->gen = G_FMA;
        if (i == CH_ARITH || i == CH_SAT)
            c->alt = ref_chain_fused;
    }
    return first;
}

/* ------------------------------------------------------------------------
 * .ftz tininess: inputs whose results are tiny after rounding with an
 * unbounded exponent but round up to the smallest normal on the subnormal
 * grid (ftz_flushes), for the forms whose recorded inputs have none.  Cases
 * of their own (not recorded yet), so the recorded ones keep their inputs.
 * ------------------------------------------------------------------------ */

static size_t build_ftz_tininess(void)
{
    /* -(1 - 2^-24) * 2^-126 (1 + 2^-23) + 2^-125 = 2^-126 - 2^-150 + 2^-173;
     * 2^-126 * -2^-126 + 2^-126 (.rz: only the f64 sum rounded to odd sees
     * it below 2^-126); 1 / (2^126 (1 + 2^-23)) (.rp) */
    static const uint64_t fma_rn[][3] = {{0xbf7fffff, 0x00800001, 0x01000000}, {0x3f7fffff, 0x80800001, 0x81000000}};
    static const uint64_t fma_rz[][3] = {{0x00800000, 0x80800000, 0x00800000}, {0x80800000, 0x80800000, 0x80800000}};
    static const uint64_t rcp_rp[][3] = {{0x7e800001, 0, 0}, {0x7e800003, 0, 0}};
    size_t first = ncases;
    struct { const char *name, *ptx; int op, mode; const uint64_t (*extra)[3]; } t[] = {
        {"fma.rn.ftz.f32.tininess", "fma.rn.ftz.f32 %d, %a, %b, %c;", OP_FMA, FR_RN, fma_rn},
        {"fma.rz.ftz.f32.tininess", "fma.rz.ftz.f32 %d, %a, %b, %c;", OP_FMA, FR_RZ, fma_rz},
        {"rcp.rp.ftz.f32.tininess", "rcp.rp.ftz.f32 %d, %a;", OP_RCP, FR_RP, rcp_rp},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        fcase *c = add_case(t[i].name, t[i].op == OP_RCP ? "ff" : "ffff", t[i].ptx);
        c->ref = ref_arith, c->op = t[i].op, c->mode = t[i].mode, c->flags = F_FTZ, c->fmt = FR_F32;
        c->extra = t[i].extra, c->nextra = 2;
    }
    return first;
}

/* ------------------------------------------------------------------------
 * Self-check of the reference against the host FPU in each rounding mode.
 * ------------------------------------------------------------------------ */

static const int host_modes[] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};

/* Keeps the compiler from moving a host operation across fesetround. */
#define PIN(x) __asm__ volatile("" : "+x"(x))
static double pin_d(double x)
{
    PIN(x);
    return x;
}
static float pin_f(float x)
{
    PIN(x);
    return x;
}

static void test_reference_vs_host_fpu(void **state)
{
    (void)state;
    unsigned bad = 0;
    for (int i = 0; i < 200000; i++) {
        int mode = i % 4, op = (i / 4) % 7;
        bool dbl = (i / 28) % 2;
        fr_fmt f = dbl ? FR_F64 : FR_F32;
        uint64_t a = rand_float(f), b = rand_float(f), c = rand_float(f);
        if (op == OP_FMA && rnd() % 2)
            c = dbl ? f64b(-(f64v(a) * f64v(b))) + rnd() % 3 : f32b(-(f32v(a) * f32v(b))) + rnd() % 3;
        uint64_t want = arith1(f, op, (fr_mode)mode, 0, a, b, c), got;
        volatile double da = f64v(a), db = f64v(b), dc = f64v(c);
        volatile float fa = f32v(a), fb = f32v(b), fc = f32v(c);
        fesetround(host_modes[mode]);
        switch (op) {
        case OP_ADD: got = dbl ? f64b(pin_d(da + db)) : f32b(pin_f(fa + fb)); break;
        case OP_SUB: got = dbl ? f64b(pin_d(da - db)) : f32b(pin_f(fa - fb)); break;
        case OP_MUL: got = dbl ? f64b(pin_d(da * db)) : f32b(pin_f(fa * fb)); break;
        case OP_DIV: got = dbl ? f64b(pin_d(da / db)) : f32b(pin_f(fa / fb)); break;
        case OP_FMA: got = dbl ? f64b(pin_d(fma(da, db, dc))) : f32b(pin_f(fmaf(fa, fb, fc))); break;
        case OP_SQRT: got = dbl ? f64b(pin_d(sqrt(da))) : f32b(pin_f(sqrtf(fa))); break;
        default: got = dbl ? f64b(pin_d(1.0 / da)) : f32b(pin_f(1.0f / fa)); break;
        }
        fesetround(FE_TONEAREST);
        if (got != want && !(fr_is_nan(f, got) && fr_is_nan(f, want)) && bad++ < 5)
            print_error("reference %s %s mode %d: %#llx %#llx %#llx: fpu %#llx, fref %#llx\n",
                        dbl ? "f64" : "f32", op_text[op], mode, (unsigned long long)a, (unsigned long long)b,
                        (unsigned long long)c, (unsigned long long)got, (unsigned long long)want);
    }
    /* conversions: f64 -> f32 and s64 -> f64 */
    for (int i = 0; i < 100000; i++) {
        int mode = i % 4;
        uint64_t d = rand_float(FR_F64), l = rnd() >> (rnd() % 64);
        volatile double vd = f64v(d);
        volatile int64_t vl = (int64_t)l;
        fesetround(host_modes[mode]);
        uint64_t g1 = f32b(pin_f((float)vd)), g2 = f64b(pin_d((double)vl)), g3 = f32b(pin_f((float)vl));
        fesetround(FE_TONEAREST);
        uint64_t w1 = fr_round(FR_F32, fr_decode(FR_F64, d), (fr_mode)mode);
        uint64_t w2 = fr_round(FR_F64, fr_from_int((int64_t)l, true), (fr_mode)mode);
        uint64_t w3 = fr_round(FR_F32, fr_from_int((int64_t)l, true), (fr_mode)mode);
        if ((g1 != w1 && !(fr_is_nan(FR_F32, g1) && fr_is_nan(FR_F32, w1))) || g2 != w2 || g3 != w3) {
            if (bad++ < 5)
                print_error("reference cvt mode %d: %#llx %#llx\n", mode, (unsigned long long)d,
                            (unsigned long long)l);
        }
    }
    assert_int_equal(bad, 0);
}

/* ------------------------------------------------------------------------
 * The nvcc fixtures (tests/cuda/float_conform.cu) against the same
 * references: the forms exactly as nvcc 13 emits them.
 * ------------------------------------------------------------------------ */

enum { FX_N = 6000 };

static uint64_t fx_value(char k, size_t i)
{
    size_t ne;
    const uint64_t *e = edges(k, &ne);
    if (i < ne * 3)
        return (k == 'H' || k == 'B') ? pair_edge(e, ne, i) : e[(i * 7 + i / ne) % ne];
    return rand_value(k);
}

static void fx_launch(ptxjit_ctx *ctx, ptxjit_module *m, const char *name, void *params)
{
    char err[256];
    const ptxjit_kernel *k = ptxjit_kernel_get(m, name);
    assert_non_null(k);
    ptxjit_launch_cfg cfg = {{(FX_N + 127) / 128, 1, 1}, {128, 1, 1}, 0, params, NULL};
    if (ptxjit_launch(ctx, k, &cfg, err, sizeof err) != PTXJIT_OK)
        fail_msg("%s: %s", name, err);
}

static unsigned fx_failures;

static void fx_expect(const char *what, size_t i, int k, uint64_t got, uint64_t want, fr_fmt f)
{
    if (got == want || (f == FR_F64 && fr_is_nan(f, got) && fr_is_nan(f, want)))
        return;
    if (fx_failures++ < 8)
        print_error("%s element %zu output %d: got %#llx, want %#llx\n", what, i, k, (unsigned long long)got,
                    (unsigned long long)want);
}

static uint64_t half_pair(fr_fmt f, int op, int flags, uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t r = 0;
    for (int h = 0; h < 2; h++) {
        uint64_t x = (a >> 16 * h) & 0xffff, y = (b >> 16 * h) & 0xffff, z = (c >> 16 * h) & 0xffff, v;
        if (op < 0) {
            uint64_t xy[2] = {x, y};
            v = minmax1(f, op == -1, F_NAN, 2, xy);
        } else {
            v = arith1(f, op, FR_RN, flags, x, y, z);
        }
        r |= v << 16 * h;
    }
    return r;
}

static void fx_f64_int64(ptxjit_ctx *ctx, ptxjit_module *m, const char *file)
{
    static uint64_t a[FX_N], b[FX_N], c[FX_N], out[4 * FX_N], d[4 * FX_N];
    static uint32_t f[4 * FX_N];
    for (size_t i = 0; i < FX_N; i++) {
        a[i] = fx_value('d', i), b[i] = fx_value('d', i / 3 + 1), c[i] = fx_value('d', i + 5);
        if (i % 3 == 0)
            c[i] = f64b(-(f64v(a[i]) * f64v(b[i]))) + rnd() % 3;
    }
    struct { void *a, *b, *c, *o; int n; } p1 = {a, b, c, out, FX_N};
    fx_launch(ctx, m, "fma_f64_dir", &p1);
    static const fr_mode fm[4] = {FR_RN, FR_RZ, FR_RM, FR_RP};
    for (size_t i = 0; i < FX_N; i++)
        for (int k = 0; k < 4; k++)
            fx_expect(file, i, k, out[4 * i + k], arith1(FR_F64, OP_FMA, fm[k], 0, a[i], b[i], c[i]), FR_F64);
    for (size_t i = 0; i < FX_N; i++)
        a[i] = fx_value('l', i);
    struct { void *a, *f, *d; int n; } p2 = {a, f, d, FX_N};
    fx_launch(ctx, m, "int64_float_dir", &p2);
    static const fr_mode fmode[4] = {FR_RZ, FR_RM, FR_RP, FR_RM}, dmode[4] = {FR_RZ, FR_RM, FR_RP, FR_RP};
    for (size_t i = 0; i < FX_N; i++)
        for (int k = 0; k < 4; k++) {
            fr_val v = fr_from_int((int64_t)a[i], k < 3); /* k = 3: unsigned */
            fx_expect(file, i, k, f[4 * i + k], fr_round(FR_F32, v, fmode[k]), FR_F32);
            fx_expect(file, i, 4 + k, d[4 * i + k], fr_round(FR_F64, v, dmode[k]), FR_F64);
        }
}

static void fx_halves(ptxjit_ctx *ctx, ptxjit_module *m, const char *file)
{
    static uint32_t a[FX_N], b[FX_N], c[FX_N], out[6 * FX_N];
    for (int bf = 0; bf < 2; bf++) {
        char k = bf ? 'B' : 'H';
        fr_fmt f = bf ? FR_BF16 : FR_F16;
        for (size_t i = 0; i < FX_N; i++)
            a[i] = (uint32_t)fx_value(k, i), b[i] = (uint32_t)fx_value(k, i / 5 + 2), c[i] = (uint32_t)fx_value(k, i + 3);
        struct { void *a, *b, *c, *o; int n; } p = {a, b, c, out, FX_N};
        fx_launch(ctx, m, bf ? "bf162_arith" : "half2_arith", &p);
        const int ops[6] = {OP_ADD, OP_SUB, OP_MUL, OP_FMA, OP_FMA, bf ? -1 : -2}; /* -1 min, -2 max */
        for (size_t i = 0; i < FX_N; i++)
            for (int j = 0; j < 6; j++)
                fx_expect(file, i, 10 * bf + j, out[6 * i + j],
                          half_pair(f, ops[j], j == 4 ? F_RELU : 0, a[i], b[i], c[i]), f);
    }
}

static void fx_pack_asm(ptxjit_ctx *ctx, ptxjit_module *m, const char *file)
{
    static uint32_t a[FX_N], b[FX_N], h2[2 * FX_N], back[2 * FX_N], out[6 * FX_N];
    static uint16_t fp8[2 * FX_N];
    for (size_t i = 0; i < FX_N; i++)
        a[i] = (uint32_t)fx_value('f', i), b[i] = (uint32_t)fx_value('f', i / 3 + 7);
    struct { void *a, *b, *h2, *fp8, *back; int n; } p = {a, b, h2, fp8, back, FX_N};
    fx_launch(ctx, m, "pack_cvt", &p);
    for (size_t i = 0; i < FX_N; i++) {
        fr_val x = fr_decode(FR_F32, a[i]), y = fr_decode(FR_F32, b[i]);
        fx_expect(file, i, 0, h2[2 * i], fr_round(FR_F16, x, FR_RN) | fr_round(FR_F16, y, FR_RN) << 16, FR_F16);
        fx_expect(file, i, 1, h2[2 * i + 1], fr_round(FR_BF16, x, FR_RN) | fr_round(FR_BF16, y, FR_RN) << 16, FR_BF16);
        for (int e = 0; e < 2; e++) {
            fr_fmt ef = e ? FR_E5M2 : FR_E4M3;
            uint64_t lo = pack_elem(ef, x, FR_RN, F_SATFINITE), hi = pack_elem(ef, y, FR_RN, F_SATFINITE);
            fx_expect(file, i, 2 + e, fp8[2 * i + e], lo | hi << 8, ef);
            uint64_t h = pack_elem(FR_F16, fr_decode(ef, fp8[2 * i + e] & 0xff), FR_RN, 0) |
                         pack_elem(FR_F16, fr_decode(ef, fp8[2 * i + e] >> 8), FR_RN, 0) << 16;
            fx_expect(file, i, 4 + e, back[2 * i + e], h, FR_F16);
        }
    }
    struct { void *a, *b, *o; int n; } q = {a, b, out, FX_N};
    fx_launch(ctx, m, "asm_forms", &q);
    for (size_t i = 0; i < FX_N; i++) {
        uint64_t xy[2] = {a[i], b[i]};
        uint64_t want[6] = {minmax1(FR_F32, true, F_XORSIGN, 2, xy), minmax1(FR_F32, false, F_NAN, 2, xy),
                            tf32_elem(a[i], FR_RNA, 0),
                            arith1(FR_F32, OP_ADD, FR_RM, F_FTZ | F_SAT, a[i], b[i], 0),
                            arith1(FR_F32, OP_SQRT, FR_RP, F_FTZ, a[i] & 0x7fffffffu, 0, 0),
                            arith1(FR_F32, OP_RCP, FR_RZ, F_FTZ, b[i], 0, 0)};
        for (int k = 0; k < 6; k++)
            fx_expect(file, i, 20 + k, out[6 * i + k], want[k], FR_F32);
    }
}

static void test_nvcc_fixtures(void **state)
{
    (void)state;
    static const char *files[] = {"float_conform.sm_90.ptx", "float_conform.sm_80.ptx"};
    char err[256];
    ptxjit_ctx *ctx = ptxjit_create(2, err, sizeof err);
    assert_non_null(ctx);
    for (int fi = 0; fi < 2; fi++) {
        char path[1024], *log = NULL;
        snprintf(path, sizeof path, "%s/ptx/corpus/%s", PTXJIT_TEST_DIR, files[fi]);
        size_t len;
        char *src = tu_read_file(path, &len);
        assert_non_null(src);
        ptxjit_module *m = ptxjit_load(ctx, src, len, files[fi], &log, NULL);
        if (!m)
            fail_msg("%s", log ? log : "load failed");
        fx_f64_int64(ctx, m, files[fi]);
        if (fi == 0) { /* the sm_80 build has empty bodies for these */
            fx_halves(ctx, m, files[fi]);
            fx_pack_asm(ctx, m, files[fi]);
        }
        ptxjit_module_unload(m);
        free(src);
        free(log);
    }
    ptxjit_destroy(ctx);
    assert_int_equal(fx_failures, 0);
}

/* Forms ptxjit does not lower exactly are load errors naming the line
 * and the instruction, never a silently different computation. */
static void test_unsupported_forms(void **state)
{
    (void)state;
    static const char *forms[] = {
        "max.relu.f32 %r2, %r1, %r1;", "fma.rn.relu.f32 %r2, %r1, %r1, %r1;", "cvt.rn.s32.f32 %r2, %r1;",
        "cvt.rni.f32.s32 %r2, %r1;", "cvt.rna.f32.f64 %r2, %d1;", "cvt.rm.tf32.f32 %r2, %r1;",
        "cvt.relu.f32.f64 %r2, %d1;", "add.rz.f16 %h1, %h1, %h2;", "min.relu.f16 %h1, %h1, %h2;",
        "ex2.approx.f64 %d1, %d1;", "cvt.rn.e4m3x2.f32 %h1, %r1, %r1;", "cvt.rn.bf16.f16 %h1, %h2;",
        "fma.rn.sat.bf16 %h1, %h1, %h2, %h2;", "sin.approx.f64 %d1, %d1;",
    };
    char err[256];
    ptxjit_ctx *ctx = ptxjit_create(1, err, sizeof err);
    assert_non_null(ctx);
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        char src[512], *log = NULL, want[64], op[32];
        snprintf(src, sizeof src,
                 ".version 8.6\n.target sm_90\n.address_size 64\n"
                 ".visible .entry k(.param .u64 p)\n{\n  .reg .b32 %%r<4>; .reg .b16 %%h<4>; .reg .f64 %%d<2>;\n"
                 "  %s\n  ret;\n}\n", forms[i]);
        ptxjit_module *m = ptxjit_load(ctx, src, strlen(src), "form.ptx", &log, NULL);
        snprintf(want, sizeof want, "form.ptx:7:");
        sscanf(forms[i], "%31[a-z0-9]", op);
        if (m || !log || !strstr(log, want) || !strstr(log, op))
            fail_msg("'%s': %s", forms[i], m ? "loaded" : log ? log : "no log");
        free(log);
    }
    ptxjit_destroy(ctx);
}

/* ------------------------------------------------------------------------
 * Tests
 * ------------------------------------------------------------------------ */

static size_t arith_f32_from, arith_f64_from, cvt_int_from, cvt_float_from, pack_from, misc_from, half_from, approx_from,
    chain_from, tininess_from, cases_end;

static void test_arith_f32(void **state) { (void)state; run_cases(arith_f32_from, arith_f64_from); }
static void test_arith_f64(void **state) { (void)state; run_cases(arith_f64_from, cvt_int_from); }
static void test_cvt_int(void **state) { (void)state; run_cases(cvt_int_from, cvt_float_from); }
static void test_cvt_float(void **state) { (void)state; run_cases(cvt_float_from, pack_from); }
static void test_cvt_pack(void **state) { (void)state; run_cases(pack_from, misc_from); }
static void test_misc(void **state) { (void)state; run_cases(misc_from, half_from); }
static void test_half(void **state) { (void)state; run_cases(half_from, approx_from); }
static void test_approx(void **state) { (void)state; run_cases(approx_from, chain_from); }
static void test_nan_chains(void **state) { (void)state; run_cases(chain_from, tininess_from); }
static void test_ftz_tininess(void **state) { (void)state; run_cases(tininess_from, cases_end); }

/* ------------------------------------------------------------------------
 * GPU cross-check: --emit writes each case as a kernel, its inputs and a
 * manifest line for tests/gpu/conform_gpu.c (kernel parameters a, b, c,
 * e (unused), d, n); --check-gpu compares the recorded outputs with the
 * references: exact cases bit for bit, approximate ones within the bound,
 * and counts how many of ptxjit's approximate results are the GPU's bits.
 * ------------------------------------------------------------------------ */

static void gpu_kernel_name(const fcase *c, char *out, size_t len)
{
    size_t n = (size_t)snprintf(out, len, "fc_");
    for (const char *q = c->name; *q && n + 1 < len; q++)
        out[n++] = (char)(((*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9')) ? *q : '_');
    out[n] = 0;
}

/* The inputs a GPU runs: all of an approximate case's (the GPU's own
 * results are what a bit-exact emulation needs), the first GPU_EXACT_INPUTS
 * (the edge values, then random ones) of a correctly rounded case. */
enum { GPU_EXACT_INPUTS = 2048 };
static size_t gpu_inputs(const fcase *c, uint64_t **a, uint64_t **b, uint64_t **cc)
{
    size_t n = make_inputs(c, a, b, cc);
    return c->approx || n < GPU_EXACT_INPUTS ? n : GPU_EXACT_INPUTS;
}

/* Cases only sm_100 runs: no GPU of ours to record them on. */
static bool needs_sm100(const fcase *c)
{
    size_t n = strlen(c->name);
    bool three = n > 2 && !strcmp(c->name + n - 2, ".3");
    return three || (strstr(c->name, "satfinite") && strstr(c->name, "tf32") && !strstr(c->name, "rna"));
}

/* Case i's kernel as the GPU runs it (sm_90, conform_gpu's parameters a,
 * b, c, e, d, n, entry named after the case); false if it does not fit. */
static bool gpu_kernel_text(const fcase *c, size_t i, char *src, size_t cap)
{
    char name[96], entry[128];
    gpu_kernel_name(c, name, sizeof name);
    size_t len = (size_t)snprintf(src, cap, ".version 8.6\n.target sm_90\n.address_size 64\n");
    len += emit_kernel(src + len, cap - len, c, i);
    char *pd = strstr(src, ".param .u64 pd");
    char *k = strstr(src, ".entry k");
    if (!pd || !k || len + 32 >= cap)
        return false;
    memmove(pd + 16, pd, strlen(pd) + 1);
    memcpy(pd, ".param .u64 pe, ", 16);
    char *paren = strchr(k, '(');
    snprintf(entry, sizeof entry, ".entry %s", name);
    memmove(k + strlen(entry), paren, strlen(paren) + 1);
    memcpy(k, entry, strlen(entry));
    return true;
}

/* The key of a recording: the kernel text, then each input array. */
static uint64_t gpu_case_hash(const fcase *c, const char *src, size_t n, const uint64_t *const arrs[3])
{
    unsigned w[3] = {kind_size(c->ka), kind_size(c->kb), kind_size(c->kc)};
    uint64_t h = conform_fnv(0xcbf29ce484222325ull, src, strlen(src));
    for (int o = 0; o < 3; o++)
        for (size_t j = 0; j < n && w[o]; j++)
            h = conform_fnv(h, &arrs[o][j], w[o]); /* little-endian */
    return h;
}

static int emit_gpu(const char *dir)
{
    char path[1024];
    snprintf(path, sizeof path, "mkdir -p '%s/float'", dir);
    if (system(path) != 0)
        return 1;
    snprintf(path, sizeof path, "%s/float/manifest", dir);
    FILE *man = fopen(path, "w");
    if (!man)
        return 1;
    fprintf(man, "# ptxjit conformance manifest v1 (suite float): kernel ptx inputs n dw w_a w_b w_c w_e hash\n");
    size_t cap = 8192;
    char *src = malloc(cap), name[96];
    int bad = 0;
    for (size_t i = 0; i < ncases && !bad; i++) {
        fcase *c = &cases[i];
        if (needs_sm100(c))
            continue;
        gpu_kernel_name(c, name, sizeof name);
        if (!gpu_kernel_text(c, i, src, cap))
            return 1;
        uint64_t *a, *b, *cc;
        size_t n = gpu_inputs(c, &a, &b, &cc);
        unsigned w[3] = {kind_size(c->ka), kind_size(c->kb), kind_size(c->kc)};
        const uint64_t *const arrs[3] = {a, b, cc};
        uint64_t h = gpu_case_hash(c, src, n, arrs);
        snprintf(path, sizeof path, "%s/float/%s.ptx", dir, name);
        FILE *f = fopen(path, "w");
        bad |= !f || fputs(src, f) < 0;
        if (f)
            bad |= fclose(f) != 0;
        snprintf(path, sizeof path, "%s/float/%s.in", dir, name);
        f = fopen(path, "wb");
        bad |= !f;
        for (int o = 0; o < 3 && f; o++)
            for (size_t j = 0; j < n && w[o]; j++)
                bad |= fwrite(&arrs[o][j], w[o], 1, f) != 1; /* little-endian */
        if (f)
            bad |= fclose(f) != 0;
        fprintf(man, "%s %s.ptx %s.in %zu %u %u %u %u 0 %016llx\n", name, name, name, n, kind_size(c->kd), w[0],
                w[1], w[2], (unsigned long long)h);
        free(a), free(b), free(cc);
    }
    free(src);
    bad |= fclose(man) != 0;
    printf("conform float: %zu kernels written to %s/float\n", ncases, dir);
    return bad;
}

/* The outputs recorded for kernel `name` (n of dw bytes), or NULL when
 * there are none for these inputs. */
static void *read_gpu_output(const char *dir, const char *name, size_t n, unsigned dw, uint64_t want_hash)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/float/%s.out", dir, name);
    uint64_t hash;
    uint32_t rn, rdw;
    size_t len;
    char *data = conform_read_result(path, &hash, &rn, &rdw, &len);
    if (!data || hash != want_hash || rn != n || rdw != dw || len != 24 + n * dw) {
        free(data);
        return NULL;
    }
    memmove(data, data + 24, n * dw);
    return data;
}

/* Compares the recordings under dir with the references; returns how many
 * cases differ, or -1 when dir holds no float recordings.  A recording
 * whose key is not the case's kernel and inputs counts as missing. */
static int check_gpu(const char *dir)
{
    char probe[1024];
    snprintf(probe, sizeof probe, "%s/float", dir);
    FILE *d = fopen(probe, "r");
    if (!d)
        return -1;
    fclose(d);
    unsigned compared = 0, missing = 0, wrong = 0;
    char *src = malloc(8192);
    /* CONFORM_GPU_ALL=1 prints every difference, not the first four */
    const char *all = getenv("CONFORM_GPU_ALL");
    unsigned shown = all && *all == '1' ? ~0u : 4;
    for (size_t i = 0; i < ncases; i++) {
        fcase *c = &cases[i];
        if (!selected(c) || needs_sm100(c))
            continue;
        char name[96];
        gpu_kernel_name(c, name, sizeof name);
        uint64_t *a, *b, *cc;
        size_t n = gpu_inputs(c, &a, &b, &cc);
        unsigned sd = kind_size(c->kd);
        const uint64_t *const arrs[3] = {a, b, cc};
        void *got = gpu_kernel_text(c, i, src, 8192) ? read_gpu_output(dir, name, n, sd, gpu_case_hash(c, src, n, arrs)) : NULL;
        if (!got) {
            missing++;
            free(a), free(b), free(cc);
            continue;
        }
        unsigned bad = 0;
        double worst = 0;
        for (size_t j = 0; j < n; j++) {
            uint64_t g = fetch(got, j, sd), want = 0;
            bool ok;
            if (c->approx) {
                double e = 0;
                ok = c->approx(c, a[j], b[j], g, &e);
                worst = e > worst ? e : worst;
            } else {
                want = c->ref(c, a[j], b[j], cc[j]);
                ok = exact_ok(c, g, want) || (c->alt && exact_ok(c, g, c->alt(c, a[j], b[j], cc[j])));
            }
            if (!ok && bad++ < shown)
                printf("  %s: a=%#llx b=%#llx c=%#llx: GPU %#llx, reference %#llx\n", c->name,
                       (unsigned long long)a[j], (unsigned long long)b[j], (unsigned long long)cc[j],
                       (unsigned long long)g, (unsigned long long)want);
        }
        if (c->approx)
            printf("  %-34s GPU max error %.3g %s (ISA bound %.3g)\n", c->name, worst, c->unit, c->bound);
        if (bad)
            printf("  %s: %u of %zu GPU results differ from the reference\n", c->name, bad, n);
        wrong += bad != 0;
        compared++;
        free(got), free(a), free(b), free(cc);
    }
    free(src);
    printf("conform float GPU results: %u cases compared, %u differ, %u missing or stale\n", compared, wrong, missing);
    return (int)wrong;
}

/* The recorded GPU outputs (tests/gpu/results/float, or $PTXJIT_GPU_RESULTS),
 * when present, against the references: every compared form matches. */
static void test_gpu_results(void **state)
{
    (void)state;
    const char *env = getenv("PTXJIT_GPU_RESULTS");
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", env && *env ? env : PTXJIT_TEST_DIR "/gpu/results");
    int r = check_gpu(dir);
    if (r < 0) {
        print_message("no GPU results in %s/float (record them with scripts/gpu-crosscheck.sh on a machine "
                      "with an NVIDIA GPU); skipping\n", dir);
        skip();
    }
    assert_int_equal(r, 0);
}

int main(int argc, char **argv)
{
    arith_f32_from = build_arith("f32");
    arith_f64_from = build_arith("f64");
    cvt_int_from = build_cvt_int();
    cvt_float_from = build_cvt_float();
    pack_from = build_pack();
    misc_from = build_misc();
    half_from = build_half();
    approx_from = build_approx();
    chain_from = build_chain();
    tininess_from = build_ftz_tininess();
    cases_end = ncases;
    if (argc == 3 && !strcmp(argv[1], "--emit"))
        return emit_gpu(argv[2]);
    if (argc == 3 && !strcmp(argv[1], "--check-gpu"))
        return check_gpu(argv[2]) != 0;
    print_message("%zu instruction forms\n", ncases);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_vs_host_fpu),
        cmocka_unit_test(test_arith_f32),
        cmocka_unit_test(test_arith_f64),
        cmocka_unit_test(test_cvt_int),
        cmocka_unit_test(test_cvt_float),
        cmocka_unit_test(test_cvt_pack),
        cmocka_unit_test(test_misc),
        cmocka_unit_test(test_half),
        cmocka_unit_test(test_approx),
        cmocka_unit_test(test_nan_chains),
        cmocka_unit_test(test_ftz_tininess),
        cmocka_unit_test(test_nvcc_fixtures),
        cmocka_unit_test(test_unsupported_forms),
        cmocka_unit_test(test_gpu_results),
    };
    int r = cmocka_run_group_tests_name("conform_float", tests, NULL, NULL);
    free(cases);
    return r;
}
