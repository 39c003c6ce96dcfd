/* test_wmma.c - the wmma instructions end to end: nvcc's and clang's WMMA
 * kernels (tests/cuda/tensor_core.cu, tests/cuda/wmma_gemm.cu) against C
 * references written from the kernels' documented semantics, and
 * hand-written PTX for what nvcc does not emit: .shared and generic
 * addresses, the stride operand left out, a fragment read register by
 * register, a fault, a guard that leaves no lane.
 *
 * Inputs are small multiples of 1/8 (integers for s8), so every product
 * and sum is exact in f32 and any accumulation order gives the same bits:
 * comparisons are exact.  The layouts themselves are checked bit for bit
 * against an H200's recording by tensor_gpu (ctest tensor_gpu_wmma). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ptxjit/ptxjit.h"
#include "test_ctx.h"
#include "test_util.h"


typedef struct params {
    uint8_t b[256];
    size_t n;
} params;

static void p_raw(params *p, const void *v, size_t size)
{
    p->n = (p->n + size - 1) / size * size;
    memcpy(p->b + p->n, v, size);
    p->n += size;
}
static void p_ptr(params *p, const void *v) { p_raw(p, &v, sizeof v); }
static void p_i32(params *p, int32_t v) { p_raw(p, &v, 4); }
static void p_f32(params *p, float v) { p_raw(p, &v, 4); }

static ptxjit_module *load_text(const char *src, size_t len, const char *name)
{
    char *log = NULL;
    ptxjit_module *m = ptxjit_load(test_ctx, src, len, name, &log, NULL);
    if (!m)
        fail_msg("%s did not load:\n%s", name, log ? log : "");
    free(log);
    return m;
}

/* The module without the kernel `name` (its .entry up to the closing brace
 * at the start of a line): tensor_core.cu's mma.sync kernel belongs to the
 * mma family, which has its own tests. */
static size_t without_entry(char *src, size_t len, const char *name)
{
    char head[128];
    snprintf(head, sizeof head, ".visible .entry %s(", name);
    char *at = strstr(src, head), *end = at ? strstr(at, "\n}\n") : NULL;
    if (!end)
        return len;
    end += 3;
    memmove(at, end, len - (size_t)(end - src) + 1);
    return len - (size_t)(end - at);
}

static ptxjit_module *load_corpus(const char *file)
{
    char path[512];
    size_t len;
    snprintf(path, sizeof path, "%s/ptx/corpus/%s", PTXJIT_TEST_DIR, file);
    char *src = tu_read_file(path, &len);
    if (!src)
        fail_msg("cannot read %s", path);
    len = without_entry(src, len, "mma_sync_m16n8k16");
    ptxjit_module *m = load_text(src, len, file);
    free(src);
    return m;
}

static ptxjit_status launch(ptxjit_module *m, const char *kernel, uint32_t gx, uint32_t gy, uint32_t block,
                            const params *p, char *err, size_t errlen)
{
    const ptxjit_kernel *k = ptxjit_kernel_get(m, kernel);
    if (!k)
        fail_msg("no kernel %s", kernel);
    ptxjit_launch_cfg cfg = {{gx, gy, 1}, {block, 1, 1}, 0, p->b, NULL};
    err[0] = 0;
    return ptxjit_launch(test_ctx, k, &cfg, err, errlen);
}

static void run(ptxjit_module *m, const char *kernel, uint32_t gx, uint32_t gy, uint32_t block, const params *p)
{
    char err[512];
    ptxjit_status st = launch(m, kernel, gx, gy, block, p, err, sizeof err);
    if (st != PTXJIT_OK)
        fail_msg("%s: launch failed (%d): %s", kernel, (int)st, err);
}

/* ---- element formats (the inputs are exact in every one) ------------- */

static uint16_t f16_of(float f) /* exact for the inputs here: 3 fraction bits, |f| < 16 */
{
    if (f == 0)
        return 0;
    uint16_t s = f < 0 ? 0x8000 : 0;
    int e;
    float m = frexpf(fabsf(f), &e); /* f = m 2^e, m in [0.5, 1) */
    return (uint16_t)(s | (e + 14) << 10 | (uint16_t)((m * 2 - 1) * 1024));
}

static float f16_val(uint16_t h)
{
    int e = h >> 10 & 31, m = h & 1023;
    float v = e ? ldexpf(1024 + m, e - 25) : ldexpf(m, -24);
    return h & 0x8000 ? -v : v;
}

static uint16_t bf16_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return (uint16_t)(u >> 16); /* exact: the inputs have 7 fraction bits or fewer */
}

/* i-th input of a set: a multiple of 1/8 in [-2, 2). */
static float eighths(unsigned i, unsigned salt) { return (float)((int)((i * 37u + salt * 11u) % 32u) - 16) / 8; }

static void *dev(size_t bytes, int fill)
{
    void *p = ptxjit_mem_alloc(bytes);
    assert_non_null(p);
    memset(p, fill, bytes);
    return p;
}

/* ---- nvcc/clang kernels ------------------------------------------------ */
/* D == A * B (+ C): element (i, j) of a matrix X at x[i * X.row + j * X.col]. */
typedef struct mat {
    const float *x;
    size_t row, col;
} mat;

static void check_product(const char *what, mat d, mat a, mat b, const float *c, unsigned M, unsigned N, unsigned K)
{
    for (unsigned i = 0; i < M; i++)
        for (unsigned j = 0; j < N; j++) {
            float want = c ? c[i * N + j] : 0, got = d.x[i * d.row + j * d.col];
            for (unsigned k = 0; k < K; k++)
                want += a.x[i * a.row + k * a.col] * b.x[k * b.row + j * b.col];
            if (got != want)
                fail_msg("%s: D[%u][%u] = %g, want %g", what, i, j, got, want);
        }
}


/* wmma_f16_f32: D = A * B + C over a 2x3 grid of 16x16 tiles, K = 64. */
static void gemm_f16_f32(const char *file)
{
    enum { M = 32, N = 48, K = 64 };
    ptxjit_module *m = load_corpus(file);
    uint16_t *a = dev(M * K * 2, 0), *b = dev(K * N * 2, 0);
    float *c = dev(M * N * 4, 0), *d = dev(M * N * 4, 0);
    float fa[M * K], fb[K * N];
    for (unsigned i = 0; i < M * K; i++)
        fa[i] = eighths(i, 1), a[i] = f16_of(fa[i]);
    for (unsigned i = 0; i < K * N; i++) /* B col-major: (k, n) at n * K + k */
        fb[i] = eighths(i, 2), b[i] = f16_of(fb[i]);
    for (unsigned i = 0; i < M * N; i++)
        c[i] = eighths(i, 3) * 4;
    params p = {0};
    p_ptr(&p, a), p_ptr(&p, b), p_ptr(&p, c), p_ptr(&p, d), p_i32(&p, M), p_i32(&p, N), p_i32(&p, K);
    run(m, "wmma_f16_f32", N / 16, M / 16, 32, &p);
    check_product(file, (mat){d, N, 1}, (mat){fa, K, 1}, (mat){fb, 1, K}, c, M, N, K); /* B col-major */
    ptxjit_mem_free(a, M * K * 2), ptxjit_mem_free(b, K * N * 2);
    ptxjit_mem_free(c, M * N * 4), ptxjit_mem_free(d, M * N * 4);
    ptxjit_module_unload(m);
}

/* wmma_f16_f16_scaled: one tile, f16 accumulator, D = alpha * (A * B)
 * element by element through the fragment. */
static void scaled_f16(const char *file)
{
    enum { K = 32 };
    ptxjit_module *m = load_corpus(file);
    uint16_t *a = dev(16 * K * 2, 0), *b = dev(K * 16 * 2, 0), *d = dev(16 * 16 * 2, 0);
    float fa[16 * K], fb[K * 16];
    for (unsigned i = 0; i < 16 * K; i++)
        fa[i] = eighths(i, 4), a[i] = f16_of(fa[i]);
    for (unsigned i = 0; i < K * 16; i++)
        fb[i] = eighths(i, 5), b[i] = f16_of(fb[i]);
    params p = {0};
    p_ptr(&p, a), p_ptr(&p, b), p_ptr(&p, d), p_i32(&p, K), p_f32(&p, 0.5f);
    run(m, "wmma_f16_f16_scaled", 1, 1, 32, &p);
    for (unsigned i = 0; i < 16; i++)
        for (unsigned j = 0; j < 16; j++) {
            float want = 0;
            for (unsigned k = 0; k < K; k++)
                want += fa[i * K + k] * fb[k * 16 + j];
            if (f16_val(d[i * 16 + j]) != want / 2)
                fail_msg("%s wmma_f16_f16_scaled: D[%u][%u] = %g, want %g", file, i, j, f16_val(d[i * 16 + j]),
                         want / 2);
        }
    ptxjit_mem_free(a, 16 * K * 2), ptxjit_mem_free(b, K * 16 * 2), ptxjit_mem_free(d, 16 * 16 * 2);
    ptxjit_module_unload(m);
}

/* wmma_s8_s32: exact integer products of the extremes. */
static void s8_s32(const char *file)
{
    ptxjit_module *m = load_corpus(file);
    int8_t *a = dev(256, 0), *b = dev(256, 0);
    int32_t *d = dev(256 * 4, 0);
    for (int i = 0; i < 256; i++)
        a[i] = (int8_t)(i % 3 == 0 ? -128 : i * 7), b[i] = (int8_t)(i % 5 == 0 ? 127 : -i * 3);
    params p = {0};
    p_ptr(&p, a), p_ptr(&p, b), p_ptr(&p, d);
    run(m, "wmma_s8_s32", 1, 1, 32, &p);
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 16; j++) {
            int32_t want = 0;
            for (int k = 0; k < 16; k++) /* B col-major */
                want += a[i * 16 + k] * b[j * 16 + k];
            assert_int_equal(d[i * 16 + j], want);
        }
    ptxjit_mem_free(a, 256), ptxjit_mem_free(b, 256), ptxjit_mem_free(d, 256 * 4);
    ptxjit_module_unload(m);
}

/* wmma_bf16_tf32: a bf16 tile and an m16n16k8 tf32 tile. */
static void bf16_tf32(const char *file)
{
    ptxjit_module *m = load_corpus(file);
    uint16_t *a = dev(512, 0), *b = dev(512, 0);
    float *at = dev(16 * 8 * 4, 0), *bt = dev(8 * 16 * 4, 0), *d1 = dev(1024, 0), *d2 = dev(1024, 0);
    float fa[256], fb[256];
    for (int i = 0; i < 256; i++)
        fa[i] = eighths((unsigned)i, 6), fb[i] = eighths((unsigned)i, 7), a[i] = bf16_of(fa[i]), b[i] = bf16_of(fb[i]);
    for (int i = 0; i < 128; i++)
        at[i] = eighths((unsigned)i, 8), bt[i] = eighths((unsigned)i, 9);
    params p = {0};
    p_ptr(&p, a), p_ptr(&p, b), p_ptr(&p, at), p_ptr(&p, bt), p_ptr(&p, d1), p_ptr(&p, d2);
    run(m, "wmma_bf16_tf32", 1, 1, 32, &p);
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 16; j++) {
            float w1 = 0, w2 = 0;
            for (int k = 0; k < 16; k++)
                w1 += fa[i * 16 + k] * fb[k * 16 + j];
            for (int k = 0; k < 8; k++)
                w2 += at[i * 8 + k] * bt[k * 16 + j];
            if (d1[i * 16 + j] != w1 || d2[i * 16 + j] != w2)
                fail_msg("%s wmma_bf16_tf32: D1[%d][%d] = %g (want %g), D2 = %g (want %g)", file, i, j,
                         d1[i * 16 + j], w1, d2[i * 16 + j], w2);
        }
    ptxjit_mem_free(a, 512), ptxjit_mem_free(b, 512), ptxjit_mem_free(at, 512), ptxjit_mem_free(bt, 512);
    ptxjit_mem_free(d1, 1024), ptxjit_mem_free(d2, 1024);
    ptxjit_module_unload(m);
}

static void test_tensor_core_sm80(void **s)
{
    (void)s;
    gemm_f16_f32("tensor_core.sm_80.ptx");
    scaled_f16("tensor_core.sm_80.ptx");
    s8_s32("tensor_core.sm_80.ptx");
    bf16_tf32("tensor_core.sm_80.ptx");
}

static void test_tensor_core_sm90(void **s)
{
    (void)s;
    gemm_f16_f32("tensor_core.sm_90.ptx");
    scaled_f16("tensor_core.sm_90.ptx");
    s8_s32("tensor_core.sm_90.ptx");
    bf16_tf32("tensor_core.sm_90.ptx");
}

static void test_tensor_core_sm75(void **s)
{
    (void)s;
    gemm_f16_f32("tensor_core.sm_75.ptx");
    scaled_f16("tensor_core.sm_75.ptx");
    s8_s32("tensor_core.sm_75.ptx");
}

static void test_tensor_core_clang_sm80(void **s)
{
    (void)s;
    gemm_f16_f32("tensor_core.clang.sm_80.ptx");
    scaled_f16("tensor_core.clang.sm_80.ptx");
    s8_s32("tensor_core.clang.sm_80.ptx");
    bf16_tf32("tensor_core.clang.sm_80.ptx");
}

/* wmma_bf16_gemm: m32n8k16 tiles over a 2x3 grid, D column-major. */
static void gemm_bf16(const char *file)
{
    enum { M = 64, N = 24, K = 48 };
    ptxjit_module *m = load_corpus(file);
    uint16_t *a = dev(M * K * 2, 0), *b = dev(K * N * 2, 0);
    float *d = dev(M * N * 4, 0), fa[M * K], fb[K * N];
    for (unsigned i = 0; i < M * K; i++)
        fa[i] = eighths(i, 10), a[i] = bf16_of(fa[i]);
    for (unsigned i = 0; i < K * N; i++)
        fb[i] = eighths(i, 11), b[i] = bf16_of(fb[i]);
    params p = {0};
    p_ptr(&p, a), p_ptr(&p, b), p_ptr(&p, d), p_i32(&p, M), p_i32(&p, N), p_i32(&p, K);
    run(m, "wmma_bf16_gemm", N / 8, M / 32, 32, &p);
    check_product(file, (mat){d, 1, M}, (mat){fa, K, 1}, (mat){fb, N, 1}, NULL, M, N, K); /* D col-major */
    ptxjit_mem_free(a, M * K * 2), ptxjit_mem_free(b, K * N * 2), ptxjit_mem_free(d, M * N * 4);
    ptxjit_module_unload(m);
}

/* wmma_f16_gemm_shared: four warps per block, fragments from shared memory. */
static void gemm_shared(const char *file)
{
    enum { M = 64, N = 64, K = 48 };
    ptxjit_module *m = load_corpus(file);
    uint16_t *a = dev(M * K * 2, 0), *b = dev(K * N * 2, 0);
    float *d = dev(M * N * 4, 0), fa[M * K], fb[K * N];
    for (unsigned i = 0; i < M * K; i++) /* A col-major: (m, k) at k * M + m */
        fa[i] = eighths(i, 12), a[i] = f16_of(fa[i]);
    for (unsigned i = 0; i < K * N; i++)
        fb[i] = eighths(i, 13), b[i] = f16_of(fb[i]);
    params p = {0};
    p_ptr(&p, a), p_ptr(&p, b), p_ptr(&p, d), p_i32(&p, M), p_i32(&p, N), p_i32(&p, K);
    run(m, "wmma_f16_gemm_shared", N / 32, M / 32, 128, &p);
    check_product(file, (mat){d, N, 1}, (mat){fa, 1, M}, (mat){fb, N, 1}, NULL, M, N, K); /* A col-major */
    ptxjit_mem_free(a, M * K * 2), ptxjit_mem_free(b, K * N * 2), ptxjit_mem_free(d, M * N * 4);
    ptxjit_module_unload(m);
}

static void test_wmma_gemm_sm80(void **s)
{
    (void)s;
    gemm_bf16("wmma_gemm.sm_80.ptx");
    gemm_shared("wmma_gemm.sm_80.ptx");
}

static void test_wmma_gemm_sm90(void **s)
{
    (void)s;
    gemm_bf16("wmma_gemm.sm_90.ptx");
    gemm_shared("wmma_gemm.sm_90.ptx");
}

static void test_wmma_gemm_sm75(void **s)
{
    (void)s;
    gemm_shared("wmma_gemm.sm_75.ptx");
}

/* ---- hand-written PTX -------------------------------------------------- */

/* C (16x16 f32, row-major, no padding) through shared memory and back:
 * wmma.load.c without a stride (16, the row length), wmma.store.d.shared
 * column-major without a stride, wmma.load.c column-major through a
 * generic address, wmma.store.d to out with a stride of 20.  Each lane
 * also stores its a-fragment registers of A (16x16 f16, row-major), loaded
 * from shared memory with an explicit stride. */
static const char spaces_ptx[] =
    ".version 7.8\n.target sm_80\n.address_size 64\n"
    ".visible .entry spaces(.param .u64 pc, .param .u64 pout, .param .u64 pa, .param .u64 pfrag)\n{\n"
    "    .shared .align 64 .b8 tile[1024];\n    .shared .align 64 .b8 atile[768];\n"
    "    .reg .u64 %rd<8>;\n    .reg .u32 %r<4>;\n    .reg .f32 %f<8>;\n    .reg .b32 %a<8>;\n    .reg .pred %p;\n"
    "    ld.param.u64 %rd1, [pc];\n    ld.param.u64 %rd2, [pout];\n    ld.param.u64 %rd6, [pa];\n"
    "    ld.param.u64 %rd7, [pfrag];\n"
    "    wmma.load.c.sync.aligned.row.m16n16k16.global.f32 {%f0,%f1,%f2,%f3,%f4,%f5,%f6,%f7}, [%rd1];\n"
    "    wmma.store.d.sync.aligned.col.m16n16k16.shared.f32 [tile], {%f0,%f1,%f2,%f3,%f4,%f5,%f6,%f7};\n"
    "    mov.u32 %r1, 0;\n    mov.f32 %f0, 0f00000000;\n    mov.f32 %f7, 0f00000000;\n"
    "    mov.u64 %rd3, tile;\n    cvta.shared.u64 %rd4, %rd3;\n"
    "    wmma.load.c.sync.aligned.col.m16n16k16.f32 {%f0,%f1,%f2,%f3,%f4,%f5,%f6,%f7}, [%rd4];\n"
    "    wmma.store.d.sync.aligned.row.m16n16k16.f32 [%rd2], {%f0,%f1,%f2,%f3,%f4,%f5,%f6,%f7}, 20;\n"
    /* A: copied to shared memory with rows of 24 halves, 4 bytes a thread-step */
    "    mov.u32 %r1, %tid.x;\n"
    "loop:\n    setp.ge.u32 %p, %r1, 128;\n    @%p bra copied;\n"
    "    shr.u32 %r2, %r1, 3;\n    and.b32 %r3, %r1, 7;\n"
    "    mul.wide.u32 %rd5, %r1, 4;\n    add.s64 %rd5, %rd6, %rd5;\n    ld.global.u32 %a0, [%rd5];\n"
    "    mul.lo.u32 %r2, %r2, 48;\n    shl.b32 %r3, %r3, 2;\n    add.u32 %r2, %r2, %r3;\n"
    "    mov.u32 %r3, atile;\n    add.u32 %r2, %r2, %r3;\n"
    "    st.shared.u32 [%r2], %a0;\n    add.u32 %r1, %r1, 32;\n    bra loop;\n"
    "copied:\n    bar.sync 0;\n    mov.u32 %r2, atile;\n"
    "    wmma.load.a.sync.aligned.row.m16n16k16.shared.f16 {%a0,%a1,%a2,%a3,%a4,%a5,%a6,%a7}, [%r2], 24;\n"
    "    mov.u32 %r1, %tid.x;\n    mul.wide.u32 %rd5, %r1, 32;\n    add.s64 %rd7, %rd7, %rd5;\n"
    "    st.global.v4.b32 [%rd7], {%a0,%a1,%a2,%a3};\n    st.global.v4.b32 [%rd7+16], {%a4,%a5,%a6,%a7};\n"
    "    ret;\n}\n";

/* The a fragment of m16n16k16 f16 (the mma.sync m16n8k16 A layout, twice:
 * lane 4g + t holds rows g and g + 8, columns 2t, 2t + 1 and 2t + 8, 2t + 9). */
static void a_frag_position(unsigned lane, unsigned e, unsigned *row, unsigned *col)
{
    unsigned g = lane / 4, t = lane % 4, q = e % 8;
    *row = g + 8 * (q / 2 % 2);
    *col = 2 * t + q % 2 + 8 * (q / 4);
}

static void test_shared_generic_default_stride(void **s)
{
    (void)s;
    ptxjit_module *m = load_text(spaces_ptx, sizeof spaces_ptx - 1, "spaces.ptx");
    float *c = dev(256 * 4, 0), *out = dev(16 * 20 * 4, 0x5a);
    uint16_t *a = dev(512, 0), *frag = dev(32 * 32, 0);
    for (int i = 0; i < 256; i++)
        c[i] = (float)i + 0.5f, a[i] = (uint16_t)(0x3c00 + i);
    params p = {0};
    p_ptr(&p, c), p_ptr(&p, out), p_ptr(&p, a), p_ptr(&p, frag);
    run(m, "spaces", 1, 1, 32, &p);
    for (int r = 0; r < 16; r++)
        for (int col = 0; col < 20; col++) {
            uint32_t got;
            memcpy(&got, &out[r * 20 + col], 4);
            if (col < 16 && out[r * 20 + col] != c[r * 16 + col])
                fail_msg("out[%d][%d] = %g, want %g", r, col, out[r * 20 + col], c[r * 16 + col]);
            if (col >= 16 && got != 0x5a5a5a5au)
                fail_msg("padding out[%d][%d] written: %#x", r, col, got);
        }
    for (unsigned l = 0; l < 32; l++)
        for (unsigned e = 0; e < 16; e++) {
            unsigned row, col;
            a_frag_position(l, e, &row, &col);
            assert_int_equal(frag[l * 16 + e], a[row * 16 + col]);
        }
    ptxjit_mem_free(c, 1024), ptxjit_mem_free(out, 16 * 20 * 4), ptxjit_mem_free(a, 512),
        ptxjit_mem_free(frag, 1024);
    ptxjit_module_unload(m);
}

/* A load from an unmapped address is a contained kernel fault; a guard
 * that leaves no lane makes no access at all (its address is never used). */
static const char fault_ptx[] =
    ".version 7.8\n.target sm_80\n.address_size 64\n"
    ".visible .entry fault(.param .u64 pa, .param .u32 pon)\n{\n"
    "    .reg .u64 %rd<2>;\n    .reg .u32 %r<2>;\n    .reg .pred %p;\n    .reg .b32 %a<8>;\n"
    "    ld.param.u64 %rd1, [pa];\n    ld.param.u32 %r1, [pon];\n    setp.ne.u32 %p, %r1, 0;\n"
    "    @%p wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%a0,%a1,%a2,%a3,%a4,%a5,%a6,%a7}, [%rd1], 16;\n"
    "    @%p wmma.store.d.sync.aligned.row.m16n16k16.global.f16 [%rd1], {%a0,%a1,%a2,%a3}, 16;\n"
    "    ret;\n}\n";

static void test_fault_and_empty_guard(void **s)
{
    (void)s;
    ptxjit_module *m = load_text(fault_ptx, sizeof fault_ptx - 1, "fault.ptx");
    char err[512];
    params p = {0};
    p_ptr(&p, (void *)(uintptr_t)16), p_i32(&p, 0);
    assert_int_equal(launch(m, "fault", 1, 1, 32, &p, err, sizeof err), PTXJIT_OK);
    p = (params){0};
    p_ptr(&p, (void *)(uintptr_t)16), p_i32(&p, 1);
    ptxjit_status st = launch(m, "fault", 1, 1, 32, &p, err, sizeof err);
    if (st != PTXJIT_ERR_FAULT || !strstr(err, "fault"))
        fail_msg("wmma.load from address 16: status %d (%s), want PTXJIT_ERR_FAULT", (int)st, err);
    ptxjit_module_unload(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tensor_core_sm80),   cmocka_unit_test(test_tensor_core_sm90),
        cmocka_unit_test(test_tensor_core_sm75),   cmocka_unit_test(test_tensor_core_clang_sm80),
        cmocka_unit_test(test_wmma_gemm_sm80),     cmocka_unit_test(test_wmma_gemm_sm90),
        cmocka_unit_test(test_wmma_gemm_sm75),     cmocka_unit_test(test_shared_generic_default_stride),
        cmocka_unit_test(test_fault_and_empty_guard),
    };
    return cmocka_run_group_tests(tests, test_ctx_setup, test_ctx_teardown);
}
