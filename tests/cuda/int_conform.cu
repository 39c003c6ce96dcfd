// Integer conformance kernels as CUDA code writes them: the integer
// intrinsics of the CUDA Math API and inline PTX, compiled by nvcc.  Every
// kernel has the conformance harness's parameters (tests/conform.h): four
// input arrays, the output array and the element count; the references
// are in tests/e2e/test_conform_int.c ("nvcc" family).
#include <cstdint>

#pragma nv_diag_suppress 550 // inputs a kernel does not read

#define K3(NAME, TD, TA, TB, TC, EXPR)                                                          \
    extern "C" __global__ void NAME(const TA *a_, const TB *b_, const TC *c_, const uint32_t *e_, \
                                    TD *d, unsigned n)                                         \
    {                                                                                           \
        unsigned i = blockIdx.x * blockDim.x + threadIdx.x;                                     \
        if (i >= n)                                                                             \
            return;                                                                             \
        TA a = a_[i];                                                                           \
        TB b = b_ ? b_[i] : 0;                                                                  \
        TC c = c_ ? c_[i] : 0;                                                                  \
        (void)a; (void)b; (void)c; (void)e_;                                                    \
        d[i] = (EXPR);                                                                          \
    }

K3(nv_umulhi, uint32_t, uint32_t, uint32_t, uint32_t, __umulhi(a, b))
K3(nv_mulhi, int32_t, int32_t, int32_t, int32_t, __mulhi(a, b))
K3(nv_umul64hi, uint64_t, uint64_t, uint64_t, uint32_t, __umul64hi(a, b))
K3(nv_mul64hi, int64_t, int64_t, int64_t, uint32_t, __mul64hi(a, b))
K3(nv_umul24, uint32_t, uint32_t, uint32_t, uint32_t, __umul24(a, b))
K3(nv_mul24, int32_t, int32_t, int32_t, int32_t, __mul24(a, b))
K3(nv_brev, uint32_t, uint32_t, uint32_t, uint32_t, __brev(a))
K3(nv_brevll, uint64_t, uint64_t, uint32_t, uint32_t, __brevll(a))
K3(nv_clz, int32_t, int32_t, uint32_t, uint32_t, __clz(a))
K3(nv_clzll, int32_t, int64_t, uint32_t, uint32_t, __clzll(a))
K3(nv_ffs, int32_t, int32_t, uint32_t, uint32_t, __ffs(a))
K3(nv_ffsll, int32_t, int64_t, uint32_t, uint32_t, __ffsll(a))
K3(nv_popc, int32_t, uint32_t, uint32_t, uint32_t, __popc(a))
K3(nv_popcll, int32_t, uint64_t, uint32_t, uint32_t, __popcll(a))
K3(nv_byte_perm, uint32_t, uint32_t, uint32_t, uint32_t, __byte_perm(a, b, c))
K3(nv_funnelshift_l, uint32_t, uint32_t, uint32_t, uint32_t, __funnelshift_l(a, b, c))
K3(nv_funnelshift_lc, uint32_t, uint32_t, uint32_t, uint32_t, __funnelshift_lc(a, b, c))
K3(nv_funnelshift_r, uint32_t, uint32_t, uint32_t, uint32_t, __funnelshift_r(a, b, c))
K3(nv_funnelshift_rc, uint32_t, uint32_t, uint32_t, uint32_t, __funnelshift_rc(a, b, c))
K3(nv_sad, uint32_t, int32_t, int32_t, uint32_t, __sad(a, b, c))
K3(nv_usad, uint32_t, uint32_t, uint32_t, uint32_t, __usad(a, b, c))
K3(nv_hadd, int32_t, int32_t, int32_t, uint32_t, __hadd(a, b))
K3(nv_rhadd, int32_t, int32_t, int32_t, uint32_t, __rhadd(a, b))
K3(nv_uhadd, uint32_t, uint32_t, uint32_t, uint32_t, __uhadd(a, b))
K3(nv_urhadd, uint32_t, uint32_t, uint32_t, uint32_t, __urhadd(a, b))
K3(nv_dp4a_s, int32_t, int32_t, int32_t, int32_t, __dp4a(a, b, c))
K3(nv_dp4a_u, uint32_t, uint32_t, uint32_t, uint32_t, __dp4a(a, b, c))
K3(nv_dp2a_lo, int32_t, int32_t, int32_t, int32_t, __dp2a_lo(a, b, c))
K3(nv_dp2a_hi, uint32_t, uint32_t, uint32_t, uint32_t, __dp2a_hi(a, b, c))
// SIMD-in-a-word intrinsics (nvcc expands most of them to plain integer code)
K3(nv_vadd2, uint32_t, uint32_t, uint32_t, uint32_t, __vadd2(a, b))
K3(nv_vaddss2, uint32_t, uint32_t, uint32_t, uint32_t, __vaddss2(a, b))
K3(nv_vaddus4, uint32_t, uint32_t, uint32_t, uint32_t, __vaddus4(a, b))
K3(nv_vsub4, uint32_t, uint32_t, uint32_t, uint32_t, __vsub4(a, b))
K3(nv_vabsdiffu4, uint32_t, uint32_t, uint32_t, uint32_t, __vabsdiffu4(a, b))
K3(nv_vabsdiffs2, uint32_t, uint32_t, uint32_t, uint32_t, __vabsdiffs2(a, b))
K3(nv_vavgu4, uint32_t, uint32_t, uint32_t, uint32_t, __vavgu4(a, b))
K3(nv_vmaxs2, uint32_t, uint32_t, uint32_t, uint32_t, __vmaxs2(a, b))
K3(nv_vminu4, uint32_t, uint32_t, uint32_t, uint32_t, __vminu4(a, b))
K3(nv_vcmpgtu4, uint32_t, uint32_t, uint32_t, uint32_t, __vcmpgtu4(a, b))
K3(nv_vcmpeq2, uint32_t, uint32_t, uint32_t, uint32_t, __vcmpeq2(a, b))
K3(nv_vsads2, uint32_t, uint32_t, uint32_t, uint32_t, __vsads2(a, b))
K3(nv_vneg4, uint32_t, uint32_t, uint32_t, uint32_t, __vneg4(a))

// Inline PTX, the way hand-tuned CUDA code uses it.
__device__ uint32_t asm_bfe_s(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t d;
    asm("bfe.s32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
}
__device__ uint32_t asm_bfi(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t d;
    asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(d) : "r"(a), "r"(b), "r"(c & 0xff), "r"(c >> 8));
    return d;
}
__device__ uint32_t asm_prmt_ecl(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t d;
    asm("prmt.b32.ecl %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
}
__device__ uint32_t asm_lop3(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t d; // (a & b) | (~a & c): a selects between b and c
    asm("lop3.b32 %0, %1, %2, %3, 0xe4;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
}
// The 96-bit sum (a:b:c) + (b:c:a) (words high:middle:low) through
// add.cc/addc.cc/addc; the output mixes the three words, so both carries
// matter.
__device__ uint32_t asm_add96(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t l, m, h;
    asm("add.cc.u32 %0, %3, %5;\n\t"
        "addc.cc.u32 %1, %4, %3;\n\t"
        "addc.u32 %2, %5, %4;"
        : "=r"(l), "=r"(m), "=r"(h)
        : "r"(c), "r"(b), "r"(a));
    return h ^ l ^ m;
}
// The high word of a - b - c as 64-bit (sub.cc / subc.cc chain).
__device__ uint32_t asm_sub64(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t lo, hi;
    asm("sub.cc.u32 %0, %2, %3;\n\t"
        "subc.u32 %1, %4, %2;"
        : "=r"(lo), "=r"(hi)
        : "r"(a), "r"(b), "r"(c));
    return hi + lo;
}
__device__ uint64_t asm_madc_hi(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t lo, hi;
    asm("mad.lo.cc.u32 %0, %2, %3, %4;\n\t"
        "madc.hi.u32 %1, %2, %3, %4;"
        : "=r"(lo), "=r"(hi)
        : "r"(a), "r"(b), "r"(c));
    return (uint64_t)hi << 32 | lo;
}
__device__ uint32_t asm_shf_r_clamp(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t d;
    asm("shf.r.clamp.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
}
__device__ uint32_t asm_div_u(uint32_t a, uint32_t b)
{
    uint32_t d;
    asm("div.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
    return d;
}
__device__ int32_t asm_rem_s(int32_t a, int32_t b)
{
    int32_t d;
    asm("rem.s32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
    return d;
}
__device__ uint32_t asm_bfind_shiftamt(uint64_t a)
{
    uint32_t d;
    asm("bfind.shiftamt.s64 %0, %1;" : "=r"(d) : "l"(a));
    return d;
}
__device__ int16_t asm_mul_hi_s16(int16_t a, int16_t b)
{
    int16_t d;
    asm("mul.hi.s16 %0, %1, %2;" : "=h"(d) : "h"(a), "h"(b));
    return d;
}
__device__ uint32_t asm_cvt_sat_s8(int32_t a)
{
    int32_t d;
    asm("cvt.sat.s8.s32 %0, %1;" : "=r"(d) : "r"(a));
    return (uint32_t)d;
}

K3(nv_asm_bfe_s, uint32_t, uint32_t, uint32_t, uint32_t, asm_bfe_s(a, b, c))
K3(nv_asm_bfi, uint32_t, uint32_t, uint32_t, uint32_t, asm_bfi(a, b, c))
K3(nv_asm_prmt_ecl, uint32_t, uint32_t, uint32_t, uint32_t, asm_prmt_ecl(a, b, c))
K3(nv_asm_lop3, uint32_t, uint32_t, uint32_t, uint32_t, asm_lop3(a, b, c))
K3(nv_asm_add96, uint32_t, uint32_t, uint32_t, uint32_t, asm_add96(a, b, c))
K3(nv_asm_sub64, uint32_t, uint32_t, uint32_t, uint32_t, asm_sub64(a, b, c))
K3(nv_asm_madc_hi, uint64_t, uint32_t, uint32_t, uint32_t, asm_madc_hi(a, b, c))
K3(nv_asm_shf_r_clamp, uint32_t, uint32_t, uint32_t, uint32_t, asm_shf_r_clamp(a, b, c))
K3(nv_asm_div_u, uint32_t, uint32_t, uint32_t, uint32_t, asm_div_u(a, b))
K3(nv_asm_rem_s, int32_t, int32_t, int32_t, uint32_t, asm_rem_s(a, b))
K3(nv_asm_bfind_shiftamt, uint32_t, uint64_t, uint32_t, uint32_t, asm_bfind_shiftamt(a))
K3(nv_asm_mul_hi_s16, int16_t, int16_t, int16_t, uint32_t, asm_mul_hi_s16(a, b))
K3(nv_asm_cvt_sat_s8, uint32_t, int32_t, uint32_t, uint32_t, asm_cvt_sat_s8(a))
