/* conform_int_nvcc.c - the "nvcc" family of test_conform_int: the kernels
 * of tests/cuda/int_conform.cu as nvcc compiles them (integer intrinsics of
 * the CUDA Math API, and inline PTX), against C references written from
 * the CUDA Math API's descriptions of the intrinsics and from the PTX ISA
 * for the inline PTX.  Inputs arrive zero-extended to 64 bits. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conform.h"
#include "conform_int_nvcc.h"

#define FILE_SM80 "ptx/corpus/int_conform.sm_80.ptx"

static int32_t s32(uint64_t v) { return (int32_t)(uint32_t)v; }
static uint32_t u32(uint64_t v) { return (uint32_t)v; }
static uint64_t ret32(int64_t v) { return (uint32_t)v; }

/* ---- multiplication ---- */

static uint64_t r_umulhi(const conform_op *op, unsigned k, const uint64_t *x)
{
    return ((uint64_t)u32(x[0]) * u32(x[1])) >> 32;
}
static uint64_t r_mulhi(const conform_op *op, unsigned k, const uint64_t *x)
{
    return ret32(((int64_t)s32(x[0]) * s32(x[1])) >> 32);
}
static uint64_t r_umul64hi(const conform_op *op, unsigned k, const uint64_t *x)
{
    return (uint64_t)(((unsigned __int128)x[0] * x[1]) >> 64);
}
static uint64_t r_mul64hi(const conform_op *op, unsigned k, const uint64_t *x)
{
    return (uint64_t)(((__int128)(int64_t)x[0] * (int64_t)x[1]) >> 64);
}
/* __umul24/__mul24: the low 32 bits of the product of the low 24 bits */
static int64_t low24(uint64_t v, bool s) { return s ? (int64_t)((int32_t)(u32(v) << 8) >> 8) : (int64_t)(v & 0xffffff); }
static uint64_t r_umul24(const conform_op *op, unsigned k, const uint64_t *x) { return ret32(low24(x[0], 0) * low24(x[1], 0)); }
static uint64_t r_mul24(const conform_op *op, unsigned k, const uint64_t *x) { return ret32(low24(x[0], 1) * low24(x[1], 1)); }

/* ---- bits ---- */

static unsigned width_of(const conform_op *op) { return op->w[0] * 8u; }
static uint64_t r_brev(const conform_op *op, unsigned k, const uint64_t *x)
{
    uint64_t d = 0;
    for (unsigned i = 0, n = width_of(op); i < n; i++)
        d |= ((x[0] >> i) & 1) << (n - 1 - i);
    return d;
}
static uint64_t r_clz(const conform_op *op, unsigned k, const uint64_t *x)
{
    unsigned n = width_of(op), z = 0;
    while (z < n && !((x[0] >> (n - 1 - z)) & 1))
        z++;
    return z;
}
/* __ffs: the 1-based position of the lowest set bit, 0 for 0 */
static uint64_t r_ffs(const conform_op *op, unsigned k, const uint64_t *x)
{
    for (unsigned i = 0; i < width_of(op); i++)
        if ((x[0] >> i) & 1)
            return i + 1;
    return 0;
}
static uint64_t r_popc(const conform_op *op, unsigned k, const uint64_t *x)
{
    unsigned n = 0;
    for (unsigned i = 0; i < width_of(op); i++)
        n += (x[0] >> i) & 1;
    return n;
}
/* __byte_perm(x, y, s): byte n of the result is byte s[4n+2:4n] of y:x */
static uint64_t r_byte_perm(const conform_op *op, unsigned k, const uint64_t *x)
{
    uint64_t src = (uint64_t)u32(x[1]) << 32 | u32(x[0]), d = 0;
    for (unsigned n = 0; n < 4; n++)
        d |= ((src >> (8 * ((x[2] >> (4 * n)) & 7))) & 0xff) << (8 * n);
    return d;
}
/* __funnelshift_{l,r}{,c}(lo, hi, shift): hi:lo shifted by shift & 31
 * (c: by min(shift, 32)); l returns the upper word, r the lower. */
static uint64_t funnel(const uint64_t *x, bool left, bool clamp)
{
    uint64_t v = (uint64_t)u32(x[1]) << 32 | u32(x[0]);
    unsigned n = clamp ? (u32(x[2]) > 32 ? 32 : u32(x[2])) : u32(x[2]) & 31;
    return left ? (uint32_t)((v << n) >> 32) : (uint32_t)(v >> n);
}
static uint64_t r_fsl(const conform_op *op, unsigned k, const uint64_t *x) { return funnel(x, 1, 0); }
static uint64_t r_fslc(const conform_op *op, unsigned k, const uint64_t *x) { return funnel(x, 1, 1); }
static uint64_t r_fsr(const conform_op *op, unsigned k, const uint64_t *x) { return funnel(x, 0, 0); }
static uint64_t r_fsrc(const conform_op *op, unsigned k, const uint64_t *x) { return funnel(x, 0, 1); }

/* ---- sums and averages ---- */

/* __sad/__usad: |x - y| + z */
static uint64_t r_sad(const conform_op *op, unsigned k, const uint64_t *x)
{
    int64_t a = s32(x[0]), b = s32(x[1]);
    return ret32((a < b ? b - a : a - b) + (int64_t)u32(x[2]));
}
static uint64_t r_usad(const conform_op *op, unsigned k, const uint64_t *x)
{
    int64_t a = u32(x[0]), b = u32(x[1]);
    return ret32((a < b ? b - a : a - b) + (int64_t)u32(x[2]));
}
/* __hadd/__rhadd: (x + y) >> 1 and (x + y + 1) >> 1 without overflow */
static uint64_t r_hadd(const conform_op *op, unsigned k, const uint64_t *x) { return ret32(((int64_t)s32(x[0]) + s32(x[1])) >> 1); }
static uint64_t r_rhadd(const conform_op *op, unsigned k, const uint64_t *x) { return ret32(((int64_t)s32(x[0]) + s32(x[1]) + 1) >> 1); }
static uint64_t r_uhadd(const conform_op *op, unsigned k, const uint64_t *x) { return ((uint64_t)u32(x[0]) + u32(x[1])) >> 1; }
static uint64_t r_urhadd(const conform_op *op, unsigned k, const uint64_t *x) { return ((uint64_t)u32(x[0]) + u32(x[1]) + 1) >> 1; }

/* A w-bit lane i of v, signed or not. */
static int64_t lane(uint64_t v, unsigned i, unsigned w, bool s)
{
    uint64_t p = (v >> (i * w)) & ((1ull << w) - 1);
    return s && (p >> (w - 1)) ? (int64_t)p - (1ll << w) : (int64_t)p;
}
/* __dp4a: z + the sum of the products of the four byte pairs; __dp2a_lo/hi:
 * z + the products of x's halfwords with bytes 0-1 (lo) or 2-3 (hi) of y.
 * op->user: "s" or "u" (signedness), then "4", "lo" or "hi". */
static uint64_t r_dp(const conform_op *op, unsigned k, const uint64_t *x)
{
    const char *t = op->user;
    bool s = t[0] == 's', four = t[1] == '4', hi = t[1] == 'h';
    int64_t d = s ? s32(x[2]) : (int64_t)u32(x[2]);
    for (unsigned i = 0; i < (four ? 4u : 2u); i++)
        d += lane(x[0], i, four ? 8 : 16, s) * lane(x[1], i + 2 * hi, 8, s);
    return ret32(d);
}

/* ---- SIMD in a word: op->user names the per-lane operation ---- */

typedef int64_t (*lane_fn)(int64_t a, int64_t b, unsigned w);
static int64_t l_add(int64_t a, int64_t b, unsigned w) { return a + b; }
static int64_t l_sub(int64_t a, int64_t b, unsigned w) { return a - b; }
static int64_t l_sat_s(int64_t a, int64_t b, unsigned w)
{
    int64_t v = a + b, lo = -(1ll << (w - 1)), hi = (1ll << (w - 1)) - 1;
    return v < lo ? lo : v > hi ? hi : v;
}
static int64_t l_sat_u(int64_t a, int64_t b, unsigned w)
{
    int64_t v = a + b, hi = (1ll << w) - 1;
    return v > hi ? hi : v;
}
static int64_t l_absdiff(int64_t a, int64_t b, unsigned w) { return a < b ? b - a : a - b; }
static int64_t l_avg(int64_t a, int64_t b, unsigned w) { return (a + b + 1) >> 1; }
static int64_t l_max(int64_t a, int64_t b, unsigned w) { return a > b ? a : b; }
static int64_t l_min(int64_t a, int64_t b, unsigned w) { return a < b ? a : b; }
static int64_t l_gt(int64_t a, int64_t b, unsigned w) { return a > b ? -1 : 0; }
static int64_t l_eq(int64_t a, int64_t b, unsigned w) { return a == b ? -1 : 0; }
static int64_t l_neg(int64_t a, int64_t b, unsigned w) { return -a; }

typedef struct simd {
    unsigned w; /* lane width in bits */
    bool s;     /* signed lanes */
    lane_fn f;
    bool sum;   /* the sum of the lanes' results instead (__vsads2) */
} simd;

static uint64_t r_simd(const conform_op *op, unsigned k, const uint64_t *x)
{
    const simd *m = op->user;
    uint64_t d = 0;
    int64_t total = 0;
    for (unsigned i = 0; i < 32 / m->w; i++) {
        int64_t v = m->f(lane(x[0], i, m->w, m->s), lane(x[1], i, m->w, m->s), m->w);
        total += v;
        d |= ((uint64_t)v & ((1ull << m->w) - 1)) << (i * m->w);
    }
    return m->sum ? ret32(total) : d;
}

#define LANES(w, s, f) {w, s, f, false}
static const simd vadd2 = LANES(16, 0, l_add), vaddss2 = LANES(16, 1, l_sat_s), vaddus4 = LANES(8, 0, l_sat_u),
                  vsub4 = LANES(8, 0, l_sub), vabsdiffu4 = LANES(8, 0, l_absdiff),
                  vabsdiffs2 = LANES(16, 1, l_absdiff), vavgu4 = LANES(8, 0, l_avg), vmaxs2 = LANES(16, 1, l_max),
                  vminu4 = LANES(8, 0, l_min), vcmpgtu4 = LANES(8, 0, l_gt), vcmpeq2 = LANES(16, 0, l_eq),
                  vsads2 = {16, 1, l_absdiff, true}, vneg4 = LANES(8, 0, l_neg);

/* ---- inline PTX (PTX ISA pseudo-code) ---- */

/* bfe.s32 d, a, b, c: c bits of a from bit b, sign-extended from the last
 * one taken (bit 31 when the field runs past it); len 0 gives 0 */
static uint64_t r_bfe_s(const conform_op *op, unsigned k, const uint64_t *x)
{
    unsigned pos = x[1] & 0xff, len = x[2] & 0xff;
    if (!len)
        return 0;
    unsigned top = pos + len - 1 < 31 ? pos + len - 1 : 31;
    uint64_t sbit = (x[0] >> top) & 1, d = 0;
    for (unsigned i = 0; i < 32; i++)
        d |= (i < len && pos + i <= 31 ? (x[0] >> (pos + i)) & 1 : sbit) << i;
    return d;
}
/* bfi.b32 d, a, b, c & 0xff, c >> 8: b with bits pos.. replaced by a's low bits */
static uint64_t r_bfi(const conform_op *op, unsigned k, const uint64_t *x)
{
    unsigned pos = x[2] & 0xff, len = (x[2] >> 8) & 0xff;
    uint64_t f = u32(x[1]);
    for (unsigned i = 0; i < len && pos + i <= 31; i++)
        f = (f & ~(1ull << (pos + i))) | ((x[0] >> i) & 1) << (pos + i);
    return f;
}
/* prmt.b32.ecl: edge clamp left, byte i = byte max(i, c[1:0]) of a */
static uint64_t r_prmt_ecl(const conform_op *op, unsigned k, const uint64_t *x)
{
    unsigned s = x[2] & 3;
    uint64_t d = 0;
    for (unsigned i = 0; i < 4; i++)
        d |= ((x[0] >> (8 * (i > s ? i : s))) & 0xff) << (8 * i);
    return d;
}
/* lop3.b32 with immLut 0xe4: bit i is immLut[a_i b_i c_i] */
static uint64_t r_lop3_e4(const conform_op *op, unsigned k, const uint64_t *x)
{
    uint64_t d = 0;
    for (unsigned i = 0; i < 32; i++)
        d |= ((0xe4u >> (((x[0] >> i) & 1) << 2 | ((x[1] >> i) & 1) << 1 | ((x[2] >> i) & 1))) & 1) << i;
    return d;
}
/* l = c + a (carry 1); m = b + c + carry 1 (carry 2); h = a + b + carry 2 */
static uint64_t r_add96(const conform_op *op, unsigned k, const uint64_t *x)
{
    uint64_t a = u32(x[0]), b = u32(x[1]), c = u32(x[2]);
    uint64_t l = c + a, m = b + c + (l >> 32), h = a + b + (m >> 32);
    return (uint32_t)(h ^ l ^ m);
}
/* lo = a - b (borrow); hi = c - a - borrow; returns hi + lo */
static uint64_t r_sub64(const conform_op *op, unsigned k, const uint64_t *x)
{
    uint64_t a = u32(x[0]), b = u32(x[1]), c = u32(x[2]);
    uint64_t borrow = a < b, lo = (uint32_t)(a - b), hi = (uint32_t)(c - a - borrow);
    return (uint32_t)(hi + lo);
}
/* lo = (a*b).lo + c (carry); hi = (a*b).hi + c + carry */
static uint64_t r_madc_hi(const conform_op *op, unsigned k, const uint64_t *x)
{
    uint64_t p = (uint64_t)u32(x[0]) * u32(x[1]), c = u32(x[2]);
    uint64_t lo = (p & 0xffffffff) + c, hi = (uint32_t)((p >> 32) + c + (lo >> 32));
    return hi << 32 | (uint32_t)lo;
}
/* shf.r.clamp.b32 d, a, b, c: the low word of b:a shifted right by min(c, 32) */
static uint64_t r_shf_r_clamp(const conform_op *op, unsigned k, const uint64_t *x) { return funnel(x, 0, 1); }
/* div.u32 and rem.s32 by 0 are all ones (as on an H200); MIN % -1 is 0 */
static uint64_t r_div_u(const conform_op *op, unsigned k, const uint64_t *x)
{
    return u32(x[1]) ? u32(x[0]) / u32(x[1]) : 0xffffffffu;
}
static uint64_t r_rem_s(const conform_op *op, unsigned k, const uint64_t *x)
{
    int64_t a = s32(x[0]), b = s32(x[1]);
    return b ? ret32(a % b) : 0xffffffffu;
}
/* bfind.shiftamt.s64: 63 minus the position of the highest bit that
 * differs from the sign (0xffffffff when there is none) */
static uint64_t r_bfind_sa(const conform_op *op, unsigned k, const uint64_t *x)
{
    uint64_t v = (int64_t)x[0] < 0 ? ~x[0] : x[0];
    for (int i = 63; i >= 0; i--)
        if ((v >> i) & 1)
            return 63u - (unsigned)i;
    return 0xffffffffu;
}
static uint64_t r_mul_hi_s16(const conform_op *op, unsigned k, const uint64_t *x)
{
    return (uint16_t)(((int32_t)(int16_t)x[0] * (int16_t)x[1]) >> 16);
}
/* cvt.sat.s8.s32 into a 32-bit register: clamped, then sign-extended */
static uint64_t r_cvt_sat_s8(const conform_op *op, unsigned k, const uint64_t *x)
{
    int32_t a = s32(x[0]);
    return ret32(a < -128 ? -128 : a > 127 ? 127 : a);
}

#define NV(nm, d, a, b, c, r, ...) \
    {.name = nm, .file = FILE_SM80, .kernel = nm, .dw = d, .w = {a, b, c}, .ref = r, __VA_ARGS__}
#define SIMD(nm, m) NV(nm, 4, 4, 4, 0, r_simd, .user = &m)

static const uint64_t shift_edges[] = {0, 1, 31, 32, 33, 63, 64, 255, 256, 0x80000000, 0xffffffff};
static const uint64_t field_edges[] = {0, 1, 8, 31, 32, 33, 255, 0x0808, 0x1f01, 0x2000, 0xff00, 0x0120, 0xffff};

const conform_op conform_int_nvcc_ops[] = {
    NV("nv_umulhi", 4, 4, 4, 0, r_umulhi),
    NV("nv_mulhi", 4, 4, 4, 0, r_mulhi),
    NV("nv_umul64hi", 8, 8, 8, 0, r_umul64hi),
    NV("nv_mul64hi", 8, 8, 8, 0, r_mul64hi),
    NV("nv_umul24", 4, 4, 4, 0, r_umul24),
    NV("nv_mul24", 4, 4, 4, 0, r_mul24),
    NV("nv_brev", 4, 4, 0, 0, r_brev),
    NV("nv_brevll", 8, 8, 0, 0, r_brev),
    NV("nv_clz", 4, 4, 0, 0, r_clz),
    NV("nv_clzll", 4, 8, 0, 0, r_clz),
    NV("nv_ffs", 4, 4, 0, 0, r_ffs),
    NV("nv_ffsll", 4, 8, 0, 0, r_ffs),
    NV("nv_popc", 4, 4, 0, 0, r_popc),
    NV("nv_popcll", 4, 8, 0, 0, r_popc),
    NV("nv_byte_perm", 4, 4, 4, 4, r_byte_perm),
    NV("nv_funnelshift_l", 4, 4, 4, 4, r_fsl, .edges = {NULL, NULL, shift_edges}, .nedges = {0, 0, 11}),
    NV("nv_funnelshift_lc", 4, 4, 4, 4, r_fslc, .edges = {NULL, NULL, shift_edges}, .nedges = {0, 0, 11}),
    NV("nv_funnelshift_r", 4, 4, 4, 4, r_fsr, .edges = {NULL, NULL, shift_edges}, .nedges = {0, 0, 11}),
    NV("nv_funnelshift_rc", 4, 4, 4, 4, r_fsrc, .edges = {NULL, NULL, shift_edges}, .nedges = {0, 0, 11}),
    NV("nv_sad", 4, 4, 4, 4, r_sad),
    NV("nv_usad", 4, 4, 4, 4, r_usad),
    NV("nv_hadd", 4, 4, 4, 0, r_hadd),
    NV("nv_rhadd", 4, 4, 4, 0, r_rhadd),
    NV("nv_uhadd", 4, 4, 4, 0, r_uhadd),
    NV("nv_urhadd", 4, 4, 4, 0, r_urhadd),
    NV("nv_dp4a_s", 4, 4, 4, 4, r_dp, .user = "s4"),
    NV("nv_dp4a_u", 4, 4, 4, 4, r_dp, .user = "u4"),
    NV("nv_dp2a_lo", 4, 4, 4, 4, r_dp, .user = "slo"),
    NV("nv_dp2a_hi", 4, 4, 4, 4, r_dp, .user = "uhi"),
    SIMD("nv_vadd2", vadd2),
    SIMD("nv_vaddss2", vaddss2),
    SIMD("nv_vaddus4", vaddus4),
    SIMD("nv_vsub4", vsub4),
    SIMD("nv_vabsdiffu4", vabsdiffu4),
    SIMD("nv_vabsdiffs2", vabsdiffs2),
    SIMD("nv_vavgu4", vavgu4),
    SIMD("nv_vmaxs2", vmaxs2),
    SIMD("nv_vminu4", vminu4),
    SIMD("nv_vcmpgtu4", vcmpgtu4),
    SIMD("nv_vcmpeq2", vcmpeq2),
    SIMD("nv_vsads2", vsads2),
    NV("nv_vneg4", 4, 4, 0, 0, r_simd, .user = &vneg4),
    NV("nv_asm_bfe_s", 4, 4, 4, 4, r_bfe_s, .edges = {NULL, field_edges, field_edges}, .nedges = {0, 13, 13}),
    NV("nv_asm_bfi", 4, 4, 4, 4, r_bfi, .edges = {NULL, NULL, field_edges}, .nedges = {0, 0, 13}),
    NV("nv_asm_prmt_ecl", 4, 4, 4, 4, r_prmt_ecl),
    NV("nv_asm_lop3", 4, 4, 4, 4, r_lop3_e4),
    NV("nv_asm_add96", 4, 4, 4, 4, r_add96),
    NV("nv_asm_sub64", 4, 4, 4, 4, r_sub64),
    NV("nv_asm_madc_hi", 8, 4, 4, 4, r_madc_hi),
    NV("nv_asm_shf_r_clamp", 4, 4, 4, 4, r_shf_r_clamp, .edges = {NULL, NULL, shift_edges}, .nedges = {0, 0, 11}),
    NV("nv_asm_div_u", 4, 4, 4, 0, r_div_u),
    NV("nv_asm_rem_s", 4, 4, 4, 0, r_rem_s),
    NV("nv_asm_bfind_shiftamt", 4, 8, 0, 0, r_bfind_sa),
    NV("nv_asm_mul_hi_s16", 2, 2, 2, 0, r_mul_hi_s16),
    NV("nv_asm_cvt_sat_s8", 4, 4, 0, 0, r_cvt_sat_s8),
};
_Static_assert(sizeof conform_int_nvcc_ops / sizeof conform_int_nvcc_ops[0] == CONFORM_INT_NVCC_NOPS,
               "CONFORM_INT_NVCC_NOPS counts the ops");
