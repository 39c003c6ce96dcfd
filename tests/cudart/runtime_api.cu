// runtime_api.cu - a CUDA runtime-API program as a user writes it, built by
// plain nvcc (NVIDIA's libcudart, static or shared) and run on ptxjit's
// libcuda.so.1 (tests/cudart/run.sh).  Each check compares the device's
// results with the same computation on the host; the program prints one
// "ok NAME" line per check and exits 1 if any failed.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "cudart_test.h"

// ---- kernels ----------------------------------------------------------------------

__global__ void saxpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

__constant__ float coeffs[4];
__device__ int table[8] = {1, 2, 3, 4, 5, 6, 7, 8};
__managed__ unsigned long long managed_sum;

// table[i] = c0 + c1 t + c2 t^2 + c3 t^3 at t = table[i]
__global__ void polynomial()
{
    int i = threadIdx.x;
    float t = (float)table[i];
    table[i] = (int)(coeffs[0] + t * (coeffs[1] + t * (coeffs[2] + t * coeffs[3])));
}

__global__ void sum_into_managed(const int *v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&managed_sum, (unsigned long long)v[i]);
}

// Reverses each block's 256 elements through shared memory (1 KiB).
__global__ void __launch_bounds__(256) reverse_blocks(int *d)
{
    __shared__ int s[256];
    int base = blockIdx.x * 256;
    s[threadIdx.x] = d[base + threadIdx.x];
    __syncthreads();
    d[base + threadIdx.x] = s[255 - threadIdx.x];
}

// Another kernel of the module with more shared memory (2 KiB): the
// attributes of reverse_blocks are its own.
__global__ void shift_pairs(long long *d)
{
    __shared__ long long s[256];
    s[threadIdx.x] = d[threadIdx.x];
    __syncthreads();
    d[threadIdx.x] = s[(threadIdx.x + 1) % blockDim.x];
}

__global__ void which_arch(int *out)
{
#ifdef __CUDA_ARCH__
    *out = __CUDA_ARCH__;
#endif
}

__global__ void square_managed(int *v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        v[i] = v[i] * v[i];
}

__global__ void say_hello(int tag)
{
    printf("hello from block %d thread %d tag %d\n", blockIdx.x, threadIdx.x, tag);
}

// ---- checks -------------------------------------------------------------------------

static void check_memory()
{
    int before = failures;
    const int n = 1000;
    std::vector<unsigned char> h(n), back(n);
    unsigned char *a, *b;
    CUDA_OK(cudaMalloc(&a, n));
    CUDA_OK(cudaMalloc(&b, n));
    CUDA_OK(cudaMemset(a, 0xab, n));
    CUDA_OK(cudaMemcpy(back.data(), a, n, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        CHECK(back[i] == 0xab, "byte %d is %#x after cudaMemset", i, back[i]);
    for (int i = 0; i < n; i++)
        h[i] = (unsigned char)(i * 7);
    CUDA_OK(cudaMemcpy(a, h.data(), n, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(b, a, n, cudaMemcpyDeviceToDevice));
    CUDA_OK(cudaMemcpy(back.data(), b, n, cudaMemcpyDeviceToHost));
    CHECK(memcmp(back.data(), h.data(), n) == 0, "round trip through two device buffers");
    CUDA_OK(cudaFree(a));
    CUDA_OK(cudaFree(b));
    report("memory", before);
}

static void host_saxpy(int n, float a, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}

static void check_launch()
{
    int before = failures;
    const int n = 10007;
    std::vector<float> x(n), y(n), want(n), got(n);
    for (int i = 0; i < n; i++) {
        x[i] = (float)(i % 97) * 0.5f;
        y[i] = want[i] = (float)(i % 13);
    }
    float *dx, *dy;
    CUDA_OK(cudaMalloc(&dx, n * sizeof(float)));
    CUDA_OK(cudaMalloc(&dy, n * sizeof(float)));
    CUDA_OK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    saxpy<<<(n + 255) / 256, 256>>>(n, 3.0f, dx, dy);
    CUDA_OK(cudaGetLastError());
    host_saxpy(n, 3.0f, x.data(), want.data());
    // the same kernel through cudaLaunchKernel
    float a = -2.0f;
    int nn = n;
    void *args[] = {&nn, &a, &dx, &dy};
    CUDA_OK(cudaLaunchKernel((const void *)saxpy, dim3((n + 127) / 128), dim3(128), args, 0, 0));
    host_saxpy(n, -2.0f, x.data(), want.data());
    CUDA_OK(cudaMemcpy(got.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        CHECK(got[i] == want[i], "y[%d] = %g, host %g", i, got[i], want[i]);
    CUDA_OK(cudaFree(dx));
    CUDA_OK(cudaFree(dy));
    report("launch", before);
}

static void check_streams_events()
{
    int before = failures;
    const int n = 1 << 16;
    float *hx, *hy, *dx, *dy;
    CUDA_OK(cudaMallocHost(&hx, n * sizeof(float)));
    CUDA_OK(cudaMallocHost(&hy, n * sizeof(float)));
    CUDA_OK(cudaMalloc(&dx, n * sizeof(float)));
    CUDA_OK(cudaMalloc(&dy, n * sizeof(float)));
    for (int i = 0; i < n; i++) {
        hx[i] = (float)(i & 255);
        hy[i] = 1.0f;
    }
    cudaStream_t s1, s2;
    cudaEvent_t start, copied, stop;
    CUDA_OK(cudaStreamCreate(&s1));
    CUDA_OK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    CUDA_OK(cudaEventCreate(&start));
    CUDA_OK(cudaEventCreate(&copied));
    CUDA_OK(cudaEventCreate(&stop));
    CUDA_OK(cudaEventRecord(start, s1));
    CUDA_OK(cudaMemcpyAsync(dx, hx, n * sizeof(float), cudaMemcpyHostToDevice, s1));
    CUDA_OK(cudaMemcpyAsync(dy, hy, n * sizeof(float), cudaMemcpyHostToDevice, s1));
    CUDA_OK(cudaEventRecord(copied, s1));
    CUDA_OK(cudaStreamWaitEvent(s2, copied, 0)); // s2's kernel runs after s1's copies
    saxpy<<<n / 256, 256, 0, s2>>>(n, 0.5f, dx, dy);
    CUDA_OK(cudaMemcpyAsync(hy, dy, n * sizeof(float), cudaMemcpyDeviceToHost, s2));
    CUDA_OK(cudaEventRecord(stop, s2));
    CUDA_OK(cudaEventSynchronize(stop));
    CUDA_OK(cudaStreamSynchronize(s2));
    CUDA_OK(cudaStreamQuery(s1));
    float ms = -1;
    CUDA_OK(cudaEventElapsedTime(&ms, start, stop));
    CHECK(ms >= 0 && ms < 60000, "elapsed %g ms", ms);
    for (int i = 0; i < n; i++)
        CHECK(hy[i] == 0.5f * (float)(i & 255) + 1.0f, "hy[%d] = %g", i, hy[i]);
    CUDA_OK(cudaEventDestroy(start));
    CUDA_OK(cudaEventDestroy(copied));
    CUDA_OK(cudaEventDestroy(stop));
    CUDA_OK(cudaStreamDestroy(s1));
    CUDA_OK(cudaStreamDestroy(s2));
    CUDA_OK(cudaFreeHost(hx));
    CUDA_OK(cudaFreeHost(hy));
    CUDA_OK(cudaFree(dx));
    CUDA_OK(cudaFree(dy));
    report("streams_events", before);
}

static void check_managed()
{
    int before = failures;
    const int n = 3000;
    int *v;
    CUDA_OK(cudaMallocManaged(&v, n * sizeof(int)));
    for (int i = 0; i < n; i++)
        v[i] = i - 1500;
    square_managed<<<(n + 255) / 256, 256>>>(v, n);
    CUDA_OK(cudaDeviceSynchronize());
    for (int i = 0; i < n; i++)
        CHECK(v[i] == (i - 1500) * (i - 1500), "v[%d] = %d", i, v[i]);
    // __managed__: the host writes it, the kernel adds to it, the host reads it
    managed_sum = 1000;
    for (int i = 0; i < n; i++)
        v[i] = i;
    sum_into_managed<<<(n + 127) / 128, 128>>>(v, n);
    CUDA_OK(cudaDeviceSynchronize());
    unsigned long long want = 1000 + (unsigned long long)n * (n - 1) / 2;
    CHECK(managed_sum == want, "managed_sum = %llu, host %llu", managed_sum, want);
    CUDA_OK(cudaFree(v));
    report("managed", before);
}

static void check_symbols(const char *name, bool fresh)
{
    int before = failures;
    const float c[4] = {1.0f, -2.0f, 0.5f, 0.25f};
    CUDA_OK(cudaMemcpyToSymbol(coeffs, c, sizeof c));
    int t[8];
    if (!fresh) { // start from values of our own
        for (int i = 0; i < 8; i++)
            t[i] = 10 - i;
        CUDA_OK(cudaMemcpyToSymbol(table, t, sizeof t));
    } else {      // a fresh context starts from the initializer
        CUDA_OK(cudaMemcpyFromSymbol(t, table, sizeof t));
        for (int i = 0; i < 8; i++)
            CHECK(t[i] == i + 1, "table[%d] = %d in a fresh context", i, t[i]);
    }
    polynomial<<<1, 8>>>();
    int got[8];
    CUDA_OK(cudaMemcpyFromSymbol(got, table, sizeof got));
    for (int i = 0; i < 8; i++) {
        float x = (float)t[i];
        int want = (int)(c[0] + x * (c[1] + x * (c[2] + x * c[3])));
        CHECK(got[i] == want, "table[%d] = %d, host %d", i, got[i], want);
    }
    void *addr = nullptr;
    size_t size = 0;
    CUDA_OK(cudaGetSymbolAddress(&addr, table));
    CUDA_OK(cudaGetSymbolSize(&size, table));
    CHECK(addr != nullptr && size == sizeof got, "table at %p, %zu bytes", addr, size);
    report(name, before);
}

static void check_attributes()
{
    int before = failures;
    cudaFuncAttributes fa;
    CUDA_OK(cudaFuncGetAttributes(&fa, reverse_blocks));
    CHECK(fa.sharedSizeBytes == 256 * sizeof(int), "reverse_blocks: %zu bytes of shared memory",
          fa.sharedSizeBytes);
    CHECK(fa.maxThreadsPerBlock == 256, "reverse_blocks: maxThreadsPerBlock %d (launch bounds 256)",
          fa.maxThreadsPerBlock);
    CUDA_OK(cudaFuncGetAttributes(&fa, shift_pairs));
    CHECK(fa.sharedSizeBytes == 256 * sizeof(long long), "shift_pairs: %zu bytes",
          fa.sharedSizeBytes);
    // ptxVersion is the virtual architecture the kernel was compiled for
    int *arch;
    CUDA_OK(cudaMallocManaged(&arch, sizeof(int)));
    which_arch<<<1, 1>>>(arch);
    CUDA_OK(cudaDeviceSynchronize());
    CUDA_OK(cudaFuncGetAttributes(&fa, which_arch));
    CHECK(fa.ptxVersion * 10 == *arch, "ptxVersion %d, __CUDA_ARCH__ %d", fa.ptxVersion, *arch);
    CUDA_OK(cudaFree(arch));

    cudaDeviceProp prop;
    CUDA_OK(cudaGetDeviceProperties(&prop, 0));
    int blocks = 0;
    CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, reverse_blocks, 256, 0));
    CHECK(blocks >= 1 && blocks * 256 <= prop.maxThreadsPerMultiProcessor &&
              blocks * 1024 <= (int)prop.sharedMemPerMultiprocessor,
          "%d blocks of 256 threads per SM", blocks);
    int min_grid = 0, block = 0;
    CUDA_OK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, saxpy, 0, 0));
    CHECK(block > 0 && block <= prop.maxThreadsPerBlock && block % 32 == 0, "block size %d", block);
    CHECK(min_grid >= prop.multiProcessorCount, "min grid %d", min_grid);

    // both kernels still compute what the host does
    const int n = 1024;
    std::vector<int> h(n), got(n);
    for (int i = 0; i < n; i++)
        h[i] = i * 3 + 1;
    int *d;
    CUDA_OK(cudaMalloc(&d, n * sizeof(int)));
    CUDA_OK(cudaMemcpy(d, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    reverse_blocks<<<n / 256, 256>>>(d);
    CUDA_OK(cudaMemcpy(got.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        CHECK(got[i] == h[(i / 256) * 256 + 255 - i % 256], "reversed[%d] = %d", i, got[i]);
    CUDA_OK(cudaFree(d));
    report("attributes_occupancy", before);
}

static void check_printf()
{
    int before = failures;
    fflush(stdout);
    say_hello<<<2, 3>>>(42);
    CUDA_OK(cudaDeviceSynchronize());
    fflush(stdout);
    report("printf", before); // run.sh checks the six lines
}

// Four host threads share the device, each with a stream and data of its own.
static void check_threads()
{
    int before = failures;
    const int nthreads = 4, n = 5000;
    int bad[nthreads] = {0};
    std::vector<std::thread> workers;
    for (int t = 0; t < nthreads; t++)
        workers.emplace_back([t, &bad] {
            std::vector<float> x(n), y(n, 1.0f), got(n);
            for (int i = 0; i < n; i++)
                x[i] = (float)(i + t);
            float *dx, *dy;
            cudaStream_t s;
            bool ok = cudaStreamCreate(&s) == cudaSuccess &&
                      cudaMalloc(&dx, n * sizeof(float)) == cudaSuccess &&
                      cudaMalloc(&dy, n * sizeof(float)) == cudaSuccess;
            for (int round = 0; ok && round < 20; round++) {
                ok = cudaMemcpyAsync(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice,
                                     s) == cudaSuccess &&
                     cudaMemcpyAsync(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice,
                                     s) == cudaSuccess;
                saxpy<<<(n + 255) / 256, 256, 0, s>>>(n, (float)(t + 1), dx, dy);
                ok = ok && cudaMemcpyAsync(got.data(), dy, n * sizeof(float),
                                           cudaMemcpyDeviceToHost, s) == cudaSuccess &&
                     cudaStreamSynchronize(s) == cudaSuccess;
                for (int i = 0; ok && i < n; i++)
                    ok = got[i] == (float)(t + 1) * x[i] + 1.0f;
            }
            bad[t] = !ok;
            cudaFree(dx);
            cudaFree(dy);
            cudaStreamDestroy(s);
        });
    for (auto &w : workers)
        w.join();
    for (int t = 0; t < nthreads; t++)
        CHECK(!bad[t], "host thread %d got wrong results or an error", t);
    report("host_threads", before);
}

int main()
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count < 1) {
        printf("FAIL cudaGetDeviceCount: %s, %d devices\n", cudaGetErrorName(e), count);
        return 1;
    }
    check_memory();
    check_launch();
    check_streams_events();
    check_managed();
    check_symbols("symbols", false);
    check_attributes();
    check_printf();
    check_threads();
    // after a reset the runtime sets the device up again
    int before = failures;
    CUDA_OK(cudaDeviceReset());
    report("device_reset", before);
    check_symbols("symbols_after_reset", true);
    check_memory();
    check_launch();
    check_managed();
    return finish();
}
