/* test_cu_guard.c - a kernel writing past (or before) a cuMemAlloc buffer.
 * Device memory is not the host's heap: each allocation is its own
 * mapping of whole pages between guard pages.  A store within the
 * allocation's last page is silent (as within a GPU allocation's
 * granularity) and touches no other allocation; a store beyond it is
 * CUDA_ERROR_ILLEGAL_ADDRESS.  Either way the host survives: the buffers
 * free, the context goes, and host malloc still works. */
#include "cache_test_util.h"
#include "cu_test.h"

#include <unistd.h>

/* poke(p, off): one thread stores 0x5a5a5a5a at p + off. */
static const char poke_ptx[] =
    ".version 7.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    ".visible .entry poke(.param .u64 p, .param .s64 off)\n"
    "{\n"
    "    .reg .b64 %rd<4>;\n"
    "    .reg .b32 %r<2>;\n"
    "    ld.param.u64 %rd1, [p];\n"
    "    ld.param.s64 %rd2, [off];\n"
    "    add.s64 %rd3, %rd1, %rd2;\n"
    "    mov.u32 %r1, 0x5a5a5a5a;\n"
    "    st.global.u32 [%rd3], %r1;\n"
    "    ret;\n"
    "}\n";

enum { NEIGHBOURS = 4 };

static bool all_zero(CUdeviceptr p, size_t n)
{
    unsigned char *h = malloc(n);
    assert_non_null(h);
    CU_OK(cuMemcpyDtoH(h, p, n));
    bool zero = true;
    for (size_t i = 0; i < n; i++)
        zero &= h[i] == 0;
    free(h);
    return zero;
}

/* A fresh context with poke loaded. */
static CUcontext poke_context(CUfunction *f)
{
    CUcontext c;
    CU_OK(cuCtxCreate(&c, NULL, 0, 0));
    CUmodule m;
    CU_OK(cuModuleLoadData(&m, poke_ptx));
    CU_OK(cuModuleGetFunction(f, m, "poke"));
    return c;
}

/* Allocates NEIGHBOURS buffers of `size` bytes in a fresh context, pokes
 * the middle one at `off` and checks the outcome: success when the store
 * stays in the allocation's pages, else an illegal address. */
static void poke_at(size_t size, long long off)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t granule = (size + page - 1) / page * page;
    bool inside = off >= 0 && (size_t)off + 4 <= granule;
    CUfunction f;
    CUcontext c = poke_context(&f);
    CUdeviceptr buf[NEIGHBOURS];
    for (int i = 0; i < NEIGHBOURS; i++)
        CU_OK(cuMemAlloc(&buf[i], size));
    CUdeviceptr target = buf[NEIGHBOURS / 2];
    void *args[] = {&target, &off};
    CUresult r = cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL);
    if (r == CUDA_SUCCESS)
        r = cuCtxSynchronize();
    if (inside) {
        if (r != CUDA_SUCCESS)
            fail_msg("size %zu, offset %lld: %s, expected success", size, off, cu_test_name(r));
        for (int i = 0; i < NEIGHBOURS; i++)
            if (i != NEIGHBOURS / 2 && !all_zero(buf[i], size))
                fail_msg("size %zu, offset %lld: buffer %d changed", size, off, i);
    } else if (r != CUDA_ERROR_ILLEGAL_ADDRESS) {
        fail_msg("size %zu, offset %lld: %s, expected CUDA_ERROR_ILLEGAL_ADDRESS", size, off,
                 cu_test_name(r));
    }
    CUresult want = inside ? CUDA_SUCCESS : CUDA_ERROR_ILLEGAL_ADDRESS;
    for (int i = 0; i < NEIGHBOURS; i++)
        CU_EXPECT(want, cuMemFree(buf[i]));
    CU_OK(cuCtxDestroy(c));
    /* the host heap is intact: glibc checks its lists on these */
    void *h[64];
    for (int i = 0; i < 64; i++)
        assert_non_null(h[i] = malloc(16 + (size_t)i * 40));
    for (int i = 0; i < 64; i++)
        free(h[i]);
}

/* Offsets just past the end, at the end of the last page, and anywhere in
 * the guard page after it (one page: a store further out may land in
 * another allocation, as on a GPU). */
static void test_overrun_small_allocations(void **state)
{
    (void)state;
    static const size_t sizes[] = {1, 4, 16, 100, 256, 1000, 4096, 5000, 65536};
    long long page = sysconf(_SC_PAGESIZE);
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        long long end = (long long)(sizes[s] + 3) / 4 * 4;
        long long granule = (long long)(sizes[s] + page - 1) / page * page;
        const long long offs[] = {end, end + 16, end + 256, granule - 4, granule,
                                  granule + 16, granule + page / 2, granule + page - 4};
        for (size_t o = 0; o < sizeof offs / sizeof *offs; o++)
            poke_at(sizes[s], offs[o]);
    }
}

static void test_underrun(void **state)
{
    (void)state;
    poke_at(64, -4);
    poke_at(64, -64);
    poke_at(100000, -4);
}

/* Large allocations (once their own mappings already) behave the same. */
static void test_overrun_large_allocation(void **state)
{
    (void)state;
    poke_at((2 << 20) + 12, (2 << 20) + 12);
    poke_at(2 << 20, 2 << 20);
    poke_at((6 << 20) + 4096, (6 << 20) + 4096);
    poke_at(6 << 20, -4);
    poke_at(6 << 20, -4096);
}

/* Allocations of 2 MiB and more start on a 2 MiB boundary (transparent
 * huge pages can back them whole), smaller ones anywhere page aligned;
 * either way every byte is usable and starts zero. */
static void test_large_allocations_aligned(void **state)
{
    (void)state;
    CUcontext c;
    CU_OK(cuCtxCreate(&c, NULL, 0, 0));
    static const size_t sizes[] = {4096, (2 << 20) - 4096, 2 << 20, (2 << 20) + 1, 5 << 20};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        CUdeviceptr p;
        CU_OK(cuMemAlloc(&p, sizes[s]));
        size_t align = sizes[s] >= (2 << 20) ? 2 << 20 : (size_t)sysconf(_SC_PAGESIZE);
        if (p % align)
            fail_msg("%zu bytes at %#llx: not %zu aligned", sizes[s], (unsigned long long)p, align);
        CU_OK(cuMemsetD8(p + sizes[s] - 1, 0x5a, 1));
        assert_true(all_zero(p, sizes[s] - 1));
        CU_OK(cuMemFree(p));
    }
    CU_OK(cuCtxDestroy(c));
}

/* In bounds stays fine: the last word of an allocation. */
static void test_last_word(void **state)
{
    (void)state;
    poke_at(4, 0);
    poke_at(4096, 4092);
}

/* A GPU's driver says only ILLEGAL_ADDRESS; ptxjit also names the kernel,
 * the address and the block on stderr. */
static void test_fault_named_on_stderr(void **state)
{
    (void)state;
    CUfunction f;
    CUcontext c = poke_context(&f);
    CUdeviceptr buf;
    CU_OK(cuMemAlloc(&buf, 64));
    long long off = sysconf(_SC_PAGESIZE) + 64;
    void *args[] = {&buf, &off};
    ct_capture_begin();
    CUresult r = cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL);
    if (r == CUDA_SUCCESS)
        r = cuCtxSynchronize();
    char *text = ct_capture_end(), want[200];
    assert_int_equal(r, CUDA_ERROR_ILLEGAL_ADDRESS);
    snprintf(want, sizeof want,
             "ptxjit: kernel 'poke': invalid memory access (SIGSEGV) at address %#llx in block "
             "(0,0,0)\n",
             (unsigned long long)(buf + (CUdeviceptr)off));
    assert_string_equal(text, want);
    free(text);
    CU_EXPECT(CUDA_ERROR_ILLEGAL_ADDRESS, cuMemFree(buf));
    CU_OK(cuCtxDestroy(c));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_overrun_small_allocations),
        cmocka_unit_test(test_underrun),
        cmocka_unit_test(test_overrun_large_allocation),
        cmocka_unit_test(test_large_allocations_aligned),
        cmocka_unit_test(test_last_word),
        cmocka_unit_test(test_fault_named_on_stderr),
    };
    CU_OK(cuInit(0));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
