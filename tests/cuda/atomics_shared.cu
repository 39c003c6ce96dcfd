// atomics_shared.cu -- atomics on shared memory (atom.shared.* / red.shared.*):
// privatised histograms, every atomic family on __shared__ operands, float and
// double shared atomics, then a global merge.

// histogram256(const unsigned char *data, int n, unsigned *hist)
//   hist has 256 bins (caller zeroes). Each block builds a private shared
//   histogram with atomicAdd over a grid-stride loop, then adds its non-zero
//   bins into hist with global atomicAdd. Final hist[b] = count of data[i] == b.
extern "C" __global__ void histogram256(const unsigned char *data, int n, unsigned *hist)
{
    __shared__ unsigned sh[256];
    for (int b = threadIdx.x; b < 256; b += blockDim.x)
        sh[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&sh[data[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += blockDim.x)
        if (sh[b])
            atomicAdd(&hist[b], sh[b]);
}

// shared_atomic_all(const int *in, int *out, int n)
//   One block-level result vector of 16 ints per block: out[16*blockIdx.x + k].
//   Each thread with gid < n takes v = in[gid] and applies to shared slots
//   (initialised: s[0]=0, s[1]=INT_MAX, s[2]=INT_MIN, s[3]=-1 (all ones), s[4]=0, s[5]=0,
//    s[6]=0, s[7]=100, s[8]=-1 (exchange target), s[9]=0 (CAS target), s[10]=0):
//     s[0] += v; s[1] = min(s[1], v); s[2] = max(s[2], v); s[3] &= v; s[4] |= v; s[5] ^= v;
//     s[6] = atomicInc(s[6], 15) wrap; s[7] -= 1; atomicExch(&s[8], threadIdx.x) (old discarded);
//     atomicCAS(&s[9], 0, threadIdx.x + 1) (first winner; non-deterministic which);
//     s[10] = atomicDec(s[10], 7).
//   Then after __syncthreads thread 0 copies s[0..10] to out[16*b + 0..10] and writes
//   out[16*b + 11] = (s[8] >= 0) ? 1 : 0, out[16*b + 12] = (s[9] != 0) ? 1 : 0,
//   out[16*b + 13..15] = 0.
//   Deterministic: k = 0..7, 10, 11 (if the block has a participating thread), 12 (likewise).
extern "C" __global__ void shared_atomic_all(const int *in, int *out, int n)
{
    __shared__ int s[11];
    if (threadIdx.x == 0) {
        s[0] = 0; s[1] = 0x7fffffff; s[2] = (int)0x80000000; s[3] = -1; s[4] = 0; s[5] = 0;
        s[6] = 0; s[7] = 100; s[8] = -1; s[9] = 0; s[10] = 0;
    }
    __syncthreads();
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid < n) {
        int v = in[gid];
        atomicAdd(&s[0], v);
        atomicMin(&s[1], v);
        atomicMax(&s[2], v);
        atomicAnd(&s[3], v);
        atomicOr(&s[4], v);
        atomicXor(&s[5], v);
        atomicInc((unsigned *)&s[6], 15u);
        atomicSub(&s[7], 1);
        atomicExch(&s[8], (int)threadIdx.x);
        atomicCAS(&s[9], 0, (int)threadIdx.x + 1);
        atomicDec((unsigned *)&s[10], 7u);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        int *o = out + 16 * blockIdx.x;
        for (int k = 0; k < 11; ++k)
            o[k] = s[k];
        o[11] = s[8] >= 0 ? 1 : 0;
        o[12] = s[9] != 0 ? 1 : 0;
        o[13] = o[14] = o[15] = 0;
    }
}

// shared_atomic_fp(const float *x, float *fsum, double *dsum, unsigned long long *usum, int n)
//   Per block: shared float/double/u64 accumulators updated with atomicAdd by every
//   gid < n (float adds x[gid]; double adds (double)x[gid]; u64 adds (u64)gid * 3);
//   thread 0 then atomically adds the block totals into fsum[0], dsum[0], usum[0].
//   With integer-valued x, float results are exact while totals < 2^24.
extern "C" __global__ void shared_atomic_fp(const float *x, float *fsum, double *dsum,
                                            unsigned long long *usum, int n)
{
    __shared__ float sf;
    __shared__ double sd;
    __shared__ unsigned long long su;
    if (threadIdx.x == 0) {
        sf = 0.0f; sd = 0.0; su = 0;
    }
    __syncthreads();
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid < n) {
        float v = x[gid];
        atomicAdd(&sf, v);
        atomicAdd(&sd, (double)v);
        atomicAdd(&su, (unsigned long long)gid * 3ull);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        atomicAdd(fsum, sf);
        atomicAdd(dsum, sd);
        atomicAdd(usum, su);
    }
}

// shared_ticket_order(int *ranks)
//   Within each block, ranks[gid] = atomicAdd_block on a shared counter starting at 0
//   (a permutation of 0..blockDim.x-1 per block); then ranks[gid] += blockIdx.x * 1000000.
extern "C" __global__ void shared_ticket_order(int *ranks)
{
    __shared__ int ctr;
    if (threadIdx.x == 0)
        ctr = 0;
    __syncthreads();
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int r = atomicAdd_block(&ctr, 1);
    ranks[gid] = r + (int)blockIdx.x * 1000000;
}
