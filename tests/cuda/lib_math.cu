// lib_math.cu -- the CUDA math library as nvcc inlines it (libdevice):
// single- and double-precision functions, fast-math intrinsics, and the
// __half / __nv_bfloat16 functions of cuda_fp16.h / cuda_bf16.h.
// Also compiled with -use_fast_math (where sinf becomes sin.approx etc.).
//
// Inputs are laid out per function: x[k*n + i], y[k*n + i] is the i-th
// argument pair of function k; results go to out[k*n + i]. Function lists
// (k = index in the list):

#include <cuda_bf16.h>
#include <cuda_fp16.h>

// fmath_f32(const float *x, const float *y, float *out, int n)
//   k: 0 sinf(x) 1 cosf(x) 2 tanf(x) 3 expf(x) 4 exp2f(x) 5 exp10f(x) 6 logf(x)
//   7 log2f(x) 8 log10f(x) 9 log1pf(x) 10 expm1f(x) 11 powf(x, y) 12 erff(x)
//   13 erfcf(x) 14 erfinvf(x) 15 lgammaf(x) 16 tgammaf(x) 17 normcdff(x)
//   18 normcdfinvf(x) 19 sinhf(x) 20 coshf(x) 21 tanhf(x) 22 asinf(x) 23 acosf(x)
//   24 atanf(x) 25 atan2f(x, y) 26 cbrtf(x) 27 rsqrtf(x) 28 hypotf(x, y)
//   29 fmodf(x, y) 30 sinpif(x) 31 sqrtf(x) 32 x / y 33 __fdividef(x, y)
//   34 __expf(x) 35 __sinf(x) 36 __logf(x) 37 __powf(x, y) 38 remainderf(x, y)
//   39 the sin of sincosf(x) plus 4 times its cos (s + 4c, one fma or mul+add)
#define NF32 40
extern "C" __global__ void fmath_f32(const float *x, const float *y, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float a[NF32], b[NF32];
    for (int k = 0; k < NF32; k++) {
        a[k] = x[k * n + i];
        b[k] = y[k * n + i];
    }
    float r[NF32];
    r[0] = sinf(a[0]);
    r[1] = cosf(a[1]);
    r[2] = tanf(a[2]);
    r[3] = expf(a[3]);
    r[4] = exp2f(a[4]);
    r[5] = exp10f(a[5]);
    r[6] = logf(a[6]);
    r[7] = log2f(a[7]);
    r[8] = log10f(a[8]);
    r[9] = log1pf(a[9]);
    r[10] = expm1f(a[10]);
    r[11] = powf(a[11], b[11]);
    r[12] = erff(a[12]);
    r[13] = erfcf(a[13]);
    r[14] = erfinvf(a[14]);
    r[15] = lgammaf(a[15]);
    r[16] = tgammaf(a[16]);
    r[17] = normcdff(a[17]);
    r[18] = normcdfinvf(a[18]);
    r[19] = sinhf(a[19]);
    r[20] = coshf(a[20]);
    r[21] = tanhf(a[21]);
    r[22] = asinf(a[22]);
    r[23] = acosf(a[23]);
    r[24] = atanf(a[24]);
    r[25] = atan2f(a[25], b[25]);
    r[26] = cbrtf(a[26]);
    r[27] = rsqrtf(a[27]);
    r[28] = hypotf(a[28], b[28]);
    r[29] = fmodf(a[29], b[29]);
    r[30] = sinpif(a[30]);
    r[31] = sqrtf(a[31]);
    r[32] = a[32] / b[32];
    r[33] = __fdividef(a[33], b[33]);
    r[34] = __expf(a[34]);
    r[35] = __sinf(a[35]);
    r[36] = __logf(a[36]);
    r[37] = __powf(a[37], b[37]);
    r[38] = remainderf(a[38], b[38]);
    float s, c;
    sincosf(a[39], &s, &c);
    r[39] = s + 4.0f * c;
    for (int k = 0; k < NF32; k++)
        out[k * n + i] = r[k];
}

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
