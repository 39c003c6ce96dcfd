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

static CUmodule mods[3];
static const char *const files[3] = {"texture.sm_75.ptx", "texture.sm_80.ptx", "texture.sm_90.ptx"};

static int setup(void **state)
{
    (void)state;
    setenv("PTXJIT_CC", "9.0", 0); /* so that the sm_90 PTX loads too */
    cu_test_primary();
    for (int i = 0; i < 3; i++)
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

/* ---- the reference, from the programming guide ---- */

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
 * coordinates (unnormalized ones clamp instead). */
static float ref_coord(float x, long n, CUaddress_mode *m, bool norm)
{
    if (!norm) {
        if (*m == CU_TR_ADDRESS_MODE_WRAP || *m == CU_TR_ADDRESS_MODE_MIRROR)
            *m = CU_TR_ADDRESS_MODE_CLAMP;
        return x;
    }
    if (*m == CU_TR_ADDRESS_MODE_WRAP)
        x = x - floorf(x);
    else if (*m == CU_TR_ADDRESS_MODE_MIRROR)
        x = ((long)floorf(x) % 2 != 0) ? 1.0f - (x - floorf(x)) : x - floorf(x);
    return x * (float)n;
}

static float ref_fetch(const float *img, long w, long h, long i, long j, CUaddress_mode m, float border)
{
    i = ref_index(i, w, m), j = ref_index(j, h, m);
    return i < 0 || j < 0 ? border : img[j * w + i];
}

static float ref_alpha(float f) { return roundf(f * 256.0f) / 256.0f; }

/* One channel of a w x h float texture at (x, y). */
static float ref_tex2d(const float *img, long w, long h, float x, float y, CUaddress_mode mode, bool linear,
                       bool norm)
{
    CUaddress_mode mx = mode, my = mode;
    float u = ref_coord(x, w, &mx, norm), v = ref_coord(y, h, &my, norm);
    CUaddress_mode m = mx; /* both axes share the mode */
    if (!linear)
        return ref_fetch(img, w, h, (long)floorf(u), (long)floorf(v), m, 0.25f);
    float xb = u - 0.5f, yb = v - 0.5f;
    long i = (long)floorf(xb), j = (long)floorf(yb);
    float a = ref_alpha(xb - floorf(xb)), b = ref_alpha(yb - floorf(yb));
    return (1 - a) * (1 - b) * ref_fetch(img, w, h, i, j, m, 0.25f) + a * (1 - b) * ref_fetch(img, w, h, i + 1, j, m, 0.25f) +
           (1 - a) * b * ref_fetch(img, w, h, i, j + 1, m, 0.25f) + a * b * ref_fetch(img, w, h, i + 1, j + 1, m, 0.25f);
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
            int m = (int)(f + ch) % 3;
            uint32_t out[N * 4];
            fetch2d(m, ints ? "tex2d_fetch_int" : "tex2d_fetch", t, xy, N, out);
            for (int k = 0; k < N; k++)
                for (unsigned c = 0; c < 4; c++) {
                    long long want = c < ch ? raw_value(fc, k, (int)c) : c == 3;
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
                        float want = c < ch ? fmaxf((float)raw_value(fc, k, (int)c) / maxv, -1.0f) : c == 3 ? 1.0f : 0.0f;
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
                fetch2d((mode + lin + norm) % 3, "tex2d_fetch", t, c, N, out);
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
    fetch2d(1, "tex2d_fetch", t, xy, N, out);
    for (int k = 0; k < N; k++) {
        float want = roundf((float)k / 4.0f) / 256.0f;
        if (out[4 * k] != want)
            fail_msg("x = 0.5 + %d/1024: %.9g, want %.9g", k, out[4 * k], want);
    }
    CU_OK(cuTexObjectDestroy(t));
    CU_OK(cuArrayDestroy(a));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_formats),
        cmocka_unit_test(test_address_filter),
        cmocka_unit_test(test_weight_precision),
    };
    return cmocka_run_group_tests_name("cu_texture", tests, setup, NULL);
}
