/* client.c - a program that embeds ptxjit the way a user's would: built
 * with `pkg-config --cflags --libs ptxjit` against an installed ptxjit and
 * nothing from the source tree.  It runs y = a*x + sin(x) over a partial
 * last block and checks it against the C library (sin.approx.f32 is
 * within 2^-20.9 absolute of sin on [-pi, pi]). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ptxjit/ptxjit.h>

static const char ptx[] =
    ".version 7.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry axsin(.param .u64 px, .param .u64 py, .param .f32 a, .param .u32 n)\n"
    "{\n"
    "  .reg .pred %p; .reg .b32 %r<6>; .reg .f32 %f<6>; .reg .b64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [px]; ld.param.u64 %rd2, [py]; ld.param.f32 %f1, [a]; ld.param.u32 %r1, [n];\n"
    "  mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x; mad.lo.u32 %r5, %r2, %r3, %r4;\n"
    "  setp.ge.u32 %p, %r5, %r1; @%p bra done;\n"
    "  mul.wide.u32 %rd3, %r5, 4; add.s64 %rd4, %rd1, %rd3; add.s64 %rd5, %rd2, %rd3;\n"
    "  ld.global.f32 %f2, [%rd4]; sin.approx.f32 %f3, %f2; fma.rn.f32 %f4, %f1, %f2, %f3;\n"
    "  st.global.f32 [%rd5], %f4;\n"
    "done:\n  ret;\n}\n";

int main(void)
{
    enum { N = 1000 };
    char err[256];
    char *log = NULL;
    ptxjit_ctx *ctx = ptxjit_create(2, err, sizeof err);
    if (!ctx) {
        fprintf(stderr, "client: %s\n", err);
        return 1;
    }
    ptxjit_module *m = ptxjit_load(ctx, ptx, strlen(ptx), "axsin.ptx", &log, NULL);
    if (!m) {
        fprintf(stderr, "client: load failed:\n%s\n", log ? log : "");
        return 1;
    }
    free(log);
    float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
    for (int i = 0; i < N; i++)
        x[i] = (float)(-3.14159 + 6.28318 * i / N), y[i] = -1;
    struct {
        float *x, *y;
        float a;
        unsigned n;
    } params = {x, y, 0.5f, N};
    ptxjit_launch_cfg cfg = {{(N + 127) / 128, 1, 1}, {128, 1, 1}, 0, &params, NULL};
    if (ptxjit_launch(ctx, ptxjit_kernel_get(m, "axsin"), &cfg, err, sizeof err) != PTXJIT_OK) {
        fprintf(stderr, "client: launch failed: %s\n", err);
        return 1;
    }
    int bad = 0;
    for (int i = 0; i < N; i++) {
        double want = 0.5 * x[i] + sin(x[i]);
        if (fabs(y[i] - want) > 1e-5) {
            if (bad++ < 5)
                fprintf(stderr, "client: y[%d] = %.9g, expected %.9g\n", i, y[i], want);
        }
    }
    ptxjit_module_unload(m);
    ptxjit_destroy(ctx);
    free(x);
    free(y);
    printf("client: %d of %d results wrong\n", bad, N);
    return bad != 0;
}
