// malloc_assert.cu -- device-side heap and failure paths: malloc/free,
// operator new[]/delete[], assert (__assertfail), __trap (trap), __brkpt,
// plus a kernel that frees memory allocated by another launch.
#include <cassert>
#include <cstdlib>

// heap_sum(const int *in, int per_thread, long long *out, int n)
//   For gid < n: buf = (int*)malloc(per_thread * sizeof(int)); if buf == NULL: out[gid] = -1;
//   else buf[k] = in[gid*per_thread + k] * (k + 1) for k < per_thread, out[gid] = sum of buf (64-bit),
//   free(buf).
extern "C" __global__ void heap_sum(const int *in, int per_thread, long long *out, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    int *buf = (int *)malloc((size_t)per_thread * sizeof(int));
    if (buf == NULL) {
        out[gid] = -1;
        return;
    }
    for (int k = 0; k < per_thread; ++k)
        buf[k] = in[gid * per_thread + k] * (k + 1);
    long long s = 0;
    for (int k = 0; k < per_thread; ++k)
        s += buf[k];
    out[gid] = s;
    free(buf);
}

// heap_new_delete(float *out, int len, int n)
//   For gid < n: p = new float[len]; p[k] = gid + 0.5f * k; out[gid] = p[len - 1] (len >= 1);
//   delete[] p. (nvcc: operator new[] / delete[], lowered to malloc/free calls;
//   clang build: malloc/free directly.)
extern "C" __global__ void heap_new_delete(float *out, int len, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
#if defined(__clang__)
    // clang leaves operator new[]/delete[] (_Znam/_ZdaPv) as unresolved externs;
    // use the equivalent malloc/free there.
    float *p = (float *)malloc((size_t)len * sizeof(float));
#else
    float *p = new float[len];
#endif
    for (int k = 0; k < len; ++k)
        p[k] = (float)gid + 0.5f * (float)k;
    out[gid] = p[len - 1];
#if defined(__clang__)
    free(p);
#else
    delete[] p;
#endif
}

// heap_keep(void **slots, unsigned bytes)
//   Thread 0 of each block: slots[blockIdx.x] = malloc(bytes), and writes the byte value
//   (blockIdx.x & 0xff) into each of the first min(bytes, 16) bytes. Pair with heap_release.
extern "C" __global__ void heap_keep(void **slots, unsigned bytes)
{
    if (threadIdx.x != 0)
        return;
    unsigned char *p = (unsigned char *)malloc(bytes);
    slots[blockIdx.x] = p;
    if (p)
        for (unsigned k = 0; k < bytes && k < 16u; ++k)
            p[k] = (unsigned char)(blockIdx.x & 0xffu);
}

// heap_release(void **slots, unsigned *first_bytes)
//   Thread 0 of each block: first_bytes[blockIdx.x] = first byte of slots[blockIdx.x] (or
//   0xffffffff if the slot is NULL), then free(slots[blockIdx.x]) and slots[blockIdx.x] = NULL.
extern "C" __global__ void heap_release(void **slots, unsigned *first_bytes)
{
    if (threadIdx.x != 0)
        return;
    unsigned char *p = (unsigned char *)slots[blockIdx.x];
    first_bytes[blockIdx.x] = p ? (unsigned)p[0] : 0xffffffffu;
    free(p);
    slots[blockIdx.x] = NULL;
}

// check_nonneg(const int *in, int *out, int n)
//   For gid < n: assert(in[gid] >= 0) (fails -> __assertfail with message "in[gid] >= 0",
//   this file name, line and function name; the launch then reports an error);
//   otherwise out[gid] = in[gid] * 2.
extern "C" __global__ void check_nonneg(const int *in, int *out, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    assert(in[gid] >= 0);
    out[gid] = in[gid] * 2;
}

// trap_if_negative(const int *in, int *out, int n)
//   For gid < n: if in[gid] < 0 execute __trap() (the whole launch fails); else out[gid] = in[gid] + 1.
extern "C" __global__ void trap_if_negative(const int *in, int *out, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    if (in[gid] < 0)
        __trap();
    out[gid] = in[gid] + 1;
}

// breakpoint_when(int *out, int magic)
//   Thread 0 of block 0: if magic == 0x0b0b, executes __brkpt() (brkpt; a debugger stop,
//   undefined without one); then out[0] = magic.
extern "C" __global__ void breakpoint_when(int *out, int magic)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        if (magic == 0x0b0b)
            __brkpt();
        out[0] = magic;
    }
}
