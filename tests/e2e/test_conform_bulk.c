/* test_conform_bulk.c - the bulk asynchronous copies of sm_90
 * (cp.async.bulk and its groups, prefetch) through the whole pipeline,
 * against C references written from the PTX ISA:
 *   - lanes issuing copies of their own, sized by a register, into shared
 *     memory with the mbarrier's complete-tx, where the copies land before
 *     the expect-tx: the phase must wait for both the arrival and the
 *     balancing expect-tx (observed with test_wait at each step);
 *   - shared -> global through bulk groups, with and without a cache
 *     policy operand, commit_group, wait_group{.read}, prefetch;
 *   - misaligned copies (cp.async at less than its size, cp.async.bulk
 *     off 16 bytes) and mbarrier objects (off 8) fail the launch with a
 *     misaligned address;
 *   - forms that are not valid or that need clusters of more than one CTA
 *     are load errors naming the line;
 *   - the fixture tests/cuda/bulk_async.cu as nvcc compiles it for sm_75,
 *     sm_80 (cp.async and plain copies) and sm_90 (cp.async.bulk):
 *     cuda::memcpy_async on a block, cuda::device::memcpy_async_tx with
 *     barrier_arrive_tx, and the TMA wrappers for a round trip. */
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

#define HEADER ".version 8.3\n.target sm_90\n.address_size 64\n"


static ptxjit_module *load(const char *src)
{
    char *log = NULL;
    ptxjit_module *m = ptxjit_load(test_ctx, src, strlen(src), "bulk.ptx", &log, NULL);
    if (!m)
        fail_msg("did not load:\n%s", log ? log : "");
    free(log);
    return m;
}

static void launch(ptxjit_module *m, const char *name, uint32_t grid, uint32_t block, const void *params)
{
    char err[512];
    const ptxjit_kernel *k = ptxjit_kernel_get(m, name);
    assert_non_null(k);
    ptxjit_launch_cfg cfg = {{grid, 1, 1}, {block, 1, 1}, 0, params, NULL};
    if (ptxjit_launch(test_ctx, k, &cfg, err, sizeof err) != PTXJIT_OK)
        fail_msg("%s: %s", name, err);
}

/* ---- global -> shared with complete-tx, before the expect-tx ---- */

/* Lanes 0-7 each copy 64 bytes, in + 64 t -> buf + 64 (7 - t); thread 0
 * then watches the phase: after the copies (tx -512, one arrival
 * pending), after its arrival (tx still -512), after expect_tx 512. */
static const char lanes_src[] = HEADER
    ".visible .entry lanes(.param .u64 in, .param .u64 out)\n"
    "{\n"
    "  .reg .pred %p<6>; .reg .b32 %r<16>; .reg .b64 %rd<12>;\n"
    "  .shared .align 16 .b8 buf[512];\n"
    "  .shared .align 8 .b64 bar;\n"
    "  ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out];\n"
    "  mov.u32 %r1, %tid.x; setp.eq.u32 %p1, %r1, 0;\n"
    "  @%p1 mbarrier.init.shared::cta.b64 [bar], 1;\n"
    "  bar.sync 0;\n"
    "  setp.lt.u32 %p2, %r1, 8;\n"
    "  mul.wide.u32 %rd3, %r1, 64; add.s64 %rd4, %rd1, %rd3;\n"
    "  mov.u32 %r2, buf; sub.u32 %r3, 7, %r1; shl.b32 %r3, %r3, 6; add.u32 %r4, %r2, %r3;\n"
    "  mov.u32 %r5, bar; mov.u32 %r6, 64;\n"
    "  @%p2 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r4], [%rd4], %r6, [%r5];\n"
    "  bar.sync 0;\n"
    "  @%p1 mbarrier.test_wait.parity.shared::cta.b64 %p3, [bar], 0;\n"
    "  @%p1 mbarrier.arrive.shared::cta.b64 %rd5, [bar];\n"
    "  @%p1 mbarrier.test_wait.parity.shared::cta.b64 %p4, [bar], 0;\n"
    "  @%p1 mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [bar], 512;\n"
    "  @%p1 mbarrier.test_wait.parity.shared::cta.b64 %p5, [bar], 0;\n"
    "  @%p1 selp.u32 %r10, 1, 0, %p3; @%p1 st.global.u32 [%rd2+512], %r10;\n"
    "  @%p1 selp.u32 %r11, 1, 0, %p4; @%p1 st.global.u32 [%rd2+516], %r11;\n"
    "  @%p1 selp.u32 %r12, 1, 0, %p5; @%p1 st.global.u32 [%rd2+520], %r12;\n"
    "  bar.sync 0;\n"
    "  shl.b32 %r7, %r1, 2; add.u32 %r8, %r2, %r7; ld.shared.u32 %r9, [%r8];\n"
    "  mul.wide.u32 %rd6, %r1, 4; add.s64 %rd7, %rd2, %rd6; st.global.u32 [%rd7], %r9;\n"
    "  ret;\n"
    "}\n";

static void test_complete_tx_before_expect_tx(void **state)
{
    (void)state;
    uint32_t in[128], out[131];
    for (int i = 0; i < 128; i++)
        in[i] = 0x9e3779b9u * (uint32_t)(i + 1);
    memset(out, 0xcc, sizeof out);
    struct {
        const void *in;
        void *out;
    } p = {in, out};
    ptxjit_module *m = load(lanes_src);
    launch(m, "lanes", 1, 128, &p);
    for (int w = 0; w < 128; w++) /* byte 4w of buf came from lane 7 - w/16 */
        assert_int_equal(out[w], in[(7 - w / 16) * 16 + w % 16]);
    assert_int_equal(out[128], 0); /* copies landed, arrival missing */
    assert_int_equal(out[129], 0); /* arrived, tx-count still -512 */
    assert_int_equal(out[130], 1); /* balanced: the phase completed */
    ptxjit_module_unload(m);
}

/* ---- shared -> global through bulk groups ---- */

static const char s2g_src[] = HEADER
    ".visible .entry s2g(.param .u64 out, .param .u64 pol)\n"
    "{\n"
    "  .reg .pred %p1; .reg .b32 %r<10>; .reg .b64 %rd<10>;\n"
    "  .shared .align 16 .b32 buf[256];\n"
    "  ld.param.u64 %rd1, [out]; ld.param.u64 %rd9, [pol];\n"
    "  mov.u32 %r1, %tid.x; mov.u32 %r2, buf; shl.b32 %r3, %r1, 2; add.u32 %r4, %r2, %r3;\n"
    "  mad.lo.u32 %r5, %r1, 7, 3; st.shared.u32 [%r4], %r5;\n"
    "  fence.proxy.async.shared::cta;\n"
    "  bar.sync 0;\n"
    "  setp.eq.u32 %p1, %r1, 0;\n"
    "  @%p1 cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint [%rd1], [buf], 512, %rd9;\n"
    "  add.s64 %rd2, %rd1, 512;\n"
    "  @%p1 cp.async.bulk.global.shared::cta.bulk_group [%rd2], [buf+512], 512;\n"
    "  @%p1 cp.async.bulk.commit_group;\n"
    "  @%p1 cp.async.bulk.wait_group.read 0;\n"
    "  @%p1 cp.async.bulk.wait_group 0;\n"
    "  cp.async.bulk.prefetch.L2.global [%rd1], 256;\n"
    "  cp.async.bulk.prefetch.L2.global.L2::cache_hint [%rd1], 256, %rd9;\n"
    "  ret;\n"
    "}\n";

static void test_bulk_group_to_global(void **state)
{
    (void)state;
    uint32_t out[256];
    memset(out, 0xcc, sizeof out);
    struct {
        void *out;
        uint64_t pol;
    } p = {out, 0x1234};
    ptxjit_module *m = load(s2g_src);
    launch(m, "s2g", 1, 256, &p);
    for (uint32_t i = 0; i < 256; i++)
        assert_int_equal(out[i], i * 7 + 3);
    ptxjit_module_unload(m);
}

/* ---- misaligned copies fail as on the hardware ---- */

/* Each lane copies the 8 bytes at in + 8 tid into shared memory with
 * cp.async, then stores them to out + 8 tid. */
static const char async_src[] = HEADER
    ".visible .entry async8(.param .u64 in, .param .u64 out)\n"
    "{\n"
    "  .reg .b32 %r<8>; .reg .b64 %rd<8>;\n"
    "  .shared .align 16 .b8 buf[512];\n"
    "  ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out];\n"
    "  mov.u32 %r1, %tid.x; mov.u32 %r2, buf; shl.b32 %r3, %r1, 3; add.u32 %r4, %r2, %r3;\n"
    "  mul.wide.u32 %rd3, %r1, 8; add.s64 %rd4, %rd1, %rd3;\n"
    "  cp.async.ca.shared.global [%r4], [%rd4], 8;\n"
    "  cp.async.wait_all;\n"
    "  ld.shared.u64 %rd5, [%r4]; add.s64 %rd6, %rd2, %rd3; st.global.u64 [%rd6], %rd5;\n"
    "  ret;\n"
    "}\n";

/* An mbarrier at byte `off` of an 8-aligned shared buffer: initialized
 * and arrived on by thread 0. */
static const char mbar_src[] = HEADER
    ".visible .entry mbar_at(.param .u64 off, .param .u64 out)\n"
    "{\n"
    "  .reg .pred %p1; .reg .b32 %r<4>; .reg .b64 %rd<4>;\n"
    "  .shared .align 8 .b8 bars[32];\n"
    "  ld.param.u64 %rd1, [off]; cvt.u32.u64 %r1, %rd1; mov.u32 %r2, bars; add.u32 %r2, %r2, %r1;\n"
    "  mov.u32 %r3, %tid.x; setp.eq.u32 %p1, %r3, 0;\n"
    "  @%p1 mbarrier.init.shared::cta.b64 [%r2], 1;\n"
    "  @%p1 mbarrier.arrive.shared::cta.b64 %rd2, [%r2];\n"
    "  ret;\n"
    "}\n";

static void expect_misaligned(ptxjit_module *m, const char *name, const void *params, const char *what)
{
    char err[512] = "";
    ptxjit_launch_cfg cfg = {{1, 1, 1}, {64, 1, 1}, 0, params, NULL};
    ptxjit_status st = ptxjit_launch(test_ctx, ptxjit_kernel_get(m, name), &cfg, err, sizeof err);
    if (st != PTXJIT_ERR_MISALIGNED || !strstr(err, what))
        fail_msg("%s: status %d (%s), want PTXJIT_ERR_MISALIGNED and '%s'", name, (int)st, err, what);
}

/* cp.async: source and destination aligned to the copy's size;
 * cp.async.bulk: addresses (and size) multiples of 16; an mbarrier: 8. */
static void test_misaligned_copies(void **state)
{
    (void)state;
    static uint64_t in[65], out[256];
    for (uint32_t i = 0; i < 65; i++)
        in[i] = i * 0x9e3779b97f4a7c15ull;
    ptxjit_module *m = load(async_src);
    struct { const void *in; void *out; } p = {in, out};
    launch(m, "async8", 1, 64, &p);
    for (uint32_t i = 0; i < 64; i++)
        assert_true(out[i] == in[i]);
    p.in = (const char *)in + 4;
    expect_misaligned(m, "async8", &p, "8-byte access");
    ptxjit_module_unload(m);
    m = load(s2g_src);
    struct { void *out; uint64_t pol; } q = {(char *)out + 8, 0};
    expect_misaligned(m, "s2g", &q, "multiple of 16 bytes");
    ptxjit_module_unload(m);
    m = load(mbar_src); /* an mbarrier object is a .b64 */
    struct { uint64_t off; void *out; } b = {8, out};
    launch(m, "mbar_at", 1, 64, &b);
    b.off = 4;
    expect_misaligned(m, "mbar_at", &b, "8-byte access");
    ptxjit_module_unload(m);
}

/* ---- invalid or unsupported forms ---- */

static void expect_load_error(const char *body, const char *where, const char *what)
{
    char src[2048];
    snprintf(src, sizeof src,
             HEADER ".visible .entry k(.param .u64 g)\n{\n"
                    "  .reg .b16 %%rs1; .reg .b32 %%r<8>; .reg .b64 %%rd<4>;\n"
                    "  .shared .align 8 .b64 bar; .shared .align 16 .b8 buf[64];\n"
                    "  ld.param.u64 %%rd1, [g]; mov.u32 %%r1, buf; mov.u32 %%r2, bar; mov.b16 %%rs1, 1;\n"
                    "%s\n  ret;\n}\n",
             body);
    char *log = NULL;
    ptxjit_module *m = ptxjit_load(test_ctx, src, strlen(src), "bulk.ptx", &log, NULL);
    if (m)
        fail_msg("loaded: %s", body);
    if (!log || !strstr(log, where) || !strstr(log, what))
        fail_msg("expected '%s' and '%s' in:\n%s", where, what, log ? log : "(no log)");
    free(log);
}

static void test_invalid_forms(void **state)
{
    (void)state;
    expect_load_error("  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster "
                      "[%r1], [%rd1], 64, [%r2], %rs1;",
                      "bulk.ptx:9:", "multicast");
    expect_load_error("  cp.async.bulk.shared::cta.global.bulk_group [%r1], [%rd1], 64;", "bulk.ptx:9:3:",
                      "copies .shared::cta into .global");
    expect_load_error("  cp.async.bulk.shared::cluster.global [%r1], [%rd1], 64, [%r2];", "bulk.ptx:9:3:",
                      "completion mechanism");
    expect_load_error("  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1], 64;",
                      "bulk.ptx:9:3:", "takes 4 operands");
    expect_load_error("  cp.async.bulk.global.shared::cta.bulk_group.L2::evict_last [%rd1], [%r1], 64;",
                      "bulk.ptx:9:3:", "only .L2::cache_hint");
    expect_load_error("  cp.async.bulk.prefetch.L2.shared::cta [%r1], 64;", "bulk.ptx:9:3:",
                      "cp.async.bulk.prefetch.L2.global");
}

/* ---- the nvcc fixture ---- */

enum { TILE = 1024, GRID = 3 };

static void check_fixture_kernel(ptxjit_module *m, const char *name, uint32_t block)
{
    static uint32_t in[GRID * TILE], out[GRID * TILE];
    for (uint32_t i = 0; i < GRID * TILE; i++)
        in[i] = i * 2654435761u ^ 0xabcdu;
    memset(out, 0xcc, sizeof out);
    struct {
        const void *in;
        void *out;
    } p = {in, out};
    launch(m, name, GRID, block, &p);
    for (uint32_t b = 0; b < GRID; b++)
        for (uint32_t i = 0; i < TILE; i++) {
            uint32_t want, x = in[b * TILE + i];
            if (!strcmp(name, "_Z10block_copyPKjPj"))
                want = x * 3 + b;
            else if (!strcmp(name, "_Z7tx_copyPKjPj"))
                want = in[b * TILE + TILE - 1 - i] + 1;
            else
                want = (x ^ 0x5a5a5a5au) + i;
            if (out[b * TILE + i] != want)
                fail_msg("%s block %u (of %u threads) word %u: %#x, expected %#x", name, b, block, i,
                         out[b * TILE + i], want);
        }
}

static void test_fixture_bulk_async(void **state)
{
    (void)state;
    static const char *const variants[] = {"bulk_async.sm_75.ptx", "bulk_async.sm_80.ptx", "bulk_async.sm_90.ptx"};
    static const char *const kernels[] = {"_Z10block_copyPKjPj", "_Z7tx_copyPKjPj", "_Z10round_tripPKjPj"};
    for (int v = 0; v < 3; v++) {
        char path[512];
        snprintf(path, sizeof path, "%s/ptx/corpus/%s", PTXJIT_TEST_DIR, variants[v]);
        size_t len;
        char *src = tu_read_file(path, &len);
        assert_non_null(src);
        ptxjit_module *m = load(src);
        free(src);
        for (int k = 0; k < 3; k++) {
            check_fixture_kernel(m, kernels[k], 128);
            check_fixture_kernel(m, kernels[k], 96);
        }
        ptxjit_module_unload(m);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_complete_tx_before_expect_tx),
        cmocka_unit_test(test_bulk_group_to_global),
        cmocka_unit_test(test_misaligned_copies),
        cmocka_unit_test(test_invalid_forms),
        cmocka_unit_test(test_fixture_bulk_async),
    };
    return cmocka_run_group_tests_name("conform_bulk", tests, test_ctx_setup, test_ctx_teardown);
}
