/* test_cu_texture.c - arrays, texture and surface objects through the
 * driver API, with the kernels of tests/cuda/texture.cu (nvcc PTX for
 * sm_75, sm_80 and sm_90), against a C reference written from CUDA's
 * programming guide ("Texture Fetching"): texel coordinates are the
 * normalized coordinate times the size; wrap uses x - floor(x), mirror
 * reflects every other period, clamp and border act on texel indices;
 * linear filtering computes xB = x - 0.5, i = floor(xB) and the weight
 * frac(xB) in 9-bit fixed point with 8 fractional bits.
 *   - every CUarray_format with 1, 2 and 4 channels, read as element type
 *     and as normalized float, through a 2D array;
 *   - every address mode, point and linear filtering, normalized and
 *     unnormalized coordinates on a float texture, at coordinates in and
 *     out of range, over partial warps;
 *   - 1D, 3D, layered, cubemap, linear memory, mipmap levels (explicit
 *     level and gradients), gather;
 *   - surfaces: byte-addressed loads and stores, .zero and .clamp;
 *   - simpleTexture's rotation (linear, normalized, wrap) against the
 *     reference, within the sample's tolerance;
 *   - 2D/3D and 1D copies to and from arrays, and the errors CUDA gives. */
#include <math.h>

#include "cu_test.h"

/* nvcc for sm_75, sm_80, sm_90 and clang-19 for sm_80 (no surface kernel:
 * clang's CUDA headers lack the surface functions) */
enum { NMODS = 4, NVCC_MODS = 3 };
static CUmodule mods[NMODS];
static const char *const files[NMODS] = {"texture.sm_75.ptx", "texture.sm_80.ptx", "texture.sm_90.ptx",
                                         "texture.clang.sm_80.ptx"};

static int setup(void **state)
{
    (void)state;
    setenv("PTXJIT_CC", "9.0", 0); /* so that the sm_90 PTX loads too */
    cu_test_primary();
    for (int i = 0; i < NMODS; i++)
        mods[i] = cu_test_load(files[i]);
    return 0;
}

static CUfunction fn(int m, const char *name)
{
    CUfunction f;
    CU_OK(cuModuleGetFunction(&f, mods[m], name));
    return f;
}

static CUarray array2d(CUarray_format f, unsigned ch, size_t w, size_t h, unsigned flags, const void *data,
                       size_t texel)
{
    CUDA_ARRAY3D_DESCRIPTOR d = {w, h, 0, f, ch, flags};
    CUarray a;
    CU_OK(cuArray3DCreate(&a, &d));
    CUDA_MEMCPY2D c = {.srcMemoryType = CU_MEMORYTYPE_HOST, .srcHost = data, .srcPitch = w * texel,
                       .dstMemoryType = CU_MEMORYTYPE_ARRAY, .dstArray = a, .WidthInBytes = w * texel, .Height = h};
    CU_OK(cuMemcpy2D(&c));
    return a;
}

/* A 2D array's rows back to the host: 1D copies take 1D arrays only. */
static void array2d_read(CUarray a, void *dst, size_t row_bytes, size_t h)
{
    CUDA_MEMCPY2D c = {.srcMemoryType = CU_MEMORYTYPE_ARRAY, .srcArray = a, .dstMemoryType = CU_MEMORYTYPE_HOST,
                       .dstHost = dst, .dstPitch = row_bytes, .WidthInBytes = row_bytes, .Height = h};
    CU_OK(cuMemcpy2D(&c));
}

static CUtexObject texobj(CUarray a, CUaddress_mode am, CUfilter_mode fm, unsigned flags)
{
    CUDA_RESOURCE_DESC r = {.resType = CU_RESOURCE_TYPE_ARRAY};
    r.res.array.hArray = a;
    CUDA_TEXTURE_DESC t = {.addressMode = {am, am, am}, .filterMode = fm, .flags = flags,
                           .borderColor = {0.25f, 0.5f, 0.75f, 1.0f}, .maxMipmapLevelClamp = 16};
    CUtexObject o;
    CU_OK(cuTexObjectCreate(&o, &r, &t, NULL));
    return o;
}

/* ---- the reference: the programming guide, made exact by fetches
 * recorded on an H200 (tests/gpu/results/tex.res) ---- */

/* Index i of a size-n axis through an address mode; -1: the border. */
static long ref_index(long i, long n, CUaddress_mode m)
{
    if (m == CU_TR_ADDRESS_MODE_WRAP)
        return ((i % n) + n) % n;
    if (m == CU_TR_ADDRESS_MODE_MIRROR) {
        long p = ((i % (2 * n)) + 2 * n) % (2 * n);
        return p < n ? p : 2 * n - 1 - p;
    }
    if (m == CU_TR_ADDRESS_MODE_BORDER)
        return i < 0 || i >= n ? -1 : i;
    return i < 0 ? 0 : i >= n ? n - 1 : i;
}

/* Texel-space coordinate of x: wrap and mirror only with normalized
 * coordinates (unnormalized ones clamp instead).  A normalized coordinate
 * wraps to its fraction and is cut to 23 fractional bits before scaling;
 * mirror reflects texel indices (ref_index), not the coordinate. */
static double ref_coord(float x, long n, CUaddress_mode *m, bool norm)
{
    if (!norm) {
        if (*m == CU_TR_ADDRESS_MODE_WRAP || *m == CU_TR_ADDRESS_MODE_MIRROR)
            *m = CU_TR_ADDRESS_MODE_CLAMP;
        return x;
    }
    double u = *m == CU_TR_ADDRESS_MODE_WRAP ? (double)x - floor((double)x) : (double)x;
    return floor(u * 8388608.0) / 8388608.0 * (double)n;
}

static float ref_fetch(const float *img, long w, long h, long i, long j, CUaddress_mode m, float border)
{
    i = ref_index(i, w, m), j = ref_index(j, h, m);
    return i < 0 || j < 0 ? border : img[j * w + i];
}

/* A linear filter weight in 256ths: the fraction rounded half up. */
static long ref_alpha(double f) { return (long)floor(f * 256.0 + 0.5); }

/* One channel of a w x h float texture at (x, y).  Linear filtering: the
 * product of the two weights is rounded (half up) to 256ths and the other
 * three corners take what is left of theirs, so the four sum to 1. */
static float ref_tex2d(const float *img, long w, long h, float x, float y, CUaddress_mode mode, bool linear,
                       bool norm)
{
    CUaddress_mode mx = mode, my = mode;
    double u = ref_coord(x, w, &mx, norm), v = ref_coord(y, h, &my, norm);
    CUaddress_mode m = mx; /* both axes share the mode */
    if (!linear)
        return ref_fetch(img, w, h, (long)floor(u), (long)floor(v), m, 0.25f);
    double xb = u - 0.5, yb = v - 0.5;
    long i = (long)floor(xb), j = (long)floor(yb);
    long a = ref_alpha(xb - floor(xb)), b = ref_alpha(yb - floor(yb)), ab = (a * b + 128) / 256;
    double sum = (double)(256 - a - b + ab) * ref_fetch(img, w, h, i, j, m, 0.25f) +
                 (double)(a - ab) * ref_fetch(img, w, h, i + 1, j, m, 0.25f) +
                 (double)(b - ab) * ref_fetch(img, w, h, i, j + 1, m, 0.25f) +
                 (double)ab * ref_fetch(img, w, h, i + 1, j + 1, m, 0.25f);
    return (float)(sum / 256.0);
}

static CUdeviceptr dalloc(size_t n)
{
    CUdeviceptr p;
    CU_OK(cuMemAlloc(&p, n));
    CU_OK(cuMemsetD8(p, 0, n));
    return p;
}

/* Runs tex2d_fetch (or _int) over n coordinates; results into out. */
static void fetch2d(int m, const char *kernel, CUtexObject t, const float *xy, int n, void *out)
{
    CUdeviceptr dxy = dalloc(8 * (size_t)n), dout = dalloc(16 * (size_t)n);
    CU_OK(cuMemcpyHtoD(dxy, xy, 8 * (size_t)n));
    void *args[] = {&t, &dxy, &dout, &n};
    CU_OK(cuLaunchKernel(fn(m, kernel), (unsigned)(n + 95) / 96, 1, 1, 96, 1, 1, 0, NULL, args, NULL));
    CU_OK(cuMemcpyDtoH(out, dout, 16 * (size_t)n));
    CU_OK(cuMemFree(dxy));
    CU_OK(cuMemFree(dout));
}

/* ---- formats ---- */

typedef struct fmt_case {
    CUarray_format f;
    unsigned bytes;
    bool sgn, flt;
} fmt_case;

static const fmt_case fmts[] = {
    {CU_AD_FORMAT_UNSIGNED_INT8, 1, false, false}, {CU_AD_FORMAT_UNSIGNED_INT16, 2, false, false},
    {CU_AD_FORMAT_UNSIGNED_INT32, 4, false, false}, {CU_AD_FORMAT_SIGNED_INT8, 1, true, false},
    {CU_AD_FORMAT_SIGNED_INT16, 2, true, false}, {CU_AD_FORMAT_SIGNED_INT32, 4, true, false},
    {CU_AD_FORMAT_HALF, 2, true, true}, {CU_AD_FORMAT_FLOAT, 4, true, true},
};

/* The value of channel c of texel k: distinct, signed where the format is. */
static long long raw_value(const fmt_case *fc, int k, int c)
{
    long long v = (long long)(k * 37 + c * 11 + 3) % (fc->bytes == 1 ? 120 : 3000);
    return fc->sgn && (k + c) % 3 == 0 ? -v : v;
}

static uint16_t half_of(float f) /* exact for the small integers used here */
{
    if (f == 0)
        return 0;
    uint32_t u;
    memcpy(&u, &f, 4);
    return (uint16_t)(((u >> 16) & 0x8000) | ((((u >> 23) & 0xff) - 112) << 10) | ((u >> 13) & 0x3ff));
}

static void test_formats(void **state)
{
    (void)state;
    enum { W = 5, H = 3, N = W * H };
    for (size_t f = 0; f < sizeof fmts / sizeof fmts[0]; f++)
        for (unsigned ch = 1; ch <= 4; ch *= 2) {
            const fmt_case *fc = &fmts[f];
            unsigned texel = fc->bytes * ch;
            unsigned char data[N * 16];
            for (int k = 0; k < N; k++)
                for (unsigned c = 0; c < ch; c++) {
                    long long v = raw_value(fc, k, (int)c);
                    unsigned char *p = data + k * texel + c * fc->bytes;
                    if (fc->f == CU_AD_FORMAT_HALF) {
                        uint16_t h = half_of((float)v);
                        memcpy(p, &h, 2);
                    } else if (fc->f == CU_AD_FORMAT_FLOAT) {
                        float x = (float)v;
                        memcpy(p, &x, 4);
                    } else {
                        memcpy(p, &v, fc->bytes); /* little-endian */
                    }
                }
            CUarray a = array2d(fc->f, ch, W, H, 0, data, texel);
            float xy[2 * N];
            for (int k = 0; k < N; k++)
                xy[2 * k] = (float)(k % W) + 0.5f, xy[2 * k + 1] = (float)(k / W) + 0.5f;
            bool ints = !fc->flt;
            /* element type: integers as integers, floats as floats */
            CUtexObject t = texobj(a, CU_TR_ADDRESS_MODE_CLAMP, CU_TR_FILTER_MODE_POINT, CU_TRSF_READ_AS_INTEGER);
            int m = (int)(f + ch) % NMODS;
            uint32_t out[N * 4];
            fetch2d(m, ints ? "tex2d_fetch_int" : "tex2d_fetch", t, xy, N, out);
            for (int k = 0; k < N; k++)
                for (unsigned c = 0; c < 4; c++) {
                    long long want = c < ch ? raw_value(fc, k, (int)c) : 0; /* alpha too, on the GPU */
                    float got = 0;
                    memcpy(&got, &out[4 * k + c], 4);
                    if (ints ? (int32_t)out[4 * k + c] != (int32_t)(uint32_t)want : got != (float)want)
                        fail_msg("format 0x%x x%u texel %d channel %u: got 0x%x", fc->f, ch, k, c, out[4 * k + c]);
                }
            CU_OK(cuTexObjectDestroy(t));
            if (fc->bytes < 4 && !fc->flt) { /* normalized float: v / 255, max(v / 127, -1), ... */
                t = texobj(a, CU_TR_ADDRESS_MODE_CLAMP, CU_TR_FILTER_MODE_POINT, 0);
                fetch2d(m, "tex2d_fetch", t, xy, N, out);
                float maxv = fc->sgn ? (fc->bytes == 1 ? 127.0f : 32767.0f) : (fc->bytes == 1 ? 255.0f : 65535.0f);
                for (int k = 0; k < N; k++)
                    for (unsigned c = 0; c < 4; c++) {
                        float want = c < ch ? fmaxf((float)raw_value(fc, k, (int)c) / maxv, -1.0f) : 0.0f;
                        float got;
                        memcpy(&got, &out[4 * k + c], 4);
                        if (fabsf(got - want) > 1e-6f)
                            fail_msg("format 0x%x x%u normalized texel %d channel %u: %g, want %g", fc->f, ch, k, c,
                                     got, want);
                    }
                CU_OK(cuTexObjectDestroy(t));
            }
            CU_OK(cuArrayDestroy(a));
        }
}

/* ---- addressing and filtering ---- */

static void test_address_filter(void **state)
{
    (void)state;
    enum { W = 7, H = 5, N = 333 };
    float img[W * H];
    for (int k = 0; k < W * H; k++)
        img[k] = (float)((k * 29) % 17) - 3.5f;
    CUarray a = array2d(CU_AD_FORMAT_FLOAT, 1, W, H, 0, img, 4);
    float xy[2 * N];
    for (int k = 0; k < N; k++) { /* normalized [-2.3, 2.3) and texel [-15, 15), irregular steps */
        xy[2 * k] = -2.3f + 4.6f * (float)((k * 53) % N) / N;
        xy[2 * k + 1] = -2.3f + 4.6f * (float)((k * 91) % N) / N;
    }
    for (int mode = 0; mode < 4; mode++)
        for (int lin = 0; lin < 2; lin++)
            for (int norm = 0; norm < 2; norm++) {
                float c[2 * N];
                for (int k = 0; k < 2 * N; k++)
                    c[k] = norm ? xy[k] : xy[k] * 6.5f;
                CUtexObject t = texobj(a, (CUaddress_mode)mode, (CUfilter_mode)lin, norm ? CU_TRSF_NORMALIZED_COORDINATES : 0);
                float out[4 * N];
                fetch2d((mode + lin + norm) % NMODS, "tex2d_fetch", t, c, N, out);
                for (int k = 0; k < N; k++) {
                    float want = ref_tex2d(img, W, H, c[2 * k], c[2 * k + 1], (CUaddress_mode)mode, lin, norm);
                    if (fabsf(out[4 * k] - want) > 1e-5f * (1 + fabsf(want)))
                        fail_msg("mode %d linear %d normalized %d at (%g, %g): %.9g, want %.9g", mode, lin, norm,
                                 c[2 * k], c[2 * k + 1], out[4 * k], want);
                }
                CU_OK(cuTexObjectDestroy(t));
            }
    CU_OK(cuArrayDestroy(a));
}

/* The weights hold 8 fractional bits: a texel-space step of 1/1024 moves a
 * linear fetch between 0 and 1 in steps of 1/256, not 1/1024. */
static void test_weight_precision(void **state)
{
    (void)state;
    float img[2] = {0.0f, 1.0f};
    CUarray a = array2d(CU_AD_FORMAT_FLOAT, 1, 2, 1, 0, img, 4);
    CUtexObject t = texobj(a, CU_TR_ADDRESS_MODE_CLAMP, CU_TR_FILTER_MODE_LINEAR, 0);
    enum { N = 1025 };
    float xy[2 * N], out[4 * N];
    for (int k = 0; k < N; k++)
        xy[2 * k] = 0.5f + (float)k / 1024.0f, xy[2 * k + 1] = 0.5f;
    fetch2d(3, "tex2d_fetch", t, xy, N, out);
    for (int k = 0; k < N; k++) {
        float want = roundf((float)k / 4.0f) / 256.0f;
        if (out[4 * k] != want)
            fail_msg("x = 0.5 + %d/1024: %.9g, want %.9g", k, out[4 * k], want);
    }
    CU_OK(cuTexObjectDestroy(t));
    CU_OK(cuArrayDestroy(a));
}


/* ---- geometries: each texel holds its own coordinates ---- */

static CUarray array3d(size_t w, size_t h, size_t d, unsigned flags, float (*value)(size_t, size_t, size_t, int))
{
    CUDA_ARRAY3D_DESCRIPTOR desc = {w, h, d, CU_AD_FORMAT_FLOAT, 4, flags};
    CUarray a;
    CU_OK(cuArray3DCreate(&a, &desc));
    size_t hh = h ? h : 1, dd = d ? d : 1, n = w * hh * dd * 4;
    float *buf = malloc(n * sizeof *buf);
    for (size_t z = 0; z < dd; z++)
        for (size_t y = 0; y < hh; y++)
            for (size_t x = 0; x < w; x++)
                for (int c = 0; c < 4; c++)
                    buf[((z * hh + y) * w + x) * 4 + c] = value(x, y, z, c);
    CUDA_MEMCPY3D c = {.srcMemoryType = CU_MEMORYTYPE_HOST, .srcHost = buf, .srcPitch = w * 16, .srcHeight = hh,
                       .dstMemoryType = CU_MEMORYTYPE_ARRAY, .dstArray = a, .WidthInBytes = w * 16, .Height = hh,
                       .Depth = dd};
    CU_OK(cuMemcpy3D(&c));
    free(buf);
    return a;
}

static float coords_value(size_t x, size_t y, size_t z, int c) { return c == 0 ? (float)x : c == 1 ? (float)y : c == 2 ? (float)z : 7.0f; }

/* The cube face of a direction and its (s, t) in [0, 1], from the
 * programming guide's cubemap table. */
static int ref_face(float x, float y, float z, float *s, float *t)
{
    float ax = fabsf(x), ay = fabsf(y), az = fabsf(z);
    if (ax >= ay && ax >= az) {
        *s = (x >= 0 ? -z : z) / ax, *t = -y / ax;
        return x >= 0 ? 0 : 1;
    }
    if (ay >= az) {
        *s = x / ay, *t = (y >= 0 ? z : -z) / ay;
        return y >= 0 ? 2 : 3;
    }
    *s = (z >= 0 ? x : -x) / az, *t = -y / az;
    return z >= 0 ? 4 : 5;
}

static long clampl(long v, long n) { return v < 0 ? 0 : v >= n ? n - 1 : v; }

static void test_geometries(void **state)
{
    (void)state;
    enum { N = 70, W = 6 };
    CUarray a1 = array3d(W, 0, 0, 0, coords_value), a2 = array3d(4, 4, 0, 0, coords_value);
    CUarray a3 = array3d(3, 4, 5, 0, coords_value);
    CUarray al = array3d(4, 3, 3, CUDA_ARRAY3D_LAYERED, coords_value);
    CUarray ac = array3d(4, 4, 6, CUDA_ARRAY3D_CUBEMAP, coords_value);
    CUtexObject t1 = texobj(a1, CU_TR_ADDRESS_MODE_CLAMP, CU_TR_FILTER_MODE_POINT, 0);
    CUtexObject t2 = texobj(a2, CU_TR_ADDRESS_MODE_WRAP, CU_TR_FILTER_MODE_POINT, CU_TRSF_NORMALIZED_COORDINATES);
    CUtexObject t3 = texobj(a3, CU_TR_ADDRESS_MODE_CLAMP, CU_TR_FILTER_MODE_POINT, 0);
    CUtexObject tl = texobj(al, CU_TR_ADDRESS_MODE_CLAMP, CU_TR_FILTER_MODE_POINT, 0);
    CUtexObject tc = texobj(ac, CU_TR_ADDRESS_MODE_CLAMP, CU_TR_FILTER_MODE_POINT, CU_TRSF_NORMALIZED_COORDINATES);
    /* linear memory: 10 float4, zeros outside */
    float lin[40];
    for (int k = 0; k < 40; k++)
        lin[k] = (float)(k / 4) + 0.5f * (float)(k % 4);
    CUdeviceptr dl = dalloc(sizeof lin);
    CU_OK(cuMemcpyHtoD(dl, lin, sizeof lin));
    CUDA_RESOURCE_DESC rl = {.resType = CU_RESOURCE_TYPE_LINEAR};
    rl.res.linear.devPtr = dl, rl.res.linear.format = CU_AD_FORMAT_FLOAT, rl.res.linear.numChannels = 4;
    rl.res.linear.sizeInBytes = sizeof lin;
    CUDA_TEXTURE_DESC td = {.filterMode = CU_TR_FILTER_MODE_POINT};
    CUtexObject tlin;
    CU_OK(cuTexObjectCreate(&tlin, &rl, &td, NULL));
    /* mipmapped 16x16, 5 levels; level L holds 10 L everywhere */
    CUDA_ARRAY3D_DESCRIPTOR md = {16, 16, 0, CU_AD_FORMAT_FLOAT, 4, 0};
    CUmipmappedArray mm;
    CU_OK(cuMipmappedArrayCreate(&mm, &md, 5));
    for (unsigned l = 0; l < 5; l++) {
        CUarray lv;
        CU_OK(cuMipmappedArrayGetLevel(&lv, mm, l));
        size_t sz = 16u >> l;
        float *buf = malloc(sz * sz * 16);
        for (size_t k = 0; k < sz * sz * 4; k++)
            buf[k] = 10.0f * (float)l;
        CUDA_MEMCPY2D c = {.srcMemoryType = CU_MEMORYTYPE_HOST, .srcHost = buf, .srcPitch = sz * 16,
                           .dstMemoryType = CU_MEMORYTYPE_ARRAY, .dstArray = lv, .WidthInBytes = sz * 16, .Height = sz};
        CU_OK(cuMemcpy2D(&c));
        free(buf);
    }
    CUDA_RESOURCE_DESC rm = {.resType = CU_RESOURCE_TYPE_MIPMAPPED_ARRAY};
    rm.res.mipmap.hMipmappedArray = mm;
    CUDA_TEXTURE_DESC tdm = {.filterMode = CU_TR_FILTER_MODE_POINT, .mipmapFilterMode = CU_TR_FILTER_MODE_POINT,
                             .flags = CU_TRSF_NORMALIZED_COORDINATES, .maxMipmapLevelClamp = 4};
    CUtexObject tm;
    CU_OK(cuTexObjectCreate(&tm, &rm, &tdm, NULL));

    float c[4 * N];
    for (int k = 0; k < N; k++) {
        c[4 * k] = -1.3f + 9.0f * (float)((k * 17) % N) / N; /* texel space for 1D/3D/layered */
        c[4 * k + 1] = -1.1f + 6.0f * (float)((k * 23) % N) / N;
        c[4 * k + 2] = -1.2f + 7.0f * (float)((k * 31) % N) / N;
        c[4 * k + 3] = (float)(k % 12) - 1.0f; /* layer, fetch index, lod (-1 .. 10) */
    }
    CUdeviceptr dc = dalloc(sizeof c), dout = dalloc(8 * 16 * N);
    CU_OK(cuMemcpyHtoD(dc, c, sizeof c));
    for (int m = 0; m < NMODS; m++) {
        int n = N;
        void *args[] = {&t1, &t2, &t3, &tl, &tc, &tlin, &tm, &dc, &dout, &n};
        CU_OK(cuLaunchKernel(fn(m, "tex_kinds"), 1, 1, 1, 96, 1, 1, 0, NULL, args, NULL));
        float out[8 * 4 * N];
        CU_OK(cuMemcpyDtoH(out, dout, sizeof out));
        for (int k = 0; k < N; k++) {
            const float *p = &c[4 * k], *o = &out[32 * k];
            float s, t;
            long fx = (long)floorf(p[0]), fy = (long)floorf(p[1]), fz = (long)floorf(p[2]);
            int face = ref_face(p[0], p[1], p[2], &s, &t);
            /* the layer index is unsigned on the GPU: -1 clamps to the last layer */
            long layer = p[3] < 0 ? 2 : clampl((long)p[3], 3), fetch = (long)p[3];
            float lod = p[3] < 0 ? 0 : p[3] > 4 ? 4 : p[3];
            float grad_lod = log2f(fabsf(p[2]) * 16.0f);
            grad_lod = !(grad_lod > 0) ? 0 : grad_lod > 4 ? 4 : grad_lod;
            /* tex2Dgather on the wrapped, normalized 4x4 t2: component 1 (y) of
             * (i0, j1), (i1, j1), (i1, j0), (i0, j0) */
            float gx = (p[0] - floorf(p[0])) * 4 - 0.5f, gy = (p[1] - floorf(p[1])) * 4 - 0.5f;
            long j0 = ((long)floorf(gy) % 4 + 4) % 4, j1 = (j0 + 1) % 4;
            float want[8][4] = {
                {(float)clampl(fx, W), 0, 0, 7},
                {(float)clampl(fx, 3), (float)clampl(fy, 4), (float)clampl(fz, 5), 7},
                {(float)clampl(fx, 4), (float)clampl(fy, 3), (float)layer, 7},
                {(float)clampl((long)floorf((s + 1) * 0.5f * 4), 4), (float)clampl((long)floorf((t + 1) * 0.5f * 4), 4),
                 (float)face, 7},
                {fetch >= 0 && fetch < 10 ? (float)fetch : 0, fetch >= 0 && fetch < 10 ? fetch + 0.5f : 0,
                 fetch >= 0 && fetch < 10 ? fetch + 1.0f : 0, fetch >= 0 && fetch < 10 ? fetch + 1.5f : 0},
                {10 * floorf(lod + 0.5f), 10 * floorf(lod + 0.5f), 10 * floorf(lod + 0.5f), 10 * floorf(lod + 0.5f)},
                {10 * floorf(grad_lod + 0.5f), 10 * floorf(grad_lod + 0.5f), 10 * floorf(grad_lod + 0.5f),
                 10 * floorf(grad_lod + 0.5f)},
                {(float)j1, (float)j1, (float)j0, (float)j0},
            };
            (void)gx;
            for (int r = 0; r < 8; r++)
                for (int ch = 0; ch < 4; ch++)
                    if (o[4 * r + ch] != want[r][ch])
                        fail_msg("%s: thread %d result %d channel %d at (%g, %g, %g, %g): %g, want %g", files[m], k, r,
                                 ch, p[0], p[1], p[2], p[3], o[4 * r + ch], want[r][ch]);
        }
    }
    CUtexObject all[] = {t1, t2, t3, tl, tc, tlin, tm};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        CU_OK(cuTexObjectDestroy(all[i]));
    CUarray arrs[] = {a1, a2, a3, al, ac};
    for (size_t i = 0; i < sizeof arrs / sizeof arrs[0]; i++)
        CU_OK(cuArrayDestroy(arrs[i]));
    CU_OK(cuMipmappedArrayDestroy(mm));
    CU_OK(cuMemFree(dc));
    CU_OK(cuMemFree(dout));
    CU_OK(cuMemFree(dl));
}

/* ---- surfaces ---- */

static void test_surfaces(void **state)
{
    (void)state;
    enum { W = 37, H = 3 };
    unsigned char src[W * H * 4], dst[W * H * 4];
    for (int k = 0; k < W * H * 4; k++)
        src[k] = (unsigned char)(k * 7 + 1);
    CUarray as = array2d(CU_AD_FORMAT_UNSIGNED_INT8, 4, W, H, CUDA_ARRAY3D_SURFACE_LDST, src, 4);
    CUarray ad = array2d(CU_AD_FORMAT_UNSIGNED_INT8, 4, W, H, CUDA_ARRAY3D_SURFACE_LDST, src, 4);
    CUDA_RESOURCE_DESC r = {.resType = CU_RESOURCE_TYPE_ARRAY};
    CUsurfObject ss, sd;
    r.res.array.hArray = as;
    CU_OK(cuSurfObjectCreate(&ss, &r));
    r.res.array.hArray = ad;
    CU_OK(cuSurfObjectCreate(&sd, &r));
    CUdeviceptr dz = dalloc(W * H * 4);
    CU_OK(cuMemsetD32(dz, 0x7f7f7f7f, W * H));
    for (int m = 0; m < NVCC_MODS; m++) {
        int w = W, h = H;
        void *args[] = {&ss, &sd, &dz, &w, &h};
        CU_OK(cuLaunchKernel(fn(m, "surf_swap"), 1, 1, 1, 16, 4, 1, 0, NULL, args, NULL));
        CU_OK(cuLaunchKernel(fn(m, "surf_swap"), 2, 1, 1, 32, 4, 1, 0, NULL, args, NULL));
        CU_OK(cuCtxSynchronize());
        array2d_read(ad, dst, W * 4, H);
        float zero[W * H];
        CU_OK(cuMemcpyDtoH(zero, dz, sizeof zero));
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                const unsigned char *s = &src[(y * W + x) * 4], *d = &dst[(y * W + x) * 4];
                if (x == W - 1) { /* the clamped float store came last */
                    float f = (float)(x + y), g;
                    memcpy(&g, d, 4);
                    if (g != f)
                        fail_msg("%s: clamped store at row %d: %g, want %g", files[m], y, g, f);
                } else if (d[0] != s[3] || d[1] != s[2] || d[2] != s[1] || d[3] != s[0]) {
                    fail_msg("%s: surface texel (%d, %d) not swapped", files[m], x, y);
                }
                if (zero[y * W + x] != 0)
                    fail_msg("%s: cudaBoundaryModeZero read %g at (%d, %d)", files[m], zero[y * W + x], x, y);
            }
    }
    /* a surface needs an array made for surface loads and stores */
    CUarray plain = array2d(CU_AD_FORMAT_FLOAT, 1, 4, 4, 0, src, 4);
    r.res.array.hArray = plain;
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuSurfObjectCreate(&ss, &r));
    CU_OK(cuSurfObjectDestroy(sd));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuSurfObjectDestroy(sd));
    CU_OK(cuArrayDestroy(plain));
    CU_OK(cuArrayDestroy(as));
    CU_OK(cuArrayDestroy(ad));
    CU_OK(cuMemFree(dz));
}

/* ---- simpleTexture: rotate an image through a 2D texture ---- */

static void test_rotate(void **state)
{
    (void)state;
    enum { W = 64, H = 48 };
    const float theta = 0.5f;
    float img[W * H], out[W * H];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            img[y * W + x] = (float)((x * 7 + y * 13) % 32) / 31.0f; /* a [0, 1] test pattern */
    CUarray a = array2d(CU_AD_FORMAT_FLOAT, 1, W, H, 0, img, 4);
    CUtexObject t = texobj(a, CU_TR_ADDRESS_MODE_WRAP, CU_TR_FILTER_MODE_LINEAR, CU_TRSF_NORMALIZED_COORDINATES);
    CUdeviceptr d = dalloc(sizeof out);
    for (int m = 0; m < NMODS; m++) {
        int w = W, h = H;
        float th = theta;
        void *args[] = {&d, &w, &h, &th, &t};
        CU_OK(cuLaunchKernel(fn(m, "rotate_tex"), W / 8, H / 8, 1, 8, 8, 1, 0, NULL, args, NULL));
        CU_OK(cuMemcpyDtoH(out, d, sizeof out));
        /* the sample's check: every pixel within MAX_EPSILON_ERROR = 5e-3 */
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                float u = (float)x - (float)W / 2, v = (float)y - (float)H / 2;
                float tu = (u * cosf(theta) - v * sinf(theta)) / (float)W, tv = (v * cosf(theta) + u * sinf(theta)) / (float)H;
                float want = ref_tex2d(img, W, H, tu + 0.5f, tv + 0.5f, CU_TR_ADDRESS_MODE_WRAP, true, true);
                if (fabsf(out[y * W + x] - want) > 5e-3f)
                    fail_msg("%s: pixel (%d, %d): %g, want %g", files[m], x, y, out[y * W + x], want);
            }
    }
    CU_OK(cuTexObjectDestroy(t));
    CU_OK(cuArrayDestroy(a));
    CU_OK(cuMemFree(d));
}

/* ---- copies and errors ---- */

static void test_copies(void **state)
{
    (void)state;
    enum { W = 5, H = 4, D = 3, T = 4 }; /* u16 x 2 texels */
    uint16_t in[W * H * D * 2], back[W * H * D * 2];
    for (int k = 0; k < W * H * D * 2; k++)
        in[k] = (uint16_t)(k * 3 + 1);
    CUDA_ARRAY3D_DESCRIPTOR d = {W, H, D, CU_AD_FORMAT_UNSIGNED_INT16, 2, 0};
    CUarray a, b;
    CU_OK(cuArray3DCreate(&a, &d));
    CU_OK(cuArray3DCreate(&b, &d));
    CUDA_ARRAY3D_DESCRIPTOR got;
    CU_OK(cuArray3DGetDescriptor(&got, a));
    assert_true(got.Width == W && got.Height == H && got.Depth == D && got.NumChannels == 2);
    CUDA_ARRAY_DESCRIPTOR d2; /* of a 3D array too, on NVIDIA's driver */
    CU_OK(cuArrayGetDescriptor(&d2, a));
    assert_true(d2.Width == W && d2.Height == H && d2.NumChannels == 2 && d2.Format == CU_AD_FORMAT_UNSIGNED_INT16);
    CUDA_MEMCPY3D c = {.srcMemoryType = CU_MEMORYTYPE_HOST, .srcHost = in, .srcPitch = W * T, .srcHeight = H,
                       .dstMemoryType = CU_MEMORYTYPE_ARRAY, .dstArray = a, .WidthInBytes = W * T, .Height = H, .Depth = D};
    CU_OK(cuMemcpy3D(&c));
    /* array to array, then a sub-box of it to device memory and back */
    CUDA_MEMCPY3D aa = {.srcMemoryType = CU_MEMORYTYPE_ARRAY, .srcArray = a, .dstMemoryType = CU_MEMORYTYPE_ARRAY,
                        .dstArray = b, .WidthInBytes = W * T, .Height = H, .Depth = D};
    CU_OK(cuMemcpy3D(&aa));
    CUdeviceptr dev = dalloc(sizeof in);
    CUDA_MEMCPY3D ad = {.srcXInBytes = T, .srcY = 1, .srcZ = 1, .srcMemoryType = CU_MEMORYTYPE_ARRAY, .srcArray = b,
                        .dstMemoryType = CU_MEMORYTYPE_DEVICE, .dstDevice = dev, .dstPitch = 3 * T, .dstHeight = 2,
                        .WidthInBytes = 3 * T, .Height = 2, .Depth = 2};
    CU_OK(cuMemcpy3D(&ad));
    CU_OK(cuMemcpyDtoH(back, dev, 3 * T * 2 * 2));
    for (int z = 0; z < 2; z++)
        for (int y = 0; y < 2; y++)
            for (int x = 0; x < 6; x++)
                assert_int_equal(back[(z * 2 + y) * 6 + x], in[((z + 1) * H + y + 1) * W * 2 + 2 + x]);
    /* 1D copies take 1D arrays only (the documentation; NVIDIA's driver
     * refuses a 2D or 3D one) */
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemcpyAtoH(back, a, 0, sizeof in));
    CUDA_ARRAY3D_DESCRIPTOR d1 = {W * H * D, 0, 0, CU_AD_FORMAT_UNSIGNED_INT16, 2, 0};
    CUarray l1, l2;
    CU_OK(cuArray3DCreate(&l1, &d1));
    CU_OK(cuArray3DCreate(&l2, &d1));
    CU_OK(cuMemcpyHtoA(l1, 0, in, sizeof in));
    CU_OK(cuMemcpyAtoH(back, l1, 0, sizeof in));
    assert_memory_equal(back, in, sizeof in);
    uint16_t two[2] = {0xabcd, 0x1234};
    CU_OK(cuMemcpyHtoA(l1, 2 * T, two, sizeof two));
    CU_OK(cuMemcpyAtoA(l2, 0, l1, 2 * T, sizeof two));
    CU_OK(cuMemcpyAtoD(dev, l2, 0, sizeof two));
    CU_OK(cuMemcpyDtoH(back, dev, sizeof two));
    assert_memory_equal(back, two, sizeof two);
    /* out of the array, a bad handle, bad descriptors */
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemcpyHtoA(l1, W * T * H * D - 2, two, sizeof two));
    CU_OK(cuArrayDestroy(l1));
    CU_OK(cuArrayDestroy(l2));
    c.dstY = 1;
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemcpy3D(&c));
    CUDA_ARRAY3D_DESCRIPTOR bad = {0, 4, 0, CU_AD_FORMAT_FLOAT, 1, 0};
    CUarray x;
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuArray3DCreate(&x, &bad));
    bad = (CUDA_ARRAY3D_DESCRIPTOR){4, 4, 0, CU_AD_FORMAT_FLOAT, 3, 0};
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuArray3DCreate(&x, &bad));
    bad = (CUDA_ARRAY3D_DESCRIPTOR){4, 4, 5, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_CUBEMAP};
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuArray3DCreate(&x, &bad));
    CUDA_RESOURCE_DESC r = {.resType = CU_RESOURCE_TYPE_ARRAY};
    r.res.array.hArray = (CUarray)(uintptr_t)0x1234;
    CUDA_TEXTURE_DESC td = {.filterMode = CU_TR_FILTER_MODE_POINT};
    CUtexObject t;
    CU_EXPECT(CUDA_ERROR_INVALID_HANDLE, cuTexObjectCreate(&t, &r, &td, NULL));
    CU_OK(cuArrayDestroy(a));
    CU_OK(cuArrayDestroy(b));
    CU_EXPECT(CUDA_ERROR_INVALID_HANDLE, cuArrayDestroy(a));
    CU_OK(cuMemFree(dev));
}

/* ---- references, queries and the instructions nvcc does not emit ---- */

/* Hand-written (ptxas accepts it): per thread t of 40, 16 words:
 *  0: tex.2d through the .texref tr at (t + 0.5, 1.5)
 *  1-6: txq width, height, num_mipmap_levels, normalized_coords,
 *       filter_mode, addr_mode_1;  7-9: suq width, height, memory_layout
 *  10: istypep texref(obj) << 2 | surfref(obj) << 1 | surfref(surf)
 *  11: tex.2d.v2.f16x2 at (2.5, 0.5), first word;  12-15: tld4.r at (1, 1)
 * and on the surface: every thread adds 1 to element (0, 0) (sured.b.add),
 * the max of the thread ids into the clamped element (7, 0), and
 * sust.p writes 3t to element (t, 1) (dropped past the row: .zero). */
static const char refs_ptx[] =
    ".version 8.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    ".global .texref tr;\n"
    ".global .surfref sr;\n"
    ".visible .entry refs(.param .u64 pobj, .param .u64 psurf, .param .u64 pout)\n"
    "{\n"
    "  .reg .b64 %rd<8>; .reg .b32 %r<40>; .reg .f32 %f<16>; .reg .pred %p<4>;\n"
    "  ld.param.u64 %rd1, [pobj]; ld.param.u64 %rd2, [psurf]; ld.param.u64 %rd3, [pout];\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  mul.wide.u32 %rd4, %r1, 64; add.s64 %rd5, %rd3, %rd4;\n"
    "  cvt.rn.f32.u32 %f1, %r1; add.f32 %f1, %f1, 0f3F000000; mov.f32 %f2, 0f3FC00000;\n"
    "  tex.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [tr, {%f1, %f2}];\n"
    "  st.global.f32 [%rd5], %f3;\n"
    "  txq.width.b32 %r2, [tr]; txq.height.b32 %r3, [%rd1]; txq.num_mipmap_levels.b32 %r4, [%rd1];\n"
    "  txq.normalized_coords.b32 %r5, [tr]; txq.filter_mode.b32 %r6, [%rd1]; txq.addr_mode_1.b32 %r7, [%rd1];\n"
    "  st.global.u32 [%rd5+4], %r2; st.global.u32 [%rd5+8], %r3; st.global.u32 [%rd5+12], %r4;\n"
    "  st.global.u32 [%rd5+16], %r5; st.global.u32 [%rd5+20], %r6; st.global.u32 [%rd5+24], %r7;\n"
    "  suq.width.b32 %r8, [sr]; suq.height.b32 %r9, [%rd2]; suq.memory_layout.b32 %r10, [%rd2];\n"
    "  st.global.u32 [%rd5+28], %r8; st.global.u32 [%rd5+32], %r9; st.global.u32 [%rd5+36], %r10;\n"
    "  istypep.texref %p1, %rd1; istypep.surfref %p2, %rd1; istypep.surfref %p3, %rd2;\n"
    "  selp.u32 %r11, 1, 0, %p1; selp.u32 %r12, 1, 0, %p2; selp.u32 %r13, 1, 0, %p3;\n"
    "  shl.b32 %r11, %r11, 2; shl.b32 %r12, %r12, 1; or.b32 %r11, %r11, %r12; or.b32 %r11, %r11, %r13;\n"
    "  st.global.u32 [%rd5+40], %r11;\n"
    "  mov.f32 %f7, 0f3F800000;\n"
    "  tld4.r.2d.v4.f32.f32 {%f8, %f9, %f10, %f11}, [%rd1, {%f7, %f7}];\n"
    "  st.global.v4.f32 [%rd5+48], {%f8, %f9, %f10, %f11};\n"
    "  mov.f32 %f12, 0f40200000; mov.f32 %f13, 0f3F000000;\n"
    "  tex.2d.v2.f16x2.f32 {%r14, %r15}, [%rd1, {%f12, %f13}];\n"
    "  st.global.u32 [%rd5+44], %r14;\n"
    "  mov.u32 %r16, 0;\n"
    "  sured.b.add.2d.u32.trap [%rd2, {%r16, %r16}], 1;\n"
    "  mov.u32 %r17, 400;\n"
    "  sured.b.max.2d.s32.clamp [sr, {%r17, %r16}], %r1;\n"
    "  mul.lo.u32 %r18, %r1, 3; mov.u32 %r19, 1;\n"
    "  sust.p.2d.b32.zero [%rd2, {%r1, %r19}], {%r18};\n"
    "  ret;\n"
    "}\n"
;

static void test_refs_and_queries(void **state)
{
    (void)state;
    enum { W = 4, H = 3, T = 40, SW = 8 };
    float img[W * H];
    for (int k = 0; k < W * H; k++)
        img[k] = (float)(k + 1);
    CUarray a = array2d(CU_AD_FORMAT_FLOAT, 1, W, H, 0, img, 4);
    uint32_t zeros[SW * 2] = {0};
    CUarray sa = array2d(CU_AD_FORMAT_UNSIGNED_INT32, 1, SW, 2, CUDA_ARRAY3D_SURFACE_LDST, zeros, 4);
    CUmodule m;
    CUresult loaded = cuModuleLoadData(&m, refs_ptx);
    if (loaded == CUDA_ERROR_NOT_SUPPORTED) { /* NVIDIA's driver (CUDA 13) has dropped texture references */
        CU_OK(cuArrayDestroy(a));
        CU_OK(cuArrayDestroy(sa));
        skip();
    }
    CU_OK(loaded);
    CUtexref tr;
    CUsurfref sr;
    CU_OK(cuModuleGetTexRef(&tr, m, "tr"));
    CU_OK(cuModuleGetSurfRef(&sr, m, "sr"));
    CU_EXPECT(CUDA_ERROR_NOT_FOUND, cuModuleGetTexRef(&tr, m, "nope"));
    CU_OK(cuTexRefSetArray(tr, a, CU_TRSA_OVERRIDE_FORMAT));
    CU_OK(cuTexRefSetAddressMode(tr, 0, CU_TR_ADDRESS_MODE_CLAMP));
    CU_OK(cuTexRefSetAddressMode(tr, 1, CU_TR_ADDRESS_MODE_CLAMP));
    CU_OK(cuTexRefSetFilterMode(tr, CU_TR_FILTER_MODE_POINT));
    CU_OK(cuTexRefSetFlags(tr, 0));
    CUarray got;
    CU_OK(cuTexRefGetArray(&got, tr));
    assert_ptr_equal(got, a);
    CUaddress_mode am;
    CU_OK(cuTexRefGetAddressMode(&am, tr, 1));
    assert_int_equal(am, CU_TR_ADDRESS_MODE_CLAMP);
    CU_OK(cuSurfRefSetArray(sr, sa, 0));
    CUtexObject t = texobj(a, CU_TR_ADDRESS_MODE_CLAMP, CU_TR_FILTER_MODE_POINT, 0);
    CUDA_RESOURCE_DESC r = {.resType = CU_RESOURCE_TYPE_ARRAY};
    r.res.array.hArray = sa;
    CUsurfObject so;
    CU_OK(cuSurfObjectCreate(&so, &r));
    CUdeviceptr dout = dalloc(64 * T);
    CUfunction f;
    CU_OK(cuModuleGetFunction(&f, m, "refs"));
    void *args[] = {&t, &so, &dout};
    CU_OK(cuLaunchKernel(f, 1, 1, 1, T, 1, 1, 0, NULL, args, NULL));
    uint32_t out[16 * T], surf[SW * 2];
    CU_OK(cuMemcpyDtoH(out, dout, sizeof out));
    array2d_read(sa, surf, SW * 4, 2);
    for (int k = 0; k < T; k++) {
        const uint32_t *o = &out[16 * k];
        float f0, g[4];
        memcpy(&f0, o, 4);
        memcpy(g, o + 12, 16);
        assert_true(f0 == img[W + (k < W ? k : W - 1)]);
        uint32_t want[] = {W, H, 1, 0, CU_TR_FILTER_MODE_POINT, CU_TR_ADDRESS_MODE_CLAMP, SW, 2, 0, 4 | 0 | 1,
                           0x00004200}; /* 3.0 in the low half, 0 above */
        for (int i = 0; i < 11; i++)
            if (o[1 + i] != want[i])
                fail_msg("thread %d word %d: 0x%x, want 0x%x", k, 1 + i, o[1 + i], want[i]);
        assert_true(g[0] == img[W] && g[1] == img[W + 1] && g[2] == img[1] && g[3] == img[0]);
    }
    assert_int_equal(surf[0], T);
    assert_int_equal(surf[SW - 1], T - 1);
    for (int x = 0; x < SW; x++)
        assert_int_equal(surf[SW + x], 3 * x);
    CU_OK(cuTexObjectDestroy(t));
    CU_OK(cuSurfObjectDestroy(so));
    CU_OK(cuArrayDestroy(a));
    CU_OK(cuArrayDestroy(sa));
    CU_OK(cuMemFree(dout));
    CU_OK(cuModuleUnload(m));
}

/* A destroyed texture object is an invalid handle: ptxjit's launch faults
 * (in a context of its own: the error sticks to it, as on a GPU).  Using
 * it is undefined: NVIDIA's driver runs the launch without an error. */
static void test_destroyed_handle_faults(void **state)
{
    (void)state;
    CUcontext primary, c;
    CUdevice dev;
    CU_OK(cuCtxGetCurrent(&primary));
    CU_OK(cuDeviceGet(&dev, 0));
    CU_OK(cuCtxCreate(&c, NULL, 0, dev));
    float img[4] = {1, 2, 3, 4};
    CUarray a = array2d(CU_AD_FORMAT_FLOAT, 1, 4, 1, 0, img, 4);
    CUtexObject t = texobj(a, CU_TR_ADDRESS_MODE_CLAMP, CU_TR_FILTER_MODE_POINT, 0);
    CU_OK(cuTexObjectDestroy(t));
    CUmodule m = cu_test_load("texture.sm_80.ptx");
    CUfunction f;
    CU_OK(cuModuleGetFunction(&f, m, "tex2d_fetch"));
    CUdeviceptr d = dalloc(64);
    int n = 1;
    void *args[] = {&t, &d, &d, &n};
    CU_OK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    CUresult r = cuCtxSynchronize();
    if (r != CUDA_SUCCESS)
        CU_EXPECT(CUDA_ERROR_ILLEGAL_ADDRESS, r);
    CU_OK(cuArrayDestroy(a)); /* arrays outlive contexts' errors */
    CU_OK(cuCtxDestroy(c));
    CU_OK(cuCtxSetCurrent(primary));
}

/* Arrays can be made up to deviceQuery's texture limits.  The documented
 * ranges end there and ptxjit refuses larger ones; NVIDIA's driver makes
 * some of them (an H200 did), so past the limit either answer passes. */
static void test_limits(void **state)
{
    (void)state;
    CUdevice dev;
    CU_OK(cuDeviceGet(&dev, 0));
    struct { CUdevice_attribute attr; size_t w, h, d; unsigned flags; int which; } lim[] = {
        {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH, 0, 0, 0, 0, 0},
        {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT, 1, 0, 0, 0, 1},
        {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH, 1, 1, 0, 0, 2},
        {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS, 1, 1, 0, CUDA_ARRAY3D_LAYERED, 2},
    };
    for (size_t i = 0; i < sizeof lim / sizeof lim[0]; i++) {
        int v;
        CU_OK(cuDeviceGetAttribute(&v, lim[i].attr, dev));
        assert_true(v > 0);
        for (int over = 0; over < 2; over++) {
            size_t dims[3] = {lim[i].w, lim[i].h, lim[i].d};
            dims[lim[i].which] = (size_t)v + (size_t)over;
            CUDA_ARRAY3D_DESCRIPTOR d = {dims[0], dims[1], dims[2], CU_AD_FORMAT_UNSIGNED_INT8, 1, lim[i].flags};
            CUarray a;
            CUresult r = cuArray3DCreate(&a, &d);
            if (over && r != CUDA_SUCCESS)
                CU_EXPECT(CUDA_ERROR_INVALID_VALUE, r);
            else {
                CU_OK(r);
                CU_OK(cuArrayDestroy(a));
            }
        }
    }
}

/* texmode_independent: .samplerref variables initialized in the module
 * ({ addr_mode_0 = wrap, ... }) give a texture object their address and
 * filter modes; thread t fetches at (t / 8, 0.5) through wrap_nearest and at
 * (t, 0.5) through border_linear (force_unnormalized_coords).  ptxas
 * accepts the module. */
static const char samplers_ptx[] =
    ".version 8.0\n"
    ".target sm_80, texmode_independent\n"
    ".address_size 64\n"
    ".global .samplerref wrap_nearest = { addr_mode_0 = wrap, addr_mode_1 = clamp_to_edge, filter_mode = nearest };\n"
    ".global .samplerref border_linear = { addr_mode_0 = clamp_to_border, addr_mode_1 = clamp_to_border, filter_mode = linear, force_unnormalized_coords = 1 };\n"
    ".visible .entry samp(.param .u64 ptex, .param .u64 pout)\n"
    "{\n"
    "  .reg .b64 %rd<8>; .reg .b32 %r<4>; .reg .f32 %f<16>; .reg .pred %p<2>;\n"
    "  ld.param.u64 %rd1, [ptex]; ld.param.u64 %rd2, [pout];\n"
    "  mov.u32 %r1, %tid.x; cvt.rn.f32.u32 %f1, %r1;\n"
    "  mul.f32 %f2, %f1, 0f3E000000;\n"
    "  mov.f32 %f3, 0f3F000000;\n"
    "  tex.2d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd1, wrap_nearest, {%f2, %f3}];\n"
    "  mul.wide.u32 %rd3, %r1, 8; add.s64 %rd4, %rd2, %rd3;\n"
    "  st.global.f32 [%rd4], %f4;\n"
    "  tex.2d.v4.f32.f32 {%f8, %f9, %f10, %f11}, [%rd1, border_linear, {%f1, %f3}];\n"
    "  st.global.f32 [%rd4+4], %f8;\n"
    "  ret;\n"
    "}\n"
;

static void test_sampler_initializers(void **state)
{
    (void)state;
    enum { T = 48 };
    float img[4] = {1, 2, 3, 4}, out[2 * T];
    CUarray a = array2d(CU_AD_FORMAT_FLOAT, 1, 4, 1, 0, img, 4);
    CUtexObject t = texobj(a, CU_TR_ADDRESS_MODE_CLAMP, CU_TR_FILTER_MODE_POINT, CU_TRSF_NORMALIZED_COORDINATES);
    CUmodule m;
    CUresult loaded = cuModuleLoadData(&m, samplers_ptx);
    if (loaded == CUDA_ERROR_NOT_FOUND || loaded == CUDA_ERROR_NOT_SUPPORTED) {
        /* NVIDIA's driver (CUDA 13) loads no texmode_independent module */
        CU_OK(cuTexObjectDestroy(t));
        CU_OK(cuArrayDestroy(a));
        skip();
    }
    CU_OK(loaded);
    CUfunction f;
    CU_OK(cuModuleGetFunction(&f, m, "samp"));
    CUdeviceptr d = dalloc(sizeof out);
    void *args[] = {&t, &d};
    CU_OK(cuLaunchKernel(f, 1, 1, 1, T, 1, 1, 0, NULL, args, NULL));
    CU_OK(cuMemcpyDtoH(out, d, sizeof out));
    for (int k = 0; k < T; k++) {
        float w0 = ref_tex2d(img, 4, 1, (float)k / 8, 0.5f, CU_TR_ADDRESS_MODE_WRAP, false, true);
        float w1 = ref_tex2d(img, 4, 1, (float)k, 0.5f, CU_TR_ADDRESS_MODE_BORDER, true, false);
        if (out[2 * k] != w0 || fabsf(out[2 * k + 1] - w1) > 1e-6f)
            fail_msg("thread %d: %g %g, want %g %g", k, out[2 * k], out[2 * k + 1], w0, w1);
    }
    CU_OK(cuTexObjectDestroy(t));
    CU_OK(cuArrayDestroy(a));
    CU_OK(cuMemFree(d));
    CU_OK(cuModuleUnload(m));
}

/* Divergent callers (ptxas accepts the module): thread t of 70 (partial
 * warps) fetches texel t of a 1D texture through a .func when t is odd
 * (else -1), and with a guarded tex when t & 2, whose residency predicate
 * (texels of arrays are always resident) selects it over -2. */
static const char divergent_ptx[] =
    ".version 8.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    ".func (.reg .f32 r) fetch(.reg .b64 t, .reg .f32 x)\n"
    "{\n"
    "  .reg .f32 %g<4>;\n"
    "  tex.1d.v4.f32.f32 {r, %g1, %g2, %g3}, [t, {x}];\n"
    "  ret;\n"
    "}\n"
    ".visible .entry div(.param .u64 ptex, .param .u64 pout)\n"
    "{\n"
    "  .reg .b64 %rd<6>; .reg .b32 %r<6>; .reg .f32 %f<8>; .reg .pred %p<4>;\n"
    "  ld.param.u64 %rd1, [ptex]; ld.param.u64 %rd2, [pout];\n"
    "  mov.u32 %r1, %tid.x; cvt.rn.f32.u32 %f1, %r1; add.f32 %f1, %f1, 0f3F000000;\n"
    "  mul.wide.u32 %rd3, %r1, 8; add.s64 %rd4, %rd2, %rd3;\n"
    "  mov.f32 %f2, 0fBF800000; mov.f32 %f3, 0fBF800000;\n"
    "  and.b32 %r2, %r1, 1; setp.eq.u32 %p1, %r2, 1;\n"
    "  @!%p1 bra $SKIP;\n"
    "  call (%f2), fetch, (%rd1, %f1);\n"
    "$SKIP:\n"
    "  and.b32 %r3, %r1, 2; setp.eq.u32 %p2, %r3, 2;\n"
    "  setp.ne.u32 %p3, %r1, %r1;\n"
    "  @%p2 tex.1d.v4.f32.f32 {%f3, %f4, %f5, %f6}|%p3, [%rd1, {%f1}];\n"
    "  selp.f32 %f7, %f3, 0fC0000000, %p3;\n"
    "  st.global.v2.f32 [%rd4], {%f2, %f7};\n"
    "  ret;\n"
    "}\n"
;

static void test_divergent_fetches(void **state)
{
    (void)state;
    enum { T = 70 };
    float img[T], out[2 * T];
    for (int k = 0; k < T; k++)
        img[k] = (float)(2 * k + 1);
    CUDA_ARRAY3D_DESCRIPTOR d = {T, 0, 0, CU_AD_FORMAT_FLOAT, 1, 0};
    CUarray a;
    CU_OK(cuArray3DCreate(&a, &d));
    CU_OK(cuMemcpyHtoA(a, 0, img, sizeof img));
    CUtexObject t = texobj(a, CU_TR_ADDRESS_MODE_CLAMP, CU_TR_FILTER_MODE_POINT, 0);
    CUmodule m;
    CU_OK(cuModuleLoadData(&m, divergent_ptx));
    CUfunction f;
    CU_OK(cuModuleGetFunction(&f, m, "div"));
    CUdeviceptr dout = dalloc(sizeof out);
    void *args[] = {&t, &dout};
    CU_OK(cuLaunchKernel(f, 1, 1, 1, T, 1, 1, 0, NULL, args, NULL));
    CU_OK(cuMemcpyDtoH(out, dout, sizeof out));
    for (int k = 0; k < T; k++) {
        assert_true(out[2 * k] == ((k & 1) ? img[k] : -1.0f));
        assert_true(out[2 * k + 1] == ((k & 2) ? img[k] : -2.0f));
    }
    CU_OK(cuTexObjectDestroy(t));
    CU_OK(cuArrayDestroy(a));
    CU_OK(cuMemFree(dout));
    CU_OK(cuModuleUnload(m));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_formats),
        cmocka_unit_test(test_address_filter),
        cmocka_unit_test(test_weight_precision),
        cmocka_unit_test(test_geometries),
        cmocka_unit_test(test_surfaces),
        cmocka_unit_test(test_rotate),
        cmocka_unit_test(test_copies),
        cmocka_unit_test(test_refs_and_queries),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_sampler_initializers),
        cmocka_unit_test(test_divergent_fetches),
        cmocka_unit_test(test_destroyed_handle_faults),
    };
    return cmocka_run_group_tests_name("cu_texture", tests, setup, NULL);
}
