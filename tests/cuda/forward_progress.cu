// forward_progress.cu -- lanes of one warp spinning on a lock another lane of
// the same warp holds (needs Volta-style independent progress).

// warp_spinlock(int *lock, int *counter, int *order)
//   Every thread loops: atomicCAS(lock, 0, 1); the winner increments *counter
//   (plain read-modify-write), records order[threadIdx + blockIdx*blockDim] =
//   old counter, fences and releases with atomicExch(lock, 0), then leaves the
//   loop.  Final *counter = initial + number of threads; order[] is a
//   permutation of initial .. initial + nthreads - 1.
extern "C" __global__ void warp_spinlock(int *lock, int *counter, int *order)
{
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    bool done = false;
    while (!done) {
        if (atomicCAS(lock, 0, 1) == 0) {
            int old = *(volatile int *)counter;
            *(volatile int *)counter = old + 1;
            order[gid] = old;
            __threadfence();
            atomicExch(lock, 0);
            done = true;
        }
    }
}

// spin_until_flag(int *flag, int *out)
//   Lane 0 of each warp waits (spinning on a volatile load) until lane 31 of
//   the same warp has set flag[warp] = 1; lane 31 sets it after a delay loop.
//   out[gid] = 1 for every thread that finishes.  Launch with 32-thread
//   multiples.
extern "C" __global__ void spin_until_flag(int *flag, int *out)
{
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned warp = gid / 32, lane = threadIdx.x % 32;
    if (lane == 0) {
        while (*(volatile int *)&flag[warp] == 0)
            ;
    } else if (lane == 31) {
        int x = 0;
        for (int i = 0; i < 100; i++)
            x += i;
        *(volatile int *)&flag[warp] = x > 0;
    }
    out[gid] = 1;
}

// loop_then_barrier(int *out)
//   blockDim.x <= 256. Thread t loops 3*t times accumulating (int)(i ^ t) for
//   i in [0, 3t), stores the sum in shared s[t], __syncthreads, then writes
//   out[blockIdx.x * blockDim.x + t] = s[(t + 1) % blockDim.x].  Lanes of a
//   warp leave the loop at different times and must all reach the barrier
//   before any of them passes it.
extern "C" __global__ void loop_then_barrier(int *out)
{
    __shared__ int s[256];
    unsigned t = threadIdx.x;
    int acc = 0;
    for (unsigned i = 0; i < t * 3; i++)
        acc += (int)(i ^ t);
    s[t] = acc;
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = s[(t + 1) % blockDim.x];
}
