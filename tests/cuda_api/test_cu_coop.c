/* test_cu_coop.c - cooperative launches with grid-wide barriers:
 * cg::this_grid().sync() as nvcc emits it (tests/cuda/grid_sync.cu, PTX in
 * the corpus) through cuLaunchCooperativeKernel and cuLaunchKernelEx with
 * CU_LAUNCH_ATTRIBUTE_COOPERATIVE, at 1 block, at the largest grid the
 * occupancy calculator says fits (every block resident at once), and one
 * block more (COOPERATIVE_LAUNCH_TOO_LARGE).  Results are checked against a
 * C reference written from the kernels' documented semantics; ctest also
 * runs this with PTXJIT_THREADS=1 and 2. */
#include "cu_test.h"

static CUmodule mod;

static int setup(void **state)
{
    (void)state;
    cu_test_primary();
    mod = cu_test_load("grid_sync.sm_80.ptx");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    CU_OK(cuModuleUnload(mod));
    CU_OK(cuDevicePrimaryCtxRelease(0));
    return 0;
}

static CUfunction get(CUmodule m, const char *name)
{
    CUfunction f;
    CU_OK(cuModuleGetFunction(&f, m, name));
    return f;
}

/* The largest cooperative grid of `block`-thread blocks, as CUDA programs
 * size it: blocks per SM times SMs. */
static unsigned max_blocks(CUfunction f, int block)
{
    int per_sm, sms;
    CU_OK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, f, block, 0));
    CU_OK(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0));
    assert_true(per_sm > 0 && sms > 0);
    return (unsigned)(per_sm * sms);
}

/* grid_phases's reference (see grid_sync.cu). */
static void phases_ref(const unsigned *in, unsigned *out, unsigned n, unsigned B, int phases)
{
    unsigned *cur = malloc(n * sizeof *cur), *next = malloc(n * sizeof *next);
    assert_non_null(cur);
    assert_non_null(next);
    memcpy(cur, in, n * sizeof *cur);
    for (int p = 1; p <= phases; p++) {
        for (unsigned r = 0; r < n; r++)
            next[r] = 3u * cur[r] + cur[(r + B) % n] - cur[(r + n - 1) % n] + (unsigned)p;
        unsigned *t = cur;
        cur = next;
        next = t;
    }
    memcpy(out, cur, n * sizeof *cur);
    free(cur);
    free(next);
}

typedef struct phases_run {
    unsigned grid, block;
    int phases;
    CUdeviceptr in, buf, out, meta;
    void *args[5];
} phases_run;

static void phases_setup(phases_run *r, unsigned grid, unsigned block, int phases)
{
    unsigned n = grid * block;
    r->grid = grid;
    r->block = block;
    r->phases = phases;
    unsigned *in = malloc(n * sizeof *in);
    assert_non_null(in);
    for (unsigned i = 0; i < n; i++)
        in[i] = i * 2654435761u + 12345u;
    CU_OK(cuMemAlloc(&r->in, n * sizeof *in));
    CU_OK(cuMemcpyHtoD(r->in, in, n * sizeof *in));
    free(in);
    CU_OK(cuMemAlloc(&r->buf, 2 * n * sizeof(unsigned)));
    CU_OK(cuMemAlloc(&r->out, n * sizeof(unsigned)));
    CU_OK(cuMemAlloc(&r->meta, 5 * sizeof(unsigned)));
    CU_OK(cuMemsetD32(r->out, 0xdeadbeefu, n));
    CU_OK(cuMemsetD32(r->meta, 0xdeadbeefu, 5));
    r->args[0] = &r->in;
    r->args[1] = &r->buf;
    r->args[2] = &r->out;
    r->args[3] = &r->meta;
    r->args[4] = &r->phases;
}

static void phases_check(phases_run *r)
{
    unsigned n = r->grid * r->block;
    unsigned *in = malloc(n * sizeof *in), *got = malloc(n * sizeof *got), *want = malloc(n * sizeof *want);
    assert_true(in && got && want);
    CU_OK(cuMemcpyDtoH(in, r->in, n * sizeof *in));
    CU_OK(cuMemcpyDtoH(got, r->out, n * sizeof *got));
    phases_ref(in, want, n, r->block, r->phases);
    for (unsigned i = 0; i < n; i++)
        if (got[i] != want[i])
            fail_msg("grid %u x %u, %d phases: out[%u] = %u, expected %u", r->grid, r->block,
                     r->phases, i, got[i], want[i]);
    unsigned meta[5];
    CU_OK(cuMemcpyDtoH(meta, r->meta, sizeof meta));
    assert_int_equal(meta[0], n);
    assert_int_equal(meta[1], r->grid);
    assert_int_equal(meta[2], 1);
    assert_int_equal(meta[3], r->grid - 1);
    assert_int_equal(meta[4], r->grid);
    free(in);
    free(got);
    free(want);
    CU_OK(cuMemFree(r->in));
    CU_OK(cuMemFree(r->buf));
    CU_OK(cuMemFree(r->out));
    CU_OK(cuMemFree(r->meta));
}

static void launch_coop(CUfunction f, phases_run *r)
{
    CU_OK(cuLaunchCooperativeKernel(f, r->grid, 1, 1, r->block, 1, 1, 0, NULL, r->args));
    CU_OK(cuCtxSynchronize());
}

static void test_one_block(void **state)
{
    (void)state;
    phases_run r;
    phases_setup(&r, 1, 96, 5);
    launch_coop(get(mod, "grid_phases"), &r);
    phases_check(&r);
}

/* Every block the device holds at once, each phase reading words the
 * neighbouring block wrote in the phase before. */
static void test_max_grid(void **state)
{
    (void)state;
    CUfunction f = get(mod, "grid_phases");
    phases_run r;
    phases_setup(&r, max_blocks(f, 64), 64, 8);
    launch_coop(f, &r);
    phases_check(&r);
}

/* Blocks of 256 threads (8 warps): fewer fit at once. */
static void test_max_grid_wide_blocks(void **state)
{
    (void)state;
    CUfunction f = get(mod, "grid_phases");
    phases_run r;
    phases_setup(&r, max_blocks(f, 256), 256, 3);
    launch_coop(f, &r);
    phases_check(&r);
}

static void test_too_large(void **state)
{
    (void)state;
    CUfunction f = get(mod, "grid_phases");
    phases_run r;
    unsigned max = max_blocks(f, 64);
    phases_setup(&r, max + 1, 64, 1);
    CU_EXPECT(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE,
              cuLaunchCooperativeKernel(f, max + 1, 1, 1, 64, 1, 1, 0, NULL, r.args));
    CUlaunchAttribute attr;
    memset(&attr, 0, sizeof attr);
    attr.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
    attr.value.cooperative = 1;
    CUlaunchConfig cfg = {.gridDimX = max + 1, .gridDimY = 1, .gridDimZ = 1, .blockDimX = 64,
                          .blockDimY = 1, .blockDimZ = 1, .attrs = &attr, .numAttrs = 1};
    CU_EXPECT(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, cuLaunchKernelEx(&cfg, f, r.args, NULL));
    /* the grid that fits still runs */
    r.grid = max;
    cfg.gridDimX = max;
    CU_OK(cuLaunchKernelEx(&cfg, f, r.args, NULL));
    CU_OK(cuCtxSynchronize());
    phases_check(&r);
}

/* cuLaunchKernelEx with the cooperative attribute, on a stream. */
static void test_launch_ex(void **state)
{
    (void)state;
    CUfunction f = get(mod, "grid_phases");
    CUstream s;
    CU_OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    phases_run r;
    phases_setup(&r, max_blocks(f, 128), 128, 6);
    CUlaunchAttribute attr;
    memset(&attr, 0, sizeof attr);
    attr.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
    attr.value.cooperative = 1;
    CUlaunchConfig cfg = {.gridDimX = r.grid, .gridDimY = 1, .gridDimZ = 1, .blockDimX = 128,
                          .blockDimY = 1, .blockDimZ = 1, .hStream = s, .attrs = &attr,
                          .numAttrs = 1};
    CU_OK(cuLaunchKernelEx(&cfg, f, r.args, NULL));
    CU_OK(cuStreamSynchronize(s));
    CU_OK(cuStreamDestroy(s));
    phases_check(&r);
}

/* grid.thread_rank() over a 3D grid of 3D blocks, as nvcc emits the kernel
 * for sm_75, sm_80 and (on a device of compute capability 9.x, e.g.
 * PTXJIT_CC=9.0) sm_90. */
static void test_ranks_3d(void **state)
{
    (void)state;
    static const char *files[] = {"grid_sync.sm_75.ptx", "grid_sync.sm_80.ptx", "grid_sync.sm_90.ptx"};
    int major;
    CU_OK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0));
    for (int k = 0; k < (major >= 9 ? 3 : 2); k++) {
        CUmodule m = cu_test_load(files[k]);
        CUfunction f = get(m, "grid_ranks");
        enum { GX = 3, GY = 2, GZ = 2, BX = 8, BY = 4, BZ = 2, N = GX * GY * GZ * BX * BY * BZ };
        assert_true(max_blocks(f, BX * BY * BZ) >= GX * GY * GZ);
        CUdeviceptr rank, count;
        CU_OK(cuMemAlloc(&rank, N * sizeof(unsigned)));
        CU_OK(cuMemAlloc(&count, sizeof(unsigned)));
        CU_OK(cuMemsetD32(rank, 0xffffffffu, N));
        CU_OK(cuMemsetD32(count, 0xffffffffu, 1));
        void *args[] = {&rank, &count};
        CU_OK(cuLaunchCooperativeKernel(f, GX, GY, GZ, BX, BY, BZ, 0, NULL, args));
        unsigned got[N], bad;
        CU_OK(cuMemcpyDtoH(got, rank, sizeof got));
        CU_OK(cuMemcpyDtoH(&bad, count, sizeof bad));
        for (unsigned i = 0; i < N; i++)
            assert_int_equal(got[i], i);
        assert_int_equal(bad, 0);
        CU_OK(cuMemFree(rank));
        CU_OK(cuMemFree(count));
        CU_OK(cuModuleUnload(m));
    }
}

static void test_attribute(void **state)
{
    (void)state;
    int v = 0;
    CU_OK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, 0));
    assert_int_equal(v, 1);
}

static void reset_context(void)
{
    CU_OK(cuDevicePrimaryCtxReset(0));
    CUcontext again;
    CU_OK(cuDevicePrimaryCtxRetain(&again, 0));
    CU_OK(cuCtxSetCurrent(again));
    mod = cu_test_load("grid_sync.sm_80.ptx");
}

/* A block that faults before the grid barrier fails the launch
 * (ILLEGAL_ADDRESS); the blocks waiting for it stop instead of hanging. */
static void test_fault_stops_waiters(void **state)
{
    (void)state;
    CUfunction f = get(mod, "grid_fault");
    unsigned max = max_blocks(f, 64);
    CUdeviceptr out, bad = 16;
    CU_OK(cuMemAlloc(&out, max * 64 * sizeof(int)));
    unsigned bad_block = max - 1;
    void *args[] = {&out, &bad, &bad_block};
    CUresult e = cuLaunchCooperativeKernel(f, max, 1, 1, 64, 1, 1, 0, NULL, args);
    if (e == CUDA_SUCCESS)
        e = cuCtxSynchronize();
    CU_EXPECT(CUDA_ERROR_ILLEGAL_ADDRESS, e);
    reset_context();
}

/* Outside a cooperative launch the grid has no workspace: is_valid() is
 * false and the sync nvcc emits traps (LAUNCH_FAILED, sticky), never
 * hangs.  It spoils the context, which is reset afterwards. */
static void test_plain_launch_traps(void **state)
{
    (void)state;
    CUfunction f = get(mod, "grid_phases");
    phases_run r;
    phases_setup(&r, 4, 64, 2);
    CUresult e = cuLaunchKernel(f, 4, 1, 1, 64, 1, 1, 0, NULL, r.args, NULL);
    if (e == CUDA_SUCCESS)
        e = cuCtxSynchronize();
    CU_EXPECT(CUDA_ERROR_LAUNCH_FAILED, e);
    reset_context();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_attribute),
        cmocka_unit_test(test_one_block),
        cmocka_unit_test(test_max_grid),
        cmocka_unit_test(test_max_grid_wide_blocks),
        cmocka_unit_test(test_too_large),
        cmocka_unit_test(test_launch_ex),
        cmocka_unit_test(test_ranks_3d),
        cmocka_unit_test(test_plain_launch_traps),
        cmocka_unit_test(test_fault_stops_waiters),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
