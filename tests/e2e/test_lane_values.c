/* test_lane_values.c - shared-memory atomics whose addresses are computed
 * from a global load in the same block (a histogram's bins), against C
 * references.  With every lane active each lane's address is recomputed
 * from the element it loaded, read again (lower_lane_value.c): bytes and
 * signed bytes, 16-bit elements with an immediate offset, and the cases
 * where reading again would be wrong and must not happen - the element
 * overwritten between the load and the atomic, the load's address
 * register moved on, a register the address is computed from written
 * again.  Grid-stride loops over sizes that leave partial warps, in
 * several block sizes, specialized and generic (PTXJIT_SPECIALIZE). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ptxjit/ptxjit.h"
#include "test_ctx.h"

enum { BINS = 260, MAX_N = 70000 };

/* hist(in, n, out): bins in shared memory, cleared, counted over a
 * grid-stride loop (BODY leaves the bin's address in %r22, the atomic
 * adds at [%r22 + OFF]), then added into out. */
#define HIST(NAME, BODY, OFF)                                                                             \
    ".visible .entry " NAME "(.param .u64 in, .param .u32 n, .param .u64 out)\n{\n"                    \
    "  .reg .pred %p<4>; .reg .b16 %rs<4>; .reg .b32 %r<32>; .reg .b64 %rd<12>;\n"                     \
    "  .shared .align 4 .b8 sh[1040];\n"                                                              \
    "  ld.param.u64 %rd1, [in]; ld.param.u32 %r1, [n]; ld.param.u64 %rd2, [out];\n"                   \
    "  mov.u32 %r2, %tid.x; mov.u32 %r3, %ntid.x; mov.u32 %r6, sh; mov.u32 %r4, %r2;\n"              \
    NAME "_Z:\n"                                                                                      \
    "  setp.ge.u32 %p1, %r4, 260; @%p1 bra " NAME "_ZD;\n"                                            \
    "  shl.b32 %r5, %r4, 2; add.s32 %r7, %r6, %r5; mov.u32 %r13, 0; st.shared.u32 [%r7], %r13;\n"     \
    "  add.s32 %r4, %r4, %r3; bra " NAME "_Z;\n"                                                      \
    NAME "_ZD:\n"                                                                                     \
    "  bar.sync 0;\n"                                                                                 \
    "  mov.u32 %r8, %ctaid.x; mad.lo.s32 %r10, %r8, %r3, %r2; mov.u32 %r11, %nctaid.x;\n"             \
    "  mul.lo.s32 %r12, %r11, %r3; mov.u32 %r9, 0;\n"                                                 \
    "  setp.ge.s32 %p2, %r10, %r1; @%p2 bra " NAME "_D;\n"                                            \
    NAME "_L:\n"                                                                                      \
    BODY                                                                                              \
    "  atom.shared.add.u32 %r23, [%r22" OFF "], 1;\n"                                                 \
    "  add.s32 %r10, %r10, %r12; setp.lt.s32 %p3, %r10, %r1; @%p3 bra " NAME "_L;\n"                  \
    NAME "_D:\n"                                                                                      \
    "  bar.sync 0; mov.u32 %r4, %r2;\n"                                                               \
    NAME "_W:\n"                                                                                      \
    "  setp.ge.u32 %p1, %r4, 260; @%p1 bra " NAME "_WD;\n"                                            \
    "  shl.b32 %r5, %r4, 2; add.s32 %r7, %r6, %r5; ld.shared.u32 %r13, [%r7];\n"                      \
    "  cvt.u64.u32 %rd5, %r5; add.s64 %rd6, %rd2, %rd5; red.global.add.u32 [%rd6], %r13;\n"           \
    "  add.s32 %r4, %r4, %r3; bra " NAME "_W;\n"                                                      \
    NAME "_WD:\n"                                                                                     \
    "  ret;\n}\n"

#define BYTE_AT "  cvt.s64.s32 %rd3, %r10; add.s64 %rd4, %rd1, %rd3;\n"

static const char src[] =
    ".version 7.0\n.target sm_80\n.address_size 64\n"
    /* bin = the byte */
    HIST("h_u8", BYTE_AT "  ld.global.u8 %rs1, [%rd4]; mul.wide.u16 %r20, %rs1, 4; mov.u32 %r21, sh;\n"
                         "  add.s32 %r22, %r21, %r20;\n", "")
    /* bin = the signed byte + 128 */
    HIST("h_s8", BYTE_AT "  ld.global.s8 %rs1, [%rd4]; cvt.s32.s16 %r19, %rs1; add.s32 %r18, %r19, 128;\n"
                         "  shl.b32 %r20, %r18, 2; mov.u32 %r21, sh; add.s32 %r22, %r21, %r20;\n", "")
    /* bin = (the 16-bit element & 255) + 1 */
    HIST("h_u16", "  mul.wide.s32 %rd3, %r10, 2; add.s64 %rd4, %rd1, %rd3; ld.global.u16 %rs1, [%rd4];\n"
                  "  cvt.u32.u16 %r19, %rs1; and.b32 %r18, %r19, 255; mov.u32 %r21, sh;\n"
                  "  mad.lo.s32 %r22, %r18, 4, %r21;\n", "+4")
    /* bin = the byte, which is overwritten with 7 before the atomic */
    HIST("h_stored", BYTE_AT "  ld.global.u8 %rs1, [%rd4]; mov.u16 %rs2, 7; st.global.u8 [%rd4], %rs2;\n"
                             "  mul.wide.u16 %r20, %rs1, 4; mov.u32 %r21, sh; add.s32 %r22, %r21, %r20;\n", "")
    /* bin = the byte; the load's address register moves on before the atomic */
    HIST("h_moved", BYTE_AT "  ld.global.u8 %rs1, [%rd4]; add.s64 %rd4, %rd4, 1; mul.wide.u16 %r20, %rs1, 4;\n"
                            "  mov.u32 %r21, sh; add.s32 %r22, %r21, %r20;\n", "")
    /* bin = the byte + %r9 (0 in each thread's first trip, then 2), %r9
     * set to 2 between its read and the atomic */
    HIST("h_leaf", BYTE_AT "  ld.global.u8 %rs1, [%rd4]; cvt.u32.u16 %r19, %rs1; add.s32 %r18, %r19, %r9;\n"
                           "  mov.u32 %r9, 2; shl.b32 %r20, %r18, 2; mov.u32 %r21, sh; add.s32 %r22, %r21, %r20;\n", "");

typedef enum kind { U8, S8, U16, STORED, MOVED, LEAF } kind;

static const char *const names[] = {"h_u8", "h_s8", "h_u16", "h_stored", "h_moved", "h_leaf"};

static uint32_t bin_of(kind k, const uint8_t *in, uint32_t i, uint32_t threads)
{
    switch (k) {
    case S8: return (uint32_t)((int8_t)in[i] + 128);
    case U16: return (uint32_t)((in[2 * i] | in[2 * i + 1] << 8) & 255) + 1;
    case LEAF: return in[i] + (i >= threads ? 2u : 0u);
    default: return in[i];
    }
}

static void check(kind k)
{
    static uint8_t in[2 * MAX_N], orig[2 * MAX_N];
    for (uint32_t i = 0; i < sizeof in; i++)
        orig[i] = (uint8_t)((i * 2654435761u) >> 23 ^ i);
    char *log = NULL;
    ptxjit_module *m = ptxjit_load(test_ctx, src, strlen(src), "lanes.ptx", &log, NULL);
    if (!m)
        fail_msg("did not load:\n%s", log ? log : "");
    const ptxjit_kernel *kern = ptxjit_kernel_get(m, names[k]);
    assert_non_null(kern);
    static const uint32_t blocks[] = {32, 45, 96, 256};
    static const uint32_t grids[] = {1, 3};
    static const uint32_t sizes[] = {0, 31, 1000, 4099, MAX_N};
    for (size_t b = 0; b < sizeof blocks / sizeof *blocks; b++)
        for (size_t g = 0; g < sizeof grids / sizeof *grids; g++)
            for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
                uint32_t n = sizes[z], threads = blocks[b] * grids[g], out[BINS] = {0}, want[BINS] = {0};
                memcpy(in, orig, sizeof in);
                for (uint32_t i = 0; i < n; i++)
                    want[bin_of(k, orig, i, threads)]++;
                struct { uint8_t *in; uint32_t n; uint32_t *out; } p = {in, n, out};
                char err[512];
                ptxjit_launch_cfg cfg = {{grids[g], 1, 1}, {blocks[b], 1, 1}, 0, &p, NULL};
                if (ptxjit_launch(test_ctx, kern, &cfg, err, sizeof err) != PTXJIT_OK)
                    fail_msg("%s", err);
                for (uint32_t i = 0; i < BINS; i++)
                    if (out[i] != want[i])
                        fail_msg("%s, %u x %u threads, n %u: bin %u = %u, want %u", names[k], grids[g], blocks[b],
                                 n, i, out[i], want[i]);
                for (uint32_t i = 0; k == STORED && i < n; i++)
                    if (in[i] != 7)
                        fail_msg("h_stored, n %u: in[%u] = %u, want 7", n, i, in[i]);
            }
    ptxjit_module_unload(m);
}

static void test_bytes(void **state) { (void)state; check(U8); }
static void test_signed_bytes(void **state) { (void)state; check(S8); }
static void test_halves_at_offset(void **state) { (void)state; check(U16); }
static void test_overwritten_element(void **state) { (void)state; check(STORED); }
static void test_moved_address(void **state) { (void)state; check(MOVED); }
static void test_rewritten_register(void **state) { (void)state; check(LEAF); }

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bytes),
        cmocka_unit_test(test_signed_bytes),
        cmocka_unit_test(test_halves_at_offset),
        cmocka_unit_test(test_overwritten_element),
        cmocka_unit_test(test_moved_address),
        cmocka_unit_test(test_rewritten_register),
    };
    return cmocka_run_group_tests(tests, test_ctx_setup, test_ctx_teardown);
}
