/* tensor_gpu.c - tensor-core probes: every mma.sync shape and type pair
 * ptxas takes for sm_90, ldmatrix, stmatrix, movmatrix and the wmma family,
 * run through the CUDA driver API on fixed inputs, outputs recorded on a
 * real GPU and compared on ptxjit.
 *
 *   tensor_gpu record FILE   run every probe, write the outputs to FILE
 *   tensor_gpu check FILE [PREFIX...]
 *                            run the probes (those whose instruction starts
 *                            with a PREFIX, e.g. "mma" "ldmatrix"), compare
 *                            with FILE; TENSOR_GPU_VERBOSE=1 names each.
 *                            Probes FILE has no recording of (added since)
 *                            are listed as not recorded, not failed
 *   tensor_gpu ptx DIR       write the probe modules (to check with ptxas)
 *
 * A probe is one kernel of one warp.  mma and movmatrix kernels load each
 * lane's fragment registers from an input array and store the result
 * registers; ldmatrix and stmatrix go through a shared-memory tile with
 * rows at permuted addresses; wmma kernels load A, B and C from padded
 * matrices in memory, store the raw fragment registers of all four
 * operands, and store D.  Fragment layouts are therefore what the GPU
 * shows a program reading registers one by one.
 *
 * Every probe runs on four input sets: "exact" (small integers: any
 * accumulation order gives the same bits), "tags" (distinct element values,
 * so a misplaced element changes the output), "random" (full-precision
 * values: the GPU's own products and roundings) and "special" (NaN, inf,
 * -0, subnormals; integer extremes).  Outputs are keyed by a hash of the
 * kernel's text and its inputs, so a changed probe is reported stale.
 *
 * Plain C and the driver API only: it builds against NVIDIA's cuda.h and
 * -lcuda on a GPU machine, and against ptxjit's header and libcuda.so.1. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef PTXJIT_TEST_NVIDIA_HEADER
#include <cuda.h>
#else
#include "ptxjit/cuda_driver.h"
#endif

/* ---- element types ---------------------------------------------------- */

typedef enum elem { F16, BF16, TF32, F32, F64, S8, U8, S4, U4, B1, E4M3, E5M2, S32, B16 } elem;

static const struct {
    const char *name;
    unsigned bits;
    int is_float;
} ELEM[] = {
    [F16] = {"f16", 16, 1},  [BF16] = {"bf16", 16, 1}, [TF32] = {"tf32", 32, 1}, [F32] = {"f32", 32, 1},
    [F64] = {"f64", 64, 1},  [S8] = {"s8", 8, 0},      [U8] = {"u8", 8, 0},      [S4] = {"s4", 4, 0},
    [U4] = {"u4", 4, 0},     [B1] = {"b1", 1, 0},      [E4M3] = {"e4m3", 8, 1},  [E5M2] = {"e5m2", 8, 1},
    [S32] = {"s32", 32, 0},  [B16] = {"b16", 16, 0},
};

enum { SET_EXACT, SET_TAGS, SET_RANDOM, SET_SPECIAL, NSETS };
static const char *const SET_NAME[NSETS] = {"exact", "tags", "random", "special"};

static uint64_t rng_state;

static uint64_t rng(void)
{
    /* splitmix64: fixed, portable, and the same on both machines */
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* Round-to-nearest-even of an f32 to a narrower float format with E
 * exponent and M mantissa bits (values here are in range: no overflow
 * handling beyond the format's infinity). */
static uint32_t narrow_float(float f, unsigned E, unsigned M)
{
    uint32_t u = f32_bits(f), sign = u >> 31;
    int bias = (1 << (E - 1)) - 1;
    if (f == 0)
        return sign << (E + M);
    double a = fabs((double)f);
    int e;
    double m = frexp(a, &e); /* a = m * 2^e, m in [0.5, 1) */
    int exp = e - 1 + bias;
    double scaled;
    if (exp <= 0) /* subnormal */
        scaled = ldexp(a, bias - 1 + (int)M);
    else
        scaled = ldexp(m * 2 - 1, (int)M);
    double r = nearbyint(scaled);
    uint32_t mant = (uint32_t)r;
    if (exp <= 0)
        return sign << (E + M) | mant; /* may carry into the exponent: still right */
    if (mant >> M) {
        mant = 0;
        exp++;
    }
    return sign << (E + M) | (uint32_t)exp << M | mant;
}

static uint64_t float_elem(elem t, double v)
{
    switch (t) {
    case F16:
        return narrow_float((float)v, 5, 10);
    case BF16:
        return narrow_float((float)v, 8, 7);
    case E4M3:
        return narrow_float((float)v, 4, 3);
    case E5M2:
        return narrow_float((float)v, 5, 2);
    case TF32: /* full f32 bits: what the GPU does with the low 13 shows */
    case F32:
        return f32_bits((float)v);
    case F64: {
        uint64_t u;
        memcpy(&u, &v, 8);
        return u;
    }
    default:
        return 0;
    }
}

static uint64_t special_float(elem t)
{
    unsigned E = t == F16 ? 5 : t == BF16 ? 8 : t == E4M3 ? 4 : t == E5M2 ? 5 : t == F64 ? 11 : 8;
    unsigned M = t == F16 ? 10 : t == BF16 ? 7 : t == E4M3 ? 3 : t == E5M2 ? 2 : t == F64 ? 52 : 23;
    uint64_t sign = (uint64_t)1 << (E + M), expmask = (((uint64_t)1 << E) - 1) << M;
    switch (rng() % 8) {
    case 0: /* NaN (e4m3: the one NaN pattern, all ones) */
        return t == E4M3 ? 0x7f : expmask | (uint64_t)1 << (M - 1);
    case 1: /* infinity (e4m3 has none: its largest finite value) */
        return t == E4M3 ? 0x7e : expmask | (rng() & 1 ? sign : 0);
    case 2:
        return sign; /* -0 */
    case 3:
        return 1 | (rng() & 1 ? sign : 0); /* smallest subnormal */
    default:
        return float_elem(t, (double)((int)(rng() % 9) - 4));
    }
}

/* Element index i of an operand in input set `set`. */
static uint64_t gen_elem(elem t, int set, unsigned i, int is_acc)
{
    unsigned bits = ELEM[t].bits;
    uint64_t mask = bits == 64 ? ~0ull : ((uint64_t)1 << bits) - 1;
    if (!ELEM[t].is_float) {
        if (set == SET_TAGS && bits >= 8)
            return (i * 0x9e3779b1u) & mask; /* distinct over 2^bits elements */
        if (set == SET_SPECIAL) {
            static const int32_t ext[] = {INT32_MIN, INT32_MAX, INT32_MAX - 1, INT32_MIN + 1, -1, 0, 1};
            if (is_acc)
                return (uint32_t)ext[rng() % 7];
            uint64_t top = (uint64_t)1 << (bits - 1);
            return (rng() & 1 ? top : top - 1) & mask; /* most negative / most positive */
        }
        return rng() & mask;
    }
    switch (set) {
    case SET_EXACT:
        return float_elem(t, is_acc ? (double)((int)(rng() % 129) - 64) : (double)((int)(rng() % 9) - 4));
    case SET_TAGS:
        if (t == E4M3 || t == E5M2)
            return float_elem(t, (double)((int)(i % 15) - 7));
        if (t == F16 || t == BF16)
            return float_elem(t, ((int)(i % 256) - 128) / 64.0);
        return float_elem(t, ((int)(i % 1024) - 512) / 256.0);
    case SET_RANDOM:
        return float_elem(t, (double)(int64_t)(rng() >> 11) / (double)(1ull << 52) * 2.0 - 1.0);
    default:
        return special_float(t);
    }
}

/* ---- probes ------------------------------------------------------------ */

typedef enum family { MMA, WMMA, LDMATRIX, STMATRIX, MOVMATRIX } family;

/* One operand: its element type and how many registers each lane holds. */
typedef struct operand {
    elem t;
    unsigned nregs, regbits; /* 32 or 64 */
} operand;

typedef struct probe {
    family fam;
    char name[160];    /* the instruction, as written in the kernel */
    char loads[3][96]; /* wmma: the load instructions of A, B, C */
    char store[96];    /* wmma: the store of D */
    operand op[4];     /* A, B, C, D (ldmatrix: D only; stmatrix, movmatrix: A) */
    unsigned rows[3], cols[3], col_major[3], stride[3]; /* wmma matrices A, B, C/D */
    unsigned x;        /* ldmatrix/stmatrix: matrices (1, 2, 4) */
    unsigned version;  /* PTX ISA version * 10 */
} probe;

static probe *probes;
static size_t nprobes, capprobes;

static probe *add_probe(family fam, unsigned version)
{
    if (nprobes == capprobes) {
        capprobes = capprobes ? 2 * capprobes : 256;
        probes = realloc(probes, capprobes * sizeof *probes);
        if (!probes)
            abort();
    }
    probe *p = &probes[nprobes++];
    memset(p, 0, sizeof *p);
    p->fam = fam;
    p->version = version;
    return p;
}

static operand opnd(elem t, unsigned elements_per_lane)
{
    operand o = {t, 0, t == F64 ? 64 : 32};
    unsigned bits = elements_per_lane * ELEM[t].bits;
    o.nregs = (bits + o.regbits - 1) / o.regbits;
    return o;
}

/* mma.sync: A is MxK, B KxN, C and D MxN, spread over 32 lanes (m8n8k4
 * with f16 inputs: over the 8 lanes of each quad-pair). */
static void add_mma(unsigned m, unsigned n, unsigned k, const char *layout, elem dt, elem at, elem bt, elem ct,
                    const char *mods, const char *tail, unsigned version)
{
    probe *p = add_probe(MMA, version);
    unsigned lanes = m == 8 && n == 8 && k == 4 && at == F16 ? 8 : 32;
    snprintf(p->name, sizeof p->name, "mma.sync.aligned.m%un%uk%u.%s%s.%s.%s.%s.%s%s", m, n, k, layout, mods,
             ELEM[dt].name, ELEM[at].name, ELEM[bt].name, ELEM[ct].name, tail);
    p->op[0] = opnd(at, m * k / lanes);
    p->op[1] = opnd(bt, k * n / lanes);
    p->op[2] = opnd(ct, m * n / lanes);
    p->op[3] = opnd(dt, m * n / lanes);
}

static void add_wmma(unsigned m, unsigned n, unsigned k, int acol, int bcol, int ccol, elem dt, elem at, elem bt,
                     elem ct, const char *mma_mods, unsigned version);

/* f64 products with each rounding mode written out: mma.sync on every f64
 * shape, or wmma.mma m8n8k4 in every layout of A, B and C/D. */
static void f64_rounding_probes(int wmma)
{
    static const char *const rnd[] = {".rn", ".rz", ".rm", ".rp"};
    static const unsigned shapes[4][3] = {{8, 8, 4}, {16, 8, 4}, {16, 8, 8}, {16, 8, 16}};
    for (int r = 0; r < 4; r++)
        for (int i = 0; i < (wmma ? 8 : 4); i++) {
            if (wmma)
                add_wmma(8, 8, 4, i & 1, i >> 1 & 1, i >> 2, F64, F64, F64, F64, rnd[r], 78);
            else
                add_mma(shapes[i][0], shapes[i][1], shapes[i][2], "row.col", F64, F64, F64, F64, rnd[r], "", 78);
        }
}

static void mma_probes(void)
{
    static const char *const lay[] = {"row.col", "row.row", "col.col", "col.row"};
    static const elem fp[] = {F16, F32};
    for (int l = 0; l < 4; l++) /* an f32 C makes an f32 D */
        for (int d = 0; d < 2; d++)
            for (int c = 0; c <= d; c++)
                add_mma(8, 8, 4, lay[l], fp[d], F16, F16, fp[c], "", "", 78);
    for (int kk = 8; kk <= 16; kk += 8)
        for (int d = 0; d < 2; d++)
            add_mma(16, 8, kk, "row.col", fp[d], F16, F16, fp[d], "", "", 78);
    add_mma(16, 8, 8, "row.col", F32, BF16, BF16, F32, "", "", 78);
    add_mma(16, 8, 16, "row.col", F32, BF16, BF16, F32, "", "", 78);
    add_mma(16, 8, 4, "row.col", F32, TF32, TF32, F32, "", "", 78);
    add_mma(16, 8, 8, "row.col", F32, TF32, TF32, F32, "", "", 78);
    add_mma(8, 8, 4, "row.col", F64, F64, F64, F64, "", "", 78);
    add_mma(16, 8, 4, "row.col", F64, F64, F64, F64, "", "", 78);
    add_mma(16, 8, 8, "row.col", F64, F64, F64, F64, "", "", 78);
    add_mma(16, 8, 16, "row.col", F64, F64, F64, F64, "", "", 78);
    static const elem i8[] = {S8, U8}, i4[] = {S4, U4}, f8[] = {E4M3, E5M2};
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++)
            for (int sat = 0; sat < 2; sat++) {
                const char *s = sat ? ".satfinite" : "";
                add_mma(8, 8, 16, "row.col", S32, i8[a], i8[b], S32, s, "", 78);
                add_mma(16, 8, 16, "row.col", S32, i8[a], i8[b], S32, s, "", 78);
                add_mma(16, 8, 32, "row.col", S32, i8[a], i8[b], S32, s, "", 78);
                add_mma(8, 8, 32, "row.col", S32, i4[a], i4[b], S32, s, "", 78);
                add_mma(16, 8, 32, "row.col", S32, i4[a], i4[b], S32, s, "", 78);
                add_mma(16, 8, 64, "row.col", S32, i4[a], i4[b], S32, s, "", 78);
            }
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++)
            for (int d = 0; d < 2; d++) {
                add_mma(16, 8, 32, "row.col", fp[d], f8[a], f8[b], fp[d], "", "", d ? 84 : 87);
                add_mma(16, 8, 16, "row.col", fp[d], f8[a], f8[b], fp[d], "", "", 87);
            }
    static const char *const bop[] = {".xor.popc", ".and.popc"};
    for (int o = 0; o < 2; o++) {
        add_mma(8, 8, 128, "row.col", S32, B1, B1, S32, "", bop[o], 78);
        add_mma(16, 8, 128, "row.col", S32, B1, B1, S32, "", bop[o], 78);
        add_mma(16, 8, 256, "row.col", S32, B1, B1, S32, "", bop[o], 78);
    }
    f64_rounding_probes(0);
}

static void matrix_probes(void)
{
    for (unsigned x = 1; x <= 4; x *= 2)
        for (int trans = 0; trans < 2; trans++) {
            probe *p = add_probe(LDMATRIX, 78);
            snprintf(p->name, sizeof p->name, "ldmatrix.sync.aligned.m8n8.x%u%s.shared.b16", x, trans ? ".trans" : "");
            p->x = x;
            p->op[3] = (operand){B16, x, 32};
            p = add_probe(STMATRIX, 78);
            snprintf(p->name, sizeof p->name, "stmatrix.sync.aligned.m8n8.x%u%s.shared.b16", x, trans ? ".trans" : "");
            p->x = x;
            p->op[0] = (operand){B16, x, 32};
        }
    probe *p = add_probe(MOVMATRIX, 78);
    snprintf(p->name, sizeof p->name, "movmatrix.sync.aligned.m8n8.trans.b16");
    p->op[0] = (operand){B16, 1, 32};
    p->op[3] = (operand){B16, 1, 32};
}

/* Padding of a wmma matrix's leading dimension, in elements: a multiple of
 * 16 bytes (128 bits for b1), so that rows stay aligned. */
static unsigned wmma_pad(elem t)
{
    return ELEM[t].bits >= 8 ? 16 : 128 / ELEM[t].bits;
}

static void wmma_matrix(probe *p, int which, unsigned rows, unsigned cols, int col_major, elem t)
{
    p->rows[which] = rows;
    p->cols[which] = cols;
    p->col_major[which] = (unsigned)col_major;
    p->stride[which] = (col_major ? rows : cols) + wmma_pad(t);
}

/* wmma: A is MxK, B KxN, C and D MxN; d and c are the accumulator types,
 * a and b the inputs'. */
static void add_wmma(unsigned m, unsigned n, unsigned k, int acol, int bcol, int ccol, elem dt, elem at, elem bt,
                     elem ct, const char *mma_mods, unsigned version)
{
    probe *p = add_probe(WMMA, version);
    const char *al = acol ? "col" : "row", *bl = bcol ? "col" : "row", *cl = ccol ? "col" : "row";
    char shape[16];
    snprintf(shape, sizeof shape, "m%un%uk%u", m, n, k);
    if (at == F16)
        snprintf(p->name, sizeof p->name, "wmma.mma.sync.aligned.%s.%s.%s.%s.%s", al, bl, shape, ELEM[dt].name,
                 ELEM[ct].name);
    else if (at == F64 && *mma_mods) /* a rounding mode: after the shape */
        snprintf(p->name, sizeof p->name, "wmma.mma.sync.aligned.%s.%s.%s%s.f64.f64.f64.f64", al, bl, shape,
                 mma_mods);
    else if (at == B1)
        snprintf(p->name, sizeof p->name, "wmma.mma%s.sync.aligned.%s.%s.%s.s32.b1.b1.s32", mma_mods, al, bl,
                 shape);
    else
        snprintf(p->name, sizeof p->name, "wmma.mma.sync.aligned.%s.%s.%s.%s.%s.%s.%s%s", al, bl, shape,
                 ELEM[dt].name, ELEM[at].name, ELEM[bt].name, ELEM[ct].name, mma_mods);
    snprintf(p->loads[0], sizeof p->loads[0], "wmma.load.a.sync.aligned.%s.%s.global.%s", al, shape, ELEM[at].name);
    snprintf(p->loads[1], sizeof p->loads[1], "wmma.load.b.sync.aligned.%s.%s.global.%s", bl, shape, ELEM[bt].name);
    snprintf(p->loads[2], sizeof p->loads[2], "wmma.load.c.sync.aligned.%s.%s.global.%s", cl, shape, ELEM[ct].name);
    snprintf(p->store, sizeof p->store, "wmma.store.d.sync.aligned.%s.%s.global.%s", cl, shape, ELEM[dt].name);
    /* f16 A and B fragments are 16 elements in every shape */
    p->op[0] = opnd(at, at == F16 ? 16 : m * k / 32);
    p->op[1] = opnd(bt, bt == F16 ? 16 : k * n / 32);
    p->op[2] = opnd(ct, m * n / 32);
    p->op[3] = opnd(dt, m * n / 32);
    wmma_matrix(p, 0, m, k, acol, at);
    wmma_matrix(p, 1, k, n, bcol, bt);
    wmma_matrix(p, 2, m, n, ccol, ct);
}

static void wmma_probes(void)
{
    static const unsigned shapes[3][3] = {{16, 16, 16}, {32, 8, 16}, {8, 32, 16}};
    static const elem fp[] = {F16, F32};
    for (int s = 0; s < 3; s++) {
        unsigned m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
        for (int lay = 0; lay < 4; lay++)
            for (int c = 0; c < 2; c++) {
                int a = lay & 1, b = lay >> 1;
                for (int d = 0; d < 2; d++)
                    for (int ct = 0; ct < 2; ct++)
                        add_wmma(m, n, k, a, b, c, fp[d], F16, F16, fp[ct], "", 78);
                add_wmma(m, n, k, a, b, c, F32, BF16, BF16, F32, "", 78);
                add_wmma(m, n, k, a, b, c, S32, S8, S8, S32, "", 78);
                add_wmma(m, n, k, a, b, c, S32, U8, U8, S32, ".satfinite", 78);
            }
    }
    for (int lay = 0; lay < 4; lay++)
        for (int c = 0; c < 2; c++) {
            add_wmma(16, 16, 8, lay & 1, lay >> 1, c, F32, TF32, TF32, F32, "", 78);
            add_wmma(8, 8, 4, lay & 1, lay >> 1, c, F64, F64, F64, F64, "", 78);
        }
    for (int c = 0; c < 2; c++) {
        add_wmma(8, 8, 32, 0, 1, c, S32, S4, S4, S32, "", 78);
        add_wmma(8, 8, 32, 0, 1, c, S32, U4, U4, S32, ".satfinite", 78);
        add_wmma(8, 8, 128, 0, 1, c, S32, B1, B1, S32, ".xor.popc", 78);
        add_wmma(8, 8, 128, 0, 1, c, S32, B1, B1, S32, ".and.popc", 78);
    }
    f64_rounding_probes(1);
}

/* ---- kernel text ------------------------------------------------------- */

typedef struct text {
    char *s;
    size_t n, cap;
} text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(text *t, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int len = vsnprintf(t->s ? t->s + t->n : NULL, t->s ? t->cap - t->n : 0, fmt, ap);
        va_end(ap);
        if (len < 0)
            abort();
        if (t->s && t->n + (size_t)len < t->cap) {
            t->n += (size_t)len;
            return;
        }
        t->cap = 2 * (t->cap + (size_t)len + 256);
        t->s = realloc(t->s, t->cap);
        if (!t->s)
            abort();
    }
}

static const char OPCH[4] = {'a', 'b', 'c', 'd'};

static const char *reg_type(const operand *o)
{
    return o->regbits == 64 ? "f64" : o->t == F32 ? "f32" : "b32";
}

static void declare(text *t, int which, const operand *o)
{
    if (o->nregs)
        put(t, "\t.reg .%s %%%c<%u>;\n", reg_type(o), OPCH[which], o->nregs);
}

static void reg_list(text *t, int which, const operand *o)
{
    put(t, "{");
    for (unsigned r = 0; r < o->nregs; r++)
        put(t, "%s%%%c%u", r ? ", " : "", OPCH[which], r);
    put(t, "}");
}

/* Each lane's registers in slots of 8 bytes: A, B, C, D in order. */
static unsigned slots(const probe *p)
{
    return p->op[0].nregs + p->op[1].nregs + p->op[2].nregs + p->op[3].nregs;
}

static unsigned slot_of(const probe *p, int which)
{
    unsigned s = 0;
    for (int i = 0; i < which; i++)
        s += p->op[i].nregs;
    return s;
}

static void move_regs(text *t, const probe *p, int which, int store)
{
    const operand *o = &p->op[which];
    for (unsigned r = 0; r < o->nregs; r++) {
        unsigned at = (slot_of(p, which) + r) * 8;
        if (store)
            put(t, "\tst.global.%s [%%out+%u], %%%c%u;\n", reg_type(o), at, OPCH[which], r);
        else
            put(t, "\tld.global.%s %%%c%u, [%%in+%u];\n", reg_type(o), OPCH[which], r, at);
    }
}

static void lane_pointers(text *t, const probe *p)
{
    put(t, "\tmov.u32 %%lane, %%tid.x;\n\tmul.wide.u32 %%off, %%lane, %u;\n", slots(p) * 8);
    put(t, "\tadd.s64 %%in, %%in, %%off;\n\tadd.s64 %%out, %%out, %%off;\n");
}

/* Matrix rows of ldmatrix/stmatrix: a 32 x 8 tile of b16 in shared memory,
 * lane l addressing row perm[l]. */
static void tile_address(text *t)
{
    put(t, "\tmul.wide.u32 %%off, %%lane, 4;\n\tadd.s64 %%p, %%perm, %%off;\n\tld.global.u32 %%row, [%%p];\n");
    put(t, "\tmov.u32 %%sa, tile;\n\tshl.b32 %%row, %%row, 4;\n\tadd.u32 %%sa, %%sa, %%row;\n");
}

/* Copies the 512-byte tile between global memory at %g and shared memory,
 * 16 bytes per lane. */
static void tile_copy(text *t, int to_shared)
{
    put(t, "\tmul.wide.u32 %%off, %%lane, 16;\n\tadd.s64 %%p, %%g, %%off;\n\tmov.u32 %%tp, tile;\n");
    put(t, "\tshl.b32 %%row, %%lane, 4;\n\tadd.u32 %%tp, %%tp, %%row;\n");
    if (to_shared)
        put(t, "\tld.global.v4.u32 {%%t0, %%t1, %%t2, %%t3}, [%%p];\n\tst.shared.v4.u32 [%%tp], {%%t0, %%t1, %%t2, %%t3};\n");
    else
        put(t, "\tld.shared.v4.u32 {%%t0, %%t1, %%t2, %%t3}, [%%tp];\n\tst.global.v4.u32 [%%p], {%%t0, %%t1, %%t2, %%t3};\n");
    put(t, "\tbar.sync 0;\n");
}

static void kernel_text(text *t, const probe *p, unsigned index)
{
    switch (p->fam) {
    case MMA:
    case MOVMATRIX:
        put(t, ".visible .entry probe%u(.param .u64 pin, .param .u64 pout)\n{\n", index);
        break;
    case LDMATRIX:
    case STMATRIX:
        put(t, ".visible .entry probe%u(.param .u64 pin, .param .u64 pout, .param .u64 pperm, .param .u64 pg)\n{\n",
            index);
        put(t, "\t.shared .align 16 .b8 tile[512];\n\t.reg .u64 %%perm, %%g, %%p;\n");
        put(t, "\t.reg .u32 %%row, %%sa, %%tp, %%t<4>;\n");
        break;
    case WMMA:
        put(t, ".visible .entry probe%u(.param .u64 pin, .param .u64 pout, .param .u64 pa, .param .u64 pb, "
               ".param .u64 pc, .param .u64 pd)\n{\n\t.reg .u64 %%ma, %%mb, %%mc, %%md;\n",
            index);
        break;
    }
    put(t, "\t.reg .u64 %%in, %%out, %%off;\n\t.reg .u32 %%lane;\n");
    for (int i = 0; i < 4; i++)
        declare(t, i, &p->op[i]);
    put(t, "\tld.param.u64 %%in, [pin];\n\tld.param.u64 %%out, [pout];\n");
    if (p->fam == LDMATRIX || p->fam == STMATRIX)
        put(t, "\tld.param.u64 %%perm, [pperm];\n\tld.param.u64 %%g, [pg];\n");
    lane_pointers(t, p);
    switch (p->fam) {
    case MMA:
        for (int i = 0; i < 3; i++)
            move_regs(t, p, i, 0);
        put(t, "\t%s ", p->name);
        for (int i = 3; i >= 0; i--) {
            reg_list(t, i == 3 ? 3 : 2 - i, &p->op[i == 3 ? 3 : 2 - i]);
            put(t, "%s", i ? ", " : ";\n");
        }
        move_regs(t, p, 3, 1);
        break;
    case MOVMATRIX:
        move_regs(t, p, 0, 0);
        put(t, "\t%s %%d0, %%a0;\n", p->name);
        move_regs(t, p, 3, 1);
        break;
    case LDMATRIX:
        tile_copy(t, 1);
        tile_address(t);
        put(t, "\t%s ", p->name);
        reg_list(t, 3, &p->op[3]);
        put(t, ", [%%sa];\n");
        move_regs(t, p, 3, 1);
        break;
    case STMATRIX:
        move_regs(t, p, 0, 0);
        put(t, "\tmov.u32 %%tp, tile;\n\tshl.b32 %%row, %%lane, 4;\n\tadd.u32 %%tp, %%tp, %%row;\n");
        put(t, "\tmov.u32 %%t0, 0xdeadbeef;\n\tmov.u32 %%t1, %%t0;\n\tmov.u32 %%t2, %%t0;\n\tmov.u32 %%t3, %%t0;\n");
        put(t, "\tst.shared.v4.u32 [%%tp], {%%t0, %%t1, %%t2, %%t3};\n\tbar.sync 0;\n");
        tile_address(t);
        put(t, "\t%s [%%sa], ", p->name);
        reg_list(t, 0, &p->op[0]);
        put(t, ";\n\tbar.sync 0;\n");
        tile_copy(t, 0);
        break;
    case WMMA:
        put(t, "\tld.param.u64 %%ma, [pa];\n\tld.param.u64 %%mb, [pb];\n\tld.param.u64 %%mc, [pc];\n"
               "\tld.param.u64 %%md, [pd];\n");
        for (int i = 0; i < 3; i++) {
            put(t, "\t%s ", p->loads[i]);
            reg_list(t, i, &p->op[i]);
            put(t, ", [%%m%c], %u;\n", OPCH[i], p->stride[i]);
            move_regs(t, p, i, 1);
        }
        put(t, "\t%s ", p->name);
        for (int i = 0; i < 4; i++) {
            int w = i == 0 ? 3 : i - 1;
            reg_list(t, w, &p->op[w]);
            put(t, "%s", i < 3 ? ", " : ";\n");
        }
        move_regs(t, p, 3, 1);
        put(t, "\t%s [%%md], ", p->store);
        reg_list(t, 3, &p->op[3]);
        put(t, ", %u;\n", p->stride[2]);
        break;
    }
    put(t, "\tret;\n}\n");
}

/* Probes go into one module per group (mma, the matrix moves, wmma) and
 * PTX version, so a driver too old for a newer form loses only those. */
static int group_of(const probe *p)
{
    return p->fam == MMA ? 0 : p->fam == WMMA ? 2 : 1;
}

static const char *const GROUP_NAME[3] = {"mma", "matrix", "wmma"};

static void module_text(text *t, int group, unsigned version)
{
    put(t, ".version %u.%u\n.target sm_90\n.address_size 64\n\n", version / 10, version % 10);
    for (size_t i = 0; i < nprobes; i++)
        if (group_of(&probes[i]) == group && probes[i].version == version)
            kernel_text(t, &probes[i], (unsigned)i);
}

/* ---- inputs ------------------------------------------------------------ */

static size_t matrix_elems(const probe *p, int w)
{
    return (size_t)(p->col_major[w] ? p->cols[w] : p->rows[w]) * p->stride[w];
}

static size_t matrix_bytes(const probe *p, int w, elem t)
{
    return (matrix_elems(p, w) * ELEM[t].bits + 7) / 8 + 16;
}

static void put_bits(uint8_t *buf, size_t index, unsigned bits, uint64_t v)
{
    if (bits >= 8) {
        memcpy(buf + index * bits / 8, &v, bits / 8); /* little-endian, as both machines */
        return;
    }
    for (unsigned b = 0; b < bits; b++) {
        size_t bit = index * bits + b;
        buf[bit / 8] = (uint8_t)((buf[bit / 8] & ~(1u << bit % 8)) | ((v >> b & 1) << bit % 8));
    }
}

/* The register slots of every lane: elements packed into 32/64-bit
 * registers, lowest element in the lowest bits. */
static void fill_regs(uint8_t *in, const probe *p, int which, int set)
{
    const operand *o = &p->op[which];
    unsigned per = o->regbits / ELEM[o->t].bits, elems = 0;
    for (unsigned lane = 0; lane < 32; lane++)
        for (unsigned r = 0; r < o->nregs; r++) {
            uint64_t v = 0;
            for (unsigned e = 0; e < per; e++) {
                uint64_t x = gen_elem(o->t, set, elems++, which == 2);
                v |= ELEM[o->t].bits == 64 ? x : x << (e * ELEM[o->t].bits);
            }
            memcpy(in + ((size_t)lane * slots(p) + slot_of(p, which) + r) * 8, &v, 8);
        }
}

typedef struct buffers {
    uint8_t *host[6];
    size_t bytes[6];
} buffers;

static void make_inputs(const probe *p, int set, buffers *b)
{
    memset(b, 0, sizeof *b);
    rng_state = 0x243f6a8885a308d3ull ^ ((uint64_t)set << 56);
    for (const char *c = p->name; *c; c++)
        rng_state = rng_state * 131 + (uint8_t)*c;
    b->bytes[0] = b->bytes[1] = (size_t)32 * slots(p) * 8;
    for (int i = 0; i < 2; i++) {
        b->host[i] = calloc(1, b->bytes[i]);
        if (!b->host[i])
            abort();
    }
    if (p->fam == MMA || p->fam == MOVMATRIX || p->fam == STMATRIX)
        for (int i = 0; i < 3; i++)
            if (p->op[i].nregs)
                fill_regs(b->host[0], p, i, set);
    if (p->fam == LDMATRIX || p->fam == STMATRIX) {
        /* rows in a fixed permutation of the 32 tile rows; the tile's b16 */
        b->bytes[2] = 32 * 4;
        b->bytes[3] = 512;
        b->host[2] = malloc(b->bytes[2]);
        b->host[3] = malloc(b->bytes[3]);
        if (!b->host[2] || !b->host[3])
            abort();
        uint32_t perm[32];
        for (unsigned i = 0; i < 32; i++)
            perm[i] = i;
        for (unsigned i = 31; i > 0; i--) {
            unsigned j = (unsigned)(rng() % (i + 1));
            uint32_t s = perm[i];
            perm[i] = perm[j], perm[j] = s;
        }
        memcpy(b->host[2], perm, sizeof perm);
        for (unsigned i = 0; i < 256; i++) {
            uint16_t v = (uint16_t)(set == SET_TAGS ? i : rng());
            memcpy(b->host[3] + 2 * i, &v, 2);
        }
    }
    if (p->fam == WMMA)
        for (int w = 0; w < 4; w++) {
            elem t = p->op[w].t; /* D shares C's layout and stride */
            int mw = w == 3 ? 2 : w;
            b->bytes[2 + w] = matrix_bytes(p, mw, t);
            b->host[2 + w] = calloc(1, b->bytes[2 + w]);
            if (!b->host[2 + w])
                abort();
            if (w == 3) {
                memset(b->host[5], 0xa5, b->bytes[5]); /* D: what the store leaves alone shows */
                continue;
            }
            for (size_t i = 0; i < matrix_elems(p, mw); i++)
                put_bits(b->host[2 + w], i, ELEM[t].bits, gen_elem(t, set, (unsigned)i, w == 2));
        }
}

static void free_inputs(buffers *b)
{
    for (int i = 0; i < 6; i++)
        free(b->host[i]);
}

/* The output compared: each lane's register slots, then (stmatrix: the
 * tile; wmma: the D matrix). */
static size_t output_bytes(const probe *p, const buffers *b)
{
    size_t n = b->bytes[1];
    if (p->fam == STMATRIX)
        n += 512;
    if (p->fam == WMMA)
        n += b->bytes[5];
    return n;
}

static uint64_t fnv(uint64_t h, const void *data, size_t n)
{
    const uint8_t *d = data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ d[i]) * 0x100000001b3ull;
    return h;
}

/* ---- running ----------------------------------------------------------- */

static int cu_failed(CUresult r, const char *what, const char *probe_name)
{
    if (r == CUDA_SUCCESS)
        return 0;
    const char *name = NULL;
    cuGetErrorName(r, &name);
    fprintf(stderr, "tensor_gpu: %s: %s failed: %s\n", probe_name, what, name ? name : "?");
    return 1;
}

/* The module holding probe i, loaded on first use; NULL (reported once)
 * when the driver refuses it. */
static CUmodule module_of(size_t i)
{
    enum { MAXMODS = 16 };
    static struct {
        int group;
        unsigned version, failed;
        CUmodule mod;
    } mods[MAXMODS];
    static unsigned nmods;
    int g = group_of(&probes[i]);
    unsigned v = probes[i].version;
    for (unsigned m = 0; m < nmods; m++)
        if (mods[m].group == g && mods[m].version == v)
            return mods[m].mod;
    if (nmods == MAXMODS)
        abort();
    text t = {0};
    module_text(&t, g, v);
    char log[8192] = "";
    CUjit_option opt[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *val[] = {log, (void *)(uintptr_t)sizeof log};
    CUmodule mod = NULL;
    char what[64];
    snprintf(what, sizeof what, "module %s (PTX %u.%u)", GROUP_NAME[g], v / 10, v % 10);
    if (cu_failed(cuModuleLoadDataEx(&mod, t.s, 2, opt, val), "cuModuleLoadDataEx", what)) {
        fprintf(stderr, "%s\n", log);
        mod = NULL;
    }
    free(t.s);
    mods[nmods].group = g;
    mods[nmods].version = v;
    mods[nmods++].mod = mod;
    return mod;
}

/* Runs probe i on input set `set`; *out gets output_bytes() bytes. */
static int run_probe(CUmodule mod, size_t i, int set, uint8_t **out, size_t *out_n, uint64_t *hash)
{
    const probe *p = &probes[i];
    char fname[32];
    snprintf(fname, sizeof fname, "probe%zu", i);
    CUfunction fn;
    if (cu_failed(cuModuleGetFunction(&fn, mod, fname), "cuModuleGetFunction", p->name))
        return 1;
    buffers b;
    make_inputs(p, set, &b);
    text t = {0};
    kernel_text(&t, p, 0);
    uint64_t h = fnv(0xcbf29ce484222325ull, t.s, t.n);
    free(t.s);
    CUdeviceptr dev[6] = {0};
    int bad = 0;
    for (int k = 0; k < 6 && !bad; k++) {
        if (!b.bytes[k])
            continue;
        h = fnv(h, b.host[k], b.bytes[k]);
        bad = cu_failed(cuMemAlloc(&dev[k], b.bytes[k]), "cuMemAlloc", p->name) ||
              cu_failed(cuMemcpyHtoD(dev[k], b.host[k], b.bytes[k]), "cuMemcpyHtoD", p->name);
    }
    if (!bad && dev[1])
        bad = cu_failed(cuMemsetD8(dev[1], 0xcc, b.bytes[1]), "cuMemsetD8", p->name);
    *out_n = output_bytes(p, &b);
    *out = malloc(*out_n);
    if (!bad) {
        void *params[] = {&dev[0], &dev[1], &dev[2], &dev[3], &dev[4], &dev[5]};
        bad = cu_failed(cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, NULL, params, NULL), "cuLaunchKernel", p->name) ||
              cu_failed(cuCtxSynchronize(), "cuCtxSynchronize", p->name) ||
              cu_failed(cuMemcpyDtoH(*out, dev[1], b.bytes[1]), "cuMemcpyDtoH", p->name);
        if (!bad && p->fam == STMATRIX)
            bad = cu_failed(cuMemcpyDtoH(*out + b.bytes[1], dev[3], 512), "cuMemcpyDtoH", p->name);
        if (!bad && p->fam == WMMA)
            bad = cu_failed(cuMemcpyDtoH(*out + b.bytes[1], dev[5], b.bytes[5]), "cuMemcpyDtoH", p->name);
    }
    for (int k = 0; k < 6; k++)
        if (dev[k])
            cuMemFree(dev[k]);
    free_inputs(&b);
    *hash = h;
    return bad;
}

/* ---- recorded outputs -------------------------------------------------- */

typedef struct record {
    char name[160];
    uint8_t set;
    uint64_t hash;
    uint32_t n;
    uint8_t *bytes;
} record;

static int write_record(FILE *f, const probe *p, int set, uint64_t hash, const uint8_t *out, size_t n)
{
    uint16_t len = (uint16_t)strlen(p->name);
    uint8_t s = (uint8_t)set;
    uint32_t n32 = (uint32_t)n;
    return fwrite(&len, 2, 1, f) == 1 && fwrite(p->name, 1, len, f) == len && fwrite(&s, 1, 1, f) == 1 &&
           fwrite(&hash, 8, 1, f) == 1 && fwrite(&n32, 4, 1, f) == 1 && fwrite(out, 1, n, f) == n;
}

static record *read_records(const char *path, size_t *count)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "tensor_gpu: cannot read %s: %s\n", path, strerror(errno));
        return NULL;
    }
    char magic[8];
    record *r = NULL;
    size_t n = 0, cap = 0;
    int ok = fread(magic, 1, 8, f) == 8 && !memcmp(magic, "PJTENS01", 8);
    uint16_t len;
    while (ok && fread(&len, 2, 1, f) == 1) {
        if (n == cap) {
            cap = cap ? 2 * cap : 512;
            r = realloc(r, cap * sizeof *r);
            if (!r)
                abort();
        }
        record *x = &r[n];
        memset(x, 0, sizeof *x);
        ok = len < sizeof x->name && fread(x->name, 1, len, f) == len && fread(&x->set, 1, 1, f) == 1 &&
             fread(&x->hash, 8, 1, f) == 1 && fread(&x->n, 4, 1, f) == 1 && x->n < (1u << 24) &&
             (x->bytes = malloc(x->n ? x->n : 1)) && fread(x->bytes, 1, x->n, f) == x->n;
        if (ok)
            n++;
    }
    fclose(f);
    if (!ok) {
        fprintf(stderr, "tensor_gpu: %s: not a tensor_gpu record file, or truncated\n", path);
        for (size_t i = 0; i < n; i++)
            free(r[i].bytes);
        free(r);
        return NULL;
    }
    *count = n;
    return r;
}

/* ---- comparing --------------------------------------------------------- */

static double elem_value(elem t, uint64_t bits)
{
    switch (t) {
    case F32:
    case TF32: {
        float f;
        uint32_t u = (uint32_t)bits;
        memcpy(&f, &u, 4);
        return f;
    }
    case F64: {
        double d;
        memcpy(&d, &bits, 8);
        return d;
    }
    case F16: {
        unsigned e = bits >> 10 & 31, m = bits & 1023;
        double v = e == 31 ? (m ? NAN : INFINITY) : e ? ldexp(1024 + m, (int)e - 25) : ldexp(m, -24);
        return bits >> 15 & 1 ? -v : v;
    }
    default:
        return (double)bits;
    }
}

/* How closely an output element must match: bit for bit where every
 * accumulation order gives the same bits; within a relative tolerance where
 * the GPU's internal order and rounding of the products show (wmma). */
static double wmma_tolerance(const probe *p, elem t, int set, int is_d)
{
    if (!ELEM[t].is_float || !is_d)
        return 0;
    if (set == SET_EXACT || (set == SET_TAGS && t != F16))
        return 0;
    return t == F16 ? 2e-3 : t == F32 ? (p->op[0].t == F32 || p->op[0].t == TF32 ? 1e-4 : 1e-6) : 1e-12;
}

/* mma.sync: ptxjit models the GPU's sums (lower/lower_mma_float.c), so bit
 * for bit, but for what the model does not reach (README, "Tensor cores"):
 * e4m3/e5m2 products summed into an f16 D (the GPU's internal precision
 * there: a few f16 ulps), tf32 m16n8k4 (an f32 ulp or two on rare
 * elements).  Returns a negative value for bit for bit. */
static double mma_tolerance(const probe *p, int set, int is_d)
{
    elem a = p->op[0].t, d = p->op[3].t;
    if (!is_d || set != SET_RANDOM)
        return -1;
    if ((a == E4M3 || a == E5M2) && d == F16)
        return 4e-3;
    if (a == TF32 && strstr(p->name, ".m16n8k4."))
        return 1e-6;
    return -1;
}

static double tolerance(const probe *p, elem t, int set, int is_d)
{
    if (p->fam != MMA)
        return wmma_tolerance(p, t, set, is_d);
    double tol = mma_tolerance(p, set, is_d);
    return tol < 0 ? 0 : tol;
}

/* f64 NaNs: where an input NaN and an invalid operation meet in one sum,
 * the GPU's choice of NaN (0x7ff8... or 0xfff8...) is not modelled. */
static int nan_sign_free(const probe *p, elem t, int set)
{
    return p->fam == MMA && t == F64 && set == SET_SPECIAL;
}

static int element_matches(elem t, uint64_t want, uint64_t got, double tol)
{
    if (want == got)
        return 1;
    if (tol < 0) /* any NaN for a NaN, else bit for bit */
        return isnan(elem_value(t, want)) && isnan(elem_value(t, got));
    if (tol == 0)
        return 0;
    double w = elem_value(t, want), g = elem_value(t, got);
    if (isnan(w) || isnan(g))
        return isnan(w) && isnan(g);
    if (isinf(w) || isinf(g))
        return w == g;
    /* relative to the result, but no finer than to the inputs' scale (the
     * random sets' elements are within [-1, 1]): a sum that cancels keeps
     * the error of its largest terms, which the GPU aligns it to */
    return fabs(w - g) <= tol * fmax(fabs(w), 1.0 / 16);
}

static int compare(const probe *p, int set, const uint8_t *want, const uint8_t *got, size_t n)
{
    int mism = 0;
    /* register slots: each lane's slots, per operand */
    unsigned ns = slots(p);
    for (unsigned lane = 0; lane < 32; lane++)
        for (int w = 0; w < 4; w++) {
            const operand *o = &p->op[w];
            unsigned ebits = o->regbits == 64 ? 64 : (o->t == F16 ? 16 : 32);
            elem et = o->regbits == 64 ? F64 : o->t == F16 ? F16 : o->t == F32 || o->t == TF32 ? F32 : S32;
            double tol = nan_sign_free(p, et, set) ? -1 : tolerance(p, et, set, w == 3);
            for (unsigned r = 0; r < o->nregs; r++) {
                size_t at = ((size_t)lane * ns + slot_of(p, w) + r) * 8;
                for (unsigned e = 0; e < (o->regbits == 64 ? 1 : 32 / ebits); e++) {
                    uint64_t a = 0, b = 0;
                    memcpy(&a, want + at + e * ebits / 8, ebits / 8);
                    memcpy(&b, got + at + e * ebits / 8, ebits / 8);
                    if (!element_matches(et, a, b, tol) && mism++ < 4)
                        printf("  %s [%s]: lane %u %c%u.%u: GPU 0x%llx, ptxjit 0x%llx\n", p->name, SET_NAME[set],
                               lane, OPCH[w], r, e, (unsigned long long)a, (unsigned long long)b);
                }
            }
        }
    /* the memory after the slots: the stmatrix tile or wmma's D */
    size_t base = (size_t)32 * ns * 8;
    elem mt = p->fam == WMMA ? p->op[3].t : B16;
    unsigned eb = p->fam == WMMA && ELEM[mt].bits >= 8 ? ELEM[mt].bits / 8 : 1;
    double tol = p->fam == WMMA ? tolerance(p, mt == F32 ? F32 : mt, set, 1) : 0;
    for (size_t at = base; at + eb <= n; at += eb) {
        uint64_t a = 0, b = 0;
        memcpy(&a, want + at, eb);
        memcpy(&b, got + at, eb);
        if (!element_matches(mt == S32 ? S32 : mt, a, b, tol) && mism++ < 4)
            printf("  %s [%s]: memory byte %zu: GPU 0x%llx, ptxjit 0x%llx\n", p->name, SET_NAME[set], at - base,
                   (unsigned long long)a, (unsigned long long)b);
    }
    return mism;
}

/* ---- main -------------------------------------------------------------- */

static void all_probes(void)
{
    mma_probes();
    matrix_probes();
    wmma_probes();
}

static int write_ptx(const char *dir)
{
    for (size_t i = 0; i < nprobes; i++) {
        int g = group_of(&probes[i]);
        unsigned v = probes[i].version;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s_%u.ptx", dir, GROUP_NAME[g], v);
        FILE *seen = fopen(path, "r");
        if (seen) { /* written already: one file per module */
            fclose(seen);
            continue;
        }
        text t = {0};
        module_text(&t, g, v);
        FILE *f = fopen(path, "w");
        if (!f || fwrite(t.s, 1, t.n, f) != t.n || fclose(f) != 0) {
            fprintf(stderr, "tensor_gpu: cannot write %s\n", path);
            return 1;
        }
        free(t.s);
    }
    printf("tensor_gpu: %zu probes written to %s\n", nprobes, dir);
    return 0;
}

/* The recording of a probe: wmma probes that differ only in C's layout
 * share an instruction name, so the hash of kernel and inputs picks. */
static const record *find_record(const record *r, size_t n, const char *name, int set, uint64_t hash, int *stale)
{
    *stale = 0;
    for (size_t i = 0; i < n; i++)
        if (r[i].set == set && !strcmp(r[i].name, name)) {
            if (r[i].hash == hash)
                return &r[i];
            *stale = 1;
        }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 3 || (strcmp(argv[1], "record") && strcmp(argv[1], "check") && strcmp(argv[1], "ptx")) ||
        (argc > 3 && strcmp(argv[1], "check"))) {
        fprintf(stderr, "usage: tensor_gpu record|ptx FILE|DIR, tensor_gpu check FILE [PREFIX...]\n");
        return 2;
    }
    all_probes();
    if (!strcmp(argv[1], "ptx"))
        return write_ptx(argv[2]);
    int recording = !strcmp(argv[1], "record");
    record *recs = NULL;
    size_t nrecs = 0;
    FILE *f = NULL;
    if (recording) {
        f = fopen(argv[2], "wb");
        if (!f || fwrite("PJTENS01", 1, 8, f) != 8) {
            fprintf(stderr, "tensor_gpu: cannot write %s\n", argv[2]);
            return 2;
        }
    } else if (!(recs = read_records(argv[2], &nrecs)))
        return 2;
    CUdevice dev;
    CUcontext ctx;
    if (cu_failed(cuInit(0), "cuInit", "-") || cu_failed(cuDeviceGet(&dev, 0), "cuDeviceGet", "-") ||
        cu_failed(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain", "-") ||
        cu_failed(cuCtxSetCurrent(ctx), "cuCtxSetCurrent", "-"))
        return 1;
    int failed = 0, verbose = getenv("TENSOR_GPU_VERBOSE") != NULL;
    size_t passed = 0, mismatched = 0, stale = 0, missing = 0, chosen = 0;
    for (size_t i = 0; i < nprobes; i++) {
        int wanted = argc == 3;
        for (int a = 3; a < argc; a++)
            wanted |= !strncmp(probes[i].name, argv[a], strlen(argv[a]));
        if (!wanted)
            continue;
        chosen++;
        CUmodule mod = module_of(i);
        for (int set = 0; set < NSETS; set++) {
            uint8_t *out = NULL;
            size_t n = 0;
            uint64_t hash = 0;
            size_t before = passed;
            if (!mod || run_probe(mod, i, set, &out, &n, &hash)) {
                failed++;
                free(out);
                continue;
            }
            if (recording) {
                if (!write_record(f, &probes[i], set, hash, out, n)) {
                    fprintf(stderr, "tensor_gpu: cannot write %s\n", argv[2]);
                    return 1;
                }
            } else {
                int old;
                const record *r = find_record(recs, nrecs, probes[i].name, set, hash, &old);
                if (!r && old) {
                    stale++;
                } else if (!r) { /* a probe added since the recording */
                    if (missing++, set == 0)
                        printf("  %s: not recorded yet (tensor_gpu record on a GPU)\n", probes[i].name);
                } else if (r->n != n)
                    stale++;
                else if (compare(&probes[i], set, r->bytes, out, n))
                    mismatched++;
                else
                    passed++;
                if (verbose)
                    printf("%s [%s]: %s\n", probes[i].name, SET_NAME[set],
                           !r ? "no recording" : passed == before ? "DIFFERS" : "ok");
            }
            free(out);
        }
    }
    if (recording) {
        if (fclose(f) != 0) {
            fprintf(stderr, "tensor_gpu: cannot write %s\n", argv[2]);
            return 1;
        }
        printf("tensor_gpu: %zu probes x %d input sets recorded, %d failed\n", nprobes, NSETS, failed);
        return failed != 0;
    }
    printf("tensor_gpu: %zu match the GPU, %zu differ, %zu failed to run, %zu stale, %zu not recorded (of %zu)\n",
           passed, mismatched, (size_t)failed, stale, missing, chosen * NSETS);
    for (size_t i = 0; i < nrecs; i++)
        free(recs[i].bytes);
    free(recs);
    /* probes not recorded yet are reported, not failed; but something
     * must have been compared */
    return mismatched || failed || stale || (chosen && !passed);
}
