/* test_cache_load.c - the compiled-code cache through the pipeline
 * (ptxjit_load, and the kernel's first launch): a hit loads without
 * parsing or LLVM and runs correctly (checked against a C reference), its
 * kernel from an entry of its own; every key input changes the key;
 * every kind of damaged entry is reported once, deleted, recompiled;
 * least-recently-used eviction; an unwritable directory costs one warning;
 * PTXJIT_DUMP_* bypasses the cache; per-context settings. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache.h"
#include "cache_entry.h"
#include "cache_kernel.h"
#include "cache_test_util.h"
#include "jit.h"
#include "module_key.h"
#include "ptxjit/ptxjit.h"

static jit_engine *engine; /* for computing keys as the pipeline does */
static char *dir;          /* each test's cache directory */
static ptxjit_stats ran;   /* load_check's module after its kernel ran */

static int setup(void **state)
{
    (void)state;
    char err[256];
    unsetenv("PTXJIT_CACHE_DISABLE");
    unsetenv("PTXJIT_CACHE_MAXSIZE");
    unsetenv("PTXJIT_DEBUG");
    /* generic kernels: one entry per module's kernel, whatever the policy */
    setenv("PTXJIT_SPECIALIZE", "0", 1);
    engine = jit_create(NULL, 0, err, sizeof err);
    return engine ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    jit_destroy(engine);
    return 0;
}

static int each_setup(void **state)
{
    (void)state;
    dir = ct_tmpdir();
    return 0;
}

static int each_teardown(void **state)
{
    (void)state;
    ct_rmrf(dir);
    free(dir);
    return 0;
}

static ptxjit_ctx *ctx_with_cache(const char *d, uint64_t max)
{
    char err[256];
    ptxjit_ctx *c = ptxjit_create(2, err, sizeof err);
    assert_non_null(c);
    ptxjit_cache_opts o = {.enabled = true, .dir = d, .max_bytes = max};
    assert_int_equal(ptxjit_set_cache(c, &o), PTXJIT_OK);
    assert_string_equal(ptxjit_cache_dir(c), d);
    return c;
}

/* Loads variant (k, bias), checks the cache result and the kernel against
 * the C reference, and unloads it.  The kernel, compiled at its launch,
 * comes from the cache or from LLVM: its figures add to the load's. */
static ptxjit_stats load_check(ptxjit_ctx *c, uint32_t k, uint32_t bias,
                               ptxjit_cache_result want)
{
    char *ptx = ck_ptx(k, bias), *log = NULL;
    ptxjit_stats st;
    ptxjit_module *m = ptxjit_load(c, ptx, strlen(ptx), "scale.ptx", &log, &st);
    if (!m)
        fail_msg("load failed: %s", log ? log : "?");
    if (st.cache_result != want)
        fail_msg("variant (%u, %u): cache result %d, want %d", k, bias, st.cache_result, want);
    assert_int_equal(ck_check(c, m, k, bias), 0);
    const ptxjit_kernel *kern = ptxjit_kernel_get(m, "scale");
    if (want == PTXJIT_CACHE_HIT)
        assert_null(ptxjit_kernel_decl(kern)); /* nothing was parsed */
    else
        assert_non_null(ptxjit_kernel_decl(kern));
    ptxjit_stats again = ptxjit_module_stats(m);
    assert_true(again.parse >= st.parse && again.codegen >= st.codegen &&
                again.cache >= st.cache && again.cache_result == st.cache_result);
    assert_int_equal(again.kernels_compiled + again.kernels_cached, 1);
    if (want == PTXJIT_CACHE_OFF)
        assert_int_equal(again.kernels_compiled, 1);
    ran = again;
    ptxjit_module_unload(m);
    free(ptx);
    return st;
}

/* The path of variant (k, bias)'s entry in d, keyed as the pipeline keys. */
static char *path_of(const char *d, uint32_t k, uint32_t bias)
{
    char *ptx = ck_ptx(k, bias), hex[CACHE_KEY_HEX + 1], *p;
    module_key_inputs in;
    cache_key key;
    module_key_inputs_of(engine, ptx, strlen(ptx), &in);
    module_key(&in, &key);
    cache_key_hex(&key, hex);
    assert_true(asprintf(&p, "%s/%s.pjc", d, hex) > 0);
    free(ptx);
    return p;
}

/* ---- hits ---- */

static void test_hit_skips_compiler(void **state)
{
    (void)state;
    ptxjit_ctx *c = ctx_with_cache(dir, 0);
    ptxjit_stats st = load_check(c, 3, 7, PTXJIT_CACHE_MISS);
    assert_true(st.parse > 0 && st.lower > 0 && st.optimize > 0 && st.codegen > 0);
    assert_true(st.cache > 0);
    assert_int_equal(ran.kernels_compiled, 1);
    st = load_check(c, 3, 7, PTXJIT_CACHE_HIT);
    /* no parse, no lowering, no LLVM: the stages never ran, not even for
     * the kernel's launch */
    assert_true(st.parse == 0 && st.lower == 0 && st.optimize == 0 && st.codegen == 0);
    assert_true(st.load > 0 && st.cache > 0);
    assert_true(ran.parse == 0 && ran.lower == 0 && ran.optimize == 0 && ran.codegen == 0);
    assert_int_equal(ran.kernels_compiled, 0);
    assert_int_equal(ran.kernels_cached, 1);
    /* another context (as another process would) hits too */
    ptxjit_ctx *c2 = ctx_with_cache(dir, 0);
    load_check(c2, 3, 7, PTXJIT_CACHE_HIT);
    /* one object loaded twice at once: each load has its own variables */
    char *ptx = ck_ptx(3, 7);
    ptxjit_module *m1 = ptxjit_load(c2, ptx, strlen(ptx), "a", NULL, NULL);
    ptxjit_module *m2 = ptxjit_load(c2, ptx, strlen(ptx), "b", NULL, NULL);
    assert_non_null(m1);
    assert_non_null(m2);
    uint32_t *b1 = ptxjit_global_get(m1, "bias")->addr, *b2 = ptxjit_global_get(m2, "bias")->addr;
    assert_ptr_not_equal(b1, b2);
    *b1 = 100;
    assert_int_equal(ck_check(c2, m2, 3, 7), 0);
    assert_int_equal(ck_check(c2, m1, 3, 100), 0);
    ptxjit_module_unload(m1);
    ptxjit_module_unload(m2);
    free(ptx);
    /* a variant is other entries (the module's, its kernel's) */
    load_check(c, 4, 7, PTXJIT_CACHE_MISS);
    load_check(c, 3, 8, PTXJIT_CACHE_MISS);
    cache_usage u;
    assert_int_equal(cache_usage_of(dir, &u), 0);
    assert_int_equal(u.entries, 6);
    assert_int_equal(u.hits, 4);
    assert_int_equal(u.misses, 3);
    ptxjit_destroy(c2);
    ptxjit_destroy(c);
}

/* Failed loads store nothing and count nothing. */
static void test_errors_not_cached(void **state)
{
    (void)state;
    ptxjit_ctx *c = ctx_with_cache(dir, 0);
    static const char bad[] = ".version 7.0\n.target sm_80\n.address_size 64\n"
                              ".visible .entry k() { bogus.u32 %r1; ret; }\n";
    for (int i = 0; i < 2; i++) {
        char *log = NULL;
        ptxjit_stats st;
        assert_null(ptxjit_load(c, bad, strlen(bad), "bad.ptx", &log, &st));
        assert_non_null(log);
        assert_non_null(strstr(log, "bad.ptx:4:"));
        assert_int_equal(st.cache_result, PTXJIT_CACHE_MISS);
        free(log);
    }
    cache_usage u;
    cache_usage_of(dir, &u);
    assert_int_equal(u.entries + u.hits + u.misses, 0);
    ptxjit_destroy(c);
}

/* ---- keys ---- */

static void test_key_inputs(void **state)
{
    (void)state;
    char *ptx = ck_ptx(3, 7);
    module_key_inputs base;
    module_key_inputs_of(engine, ptx, strlen(ptx), &base);
    assert_string_equal(base.version, PTXJIT_VERSION);
    assert_int_equal(strlen(base.build), 32);
    assert_non_null(strstr(base.llvm, "19."));
    assert_non_null(strstr(base.options, "default<O2>"));
    enum { N = 9 };
    cache_key keys[N];
    module_key(&base, &keys[0]);
    char *ptx2 = strdup(ptx);
    ptx2[strlen(ptx2) - 2] = ' '; /* one byte of the PTX: "}\n" -> " \n" */
    for (int i = 1; i < N; i++) {
        module_key_inputs in = base;
        switch (i) {
        case 1: in.ptx = ptx2; break;
        case 2: in.version = "0.1.1"; break;
        case 3: in.build = "0123456789abcdef0123456789abcdef"; break;
        case 4: in.llvm = "19.1.8"; break;
        case 5: in.triple = "aarch64-unknown-linux-gnu"; break;
        case 6: in.cpu = "generic"; break;
        case 7: in.features = "+avx2,-avx512f"; break;
        case 8: in.options = "passes=default<O3>;codegen=aggressive;reloc=pic;model=small"; break;
        }
        module_key(&in, &keys[i]);
    }
    for (int i = 0; i < N; i++)
        for (int j = i + 1; j < N; j++)
            if (!memcmp(keys[i].b, keys[j].b, CACHE_KEY_BYTES))
                fail_msg("key inputs %d and %d give the same key", i, j);
    /* the pipeline keys with exactly these inputs */
    ptxjit_ctx *c = ctx_with_cache(dir, 0);
    load_check(c, 3, 7, PTXJIT_CACHE_MISS);
    char *path = path_of(dir, 3, 7);
    assert_true(ct_file_exists(path));
    /* and not with the module's name: it only labels diagnostics */
    ptxjit_stats st;
    ptxjit_module *m = ptxjit_load(c, ptx, strlen(ptx), "other-name.ptx", NULL, &st);
    assert_non_null(m);
    assert_int_equal(st.cache_result, PTXJIT_CACHE_HIT);
    ptxjit_module_unload(m);
    ptxjit_destroy(c);
    free(path);
    free(ptx2);
    free(ptx);
}

/* ---- damaged entries ---- */

typedef enum damage {
    FLIP_MAGIC, FLIP_VERSION, FLIP_FLAGS, FLIP_KEY, FLIP_USIZE, FLIP_CSIZE, FLIP_CHECKSUM,
    FLIP_FIRST, FLIP_MIDDLE, FLIP_LAST,
    CUT_EMPTY, CUT_IN_HEADER, CUT_HEADER_ONLY, CUT_HALF, CUT_LAST_BYTE, EXTRA_BYTE,
    OLD_VERSION,   /* a well-formed entry of another format version */
    WRONG_KEY,     /* another module's valid entry under this name */
    BAD_META,      /* valid entry, metadata truncated */
    BAD_OBJECT,    /* valid entry and metadata, the object is no ELF file */
    NOT_A_FILE,    /* a directory where the entry should be */
    DAMAGE_COUNT
} damage;

static const char *const damage_names[] = {
    "magic", "version", "flags", "key", "uncompressed size", "compressed size", "checksum",
    "first payload byte", "middle payload byte", "last payload byte", "empty file",
    "cut in the header", "header only", "cut in half", "last byte cut", "extra byte",
    "old version", "wrong key", "bad metadata", "bad object", "directory",
};

static unsigned char *read_all(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    unsigned char *buf = malloc(1 << 22);
    *n = fread(buf, 1, 1 << 22, f);
    fclose(f);
    return buf;
}

/* Replaces the entry of key with a valid one holding payload. */
static void put_payload(const char *path, const void *payload, size_t len)
{
    cache_key key;
    size_t n;
    unsigned char *e = read_all(path, &n);
    memcpy(key.b, e + CACHE_OFF_KEY, CACHE_KEY_BYTES);
    free(e);
    void *ne;
    assert_int_equal(cache_entry_encode(&key, payload, len, &ne, &n), 0);
    ct_write_file(path, ne, n);
    free(ne);
}

static void apply(damage d, const char *path, const char *other_path)
{
    size_t n;
    unsigned char *e = read_all(path, &n);
    static const size_t flip_at[] = {0, CACHE_OFF_VERSION, CACHE_OFF_FLAGS, CACHE_OFF_KEY + 3,
                                     CACHE_OFF_USIZE, CACHE_OFF_CSIZE, CACHE_OFF_CHECKSUM + 9,
                                     CACHE_HEADER_SIZE};
    cache_key key;
    memcpy(key.b, e + CACHE_OFF_KEY, CACHE_KEY_BYTES);
    void *payload;
    size_t plen;
    char why[256];
    switch (d) {
    case FLIP_MAGIC: case FLIP_VERSION: case FLIP_FLAGS: case FLIP_KEY: case FLIP_USIZE:
    case FLIP_CSIZE: case FLIP_CHECKSUM: case FLIP_FIRST:
        e[flip_at[d]] ^= 0x10;
        break;
    case FLIP_MIDDLE: e[CACHE_HEADER_SIZE + (n - CACHE_HEADER_SIZE) / 2] ^= 0x01; break;
    case FLIP_LAST: e[n - 1] ^= 0x80; break;
    case CUT_EMPTY: n = 0; break;
    case CUT_IN_HEADER: n = 50; break;
    case CUT_HEADER_ONLY: n = CACHE_HEADER_SIZE; break;
    case CUT_HALF: n /= 2; break;
    case CUT_LAST_BYTE: n -= 1; break;
    case EXTRA_BYTE: e[n++] = 0; break;
    case OLD_VERSION:
        e[CACHE_OFF_VERSION] = 0; /* version 0, and a checksum that matches */
        cache_entry_seal(e, n);
        break;
    case WRONG_KEY:
        free(e);
        e = read_all(other_path, &n);
        break;
    case BAD_META:
    case BAD_OBJECT:
        assert_int_equal(cache_entry_decode(&key, e, n, &payload, &plen, why, sizeof why), 0);
        if (d == BAD_META) {
            put_payload(path, payload, 30);
        } else {
            unsigned char *elf = memmem(payload, plen, "\177ELF", 4);
            assert_non_null(elf);
            elf[1] = 'X';
            put_payload(path, payload, plen);
        }
        free(payload);
        free(e);
        return;
    case NOT_A_FILE:
        unlink(path);
        assert_int_equal(mkdir(path, 0700), 0);
        free(e);
        return;
    case DAMAGE_COUNT: break;
    }
    ct_write_file(path, e, n);
    free(e);
}

static void test_damaged_entries(void **state)
{
    (void)state;
    ptxjit_ctx *c = ctx_with_cache(dir, 0);
    char *path = path_of(dir, 5, 11), *other = path_of(dir, 6, 11);
    load_check(c, 6, 11, PTXJIT_CACHE_MISS);
    load_check(c, 5, 11, PTXJIT_CACHE_MISS);
    setenv("PTXJIT_DEBUG", "cache", 1);
    for (int d = 0; d < DAMAGE_COUNT; d++) {
        apply((damage)d, path, other);
        ct_capture_begin();
        load_check(c, 5, 11, PTXJIT_CACHE_MISS); /* detected: recompiled, right answer */
        char *err = ct_capture_end();
        if (ct_count_lines(err, "bad entry") != 1)
            fail_msg("%s: want one report, got:\n%s", damage_names[d], err);
        free(err);
        /* the entry was deleted and stored again: the next load hits */
        load_check(c, 5, 11, PTXJIT_CACHE_HIT);
    }
    unsetenv("PTXJIT_DEBUG");
    /* the other module's entry was never touched */
    load_check(c, 6, 11, PTXJIT_CACHE_HIT);
    free(path);
    free(other);
    ptxjit_destroy(c);
}

/* ---- eviction ---- */

/* The path of the entry of variant (k, bias)'s kernel compiled for block
 * shape ntid (0s: generic). */
static char *kernel_path_of(const char *d, uint32_t k, uint32_t bias, const uint32_t ntid[3])
{
    char *ptx = ck_ptx(k, bias), hex[CACHE_KEY_HEX + 1], *p;
    module_key_inputs in;
    cache_key key, kkey;
    module_key_inputs_of(engine, ptx, strlen(ptx), &in);
    module_key(&in, &key);
    kernel_key(&key, "scale", ntid, &kkey);
    cache_key_hex(&kkey, hex);
    assert_true(asprintf(&p, "%s/%s.pjc", d, hex) > 0);
    free(ptx);
    return p;
}

static void test_eviction_lru(void **state)
{
    (void)state;
    static const uint32_t generic[3] = {0, 0, 0};
    char *mod[3], *kern[3];
    for (uint32_t i = 0; i < 3; i++) {
        mod[i] = path_of(dir, i + 1, 0);
        kern[i] = kernel_path_of(dir, i + 1, 0, generic);
    }
    /* the entries' sizes (deterministic: same PTX, same bytes) */
    ptxjit_ctx *c = ctx_with_cache(dir, 0);
    uint64_t total = 0;
    for (uint32_t i = 0; i < 3; i++) {
        load_check(c, i + 1, 0, PTXJIT_CACHE_MISS);
        total += ct_file_size(mod[i]) + ct_file_size(kern[i]);
    }
    ptxjit_destroy(c);
    uint64_t removed;
    assert_int_equal(cache_clear(dir, &removed), 0);
    assert_int_equal(removed, 6);
    /* room for all but one byte: the last store evicts the least recently
     * used entry */
    c = ctx_with_cache(dir, total - 1);
    load_check(c, 1, 0, PTXJIT_CACHE_MISS);
    load_check(c, 2, 0, PTXJIT_CACHE_MISS);
    ct_set_mtime(mod[0], 1000000);
    ct_set_mtime(kern[0], 1000000);
    ct_set_mtime(mod[1], 2000000);
    ct_set_mtime(kern[1], 3000000);
    load_check(c, 1, 0, PTXJIT_CACHE_HIT); /* variant 1 becomes the most recently used */
    assert_int_equal(ran.kernels_cached, 1);
    load_check(c, 3, 0, PTXJIT_CACHE_MISS); /* storing its kernel evicts variant 2's module */
    for (uint32_t i = 0; i < 3; i++) {
        assert_int_equal(ct_file_exists(mod[i]), i != 1);
        assert_true(ct_file_exists(kern[i]));
    }
    load_check(c, 1, 0, PTXJIT_CACHE_HIT);
    load_check(c, 3, 0, PTXJIT_CACHE_HIT);
    load_check(c, 2, 0, PTXJIT_CACHE_MISS);
    /* storing its module evicted its kernel's entry, the least recently used */
    assert_int_equal(ran.kernels_compiled, 1);
    ptxjit_destroy(c);
    for (uint32_t i = 0; i < 3; i++) {
        free(mod[i]);
        free(kern[i]);
    }
}

/* A kernel's entry: damaged, or holding something else (here the
 * module's entry), it is reported once, deleted and compiled again; each
 * block shape a kernel is specialized for has an entry of its own. */
static void test_kernel_entries(void **state)
{
    (void)state;
    static const uint32_t generic[3] = {0, 0, 0}, shape[3] = {128, 1, 1};
    char *kern = kernel_path_of(dir, 7, 1, generic), *mod = path_of(dir, 7, 1);
    ptxjit_ctx *c = ctx_with_cache(dir, 0);
    load_check(c, 7, 1, PTXJIT_CACHE_MISS);
    assert_true(ct_file_exists(kern));
    setenv("PTXJIT_DEBUG", "cache", 1);
    for (int d = 0; d < 2; d++) {
        size_t n;
        unsigned char *e = read_all(d ? mod : kern, &n);
        ct_write_file(kern, e, d ? n : n / 2); /* cut in half; another entry */
        free(e);
        ct_capture_begin();
        load_check(c, 7, 1, PTXJIT_CACHE_HIT);
        char *err = ct_capture_end();
        assert_int_equal(ran.kernels_compiled, 1);
        if (ct_count_lines(err, "bad entry") != 1)
            fail_msg("kernel entry %s: want one report, got:\n%s", d ? "of a module" : "cut",
                     err);
        free(err);
        load_check(c, 7, 1, PTXJIT_CACHE_HIT); /* stored again */
        assert_int_equal(ran.kernels_cached, 1);
    }
    unsetenv("PTXJIT_DEBUG");
    ptxjit_destroy(c);
    /* the launch's shape (ck_check: 128 x 1 x 1) is another entry */
    setenv("PTXJIT_SPECIALIZE", "always", 1);
    c = ctx_with_cache(dir, 0);
    setenv("PTXJIT_SPECIALIZE", "0", 1);
    load_check(c, 7, 1, PTXJIT_CACHE_HIT);
    assert_int_equal(ran.kernels_compiled, 1);
    char *spec = kernel_path_of(dir, 7, 1, shape);
    assert_true(ct_file_exists(spec));
    load_check(c, 7, 1, PTXJIT_CACHE_HIT);
    assert_int_equal(ran.kernels_cached, 1);
    ptxjit_destroy(c);
    free(spec);
    free(kern);
    free(mod);
}

/* ---- unwritable directory, dumps, settings ---- */

static void test_unwritable_dir(void **state)
{
    (void)state;
    char *file, *d;
    assert_true(asprintf(&file, "%s/file", dir) > 0);
    assert_true(asprintf(&d, "%s/file/cache", dir) > 0);
    ct_write_file(file, "x", 1);
    ptxjit_ctx *c = ctx_with_cache(d, 0);
    ct_capture_begin();
    load_check(c, 1, 2, PTXJIT_CACHE_MISS);
    load_check(c, 2, 2, PTXJIT_CACHE_MISS);
    load_check(c, 1, 2, PTXJIT_CACHE_MISS);
    char *err = ct_capture_end();
    assert_int_equal(ct_count_lines(err, ""), 1);
    assert_int_equal(ct_count_lines(err, "warning: compilation cache"), 1);
    free(err);
    ptxjit_destroy(c);
    free(file);
    free(d);
}

static void test_dump_bypasses(void **state)
{
    (void)state;
    ptxjit_ctx *c = ctx_with_cache(dir, 0);
    load_check(c, 9, 9, PTXJIT_CACHE_MISS);
    char *ir;
    assert_true(asprintf(&ir, "%s/dump.ll", dir) > 0);
    setenv("PTXJIT_DUMP_IR", ir, 1);
    load_check(c, 9, 9, PTXJIT_CACHE_OFF); /* compiled, so that the dump is written */
    unsetenv("PTXJIT_DUMP_IR");
    assert_true(ct_file_size(ir) > 100);
    load_check(c, 9, 9, PTXJIT_CACHE_HIT);
    free(ir);
    ptxjit_destroy(c);
}

static void test_settings(void **state)
{
    (void)state;
    char *saved = getenv("PTXJIT_CACHE_PATH") ? strdup(getenv("PTXJIT_CACHE_PATH")) : NULL;
    char *envdir;
    assert_true(asprintf(&envdir, "%s/from-env", dir) > 0);
    ptxjit_ctx *c = ctx_with_cache(dir, 0);
    /* off for this context */
    assert_int_equal(ptxjit_set_cache(c, &(ptxjit_cache_opts){.enabled = false}), PTXJIT_OK);
    assert_null(ptxjit_cache_dir(c));
    load_check(c, 1, 1, PTXJIT_CACHE_OFF);
    /* back to the environment's */
    setenv("PTXJIT_CACHE_PATH", envdir, 1);
    assert_int_equal(ptxjit_set_cache(c, NULL), PTXJIT_OK);
    assert_string_equal(ptxjit_cache_dir(c), envdir);
    load_check(c, 1, 1, PTXJIT_CACHE_MISS);
    load_check(c, 1, 1, PTXJIT_CACHE_HIT);
    /* a fresh context reads the environment too */
    char err[256];
    ptxjit_ctx *c2 = ptxjit_create(1, err, sizeof err);
    assert_string_equal(ptxjit_cache_dir(c2), envdir);
    load_check(c2, 1, 1, PTXJIT_CACHE_HIT);
    ptxjit_destroy(c2);
    /* PTXJIT_CACHE_DISABLE wins over what the program asks */
    setenv("PTXJIT_CACHE_DISABLE", "1", 1);
    assert_int_equal(ptxjit_set_cache(c, &(ptxjit_cache_opts){.enabled = true, .dir = dir}),
                     PTXJIT_OK);
    assert_null(ptxjit_cache_dir(c));
    load_check(c, 1, 1, PTXJIT_CACHE_OFF);
    unsetenv("PTXJIT_CACHE_DISABLE");
    /* PTXJIT_CACHE_MAXSIZE: entries larger than the bound are not kept */
    setenv("PTXJIT_CACHE_MAXSIZE", "100", 1);
    assert_int_equal(ptxjit_set_cache(c, NULL), PTXJIT_OK);
    load_check(c, 2, 1, PTXJIT_CACHE_MISS);
    load_check(c, 2, 1, PTXJIT_CACHE_MISS);
    cache_usage u;
    assert_int_equal(cache_usage_of(envdir, &u), 0);
    assert_int_equal(u.entries, 0);
    unsetenv("PTXJIT_CACHE_MAXSIZE");
    ptxjit_destroy(c);
    if (saved)
        setenv("PTXJIT_CACHE_PATH", saved, 1);
    else
        unsetenv("PTXJIT_CACHE_PATH");
    free(saved);
    free(envdir);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, each_setup, each_teardown)
    const struct CMUnitTest tests[] = {
        T(test_hit_skips_compiler), T(test_errors_not_cached), T(test_key_inputs),
        T(test_damaged_entries),    T(test_eviction_lru),      T(test_unwritable_dir),
        T(test_dump_bypasses),      T(test_settings),          T(test_kernel_entries),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
