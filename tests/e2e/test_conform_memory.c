/* test_conform_memory.c - the memory model end to end:
 *
 *   - every ld/st qualifier (.weak, .relaxed, .acquire, .release,
 *     .volatile, .mmio, .nc; scopes .cta .cluster .gpu .sys; global,
 *     shared and generic; scalars and .v2/.v4) moves exactly its data, under
 *     a partial mask, with every fence/membar form between;
 *   - message passing between two CTAs (on two workers, so both are
 *     resident, as CUDA requires for any inter-CTA wait): a producer writes
 *     data with plain stores and publishes a flag, the consumer spins on the
 *     flag and must then read the new data; every release/acquire idiom
 *     (st.release/ld.acquire, fences around relaxed accesses, membar with
 *     volatile, atom/red as release and acquire), 100 round trips each way;
 *     with one worker only the one-directional form (CTA 0 before CTA 1);
 *   - "last block done": partial sums, a fence, atom.inc on a ticket that
 *     wraps back to 0, the last CTA sums the partials (stale ones are
 *     poisoned, so reading one before it is published shows);
 *   - nvcc 13 / clang fixtures (tests/cuda/atomics_global.cu and
 *     memory_ordering.cu) against the documented results.
 * References are values worked out from the ISA and the kernels' comments. */
#include <limits.h>
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
#include "test_util.h"

static ptxjit_ctx *ctxs[2];
static const unsigned workers_of[2] = {1, 2};

static ptxjit_module *load_text(int c, const char *src, size_t len, const char *name)
{
    char *log = NULL;
    ptxjit_module *m = ptxjit_load(ctxs[c], src, len, name, &log, NULL);
    if (!m)
        fail_msg("%s does not load:\n%s", name, log ? log : "");
    free(log);
    return m;
}

static void launch(int c, ptxjit_module *m, const char *kernel, uint32_t grid, uint32_t block, const void *params)
{
    const ptxjit_kernel *k = ptxjit_kernel_get(m, kernel);
    if (!k)
        fail_msg("no kernel %s", kernel);
    ptxjit_launch_cfg cfg = {{grid, 1, 1}, {block, 1, 1}, 0, params, NULL};
    char err[256];
    if (ptxjit_launch(ctxs[c], k, &cfg, err, sizeof err) != PTXJIT_OK)
        fail_msg("%s on %u worker(s): %s", kernel, workers_of[c], err);
}

/* ---- ld/st qualifiers and fences: data moves exactly ---- */

/* Every memory-order form the ISA gives ld and st (ptxas accepts exactly
 * these): weak (bare and .weak), .relaxed/.acquire/.release at each
 * scope, .volatile, and .mmio.relaxed.sys (scalar, global only). */
static const char *const ld_forms[] = {
    "", ".weak", ".relaxed.cta", ".relaxed.cluster", ".relaxed.gpu", ".relaxed.sys", ".acquire.cta",
    ".acquire.cluster", ".acquire.gpu", ".acquire.sys", ".volatile", ".mmio.relaxed.sys",
};
static const char *const st_forms[] = {
    "", ".weak", ".relaxed.cta", ".relaxed.cluster", ".relaxed.gpu", ".relaxed.sys", ".release.cta",
    ".release.cluster", ".release.gpu", ".release.sys", ".volatile", ".mmio.relaxed.sys",
};
enum { NFORMS = sizeof ld_forms / sizeof ld_forms[0] }; /* the last is .mmio */

/* State spaces: .global and generic addresses of global memory; .shared,
 * its ::cta and ::cluster spellings (a CTA's own window lies inside the
 * cluster's) and generic addresses of shared memory. */
typedef struct qspace {
    const char *ss;
    bool shared, generic;
} qspace;

static const qspace qspaces[] = {
    {".global", 0, 0}, {"", 0, 1}, {".shared", 1, 0}, {".shared::cta", 1, 0}, {".shared::cluster", 1, 0}, {"", 1, 1},
};
enum { NQSPACES = sizeof qspaces / sizeof qspaces[0] };

/* Shapes: element type, element size, count, register name. */
typedef struct qshape {
    const char *type;
    unsigned size, n;
    const char *reg;
} qshape;

static const qshape qshapes[] = {
    {".b8", 1, 1, "%h"},  {".u16", 2, 1, "%h"},     {".b32", 4, 1, "%r"},     {".f64", 8, 1, "%rd"},
    {".b128", 16, 1, "%q"}, {".v2.f32", 4, 2, "%f"}, {".v4.b32", 4, 4, "%r"}, {".v2.u64", 8, 2, "%rd"},
    {".v4.b16", 2, 4, "%h"},
};
enum { NQSHAPES = sizeof qshapes / sizeof qshapes[0], NQSCALARS = 5 /* the first five */ };

static const char *const fences[] = {
    "fence.sc.cta;", "fence.sc.cluster;", "fence.sc.gpu;", "fence.sc.sys;", "fence.acq_rel.cta;",
    "fence.acq_rel.cluster;", "fence.acq_rel.gpu;", "fence.acq_rel.sys;", "fence.acquire.gpu;",
    "fence.release.sys;", "fence.acquire.cluster;", "fence.release.cta;", "membar.cta;", "membar.gl;",
    "membar.sys;", "fence.proxy.alias;", "fence.proxy.async;", "fence.proxy.async.global;",
    "fence.proxy.async.shared::cta;", "membar.proxy.alias;", "fence.mbarrier_init.release.cluster;", "fence.cta;",
    "fence.gpu;",
};
enum { NF = sizeof fences / sizeof fences[0], QN = 200, QB = 100, QMAXW = 16 };

/* One kernel of the table: which forms, where, what shape. */
typedef struct qcase {
    int ld, st, space, shape, fence;
} qcase;

static int nqcases;
static qcase qcases[NQSPACES * NFORMS];

/* Per space, every load form paired with some store form (i -> 5i+1 is a
 * permutation of the forms, so every store form appears too), each pair
 * on a shape that rotates with the form and the space: every form meets
 * scalars and vectors across the spaces without compiling all of the
 * product (a module of every form x space x shape takes half a minute). */
static void make_qcases(void)
{
    nqcases = 0;
    for (int sp = 0; sp < NQSPACES; sp++) {
        int n = qspaces[sp].shared ? NFORMS - 1 : NFORMS; /* .mmio: global memory only */
        for (int i = 0; i < n; i++) {
            int st = (5 * i + 1) % n, sh = (i + 2 * sp) % NQSHAPES;
            if ((i == NFORMS - 1 || st == NFORMS - 1) && qshapes[sh].n > 1)
                sh = sh % NQSCALARS; /* .mmio: scalars only */
            qcases[nqcases] = (qcase){i, st, sp, sh, nqcases % NF};
            nqcases++;
        }
    }
}

static void vec_regs(char *o, size_t cap, const qshape *s, unsigned first)
{
    size_t n = 0;
    if (s->n > 1)
        n += (size_t)snprintf(o, cap, "{");
    for (unsigned i = 0; i < s->n; i++)
        n += (size_t)snprintf(o + n, cap - n, "%s%s%u", i ? ", " : "", s->reg, first + i);
    if (s->n > 1)
        snprintf(o + n, cap - n, "}");
}

/* Global: odd threads load their slot of `in` with one form and store it
 * to `out` with another.  Shared: every thread fills its slot with a
 * sentinel, threads with tid % 3 != 0 store `in` there with the store form,
 * then odd threads read their neighbour's (tid ^ 1) slot with the load form. */
static size_t emit_qcase(char *o, size_t cap, int k)
{
    const qcase *q = &qcases[k];
    const qspace *sp = &qspaces[q->space];
    const qshape *s = &qshapes[q->shape];
    unsigned w = s->size * s->n;
    char a[96], b[96];
    vec_regs(a, sizeof a, s, 1);
    vec_regs(b, sizeof b, s, 5);
    size_t n = (size_t)snprintf(o, cap,
        ".visible .entry q%d(.param .u64 pin, .param .u64 pout)\n{\n"
        "  .reg .pred %%p<4>; .reg .b16 %%h<9>; .reg .b32 %%r<16>; .reg .f32 %%f<9>; .reg .b64 %%rd<9>, %%ad<16>;"
        " .reg .b128 %%q<9>;\n"
        "  .shared .align 16 .b8 buf[%u];\n"
        "  ld.param.u64 %%ad11, [pin]; ld.param.u64 %%ad12, [pout];\n"
        "  mov.u32 %%r9, %%ctaid.x; mov.u32 %%r10, %%ntid.x; mov.u32 %%r11, %%tid.x; mad.lo.s32 %%r12, %%r9, %%r10, %%r11;\n"
        "  mul.wide.u32 %%ad13, %%r12, %u; add.s64 %%ad14, %%ad11, %%ad13; add.s64 %%ad15, %%ad12, %%ad13;\n"
        "  and.b32 %%r13, %%r11, 1; setp.ne.u32 %%p1, %%r13, 0;\n",
        k, QB * (w < 4 ? 4 : w), w); /* the fill's first store is word tid, whatever the size */
    if (!sp->shared)
        return n + (size_t)snprintf(o + n, cap - n,
            "  %s%s"
            "  @%%p1 ld%s%s%s %s, [%%ad14];\n  %s\n  @%%p1 st%s%s%s [%%ad15], %s;\n  ret;\n}\n",
            sp->generic ? "" : "cvta.to.global.u64 %ad14, %ad14; ", sp->generic ? "" : "cvta.to.global.u64 %ad15, %ad15;\n",
            ld_forms[q->ld], sp->ss, s->type, a, fences[q->fence], st_forms[q->st], sp->ss, s->type, a);
    return n + (size_t)snprintf(o + n, cap - n,
        "  mov.u64 %%ad1, buf;%s\n"
        "  mov.u32 %%r14, %%r11;\n"
        "$FILL:\n" /* the sentinel, a word at a time over the whole buffer */
        "  mul.wide.u32 %%ad2, %%r14, 4; add.s64 %%ad3, %%ad1, %%ad2; st%s.u32 [%%ad3], 0xa5a5a5a5;\n"
        "  add.u32 %%r14, %%r14, %%r10; setp.lt.u32 %%p3, %%r14, %u; @%%p3 bra $FILL;\n"
        "  bar.sync 0;\n"
        "  ld.global%s %s, [%%ad14];\n"
        "  mul.wide.u32 %%ad4, %%r11, %u; add.s64 %%ad5, %%ad1, %%ad4;\n"
        "  rem.u32 %%r15, %%r11, 3; setp.ne.u32 %%p2, %%r15, 0;\n"
        "  @%%p2 st%s%s%s [%%ad5], %s;\n"
        "  %s\n  bar.sync 0;\n"
        "  xor.b32 %%r15, %%r11, 1; mul.wide.u32 %%ad4, %%r15, %u; add.s64 %%ad6, %%ad1, %%ad4;\n"
        "  @%%p1 ld%s%s%s %s, [%%ad6];\n"
        "  @%%p1 st.global%s [%%ad15], %s;\n  ret;\n}\n",
        sp->generic ? " cvta.shared.u64 %ad1, %ad1;" : "", sp->generic ? "" : ".shared", (QB * w + 3) / 4, s->type, a,
        w, st_forms[q->st], sp->ss, s->type, a, fences[q->fence], w, ld_forms[q->ld], sp->ss, s->type, b,
        s->type, b);
}

/* The reference: what each thread's slot of `out` must hold afterwards. */
static void qcase_want(const qcase *q, const uint8_t *in, uint8_t *want, unsigned w)
{
    for (unsigned t = 0; t < QN; t++) {
        unsigned tid = t % QB, from = t ^ 1;
        uint8_t *d = want + t * w;
        if (!(tid & 1))
            memset(d, 0x5a, w); /* inactive: untouched */
        else if (!qspaces[q->space].shared)
            memcpy(d, in + t * w, w);
        else if ((from % QB) % 3 != 0)
            memcpy(d, in + from * w, w);
        else
            memset(d, 0xa5, w); /* the neighbour did not store */
    }
}

static void test_qualifiers_move_data(void **state)
{
    (void)state;
    make_qcases();
    size_t cap = (size_t)nqcases * 2048, n = 0;
    char *src = malloc(cap);
    n += (size_t)snprintf(src, cap, ".version 8.7\n.target sm_90\n.address_size 64\n");
    for (int k = 0; k < nqcases; k++)
        n += emit_qcase(src + n, cap - n, k);
    assert_true(n < cap);
    static _Alignas(16) uint8_t in[QN * QMAXW], out[QN * QMAXW], want[QN * QMAXW];
    for (unsigned i = 0; i < sizeof in; i++)
        in[i] = (uint8_t)((i * 0x9e3779b9u) >> 24) | 1; /* never a sentinel byte */
    int bad = 0;
    for (int c = 0; c < 2; c++) {
        ptxjit_module *m = load_text(c, src, n, "qualifiers.ptx");
        for (int k = 0; k < nqcases; k++) {
            const qcase *q = &qcases[k];
            unsigned w = qshapes[q->shape].size * qshapes[q->shape].n;
            memset(out, 0x5a, sizeof out);
            struct { void *in, *out; } p = {in, out};
            char name[16];
            snprintf(name, sizeof name, "q%d", k);
            launch(c, m, name, QN / QB, QB, &p);
            qcase_want(q, in, want, w);
            for (unsigned t = 0; t < QN; t++)
                if (memcmp(out + t * w, want + t * w, w) && bad++ < 8)
                    print_error("ld%s / st%s on '%s'%s%s: thread %u got %02x%02x.., want %02x%02x..\n",
                                ld_forms[q->ld], st_forms[q->st], qspaces[q->space].ss,
                                qspaces[q->space].generic ? " (generic)" : "", qshapes[q->shape].type, t,
                                out[t * w], out[t * w + w - 1], want[t * w], want[t * w + w - 1]);
        }
        ptxjit_module_unload(m);
    }
    free(src);
    assert_int_equal(bad, 0);
}

/* Forms the ISA does not have (ptxas rejects each) are load errors that
 * name the line, never a guess at what was meant. */
static void test_forbidden_forms_are_load_errors(void **state)
{
    (void)state;
    static const conform_bad bad[] = {
        {"ld.release.gpu.global.u32 %r1, [%rd1];", "'.release' is not a memory order of 'ld'"},
        {"st.acquire.gpu.global.u32 [%rd1], %r1;", "'.acquire' is not a memory order of 'st'"},
        {"ld.acq_rel.gpu.global.u32 %r1, [%rd1];", "not a memory order"},
        {"ld.relaxed.global.u32 %r1, [%rd1];", "needs a scope"},
        {"st.release.shared.u32 [%rd1], %r1;", "needs a scope"},
        {"ld.weak.gpu.global.u32 %r1, [%rd1];", "a scope on 'ld' needs"},
        {"ld.volatile.sys.global.u32 %r1, [%rd1];", "a scope on 'ld' needs"},
        {"ld.relaxed.gpu.local.u32 %r1, [%rd1];", "only defined on .global and .shared"},
        {"st.volatile.local.u32 [%rd1], %r1;", "only defined on .global and .shared"},
        {"ld.acquire.gpu.const.u32 %r1, [%rd1];", "only defined on .global and .shared"},
        {"ld.acquire.gpu.global.nc.u32 %r1, [%rd1];", "no cache operator or .nc"},
        {"ld.relaxed.gpu.global.cg.u32 %r1, [%rd1];", "no cache operator or .nc"},
        {"st.volatile.global.L1::no_allocate.u32 [%rd1], %r1;", "no eviction priority"},
        {"ld.mmio.relaxed.gpu.global.u32 %r1, [%rd1];", "'.mmio' needs '.relaxed.sys'"},
        {"st.mmio.sys.global.u32 [%rd1], %r1;", "a scope on 'st' needs .relaxed or .release"},
        {"ld.mmio.relaxed.sys.shared.u32 %r1, [%rd1];", "scalar access to .global"},
        {"ld.mmio.relaxed.sys.global.v2.u32 {%r1, %r2}, [%rd1];", "scalar access"},
        {"fence.sc;", "fence needs a scope"},
        {"membar.gpu;", "membar needs .cta, .gl or .sys"},
    };
    assert_int_equal(conform_expect_load_errors("sm_90", bad, sizeof bad / sizeof bad[0]), 0);
}

/* ---- message passing between CTAs ---- */

/* How the flag is published and observed.  %r10 holds the round number;
 * the acquire side leaves the flag it saw in %r21. */
typedef struct idiom {
    const char *name, *release, *acquire, *after;
} idiom;

static const idiom idioms[] = {
    {"st.release/ld.acquire", "st.release.gpu.global.u32 [%rdF], %r10;", "ld.acquire.gpu.global.u32 %r21, [%rdF];", ""},
    {"fence.acq_rel+relaxed", "fence.acq_rel.gpu; st.relaxed.gpu.global.u32 [%rdF], %r10;",
     "ld.relaxed.gpu.global.u32 %r21, [%rdF];", "fence.acq_rel.gpu;"},
    {"membar.gl+volatile", "membar.gl; st.volatile.global.u32 [%rdF], %r10;", "ld.volatile.global.u32 %r21, [%rdF];",
     "membar.gl;"},
    {"fence.sc+atom", "fence.sc.sys; atom.relaxed.sys.global.exch.b32 %r22, [%rdF], %r10;",
     "atom.relaxed.sys.global.or.b32 %r21, [%rdF], 0;", "fence.sc.sys;"},
    {"red.release/ld.acquire.sys", "red.release.gpu.global.max.u32 [%rdF], %r10;",
     "ld.acquire.sys.global.u32 %r21, [%rdF];", ""},
    {"atom.release/atom.acquire", "atom.release.gpu.global.exch.b32 %r22, [%rdF], %r10;",
     "atom.acquire.gpu.global.add.u32 %r21, [%rdF], 0;", ""},
    {"fence.release/fence.acquire", "fence.release.gpu; st.relaxed.sys.global.u32 [%rdF], %r10;",
     "ld.relaxed.sys.global.u32 %r21, [%rdF];", "fence.acquire.gpu;"},
    {"generic st.release.sys/ld.acquire.sys", "st.release.sys.u32 [%rdG], %r10;", "ld.acquire.sys.u32 %r21, [%rdG];", ""},
};
enum { NIDIOMS = sizeof idioms / sizeof idioms[0], SPIN_LIMIT = 1 << 25, ROUNDS = 100 };

/* Replaces the flag placeholders (%rdF global, %rdG generic) with a register. */
static void with_flag(char *out, size_t len, const char *t, const char *reg)
{
    size_t n = 0;
    for (const char *p = t; *p && n + 8 < len; p++) {
        if (!strncmp(p, "%rdF", 4) || !strncmp(p, "%rdG", 4)) {
            n += (size_t)snprintf(out + n, len - n, "%s", reg);
            p += 3;
        } else {
            out[n++] = *p;
        }
    }
    out[n] = 0;
}

/* Writes round r's data (two words per lane), then lane 0 publishes flag F. */
static size_t emit_produce(char *o, size_t cap, const idiom *id, const char *data, const char *flag,
                           const char *tag)
{
    char rel[200];
    with_flag(rel, sizeof rel, id->release, flag);
    return (size_t)snprintf(o, cap,
        "  mad.lo.s32 %%r12, %%r10, 1000, %%r3; add.s64 %%rd9, %s, %%rd8;\n"
        "  st.global.u32 [%%rd9], %%r12; add.u32 %%r13, %%r12, 7; st.global.u32 [%%rd9+128], %%r13;\n"
        "  bar.warp.sync -1;\n" /* every lane's data before lane 0's release */
        "  @%%p9 bra $P%s;\n  %s\n$P%s:\n",
        data, tag, rel, tag);
}

/* Spins until flag >= r (a bounded spin: a lost message is an error, not
 * a hang), then checks the data every lane reads. */
static size_t emit_consume(char *o, size_t cap, const idiom *id, const char *data, const char *flag,
                           const char *tag)
{
    char acq[200];
    with_flag(acq, sizeof acq, id->acquire, flag);
    return (size_t)snprintf(o, cap,
        "  mov.u32 %%r20, 0;\n"
        "$W%s:\n"
        "  %s\n"
        "  add.u32 %%r20, %%r20, 1; setp.gt.u32 %%p5, %%r20, %d; @%%p5 bra $TIMEOUT;\n"
        "  setp.lt.u32 %%p4, %%r21, %%r10; @%%p4 bra $W%s;\n"
        "  %s\n"
        "  mad.lo.s32 %%r12, %%r10, 1000, %%r3; add.s64 %%rd9, %s, %%rd8;\n"
        "  ld.global.u32 %%r14, [%%rd9]; ld.global.u32 %%r15, [%%rd9+128]; add.u32 %%r13, %%r12, 7;\n"
        "  setp.ne.u32 %%p6, %%r14, %%r12; setp.ne.or.u32 %%p6, %%r15, %%r13, %%p6;\n"
        "  @%%p6 red.global.add.u32 [%%rd4], 1;\n",
        tag, acq, SPIN_LIMIT, tag, id->after, data);
}

/* CTA 0: produce A, publish F0, (bidirectional) wait F1, check B.
 * CTA 1: wait F0, check A, (bidirectional) produce B, publish F1. */
static size_t emit_mp(char *o, size_t cap, int k)
{
    const idiom *id = &idioms[k];
    size_t n = (size_t)snprintf(o, cap,
        ".visible .entry mp%d(.param .u64 pa, .param .u64 pbuf, .param .u64 pflags, .param .u64 perr,\n"
        "    .param .u32 prounds, .param .u32 pbidir)\n{\n"
        "  .reg .pred %%p<12>; .reg .b32 %%r<24>; .reg .b64 %%rd<16>;\n"
        "  ld.param.u64 %%rd1, [pa]; ld.param.u64 %%rd2, [pbuf]; ld.param.u64 %%rd3, [pflags];\n"
        "  ld.param.u64 %%rd4, [perr]; ld.param.u32 %%r8, [prounds]; ld.param.u32 %%r9, [pbidir];\n"
        "  cvta.to.global.u64 %%rd1, %%rd1; cvta.to.global.u64 %%rd2, %%rd2;\n"
        "  mov.u32 %%r1, %%ctaid.x; mov.u32 %%r3, %%tid.x; mul.wide.u32 %%rd8, %%r3, 4;\n"
        "  setp.ne.u32 %%p9, %%r3, 0;\n" /* lane 0 publishes */
        "  add.s64 %%rd10, %%rd3, 0; add.s64 %%rd11, %%rd3, 64;\n"  /* F0, F1 (global) */
        "  cvta.global.u64 %%rd12, %%rd10; cvta.global.u64 %%rd13, %%rd11;\n" /* generic copies */
        "  setp.ne.u32 %%p10, %%r9, 0;\n"
        "  mov.u32 %%r10, 0;\n"
        "$ROUND:\n"
        "  add.u32 %%r10, %%r10, 1; setp.gt.u32 %%p7, %%r10, %%r8; @%%p7 bra $END;\n"
        "  setp.ne.u32 %%p8, %%r1, 0; @%%p8 bra $CTA1;\n",
        k);
    bool generic = strstr(id->release, "%rdG") != NULL;
    n += emit_produce(o + n, cap - n, id, "%rd1", generic ? "%rd12" : "%rd10", "A");
    n += (size_t)snprintf(o + n, cap - n, "  @!%%p10 bra $ROUND;\n");
    n += emit_consume(o + n, cap - n, id, "%rd2", generic ? "%rd13" : "%rd11", "B");
    n += (size_t)snprintf(o + n, cap - n, "  bra $ROUND;\n$CTA1:\n");
    n += emit_consume(o + n, cap - n, id, "%rd1", generic ? "%rd12" : "%rd10", "A");
    n += (size_t)snprintf(o + n, cap - n, "  @!%%p10 bra $ROUND;\n");
    n += emit_produce(o + n, cap - n, id, "%rd2", generic ? "%rd13" : "%rd11", "B");
    n += (size_t)snprintf(o + n, cap - n,
        "  bra $ROUND;\n"
        "$TIMEOUT:\n  red.global.add.u32 [%%rd4], 1000000;\n"
        "$END:\n  ret;\n}\n");
    return n;
}

static void test_message_passing(void **state)
{
    (void)state;
    size_t cap = 1 << 16, n = 0;
    char *src = malloc(cap);
    n += (size_t)snprintf(src, cap, ".version 8.7\n.target sm_90\n.address_size 64\n");
    for (int k = 0; k < NIDIOMS; k++)
        n += emit_mp(src + n, cap - n, k);
    int bad = 0;
    for (int c = 0; c < 2; c++) {
        ptxjit_module *m = load_text(c, src, n, "message_passing.ptx");
        for (int k = 0; k < NIDIOMS; k++) {
            static _Alignas(64) uint32_t a[64], b[64], flags[32], err;
            memset(a, 0, sizeof a), memset(b, 0, sizeof b), memset(flags, 0, sizeof flags), err = 0;
            /* two CTAs wait on each other only when two workers make them co-resident */
            uint32_t rounds = c ? ROUNDS : 1, bidir = c == 1;
            struct { void *a, *b, *flags, *err; uint32_t rounds, bidir; } p = {a, b, flags, &err, rounds, bidir};
            char name[16];
            snprintf(name, sizeof name, "mp%d", k);
            launch(c, m, name, 2, 32, &p);
            if (err && bad++ < 8)
                print_error("%s on %u worker(s): %u stale reads%s\n", idioms[k].name, workers_of[c], err % 1000000,
                            err >= 1000000 ? ", and a flag never arrived" : "");
            if ((flags[0] != rounds || flags[16] != (bidir ? rounds : 0)) && bad++ < 8)
                print_error("%s: flags %u %u after %u rounds\n", idioms[k].name, flags[0], flags[16], rounds);
        }
        ptxjit_module_unload(m);
    }
    free(src);
    assert_int_equal(bad, 0);
}

/* ---- a chain of CTAs, more of them than workers ---- */

/* CTA c waits for CTA c-1's flag, reads its data, adds c and publishes its
 * own: data[c][lane] = lane + c(c+1)/2 when every read is fresh.  Waiting
 * only on a lower CTA id cannot deadlock however few workers there are:
 * the pool hands out chunks of CTAs in increasing order and runs a chunk's
 * CTAs in increasing order, so the lowest unfinished CTA is always running,
 * and everything it waits for has finished.  The spin is bounded anyway, so
 * a lost message is an error, not a hang. */
enum { CHAIN_CTAS = 24 };

static size_t emit_chain(char *o, size_t cap, int k)
{
    const idiom *id = &idioms[k];
    char rel[200], acq[200];
    bool generic = strstr(id->release, "%rdG") != NULL;
    with_flag(rel, sizeof rel, id->release, generic ? "%rd12" : "%rd10");
    with_flag(acq, sizeof acq, id->acquire, generic ? "%rd13" : "%rd11");
    return (size_t)snprintf(o, cap,
        ".visible .entry chain%d(.param .u64 pdata, .param .u64 pflags, .param .u64 perr)\n{\n"
        "  .reg .pred %%p<12>; .reg .b32 %%r<24>; .reg .b64 %%rd<16>;\n"
        "  ld.param.u64 %%rd1, [pdata]; ld.param.u64 %%rd3, [pflags]; ld.param.u64 %%rd4, [perr];\n"
        "  mov.u32 %%r1, %%ctaid.x; mov.u32 %%r3, %%tid.x; setp.ne.u32 %%p9, %%r3, 0; mov.u32 %%r10, 1;\n"
        "  mad.lo.s32 %%r4, %%r1, 32, %%r3; mul.wide.u32 %%rd5, %%r4, 4; add.s64 %%rd6, %%rd1, %%rd5;\n"
        "  sub.s64 %%rd8, %%rd6, 128;\n"                                   /* CTA c-1's slot */
        "  mul.wide.u32 %%rd7, %%r1, 64; add.s64 %%rd10, %%rd3, %%rd7; sub.s64 %%rd11, %%rd10, 64;\n"
        "  cvta.global.u64 %%rd12, %%rd10; cvta.global.u64 %%rd13, %%rd11;\n" /* generic copies */
        "  mov.u32 %%r12, %%r3;\n"
        "  setp.eq.u32 %%p1, %%r1, 0; @%%p1 bra $PUB;\n"
        "  mov.u32 %%r20, 0;\n"
        "$W:\n  %s\n"
        "  add.u32 %%r20, %%r20, 1; setp.gt.u32 %%p5, %%r20, %d; @%%p5 bra $TIMEOUT;\n"
        "  setp.lt.u32 %%p4, %%r21, %%r10; @%%p4 bra $W;\n"
        "  %s\n"
        "  ld.global.u32 %%r14, [%%rd8];\n"
        "  sub.u32 %%r15, %%r1, 1; mul.lo.u32 %%r16, %%r15, %%r1; shr.u32 %%r16, %%r16, 1; add.u32 %%r16, %%r16, %%r3;\n"
        "  setp.ne.u32 %%p6, %%r14, %%r16; @%%p6 red.global.add.u32 [%%rd4], 1;\n"
        "  add.u32 %%r12, %%r14, %%r1;\n"
        "$PUB:\n"
        "  st.global.u32 [%%rd6], %%r12;\n"
        "  bar.warp.sync -1;\n" /* orders every lane's store before lane 0's release */
        "  @%%p9 bra $END;\n  %s\n  bra $END;\n"
        "$TIMEOUT:\n  red.global.add.u32 [%%rd4], 1000000;\n"
        "$END:\n  ret;\n}\n",
        k, acq, SPIN_LIMIT, id->after, rel);
}

static void test_message_chain(void **state)
{
    (void)state;
    size_t cap = 1 << 16, n = 0;
    char *src = malloc(cap);
    n += (size_t)snprintf(src, cap, ".version 8.7\n.target sm_90\n.address_size 64\n");
    for (int k = 0; k < NIDIOMS; k++)
        n += emit_chain(src + n, cap - n, k);
    int bad = 0;
    for (int c = 0; c < 2; c++) {
        ptxjit_module *m = load_text(c, src, n, "message_chain.ptx");
        for (int k = 0; k < NIDIOMS; k++)
            for (int rep = 0; rep < 4; rep++) {
                static _Alignas(64) uint32_t data[CHAIN_CTAS * 32], flags[CHAIN_CTAS * 16];
                uint32_t err = 0;
                memset(data, 0, sizeof data), memset(flags, 0, sizeof flags);
                struct { void *data, *flags, *err; } p = {data, flags, &err};
                char name[16];
                snprintf(name, sizeof name, "chain%d", k);
                launch(c, m, name, CHAIN_CTAS, 32, &p);
                unsigned wrong = 0;
                for (unsigned b = 0; b < CHAIN_CTAS; b++) {
                    wrong += flags[b * 16] != 1;
                    for (unsigned l = 0; l < 32; l++)
                        wrong += data[b * 32 + l] != l + b * (b + 1) / 2;
                }
                if ((err || wrong) && bad++ < 8)
                    print_error("chain '%s' on %u worker(s): %u stale reads%s, %u wrong words\n", idioms[k].name,
                                workers_of[c], err % 1000000, err >= 1000000 ? ", a flag never arrived" : "", wrong);
            }
        ptxjit_module_unload(m);
    }
    free(src);
    assert_int_equal(bad, 0);
}

/* ---- store buffering ---- */

/* CTA 0: x[i] = 1; fence; r0[i] = y[i].  CTA 1: y[i] = 1; fence; r1[i] = x[i].
 * With fence.sc (or membar, which is fence.sc) between them the ISA forbids
 * r0[i] == r1[i] == 0: the two fences are ordered one way or the other and
 * the later one's load sees the earlier one's store.  x86 lets a store
 * wait in its store buffer past a later load, so this is what fails when
 * fence.sc is compiled to less than a full fence.  The two CTAs meet before
 * each round (both are running: two CTAs, two workers); fresh locations
 * every round need no reset.  A fence.acq_rel variant allows the outcome
 * and only reports how often it happened. */
typedef struct sbform {
    const char *st, *fence, *ld;
    bool forbidden;
} sbform;

static const sbform sbforms[] = {
    {"st.relaxed.gpu.global.u32", "fence.sc.gpu;", "ld.relaxed.gpu.global.u32", true},
    {"st.relaxed.sys.u32", "fence.sc.sys;", "ld.relaxed.sys.u32", true},
    {"st.volatile.global.u32", "membar.gl;", "ld.volatile.global.u32", true},
    {"st.relaxed.cluster.global.u32", "fence.sc.cluster;", "ld.relaxed.cluster.global.u32", true},
    {"st.relaxed.gpu.global.u32", "fence.acq_rel.gpu;", "ld.relaxed.gpu.global.u32", false},
};
enum { NSB = sizeof sbforms / sizeof sbforms[0], SB_ROUNDS = 1000 };

static size_t emit_sb(char *o, size_t cap, int k)
{
    const sbform *f = &sbforms[k];
    return (size_t)snprintf(o, cap,
        ".visible .entry sb%d(.param .u64 px, .param .u64 pr, .param .u64 pgo, .param .u64 perr)\n{\n"
        "  .reg .pred %%p<8>; .reg .b32 %%r<24>; .reg .b64 %%rd<16>;\n"
        "  mov.u32 %%r3, %%tid.x; setp.ne.u32 %%p1, %%r3, 0; @%%p1 bra $END;\n"
        "  ld.param.u64 %%rd1, [px]; ld.param.u64 %%rd2, [pr]; ld.param.u64 %%rd3, [pgo]; ld.param.u64 %%rd4, [perr];\n"
        "  mov.u32 %%r1, %%ctaid.x; xor.b32 %%r2, %%r1, 1;\n"
        "  mul.wide.u32 %%rd5, %%r1, %u; add.s64 %%rd6, %%rd1, %%rd5;\n"  /* mine: x or y */
        "  mul.wide.u32 %%rd5, %%r2, %u; add.s64 %%rd7, %%rd1, %%rd5;\n"  /* the other's */
        "  mul.wide.u32 %%rd5, %%r1, %u; add.s64 %%rd8, %%rd2, %%rd5;\n"  /* my results */
        "  mov.u32 %%r10, 0; mov.u32 %%r11, 1;\n"
        "$ROUND:\n"
        "  atom.relaxed.gpu.global.add.u32 %%r12, [%%rd3], 1;\n"
        "  shl.b32 %%r13, %%r10, 1; add.u32 %%r13, %%r13, 2; mov.u32 %%r20, 0;\n"
        "$MEET:\n"
        "  ld.relaxed.gpu.global.u32 %%r14, [%%rd3];\n"
        "  add.u32 %%r20, %%r20, 1; setp.gt.u32 %%p2, %%r20, %d; @%%p2 bra $TIMEOUT;\n"
        "  setp.lt.u32 %%p3, %%r14, %%r13; @%%p3 bra $MEET;\n"
        "  mul.wide.u32 %%rd9, %%r10, 4; add.s64 %%rd10, %%rd6, %%rd9; add.s64 %%rd11, %%rd7, %%rd9;"
        " add.s64 %%rd12, %%rd8, %%rd9;\n"
        "  %s [%%rd10], %%r11;\n  %s\n  %s %%r15, [%%rd11];\n"
        "  st.global.u32 [%%rd12], %%r15;\n"
        "  add.u32 %%r10, %%r10, 1; setp.lt.u32 %%p4, %%r10, %d; @%%p4 bra $ROUND;\n"
        "  bra $END;\n"
        "$TIMEOUT:\n  red.global.add.u32 [%%rd4], 1;\n"
        "$END:\n  ret;\n}\n",
        k, SB_ROUNDS * 4, SB_ROUNDS * 4, SB_ROUNDS * 4, SPIN_LIMIT, f->st, f->fence, f->ld, SB_ROUNDS);
}

static void test_store_buffering(void **state)
{
    (void)state;
    size_t cap = 1 << 15, n = 0;
    char *src = malloc(cap);
    n += (size_t)snprintf(src, cap, ".version 8.7\n.target sm_90\n.address_size 64\n");
    for (int k = 0; k < NSB; k++)
        n += emit_sb(src + n, cap - n, k);
    ptxjit_module *m = load_text(1, src, n, "store_buffering.ptx"); /* two workers */
    int bad = 0;
    for (int k = 0; k < NSB; k++) {
        static _Alignas(64) uint32_t xy[2 * SB_ROUNDS], r[2 * SB_ROUNDS];
        uint32_t go = 0, err = 0;
        memset(xy, 0, sizeof xy), memset(r, 0xff, sizeof r);
        struct { void *x, *r, *go, *err; } p = {xy, r, &go, &err};
        char name[16];
        snprintf(name, sizeof name, "sb%d", k);
        launch(1, m, name, 2, 32, &p);
        unsigned both_zero = 0, invalid = 0;
        for (unsigned i = 0; i < SB_ROUNDS; i++) {
            both_zero += r[i] == 0 && r[SB_ROUNDS + i] == 0;
            invalid += r[i] > 1 || r[SB_ROUNDS + i] > 1 || xy[i] != 1 || xy[SB_ROUNDS + i] != 1;
        }
        if (!sbforms[k].forbidden) {
            printf("store buffering with '%s' (allowed): r0 = r1 = 0 in %u of %d rounds\n", sbforms[k].fence,
                   both_zero, SB_ROUNDS);
            both_zero = 0;
        }
        if ((err || invalid || both_zero) && bad++ < 8)
            print_error("store buffering '%s' / '%s': r0 = r1 = 0 in %u rounds, %u invalid%s\n", sbforms[k].st,
                        sbforms[k].fence, both_zero, invalid, err ? ", the CTAs never met" : "");
    }
    ptxjit_module_unload(m);
    free(src);
    assert_int_equal(bad, 0);
}

/* ---- last block done ---- */

typedef struct lbd {
    const char *release, *ticket, *acquire, *load;
} lbd;

static const lbd lbds[] = {
    {"membar.gl;", "atom.global.inc.u32", "", "ld.volatile.global.u32"}, /* as nvcc emits __threadfence() */
    {"fence.acq_rel.gpu;", "atom.global.inc.u32", "fence.acq_rel.gpu;", "ld.global.u32"},
    {"fence.sc.gpu;", "atom.relaxed.gpu.global.inc.u32", "fence.sc.gpu;", "ld.relaxed.gpu.global.u32"},
    {"", "atom.acq_rel.gpu.global.inc.u32", "", "ld.global.u32"},
    {"", "atom.release.gpu.inc.u32", "fence.acquire.gpu;", "ld.u32"}, /* generic */
};
enum { NLBD = sizeof lbds / sizeof lbds[0], LBD_GRID = 48, LBD_BLOCK = 96 };

static size_t emit_lbd(char *o, size_t cap, int k)
{
    const lbd *v = &lbds[k];
    return (size_t)snprintf(o, cap,
        ".visible .entry lbd%d(.param .u64 pin, .param .u64 ppart, .param .u64 pcount, .param .u64 presult,\n"
        "    .param .u64 ptickets)\n{\n"
        "  .reg .pred %%p<6>; .reg .b32 %%r<20>; .reg .b64 %%rd<16>;\n"
        "  .shared .align 4 .u32 ssum; .shared .align 4 .u32 slast;\n"
        "  ld.param.u64 %%rd1, [pin]; ld.param.u64 %%rd2, [ppart]; ld.param.u64 %%rd3, [pcount];\n"
        "  ld.param.u64 %%rd4, [presult]; ld.param.u64 %%rd5, [ptickets];\n"
        "  mov.u32 %%r1, %%ctaid.x; mov.u32 %%r2, %%ntid.x; mov.u32 %%r3, %%tid.x; mov.u32 %%r4, %%nctaid.x;\n"
        "  mad.lo.s32 %%r5, %%r1, %%r2, %%r3; setp.eq.u32 %%p1, %%r3, 0;\n"
        "  @%%p1 st.shared.u32 [ssum], 0;\n"
        "  bar.sync 0;\n"
        "  mul.wide.u32 %%rd6, %%r5, 4; add.s64 %%rd7, %%rd1, %%rd6; ld.global.u32 %%r6, [%%rd7];\n"
        "  red.shared.add.u32 [ssum], %%r6;\n"
        "  bar.sync 0;\n"
        "  @!%%p1 bra $WAIT;\n"
        "  ld.shared.u32 %%r7, [ssum]; mul.wide.u32 %%rd8, %%r1, 4; add.s64 %%rd9, %%rd2, %%rd8;\n"
        "  st.global.u32 [%%rd9], %%r7;\n"
        "  %s\n"
        "  sub.u32 %%r8, %%r4, 1; %s %%r9, [%%rd3], %%r8;\n"
        "  add.s64 %%rd10, %%rd5, %%rd8; st.global.u32 [%%rd10], %%r9;\n"
        "  setp.eq.u32 %%p2, %%r9, %%r8; selp.u32 %%r10, 1, 0, %%p2; st.shared.u32 [slast], %%r10;\n"
        "$WAIT:\n"
        "  bar.sync 0;\n"
        "  @!%%p1 bra $END;\n"
        "  ld.shared.u32 %%r10, [slast]; setp.eq.u32 %%p3, %%r10, 0; @%%p3 bra $END;\n"
        "  %s\n"
        "  mov.u32 %%r11, 0; mov.u32 %%r12, 0;\n"
        "$SUM:\n"
        "  mul.wide.u32 %%rd11, %%r12, 4; add.s64 %%rd12, %%rd2, %%rd11; %s %%r13, [%%rd12];\n"
        "  add.u32 %%r11, %%r11, %%r13; add.u32 %%r12, %%r12, 1; setp.lt.u32 %%p4, %%r12, %%r4; @%%p4 bra $SUM;\n"
        "  st.global.u32 [%%rd4], %%r11;\n"
        "$END:\n  ret;\n}\n",
        k, v->release, v->ticket, v->acquire, v->load);
}

static void test_last_block_done(void **state)
{
    (void)state;
    size_t cap = 1 << 15, n = 0;
    char *src = malloc(cap);
    n += (size_t)snprintf(src, cap, ".version 8.7\n.target sm_90\n.address_size 64\n");
    for (int k = 0; k < NLBD; k++)
        n += emit_lbd(src + n, cap - n, k);
    int bad = 0;
    for (int c = 0; c < 2; c++) {
        ptxjit_module *m = load_text(c, src, n, "last_block.ptx");
        for (int k = 0; k < NLBD; k++) {
            static uint32_t in[LBD_GRID * LBD_BLOCK], part[LBD_GRID], tickets[LBD_GRID];
            uint32_t count = 0;
            for (int rep = 0; rep < 8; rep++) {
                uint32_t want = 0, result = 0xdeadbeef;
                for (unsigned i = 0; i < LBD_GRID * LBD_BLOCK; i++)
                    in[i] = (uint32_t)(i * 2654435761u + (unsigned)rep), want += in[i];
                for (unsigned i = 0; i < LBD_GRID; i++)
                    part[i] = 0xdeadbeef, tickets[i] = 0xffffffff; /* a stale partial shows */
                struct { void *in, *part, *count, *result, *tickets; } p = {in, part, &count, &result, tickets};
                char name[16];
                snprintf(name, sizeof name, "lbd%d", k);
                launch(c, m, name, LBD_GRID, LBD_BLOCK, &p);
                uint32_t seen[LBD_GRID] = {0};
                for (unsigned i = 0; i < LBD_GRID; i++)
                    if (tickets[i] < LBD_GRID)
                        seen[tickets[i]]++;
                int perm = 1;
                for (unsigned i = 0; i < LBD_GRID; i++)
                    perm &= seen[i] == 1;
                if ((result != want || count != 0 || !perm) && bad++ < 8)
                    print_error("last block done '%s' + %s, %u worker(s): sum %#x, want %#x; counter %u "
                                "(want 0, inc wraps); tickets %s\n", lbds[k].release, lbds[k].ticket, workers_of[c],
                                result, want, count, perm ? "a permutation" : "not a permutation");
            }
        }
        ptxjit_module_unload(m);
    }
    free(src);
    assert_int_equal(bad, 0);
}

/* ---- nvcc / clang fixtures ---- */

static const char *const fixture_variants[] = {"sm_80", "sm_90", "clang.sm_80", "sm_75"};
enum { NVAR = sizeof fixture_variants / sizeof fixture_variants[0] };

static ptxjit_module *load_fixture(int c, const char *base, const char *variant)
{
    char path[512], name[128];
    snprintf(name, sizeof name, "%s.%s.ptx", base, variant);
    snprintf(path, sizeof path, "%s/ptx/corpus/%s", PTXJIT_TEST_DIR, name);
    size_t len;
    char *src = tu_read_file(path, &len);
    if (!src)
        return NULL;
    ptxjit_module *m = load_text(c, src, len, name);
    free(src);
    return m;
}

static int bad_count;
#define EXPECT(cond, ...)                                                                                  \
    do {                                                                                                   \
        if (!(cond) && bad_count++ < 12)                                                                   \
            print_error(__VA_ARGS__);                                                                      \
    } while (0)

enum { FN = 1000, FB = 96 };
#define FGRID ((FN + FB - 1) / FB)

static bool is_permutation(const int64_t *v, size_t n, int64_t lo)
{
    char *seen = calloc(n, 1);
    bool ok = true;
    for (size_t i = 0; i < n; i++) {
        if (v[i] < lo || v[i] >= lo + (int64_t)n || seen[v[i] - lo]++)
            ok = false;
    }
    free(seen);
    return ok;
}

static void atomics_global_checks(int c, ptxjit_module *m, const char *what)
{
    int n = FN;
    uint64_t tri = (uint64_t)n * (n - 1) / 2;
    { /* atomic_add_kinds */
        int ci = 5;
        unsigned cu = 7;
        unsigned long long cull = 9;
        float cf = 0.5f;
        double cd = 0.25;
        struct { void *a, *b, *c, *d, *e; int n; } p = {&ci, &cu, &cull, &cf, &cd, n};
        launch(c, m, "atomic_add_kinds", FGRID, FB, &p);
        EXPECT(ci == 5 + n && cu == (unsigned)(7 + tri) && cull == 9 + (tri << 20) && cf == 0.5f + n &&
                   cd == 0.25 + 0.5 * n,
               "%s atomic_add_kinds: %d %u %llu %g %g\n", what, ci, cu, cull, cf, cd);
    }
    { /* atomic_add_ticket: old values are a permutation / the set {0, 2, ..} */
        int counter = 100;
        static int tickets[FN];
        static float fold[FN];
        float fsum = 0;
        struct { void *a, *b, *c, *d; int n; } p = {&counter, tickets, &fsum, fold, n};
        launch(c, m, "atomic_add_ticket", FGRID, FB, &p);
        static int64_t t64[FN], f64[FN];
        for (int i = 0; i < n; i++)
            t64[i] = tickets[i], f64[i] = (int64_t)(fold[i] / 2);
        EXPECT(counter == 100 + n && fsum == 2.0f * n && is_permutation(t64, FN, 100) && is_permutation(f64, FN, 0),
               "%s atomic_add_ticket: counter %d fsum %g\n", what, counter, fsum);
    }
    { /* atomic_sub_minmax */
        static int in[FN];
        int vals[3] = {1000, INT_MAX, INT_MIN};
        unsigned uvals[3] = {UINT_MAX, 0, 12345};
        long long lvals[2] = {LLONG_MAX, LLONG_MIN};
        unsigned long long ulvals[2] = {ULLONG_MAX, 0};
        int w[3] = {1000, INT_MAX, INT_MIN};
        unsigned uw[3] = {UINT_MAX, 0, 12345};
        long long lw[2] = {LLONG_MAX, LLONG_MIN};
        unsigned long long ulw[2] = {ULLONG_MAX, 0};
        for (int i = 0; i < n; i++) {
            int v = (int)((unsigned)i * 2654435761u) >> 3;
            in[i] = i == 7 ? INT_MIN : i == 8 ? INT_MAX : v;
            v = in[i];
            w[0] = (int)((unsigned)w[0] - (unsigned)v);
            w[1] = v < w[1] ? v : w[1], w[2] = v > w[2] ? v : w[2];
            uw[0] = (unsigned)v < uw[0] ? (unsigned)v : uw[0], uw[1] = (unsigned)v > uw[1] ? (unsigned)v : uw[1];
            uw[2] -= (unsigned)v;
            long long l = (long long)v * 1000000LL;
            lw[0] = l < lw[0] ? l : lw[0], lw[1] = l > lw[1] ? l : lw[1];
            unsigned long long ul = (unsigned)v;
            ulw[0] = ul < ulw[0] ? ul : ulw[0], ulw[1] = ul > ulw[1] ? ul : ulw[1];
        }
        struct { void *a, *b, *c, *d, *e; int n; } p = {in, vals, uvals, lvals, ulvals, n};
        launch(c, m, "atomic_sub_minmax", FGRID, FB, &p);
        EXPECT(!memcmp(vals, w, sizeof w) && !memcmp(uvals, uw, sizeof uw) && !memcmp(lvals, lw, sizeof lw) &&
                   !memcmp(ulvals, ulw, sizeof ulw),
               "%s atomic_sub_minmax: %d %d %d / %u %u %u / %lld %lld / %llu %llu\n", what, vals[0], vals[1],
               vals[2], uvals[0], uvals[1], uvals[2], lvals[0], lvals[1], ulvals[0], ulvals[1]);
    }
    { /* atomic_inc_dec: olds run 0..limit, 0..limit, ... in some order */
        unsigned ctrs[2] = {0, 0}, limit = 37;
        static unsigned olds[FN];
        struct { void *a; unsigned limit; void *olds; int n; } p = {ctrs, limit, olds, n};
        launch(c, m, "atomic_inc_dec", FGRID, FB, &p);
        unsigned count[38] = {0};
        int ok = 1;
        for (int i = 0; i < n; i++)
            ok &= olds[i] <= limit, count[olds[i] <= limit ? olds[i] : 0]++;
        for (unsigned v = 0; v <= limit; v++)
            ok &= count[v] == (unsigned)(n / 38 + (v < (unsigned)n % 38));
        EXPECT(ok && ctrs[0] == (unsigned)n % 38 && ctrs[1] == (38 - (unsigned)n % 38) % 38,
               "%s atomic_inc_dec: ctrs %u %u, olds %s\n", what, ctrs[0], ctrs[1], ok ? "ok" : "wrong");
    }
    { /* atomic_bitwise */
        static unsigned in[FN];
        unsigned w32[4] = {~0u, 0, 0, 0}, r32[4] = {~0u, 0, 0, 0};
        unsigned long long w64[3] = {~0ull, 0, 0}, r64[3] = {~0ull, 0, 0};
        for (int i = 0; i < n; i++) {
            in[i] = (unsigned)i * 0x9e3779b9u | (i % 5 == 0 ? 0x80000000u : 0);
            unsigned long long V = ((unsigned long long)in[i] << 32) | (unsigned long long)(~in[i]);
            r32[0] &= in[i], r32[1] |= in[i], r32[2] ^= in[i], r32[3] |= 1u << (i & 31);
            r64[0] &= V, r64[1] |= V, r64[2] ^= V;
        }
        struct { void *a, *b, *c; int n; } p = {in, w32, w64, n};
        launch(c, m, "atomic_bitwise", FGRID, FB, &p);
        EXPECT(!memcmp(w32, r32, sizeof r32) && !memcmp(w64, r64, sizeof r64), "%s atomic_bitwise\n", what);
    }
    { /* atomic_exch_cas: the old values and the final form {init, 0..n-1} */
        int slot = -1;
        static int olds[FN];
        unsigned long long slot64 = 77;
        float fslot = -1;
        struct { void *a, *b, *c, *d; int n; } p = {&slot, olds, &slot64, &fslot, n};
        launch(c, m, "atomic_exch_cas", FGRID, FB, &p);
        static int64_t all[FN + 1];
        for (int i = 0; i < n; i++)
            all[i] = olds[i];
        all[n] = slot;
        EXPECT(is_permutation(all, FN + 1, -1) && slot64 < (unsigned)n && fslot >= 0 && fslot < n &&
                   fslot == floorf(fslot),
               "%s atomic_exch_cas: slot %d slot64 %llu fslot %g\n", what, slot, slot64, fslot);
    }
    { /* atomic_cas_loops */
        static float in[FN];
        float fmax = -1e30f, want = -1e30f;
        double prod = 1.0;
        unsigned short u16[2] = {0, 0xbeef};
        for (int i = 0; i < n; i++)
            in[i] = (float)((i * 37) % 1013) - 400.5f, want = in[i] > want ? in[i] : want;
        struct { void *a, *b, *c, *d; int n; } p = {in, &fmax, &prod, u16, n};
        launch(c, m, "atomic_cas_loops", FGRID, FB, &p);
        EXPECT(fmax == want && prod == ldexp(1.0, (n + 7) / 8) && u16[0] == 0x1234 && u16[1] == 0xbeef,
               "%s atomic_cas_loops: max %g (want %g) prod %g u16 %#x %#x\n", what, fmax, want, prod, u16[0], u16[1]);
    }
    { /* block_spinlock_counter: a real lock when two workers contend */
        int lock = 0, counter = 10;
        static int order[64];
        struct { void *a, *b, *c; } p = {&lock, &counter, order};
        launch(c, m, "block_spinlock_counter", 64, 64, &p);
        static int64_t o64[64];
        for (int i = 0; i < 64; i++)
            o64[i] = order[i];
        EXPECT(lock == 0 && counter == 74 && is_permutation(o64, 64, 10), "%s block_spinlock_counter: %d\n", what,
               counter);
    }
    { /* atomic_scoped */
        int iv[6] = {0, 0, INT_MIN, INT_MAX, -1, 0};
        unsigned uv[3] = {0, 0, 0}, wor = 0, wxor = 0;
        unsigned long long ullv[2] = {0, 0};
        float fv[2] = {0, 0};
        double dv[2] = {0, 0};
        static int olds[FN];
        for (int i = 0; i < n; i++)
            wor |= 1u << (i & 31), wxor ^= (unsigned)i;
        struct { void *a, *b, *c, *d, *e, *f; int n; } p = {iv, uv, ullv, fv, dv, olds, n};
        launch(c, m, "atomic_scoped", FGRID, FB, &p);
        static int64_t all[FN + 1];
        for (int i = 0; i < n; i++)
            all[i] = olds[i];
        all[n] = iv[4];
        EXPECT(iv[0] == n && iv[1] == 2 * n && iv[2] == n - 1 && iv[3] == -(n - 1) && iv[5] == 7 &&
                   is_permutation(all, FN + 1, -1) && uv[0] == wor && uv[1] == wxor && uv[2] == (unsigned)n % 1000 &&
                   ullv[0] == tri && ullv[1] == (unsigned)n && fv[0] == 0.25f * n && fv[1] == (float)n &&
                   dv[0] == n && dv[1] == 0.5 * n,
               "%s atomic_scoped: %d %d %d %d %d | %#x %#x %u | %llu %llu | %g %g | %g %g\n", what, iv[0], iv[1],
               iv[2], iv[3], iv[5], uv[0], uv[1], uv[2], ullv[0], ullv[1], fv[0], fv[1], dv[0], dv[1]);
    }
}

static void memory_ordering_checks(int c, ptxjit_module *m, const char *what)
{
    { /* last_block_sum: partials poisoned with NaN, so a stale read shows */
        enum { NB = 40, NIN = 256 * NB - 17 };
        static float in[NIN], partials[NB];
        unsigned done = 0;
        for (int rep = 0; rep < 4; rep++) {
            float result = -1, want = 0;
            for (int i = 0; i < NIN; i++)
                in[i] = (float)((i * 7 + rep) % 13) - 6.0f, want += in[i];
            for (int b = 0; b < NB; b++)
                partials[b] = NAN;
            struct { void *in; int n; void *p, *d, *r; } p = {in, NIN, partials, &done, &result};
            launch(c, m, "last_block_sum", NB, 256, &p);
            EXPECT(result == want && done == 0, "%s last_block_sum: %g, want %g, done %u\n", what, result, want, done);
        }
    }
    { /* atomic_ref_counters */
        enum { N = 96 * 5 - 10 };
        int counter = 50;
        unsigned long long max64 = 0;
        int flags[5] = {0};
        struct { void *a, *b, *c; int n; } p = {&counter, &max64, flags, N};
        launch(c, m, "atomic_ref_counters", 5, 96, &p);
        int ok = counter == 50 + N && max64 == 50 + N - 1;
        for (int b = 0; b < 5; b++) {
            unsigned want = 0;
            for (int t = 0; t < 96 && b * 96 + t < N; t++)
                want |= 1u << (t & 31);
            ok &= (unsigned)flags[b] == want;
        }
        EXPECT(ok, "%s atomic_ref_counters: counter %d max %llu\n", what, counter, max64);
    }
    { /* release_acquire_pair: warp 1 waits for warp 0 of the same CTA */
        int data[32], flag = 0, observed[32];
        memset(observed, 0, sizeof observed);
        struct { void *a, *b, *c; } p = {data, &flag, observed};
        launch(c, m, "release_acquire_pair", 1, 64, &p);
        int ok = 1;
        for (int k = 0; k < 32; k++)
            ok &= observed[k] == k * k + 1;
        EXPECT(ok, "%s release_acquire_pair\n", what);
    }
    { /* shared_flag_handshake: warp 1 waits on a volatile shared flag warp 0 sets */
        enum { NB = 3 };
        int in[NB * 32], out[NB * 32];
        for (int i = 0; i < NB * 32; i++)
            in[i] = i * 7 - 50, out[i] = -1;
        struct { void *in, *out; } p = {in, out};
        launch(c, m, "shared_flag_handshake", NB, 64, &p);
        int ok = 1;
        for (int b = 0; b < NB; b++)
            for (int l = 0; l < 32; l++)
                ok &= out[b * 32 + l] == in[b * 32 + 31 - l] * 2 + 1;
        EXPECT(ok, "%s shared_flag_handshake\n", what);
    }
    { /* fence_system_publish, thread_fence_orders */
        int mailbox[2] = {0, 0}, seq = 41, a[3] = {0}, b[1] = {0};
        struct { void *a, *b; int v; } p = {mailbox, &seq, 1234};
        launch(c, m, "fence_system_publish", 3, 32, &p);
        struct { void *a, *b; } q = {a, b};
        launch(c, m, "thread_fence_orders", 2, 32, &q);
        EXPECT(mailbox[0] == 1234 && seq == 42 && b[0] == 6 && a[0] == 1 && a[1] == 2 && a[2] == 3,
               "%s fence_system_publish/thread_fence_orders\n", what);
    }
}

static void run_fixture(const char *base, void (*checks)(int, ptxjit_module *, const char *))
{
    bad_count = 0;
    for (int c = 0; c < 2; c++)
        for (int v = 0; v < NVAR; v++) {
            ptxjit_module *m = load_fixture(c, base, fixture_variants[v]);
            if (!m)
                continue; /* not generated for this variant */
            char what[96];
            snprintf(what, sizeof what, "%s.%s (%u worker(s))", base, fixture_variants[v], workers_of[c]);
            checks(c, m, what);
            ptxjit_module_unload(m);
        }
    assert_int_equal(bad_count, 0);
}

static void test_fixture_atomics_global(void **state)
{
    (void)state;
    run_fixture("atomics_global", atomics_global_checks);
}

static void test_fixture_memory_ordering(void **state)
{
    (void)state;
    run_fixture("memory_ordering", memory_ordering_checks);
}

/* tests/cuda/memory_model.cu: references from the kernels' comments. */
static void memory_model_checks(int c, ptxjit_module *m, const char *what)
{
    static const char *const chains[] = {"chain_release_acquire", "chain_volatile_fence"};
    for (int k = 0; k < 2; k++) { /* blocks wait only for lower ones: safe on one worker */
        enum { NB = 20 };
        static int data[NB * 32], flags[NB];
        int stale = 0, wrong = 0;
        memset(data, 0, sizeof data), memset(flags, 0, sizeof flags);
        struct { void *d, *f, *s; } p = {data, flags, &stale};
        launch(c, m, chains[k], NB, 32, &p);
        for (int b = 0; b < NB; b++) {
            wrong += flags[b] != 1;
            for (int l = 0; l < 32; l++)
                wrong += data[b * 32 + l] != l + b * (b + 1) / 2;
        }
        EXPECT(!stale && !wrong, "%s %s: %d stale reads, %d wrong words\n", what, chains[k], stale, wrong);
    }
    if (workers_of[c] > 1) { /* store_buffer_sc: its two blocks must run at once */
        enum { R = 1000 };
        static int xy[2 * R], r[2 * R];
        unsigned go = 0;
        memset(xy, 0, sizeof xy), memset(r, 0xff, sizeof r);
        struct { void *xy, *r, *go; int rounds; } p = {xy, r, &go, R};
        launch(c, m, "store_buffer_sc", 2, 32, &p);
        int both = 0, invalid = 0;
        for (int i = 0; i < R; i++) {
            both += r[i] == 0 && r[R + i] == 0;
            invalid += (unsigned)r[i] > 1 || (unsigned)r[R + i] > 1 || xy[i] != 1 || xy[R + i] != 1;
        }
        EXPECT(!both && !invalid && go == 2 * R, "%s store_buffer_sc: r0 = r1 = 0 in %d rounds, %d invalid\n",
               what, both, invalid);
    }
    { /* atomic_ref_orders */
        enum { N = 333, B = 64, G = (N + B - 1) / B };
        int iv[7] = {0, 0, INT_MIN, INT_MAX, -1, 0, 0};
        unsigned long long uv[2] = {0, 0}, x = 0;
        static int olds[N];
        struct { void *iv, *uv, *olds; int n; } p = {iv, uv, olds, N};
        launch(c, m, "atomic_ref_orders", G, B, &p);
        static int64_t o64[N];
        for (int i = 0; i < N; i++)
            o64[i] = olds[i], x ^= 1ull << (i & 63);
        EXPECT(iv[0] == N && is_permutation(o64, N, 0) && iv[1] == -2 * N && iv[2] == N - 1 && iv[3] == -(N - 1) &&
                   iv[4] >= 0 && iv[4] < N && iv[5] >= 1000 && iv[5] < 1000 + N && iv[6] == G * B &&
                   uv[0] == (unsigned long long)N * (N - 1) / 2 && uv[1] == x,
               "%s atomic_ref_orders: %d %d %d %d %d %d %d | %llu %#llx\n", what, iv[0], iv[1], iv[2], iv[3], iv[4],
               iv[5], iv[6], uv[0], uv[1]);
    }
    { /* volatile_mailbox */
        int box[33] = {0}, out[32];
        memset(out, 0, sizeof out);
        struct { void *box, *out; } p = {box, out};
        launch(c, m, "volatile_mailbox", 1, 64, &p);
        int ok = box[0] == 1;
        for (int k = 0; k < 32; k++)
            ok &= out[k] == 3 * k + 7;
        EXPECT(ok, "%s volatile_mailbox\n", what);
    }
}

static void test_fixture_memory_model(void **state)
{
    (void)state;
    run_fixture("memory_model", memory_model_checks);
}

static int setup(void **state)
{
    (void)state;
    char err[256];
    /* one worker, and PTXJIT_THREADS=2 (as a user would set it) */
    ctxs[0] = ptxjit_create(1, err, sizeof err);
    setenv("PTXJIT_THREADS", "2", 1);
    ctxs[1] = ptxjit_create(0, err, sizeof err);
    unsetenv("PTXJIT_THREADS");
    return ctxs[0] && ctxs[1] ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    for (int c = 0; c < 2; c++)
        ptxjit_destroy(ctxs[c]);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_qualifiers_move_data), cmocka_unit_test(test_forbidden_forms_are_load_errors),   cmocka_unit_test(test_message_passing), cmocka_unit_test(test_message_chain),
        cmocka_unit_test(test_store_buffering),
        cmocka_unit_test(test_last_block_done),        cmocka_unit_test(test_fixture_atomics_global),
        cmocka_unit_test(test_fixture_memory_ordering), cmocka_unit_test(test_fixture_memory_model),
    };
    return cmocka_run_group_tests_name("memory_model", tests, setup, teardown);
}
