// atomics_global.cu -- atomic read-modify-write on global memory: every
// atomic* family on 32/64-bit ints, float and double, with results used and
// unused (nvcc 13 emits atom.* with a dead destination either way); CAS loops
// including a 16-bit CAS (sm_70+); *_block and *_system scopes.
//
// gid = blockIdx.x * blockDim.x + threadIdx.x; only gid < n participate.
// Final values listed are independent of thread interleaving.

// atomic_add_kinds(int *ci, unsigned *cu, unsigned long long *cull, float *cf, double *cd, int n)
//   Each participating thread: atomicAdd(ci, 1); atomicAdd(cu, gid);
//   atomicAdd(cull, (unsigned long long)gid << 20); atomicAdd(cf, 1.0f); atomicAdd(cd, 0.5).
//   Results unused. Finals: ci += n; cu += n(n-1)/2 (mod 2^32);
//   cull += (n(n-1)/2) << 20; cf += n (exact while < 2^24); cd += n/2.
extern "C" __global__ void atomic_add_kinds(int *ci, unsigned *cu, unsigned long long *cull,
                                            float *cf, double *cd, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    atomicAdd(ci, 1);
    atomicAdd(cu, (unsigned)gid);
    atomicAdd(cull, (unsigned long long)gid << 20);
    atomicAdd(cf, 1.0f);
    atomicAdd(cd, 0.5);
}

// atomic_add_ticket(int *counter, int *tickets, float *fsum, float *fold, int n)
//   tickets[gid] = atomicAdd(counter, 1)  (old value: a permutation of start..start+n-1);
//   fold[gid] = atomicAdd(fsum, 2.0f)     (old value; set {s, s+2, ..., s+2(n-1)} if exact).
extern "C" __global__ void atomic_add_ticket(int *counter, int *tickets, float *fsum, float *fold, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid < n) {
        tickets[gid] = atomicAdd(counter, 1);
        fold[gid] = atomicAdd(fsum, 2.0f);
    }
}

// atomic_sub_minmax(const int *in, int *vals, unsigned *uvals, long long *lvals,
//                   unsigned long long *ulvals, int n)
//   v = in[gid]. vals[0] -= v (atomicSub); vals[1] = min (atomicMin int); vals[2] = max (atomicMax int);
//   uvals[0] = min over (unsigned)v; uvals[1] = max over (unsigned)v; uvals[2] -= (unsigned)v;
//   lvals[0] = min over (long long)v * 1000000; lvals[1] = max over the same (64-bit signed);
//   ulvals[0] = min over (unsigned long long)(unsigned)v; ulvals[1] = max over the same.
//   Initial contents are the caller's (each result is the reduction including the initial value).
extern "C" __global__ void atomic_sub_minmax(const int *in, int *vals, unsigned *uvals, long long *lvals,
                                             unsigned long long *ulvals, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    int v = in[gid];
    atomicSub(&vals[0], v);
    atomicMin(&vals[1], v);
    atomicMax(&vals[2], v);
    atomicMin(&uvals[0], (unsigned)v);
    atomicMax(&uvals[1], (unsigned)v);
    atomicSub(&uvals[2], (unsigned)v);
    atomicMin(&lvals[0], (long long)v * 1000000LL);
    atomicMax(&lvals[1], (long long)v * 1000000LL);
    atomicMin(&ulvals[0], (unsigned long long)(unsigned)v);
    atomicMax(&ulvals[1], (unsigned long long)(unsigned)v);
}

// atomic_inc_dec(unsigned *ctrs, unsigned limit, unsigned *olds, int n)
//   olds[gid] = atomicInc(&ctrs[0], limit)   (old >= limit ? 0 : old + 1);
//   atomicDec(&ctrs[1], limit)               ((old == 0 || old > limit) ? limit : old - 1), result unused.
//   From ctrs = {0, 0}: finals ctrs[0] = n % (limit + 1); ctrs[1] = (limit + 1 - n % (limit + 1)) % (limit + 1).
extern "C" __global__ void atomic_inc_dec(unsigned *ctrs, unsigned limit, unsigned *olds, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    olds[gid] = atomicInc(&ctrs[0], limit);
    atomicDec(&ctrs[1], limit);
}

// atomic_bitwise(const unsigned *in, unsigned *w32, unsigned long long *w64, int n)
//   v = in[gid]; w32[0] &= v; w32[1] |= v; w32[2] ^= v  (atomicAnd/Or/Xor, 32-bit);
//   with V = ((unsigned long long)v << 32) | ~v:  w64[0] &= V; w64[1] |= V; w64[2] ^= V (64-bit).
//   w32[3]: atomicOr(&w32[3], 1u << (gid & 31)) and its old value is stored nowhere.
extern "C" __global__ void atomic_bitwise(const unsigned *in, unsigned *w32, unsigned long long *w64, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    unsigned v = in[gid];
    atomicAnd(&w32[0], v);
    atomicOr(&w32[1], v);
    atomicXor(&w32[2], v);
    unsigned long long V = ((unsigned long long)v << 32) | (unsigned long long)(~v);
    atomicAnd(&w64[0], V);
    atomicOr(&w64[1], V);
    atomicXor(&w64[2], V);
    atomicOr(&w32[3], 1u << (gid & 31));
}

// atomic_exch_cas(int *slot, int *olds, unsigned long long *slot64, float *fslot, int n)
//   olds[gid] = atomicExch(slot, gid)       (old values + final *slot form a permutation of {init, 0..n-1});
//   atomicExch(slot64, gid) and atomicExch(fslot, (float)gid) with results unused.
extern "C" __global__ void atomic_exch_cas(int *slot, int *olds, unsigned long long *slot64, float *fslot, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    olds[gid] = atomicExch(slot, gid);
    atomicExch(slot64, (unsigned long long)gid);
    atomicExch(fslot, (float)gid);
}

__device__ __forceinline__ float cas_float_max(float *addr, float val)
{
    int *ia = (int *)addr;
    int old = *ia, assumed;
    do {
        assumed = old;
        if (__int_as_float(assumed) >= val)
            break;
        old = atomicCAS(ia, assumed, __float_as_int(val));
    } while (assumed != old);
    return __int_as_float(old);
}

__device__ __forceinline__ double cas_double_mul(double *addr, double f)
{
    unsigned long long *ua = (unsigned long long *)addr;
    unsigned long long old = *ua, assumed;
    do {
        assumed = old;
        old = atomicCAS(ua, assumed, __double_as_longlong(__longlong_as_double(assumed) * f));
    } while (assumed != old);
    return __longlong_as_double(old);
}

// atomic_cas_loops(const float *in, float *fmax_out, double *prod, unsigned short *u16slot, int n)
//   CAS-loop float max: *fmax_out = max(*fmax_out, in[gid]) (no NaNs in input);
//   CAS-loop double multiply: *prod *= (gid % 8 == 0 ? 2.0 : 1.0)
//   -> *prod scaled by 2^(number of gid < n with gid % 8 == 0);
//   16-bit CAS: lane 0 of each warp does atomicCAS(u16slot, 0, 0x1234) -- final 0x1234 if initially 0.
extern "C" __global__ void atomic_cas_loops(const float *in, float *fmax_out, double *prod,
                                            unsigned short *u16slot, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    cas_float_max(fmax_out, in[gid]);
    cas_double_mul(prod, (gid % 8 == 0) ? 2.0 : 1.0);
#if defined(__clang__)
    // clang's CUDA wrappers map the 16-bit atomicCAS to __usAtomicCAS, which only
    // nvcc's toolchain resolves; emit the same atom.global.cas.b16 directly.
    if ((threadIdx.x & 31) == 0) {
        unsigned short old16;
        asm volatile("atom.global.cas.b16 %0, [%1], %2, %3;"
                     : "=h"(old16)
                     : "l"(__cvta_generic_to_global(u16slot)), "h"((unsigned short)0), "h"((unsigned short)0x1234)
                     : "memory");
    }
#elif !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 700
    if ((threadIdx.x & 31) == 0)
        atomicCAS(u16slot, (unsigned short)0, (unsigned short)0x1234);
#endif
}

// block_spinlock_counter(int *lock, int *counter, int *order)
//   Thread 0 of every block acquires a global spin lock (atomicCAS(lock, 0, 1) loop,
//   __threadfence), does a plain (non-atomic) increment *counter += 1, records
//   order[blockIdx.x] = old counter value, fences and releases with atomicExch(lock, 0).
//   Final *counter = initial + gridDim.x; order[] is a permutation of initial .. initial+gridDim.x-1.
extern "C" __global__ void block_spinlock_counter(int *lock, int *counter, int *order)
{
    if (threadIdx.x != 0)
        return;
    while (atomicCAS(lock, 0, 1) != 0)
        ;
    __threadfence();
    volatile int *vc = counter;
    int c = *vc;
    order[blockIdx.x] = c;
    *vc = c + 1;
    __threadfence();
    atomicExch(lock, 0);
}

// atomic_scoped(int *iv, unsigned *uv, unsigned long long *ullv, float *fv, double *dv, int *olds, int n)
//   Block- and system-scope variants (atom.*.cta / atom.*.sys). Each thread (gid < n):
//   block/system-scoped atomics, one per slot:
//     iv[0] += 1 (block)      iv[1] += 2 (system)      iv[2] = max(iv[2], gid) (block)
//     iv[3] = min(iv[3], -gid) (system)                olds[gid] = atomicExch_block(&iv[4], gid)
//     atomicCAS_system(&iv[5], 0, 7)                   uv[0] |= 1<<(gid&31) (system)  uv[1] ^= gid (block)
//     uv[2] = atomicInc_system style wrap at 1000  (atomicInc_system(&uv[2], 999))
//     ullv[0] += gid (block)   ullv[1] += 1 (system)  fv[0] += 0.25f (block)  fv[1] += 1.0f (system)
//     dv[0] += 1.0 (block)     dv[1] += 0.5 (system)
extern "C" __global__ void atomic_scoped(int *iv, unsigned *uv, unsigned long long *ullv, float *fv,
                                         double *dv, int *olds, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    atomicAdd_block(&iv[0], 1);
    atomicAdd_system(&iv[1], 2);
    atomicMax_block(&iv[2], gid);
    atomicMin_system(&iv[3], -gid);
    olds[gid] = atomicExch_block(&iv[4], gid);
    atomicCAS_system(&iv[5], 0, 7);
    atomicOr_system(&uv[0], 1u << (gid & 31));
    atomicXor_block(&uv[1], (unsigned)gid);
    atomicInc_system(&uv[2], 999u);
    atomicAdd_block(&ullv[0], (unsigned long long)gid);
    atomicAdd_system(&ullv[1], 1ull);
    atomicAdd_block(&fv[0], 0.25f);
    atomicAdd_system(&fv[1], 1.0f);
    atomicAdd_block(&dv[0], 1.0);
    atomicAdd_system(&dv[1], 0.5);
}
