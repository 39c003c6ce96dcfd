// divergence.cu -- control flow that diverges within a warp: lane-dependent
// loop trip counts, early return of some lanes, nested if/else, a dense
// switch, break/continue, do-while, and data-dependent while loops.
//
// gid = blockIdx.x * blockDim.x + threadIdx.x throughout.

// lane_trip_loop(int *out, int n)
//   For gid < n: k = gid % 37; acc = 0;
//     for j in [0, k): acc += (j * gid) ^ j;      (int arithmetic, wraps)
//   out[gid] = acc.
extern "C" __global__ void lane_trip_loop(int *out, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    int k = gid % 37;
    int acc = 0;
    for (int j = 0; j < k; ++j)
        acc += (j * gid) ^ j;
    out[gid] = acc;
}

// collatz_steps(const unsigned *in, unsigned *steps, int n)
//   For gid < n: x = in[gid]; s = 0;
//     while (x > 1 && s < 1000) { x = (x & 1) ? 3*x + 1 : x / 2; s++; }   (unsigned 32-bit, wraps)
//   steps[gid] = s.   (in[gid] == 0 gives 0 steps.)
extern "C" __global__ void collatz_steps(const unsigned *in, unsigned *steps, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid < n) {
        unsigned x = in[gid];
        unsigned s = 0;
        while (x > 1 && s < 1000) {
            x = (x & 1u) ? 3u * x + 1u : x >> 1;
            ++s;
        }
        steps[gid] = s;
    }
}

// early_exit(const int *in, int *out, int n)
//   For gid < n:
//     v = in[gid];
//     if (v < 0)  { out[gid] = -1; return; }
//     if (v == 0) return;                         (out[gid] left untouched)
//     r = 0; for (j = 1; j <= v; j++) { if (j % 7 == 0) continue; if (r > 10000) break; r += j; }
//     out[gid] = r.
extern "C" __global__ void early_exit(const int *in, int *out, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    int v = in[gid];
    if (v < 0) {
        out[gid] = -1;
        return;
    }
    if (v == 0)
        return;
    int r = 0;
    for (int j = 1; j <= v; ++j) {
        if (j % 7 == 0)
            continue;
        if (r > 10000)
            break;
        r += j;
    }
    out[gid] = r;
}

// nested_branches(const float *x, const int *flags, float *out, int n)
//   For gid < n: v = x[gid]; f = flags[gid];
//     if (f & 1) {
//       if (v > 0)  { if (f & 2) r = v * 2; else r = v + 100; }
//       else        r = (f & 4) ? -v : v - 1;
//     } else {
//       if (f & 8)  r = (v < 10) ? v * v : 10.0f;
//       else if (f & 16) r = 0.5f * v;
//       else r = 42.0f;
//     }
//   out[gid] = r.
extern "C" __global__ void nested_branches(const float *x, const int *flags, float *out, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    float v = x[gid];
    int f = flags[gid];
    float r;
    if (f & 1) {
        if (v > 0.0f) {
            if (f & 2)
                r = v * 2.0f;
            else
                r = v + 100.0f;
        } else {
            r = (f & 4) ? -v : v - 1.0f;
        }
    } else {
        if (f & 8)
            r = (v < 10.0f) ? v * v : 10.0f;
        else if (f & 16)
            r = 0.5f * v;
        else
            r = 42.0f;
    }
    out[gid] = r;
}

// switch_dispatch(const int *op, const float *a, float *out, int *hits, int n)
//   For gid < n: x = a[gid]; c = op[gid];
//     c==0: r = x + 1        c==1: r = x * 3        c==2: r = x - 7       c==3: r = x * x
//     c==4: r = sqrtf(x)     c==5: r = -x           c==6: r = x / 5       c==7: r = fabsf(x) + 2
//     c==8: r = x*0.25f + 9  c==9: r = floorf(x)    c==10: r = ceilf(x)   c==11: r = x * 1024
//     other c: r = 0, and atomicAdd(&hits[0], 1)
//   out[gid] = r; for c in [0, 11] also atomicAdd(&hits[c + 1], 1).
//   (nvcc lowers the switch to a compare tree; it does not emit brx.idx.)
extern "C" __global__ void switch_dispatch(const int *op, const float *a, float *out, int *hits, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    float x = a[gid];
    int c = op[gid];
    float r;
    switch (c) {
    case 0: r = x + 1.0f; break;
    case 1: r = x * 3.0f; break;
    case 2: r = x - 7.0f; break;
    case 3: r = x * x; break;
    case 4: r = sqrtf(x); break;
    case 5: r = -x; break;
    case 6: r = x / 5.0f; break;
    case 7: r = fabsf(x) + 2.0f; break;
    case 8: r = x * 0.25f + 9.0f; break;
    case 9: r = floorf(x); break;
    case 10: r = ceilf(x); break;
    case 11: r = x * 1024.0f; break;
    default:
        r = 0.0f;
        atomicAdd(&hits[0], 1);
        out[gid] = r;
        return;
    }
    atomicAdd(&hits[c + 1], 1);
    out[gid] = r;
}

// do_while_digits(const unsigned *in, int *ndigits, unsigned *digit_sum, int n)
//   For gid < n: x = in[gid]; d = 0; s = 0;
//     do { s += x % 10; x /= 10; d++; } while (x != 0);
//   ndigits[gid] = d; digit_sum[gid] = s.   (x == 0 gives d = 1, s = 0.)
extern "C" __global__ void do_while_digits(const unsigned *in, int *ndigits, unsigned *digit_sum, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    unsigned x = in[gid];
    int d = 0;
    unsigned s = 0;
    do {
        s += x % 10u;
        x /= 10u;
        ++d;
    } while (x != 0u);
    ndigits[gid] = d;
    digit_sum[gid] = s;
}

// nested_loops_triangle(int *out, int n)
//   For gid < n: acc = 0;
//     for (i = 0; i < (gid & 15); i++) for (j = 0; j <= i; j++) { if ((i + j) & 1) acc += i * j; else acc -= j; }
//   out[gid] = acc.
extern "C" __global__ void nested_loops_triangle(int *out, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    int acc = 0;
    int lim = gid & 15;
    for (int i = 0; i < lim; ++i) {
        for (int j = 0; j <= i; ++j) {
            if ((i + j) & 1)
                acc += i * j;
            else
                acc -= j;
        }
    }
    out[gid] = acc;
}

// goto_search(const int *haystack, int len, const int *needles, int *pos, int n)
//   For gid < n: pos[gid] = smallest index k in [0, len) with haystack[k] == needles[gid], or -1.
//   Written with goto to produce an irregular exit out of a loop.
extern "C" __global__ void goto_search(const int *haystack, int len, const int *needles, int *pos, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    int want = needles[gid];
    int k;
    for (k = 0; k < len; ++k) {
        if (haystack[k] == want)
            goto found;
    }
    pos[gid] = -1;
    return;
found:
    pos[gid] = k;
}
