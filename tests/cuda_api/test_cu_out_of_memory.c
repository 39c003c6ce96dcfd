/* test_cu_out_of_memory.c - memory that runs out is an error for the
 * call that needed it, never an abort and never the context's sticky
 * error.  The process's address space is limited (RLIMIT_AS, as
 * `ulimit -v` sets it) to a little above what it uses:
 * - a launch that cannot get its memory (the 64 MiB of local memory of a
 *   block of 1024 threads) fails as on a GPU - LAUNCH_OUT_OF_RESOURCES
 *   (or OUT_OF_MEMORY), reported once - and once memory is back, the same
 *   launch runs and computes what a C loop does;
 * - a module load or a kernel compile that LLVM could not finish without
 *   memory (it would abort the process) is refused before it starts -
 *   OUT_OF_MEMORY, LAUNCH_OUT_OF_RESOURCES - and works once memory is back.
 * A sanitizer's runtime cannot work under such a limit: skipped there. */
#include "cu_test.h"

#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_SANITIZER 1
#endif
#endif

/* out[t] = the thread after t's id, times 3, passed through 64 KiB of
 * local memory per thread (2 MiB per warp) and read through shared memory
 * after a barrier. */
static const char *ring_ptx = ".version 7.0\n.target sm_80\n.address_size 64\n"
                         ".visible .entry ring(.param .u64 out)\n{\n"
                         ".reg .b32 %r<8>;\n.reg .b64 %rd<8>;\n"
                         ".shared .align 4 .b32 ids[1024];\n"
                         ".local .align 4 .b8 scratch[65536];\n"
                         "ld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd1, %rd1;\n"
                         "mov.u32 %r1, %tid.x;\nmov.u32 %r2, %ntid.x;\n"
                         "mul.lo.u32 %r3, %r1, 3;\nmov.u32 %r4, ids;\n"
                         "and.b32 %r7, %r1, 16383;\nmul.wide.u32 %rd4, %r7, 4;\n"
                         "mov.u64 %rd5, scratch;\nadd.u64 %rd5, %rd5, %rd4;\n"
                         "st.local.u32 [%rd5], %r3;\nld.local.u32 %r3, [%rd5];\n"
                         "mad.lo.u32 %r5, %r1, 4, %r4;\nst.shared.u32 [%r5], %r3;\n"
                         "bar.sync 0;\nadd.u32 %r6, %r1, 1;\nrem.u32 %r6, %r6, %r2;\n"
                         "mad.lo.u32 %r5, %r6, 4, %r4;\nld.shared.u32 %r7, [%r5];\n"
                         "mul.wide.u32 %rd2, %r1, 4;\nadd.u64 %rd3, %rd1, %rd2;\n"
                         "st.global.u32 [%rd3], %r7;\nret;\n}\n";

enum { MAX_THREADS = 1024 };

static CUfunction ring;
static CUdeviceptr out;

static CUresult launch(unsigned threads)
{
    void *args[] = {&out};
    return cuLaunchKernel(ring, 1, 1, 1, threads, 1, 1, 0, NULL, args, NULL);
}

static void expect_ring(unsigned threads)
{
    uint32_t got[MAX_THREADS];
    CU_OK(cuMemcpyDtoH(got, out, threads * sizeof *got));
    for (unsigned t = 0; t < threads; t++)
        if (got[t] != (t + 1) % threads * 3)
            fail_msg("%u threads: out[%u] = %u, want %u", threads, t, got[t],
                     (t + 1) % threads * 3);
}

/* Bytes of address space the process has mapped now. */
static rlim_t mapped_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    if (!f || fscanf(f, "%lu", &pages) != 1)
        fail_msg("cannot read /proc/self/statm");
    fclose(f);
    return (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE);
}

/* Limits the address space to `slack` bytes above what is mapped now. */
static struct rlimit limit_to(rlim_t slack)
{
    struct rlimit old;
    assert_int_equal(getrlimit(RLIMIT_AS, &old), 0);
    struct rlimit tight = {mapped_bytes() + slack, old.rlim_max};
    assert_int_equal(setrlimit(RLIMIT_AS, &tight), 0);
    return old;
}

static void test_launch_out_of_memory(void **state)
{
    (void)state;
#ifdef UNDER_SANITIZER
    skip();
#endif
    cu_test_primary();
    CUmodule m;
    CU_OK(cuModuleLoadData(&m, ring_ptx));
    CU_OK(cuModuleGetFunction(&ring, m, "ring"));
    CU_OK(cuMemAlloc(&out, MAX_THREADS * sizeof(uint32_t)));
    /* compiled, workers started, one warp's stack each */
    CU_OK(launch(32));
    CU_OK(cuCtxSynchronize());
    expect_ring(32);

    struct rlimit old = limit_to((rlim_t)16 << 20);
    CUresult at_launch = launch(MAX_THREADS); /* 32 warps: 64 MiB of local memory */
    CUresult at_sync = cuCtxSynchronize();
    assert_int_equal(setrlimit(RLIMIT_AS, &old), 0);
    CUresult failure = at_launch ? at_launch : at_sync;
    if (failure != CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES && failure != CUDA_ERROR_OUT_OF_MEMORY)
        fail_msg("launch without memory: %s, then %s", cu_test_name(at_launch),
                 cu_test_name(at_sync));

    /* reported once, not sticky: the context goes on */
    CU_OK(cuCtxSynchronize());
    CU_OK(cuMemsetD32(out, 0, MAX_THREADS));
    CU_OK(launch(MAX_THREADS));
    CU_OK(cuCtxSynchronize());
    expect_ring(MAX_THREADS);
    CU_OK(cuMemFree(out));
    CU_OK(cuModuleUnload(m));
}

enum { CHAIN = 600 };

/* A chain of CHAIN dependent add/xor statements on two loaded words:
 * nothing for LLVM to fold away. */
static char *chain_ptx(void)
{
    size_t cap = 512 + CHAIN * 40, n = 0;
    char *p = malloc(cap);
    n += (size_t)snprintf(p + n, cap - n, ".version 7.0\n.target sm_80\n.address_size 64\n"
                                          ".visible .entry chain(.param .u64 io)\n{\n"
                                          ".reg .b32 %%r<4>;\n.reg .b64 %%rd<2>;\n"
                                          "ld.param.u64 %%rd1, [io];\n"
                                          "ld.global.u32 %%r1, [%%rd1];\n"
                                          "ld.global.u32 %%r2, [%%rd1+4];\n");
    for (int i = 0; i < CHAIN; i++)
        n += (size_t)snprintf(p + n, cap - n, i % 2 ? "xor.b32 %%r2, %%r2, %%r1;\n"
                                                    : "add.s32 %%r1, %%r1, %%r2;\n");
    snprintf(p + n, cap - n, "st.global.u32 [%%rd1], %%r1;\nret;\n}\n");
    return p;
}

static uint32_t chain_reference(uint32_t a, uint32_t b)
{
    for (int i = 0; i < CHAIN; i++)
        if (i % 2)
            b ^= a;
        else
            a += b;
    return a;
}

static void expect_chain(CUfunction f)
{
    uint32_t io[2] = {12345, 678};
    CUdeviceptr d;
    CU_OK(cuMemAlloc(&d, sizeof io));
    CU_OK(cuMemcpyHtoD(d, io, sizeof io));
    void *args[] = {&d};
    CU_OK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    CU_OK(cuMemcpyDtoH(io, d, sizeof io));
    assert_int_equal(io[0], chain_reference(12345, 678));
    CU_OK(cuMemFree(d));
}

static void test_compile_out_of_memory(void **state)
{
    (void)state;
#ifdef UNDER_SANITIZER
    skip();
#endif
    cu_test_primary();
    char *ptx = chain_ptx();
    CUmodule m;
    /* the load: refused, not an abort */
    struct rlimit old = limit_to((rlim_t)4 << 20);
    CUresult r = cuModuleLoadData(&m, ptx);
    assert_int_equal(setrlimit(RLIMIT_AS, &old), 0);
    CU_EXPECT(CUDA_ERROR_OUT_OF_MEMORY, r);
    /* loaded with memory; the kernel's compile at its first launch refused */
    CU_OK(cuModuleLoadData(&m, ptx));
    CUfunction f;
    CU_OK(cuModuleGetFunction(&f, m, "chain"));
    CUdeviceptr d;
    CU_OK(cuMemAlloc(&d, 8));
    void *args[] = {&d};
    old = limit_to((rlim_t)4 << 20);
    CUresult at_launch = cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL);
    CUresult at_sync = cuCtxSynchronize();
    assert_int_equal(setrlimit(RLIMIT_AS, &old), 0);
    CUresult failure = at_launch ? at_launch : at_sync;
    if (failure != CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES && failure != CUDA_ERROR_OUT_OF_MEMORY)
        fail_msg("launch needing a compile without memory: %s, then %s",
                 cu_test_name(at_launch), cu_test_name(at_sync));
    CU_OK(cuMemFree(d));
    /* compiled once memory is back, and right */
    expect_chain(f);
    CU_OK(cuModuleUnload(m));
    free(ptx);
}

int main(void)
{
    /* one code for every block shape, no cached code: each compile is where
     * the test expects it */
    setenv("PTXJIT_SPECIALIZE", "0", 1);
    setenv("PTXJIT_CACHE_DISABLE", "1", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_launch_out_of_memory),
        cmocka_unit_test(test_compile_out_of_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
