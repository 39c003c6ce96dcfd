/* surface.c - surface loads, stores and reductions (suld, sust, sured)
 * per lane (suq is txq's query, rt_tex_query).  .b forms address x in
 * bytes and move raw bits; .p forms address x in elements and convert to
 * the surface's format.
 * Out-of-range accesses trap, clamp to the nearest element, or read zero
 * and drop the store, as the instruction's .trap/.clamp/.zero says. */
#include "surface.h"

#include "fault.h"
#include "launch.h"

#include <math.h>
#include <string.h>

/* Coordinates of a surface access: element x (bytes for .b), y, z, layer. */
typedef struct surf_at {
    int64_t x, y, z, layer;
} surf_at;

static surf_at coords_of(uint32_t geom, const uint32_t *c)
{
    switch (geom) {
    case PTXJIT_GEOM_1D: return (surf_at){(int32_t)c[0], 0, 0, 0};
    case PTXJIT_GEOM_2D: return (surf_at){(int32_t)c[0], (int32_t)c[1], 0, 0};
    case PTXJIT_GEOM_3D: return (surf_at){(int32_t)c[0], (int32_t)c[1], (int32_t)c[2], 0};
    case PTXJIT_GEOM_A1D: return (surf_at){(int32_t)c[1], 0, 0, (int32_t)c[0]};
    default: return (surf_at){(int32_t)c[1], (int32_t)c[2], 0, (int32_t)c[0]}; /* a2d */
    }
}

static int64_t clamp64(int64_t v, int64_t hi) { return v < 0 ? 0 : v > hi ? hi : v; }

/* The address of `size` bytes at a, or NULL for a dropped (.zero) access;
 * traps per .trap. */
static char *surf_addr(const rt_image *img, const uint32_t *op, surf_at a, uint32_t size)
{
    bool bytes = !op[PTXJIT_TEXOP_FORMATTED];
    int64_t row = (int64_t)(img->width * img->texel_bytes);
    int64_t x = bytes ? a.x : a.x * img->texel_bytes, xmax = row - (int64_t)size;
    int64_t ymax = (int64_t)img->height - 1, zmax = (int64_t)img->depth - 1, lmax = (int64_t)img->layers - 1;
    bool out = x < 0 || x > xmax || a.y < 0 || a.y > ymax || a.z < 0 || a.z > zmax || a.layer < 0 || a.layer > lmax;
    if (out) {
        switch (op[PTXJIT_TEXOP_CLAMP]) {
        case 1: /* clamp: the nearest element */
            x = clamp64(x, xmax);
            if (bytes)
                x -= x % (int64_t)(size < img->texel_bytes ? size : img->texel_bytes);
            a.y = clamp64(a.y, ymax), a.z = clamp64(a.z, zmax), a.layer = clamp64(a.layer, lmax);
            break;
        case 2:
            return NULL;
        default:
            rt_fault_raise(RT_ERR_FAULT, "surface access out of range at (%lld, %lld, %lld, layer %lld) (PTX line %u)",
                           (long long)a.x, (long long)a.y, (long long)a.z, (long long)a.layer, op[PTXJIT_TEXOP_LINE]);
        }
    }
    return img->data + (uint64_t)a.layer * img->layer_bytes + (uint64_t)a.z * img->slice + (uint64_t)a.y * img->pitch +
           (uint64_t)x;
}

void rt_surf_load(const rt_texture *t, const uint32_t *op, const uint32_t *coord, uint32_t *out)
{
    uint32_t es = op[PTXJIT_TEXOP_ESIZE], n = op[PTXJIT_TEXOP_VEC], words = (es + 3) / 4;
    const char *p = surf_addr(&t->levels[0], op, coords_of(op[PTXJIT_TEXOP_GEOM], coord), es * n);
    for (uint32_t k = 0; k < n; k++) {
        uint64_t v = 0;
        if (p)
            memcpy(&v, p + k * es, es);
        out[k * words] = (uint32_t)v;
        if (words == 2)
            out[k * words + 1] = (uint32_t)(v >> 32);
    }
}

/* One .b32 component of sust.p in the surface's channel format. */
static void store_formatted(char *p, uint32_t format, uint32_t v)
{
    float f = rt_bits_f32(v);
    switch (format) {
    case RT_FMT_FLOAT: memcpy(p, &v, 4); return;
    case RT_FMT_HALF: { uint16_t h = rt_half_bits(v); memcpy(p, &h, 2); return; }
    case RT_FMT_U8: case RT_FMT_S8: *p = (char)v; return;
    case RT_FMT_U16: case RT_FMT_S16: { uint16_t h = (uint16_t)v; memcpy(p, &h, 2); return; }
    case RT_FMT_U32: case RT_FMT_S32: memcpy(p, &v, 4); return;
    default: break;
    }
    /* normalized formats: the float clamped to the range, rounded */
    bool sgn = format >= RT_FMT_SNORM8X1;
    uint32_t cb = rt_format_channel_bytes(format);
    float maxv = sgn ? (float)((1 << (8 * cb - 1)) - 1) : (float)((1 << (8 * cb)) - 1);
    f = isnan(f) ? 0 : f < (sgn ? -1.0f : 0.0f) ? (sgn ? -1.0f : 0.0f) : f > 1.0f ? 1.0f : f;
    int32_t q = (int32_t)lrintf(f * maxv);
    if (cb == 1)
        *p = (char)q;
    else {
        uint16_t h = (uint16_t)q;
        memcpy(p, &h, 2);
    }
}

void rt_surf_store(const rt_texture *t, const uint32_t *op, const uint32_t *coord, const uint32_t *val)
{
    const rt_image *img = &t->levels[0];
    uint32_t es = op[PTXJIT_TEXOP_ESIZE], n = op[PTXJIT_TEXOP_VEC], words = (es + 3) / 4;
    if (op[PTXJIT_TEXOP_FORMATTED]) { /* one element; the vector's components are its channels */
        char *p = surf_addr(img, op, coords_of(op[PTXJIT_TEXOP_GEOM], coord), img->texel_bytes);
        uint32_t cb = rt_format_channel_bytes(img->format);
        for (uint32_t c = 0; p && c < n && c < img->channels; c++)
            store_formatted(p + c * cb, img->format, val[c]);
        return;
    }
    char *p = surf_addr(img, op, coords_of(op[PTXJIT_TEXOP_GEOM], coord), es * n);
    for (uint32_t k = 0; p && k < n; k++) {
        uint64_t v = val[k * words] | (words == 2 ? (uint64_t)val[k * words + 1] << 32 : 0);
        memcpy(p + k * es, &v, es);
    }
}

#define RED_CASES(T, p, v)                                                                                    \
    switch (op[PTXJIT_TEXOP_RED]) {                                                                           \
    case PTXJIT_SURED_ADD: __atomic_fetch_add((T *)p, (T)v, __ATOMIC_RELAXED); break;                        \
    case PTXJIT_SURED_AND: __atomic_fetch_and((T *)p, (T)v, __ATOMIC_RELAXED); break;                        \
    case PTXJIT_SURED_OR: __atomic_fetch_or((T *)p, (T)v, __ATOMIC_RELAXED); break;                          \
    default: {                                                                                                \
        T old = __atomic_load_n((T *)p, __ATOMIC_RELAXED), want;                                              \
        do                                                                                                    \
            want = (op[PTXJIT_TEXOP_RED] == PTXJIT_SURED_MIN) == ((T)v < old) ? (T)v : old;                   \
        while (want != old && !__atomic_compare_exchange_n((T *)p, &old, want, true, __ATOMIC_RELAXED,        \
                                                           __ATOMIC_RELAXED));                                \
    }                                                                                                         \
    }

void rt_surf_reduce(const rt_texture *t, const uint32_t *op, const uint32_t *coord, const uint32_t *val)
{
    uint32_t es = op[PTXJIT_TEXOP_ESIZE], d = op[PTXJIT_TEXOP_DTYPE];
    char *p = surf_addr(&t->levels[0], op, coords_of(op[PTXJIT_TEXOP_GEOM], coord), es);
    if (!p)
        return;
    uint64_t v = val[0] | (es == 8 ? (uint64_t)val[1] << 32 : 0);
    if (es == 8 && d == PTXJIT_TEXD_S64) {
        RED_CASES(int64_t, p, v)
    } else if (es == 8) {
        RED_CASES(uint64_t, p, v)
    } else if (d == PTXJIT_TEXD_S32) {
        RED_CASES(int32_t, p, v)
    } else {
        RED_CASES(uint32_t, p, v)
    }
}
