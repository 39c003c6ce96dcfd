/* per_thread.c - the _ptds/_ptsz entry points: the same calls with the
 * NULL stream meaning the calling thread's per-thread default stream
 * (what cuda.h binds to under CUDA_API_PER_THREAD_DEFAULT_STREAM, and what
 * cuGetProcAddress returns for CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM). */
#include "cu_internal.h"

#define PER_THREAD(call)                                                                       \
    do {                                                                                       \
        bool old_ = cu_tls_ptds;                                                               \
        cu_tls_ptds = true;                                                                    \
        CUresult r_ = call;                                                                    \
        cu_tls_ptds = old_;                                                                    \
        return r_;                                                                             \
    } while (0)

typedef CUdeviceptr dptr;

CUresult cuMemcpy_ptds(dptr d, dptr s, size_t n) { PER_THREAD(cuMemcpy(d, s, n)); }
CUresult cuMemcpyPeer_ptds(dptr d, CUcontext dc, dptr s, CUcontext sc, size_t n)
{
    PER_THREAD(cuMemcpyPeer(d, dc, s, sc, n));
}
CUresult cuMemcpyHtoD_v2_ptds(dptr d, const void *s, size_t n) { PER_THREAD(cuMemcpyHtoD_v2(d, s, n)); }
CUresult cuMemcpyDtoH_v2_ptds(void *d, dptr s, size_t n) { PER_THREAD(cuMemcpyDtoH_v2(d, s, n)); }
CUresult cuMemcpyDtoD_v2_ptds(dptr d, dptr s, size_t n) { PER_THREAD(cuMemcpyDtoD_v2(d, s, n)); }
CUresult cuMemcpy2D_v2_ptds(const CUDA_MEMCPY2D *p) { PER_THREAD(cuMemcpy2D_v2(p)); }
CUresult cuMemcpy2DUnaligned_v2_ptds(const CUDA_MEMCPY2D *p) { PER_THREAD(cuMemcpy2DUnaligned_v2(p)); }
CUresult cuMemcpy3D_v2_ptds(const CUDA_MEMCPY3D *p) { PER_THREAD(cuMemcpy3D_v2(p)); }
CUresult cuMemcpy3DPeer_ptds(const CUDA_MEMCPY3D_PEER *p) { PER_THREAD(cuMemcpy3DPeer(p)); }
CUresult cuMemsetD8_v2_ptds(dptr d, unsigned char v, size_t n) { PER_THREAD(cuMemsetD8_v2(d, v, n)); }
CUresult cuMemsetD16_v2_ptds(dptr d, unsigned short v, size_t n) { PER_THREAD(cuMemsetD16_v2(d, v, n)); }
CUresult cuMemsetD32_v2_ptds(dptr d, unsigned int v, size_t n) { PER_THREAD(cuMemsetD32_v2(d, v, n)); }
CUresult cuMemsetD2D8_v2_ptds(dptr d, size_t p, unsigned char v, size_t w, size_t h)
{
    PER_THREAD(cuMemsetD2D8_v2(d, p, v, w, h));
}
CUresult cuMemsetD2D16_v2_ptds(dptr d, size_t p, unsigned short v, size_t w, size_t h)
{
    PER_THREAD(cuMemsetD2D16_v2(d, p, v, w, h));
}
CUresult cuMemsetD2D32_v2_ptds(dptr d, size_t p, unsigned int v, size_t w, size_t h)
{
    PER_THREAD(cuMemsetD2D32_v2(d, p, v, w, h));
}

CUresult cuMemcpyAsync_ptsz(dptr d, dptr s, size_t n, CUstream st) { PER_THREAD(cuMemcpyAsync(d, s, n, st)); }
CUresult cuMemcpyPeerAsync_ptsz(dptr d, CUcontext dc, dptr s, CUcontext sc, size_t n, CUstream st)
{
    PER_THREAD(cuMemcpyPeerAsync(d, dc, s, sc, n, st));
}
CUresult cuMemcpyHtoDAsync_v2_ptsz(dptr d, const void *s, size_t n, CUstream st)
{
    PER_THREAD(cuMemcpyHtoDAsync_v2(d, s, n, st));
}
CUresult cuMemcpyDtoHAsync_v2_ptsz(void *d, dptr s, size_t n, CUstream st)
{
    PER_THREAD(cuMemcpyDtoHAsync_v2(d, s, n, st));
}
CUresult cuMemcpyDtoDAsync_v2_ptsz(dptr d, dptr s, size_t n, CUstream st)
{
    PER_THREAD(cuMemcpyDtoDAsync_v2(d, s, n, st));
}
CUresult cuMemcpy2DAsync_v2_ptsz(const CUDA_MEMCPY2D *p, CUstream st) { PER_THREAD(cuMemcpy2DAsync_v2(p, st)); }
CUresult cuMemcpy3DAsync_v2_ptsz(const CUDA_MEMCPY3D *p, CUstream st) { PER_THREAD(cuMemcpy3DAsync_v2(p, st)); }
CUresult cuMemcpy3DPeerAsync_ptsz(const CUDA_MEMCPY3D_PEER *p, CUstream st)
{
    PER_THREAD(cuMemcpy3DPeerAsync(p, st));
}
CUresult cuMemsetD8Async_ptsz(dptr d, unsigned char v, size_t n, CUstream st) { PER_THREAD(cuMemsetD8Async(d, v, n, st)); }
CUresult cuMemsetD16Async_ptsz(dptr d, unsigned short v, size_t n, CUstream st)
{
    PER_THREAD(cuMemsetD16Async(d, v, n, st));
}
CUresult cuMemsetD32Async_ptsz(dptr d, unsigned int v, size_t n, CUstream st) { PER_THREAD(cuMemsetD32Async(d, v, n, st)); }
CUresult cuMemsetD2D8Async_ptsz(dptr d, size_t p, unsigned char v, size_t w, size_t h, CUstream st)
{
    PER_THREAD(cuMemsetD2D8Async(d, p, v, w, h, st));
}
CUresult cuMemsetD2D16Async_ptsz(dptr d, size_t p, unsigned short v, size_t w, size_t h, CUstream st)
{
    PER_THREAD(cuMemsetD2D16Async(d, p, v, w, h, st));
}
CUresult cuMemsetD2D32Async_ptsz(dptr d, size_t p, unsigned int v, size_t w, size_t h, CUstream st)
{
    PER_THREAD(cuMemsetD2D32Async(d, p, v, w, h, st));
}
CUresult cuMemAllocAsync_ptsz(dptr *d, size_t n, CUstream st) { PER_THREAD(cuMemAllocAsync(d, n, st)); }
CUresult cuMemAllocFromPoolAsync_ptsz(dptr *d, size_t n, CUmemoryPool p, CUstream st)
{
    PER_THREAD(cuMemAllocFromPoolAsync(d, n, p, st));
}
CUresult cuMemFreeAsync_ptsz(dptr d, CUstream st) { PER_THREAD(cuMemFreeAsync(d, st)); }
CUresult cuStreamGetPriority_ptsz(CUstream s, int *p) { PER_THREAD(cuStreamGetPriority(s, p)); }
CUresult cuStreamGetFlags_ptsz(CUstream s, unsigned int *f) { PER_THREAD(cuStreamGetFlags(s, f)); }
CUresult cuStreamGetId_ptsz(CUstream s, unsigned long long *id) { PER_THREAD(cuStreamGetId(s, id)); }
CUresult cuStreamGetCtx_ptsz(CUstream s, CUcontext *c) { PER_THREAD(cuStreamGetCtx(s, c)); }
CUresult cuStreamGetCtx_v2_ptsz(CUstream s, CUcontext *c, CUgreenCtx *g) { PER_THREAD(cuStreamGetCtx_v2(s, c, g)); }
CUresult cuStreamGetDevice_ptsz(CUstream s, CUdevice *d) { PER_THREAD(cuStreamGetDevice(s, d)); }
CUresult cuStreamWaitEvent_ptsz(CUstream s, CUevent e, unsigned int f) { PER_THREAD(cuStreamWaitEvent(s, e, f)); }
CUresult cuStreamAddCallback_ptsz(CUstream s, CUstreamCallback cb, void *u, unsigned int f)
{
    PER_THREAD(cuStreamAddCallback(s, cb, u, f));
}
CUresult cuStreamAttachMemAsync_ptsz(CUstream s, dptr d, size_t n, unsigned int f)
{
    PER_THREAD(cuStreamAttachMemAsync(s, d, n, f));
}
CUresult cuStreamQuery_ptsz(CUstream s) { PER_THREAD(cuStreamQuery(s)); }
CUresult cuStreamSynchronize_ptsz(CUstream s) { PER_THREAD(cuStreamSynchronize(s)); }
CUresult cuStreamIsCapturing_ptsz(CUstream s, CUstreamCaptureStatus *c) { PER_THREAD(cuStreamIsCapturing(s, c)); }
CUresult cuStreamWriteValue32_v2_ptsz(CUstream s, dptr a, cuuint32_t v, unsigned int f)
{
    PER_THREAD(cuStreamWriteValue32_v2(s, a, v, f));
}
CUresult cuStreamWaitValue32_v2_ptsz(CUstream s, dptr a, cuuint32_t v, unsigned int f)
{
    PER_THREAD(cuStreamWaitValue32_v2(s, a, v, f));
}
CUresult cuStreamWriteValue64_v2_ptsz(CUstream s, dptr a, cuuint64_t v, unsigned int f)
{
    PER_THREAD(cuStreamWriteValue64_v2(s, a, v, f));
}
CUresult cuStreamWaitValue64_v2_ptsz(CUstream s, dptr a, cuuint64_t v, unsigned int f)
{
    PER_THREAD(cuStreamWaitValue64_v2(s, a, v, f));
}
CUresult cuEventRecord_ptsz(CUevent e, CUstream s) { PER_THREAD(cuEventRecord(e, s)); }
CUresult cuEventRecordWithFlags_ptsz(CUevent e, CUstream s, unsigned int f)
{
    PER_THREAD(cuEventRecordWithFlags(e, s, f));
}
CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
                             unsigned int bx, unsigned int by, unsigned int bz, unsigned int smem,
                             CUstream s, void **params, void **extra)
{
    PER_THREAD(cuLaunchKernel(f, gx, gy, gz, bx, by, bz, smem, s, params, extra));
}
CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig *c, CUfunction f, void **params, void **extra)
{
    PER_THREAD(cuLaunchKernelEx(c, f, params, extra));
}
CUresult cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned int gx, unsigned int gy,
                                        unsigned int gz, unsigned int bx, unsigned int by,
                                        unsigned int bz, unsigned int smem, CUstream s,
                                        void **params)
{
    PER_THREAD(cuLaunchCooperativeKernel(f, gx, gy, gz, bx, by, bz, smem, s, params));
}
CUresult cuLaunchHostFunc_ptsz(CUstream s, CUhostFn fn, void *u) { PER_THREAD(cuLaunchHostFunc(s, fn, u)); }
