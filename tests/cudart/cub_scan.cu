// cub_scan.cu - CUB's device-wide algorithms through NVIDIA's runtime on
// ptxjit (tests/cudart/run.sh): DeviceReduce::Sum and
// DeviceScan::ExclusiveSum, checked against host loops (sizes kept small:
// each CUB kernel takes seconds to compile on a CPU).
// Prints "ok NAME" per check, exits 1 on failure.
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include <cstdio>
#include <vector>

#include "cudart_test.h"


int main()
{
    const int n = 3001;
    std::vector<int> h(n);
    for (int i = 0; i < n; i++)
        h[i] = (i * 37) % 101 - 50;
    int *in, *out, *sum;
    CUDA_OK(cudaMalloc(&in, n * sizeof(int)));
    CUDA_OK(cudaMalloc(&out, n * sizeof(int)));
    CUDA_OK(cudaMalloc(&sum, sizeof(int)));
    CUDA_OK(cudaMemcpy(in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));

    // DeviceReduce::Sum: ask for the temporary storage, then run
    int before = failures;
    void *temp = nullptr;
    size_t temp_bytes = 0;
    CUDA_OK(cub::DeviceReduce::Sum(temp, temp_bytes, in, sum, n));
    CUDA_OK(cudaMalloc(&temp, temp_bytes));
    CUDA_OK(cub::DeviceReduce::Sum(temp, temp_bytes, in, sum, n));
    int got_sum = 0, want_sum = 0;
    CUDA_OK(cudaMemcpy(&got_sum, sum, sizeof got_sum, cudaMemcpyDeviceToHost));
    for (int v : h)
        want_sum += v;
    CHECK(got_sum == want_sum, "DeviceReduce::Sum: %d, host %d", got_sum, want_sum);
    CUDA_OK(cudaFree(temp));
    report("device_reduce", before);

    before = failures;
    temp = nullptr;
    temp_bytes = 0;
    CUDA_OK(cub::DeviceScan::ExclusiveSum(temp, temp_bytes, in, out, n));
    CUDA_OK(cudaMalloc(&temp, temp_bytes));
    CUDA_OK(cub::DeviceScan::ExclusiveSum(temp, temp_bytes, in, out, n));
    std::vector<int> got(n);
    CUDA_OK(cudaMemcpy(got.data(), out, n * sizeof(int), cudaMemcpyDeviceToHost));
    int run = 0, bad = 0;
    for (int i = 0; i < n; i++) {
        if (got[i] != run && bad++ < 5)
            printf("FAIL scan[%d] = %d, host %d\n", i, got[i], run);
        run += h[i];
    }
    failures += bad != 0;
    CUDA_OK(cudaFree(temp));
    report("device_exclusive_scan", before);
    return finish();
}
