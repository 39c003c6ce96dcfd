/* test_tensor_f64.c - f64 tensor-core products in every rounding mode:
 * mma.sync m8n8k4, m16n8k4, m16n8k8, m16n8k16 and wmma.mma m8n8k4 (every
 * layout of A, B and C/D), without a mode and with .rn/.rz/.rm/.rp.
 *
 * The reference is the ISA's: D[m][n] is a chain of fused multiply-adds in
 * k order starting from C[m][n], each rounded in the instruction's mode,
 * computed here with C's fma() under fesetround (this file is built with
 * -frounding-math).  mma operands go through the ISA's per-lane fragment
 * tables ("Matrix fragments for mma.m8n8k4 / mma.m16n8k* with .f64"); wmma
 * operands through memory, so its layouts show too.  Rows of A and C mix
 * inputs where the modes part: full-precision values, cancellation, exact
 * zero sums (-0 under .rm), sums beyond DBL_MAX, subnormal results, and C
 * far above the products.  Comparisons are bit for bit. */
#include <fenv.h>
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ptxjit/ptxjit.h"
#include "test_ctx.h"
#include "test_util.h"


enum { NMODES = 5 };
static const char *const MODE_TEXT[NMODES] = {"", ".rn", ".rz", ".rm", ".rp"};
static const int MODE_FE[NMODES] = {FE_TONEAREST, FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};

/* ---- inputs ----------------------------------------------------------- */

static uint64_t rng_state;

static uint64_t rng(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A full-precision value in (-1, 1). */
static double full(void) { return (double)(int64_t)(rng() >> 11) / (double)(1ull << 52) * 2.0 - 1.0; }

/* A (MxK), B (KxN) and C (MxN), row-major; row m of A and C is of kind
 * m % 6.  B is full precision, so every product has ~106 bits. */
static void make_inputs(unsigned M, unsigned N, unsigned K, double *a, double *b, double *c)
{
    for (unsigned i = 0; i < K * N; i++)
        b[i] = full();
    for (unsigned m = 0; m < M; m++)
        for (unsigned n = 0; n < N; n++)
            for (unsigned k = 0; k <= K; k++) { /* k == K: C */
                double *x = k < K ? &a[m * K + k] : &c[m * N + n];
                if (k < K && n) /* A's row is written once, at n == 0 */
                    continue;
                switch (m % 6) {
                case 0: /* plain */
                    *x = full();
                    break;
                case 1: /* C cancels the first product; small terms after it */
                    *x = k == K ? -(a[m * K] * b[n]) : k ? ldexp(full(), -30) : full();
                    break;
                case 2: /* exact zero sums: 1 * b - b, then signed-zero products */
                    *x = k == K ? -b[n] : k == 0 ? 1.0 : k % 2 ? 0.0 : -0.0;
                    break;
                case 3: /* near DBL_MAX: the first step overflows where signs agree */
                    *x = k == K ? (rng() & 1 ? 0.75 : -0.75) * DBL_MAX : k ? full() : 0.75 * DBL_MAX;
                    break;
                case 4: /* subnormal products and sums */
                    *x = ldexp(full(), k == K ? -1070 : -1040);
                    break;
                default: /* C far above the products */
                    *x = k == K ? ldexp(full(), 260) : full();
                    break;
                }
            }
}

/* D = A * B + C as the ISA's chain of fused multiply-adds, rounded per fe. */
static __attribute__((noinline)) void reference(unsigned M, unsigned N, unsigned K, const double *a, const double *b,
                                                const double *c, int fe, double *d)
{
    assert_int_equal(fesetround(fe), 0);
    for (unsigned m = 0; m < M; m++)
        for (unsigned n = 0; n < N; n++) {
            double acc = c[m * N + n];
            for (unsigned k = 0; k < K; k++)
                acc = fma(a[m * K + k], b[k * N + n], acc);
            d[m * N + n] = acc;
        }
    fesetround(FE_TONEAREST);
}

static uint64_t bits_of(double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}

/* Compares D with the reference bit for bit; returns how many elements of
 * the reference differ from the round-to-nearest one (rn_ref). */
static unsigned compare(const char *what, unsigned M, unsigned N, const double *got, const double *want,
                        const double *rn_ref)
{
    unsigned parted = 0;
    for (unsigned i = 0; i < M * N; i++) {
        if (bits_of(got[i]) != bits_of(want[i]))
            fail_msg("%s: D[%u][%u] = %a (0x%016llx), want %a (0x%016llx)", what, i / N, i % N, got[i],
                     (unsigned long long)bits_of(got[i]), want[i], (unsigned long long)bits_of(want[i]));
        parted += bits_of(want[i]) != bits_of(rn_ref[i]);
    }
    return parted;
}

/* ---- kernels ----------------------------------------------------------- */

typedef struct text {
    char s[1 << 16];
    size_t n;
} text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(t->s + t->n, sizeof t->s - t->n, fmt, ap);
    va_end(ap);
    assert_true(len >= 0 && (size_t)len < sizeof t->s - t->n);
    t->n += (size_t)len;
}

static void reg_list(text *t, char c, unsigned n)
{
    put(t, "{");
    for (unsigned r = 0; r < n; r++)
        put(t, "%s%%%c%u", r ? ", " : "", c, r);
    put(t, "}");
}

static ptxjit_module *load(const text *t, const char *name)
{
    char *log = NULL;
    ptxjit_module *m = ptxjit_load(test_ctx, t->s, t->n, name, &log, NULL);
    if (!m)
        fail_msg("%s did not load:\n%s", name, log ? log : "");
    free(log);
    return m;
}

static void launch(ptxjit_module *m, const char *kernel, void *const *ptrs, unsigned nptrs)
{
    const ptxjit_kernel *k = ptxjit_kernel_get(m, kernel);
    if (!k)
        fail_msg("no kernel %s", kernel);
    uint8_t params[64];
    memcpy(params, ptrs, nptrs * sizeof *ptrs);
    ptxjit_launch_cfg cfg = {{1, 1, 1}, {32, 1, 1}, 0, params, NULL};
    char err[512] = "";
    if (ptxjit_launch(test_ctx, k, &cfg, err, sizeof err) != PTXJIT_OK)
        fail_msg("%s: launch failed: %s", kernel, err);
}

static void *dev(size_t bytes)
{
    void *p = ptxjit_mem_alloc(bytes);
    assert_non_null(p);
    memset(p, 0xa5, bytes);
    return p;
}

/* ---- mma.sync ----------------------------------------------------------- */

static const unsigned MMA_SHAPES[4][3] = {{8, 8, 4}, {16, 8, 4}, {16, 8, 8}, {16, 8, 16}};

/* The ISA's .f64 fragments, g = lane / 4, t = lane % 4: register r of A
 * holds row g (+ 8 for odd r with M = 16), column t + 4 * (r / 2); of B row
 * t + 4r, column g; element i of C and D row g + 8 * (i / 2), column
 * 2t + i % 2. */
static void a_pos(unsigned M, unsigned lane, unsigned r, unsigned *row, unsigned *col)
{
    *row = lane / 4 + (M == 16 ? 8 * (r & 1) : 0);
    *col = lane % 4 + 4 * (M == 16 ? r / 2 : 0);
}
static void b_pos(unsigned lane, unsigned r, unsigned *row, unsigned *col) { *row = lane % 4 + 4 * r, *col = lane / 4; }
static void cd_pos(unsigned lane, unsigned i, unsigned *row, unsigned *col)
{
    *row = lane / 4 + 8 * (i / 2), *col = 2 * (lane % 4) + i % 2;
}

/* One kernel per shape and mode: each lane loads its A, B, C registers
 * (slots of 8 bytes, lane after lane), runs the mma and stores D's. */
static void mma_module(text *t)
{
    put(t, ".version 7.8\n.target sm_90\n.address_size 64\n");
    for (unsigned s = 0; s < 4; s++)
        for (unsigned md = 0; md < NMODES; md++) {
            unsigned M = MMA_SHAPES[s][0], K = MMA_SHAPES[s][2];
            unsigned na = M * K / 32, nb = K / 4, nc = M * 8 / 32, slots = na + nb + nc;
            put(t, ".visible .entry mma_%u_%u(.param .u64 pin, .param .u64 pout)\n{\n", s, md);
            put(t, "\t.reg .u64 %%in, %%out, %%off;\n\t.reg .u32 %%lane;\n");
            put(t, "\t.reg .f64 %%a<%u>, %%b<%u>, %%c<%u>, %%d<%u>;\n", na, nb, nc, nc);
            put(t, "\tld.param.u64 %%in, [pin];\n\tld.param.u64 %%out, [pout];\n\tmov.u32 %%lane, %%tid.x;\n");
            put(t, "\tmul.wide.u32 %%off, %%lane, %u;\n\tadd.s64 %%in, %%in, %%off;\n", slots * 8);
            put(t, "\tmul.wide.u32 %%off, %%lane, %u;\n\tadd.s64 %%out, %%out, %%off;\n", nc * 8);
            const char regs[3] = {'a', 'b', 'c'};
            const unsigned count[3] = {na, nb, nc};
            for (unsigned w = 0, slot = 0; w < 3; w++)
                for (unsigned r = 0; r < count[w]; r++, slot++)
                    put(t, "\tld.global.f64 %%%c%u, [%%in+%u];\n", regs[w], r, slot * 8);
            put(t, "\tmma.sync.aligned.m%un8k%u.row.col%s.f64.f64.f64.f64 ", M, K, MODE_TEXT[md]);
            reg_list(t, 'd', nc), put(t, ", "), reg_list(t, 'a', na), put(t, ", "), reg_list(t, 'b', nb);
            put(t, ", "), reg_list(t, 'c', nc), put(t, ";\n");
            for (unsigned r = 0; r < nc; r++)
                put(t, "\tst.global.f64 [%%out+%u], %%d%u;\n", r * 8, r);
            put(t, "\tret;\n}\n");
        }
}

static void test_mma_f64_rounding(void **state)
{
    (void)state;
    static text t;
    t.n = 0;
    mma_module(&t);
    ptxjit_module *mod = load(&t, "mma_f64.ptx");
    for (unsigned s = 0; s < 4; s++) {
        unsigned M = MMA_SHAPES[s][0], N = 8, K = MMA_SHAPES[s][2];
        unsigned na = M * K / 32, nb = K / 4, nc = M * N / 32, slots = na + nb + nc;
        double a[16 * 16], b[16 * 8], c[16 * 8], want[16 * 8], rn_ref[16 * 8], got[16 * 8];
        rng_state = 0x6d6d6166ull + s;
        make_inputs(M, N, K, a, b, c);
        double *in = dev(32 * slots * 8), *out = dev(32 * nc * 8);
        for (unsigned lane = 0; lane < 32; lane++) {
            double *x = in + lane * slots;
            unsigned row, col;
            for (unsigned r = 0; r < na; r++)
                a_pos(M, lane, r, &row, &col), x[r] = a[row * K + col];
            for (unsigned r = 0; r < nb; r++)
                b_pos(lane, r, &row, &col), x[na + r] = b[row * N + col];
            for (unsigned i = 0; i < nc; i++)
                cd_pos(lane, i, &row, &col), x[na + nb + i] = c[row * N + col];
        }
        reference(M, N, K, a, b, c, FE_TONEAREST, rn_ref);
        for (unsigned md = 0; md < NMODES; md++) {
            char kernel[32], what[96];
            snprintf(kernel, sizeof kernel, "mma_%u_%u", s, md);
            snprintf(what, sizeof what, "mma.sync.m%un8k%u%s.f64", M, K, MODE_TEXT[md]);
            void *ptrs[2] = {in, out};
            launch(mod, kernel, ptrs, 2);
            for (unsigned lane = 0; lane < 32; lane++)
                for (unsigned i = 0; i < nc; i++) {
                    unsigned row, col;
                    cd_pos(lane, i, &row, &col);
                    got[row * N + col] = out[lane * nc + i];
                }
            reference(M, N, K, a, b, c, MODE_FE[md], want);
            unsigned parted = compare(what, M, N, got, want, rn_ref);
            if (MODE_FE[md] != FE_TONEAREST && parted < M) /* the inputs must tell the modes apart */
                fail_msg("%s: only %u elements differ from round to nearest", what, parted);
        }
        ptxjit_mem_free(in, 32 * slots * 8), ptxjit_mem_free(out, 32 * nc * 8);
    }
    ptxjit_module_unload(mod);
}

/* ---- wmma.mma m8n8k4 --------------------------------------------------- */

/* Leading dimensions, in elements, of a row- or column-major matrix of
 * rows x cols: padded by 2 (16 bytes, as wmma needs). */
static unsigned ld_of(unsigned rows, unsigned cols, int col_major) { return (col_major ? rows : cols) + 2; }

/* One kernel per layout of A, B, C/D and mode: A, B, C loaded, D stored
 * in C's layout. */
static void wmma_module(text *t)
{
    static const char *const lay[2] = {"row", "col"};
    put(t, ".version 7.8\n.target sm_80\n.address_size 64\n");
    for (unsigned l = 0; l < 8; l++)
        for (unsigned md = 0; md < NMODES; md++) {
            int ac = l & 1, bc = l >> 1 & 1, cc = l >> 2;
            put(t, ".visible .entry wmma_%u_%u(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)\n{\n",
                l, md);
            put(t, "\t.reg .u64 %%pa, %%pb, %%pc, %%pd;\n\t.reg .f64 %%a0, %%b0, %%c<2>, %%d<2>;\n");
            put(t, "\tld.param.u64 %%pa, [pa];\n\tld.param.u64 %%pb, [pb];\n\tld.param.u64 %%pc, [pc];\n");
            put(t, "\tld.param.u64 %%pd, [pd];\n");
            put(t, "\twmma.load.a.sync.aligned.%s.m8n8k4.global.f64 {%%a0}, [%%pa], %u;\n", lay[ac], ld_of(8, 4, ac));
            put(t, "\twmma.load.b.sync.aligned.%s.m8n8k4.global.f64 {%%b0}, [%%pb], %u;\n", lay[bc], ld_of(4, 8, bc));
            put(t, "\twmma.load.c.sync.aligned.%s.m8n8k4.global.f64 {%%c0, %%c1}, [%%pc], %u;\n", lay[cc],
                ld_of(8, 8, cc));
            put(t, "\twmma.mma.sync.aligned.%s.%s.m8n8k4%s.f64.f64.f64.f64 {%%d0, %%d1}, {%%a0}, {%%b0}, {%%c0, %%c1};\n",
                lay[ac], lay[bc], MODE_TEXT[md]);
            put(t, "\twmma.store.d.sync.aligned.%s.m8n8k4.global.f64 [%%pd], {%%d0, %%d1}, %u;\n\tret;\n}\n", lay[cc],
                ld_of(8, 8, cc));
        }
}

/* x (rows x cols, row-major) into memory at ld elements per row or column. */
static void store_matrix(double *mem, const double *x, unsigned rows, unsigned cols, int col_major)
{
    unsigned ld = ld_of(rows, cols, col_major);
    for (unsigned i = 0; i < rows; i++)
        for (unsigned j = 0; j < cols; j++)
            mem[col_major ? j * ld + i : i * ld + j] = x[i * cols + j];
}

static void test_wmma_f64_rounding(void **state)
{
    (void)state;
    static text t;
    t.n = 0;
    wmma_module(&t);
    ptxjit_module *mod = load(&t, "wmma_f64.ptx");
    enum { M = 8, N = 8, K = 4, BYTES = 8 * 10 * 8 };
    for (unsigned l = 0; l < 8; l++) {
        int ac = l & 1, bc = l >> 1 & 1, cc = l >> 2;
        double a[M * K], b[K * N], c[M * N], want[M * N], rn_ref[M * N], got[M * N];
        rng_state = 0x776d6d61ull + l;
        make_inputs(M, N, K, a, b, c);
        double *pa = dev(BYTES), *pb = dev(BYTES), *pc = dev(BYTES), *pd = dev(BYTES);
        store_matrix(pa, a, M, K, ac), store_matrix(pb, b, K, N, bc), store_matrix(pc, c, M, N, cc);
        reference(M, N, K, a, b, c, FE_TONEAREST, rn_ref);
        for (unsigned md = 0; md < NMODES; md++) {
            char kernel[32], what[96];
            snprintf(kernel, sizeof kernel, "wmma_%u_%u", l, md);
            snprintf(what, sizeof what, "wmma.mma.%s.%s.m8n8k4%s.f64 (C, D %s)", ac ? "col" : "row",
                     bc ? "col" : "row", MODE_TEXT[md], cc ? "col" : "row");
            void *ptrs[4] = {pa, pb, pc, pd};
            launch(mod, kernel, ptrs, 4);
            unsigned ld = ld_of(M, N, cc);
            for (unsigned i = 0; i < M; i++)
                for (unsigned j = 0; j < N; j++)
                    got[i * N + j] = pd[cc ? j * ld + i : i * ld + j];
            reference(M, N, K, a, b, c, MODE_FE[md], want);
            unsigned parted = compare(what, M, N, got, want, rn_ref);
            if (MODE_FE[md] != FE_TONEAREST && parted < M)
                fail_msg("%s: only %u elements differ from round to nearest", what, parted);
        }
        ptxjit_mem_free(pa, BYTES), ptxjit_mem_free(pb, BYTES), ptxjit_mem_free(pc, BYTES);
        ptxjit_mem_free(pd, BYTES);
    }
    ptxjit_module_unload(mod);
}

/* The reference needs a libm whose fma honours the rounding mode (glibc's
 * does); elsewhere the test is skipped (exit 77). */
static bool fma_rounds_per_mode(void)
{
    volatile double one = 1.0, tiny = 0x1p-80;
    fesetround(FE_UPWARD);
    double up = fma(one, one, tiny);
    fesetround(FE_TONEAREST);
    return up > 1.0;
}

int main(void)
{
    if (!fma_rounds_per_mode()) {
        printf("skipped: this libm's fma() ignores the rounding mode\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mma_f64_rounding),
        cmocka_unit_test(test_wmma_f64_rounding),
    };
    return cmocka_run_group_tests(tests, test_ctx_setup, test_ctx_teardown);
}
