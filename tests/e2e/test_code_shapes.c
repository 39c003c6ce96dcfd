/* test_code_shapes.c - the code shapes of the fast paths, against C
 * references: barriers that return to the runtime (resumable warps) in a
 * CTA-uniform loop, behind thread-dependent branches, with bar.red and with
 * many warps, handed from the code's CTA loop to the runtime's, handed
 * over in place to warps that may wait elsewhere, the fiber fallback for a barrier next to .local memory, and
 * addresses whose lane pattern is known at compile time (a 16x16 block's
 * rows: a broadcast per row, one run of 16 read twice, runs stored at two
 * offsets) under full and partial masks, in 1D/2D/3D blocks whose sizes are
 * not multiples of 32, rows of lanes a run-time pitch apart (wrapping or
 * not, or a row pointer stepped per tile across barriers), a loop index
 * stepped across barriers whose start read a register written again
 * later, registers reused with several definitions, and if-bodies run
 * with the other lanes waiting at the join (loops, a barrier as the join,
 * early exits, partial warps), full-warp copies of hot blocks under full,
 * partial and split warps, uniform registers with several definitions
 * (loop counters, guarded writes) next to if-bodies, barriers every warp
 * reaches together (a tree over a CTA-uniform loop, a straight region
 * between them run for two warps at a time) and barriers warps
 * reach apart (%warpid, a register an if-body sets), per-lane counters
 * stepped by uniform values (split into a start and a sum), a specialized
 * version with a smaller warp frame than the generic one, lanes that leave
 * a loop apart; a misaligned base
 * faults on each of those paths.  Each kernel runs with code specialized for its
 * block shape and with the generic code (PTXJIT_SPECIALIZE). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "ptxjit/ptxjit.h"
#include "test_ctx.h"

#define HEADER ".version 7.0\n.target sm_80\n.address_size 64\n"

/* out[tid] = sum over i < n of (tid + i) % 7, accumulated in shared memory
 * across a barrier per iteration of a loop whose trip count is a parameter
 * (CTA-uniform); odd threads take a different path to each barrier. */
static const char loop_src[] = HEADER
    ".visible .entry loop_barrier(.param .u64 out, .param .u32 n)\n{\n"
    "  .reg .pred %p<4>; .reg .b32 %r<16>; .reg .b64 %rd<8>;\n"
    "  .shared .align 4 .b8 acc[4096];\n"
    "  ld.param.u64 %rd1, [out]; ld.param.u32 %r1, [n];\n"
    "  mov.u32 %r2, %tid.x; mov.u32 %r3, %ntid.x; shl.b32 %r4, %r2, 2; mov.u32 %r5, acc;\n"
    "  add.s32 %r6, %r5, %r4; mov.u32 %r7, 0; st.shared.u32 [%r6], %r7; mov.u32 %r8, 0;\n"
    "  setp.eq.u32 %p1, %r1, 0; @%p1 bra DONE;\n"
    "LOOP:\n"
    "  add.s32 %r9, %r2, %r8; rem.u32 %r10, %r9, 7;\n"
    "  and.b32 %r11, %r2, 1; setp.eq.u32 %p2, %r11, 0; @%p2 bra EVEN;\n"
    "  ld.shared.u32 %r12, [%r6]; add.s32 %r12, %r12, %r10; st.shared.u32 [%r6], %r12;\n"
    "  barrier.sync 0; bra NEXT;\n"
    "EVEN:\n"
    "  add.s32 %r13, %r3, %r2; rem.u32 %r13, %r13, %r3; shl.b32 %r13, %r13, 2; add.s32 %r13, %r5, %r13;\n"
    "  ld.shared.u32 %r12, [%r13]; add.s32 %r12, %r12, %r10; st.shared.u32 [%r13], %r12;\n"
    "  barrier.sync 0;\n"
    "NEXT:\n"
    "  add.s32 %r8, %r8, 1; setp.lt.u32 %p3, %r8, %r1; @%p3 bra LOOP;\n"
    "DONE:\n"
    "  bar.sync 0; ld.shared.u32 %r14, [%r6];\n"
    "  mul.wide.u32 %rd2, %r2, 4; add.s64 %rd3, %rd1, %rd2; st.global.u32 [%rd3], %r14;\n"
    "  ret;\n}\n"
    /* counts[ctaid] = number of threads with in[gid] > 0, through bar.red.popc
     * after threads >= keep exited */
    ".visible .entry red_after_exit(.param .u64 in, .param .u64 counts, .param .u32 keep)\n{\n"
    "  .reg .pred %p<4>; .reg .b32 %r<12>; .reg .b64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [counts]; ld.param.u32 %r1, [keep];\n"
    "  mov.u32 %r2, %tid.x; setp.ge.u32 %p1, %r2, %r1; @%p1 exit;\n"
    "  mov.u32 %r3, %ctaid.x; mov.u32 %r4, %ntid.x; mad.lo.s32 %r5, %r3, %r4, %r2;\n"
    "  mul.wide.u32 %rd3, %r5, 4; add.s64 %rd4, %rd1, %rd3; ld.global.s32 %r6, [%rd4];\n"
    "  setp.gt.s32 %p2, %r6, 0; bar.red.popc.u32 %r7, 0, %p2;\n"
    "  setp.ne.u32 %p3, %r2, 0; @%p3 bra END;\n"
    "  mul.wide.u32 %rd5, %r3, 4; add.s64 %rd6, %rd2, %rd5; st.global.u32 [%rd6], %r7;\n"
    "END:\n  ret;\n}\n"
    /* the same sum as loop_barrier through a .local array: fibers */
    ".visible .entry local_and_barrier(.param .u64 out)\n{\n"
    "  .local .align 4 .b8 buf[16]; .reg .b32 %r<8>; .reg .b64 %rd<8>;\n"
    "  .shared .align 4 .b8 sh[4096];\n"
    "  ld.param.u64 %rd1, [out]; mov.u32 %r1, %tid.x; mov.u64 %rd2, buf;\n"
    "  st.local.u32 [%rd2], %r1; mov.u32 %r2, sh; shl.b32 %r3, %r1, 2; add.s32 %r4, %r2, %r3;\n"
    "  st.shared.u32 [%r4], %r1; bar.sync 0;\n"
    "  mov.u32 %r5, %ntid.x; add.s32 %r6, %r1, 1; rem.u32 %r6, %r6, %r5; shl.b32 %r6, %r6, 2;\n"
    "  add.s32 %r6, %r2, %r6; ld.shared.u32 %r7, [%r6]; ld.local.u32 %r6, [%rd2]; add.s32 %r7, %r7, %r6;\n"
    "  mul.wide.u32 %rd3, %r1, 4; add.s64 %rd4, %rd1, %rd3; st.global.u32 [%rd4], %r7;\n"
    "  ret;\n}\n"
    /* The code's CTA loop and the runtime's, handing over: plain barriers
     * (the code completes them), threads >= keep exit, a counted barrier
     * (the runtime takes over), plain barriers again.  With v = (t + 1) % n
     * and w(t) = v((t + 1) % keep) + 1: out[t] = 2 w((t + 2) % keep) for
     * t < keep, untouched for the others. */
    ".visible .entry handover(.param .u64 out, .param .u32 keep)\n{\n"
    "  .reg .pred %p<4>; .reg .b32 %r<20>; .reg .b64 %rd<8>;\n"
    "  .shared .align 4 .b8 s[4096];\n"
    "  ld.param.u64 %rd1, [out]; ld.param.u32 %r1, [keep];\n"
    "  mov.u32 %r2, %tid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, s; shl.b32 %r5, %r2, 2; add.s32 %r6, %r4, %r5;\n"
    "  st.shared.u32 [%r6], %r2; bar.sync 0;\n"
    "  add.s32 %r7, %r2, 1; rem.u32 %r7, %r7, %r3; shl.b32 %r7, %r7, 2; add.s32 %r7, %r4, %r7;\n"
    "  ld.shared.u32 %r8, [%r7]; bar.sync 0;\n"
    "  setp.ge.u32 %p1, %r2, %r1; @%p1 exit;\n"
    "  add.s32 %r9, %r8, 1; st.shared.u32 [%r6], %r9; bar.sync 1, 64;\n"
    "  add.s32 %r10, %r2, 1; rem.u32 %r10, %r10, %r1; shl.b32 %r10, %r10, 2; add.s32 %r10, %r4, %r10;\n"
    "  ld.shared.u32 %r11, [%r10]; bar.sync 0;\n"
    "  shl.b32 %r12, %r11, 1; st.shared.u32 [%r6], %r12; barrier.sync 0;\n"
    "  add.s32 %r13, %r2, 2; rem.u32 %r13, %r13, %r1; shl.b32 %r13, %r13, 2; add.s32 %r13, %r4, %r13;\n"
    "  ld.shared.u32 %r14, [%r13];\n"
    "  mul.wide.u32 %rd2, %r2, 4; add.s64 %rd3, %rd1, %rd2; st.global.u32 [%rd3], %r14;\n"
    "  ret;\n}\n"
    /* The CTA loop hands over to the next warp where it waits: warp 3's
     * lanes loop t % 4 times (acc = 1 + .. + t % 4) and reach barrier X
     * diverged, the other warps converged; then Y and Z, each reached from
     * the one before.  out[t] = acc + t' + s[t'], t' = (t + 37) % ntid,
     * s[u] = acc(u) + (u + 37) % ntid. */
    ".visible .entry mixed_resume(.param .u64 out)\n{\n"
    "  .reg .pred %p<4>; .reg .b32 %r<20>; .reg .b64 %rd<4>;\n"
    "  .shared .align 4 .b8 sm[1024];\n"
    "  ld.param.u64 %rd1, [out]; mov.u32 %r1, %tid.x; mov.u32 %r12, %ntid.x;\n"
    "  shl.b32 %r2, %r1, 2; mov.u32 %r3, sm; add.s32 %r4, %r3, %r2; st.shared.u32 [%r4], %r1;\n"
    "  shr.u32 %r5, %r1, 5; and.b32 %r6, %r1, 3; mov.u32 %r7, 0;\n"
    "  setp.ne.u32 %p1, %r5, 3; @%p1 bra X;\n"
    "LOOP:\n"
    "  setp.eq.u32 %p2, %r6, 0; @%p2 bra X;\n"
    "  add.s32 %r7, %r7, %r6; sub.s32 %r6, %r6, 1; bra LOOP;\n"
    "X:\n"
    "  bar.sync 0;\n"
    "  add.s32 %r8, %r1, 37; rem.u32 %r8, %r8, %r12; shl.b32 %r9, %r8, 2; add.s32 %r9, %r3, %r9;\n"
    "  ld.shared.u32 %r10, [%r9]; add.s32 %r7, %r7, %r10;\n"
    "  bar.sync 0;\n"
    "  st.shared.u32 [%r4], %r7;\n"
    "  bar.sync 0;\n"
    "  ld.shared.u32 %r11, [%r9]; add.s32 %r7, %r7, %r11;\n"
    "  mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2; st.global.u32 [%rd3], %r7;\n"
    "  ret;\n}\n"
    /* out[tid] = 3 tid: no barrier of its own, next to kernels with them */
    ".visible .entry no_barrier(.param .u64 out)\n{\n"
    "  .reg .b32 %r<4>; .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [out]; mov.u32 %r1, %tid.x; mul.lo.u32 %r2, %r1, 3;\n"
    "  mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2; st.global.u32 [%rd3], %r2;\n"
    "  ret;\n}\n";

/* out[tid] = tid + 1 through a .func holding a barrier: fibers (and every
 * kernel of the module may call it) */
static const char func_bar_src[] = HEADER
    ".func (.param .u32 r) bar_in_func(.param .u32 a)\n{\n"
    "  .reg .b32 %r<2>; ld.param.u32 %r1, [a]; bar.sync 0; add.s32 %r1, %r1, 1; st.param.u32 [r], %r1;\n"
    "  ret;\n}\n"
    ".visible .entry calls_bar(.param .u64 out)\n{\n"
    "  .reg .b32 %r<4>; .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [out]; mov.u32 %r1, %tid.x;\n"
    "  { .param .u32 a; .param .u32 r; st.param.u32 [a], %r1;\n"
    "    call.uni (r), bar_in_func, (a); ld.param.u32 %r2, [r]; }\n"
    "  mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2; st.global.u32 [%rd3], %r2;\n"
    "  ret;\n}\n";

/* C[ty][tx] = sum over k < 16 of A[ty][k] * B[k][tx] for one 16x16 tile,
 * reading A and B straight from global memory (A: a broadcast per row of
 * lanes, B: one run of 16 read by both rows of a warp), and D[ty][tx] =
 * C[ty][tx] + 1 for tx < lim only (a partial mask); E is stored with a
 * row stride of 80 bytes (two runs at different offsets per warp). */
static const char tile_src[] = HEADER
    ".visible .entry tile16(.param .u64 a, .param .u64 b, .param .u64 c, .param .u64 d,\n"
    "    .param .u64 e, .param .u32 lim)\n{\n"
    "  .reg .pred %p<4>; .reg .b32 %r<16>; .reg .f32 %f<8>; .reg .b64 %rd<24>;\n"
    "  ld.param.u64 %rd1, [a]; ld.param.u64 %rd2, [b]; ld.param.u64 %rd3, [c];\n"
    "  ld.param.u64 %rd4, [d]; ld.param.u64 %rd5, [e]; ld.param.u32 %r1, [lim];\n"
    "  mov.u32 %r2, %tid.x; mov.u32 %r3, %tid.y;\n"
    "  mul.wide.u32 %rd6, %r3, 64; add.s64 %rd7, %rd1, %rd6;\n"   /* &A[ty][0] */
    "  mul.wide.u32 %rd8, %r2, 4; add.s64 %rd9, %rd2, %rd8;\n"    /* &B[0][tx] */
    "  mov.f32 %f1, 0f00000000; mov.u32 %r4, 0;\n"
    "K:\n"
    "  mul.wide.u32 %rd10, %r4, 4; add.s64 %rd11, %rd7, %rd10; ld.global.f32 %f2, [%rd11];\n"
    "  mul.wide.u32 %rd12, %r4, 64; add.s64 %rd13, %rd9, %rd12; ld.global.f32 %f3, [%rd13];\n"
    "  fma.rn.f32 %f1, %f2, %f3, %f1; add.s32 %r4, %r4, 1; setp.lt.u32 %p1, %r4, 16; @%p1 bra K;\n"
    "  add.s64 %rd14, %rd6, %rd8; add.s64 %rd15, %rd3, %rd14; st.global.f32 [%rd15], %f1;\n"
    "  setp.lt.u32 %p2, %r2, %r1; add.f32 %f4, %f1, 0f3F800000;\n"
    "  add.s64 %rd16, %rd4, %rd14; @%p2 st.global.f32 [%rd16], %f4;\n"
    "  mul.wide.u32 %rd17, %r3, 80; add.s64 %rd18, %rd17, %rd8; add.s64 %rd19, %rd5, %rd18;\n"
    "  st.global.f32 [%rd19], %f1;\n"
    "  ret;\n}\n"
    /* out[linear] = tid.x + 100 tid.y + 10000 tid.z for any block shape */
    ".visible .entry tids(.param .u64 out)\n{\n"
    "  .reg .b32 %r<12>; .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [out]; mov.u32 %r1, %tid.x; mov.u32 %r2, %tid.y; mov.u32 %r3, %tid.z;\n"
    "  mov.u32 %r4, %ntid.x; mov.u32 %r5, %ntid.y; mad.lo.s32 %r6, %r3, %r5, %r2; mad.lo.s32 %r6, %r6, %r4, %r1;\n"
    "  mad.lo.s32 %r7, %r2, 100, %r1; mad.lo.s32 %r7, %r3, 10000, %r7;\n"
    "  mul.wide.u32 %rd2, %r6, 4; add.s64 %rd3, %rd1, %rd2; st.global.u32 [%rd3], %r7;\n"
    "  ret;\n}\n";

/* Registers nvcc reuses (lower_forward.c): %r2 is %tid.x, then a loop
 * variable (tid + 5 i), then %tid.x again; addresses computed from its
 * first value are read across barriers; %r7 has two definitions reaching
 * one read; after the loop two definitions of %r2 reach its read.  For
 * thread t of T: out[t] = sum over i < n of (((t + 1) % T + 5 i) + r7(t))
 * + (n ? t + 5 n : t), r7(t) = 3 t for odd t, 7 for even t; odd threads
 * reach the loop's first barrier through another barrier instruction. */
static const char reuse_src[] = HEADER
    ".visible .entry reused(.param .u64 out, .param .u32 n)\n{\n"
    "  .reg .pred %p<6>; .reg .b32 %r<24>; .reg .b64 %rd<8>;\n"
    "  .shared .align 4 .b8 tile[4096];\n"
    "  ld.param.u64 %rd1, [out]; ld.param.u32 %r1, [n]; mov.u32 %r15, %ntid.x;\n"
    "  mov.u32 %r2, %tid.x; shl.b32 %r3, %r2, 2; mov.u32 %r4, tile; add.s32 %r5, %r4, %r3;\n"
    "  add.s32 %r14, %r2, 1; rem.u32 %r14, %r14, %r15; shl.b32 %r16, %r14, 2; add.s32 %r11, %r4, %r16;\n"
    "  and.b32 %r6, %r2, 1; setp.eq.u32 %p1, %r6, 0; @%p1 bra EVEN;\n"
    "  mul.lo.u32 %r7, %r2, 3; bra J;\n"
    "EVEN:\n  mov.u32 %r7, 7;\n"
    "J:\n  mov.u32 %r8, 0; mov.u32 %r9, 0; setp.eq.u32 %p2, %r1, 0; @%p2 bra DONE;\n"
    "LOOP:\n"
    "  st.shared.u32 [%r5], %r2; @%p1 bra BEVEN;\n"
    "  bar.sync 0; bra READ;\n"
    "BEVEN:\n  bar.sync 0;\n"
    "READ:\n  ld.shared.u32 %r12, [%r11]; add.s32 %r8, %r8, %r12; add.s32 %r8, %r8, %r7;\n"
    "  bar.sync 0; add.s32 %r2, %r2, 5;\n"
    "  add.s32 %r9, %r9, 1; setp.lt.u32 %p3, %r9, %r1; @%p3 bra LOOP;\n"
    "DONE:\n  add.s32 %r8, %r8, %r2; mov.u32 %r2, %tid.x;\n"
    "  mul.wide.u32 %rd2, %r2, 4; add.s64 %rd3, %rd1, %rd2; st.global.u32 [%rd3], %r8;\n"
    "  ret;\n}\n";

/* Rows of lanes a run-time pitch apart (symbolic strides): for thread
 * (x, y) of a bx x by block, i = y * pitch + x (s32) and
 * out[y * bx + x] = 2 in[i] + in[i + pitch] + in[i - 1] (in may point into
 * the middle of its buffer: negative pitches).  wrap16 computes
 * i = (y * pitch + x) mod 2^16 and writes out[y * bx + x] = in[i] - (x odd),
 * loading on both sides of a divergent branch (the address reaches the
 * loads through phis, its wrap tests left behind: the addresses are
 * checked): rows whose 16-bit index wraps are not
 * a stride in the wide address. */
static const char pitch_src[] = HEADER
    ".visible .entry pitched(.param .u64 in, .param .u64 out, .param .u32 pitch)\n{\n"
    "  .reg .b32 %r<16>; .reg .f32 %f<8>; .reg .b64 %rd<16>;\n"
    "  ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out]; ld.param.u32 %r1, [pitch];\n"
    "  mov.u32 %r2, %tid.x; mov.u32 %r3, %tid.y; mov.u32 %r4, %ntid.x;\n"
    "  mad.lo.s32 %r5, %r3, %r1, %r2; mul.wide.s32 %rd3, %r5, 4; add.s64 %rd4, %rd1, %rd3;\n"
    "  ld.global.f32 %f1, [%rd4]; mul.wide.s32 %rd5, %r1, 4; add.s64 %rd6, %rd4, %rd5; ld.global.f32 %f2, [%rd6];\n"
    "  ld.global.f32 %f3, [%rd4+-4]; add.f32 %f4, %f1, %f1; add.f32 %f4, %f4, %f2; add.f32 %f4, %f4, %f3;\n"
    "  mad.lo.s32 %r6, %r3, %r4, %r2; mul.wide.u32 %rd7, %r6, 4; add.s64 %rd8, %rd2, %rd7; st.global.f32 [%rd8], %f4;\n"
    "  ret;\n}\n"
    ".visible .entry wrap16(.param .u64 in, .param .u64 out, .param .u16 pitch)\n{\n"
    "  .reg .pred %p<3>; .reg .b16 %rs<8>; .reg .b32 %r<16>; .reg .b64 %rd<16>;\n"
    "  ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out]; ld.param.u16 %rs1, [pitch];\n"
    "  mov.u32 %r1, %tid.x; mov.u32 %r2, %tid.y; mov.u32 %r3, %ntid.x;\n"
    "  setp.ge.u32 %p0, %r2, %r3; @%p0 bra DONE;\n"
    "  cvt.u16.u32 %rs2, %r1; cvt.u16.u32 %rs3, %r2; mad.lo.u16 %rs4, %rs3, %rs1, %rs2;\n"
    "  mul.wide.u16 %r4, %rs4, 4; cvt.u64.u32 %rd3, %r4; add.s64 %rd4, %rd1, %rd3;\n"
    "  mad.lo.s32 %r6, %r2, %r3, %r1; mul.wide.u32 %rd5, %r6, 4; add.s64 %rd6, %rd2, %rd5;\n"
    "  and.b32 %r7, %r1, 1; setp.eq.u32 %p1, %r7, 0; @%p1 bra EVEN;\n"
    "  bra.uni ODD;\n"
    "EVEN:\n  ld.global.u32 %r5, [%rd4]; st.global.u32 [%rd6], %r5; bra.uni DONE;\n"
    "ODD:\n  ld.global.u32 %r5, [%rd4]; sub.s32 %r5, %r5, 1; st.global.u32 [%rd6], %r5;\n"
    "DONE:\n  ret;\n}\n"
    /* SGEMM's tile loads: a pointer to row y at a run-time pitch stepped
     * 16 elements per tile, carried across two barriers per tile, under a
     * bounds guard (x < limit, else 0.5); out = sum over tiles of own + row's first */
    ".visible .entry pitched_tiles(.param .u64 in, .param .u64 out, .param .u32 pitch, .param .u32 tiles,\n"
    "                              .param .u32 limit)\n{\n"
    "  .reg .pred %p<3>; .reg .b32 %r<20>; .reg .f32 %f<8>; .reg .b64 %rd<16>;\n"
    "  .shared .align 4 .b8 tile[1024];\n"
    "  ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out]; ld.param.u32 %r1, [pitch];\n"
    "  ld.param.u32 %r9, [tiles]; ld.param.u32 %r10, [limit];\n"
    "  mov.u32 %r2, %tid.x; mov.u32 %r3, %tid.y; mov.u32 %r4, %ntid.x;\n"
    "  mad.lo.s32 %r5, %r3, %r1, %r2; mul.wide.s32 %rd3, %r5, 4; add.s64 %rd4, %rd1, %rd3;\n"
    "  mul.lo.s32 %r6, %r3, %r4; shl.b32 %r7, %r6, 2; mov.u32 %r11, tile; add.s32 %r14, %r11, %r7;\n"
    "  shl.b32 %r8, %r2, 2; add.s32 %r12, %r14, %r8;\n"
    "  mov.f32 %f1, 0f00000000; mov.u32 %r13, 0;\n"
    "LOOP:\n"
    "  mov.f32 %f2, 0f3F000000; setp.ge.u32 %p1, %r2, %r10; @%p1 bra SKIP;\n"
    "  ld.global.f32 %f2, [%rd4];\n"
    "SKIP:\n"
    "  st.shared.f32 [%r12], %f2; bar.sync 0;\n"
    "  ld.shared.f32 %f3, [%r12]; ld.shared.f32 %f4, [%r14]; add.f32 %f1, %f1, %f3; add.f32 %f1, %f1, %f4;\n"
    "  bar.sync 0; add.s64 %rd4, %rd4, 64; add.s32 %r13, %r13, 1; setp.lt.u32 %p2, %r13, %r9; @%p2 bra LOOP;\n"
    "  mad.lo.s32 %r15, %r3, %r4, %r2; mul.wide.u32 %rd7, %r15, 4; add.s64 %rd8, %rd2, %rd7; st.global.f32 [%rd8], %f1;\n"
    "  ret;\n}\n"
    /* An induction variable whose start reads a register written again
     * before the loop: out[t] = sum over i < n of (3 t + 16 i) + 7 n */
    ".visible .entry step_after_reuse(.param .u64 out, .param .u32 n)\n{\n"
    "  .reg .pred %p<2>; .reg .b32 %r<12>; .reg .b64 %rd<6>;\n"
    "  .shared .align 4 .b8 sh[1024];\n"
    "  ld.param.u64 %rd1, [out]; ld.param.u32 %r9, [n];\n"
    "  mov.u32 %r1, %tid.x; mul.lo.u32 %r2, %r1, 3; mov.u32 %r3, sh; shl.b32 %r4, %r1, 2;\n"
    "  add.s32 %r5, %r3, %r4; mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2;\n"
    "  mov.u32 %r1, 7; mov.u32 %r6, 0; mov.u32 %r7, 0;\n"
    "LOOP:\n"
    "  st.shared.u32 [%r5], %r2; bar.sync 0;\n"
    "  ld.shared.u32 %r8, [%r5]; add.s32 %r7, %r7, %r8; add.s32 %r7, %r7, %r1; bar.sync 0;\n"
    "  add.s32 %r2, %r2, 16; add.s32 %r6, %r6, 1; setp.lt.u32 %p1, %r6, %r9; @%p1 bra LOOP;\n"
    "  st.global.u32 [%rd3], %r7;\n"
    "  ret;\n}\n";


/* Grid-stride loops, whose loads prefetch a few steps ahead once their
 * step is a page or more: out[g] = sum of in[g + j * stride] over j while
 * in range (stride = the grid's threads), and the same with a barrier in
 * each step (n a multiple of the stride: every thread steps as often). */
static const char stride_src[] = HEADER
    ".visible .entry grid_sum(.param .u64 in, .param .u64 out, .param .u32 n)\n{\n"
    "  .reg .pred %p<3>; .reg .b32 %r<12>; .reg .f32 %f<4>; .reg .b64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out]; ld.param.u32 %r1, [n];\n"
    "  mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x; mad.lo.s32 %r5, %r2, %r3, %r4;\n"
    "  mov.u32 %r6, %nctaid.x; mul.lo.s32 %r7, %r6, %r3; mov.f32 %f1, 0f00000000; mov.u32 %r8, %r5;\n"
    "  setp.ge.u32 %p1, %r8, %r1; @%p1 bra DONE;\n"
    "LOOP:\n"
    "  mul.wide.u32 %rd3, %r8, 4; add.s64 %rd4, %rd1, %rd3; ld.global.f32 %f2, [%rd4]; add.f32 %f1, %f1, %f2;\n"
    "  add.s32 %r8, %r8, %r7; setp.lt.u32 %p2, %r8, %r1; @%p2 bra LOOP;\n"
    "DONE:\n"
    "  mul.wide.u32 %rd5, %r5, 4; add.s64 %rd6, %rd2, %rd5; st.global.f32 [%rd6], %f1;\n"
    "  ret;\n}\n"
    ".visible .entry grid_sum_bar(.param .u64 in, .param .u64 out, .param .u32 n)\n{\n"
    "  .reg .pred %p<3>; .reg .b32 %r<12>; .reg .f32 %f<4>; .reg .b64 %rd<8>;\n"
    "  .shared .align 4 .b8 sh[4096];\n"
    "  ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out]; ld.param.u32 %r1, [n];\n"
    "  mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x; mad.lo.s32 %r5, %r2, %r3, %r4;\n"
    "  mov.u32 %r6, %nctaid.x; mul.lo.s32 %r7, %r6, %r3; mov.f32 %f1, 0f00000000; mov.u32 %r8, %r5;\n"
    "  mov.u32 %r9, sh; shl.b32 %r10, %r4, 2; add.s32 %r9, %r9, %r10;\n"
    "LOOP:\n"
    "  mul.wide.u32 %rd3, %r8, 4; add.s64 %rd4, %rd1, %rd3; ld.global.f32 %f2, [%rd4];\n"
    "  st.shared.f32 [%r9], %f2; bar.sync 0; ld.shared.f32 %f3, [%r9]; add.f32 %f1, %f1, %f3; bar.sync 0;\n"
    "  add.s32 %r8, %r8, %r7; setp.lt.u32 %p2, %r8, %r1; @%p2 bra LOOP;\n"
    "  mul.wide.u32 %rd5, %r5, 4; add.s64 %rd6, %rd2, %rd5; st.global.f32 [%rd6], %f1;\n"
    "  ret;\n}\n";

/* Shared atomics of a whole warp on a few bins: each lane's old value is
 * the bin's after the lanes below it (lane order), with every lane active
 * and with odd lanes off.  out[32 c + t] = t's old value in CTA c,
 * out[64 + 4 c + b] = bin b at the end. */
static const char bins_src[] = HEADER
    ".visible .entry bins(.param .u64 out, .param .u32 odd_off)\n{\n"
    "  .reg .pred %p<4>; .reg .b32 %r<16>; .reg .b64 %rd<8>;\n"
    "  .shared .align 4 .b8 b[16];\n"
    "  ld.param.u64 %rd1, [out]; ld.param.u32 %r1, [odd_off];\n"
    "  mov.u32 %r2, %tid.x; mov.u32 %r3, %ctaid.x; mov.u32 %r4, b;\n"
    "  setp.lt.u32 %p1, %r2, 4; shl.b32 %r5, %r2, 2; add.s32 %r6, %r4, %r5; mov.u32 %r7, 0;\n"
    "  @%p1 st.shared.u32 [%r6], %r7; bar.sync 0;\n"
    "  rem.u32 %r8, %r2, 3; shl.b32 %r8, %r8, 2; add.s32 %r8, %r4, %r8; add.s32 %r9, %r2, 1;\n"
    "  and.b32 %r10, %r2, %r1; setp.eq.u32 %p2, %r10, 0; mov.u32 %r11, 12345;\n"
    "  @%p2 atom.shared.add.u32 %r11, [%r8], %r9;\n"
    "  shl.b32 %r12, %r3, 5; add.s32 %r12, %r12, %r2; mul.wide.u32 %rd2, %r12, 4; add.s64 %rd3, %rd1, %rd2;\n"
    "  st.global.u32 [%rd3], %r11; bar.sync 0;\n"
    "  @!%p1 bra DONE; ld.shared.u32 %r13, [%r6]; shl.b32 %r14, %r3, 2; add.s32 %r14, %r14, %r2; add.s32 %r14, %r14, 64;\n"
    "  mul.wide.u32 %rd4, %r14, 4; add.s64 %rd5, %rd1, %rd4; st.global.u32 [%rd5], %r13;\n"
    "DONE:\n  ret;\n}\n";

/* Addresses only known at run time (indices read from memory): thread
 * t = y * 16 + x of a 16 x by block reads out[t] = in[idx[t]] when
 * x < lim, else leaves -1; `indexed_shared` reads the same through a
 * shared copy of in (32-bit window offsets).  The run-time classes:
 * consecutive, one address, two rows of 16 consecutive lanes (a
 * 16-wide block reading a tile), a gather. */
static const char indexed_src[] = HEADER
    ".visible .entry indexed(.param .u64 in, .param .u64 idx, .param .u64 out, .param .u32 lim)\n{\n"
    "  .reg .pred %p<3>; .reg .b32 %r<12>; .reg .f32 %f<4>; .reg .b64 %rd<12>;\n"
    "  ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [idx]; ld.param.u64 %rd3, [out]; ld.param.u32 %r1, [lim];\n"
    "  mov.u32 %r2, %tid.x; mov.u32 %r3, %tid.y; mov.u32 %r4, %ntid.x; mad.lo.s32 %r5, %r3, %r4, %r2;\n"
    "  mul.wide.u32 %rd4, %r5, 4; add.s64 %rd5, %rd2, %rd4; ld.global.u32 %r6, [%rd5];\n"
    "  mul.wide.u32 %rd6, %r6, 4; add.s64 %rd7, %rd1, %rd6; mov.f32 %f1, 0fBF800000;\n"
    "  setp.lt.u32 %p1, %r2, %r1; @%p1 ld.global.f32 %f1, [%rd7];\n"
    "  add.s64 %rd8, %rd3, %rd4; st.global.f32 [%rd8], %f1;\n"
    "  ret;\n}\n"
    ".visible .entry indexed_shared(.param .u64 in, .param .u64 idx, .param .u64 out, .param .u32 lim)\n{\n"
    "  .reg .pred %p<3>; .reg .b32 %r<16>; .reg .f32 %f<4>; .reg .b64 %rd<12>;\n"
    "  .shared .align 4 .b8 sh[4096];\n"
    "  ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [idx]; ld.param.u64 %rd3, [out]; ld.param.u32 %r1, [lim];\n"
    "  mov.u32 %r2, %tid.x; mov.u32 %r3, %tid.y; mov.u32 %r4, %ntid.x; mad.lo.s32 %r5, %r3, %r4, %r2;\n"
    "  mov.u32 %r7, %ntid.y; mul.lo.s32 %r7, %r7, %r4; mov.u32 %r8, %r5; mov.u32 %r9, sh;\n"
    "COPY:\n"
    "  mul.wide.u32 %rd9, %r8, 4; add.s64 %rd10, %rd1, %rd9; ld.global.f32 %f2, [%rd10];\n"
    "  shl.b32 %r10, %r8, 2; add.s32 %r10, %r9, %r10; st.shared.f32 [%r10], %f2;\n"
    "  add.s32 %r8, %r8, %r7; setp.lt.u32 %p2, %r8, 1024; @%p2 bra COPY;\n"
    "  bar.sync 0;\n"
    "  mul.wide.u32 %rd4, %r5, 4; add.s64 %rd5, %rd2, %rd4; ld.global.u32 %r6, [%rd5];\n"
    "  shl.b32 %r11, %r6, 2; add.s32 %r11, %r9, %r11; mov.f32 %f1, 0fBF800000;\n"
    "  setp.lt.u32 %p1, %r2, %r1; @%p1 ld.shared.f32 %f1, [%r11];\n"
    "  add.s64 %rd8, %rd3, %rd4; st.global.f32 [%rd8], %f1;\n"
    "  ret;\n}\n";

/* One address per warp from lane-wise operations of uniform values
 * (shifts, masks, divisions of the warp's first thread index): each warp
 * w of a 1D block stores into out[w] the thread index of its last lane
 * whose bit is set in `lanes` (none set: out[w] keeps its value), and
 * out[32 + w] = in[(tid / 32) % 3], read by every lane, added to
 * ((tid >> 5) & 1) ^ 1. */
static const char warp_slot_src[] = HEADER
    ".visible .entry warp_slot(.param .u64 in, .param .u64 out, .param .u32 lanes)\n{\n"
    "  .reg .pred %p<3>; .reg .b32 %r<16>; .reg .b64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out]; ld.param.u32 %r1, [lanes];\n"
    "  mov.u32 %r2, %tid.x; shr.u32 %r3, %r2, 5; and.b32 %r4, %r2, 31; shr.u32 %r5, %r1, %r4;\n"
    "  and.b32 %r5, %r5, 1; setp.ne.u32 %p1, %r5, 0;\n"
    "  mul.wide.u32 %rd3, %r3, 4; add.s64 %rd4, %rd2, %rd3; @%p1 st.global.u32 [%rd4], %r2;\n"
    "  div.u32 %r6, %r2, 32; rem.u32 %r6, %r6, 3; mul.wide.u32 %rd5, %r6, 4; add.s64 %rd6, %rd1, %rd5;\n"
    "  ld.global.u32 %r7, [%rd6]; and.b32 %r8, %r3, 1; xor.b32 %r8, %r8, 1; add.s32 %r7, %r7, %r8;\n"
    "  st.global.u32 [%rd4+128], %r7;\n"
    "  ret;\n}\n";

/* If-bodies a converged warp that splits runs as a copy, then all its
 * lanes go on at the join (lower_control.c, find_if_bodies).  if_loop: threads with tid % 5 == 4
 * exit first; the others start at v = tid and, for i < n, do
 * v = 3 v + i unless (7 tid + i) % 3 == 0, then v ^= i << 4 when
 * (tid ^ i) & 3 == 1; out[tid] = v.  if_barrier: slot[tid] starts at
 * 1000 + tid; for i < n, threads with (tid + i) odd set slot[tid] =
 * 16 tid + i, a barrier (the if's join), then each adds
 * slot[(tid + 1) % ntid] to acc; out[tid] = acc. */
static const char if_src[] = HEADER
    ".visible .entry if_loop(.param .u64 out, .param .u32 n)\n{\n"
    "  .reg .pred %p<5>; .reg .b32 %r<16>; .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [out]; ld.param.u32 %r1, [n];\n"
    "  mov.u32 %r2, %tid.x; rem.u32 %r3, %r2, 5; setp.eq.u32 %p1, %r3, 4; @%p1 ret;\n"
    "  mov.u32 %r4, %r2; mov.u32 %r5, 0; setp.eq.u32 %p2, %r1, 0; @%p2 bra DONE;\n"
    "LOOP:\n"
    "  mad.lo.u32 %r6, %r2, 7, %r5; rem.u32 %r6, %r6, 3; setp.eq.u32 %p3, %r6, 0; @%p3 bra J1;\n"
    "  mad.lo.u32 %r4, %r4, 3, %r5;\n"
    "J1:\n"
    "  xor.b32 %r7, %r2, %r5; and.b32 %r7, %r7, 3; setp.ne.u32 %p4, %r7, 1; @%p4 bra J2;\n"
    "  shl.b32 %r8, %r5, 4; xor.b32 %r4, %r4, %r8;\n"
    "J2:\n"
    "  add.s32 %r5, %r5, 1; setp.lt.u32 %p2, %r5, %r1; @%p2 bra LOOP;\n"
    "DONE:\n"
    "  mul.wide.u32 %rd2, %r2, 4; add.s64 %rd3, %rd1, %rd2; st.global.u32 [%rd3], %r4;\n"
    "  ret;\n}\n"
    ".visible .entry if_barrier(.param .u64 out, .param .u32 n)\n{\n"
    "  .reg .pred %p<4>; .reg .b32 %r<20>; .reg .b64 %rd<4>;\n"
    "  .shared .align 4 .b8 slot[4096];\n"
    "  ld.param.u64 %rd1, [out]; ld.param.u32 %r1, [n];\n"
    "  mov.u32 %r2, %tid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, slot; shl.b32 %r5, %r2, 2; add.s32 %r6, %r4, %r5;\n"
    "  add.s32 %r7, %r2, 1000; st.shared.u32 [%r6], %r7; bar.sync 0;\n"
    "  add.s32 %r8, %r2, 1; rem.u32 %r8, %r8, %r3; shl.b32 %r8, %r8, 2; add.s32 %r8, %r4, %r8;\n"
    "  mov.u32 %r9, 0; mov.u32 %r10, 0; setp.eq.u32 %p1, %r1, 0; @%p1 bra DONE;\n"
    "LOOP:\n"
    "  add.s32 %r11, %r2, %r10; and.b32 %r11, %r11, 1; setp.eq.u32 %p2, %r11, 0; @%p2 bra JOIN;\n"
    "  shl.b32 %r12, %r2, 4; add.s32 %r12, %r12, %r10; st.shared.u32 [%r6], %r12;\n"
    "JOIN:\n"
    "  bar.sync 0;\n"
    "  ld.shared.u32 %r13, [%r8]; add.s32 %r9, %r9, %r13; bar.sync 0;\n"
    "  add.s32 %r10, %r10, 1; setp.lt.u32 %p3, %r10, %r1; @%p3 bra LOOP;\n"
    "DONE:\n"
    "  mul.wide.u32 %rd2, %r2, 4; add.s64 %rd3, %rd1, %rd2; st.global.u32 [%rd3], %r9;\n"
    "  ret;\n}\n";

/* A block in a loop with several memory accesses has a full-warp copy
 * (lower_full.c).  For i < n, unless i is odd and (tid + i) % 5 == 0:
 * acc = ((acc + g[(tid + i) % 64] + 3 g[(3 tid + i) % 64]) ^ g[i % 64])
 * and last[tid] = acc; then out[tid] = acc.  Warps are full, partial
 * (blocks of 45 and 200 threads) or split by the condition. */
static const char full_src[] = HEADER
    ".visible .entry full_copy(.param .u64 g, .param .u64 out, .param .u64 last, .param .u32 n)\n{\n"
    "  .reg .pred %p<5>; .reg .b32 %r<24>; .reg .b64 %rd<16>;\n"
    "  ld.param.u64 %rd1, [g]; ld.param.u64 %rd2, [out]; ld.param.u64 %rd3, [last]; ld.param.u32 %r1, [n];\n"
    "  mov.u32 %r2, %tid.x; mov.u32 %r3, 0; mov.u32 %r4, 0; setp.eq.u32 %p1, %r1, 0; @%p1 bra DONE;\n"
    "  mul.wide.u32 %rd4, %r2, 4; add.s64 %rd5, %rd3, %rd4;\n"
    "LOOP:\n"
    "  and.b32 %r5, %r4, 1; add.s32 %r6, %r2, %r4; rem.u32 %r7, %r6, 5;\n"
    "  setp.eq.u32 %p2, %r5, 1; setp.eq.u32 %p3, %r7, 0; and.pred %p4, %p2, %p3; @%p4 bra SKIP;\n"
    "  and.b32 %r8, %r6, 63; mul.wide.u32 %rd6, %r8, 4; add.s64 %rd7, %rd1, %rd6; ld.global.u32 %r9, [%rd7];\n"
    "  mad.lo.u32 %r10, %r2, 3, %r4; and.b32 %r10, %r10, 63; mul.wide.u32 %rd8, %r10, 4; add.s64 %rd9, %rd1, %rd8;\n"
    "  ld.global.u32 %r11, [%rd9];\n"
    "  and.b32 %r12, %r4, 63; mul.wide.u32 %rd10, %r12, 4; add.s64 %rd11, %rd1, %rd10; ld.global.u32 %r13, [%rd11];\n"
    "  add.s32 %r3, %r3, %r9; mad.lo.u32 %r3, %r11, 3, %r3; xor.b32 %r3, %r3, %r13; st.global.u32 [%rd5], %r3;\n"
    "SKIP:\n"
    "  add.s32 %r4, %r4, 1; setp.lt.u32 %p1, %r4, %r1; @%p1 bra LOOP;\n"
    "DONE:\n"
    "  mul.wide.u32 %rd12, %r2, 4; add.s64 %rd13, %rd2, %rd12; st.global.u32 [%rd13], %r3;\n"
    "  ret;\n}\n";

/* Registers with several definitions in a kernel whose divergent branches
 * are all if-splits (lower_live.c, analyze_multi_uniform): the loop
 * counter i and c (7, or 99 when flag is set, by a guarded mov; then +1
 * per iteration) are uniform; x and y, written in an if-body from i, are
 * not.  For i < n: when i == 0 or tid + i is even, x = 3 i and y = 5 i;
 * then acc += x + y + c, a barrier, c += 1; out[tid] = acc. */
static const char multi_src[] = HEADER
    ".visible .entry multi_defs(.param .u64 out, .param .u32 n, .param .u32 flag)\n{\n"
    "  .reg .pred %p<8>; .reg .b32 %r<24>; .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [out]; ld.param.u32 %r1, [n]; ld.param.u32 %r2, [flag];\n"
    "  mov.u32 %r3, %tid.x; mov.u32 %r4, 0; mov.u32 %r5, 7; setp.ne.u32 %p1, %r2, 0; @%p1 mov.u32 %r5, 99;\n"
    "  mov.u32 %r6, 0; mov.u32 %r7, 0; mov.u32 %r8, 0; setp.eq.u32 %p2, %r1, 0; @%p2 bra DONE;\n"
    "LOOP:\n"
    "  setp.eq.u32 %p3, %r4, 0; add.s32 %r9, %r3, %r4; and.b32 %r9, %r9, 1; setp.eq.u32 %p4, %r9, 0;\n"
    "  or.pred %p5, %p3, %p4; @!%p5 bra SKIP;\n"
    "  mul.lo.u32 %r6, %r4, 3; mul.lo.u32 %r10, %r4, 5;\n"
    "SKIP:\n"
    "  add.s32 %r8, %r8, %r6; add.s32 %r8, %r8, %r10; add.s32 %r8, %r8, %r5; bar.sync 0;\n"
    "  add.s32 %r5, %r5, 1; add.s32 %r4, %r4, 1; setp.lt.u32 %p6, %r4, %r1; @%p6 bra LOOP;\n"
    "DONE:\n"
    "  mul.wide.u32 %rd2, %r3, 4; add.s64 %rd3, %rd1, %rd2; st.global.u32 [%rd3], %r8;\n"
    "  ret;\n}\n";

/* Barriers every warp reaches together (lower_resume.c, barriers_uniform):
 * a tree of partial sums whose levels are a CTA-uniform loop over
 * if-splits; warps that branch on %warpid to two barrier instructions
 * (uniform in a warp, not in the CTA); and a register that an if-body sets
 * for one thread, which then picks the barrier. */
static const char uniform_src[] = HEADER
    ".visible .entry uniform_tree(.param .u64 in, .param .u64 out)\n{\n"
    "  .reg .pred %p<6>; .reg .b32 %r<20>; .reg .b64 %rd<8>;\n"
    "  .shared .align 4 .b8 sh[4096];\n"
    "  ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out];\n"
    "  mov.u32 %r1, %tid.x; mov.u32 %r2, %ntid.x; mov.u32 %r3, %ctaid.x; mad.lo.s32 %r4, %r3, %r2, %r1;\n"
    "  mul.wide.u32 %rd3, %r4, 4; add.s64 %rd4, %rd1, %rd3; ld.global.u32 %r5, [%rd4];\n"
    "  mov.u32 %r6, sh; shl.b32 %r7, %r1, 2; add.s32 %r8, %r6, %r7; st.shared.u32 [%r8], %r5;\n"
    "  bar.sync 0; mov.u32 %r9, 1;\n"
    "LOOP:\n"
    "  shl.b32 %r10, %r9, 1; rem.u32 %r11, %r1, %r10; add.s32 %r12, %r1, %r9;\n"
    "  setp.ne.u32 %p1, %r11, 0; setp.ge.u32 %p2, %r12, %r2; or.pred %p3, %p1, %p2; @%p3 bra SKIP;\n"
    "  shl.b32 %r13, %r9, 2; add.s32 %r14, %r8, %r13; ld.shared.u32 %r15, [%r14]; ld.shared.u32 %r16, [%r8];\n"
    "  add.s32 %r16, %r16, %r15; st.shared.u32 [%r8], %r16;\n"
    "SKIP:\n"
    "  bar.sync 0; mov.u32 %r9, %r10; setp.lt.u32 %p4, %r9, %r2; @%p4 bra LOOP;\n"
    "  setp.ne.u32 %p5, %r1, 0; @%p5 bra END;\n"
    "  ld.shared.u32 %r17, [sh]; mul.wide.u32 %rd5, %r3, 4; add.s64 %rd6, %rd2, %rd5; st.global.u32 [%rd6], %r17;\n"
    "END:\n  ret;\n}\n"
    /* out[t] = 3 * ((t + 37) % n), plus 1000 past the first two warps */
    ".visible .entry warpid_barriers(.param .u64 out)\n{\n"
    "  .reg .pred %p<3>; .reg .b32 %r<16>; .reg .b64 %rd<4>;\n"
    "  .shared .align 4 .b8 sh[4096];\n"
    "  ld.param.u64 %rd1, [out]; mov.u32 %r1, %tid.x; mov.u32 %r2, %ntid.x; mov.u32 %r3, %warpid;\n"
    "  mov.u32 %r4, sh; shl.b32 %r5, %r1, 2; add.s32 %r6, %r4, %r5; mul.lo.u32 %r7, %r1, 3;\n"
    "  setp.lt.u32 %p1, %r3, 2; @%p1 bra LOW;\n"
    "  st.shared.u32 [%r6], %r7; bar.sync 0;\n"
    "  add.s32 %r8, %r1, 37; rem.u32 %r8, %r8, %r2; shl.b32 %r8, %r8, 2; add.s32 %r8, %r4, %r8;\n"
    "  ld.shared.u32 %r9, [%r8]; add.s32 %r9, %r9, 1000; bra OUT;\n"
    "LOW:\n"
    "  st.shared.u32 [%r6], %r7; bar.sync 0;\n"
    "  add.s32 %r8, %r1, 37; rem.u32 %r8, %r8, %r2; shl.b32 %r8, %r8, 2; add.s32 %r8, %r4, %r8;\n"
    "  ld.shared.u32 %r9, [%r8];\n"
    "OUT:\n"
    "  mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2; st.global.u32 [%rd3], %r9;\n"
    "  ret;\n}\n"
    /* the same through the warp index tid.x >> 5: warp-uniform, not CTA-uniform */
    ".visible .entry warpidx_barriers(.param .u64 out)\n{\n"
    "  .reg .pred %p<3>; .reg .b32 %r<16>; .reg .b64 %rd<4>;\n"
    "  .shared .align 4 .b8 sh[4096];\n"
    "  ld.param.u64 %rd1, [out]; mov.u32 %r1, %tid.x; mov.u32 %r2, %ntid.x; shr.u32 %r3, %r1, 5;\n"
    "  mov.u32 %r4, sh; shl.b32 %r5, %r1, 2; add.s32 %r6, %r4, %r5; mul.lo.u32 %r7, %r1, 3;\n"
    "  setp.lt.u32 %p1, %r3, 2; @%p1 bra LOWX;\n"
    "  st.shared.u32 [%r6], %r7; bar.sync 0;\n"
    "  add.s32 %r8, %r1, 37; rem.u32 %r8, %r8, %r2; shl.b32 %r8, %r8, 2; add.s32 %r8, %r4, %r8;\n"
    "  ld.shared.u32 %r9, [%r8]; add.s32 %r9, %r9, 1000; bra OUTX;\n"
    "LOWX:\n"
    "  st.shared.u32 [%r6], %r7; bar.sync 0;\n"
    "  add.s32 %r8, %r1, 37; rem.u32 %r8, %r8, %r2; shl.b32 %r8, %r8, 2; add.s32 %r8, %r4, %r8;\n"
    "  ld.shared.u32 %r9, [%r8];\n"
    "OUTX:\n"
    "  mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2; st.global.u32 [%rd3], %r9;\n"
    "  ret;\n}\n"
    /* the same sum, the 1000 for thread 40 alone: x = 0; if (tid == 40) x = 1 */
    ".visible .entry if_body_gate(.param .u64 out)\n{\n"
    "  .reg .pred %p<3>; .reg .b32 %r<16>; .reg .b64 %rd<4>;\n"
    "  .shared .align 4 .b8 sh[4096];\n"
    "  ld.param.u64 %rd1, [out]; mov.u32 %r1, %tid.x; mov.u32 %r2, %ntid.x;\n"
    "  mov.u32 %r4, sh; shl.b32 %r5, %r1, 2; add.s32 %r6, %r4, %r5; mul.lo.u32 %r7, %r1, 3;\n"
    "  st.shared.u32 [%r6], %r7; mov.u32 %r10, 0; setp.ne.u32 %p1, %r1, 40; @%p1 bra J;\n"
    "  mov.u32 %r10, 1;\n"
    "J:\n"
    "  setp.eq.u32 %p2, %r10, 1; @%p2 bra ONE;\n"
    "  bar.sync 0;\n"
    "  add.s32 %r8, %r1, 37; rem.u32 %r8, %r8, %r2; shl.b32 %r8, %r8, 2; add.s32 %r8, %r4, %r8;\n"
    "  ld.shared.u32 %r9, [%r8]; bra OUT;\n"
    "ONE:\n"
    "  bar.sync 0;\n"
    "  add.s32 %r8, %r1, 37; rem.u32 %r8, %r8, %r2; shl.b32 %r8, %r8, 2; add.s32 %r8, %r4, %r8;\n"
    "  ld.shared.u32 %r9, [%r8]; add.s32 %r9, %r9, 1000;\n"
    "OUT:\n"
    "  mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2; st.global.u32 [%rd3], %r9;\n"
    "  ret;\n}\n"
    /* the same sum plus 1000 * (t % 3), added by a loop of t % 3 trips
     * before the barrier (LOOP_BEFORE) or after it */
#define TRIP_LOOP(name)                                                                    \
    "  rem.u32 %r12, %r1, 3; setp.eq.u32 %p1, %r12, 0; @%p1 bra " name "_END;\n"          \
    name ":\n"                                                                              \
    "  add.s32 %r10, %r10, 1000; sub.s32 %r12, %r12, 1; setp.ne.u32 %p2, %r12, 0; @%p2 bra " \
    name ";\n" name "_END:\n"
#define TRIP_KERNEL(kernel, before, after)                                                 \
    ".visible .entry " kernel "(.param .u64 out)\n{\n"                                     \
    "  .reg .pred %p<3>; .reg .b32 %r<16>; .reg .b64 %rd<4>;\n"                             \
    "  .shared .align 4 .b8 sh[4096];\n"                                                     \
    "  ld.param.u64 %rd1, [out]; mov.u32 %r1, %tid.x; mov.u32 %r2, %ntid.x; mov.u32 %r10, 0;\n" \
    "  mov.u32 %r4, sh; shl.b32 %r5, %r1, 2; add.s32 %r6, %r4, %r5; mul.lo.u32 %r7, %r1, 3;\n" \
    "  st.shared.u32 [%r6], %r7;\n" before "  bar.sync 0;\n" after                        \
    "  add.s32 %r8, %r1, 37; rem.u32 %r8, %r8, %r2; shl.b32 %r8, %r8, 2; add.s32 %r8, %r4, %r8;\n" \
    "  ld.shared.u32 %r9, [%r8]; add.s32 %r9, %r9, %r10;\n"                                 \
    "  mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2; st.global.u32 [%rd3], %r9;\n"     \
    "  ret;\n}\n"
    TRIP_KERNEL("loop_before_barrier", TRIP_LOOP("LB"), "")
    TRIP_KERNEL("loop_after_barrier", "", TRIP_LOOP("LA"))
    /* acc = 3 acc + s[(t + 1) % n] + s[(t + 5) % n] per round, s[t] = 3t + i
     * written before the first barrier: the block between the barriers is
     * straight (run two warps at a time) */
    /* three levels of a tree, unrolled: if ((t % 2s) == 0 && t + s < n)
     * s[t] += s[t + s] between barriers (if-split regions, run two warps at
     * a time), then out[t] = s[t] */
#define SPLIT_LEVEL(sft, step, label)                                                             \
    "  rem.u32 %r10, %r1, " sft "; add.s32 %r11, %r1, " step "; setp.ne.u32 %p1, %r10, 0;\n"         \
    "  setp.ge.u32 %p2, %r11, %r2; or.pred %p3, %p1, %p2; @%p3 bra " label ";\n"                   \
    "  ld.shared.u32 %r12, [%r6]; ld.shared.u32 %r13, [%r6+" step "*4]; add.s32 %r12, %r12, %r13;\n" \
    "  st.shared.u32 [%r6], %r12;\n" label ":\n  bar.sync 0;\n"
    ".visible .entry split_regions(.param .u64 in, .param .u64 out)\n{\n"
    "  .reg .pred %p<4>; .reg .b32 %r<16>; .reg .b64 %rd<6>;\n"
    "  .shared .align 4 .b8 sh[4096];\n"
    "  ld.param.u64 %rd1, [in]; ld.param.u64 %rd4, [out]; mov.u32 %r1, %tid.x; mov.u32 %r2, %ntid.x;\n"
    "  mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2; ld.global.u32 %r5, [%rd3];\n"
    "  mov.u32 %r4, sh; shl.b32 %r3, %r1, 2; add.s32 %r6, %r4, %r3; st.shared.u32 [%r6], %r5; bar.sync 0;\n"
    SPLIT_LEVEL("2", "1", "J1") SPLIT_LEVEL("4", "2", "J2") SPLIT_LEVEL("8", "4", "J3")
    "  ld.shared.u32 %r14, [%r6]; add.s64 %rd5, %rd4, %rd2; st.global.u32 [%rd5], %r14;\n"
    "  ret;\n}\n"
    /* out[ctaid] = the sum of the block's in[gid < n]: a warp sums by
     * shuffles, lane 0 stores it, and after the barrier thread 0 adds the
     * warps' sums (the region before the barrier: a chain of if-splits and
     * warp collectives from the first block, run two warps at a time) */
#define SHFL_STEP(d) "  shfl.sync.down.b32 %r6, %r5, " d ", 31, -1; add.s32 %r5, %r5, %r6;\n"
    ".visible .entry shfl_sum(.param .u64 in, .param .u64 out, .param .u32 n)\n{\n"
    "  .reg .pred %p<4>; .reg .b32 %r<20>; .reg .b64 %rd<8>;\n"
    "  .shared .align 4 .b8 sums[128];\n"
    "  ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out]; ld.param.u32 %r12, [n];\n"
    "  mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mad.lo.s32 %r4, %r2, %r3, %r1;\n"
    "  mov.u32 %r5, 0; setp.ge.u32 %p1, %r4, %r12; @%p1 bra L1;\n"
    "  mul.wide.u32 %rd3, %r4, 4; add.s64 %rd4, %rd1, %rd3; ld.global.u32 %r5, [%rd4];\n"
    "L1:\n" SHFL_STEP("16") SHFL_STEP("8") SHFL_STEP("4") SHFL_STEP("2") SHFL_STEP("1")
    "  and.b32 %r7, %r1, 31; setp.ne.u32 %p2, %r7, 0; @%p2 bra L2;\n"
    "  shr.u32 %r8, %r1, 5; shl.b32 %r9, %r8, 2; mov.u32 %r10, sums; add.s32 %r11, %r10, %r9;\n"
    "  st.shared.u32 [%r11], %r5;\n"
    "L2:\n  bar.sync 0; setp.ne.u32 %p3, %r1, 0; @%p3 bra END;\n"
    "  add.s32 %r13, %r3, 31; shr.u32 %r13, %r13, 5; mov.u32 %r14, 0; mov.u32 %r15, sums;\n"
    "SUM:\n"
    "  ld.shared.u32 %r16, [%r15]; add.s32 %r14, %r14, %r16; add.s32 %r15, %r15, 4; sub.s32 %r13, %r13, 1;\n"
    "  setp.ne.u32 %p1, %r13, 0; @%p1 bra SUM;\n"
    "  mul.wide.u32 %rd5, %r2, 4; add.s64 %rd6, %rd2, %rd5; st.global.u32 [%rd6], %r14;\n"
    "END:\n  ret;\n}\n"
    /* as CUDA writes it: the last stage behind `if (warp == 0)`, warp =
     * tid.x >> 5 (warp-uniform in 1D blocks of whole warps) */
    ".visible .entry shfl_warp0(.param .u64 in, .param .u64 out)\n{\n"
    "  .reg .pred %p<4>; .reg .b32 %r<20>; .reg .b64 %rd<8>;\n"
    "  .shared .align 4 .b8 sums[128];\n"
    "  ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out];\n"
    "  mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mad.lo.s32 %r4, %r2, %r3, %r1;\n"
    "  mul.wide.u32 %rd3, %r4, 4; add.s64 %rd4, %rd1, %rd3; ld.global.u32 %r5, [%rd4];\n"
    SHFL_STEP("16") SHFL_STEP("8") SHFL_STEP("4") SHFL_STEP("2") SHFL_STEP("1")
    "  and.b32 %r7, %r1, 31; shr.u32 %r8, %r1, 5; setp.ne.u32 %p2, %r7, 0; @%p2 bra L3;\n"
    "  shl.b32 %r9, %r8, 2; mov.u32 %r10, sums; add.s32 %r11, %r10, %r9; st.shared.u32 [%r11], %r5;\n"
    "L3:\n  bar.sync 0; setp.ne.u32 %p3, %r8, 0; @%p3 bra END3;\n"
    "  shr.u32 %r13, %r3, 5; mov.u32 %r5, 0; setp.ge.u32 %p1, %r7, %r13; @%p1 bra L4;\n"
    "  shl.b32 %r14, %r7, 2; mov.u32 %r15, sums; add.s32 %r15, %r15, %r14; ld.shared.u32 %r5, [%r15];\n"
    "L4:\n" SHFL_STEP("16") SHFL_STEP("8") SHFL_STEP("4") SHFL_STEP("2") SHFL_STEP("1")
    "  @%p2 bra END3;\n" /* plus the warp index: 0 where only warp 0 gets here */
    "  add.s32 %r5, %r5, %r8; mul.wide.u32 %rd5, %r2, 4; add.s64 %rd6, %rd2, %rd5; st.global.u32 [%rd6], %r5;\n"
    "END3:\n  ret;\n}\n"
    /* tid.x >> 5 picks a value: the same for a warp's lanes only when the
     * block's rows are whole warps */
    ".visible .entry warp_gate(.param .u64 out)\n{\n"
    "  .reg .pred %p<3>; .reg .b32 %r<12>; .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [out]; mov.u32 %r1, %tid.x; mov.u32 %r2, %tid.y; mov.u32 %r3, %ntid.x;\n"
    "  mad.lo.u32 %r4, %r2, %r3, %r1; shr.u32 %r5, %r1, 5; mov.u32 %r7, 1;\n"
    "  setp.ne.u32 %p1, %r5, 0; @%p1 bra G1;\n"
    "  mov.u32 %r7, 2;\n"
    "G1:\n  mad.lo.u32 %r7, %r5, 10, %r7; mul.wide.u32 %rd2, %r4, 4; add.s64 %rd3, %rd1, %rd2;\n"
    "  st.global.u32 [%rd3], %r7;\n  ret;\n}\n"
    ".visible .entry straight_region(.param .u64 out, .param .u32 rounds)\n{\n"
    "  .reg .pred %p<3>; .reg .b32 %r<24>; .reg .b64 %rd<4>;\n"
    "  .shared .align 4 .b8 sh[4096];\n"
    "  ld.param.u64 %rd1, [out]; ld.param.u32 %r3, [rounds]; mov.u32 %r1, %tid.x; mov.u32 %r2, %ntid.x;\n"
    "  mov.u32 %r4, sh; shl.b32 %r5, %r1, 2; add.s32 %r6, %r4, %r5; mul.lo.u32 %r7, %r1, 3;\n"
    "  mov.u32 %r10, 0; mov.u32 %r11, 0; setp.eq.u32 %p1, %r3, 0; @%p1 bra DONE;\n"
    "ROUND:\n"
    "  add.s32 %r12, %r7, %r11; st.shared.u32 [%r6], %r12; bar.sync 0;\n"
    "  add.s32 %r13, %r1, 1; rem.u32 %r13, %r13, %r2; shl.b32 %r13, %r13, 2; add.s32 %r13, %r4, %r13;\n"
    "  add.s32 %r14, %r1, 5; rem.u32 %r14, %r14, %r2; shl.b32 %r14, %r14, 2; add.s32 %r14, %r4, %r14;\n"
    "  ld.shared.u32 %r20, [%r13]; ld.shared.u32 %r21, [%r14]; mad.lo.u32 %r10, %r10, 3, %r20;\n"
    "  add.u32 %r10, %r10, %r21;\n"
    "  bar.sync 0; add.s32 %r11, %r11, 1; setp.lt.u32 %p2, %r11, %r3; @%p2 bra ROUND;\n"
    "DONE:\n"
    "  mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2; st.global.u32 [%rd3], %r10;\n"
    "  ret;\n}\n"
    /* a tile loop as SGEMM's: per round s[t] = 3t + i, then acc += s[(t +
     * 1) % n]; the region after the round's second barrier tests the loop
     * (CTA-uniform) and stores the next round's tile, two warps at a time,
     * or leaves for a second phase with its own barrier: s[t] = acc, then
     * out[t] = acc + 1000 s[(t + 7) % n].  The loop test leaves by falling
     * through (LEAVE_FALL) or by its branch (LEAVE_TAKEN). */
#define LEAVE_FALL(L) "  setp.lt.u32 %p2, %r11, %r3; @%p2 bra " L "_ROUND;\n"
#define LEAVE_TAKEN(L) "  setp.ge.u32 %p2, %r11, %r3; @%p2 bra " L "_AFTER;\n  bra.uni " L "_ROUND;\n"
#define TILE_LOOP(kernel, L, leave)                                                                 \
    ".visible .entry " kernel "(.param .u64 out, .param .u32 rounds)\n{\n"                          \
    "  .reg .pred %p<3>; .reg .b32 %r<24>; .reg .b64 %rd<4>;\n"                                     \
    "  .shared .align 4 .b8 sh[4096];\n"                                                            \
    "  ld.param.u64 %rd1, [out]; ld.param.u32 %r3, [rounds]; mov.u32 %r1, %tid.x; mov.u32 %r2, %ntid.x;\n" \
    "  mov.u32 %r4, sh; shl.b32 %r5, %r1, 2; add.s32 %r6, %r4, %r5; mul.lo.u32 %r7, %r1, 3;\n"       \
    "  add.s32 %r13, %r1, 1; rem.u32 %r13, %r13, %r2; shl.b32 %r13, %r13, 2; add.s32 %r13, %r4, %r13;\n" \
    "  mov.u32 %r10, 0; mov.u32 %r11, 0; setp.eq.u32 %p1, %r3, 0; @%p1 bra " L "_AFTER;\n"           \
    L "_ROUND:\n"                                                                                    \
    "  add.s32 %r12, %r7, %r11; st.shared.u32 [%r6], %r12; bar.sync 0;\n"                           \
    "  ld.shared.u32 %r20, [%r13]; add.u32 %r10, %r10, %r20;\n"                                     \
    "  bar.sync 0; add.s32 %r11, %r11, 1;\n" leave L "_AFTER:\n"                                   \
    "  st.shared.u32 [%r6], %r10; bar.sync 0;\n"                                                    \
    "  add.s32 %r14, %r1, 7; rem.u32 %r14, %r14, %r2; shl.b32 %r14, %r14, 2; add.s32 %r14, %r4, %r14;\n" \
    "  ld.shared.u32 %r21, [%r14]; mad.lo.u32 %r10, %r21, 1000, %r10;\n"                            \
    "  mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2; st.global.u32 [%rd3], %r10;\n"            \
    "  ret;\n}\n"
    /* out[t] = 3 + (t ? 1000 : 2000) (+ 3t where the region also loads
     * s[t] for after the barrier): thread 0 alone adds s[1] into s[0]
     * between two barriers, and every thread reads its guard `tid != 0`
     * again after the second one.  The guard is recomputed there, so the
     * warps without thread 0 skip the region (region_warps), but not when
     * the region loads a value for after the barrier (REMAT_LOAD). */
#define REMAT_GATE(kernel, load, use)                                                         \
    ".visible .entry " kernel "(.param .u64 out)\n{\n"                                       \
    "  .reg .pred %p<3>; .reg .b32 %r<16>; .reg .b64 %rd<4>;\n"                              \
    "  .shared .align 4 .b8 sh[4096];\n"                                                     \
    "  ld.param.u64 %rd1, [out]; mov.u32 %r1, %tid.x; mov.u32 %r12, 0;\n"                   \
    "  mov.u32 %r4, sh; shl.b32 %r5, %r1, 2; add.s32 %r6, %r4, %r5; mul.lo.u32 %r7, %r1, 3;\n" \
    "  st.shared.u32 [%r6], %r7; bar.sync 0;\n" load                                        \
    "  setp.ne.u32 %p1, %r1, 0; @%p1 bra " kernel "_J;\n"                                   \
    "  ld.shared.u32 %r8, [sh+4]; ld.shared.u32 %r9, [sh]; add.s32 %r9, %r9, %r8; st.shared.u32 [sh], %r9;\n" \
    kernel "_J:\n  bar.sync 0;\n"                                                           \
    "  ld.shared.u32 %r10, [sh]; selp.u32 %r11, 1000, 2000, %p1; add.s32 %r10, %r10, %r11;\n" use \
    "  mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2; st.global.u32 [%rd3], %r10;\n"   \
    "  ret;\n}\n"
    REMAT_GATE("remat_gate", "", "")
    REMAT_GATE("remat_gate_load", "  ld.shared.u32 %r12, [%r6];\n", "  add.s32 %r10, %r10, %r12;\n")
    TILE_LOOP("tile_loop_fall", "F", LEAVE_FALL("F"))
    TILE_LOOP("tile_loop_taken", "T", LEAVE_TAKEN("T"))
    /* the last region runs to the exit: a store, an if-body, a store before ret */
    ".visible .entry exit_region(.param .u64 out)\n{\n"
    "  .reg .pred %p<3>; .reg .b32 %r<16>; .reg .b64 %rd<8>;\n"
    "  .shared .align 4 .b8 sh[4096];\n"
    "  ld.param.u64 %rd1, [out]; mov.u32 %r1, %tid.x; mov.u32 %r2, %ntid.x;\n"
    "  mov.u32 %r4, sh; shl.b32 %r5, %r1, 2; add.s32 %r6, %r4, %r5;\n"
    "  mul.lo.u32 %r7, %r1, 7; st.shared.u32 [%r6], %r7; bar.sync 0;\n"
    "  add.s32 %r8, %r1, 1; rem.u32 %r8, %r8, %r2; shl.b32 %r8, %r8, 2; add.s32 %r8, %r4, %r8;\n"
    "  ld.shared.u32 %r9, [%r8]; mul.wide.u32 %rd2, %r1, 12; add.s64 %rd3, %rd1, %rd2;\n"
    "  st.global.u32 [%rd3], %r9; rem.u32 %r10, %r1, 3; setp.ne.u32 %p1, %r10, 0; @%p1 bra SKIP;\n"
    "  add.s32 %r11, %r9, %r1; st.global.u32 [%rd3+4], %r11;\n"
    "SKIP:\n"
    "  add.s32 %r12, %r9, 5; st.global.u32 [%rd3+8], %r12;\n"
    "  ret;\n}\n";

/* Per-lane counters stepped by uniform values (lower_induction.c splits
 * them into a start and a uniform sum).  iv_split: a pointer stepped by a
 * launch-derived byte count, an index stepped down (sub) and one stepped
 * by `u + r`, across two barriers per trip, one of them also read before
 * the loop where only its start reaches; out[4 g ..] = the sum (doubled
 * each trip), the three counters.  iv_nested: an index restarted at %tid.x
 * in each trip of an outer loop and stepped by %ntid.x in an inner loop
 * whose exit lanes take apart; out[tid] = the sum, the index's last value. */
static const char iv_src[] = HEADER
    ".visible .entry iv_split(.param .u64 in, .param .u64 out, .param .u32 steps)\n{\n"
    "  .reg .pred %p<3>; .reg .b32 %r<40>; .reg .b64 %rd<16>; .reg .f32 %f<8>;\n"
    "  .shared .align 4 .b8 sh[4096];\n"
    "  ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out]; ld.param.u32 %r1, [steps];\n"
    "  cvta.to.global.u64 %rd3, %rd1;\n"
    "  mov.u32 %r2, %tid.x; mov.u32 %r3, %tid.y; mov.u32 %r4, %ntid.x; mov.u32 %r5, %ntid.y;\n"
    "  mad.lo.s32 %r6, %r3, %r4, %r2; mul.lo.s32 %r7, %r4, %r5;\n"
    "  mov.u32 %r8, %ctaid.x; mad.lo.s32 %r9, %r8, %r7, %r6;\n"
    "  mul.wide.u32 %rd4, %r9, 4; add.s64 %rd10, %rd3, %rd4;\n"
    "  mov.u32 %r10, %nctaid.x; mul.lo.s32 %r11, %r10, %r7; shl.b32 %r12, %r11, 2; cvt.u64.u32 %rd5, %r12;\n"
    "  mov.u32 %r13, 5; mov.u32 %r20, %r6; shl.b32 %r21, %r2, 1; add.s32 %r22, %r20, 1000;\n"
    "  mov.u32 %r23, sh; shl.b32 %r24, %r6, 2; add.s32 %r25, %r23, %r24;\n"
    "  mov.f32 %f1, 0f00000000; mov.u32 %r30, 0;\n"
    "  setp.eq.u32 %p1, %r1, 0; @%p1 bra DONE;\n"
    "LOOP:\n"
    "  ld.global.f32 %f2, [%rd10]; add.f32 %f1, %f1, %f2; st.shared.f32 [%r25], %f1;\n"
    "  bar.sync 0;\n"
    "  ld.shared.f32 %f3, [%r25]; add.f32 %f1, %f1, %f3;\n"
    "  bar.sync 0;\n"
    "  add.s64 %rd10, %rd10, %rd5; sub.s32 %r20, %r20, 3; add.s32 %r21, %r13, %r21;\n"
    "  add.s32 %r30, %r30, 1; setp.lt.u32 %p2, %r30, %r1; @%p2 bra LOOP;\n"
    "DONE:\n"
    "  mul.wide.u32 %rd6, %r9, 16; add.s64 %rd7, %rd2, %rd6;\n"
    "  st.global.f32 [%rd7], %f1; st.global.u32 [%rd7+4], %r20; st.global.u32 [%rd7+8], %r21;\n"
    "  st.global.u32 [%rd7+12], %r22;\n"
    "  ret;\n}\n"
    ".visible .entry iv_nested(.param .u64 in, .param .u64 out, .param .u32 m, .param .u32 len)\n{\n"
    "  .reg .pred %p<3>; .reg .b32 %r<40>; .reg .b64 %rd<16>;\n"
    "  ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out]; ld.param.u32 %r1, [m]; ld.param.u32 %r3, [len];\n"
    "  mov.u32 %r2, %tid.x; mov.u32 %r4, %ntid.x; mov.u32 %r30, 0; mov.u32 %r31, 0;\n"
    "OUTER:\n"
    "  mov.u32 %r20, %r2;\n"
    "INNER:\n"
    "  setp.ge.u32 %p1, %r20, %r3; @%p1 bra NEXT;\n"
    "  mul.wide.u32 %rd4, %r20, 4; add.s64 %rd5, %rd1, %rd4; ld.global.u32 %r21, [%rd5];\n"
    "  add.s32 %r31, %r31, %r21; add.s32 %r20, %r20, %r4; bra INNER;\n"
    "NEXT:\n"
    "  add.s32 %r30, %r30, 1; setp.lt.u32 %p2, %r30, %r1; @%p2 bra OUTER;\n"
    "  mul.wide.u32 %rd6, %r2, 8; add.s64 %rd7, %rd2, %rd6;\n"
    "  st.global.u32 [%rd7], %r31; st.global.u32 [%rd7+4], %r20;\n"
    "  ret;\n}\n";

/* A register from the warp index kept across barriers, with a second
 * definition that is no counter step: uniform (a scalar in the warp
 * frame) where the block shape is known, per lane in the generic code, so
 * the specialized version's frame is smaller than the one the runtime
 * sized at load.  out[tid] = (tid >> 5) * 3^n. */
static const char warp_frame_src[] = HEADER
    ".visible .entry warp_frame(.param .u64 out, .param .u32 n)\n{\n"
    "  .reg .pred %p<3>; .reg .b32 %r<12>; .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [out]; ld.param.u32 %r5, [n];\n"
    "  mov.u32 %r1, %tid.x; shr.u32 %r2, %r1, 5; mov.u32 %r3, %r2; mov.u32 %r4, 0;\n"
    "  setp.eq.u32 %p1, %r5, 0; @%p1 bra DONE;\n"
    "LOOP:\n"
    "  bar.sync 0; mul.lo.s32 %r3, %r3, 3; bar.sync 0;\n"
    "  add.s32 %r4, %r4, 1; setp.lt.u32 %p2, %r4, %r5; @%p2 bra LOOP;\n"
    "DONE:\n"
    "  mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2; st.global.u32 [%rd3], %r3;\n"
    "  ret;\n}\n";

/* Lanes leaving a loop apart in a kernel without barriers: a counter
 * stepped in the loop (uniform while lanes loop together) and a split
 * index, both read after the loop.  out[2 t] = t % 5 + 1 trips,
 * out[2 t + 1] = t + 7 * trips. */
static const char leave_src[] = HEADER
    ".visible .entry leave_count(.param .u64 out)\n{\n"
    "  .reg .pred %p<3>; .reg .b32 %r<12>; .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [out];\n"
    "  mov.u32 %r1, %tid.x; rem.u32 %r2, %r1, 5; add.u32 %r2, %r2, 1; mov.u32 %r3, 0; mov.u32 %r4, %r1;\n"
    "LOOP:\n"
    "  add.s32 %r3, %r3, 1; add.s32 %r4, %r4, 7; setp.lt.u32 %p1, %r3, %r2; @%p1 bra LOOP;\n"
    "  mul.wide.u32 %rd2, %r1, 8; add.s64 %rd3, %rd1, %rd2; st.global.v2.u32 [%rd3], {%r3, %r4};\n"
    "  ret;\n}\n";

/* Regions between uniform barriers whose if-bodies only some warps can
 * enter, by the block shape (lower_resume.c, region_warps): warps 0-1
 * (t < 64); warps 3 and 7 (t & 96 == 96; those between run and enter
 * nothing); rows past the first (none in a 1D block); a region that also
 * writes a register live past its barrier (every warp runs it); thread 0
 * alone on the way to the exit.  v = in[t] lives across every barrier, in
 * the frames of warps that skip.  out[t] = sh[t] + 2 v + 5, out[n] = sh[0]
 * at the end. */
static const char skip_src[] = HEADER
    ".visible .entry skip_warps(.param .u64 in, .param .u64 out)\n{\n"
    "  .reg .pred %p<8>; .reg .b32 %r<30>; .reg .b64 %rd<10>;\n"
    "  .shared .align 4 .b8 sh[4096];\n"
    "  ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out];\n"
    "  mov.u32 %r1, %tid.x; mov.u32 %r2, %tid.y; mov.u32 %r3, %ntid.x; mad.lo.u32 %r4, %r2, %r3, %r1;\n"
    "  mul.wide.u32 %rd3, %r4, 4; add.s64 %rd4, %rd1, %rd3; ld.global.u32 %r5, [%rd4];\n"
    "  mov.u32 %r6, sh; shl.b32 %r7, %r4, 2; add.s32 %r8, %r6, %r7; st.shared.u32 [%r8], %r5;\n"
    "  setp.ne.u32 %p5, %r4, 0;\n"
    "  bar.sync 0;\n"
    "  setp.ge.u32 %p1, %r4, 64; @%p1 bra A;\n"
    "  ld.shared.u32 %r9, [%r8+256]; ld.shared.u32 %r10, [%r8]; add.s32 %r10, %r10, %r9; st.shared.u32 [%r8], %r10;\n"
    "A:\n"
    "  bar.sync 0;\n"
    "  and.b32 %r11, %r4, 96; setp.ne.u32 %p2, %r11, 96; @%p2 bra B;\n"
    "  ld.shared.u32 %r12, [%r8]; add.s32 %r12, %r12, 1; st.shared.u32 [%r8], %r12;\n"
    "B:\n"
    "  bar.sync 0;\n"
    "  setp.eq.u32 %p3, %r2, 0; @%p3 bra C;\n"
    "  ld.shared.u32 %r13, [%r8]; add.s32 %r13, %r13, 2; st.shared.u32 [%r8], %r13;\n"
    "C:\n"
    "  bar.sync 0;\n"
    "  add.s32 %r14, %r5, 5; setp.ge.u32 %p4, %r4, 32; @%p4 bra D;\n"
    "  ld.shared.u32 %r15, [%r8]; add.s32 %r15, %r15, 4; st.shared.u32 [%r8], %r15;\n"
    "D:\n"
    "  bar.sync 0;\n"
    "  ld.shared.u32 %r16, [%r8]; add.s32 %r16, %r16, %r14; add.s32 %r16, %r16, %r5;\n"
    "  mul.wide.u32 %rd5, %r4, 4; add.s64 %rd6, %rd2, %rd5; st.global.u32 [%rd6], %r16;\n"
    "  bar.sync 0;\n"
    "  @%p5 bra END;\n"
    "  mov.u32 %r17, %ntid.y; mul.lo.u32 %r17, %r17, %r3; mul.wide.u32 %rd7, %r17, 4; add.s64 %rd8, %rd2, %rd7;\n"
    "  ld.shared.u32 %r18, [sh]; st.global.u32 [%rd8], %r18;\n"
    "END:\n  ret;\n}\n";

/* Lanes leave loops around barriers (lower_live.c, drop_split_registers):
 * threads t < 64 clear the bins in a loop, all meet the barrier, then a
 * grid-stride loop whose lanes leave after different trip counts counts
 * in[i] & 63 into the bins with shared atomics; after the second barrier
 * threads t < 64 add the bins to out.  The grid-stride index is split
 * (lower_induction.c) with a sum uniform while lanes loop together. */
static const char hist_src[] = HEADER
    ".visible .entry hist_leave(.param .u64 in, .param .u32 n, .param .u64 out)\n{\n"
    "  .reg .pred %p<8>; .reg .b32 %r<30>; .reg .b64 %rd<10>;\n"
    "  .shared .align 4 .b8 bins[256];\n"
    "  ld.param.u64 %rd1, [in]; ld.param.u32 %r1, [n]; ld.param.u64 %rd2, [out];\n"
    "  mov.u32 %r2, %tid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, bins;\n"
    "  setp.ge.u32 %p1, %r2, 64; @%p1 bra CLEARED;\n"
    "  mov.u32 %r5, %r2;\n"
    "CLEAR:\n"
    "  shl.b32 %r6, %r5, 2; add.s32 %r6, %r4, %r6; mov.u32 %r7, 0; st.shared.u32 [%r6], %r7;\n"
    "  add.s32 %r5, %r5, %r3; setp.lt.u32 %p2, %r5, 64; @%p2 bra CLEAR;\n"
    "CLEARED:\n"
    "  bar.sync 0;\n"
    "  mov.u32 %r8, %ctaid.x; mad.lo.s32 %r9, %r8, %r3, %r2; setp.ge.u32 %p3, %r9, %r1; @%p3 bra COUNTED;\n"
    "  mov.u32 %r10, %nctaid.x; mul.lo.s32 %r11, %r10, %r3;\n"
    "COUNT:\n"
    "  cvt.u64.u32 %rd3, %r9; add.s64 %rd4, %rd1, %rd3; ld.global.u8 %r12, [%rd4]; and.b32 %r12, %r12, 63;\n"
    "  shl.b32 %r13, %r12, 2; add.s32 %r13, %r4, %r13; atom.shared.add.u32 %r14, [%r13], 1;\n"
    "  add.s32 %r9, %r9, %r11; setp.lt.u32 %p4, %r9, %r1; @%p4 bra COUNT;\n"
    "COUNTED:\n"
    "  bar.sync 0;\n"
    "  @%p1 bra END;\n"
    "  mov.u32 %r15, %r2;\n"
    "ADD:\n"
    "  shl.b32 %r16, %r15, 2; add.s32 %r17, %r4, %r16; ld.shared.u32 %r18, [%r17];\n"
    "  mul.wide.u32 %rd5, %r15, 4; add.s64 %rd6, %rd2, %rd5; atom.global.add.u32 %r19, [%rd6], %r18;\n"
    "  add.s32 %r15, %r15, %r3; setp.lt.u32 %p5, %r15, 64; @%p5 bra ADD;\n"
    "END:\n  ret;\n}\n";

/* An f32 tree over 64 threads (jit/store_forward.c: the levels run by
 * warp 0 become one block, each level's loads take the stored lanes, and
 * lanes read by additions alone take them before NaN canonicalisation).
 * out[t] = s[t]'s bits at the end; thread 0 reads s[0]'s bits back right
 * after the last level's store and copies them to s[32]. */
#define FTREE_LEVEL(lim, off, label)                                                              \
    "  setp.ge.u32 %p1, %r1, " lim "; @%p1 bra " label ";\n"                                        \
    "  ld.shared.f32 %f2, [%r4]; ld.shared.f32 %f3, [%r4+" off "]; add.f32 %f4, %f2, %f3;\n"        \
    "  st.shared.f32 [%r4], %f4;\n" label ":\n  bar.sync 0;\n"
static const char ftree_src[] = HEADER
    ".visible .entry ftree(.param .u64 in, .param .u64 out)\n{\n"
    "  .reg .pred %p<4>; .reg .f32 %f<8>; .reg .b32 %r<12>; .reg .b64 %rd<10>;\n"
    "  .shared .align 4 .b8 sh[256];\n"
    "  ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out];\n"
    "  mov.u32 %r1, %tid.x; shl.b32 %r2, %r1, 2; mov.u32 %r3, sh; add.s32 %r4, %r3, %r2;\n"
    "  mul.wide.u32 %rd3, %r1, 4; add.s64 %rd4, %rd1, %rd3; ld.global.f32 %f1, [%rd4];\n"
    "  st.shared.f32 [%r4], %f1;\n  bar.sync 0;\n"
    FTREE_LEVEL("32", "128", "F1") FTREE_LEVEL("16", "64", "F2") FTREE_LEVEL("8", "32", "F3")
    FTREE_LEVEL("4", "16", "F4") FTREE_LEVEL("2", "8", "F5")
    "  setp.ge.u32 %p1, %r1, 1; @%p1 bra F6;\n"
    "  ld.shared.f32 %f2, [%r4]; ld.shared.f32 %f3, [%r4+4]; add.f32 %f4, %f2, %f3;\n"
    "  st.shared.f32 [%r4], %f4; ld.shared.b32 %r9, [%r4]; st.shared.b32 [%r4+128], %r9;\n"
    "F6:\n  bar.sync 0;\n"
    "  ld.shared.b32 %r5, [%r4]; add.s64 %rd5, %rd2, %rd3; st.global.b32 [%rd5], %r5;\n"
    "  ret;\n}\n";

static const ptxjit_kernel *kernel(const char *src, const char *name, ptxjit_module **m)
{
    char *log = NULL;
    *m = ptxjit_load(test_ctx, src, strlen(src), "shapes.ptx", &log, NULL);
    if (!*m)
        fail_msg("did not load:\n%s", log ? log : "");
    const ptxjit_kernel *k = ptxjit_kernel_get(*m, name);
    assert_non_null(k);
    return k;
}

static void run(const ptxjit_kernel *k, uint32_t gx, uint32_t bx, uint32_t by, uint32_t bz, void *params)
{
    char err[512];
    ptxjit_launch_cfg cfg = {{gx, 1, 1}, {bx, by, bz}, 0, params, NULL};
    if (ptxjit_launch(test_ctx, k, &cfg, err, sizeof err) != PTXJIT_OK)
        fail_msg("%s", err);
}

static void test_barrier_in_uniform_loop(void **state)
{
    (void)state;
    ptxjit_module *m;
    const ptxjit_kernel *k = kernel(loop_src, "loop_barrier", &m);
    assert_true(ptxjit_kernel_info_of(k)->frame_size > 0); /* resumable, no fibers */
    static const uint32_t blocks[] = {32, 45, 96, 200, 1024};
    for (size_t b = 0; b < sizeof blocks / sizeof *blocks; b++)
        for (uint32_t n = 0; n < 6; n += 5) {
            uint32_t nt = blocks[b], out[1024], want[1024] = {0};
            for (uint32_t i = 0; i < n; i++) /* even t adds into slot t; odd t into its own slot */
                for (uint32_t t = 0; t < nt; t++)
                    want[t % 2 ? t : (nt + t) % nt] += (t + i) % 7;
            struct { uint32_t *out; uint32_t n; } p = {out, n};
            run(k, 3, nt, 1, 1, &p);
            for (uint32_t t = 0; t < nt; t++)
                if (out[t] != want[t])
                    fail_msg("block %u, n %u: out[%u] = %u, want %u", nt, n, t, out[t], want[t]);
        }
    ptxjit_module_unload(m);
}

static void test_bar_red_after_exit(void **state)
{
    (void)state;
    ptxjit_module *m;
    const ptxjit_kernel *k = kernel(loop_src, "red_after_exit", &m);
    assert_true(ptxjit_kernel_info_of(k)->frame_size > 0);
    enum { CTAS = 5, NT = 160 };
    static int32_t in[CTAS * NT];
    uint32_t counts[CTAS];
    for (int i = 0; i < CTAS * NT; i++)
        in[i] = (i * 37 % 11) - 4;
    for (uint32_t keep = 1; keep <= NT; keep += 53) {
        struct { int32_t *in; uint32_t *counts; uint32_t keep; } p = {in, counts, keep};
        run(k, CTAS, NT, 1, 1, &p);
        for (uint32_t c = 0; c < CTAS; c++) {
            uint32_t want = 0;
            for (uint32_t t = 0; t < keep; t++)
                want += in[c * NT + t] > 0;
            if (counts[c] != want)
                fail_msg("keep %u: counts[%u] = %u, want %u", keep, c, counts[c], want);
        }
    }
    ptxjit_module_unload(m);
}

static void test_cta_loop_hands_over(void **state)
{
    (void)state;
    ptxjit_module *m;
    const ptxjit_kernel *k = kernel(loop_src, "handover", &m);
    assert_true(ptxjit_kernel_info_of(k)->frame_size > 0);
    static const uint32_t blocks[] = {64, 150, 256};
    for (size_t b = 0; b < sizeof blocks / sizeof *blocks; b++) {
        uint32_t nt = blocks[b], keep = 64, out[256];
        memset(out, 0xff, sizeof out);
        struct { uint32_t *out; uint32_t keep; } p = {out, keep};
        run(k, 4, nt, 1, 1, &p);
        for (uint32_t t = 0; t < nt; t++) {
            uint32_t u = (t + 2) % keep, want = t < keep ? 2 * ((((u + 1) % keep) + 1) % nt + 1) : 0xffffffffu;
            if (out[t] != want)
                fail_msg("block %u: out[%u] = %u, want %u", nt, t, out[t], want);
        }
    }
    ptxjit_module_unload(m);
}

/* Warps of one sweep stopped at different resume points (a diverged warp
 * waits through the general path): the CTA loop hands over in place only
 * to a warp that waits where the stretch begins. */
static void test_cta_loop_mixed_resume(void **state)
{
    (void)state;
    ptxjit_module *m;
    const ptxjit_kernel *k = kernel(loop_src, "mixed_resume", &m);
    static const uint32_t blocks[] = {256, 200, 100};
    for (size_t b = 0; b < sizeof blocks / sizeof *blocks; b++) {
        uint32_t nt = blocks[b], out[256], acc[256];
        for (uint32_t t = 0; t < nt; t++) {
            uint32_t r = t % 4;
            acc[t] = (t >> 5) == 3 ? r * (r + 1) / 2 : 0;
            acc[t] += (t + 37) % nt;
        }
        uint32_t *po = out;
        run(k, 3, nt, 1, 1, &po);
        for (uint32_t t = 0; t < nt; t++) {
            uint32_t want = acc[t] + acc[(t + 37) % nt];
            if (out[t] != want)
                fail_msg("block %u: out[%u] = %u, want %u", nt, t, out[t], want);
        }
    }
    ptxjit_module_unload(m);
}

/* Another kernel's barriers do not make a kernel's warps fibers; a .func's
 * do (any kernel may call it). */
static void test_fibers_only_where_warps_wait(void **state)
{
    (void)state;
    ptxjit_module *m;
    const ptxjit_kernel *plain = kernel(loop_src, "no_barrier", &m);
    assert_false(ptxjit_kernel_info_of(plain)->uses_barriers);
    assert_int_equal(ptxjit_kernel_info_of(plain)->frame_size, 0);
    uint32_t out[100];
    struct { uint32_t *out; } p = {out};
    run(plain, 1, 100, 1, 1, &p);
    for (uint32_t t = 0; t < 100; t++)
        assert_int_equal(out[t], 3 * t);
    ptxjit_module_unload(m);
    const ptxjit_kernel *calls = kernel(func_bar_src, "calls_bar", &m);
    assert_true(ptxjit_kernel_info_of(calls)->uses_barriers);
    run(calls, 1, 100, 1, 1, &p);
    for (uint32_t t = 0; t < 100; t++)
        assert_int_equal(out[t], t + 1);
    ptxjit_module_unload(m);
}

static void test_local_memory_falls_back_to_fibers(void **state)
{
    (void)state;
    ptxjit_module *m;
    const ptxjit_kernel *k = kernel(loop_src, "local_and_barrier", &m);
    assert_int_equal(ptxjit_kernel_info_of(k)->frame_size, 0);
    assert_true(ptxjit_kernel_info_of(k)->uses_barriers);
    uint32_t out[100];
    struct { uint32_t *out; } p = {out};
    run(k, 2, 100, 1, 1, &p);
    for (uint32_t t = 0; t < 100; t++)
        assert_int_equal(out[t], t + (t + 1) % 100);
    ptxjit_module_unload(m);
}

static void test_tile_rows(void **state)
{
    (void)state;
    ptxjit_module *m;
    const ptxjit_kernel *k = kernel(tile_src, "tile16", &m);
    float a[256], b[256], c[256], d[256], e[20 * 16], want[256];
    for (int i = 0; i < 256; i++) {
        a[i] = (float)(i % 13) - 6.0f;
        b[i] = (float)(i % 5) * 0.5f;
    }
    for (int y = 0; y < 16; y++)
        for (int x = 0; x < 16; x++) {
            float s = 0.0f;
            for (int kk = 0; kk < 16; kk++)
                s = fmaf(a[y * 16 + kk], b[kk * 16 + x], s);
            want[y * 16 + x] = s;
        }
    for (uint32_t lim = 0; lim <= 16; lim += 5) {
        memset(d, 0, sizeof d);
        memset(e, 0, sizeof e);
        struct { float *a, *b, *c, *d, *e; uint32_t lim; } p = {a, b, c, d, e, lim};
        run(k, 1, 16, 16, 1, &p);
        for (int y = 0; y < 16; y++)
            for (int x = 0; x < 16; x++) {
                int i = y * 16 + x;
                if (c[i] != want[i] || e[y * 20 + x] != want[i])
                    fail_msg("lim %u: c/e[%d][%d] = %g/%g, want %g", lim, y, x, c[i], e[y * 20 + x], want[i]);
                if (d[i] != ((uint32_t)x < lim ? want[i] + 1.0f : 0.0f))
                    fail_msg("lim %u: d[%d][%d] = %g", lim, y, x, d[i]);
            }
    }
    ptxjit_module_unload(m);
}

static void test_tid_in_block_shapes(void **state)
{
    (void)state;
    ptxjit_module *m;
    const ptxjit_kernel *k = kernel(tile_src, "tids", &m);
    static const uint32_t shapes[][3] = {{16, 16, 1}, {8, 4, 4}, {64, 2, 1}, {7, 5, 3},
                                         {32, 3, 2}, {4, 8, 8}, {96, 1, 1}, {1, 1, 40}};
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        const uint32_t *n = shapes[s];
        uint32_t out[1024];
        struct { uint32_t *out; } p = {out};
        run(k, 2, n[0], n[1], n[2], &p);
        for (uint32_t z = 0; z < n[2]; z++)
            for (uint32_t y = 0; y < n[1]; y++)
                for (uint32_t x = 0; x < n[0]; x++) {
                    uint32_t i = (z * n[1] + y) * n[0] + x;
                    if (out[i] != x + 100 * y + 10000 * z)
                        fail_msg("block %ux%ux%u: thread (%u,%u,%u) saw %u", n[0], n[1], n[2], x, y, z,
                                 out[i]);
                }
    }
    ptxjit_module_unload(m);
}

static void test_reused_registers(void **state)
{
    (void)state;
    ptxjit_module *m;
    const ptxjit_kernel *k = kernel(reuse_src, "reused", &m);
    static const uint32_t sizes[] = {256, 100, 33};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (uint32_t n = 0; n < 4; n++) {
            uint32_t T = sizes[s], out[256];
            struct { uint32_t *out; uint32_t n; } p = {out, n};
            run(k, 3, T, 1, 1, &p);
            for (uint32_t t = 0; t < T; t++) {
                uint32_t r7 = t % 2 ? 3 * t : 7, want = n ? t + 5 * n : t;
                for (uint32_t i = 0; i < n; i++)
                    want += (t + 1) % T + 5 * i + r7;
                if (out[t] != want)
                    fail_msg("T %u n %u: thread %u wrote %u, want %u", T, n, t, out[t], want);
            }
        }
    ptxjit_module_unload(m);
}

static void test_pitched_rows(void **state)
{
    (void)state;
    ptxjit_module *m;
    const ptxjit_kernel *k = kernel(pitch_src, "pitched", &m);
    enum { N = 8192, MID = 4096 };
    float *buf = malloc(N * sizeof *buf), out[1024];
    assert_non_null(buf);
    for (int i = 0; i < N; i++)
        buf[i] = (float)(i % 97) - 40.0f;
    static const uint32_t shapes[][2] = {{16, 16}, {8, 8}, {32, 2}, {5, 7}, {12, 3}};
    static const int32_t pitches[] = {16, 100, 7, 0, -20, 1};
    for (size_t b = 0; b < sizeof shapes / sizeof *shapes; b++)
        for (size_t q = 0; q < sizeof pitches / sizeof *pitches; q++) {
            uint32_t bx = shapes[b][0], by = shapes[b][1];
            int32_t pitch = pitches[q];
            struct { float *in, *out; int32_t pitch; } p = {buf + MID, out, pitch};
            run(k, 1, bx, by, 1, &p);
            for (uint32_t y = 0; y < by; y++)
                for (uint32_t x = 0; x < bx; x++) {
                    int64_t i = MID + (int64_t)y * pitch + x;
                    float want = buf[i] + buf[i] + buf[i + pitch] + buf[i - 1];
                    if (out[y * bx + x] != want)
                        fail_msg("%ux%u pitch %d: (%u,%u) = %g, want %g", bx, by, pitch, x, y, out[y * bx + x],
                                 want);
                }
        }
    free(buf);
    ptxjit_module_unload(m);
}

/* The tile loop's pointer (rows a run-time pitch apart, stepped per tile)
 * keeps its shape across the barriers, in blocks of whole and partial
 * warps, all lanes loading or some skipping the load. */
static void test_pitched_tiles(void **state)
{
    (void)state;
    ptxjit_module *m;
    const ptxjit_kernel *k = kernel(pitch_src, "pitched_tiles", &m);
    enum { N = 8192, MID = 4096, TILES = 3 };
    float *buf = malloc(N * sizeof *buf), out[1024];
    assert_non_null(buf);
    for (int i = 0; i < N; i++)
        buf[i] = (float)(i % 89) - 30.0f;
    static const uint32_t shapes[][2] = {{16, 16}, {8, 8}, {32, 2}, {5, 7}, {12, 3}};
    static const int32_t pitches[] = {16, 100, 7, 0, -20, 1};
    for (size_t b = 0; b < sizeof shapes / sizeof *shapes; b++)
        for (size_t q = 0; q < sizeof pitches / sizeof *pitches; q++)
            for (uint32_t skip = 0; skip < 2; skip++) {
                uint32_t bx = shapes[b][0], by = shapes[b][1], limit = skip ? bx / 2 : bx;
                int32_t pitch = pitches[q];
                struct { float *in, *out; int32_t pitch; uint32_t tiles, limit; } p = {buf + MID, out, pitch, TILES,
                                                                                      limit};
                run(k, 1, bx, by, 1, &p);
                for (uint32_t y = 0; y < by; y++)
                    for (uint32_t x = 0; x < bx; x++) {
                        float want = 0.0f;
                        for (int t = 0; t < TILES; t++) {
                            int64_t row = MID + (int64_t)y * pitch + 16 * t;
                            want += x < limit ? buf[row + x] : 0.5f;
                            want += limit ? buf[row] : 0.5f;
                        }
                        if (out[y * bx + x] != want)
                            fail_msg("%ux%u pitch %d limit %u: (%u,%u) = %g, want %g", bx, by, pitch, limit, x, y,
                                     out[y * bx + x], want);
                    }
            }
    free(buf);
    ptxjit_module_unload(m);
}

/* pitched_tiles with a pitch near 2^31: rows y * pitch + x wrap in the
 * 32-bit index, and mul.wide.s32 then puts lanes 8 GiB before or after
 * their row's start.  The tile pointer's no-wrap test stays behind the
 * loop's phi and the frame, so the loads check their addresses.  The
 * elements read lie in pages of a 16 GiB reservation made readable one by
 * one; in[e] = e mod 89. */
static float wrapped_value(int64_t e) { return (float)(((e % 89) + 89) % 89); }

/* y * pitch + x as the kernel's 32-bit index, widened as mul.wide.s32 does. */
static int64_t wrapped_index(uint32_t y, int32_t pitch, uint32_t x)
{
    return (int32_t)(y * (uint32_t)pitch + x);
}

static void test_wrapped_pitched_tiles(void **state)
{
    (void)state;
    ptxjit_module *m;
    const ptxjit_kernel *k = kernel(pitch_src, "pitched_tiles", &m);
    enum { TILES = 3 };
    const size_t half = (size_t)8 << 30, margin = (size_t)64 << 20, page = 4096;
    char *base = mmap(NULL, 2 * (half + margin), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED)
        skip(); /* no 16 GiB of address space: nothing to test here */
    float *in = (float *)(base + half + margin), out[1024];
    static const uint32_t shapes[][2] = {{16, 16}, {32, 2}, {8, 8}};
    const int32_t pitch = INT32_MAX - 7;
    for (size_t b = 0; b < sizeof shapes / sizeof *shapes; b++) {
        uint32_t bx = shapes[b][0], by = shapes[b][1];
        for (uint32_t y = 0; y < by; y++)
            for (uint32_t x = 0; x < bx; x++)
                for (int t = 0; t < TILES; t++) {
                    int64_t e = wrapped_index(y, pitch, x) + 16 * t;
                    char *pg = (char *)((uintptr_t)(in + e) & ~(uintptr_t)(page - 1));
                    assert_int_equal(mprotect(pg, page, PROT_READ | PROT_WRITE), 0);
                    in[e] = wrapped_value(e);
                }
        struct { float *in, *out; int32_t pitch; uint32_t tiles, limit; } p = {in, out, pitch, TILES, bx};
        run(k, 1, bx, by, 1, &p);
        for (uint32_t y = 0; y < by; y++)
            for (uint32_t x = 0; x < bx; x++) {
                float want = 0.0f;
                for (int t = 0; t < TILES; t++) {
                    int64_t row = wrapped_index(y, pitch, 0) + 16 * t;
                    want += wrapped_value(wrapped_index(y, pitch, x) + 16 * t);
                    want += wrapped_value(row);
                }
                if (out[y * bx + x] != want)
                    fail_msg("%ux%u pitch %d: (%u,%u) = %g, want %g", bx, by, pitch, x, y, out[y * bx + x], want);
            }
    }
    munmap(base, 2 * (half + margin));
    ptxjit_module_unload(m);
}

/* A register stepped by uniform amounts in a loop across barriers is its
 * start (recomputed after each barrier) plus a warp-wide sum; its start
 * reads the value a reused register had then. */
static void test_step_after_reuse(void **state)
{
    (void)state;
    ptxjit_module *m;
    const ptxjit_kernel *k = kernel(pitch_src, "step_after_reuse", &m);
    static const uint32_t blocks[] = {256, 45, 64};
    for (size_t b = 0; b < sizeof blocks / sizeof *blocks; b++) {
        uint32_t nt = blocks[b], n = 5, out[256];
        struct { uint32_t *out; uint32_t n; } p = {out, n};
        run(k, 2, nt, 1, 1, &p);
        for (uint32_t t = 0; t < nt; t++) {
            uint32_t want = 7 * n;
            for (uint32_t i = 0; i < n; i++)
                want += 3 * t + 16 * i;
            if (out[t] != want)
                fail_msg("block %u: out[%u] = %u, want %u", nt, t, out[t], want);
        }
    }
    ptxjit_module_unload(m);
}

static void test_wrapping_rows(void **state)
{
    (void)state;
    ptxjit_module *m;
    const ptxjit_kernel *k = kernel(pitch_src, "wrap16", &m);
    enum { N = 65536 + 64 };
    uint32_t *buf = malloc(N * sizeof *buf), out[256];
    assert_non_null(buf);
    for (uint32_t i = 0; i < N; i++)
        buf[i] = i * 2654435761u;
    static const uint16_t pitches[] = {20, 65526, 4096, 65535};
    for (size_t q = 0; q < sizeof pitches / sizeof *pitches; q++) {
        struct { uint32_t *in, *out; uint16_t pitch; } p = {buf, out, pitches[q]};
        run(k, 1, 16, 16, 1, &p); /* rows y >= ntid.x would return early: none here */
        for (uint32_t y = 0; y < 16; y++)
            for (uint32_t x = 0; x < 16; x++) {
                uint32_t i = (uint16_t)(y * pitches[q] + x);
                if (out[y * 16 + x] != buf[i] - x % 2)
                    fail_msg("pitch %u: (%u,%u) = %u, want in[%u] = %u", pitches[q], x, y, out[y * 16 + x], i, buf[i]);
            }
    }
    free(buf);
    ptxjit_module_unload(m);
}

/* A misaligned base faults (lower_align.c) whichever path the shape took:
 * rows of runs stored at two offsets, rows a run-time pitch apart, and
 * addresses that reach their loads through phis (checked, not guarded). */
static void expect_misaligned(const ptxjit_kernel *k, uint32_t bx, uint32_t by, void *params)
{
    char err[512] = "";
    ptxjit_launch_cfg cfg = {{1, 1, 1}, {bx, by, 1}, 0, params, NULL};
    ptxjit_status st = ptxjit_launch(test_ctx, k, &cfg, err, sizeof err);
    if (st != PTXJIT_ERR_MISALIGNED || !strstr(err, "misaligned address") || !strstr(err, "4-byte access"))
        fail_msg("status %d (%s), want PTXJIT_ERR_MISALIGNED", (int)st, err);
}

static void test_misaligned_shapes(void **state)
{
    (void)state;
    ptxjit_module *tm, *pm;
    const ptxjit_kernel *tile = kernel(tile_src, "tile16", &tm);
    const ptxjit_kernel *pitched = kernel(pitch_src, "pitched", &pm);
    const ptxjit_kernel *wrap = ptxjit_kernel_get(pm, "wrap16");
    enum { N = 65536 + 64 };
    uint32_t *buf = calloc(N + 1, sizeof *buf), out[256];
    assert_non_null(buf);
    char *odd = (char *)buf + 2;
    struct { void *a, *b, *c, *d, *e; uint32_t lim; } t = {buf, buf, out, out, odd, 16};
    expect_misaligned(tile, 16, 16, &t);
    struct { void *in, *out; uint32_t pitch; } p = {(char *)buf + 64 + 2, out, 20};
    expect_misaligned(pitched, 16, 16, &p);
    struct { void *in, *out; uint16_t pitch; } w = {odd, out, 20};
    expect_misaligned(wrap, 16, 16, &w);
    /* aligned again: the context runs kernels as before */
    w.in = buf;
    run(wrap, 1, 16, 16, 1, &w);
    free(buf);
    ptxjit_module_unload(tm);
    ptxjit_module_unload(pm);
}

/* The loads' prefetches run ahead of the data, past the end of the
 * buffer into pages that are not mapped: prefetches do not fault, the
 * sums are exact (small integers). */
static void test_grid_stride_prefetch(void **state)
{
    (void)state;
    enum { BLOCKS = 8, THREADS = 128, STEPS = 16, N = BLOCKS * THREADS * STEPS };
    size_t page = (size_t)sysconf(_SC_PAGESIZE), len = N * sizeof(float), map = len + 16 * page;
    char *region = mmap(NULL, map, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(region != MAP_FAILED);
    assert_int_equal(mprotect(region + len, map - len, PROT_NONE), 0); /* the buffer ends at a hole */
    float *in = (float *)region, out[BLOCKS * THREADS];
    for (uint32_t i = 0; i < N; i++)
        in[i] = (float)(i % 13);
    ptxjit_module *m;
    static const char *const names[] = {"grid_sum", "grid_sum_bar"};
    for (int v = 0; v < 2; v++) {
        const ptxjit_kernel *k = kernel(stride_src, names[v], &m);
        for (uint32_t n = v ? N : N - 5; n <= N; n += 5) {
            struct { float *in, *out; uint32_t n; } p = {in, out, n};
            run(k, BLOCKS, THREADS, 1, 1, &p);
            for (uint32_t g = 0; g < BLOCKS * THREADS; g++) {
                float want = 0;
                for (uint32_t i = g; i < n; i += BLOCKS * THREADS)
                    want += in[i];
                if (out[g] != want)
                    fail_msg("%s, n %u: out[%u] = %g, want %g", names[v], n, g, out[g], want);
            }
        }
        ptxjit_module_unload(m);
    }
    munmap(region, map);
}

static void test_shared_atomics_lane_order(void **state)
{
    (void)state;
    ptxjit_module *m;
    const ptxjit_kernel *k = kernel(bins_src, "bins", &m);
    for (uint32_t odd_off = 0; odd_off < 2; odd_off++) {
        uint32_t out[72], want[72] = {0};
        for (uint32_t c = 0; c < 2; c++) {
            uint32_t bin[4] = {0};
            for (uint32_t t = 0; t < 32; t++) {
                if (t & odd_off) {
                    want[32 * c + t] = 12345;
                    continue;
                }
                want[32 * c + t] = bin[t % 3];
                bin[t % 3] += t + 1;
            }
            memcpy(&want[64 + 4 * c], bin, sizeof bin);
        }
        struct { uint32_t *out; uint32_t odd_off; } p = {out, odd_off};
        run(k, 2, 32, 1, 1, &p);
        for (uint32_t i = 0; i < 72; i++)
            if (out[i] != want[i])
                fail_msg("odd lanes off %u: out[%u] = %u, want %u", odd_off, i, out[i], want[i]);
    }
    ptxjit_module_unload(m);
}

/* idx for pattern p over a 16 x by block: rows `pitch` apart (two rows
 * of 16 consecutive lanes per warp), all consecutive, one address, or
 * scattered. */
static uint32_t pattern_index(int p, uint32_t x, uint32_t y, uint32_t pitch)
{
    switch (p) {
    case 0: return y * pitch + x;
    case 1: return y * 16 + x;
    case 2: return 7;
    default: return (x * 37 + y * 11) % 1024;
    }
}

static void test_run_time_address_classes(void **state)
{
    (void)state;
    enum { BY = 8, T = 16 * BY };
    static const uint32_t pitches[] = {40, 100, 17};
    size_t page = (size_t)sysconf(_SC_PAGESIZE), map = 8 * page;
    char *region = mmap(NULL, map, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(region != MAP_FAILED);
    assert_int_equal(mprotect(region + 4 * page, 4 * page, PROT_NONE), 0);
    ptxjit_module *m;
    static const char *const names[] = {"indexed", "indexed_shared"};
    for (int v = 0; v < 2; v++) {
        const ptxjit_kernel *k = kernel(indexed_src, names[v], &m);
        for (int pat = 0; pat < 4; pat++)
            for (size_t pi = 0; pi < (pat ? 1 : sizeof pitches / sizeof *pitches); pi++)
                for (uint32_t lim = 0; lim <= 16; lim += lim == 9 ? 7 : 9) {
                    uint32_t pitch = pitches[pi], idx[T], n = 1024;
                    if (!v && !pat) /* the buffer ends after the last row's active lanes: the
                                       others' addresses are unmapped */
                        n = (BY - 1) * pitch + lim;
                    float *in = (float *)(region + 4 * page) - n, out[T];
                    for (uint32_t i = 0; i < n; i++)
                        in[i] = (float)(i % 97) + 0.5f;
                    for (uint32_t y = 0; y < BY; y++)
                        for (uint32_t x = 0; x < 16; x++)
                            idx[y * 16 + x] = pattern_index(pat, x, y, pitch);
                    struct { float *in; uint32_t *idx; float *out; uint32_t lim; } p = {in, idx, out, lim};
                    run(k, 1, 16, BY, 1, &p);
                    for (uint32_t t = 0; t < T; t++) {
                        float want = t % 16 < lim ? in[idx[t]] : -1.0f;
                        if (out[t] != want)
                            fail_msg("%s pattern %d pitch %u lim %u: out[%u] = %g, want %g", names[v], pat,
                                     pitch, lim, t, out[t], want);
                    }
                }
        ptxjit_module_unload(m);
    }
    munmap(region, map);
}

static void test_uniform_from_lane_ops(void **state)
{
    (void)state;
    ptxjit_module *m;
    const ptxjit_kernel *k = kernel(warp_slot_src, "warp_slot", &m);
    static const uint32_t masks[] = {0xffffffffu, 0x55555555u, 0x00010001u, 1u, 0};
    static const uint32_t blocks[] = {32, 96, 200};
    uint32_t in[3] = {100, 200, 300};
    for (size_t b = 0; b < sizeof blocks / sizeof *blocks; b++)
        for (size_t i = 0; i < sizeof masks / sizeof *masks; i++) {
            uint32_t nt = blocks[b], out[64];
            for (uint32_t j = 0; j < 64; j++)
                out[j] = 7777;
            struct { uint32_t *in, *out; uint32_t lanes; } p = {in, out, masks[i]};
            run(k, 1, nt, 1, 1, &p);
            for (uint32_t w = 0; w < (nt + 31) / 32; w++) {
                uint32_t want = 7777, load = in[w % 3] + ((w & 1) ^ 1);
                for (uint32_t l = 0; l < 32 && w * 32 + l < nt; l++)
                    if (masks[i] >> l & 1)
                        want = w * 32 + l;
                if (out[w] != want || out[32 + w] != load)
                    fail_msg("block %u, lanes %08x: warp %u stored %u and %u, want %u and %u", nt, masks[i], w,
                             out[w], out[32 + w], want, load);
            }
        }
    ptxjit_module_unload(m);
}

static void test_converged_if_bodies(void **state)
{
    (void)state;
    ptxjit_module *m;
    const ptxjit_kernel *loop = kernel(if_src, "if_loop", &m);
    const ptxjit_kernel *bar = ptxjit_kernel_get(m, "if_barrier");
    assert_non_null(bar);
    static const uint32_t blocks[] = {32, 45, 96, 200};
    for (size_t b = 0; b < sizeof blocks / sizeof *blocks; b++)
        for (uint32_t n = 0; n < 8; n += 3) {
            uint32_t nt = blocks[b], out[256], slot[256], acc[256] = {0};
            for (uint32_t t = 0; t < 256; t++)
                out[t] = 0xdeadbeef;
            struct { uint32_t *out; uint32_t n; } p = {out, n};
            run(loop, 2, nt, 1, 1, &p);
            for (uint32_t t = 0; t < nt; t++) {
                uint32_t v = t;
                for (uint32_t i = 0; i < n; i++) {
                    if ((7 * t + i) % 3)
                        v = 3 * v + i;
                    if (((t ^ i) & 3) == 1)
                        v ^= i << 4;
                }
                uint32_t want = t % 5 == 4 ? 0xdeadbeef : v;
                if (out[t] != want)
                    fail_msg("if_loop block %u, n %u: out[%u] = %u, want %u", nt, n, t, out[t], want);
            }
            for (uint32_t t = 0; t < nt; t++)
                slot[t] = 1000 + t;
            for (uint32_t i = 0; i < n; i++) {
                for (uint32_t t = 0; t < nt; t++)
                    if ((t + i) & 1)
                        slot[t] = 16 * t + i;
                for (uint32_t t = 0; t < nt; t++)
                    acc[t] += slot[(t + 1) % nt];
            }
            run(bar, 2, nt, 1, 1, &p);
            for (uint32_t t = 0; t < nt; t++)
                if (out[t] != acc[t])
                    fail_msg("if_barrier block %u, n %u: out[%u] = %u, want %u", nt, n, t, out[t], acc[t]);
        }
    ptxjit_module_unload(m);
}

static void test_full_warp_copies(void **state)
{
    (void)state;
    ptxjit_module *m;
    const ptxjit_kernel *k = kernel(full_src, "full_copy", &m);
    uint32_t g[64];
    for (uint32_t j = 0; j < 64; j++)
        g[j] = j * 2654435761u >> 7;
    static const uint32_t blocks[] = {32, 45, 96, 200};
    for (size_t b = 0; b < sizeof blocks / sizeof *blocks; b++)
        for (uint32_t n = 1; n < 12; n += 5) {
            uint32_t nt = blocks[b], out[256], last[256];
            for (uint32_t t = 0; t < 256; t++)
                last[t] = 0xdeadbeef;
            struct { uint32_t *g, *out, *last; uint32_t n; } p = {g, out, last, n};
            run(k, 1, nt, 1, 1, &p);
            for (uint32_t t = 0; t < nt; t++) {
                uint32_t acc = 0, stored = 0xdeadbeef;
                for (uint32_t i = 0; i < n; i++) {
                    if ((i & 1) && (t + i) % 5 == 0)
                        continue;
                    acc = ((acc + g[(t + i) % 64] + 3 * g[(3 * t + i) % 64]) ^ g[i % 64]);
                    stored = acc;
                }
                if (out[t] != acc || last[t] != stored)
                    fail_msg("block %u, n %u: thread %u has %u and %u, want %u and %u", nt, n, t, out[t], last[t],
                             acc, stored);
            }
            for (uint32_t t = nt; t < 256; t++)
                if (last[t] != 0xdeadbeef)
                    fail_msg("block %u, n %u: last[%u] written by a thread that does not exist", nt, n, t);
        }
    ptxjit_module_unload(m);
}

static void test_uniform_with_several_defs(void **state)
{
    (void)state;
    ptxjit_module *m;
    const ptxjit_kernel *k = kernel(multi_src, "multi_defs", &m);
    static const uint32_t blocks[] = {32, 45, 96};
    for (size_t b = 0; b < sizeof blocks / sizeof *blocks; b++)
        for (uint32_t flag = 0; flag < 2; flag++)
            for (uint32_t n = 1; n < 10; n += 4) {
                uint32_t nt = blocks[b], out[128];
                struct { uint32_t *out; uint32_t n, flag; } p = {out, n, flag};
                run(k, 2, nt, 1, 1, &p);
                for (uint32_t t = 0; t < nt; t++) {
                    uint32_t c = flag ? 99 : 7, x = 0, y = 0, acc = 0;
                    for (uint32_t i = 0; i < n; i++, c++) {
                        if (i == 0 || ((t + i) & 1) == 0)
                            x = 3 * i, y = 5 * i;
                        acc += x + y + c;
                    }
                    if (out[t] != acc)
                        fail_msg("block %u, flag %u, n %u: out[%u] = %u, want %u", nt, flag, n, t, out[t], acc);
                }
            }
    ptxjit_module_unload(m);
}

/* Kernel `name` sums each CTA's slice of in[] into out[ctaid] (in[i] =
 * (i * mul) % mod - off), for each block size of blocks[]. */
static void check_block_sums(const char *name, const uint32_t *blocks, size_t nblocks, int mul, int mod, int off)
{
    ptxjit_module *m;
    const ptxjit_kernel *k = kernel(uniform_src, name, &m);
    enum { CTAS = 3 };
    static int32_t in[CTAS * 1024];
    for (int i = 0; i < CTAS * 1024; i++)
        in[i] = i * mul % mod - off;
    for (size_t b = 0; b < nblocks; b++) {
        uint32_t nt = blocks[b];
        int32_t out[CTAS];
        struct { int32_t *in, *out; } p = {in, out};
        run(k, CTAS, nt, 1, 1, &p);
        for (uint32_t c = 0; c < CTAS; c++) {
            int32_t want = 0;
            for (uint32_t t = 0; t < nt; t++)
                want += in[c * nt + t];
            if (out[c] != want)
                fail_msg("%s, block %u: out[%u] = %d, want %d", name, nt, c, out[c], want);
        }
    }
    ptxjit_module_unload(m);
}

static void test_uniform_barriers_tree(void **state)
{
    (void)state;
    static const uint32_t blocks[] = {32, 64, 96, 256, 1024, 100};
    check_block_sums("uniform_tree", blocks, sizeof blocks / sizeof *blocks, 7, 13, 3);
}

/* Kernel `name` writes out[t] for each thread t of two blocks of nt
 * threads: want_of(t, nt), for several block sizes.  Uniform in a warp is
 * not uniform in the CTA: warps past the first two wait at another
 * barrier instruction (%warpid is the warp's index in the block here),
 * and a register set in an if-body for one thread is that thread's, not
 * its warp's. */
static void check_thread_outputs(const char *name, uint32_t (*want_of)(uint32_t t, uint32_t nt))
{
    ptxjit_module *m;
    const ptxjit_kernel *k = kernel(uniform_src, name, &m);
    static const uint32_t blocks[] = {64, 96, 128, 256, 100};
    for (size_t b = 0; b < sizeof blocks / sizeof *blocks; b++) {
        uint32_t nt = blocks[b], out[256];
        uint32_t *po = out;
        run(k, 2, nt, 1, 1, &po);
        for (uint32_t t = 0; t < nt; t++) {
            uint32_t want = want_of(t, nt);
            if (out[t] != want)
                fail_msg("%s, block %u: out[%u] = %u, want %u", name, nt, t, out[t], want);
        }
    }
    ptxjit_module_unload(m);
}

static uint32_t rotated(uint32_t t, uint32_t nt) { return 3 * ((t + 37) % nt); }
static uint32_t past_two_warps(uint32_t t, uint32_t nt) { return rotated(t, nt) + (t >= 64 ? 1000 : 0); }
static uint32_t thread_40(uint32_t t, uint32_t nt) { return rotated(t, nt) + (t == 40 ? 1000 : 0); }
static uint32_t trips(uint32_t t, uint32_t nt) { return rotated(t, nt) + 1000 * (t % 3); }

/* Two warps at a time through a straight region between uniform barriers:
 * odd and even warp counts (one warp left alone, or none). */
static void test_uniform_barriers_straight(void **state)
{
    (void)state;
    ptxjit_module *m;
    const ptxjit_kernel *k = kernel(uniform_src, "straight_region", &m);
    static const uint32_t blocks[] = {32, 64, 96, 128, 160, 256, 100};
    for (size_t b = 0; b < sizeof blocks / sizeof *blocks; b++)
        for (uint32_t rounds = 0; rounds < 5; rounds += 2) {
            uint32_t nt = blocks[b], out[256];
            struct { uint32_t *out; uint32_t rounds; } p = {out, rounds};
            run(k, 2, nt, 1, 1, &p);
            for (uint32_t t = 0; t < nt; t++) {
                uint32_t acc = 0;
                for (uint32_t i = 0; i < rounds; i++)
                    acc = acc * 3 + (3 * ((t + 1) % nt) + i) + (3 * ((t + 5) % nt) + i);
                if (out[t] != acc)
                    fail_msg("block %u, rounds %u: out[%u] = %u, want %u", nt, rounds, t, out[t], acc);
            }
        }
    ptxjit_module_unload(m);
}

/* The region after the last barrier runs to the kernel's exit, two warps
 * at a time and one for an odd count. */
static void test_uniform_barriers_exit(void **state)
{
    (void)state;
    ptxjit_module *m;
    const ptxjit_kernel *k = kernel(uniform_src, "exit_region", &m);
    static const uint32_t blocks[] = {32, 64, 96, 160, 256, 1024, 100};
    static uint32_t out[3 * 1024];
    for (size_t b = 0; b < sizeof blocks / sizeof *blocks; b++) {
        uint32_t nt = blocks[b];
        for (uint32_t i = 0; i < 3 * nt; i++)
            out[i] = 0xdeadbeef;
        uint32_t *po = out;
        run(k, 1, nt, 1, 1, &po);
        for (uint32_t t = 0; t < nt; t++) {
            uint32_t v = 7 * ((t + 1) % nt), want[3] = {v, t % 3 ? 0xdeadbeef : v + t, v + 5};
            for (int j = 0; j < 3; j++)
                if (out[3 * t + j] != want[j])
                    fail_msg("block %u: out[%u] = %u, want %u", nt, 3 * t + j, out[3 * t + j], want[j]);
        }
    }
    ptxjit_module_unload(m);
}

/* A region between uniform barriers that a CTA-uniform branch may leave
 * (SGEMM's tile loop): the group's first warp leaves alone, the others
 * after it, to a second phase with a barrier; no round, one and more; odd
 * and even warp counts; a block of 100 threads (no uniform barriers). */
static void check_tile_loop(const char *name)
{
    ptxjit_module *m;
    const ptxjit_kernel *k = kernel(uniform_src, name, &m);
    static const uint32_t blocks[] = {32, 64, 96, 160, 256, 100};
    static const uint32_t rounds[] = {0, 1, 2, 5};
    for (size_t b = 0; b < sizeof blocks / sizeof *blocks; b++)
        for (size_t r = 0; r < sizeof rounds / sizeof *rounds; r++) {
            uint32_t nt = blocks[b], out[256], acc[256];
            struct { uint32_t *out; uint32_t rounds; } p = {out, rounds[r]};
            run(k, 2, nt, 1, 1, &p);
            for (uint32_t t = 0; t < nt; t++) {
                acc[t] = 0;
                for (uint32_t i = 0; i < rounds[r]; i++)
                    acc[t] += 3 * ((t + 1) % nt) + i;
            }
            for (uint32_t t = 0; t < nt; t++) {
                uint32_t want = acc[t] + 1000 * acc[(t + 7) % nt];
                if (out[t] != want)
                    fail_msg("%s, block %u, rounds %u: out[%u] = %u, want %u", name, nt, rounds[r], t, out[t], want);
            }
        }
    ptxjit_module_unload(m);
}

static void test_uniform_barriers_leave(void **state)
{
    (void)state;
    check_tile_loop("tile_loop_fall");
    check_tile_loop("tile_loop_taken");
}

static uint32_t remat_gate(uint32_t t, uint32_t nt) { return (void)nt, 3 + (t ? 1000 : 2000); }
static uint32_t remat_gate_load(uint32_t t, uint32_t nt) { return remat_gate(t, nt) + 3 * t; }

static void test_uniform_barriers_remat_gate(void **state)
{
    (void)state;
    check_thread_outputs("remat_gate", remat_gate);
    check_thread_outputs("remat_gate_load", remat_gate_load);
}

static void test_uniform_barriers_warp0(void **state)
{
    (void)state;
    static const uint32_t blocks[] = {32, 64, 96, 256, 1024};
    check_block_sums("shfl_warp0", blocks, sizeof blocks / sizeof *blocks, 13, 29, 11);
}

/* 2D blocks: rows of 64 keep tid.x >> 5 warp-uniform, rows of 48 do not. */
static void test_warp_index_in_row(void **state)
{
    (void)state;
    ptxjit_module *m;
    const ptxjit_kernel *k = kernel(uniform_src, "warp_gate", &m);
    static const uint32_t shapes[][2] = {{64, 2}, {48, 2}, {96, 3}, {40, 4}};
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        uint32_t bx = shapes[s][0], by = shapes[s][1], out[512];
        uint32_t *po = out;
        run(k, 1, bx, by, 1, &po);
        for (uint32_t t = 0; t < bx * by; t++) {
            uint32_t w = t % bx >> 5, want = (w ? 1 : 2) + 10 * w;
            if (out[t] != want)
                fail_msg("block %ux%u: out[%u] = %u, want %u", bx, by, t, out[t], want);
        }
    }
    ptxjit_module_unload(m);
}

static void test_uniform_barriers_split(void **state)
{
    (void)state;
    ptxjit_module *m;
    const ptxjit_kernel *k = kernel(uniform_src, "split_regions", &m);
    static const uint32_t blocks[] = {32, 64, 96, 128, 160, 256, 100};
    static int32_t in[256];
    for (int i = 0; i < 256; i++)
        in[i] = i * 5 % 17 - 6;
    for (size_t b = 0; b < sizeof blocks / sizeof *blocks; b++) {
        uint32_t nt = blocks[b];
        int32_t out[256], want[256];
        memcpy(want, in, sizeof want);
        for (uint32_t st = 1; st <= 4; st *= 2)
            for (uint32_t t = 0; t < nt; t++)
                if (t % (2 * st) == 0 && t + st < nt)
                    want[t] += want[t + st];
        struct { int32_t *in, *out; } p = {in, out};
        run(k, 2, nt, 1, 1, &p);
        for (uint32_t t = 0; t < nt; t++)
            if (out[t] != want[t])
                fail_msg("block %u: out[%u] = %d, want %d", nt, t, out[t], want[t]);
    }
    ptxjit_module_unload(m);
}

static void test_uniform_barriers_entry(void **state)
{
    (void)state;
    ptxjit_module *m;
    const ptxjit_kernel *k = kernel(uniform_src, "shfl_sum", &m);
    enum { CTAS = 3 };
    /* whole warps only: a full member mask in a partial warp is undefined */
    static const uint32_t blocks[] = {32, 64, 96, 128, 256, 1024};
    static int32_t in[CTAS * 1024];
    for (int i = 0; i < CTAS * 1024; i++)
        in[i] = i * 11 % 23 - 9;
    for (size_t b = 0; b < sizeof blocks / sizeof *blocks; b++) {
        uint32_t nt = blocks[b], n = CTAS * nt - nt / 3; /* the last block partly out of range */
        int32_t out[CTAS];
        struct { int32_t *in, *out; uint32_t n; } p = {in, out, n};
        run(k, CTAS, nt, 1, 1, &p);
        for (uint32_t c = 0; c < CTAS; c++) {
            int32_t want = 0;
            for (uint32_t t = 0; t < nt; t++)
                want += c * nt + t < n ? in[c * nt + t] : 0;
            if (out[c] != want)
                fail_msg("block %u: out[%u] = %d, want %d", nt, c, out[c], want);
        }
    }
    ptxjit_module_unload(m);
}

static void test_uniform_barriers_apart(void **state)
{
    (void)state;
    check_thread_outputs("warpid_barriers", past_two_warps);
    check_thread_outputs("warpidx_barriers", past_two_warps);
    check_thread_outputs("if_body_gate", thread_40);
    /* a loop of thread-dependent trips: warps meet the barrier apart;
     * past the last barrier, they may part */
    check_thread_outputs("loop_before_barrier", trips);
    check_thread_outputs("loop_after_barrier", trips);
}

static void test_split_counters(void **state)
{
    (void)state;
    ptxjit_module *m;
    const ptxjit_kernel *k = kernel(iv_src, "iv_split", &m);
    enum { CTAS = 3, MAX_T = 256, MAX_STEPS = 5 };
    static const uint32_t shapes[][2] = {{24, 5}, {16, 16}, {32, 4}, {7, 3}};
    float in[CTAS * MAX_T * MAX_STEPS];
    for (uint32_t i = 0; i < sizeof in / sizeof *in; i++)
        in[i] = (float)(i % 11);
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
        for (uint32_t steps = 0; steps <= MAX_STEPS; steps += 5) {
            uint32_t bx = shapes[s][0], by = shapes[s][1], nt = bx * by, out[CTAS * MAX_T * 4];
            struct { float *in; uint32_t *out; uint32_t steps; } p = {in, out, steps};
            run(k, CTAS, bx, by, 1, &p);
            for (uint32_t g = 0; g < CTAS * nt; g++) {
                uint32_t t = g % nt;
                float f = 0;
                for (uint32_t i = 0; i < steps; i++)
                    f = (f + in[g + i * CTAS * nt]) * 2;
                uint32_t want[4] = {0, t - 3 * steps, 2 * (t % bx) + 5 * steps, t + 1000};
                memcpy(&want[0], &f, 4);
                for (int j = 0; j < 4; j++)
                    if (out[4 * g + j] != want[j])
                        fail_msg("block %ux%u, %u steps: out[4 * %u + %d] = %#x, want %#x", bx, by, steps, g, j,
                                 out[4 * g + j], want[j]);
            }
        }
    ptxjit_module_unload(m);
    k = kernel(iv_src, "iv_nested", &m);
    uint32_t vals[300], out[2 * 96];
    for (uint32_t i = 0; i < 300; i++)
        vals[i] = i * 7 % 13;
    static const uint32_t blocks[] = {32, 45, 96};
    for (size_t b = 0; b < sizeof blocks / sizeof *blocks; b++)
        for (uint32_t len = 0; len <= 300; len += 150) {
            uint32_t nt = blocks[b], reps = 3;
            struct { uint32_t *in, *out; uint32_t m, len; } p = {vals, out, reps, len};
            run(k, 1, nt, 1, 1, &p);
            for (uint32_t t = 0; t < nt; t++) {
                uint32_t sum = 0, i = t;
                for (; i < len; i += nt)
                    sum += reps * vals[i];
                if (out[2 * t] != sum || out[2 * t + 1] != i)
                    fail_msg("block %u, len %u: thread %u got %u, %u, want %u, %u", nt, len, t, out[2 * t],
                             out[2 * t + 1], sum, i);
            }
        }
    ptxjit_module_unload(m);
}

static void test_smaller_specialized_frame(void **state)
{
    (void)state;
    ptxjit_module *m;
    const ptxjit_kernel *k = kernel(warp_frame_src, "warp_frame", &m);
    static const uint32_t blocks[] = {64, 96, 256, 45};
    for (size_t b = 0; b < sizeof blocks / sizeof *blocks; b++) {
        uint32_t nt = blocks[b], out[256];
        struct { uint32_t *out; uint32_t n; } p = {out, 4};
        run(k, 2, nt, 1, 1, &p);
        for (uint32_t t = 0; t < nt; t++)
            if (out[t] != (t >> 5) * 81)
                fail_msg("block %u: out[%u] = %u, want %u", nt, t, out[t], (t >> 5) * 81);
    }
    ptxjit_module_unload(m);
}

static void test_lanes_leave_loops(void **state)
{
    (void)state;
    ptxjit_module *m;
    const ptxjit_kernel *k = kernel(leave_src, "leave_count", &m);
    static const uint32_t blocks[] = {32, 45, 96};
    for (size_t b = 0; b < sizeof blocks / sizeof *blocks; b++) {
        uint32_t nt = blocks[b], out[2 * 96];
        struct { uint32_t *out; } p = {out};
        run(k, 1, nt, 1, 1, &p);
        for (uint32_t t = 0; t < nt; t++)
            if (out[2 * t] != t % 5 + 1 || out[2 * t + 1] != t + 7 * (t % 5 + 1))
                fail_msg("block %u: thread %u got %u, %u, want %u, %u", nt, t, out[2 * t], out[2 * t + 1], t % 5 + 1,
                         t + 7 * (t % 5 + 1));
    }
    ptxjit_module_unload(m);
}

static void test_warps_skip_regions(void **state)
{
    (void)state;
    ptxjit_module *m;
    const ptxjit_kernel *k = kernel(skip_src, "skip_warps", &m);
    static const uint32_t shapes[][2] = {{256, 1}, {16, 16}, {64, 4}, {32, 4}, {128, 1}, {20, 8}, {25, 6}};
    for (size_t b = 0; b < sizeof shapes / sizeof *shapes; b++) {
        uint32_t bx = shapes[b][0], by = shapes[b][1], n = bx * by, in[256], out[257], sh[256];
        for (uint32_t t = 0; t < n; t++)
            in[t] = sh[t] = t * 7 + 3;
        for (uint32_t t = 0; t < 64; t++) /* n >= 128 */
            sh[t] += in[t + 64];
        for (uint32_t t = 0; t < n; t++)
            sh[t] += ((t & 96) == 96) + 2 * (t / bx != 0) + 4 * (t < 32);
        struct { uint32_t *in, *out; } p = {in, out};
        run(k, 2, bx, by, 1, &p);
        for (uint32_t t = 0; t < n; t++)
            if (out[t] != sh[t] + 2 * in[t] + 5)
                fail_msg("block %ux%u: out[%u] = %u, want %u", bx, by, t, out[t], sh[t] + 2 * in[t] + 5);
        if (out[n] != sh[0])
            fail_msg("block %ux%u: out[%u] = %u, want %u", bx, by, n, out[n], sh[0]);
    }
    ptxjit_module_unload(m);
}

static void test_lanes_leave_around_barriers(void **state)
{
    (void)state;
    ptxjit_module *m;
    const ptxjit_kernel *k = kernel(hist_src, "hist_leave", &m);
    static const uint32_t blocks[] = {32, 45, 96, 256};
    static const uint32_t sizes[] = {0, 1000, 4099};
    uint8_t in[4099];
    for (uint32_t i = 0; i < sizeof in; i++)
        in[i] = (uint8_t)(i * 2654435761u >> 24);
    for (size_t b = 0; b < sizeof blocks / sizeof *blocks; b++)
        for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
            uint32_t out[64] = {0}, want[64] = {0}, n = sizes[z];
            for (uint32_t i = 0; i < n; i++)
                want[in[i] & 63]++;
            struct { uint8_t *in; uint32_t n; uint32_t *out; } p = {in, n, out};
            run(k, 3, blocks[b], 1, 1, &p);
            for (uint32_t i = 0; i < 64; i++)
                if (out[i] != want[i])
                    fail_msg("block %u, n %u: bin %u = %u, want %u", blocks[b], n, i, out[i], want[i]);
        }
    ptxjit_module_unload(m);
}

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* add.f32 as the GPU does it: a NaN operand gives the canonical NaN. */
static uint32_t gpu_add(uint32_t a, uint32_t b)
{
    float x, y;
    memcpy(&x, &a, 4), memcpy(&y, &b, 4);
    return x != x || y != y ? 0x7fffffffu : f32_bits(x + y);
}

static void test_forwarded_tree_nan_bits(void **state)
{
    (void)state;
    ptxjit_module *m;
    const ptxjit_kernel *k = kernel(ftree_src, "ftree", &m);
    uint32_t in[64], out[64], sh[64];
    for (uint32_t t = 0; t < 64; t++)
        in[t] = f32_bits((float)t * 0.75f - 9.0f);
    in[5] = 0x7fa00001u;  /* a quiet NaN with a payload: sums of it are 0x7fffffff */
    in[40] = 0x7f800123u; /* a signaling NaN: copied as it is, summed canonical */
    memcpy(sh, in, sizeof sh);
    for (uint32_t s = 32; s; s /= 2)
        for (uint32_t t = 0; t < s; t++)
            sh[t] = gpu_add(sh[t], sh[t + s]);
    sh[32] = sh[0];
    struct { uint32_t *in, *out; } p = {in, out};
    run(k, 1, 64, 1, 1, &p);
    for (uint32_t t = 0; t < 64; t++)
        if (out[t] != sh[t])
            fail_msg("s[%u] = %#x, want %#x", t, out[t], sh[t]);
    assert_int_equal(sh[0], 0x7fffffffu);
    assert_int_equal(sh[40], 0x7f800123u);
    ptxjit_module_unload(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_barrier_in_uniform_loop),
        cmocka_unit_test(test_bar_red_after_exit),
        cmocka_unit_test(test_cta_loop_hands_over),
        cmocka_unit_test(test_cta_loop_mixed_resume),
        cmocka_unit_test(test_fibers_only_where_warps_wait),
        cmocka_unit_test(test_local_memory_falls_back_to_fibers),
        cmocka_unit_test(test_tile_rows),
        cmocka_unit_test(test_tid_in_block_shapes),
        cmocka_unit_test(test_reused_registers),
        cmocka_unit_test(test_pitched_rows),
        cmocka_unit_test(test_pitched_tiles),
        cmocka_unit_test(test_step_after_reuse),
        cmocka_unit_test(test_wrapping_rows),
        cmocka_unit_test(test_wrapped_pitched_tiles),
        cmocka_unit_test(test_misaligned_shapes),
        cmocka_unit_test(test_grid_stride_prefetch),
        cmocka_unit_test(test_shared_atomics_lane_order),
        cmocka_unit_test(test_run_time_address_classes),
        cmocka_unit_test(test_uniform_from_lane_ops),
        cmocka_unit_test(test_converged_if_bodies),
        cmocka_unit_test(test_full_warp_copies),
        cmocka_unit_test(test_uniform_with_several_defs),
        cmocka_unit_test(test_uniform_barriers_tree),
        cmocka_unit_test(test_uniform_barriers_apart),
        cmocka_unit_test(test_uniform_barriers_straight),
        cmocka_unit_test(test_uniform_barriers_split),
        cmocka_unit_test(test_uniform_barriers_exit),
        cmocka_unit_test(test_uniform_barriers_leave),
        cmocka_unit_test(test_uniform_barriers_remat_gate),
        cmocka_unit_test(test_uniform_barriers_warp0),
        cmocka_unit_test(test_warp_index_in_row),
        cmocka_unit_test(test_uniform_barriers_entry),
        cmocka_unit_test(test_split_counters),
        cmocka_unit_test(test_smaller_specialized_frame),
        cmocka_unit_test(test_lanes_leave_loops),
        cmocka_unit_test(test_warps_skip_regions),
        cmocka_unit_test(test_lanes_leave_around_barriers),
        cmocka_unit_test(test_forwarded_tree_nan_bits),
    };
    return cmocka_run_group_tests(tests, test_ctx_setup, test_ctx_teardown);
}
