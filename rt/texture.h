/* texture.h - texture and surface objects as the runtime sees them.
 *
 * A CUtexObject / CUsurfObject (and the value a .texref/.surfref variable
 * holds once bound) is the address of an rt_texture, registered here so
 * that a forged or destroyed handle is a fault, never a wild read.  The
 * driver API (rt/cuda/texobj.c, texref.c) fills them; generated code
 * reaches them through ptxjit_rt_texture (texture_entry.c), which samples
 * per lane (texture.c) or reads and writes surfaces (surface.c). */
#ifndef RT_TEXTURE_H
#define RT_TEXTURE_H

#include <stdbool.h>
#include <stdint.h>

/* Channel formats: the values of CUDA's CUarray_format. */
enum {
    RT_FMT_U8 = 0x01, RT_FMT_U16 = 0x02, RT_FMT_U32 = 0x03, RT_FMT_S8 = 0x08, RT_FMT_S16 = 0x09,
    RT_FMT_S32 = 0x0a, RT_FMT_HALF = 0x10, RT_FMT_FLOAT = 0x20,
    RT_FMT_UNORM8X1 = 0xc0, RT_FMT_UNORM8X2, RT_FMT_UNORM8X4, RT_FMT_UNORM16X1, RT_FMT_UNORM16X2,
    RT_FMT_UNORM16X4, RT_FMT_SNORM8X1, RT_FMT_SNORM8X2, RT_FMT_SNORM8X4, RT_FMT_SNORM16X1, RT_FMT_SNORM16X2,
    RT_FMT_SNORM16X4,
};
/* CUDA's address and filter modes, and the CU_TRSF_* flags. */
enum { RT_ADDR_WRAP, RT_ADDR_CLAMP, RT_ADDR_MIRROR, RT_ADDR_BORDER };
enum { RT_FILTER_POINT, RT_FILTER_LINEAR };
enum { RT_TEXF_READ_AS_INTEGER = 0x01, RT_TEXF_NORMALIZED = 0x02, RT_TEXF_SRGB = 0x10 };

/* The format's bytes per channel, its channel count (the packed UNORM/SNORM
 * formats fix it; 0: the format is unknown), and whether it is
 * normalized-integer storage. */
uint32_t rt_format_channel_bytes(uint32_t format);
uint32_t rt_format_fixed_channels(uint32_t format);
bool rt_format_known(uint32_t format);

/* One image: a CUDA array (or one mipmap level), or linear / pitch-2D
 * memory viewed as one.  1D: height = depth = 1; layered and cube arrays
 * keep their layers (6 per cube) in `layers`, each a width x height x depth
 * block of `slice` * depth bytes. */
typedef struct rt_image {
    char *data;
    uint32_t format, channels, texel_bytes;
    uint32_t dims;            /* 1, 2 or 3 */
    uint64_t width, height, depth, layers;
    uint64_t pitch, slice;    /* bytes per row, per 2D slice */
    uint64_t layer_bytes;
    bool linear;              /* linear or pitch-2D memory (suq.memory_layout 1) */
} rt_image;

/* The sampler state of a texture (CUDA_TEXTURE_DESC). */
typedef struct rt_sampler {
    uint32_t address[3], filter, mip_filter, flags;
    float border[4];
    float lod_bias, min_lod, max_lod;
} rt_sampler;

typedef struct rt_texture {
    uint32_t kind;            /* RT_TEXTURE or RT_SURFACE */
    const rt_image *levels;   /* mipmap levels, level 0 first */
    uint32_t nlevels;
    bool layered, cube;
    rt_sampler s;
} rt_texture;
enum { RT_TEXTURE = 1, RT_SURFACE = 2 };

/* The registry of live objects.  add fails only for lack of memory. */
bool rt_texture_register(const rt_texture *t);
void rt_texture_unregister(const rt_texture *t);
const rt_texture *rt_texture_lookup(uint64_t handle, uint32_t kind);

/* ---- sampling (texture.c) ---- */

/* A fetch request in the instruction's terms. */
typedef struct rt_tex_req {
    uint32_t geom;            /* PTXJIT_GEOM_* */
    bool float_coords;
    uint32_t coord[4];        /* raw bits; array index or sample first */
    uint32_t mode;            /* 0 base, 1 level, 2 grad */
    float lod, dpdx[3], dpdy[3];
    int32_t offset[3];
    bool integer_result;      /* .s32/.u32 destination */
    int gather;               /* tld4 component 0..3, or -1 */
} rt_tex_req;

/* Writes the four result words (f32 bits, or integers). */
void rt_tex_sample(const rt_texture *t, const rt_sampler *s, const rt_tex_req *r, uint32_t out[4]);
/* txq: the value of query q (PTXJIT_Q_*) at mipmap level `level`. */
uint32_t rt_tex_query(const rt_texture *t, const rt_sampler *s, uint32_t q, uint32_t level);

/* One texel of img at integer coordinates (in range) as four channels:
 * integers (as_int), or floats: 8- and 16-bit integers promoted to [0, 1]
 * or [-1, 1] when `promote` (and always for the UNORM/SNORM formats), sRGB
 * decoded when `srgb`.  Missing channels read 0, alpha too (as on the GPU). */
void rt_texel_read(const rt_image *img, uint64_t x, uint64_t y, uint64_t z, uint64_t layer, bool as_int,
                   bool promote, bool srgb, uint32_t out[4]);
/* The texel's storage address. */
char *rt_texel_addr(const rt_image *img, uint64_t x, uint64_t y, uint64_t z, uint64_t layer);

/* f32 <-> its bits, and f32 bits -> f16 bits rounded to nearest even. */
static inline uint32_t rt_f32_bits(float f)
{
    uint32_t u;
    __builtin_memcpy(&u, &f, 4);
    return u;
}
static inline float rt_bits_f32(uint32_t u)
{
    float f;
    __builtin_memcpy(&f, &u, 4);
    return f;
}
uint16_t rt_half_bits(uint32_t f32);

/* 8 fractional bits: the weight the hardware's 9-bit fixed point holds. */
float rt_tex_weight(float frac);

/* ---- linear filtering arithmetic (tex_filter.c) ---- */

/* The weights (in 256ths, summing to 256) of the 2^dims corners of a
 * linear footprint, given each axis's weight of its upper texel (0..256,
 * in 256ths); corner bit d set: the upper texel along axis d.  Returns the
 * number of corners. */
uint32_t rt_tex_corner_weights(const uint32_t *frac, uint32_t dims, uint32_t w[8]);
/* Float texels under those weights: summed exactly, rounded once. */
float rt_tex_blend_float(const uint32_t *w, const float *v, uint32_t n);
/* Normalized-integer texels (raw, maxv: 255, 127, 65535 or 32767) under
 * those weights: read as a 16-bit normalized value. */
float rt_tex_blend_norm(const uint32_t *w, const int64_t *t, uint32_t n, int64_t maxv, bool sgn);
/* A border colour channel stored as a normalized integer of maxv. */
int64_t rt_tex_norm_quantize(float c, int64_t maxv, bool sgn);

#endif
