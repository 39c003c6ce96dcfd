/* test_conform_int.c - integer instructions against C references written
 * from the PTX ISA pseudo-code (one reference per family, independent of
 * the lowering), through the conformance harness (tests/conform.h):
 * edge values of every width, their combinations and thousands of random
 * inputs, converged, divergent and guarded, in partial warps.
 *
 *   test_conform_int               run the suite
 *   test_conform_int --emit DIR    write the kernels and inputs for the GPU
 *                                  driver (scripts/gpu-crosscheck.sh)
 *
 * When tests/gpu/results/int/ holds outputs recorded on an NVIDIA GPU
 * (or $PTXJIT_GPU_RESULTS names another results folder), the references
 * are also compared with them; otherwise that test skips saying so.
 *
 * Choices where the ISA leaves the result to the machine (documented in
 * the README): x / 0 and x % 0 are all ones (as on an H200), MIN / -1 is MIN and
 * MIN % -1 is 0. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "conform.h"
#include "conform_int_nvcc.h"
#include "ptxjit/ptxjit.h"

typedef unsigned __int128 u128;
typedef __int128 s128;

/* ---- helpers: the operation type comes from op->user ("s32", "u16"...) ---- */

static const char *ty(const conform_op *op) { return op->user; }
static unsigned nbits(const conform_op *op) { return (unsigned)atoi(ty(op) + 1); }
static bool is_s(const conform_op *op) { return ty(op)[0] == 's'; }
static uint64_t mask_of(unsigned bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }
static uint64_t tr(uint64_t v, unsigned bits) { return v & mask_of(bits); }
/* v's low `bits` bits as a signed number */
static int64_t sx(uint64_t v, unsigned bits)
{
    v = tr(v, bits);
    return bits < 64 && (v >> (bits - 1)) & 1 ? (int64_t)(v | ~mask_of(bits)) : (int64_t)v;
}
/* the operand as the instruction type reads it */
static s128 val(const conform_op *op, uint64_t v)
{
    return is_s(op) ? (s128)sx(v, nbits(op)) : (s128)tr(v, nbits(op));
}
static uint64_t lo(s128 v, unsigned bits) { return tr((uint64_t)(u128)v, bits); }
static s128 smin_of(unsigned bits) { return -((s128)1 << (bits - 1)); }
static s128 smax_of(unsigned bits) { return ((s128)1 << (bits - 1)) - 1; }
static s128 clamp(s128 v, s128 a, s128 b) { return v < a ? a : v > b ? b : v; }
static uint64_t bit(uint64_t v, unsigned i) { return (v >> i) & 1; }

/* ---- add sub mul mad (ISA 9.7.1) ---- */

static uint64_t r_add(const conform_op *op, unsigned k, const uint64_t *x) { return lo(val(op, x[0]) + val(op, x[1]), nbits(op)); }
static uint64_t r_sub(const conform_op *op, unsigned k, const uint64_t *x) { return lo(val(op, x[0]) - val(op, x[1]), nbits(op)); }
/* .sat (s32 only): the exact result clamped to MININT..MAXINT */
static uint64_t r_add_sat(const conform_op *op, unsigned k, const uint64_t *x)
{
    return lo(clamp(val(op, x[0]) + val(op, x[1]), smin_of(32), smax_of(32)), 32);
}
static uint64_t r_sub_sat(const conform_op *op, unsigned k, const uint64_t *x)
{
    return lo(clamp(val(op, x[0]) - val(op, x[1]), smin_of(32), smax_of(32)), 32);
}
/* t = a * b in 2n bits; .lo: t<n-1..0>, .hi: t<2n-1..n>, .wide: t */
/* modular 128-bit arithmetic (no signed overflow); the low 2n bits are exact */
static s128 mulw(s128 a, s128 b) { return (s128)((u128)a * (u128)b); }
static s128 addw(s128 a, s128 b) { return (s128)((u128)a + (u128)b); }
static s128 prod(const conform_op *op, const uint64_t *x) { return mulw(val(op, x[0]), val(op, x[1])); }
static uint64_t hi_half(const conform_op *op, s128 t) { return lo(t >> nbits(op), nbits(op)); }
static uint64_t r_mul_lo(const conform_op *op, unsigned k, const uint64_t *x) { return lo(prod(op, x), nbits(op)); }
static uint64_t r_mul_hi(const conform_op *op, unsigned k, const uint64_t *x) { return hi_half(op, prod(op, x)); }
static uint64_t r_mul_wide(const conform_op *op, unsigned k, const uint64_t *x) { return lo(prod(op, x), 2 * nbits(op)); }
static uint64_t r_mad_lo(const conform_op *op, unsigned k, const uint64_t *x) { return lo(addw(prod(op, x), val(op, x[2])), nbits(op)); }
static uint64_t r_mad_hi(const conform_op *op, unsigned k, const uint64_t *x)
{
    return lo((s128)hi_half(op, prod(op, x)) + val(op, x[2]), nbits(op));
}
static uint64_t r_mad_wide(const conform_op *op, unsigned k, const uint64_t *x)
{
    unsigned n2 = 2 * nbits(op);
    s128 c = is_s(op) ? (s128)sx(x[2], n2) : (s128)tr(x[2], n2);
    return lo(addw(prod(op, x), c), n2);
}
/* mad.hi.sat.s32: t<63..32> + c clamped to MININT..MAXINT */
static uint64_t r_mad_hi_sat(const conform_op *op, unsigned k, const uint64_t *x)
{
    s128 h = prod(op, x) >> 32; /* arithmetic: the signed high word */
    return lo(clamp(h + val(op, x[2]), smin_of(32), smax_of(32)), 32);
}

/* mul24/mad24: the 48-bit product of the low 24 bits (signed for .s32);
 * .lo: t<31..0>, .hi: t<47..16>; mad24 adds c to that. */
static s128 prod24(const conform_op *op, const uint64_t *x)
{
    s128 a = is_s(op) ? sx(x[0], 24) : (s128)tr(x[0], 24);
    s128 b = is_s(op) ? sx(x[1], 24) : (s128)tr(x[1], 24);
    return a * b;
}
static uint64_t r_mul24_lo(const conform_op *op, unsigned k, const uint64_t *x) { return lo(prod24(op, x), 32); }
static uint64_t r_mul24_hi(const conform_op *op, unsigned k, const uint64_t *x) { return lo(prod24(op, x) >> 16, 32); }
static uint64_t r_mad24_lo(const conform_op *op, unsigned k, const uint64_t *x) { return lo(prod24(op, x) + (s128)x[2], 32); }
static uint64_t r_mad24_hi(const conform_op *op, unsigned k, const uint64_t *x)
{
    return lo((prod24(op, x) >> 16) + (s128)tr(x[2], 32), 32);
}
static uint64_t r_mad24_hi_sat(const conform_op *op, unsigned k, const uint64_t *x)
{
    s128 h = (s128)sx(lo(prod24(op, x) >> 16, 32), 32);
    return lo(clamp(h + sx(x[2], 32), smin_of(32), smax_of(32)), 32);
}

/* .u16x2/.s16x2: each half word independently (sm_90) */
typedef s128 (*half_fn)(s128 a, s128 b);
static uint64_t pairwise(const conform_op *op, const uint64_t *x, half_fn f, bool relu)
{
    uint64_t d = 0;
    for (unsigned i = 0; i < 2; i++) {
        uint64_t a = (x[0] >> (16 * i)) & 0xffff, b = (x[1] >> (16 * i)) & 0xffff;
        s128 r = is_s(op) ? f(sx(a, 16), sx(b, 16)) : f(a, b);
        if (relu && r < 0)
            r = 0;
        d |= lo(r, 16) << (16 * i);
    }
    return d;
}
static s128 h_add(s128 a, s128 b) { return a + b; }
static s128 h_min(s128 a, s128 b) { return a < b ? a : b; }
static s128 h_max(s128 a, s128 b) { return a > b ? a : b; }
static uint64_t r_add_x2(const conform_op *op, unsigned k, const uint64_t *x) { return pairwise(op, x, h_add, false); }
static uint64_t r_min_x2(const conform_op *op, unsigned k, const uint64_t *x) { return pairwise(op, x, h_min, false); }
static uint64_t r_max_x2(const conform_op *op, unsigned k, const uint64_t *x) { return pairwise(op, x, h_max, false); }
static uint64_t r_min_relu_x2(const conform_op *op, unsigned k, const uint64_t *x) { return pairwise(op, x, h_min, true); }
static uint64_t r_max_relu_x2(const conform_op *op, unsigned k, const uint64_t *x) { return pairwise(op, x, h_max, true); }

#define T2(nm, text, w_, fn, t) {.name = nm, .ptx = text, .dw = w_, .w = {w_, w_}, .ref = fn, .user = t}
#define T3(nm, text, w_, fn, t) {.name = nm, .ptx = text, .dw = w_, .w = {w_, w_, w_}, .ref = fn, .user = t}

static const conform_op add_sub_ops[] = {
    T2("add_u16", "add.u16 %d, %a, %b;", 2, r_add, "u16"),
    T2("add_s16", "add.s16 %d, %a, %b;", 2, r_add, "s16"),
    T2("add_u32", "add.u32 %d, %a, %b;", 4, r_add, "u32"),
    T2("add_s32", "add.s32 %d, %a, %b;", 4, r_add, "s32"),
    T2("add_u64", "add.u64 %d, %a, %b;", 8, r_add, "u64"),
    T2("add_s64", "add.s64 %d, %a, %b;", 8, r_add, "s64"),
    T2("sub_u16", "sub.u16 %d, %a, %b;", 2, r_sub, "u16"),
    T2("sub_s16", "sub.s16 %d, %a, %b;", 2, r_sub, "s16"),
    T2("sub_u32", "sub.u32 %d, %a, %b;", 4, r_sub, "u32"),
    T2("sub_s32", "sub.s32 %d, %a, %b;", 4, r_sub, "s32"),
    T2("sub_u64", "sub.u64 %d, %a, %b;", 8, r_sub, "u64"),
    T2("sub_s64", "sub.s64 %d, %a, %b;", 8, r_sub, "s64"),
    T2("add_sat_s32", "add.sat.s32 %d, %a, %b;", 4, r_add_sat, "s32"),
    T2("sub_sat_s32", "sub.sat.s32 %d, %a, %b;", 4, r_sub_sat, "s32"),
};

static const conform_op simd16x2_ops[] = {
#define X2(nm, text, fn, t) {.name = nm, .ptx = text, .dw = 4, .w = {4, 4}, .ref = fn, .user = t, .target = "sm_90"}
    X2("add_u16x2", "add.u16x2 %d, %a, %b;", r_add_x2, "u16"),
    X2("add_s16x2", "add.s16x2 %d, %a, %b;", r_add_x2, "s16"),
    X2("min_u16x2", "min.u16x2 %d, %a, %b;", r_min_x2, "u16"),
    X2("min_s16x2", "min.s16x2 %d, %a, %b;", r_min_x2, "s16"),
    X2("max_u16x2", "max.u16x2 %d, %a, %b;", r_max_x2, "u16"),
    X2("max_s16x2", "max.s16x2 %d, %a, %b;", r_max_x2, "s16"),
    X2("min_relu_s16x2", "min.relu.s16x2 %d, %a, %b;", r_min_relu_x2, "s16"),
    X2("max_relu_s16x2", "max.relu.s16x2 %d, %a, %b;", r_max_relu_x2, "s16"),
#undef X2
};

#define WIDE(nm, text, w_, fn, t) {.name = nm, .ptx = text, .dw = 2 * w_, .w = {w_, w_}, .ref = fn, .user = t}
#define MADW(nm, text, w_, fn, t) {.name = nm, .ptx = text, .dw = 2 * w_, .w = {w_, w_, 2 * w_}, .ref = fn, .user = t}

static const conform_op mul_ops[] = {
    T2("mul_lo_u16", "mul.lo.u16 %d, %a, %b;", 2, r_mul_lo, "u16"),
    T2("mul_lo_s16", "mul.lo.s16 %d, %a, %b;", 2, r_mul_lo, "s16"),
    T2("mul_hi_u16", "mul.hi.u16 %d, %a, %b;", 2, r_mul_hi, "u16"),
    T2("mul_hi_s16", "mul.hi.s16 %d, %a, %b;", 2, r_mul_hi, "s16"),
    T2("mul_lo_u32", "mul.lo.u32 %d, %a, %b;", 4, r_mul_lo, "u32"),
    T2("mul_lo_s32", "mul.lo.s32 %d, %a, %b;", 4, r_mul_lo, "s32"),
    T2("mul_hi_u32", "mul.hi.u32 %d, %a, %b;", 4, r_mul_hi, "u32"),
    T2("mul_hi_s32", "mul.hi.s32 %d, %a, %b;", 4, r_mul_hi, "s32"),
    T2("mul_lo_u64", "mul.lo.u64 %d, %a, %b;", 8, r_mul_lo, "u64"),
    T2("mul_lo_s64", "mul.lo.s64 %d, %a, %b;", 8, r_mul_lo, "s64"),
    T2("mul_hi_u64", "mul.hi.u64 %d, %a, %b;", 8, r_mul_hi, "u64"),
    T2("mul_hi_s64", "mul.hi.s64 %d, %a, %b;", 8, r_mul_hi, "s64"),
    WIDE("mul_wide_u16", "mul.wide.u16 %d, %a, %b;", 2, r_mul_wide, "u16"),
    WIDE("mul_wide_s16", "mul.wide.s16 %d, %a, %b;", 2, r_mul_wide, "s16"),
    WIDE("mul_wide_u32", "mul.wide.u32 %d, %a, %b;", 4, r_mul_wide, "u32"),
    WIDE("mul_wide_s32", "mul.wide.s32 %d, %a, %b;", 4, r_mul_wide, "s32"),
};

static const conform_op mad_ops[] = {
    T3("mad_lo_u16", "mad.lo.u16 %d, %a, %b, %c;", 2, r_mad_lo, "u16"),
    T3("mad_lo_s16", "mad.lo.s16 %d, %a, %b, %c;", 2, r_mad_lo, "s16"),
    T3("mad_hi_u16", "mad.hi.u16 %d, %a, %b, %c;", 2, r_mad_hi, "u16"),
    T3("mad_hi_s16", "mad.hi.s16 %d, %a, %b, %c;", 2, r_mad_hi, "s16"),
    T3("mad_lo_u32", "mad.lo.u32 %d, %a, %b, %c;", 4, r_mad_lo, "u32"),
    T3("mad_lo_s32", "mad.lo.s32 %d, %a, %b, %c;", 4, r_mad_lo, "s32"),
    T3("mad_hi_u32", "mad.hi.u32 %d, %a, %b, %c;", 4, r_mad_hi, "u32"),
    T3("mad_hi_s32", "mad.hi.s32 %d, %a, %b, %c;", 4, r_mad_hi, "s32"),
    T3("mad_lo_u64", "mad.lo.u64 %d, %a, %b, %c;", 8, r_mad_lo, "u64"),
    T3("mad_lo_s64", "mad.lo.s64 %d, %a, %b, %c;", 8, r_mad_lo, "s64"),
    T3("mad_hi_u64", "mad.hi.u64 %d, %a, %b, %c;", 8, r_mad_hi, "u64"),
    T3("mad_hi_s64", "mad.hi.s64 %d, %a, %b, %c;", 8, r_mad_hi, "s64"),
    MADW("mad_wide_u16", "mad.wide.u16 %d, %a, %b, %c;", 2, r_mad_wide, "u16"),
    MADW("mad_wide_s16", "mad.wide.s16 %d, %a, %b, %c;", 2, r_mad_wide, "s16"),
    MADW("mad_wide_u32", "mad.wide.u32 %d, %a, %b, %c;", 4, r_mad_wide, "u32"),
    MADW("mad_wide_s32", "mad.wide.s32 %d, %a, %b, %c;", 4, r_mad_wide, "s32"),
    T3("mad_hi_sat_s32", "mad.hi.sat.s32 %d, %a, %b, %c;", 4, r_mad_hi_sat, "s32"),
    T2("mul24_lo_u32", "mul24.lo.u32 %d, %a, %b;", 4, r_mul24_lo, "u32"),
    T2("mul24_lo_s32", "mul24.lo.s32 %d, %a, %b;", 4, r_mul24_lo, "s32"),
    T2("mul24_hi_u32", "mul24.hi.u32 %d, %a, %b;", 4, r_mul24_hi, "u32"),
    T2("mul24_hi_s32", "mul24.hi.s32 %d, %a, %b;", 4, r_mul24_hi, "s32"),
    T3("mad24_lo_u32", "mad24.lo.u32 %d, %a, %b, %c;", 4, r_mad24_lo, "u32"),
    T3("mad24_lo_s32", "mad24.lo.s32 %d, %a, %b, %c;", 4, r_mad24_lo, "s32"),
    T3("mad24_hi_u32", "mad24.hi.u32 %d, %a, %b, %c;", 4, r_mad24_hi, "u32"),
    T3("mad24_hi_s32", "mad24.hi.s32 %d, %a, %b, %c;", 4, r_mad24_hi, "s32"),
    T3("mad24_hi_sat_s32", "mad24.hi.sat.s32 %d, %a, %b, %c;", 4, r_mad24_hi_sat, "s32"),
};

/* ---- extended precision (ISA 9.7.2): CC.CF is the carry of add.cc /
 * addc.cc / mad.cc / madc.cc and the borrow of sub.cc / subc.cc ---- */

/* a + b over 64 bits as add.cc.u32 + addc.u32 on the halves */
static uint64_t r_add64(const conform_op *op, unsigned k, const uint64_t *x) { return x[0] + x[1]; }
static uint64_t r_sub64(const conform_op *op, unsigned k, const uint64_t *x) { return x[0] - x[1]; }
/* {high word of a + b, carry out of the 64-bit sum} */
static uint64_t r_add64_carry(const conform_op *op, unsigned k, const uint64_t *x)
{
    u128 s = (u128)x[0] + x[1];
    return ((uint64_t)(s >> 32) & 0xffffffff) | (uint64_t)(s >> 64) << 32;
}
/* {high word of a - b, subc 0 - 0 - borrow (all ones on a borrow)} */
static uint64_t r_sub64_borrow(const conform_op *op, unsigned k, const uint64_t *x)
{
    uint64_t d = x[0] - x[1];
    return (d >> 32) | (x[0] < x[1] ? 0xffffffff00000000ull : 0);
}
/* 128-bit {c:a} + {e:b} with add.cc.u64/addc.cc.u64: the high 64 bits */
static uint64_t r_add128_hi(const conform_op *op, unsigned k, const uint64_t *x)
{
    u128 s = ((u128)x[2] << 64 | x[0]) + ((u128)x[3] << 64 | x[1]);
    return (uint64_t)(s >> 64);
}
/* ... and the carry out of that 128-bit sum (addc.u64 0 + 0 + CF) */
static uint64_t r_add128_carry(const conform_op *op, unsigned k, const uint64_t *x)
{
    u128 a = (u128)x[2] << 64 | x[0], b = (u128)x[3] << 64 | x[1];
    return a + b < a;
}
static uint64_t r_sub128_hi(const conform_op *op, unsigned k, const uint64_t *x)
{
    u128 s = ((u128)x[2] << 64 | x[0]) - ((u128)x[3] << 64 | x[1]);
    return (uint64_t)(s >> 64);
}
static uint64_t r_sub128_borrow(const conform_op *op, unsigned k, const uint64_t *x)
{
    u128 a = (u128)x[2] << 64 | x[0], b = (u128)x[3] << 64 | x[1];
    return a < b ? ~0ull : 0;
}
/* mad.lo.cc.u32 lo, a, b, c; madc.hi.u32 hi, a, b, e: {lo, hi} =
 * a*b + (e:c) over 64 bits */
static uint64_t r_mad_chain32(const conform_op *op, unsigned k, const uint64_t *x)
{
    uint64_t p = (uint64_t)(uint32_t)x[0] * (uint32_t)x[1];
    return p + ((uint64_t)(uint32_t)x[3] << 32 | (uint32_t)x[2]);
}
/* mad.lo.cc.u64 + madc.hi.u64: the high 64 bits of a*b + (e:c) */
static uint64_t r_mad_chain64(const conform_op *op, unsigned k, const uint64_t *x)
{
    u128 s = (u128)x[0] * x[1] + ((u128)x[3] << 64 | x[2]);
    return (uint64_t)(s >> 64);
}
/* 32x32 -> {carry, hi} of a*b + c + e, chain madc.lo.cc then madc.hi.cc */
static uint64_t r_madc_cc_chain(const conform_op *op, unsigned k, const uint64_t *x)
{
    uint64_t a = (uint32_t)x[0], b = (uint32_t)x[1], c = (uint32_t)x[2], e = (uint32_t)x[3];
    uint64_t lo1 = (a * b & 0xffffffff) + c;             /* mad.lo.cc: carry c1 */
    uint64_t c1 = lo1 >> 32;
    uint64_t hi1 = (a * b >> 32) + e + c1;                /* madc.hi.cc: carry c2 */
    uint64_t c2 = hi1 >> 32;
    return (hi1 & 0xffffffff) | c2 << 32;
}

#define CC(nm, text, dw_, w0, w1, w2, w3, fn) {.name = nm, .ptx = text, .dw = dw_, .w = {w0, w1, w2, w3}, .ref = fn}
static const conform_op carry_ops[] = {
    CC("add_cc_addc_u32", "{ .reg .b32 %al, %ah, %bl, %bh, %l, %h; mov.b64 {%al, %ah}, %a; mov.b64 {%bl, %bh}, %b;"
       " %g add.cc.u32 %l, %al, %bl; %g addc.u32 %h, %ah, %bh; %g mov.b64 %d, {%l, %h}; }", 8, 8, 8, 0, 0, r_add64),
    CC("add_cc_addc_s32", "{ .reg .b32 %al, %ah, %bl, %bh, %l, %h; mov.b64 {%al, %ah}, %a; mov.b64 {%bl, %bh}, %b;"
       " %g add.cc.s32 %l, %al, %bl; %g addc.s32 %h, %ah, %bh; %g mov.b64 %d, {%l, %h}; }", 8, 8, 8, 0, 0, r_add64),
    CC("addc_cc_carry_out", "{ .reg .b32 %al, %ah, %bl, %bh, %l, %h, %cf; mov.b64 {%al, %ah}, %a; mov.b64 {%bl, %bh}, %b;"
       " %g add.cc.u32 %l, %al, %bl; %g addc.cc.u32 %h, %ah, %bh; %g addc.u32 %cf, 0, 0; %g mov.b64 %d, {%h, %cf}; }",
       8, 8, 8, 0, 0, r_add64_carry),
    CC("sub_cc_subc_u32", "{ .reg .b32 %al, %ah, %bl, %bh, %l, %h; mov.b64 {%al, %ah}, %a; mov.b64 {%bl, %bh}, %b;"
       " %g sub.cc.u32 %l, %al, %bl; %g subc.u32 %h, %ah, %bh; %g mov.b64 %d, {%l, %h}; }", 8, 8, 8, 0, 0, r_sub64),
    CC("sub_cc_subc_s32", "{ .reg .b32 %al, %ah, %bl, %bh, %l, %h; mov.b64 {%al, %ah}, %a; mov.b64 {%bl, %bh}, %b;"
       " %g sub.cc.s32 %l, %al, %bl; %g subc.s32 %h, %ah, %bh; %g mov.b64 %d, {%l, %h}; }", 8, 8, 8, 0, 0, r_sub64),
    CC("subc_cc_borrow_out", "{ .reg .b32 %al, %ah, %bl, %bh, %l, %h, %bf; mov.b64 {%al, %ah}, %a; mov.b64 {%bl, %bh}, %b;"
       " %g sub.cc.u32 %l, %al, %bl; %g subc.cc.u32 %h, %ah, %bh; %g subc.u32 %bf, 0, 0; %g mov.b64 %d, {%h, %bf}; }",
       8, 8, 8, 0, 0, r_sub64_borrow),
    CC("add_cc_addc_u64", "{ .reg .b64 %l; %g add.cc.u64 %l, %a, %b; %g addc.u64 %d, %c, %e; }", 8, 8, 8, 8, 8,
       r_add128_hi),
    CC("addc_cc_u64_carry_out", "{ .reg .b64 %l, %h; %g add.cc.s64 %l, %a, %b; %g addc.cc.s64 %h, %c, %e;"
       " %g addc.u64 %d, 0, 0; }", 8, 8, 8, 8, 8, r_add128_carry),
    CC("sub_cc_subc_u64", "{ .reg .b64 %l; %g sub.cc.u64 %l, %a, %b; %g subc.u64 %d, %c, %e; }", 8, 8, 8, 8, 8,
       r_sub128_hi),
    CC("subc_cc_u64_borrow_out", "{ .reg .b64 %l, %h; %g sub.cc.u64 %l, %a, %b; %g subc.cc.u64 %h, %c, %e;"
       " %g subc.u64 %d, 0, 0; }", 8, 8, 8, 8, 8, r_sub128_borrow),
    CC("mad_cc_madc_u32", "{ .reg .b32 %l, %h; %g mad.lo.cc.u32 %l, %a, %b, %c; %g madc.hi.u32 %h, %a, %b, %e;"
       " %g mov.b64 %d, {%l, %h}; }", 8, 4, 4, 4, 4, r_mad_chain32),
    CC("mad_cc_madc_u64", "{ .reg .b64 %l; %g mad.lo.cc.u64 %l, %a, %b, %c; %g madc.hi.u64 %d, %a, %b, %e; }",
       8, 8, 8, 8, 8, r_mad_chain64),
    CC("madc_cc_chain_u32", "{ .reg .b32 %l, %h, %cf, %z; mov.b32 %z, 0; %g add.cc.u32 %z, %z, 0;"
       " %g madc.lo.cc.u32 %l, %a, %b, %c; %g madc.hi.cc.u32 %h, %a, %b, %e; %g addc.u32 %cf, 0, 0;"
       " %g mov.b64 %d, {%h, %cf}; }", 8, 4, 4, 4, 4, r_madc_cc_chain),
};

/* ---- div rem (ISA 9.7.1.8-9) ---- */

static uint64_t r_div(const conform_op *op, unsigned k, const uint64_t *x)
{
    unsigned n = nbits(op);
    s128 a = val(op, x[0]), b = val(op, x[1]);
    if (b == 0)
        return mask_of(n);
    if (is_s(op) && a == smin_of(n) && b == -1)
        return lo(a, n);
    return lo(a / b, n); /* C division truncates toward zero, as PTX does */
}
static uint64_t r_rem(const conform_op *op, unsigned k, const uint64_t *x)
{
    unsigned n = nbits(op);
    s128 a = val(op, x[0]), b = val(op, x[1]);
    if (b == 0) /* all ones, as div: what a GPU gives (H200) */
        return mask_of(n);
    if (is_s(op) && a == smin_of(n) && b == -1)
        return 0;
    return lo(a % b, n); /* the sign of the dividend */
}

static const conform_op div_ops[] = {
    T2("div_u16", "div.u16 %d, %a, %b;", 2, r_div, "u16"), T2("div_s16", "div.s16 %d, %a, %b;", 2, r_div, "s16"),
    T2("div_u32", "div.u32 %d, %a, %b;", 4, r_div, "u32"), T2("div_s32", "div.s32 %d, %a, %b;", 4, r_div, "s32"),
    T2("div_u64", "div.u64 %d, %a, %b;", 8, r_div, "u64"), T2("div_s64", "div.s64 %d, %a, %b;", 8, r_div, "s64"),
    T2("rem_u16", "rem.u16 %d, %a, %b;", 2, r_rem, "u16"), T2("rem_s16", "rem.s16 %d, %a, %b;", 2, r_rem, "s16"),
    T2("rem_u32", "rem.u32 %d, %a, %b;", 4, r_rem, "u32"), T2("rem_s32", "rem.s32 %d, %a, %b;", 4, r_rem, "s32"),
    T2("rem_u64", "rem.u64 %d, %a, %b;", 8, r_rem, "u64"), T2("rem_s64", "rem.s64 %d, %a, %b;", 8, r_rem, "s64"),
};

/* ---- abs neg min max ---- */

static uint64_t r_abs(const conform_op *op, unsigned k, const uint64_t *x)
{
    s128 a = val(op, x[0]);
    return lo(a < 0 ? -a : a, nbits(op)); /* abs(MIN) wraps to MIN */
}
static uint64_t r_neg(const conform_op *op, unsigned k, const uint64_t *x) { return lo(-val(op, x[0]), nbits(op)); }
static uint64_t r_min(const conform_op *op, unsigned k, const uint64_t *x)
{
    s128 a = val(op, x[0]), b = val(op, x[1]);
    return lo(a < b ? a : b, nbits(op));
}
static uint64_t r_max(const conform_op *op, unsigned k, const uint64_t *x)
{
    s128 a = val(op, x[0]), b = val(op, x[1]);
    return lo(a > b ? a : b, nbits(op));
}
/* .relu: a negative result becomes 0 */
static uint64_t r_min_relu(const conform_op *op, unsigned k, const uint64_t *x)
{
    s128 a = val(op, x[0]), b = val(op, x[1]), m = a < b ? a : b;
    return lo(m < 0 ? 0 : m, nbits(op));
}
static uint64_t r_max_relu(const conform_op *op, unsigned k, const uint64_t *x)
{
    s128 a = val(op, x[0]), b = val(op, x[1]), m = a > b ? a : b;
    return lo(m < 0 ? 0 : m, nbits(op));
}
#define T1(nm, text, w_, fn, t) {.name = nm, .ptx = text, .dw = w_, .w = {w_}, .ref = fn, .user = t}

static const conform_op minmax_ops[] = {
    T1("abs_s16", "abs.s16 %d, %a;", 2, r_abs, "s16"), T1("abs_s32", "abs.s32 %d, %a;", 4, r_abs, "s32"),
    T1("abs_s64", "abs.s64 %d, %a;", 8, r_abs, "s64"), T1("neg_s16", "neg.s16 %d, %a;", 2, r_neg, "s16"),
    T1("neg_s32", "neg.s32 %d, %a;", 4, r_neg, "s32"), T1("neg_s64", "neg.s64 %d, %a;", 8, r_neg, "s64"),
    T2("min_u16", "min.u16 %d, %a, %b;", 2, r_min, "u16"), T2("min_s16", "min.s16 %d, %a, %b;", 2, r_min, "s16"),
    T2("min_u32", "min.u32 %d, %a, %b;", 4, r_min, "u32"), T2("min_s32", "min.s32 %d, %a, %b;", 4, r_min, "s32"),
    T2("min_u64", "min.u64 %d, %a, %b;", 8, r_min, "u64"), T2("min_s64", "min.s64 %d, %a, %b;", 8, r_min, "s64"),
    T2("max_u16", "max.u16 %d, %a, %b;", 2, r_max, "u16"), T2("max_s16", "max.s16 %d, %a, %b;", 2, r_max, "s16"),
    T2("max_u32", "max.u32 %d, %a, %b;", 4, r_max, "u32"), T2("max_s32", "max.s32 %d, %a, %b;", 4, r_max, "s32"),
    T2("max_u64", "max.u64 %d, %a, %b;", 8, r_max, "u64"), T2("max_s64", "max.s64 %d, %a, %b;", 8, r_max, "s64"),
    {.name = "min_relu_s32", .ptx = "min.relu.s32 %d, %a, %b;", .dw = 4, .w = {4, 4}, .ref = r_min_relu,
     .user = "s32", .target = "sm_90"},
    {.name = "max_relu_s32", .ptx = "max.relu.s32 %d, %a, %b;", .dw = 4, .w = {4, 4}, .ref = r_max_relu,
     .user = "s32", .target = "sm_90"},
};

/* ---- shifts (ISA 9.7.8.7-8): counts above the width clamp to it ---- */

static const uint64_t shift_counts[] = {0, 1, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128,
                                        255, 256, 0x10000, 0x80000000, 0xffffffff, 0xfffffff0};
static uint64_t r_shl(const conform_op *op, unsigned k, const uint64_t *x)
{
    unsigned n = nbits(op);
    uint64_t c = (uint32_t)x[1];
    return c >= n ? 0 : tr(tr(x[0], n) << c, n);
}
static uint64_t r_shr(const conform_op *op, unsigned k, const uint64_t *x)
{
    unsigned n = nbits(op);
    uint64_t c = (uint32_t)x[1];
    if (c >= n) /* clamped to n: the sign for .s, zero otherwise */
        c = n;
    s128 a = val(op, x[0]);
    return lo(c == n ? (a < 0 ? -1 : 0) : a >> c, n); /* >> of s128: arithmetic */
}
#define SH(nm, text, w_, fn, t) {.name = nm, .ptx = text, .dw = w_, .w = {w_, 4}, .ref = fn, .user = t, \
                                 .edges = {NULL, shift_counts}, .nedges = {0, sizeof shift_counts / 8}}
static const conform_op shift_ops[] = {
    SH("shl_b16", "shl.b16 %d, %a, %b;", 2, r_shl, "b16"), SH("shl_b32", "shl.b32 %d, %a, %b;", 4, r_shl, "b32"),
    SH("shl_b64", "shl.b64 %d, %a, %b;", 8, r_shl, "b64"), SH("shr_b16", "shr.b16 %d, %a, %b;", 2, r_shr, "b16"),
    SH("shr_u16", "shr.u16 %d, %a, %b;", 2, r_shr, "u16"), SH("shr_s16", "shr.s16 %d, %a, %b;", 2, r_shr, "s16"),
    SH("shr_b32", "shr.b32 %d, %a, %b;", 4, r_shr, "b32"), SH("shr_u32", "shr.u32 %d, %a, %b;", 4, r_shr, "u32"),
    SH("shr_s32", "shr.s32 %d, %a, %b;", 4, r_shr, "s32"), SH("shr_b64", "shr.b64 %d, %a, %b;", 8, r_shr, "b64"),
    SH("shr_u64", "shr.u64 %d, %a, %b;", 8, r_shr, "u64"), SH("shr_s64", "shr.s64 %d, %a, %b;", 8, r_shr, "s64"),
};

/* ---- bit fields (ISA 9.7.8.x): pseudo-code transcribed ---- */

static const uint64_t field_edges[] = {0, 1, 2, 7, 8, 15, 16, 24, 30, 31, 32, 33, 40, 62, 63, 64, 65,
                                       127, 128, 200, 255, 256, 257, 0x1ff, 0x11f, 0xffffffff, 0x80000020};
/* pos and len: the low 8 bits for 32-bit fields (ISA); 64-bit fields take
 * the whole 32-bit values, as a GPU does (H200). */
static uint64_t field_arg(const conform_op *op, uint64_t v)
{
    return nbits(op) == 64 ? (uint32_t)v : v & 0xff;
}
static uint64_t r_bfe(const conform_op *op, unsigned k, const uint64_t *x)
{
    unsigned msb = nbits(op) - 1;
    uint64_t a = x[0], pos = field_arg(op, x[1]), len = field_arg(op, x[2]), sbit, d = 0;
    if (!is_s(op) || len == 0)
        sbit = 0;
    else
        sbit = bit(a, (unsigned)(pos + len - 1 < msb ? pos + len - 1 : msb));
    for (unsigned i = 0; i <= msb; i++)
        d |= ((i < len && pos + i <= msb) ? bit(a, (unsigned)(pos + i)) : sbit) << i;
    return d;
}
static uint64_t r_bfi(const conform_op *op, unsigned k, const uint64_t *x)
{
    unsigned msb = nbits(op) - 1;
    uint64_t a = x[0], f = x[1], pos = field_arg(op, x[2]), len = field_arg(op, x[3]);
    for (unsigned i = 0; i < len && pos + i <= msb; i++)
        f = (f & ~(1ull << (pos + i))) | bit(a, i) << (pos + i);
    return f;
}
#define BFE(nm, text, w_, t) {.name = nm, .ptx = text, .dw = w_, .w = {w_, 4, 4}, .ref = r_bfe, .user = t, \
    .edges = {NULL, field_edges, field_edges}, .nedges = {0, sizeof field_edges / 8, sizeof field_edges / 8}}
#define BFI(nm, text, w_, t) {.name = nm, .ptx = text, .dw = w_, .w = {w_, w_, 4, 4}, .ref = r_bfi, .user = t, \
    .edges = {NULL, NULL, field_edges, field_edges}, .nedges = {0, 0, sizeof field_edges / 8, sizeof field_edges / 8}}

/* prmt: the ISA's byte-selection table for the modes (selector c[1:0],
 * result bytes b3..b0) */
static const uint8_t prmt_table[6][4][4] = {
    /* .f4e */ {{3, 2, 1, 0}, {4, 3, 2, 1}, {5, 4, 3, 2}, {6, 5, 4, 3}},
    /* .b4e */ {{5, 6, 7, 0}, {6, 7, 0, 1}, {7, 0, 1, 2}, {0, 1, 2, 3}},
    /* .rc8 */ {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}},
    /* .ecl */ {{3, 2, 1, 0}, {3, 2, 1, 1}, {3, 2, 2, 2}, {3, 3, 3, 3}},
    /* .ecr */ {{0, 0, 0, 0}, {1, 1, 1, 0}, {2, 2, 1, 0}, {3, 2, 1, 0}},
    /* .rc16 */ {{1, 0, 1, 0}, {3, 2, 3, 2}, {1, 0, 1, 0}, {3, 2, 3, 2}},
};
static const char *const prmt_modes[] = {"", ".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16"};
static uint64_t r_prmt(const conform_op *op, unsigned k, const uint64_t *x)
{
    uint64_t src = (x[1] & 0xffffffff) << 32 | (x[0] & 0xffffffff), c = x[2], d = 0;
    for (unsigned i = 0; i < 4; i++) {
        uint64_t byte;
        if (k == 0) { /* generic: a 4-bit selector per byte, msb = replicate the sign */
            unsigned sel = (unsigned)(c >> (4 * i)) & 0xf;
            byte = (src >> (8 * (sel & 7))) & 0xff;
            if (sel & 8)
                byte = byte & 0x80 ? 0xff : 0;
        } else {
            byte = (src >> (8 * prmt_table[k - 1][c & 3][3 - i])) & 0xff;
        }
        d |= byte << (8 * i);
    }
    return d;
}
static const uint64_t prmt_selectors[] = {0x3210, 0x7654, 0x0123, 0x4567, 0x8888, 0xffff, 0x89ab, 0xcdef,
                                          0x1111, 0x5410, 0x7632, 0x0000, 1, 2, 3, 4, 5, 6, 7};
static const uint64_t prmt_bytes[] = {0x80ff7f01, 0x7f80017f, 0x01020304, 0xf0e0d0c0};

static uint64_t r_brev(const conform_op *op, unsigned k, const uint64_t *x)
{
    unsigned n = nbits(op);
    uint64_t d = 0;
    for (unsigned i = 0; i < n; i++)
        d |= bit(x[0], i) << (n - 1 - i);
    return d;
}
static uint64_t r_popc(const conform_op *op, unsigned k, const uint64_t *x)
{
    uint64_t a = tr(x[0], nbits(op)), d = 0;
    for (; a; a >>= 1)
        d += a & 1;
    return d;
}
static uint64_t r_clz(const conform_op *op, unsigned k, const uint64_t *x)
{
    unsigned n = nbits(op), d = 0;
    while (d < n && !bit(x[0], n - 1 - d))
        d++;
    return d;
}
static uint64_t bfind_of(const conform_op *op, const uint64_t *x, bool shiftamt)
{
    unsigned msb = nbits(op) - 1;
    uint64_t a = tr(x[0], msb + 1);
    if (is_s(op) && bit(a, msb))
        a = tr(~a, msb + 1);
    uint64_t d = 0xffffffff;
    for (int i = (int)msb; i >= 0; i--)
        if (bit(a, (unsigned)i)) {
            d = (uint64_t)i;
            break;
        }
    if (shiftamt && d != 0xffffffff)
        d = msb - d;
    return d;
}
static uint64_t r_bfind(const conform_op *op, unsigned k, const uint64_t *x) { return bfind_of(op, x, false); }
static uint64_t r_bfind_sh(const conform_op *op, unsigned k, const uint64_t *x) { return bfind_of(op, x, true); }

/* fns: the n-th set bit of mask from base (base & 31 in the template: a
 * base above 31 is undefined) */
static uint64_t r_fns(const conform_op *op, unsigned k, const uint64_t *x)
{
    uint32_t mask = (uint32_t)x[0];
    int base = (int)(x[1] & 31), offset = (int)(int32_t)(uint32_t)x[2];
    uint64_t d = 0xffffffff;
    if (offset == INT32_MIN) /* 0 on a GPU, whatever the mask (H200) */
        return 0;
    if (offset == 0)
        return bit(mask, (unsigned)base) ? (uint64_t)base : d;
    int pos = base, inc = offset > 0 ? 1 : -1;
    int64_t count = offset > 0 ? (int64_t)offset - 1 : -(int64_t)offset - 1;
    while (pos >= 0 && pos < 32) {
        if (bit(mask, (unsigned)pos)) {
            if (count == 0)
                return (uint64_t)pos;
            count--;
        }
        pos += inc;
    }
    return d;
}
static const uint64_t fns_offsets[] = {0, 1, 2, 3, 16, 31, 32, 33, 0xffffffff, 0xfffffffe, 0xfffffff0,
                                       0xffffffe1, 0xffffffe0, 0x80000000, 0x7fffffff};

/* szext: k = 0 .clamp, 1 .wrap; user gives the type */
static uint64_t r_szext(const conform_op *op, unsigned k, const uint64_t *x)
{
    uint64_t a = (uint32_t)x[0], b = (uint32_t)x[1], b1 = b & 0x1f;
    bool too_large = b >= 32 && k == 0;
    uint64_t mask = too_large ? 0 : (0xffffffffull << b1) & 0xffffffff;
    bool sign = !(b1 == 0 || too_large || !is_s(op)) && bit(a, (unsigned)((b1 - 1) & 0x1f));
    return ((a & ~mask) | (sign ? mask : 0)) & 0xffffffff;
}
/* bmsk: k = 0 .clamp, 1 .wrap */
static uint64_t r_bmsk(const conform_op *op, unsigned k, const uint64_t *x)
{
    uint64_t a = (uint32_t)x[0], b = (uint32_t)x[1];
    uint64_t a1 = a & 0x1f, b1 = b & 0x1f, sum = a1 + b1;
    uint64_t mask0 = (0xffffffffull << a1) & 0xffffffff;
    uint64_t mask1 = sum >= 32 ? 0 : (0xffffffffull << sum) & 0xffffffff;
    bool pos_over = false, width_over = false;
    if (k == 0) {
        if (a >= 32)
            pos_over = true, mask0 = 0;
        if (b >= 32)
            width_over = true;
    }
    if (sum >= 32 || pos_over || width_over)
        mask1 = 0;
    else if (b1 == 0)
        mask1 = 0xffffffff;
    return mask0 & ~mask1 & 0xffffffff;
}
static const char *const clamp_wrap[] = {".clamp", ".wrap"};

/* shf: k = 0 .l.clamp, 1 .l.wrap, 2 .r.clamp, 3 .r.wrap */
static const char *const shf_modes[] = {".l.clamp", ".l.wrap", ".r.clamp", ".r.wrap"};
static uint64_t r_shf(const conform_op *op, unsigned k, const uint64_t *x)
{
    uint64_t a = (uint32_t)x[0], b = (uint32_t)x[1], c = (uint32_t)x[2];
    uint64_t n = (k & 1) ? c & 0x1f : (c < 32 ? c : 32);
    uint64_t ba = b << 32 | a; /* the concatenation [b, a] */
    return k < 2 ? (uint32_t)((ba << n) >> 32) : (uint32_t)(ba >> n);
}

/* lop3: result bit i is immLut bit (a_i << 2 | b_i << 1 | c_i), from
 * immLut = F(0xF0, 0xCC, 0xAA) */
static uint64_t r_lop3(const conform_op *op, unsigned k, const uint64_t *x)
{
    uint64_t d = 0;
    for (unsigned i = 0; i < 32; i++)
        d |= ((k >> (bit(x[0], i) << 2 | bit(x[1], i) << 1 | bit(x[2], i))) & 1) << i;
    return d;
}
static const unsigned lop3_some[] = {0x00, 0xff, 0x80, 0xfe, 0x96, 0xe8, 0x1a, 0xca, 0xf0, 0xcc, 0xaa, 0x6a};
static uint64_t r_lop3_some(const conform_op *op, unsigned k, const uint64_t *x) { return r_lop3(op, lop3_some[k], x); }
static const char *lop3_some_text[sizeof lop3_some / sizeof lop3_some[0]];

/* dp4a / dp2a (ISA 9.7.1.23-24); user: "uu", "us", "su", "ss" (a, b signedness) */
static int64_t part(uint64_t v, unsigned i, unsigned w, bool s)
{
    uint64_t p = (v >> (i * w)) & mask_of(w);
    return s ? sx(p, w) : (int64_t)p;
}
static uint64_t r_dp4a(const conform_op *op, unsigned k, const uint64_t *x)
{
    const char *t = op->user;
    int64_t d = (int64_t)(uint32_t)x[2];
    for (unsigned i = 0; i < 4; i++)
        d += part(x[0], i, 8, t[0] == 's') * part(x[1], i, 8, t[1] == 's');
    return (uint64_t)d & 0xffffffff;
}
/* k = 0 .lo (bytes 0,1 of b), 1 .hi (bytes 2,3) */
static uint64_t r_dp2a(const conform_op *op, unsigned k, const uint64_t *x)
{
    const char *t = op->user;
    int64_t d = (int64_t)(uint32_t)x[2];
    for (unsigned i = 0; i < 2; i++)
        d += part(x[0], i, 16, t[0] == 's') * part(x[1], 2 * k + i, 8, t[1] == 's');
    return (uint64_t)d & 0xffffffff;
}
static const char *const lo_hi[] = {".lo", ".hi"};

/* sad: c + |a - b| */
static uint64_t r_sad(const conform_op *op, unsigned k, const uint64_t *x)
{
    s128 a = val(op, x[0]), b = val(op, x[1]);
    return lo((a < b ? b - a : a - b) + val(op, x[2]), nbits(op));
}

#define SW(nm, text, dw_, w0, w1, w2, fn, t, n, ks) {.name = nm, .ptx = text, .dw = dw_, .w = {w0, w1, w2}, \
    .ref = fn, .user = t, .nk = n, .kstr = ks}

static const conform_op bits_ops[] = {
    BFE("bfe_u32", "bfe.u32 %d, %a, %b, %c;", 4, "u32"), BFE("bfe_s32", "bfe.s32 %d, %a, %b, %c;", 4, "s32"),
    BFE("bfe_u64", "bfe.u64 %d, %a, %b, %c;", 8, "u64"), BFE("bfe_s64", "bfe.s64 %d, %a, %b, %c;", 8, "s64"),
    BFI("bfi_b32", "bfi.b32 %d, %a, %b, %c, %e;", 4, "b32"), BFI("bfi_b64", "bfi.b64 %d, %a, %b, %c, %e;", 8, "b64"),
    {.name = "prmt", .ptx = "prmt.b32%k %d, %a, %b, %c;", .dw = 4, .w = {4, 4, 4}, .ref = r_prmt, .nk = 7,
     .kstr = prmt_modes, .edges = {prmt_bytes, prmt_bytes, prmt_selectors},
     .nedges = {4, 4, sizeof prmt_selectors / 8}},
    T1("brev_b32", "brev.b32 %d, %a;", 4, r_brev, "b32"), T1("brev_b64", "brev.b64 %d, %a;", 8, r_brev, "b64"),
    SW("popc_b32", "popc.b32 %d, %a;", 4, 4, 0, 0, r_popc, "b32", 0, NULL),
    SW("popc_b64", "popc.b64 %d, %a;", 4, 8, 0, 0, r_popc, "b64", 0, NULL),
    SW("clz_b32", "clz.b32 %d, %a;", 4, 4, 0, 0, r_clz, "b32", 0, NULL),
    SW("clz_b64", "clz.b64 %d, %a;", 4, 8, 0, 0, r_clz, "b64", 0, NULL),
    SW("bfind_u32", "bfind.u32 %d, %a;", 4, 4, 0, 0, r_bfind, "u32", 0, NULL),
    SW("bfind_s32", "bfind.s32 %d, %a;", 4, 4, 0, 0, r_bfind, "s32", 0, NULL),
    SW("bfind_u64", "bfind.u64 %d, %a;", 4, 8, 0, 0, r_bfind, "u64", 0, NULL),
    SW("bfind_s64", "bfind.s64 %d, %a;", 4, 8, 0, 0, r_bfind, "s64", 0, NULL),
    SW("bfind_shiftamt_u32", "bfind.shiftamt.u32 %d, %a;", 4, 4, 0, 0, r_bfind_sh, "u32", 0, NULL),
    SW("bfind_shiftamt_s32", "bfind.shiftamt.s32 %d, %a;", 4, 4, 0, 0, r_bfind_sh, "s32", 0, NULL),
    SW("bfind_shiftamt_u64", "bfind.shiftamt.u64 %d, %a;", 4, 8, 0, 0, r_bfind_sh, "u64", 0, NULL),
    SW("bfind_shiftamt_s64", "bfind.shiftamt.s64 %d, %a;", 4, 8, 0, 0, r_bfind_sh, "s64", 0, NULL),
    {.name = "fns", .ptx = "{ .reg .b32 %base; %g and.b32 %base, %b, 31; %g fns.b32 %d, %a, %base, %c; }", .dw = 4,
     .w = {4, 4, 4}, .ref = r_fns, .edges = {NULL, NULL, fns_offsets}, .nedges = {0, 0, sizeof fns_offsets / 8}},
    {.name = "szext_u32", .ptx = "szext%k.u32 %d, %a, %b;", .dw = 4, .w = {4, 4}, .ref = r_szext, .user = "u32",
     .nk = 2, .kstr = clamp_wrap, .edges = {NULL, field_edges}, .nedges = {0, sizeof field_edges / 8}},
    {.name = "szext_s32", .ptx = "szext%k.s32 %d, %a, %b;", .dw = 4, .w = {4, 4}, .ref = r_szext, .user = "s32",
     .nk = 2, .kstr = clamp_wrap, .edges = {NULL, field_edges}, .nedges = {0, sizeof field_edges / 8}},
    {.name = "bmsk", .ptx = "bmsk%k.b32 %d, %a, %b;", .dw = 4, .w = {4, 4}, .ref = r_bmsk, .nk = 2, .kstr = clamp_wrap,
     .edges = {field_edges, field_edges}, .nedges = {sizeof field_edges / 8, sizeof field_edges / 8}},
    {.name = "shf", .ptx = "shf%k.b32 %d, %a, %b, %c;", .dw = 4, .w = {4, 4, 4}, .ref = r_shf, .nk = 4,
     .kstr = shf_modes, .edges = {NULL, NULL, shift_counts}, .nedges = {0, 0, sizeof shift_counts / 8}},
    {.name = "dp4a_uu", .ptx = "dp4a.u32.u32 %d, %a, %b, %c;", .dw = 4, .w = {4, 4, 4}, .ref = r_dp4a, .user = "uu"},
    {.name = "dp4a_us", .ptx = "dp4a.u32.s32 %d, %a, %b, %c;", .dw = 4, .w = {4, 4, 4}, .ref = r_dp4a, .user = "us"},
    {.name = "dp4a_su", .ptx = "dp4a.s32.u32 %d, %a, %b, %c;", .dw = 4, .w = {4, 4, 4}, .ref = r_dp4a, .user = "su"},
    {.name = "dp4a_ss", .ptx = "dp4a.s32.s32 %d, %a, %b, %c;", .dw = 4, .w = {4, 4, 4}, .ref = r_dp4a, .user = "ss"},
    SW("dp2a_uu", "dp2a%k.u32.u32 %d, %a, %b, %c;", 4, 4, 4, 4, r_dp2a, "uu", 2, lo_hi),
    SW("dp2a_us", "dp2a%k.u32.s32 %d, %a, %b, %c;", 4, 4, 4, 4, r_dp2a, "us", 2, lo_hi),
    SW("dp2a_su", "dp2a%k.s32.u32 %d, %a, %b, %c;", 4, 4, 4, 4, r_dp2a, "su", 2, lo_hi),
    SW("dp2a_ss", "dp2a%k.s32.s32 %d, %a, %b, %c;", 4, 4, 4, 4, r_dp2a, "ss", 2, lo_hi),
    T3("sad_u16", "sad.u16 %d, %a, %b, %c;", 2, r_sad, "u16"), T3("sad_s16", "sad.s16 %d, %a, %b, %c;", 2, r_sad, "s16"),
    T3("sad_u32", "sad.u32 %d, %a, %b, %c;", 4, r_sad, "u32"), T3("sad_s32", "sad.s32 %d, %a, %b, %c;", 4, r_sad, "s32"),
    T3("sad_u64", "sad.u64 %d, %a, %b, %c;", 8, r_sad, "u64"), T3("sad_s64", "sad.s64 %d, %a, %b, %c;", 8, r_sad, "s64"),
};

/* lop3: every LUT, four per kernel (result byte j from LUT 4k + j: the
 * operation is bitwise, so each LUT meets every input combination on its
 * eight bits over the threads), plus some LUTs alone in all three modes */
static uint64_t r_lop3_x4(const conform_op *op, unsigned k, const uint64_t *x)
{
    uint64_t d = 0;
    for (unsigned j = 0; j < 4; j++)
        d |= r_lop3(op, 4 * k + j, x) & (0xffull << (8 * j));
    return d;
}
static char lop3_x4_text[64][256];
static const char *lop3_x4_ptr[64];
static conform_op lop3_ops[] = {
    {.name = "lop3_all", .ptx = "{ .reg .b32 %l0, %l1, %l2, %l3; %k %g and.b32 %l0, %l0, 0xff;"
     " %g and.b32 %l1, %l1, 0xff00; %g and.b32 %l2, %l2, 0xff0000; %g and.b32 %l3, %l3, 0xff000000;"
     " %g or.b32 %l0, %l0, %l1; %g or.b32 %l2, %l2, %l3; %g or.b32 %d, %l0, %l2; }", .dw = 4, .w = {4, 4, 4},
     .ref = r_lop3_x4, .nk = 64, .kstr = lop3_x4_ptr, .nrandom = 1000},
    {.name = "lop3_modes", .ptx = "lop3.b32 %d, %a, %b, %c, %k;", .dw = 4, .w = {4, 4, 4}, .ref = r_lop3_some,
     .nk = sizeof lop3_some / sizeof lop3_some[0], .kstr = lop3_some_text, .nrandom = 1000,
     .modes = CONFORM_EVERY_K},
};

static void lop3_texts(void)
{
    static char some[sizeof lop3_some / sizeof lop3_some[0]][8];
    for (unsigned k = 0; k < 64; k++) {
        size_t n = 0;
        for (unsigned j = 0; j < 4; j++)
            n += (size_t)snprintf(lop3_x4_text[k] + n, sizeof lop3_x4_text[k] - n,
                                  "%%g lop3.b32 %%l%u, %%a, %%b, %%c, 0x%02x; ", j, 4 * k + j);
        lop3_x4_ptr[k] = lop3_x4_text[k];
    }
    for (unsigned k = 0; k < sizeof lop3_some / sizeof lop3_some[0]; k++)
        snprintf(some[k], sizeof some[k], "0x%02x", lop3_some[k]), lop3_some_text[k] = some[k];
}

/* ---- logic, compares, selects ---- */

static uint64_t r_and(const conform_op *op, unsigned k, const uint64_t *x) { return tr(x[0] & x[1], nbits(op)); }
static uint64_t r_or(const conform_op *op, unsigned k, const uint64_t *x) { return tr(x[0] | x[1], nbits(op)); }
static uint64_t r_xor(const conform_op *op, unsigned k, const uint64_t *x) { return tr(x[0] ^ x[1], nbits(op)); }
static uint64_t r_not(const conform_op *op, unsigned k, const uint64_t *x) { return tr(~x[0], nbits(op)); }
static uint64_t r_cnot(const conform_op *op, unsigned k, const uint64_t *x) { return tr(x[0], nbits(op)) == 0; }

/* predicates from the low bits of a and b: k = 0 and, 1 or, 2 xor, 3 not a
 * (cnot takes no .pred: ptxas refuses it) */
static const char *const pred_ops_text[] = {"and.pred %r, %p, %q;", "or.pred %r, %p, %q;", "xor.pred %r, %p, %q;",
                                            "not.pred %r, %p;"};
static uint64_t r_pred(const conform_op *op, unsigned k, const uint64_t *x)
{
    bool p = x[0] & 1, q = x[1] & 1;
    switch (k) {
    case 0: return p && q;
    case 1: return p || q;
    case 2: return p != q;
    default: return !p;
    }
}

/* integer compare operators; the sweep covers the ones valid for the type */
static const char *const cmp_text[] = {"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"};
static bool cmp(const conform_op *op, unsigned k, const uint64_t *x)
{
    s128 a = val(op, x[0]), b = val(op, x[1]);
    uint64_t ua = tr(x[0], nbits(op)), ub = tr(x[1], nbits(op));
    switch (k) {
    case 0: return a == b;
    case 1: return a != b;
    case 2: return a < b;
    case 3: return a <= b;
    case 4: return a > b;
    case 5: return a >= b;
    case 6: return ua < ub;
    case 7: return ua <= ub;
    case 8: return ua > ub;
    default: return ua >= ub;
    }
}
static uint64_t r_setp(const conform_op *op, unsigned k, const uint64_t *x) { return cmp(op, k, x); }
/* set.CmpOp.u32: all ones when true */
static uint64_t r_set(const conform_op *op, unsigned k, const uint64_t *x) { return cmp(op, k, x) ? 0xffffffff : 0; }
/* set.CmpOp.f32: 1.0f when true */
static uint64_t r_set_f32(const conform_op *op, unsigned k, const uint64_t *x) { return cmp(op, k, x) ? 0x3f800000 : 0; }
/* setp.CmpOp.BoolOp p|q, a, b, c: p = (a cmp b) op c, q = !(a cmp b) op c;
 * k = 0 .and, 1 .or, 2 .xor; the result is p | q << 1 (lt, signed) */
static const char *const bool_text[] = {"and", "or", "xor"};
static uint64_t r_setp_bool(const conform_op *op, unsigned k, const uint64_t *x)
{
    bool t = val(op, x[0]) < val(op, x[1]), c = x[2] & 1, p, q;
    switch (k) {
    case 0: p = t && c, q = !t && c; break;
    case 1: p = t || c, q = !t || c; break;
    default: p = t != c, q = !t != c; break;
    }
    return (uint64_t)p | (uint64_t)q << 1;
}
/* set.lt.BoolOp.u32.s32 d, a, b, !c */
static uint64_t r_set_bool(const conform_op *op, unsigned k, const uint64_t *x)
{
    bool t = val(op, x[0]) < val(op, x[1]), c = !(x[2] & 1), r;
    r = k == 0 ? t && c : k == 1 ? t || c : t != c;
    return r ? 0xffffffff : 0;
}
static uint64_t r_selp(const conform_op *op, unsigned k, const uint64_t *x) { return (x[2] & 1) ? x[0] : x[1]; }
/* slct: c >= 0 ? a : b, c signed integer */
static uint64_t r_slct_s(const conform_op *op, unsigned k, const uint64_t *x)
{
    return sx(x[2], 32) >= 0 ? tr(x[0], nbits(op)) : tr(x[1], nbits(op));
}
/* slct with f32 c: c >= 0.0 (so -0 selects a, NaN selects b); .ftz flushes a
 * subnormal c to zero first (k = 1) */
static uint64_t r_slct_f(const conform_op *op, unsigned k, const uint64_t *x)
{
    uint32_t c = (uint32_t)x[2];
    bool neg = c >> 31, nan = (c & 0x7fffffff) > 0x7f800000, zero = (c & 0x7fffffff) == 0;
    bool subnormal = !zero && (c & 0x7f800000) == 0;
    bool ge = !nan && (!neg || zero || (k == 1 && subnormal));
    return ge ? (uint32_t)x[0] : (uint32_t)x[1];
}
static const char *const ftz_text[] = {"", ".ftz"};
static const uint64_t float_edges[] = {0x80000000, 0x00000001, 0x80000001, 0x007fffff, 0x807fffff, 0x00800000,
                                       0x80800000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001,
                                       0x3f800000, 0xbf800000};

#define PRED(nm, text, fn, n, ks) {.name = nm, .ptx = text, .dw = 4, .w = {4, 4}, .ref = fn, .nk = n, .kstr = ks}
#define SETP(nm, text, w_, t, n) {.name = nm, .ptx = text, .dw = 4, .w = {w_, w_}, .ref = r_setp, .user = t, \
                                  .nk = n, .kstr = cmp_text, .nrandom = 1500}
#define SETP_TEXT(t) "{ .reg .pred %q; %g setp.%k." t " %q, %a, %b; %g selp.b32 %d, 1, 0, %q; }"

static const conform_op logic_ops[] = {
    T2("and_b16", "and.b16 %d, %a, %b;", 2, r_and, "b16"), T2("and_b32", "and.b32 %d, %a, %b;", 4, r_and, "b32"),
    T2("and_b64", "and.b64 %d, %a, %b;", 8, r_and, "b64"), T2("or_b16", "or.b16 %d, %a, %b;", 2, r_or, "b16"),
    T2("or_b32", "or.b32 %d, %a, %b;", 4, r_or, "b32"), T2("or_b64", "or.b64 %d, %a, %b;", 8, r_or, "b64"),
    T2("xor_b16", "xor.b16 %d, %a, %b;", 2, r_xor, "b16"), T2("xor_b32", "xor.b32 %d, %a, %b;", 4, r_xor, "b32"),
    T2("xor_b64", "xor.b64 %d, %a, %b;", 8, r_xor, "b64"), T1("not_b16", "not.b16 %d, %a;", 2, r_not, "b16"),
    T1("not_b32", "not.b32 %d, %a;", 4, r_not, "b32"), T1("not_b64", "not.b64 %d, %a;", 8, r_not, "b64"),
    T1("cnot_b16", "cnot.b16 %d, %a;", 2, r_cnot, "b16"), T1("cnot_b32", "cnot.b32 %d, %a;", 4, r_cnot, "b32"),
    T1("cnot_b64", "cnot.b64 %d, %a;", 8, r_cnot, "b64"),
    PRED("pred_logic", "{ .reg .b32 %t; .reg .pred %p, %q, %r; and.b32 %t, %a, 1; setp.ne.b32 %p, %t, 0;"
         " and.b32 %t, %b, 1; setp.ne.b32 %q, %t, 0; %g %k %g selp.b32 %d, 1, 0, %r; }", r_pred, 4, pred_ops_text),
    SETP("setp_u16", SETP_TEXT("u16"), 2, "u16", 10), SETP("setp_s16", SETP_TEXT("s16"), 2, "s16", 6),
    SETP("setp_b16", SETP_TEXT("b16"), 2, "b16", 2), SETP("setp_u32", SETP_TEXT("u32"), 4, "u32", 10),
    SETP("setp_s32", SETP_TEXT("s32"), 4, "s32", 6), SETP("setp_b32", SETP_TEXT("b32"), 4, "b32", 2),
    SETP("setp_u64", SETP_TEXT("u64"), 8, "u64", 10), SETP("setp_s64", SETP_TEXT("s64"), 8, "s64", 6),
    SETP("setp_b64", SETP_TEXT("b64"), 8, "b64", 2),
    {.name = "setp_bool_pair", .ptx = "{ .reg .b32 %t, %x, %y; .reg .pred %cp, %p, %q; and.b32 %t, %c, 1;"
     " setp.ne.b32 %cp, %t, 0; %g setp.lt.%k.s32 %p|%q, %a, %b, %cp; %g selp.b32 %x, 1, 0, %p;"
     " %g selp.b32 %y, 2, 0, %q; %g or.b32 %d, %x, %y; }", .dw = 4, .w = {4, 4, 4}, .ref = r_setp_bool,
     .user = "s32", .nk = 3, .kstr = bool_text},
    {.name = "set_u32_s32", .ptx = "set.%k.u32.s32 %d, %a, %b;", .dw = 4, .w = {4, 4}, .ref = r_set, .user = "s32",
     .nk = 6, .kstr = cmp_text, .nrandom = 1500},
    {.name = "set_s32_u64", .ptx = "set.%k.s32.u64 %d, %a, %b;", .dw = 4, .w = {8, 8}, .ref = r_set, .user = "u64",
     .nk = 10, .kstr = cmp_text, .nrandom = 1500},
    {.name = "set_f32_u16", .ptx = "set.%k.f32.u16 %d, %a, %b;", .dw = 4, .w = {2, 2}, .ref = r_set_f32,
     .user = "u16", .nk = 10, .kstr = cmp_text, .nrandom = 1500},
    {.name = "set_bool", .ptx = "{ .reg .b32 %t; .reg .pred %cp; and.b32 %t, %c, 1; setp.ne.b32 %cp, %t, 0;"
     " %g set.lt.%k.u32.s32 %d, %a, %b, !%cp; }", .dw = 4, .w = {4, 4, 4}, .ref = r_set_bool, .user = "s32",
     .nk = 3, .kstr = bool_text},
    {.name = "selp_b16", .ptx = "{ .reg .b32 %t; .reg .pred %q; and.b32 %t, %c, 1; setp.ne.b32 %q, %t, 0;"
     " %g selp.b16 %d, %a, %b, %q; }", .dw = 2, .w = {2, 2, 4}, .ref = r_selp},
    {.name = "selp_s32", .ptx = "{ .reg .b32 %t; .reg .pred %q; and.b32 %t, %c, 1; setp.ne.b32 %q, %t, 0;"
     " %g selp.s32 %d, %a, %b, %q; }", .dw = 4, .w = {4, 4, 4}, .ref = r_selp},
    {.name = "selp_u64", .ptx = "{ .reg .b32 %t; .reg .pred %q; and.b32 %t, %c, 1; setp.ne.b32 %q, %t, 0;"
     " %g selp.u64 %d, %a, %b, %q; }", .dw = 8, .w = {8, 8, 4}, .ref = r_selp},
    {.name = "slct_b16_s32", .ptx = "slct.b16.s32 %d, %a, %b, %c;", .dw = 2, .w = {2, 2, 4}, .ref = r_slct_s,
     .user = "b16"},
    {.name = "slct_s32_s32", .ptx = "slct.s32.s32 %d, %a, %b, %c;", .dw = 4, .w = {4, 4, 4}, .ref = r_slct_s,
     .user = "s32"},
    {.name = "slct_u64_s32", .ptx = "slct.u64.s32 %d, %a, %b, %c;", .dw = 8, .w = {8, 8, 4}, .ref = r_slct_s,
     .user = "u64"},
    {.name = "slct_b32_f32", .ptx = "slct%k.b32.f32 %d, %a, %b, %c;", .dw = 4, .w = {4, 4, 4}, .ref = r_slct_f,
     .nk = 2, .kstr = ftz_text, .edges = {NULL, NULL, float_edges}, .nedges = {0, 0, sizeof float_edges / 8}},
};

/* ---- cvt between integer types (ISA 9.7.9.21): the source read as its
 * type, clamped to the destination's range with .sat, then cut to the
 * destination type and extended to the register by its signedness ---- */

typedef struct cvt_spec {
    const char *dt, *st;
    bool sat;
} cvt_spec;
static uint64_t r_cvt(const conform_op *op, unsigned k, const uint64_t *x)
{
    const cvt_spec *c = op->user;
    unsigned sb = (unsigned)atoi(c->st + 1), db = (unsigned)atoi(c->dt + 1);
    s128 v = c->st[0] == 's' ? (s128)sx(x[0], sb) : (s128)tr(x[0], sb);
    if (c->sat)
        v = c->dt[0] == 's' ? clamp(v, smin_of(db), smax_of(db)) : clamp(v, 0, (s128)mask_of(db));
    uint64_t d = lo(v, db);
    return c->dt[0] == 's' ? (uint64_t)sx(d, db) : d; /* the register may be wider */
}
#define CVT(nm, text, dw_, w_, d_, s_, sat_) {.name = nm, .ptx = text, .dw = dw_, .w = {w_}, .ref = r_cvt, \
    .user = &(const cvt_spec){d_, s_, sat_}}
static const conform_op cvt_ops[] = {
    CVT("cvt_s32_s16", "cvt.s32.s16 %d, %a;", 4, 2, "s32", "s16", false),
    CVT("cvt_u32_u16", "cvt.u32.u16 %d, %a;", 4, 2, "u32", "u16", false),
    CVT("cvt_s64_s32", "cvt.s64.s32 %d, %a;", 8, 4, "s64", "s32", false),
    CVT("cvt_u64_s32", "cvt.u64.s32 %d, %a;", 8, 4, "u64", "s32", false),
    CVT("cvt_u16_u32", "cvt.u16.u32 %d, %a;", 2, 4, "u16", "u32", false),
    CVT("cvt_s32_u64", "cvt.s32.u64 %d, %a;", 4, 8, "s32", "u64", false),
    CVT("cvt_s8_s32", "cvt.s8.s32 %d, %a;", 4, 4, "s8", "s32", false),
    CVT("cvt_u8_s64", "cvt.u8.s64 %d, %a;", 2, 8, "u8", "s64", false),
    CVT("cvt_sat_u8_s32", "cvt.sat.u8.s32 %d, %a;", 4, 4, "u8", "s32", true),
    CVT("cvt_sat_s8_s32", "cvt.sat.s8.s32 %d, %a;", 4, 4, "s8", "s32", true),
    CVT("cvt_sat_s8_u16", "cvt.sat.s8.u16 %d, %a;", 2, 2, "s8", "u16", true),
    CVT("cvt_sat_s16_u32", "cvt.sat.s16.u32 %d, %a;", 2, 4, "s16", "u32", true),
    CVT("cvt_sat_u16_s16", "cvt.sat.u16.s16 %d, %a;", 2, 2, "u16", "s16", true),
    CVT("cvt_sat_u32_s32", "cvt.sat.u32.s32 %d, %a;", 4, 4, "u32", "s32", true),
    CVT("cvt_sat_s32_u32", "cvt.sat.s32.u32 %d, %a;", 4, 4, "s32", "u32", true),
    CVT("cvt_sat_s32_s64", "cvt.sat.s32.s64 %d, %a;", 4, 8, "s32", "s64", true),
    CVT("cvt_sat_u32_s64", "cvt.sat.u32.s64 %d, %a;", 4, 8, "u32", "s64", true),
    CVT("cvt_sat_u16_u64", "cvt.sat.u16.u64 %d, %a;", 2, 8, "u16", "u64", true),
    CVT("cvt_sat_u64_s64", "cvt.sat.u64.s64 %d, %a;", 8, 8, "u64", "s64", true),
    CVT("cvt_sat_s64_u64", "cvt.sat.s64.u64 %d, %a;", 8, 8, "s64", "u64", true),
};

/* ---- the families ---- */

typedef struct family {
    const char *name;
    const conform_op *ops;
    size_t n;
} family;

#define FAM(nm, arr) {nm, arr, sizeof arr / sizeof arr[0]}
static const family families[] = {
    FAM("add_sub", add_sub_ops), FAM("simd16x2", simd16x2_ops), FAM("mul", mul_ops), FAM("mad", mad_ops),
    FAM("carry", carry_ops), FAM("div_rem", div_ops), FAM("minmax", minmax_ops), FAM("shift", shift_ops),
    FAM("bits", bits_ops), FAM("lop3", lop3_ops), FAM("logic", logic_ops), FAM("cvt", cvt_ops),
    FAM("nvcc", conform_int_nvcc_ops),
};
enum { NFAMILIES = sizeof families / sizeof families[0] };

static conform_suite suite(void)
{
    conform_suite s = {.name = "int", .version = "8.0", .target = "sm_80", .dir = PTXJIT_TEST_DIR, .workers = 2};
    return s;
}

static void run_family(const char *name)
{
    conform_suite s = suite();
    for (int i = 0; i < NFAMILIES; i++) {
        if (strcmp(families[i].name, name))
            continue;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        int bad = conform_run(&s, families[i].ops, families[i].n);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        printf("%s: %zu ops in %.2f s\n", name, families[i].n,
               (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
        assert_int_equal(bad, 0);
    }
}

#define FAMILY_TEST(nm) static void test_##nm(void **state) { (void)state; run_family(#nm); }
FAMILY_TEST(add_sub)
FAMILY_TEST(simd16x2)
FAMILY_TEST(mul)
FAMILY_TEST(mad)
FAMILY_TEST(carry)
FAMILY_TEST(div_rem)
FAMILY_TEST(minmax)
FAMILY_TEST(shift)
FAMILY_TEST(bits)
FAMILY_TEST(lop3)
FAMILY_TEST(nvcc)
FAMILY_TEST(logic)
FAMILY_TEST(cvt)

/* The recorded GPU outputs, when present, against the references. */
static void test_gpu_results(void **state)
{
    (void)state;
    const char *env = getenv("PTXJIT_GPU_RESULTS");
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", env && *env ? env : PTXJIT_TEST_DIR "/gpu/results");
    conform_suite s = suite();
    unsigned checked = 0, stale = 0, c, st;
    int bad = 0;
    for (int i = 0; i < NFAMILIES; i++) {
        int r = conform_check_gpu(&s, families[i].ops, families[i].n, dir, &c, &st);
        if (r < 0) {
            printf("no GPU results in %s/int (record them with scripts/gpu-crosscheck.sh on a machine "
                   "with an NVIDIA GPU); skipping\n", dir);
            skip();
        }
        bad += r, checked += c, stale += st;
    }
    printf("GPU results: %u kernels compared, %u missing or stale\n", checked, stale);
    assert_int_equal(bad, 0);
}

static int emit_all(const char *dir)
{
    conform_suite s = suite();
    size_t n = 0, k = 0;
    for (int i = 0; i < NFAMILIES; i++)
        n += families[i].n;
    conform_op *all = malloc(n * sizeof *all);
    for (int i = 0; i < NFAMILIES; i++)
        for (size_t j = 0; j < families[i].n; j++)
            all[k++] = families[i].ops[j];
    char sub[1024];
    snprintf(sub, sizeof sub, "%s/%s", dir, s.name);
    int bad = conform_emit(&s, all, n, sub);
    free(all);
    return bad;
}

int main(int argc, char **argv)
{
    lop3_texts();
    if (argc == 3 && !strcmp(argv[1], "--emit"))
        return emit_all(argv[2]) ? 1 : 0;
    if (argc == 3 && !strcmp(argv[1], "--check-gpu")) { /* only the GPU comparison */
        setenv("PTXJIT_GPU_RESULTS", argv[2], 1);
        const struct CMUnitTest gpu[] = {cmocka_unit_test(test_gpu_results)};
        return cmocka_run_group_tests_name("conform_int_gpu", gpu, NULL, NULL);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_add_sub), cmocka_unit_test(test_simd16x2), cmocka_unit_test(test_mul),
        cmocka_unit_test(test_mad),     cmocka_unit_test(test_carry),    cmocka_unit_test(test_div_rem),
        cmocka_unit_test(test_minmax),  cmocka_unit_test(test_shift),    cmocka_unit_test(test_bits),
        cmocka_unit_test(test_lop3),    cmocka_unit_test(test_logic),    cmocka_unit_test(test_cvt),
        cmocka_unit_test(test_nvcc),
        cmocka_unit_test(test_gpu_results),
    };
    return cmocka_run_group_tests_name("conform_int", tests, NULL, NULL);
}
