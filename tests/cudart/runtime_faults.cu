// runtime_faults.cu - kernel faults seen through NVIDIA's runtime on ptxjit
// (tests/cudart/run.sh): a failing device assert is cudaErrorAssert and
// prints the assertion as a GPU does; an illegal address is
// cudaErrorIllegalAddress and sticks to the context until cudaDeviceReset,
// after which the device works again.  Prints "ok NAME" per check and
// exits 1 if any failed.
#include <cassert>
#include <cstdio>

#include "cudart_test.h"

__global__ void check_below(const int *v, int limit)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    assert(v[i] < limit);
}

__global__ void store_through(int *p, int value)
{
    if (threadIdx.x == 5)
        p[threadIdx.x] = value;
}

__global__ void fill(int *p, int value)
{
    p[blockIdx.x * blockDim.x + threadIdx.x] = value;
}

// A kernel that works: the device is usable.
static bool device_works(int value)
{
    int *d = nullptr, h[64] = {0};
    bool ok = cudaMalloc(&d, sizeof h) == cudaSuccess;
    if (ok) {
        fill<<<2, 32>>>(d, value);
        ok = cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost) == cudaSuccess &&
             cudaFree(d) == cudaSuccess;
    }
    for (int i = 0; ok && i < 64; i++)
        ok = h[i] == value;
    return ok;
}

int main()
{
    int before = failures;
    CHECK(device_works(1), "a plain kernel before any fault");
    report("device_works", before);

    // Element 37 (block 1, thread 5 of blocks of 32) is 1000: its assert fails.
    before = failures;
    int *v;
    cudaMallocManaged(&v, 64 * sizeof(int));
    for (int i = 0; i < 64; i++)
        v[i] = i == 37 ? 1000 : i;
    check_below<<<2, 32>>>(v, 100);
    EXPECT(cudaErrorAssert, cudaDeviceSynchronize());
    EXPECT(cudaErrorAssert, cudaMalloc(&v, 16)); // sticky
    EXPECT(cudaSuccess, cudaDeviceReset());
    CHECK(device_works(2), "a plain kernel after the reset");
    report("assert", before);

    before = failures;
    store_through<<<1, 32>>>((int *)0x100, 7); // nothing is mapped there
    EXPECT(cudaErrorIllegalAddress, cudaDeviceSynchronize());
    int *d;
    EXPECT(cudaErrorIllegalAddress, cudaMalloc(&d, 16));
    EXPECT(cudaErrorIllegalAddress, cudaGetLastError());
    EXPECT(cudaErrorIllegalAddress, cudaDeviceSynchronize());
    fill<<<1, 32>>>(nullptr, 0);
    EXPECT(cudaErrorIllegalAddress, cudaDeviceSynchronize());
    EXPECT(cudaSuccess, cudaDeviceReset());
    CHECK(device_works(3), "a plain kernel after the reset");
    report("illegal_address", before);

    return finish();
}
