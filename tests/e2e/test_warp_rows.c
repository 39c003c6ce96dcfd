/* test_warp_rows.c - the order in which a launch runs its warps, and that
 * every thread runs once with its own indices, against C.  Kernels whose
 * warps cannot see one another (no barrier, no shared memory) with 2D
 * and 3D blocks run warp by warp across each grid row of CTAs (launch.c,
 * run_rows); 1D blocks, kernels with shared memory (static or dynamic),
 * grids one CTA wide and PTXJIT_NO_INTERLEAVE=1 keep CTA order.  Block
 * shapes that are not multiples of 32, 2D and 3D grids, one and two
 * workers; printf's output stays in CTA and thread order; a fault names
 * the CTA it happened in. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ptxjit/ptxjit.h"

/* who(rec, order, counter): thread g (CTA-linear * threads + thread-
 * linear) writes ctaid.xyz and tid.xyz to rec[6g..6g+5], adding 1 to
 * rec[6g+5]'s high half so that a second run shows; lane 0 of each warp
 * takes a ticket from *counter into order[cta * nwarps + warp].  `who_sh`
 * is the same with a shared variable it writes. */
#define WHO(NAME, SHARED, TOUCH)                                                                         \
    ".visible .entry " NAME "(.param .u64 rec, .param .u64 order, .param .u64 counter)\n{\n"          \
    "  .reg .pred %p<2>; .reg .b32 %r<40>; .reg .b64 %rd<12>;\n" SHARED                              \
    "  ld.param.u64 %rd1, [rec]; ld.param.u64 %rd2, [order]; ld.param.u64 %rd3, [counter];\n"       \
    "  mov.u32 %r1, %tid.x; mov.u32 %r2, %tid.y; mov.u32 %r3, %tid.z;\n"                            \
    "  mov.u32 %r4, %ntid.x; mov.u32 %r5, %ntid.y; mov.u32 %r6, %ntid.z;\n"                         \
    "  mov.u32 %r7, %ctaid.x; mov.u32 %r8, %ctaid.y; mov.u32 %r9, %ctaid.z;\n"                      \
    "  mov.u32 %r10, %nctaid.x; mov.u32 %r11, %nctaid.y;\n"                                         \
    "  mad.lo.s32 %r12, %r3, %r5, %r2; mad.lo.s32 %r12, %r12, %r4, %r1;\n"   /* thread */            \
    "  mad.lo.s32 %r13, %r9, %r11, %r8; mad.lo.s32 %r13, %r13, %r10, %r7;\n" /* cta */               \
    "  mul.lo.s32 %r14, %r4, %r5; mul.lo.s32 %r14, %r14, %r6;\n"            /* threads */           \
    "  mad.lo.s32 %r15, %r13, %r14, %r12; mul.wide.u32 %rd4, %r15, 24; add.s64 %rd5, %rd1, %rd4;\n" \
    "  st.global.u32 [%rd5], %r7; st.global.u32 [%rd5+4], %r8; st.global.u32 [%rd5+8], %r9;\n"      \
    "  st.global.u32 [%rd5+12], %r1; st.global.u32 [%rd5+16], %r2;\n"                                \
    "  ld.global.u32 %r16, [%rd5+20]; add.s32 %r16, %r16, 65536; or.b32 %r16, %r16, %r3;\n"         \
    "  st.global.u32 [%rd5+20], %r16;\n" TOUCH                                                       \
    "  and.b32 %r17, %r12, 31; setp.ne.s32 %p1, %r17, 0; @%p1 bra " NAME "_done;\n"                   \
    "  add.s32 %r18, %r14, 31; shr.u32 %r18, %r18, 5; shr.u32 %r19, %r12, 5;\n"                      \
    "  mad.lo.s32 %r20, %r13, %r18, %r19; atom.global.add.u32 %r21, [%rd3], 1;\n"                    \
    "  mul.wide.u32 %rd6, %r20, 4; add.s64 %rd7, %rd2, %rd6; st.global.u32 [%rd7], %r21;\n"          \
    NAME "_done:\n  ret;\n}\n"

static const char src[] =
    ".version 7.0\n.target sm_80\n.address_size 64\n"
    WHO("who", "", "")
    WHO("who_sh", "  .shared .align 4 .b32 sh[4];\n", "  mov.u32 %r30, sh; st.shared.u32 [%r30], %r1;\n")
    /* each thread prints its CTA and thread */
    ".extern .func (.param .b32 r) vprintf (.param .b64 fmt, .param .b64 args);\n"
    ".global .align 1 .b8 fmt[12] = {99, 37, 117, 32, 116, 37, 117, 10, 0};\n" /* "c%u t%u\n" */
    ".visible .entry say()\n{\n"
    "  .reg .b32 %r<20>; .reg .b64 %rd<8>; .local .align 8 .b8 buf[8];\n"
    "  mov.u32 %r1, %tid.x; mov.u32 %r2, %tid.y; mov.u32 %r4, %ntid.x; mad.lo.s32 %r5, %r2, %r4, %r1;\n"
    "  mov.u32 %r6, %ctaid.x; mov.u32 %r7, %ctaid.y; mov.u32 %r8, %nctaid.x; mad.lo.s32 %r9, %r7, %r8, %r6;\n"
    "  mov.u64 %rd1, buf; cvta.local.u64 %rd2, %rd1; st.local.u32 [%rd1], %r9; st.local.u32 [%rd1+4], %r5;\n"
    "  mov.u64 %rd3, fmt; cvta.global.u64 %rd4, %rd3;\n"
    "  { .param .b64 a0; st.param.b64 [a0], %rd4; .param .b64 a1; st.param.b64 [a1], %rd2;\n"
    "    .param .b32 r; call.uni (r), vprintf, (a0, a1); }\n"
    "  ret;\n}\n"
    /* xs(out): out[thread g] = %ctaid.x read in a .func, + 1000 %ctaid.y */
    ".func (.reg .b32 x) get_x()\n{\n  mov.u32 x, %ctaid.x;\n  ret;\n}\n"
    ".visible .entry xs(.param .u64 out)\n{\n"
    "  .reg .b32 %r<20>; .reg .b64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [out]; mov.u32 %r1, %tid.x; mov.u32 %r2, %tid.y; mov.u32 %r3, %ntid.x;\n"
    "  mov.u32 %r4, %ntid.y; mov.u32 %r5, %ctaid.y; mov.u32 %r6, %nctaid.x; mov.u32 %r7, %ctaid.x;\n"
    "  mad.lo.s32 %r8, %r2, %r3, %r1; mul.lo.s32 %r9, %r3, %r4; mad.lo.s32 %r10, %r5, %r6, %r7;\n"
    "  mad.lo.s32 %r11, %r10, %r9, %r8; call.uni (%r12), get_x, (); mad.lo.s32 %r13, %r5, 1000, %r12;\n"
    "  mul.wide.u32 %rd2, %r11, 4; add.s64 %rd3, %rd1, %rd2; st.global.u32 [%rd3], %r13;\n"
    "  ret;\n}\n"
    /* bsum(out): a 64-thread CTA sums 1000 %ctaid.x + 7 %ctaid.y + thread
     * (and %ctaid.x from a .func) through shared memory between barriers;
     * thread 0 writes the sum to out[cta] */
    ".visible .entry bsum(.param .u64 out)\n{\n"
    "  .reg .pred %p<4>; .reg .b32 %r<30>; .reg .b64 %rd<8>; .shared .align 4 .b32 s[64];\n"
    "  ld.param.u64 %rd1, [out]; mov.u32 %r1, %tid.x; mov.u32 %r2, %tid.y; mov.u32 %r3, %ntid.x;\n"
    "  mad.lo.s32 %r4, %r2, %r3, %r1; mov.u32 %r5, %ctaid.x; mov.u32 %r6, %ctaid.y; mov.u32 %r7, %nctaid.x;\n"
    "  call.uni (%r20), get_x, (); add.s32 %r5, %r5, %r20;\n"
    "  mul.lo.s32 %r8, %r5, 500; mad.lo.s32 %r8, %r6, 7, %r8; add.s32 %r8, %r8, %r4;\n"
    "  mov.u32 %r9, s; shl.b32 %r10, %r4, 2; add.s32 %r11, %r9, %r10; st.shared.u32 [%r11], %r8;\n"
    "  bar.sync 0;\n"
    "  setp.ne.s32 %p1, %r4, 0; @%p1 bra bsum_done;\n"
    "  mov.u32 %r12, 0; mov.u32 %r13, 0;\n"
    "bsum_loop:\n"
    "  shl.b32 %r14, %r13, 2; add.s32 %r15, %r9, %r14; ld.shared.u32 %r16, [%r15]; add.s32 %r12, %r12, %r16;\n"
    "  add.s32 %r13, %r13, 1; setp.lt.u32 %p2, %r13, 64; @%p2 bra bsum_loop;\n"
    "  mad.lo.s32 %r17, %r6, %r7, %r5; sub.s32 %r17, %r17, %r20; mul.wide.u32 %rd2, %r17, 4;\n"
    "  add.s64 %rd3, %rd1, %rd2; st.global.u32 [%rd3], %r12;\n"
    "bsum_done:\n  bar.sync 0;\n  ret;\n}\n"
    /* btrap: a 64-thread CTA with a barrier; thread 5 of CTA (5,2) traps (the last of a row call) */
    ".visible .entry btrap()\n{\n"
    "  .reg .pred %p<4>; .reg .b32 %r<8>; .shared .align 4 .b32 t[64];\n"
    "  mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ctaid.y; mov.u32 %r4, t;\n"
    "  shl.b32 %r5, %r1, 2; add.s32 %r6, %r4, %r5; st.shared.u32 [%r6], %r1; bar.sync 0;\n"
    "  setp.eq.s32 %p1, %r1, 5; setp.eq.s32 %p2, %r2, 5; setp.eq.s32 %p3, %r3, 2;\n"
    "  and.pred %p1, %p1, %p2; and.pred %p1, %p1, %p3; @%p1 trap;\n"
    "  bar.sync 0;\n  ret;\n}\n"
    /* thread (3,2) of CTA (2,1) stores through a null pointer */
    ".visible .entry crash(.param .u64 p)\n{\n"
    "  .reg .pred %p<6>; .reg .b32 %r<8>; .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [p]; mov.u32 %r1, %tid.x; mov.u32 %r2, %tid.y; mov.u32 %r3, %ctaid.x;\n"
    "  mov.u32 %r4, %ctaid.y; setp.eq.s32 %p1, %r1, 3; setp.eq.s32 %p2, %r2, 2; setp.eq.s32 %p3, %r3, 2;\n"
    "  setp.eq.s32 %p4, %r4, 1; and.pred %p1, %p1, %p2; and.pred %p3, %p3, %p4; and.pred %p1, %p1, %p3;\n"
    "  @!%p1 bra crash_done; mov.u32 %r5, 1; st.global.u32 [%rd1], %r5;\n"
    "crash_done:\n  ret;\n}\n";

typedef struct shape {
    uint32_t grid[3], block[3];
} shape;

/* Eight grid rows or more: one worker's chunks are then whole rows. */
static const shape shapes[] = {
    {{7, 8, 1}, {16, 16, 1}},  /* the stencil's block */
    {{5, 2, 4}, {8, 4, 4}},    /* 3D blocks in a 3D grid */
    {{9, 8, 1}, {5, 7, 1}},    /* 35 threads: a partial second warp */
    {{6, 9, 1}, {32, 8, 1}},   /* rows of one warp */
    {{11, 8, 1}, {64, 1, 1}},  /* 1D blocks: CTA order */
    {{1, 8, 1}, {16, 16, 1}},  /* one CTA per grid row: CTA order */
    {{40, 8, 1}, {16, 2, 1}},  /* one warp per CTA: either order is the same */
    {{3, 2, 1}, {16, 16, 1}},  /* fewer rows than chunks: rows split */
};

/* Whether a launch of shape s runs row-wise (launch.c, runs_rows). */
static bool rows_expected(const shape *s, bool shared, bool interleave)
{
    uint32_t threads = s->block[0] * s->block[1] * s->block[2];
    return interleave && !shared && threads > 32 && (s->block[1] > 1 || s->block[2] > 1) && s->grid[0] > 1;
}

/* The ticket of warp w of CTA cta with one worker: row-wise in chunks of
 * whole rows (launch.c, row_chunk), else in the pool's chunks of an
 * eighth of the grid, each run warp by warp across its part of a row. */
static uint32_t ticket(const shape *s, uint32_t nwarps, uint32_t cta, uint32_t w, bool rows)
{
    uint32_t width = s->grid[0], nctas = s->grid[0] * s->grid[1] * s->grid[2], rows_n = nctas / width;
    if (!rows)
        return cta * nwarps + w;
    uint32_t chunk = rows_n >= 8 ? rows_n / 8 * width : (nctas / 8 ? nctas / 8 : 1);
    /* the group holding cta: its chunk cut at row ends */
    uint32_t c0 = cta / chunk * chunk, r0 = cta / width * width;
    uint32_t first = c0 > r0 ? c0 : r0, last = (r0 + width < c0 + chunk ? r0 + width : c0 + chunk);
    if (last > nctas)
        last = nctas;
    return first * nwarps + w * (last - first) + (cta - first);
}

static ptxjit_ctx *context(unsigned threads, bool interleave)
{
    char err[256];
    if (interleave)
        unsetenv("PTXJIT_NO_INTERLEAVE");
    else
        setenv("PTXJIT_NO_INTERLEAVE", "1", 1);
    ptxjit_ctx *c = ptxjit_create(threads, err, sizeof err);
    unsetenv("PTXJIT_NO_INTERLEAVE");
    if (!c)
        fail_msg("ptxjit_create: %s", err);
    return c;
}

static ptxjit_module *load(ptxjit_ctx *c)
{
    char *log = NULL;
    ptxjit_module *m = ptxjit_load(c, src, strlen(src), "rows.ptx", &log, NULL);
    if (!m)
        fail_msg("did not load:\n%s", log ? log : "");
    return m;
}

/* Runs `name` over shape s; checks every thread's record and, with one
 * worker, the warps' order (rows: warp by warp across each grid row). */
static void check_shape(ptxjit_ctx *c, ptxjit_module *m, const char *name, const shape *s, uint32_t dyn,
                        bool one_worker, bool rows)
{
    const ptxjit_kernel *k = ptxjit_kernel_get(m, name);
    assert_non_null(k);
    uint32_t threads = s->block[0] * s->block[1] * s->block[2], nwarps = (threads + 31) / 32;
    uint32_t nctas = s->grid[0] * s->grid[1] * s->grid[2];
    uint32_t *rec = calloc((size_t)nctas * threads * 6, 4), *order = calloc((size_t)nctas * nwarps, 4), counter = 0;
    assert_non_null(rec);
    assert_non_null(order);
    struct { uint32_t *rec, *order, *counter; } p = {rec, order, &counter};
    ptxjit_launch_cfg cfg = {{s->grid[0], s->grid[1], s->grid[2]}, {s->block[0], s->block[1], s->block[2]}, dyn, &p,
                             NULL};
    char err[512];
    if (ptxjit_launch(c, k, &cfg, err, sizeof err) != PTXJIT_OK)
        fail_msg("%s: %s", name, err);
    for (uint32_t cta = 0; cta < nctas; cta++)
        for (uint32_t t = 0; t < threads; t++) {
            const uint32_t *r = &rec[((size_t)cta * threads + t) * 6];
            uint32_t want[6] = {cta % s->grid[0], cta / s->grid[0] % s->grid[1], cta / s->grid[0] / s->grid[1],
                                t % s->block[0], t / s->block[0] % s->block[1],
                                65536 | t / s->block[0] / s->block[1]};
            for (int i = 0; i < 6; i++)
                if (r[i] != want[i])
                    fail_msg("%s grid (%u,%u,%u) block (%u,%u,%u): CTA %u thread %u field %d = %#x, want %#x", name,
                             s->grid[0], s->grid[1], s->grid[2], s->block[0], s->block[1], s->block[2], cta, t, i,
                             r[i], want[i]);
        }
    assert_int_equal(counter, nctas * nwarps);
    uint8_t *seen = calloc(nctas * nwarps, 1);
    assert_non_null(seen);
    for (uint32_t i = 0; i < nctas * nwarps; i++) {
        if (order[i] >= nctas * nwarps || seen[order[i]]++)
            fail_msg("%s: ticket %u taken twice or out of range", name, order[i]);
    }
    for (uint32_t cta = 0; one_worker && cta < nctas; cta++)
        for (uint32_t w = 0; w < nwarps; w++) {
            uint32_t want = ticket(s, nwarps, cta, w, rows);
            if (order[cta * nwarps + w] != want)
                fail_msg("%s grid (%u,%u,%u) block (%u,%u,%u): warp %u of CTA %u ran %u-th, want %u (%s order)", name,
                         s->grid[0], s->grid[1], s->grid[2], s->block[0], s->block[1], s->block[2], w, cta,
                         order[cta * nwarps + w], want, rows ? "row" : "CTA");
        }
    free(seen);
    free(rec);
    free(order);
}

static void check_all(unsigned workers, bool interleave)
{
    ptxjit_ctx *c = context(workers, interleave);
    ptxjit_module *m = load(c);
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        check_shape(c, m, "who", &shapes[i], 0, workers == 1, rows_expected(&shapes[i], false, interleave));
        check_shape(c, m, "who_sh", &shapes[i], 0, workers == 1, rows_expected(&shapes[i], true, interleave));
        check_shape(c, m, "who", &shapes[i], 64, workers == 1, rows_expected(&shapes[i], true, interleave));
    }
    ptxjit_module_unload(m);
    ptxjit_destroy(c);
}

static void test_one_worker(void **state) { (void)state; check_all(1, true); }
static void test_two_workers(void **state) { (void)state; check_all(2, true); }
static void test_interleave_off(void **state) { (void)state; check_all(1, false); }

static void test_printf_order(void **state)
{
    (void)state;
    ptxjit_ctx *c = context(1, true);
    ptxjit_module *m = load(c);
    FILE *out = tmpfile();
    assert_non_null(out);
    ptxjit_launch_cfg cfg = {{3, 2, 1}, {8, 8, 1}, 0, NULL, out};
    char err[512];
    if (ptxjit_launch(c, ptxjit_kernel_get(m, "say"), &cfg, err, sizeof err) != PTXJIT_OK)
        fail_msg("say: %s", err);
    rewind(out);
    char line[64], want[64];
    for (uint32_t cta = 0; cta < 6; cta++)
        for (uint32_t t = 0; t < 64; t++) {
            snprintf(want, sizeof want, "c%u t%u\n", cta, t);
            if (!fgets(line, sizeof line, out) || strcmp(line, want))
                fail_msg("printf line for CTA %u thread %u: \"%s\", want \"%s\"", cta, t, line, want);
        }
    assert_null(fgets(line, sizeof line, out));
    fclose(out);
    ptxjit_module_unload(m);
    ptxjit_destroy(c);
}

static void test_fault_names_its_cta(void **state)
{
    (void)state;
    ptxjit_ctx *c = context(1, true);
    ptxjit_module *m = load(c);
    struct { void *p; } p = {NULL};
    ptxjit_launch_cfg cfg = {{4, 3, 1}, {16, 16, 1}, 0, &p, NULL};
    char err[512];
    assert_int_equal(ptxjit_launch(c, ptxjit_kernel_get(m, "crash"), &cfg, err, sizeof err), PTXJIT_ERR_FAULT);
    if (!strstr(err, "block (2,1,0)"))
        fail_msg("fault message names another block: %s", err);
    ptxjit_module_unload(m);
    ptxjit_destroy(c);
}

/* %ctaid.x read in a .func, in row order (run_rows passes the CTA's place
 * in the row to the code, and the code on to its calls). */
static void test_ctaid_in_func(void **state)
{
    (void)state;
    ptxjit_ctx *c = context(1, true);
    ptxjit_module *m = load(c);
    static const shape fn_shapes[] = {{{7, 8, 1}, {16, 16, 1}}, {{3, 2, 1}, {8, 8, 1}}, {{300, 1, 1}, {16, 4, 1}}};
    for (size_t i = 0; i < sizeof fn_shapes / sizeof *fn_shapes; i++) {
        const shape *sh = &fn_shapes[i];
        uint32_t threads = sh->block[0] * sh->block[1], n = sh->grid[0] * sh->grid[1] * threads;
        uint32_t *out = calloc(n, 4);
        assert_non_null(out);
        struct { uint32_t *out; } p = {out};
        ptxjit_launch_cfg cfg = {{sh->grid[0], sh->grid[1], 1}, {sh->block[0], sh->block[1], 1}, 0, &p, NULL};
        char err[512];
        if (ptxjit_launch(c, ptxjit_kernel_get(m, "xs"), &cfg, err, sizeof err) != PTXJIT_OK)
            fail_msg("xs: %s", err);
        for (uint32_t g = 0; g < n; g++) {
            uint32_t cta = g / threads, want = cta % sh->grid[0] + 1000 * (cta / sh->grid[0]);
            if (out[g] != want)
                fail_msg("xs grid (%u,%u): thread %u got %u, want %u", sh->grid[0], sh->grid[1], g, out[g], want);
        }
        free(out);
    }
    ptxjit_module_unload(m);
    ptxjit_destroy(c);
}

/* A kernel with barriers whose CTAs run whole: one call runs the rest of
 * a grid row of CTAs after the first (run_whole_rows); sums through
 * shared memory, %ctaid.x also from a .func, one and two workers, 1D and
 * 2D grids; a trap names its CTA. */
static void test_whole_rows(void **state)
{
    (void)state;
    static const uint32_t grids[][2] = {{9, 8}, {1, 5}, {200, 1}, {33, 3}};
    for (unsigned workers = 1; workers <= 2; workers++) {
        ptxjit_ctx *c = context(workers, true);
        ptxjit_module *m = load(c);
        for (size_t i = 0; i < sizeof grids / sizeof *grids; i++) {
            uint32_t gx = grids[i][0], gy = grids[i][1], *out = calloc(gx * gy, 4);
            assert_non_null(out);
            struct { uint32_t *out; } p = {out};
            ptxjit_launch_cfg cfg = {{gx, gy, 1}, {16, 4, 1}, 0, &p, NULL};
            char err[512];
            if (ptxjit_launch(c, ptxjit_kernel_get(m, "bsum"), &cfg, err, sizeof err) != PTXJIT_OK)
                fail_msg("bsum: %s", err);
            for (uint32_t cta = 0; cta < gx * gy; cta++) {
                uint32_t x = cta % gx, y = cta / gx, want = 0;
                for (uint32_t t = 0; t < 64; t++)
                    want += 2 * x * 500 + 7 * y + t;
                if (out[cta] != want)
                    fail_msg("bsum grid (%u,%u), %u workers: CTA (%u,%u) = %u, want %u", gx, gy, workers, x, y,
                             out[cta], want);
            }
            free(out);
        }
        ptxjit_launch_cfg cfg = {{6, 4, 1}, {64, 1, 1}, 0, NULL, NULL};
        char err[512];
        assert_int_equal(ptxjit_launch(c, ptxjit_kernel_get(m, "btrap"), &cfg, err, sizeof err), PTXJIT_ERR_TRAP);
        if (!strstr(err, "block (5,2,0)"))
            fail_msg("trap message names another block: %s", err);
        ptxjit_module_unload(m);
        ptxjit_destroy(c);
    }
}

int main(void)
{
    setenv("PTXJIT_SPECIALIZE", "always", 1); /* block shapes known: barriers uniform, CTAs whole */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_worker),
        cmocka_unit_test(test_two_workers),
        cmocka_unit_test(test_interleave_off),
        cmocka_unit_test(test_printf_order),
        cmocka_unit_test(test_fault_names_its_cta),
        cmocka_unit_test(test_ctaid_in_func),
        cmocka_unit_test(test_whole_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
