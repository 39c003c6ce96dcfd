// half_bf16.cu -- 16-bit floating point: __half / __half2 (cuda_fp16.h) and
// __nv_bfloat16 / __nv_bfloat162 (cuda_bf16.h): arithmetic, fma, comparisons,
// conversions with rounding modes, packed ops, math functions, and half2 /
// bf16 atomics. bf16 arithmetic is native on sm_80+ and emulated via f32
// below (the header selects the path by __CUDA_ARCH__).
#include <cuda_fp16.h>
#include <cuda_bf16.h>

// half_axpy(int n, __half a, const __half *x, __half *y)
//   For gid < n: y[gid] = __hfma(a, x[gid], y[gid])  (single rounding to half, fma.rn.f16).
extern "C" __global__ void half_axpy(int n, __half a, const __half *x, __half *y)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid < n)
        y[gid] = __hfma(a, x[gid], y[gid]);
}

// half_scalar_ops(const __half *a, const __half *b, __half *out, int n)
//   For gid < n, with p = a[gid], q = b[gid], 8 outputs out[8*gid + k]:
//   k=0 __hadd(p,q)  k=1 __hsub(p,q)  k=2 __hmul(p,q)  k=3 __hdiv(p,q)
//   k=4 __hneg(p)    k=5 __habs(q)    k=6 __hmax(p,q)  k=7 __hmin(p,q)
//   (each rounded to nearest-even half).
extern "C" __global__ void half_scalar_ops(const __half *a, const __half *b, __half *out, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    __half p = a[gid], q = b[gid];
    __half *o = out + 8 * gid;
    o[0] = __hadd(p, q);
    o[1] = __hsub(p, q);
    o[2] = __hmul(p, q);
    o[3] = __hdiv(p, q);
    o[4] = __hneg(p);
    o[5] = __habs(q);
    o[6] = __hmax(p, q);
    o[7] = __hmin(p, q);
}

// half2_ops(const __half2 *a, const __half2 *b, const __half2 *c, __half2 *out, int n)
//   For gid < n (lane-wise on both halves), 4 outputs out[4*gid + k]:
//   k=0 __hadd2(a,b)  k=1 __hmul2(a,b)  k=2 __hfma2(a,b,c)  k=3 __hmul2_sat(a,b) (clamped to [0,1]).
extern "C" __global__ void half2_ops(const __half2 *a, const __half2 *b, const __half2 *c, __half2 *out, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    __half2 x = a[gid], y = b[gid], z = c[gid];
    out[4 * gid + 0] = __hadd2(x, y);
    out[4 * gid + 1] = __hmul2(x, y);
    out[4 * gid + 2] = __hfma2(x, y, z);
    out[4 * gid + 3] = __hmul2_sat(x, y);
}

// half_compare(const __half *a, const __half *b, int *out, int n)
//   For gid < n: bits of out[gid]: bit0 __hlt(a,b), bit1 __hle, bit2 __hgt, bit3 __hge,
//   bit4 __heq, bit5 __hne (ordered: false if either is NaN), bit6 __hisnan(a),
//   bit7 __hisinf(a) != 0, bit8 __hequ(a,b) (unordered equal: true if either is NaN).
extern "C" __global__ void half_compare(const __half *a, const __half *b, int *out, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    __half p = a[gid], q = b[gid];
    int r = 0;
    r |= __hlt(p, q) ? 1 : 0;
    r |= __hle(p, q) ? 2 : 0;
    r |= __hgt(p, q) ? 4 : 0;
    r |= __hge(p, q) ? 8 : 0;
    r |= __heq(p, q) ? 16 : 0;
    r |= __hne(p, q) ? 32 : 0;
    r |= __hisnan(p) ? 64 : 0;
    r |= __hisinf(p) ? 128 : 0;
    r |= __hequ(p, q) ? 256 : 0;
    out[gid] = r;
}

// half_convert(const float *f, __half *h_rn, __half *h_rz, float *back, int *ints, short *bits, int n)
//   For gid < n, v = f[gid]:
//   h_rn[gid] = __float2half_rn(v); h_rz[gid] = __float2half_rz(v);
//   back[gid] = __half2float(h_rn[gid]);
//   ints[2*gid] = __half2int_rn(h_rn[gid]); ints[2*gid+1] = __half2int_rz(__int2half_rn((int)v));
//   bits[gid] = __half_as_short(__float2half_ru(v)).
extern "C" __global__ void half_convert(const float *f, __half *h_rn, __half *h_rz, float *back, int *ints,
                                        short *bits, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    float v = f[gid];
    __half hn = __float2half_rn(v);
    h_rn[gid] = hn;
    h_rz[gid] = __float2half_rz(v);
    back[gid] = __half2float(hn);
    ints[2 * gid] = __half2int_rn(hn);
    ints[2 * gid + 1] = __half2int_rz(__int2half_rn((int)v));
    bits[gid] = __half_as_short(__float2half_ru(v));
}

// half_math(const __half2 *in, __half2 *out, int n)
//   For gid < n, x = in[gid] (both lanes): out[3*gid+0] = h2sqrt(x) (NaN for negatives),
//   out[3*gid+1] = h2exp(x), out[3*gid+2] = h2rcp(x). Approximate (compare with 1-2 ulp tolerance).
extern "C" __global__ void half_math(const __half2 *in, __half2 *out, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    __half2 x = in[gid];
    out[3 * gid + 0] = h2sqrt(x);
    out[3 * gid + 1] = h2exp(x);
    out[3 * gid + 2] = h2rcp(x);
}

// half2_dot_reduce(const __half2 *a, const __half2 *b, float *out, int n2)
//   n2 half2 pairs. Each thread gid < n2 computes p = __hmul2(a[gid], b[gid]) and
//   atomicAdd(out, __low2float(p) + __high2float(p)) (float atomic; exact for small ints).
extern "C" __global__ void half2_dot_reduce(const __half2 *a, const __half2 *b, float *out, int n2)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid < n2) {
        __half2 p = __hmul2(a[gid], b[gid]);
        atomicAdd(out, __low2float(p) + __high2float(p));
    }
}

// half2_atomic(const __half2 *in, __half2 *acc, __half *hacc, int n)
//   For gid < n: atomicAdd(acc, in[gid]) (half2 atomic, atom.add.noftz.f16x2) and
//   atomicAdd(hacc, __low2half(in[gid])) (scalar half atomic; CAS loop below sm_70).
//   Use small integer-valued inputs so the sums are exact.
extern "C" __global__ void half2_atomic(const __half2 *in, __half2 *acc, __half *hacc, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid < n) {
        atomicAdd(acc, in[gid]);
        atomicAdd(hacc, __low2half(in[gid]));
    }
}

// bf16_ops(const __nv_bfloat16 *a, const __nv_bfloat16 *b, const __nv_bfloat16 *c,
//          __nv_bfloat16 *out, float *fout, int n)
//   For gid < n (p,q,r = a,b,c[gid]), out[5*gid + k]:
//   k=0 __hadd(p,q)  k=1 __hmul(p,q)  k=2 __hfma(p,q,r)  k=3 __hsub(p,q)  k=4 __hmax(p,q)
//   (bf16 round-to-nearest-even; below sm_80 computed in f32 then rounded -- for fma a
//   single f32 fma then one rounding to bf16, which can differ from a true bf16 fma by double rounding);
//   fout[2*gid] = __bfloat162float(p) * 2.0f; fout[2*gid+1] = __bfloat162float(__float2bfloat16_rz(3.3f * __bfloat162float(q))).
extern "C" __global__ void bf16_ops(const __nv_bfloat16 *a, const __nv_bfloat16 *b, const __nv_bfloat16 *c,
                                    __nv_bfloat16 *out, float *fout, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    __nv_bfloat16 p = a[gid], q = b[gid], r = c[gid];
    __nv_bfloat16 *o = out + 5 * gid;
    o[0] = __hadd(p, q);
    o[1] = __hmul(p, q);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    o[2] = __hfma(p, q, r);
#else
    o[2] = __float2bfloat16_rn(fmaf(__bfloat162float(p), __bfloat162float(q), __bfloat162float(r)));
#endif
    o[3] = __hsub(p, q);
    o[4] = __hmax(p, q);
    fout[2 * gid] = __bfloat162float(p) * 2.0f;
    fout[2 * gid + 1] = __bfloat162float(__float2bfloat16_rz(3.3f * __bfloat162float(q)));
}

// bf162_convert(const float2 *in, __nv_bfloat162 *packed, __nv_bfloat162 *fma_out, float2 *back, int n)
//   For gid < n, v = in[gid]: packed[gid] = __float22bfloat162_rn(v);
//   fma_out[gid] = __hfma2(packed[gid], packed[gid], packed[gid]) (x*x+x lane-wise, bf16;
//   below sm_80: fmaf in f32 then __floats2bfloat162_rn);
//   back[gid] = __bfloat1622float2(fma_out[gid]).
extern "C" __global__ void bf162_convert(const float2 *in, __nv_bfloat162 *packed, __nv_bfloat162 *fma_out,
                                         float2 *back, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    __nv_bfloat162 p = __float22bfloat162_rn(in[gid]);
    packed[gid] = p;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    __nv_bfloat162 f = __hfma2(p, p, p);
#else
    float2 pf = __bfloat1622float2(p);
    __nv_bfloat162 f = __floats2bfloat162_rn(fmaf(pf.x, pf.x, pf.x), fmaf(pf.y, pf.y, pf.y));
#endif
    fma_out[gid] = f;
    back[gid] = __bfloat1622float2(f);
}
