/* test_corpus.c - library-style kernels end to end: PTX that nvcc 13 emits
 * for CUB block/warp primitives, cooperative_groups, libcu++ atomics and
 * <cuda/std> utilities, __int128, device printf/malloc and the CUDA math
 * library (tests/cuda/lib_*.cu), plus hand-written PTX in the shapes Triton
 * and Numba emit (tests/ptx/corpus/triton_numba_lib.hand.ptx).  Each kernel's output is
 * compared with a C reference written from the kernel's documented
 * semantics (the comment above it in the source); math functions against
 * long-double references within the CUDA Programming Guide's ULP bounds.
 *
 * Compile time dominates (the math module inlines dozens of libdevice
 * functions), so each module is compiled once, the modules on two contexts
 * in two threads at once.  CORPUS_FILTER=<glob> runs a subset. */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fref.h"
#include "ptxjit/ptxjit.h"
#include "test_util.h"

/* ------------------------------------------------------------------------
 * Modules: compiled once, in parallel on two contexts
 * ------------------------------------------------------------------------ */

static const char *const files[] = {
    "lib_cub.sm_80.ptx",           "lib_math.sm_80.ptx",        "lib_mathd.sm_90.ptx",
    "lib_cub.sm_75.ptx",           "lib_misc.sm_90.ptx",        "lib_cg.sm_75.ptx",
    "lib_math.sm_80.fastmath.ptx", "lib_cg.sm_80.lineinfo.ptx", "lib_cg.sm_80.ptx",
    "triton_numba_lib.hand.ptx",
};
enum { NFILES = sizeof files / sizeof files[0] };

typedef struct modent {
    ptxjit_module *m;
    char why[300];
} modent;

static ptxjit_ctx *ctxs[2];
static modent mods[NFILES];

static void load_file(size_t i)
{
    char path[512], *log = NULL;
    size_t len;
    snprintf(path, sizeof path, "%s/ptx/corpus/%s", PTXJIT_TEST_DIR, files[i]);
    char *src = tu_read_file(path, &len);
    if (!src) {
        snprintf(mods[i].why, sizeof mods[i].why, "cannot read %.200s", path);
        return;
    }
    mods[i].m = ptxjit_load(ctxs[i % 2], src, len, files[i], &log, NULL);
    char err[512];
    if (mods[i].m) /* compile here, in the loading threads (a failure shows at launch) */
        ptxjit_module_compile(mods[i].m, err, sizeof err);
    if (!mods[i].m)
        snprintf(mods[i].why, sizeof mods[i].why, "%.*s", (int)strcspn(log ? log : "?", "\n"),
                 log ? log : "?");
    free(log);
    free(src);
}

static void *load_half(void *arg)
{
    for (size_t i = (size_t)(intptr_t)arg; i < NFILES; i += 2)
        load_file(i);
    return NULL;
}

static int setup(void **state)
{
    (void)state;
    char err[256];
    for (int c = 0; c < 2; c++) {
        ctxs[c] = ptxjit_create(2, err, sizeof err);
        if (!ctxs[c]) {
            fprintf(stderr, "ptxjit_create: %s\n", err);
            return -1;
        }
    }
    pthread_t th;
    bool threaded = pthread_create(&th, NULL, load_half, (void *)(intptr_t)1) == 0;
    load_half((void *)(intptr_t)0);
    if (threaded)
        pthread_join(th, NULL);
    else
        load_half((void *)(intptr_t)1);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    for (size_t i = 0; i < NFILES; i++)
        if (mods[i].m)
            ptxjit_module_unload(mods[i].m);
    for (int c = 0; c < 2; c++)
        ptxjit_destroy(ctxs[c]);
    return 0;
}

/* A kernel of a module; a module that did not load fails the test with the
 * first line of its log (every file here must compile). */
typedef struct run {
    ptxjit_ctx *ctx;
    const ptxjit_kernel *k;
    const char *file;
    char what[160];
} run;

static run get_run(const char *file, const char *kernel)
{
    run r = {0};
    for (size_t i = 0; i < NFILES; i++) {
        if (strcmp(files[i], file))
            continue;
        if (!mods[i].m)
            fail_msg("%s did not load: %s", file, mods[i].why);
        r.ctx = ctxs[i % 2];
        r.k = ptxjit_kernel_get(mods[i].m, kernel);
        r.file = file;
        snprintf(r.what, sizeof r.what, "%s:%s", file, kernel);
        if (!r.k)
            fail_msg("%s: no kernel %s", file, kernel);
        return r;
    }
    fail_msg("%s is not in the module list", file);
    return r;
}

/* Parameter buffer in CUDA's layout: each value at its natural alignment. */
typedef struct params {
    unsigned char b[256];
    size_t n;
} params;

static void p_raw(params *p, const void *v, size_t size)
{
    p->n = (p->n + size - 1) & ~(size - 1);
    assert_true(p->n + size <= sizeof p->b);
    memcpy(p->b + p->n, v, size);
    p->n += size;
}
static void p_ptr(params *p, const void *v) { p_raw(p, &v, sizeof v); }
static void p_i32(params *p, int32_t v) { p_raw(p, &v, 4); }

static void launch_smem(const run *r, uint32_t grid, uint32_t block, uint32_t smem, const params *p,
                        FILE *out)
{
    char err[512];
    ptxjit_launch_cfg cfg = {{grid, 1, 1}, {block, 1, 1}, smem, p->b, out};
    if (ptxjit_launch(r->ctx, r->k, &cfg, err, sizeof err) != PTXJIT_OK)
        fail_msg("%s: launch (%u x %u) failed: %s", r->what, grid, block, err);
}
static void launch_out(const run *r, uint32_t grid, uint32_t block, const params *p, FILE *out)
{
    launch_smem(r, grid, block, 0, p, out);
}
static void launch(const run *r, uint32_t grid, uint32_t block, const params *p)
{
    launch_out(r, grid, block, p, NULL);
}

/* ------------------------------------------------------------------------
 * Inputs and comparisons
 * ------------------------------------------------------------------------ */

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static void seed(uint64_t s) { rng = s * 0x9E3779B97F4A7C15ull + 1; }
static uint32_t rnd(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}
static int rnd_int(int lo, int hi) { return lo + (int)(rnd() % (uint32_t)(hi - lo + 1)); }
static double rnd_unit(void) { return (double)(((uint64_t)rnd() << 21) ^ rnd()) / 9007199254740992.0; }

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    assert_non_null(p);
    return p;
}

static void check_i32(const run *r, const char *label, const int32_t *got, const int32_t *want, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i])
            fail_msg("%s: %s[%zu] = %d, want %d", r->what, label, i, got[i], want[i]);
}
static void check_u32(const run *r, const char *label, const uint32_t *got, const uint32_t *want, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i])
            fail_msg("%s: %s[%zu] = 0x%x, want 0x%x", r->what, label, i, got[i], want[i]);
}
static void check_u64(const run *r, const char *label, const uint64_t *got, const uint64_t *want, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i])
            fail_msg("%s: %s[%zu] = 0x%llx, want 0x%llx", r->what, label, i,
                     (unsigned long long)got[i], (unsigned long long)want[i]);
}

/* ------------------------------------------------------------------------
 * CUB (tests/cuda/lib_cub.cu): 128 threads, tiles of 512 items
 * ------------------------------------------------------------------------ */

enum { BT = 128, TILE = 512, NTILES = 3 };

static int imax(int a, int b) { return a > b ? a : b; }

static void cub_reduce(const char *file)
{
    run r = get_run(file, "cub_reduce");
    int in[NTILES * TILE], out[3 * NTILES], want[3 * NTILES];
    const int valid[] = {512, 1, 300};
    seed(1);
    for (int i = 0; i < NTILES * TILE; i++)
        in[i] = rnd_int(-100000, 100000);
    for (int v = 0; v < 3; v++) {
        memset(out, 0x5a, sizeof out);
        params p = {0};
        p_ptr(&p, in), p_ptr(&p, out), p_i32(&p, valid[v]);
        launch(&r, NTILES, BT, &p);
        for (int b = 0; b < NTILES; b++) {
            int s = 0, m = INT32_MIN, sv = 0;
            for (int i = 0; i < TILE; i++) {
                s += in[b * TILE + i], m = imax(m, in[b * TILE + i]);
                if (i < valid[v])
                    sv += in[b * TILE + i];
            }
            want[3 * b] = s, want[3 * b + 1] = m, want[3 * b + 2] = sv;
        }
        check_i32(&r, "out", out, want, 3 * NTILES);
    }
}

static void cub_scan(const char *file)
{
    run r = get_run(file, "cub_scan");
    enum { N = NTILES * TILE };
    static int in[N], incl[N], excl[N], xmax[N], tot[NTILES];
    static int wi[N], we[N], wx[N], wt[NTILES];
    seed(2);
    for (int i = 0; i < N; i++)
        in[i] = rnd_int(-1000, 1000);
    for (int b = 0; b < NTILES; b++) {
        int s = 0, m = INT32_MIN;
        for (int i = b * TILE; i < (b + 1) * TILE; i++) {
            we[i] = s, wx[i] = m;
            s += in[i], m = imax(m, in[i]);
            wi[i] = s;
        }
        wt[b] = s;
    }
    params p = {0};
    p_ptr(&p, in), p_ptr(&p, incl), p_ptr(&p, excl), p_ptr(&p, xmax), p_ptr(&p, tot);
    launch(&r, NTILES, BT, &p);
    check_i32(&r, "incl", incl, wi, N);
    check_i32(&r, "excl", excl, we, N);
    check_i32(&r, "xmax", xmax, wx, N);
    check_i32(&r, "totals", tot, wt, NTILES);
}

typedef struct kv {
    int64_t key;
    int idx;
} kv;
static int cmp_kv(const void *a, const void *b)
{
    const kv *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->idx - y->idx; /* stable */
}

static void cub_radix_sort(const char *file)
{
    run r = get_run(file, "cub_radix_sort");
    enum { N = NTILES * TILE };
    static uint32_t keys[N], okeys[N], wk[N];
    static int vals[N], ovals[N], skeys[N], wv[N], ws[N];
    static kv t[TILE];
    seed(3);
    for (int i = 0; i < N; i++) {
        /* tile 0: few distinct keys (stability matters); others: full range */
        keys[i] = i < TILE ? rnd() % 16 : rnd() ^ (rnd() << 16);
        vals[i] = i * 7 - 1000;
    }
    for (int b = 0; b < NTILES; b++) {
        for (int i = 0; i < TILE; i++)
            t[i] = (kv){keys[b * TILE + i], i};
        qsort(t, TILE, sizeof t[0], cmp_kv);
        for (int i = 0; i < TILE; i++)
            wk[b * TILE + i] = (uint32_t)t[i].key, wv[b * TILE + i] = vals[b * TILE + t[i].idx];
        for (int i = 0; i < TILE; i++)
            t[i] = (kv){-(int64_t)(int32_t)keys[b * TILE + i], i};
        qsort(t, TILE, sizeof t[0], cmp_kv);
        for (int i = 0; i < TILE; i++)
            ws[b * TILE + i] = (int32_t)keys[b * TILE + t[i].idx];
    }
    params p = {0};
    p_ptr(&p, keys), p_ptr(&p, vals), p_ptr(&p, okeys), p_ptr(&p, ovals), p_ptr(&p, skeys);
    launch(&r, NTILES, BT, &p);
    check_u32(&r, "okeys", okeys, wk, N);
    check_i32(&r, "ovals", ovals, wv, N);
    check_i32(&r, "skeys", skeys, ws, N);
}

static void cub_merge_sort(const char *file)
{
    run r = get_run(file, "cub_merge_sort");
    enum { N = NTILES * TILE };
    static int in[N], out[N], want[N];
    static kv t[TILE];
    seed(4);
    for (int i = 0; i < N; i++)
        in[i] = rnd_int(-40, 40); /* many equal |x|: stability is visible */
    for (int b = 0; b < NTILES; b++) {
        for (int i = 0; i < TILE; i++)
            t[i] = (kv){llabs((long long)in[b * TILE + i]), i};
        qsort(t, TILE, sizeof t[0], cmp_kv);
        for (int i = 0; i < TILE; i++)
            want[b * TILE + i] = in[b * TILE + t[i].idx];
    }
    params p = {0};
    p_ptr(&p, in), p_ptr(&p, out);
    launch(&r, NTILES, BT, &p);
    check_i32(&r, "out", out, want, N);
}

static void cub_histogram(const char *file)
{
    run r = get_run(file, "cub_histogram");
    enum { N = NTILES * TILE };
    static unsigned char in[N];
    static uint32_t hs[NTILES * 256], ha[NTILES * 256], want[NTILES * 256];
    seed(5);
    memset(want, 0, sizeof want);
    for (int i = 0; i < N; i++) {
        in[i] = (unsigned char)(i < TILE ? rnd() % 5 : rnd());
        want[(i / TILE) * 256 + in[i]]++;
    }
    params p = {0};
    p_ptr(&p, in), p_ptr(&p, hs), p_ptr(&p, ha);
    launch(&r, NTILES, BT, &p);
    check_u32(&r, "hist_sort", hs, want, NTILES * 256);
    check_u32(&r, "hist_atomic", ha, want, NTILES * 256);
}

static void cub_discontinuity(const char *file)
{
    run r = get_run(file, "cub_discontinuity");
    enum { N = NTILES * TILE };
    static int in[N], h[N], t[N], d[N], wh[N], wt[N], wd[N];
    seed(6);
    for (int i = 0; i < N; i++)
        in[i] = rnd() % 3 ? (i ? in[i - 1] : 5) : rnd_int(-9, 9); /* runs of equal values */
    for (int i = 0; i < N; i++) {
        bool first = i % TILE == 0, last = i % TILE == TILE - 1;
        wh[i] = first || in[i] != in[i - 1];
        wt[i] = last || in[i] != in[i + 1];
        wd[i] = first ? in[i] : in[i] - in[i - 1];
    }
    params p = {0};
    p_ptr(&p, in), p_ptr(&p, h), p_ptr(&p, t), p_ptr(&p, d);
    launch(&r, NTILES, BT, &p);
    check_i32(&r, "heads", h, wh, N);
    check_i32(&r, "tails", t, wt, N);
    check_i32(&r, "diffs", d, wd, N);
}

static void cub_warp(const char *file)
{
    run r = get_run(file, "cub_warp");
    enum { N = 2 * BT };
    static int in[N], out[8 * N], want[8 * N];
    seed(7);
    for (int i = 0; i < N; i++)
        in[i] = rnd_int(-500, 500);
    for (int w = 0; w < N / 32; w++) {
        const int *x = in + 32 * w;
        int sum = 0, mx = INT32_MIN, valid = (x[0] & 31) + 1, sv = 0;
        for (int l = 0; l < 32; l++)
            sum += x[l], mx = imax(mx, x[l]), sv += l < valid ? x[l] : 0;
        int inc = 0, em = INT32_MIN, inc16 = 0, s16 = 0;
        for (int l = 0; l < 32; l++) {
            int *o = want + 8 * (32 * w + l);
            if (l % 16 == 0) {
                inc16 = 0, s16 = 0;
                for (int j = 0; j < 16; j++)
                    s16 += x[l + j];
            }
            inc += x[l], inc16 += x[l];
            o[0] = inc, o[1] = em, em = imax(em, x[l]);
            o[2] = l == 0 ? sum : 0, o[3] = l == 0 ? mx : 0;
            o[4] = l % 16 == 0 ? s16 : 0, o[5] = inc16;
            o[6] = l == 0 ? sv : 0;
            bool head = l == 0 || x[l] % 5 == 0;
            int seg = 0;
            if (head)
                for (int j = l; j < 32 && (j == l || !(x[j] % 5 == 0)); j++)
                    seg += x[j];
            o[7] = head ? seg : 0;
        }
    }
    params p = {0};
    p_ptr(&p, in), p_ptr(&p, out);
    launch(&r, N / BT, BT, &p);
    check_i32(&r, "out", out, want, 8 * N);
}

static void run_cub(const char *file)
{
    cub_reduce(file);
    cub_scan(file);
    cub_radix_sort(file);
    cub_merge_sort(file);
    cub_histogram(file);
    cub_discontinuity(file);
    cub_warp(file);
}

static void test_cub_sm80(void **s) { (void)s; run_cub("lib_cub.sm_80.ptx"); }
static void test_cub_sm75(void **s) { (void)s; run_cub("lib_cub.sm_75.ptx"); }

/* ------------------------------------------------------------------------
 * cooperative_groups (tests/cuda/lib_cg.cu)
 * ------------------------------------------------------------------------ */

enum { CG_N = 2 * BT };

static void cg_tiles(const char *file)
{
    run r = get_run(file, "cg_tiles");
    static int in[CG_N], out[16 * CG_N], want[16 * CG_N];
    seed(8);
    for (int i = 0; i < CG_N; i++)
        in[i] = rnd_int(-50, 1100);
    for (int g = 0; g < CG_N; g++) {
        int *o = want + 16 * g, x = in[g];
        int b32 = g & ~31, b16 = g & ~15, b8 = g & ~7, b4 = g & ~3;
        int r32 = g - b32, r16 = g - b16, r8 = g - b8;
        int s32 = 0, m16 = INT32_MIN, or8 = 0, s4 = 0, inc32 = 0, ex16 = 0, mx8 = INT32_MIN;
        for (int j = 0; j < 32; j++)
            s32 += in[b32 + j], inc32 += j <= r32 ? in[b32 + j] : 0;
        for (int j = 0; j < 16; j++)
            m16 = imax(m16, in[b16 + j]), ex16 += j < r16 ? in[b16 + j] : 0;
        for (int j = 0; j < 8; j++)
            or8 |= in[b8 + j], mx8 = j <= r8 ? imax(mx8, in[b8 + j]) : mx8;
        for (int j = 0; j < 4; j++)
            s4 += in[b4 + j];
        o[0] = s32, o[1] = m16, o[2] = or8, o[3] = s4, o[4] = inc32, o[5] = ex16, o[6] = mx8;
        o[7] = in[b16 + (r16 + 3) % 16];
        o[8] = r8 < 2 ? x : in[g - 2];
        o[9] = r32 > 26 ? x : in[g + 5];
        o[10] = in[b8 + (r8 ^ 3)];
        unsigned bal = 0, match = 0;
        int any = 0, all = 1;
        for (int j = 0; j < 16; j++)
            bal |= (unsigned)(in[b16 + j] & 1) << j;
        for (int j = 0; j < 8; j++)
            any |= in[b8 + j] > 1000;
        for (int j = 0; j < 4; j++)
            all &= in[b4 + j] >= 0;
        for (int j = 0; j < 32; j++)
            match |= (unsigned)(in[b32 + j] % 4 == x % 4) << j;
        o[11] = (int)bal, o[12] = any, o[13] = all, o[14] = (int)match;
        o[15] = (g % BT) / 16 * 100 + BT / 16;
    }
    params p = {0};
    p_ptr(&p, in), p_ptr(&p, out);
    launch(&r, CG_N / BT, BT, &p);
    check_i32(&r, "out", out, want, 16 * CG_N);
}

static void cg_coalesced(const char *file)
{
    run r = get_run(file, "cg_coalesced");
    static int in[CG_N], out[4 * CG_N], want[4 * CG_N];
    seed(9);
    for (int i = 0; i < CG_N; i++)
        in[i] = rnd_int(-50, 1000);
    for (int g = 0; g < CG_N; g++) {
        int b = g & ~31, x = in[g], *o = want + 4 * g;
        bool mine = x % 3 != 0;
        int size = 0, rank = 0, sum = 0, inc = 0, first = 0;
        bool seen = false;
        for (int j = 0; j < 32; j++) {
            int y = in[b + j];
            if ((y % 3 != 0) != mine)
                continue;
            if (!seen)
                first = y, seen = true;
            size++, sum += y;
            if (b + j < g)
                rank++;
            if (b + j <= g)
                inc += y;
        }
        if (mine)
            o[0] = size, o[1] = rank, o[2] = sum, o[3] = inc;
        else
            o[0] = -1, o[1] = -1, o[2] = size, o[3] = first;
    }
    params p = {0};
    p_ptr(&p, in), p_ptr(&p, out);
    launch(&r, CG_N / BT, BT, &p);
    check_i32(&r, "out", out, want, 4 * CG_N);
}

static void cg_partitions(const char *file)
{
    run r = get_run(file, "cg_partitions");
    static int in[CG_N], out[4 * CG_N], want[4 * CG_N];
    seed(10);
    for (int i = 0; i < CG_N; i++)
        in[i] = rnd_int(-30, 100);
    for (int g = 0; g < CG_N; g++) {
        int b = g & ~31, x = in[g], *o = want + 4 * g;
        int sum = 0, rank = 0, bsize = 0, bmax = INT32_MIN;
        for (int j = 0; j < 32; j++) {
            int y = in[b + j];
            if (y % 5 == x % 5) {
                sum += y;
                rank += b + j < g;
            }
            if ((y > 50) == (x > 50))
                bsize++, bmax = imax(bmax, y);
        }
        o[0] = sum, o[1] = rank, o[2] = bsize, o[3] = bmax;
    }
    params p = {0};
    p_ptr(&p, in), p_ptr(&p, out);
    launch(&r, CG_N / BT, BT, &p);
    check_i32(&r, "out", out, want, 4 * CG_N);
}

static void cg_memcpy_block(const char *file)
{
    run r = get_run(file, "cg_memcpy_block");
    enum { B = 3, N = 256 * B };
    static float in[N], out[N];
    static uint32_t got[N], want[N];
    seed(11);
    for (int i = 0; i < N; i++)
        in[i] = (float)rnd_int(-1000, 1000);
    params p = {0};
    p_ptr(&p, in), p_ptr(&p, out), p_i32(&p, N);
    launch(&r, B, BT, &p);
    for (int i = 0; i < N; i++) {
        int b = i / 256, j = i % 256;
        float w = in[b * 256 + 255 - j] * 2.0f + in[i];
        memcpy(&want[i], &w, 4);
        memcpy(&got[i], &out[i], 4);
    }
    check_u32(&r, "out", got, want, N);
}

static void run_cg(const char *file)
{
    cg_tiles(file);
    cg_coalesced(file);
    cg_partitions(file);
    cg_memcpy_block(file);
}

static void test_cg_sm80(void **s) { (void)s; run_cg("lib_cg.sm_80.ptx"); }
static void test_cg_sm75(void **s) { (void)s; run_cg("lib_cg.sm_75.ptx"); }
static void test_cg_sm80_lineinfo(void **s) { (void)s; run_cg("lib_cg.sm_80.lineinfo.ptx"); }

/* ------------------------------------------------------------------------
 * libcu++, __int128, printf + malloc (tests/cuda/lib_misc.cu)
 * ------------------------------------------------------------------------ */

static const char *const MISC = "lib_misc.sm_90.ptx";

static void test_libcu_atomics(void **s)
{
    (void)s;
    run r = get_run(MISC, "libcu_atomics");
    enum { N = 450, G = 4 };
    static int in[N];
    int acc[6] = {0, INT32_MAX, INT32_MIN, 0, 0, 0}, want[6] = {0, INT32_MAX, INT32_MIN, 0, 0, 0};
    uint64_t acc64 = 0, want64 = 0;
    float facc = 0, wantf = 0;
    seed(12);
    for (int i = 0; i < N; i++) {
        int x = in[i] = rnd_int(-100000, 100000);
        want[0] += x, want[1] = x < want[1] ? x : want[1], want[2] = imax(want[2], x);
        want[3] |= (int)(1u << (x & 31)), want[4] += (x & 1) == 0, want[5] ^= x;
        want64 += (uint64_t)(int64_t)x * (uint64_t)(int64_t)x;
        wantf += (float)(x & 7);
    }
    params p = {0};
    p_ptr(&p, in), p_ptr(&p, acc), p_ptr(&p, &acc64), p_ptr(&p, &facc), p_i32(&p, N);
    launch(&r, G, BT, &p);
    check_i32(&r, "acc", acc, want, 6);
    check_u64(&r, "acc64", &acc64, &want64, 1);
    if (facc != wantf)
        fail_msg("%s: facc = %g, want %g", r.what, facc, wantf);
}

static unsigned bit_ceil32(unsigned x)
{
    unsigned c = 1;
    while (c < x)
        c <<= 1;
    return c;
}

static void test_libcu_std(void **s)
{
    (void)s;
    run r = get_run(MISC, "libcu_std");
    enum { N = 300 };
    static uint32_t in[N], out[8 * N], want[8 * N];
    static float fout[2 * N], fwant[2 * N];
    seed(13);
    for (int i = 0; i < N; i++)
        in[i] = i < 4 ? (uint32_t[]){0, 1, 0x80000000u, 0xffffffffu}[i] : rnd() >> (rnd() % 32);
    for (int g = 0; g < N; g++) {
        uint32_t u = in[g], v = in[(g + 1) % N], *o = want + 8 * g;
        o[0] = (uint32_t)__builtin_popcount(u);
        o[1] = u ? (uint32_t)__builtin_clz(u) : 32;
        o[2] = u ? (uint32_t)__builtin_ctz(u) : 32;
        o[3] = 32 - o[1];
        o[4] = bit_ceil32(u & 0xffff);
        uint32_t sh = v % 32;
        o[5] = sh ? u << sh | u >> (32 - sh) : u;
        float f = (float)(u & 0xffffff);
        memcpy(&o[6], &f, 4);
        uint32_t m = u % 7;
        m = u % 11 > m ? u % 11 : m, m = u % 13 > m ? u % 13 : m;
        o[7] = (u < 1000 ? 1000 : u > 100000 ? 100000 : u) + m;
        float a = (float)(u & 255) / 16, b = (float)(v & 255) / 16;
        fwant[2 * g] = a * a - b * b + a, fwant[2 * g + 1] = a * b + b * a - b;
    }
    params p = {0};
    p_ptr(&p, in), p_ptr(&p, out), p_ptr(&p, fout), p_i32(&p, N);
    launch(&r, (N + BT - 1) / BT, BT, &p);
    check_u32(&r, "out", out, want, 8 * N);
    for (int i = 0; i < 2 * N; i++)
        if (fout[i] != fwant[i])
            fail_msg("%s: fout[%d] = %a, want %a", r.what, i, fout[i], fwant[i]);
}

static void test_int128(void **s)
{
    (void)s;
    run r = get_run(MISC, "int128_ops");
    enum { N = 200 };
    static uint64_t a[2 * N], b[2 * N], out[16 * N], want[16 * N];
    seed(14);
    for (int i = 0; i < N; i++) {
        a[2 * i] = (uint64_t)rnd() << 32 | rnd(), a[2 * i + 1] = (uint64_t)rnd() << 32 | rnd();
        b[2 * i] = (uint64_t)rnd() << 32 | rnd(), b[2 * i + 1] = (uint64_t)rnd() << 32 | rnd();
        switch (i % 4) { /* divisors of every size: small, 64-bit, 128-bit, negative */
        case 0: b[2 * i] = (rnd() % 1000) + 1, b[2 * i + 1] = 0; break;
        case 1: b[2 * i + 1] = 0, b[2 * i] |= 1; break;
        case 2: b[2 * i + 1] >>= rnd() % 60; break;
        default: b[2 * i + 1] |= 1ull << 63; break;
        }
        if (i % 5 == 0)
            a[2 * i + 1] = 0; /* dividend smaller than some divisors */
    }
    for (int g = 0; g < N; g++) {
        unsigned __int128 A = (unsigned __int128)a[2 * g + 1] << 64 | a[2 * g];
        unsigned __int128 B = (unsigned __int128)b[2 * g + 1] << 64 | b[2 * g];
        __int128 S = (__int128)A, T = (__int128)B;
        unsigned __int128 res[8] = {A * B, A / B, A % B, (unsigned __int128)(S / T),
                                    (unsigned __int128)(S % T), A >> (a[2 * g] % 128),
                                    (unsigned __int128)(S >> (b[2 * g] % 128)), A << (b[2 * g] % 128)};
        for (int j = 0; j < 8; j++)
            want[16 * g + 2 * j] = (uint64_t)res[j], want[16 * g + 2 * j + 1] = (uint64_t)(res[j] >> 64);
    }
    params p = {0};
    p_ptr(&p, a), p_ptr(&p, b), p_ptr(&p, out), p_i32(&p, N);
    launch(&r, (N + BT - 1) / BT, BT, &p);
    check_u64(&r, "out", out, want, 16 * N);
}

static void test_heap_printf(void **s)
{
    (void)s;
    run r = get_run(MISC, "heap_list_printf");
    enum { N = 70 };
    static int in[N];
    static int64_t sums[N + 2], want[N + 2];
    seed(15);
    char expect[N * 48], *e = expect;
    for (int g = 0; g < N; g++) {
        in[g] = rnd_int(0, 5000);
        int count = in[g] % 8 + 1;
        want[g] = (int64_t)in[g] * count * (count + 1) / 2;
        e += sprintf(e, "t%d: %d nodes sum %lld\n", g, count, (long long)want[g]);
    }
    sums[N] = sums[N + 1] = want[N] = want[N + 1] = 0x5a5a; /* threads past n write nothing */
    FILE *f = tmpfile();
    assert_non_null(f);
    params p = {0};
    p_ptr(&p, in), p_i32(&p, N), p_ptr(&p, sums);
    launch_out(&r, 2, 40, &p, f);
    char got[sizeof expect + 64];
    rewind(f);
    size_t n = fread(got, 1, sizeof got - 1, f);
    got[n] = 0;
    fclose(f);
    check_u64(&r, "sums", (uint64_t *)sums, (uint64_t *)want, N + 2);
    assert_string_equal(got, expect);
}

/* ------------------------------------------------------------------------
 * Math (tests/cuda/lib_math.cu, lib_mathd.cu) against long-double references
 * ------------------------------------------------------------------------ */

/* How a function's inputs are drawn: uniform in [lo, hi], or log-uniform
 * over [lo, hi] (lo > 0) with a random sign when `sign`. */
typedef struct dom {
    double lo, hi;
    bool logu, sign;
} dom;

static double draw(dom d)
{
    if (!d.logu)
        return d.lo + (d.hi - d.lo) * rnd_unit();
    double v = exp(log(d.lo) + (log(d.hi) - log(d.lo)) * rnd_unit());
    return d.sign && (rnd() & 1) ? -v : v;
}

typedef long double (*ref1)(long double x, long double y);

/* A function: inputs, reference, and the bound on |got - exact| in units
 * of the result format's ulp at the exact value (the CUDA Programming
 * Guide's maximum ulp error); ulps < 0: an absolute bound of -ulps. */
typedef struct mfn {
    const char *name;
    dom x, y;
    ref1 ref;
    double ulps;
    bool specials; /* also feed 0, -0, inf, -inf, NaN as x */
} mfn;

#define LD(f) static long double r_##f(long double x, long double y) { (void)y; return f##l(x); }
LD(sin) LD(cos) LD(tan) LD(exp) LD(exp2) LD(exp10) LD(log) LD(log2) LD(log10) LD(log1p) LD(expm1)
LD(erf) LD(erfc) LD(lgamma) LD(tgamma) LD(sinh) LD(cosh) LD(tanh) LD(asin) LD(acos) LD(atan)
LD(cbrt) LD(sqrt)
static long double r_pow(long double x, long double y) { return powl(x, y); }
static long double r_atan2(long double x, long double y) { return atan2l(x, y); }
static long double r_hypot(long double x, long double y) { return hypotl(x, y); }
static long double r_fmod(long double x, long double y) { return fmodl(x, y); }
static long double r_remainder(long double x, long double y) { return remainderl(x, y); }
static long double r_div(long double x, long double y) { return x / y; }
static long double r_rsqrt(long double x, long double y) { (void)y; return 1.0L / sqrtl(x); }
static long double r_normcdf(long double x, long double y) { (void)y; return 0.5L * erfcl(-x / sqrtl(2.0L)); }
static long double r_sinpi(long double x, long double y)
{
    (void)y;
    if (isinf(x) || isnan(x))
        return NAN;
    long double t = x - 2.0L * nearbyintl(x / 2.0L); /* exact: |t| <= 1 */
    if (t == 0)
        return copysignl(0.0L, x);
    return sinl(3.14159265358979323846264338327950288L * t);
}
/* inverse of a monotonic f by bisection in long double */
static long double invert(long double (*f)(long double), long double y, long double lo, long double hi)
{
    for (int i = 0; i < 200; i++) {
        long double mid = (lo + hi) / 2;
        if (f(mid) < y)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}
static long double ncdf(long double x) { return 0.5L * erfcl(-x / sqrtl(2.0L)); }
static long double r_erfinv(long double x, long double y)
{
    (void)y;
    if (x == 0 || isnan(x))
        return x;
    if (fabsl(x) >= 1)
        return fabsl(x) == 1 ? copysignl(INFINITY, x) : NAN;
    return invert(erfl, x, -10, 10);
}
static long double r_normcdfinv(long double x, long double y)
{
    (void)y;
    if (isnan(x) || x < 0 || x > 1)
        return NAN;
    if (x == 0 || x == 1)
        return x == 0 ? -INFINITY : INFINITY;
    return invert(ncdf, x, -40, 40);
}
static long double r_sincos(long double x, long double y) { (void)y; return sinl(x) + 4 * cosl(x); }

#define U(lo, hi) {lo, hi, false, false}
#define L(lo, hi) {lo, hi, true, false}
#define LS(lo, hi) {lo, hi, true, true}
#define ANY U(-100, 100)
#define POS L(1e-30, 1e30)

static const mfn f32fns[40] = {
    {"sinf", U(-100, 100), ANY, r_sin, 2, true},
    {"cosf", U(-100, 100), ANY, r_cos, 2, true},
    {"tanf", U(-10, 10), ANY, r_tan, 4, true},
    {"expf", U(-80, 80), ANY, r_exp, 2, true},
    {"exp2f", U(-120, 120), ANY, r_exp2, 2, true},
    {"exp10f", U(-35, 35), ANY, r_exp10, 2, true},
    {"logf", POS, ANY, r_log, 1, true},
    {"log2f", POS, ANY, r_log2, 1, true},
    {"log10f", POS, ANY, r_log10, 2, true},
    {"log1pf", U(-0.9, 100), ANY, r_log1p, 1, true},
    {"expm1f", U(-20, 80), ANY, r_expm1, 1, true},
    {"powf", L(0.01, 100), U(-10, 10), r_pow, 4, false},
    {"erff", U(-5, 5), ANY, r_erf, 2, true},
    {"erfcf", U(-5, 9), ANY, r_erfc, 4, true},
    {"erfinvf", U(-0.999, 0.999), ANY, r_erfinv, 2, true},
    {"lgammaf", U(0.01, 100), ANY, r_lgamma, 6, false},
    {"tgammaf", U(0.1, 30), ANY, r_tgamma, 5, false},
    {"normcdff", U(-10, 10), ANY, r_normcdf, 5, true},
    {"normcdfinvf", U(0.001, 0.999), ANY, r_normcdfinv, 5, true},
    {"sinhf", U(-80, 80), ANY, r_sinh, 3, true},
    {"coshf", U(-80, 80), ANY, r_cosh, 2, true},
    {"tanhf", U(-10, 10), ANY, r_tanh, 2, true},
    {"asinf", U(-1, 1), ANY, r_asin, 2, true},
    {"acosf", U(-1, 1), ANY, r_acos, 2, true},
    {"atanf", U(-100, 100), ANY, r_atan, 2, true},
    {"atan2f", U(-10, 10), U(-10, 10), r_atan2, 3, false},
    {"cbrtf", U(-1000, 1000), ANY, r_cbrt, 1, true},
    {"rsqrtf", L(1e-10, 1e10), ANY, r_rsqrt, 2, false},
    {"hypotf", U(-1000, 1000), U(-1000, 1000), r_hypot, 3, false},
    {"fmodf", U(-1e4, 1e4), U(0.1, 100), r_fmod, 0, false},
    {"sinpif", U(-100, 100), ANY, r_sinpi, 1, true},
    {"sqrtf", L(1e-20, 1e20), ANY, r_sqrt, 0, true},
    {"div", U(-1e3, 1e3), LS(1e-3, 1e3), r_div, 0, false},
    {"__fdividef", U(-1e3, 1e3), LS(1e-3, 1e3), r_div, 2, false},
    {"__expf", U(-20, 20), ANY, r_exp, 26, false}, /* 2 + floor(|1.173 x|) */
    {"__sinf", U(-3.14159, 3.14159), ANY, r_sin, -3.6e-7, false}, /* 2^-21.41 absolute */
    {"__logf", U(0.5, 2), ANY, r_log, -3.6e-7, false},
    {"__powf", U(0.5, 4), U(-4, 4), r_pow, 16, false},
    {"remainderf", U(-1e4, 1e4), U(0.1, 100), r_remainder, 0, false},
    {"sincosf", U(-100, 100), ANY, r_sincos, 0, false}, /* bound computed in check */
};

static const mfn f64fns[16] = {
    {"sin", U(-100, 100), ANY, r_sin, 2, true},
    {"exp", U(-700, 700), ANY, r_exp, 1, true},
    {"log", L(1e-300, 1e300), ANY, r_log, 1, true},
    {"pow", L(0.01, 100), U(-50, 50), r_pow, 2, false},
    {"erf", U(-6, 6), ANY, r_erf, 2, true},
    {"lgamma", U(0.01, 1000), ANY, r_lgamma, 4, false},
    {"atan2", U(-10, 10), U(-10, 10), r_atan2, 2, false},
    {"cbrt", U(-1e6, 1e6), ANY, r_cbrt, 1, true},
    {"rsqrt", L(1e-100, 1e100), ANY, r_rsqrt, 1, false},
    {"sqrt", L(1e-200, 1e200), ANY, r_sqrt, 0, true},
    {"div", U(-1e3, 1e3), LS(1e-3, 1e3), r_div, 0, false},
    {"normcdf", U(-30, 10), ANY, r_normcdf, 5, true},
    {"tanh", U(-20, 20), ANY, r_tanh, 2, true},
    {"log1p", U(-0.9, 1e6), ANY, r_log1p, 1, true},
    {"expm1", U(-40, 700), ANY, r_expm1, 1, true},
    {"acos", U(-1, 1), ANY, r_acos, 2, true},
};

static const double specials[5] = {0.0, -0.0, INFINITY, -INFINITY, NAN};

/* ulp of the format (mantissa bits p, minimum exponent emin) at |v|. */
static long double ulp_at(long double v, int p, int emin)
{
    int e;
    frexpl(fabsl(v), &e); /* v = m * 2^e, m in [0.5, 1) */
    e -= 1;
    if (e < emin)
        e = emin;
    return ldexpl(1.0L, e - (p - 1));
}

/* got vs the exact value: NaN must be NaN, infinities and zeros exact
 * where the rounded reference is one, else within the bound. */
static bool within(long double got, long double exact, long double rounded, long double bound_abs)
{
    if (isnan(exact) || isnan(rounded))
        return isnan(got);
    if (isinf(rounded))
        return got == rounded;
    if (isnan(got) || isinf(got))
        return false;
    return fabsl(got - exact) <= bound_abs;
}

static long double bound_for(const mfn *f, long double x, long double exact, int p, int emin,
                             double fast)
{
    if (fast > 0) /* fast-math: relative bound, absolute near zero */
        return fast * fmaxl(fabsl(exact), 1.0L);
    if (f->ulps < 0)
        return -f->ulps;
    if (f->ref == r_sincos) /* sin (2 ulp) + 4 * cos (2 ulp each) + the final rounding */
        return 2 * ulp_at(sinl(x), p, emin) + 8 * ulp_at(4 * cosl(x), p, emin) + ulp_at(exact, p, emin);
    /* the bound plus the reference's own rounding to the format, half an ulp */
    return ((long double)f->ulps + (f->ulps == 0 ? 0.5L : 0.0L)) * ulp_at(exact, p, emin);
}

enum { MN = 256 };

static void run_fmath(const char *file, double fast)
{
    run r = get_run(file, "fmath_f32");
    enum { NF = 40 };
    float *x = xcalloc(NF * MN, 4), *y = xcalloc(NF * MN, 4), *out = xcalloc(NF * MN, 4);
    seed(16);
    for (int k = 0; k < NF; k++)
        for (int i = 0; i < MN; i++) {
            bool sp = f32fns[k].specials && !fast && i < 5;
            x[k * MN + i] = sp ? (float)specials[i] : (float)draw(f32fns[k].x);
            y[k * MN + i] = (float)draw(f32fns[k].y);
        }
    params p = {0};
    p_ptr(&p, x), p_ptr(&p, y), p_ptr(&p, out), p_i32(&p, MN);
    launch(&r, (MN + 63) / 64, 64, &p);
    int bad = 0;
    for (int k = 0; k < NF; k++) {
        const mfn *f = &f32fns[k];
        if (fast && (f->ref == r_tan || f->ref == r_tgamma || f->ref == r_lgamma))
            continue; /* approximate sin/cos/lg2 near poles and zeros: no relative bound */
        for (int i = 0; i < MN; i++) {
            long double a = x[k * MN + i], b = y[k * MN + i], exact = f->ref(a, b);
            long double g = out[k * MN + i];
            if (!within(g, exact, (float)exact, bound_for(f, a, exact, 24, -126, fast)) && bad++ < 8)
                print_error("%s: %s(%a, %a) = %a, exact %La\n", r.what, f->name, (double)a, (double)b,
                            (double)g, exact);
        }
    }
    free(x), free(y), free(out);
    assert_int_equal(bad, 0);
}

static void run_dmath(const char *file)
{
    run r = get_run(file, "dmath_f64");
    enum { NF = 16 };
    double *x = xcalloc(NF * MN, 8), *y = xcalloc(NF * MN, 8), *out = xcalloc(NF * MN, 8);
    seed(17);
    for (int k = 0; k < NF; k++)
        for (int i = 0; i < MN; i++) {
            x[k * MN + i] = f64fns[k].specials && i < 5 ? specials[i] : draw(f64fns[k].x);
            y[k * MN + i] = draw(f64fns[k].y);
        }
    params p = {0};
    p_ptr(&p, x), p_ptr(&p, y), p_ptr(&p, out), p_i32(&p, MN);
    launch(&r, (MN + 63) / 64, 64, &p);
    int bad = 0;
    for (int k = 0; k < NF; k++) {
        const mfn *f = &f64fns[k];
        for (int i = 0; i < MN; i++) {
            long double a = x[k * MN + i], b = y[k * MN + i], exact = f->ref(a, b);
            long double g = out[k * MN + i];
            /* + 1/256 ulp: the long-double reference's own error */
            long double bound = bound_for(f, a, exact, 53, -1022, 0) + ulp_at(exact, 53, -1022) / 256;
            if (!within(g, exact, (double)exact, bound) && bad++ < 8)
                print_error("%s: %s(%a, %a) = %a, exact %La\n", r.what, f->name, (double)a, (double)b,
                            (double)g, exact);
        }
    }
    free(x), free(y), free(out);
    assert_int_equal(bad, 0);
}

/* Half and bfloat16 through fref: decode to long double, round exactly. */
static long double h2ld(fr_fmt fmt, uint16_t h) { return fr_to_ld(fmt, h); }
static uint16_t ld2h(fr_fmt fmt, long double v, fr_mode mode)
{
    fr_fmt src = FR_F64;
    double d = (double)v; /* exact for every value these tests round */
    uint64_t bits;
    memcpy(&bits, &d, 8);
    return (uint16_t)fr_round(fmt, fr_decode(src, bits), mode);
}

typedef struct hfn {
    const char *name;
    dom x, y;
    int kind; /* 0: transcendental (1 ulp), 1: exact (one rounding), 2: hand-written below */
    ref1 ref;
} hfn;

static long double r_rcp(long double x, long double y) { (void)y; return 1.0L / x; }
LD(floor) LD(ceil) LD(trunc) LD(rint)
static long double r_max(long double x, long double y) { return x > y ? x : y; }
static long double r_min(long double x, long double y) { return x < y ? x : y; }
static long double r_sub(long double x, long double y) { return x - y; }

static const hfn hfns[20] = {
    {"hsin", U(-8, 8), ANY, 0, r_sin},        {"hcos", U(-8, 8), ANY, 0, r_cos},
    {"hexp", U(-10, 10), ANY, 0, r_exp},      {"hexp2", U(-14, 15), ANY, 0, r_exp2},
    {"hexp10", U(-4, 4), ANY, 0, r_exp10},    {"hlog", L(1e-3, 6e4), ANY, 0, r_log},
    {"hlog2", L(1e-3, 6e4), ANY, 0, r_log2}, {"hlog10", L(1e-3, 6e4), ANY, 0, r_log10},
    {"hrcp", LS(1e-2, 1e3), ANY, 0, r_rcp}, {"hrsqrt", L(1e-3, 1e3), ANY, 0, r_rsqrt},
    {"hsqrt", L(1e-3, 6e4), ANY, 0, r_sqrt}, {"__hdiv", U(-100, 100), LS(0.1, 100), 0, r_div},
    {"htanh", U(-5, 5), ANY, 0, r_tanh},      {"__hfma", U(-10, 10), U(-10, 10), 2, NULL},
    {"mul_add", U(-10, 10), U(-10, 10), 2, NULL}, {"hfloor", U(-100, 100), ANY, 1, r_floor},
    {"hceil", U(-100, 100), ANY, 1, r_ceil},  {"htrunc", U(-100, 100), ANY, 1, r_trunc},
    {"hrint", U(-100, 100), ANY, 1, r_rint},  {"__hmax", U(-100, 100), U(-100, 100), 1, r_max},
};

static const hfn bfns[16] = {
    {"hsin", U(-8, 8), ANY, 0, r_sin},         {"hcos", U(-8, 8), ANY, 0, r_cos},
    {"hexp", U(-80, 80), ANY, 0, r_exp},       {"hexp2", U(-120, 120), ANY, 0, r_exp2},
    {"hlog", L(1e-30, 1e30), ANY, 0, r_log}, {"hlog2", L(1e-30, 1e30), ANY, 0, r_log2},
    {"hrcp", LS(1e-20, 1e20), ANY, 0, r_rcp}, {"hrsqrt", L(1e-20, 1e20), ANY, 0, r_rsqrt},
    {"hsqrt", L(1e-20, 1e20), ANY, 0, r_sqrt}, {"__hdiv", U(-100, 100), LS(0.1, 100), 0, r_div},
    {"__hsub", U(-100, 100), U(-100, 100), 1, r_sub}, {"mul_add", U(-10, 10), U(-10, 10), 2, NULL},
    {"hfloor", U(-100, 100), ANY, 1, r_floor}, {"hrint", U(-100, 100), ANY, 1, r_rint},
    {"rz3", U(-1e4, 1e4), ANY, 2, NULL},       {"__hmin", U(-100, 100), U(-100, 100), 1, r_min},
};

/* The exact results of the kind-2 functions, rounded once (fma, rz) or
 * twice (mul then add), as uint16 bits. */
static uint16_t half_special(fr_fmt fmt, const char *name, uint16_t a, uint16_t b)
{
    fr_val va = fr_decode(fmt, a), vb = fr_decode(fmt, b);
    if (!strcmp(name, "__hfma")) {
        fr_val half = fr_decode(FR_F32, 0x3f000000u);
        return (uint16_t)fr_round(fmt, fr_fma(va, vb, half, FR_RN), FR_RN);
    }
    if (!strcmp(name, "mul_add")) {
        uint16_t m = (uint16_t)fr_round(fmt, fr_mul(va, vb), FR_RN);
        return (uint16_t)fr_round(fmt, fr_add(fr_decode(fmt, m), va, FR_RN), FR_RN);
    }
    /* rz3: float(x) * 3 (exact in f32), then to bf16 toward zero */
    fr_val three = fr_decode(FR_F32, 0x40400000u);
    return (uint16_t)fr_round(fmt, fr_mul(va, three), FR_RZ);
}

static void run_halfmath(const char *file, const char *kernel, fr_fmt fmt, const hfn *fns, int nf)
{
    run r = get_run(file, kernel);
    uint16_t *x = xcalloc((size_t)nf * MN, 2), *y = xcalloc((size_t)nf * MN, 2), *out = xcalloc((size_t)nf * MN, 2);
    int p = fmt == FR_F16 ? 11 : 8, emin = fmt == FR_F16 ? -14 : -126;
    seed(18 + fmt);
    for (int k = 0; k < nf; k++)
        for (int i = 0; i < MN; i++) {
            x[k * MN + i] = ld2h(fmt, draw(fns[k].x), FR_RN);
            y[k * MN + i] = ld2h(fmt, draw(fns[k].y), FR_RN);
        }
    params pa = {0};
    p_ptr(&pa, x), p_ptr(&pa, y), p_ptr(&pa, out), p_i32(&pa, MN);
    launch(&r, (MN + 63) / 64, 64, &pa);
    int bad = 0;
    for (int k = 0; k < nf; k++)
        for (int i = 0; i < MN; i++) {
            uint16_t a = x[k * MN + i], b = y[k * MN + i], g = out[k * MN + i];
            bool ok;
            long double exact = 0;
            if (fns[k].kind == 2) {
                ok = g == half_special(fmt, fns[k].name, a, b);
            } else {
                exact = fns[k].ref(h2ld(fmt, a), h2ld(fmt, b));
                uint16_t rn = ld2h(fmt, exact, FR_RN);
                if (fns[k].kind == 1)
                    ok = g == rn || (exact == 0 && (g & 0x7fff) == 0);
                else
                    ok = within(h2ld(fmt, g), exact, h2ld(fmt, rn), ulp_at(exact, p, emin));
            }
            if (!ok && bad++ < 8)
                print_error("%s: %s(0x%04x, 0x%04x) = 0x%04x, exact %La\n", r.what, fns[k].name, a, b,
                            g, exact);
        }
    free(x), free(y), free(out);
    assert_int_equal(bad, 0);
}

static void test_math_f32(void **s) { (void)s; run_fmath("lib_math.sm_80.ptx", 0); }
static void test_math_f64(void **s) { (void)s; run_dmath("lib_mathd.sm_90.ptx"); }
static void test_math_f32_fastmath(void **s)
{
    (void)s;
    run_fmath("lib_math.sm_80.fastmath.ptx", 0x1p-12);
}
static void test_math_half(void **s)
{
    (void)s;
    run_halfmath("lib_mathd.sm_90.ptx", "hmath", FR_F16, hfns, 20);
}
static void test_math_bf16(void **s)
{
    (void)s;
    run_halfmath("lib_mathd.sm_90.ptx", "bmath", FR_BF16, bfns, 16);
}

/* ------------------------------------------------------------------------
 * Triton- and Numba-shaped PTX (tests/ptx/corpus/triton_numba_lib.hand.ptx)
 * ------------------------------------------------------------------------ */

static const char *const HAND = "triton_numba_lib.hand.ptx";

static void test_triton_layernorm(void **s)
{
    (void)s;
    run r = get_run(HAND, "layer_norm_fwd_fp16");
    enum { ROWS = 5, STRIDE = 520 };
    static const uint32_t ncols[] = {512, 100, 4};
    static float x[ROWS * STRIDE], w[512], bias[512];
    seed(19);
    for (int i = 0; i < ROWS * STRIDE; i++)
        x[i] = (float)(rnd_unit() * 20 - 7);
    for (int i = 0; i < 512; i++)
        w[i] = (float)(rnd_unit() * 2 - 1), bias[i] = (float)(rnd_unit() - 0.5);
    for (size_t v = 0; v < sizeof ncols / sizeof ncols[0]; v++) {
        uint32_t n = ncols[v];
        static uint16_t y[ROWS * 512 + 8];
        float mean[ROWS], rstd[ROWS], eps = 1e-5f;
        for (size_t i = 0; i < sizeof y / 2; i++)
            y[i] = 0x5a5a;
        params p = {0};
        p_ptr(&p, x), p_ptr(&p, y), p_ptr(&p, w), p_ptr(&p, bias), p_ptr(&p, mean), p_ptr(&p, rstd);
        p_i32(&p, STRIDE), p_i32(&p, (int)n), p_raw(&p, &eps, 4);
        launch_smem(&r, ROWS, BT, 16, &p, NULL);
        for (int row = 0; row < ROWS; row++) {
            long double m = 0, var = 0;
            for (uint32_t c = 0; c < n; c++)
                m += x[row * STRIDE + c];
            m /= n;
            for (uint32_t c = 0; c < n; c++)
                var += (x[row * STRIDE + c] - m) * (x[row * STRIDE + c] - m);
            long double rs = 1 / sqrtl(var / n + eps);
            if (fabsl(mean[row] - m) > 1e-5L * fmaxl(fabsl(m), 1) || fabsl(rstd[row] - rs) > 1e-5L * rs)
                fail_msg("%s: row %d (n %u): mean %g rstd %g, want %Lg %Lg", r.what, row, n, mean[row],
                         rstd[row], m, rs);
            for (uint32_t c = 0; c < n; c++) {
                long double want = (x[row * STRIDE + c] - m) * rs * w[c] + bias[c];
                long double got = h2ld(FR_F16, y[row * n + c]);
                if (fabsl(got - want) > 2 * ulp_at(want, 11, -14) + 1e-5L)
                    fail_msg("%s: y[%d][%u] = %Lg, want %Lg", r.what, row, c, got, want);
            }
        }
        for (size_t i = ROWS * n; i < sizeof y / 2; i++)
            if (y[i] != 0x5a5a)
                fail_msg("%s: y[%zu] written past the rows (n %u)", r.what, i, n);
    }
}

static void test_numba_record_calls(void **s)
{
    (void)s;
    run r = get_run(HAND, "_ZN6cudapy8__main__13poly_horner_2B2v1E5Record5ArrayIdLi1E1C7mutable7alignedE");
    enum { N = 300, CAP = 320 };
    static double out[CAP * 2];
    struct { double c0, c1, c2; int64_t n; } rec = {1.25, -0.375, 0.0078125, N};
    for (int i = 0; i < CAP * 2; i++)
        out[i] = -7;
    params p = {0};
    p_raw(&p, &rec.c0, 8), p_raw(&p, &rec.c1, 8), p_raw(&p, &rec.c2, 8), p_raw(&p, &rec.n, 8);
    uint64_t meminfo = 0, parent = 0, nitems = CAP, itemsize = 8, shape = CAP, stride = 16;
    p_raw(&p, &meminfo, 8), p_raw(&p, &parent, 8), p_raw(&p, &nitems, 8), p_raw(&p, &itemsize, 8);
    p_ptr(&p, out), p_raw(&p, &shape, 8), p_raw(&p, &stride, 8);
    launch(&r, (CAP + 63) / 64, 64, &p);
    for (int i = 0; i < CAP * 2; i++) {
        double want = -7;
        if (i % 2 == 0 && i / 2 < N) {
            double x = (double)(i / 2) * 0.5, q = fma(fma(rec.c2, x, rec.c1), x, rec.c0);
            want = q + q;
        }
        if (memcmp(&out[i], &want, 8))
            fail_msg("%s: out[%d] = %a, want %a", r.what, i, out[i], want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cub_sm80),
        cmocka_unit_test(test_cub_sm75),
        cmocka_unit_test(test_cg_sm80),
        cmocka_unit_test(test_cg_sm75),
        cmocka_unit_test(test_cg_sm80_lineinfo),
        cmocka_unit_test(test_libcu_atomics),
        cmocka_unit_test(test_libcu_std),
        cmocka_unit_test(test_int128),
        cmocka_unit_test(test_heap_printf),
        cmocka_unit_test(test_math_f32),
        cmocka_unit_test(test_math_f64),
        cmocka_unit_test(test_math_f32_fastmath),
        cmocka_unit_test(test_math_half),
        cmocka_unit_test(test_math_bf16),
        cmocka_unit_test(test_triton_layernorm),
        cmocka_unit_test(test_numba_record_calls),
    };
    const char *filter = getenv("CORPUS_FILTER");
    if (filter)
        cmocka_set_test_filter(filter);
    return cmocka_run_group_tests_name("corpus", tests, setup, teardown);
}
