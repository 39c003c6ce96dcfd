// printf_kernel.cu -- device printf (vprintf with a packed .local argument
// buffer and format strings in .global .b8 arrays): every common conversion,
// width/precision/flags, 64-bit integers, strings and chars, pointers.
#include <cstdio>

// print_conversions(int i, unsigned u, float f, double d, long long ll, const void *p, int nthreads)
//   Each thread with threadIdx.x < nthreads in block 0 prints exactly one line:
//   "t=%d i=%d u=%u x=%x X=%X o=%o f=%f e=%e g=%g s=%s c=%c ld=%ld lld=%lld llu=%llu p=%p\n"
//   with values: threadIdx.x, i + t, u * t, u, u, (u & 0777), f * t (float promoted to double),
//   d, d / 3.0, the string "ptxjit" when t is even else "cpu", the char 'A' + t % 26,
//   (long)(ll + t), ll, (unsigned long long)ll, p.
//   Line order across threads is unspecified; %p formatting is implementation-defined.
extern "C" __global__ void print_conversions(int i, unsigned u, float f, double d, long long ll,
                                             const void *p, int nthreads)
{
    int t = threadIdx.x;
    if (blockIdx.x != 0 || t >= nthreads)
        return;
    printf("t=%d i=%d u=%u x=%x X=%X o=%o f=%f e=%e g=%g s=%s c=%c ld=%ld lld=%lld llu=%llu p=%p\n",
           t, i + t, u * (unsigned)t, u, u, u & 0777u, f * t, d, d / 3.0,
           (t % 2 == 0) ? "ptxjit" : "cpu", 'A' + t % 26, (long)(ll + t), ll,
           (unsigned long long)ll, p);
}

// print_formatting(float f, int w)
//   Thread 0 of block 0 prints three lines:
//   "[%5d] [%-5d] [%05d] [%+d] [% d]\n"   with w, w, w, w, w
//   "[%8.3f] [%-10.2e] [%.0f] [%#x] [%%]\n" with f, f, f, (unsigned)w
//   "[%10s] [%-6s] [%.2s] [%hhd] [%hd] [%c%c]\n" with "right", "left", "truncate",
//        (signed char)w, (short)w, 'o', 'k'
extern "C" __global__ void print_formatting(float f, int w)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        printf("[%5d] [%-5d] [%05d] [%+d] [% d]\n", w, w, w, w, w);
        printf("[%8.3f] [%-10.2e] [%.0f] [%#x] [%%]\n", f, f, f, (unsigned)w);
        printf("[%10s] [%-6s] [%.2s] [%hhd] [%hd] [%c%c]\n", "right", "left", "truncate",
               (signed char)w, (short)w, 'o', 'k');
    }
}

// print_grid_info()
//   Every thread whose global id is a multiple of 64 prints
//   "block (%d,%d,%d) thread (%d,%d,%d) of grid (%d,%d,%d) x block (%d,%d,%d)\n"
//   with blockIdx, threadIdx, gridDim, blockDim components; thread (0,0,0) of block
//   (0,0,0) additionally prints "no-args line\n" (printf without arguments).
extern "C" __global__ void print_grid_info()
{
    unsigned bid = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    unsigned gid = bid * blockDim.x * blockDim.y * blockDim.z + tid;
    if (gid % 64 == 0)
        printf("block (%d,%d,%d) thread (%d,%d,%d) of grid (%d,%d,%d) x block (%d,%d,%d)\n",
               blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z,
               gridDim.x, gridDim.y, gridDim.z, blockDim.x, blockDim.y, blockDim.z);
    if (gid == 0)
        printf("no-args line\n");
}

// print_values_array(const double *vals, int n)
//   Thread 0 of block 0 prints "vals[%d] = %.6g (%a)\n" for each k in [0, n) -- a loop
//   of printf calls with a double and its hex-float form -- then the return value of
//   the last printf as "last printf returned %d\n".
extern "C" __global__ void print_values_array(const double *vals, int n)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        int r = 0;
        for (int k = 0; k < n; ++k)
            r = printf("vals[%d] = %.6g (%a)\n", k, vals[k], vals[k]);
        printf("last printf returned %d\n", r);
    }
}
