// mma_sync.cu -- warp-level mma.sync GEMMs through inline PTX: ldmatrix loads
// fragments from shared-memory tiles, mma.sync multiplies them (sm_80+:
// m16n8k16.row.col.f32.f16.f16.f32; sm_75: two m16n8k8), the f32
// accumulators go to memory by the ISA's fragment layout.
#include <cuda_fp16.h>

// A 16x16 tile of A and a 16x8 tile of B (row-major, shared, rows 16-byte
// aligned) times into one warp's four f32 accumulators.  ldmatrix.x4 gives A's
// fragment (matrices: rows 0-7/8-15 x cols 0-7/8-15); ldmatrix.x2.trans gives
// B's (k-major rows transposed into the .col fragment).
__device__ __forceinline__ void mma_tile(const __half *a_tile, int lda, const __half *b_tile, int ldb, float c[4])
{
    int lane = threadIdx.x % 32;
    unsigned a_addr = (unsigned)__cvta_generic_to_shared(a_tile + (lane % 16) * lda + 8 * (lane / 16));
    unsigned b_addr = (unsigned)__cvta_generic_to_shared(b_tile + (lane % 16) * ldb);
    unsigned a0, a1, a2, a3, b0, b1;
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3)
                 : "r"(a_addr));
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];" : "=r"(b0), "=r"(b1) : "r"(b_addr));
#if __CUDA_ARCH__ >= 800
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                 "{%0, %1, %2, %3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
#else
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
                 "{%0, %1, %2, %3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a0), "r"(a1), "r"(b0));
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
                 "{%0, %1, %2, %3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a2), "r"(a3), "r"(b1));
#endif
}

#define TM 32 // block tile: 32 x 16, four warps of 16 x 8
#define TN 16
#define TK 16
#define PAD 8 // halves: rows stay 16-byte aligned, banks spread

// Accumulator element i of `lane`: row g + 8 (i / 2), column 2 t + i % 2.
__device__ __forceinline__ int acc_row(int lane, int i) { return lane / 4 + 8 * (i / 2); }
__device__ __forceinline__ int acc_col(int lane, int i) { return 2 * (lane % 4) + i % 2; }

// Stages the k-th 32x16 tile of A and 16x16 tile of B into shared memory.
__device__ __forceinline__ void stage(const __half *A, const __half *B, int K, int N, int k0, int row0, int col0,
                                      __half (*As)[TK + PAD], __half (*Bs)[TN + PAD])
{
    for (int i = threadIdx.x; i < TM * TK; i += blockDim.x)
        As[i / TK][i % TK] = A[(row0 + i / TK) * K + k0 + i % TK];
    for (int i = threadIdx.x; i < TK * TN; i += blockDim.x)
        Bs[i / TN][i % TN] = B[(k0 + i / TN) * N + col0 + i % TN];
}

// mma_gemm(const __half *A, const __half *B, const float *C, float *D, int M, int N, int K)
//   D = A * B + C; A M x K, B K x N, C and D M x N, all row-major; M % 32 == 0,
//   N % 16 == 0, K % 16 == 0.  blockDim.x == 128, grid = (N / 16, M / 32).
extern "C" __global__ void mma_gemm(const __half *A, const __half *B, const float *C, float *D, int M, int N, int K)
{
    __shared__ __align__(16) __half As[TM][TK + PAD];
    __shared__ __align__(16) __half Bs[TK][TN + PAD];
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    int row0 = blockIdx.y * TM, col0 = blockIdx.x * TN;
    int wr = (warp / 2) * 16, wc = (warp % 2) * 8;
    float c[4];
    for (int i = 0; i < 4; i++)
        c[i] = C[(row0 + wr + acc_row(lane, i)) * N + col0 + wc + acc_col(lane, i)];
    for (int k0 = 0; k0 < K; k0 += TK) {
        stage(A, B, K, N, k0, row0, col0, As, Bs);
        __syncthreads();
        mma_tile(&As[wr][0], TK + PAD, &Bs[0][wc], TN + PAD, c);
        __syncthreads();
    }
    for (int i = 0; i < 4; i++)
        D[(row0 + wr + acc_row(lane, i)) * N + col0 + wc + acc_col(lane, i)] = c[i];
}

// mma_gemm_sparse(A, B, C, D, M, N, K, const int *live, float *lane_bias)
//   As mma_gemm, but a warp multiplies its k-tile only where
//   live[((blockIdx.y * gridDim.x + blockIdx.x) * 4 + warp) * (K / 16) + k0 / 16] != 0
//   (a warp-uniform, data-dependent branch around ldmatrix and mma), after a
//   prologue in which the warp's lanes diverge (lane l loops l % 7 times):
//   lane_bias[block thread] = 0.5 * (l % 7), and every D element of the lane
//   gets that bias added.
extern "C" __global__ void mma_gemm_sparse(const __half *A, const __half *B, const float *C, float *D, int M, int N,
                                           int K, const int *live, float *lane_bias)
{
    __shared__ __align__(16) __half As[TM][TK + PAD];
    __shared__ __align__(16) __half Bs[TK][TN + PAD];
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    int row0 = blockIdx.y * TM, col0 = blockIdx.x * TN;
    int wr = (warp / 2) * 16, wc = (warp % 2) * 8;
    float bias = 0;
    for (int i = 0; i < lane % 7; i++) // lanes diverge, then meet again
        bias += 0.5f;
    lane_bias[(blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x] = bias;
    const int *my_live = live + ((blockIdx.y * gridDim.x + blockIdx.x) * 4 + warp) * (K / TK);
    float c[4];
    for (int i = 0; i < 4; i++)
        c[i] = C[(row0 + wr + acc_row(lane, i)) * N + col0 + wc + acc_col(lane, i)];
    for (int k0 = 0; k0 < K; k0 += TK) {
        stage(A, B, K, N, k0, row0, col0, As, Bs);
        __syncthreads();
        if (my_live[k0 / TK])
            mma_tile(&As[wr][0], TK + PAD, &Bs[0][wc], TN + PAD, c);
        __syncthreads();
    }
    for (int i = 0; i < 4; i++)
        D[(row0 + wr + acc_row(lane, i)) * N + col0 + wc + acc_col(lane, i)] = c[i] + bias;
}
