/* tex_gpu.c - texture fetch probes: tex.2d on small CUDA arrays under every
 * address mode, point and linear filtering, normalized and unnormalized
 * coordinates, recorded on a real GPU and compared on ptxjit.
 *
 *   tex_gpu record FILE   fetch, write the results to FILE
 *   tex_gpu check FILE [ULPS]  fetch, compare with FILE (prints how far
 *                         apart); floats within ULPS units in the last place
 *                         are counted apart, not as differences
 *
 * Two textures: 7x5 RGBA8 read as normalized floats, and 7x5 single-channel
 * f32.  Three coordinate sets: random points around and beyond the edges,
 * and fine sweeps across one texel boundary in x and in y (2048 steps per
 * texel), which show the GPU's fixed-point filter weights directly.
 * Plain C and the driver API: builds against NVIDIA's cuda.h and -lcuda on
 * a GPU machine, and against ptxjit's header and libcuda.so.1. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef PTXJIT_TEST_NVIDIA_HEADER
#include <cuda.h>
#else
#include "ptxjit/cuda_driver.h"
#endif

enum { W = 7, H = 5, NRANDOM = 512, NSWEEP = 2048 };

static const char PTX[] = ".version 7.8\n.target sm_90\n.address_size 64\n"
                          ".visible .entry fetch(.param .u64 ptex, .param .u64 pxy, .param .u64 pout, .param .u32 pn)\n"
                          "{\n .reg .pred %p; .reg .b32 %r<4>; .reg .b64 %rd<6>; .reg .f32 %f<6>;\n"
                          " mov.u32 %r1, %ctaid.x; mov.u32 %r2, %ntid.x; mov.u32 %r3, %tid.x;\n"
                          " mad.lo.s32 %r1, %r1, %r2, %r3; ld.param.u32 %r2, [pn];\n"
                          " setp.ge.u32 %p, %r1, %r2; @%p bra END;\n"
                          " ld.param.u64 %rd1, [ptex]; ld.param.u64 %rd2, [pxy]; ld.param.u64 %rd3, [pout];\n"
                          " mul.wide.u32 %rd4, %r1, 8; add.s64 %rd4, %rd2, %rd4; ld.global.v2.f32 {%f1, %f2}, [%rd4];\n"
                          " tex.2d.v4.f32.f32 {%f3, %f4, %f5, %f0}, [%rd1, {%f1, %f2}];\n"
                          " mul.wide.u32 %rd5, %r1, 16; add.s64 %rd5, %rd3, %rd5;\n"
                          " st.global.v4.f32 [%rd5], {%f3, %f4, %f5, %f0};\n"
                          "END:\n ret;\n}\n";

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint32_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}

static int failed(CUresult r, const char *what)
{
    if (r == CUDA_SUCCESS)
        return 0;
    const char *name = NULL;
    cuGetErrorName(r, &name);
    fprintf(stderr, "tex_gpu: %s failed: %s\n", what, name ? name : "?");
    return 1;
}

/* The coordinates of set s, in texels (divided by the size when normalized). */
static size_t coords(int s, int normalized, float *xy)
{
    size_t n = s == 0 ? NRANDOM : NSWEEP;
    rng_state = 0x2545f4914f6cdd1dull + (uint64_t)s;
    for (size_t i = 0; i < n; i++) {
        float x, y;
        if (s == 0) {
            x = -1.5f * W + 4.0f * W * (float)(rng() & 0xffff) / 65536.0f;
            y = -1.5f * H + 4.0f * H * (float)(rng() & 0xffff) / 65536.0f;
        } else if (s == 1) {
            x = 2.0f + (float)i / NSWEEP, y = 2.25f;
        } else {
            x = 3.75f, y = 1.0f + (float)i / NSWEEP;
        }
        xy[2 * i] = normalized ? x / W : x;
        xy[2 * i + 1] = normalized ? y / H : y;
    }
    return n;
}

typedef struct result {
    char name[96];
    uint32_t n;
    float *v; /* 4 per fetch */
} result;

/* Every configuration: runs the fetches, appends the results. */
static int run_all(CUfunction fn, result *out, size_t *nout)
{
    uint8_t rgba[W * H * 4];
    float f32[W * H];
    for (int i = 0; i < W * H * 4; i++)
        rgba[i] = (uint8_t)rng();
    for (int i = 0; i < W * H; i++)
        f32[i] = (float)((int)(rng() % 8001) - 4000) / 1000.0f;
    static const char *const addr_name[] = {"wrap", "clamp", "mirror", "border"};
    int bad = 0;
    for (int tex = 0; tex < 2; tex++) {
        CUDA_ARRAY_DESCRIPTOR ad = {W, H, tex ? CU_AD_FORMAT_FLOAT : CU_AD_FORMAT_UNSIGNED_INT8, tex ? 1u : 4u};
        CUarray arr;
        CUDA_MEMCPY2D cp;
        memset(&cp, 0, sizeof cp);
        cp.srcMemoryType = CU_MEMORYTYPE_HOST;
        cp.srcHost = tex ? (void *)f32 : (void *)rgba;
        cp.srcPitch = cp.WidthInBytes = W * 4; /* a 2D array takes 2D copies only */
        cp.dstMemoryType = CU_MEMORYTYPE_ARRAY;
        cp.Height = H;
        if (failed(cuArrayCreate(&arr, &ad), "cuArrayCreate"))
            return 1;
        cp.dstArray = arr;
        if (failed(cuMemcpy2D(&cp), "cuMemcpy2D"))
            return 1;
        for (int addr = 0; addr < 4; addr++)
            for (int filter = 0; filter < 2; filter++)
                for (int norm = 0; norm < 2; norm++) {
                    CUDA_RESOURCE_DESC rd;
                    memset(&rd, 0, sizeof rd);
                    rd.resType = CU_RESOURCE_TYPE_ARRAY;
                    rd.res.array.hArray = arr;
                    CUDA_TEXTURE_DESC td;
                    memset(&td, 0, sizeof td);
                    td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = (CUaddress_mode)addr;
                    td.filterMode = (CUfilter_mode)filter;
                    td.flags = norm ? CU_TRSF_NORMALIZED_COORDINATES : 0;
                    td.borderColor[0] = 0.25f, td.borderColor[1] = 0.5f, td.borderColor[2] = 0.75f;
                    td.borderColor[3] = 1.0f;
                    CUtexObject to;
                    if (cuTexObjectCreate(&to, &rd, &td, NULL) != CUDA_SUCCESS)
                        continue; /* a combination the driver refuses: nothing to record */
                    for (int s = 0; s < 3; s++) {
                        float xy[2 * NSWEEP];
                        uint32_t n = (uint32_t)coords(s, norm, xy);
                        result *r = &out[(*nout)++];
                        snprintf(r->name, sizeof r->name, "%s %s %s %s coords%d", tex ? "f32" : "rgba8",
                                 addr_name[addr], filter ? "linear" : "point", norm ? "normalized" : "texels", s);
                        r->n = n;
                        r->v = calloc((size_t)n * 4, sizeof(float));
                        CUdeviceptr dxy = 0, dout = 0;
                        bad |= failed(cuMemAlloc(&dxy, n * 8), "cuMemAlloc") ||
                               failed(cuMemAlloc(&dout, n * 16), "cuMemAlloc") ||
                               failed(cuMemcpyHtoD(dxy, xy, n * 8), "cuMemcpyHtoD");
                        void *params[] = {&to, &dxy, &dout, &n};
                        bad |= bad || failed(cuLaunchKernel(fn, (n + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, params,
                                                            NULL), "cuLaunchKernel") ||
                               failed(cuCtxSynchronize(), "cuCtxSynchronize") ||
                               failed(cuMemcpyDtoH(r->v, dout, (size_t)n * 16), "cuMemcpyDtoH");
                        cuMemFree(dxy);
                        cuMemFree(dout);
                    }
                    cuTexObjectDestroy(to);
                }
        cuArrayDestroy(arr);
    }
    return bad;
}

static int write_results(const char *path, const result *r, size_t n)
{
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite("PJTEX001", 1, 8, f) == 8;
    for (size_t i = 0; ok && i < n; i++)
        ok = fwrite(r[i].name, 1, sizeof r[i].name, f) == sizeof r[i].name && fwrite(&r[i].n, 4, 1, f) == 1 &&
             fwrite(r[i].v, 16, r[i].n, f) == r[i].n;
    if (f && fclose(f) != 0)
        ok = 0;
    if (!ok)
        fprintf(stderr, "tex_gpu: cannot write %s\n", path);
    return !ok;
}

/* How many floats lie between a and b (0: equal, or both NaN). */
static uint64_t ulps_apart(float a, float b)
{
    if (a == b || (isnan(a) && isnan(b)))
        return 0;
    if (isnan(a) || isnan(b))
        return UINT64_MAX;
    int32_t ia, ib;
    memcpy(&ia, &a, 4);
    memcpy(&ib, &b, 4);
    int64_t oa = ia < 0 ? -(int64_t)(ia & 0x7fffffff) : ia, ob = ib < 0 ? -(int64_t)(ib & 0x7fffffff) : ib;
    return (uint64_t)(oa > ob ? oa - ob : ob - oa);
}

static uint64_t max_ulps; /* check's allowance */

static int same_fetch(const float *a, const float *b)
{
    for (int k = 0; k < 4; k++)
        if (ulps_apart(a[k], b[k]) > max_ulps)
            return 0;
    return 1;
}

/* The first few fetches of one configuration that differ: the coordinate
 * (regenerated from the name's coordinate set) and both results, so that a
 * difference can be read without the recording's tools. */
static void show_differences(const char *name, const float *gpu, const float *mine, uint32_t n)
{
    enum { SHOWN = 3 };
    static float xy[2 * NSWEEP];
    const char *set = strstr(name, "coords");
    if (!set || n > NSWEEP || coords(set[6] - '0', strstr(name, "normalized") != NULL, xy) != n)
        return;
    for (uint32_t i = 0, shown = 0; i < n && shown < SHOWN; i++) {
        const float *g = gpu + 4 * (size_t)i, *m = mine + 4 * (size_t)i;
        if (same_fetch(g, m))
            continue;
        printf("    at (%.9g, %.9g): GPU (%.9g, %.9g, %.9g, %.9g), ptxjit (%.9g, %.9g, %.9g, %.9g)\n", xy[2 * i],
               xy[2 * i + 1], g[0], g[1], g[2], g[3], m[0], m[1], m[2], m[3]);
        shown++;
    }
}

/* Compares with the recording: per configuration, how many fetches differ,
 * the largest difference and the first differing fetches. */
static int check_results(const char *path, const result *r, size_t n)
{
    FILE *f = fopen(path, "rb");
    char magic[8];
    if (!f || fread(magic, 1, 8, f) != 8 || memcmp(magic, "PJTEX001", 8)) {
        fprintf(stderr, "tex_gpu: %s: not a tex_gpu recording\n", path);
        if (f)
            fclose(f);
        return 2;
    }
    size_t differ = 0, compared = 0;
    result g;
    while (fread(g.name, 1, sizeof g.name, f) == sizeof g.name && fread(&g.n, 4, 1, f) == 1 && g.n <= NSWEEP) {
        g.v = malloc((size_t)g.n * 16);
        if (!g.v || fread(g.v, 16, g.n, f) != g.n) {
            free(g.v);
            break;
        }
        const result *mine = NULL;
        for (size_t i = 0; i < n; i++)
            if (!strcmp(r[i].name, g.name) && r[i].n == g.n)
                mine = &r[i];
        if (!mine) {
            printf("  %s: not run here\n", g.name);
            differ++;
        } else {
            unsigned bad = 0, near = 0;
            double worst = 0;
            for (size_t i = 0; i < (size_t)g.n * 4; i++) {
                double d = fabs((double)g.v[i] - (double)mine->v[i]);
                uint64_t u = ulps_apart(g.v[i], mine->v[i]);
                near += u != 0 && u <= max_ulps;
                if (u > max_ulps) {
                    bad++;
                    worst = d > worst ? d : worst;
                }
            }
            if (near)
                printf("  %s: %u of %u values within %llu ulp\n", g.name, near, g.n * 4, (unsigned long long)max_ulps);
            if (bad)
                printf("  %s: %u of %u values differ, by up to %.3g\n", g.name, bad, g.n * 4, worst);
            show_differences(g.name, g.v, mine->v, g.n);
            differ += bad != 0;
        }
        compared++;
        free(g.v);
    }
    fclose(f);
    printf("tex_gpu: %zu configurations compared, %zu differ\n", compared, differ);
    return differ != 0 || compared == 0;
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4 || (strcmp(argv[1], "record") && strcmp(argv[1], "check"))) {
        fprintf(stderr, "usage: tex_gpu record FILE | tex_gpu check FILE [ULPS]\n");
        return 2;
    }
    max_ulps = argc == 4 ? strtoull(argv[3], NULL, 10) : 0;
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CUfunction fn;
    if (failed(cuInit(0), "cuInit") || failed(cuDeviceGet(&dev, 0), "cuDeviceGet") ||
        failed(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain") ||
        failed(cuCtxSetCurrent(ctx), "cuCtxSetCurrent") || failed(cuModuleLoadData(&mod, PTX), "cuModuleLoadData") ||
        failed(cuModuleGetFunction(&fn, mod, "fetch"), "cuModuleGetFunction"))
        return 1;
    static result res[2 * 4 * 2 * 2 * 3];
    size_t n = 0;
    int bad = run_all(fn, res, &n);
    if (bad)
        return 1;
    int r = !strcmp(argv[1], "record") ? write_results(argv[2], res, n) : check_results(argv[2], res, n);
    if (!r && !strcmp(argv[1], "record"))
        printf("tex_gpu: %zu configurations recorded\n", n);
    for (size_t i = 0; i < n; i++)
        free(res[i].v);
    return r;
}
