// lib_cg.cu -- cooperative_groups as CUDA users ship it: thread_block,
// thread_block_tile<32/16/8/4> (shfl, shfl_up/down/xor, any/all/ballot,
// match_any, meta_group_rank), cg::reduce / cg::inclusive_scan /
// cg::exclusive_scan on tiles and on coalesced groups, coalesced_threads()
// inside divergent code, labeled_partition and binary_partition,
// cg::memcpy_async + cg::wait into shared memory.
//
// g = global thread index, one input per thread; blockDim.x = 128.

#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

namespace cg = cooperative_groups;

// cg_tiles(const int *in, int *out)
//   Tiles of T lanes: tile k = g / T, rank r = g % T, x = in[g]. out[16g + j]:
//   j=0: sum of the 32-tile (cg::reduce, plus)      j=1: max of the 16-tile (cg::greater)
//   j=2: bitwise or of the 8-tile (cg::bit_or)       j=3: sum of the 4-tile
//   j=4: inclusive sum in the 32-tile up to r        j=5: exclusive sum in the 16-tile
//   j=6: inclusive max in the 8-tile                  j=7: x of rank (r + 3) % 16 in the 16-tile (shfl)
//   j=8: x of rank r - 2 in the 8-tile, or x itself for r < 2 (shfl_up 2)
//   j=9: x of rank r + 5 in the 32-tile, or x itself for r > 26 (shfl_down 5)
//   j=10: x of rank r ^ 3 in the 8-tile (shfl_xor)
//   j=11: ballot of (x odd) over the 16-tile, bit i = rank i
//   j=12: any(x > 1000) over the 8-tile (0/1)     j=13: all(x >= 0) over the 4-tile (0/1)
//   j=14: match_any(x % 4) over the 32-tile: bit i set where rank i has the same x % 4
//   j=15: meta_group_rank of the 16-tile in the block * 100 + meta_group_size
extern "C" __global__ void cg_tiles(const int *in, int *out)
{
    cg::thread_block block = cg::this_thread_block();
    auto t32 = cg::tiled_partition<32>(block);
    auto t16 = cg::tiled_partition<16>(block);
    auto t8 = cg::tiled_partition<8>(block);
    auto t4 = cg::tiled_partition<4>(t32);
    int g = blockIdx.x * blockDim.x + block.thread_rank();
    int x = in[g];
    int *o = out + 16 * g;
    o[0] = cg::reduce(t32, x, cg::plus<int>());
    o[1] = cg::reduce(t16, x, cg::greater<int>());
    o[2] = cg::reduce(t8, x, cg::bit_or<int>());
    o[3] = cg::reduce(t4, x, cg::plus<int>());
    o[4] = cg::inclusive_scan(t32, x);
    o[5] = cg::exclusive_scan(t16, x);
    o[6] = cg::inclusive_scan(t8, x, cg::greater<int>());
    o[7] = t16.shfl(x, (t16.thread_rank() + 3) % 16);
    o[8] = t8.shfl_up(x, 2);
    o[9] = t32.shfl_down(x, 5);
    o[10] = t8.shfl_xor(x, 3);
    o[11] = (int)t16.ballot(x & 1);
    o[12] = t8.any(x > 1000);
    o[13] = t4.all(x >= 0);
    o[14] = (int)t32.match_any(x % 4);
    o[15] = (int)(t16.meta_group_rank() * 100 + t16.meta_group_size());
}

// cg_coalesced(const int *in, int *out)
//   x = in[g]; lanes with x % 3 != 0 enter a branch and form a coalesced group C
//   (the warp's lanes with x % 3 != 0, ranked by lane order). There:
//   out[4g+0] = size of C; out[4g+1] = rank in C; out[4g+2] = sum of x over C (cg::reduce);
//   out[4g+3] = inclusive sum of x over C up to this lane (cg::inclusive_scan).
//   Lanes with x % 3 == 0: out[4g+0..3] = -1, -1, the number of such lanes in the
//   warp (their own coalesced group's size), and the x of the lowest such lane
//   (coalesced shfl from rank 0).
extern "C" __global__ void cg_coalesced(const int *in, int *out)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int x = in[g];
    int *o = out + 4 * g;
    if (x % 3 != 0) {
        cg::coalesced_group c = cg::coalesced_threads();
        o[0] = (int)c.size();
        o[1] = (int)c.thread_rank();
        o[2] = cg::reduce(c, x, cg::plus<int>());
        o[3] = cg::inclusive_scan(c, x);
    } else {
        cg::coalesced_group c = cg::coalesced_threads();
        o[0] = -1;
        o[1] = -1;
        o[2] = (int)c.size();
        o[3] = c.shfl(x, 0);
    }
}

// cg_partitions(const int *in, int *out)
//   x = in[g]; within each warp:
//   out[4g+0] = sum of x over the warp's lanes with the same label x % 5
//               (labeled_partition + cg::reduce);
//   out[4g+1] = rank of this lane among those lanes;
//   out[4g+2] = number of lanes in the warp with the same (x > 50) (binary_partition size);
//   out[4g+3] = max of x over those lanes (cg::reduce, cg::greater).
extern "C" __global__ void cg_partitions(const int *in, int *out)
{
    cg::thread_block block = cg::this_thread_block();
    auto warp = cg::tiled_partition<32>(block);
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int x = in[g];
    int *o = out + 4 * g;
    cg::coalesced_group lab = cg::labeled_partition(warp, x % 5);
    o[0] = cg::reduce(lab, x, cg::plus<int>());
    o[1] = (int)lab.thread_rank();
    cg::coalesced_group bin = cg::binary_partition(warp, x > 50);
    o[2] = (int)bin.size();
    o[3] = cg::reduce(bin, x, cg::greater<int>());
}

// cg_memcpy_block(const float *in, float *out, int n)
//   Block b copies in[b*256 .. b*256+255] to shared memory with cg::memcpy_async
//   (whole block) and cg::wait, then out[b*256 + i] = s[255 - i] * 2 + s[i]
//   for i in [0, 256) (blockDim.x = 128: two items per thread).
extern "C" __global__ void cg_memcpy_block(const float *in, float *out, int n)
{
    __shared__ float s[256];
    cg::thread_block block = cg::this_thread_block();
    cg::memcpy_async(block, s, in + blockIdx.x * 256, sizeof(float) * 256);
    cg::wait(block);
    for (int i = threadIdx.x; i < 256; i += blockDim.x)
        out[blockIdx.x * 256 + i] = s[255 - i] * 2.0f + s[i];
    block.sync();
}
