/* test_api.c - the embedding API's module contract: kernel parameter
 * layout as CUDA lays it out (offsets worked out by hand from the CUDA
 * rule: each parameter at the next multiple of its alignment), module
 * variables (initial values from the PTX, host writes seen by kernels),
 * each load having its own variables, and unloading; launches from several
 * threads at once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ptxjit/ptxjit.h"
#include "test_util.h"

#include <pthread.h>

static ptxjit_ctx *ctx;

static const char layout_ptx[] =
    ".version 7.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry mixed(.param .u8 a, .param .u64 b, .param .f32 c,\n"
    "    .param .align 16 .b8 d[24], .param .u16 e, .param .v2 .u32 f, .param .b8 g[3])\n"
    ".reqntid 64, 2, 1\n"
    "{ ret; }\n"
    ".visible .entry none() .maxntid 128, 1, 1 { ret; }\n";

static void test_param_layout(void **state)
{
    char *log = NULL;
    ptxjit_stats st;
    ptxjit_module *m = ptxjit_load(ctx, layout_ptx, sizeof layout_ptx - 1, "layout.ptx", &log, &st);
    assert_non_null(m);
    const ptxjit_kernel *k = ptxjit_kernel_get(m, "mixed");
    assert_non_null(k);
    const ptxjit_kernel_info *ki = ptxjit_kernel_info_of(k);
    assert_string_equal(ki->name, "mixed");
    assert_int_equal(ki->nparams, 7);
    /* name, type, offset, size, align: a u8 at 0; u64 aligned to 8; f32
     * after it at 16; 24 bytes aligned to 16 at 32; u16 at 56; .v2.u32
     * (8 bytes, aligned 8) at 64; b8[3] at 72; total 75 */
    static const struct { const char *name, *type; uint32_t off, size, align; } want[] = {
        {"a", "u8", 0, 1, 1},    {"b", "u64", 8, 8, 8},  {"c", "f32", 16, 4, 4},
        {"d", "b8", 32, 24, 16}, {"e", "u16", 56, 2, 2}, {"f", "u32", 64, 8, 8},
        {"g", "b8", 72, 3, 1},
    };
    for (uint32_t i = 0; i < 7; i++) {
        const ptxjit_param_info *p = &ki->params[i];
        assert_string_equal(p->name, want[i].name);
        assert_string_equal(p->type, want[i].type);
        assert_int_equal(p->offset, want[i].off);
        assert_int_equal(p->size, want[i].size);
        assert_int_equal(p->align, want[i].align);
    }
    assert_int_equal(ki->params[3].count, 24);
    assert_int_equal(ki->params[5].vec, 2);
    assert_int_equal(ki->param_bytes, 75);
    assert_int_equal(ki->reqntid[0], 64);
    assert_int_equal(ki->reqntid[1], 2);
    assert_false(ki->uses_barriers);
    const ptxjit_kernel_info *none = ptxjit_kernel_info_of(ptxjit_kernel_get(m, "none"));
    assert_int_equal(none->nparams, 0);
    assert_int_equal(none->param_bytes, 0);
    assert_int_equal(none->maxntid[0], 128);
    /* the parsed declaration exists only when the load parsed (no cache hit) */
    if (st.cache_result == PTXJIT_CACHE_HIT)
        assert_null(ptxjit_kernel_decl(k));
    else
        assert_non_null(ptxjit_kernel_decl(k));
    ptxjit_module_unload(m);
}

/* out[i] = tab[i] + counter; counter += 1 by thread 0 */
static const char globals_ptx[] =
    ".version 7.0\n.target sm_80\n.address_size 64\n"
    ".visible .global .align 4 .u32 counter = 40;\n"
    ".visible .const .align 4 .u32 tab[4] = {1, 2, 3, 4};\n"
    ".global .align 8 .u64 hidden[2] = {7, 9};\n"
    ".visible .entry use(.param .u64 out)\n"
    "{\n"
    "  .reg .b32 %r<6>; .reg .b64 %rd<6>; .reg .pred %p;\n"
    "  ld.param.u64 %rd1, [out];\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  mul.wide.u32 %rd2, %r1, 4;\n"
    "  mov.u64 %rd3, tab;\n"
    "  add.u64 %rd4, %rd3, %rd2;\n"
    "  ld.const.u32 %r2, [%rd4];\n"
    "  ld.global.u32 %r3, [counter];\n"
    "  add.u32 %r4, %r2, %r3;\n"
    "  add.u64 %rd5, %rd1, %rd2;\n"
    "  st.global.u32 [%rd5], %r4;\n"
    "  bar.sync 0;\n"
    "  setp.ne.u32 %p, %r1, 0;\n"
    "  @%p ret;\n"
    "  add.u32 %r3, %r3, 1;\n"
    "  st.global.u32 [counter], %r3;\n"
    "  ret;\n"
    "}\n";

static void launch_use(ptxjit_module *m, uint32_t out[4])
{
    uint64_t p = (uint64_t)(uintptr_t)out;
    ptxjit_launch_cfg cfg = {.grid = {1, 1, 1}, .block = {4, 1, 1}, .params = &p};
    char err[256];
    assert_int_equal(ptxjit_launch(ctx, ptxjit_kernel_get(m, "use"), &cfg, err, sizeof err),
                     PTXJIT_OK);
}

static ptxjit_module *load_globals(void)
{
    char *log = NULL;
    ptxjit_module *m = ptxjit_load(ctx, globals_ptx, sizeof globals_ptx - 1, "g.ptx", &log, NULL);
    if (!m)
        fail_msg("load failed: %s", log ? log : "?");
    return m;
}

static void test_globals(void **state)
{
    ptxjit_module *m = load_globals();
    assert_int_equal(ptxjit_global_count(m), 3);
    const ptxjit_global_info *c = ptxjit_global_get(m, "counter");
    const ptxjit_global_info *t = ptxjit_global_get(m, "tab");
    const ptxjit_global_info *h = ptxjit_global_get(m, "hidden");
    assert_non_null(c);
    assert_non_null(t);
    assert_non_null(h);
    assert_null(ptxjit_global_get(m, "nosuch"));
    assert_int_equal(c->size, 4);
    assert_int_equal(t->size, 16);
    assert_int_equal(h->size, 16);
    assert_false(c->is_const);
    assert_true(t->is_const);
    /* initial values from the PTX */
    assert_int_equal(*(uint32_t *)c->addr, 40);
    assert_int_equal(((uint64_t *)h->addr)[1], 9);
    uint32_t out[4];
    launch_use(m, out);
    for (int i = 0; i < 4; i++)
        assert_int_equal(out[i], (uint32_t)(i + 1 + 40));
    assert_int_equal(*(uint32_t *)c->addr, 41);
    /* the host writes a .const table (cudaMemcpyToSymbol) and the kernel sees it */
    uint32_t tab[4] = {100, 200, 300, 400};
    memcpy(t->addr, tab, sizeof tab);
    launch_use(m, out);
    for (int i = 0; i < 4; i++)
        assert_int_equal(out[i], tab[i] + 41);
    ptxjit_module_unload(m);
}

/* Two loads of the same PTX have separate variables; unloading one leaves
 * the other working; many load/unload cycles keep working. */
static void test_separate_instances(void **state)
{
    ptxjit_module *a = load_globals(), *b = load_globals();
    uint32_t *ca = ptxjit_global_get(a, "counter")->addr, *cb = ptxjit_global_get(b, "counter")->addr;
    assert_ptr_not_equal(ca, cb);
    *ca = 1000;
    uint32_t out[4];
    launch_use(b, out);
    assert_int_equal(out[0], 1 + 40);
    assert_int_equal(*cb, 41);
    assert_int_equal(*ca, 1000);
    ptxjit_module_unload(a);
    launch_use(b, out);
    assert_int_equal(out[3], 4 + 41);
    for (int i = 0; i < 20; i++) {
        ptxjit_module *x = load_globals();
        launch_use(x, out);
        assert_int_equal(out[2], 3 + 40);
        ptxjit_module_unload(x);
    }
    launch_use(b, out);
    assert_int_equal(out[1], 2 + 42);
    ptxjit_module_unload(b);
}

/* Launches from several threads at once on one context: block scans
 * (barriers, dynamic shared memory: the per-worker state a launch grows)
 * of different block sizes, each checked against a C scan.  A launch
 * mixing another's shared memory or fibers would scramble the sums. */
typedef struct scan_job {
    const ptxjit_kernel *k;
    uint32_t block, launches;
    int bad;
} scan_job;

static void *scan_many(void *arg)
{
    scan_job *j = arg;
    enum { N = 3000 };
    int *in = malloc(N * sizeof *in), *out = malloc(N * sizeof *out);
    uint32_t nblocks = (N + j->block - 1) / j->block;
    int *totals = malloc(nblocks * sizeof *totals);
    for (uint32_t rep = 0; rep < j->launches && in && out && totals; rep++) {
        for (int i = 0; i < N; i++)
            in[i] = (int)((i * 7 + rep * 13 + j->block) % 23) - 11;
        struct {
            int *in, *out, *totals;
            int n;
        } params = {in, out, totals, N};
        ptxjit_launch_cfg cfg = {.grid = {nblocks, 1, 1}, .block = {j->block, 1, 1},
                                 .shared_bytes = 2 * j->block * 4, .params = &params};
        char err[256];
        if (ptxjit_launch(ctx, j->k, &cfg, err, sizeof err) != PTXJIT_OK) {
            j->bad++;
            continue;
        }
        for (uint32_t b = 0; b < nblocks; b++) {
            int sum = 0;
            for (uint32_t t = 0; t < j->block && b * j->block + t < N; t++) {
                sum += in[b * j->block + t];
                j->bad += out[b * j->block + t] != sum;
            }
            j->bad += totals[b] != sum;
        }
    }
    free(in);
    free(out);
    free(totals);
    return NULL;
}

static void test_concurrent_launches(void **state)
{
    size_t len;
    char path[512];
    snprintf(path, sizeof path, "%s/ptx/corpus/reduce_shared.sm_80.ptx", PTXJIT_TEST_DIR);
    char *ptx = tu_read_file(path, &len);
    assert_non_null(ptx);
    char *log = NULL;
    ptxjit_module *m = ptxjit_load(ctx, ptx, len, "reduce_shared.ptx", &log, NULL);
    free(ptx);
    if (!m)
        fail_msg("load failed: %s", log ? log : "?");
    const ptxjit_kernel *k = ptxjit_kernel_get(m, "block_scan_inclusive");
    assert_non_null(k);
    scan_job jobs[4] = {{k, 32, 40, 0}, {k, 64, 40, 0}, {k, 128, 40, 0}, {k, 256, 40, 0}};
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&t[i], NULL, scan_many, &jobs[i]), 0);
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(jobs[i].bad, 0);
    }
    ptxjit_module_unload(m);
}

static int setup(void **state)
{
    char err[256];
    ctx = ptxjit_create(2, err, sizeof err);
    return ctx ? 0 : -1;
}

static int teardown(void **state)
{
    ptxjit_destroy(ctx);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_param_layout),
        cmocka_unit_test(test_globals),
        cmocka_unit_test(test_separate_instances),
        cmocka_unit_test(test_concurrent_launches),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
