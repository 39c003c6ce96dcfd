// int_intrinsics.cu -- integer intrinsics from the CUDA math API: high
// multiplies, bit counting/reversal, byte permute, funnel shifts, find-first-set,
// SAD, averaging, 24-bit multiplies, dp4a/dp2a dot products and the SIMD-in-word
// __v* family (4x8-bit and 2x16-bit lanes).

// int_intrin32(const unsigned *a, const unsigned *b, const unsigned *c, unsigned *out, int n)
//   For gid < n, x = a[gid], y = b[gid], z = c[gid]; out[16*gid + k]:
//   k=0  __umulhi(x, y)                 k=1  (unsigned)__mulhi((int)x, (int)y)
//   k=2  __popc(x)                      k=3  __clz((int)x)           (32 for x == 0)
//   k=4  __brev(x)                      k=5  __byte_perm(x, y, z & 0xffff)
//   k=6  __funnelshift_l(x, y, z)       (hi:lo = y:x, shift (z & 31), upper 32 bits)
//   k=7  __funnelshift_r(x, y, z)       (lower 32 bits of (y:x) >> (z & 31))
//   k=8  __funnelshift_lc(x, y, z)      (shift clamped to 32)
//   k=9  __funnelshift_rc(x, y, z)      (shift clamped to 32)
//   k=10 __ffs((int)x)                  (1-based index of lowest set bit, 0 for x == 0)
//   k=11 __sad((int)x, (int)y, z)       (|x - y| + z, signed difference)
//   k=12 __usad(x, y, z)                (|x - y| + z, unsigned difference)
//   k=13 (unsigned)__rhadd((int)x, (int)y)   ((x + y + 1) >> 1 without overflow, signed)
//   k=14 __uhadd(x, y)                  ((x + y) >> 1 without overflow, unsigned)
//   k=15 __umul24(x, y) + (unsigned)__mul24((int)x, (int)y)   (low 24 bits of each operand)
extern "C" __global__ void int_intrin32(const unsigned *a, const unsigned *b, const unsigned *c, unsigned *out, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    unsigned x = a[gid], y = b[gid], z = c[gid];
    unsigned *o = out + 16 * gid;
    o[0] = __umulhi(x, y);
    o[1] = (unsigned)__mulhi((int)x, (int)y);
    o[2] = (unsigned)__popc(x);
    o[3] = (unsigned)__clz((int)x);
    o[4] = __brev(x);
    o[5] = __byte_perm(x, y, z & 0xffffu);
    o[6] = __funnelshift_l(x, y, z);
    o[7] = __funnelshift_r(x, y, z);
    o[8] = __funnelshift_lc(x, y, z);
    o[9] = __funnelshift_rc(x, y, z);
    o[10] = (unsigned)__ffs((int)x);
    o[11] = __sad((int)x, (int)y, z);
    o[12] = __usad(x, y, z);
    o[13] = (unsigned)__rhadd((int)x, (int)y);
    o[14] = __uhadd(x, y);
    o[15] = __umul24(x, y) + (unsigned)__mul24((int)x, (int)y);
}

// int_intrin64(const unsigned long long *a, const unsigned long long *b, unsigned long long *out, int n)
//   For gid < n, x = a[gid], y = b[gid]; out[8*gid + k]:
//   k=0 __umul64hi(x, y)          k=1 (u64)__mul64hi((long long)x, (long long)y)
//   k=2 __popcll(x)               k=3 __clzll((long long)x)     k=4 __brevll(x)
//   k=5 __ffsll((long long)x)     k=6 x * y (low 64)            k=7 x / (y | 1) + x % (y | 1)
extern "C" __global__ void int_intrin64(const unsigned long long *a, const unsigned long long *b,
                                        unsigned long long *out, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    unsigned long long x = a[gid], y = b[gid];
    unsigned long long *o = out + 8 * gid;
    o[0] = __umul64hi(x, y);
    o[1] = (unsigned long long)__mul64hi((long long)x, (long long)y);
    o[2] = (unsigned long long)__popcll(x);
    o[3] = (unsigned long long)__clzll((long long)x);
    o[4] = __brevll(x);
    o[5] = (unsigned long long)__ffsll((long long)x);
    o[6] = x * y;
    o[7] = x / (y | 1ull) + x % (y | 1ull);
}

// dot_products(const int *a, const int *b, const unsigned *ua, const unsigned *ub, int *out, int n)
//   For gid < n; out[4*gid + k]:
//   k=0 __dp4a(a, b, 7)       signed 4x8-bit dot product of a[gid], b[gid] plus 7
//   k=1 __dp4a(ua, ub, 7u)    unsigned 4x8-bit dot product of ua[gid], ub[gid] plus 7 (as int)
//   k=2 __dp2a_lo(a, b, -1)   two signed 16-bit halves of a dotted with the low two bytes of b (signed), plus -1
//   k=3 __dp2a_hi(ua, ub, 0u) two unsigned 16-bit halves of ua dotted with the high two bytes of ub
extern "C" __global__ void dot_products(const int *a, const int *b, const unsigned *ua, const unsigned *ub,
                                        int *out, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    int *o = out + 4 * gid;
    o[0] = __dp4a(a[gid], b[gid], 7);
    o[1] = (int)__dp4a(ua[gid], ub[gid], 7u);
    o[2] = __dp2a_lo(a[gid], b[gid], -1);
    o[3] = (int)__dp2a_hi(ua[gid], ub[gid], 0u);
}

// simd_video(const unsigned *a, const unsigned *b, unsigned *out, int n)
//   For gid < n, x = a[gid], y = b[gid]; out[12*gid + k] (4 bytes lanes unless noted):
//   k=0 __vadd4(x,y) (wrap)      k=1 __vsub4(x,y) (wrap)     k=2 __vaddus4(x,y) (unsigned saturate)
//   k=3 __vabsdiffu4(x,y)        k=4 __vmaxu4(x,y)           k=5 __vminu4(x,y)
//   k=6 __vcmpeq4(x,y) (0xff per equal byte)                 k=7 __vcmpgtu4(x,y)
//   k=8 __vavgu4(x,y) (rounded up)                           k=9 __vadd2(x,y) (16-bit lanes, wrap)
//   k=10 __vsub2(x,y) (16-bit)   k=11 __vsads4(x,y) (sum of |signed byte differences|)
extern "C" __global__ void simd_video(const unsigned *a, const unsigned *b, unsigned *out, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    unsigned x = a[gid], y = b[gid];
    unsigned *o = out + 12 * gid;
    o[0] = __vadd4(x, y);
    o[1] = __vsub4(x, y);
    o[2] = __vaddus4(x, y);
    o[3] = __vabsdiffu4(x, y);
    o[4] = __vmaxu4(x, y);
    o[5] = __vminu4(x, y);
    o[6] = __vcmpeq4(x, y);
    o[7] = __vcmpgtu4(x, y);
    o[8] = __vavgu4(x, y);
    o[9] = __vadd2(x, y);
    o[10] = __vsub2(x, y);
    o[11] = __vsads4(x, y);
}

// int_division(const int *a, const int *b, int *out, int n)
//   For gid < n with b[gid] != 0: out[4*gid..] = { a/b, a%b (C truncation), (unsigned)a / (unsigned)b,
//   (unsigned)a % (unsigned)b }; b[gid] == 0 writes { 0, 0, 0, 0 }. Callers avoid
//   a == INT_MIN with b == -1 (undefined in C).
extern "C" __global__ void int_division(const int *a, const int *b, int *out, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    int x = a[gid], y = b[gid];
    int *o = out + 4 * gid;
    if (y == 0) {
        o[0] = o[1] = o[2] = o[3] = 0;
        return;
    }
    o[0] = x / y;
    o[1] = x % y;
    o[2] = (int)((unsigned)x / (unsigned)y);
    o[3] = (int)((unsigned)x % (unsigned)y);
}

// bit_tricks(const unsigned *a, unsigned *out, int n)
//   For gid < n, x = a[gid]; out[6*gid + k]:
//   k=0 x / 7u  k=1 (unsigned)((int)x / -3)  k=2 rotate-left(x, 13) ((x << 13) | (x >> 19))
//   k=3 x & -x (lowest set bit)  k=4 (x >> 5) & 0x3ff (bit-field)  k=5 (x * 0x9e3779b9u) >> 16.
extern "C" __global__ void bit_tricks(const unsigned *a, unsigned *out, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    unsigned x = a[gid];
    unsigned *o = out + 6 * gid;
    o[0] = x / 7u;
    o[1] = (unsigned)((int)x / -3);
    o[2] = (x << 13) | (x >> 19);
    o[3] = x & (0u - x);
    o[4] = (x >> 5) & 0x3ffu;
    o[5] = (x * 0x9e3779b9u) >> 16;
}
