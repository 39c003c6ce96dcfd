// image2d.cu -- texture-free image processing on 2D grids of 2D blocks:
// RGB to grayscale, clamp-to-edge 3x3 box blur (direct and shared-memory
// tiled with halo), tiled transpose with padded shared memory, and a Sobel
// gradient magnitude. Images are row-major; x = column, y = row:
//   x = blockIdx.x * blockDim.x + threadIdx.x,  y = blockIdx.y * blockDim.y + threadIdx.y.

// rgb_to_gray(const unsigned char *rgb, unsigned char *gray, int width, int height, int in_pitch)
//   rgb is interleaved RGB with in_pitch bytes per row; gray is width bytes per row.
//   For x < width, y < height: r,g,b = rgb[y*in_pitch + 3x + 0/1/2];
//   gray[y*width + x] = (77*r + 150*g + 29*b + 128) >> 8.
extern "C" __global__ void rgb_to_gray(const unsigned char *rgb, unsigned char *gray, int width, int height,
                                       int in_pitch)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    const unsigned char *px = rgb + (size_t)y * in_pitch + 3 * x;
    unsigned v = 77u * px[0] + 150u * px[1] + 29u * px[2] + 128u;
    gray[(size_t)y * width + x] = (unsigned char)(v >> 8);
}

// box_blur3x3(const float *in, float *out, int width, int height)
//   For x < width, y < height: out[y*width+x] = (1/9) * sum over dy,dx in {-1,0,1} of
//   in[clamp(y+dy)*width + clamp(x+dx)], clamping coordinates into the image.
//   Summation order: dy outer (-1..1), dx inner (-1..1), then multiplied by (1.0f/9.0f).
extern "C" __global__ void box_blur3x3(const float *in, float *out, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    float acc = 0.0f;
    for (int dy = -1; dy <= 1; ++dy) {
        int yy = min(max(y + dy, 0), height - 1);
        for (int dx = -1; dx <= 1; ++dx) {
            int xx = min(max(x + dx, 0), width - 1);
            acc += in[yy * width + xx];
        }
    }
    out[y * width + x] = acc * (1.0f / 9.0f);
}

#define BT 16

// box_blur3x3_tiled(const float *in, float *out, int width, int height)
//   blockDim = (16, 16). Same result as box_blur3x3 (same summation order), but the
//   block first loads an 18x18 tile with a 1-pixel clamped halo into shared memory.
extern "C" __global__ void box_blur3x3_tiled(const float *in, float *out, int width, int height)
{
    __shared__ float tile[BT + 2][BT + 2];
    int bx = blockIdx.x * BT, by = blockIdx.y * BT;
    for (int idx = threadIdx.y * BT + threadIdx.x; idx < (BT + 2) * (BT + 2); idx += BT * BT) {
        int ty = idx / (BT + 2), tx = idx % (BT + 2);
        int gx = min(max(bx + tx - 1, 0), width - 1);
        int gy = min(max(by + ty - 1, 0), height - 1);
        tile[ty][tx] = in[gy * width + gx];
    }
    __syncthreads();
    int x = bx + threadIdx.x, y = by + threadIdx.y;
    if (x >= width || y >= height)
        return;
    float acc = 0.0f;
    for (int dy = 0; dy < 3; ++dy)
        for (int dx = 0; dx < 3; ++dx)
            acc += tile[threadIdx.y + dy][threadIdx.x + dx];
    out[y * width + x] = acc * (1.0f / 9.0f);
}

// transpose32(const float *in, float *out, int width, int height)
//   blockDim = (32, 8), grid = (ceil(width/32), ceil(height/32)); in is height x width,
//   out is width x height:
//   out[x*height + y] = in[y*width + x]. Uses a 32x33 padded shared tile; each
//   thread moves 4 elements (rows threadIdx.y + 0, 8, 16, 24 of the tile).
extern "C" __global__ void transpose32(const float *in, float *out, int width, int height)
{
    __shared__ float tile[32][33];
    int x = blockIdx.x * 32 + threadIdx.x;
    int y = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8)
        if (x < width && y + j < height)
            tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x;
    y = blockIdx.x * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8)
        if (x < height && y + j < width)
            out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

// sobel_magnitude(const unsigned char *in, float *out, int width, int height)
//   Interior pixels only (1 <= x < width-1, 1 <= y < height-1); border pixels get 0.
//   gx = (p(x+1,y-1) + 2p(x+1,y) + p(x+1,y+1)) - (p(x-1,y-1) + 2p(x-1,y) + p(x-1,y+1))
//   gy = (p(x-1,y+1) + 2p(x,y+1) + p(x+1,y+1)) - (p(x-1,y-1) + 2p(x,y-1) + p(x+1,y-1))
//   (integer), out[y*width+x] = sqrtf((float)(gx*gx + gy*gy)).
extern "C" __global__ void sobel_magnitude(const unsigned char *in, float *out, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    if (x == 0 || y == 0 || x == width - 1 || y == height - 1) {
        out[y * width + x] = 0.0f;
        return;
    }
#define P(xx, yy) ((int)in[(yy) * width + (xx)])
    int gx = (P(x + 1, y - 1) + 2 * P(x + 1, y) + P(x + 1, y + 1)) - (P(x - 1, y - 1) + 2 * P(x - 1, y) + P(x - 1, y + 1));
    int gy = (P(x - 1, y + 1) + 2 * P(x, y + 1) + P(x + 1, y + 1)) - (P(x - 1, y - 1) + 2 * P(x, y - 1) + P(x + 1, y - 1));
#undef P
    out[y * width + x] = sqrtf((float)(gx * gx + gy * gy));
}

// rgba_invert_uchar4(const uchar4 *in, uchar4 *out, int width, int height)
//   For each pixel: out = { 255 - r, 255 - g, 255 - b, a } (vector uchar4 access, ld.global.v4.u8).
extern "C" __global__ void rgba_invert_uchar4(const uchar4 *in, uchar4 *out, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        uchar4 p = in[y * width + x];
        out[y * width + x] = make_uchar4(255 - p.x, 255 - p.y, 255 - p.z, p.w);
    }
}
