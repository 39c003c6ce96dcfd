// float_rounding.cu -- IEEE rounding-mode intrinsics (.rn/.rz/.ru/.rd on add,
// mul, div, sqrt, rcp, fma and conversions), float<->int conversions with
// every rounding, saturation, and the fast-math intrinsics (__expf, __sinf,
// __logf, __powf, __fdividef, rsqrtf, __saturatef) which lower to .approx
// (.ftz) instructions. gen-fixtures.sh also compiles this file with
// -use_fast_math (*.fastmath.ptx), which turns expf/sinf/etc. into the
// approximate forms and adds .ftz to ordinary float arithmetic.

// rounding_f32(const float *a, const float *b, const float *c, float *out, int n)
//   For gid < n, x = a[gid], y = b[gid], z = c[gid]; out[16*gid + k] (IEEE single, given rounding):
//   k=0 __fadd_rn(x,y) k=1 __fadd_rz k=2 __fadd_ru k=3 __fadd_rd
//   k=4 __fmul_rn(x,y) k=5 __fmul_rz k=6 __fmul_ru k=7 __fmul_rd
//   k=8 __fdiv_rn(x,y) k=9 __fdiv_rz k=10 __fdiv_ru k=11 __fdiv_rd
//   k=12 __fsqrt_rz(fabsf(x)) k=13 __frcp_rn(y) k=14 __fmaf_rz(x, y, z) k=15 __fsub_ru(x, y)
extern "C" __global__ void rounding_f32(const float *a, const float *b, const float *c, float *out, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    float x = a[gid], y = b[gid], z = c[gid];
    float *o = out + 16 * gid;
    o[0] = __fadd_rn(x, y);
    o[1] = __fadd_rz(x, y);
    o[2] = __fadd_ru(x, y);
    o[3] = __fadd_rd(x, y);
    o[4] = __fmul_rn(x, y);
    o[5] = __fmul_rz(x, y);
    o[6] = __fmul_ru(x, y);
    o[7] = __fmul_rd(x, y);
    o[8] = __fdiv_rn(x, y);
    o[9] = __fdiv_rz(x, y);
    o[10] = __fdiv_ru(x, y);
    o[11] = __fdiv_rd(x, y);
    o[12] = __fsqrt_rz(fabsf(x));
    o[13] = __frcp_rn(y);
    o[14] = __fmaf_rz(x, y, z);
    o[15] = __fsub_ru(x, y);
}

// rounding_f64(const double *a, const double *b, double *out, int n)
//   For gid < n, x = a[gid], y = b[gid]; out[8*gid + k]:
//   k=0 __dadd_ru(x,y) k=1 __dadd_rd k=2 __dmul_rz(x,y) k=3 __dmul_ru k=4 __ddiv_rn(x,y)
//   k=5 __ddiv_rz k=6 __dsqrt_rd(fabs(x)) k=7 __drcp_ru(y)
extern "C" __global__ void rounding_f64(const double *a, const double *b, double *out, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    double x = a[gid], y = b[gid];
    double *o = out + 8 * gid;
    o[0] = __dadd_ru(x, y);
    o[1] = __dadd_rd(x, y);
    o[2] = __dmul_rz(x, y);
    o[3] = __dmul_ru(x, y);
    o[4] = __ddiv_rn(x, y);
    o[5] = __ddiv_rz(x, y);
    o[6] = __dsqrt_rd(fabs(x));
    o[7] = __drcp_ru(y);
}

// conversions(const float *f, const double *d, int *iout, long long *lout, float *fout, int n)
//   For gid < n, x = f[gid], y = d[gid]:
//   iout[8*gid + k]: k=0 __float2int_rn(x) k=1 __float2int_rz k=2 __float2int_ru k=3 __float2int_rd
//     k=4 (int)__float2uint_rn(fabsf(x)) k=5 __double2int_rd(y) k=6 __double2int_ru(y)
//     k=7 (int)__float_as_uint(x)  (raw bits)
//     (out-of-range inputs saturate: NaN -> 0, too large -> INT_MAX/INT_MIN.)
//   lout[2*gid + 0] = __float2ll_rd(x); lout[2*gid + 1] = __double2ll_rn(y).
//   fout[6*gid + k]: k=0 __int2float_rz((int)y) k=1 __uint2float_ru((unsigned)fabs(y))
//     k=2 __double2float_rd(y) k=3 __double2float_ru(y) k=4 __ll2float_rn((long long)y)
//     k=5 __saturatef(x)  (clamp to [0, 1], NaN -> 0)
extern "C" __global__ void conversions(const float *f, const double *d, int *iout, long long *lout, float *fout,
                                       int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    float x = f[gid];
    double y = d[gid];
    int *io = iout + 8 * gid;
    io[0] = __float2int_rn(x);
    io[1] = __float2int_rz(x);
    io[2] = __float2int_ru(x);
    io[3] = __float2int_rd(x);
    io[4] = (int)__float2uint_rn(fabsf(x));
    io[5] = __double2int_rd(y);
    io[6] = __double2int_ru(y);
    io[7] = (int)__float_as_uint(x);
    lout[2 * gid + 0] = __float2ll_rd(x);
    lout[2 * gid + 1] = __double2ll_rn(y);
    float *fo = fout + 6 * gid;
    fo[0] = __int2float_rz((int)y);
    fo[1] = __uint2float_ru((unsigned)fabs(y));
    fo[2] = __double2float_rd(y);
    fo[3] = __double2float_ru(y);
    fo[4] = __ll2float_rn((long long)y);
    fo[5] = __saturatef(x);
}

// fast_math(const float *a, const float *b, float *out, int n)
//   For gid < n, x = a[gid], y = b[gid]; out[10*gid + k] (approximate; compare with a
//   relative tolerance of ~2^-20 on well-conditioned inputs):
//   k=0 __expf(x)  k=1 __sinf(x)  k=2 __cosf(x)  k=3 __logf(fabsf(x) + 1)  k=4 __powf(fabsf(x) + 1, y)
//   k=5 __fdividef(x, y)  k=6 rsqrtf(fabsf(y) + 1)  k=7 __log2f(fabsf(x) + 1)  k=8 exp2f(x)
//   k=9 __tanf(x)
extern "C" __global__ void fast_math(const float *a, const float *b, float *out, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    float x = a[gid], y = b[gid];
    float *o = out + 10 * gid;
    o[0] = __expf(x);
    o[1] = __sinf(x);
    o[2] = __cosf(x);
    o[3] = __logf(fabsf(x) + 1.0f);
    o[4] = __powf(fabsf(x) + 1.0f, y);
    o[5] = __fdividef(x, y);
    o[6] = rsqrtf(fabsf(y) + 1.0f);
    o[7] = __log2f(fabsf(x) + 1.0f);
    o[8] = exp2f(x);
    o[9] = __tanf(x);
}

// plain_float_ops(const float *a, const float *b, float *out, int n)
//   For gid < n, x = a[gid], y = b[gid]; out[6*gid + k]: k=0 x / y  k=1 sqrtf(x)  k=2 1.0f / y
//   k=3 x * y + 1.0f (fma-contracted)  k=4 expf(x)  k=5 sinf(x).
//   Default build: IEEE div/sqrt/rcp (div.rn.f32, sqrt.rn.f32, rcp.rn.f32) and libm expf/sinf.
//   -use_fast_math build: div.approx.ftz.f32 / sqrt.approx.ftz.f32 / ex2.approx.ftz.f32 / sin.approx.ftz.f32.
extern "C" __global__ void plain_float_ops(const float *a, const float *b, float *out, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    float x = a[gid], y = b[gid];
    float *o = out + 6 * gid;
    o[0] = x / y;
    o[1] = sqrtf(x);
    o[2] = 1.0f / y;
    o[3] = x * y + 1.0f;
    o[4] = expf(x);
    o[5] = sinf(x);
}

// special_values(float *out)
//   Single thread writes: out[0] = INFINITY, out[1] = -INFINITY, out[2] = NAN (bits 0x7fffffff),
//   out[3] = -0.0f, out[4] = FLT_MIN / 4 (subnormal 0x00200000), out[5] = FLT_MAX,
//   out[6] = 1.0f / out[3] via a volatile load (-inf), out[7] = __int_as_float(0x7f800001) (sNaN bits).
extern "C" __global__ void special_values(float *out)
{
    if (threadIdx.x + blockIdx.x != 0)
        return;
    out[0] = __int_as_float(0x7f800000);
    out[1] = __int_as_float(0xff800000);
    out[2] = __int_as_float(0x7fffffff);
    out[3] = -0.0f;
    out[4] = __int_as_float(0x00200000);
    out[5] = __int_as_float(0x7f7fffff);
    volatile float *vo = out;
    out[6] = 1.0f / vo[3];
    out[7] = __int_as_float(0x7f800001);
}
