// bulk_reduce.cu - sm_90 bulk reductions as libcu++'s cuda::ptx wrappers
// emit them (cp.reduce.async.bulk into global memory in a bulk group, and
// into the block's own shared memory with an mbarrier's complete-tx).
// Compiled for sm_75/sm_80 the kernels compute the same with atomics, so
// all three variants share one reference.
#include <cuda/ptx>
#include <stdint.h>

#define TILE 256 // elements per block, 1024 bytes

// Launch: blocks of 128 threads.  For every block b and element i < TILE:
//   isum[i] += in[b*TILE + i]                (u32, wrapping)
//   fsum[i] += (float)(in[b*TILE + i] & 15)  (f32; integer-valued, exact)
// Every block reduces into the same isum/fsum.
extern "C" __global__ void reduce_tiles(const unsigned *in, unsigned *isum, float *fsum)
{
    __shared__ alignas(16) unsigned tile[TILE];
    __shared__ alignas(16) float ftile[TILE];
    const unsigned *src = in + blockIdx.x * TILE;
    for (int i = threadIdx.x; i < TILE; i += blockDim.x) {
        tile[i] = src[i];
        ftile[i] = (float)(src[i] & 15);
    }
#if __CUDA_ARCH__ >= 900
    cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
    __syncthreads();
    if (threadIdx.x == 0) {
        cuda::ptx::cp_reduce_async_bulk(cuda::ptx::space_global, cuda::ptx::space_shared, cuda::ptx::op_add,
                                        isum, tile, TILE * 4);
        cuda::ptx::cp_reduce_async_bulk(cuda::ptx::space_global, cuda::ptx::space_shared, cuda::ptx::op_add,
                                        fsum, ftile, TILE * 4);
        cuda::ptx::cp_async_bulk_commit_group();
        cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<0>());
    }
#else
    __syncthreads();
    for (int i = threadIdx.x; i < TILE; i += blockDim.x) {
        atomicAdd(&isum[i], tile[i]);
        atomicAdd(&fsum[i], ftile[i]);
    }
#endif
}

// Launch: blocks of 128 threads.  Per block b, element i < TILE, x = in[b*TILE + i]:
//   out[b*TILE + i] = max(x, x ^ 0x80000000) as signed 32-bit integers,
// computed by reducing a shared tile of x ^ 0x80000000 into a shared tile
// of x with .max.s32 (shared::cluster of a one-block cluster).
extern "C" __global__ void reduce_shared_max(const unsigned *in, unsigned *out)
{
    __shared__ alignas(16) int acc[TILE];
    __shared__ alignas(16) int flip[TILE];
    const unsigned *src = in + blockIdx.x * TILE;
    for (int i = threadIdx.x; i < TILE; i += blockDim.x) {
        acc[i] = (int)src[i];
        flip[i] = (int)(src[i] ^ 0x80000000u);
    }
#if __CUDA_ARCH__ >= 900
    __shared__ uint64_t bar;
    if (threadIdx.x == 0)
        cuda::ptx::mbarrier_init(&bar, 1);
    cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
    __syncthreads();
    if (threadIdx.x == 0) {
        cuda::ptx::cp_reduce_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_shared, cuda::ptx::op_max,
                                        acc, flip, TILE * 4, &bar);
        cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared,
                                             &bar, TILE * 4);
    }
    while (!cuda::ptx::mbarrier_try_wait_parity(&bar, 0))
        ;
#else
    __syncthreads();
    for (int i = threadIdx.x; i < TILE; i += blockDim.x)
        atomicMax(&acc[i], flip[i]);
#endif
    __syncthreads();
    for (int i = threadIdx.x; i < TILE; i += blockDim.x)
        out[blockIdx.x * TILE + i] = (unsigned)acc[i];
}
