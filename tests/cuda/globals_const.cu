// globals_const.cu -- module-scope variables: __constant__ with and without
// initializers (scalars, arrays, 2D arrays, structs, vectors), __device__
// globals with initializers (including a pointer initialised with the address
// of another global -> generic(var) in PTX), static (non-.visible) globals,
// __managed__ variables, and a __device__ string.

struct Coeffs {
    float scale;
    int offset;
    double bias;
    short tag[3];
};

// Polynomial coefficients for poly_eval: c_poly[k] multiplies x^k.
__constant__ float c_poly[8] = {1.0f, -0.5f, 0.25f, -0.125f, 0.0625f, 2.0f, -1.0f, 0.5f};
__constant__ int c_table[4][4] = {{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}, {13, 14, 15, 16}};
__constant__ Coeffs c_coeffs = {1.5f, -3, 0.125, {7, 8, 9}};
__constant__ float4 c_vec4[2] = {{1.0f, 2.0f, 3.0f, 4.0f}, {-1.0f, -2.0f, -3.0f, -4.0f}};
__constant__ double c_dbl[3] = {3.141592653589793, 2.718281828459045, -0.0};
__constant__ unsigned char c_bytes[5] = {0x01, 0x80, 0xff, 0x7f, 0x00};
// Filled by the host (cuMemcpyHtoD to the symbol); no initializer.
__constant__ float c_filter[16];

__device__ int g_counter = 42;
__device__ float g_lut[16] = {0.0f, 0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f, 0.7f,
                              0.8f, 0.9f, 1.0f, 1.1f, 1.2f, 1.3f, 1.4f, 1.5f};
__device__ int g_array[8] = {10, 20, 30, 40, 50, 60, 70, 80};
__device__ int *g_ptr = &g_array[2];
__device__ int *g_ptr_table[3] = {&g_array[0], &g_array[4], &g_counter};
__device__ long long g_i64 = -1234567890123LL;
__device__ unsigned long long g_u64 = 0xfedcba9876543210ULL;
__device__ double g_half_pi = 1.5707963267948966;
__device__ short g_shorts[3] = {-1, 2, -3};
__device__ char g_message[] = "hello ptxjit";
__device__ float2 g_f2 = {0.5f, -0.5f};
__device__ unsigned g_zeroed[64];   // zero-initialised
static __device__ int s_hidden = 7; // internal linkage: no .visible
__managed__ int m_value = 5;        // managed memory (.attribute(.managed))

// poly_eval(const float *x, float *y, int n)
//   For gid < n: Horner evaluation with c_poly:
//   acc = c_poly[7]; for k = 6 down to 0: acc = acc * x + c_poly[k]; y[gid] = acc.
extern "C" __global__ void poly_eval(const float *x, float *y, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    float v = x[gid];
    float acc = c_poly[7];
#pragma unroll
    for (int k = 6; k >= 0; --k)
        acc = acc * v + c_poly[k];
    y[gid] = acc;
}

// const_lookup(const int *idx, int *out_i, float *out_f, double *out_d, int n)
//   For gid < n, with r = idx[gid] & 3, c = (idx[gid] >> 2) & 3, q = idx[gid] & 1:
//   out_i[2*gid]   = c_table[r][c] + c_coeffs.offset + c_coeffs.tag[r % 3] + c_bytes[r]
//   out_i[2*gid+1] = (int)c_bytes[(r + 1) % 5]
//   out_f[gid]     = c_coeffs.scale * (c_vec4[q].x + c_vec4[q].y + c_vec4[q].z + c_vec4[q].w)
//                    + c_filter[gid & 15]
//   out_d[gid]     = c_dbl[r % 3] + c_coeffs.bias.
extern "C" __global__ void const_lookup(const int *idx, int *out_i, float *out_f, double *out_d, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    int v = idx[gid];
    int r = v & 3, c = (v >> 2) & 3, q = v & 1;
    out_i[2 * gid] = c_table[r][c] + c_coeffs.offset + c_coeffs.tag[r % 3] + c_bytes[r];
    out_i[2 * gid + 1] = (int)c_bytes[(r + 1) % 5];
    float4 w = c_vec4[q];
    out_f[gid] = c_coeffs.scale * (w.x + w.y + w.z + w.w) + c_filter[gid & 15];
    out_d[gid] = c_dbl[r % 3] + c_coeffs.bias;
}

// use_device_globals(int *out_i, long long *out_l, double *out_d, float *out_f, char *out_s)
//   Single thread (gid 0) does, in order:
//   out_i[0] = g_counter; out_i[1] = *g_ptr (g_array[2] = 30); out_i[2] = *g_ptr_table[1] (50);
//   out_i[3] = *g_ptr_table[2] (g_counter); out_i[4] = g_shorts[0]+g_shorts[1]+g_shorts[2] (-2);
//   out_i[5] = s_hidden; out_i[6] = m_value; out_i[7] = (int)g_zeroed[5];
//   out_l[0] = g_i64; out_l[1] = (long long)g_u64;
//   out_d[0] = g_half_pi; out_f[0] = (g_lut[7] + g_f2.x) + g_f2.y (float, left to right; ~0.7);
//   copies g_message (13 bytes incl. NUL) to out_s.
//   Then updates: g_counter += 1; g_ptr = &g_array[3]; g_zeroed[5] += 1; m_value *= 2.
//   (So a second launch sees g_counter 43, *g_ptr 40, g_zeroed[5] 1, m_value 10.)
extern "C" __global__ void use_device_globals(int *out_i, long long *out_l, double *out_d, float *out_f, char *out_s)
{
    if (blockIdx.x * blockDim.x + threadIdx.x != 0)
        return;
    out_i[0] = g_counter;
    out_i[1] = *g_ptr;
    out_i[2] = *g_ptr_table[1];
    out_i[3] = *g_ptr_table[2];
    out_i[4] = g_shorts[0] + g_shorts[1] + g_shorts[2];
    out_i[5] = s_hidden;
    out_i[6] = m_value;
    out_i[7] = (int)g_zeroed[5];
    out_l[0] = g_i64;
    out_l[1] = (long long)g_u64;
    out_d[0] = g_half_pi;
    out_f[0] = g_lut[7] + g_f2.x + g_f2.y;
    for (int k = 0; k < (int)sizeof(g_message); ++k)
        out_s[k] = g_message[k];
    g_counter += 1;
    g_ptr = &g_array[3];
    g_zeroed[5] += 1;
    m_value *= 2;
}

// lut_interp(const float *t, float *out, int n)
//   For gid < n: u = fminf(fmaxf(t[gid], 0), 1) * 15; i = min((int)u, 14); f = u - i;
//   out[gid] = g_lut[i] + f * (g_lut[i+1] - g_lut[i]).
extern "C" __global__ void lut_interp(const float *t, float *out, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    float u = fminf(fmaxf(t[gid], 0.0f), 1.0f) * 15.0f;
    int i = min((int)u, 14);
    float f = u - (float)i;
    out[gid] = g_lut[i] + f * (g_lut[i + 1] - g_lut[i]);
}
