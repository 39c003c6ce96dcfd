/* test_cu_module.c - modules, libraries and the linker: loading from a
 * file, PTX text, fat binaries (plain, LZ4, zstd, nvcc's wrapper) and what
 * cannot run (cubins, garbage, PTX for a newer GPU); JIT option logs;
 * functions, their attributes and variables; the CUDA 12 library API with
 * per-context instances; JIT linking of PTX with .extern symbols.
 * Kernels: tests/cuda/ sources (corpus PTX, fatbin fixtures) and PTX written
 * here; results checked against C. */
#include "cu_test.h"

static CUcontext ctx;

static int setup(void **state)
{
    (void)state;
    ctx = cu_test_primary();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    CU_OK(cuDevicePrimaryCtxRelease(0));
    return 0;
}

/* add1(float *x, int n): x[i] += 1 (tests/cuda/fatbin/add1.cu). */
static void run_add1(CUmodule m)
{
    CUfunction f;
    CU_OK(cuModuleGetFunction(&f, m, "add1"));
    float x[100];
    for (int i = 0; i < 100; i++)
        x[i] = (float)i;
    CUdeviceptr d;
    CU_OK(cuMemAlloc(&d, sizeof x));
    CU_OK(cuMemcpyHtoD(d, x, sizeof x));
    int n = 100;
    void *args[] = {&d, &n};
    CU_OK(cuLaunchKernel(f, 1, 1, 1, 128, 1, 1, 0, NULL, args, NULL));
    CU_OK(cuMemcpyDtoH(x, d, sizeof x));
    for (int i = 0; i < 100; i++)
        assert_true(x[i] == (float)i + 1.0f);
    CU_OK(cuMemFree(d));
}

static void test_load_forms(void **state)
{
    (void)state;
    CUmodule m;
    char path[1024];
    snprintf(path, sizeof path, "%s/cuda/fatbin/add1.sm_80.ptx", PTXJIT_TEST_DIR);
    CU_OK(cuModuleLoad(&m, path));
    run_add1(m);
    CU_OK(cuModuleUnload(m));
    static const char *fatbins[] = {"cuda/fatbin/add1.c80.none.fatbin",
                                    "cuda/fatbin/add1.c80.lz4.fatbin",
                                    "cuda/fatbin/add1.c80.zstd.fatbin",
                                    "cuda/fatbin/add1.c80_sm80.size.fatbin",
                                    "cuda/fatbin/add1.multi.fatbin",
                                    "cuda/fatbin/add1.ident.fatbin"};
    for (size_t i = 0; i < sizeof fatbins / sizeof fatbins[0]; i++) {
        size_t len;
        void *img = cu_test_file(fatbins[i], &len);
        CU_OK(cuModuleLoadData(&m, img));
        run_add1(m);
        CU_OK(cuModuleUnload(m));
        CU_OK(cuModuleLoadFatBinary(&m, img));
        CU_OK(cuModuleUnload(m));
        free(img);
    }
    /* nvcc's wrapper struct points at the container */
    size_t len;
    void *container = cu_test_file("cuda/fatbin/add1.wrapper.fatbin", &len);
    struct {
        uint32_t magic, version;
        const void *data, *unused;
    } wrapper = {0x466243B1u, 1, container, NULL};
    CU_OK(cuModuleLoadData(&m, &wrapper));
    run_add1(m);
    CU_OK(cuModuleUnload(m));
    free(container);
}

static void test_load_failures(void **state)
{
    (void)state;
    CUmodule m;
    size_t len;
    void *img = cu_test_file("cuda/fatbin/add1.sm_80.cubin", &len);
    CU_EXPECT(CUDA_ERROR_NO_BINARY_FOR_GPU, cuModuleLoadData(&m, img));
    free(img);
    img = cu_test_file("cuda/fatbin/add1.sass_only.fatbin", &len);
    CU_EXPECT(CUDA_ERROR_NO_BINARY_FOR_GPU, cuModuleLoadData(&m, img));
    free(img);
    static const unsigned char garbage[] = {0x01, 0x02, 0xfe, 0x99, 0x00};
    CU_EXPECT(CUDA_ERROR_INVALID_IMAGE, cuModuleLoadData(&m, garbage));
    CU_EXPECT(CUDA_ERROR_FILE_NOT_FOUND, cuModuleLoad(&m, "/nonexistent/x.ptx"));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuModuleLoadData(&m, NULL));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuModuleLoadData(NULL, "x"));
    /* PTX for an sm_90 part on the default (compute capability 8.0) device */
    if (!getenv("PTXJIT_CC")) {
        char *ptx = cu_test_corpus("vector_ops.sm_90.ptx");
        CU_EXPECT(CUDA_ERROR_INVALID_PTX, cuModuleLoadData(&m, ptx));
        free(ptx);
    }
    static const char future[] =
        ".version 9.9\n.target sm_80\n.address_size 64\n.visible .entry k() { ret; }\n";
    CU_EXPECT(CUDA_ERROR_UNSUPPORTED_PTX_VERSION, cuModuleLoadData(&m, future));
}

/* The error log carries file:line:col diagnostics, the info log a
 * summary, and the wall time comes back through the option value. */
static void test_jit_logs(void **state)
{
    (void)state;
    static const char bad[] = ".version 7.0\n"
                              ".target sm_80\n"
                              ".address_size 64\n"
                              ".visible .entry k(.param .u64 p)\n"
                              "{\n"
                              "  bogus.u32 %r1;\n"
                              "  ret;\n"
                              "}\n";
    char info[1024], error[1024];
    CUjit_option opts[] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                           CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                           CU_JIT_WALL_TIME, CU_JIT_LOG_VERBOSE, CU_JIT_OPTIMIZATION_LEVEL};
    void *vals[7];
    vals[0] = info;
    vals[1] = (void *)(uintptr_t)sizeof info;
    vals[2] = error;
    vals[3] = (void *)(uintptr_t)sizeof error;
    vals[4] = NULL;
    vals[5] = (void *)(uintptr_t)1;
    vals[6] = (void *)(uintptr_t)3;
    info[0] = error[0] = 'x';
    CUmodule m;
    CU_EXPECT(CUDA_ERROR_INVALID_PTX, cuModuleLoadDataEx(&m, bad, 7, opts, vals));
    assert_non_null(strstr(error, ":6:3: error:")); /* line 6, column 3: bogus */
    assert_int_equal((size_t)(uintptr_t)vals[3], strlen(error));
    /* a good module: logs and wall time */
    char *ptx = cu_test_corpus("vector_ops.sm_80.ptx");
    vals[1] = (void *)(uintptr_t)sizeof info;
    vals[3] = (void *)(uintptr_t)sizeof error;
    CU_OK(cuModuleLoadDataEx(&m, ptx, 7, opts, vals));
    assert_non_null(strstr(info, "9 kernel(s)"));
    assert_non_null(strstr(info, "'vec_add'")); /* verbose */
    assert_string_equal(error, "");
    float ms;
    memcpy(&ms, &vals[4], sizeof ms);
    assert_true(ms > 0.0f);
    CU_OK(cuModuleUnload(m));
    /* lazy loading by default: kernels compile when first launched, or
     * all at load with CUDA_MODULE_LOADING=EAGER (as NVIDIA's driver) */
    CUmoduleLoadingMode mode;
    CU_OK(cuModuleGetLoadingMode(&mode));
    assert_int_equal(mode, CU_MODULE_LAZY_LOADING);
    setenv("CUDA_MODULE_LOADING", "EAGER", 1);
    CU_OK(cuModuleGetLoadingMode(&mode));
    assert_int_equal(mode, CU_MODULE_EAGER_LOADING);
    vals[1] = (void *)(uintptr_t)sizeof info;
    vals[3] = (void *)(uintptr_t)sizeof error;
    CU_OK(cuModuleLoadDataEx(&m, ptx, 7, opts, vals));
    unsetenv("CUDA_MODULE_LOADING");
    assert_true(strstr(info, "9 kernel(s) compiled, 0 from the cache") ||
                strstr(info, "0 kernel(s) compiled, 9 from the cache"));
    CU_OK(cuModuleUnload(m));
    /* a small buffer is filled and terminated, never overrun */
    char tiny[8] = "zzzzzzz";
    CUjit_option o2[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *v2[] = {tiny, (void *)(uintptr_t)5};
    CU_EXPECT(CUDA_ERROR_INVALID_PTX, cuModuleLoadDataEx(&m, bad, 2, o2, v2));
    assert_int_equal(strlen(tiny), 4);
    assert_int_equal(tiny[6], 'z');
    CUjit_option unknown = (CUjit_option)1000;
    void *uv = NULL;
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuModuleLoadDataEx(&m, ptx, 1, &unknown, &uv));
    free(ptx);
}

/* Kernel attributes come from the PTX: .maxntid, .reqntid, static shared
 * memory, parameter layout; module variables by name. */
static const char attrs_ptx[] =
    ".version 7.8\n.target sm_80\n.address_size 64\n"
    ".visible .global .align 4 .u32 counter = 41;\n"
    ".visible .const .align 4 .u32 table[8] = {1, 2, 3, 4, 5, 6, 7, 8};\n"
    ".visible .entry bounded(.param .u8 a, .param .u64 b, .param .f32 c) .maxntid 96, 1, 1\n"
    "{\n"
    "  .shared .align 4 .b8 tile[1000];\n"
    "  .reg .b32 %r<3>; .reg .b64 %rd<3>;\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  mov.u64 %rd1, tile;\n"
    "  st.shared.u32 [%rd1], %r1;\n"
    "  ld.global.u32 %r2, [counter];\n"
    "  add.u32 %r2, %r2, 1;\n"
    "  st.global.u32 [counter], %r2;\n"
    "  ret;\n"
    "}\n"
    ".visible .entry exact() .reqntid 64, 2, 1 { ret; }\n";

static void test_functions_and_globals(void **state)
{
    (void)state;
    CUmodule m;
    CU_OK(cuModuleLoadData(&m, attrs_ptx));
    unsigned count;
    CU_OK(cuModuleGetFunctionCount(&count, m));
    assert_int_equal(count, 2);
    CUfunction fs[2];
    CU_OK(cuModuleEnumerateFunctions(fs, 2, m));
    CUfunction f, g;
    CU_OK(cuModuleGetFunction(&f, m, "bounded"));
    CU_OK(cuModuleGetFunction(&g, m, "exact"));
    assert_true((fs[0] == f && fs[1] == g) || (fs[0] == g && fs[1] == f));
    CU_EXPECT(CUDA_ERROR_NOT_FOUND, cuModuleGetFunction(&f, m, "nosuch"));
    CU_OK(cuModuleGetFunction(&f, m, "bounded"));
    int v;
    CU_OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f));
    assert_int_equal(v, 96);
    CU_OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, g));
    assert_int_equal(v, 128);
    CU_OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f));
    assert_int_equal(v, 1000);
    CU_OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_PTX_VERSION, f));
    assert_int_equal(v, 80); /* .target sm_80's architecture, not .version 7.8 */
    CU_OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, f));
    assert_int_equal(v, 32);
    CU_OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_NUM_REGS, f));
    assert_true(v > 0 && v <= 255);
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuFuncGetAttribute(&v, (CUfunction_attribute)99, f));
    const char *name;
    CU_OK(cuFuncGetName(&name, f));
    assert_string_equal(name, "bounded");
    size_t off, size;
    CU_OK(cuFuncGetParamInfo(f, 1, &off, &size));
    assert_int_equal(off, 8);
    assert_int_equal(size, 8);
    CU_OK(cuFuncGetParamInfo(f, 2, &off, &size));
    assert_int_equal(off, 16);
    assert_int_equal(size, 4);
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuFuncGetParamInfo(f, 3, &off, &size));
    CUmodule owner;
    CU_OK(cuFuncGetModule(&owner, f));
    assert_ptr_equal(owner, m);
    /* launch bounds are enforced */
    unsigned char a = 1;
    CUdeviceptr b = 0;
    float c = 0;
    void *args[] = {&a, &b, &c};
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuLaunchKernel(f, 1, 1, 1, 128, 1, 1, 0, NULL, args, NULL));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuLaunchKernel(g, 1, 1, 1, 64, 1, 1, 0, NULL, NULL, NULL));
    CU_OK(cuLaunchKernel(g, 1, 1, 1, 64, 2, 1, 0, NULL, NULL, NULL));
    /* variables: initial values, host writes seen by the kernel */
    CUdeviceptr counter, table;
    size_t bytes;
    CU_OK(cuModuleGetGlobal(&counter, &bytes, m, "counter"));
    assert_int_equal(bytes, 4);
    CU_OK(cuModuleGetGlobal(&table, &bytes, m, "table"));
    assert_int_equal(bytes, 32);
    unsigned t[8];
    CU_OK(cuMemcpyDtoH(t, table, sizeof t));
    for (int i = 0; i < 8; i++)
        assert_int_equal(t[i], (unsigned)(i + 1));
    unsigned cv;
    CU_OK(cuMemcpyDtoH(&cv, counter, 4));
    assert_int_equal(cv, 41);
    CU_OK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    CU_OK(cuMemcpyDtoH(&cv, counter, 4));
    assert_int_equal(cv, 42);
    cv = 100;
    CU_OK(cuMemcpyHtoD(counter, &cv, 4));
    CU_OK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    CU_OK(cuMemcpyDtoH(&cv, counter, 4));
    assert_int_equal(cv, 101);
    CUdeviceptr base;
    CU_OK(cuMemGetAddressRange(&base, &bytes, table + 12)); /* variables are device memory */
    assert_true(base == table);
    CU_EXPECT(CUDA_ERROR_NOT_FOUND, cuModuleGetGlobal(&counter, &bytes, m, "nosuch"));
    CU_OK(cuModuleUnload(m));
    /* everything of an unloaded module is gone */
    CU_EXPECT(CUDA_ERROR_INVALID_HANDLE, cuModuleGetFunction(&f, m, "bounded"));
    CU_EXPECT(CUDA_ERROR_INVALID_HANDLE, cuModuleUnload(m));
    CU_EXPECT(CUDA_ERROR_INVALID_HANDLE, cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    CU_EXPECT(CUDA_ERROR_INVALID_HANDLE, cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_NUM_REGS, f));
    CU_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemcpyDtoH(&cv, counter, 4));
}

/* The library API: kernels usable directly as launch handles, and one
 * instance (with its own variables) per context. */
static void test_library(void **state)
{
    (void)state;
    CUlibrary lib;
    CU_OK(cuLibraryLoadData(&lib, attrs_ptx, NULL, NULL, 0, NULL, NULL, 0));
    unsigned count;
    CU_OK(cuLibraryGetKernelCount(&count, lib));
    assert_int_equal(count, 2);
    CUkernel k;
    CU_OK(cuLibraryGetKernel(&k, lib, "bounded"));
    CU_EXPECT(CUDA_ERROR_NOT_FOUND, cuLibraryGetKernel(&k, lib, "nosuch"));
    CU_OK(cuLibraryGetKernel(&k, lib, "bounded"));
    const char *name;
    CU_OK(cuKernelGetName(&name, k));
    assert_string_equal(name, "bounded");
    int v;
    CU_OK(cuKernelGetAttribute(&v, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, k, 0));
    assert_int_equal(v, 1000);
    CUlibrary back;
    CU_OK(cuKernelGetLibrary(&back, k));
    assert_ptr_equal(back, lib);
    unsigned char a = 1;
    CUdeviceptr b = 0;
    float c = 0;
    void *args[] = {&a, &b, &c};
    /* a CUkernel launches like a CUfunction */
    CU_OK(cuLaunchKernel((CUfunction)k, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    CUfunction f;
    CU_OK(cuKernelGetFunction(&f, k));
    CU_OK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    CUdeviceptr counter;
    size_t bytes;
    CU_OK(cuLibraryGetGlobal(&counter, &bytes, lib, "counter"));
    unsigned cv;
    CU_OK(cuMemcpyDtoH(&cv, counter, 4));
    assert_int_equal(cv, 43);
    CUmodule mod;
    CU_OK(cuLibraryGetModule(&mod, lib));
    CUdeviceptr same;
    CU_OK(cuModuleGetGlobal(&same, NULL, mod, "counter"));
    assert_true(same == counter);
    /* another context has its own instance and variables */
    CUcontext other;
    CU_OK(cuCtxCreate(&other, NULL, 0, 0));
    CUdeviceptr theirs;
    CU_OK(cuLibraryGetGlobal(&theirs, &bytes, lib, "counter"));
    assert_true(theirs != counter);
    CU_OK(cuLaunchKernel((CUfunction)k, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    CU_OK(cuMemcpyDtoH(&cv, theirs, 4));
    assert_int_equal(cv, 42);
    CU_OK(cuCtxDestroy(other));
    CU_OK(cuMemcpyDtoH(&cv, counter, 4));
    assert_int_equal(cv, 43);
    CU_OK(cuKernelSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 60000, k, 0));
    CU_OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, f));
    assert_int_equal(v, 60000);
    CU_OK(cuLibraryUnload(lib));
    CU_EXPECT(CUDA_ERROR_INVALID_HANDLE, cuLibraryGetKernel(&k, lib, "bounded"));
    CU_EXPECT(CUDA_ERROR_INVALID_HANDLE,
              cuLaunchKernel((CUfunction)k, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    CU_EXPECT(CUDA_ERROR_INVALID_PTX,
              cuLibraryLoadData(&lib, "garbage text", NULL, NULL, 0, NULL, NULL, 0));
    char path[1024];
    snprintf(path, sizeof path, "%s/cuda/fatbin/add1.c80.zstd.fatbin", PTXJIT_TEST_DIR);
    CU_OK(cuLibraryLoadFromFile(&lib, path, NULL, NULL, 0, NULL, NULL, 0));
    CU_OK(cuLibraryGetModule(&mod, lib));
    run_add1(mod);
    CU_OK(cuLibraryUnload(lib));
}

/* Linking: main.ptx calls add_bias(), a .extern function of lib.ptx, which
 * reads lib.ptx's .visible variable `bias`; main.ptx also declares `bias`
 * .extern and reads it directly.  Both define an internal `scratch` (a
 * clash the linker must resolve by renaming) and declare vprintf-style
 * externs nobody defines (left for the runtime). */
static const char main_ptx[] =
    ".version 7.0\n.target sm_80\n.address_size 64\n"
    ".extern .func (.param .b32 r) add_bias(.param .b32 x);\n"
    ".extern .global .align 4 .u32 bias;\n"
    ".global .align 4 .u32 scratch = 1;\n"
    ".visible .entry use_lib(.param .u64 out)\n"
    "{\n"
    "  .reg .b32 %r<6>; .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [out];\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  { .param .b32 x; .param .b32 r;\n"
    "    st.param.b32 [x], %r1;\n"
    "    call.uni (r), add_bias, (x);\n"
    "    ld.param.b32 %r2, [r]; }\n"
    "  ld.global.u32 %r3, [bias];\n"
    "  ld.global.u32 %r4, [scratch];\n"
    "  add.u32 %r5, %r2, %r3;\n"
    "  add.u32 %r5, %r5, %r4;\n"
    "  mul.wide.u32 %rd2, %r1, 4;\n"
    "  add.u64 %rd3, %rd1, %rd2;\n"
    "  st.global.u32 [%rd3], %r5;\n"
    "  ret;\n"
    "}\n";
static const char lib_ptx[] =
    ".version 7.8\n.target sm_80\n.address_size 64\n"
    ".visible .global .align 4 .u32 bias = 1000;\n"
    ".global .align 4 .u32 scratch = 20;\n"
    ".visible .func (.param .b32 r) add_bias(.param .b32 x)\n"
    "{\n"
    "  .reg .b32 %r<5>;\n"
    "  ld.param.b32 %r1, [x];\n"
    "  ld.global.u32 %r2, [bias];\n"
    "  ld.global.u32 %r3, [scratch];\n"
    "  add.u32 %r4, %r1, %r2;\n"
    "  add.u32 %r4, %r4, %r3;\n"
    "  st.param.b32 [r], %r4;\n"
    "  ret;\n"
    "}\n";

static void test_link(void **state)
{
    (void)state;
    char info[512], error[512];
    CUjit_option opts[] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                           CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *vals[] = {info, (void *)(uintptr_t)sizeof info, error, (void *)(uintptr_t)sizeof error};
    CUlinkState ls;
    CU_OK(cuLinkCreate(4, opts, vals, &ls));
    CU_OK(cuLinkAddData(ls, CU_JIT_INPUT_PTX, (void *)main_ptx, sizeof main_ptx, "main.ptx", 0,
                        NULL, NULL));
    CU_OK(cuLinkAddData(ls, CU_JIT_INPUT_PTX, (void *)lib_ptx, sizeof lib_ptx, "lib.ptx", 0, NULL,
                        NULL));
    void *image;
    size_t size;
    CU_OK(cuLinkComplete(ls, &image, &size));
    assert_true(size > 0);
    CUmodule m;
    CU_OK(cuModuleLoadData(&m, image));
    CU_OK(cuLinkDestroy(ls));
    CUfunction f;
    CU_OK(cuModuleGetFunction(&f, m, "use_lib"));
    CUdeviceptr out;
    CU_OK(cuMemAlloc(&out, 32 * 4));
    void *args[] = {&out};
    CU_OK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL));
    unsigned got[32];
    CU_OK(cuMemcpyDtoH(got, out, sizeof got));
    /* (tid + bias + lib's scratch) + bias + main's scratch */
    for (unsigned i = 0; i < 32; i++)
        assert_int_equal(got[i], i + 1000 + 20 + 1000 + 1);
    CU_OK(cuMemFree(out));
    CU_OK(cuModuleUnload(m));

    /* two strong definitions of one name; then a cubin input (the sizes
     * were written back by the last link: set them again) */
    vals[1] = (void *)(uintptr_t)sizeof info;
    vals[3] = (void *)(uintptr_t)sizeof error;
    CU_OK(cuLinkCreate(4, opts, vals, &ls));
    CU_OK(cuLinkAddData(ls, CU_JIT_INPUT_PTX, (void *)lib_ptx, sizeof lib_ptx, "a.ptx", 0, NULL,
                        NULL));
    CU_OK(cuLinkAddData(ls, CU_JIT_INPUT_PTX, (void *)lib_ptx, sizeof lib_ptx, "b.ptx", 0, NULL,
                        NULL));
    CU_EXPECT(CUDA_ERROR_INVALID_PTX, cuLinkComplete(ls, &image, &size));
    assert_non_null(strstr(error, "multiple definition of 'bias'"));
    size_t len;
    void *cubin = cu_test_file("cuda/fatbin/add1.sm_80.cubin", &len);
    CU_EXPECT(CUDA_ERROR_NO_BINARY_FOR_GPU,
              cuLinkAddData(ls, CU_JIT_INPUT_CUBIN, cubin, len, "add1.cubin", 0, NULL, NULL));
    free(cubin);
    CU_OK(cuLinkDestroy(ls));
    CU_EXPECT(CUDA_ERROR_INVALID_HANDLE, cuLinkDestroy(ls));
    /* a file input, and a fat binary's PTX */
    CU_OK(cuLinkCreate(0, NULL, NULL, &ls));
    char path[1024];
    snprintf(path, sizeof path, "%s/cuda/fatbin/add1.c80.lz4.fatbin", PTXJIT_TEST_DIR);
    CU_OK(cuLinkAddFile(ls, CU_JIT_INPUT_FATBINARY, path, 0, NULL, NULL));
    CU_OK(cuLinkComplete(ls, &image, &size));
    CU_OK(cuModuleLoadData(&m, image));
    run_add1(m);
    CU_OK(cuModuleUnload(m));
    CU_EXPECT(CUDA_ERROR_FILE_NOT_FOUND,
              cuLinkAddFile(ls, CU_JIT_INPUT_PTX, "/nonexistent.ptx", 0, NULL, NULL));
    CU_OK(cuLinkDestroy(ls));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_forms),
        cmocka_unit_test(test_load_failures),
        cmocka_unit_test(test_jit_logs),
        cmocka_unit_test(test_functions_and_globals),
        cmocka_unit_test(test_library),
        cmocka_unit_test(test_link),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
