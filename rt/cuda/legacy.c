/* legacy.c - unversioned entry points of older CUDA releases (see
 * legacy.h): most behave as today's versions; the CUDA 2.x forms with
 * 32-bit device pointers are stubs (stubs.def). */
#define PTXJIT_CUDA_NO_MACROS
#include "legacy.h"

CUresult cuCtxCreate(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
    return cuCtxCreate_v2(pctx, flags, dev);
}
CUresult cuCtxDestroy(CUcontext ctx) { return cuCtxDestroy_v2(ctx); }
CUresult cuCtxPopCurrent(CUcontext *pctx) { return cuCtxPopCurrent_v2(pctx); }
CUresult cuCtxPushCurrent(CUcontext ctx) { return cuCtxPushCurrent_v2(ctx); }
CUresult cuStreamDestroy(CUstream hStream) { return cuStreamDestroy_v2(hStream); }
CUresult cuEventDestroy(CUevent hEvent) { return cuEventDestroy_v2(hEvent); }
CUresult cuEventElapsedTime(float *ms, CUevent hStart, CUevent hEnd)
{
    return cuEventElapsedTime_v2(ms, hStart, hEnd);
}
CUresult cuDevicePrimaryCtxRelease(CUdevice dev) { return cuDevicePrimaryCtxRelease_v2(dev); }
CUresult cuDevicePrimaryCtxReset(CUdevice dev) { return cuDevicePrimaryCtxReset_v2(dev); }
CUresult cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned int flags)
{
    return cu_primary_set_flags_v1(dev, flags);
}
CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev) { return cuDeviceGetUuid_v2(uuid, dev); }
CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags)
{
    return cuGetProcAddress_v2(symbol, pfn, cudaVersion, flags, NULL);
}
CUresult cuLinkCreate(unsigned int n, CUjit_option *options, void **values, CUlinkState *stateOut)
{
    return cuLinkCreate_v2(n, options, values, stateOut);
}
CUresult cuLinkAddData(CUlinkState state, CUjitInputType type, void *data, size_t size,
                       const char *name, unsigned int n, CUjit_option *options, void **values)
{
    return cuLinkAddData_v2(state, type, data, size, name, n, options, values);
}
CUresult cuLinkAddFile(CUlinkState state, CUjitInputType type, const char *path, unsigned int n,
                       CUjit_option *options, void **values)
{
    return cuLinkAddFile_v2(state, type, path, n, options, values);
}
CUresult cuMemHostRegister(void *p, size_t bytesize, unsigned int Flags)
{
    return cuMemHostRegister_v2(p, bytesize, Flags);
}

/* CUDA 8's advice and prefetch name a device, CU_DEVICE_CPU for the host. */
static CUmemLocation location_of(CUdevice d)
{
    if (d == CU_DEVICE_CPU)
        return (CUmemLocation){CU_MEM_LOCATION_TYPE_HOST, 0};
    return (CUmemLocation){d == 0 ? CU_MEM_LOCATION_TYPE_DEVICE : CU_MEM_LOCATION_TYPE_INVALID, d};
}

CUresult cuMemAdvise(CUdeviceptr devPtr, size_t count, CUmem_advise advice, CUdevice device)
{
    return cuMemAdvise_v2(devPtr, count, advice, location_of(device));
}
CUresult cuMemPrefetchAsync(CUdeviceptr devPtr, size_t count, CUdevice dstDevice, CUstream s)
{
    return cuMemPrefetchAsync_v2(devPtr, count, location_of(dstDevice), 0, s);
}
CUresult cuMemPrefetchAsync_ptsz(CUdeviceptr devPtr, size_t count, CUdevice dstDevice, CUstream s)
{
    return cuMemPrefetchAsync_v2_ptsz(devPtr, count, location_of(dstDevice), 0, s);
}

/* CUDA 8's stream memory operations have today's signatures. */
CUresult cuStreamWaitValue32(CUstream s, CUdeviceptr a, cuuint32_t v, unsigned int f)
{
    return cuStreamWaitValue32_v2(s, a, v, f);
}
CUresult cuStreamWaitValue64(CUstream s, CUdeviceptr a, cuuint64_t v, unsigned int f)
{
    return cuStreamWaitValue64_v2(s, a, v, f);
}
CUresult cuStreamWriteValue32(CUstream s, CUdeviceptr a, cuuint32_t v, unsigned int f)
{
    return cuStreamWriteValue32_v2(s, a, v, f);
}
CUresult cuStreamWriteValue64(CUstream s, CUdeviceptr a, cuuint64_t v, unsigned int f)
{
    return cuStreamWriteValue64_v2(s, a, v, f);
}
CUresult cuStreamWaitValue32_ptsz(CUstream s, CUdeviceptr a, cuuint32_t v, unsigned int f)
{
    return cuStreamWaitValue32_v2_ptsz(s, a, v, f);
}
CUresult cuStreamWaitValue64_ptsz(CUstream s, CUdeviceptr a, cuuint64_t v, unsigned int f)
{
    return cuStreamWaitValue64_v2_ptsz(s, a, v, f);
}
CUresult cuStreamWriteValue32_ptsz(CUstream s, CUdeviceptr a, cuuint32_t v, unsigned int f)
{
    return cuStreamWriteValue32_v2_ptsz(s, a, v, f);
}
CUresult cuStreamWriteValue64_ptsz(CUstream s, CUdeviceptr a, cuuint64_t v, unsigned int f)
{
    return cuStreamWriteValue64_v2_ptsz(s, a, v, f);
}
