/* conform.c - the conformance harness (see conform.h): inputs, kernels
 * around op templates, launches through ptxjit, comparison with the
 * references, and the files exchanged with the GPU driver. */
#include "conform.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ptxjit/ptxjit.h"
#include "test_util.h"

#define SENTINEL 0x5a5a5a5a5a5a5a5aull
#define REPORT_MAX 8 /* mismatches printed per op */

static const char *const param_names[CONFORM_MAX_IN] = {"cf_a", "cf_b", "cf_c", "cf_e"};
static const char *const input_letters = "abce";

/* ---- a growable string ---- */

typedef struct sbuf {
    char *s;
    size_t n, cap;
} sbuf;

static void sb_add(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_add(sbuf *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = b->cap - b->n;
        int k = vsnprintf(b->s ? b->s + b->n : NULL, room, fmt, ap);
        va_end(ap);
        if (k < 0)
            abort();
        if ((size_t)k < room) {
            b->n += (size_t)k;
            return;
        }
        b->cap = (b->cap + (size_t)k + 1) * 2;
        b->s = realloc(b->s, b->cap);
        if (!b->s)
            abort();
    }
}

uint64_t conform_trunc(uint64_t v, unsigned w)
{
    return w >= 8 ? v : v & ((1ull << (8 * w)) - 1);
}

/* ---- inputs ---- */

static const uint64_t edges16[] = {0, 1, 2, 3, 7, 8, 15, 16, 17, 31, 32, 0x7f, 0x80, 0xff, 0x100, 0x7ffe,
                                   0x7fff, 0x8000, 0x8001, 0xfffe, 0xffff, 0x1234, 0xabcd};
static const uint64_t edges32[] = {0, 1, 2, 3, 7, 8, 15, 16, 31, 32, 33, 63, 64, 255, 256, 0xffff,
                                   0x10000, 0x7fffff, 0x800000, 0xffffff, 0x1000000, 0x7ffffffe,
                                   0x7fffffff, 0x80000000, 0x80000001, 0xfffffffe, 0xffffffff,
                                   0xffffff80, 0xffff8000, 0x12345678, 0xdeadbeef, 0x55555555,
                                   0xaaaaaaaa, 0x00ff00ff};
static const uint64_t edges64[] = {0, 1, 2, 3, 31, 32, 33, 63, 64, 65, 255, 0x7fffffff, 0x80000000,
                                   0xffffffff, 0x100000000, 0x7fffffffffffffff, 0x8000000000000000,
                                   0x8000000000000001, 0xfffffffffffffffe, 0xffffffffffffffff,
                                   0xffffffff80000000, 0xffffffff00000000, 0x0000000100000001,
                                   0x123456789abcdef0, 0xdeadbeefcafebabe, 0x5555555555555555};

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint64_t conform_fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ c[i]) * 0x100000001b3ull;
    return h;
}

typedef struct edge_set {
    uint64_t v[96];
    size_t n;
} edge_set;

static void edge_add(edge_set *e, uint64_t v, unsigned w)
{
    v = conform_trunc(v, w);
    for (size_t i = 0; i < e->n; i++)
        if (e->v[i] == v)
            return;
    if (e->n < sizeof e->v / sizeof e->v[0])
        e->v[e->n++] = v;
}

static void edges_of(const conform_op *op, int i, edge_set *e)
{
    unsigned w = op->w[i];
    const uint64_t *d = w == 2 ? edges16 : w == 4 ? edges32 : edges64;
    size_t nd = w == 2 ? sizeof edges16 / 8 : w == 4 ? sizeof edges32 / 8 : sizeof edges64 / 8;
    e->n = 0;
    for (size_t k = 0; k < op->nedges[i]; k++)
        edge_add(e, op->edges[i][k], w);
    for (size_t k = 0; k < nd; k++)
        edge_add(e, d[k], w);
}

/* A random value of w bytes, biased towards the shapes that find bugs:
 * small magnitudes, edge neighbours, single bits and masks. */
static uint64_t random_value(uint64_t *s, const edge_set *e, unsigned w)
{
    uint64_t r = splitmix(s), x = splitmix(s);
    unsigned bits = 8 * w;
    switch (r % 8) {
    case 3: x = x % 70; if (r & 0x100) x = 0 - x; break;
    case 4: x = e->v[x % e->n] + (r >> 8) % 3 - 1; break;
    case 5: x = 1ull << (x % bits); if (r & 0x100) x -= 1; if (r & 0x200) x = ~x; break;
    case 6: x = (r & 0x100) ? x & splitmix(s) : x | splitmix(s); break;
    case 7: x = x % 256; break;
    default: break;
    }
    return conform_trunc(x, w);
}

static size_t inputs_with(const conform_op *op, unsigned nrandom, size_t cap, uint64_t *x[CONFORM_MAX_IN])
{
    edge_set e[CONFORM_MAX_IN];
    size_t combos = 1;
    int nin = 0;
    for (int i = 0; i < CONFORM_MAX_IN; i++) {
        e[i].n = 0;
        if (op->w[i]) {
            edges_of(op, i, &e[i]);
            combos *= e[i].n;
            nin = i + 1;
        }
    }
    bool all = combos <= cap;
    size_t nedge = all ? combos : cap, n = nedge + nrandom;
    uint64_t seed = conform_fnv(0xcbf29ce484222325ull, op->name, strlen(op->name));
    for (int i = 0; i < CONFORM_MAX_IN; i++)
        x[i] = calloc(n ? n : 1, sizeof(uint64_t));
    for (size_t t = 0; t < n; t++) {
        size_t rest = t;
        for (int i = 0; i < nin; i++) {
            if (!op->w[i])
                continue;
            if (t >= nedge) {
                x[i][t] = random_value(&seed, &e[i], op->w[i]);
            } else if (all) { /* every combination, first input fastest */
                x[i][t] = e[i].v[rest % e[i].n];
                rest /= e[i].n;
            } else { /* random combinations of edge values */
                x[i][t] = e[i].v[splitmix(&seed) % e[i].n];
            }
        }
    }
    return n;
}

size_t conform_inputs(const conform_op *op, unsigned nrandom, uint64_t *x[CONFORM_MAX_IN])
{
    return inputs_with(op, nrandom, CONFORM_EDGE_CAP, x);
}

void conform_inputs_free(uint64_t *x[CONFORM_MAX_IN])
{
    for (int i = 0; i < CONFORM_MAX_IN; i++)
        free(x[i]), x[i] = NULL;
}

/* ---- kernels ---- */

static const char *mode_suffix(unsigned mode)
{
    return mode == CONFORM_CONVERGED ? "c" : mode == CONFORM_DIVERGENT ? "d" : "g";
}

enum { ALL_MODES = CONFORM_CONVERGED | CONFORM_DIVERGENT | CONFORM_GUARDED };

/* CONFORM_MODES (letters c, d, g) keeps only those modes where an op has
 * them.  The sanitized suite runs "cg": an instruction lowers the same
 * under a divergent block's mask as under a guard's, and the dispatcher
 * that divergence adds runs in every other end-to-end test, while each
 * mode is a kernel to compile (a third of these tests' time). */
static unsigned env_modes(void)
{
    const char *v = getenv("CONFORM_MODES");
    unsigned m = 0;
    for (; v && *v; v++)
        m |= *v == 'c' ? CONFORM_CONVERGED : *v == 'd' ? CONFORM_DIVERGENT : *v == 'g' ? CONFORM_GUARDED : 0;
    return m ? m : ALL_MODES;
}

/* The modes sweep index k runs in. */
static unsigned op_modes(const conform_op *op, unsigned k)
{
    if (!op->ptx)
        return CONFORM_CONVERGED;
    unsigned m = op->modes & ALL_MODES ? op->modes & ALL_MODES : ALL_MODES;
    unsigned kept = m & env_modes();
    if (kept)
        m = kept;
    return k == 0 || (op->modes & CONFORM_EVERY_K) ? m : m & CONFORM_CONVERGED;
}

void conform_kernel_name(char *buf, size_t len, const conform_op *op, unsigned k, unsigned mode)
{
    if (!op->ptx)
        snprintf(buf, len, "%s", op->kernel);
    else if (op->nk)
        snprintf(buf, len, "cf_%s_k%u_%s", op->name, k, mode_suffix(mode));
    else
        snprintf(buf, len, "cf_%s_%s", op->name, mode_suffix(mode));
}

/* The register holding operand slot i (0 = destination, 1.. = inputs). */
static void reg_name(char *buf, size_t len, unsigned w, int slot)
{
    snprintf(buf, len, "%%cf%c%d", w == 2 ? 'h' : w == 4 ? 'r' : 'q', slot);
}

static bool ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static void k_text(char *buf, size_t len, const conform_op *op, unsigned k)
{
    if (op->kstr)
        snprintf(buf, len, "%s", op->kstr[k]);
    else
        snprintf(buf, len, "%u", k);
}

static void expand_text(sbuf *b, const char *text, const conform_op *op, unsigned k, const char *guard, bool with_k);

/* text with its placeholders replaced (%k's text too, once). */
static void expand_text(sbuf *b, const char *text, const conform_op *op, unsigned k, const char *guard, bool with_k)
{
    for (const char *p = text; *p; p++) {
        const char *slot = p[0] == '%' && p[1] && !ident_char(p[2]) ? strchr("dabcekg", p[1]) : NULL;
        if (!slot || (p[1] == 'k' && !with_k)) {
            sb_add(b, "%c", *p);
            continue;
        }
        char buf[64];
        int i = (int)(slot - "dabcekg");
        if (p[1] == 'k') {
            if (op->kstr)
                expand_text(b, op->kstr[k], op, k, guard, false);
            else
                sb_add(b, "%u", k);
        } else if (p[1] == 'g') {
            sb_add(b, "%s", guard);
        } else {
            reg_name(buf, sizeof buf, i == 0 ? op->dw : op->w[i - 1], i);
            sb_add(b, "%s", buf);
        }
        p++;
    }
}

static const char *bits_type(unsigned w)
{
    return w == 2 ? "b16" : w == 4 ? "b32" : "b64";
}

/* Loads input slot i (or, with store, stores the destination) at the
 * thread's element. */
static void emit_access(sbuf *b, const char *param, unsigned w, int slot, bool store)
{
    char r[16];
    reg_name(r, sizeof r, w, slot);
    sb_add(b, "  ld.param.u64 %%cfx0, [%s];\n  mul.wide.u32 %%cfx1, %%cfi0, %u;\n"
              "  add.s64 %%cfx0, %%cfx0, %%cfx1;\n", param, w);
    if (store)
        sb_add(b, "  st.global.%s [%%cfx0], %s;\n", bits_type(w), r);
    else
        sb_add(b, "  ld.global.%s %s, [%%cfx0];\n", bits_type(w), r);
}

static void emit_kernel(sbuf *b, const conform_op *op, unsigned k, unsigned mode)
{
    char name[160], d[16];
    conform_kernel_name(name, sizeof name, op, k, mode);
    reg_name(d, sizeof d, op->dw, 0);
    sb_add(b, "\n.visible .entry %s(.param .u64 cf_a, .param .u64 cf_b, .param .u64 cf_c, "
              ".param .u64 cf_e, .param .u64 cf_d, .param .u32 cf_n)\n{\n"
              "  .reg .pred %%cfodd, %%cfout;\n"
              "  .reg .b16 %%cfh<5>;\n  .reg .b32 %%cfr<5>;\n  .reg .b64 %%cfq<5>;\n"
              "  .reg .b32 %%cfi<3>;\n  .reg .b64 %%cfx<2>;\n"
              "  mov.u32 %%cfi0, %%ctaid.x;\n  mov.u32 %%cfi1, %%ntid.x;\n  mov.u32 %%cfi2, %%tid.x;\n"
              "  mad.lo.u32 %%cfi0, %%cfi0, %%cfi1, %%cfi2;\n  ld.param.u32 %%cfi1, [cf_n];\n"
              "  setp.ge.u32 %%cfout, %%cfi0, %%cfi1;\n  @%%cfout bra $Lcf_end;\n"
              "  and.b32 %%cfi2, %%cfi2, 1;\n  setp.ne.u32 %%cfodd, %%cfi2, 0;\n", name);
    for (int i = 0; i < CONFORM_MAX_IN; i++)
        if (op->w[i])
            emit_access(b, param_names[i], op->w[i], i + 1, false);
    sb_add(b, "  mov.%s %s, %llu;\n", bits_type(op->dw), d,
           (unsigned long long)conform_trunc(SENTINEL, op->dw));
    bool placed_guard = strstr(op->ptx, "%g") != NULL;
    if (mode == CONFORM_DIVERGENT)
        sb_add(b, "  @!%%cfodd bra $Lcf_skip;\n");
    sb_add(b, "  %s", mode == CONFORM_GUARDED && !placed_guard ? "@%cfodd " : "");
    expand_text(b, op->ptx, op, k, mode == CONFORM_GUARDED ? "@%cfodd " : "", true);
    sb_add(b, "\n");
    if (mode == CONFORM_DIVERGENT)
        sb_add(b, "$Lcf_skip:\n");
    emit_access(b, "cf_d", op->dw, 0, true);
    sb_add(b, "$Lcf_end:\n  ret;\n}\n");
}

char *conform_module(const conform_suite *s, const conform_op *op)
{
    sbuf b = {0};
    sb_add(&b, "// conformance kernels of %s (generated by tests/conform.c)\n"
               ".version %s\n.target %s\n.address_size 64\n",
           op->name, s->version, op->target ? op->target : s->target);
    for (unsigned k = 0; k < (op->nk ? op->nk : 1); k++)
        for (unsigned m = CONFORM_CONVERGED; m <= CONFORM_GUARDED; m <<= 1)
            if (op_modes(op, k) & m)
                emit_kernel(&b, op, k, m);
    return b.s;
}

/* ---- running ---- */

typedef struct io {
    size_t n;
    uint64_t *x[CONFORM_MAX_IN];
    void *buf[CONFORM_MAX_IN], *out;
} io;

static void put(void *buf, size_t t, unsigned w, uint64_t v)
{
    memcpy((char *)buf + t * w, &v, w); /* little-endian host */
}

static uint64_t get(const void *buf, size_t t, unsigned w)
{
    uint64_t v = 0;
    memcpy(&v, (const char *)buf + t * w, w);
    return v;
}

static void io_init(io *o, const conform_op *op, unsigned nrandom, size_t cap)
{
    o->n = inputs_with(op, nrandom, cap, o->x);
    for (int i = 0; i < CONFORM_MAX_IN; i++) {
        o->buf[i] = NULL;
        if (!op->w[i])
            continue;
        o->buf[i] = malloc(o->n * op->w[i] + 1);
        for (size_t t = 0; t < o->n; t++)
            put(o->buf[i], t, op->w[i], o->x[i][t]);
    }
    o->out = malloc(o->n * op->dw + 1);
}

static void io_free(io *o)
{
    conform_inputs_free(o->x);
    for (int i = 0; i < CONFORM_MAX_IN; i++)
        free(o->buf[i]);
    free(o->out);
}

static void describe(char *buf, size_t len, const conform_op *op, unsigned k, const io *o, size_t t)
{
    size_t n = 0;
    buf[0] = 0;
    if (op->nk) {
        char kt[64];
        k_text(kt, sizeof kt, op, k);
        n += (size_t)snprintf(buf + n, len - n, "[%%k=%s] ", kt);
    }
    n += (size_t)snprintf(buf + n, len - n, "thread %zu:", t);
    for (int i = 0; i < CONFORM_MAX_IN && n < len; i++)
        if (op->w[i])
            n += (size_t)snprintf(buf + n, len - n, " %c=%#llx", input_letters[i],
                                  (unsigned long long)o->x[i][t]);
}

/* Counts (and reports up to REPORT_MAX per op, with *reported) mismatches
 * of one launch's outputs. */
static int compare(const conform_op *op, unsigned k, unsigned mode, const io *o, const void *out,
                   const char *who, int *reported)
{
    int bad = 0;
    for (size_t t = 0; t < o->n; t++) {
        bool active = mode == CONFORM_CONVERGED || ((t % CONFORM_BLOCK) & 1);
        uint64_t x[CONFORM_MAX_IN] = {o->x[0][t], o->x[1][t], o->x[2][t], o->x[3][t]};
        uint64_t want = conform_trunc(active ? op->ref(op, k, x) : SENTINEL, op->dw);
        uint64_t got = get(out, t, op->dw);
        bool ok = active && op->same ? op->same(op, k, got, want) : got == want;
        if (ok)
            continue;
        if (bad++ == 0 || *reported < REPORT_MAX) {
            char in[256];
            describe(in, sizeof in, op, k, o, t);
            fprintf(stderr, "conform %s: %s (%s): %s: got %#llx, want %#llx%s\n", who, op->name,
                    mode == CONFORM_CONVERGED ? "converged" : mode == CONFORM_DIVERGENT ? "divergent" : "guarded",
                    in, (unsigned long long)got, (unsigned long long)want, active ? "" : " (inactive thread)");
            (*reported)++;
        }
    }
    return bad;
}

typedef struct file_cache {
    const char *path[16];
    ptxjit_module *mod[16];
    int n;
} file_cache;

static void resolve(char *buf, size_t len, const conform_suite *s, const char *file)
{
    if (file[0] == '/' || !s->dir)
        snprintf(buf, len, "%s", file);
    else
        snprintf(buf, len, "%s/%s", s->dir, file);
}

static ptxjit_module *load_text(ptxjit_ctx *ctx, const char *text, size_t len, const char *name)
{
    char *log = NULL;
    ptxjit_module *m = ptxjit_load(ctx, text, len, name, &log, NULL);
    if (!m)
        fprintf(stderr, "conform: %s does not load:\n%s\n", name, log ? log : "(no log)");
    free(log);
    return m;
}

static ptxjit_module *module_of(ptxjit_ctx *ctx, const conform_suite *s, const conform_op *op, file_cache *fc,
                                bool *owned)
{
    *owned = op->ptx != NULL;
    if (op->ptx) {
        char *text = conform_module(s, op);
        char name[128];
        snprintf(name, sizeof name, "conform_%s.ptx", op->name);
        ptxjit_module *m = load_text(ctx, text, strlen(text), name);
        free(text);
        return m;
    }
    for (int i = 0; i < fc->n; i++)
        if (!strcmp(fc->path[i], op->file))
            return fc->mod[i];
    char path[1024];
    size_t len;
    resolve(path, sizeof path, s, op->file);
    char *text = tu_read_file(path, &len);
    if (!text) {
        fprintf(stderr, "conform: cannot read %s\n", path);
        return NULL;
    }
    ptxjit_module *m = load_text(ctx, text, len, path);
    free(text);
    if (m && fc->n < 16) {
        fc->path[fc->n] = op->file;
        fc->mod[fc->n++] = m;
    } else if (m) {
        *owned = true;
    }
    return m;
}

typedef struct launch_params {
    const void *a, *b, *c, *e;
    void *d;
    uint32_t n;
} launch_params;

static int run_op(ptxjit_ctx *ctx, const conform_suite *s, const conform_op *op, file_cache *fc)
{
    bool owned;
    ptxjit_module *m = module_of(ctx, s, op, fc, &owned);
    if (!m)
        return 1;
    io o;
    io_init(&o, op, op->nrandom ? op->nrandom : CONFORM_NRANDOM, CONFORM_EDGE_CAP);
    int bad = 0, reported = 0;
    for (unsigned k = 0; k < (op->nk ? op->nk : 1); k++)
        for (unsigned mode = CONFORM_CONVERGED; mode <= CONFORM_GUARDED; mode <<= 1) {
            if (!(op_modes(op, k) & mode))
                continue;
            char name[160], err[256];
            conform_kernel_name(name, sizeof name, op, k, mode);
            const ptxjit_kernel *kern = ptxjit_kernel_get(m, name);
            if (!kern) {
                fprintf(stderr, "conform: %s: no kernel %s\n", op->name, name);
                bad++;
                continue;
            }
            memset(o.out, 0xcc, o.n * op->dw);
            launch_params p = {o.buf[0], o.buf[1], o.buf[2], o.buf[3], o.out, (uint32_t)o.n};
            uint32_t grid = (uint32_t)((o.n + CONFORM_BLOCK - 1) / CONFORM_BLOCK);
            ptxjit_launch_cfg cfg = {{grid, 1, 1}, {CONFORM_BLOCK, 1, 1}, 0, &p, NULL};
            if (ptxjit_launch(ctx, kern, &cfg, err, sizeof err) != PTXJIT_OK) {
                fprintf(stderr, "conform: %s: launch failed: %s\n", name, err);
                bad++;
                continue;
            }
            bad += compare(op, k, mode, &o, o.out, "ptxjit", &reported);
        }
    if (bad > reported)
        fprintf(stderr, "conform ptxjit: %s: %d mismatches in all\n", op->name, bad);
    io_free(&o);
    if (owned)
        ptxjit_module_unload(m);
    return bad;
}

int conform_run(const conform_suite *s, const conform_op *ops, size_t nops)
{
    char err[256];
    ptxjit_ctx *ctx = ptxjit_create(s->workers, err, sizeof err);
    if (!ctx) {
        fprintf(stderr, "conform: ptxjit_create: %s\n", err);
        return 1;
    }
    if (env_modes() != ALL_MODES)
        fprintf(stderr, "conform: CONFORM_MODES=%s: only these modes run\n", getenv("CONFORM_MODES"));
    file_cache fc = {0};
    int bad = 0;
    for (size_t i = 0; i < nops; i++)
        bad += run_op(ctx, s, &ops[i], &fc);
    for (int i = 0; i < fc.n; i++)
        ptxjit_module_unload(fc.mod[i]);
    ptxjit_destroy(ctx);
    return bad;
}

/* ---- the GPU cross-check files ---- */

/* GPU runs see fewer inputs: their outputs are committed. */
enum { GPU_EDGE_CAP = 2000 };

static uint64_t io_hash(const conform_op *op, const io *o)
{
    uint64_t h = conform_fnv(0xcbf29ce484222325ull, &o->n, sizeof o->n);
    for (int i = 0; i < CONFORM_MAX_IN; i++)
        if (op->w[i])
            h = conform_fnv(h, o->buf[i], o->n * op->w[i]);
    return h;
}

static bool write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(data, 1, len, f) == len;
    if (f && fclose(f) != 0)
        ok = false;
    if (!ok)
        fprintf(stderr, "conform: cannot write %s\n", path);
    return ok;
}

/* Copies an op's PTX into dir as <base>.ptx; returns the base name used. */
static bool emit_ptx(const conform_suite *s, const conform_op *op, const char *dir, char *ptxname, size_t len)
{
    char path[1024];
    if (op->ptx) {
        snprintf(ptxname, len, "%s.ptx", op->name);
        snprintf(path, sizeof path, "%s/%s", dir, ptxname);
        char *text = conform_module(s, op);
        bool ok = write_file(path, text, strlen(text));
        free(text);
        return ok;
    }
    const char *base = strrchr(op->file, '/');
    snprintf(ptxname, len, "%s", base ? base + 1 : op->file);
    char src[1024];
    size_t n;
    resolve(src, sizeof src, s, op->file);
    char *text = tu_read_file(src, &n);
    if (!text) {
        fprintf(stderr, "conform: cannot read %s\n", src);
        return false;
    }
    snprintf(path, sizeof path, "%s/%s", dir, ptxname);
    bool ok = write_file(path, text, n);
    free(text);
    return ok;
}

static bool emit_op(const conform_suite *s, const conform_op *op, const char *dir, FILE *manifest)
{
    char ptxname[256], inname[256], path[1024];
    if (!emit_ptx(s, op, dir, ptxname, sizeof ptxname))
        return false;
    io o;
    io_init(&o, op, CONFORM_GPU_NRANDOM, GPU_EDGE_CAP);
    snprintf(inname, sizeof inname, "%s.in", op->name);
    snprintf(path, sizeof path, "%s/%s", dir, inname);
    bool ok = true;
    FILE *f = fopen(path, "wb");
    for (int i = 0; f && i < CONFORM_MAX_IN; i++)
        if (op->w[i] && fwrite(o.buf[i], op->w[i], o.n, f) != o.n)
            ok = false;
    if (!f || fclose(f) != 0 || !ok) {
        fprintf(stderr, "conform: cannot write %s\n", path);
        ok = false;
    }
    uint64_t h = io_hash(op, &o);
    for (unsigned k = 0; ok && k < (op->nk ? op->nk : 1); k++) {
        char name[160];
        conform_kernel_name(name, sizeof name, op, k, CONFORM_CONVERGED);
        fprintf(manifest, "%s %s %s %zu %u %u %u %u %u %016llx\n", name, ptxname, inname, o.n, op->dw,
                op->w[0], op->w[1], op->w[2], op->w[3], (unsigned long long)h);
    }
    io_free(&o);
    return ok;
}

/* mkdir -p */
static void make_dirs(const char *dir)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", dir);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            mkdir(buf, 0777);
            *p = '/';
        }
    mkdir(buf, 0777);
}

int conform_emit(const conform_suite *s, const conform_op *ops, size_t nops, const char *dir)
{
    char path[1024];
    make_dirs(dir);
    snprintf(path, sizeof path, "%s/manifest", dir);
    FILE *manifest = fopen(path, "w");
    if (!manifest) {
        fprintf(stderr, "conform: cannot write %s\n", path);
        return 1;
    }
    fprintf(manifest, "# ptxjit conformance manifest v1 (suite %s): kernel ptx inputs n dw w_a w_b w_c w_e hash\n",
            s->name);
    int bad = 0;
    for (size_t i = 0; i < nops; i++)
        bad += !emit_op(s, &ops[i], dir, manifest);
    if (fclose(manifest) != 0)
        bad++;
    return bad;
}

char *conform_read_result(const char *path, uint64_t *hash, uint32_t *n, uint32_t *dw, size_t *len)
{
    char *data = tu_read_file(path, len);
    if (!data)
        return NULL;
    if (*len < 24 || memcmp(data, "PJCFOUT1", 8)) {
        fprintf(stderr, "conform gpu: %s: not a result file\n", path);
        free(data);
        return NULL;
    }
    memcpy(hash, data + 8, 8);
    memcpy(n, data + 16, 4);
    memcpy(dw, data + 20, 4);
    return data;
}

static int check_op_gpu(const conform_op *op, const char *dir, unsigned *checked, unsigned *stale)
{
    io o;
    io_init(&o, op, CONFORM_GPU_NRANDOM, GPU_EDGE_CAP);
    uint64_t want_hash = io_hash(op, &o);
    int bad = 0, reported = 0;
    for (unsigned k = 0; k < (op->nk ? op->nk : 1); k++) {
        char name[160], path[1300];
        conform_kernel_name(name, sizeof name, op, k, CONFORM_CONVERGED);
        snprintf(path, sizeof path, "%s/%s.out", dir, name);
        uint64_t h;
        uint32_t n, dw;
        size_t len;
        char *data = conform_read_result(path, &h, &n, &dw, &len);
        if (!data) {
            (*stale)++;
            fprintf(stderr, "conform gpu: no result for %s\n", name);
            continue;
        }
        if (h != want_hash || n != o.n || dw != op->dw || len < 24 + (size_t)n * dw) {
            (*stale)++;
            fprintf(stderr, "conform gpu: %s: recorded for other inputs (regenerate on a GPU)\n", name);
        } else {
            (*checked)++;
            bad += compare(op, k, CONFORM_CONVERGED, &o, data + 24, "gpu", &reported);
        }
        free(data);
    }
    io_free(&o);
    return bad;
}

int conform_check_gpu(const conform_suite *s, const conform_op *ops, size_t nops, const char *gpu_dir,
                      unsigned *checked, unsigned *stale)
{
    char dir[1024];
    struct stat st;
    snprintf(dir, sizeof dir, "%s/%s", gpu_dir, s->name);
    *checked = *stale = 0;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return -1;
    int bad = 0;
    for (size_t i = 0; i < nops; i++)
        bad += check_op_gpu(&ops[i], dir, checked, stale);
    return bad;
}

int conform_expect_load_errors(const char *target, const conform_bad *bad, size_t n)
{
    char err[256];
    ptxjit_ctx *c = ptxjit_create(1, err, sizeof err);
    if (!c) {
        fprintf(stderr, "ptxjit_create: %s\n", err);
        return (int)n;
    }
    int wrong = 0;
    for (size_t i = 0; i < n; i++) {
        char src[1024], *log = NULL;
        int len = snprintf(src, sizeof src,
                           ".version 8.5\n.target %s\n.address_size 64\n"
                           ".visible .entry k(.param .u64 p)\n{\n"
                           "  .reg .b32 %%r<8>; .reg .b64 %%rd<8>; .reg .f32 %%f<8>; .reg .b16 %%h<8>;\n"
                           "  ld.param.u64 %%rd1, [p];\n"
                           "  %s\n" /* line 8 */
                           "  ret;\n}\n",
                           target, bad[i].instr);
        ptxjit_module *m = ptxjit_load(c, src, (size_t)len, "bad.ptx", &log, NULL);
        if (m) {
            fprintf(stderr, "'%s' loaded\n", bad[i].instr);
            ptxjit_module_unload(m);
            wrong++;
        } else if (!log || !strstr(log, "bad.ptx:8:") || !strstr(log, bad[i].says)) {
            fprintf(stderr, "'%s': the log does not name line 8 and say %s:\n%s", bad[i].instr, bad[i].says,
                    log ? log : "");
            wrong++;
        }
        free(log);
    }
    ptxjit_destroy(c);
    return wrong;
}
