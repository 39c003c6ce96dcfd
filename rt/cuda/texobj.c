/* texobj.c - texture and surface objects: cuTexObjectCreate over arrays,
 * mipmapped arrays, linear and pitch-2D memory; cuSurfObjectCreate over
 * arrays made with CUDA_ARRAY3D_SURFACE_LDST; their descriptors.  A
 * handle is the address of the object's rt_texture, registered with the
 * runtime (rt/texture.h) so that kernels resolve it per lane. */
#include "array.h"

#include <stdlib.h>
#include <string.h>

typedef struct cu_texobj {
    rt_texture t;            /* first: the handle's address */
    rt_image view;           /* linear and pitch-2D resources */
    CUDA_RESOURCE_DESC res;
    CUDA_TEXTURE_DESC tex;
    CUDA_RESOURCE_VIEW_DESC rv;
    bool has_view;
} cu_texobj;

/* The images a resource names (an array, a mipmapped array's levels, or a
 * view of device memory); the `layered`/`cube` shape of the resource. */
static CUresult resource_images(const CUDA_RESOURCE_DESC *r, cu_texobj *o)
{
    switch (r->resType) {
    case CU_RESOURCE_TYPE_ARRAY: {
        CUarray a = r->res.array.hArray;
        if (!cu_array_valid(a))
            return CUDA_ERROR_INVALID_HANDLE;
        o->t.levels = &a->img, o->t.nlevels = 1;
        o->t.layered = a->desc.Flags & CUDA_ARRAY3D_LAYERED, o->t.cube = a->desc.Flags & CUDA_ARRAY3D_CUBEMAP;
        return CUDA_SUCCESS;
    }
    case CU_RESOURCE_TYPE_MIPMAPPED_ARRAY: {
        CUmipmappedArray m = r->res.mipmap.hMipmappedArray;
        if (!cu_mipmapped_valid(m))
            return CUDA_ERROR_INVALID_HANDLE;
        o->t.levels = m->levels, o->t.nlevels = m->nlevels;
        o->t.layered = m->desc.Flags & CUDA_ARRAY3D_LAYERED, o->t.cube = m->desc.Flags & CUDA_ARRAY3D_CUBEMAP;
        return CUDA_SUCCESS;
    }
    case CU_RESOURCE_TYPE_LINEAR:
    case CU_RESOURCE_TYPE_PITCH2D: {
        bool lin = r->resType == CU_RESOURCE_TYPE_LINEAR;
        rt_image *v = &o->view;
        CUdeviceptr p = lin ? r->res.linear.devPtr : r->res.pitch2D.devPtr;
        if (!cu_image_format(v, lin ? r->res.linear.format : r->res.pitch2D.format,
                             lin ? r->res.linear.numChannels : r->res.pitch2D.numChannels))
            return CUDA_ERROR_INVALID_VALUE;
        v->width = lin ? r->res.linear.sizeInBytes / v->texel_bytes : r->res.pitch2D.width;
        v->height = lin ? 1 : r->res.pitch2D.height;
        v->pitch = lin ? v->width * v->texel_bytes : r->res.pitch2D.pitchInBytes;
        v->depth = v->layers = 1, v->dims = lin ? 1 : 2, v->linear = true;
        v->slice = v->layer_bytes = v->pitch * v->height;
        v->data = (char *)(uintptr_t)p;
        size_t span = (v->height - 1) * v->pitch + v->width * v->texel_bytes;
        if (!p || !v->width || !v->height || v->pitch < v->width * v->texel_bytes ||
            (!lin && v->pitch % 32) || !cu_map_find(p, span, NULL))
            return CUDA_ERROR_INVALID_VALUE;
        o->t.levels = v, o->t.nlevels = 1;
        return CUDA_SUCCESS;
    }
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

static CUresult sampler_of(const CUDA_TEXTURE_DESC *d, rt_sampler *s)
{
    for (int i = 0; i < 3; i++)
        if ((unsigned)d->addressMode[i] > CU_TR_ADDRESS_MODE_BORDER)
            return CUDA_ERROR_INVALID_VALUE;
    if ((unsigned)d->filterMode > CU_TR_FILTER_MODE_LINEAR || (unsigned)d->mipmapFilterMode > CU_TR_FILTER_MODE_LINEAR)
        return CUDA_ERROR_INVALID_VALUE;
    *s = (rt_sampler){{d->addressMode[0], d->addressMode[1], d->addressMode[2]}, d->filterMode,
                      d->mipmapFilterMode, d->flags, {0}, d->mipmapLevelBias, d->minMipmapLevelClamp,
                      d->maxMipmapLevelClamp};
    memcpy(s->border, d->borderColor, sizeof s->border);
    if (s->max_lod < s->min_lod)
        s->max_lod = s->min_lod;
    return CUDA_SUCCESS;
}

static CUresult publish(cu_texobj *o, unsigned long long *out)
{
    if (!rt_texture_register(&o->t)) {
        free(o);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *out = (unsigned long long)(uintptr_t)&o->t;
    return CUDA_SUCCESS;
}

CUresult cuTexObjectCreate(CUtexObject *out, const CUDA_RESOURCE_DESC *r, const CUDA_TEXTURE_DESC *td,
                           const CUDA_RESOURCE_VIEW_DESC *rv)
{
    struct CUctx_st *ctx;
    CUresult e = cu_ctx_current(&ctx);
    if (e)
        return e;
    if (!out || !r || !td || r->flags)
        return CUDA_ERROR_INVALID_VALUE;
    /* a view that changes nothing is accepted; reinterpreting formats is not implemented */
    if (rv && rv->format != CU_RES_VIEW_FORMAT_NONE)
        return CUDA_ERROR_NOT_SUPPORTED;
    cu_texobj *o = calloc(1, sizeof *o);
    if (!o)
        return CUDA_ERROR_OUT_OF_MEMORY;
    o->t.kind = RT_TEXTURE;
    if ((e = resource_images(r, o)) || (e = sampler_of(td, &o->t.s))) {
        free(o);
        return e;
    }
    o->res = *r, o->tex = *td, o->has_view = rv != NULL;
    if (rv)
        o->rv = *rv;
    return publish(o, out);
}

static cu_texobj *object_of(unsigned long long h, uint32_t kind)
{
    return (cu_texobj *)(uintptr_t)rt_texture_lookup(h, kind);
}

static CUresult destroy(unsigned long long h, uint32_t kind)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    cu_texobj *o = object_of(h, kind);
    if (!o)
        return CUDA_ERROR_INVALID_VALUE;
    rt_texture_unregister(&o->t);
    free(o);
    return CUDA_SUCCESS;
}

CUresult cuTexObjectDestroy(CUtexObject h) { return destroy(h, RT_TEXTURE); }

static CUresult resource_desc(CUDA_RESOURCE_DESC *d, unsigned long long h, uint32_t kind)
{
    cu_texobj *o = object_of(h, kind);
    if (!d || !o)
        return cu_init_or(CUDA_ERROR_INVALID_VALUE);
    *d = o->res;
    return cu_init_or(CUDA_SUCCESS);
}

CUresult cuTexObjectGetResourceDesc(CUDA_RESOURCE_DESC *d, CUtexObject h) { return resource_desc(d, h, RT_TEXTURE); }

CUresult cuTexObjectGetTextureDesc(CUDA_TEXTURE_DESC *d, CUtexObject h)
{
    cu_texobj *o = object_of(h, RT_TEXTURE);
    if (!d || !o)
        return cu_init_or(CUDA_ERROR_INVALID_VALUE);
    *d = o->tex;
    return cu_init_or(CUDA_SUCCESS);
}

CUresult cuTexObjectGetResourceViewDesc(CUDA_RESOURCE_VIEW_DESC *d, CUtexObject h)
{
    cu_texobj *o = object_of(h, RT_TEXTURE);
    if (!d || !o || !o->has_view)
        return cu_init_or(CUDA_ERROR_INVALID_VALUE);
    *d = o->rv;
    return cu_init_or(CUDA_SUCCESS);
}

CUresult cuSurfObjectCreate(CUsurfObject *out, const CUDA_RESOURCE_DESC *r)
{
    struct CUctx_st *ctx;
    CUresult e = cu_ctx_current(&ctx);
    if (e)
        return e;
    if (!out || !r || r->resType != CU_RESOURCE_TYPE_ARRAY || r->flags)
        return CUDA_ERROR_INVALID_VALUE;
    CUarray a = r->res.array.hArray;
    if (!cu_array_valid(a))
        return CUDA_ERROR_INVALID_HANDLE;
    if (!(a->desc.Flags & CUDA_ARRAY3D_SURFACE_LDST)) /* as on a GPU */
        return CUDA_ERROR_INVALID_VALUE;
    cu_texobj *o = calloc(1, sizeof *o);
    if (!o)
        return CUDA_ERROR_OUT_OF_MEMORY;
    o->t.kind = RT_SURFACE;
    if ((e = resource_images(r, o))) {
        free(o);
        return e;
    }
    o->res = *r;
    return publish(o, out);
}

CUresult cuSurfObjectDestroy(CUsurfObject h) { return destroy(h, RT_SURFACE); }

CUresult cuSurfObjectGetResourceDesc(CUDA_RESOURCE_DESC *d, CUsurfObject h) { return resource_desc(d, h, RT_SURFACE); }
