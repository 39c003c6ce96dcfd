/* test_lazy.c - kernels compiled at their first launch: a module of 200
 * generated kernels (a shared .func, module variables, function-scope
 * .shared in some, dynamic .shared in one) loads without compiling any;
 * each kernel is right at its first launch, when four threads launch
 * them all at once (each compiled once); the module's variables are one
 * storage for all its kernels; a second context finds every kernel in
 * the cache (compiles nothing); ptxjit_module_compile builds them ahead.
 * Checked against C references. */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ptxjit/ptxjit.h"

enum { NK = 200, NSMALL = 12, N = 300, BLOCK = 64, SHARED_EVERY = 10, THREADS = 4 };

/* out[t] = t * scale + i through the .func mix; thread 0 adds i to total;
 * every SHARED_EVERY-th kernel passes its value through its own .shared
 * array.  "dyn" reverses each block's tids through dynamic .shared. */
static char *many_ptx(int nk)
{
    char *s = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&s, &len);
    fprintf(f, ".version 7.0\n.target sm_80\n.address_size 64\n"
               ".visible .global .align 4 .u32 total;\n"
               ".visible .global .align 4 .u32 scale = 3;\n"
               ".extern .shared .align 16 .b8 dsm[];\n"
               ".func (.param .b32 r) mix(.param .b32 x, .param .b32 k)\n"
               "{\n  .reg .b32 %%r<4>;\n  ld.param.b32 %%r1, [x];\n  ld.param.b32 %%r2, [k];\n"
               "  ld.global.u32 %%r3, [scale];\n  mad.lo.u32 %%r1, %%r1, %%r3, %%r2;\n"
               "  st.param.b32 [r], %%r1;\n  ret;\n}\n");
    for (int i = 0; i < nk; i++) {
        fprintf(f, ".visible .entry k%d(.param .u64 out, .param .u32 n)\n{\n"
                   "  .reg .b32 %%r<10>; .reg .b64 %%rd<4>; .reg .pred %%p;\n", i);
        if (i % SHARED_EVERY == 0)
            fprintf(f, "  .shared .align 4 .u32 s%d[%d];\n", i, BLOCK);
        fprintf(f, "  ld.param.u64 %%rd1, [out];\n  ld.param.u32 %%r1, [n];\n"
                   "  mov.u32 %%r2, %%tid.x;\n  mov.u32 %%r3, %%ctaid.x;\n  mov.u32 %%r4, %%ntid.x;\n"
                   "  mad.lo.u32 %%r5, %%r3, %%r4, %%r2;\n  setp.ge.u32 %%p, %%r5, %%r1;\n"
                   "  @%%p bra DONE;\n  {\n  .param .b32 a;\n  st.param.b32 [a], %%r5;\n"
                   "  .param .b32 b;\n  st.param.b32 [b], %d;\n  .param .b32 r;\n"
                   "  call.uni (r), mix, (a, b);\n  ld.param.b32 %%r6, [r];\n  }\n", i);
        if (i % SHARED_EVERY == 0)
            fprintf(f, "  shl.b32 %%r8, %%r2, 2;\n  mov.u32 %%r9, s%d;\n  add.u32 %%r9, %%r9, %%r8;\n"
                       "  st.shared.u32 [%%r9], %%r6;\n  ld.shared.u32 %%r6, [%%r9];\n", i);
        fprintf(f, "  mul.wide.u32 %%rd2, %%r5, 4;\n  add.s64 %%rd3, %%rd1, %%rd2;\n"
                   "  st.global.u32 [%%rd3], %%r6;\n  setp.ne.u32 %%p, %%r5, 0;\n  @%%p bra DONE;\n"
                   "  atom.global.add.u32 %%r7, [total], %d;\nDONE:\n  ret;\n}\n", i);
    }
    fprintf(f, ".visible .entry dyn(.param .u64 out)\n{\n"
               "  .reg .b32 %%r<10>; .reg .b64 %%rd<4>;\n  ld.param.u64 %%rd1, [out];\n"
               "  mov.u32 %%r2, %%tid.x;\n  mov.u32 %%r4, %%ntid.x;\n  shl.b32 %%r8, %%r2, 2;\n"
               "  mov.u32 %%r9, dsm;\n  add.u32 %%r3, %%r9, %%r8;\n  st.shared.u32 [%%r3], %%r2;\n"
               "  bar.sync 0;\n  sub.u32 %%r5, %%r4, %%r2;\n  sub.u32 %%r5, %%r5, 1;\n"
               "  shl.b32 %%r5, %%r5, 2;\n  add.u32 %%r5, %%r9, %%r5;\n  ld.shared.u32 %%r6, [%%r5];\n"
               "  mul.wide.u32 %%rd2, %%r2, 4;\n  add.s64 %%rd3, %%rd1, %%rd2;\n"
               "  st.global.u32 [%%rd3], %%r6;\n  ret;\n}\n");
    fclose(f);
    return s;
}

static char *ptx, *small_ptx; /* NK kernels + dyn; NSMALL + dyn */

static ptxjit_ctx *new_ctx(void)
{
    char err[256];
    ptxjit_ctx *c = ptxjit_create(2, err, sizeof err);
    if (!c)
        fail_msg("ptxjit_create: %s", err);
    return c;
}

static ptxjit_module *load_text(ptxjit_ctx *c, const char *text, ptxjit_stats *st)
{
    char *log = NULL;
    ptxjit_module *m = ptxjit_load(c, text, strlen(text), "many.ptx", &log, st);
    if (!m)
        fail_msg("load: %s", log ? log : "?");
    return m;
}

static ptxjit_module *load(ptxjit_ctx *c, ptxjit_stats *st) { return load_text(c, ptx, st); }

/* Runs kernel k<i> over N elements; 0 if it matches the reference. */
static int run_k(ptxjit_ctx *c, const ptxjit_module *m, int i, uint32_t scale)
{
    char name[16], err[512];
    snprintf(name, sizeof name, "k%d", i);
    const ptxjit_kernel *k = ptxjit_kernel_get(m, name);
    uint32_t out[N];
    memset(out, 0xff, sizeof out);
    struct { uint64_t out; uint32_t n; } p = {(uintptr_t)out, N};
    ptxjit_launch_cfg cfg = {.grid = {(N + BLOCK - 1) / BLOCK, 1, 1}, .block = {BLOCK, 1, 1},
                             .params = &p};
    if (!k || ptxjit_launch(c, k, &cfg, err, sizeof err)) {
        print_message("k%d: %s\n", i, k ? err : "missing");
        return 1;
    }
    for (uint32_t t = 0; t < N; t++)
        if (out[t] != t * scale + (uint32_t)i) {
            print_message("k%d: out[%u] = %u, want %u\n", i, t, out[t], t * scale + i);
            return 1;
        }
    return 0;
}

typedef struct runner {
    ptxjit_ctx *c;
    const ptxjit_module *m;
    int first, wrong;
} runner;

static void *run_all(void *arg)
{
    runner *r = arg;
    for (int j = 0; j < NK; j++)
        r->wrong += run_k(r->c, r->m, (r->first + j) % NK, 5);
    return NULL;
}

static void test_many_kernels(void **state)
{
    (void)state;
    ptxjit_ctx *c = new_ctx();
    ptxjit_stats st;
    ptxjit_module *m = load(c, &st);
    assert_int_equal(ptxjit_kernel_count(m), NK + 1);
    assert_int_equal(st.kernels_compiled + st.kernels_cached, 0); /* nothing yet */
    /* one storage for all kernels: the host's write is seen by each */
    *(uint32_t *)ptxjit_global_get(m, "scale")->addr = 5;
    uint32_t *total = ptxjit_global_get(m, "total")->addr;
    /* four threads launch every kernel, starting at different ones, so
     * that several want the same kernel at once */
    pthread_t th[THREADS];
    runner r[THREADS];
    for (int t = 0; t < THREADS; t++) {
        r[t] = (runner){c, m, t * (NK / THREADS) / 2, 0};
        assert_int_equal(pthread_create(&th[t], NULL, run_all, &r[t]), 0);
    }
    for (int t = 0; t < THREADS; t++) {
        pthread_join(th[t], NULL);
        assert_int_equal(r[t].wrong, 0);
    }
    assert_int_equal(*total, THREADS * NK * (NK - 1) / 2);
    ptxjit_stats ms = ptxjit_module_stats(m);
    assert_int_equal(ms.kernels_compiled + ms.kernels_cached, NK); /* each built once */
    ptxjit_module_unload(m);
    ptxjit_destroy(c);
}

/* A kernel's shared window holds its own static .shared (none here: other
 * kernels' arrays are not in it) and then the dynamic area, in its object
 * as in the module's metadata. */
static void test_dynamic_shared(void **state)
{
    (void)state;
    ptxjit_ctx *c = new_ctx();
    ptxjit_module *m = load(c, NULL);
    const ptxjit_kernel *k = ptxjit_kernel_get(m, "dyn");
    assert_int_equal(ptxjit_kernel_info_of(k)->static_smem, 0);
    const ptxjit_kernel *k10 = ptxjit_kernel_get(m, "k10"); /* one array of its own */
    assert_int_equal(ptxjit_kernel_info_of(k10)->static_smem, BLOCK * 4);
    enum { T = 100 };
    uint32_t out[T];
    struct { uint64_t out; } p = {(uintptr_t)out};
    ptxjit_launch_cfg cfg = {.grid = {1, 1, 1}, .block = {T, 1, 1}, .shared_bytes = T * 4,
                             .params = &p};
    char err[512];
    if (ptxjit_launch(c, k, &cfg, err, sizeof err))
        fail_msg("dyn: %s", err);
    for (uint32_t t = 0; t < T; t++)
        assert_int_equal(out[t], T - 1 - t);
    ptxjit_module_unload(m);
    ptxjit_destroy(c);
}

/* A second context (another process would do the same) finds the module
 * and every kernel launched before in the cache: no parse, no LLVM. */
static void test_warm(void **state)
{
    (void)state;
    ptxjit_ctx *c = new_ctx();
    if (!ptxjit_cache_dir(c))
        skip(); /* PTXJIT_CACHE_DISABLE */
    ptxjit_module *m = load(c, NULL);
    for (int i = 0; i < 20; i++)
        assert_int_equal(run_k(c, m, i, 3), 0);
    ptxjit_module_unload(m);
    ptxjit_destroy(c);
    c = new_ctx();
    ptxjit_stats st;
    m = load(c, &st);
    assert_int_equal(st.cache_result, PTXJIT_CACHE_HIT);
    for (int i = 0; i < 20; i++)
        assert_int_equal(run_k(c, m, i, 3), 0);
    st = ptxjit_module_stats(m);
    assert_int_equal(st.kernels_compiled, 0);
    assert_int_equal(st.kernels_cached, 20);
    assert_true(st.parse == 0 && st.lower == 0 && st.optimize == 0 && st.codegen == 0);
    assert_null(ptxjit_kernel_decl(ptxjit_kernel_get(m, "k0")));
    ptxjit_module_unload(m);
    ptxjit_destroy(c);
}

/* ptxjit_module_compile builds every kernel now; launches then build
 * nothing. */
static void test_compile_ahead(void **state)
{
    (void)state;
    setenv("PTXJIT_CACHE_DISABLE", "1", 1);
    ptxjit_ctx *c = new_ctx();
    unsetenv("PTXJIT_CACHE_DISABLE");
    ptxjit_module *m = load_text(c, small_ptx, NULL);
    char err[512];
    assert_int_equal(ptxjit_module_compile(m, err, sizeof err), PTXJIT_OK);
    ptxjit_stats st = ptxjit_module_stats(m);
    assert_int_equal(st.kernels_compiled, NSMALL + 1);
    for (int i = 0; i < NSMALL; i++)
        assert_int_equal(run_k(c, m, i, 3), 0);
    /* the generic code serves every launch: nothing more to build */
    assert_int_equal(ptxjit_module_stats(m).kernels_compiled, NSMALL + 1);
    ptxjit_module_unload(m);
    ptxjit_destroy(c);
}

int main(void)
{
    unsetenv("PTXJIT_SPECIALIZE"); /* the default policy */
    ptx = many_ptx(NK);
    small_ptx = many_ptx(NSMALL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_many_kernels),
        cmocka_unit_test(test_dynamic_shared),
        cmocka_unit_test(test_warm),
        cmocka_unit_test(test_compile_ahead),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    free(ptx);
    free(small_ptx);
    return rc;
}
