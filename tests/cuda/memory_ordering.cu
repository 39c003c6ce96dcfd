// memory_ordering.cu -- fences, volatile accesses and acquire/release
// message passing: __threadfence / __threadfence_block / __threadfence_system,
// the "last block finishes the reduction" pattern, cuda::atomic_ref with
// explicit memory orders and scopes, and an intra-block producer/consumer
// flag handshake through shared memory.
#include <cuda/atomic>

// last_block_sum(const float *in, int n, float *partials, unsigned *done_count, float *result)
//   blockDim.x == 256. Each block reduces in[blockIdx.x*256 .. +256) (out-of-range = 0)
//   into partials[blockIdx.x] (same shared tree as reduce_sum_static), thread 0 then
//   __threadfence() and t = atomicInc(done_count, gridDim.x - 1); the block that sees
//   t == gridDim.x - 1 (the last one) sums partials[0 .. gridDim.x) in index order
//   (sequential float adds by thread 0) into *result and resets *done_count to 0.
//   Caller zeroes *done_count before the first launch.
extern "C" __global__ void last_block_sum(const float *in, int n, float *partials, unsigned *done_count,
                                          float *result)
{
    __shared__ float s[256];
    __shared__ bool am_last;
    unsigned t = threadIdx.x;
    unsigned i = blockIdx.x * 256 + t;
    s[t] = i < (unsigned)n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned st = 128; st > 0; st >>= 1) {
        if (t < st)
            s[t] += s[t + st];
        __syncthreads();
    }
    if (t == 0) {
        partials[blockIdx.x] = s[0];
        __threadfence();
        unsigned ticket = atomicInc(done_count, gridDim.x - 1);
        am_last = (ticket == gridDim.x - 1);
    }
    __syncthreads();
    if (am_last && t == 0) {
        volatile float *vp = partials;
        float total = 0.0f;
        for (unsigned b = 0; b < gridDim.x; ++b)
            total += vp[b];
        *result = total;
        *done_count = 0;
    }
}

// atomic_ref_counters(int *counter, unsigned long long *max64, int *flags, int n)
//   cuda::atomic_ref (libcu++) with scopes and memory orders, for gid < n:
//     device scope: old = counter->fetch_add(1, relaxed);
//     system scope: raise *max64 to (u64)old with a load(acquire) + compare_exchange_weak
//                   (acq_rel on success, relaxed on failure) loop;
//     block scope:  flags[blockIdx.x] fetch_or(1 << (threadIdx.x & 31), seq_cst).
//   Finals: *counter += n; *max64 = max(initial, start + n - 1); flags[b] = OR of lane bits.
extern "C" __global__ void atomic_ref_counters(int *counter, unsigned long long *max64, int *flags, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    cuda::atomic_ref<int, cuda::thread_scope_device> c(*counter);
    int old = c.fetch_add(1, cuda::std::memory_order_relaxed);
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_system> m(*max64);
    unsigned long long want = (unsigned long long)old;
    unsigned long long cur = m.load(cuda::std::memory_order_acquire);
    while (cur < want && !m.compare_exchange_weak(cur, want, cuda::std::memory_order_acq_rel,
                                                  cuda::std::memory_order_relaxed))
        ;
    cuda::atomic_ref<int, cuda::thread_scope_block> f(flags[blockIdx.x]);
    f.fetch_or(1 << (threadIdx.x & 31), cuda::std::memory_order_seq_cst);
}

// release_acquire_pair(int *data, int *flag, int *observed)
//   One block of 64 threads (two warps). Warp 0 lane 0 (producer) writes data[0..31] = k*k+1
//   with plain stores, then flag->store(1, release) at device scope.
//   Warp 1 lane 0 (consumer) spins on flag->load(acquire) until 1, then copies
//   data[0..31] into observed[0..31]. observed[k] must equal k*k+1.
//   (Requires the two warps to make independent progress.) Caller zeroes *flag.
extern "C" __global__ void release_acquire_pair(int *data, int *flag, int *observed)
{
    cuda::atomic_ref<int, cuda::thread_scope_device> f(*flag);
    if (threadIdx.x == 0) {
        for (int k = 0; k < 32; ++k)
            data[k] = k * k + 1;
        f.store(1, cuda::std::memory_order_release);
    } else if (threadIdx.x == 32) {
        while (f.load(cuda::std::memory_order_acquire) == 0)
            ;
        for (int k = 0; k < 32; ++k)
            observed[k] = data[k];
    }
}

// shared_flag_handshake(const int *in, int *out)
//   blockDim.x == 64. Warp 0 copies in[blockIdx.x*32 + lane] * 2 into a shared buffer,
//   __threadfence_block(), then lane 0 sets a volatile shared flag to 1. Warp 1 spins on
//   the volatile flag, __threadfence_block(), and writes
//   out[blockIdx.x*32 + lane] = buffer[31 - lane] + 1.
extern "C" __global__ void shared_flag_handshake(const int *in, int *out)
{
    __shared__ int buf[32];
    __shared__ volatile int ready;
    unsigned lane = threadIdx.x & 31;
    if (threadIdx.x == 0)
        ready = 0;
    __syncthreads();
    if (threadIdx.x < 32) {
        buf[lane] = in[blockIdx.x * 32 + lane] * 2;
        __threadfence_block();
        __syncwarp();
        if (lane == 0)
            ready = 1;
    } else {
        while (ready == 0)
            ;
        __threadfence_block();
        out[blockIdx.x * 32 + lane] = buf[31 - lane] + 1;
    }
}

// fence_system_publish(int *mailbox, int *seq, int value)
//   Thread 0 of block 0 writes mailbox[0] = value, __threadfence_system(), then
//   volatile-stores *seq = *seq + 1. Others do nothing. (membar.sys / fence.sc.sys)
extern "C" __global__ void fence_system_publish(int *mailbox, int *seq, int value)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        mailbox[0] = value;
        __threadfence_system();
        volatile int *vs = seq;
        *vs = *vs + 1;
    }
}

// thread_fence_orders(int *a, int *b)
//   Thread 0: a[0] = 1; atomic_thread_fence(seq_cst, device); a[1] = 2;
//   cuda::atomic_thread_fence(acq_rel, block); a[2] = 3;
//   cuda::atomic_thread_fence(release, system); b[0] = a[0] + a[1] + a[2] (= 6).
extern "C" __global__ void thread_fence_orders(int *a, int *b)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        a[0] = 1;
        cuda::atomic_thread_fence(cuda::std::memory_order_seq_cst, cuda::thread_scope_device);
        a[1] = 2;
        cuda::atomic_thread_fence(cuda::std::memory_order_acq_rel, cuda::thread_scope_block);
        a[2] = 3;
        cuda::atomic_thread_fence(cuda::std::memory_order_release, cuda::thread_scope_system);
        b[0] = a[0] + a[1] + a[2];
    }
}
