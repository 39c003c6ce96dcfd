/* test_cu_misaligned.c - misaligned accesses through the driver API.
 * The ISA requires every ld, st, atom and red address to be a multiple of
 * the access size (a vector access: of the whole vector); a GPU stops the
 * kernel with CUDA_ERROR_MISALIGNED_ADDRESS, which then sticks to the
 * context like any kernel fault.  Each kernel below runs twice in a fresh
 * context: with an aligned address it must succeed with the right
 * results, with a misaligned one it must fault, stickily, and the host
 * survives.  Only the lanes that execute an access count: a misaligned
 * address in a lane predicated off must not fault, one in a single
 * divergent lane must.  Built against NVIDIA's cuda.h the tests run on a
 * GPU, one per process (the argument selects it): these are the outcomes
 * an H200 gives, but for the last test, since a GPU's driver refuses even
 * a new context after such a fault, where ptxjit confines it to its
 * context as with every kernel fault (test_cu_fault.c). */
#include "cu_test.h"

static const char ptx[] =
    ".version 7.7\n"
    ".target sm_70\n"
    ".address_size 64\n"
    /* out[tid] = *p: every lane one address */
    ".visible .entry ld_uniform_u32(.param .u64 p, .param .u64 out, .param .u32 arg)\n"
    "{\n"
    "  .reg .u32 %r<4>; .reg .u64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [p]; ld.param.u64 %rd2, [out];\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  ld.global.u32 %r2, [%rd1];\n"
    "  mul.wide.u32 %rd3, %r1, 4; add.u64 %rd4, %rd2, %rd3;\n"
    "  st.global.u32 [%rd4], %r2;\n"
    "  ret;\n"
    "}\n"
    /* out[tid] = p[tid]: consecutive addresses, the shape proven at compile time */
    ".visible .entry ld_contiguous_u32(.param .u64 p, .param .u64 out, .param .u32 arg)\n"
    "{\n"
    "  .reg .u32 %r<4>; .reg .u64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [p]; ld.param.u64 %rd2, [out];\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  mul.wide.u32 %rd3, %r1, 4;\n"
    "  add.u64 %rd4, %rd1, %rd3; ld.global.u32 %r2, [%rd4];\n"
    "  add.u64 %rd5, %rd2, %rd3; st.global.u32 [%rd5], %r2;\n"
    "  ret;\n"
    "}\n"
    /* sh[arg + 8 tid] = 1000 + tid, read back into out[tid] */
    ".visible .entry st_shared_b64(.param .u64 p, .param .u64 out, .param .u32 arg)\n"
    "{\n"
    "  .shared .align 8 .b8 sh[520];\n"
    "  .reg .u32 %r<4>; .reg .u64 %rd<12>;\n"
    "  ld.param.u64 %rd2, [out]; ld.param.u32 %r2, [arg];\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  mul.wide.u32 %rd3, %r1, 8; cvt.u64.u32 %rd4, %r2;\n"
    "  mov.u64 %rd5, sh; add.u64 %rd5, %rd5, %rd4; add.u64 %rd5, %rd5, %rd3;\n"
    "  cvt.u64.u32 %rd6, %r1; add.u64 %rd6, %rd6, 1000;\n"
    "  st.shared.b64 [%rd5], %rd6;\n"
    "  ld.shared.b64 %rd7, [%rd5];\n"
    "  add.u64 %rd8, %rd2, %rd3; st.global.b64 [%rd8], %rd7;\n"
    "  ret;\n"
    "}\n"
    /* out[tid] = atomicAdd((u64 *)p, 1) */
    ".visible .entry atom_add_u64(.param .u64 p, .param .u64 out, .param .u32 arg)\n"
    "{\n"
    "  .reg .u32 %r<4>; .reg .u64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [p]; ld.param.u64 %rd2, [out];\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  atom.global.add.u64 %rd5, [%rd1], 1;\n"
    "  mul.wide.u32 %rd3, %r1, 8; add.u64 %rd4, %rd2, %rd3;\n"
    "  st.global.u64 [%rd4], %rd5;\n"
    "  ret;\n"
    "}\n"
    /* out[tid] = the sum of the float4 at p + 16 tid */
    ".visible .entry ld_v4_f32(.param .u64 p, .param .u64 out, .param .u32 arg)\n"
    "{\n"
    "  .reg .u32 %r<4>; .reg .u64 %rd<8>; .reg .f32 %f<8>;\n"
    "  ld.param.u64 %rd1, [p]; ld.param.u64 %rd2, [out];\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  mul.wide.u32 %rd3, %r1, 16; add.u64 %rd4, %rd1, %rd3;\n"
    "  ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd4];\n"
    "  add.f32 %f5, %f1, %f2; add.f32 %f5, %f5, %f3; add.f32 %f5, %f5, %f4;\n"
    "  mul.wide.u32 %rd3, %r1, 4; add.u64 %rd5, %rd2, %rd3;\n"
    "  st.global.f32 [%rd5], %f5;\n"
    "  ret;\n"
    "}\n"
    /* out[tid] = p[tid]; lane `arg` alone branches off and reads 2 bytes further */
    ".visible .entry divergent_lane(.param .u64 p, .param .u64 out, .param .u32 arg)\n"
    "{\n"
    "  .reg .pred %p<2>; .reg .u32 %r<4>; .reg .u64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [p]; ld.param.u64 %rd2, [out]; ld.param.u32 %r2, [arg];\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  mul.wide.u32 %rd3, %r1, 4; add.u64 %rd4, %rd1, %rd3;\n"
    "  setp.eq.u32 %p1, %r1, %r2;\n"
    "  @%p1 bra ODD;\n"
    "  ld.global.u32 %r3, [%rd4];\n"
    "  bra DONE;\n"
    "ODD:\n"
    "  ld.global.u32 %r3, [%rd4+2];\n"
    "DONE:\n"
    "  add.u64 %rd5, %rd2, %rd3; st.global.u32 [%rd5], %r3;\n"
    "  ret;\n"
    "}\n"
    /* out[tid] = p[tid], but lane `arg` (whose address is one byte off) is
     * predicated off and writes 7 */
    ".visible .entry inactive_lane(.param .u64 p, .param .u64 out, .param .u32 arg)\n"
    "{\n"
    "  .reg .pred %p<2>; .reg .u32 %r<4>; .reg .u64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [p]; ld.param.u64 %rd2, [out]; ld.param.u32 %r2, [arg];\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  mul.wide.u32 %rd3, %r1, 4; add.u64 %rd4, %rd1, %rd3;\n"
    "  setp.eq.u32 %p1, %r1, %r2;\n"
    "  @%p1 add.u64 %rd4, %rd4, 1;\n"
    "  @!%p1 ld.global.u32 %r3, [%rd4];\n"
    "  @%p1 mov.u32 %r3, 7;\n"
    "  add.u64 %rd5, %rd2, %rd3; st.global.u32 [%rd5], %r3;\n"
    "  ret;\n"
    "}\n"
    /* red.add on *(u32 *)p from every lane; ld.volatile through a generic address */
    ".visible .entry red_volatile_u32(.param .u64 p, .param .u64 out, .param .u32 arg)\n"
    "{\n"
    "  .reg .u32 %r<4>; .reg .u64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [p]; ld.param.u64 %rd2, [out];\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  red.global.add.u32 [%rd1], 1;\n"
    "  ld.volatile.u32 %r2, [%rd1];\n"
    "  mul.wide.u32 %rd3, %r1, 4; add.u64 %rd4, %rd2, %rd3;\n"
    "  st.global.u32 [%rd4], %r2;\n"
    "  ret;\n"
    "}\n"
    /* a .local word at byte `arg` of an 8-aligned buffer, written and read back */
    ".visible .entry st_local_u32(.param .u64 p, .param .u64 out, .param .u32 arg)\n"
    "{\n"
    "  .local .align 8 .b8 buf[12];\n"
    "  .reg .u32 %r<4>; .reg .u64 %rd<8>;\n"
    "  ld.param.u64 %rd2, [out]; ld.param.u32 %r2, [arg];\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  mov.u64 %rd1, buf; cvt.u64.u32 %rd4, %r2; add.u64 %rd1, %rd1, %rd4;\n"
    "  st.local.u32 [%rd1], %r1;\n"
    "  ld.local.u32 %r3, [%rd1];\n"
    "  mul.wide.u32 %rd3, %r1, 4; add.u64 %rd5, %rd2, %rd3;\n"
    "  st.global.u32 [%rd5], %r3;\n"
    "  ret;\n"
    "}\n"
    /* out[tid] = tid, out read through a generic pointer to the parameter
     * itself (as __grid_constant__ parameters are): parameters are aligned */
    ".visible .entry param_generic(.param .u64 p, .param .u64 out, .param .u32 arg)\n"
    "{\n"
    "  .reg .u32 %r<4>; .reg .u64 %rd<8>;\n"
    "  mov.b64 %rd1, out; cvta.param.u64 %rd2, %rd1; ld.u64 %rd3, [%rd2];\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  mul.wide.u32 %rd4, %r1, 4; add.u64 %rd5, %rd3, %rd4;\n"
    "  st.global.u32 [%rd5], %r1;\n"
    "  ret;\n"
    "}\n"
    /* out[tid] = p[tid] (a byte: any address will do) + 256 * the .v2.u8 pair
     * at p + 2 tid + arg (two bytes: an even address) */
    ".visible .entry bytes_v2_u8(.param .u64 p, .param .u64 out, .param .u32 arg)\n"
    "{\n"
    "  .reg .u16 %rs<4>; .reg .u32 %r<8>; .reg .u64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [p]; ld.param.u64 %rd2, [out]; ld.param.u32 %r2, [arg];\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  cvt.u64.u32 %rd3, %r1; add.u64 %rd4, %rd1, %rd3; ld.global.u8 %r3, [%rd4];\n"
    "  shl.b32 %r4, %r1, 1; add.u32 %r4, %r4, %r2; cvt.u64.u32 %rd5, %r4; add.u64 %rd5, %rd1, %rd5;\n"
    "  ld.global.v2.u8 {%rs1, %rs2}, [%rd5];\n"
    "  cvt.u32.u16 %r5, %rs1; cvt.u32.u16 %r6, %rs2; shl.b32 %r6, %r6, 8; or.b32 %r5, %r5, %r6;\n"
    "  shl.b32 %r5, %r5, 8; or.b32 %r5, %r5, %r3;\n"
    "  mul.wide.u32 %rd6, %r1, 4; add.u64 %rd6, %rd2, %rd6; st.global.u32 [%rd6], %r5;\n"
    "  ret;\n"
    "}\n";

enum { THREADS = 32, WORDS = 1024 };

typedef struct outcome {
    uint32_t words[WORDS]; /* the input buffer afterwards */
    uint32_t out[2 * THREADS];
} outcome;

/* Runs `kernel` on one warp with p = buffer + p_offset (the buffer holds
 * i at word i) in a fresh context.  want == CUDA_SUCCESS: returns the
 * results.  Otherwise the error must stick (every later call in the
 * context returns it) until the context is destroyed. */
static void run(const char *kernel, size_t p_offset, uint32_t arg, CUresult want, outcome *res)
{
    CUcontext c;
    CU_OK(cuCtxCreate(&c, NULL, 0, 0));
    CUmodule m;
    CU_OK(cuModuleLoadData(&m, ptx));
    CUfunction f;
    CU_OK(cuModuleGetFunction(&f, m, kernel));
    CUdeviceptr buf, out;
    CU_OK(cuMemAlloc(&buf, sizeof res->words));
    CU_OK(cuMemAlloc(&out, sizeof res->out));
    for (uint32_t i = 0; i < WORDS; i++)
        res->words[i] = i;
    CU_OK(cuMemcpyHtoD(buf, res->words, sizeof res->words));
    CU_OK(cuMemsetD8(out, 0, sizeof res->out));
    CUdeviceptr p = buf + p_offset;
    void *args[] = {&p, &out, &arg};
    CUresult r = cuLaunchKernel(f, 1, 1, 1, THREADS, 1, 1, 0, NULL, args, NULL);
    if (r == CUDA_SUCCESS)
        r = cuCtxSynchronize();
    CU_EXPECT(want, r);
    if (want == CUDA_SUCCESS) {
        CU_OK(cuMemcpyDtoH(res->words, buf, sizeof res->words));
        CU_OK(cuMemcpyDtoH(res->out, out, sizeof res->out));
        CU_OK(cuModuleUnload(m));
    } else { /* sticky */
        CU_EXPECT(want, cuCtxSynchronize());
        CUdeviceptr q;
        CU_EXPECT(want, cuMemAlloc(&q, 16));
        CU_EXPECT(want, cuMemcpyDtoH(res->out, out, sizeof res->out));
        CU_EXPECT(want, cuLaunchKernel(f, 1, 1, 1, THREADS, 1, 1, 0, NULL, args, NULL));
        CU_EXPECT(want, cuStreamSynchronize(NULL));
    }
    CU_OK(cuCtxDestroy(c));
}

static void misaligned(const char *kernel, size_t p_offset, uint32_t arg)
{
    outcome res;
    run(kernel, p_offset, arg, CUDA_ERROR_MISALIGNED_ADDRESS, &res);
}

static void test_ld_global_u32(void **state)
{
    (void)state;
    outcome res;
    run("ld_uniform_u32", 3 * 4, 0, CUDA_SUCCESS, &res);
    for (int t = 0; t < THREADS; t++)
        assert_int_equal(res.out[t], 3);
    misaligned("ld_uniform_u32", 3 * 4 + 2, 0);
}

/* p[tid]: the base alone decides, and it is misaligned */
static void test_contiguous_misaligned_base(void **state)
{
    (void)state;
    outcome res;
    run("ld_contiguous_u32", 5 * 4, 0, CUDA_SUCCESS, &res);
    for (int t = 0; t < THREADS; t++)
        assert_int_equal(res.out[t], 5 + t);
    misaligned("ld_contiguous_u32", 5 * 4 + 2, 0);
}

static void test_st_shared_b64(void **state)
{
    (void)state;
    outcome res;
    run("st_shared_b64", 0, 8, CUDA_SUCCESS, &res);
    for (int t = 0; t < THREADS; t++)
        assert_int_equal(res.out[2 * t] | (uint64_t)res.out[2 * t + 1] << 32, 1000 + t);
    misaligned("st_shared_b64", 0, 4);
}

static void test_atom_add_u64(void **state)
{
    (void)state;
    outcome res;
    run("atom_add_u64", 8 * 4, 0, CUDA_SUCCESS, &res);
    /* the counter (words 8, 9 = 8 + 2^32 * 9) went up by one per lane;
     * the lanes saw each of its values before that once */
    uint64_t start = 8 | (uint64_t)9 << 32, seen = 0;
    assert_true((res.words[8] | (uint64_t)res.words[9] << 32) == start + THREADS);
    for (int t = 0; t < THREADS; t++) {
        uint64_t old = res.out[2 * t] | (uint64_t)res.out[2 * t + 1] << 32;
        assert_true(old >= start && old < start + THREADS);
        seen |= 1ull << (old - start);
    }
    assert_true(seen == (1ull << THREADS) - 1);
    misaligned("atom_add_u64", 8 * 4 + 4, 0);
}

/* 8-byte aligned is not enough for a 16-byte vector */
static void test_ld_v4_f32(void **state)
{
    (void)state;
    outcome res;
    run("ld_v4_f32", 0, 0, CUDA_SUCCESS, &res);
    for (int t = 0; t < THREADS; t++) { /* the words are integers: floats of their bits */
        float want = 0, got;
        for (int k = 0; k < 4; k++) {
            uint32_t bits = (uint32_t)(4 * t + k);
            float x;
            memcpy(&x, &bits, sizeof x);
            want += x;
        }
        memcpy(&got, &res.out[t], sizeof got);
        assert_true(got == want);
    }
    misaligned("ld_v4_f32", 8, 0);
}

static void test_one_divergent_lane(void **state)
{
    (void)state;
    outcome res;
    run("divergent_lane", 0, THREADS, CUDA_SUCCESS, &res); /* no lane branches off */
    for (int t = 0; t < THREADS; t++)
        assert_int_equal(res.out[t], t);
    misaligned("divergent_lane", 0, 5);
}

static void test_inactive_lane_does_not_fault(void **state)
{
    (void)state;
    outcome res;
    run("inactive_lane", 0, 7, CUDA_SUCCESS, &res);
    for (int t = 0; t < THREADS; t++)
        assert_int_equal(res.out[t], t == 7 ? 7 : t);
}

static void test_red_and_volatile(void **state)
{
    (void)state;
    outcome res;
    run("red_volatile_u32", 4 * 4, 0, CUDA_SUCCESS, &res);
    assert_int_equal(res.words[4], 4 + THREADS);
    misaligned("red_volatile_u32", 4 * 4 + 2, 0);
}

static void test_st_local_u32(void **state)
{
    (void)state;
    outcome res;
    run("st_local_u32", 0, 8, CUDA_SUCCESS, &res);
    for (int t = 0; t < THREADS; t++)
        assert_int_equal(res.out[t], t);
    misaligned("st_local_u32", 0, 2);
}

/* Single bytes are never misaligned; a .v2.u8 needs an even address. */
static void test_bytes(void **state)
{
    (void)state;
    outcome res;
    run("bytes_v2_u8", 1, 1, CUDA_SUCCESS, &res); /* bytes at odd addresses, pairs at even ones */
    const uint8_t *bytes = (const uint8_t *)res.words; /* word i holds i, little-endian */
    for (int t = 0; t < THREADS; t++) {
        uint32_t b = 1 + (uint32_t)t, lo = 2 + 2 * (uint32_t)t, hi = lo + 1;
        assert_int_equal(res.out[t], bytes[b] | (uint32_t)bytes[lo] << 8 | (uint32_t)bytes[hi] << 16);
    }
    misaligned("bytes_v2_u8", 1, 0);
}

static void test_parameter_through_generic(void **state)
{
    (void)state;
    outcome res;
    run("param_generic", 0, 0, CUDA_SUCCESS, &res);
    for (int t = 0; t < THREADS; t++)
        assert_int_equal(res.out[t], t);
}

/* After a fault the host goes on, and a new context runs kernels (on a
 * GPU only a new process would). */
static void test_new_context_after_fault(void **state)
{
    (void)state;
    misaligned("ld_contiguous_u32", 2, 0);
    outcome res;
    run("ld_contiguous_u32", 0, 0, CUDA_SUCCESS, &res);
    for (int t = 0; t < THREADS; t++)
        assert_int_equal(res.out[t], t);
}

int main(int argc, char **argv)
{
    if (argc > 1) /* one test alone */
        cmocka_set_test_filter(argv[1]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ld_global_u32),
        cmocka_unit_test(test_contiguous_misaligned_base),
        cmocka_unit_test(test_st_shared_b64),
        cmocka_unit_test(test_atom_add_u64),
        cmocka_unit_test(test_ld_v4_f32),
        cmocka_unit_test(test_one_divergent_lane),
        cmocka_unit_test(test_inactive_lane_does_not_fault),
        cmocka_unit_test(test_red_and_volatile),
        cmocka_unit_test(test_st_local_u32),
        cmocka_unit_test(test_bytes),
        cmocka_unit_test(test_parameter_through_generic),
        cmocka_unit_test(test_new_context_after_fault),
    };
    CU_OK(cuInit(0));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
