// warp_vote.cu -- warp votes and warp-level collectives: __all_sync,
// __any_sync, __ballot_sync, __activemask, __match_any_sync,
// __match_all_sync, __reduce_*_sync (sm_80+, with a shuffle fallback below
// sm_80), warp-aggregated atomics, __syncwarp.
//
// lane = threadIdx.x & 31, warp_id = gid >> 5 (blockDim.x a multiple of 32).

#define FULL 0xffffffffu

// vote_all_any(const int *in, int *out_all, int *out_any)
//   For each warp w (lane 0 writes): out_all[w] = 1 if in[g] != 0 for all 32 lanes else 0;
//   out_any[w] = 1 if in[g] != 0 for some lane else 0.
extern "C" __global__ void vote_all_any(const int *in, int *out_all, int *out_any)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int p = in[gid] != 0;
    int a = __all_sync(FULL, p);
    int y = __any_sync(FULL, p);
    if ((threadIdx.x & 31) == 0) {
        out_all[gid >> 5] = a ? 1 : 0;
        out_any[gid >> 5] = y ? 1 : 0;
    }
}

// ballot_popc(const float *in, float thresh, unsigned *ballots, int *counts, int *ranks)
//   b = ballot of (in[gid] > thresh) over the warp (bit l = lane l).
//   lane 0: ballots[warp_id] = b; counts[warp_id] = popcount(b).
//   every lane: ranks[gid] = popcount(b & ((1 << lane) - 1))  (number of set lanes below it).
extern "C" __global__ void ballot_popc(const float *in, float thresh, unsigned *ballots, int *counts, int *ranks)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned lane = threadIdx.x & 31;
    unsigned b = __ballot_sync(FULL, in[gid] > thresh);
    if (lane == 0) {
        ballots[gid >> 5] = b;
        counts[gid >> 5] = __popc(b);
    }
    ranks[gid] = __popc(b & ((1u << lane) - 1u));
}

// activemask_divergent(unsigned *out)
//   Lanes with lane % 3 == 0 write out[gid] = __activemask() taken inside that branch
//   (expected 0x49249249 for a full warp, i.e. bits 0,3,6,...,30); other lanes write
//   out[gid] = __activemask() in the else branch (the complement, 0xb6db6db6).
//   Note: __activemask() is only a hint on real GPUs; reconvergence makes these exact
//   on GPUs with independent thread scheduling in practice.
extern "C" __global__ void activemask_divergent(unsigned *out)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned lane = threadIdx.x & 31;
    if (lane % 3 == 0)
        out[gid] = __activemask();
    else
        out[gid] = __activemask();
}

// match_keys(const int *keys, unsigned *any_masks, unsigned *all_masks, int *all_pred)
//   any_masks[gid] = set of lanes in the warp whose key equals this lane's key (__match_any_sync).
//   all_masks[gid] = FULL if all 32 keys are equal else 0 (__match_all_sync);
//   all_pred[gid] = 1 if all equal else 0.
extern "C" __global__ void match_keys(const int *keys, unsigned *any_masks, unsigned *all_masks, int *all_pred)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int k = keys[gid];
    int pred;
    any_masks[gid] = __match_any_sync(FULL, k);
    all_masks[gid] = __match_all_sync(FULL, k, &pred);
    all_pred[gid] = pred ? 1 : 0;
}

// match_keys_u64(const unsigned long long *keys, unsigned *any_masks)
//   64-bit key variant: any_masks[gid] = __match_any_sync(FULL, keys[gid]) (match.any.sync.b64).
extern "C" __global__ void match_keys_u64(const unsigned long long *keys, unsigned *any_masks)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    any_masks[gid] = __match_any_sync(FULL, keys[gid]);
}

// warp_reduce_ops(const unsigned *in, unsigned *out)
//   For each warp w, lane 0 writes 6 results out[6*w + k]:
//   k=0 sum (unsigned, wraps), k=1 min (unsigned), k=2 max (unsigned),
//   k=3 bitwise AND, k=4 bitwise OR, k=5 bitwise XOR of the warp's 32 values.
//   sm_80+: redux.sync via __reduce_*_sync; below sm_80: __shfl_xor_sync butterflies.
extern "C" __global__ void warp_reduce_ops(const unsigned *in, unsigned *out)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = in[gid];
    unsigned s, mn, mx, a, o, x;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    s = __reduce_add_sync(FULL, v);
    mn = __reduce_min_sync(FULL, v);
    mx = __reduce_max_sync(FULL, v);
    a = __reduce_and_sync(FULL, v);
    o = __reduce_or_sync(FULL, v);
    x = __reduce_xor_sync(FULL, v);
#else
    s = mn = mx = a = o = x = v;
    for (int m = 16; m > 0; m >>= 1) {
        s += __shfl_xor_sync(FULL, s, m);
        mn = min(mn, __shfl_xor_sync(FULL, mn, m));
        mx = max(mx, __shfl_xor_sync(FULL, mx, m));
        a &= __shfl_xor_sync(FULL, a, m);
        o |= __shfl_xor_sync(FULL, o, m);
        x ^= __shfl_xor_sync(FULL, x, m);
    }
#endif
    if ((threadIdx.x & 31) == 0) {
        unsigned *w = out + 6 * (gid >> 5);
        w[0] = s; w[1] = mn; w[2] = mx; w[3] = a; w[4] = o; w[5] = x;
    }
}

// warp_reduce_signed(const int *in, int *out)
//   Per warp, lane 0 writes out[3*w+0] = sum, out[3*w+1] = signed min, out[3*w+2] = signed max.
//   sm_80+: __reduce_add_sync/__reduce_min_sync/__reduce_max_sync on int (redux.sync.*.s32).
extern "C" __global__ void warp_reduce_signed(const int *in, int *out)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[gid];
    int s, mn, mx;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    s = __reduce_add_sync(FULL, v);
    mn = __reduce_min_sync(FULL, v);
    mx = __reduce_max_sync(FULL, v);
#else
    s = mn = mx = v;
    for (int m = 16; m > 0; m >>= 1) {
        s += __shfl_xor_sync(FULL, s, m);
        mn = min(mn, __shfl_xor_sync(FULL, mn, m));
        mx = max(mx, __shfl_xor_sync(FULL, mx, m));
    }
#endif
    if ((threadIdx.x & 31) == 0) {
        out[3 * (gid >> 5) + 0] = s;
        out[3 * (gid >> 5) + 1] = mn;
        out[3 * (gid >> 5) + 2] = mx;
    }
}

// aggregated_append(const int *in, int n, int *out, int *out_count)
//   Stream compaction: every gid < n with in[gid] > 0 appends in[gid] to out[] using one
//   atomicAdd(out_count, k) per warp (leader = lowest active lane with a positive value,
//   found with __ballot_sync + __ffs; rank from __popc of the lanes below).
//   After the kernel, out[0 .. *out_count) holds the positive inputs in an unspecified
//   order (a permutation), and *out_count = number of positive inputs.
extern "C" __global__ void aggregated_append(const int *in, int n, int *out, int *out_count)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned lane = threadIdx.x & 31;
    int v = gid < n ? in[gid] : 0;
    unsigned want = __ballot_sync(FULL, v > 0);
    if (v > 0) {
        int leader = __ffs(want) - 1;
        int base = 0;
        if ((int)lane == leader)
            base = atomicAdd(out_count, __popc(want));
        base = __shfl_sync(want, base, leader);
        out[base + __popc(want & ((1u << lane) - 1u))] = v;
    }
}

// syncwarp_shared_reduce(const int *in, int *out)
//   blockDim.x == 64 (two warps). Warp-synchronous tree in shared memory separated by
//   __syncwarp(); out[blockIdx.x * 2 + warp] = sum of that warp's 32 inputs.
extern "C" __global__ void syncwarp_shared_reduce(const int *in, int *out)
{
    __shared__ int s[64];
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned t = threadIdx.x, lane = t & 31;
    s[t] = in[gid];
    __syncwarp();
    for (unsigned off = 16; off > 0; off >>= 1) {
        int v = 0;
        if (lane < off)
            v = s[t + off];
        __syncwarp();
        if (lane < off)
            s[t] += v;
        __syncwarp();
    }
    if (lane == 0)
        out[blockIdx.x * 2 + (t >> 5)] = s[t];
}
