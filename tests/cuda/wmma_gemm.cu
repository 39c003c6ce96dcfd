// wmma_gemm.cu -- WMMA GEMMs over several tiles: bf16 inputs with f32
// accumulators in the m32n8k16 shape from global memory, and f16 inputs
// staged through shared memory by a block of four warps.
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

using namespace nvcuda;

// wmma_bf16_gemm(const __nv_bfloat16 *A, const __nv_bfloat16 *B, float *D, int M, int N, int K)
//   D = A * B with A (M x K, row-major), B (K x N, row-major), D (M x N, column-major), f32
//   accumulation; M a multiple of 32, N of 8, K of 16. One warp per 32x8 tile of D:
//   grid (N/8, M/32), blockDim.x 32. sm_80+ (an empty body below).
extern "C" __global__ void wmma_bf16_gemm(const __nv_bfloat16 *A, const __nv_bfloat16 *B, float *D, int M, int N,
                                          int K)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    int tile_m = blockIdx.y * 32, tile_n = blockIdx.x * 8;
    wmma::fragment<wmma::matrix_a, 32, 8, 16, __nv_bfloat16, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 32, 8, 16, __nv_bfloat16, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 32, 8, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k = 0; k < K; k += 16) {
        wmma::load_matrix_sync(a, A + tile_m * K + k, K);
        wmma::load_matrix_sync(b, B + k * N + tile_n, N);
        wmma::mma_sync(acc, a, b, acc);
    }
    wmma::store_matrix_sync(D + tile_n * M + tile_m, acc, M, wmma::mem_col_major);
#endif
}

// wmma_f16_gemm_shared(const __half *A, const __half *B, float *D, int M, int N, int K)
//   D = A * B with A (M x K, column-major: element (m, k) at A[k * M + m]), B (K x N, row-major),
//   D (M x N, row-major), f32 accumulation; M, N multiples of 32, K of 16. A block of four
//   warps (blockDim.x 128) computes a 32x32 tile of D, grid (N/32, M/32): for each step of 16
//   along K it copies A's 32x16 and B's 16x32 slices to shared memory (columns and rows
//   padded by 8 halves), and each warp multiplies its 16x16 quarter from there.
extern "C" __global__ void wmma_f16_gemm_shared(const __half *A, const __half *B, float *D, int M, int N, int K)
{
    __shared__ __align__(32) __half as[16][32 + 8]; // as[k][m]: A's slice, column-major
    __shared__ __align__(32) __half bs[16][32 + 8]; // bs[k][n]: B's slice, row-major
    int tile_m = blockIdx.y * 32, tile_n = blockIdx.x * 32, warp = threadIdx.x / 32;
    int wm = (warp / 2) * 16, wn = (warp % 2) * 16;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::col_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k = 0; k < K; k += 16) {
        for (int i = threadIdx.x; i < 16 * 32; i += blockDim.x) {
            int r = i / 32, c = i % 32;
            as[r][c] = A[(k + r) * M + tile_m + c];
            bs[r][c] = B[(k + r) * N + tile_n + c];
        }
        __syncthreads();
        wmma::load_matrix_sync(a, &as[0][wm], 32 + 8);
        wmma::load_matrix_sync(b, &bs[0][wn], 32 + 8);
        wmma::mma_sync(acc, a, b, acc);
        __syncthreads();
    }
    wmma::store_matrix_sync(D + (tile_m + wm) * N + tile_n + wn, acc, N, wmma::mem_row_major);
}
