// memory_model.cu -- the PTX memory model as CUDA C++ reaches it: message
// passing along a chain of blocks with cuda::atomic_ref release/acquire and
// with the classic volatile flag + __threadfence(), store buffering with
// cuda::atomic_thread_fence(seq_cst), atomic_ref read-modify-writes with
// every memory order at block, device and system scope, and a volatile
// global mailbox between two warps of one block.
//
// Blocks only ever wait for blocks with a lower index, so the kernels
// finish however few blocks run at once (a block that waits has every
// block it waits for already started or finished), except store_buffer_sc,
// whose two blocks must run at the same time.
#include <cuda/atomic>

// chain_release_acquire(int *data, int *flags, int *stale)
//   blockDim.x == 32. Block 0: data[lane] = lane. Block b > 0: every lane spins on
//   atomic_ref<int, device>(flags[b-1]).load(acquire) until it is 1, reads
//   v = data[(b-1)*32 + lane] (plain load), counts v != lane + (b-1)*b/2 into
//   *stale (atomicAdd), and writes data[b*32 + lane] = v + b. Then __syncwarp()
//   and lane 0 stores flags[b] = 1 with store(release).
//   Result: data[b*32 + l] = l + b(b+1)/2, flags[b] = 1, *stale = 0.
extern "C" __global__ void chain_release_acquire(int *data, int *flags, int *stale)
{
    unsigned b = blockIdx.x, lane = threadIdx.x;
    int v = (int)lane;
    if (b > 0) {
        cuda::atomic_ref<int, cuda::thread_scope_device> prev(flags[b - 1]);
        while (prev.load(cuda::std::memory_order_acquire) != 1)
            ;
        v = data[(b - 1) * 32 + lane];
        if (v != (int)(lane + (b - 1) * b / 2))
            atomicAdd(stale, 1);
        v += (int)b;
    }
    data[b * 32 + lane] = v;
    __syncwarp();
    if (lane == 0) {
        cuda::atomic_ref<int, cuda::thread_scope_device> mine(flags[b]);
        mine.store(1, cuda::std::memory_order_release);
    }
}

// chain_volatile_fence(int *data, int *flags, int *stale)
//   As chain_release_acquire, written the pre-libcu++ way: the waiters spin on
//   a volatile load of flags[b-1], then __threadfence(); the publisher writes
//   its data, __threadfence(), __syncwarp(), and lane 0 stores 1 through a
//   volatile pointer. Same result.
extern "C" __global__ void chain_volatile_fence(int *data, int *flags, int *stale)
{
    unsigned b = blockIdx.x, lane = threadIdx.x;
    volatile int *vf = flags;
    int v = (int)lane;
    if (b > 0) {
        while (vf[b - 1] != 1)
            ;
        __threadfence();
        v = data[(b - 1) * 32 + lane];
        if (v != (int)(lane + (b - 1) * b / 2))
            atomicAdd(stale, 1);
        v += (int)b;
    }
    data[b * 32 + lane] = v;
    __threadfence();
    __syncwarp();
    if (lane == 0)
        vf[b] = 1;
}

// store_buffer_sc(int *xy, int *r, unsigned *go, int rounds)
//   Two blocks; thread 0 of each works. Round i: both meet (atomicAdd(go, 1), then
//   spin until *go >= 2(i+1), relaxed loads), then block k stores
//   xy[k*rounds + i] = 1 (relaxed, device scope), cuda::atomic_thread_fence(seq_cst,
//   device), and r[k*rounds + i] = xy[(1-k)*rounds + i] (relaxed load).
//   The memory model forbids r[i] == 0 && r[rounds + i] == 0 for any i.
extern "C" __global__ void store_buffer_sc(int *xy, int *r, unsigned *go, int rounds)
{
    if (threadIdx.x != 0)
        return;
    unsigned k = blockIdx.x;
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> meet(*go);
    for (int i = 0; i < rounds; ++i) {
        meet.fetch_add(1, cuda::std::memory_order_relaxed);
        while (meet.load(cuda::std::memory_order_relaxed) < 2u * (unsigned)(i + 1))
            ;
        cuda::atomic_ref<int, cuda::thread_scope_device> mine(xy[k * rounds + i]);
        cuda::atomic_ref<int, cuda::thread_scope_device> other(xy[(1 - k) * rounds + i]);
        mine.store(1, cuda::std::memory_order_relaxed);
        cuda::atomic_thread_fence(cuda::std::memory_order_seq_cst, cuda::thread_scope_device);
        r[k * rounds + i] = other.load(cuda::std::memory_order_relaxed);
    }
}

// atomic_ref_orders(int *iv, unsigned long long *uv, int *olds, int n)
//   For gid < n (any grid):
//     iv[0]: fetch_add(1, acq_rel), device scope; the old value goes to olds[gid]
//     iv[1]: fetch_sub(2, seq_cst), system scope
//     iv[2]: fetch_max(gid, release), device scope
//     iv[3]: fetch_min(-gid, acquire), block scope
//     iv[4]: exchange(gid, acq_rel), device scope
//     iv[5]: compare_exchange_strong(expected = 0, 1000 + gid, seq_cst, relaxed): one winner
//     uv[0]: fetch_add(gid, relaxed), system scope, 64-bit
//     uv[1]: fetch_xor(1ull << (gid & 63), acquire), device scope
//   In a block's shared memory, atomic_ref<int, block> s: every thread fetch_add(1, seq_cst),
//   __syncthreads(), thread 0 adds s.load(acquire) into iv[6] (atomicAdd).
//   Finals (initial iv = {0,0,INT_MIN,INT_MAX,-1,0,0}, uv = {0,0}):
//     iv[0] = n, olds a permutation of 0..n-1; iv[1] = -2n; iv[2] = n-1; iv[3] = -(n-1);
//     iv[4] = the gid of the last exchange, in [0, n); iv[5] = 1000 + some gid < n;
//     iv[6] = blockDim.x * gridDim.x; uv[0] = n(n-1)/2;
//     uv[1] = XOR over gid < n of 1 << (gid & 63).
extern "C" __global__ void atomic_ref_orders(int *iv, unsigned long long *uv, int *olds, int n)
{
    __shared__ int s;
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0)
        s = 0;
    __syncthreads();
    if (gid < n) {
        using namespace cuda::std;
        cuda::atomic_ref<int, cuda::thread_scope_device> a0(iv[0]);
        olds[gid] = a0.fetch_add(1, memory_order_acq_rel);
        cuda::atomic_ref<int, cuda::thread_scope_system> a1(iv[1]);
        a1.fetch_sub(2, memory_order_seq_cst);
        cuda::atomic_ref<int, cuda::thread_scope_device> a2(iv[2]);
        a2.fetch_max(gid, memory_order_release);
        cuda::atomic_ref<int, cuda::thread_scope_block> a3(iv[3]);
        a3.fetch_min(-gid, memory_order_acquire);
        cuda::atomic_ref<int, cuda::thread_scope_device> a4(iv[4]);
        a4.exchange(gid, memory_order_acq_rel);
        cuda::atomic_ref<int, cuda::thread_scope_device> a5(iv[5]);
        int expected = 0;
        a5.compare_exchange_strong(expected, 1000 + gid, memory_order_seq_cst, memory_order_relaxed);
        cuda::atomic_ref<unsigned long long, cuda::thread_scope_system> u0(uv[0]);
        u0.fetch_add((unsigned long long)gid, memory_order_relaxed);
        cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> u1(uv[1]);
        u1.fetch_xor(1ull << (gid & 63), memory_order_acquire);
    }
    cuda::atomic_ref<int, cuda::thread_scope_block> sh(s);
    sh.fetch_add(1, cuda::std::memory_order_seq_cst);
    __syncthreads();
    if (threadIdx.x == 0)
        atomicAdd(&iv[6], sh.load(cuda::std::memory_order_acquire));
}

// volatile_mailbox(int *box, int *out)
//   One block of 64 threads. Warp 1 lane 0 spins until the volatile word box[0] is
//   nonzero, then __threadfence_block() and copies box[1..32] into out[0..31].
//   Warp 0: lanes write box[1 + lane] = 3*lane + 7 through a volatile pointer,
//   __threadfence_block(), __syncwarp(), lane 0 sets box[0] = 1 (volatile).
//   Result: out[k] = 3k + 7. (The warps must make independent progress.)
//   Caller zeroes box[0].
extern "C" __global__ void volatile_mailbox(int *box, int *out)
{
    volatile int *vb = box;
    unsigned lane = threadIdx.x & 31;
    if (threadIdx.x >= 32) {
        if (lane == 0) {
            while (vb[0] == 0)
                ;
            __threadfence_block();
            for (int k = 0; k < 32; ++k)
                out[k] = vb[1 + k];
        }
    } else {
        vb[1 + lane] = 3 * (int)lane + 7;
        __threadfence_block();
        __syncwarp();
        if (lane == 0)
            vb[0] = 1;
    }
}
