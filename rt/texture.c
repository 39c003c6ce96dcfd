/* texture.c - texture sampling as CUDA's programming guide describes it
 * ("Texture Fetching" appendix): coordinates are scaled to texel space
 * (normalized coordinates times the size), wrap and mirror act on
 * normalized coordinates, out-of-range texels are clamped or replaced by
 * the border colour, and linear filtering weighs the two (four, eight)
 * nearest texels with 9-bit fixed-point weights of 8 fractional bits.
 * Layered, cube and mipmapped textures pick a layer, face or level first. */
#include "texture.h"

#include "ptxjit/abi.h"

#include <math.h>
#include <string.h>

uint32_t rt_format_channel_bytes(uint32_t f)
{
    switch (f) {
    case RT_FMT_U8: case RT_FMT_S8: case RT_FMT_UNORM8X1: case RT_FMT_UNORM8X2: case RT_FMT_UNORM8X4:
    case RT_FMT_SNORM8X1: case RT_FMT_SNORM8X2: case RT_FMT_SNORM8X4:
        return 1;
    case RT_FMT_U16: case RT_FMT_S16: case RT_FMT_HALF: case RT_FMT_UNORM16X1: case RT_FMT_UNORM16X2:
    case RT_FMT_UNORM16X4: case RT_FMT_SNORM16X1: case RT_FMT_SNORM16X2: case RT_FMT_SNORM16X4:
        return 2;
    case RT_FMT_U32: case RT_FMT_S32: case RT_FMT_FLOAT:
        return 4;
    default:
        return 0;
    }
}

uint32_t rt_format_fixed_channels(uint32_t f)
{
    static const uint32_t n[3] = {1, 2, 4};
    return f >= RT_FMT_UNORM8X1 && f <= RT_FMT_SNORM16X4 ? n[(f - RT_FMT_UNORM8X1) % 3] : 0;
}

bool rt_format_known(uint32_t f) { return rt_format_channel_bytes(f) != 0; }

static bool is_signed_format(uint32_t f)
{
    return f == RT_FMT_S8 || f == RT_FMT_S16 || f == RT_FMT_S32 || (f >= RT_FMT_SNORM8X1 && f <= RT_FMT_SNORM16X4);
}

/* Always read as [0,1] / [-1,1], whatever the read mode. */
static bool is_norm_format(uint32_t f) { return f >= RT_FMT_UNORM8X1 && f <= RT_FMT_SNORM16X4; }


uint16_t rt_half_bits(uint32_t f)
{
    uint32_t sign = (f >> 16) & 0x8000, e = (f >> 23) & 0xff, m = f & 0x7fffff;
    if (e == 0xff)
        return (uint16_t)(sign | 0x7c00 | (m ? 0x200 : 0));
    int32_t he = (int32_t)e - 112;
    if (he >= 0x1f)
        return (uint16_t)(sign | 0x7c00);
    if (he <= 0) { /* subnormal or zero */
        if (he < -10)
            return (uint16_t)sign;
        m |= 0x800000;
        uint32_t sh = (uint32_t)(14 - he), q = m >> sh, rem = m & ((1u << sh) - 1), half = 1u << (sh - 1);
        return (uint16_t)(sign | (q + (rem > half || (rem == half && (q & 1)))));
    }
    uint32_t q = ((uint32_t)he << 10) | (m >> 13), rem = m & 0x1fff;
    return (uint16_t)(sign | (q + (rem > 0x1000 || (rem == 0x1000 && (q & 1)))));
}

static float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 0x1f, m = h & 0x3ff;
    if (e == 0x1f)
        return rt_bits_f32(sign | 0x7f800000u | m << 13);
    if (e == 0)
        return (sign ? -1.0f : 1.0f) * ldexpf((float)m, -24);
    return rt_bits_f32(sign | (e + 112) << 23 | m << 13);
}

static float srgb_to_linear(float c)
{
    return c <= 0.04045f ? c / 12.92f : powf((c + 0.055f) / 1.055f, 2.4f);
}

char *rt_texel_addr(const rt_image *img, uint64_t x, uint64_t y, uint64_t z, uint64_t layer)
{
    return img->data + layer * img->layer_bytes + z * img->slice + y * img->pitch + x * img->texel_bytes;
}

void rt_texel_read(const rt_image *img, uint64_t x, uint64_t y, uint64_t z, uint64_t layer, bool as_int,
                   bool promote, bool srgb, uint32_t out[4])
{
    const char *p = rt_texel_addr(img, x, y, z, layer);
    uint32_t f = img->format, cb = rt_format_channel_bytes(f);
    bool sgn = is_signed_format(f);
    promote = (promote && cb < 4) || is_norm_format(f);
    for (uint32_t c = 0; c < 4; c++) {
        if (c >= img->channels) { /* the GPU reads 0, alpha included */
            out[c] = 0;
            continue;
        }
        const char *q = p + c * cb;
        float v;
        if (f == RT_FMT_FLOAT || f == RT_FMT_HALF) {
            v = f == RT_FMT_FLOAT ? rt_bits_f32(*(const uint32_t *)q) : half_to_float(*(const uint16_t *)q);
            out[c] = as_int ? (uint32_t)(int32_t)v : rt_f32_bits(v);
            continue;
        }
        int64_t i;
        if (cb == 1)
            i = sgn ? (int64_t)*(const int8_t *)q : (int64_t)*(const uint8_t *)q;
        else if (cb == 2)
            i = sgn ? (int64_t)*(const int16_t *)q : (int64_t)*(const uint16_t *)q;
        else
            i = sgn ? (int64_t)*(const int32_t *)q : (int64_t)*(const uint32_t *)q;
        if (as_int) { /* the element type, unconverted */
            out[c] = (uint32_t)i;
            continue;
        }
        if (promote) { /* cudaReadModeNormalizedFloat: [0, 1] or [-1, 1] */
            float maxv = sgn ? (float)((1 << (8 * cb - 1)) - 1) : (float)((1 << (8 * cb)) - 1);
            v = (float)i / maxv;
            v = v < -1.0f ? -1.0f : v;
            if (srgb && !sgn && c < 3)
                v = srgb_to_linear(v);
        } else {
            v = (float)i;
        }
        out[c] = rt_f32_bits(v);
    }
}

float rt_tex_weight(float frac) { return floorf(frac * 256.0f + 0.5f) / 256.0f; }

/* An integer texel index through the address mode; false: outside, read
 * the border. */
static bool address(int64_t *i, int64_t n, uint32_t mode)
{
    switch (mode) {
    case RT_ADDR_WRAP:
        *i = ((*i % n) + n) % n;
        return true;
    case RT_ADDR_MIRROR: {
        int64_t p = ((*i % (2 * n)) + 2 * n) % (2 * n);
        *i = p < n ? p : 2 * n - 1 - p;
        return true;
    }
    case RT_ADDR_BORDER:
        return *i >= 0 && *i < n;
    default:
        *i = *i < 0 ? 0 : *i >= n ? n - 1 : *i;
        return true;
    }
}

/* Where one dimension's coordinate lands: the first texel index and the
 * weight of the next one in 256ths (linear filtering). */
typedef struct axis {
    int64_t i0;
    uint32_t a;
    int64_t n;
    uint32_t mode;
} axis;

/* As an H200 places coordinates (tests/gpu/results/tex.res): unnormalized
 * coordinates clamp under wrap and mirror (the driver accepts the
 * combination); a normalized one wraps to its fraction, is cut to 23
 * fractional bits (2/7 as a float, just above, lands in texel 1 of 7) and
 * then scaled; mirror acts on the texel indices, not the coordinate.  The
 * linear weight is the fraction past the texel centre, rounded half up to
 * 8 bits. */
static axis place(float x, int64_t n, uint32_t mode, bool normalized, bool linear, int32_t offset)
{
    axis ax = {.n = n, .mode = normalized ? mode : (mode == RT_ADDR_BORDER ? mode : RT_ADDR_CLAMP)};
    if (normalized && mode == RT_ADDR_WRAP)
        x -= floorf(x);
    double u = isnan(x) ? 0.0 : (double)x;
    u = u > 1e18 ? 1e18 : u < -1e18 ? -1e18 : u;
    if (normalized)
        u = floor(ldexp(u, 23)) * ldexp((double)n, -23);
    if (linear) {
        u -= 0.5;
        double fl = floor(u);
        ax.i0 = (int64_t)fl + offset;
        ax.a = (uint32_t)floor((u - fl) * 256.0 + 0.5);
    } else {
        ax.i0 = (int64_t)floor(u) + offset;
    }
    return ax;
}

typedef struct footprint {
    const rt_image *img;
    const rt_sampler *s;
    uint64_t layer;
    bool as_int, promote, srgb;
    int64_t norm_max; /* read as normalized integers of this maximum; 0: not */
} footprint;

/* The largest value of a format's channel when its texels read as
 * normalized integers (filtered in fixed point); 0 when they read as
 * floats or integers. */
static int64_t norm_max(const rt_image *img, bool as_int, bool promote)
{
    uint32_t f = img->format, cb = rt_format_channel_bytes(f);
    if (as_int || cb > 2 || f == RT_FMT_HALF || !(promote || is_norm_format(f)))
        return 0;
    return is_signed_format(f) ? (1 << (8 * cb - 1)) - 1 : (1 << (8 * cb)) - 1;
}

/* The border colour as the texture's format stores it: channels the format
 * lacks read 0 and normalized integers are quantized (0.5 reads 127/255 from
 * an 8-bit texture on the GPU). */
static void border(const footprint *fp, float v[4], uint32_t raw[4])
{
    bool sgn = is_signed_format(fp->img->format);
    for (uint32_t k = 0; k < 4; k++) {
        float b = k < fp->img->channels ? fp->s->border[k] : 0.0f;
        if (fp->norm_max)
            b = (float)rt_tex_norm_quantize(b, fp->norm_max, sgn) / (float)fp->norm_max;
        else if (fp->img->format == RT_FMT_HALF)
            b = half_to_float(rt_half_bits(rt_f32_bits(b)));
        v[k] = b < -1.0f && fp->norm_max ? -1.0f : b;
        raw[k] = fp->as_int ? (uint32_t)(int32_t)b : rt_f32_bits(v[k]);
    }
}

/* One texel by possibly out-of-range indices: the address modes, else the
 * border colour. */
static void fetch(const footprint *fp, const axis *ax, const int64_t *idx, uint32_t dims, float v[4],
                  uint32_t raw[4])
{
    uint64_t c[3] = {0, 0, 0};
    for (uint32_t d = 0; d < dims; d++) {
        int64_t i = idx[d];
        if (!address(&i, ax[d].n, ax[d].mode)) {
            border(fp, v, raw);
            return;
        }
        c[d] = (uint64_t)i;
    }
    rt_texel_read(fp->img, c[0], c[1], c[2], fp->layer, fp->as_int, fp->promote, fp->srgb, raw);
    for (int k = 0; k < 4; k++)
        v[k] = rt_bits_f32(raw[k]);
}

/* A fetched normalized texel back to its stored integer: the value times
 * the maximum is an integer, exactly, but for the clamped most negative. */
static int64_t stored_norm(float v, int64_t maxv) { return (int64_t)lrintf(v * (float)maxv); }

/* Point or linear sampling of one image (level) at texel-space axes. */
static void filter(const footprint *fp, const axis *ax, uint32_t dims, bool linear, float v[4], uint32_t raw[4])
{
    if (!linear) {
        int64_t idx[3] = {ax[0].i0, dims > 1 ? ax[1].i0 : 0, dims > 2 ? ax[2].i0 : 0};
        fetch(fp, ax, idx, dims, v, raw);
        return;
    }
    uint32_t frac[3] = {ax[0].a, dims > 1 ? ax[1].a : 0, dims > 2 ? ax[2].a : 0}, w[8];
    uint32_t n = rt_tex_corner_weights(frac, dims, w);
    float t[4][8];
    for (uint32_t corner = 0; corner < n; corner++) {
        int64_t idx[3] = {0, 0, 0};
        float tv[4];
        uint32_t tr[4];
        for (uint32_t d = 0; d < dims; d++)
            idx[d] = ax[d].i0 + ((corner >> d) & 1);
        fetch(fp, ax, idx, dims, tv, tr);
        for (int k = 0; k < 4; k++)
            t[k][corner] = tv[k];
    }
    for (int k = 0; k < 4; k++) {
        if (fp->norm_max && !(fp->srgb && k < 3)) {
            int64_t q[8];
            for (uint32_t c = 0; c < n; c++)
                q[c] = stored_norm(t[k][c], fp->norm_max);
            v[k] = rt_tex_blend_norm(w, q, n, fp->norm_max, is_signed_format(fp->img->format));
        } else {
            v[k] = rt_tex_blend_float(w, t[k], n);
        }
        raw[k] = rt_f32_bits(v[k]);
    }
}

/* Cube map: the face of the major axis and its (s, t) in [0, 1]
 * (the programming guide's cubemap table). */
static uint32_t cube_face(float x, float y, float z, float *s, float *t)
{
    float ax = fabsf(x), ay = fabsf(y), az = fabsf(z), m, sc, tc;
    uint32_t face;
    if (ax >= ay && ax >= az) {
        face = x >= 0 ? 0 : 1, m = ax, sc = x >= 0 ? -z : z, tc = -y;
    } else if (ay >= az) {
        face = y >= 0 ? 2 : 3, m = ay, sc = x, tc = y >= 0 ? z : -z;
    } else {
        face = z >= 0 ? 4 : 5, m = az, sc = z >= 0 ? x : -x, tc = -y;
    }
    m = m > 0 ? m : 1.0f;
    *s = (sc / m + 1.0f) * 0.5f;
    *t = (tc / m + 1.0f) * 0.5f;
    return face;
}

static uint32_t geom_dims(uint32_t geom)
{
    switch (geom) {
    case PTXJIT_GEOM_1D: case PTXJIT_GEOM_A1D: return 1;
    case PTXJIT_GEOM_3D: return 3;
    default: return 2; /* 2d, a2d, 2dms, a2dms; cube faces */
    }
}

static bool has_layer(uint32_t geom)
{
    return geom == PTXJIT_GEOM_A1D || geom == PTXJIT_GEOM_A2D || geom == PTXJIT_GEOM_ACUBE ||
           geom == PTXJIT_GEOM_A2DMS;
}

/* The level of detail of a request, clamped by the sampler and the levels. */
static float level_of_detail(const rt_texture *t, const rt_sampler *s, const rt_tex_req *r, uint32_t dims)
{
    if (t->nlevels <= 1 || r->mode == 0)
        return 0;
    float lod = r->lod;
    if (r->mode == 2) {
        const rt_image *b = &t->levels[0];
        float size[3] = {(float)b->width, (float)b->height, (float)b->depth}, gx = 0, gy = 0;
        bool norm = (s->flags & RT_TEXF_NORMALIZED) != 0;
        for (uint32_t d = 0; d < dims; d++) {
            float k = norm ? size[d] : 1.0f;
            gx += r->dpdx[d] * k * r->dpdx[d] * k;
            gy += r->dpdy[d] * k * r->dpdy[d] * k;
        }
        float rho = sqrtf(gx > gy ? gx : gy);
        lod = rho > 0 ? log2f(rho) : -INFINITY;
    }
    lod += s->lod_bias;
    if (lod < s->min_lod)
        lod = s->min_lod;
    if (lod > s->max_lod)
        lod = s->max_lod;
    float top = (float)(t->nlevels - 1);
    return lod < 0 ? 0 : lod > top ? top : lod;
}

/* Samples one level: the layer or face, then the axes. */
static void sample_level(const rt_texture *t, const rt_sampler *s, const rt_tex_req *r, uint32_t level,
                         float v[4], uint32_t raw[4])
{
    const rt_image *img = &t->levels[level];
    uint32_t dims = geom_dims(r->geom), first = has_layer(r->geom) ? 1 : 0;
    bool linear = s->filter == RT_FILTER_LINEAR && !r->integer_result && r->float_coords;
    bool normalized = (s->flags & RT_TEXF_NORMALIZED) != 0;
    footprint fp = {img, s, 0, r->integer_result, !(s->flags & RT_TEXF_READ_AS_INTEGER), (s->flags & RT_TEXF_SRGB) != 0, 0};
    fp.norm_max = norm_max(img, fp.as_int, fp.promote);
    if (first) {
        uint64_t layer = r->coord[0], nlayers = t->cube ? img->layers / 6 : img->layers;
        fp.layer = layer >= nlayers ? nlayers - 1 : layer; /* unsigned on the GPU: -1 is the last */
    }
    float x[3];
    for (uint32_t d = 0; d < 3; d++)
        x[d] = r->float_coords ? rt_bits_f32(r->coord[first + d < 4 ? first + d : 3]) : 0;
    uint32_t modes[3] = {s->address[0], s->address[1], s->address[2]};
    if (r->geom == PTXJIT_GEOM_CUBE || r->geom == PTXJIT_GEOM_ACUBE) {
        uint32_t face = cube_face(x[0], x[1], x[2], &x[0], &x[1]);
        fp.layer = fp.layer * 6 + face;
        normalized = true;
        modes[0] = modes[1] = RT_ADDR_CLAMP;
    }
    int64_t size[3] = {(int64_t)img->width, (int64_t)img->height, (int64_t)img->depth};
    axis ax[3];
    for (uint32_t d = 0; d < dims; d++) {
        if (r->float_coords) {
            ax[d] = place(x[d], size[d], modes[d], normalized, linear, r->offset[d]);
        } else { /* integer texel coordinates: no scaling, no filtering */
            ax[d] = (axis){(int32_t)r->coord[first + d] + r->offset[d], 0, size[d],
                           modes[d] == RT_ADDR_BORDER ? RT_ADDR_BORDER : RT_ADDR_CLAMP};
        }
    }
    if (img->linear && !r->float_coords) /* tex1Dfetch on linear memory: zeros outside */
        ax[0].mode = RT_ADDR_BORDER;
    if (r->gather >= 0) { /* tld4: the bilinear footprint's texels, one component */
        ax[0] = place(x[0], size[0], modes[0], normalized, true, r->offset[0]);
        ax[1] = place(x[1], size[1], modes[1], normalized, true, r->offset[1]);
        static const int corner[4][2] = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
        for (int k = 0; k < 4; k++) {
            int64_t idx[2] = {ax[0].i0 + corner[k][0], ax[1].i0 + corner[k][1]};
            float tv[4];
            uint32_t tr[4];
            fetch(&fp, ax, idx, 2, tv, tr);
            raw[k] = tr[r->gather];
            v[k] = tv[r->gather];
        }
        return;
    }
    filter(&fp, ax, dims, linear, v, raw);
}

void rt_tex_sample(const rt_texture *t, const rt_sampler *s, const rt_tex_req *r, uint32_t out[4])
{
    float lod = level_of_detail(t, s, r, geom_dims(r->geom)), v[4], v1[4];
    uint32_t raw1[4];
    uint32_t l0 = s->mip_filter == RT_FILTER_LINEAR ? (uint32_t)floorf(lod) : (uint32_t)floorf(lod + 0.5f);
    if (l0 >= t->nlevels)
        l0 = t->nlevels - 1;
    sample_level(t, s, r, l0, v, out);
    float f = rt_tex_weight(lod - (float)l0);
    if (s->mip_filter != RT_FILTER_LINEAR || r->integer_result || l0 + 1 >= t->nlevels || f <= 0)
        return;
    sample_level(t, s, r, l0 + 1, v1, raw1);
    for (int k = 0; k < 4; k++)
        out[k] = rt_f32_bits((1.0f - f) * v[k] + f * v1[k]);
}

uint32_t rt_tex_query(const rt_texture *t, const rt_sampler *s, uint32_t q, uint32_t level)
{
    const rt_image *img = &t->levels[level < t->nlevels ? level : 0];
    switch (q) {
    case PTXJIT_Q_WIDTH: return (uint32_t)img->width;
    case PTXJIT_Q_HEIGHT: return (uint32_t)img->height;
    case PTXJIT_Q_DEPTH: return (uint32_t)img->depth;
    case PTXJIT_Q_CHANNEL_DATA_TYPE: return img->format;
    case PTXJIT_Q_CHANNEL_ORDER: return img->channels;
    case PTXJIT_Q_NORMALIZED_COORDS: return (s->flags & RT_TEXF_NORMALIZED) != 0;
    case PTXJIT_Q_ARRAY_SIZE: return t->layered ? (uint32_t)(t->cube ? img->layers / 6 : img->layers) : 0;
    case PTXJIT_Q_NUM_MIPMAP_LEVELS: return t->nlevels;
    case PTXJIT_Q_NUM_SAMPLES: return 1;
    case PTXJIT_Q_FORCE_UNNORMALIZED_COORDS: return (s->flags & RT_TEXF_NORMALIZED) == 0;
    case PTXJIT_Q_FILTER_MODE: return s->filter;
    case PTXJIT_Q_ADDR_MODE_0: return s->address[0];
    case PTXJIT_Q_ADDR_MODE_1: return s->address[1];
    case PTXJIT_Q_ADDR_MODE_2: return s->address[2];
    case PTXJIT_Q_MEMORY_LAYOUT: return img->linear;
    default: return 0;
    }
}
