/* shared_unit_gpu.c - which shared-memory offsets past a CTA's static
 * array fault: recorded on a real GPU, compared on ptxjit.
 *
 *   shared_unit_gpu record FILE   probe, write one line per array size and
 *                                 access (ld, st) to FILE
 *   shared_unit_gpu check FILE    probe, compare with FILE
 *
 * One thread loads or stores a word at offset (size rounded to 4) + delta
 * of a `.shared` array, static or dynamic (the launch's bytes); each probe runs in a child process, since a fault
 * sticks to the context (and on NVIDIA's driver to the process).  Builds
 * against NVIDIA's cuda.h and -lcuda on a GPU machine
 * (-DPTXJIT_TEST_NVIDIA_HEADER), and against ptxjit's libcuda.so.1. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef PTXJIT_TEST_NVIDIA_HEADER
#include <cuda.h>
#else
#include "ptxjit/cuda_driver.h"
#endif

static const unsigned sizes[] = {16, 100, 1000, 4096, 40000};
static const int deltas[] = {0,   4,   16,   60,   64,   124,  128,   252,  256,
                             508, 512, 1020, 1024, 4092, 4096, 16384, 65536};

/* A static array of `size` bytes, or (dynamic) an extern array the launch
 * gives `size` bytes. */
static void make_ptx(char *ptx, size_t len, unsigned size, bool dynamic)
{
    char decl[64];
    if (dynamic)
        snprintf(decl, sizeof decl, ".extern .shared .align 16 .b8 s[]");
    else
        snprintf(decl, sizeof decl, ".shared .align 16 .b8 s[%u]", size);
    snprintf(ptx, len,
             ".version 8.0\n.target sm_80\n.address_size 64\n%s;\n"
             ".visible .entry probe(.param .u64 out, .param .u32 off, .param .u32 isld)\n{\n"
             "    .reg .b32 %%r<6>;\n    .reg .b64 %%rd<3>;\n    .reg .pred %%p, %%q;\n"
             "    mov.u32 %%r1, %%tid.x;\n    setp.ne.u32 %%p, %%r1, 0;\n    @%%p bra done;\n"
             "    ld.param.u32 %%r2, [off];\n    mov.u32 %%r3, s;\n    add.u32 %%r3, %%r3, %%r2;\n"
             "    ld.param.u32 %%r4, [isld];\n    setp.ne.u32 %%q, %%r4, 0;\n"
             "    mov.u32 %%r5, 7;\n"
             "    @%%q ld.shared.u32 %%r5, [%%r3];\n"
             "    @!%%q st.shared.u32 [%%r3], 12345;\n"
             "    ld.param.u64 %%rd1, [out];\n    cvta.to.global.u64 %%rd2, %%rd1;\n"
             "    st.global.u32 [%%rd2], %%r5;\ndone:\n    ret;\n}\n",
             decl);
}

/* The child's exit status: 0 ran, 1 faulted, 2 could not set up. */
static int probe(unsigned size, bool dynamic, unsigned off, unsigned isld)
{
    char ptx[2048];
    CUdevice d;
    CUcontext c;
    CUmodule m;
    CUfunction f;
    CUdeviceptr out;
    make_ptx(ptx, sizeof ptx, size, dynamic);
    if (cuInit(0) || cuDeviceGet(&d, 0) || cuDevicePrimaryCtxRetain(&c, d) ||
        cuCtxSetCurrent(c) || cuModuleLoadData(&m, ptx) ||
        cuModuleGetFunction(&f, m, "probe") || cuMemAlloc(&out, 4))
        return 2;
    void *args[] = {&out, &off, &isld};
    CUresult r = cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, dynamic ? size : 0, NULL, args, NULL);
    if (!r)
        r = cuCtxSynchronize();
    return r == CUDA_SUCCESS ? 0 : r == CUDA_ERROR_ILLEGAL_ADDRESS ? 1 : 2;
}

/* One line per size and access: " +DELTA:ok" or " +DELTA:FAULT" each. */
static int run_line(char *line, size_t len, unsigned size, bool dynamic, unsigned isld)
{
    size_t n = (size_t)snprintf(line, len, "%ssize %u %s:", dynamic ? "dynamic " : "", size,
                                isld ? "ld" : "st");
    for (size_t k = 0; k < sizeof deltas / sizeof *deltas; k++) {
        unsigned off = (size + 3) / 4 * 4 + (unsigned)deltas[k];
        fflush(stdout);
        pid_t p = fork();
        if (p == 0)
            _exit(probe(size, dynamic, off, isld));
        int st = 0;
        if (p < 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st) > 1) {
            fprintf(stderr, "shared_unit_gpu: size %u offset %u: the probe failed to run\n",
                    size, off);
            return -1;
        }
        n += (size_t)snprintf(line + n, len - n, " +%d:%s", deltas[k],
                              WEXITSTATUS(st) ? "FAULT" : "ok");
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "record") && strcmp(argv[1], "check"))) {
        fprintf(stderr, "usage: shared_unit_gpu record|check FILE\n");
        return 2;
    }
    bool record = strcmp(argv[1], "record") == 0;
    FILE *f = fopen(argv[2], record ? "w" : "r");
    if (!f) {
        perror(argv[2]);
        return 2;
    }
    int differ = 0;
    for (unsigned dynamic = 0; dynamic < 2; dynamic++)
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
            for (unsigned isld = 0; isld < 2; isld++) {
                char line[1024], want[1024];
                if (run_line(line, sizeof line, sizes[s], dynamic, isld))
                    return 2;
                if (record) {
                    fprintf(f, "%s\n", line);
                    continue;
                }
                if (!fgets(want, sizeof want, f)) {
                    fprintf(stderr, "shared_unit_gpu: %s ends early\n", argv[2]);
                    return 2;
                }
                want[strcspn(want, "\n")] = 0;
                if (strcmp(line, want)) {
                    printf("differs:\n  gpu:    %s\n  ptxjit: %s\n", want, line);
                    differ++;
                }
            }
    fclose(f);
    if (!record)
        printf("shared_unit_gpu: %s (%zu lines)\n", differ ? "DIFFERS" : "matches the GPU",
               4 * sizeof sizes / sizeof *sizes);
    return differ ? 1 : 0;
}
