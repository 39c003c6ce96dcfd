// Needleman-Wunsch global alignment scores, tile by tile along the
// anti-diagonals of tiles (the shape of Rodinia's `needle`): nvcc -O3 keeps
// strength-reduced shared-memory bases such as `tile - 64 * tid` that are
// "negative" as 32-bit values and wrap back into the tile with an offset.
//
// nw_tiles(int *score, const int *sim, int n, int penalty, int diag):
// score is (n + 1) x (n + 1), row-major, with row 0 and column 0 already
// set (score[0][j] = -penalty * j, score[i][0] = -penalty * i); sim is
// n x n (sim[i][j] scores aligning item i + 1 of one sequence with item
// j + 1 of the other); n is a multiple of NW_TILE.  A launch handles the
// tiles (ti, tj) with ti + tj == diag (ti counted from max(0, diag - n /
// NW_TILE + 1)), one block of NW_TILE threads each, grid = the number of
// such tiles; launches for diag = 0, 1, ..., 2 n / NW_TILE - 2 in order fill
// score[i][j] = max(score[i-1][j-1] + sim[i-1][j-1], score[i][j-1] - penalty,
// score[i-1][j] - penalty) for 1 <= i, j <= n.
#define NW_TILE 16

__device__ __forceinline__ int max3(int a, int b, int c)
{
    return max(a, max(b, c));
}

extern "C" __global__ void nw_tiles(int *score, const int *sim, int n, int penalty, int diag)
{
    __shared__ int t[NW_TILE + 1][NW_TILE + 1];
    __shared__ int s[NW_TILE][NW_TILE];
    int nb = n / NW_TILE;
    int ti = max(0, diag - nb + 1) + blockIdx.x, tj = diag - ti;
    int tx = threadIdx.x, cols = n + 1;
    int corner = ti * NW_TILE * cols + tj * NW_TILE; // score index of the tile's top-left neighbour
    for (int r = 0; r < NW_TILE; r++)
        s[r][tx] = sim[(ti * NW_TILE + r) * n + tj * NW_TILE + tx];
    if (tx == 0)
        t[0][0] = score[corner];
    t[tx + 1][0] = score[corner + (tx + 1) * cols];
    t[0][tx + 1] = score[corner + tx + 1];
    __syncthreads();
    for (int m = 0; m < NW_TILE; m++) { // the upper-left triangle, one anti-diagonal at a time
        if (tx <= m) {
            int x = tx + 1, y = m - tx + 1;
            t[y][x] = max3(t[y - 1][x - 1] + s[y - 1][x - 1], t[y][x - 1] - penalty, t[y - 1][x] - penalty);
        }
        __syncthreads();
    }
    for (int m = NW_TILE - 2; m >= 0; m--) { // the lower-right triangle
        if (tx <= m) {
            int x = tx + NW_TILE - m, y = NW_TILE - tx;
            t[y][x] = max3(t[y - 1][x - 1] + s[y - 1][x - 1], t[y][x - 1] - penalty, t[y - 1][x] - penalty);
        }
        __syncthreads();
    }
    for (int r = 0; r < NW_TILE; r++)
        score[corner + (r + 1) * cols + tx + 1] = t[r + 1][tx + 1];
}
