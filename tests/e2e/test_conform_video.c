/* test_conform_video.c - the scalar video instructions (vadd, vsub,
 * vabsdiff, vmin, vmax, vshl, vshr, vset, vmad) against a C reference
 * written from the PTX ISA pseudo-code, through the conformance harness
 * (tests/conform.h): edge values (0, 1, -1, INT_MIN, INT_MAX, 0x80, 0xff,
 * 0x7fff, 0x8000, shift counts 0/31/32/33/255 ...), their combinations and
 * random inputs, converged, divergent and guarded.
 *
 * Each family sweeps instruction forms (%k): type combinations, .sat,
 * every a/b selector, the secondary operations, every destination
 * selector (merge with c), the shift modes, the comparisons, and vmad's
 * negations, .po and scales.  The reference reads the form's text itself
 * and follows the ISA (sources selected and extended to 33 bits, the
 * primary result exact, then .sat, then .add/.min/.max with c or the merge
 * into c) where an H200 does, and the H200 where it departs from the text
 * (tests/gpu/results/video, compared by test_gpu_results): see
 * video_result and vshl_result.  vmad is its 128-bit pseudo-code, line by
 * line, but for the GPU's reading of a and c (r_vmad). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sys/stat.h>

#include <cmocka.h>

#include "conform.h"

typedef __int128 s128;
typedef unsigned __int128 u128;

/* ---- the form, read back from its text ---- */

typedef struct vform {
    char op[12];
    bool ds, as, bs; /* dtype/atype/btype signed (vset: atype, btype) */
    bool sat, clamp, po, na, nb, nc;
    char op2;        /* 'a'dd, 'n' min, 'x' max, 0 */
    char cmp[3];
    unsigned scale;  /* vmad: 0, 7, 15 */
    int dsel, asel, bsel; /* 0 none, 1..4 .b0-.b3, 5..6 .h0/.h1 */
    int nopds;
} vform;

static int sel_of(const char *s)
{
    if (s[0] == '.' && s[1] == 'b' && s[2] >= '0' && s[2] <= '3')
        return 1 + s[2] - '0';
    if (s[0] == '.' && s[1] == 'h' && (s[2] == '0' || s[2] == '1'))
        return 5 + s[2] - '0';
    return 0;
}

static vform parse_form(const char *text)
{
    vform f = {0};
    char buf[160];
    snprintf(buf, sizeof buf, "%s", text);
    char *sp = strchr(buf, ' ');
    *sp = 0;
    char *tok = strtok(buf, ".");
    snprintf(f.op, sizeof f.op, "%s", tok);
    int nt = 0;
    bool types[3] = {0};
    while ((tok = strtok(NULL, "."))) {
        if (!strcmp(tok, "u32") || !strcmp(tok, "s32")) types[nt++] = tok[0] == 's';
        else if (!strcmp(tok, "sat")) f.sat = true;
        else if (!strcmp(tok, "clamp")) f.clamp = true;
        else if (!strcmp(tok, "po")) f.po = true;
        else if (!strcmp(tok, "shr7")) f.scale = 7;
        else if (!strcmp(tok, "shr15")) f.scale = 15;
        else if (!strcmp(tok, "add")) f.op2 = 'a';
        else if (!strcmp(tok, "min")) f.op2 = 'n';
        else if (!strcmp(tok, "max")) f.op2 = 'x';
        else if (strcmp(tok, "wrap")) snprintf(f.cmp, sizeof f.cmp, "%s", tok);
    }
    if (!strcmp(f.op, "vset"))
        f.as = types[0], f.bs = types[1];
    else
        f.ds = types[0], f.as = types[1], f.bs = types[2];
    const char *o = text + (sp - buf);
    for (int i = 0; (o = strchr(o, '%')); i++, o += 2) {
        bool minus = o[-1] == '-';
        int sel = sel_of(o + 2);
        if (i == 0) f.dsel = sel;
        if (i == 1) f.asel = sel, f.na = minus;
        if (i == 2) f.bsel = sel, f.nb = minus;
        if (i == 3) f.nc = minus;
        f.nopds = i + 1;
    }
    return f;
}

/* ---- the ISA's helper functions ---- */

static unsigned sel_w(int sel) { return sel == 0 ? 32 : sel <= 4 ? 8 : 16; }
static unsigned sel_k(int sel) { return sel == 0 ? 0 : sel <= 4 ? (unsigned)sel - 1 : (unsigned)sel - 5; }
static s128 ext(uint64_t v, unsigned w, bool s)
{
    uint64_t m = w >= 64 ? ~0ull : (1ull << w) - 1;
    v &= m;
    return s && (v >> (w - 1)) & 1 ? (s128)v - ((s128)1 << w) : (s128)v;
}
/* partSelectSignExtend */
static s128 part_select(uint64_t x, bool s, int sel) { return ext(x >> (sel_w(sel) * sel_k(sel)), sel_w(sel), s); }
static s128 clamp(s128 v, s128 lo, s128 hi) { return v < lo ? lo : v > hi ? hi : v; }
static uint32_t optmerge(int dsel, uint32_t a, uint32_t b)
{
    switch (dsel) {
    case 5: return (a & 0xffff) | (0xffff0000u & b);
    case 6: return ((a & 0xffff) << 16) | (0xffff & b);
    case 1: return (a & 0xff) | (0xffffff00u & b);
    case 2: return ((a & 0xff) << 8) | (0xffff00ffu & b);
    case 3: return ((a & 0xff) << 16) | (0xff00ffffu & b);
    case 4: return ((a & 0xff) << 24) | (0x00ffffffu & b);
    default: return a;
    }
}

/* The low 32 bits sign-extended, as an unsigned 33-bit value: an unsigned
 * result with bit 31 set compares above every c. */
static s128 high_above(s128 v) { return ext((uint64_t)v, 32, true) & (((s128)1 << 33) - 1); }

static s128 primary(const vform *f, s128 ta, s128 tb)
{
    const char *op = f->op;
    if (!strcmp(op, "vadd")) return ta + tb;
    if (!strcmp(op, "vsub")) return ta - tb;
    if (!strcmp(op, "vabsdiff")) return ta > tb ? ta - tb : tb - ta;
    if (!strcmp(op, "vmin")) return ta < tb ? ta : tb;
    if (!strcmp(op, "vmax")) return ta > tb ? ta : tb;
    if (!strcmp(op, "vshl") || !strcmp(op, "vshr")) {
        if (f->clamp && tb > 32) tb = 32;
        if (!f->clamp) tb &= 0x1f;
        return op[3] == 'l' ? ta * ((s128)1 << tb) : ta >> tb;
    }
    const char *c = f->cmp; /* vset */
    return !strcmp(c, "eq") ? ta == tb : !strcmp(c, "ne") ? ta != tb : !strcmp(c, "lt") ? ta < tb
         : !strcmp(c, "le") ? ta <= tb : !strcmp(c, "gt") ? ta > tb : ta >= tb;
}

/* The result before the secondary operation, as the H200 computes it (but
 * vshl: vshl_result).  .sat on a whole word: signed clamps to s32;
 * unsigned clamps a negative result to 0 and keeps an overflow (it wraps).
 * .sat on a byte or half word: vshr truncates a signed result and clamps a
 * negative unsigned one to 0; the others clamp the result, read as
 * unsigned 64 bits, to the field's maximum (a negative result saturates
 * high).  Without .sat the 32 bits are read by dtype's sign, but
 * vabsdiff/vmin/vmax keep the exact result for .min/.max/.add (33 bits
 * when unsigned), vshr its 32 bits for .min/.max. */
static s128 video_result(const vform *f, s128 r, bool shift)
{
    if (!strcmp(f->op, "vset"))
        return r;
    if (f->sat && !f->dsel)
        return f->ds ? clamp(r, INT32_MIN, INT32_MAX) : r < 0 ? 0 : r;
    if (f->sat && shift)
        return f->ds ? (s128)(uint32_t)r : r < 0 ? 0 : r;
    if (f->sat) {
        s128 top = f->ds ? ((s128)1 << (sel_w(f->dsel) - 1)) - 1 : ((s128)1 << sel_w(f->dsel)) - 1;
        u128 u = (uint64_t)r;
        return u > (u128)top ? top : (s128)u;
    }
    bool exact = f->op2 && (!strcmp(f->op, "vabsdiff") || !strcmp(f->op, "vmin") || !strcmp(f->op, "vmax"));
    if (exact)
        return f->ds ? r : r & (((s128)1 << 33) - 1);
    if (shift && (f->op2 == 'n' || f->op2 == 'x'))
        return f->ds ? r : (s128)(uint32_t)r;
    return ext((uint64_t)r, 32, f->ds);
}

/* vshl: .sat (whole word or field) clamps the shifted value wrapped to 34
 * bits to dtype's 32-bit range; .min/.max compare its 64 bits, read by
 * dtype's sign; otherwise 32 bits. */
static s128 vshl_result(const vform *f, s128 r)
{
    if (f->sat)
        return f->ds ? clamp(ext((uint64_t)r, 34, true), INT32_MIN, INT32_MAX)
                     : clamp(ext((uint64_t)r, 34, true), 0, UINT32_MAX);
    if (f->op2 == 'n' || f->op2 == 'x')
        return ext((uint64_t)r, 64, f->ds);
    return ext((uint64_t)r, 32, f->ds);
}

static uint64_t r_video(const vform *f, const uint64_t *x)
{
    s128 ta = part_select(x[0], f->as, f->asel), tb = part_select(x[1], f->bs, f->bsel);
    bool vshl = !strcmp(f->op, "vshl"), vshr = !strcmp(f->op, "vshr");
    bool add = !strcmp(f->op, "vadd") || !strcmp(f->op, "vsub"), minmax = f->op2 == 'n' || f->op2 == 'x';
    s128 r = primary(f, ta, tb);
    s128 tmp = vshl ? vshl_result(f, r) : video_result(f, r, vshr);
    /* vset's c is extended by atype, the others' by dtype */
    s128 c = ext(x[2], 32, !strcmp(f->op, "vset") ? f->as : f->ds);
    if (!f->ds && ((add && minmax) || (vshr && f->op2 == 'n') || (vshl && f->sat && minmax)))
        tmp = high_above(tmp);
    if (f->op2 == 'a') tmp += c;
    if (f->op2 == 'n') tmp = tmp < c ? tmp : c;
    if (f->op2 == 'x') tmp = tmp > c ? tmp : c;
    if (f->nopds == 4 && f->dsel == 6) /* .h1 takes the result's own high half */
        return ((uint32_t)tmp & 0xffff0000u) | ((uint32_t)x[2] & 0xffff);
    if (f->nopds == 4 && f->dsel)
        return optmerge(f->dsel, (uint32_t)tmp, (uint32_t)x[2]);
    return (uint32_t)tmp;
}

/* vmad, as the ISA's pseudo-code but where the H200 departs from it: a
 * whole-word a or b is read as signed whatever its type (a selected byte
 * or half word by its type), and c is always sign-extended; the final
 * type's sign still picks the .sat range. */
static uint64_t r_vmad(const vform *f, const uint64_t *x)
{
    s128 ta = part_select(x[0], f->as || !f->asel, f->asel), tb = part_select(x[1], f->bs || !f->bsel, f->bsel);
    bool signed_final = f->as || f->bs || (f->na ^ f->nb) || f->nc;
    u128 tmp = (u128)(ta * tb);
    uint32_t c = (uint32_t)x[2];
    unsigned lsb = 0;
    if (f->po) lsb = 1;
    else if (f->na ^ f->nb) tmp = ~tmp, lsb = 1;
    else if (f->nc) c = ~c, lsb = 1;
    u128 c128 = (u128)(s128)(int32_t)c;
    tmp = tmp + c128 + lsb;
    uint64_t result = (uint64_t)(f->scale ? (u128)((s128)tmp >> f->scale) : tmp);
    if (f->sat) {
        if (signed_final) result = (uint64_t)(int64_t)clamp((int64_t)result, INT32_MIN, INT32_MAX);
        else result = result > UINT32_MAX ? UINT32_MAX : result;
    }
    return (uint32_t)result;
}

/* ---- the forms ---- */

enum { MAXFORMS = 160 };
typedef struct form_set {
    const char *names[MAXFORMS];
    char text[MAXFORMS][128];
    unsigned n;
} form_set;

static const char *const vops[] = {"vadd", "vsub", "vabsdiff", "vmin", "vmax"};
static const char *const sels[] = {"", ".b0", ".b1", ".b2", ".b3", ".h0", ".h1"};
static const char *const su[] = {"u32", "s32"};
static const char *const op2s[] = {"add", "min", "max"};

static void add_form(form_set *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->text[s->n], sizeof s->text[0], fmt, ap);
    va_end(ap);
    s->names[s->n] = s->text[s->n];
    s->n++;
    assert_true(s->n < MAXFORMS);
}

/* vop: every type combination with and without .sat; every a and b
 * selector; the secondary operations; every destination selector. */
static void vop_forms(form_set *s, const char *op)
{
    for (int t = 0; t < 8; t++)
        for (int sat = 0; sat < 2; sat++)
            add_form(s, "%s.%s.%s.%s%s %%d, %%a, %%b;", op, su[t >> 2], su[(t >> 1) & 1], su[t & 1], sat ? ".sat" : "");
    for (int i = 0; i < 7; i++)
        for (int j = 0; j < 7; j++)
            if ((i + j) % 3 == 0 || i == 0 || j == 0)
                add_form(s, "%s.%s.%s.%s%s %%d, %%a%s, %%b%s;", op, su[(i + j) & 1], su[i & 1], su[j & 1],
                         (i + 2 * j) % 3 == 0 ? ".sat" : "", sels[i], sels[j]);
    for (int o = 0; o < 3; o++)
        for (int t = 0; t < 8; t++)
            add_form(s, "%s.%s.%s.%s%s.%s %%d, %%a, %%b, %%c;", op, su[t >> 2], su[(t >> 1) & 1], su[t & 1],
                     t % 3 == o ? ".sat" : "", op2s[o]);
    for (int d = 1; d < 7; d++)
        for (int sat = 0; sat < 2; sat++)
            add_form(s, "%s.%s.%s.%s%s %%d%s, %%a%s, %%b, %%c;", op, su[(d + sat) & 1], su[d & 1], su[sat],
                     sat ? ".sat" : "", sels[d], sels[(d + 2) % 7]);
}

static void shift_forms(form_set *s, const char *op)
{
    for (int m = 0; m < 2; m++) {
        const char *mode = m ? ".clamp" : ".wrap";
        for (int t = 0; t < 4; t++)
            for (int sat = 0; sat < 2; sat++)
                add_form(s, "%s.%s.%s.u32%s%s %%d, %%a, %%b;", op, su[t >> 1], su[t & 1], mode, sat ? ".sat" : "");
        for (int i = 0; i < 7; i++)
            add_form(s, "%s.%s.%s.u32%s%s %%d, %%a%s, %%b%s;", op, su[i & 1], su[(i >> 1) & 1], mode,
                     i % 3 ? ".sat" : "", sels[i], sels[(i + m + 1) % 7]);
        for (int o = 0; o < 3; o++)
            for (int t = 0; t < 4; t++)
                add_form(s, "%s.%s.%s.u32%s%s.%s %%d, %%a, %%b, %%c;", op, su[t >> 1], su[t & 1], mode,
                         (t + o) % 2 ? ".sat" : "", op2s[o]);
        for (int d = 1; d < 7; d++)
            add_form(s, "%s.%s.%s.u32%s%s %%d%s, %%a, %%b, %%c;", op, su[(d + m) & 1], su[d & 1], mode,
                     d % 2 ? ".sat" : "", sels[d]);
    }
}

static void vset_forms(form_set *s)
{
    static const char *const cmps[] = {"eq", "ne", "lt", "le", "gt", "ge"};
    for (int c = 0; c < 6; c++)
        for (int t = 0; t < 4; t++)
            add_form(s, "vset.%s.%s.%s %%d, %%a, %%b;", su[t >> 1], su[t & 1], cmps[c]);
    for (int i = 0; i < 7; i++)
        for (int j = 0; j < 7; j++)
            if ((i + j) % 3 == 0)
                add_form(s, "vset.%s.%s.%s %%d, %%a%s, %%b%s;", su[i & 1], su[j & 1], cmps[(i + j) % 6], sels[i], sels[j]);
    for (int o = 0; o < 3; o++)
        for (int t = 0; t < 4; t++)
            add_form(s, "vset.%s.%s.%s.%s %%d, %%a, %%b, %%c;", su[t >> 1], su[t & 1], cmps[(t + o) % 6], op2s[o]);
    for (int d = 1; d < 7; d++)
        add_form(s, "vset.%s.%s.%s %%d%s, %%a, %%b, %%c;", su[d & 1], su[(d >> 1) & 1], cmps[d % 6], sels[d]);
}

/* vmad: every type combination with each allowed negation (.sat and the
 * scales cycled through all six pairs); .po forms; selectors. */
static void vmad_forms(form_set *s)
{
    static const char *const negs[][3] = {{"", "", ""}, {"-", "", ""}, {"", "-", ""}, {"", "", "-"},
                                          {"-", "-", ""}, {"-", "-", "-"}};
    static const char *const scales[] = {"", ".shr7", ".shr15"};
    for (int t = 0; t < 8; t++)
        for (int n = 0; n < 6; n++)
            add_form(s, "vmad.%s.%s.%s%s%s %%d, %s%%a, %s%%b, %s%%c;", su[t >> 2], su[(t >> 1) & 1], su[t & 1],
                     (t + n) % 2 ? ".sat" : "", scales[(t + n) % 3], negs[n][0], negs[n][1], negs[n][2]);
    for (int t = 0; t < 8; t++)
        for (int sc = 0; sc < 3; sc++)
            add_form(s, "vmad.%s.%s.%s.po%s%s %%d, %%a, %%b, %%c;", su[t >> 2], su[(t >> 1) & 1], su[t & 1],
                     (t + sc) % 2 ? ".sat" : "", scales[sc]);
    for (int i = 1; i < 7; i++)
        add_form(s, "vmad.%s.%s.%s%s %%d, %%a%s, %s%%b%s, %%c;", su[i & 1], su[i & 1], su[(i >> 1) & 1],
                 i % 2 ? ".shr7" : "", sels[i], i % 3 ? "-" : "", sels[7 - i]);
}

/* ---- running ---- */

static uint64_t ref(const conform_op *op, unsigned k, const uint64_t *x)
{
    vform f = parse_form(op->kstr[k]);
    return !strcmp(f.op, "vmad") ? r_vmad(&f, x) : r_video(&f, x);
}

/* selector bytes and halves, shift counts */
static const uint64_t extra[] = {0x80, 0xff, 0x7f, 0x7fff, 0x8000, 0xff7f, 0x80ff, 0x7f80ff01,
                                 0x8000ff7f, 0xff800080, 0x1f, 0x21, 0xff00, 0x00ff0080};

/* GPU cross-check (scripts/gpu-crosscheck.sh): --emit collects every op
 * and writes them once; --check-gpu compares recorded outputs. */
static enum { RUN, EMIT, CHECK_GPU } mode;
static conform_op emitted[16];
static size_t nemitted;
static const char *gpu_dir;
static int gpu_bad;
static unsigned gpu_checked, gpu_stale;

static void run_forms(const char *name, const form_set *s)
{
    conform_op op = {.name = name, .ptx = "%k", .dw = 4, .w = {4, 4, 4}, .ref = ref, .nk = s->n, .kstr = s->names,
                     .edges = {extra, extra, extra}, .nedges = {14, 14, 14}, .nrandom = 200};
    conform_suite suite = {.name = "video", .version = "8.0", .target = "sm_80", .workers = 2};
    if (mode == EMIT) {
        if (nemitted == sizeof emitted / sizeof emitted[0])
            abort();
        emitted[nemitted++] = op; /* its form_set stays alive (run_op) */
        return;
    }
    if (mode == CHECK_GPU) {
        unsigned c, st;
        int r = conform_check_gpu(&suite, &op, 1, gpu_dir, &c, &st);
        gpu_bad += r < 0 ? 1 : r, gpu_checked += c, gpu_stale += st;
        return;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int bad = conform_run(&suite, &op, 1);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("%s: %u forms in %.2f s\n", name, s->n,
           (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
    assert_int_equal(bad, 0);
}

/* Builds the forms of one instruction and runs them. */
static void run_op(const char *op, void (*build)(form_set *, const char *))
{
    form_set *s = calloc(1, sizeof *s);
    assert_non_null(s);
    build(s, op);
    run_forms(op, s);
    if (mode != EMIT)
        free(s);
}

static void vset_build(form_set *s, const char *op) { (void)op, vset_forms(s); }
static void vmad_build(form_set *s, const char *op) { (void)op, vmad_forms(s); }

static void test_vop(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof vops / sizeof vops[0]; i++)
        run_op(vops[i], vop_forms);
}

static void test_shift(void **state)
{
    (void)state;
    run_op("vshl", shift_forms);
    run_op("vshr", shift_forms);
}

static void test_vset(void **state) { (void)state, run_op("vset", vset_build); }
static void test_vmad(void **state) { (void)state, run_op("vmad", vmad_build); }

/* The outputs recorded on an H200 (tests/gpu/results/video), when present,
 * against the references (which the other tests hold ptxjit to). */
static void test_gpu_results(void **state)
{
    (void)state;
    const char *env = getenv("PTXJIT_GPU_RESULTS");
    char dir[1024], sub[1100];
    snprintf(dir, sizeof dir, "%s", env && *env ? env : PTXJIT_TEST_DIR "/gpu/results");
    snprintf(sub, sizeof sub, "%s/video", dir);
    struct stat st;
    if (stat(sub, &st) != 0 || !S_ISDIR(st.st_mode)) {
        printf("no GPU results in %s; skipping\n", sub);
        skip();
    }
    mode = CHECK_GPU, gpu_dir = dir, gpu_bad = 0, gpu_checked = gpu_stale = 0;
    test_vop(NULL), test_shift(NULL), test_vset(NULL), test_vmad(NULL);
    mode = RUN;
    printf("GPU results: %u kernels compared, %u missing or stale\n", gpu_checked, gpu_stale);
    assert_int_equal(gpu_stale, 0);
    assert_int_equal(gpu_bad, 0);
}

/* The reference itself, on values worked by hand from the ISA text. */
static void test_reference(void **state)
{
    (void)state;
    const uint64_t x1[] = {0xffffffff, 1, 0};
    /* the GPU wraps an unsigned overflow under .sat: only a negative result clamps */
    assert_int_equal(ref(&(conform_op){.kstr = (const char *[]){"vadd.u32.u32.u32.sat %d, %a, %b;"}}, 0, x1), 0);
    assert_int_equal(ref(&(conform_op){.kstr = (const char *[]){"vadd.u32.u32.u32 %d, %a, %b;"}}, 0, x1), 0);
    assert_int_equal(ref(&(conform_op){.kstr = (const char *[]){"vadd.s32.s32.u32 %d, %a, %b;"}}, 0, x1), 0);
    const uint64_t x2[] = {0x80, 0x7fff8000, 0x11223344};
    /* -128 (s8 of 0x80) - (-32768) = 32640, saturated to s8: 127, merged into byte 1 */
    assert_int_equal(ref(&(conform_op){.kstr = (const char *[]){"vsub.s32.s32.s32.sat %d.b1, %a.b0, %b.h0, %c;"}}, 0, x2),
                     0x11227f44);
    /* 0x80 << 31 wraps to 0 in 32 bits, and to 0 in the GPU's 34 bits before .sat */
    const uint64_t x3[] = {0x80, 31, 0};
    assert_int_equal(ref(&(conform_op){.kstr = (const char *[]){"vshl.u32.u32.u32.clamp %d, %a, %b;"}}, 0, x3), 0);
    assert_int_equal(ref(&(conform_op){.kstr = (const char *[]){"vshl.s32.u32.u32.clamp.sat %d, %a, %b;"}}, 0, x3), 0);
    /* vset.lt: -1 (s32) < 0 (u32) is 1; .min with c = 0: 0 */
    const uint64_t x4[] = {0xffffffff, 0, 0};
    assert_int_equal(ref(&(conform_op){.kstr = (const char *[]){"vset.s32.u32.lt %d, %a, %b;"}}, 0, x4), 1);
    assert_int_equal(ref(&(conform_op){.kstr = (const char *[]){"vset.s32.u32.lt.min %d, %a, %b, %c;"}}, 0, x4), 0);
    /* vmad: -(3 * 5) + 100 = 85; .po: 3*5 + 100 + 1 = 116, >> 7 = 0 */
    const uint64_t x5[] = {3, 5, 100};
    assert_int_equal(ref(&(conform_op){.kstr = (const char *[]){"vmad.s32.s32.s32 %d, -%a, %b, %c;"}}, 0, x5), 85);
    assert_int_equal(ref(&(conform_op){.kstr = (const char *[]){"vmad.u32.u32.u32.po %d, %a, %b, %c;"}}, 0, x5), 116);
    assert_int_equal(ref(&(conform_op){.kstr = (const char *[]){"vmad.u32.u32.u32.po.shr7 %d, %a, %b, %c;"}}, 0, x5), 0);
    /* (u32 * u32) - u32: 0 - 1 = -1, clamped to S32 range: -1 */
    const uint64_t x6[] = {0, 0, 1};
    assert_int_equal(ref(&(conform_op){.kstr = (const char *[]){"vmad.u32.u32.u32.sat %d, %a, %b, -%c;"}}, 0, x6), 0xffffffff);
}

int main(int argc, char **argv)
{
    if (argc == 3 && (!strcmp(argv[1], "--emit") || !strcmp(argv[1], "--check-gpu"))) {
        mode = !strcmp(argv[1], "--emit") ? EMIT : CHECK_GPU;
        gpu_dir = argv[2];
        test_vop(NULL), test_shift(NULL), test_vset(NULL), test_vmad(NULL);
        if (mode == CHECK_GPU) {
            printf("GPU results: %u kernels compared, %u missing or stale, %d wrong\n", gpu_checked, gpu_stale,
                   gpu_bad);
            return gpu_bad != 0;
        }
        char sub[1024];
        snprintf(sub, sizeof sub, "%s/video", gpu_dir);
        conform_suite suite = {.name = "video", .version = "8.0", .target = "sm_80", .workers = 2};
        return conform_emit(&suite, emitted, nemitted, sub) != 0;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference), cmocka_unit_test(test_vop), cmocka_unit_test(test_shift),
        cmocka_unit_test(test_vset), cmocka_unit_test(test_vmad), cmocka_unit_test(test_gpu_results),
    };
    return cmocka_run_group_tests_name("conform_video", tests, NULL, NULL);
}
