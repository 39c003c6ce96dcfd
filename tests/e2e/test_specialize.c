/* test_specialize.c - launch-time specialization by block shape: one
 * kernel launched with five block shapes (1D, 2D, 3D, none a multiple of
 * 32 but one) in turn, twice over, in one process, under
 * PTXJIT_SPECIALIZE=always, 0 and auto: every launch right against a C
 * reference (special registers, linear ids, a barrier and shared atomics),
 * and the versions compiled are the policy's (always: four shapes, then
 * the generic code; 0: the generic code alone; auto: the first shape and
 * the generic code).  A .reqntid kernel is never compiled twice. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ptxjit/ptxjit.h"

/* Per thread {x + 1000 y + 1000000 z, sum over its block of t + 1,
 * ntid.x + 100 ntid.y + 10000 ntid.z, linear block index}, at the thread's
 * linear index in the grid. */
static const char shape_ptx[] =
    ".version 7.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry shape(.param .u64 out)\n"
    "{\n"
    "  .reg .b32 %r<24>; .reg .b64 %rd<4>; .reg .pred %p;\n"
    "  .shared .align 4 .u32 sum;\n"
    "  mov.u32 %r1, %tid.x; mov.u32 %r2, %tid.y; mov.u32 %r3, %tid.z;\n"
    "  mov.u32 %r4, %ntid.x; mov.u32 %r5, %ntid.y; mov.u32 %r6, %ntid.z;\n"
    "  mov.u32 %r7, %ctaid.x; mov.u32 %r8, %ctaid.y; mov.u32 %r9, %ctaid.z;\n"
    "  mov.u32 %r10, %nctaid.x; mov.u32 %r11, %nctaid.y;\n"
    "  mad.lo.u32 %r12, %r3, %r5, %r2; mad.lo.u32 %r12, %r12, %r4, %r1;\n"
    "  mad.lo.u32 %r13, %r9, %r11, %r8; mad.lo.u32 %r13, %r13, %r10, %r7;\n"
    "  mul.lo.u32 %r14, %r4, %r5; mul.lo.u32 %r14, %r14, %r6;\n"
    "  mad.lo.u32 %r15, %r13, %r14, %r12;\n"
    "  setp.ne.u32 %p, %r12, 0;\n"
    "  @%p bra SKIP;\n"
    "  st.shared.u32 [sum], 0;\n"
    "SKIP:\n"
    "  bar.sync 0;\n"
    "  add.u32 %r16, %r12, 1;\n"
    "  atom.shared.add.u32 %r17, [sum], %r16;\n"
    "  bar.sync 0;\n"
    "  ld.shared.u32 %r18, [sum];\n"
    "  mad.lo.u32 %r19, %r2, 1000, %r1; mad.lo.u32 %r19, %r3, 1000000, %r19;\n"
    "  mad.lo.u32 %r20, %r5, 100, %r4; mad.lo.u32 %r20, %r6, 10000, %r20;\n"
    "  mul.wide.u32 %rd1, %r15, 16;\n"
    "  ld.param.u64 %rd2, [out];\n"
    "  add.s64 %rd3, %rd2, %rd1;\n"
    "  st.global.v4.u32 [%rd3], {%r19, %r18, %r20, %r13};\n"
    "  ret;\n"
    "}\n"
    ".visible .entry fixed(.param .u64 out) .reqntid 48, 2, 1\n"
    "{\n"
    "  .reg .b32 %r<4>; .reg .b64 %rd<4>;\n"
    "  mov.u32 %r1, %tid.x; mov.u32 %r2, %tid.y; mov.u32 %r3, %ntid.x;\n"
    "  mad.lo.u32 %r1, %r2, %r3, %r1;\n"
    "  mul.wide.u32 %rd1, %r1, 4;\n"
    "  ld.param.u64 %rd2, [out];\n"
    "  add.s64 %rd3, %rd2, %rd1;\n"
    "  st.global.u32 [%rd3], %r1;\n"
    "  ret;\n"
    "}\n";

typedef struct launch_shape {
    uint32_t block[3], grid[3];
} launch_shape;

static const launch_shape shapes[] = {
    {{100, 1, 1}, {3, 1, 1}},  /* 1D, a partial last warp */
    {{7, 5, 1}, {2, 3, 1}},    /* 2D, 35 threads */
    {{5, 3, 7}, {2, 1, 2}},    /* 3D, 105 threads */
    {{33, 2, 2}, {1, 2, 1}},   /* 3D, rows of 33 */
    {{16, 16, 1}, {2, 2, 1}},  /* the fifth shape: generic code under always */
};
enum { NSHAPES = sizeof shapes / sizeof shapes[0] };

static uint64_t prod(const uint32_t v[3]) { return (uint64_t)v[0] * v[1] * v[2]; }

/* Launches `shape` with launch shape s; the number of wrong threads. */
static uint32_t check_shape(ptxjit_ctx *c, const ptxjit_kernel *k, const launch_shape *s)
{
    uint64_t nt = prod(s->block), n = nt * prod(s->grid);
    uint32_t(*out)[4] = calloc(n, sizeof *out);
    struct { uint64_t out; } p = {(uintptr_t)out};
    ptxjit_launch_cfg cfg = {.params = &p};
    memcpy(cfg.grid, s->grid, sizeof cfg.grid);
    memcpy(cfg.block, s->block, sizeof cfg.block);
    char err[512];
    if (ptxjit_launch(c, k, &cfg, err, sizeof err))
        fail_msg("launch (%u,%u,%u): %s", s->block[0], s->block[1], s->block[2], err);
    uint32_t wrong = 0, ntid = s->block[0] + 100 * s->block[1] + 10000 * s->block[2];
    uint32_t sum = (uint32_t)(nt * (nt + 1) / 2);
    for (uint64_t g = 0; g < n; g++) {
        uint32_t t = (uint32_t)(g % nt), b = (uint32_t)(g / nt);
        uint32_t x = t % s->block[0], y = t / s->block[0] % s->block[1];
        uint32_t z = t / (s->block[0] * s->block[1]);
        uint32_t want[4] = {x + 1000 * y + 1000000 * z, sum, ntid, b};
        wrong += memcmp(out[g], want, sizeof want) != 0;
    }
    free(out);
    return wrong;
}

static void run_mode(const char *mode, uint32_t want_compiled)
{
    setenv("PTXJIT_SPECIALIZE", mode, 1);
    char err[256], *log = NULL;
    ptxjit_ctx *c = ptxjit_create(2, err, sizeof err);
    assert_non_null(c);
    /* every version compiled here, none from another mode's run */
    assert_int_equal(ptxjit_set_cache(c, &(ptxjit_cache_opts){.enabled = false}), PTXJIT_OK);
    ptxjit_module *m = ptxjit_load(c, shape_ptx, sizeof shape_ptx - 1, "shape.ptx", &log, NULL);
    if (!m)
        fail_msg("load: %s", log ? log : "?");
    const ptxjit_kernel *k = ptxjit_kernel_get(m, "shape");
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < NSHAPES; i++)
            if (check_shape(c, k, &shapes[i]))
                fail_msg("PTXJIT_SPECIALIZE=%s: block (%u,%u,%u) wrong", mode,
                         shapes[i].block[0], shapes[i].block[1], shapes[i].block[2]);
    assert_int_equal(ptxjit_module_stats(m).kernels_compiled, want_compiled);
    /* .reqntid: one legal shape, which the generic code knows already */
    uint32_t out[96];
    struct { uint64_t out; } p = {(uintptr_t)out};
    ptxjit_launch_cfg cfg = {.grid = {1, 1, 1}, .block = {48, 2, 1}, .params = &p};
    for (int i = 0; i < 2; i++) {
        assert_int_equal(ptxjit_launch(c, ptxjit_kernel_get(m, "fixed"), &cfg, err, sizeof err),
                         PTXJIT_OK);
        for (uint32_t t = 0; t < 96; t++)
            assert_int_equal(out[t], t);
    }
    assert_int_equal(ptxjit_module_stats(m).kernels_compiled, want_compiled + 1);
    ptxjit_module_unload(m);
    ptxjit_destroy(c);
    unsetenv("PTXJIT_SPECIALIZE");
}

static void test_always(void **state)
{
    (void)state;
    run_mode("always", 4 + 1); /* four shapes, then the generic code */
}

static void test_off(void **state)
{
    (void)state;
    run_mode("0", 1);
}

/* Short launches never pay for a second compile: the first launch's shape
 * and the generic code for the others. */
static void test_auto(void **state)
{
    (void)state;
    run_mode("auto", 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_always),
        cmocka_unit_test(test_off),
        cmocka_unit_test(test_auto),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
