/* test_conform_bulk_reduce.c - sm_90's bulk reductions
 * (cp.reduce.async.bulk, non-tensor) through the whole pipeline, against
 * C references written from the PTX ISA:
 *   - every .redOp/.type pair ptxas accepts, into .global (bulk_group,
 *     with and without a cache policy) and into .shared::cluster (the
 *     mbarrier's complete-tx balancing an arrive.expect_tx);
 *   - "overlap": 45 lanes of each block (a partial second warp), four
 *     blocks for .global, each lane reducing its own 64 bytes into one of
 *     three overlapping 64-byte windows (48 times over for integers into
 *     .global, so that blocks on both worker threads contend); the values
 *     make the result order-independent (inc/dec with limit 0xffffffff,
 *     floats small integers), so only lost updates can make it differ;
 *   - "single": one lane on random data, for the operations' edge cases
 *     (inc/dec wrap, signed/unsigned min/max, rounding to nearest even,
 *     f16/bf16 subnormals kept by .noftz);
 *   - addresses or a size that are not multiples of 16 fail the launch;
 *   - forms ptxas refuses are load errors naming the line;
 *   - the fixture tests/cuda/bulk_reduce.cu (libcu++'s cuda::ptx wrappers)
 *     as nvcc compiles it for sm_90 (cp.reduce.async.bulk) and for sm_75
 *     and sm_80 (atomics), against the references in its comments. */
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
#include "test_ctx.h"
#include "test_util.h"

#define HEADER ".version 8.3\n.target sm_90\n.address_size 64\n"

enum { BLOCK = 64, LANE_BYTES = 64, OUT_BYTES = 96, OVERLAP_LANES = 45, GRID = 4, REPS = 48 };


/* ---- the reference, from the ISA ---- */

typedef enum { AND, OR, XOR, ADD, INC, DEC, MIN, MAX } red_op;
static const char *const op_names[] = {"and", "or", "xor", "add", "inc", "dec", "min", "max"};

typedef struct red_case {
    red_op op;
    const char *type; /* PTX type name */
    bool global;      /* else .shared::cluster */
} red_case;

static uint32_t type_size(const char *t) { return strstr(t, "64") ? 8 : strstr(t, "16") ? 2 : 4; }
static bool is_f16(const char *t) { return !strcmp(t, "f16"); }
static bool is_bf16(const char *t) { return !strcmp(t, "bf16"); }
static bool is_float(const char *t) { return t[0] == 'f' || is_bf16(t); }
static bool is_signed(const char *t) { return t[0] == 's'; }

/* Round x to nearest even with p significant bits, exponent floor emin
 * (subnormals below it): f16 is (11, -14), bf16 (8, -126). */
static double round_to(double x, int p, int emin)
{
    if (x == 0)
        return x;
    int e;
    frexp(x, &e);
    int lead = e - 1 < emin ? emin : e - 1;
    double ulp = ldexp(1.0, lead - (p - 1));
    return nearbyint(x / ulp) * ulp;
}

static double half_decode(uint16_t h, bool bf)
{
    if (bf) {
        uint32_t w = (uint32_t)h << 16;
        float f;
        memcpy(&f, &w, 4);
        return f;
    }
    int ex = (h >> 10) & 31;
    double m = h & 1023;
    double v = ex ? ldexp(1024 + m, ex - 25) : ldexp(m, -24);
    return h & 0x8000 ? -v : v;
}

/* x exactly representable (after round_to) in the format. */
static uint16_t half_encode(double x, bool bf)
{
    int p = bf ? 8 : 11, emin = bf ? -126 : -14, bias = 1 - emin;
    uint16_t sign = signbit(x) ? 0x8000 : 0;
    x = fabs(x);
    if (x == 0)
        return sign;
    int e;
    frexp(x, &e);
    if (e - 1 < emin)
        return sign | (uint16_t)(x / ldexp(1.0, emin - (p - 1)));
    uint16_t mant = (uint16_t)(x / ldexp(1.0, e - 1 - (p - 1)) - ldexp(1.0, p - 1));
    return sign | (uint16_t)((e - 1 + bias) << (p - 1)) | mant;
}

static uint64_t float_add(const char *t, uint64_t a, uint64_t b)
{
    if (!strcmp(t, "f32")) {
        float x, y;
        uint32_t ua = (uint32_t)a, ub = (uint32_t)b, r;
        memcpy(&x, &ua, 4);
        memcpy(&y, &ub, 4);
        float s = x + y;
        memcpy(&r, &s, 4);
        return r;
    }
    if (!strcmp(t, "f64")) {
        double x, y, s;
        uint64_t r;
        memcpy(&x, &a, 8);
        memcpy(&y, &b, 8);
        s = x + y;
        memcpy(&r, &s, 8);
        return r;
    }
    bool bf = is_bf16(t);
    double s = half_decode((uint16_t)a, bf) + half_decode((uint16_t)b, bf);
    return half_encode(round_to(s, bf ? 8 : 11, bf ? -126 : -14), bf);
}

static bool less(const char *t, uint64_t a, uint64_t b, uint32_t size)
{
    if (!is_signed(t))
        return a < b;
    return size == 4 ? (int32_t)a < (int32_t)b : (int64_t)a < (int64_t)b;
}

/* The new value of a destination element `old` combined with `v`. */
static uint64_t ref_op(const red_case *c, uint64_t old, uint64_t v)
{
    uint32_t size = type_size(c->type);
    uint64_t mask = size == 8 ? ~0ull : (1ull << (8 * size)) - 1;
    switch (c->op) {
    case AND: return old & v;
    case OR: return old | v;
    case XOR: return old ^ v;
    case ADD: return is_float(c->type) ? float_add(c->type, old, v) : (old + v) & mask;
    case INC: return old >= v ? 0 : old + 1;
    case DEC: return old == 0 || old > v ? v : old - 1;
    case MIN: return less(c->type, old, v, size) ? old : v;
    default: return less(c->type, old, v, size) ? v : old;
    }
}

/* ---- data ---- */

static uint64_t rng_state;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* -1, 0 or 1 as the float type's bits: partial sums of up to 180 of them
 * stay exact in every format (bf16 holds integers to 256). */
static uint64_t small_float(const char *t)
{
    double d = (double)(int)(rnd() % 3) - 1;
    if (!strcmp(t, "f32")) {
        float f = (float)d;
        uint32_t u;
        memcpy(&u, &f, 4);
        return u;
    }
    if (!strcmp(t, "f64")) {
        uint64_t u;
        memcpy(&u, &d, 8);
        return u;
    }
    return half_encode(d, is_bf16(t));
}

/* Finite random floats: f32/f64 normal, within 2^±27 of 1 so subnormal
 * results cannot occur; f16 and bf16 include subnormals. */
static uint64_t random_float(const char *t)
{
    uint64_t r = rnd();
    if (!strcmp(t, "f32"))
        return (r & 0x807fffffu) | (uint32_t)(100 + r % 55) << 23;
    if (!strcmp(t, "f64"))
        return (r & 0x800fffffffffffffull) | (uint64_t)(1000 + r % 47) << 52;
    if (is_f16(t)) /* exponent field 0..28: sums stay below 65504 */
        return (r & 0x83ffu) | (uint16_t)((r >> 20) % 29) << 10;
    return (r & 0x807fu) | (uint16_t)((r >> 20) % 140) << 7;
}

static uint64_t gen(const red_case *c, bool overlap, bool is_dest)
{
    uint64_t r = rnd();
    if (is_float(c->type))
        return overlap ? small_float(c->type) : random_float(c->type);
    switch (c->op) {
    case AND: return overlap && !is_dest ? r | rnd() | rnd() : r;
    case OR: return overlap && !is_dest ? r & rnd() & rnd() : r;
    case INC:
    case DEC: return overlap ? (is_dest ? r % 8 : 0xffffffffu) : r % 6;
    default: return r;
    }
}

static void put(uint8_t *p, uint32_t size, uint64_t v) { memcpy(p, &v, size); } /* little endian */
static uint64_t get(const uint8_t *p, uint32_t size)
{
    uint64_t v = 0;
    memcpy(&v, p, size);
    return v;
}

/* ---- kernels ---- */

static const char load_src[] = /* lane's 64 bytes: in + 64 (64 ctaid + tid) -> src + 64 tid */
    "  mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x;\n"
    "  mad.lo.u32 %r3, %r2, 64, %r1; mul.wide.u32 %rd3, %r3, 64; add.s64 %rd4, %rd1, %rd3;\n"
    "  shl.b32 %r4, %r1, 6; mov.u32 %r5, src; add.u32 %r6, %r5, %r4;\n"
    "  ld.global.v4.b32 {%r10, %r11, %r12, %r13}, [%rd4]; st.shared.v4.b32 [%r6], {%r10, %r11, %r12, %r13};\n"
    "  ld.global.v4.b32 {%r10, %r11, %r12, %r13}, [%rd4+16]; st.shared.v4.b32 [%r6+16], {%r10, %r11, %r12, %r13};\n"
    "  ld.global.v4.b32 {%r10, %r11, %r12, %r13}, [%rd4+32]; st.shared.v4.b32 [%r6+32], {%r10, %r11, %r12, %r13};\n"
    "  ld.global.v4.b32 {%r10, %r11, %r12, %r13}, [%rd4+48]; st.shared.v4.b32 [%r6+48], {%r10, %r11, %r12, %r13};\n"
    "  setp.lt.u32 %p1, %r1, %r9; rem.u32 %r7, %r1, 3;\n";

static void op_suffix(const red_case *c, char *buf, size_t n)
{
    snprintf(buf, n, "%s%s.%s", op_names[c->op], c->op == ADD && (is_f16(c->type) || is_bf16(c->type)) ? ".noftz" : "",
             c->type);
}

/* Lanes below nact reduce src + 64 tid into out + 16 (tid % 3). */
static void kernel_text(const red_case *c, bool hint, char *buf, size_t n)
{
    char op[32];
    op_suffix(c, op, sizeof op);
    const char *head = HEADER ".visible .entry k(.param .u64 in, .param .u64 out, .param .u32 nact, .param .u32 reps, .param .u64 pol)\n"
                              "{\n"
                              "  .reg .pred %p<6>; .reg .b32 %r<24>; .reg .b64 %rd<12>;\n"
                              "  .shared .align 16 .b8 src[4096];\n"
                              "  .shared .align 16 .b8 dst[96];\n"
                              "  .shared .align 8 .b64 bar;\n"
                              "  ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out];\n"
                              "  ld.param.u32 %r9, [nact]; ld.param.u32 %r23, [reps]; ld.param.u64 %rd9, [pol];\n";
    if (c->global) {
        snprintf(buf, n,
                 "%s%s"
                 "  mul.wide.u32 %%rd5, %%r7, 16; add.s64 %%rd6, %%rd2, %%rd5;\n"
                 "  fence.proxy.async.shared::cta;\n"
                 "  bar.sync 0;\n"
                 "  mov.u32 %%r22, 0;\n"
                 "AGAIN:\n"
                 "  @%%p1 cp.reduce.async.bulk.global.shared::cta.bulk_group%s.%s [%%rd6], [%%r6], 64%s;\n"
                 "  add.u32 %%r22, %%r22, 1; setp.lt.u32 %%p5, %%r22, %%r23;\n"
                 "  @%%p5 bra AGAIN;\n"
                 "  @%%p1 cp.async.bulk.commit_group;\n"
                 "  @%%p1 cp.async.bulk.wait_group 0;\n"
                 "  ret;\n}\n",
                 head, load_src, hint ? ".L2::cache_hint" : "", op, hint ? ", %rd9" : "");
        return;
    }
    snprintf(buf, n,
             "%s%s"
             "  setp.eq.u32 %%p2, %%r1, 0; setp.lt.u32 %%p3, %%r1, 24;\n"
             "  @%%p2 mbarrier.init.shared::cta.b64 [bar], 1;\n"
             "  mul.wide.u32 %%rd7, %%r1, 4; add.s64 %%rd8, %%rd2, %%rd7; mov.u32 %%r14, dst; shl.b32 %%r15, %%r1, 2;\n"
             "  add.u32 %%r16, %%r14, %%r15;\n"
             "  @%%p3 ld.global.b32 %%r17, [%%rd8]; @%%p3 st.shared.b32 [%%r16], %%r17;\n"
             "  fence.proxy.async.shared::cta;\n"
             "  bar.sync 0;\n"
             "  mad.lo.u32 %%r18, %%r7, 16, %%r14; mov.u32 %%r19, bar; mov.u32 %%r20, 64;\n"
             "  @%%p1 cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.%s "
             "[%%r18], [%%r6], %%r20, [%%r19];\n"
             "  shl.b32 %%r21, %%r9, 6;\n"
             "  @%%p2 mbarrier.arrive.expect_tx.shared::cta.b64 %%rd10, [bar], %%r21;\n"
             "WAIT:\n"
             "  mbarrier.try_wait.parity.shared::cta.b64 %%p4, [bar], 0;\n"
             "  @!%%p4 bra WAIT;\n"
             "  bar.sync 0;\n"
             "  @%%p3 ld.shared.b32 %%r17, [%%r16]; @%%p3 st.global.b32 [%%rd8], %%r17;\n"
             "  ret;\n}\n",
             head, load_src, op);
}

static ptxjit_module *load(const char *src)
{
    char *log = NULL;
    ptxjit_module *m = ptxjit_load(test_ctx, src, strlen(src), "bulkred.ptx", &log, NULL);
    if (!m)
        fail_msg("did not load:\n%s\n%s", log ? log : "", src);
    free(log);
    return m;
}

static ptxjit_status launch(ptxjit_module *m, uint32_t grid, const void *params, char *err, size_t errlen)
{
    const ptxjit_kernel *k = ptxjit_kernel_get(m, "k");
    assert_non_null(k);
    ptxjit_launch_cfg cfg = {{grid, 1, 1}, {BLOCK, 1, 1}, 0, params, NULL};
    return ptxjit_launch(test_ctx, k, &cfg, err, errlen);
}

typedef struct kparams {
    const void *in;
    void *out;
    uint32_t nact, reps;
    uint64_t pol;
} kparams;

/* One launch: nact lanes per block, grid blocks, each lane reducing reps
 * times (integers into global memory: blocks on both worker threads
 * contend for the same elements); checks every element. */
static void run_case(const red_case *c, ptxjit_module *m, bool overlap)
{
    static uint8_t in[GRID * BLOCK * LANE_BYTES];
    uint8_t out[OUT_BYTES], want[OUT_BYTES];
    uint32_t size = type_size(c->type), grid = overlap && c->global ? GRID : 1;
    uint32_t nact = overlap ? OVERLAP_LANES : 1;
    uint32_t reps = overlap && c->global && !is_float(c->type) ? REPS : 1;
    for (uint32_t i = 0; i < sizeof in; i += size)
        put(in + i, size, gen(c, overlap, false));
    for (uint32_t i = 0; i < OUT_BYTES; i += size)
        put(out + i, size, gen(c, overlap, true));
    memcpy(want, out, OUT_BYTES);
    for (uint32_t b = 0; b < grid; b++)
        for (uint32_t t = 0; t < nact * reps; t++)
            for (uint32_t j = 0; j < LANE_BYTES; j += size) {
                uint8_t *d = want + 16 * (t % nact % 3) + j;
                put(d, size, ref_op(c, get(d, size), get(in + (b * BLOCK + t % nact) * LANE_BYTES + j, size)));
            }
    kparams p = {in, out, nact, reps, 0x5eedull};
    char err[512];
    if (launch(m, grid, &p, err, sizeof err) != PTXJIT_OK)
        fail_msg("launch: %s", err);
    char op[32];
    op_suffix(c, op, sizeof op);
    for (uint32_t i = 0; i < OUT_BYTES; i += size)
        if (get(out + i, size) != get(want + i, size))
            fail_msg("%s into %s (%s): element at byte %u is %#llx, expected %#llx", op,
                     c->global ? "global" : "shared::cluster", overlap ? "overlap" : "single", i,
                     (unsigned long long)get(out + i, size), (unsigned long long)get(want + i, size));
}

static void run_cases(const red_case *cases, size_t n)
{
    static char src[8192];
    for (size_t i = 0; i < n; i++) {
        rng_state = 0x9e3779b97f4a7c15ull + i;
        kernel_text(&cases[i], cases[i].global && i % 2, src, sizeof src);
        ptxjit_module *m = load(src);
        run_case(&cases[i], m, true);
        run_case(&cases[i], m, false);
        ptxjit_module_unload(m);
    }
}

/* Every pair ptxas 13 accepts for sm_90 (f16/bf16 min/max aside, below). */
static void test_into_global(void **state)
{
    (void)state;
    static const red_case cases[] = {
        {AND, "b32", true}, {OR, "b32", true},  {XOR, "b32", true},  {AND, "b64", true},
        {OR, "b64", true},  {XOR, "b64", true}, {ADD, "u32", true},  {ADD, "s32", true},
        {ADD, "u64", true}, {ADD, "f32", true}, {ADD, "f64", true},  {ADD, "f16", true},
        {ADD, "bf16", true}, {INC, "u32", true}, {DEC, "u32", true}, {MIN, "u32", true},
        {MIN, "s32", true}, {MIN, "u64", true}, {MIN, "s64", true},  {MAX, "u32", true},
        {MAX, "s32", true}, {MAX, "u64", true}, {MAX, "s64", true},
    };
    run_cases(cases, sizeof cases / sizeof cases[0]);
}

static void test_into_shared_cluster(void **state)
{
    (void)state;
    static const red_case cases[] = {
        {AND, "b32", false}, {OR, "b32", false},  {XOR, "b32", false}, {ADD, "u32", false},
        {ADD, "s32", false}, {ADD, "u64", false}, {INC, "u32", false}, {DEC, "u32", false},
        {MIN, "u32", false}, {MIN, "s32", false}, {MAX, "u32", false}, {MAX, "s32", false},
    };
    run_cases(cases, sizeof cases / sizeof cases[0]);
}

/* The reference itself on hand-computed values, so that a wrong reference
 * cannot agree with a wrong lowering. */
static void test_reference(void **state)
{
    (void)state;
    red_case inc = {INC, "u32", true}, dec = {DEC, "u32", true}, mins = {MIN, "s32", true};
    assert_int_equal(ref_op(&inc, 5, 5), 0);
    assert_int_equal(ref_op(&inc, 4, 5), 5);
    assert_int_equal(ref_op(&dec, 0, 7), 7);
    assert_int_equal(ref_op(&dec, 9, 7), 7);
    assert_int_equal(ref_op(&dec, 3, 7), 2);
    assert_int_equal(ref_op(&mins, 0xffffffffu, 1), 0xffffffffu);
    assert_int_equal(float_add("f16", 0x3c00, 0x1000), 0x3c00); /* 1 + 2^-11: tie, to even */
    assert_int_equal(float_add("f16", 0x3c01, 0x1000), 0x3c02); /* tie, up to even */
    assert_int_equal(float_add("f16", 0x0001, 0x0001), 0x0002); /* subnormals kept */
    assert_int_equal(float_add("bf16", 0x3f80, 0x3b80), 0x3f80); /* 1 + 2^-8: tie, to even */
    assert_int_equal(float_add("bf16", 0x3f81, 0x3b80), 0x3f82);
    assert_int_equal(float_add("bf16", 0x0001, 0x0001), 0x0002);
}

/* ---- faults and load errors ---- */

static void expect_fault(const char *dst_off, const char *size)
{
    char src[2048];
    snprintf(src, sizeof src,
             HEADER ".visible .entry k(.param .u64 in, .param .u64 out, .param .u32 nact, .param .u32 reps, .param .u64 pol)\n"
                    "{\n  .reg .b64 %%rd<4>; .shared .align 16 .b8 buf[64];\n"
                    "  ld.param.u64 %%rd1, [out]; add.s64 %%rd2, %%rd1, %s;\n"
                    "  cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%%rd2], [buf], %s;\n"
                    "  ret;\n}\n",
             dst_off, size);
    ptxjit_module *m = load(src);
    static uint8_t out[256];
    kparams p = {NULL, out, 0, 0, 0};
    char err[512] = "";
    ptxjit_status st = launch(m, 1, &p, err, sizeof err);
    if (st != PTXJIT_ERR_MISALIGNED || !strstr(err, "multiple of 16") || !strstr(err, "line 8"))
        fail_msg("offset %s size %s: status %d, '%s'", dst_off, size, (int)st, err);
    ptxjit_module_unload(m);
}

static void test_misaligned_faults(void **state)
{
    (void)state;
    expect_fault("0", "24");
    expect_fault("8", "32");
}

#define CL "cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes"
#define GL "cp.reduce.async.bulk.global.shared::cta.bulk_group"

/* Each refused by ptxas -arch=sm_90 too (f16/bf16 min/max aside: ptxas
 * takes them, but the ISA leaves their NaN and -0 handling open). */
static void test_invalid_forms(void **state)
{
    (void)state;
    static const conform_bad bad[] = {
        {CL ".and.b64 [%r1], [%r1], 16, [%r2];", "not defined into .shared::cluster"},
        {CL ".add.f32 [%r1], [%r1], 16, [%r2];", "not defined into .shared::cluster"},
        {CL ".min.u64 [%r1], [%r1], 16, [%r2];", "not defined into .shared::cluster"},
        {GL ".add.f16 [%rd1], [%r1], 16;", "not defined into .global"},
        {GL ".min.noftz.f16 [%rd1], [%r1], 16;", "not defined into .global"},
        {GL ".add.noftz.f32 [%rd1], [%r1], 16;", "not defined into .global"},
        {GL ".inc.u64 [%rd1], [%r1], 16;", "not defined into .global"},
        {GL ".and.u32 [%rd1], [%r1], 16;", "not defined into .global"},
        {GL ".add.s64 [%rd1], [%r1], 16;", "not defined into .global"},
        {CL ".L2::cache_hint.add.u32 [%r1], [%r1], 16, [%r2];", "writes .shared::cluster"},
        {"cp.reduce.async.bulk.global.shared::cta.mbarrier::complete_tx::bytes.add.u32 [%rd1], [%r1], 16, [%r2];",
         "writes .shared::cluster"},
        {"cp.reduce.async.bulk.shared::cluster.shared::cta.bulk_group.add.u32 [%r1], [%r1], 16;", "writes .global"},
        {"cp.reduce.async.bulk.global.global.bulk_group.add.u32 [%rd1], [%rd1], 16;", "reads .shared::cta"},
        {"cp.reduce.async.bulk.global.shared::cta.add.u32 [%rd1], [%r1], 16;", "completion mechanism"},
        {GL ".add.u32 [%rd1], [%r1], 16, [%r2];", "takes 3 operands"},
        {CL ".add.u32 [%r1], [%r1], 16;", "takes 4 operands"},
        {GL ".u32 [%rd1], [%r1], 16;", "one reduction operation and one type"},
        {GL ".min.f16 [%rd1], [%r1], 16;", "not supported"},
        {GL ".max.bf16 [%rd1], [%r1], 16;", "not supported"},
    };
    assert_int_equal(conform_expect_load_errors("sm_90", bad, sizeof bad / sizeof bad[0]), 0);
}

/* ---- the nvcc fixture ---- */

enum { FIX_TILE = 256, FIX_GRID = 5 };

static void check_fixture(ptxjit_module *m, const char *variant)
{
    static uint32_t in[FIX_GRID * FIX_TILE], out[FIX_GRID * FIX_TILE];
    uint32_t isum[FIX_TILE], iwant[FIX_TILE];
    float fsum[FIX_TILE], fwant[FIX_TILE];
    for (uint32_t i = 0; i < FIX_GRID * FIX_TILE; i++)
        in[i] = i * 2654435761u ^ 0x3c5au;
    for (uint32_t i = 0; i < FIX_TILE; i++) {
        isum[i] = iwant[i] = i * 7;
        fsum[i] = fwant[i] = (float)i;
        for (uint32_t b = 0; b < FIX_GRID; b++) {
            iwant[i] += in[b * FIX_TILE + i];
            fwant[i] += (float)(in[b * FIX_TILE + i] & 15);
        }
    }
    char err[512];
    struct {
        const void *in;
        void *isum, *fsum;
    } p1 = {in, isum, fsum};
    ptxjit_launch_cfg cfg = {{FIX_GRID, 1, 1}, {128, 1, 1}, 0, &p1, NULL};
    const ptxjit_kernel *k = ptxjit_kernel_get(m, "reduce_tiles");
    assert_non_null(k);
    if (ptxjit_launch(test_ctx, k, &cfg, err, sizeof err) != PTXJIT_OK)
        fail_msg("%s reduce_tiles: %s", variant, err);
    for (uint32_t i = 0; i < FIX_TILE; i++)
        if (isum[i] != iwant[i] || fsum[i] != fwant[i])
            fail_msg("%s reduce_tiles %u: %u %g, expected %u %g", variant, i, isum[i], (double)fsum[i], iwant[i],
                     (double)fwant[i]);
    struct {
        const void *in;
        void *out;
    } p2 = {in, out};
    cfg.params = &p2;
    k = ptxjit_kernel_get(m, "reduce_shared_max");
    assert_non_null(k);
    if (ptxjit_launch(test_ctx, k, &cfg, err, sizeof err) != PTXJIT_OK)
        fail_msg("%s reduce_shared_max: %s", variant, err);
    for (uint32_t i = 0; i < FIX_GRID * FIX_TILE; i++) {
        int32_t x = (int32_t)in[i], y = (int32_t)(in[i] ^ 0x80000000u);
        if (out[i] != (uint32_t)(x > y ? x : y))
            fail_msg("%s reduce_shared_max %u: %#x for %#x", variant, i, out[i], in[i]);
    }
}

static void test_fixture_bulk_reduce(void **state)
{
    (void)state;
    static const char *const variants[] = {"bulk_reduce.sm_75.ptx", "bulk_reduce.sm_80.ptx", "bulk_reduce.sm_90.ptx"};
    for (int v = 0; v < 3; v++) {
        char path[512];
        snprintf(path, sizeof path, "%s/ptx/corpus/%s", PTXJIT_TEST_DIR, variants[v]);
        size_t len;
        char *src = tu_read_file(path, &len);
        assert_non_null(src);
        if (v == 2 && !strstr(src, "cp.reduce.async.bulk.shared::cluster"))
            fail_msg("%s does not use cp.reduce.async.bulk", variants[v]);
        ptxjit_module *m = load(src);
        free(src);
        check_fixture(m, variants[v]);
        ptxjit_module_unload(m);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference),
        cmocka_unit_test(test_into_global),
        cmocka_unit_test(test_into_shared_cluster),
        cmocka_unit_test(test_misaligned_faults),
        cmocka_unit_test(test_invalid_forms),
        cmocka_unit_test(test_fixture_bulk_reduce),
    };
    return cmocka_run_group_tests_name("conform_bulk_reduce", tests, test_ctx_setup, test_ctx_teardown);
}
