// tensor_core.cu -- warp matrix multiply-accumulate through the WMMA API
// (mma.h): wmma.load / wmma.mma / wmma.store on f16 inputs with f32 and f16
// accumulators, u8/s8 integer MMA, and (sm_80+) bf16 and tf32 variants.
// One warp computes one 16x16 output tile. All matrices row-major unless noted.
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

using namespace nvcuda;

// wmma_f16_f32(const __half *A, const __half *B, const float *C, float *D, int M, int N, int K)
//   D = A * B + C with A (M x K, row-major), B (K x N, col-major: element (k, n) at B[n*K + k]),
//   C and D (M x N, row-major); M, N, K multiples of 16. blockDim.x == 32 (one warp per block),
//   grid = (N/16, M/16). Products accumulate in f32 (order unspecified; use a tolerance).
extern "C" __global__ void wmma_f16_f32(const __half *A, const __half *B, const float *C, float *D, int M, int N,
                                        int K)
{
    int tile_m = blockIdx.y * 16, tile_n = blockIdx.x * 16;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::load_matrix_sync(acc, C + tile_m * N + tile_n, N, wmma::mem_row_major);
    for (int k = 0; k < K; k += 16) {
        wmma::load_matrix_sync(a, A + tile_m * K + k, K);
        wmma::load_matrix_sync(b, B + tile_n * K + k, K);
        wmma::mma_sync(acc, a, b, acc);
    }
    wmma::store_matrix_sync(D + tile_m * N + tile_n, acc, N, wmma::mem_row_major);
}

// wmma_f16_f16_scaled(const __half *A, const __half *B, __half *D, int K, float alpha)
//   Single 16x16 output tile (grid 1, blockDim.x 32): A is 16 x K row-major, B is K x 16
//   row-major; D = alpha * (A * B) in f16, accumulated in an f16 fragment (m16n16k16 f16.f16),
//   scaled element-wise through the fragment's x[] array. K multiple of 16.
extern "C" __global__ void wmma_f16_f16_scaled(const __half *A, const __half *B, __half *D, int K, float alpha)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, __half> acc;
    wmma::fill_fragment(acc, __float2half(0.0f));
    for (int k = 0; k < K; k += 16) {
        wmma::load_matrix_sync(a, A + k, K);
        wmma::load_matrix_sync(b, B + k * 16, 16);
        wmma::mma_sync(acc, a, b, acc);
    }
    for (int e = 0; e < acc.num_elements; ++e)
        acc.x[e] = __hmul(acc.x[e], __float2half(alpha));
    wmma::store_matrix_sync(D, acc, 16, wmma::mem_row_major);
}

// wmma_s8_s32(const signed char *A, const signed char *B, int *D)
//   Single tile: A 16x16 row-major s8, B 16x16 col-major s8, D = A*B as s32 16x16 row-major
//   (exact integer arithmetic). grid 1, blockDim.x 32.
extern "C" __global__ void wmma_s8_s32(const signed char *A, const signed char *B, int *D)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, int> acc;
    wmma::fill_fragment(acc, 0);
    wmma::load_matrix_sync(a, A, 16);
    wmma::load_matrix_sync(b, B, 16);
    wmma::mma_sync(acc, a, b, acc);
    wmma::store_matrix_sync(D, acc, 16, wmma::mem_row_major);
}

// wmma_bf16_tf32(const __nv_bfloat16 *A, const __nv_bfloat16 *B, const float *At, const float *Bt,
//                float *D1, float *D2)
//   sm_80+ only (empty body below sm_80). Single tile each, grid 1, blockDim.x 32:
//   D1 (16x16 row-major) = A (16x16 bf16 row-major) * B (16x16 bf16 row-major), f32 accumulate;
//   D2 (16x16 row-major) = At (16x8 row-major, converted to tf32) * Bt (8x16 row-major, tf32),
//   m16n16k8 tf32 MMA with f32 accumulate (inputs rounded to tf32 by __float_to_tf32).
extern "C" __global__ void wmma_bf16_tf32(const __nv_bfloat16 *A, const __nv_bfloat16 *B, const float *At,
                                          const float *Bt, float *D1, float *D2)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    wmma::load_matrix_sync(a, A, 16);
    wmma::load_matrix_sync(b, B, 16);
    wmma::mma_sync(acc, a, b, acc);
    wmma::store_matrix_sync(D1, acc, 16, wmma::mem_row_major);

    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> ta;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> tb;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> tacc;
    wmma::fill_fragment(tacc, 0.0f);
    wmma::load_matrix_sync(ta, At, 8);
    wmma::load_matrix_sync(tb, Bt, 16);
    for (int e = 0; e < ta.num_elements; ++e)
        ta.x[e] = wmma::__float_to_tf32(ta.x[e]);
    for (int e = 0; e < tb.num_elements; ++e)
        tb.x[e] = wmma::__float_to_tf32(tb.x[e]);
    wmma::mma_sync(tacc, ta, tb, tacc);
    wmma::store_matrix_sync(D2, tacc, 16, wmma::mem_row_major);
#endif
}

// mma_sync_m16n8k16(const unsigned *Afrag, const unsigned *Bfrag, const float *Cfrag, float *Dfrag)
//   sm_80+ only (raw PTX mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 via inline asm;
//   below sm_80 the body copies Cfrag to Dfrag). One warp; lane l supplies A registers
//   Afrag[4l..4l+3], B registers Bfrag[2l..2l+1], C Cfrag[4l..4l+3] and writes Dfrag[4l..4l+3],
//   in the PTX ISA fragment layout for m16n8k16 (f16x2 packed in each 32-bit word).
extern "C" __global__ void mma_sync_m16n8k16(const unsigned *Afrag, const unsigned *Bfrag, const float *Cfrag,
                                             float *Dfrag)
{
    int l = threadIdx.x & 31;
    float d0 = Cfrag[4 * l], d1 = Cfrag[4 * l + 1], d2 = Cfrag[4 * l + 2], d3 = Cfrag[4 * l + 3];
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    unsigned a0 = Afrag[4 * l], a1 = Afrag[4 * l + 1], a2 = Afrag[4 * l + 2], a3 = Afrag[4 * l + 3];
    unsigned b0 = Bfrag[2 * l], b1 = Bfrag[2 * l + 1];
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
#endif
    Dfrag[4 * l] = d0;
    Dfrag[4 * l + 1] = d1;
    Dfrag[4 * l + 2] = d2;
    Dfrag[4 * l + 3] = d3;
}
