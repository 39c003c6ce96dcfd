/* test_conform_forms.c - the forms the ISA allows that ptxjit once refused
 * (issue 13, item 3), run through the whole pipeline against C references
 * written from the ISA text, converged, divergent and guarded over partial
 * warps (tests/conform.h):
 *   - a register wider than the access ("operand size exceeding
 *     instruction-type size"): ld.f32 into a .b64 zero-extends, st.f32 of
 *     a .b64 stores the low 32 bits;
 *   - vector-typed registers (.reg .v2/.v4) with mov.v2/.v4, ld.v4/st.v4 of
 *     the whole register, components, and mov.b64 packing one;
 *   - the predefined constant WARP_SZ (32) in operands and addresses;
 *   - reg + imm and var + imm operands (an integer sum at the instruction's
 *     width; ptxas takes them outside vectors);
 *   - function-scope .global variables with initializers;
 *   - cvt.pack.sat (ISA pseudo-code: b in the low part, a above, c's low
 *     bits above both for 8-bit types).
 * The check-side twins are tests/ptx/check/forms-*.ptx. */
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

static uint32_t u32(uint64_t x) { return (uint32_t)x; }

static uint64_t r_zext32(const conform_op *op, unsigned k, const uint64_t *x) { return u32(x[0]); }
static uint64_t r_low32(const conform_op *op, unsigned k, const uint64_t *x) { return u32(x[0]); }
static uint64_t r_pack_ba(const conform_op *op, unsigned k, const uint64_t *x)
{
    return (uint64_t)u32(x[0]) << 32 | u32(x[1]); /* {v.y, v.x} after the swap: a high, b low */
}
static uint64_t r_v4(const conform_op *op, unsigned k, const uint64_t *x)
{
    return u32(u32(x[3]) * 3u + u32(x[2])); /* reversed {e, c, b, a}: .x = e, [4] = c */
}
static uint64_t r_warp_sz(const conform_op *op, unsigned k, const uint64_t *x) { return u32(u32(x[0]) * 32u + 31u); }
static uint64_t r_offsets(const conform_op *op, unsigned k, const uint64_t *x)
{
    return u32(u32(x[0]) + 7u + u32(x[1]) + 0xfffffff0u);
}
static uint64_t r_offset64(const conform_op *op, unsigned k, const uint64_t *x) { return x[0] - 1 + 3 + 8; }
static uint64_t r_table(const conform_op *op, unsigned k, const uint64_t *x)
{
    static const uint32_t table[4] = {11, 22, 33, 44};
    return table[1 + (x[0] & 1)] + table[3]; /* [table+4 + 4*(a&1)] + [table+12] */
}

/* cvt.pack.sat per the ISA: saturate a and b to the convert type. */
static uint32_t sat_to(int32_t v, unsigned w, bool sign)
{
    int64_t lo = sign ? -(1ll << (w - 1)) : 0, hi = sign ? (1ll << (w - 1)) - 1 : (1ll << w) - 1;
    int64_t r = v < lo ? lo : v > hi ? hi : v;
    return (uint32_t)r & (uint32_t)((1ull << w) - 1);
}
static uint64_t r_pack(const conform_op *op, unsigned k, const uint64_t *x)
{
    const char *t = op->user;
    unsigned w = t[1] == '8' ? 8 : 16;
    bool sign = t[0] == 's';
    uint32_t d = sat_to((int32_t)u32(x[1]), w, sign) | sat_to((int32_t)u32(x[0]), w, sign) << w;
    if (w == 8)
        d |= u32(x[2]) << 16;
    return d;
}

static const conform_op ops[] = {
    {.name = "ld_f32_into_b64", .dw = 8, .w = {4}, .ref = r_zext32,
     .ptx = "{ .local .align 4 .b32 %m; .reg .b64 %q; st.local.b32 [%m], %a; mov.b64 %q, -1;\n"
            "  ld.local.f32 %q, [%m]; %g mov.b64 %d, %q; }"},
    {.name = "st_f32_from_b64", .dw = 4, .w = {8}, .ref = r_low32,
     .ptx = "{ .local .align 4 .b32 %m; st.local.f32 [%m], %a; %g ld.local.b32 %d, [%m]; }"},
    {.name = "mov_v2_register", .dw = 8, .w = {4, 4}, .ref = r_pack_ba,
     .ptx = "{ .reg .v2 .b32 %v; mov.v2.b32 %v, {%a, %b}; mov.v2.b32 %v, {%v.y, %v.x}; %g mov.b64 %d, %v; }"},
    {.name = "ld_st_v4_register", .dw = 4, .w = {4, 4, 4, 4}, .ref = r_v4,
     .ptx = "{ .local .align 16 .b32 %m[4]; .reg .v4 .b32 %w; .reg .b32 %t;\n"
            "  mov.v4.b32 %w, {%a, %b, %c, %e}; st.local.v4.b32 [%m], %w; ld.local.v4.b32 %w, [%m];\n"
            "  mov.v4.b32 %w, {%w.w, %w.z, %w.y, %w.x}; st.local.v4.b32 [%m], %w;\n"
            "  ld.local.b32 %t, [%m+4]; %g mad.lo.u32 %d, %w.r, 3, %t; }"},
    {.name = "warp_sz", .dw = 4, .w = {4}, .ref = r_warp_sz, .ptx = "%g mad.lo.u32 %d, %a, WARP_SZ, WARP_SZ-1;"},
    {.name = "reg_plus_imm", .dw = 4, .w = {4, 4}, .ref = r_offsets, .ptx = "%g add.u32 %d, %a+7, %b+0xfffffff0;"},
    {.name = "reg_plus_imm64", .dw = 8, .w = {8}, .ref = r_offset64,
     .ptx = "{ .reg .b64 %q; add.s64 %q, %a+(-1), 3; %g mov.u64 %d, %q+8; }"},
    {.name = "func_scope_global", .dw = 4, .w = {4}, .ref = r_table,
     .ptx = "{ .global .align 4 .u32 %tab[4] = {11, 22, 33, 44}; .reg .b64 %q, %o; .reg .b32 %i, %t;\n"
            "  and.b32 %i, %a, 1; mul.wide.u32 %o, %i, 4; mov.u64 %q, %tab+4; add.s64 %q, %q, %o;\n"
            "  ld.global.u32 %i, [%q]; ld.global.u32 %t, [%tab+12]; %g add.u32 %d, %i, %t; }"},
    {.name = "cvt_pack_u16", .dw = 4, .w = {4, 4}, .ref = r_pack, .user = "u16",
     .ptx = "%g cvt.pack.sat.u16.s32 %d, %a, %b;"},
    {.name = "cvt_pack_s16", .dw = 4, .w = {4, 4}, .ref = r_pack, .user = "s16",
     .ptx = "%g cvt.pack.sat.s16.s32 %d, %a, %b;"},
    {.name = "cvt_pack_u8", .dw = 4, .w = {4, 4, 4}, .ref = r_pack, .user = "u8",
     .ptx = "%g cvt.pack.sat.u8.s32.b32 %d, %a, %b, %c;"},
    {.name = "cvt_pack_s8", .dw = 4, .w = {4, 4, 4}, .ref = r_pack, .user = "s8",
     .ptx = "%g cvt.pack.sat.s8.s32.b32 %d, %a, %b, %c;"},
};

static void test_forms(void **state)
{
    (void)state;
    conform_suite suite = {.name = "forms", .version = "8.0", .target = "sm_80", .workers = 2};
    assert_int_equal(conform_run(&suite, ops, sizeof ops / sizeof ops[0]), 0);
}

/* The reference itself, on values worked out by hand from the ISA text. */
static void test_pack_reference(void **state)
{
    (void)state;
    conform_op s16 = {.user = "s16"}, u8 = {.user = "u8"};
    uint64_t x1[3] = {(uint64_t)(uint32_t)-100000, 37, 0};
    assert_int_equal(r_pack(&s16, 0, x1), 0x80000025u);
    uint64_t x2[3] = {(uint64_t)(uint32_t)-5, 300, 0xabcd};
    assert_int_equal(r_pack(&u8, 0, x2), 0xabcd00ffu);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_pack_reference), cmocka_unit_test(test_forms)};
    return cmocka_run_group_tests_name("conform_forms", tests, NULL, NULL);
}
