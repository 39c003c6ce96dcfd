// double_math.cu -- double precision arithmetic and the CUDA math library
// (inlined libdevice code: sqrt, rcp, division, fma, exp, log, sin/cos, pow,
// rounding functions, frexp/ldexp), plus single-precision library functions
// (expf, logf, sinf, powf, atan2f, erff, tanhf, cbrtf) with their full-accuracy
// (non-intrinsic) implementations.
//
// Reference implementations: the C99 functions of the same name; expect the
// CUDA documented ulp bounds (sqrt/div/fma/rounding exact; others 1-4 ulp).

// dmath_basic(const double *x, const double *y, double *out, int n)
//   For gid < n with a = x[gid], b = y[gid]; out[8*gid + k]:
//   k=0 a + b   k=1 a * b   k=2 a / b   k=3 sqrt(fabs(a))   k=4 fma(a, b, 1.0)
//   k=5 1.0 / a (correctly rounded)     k=6 fmin(a, b)      k=7 fmax(a, b)
extern "C" __global__ void dmath_basic(const double *x, const double *y, double *out, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    double a = x[gid], b = y[gid];
    double *o = out + 8 * gid;
    o[0] = a + b;
    o[1] = a * b;
    o[2] = a / b;
    o[3] = sqrt(fabs(a));
    o[4] = fma(a, b, 1.0);
    o[5] = 1.0 / a;
    o[6] = fmin(a, b);
    o[7] = fmax(a, b);
}

// dmath_transcendental(const double *x, double *out, int n)
//   For gid < n with a = x[gid]; out[8*gid + k]:
//   k=0 exp(a)  k=1 log(fabs(a) + 1.0)  k=2 sin(a)  k=3 cos(a)  k=4 pow(fabs(a), 1.5)
//   k=5 tanh(a) k=6 atan2(a, 2.0)       k=7 log2(fabs(a) + 0.5)
extern "C" __global__ void dmath_transcendental(const double *x, double *out, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    double a = x[gid];
    double *o = out + 8 * gid;
    o[0] = exp(a);
    o[1] = log(fabs(a) + 1.0);
    o[2] = sin(a);
    o[3] = cos(a);
    o[4] = pow(fabs(a), 1.5);
    o[5] = tanh(a);
    o[6] = atan2(a, 2.0);
    o[7] = log2(fabs(a) + 0.5);
}

// dmath_rounding(const double *x, double *out, long long *ll, int *ex, int n)
//   For gid < n with a = x[gid]; out[6*gid + k]:
//   k=0 floor(a) k=1 ceil(a) k=2 trunc(a) k=3 round(a) (half away from zero) k=4 rint(a) (half even)
//   k=5 fmod(a, 3.0);
//   ll[gid] = llrint(a) (round half even; inputs with |a| < 2^63);
//   ex[gid] = the exponent e from frexp(a, &e) (0 for a == 0).
extern "C" __global__ void dmath_rounding(const double *x, double *out, long long *ll, int *ex, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    double a = x[gid];
    double *o = out + 6 * gid;
    o[0] = floor(a);
    o[1] = ceil(a);
    o[2] = trunc(a);
    o[3] = round(a);
    o[4] = rint(a);
    o[5] = fmod(a, 3.0);
    ll[gid] = llrint(a);
    int e;
    (void)frexp(a, &e);
    ex[gid] = e;
}

// dconvert(const double *x, float *f, int *i, unsigned long long *u, double *back, int n)
//   For gid < n with a = x[gid]:
//   f[gid] = (float)a (round to nearest); i[gid] = (int)a (truncate; in-range inputs only);
//   u[gid] = (unsigned long long)fabs(a) (truncate); back[gid] = ldexp((double)i[gid], 3) + (double)f[gid].
extern "C" __global__ void dconvert(const double *x, float *f, int *i, unsigned long long *u, double *back, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    double a = x[gid];
    float fa = (float)a;
    int ia = (int)a;
    f[gid] = fa;
    i[gid] = ia;
    u[gid] = (unsigned long long)fabs(a);
    back[gid] = ldexp((double)ia, 3) + (double)fa;
}

// fmath_library(const float *x, float *out, int n)
//   For gid < n with a = x[gid]; out[8*gid + k]:
//   k=0 expf(a) k=1 logf(fabsf(a) + 1) k=2 sinf(a) k=3 powf(fabsf(a), 0.75f)
//   k=4 atan2f(a, 1.5f) k=5 erff(a) k=6 tanhf(a) k=7 cbrtf(a)
extern "C" __global__ void fmath_library(const float *x, float *out, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    float a = x[gid];
    float *o = out + 8 * gid;
    o[0] = expf(a);
    o[1] = logf(fabsf(a) + 1.0f);
    o[2] = sinf(a);
    o[3] = powf(fabsf(a), 0.75f);
    o[4] = atan2f(a, 1.5f);
    o[5] = erff(a);
    o[6] = tanhf(a);
    o[7] = cbrtf(a);
}

// dnorm3(const double3 *v, double *len, double3 *unit, int n)
//   For gid < n: L = sqrt(x*x + y*y + z*z) (fma-contracted), len[gid] = L;
//   unit[gid] = v / L componentwise (IEEE division); L == 0 gives NaNs/inf per IEEE.
extern "C" __global__ void dnorm3(const double3 *v, double *len, double3 *unit, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    double3 a = v[gid];
    double L = sqrt(a.x * a.x + a.y * a.y + a.z * a.z);
    len[gid] = L;
    unit[gid] = make_double3(a.x / L, a.y / L, a.z / L);
}
