// templates.cu -- C++ device code as real projects write it: templated
// kernels instantiated for several types (mangled .entry names), kernels in
// namespaces, overloaded kernels, functor and lambda arguments, a
// lambda defined in a kernel and passed to a template device function, and a
// small device-side struct with member functions. Entry names are mangled
// (Itanium ABI); exact names are listed in README.md and below.

namespace ptxjit_fixtures {

// transform<T, Op>(const T *in, T *out, int n, Op op)
//   For gid < n: out[gid] = op(in[gid]).
template <typename T, typename Op>
__global__ void transform(const T *in, T *out, int n, Op op)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid < n)
        out[gid] = op(in[gid]);
}

// Affine functor: x -> a * x + b (in T arithmetic).
template <typename T>
struct Affine {
    T a, b;
    __device__ T operator()(T x) const { return a * x + b; }
};

// Clamp functor: x -> min(max(x, lo), hi).
struct ClampInt {
    int lo, hi;
    __device__ int operator()(int x) const { return x < lo ? lo : (x > hi ? hi : x); }
};

// Instantiations:
//   transform<float, Affine<float>>   : _ZN15ptxjit_fixtures9transformIfNS_6AffineIfEEEEvPKT_PS3_iT0_
//   transform<double, Affine<double>> : _ZN15ptxjit_fixtures9transformIdNS_6AffineIdEEEEvPKT_PS3_iT0_
//   transform<int, ClampInt>          : _ZN15ptxjit_fixtures9transformIiNS_8ClampIntEEEvPKT_PS2_iT0_
//   (the functor is passed by value as an aligned .param byte array)
template __global__ void transform<float, Affine<float>>(const float *, float *, int, Affine<float>);
template __global__ void transform<double, Affine<double>>(const double *, double *, int, Affine<double>);
template __global__ void transform<int, ClampInt>(const int *, int *, int, ClampInt);

// block_reduce_sum<T, BLOCK>(const T *in, T *out, int n)
//   blockDim.x == BLOCK (power of two). Shared tree reduction; out[blockIdx.x] = sum of the
//   block's elements in[blockIdx.x*BLOCK + t] (t < BLOCK, index < n; others 0).
//   Instantiated as <float, 128>, <int, 256>, <unsigned long long, 64>:
//   _ZN15ptxjit_fixtures16block_reduce_sumIfLi128EEEvPKT_PS1_i
//   _ZN15ptxjit_fixtures16block_reduce_sumIiLi256EEEvPKT_PS1_i
//   _ZN15ptxjit_fixtures16block_reduce_sumIyLi64EEEvPKT_PS1_i
template <typename T, int BLOCK>
__global__ void block_reduce_sum(const T *in, T *out, int n)
{
    __shared__ T s[BLOCK];
    int t = threadIdx.x;
    int i = blockIdx.x * BLOCK + t;
    s[t] = i < n ? in[i] : T(0);
    __syncthreads();
#pragma unroll
    for (int st = BLOCK / 2; st > 0; st >>= 1) {
        if (t < st)
            s[t] += s[t + st];
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = s[0];
}

template __global__ void block_reduce_sum<float, 128>(const float *, float *, int);
template __global__ void block_reduce_sum<int, 256>(const int *, int *, int);
template __global__ void block_reduce_sum<unsigned long long, 64>(const unsigned long long *, unsigned long long *,
                                                                  int);

// Overloaded kernels (same name, different parameter types):
//   fill(float *p, float v, int n)  -> _ZN15ptxjit_fixtures4fillEPffi : p[gid] = v for gid < n
//   fill(int *p, int v, int n)      -> _ZN15ptxjit_fixtures4fillEPiii : p[gid] = v + gid for gid < n
__global__ void fill(float *p, float v, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid < n)
        p[gid] = v;
}

__global__ void fill(int *p, int v, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid < n)
        p[gid] = v + gid;
}

// Vec3 with member functions, used by particle_step.
struct Vec3 {
    float x, y, z;
    __device__ Vec3 operator+(const Vec3 &o) const { return {x + o.x, y + o.y, z + o.z}; }
    __device__ Vec3 operator*(float s) const { return {x * s, y * s, z * s}; }
    __device__ float dot(const Vec3 &o) const { return x * o.x + y * o.y + z * o.z; }
};

struct Particle {
    Vec3 pos;
    Vec3 vel;
    float mass;
};

// particle_step(Particle *ps, int n, Vec3 gravity, float dt)
//   -> _ZN15ptxjit_fixtures13particle_stepEPNS_8ParticleEiNS_4Vec3Ef
//   For gid < n: vel = vel + gravity * dt; pos = pos + vel * dt (with the updated vel);
//   if pos.y < 0: pos.y = -pos.y and vel.y = -vel.y * 0.5f. Then mass unchanged.
//   Particle is 28 bytes (7 floats, no padding); gravity is passed by value (.param .align 4 .b8 [12]).
__global__ void particle_step(Particle *ps, int n, Vec3 gravity, float dt)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    Particle p = ps[gid];
    p.vel = p.vel + gravity * dt;
    p.pos = p.pos + p.vel * dt;
    if (p.pos.y < 0.0f) {
        p.pos.y = -p.pos.y;
        p.vel.y = -p.vel.y * 0.5f;
    }
    ps[gid] = p;
}

} // namespace ptxjit_fixtures

// for_each_index<F>(F f, int *out, int n, int gid): __device__ helper taking a closure.
template <typename F>
__device__ __noinline__ void for_each_index(F f, int *out, int n, int gid)
{
    if (gid < n)
        out[gid] = f(gid);
}

// lambda_in_kernel(int *out, int n, int k)
//   A lambda capturing k by value, defined inside the kernel and passed to the
//   __noinline__ template for_each_index (a mangled .func whose name includes the closure
//   type): out[gid] = gid * gid - k for gid < n.
extern "C" __global__ void lambda_in_kernel(int *out, int n, int k)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    auto f = [k](int i) { return i * i - k; };
    for_each_index(f, out, n, gid);
}
