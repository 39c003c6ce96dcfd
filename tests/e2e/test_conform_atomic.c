/* test_conform_atomic.c - atom and red, every operation and type the ISA
 * defines, run through the whole pipeline and checked against C references
 * written from the PTX ISA pseudo-code:
 *
 *   add: wraps (integers); f32 rounds to nearest even and, on global
 *        memory only, flushes subnormal inputs and results to signed zero;
 *        f64, f16, bf16 and the packed pairs round to nearest even without
 *        flushing (.noftz); a NaN result is any NaN
 *   inc: old >= b ? 0 : old + 1      dec: old == 0 || old > b ? b : old - 1
 *   min/max signed or unsigned, and/or/xor, exch, cas: old == b ? c : old
 *
 * Each (operation, type) runs in .global, .shared and generic kernels (the
 * generic one on a global or a cvta.shared address), 3 CTAs of 100 threads
 * (so every CTA ends with a partial warp), with lanes disabled by a guard
 * predicate or by a divergent branch, on 1 and 2 worker threads, with:
 *   - every lane on its own address, memory and operand drawn from edge
 *     values (NaN, +-0, +-inf, subnormals, INT_MIN, wrap points): each
 *     result is exactly the reference applied once;
 *   - every lane on one address (the warp-aggregated path) and lanes in
 *     overlapping groups: the returned old values must be explained by one
 *     serial order that keeps each warp's lanes in lane order (a search over
 *     interleavings of the warps), ending in the final memory value; red's
 *     final value is the fold of the operands (chosen order-independent).
 * Lanes that do not execute keep their destination; untouched memory stays.
 * Debugging: ATOM_ONLY=add.f32 runs one case, ATOM_DEBUG=1 prints the
 * operations of a cell without a serial order, ATOM_DUMP=FILE writes the
 * generated module. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "conform.h"
#include "ptxjit/ptxjit.h"

enum { GRID = 3, BLOCK = 100, N = GRID * BLOCK, WARPS = GRID * 4, NS = 320 };

/* ---- values up to 128 bits ---- */

typedef struct val {
    uint64_t lo, hi;
} val;

typedef enum { T_U32, T_S32, T_U64, T_S64, T_B16, T_B32, T_B64, T_B128, T_F32, T_F64, T_F16, T_BF16,
               T_F16X2, T_BF16X2 } tkind;

typedef struct acase {
    const char *op, *ty;
    tkind t;
} acase;

static const acase cases[] = {
    {"add", "u32", T_U32},      {"add", "s32", T_S32},     {"add", "u64", T_U64},
    {"add", "f32", T_F32},      {"add", "f64", T_F64},     {"add", "f16", T_F16},
    {"add", "bf16", T_BF16},    {"add", "f16x2", T_F16X2}, {"add", "bf16x2", T_BF16X2},
    {"min", "u32", T_U32},      {"min", "s32", T_S32},     {"min", "u64", T_U64},
    {"min", "s64", T_S64},      {"max", "u32", T_U32},     {"max", "s32", T_S32},
    {"max", "u64", T_U64},      {"max", "s64", T_S64},     {"inc", "u32", T_U32},
    {"dec", "u32", T_U32},      {"and", "b32", T_B32},     {"and", "b64", T_B64},
    {"or", "b32", T_B32},       {"or", "b64", T_B64},      {"xor", "b32", T_B32},
    {"xor", "b64", T_B64},      {"exch", "b32", T_B32},    {"exch", "b64", T_B64},
    {"exch", "b128", T_B128},   {"cas", "b16", T_B16},     {"cas", "b32", T_B32},
    {"cas", "b64", T_B64},      {"cas", "b128", T_B128},
};
enum { NCASES = sizeof cases / sizeof cases[0] };

static unsigned tsize(tkind t)
{
    switch (t) {
    case T_B16: case T_F16: case T_BF16: return 2;
    case T_U64: case T_S64: case T_B64: case T_F64: return 8;
    case T_B128: return 16;
    default: return 4;
    }
}

static bool has_red(const acase *c) { return strcmp(c->op, "exch") && strcmp(c->op, "cas"); }
static bool is_halfish(tkind t) { return t == T_F16 || t == T_BF16 || t == T_F16X2 || t == T_BF16X2; }

static val trunc_to(tkind t, val v)
{
    unsigned s = tsize(t);
    if (s < 16)
        v.hi = 0;
    if (s < 8)
        v.lo &= (1ull << (8 * s)) - 1;
    return v;
}

/* ---- float references ---- */

static float f32_of(uint64_t b)
{
    uint32_t u = (uint32_t)b;
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static uint64_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static double f64_of(uint64_t b)
{
    double d;
    memcpy(&d, &b, 8);
    return d;
}
static uint64_t f64_bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}

static float flush32(float x) { return fabsf(x) < 0x1p-126f ? copysignf(0.0f, x) : x; }

/* x (exact in double) rounded to nearest even into a format with p
 * significand bits, minimum normal exponent emin and largest finite maxv. */
static double round_fmt(double x, int p, int emin, double maxv)
{
    if (x != x || x == 0 || isinf(x))
        return x;
    int e;
    frexp(x, &e);
    int lead = e - 1 < emin ? emin : e - 1;
    double q = ldexp(1.0, lead - p + 1);
    double r = nearbyint(x / q) * q;
    return fabs(r) > maxv ? copysign(INFINITY, x) : r;
}

static double dec_f16(uint16_t h)
{
    int ex = (h >> 10) & 31, m = h & 1023;
    double v = ex == 0 ? ldexp(m, -24) : ex == 31 ? (m ? NAN : INFINITY) : ldexp(1024 + m, ex - 25);
    return h >> 15 ? -v : v;
}

static uint16_t enc_f16(double r)
{
    uint16_t s = signbit(r) ? 0x8000 : 0;
    double a = fabs(r);
    if (r != r)
        return 0x7e00;
    if (isinf(a))
        return s | 0x7c00;
    if (a < 0x1p-14)
        return s | (uint16_t)(a / 0x1p-24);
    int e;
    double m = frexp(a, &e);
    return s | (uint16_t)((e + 14) << 10) | (uint16_t)((m * 2 - 1) * 1024);
}

static double dec_bf16(uint16_t h) { return f32_of((uint64_t)h << 16); }

static uint16_t enc_bf16(double r)
{
    if (r != r)
        return 0x7fc0;
    return (uint16_t)(f32_bits((float)r) >> 16);
}

static uint16_t half_add(bool bf, uint16_t x, uint16_t y)
{
    if (bf)
        return enc_bf16(round_fmt(dec_bf16(x) + dec_bf16(y), 8, -126, 0x1.fep127));
    return enc_f16(round_fmt(dec_f16(x) + dec_f16(y), 11, -14, 65504.0));
}

static bool half_nan(bool bf, uint16_t h) { return bf ? (h & 0x7fff) > 0x7f80 : (h & 0x7fff) > 0x7c00; }

/* ---- the ISA operations ---- */

static bool is_signed(tkind t) { return t == T_S32 || t == T_S64; }
static bool wide(tkind t) { return tsize(t) == 8; }

static bool before(tkind t, uint64_t a, uint64_t b) /* a < b in the type's order */
{
    if (is_signed(t))
        return wide(t) ? (int64_t)a < (int64_t)b : (int32_t)a < (int32_t)b;
    return a < b;
}

/* new memory value = op(old, b[, c]); ftz: f32 add on global memory. */
static val apply(const acase *c, bool ftz, val old, val b, val cv)
{
    tkind t = c->t;
    val r = old;
    const char *op = c->op;
    if (!strcmp(op, "add")) {
        if (t == T_F32) {
            float x = f32_of(old.lo), y = f32_of(b.lo);
            r.lo = f32_bits(ftz ? flush32(flush32(x) + flush32(y)) : x + y);
        } else if (t == T_F64) {
            r.lo = f64_bits(f64_of(old.lo) + f64_of(b.lo));
        } else if (is_halfish(t)) {
            bool bf = t == T_BF16 || t == T_BF16X2;
            r.lo = half_add(bf, (uint16_t)old.lo, (uint16_t)b.lo);
            if (t == T_F16X2 || t == T_BF16X2)
                r.lo |= (uint64_t)half_add(bf, (uint16_t)(old.lo >> 16), (uint16_t)(b.lo >> 16)) << 16;
        } else {
            r.lo = old.lo + b.lo;
        }
    } else if (!strcmp(op, "min")) {
        r = before(t, b.lo, old.lo) ? b : old;
    } else if (!strcmp(op, "max")) {
        r = before(t, old.lo, b.lo) ? b : old;
    } else if (!strcmp(op, "inc")) {
        r.lo = old.lo >= b.lo ? 0 : old.lo + 1;
    } else if (!strcmp(op, "dec")) {
        r.lo = old.lo == 0 || old.lo > b.lo ? b.lo : old.lo - 1;
    } else if (!strcmp(op, "and")) {
        r.lo = old.lo & b.lo;
    } else if (!strcmp(op, "or")) {
        r.lo = old.lo | b.lo;
    } else if (!strcmp(op, "xor")) {
        r.lo = old.lo ^ b.lo;
    } else if (!strcmp(op, "exch")) {
        r = b;
    } else { /* cas */
        r = old.lo == b.lo && old.hi == b.hi ? cv : old;
    }
    return trunc_to(t, r);
}

/* got is want, where a NaN wanted (per element) accepts any NaN. */
static bool same(tkind t, val want, val got)
{
    switch (t) {
    case T_F32:
        if (isnan(f32_of(want.lo)))
            return isnan(f32_of(got.lo));
        break;
    case T_F64:
        if (isnan(f64_of(want.lo)))
            return isnan(f64_of(got.lo));
        break;
    case T_F16:
    case T_BF16:
    case T_F16X2:
    case T_BF16X2: {
        bool bf = t == T_BF16 || t == T_BF16X2;
        for (int k = 0; k < (tsize(t) == 4 ? 2 : 1); k++) {
            uint16_t w = (uint16_t)(want.lo >> 16 * k), g = (uint16_t)(got.lo >> 16 * k);
            if (half_nan(bf, w) ? !half_nan(bf, g) : w != g)
                return false;
        }
        return true;
    }
    default:
        break;
    }
    return want.lo == got.lo && want.hi == got.hi;
}

/* ---- operand values ---- */

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next_rand(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}

static const uint64_t edge32[] = {0, 1, 2, 5, 15, 16, 17, 100, 0x7fffffff, 0x80000000, 0x80000001,
                                  0xfffffffe, 0xffffffff, 0x12345678, 0xdeadbeef};
static const uint64_t edge64[] = {0, 1, 2, 5, 0xffffffff, 0x100000000ull, 0x7fffffffffffffffull,
                                  0x8000000000000000ull, 0x8000000000000001ull, 0xfffffffffffffffeull,
                                  0xffffffffffffffffull, 0x123456789abcdef0ull, 0xfedcba9876543210ull};
static const uint64_t edgef32[] = {0, 0x80000000, 0x3f800000, 0xbf800000, 0x3fc00000, 0x7f800000,
                                   0xff800000, 0x7fc00000, 0x7f800001, 0xffc00123, 0x00000001,
                                   0x80000001, 0x007fffff, 0x807fffff, 0x00800000, 0x80800000,
                                   0x7f7fffff, 0xff7fffff, 0x33800000, 0x4b800000};
static const uint64_t edgef64[] = {0, 0x8000000000000000ull, 0x3ff0000000000000ull, 0xbff0000000000000ull,
                                   0x7ff0000000000000ull, 0xfff0000000000000ull, 0x7ff8000000000000ull,
                                   0x7ff0000000000001ull, 0x0000000000000001ull, 0x800fffffffffffffull,
                                   0x0010000000000000ull, 0x7fefffffffffffffull, 0x3ca0000000000000ull,
                                   0x4340000000000000ull};
static const uint64_t edgef16[] = {0, 0x8000, 0x3c00, 0xbc00, 0x0001, 0x8001, 0x03ff, 0x0400, 0x8400,
                                   0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0x7c01, 0x3c01, 0x6800,
                                   0x1400, 0x0200};
static const uint64_t edgebf16[] = {0, 0x8000, 0x3f80, 0xbf80, 0x0001, 0x8001, 0x007f, 0x0080, 0x7f7f,
                                    0xff7f, 0x7f80, 0xff80, 0x7fc0, 0x7f81, 0x3f81, 0x4380, 0x3b80};

static void edges_of(tkind t, const uint64_t **e, size_t *n)
{
    switch (t) {
    case T_F32: *e = edgef32, *n = sizeof edgef32 / 8; break;
    case T_F64: *e = edgef64, *n = sizeof edgef64 / 8; break;
    case T_F16: case T_F16X2: case T_B16: *e = edgef16, *n = sizeof edgef16 / 8; break;
    case T_BF16: case T_BF16X2: *e = edgebf16, *n = sizeof edgebf16 / 8; break;
    case T_U64: case T_S64: case T_B64: case T_B128: *e = edge64, *n = sizeof edge64 / 8; break;
    default: *e = edge32, *n = sizeof edge32 / 8; break;
    }
}

static val edge_val(tkind t, size_t i)
{
    const uint64_t *e;
    size_t n;
    edges_of(t, &e, &n);
    val v = {e[i % n], 0};
    if (t == T_F16X2 || t == T_BF16X2)
        v.lo |= e[(i * 7 + 3) % n] << 16;
    if (t == T_B128)
        v.hi = e[(i * 5 + 1) % n];
    return trunc_to(t, v);
}

static val rand_val(tkind t)
{
    if (next_rand() % 3 == 0)
        return edge_val(t, next_rand() % 64);
    val v = {next_rand(), next_rand()};
    return trunc_to(t, v);
}

/* Operands for which every order of application gives one result (red). */
static val commuting_val(const acase *c)
{
    int64_t k = (int64_t)(next_rand() % 3) - 1; /* -1, 0, 1 */
    val v = {0, 0};
    switch (c->t) {
    case T_F32: v.lo = f32_bits((float)(next_rand() % 1000) - 500.0f); break;
    case T_F64: v.lo = f64_bits((double)(next_rand() % 1000) - 500.0); break;
    case T_F16: case T_F16X2: v.lo = enc_f16((double)k) | (uint64_t)enc_f16((double)-k) << 16; break;
    case T_BF16: case T_BF16X2: v.lo = enc_bf16((double)k) | (uint64_t)enc_bf16((double)k) << 16; break;
    default:
        if (!strcmp(c->op, "inc") || !strcmp(c->op, "dec"))
            v.lo = 0xffffffff; /* never wraps from the start values used */
        else
            v = rand_val(c->t);
    }
    return trunc_to(c->t, v);
}

/* ---- kernels ---- */

enum { SP_GLOBAL, SP_SHARED, SP_GENERIC };
static const char *const sp_name[] = {"global", "shared", "generic"};

static const char *sem_of(const acase *c, int i, bool red)
{
    static const char *const atom_sems[] = {"", ".relaxed", ".acquire", ".release", ".acq_rel"};
    static const char *const red_sems[] = {"", ".relaxed", ".release"};
    (void)c;
    return red ? red_sems[i % 3] : atom_sems[i % 5];
}

static const char *scope_of(int i)
{
    static const char *const s[] = {"", ".gpu", ".cta", ".sys", ".cluster"};
    return s[(i / 2) % 5];
}

/* The atom and red instructions of case k in space sp. */
static void instr_text(char *atom, char *red, size_t len, int k, int sp)
{
    const acase *c = &cases[k];
    const char *space = sp == SP_GLOBAL ? ".global" : sp == SP_SHARED ? ".shared" : "";
    const char *noftz = is_halfish(c->t) ? ".noftz" : "";
    bool cas = !strcmp(c->op, "cas");
    snprintf(atom, len, "atom%s%s%s.%s%s.%s %%v0, [%%rd13], %%v1%s;", sem_of(c, k + sp, false),
             scope_of(k + sp), space, c->op, noftz, c->ty, cas ? ", %v2" : "");
    if (has_red(c))
        snprintf(red, len, "red%s%s%s.%s%s.%s [%%rd13], %%v1;", sem_of(c, k + sp, true), scope_of(k + sp + 1),
                 space, c->op, noftz, c->ty);
    else
        snprintf(red, len, "trap;");
}

/* Stages the CTA's block of memory into shared memory (or back), 8 bytes
 * at a time.  The loop runs the same trip count in every lane (unit
 * base + tid.x, guarded), so warps stay converged: lane order inside a warp
 * is only promised for lanes that execute an instruction together. */
static size_t emit_copy(char *o, size_t cap, unsigned size, bool in, const char *tag)
{
    unsigned units = NS * size / 8;
    return (size_t)snprintf(o, cap,
        "  mov.u32 %%r8, 0;\n"
        "$C%s:\n"
        "  add.u32 %%r7, %%r8, %%r3; setp.lt.u32 %%p6, %%r7, %u;\n"
        "  mul.wide.u32 %%rd15, %%r7, 8; add.s64 %%rd16, %%rd18, %%rd15; add.s64 %%rd17, %%rd14, %%rd15;\n"
        "  %s\n"
        "  add.u32 %%r8, %%r8, %%r2; setp.lt.u32 %%p5, %%r8, %u; @%%p5 bra.uni $C%s;\n",
        tag, units,
        in ? "@%p6 ld.global.b64 %rd20, [%rd16]; @%p6 st.shared.b64 [%rd17], %rd20;"
           : "@%p6 ld.shared.b64 %rd20, [%rd17]; @%p6 st.global.b64 [%rd16], %rd20;",
        units, tag);
}

/* ld/st of a value register; 128-bit values go as two 64-bit halves
 * (vector accesses of <32 x i128> are costly to compile). */
static size_t emit_ldst(char *o, size_t cap, unsigned size, bool ld, const char *reg, const char *addr)
{
    if (size != 16)
        return ld ? (size_t)snprintf(o, cap, "  ld.global.b%u %s, [%s];\n", 8 * size, reg, addr)
                  : (size_t)snprintf(o, cap, "  st.global.b%u [%s], %s;\n", 8 * size, addr, reg);
    if (ld)
        return (size_t)snprintf(o, cap, "  ld.global.b64 %%rd21, [%s]; ld.global.b64 %%rd22, [%s+8];"
                                        " mov.b128 %s, {%%rd21, %%rd22};\n", addr, addr, reg);
    return (size_t)snprintf(o, cap, "  mov.b128 {%%rd21, %%rd22}, %s; st.global.b64 [%s], %%rd21;"
                                    " st.global.b64 [%s+8], %%rd22;\n", reg, addr, addr);
}

/* Params: memory, b, c, d, slot (u32), active (u32), mode (branch if 1),
 * form (red if 1), gen (generic kernel on shared memory if 1).  Inactive
 * lanes skip the instruction by a guard (mode 0) or by a divergent branch
 * around it (mode 1, the guard is then true). */
static size_t emit_kernel(char *o, size_t cap, int k, int sp)
{
    const acase *c = &cases[k];
    unsigned size = tsize(c->t), bits = 8 * size;
    char atom[160], red[160];
    instr_text(atom, red, sizeof atom, k, sp);
    size_t n = (size_t)snprintf(o, cap,
        ".visible .entry k%d_%s(.param .u64 pmem, .param .u64 pb, .param .u64 pc, .param .u64 pd,\n"
        "    .param .u64 pslot, .param .u64 pact, .param .u32 pmode, .param .u32 pform, .param .u32 pgen)\n{\n"
        "  .reg .pred %%p<10>; .reg .b32 %%r<16>; .reg .b64 %%rd<24>; .reg .b%u %%v<4>;\n"
        "  ld.param.u64 %%rd1, [pmem]; ld.param.u64 %%rd2, [pb]; ld.param.u64 %%rd3, [pc];\n"
        "  ld.param.u64 %%rd4, [pd]; ld.param.u64 %%rd5, [pslot]; ld.param.u64 %%rd6, [pact];\n"
        "  ld.param.u32 %%r10, [pmode]; ld.param.u32 %%r11, [pform]; ld.param.u32 %%r12, [pgen];\n"
        "  mov.u32 %%r1, %%ctaid.x; mov.u32 %%r2, %%ntid.x; mov.u32 %%r3, %%tid.x;\n"
        "  mad.lo.s32 %%r4, %%r1, %%r2, %%r3;\n"
        "  mul.wide.u32 %%rd7, %%r4, 4;\n"
        "  add.s64 %%rd8, %%rd5, %%rd7; ld.global.u32 %%r5, [%%rd8];\n"
        "  add.s64 %%rd8, %%rd6, %%rd7; ld.global.u32 %%r6, [%%rd8];\n"
        "  mul.wide.u32 %%rd9, %%r4, %u;\n"
        "  add.s64 %%rd10, %%rd2, %%rd9; add.s64 %%rd12, %%rd3, %%rd9; add.s64 %%rd11, %%rd4, %%rd9;\n",
        k, sp_name[sp], bits, size);
    n += emit_ldst(o + n, cap - n, size, true, "%v1", "%rd10");
    n += emit_ldst(o + n, cap - n, size, true, "%v2", "%rd12");
    n += emit_ldst(o + n, cap - n, size, true, "%v0", "%rd11");
    n += (size_t)snprintf(o + n, cap - n,
        "  mul.wide.u32 %%rd12, %%r5, %u;\n"
        "  mul.wide.u32 %%rd18, %%r1, %u; add.s64 %%rd18, %%rd1, %%rd18;\n" /* the CTA's block */
        "  mov.u64 %%rd14, sh;\n"
        "  setp.ne.u32 %%p4, %%r12, 0;\n",
        size, NS * size);
    if (sp != SP_GLOBAL) {
        if (sp == SP_GENERIC)
            n += (size_t)snprintf(o + n, cap - n, "  @!%%p4 bra.uni $NOIN;\n");
        n += emit_copy(o + n, cap - n, size, true, "I");
        n += (size_t)snprintf(o + n, cap - n, "  bar.sync 0;\n$NOIN:\n");
    }
    if (sp == SP_GLOBAL)
        n += (size_t)snprintf(o + n, cap - n, "  add.s64 %%rd13, %%rd1, %%rd12;\n");
    else if (sp == SP_SHARED)
        n += (size_t)snprintf(o + n, cap - n, "  add.s64 %%rd13, %%rd14, %%rd12;\n");
    else
        n += (size_t)snprintf(o + n, cap - n,
                              "  cvta.shared.u64 %%rd19, %%rd14; selp.b64 %%rd19, %%rd19, %%rd1, %%p4;\n"
                              "  add.s64 %%rd13, %%rd19, %%rd12;\n");
    n += (size_t)snprintf(o + n, cap - n,
        "  setp.ne.u32 %%p1, %%r6, 0; setp.ne.u32 %%p2, %%r10, 0; setp.ne.u32 %%p3, %%r11, 0;\n"
        "  or.pred %%p7, %%p1, %%p2; and.pred %%p8, %%p2, !%%p1;\n" /* guard; branch away */
        "  @%%p8 bra $DONE;\n"
        "  @%%p3 bra $RED;\n"
        "  @%%p7 %s\n"
        "  bra $DONE;\n"
        "$RED:\n"
        "  @%%p7 %s\n"
        "$DONE:\n",
        atom, red);
    n += emit_ldst(o + n, cap - n, size, false, "%v0", "%rd11");
    if (sp != SP_GLOBAL) {
        if (sp == SP_GENERIC)
            n += (size_t)snprintf(o + n, cap - n, "  @!%%p4 bra.uni $NOOUT;\n");
        n += (size_t)snprintf(o + n, cap - n, "  bar.sync 0;\n");
        n += emit_copy(o + n, cap - n, size, false, "O");
        n += (size_t)snprintf(o + n, cap - n, "$NOOUT:\n");
    }
    n += (size_t)snprintf(o + n, cap - n, "  ret;\n}\n");
    return n;
}

static char *module_text(size_t *len)
{
    size_t cap = 4u << 20, n = 0;
    char *s = malloc(cap);
    assert_non_null(s);
    n += (size_t)snprintf(s, cap, ".version 8.5\n.target sm_90\n.address_size 64\n"
                                  ".shared .align 16 .b8 sh[%d];\n", NS * 16);
    for (int k = 0; k < NCASES; k++)
        for (int sp = 0; sp < 3; sp++)
            n += emit_kernel(s + n, cap - n, k, sp);
    assert_true(n < cap);
    *len = n;
    return s;
}

/* ---- scenarios ---- */

/* Where the lanes point and which run. */
enum { P_DISTINCT, P_SAME, P_GROUPS };
enum { A_MOST, A_ALL, A_RANDOM, A_ODD };
enum { V_GLOBAL, V_SHARED, V_GEN_GLOBAL, V_GEN_SHARED };

typedef struct scenario {
    int pattern, active, branch, red;
} scenario;

static const scenario scenarios[] = {
    {P_DISTINCT, A_MOST, 0, 0}, {P_DISTINCT, A_RANDOM, 1, 1}, {P_SAME, A_ALL, 0, 0},
    {P_SAME, A_RANDOM, 1, 0},   {P_GROUPS, A_RANDOM, 0, 0},   {P_SAME, A_ODD, 1, 1},
    {P_GROUPS, A_ALL, 0, 1},    {P_GROUPS, A_ALL, 0, 0},
};

typedef struct run {
    int k, variant;
    scenario sc;
    unsigned size;
    _Alignas(64) uint8_t mem[GRID * NS * 16];
    _Alignas(64) uint8_t mem0[GRID * NS * 16];
    _Alignas(64) uint8_t b[N * 16], c[N * 16], d[N * 16], d0[N * 16];
    uint32_t slot[N], act[N];
} run;

static val get(const uint8_t *a, unsigned size, size_t i)
{
    val v = {0, 0};
    memcpy(&v, a + i * size, size);
    return v;
}
static void put(uint8_t *a, unsigned size, size_t i, val v) { memcpy(a + i * size, &v, size); }

static bool shared_variant(int v) { return v == V_SHARED || v == V_GEN_SHARED; }

/* Index in mem[] of thread g's target. */
static size_t target(const run *r, int g) { return (shared_variant(r->variant) ? (size_t)(g / BLOCK) * NS : 0) + r->slot[g]; }

static void make_inputs(run *r)
{
    const acase *c = &cases[r->k];
    tkind t = c->t;
    bool shared = shared_variant(r->variant);
    for (int g = 0; g < N; g++) {
        int lane = g % BLOCK % 32;
        switch (r->sc.pattern) {
        case P_DISTINCT: r->slot[g] = shared ? (uint32_t)(g % BLOCK) : (uint32_t)g; break;
        case P_SAME: r->slot[g] = 7; break;
        default: r->slot[g] = (uint32_t)((g * 7 + g / 32) % 5); break;
        }
        switch (r->sc.active) {
        case A_MOST: r->act[g] = g % 7 != 3; break;
        case A_ALL: r->act[g] = 1; break;
        case A_ODD: r->act[g] = lane & 1; break;
        default: r->act[g] = next_rand() % 5 < 3; break;
        }
        val b, cv;
        if (r->sc.pattern == P_DISTINCT) {
            const uint64_t *e;
            size_t ne;
            edges_of(t, &e, &ne);
            b = edge_val(t, (size_t)g / ne); /* with the memory's edge_val(g): every pair */
            cv = rand_val(t);
        } else if (r->sc.red) {
            b = commuting_val(c), cv = b;
        } else if (!strcmp(c->op, "cas")) { /* few distinct values, so some succeed */
            b = edge_val(t, next_rand() % 3), cv = edge_val(t, next_rand() % 3);
        } else if (!strcmp(c->op, "inc") || !strcmp(c->op, "dec")) {
            static const uint64_t lim[] = {0, 1, 3, 5, 17, 0xffffffff, 0x80000000};
            b = (val){lim[next_rand() % 7], 0}, cv = b;
        } else {
            b = rand_val(t), cv = b;
        }
        put(r->b, r->size, (size_t)g, b);
        put(r->c, r->size, (size_t)g, cv);
        val sentinel = trunc_to(t, (val){0xa5a5a5a5a5a5a5a5ull ^ (uint64_t)g, 0x5a5a5a5a5a5a5a5aull});
        put(r->d, r->size, (size_t)g, sentinel);
    }
    for (size_t i = 0; i < GRID * NS; i++) {
        val v;
        if (r->sc.pattern == P_DISTINCT)
            v = edge_val(t, shared ? i / NS * BLOCK + i % NS : i);
        else if (r->sc.red && (!strcmp(c->op, "inc")))
            v = (val){next_rand() % 1000, 0};
        else if (r->sc.red && (!strcmp(c->op, "dec")))
            v = (val){1000 + next_rand() % 1000, 0};
        else if (r->sc.red && c->t >= T_F32)
            v = commuting_val(c);
        else if (!strcmp(c->op, "cas"))
            v = edge_val(t, i % 3);
        else if (!strcmp(c->op, "inc") || !strcmp(c->op, "dec"))
            v = (val){i % 7, 0};
        else
            v = rand_val(t);
        put(r->mem, r->size, i, v);
    }
    /* for the cas of distinct addresses, compare with the current value a third of the time */
    if (r->sc.pattern == P_DISTINCT && !strcmp(c->op, "cas"))
        for (int g = 0; g < N; g += 3)
            put(r->b, r->size, (size_t)g, get(r->mem, r->size, target(r, g)));
    memcpy(r->mem0, r->mem, sizeof r->mem);
    memcpy(r->d0, r->d, sizeof r->d);
}

/* ---- checking: one serial order, lane order inside each warp ---- */

typedef struct opv {
    val b, c, d;
} opv;

typedef struct chain {
    const acase *c;
    bool ftz;
    unsigned nw;
    opv ops[WARPS][32];
    unsigned len[WARPS];
    val final;
    long budget;
    /* visited position vectors (open addressing) */
    uint8_t (*seen)[WARPS];
    uint8_t *used;
    size_t cap;
} chain;

static bool visit(chain *ch, const uint8_t *pos)
{
    uint64_t h = 1469598103934665603ull;
    for (unsigned w = 0; w < ch->nw; w++)
        h = (h ^ pos[w]) * 1099511628211ull;
    for (size_t i = h & (ch->cap - 1);; i = (i + 1) & (ch->cap - 1)) {
        if (!ch->used[i]) {
            ch->used[i] = 1;
            memcpy(ch->seen[i], pos, ch->nw);
            return true;
        }
        if (!memcmp(ch->seen[i], pos, ch->nw))
            return false;
    }
}

static bool search(chain *ch, const uint8_t *pos0, val state)
{
    uint8_t pos[WARPS];
    memcpy(pos, pos0, sizeof pos);
    if (--ch->budget < 0)
        return false;
    /* an operation that leaves the value as it is can go first: it
     * changes nothing any other operation sees */
    for (bool more = true; more;) {
        more = false;
        for (unsigned w = 0; w < ch->nw; w++) {
            if (pos[w] >= ch->len[w])
                continue;
            const opv *o = &ch->ops[w][pos[w]];
            if (same(ch->c->t, state, o->d) && same(ch->c->t, state, apply(ch->c, ch->ftz, o->d, o->b, o->c)))
                pos[w]++, more = true;
        }
    }
    bool done = true;
    for (unsigned w = 0; w < ch->nw; w++)
        done &= pos[w] >= ch->len[w];
    if (done)
        return same(ch->c->t, state, ch->final);
    if (!visit(ch, pos))
        return false;
    for (unsigned w = 0; w < ch->nw; w++) {
        if (pos[w] >= ch->len[w])
            continue;
        const opv *o = &ch->ops[w][pos[w]];
        if (!same(ch->c->t, state, o->d))
            continue;
        pos[w]++;
        if (search(ch, pos, apply(ch->c, ch->ftz, o->d, o->b, o->c)))
            return true;
        pos[w]--;
    }
    return false;
}

static bool ftz_of(const run *r)
{
    return cases[r->k].t == T_F32 && (r->variant == V_GLOBAL || r->variant == V_GEN_GLOBAL);
}

/* Checks one memory cell and the threads that targeted it. */
static int check_cell(const run *r, size_t cell, const char *what)
{
    const acase *c = &cases[r->k];
    static chain ch;
    memset(&ch, 0, sizeof ch);
    ch.c = c;
    ch.ftz = ftz_of(r);
    ch.nw = WARPS;
    ch.final = get(r->mem, r->size, cell);
    val init = get(r->mem0, r->size, cell), fold = init;
    unsigned n = 0;
    for (int g = 0; g < N; g++) {
        if (!r->act[g] || target(r, g) != cell)
            continue;
        int w = g / BLOCK * 4 + g % BLOCK / 32;
        opv *o = &ch.ops[w][ch.len[w]++];
        o->b = get(r->b, r->size, (size_t)g);
        o->c = get(r->c, r->size, (size_t)g);
        o->d = get(r->d, r->size, (size_t)g);
        fold = apply(c, ch.ftz, fold, o->b, o->c);
        n++;
    }
    if (n == 0) {
        if (memcmp(&init, &ch.final, r->size)) {
            print_error("%s: untouched cell %zu changed\n", what, cell);
            return 1;
        }
        return 0;
    }
    if (r->sc.red || n == 1) { /* red: operands commute; one op: exact */
        if (n == 1 && !r->sc.red) {
            for (unsigned w = 0; w < WARPS; w++)
                if (ch.len[w] && !same(c->t, init, ch.ops[w][0].d)) {
                    print_error("%s cell %zu: returned %#llx:%#llx, memory held %#llx:%#llx\n", what, cell,
                                (unsigned long long)ch.ops[w][0].d.hi, (unsigned long long)ch.ops[w][0].d.lo,
                                (unsigned long long)init.hi, (unsigned long long)init.lo);
                    return 1;
                }
        }
        if (!same(c->t, fold, ch.final)) {
            print_error("%s cell %zu: final %#llx:%#llx, want %#llx:%#llx (init %#llx, %u ops)\n", what, cell,
                        (unsigned long long)ch.final.hi, (unsigned long long)ch.final.lo,
                        (unsigned long long)fold.hi, (unsigned long long)fold.lo,
                        (unsigned long long)init.lo, n);
            return 1;
        }
        return 0;
    }
    ch.cap = 1u << 16;
    ch.seen = calloc(ch.cap, WARPS);
    ch.used = calloc(ch.cap, 1);
    ch.budget = 2000000;
    uint8_t pos[WARPS] = {0};
    bool ok = search(&ch, pos, init);
    free(ch.seen);
    free(ch.used);
    if (!ok && getenv("ATOM_DEBUG")) {
        for (unsigned w = 0; w < WARPS; w++)
            for (unsigned i = 0; i < ch.len[w]; i++)
                fprintf(stderr, "  w%u: b=%#llx d=%#llx\n", w, (unsigned long long)ch.ops[w][i].b.lo,
                        (unsigned long long)ch.ops[w][i].d.lo);
    }
    if (!ok)
        print_error("%s cell %zu: no serial order in lane order explains the %u returned values "
                    "and the final %#llx (init %#llx)%s\n",
                    what, cell, n, (unsigned long long)ch.final.lo, (unsigned long long)init.lo,
                    ch.budget < 0 ? " [search budget exhausted]" : "");
    return !ok;
}

static int check_run(const run *r, const char *what)
{
    int bad = 0;
    for (int g = 0; g < N && bad < 5; g++) { /* lanes that did not execute atom keep d */
        if ((r->act[g] && !r->sc.red) || !memcmp(r->d + g * r->size, r->d0 + g * r->size, r->size))
            continue;
        print_error("%s: thread %d (inactive or red) changed its destination\n", what, g);
        bad++;
    }
    for (size_t cell = 0; cell < GRID * NS && bad < 5; cell++)
        bad += check_cell(r, cell, what);
    return bad;
}

/* ---- driver ---- */

static ptxjit_ctx *ctx;
static ptxjit_module *mod;

static int run_one(run *r, const ptxjit_kernel *kern)
{
    const acase *c = &cases[r->k];
    char what[128];
    snprintf(what, sizeof what, "%s.%s variant %d scenario {%d,%d,%d,%d}", c->op, c->ty, r->variant,
             r->sc.pattern, r->sc.active, r->sc.branch, r->sc.red);
    struct {
        void *mem, *b, *c, *d, *slot, *act;
        uint32_t mode, form, gen;
    } p = {r->mem, r->b, r->c, r->d, r->slot, r->act, (uint32_t)r->sc.branch, (uint32_t)r->sc.red,
           (uint32_t)(r->variant == V_GEN_SHARED)};
    ptxjit_launch_cfg cfg = {{GRID, 1, 1}, {BLOCK, 1, 1}, 0, &p, NULL};
    char err[256];
    if (ptxjit_launch(ctx, kern, &cfg, err, sizeof err) != PTXJIT_OK) {
        print_error("%s: %s\n", what, err);
        return 1;
    }
    return check_run(r, what);
}

static int run_case(int k)
{
    static run r;
    int bad = 0;
    for (int v = V_GLOBAL; v <= V_GEN_SHARED; v++) {
        int sp = v == V_GLOBAL ? SP_GLOBAL : v == V_SHARED ? SP_SHARED : SP_GENERIC;
        char name[64];
        snprintf(name, sizeof name, "k%d_%s", k, sp_name[sp]);
        const ptxjit_kernel *kern = ptxjit_kernel_get(mod, name);
        assert_non_null(kern);
        for (size_t s = 0; s < sizeof scenarios / sizeof scenarios[0]; s++) {
            if (scenarios[s].red && !has_red(&cases[k]))
                continue;
            memset(&r, 0, sizeof r);
            r.k = k, r.variant = v, r.sc = scenarios[s], r.size = tsize(cases[k].t);
            make_inputs(&r);
            bad += run_one(&r, kern);
        }
    }
    return bad;
}

static int setup(void **state, unsigned workers)
{
    (void)state;
    char err[256], *log = NULL;
    size_t len;
    char *src = module_text(&len);
    const char *dump = getenv("ATOM_DUMP"); /* the generated module, for ptxjit run --stats */
    FILE *df = dump ? fopen(dump, "w") : NULL;
    if (df)
        fwrite(src, 1, len, df), fclose(df);
    ctx = ptxjit_create(workers, err, sizeof err);
    if (!ctx)
        return -1;
    mod = ptxjit_load(ctx, src, len, "conform_atomic.ptx", &log, NULL);
    if (!mod)
        print_error("%s\n", log ? log : "load failed");
    free(log);
    free(src);
    return mod ? 0 : -1;
}
static int setup1(void **state) { return setup(state, 1); }
static int setup2(void **state) { return setup(state, 2); }
static int teardown(void **state)
{
    (void)state;
    ptxjit_module_unload(mod);
    ptxjit_destroy(ctx);
    return 0;
}

/* One cmocka test per operation family, so a failure names it. */
static void run_family(const char *op)
{
    int bad = 0;
    const char *only = getenv("ATOM_ONLY"); /* e.g. add.f32: one case while debugging */
    for (int k = 0; k < NCASES; k++) {
        char name[32];
        snprintf(name, sizeof name, "%s.%s", cases[k].op, cases[k].ty);
        if (!strcmp(cases[k].op, op) && (!only || !strcmp(only, name)))
            bad += run_case(k);
    }
    assert_int_equal(bad, 0);
}

#define FAMILY(op) \
    static void test_atom_##op(void **state) { (void)state; run_family(#op); }
FAMILY(add)
FAMILY(min)
FAMILY(max)
FAMILY(inc)
FAMILY(dec)
FAMILY(and)
FAMILY(or)
FAMILY(xor)
FAMILY(exch)
FAMILY(cas)

#define FAMILY_TESTS                                                                                   \
    cmocka_unit_test(test_atom_add), cmocka_unit_test(test_atom_min), cmocka_unit_test(test_atom_max), \
        cmocka_unit_test(test_atom_inc), cmocka_unit_test(test_atom_dec),                              \
        cmocka_unit_test(test_atom_and), cmocka_unit_test(test_atom_or),                               \
        cmocka_unit_test(test_atom_xor), cmocka_unit_test(test_atom_exch),                             \
        cmocka_unit_test(test_atom_cas)

/* ---- vector forms (sm_90): each element its own atomic add ---- */

typedef struct vcase {
    const char *text; /* the instruction, {D} {B} and [A] filled in */
    tkind t;
    unsigned nvec;
    bool red, generic;
} vcase;

static const vcase vcases[] = {
    {"atom.global.v2.f32.add", T_F32, 2, 0, 0},          {"atom.global.v4.f32.add", T_F32, 4, 0, 0},
    {"atom.global.v2.f16.add.noftz", T_F16, 2, 0, 0},     {"atom.global.v4.f16.add.noftz", T_F16, 4, 0, 0},
    {"atom.global.v8.f16.add.noftz", T_F16, 8, 0, 0},     {"atom.global.v2.bf16.add.noftz", T_BF16, 2, 0, 0},
    {"atom.global.v8.bf16.add.noftz", T_BF16, 8, 0, 0},   {"atom.global.v2.f16x2.add.noftz", T_F16X2, 2, 0, 0},
    {"atom.global.v4.bf16x2.add.noftz", T_BF16X2, 4, 0, 0}, {"red.global.v4.f32.add", T_F32, 4, 1, 0},
    {"red.global.v8.bf16.add.noftz", T_BF16, 8, 1, 0},    {"atom.v2.f32.add", T_F32, 2, 0, 1},
    {"red.release.gpu.global.v2.f16x2.add.noftz", T_F16X2, 2, 1, 0},
};
enum { NVCASES = sizeof vcases / sizeof vcases[0], VN = 64 };

static size_t emit_vkernel(char *o, size_t cap, int k)
{
    const vcase *v = &vcases[k];
    unsigned size = tsize(v->t), bits = 8 * size;
    char d[128] = "{", b[128] = "{";
    for (unsigned i = 0; i < v->nvec; i++) {
        char e[16];
        snprintf(e, sizeof e, "%s%%d%u", i ? ", " : "", i);
        strcat(d, e);
        snprintf(e, sizeof e, "%s%%b%u", i ? ", " : "", i);
        strcat(b, e);
    }
    strcat(d, "}"), strcat(b, "}");
    size_t n = (size_t)snprintf(o, cap,
        ".visible .entry v%d(.param .u64 pmem, .param .u64 pb, .param .u64 pd, .param .u32 pshift)\n{\n"
        "  .reg .b32 %%r<8>; .reg .b64 %%rd<12>; .reg .b%u %%b<8>, %%d<8>;\n"
        "  ld.param.u64 %%rd1, [pmem]; ld.param.u64 %%rd2, [pb]; ld.param.u64 %%rd3, [pd]; ld.param.u32 %%r5, [pshift];\n"
        "  mov.u32 %%r1, %%tid.x; mul.wide.u32 %%rd4, %%r1, %u;\n"
        "  add.s64 %%rd5, %%rd2, %%rd4; add.s64 %%rd6, %%rd3, %%rd4;\n"
        "  shr.u32 %%r2, %%r1, %%r5; mul.wide.u32 %%rd7, %%r2, %u; add.s64 %%rd8, %%rd1, %%rd7;\n",
        k, bits, size * v->nvec, size * v->nvec);
    for (unsigned i = 0; i < v->nvec; i++)
        n += (size_t)snprintf(o + n, cap - n, "  ld.global.b%u %%b%u, [%%rd5+%u]; mov.b%u %%d%u, %%b%u;\n", bits, i,
                              i * size, bits, i, i);
    if (v->red)
        n += (size_t)snprintf(o + n, cap - n, "  %s [%%rd8], %s;\n", v->text, b);
    else
        n += (size_t)snprintf(o + n, cap - n, "  %s %s, [%%rd8], %s;\n", v->text, d, b);
    for (unsigned i = 0; i < v->nvec; i++)
        n += (size_t)snprintf(o + n, cap - n, "  st.global.b%u [%%rd6+%u], %%d%u;\n", bits, i * size, i);
    return n + (size_t)snprintf(o + n, cap - n, "  ret;\n}\n");
}

/* Each lane adds its vector to its own slot (shift 0: edge values, exact
 * per element) or every lane to slot 0 (shift 6: small integers, so the
 * sum is exact in any order).  All of it is global memory, where f32 adds
 * flush subnormals (the ISA's atom.add.f32 rule, vector or not). */
static void test_vector_forms(void **state)
{
    (void)state;
    size_t cap = 1 << 18, n = 0;
    char *src = malloc(cap), *log = NULL, err[256];
    n += (size_t)snprintf(src, cap, ".version 8.5\n.target sm_90\n.address_size 64\n");
    for (int k = 0; k < NVCASES; k++)
        n += emit_vkernel(src + n, cap - n, k);
    ptxjit_ctx *vctx = ptxjit_create(2, err, sizeof err);
    assert_non_null(vctx);
    ptxjit_module *m = ptxjit_load(vctx, src, n, "vector_atom.ptx", &log, NULL);
    if (!m)
        fail_msg("%s", log ? log : "load failed");
    int bad = 0;
    for (int k = 0; k < NVCASES; k++) {
        const vcase *v = &vcases[k];
        acase add = {"add", "", v->t};
        unsigned size = tsize(v->t), per = v->nvec;
        for (unsigned shift = 0; shift <= 6; shift += 6) {
            static _Alignas(64) uint8_t mem[VN * 8 * 4], mem0[VN * 8 * 4], b[VN * 8 * 4], d[VN * 8 * 4];
            for (unsigned e = 0; e < VN * per; e++) {
                val bv = shift ? commuting_val(&add) : edge_val(v->t, e / 11 + e * 5);
                val mv = shift ? commuting_val(&add) : edge_val(v->t, e);
                put(b, size, e, bv), put(mem, size, e, mv);
            }
            memcpy(mem0, mem, sizeof mem);
            struct { void *mem, *b, *d; uint32_t shift; } p = {mem, b, d, shift};
            ptxjit_launch_cfg cfg = {{1, 1, 1}, {VN, 1, 1}, 0, &p, NULL};
            char name[16];
            snprintf(name, sizeof name, "v%d", k);
            if (ptxjit_launch(vctx, ptxjit_kernel_get(m, name), &cfg, err, sizeof err) != PTXJIT_OK)
                fail_msg("%s: %s", v->text, err);
            for (unsigned e = 0; e < (shift ? per : VN * per); e++) {
                val want = get(mem0, size, e);
                for (unsigned l = 0; l < VN; l++)
                    if ((l >> shift) * per + e % per == e)
                        want = apply(&add, v->t == T_F32, want, get(b, size, l * per + e % per), want);
                if (!same(v->t, want, get(mem, size, e)) && bad++ < 8)
                    print_error("%s shift %u element %u: %#llx, want %#llx\n", v->text, shift, e,
                                (unsigned long long)get(mem, size, e).lo, (unsigned long long)want.lo);
            }
            for (unsigned e = 0; !shift && e < VN * per; e++) { /* old values (red: d keeps b) */
                val want = v->red ? get(b, size, e) : get(mem0, size, e);
                if (memcmp(&want, d + e * size, size) && bad++ < 8)
                    print_error("%s element %u returned %#llx, want %#llx\n", v->text, e,
                                (unsigned long long)get(d, size, e).lo, (unsigned long long)want.lo);
            }
        }
    }
    assert_int_equal(bad, 0);
    ptxjit_module_unload(m);
    ptxjit_destroy(vctx);
    free(log);
    free(src);
}

/* ---- forms that are not lowered: a load error naming line and instruction ---- */

static void test_unsupported_forms_are_load_errors(void **state)
{
    (void)state;
    static const conform_bad bad[] = {
        {"atom.global.v2.f16x2.min.noftz {%r1, %r2}, [%rd1], {%r3, %r4};", "'atom.min.f16x2'"},
        {"red.global.v4.f16.max.noftz [%rd1], {%h1, %h2, %h3, %h4};", "'red.max.f16'"},
        {"atom.global.and.u32 %r1, [%rd1], %r2;", "'atom.and.u32'"},
        {"atom.global.add.s64 %rd2, [%rd1], %rd3;", "'atom.add.s64'"},
        {"atom.global.inc.u64 %rd2, [%rd1], %rd3;", "'atom.inc.u64'"},
        {"atom.global.add.f16 %h1, [%rd1], %h2;", "needs .noftz"},
        {"atom.global.exch.b16 %h1, [%rd1], %h2;", "'atom.exch.b16'"},
        {"red.global.cas.b32 [%rd1], %r1, %r2;", "'red.cas.b32'"},
        {"atom.shared.v2.f32.add {%f1, %f2}, [%rd1], {%f3, %f4};", "only defined on .global"},
        {"atom.local.add.u32 %r1, [%rd1], %r2;", "only defined on .global and .shared"},
    };
    assert_int_equal(conform_expect_load_errors("sm_90", bad, sizeof bad / sizeof bad[0]), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {FAMILY_TESTS};
    const struct CMUnitTest others[] = {cmocka_unit_test(test_vector_forms),
                                        cmocka_unit_test(test_unsupported_forms_are_load_errors)};
    int fails = cmocka_run_group_tests_name("atom_red_1_worker", tests, setup1, teardown);
    fails += cmocka_run_group_tests_name("atom_red_2_workers", tests, setup2, teardown);
    fails += cmocka_run_group_tests_name("atom_red_forms", others, NULL, NULL);
    return fails;
}
