/* array.c - CUDA arrays: cuArrayCreate, cuArray3DCreate (1D, 2D, 3D,
 * layered, cubemap, cubemap-layered), mipmapped arrays as their levels,
 * descriptors, and the 1D copies to and from arrays (cuMemcpyHtoA, AtoH,
 * DtoA, AtoD, AtoA).  Every CUarray_format with 1, 2 or 4 channels is
 * stored; the block-compressed and YUV formats are CUDA_ERROR_NOT_SUPPORTED.
 * 2D and 3D copies with array sides go through memcpy.c (cu_array_region). */
#include "array.h"

#include <stdlib.h>
#include <string.h>

/* The limits device_attrs.c reports (test_cu_texture checks they agree). */
enum { MAX_1D = 131072, MAX_2D_W = 131072, MAX_2D_H = 65536, MAX_3D = 16384, MAX_LAYERS = 2048, MAX_CUBE = 32768 };

bool cu_image_format(rt_image *img, CUarray_format format, unsigned channels)
{
    uint32_t fixed = rt_format_fixed_channels((uint32_t)format);
    if (!rt_format_known((uint32_t)format) || (channels != 1 && channels != 2 && channels != 4) ||
        (fixed && fixed != channels))
        return false;
    img->format = (uint32_t)format;
    img->channels = channels;
    img->texel_bytes = rt_format_channel_bytes((uint32_t)format) * channels;
    return true;
}

bool cu_array_valid(CUarray h) { return h && cu_handle_valid(h, CU_KIND_ARRAY); }
bool cu_mipmapped_valid(CUmipmappedArray h) { return h && cu_handle_valid(h, CU_KIND_MIPMAPPED_ARRAY); }

static bool format_unsupported(CUarray_format f)
{
    return (f >= 0x91 && f <= 0xb5) || f == 0x50; /* block-compressed, YUV, packed 10-bit */
}

/* Validates a descriptor and lays out its level-0 image (no storage). */
static CUresult layout(const CUDA_ARRAY3D_DESCRIPTOR *d, rt_image *img)
{
    unsigned known = CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_SURFACE_LDST | CUDA_ARRAY3D_CUBEMAP |
                     CUDA_ARRAY3D_TEXTURE_GATHER;
    if (format_unsupported(d->Format))
        return CUDA_ERROR_NOT_SUPPORTED;
    memset(img, 0, sizeof *img);
    if (!d->Width || (d->Flags & ~known) || !cu_image_format(img, d->Format, d->NumChannels))
        return CUDA_ERROR_INVALID_VALUE;
    bool layered = d->Flags & CUDA_ARRAY3D_LAYERED, cube = d->Flags & CUDA_ARRAY3D_CUBEMAP;
    size_t w = d->Width, h = d->Height ? d->Height : 1, depth = d->Depth ? d->Depth : 1;
    if (cube) {
        if (w != d->Height || !d->Depth || (layered ? d->Depth % 6 : d->Depth != 6) || w > MAX_CUBE)
            return CUDA_ERROR_INVALID_VALUE;
        img->dims = 2, img->layers = depth, img->depth = 1;
    } else if (layered) {
        if (!d->Depth || d->Depth > MAX_LAYERS || w > 32768 || h > 32768)
            return CUDA_ERROR_INVALID_VALUE;
        img->dims = d->Height ? 2 : 1, img->layers = depth, img->depth = 1;
    } else {
        img->dims = d->Depth ? 3 : d->Height ? 2 : 1, img->layers = 1, img->depth = depth;
        if (d->Depth && !d->Height)
            return CUDA_ERROR_INVALID_VALUE;
        if (img->dims == 3 ? (w > MAX_3D || h > MAX_3D || depth > MAX_3D)
                           : img->dims == 2 ? (w > MAX_2D_W || h > MAX_2D_H) : w > MAX_1D)
            return CUDA_ERROR_INVALID_VALUE;
    }
    img->width = w, img->height = h;
    img->pitch = w * img->texel_bytes;
    img->slice = img->pitch * h;
    img->layer_bytes = img->slice * img->depth;
    return CUDA_SUCCESS;
}

static CUresult alloc_data(rt_image *img)
{
    size_t bytes = img->layer_bytes * img->layers;
    img->data = calloc(1, bytes ? bytes : 1);
    return img->data ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult cuArray3DCreate_v2(CUarray *out, const CUDA_ARRAY3D_DESCRIPTOR *d)
{
    struct CUctx_st *ctx;
    CUresult r = cu_ctx_current(&ctx);
    if (r)
        return r;
    if (!out || !d)
        return CUDA_ERROR_INVALID_VALUE;
    struct CUarray_st *a = calloc(1, sizeof *a);
    if (!a)
        return CUDA_ERROR_OUT_OF_MEMORY;
    if ((r = layout(d, &a->img)) || (r = alloc_data(&a->img))) {
        free(a);
        return r;
    }
    a->desc = *d;
    if (!cu_handle_add(a, CU_KIND_ARRAY)) {
        free(a->img.data);
        free(a);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *out = a;
    return CUDA_SUCCESS;
}

CUresult cuArrayCreate_v2(CUarray *out, const CUDA_ARRAY_DESCRIPTOR *d)
{
    if (!d)
        return cu_init_or(CUDA_ERROR_INVALID_VALUE);
    CUDA_ARRAY3D_DESCRIPTOR d3 = {d->Width, d->Height, 0, d->Format, d->NumChannels, 0};
    return cuArray3DCreate_v2(out, &d3);
}

CUresult cuArrayDestroy(CUarray h)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!cu_array_valid(h) || h->owner)
        return CUDA_ERROR_INVALID_HANDLE;
    cu_handle_remove(h);
    free(h->img.data);
    free(h);
    return CUDA_SUCCESS;
}

/* The descriptor of a live array, for the two getters. */
static CUresult descriptor_of(CUarray h, const void *out, CUDA_ARRAY3D_DESCRIPTOR *d)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!out)
        return CUDA_ERROR_INVALID_VALUE;
    if (!cu_array_valid(h))
        return CUDA_ERROR_INVALID_HANDLE;
    *d = h->desc;
    return CUDA_SUCCESS;
}

CUresult cuArray3DGetDescriptor_v2(CUDA_ARRAY3D_DESCRIPTOR *d, CUarray h)
{
    CUDA_ARRAY3D_DESCRIPTOR d3;
    CUresult r = descriptor_of(h, d, &d3);
    if (!r)
        *d = d3;
    return r;
}

CUresult cuArrayGetDescriptor_v2(CUDA_ARRAY_DESCRIPTOR *d, CUarray h)
{
    CUDA_ARRAY3D_DESCRIPTOR d3;
    CUresult r = descriptor_of(h, d, &d3);
    if (r)
        return r;
    /* a 3D or layered array too: NVIDIA's driver answers with its width,
     * height, format and channels */
    *d = (CUDA_ARRAY_DESCRIPTOR){d3.Width, d3.Height, d3.Format, d3.NumChannels};
    return CUDA_SUCCESS;
}

/* ---- mipmapped arrays ---- */

static size_t halve(size_t n) { return n > 1 ? n / 2 : n; }

CUresult cuMipmappedArrayCreate(CUmipmappedArray *out, const CUDA_ARRAY3D_DESCRIPTOR *d, unsigned int levels)
{
    struct CUctx_st *ctx;
    CUresult r = cu_ctx_current(&ctx);
    if (r)
        return r;
    if (!out || !d || !levels || levels > 32)
        return CUDA_ERROR_INVALID_VALUE;
    struct CUmipmappedArray_st *m = calloc(1, sizeof *m);
    rt_image *imgs = calloc(levels, sizeof *imgs);
    struct CUarray_st *arrs = calloc(levels, sizeof *arrs);
    if (!m || !imgs || !arrs) {
        free(m), free(imgs), free(arrs);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    m->levels = imgs, m->level_arrays = arrs, m->desc = *d;
    CUDA_ARRAY3D_DESCRIPTOR ld = *d;
    bool layered = d->Flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP);
    bool one = false; /* the previous level was a single texel: no level follows it */
    for (unsigned i = 0; i < levels && !r; i++) {
        if (one)
            r = CUDA_ERROR_INVALID_VALUE;
        one = ld.Width == 1 && ld.Height <= 1 && (layered || ld.Depth <= 1);
        if (!r && !(r = layout(&ld, &imgs[i])) && !(r = alloc_data(&imgs[i]))) {
            arrs[i] = (struct CUarray_st){imgs[i], ld, m};
            m->nlevels = i + 1;
            if (!cu_handle_add(&arrs[i], CU_KIND_ARRAY))
                r = CUDA_ERROR_OUT_OF_MEMORY;
        }
        ld.Width = halve(ld.Width), ld.Height = halve(ld.Height);
        if (!layered)
            ld.Depth = halve(ld.Depth);
    }
    if (r || !cu_handle_add(m, CU_KIND_MIPMAPPED_ARRAY)) {
        for (unsigned i = 0; i < m->nlevels; i++) {
            cu_handle_remove(&arrs[i]);
            free(imgs[i].data);
        }
        free(m), free(imgs), free(arrs);
        return r ? r : CUDA_ERROR_OUT_OF_MEMORY;
    }
    *out = m;
    return CUDA_SUCCESS;
}

CUresult cuMipmappedArrayGetLevel(CUarray *out, CUmipmappedArray h, unsigned int level)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!cu_mipmapped_valid(h))
        return CUDA_ERROR_INVALID_HANDLE;
    if (!out || level >= h->nlevels)
        return CUDA_ERROR_INVALID_VALUE;
    *out = &h->level_arrays[level];
    return CUDA_SUCCESS;
}

CUresult cuMipmappedArrayDestroy(CUmipmappedArray h)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!cu_mipmapped_valid(h))
        return CUDA_ERROR_INVALID_HANDLE;
    cu_handle_remove(h);
    for (unsigned i = 0; i < h->nlevels; i++) {
        cu_handle_remove(&h->level_arrays[i]);
        free(h->levels[i].data);
    }
    free(h->levels), free(h->level_arrays), free(h);
    return CUDA_SUCCESS;
}

/* ---- copies ---- */

CUresult cu_array_region(CUarray a, size_t x, size_t y, size_t z, size_t w, size_t h, size_t d, uintptr_t *p,
                         size_t *pitch, size_t *rows)
{
    if (!cu_array_valid(a))
        return CUDA_ERROR_INVALID_VALUE;
    const rt_image *img = &a->img;
    size_t rows_total = img->height, slices = img->depth * img->layers; /* layers follow each other */
    if (x > img->pitch || w > img->pitch - x || y > rows_total || h > rows_total - y || z > slices ||
        d > slices - z)
        return CUDA_ERROR_INVALID_VALUE;
    *p = (uintptr_t)(img->data + z * img->slice + y * img->pitch + x);
    *pitch = img->pitch;
    *rows = img->height;
    return CUDA_SUCCESS;
}

/* A 1D copy to or from an array: its storage is contiguous (rows are not
 * padded), so the bytes from `off` are host memory of the array's size.
 * These copies take 1D arrays only, as documented and as NVIDIA's driver
 * answers a 2D one (CUDA_ERROR_INVALID_VALUE). */
static CUresult linear_side(CUarray a, size_t off, size_t n, CUmemorytype *t, const void **host)
{
    if (!a)
        return CUDA_SUCCESS;
    if (!cu_array_valid(a) || a->img.dims != 1)
        return CUDA_ERROR_INVALID_VALUE;
    size_t total = a->img.layer_bytes * a->img.layers;
    if (off > total || n > total - off)
        return CUDA_ERROR_INVALID_VALUE;
    *t = CU_MEMORYTYPE_HOST;
    *host = a->img.data + off;
    return CUDA_SUCCESS;
}

static CUresult copy_1d(CUmemorytype dt, void *dhost, CUdeviceptr ddev, CUarray darr, size_t doff,
                        CUmemorytype st, const void *shost, CUdeviceptr sdev, CUarray sarr, size_t soff, size_t n,
                        CUstream s, bool async)
{
    const void *dh = dhost;
    CUresult r = linear_side(darr, doff, n, &dt, &dh);
    if (r || (r = linear_side(sarr, soff, n, &st, &shost)))
        return cu_init_or(r);
    CUDA_MEMCPY2D c = {.srcMemoryType = st, .srcHost = shost, .srcDevice = sdev, .dstMemoryType = dt,
                       .dstHost = (void *)(uintptr_t)dh, .dstDevice = ddev, .WidthInBytes = n, .Height = 1};
    return async ? cuMemcpy2DAsync_v2(&c, s) : cuMemcpy2D_v2(&c);
}

CUresult cuMemcpyHtoA_v2(CUarray dst, size_t off, const void *src, size_t n)
{
    return copy_1d(CU_MEMORYTYPE_ARRAY, NULL, 0, dst, off, CU_MEMORYTYPE_HOST, src, 0, NULL, 0, n, NULL, false);
}
CUresult cuMemcpyAtoH_v2(void *dst, CUarray src, size_t off, size_t n)
{
    return copy_1d(CU_MEMORYTYPE_HOST, dst, 0, NULL, 0, CU_MEMORYTYPE_ARRAY, NULL, 0, src, off, n, NULL, false);
}
CUresult cuMemcpyDtoA_v2(CUarray dst, size_t off, CUdeviceptr src, size_t n)
{
    return copy_1d(CU_MEMORYTYPE_ARRAY, NULL, 0, dst, off, CU_MEMORYTYPE_DEVICE, NULL, src, NULL, 0, n, NULL, false);
}
CUresult cuMemcpyAtoD_v2(CUdeviceptr dst, CUarray src, size_t off, size_t n)
{
    return copy_1d(CU_MEMORYTYPE_DEVICE, NULL, dst, NULL, 0, CU_MEMORYTYPE_ARRAY, NULL, 0, src, off, n, NULL, false);
}
CUresult cuMemcpyAtoA_v2(CUarray dst, size_t doff, CUarray src, size_t soff, size_t n)
{
    return copy_1d(CU_MEMORYTYPE_ARRAY, NULL, 0, dst, doff, CU_MEMORYTYPE_ARRAY, NULL, 0, src, soff, n, NULL, false);
}
CUresult cuMemcpyHtoAAsync_v2(CUarray dst, size_t off, const void *src, size_t n, CUstream s)
{
    return copy_1d(CU_MEMORYTYPE_ARRAY, NULL, 0, dst, off, CU_MEMORYTYPE_HOST, src, 0, NULL, 0, n, s, true);
}
CUresult cuMemcpyAtoHAsync_v2(void *dst, CUarray src, size_t off, size_t n, CUstream s)
{
    return copy_1d(CU_MEMORYTYPE_HOST, dst, 0, NULL, 0, CU_MEMORYTYPE_ARRAY, NULL, 0, src, off, n, s, true);
}
/* The per-thread default stream variants, as the legacy ones: the copy is
 * complete when they return (the NULL stream of the async forms is the
 * legacy stream, which orders at least as strongly). */
CUresult cuMemcpyHtoA_v2_ptds(CUarray dst, size_t off, const void *src, size_t n)
{
    return cuMemcpyHtoA_v2(dst, off, src, n);
}
CUresult cuMemcpyAtoH_v2_ptds(void *dst, CUarray src, size_t off, size_t n) { return cuMemcpyAtoH_v2(dst, src, off, n); }
CUresult cuMemcpyDtoA_v2_ptds(CUarray dst, size_t off, CUdeviceptr src, size_t n)
{
    return cuMemcpyDtoA_v2(dst, off, src, n);
}
CUresult cuMemcpyAtoD_v2_ptds(CUdeviceptr dst, CUarray src, size_t off, size_t n)
{
    return cuMemcpyAtoD_v2(dst, src, off, n);
}
CUresult cuMemcpyAtoA_v2_ptds(CUarray dst, size_t doff, CUarray src, size_t soff, size_t n)
{
    return cuMemcpyAtoA_v2(dst, doff, src, soff, n);
}
CUresult cuMemcpyHtoAAsync_v2_ptsz(CUarray dst, size_t off, const void *src, size_t n, CUstream s)
{
    return cuMemcpyHtoAAsync_v2(dst, off, src, n, s);
}
CUresult cuMemcpyAtoHAsync_v2_ptsz(void *dst, CUarray src, size_t off, size_t n, CUstream s)
{
    return cuMemcpyAtoHAsync_v2(dst, src, off, n, s);
}
