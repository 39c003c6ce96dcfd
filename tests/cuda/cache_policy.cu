// cache_policy.cu -- CUDA's cache-policy APIs as nvcc compiles them:
// cuda::annotated_ptr with access properties: loads and stores with
// .L2::cache_hint and a policy libcu++ builds in integer code.
#include <cuda/annotated_ptr>

// scale_persisting(const float *in, float *out, int n, float k)
//   out[i] = in[i] * k for i < n, reading through an annotated_ptr with
//   access_property::persisting and writing with access_property::streaming.
extern "C" __global__ void scale_persisting(const float *in, float *out, int n, float k)
{
    cuda::annotated_ptr<const float, cuda::access_property::persisting> a(in);
    cuda::annotated_ptr<float, cuda::access_property::streaming> b(out);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        b[i] = a[i] * k;
}

// fraction_sum(const int *in, int *out, int n)
//   out[i] = in[i] + in[n - 1 - i] for i < n, in read through an annotated_ptr
//   with access_property(persisting, fraction 0.5) (an interleaved policy).
extern "C" __global__ void fraction_sum(const int *in, int *out, int n)
{
    cuda::access_property prop(cuda::access_property::persisting{}, 0.5f);
    cuda::annotated_ptr<const int, cuda::access_property> a(in, prop);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = a[i] + a[n - 1 - i];
}

// range_atomic(int *counter, int *data, int n)
//   atomicAdd(&counter[i % 4], data[i]) for i < n, data read through an
//   annotated_ptr with a range access property over data (persisting hits,
//   streaming misses), whose policy libcu++ encodes in integer code.
extern "C" __global__ void range_atomic(int *counter, int *data, int n)
{
    cuda::access_property prop(data, n * sizeof(int), n * sizeof(int), cuda::access_property::persisting{}, cuda::access_property::streaming{});
    cuda::annotated_ptr<int, cuda::access_property> d(data, prop);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&counter[i % 4], d[i]);
}
