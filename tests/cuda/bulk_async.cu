// Bulk asynchronous copies as libcu++ emits them: cuda::memcpy_async on a
// block (cp.async.bulk with an mbarrier on sm_90, cp.async before),
// cuda::device::memcpy_async_tx with an expect-tx arrive, and the TMA
// wrappers for a global -> shared -> global round trip with bulk groups.
// Each block handles one tile of TILE 32-bit words.
#include <cuda/barrier>
#include <cooperative_groups.h>

namespace cg = cooperative_groups;
using block_barrier = cuda::barrier<cuda::thread_scope_block>;

#define TILE 1024

// out[i] = in[i] * 3 + blockIdx.x, the tile staged in shared memory by a
// block-wide memcpy_async.
__global__ void block_copy(const unsigned *in, unsigned *out)
{
    __shared__ alignas(128) unsigned tile[TILE];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ block_barrier bar;
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0)
        init(&bar, block.size());
    block.sync();
    cuda::memcpy_async(block, tile, in + blockIdx.x * TILE, cuda::aligned_size_t<16>(sizeof tile), bar);
    bar.arrive_and_wait();
    for (unsigned i = threadIdx.x; i < TILE; i += blockDim.x)
        out[blockIdx.x * TILE + i] = tile[i] * 3 + blockIdx.x;
}

// out[i] = in[TILE - 1 - i] + 1 within each tile; thread 0 issues the copy
// and arrives with the expected byte count, the others arrive plainly.
__global__ void tx_copy(const unsigned *in, unsigned *out)
{
    __shared__ alignas(128) unsigned tile[TILE];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ block_barrier bar;
    if (threadIdx.x == 0)
        init(&bar, blockDim.x);
    __syncthreads();
#if __CUDA_ARCH__ >= 900
    block_barrier::arrival_token tok;
    if (threadIdx.x == 0) {
        cuda::device::memcpy_async_tx(tile, in + blockIdx.x * TILE, cuda::aligned_size_t<16>(sizeof tile), bar);
        tok = cuda::device::barrier_arrive_tx(bar, 1, sizeof tile);
    } else {
        tok = bar.arrive();
    }
    bar.wait(std::move(tok));
#else
    for (unsigned i = threadIdx.x; i < TILE; i += blockDim.x)
        tile[i] = in[blockIdx.x * TILE + i];
    bar.arrive_and_wait();
#endif
    for (unsigned i = threadIdx.x; i < TILE; i += blockDim.x)
        out[blockIdx.x * TILE + i] = tile[TILE - 1 - i] + 1;
}

// A round trip through shared memory by TMA bulk copies: in -> tile, each
// word x becomes (x ^ 0x5a5a5a5a) + i, tile -> out through a bulk group.
__global__ void round_trip(const unsigned *in, unsigned *out)
{
#if __CUDA_ARCH__ >= 900
    __shared__ alignas(128) unsigned tile[TILE];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ block_barrier bar;
    if (threadIdx.x == 0)
        init(&bar, blockDim.x);
    __syncthreads();
    namespace cde = cuda::device::experimental;
    block_barrier::arrival_token tok;
    if (threadIdx.x == 0) {
        cde::cp_async_bulk_global_to_shared(tile, in + blockIdx.x * TILE, sizeof tile, bar);
        tok = cuda::device::barrier_arrive_tx(bar, 1, sizeof tile);
    } else {
        tok = bar.arrive();
    }
    bar.wait(std::move(tok));
    for (unsigned i = threadIdx.x; i < TILE; i += blockDim.x)
        tile[i] = (tile[i] ^ 0x5a5a5a5au) + i;
    cde::fence_proxy_async_shared_cta();
    __syncthreads();
    if (threadIdx.x == 0) {
        cde::cp_async_bulk_shared_to_global(out + blockIdx.x * TILE, tile, sizeof tile);
        cde::cp_async_bulk_commit_group();
        cde::cp_async_bulk_wait_group_read<0>();
    }
#else
    for (unsigned i = threadIdx.x; i < TILE; i += blockDim.x)
        out[blockIdx.x * TILE + i] = (in[blockIdx.x * TILE + i] ^ 0x5a5a5a5au) + i;
#endif
}
