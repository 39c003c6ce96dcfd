/* texref.c - the legacy texture and surface references cuda.h still
 * declares (deprecated since CUDA 11): cuModuleGetTexRef/GetSurfRef find a
 * module's .texref/.surfref variable, whose 8 bytes the generated code
 * reads as the handle of the object bound to it; the setters bind arrays,
 * mipmapped arrays, linear or pitch-2D memory and sampler state, and write
 * that handle.  A reference is an rt_texture like a texture object. */
#include "array.h"

#include <stdlib.h>
#include <string.h>

struct CUtexref_st {
    rt_texture t;              /* first: the handle the variable holds */
    rt_image view;             /* linear and pitch-2D bindings */
    uint64_t *slot;            /* the module variable; NULL for cuTexRefCreate's */
    CUarray array;
    CUmipmappedArray mipmap;
    CUdeviceptr addr;
    CUarray_format format;
    unsigned channels;
    unsigned max_aniso;
    bool surface;
};

struct CUsurfref_st { struct CUtexref_st r; };

static pthread_mutex_t refs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct CUtexref_st **refs;    /* every reference taken from a module, for reuse */
static size_t nrefs, caprefs;

static bool valid(const struct CUtexref_st *r) { return r && cu_handle_valid(r, CU_KIND_TEXREF); }

static void publish(struct CUtexref_st *r)
{
    if (r->slot)
        *r->slot = (uint64_t)(uintptr_t)&r->t;
}

static struct CUtexref_st *new_ref(uint64_t *slot, bool surface)
{
    struct CUtexref_st *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->slot = slot, r->surface = surface;
    r->t.kind = surface ? RT_SURFACE : RT_TEXTURE;
    r->t.s.max_lod = 1000;
    r->format = CU_AD_FORMAT_FLOAT, r->channels = 1;
    if (!cu_handle_add(r, CU_KIND_TEXREF) || !rt_texture_register(&r->t)) {
        cu_handle_remove(r);
        free(r);
        return NULL;
    }
    return r;
}

/* The reference of module variable `name` (one per variable). */
static CUresult module_ref(struct CUtexref_st **out, CUmodule m, const char *name, bool surface)
{
    CUresult e = cu_check_init();
    if (e)
        return e;
    if (!out || !name)
        return CUDA_ERROR_INVALID_VALUE;
    if (!cu_module_valid(m))
        return CUDA_ERROR_INVALID_HANDLE;
    CUdeviceptr p;
    size_t bytes;
    if (cu_module_global(m, name, &p, &bytes) || bytes != 8)
        return CUDA_ERROR_NOT_FOUND;
    uint64_t *slot = (uint64_t *)(uintptr_t)p;
    pthread_mutex_lock(&refs_lock);
    struct CUtexref_st *r = NULL;
    for (size_t i = 0; i < nrefs && !r; i++)
        if (refs[i]->slot == slot && refs[i]->surface == surface)
            r = refs[i];
    if (!r && (nrefs < caprefs || (refs = realloc(refs, (caprefs = caprefs ? 2 * caprefs : 8) * sizeof *refs))) &&
        (r = new_ref(slot, surface)))
        refs[nrefs++] = r;
    pthread_mutex_unlock(&refs_lock);
    if (!r)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *out = r;
    return CUDA_SUCCESS;
}

CUresult cuModuleGetTexRef(CUtexref *out, CUmodule m, const char *name)
{
    return module_ref((struct CUtexref_st **)out, m, name, false);
}

CUresult cuModuleGetSurfRef(CUsurfref *out, CUmodule m, const char *name)
{
    return module_ref((struct CUtexref_st **)out, m, name, true);
}

CUresult cuTexRefCreate(CUtexref *out)
{
    CUresult e = cu_check_init();
    if (e)
        return e;
    if (!out)
        return CUDA_ERROR_INVALID_VALUE;
    return (*out = new_ref(NULL, false)) ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult cuTexRefDestroy(CUtexref r)
{
    if (!valid(r) || r->slot)
        return cu_init_or(CUDA_ERROR_INVALID_VALUE);
    rt_texture_unregister(&r->t);
    cu_handle_remove(r);
    free(r);
    return cu_init_or(CUDA_SUCCESS);
}

/* ---- bindings ---- */

static void unbind(struct CUtexref_st *r)
{
    r->array = NULL, r->mipmap = NULL, r->addr = 0;
    r->t.levels = NULL, r->t.nlevels = 0, r->t.layered = r->t.cube = false;
}

static CUresult bind_array(struct CUtexref_st *r, CUarray a)
{
    if (!cu_array_valid(a))
        return CUDA_ERROR_INVALID_VALUE;
    unbind(r);
    r->array = a;
    r->t.levels = &a->img, r->t.nlevels = 1;
    r->t.layered = a->desc.Flags & CUDA_ARRAY3D_LAYERED, r->t.cube = a->desc.Flags & CUDA_ARRAY3D_CUBEMAP;
    publish(r);
    return CUDA_SUCCESS;
}

CUresult cuTexRefSetArray(CUtexref r, CUarray a, unsigned int flags)
{
    if (!valid(r) || r->surface || (flags & ~CU_TRSA_OVERRIDE_FORMAT))
        return cu_init_or(CUDA_ERROR_INVALID_VALUE);
    return cu_init_or(bind_array(r, a));
}

CUresult cuSurfRefSetArray(CUsurfref s, CUarray a, unsigned int flags)
{
    struct CUtexref_st *r = &s->r;
    if (!valid(r) || !r->surface || flags)
        return cu_init_or(CUDA_ERROR_INVALID_VALUE);
    if (cu_array_valid(a) && !(a->desc.Flags & CUDA_ARRAY3D_SURFACE_LDST))
        return cu_init_or(CUDA_ERROR_INVALID_VALUE);
    return cu_init_or(bind_array(r, a));
}

CUresult cuSurfRefGetArray(CUarray *out, CUsurfref s)
{
    if (!out || !valid(&s->r) || !s->r.surface)
        return cu_init_or(CUDA_ERROR_INVALID_VALUE);
    *out = s->r.array;
    return cu_init_or(CUDA_SUCCESS);
}

CUresult cuTexRefSetMipmappedArray(CUtexref r, CUmipmappedArray m, unsigned int flags)
{
    if (!valid(r) || r->surface || !cu_mipmapped_valid(m) || (flags & ~CU_TRSA_OVERRIDE_FORMAT))
        return cu_init_or(CUDA_ERROR_INVALID_VALUE);
    unbind(r);
    r->mipmap = m;
    r->t.levels = m->levels, r->t.nlevels = m->nlevels;
    r->t.layered = m->desc.Flags & CUDA_ARRAY3D_LAYERED, r->t.cube = m->desc.Flags & CUDA_ARRAY3D_CUBEMAP;
    publish(r);
    return cu_init_or(CUDA_SUCCESS);
}

/* Linear (height 0) or pitch-2D memory in the reference's format. */
static CUresult bind_memory(struct CUtexref_st *r, CUdeviceptr p, size_t width, size_t height, size_t pitch)
{
    rt_image v = {0};
    if (!cu_image_format(&v, r->format, r->channels))
        return CUDA_ERROR_INVALID_VALUE;
    v.width = width ? width : pitch / v.texel_bytes;
    v.height = height ? height : 1, v.depth = v.layers = 1, v.dims = height ? 2 : 1, v.linear = true;
    v.pitch = height ? pitch : v.width * v.texel_bytes;
    v.slice = v.layer_bytes = v.pitch * v.height;
    v.data = (char *)(uintptr_t)p;
    size_t span = (v.height - 1) * v.pitch + v.width * v.texel_bytes;
    if (!p || !v.width || v.pitch < v.width * v.texel_bytes || !cu_map_find(p, span, NULL))
        return CUDA_ERROR_INVALID_VALUE;
    unbind(r);
    r->view = v, r->addr = p;
    r->t.levels = &r->view, r->t.nlevels = 1;
    publish(r);
    return CUDA_SUCCESS;
}

CUresult cuTexRefSetAddress_v2(size_t *offset, CUtexref r, CUdeviceptr p, size_t bytes)
{
    if (!valid(r) || r->surface)
        return cu_init_or(CUDA_ERROR_INVALID_VALUE);
    if (offset)
        *offset = 0; /* any address is aligned enough here */
    return cu_init_or(bind_memory(r, p, 0, 0, bytes));
}

CUresult cuTexRefSetAddress2D_v3(CUtexref r, const CUDA_ARRAY_DESCRIPTOR *d, CUdeviceptr p, size_t pitch)
{
    if (!valid(r) || r->surface || !d || !d->Height)
        return cu_init_or(CUDA_ERROR_INVALID_VALUE);
    r->format = d->Format, r->channels = d->NumChannels;
    return cu_init_or(bind_memory(r, p, d->Width, d->Height, pitch));
}

/* ---- sampler state ---- */

#define TEXREF_SET(name, params, check, body)                                                        \
    CUresult name params                                                                             \
    {                                                                                                \
        if (!valid(r) || r->surface || !(check))                                                     \
            return cu_init_or(CUDA_ERROR_INVALID_VALUE);                                             \
        body;                                                                                        \
        return cu_init_or(CUDA_SUCCESS);                                                             \
    }

TEXREF_SET(cuTexRefSetFormat, (CUtexref r, CUarray_format f, int n), n == 1 || n == 2 || n == 4,
           (r->format = f, r->channels = (unsigned)n))
TEXREF_SET(cuTexRefSetAddressMode, (CUtexref r, int dim, CUaddress_mode am),
           dim >= 0 && dim < 3 && (unsigned)am <= CU_TR_ADDRESS_MODE_BORDER, r->t.s.address[dim] = am)
TEXREF_SET(cuTexRefSetFilterMode, (CUtexref r, CUfilter_mode fm), (unsigned)fm <= CU_TR_FILTER_MODE_LINEAR,
           r->t.s.filter = fm)
TEXREF_SET(cuTexRefSetMipmapFilterMode, (CUtexref r, CUfilter_mode fm), (unsigned)fm <= CU_TR_FILTER_MODE_LINEAR,
           r->t.s.mip_filter = fm)
TEXREF_SET(cuTexRefSetFlags, (CUtexref r, unsigned int flags), true, r->t.s.flags = flags)
TEXREF_SET(cuTexRefSetBorderColor, (CUtexref r, float *c), c != NULL, memcpy(r->t.s.border, c, 4 * sizeof *c))
TEXREF_SET(cuTexRefSetMipmapLevelBias, (CUtexref r, float bias), true, r->t.s.lod_bias = bias)
TEXREF_SET(cuTexRefSetMipmapLevelClamp, (CUtexref r, float lo, float hi), lo <= hi,
           (r->t.s.min_lod = lo, r->t.s.max_lod = hi))
TEXREF_SET(cuTexRefSetMaxAnisotropy, (CUtexref r, unsigned int n), true, r->max_aniso = n)

#define TEXREF_GET(name, params, check, body) TEXREF_SET(name, params, check, body)

TEXREF_GET(cuTexRefGetAddress_v2, (CUdeviceptr *out, CUtexref r), out && r->addr, *out = r->addr)
TEXREF_GET(cuTexRefGetArray, (CUarray *out, CUtexref r), out && r->array, *out = r->array)
TEXREF_GET(cuTexRefGetMipmappedArray, (CUmipmappedArray *out, CUtexref r), out && r->mipmap, *out = r->mipmap)
TEXREF_GET(cuTexRefGetAddressMode, (CUaddress_mode *out, CUtexref r, int dim), out && dim >= 0 && dim < 3,
           *out = (CUaddress_mode)r->t.s.address[dim])
TEXREF_GET(cuTexRefGetFilterMode, (CUfilter_mode *out, CUtexref r), out, *out = (CUfilter_mode)r->t.s.filter)
TEXREF_GET(cuTexRefGetMipmapFilterMode, (CUfilter_mode *out, CUtexref r), out,
           *out = (CUfilter_mode)r->t.s.mip_filter)
TEXREF_GET(cuTexRefGetFormat, (CUarray_format *f, int *n, CUtexref r), f || n,
           (f ? (void)(*f = r->format) : (void)0, n ? (void)(*n = (int)r->channels) : (void)0))
TEXREF_GET(cuTexRefGetFlags, (unsigned int *out, CUtexref r), out, *out = r->t.s.flags)
TEXREF_GET(cuTexRefGetBorderColor, (float *out, CUtexref r), out, memcpy(out, r->t.s.border, sizeof r->t.s.border))
TEXREF_GET(cuTexRefGetMipmapLevelBias, (float *out, CUtexref r), out, *out = r->t.s.lod_bias)
TEXREF_GET(cuTexRefGetMipmapLevelClamp, (float *lo, float *hi, CUtexref r), lo && hi,
           (*lo = r->t.s.min_lod, *hi = r->t.s.max_lod))
TEXREF_GET(cuTexRefGetMaxAnisotropy, (int *out, CUtexref r), out, *out = (int)r->max_aniso)
