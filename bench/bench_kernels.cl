/* bench_kernels.cl - OpenCL C twins of the corpus kernels bench_kernels times
 * (tests/cuda/vector_ops.cu, reduce_shared.cu, sgemm.cu, bench_kernels.cu,
 * atomics_shared.cu, image2d.cu), written to do the same work the same way: a work-group is a CUDA block, __local memory is
 * __shared__, barrier(CLK_LOCAL_MEM_FENCE) is __syncthreads(), and index
 * arithmetic keeps the CUDA types.  No attributes the CUDA source lacks.
 * reduce_sum_shfl has no twin: OpenCL 1.2 has no sub-group shuffles. */

/* saxpy_gridstride: y[i] = alpha * x[i] + y[i], grid-stride loop. */
__kernel void saxpy_gridstride(int n, float alpha, __global const float *x, __global float *y)
{
    int stride = (int)(get_num_groups(0) * get_local_size(0));
    for (int i = (int)(get_group_id(0) * get_local_size(0) + get_local_id(0)); i < n; i += stride)
        y[i] = alpha * x[i] + y[i];
}

/* reduce_sum_static: 256 work-items per group; a local-memory tree
 * (stride 128, 64, ..., 1) and partial[group] = the group's sum. */
#define RS_BLOCK 256
__kernel void reduce_sum_static(__global const float *in, __global float *partial, int n)
{
    __local float s[RS_BLOCK];
    uint t = (uint)get_local_id(0);
    uint i = (uint)get_group_id(0) * RS_BLOCK + t;
    s[t] = (i < (uint)n) ? in[i] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint stride = RS_BLOCK / 2; stride > 0; stride >>= 1) {
        if (t < stride)
            s[t] += s[t + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (t == 0)
        partial[get_group_id(0)] = s[0];
}

/* sgemm_tiled16: 16x16 work-groups, 16x16 local tiles of A and B;
 * C = alpha * A B + beta * C, out-of-range tile elements load as 0. */
#define TS 16
__kernel void sgemm_tiled16(int M, int N, int K, float alpha, __global const float *A,
                            __global const float *B, float beta, __global float *C)
{
    __local float As[TS][TS];
    __local float Bs[TS][TS];
    int tx = (int)get_local_id(0), ty = (int)get_local_id(1);
    int c = (int)get_group_id(0) * TS + tx;
    int r = (int)get_group_id(1) * TS + ty;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TS) {
        As[ty][tx] = (r < M && k0 + tx < K) ? A[r * K + k0 + tx] : 0.0f;
        Bs[ty][tx] = (k0 + ty < K && c < N) ? B[(k0 + ty) * N + c] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (int k = 0; k < TS; ++k)
            acc += As[ty][k] * Bs[k][tx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (r < M && c < N)
        C[r * N + c] = alpha * acc + beta * C[r * N + c];
}

/* stencil5: 2D work-groups of any shape; interior points get
 * c0 * in[p] + c1 * ((left + right) + (up + down)), border points in[p]. */
__kernel void stencil5(__global const float *in, __global float *out, int nx, int ny, float c0,
                       float c1)
{
    int x = (int)get_global_id(0), y = (int)get_global_id(1);
    if (x >= nx || y >= ny)
        return;
    int p = y * nx + x;
    if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1)
        out[p] = in[p];
    else
        out[p] = c0 * in[p] + c1 * ((in[p - 1] + in[p + 1]) + (in[p - nx] + in[p + nx]));
}

/* histogram256: a local histogram per work-group filled with local atomics
 * over a grid-stride loop, then its non-zero bins added to hist with
 * global atomics. */
__kernel void histogram256(__global const uchar *data, int n, __global uint *hist)
{
    __local uint sh[256];
    for (int b = (int)get_local_id(0); b < 256; b += (int)get_local_size(0))
        sh[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    int stride = (int)(get_num_groups(0) * get_local_size(0));
    for (int i = (int)get_global_id(0); i < n; i += stride)
        atomic_add(&sh[data[i]], 1u);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int b = (int)get_local_id(0); b < 256; b += (int)get_local_size(0))
        if (sh[b])
            atomic_add(&hist[b], sh[b]);
}

/* transpose32: 32x8 work-groups, a 32x33 local tile; each work-item moves
 * rows local_id(1) + 0, 8, 16, 24 of the tile.  out[x*height + y] =
 * in[y*width + x]. */
__kernel void transpose32(__global const float *in, __global float *out, int width, int height)
{
    __local float tile[32][33];
    int tx = (int)get_local_id(0), ty = (int)get_local_id(1);
    int x = (int)get_group_id(0) * 32 + tx;
    int y = (int)get_group_id(1) * 32 + ty;
    for (int j = 0; j < 32; j += 8)
        if (x < width && y + j < height)
            tile[ty + j][tx] = in[(y + j) * width + x];
    barrier(CLK_LOCAL_MEM_FENCE);
    x = (int)get_group_id(1) * 32 + tx;
    y = (int)get_group_id(0) * 32 + ty;
    for (int j = 0; j < 32; j += 8)
        if (x < height && y + j < width)
            out[(y + j) * height + x] = tile[tx][ty + j];
}
