// grid3d.cu -- 3D grids and 3D blocks: every special register component
// (%tid, %ntid, %ctaid, %nctaid in x/y/z), linear index computation, a 3D
// 7-point stencil, and the %laneid / %warpid / %clock64 style registers.

// index3d(unsigned *out, int nx, int ny, int nz)
//   x,y,z = blockIdx.{x,y,z} * blockDim.{x,y,z} + threadIdx.{x,y,z}.
//   For x < nx, y < ny, z < nz: lin = (z*ny + y)*nx + x;
//   out[lin] = lin * 2 + 1.
extern "C" __global__ void index3d(unsigned *out, int nx, int ny, int nz)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x < nx && y < ny && z < nz) {
        unsigned lin = (unsigned)((z * ny + y) * nx + x);
        out[lin] = lin * 2u + 1u;
    }
}

// thread_coords(uint4 *out)
//   Flat ids: block_lin = blockIdx.x + gridDim.x*(blockIdx.y + gridDim.y*blockIdx.z);
//   thr_lin = threadIdx.x + blockDim.x*(threadIdx.y + blockDim.y*threadIdx.z);
//   g = block_lin * (blockDim.x*blockDim.y*blockDim.z) + thr_lin. Writes 3 uint4 per thread:
//   out[3g+0] = {threadIdx.x, threadIdx.y, threadIdx.z, thr_lin}
//   out[3g+1] = {blockIdx.x, blockIdx.y, blockIdx.z, block_lin}
//   out[3g+2] = {gridDim.x*blockDim.x, gridDim.y*blockDim.y, gridDim.z*blockDim.z, lane}
//   where lane = %laneid (read with inline asm) which equals thr_lin % 32.
extern "C" __global__ void thread_coords(uint4 *out)
{
    unsigned block_lin = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    unsigned thr_lin = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    unsigned g = block_lin * (blockDim.x * blockDim.y * blockDim.z) + thr_lin;
    unsigned lane;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    out[3 * g + 0] = make_uint4(threadIdx.x, threadIdx.y, threadIdx.z, thr_lin);
    out[3 * g + 1] = make_uint4(blockIdx.x, blockIdx.y, blockIdx.z, block_lin);
    out[3 * g + 2] = make_uint4(gridDim.x * blockDim.x, gridDim.y * blockDim.y, gridDim.z * blockDim.z, lane);
}

// stencil7(const float *in, float *out, int nx, int ny, int nz, float c0, float c1)
//   3D grid over (x,y,z). Interior points (0 < x < nx-1 etc.):
//   out[i] = c0 * in[i] + c1 * (in[i-1] + in[i+1] + in[i-nx] + in[i+nx] + in[i-nx*ny] + in[i+nx*ny])
//   with i = (z*ny + y)*nx + x, neighbours summed in that order. Boundary points copy in[i].
extern "C" __global__ void stencil7(const float *in, float *out, int nx, int ny, int nz, float c0, float c1)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x >= nx || y >= ny || z >= nz)
        return;
    int i = (z * ny + y) * nx + x;
    if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1) {
        out[i] = in[i];
        return;
    }
    int plane = nx * ny;
    float nb = in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx] + in[i - plane] + in[i + plane];
    out[i] = c0 * in[i] + c1 * nb;
}

// timing_registers(unsigned long long *clocks, unsigned *ids)
//   Non-deterministic values, for register coverage: per flat thread g (as in thread_coords),
//   clocks[2g] = clock64() before and clocks[2g+1] = clock64() after a short dependent loop
//   (after >= before); ids[4g+0] = %warpid, ids[4g+1] = %smid (hardware ids, any value),
//   ids[4g+2] = %lanemask_lt, ids[4g+3] = (unsigned)clock() difference (any value).
extern "C" __global__ void timing_registers(unsigned long long *clocks, unsigned *ids)
{
    unsigned block_lin = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    unsigned thr_lin = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    unsigned g = block_lin * (blockDim.x * blockDim.y * blockDim.z) + thr_lin;
    unsigned c0 = (unsigned)clock();
    long long t0 = clock64();
    unsigned acc = g;
    for (int k = 0; k < 16; ++k)
        acc = acc * 1664525u + 1013904223u;
    long long t1 = clock64();
    unsigned warpid, smid, ltmask;
    asm volatile("mov.u32 %0, %%warpid;" : "=r"(warpid));
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(ltmask));
    clocks[2 * g] = (unsigned long long)t0;
    clocks[2 * g + 1] = (unsigned long long)t1 + (acc & 0u);
    ids[4 * g + 0] = warpid;
    ids[4 * g + 1] = smid;
    ids[4 * g + 2] = ltmask;
    ids[4 * g + 3] = (unsigned)clock() - c0;
}
