// lib_cub.cu -- CUB block- and warp-level primitives as CUDA users ship them
// (the CUB headers bundled with the toolkit): BlockLoad/BlockStore with
// transposes, BlockReduce, BlockScan, BlockRadixSort, BlockMergeSort,
// BlockHistogram, BlockDiscontinuity, BlockAdjacentDifference, WarpReduce,
// WarpScan (full and logical 16-lane warps).
//
// Every kernel runs with blockDim.x = 128 (BT) and works on one tile of
// BT * IPT = 512 items per block: tile b is in[b*512 .. b*512+511].
// "Blocked" arrangement: thread t owns items t*IPT .. t*IPT+IPT-1 of the tile.

#include <cub/cub.cuh>

#define BT 128
#define IPT 4
#define TILE (BT * IPT)

struct MaxOp {
    __device__ int operator()(int a, int b) const { return a > b ? a : b; }
};

// cub_reduce(const int *in, int *out, int valid)
//   Per block b: out[3b] = sum of the tile, out[3b+1] = max of the tile,
//   out[3b+2] = sum of the first `valid` items of the tile only (items at
//   index >= valid are not read; 0 < valid <= 512).
//   Loads with BLOCK_LOAD_WARP_TRANSPOSE (full tile) and BLOCK_LOAD_DIRECT (guarded).
extern "C" __global__ void cub_reduce(const int *in, int *out, int valid)
{
    typedef cub::BlockLoad<int, BT, IPT, cub::BLOCK_LOAD_WARP_TRANSPOSE> Load;
    typedef cub::BlockReduce<int, BT> Reduce;
    typedef cub::BlockReduce<int, BT, cub::BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY> Reduce2;
    __shared__ union {
        typename Load::TempStorage load;
        typename Reduce::TempStorage red;
        typename Reduce2::TempStorage red2;
    } tmp;
    const int *tile = in + blockIdx.x * TILE;
    int v[IPT];
    Load(tmp.load).Load(tile, v);
    __syncthreads();
    int s = Reduce(tmp.red).Sum(v);
    __syncthreads();
    int m = Reduce(tmp.red).Reduce(v, MaxOp());
    __syncthreads();
    int g[IPT];
    cub::LoadDirectBlocked(threadIdx.x, tile, g, valid, 0);
    int part = g[0] + g[1] + g[2] + g[3];
    int sv = Reduce2(tmp.red2).Sum(part);
    if (threadIdx.x == 0) {
        out[3 * blockIdx.x] = s;
        out[3 * blockIdx.x + 1] = m;
        out[3 * blockIdx.x + 2] = sv;
    }
}

// cub_scan(const int *in, int *incl, int *excl, int *xmax, int *totals)
//   Per tile (blocked arrangement, BLOCK_LOAD_TRANSPOSE / BLOCK_STORE_TRANSPOSE):
//   incl[i] = in[tile start] + ... + in[i]; excl[i] = incl[i] - in[i];
//   xmax[i] = max(INT_MIN, in[tile start .. i-1]) (exclusive max scan with
//   initial value INT_MIN; xmax at the tile start is INT_MIN);
//   totals[b] = sum of tile b (the block aggregate).
//   BlockScan with BLOCK_SCAN_RAKING for the sums, BLOCK_SCAN_WARP_SCANS for the max.
extern "C" __global__ void cub_scan(const int *in, int *incl, int *excl, int *xmax, int *totals)
{
    typedef cub::BlockLoad<int, BT, IPT, cub::BLOCK_LOAD_TRANSPOSE> Load;
    typedef cub::BlockStore<int, BT, IPT, cub::BLOCK_STORE_TRANSPOSE> Store;
    typedef cub::BlockScan<int, BT, cub::BLOCK_SCAN_RAKING> Scan;
    typedef cub::BlockScan<int, BT, cub::BLOCK_SCAN_WARP_SCANS> Scan2;
    __shared__ union {
        typename Load::TempStorage load;
        typename Store::TempStorage store;
        typename Scan::TempStorage scan;
        typename Scan2::TempStorage scan2;
    } tmp;
    int off = blockIdx.x * TILE;
    int v[IPT], a[IPT], e[IPT], x[IPT];
    Load(tmp.load).Load(in + off, v);
    __syncthreads();
    int agg;
    Scan(tmp.scan).InclusiveSum(v, a, agg);
    __syncthreads();
    Scan(tmp.scan).ExclusiveSum(v, e);
    __syncthreads();
    Scan2(tmp.scan2).ExclusiveScan(v, x, INT_MIN, MaxOp());
    __syncthreads();
    Store(tmp.store).Store(incl + off, a);
    __syncthreads();
    Store(tmp.store).Store(excl + off, e);
    __syncthreads();
    Store(tmp.store).Store(xmax + off, x);
    if (threadIdx.x == 0)
        totals[blockIdx.x] = agg;
}

// cub_radix_sort(const unsigned *keys, const int *vals, unsigned *okeys, int *ovals,
//                int *skeys)
//   Per tile: okeys/ovals = the tile's (key, value) pairs stably sorted by key
//   ascending (BlockRadixSort::SortPairs, blocked output);
//   skeys = the tile's keys reinterpreted as int, sorted descending
//   (SortDescending on signed ints, blocked output).
//   Loads with BLOCK_LOAD_VECTORIZE; stores with BLOCK_STORE_WARP_TRANSPOSE.
extern "C" __global__ void cub_radix_sort(const unsigned *keys, const int *vals, unsigned *okeys,
                                          int *ovals, int *skeys)
{
    typedef cub::BlockLoad<unsigned, BT, IPT, cub::BLOCK_LOAD_VECTORIZE> LoadK;
    typedef cub::BlockStore<unsigned, BT, IPT, cub::BLOCK_STORE_WARP_TRANSPOSE> StoreK;
    typedef cub::BlockStore<int, BT, IPT, cub::BLOCK_STORE_WARP_TRANSPOSE> StoreV;
    typedef cub::BlockRadixSort<unsigned, BT, IPT, int> Sort;
    typedef cub::BlockRadixSort<int, BT, IPT> SortS;
    __shared__ union {
        typename LoadK::TempStorage lk;
        typename StoreK::TempStorage sk;
        typename StoreV::TempStorage sv;
        typename Sort::TempStorage sort;
        typename SortS::TempStorage sorts;
    } tmp;
    int off = blockIdx.x * TILE;
    unsigned k[IPT];
    int v[IPT], s[IPT];
    LoadK(tmp.lk).Load(keys + off, k);
    cub::LoadDirectBlocked(threadIdx.x, vals + off, v);
    for (int i = 0; i < IPT; i++)
        s[i] = (int)k[i];
    __syncthreads();
    Sort(tmp.sort).Sort(k, v);
    __syncthreads();
    SortS(tmp.sorts).SortDescending(s);
    __syncthreads();
    StoreK(tmp.sk).Store(okeys + off, k);
    __syncthreads();
    StoreV(tmp.sv).Store(ovals + off, v);
    __syncthreads();
    StoreV(tmp.sv).Store(skeys + off, s);
}

struct NotEqual {
    __device__ bool operator()(int a, int b) const { return a != b; }
};
struct Minus {
    __device__ int operator()(int a, int b) const { return a - b; }
};

struct AbsLess {
    __device__ bool operator()(int a, int b) const { return (a < 0 ? -a : a) < (b < 0 ? -b : b); }
};

// cub_merge_sort(const int *in, int *out)
//   Per tile: out = the tile stably sorted by |x| ascending (BlockMergeSort::StableSort,
//   blocked arrangement in and out). Inputs avoid INT_MIN.
extern "C" __global__ void cub_merge_sort(const int *in, int *out)
{
    typedef cub::BlockMergeSort<int, BT, IPT> Sort;
    __shared__ typename Sort::TempStorage tmp;
    int off = blockIdx.x * TILE;
    int v[IPT];
    cub::LoadDirectBlocked(threadIdx.x, in + off, v);
    Sort(tmp).StableSort(v, AbsLess());
    cub::StoreDirectBlocked(threadIdx.x, out + off, v);
}

// cub_histogram(const unsigned char *in, unsigned *hist_sort, unsigned *hist_atomic)
//   Per tile b (512 bytes): hist_sort[b*256 + v] = hist_atomic[b*256 + v] = number of
//   bytes equal to v in the tile. BLOCK_HISTO_SORT and BLOCK_HISTO_ATOMIC.
//   Striped loads (LoadDirectStriped).
extern "C" __global__ void cub_histogram(const unsigned char *in, unsigned *hist_sort,
                                         unsigned *hist_atomic)
{
    typedef cub::BlockHistogram<unsigned char, BT, IPT, 256, cub::BLOCK_HISTO_SORT> HSort;
    typedef cub::BlockHistogram<unsigned char, BT, IPT, 256, cub::BLOCK_HISTO_ATOMIC> HAtom;
    __shared__ typename HSort::TempStorage ts;
    __shared__ typename HAtom::TempStorage ta;
    __shared__ unsigned h1[256], h2[256];
    unsigned char v[IPT];
    cub::LoadDirectStriped<BT>(threadIdx.x, in + blockIdx.x * TILE, v);
    HSort(ts).Histogram(v, h1);
    HAtom(ta).Histogram(v, h2);
    __syncthreads();
    for (int i = threadIdx.x; i < 256; i += BT) {
        hist_sort[blockIdx.x * 256 + i] = h1[i];
        hist_atomic[blockIdx.x * 256 + i] = h2[i];
    }
}

// cub_discontinuity(const int *in, int *heads, int *tails, int *diffs)
//   Per tile (blocked): heads[i] = 1 if i is the tile start or in[i] != in[i-1], else 0;
//   tails[i] = 1 if i is the tile's last item or in[i] != in[i+1], else 0
//   (FlagHeadsAndTails with a != b);
//   diffs[i] = in[i] - in[i-1], and in[i] at the tile start (BlockAdjacentDifference
//   SubtractLeft).
extern "C" __global__ void cub_discontinuity(const int *in, int *heads, int *tails, int *diffs)
{
    typedef cub::BlockDiscontinuity<int, BT> Disc;
    typedef cub::BlockAdjacentDifference<int, BT> Adj;
    __shared__ typename Disc::TempStorage td;
    __shared__ typename Adj::TempStorage ta;
    int off = blockIdx.x * TILE;
    int v[IPT], h[IPT], t[IPT], d[IPT];
    cub::LoadDirectBlocked(threadIdx.x, in + off, v);
    Disc(td).FlagHeadsAndTails(h, t, v, NotEqual());
    Adj(ta).SubtractLeft(v, d, Minus());
    cub::StoreDirectBlocked(threadIdx.x, heads + off, h);
    cub::StoreDirectBlocked(threadIdx.x, tails + off, t);
    cub::StoreDirectBlocked(threadIdx.x, diffs + off, d);
}

// cub_warp(const int *in, int *out)
//   One item per thread, g = global thread index; warp w = g / 32, lane = g % 32;
//   half-warp h = g / 16.
//   out[8g+0] = inclusive sum over the warp up to the lane (WarpScan::InclusiveSum);
//   out[8g+1] = exclusive max over the warp with initial INT_MIN (WarpScan::ExclusiveScan);
//   out[8g+2] = at lane 0: sum of the warp (WarpReduce::Sum), else 0;
//   out[8g+3] = at lane 0: max of the warp (WarpReduce::Reduce), else 0;
//   out[8g+4] = at the half-warp's lane 0: sum of the 16 values of half-warp h
//               (WarpReduce<int,16>), else 0;
//   out[8g+5] = inclusive sum within the half-warp (WarpScan<int,16>);
//   out[8g+6] = at lane 0: sum of the first (in[32w] & 31) + 1 lanes of the warp
//               (WarpReduce::Sum with valid_items), else 0;
//   out[8g+7] = at each segment head: the sum of that segment, where a lane is a
//               head if it is lane 0 or in[g] % 5 == 0, and a segment runs from a
//               head to the lane before the next head (HeadSegmentedSum); else 0.
extern "C" __global__ void cub_warp(const int *in, int *out)
{
    typedef cub::WarpScan<int> Scan;
    typedef cub::WarpReduce<int> Red;
    typedef cub::WarpReduce<int, 16> Red16;
    typedef cub::WarpScan<int, 16> Scan16;
    __shared__ typename Scan::TempStorage ts[BT / 32];
    __shared__ typename Red::TempStorage tr[BT / 32];
    __shared__ typename Red16::TempStorage tr16[BT / 16];
    __shared__ typename Scan16::TempStorage ts16[BT / 16];
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int w = threadIdx.x / 32, lane = threadIdx.x % 32, h = threadIdx.x / 16;
    int x = in[g];
    int r[8];
    Scan(ts[w]).InclusiveSum(x, r[0]);
    Scan(ts[w]).ExclusiveScan(x, r[1], INT_MIN, MaxOp());
    int s = Red(tr[w]).Sum(x);
    int m = Red(tr[w]).Reduce(x, MaxOp());
    r[2] = lane == 0 ? s : 0;
    r[3] = lane == 0 ? m : 0;
    int s16 = Red16(tr16[h]).Sum(x);
    r[4] = (lane % 16) == 0 ? s16 : 0;
    Scan16(ts16[h]).InclusiveSum(x, r[5]);
    int first = __shfl_sync(0xffffffffu, x, 0);
    int sv = Red(tr[w]).Sum(x, (first & 31) + 1);
    r[6] = lane == 0 ? sv : 0;
    int head = lane == 0 || x % 5 == 0;
    int seg = Red(tr[w]).HeadSegmentedSum(x, head);
    r[7] = head ? seg : 0;
    for (int i = 0; i < 8; i++)
        out[8 * g + i] = r[i];
}
