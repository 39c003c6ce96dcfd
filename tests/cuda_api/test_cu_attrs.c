/* test_cu_attrs.c - what programs built with nvcc read from the driver and
 * ptxjit got wrong before (issue 12): CU_FUNC_ATTRIBUTE_PTX_VERSION is the
 * virtual architecture of .target (CUB chooses its tuning from it); a
 * kernel's static shared memory and the limits derived from it are its
 * own, not the module's; .managed module variables are managed memory
 * (IS_MANAGED written as an unsigned int, HOST_POINTER); static libraries
 * and host objects of relocatable device code link (their embedded PTX).
 * (Texture and surface limits: test_cu_texture.)  References: the PTX
 * written here (each kernel reverses its block's thread ids through its
 * shared array, checked against the host's reversal), NVIDIA's documented
 * attribute types, and link_main.cu's formula computed on the host. */
#include "cu_test.h"

static int setup(void **state)
{
    (void)state;
    cu_test_primary();
    return 0;
}

static int func_attr(CUfunction f, CUfunction_attribute a)
{
    int v = -1;
    CU_OK(cuFuncGetAttribute(&v, a, f));
    return v;
}

static void test_ptx_version_is_target(void **state)
{
    (void)state;
    static const struct {
        const char *version, *target;
        int want;
    } v[] = {{"8.5", "sm_75", 75}, {"7.0", "sm_70", 70}, {"9.0", "sm_80", 80}};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        char ptx[256];
        snprintf(ptx, sizeof ptx,
                 ".version %s\n.target %s\n.address_size 64\n.visible .entry empty()\n{\n  ret;\n}\n",
                 v[i].version, v[i].target);
        CUmodule m;
        CUfunction f;
        CU_OK(cuModuleLoadData(&m, ptx));
        CU_OK(cuModuleGetFunction(&f, m, "empty"));
        assert_int_equal(func_attr(f, CU_FUNC_ATTRIBUTE_PTX_VERSION), v[i].want);
        CU_OK(cuModuleUnload(m));
    }
}

/* ---- shared memory per kernel --------------------------------------------------------- */

/* A kernel `name` reversing its block's thread ids through the shared
 * array `var` (declared elsewhere). */
static void reverse_kernel(char *out, size_t len, const char *name, const char *var)
{
    snprintf(out, len,
             ".visible .entry %s(.param .u64 out)\n{\n"
             "  .reg .b32 %%r<5>;\n  .reg .b64 %%rd<6>;\n"
             "  ld.param.u64 %%rd1, [out];\n  mov.u32 %%r1, %%tid.x;\n"
             "  mul.wide.u32 %%rd2, %%r1, 4;\n  mov.u64 %%rd3, %s;\n  add.u64 %%rd4, %%rd3, %%rd2;\n"
             "  st.shared.u32 [%%rd4], %%r1;\n  bar.sync 0;\n  mov.u32 %%r2, %%ntid.x;\n"
             "  sub.u32 %%r3, %%r2, %%r1;\n  sub.u32 %%r3, %%r3, 1;\n  mul.wide.u32 %%rd2, %%r3, 4;\n"
             "  add.u64 %%rd4, %%rd3, %%rd2;\n  ld.shared.u32 %%r4, [%%rd4];\n"
             "  mul.wide.u32 %%rd2, %%r1, 4;\n  add.u64 %%rd5, %%rd1, %%rd2;\n"
             "  st.global.u32 [%%rd5], %%r4;\n  ret;\n}\n",
             name, var);
}

/* A module of kernels k0..k(n-1), kernel i using a module-scope shared
 * array of bytes[i] bytes: the load's result, and the module in *m. */
static CUresult load_shared_module(const unsigned *bytes, int n, CUmodule *m, char *log,
                                   size_t loglen)
{
    size_t cap = 4096 * (size_t)n, len = 0;
    char *ptx = malloc(cap);
    len += (size_t)snprintf(ptx, cap, ".version 7.0\n.target sm_70\n.address_size 64\n");
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(ptx + len, cap - len, ".shared .align 4 .b8 s%d[%u];\n", i, bytes[i]);
    for (int i = 0; i < n; i++) {
        char name[16], var[16];
        snprintf(name, sizeof name, "k%d", i);
        snprintf(var, sizeof var, "s%d", i);
        reverse_kernel(ptx + len, cap - len, name, var);
        len += strlen(ptx + len);
    }
    CUjit_option o[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *v[] = {log, (void *)(uintptr_t)loglen};
    log[0] = 0;
    CUresult r = cuModuleLoadDataEx(m, ptx, 2, o, v);
    free(ptx);
    return r;
}

static CUmodule shared_module(const unsigned *bytes, int n)
{
    CUmodule m;
    char log[1024];
    CU_OK(load_shared_module(bytes, n, &m, log, sizeof log));
    return m;
}

static void expect_reversal(CUfunction f, unsigned threads)
{
    CUdeviceptr out;
    CU_OK(cuMemAlloc(&out, threads * 4));
    void *args[] = {&out};
    CU_OK(cuLaunchKernel(f, 1, 1, 1, threads, 1, 1, 0, NULL, args, NULL));
    unsigned got[1024];
    CU_OK(cuMemcpyDtoH(got, out, threads * 4));
    for (unsigned t = 0; t < threads; t++)
        assert_int_equal(got[t], threads - 1 - t);
    CU_OK(cuMemFree(out));
}

static void test_shared_size_per_kernel(void **state)
{
    (void)state;
    const unsigned bytes[4] = {1024, 1024, 1024, 2048};
    CUmodule m = shared_module(bytes, 4);
    for (int i = 0; i < 4; i++) {
        char name[16];
        snprintf(name, sizeof name, "k%d", i);
        CUfunction f;
        CU_OK(cuModuleGetFunction(&f, m, name));
        assert_int_equal(func_attr(f, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES), bytes[i]);
        assert_int_equal(func_attr(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES),
                         49152 - bytes[i]);
        expect_reversal(f, bytes[i] / 4);
    }
    CU_OK(cuModuleUnload(m));

    /* Two kernels of 40 KiB each: each fits the 48 KiB a block may use
     * without opting in, though the module declares 80 KiB. */
    const unsigned big[2] = {40960, 40960};
    m = shared_module(big, 2);
    for (int i = 0; i < 2; i++) {
        CUfunction f;
        CU_OK(cuModuleGetFunction(&f, m, i ? "k1" : "k0"));
        assert_int_equal(func_attr(f, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES), 40960);
        int blocks = 0;
        CU_OK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, 256, 0));
        assert_true(blocks >= 1);
        expect_reversal(f, 256);
        /* 8 KiB more may be asked at launch, not more */
        CUdeviceptr out;
        CU_OK(cuMemAlloc(&out, 1024));
        void *args[] = {&out};
        CU_OK(cuLaunchKernel(f, 1, 1, 1, 256, 1, 1, 8192, NULL, args, NULL));
        CU_EXPECT(CUDA_ERROR_INVALID_VALUE,
                  cuLaunchKernel(f, 1, 1, 1, 256, 1, 1, 8193, NULL, args, NULL));
        CU_OK(cuCtxSynchronize());
        CU_OK(cuMemFree(out));
    }
    CU_OK(cuModuleUnload(m));
}

/* A kernel's static .shared is limited to 48 KiB, as ptxas limits it (a
 * GPU gives more only dynamically), counted per kernel; a block's static
 * plus dynamic shared memory to the device's opt-in limit. */
static void test_static_shared_limit(void **state)
{
    (void)state;
    CUmodule m;
    char log[1024];
    const unsigned too_big[2] = {1024, 200000};
    CU_EXPECT(CUDA_ERROR_INVALID_PTX, load_shared_module(too_big, 2, &m, log, sizeof log));
    /* k1 begins on line 28 */
    if (!strstr(log, ":28:17: error: kernel 'k1' uses too much shared data (200000 bytes"))
        fail_msg("log: %s", log);
    if (strstr(log, "'k0'"))
        fail_msg("k0 is within the limit: %s", log);
    const unsigned at_limit[2] = {49152, 49152}; /* 96 KiB in the module, 48 per kernel */
    m = shared_module(at_limit, 2);
    CUfunction f;
    CU_OK(cuModuleGetFunction(&f, m, "k1"));
    assert_int_equal(func_attr(f, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES), 49152);
    expect_reversal(f, 1024);
    CU_OK(cuModuleUnload(m));
}

/* ---- managed module variables ---------------------------------------------------------- */

static void test_managed_variable_pointer(void **state)
{
    (void)state;
    const char *ptx = ".version 7.0\n.target sm_70\n.address_size 64\n"
                      ".global .attribute(.managed) .align 8 .u64 counter = 3;\n"
                      ".global .align 8 .u64 plain = 4;\n";
    CUmodule m;
    CU_OK(cuModuleLoadData(&m, ptx));
    CUdeviceptr counter, plain;
    size_t n;
    CU_OK(cuModuleGetGlobal(&counter, &n, m, "counter"));
    CU_OK(cuModuleGetGlobal(&plain, &n, m, "plain"));
    unsigned managed[2] = {7, 0xdeadbeef};
    CU_OK(cuPointerGetAttribute(managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, counter + 4));
    assert_int_equal(managed[0], 1);
    assert_int_equal(managed[1], 0xdeadbeef); /* an unsigned int, no more */
    void *host = NULL;
    CU_OK(cuPointerGetAttribute(&host, CU_POINTER_ATTRIBUTE_HOST_POINTER, counter));
    assert_ptr_equal(host, (void *)(uintptr_t)counter);
    assert_int_equal(*(unsigned long long *)host, 3);
    CU_OK(cuPointerGetAttribute(managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, plain));
    assert_int_equal(managed[0], 0);
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE,
              cuPointerGetAttribute(&host, CU_POINTER_ATTRIBUTE_HOST_POINTER, plain));
    CU_OK(cuModuleUnload(m));
}

/* ---- linking libraries and objects of relocatable device code -------------------------------- */

static char *fixture(const char *name, size_t *len)
{
    char rel[256];
    snprintf(rel, sizeof rel, "cuda/fatbin/%s", name);
    return cu_test_file(rel, len);
}

/* Links link_main.cu's kernel with add_twice and mul_three from `input`
 * and checks out[i] = 3 (in[i] + 2 i). */
static void link_and_run(CUjitInputType type, const char *input, bool from_file)
{
    size_t len, plen;
    char *main_ptx = fixture("link_main.rdc.sm_80.ptx", &plen);
    char log[4096] = "";
    CUjit_option opt[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *val[2] = {log, (void *)(uintptr_t)sizeof log};
    CUlinkState ls;
    CU_OK(cuLinkCreate(2, opt, val, &ls));
    CU_OK(cuLinkAddData(ls, CU_JIT_INPUT_PTX, main_ptx, plen + 1, "link_main.ptx", 0, NULL, NULL));
    if (from_file) {
        char path[1024];
        snprintf(path, sizeof path, "%s/cuda/fatbin/%s", PTXJIT_TEST_DIR, input);
        CU_OK(cuLinkAddFile(ls, type, path, 0, NULL, NULL));
    } else {
        char *data = fixture(input, &len);
        CU_OK(cuLinkAddData(ls, type, data, len, input, 0, NULL, NULL));
        free(data);
    }
    void *image;
    size_t size;
    CUresult r = cuLinkComplete(ls, &image, &size);
    if (r)
        fail_msg("cuLinkComplete: %d: %s", r, log);
    CUmodule m;
    CU_OK(cuModuleLoadData(&m, image));
    CU_OK(cuLinkDestroy(ls));
    CUfunction f;
    CU_OK(cuModuleGetFunction(&f, m, "combine"));
    enum { N = 100 };
    int in[N], out[N];
    for (int i = 0; i < N; i++)
        in[i] = 5 * i - 77;
    CUdeviceptr din, dout;
    CU_OK(cuMemAlloc(&din, sizeof in));
    CU_OK(cuMemAlloc(&dout, sizeof out));
    CU_OK(cuMemcpyHtoD(din, in, sizeof in));
    int n = N;
    void *args[] = {&din, &dout, &n};
    CU_OK(cuLaunchKernel(f, 1, 1, 1, 128, 1, 1, 0, NULL, args, NULL));
    CU_OK(cuMemcpyDtoH(out, dout, sizeof out));
    for (int i = 0; i < N; i++)
        assert_int_equal(out[i], 3 * (in[i] + 2 * i));
    CU_OK(cuMemFree(din));
    CU_OK(cuMemFree(dout));
    CU_OK(cuModuleUnload(m));
    free(main_ptx);
}

static void test_link_library_and_object(void **state)
{
    (void)state;
    link_and_run(CU_JIT_INPUT_LIBRARY, "linklib.rdc.a", true);
    link_and_run(CU_JIT_INPUT_LIBRARY, "linklib.rdc.a", false);

    /* the object holds add_twice only: mul_three stays undefined */
    CUlinkState ls;
    size_t len;
    char *obj = fixture("link_lib_add.rdc.o", &len);
    CU_OK(cuLinkCreate(0, NULL, NULL, &ls));
    CU_OK(cuLinkAddData(ls, CU_JIT_INPUT_OBJECT, obj, len, "add.o", 0, NULL, NULL));
    /* neither an archive nor an object */
    CU_EXPECT(CUDA_ERROR_INVALID_IMAGE,
              cuLinkAddData(ls, CU_JIT_INPUT_LIBRARY, obj, len, "add.o", 0, NULL, NULL));
    char junk[64] = "!<arch>\nnot really an archive";
    CU_EXPECT(CUDA_ERROR_NO_BINARY_FOR_GPU,
              cuLinkAddData(ls, CU_JIT_INPUT_LIBRARY, junk, sizeof junk, "junk.a", 0, NULL, NULL));
    CU_EXPECT(CUDA_ERROR_INVALID_IMAGE,
              cuLinkAddData(ls, CU_JIT_INPUT_OBJECT, junk, sizeof junk, "junk.o", 0, NULL, NULL));
    /* every truncation of the archive is refused or read up to the cut, never a crash */
    char *lib = fixture("linklib.rdc.a", &len);
    for (size_t cut = 0; cut < len; cut += 97)
        cuLinkAddData(ls, CU_JIT_INPUT_LIBRARY, lib, cut ? cut : 1, "cut.a", 0, NULL, NULL);
    free(lib);
    CU_OK(cuLinkDestroy(ls));
    free(obj);
}


int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ptx_version_is_target),
        cmocka_unit_test(test_shared_size_per_kernel),
        cmocka_unit_test(test_static_shared_limit),
        cmocka_unit_test(test_managed_variable_pointer),
        cmocka_unit_test(test_link_library_and_object),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
