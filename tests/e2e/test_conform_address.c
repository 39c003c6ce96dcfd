/* test_conform_address.c - 32-bit addresses wrap modulo 2^32, as the ISA's
 * address arithmetic says (issue 15): for [%r+imm] with a 32-bit register
 * in .shared (and its ::cta and ::cluster spellings) or .local, the
 * address is %r + imm in 32 bits, wrapped, then placed in the space's
 * window.
 *
 * Each thread owns a 16-byte slot (a 64-thread block's slots in .shared,
 * or the thread's own .local buffer) and reaches it from a base register
 * slot - imm, for immediates that put the base below zero, above 2^31 or
 * near it, with positive and negative immediates: ld/st (plain, .volatile
 * and .v2), atom/red, cvta to and from the space (32-bit round trips, and
 * a 64-bit generic address with isspacep), cp.async (with zero fill),
 * mbarrier, mapa; in 4 modes: every thread with slots consecutive in lane
 * order (the compile-time address shapes) or scattered (the run-time
 * gathers), and only odd threads (a divergent branch) of each.  A C model
 * of each instruction's effect on the slot, with the ISA's 32-bit address
 * arithmetic, gives the expected outputs; threads that do not run the
 * body leave theirs untouched.  A .func reached with a 32-bit .local
 * address of its caller's buffer stores through it the same way. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ptxjit/ptxjit.h"
#include "test_ctx.h"

enum { BLOCK = 64, GRID = 2, NT = BLOCK * GRID, NOUT = 4, SENT = 0xA5A5A5A5u };

/* base = slot - imm: below zero (68 with a low slot), above 2^31 with a
 * positive immediate that wraps (0x7ffffff0, 0x40000000), at and near
 * 2^31 with negative ones, and a plain negative offset. */
static const int32_t imms[] = {68, -64, 0x7ffffff0, -0x7ffffff0, INT32_MIN, 0x40000000};
enum { NIMM = sizeof imms / sizeof imms[0] };

typedef enum { F_LDST, F_ATOM, F_CVTA, F_ISSPACEP, F_CP_ASYNC, F_MBARRIER, F_MAPA } family;

typedef struct acase {
    const char *name;
    family fam;
    const char *ss; /* the state space as written: ".shared", ".shared::cta", ... */
    unsigned nout;  /* outputs per immediate */
} acase;

static bool is_local(const acase *c) { return !strcmp(c->ss, ".local"); }

/* ---- the kernels ---- */

typedef struct text {
    char *s;
    size_t n, cap;
} text;

static void put(text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int need = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    assert_true(need >= 0);
    if (t->n + (size_t)need + 1 > t->cap) {
        t->cap = 2 * (t->n + (size_t)need + 1);
        t->s = realloc(t->s, t->cap);
        assert_non_null(t->s);
    }
    va_start(ap, fmt);
    vsnprintf(t->s + t->n, t->cap - t->n, fmt, ap);
    va_end(ap);
    t->n += (size_t)need;
}

/* [%r10+imm+delta] as PTX writes it (the sum wrapped to 32 bits). */
static const char *at(char *buf, int32_t imm, int32_t delta)
{
    snprintf(buf, 32, "[%%r10+%d]", (int32_t)((uint32_t)imm + (uint32_t)delta));
    return buf;
}

/* The body for one immediate: %r7 the slot, %r10 the base (slot - imm),
 * %r4 the thread's input, %rd4 its address, outputs stored from %o0..3
 * (registers %r20..23). */
static void body(text *t, const acase *c, int32_t imm)
{
    const char *ss = c->ss;
    char a0[32], a4[32], a8[32];
    at(a0, imm, 0), at(a4, imm, 4), at(a8, imm, 8);
    switch (c->fam) {
    case F_LDST:
        put(t, "  not.b32 %%r11, %%r4; st%s.u32 [%%r7], %%r11; st%s.u32 %s, %%r4; ld%s.u32 %%r20, [%%r7];\n",
            ss, ss, a0, ss);
        put(t, "  add.s32 %%r12, %%r4, 1; st%s.u32 [%%r7+4], %%r12; ld%s%s.u32 %%r21, %s;\n", ss,
            is_local(c) ? "" : ".volatile", ss, a4);
        put(t, "  xor.b32 %%r13, %%r4, 0x5a5a5a5a; st%s.v2.u32 %s, {%%r4, %%r13};\n", ss, a8);
        put(t, "  ld%s.v2.u32 {%%r22, %%r23}, [%%r7+8];\n", ss);
        break;
    case F_ATOM:
        put(t, "  st%s.u32 [%%r7], %%r4; atom%s.add.u32 %%r20, %s, 5; red%s.xor.b32 %s, 3855;\n", ss, ss, a0, ss,
            a0);
        put(t, "  add.s32 %%r12, %%r4, 5; xor.b32 %%r12, %%r12, 3855; atom%s.cas.b32 %%r21, %s, %%r12, 99;\n", ss,
            a0);
        put(t, "  atom%s.max.s32 %%r22, %s, %%r4; ld%s.u32 %%r23, [%%r7];\n", ss, a0, ss);
        break;
    case F_CVTA: /* 32-bit generic addresses: the round trip is exact modulo 2^32 */
        put(t, "  cvta%s.u32 %%r11, %%r10; add.s32 %%r12, %%r11, %d; cvta.to%s.u32 %%r13, %%r12;\n", ss, imm, ss);
        put(t, "  sub.s32 %%r20, %%r13, %%r7; st%s.u32 [%%r7], %%r4; ld%s.u32 %%r21, [%%r13];\n", ss, ss);
        break;
    case F_ISSPACEP: /* the wrapped 32-bit address, zero-extended, to a 64-bit generic one */
        put(t, "  add.s32 %%r11, %%r10, %d; cvt.u64.u32 %%rd10, %%r11; cvta%s.u64 %%rd11, %%rd10;\n", imm, ss);
        put(t, "  st%s.u32 [%%r7], %%r4; ld.u32 %%r20, [%%rd11];\n", ss);
        put(t, "  isspacep.shared %%p2, %%rd11; selp.u32 %%r21, 1, 0, %%p2;\n");
        put(t, "  isspacep.global %%p3, %%rd11; selp.u32 %%r22, 1, 0, %%p3;\n");
        put(t, "  cvta.to%s.u64 %%rd12, %%rd11; sub.s64 %%rd12, %%rd12, %%rd10; cvt.u32.u64 %%r23, %%rd12;\n", ss);
        break;
    case F_CP_ASYNC:
        put(t, "  not.b32 %%r11, %%r4; st%s.u32 [%%r7], %%r11; st%s.u32 [%%r7+8], %%r11;\n", ss, ss);
        put(t, "  cp.async.ca%s.global %s, [%%rd4], 4; cp.async.ca%s.global %s, [%%rd4], 4, 0;\n", ss, a0, ss, a8);
        put(t, "  cp.async.wait_all; ld%s.u32 %%r20, [%%r7]; ld%s.u32 %%r21, [%%r7+8];\n", ss, ss);
        break;
    case F_MBARRIER:
        put(t, "  mbarrier.init%s.b64 %s, 2; mbarrier.arrive%s.b64 %%rd10, [%%r7];\n", ss, a0, ss);
        put(t, "  mbarrier.pending_count.b64 %%r20, %%rd10;\n");
        put(t, "  mbarrier.test_wait%s.b64 %%p2, %s, %%rd10; selp.u32 %%r21, 1, 0, %%p2;\n", ss, a0);
        put(t, "  mbarrier.arrive%s.b64 %%rd11, %s;\n", ss, a0);
        put(t, "  mbarrier.test_wait%s.b64 %%p3, [%%r7], %%rd10; selp.u32 %%r22, 1, 0, %%p3;\n", ss);
        put(t, "  mbarrier.inval%s.b64 %s;\n", ss, a0);
        break;
    case F_MAPA:
        put(t, "  mapa%s.u32 %%r11, %%r10, 0; st%s.u32 [%%r11+%d], %%r4; ld.shared.u32 %%r20, [%%r7];\n", ss, ss,
            imm);
        put(t, "  sub.s32 %%r21, %%r11, %%r10;\n");
        break;
    }
}

/* Modes: bit 0 scattered slots, bit 1 odd threads only. */
enum { MODES = 4 };

static void kernel_text(text *t, const acase *c, unsigned mode)
{
    bool scattered = mode & 1, divergent = mode & 2;
    put(t, ".visible .entry %s_%u(.param .u64 out, .param .u64 in)\n{\n", c->name, mode);
    put(t, "  .reg .pred %%p<8>; .reg .b32 %%r<32>; .reg .b64 %%rd<16>;\n");
    put(t, "  .shared .align 16 .b8 sbuf[%d]; .local .align 16 .b8 lbuf[32];\n", BLOCK * 16);
    put(t, "  ld.param.u64 %%rd1, [out]; ld.param.u64 %%rd2, [in];\n");
    put(t, "  mov.u32 %%r1, %%tid.x; mov.u32 %%r2, %%ctaid.x; mad.lo.s32 %%r3, %%r2, %d, %%r1;\n", BLOCK);
    put(t, "  mul.wide.u32 %%rd3, %%r3, 4; add.s64 %%rd4, %%rd2, %%rd3; ld.global.u32 %%r4, [%%rd4];\n");
    put(t, "  mul.wide.u32 %%rd5, %%r3, %d; add.s64 %%rd6, %%rd1, %%rd5;\n", NIMM * NOUT * 4);
    /* the slot: 16 bytes per thread in lane order, or a permutation of them
     * (37 t mod 64); in .local, one of two slots of the thread's buffer */
    if (is_local(c))
        put(t, "  %s mov.u32 %%r6, lbuf;\n", scattered ? "and.b32 %r5, %r1, 1; shl.b32 %r5, %r5, 4;" : "mov.u32 %r5, 0;");
    else if (scattered)
        put(t, "  mul.lo.s32 %%r5, %%r1, 37; and.b32 %%r5, %%r5, 63; shl.b32 %%r5, %%r5, 4; mov.u32 %%r6, sbuf;\n");
    else
        put(t, "  shl.b32 %%r5, %%r1, 4; mov.u32 %%r6, sbuf;\n");
    put(t, "  add.s32 %%r7, %%r6, %%r5;\n");
    if (divergent)
        put(t, "  mov.u32 %%r8, %%tid.x; and.b32 %%r8, %%r8, 1; setp.eq.u32 %%p1, %%r8, 0; @%%p1 bra DONE;\n");
    for (unsigned i = 0; i < NIMM; i++) {
        put(t, "  sub.s32 %%r10, %%r7, %d;\n", imms[i]);
        body(t, c, imms[i]);
        for (unsigned j = 0; j < c->nout; j++)
            put(t, "  st.global.u32 [%%rd6+%u], %%r%u;\n", (i * NOUT + j) * 4, 20 + j);
    }
    put(t, "DONE:\n  ret;\n}\n");
}

static char *module_text(const acase *c)
{
    text t = {0};
    put(&t, ".version 8.0\n.target sm_90\n.address_size 64\n");
    for (unsigned m = 0; m < MODES; m++)
        kernel_text(&t, c, m);
    return t.s;
}

/* ---- the C model ---- */

/* A thread's slot: four words at a 32-bit address of the space. */
typedef struct slot {
    uint32_t addr, w[4];
} slot;

/* The word a 32-bit address designates: base + imm wrapped, as the ISA
 * computes it, must fall in the slot. */
static uint32_t *word(slot *s, uint32_t base, int32_t imm, uint32_t delta)
{
    uint32_t a = base + (uint32_t)imm + delta, k = (a - s->addr) / 4;
    assert_true(a - s->addr < 16 && (a - s->addr) % 4 == 0);
    return &s->w[k];
}

static void model(const acase *c, uint32_t slot_addr, int32_t imm, uint32_t v, uint32_t out[NOUT])
{
    slot s = {.addr = slot_addr};
    uint32_t base = slot_addr - (uint32_t)imm;
    switch (c->fam) {
    case F_LDST:
        s.w[0] = ~v;
        *word(&s, base, imm, 0) = v;
        out[0] = s.w[0];
        s.w[1] = v + 1;
        out[1] = *word(&s, base, imm, 4);
        *word(&s, base, imm, 8) = v, *word(&s, base, imm, 12) = v ^ 0x5a5a5a5au;
        out[2] = s.w[2], out[3] = s.w[3];
        break;
    case F_ATOM: {
        s.w[0] = v;
        uint32_t *p = word(&s, base, imm, 0);
        out[0] = *p, *p += 5;
        *p ^= 3855;
        out[1] = *p;
        if (*p == ((v + 5) ^ 3855))
            *p = 99;
        out[2] = *p;
        *p = (int32_t)*p > (int32_t)v ? *p : v;
        out[3] = s.w[0];
        break;
    }
    case F_CVTA:
        out[0] = base + (uint32_t)imm - slot_addr; /* generic = window + shared: the window cancels */
        s.w[0] = v;
        out[1] = *word(&s, base, imm, 0);
        break;
    case F_ISSPACEP:
        s.w[0] = v;
        out[0] = *word(&s, base, imm, 0);
        out[1] = 1, out[2] = 0, out[3] = 0;
        break;
    case F_CP_ASYNC:
        s.w[0] = s.w[2] = ~v;
        *word(&s, base, imm, 0) = v;
        *word(&s, base, imm, 8) = 0; /* src-size 0: the 4 bytes are zero-filled */
        out[0] = s.w[0], out[1] = s.w[2];
        break;
    case F_MBARRIER: /* expected count 2: one arrive leaves 1 pending, the second completes phase 0 */
        word(&s, base, imm, 0);
        out[0] = 1, out[1] = 0, out[2] = 1;
        break;
    case F_MAPA: /* a cluster of one CTA: rank 0 is this CTA, its address unchanged */
        s.w[0] = ~v;
        *word(&s, base, imm, 0) = v;
        out[0] = s.w[0], out[1] = 0;
        break;
    }
}

/* ---- running ---- */


static uint32_t input(uint32_t g)
{
    static const uint32_t edges[] = {0, 1, 0x7fffffffu, 0x80000000u, 0xffffffffu, 98, 99, 100};
    if (g < sizeof edges / sizeof *edges)
        return edges[g];
    uint32_t x = g * 2654435761u ^ 0x9e3779b9u;
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    return x;
}

/* The slot's 32-bit address as the kernel computes it (only its offset
 * from the buffer matters to the model: the window's base cancels). */
static uint32_t slot_of(const acase *c, uint32_t tid, bool scattered)
{
    if (is_local(c))
        return scattered ? (tid & 1) * 16 : 0;
    return (scattered ? tid * 37 % 64 : tid) * 16;
}

static void run_case(void **state)
{
    const acase *c = *state;
    char *src = module_text(c), *log = NULL;
    ptxjit_module *m = ptxjit_load(test_ctx, src, strlen(src), c->name, &log, NULL);
    if (!m)
        fail_msg("%s does not load:\n%s\n%s", c->name, log ? log : "", src);
    free(log);
    uint32_t in[NT], *out = malloc(NT * NIMM * NOUT * 4);
    assert_non_null(out);
    for (uint32_t g = 0; g < NT; g++)
        in[g] = input(g);
    for (unsigned mode = 0; mode < MODES; mode++) {
        char name[64];
        snprintf(name, sizeof name, "%s_%u", c->name, mode);
        const ptxjit_kernel *k = ptxjit_kernel_get(m, name);
        assert_non_null(k);
        memset(out, 0xA5, NT * NIMM * NOUT * 4);
        struct { uint32_t *out, *in; } p = {out, in};
        ptxjit_launch_cfg cfg = {{GRID, 1, 1}, {BLOCK, 1, 1}, 0, &p, NULL};
        char err[256];
        if (ptxjit_launch(test_ctx, k, &cfg, err, sizeof err) != PTXJIT_OK)
            fail_msg("%s: %s", name, err);
        for (uint32_t g = 0; g < NT; g++) {
            uint32_t tid = g % BLOCK;
            bool runs = !(mode & 2) || (tid & 1);
            for (unsigned i = 0; i < NIMM; i++) {
                uint32_t want[NOUT] = {SENT, SENT, SENT, SENT};
                if (runs)
                    model(c, slot_of(c, tid, mode & 1), imms[i], in[g], want);
                for (unsigned j = 0; j < NOUT; j++) {
                    uint32_t got = out[(g * NIMM + i) * NOUT + j], w = j < c->nout || !runs ? want[j] : SENT;
                    if (got != w)
                        fail_msg("%s: thread %u, imm %d: output %u = 0x%x, want 0x%x (input 0x%x)", name, g, imms[i],
                                 j, got, w, in[g]);
                }
            }
        }
    }
    free(out);
    free(src);
    ptxjit_module_unload(m);
}

/* A .func storing through a 32-bit .local address of its caller's
 * buffer, from a base below zero: the same window in both functions. */
static const char func_src[] =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".func put_at(.param .b32 base, .param .b32 val)\n{\n"
    "  .reg .b32 %r<4>;\n"
    "  ld.param.u32 %r1, [base]; ld.param.u32 %r2, [val]; st.local.u32 [%r1+100], %r2; ret;\n}\n"
    ".visible .entry local_through_func(.param .u64 out)\n{\n"
    "  .local .align 4 .b8 buf[8]; .reg .b32 %r<8>; .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [out]; mov.u32 %r1, %tid.x; mov.u32 %r2, buf; sub.s32 %r3, %r2, 96;\n"
    "  mul.lo.s32 %r4, %r1, 3; st.local.u32 [%r2+4], 0;\n"
    "  { .param .b32 a; .param .b32 b; st.param.b32 [a], %r3; st.param.b32 [b], %r4;\n"
    "    call put_at, (a, b); }\n"
    "  ld.local.u32 %r5, [%r2+4];\n"
    "  mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2; st.global.u32 [%rd3], %r5; ret;\n}\n";

static void test_local_address_through_func(void **state)
{
    (void)state;
    char *log = NULL;
    ptxjit_module *m = ptxjit_load(test_ctx, func_src, strlen(func_src), "local_func.ptx", &log, NULL);
    if (!m)
        fail_msg("does not load:\n%s", log ? log : "");
    free(log);
    uint32_t out[BLOCK];
    struct { uint32_t *out; } p = {out};
    ptxjit_launch_cfg cfg = {{1, 1, 1}, {BLOCK, 1, 1}, 0, &p, NULL};
    char err[256];
    if (ptxjit_launch(test_ctx, ptxjit_kernel_get(m, "local_through_func"), &cfg, err, sizeof err) != PTXJIT_OK)
        fail_msg("%s", err);
    for (uint32_t t = 0; t < BLOCK; t++) /* (buf - 96) + 100 = buf + 4 */
        assert_int_equal(out[t], 3 * t);
    ptxjit_module_unload(m);
}

static const acase cases[] = {
    {"ldst_shared", F_LDST, ".shared", 4},
    {"ldst_shared_cta", F_LDST, ".shared::cta", 4},
    {"ldst_shared_cluster", F_LDST, ".shared::cluster", 4},
    {"ldst_local", F_LDST, ".local", 4},
    {"atom_shared", F_ATOM, ".shared", 4},
    {"atom_shared_cta", F_ATOM, ".shared::cta", 4},
    {"atom_shared_cluster", F_ATOM, ".shared::cluster", 4},
    {"cvta_shared", F_CVTA, ".shared", 2},
    {"cvta_shared_cta", F_CVTA, ".shared::cta", 2},
    {"cvta_local", F_CVTA, ".local", 2},
    {"isspacep_shared", F_ISSPACEP, ".shared", 4},
    {"cp_async_shared", F_CP_ASYNC, ".shared", 2},
    {"cp_async_shared_cta", F_CP_ASYNC, ".shared::cta", 2},
    {"mbarrier_shared", F_MBARRIER, ".shared", 3},
    {"mbarrier_shared_cta", F_MBARRIER, ".shared::cta", 3},
    {"mapa_shared_cluster", F_MAPA, ".shared::cluster", 2},
};
enum { NCASES = sizeof cases / sizeof cases[0] };

int main(void)
{
    struct CMUnitTest tests[NCASES + 1];
    for (size_t i = 0; i < NCASES; i++)
        tests[i] = (struct CMUnitTest){cases[i].name, run_case, NULL, NULL, (void *)&cases[i]};
    tests[NCASES] = (struct CMUnitTest){"local_address_through_func", test_local_address_through_func, NULL, NULL,
                                        NULL};
    return _cmocka_run_group_tests("address_wrap", tests, NCASES + 1, test_ctx_setup, test_ctx_teardown);
}
