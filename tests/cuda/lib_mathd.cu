// lib_mathd.cu -- the CUDA math library as nvcc inlines it (libdevice):
// double-precision functions and the __half / __nv_bfloat16 functions of
// cuda_fp16.h / cuda_bf16.h (single precision: lib_math.cu).
//
// Inputs are laid out per function: x[k*n + i], y[k*n + i] is the i-th
// argument pair of function k; results go to out[k*n + i]. Function lists
// (k = index in the list):

#include <cuda_bf16.h>
#include <cuda_fp16.h>

// dmath_f64(const double *x, const double *y, double *out, int n)
//   k: 0 sin 1 exp 2 log 3 pow(x, y) 4 erf 5 lgamma 6 atan2(x, y) 7 cbrt 8 rsqrt
//   9 sqrt 10 x / y 11 normcdf 12 tanh 13 log1p 14 expm1 15 acos
//   (more f64 functions: tests/cuda/double_math.cu; kept short because
//   every inlined libdevice function costs compile time)
#define NF64 16
extern "C" __global__ void dmath_f64(const double *x, const double *y, double *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const double *a = x + i, *b = y + i;
    double *o = out + i;
    o[0 * n] = sin(a[0 * n]);
    o[1 * n] = exp(a[1 * n]);
    o[2 * n] = log(a[2 * n]);
    o[3 * n] = pow(a[3 * n], b[3 * n]);
    o[4 * n] = erf(a[4 * n]);
    o[5 * n] = lgamma(a[5 * n]);
    o[6 * n] = atan2(a[6 * n], b[6 * n]);
    o[7 * n] = cbrt(a[7 * n]);
    o[8 * n] = rsqrt(a[8 * n]);
    o[9 * n] = sqrt(a[9 * n]);
    o[10 * n] = a[10 * n] / b[10 * n];
    o[11 * n] = normcdf(a[11 * n]);
    o[12 * n] = tanh(a[12 * n]);
    o[13 * n] = log1p(a[13 * n]);
    o[14 * n] = expm1(a[14 * n]);
    o[15 * n] = acos(a[15 * n]);
}

// hmath(const __half *x, const __half *y, __half *out, int n)
//   k: 0 hsin 1 hcos 2 hexp 3 hexp2 4 hexp10 5 hlog 6 hlog2 7 hlog10 8 hrcp
//   9 hrsqrt 10 hsqrt 11 __hdiv(x, y) 12 htanh 13 __hfma(x, y, 0.5) 14 x * y + x (__hmul, __hadd)
//   15 hfloor 16 hceil 17 htrunc 18 hrint 19 __hmax(x, y)
#define NH 20
extern "C" __global__ void hmath(const __half *x, const __half *y, __half *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const __half *a = x + i, *b = y + i;
    __half *o = out + i;
    o[0 * n] = hsin(a[0 * n]);
    o[1 * n] = hcos(a[1 * n]);
    o[2 * n] = hexp(a[2 * n]);
    o[3 * n] = hexp2(a[3 * n]);
    o[4 * n] = hexp10(a[4 * n]);
    o[5 * n] = hlog(a[5 * n]);
    o[6 * n] = hlog2(a[6 * n]);
    o[7 * n] = hlog10(a[7 * n]);
    o[8 * n] = hrcp(a[8 * n]);
    o[9 * n] = hrsqrt(a[9 * n]);
    o[10 * n] = hsqrt(a[10 * n]);
    o[11 * n] = __hdiv(a[11 * n], b[11 * n]);
    o[12 * n] = htanh(a[12 * n]);
    o[13 * n] = __hfma(a[13 * n], b[13 * n], __float2half(0.5f));
    o[14 * n] = __hadd(__hmul(a[14 * n], b[14 * n]), a[14 * n]);
    o[15 * n] = hfloor(a[15 * n]);
    o[16 * n] = hceil(a[16 * n]);
    o[17 * n] = htrunc(a[17 * n]);
    o[18 * n] = hrint(a[18 * n]);
    o[19 * n] = __hmax(a[19 * n], b[19 * n]);
}

// bmath(const __nv_bfloat16 *x, const __nv_bfloat16 *y, __nv_bfloat16 *out, int n)
//   k: 0 hsin 1 hcos 2 hexp 3 hexp2 4 hlog 5 hlog2 6 hrcp 7 hrsqrt 8 hsqrt
//   9 __hdiv(x, y) 10 __hsub(x, y) 11 x * y + x (__hmul, __hadd) 12 hfloor 13 hrint
//   14 __float2bfloat16_rz(float(x) * 3)  15 __hmin(x, y)
#define NB 16
extern "C" __global__ void bmath(const __nv_bfloat16 *x, const __nv_bfloat16 *y, __nv_bfloat16 *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const __nv_bfloat16 *a = x + i, *b = y + i;
    __nv_bfloat16 *o = out + i;
    o[0 * n] = hsin(a[0 * n]);
    o[1 * n] = hcos(a[1 * n]);
    o[2 * n] = hexp(a[2 * n]);
    o[3 * n] = hexp2(a[3 * n]);
    o[4 * n] = hlog(a[4 * n]);
    o[5 * n] = hlog2(a[5 * n]);
    o[6 * n] = hrcp(a[6 * n]);
    o[7 * n] = hrsqrt(a[7 * n]);
    o[8 * n] = hsqrt(a[8 * n]);
    o[9 * n] = __hdiv(a[9 * n], b[9 * n]);
    o[10 * n] = __hsub(a[10 * n], b[10 * n]);
    o[11 * n] = __hadd(__hmul(a[11 * n], b[11 * n]), a[11 * n]);
    o[12 * n] = hfloor(a[12 * n]);
    o[13 * n] = hrint(a[13 * n]);
    o[14 * n] = __float2bfloat16_rz(__bfloat162float(a[14 * n]) * 3.0f);
    o[15 * n] = __hmin(a[15 * n], b[15 * n]);
}
