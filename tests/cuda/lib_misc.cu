// lib_misc.cu -- libcu++ (cuda::atomic_ref, cuda::std::atomic, <cuda/std/bit>,
// complex, array, tuple, limits, algorithms), __int128 arithmetic, device
// printf and malloc used the way library code does.
//
// g = global thread index.

#include <cuda/atomic>
#include <cuda/std/__algorithm/clamp.h>
#include <cuda/std/__algorithm/max.h>
#include <cuda/std/array>
#include <cuda/std/bit>
#include <cuda/std/complex>
#include <cuda/std/limits>
#include <cuda/std/tuple>
#include <cuda/std/utility>

// libcu_atomics(const int *in, int *acc, unsigned long long *acc64, float *facc, int n)
//   For every g < n, with x = in[g] (cuda::atomic_ref, device scope unless noted):
//   acc[0] += x (fetch_add, relaxed); acc[1] = min over x (fetch_min);
//   acc[2] = max over x (fetch_max, block scope); acc[3] |= 1 << (x & 31) (fetch_or);
//   acc[4] counts g with x even (compare_exchange_strong loop incrementing by one);
//   acc64[0] += (unsigned long long)x * x (fetch_add, acq_rel);
//   facc[0] += (float)(x & 7) (float fetch_add; all partial sums are small integers,
//   so the result is exact in any order);
//   acc[5] ^= x (cuda::std::atomic_ref in a __shared__ per-block word, then
//   one fetch_xor per block into acc[5]).
//   Initial values are the caller's (acc[1] = INT_MAX, acc[2] = INT_MIN, the rest 0).
extern "C" __global__ void libcu_atomics(const int *in, int *acc, unsigned long long *acc64,
                                         float *facc, int n)
{
    __shared__ int sx;
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0)
        sx = 0;
    __syncthreads();
    if (g < n) {
        int x = in[g];
        cuda::atomic_ref<int, cuda::thread_scope_device> a0(acc[0]), a1(acc[1]), a3(acc[3]), a4(acc[4]);
        cuda::atomic_ref<int, cuda::thread_scope_block> a2(acc[2]);
        a0.fetch_add(x, cuda::std::memory_order_relaxed);
        a1.fetch_min(x);
        a2.fetch_max(x);
        a3.fetch_or(1 << (x & 31));
        if ((x & 1) == 0) {
            int old = a4.load(cuda::std::memory_order_relaxed);
            while (!a4.compare_exchange_strong(old, old + 1, cuda::std::memory_order_acq_rel))
                ;
        }
        cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> b(acc64[0]);
        b.fetch_add((unsigned long long)x * (unsigned long long)x, cuda::std::memory_order_acq_rel);
        cuda::atomic_ref<float, cuda::thread_scope_device> f(facc[0]);
        f.fetch_add((float)(x & 7));
        cuda::std::atomic_ref<int> s(sx);
        s.fetch_xor(x);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        cuda::atomic_ref<int, cuda::thread_scope_device> a5(acc[5]);
        a5.fetch_xor(sx);
    }
}

// libcu_std(const unsigned *in, unsigned *out, float *fout, int n)
//   For g < n, u = in[g], v = in[(g + 1) % n]:
//   out[8g+0] = popcount(u)              out[8g+1] = countl_zero(u)
//   out[8g+2] = countr_zero(u) (32 for 0) out[8g+3] = bit_width(u)
//   out[8g+4] = bit_ceil(u & 0xffff)     out[8g+5] = rotl(u, v % 32)
//   out[8g+6] = the bits of (float)(u & 0xffffff) (bit_cast)
//   out[8g+7] = clamp(u, 1000, 100000) + max of {u%7, u%11, u%13} (array + tuple unpacking)
//   complex: z = (a + bi) with a = (u & 255) / 16, b = (v & 255) / 16 (exact);
//   w = z * z + conj(z):  fout[2g] = real(w), fout[2g+1] = imag(w)  (products of
//   multiples of 1/16 below 16: exact in f32, any contraction gives the same value).
extern "C" __global__ void libcu_std(const unsigned *in, unsigned *out, float *fout, int n)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= n)
        return;
    unsigned u = in[g], v = in[(g + 1) % n];
    unsigned *o = out + 8 * g;
    o[0] = (unsigned)cuda::std::popcount(u);
    o[1] = (unsigned)cuda::std::countl_zero(u);
    o[2] = (unsigned)cuda::std::countr_zero(u);
    o[3] = (unsigned)cuda::std::bit_width(u);
    o[4] = cuda::std::bit_ceil(u & 0xffffu);
    o[5] = cuda::std::rotl(u, (int)(v % 32));
    o[6] = cuda::std::bit_cast<unsigned>((float)(u & 0xffffffu));
    cuda::std::array<unsigned, 3> m = {u % 7, u % 11, u % 13};
    unsigned best = 0;
    for (unsigned e : m)
        best = cuda::std::max(best, e);
    auto t = cuda::std::make_tuple(cuda::std::clamp(u, 1000u, 100000u), best);
    o[7] = cuda::std::get<0>(t) + cuda::std::get<1>(t);
    cuda::std::complex<float> z((float)(u & 255) / 16.0f, (float)(v & 255) / 16.0f);
    cuda::std::complex<float> w = z * z + cuda::std::conj(z);
    fout[2 * g] = w.real();
    fout[2 * g + 1] = w.imag();
}

// int128_ops(const unsigned long long *a, const unsigned long long *b, unsigned long long *out, int n)
//   For g < n: A = (unsigned __int128)a[2g+1] << 64 | a[2g], B likewise from b,
//   S = (__int128)A (signed view). out[16g + 2j], out[16g + 2j + 1] = low, high 64 bits of:
//   j=0: A * B   j=1: A / B (B != 0 guaranteed)  j=2: A % B   j=3: S / (signed)B
//   j=4: S % (signed)B   j=5: A >> (a[2g] % 128)   j=6: S >> (b[2g] % 128) (arithmetic)
//   j=7: A << (b[2g] % 128)
extern "C" __global__ void int128_ops(const unsigned long long *a, const unsigned long long *b,
                                      unsigned long long *out, int n)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= n)
        return;
    unsigned __int128 A = ((unsigned __int128)a[2 * g + 1] << 64) | a[2 * g];
    unsigned __int128 B = ((unsigned __int128)b[2 * g + 1] << 64) | b[2 * g];
    __int128 S = (__int128)A, T = (__int128)B;
    unsigned __int128 r[8];
    r[0] = A * B;
    r[1] = A / B;
    r[2] = A % B;
    r[3] = (unsigned __int128)(S / T);
    r[4] = (unsigned __int128)(S % T);
    r[5] = A >> (a[2 * g] % 128);
    r[6] = (unsigned __int128)(S >> (b[2 * g] % 128));
    r[7] = A << (b[2 * g] % 128);
    for (int j = 0; j < 8; j++) {
        out[16 * g + 2 * j] = (unsigned long long)r[j];
        out[16 * g + 2 * j + 1] = (unsigned long long)(r[j] >> 64);
    }
}

struct Node {
    int value;
    Node *next;
};

// heap_list_printf(const int *in, int n, long long *sums)
//   Thread g < n builds a linked list of in[g] % 8 + 1 heap nodes (malloc), node j holding
//   in[g] * (j + 1), sums it into sums[g], prints "t<g>: <count> nodes sum <sum>\n"
//   with printf, and frees the list. Threads with g >= n do nothing.
extern "C" __global__ void heap_list_printf(const int *in, int n, long long *sums)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= n)
        return;
    int count = in[g] % 8 + 1;
    Node *head = nullptr;
    for (int j = 0; j < count; j++) {
        Node *nd = (Node *)malloc(sizeof(Node));
        if (!nd) {
            sums[g] = -1;
            return;
        }
        nd->value = in[g] * (j + 1);
        nd->next = head;
        head = nd;
    }
    long long s = 0;
    for (Node *p = head; p; p = p->next)
        s += p->value;
    sums[g] = s;
    printf("t%d: %d nodes sum %lld\n", g, count, s);
    while (head) {
        Node *nx = head->next;
        free(head);
        head = nx;
    }
}
