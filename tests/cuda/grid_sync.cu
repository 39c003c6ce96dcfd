// grid_sync.cu -- grid-wide synchronization of cooperative launches
// (cg::this_grid().sync(), which nvcc builds from %envreg1/%envreg2, an
// atomic arrival counter and a polling loop) and the grid_group queries.
// Comments give each kernel's semantics; the references in
// tests/cuda_api/test_cu_coop.c follow them.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

// grid_phases(const unsigned *in, unsigned *buf, unsigned *out, unsigned *meta, int phases)
//   1D grid and block, launched cooperatively.  n = total threads, r =
//   grid.thread_rank(), B = blockDim.x; buf holds 2*n words (ping-pong).
//   Phase 0: cur[r] = in[r].  Phase p = 1..phases, after a grid.sync():
//   next[r] = 3*cur[r] + cur[(r + B) % n] - cur[(r + n - 1) % n] + p
//   (mod 2^32; cur = buf + n*((p-1)&1), next = buf + n*(p&1)), so every
//   phase reads words another block wrote in the phase before.  Finally
//   out[r] = the last phase's value.  Thread rank 0 writes meta[0] =
//   grid.size(), meta[1] = grid.num_blocks(), meta[2] = grid.is_valid(),
//   meta[4] = grid.dim_blocks().x; thread 0 of the last block writes
//   meta[3] = grid.block_rank() (= gridDim.x - 1).
extern "C" __global__ void grid_phases(const unsigned *in, unsigned *buf, unsigned *out,
                                       unsigned *meta, int phases)
{
    cg::grid_group grid = cg::this_grid();
    unsigned n = (unsigned)grid.size();
    unsigned r = (unsigned)grid.thread_rank();
    unsigned B = blockDim.x;
    buf[r] = in[r];
    for (int p = 1; p <= phases; p++) {
        grid.sync();
        const unsigned *cur = buf + n * ((p - 1) & 1);
        unsigned *next = buf + n * (p & 1);
        next[r] = 3u * cur[r] + cur[(r + B) % n] - cur[(r + n - 1) % n] + (unsigned)p;
    }
    out[r] = buf[n * (phases & 1) + r];
    if (r == 0) {
        meta[0] = n;
        meta[1] = (unsigned)grid.num_blocks();
        meta[2] = grid.is_valid();
        meta[4] = grid.dim_blocks().x;
    }
    if (threadIdx.x == 0 && blockIdx.x == gridDim.x - 1)
        meta[3] = (unsigned)grid.block_rank();
}

// grid_ranks(unsigned *rank, unsigned *count)
//   3D grid of 3D blocks, launched cooperatively.  Each thread writes
//   rank[grid.thread_rank()] = linear block index * threads per block +
//   linear thread index (x fastest), then, after grid.sync(), block 0's
//   thread 0 writes count[0] = the number of rank[] slots not equal to
//   their index, counted over grid.size() slots (0 when every thread had
//   written before the barrier).
extern "C" __global__ void grid_ranks(unsigned *rank, unsigned *count)
{
    cg::grid_group grid = cg::this_grid();
    unsigned block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    unsigned threads = blockDim.x * blockDim.y * blockDim.z;
    unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    rank[grid.thread_rank()] = block * threads + t;
    grid.sync();
    if (grid.thread_rank() == 0) {
        unsigned bad = 0;
        for (unsigned i = 0; i < (unsigned)grid.size(); i++)
            bad += rank[i] != i;
        count[0] = bad;
    }
}

// grid_fault(int *out, int *bad, unsigned bad_block)
//   Launched cooperatively.  Thread 0 of block bad_block stores through
//   `bad` (an invalid address: the launch fails with an illegal address)
//   before the grid barrier; every thread then waits at grid.sync() and
//   writes out[grid.thread_rank()] = 1.  The blocks waiting for the one
//   that failed must not wait forever.
extern "C" __global__ void grid_fault(int *out, int *bad, unsigned bad_block)
{
    cg::grid_group grid = cg::this_grid();
    if (blockIdx.x == bad_block && threadIdx.x == 0)
        *bad = 1;
    grid.sync();
    out[grid.thread_rank()] = 1;
}
