/* test_fatbin.c - rt/cuda/fatbin: images nvcc 13 wrote (tests/cuda/fatbin,
 * scripts/gen-fatbin-fixtures.sh) in every compression mode, with several
 * arches, cubin-only, with identifier/options strings, the executable's
 * wrapper, plain PTX and a bare cubin; the selection rule; truncation at
 * every offset and random corruption.
 *
 * References: the extracted PTX must equal `nvcc -ptx` output of the same
 * source (add1.sm_80.ptx, tests/ptx/corpus/vector_ops.sm_80.ptx) after the
 * normalisation fatbinary applies (comments removed, runs of blanks made one
 * space, blanks at line ends dropped), done here independently; an embedded
 * cubin must equal `nvcc -cubin` output byte for byte; the payload size is
 * the text, its NUL and zero padding to 8 bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fatbin.h"
#include "test_util.h"

/* --- fixtures and the reference text ------------------------------------- */

typedef struct blob {
    uint8_t *p;
    size_t n;
} blob;

static blob load(const char *rel)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", PTXJIT_TEST_DIR, rel);
    blob b;
    b.p = (uint8_t *)tu_read_file(path, &b.n);
    if (!b.p)
        fail_msg("cannot read %s", path);
    return b;
}

static blob fixture(const char *name)
{
    char rel[256];
    snprintf(rel, sizeof rel, "cuda/fatbin/%s", name);
    return load(rel);
}

/* The normalisation fatbinary applies to PTX it stores. */
static char *normalise_ptx(const char *src)
{
    size_t n = strlen(src);
    char *out = malloc(n + 1), *o = out;
    const char *line_start = out;
    for (const char *s = src; *s;) {
        if (s[0] == '/' && s[1] == '/') {
            while (*s && *s != '\n')
                s++;
        } else if (*s == ' ' || *s == '\t') {
            while (*s == ' ' || *s == '\t')
                s++;
            if (o > line_start && *s && *s != '\n' && !(s[0] == '/' && s[1] == '/'))
                *o++ = ' ';
        } else {
            if (*s == '\n')
                while (o > line_start && o[-1] == ' ')
                    o--;
            *o++ = *s;
            if (*s++ == '\n')
                line_start = o;
        }
    }
    *o = 0;
    return out;
}

static char *reference_ptx(const char *rel)
{
    blob b = load(rel);
    char *t = normalise_ptx((const char *)b.p);
    free(b.p);
    return t;
}

/* Parses a fixture with its size known and, separately, unknown (size 0). */
static rt_fatbin parse_fixture(const blob *b)
{
    rt_fatbin fb, fb0;
    assert_int_equal(rt_fatbin_parse(b->p, b->n, &fb), RT_FATBIN_OK);
    assert_int_equal(rt_fatbin_parse(b->p, 0, &fb0), RT_FATBIN_OK);
    assert_int_equal(fb0.count, fb.count);
    assert_int_equal(fb0.container_size, fb.container_size);
    rt_fatbin_release(&fb0);
    return fb;
}

static void expect_text(const blob *b, unsigned cc, const char *want)
{
    char *ptx = NULL;
    size_t len = 0;
    rt_fatbin_status st = rt_fatbin_ptx(b->p, b->n, cc, &ptx, &len);
    if (st != RT_FATBIN_OK)
        fail_msg("rt_fatbin_ptx: %s", rt_fatbin_strerror(st));
    assert_int_equal(len, strlen(want));
    assert_string_equal(ptx, want);
    free(ptx);
}

/* The text chosen for cc declares `.target target`. */
static void expect_target(const blob *b, unsigned cc, const char *target)
{
    char *ptx, line[64];
    assert_int_equal(rt_fatbin_ptx(b->p, b->n, cc, &ptx, NULL), RT_FATBIN_OK);
    snprintf(line, sizeof line, "\n.target %s\n", target);
    if (!strstr(ptx, line))
        fail_msg("cc %u: no '.target %s'", cc, target);
    free(ptx);
}

static size_t padded(size_t text_len) { return (text_len + 1 + 7) & ~(size_t)7; }

/* --- compression modes ----------------------------------------------------- */

static void check_single_ptx(const char *name, rt_fatbin_compression comp, uint64_t flag)
{
    blob b = fixture(name);
    char *want = reference_ptx("cuda/fatbin/add1.sm_80.ptx");
    rt_fatbin fb = parse_fixture(&b);
    assert_int_equal(fb.format, RT_FATBIN_FMT_CONTAINER);
    assert_int_equal(fb.container_size, b.n);
    assert_int_equal(fb.count, 1);
    const rt_fatbin_entry *e = &fb.entries[0];
    assert_int_equal(e->kind, RT_FATBIN_KIND_PTX);
    assert_int_equal(e->arch, 80);
    assert_int_equal(e->version_major, 9); /* .version 9.0 in the text */
    assert_int_equal(e->version_minor, 0);
    assert_int_equal(e->compression, comp);
    assert_true(e->flags & RT_FATBIN_FLAG_64BIT);
    assert_true(e->flags & RT_FATBIN_FLAG_LINUX);
    assert_int_equal(e->flags & (RT_FATBIN_FLAG_LZ4 | RT_FATBIN_FLAG_ZSTD), flag);
    assert_int_equal(e->size, padded(strlen(want)));
    if (comp != RT_FATBIN_COMP_NONE)
        assert_true(e->stored_size < e->size);
    assert_null(e->ident);
    assert_null(e->options);
    uint8_t *data;
    size_t len;
    assert_int_equal(rt_fatbin_entry_data(e, &data, &len), RT_FATBIN_OK);
    assert_int_equal(len, e->size);
    assert_string_equal((char *)data, want);
    for (size_t i = strlen(want); i <= len; i++)
        assert_int_equal(data[i], 0);
    free(data);
    expect_text(&b, 80, want);
    rt_fatbin_release(&fb);
    free(want);
    free(b.p);
}

static void test_ptx_stored_plain(void **state)
{
    check_single_ptx("add1.c80.none.fatbin", RT_FATBIN_COMP_NONE, 0);
}

static void test_ptx_lz4_compressed(void **state)
{
    check_single_ptx("add1.c80.lz4.fatbin", RT_FATBIN_COMP_LZ4, RT_FATBIN_FLAG_LZ4);
}

static void test_ptx_zstd_compressed(void **state)
{
    check_single_ptx("add1.c80.zstd.fatbin", RT_FATBIN_COMP_ZSTD, RT_FATBIN_FLAG_ZSTD);
}

static void test_larger_lz4_entry_matches_corpus(void **state)
{
    blob b = fixture("vector_ops.c80.lz4.fatbin");
    char *want = reference_ptx("ptx/corpus/vector_ops.sm_80.ptx");
    rt_fatbin fb = parse_fixture(&b);
    assert_int_equal(fb.entries[0].compression, RT_FATBIN_COMP_LZ4);
    assert_true(strlen(want) > 8000);
    expect_text(&b, 80, want);
    rt_fatbin_release(&fb);
    free(want);
    free(b.p);
}

static void test_size_mode_compresses_cubin_too(void **state)
{
    blob b = fixture("add1.c80_sm80.size.fatbin");
    blob cubin = fixture("add1.sm_80.cubin");
    rt_fatbin fb = parse_fixture(&b);
    assert_int_equal(fb.count, 2);
    const rt_fatbin_entry *elf = NULL;
    for (size_t i = 0; i < fb.count; i++) {
        assert_int_equal(fb.entries[i].compression, RT_FATBIN_COMP_ZSTD);
        if (fb.entries[i].kind == RT_FATBIN_KIND_ELF)
            elf = &fb.entries[i];
    }
    assert_non_null(elf);
    assert_int_equal(elf->arch, 80);
    uint8_t *data;
    size_t len;
    assert_int_equal(rt_fatbin_entry_data(elf, &data, &len), RT_FATBIN_OK);
    assert_true(len >= cubin.n && len < cubin.n + 8);
    assert_memory_equal(data, cubin.p, cubin.n);
    free(data);
    char *want = reference_ptx("cuda/fatbin/add1.sm_80.ptx");
    expect_text(&b, 80, want);
    free(want);
    rt_fatbin_release(&fb);
    free(cubin.p);
    free(b.p);
}

/* --- several arches and the selection rule ---------------------------------- */

static void expect_select(const rt_fatbin *fb, unsigned cc, rt_fatbin_status want_st,
                          unsigned want_arch, uint64_t want_flag)
{
    size_t i = SIZE_MAX;
    rt_fatbin_status st = rt_fatbin_select_ptx(fb, cc, &i);
    if (st != want_st)
        fail_msg("cc %u: %s, wanted %s", cc, rt_fatbin_strerror(st), rt_fatbin_strerror(want_st));
    if (st != RT_FATBIN_OK)
        return;
    assert_int_equal(fb->entries[i].kind, RT_FATBIN_KIND_PTX);
    if (fb->entries[i].arch != want_arch)
        fail_msg("cc %u: chose arch %u, wanted %u", cc, fb->entries[i].arch, want_arch);
    assert_int_equal(fb->entries[i].flags & want_flag, want_flag);
}

static void test_multi_arch_entries_in_order(void **state)
{
    blob b = fixture("add1.multi.fatbin");
    rt_fatbin fb = parse_fixture(&b);
    static const struct { unsigned kind, arch; } want[] = {
        {RT_FATBIN_KIND_PTX, 75}, {RT_FATBIN_KIND_PTX, 80},
        {RT_FATBIN_KIND_ELF, 80}, {RT_FATBIN_KIND_PTX, 90},
    };
    assert_int_equal(fb.count, 4);
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(fb.entries[i].kind, want[i].kind);
        assert_int_equal(fb.entries[i].arch, want[i].arch);
    }
    rt_fatbin_release(&fb);
    free(b.p);
}

static void test_selection_highest_arch_not_above_device(void **state)
{
    blob b = fixture("add1.multi.fatbin");
    rt_fatbin fb = parse_fixture(&b);
    expect_select(&fb, 75, RT_FATBIN_OK, 75, 0);
    expect_select(&fb, 80, RT_FATBIN_OK, 80, 0);
    expect_select(&fb, 86, RT_FATBIN_OK, 80, 0);
    expect_select(&fb, 89, RT_FATBIN_OK, 80, 0);
    expect_select(&fb, 90, RT_FATBIN_OK, 90, 0);
    expect_select(&fb, 100, RT_FATBIN_OK, 90, 0);
    expect_select(&fb, 120, RT_FATBIN_OK, 90, 0);
    expect_select(&fb, 70, RT_FATBIN_NO_COMPATIBLE_PTX, 0, 0);
    expect_select(&fb, 52, RT_FATBIN_NO_COMPATIBLE_PTX, 0, 0);
    /* The text follows the choice. */
    expect_target(&b, 86, "sm_80");
    expect_target(&b, 75, "sm_75");
    expect_target(&b, 120, "sm_90");
    char *ptx;
    assert_int_equal(rt_fatbin_ptx(b.p, b.n, 70, &ptx, NULL), RT_FATBIN_NO_COMPATIBLE_PTX);
    assert_null(ptx);
    rt_fatbin_release(&fb);
    free(b.p);
}

static void test_selection_arch_and_family_specific(void **state)
{
    blob b = fixture("add1.specific.fatbin");
    rt_fatbin fb = parse_fixture(&b);
    assert_int_equal(fb.count, 3);
    assert_true(fb.entries[0].flags & RT_FATBIN_FLAG_ARCH_SPECIFIC);   /* compute_90a */
    assert_true(fb.entries[1].flags & RT_FATBIN_FLAG_FAMILY_SPECIFIC); /* compute_100f */
    assert_int_equal(fb.entries[2].flags &
                     (RT_FATBIN_FLAG_ARCH_SPECIFIC | RT_FATBIN_FLAG_FAMILY_SPECIFIC), 0);
    expect_select(&fb, 90, RT_FATBIN_OK, 90, RT_FATBIN_FLAG_ARCH_SPECIFIC);
    expect_select(&fb, 89, RT_FATBIN_NO_COMPATIBLE_PTX, 0, 0);
    expect_select(&fb, 91, RT_FATBIN_NO_COMPATIBLE_PTX, 0, 0); /* 90a is 9.0 only */
    expect_select(&fb, 100, RT_FATBIN_OK, 100, RT_FATBIN_FLAG_FAMILY_SPECIFIC);
    expect_select(&fb, 103, RT_FATBIN_OK, 100, RT_FATBIN_FLAG_FAMILY_SPECIFIC);
    expect_select(&fb, 110, RT_FATBIN_NO_COMPATIBLE_PTX, 0, 0); /* another family */
    expect_select(&fb, 120, RT_FATBIN_OK, 120, 0);
    expect_select(&fb, 121, RT_FATBIN_OK, 120, 0);
    expect_target(&b, 90, "sm_90a");
    expect_target(&b, 103, "sm_100f");
    rt_fatbin_release(&fb);
    free(b.p);
}

static void test_selection_prefers_specific_at_equal_arch(void **state)
{
    /* Hand-built entry lists: ties broken by specificity, then order. */
    rt_fatbin_entry e[3] = {
        {.kind = RT_FATBIN_KIND_PTX, .arch = 90},
        {.kind = RT_FATBIN_KIND_PTX, .arch = 90, .flags = RT_FATBIN_FLAG_ARCH_SPECIFIC},
        {.kind = RT_FATBIN_KIND_PTX, .arch = 90},
    };
    rt_fatbin fb = {.count = 3, .entries = e};
    size_t i;
    assert_int_equal(rt_fatbin_select_ptx(&fb, 90, &i), RT_FATBIN_OK);
    assert_int_equal(i, 1);
    assert_int_equal(rt_fatbin_select_ptx(&fb, 100, &i), RT_FATBIN_OK);
    assert_int_equal(i, 0);
    rt_fatbin empty = {0};
    assert_int_equal(rt_fatbin_select_ptx(&empty, 90, &i), RT_FATBIN_NO_PTX);
}

/* --- machine code only, identifiers, the wrapper ----------------------------- */

static void test_cubin_only_has_no_ptx(void **state)
{
    blob b = fixture("add1.sass_only.fatbin");
    rt_fatbin fb = parse_fixture(&b);
    assert_int_equal(fb.count, 2);
    assert_int_equal(fb.entries[0].kind, RT_FATBIN_KIND_ELF);
    assert_int_equal(fb.entries[0].arch, 75);
    assert_int_equal(fb.entries[1].kind, RT_FATBIN_KIND_ELF);
    assert_int_equal(fb.entries[1].arch, 80);
    size_t i;
    assert_int_equal(rt_fatbin_select_ptx(&fb, 80, &i), RT_FATBIN_NO_PTX);
    char *ptx = (char *)1;
    assert_int_equal(rt_fatbin_ptx(b.p, b.n, 80, &ptx, NULL), RT_FATBIN_NO_PTX);
    assert_null(ptx);
    rt_fatbin_release(&fb);
    free(b.p);
}

static void test_bare_cubin_is_machine_code(void **state)
{
    blob b = fixture("add1.sm_80.cubin");
    rt_fatbin fb = parse_fixture(&b);
    assert_int_equal(fb.format, RT_FATBIN_FMT_ELF);
    assert_int_equal(fb.count, 1);
    assert_int_equal(fb.entries[0].kind, RT_FATBIN_KIND_ELF);
    assert_int_equal(fb.container_size, b.n); /* also when the size was not given */
    char *ptx;
    assert_int_equal(rt_fatbin_ptx(b.p, 0, 80, &ptx, NULL), RT_FATBIN_NO_PTX);
    rt_fatbin_release(&fb);
    free(b.p);
}

static void test_identifier_and_options_strings(void **state)
{
    blob b = fixture("add1.ident.fatbin");
    rt_fatbin fb = parse_fixture(&b);
    assert_int_equal(fb.count, 2);
    const rt_fatbin_entry *ptx = &fb.entries[0], *elf = &fb.entries[1];
    assert_int_equal(ptx->kind, RT_FATBIN_KIND_PTX);
    assert_int_equal(elf->kind, RT_FATBIN_KIND_ELF);
    assert_int_equal(ptx->ident_len, 7);
    assert_memory_equal(ptx->ident, "add1.cu", 7);
    assert_int_equal(elf->ident_len, 7);
    assert_memory_equal(elf->ident, "add1.cu", 7);
    assert_int_equal(ptx->options_len, strlen("-O3 --verbose"));
    assert_memory_equal(ptx->options, "-O3 --verbose", ptx->options_len);
    assert_null(elf->options);
    char *want = reference_ptx("cuda/fatbin/add1.sm_80.ptx");
    expect_text(&b, 80, want);
    free(want);
    rt_fatbin_release(&fb);
    free(b.p);
}

/* The wrapper nvcc -c wrote, its data pointer (relocated by the linker, so
 * zero in the object) set to the .nv_fatbin section it names. */
static uint8_t *wrapper_for(const uint8_t *container, uint32_t version)
{
    blob seg = fixture("add1.wrapper.seg");
    assert_int_equal(seg.n, 24);
    uint32_t magic, v;
    memcpy(&magic, seg.p, 4);
    memcpy(&v, seg.p + 4, 4);
    assert_int_equal(magic, RT_FATBIN_WRAPPER_MAGIC);
    assert_int_equal(v, 1);
    memcpy(seg.p + 4, &version, 4);
    memcpy(seg.p + 8, &container, sizeof container);
    return seg.p;
}

static void test_wrapper_struct(void **state)
{
    blob fat = fixture("add1.wrapper.fatbin");
    uint8_t *w = wrapper_for(fat.p, 1);
    rt_fatbin fb;
    assert_int_equal(rt_fatbin_parse(w, 0, &fb), RT_FATBIN_OK);
    assert_int_equal(fb.format, RT_FATBIN_FMT_WRAPPER);
    assert_int_equal(fb.wrapper_version, 1);
    assert_ptr_equal(fb.container, fat.p);
    assert_int_equal(fb.container_size, fat.n);
    assert_int_equal(fb.count, 1);
    rt_fatbin_release(&fb);
    char *want = reference_ptx("cuda/fatbin/add1.sm_80.ptx");
    blob wb = {w, 24};
    expect_text(&wb, 80, want);
    wb.n = 0;
    expect_text(&wb, 80, want);
    free(want);
    /* Linked -rdc executables carry version 2; a short wrapper, a NULL data
     * pointer or an unknown version are corrupt. */
    free(w);
    w = wrapper_for(fat.p, 2);
    assert_int_equal(rt_fatbin_parse(w, 24, &fb), RT_FATBIN_OK);
    assert_int_equal(fb.wrapper_version, 2);
    rt_fatbin_release(&fb);
    assert_int_equal(rt_fatbin_parse(w, 23, &fb), RT_FATBIN_CORRUPT);
    free(w);
    w = wrapper_for(fat.p, 3);
    assert_int_equal(rt_fatbin_parse(w, 24, &fb), RT_FATBIN_CORRUPT);
    free(w);
    w = wrapper_for(NULL, 1);
    assert_int_equal(rt_fatbin_parse(w, 24, &fb), RT_FATBIN_CORRUPT);
    free(w);
    free(fat.p);
}

/* --- plain text ------------------------------------------------------------------ */

static void test_plain_ptx_text(void **state)
{
    blob b = fixture("add1.sm_80.ptx");
    char *src = malloc(b.n + 1);
    memcpy(src, b.p, b.n);
    src[b.n] = 0;
    rt_fatbin fb;
    assert_int_equal(rt_fatbin_parse(src, 0, &fb), RT_FATBIN_OK);
    assert_int_equal(fb.format, RT_FATBIN_FMT_PTX);
    assert_int_equal(fb.count, 1);
    assert_int_equal(fb.entries[0].arch, 0);
    assert_int_equal(fb.container_size, b.n);
    rt_fatbin_release(&fb);
    /* Plain text is JIT-compiled whatever the device. */
    for (unsigned cc = 30; cc <= 120; cc += 45) {
        char *ptx;
        size_t len;
        assert_int_equal(rt_fatbin_ptx(src, 0, cc, &ptx, &len), RT_FATBIN_OK);
        assert_int_equal(len, b.n);
        assert_string_equal(ptx, src);
        free(ptx);
    }
    /* With a size, the text may lack its NUL (it ends at the size). */
    char *ptx;
    size_t len;
    assert_int_equal(rt_fatbin_ptx(b.p, b.n, 80, &ptx, &len), RT_FATBIN_OK);
    assert_int_equal(len, b.n);
    free(ptx);
    free(src);
    free(b.p);
}

static void test_not_a_fatbin(void **state)
{
    rt_fatbin fb;
    static const char *const bad[] = {
        "", "   \n\t\n", "abc\001def", "\177DEL", "hello\x1b[0m",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(rt_fatbin_parse(bad[i], 0, &fb), RT_FATBIN_NOT_FATBIN);
    assert_int_equal(rt_fatbin_parse(NULL, 0, &fb), RT_FATBIN_NOT_FATBIN);
    static const uint8_t binary[16] = {0x12, 0x34, 0x00, 0xff, 1, 2, 3};
    assert_int_equal(rt_fatbin_parse(binary, sizeof binary, &fb), RT_FATBIN_NOT_FATBIN);
    /* A known magic cut short (size given) is a truncated image. */
    static const uint8_t magic3[] = {0x50, 0xED, 0x55};
    assert_int_equal(rt_fatbin_parse(magic3, 3, &fb), RT_FATBIN_CORRUPT);
    /* Text with non-ASCII bytes (UTF-8 in a comment) is still text. */
    char *ptx;
    assert_int_equal(rt_fatbin_ptx("// \xc3\xa9t\xc3\xa9\n.version 8.0\n", 0, 80, &ptx, NULL),
                     RT_FATBIN_OK);
    free(ptx);
    assert_string_equal(rt_fatbin_strerror(RT_FATBIN_OK), "ok");
    assert_non_null(strstr(rt_fatbin_strerror(RT_FATBIN_NO_PTX), "machine code"));
}

/* --- truncation and corruption ------------------------------------------------- */

static const char *const containers[] = {
    "add1.c80.none.fatbin", "add1.c80.lz4.fatbin", "add1.c80.zstd.fatbin",
    "add1.c80_sm80.size.fatbin", "add1.multi.fatbin", "add1.sass_only.fatbin",
    "add1.specific.fatbin", "add1.ident.fatbin", "add1.wrapper.fatbin",
    "vector_ops.c80.lz4.fatbin",
};
#define NCONTAINERS (sizeof containers / sizeof containers[0])

static void test_truncation_at_every_offset(void **state)
{
    for (size_t f = 0; f < NCONTAINERS; f++) {
        blob b = fixture(containers[f]);
        for (size_t cut = 1; cut < b.n; cut++) {
            uint8_t *p = malloc(cut); /* exactly cut bytes: ASan sees over-reads */
            memcpy(p, b.p, cut);
            rt_fatbin fb;
            rt_fatbin_status st = rt_fatbin_parse(p, cut, &fb);
            if (st != RT_FATBIN_CORRUPT)
                fail_msg("%s cut at %zu: %s", containers[f], cut, rt_fatbin_strerror(st));
            assert_int_equal(fb.count, 0);
            char *ptx = (char *)1;
            assert_int_equal(rt_fatbin_ptx(p, cut, 80, &ptx, NULL), RT_FATBIN_CORRUPT);
            assert_null(ptx);
            free(p);
        }
        free(b.p);
    }
}

static uint32_t rng(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

static void test_random_corruption_never_crashes(void **state)
{
    uint32_t seed = 7;
    int outcomes[RT_FATBIN_NOMEM + 1] = {0};
    for (size_t f = 0; f < NCONTAINERS; f++) {
        blob b = fixture(containers[f]);
        uint8_t *p = malloc(b.n);
        for (int iter = 0; iter < 400; iter++) {
            memcpy(p, b.p, b.n);
            /* Half the time aim at the headers, where the sizes live. */
            size_t span = (iter & 1) ? b.n : (b.n < 0x70 ? b.n : 0x70);
            for (int k = 0; k < 1 + iter % 3; k++)
                p[rng(&seed) % span] = (uint8_t)rng(&seed);
            for (unsigned cc = 75; cc <= 90; cc += 5) {
                char *ptx = NULL;
                rt_fatbin_status st = rt_fatbin_ptx(p, b.n, cc, &ptx, NULL);
                assert_true(st >= RT_FATBIN_OK && st <= RT_FATBIN_NOMEM);
                outcomes[st]++;
                if (st == RT_FATBIN_OK)
                    assert_true(strlen(ptx) < b.n * 300);
                else
                    assert_null(ptx);
                free(ptx);
            }
        }
        free(p);
        free(b.p);
    }
    /* The mutations reached past the header checks. */
    assert_true(outcomes[RT_FATBIN_CORRUPT] > 0);
    assert_true(outcomes[RT_FATBIN_DECOMPRESS] > 0);
    assert_true(outcomes[RT_FATBIN_OK] > 0);
}

/* Targeted lies in the single-entry fixtures (entry header at 0x10). */
static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

static rt_fatbin_status ptx_of(const blob *b)
{
    char *ptx = NULL;
    rt_fatbin_status st = rt_fatbin_ptx(b->p, b->n, 80, &ptx, NULL);
    free(ptx);
    return st;
}

static void test_lying_headers(void **state)
{
    static const char *const names[] = {"add1.c80.lz4.fatbin", "add1.c80.zstd.fatbin"};
    for (int f = 0; f < 2; f++) {
        blob orig = fixture(names[f]);
        blob b = {malloc(orig.n), orig.n};
        uint64_t usz;
        memcpy(&usz, orig.p + 0x10 + 0x38, 8);
        struct { size_t off; int width; uint64_t value; rt_fatbin_status want; } lies[] = {
            {0x10 + 0x38, 8, usz + 1, RT_FATBIN_DECOMPRESS},      /* one byte too many */
            {0x10 + 0x38, 8, usz - 1, RT_FATBIN_DECOMPRESS},      /* one too few */
            {0x10 + 0x38, 8, (uint64_t)1 << 40, RT_FATBIN_CORRUPT},
            {0x10 + 0x10, 4, 0, RT_FATBIN_CORRUPT},               /* compressed size 0 */
            {0x10 + 0x10, 4, 0x10000, RT_FATBIN_CORRUPT},         /* beyond the payload */
            {0x10 + 0x28, 8, 0x11 | RT_FATBIN_FLAG_LZ4 | RT_FATBIN_FLAG_ZSTD, RT_FATBIN_CORRUPT},
            {0x10 + 0x04, 4, 0x3c, RT_FATBIN_CORRUPT},            /* header too small */
            {0x10 + 0x08, 8, 0x100000, RT_FATBIN_CORRUPT},        /* payload past the end */
            {0x10 + 0x20, 4, 0x48, RT_FATBIN_OK},                 /* no name: length 0 */
            {0x10 + 0x24, 4, 0x100, RT_FATBIN_CORRUPT},           /* name beyond the header */
            {0x10 + 0x14, 4, 0x4c, RT_FATBIN_CORRUPT},            /* options record cut */
            {0x08, 8, 0x10000, RT_FATBIN_CORRUPT},                /* container size */
            {0x04, 4, 0x00100002, RT_FATBIN_CORRUPT},             /* container version 2 */
            {0x06, 2, 0x8, RT_FATBIN_CORRUPT},                    /* container header size */
        };
        for (size_t i = 0; i < sizeof lies / sizeof lies[0]; i++) {
            memcpy(b.p, orig.p, b.n);
            if (lies[i].width == 8)
                put64(b.p + lies[i].off, lies[i].value);
            else if (lies[i].width == 4)
                put32(b.p + lies[i].off, (uint32_t)lies[i].value);
            else
                memcpy(b.p + lies[i].off, &lies[i].value, 2);
            rt_fatbin_status st = ptx_of(&b);
            if (st != lies[i].want)
                fail_msg("%s lie %zu: %s", names[f], i, rt_fatbin_strerror(st));
        }
        /* Bytes after the last entry, too few for an entry header. */
        uint8_t *longer = calloc(1, b.n + 8);
        memcpy(longer, orig.p, b.n);
        put64(longer + 8, b.n - 16 + 8);
        assert_int_equal(ptx_of(&(blob){longer, b.n + 8}), RT_FATBIN_CORRUPT);
        free(longer);
        free(b.p);
        free(orig.p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ptx_stored_plain),
        cmocka_unit_test(test_ptx_lz4_compressed),
        cmocka_unit_test(test_ptx_zstd_compressed),
        cmocka_unit_test(test_larger_lz4_entry_matches_corpus),
        cmocka_unit_test(test_size_mode_compresses_cubin_too),
        cmocka_unit_test(test_multi_arch_entries_in_order),
        cmocka_unit_test(test_selection_highest_arch_not_above_device),
        cmocka_unit_test(test_selection_arch_and_family_specific),
        cmocka_unit_test(test_selection_prefers_specific_at_equal_arch),
        cmocka_unit_test(test_cubin_only_has_no_ptx),
        cmocka_unit_test(test_bare_cubin_is_machine_code),
        cmocka_unit_test(test_identifier_and_options_strings),
        cmocka_unit_test(test_wrapper_struct),
        cmocka_unit_test(test_plain_ptx_text),
        cmocka_unit_test(test_not_a_fatbin),
        cmocka_unit_test(test_truncation_at_every_offset),
        cmocka_unit_test(test_random_corruption_never_crashes),
        cmocka_unit_test(test_lying_headers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
