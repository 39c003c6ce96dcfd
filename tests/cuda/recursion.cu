// recursion.cu -- recursive and mutually recursive __noinline__ device
// functions (call stack in .local, .func with .param return values), plus a
// call chain through several noinline functions with mixed argument types.

// fib(n): naive recursion, fib(0) = 0, fib(1) = 1.
__device__ __noinline__ int fib(int n)
{
    if (n < 2)
        return n;
    return fib(n - 1) + fib(n - 2);
}

// range_sum(a, lo, hi): sum of a[lo..hi) by divide and conquer (recursion depth ~log2).
__device__ __noinline__ long long range_sum(const int *a, int lo, int hi)
{
    if (hi - lo <= 2) {
        long long s = 0;
        for (int i = lo; i < hi; ++i)
            s += a[i];
        return s;
    }
    int mid = lo + (hi - lo) / 2;
    return range_sum(a, lo, mid) + range_sum(a, mid, hi);
}

__device__ __noinline__ bool is_odd(unsigned n);

// is_even / is_odd: mutual recursion on n (n - 1 each step).
__device__ __noinline__ bool is_even(unsigned n)
{
    return n == 0 ? true : is_odd(n - 1);
}

__device__ __noinline__ bool is_odd(unsigned n)
{
    return n == 0 ? false : is_even(n - 1);
}

// fpow_rec(x, e): x^e by recursive squaring on e >= 0 (float multiplies in this order:
// e == 0 -> 1; e odd -> x * fpow_rec(x, e - 1); e even -> h*h with h = fpow_rec(x, e/2)).
__device__ __noinline__ float fpow_rec(float x, int e)
{
    if (e == 0)
        return 1.0f;
    if (e & 1)
        return x * fpow_rec(x, e - 1);
    float h = fpow_rec(x, e / 2);
    return h * h;
}

// ackermann(m, n), small arguments only.
__device__ __noinline__ unsigned ackermann(unsigned m, unsigned n)
{
    if (m == 0)
        return n + 1;
    if (n == 0)
        return ackermann(m - 1, 1);
    return ackermann(m - 1, ackermann(m, n - 1));
}

// fib_kernel(int *out, int n)
//   For gid < n: out[gid] = fib(gid % 20).
extern "C" __global__ void fib_kernel(int *out, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid < n)
        out[gid] = fib(gid % 20);
}

// range_sum_kernel(const int *data, int len, long long *out, int n)
//   For gid < n: out[gid] = sum of data[0 .. (gid % (len + 1))) via recursive range_sum.
extern "C" __global__ void range_sum_kernel(const int *data, int len, long long *out, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid < n)
        out[gid] = range_sum(data, 0, gid % (len + 1));
}

// parity_kernel(const unsigned *in, int *out, int n)
//   For gid < n: v = in[gid] % 64; out[gid] = is_even(v) ? 2 : (is_odd(v) ? 1 : -1)
//   (always 2 for even v, 1 for odd v).
extern "C" __global__ void parity_kernel(const unsigned *in, int *out, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid < n) {
        unsigned v = in[gid] % 64u;
        out[gid] = is_even(v) ? 2 : (is_odd(v) ? 1 : -1);
    }
}

// pow_ack_kernel(const float *x, const int *e, float *pw, unsigned *ack, int n)
//   For gid < n: pw[gid] = fpow_rec(x[gid], e[gid] & 31);
//   ack[gid] = ackermann(gid % 3, gid % 4)  (values: A(0,k)=k+1, A(1,k)=k+2, A(2,k)=2k+3).
extern "C" __global__ void pow_ack_kernel(const float *x, const int *e, float *pw, unsigned *ack, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid < n) {
        pw[gid] = fpow_rec(x[gid], e[gid] & 31);
        ack[gid] = ackermann(gid % 3, gid % 4);
    }
}
