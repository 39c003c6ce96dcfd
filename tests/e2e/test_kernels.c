/* test_kernels.c - the end-to-end kernel suite: fixture kernels
 * (tests/cuda/<name>.cu, compiled to PTX by nvcc for sm_80 and sm_75 and by
 * clang for sm_80) run through the whole pipeline - parse, check, lower,
 * optimize, codegen, launch - and are compared with C references written
 * from the kernels' documented semantics (the comment above each kernel in
 * tests/cuda), never from ptxjit's output.
 *
 * Every (fixture, kernel, variant) is its own test case, named
 * "base.variant:kernel", and runs on a 1-worker and a 2-worker context.
 * Launches use block sizes that are not multiples of 32 wherever the kernel
 * allows it, and sizes that leave the last block partial; outputs past the
 * valid range are pre-filled with a sentinel and must come back untouched.
 *
 * Comparisons are exact (bitwise for floats) unless a kernel's semantics
 * leave room: the ISA's approximate instructions get a stated ULP bound,
 * and where the compiler may contract a*b+c into one fma the reference
 * accepts either the fused or the unfused result (or the inputs are small
 * integers, so every order and contraction gives the same exact value).
 *
 * A module that does not load is a skip() naming the first log line; a
 * known compiler bug is a skip() naming the bug.  Both are listed at the
 * end of the run.  E2E_FILTER=<glob> runs a subset (cmocka's test filter). */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <cmocka.h>

#include "ptxjit/ptxjit.h"
#include "test_util.h"

/* ------------------------------------------------------------------------
 * Contexts, modules, variants
 * ------------------------------------------------------------------------ */

static const unsigned worker_counts[2] = {1, 2};
static ptxjit_ctx *ctxs[2];

/* sm_80 (nvcc) is the baseline and must exist; the others run where the
 * fixture has them.  E2E_EXTRA_VARIANTS=sm_90,sm_80.G,... adds more. */
#define MAX_VARIANTS 12
static const char *variants[MAX_VARIANTS] = {"sm_80", "clang.sm_80", "sm_75"};
static size_t nvariants = 3;

/* Modules are compiled once per (context, file) and kept for the run. */
typedef struct modent {
    int ctx;
    char file[96];
    ptxjit_module *m; /* NULL: did not load, see why */
    char why[256];
    unsigned uses; /* launches of stateful kernels (module globals) */
    int loaded;
} modent;
static modent mods[256];
static size_t nmods;

/* Skips, reported at the end so the run ends with the full list. */
static char skips[128][320];
static size_t nskips;

static void note_skip(const char *fmt, ...)
{
    va_list ap;
    char line[320];
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    print_message("SKIP %s\n", line);
    for (size_t i = 0; i < nskips; i++)
        if (!strcmp(skips[i], line))
            return;
    if (nskips < sizeof skips / sizeof skips[0])
        snprintf(skips[nskips++], sizeof skips[0], "%s", line);
}

/* Into the caller's buffer: the two contexts' modules load in two
 * threads at once (preload), and a shared static path let one thread read
 * the other's file under its own name (the CI flakes of stops 23 and 30:
 * grid3d loaded with printf_kernel's kernels). */
static char *corpus_path(const char *file, char path[512])
{
    snprintf(path, 512, "%s/ptx/corpus/%s", PTXJIT_TEST_DIR, file);
    return path;
}

static int file_exists(const char *file)
{
    char path[512];
    FILE *f = fopen(corpus_path(file, path), "r");
    if (f)
        fclose(f);
    return f != NULL;
}

static void load_entry(modent *e)
{
    size_t len;
    char path[512];
    char *src = tu_read_file(corpus_path(e->file, path), &len), *log = NULL;
    if (!src) {
        snprintf(e->why, sizeof e->why, "cannot read %.200s", path);
        return;
    }
    e->m = ptxjit_load(ctxs[e->ctx], src, len, e->file, &log, NULL);
    free(src);
    char err[512];
    if (e->m) /* compile here, in the preload's threads (a failure shows at launch) */
        ptxjit_module_compile(e->m, err, sizeof err);
    if (!e->m) {
        const char *l = log ? log : "(no log)";
        size_t n = strcspn(l, "\n");
        snprintf(e->why, sizeof e->why, "%.*s", (int)n, l);
    }
    free(log);
}

/* The entry for (context, file), created on first use; loaded is set once
 * load_entry ran (here, or in the parallel preload). */
static modent *find_entry(int c, const char *file)
{
    for (size_t i = 0; i < nmods; i++)
        if (mods[i].ctx == c && !strcmp(mods[i].file, file))
            return &mods[i];
    assert_true(nmods < sizeof mods / sizeof mods[0]);
    modent *e = &mods[nmods++];
    memset(e, 0, sizeof *e);
    e->ctx = c;
    snprintf(e->file, sizeof e->file, "%s", file);
    return e;
}

static modent *get_module(int c, const char *file)
{
    modent *e = find_entry(c, file);
    if (!e->loaded) {
        load_entry(e);
        e->loaded = 1;
    }
    return e;
}

/* Compiling dominates the suite's time, and each context needs its own
 * copy of every module.  Two threads (separate contexts share no LLVM
 * state) first compile half the files each, each on its own context;
 * then each loads the other half, which the test's compilation cache
 * (tests/cache/isolated.sh) now holds: every file is compiled once. */
typedef struct preload_half {
    int ctx;
    size_t parity; /* files[i] with i % 2 == parity */
    const char *const *files;
    size_t nfiles;
} preload_half;

static void *preload_files_of(void *arg)
{
    const preload_half *h = arg;
    for (size_t i = h->parity; i < h->nfiles; i += 2)
        get_module(h->ctx, h->files[i]);
    return NULL;
}

static void preload(const char *const *files, size_t nfiles)
{
    for (size_t i = 0; i < nfiles; i++) /* all entries first: no table growth in the threads */
        for (int c = 0; c < 2; c++)
            find_entry(c, files[i]);
    for (size_t round = 0; round < 2; round++) {
        preload_half h[2];
        for (int c = 0; c < 2; c++)
            h[c] = (preload_half){c, (size_t)c ^ round, files, nfiles};
        pthread_t th;
        int threaded = pthread_create(&th, NULL, preload_files_of, &h[1]) == 0;
        preload_files_of(&h[0]);
        if (threaded)
            pthread_join(th, NULL);
        else
            preload_files_of(&h[1]);
    }
}

/* ------------------------------------------------------------------------
 * One run of a check: a kernel on a context
 * ------------------------------------------------------------------------ */

typedef struct run {
    ptxjit_ctx *ctx;
    const ptxjit_kernel *k;
    modent *mod;
    const char *variant;
    unsigned workers;
    char what[200]; /* "file kernel (N worker(s))" for messages */
} run;

typedef void (*check_fn)(const run *r);

static int is_clang(const run *r) { return strstr(r->variant, "clang") != NULL; }

/* A kernel that computes a wrong answer because of a compiler/runtime bug
 * that has been reported: skip with the bug's description. */
__attribute__((unused)) static void known_bug(const run *r, const char *bug)
{
    note_skip("%s: known bug: %s", r->what, bug);
    skip();
}

/* A fixture whose generated PTX is itself wrong (the CUDA compiler's bug,
 * not ptxjit's): a GPU would not compute the documented result either. */
static void fixture_defect(const run *r, const char *why)
{
    note_skip("%s: fixture defect: %s", r->what, why);
    skip();
}

/* clang-19's NVPTX backend prints redux.sync with the value and the member
 * mask swapped ("redux.sync.add.s32 %r2, %r12, %r11" with %r12 = -1 the
 * mask): llvm/llvm-project#131415, fixed by #132881 (LLVM 21).  ptxjit
 * computes what that PTX says (a reduction of the constant -1). */
#define CLANG_REDUX_SWAP                                                                          \
    "clang-19 emits redux.sync with value and membermask swapped (llvm/llvm-project#131415); "   \
    "regenerate the clang warp_vote fixtures with clang >= 21"

/* ------------------------------------------------------------------------
 * Parameter packing: CUDA's kernelParams layout (each parameter at the next
 * offset aligned to its size).
 * ------------------------------------------------------------------------ */

typedef struct params {
    unsigned char b[512];
    size_t n;
} params;

static void p_raw(params *p, const void *v, size_t size, size_t align)
{
    p->n = (p->n + align - 1) & ~(align - 1);
    assert_true(p->n + size <= sizeof p->b);
    memcpy(p->b + p->n, v, size);
    p->n += size;
}
static void p_i16(params *p, int16_t v) { p_raw(p, &v, 2, 2); }
static void p_i32(params *p, int32_t v) { p_raw(p, &v, 4, 4); }
static void p_u32(params *p, uint32_t v) { p_raw(p, &v, 4, 4); }
static void p_i64(params *p, int64_t v) { p_raw(p, &v, 8, 8); }
static void p_u64(params *p, uint64_t v) { p_raw(p, &v, 8, 8); }
static void p_f32(params *p, float v) { p_raw(p, &v, 4, 4); }
static void p_f64(params *p, double v) { p_raw(p, &v, 8, 8); }
static void p_ptr(params *p, const void *v) { p_raw(p, &v, sizeof v, sizeof v); }

/* ------------------------------------------------------------------------
 * Launching
 * ------------------------------------------------------------------------ */

static ptxjit_status launch_status(const run *r, const uint32_t grid[3], const uint32_t block[3],
                                   uint32_t shared, const params *p, FILE *out, char *err,
                                   size_t errlen)
{
    ptxjit_launch_cfg cfg = {{grid[0], grid[1], grid[2]},
                             {block[0], block[1], block[2]},
                             shared,
                             p ? p->b : NULL,
                             out};
    err[0] = 0;
    return ptxjit_launch(r->ctx, r->k, &cfg, err, errlen);
}

static void launch3(const run *r, uint32_t gx, uint32_t gy, uint32_t gz, uint32_t bx, uint32_t by,
                    uint32_t bz, uint32_t shared, const params *p, FILE *out)
{
    char err[512];
    uint32_t grid[3] = {gx, gy, gz}, block[3] = {bx, by, bz};
    ptxjit_status st = launch_status(r, grid, block, shared, p, out, err, sizeof err);
    if (st != PTXJIT_OK)
        fail_msg("%s: launch grid (%u,%u,%u) block (%u,%u,%u) failed (status %d): %s", r->what,
                 gx, gy, gz, bx, by, bz, (int)st, err);
}

static void launch1(const run *r, uint32_t grid, uint32_t block, const params *p)
{
    launch3(r, grid, 1, 1, block, 1, 1, 0, p, NULL);
}

static uint32_t cdiv(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

/* ------------------------------------------------------------------------
 * Inputs: a small deterministic generator
 * ------------------------------------------------------------------------ */

static uint32_t rng_s = 1;
static void rng_seed(uint32_t s) { rng_s = s * 2654435761u ^ 0x9e3779b9u; if (!rng_s) rng_s = 1; }
static uint32_t rnd(void)
{
    rng_s ^= rng_s << 13;
    rng_s ^= rng_s >> 17;
    rng_s ^= rng_s << 5;
    return rng_s;
}
static int rnd_int(int lo, int hi)
{
    return (int)((int64_t)lo + (int64_t)(rnd() % (uint64_t)((int64_t)hi - lo + 1)));
}
static float rnd_f32(float lo, float hi)
{
    return lo + (hi - lo) * ((float)(rnd() >> 8) / 16777216.0f);
}
static double rnd_f64(double lo, double hi)
{
    uint64_t m = ((uint64_t)rnd() << 21) ^ rnd();
    return lo + (hi - lo) * ((double)(m & ((1ull << 53) - 1)) / 9007199254740992.0);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    assert_non_null(p);
    return p;
}

/* ------------------------------------------------------------------------
 * Comparisons.  Each names the run, the array and the first bad index.
 * ------------------------------------------------------------------------ */

#define DEFINE_CHECK_INT(name, T, FMT, CAST)                                                      \
    static void name(const run *r, const char *label, const T *got, const T *want, size_t n)     \
    {                                                                                             \
        for (size_t i = 0; i < n; i++)                                                            \
            if (got[i] != want[i])                                                                \
                fail_msg("%s: %s[%zu] = " FMT ", want " FMT, r->what, label, i, (CAST)got[i],    \
                         (CAST)want[i]);                                                          \
    }
DEFINE_CHECK_INT(check_i32, int32_t, "%d", int)
DEFINE_CHECK_INT(check_u32, uint32_t, "0x%x", unsigned)
DEFINE_CHECK_INT(check_i64, int64_t, "%lld", long long)
DEFINE_CHECK_INT(check_u64, uint64_t, "0x%llx", unsigned long long)
DEFINE_CHECK_INT(check_u8, uint8_t, "%u", unsigned)
DEFINE_CHECK_INT(check_u16, uint16_t, "%u", unsigned)

/* Distance in units in the last place between two finite-or-infinite
 * floats of the same sign class (values mapped onto a monotonic integer
 * line, so -0 and +0 are one apart). */
static uint64_t ulp_dist32(float a, float b)
{
    int32_t ia, ib;
    memcpy(&ia, &a, 4);
    memcpy(&ib, &b, 4);
    int64_t la = ia < 0 ? (int64_t)INT32_MIN - ia : ia;
    int64_t lb = ib < 0 ? (int64_t)INT32_MIN - ib : ib;
    return (uint64_t)(la > lb ? la - lb : lb - la);
}

static uint64_t ulp_dist64(double a, double b)
{
    int64_t ia, ib;
    memcpy(&ia, &a, 8);
    memcpy(&ib, &b, 8);
    /* the mapped values fit: |ia| < 2^63 */
    __int128 la = ia < 0 ? (__int128)INT64_MIN - ia : ia;
    __int128 lb = ib < 0 ? (__int128)INT64_MIN - ib : ib;
    __int128 d = la > lb ? la - lb : lb - la;
    return d > (__int128)UINT64_MAX ? UINT64_MAX : (uint64_t)d;
}

/* Floats: ulps == 0 means bit-identical (any NaN matches any NaN). */
static void check_f32(const run *r, const char *label, const float *got, const float *want,
                      size_t n, unsigned ulps)
{
    for (size_t i = 0; i < n; i++) {
        if (isnan(got[i]) && isnan(want[i]))
            continue;
        if (isnan(got[i]) || isnan(want[i]) || ulp_dist32(got[i], want[i]) > ulps)
            fail_msg("%s: %s[%zu] = %.9g (%a), want %.9g (%a)%s", r->what, label, i,
                     (double)got[i], (double)got[i], (double)want[i], (double)want[i],
                     ulps ? " within the stated ulps" : "");
    }
}

static void check_f64(const run *r, const char *label, const double *got, const double *want,
                      size_t n, unsigned ulps)
{
    for (size_t i = 0; i < n; i++) {
        if (isnan(got[i]) && isnan(want[i]))
            continue;
        if (isnan(got[i]) || isnan(want[i]) || ulp_dist64(got[i], want[i]) > ulps)
            fail_msg("%s: %s[%zu] = %.17g (%a), want %.17g (%a)", r->what, label, i, got[i],
                     got[i], want[i], want[i]);
    }
}

/* Where the compiler may or may not have contracted a*b+c into an fma:
 * either exact result is right. */
static void check_f32_either(const run *r, const char *label, const float *got,
                             const float *fused, const float *unfused, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t g, a, b;
        memcpy(&g, &got[i], 4);
        memcpy(&a, &fused[i], 4);
        memcpy(&b, &unfused[i], 4);
        if (g != a && g != b)
            fail_msg("%s: %s[%zu] = %.9g (%a), want %.9g (fused) or %.9g (unfused)", r->what,
                     label, i, (double)got[i], (double)got[i], (double)fused[i],
                     (double)unfused[i]);
    }
}

/* Bytes past the valid range must keep their sentinel. */
static void check_untouched(const run *r, const char *label, const void *buf, size_t from,
                            size_t to, size_t elem, unsigned char sentinel)
{
    const unsigned char *b = buf;
    for (size_t i = from * elem; i < to * elem; i++)
        if (b[i] != sentinel)
            fail_msg("%s: %s[%zu] was written (past n = %zu)", r->what, label, i / elem, from);
}

#define SENT 0xA5 /* sentinel byte for out-of-range elements */

/* ========================================================================
 * vector_ops.cu
 * ======================================================================== */

/* Launch shapes for 1D kernels: blocks of 96 and 100 threads (and 33, 1
 * and 1000), n leaving the last block partial. */
typedef struct shape1 {
    uint32_t block, n;
} shape1;
static const shape1 shapes1[] = {{96, 1000}, {100, 950}, {33, 70}, {1, 7}, {1000, 2100}};
#define NSHAPES1 (sizeof shapes1 / sizeof shapes1[0])

static void chk_vec_add(const run *r)
{
    for (size_t s = 0; s <= NSHAPES1; s++) {
        /* the extra shape: 1001 blocks, handed out to the workers in chunks */
        uint32_t n = s < NSHAPES1 ? shapes1[s].n : 100050, bs = s < NSHAPES1 ? shapes1[s].block : 100,
                 g = cdiv(n, bs), tot = g * bs;
        float *a = xmalloc(tot * 4), *b = xmalloc(tot * 4), *c = xmalloc(tot * 4),
              *want = xmalloc(n * 4);
        rng_seed(11 + s);
        for (uint32_t i = 0; i < tot; i++)
            a[i] = rnd_f32(-100, 100), b[i] = rnd_f32(-1, 1);
        a[3] = INFINITY, b[3] = -INFINITY, a[5] = NAN; /* inf - inf = NaN */
        for (uint32_t i = 0; i < n; i++)
            want[i] = a[i] + b[i];
        memset(c, SENT, tot * 4);
        params p = {0};
        p_ptr(&p, a), p_ptr(&p, b), p_ptr(&p, c), p_i32(&p, (int)n);
        launch1(r, g, bs, &p);
        check_f32(r, "c", c, want, n, 0);
        check_untouched(r, "c", c, n, tot, 4, SENT);
        free(a), free(b), free(c), free(want);
    }
}

static void chk_saxpy_gridstride(const run *r)
{
    /* grids much smaller than n: the stride loop runs many times */
    static const struct { uint32_t grid, block, n; } sh[] = {{3, 100, 5000}, {2, 96, 1001}, {1, 50, 777}};
    for (size_t s = 0; s < sizeof sh / sizeof sh[0]; s++) {
        uint32_t n = sh[s].n;
        float *x = xmalloc((n + 8) * 4), *y = xmalloc((n + 8) * 4), *want = xmalloc(n * 4),
              *unfused = xmalloc(n * 4);
        float alpha = 1.75f;
        rng_seed(21 + s);
        for (uint32_t i = 0; i < n + 8; i++)
            x[i] = rnd_f32(-10, 10), y[i] = rnd_f32(-10, 10);
        for (uint32_t i = 0; i < n; i++)
            want[i] = fmaf(alpha, x[i], y[i]), unfused[i] = alpha * x[i] + y[i];
        float tail[8];
        memcpy(tail, y + n, sizeof tail);
        params p = {0};
        p_i32(&p, (int)n), p_f32(&p, alpha), p_ptr(&p, x), p_ptr(&p, y);
        launch1(r, sh[s].grid, sh[s].block, &p);
        /* Optimized nvcc and clang both emit fma.rn.f32: the result is the
         * fused one.  A -G build keeps mul.f32 + add.f32, which the ISA lets
         * the code generator contract or not: either result is right. */
        if (strstr(r->variant, ".G"))
            check_f32_either(r, "y", y, want, unfused, n);
        else
            check_f32(r, "y", y, want, n, 0);
        check_f32(r, "y (past n)", y + n, tail, 8, 0);
        free(x), free(y), free(want), free(unfused);
    }
}

static void chk_scale_inplace(const run *r)
{
    for (size_t s = 0; s < NSHAPES1; s++) {
        uint32_t n = shapes1[s].n, bs = shapes1[s].block, g = cdiv(n, bs), tot = g * bs;
        float *x = xmalloc(tot * 4), *want = xmalloc(tot * 4), sc = -0.3f;
        rng_seed(31 + s);
        for (uint32_t i = 0; i < tot; i++)
            x[i] = rnd_f32(-1e30f, 1e30f);
        x[1] = FLT_MAX, x[2] = FLT_MIN, x[4] = -0.0f;
        for (uint32_t i = 0; i < tot; i++)
            want[i] = i < n ? x[i] * sc : x[i];
        params p = {0};
        p_ptr(&p, x), p_f32(&p, sc), p_u32(&p, n);
        launch1(r, g, bs, &p);
        check_f32(r, "x", x, want, tot, 0);
        free(x), free(want);
    }
}

static void chk_axpby_f64(const run *r)
{
    static const struct { uint32_t grid, block, n; } sh[] = {{4, 100, 3000}, {3, 96, 290}};
    for (size_t s = 0; s < sizeof sh / sizeof sh[0]; s++) {
        uint32_t n = sh[s].n;
        double *x = xmalloc((n + 4) * 8), *y = xmalloc((n + 4) * 8), *want = xmalloc((n + 4) * 8);
        double a = 1.0 / 3.0, b = -2.25;
        rng_seed(41 + s);
        for (uint32_t i = 0; i < n + 4; i++)
            x[i] = rnd_f64(-1e6, 1e6), y[i] = want[i] = rnd_f64(-1, 1);
        for (uint32_t i = 0; i < n; i++)
            want[i] = fma(a, x[i], b * y[i]);
        params p = {0};
        p_i64(&p, n), p_f64(&p, a), p_ptr(&p, x), p_f64(&p, b), p_ptr(&p, y);
        launch1(r, sh[s].grid, sh[s].block, &p);
        check_f64(r, "y", y, want, n + 4, 0);
        free(x), free(y), free(want);
    }
}

static void chk_vec_add_i64(const run *r)
{
    for (size_t s = 0; s < NSHAPES1; s++) {
        uint32_t n = shapes1[s].n, bs = shapes1[s].block, g = cdiv(n, bs), tot = g * bs;
        int64_t *a = xmalloc(tot * 8), *b = xmalloc(tot * 8), *c = xmalloc(tot * 8),
                *want = xmalloc(n * 8);
        rng_seed(51 + s);
        for (uint32_t i = 0; i < tot; i++) {
            a[i] = (int64_t)(((uint64_t)rnd() << 32) | rnd());
            b[i] = (int64_t)(((uint64_t)rnd() << 32) | rnd());
        }
        a[0] = INT64_MAX, b[0] = 1; /* wraps */
        a[1] = INT64_MIN, b[1] = -1;
        for (uint32_t i = 0; i < n; i++)
            want[i] = (int64_t)((uint64_t)a[i] + (uint64_t)b[i]);
        memset(c, SENT, tot * 8);
        params p = {0};
        p_ptr(&p, a), p_ptr(&p, b), p_ptr(&p, c), p_u64(&p, n);
        launch1(r, g, bs, &p);
        check_i64(r, "c", c, want, n);
        check_untouched(r, "c", c, n, tot, 8, SENT);
        free(a), free(b), free(c), free(want);
    }
}

static void chk_relu_clamp(const run *r)
{
    for (size_t s = 0; s < NSHAPES1; s++) {
        uint32_t n = shapes1[s].n, bs = shapes1[s].block, g = cdiv(n, bs), tot = g * bs;
        float *in = xmalloc(tot * 4), *out = xmalloc(tot * 4), *want = xmalloc(n * 4), hi = 6.5f;
        rng_seed(61 + s);
        for (uint32_t i = 0; i < tot; i++)
            in[i] = rnd_f32(-10, 10);
        in[0] = NAN, in[1] = INFINITY, in[2] = -INFINITY, in[3] = 6.5f, in[4] = 0.0f;
        in[6] = 1e-40f; /* subnormal: no .ftz in the fixture */
        for (uint32_t i = 0; i < n; i++)
            want[i] = fminf(fmaxf(in[i], 0.0f), hi);
        memset(out, SENT, tot * 4);
        params p = {0};
        p_ptr(&p, in), p_ptr(&p, out), p_f32(&p, hi), p_i32(&p, (int)n);
        launch1(r, g, bs, &p);
        check_f32(r, "out", out, want, n, 0);
        check_untouched(r, "out", out, n, tot, 4, SENT);
        free(in), free(out), free(want);
    }
}

static void chk_copy_u8_u16(const run *r)
{
    for (size_t s = 0; s < NSHAPES1; s++) {
        uint32_t n = shapes1[s].n, bs = shapes1[s].block, g = cdiv(n, bs), tot = g * bs;
        uint8_t *src = xmalloc(tot);
        uint16_t *dst = xmalloc(tot * 2), *want = xmalloc(n * 2);
        int16_t bias = s == 0 ? -300 : 1234;
        rng_seed(71 + s);
        for (uint32_t i = 0; i < tot; i++)
            src[i] = (uint8_t)rnd();
        src[0] = 0, src[1] = 255;
        for (uint32_t i = 0; i < n; i++)
            want[i] = (uint16_t)(src[i] * 3 + bias);
        memset(dst, SENT, tot * 2);
        params p = {0};
        p_ptr(&p, src), p_ptr(&p, dst), p_i16(&p, bias), p_i32(&p, (int)n);
        launch1(r, g, bs, &p);
        check_u16(r, "dst16", dst, want, n);
        check_untouched(r, "dst16", dst, n, tot, 2, SENT);
        free(src), free(dst), free(want);
    }
}

static void chk_scale_float4(const run *r)
{
    for (size_t s = 0; s < NSHAPES1; s++) {
        uint32_t n4 = shapes1[s].n, bs = shapes1[s].block, g = cdiv(n4, bs), tot = g * bs;
        float *src = aligned_alloc(16, (size_t)tot * 16), *dst = aligned_alloc(16, (size_t)tot * 16),
              *want = xmalloc((size_t)n4 * 16), sc = 3.0f / 7.0f;
        assert_non_null(src), assert_non_null(dst);
        rng_seed(81 + 1000 + s);
        for (uint32_t i = 0; i < 4 * tot; i++)
            src[i] = rnd_f32(-1e3f, 1e3f);
        for (uint32_t i = 0; i < 4 * n4; i++)
            want[i] = src[i] * sc;
        memset(dst, SENT, (size_t)tot * 16);
        params p = {0};
        p_ptr(&p, src), p_ptr(&p, dst), p_f32(&p, sc), p_i32(&p, (int)n4);
        launch1(r, g, bs, &p);
        check_f32(r, "dst (floats)", dst, want, 4 * (size_t)n4, 0);
        check_untouched(r, "dst (floats)", dst, 4 * (size_t)n4, 4 * (size_t)tot, 4, SENT);
        free(src), free(dst), free(want);
    }
}

static void chk_add_ldg_restrict(const run *r)
{
    for (size_t s = 0; s < NSHAPES1; s++) {
        uint32_t n = shapes1[s].n, bs = shapes1[s].block, g = cdiv(n, bs), tot = g * bs;
        float *a = xmalloc(tot * 4), *b = xmalloc(tot * 4), *c = xmalloc(tot * 4),
              *fused = xmalloc(n * 4), *unfused = xmalloc(n * 4);
        rng_seed(91 + 1000 + s);
        for (uint32_t i = 0; i < tot; i++)
            a[i] = rnd_f32(-100, 100), b[i] = rnd_f32(-100, 100);
        for (uint32_t i = 0; i < n; i++) /* a*2 is exact: fused or not, the same */
            fused[i] = fmaf(a[i], 2.0f, b[i]), unfused[i] = a[i] * 2.0f + b[i];
        memset(c, SENT, tot * 4);
        params p = {0};
        p_ptr(&p, a), p_ptr(&p, b), p_ptr(&p, c), p_i32(&p, (int)n);
        launch1(r, g, bs, &p);
        check_f32_either(r, "c", c, fused, unfused, n);
        check_untouched(r, "c", c, n, tot, 4, SENT);
        free(a), free(b), free(c), free(fused), free(unfused);
    }
}

/* ========================================================================
 * divergence.cu
 * ======================================================================== */

static void chk_lane_trip_loop(const run *r)
{
    for (size_t s = 0; s < NSHAPES1; s++) {
        uint32_t n = shapes1[s].n, bs = shapes1[s].block, g = cdiv(n, bs), tot = g * bs;
        int32_t *out = xmalloc(tot * 4), *want = xmalloc(n * 4);
        for (uint32_t gid = 0; gid < n; gid++) {
            uint32_t acc = 0;
            for (uint32_t j = 0; j < gid % 37; j++)
                acc += (j * gid) ^ j;
            want[gid] = (int32_t)acc;
        }
        memset(out, SENT, tot * 4);
        params p = {0};
        p_ptr(&p, out), p_i32(&p, (int)n);
        launch1(r, g, bs, &p);
        check_i32(r, "out", out, want, n);
        check_untouched(r, "out", out, n, tot, 4, SENT);
        free(out), free(want);
    }
}

static void chk_collatz_steps(const run *r)
{
    for (size_t s = 0; s < NSHAPES1; s++) {
        uint32_t n = shapes1[s].n, bs = shapes1[s].block, g = cdiv(n, bs), tot = g * bs;
        uint32_t *in = xmalloc(tot * 4), *steps = xmalloc(tot * 4), *want = xmalloc(n * 4);
        rng_seed(81 + s);
        for (uint32_t i = 0; i < tot; i++)
            in[i] = i % 5 == 0 ? rnd() : rnd() % 10000;
        in[0] = 0, in[1] = 1, in[2] = 27, in[3] = 0xffffffffu, in[4] = 0x80000001u;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t x = in[i], st = 0;
            while (x > 1 && st < 1000)
                x = (x & 1) ? 3 * x + 1 : x >> 1, st++;
            want[i] = st;
        }
        memset(steps, SENT, tot * 4);
        params p = {0};
        p_ptr(&p, in), p_ptr(&p, steps), p_i32(&p, (int)n);
        launch1(r, g, bs, &p);
        check_u32(r, "steps", steps, want, n);
        check_untouched(r, "steps", steps, n, tot, 4, SENT);
        free(in), free(steps), free(want);
    }
}

static void chk_early_exit(const run *r)
{
    for (size_t s = 0; s < NSHAPES1; s++) {
        uint32_t n = shapes1[s].n, bs = shapes1[s].block, g = cdiv(n, bs), tot = g * bs;
        int32_t *in = xmalloc(tot * 4), *out = xmalloc(tot * 4), *want = xmalloc(tot * 4);
        rng_seed(91 + s);
        for (uint32_t i = 0; i < tot; i++) {
            int k = rnd_int(0, 9);
            in[i] = k < 2 ? -rnd_int(1, 100) : k < 4 ? 0 : rnd_int(1, 400); /* > ~150 breaks */
        }
        memset(out, SENT, tot * 4);
        memcpy(want, out, tot * 4);
        for (uint32_t i = 0; i < n; i++) {
            int v = in[i];
            if (v < 0) {
                want[i] = -1;
                continue;
            }
            if (v == 0)
                continue; /* untouched */
            int acc = 0;
            for (int j = 1; j <= v; j++) {
                if (j % 7 == 0)
                    continue;
                if (acc > 10000)
                    break;
                acc += j;
            }
            want[i] = acc;
        }
        params p = {0};
        p_ptr(&p, in), p_ptr(&p, out), p_i32(&p, (int)n);
        launch1(r, g, bs, &p);
        check_i32(r, "out", out, want, tot);
        free(in), free(out), free(want);
    }
}

static void chk_nested_branches(const run *r)
{
    for (size_t s = 0; s < NSHAPES1; s++) {
        uint32_t n = shapes1[s].n, bs = shapes1[s].block, g = cdiv(n, bs), tot = g * bs;
        float *x = xmalloc(tot * 4), *out = xmalloc(tot * 4), *want = xmalloc(n * 4);
        int32_t *flags = xmalloc(tot * 4);
        rng_seed(101 + s);
        for (uint32_t i = 0; i < tot; i++)
            x[i] = rnd_f32(-20, 20), flags[i] = rnd_int(0, 31);
        for (uint32_t i = 0; i < n; i++) {
            float v = x[i], res;
            int f = flags[i];
            if (f & 1) {
                if (v > 0.0f)
                    res = (f & 2) ? v * 2.0f : v + 100.0f;
                else
                    res = (f & 4) ? -v : v - 1.0f;
            } else if (f & 8) {
                res = v < 10.0f ? v * v : 10.0f;
            } else if (f & 16) {
                res = 0.5f * v;
            } else {
                res = 42.0f;
            }
            want[i] = res;
        }
        memset(out, SENT, tot * 4);
        params p = {0};
        p_ptr(&p, x), p_ptr(&p, flags), p_ptr(&p, out), p_i32(&p, (int)n);
        launch1(r, g, bs, &p);
        check_f32(r, "out", out, want, n, 0);
        check_untouched(r, "out", out, n, tot, 4, SENT);
        free(x), free(out), free(want), free(flags);
    }
}

static void chk_switch_dispatch(const run *r)
{
    /* sqrtf: nvcc emits sqrt.rn.f32 (exact); clang emits sqrt.approx.f32,
     * whose error the ISA bounds by about 1 ulp: allow 2. */
    unsigned sqrt_ulps = is_clang(r) ? 2 : 0;
    for (size_t s = 0; s < NSHAPES1; s++) {
        uint32_t n = shapes1[s].n, bs = shapes1[s].block, g = cdiv(n, bs), tot = g * bs;
        int32_t *op = xmalloc(tot * 4), hits[13] = {0}, whits[13] = {0};
        float *a = xmalloc(tot * 4), *out = xmalloc(tot * 4), *want = xmalloc(n * 4);
        rng_seed(111 + s);
        for (uint32_t i = 0; i < tot; i++)
            op[i] = rnd_int(-2, 13), a[i] = rnd_f32(-50, 50);
        a[0] = 2.5f, op[0] = 9; /* floor */
        a[1] = -2.5f, op[1] = 10; /* ceil */
        a[2] = -4.0f, op[2] = 4; /* sqrt of a negative: NaN */
        for (uint32_t i = 0; i < n; i++) {
            float v = a[i], res;
            int c = op[i];
            switch (c) {
            case 0: res = v + 1.0f; break;
            case 1: res = v * 3.0f; break;
            case 2: res = v - 7.0f; break;
            case 3: res = v * v; break;
            case 4: res = sqrtf(v); break;
            case 5: res = -v; break;
            case 6: res = v / 5.0f; break;
            case 7: res = fabsf(v) + 2.0f; break;
            case 8: res = v * 0.25f + 9.0f; break; /* v*0.25 is exact: fused or not */
            case 9: res = floorf(v); break;
            case 10: res = ceilf(v); break;
            case 11: res = v * 1024.0f; break;
            default: res = 0.0f; whits[0]++; break;
            }
            if (c >= 0 && c <= 11)
                whits[c + 1]++;
            want[i] = res;
        }
        memset(out, SENT, tot * 4);
        params p = {0};
        p_ptr(&p, op), p_ptr(&p, a), p_ptr(&p, out), p_ptr(&p, hits), p_i32(&p, (int)n);
        launch1(r, g, bs, &p);
        for (uint32_t i = 0; i < n; i++)
            check_f32(r, op[i] == 4 ? "out (sqrt)" : "out", out + i, want + i, 1,
                      op[i] == 4 ? sqrt_ulps : 0);
        check_untouched(r, "out", out, n, tot, 4, SENT);
        check_i32(r, "hits", hits, whits, 13);
        free(op), free(a), free(out), free(want);
    }
}

static void chk_do_while_digits(const run *r)
{
    for (size_t s = 0; s < NSHAPES1; s++) {
        uint32_t n = shapes1[s].n, bs = shapes1[s].block, g = cdiv(n, bs), tot = g * bs;
        uint32_t *in = xmalloc(tot * 4), *sum = xmalloc(tot * 4), *wsum = xmalloc(n * 4);
        int32_t *nd = xmalloc(tot * 4), *wnd = xmalloc(n * 4);
        rng_seed(121 + s);
        for (uint32_t i = 0; i < tot; i++)
            in[i] = rnd() >> rnd_int(0, 31);
        in[0] = 0, in[1] = 0xffffffffu, in[2] = 9, in[3] = 10, in[4] = 1000000000u;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t x = in[i], sm = 0;
            int d = 0;
            do {
                sm += x % 10u, x /= 10u, d++;
            } while (x);
            wnd[i] = d, wsum[i] = sm;
        }
        memset(sum, SENT, tot * 4);
        memset(nd, SENT, tot * 4);
        params p = {0};
        p_ptr(&p, in), p_ptr(&p, nd), p_ptr(&p, sum), p_i32(&p, (int)n);
        launch1(r, g, bs, &p);
        check_i32(r, "ndigits", nd, wnd, n);
        check_u32(r, "digit_sum", sum, wsum, n);
        check_untouched(r, "ndigits", nd, n, tot, 4, SENT);
        check_untouched(r, "digit_sum", sum, n, tot, 4, SENT);
        free(in), free(sum), free(wsum), free(nd), free(wnd);
    }
}

static void chk_nested_loops_triangle(const run *r)
{
    for (size_t s = 0; s < NSHAPES1; s++) {
        uint32_t n = shapes1[s].n, bs = shapes1[s].block, g = cdiv(n, bs), tot = g * bs;
        int32_t *out = xmalloc(tot * 4), *want = xmalloc(n * 4);
        for (uint32_t gid = 0; gid < n; gid++) {
            int acc = 0;
            for (int i = 0; i < (int)(gid & 15); i++)
                for (int j = 0; j <= i; j++)
                    acc += ((i + j) & 1) ? i * j : -j;
            want[gid] = acc;
        }
        memset(out, SENT, tot * 4);
        params p = {0};
        p_ptr(&p, out), p_i32(&p, (int)n);
        launch1(r, g, bs, &p);
        check_i32(r, "out", out, want, n);
        check_untouched(r, "out", out, n, tot, 4, SENT);
        free(out), free(want);
    }
}

static void chk_goto_search(const run *r)
{
    enum { LEN = 60 };
    int32_t hay[LEN];
    rng_seed(131);
    for (int k = 0; k < LEN; k++)
        hay[k] = rnd_int(0, 80); /* duplicates: the first index counts */
    for (size_t s = 0; s < NSHAPES1; s++) {
        uint32_t n = shapes1[s].n, bs = shapes1[s].block, g = cdiv(n, bs), tot = g * bs;
        int32_t *needles = xmalloc(tot * 4), *pos = xmalloc(tot * 4), *want = xmalloc(n * 4);
        for (uint32_t i = 0; i < tot; i++)
            needles[i] = rnd_int(-5, 100);
        for (uint32_t i = 0; i < n; i++) {
            want[i] = -1;
            for (int k = 0; k < LEN; k++)
                if (hay[k] == needles[i]) {
                    want[i] = k;
                    break;
                }
        }
        memset(pos, SENT, tot * 4);
        params p = {0};
        p_ptr(&p, hay), p_i32(&p, LEN), p_ptr(&p, needles), p_ptr(&p, pos), p_i32(&p, (int)n);
        launch1(r, g, bs, &p);
        check_i32(r, "pos", pos, want, n);
        check_untouched(r, "pos", pos, n, tot, 4, SENT);
        free(needles), free(pos), free(want);
    }
}

/* ========================================================================
 * recursion.cu
 * ======================================================================== */

static int ref_fib(int n) { return n < 2 ? n : ref_fib(n - 1) + ref_fib(n - 2); }

static void chk_fib_kernel(const run *r)
{
    static const shape1 sh[] = {{96, 150}, {100, 130}};
    for (size_t s = 0; s < 2; s++) {
        uint32_t n = sh[s].n, bs = sh[s].block, g = cdiv(n, bs), tot = g * bs;
        int32_t *out = xmalloc(tot * 4), *want = xmalloc(n * 4);
        for (uint32_t i = 0; i < n; i++)
            want[i] = ref_fib((int)(i % 20));
        memset(out, SENT, tot * 4);
        params p = {0};
        p_ptr(&p, out), p_i32(&p, (int)n);
        launch1(r, g, bs, &p);
        check_i32(r, "out", out, want, n);
        check_untouched(r, "out", out, n, tot, 4, SENT);
        free(out), free(want);
    }
}

static void chk_range_sum_kernel(const run *r)
{
    enum { LEN = 100 };
    int32_t data[LEN];
    rng_seed(141);
    for (int k = 0; k < LEN; k++)
        data[k] = rnd_int(-2000000000, 2000000000); /* the sum needs 64 bits */
    for (size_t s = 0; s < NSHAPES1; s++) {
        uint32_t n = shapes1[s].n, bs = shapes1[s].block, g = cdiv(n, bs), tot = g * bs;
        int64_t *out = xmalloc(tot * 8), *want = xmalloc(n * 8);
        for (uint32_t i = 0; i < n; i++) {
            int64_t sum = 0;
            for (uint32_t k = 0; k < i % (LEN + 1); k++)
                sum += data[k];
            want[i] = sum;
        }
        memset(out, SENT, tot * 8);
        params p = {0};
        p_ptr(&p, data), p_i32(&p, LEN), p_ptr(&p, out), p_i32(&p, (int)n);
        launch1(r, g, bs, &p);
        check_i64(r, "out", out, want, n);
        check_untouched(r, "out", out, n, tot, 8, SENT);
        free(out), free(want);
    }
}

static void chk_parity_kernel(const run *r)
{
    for (size_t s = 0; s < NSHAPES1; s++) {
        uint32_t n = shapes1[s].n, bs = shapes1[s].block, g = cdiv(n, bs), tot = g * bs;
        uint32_t *in = xmalloc(tot * 4);
        int32_t *out = xmalloc(tot * 4), *want = xmalloc(n * 4);
        rng_seed(151 + s);
        for (uint32_t i = 0; i < tot; i++)
            in[i] = rnd();
        for (uint32_t i = 0; i < n; i++)
            want[i] = (in[i] % 64u) % 2 == 0 ? 2 : 1;
        memset(out, SENT, tot * 4);
        params p = {0};
        p_ptr(&p, in), p_ptr(&p, out), p_i32(&p, (int)n);
        launch1(r, g, bs, &p);
        check_i32(r, "out", out, want, n);
        check_untouched(r, "out", out, n, tot, 4, SENT);
        free(in), free(out), free(want);
    }
}

static float ref_fpow(float x, int e)
{
    if (e == 0)
        return 1.0f;
    if (e & 1)
        return x * ref_fpow(x, e - 1);
    float h = ref_fpow(x, e / 2);
    return h * h;
}

static unsigned ref_ack(unsigned m, unsigned n)
{
    if (m == 0)
        return n + 1;
    if (n == 0)
        return ref_ack(m - 1, 1);
    return ref_ack(m - 1, ref_ack(m, n - 1));
}

static void chk_pow_ack_kernel(const run *r)
{
    static const shape1 sh[] = {{96, 200}, {100, 150}};
    for (size_t s = 0; s < 2; s++) {
        uint32_t n = sh[s].n, bs = sh[s].block, g = cdiv(n, bs), tot = g * bs;
        float *x = xmalloc(tot * 4), *pw = xmalloc(tot * 4), *wpw = xmalloc(n * 4);
        int32_t *e = xmalloc(tot * 4);
        uint32_t *ack = xmalloc(tot * 4), *wack = xmalloc(n * 4);
        rng_seed(161 + s);
        for (uint32_t i = 0; i < tot; i++)
            x[i] = rnd_f32(-2.5f, 2.5f), e[i] = (int)rnd();
        for (uint32_t i = 0; i < n; i++)
            wpw[i] = ref_fpow(x[i], e[i] & 31), wack[i] = ref_ack(i % 3, i % 4);
        memset(pw, SENT, tot * 4);
        memset(ack, SENT, tot * 4);
        params p = {0};
        p_ptr(&p, x), p_ptr(&p, e), p_ptr(&p, pw), p_ptr(&p, ack), p_i32(&p, (int)n);
        launch1(r, g, bs, &p);
        check_f32(r, "pw", pw, wpw, n, 0);
        check_u32(r, "ack", ack, wack, n);
        check_untouched(r, "pw", pw, n, tot, 4, SENT);
        check_untouched(r, "ack", ack, n, tot, 4, SENT);
        free(x), free(pw), free(wpw), free(e), free(ack), free(wack);
    }
}

/* ========================================================================
 * local_arrays.cu
 * ======================================================================== */

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

static void chk_median_of_window(const run *r)
{
    for (size_t s = 0; s < NSHAPES1; s++) {
        uint32_t n = shapes1[s].n, bs = shapes1[s].block, g = cdiv(n, bs), tot = g * bs;
        int32_t *in = xmalloc(n * 4), *out = xmalloc(tot * 4), *want = xmalloc(n * 4);
        rng_seed(171 + s);
        for (uint32_t i = 0; i < n; i++)
            in[i] = rnd_int(-1000, 1000);
        for (uint32_t i = 0; i < n; i++) {
            int32_t w[9];
            for (uint32_t k = 0; k < 9; k++)
                w[k] = in[(i + k) % n];
            qsort(w, 9, 4, cmp_i32);
            want[i] = w[4];
        }
        memset(out, SENT, tot * 4);
        params p = {0};
        p_ptr(&p, in), p_ptr(&p, out), p_i32(&p, (int)n);
        launch1(r, g, bs, &p);
        check_i32(r, "out", out, want, n);
        check_untouched(r, "out", out, n, tot, 4, SENT);
        free(in), free(out), free(want);
    }
}

static void chk_window_stats(const run *r)
{
    static const struct { uint32_t block, n; int len; } sh[] = {{96, 300, 16}, {100, 250, 5}, {40, 70, 1}};
    for (size_t s = 0; s < sizeof sh / sizeof sh[0]; s++) {
        uint32_t n = sh[s].n, bs = sh[s].block, g = cdiv(n, bs), tot = g * bs;
        int len = sh[s].len;
        float *in = xmalloc(n * 4), *out = xmalloc(tot * 16), *want = xmalloc(n * 16);
        rng_seed(181 + s);
        for (uint32_t i = 0; i < n; i++)
            in[i] = rnd_f32(-100, 100);
        for (uint32_t i = 0; i < n; i++) {
            float v[16], sum = 0.0f, mn, mx;
            for (int k = 0; k < len; k++)
                v[k] = in[(i + (uint32_t)k) % n];
            mn = mx = v[0];
            for (int k = 0; k < len; k++)
                sum += v[k], mn = fminf(mn, v[k]), mx = fmaxf(mx, v[k]);
            want[4 * i + 0] = sum / (float)len;
            want[4 * i + 1] = mn;
            want[4 * i + 2] = mx;
            want[4 * i + 3] = (mx - mn) * 0.5f + (float)len; /* *0.5 exact: fused or not */
        }
        memset(out, SENT, tot * 16);
        params p = {0};
        p_ptr(&p, in), p_ptr(&p, out), p_i32(&p, (int)n), p_i32(&p, len);
        launch1(r, g, bs, &p);
        check_f32(r, "out", out, want, 4 * n, 0);
        check_untouched(r, "out", out, 4 * n, 4 * tot, 4, SENT);
        free(in), free(out), free(want);
    }
}

static void chk_local_histogram(const run *r)
{
    /* No bounds check in the kernel: every launched thread has data, so the
     * grid is exact (blocks of 100 and 96, no partial block possible). */
    static const struct { uint32_t grid, block; int per; } sh[] = {{3, 100, 37}, {2, 96, 5}};
    for (size_t s = 0; s < 2; s++) {
        uint32_t tot = sh[s].grid * sh[s].block;
        int per = sh[s].per;
        uint8_t *in = xmalloc(tot * (size_t)per);
        uint32_t *out = xmalloc(tot * 64), *want = xmalloc(tot * 64);
        rng_seed(191 + s);
        for (size_t i = 0; i < tot * (size_t)per; i++)
            in[i] = (uint8_t)rnd();
        memset(want, 0, tot * 64);
        for (uint32_t gid = 0; gid < tot; gid++)
            for (int k = 0; k < per; k++)
                want[gid * 16 + (in[gid * (uint32_t)per + (uint32_t)k] & 15)]++;
        memset(out, SENT, tot * 64);
        params p = {0};
        p_ptr(&p, in), p_i32(&p, per), p_ptr(&p, out);
        launch1(r, sh[s].grid, sh[s].block, &p);
        check_u32(r, "out", out, want, tot * 16);
        free(in), free(out), free(want);
    }
}

static void chk_reverse_local_u64(const run *r)
{
    static const struct { uint32_t block, n; int len; } sh[] = {{96, 250, 32}, {100, 130, 7}};
    for (size_t s = 0; s < 2; s++) {
        uint32_t n = sh[s].n, bs = sh[s].block, g = cdiv(n, bs);
        uint32_t len = (uint32_t)sh[s].len;
        uint64_t *in = xmalloc(n * len * 8), *out = xmalloc((n + 1) * len * 8),
                 *want = xmalloc(n * len * 8);
        rng_seed(201 + s);
        for (uint32_t i = 0; i < n * len; i++)
            in[i] = ((uint64_t)rnd() << 32) | rnd();
        for (uint32_t gid = 0; gid < n; gid++)
            for (uint32_t k = 0; k < len; k++)
                want[gid * len + k] = in[gid * len + len - 1 - k] ^ k;
        memset(out, SENT, (n + 1) * len * 8);
        params p = {0};
        p_ptr(&p, in), p_ptr(&p, out), p_i32(&p, (int)n), p_i32(&p, (int)len);
        launch1(r, g, bs, &p);
        check_u64(r, "out", out, want, n * len);
        check_untouched(r, "out", out, n * len, (n + 1) * len, 8, SENT);
        free(in), free(out), free(want);
    }
}

/* ========================================================================
 * reduce_shared.cu
 * ======================================================================== */

static void chk_reduce_sum_static(const run *r)
{
    /* blockDim.x must be 256; n leaves the last block partial.  The tree
     * order is specified, so the reference replays it on random floats. */
    static const uint32_t ns[] = {1000, 300};
    for (size_t s = 0; s < 2; s++) {
        uint32_t n = ns[s], g = cdiv(n, 256);
        float *in = xmalloc(n * 4), *part = xmalloc((g + 1) * 4), *want = xmalloc(g * 4);
        rng_seed(211 + s);
        for (uint32_t i = 0; i < n; i++)
            in[i] = rnd_f32(-10, 10);
        for (uint32_t b = 0; b < g; b++) {
            float sh[256];
            for (uint32_t t = 0; t < 256; t++)
                sh[t] = b * 256 + t < n ? in[b * 256 + t] : 0.0f;
            for (uint32_t st = 128; st > 0; st >>= 1)
                for (uint32_t t = 0; t < st; t++)
                    sh[t] += sh[t + st];
            want[b] = sh[0];
        }
        memset(part, SENT, (g + 1) * 4);
        params p = {0};
        p_ptr(&p, in), p_ptr(&p, part), p_i32(&p, (int)n);
        launch1(r, g, 256, &p);
        check_f32(r, "partial", part, want, g, 0);
        check_untouched(r, "partial", part, g, g + 1, 4, SENT);
        free(in), free(part), free(want);
    }
}

static void chk_reduce_sum_dynamic(const run *r)
{
    /* blockDim.x a power of two, dynamic shared = blockDim.x * 8 */
    static const struct { uint32_t grid, block, n; } sh[] = {{5, 128, 10000}, {3, 64, 1000}, {2, 256, 300}, {2, 1024, 5000}, {9, 1, 20}};
    for (size_t s = 0; s < sizeof sh / sizeof sh[0]; s++) {
        uint32_t n = sh[s].n;
        int32_t *in = xmalloc(n * 4);
        int64_t out = 77, want = 77; /* atomicAdd onto the initial value */
        rng_seed(221 + s);
        for (uint32_t i = 0; i < n; i++)
            in[i] = rnd_int(INT_MIN / 2, INT_MAX / 2), want += in[i];
        params p = {0};
        p_ptr(&p, in), p_ptr(&p, &out), p_i32(&p, (int)n);
        launch3(r, sh[s].grid, 1, 1, sh[s].block, 1, 1, sh[s].block * 8, &p, NULL);
        check_i64(r, "*out", &out, &want, 1);
        free(in);
    }
}

static void chk_block_minmax(const run *r)
{
    static const uint32_t ns[] = {1000, 129};
    for (size_t s = 0; s < 2; s++) {
        uint32_t n = ns[s];
        int32_t *in = xmalloc(n * 4), gmin = INT_MAX, gmax = INT_MIN, wmin = INT_MAX,
                wmax = INT_MIN;
        rng_seed(231 + s);
        for (uint32_t i = 0; i < n; i++) {
            in[i] = (int32_t)rnd();
            wmin = in[i] < wmin ? in[i] : wmin;
            wmax = in[i] > wmax ? in[i] : wmax;
        }
        params p = {0};
        p_ptr(&p, in), p_ptr(&p, &gmin), p_ptr(&p, &gmax), p_i32(&p, (int)n);
        launch1(r, cdiv(n, 128), 128, &p);
        check_i32(r, "*gmin", &gmin, &wmin, 1);
        check_i32(r, "*gmax", &gmax, &wmax, 1);
        free(in);
    }
}

static void chk_block_scan_inclusive(const run *r)
{
    for (size_t s = 0; s < NSHAPES1; s++) {
        uint32_t n = shapes1[s].n, bs = shapes1[s].block, g = cdiv(n, bs), tot = g * bs;
        int32_t *in = xmalloc(n * 4), *out = xmalloc(tot * 4), *want = xmalloc(n * 4),
                *totals = xmalloc((g + 1) * 4), *wtot = xmalloc(g * 4);
        rng_seed(241 + s);
        for (uint32_t i = 0; i < n; i++)
            in[i] = rnd_int(-1000, 1000);
        for (uint32_t b = 0; b < g; b++) {
            int32_t acc = 0;
            for (uint32_t t = 0; t < bs; t++) {
                uint32_t i = b * bs + t;
                acc += i < n ? in[i] : 0;
                if (i < n)
                    want[i] = acc;
            }
            wtot[b] = acc;
        }
        memset(out, SENT, tot * 4);
        memset(totals, SENT, (g + 1) * 4);
        params p = {0};
        p_ptr(&p, in), p_ptr(&p, out), p_ptr(&p, totals), p_i32(&p, (int)n);
        launch3(r, g, 1, 1, bs, 1, 1, 2 * bs * 4, &p, NULL);
        check_i32(r, "out", out, want, n);
        check_untouched(r, "out", out, n, tot, 4, SENT);
        check_i32(r, "block_totals", totals, wtot, g);
        check_untouched(r, "block_totals", totals, g, g + 1, 4, SENT);
        free(in), free(out), free(want), free(totals), free(wtot);
    }
}

static void chk_sync_predicates(const run *r)
{
    for (size_t s = 0; s < NSHAPES1; s++) {
        uint32_t n = shapes1[s].n, bs = shapes1[s].block, g = cdiv(n, bs);
        int32_t *in = xmalloc(n * 4), *counts = xmalloc(3 * g * 4), *want = xmalloc(3 * g * 4);
        rng_seed(251 + s);
        for (uint32_t i = 0; i < n; i++)
            in[i] = rnd_int(-3, 10);
        /* block 0: all positive (and = 1, unless partial); block 1: none */
        for (uint32_t t = 0; t < bs && t < n; t++)
            in[t] = 5;
        for (uint32_t t = bs; t < 2 * bs && t < n; t++)
            in[t] = -1;
        for (uint32_t b = 0; b < g; b++) {
            int c = 0;
            for (uint32_t t = 0; t < bs; t++) {
                uint32_t gid = b * bs + t;
                c += gid < n && in[gid] > 0;
            }
            want[3 * b] = c, want[3 * b + 1] = c == (int)bs, want[3 * b + 2] = c > 0;
        }
        params p = {0};
        p_ptr(&p, in), p_ptr(&p, counts), p_i32(&p, (int)n);
        launch1(r, g, bs, &p);
        check_i32(r, "counts", counts, want, 3 * g);
        free(in), free(counts), free(want);
    }
}

static void chk_reduce_2d_block_static(const run *r)
{
    enum { W = 37, H = 21 };
    uint32_t gx = cdiv(W, 16), gy = cdiv(H, 16);
    float *in = xmalloc(W * H * 4), *out = xmalloc(gx * gy * 4), *want = xmalloc(gx * gy * 4);
    rng_seed(261);
    for (int i = 0; i < W * H; i++)
        in[i] = rnd_f32(-1, 1);
    for (uint32_t by = 0; by < gy; by++)
        for (uint32_t bx = 0; bx < gx; bx++) {
            float t[16][16];
            for (int y = 0; y < 16; y++)
                for (int x = 0; x < 16; x++) {
                    int X = (int)bx * 16 + x, Y = (int)by * 16 + y;
                    t[y][x] = X < W && Y < H ? in[Y * W + X] : 0.0f;
                }
            for (int st = 8; st > 0; st >>= 1)
                for (int y = 0; y < 16; y++)
                    for (int x = 0; x < st; x++)
                        t[y][x] += t[y][x + st];
            for (int st = 8; st > 0; st >>= 1)
                for (int y = 0; y < st; y++)
                    t[y][0] += t[y + st][0];
            want[by * gx + bx] = t[0][0];
        }
    params p = {0};
    p_ptr(&p, in), p_ptr(&p, out), p_i32(&p, W), p_i32(&p, H);
    launch3(r, gx, gy, 1, 16, 16, 1, 0, &p, NULL);
    check_f32(r, "out", out, want, gx * gy, 0);
    free(in), free(out), free(want);
}

/* ========================================================================
 * sgemm.cu
 *
 * Inputs are small integers and halves, so every product and partial sum
 * is exact: any summation order and any fma contraction give the same
 * bits, and the comparison can be exact.
 * ======================================================================== */

typedef struct gemm_case {
    int M, N, K;
} gemm_case;

static void gemm_inputs(int M, int N, int K, float *A, float *B, float *C)
{
    for (int i = 0; i < M * K; i++)
        A[i] = (float)rnd_int(-4, 4);
    for (int i = 0; i < K * N; i++)
        B[i] = (float)rnd_int(-6, 6) * 0.5f;
    for (int i = 0; i < M * N; i++)
        C[i] = (float)rnd_int(-8, 8);
}

static void gemm_ref(int M, int N, int K, float alpha, const float *A, const float *B, float beta,
                     float *C)
{
    for (int r = 0; r < M; r++)
        for (int c = 0; c < N; c++) {
            float acc = 0.0f;
            for (int k = 0; k < K; k++)
                acc = fmaf(A[r * K + k], B[k * N + c], acc);
            C[r * N + c] = alpha * acc + beta * C[r * N + c];
        }
}

/* tile = 0: naive kernel, blocks of bx x by; otherwise tile x tile blocks
 * (or 16x16 threads covering 64x64 for reg64). */
static void run_gemm(const run *r, const gemm_case *gc, size_t ncases, uint32_t bx, uint32_t by,
                     uint32_t per_block_x, uint32_t per_block_y)
{
    for (size_t s = 0; s < ncases; s++) {
        int M = gc[s].M, N = gc[s].N, K = gc[s].K;
        float *A = xmalloc((size_t)M * K * 4), *B = xmalloc((size_t)K * N * 4),
              *C = xmalloc((size_t)M * N * 4), *want = xmalloc((size_t)M * N * 4);
        rng_seed(271 + (uint32_t)s);
        gemm_inputs(M, N, K, A, B, C);
        memcpy(want, C, (size_t)M * N * 4);
        float alpha = 1.5f, beta = -0.5f;
        gemm_ref(M, N, K, alpha, A, B, beta, want);
        params p = {0};
        p_i32(&p, M), p_i32(&p, N), p_i32(&p, K), p_f32(&p, alpha), p_ptr(&p, A), p_ptr(&p, B);
        p_f32(&p, beta), p_ptr(&p, C);
        launch3(r, cdiv((uint32_t)N, per_block_x), cdiv((uint32_t)M, per_block_y), 1, bx, by, 1, 0,
                &p, NULL);
        check_f32(r, "C", C, want, (size_t)M * N, 0);
        free(A), free(B), free(C), free(want);
    }
}

static void chk_sgemm_naive(const run *r)
{
    static const gemm_case gc[] = {{37, 45, 29}, {5, 70, 3}};
    run_gemm(r, gc, 2, 12, 8, 12, 8);  /* 96-thread blocks */
    run_gemm(r, gc, 2, 10, 10, 10, 10); /* 100-thread blocks */
}

static void chk_sgemm_tiled16(const run *r)
{
    static const gemm_case gc[] = {{37, 45, 29}, {50, 17, 40}, {1, 33, 1}};
    run_gemm(r, gc, 3, 16, 16, 16, 16);
}

static void chk_sgemm_reg64(const run *r)
{
    /* The kernel requires M, N multiples of 64 and K of 16: non-square. */
    static const gemm_case gc[] = {{128, 64, 48}, {64, 192, 16}};
    run_gemm(r, gc, 2, 16, 16, 64, 64);
}

static void chk_gemm_tiled_f8(const run *r)
{
    static const gemm_case gc[] = {{37, 45, 29}, {9, 20, 13}};
    run_gemm(r, gc, 2, 8, 8, 8, 8);
}

static void chk_gemm_tiled_d16(const run *r)
{
    enum { M = 37, N = 21, K = 35 };
    double *A = xmalloc(M * K * 8), *B = xmalloc(K * N * 8), *C = xmalloc(M * N * 8),
           *want = xmalloc(M * N * 8);
    rng_seed(281);
    for (int i = 0; i < M * K; i++)
        A[i] = rnd_int(-9, 9);
    for (int i = 0; i < K * N; i++)
        B[i] = rnd_int(-9, 9) * 0.25;
    for (int i = 0; i < M * N; i++)
        C[i] = want[i] = rnd_int(-9, 9);
    for (int rr = 0; rr < M; rr++)
        for (int c = 0; c < N; c++) {
            double acc = 0;
            for (int k = 0; k < K; k++)
                acc += A[rr * K + k] * B[k * N + c];
            want[rr * N + c] = 2.0 * acc + 0.25 * want[rr * N + c];
        }
    params p = {0};
    p_i32(&p, M), p_i32(&p, N), p_i32(&p, K), p_f64(&p, 2.0), p_ptr(&p, A), p_ptr(&p, B);
    p_f64(&p, 0.25), p_ptr(&p, C);
    launch3(r, cdiv(N, 16), cdiv(M, 16), 1, 16, 16, 1, 0, &p, NULL);
    check_f64(r, "C", C, want, M * N, 0);
    free(A), free(B), free(C), free(want);
}

static void chk_sgemv_warp(const run *r)
{
    static const struct { int M, K; } sh[] = {{37, 75}, {6, 31}};
    for (size_t s = 0; s < 2; s++) {
        int M = sh[s].M, K = sh[s].K;
        float *A = xmalloc((size_t)M * K * 4), *x = xmalloc((size_t)K * 4),
              *y = xmalloc((size_t)(M + 1) * 4), *want = xmalloc((size_t)M * 4);
        rng_seed(291 + (uint32_t)s);
        for (int i = 0; i < M * K; i++)
            A[i] = (float)rnd_int(-5, 5);
        for (int k = 0; k < K; k++)
            x[k] = (float)rnd_int(-8, 8) * 0.5f;
        for (int row = 0; row < M; row++) {
            float acc = 0.0f;
            for (int k = 0; k < K; k++)
                acc += A[row * K + k] * x[k];
            want[row] = acc;
        }
        memset(y, SENT, (size_t)(M + 1) * 4);
        params p = {0};
        p_i32(&p, M), p_i32(&p, K), p_ptr(&p, A), p_ptr(&p, x), p_ptr(&p, y);
        launch1(r, cdiv((uint32_t)M, 4), 128, &p); /* last block: some warps have no row */
        check_f32(r, "y", y, want, (size_t)M, 0);
        check_untouched(r, "y", y, (size_t)M, (size_t)M + 1, 4, SENT);
        free(A), free(x), free(y), free(want);
    }
}

/* ========================================================================
 * grid3d.cu
 * ======================================================================== */

typedef struct shape3 {
    uint32_t g[3], b[3];
} shape3;
/* 3D grids of 3D blocks of 60 and 42 threads */
static const shape3 shapes3[] = {{{3, 2, 2}, {5, 4, 3}}, {{2, 3, 3}, {7, 3, 2}}};

static void chk_index3d(const run *r)
{
    for (size_t s = 0; s < 2; s++) {
        const shape3 *sh = &shapes3[s];
        /* the grid covers a little more than the volume in every dimension */
        int nx = (int)(sh->g[0] * sh->b[0]) - 2, ny = (int)(sh->g[1] * sh->b[1]) - 1,
            nz = (int)(sh->g[2] * sh->b[2]) - 1;
        size_t vol = (size_t)nx * ny * nz;
        uint32_t *out = xmalloc((vol + 4) * 4), *want = xmalloc(vol * 4);
        for (size_t i = 0; i < vol; i++)
            want[i] = (uint32_t)i * 2 + 1;
        memset(out, SENT, (vol + 4) * 4);
        params p = {0};
        p_ptr(&p, out), p_i32(&p, nx), p_i32(&p, ny), p_i32(&p, nz);
        launch3(r, sh->g[0], sh->g[1], sh->g[2], sh->b[0], sh->b[1], sh->b[2], 0, &p, NULL);
        check_u32(r, "out", out, want, vol);
        check_untouched(r, "out", out, vol, vol + 4, 4, SENT);
        free(out), free(want);
    }
}

static void chk_thread_coords(const run *r)
{
    for (size_t s = 0; s < 2; s++) {
        const shape3 *sh = &shapes3[s];
        uint32_t nb = sh->g[0] * sh->g[1] * sh->g[2], nt = sh->b[0] * sh->b[1] * sh->b[2];
        size_t words = (size_t)nb * nt * 12;
        uint32_t *out = xmalloc(words * 4), *want = xmalloc(words * 4);
        for (uint32_t bz = 0; bz < sh->g[2]; bz++)
            for (uint32_t by = 0; by < sh->g[1]; by++)
                for (uint32_t bx = 0; bx < sh->g[0]; bx++)
                    for (uint32_t tz = 0; tz < sh->b[2]; tz++)
                        for (uint32_t ty = 0; ty < sh->b[1]; ty++)
                            for (uint32_t tx = 0; tx < sh->b[0]; tx++) {
                                uint32_t bl = bx + sh->g[0] * (by + sh->g[1] * bz);
                                uint32_t tl = tx + sh->b[0] * (ty + sh->b[1] * tz);
                                uint32_t *w = want + 12 * ((size_t)bl * nt + tl);
                                uint32_t v[12] = {tx, ty, tz, tl, bx, by, bz, bl,
                                                  sh->g[0] * sh->b[0], sh->g[1] * sh->b[1],
                                                  sh->g[2] * sh->b[2], tl % 32};
                                memcpy(w, v, sizeof v);
                            }
        memset(out, SENT, words * 4);
        params p = {0};
        p_ptr(&p, out);
        launch3(r, sh->g[0], sh->g[1], sh->g[2], sh->b[0], sh->b[1], sh->b[2], 0, &p, NULL);
        check_u32(r, "out (uint4 words)", out, want, words);
        free(out), free(want);
    }
}

static void chk_stencil7(const run *r)
{
    /* small integers and c0 = 0.5, c1 = 0.25: exact however contracted */
    for (size_t s = 0; s < 2; s++) {
        const shape3 *sh = &shapes3[s];
        int nx = (int)(sh->g[0] * sh->b[0]) - 3, ny = (int)(sh->g[1] * sh->b[1]) - 1,
            nz = (int)(sh->g[2] * sh->b[2]) - 1;
        size_t vol = (size_t)nx * ny * nz;
        float *in = xmalloc(vol * 4), *out = xmalloc(vol * 4), *want = xmalloc(vol * 4);
        float c0 = 0.5f, c1 = 0.25f;
        rng_seed(301 + (uint32_t)s);
        for (size_t i = 0; i < vol; i++)
            in[i] = (float)rnd_int(-100, 100);
        for (int z = 0; z < nz; z++)
            for (int y = 0; y < ny; y++)
                for (int x = 0; x < nx; x++) {
                    int i = (z * ny + y) * nx + x, pl = nx * ny;
                    if (!x || !y || !z || x == nx - 1 || y == ny - 1 || z == nz - 1) {
                        want[i] = in[i];
                        continue;
                    }
                    float nb = in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx] + in[i - pl] +
                               in[i + pl];
                    want[i] = c0 * in[i] + c1 * nb;
                }
        memset(out, SENT, vol * 4);
        params p = {0};
        p_ptr(&p, in), p_ptr(&p, out), p_i32(&p, nx), p_i32(&p, ny), p_i32(&p, nz);
        p_f32(&p, c0), p_f32(&p, c1);
        launch3(r, sh->g[0], sh->g[1], sh->g[2], sh->b[0], sh->b[1], sh->b[2], 0, &p, NULL);
        check_f32(r, "out", out, want, vol, 0);
        free(in), free(out), free(want);
    }
}

/* ========================================================================
 * globals_const.cu
 * ======================================================================== */

static const float c_poly[8] = {1.0f, -0.5f, 0.25f, -0.125f, 0.0625f, 2.0f, -1.0f, 0.5f};
static const float g_lut[16] = {0.0f, 0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f, 0.7f,
                                0.8f, 0.9f, 1.0f, 1.1f, 1.2f, 1.3f, 1.4f, 1.5f};

static void chk_poly_eval(const run *r)
{
    for (size_t s = 0; s < NSHAPES1; s++) {
        uint32_t n = shapes1[s].n, bs = shapes1[s].block, g = cdiv(n, bs), tot = g * bs;
        float *x = xmalloc(n * 4), *y = xmalloc(tot * 4), *fused = xmalloc(n * 4),
              *unfused = xmalloc(n * 4);
        rng_seed(311 + s);
        for (uint32_t i = 0; i < n; i++)
            x[i] = rnd_f32(-2, 2);
        for (uint32_t i = 0; i < n; i++) {
            float a = c_poly[7], b = c_poly[7];
            for (int k = 6; k >= 0; k--)
                a = fmaf(a, x[i], c_poly[k]), b = b * x[i] + c_poly[k];
            fused[i] = a, unfused[i] = b;
        }
        memset(y, SENT, tot * 4);
        params p = {0};
        p_ptr(&p, x), p_ptr(&p, y), p_i32(&p, (int)n);
        launch1(r, g, bs, &p);
        check_f32_either(r, "y", y, fused, unfused, n);
        check_untouched(r, "y", y, n, tot, 4, SENT);
        free(x), free(y), free(fused), free(unfused);
    }
}

static void chk_const_lookup(const run *r)
{
    static const int c_table[4][4] = {{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}, {13, 14, 15, 16}};
    static const short tag[3] = {7, 8, 9};
    static const unsigned char c_bytes[5] = {0x01, 0x80, 0xff, 0x7f, 0x00};
    static const float vec4[2][4] = {{1, 2, 3, 4}, {-1, -2, -3, -4}};
    static const double c_dbl[3] = {3.141592653589793, 2.718281828459045, -0.0};
    const float scale = 1.5f;
    const int offset = -3;
    const double bias = 0.125;
    for (size_t s = 0; s < NSHAPES1; s++) {
        uint32_t n = shapes1[s].n, bs = shapes1[s].block, g = cdiv(n, bs), tot = g * bs;
        int32_t *idx = xmalloc(n * 4), *oi = xmalloc(tot * 8), *wi = xmalloc(n * 8);
        float *of = xmalloc(tot * 4), *wf = xmalloc(n * 4);
        double *od = xmalloc(tot * 8), *wd = xmalloc(n * 8);
        rng_seed(321 + s);
        for (uint32_t i = 0; i < n; i++)
            idx[i] = (int32_t)rnd();
        for (uint32_t i = 0; i < n; i++) {
            int v = idx[i], rr = v & 3, c = (v >> 2) & 3, q = v & 1;
            wi[2 * i] = c_table[rr][c] + offset + tag[rr % 3] + c_bytes[rr];
            wi[2 * i + 1] = c_bytes[(rr + 1) % 5];
            /* c_filter has no initializer and the embedding API cannot fill
             * it: it reads as zero.  scale * sum is exact (+-15). */
            wf[i] = scale * (vec4[q][0] + vec4[q][1] + vec4[q][2] + vec4[q][3]) + 0.0f;
            wd[i] = c_dbl[rr % 3] + bias;
        }
        memset(oi, SENT, tot * 8);
        memset(of, SENT, tot * 4);
        memset(od, SENT, tot * 8);
        params p = {0};
        p_ptr(&p, idx), p_ptr(&p, oi), p_ptr(&p, of), p_ptr(&p, od), p_i32(&p, (int)n);
        launch1(r, g, bs, &p);
        check_i32(r, "out_i", oi, wi, 2 * n);
        check_f32(r, "out_f", of, wf, n, 0);
        check_f64(r, "out_d", od, wd, n, 0);
        check_untouched(r, "out_i", oi, 2 * n, 2 * tot, 4, SENT);
        check_untouched(r, "out_f", of, n, tot, 4, SENT);
        check_untouched(r, "out_d", od, n, tot, 8, SENT);
        free(idx), free(oi), free(wi), free(of), free(wf), free(od), free(wd);
    }
}

static void chk_use_device_globals(const run *r)
{
    /* Module globals persist across launches: this check is the only user
     * of the kernel, and r->mod->uses counts its launches on this module. */
    for (int rep = 0; rep < 2; rep++) {
        unsigned before = r->mod->uses++;
        int32_t oi[8], wi[8];
        int64_t ol[2], wl[2] = {-1234567890123LL, (int64_t)0xfedcba9876543210ULL};
        double od[1], wd[1] = {1.5707963267948966};
        float of[1], wf[1];
        volatile float lut7 = 0.7f, f2x = 0.5f, f2y = -0.5f;
        wf[0] = (lut7 + f2x) + f2y;
        char os[16], ws[13] = "hello ptxjit";
        memset(oi, SENT, sizeof oi), memset(os, SENT, sizeof os);
        int m_value = 5;
        for (unsigned k = 0; k < before; k++)
            m_value *= 2;
        int32_t w[8] = {42 + (int)before, before ? 40 : 30, 50, 42 + (int)before, -2, 7, m_value,
                        (int)before};
        memcpy(wi, w, sizeof w);
        params p = {0};
        p_ptr(&p, oi), p_ptr(&p, ol), p_ptr(&p, od), p_ptr(&p, of), p_ptr(&p, os);
        launch1(r, 2, 100, &p); /* only gid 0 works */
        check_i32(r, "out_i", oi, wi, 8);
        check_i64(r, "out_l", ol, wl, 2);
        check_f64(r, "out_d", od, wd, 1, 0);
        check_f32(r, "out_f", of, wf, 1, 0);
        if (memcmp(os, ws, 13))
            fail_msg("%s: out_s = \"%.13s\", want \"%s\"", r->what, os, ws);
        check_untouched(r, "out_s", os, 13, 16, 1, SENT);
    }
}

static void chk_lut_interp(const run *r)
{
    for (size_t s = 0; s < NSHAPES1; s++) {
        uint32_t n = shapes1[s].n, bs = shapes1[s].block, g = cdiv(n, bs), tot = g * bs;
        float *t = xmalloc(n * 4), *out = xmalloc(tot * 4), *fused = xmalloc(n * 4),
              *unfused = xmalloc(n * 4);
        rng_seed(331 + s);
        for (uint32_t i = 0; i < n; i++)
            t[i] = rnd_f32(-0.25f, 1.25f);
        t[0] = NAN, t[1] = 1.0f, t[2] = 0.0f, t[3] = 14.0f / 15.0f;
        for (uint32_t i = 0; i < n; i++) {
            float u = fminf(fmaxf(t[i], 0.0f), 1.0f) * 15.0f;
            int k = (int)u < 14 ? (int)u : 14;
            float f = u - (float)k;
            fused[i] = fmaf(f, g_lut[k + 1] - g_lut[k], g_lut[k]);
            unfused[i] = g_lut[k] + f * (g_lut[k + 1] - g_lut[k]);
        }
        memset(out, SENT, tot * 4);
        params p = {0};
        p_ptr(&p, t), p_ptr(&p, out), p_i32(&p, (int)n);
        launch1(r, g, bs, &p);
        check_f32_either(r, "out", out, fused, unfused, n);
        check_untouched(r, "out", out, n, tot, 4, SENT);
        free(t), free(out), free(fused), free(unfused);
    }
}

/* ========================================================================
 * printf_kernel.cu
 *
 * Output is captured with open_memstream and compared with what the C
 * library prints for the same format and values, line for line, in the
 * order ptxjit promises: by block (linear id), then by thread.
 * ======================================================================== */

typedef struct text {
    char *buf;
    size_t len;
    FILE *f;
} text;

static void text_open(text *t)
{
    t->buf = NULL, t->len = 0;
    t->f = open_memstream(&t->buf, &t->len);
    assert_non_null(t->f);
}

static void text_close(text *t) { fclose(t->f); }

static void check_text(const run *r, const char *got, const char *want)
{
    if (!strcmp(got, want))
        return;
    size_t i = 0, line = 1;
    while (got[i] && got[i] == want[i])
        line += got[i++] == '\n';
    fail_msg("%s: printf output differs at line %zu (byte %zu)\n--- got:\n%s--- want:\n%s",
             r->what, line, i, got, want);
}

static void chk_print_grid_info(const run *r)
{
    static const shape3 sh[] = {{{3, 1, 1}, {50, 1, 1}}, {{2, 2, 2}, {10, 3, 2}}, {{3, 2, 1}, {100, 1, 1}},
                                {{4, 3, 2}, {7, 5, 3}}, {{40, 1, 1}, {16, 1, 1}}};
    for (size_t s = 0; s < sizeof sh / sizeof sh[0]; s++) {
        const uint32_t *G = sh[s].g, *B = sh[s].b;
        text got, want;
        text_open(&got), text_open(&want);
        for (uint32_t bz = 0; bz < G[2]; bz++)
            for (uint32_t by = 0; by < G[1]; by++)
                for (uint32_t bx = 0; bx < G[0]; bx++)
                    for (uint32_t tz = 0; tz < B[2]; tz++)
                        for (uint32_t ty = 0; ty < B[1]; ty++)
                            for (uint32_t tx = 0; tx < B[0]; tx++) {
                                uint32_t bid = bx + G[0] * (by + G[1] * bz);
                                uint32_t tid = tx + B[0] * (ty + B[1] * tz);
                                uint32_t gid = bid * B[0] * B[1] * B[2] + tid;
                                if (gid % 64 == 0)
                                    fprintf(want.f,
                                            "block (%d,%d,%d) thread (%d,%d,%d) of grid (%d,%d,%d) "
                                            "x block (%d,%d,%d)\n",
                                            bx, by, bz, tx, ty, tz, G[0], G[1], G[2], B[0], B[1],
                                            B[2]);
                                if (gid == 0)
                                    fprintf(want.f, "no-args line\n");
                            }
        launch3(r, G[0], G[1], G[2], B[0], B[1], B[2], 0, NULL, got.f);
        text_close(&got), text_close(&want);
        check_text(r, got.buf, want.buf);
        free(got.buf), free(want.buf);
    }
}

static void chk_print_conversions(const run *r)
{
    const int i = -7, nthreads = 37; /* two warps print */
    const unsigned u = 0xdeadbeefu;
    const float f = 1.25f;
    const double d = -35000000000.5;
    const long long ll = -1234567890123LL;
    const void *ptr = (const void *)(uintptr_t)0x7fff12345678ull;
    text got, want;
    text_open(&got), text_open(&want);
    for (int t = 0; t < nthreads; t++)
        fprintf(want.f,
                "t=%d i=%d u=%u x=%x X=%X o=%o f=%f e=%e g=%g s=%s c=%c ld=%ld lld=%lld llu=%llu "
                "p=%p\n",
                t, i + t, u * (unsigned)t, u, u, u & 0777u, (double)(f * (float)t), d, d / 3.0,
                t % 2 == 0 ? "ptxjit" : "cpu", 'A' + t % 26, (long)(ll + t), ll,
                (unsigned long long)ll, ptr);
    params p = {0};
    p_i32(&p, i), p_u32(&p, u), p_f32(&p, f), p_f64(&p, d), p_i64(&p, ll), p_ptr(&p, ptr);
    p_i32(&p, nthreads);
    launch3(r, 2, 1, 1, 40, 1, 1, 0, &p, got.f); /* block 1 prints nothing */
    text_close(&got), text_close(&want);
    check_text(r, got.buf, want.buf);
    free(got.buf), free(want.buf);
}

static void chk_print_formatting(const run *r)
{
    static const struct { float f; int w; } vals[] = {{3.14159f, -300}, {-0.0625f, 42}, {12345.678f, 7},
                                                      {NAN, INT_MIN}, {-INFINITY, 0}, {1e-39f, 65535}};
    for (size_t s = 0; s < sizeof vals / sizeof vals[0]; s++) {
        float f = vals[s].f;
        int w = vals[s].w;
        text got, want;
        text_open(&got), text_open(&want);
        fprintf(want.f, "[%5d] [%-5d] [%05d] [%+d] [% d]\n", w, w, w, w, w);
        fprintf(want.f, "[%8.3f] [%-10.2e] [%.0f] [%#x] [%%]\n", (double)f, (double)f, (double)f,
                (unsigned)w);
        fprintf(want.f, "[%10s] [%-6s] [%.2s] [%hhd] [%hd] [%c%c]\n", "right", "left", "truncate",
                (signed char)w, (short)w, 'o', 'k');
        params p = {0};
        p_f32(&p, f), p_i32(&p, w);
        launch3(r, 2, 1, 1, 33, 1, 1, 0, &p, got.f);
        text_close(&got), text_close(&want);
        check_text(r, got.buf, want.buf);
        free(got.buf), free(want.buf);
    }
}

static void chk_print_values_array(const run *r)
{
    const double vals[] = {0.1, -2.5, 1e300, 3.0, -0.0, INFINITY, NAN, 4.9e-324, 123456789.0};
    const int n = (int)(sizeof vals / sizeof vals[0]);
    text got, want;
    text_open(&got), text_open(&want);
    for (int k = 0; k < n; k++)
        fprintf(want.f, "vals[%d] = %.6g (%a)\n", k, vals[k], vals[k]);
    /* CUDA's printf returns the number of arguments it parsed (CUDA C++
     * Programming Guide, "Formatted Output"), not C's character count. */
    fprintf(want.f, "last printf returned %d\n", 3);
    params p = {0};
    p_ptr(&p, vals), p_i32(&p, n);
    launch3(r, 1, 1, 1, 100, 1, 1, 0, &p, got.f);
    text_close(&got), text_close(&want);
    check_text(r, got.buf, want.buf);
    free(got.buf), free(want.buf);
}

/* ========================================================================
 * warp_shuffle.cu - blockDim.x must be a multiple of 32 (full-mask
 * shuffles need whole warps): blocks of 96 and 32 threads.
 * ======================================================================== */

typedef struct shapew {
    uint32_t grid, block;
} shapew;
static const shapew shapesw[] = {{2, 96}, {3, 32}};
#define NSHAPESW 2

static void chk_shfl_broadcast(const run *r)
{
    for (size_t s = 0; s < NSHAPESW; s++) {
        uint32_t tot = shapesw[s].grid * shapesw[s].block;
        int32_t *in = xmalloc(tot * 4), *out = xmalloc(tot * 4), *want = xmalloc(tot * 4);
        int src = s ? 31 : 37; /* 37 & 31 = 5 */
        rng_seed(341 + s);
        for (uint32_t i = 0; i < tot; i++)
            in[i] = (int32_t)rnd();
        for (uint32_t g = 0; g < tot; g++)
            want[g] = in[(g & ~31u) + ((uint32_t)src & 31)];
        params p = {0};
        p_ptr(&p, in), p_ptr(&p, out), p_i32(&p, src);
        launch1(r, shapesw[s].grid, shapesw[s].block, &p);
        check_i32(r, "out", out, want, tot);
        free(in), free(out), free(want);
    }
}

static void chk_shfl_rotate(const run *r)
{
    for (size_t s = 0; s < NSHAPESW; s++) {
        uint32_t tot = shapesw[s].grid * shapesw[s].block;
        float *in = xmalloc(tot * 4), *out = xmalloc(tot * 4), *want = xmalloc(tot * 4);
        int delta = s ? -3 : 13;
        rng_seed(351 + s);
        for (uint32_t i = 0; i < tot; i++)
            in[i] = rnd_f32(-1000, 1000);
        for (uint32_t g = 0; g < tot; g++)
            want[g] = in[(g & ~31u) + (((g & 31) + (uint32_t)delta) & 31)];
        params p = {0};
        p_ptr(&p, in), p_ptr(&p, out), p_i32(&p, delta);
        launch1(r, shapesw[s].grid, shapesw[s].block, &p);
        check_f32(r, "out", out, want, tot, 0);
        free(in), free(out), free(want);
    }
}

static void chk_warp_inclusive_scan(const run *r)
{
    for (size_t s = 0; s < NSHAPESW; s++) {
        uint32_t tot = shapesw[s].grid * shapesw[s].block;
        int32_t *in = xmalloc(tot * 4), *out = xmalloc(tot * 4), *want = xmalloc(tot * 4);
        rng_seed(361 + s);
        for (uint32_t i = 0; i < tot; i++)
            in[i] = rnd_int(-100000, 100000);
        for (uint32_t g = 0; g < tot; g++) {
            int32_t acc = 0;
            for (uint32_t j = g & ~31u; j <= g; j++)
                acc += in[j];
            want[g] = acc;
        }
        params p = {0};
        p_ptr(&p, in), p_ptr(&p, out);
        launch1(r, shapesw[s].grid, shapesw[s].block, &p);
        check_i32(r, "out", out, want, tot);
        free(in), free(out), free(want);
    }
}

static void chk_warp_sum_down(const run *r)
{
    /* The tree order is specified: replay it on random floats. */
    for (size_t s = 0; s < NSHAPESW; s++) {
        uint32_t tot = shapesw[s].grid * shapesw[s].block, nw = tot / 32;
        float *in = xmalloc(tot * 4), *out = xmalloc(nw * 4), *want = xmalloc(nw * 4);
        rng_seed(371 + s);
        for (uint32_t i = 0; i < tot; i++)
            in[i] = rnd_f32(-10, 10);
        for (uint32_t w = 0; w < nw; w++) {
            float v[32], nv[32];
            memcpy(v, in + 32 * w, sizeof v);
            for (int off = 16; off > 0; off >>= 1) {
                for (int l = 0; l < 32; l++)
                    nv[l] = v[l] + (l + off < 32 ? v[l + off] : v[l]);
                memcpy(v, nv, sizeof v);
            }
            want[w] = v[0];
        }
        params p = {0};
        p_ptr(&p, in), p_ptr(&p, out);
        launch1(r, shapesw[s].grid, shapesw[s].block, &p);
        check_f32(r, "warp_sums", out, want, nw, 0);
        free(in), free(out), free(want);
    }
}

static void chk_warp_max_xor(const run *r)
{
    for (size_t s = 0; s < NSHAPESW; s++) {
        uint32_t tot = shapesw[s].grid * shapesw[s].block;
        int32_t *in = xmalloc(tot * 4), *out = xmalloc(tot * 4), *want = xmalloc(tot * 4);
        rng_seed(381 + s);
        for (uint32_t i = 0; i < tot; i++)
            in[i] = (int32_t)rnd();
        for (uint32_t g = 0; g < tot; g++) {
            int32_t m = INT_MIN;
            for (uint32_t j = g & ~31u; j < (g & ~31u) + 32; j++)
                m = in[j] > m ? in[j] : m;
            want[g] = m;
        }
        params p = {0};
        p_ptr(&p, in), p_ptr(&p, out);
        launch1(r, shapesw[s].grid, shapesw[s].block, &p);
        check_i32(r, "out", out, want, tot);
        free(in), free(out), free(want);
    }
}

static void chk_shfl_subwarp_width(const run *r)
{
    for (size_t s = 0; s < NSHAPESW; s++) {
        uint32_t tot = shapesw[s].grid * shapesw[s].block;
        int32_t *in = xmalloc(tot * 4), *oi = xmalloc(tot * 4), *od = xmalloc(tot * 4),
                *wi = xmalloc(tot * 4), *wd = xmalloc(tot * 4);
        rng_seed(391 + s);
        for (uint32_t i = 0; i < tot; i++)
            in[i] = (int32_t)rnd();
        for (uint32_t g = 0; g < tot; g++) {
            uint32_t lane = g & 31, base = g & ~31u;
            wi[g] = in[base + (lane & ~7u)];
            wd[g] = (lane & 15) + 3 < 16 ? in[g + 3] : in[g];
        }
        params p = {0};
        p_ptr(&p, in), p_ptr(&p, oi), p_ptr(&p, od);
        launch1(r, shapesw[s].grid, shapesw[s].block, &p);
        check_i32(r, "out_idx", oi, wi, tot);
        check_i32(r, "out_down", od, wd, tot);
        free(in), free(oi), free(od), free(wi), free(wd);
    }
}

static void chk_shfl_f64_i64(const run *r)
{
    for (size_t s = 0; s < NSHAPESW; s++) {
        uint32_t tot = shapesw[s].grid * shapesw[s].block;
        double *din = xmalloc(tot * 8), *dout = xmalloc(tot * 8), *wd = xmalloc(tot * 8);
        int64_t *lin = xmalloc(tot * 8), *lout = xmalloc(tot * 8), *wl = xmalloc(tot * 8);
        rng_seed(401 + s);
        for (uint32_t i = 0; i < tot; i++)
            din[i] = rnd_f64(-1e100, 1e100), lin[i] = (int64_t)(((uint64_t)rnd() << 32) | rnd());
        for (uint32_t g = 0; g < tot; g++) {
            uint32_t lane = g & 31;
            wd[g] = din[g ^ 1];
            wl[g] = lane >= 2 ? lin[g - 2] : lin[g];
        }
        params p = {0};
        p_ptr(&p, din), p_ptr(&p, dout), p_ptr(&p, lin), p_ptr(&p, lout);
        launch1(r, shapesw[s].grid, shapesw[s].block, &p);
        check_f64(r, "dout", dout, wd, tot, 0);
        check_i64(r, "lout", lout, wl, tot);
        free(din), free(dout), free(wd), free(lin), free(lout), free(wl);
    }
}

static void chk_shfl_partial_mask(const run *r)
{
    for (size_t s = 0; s < NSHAPESW; s++) {
        uint32_t tot = shapesw[s].grid * shapesw[s].block;
        int32_t *in = xmalloc(tot * 4), *out = xmalloc(tot * 4), *want = xmalloc(tot * 4);
        rng_seed(411 + s);
        for (uint32_t i = 0; i < tot; i++)
            in[i] = (int32_t)rnd();
        for (uint32_t g = 0; g < tot; g++) {
            uint32_t lane = g & 31;
            want[g] = lane & 1 ? -1 : in[(g & ~31u) + ((lane + 2) & 31)];
        }
        params p = {0};
        p_ptr(&p, in), p_ptr(&p, out);
        launch1(r, shapesw[s].grid, shapesw[s].block, &p);
        check_i32(r, "out", out, want, tot);
        free(in), free(out), free(want);
    }
}

static void chk_block_sum_shfl(const run *r)
{
    /* float atomicAdd across blocks: integer values keep every order exact */
    static const struct { uint32_t block, n; } sh[] = {{96, 500}, {320, 1000}, {32, 40}, {1024, 3000}};
    for (size_t s = 0; s < sizeof sh / sizeof sh[0]; s++) {
        uint32_t n = sh[s].n, bs = sh[s].block;
        float *in = xmalloc(n * 4), out = 0.5f, want = 0.5f;
        rng_seed(421 + s);
        for (uint32_t i = 0; i < n; i++)
            in[i] = (float)rnd_int(-1000, 1000), want += in[i];
        params p = {0};
        p_ptr(&p, in), p_ptr(&p, &out), p_i32(&p, (int)n);
        launch1(r, cdiv(n, bs), bs, &p);
        check_f32(r, "*out", &out, &want, 1, 0);
        free(in);
    }
}

/* ========================================================================
 * warp_vote.cu
 * ======================================================================== */

static void chk_vote_all_any(const run *r)
{
    for (size_t s = 0; s < NSHAPESW; s++) {
        uint32_t tot = shapesw[s].grid * shapesw[s].block, nw = tot / 32;
        int32_t *in = xmalloc(tot * 4), *oa = xmalloc(nw * 4), *oy = xmalloc(nw * 4),
                *wa = xmalloc(nw * 4), *wy = xmalloc(nw * 4);
        rng_seed(431 + s);
        for (uint32_t w = 0; w < nw; w++)
            for (uint32_t l = 0; l < 32; l++) {
                uint32_t kind = w % 4; /* all set, none set, one set, random */
                in[w * 32 + l] = kind == 0   ? (int32_t)(rnd() | 1)
                                 : kind == 1 ? 0
                                 : kind == 2 ? (l == 31 ? 7 : 0)
                                             : (int32_t)(rnd() & 1);
            }
        for (uint32_t w = 0; w < nw; w++) {
            int all = 1, any = 0;
            for (uint32_t l = 0; l < 32; l++)
                all &= in[w * 32 + l] != 0, any |= in[w * 32 + l] != 0;
            wa[w] = all, wy[w] = any;
        }
        params p = {0};
        p_ptr(&p, in), p_ptr(&p, oa), p_ptr(&p, oy);
        launch1(r, shapesw[s].grid, shapesw[s].block, &p);
        check_i32(r, "out_all", oa, wa, nw);
        check_i32(r, "out_any", oy, wy, nw);
        free(in), free(oa), free(oy), free(wa), free(wy);
    }
}

static void chk_ballot_popc(const run *r)
{
    for (size_t s = 0; s < NSHAPESW; s++) {
        uint32_t tot = shapesw[s].grid * shapesw[s].block, nw = tot / 32;
        float *in = xmalloc(tot * 4), th = 0.25f;
        uint32_t *ob = xmalloc(nw * 4), *wb = xmalloc(nw * 4);
        int32_t *oc = xmalloc(nw * 4), *wc = xmalloc(nw * 4), *ork = xmalloc(tot * 4),
                *wrk = xmalloc(tot * 4);
        rng_seed(441 + s);
        for (uint32_t i = 0; i < tot; i++)
            in[i] = rnd_f32(-1, 1);
        in[3] = NAN; /* NaN > th is false */
        for (uint32_t w = 0; w < nw; w++) {
            uint32_t b = 0;
            for (uint32_t l = 0; l < 32; l++)
                b |= (uint32_t)(in[w * 32 + l] > th) << l;
            wb[w] = b, wc[w] = __builtin_popcount(b);
            for (uint32_t l = 0; l < 32; l++)
                wrk[w * 32 + l] = __builtin_popcount(b & ((1u << l) - 1u));
        }
        params p = {0};
        p_ptr(&p, in), p_f32(&p, th), p_ptr(&p, ob), p_ptr(&p, oc), p_ptr(&p, ork);
        launch1(r, shapesw[s].grid, shapesw[s].block, &p);
        check_u32(r, "ballots", ob, wb, nw);
        check_i32(r, "counts", oc, wc, nw);
        check_i32(r, "ranks", ork, wrk, tot);
        free(in), free(ob), free(wb), free(oc), free(wc), free(ork), free(wrk);
    }
}

static void chk_activemask_divergent(const run *r)
{
    for (size_t s = 0; s < NSHAPESW; s++) {
        uint32_t tot = shapesw[s].grid * shapesw[s].block;
        uint32_t *out = xmalloc(tot * 4), *want = xmalloc(tot * 4);
        for (uint32_t g = 0; g < tot; g++)
            want[g] = (g & 31) % 3 == 0 ? 0x49249249u : 0xb6db6db6u;
        params p = {0};
        p_ptr(&p, out);
        launch1(r, shapesw[s].grid, shapesw[s].block, &p);
        check_u32(r, "out", out, want, tot);
        free(out), free(want);
    }
}

static void chk_match_keys(const run *r)
{
    for (size_t s = 0; s < NSHAPESW; s++) {
        uint32_t tot = shapesw[s].grid * shapesw[s].block;
        int32_t *keys = xmalloc(tot * 4), *op = xmalloc(tot * 4), *wp = xmalloc(tot * 4);
        uint32_t *oany = xmalloc(tot * 4), *oall = xmalloc(tot * 4), *wany = xmalloc(tot * 4),
                 *wall = xmalloc(tot * 4);
        rng_seed(451 + s);
        for (uint32_t g = 0; g < tot; g++)
            keys[g] = (g / 32) % 2 == 1 ? 1234 : rnd_int(0, 4); /* odd warps: all equal */
        for (uint32_t g = 0; g < tot; g++) {
            uint32_t base = g & ~31u, m = 0;
            for (uint32_t l = 0; l < 32; l++)
                m |= (uint32_t)(keys[base + l] == keys[g]) << l;
            wany[g] = m, wall[g] = m == 0xffffffffu ? 0xffffffffu : 0, wp[g] = m == 0xffffffffu;
        }
        params p = {0};
        p_ptr(&p, keys), p_ptr(&p, oany), p_ptr(&p, oall), p_ptr(&p, op);
        launch1(r, shapesw[s].grid, shapesw[s].block, &p);
        check_u32(r, "any_masks", oany, wany, tot);
        check_u32(r, "all_masks", oall, wall, tot);
        check_i32(r, "all_pred", op, wp, tot);
        free(keys), free(op), free(wp), free(oany), free(oall), free(wany), free(wall);
    }
}

static void chk_match_keys_u64(const run *r)
{
    for (size_t s = 0; s < NSHAPESW; s++) {
        uint32_t tot = shapesw[s].grid * shapesw[s].block;
        uint64_t *keys = xmalloc(tot * 8);
        uint32_t *out = xmalloc(tot * 4), *want = xmalloc(tot * 4);
        rng_seed(461 + s);
        for (uint32_t g = 0; g < tot; g++) /* keys differing only in the high word too */
            keys[g] = ((uint64_t)rnd_int(0, 2) << 40) | (uint64_t)rnd_int(0, 2);
        for (uint32_t g = 0; g < tot; g++) {
            uint32_t base = g & ~31u, m = 0;
            for (uint32_t l = 0; l < 32; l++)
                m |= (uint32_t)(keys[base + l] == keys[g]) << l;
            want[g] = m;
        }
        params p = {0};
        p_ptr(&p, keys), p_ptr(&p, out);
        launch1(r, shapesw[s].grid, shapesw[s].block, &p);
        check_u32(r, "any_masks", out, want, tot);
        free(keys), free(out), free(want);
    }
}

static void chk_warp_reduce_ops(const run *r)
{
    if (is_clang(r) && !strstr(r->variant, "sm_75")) /* below sm_80: shuffles */
        fixture_defect(r, CLANG_REDUX_SWAP);
    for (size_t s = 0; s < NSHAPESW; s++) {
        uint32_t tot = shapesw[s].grid * shapesw[s].block, nw = tot / 32;
        uint32_t *in = xmalloc(tot * 4), *out = xmalloc(nw * 24), *want = xmalloc(nw * 24);
        rng_seed(471 + s);
        for (uint32_t i = 0; i < tot; i++)
            in[i] = rnd() | (i % 7 == 0 ? 0x80000000u : 0);
        for (uint32_t w = 0; w < nw; w++) {
            uint32_t sm = 0, mn = UINT32_MAX, mx = 0, a = UINT32_MAX, o = 0, x = 0;
            for (uint32_t l = 0; l < 32; l++) {
                uint32_t v = in[w * 32 + l];
                sm += v, mn = v < mn ? v : mn, mx = v > mx ? v : mx, a &= v, o |= v, x ^= v;
            }
            uint32_t res[6] = {sm, mn, mx, a, o, x};
            memcpy(want + 6 * w, res, sizeof res);
        }
        params p = {0};
        p_ptr(&p, in), p_ptr(&p, out);
        launch1(r, shapesw[s].grid, shapesw[s].block, &p);
        check_u32(r, "out", out, want, 6 * nw);
        free(in), free(out), free(want);
    }
}

static void chk_warp_reduce_signed(const run *r)
{
    if (is_clang(r) && !strstr(r->variant, "sm_75")) /* below sm_80: shuffles */
        fixture_defect(r, CLANG_REDUX_SWAP);
    for (size_t s = 0; s < NSHAPESW; s++) {
        uint32_t tot = shapesw[s].grid * shapesw[s].block, nw = tot / 32;
        int32_t *in = xmalloc(tot * 4), *out = xmalloc(nw * 12), *want = xmalloc(nw * 12);
        rng_seed(481 + s);
        for (uint32_t i = 0; i < tot; i++)
            in[i] = (int32_t)rnd();
        for (uint32_t w = 0; w < nw; w++) {
            uint32_t sm = 0;
            int32_t mn = INT_MAX, mx = INT_MIN;
            for (uint32_t l = 0; l < 32; l++) {
                int32_t v = in[w * 32 + l];
                sm += (uint32_t)v, mn = v < mn ? v : mn, mx = v > mx ? v : mx;
            }
            want[3 * w] = (int32_t)sm, want[3 * w + 1] = mn, want[3 * w + 2] = mx;
        }
        params p = {0};
        p_ptr(&p, in), p_ptr(&p, out);
        launch1(r, shapesw[s].grid, shapesw[s].block, &p);
        check_i32(r, "out", out, want, 3 * nw);
        free(in), free(out), free(want);
    }
}

static void chk_aggregated_append(const run *r)
{
    static const struct { uint32_t block, n; } sh[] = {{96, 500}, {64, 100}};
    for (size_t s = 0; s < 2; s++) {
        uint32_t n = sh[s].n, bs = sh[s].block;
        int32_t *in = xmalloc(n * 4), *out = xmalloc((n + 1) * 4), count = 0, wcount = 0;
        rng_seed(491 + s);
        for (uint32_t i = 0; i < n; i++)
            in[i] = rnd_int(-5, 5) * 1000 + (int)i; /* distinct values */
        int32_t *pos = xmalloc(n * 4), *got = xmalloc(n * 4);
        for (uint32_t i = 0; i < n; i++)
            if (in[i] > 0)
                pos[wcount++] = in[i];
        memset(out, SENT, (n + 1) * 4);
        params p = {0};
        p_ptr(&p, in), p_i32(&p, (int)n), p_ptr(&p, out), p_ptr(&p, &count);
        launch1(r, cdiv(n, bs), bs, &p);
        check_i32(r, "*out_count", &count, &wcount, 1);
        memcpy(got, out, (size_t)wcount * 4); /* a permutation: compare sorted */
        qsort(got, (size_t)wcount, 4, cmp_i32);
        qsort(pos, (size_t)wcount, 4, cmp_i32);
        check_i32(r, "sorted out", got, pos, (size_t)wcount);
        check_untouched(r, "out", out, (size_t)wcount, n + 1, 4, SENT);
        free(in), free(out), free(pos), free(got);
    }
}

static void chk_syncwarp_shared_reduce(const run *r)
{
    enum { G = 3 };
    int32_t in[G * 64], out[G * 2], want[G * 2];
    rng_seed(501);
    for (int i = 0; i < G * 64; i++)
        in[i] = rnd_int(-100000, 100000);
    for (int w = 0; w < G * 2; w++) {
        int32_t acc = 0;
        for (int l = 0; l < 32; l++)
            acc += in[w * 32 + l];
        want[w] = acc;
    }
    params p = {0};
    p_ptr(&p, in), p_ptr(&p, out);
    launch1(r, G, 64, &p); /* blockDim.x must be 64 */
    check_i32(r, "out", out, want, G * 2);
}

/* ========================================================================
 * atomics_shared.cu
 * ======================================================================== */

static void chk_histogram256(const run *r)
{
    static const struct { uint32_t grid, block, n; } sh[] = {{3, 100, 5000}, {2, 96, 777}, {4, 300, 20000}, {7, 1024, 30000}, {5, 1, 300}};
    for (size_t s = 0; s < sizeof sh / sizeof sh[0]; s++) {
        uint32_t n = sh[s].n, hist[257], want[257];
        uint8_t *data = xmalloc(n);
        rng_seed(511 + s);
        for (uint32_t i = 0; i < n; i++) /* skewed: many collisions on a few bins */
            data[i] = (uint8_t)(i % 3 == 0 ? rnd() % 4 : rnd());
        memset(hist, 0, 256 * 4), memset(want, 0, 256 * 4);
        hist[256] = want[256] = 0xdeadbeefu;
        for (uint32_t i = 0; i < n; i++)
            want[data[i]]++;
        params p = {0};
        p_ptr(&p, data), p_i32(&p, (int)n), p_ptr(&p, hist);
        launch1(r, sh[s].grid, sh[s].block, &p);
        check_u32(r, "hist", hist, want, 257);
        free(data);
    }
}

static void chk_shared_atomic_all(const run *r)
{
    for (size_t s = 0; s < NSHAPES1; s++) {
        uint32_t n = shapes1[s].n, bs = shapes1[s].block, g = cdiv(n, bs);
        int32_t *in = xmalloc(n * 4), *out = xmalloc(g * 64);
        rng_seed(521 + s);
        for (uint32_t i = 0; i < n; i++)
            in[i] = (int32_t)rnd() >> rnd_int(0, 20);
        params p = {0};
        p_ptr(&p, in), p_ptr(&p, out), p_i32(&p, (int)n);
        launch1(r, g, bs, &p);
        for (uint32_t b = 0; b < g; b++) {
            int32_t w[16] = {0, INT_MAX, INT_MIN, -1, 0, 0, 0, 100, -1, 0, 0, 0, 0, 0, 0, 0};
            uint32_t inc = 0, dec = 0, cnt = 0;
            for (uint32_t t = 0; t < bs && b * bs + t < n; t++) {
                int32_t v = in[b * bs + t];
                w[0] = (int32_t)((uint32_t)w[0] + (uint32_t)v);
                w[1] = v < w[1] ? v : w[1];
                w[2] = v > w[2] ? v : w[2];
                w[3] &= v, w[4] |= v, w[5] ^= v;
                inc = inc >= 15 ? 0 : inc + 1;
                dec = (dec == 0 || dec > 7) ? 7 : dec - 1;
                w[7] -= 1;
                cnt++;
            }
            w[6] = (int32_t)inc, w[10] = (int32_t)dec;
            w[11] = cnt > 0, w[12] = cnt > 0;
            int32_t *o = out + 16 * b;
            static const int det[] = {0, 1, 2, 3, 4, 5, 6, 7, 10, 11, 12, 13, 14, 15};
            for (size_t q = 0; q < sizeof det / sizeof det[0]; q++)
                if (o[det[q]] != w[det[q]])
                    fail_msg("%s: block %u slot %d = %d, want %d", r->what, b, det[q], o[det[q]],
                             w[det[q]]);
            /* non-deterministic winners, but from the right set */
            if (o[8] < 0 || o[8] >= (int32_t)cnt)
                fail_msg("%s: block %u exchange slot %d is not a participating thread", r->what,
                         b, o[8]);
            if (o[9] < 1 || o[9] > (int32_t)cnt)
                fail_msg("%s: block %u CAS slot %d is not a participating thread + 1", r->what, b,
                         o[9]);
        }
        free(in), free(out);
    }
}

static void chk_shared_atomic_fp(const run *r)
{
    /* integer-valued x: float and double totals are exact in any order */
    for (size_t s = 0; s < NSHAPES1; s++) {
        uint32_t n = shapes1[s].n, bs = shapes1[s].block, g = cdiv(n, bs);
        float *x = xmalloc(n * 4), fs = 1.0f, wfs = 1.0f;
        double ds = 2.0, wds = 2.0;
        uint64_t us = 3, wus = 3;
        rng_seed(525 + s);
        for (uint32_t i = 0; i < n; i++) {
            x[i] = (float)rnd_int(-500, 500);
            wfs += x[i], wds += x[i], wus += (uint64_t)i * 3;
        }
        params p = {0};
        p_ptr(&p, x), p_ptr(&p, &fs), p_ptr(&p, &ds), p_ptr(&p, &us), p_i32(&p, (int)n);
        launch1(r, g, bs, &p);
        check_f32(r, "*fsum", &fs, &wfs, 1, 0);
        check_f64(r, "*dsum", &ds, &wds, 1, 0);
        check_u64(r, "*usum", &us, &wus, 1);
        free(x);
    }
}

static void chk_shared_ticket_order(const run *r)
{
    for (size_t s = 0; s < NSHAPESW; s++) {
        uint32_t g = shapesw[s].grid, bs = shapesw[s].block + 4, tot = g * bs;
        int32_t *ranks = xmalloc(tot * 4);
        params p = {0};
        p_ptr(&p, ranks);
        launch1(r, g, bs, &p); /* blocks of 100 and 36 */
        for (uint32_t b = 0; b < g; b++) {
            int32_t sorted[1024];
            for (uint32_t t = 0; t < bs; t++)
                sorted[t] = ranks[b * bs + t] - (int32_t)b * 1000000;
            qsort(sorted, bs, 4, cmp_i32);
            for (uint32_t t = 0; t < bs; t++)
                if (sorted[t] != (int32_t)t)
                    fail_msg("%s: block %u tickets are not a permutation of 0..%u", r->what, b,
                             bs - 1);
        }
        free(ranks);
    }
}

/* ========================================================================
 * image2d.cu
 * ======================================================================== */

typedef struct shape2 {
    int w, h;
    uint32_t bx, by;
} shape2;
/* partial blocks in both dimensions; 96- and 100-thread 2D blocks */
static const shape2 shapes2[] = {{37, 23, 16, 6}, {50, 31, 10, 10}, {5, 3, 8, 4}};
#define NSHAPES2 3

static void chk_rgb_to_gray(const run *r)
{
    for (size_t s = 0; s < NSHAPES2; s++) {
        int W = shapes2[s].w, H = shapes2[s].h, pitch = 3 * W + 5;
        uint8_t *rgb = xmalloc((size_t)pitch * H), *gray = xmalloc((size_t)W * H + 8),
                *want = xmalloc((size_t)W * H);
        rng_seed(531 + s);
        for (int i = 0; i < pitch * H; i++)
            rgb[i] = (uint8_t)rnd();
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                const uint8_t *px = rgb + y * pitch + 3 * x;
                want[y * W + x] = (uint8_t)((77u * px[0] + 150u * px[1] + 29u * px[2] + 128u) >> 8);
            }
        memset(gray, SENT, (size_t)W * H + 8);
        params p = {0};
        p_ptr(&p, rgb), p_ptr(&p, gray), p_i32(&p, W), p_i32(&p, H), p_i32(&p, pitch);
        launch3(r, cdiv((uint32_t)W, shapes2[s].bx), cdiv((uint32_t)H, shapes2[s].by), 1,
                shapes2[s].bx, shapes2[s].by, 1, 0, &p, NULL);
        check_u8(r, "gray", gray, want, (size_t)W * H);
        check_untouched(r, "gray", gray, (size_t)W * H, (size_t)W * H + 8, 1, SENT);
        free(rgb), free(gray), free(want);
    }
}

static void blur_ref(const float *in, float *out, int W, int H)
{
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            float acc = 0.0f;
            for (int dy = -1; dy <= 1; dy++) {
                int yy = y + dy < 0 ? 0 : y + dy > H - 1 ? H - 1 : y + dy;
                for (int dx = -1; dx <= 1; dx++) {
                    int xx = x + dx < 0 ? 0 : x + dx > W - 1 ? W - 1 : x + dx;
                    acc += in[yy * W + xx];
                }
            }
            out[y * W + x] = acc * (1.0f / 9.0f);
        }
}

static void run_blur(const run *r, int tiled)
{
    for (size_t s = 0; s < NSHAPES2; s++) {
        int W = shapes2[s].w, H = shapes2[s].h;
        uint32_t bx = tiled ? 16 : shapes2[s].bx, by = tiled ? 16 : shapes2[s].by;
        float *in = xmalloc((size_t)W * H * 4), *out = xmalloc((size_t)W * H * 4),
              *want = xmalloc((size_t)W * H * 4);
        rng_seed(541 + s);
        for (int i = 0; i < W * H; i++)
            in[i] = rnd_f32(0, 1); /* the summation order is specified: exact */
        blur_ref(in, want, W, H);
        params p = {0};
        p_ptr(&p, in), p_ptr(&p, out), p_i32(&p, W), p_i32(&p, H);
        launch3(r, cdiv((uint32_t)W, bx), cdiv((uint32_t)H, by), 1, bx, by, 1, 0, &p, NULL);
        check_f32(r, "out", out, want, (size_t)W * H, 0);
        free(in), free(out), free(want);
    }
}

static void chk_box_blur3x3(const run *r) { run_blur(r, 0); }
static void chk_box_blur3x3_tiled(const run *r) { run_blur(r, 1); }

static void chk_transpose32(const run *r)
{
    static const struct { int w, h; } sh[] = {{45, 70}, {32, 7}, {100, 33}};
    for (size_t s = 0; s < 3; s++) {
        int W = sh[s].w, H = sh[s].h;
        float *in = xmalloc((size_t)W * H * 4), *out = xmalloc((size_t)W * H * 4 + 16),
              *want = xmalloc((size_t)W * H * 4);
        rng_seed(551 + s);
        for (int i = 0; i < W * H; i++)
            in[i] = rnd_f32(-1, 1);
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                want[x * H + y] = in[y * W + x];
        memset(out, SENT, (size_t)W * H * 4 + 16);
        params p = {0};
        p_ptr(&p, in), p_ptr(&p, out), p_i32(&p, W), p_i32(&p, H);
        launch3(r, cdiv((uint32_t)W, 32), cdiv((uint32_t)H, 32), 1, 32, 8, 1, 0, &p, NULL);
        check_f32(r, "out", out, want, (size_t)W * H, 0);
        check_untouched(r, "out", out, (size_t)W * H, (size_t)W * H + 4, 4, SENT);
        free(in), free(out), free(want);
    }
}

/* ========================================================================
 * needleman_wunsch.cu
 * ======================================================================== */

/* The score matrix of Needleman-Wunsch with a linear gap penalty, cell by
 * cell in row order (the recurrence the tiled kernel computes along
 * anti-diagonals). */
static void nw_reference(int32_t *score, const int32_t *sim, int n, int penalty)
{
    int cols = n + 1;
    for (int j = 0; j <= n; j++)
        score[j] = -penalty * j;
    for (int i = 1; i <= n; i++) {
        score[i * cols] = -penalty * i;
        for (int j = 1; j <= n; j++) {
            int diag = score[(i - 1) * cols + j - 1] + sim[(i - 1) * n + j - 1];
            int left = score[i * cols + j - 1] - penalty, up = score[(i - 1) * cols + j] - penalty;
            int best = diag > left ? diag : left;
            score[i * cols + j] = best > up ? best : up;
        }
    }
}

static void chk_nw_tiles(const run *r)
{
    /* nvcc -O3 walks the shared tile through bases "below zero" as 32-bit
     * offsets (tile - 64 * tid) plus immediates that wrap back into it */
    enum { TILE = 16 };
    static const int sizes[] = {16, 64, 112};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        int n = sizes[s], cols = n + 1, nb = n / TILE, penalty = 1 + (int)s * 4;
        int32_t *sim = xmalloc((size_t)n * n * 4), *score = xmalloc((size_t)cols * cols * 4 + 16),
                *want = xmalloc((size_t)cols * cols * 4);
        rng_seed(601 + (uint32_t)s);
        for (int i = 0; i < n * n; i++)
            sim[i] = rnd_int(-10, 10);
        nw_reference(want, sim, n, penalty);
        memset(score, SENT, (size_t)cols * cols * 4 + 16);
        for (int i = 0; i <= n; i++) /* the borders, as the kernel expects them */
            score[i * cols] = want[i * cols], score[i] = want[i];
        for (int d = 0; d < 2 * nb - 1; d++) {
            int first = d - nb + 1 > 0 ? d - nb + 1 : 0, last = d < nb - 1 ? d : nb - 1;
            params p = {0};
            p_ptr(&p, score), p_ptr(&p, sim), p_i32(&p, n), p_i32(&p, penalty), p_i32(&p, d);
            launch1(r, (uint32_t)(last - first + 1), TILE, &p);
        }
        check_i32(r, "score", score, want, (size_t)cols * cols);
        check_untouched(r, "score", score, (size_t)cols * cols, (size_t)cols * cols + 4, 4, SENT);
        free(sim), free(score), free(want);
    }
}

static void chk_sobel_magnitude(const run *r)
{
    unsigned ulps = is_clang(r) ? 2 : 0; /* clang: sqrt.approx.f32 */
    for (size_t s = 0; s < NSHAPES2; s++) {
        int W = shapes2[s].w, H = shapes2[s].h;
        uint8_t *in = xmalloc((size_t)W * H);
        float *out = xmalloc((size_t)W * H * 4), *want = xmalloc((size_t)W * H * 4);
        rng_seed(561 + s);
        for (int i = 0; i < W * H; i++)
            in[i] = (uint8_t)rnd();
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                if (!x || !y || x == W - 1 || y == H - 1) {
                    want[y * W + x] = 0.0f;
                    continue;
                }
#define P(xx, yy) ((int)in[(yy) * W + (xx)])
                int gx = (P(x + 1, y - 1) + 2 * P(x + 1, y) + P(x + 1, y + 1)) -
                         (P(x - 1, y - 1) + 2 * P(x - 1, y) + P(x - 1, y + 1));
                int gy = (P(x - 1, y + 1) + 2 * P(x, y + 1) + P(x + 1, y + 1)) -
                         (P(x - 1, y - 1) + 2 * P(x, y - 1) + P(x + 1, y - 1));
#undef P
                want[y * W + x] = sqrtf((float)(gx * gx + gy * gy));
            }
        params p = {0};
        p_ptr(&p, in), p_ptr(&p, out), p_i32(&p, W), p_i32(&p, H);
        launch3(r, cdiv((uint32_t)W, shapes2[s].bx), cdiv((uint32_t)H, shapes2[s].by), 1,
                shapes2[s].bx, shapes2[s].by, 1, 0, &p, NULL);
        check_f32(r, "out", out, want, (size_t)W * H, ulps);
        free(in), free(out), free(want);
    }
}

static void chk_rgba_invert_uchar4(const run *r)
{
    for (size_t s = 0; s < NSHAPES2; s++) {
        int W = shapes2[s].w, H = shapes2[s].h;
        size_t np = (size_t)W * H;
        uint8_t *in = xmalloc(np * 4), *out = xmalloc(np * 4 + 8), *want = xmalloc(np * 4);
        rng_seed(571 + s);
        for (size_t i = 0; i < np * 4; i++)
            in[i] = (uint8_t)rnd();
        for (size_t i = 0; i < np; i++) {
            want[4 * i + 0] = (uint8_t)(255 - in[4 * i + 0]);
            want[4 * i + 1] = (uint8_t)(255 - in[4 * i + 1]);
            want[4 * i + 2] = (uint8_t)(255 - in[4 * i + 2]);
            want[4 * i + 3] = in[4 * i + 3];
        }
        memset(out, SENT, np * 4 + 8);
        params p = {0};
        p_ptr(&p, in), p_ptr(&p, out), p_i32(&p, W), p_i32(&p, H);
        launch3(r, cdiv((uint32_t)W, shapes2[s].bx), cdiv((uint32_t)H, shapes2[s].by), 1,
                shapes2[s].bx, shapes2[s].by, 1, 0, &p, NULL);
        check_u8(r, "out", out, want, np * 4);
        check_untouched(r, "out", out, np * 4, np * 4 + 8, 1, SENT);
        free(in), free(out), free(want);
    }
}

/* ========================================================================
 * malloc_assert.cu: device heap, trap and assert
 * ======================================================================== */

static void chk_heap_sum(const run *r)
{
    static const struct { uint32_t block, n; int per; } sh[] = {{96, 200, 13}, {100, 150, 1}};
    for (size_t s = 0; s < 2; s++) {
        uint32_t n = sh[s].n, bs = sh[s].block, g = cdiv(n, bs), tot = g * bs;
        int per = sh[s].per;
        int32_t *in = xmalloc(n * (size_t)per * 4);
        int64_t *out = xmalloc(tot * 8), *want = xmalloc(n * 8);
        rng_seed(581 + s);
        for (size_t i = 0; i < n * (size_t)per; i++)
            in[i] = rnd_int(-100000, 100000);
        for (uint32_t i = 0; i < n; i++) {
            int64_t acc = 0;
            for (int k = 0; k < per; k++)
                acc += (int32_t)((uint32_t)in[i * (uint32_t)per + (uint32_t)k] * (uint32_t)(k + 1));
            want[i] = acc;
        }
        memset(out, SENT, tot * 8);
        params p = {0};
        p_ptr(&p, in), p_i32(&p, per), p_ptr(&p, out), p_i32(&p, (int)n);
        launch1(r, g, bs, &p);
        check_i64(r, "out", out, want, n);
        check_untouched(r, "out", out, n, tot, 8, SENT);
        free(in), free(out), free(want);
    }
}

/* A failing launch returns `want`, names the kernel in the message, and the
 * context then runs the same kernel correctly. */
static void expect_failure(const run *r, ptxjit_status want, const char *want_text, uint32_t grid,
                           uint32_t block, const params *bad, char *err, size_t errlen)
{
    uint32_t g[3] = {grid, 1, 1}, b[3] = {block, 1, 1};
    text out;
    text_open(&out);
    ptxjit_status st = launch_status(r, g, b, 0, bad, out.f, err, errlen);
    text_close(&out);
    free(out.buf);
    if (st != want)
        fail_msg("%s: launch returned status %d, want %d (%s)", r->what, (int)st, (int)want, err);
    if (!strstr(err, ptxjit_kernel_name(r->k)))
        fail_msg("%s: the error message does not name the kernel: %s", r->what, err);
    if (want_text && !strstr(err, want_text))
        fail_msg("%s: the error message lacks \"%s\": %s", r->what, want_text, err);
}

static void run_guarded(const run *r, int assert_kernel)
{
    enum { N = 300, BS = 100 };
    int32_t in[N], out[N], want[N];
    char err[512];
    for (int i = 0; i < N; i++)
        in[i] = i % 50 == 49 ? -i : i * 3; /* a negative in every block */
    params p = {0};
    p_ptr(&p, in), p_ptr(&p, out), p_i32(&p, N);
    expect_failure(r, assert_kernel ? PTXJIT_ERR_ASSERT : PTXJIT_ERR_TRAP,
                   assert_kernel ? "in[gid] >= 0" : NULL, cdiv(N, BS), BS, &p, err, sizeof err);
    /* the context survives: the same kernel on valid data */
    for (int i = 0; i < N; i++)
        in[i] = i * 3, want[i] = assert_kernel ? in[i] * 2 : in[i] + 1;
    memset(out, SENT, sizeof out);
    launch1(r, cdiv(N, 96), 96, &p);
    check_i32(r, "out", out, want, N);
}

static void chk_trap_if_negative(const run *r) { run_guarded(r, 0); }
static void chk_check_nonneg(const run *r) { run_guarded(r, 1); }

/* ========================================================================
 * Fault containment: an invalid address stops the launch with
 * PTXJIT_ERR_FAULT and a message naming the kernel; the context keeps
 * working.  Also in a kernel run as fibers (barriers) and inside a .func.
 * ======================================================================== */

static void chk_fault_vec_add(const run *r)
{
    enum { N = 500, BS = 100 };
    float a[N], b[N], c[N], want[N];
    char err[512];
    for (int i = 0; i < N; i++)
        a[i] = (float)i, b[i] = 0.5f * (float)i, want[i] = a[i] + b[i];
    /* NULL, small addresses, and a PROT_NONE page (a fixed "garbage" high
     * address could be mapped, e.g. by ASan's shadow) */
    void *none = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(none != MAP_FAILED);
    void *const bad_ptrs[] = {NULL, (void *)(uintptr_t)0x10, (char *)none + 64};
    for (size_t q = 0; q < sizeof bad_ptrs / sizeof bad_ptrs[0]; q++) {
        params bad = {0};
        p_ptr(&bad, a), p_ptr(&bad, b), p_ptr(&bad, bad_ptrs[q]), p_i32(&bad, N);
        expect_failure(r, PTXJIT_ERR_FAULT, NULL, N / BS, BS, &bad, err, sizeof err);
        params good = {0};
        memset(c, 0, sizeof c);
        p_ptr(&good, a), p_ptr(&good, b), p_ptr(&good, c), p_i32(&good, N);
        launch1(r, N / BS, BS, &good);
        check_f32(r, "c after a fault", c, want, N, 0);
    }
    /* a bad input pointer (load fault) too */
    params bad = {0};
    p_ptr(&bad, (void *)(uintptr_t)0x1000), p_ptr(&bad, b), p_ptr(&bad, c), p_i32(&bad, N);
    expect_failure(r, PTXJIT_ERR_FAULT, NULL, N / BS, BS, &bad, err, sizeof err);
    munmap(none, 4096);
}

static void chk_fault_with_barriers(const run *r)
{
    /* reduce_sum_static: thread 0 of each block faults after the barriers */
    enum { N = 1000 };
    float in[N], part[4];
    char err[512];
    for (int i = 0; i < N; i++)
        in[i] = 1.0f;
    params bad = {0};
    p_ptr(&bad, in), p_ptr(&bad, (void *)(uintptr_t)0x20), p_i32(&bad, N);
    expect_failure(r, PTXJIT_ERR_FAULT, NULL, 4, 256, &bad, err, sizeof err);
    params good = {0};
    p_ptr(&good, in), p_ptr(&good, part), p_i32(&good, N);
    launch1(r, 4, 256, &good);
    float want[4] = {256, 256, 256, 232};
    check_f32(r, "partial after a fault", part, want, 4, 0);
}

static void chk_fault_in_func(const run *r)
{
    /* range_sum_kernel: the faulting load is in the recursive .func */
    enum { N = 200 };
    int64_t out[N];
    char err[512];
    params bad = {0};
    p_ptr(&bad, (void *)(uintptr_t)0x40), p_i32(&bad, 50), p_ptr(&bad, out), p_i32(&bad, N);
    expect_failure(r, PTXJIT_ERR_FAULT, NULL, 2, 100, &bad, err, sizeof err);
    int32_t data[50];
    int64_t want[N];
    for (int k = 0; k < 50; k++)
        data[k] = k + 1;
    for (int i = 0; i < N; i++)
        want[i] = (int64_t)(i % 51) * (i % 51 + 1) / 2;
    params good = {0};
    p_ptr(&good, data), p_i32(&good, 50), p_ptr(&good, out), p_i32(&good, N);
    launch1(r, 2, 100, &good);
    check_i64(r, "out after a fault", out, want, N);
}

static void chk_bad_config(const run *r)
{
    /* bad launch configurations are PTXJIT_ERR_INVALID before anything runs */
    static const struct { uint32_t g[3], b[3]; } bad[] = {
        {{1, 1, 1}, {1025, 1, 1}}, {{1, 1, 1}, {32, 32, 2}}, {{0, 1, 1}, {32, 1, 1}},
        {{1, 1, 1}, {32, 0, 1}}};
    float a[4] = {0}, c[4];
    params p = {0};
    p_ptr(&p, a), p_ptr(&p, a), p_ptr(&p, c), p_i32(&p, 4);
    for (size_t q = 0; q < sizeof bad / sizeof bad[0]; q++) {
        char err[512];
        ptxjit_status st = launch_status(r, bad[q].g, bad[q].b, 0, &p, NULL, err, sizeof err);
        if (st != PTXJIT_ERR_INVALID)
            fail_msg("%s: grid (%u,%u,%u) block (%u,%u,%u): status %d, want PTXJIT_ERR_INVALID",
                     r->what, bad[q].g[0], bad[q].g[1], bad[q].g[2], bad[q].b[0], bad[q].b[1],
                     bad[q].b[2], (int)st);
    }
    float want[4] = {0, 0, 0, 0};
    launch1(r, 1, 4, &p);
    check_f32(r, "c", c, want, 4, 0);
}

/* Launch bounds: CUDA refuses a block larger than the kernel's .maxntid
 * (CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: "the maximum number of threads
 * per block, beyond which a launch of the function would fail") and a block
 * other than its .reqntid.  Both kernels store only in bounds, so running
 * them anyway is harmless. */
static const char bounds_ptx[] =
    ".version 7.0\n.target sm_80\n.address_size 64\n"
    "// out[gid] = gid for gid < n\n"
    ".visible .entry max64(.param .u64 out, .param .u32 n)\n.maxntid 64, 1, 1\n{\n"
    "    .reg .b32 %r<5>;\n    .reg .b64 %rd<4>;\n    .reg .pred %p;\n"
    "    mov.u32 %r1, %tid.x;\n    mov.u32 %r2, %ctaid.x;\n    mov.u32 %r3, %ntid.x;\n"
    "    mad.lo.u32 %r1, %r2, %r3, %r1;\n    ld.param.u32 %r4, [n];\n"
    "    setp.ge.u32 %p, %r1, %r4;\n    @%p bra done;\n"
    "    ld.param.u64 %rd1, [out];\n    mul.wide.u32 %rd2, %r1, 4;\n    add.u64 %rd3, %rd1, %rd2;\n"
    "    st.global.u32 [%rd3], %r1;\ndone:\n    ret;\n}\n"
    ".visible .entry req32(.param .u64 out, .param .u32 n)\n.reqntid 32, 1, 1\n{\n"
    "    .reg .b32 %r<5>;\n    .reg .b64 %rd<4>;\n    .reg .pred %p;\n"
    "    mov.u32 %r1, %tid.x;\n    mov.u32 %r2, %ctaid.x;\n    mov.u32 %r3, %ntid.x;\n"
    "    mad.lo.u32 %r1, %r2, %r3, %r1;\n    ld.param.u32 %r4, [n];\n"
    "    setp.ge.u32 %p, %r1, %r4;\n    @%p bra done;\n"
    "    ld.param.u64 %rd1, [out];\n    mul.wide.u32 %rd2, %r1, 4;\n    add.u64 %rd3, %rd1, %rd2;\n"
    "    st.global.u32 [%rd3], %r1;\ndone:\n    ret;\n}\n";

static void test_launch_bounds(void **state)
{
    (void)state;
    for (int c = 0; c < 2; c++) {
        char *log = NULL;
        ptxjit_module *m =
            ptxjit_load(ctxs[c], bounds_ptx, sizeof bounds_ptx - 1, "bounds.ptx", &log, NULL);
        if (!m)
            fail_msg("bounds.ptx did not load:\n%s", log ? log : "");
        free(log);
        static const struct { const char *k; uint32_t ok_block, bad_block; } cases[] = {
            {"max64", 64, 96}, {"req32", 32, 64}};
        int bug = 0;
        for (size_t q = 0; q < 2; q++) {
            run r = {ctxs[c], ptxjit_kernel_get(m, cases[q].k), NULL, "hand", worker_counts[c], ""};
            assert_non_null(r.k);
            snprintf(r.what, sizeof r.what, "bounds.ptx %s (%u worker%s)", cases[q].k, r.workers,
                     r.workers > 1 ? "s" : "");
            uint32_t out[192], want[192];
            for (uint32_t i = 0; i < 192; i++)
                want[i] = i;
            params p = {0};
            p_ptr(&p, out), p_u32(&p, 192);
            launch1(&r, 192 / cases[q].ok_block, cases[q].ok_block, &p);
            check_u32(&r, "out", out, want, 192);
            uint32_t g[3] = {2, 1, 1}, b[3] = {cases[q].bad_block, 1, 1};
            char err[512];
            ptxjit_status st = launch_status(&r, g, b, 0, &p, NULL, err, sizeof err);
            if (st == PTXJIT_OK)
                bug = 1;
            else if (st != PTXJIT_ERR_INVALID)
                fail_msg("%s: block %u: status %d, want PTXJIT_ERR_INVALID (%s)", r.what,
                         cases[q].bad_block, (int)st, err);
        }
        ptxjit_module_unload(m);
        if (bug) {
            run r = {ctxs[c], NULL, NULL, "hand", worker_counts[c], "bounds.ptx"};
            known_bug(&r, "BUG-LAUNCH-BOUNDS: a block over .maxntid (96 > 64) or other than "
                          ".reqntid (64 != 32) launches with PTXJIT_OK instead of "
                          "PTXJIT_ERR_INVALID");
        }
    }
}

/* Out-of-range .shared accesses: a GPU stops the kernel (out-of-range
 * address); here they must be PTXJIT_ERR_FAULT, not writes into whatever
 * host memory follows the shared window (rt/shared_window.c). */
static const char shared_oob_ptx[] =
    ".version 7.0\n.target sm_80\n.address_size 64\n"
    "// thread 0 stores 12345 at shared byte offset `off` of a 16-byte array\n"
    ".visible .entry shared_oob(.param .u64 out, .param .u32 off)\n{\n"
    "    .shared .align 4 .b8 s[16];\n"
    "    .reg .b32 %r<4>;\n    .reg .b64 %rd<3>;\n    .reg .pred %p;\n"
    "    mov.u32 %r1, %tid.x;\n    setp.ne.u32 %p, %r1, 0;\n    @%p bra done;\n"
    "    ld.param.u32 %r2, [off];\n    mov.u32 %r3, s;\n    add.u32 %r3, %r3, %r2;\n"
    "    st.shared.u32 [%r3], 12345;\n    ld.shared.u32 %r2, [%r3];\n"
    "    ld.param.u64 %rd1, [out];\n    cvta.to.global.u64 %rd2, %rd1;\n"
    "    st.global.u32 [%rd2], %r2;\ndone:\n    ret;\n}\n";

static void test_shared_out_of_range(void **state)
{
    (void)state;
    for (int c = 0; c < 2; c++) {
        char *log = NULL;
        ptxjit_module *m = ptxjit_load(ctxs[c], shared_oob_ptx, sizeof shared_oob_ptx - 1,
                                       "shared_oob.ptx", &log, NULL);
        if (!m)
            fail_msg("shared_oob.ptx did not load:\n%s", log ? log : "");
        free(log);
        run r = {ctxs[c], ptxjit_kernel_get(m, "shared_oob"), NULL, "hand", worker_counts[c], ""};
        snprintf(r.what, sizeof r.what, "shared_oob.ptx shared_oob (%u worker%s)", r.workers,
                 r.workers > 1 ? "s" : "");
        /* In range first: offset 12 of the 16-byte array, and 124, past
         * the array but inside the CTA's 128-byte allocation unit (an H100
         * takes it too: tests/gpu/results/README.md). */
        uint32_t out = 0, want = 12345;
        static const uint32_t good[] = {12, 124};
        params p = {0};
        for (size_t q = 0; q < sizeof good / sizeof good[0]; q++) {
            out = 0, p = (params){0};
            p_ptr(&p, &out), p_u32(&p, good[q]);
            launch1(&r, 2, 40, &p);
            check_u32(&r, "out", &out, &want, 1);
        }
        /* Out of range: just past the CTA's shared allocation unit (where
         * the H100 faults), 1 MiB past, and a negative offset wrapped to
         * 32 bits.  Each stops the kernel; the context stays usable. */
        static const uint32_t bad[] = {128, 4096, 1u << 20, 0xFFFFFFF0u};
        for (size_t q = 0; q < sizeof bad / sizeof bad[0]; q++) {
            char err[512];
            p = (params){0};
            p_ptr(&p, &out), p_u32(&p, bad[q]);
            uint32_t g[3] = {1, 1, 1}, b[3] = {32, 1, 1};
            ptxjit_status st = launch_status(&r, g, b, 0, &p, NULL, err, sizeof err);
            if (st != PTXJIT_ERR_FAULT || !strstr(err, "shared_oob"))
                fail_msg("%s: store at shared offset %#x: status %d (%s), want PTXJIT_ERR_FAULT",
                         r.what, bad[q], (int)st, err);
            out = 0;
            p = (params){0};
            p_ptr(&p, &out), p_u32(&p, 8);
            launch1(&r, 1, 32, &p);
            check_u32(&r, "out after a fault", &out, &want, 1);
        }
        ptxjit_module_unload(m);
    }
}

/* ========================================================================
 * The suite: one test case per (fixture, kernel, variant)
 * ======================================================================== */

typedef struct spec {
    const char *base, *kernel;
    check_fn fn;
    const char *tag; /* NULL, or a suffix naming a non-default check */
} spec;

#define GEMM_F8 "_Z10gemm_tiledIfLi8EEviiiT_PKS0_S2_S0_PS0_"
#define GEMM_D16 "_Z10gemm_tiledIdLi16EEviiiT_PKS0_S2_S0_PS0_"

static const spec specs[] = {
    {"vector_ops", "vec_add", chk_vec_add, NULL},
    {"vector_ops", "saxpy_gridstride", chk_saxpy_gridstride, NULL},
    {"vector_ops", "scale_inplace", chk_scale_inplace, NULL},
    {"vector_ops", "axpby_f64", chk_axpby_f64, NULL},
    {"vector_ops", "vec_add_i64", chk_vec_add_i64, NULL},
    {"vector_ops", "scale_float4", chk_scale_float4, NULL},
    {"vector_ops", "add_ldg_restrict", chk_add_ldg_restrict, NULL},
    {"vector_ops", "relu_clamp", chk_relu_clamp, NULL},
    {"vector_ops", "copy_u8_u16", chk_copy_u8_u16, NULL},
    {"divergence", "lane_trip_loop", chk_lane_trip_loop, NULL},
    {"divergence", "collatz_steps", chk_collatz_steps, NULL},
    {"divergence", "early_exit", chk_early_exit, NULL},
    {"divergence", "nested_branches", chk_nested_branches, NULL},
    {"divergence", "switch_dispatch", chk_switch_dispatch, NULL},
    {"divergence", "do_while_digits", chk_do_while_digits, NULL},
    {"divergence", "nested_loops_triangle", chk_nested_loops_triangle, NULL},
    {"divergence", "goto_search", chk_goto_search, NULL},
    {"recursion", "fib_kernel", chk_fib_kernel, NULL},
    {"recursion", "range_sum_kernel", chk_range_sum_kernel, NULL},
    {"recursion", "parity_kernel", chk_parity_kernel, NULL},
    {"recursion", "pow_ack_kernel", chk_pow_ack_kernel, NULL},
    {"local_arrays", "median_of_window", chk_median_of_window, NULL},
    {"local_arrays", "window_stats", chk_window_stats, NULL},
    {"local_arrays", "local_histogram", chk_local_histogram, NULL},
    {"local_arrays", "reverse_local_u64", chk_reverse_local_u64, NULL},
    {"reduce_shared", "reduce_sum_static", chk_reduce_sum_static, NULL},
    {"reduce_shared", "reduce_sum_dynamic", chk_reduce_sum_dynamic, NULL},
    {"reduce_shared", "block_minmax", chk_block_minmax, NULL},
    {"reduce_shared", "block_scan_inclusive", chk_block_scan_inclusive, NULL},
    {"reduce_shared", "sync_predicates", chk_sync_predicates, NULL},
    {"reduce_shared", "reduce_2d_block_static", chk_reduce_2d_block_static, NULL},
    {"sgemm", "sgemm_naive", chk_sgemm_naive, NULL},
    {"sgemm", "sgemm_tiled16", chk_sgemm_tiled16, NULL},
    {"sgemm", "sgemm_reg64", chk_sgemm_reg64, NULL},
    {"sgemm", GEMM_F8, chk_gemm_tiled_f8, "gemm_tiled<float,8>"},
    {"sgemm", GEMM_D16, chk_gemm_tiled_d16, "gemm_tiled<double,16>"},
    {"sgemm", "sgemv_warp", chk_sgemv_warp, NULL},
    {"grid3d", "index3d", chk_index3d, NULL},
    {"grid3d", "thread_coords", chk_thread_coords, NULL},
    {"grid3d", "stencil7", chk_stencil7, NULL},
    {"globals_const", "poly_eval", chk_poly_eval, NULL},
    {"globals_const", "const_lookup", chk_const_lookup, NULL},
    {"globals_const", "use_device_globals", chk_use_device_globals, NULL},
    {"globals_const", "lut_interp", chk_lut_interp, NULL},
    {"printf_kernel", "print_grid_info", chk_print_grid_info, NULL},
    {"printf_kernel", "print_conversions", chk_print_conversions, NULL},
    {"printf_kernel", "print_formatting", chk_print_formatting, NULL},
    {"printf_kernel", "print_values_array", chk_print_values_array, NULL},
    {"warp_shuffle", "shfl_broadcast", chk_shfl_broadcast, NULL},
    {"warp_shuffle", "shfl_rotate", chk_shfl_rotate, NULL},
    {"warp_shuffle", "warp_inclusive_scan", chk_warp_inclusive_scan, NULL},
    {"warp_shuffle", "warp_sum_down", chk_warp_sum_down, NULL},
    {"warp_shuffle", "warp_max_xor", chk_warp_max_xor, NULL},
    {"warp_shuffle", "shfl_subwarp_width", chk_shfl_subwarp_width, NULL},
    {"warp_shuffle", "shfl_f64_i64", chk_shfl_f64_i64, NULL},
    {"warp_shuffle", "shfl_partial_mask", chk_shfl_partial_mask, NULL},
    {"warp_shuffle", "block_sum_shfl", chk_block_sum_shfl, NULL},
    {"warp_vote", "vote_all_any", chk_vote_all_any, NULL},
    {"warp_vote", "ballot_popc", chk_ballot_popc, NULL},
    {"warp_vote", "activemask_divergent", chk_activemask_divergent, NULL},
    {"warp_vote", "match_keys", chk_match_keys, NULL},
    {"warp_vote", "match_keys_u64", chk_match_keys_u64, NULL},
    {"warp_vote", "warp_reduce_ops", chk_warp_reduce_ops, NULL},
    {"warp_vote", "warp_reduce_signed", chk_warp_reduce_signed, NULL},
    {"warp_vote", "aggregated_append", chk_aggregated_append, NULL},
    {"warp_vote", "syncwarp_shared_reduce", chk_syncwarp_shared_reduce, NULL},
    {"atomics_shared", "histogram256", chk_histogram256, NULL},
    {"atomics_shared", "shared_atomic_all", chk_shared_atomic_all, NULL},
    {"atomics_shared", "shared_atomic_fp", chk_shared_atomic_fp, NULL},
    {"atomics_shared", "shared_ticket_order", chk_shared_ticket_order, NULL},
    {"image2d", "rgb_to_gray", chk_rgb_to_gray, NULL},
    {"image2d", "box_blur3x3", chk_box_blur3x3, NULL},
    {"image2d", "box_blur3x3_tiled", chk_box_blur3x3_tiled, NULL},
    {"image2d", "transpose32", chk_transpose32, NULL},
    {"image2d", "sobel_magnitude", chk_sobel_magnitude, NULL},
    {"image2d", "rgba_invert_uchar4", chk_rgba_invert_uchar4, NULL},
    {"needleman_wunsch", "nw_tiles", chk_nw_tiles, NULL},
    {"malloc_assert", "heap_sum", chk_heap_sum, NULL},
    {"malloc_assert", "trap_if_negative", chk_trap_if_negative, NULL},
    {"malloc_assert", "check_nonneg", chk_check_nonneg, NULL},
    {"vector_ops", "vec_add", chk_fault_vec_add, "vec_add/fault"},
    {"vector_ops", "vec_add", chk_bad_config, "vec_add/bad-config"},
    {"reduce_shared", "reduce_sum_static", chk_fault_with_barriers, "reduce_sum_static/fault"},
    {"recursion", "range_sum_kernel", chk_fault_in_func, "range_sum_kernel/fault"},
};
#define NSPECS (sizeof specs / sizeof specs[0])

typedef struct tcase {
    const spec *sp;
    const char *variant;
    char file[96];
    char name[160];
} tcase;

static const char *preload_files[NSPECS * MAX_VARIANTS];
static size_t npreload_files;

static void run_case(void **state)
{
    const tcase *tc = *state;
    for (int c = 0; c < 2; c++) {
        modent *e = get_module(c, tc->file);
        if (!e->m) {
            note_skip("%s: does not load: %s", tc->file, e->why);
            skip();
        }
        const ptxjit_kernel *k = ptxjit_kernel_get(e->m, tc->sp->kernel);
        if (!k) { /* say what it has instead */
            char names[512] = "";
            for (uint32_t i = 0; i < ptxjit_kernel_count(e->m); i++) {
                size_t used = strlen(names);
                snprintf(names + used, sizeof names - used, " %s",
                         ptxjit_kernel_name(ptxjit_kernel_at(e->m, i)));
            }
            fail_msg("%s (context %d) has no kernel %s; its %u kernels:%s", tc->file, c,
                     tc->sp->kernel, ptxjit_kernel_count(e->m), names);
        }
        run r = {ctxs[c], k, e, tc->variant, worker_counts[c], ""};
        snprintf(r.what, sizeof r.what, "%s %s (%u worker%s)", tc->file,
                 tc->sp->tag ? tc->sp->tag : tc->sp->kernel, r.workers, r.workers > 1 ? "s" : "");
        tc->sp->fn(&r);
    }
}

static int group_setup(void **state)
{
    (void)state; /* leave *state alone: each test gets its initial_state */
    for (int c = 0; c < 2; c++) {
        char err[256];
        ctxs[c] = ptxjit_create(worker_counts[c], err, sizeof err);
        if (!ctxs[c]) {
            print_message("ptxjit_create(%u) failed: %s\n", worker_counts[c], err);
            return -1;
        }
    }
    if (!getenv("E2E_FILTER") || !*getenv("E2E_FILTER"))
        preload(preload_files, npreload_files);
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    for (size_t i = 0; i < nmods; i++)
        ptxjit_module_unload(mods[i].m);
    for (int c = 0; c < 2; c++)
        ptxjit_destroy(ctxs[c]);
    if (nskips) {
        print_message("%zu skip reason(s):\n", nskips);
        for (size_t i = 0; i < nskips; i++)
            print_message("  %s\n", skips[i]);
    }
    return 0;
}

int main(void)
{
    static tcase cases[NSPECS * MAX_VARIANTS];
    static struct CMUnitTest tests[NSPECS * MAX_VARIANTS + 2];
    size_t n = 0;
    static char extra[256];
    snprintf(extra, sizeof extra, "%s", getenv("E2E_EXTRA_VARIANTS") ? getenv("E2E_EXTRA_VARIANTS") : "");
    for (char *save = NULL, *v = strtok_r(extra, ",", &save); v && nvariants < MAX_VARIANTS;
         v = strtok_r(NULL, ",", &save))
        variants[nvariants++] = v;
    for (size_t s = 0; s < NSPECS; s++)
        for (size_t v = 0; v < nvariants; v++) {
            tcase *tc = &cases[n];
            tc->sp = &specs[s];
            tc->variant = variants[v];
            snprintf(tc->file, sizeof tc->file, "%s.%s.ptx", specs[s].base, variants[v]);
            if (!file_exists(tc->file)) {
                if (v == 0) /* sm_80 is the baseline: it must exist */
                    fprintf(stderr, "missing fixture %s\n", tc->file);
                if (v == 0)
                    return 1;
                continue;
            }
            snprintf(tc->name, sizeof tc->name, "%s.%s:%s", specs[s].base, variants[v],
                     specs[s].tag ? specs[s].tag : specs[s].kernel);
            tests[n] = (struct CMUnitTest){tc->name, run_case, NULL, NULL, tc};
            n++;
            size_t f = 0;
            while (f < npreload_files && strcmp(preload_files[f], tc->file))
                f++;
            if (f == npreload_files)
                preload_files[npreload_files++] = tc->file;
        }
    tests[n++] = (struct CMUnitTest){"containment:launch_bounds", test_launch_bounds, NULL, NULL,
                                     NULL};
    tests[n++] = (struct CMUnitTest){"containment:shared_out_of_range", test_shared_out_of_range,
                                     NULL, NULL, NULL};
    const char *filter = getenv("E2E_FILTER");
    if (filter && *filter)
        cmocka_set_test_filter(filter);
    return _cmocka_run_group_tests("kernels", tests, n, group_setup, group_teardown);
}
