// Texture and surface objects as CUDA C++ reaches them: tex1D/2D/3D,
// layered, cubemap, tex1Dfetch on linear memory, explicit level of detail
// and gradients, tex2Dgather (tld4), integer reads, surface loads and
// stores with each boundary mode, and simpleTexture's rotation.  One
// thread per element; n elements.  Results are documented per kernel.
#include <cuda_runtime.h>

// out[i] = tex2D<float4>(t, xy[i].x, xy[i].y)
extern "C" __global__ void tex2d_fetch(cudaTextureObject_t t, const float2 *xy, float4 *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = tex2D<float4>(t, xy[i].x, xy[i].y);
}

// out[i] = tex2D<int4>(t, xy[i].x, xy[i].y) (an integer texture read as
// its element type)
extern "C" __global__ void tex2d_fetch_int(cudaTextureObject_t t, const float2 *xy, int4 *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = tex2D<int4>(t, xy[i].x, xy[i].y);
}

// With p = c[i], out[8i + k] for k =
//   0: tex1D(t1, p.x)                 1: tex3D(t3, p.x, p.y, p.z)
//   2: tex2DLayered(tl, p.x, p.y, (int)p.w)
//   3: texCubemap(tc, p.x, p.y, p.z)  4: tex1Dfetch(tlin, (int)p.w)
//   5: tex2DLod(tm, p.x, p.y, p.w)    6: tex2DGrad(tm, p.x, p.y, (p.z, 0), (0, p.z))
//   7: tex2Dgather(t2, p.x, p.y, 1)   (component 1 of the four texels)
extern "C" __global__ void tex_kinds(cudaTextureObject_t t1, cudaTextureObject_t t2, cudaTextureObject_t t3,
                                     cudaTextureObject_t tl, cudaTextureObject_t tc, cudaTextureObject_t tlin,
                                     cudaTextureObject_t tm, const float4 *c, float4 *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float4 p = c[i];
    out[8 * i + 0] = tex1D<float4>(t1, p.x);
    out[8 * i + 1] = tex3D<float4>(t3, p.x, p.y, p.z);
    out[8 * i + 2] = tex2DLayered<float4>(tl, p.x, p.y, (int)p.w);
    out[8 * i + 3] = texCubemap<float4>(tc, p.x, p.y, p.z);
    out[8 * i + 4] = tex1Dfetch<float4>(tlin, (int)p.w);
    out[8 * i + 5] = tex2DLod<float4>(tm, p.x, p.y, p.w);
    out[8 * i + 6] = tex2DGrad<float4>(tm, p.x, p.y, make_float2(p.z, 0), make_float2(0, p.z));
    out[8 * i + 7] = tex2Dgather<float4>(t2, p.x, p.y, 1);
}

#ifndef __clang__ // clang's CUDA headers have no surface functions
// A w x h uchar4 surface: dst(x, y) = src(x, y) with its bytes reversed;
// zero[y * w + x] = the float at byte 4 * (x + w) of src's row 0 read with
// cudaBoundaryModeZero (past the row: 0); and every thread also writes
// (float)(x + y) to dst's byte 4 * (x + 100), row y, clamped (the last
// element of its row: the thread with the largest x wins).
extern "C" __global__ void surf_swap(cudaSurfaceObject_t src, cudaSurfaceObject_t dst, float *zero, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h)
        return;
    uchar4 v = surf2Dread<uchar4>(src, x * 4, y);
    zero[y * w + x] = surf2Dread<float>(src, 4 * (x + w), 0, cudaBoundaryModeZero);
    surf2Dwrite(make_uchar4(v.w, v.z, v.y, v.x), dst, x * 4, y);
    if (x == w - 1)
        surf2Dwrite((float)(x + y), dst, 4 * (x + 100), y, cudaBoundaryModeClamp);
}
#endif

// NVIDIA's simpleTexture: out(x, y) = tex2D(tex, tu + 0.5, tv + 0.5) with
// (tu, tv) the pixel's offset from the centre rotated by theta, divided by
// the size (normalized coordinates).
extern "C" __global__ void rotate_tex(float *out, int width, int height, float theta, cudaTextureObject_t tex)
{
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= (unsigned)width || y >= (unsigned)height)
        return;
    float u = (float)x - (float)width / 2, v = (float)y - (float)height / 2;
    float tu = u * cosf(theta) - v * sinf(theta), tv = v * cosf(theta) + u * sinf(theta);
    tu /= (float)width;
    tv /= (float)height;
    out[y * width + x] = tex2D<float>(tex, tu + 0.5f, tv + 0.5f);
}
