// async_copy.cu -- asynchronous global->shared copies and warp/block-level
// cooperation: __pipeline_memcpy_async / commit / wait_prior (cp.async on
// sm_80+; the header falls back to synchronous copies below), raw cp.async
// inline PTX (sm_80+ guarded), double-buffered staging, __syncwarp with
// partial masks, and cooperative_groups (thread_block, tiled_partition,
// tile-level shfl and reduce).
#include <cuda_pipeline.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

// pipeline_scale(const float4 *in, float4 *out, float s, int n4)
//   blockDim.x == 128; dynamic shared not used. Each block stages a 128-float4 chunk
//   in[blockIdx.x*128 + t] into shared memory with __pipeline_memcpy_async (16 bytes
//   per thread), commits, waits (__pipeline_wait_prior(0)), __syncthreads, then
//   out[i] = shared[(t + 1) % 128 of the chunk] * s componentwise, for i = blockIdx.x*128 + t < n4.
//   (A neighbour read, so the barrier matters.) Requires n4 % 128 == 0.
extern "C" __global__ void pipeline_scale(const float4 *in, float4 *out, float s, int n4)
{
    __shared__ float4 stage[128];
    int t = threadIdx.x;
    int i = blockIdx.x * 128 + t;
    if (i < n4)
        __pipeline_memcpy_async(&stage[t], &in[i], sizeof(float4));
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    if (i < n4) {
        float4 v = stage[(t + 1) & 127];
        out[i] = make_float4(v.x * s, v.y * s, v.z * s, v.w * s);
    }
}

// double_buffer_sum(const float *in, float *out, int chunks)
//   One block of 256 threads. in holds chunks*256 floats. Chunk c is prefetched into
//   buffer c&1 while chunk c-1 is consumed (2-stage pipeline with __pipeline_wait_prior(1)).
//   Each thread t accumulates acc += buf[(t * 7) & 255] for every chunk (in chunk order);
//   out[t] = acc.
extern "C" __global__ void double_buffer_sum(const float *in, float *out, int chunks)
{
    __shared__ float buf[2][256];
    int t = threadIdx.x;
    float acc = 0.0f;
    if (chunks > 0)
        __pipeline_memcpy_async(&buf[0][t], &in[t], sizeof(float));
    __pipeline_commit();
    for (int c = 0; c < chunks; ++c) {
        if (c + 1 < chunks)
            __pipeline_memcpy_async(&buf[(c + 1) & 1][t], &in[(c + 1) * 256 + t], sizeof(float));
        __pipeline_commit();
        __pipeline_wait_prior(1);
        __syncthreads();
        acc += buf[c & 1][(t * 7) & 255];
        __syncthreads();
    }
    out[t] = acc;
}

// cp_async_raw(const int4 *in, int4 *out, int n16)
//   blockDim.x == 64. sm_80+: cp.async.cg.shared.global 16-byte copies into shared, with
//   cp.async.commit_group / cp.async.wait_group 0, then out[i] = shared copy reversed within
//   the block: out[blockIdx.x*64 + t] = in[blockIdx.x*64 + 63 - t]. Below sm_80: plain loads.
//   Requires n16 % 64 == 0.
extern "C" __global__ void cp_async_raw(const int4 *in, int4 *out, int n16)
{
    __shared__ __align__(16) int4 sh[64];
    int t = threadIdx.x;
    int base = blockIdx.x * 64;
    if (base + t < n16) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
        unsigned saddr = (unsigned)__cvta_generic_to_shared(&sh[t]);
        size_t gaddr = __cvta_generic_to_global(&in[base + t]);
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(saddr), "l"(gaddr) : "memory");
        asm volatile("cp.async.commit_group;" ::: "memory");
        asm volatile("cp.async.wait_group 0;" ::: "memory");
#else
        sh[t] = in[base + t];
#endif
    }
    __syncthreads();
    if (base + t < n16)
        out[base + t] = sh[63 - t];
}

// cg_tile_reduce(const int *in, int *out, int n)
//   cooperative_groups: block = this_thread_block(); tile16 = tiled_partition<16>(block).
//   Every thread: v = gid < n ? in[gid] : 0; s = cg::reduce(tile16, v, cg::plus<int>());
//   tile leader (tile16.thread_rank() == 0) does atomicAdd(&out[0], s);
//   also out[1 + gid] = tile16.shfl(v, 15) (value of the tile's last lane) for gid < n;
//   block.sync() separates the phases. out has 1 + n entries; caller zeroes out[0].
extern "C" __global__ void cg_tile_reduce(const int *in, int *out, int n)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<16> tile16 = cg::tiled_partition<16>(block);
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int v = gid < n ? in[gid] : 0;
    int s = cg::reduce(tile16, v, cg::plus<int>());
    if (tile16.thread_rank() == 0)
        atomicAdd(&out[0], s);
    block.sync();
    int last = tile16.shfl(v, 15);
    if (gid < n)
        out[1 + gid] = last;
}

// syncwarp_masks(int *data)
//   blockDim.x == 32 (one warp), data has 32 * gridDim.x ints. Lanes 0..15 and 16..31 each form
//   a group synchronised with __syncwarp(0x0000ffff) / __syncwarp(0xffff0000): each lane l
//   writes s[l] = data[base + l] + 1, syncs its half, then reads its neighbour within the half
//   r = s[(l & 16) | ((l + 1) & 15)] and writes data[base + l] = r * 10. base = blockIdx.x * 32.
extern "C" __global__ void syncwarp_masks(int *data)
{
    __shared__ int s[32];
    unsigned l = threadIdx.x & 31;
    int base = blockIdx.x * 32;
    unsigned mask = (l < 16) ? 0x0000ffffu : 0xffff0000u;
    s[l] = data[base + l] + 1;
    __syncwarp(mask);
    int r = s[(l & 16u) | ((l + 1) & 15u)];
    __syncwarp(mask);
    data[base + l] = r * 10;
}
