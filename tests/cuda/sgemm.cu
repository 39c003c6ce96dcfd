// sgemm.cu -- dense matrix multiply. All matrices row-major.
//   C[M x N] = alpha * A[M x K] * B[K x N] + beta * C
// Kernels: naive one-thread-per-output, 16x16 shared-memory tiled, and a
// register-blocked 64x64 tile kernel (4x4 outputs per thread, float4 shared
// reads), plus a templated tiled GEMM instantiated for float and double
// (mangled C++ entry names).
//
// Reference: acc = sum over k = 0..K-1 in increasing k of A[r*K+k] * B[k*N+c]
// (fma accumulation), then C[r*N+c] = alpha * acc + beta * C[r*N+c].
// Float results are compared with a tolerance (summation order differs by kernel).

// sgemm_naive(int M, int N, int K, float alpha, const float *A, const float *B, float beta, float *C)
//   2D launch: c = blockIdx.x*blockDim.x + threadIdx.x (column), r = blockIdx.y*blockDim.y + threadIdx.y.
extern "C" __global__ void sgemm_naive(int M, int N, int K, float alpha, const float *A, const float *B,
                                       float beta, float *C)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < M && c < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k)
            acc += A[r * K + k] * B[k * N + c];
        C[r * N + c] = alpha * acc + beta * C[r * N + c];
    }
}

#define TS 16

// sgemm_tiled16(int M, int N, int K, float alpha, const float *A, const float *B, float beta, float *C)
//   blockDim = (16, 16), grid = (ceil(N/16), ceil(M/16)). Shared tiles As[16][16], Bs[16][16];
//   out-of-range tile elements load as 0. Any M, N, K >= 1.
extern "C" __global__ void sgemm_tiled16(int M, int N, int K, float alpha, const float *A, const float *B,
                                         float beta, float *C)
{
    __shared__ float As[TS][TS];
    __shared__ float Bs[TS][TS];
    int tx = threadIdx.x, ty = threadIdx.y;
    int c = blockIdx.x * TS + tx;
    int r = blockIdx.y * TS + ty;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TS) {
        As[ty][tx] = (r < M && k0 + tx < K) ? A[r * K + k0 + tx] : 0.0f;
        Bs[ty][tx] = (k0 + ty < K && c < N) ? B[(k0 + ty) * N + c] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TS; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (r < M && c < N)
        C[r * N + c] = alpha * acc + beta * C[r * N + c];
}

// sgemm_reg64(int M, int N, int K, float alpha, const float *A, const float *B, float beta, float *C)
//   Requires M % 64 == 0, N % 64 == 0, K % 16 == 0. blockDim = (16, 16) (256 threads),
//   grid = (N/64, M/64). Block tile 64x64, K-slab 16; each thread computes a 4x4 register
//   tile (rows ty*4..ty*4+3, columns tx*4..tx*4+3 of the block tile). As is stored
//   transposed (As[k][m]) so both operands are read as float4 from shared memory.
extern "C" __global__ void __launch_bounds__(256) sgemm_reg64(int M, int N, int K, float alpha, const float *A,
                                                              const float *B, float beta, float *C)
{
    __shared__ __align__(16) float As[16][64];
    __shared__ __align__(16) float Bs[16][64];
    int tx = threadIdx.x, ty = threadIdx.y;
    int tid = ty * 16 + tx;
    int row0 = blockIdx.y * 64, col0 = blockIdx.x * 64;
    float acc[4][4] = {};
    for (int k0 = 0; k0 < K; k0 += 16) {
        // 64x16 A slab: 1024 elements, 4 per thread.
        for (int e = tid; e < 64 * 16; e += 256) {
            int m = e / 16, k = e % 16;
            As[k][m] = A[(row0 + m) * K + k0 + k];
        }
        // 16x64 B slab, one float4 per thread.
        {
            int k = tid / 16, n4 = (tid % 16) * 4;
            *(float4 *)&Bs[k][n4] = *(const float4 *)&B[(k0 + k) * N + col0 + n4];
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < 16; ++k) {
            float4 a = *(const float4 *)&As[k][ty * 4];
            float4 b = *(const float4 *)&Bs[k][tx * 4];
            float av[4] = {a.x, a.y, a.z, a.w};
            float bv[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j)
                    acc[i][j] += av[i] * bv[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        int r = row0 + ty * 4 + i;
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            int c = col0 + tx * 4 + j;
            C[r * N + c] = alpha * acc[i][j] + beta * C[r * N + c];
        }
    }
}

// gemm_tiled<T, TILE>(int M, int N, int K, T alpha, const T *A, const T *B, T beta, T *C)
//   Generic version of sgemm_tiled16 with a TILE x TILE block; instantiated as
//   gemm_tiled<float, 8>  -> _Z10gemm_tiledIfLi8EEviiiT_PKS0_S2_S0_PS0_
//   gemm_tiled<double, 16> -> _Z10gemm_tiledIdLi16EEviiiT_PKS0_S2_S0_PS0_
//   (blockDim = (TILE, TILE)).
template <typename T, int TILE>
__global__ void gemm_tiled(int M, int N, int K, T alpha, const T *A, const T *B, T beta, T *C)
{
    __shared__ T As[TILE][TILE];
    __shared__ T Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int c = blockIdx.x * TILE + tx;
    int r = blockIdx.y * TILE + ty;
    T acc = T(0);
    for (int k0 = 0; k0 < K; k0 += TILE) {
        As[ty][tx] = (r < M && k0 + tx < K) ? A[r * K + k0 + tx] : T(0);
        Bs[ty][tx] = (k0 + ty < K && c < N) ? B[(k0 + ty) * N + c] : T(0);
        __syncthreads();
        for (int k = 0; k < TILE; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (r < M && c < N)
        C[r * N + c] = alpha * acc + beta * C[r * N + c];
}

template __global__ void gemm_tiled<float, 8>(int, int, int, float, const float *, const float *, float, float *);
template __global__ void gemm_tiled<double, 16>(int, int, int, double, const double *, const double *, double,
                                                double *);

// sgemv_warp(int M, int K, const float *A, const float *x, float *y)
//   One warp per row (blockDim.x == 128 -> 4 rows per block, row = blockIdx.x*4 + threadIdx.x/32):
//   lanes stride over k, then __shfl_down_sync reduces; lane 0 writes y[row] = sum_k A[row*K+k]*x[k].
extern "C" __global__ void sgemv_warp(int M, int K, const float *A, const float *x, float *y)
{
    int row = blockIdx.x * 4 + threadIdx.x / 32;
    int lane = threadIdx.x & 31;
    if (row >= M)
        return;
    float acc = 0.0f;
    for (int k = lane; k < K; k += 32)
        acc += A[row * K + k] * x[k];
    for (int off = 16; off > 0; off >>= 1)
        acc += __shfl_down_sync(0xffffffffu, acc, off);
    if (lane == 0)
        y[row] = acc;
}
