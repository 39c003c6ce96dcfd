// warp_shuffle.cu -- warp shuffles: __shfl_sync, __shfl_up_sync,
// __shfl_down_sync, __shfl_xor_sync with full and partial widths and masks,
// on 32-bit int/float and 64-bit double / long long (split into two shfl).
//
// lane = threadIdx.x % 32; launches are 1D with blockDim.x a multiple of 32
// and the arrays sized to gridDim.x * blockDim.x unless stated.

#define FULL 0xffffffffu

// shfl_broadcast(const int *in, int *out, int src_lane)
//   out[gid] = in[(gid & ~31) + (src_lane & 31)]   (each warp reads lane src_lane).
extern "C" __global__ void shfl_broadcast(const int *in, int *out, int src_lane)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    out[gid] = __shfl_sync(FULL, in[gid], src_lane);
}

// shfl_rotate(const float *in, float *out, int delta)
//   out[gid] = in[(gid & ~31) + ((lane + delta) & 31)]   (index shuffle with computed lane).
extern "C" __global__ void shfl_rotate(const float *in, float *out, int delta)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    out[gid] = __shfl_sync(FULL, in[gid], (lane + delta) & 31);
}

// warp_inclusive_scan(const int *in, int *out)
//   Inclusive prefix sum within each warp using __shfl_up_sync with deltas 1,2,4,8,16:
//   out[gid] = sum of in[(gid & ~31) .. gid].
extern "C" __global__ void warp_inclusive_scan(const int *in, int *out)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int v = in[gid];
    for (int d = 1; d < 32; d <<= 1) {
        int o = __shfl_up_sync(FULL, v, d);
        if (lane >= d)
            v += o;
    }
    out[gid] = v;
}

// warp_sum_down(const float *in, float *warp_sums)
//   Tree reduction with __shfl_down_sync offsets 16,8,4,2,1; lane 0 writes
//   warp_sums[gid / 32] = sum of the warp's 32 inputs (tree order:
//   v[l] += v[l+16]; v[l] += v[l+8]; ...).
extern "C" __global__ void warp_sum_down(const float *in, float *warp_sums)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[gid];
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_down_sync(FULL, v, off);
    if ((threadIdx.x & 31) == 0)
        warp_sums[gid >> 5] = v;
}

// warp_max_xor(const int *in, int *out)
//   Butterfly all-reduce with __shfl_xor_sync masks 16,8,4,2,1: every lane ends with
//   the warp's maximum; out[gid] = max over the warp of in[].
extern "C" __global__ void warp_max_xor(const int *in, int *out)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[gid];
    for (int m = 16; m > 0; m >>= 1)
        v = max(v, __shfl_xor_sync(FULL, v, m));
    out[gid] = v;
}

// shfl_subwarp_width(const int *in, int *out_idx, int *out_down)
//   Width-8 segments: out_idx[gid] = in value of lane (lane & ~7) (segment leader),
//   via __shfl_sync(FULL, v, 0, 8).
//   Width-16 segments: out_down[gid] = in value of lane+3 if (lane & 15) + 3 < 16,
//   otherwise its own value, via __shfl_down_sync(FULL, v, 3, 16).
extern "C" __global__ void shfl_subwarp_width(const int *in, int *out_idx, int *out_down)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[gid];
    out_idx[gid] = __shfl_sync(FULL, v, 0, 8);
    out_down[gid] = __shfl_down_sync(FULL, v, 3, 16);
}

// shfl_f64_i64(const double *din, double *dout, const long long *lin, long long *lout)
//   dout[gid] = din value of lane (lane ^ 1) in the same warp (__shfl_xor_sync, mask 1);
//   lout[gid] = lin value of lane (lane - 2) if lane >= 2 else own (__shfl_up_sync, delta 2).
extern "C" __global__ void shfl_f64_i64(const double *din, double *dout, const long long *lin, long long *lout)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    dout[gid] = __shfl_xor_sync(FULL, din[gid], 1);
    lout[gid] = __shfl_up_sync(FULL, lin[gid], 2);
}

// shfl_partial_mask(const int *in, int *out)
//   Only even lanes participate (mask 0x55555555): for even lanes,
//   out[gid] = in value of lane (lane + 2) & 31 (always even); odd lanes write
//   out[gid] = -1 without shuffling.
extern "C" __global__ void shfl_partial_mask(const int *in, int *out)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    if ((lane & 1) == 0)
        out[gid] = __shfl_sync(0x55555555u, in[gid], (lane + 2) & 31);
    else
        out[gid] = -1;
}

// block_sum_shfl(const float *in, float *out, int n)
//   blockDim.x <= 1024, multiple of 32. Block sum via warp shuffles then a
//   32-entry static shared array of warp sums reduced by warp 0; thread 0 does
//   atomicAdd(out, block_sum). Elements >= n contribute 0.
extern "C" __global__ void block_sum_shfl(const float *in, float *out, int n)
{
    __shared__ float warp_part[32];
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    float v = gid < n ? in[gid] : 0.0f;
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_down_sync(FULL, v, off);
    if (lane == 0)
        warp_part[warp] = v;
    __syncthreads();
    if (warp == 0) {
        int nwarps = (blockDim.x + 31) >> 5;
        v = lane < nwarps ? warp_part[lane] : 0.0f;
        for (int off = 16; off > 0; off >>= 1)
            v += __shfl_down_sync(FULL, v, off);
        if (lane == 0)
            atomicAdd(out, v);
    }
}
