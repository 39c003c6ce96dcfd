// local_arrays.cu -- per-thread local memory: arrays indexed dynamically,
// local arrays passed by pointer to __noinline__ device functions (generic
// pointers into .local, cvta.local), structs passed and returned by value
// through .param aggregates, and a device function returning a float.

struct Stats {
    float mean;
    float minv;
    float maxv;
    int count;
};

// insertion_sort: sorts a[0..len) ascending in place.
__device__ __noinline__ void insertion_sort(int *a, int len)
{
    for (int i = 1; i < len; ++i) {
        int key = a[i];
        int j = i - 1;
        while (j >= 0 && a[j] > key) {
            a[j + 1] = a[j];
            --j;
        }
        a[j + 1] = key;
    }
}

// compute_stats: statistics of v[0..len) (len >= 1), returned by value.
__device__ __noinline__ Stats compute_stats(const float *v, int len)
{
    Stats s;
    s.minv = v[0];
    s.maxv = v[0];
    float sum = 0.0f;
    for (int i = 0; i < len; ++i) {
        sum += v[i];
        s.minv = fminf(s.minv, v[i]);
        s.maxv = fmaxf(s.maxv, v[i]);
    }
    s.mean = sum / (float)len;
    s.count = len;
    return s;
}

// scale_stats: takes a struct by value, returns a scalar.
__device__ __noinline__ float stats_range_scaled(Stats s, float k)
{
    return (s.maxv - s.minv) * k + (float)s.count;
}

// median_of_window(const int *in, int *out, int n)
//   For gid < n: copy the 9 values in[(gid + k) % n], k = 0..8, into a local int[9],
//   sort it with the __noinline__ insertion_sort(int*, int) and write
//   out[gid] = sorted[4] (the median).
extern "C" __global__ void median_of_window(const int *in, int *out, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    int w[9];
    for (int k = 0; k < 9; ++k)
        w[k] = in[(gid + k) % n];
    insertion_sort(w, 9);
    out[gid] = w[4];
}

// window_stats(const float *in, float *out, int n, int len)
//   1 <= len <= 16. For gid < n: local float v[16] gets in[(gid + k) % n] for k < len;
//   s = compute_stats(v, len) (struct returned by value);
//   out[4*gid + 0] = s.mean (sequential sum / len), out[4*gid + 1] = s.minv,
//   out[4*gid + 2] = s.maxv, out[4*gid + 3] = stats_range_scaled(s, 0.5f)
//   = (maxv - minv) * 0.5f + len.
extern "C" __global__ void window_stats(const float *in, float *out, int n, int len)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    float v[16];
    for (int k = 0; k < len; ++k)
        v[k] = in[(gid + k) % n];
    Stats s = compute_stats(v, len);
    out[4 * gid + 0] = s.mean;
    out[4 * gid + 1] = s.minv;
    out[4 * gid + 2] = s.maxv;
    out[4 * gid + 3] = stats_range_scaled(s, 0.5f);
}

// local_histogram(const unsigned char *in, int per_thread, unsigned *out)
//   Each thread gid counts values in[gid*per_thread + k] (k < per_thread) into a local
//   unsigned hist[16] by the low 4 bits (data-dependent index -> ld.local/st.local),
//   then writes out[gid*16 + b] = hist[b] for b in [0,16).
extern "C" __global__ void local_histogram(const unsigned char *in, int per_thread, unsigned *out)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned hist[16];
    for (int b = 0; b < 16; ++b)
        hist[b] = 0;
    for (int k = 0; k < per_thread; ++k)
        hist[in[gid * per_thread + k] & 15]++;
    for (int b = 0; b < 16; ++b)
        out[gid * 16 + b] = hist[b];
}

// reverse_local_u64(const unsigned long long *in, unsigned long long *out, int n, int len)
//   1 <= len <= 32. For gid < n: local u64 buf[32] = in[gid*len + k]; then
//   out[gid*len + k] = buf[len - 1 - k] ^ (u64)k for k < len.
extern "C" __global__ void reverse_local_u64(const unsigned long long *in, unsigned long long *out, int n, int len)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    unsigned long long buf[32];
    for (int k = 0; k < len; ++k)
        buf[k] = in[gid * len + k];
    for (int k = 0; k < len; ++k)
        out[gid * len + k] = buf[len - 1 - k] ^ (unsigned long long)k;
}
