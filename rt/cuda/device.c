/* device.c - device enumeration and identity: one device, ordinal 0, on
 * PCI address 0000:00:00.0. */
#include "cu_internal.h"

#include <stdio.h>
#include <string.h>

CUresult cuDeviceGetCount(int *count)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!count)
        return CUDA_ERROR_INVALID_VALUE;
    *count = 1;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *device, int ordinal)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!device)
        return CUDA_ERROR_INVALID_VALUE;
    if (ordinal != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    *device = 0;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
    CUresult r = cu_check_device(dev);
    if (r)
        return r;
    if (!name || len <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    snprintf(name, (size_t)len, "%s", cu_device()->name);
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev)
{
    CUresult r = cu_check_device(dev);
    if (r)
        return r;
    if (!uuid)
        return CUDA_ERROR_INVALID_VALUE;
    *uuid = cu_device()->uuid;
    return CUDA_SUCCESS;
}

/* LUIDs exist on Windows only. */
CUresult cuDeviceGetLuid(char *luid, unsigned int *deviceNodeMask, CUdevice dev)
{
    CUresult r = cu_check_device(dev);
    if (r)
        return r;
    if (!luid || !deviceNodeMask)
        return CUDA_ERROR_INVALID_VALUE;
    return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
    CUresult r = cu_check_device(dev);
    if (r)
        return r;
    if (!bytes)
        return CUDA_ERROR_INVALID_VALUE;
    *bytes = cu_device()->total_mem;
    return CUDA_SUCCESS;
}

static int attr(CUdevice_attribute a)
{
    int v = 0;
    cuDeviceGetAttribute(&v, a, 0);
    return v;
}

CUresult cuDeviceGetProperties(CUdevprop *prop, CUdevice dev)
{
    CUresult r = cu_check_device(dev);
    if (r)
        return r;
    if (!prop)
        return CUDA_ERROR_INVALID_VALUE;
    *prop = (CUdevprop){
        .maxThreadsPerBlock = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK),
        .maxThreadsDim = {attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X),
                          attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y),
                          attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)},
        .maxGridSize = {attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X),
                        attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y),
                        attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)},
        .sharedMemPerBlock = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK),
        .totalConstantMemory = attr(CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY),
        .SIMDWidth = attr(CU_DEVICE_ATTRIBUTE_WARP_SIZE),
        .memPitch = attr(CU_DEVICE_ATTRIBUTE_MAX_PITCH),
        .regsPerBlock = attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK),
        .clockRate = attr(CU_DEVICE_ATTRIBUTE_CLOCK_RATE),
        .textureAlign = attr(CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT),
    };
    return CUDA_SUCCESS;
}

CUresult cuDeviceComputeCapability(int *major, int *minor, CUdevice dev)
{
    CUresult r = cu_check_device(dev);
    if (r)
        return r;
    if (!major || !minor)
        return CUDA_ERROR_INVALID_VALUE;
    *major = cu_device()->cc_major;
    *minor = cu_device()->cc_minor;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev)
{
    CUresult r = cu_check_device(dev);
    if (r)
        return r;
    if (!pciBusId || len <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    snprintf(pciBusId, (size_t)len, "%04x:%02x:%02x.0", 0u, 0u, 0u);
    return CUDA_SUCCESS;
}

/* Accepts domain:bus:device.function, domain:bus:device and
 * bus:device.function, in hex. */
CUresult cuDeviceGetByPCIBusId(CUdevice *dev, const char *pciBusId)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!dev || !pciBusId)
        return CUDA_ERROR_INVALID_VALUE;
    unsigned dom = 0, bus, d, fn = 0;
    char extra;
    if (sscanf(pciBusId, "%x:%x:%x.%x%c", &dom, &bus, &d, &fn, &extra) != 4 &&
        sscanf(pciBusId, "%x:%x:%x%c", &dom, &bus, &d, &extra) != 3 &&
        (dom = 0, sscanf(pciBusId, "%x:%x.%x%c", &bus, &d, &fn, &extra) != 3))
        return CUDA_ERROR_INVALID_VALUE;
    if (dom != 0 || bus != 0 || d != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    *dev = 0;
    return CUDA_SUCCESS;
}

/* With a single device there is no peer; a device is not its own peer. */
CUresult cuDeviceCanAccessPeer(int *canAccessPeer, CUdevice dev, CUdevice peerDev)
{
    CUresult r = cu_check_device(dev);
    if (r || (r = cu_check_device(peerDev)))
        return r;
    if (!canAccessPeer)
        return CUDA_ERROR_INVALID_VALUE;
    *canAccessPeer = 0;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetP2PAttribute(int *value, CUdevice_P2PAttribute attrib, CUdevice srcDevice,
                                 CUdevice dstDevice)
{
    CUresult r = cu_check_device(srcDevice);
    if (r || (r = cu_check_device(dstDevice)))
        return r;
    if (!value || attrib < CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK ||
        attrib > CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED)
        return CUDA_ERROR_INVALID_VALUE;
    return CUDA_ERROR_INVALID_DEVICE; /* source and destination are the same device */
}

CUresult cuDeviceGetExecAffinitySupport(int *pi, CUexecAffinityType type, CUdevice dev)
{
    CUresult r = cu_check_device(dev);
    if (r)
        return r;
    if (!pi || type < 0 || type >= CU_EXEC_AFFINITY_TYPE_MAX)
        return CUDA_ERROR_INVALID_VALUE;
    *pi = 0;
    return CUDA_SUCCESS;
}
