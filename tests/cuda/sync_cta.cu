// sync_cta.cu -- CTA- and warp-level synchronization as CUDA code writes it:
// __syncthreads_count/and/or, named barriers through inline PTX, cooperative
// groups (tiles, coalesced groups, cluster of one block), cuda::barrier, and
// the address-space predicates.  Comments give each kernel's semantics; the
// references in tests/e2e/test_conform_sync.c follow them.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda/barrier>

namespace cg = cooperative_groups;

// syncthreads_reduce(const int *in, int *out)
//   Any block size.  p = in[gid] != 0; out[3*gid] = number of threads of the
//   block with p, out[3*gid+1] = all of them have p, out[3*gid+2] = any has p.
extern "C" __global__ void syncthreads_reduce(const int *in, int *out)
{
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    int p = in[gid] != 0;
    out[3 * gid] = __syncthreads_count(p);
    out[3 * gid + 1] = __syncthreads_and(p) != 0;
    out[3 * gid + 2] = __syncthreads_or(p) != 0;
}

// named_pipeline(int *out, int rounds)
//   blockDim.x == 128.  Warps 0-1 produce into buf[64], warps 2-3 consume,
//   through named barriers 1 (full) and 2 (empty) of 128 threads.  Consumer
//   c = tid - 64: out[gid] = sum over r < rounds of (r*131 + c + blockIdx.x) * (r+1);
//   producers: out[gid] = -1.
extern "C" __global__ void named_pipeline(int *out, int rounds)
{
    __shared__ int buf[64];
    int t = threadIdx.x, acc = 0;
    if (t < 64) {
        for (int r = 0; r < rounds; r++) {
            asm volatile("bar.sync 2, 128;" ::: "memory");
            buf[t] = r * 131 + t + blockIdx.x;
            asm volatile("bar.arrive 1, 128;" ::: "memory");
        }
        acc = -1;
    } else {
        for (int r = 0; r < rounds; r++) {
            asm volatile("bar.arrive 2, 128;" ::: "memory");
            asm volatile("bar.sync 1, 128;" ::: "memory");
            acc += buf[t - 64] * (r + 1);
        }
    }
    out[blockIdx.x * blockDim.x + t] = acc;
}

// tile_reduce(const int *in, int *out)
//   blockDim.x a multiple of 8; tiles of 8 threads.  out[gid] = sum of in[]
//   over the thread's tile + 1000 * rank in the tile + in[] of the next rank
//   (the last rank: its own in[]).
extern "C" __global__ void tile_reduce(const int *in, int *out)
{
    cg::thread_block_tile<8> tile = cg::tiled_partition<8>(cg::this_thread_block());
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[gid];
    int sum = cg::reduce(tile, v, cg::plus<int>());
    int down = tile.shfl_down(v, 1);
    tile.sync();
    out[gid] = sum + 1000 * (int)tile.thread_rank() + down;
}

// coalesced_divergent(const int *in, int *out)
//   Threads with odd in[gid] form a coalesced group per warp: out[gid] =
//   10000 * rank in the group + 100 * group size + in[] of the group's rank 0;
//   the others write -1.  in[] values are 0..99.
extern "C" __global__ void coalesced_divergent(const int *in, int *out)
{
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[gid];
    if (v & 1) {
        cg::coalesced_group g = cg::coalesced_threads();
        out[gid] = 10000 * (int)g.thread_rank() + 100 * (int)g.size() + g.shfl(v, 0);
    } else {
        out[gid] = -1;
    }
}

// block_barrier_rounds(int *out)
//   cuda::barrier for the whole block, three rounds: s[t] = r*1000 + t +
//   7*blockIdx.x, arrive and wait, read s[(t+1) % n], arrive and wait (round
//   1 with a separate arrive() and wait(token)).  out[gid] = sum over r of the
//   value read * (r + 1).  blockDim.x <= 256.
#ifdef __NVCC__
#pragma nv_diag_suppress static_var_with_dynamic_init /* init() initializes it, as CUDA documents */
#endif
extern "C" __global__ void block_barrier_rounds(int *out)
{
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    __shared__ int s[256];
    unsigned t = threadIdx.x, n = blockDim.x;
    if (t == 0)
        init(&bar, n);
    __syncthreads();
    int acc = 0;
    for (int r = 0; r < 3; r++) {
        s[t] = r * 1000 + (int)t + 7 * (int)blockIdx.x;
        if (r == 1) {
            cuda::barrier<cuda::thread_scope_block>::arrival_token tok = bar.arrive();
            bar.wait(std::move(tok));
        } else {
            bar.arrive_and_wait();
        }
        acc += s[(t + 1) % n] * (r + 1);
        bar.arrive_and_wait();
    }
    out[blockIdx.x * n + t] = acc;
}

__constant__ int cdata[4] = {3, 1, 4, 1};
__device__ int gdata[4];

// space_bits(int *g, unsigned *out, int k)
//   For pointers into global (g, gdata), shared, local (a per-thread array)
//   and constant (cdata) memory, 4 bits: 1 __isGlobal, 2 __isShared,
//   4 __isLocal, 8 __isConstant; out[5*tid+i] for the five pointers, in that
//   order (k selects elements, 0..3).  Then out[5*tid+4] also gets the
//   shared offset from __cvta_generic_to_shared(&sh[tid]) minus that of
//   &sh[0] in bits 8..31.
extern "C" __global__ void space_bits(int *g, unsigned *out, int k)
{
    __shared__ int sh[64];
    int loc[8];
    unsigned t = threadIdx.x;
    for (int i = 0; i < 8; i++)
        loc[i] = g[i & 3] + i;
    sh[t] = loc[(t + k) & 7];
    __syncthreads();
    const void *p[5] = {g + k, &gdata[k], &sh[(t + k) & 63], &loc[k], &cdata[k]};
    for (int i = 0; i < 5; i++) {
        const void *q; /* hidden from the compiler, so the tests happen at run time */
        asm volatile("mov.b64 %0, %1;" : "=l"(q) : "l"(p[i]));
        unsigned bits = (__isGlobal(q) ? 1u : 0u) | (__isShared(q) ? 2u : 0u) |
                        (__isLocal(q) ? 4u : 0u) | (__isConstant(q) ? 8u : 0u);
        out[5 * t + i] = bits;
    }
    unsigned off = (unsigned)(__cvta_generic_to_shared(&sh[t]) - __cvta_generic_to_shared(&sh[0]));
    out[5 * t + 4] |= off << 8;
    g[4 + t] = sh[t] + loc[t & 7];
}

#if __CUDA_ARCH__ >= 900
// cluster_one(int *out)   (sm_90; a cluster of one block)
//   out[gid*4] = cluster.block_rank() (0), [+1] = cluster.num_blocks() (1),
//   [+2] = value written through map_shared_rank(&sh[(t+1)%n], 0) by the
//   neighbour after cluster.sync(): (t + 1) * 3 ... read back at sh[t];
//   [+3] = 1 for exactly one thread per warp (cg::invoke_one's elected lane).
extern "C" __global__ void __cluster_dims__(1, 1, 1) cluster_one(int *out)
{
    __shared__ int sh[256];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned t = threadIdx.x, n = blockDim.x;
    unsigned gid = blockIdx.x * n + t;
    int *dst = cluster.map_shared_rank(&sh[(t + 1) % n], 0);
    *dst = (int)((t + 1) % n) * 3;
    cluster.sync();
    out[4 * gid] = (int)cluster.block_rank();
    out[4 * gid + 1] = (int)cluster.num_blocks();
    out[4 * gid + 2] = sh[t];
    out[4 * gid + 3] = 0;
    cg::invoke_one(cg::tiled_partition<32>(cg::this_thread_block()), [&] { out[4 * gid + 3] = 1; });
}
#endif
