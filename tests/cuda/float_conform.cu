// float_conform.cu -- floating-point forms as nvcc emits them, for test_conform_float:
// f64 fma with directed rounding, 64-bit integer -> float with directed rounding,
// __half2 and __nv_bfloat162 arithmetic (fma .relu, NaN-propagating min/max), the packing
// conversions (cvt.rn.f16x2.f32, cvt.rn.bf16x2.f32, fp8 pairs and back), and inline PTX for
// forms no intrinsic emits.  Half, fp8 and inline-PTX kernels have bodies on sm_90 only
// (elsewhere they return at once); test_conform_float runs the sm_90 and sm_80 files.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

// fma_f64_dir(const double *a, const double *b, const double *c, double *out, int n)
//   For gid < n, x = a[gid], y = b[gid], z = c[gid]: out[4*gid + k] = x*y + z rounded once:
//   k=0 __fma_rn  k=1 __fma_rz  k=2 __fma_rd  k=3 __fma_ru.
extern "C" __global__ void fma_f64_dir(const double *a, const double *b, const double *c, double *out, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    double x = a[gid], y = b[gid], z = c[gid];
    out[4 * gid + 0] = __fma_rn(x, y, z);
    out[4 * gid + 1] = __fma_rz(x, y, z);
    out[4 * gid + 2] = __fma_rd(x, y, z);
    out[4 * gid + 3] = __fma_ru(x, y, z);
}

// int64_float_dir(const long long *a, float *f, double *d, int n)
//   For gid < n, v = a[gid], u = (unsigned long long)v:
//   f[4*gid + k]: k=0 __ll2float_rz(v)  k=1 __ll2float_rd(v)  k=2 __ll2float_ru(v)  k=3 __ull2float_rd(u)
//   d[4*gid + k]: k=0 __ll2double_rz(v) k=1 __ll2double_rd(v) k=2 __ll2double_ru(v) k=3 __ull2double_ru(u)
extern "C" __global__ void int64_float_dir(const long long *a, float *f, double *d, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    long long v = a[gid];
    unsigned long long u = (unsigned long long)v;
    f[4 * gid + 0] = __ll2float_rz(v);
    f[4 * gid + 1] = __ll2float_rd(v);
    f[4 * gid + 2] = __ll2float_ru(v);
    f[4 * gid + 3] = __ull2float_rd(u);
    d[4 * gid + 0] = __ll2double_rz(v);
    d[4 * gid + 1] = __ll2double_rd(v);
    d[4 * gid + 2] = __ll2double_ru(v);
    d[4 * gid + 3] = __ull2double_ru(u);
}

// half2_arith(const __half2 *a, const __half2 *b, const __half2 *c, __half2 *out, int n)
//   For gid < n, x = a[gid], y = b[gid], z = c[gid], per half (round to nearest, NaN results
//   canonical): out[6*gid + k]: k=0 x+y  k=1 x-y  k=2 x*y  k=3 fma(x,y,z)
//   k=4 __hfma2_relu(x,y,z) (negative -> +0, NaN stays NaN)  k=5 __hmax2_nan(x,y) (NaN if either is).
extern "C" __global__ void half2_arith(const __half2 *a, const __half2 *b, const __half2 *c, __half2 *out, int n)
{
#if __CUDA_ARCH__ >= 900
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    __half2 x = a[gid], y = b[gid], z = c[gid];
    __half2 *o = out + 6 * gid;
    o[0] = __hadd2(x, y);
    o[1] = __hsub2(x, y);
    o[2] = __hmul2(x, y);
    o[3] = __hfma2(x, y, z);
    o[4] = __hfma2_relu(x, y, z);
    o[5] = __hmax2_nan(x, y);
#endif
}

// bf162_arith(const __nv_bfloat162 *a, const __nv_bfloat162 *b, const __nv_bfloat162 *c,
//             __nv_bfloat162 *out, int n)
//   As half2_arith on bfloat16 pairs: k=0 x+y  k=1 x-y  k=2 x*y  k=3 fma(x,y,z)
//   k=4 __hfma2_relu(x,y,z)  k=5 __hmin2_nan(x,y).
extern "C" __global__ void bf162_arith(const __nv_bfloat162 *a, const __nv_bfloat162 *b, const __nv_bfloat162 *c,
                                       __nv_bfloat162 *out, int n)
{
#if __CUDA_ARCH__ >= 900
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    __nv_bfloat162 x = a[gid], y = b[gid], z = c[gid];
    __nv_bfloat162 *o = out + 6 * gid;
    o[0] = __hadd2(x, y);
    o[1] = __hsub2(x, y);
    o[2] = __hmul2(x, y);
    o[3] = __hfma2(x, y, z);
    o[4] = __hfma2_relu(x, y, z);
    o[5] = __hmin2_nan(x, y);
#endif
}

// pack_cvt(const float *a, const float *b, unsigned *h2, unsigned short *fp8, unsigned *back, int n)
//   For gid < n, x = a[gid], y = b[gid] (the first value in the low part):
//   h2[2*gid + 0] = bits of __floats2half2_rn(x, y); h2[2*gid + 1] = bits of __floats2bfloat162_rn(x, y)
//   fp8[2*gid + 0] = __nv_cvt_float2_to_fp8x2({x, y}, __NV_SATFINITE, __NV_E4M3)
//   fp8[2*gid + 1] = __nv_cvt_float2_to_fp8x2({x, y}, __NV_SATFINITE, __NV_E5M2)
//   back[2*gid + k] = bits of __nv_cvt_fp8x2_to_halfraw2(fp8[2*gid + k], E4M3 / E5M2) (exact)
extern "C" __global__ void pack_cvt(const float *a, const float *b, unsigned *h2, unsigned short *fp8, unsigned *back,
                                    int n)
{
#if __CUDA_ARCH__ >= 900
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    float x = a[gid], y = b[gid];
    __half2 h = __floats2half2_rn(x, y);
    __nv_bfloat162 bf = __floats2bfloat162_rn(x, y);
    h2[2 * gid + 0] = *(unsigned *)&h;
    h2[2 * gid + 1] = *(unsigned *)&bf;
    __nv_fp8x2_storage_t e4 = __nv_cvt_float2_to_fp8x2(make_float2(x, y), __NV_SATFINITE, __NV_E4M3);
    __nv_fp8x2_storage_t e5 = __nv_cvt_float2_to_fp8x2(make_float2(x, y), __NV_SATFINITE, __NV_E5M2);
    fp8[2 * gid + 0] = e4;
    fp8[2 * gid + 1] = e5;
    __half2_raw r4 = __nv_cvt_fp8x2_to_halfraw2(e4, __NV_E4M3);
    __half2_raw r5 = __nv_cvt_fp8x2_to_halfraw2(e5, __NV_E5M2);
    back[2 * gid + 0] = (unsigned)r4.x | (unsigned)r4.y << 16;
    back[2 * gid + 1] = (unsigned)r5.x | (unsigned)r5.y << 16;
#endif
}

// asm_forms(const float *a, const float *b, unsigned *out, int n)
//   For gid < n, x = a[gid], y = b[gid]; out[6*gid + k] (f32 bits) from inline PTX:
//   k=0 min.xorsign.abs.f32 x, y   k=1 max.NaN.f32 x, y   k=2 cvt.rna.tf32.f32 x
//   k=3 add.rm.ftz.sat.f32 x, y   k=4 sqrt.rp.ftz.f32 |x|  k=5 rcp.rz.ftz.f32 y
extern "C" __global__ void asm_forms(const float *a, const float *b, unsigned *out, int n)
{
#if __CUDA_ARCH__ >= 900
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    float x = a[gid], y = b[gid], r[6];
    unsigned t;
    asm("min.xorsign.abs.f32 %0, %1, %2;" : "=f"(r[0]) : "f"(x), "f"(y));
    asm("max.NaN.f32 %0, %1, %2;" : "=f"(r[1]) : "f"(x), "f"(y));
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(t) : "f"(x));
    r[2] = __uint_as_float(t);
    asm("add.rm.ftz.sat.f32 %0, %1, %2;" : "=f"(r[3]) : "f"(x), "f"(y));
    asm("sqrt.rp.ftz.f32 %0, %1;" : "=f"(r[4]) : "f"(fabsf(x)));
    asm("rcp.rz.ftz.f32 %0, %1;" : "=f"(r[5]) : "f"(y));
    for (int k = 0; k < 6; k++)
        out[6 * gid + k] = __float_as_uint(r[k]);
#endif
}
