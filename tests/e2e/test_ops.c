/* test_ops.c - instructions executed one at a time through the whole
 * pipeline, each against a C reference written from the ISA semantics, on
 * edge-value operands.  Every case runs three ways over 200 threads in
 * blocks of 100 (so warps are partial): converged; inside a branch taken by
 * odd lanes only (even lanes store a sentinel); and guarded by an odd-lane
 * predicate with a pre-set destination (inactive lanes keep it). */
#include <ctype.h>
#include <math.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ptxjit/ptxjit.h"
#include "test_util.h"

enum { N = 200, BLOCK = 100, SENTINEL = 0x5a5a5a5a };

/* One case: PTX text with %d (dest), %a, %b, %c operands of type `ty`. */
typedef struct op_case {
    const char *name, *ty, *ptx;
    uint64_t (*ref)(uint64_t a, uint64_t b, uint64_t c);
} op_case;

static uint32_t u32(uint64_t x) { return (uint32_t)x; }
static int32_t s32(uint64_t x) { return (int32_t)(uint32_t)x; }
static float f32(uint64_t x) { return tu_f32(x); }
static uint64_t bits32(float f) { return tu_f32_bits(f); }
static double f64(uint64_t x) { return tu_f64(x); }
static uint64_t bits64(double d) { return tu_f64_bits(d); }

/* ---- references (ISA semantics) ---- */

static uint64_t r_add(uint64_t a, uint64_t b, uint64_t c) { return u32(a + b); }
static uint64_t r_sub(uint64_t a, uint64_t b, uint64_t c) { return u32(a - b); }
static uint64_t r_mul_lo(uint64_t a, uint64_t b, uint64_t c) { return u32(u32(a) * u32(b)); }
static uint64_t r_mul_hi_u(uint64_t a, uint64_t b, uint64_t c) { return u32(((uint64_t)u32(a) * u32(b)) >> 32); }
static uint64_t r_mul_hi_s(uint64_t a, uint64_t b, uint64_t c) { return u32((uint64_t)(((int64_t)s32(a) * s32(b)) >> 32)); }
static uint64_t r_mad_lo(uint64_t a, uint64_t b, uint64_t c) { return u32(u32(a) * u32(b) + u32(c)); }
/* as an H200 computes them (tests/gpu/results/int): x / 0 and x % 0 = all ones, INT_MIN / -1 = INT_MIN,
 * INT_MIN % -1 = 0 */
static uint64_t r_div_u(uint64_t a, uint64_t b, uint64_t c) { return u32(b) ? u32(a) / u32(b) : 0xffffffffu; }
static uint64_t r_rem_u(uint64_t a, uint64_t b, uint64_t c) { return u32(b) ? u32(a) % u32(b) : 0xffffffffu; }
static uint64_t r_div_s(uint64_t a, uint64_t b, uint64_t c)
{
    if (!s32(b))
        return 0xffffffffu;
    if (s32(a) == INT32_MIN && s32(b) == -1)
        return 0x80000000u;
    return u32((uint64_t)(int64_t)(s32(a) / s32(b)));
}
static uint64_t r_rem_s(uint64_t a, uint64_t b, uint64_t c)
{
    if (!s32(b))
        return 0xffffffffu;
    if (s32(a) == INT32_MIN && s32(b) == -1)
        return 0;
    return u32((uint64_t)(int64_t)(s32(a) % s32(b)));
}
static uint64_t r_min_s(uint64_t a, uint64_t b, uint64_t c) { return s32(a) < s32(b) ? u32(a) : u32(b); }
static uint64_t r_max_u(uint64_t a, uint64_t b, uint64_t c) { return u32(a) > u32(b) ? u32(a) : u32(b); }
static uint64_t r_abs(uint64_t a, uint64_t b, uint64_t c) { return s32(a) < 0 ? u32(0 - u32(a)) : u32(a); }
static uint64_t r_xor(uint64_t a, uint64_t b, uint64_t c) { return u32(a ^ b); }
static uint64_t r_not(uint64_t a, uint64_t b, uint64_t c) { return u32(~a); }
static uint64_t r_shl(uint64_t a, uint64_t b, uint64_t c) { return u32(b) >= 32 ? 0 : u32(u32(a) << u32(b)); }
static uint64_t r_shr_u(uint64_t a, uint64_t b, uint64_t c) { return u32(b) >= 32 ? 0 : u32(a) >> u32(b); }
static uint64_t r_shr_s(uint64_t a, uint64_t b, uint64_t c)
{
    uint32_t n = u32(b) >= 32 ? 31 : u32(b);
    return u32((uint64_t)(int64_t)(s32(a) >> n));
}
static uint64_t r_popc(uint64_t a, uint64_t b, uint64_t c) { return (uint64_t)__builtin_popcount(u32(a)); }
static uint64_t r_clz(uint64_t a, uint64_t b, uint64_t c) { return u32(a) ? (uint64_t)__builtin_clz(u32(a)) : 32; }
static uint64_t r_brev(uint64_t a, uint64_t b, uint64_t c)
{
    uint32_t x = u32(a), r = 0;
    for (int i = 0; i < 32; i++)
        r |= ((x >> i) & 1u) << (31 - i);
    return r;
}
static uint64_t r_bfe_u(uint64_t a, uint64_t b, uint64_t c)
{
    uint32_t pos = u32(b) & 0xff, len = u32(c) & 0xff, r = 0;
    for (uint32_t i = 0; i < 32; i++)
        if (i < len && pos + i <= 31)
            r |= ((u32(a) >> (pos + i)) & 1u) << i;
    return r;
}
/* bmsk and szext: the ISA pseudo-code, with C's shifts of 32 made explicit */
static uint32_t ones_shl(uint32_t n) { return n >= 32 ? 0 : 0xffffffffu << n; }
static uint64_t r_bmsk(uint64_t a, uint64_t b, bool clamp)
{
    uint32_t a1 = u32(a) & 0x1f, b1 = u32(b) & 0x1f, sum = a1 + b1;
    uint32_t mask0 = ones_shl(a1), mask1 = ones_shl(sum);
    bool pos_over = false, width_over = false;
    if (clamp) {
        if (u32(a) >= 32)
            pos_over = true, mask0 = 0;
        if (u32(b) >= 32)
            width_over = true;
    }
    if (sum >= 32 || pos_over || width_over)
        mask1 = 0;
    else if (b1 == 0)
        mask1 = 0xffffffffu;
    return mask0 & ~mask1;
}
static uint64_t r_bmsk_clamp(uint64_t a, uint64_t b, uint64_t c) { return r_bmsk(a, b, true); }
static uint64_t r_bmsk_wrap(uint64_t a, uint64_t b, uint64_t c) { return r_bmsk(a, b, false); }
static uint64_t r_szext(uint64_t a, uint64_t b, bool clamp, bool sign)
{
    uint32_t b1 = u32(b) & 0x1f;
    bool too_large = u32(b) >= 32 && clamp;
    uint32_t mask = too_large ? 0 : ones_shl(b1), spos = (b1 - 1) & 0x1f;
    bool sbit = !(b1 == 0 || too_large || !sign) && ((u32(a) >> spos) & 1);
    return (u32(a) & ~mask) | (sbit ? mask : 0);
}
static uint64_t r_szext_cs(uint64_t a, uint64_t b, uint64_t c) { return r_szext(a, b, true, true); }
static uint64_t r_szext_ws(uint64_t a, uint64_t b, uint64_t c) { return r_szext(a, b, false, true); }
static uint64_t r_szext_cu(uint64_t a, uint64_t b, uint64_t c) { return r_szext(a, b, true, false); }
static uint64_t r_szext_wu(uint64_t a, uint64_t b, uint64_t c) { return r_szext(a, b, false, false); }
/* the carry flag across add and sub chains: a - b is a + ~b + 1, so
 * sub.cc leaves CF = no borrow, and subc subtracts 1 - CF */
static uint64_t r_subcc_addc(uint64_t a, uint64_t b, uint64_t c) { return u32(a) >= u32(b); }
static uint64_t r_addcc_subc(uint64_t a, uint64_t b, uint64_t c)
{
    uint32_t cf = (uint64_t)u32(a) + u32(b) > 0xffffffffu;
    return u32(u32(c) - 7u - (1u - cf));
}
static uint64_t r_subcc_subc(uint64_t a, uint64_t b, uint64_t c)
{
    return u32(u32(c) - 7u - (u32(a) < u32(b)));
}
static uint64_t r_selp_lt(uint64_t a, uint64_t b, uint64_t c) { return s32(a) < s32(b) ? u32(c) : u32(a); }

static uint64_t r_and(uint64_t a, uint64_t b, uint64_t c) { return u32(a & b); }
static uint64_t r_or(uint64_t a, uint64_t b, uint64_t c) { return u32(a | b); }
static uint64_t r_neg(uint64_t a, uint64_t b, uint64_t c) { return u32(0 - u32(a)); }
static uint64_t r_cnot(uint64_t a, uint64_t b, uint64_t c) { return u32(a) == 0; }
static uint64_t r_slct(uint64_t a, uint64_t b, uint64_t c) { return s32(c) >= 0 ? u32(a) : u32(b); }
static uint64_t r_set_gt(uint64_t a, uint64_t b, uint64_t c) { return u32(a) > u32(b) ? 0xffffffffu : 0; }
static uint64_t r_pack16(uint64_t a, uint64_t b, uint64_t c) { return (u32(a) & 0xffff) | (u32(b) & 0xffff0000u); }
static uint64_t r_cvt_s16(uint64_t a, uint64_t b, uint64_t c) { return u32((uint64_t)(int64_t)(int16_t)u32(a)); }
static uint64_t r_cvt_u8(uint64_t a, uint64_t b, uint64_t c) { return u32(a) & 0xff; }
static uint64_t r_fsub_d(uint64_t a, uint64_t b, uint64_t c) { return bits64(f64(a) - f64(b)); }

static uint64_t r_fadd(uint64_t a, uint64_t b, uint64_t c) { return bits32(f32(a) + f32(b)); }
static uint64_t r_fmul(uint64_t a, uint64_t b, uint64_t c) { return bits32(f32(a) * f32(b)); }
static uint64_t r_fdiv(uint64_t a, uint64_t b, uint64_t c) { return bits32(f32(a) / f32(b)); }
static uint64_t r_ffma(uint64_t a, uint64_t b, uint64_t c) { return bits32(fmaf(f32(a), f32(b), f32(c))); }
static uint64_t r_fsqrt(uint64_t a, uint64_t b, uint64_t c) { return bits32(sqrtf(f32(a))); }
static uint64_t r_fmin(uint64_t a, uint64_t b, uint64_t c) { return bits32(fminf(f32(a), f32(b))); }
static uint64_t r_fabs(uint64_t a, uint64_t b, uint64_t c) { return bits32(fabsf(f32(a))); }
static uint64_t r_cvt_rzi(uint64_t a, uint64_t b, uint64_t c)
{
    float f = f32(a);
    if (f != f)
        return 0;
    if (f >= 2147483648.0f)
        return 0x7fffffffu;
    if (f < -2147483648.0f)
        return 0x80000000u;
    return u32((uint64_t)(int64_t)(int32_t)truncf(f));
}
static uint64_t r_cvt_rn_f32_s32(uint64_t a, uint64_t b, uint64_t c) { return bits32((float)s32(a)); }
static uint64_t r_setp_ltu(uint64_t a, uint64_t b, uint64_t c) { return !(f32(a) >= f32(b)); }
static uint64_t r_dadd(uint64_t a, uint64_t b, uint64_t c) { return bits64(f64(a) + f64(b)); }
static uint64_t r_dfma(uint64_t a, uint64_t b, uint64_t c) { return bits64(fma(f64(a), f64(b), f64(c))); }
static uint64_t r_ddiv(uint64_t a, uint64_t b, uint64_t c) { return bits64(f64(a) / f64(b)); }
static uint64_t r_add64(uint64_t a, uint64_t b, uint64_t c) { return a + b; }
static uint64_t r_mul64(uint64_t a, uint64_t b, uint64_t c) { return a * b; }
static uint64_t r_shl64(uint64_t a, uint64_t b, uint64_t c) { return u32(b) >= 64 ? 0 : a << u32(b); }

static const op_case cases[] = {
    {"add_u32", "u32", "add.u32 %d, %a, %b;", r_add},
    {"sub_s32", "s32", "sub.s32 %d, %a, %b;", r_sub},
    {"mul_lo_u32", "u32", "mul.lo.u32 %d, %a, %b;", r_mul_lo},
    {"mul_hi_u32", "u32", "mul.hi.u32 %d, %a, %b;", r_mul_hi_u},
    {"mul_hi_s32", "s32", "mul.hi.s32 %d, %a, %b;", r_mul_hi_s},
    {"mad_lo_s32", "s32", "mad.lo.s32 %d, %a, %b, %c;", r_mad_lo},
    {"div_u32", "u32", "div.u32 %d, %a, %b;", r_div_u},
    {"rem_u32", "u32", "rem.u32 %d, %a, %b;", r_rem_u},
    {"div_s32", "s32", "div.s32 %d, %a, %b;", r_div_s},
    {"rem_s32", "s32", "rem.s32 %d, %a, %b;", r_rem_s},
    {"min_s32", "s32", "min.s32 %d, %a, %b;", r_min_s},
    {"max_u32", "u32", "max.u32 %d, %a, %b;", r_max_u},
    {"abs_s32", "s32", "abs.s32 %d, %a;", r_abs},
    {"xor_b32", "b32", "xor.b32 %d, %a, %b;", r_xor},
    {"not_b32", "b32", "not.b32 %d, %a;", r_not},
    {"shl_b32", "b32", "shl.b32 %d, %a, %b;", r_shl},
    {"shr_u32", "u32", "shr.u32 %d, %a, %b;", r_shr_u},
    {"shr_s32", "s32", "shr.s32 %d, %a, %b;", r_shr_s},
    {"popc_b32", "b32", "popc.b32 %d, %a;", r_popc},
    {"clz_b32", "b32", "clz.b32 %d, %a;", r_clz},
    {"brev_b32", "b32", "brev.b32 %d, %a;", r_brev},
    {"bfe_u32", "u32", "bfe.u32 %d, %a, %b, %c;", r_bfe_u},
    {"bmsk_clamp", "b32", "bmsk.clamp.b32 %d, %a, %b;", r_bmsk_clamp},
    {"bmsk_wrap", "b32", "bmsk.wrap.b32 %d, %a, %b;", r_bmsk_wrap},
    {"szext_clamp_s32", "s32", "szext.clamp.s32 %d, %a, %b;", r_szext_cs},
    {"szext_wrap_s32", "s32", "szext.wrap.s32 %d, %a, %b;", r_szext_ws},
    {"szext_clamp_u32", "u32", "szext.clamp.u32 %d, %a, %b;", r_szext_cu},
    {"szext_wrap_u32", "u32", "szext.wrap.u32 %d, %a, %b;", r_szext_wu},
    {"sub_cc_addc", "u32", "{ .reg .b32 %z; sub.cc.u32 %z, %a, %b; addc.u32 %d, 0, 0; }", r_subcc_addc},
    {"add_cc_subc", "u32", "{ .reg .b32 %z; add.cc.u32 %z, %a, %b; subc.u32 %d, %c, 7; }", r_addcc_subc},
    {"sub_cc_subc", "u32", "{ .reg .b32 %z; sub.cc.u32 %z, %a, %b; subc.u32 %d, %c, 7; }", r_subcc_subc},
    {"setp_selp_s32", "s32", "{ .reg .pred %q; setp.lt.s32 %q, %a, %b; selp.s32 %d, %c, %a, %q; }", r_selp_lt},
    {"and_b32", "b32", "and.b32 %d, %a, %b;", r_and},
    {"or_b32", "b32", "or.b32 %d, %a, %b;", r_or},
    {"neg_s32", "s32", "neg.s32 %d, %a;", r_neg},
    {"cnot_b32", "b32", "cnot.b32 %d, %a;", r_cnot},
    {"slct_s32", "b32", "slct.b32.s32 %d, %a, %b, %c;", r_slct},
    {"set_gt_u32", "b32", "set.gt.u32.u32 %d, %a, %b;", r_set_gt},
    {"mov_pack_unpack", "b32",
     "{ .reg .b16 %l, %h, %x, %y; mov.b32 {%l, %x}, %a; mov.b32 {%y, %h}, %b; mov.b32 %d, {%l, %h}; }",
     r_pack16},
    {"cvt_s32_s16", "b32", "{ .reg .b16 %h; cvt.u16.u32 %h, %a; cvt.s32.s16 %d, %h; }", r_cvt_s16},
    {"cvt_u32_u8", "b32", "cvt.u32.u8 %d, %a;", r_cvt_u8},
    {"add_f32", "f32", "add.f32 %d, %a, %b;", r_fadd},
    {"mul_f32", "f32", "mul.f32 %d, %a, %b;", r_fmul},
    {"div_rn_f32", "f32", "div.rn.f32 %d, %a, %b;", r_fdiv},
    {"fma_rn_f32", "f32", "fma.rn.f32 %d, %a, %b, %c;", r_ffma},
    {"sqrt_rn_f32", "f32", "sqrt.rn.f32 %d, %a;", r_fsqrt},
    {"min_f32", "f32", "min.f32 %d, %a, %b;", r_fmin},
    {"abs_f32", "f32", "abs.f32 %d, %a;", r_fabs},
    {"cvt_rzi_s32_f32", "b32", "{ .reg .f32 %x; mov.b32 %x, %a; cvt.rzi.s32.f32 %d, %x; }", r_cvt_rzi},
    {"cvt_rn_f32_s32", "b32", "{ .reg .f32 %x; cvt.rn.f32.s32 %x, %a; mov.b32 %d, %x; }", r_cvt_rn_f32_s32},
    {"setp_ltu_f32", "f32", "{ .reg .pred %q; setp.ltu.f32 %q, %a, %b; selp.b32 %d, 1, 0, %q; }", r_setp_ltu},
    {"add_f64", "f64", "add.f64 %d, %a, %b;", r_dadd},
    {"sub_f64", "f64", "sub.f64 %d, %a, %b;", r_fsub_d},
    {"fma_rn_f64", "f64", "fma.rn.f64 %d, %a, %b, %c;", r_dfma},
    {"div_rn_f64", "f64", "div.rn.f64 %d, %a, %b;", r_ddiv},
    {"add_u64", "u64", "add.u64 %d, %a, %b;", r_add64},
    {"mul_lo_u64", "u64", "mul.lo.u64 %d, %a, %b;", r_mul64},
    {"shl_b64", "b64", "{ .reg .b32 %n; cvt.u32.u64 %n, %b; shl.b64 %d, %a, %n; }", r_shl64},
};
enum { NCASES = sizeof cases / sizeof cases[0] };

static bool wide(const op_case *c) { return c->ty[1] == '6'; }

/* Replaces %d %a %b %c with the registers of this kernel. */
static void expand(char *out, size_t len, const char *tmpl, bool w)
{
    const char *regs[4] = {w ? "%rd4" : "%r4", w ? "%rd1" : "%r1", w ? "%rd2" : "%r2",
                           w ? "%rd3" : "%r3"};
    size_t n = 0;
    for (const char *p = tmpl; *p && n + 8 < len; p++) {
        const char *r = NULL;
        if (p[0] == '%' && strchr("dabc", p[1]) && !isalnum((unsigned char)p[2]) && p[2] != '_')
            r = regs[strchr("dabc", p[1]) - "dabc"];
        if (r) {
            n += (size_t)snprintf(out + n, len - n, "%s", r);
            p++;
        } else {
            out[n++] = *p;
        }
    }
    out[n] = 0;
}

/* mode 0: converged; 1: odd lanes branch into it; 2: guarded by odd lanes. */
static size_t emit_kernel(char *out, size_t len, const op_case *c, int mode)
{
    bool w = wide(c);
    const char *ld = w ? "ld.global.b64" : "ld.global.b32", *st = w ? "st.global.b64" : "st.global.b32";
    const char *sz = w ? "8" : "4";
    char body[512], guarded[600];
    expand(body, sizeof body, c->ptx, w);
    if (mode == 2) { /* guard a single instruction; scoped templates get a guarded copy */
        if (body[0] == '{')
            snprintf(guarded, sizeof guarded, "@%%podd bra $Lg; bra $Lskip; $Lg: %s $Lskip:", body);
        else
            snprintf(guarded, sizeof guarded, "@%%podd %s", body);
    }
    return (size_t)snprintf(out, len,
        ".visible .entry k_%s_%d(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 po)\n{\n"
        "  .reg .pred %%podd; .reg .b32 %%r<8>; .reg .b64 %%rd<16>;\n"
        "  ld.param.u64 %%rd8, [pa]; ld.param.u64 %%rd9, [pb]; ld.param.u64 %%rd10, [pc];\n"
        "  ld.param.u64 %%rd11, [po];\n"
        "  mov.u32 %%r5, %%ctaid.x; mov.u32 %%r6, %%ntid.x; mov.u32 %%r7, %%tid.x;\n"
        "  mad.lo.s32 %%r5, %%r5, %%r6, %%r7;\n"
        "  mul.wide.u32 %%rd12, %%r5, %s;\n"
        "  add.s64 %%rd13, %%rd8, %%rd12; %s %s, [%%rd13];\n"
        "  add.s64 %%rd13, %%rd9, %%rd12; %s %s, [%%rd13];\n"
        "  add.s64 %%rd13, %%rd10, %%rd12; %s %s, [%%rd13];\n"
        "  and.b32 %%r7, %%r7, 1; setp.ne.u32 %%podd, %%r7, 0;\n"
        "  mov.%s %s, %u;\n"
        "%s"
        "  add.s64 %%rd13, %%rd11, %%rd12; %s [%%rd13], %s;\n"
        "  ret;\n}\n",
        c->name, mode, sz, ld, w ? "%rd1" : "%r1", ld, w ? "%rd2" : "%r2", ld, w ? "%rd3" : "%r3",
        w ? "b64" : "b32", w ? "%rd4" : "%r4", (unsigned)SENTINEL,
        mode == 0 ? (snprintf(guarded, sizeof guarded, "  %s\n", body), guarded)
        : mode == 1 ? (snprintf(guarded, sizeof guarded, "  @!%%podd bra $Lend;\n  %s\n$Lend:\n", body), guarded)
                    : (strcat(guarded, "\n"), guarded),
        st, w ? "%rd4" : "%r4");
}

static const uint32_t edge32[] = {0, 1, 2, 3, 7, 31, 32, 33, 255, 0x7fffffff, 0x80000000u, 0xffffffffu,
                                  0xfffffffeu, 0x12345678, 0x3f800000, 0xbf800000, 0x7f800000,
                                  0xff800000, 0x7fc00000, 0x00000001, 0x80000001u, 0x007fffff,
                                  0x4b000000, 0xcf000000, 0x4f000000, 0x3fc00000, 0xc0200000};
static const uint64_t edge64[] = {0, 1, 2, 63, 64, 65, 0xffffffffffffffffull, 0x8000000000000000ull,
                                  0x3ff0000000000000ull, 0xbff8000000000000ull, 0x7ff0000000000000ull,
                                  0x0000000000000001ull, 0x7fefffffffffffffull, 0x123456789abcdef0ull};

static void inputs(bool w, uint64_t *a, uint64_t *b, uint64_t *c)
{
    size_t ne = w ? sizeof edge64 / 8 : sizeof edge32 / 4;
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < N; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        uint64_t e0 = w ? edge64[i % ne] : edge32[i % ne], e1 = w ? edge64[(i / ne) % ne] : edge32[(i / ne) % ne];
        a[i] = i < (int)(ne * ne) / 4 ? e0 : x;
        b[i] = i < (int)(ne * ne) / 4 ? e1 : x >> 17 ^ x << 9;
        c[i] = w ? edge64[(i * 7) % ne] : edge32[(i * 5) % ne];
        if (!w)
            a[i] &= 0xffffffffu, b[i] &= 0xffffffffu, c[i] &= 0xffffffffu;
    }
}

static bool same(const op_case *c, uint64_t got, uint64_t want)
{
    bool fl = c->ty[0] == 'f';
    if (c->ref == r_fmin && f32(got) == 0 && f32(want) == 0)
        return true; /* the sign of min(+0, -0) is not specified */
    if (fl && !wide(c) && f32(got) != f32(got) && f32(want) != f32(want))
        return true; /* any NaN */
    if (fl && wide(c) && f64(got) != f64(got) && f64(want) != f64(want))
        return true;
    return got == want;
}

static void run_cases(unsigned workers)
{
    size_t cap = 400000, n = 0;
    char *src = malloc(cap);
    n += (size_t)snprintf(src, cap, ".version 8.0\n.target sm_80\n.address_size 64\n");
    for (int k = 0; k < NCASES; k++)
        for (int mode = 0; mode < 3; mode++)
            n += emit_kernel(src + n, cap - n, &cases[k], mode);
    char err[256], *log = NULL;
    ptxjit_ctx *ctx = ptxjit_create(workers, err, sizeof err);
    assert_non_null(ctx);
    ptxjit_module *m = ptxjit_load(ctx, src, n, "ops.ptx", &log, NULL);
    if (!m)
        fail_msg("%s", log ? log : "load failed");
    static uint64_t a[N], b[N], c[N], out[N];
    static uint32_t a32[N], b32[N], c32[N], out32[N];
    int failures = 0;
    for (int k = 0; k < NCASES; k++) {
        const op_case *oc = &cases[k];
        bool w = wide(oc);
        inputs(w, a, b, c);
        for (int i = 0; i < N; i++)
            a32[i] = (uint32_t)a[i], b32[i] = (uint32_t)b[i], c32[i] = (uint32_t)c[i];
        for (int mode = 0; mode < 3; mode++) {
            char name[96];
            snprintf(name, sizeof name, "k_%s_%d", oc->name, mode);
            const ptxjit_kernel *kern = ptxjit_kernel_get(m, name);
            assert_non_null(kern);
            struct { void *a, *b, *c, *o; } p = {w ? (void *)a : a32, w ? (void *)b : b32,
                                                 w ? (void *)c : c32, w ? (void *)out : out32};
            ptxjit_launch_cfg cfg = {{N / BLOCK, 1, 1}, {BLOCK, 1, 1}, 0, &p, NULL};
            if (ptxjit_launch(ctx, kern, &cfg, err, sizeof err) != PTXJIT_OK)
                fail_msg("%s: %s", name, err);
            for (int i = 0; i < N; i++) {
                uint64_t got = w ? out[i] : out32[i];
                bool active = mode == 0 || (i % BLOCK) % 2 == 1;
                uint64_t want = active ? oc->ref(a[i], b[i], c[i]) : SENTINEL;
                if (!same(oc, got, want) && failures++ < 10)
                    print_error("%s lane %d: a=%#llx b=%#llx c=%#llx: got %#llx, want %#llx\n", name,
                                i, (unsigned long long)a[i], (unsigned long long)b[i],
                                (unsigned long long)c[i], (unsigned long long)got,
                                (unsigned long long)want);
            }
        }
    }
    assert_int_equal(failures, 0);
    free(log);
    free(src);
    ptxjit_module_unload(m);
    ptxjit_destroy(ctx);
}

static void test_ops_one_worker(void **state) { run_cases(1); }
static void test_ops_two_workers(void **state) { run_cases(2); }

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ops_one_worker),
        cmocka_unit_test(test_ops_two_workers),
    };
    return cmocka_run_group_tests_name("ops", tests, NULL, NULL);
}
