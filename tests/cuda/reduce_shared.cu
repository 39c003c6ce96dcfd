// reduce_shared.cu -- block reductions and scans through shared memory with
// __syncthreads: static __shared__ arrays, extern __shared__ dynamic shared
// memory, bar.red via __syncthreads_count/_and/_or.

#define RS_BLOCK 256

// reduce_sum_static(const float *in, float *partial, int n)
//   Launch with blockDim.x == 256 (1D). Each block sums in[blockIdx.x*256 + t]
//   for t in [0, 256) (elements >= n count as 0) with a shared-memory tree and
//   writes partial[blockIdx.x] = that sum. (Tree order: stride 128, 64, ..., 1.)
extern "C" __global__ void reduce_sum_static(const float *in, float *partial, int n)
{
    __shared__ float s[RS_BLOCK];
    unsigned t = threadIdx.x;
    unsigned i = blockIdx.x * RS_BLOCK + t;
    s[t] = (i < (unsigned)n) ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned stride = RS_BLOCK / 2; stride > 0; stride >>= 1) {
        if (t < stride)
            s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0)
        partial[blockIdx.x] = s[0];
}

// reduce_sum_dynamic(const int *in, long long *out, int n)
//   blockDim.x must be a power of two; dynamic shared size = blockDim.x * 8 bytes.
//   Grid-stride: each thread sums in[i] for i = gid, gid + stride, ... (< n) as 64-bit,
//   then a shared tree reduces the block and thread 0 does atomicAdd(out, block_sum)
//   (unsigned long long atomicAdd on the bit pattern). Final *out = sum of in[0..n).
extern "C" __global__ void reduce_sum_dynamic(const int *in, long long *out, int n)
{
    extern __shared__ long long dsm[];
    unsigned t = threadIdx.x;
    long long acc = 0;
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += gridDim.x * blockDim.x)
        acc += in[i];
    dsm[t] = acc;
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (t < stride)
            dsm[t] += dsm[t + stride];
        __syncthreads();
    }
    if (t == 0)
        atomicAdd((unsigned long long *)out, (unsigned long long)dsm[0]);
}

// block_minmax(const int *in, int *gmin, int *gmax, int n)
//   blockDim.x == 128. Two static shared arrays hold running min/max; after the
//   tree, thread 0 does atomicMin(gmin, block_min) and atomicMax(gmax, block_max).
//   Out-of-range threads contribute INT_MAX / INT_MIN. Caller initialises
//   *gmin = INT_MAX, *gmax = INT_MIN.
extern "C" __global__ void block_minmax(const int *in, int *gmin, int *gmax, int n)
{
    __shared__ int smin[128];
    __shared__ int smax[128];
    int t = threadIdx.x;
    int i = blockIdx.x * 128 + t;
    int v = (i < n) ? in[i] : 0;
    smin[t] = (i < n) ? v : 0x7fffffff;
    smax[t] = (i < n) ? v : (int)0x80000000;
    __syncthreads();
    for (int s = 64; s > 0; s >>= 1) {
        if (t < s) {
            smin[t] = min(smin[t], smin[t + s]);
            smax[t] = max(smax[t], smax[t + s]);
        }
        __syncthreads();
    }
    if (t == 0) {
        atomicMin(gmin, smin[0]);
        atomicMax(gmax, smax[0]);
    }
}

// block_scan_inclusive(const int *in, int *out, int *block_totals, int n)
//   Hillis-Steele inclusive scan of each block's segment. Dynamic shared size
//   = 2 * blockDim.x * 4 bytes (double buffer). Elements >= n are treated as 0.
//   out[i] = in[blockIdx.x*blockDim.x] + ... + in[i] for i < n (within the block);
//   block_totals[blockIdx.x] = sum of the block's segment.
extern "C" __global__ void block_scan_inclusive(const int *in, int *out, int *block_totals, int n)
{
    extern __shared__ int buf[];
    unsigned t = threadIdx.x, nb = blockDim.x;
    int i = blockIdx.x * nb + t;
    int *src = buf, *dst = buf + nb;
    src[t] = (i < n) ? in[i] : 0;
    __syncthreads();
    for (unsigned off = 1; off < nb; off <<= 1) {
        int v = src[t];
        if (t >= off)
            v += src[t - off];
        dst[t] = v;
        __syncthreads();
        int *tmp = src; src = dst; dst = tmp;
    }
    if (i < n)
        out[i] = src[t];
    if (t == nb - 1)
        block_totals[blockIdx.x] = src[t];
}

// sync_predicates(const int *in, int *counts, int n)
//   One result triple per block: with p = (gid < n && in[gid] > 0),
//   counts[3*blockIdx.x + 0] = __syncthreads_count(p)   (number of true threads)
//   counts[3*blockIdx.x + 1] = __syncthreads_and(p)     (1 if all true else 0)
//   counts[3*blockIdx.x + 2] = __syncthreads_or(p)      (1 if any true else 0)
//   written by thread 0. Lowers to bar.red.popc.u32 / bar.red.and.pred / bar.red.or.pred.
extern "C" __global__ void sync_predicates(const int *in, int *counts, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int p = (gid < n) && in[gid] > 0;
    int c = __syncthreads_count(p);
    int a = __syncthreads_and(p);
    int o = __syncthreads_or(p);
    if (threadIdx.x == 0) {
        counts[3 * blockIdx.x + 0] = c;
        counts[3 * blockIdx.x + 1] = a != 0;
        counts[3 * blockIdx.x + 2] = o != 0;
    }
}

// reduce_2d_block_static(const float *in, float *out, int width, int height)
//   2D blocks of 16x16; block (bx,by) sums its 16x16 tile of the row-major
//   width x height matrix (outside elements = 0) via a 2D static shared tile
//   (rows reduced first, then column 0), out[by*gridDim.x + bx] = tile sum.
extern "C" __global__ void reduce_2d_block_static(const float *in, float *out, int width, int height)
{
    __shared__ float tile[16][16];
    int x = blockIdx.x * 16 + threadIdx.x;
    int y = blockIdx.y * 16 + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = (x < width && y < height) ? in[y * width + x] : 0.0f;
    __syncthreads();
    for (int s = 8; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            tile[threadIdx.y][threadIdx.x] += tile[threadIdx.y][threadIdx.x + s];
        __syncthreads();
    }
    for (int s = 8; s > 0; s >>= 1) {
        if (threadIdx.x == 0 && threadIdx.y < s)
            tile[threadIdx.y][0] += tile[threadIdx.y + s][0];
        __syncthreads();
    }
    if (threadIdx.x == 0 && threadIdx.y == 0)
        out[blockIdx.y * gridDim.x + blockIdx.x] = tile[0][0];
}
