/* test_cu_heap.c - in-kernel malloc/free against the context's heap, as
 * CUDA documents it: a fixed heap of CU_LIMIT_MALLOC_HEAP_SIZE bytes
 * (default 8 MiB, changeable only before a kernel used malloc) where
 * malloc returns NULL once it is used up, memory that free returns is
 * handed out again, and the heap goes with its context.  Misuse stays
 * inside the heap: a double free, or free() of a cuMemAlloc pointer
 * followed by cuMemFree, neither aborts the host nor hands one block out
 * twice. */
#include "cu_test.h"

#include <unistd.h>

/* take(ptrs, max, size, count): one thread mallocs up to max blocks of
 * size bytes, stores each pointer, writes the first and last byte of each
 * block, and stores how many it got.  give(ptrs, n): frees ptrs[0..n). */
static const char heap_ptx[] =
    ".version 7.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    ".extern .func (.param .b64 func_retval0) malloc(.param .b64 malloc_param_0);\n"
    ".extern .func free(.param .b64 free_param_0);\n"
    ".visible .entry take(.param .u64 ptrs, .param .u32 max, .param .u64 size, .param .u64 count)\n"
    "{\n"
    "    .reg .pred %p<3>;\n"
    "    .reg .b32 %r<3>;\n"
    "    .reg .b64 %rd<8>;\n"
    "    ld.param.u64 %rd1, [ptrs];\n"
    "    ld.param.u32 %r1, [max];\n"
    "    ld.param.u64 %rd2, [size];\n"
    "    ld.param.u64 %rd3, [count];\n"
    "    mov.u32 %r2, 0;\n"
    "LOOP:\n"
    "    setp.ge.u32 %p1, %r2, %r1;\n"
    "    @%p1 bra DONE;\n"
    "    {\n"
    "    .param .b64 param0;\n"
    "    st.param.b64 [param0], %rd2;\n"
    "    .param .b64 retval0;\n"
    "    call.uni (retval0), malloc, (param0);\n"
    "    ld.param.b64 %rd4, [retval0];\n"
    "    }\n"
    "    setp.eq.u64 %p2, %rd4, 0;\n"
    "    @%p2 bra DONE;\n"
    "    mul.wide.u32 %rd5, %r2, 8;\n"
    "    add.s64 %rd6, %rd1, %rd5;\n"
    "    st.global.u64 [%rd6], %rd4;\n"
    "    st.u8 [%rd4], %r2;\n"
    "    add.s64 %rd7, %rd4, %rd2;\n"
    "    st.u8 [%rd7+-1], %r2;\n"
    "    add.u32 %r2, %r2, 1;\n"
    "    bra.uni LOOP;\n"
    "DONE:\n"
    "    st.global.u32 [%rd3], %r2;\n"
    "    ret;\n"
    "}\n"
    ".visible .entry give(.param .u64 ptrs, .param .u32 n)\n"
    "{\n"
    "    .reg .pred %p<2>;\n"
    "    .reg .b32 %r<3>;\n"
    "    .reg .b64 %rd<5>;\n"
    "    ld.param.u64 %rd1, [ptrs];\n"
    "    ld.param.u32 %r1, [n];\n"
    "    mov.u32 %r2, 0;\n"
    "LOOP:\n"
    "    setp.ge.u32 %p1, %r2, %r1;\n"
    "    @%p1 bra DONE;\n"
    "    mul.wide.u32 %rd2, %r2, 8;\n"
    "    add.s64 %rd3, %rd1, %rd2;\n"
    "    ld.global.u64 %rd4, [%rd3];\n"
    "    {\n"
    "    .param .b64 param0;\n"
    "    st.param.b64 [param0], %rd4;\n"
    "    call.uni free, (param0);\n"
    "    }\n"
    "    add.u32 %r2, %r2, 1;\n"
    "    bra.uni LOOP;\n"
    "DONE:\n"
    "    ret;\n"
    "}\n";

enum { MAX_BLOCKS = 1 << 16 };

typedef struct heap_env {
    CUcontext ctx;
    CUmodule mod;
    CUfunction take, give;
    CUdeviceptr ptrs, count;
} heap_env;

/* A fresh context (heap limit `limit` unless 0) with the kernels loaded. */
static heap_env env_open(size_t limit)
{
    heap_env e;
    CU_OK(cuCtxCreate(&e.ctx, NULL, 0, 0));
    if (limit)
        CU_OK(cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE, limit));
    CU_OK(cuModuleLoadData(&e.mod, heap_ptx));
    CU_OK(cuModuleGetFunction(&e.take, e.mod, "take"));
    CU_OK(cuModuleGetFunction(&e.give, e.mod, "give"));
    CU_OK(cuMemAlloc(&e.ptrs, MAX_BLOCKS * sizeof(uint64_t)));
    CU_OK(cuMemAlloc(&e.count, sizeof(uint32_t)));
    return e;
}

static void env_close(heap_env *e) { CU_OK(cuCtxDestroy(e->ctx)); }

/* Blocks of `size` bytes the kernel got before malloc returned NULL (or
 * max); their pointers are in e->ptrs. */
static unsigned take(heap_env *e, unsigned max, uint64_t size)
{
    void *args[] = {&e->ptrs, &max, &size, &e->count};
    CU_OK(cuLaunchKernel(e->take, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    uint32_t n;
    CU_OK(cuMemcpyDtoH(&n, e->count, sizeof n));
    return n;
}

static void give(heap_env *e, unsigned n)
{
    void *args[] = {&e->ptrs, &n};
    CU_OK(cuLaunchKernel(e->give, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    CU_OK(cuCtxSynchronize());
}

static uint64_t *read_ptrs(heap_env *e, unsigned n)
{
    uint64_t *p = malloc((n ? n : 1) * sizeof *p);
    assert_non_null(p);
    CU_OK(cuMemcpyDtoH(p, e->ptrs, n * sizeof *p));
    return p;
}

static int by_value(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* n blocks of size bytes: 16-byte aligned and disjoint. */
static void expect_disjoint(heap_env *e, unsigned n, uint64_t size)
{
    uint64_t *p = read_ptrs(e, n);
    qsort(p, n, sizeof *p, by_value);
    for (unsigned i = 0; i < n; i++) {
        if (p[i] % 16)
            fail_msg("block %u at 0x%llx is not 16-byte aligned", i, (unsigned long long)p[i]);
        if (i && p[i - 1] + size > p[i])
            fail_msg("blocks at 0x%llx and 0x%llx overlap", (unsigned long long)p[i - 1],
                     (unsigned long long)p[i]);
    }
    free(p);
}

/* Fills the heap with `size`-byte blocks: what it holds is bounded by the
 * limit and most of the limit is usable. */
static void fill_within(size_t limit, uint64_t size)
{
    heap_env e = env_open(limit);
    size_t heap = limit ? limit : 8 << 20;
    unsigned n = take(&e, MAX_BLOCKS, size);
    if ((uint64_t)n * size > heap || (uint64_t)n * size < heap / 2)
        fail_msg("%u blocks of %llu bytes from a %zu-byte heap", n, (unsigned long long)size, heap);
    expect_disjoint(&e, n, size);
    /* full: the next malloc is NULL, for small requests too */
    if (size > 64)
        assert_true(take(&e, 1, size) == 0);
    env_close(&e);
}

static void test_default_limit(void **state)
{
    (void)state;
    size_t v = 0;
    CUcontext c;
    CU_OK(cuCtxCreate(&c, NULL, 0, 0));
    CU_OK(cuCtxGetLimit(&v, CU_LIMIT_MALLOC_HEAP_SIZE));
    assert_int_equal(v, 8 << 20);
    CU_OK(cuCtxDestroy(c));
    fill_within(0, 4096);
}

static void test_set_limit(void **state)
{
    (void)state;
    fill_within(1 << 20, 1000);
    fill_within(1 << 20, 100000);
    fill_within(256 << 10, 48);
    /* a request larger than the heap */
    heap_env e = env_open(1 << 20);
    assert_int_equal(take(&e, 1, 2 << 20), 0);
    assert_int_equal(take(&e, 1, (uint64_t)1 << 62), 0);
    env_close(&e);
}

/* CUDA: the heap size is fixed once a kernel has used malloc. */
static void test_limit_fixed_after_use(void **state)
{
    (void)state;
    heap_env e = env_open(1 << 20);
    take(&e, 1, 64);
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE, 4 << 20));
    size_t v = 0;
    CU_OK(cuCtxGetLimit(&v, CU_LIMIT_MALLOC_HEAP_SIZE));
    assert_int_equal(v, 1 << 20);
    env_close(&e);
}

/* Freed blocks are handed out again: fill, free all, fill again. */
static void test_free_reuses(void **state)
{
    (void)state;
    static const uint64_t sizes[] = {24, 1000, 5000};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        heap_env e = env_open(1 << 20);
        unsigned n = take(&e, MAX_BLOCKS, sizes[i]);
        assert_true(n > 0);
        give(&e, n);
        assert_int_equal(take(&e, MAX_BLOCKS, sizes[i]), n);
        expect_disjoint(&e, n, sizes[i]);
        env_close(&e);
    }
}

/* Freeing every block twice changes nothing: the heap still hands each
 * block out once. */
static void test_double_free(void **state)
{
    (void)state;
    heap_env e = env_open(1 << 20);
    unsigned n = take(&e, MAX_BLOCKS, 200);
    give(&e, n);
    give(&e, n);
    assert_int_equal(take(&e, MAX_BLOCKS, 200), n);
    expect_disjoint(&e, n, 200);
    env_close(&e);
}

/* free() of what malloc never returned: a cuMemAlloc pointer (then freed
 * by cuMemFree as well), a host pointer, one into the middle of a block. */
static void test_free_foreign(void **state)
{
    (void)state;
    heap_env e = env_open(1 << 20);
    unsigned n = take(&e, 1, 256);
    assert_int_equal(n, 1);
    uint64_t block;
    CU_OK(cuMemcpyDtoH(&block, e.ptrs, sizeof block));
    CUdeviceptr dev;
    CU_OK(cuMemAlloc(&dev, 4096));
    char *host = malloc(64);
    assert_non_null(host);
    uint64_t foreign[] = {dev, (uint64_t)(uintptr_t)host, block + 16, block + 8, 0};
    CU_OK(cuMemcpyHtoD(e.ptrs, foreign, sizeof foreign));
    give(&e, 5);
    CU_OK(cuMemFree(dev));
    free(host);
    /* the real block is still in use: the next one is another */
    assert_int_equal(take(&e, 1, 256), 1);
    uint64_t next;
    CU_OK(cuMemcpyDtoH(&next, e.ptrs, sizeof next));
    assert_true(next != block);
    env_close(&e);
}

static size_t resident_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long pages = 0, rss = 0;
    if (f) {
        if (fscanf(f, "%lu %lu", &pages, &rss) != 2)
            rss = 0;
        fclose(f);
    }
    return rss * (size_t)sysconf(_SC_PAGESIZE);
}

/* The heap belongs to the context: 24 contexts that each fill 8 MiB leave
 * the process's resident memory where it was (give or take). */
static void test_heap_freed_with_context(void **state)
{
    (void)state;
    heap_env warm = env_open(0);
    take(&warm, MAX_BLOCKS, 4096);
    env_close(&warm);
    size_t before = resident_bytes();
    for (int i = 0; i < 24; i++) {
        heap_env e = env_open(0);
        assert_true(take(&e, MAX_BLOCKS, 4096) > 1000);
        env_close(&e);
    }
    size_t after = resident_bytes();
    if (after > before + (32 << 20))
        fail_msg("resident memory grew from %zu to %zu bytes", before, after);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_limit),
        cmocka_unit_test(test_set_limit),
        cmocka_unit_test(test_limit_fixed_after_use),
        cmocka_unit_test(test_free_reuses),
        cmocka_unit_test(test_double_free),
        cmocka_unit_test(test_free_foreign),
        cmocka_unit_test(test_heap_freed_with_context),
    };
    CU_OK(cuInit(0));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
