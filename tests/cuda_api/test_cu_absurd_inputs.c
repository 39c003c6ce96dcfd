/* test_cu_absurd_inputs.c - module loads of absurd sizes and endless
 * inputs: a tiny PTX file declaring a 1 TiB .global or .const array is
 * CUDA_ERROR_INVALID_PTX with a line:column diagnostic (the 64 KiB constant
 * bank, 4 GiB for a .global variable), /dev/zero as a module file is an
 * error at once (input read with a bound), PTX text beyond the 64 MiB limit
 * is refused before parsing.  The host survives and the context stays
 * usable. */
#include "cu_test.h"

#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static CUresult load_with_log(const char *ptx, char *log, size_t len)
{
    CUmodule m = NULL;
    CUjit_option o[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *v[] = {log, (void *)(uintptr_t)len};
    log[0] = 0;
    CUresult r = cuModuleLoadDataEx(&m, ptx, 2, o, v);
    if (r == CUDA_SUCCESS)
        cuModuleUnload(m);
    return r;
}

static void expect_too_large(const char *decl, const char *where, const char *what)
{
    char ptx[512], log[4096];
    snprintf(ptx, sizeof ptx, ".version 7.0\n.target sm_80\n.address_size 64\n%s\n", decl);
    CU_EXPECT(CUDA_ERROR_INVALID_PTX, load_with_log(ptx, log, sizeof log));
    if (!strstr(log, where) || !strstr(log, what))
        fail_msg("log for '%s' lacks '%s' and '%s':\n%s", decl, where, what, log);
}

static void test_huge_variables(void **state)
{
    (void)state;
    cu_test_primary();
    expect_too_large(".global .align 4 .b8 big[1099511627776];", ":4:22: error",
                     ".global variable 'big' is too large");
    expect_too_large(".const .align 4 .b8 c[1099511627776];", ":4:21: error",
                     ".const variable 'c' is too large");
    expect_too_large(".const .align 4 .u32 c[16385];", ":4:22: error", "at most 65536");
    expect_too_large(".global .u64 g[1073741824][1073741824][1073741824];", ":4:14: error",
                     "over 2^64 bytes");
    /* at the limits: fine */
    char ptx[256], log[4096];
    snprintf(ptx, sizeof ptx, "%s",
             ".version 7.0\n.target sm_80\n.address_size 64\n.const .align 4 .u32 c[16384];\n");
    CU_OK(load_with_log(ptx, log, sizeof log));
    /* the context still works */
    CUdeviceptr p;
    CU_OK(cuMemAlloc(&p, 64));
    CU_OK(cuMemFree(p));
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* /dev/zero never ends: the read stops at the bound, an error, at once. */
static void test_endless_file(void **state)
{
    (void)state;
    cu_test_primary();
    double t0 = now_s();
    CUmodule m;
    CU_EXPECT(CUDA_ERROR_INVALID_IMAGE, cuModuleLoad(&m, "/dev/zero"));
    CUlinkState ls;
    CU_OK(cuLinkCreate(0, NULL, NULL, &ls));
    CUresult r = cuLinkAddFile(ls, CU_JIT_INPUT_PTX, "/dev/zero", 0, NULL, NULL);
    assert_true(r != CUDA_SUCCESS);
    CU_OK(cuLinkDestroy(ls));
    double took = now_s() - t0;
    if (took > 30)
        fail_msg("reading /dev/zero took %.1f s", took);
}

/* More PTX than ptxjit takes: refused before parsing, with a log line. */
static void test_oversized_text(void **state)
{
    (void)state;
    cu_test_primary();
    size_t n = ((size_t)64 << 20) + 4096;
    char *ptx = malloc(n + 1);
    assert_non_null(ptx);
    static const char head[] = ".version 7.0\n.target sm_80\n.address_size 64\n";
    memcpy(ptx, head, sizeof head - 1);
    memset(ptx + sizeof head - 1, ' ', n - (sizeof head - 1));
    ptx[n] = 0;
    char log[4096];
    CU_EXPECT(CUDA_ERROR_INVALID_PTX, load_with_log(ptx, log, sizeof log));
    assert_non_null(strstr(log, "bytes of PTX; at most 67108864"));
    free(ptx);
}

/* Numbers in the header beyond any int: refused, no overflow (UBSan). */
static void test_absurd_header_numbers(void **state)
{
    (void)state;
    cu_test_primary();
    char log[4096];
    CU_EXPECT(CUDA_ERROR_UNSUPPORTED_PTX_VERSION,
              load_with_log(".version 2147483648.0\n.target sm_80\n.address_size 64\n", log,
                            sizeof log));
    CU_EXPECT(CUDA_ERROR_UNSUPPORTED_PTX_VERSION,
              load_with_log(".version 99999999999999999999.99999999999999999999\n.target sm_80\n"
                            ".address_size 64\n", log, sizeof log));
    CU_EXPECT(CUDA_ERROR_INVALID_PTX,
              load_with_log(".version 7.0\n.target sm_99999999999999999999\n.address_size 64\n",
                            log, sizeof log));
    assert_non_null(strstr(log, "needs a device of compute capability"));
}

/* A fat binary whose header claims more than there is, loaded through the
 * size-less cuModuleLoadData (or nvcc's wrapper around it, which has no
 * size at all): the image ends at an unmapped page, and the load is
 * CUDA_ERROR_INVALID_IMAGE rather than a read past it. */
static void test_fatbin_lying_size(void **state)
{
    (void)state;
    cu_test_primary();
    long page = sysconf(_SC_PAGESIZE);
    unsigned char *m = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(m != MAP_FAILED);
    assert_int_equal(munmap(m + page, (size_t)page), 0);
    unsigned char *fb = m + page - 64; /* 64 bytes, then nothing */
    memset(fb, 0, 64);
    static const unsigned char header[16] = {0x50, 0xed, 0x55, 0xba, 1, 0, 16, 0,
                                             0x00, 0x00, 0x00, 0x40, 0, 0, 0, 0}; /* 1 GiB body */
    memcpy(fb, header, sizeof header);
    CUmodule mod;
    CU_EXPECT(CUDA_ERROR_INVALID_IMAGE, cuModuleLoadData(&mod, fb));
    CU_EXPECT(CUDA_ERROR_INVALID_IMAGE, cuModuleLoadFatBinary(&mod, fb));
    fb[10] = 0x10; /* 4 KiB + 16: past the page by a little */
    fb[11] = 0;
    CU_EXPECT(CUDA_ERROR_INVALID_IMAGE, cuModuleLoadData(&mod, fb));
    memset(fb + 4, 0, 12); /* a header claiming 0 bytes, itself included (fuzz_load) */
    CU_EXPECT(CUDA_ERROR_INVALID_IMAGE, cuModuleLoadData(&mod, fb));
    memcpy(fb, header, sizeof header);
    /* nvcc's wrapper: magic, version, the container's address */
    struct { uint32_t magic, version; const void *data, *unused; } wrapper = {0x466243b1u, 1, fb,
                                                                              NULL};
    CU_EXPECT(CUDA_ERROR_INVALID_IMAGE, cuModuleLoadData(&mod, &wrapper));
    wrapper.data = m + page; /* unmapped */
    CU_EXPECT(CUDA_ERROR_INVALID_IMAGE, cuModuleLoadData(&mod, &wrapper));
    /* a size-less image shorter than any magic, ending at the page's end:
     * read no further than its NUL (fuzz_load) */
    memcpy(m + page - 3, "\xb1" "C", 3);
    CU_EXPECT(CUDA_ERROR_INVALID_IMAGE, cuModuleLoadData(&mod, m + page - 3));
    memcpy(m + page - 2, "C", 2);
    CU_EXPECT(CUDA_ERROR_INVALID_PTX, cuModuleLoadData(&mod, m + page - 2));
    munmap(m, (size_t)page);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_huge_variables),
        cmocka_unit_test(test_endless_file),
        cmocka_unit_test(test_oversized_text),
        cmocka_unit_test(test_absurd_header_numbers),
        cmocka_unit_test(test_fatbin_lying_size),
    };
    CU_OK(cuInit(0));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
