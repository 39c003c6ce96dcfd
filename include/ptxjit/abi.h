/* abi.h - the contract between generated code and the runtime.
 *
 * A kernel compiles to one "warp function" per .entry, which runs the 32
 * lanes of one warp as SIMD vectors until they all exit (or it blocks in a
 * runtime call such as a barrier, which switches fibers).  The generated
 * code reaches the runtime only through the ptxjit_rt_* entry points below
 * and the structures here; lower/ includes no other runtime header. */
#ifndef PTXJIT_ABI_H
#define PTXJIT_ABI_H

#include <stdint.h>

#define PTXJIT_WARP_SIZE 32

/* Per-launch constants, shared by every CTA of a grid. */
typedef struct ptxjit_grid {
    uint32_t nctaid[3];
    uint32_t ntid[3];
    uint32_t dynamic_smem;   /* bytes of dynamic shared memory */
    uint32_t nthreads;       /* ntid.x * ntid.y * ntid.z */
    const void *params;      /* kernel parameters, laid out as CUDA lays them out */
    void *rt;                /* the runtime's launch object (opaque here) */
    uint32_t envreg[32];     /* %envreg0..31: the grid barrier's workspace address in
                                envreg1 (high) and envreg2 (low) for cooperative
                                launches, otherwise 0 */
    const uint32_t *tids;    /* %tid of every thread, computed once per launch: for
                                warp w, x of its 32 lanes at tids[96 w], then y, then z
                                (64-byte aligned) */
} ptxjit_grid;

/* Per-CTA state; one per worker, reused from CTA to CTA. */
typedef struct ptxjit_cta {
    const ptxjit_grid *launch;
    uint32_t ctaid[3];
    uint32_t nwarps;
    uint64_t cta_linear;     /* ctaid.x + nctaid.x * (ctaid.y + nctaid.y * ctaid.z) */
    char *shared;            /* shared window: static variables, then dynamic */
    void *worker;            /* the runtime's per-worker object (opaque here) */
    char *frames;            /* resumable kernels: the warps' frames, frame_size bytes each */
    uint32_t whole;          /* set to 1 by a CTA loop that ran the CTA whole (every warp
                                exited); such code never reads a frame's header */
    uint32_t row_ctas;       /* PTXJIT_WARP_ROW calls: how many CTAs of the row to run */
} ptxjit_cta;

/* The start of a resumable kernel's warp frame.  A kernel whose CTA
 * barriers all lie in its own body compiles so that a warp reaching a
 * barrier saves what it needs into its frame and returns, instead of
 * switching fibers: the runtime runs the CTA's warps in a loop, calls
 * each again once its barrier completed, and the warp continues where it
 * left off.  The rest of the frame belongs to the generated code. */
typedef struct ptxjit_warp_frame {
    uint32_t resume;         /* 0: start (runtime) / exited (code); else waiting */
    uint32_t op, id, threads, value; /* the barrier it waits at, as for ptxjit_rt_bar */
    uint32_t red;            /* bar.red's result, set by the runtime before the call */
    uint32_t lanes;          /* code only: the lanes that executed the barrier */
    uint32_t pad;
} ptxjit_warp_frame;

/* Field offsets used by the generated code (checked by a test). */
#define PTXJIT_GRID_NCTAID 0
#define PTXJIT_GRID_NTID 12
#define PTXJIT_GRID_DYNAMIC_SMEM 24
#define PTXJIT_GRID_NTHREADS 28
#define PTXJIT_GRID_PARAMS 32
#define PTXJIT_GRID_ENVREG 48
#define PTXJIT_GRID_TIDS 176
#define PTXJIT_CTA_GRID 0
#define PTXJIT_CTA_CTAID 8
#define PTXJIT_CTA_NWARPS 20
#define PTXJIT_CTA_LINEAR 24
#define PTXJIT_CTA_SHARED 32
/* The CTA's shared window (ptxjit_cta.shared) starts at a multiple of this,
 * which generated code may assume (alignment checks then fold away). */
#define PTXJIT_SHARED_ALIGN 64
#define PTXJIT_CTA_FRAMES 48
#define PTXJIT_CTA_WHOLE 56
#define PTXJIT_CTA_ROW_CTAS 60
#define PTXJIT_FRAME_RESUME 0
#define PTXJIT_FRAME_OP 4
#define PTXJIT_FRAME_ID 8
#define PTXJIT_FRAME_THREADS 12
#define PTXJIT_FRAME_VALUE 16
#define PTXJIT_FRAME_RED 20
#define PTXJIT_FRAME_LANES 24

/* The compiled form of a .entry: runs warp `warp` of the CTA. */
typedef void (*ptxjit_warp_fn)(ptxjit_cta *cta, uint32_t warp);

/* The `warp` that runs a resumable kernel's whole CTA from its start: each
 * live warp in turn until it waits or exits (a sweep), sweep after sweep
 * while every live warp of a sweep waits at the same plain barrier (a
 * constant id, no thread count, no bar.red, no bar.arrive in the kernel),
 * which then completes without the runtime.  It returns when every warp
 * exited or after a sweep that ended otherwise; the frames then hold each
 * warp's state (resume 0: exited) for the runtime to go on from, except
 * where the code set ptxjit_cta.whole: it ran the CTA whole and keeps no
 * frame header (the runtime then sets none up for the launch's later
 * CTAs either). */
#define PTXJIT_WARP_CTA_LOOP 0x80000000u

/* Or'ed into `warp`: the call runs ptxjit_cta.row_ctas CTAs (at most
 * PTXJIT_ROW_MAX), the CTA given (ctaid, cta_linear) and those after it
 * in its grid row, adding 1 to cta_linear between them (ctaid stays the
 * first's).  A plain warp: that warp of each CTA (the runtime's warps in
 * rows, for kernels whose warps cannot see one another).  With
 * PTXJIT_WARP_CTA_LOOP: each CTA whole, in turn; the call returns early
 * after a CTA that did not run whole (ptxjit_cta.whole 0), which
 * cta_linear then names. */
#define PTXJIT_WARP_ROW 0x40000000u
#define PTXJIT_ROW_MAX (1u << 22)

/* CTA barrier operations (the `op` of ptxjit_rt_bar).  A warp arrives as
 * a whole (the ISA counts barrier threads by warps); `value` is the warp's
 * bar.red contribution: its count of true lanes (popc) or 0/1 (and, or). */
enum {
    PTXJIT_BAR_SYNC,           /* arrive, wait for the barrier to complete */
    PTXJIT_BAR_ARRIVE,         /* arrive only */
    PTXJIT_BAR_RED_POPC,       /* arrive with a value, wait, return the reduction */
    PTXJIT_BAR_RED_AND,
    PTXJIT_BAR_RED_OR,
    PTXJIT_BAR_CLUSTER_ARRIVE, /* barrier.cluster.arrive (a cluster is one CTA) */
    PTXJIT_BAR_CLUSTER_WAIT,   /* barrier.cluster.wait: the phase arrived at completes */
    PTXJIT_BAR_RED_SPLIT,      /* bar.red reached by a warp's lanes at different instructions:
                                  an error (id: the PTX line) */
};

/* mbarrier operations (the `op` of ptxjit_rt_mbarrier) on the 64-bit
 * object in shared memory; `arg` is the count (init, arrive, arrive_drop)
 * or the tx-count (expect_tx, complete_tx, the .expect_tx arrives) or the
 * state token / phase parity (tests).  Arrives return the state token:
 * the parity of the phase arrived on in bit 63 and the pending arrival
 * count after the arrive in the bits of PTXJIT_MBAR_TOKEN_COUNT.  Tests
 * return 1 when that phase has completed. */
enum {
    PTXJIT_MBAR_INIT,
    PTXJIT_MBAR_INVAL,
    PTXJIT_MBAR_ARRIVE,
    PTXJIT_MBAR_ARRIVE_DROP,
    PTXJIT_MBAR_ARRIVE_TX,      /* arrive.expect_tx: expect `arg`, arrive once */
    PTXJIT_MBAR_ARRIVE_DROP_TX, /* arrive_drop.expect_tx */
    PTXJIT_MBAR_EXPECT_TX,
    PTXJIT_MBAR_COMPLETE_TX,
    PTXJIT_MBAR_TEST,           /* arg: a state token */
    PTXJIT_MBAR_TEST_PARITY,    /* arg: a phase parity */
};
#define PTXJIT_MBAR_TOKEN_COUNT 0xFFFFFu

/* Texture and surface instructions (tex, tld4, txq, suld, sust, sured,
 * suq, istypep) are calls of ptxjit_rt_texture over a warp's active lanes:
 * `op` points to PTXJIT_TEXOP_COUNT words describing the instruction (a
 * constant of the generated code), handles[32] and samplers[32] are the
 * lanes' texture/surface handles (a CUtexObject/CUsurfObject, or the value
 * of a .texref/.surfref variable) and explicit samplers (0: none),
 * args[PTXJIT_TEXARG_COUNT][32] the lanes' operands as raw 32-bit words
 * and out[8][32] receives the results. */
enum {
    PTXJIT_TEXOP_KIND,    /* PTXJIT_TEX_* */
    PTXJIT_TEXOP_GEOM,    /* PTXJIT_GEOM_* */
    PTXJIT_TEXOP_MODE,    /* 0 base, 1 level, 2 grad */
    PTXJIT_TEXOP_CFLOAT,  /* tex coordinates are .f32 (else .s32) */
    PTXJIT_TEXOP_DTYPE,   /* PTXJIT_TEXD_*: tex/tld4 results; sured's type */
    PTXJIT_TEXOP_COMP,    /* tld4: 0..3 = r g b a */
    PTXJIT_TEXOP_QUERY,   /* txq/suq: PTXJIT_Q_* */
    PTXJIT_TEXOP_CLAMP,   /* surfaces: 0 trap, 1 clamp, 2 zero */
    PTXJIT_TEXOP_FORMATTED, /* sust.p / sured.p */
    PTXJIT_TEXOP_VEC,     /* surfaces: 1, 2 or 4 elements */
    PTXJIT_TEXOP_ESIZE,   /* surfaces: element bytes 1, 2, 4, 8 */
    PTXJIT_TEXOP_RED,     /* sured: PTXJIT_SURED_* */
    PTXJIT_TEXOP_OFFSET,  /* tex/tld4: texel offsets given */
    PTXJIT_TEXOP_LINE,    /* PTX line, for faults */
    PTXJIT_TEXOP_COUNT
};
enum { PTXJIT_TEX_TEX, PTXJIT_TEX_TLD4, PTXJIT_TEX_TXQ, PTXJIT_TEX_SULD, PTXJIT_TEX_SUST, PTXJIT_TEX_SURED,
       PTXJIT_TEX_SUQ, PTXJIT_TEX_ISTYPEP_TEX, PTXJIT_TEX_ISTYPEP_SAMPLER, PTXJIT_TEX_ISTYPEP_SURF };
enum { PTXJIT_GEOM_1D = 1, PTXJIT_GEOM_2D, PTXJIT_GEOM_3D, PTXJIT_GEOM_A1D, PTXJIT_GEOM_A2D, PTXJIT_GEOM_CUBE,
       PTXJIT_GEOM_ACUBE, PTXJIT_GEOM_2DMS, PTXJIT_GEOM_A2DMS };
enum { PTXJIT_TEXD_F32, PTXJIT_TEXD_S32, PTXJIT_TEXD_U32, PTXJIT_TEXD_F16X2, PTXJIT_TEXD_S64, PTXJIT_TEXD_U64 };
enum { PTXJIT_Q_WIDTH, PTXJIT_Q_HEIGHT, PTXJIT_Q_DEPTH, PTXJIT_Q_CHANNEL_DATA_TYPE, PTXJIT_Q_CHANNEL_ORDER,
       PTXJIT_Q_NORMALIZED_COORDS, PTXJIT_Q_ARRAY_SIZE, PTXJIT_Q_NUM_MIPMAP_LEVELS, PTXJIT_Q_NUM_SAMPLES,
       PTXJIT_Q_FORCE_UNNORMALIZED_COORDS, PTXJIT_Q_FILTER_MODE, PTXJIT_Q_ADDR_MODE_0, PTXJIT_Q_ADDR_MODE_1,
       PTXJIT_Q_ADDR_MODE_2, PTXJIT_Q_MEMORY_LAYOUT };
enum { PTXJIT_SURED_ADD, PTXJIT_SURED_MIN, PTXJIT_SURED_MAX, PTXJIT_SURED_AND, PTXJIT_SURED_OR };
/* args rows: coordinates, lod (txq.level: the level), gradients, offsets,
 * then the stored or reduced value (up to 8 words: .v4.b64). */
enum { PTXJIT_TEXARG_COORD = 0, PTXJIT_TEXARG_LOD = 4, PTXJIT_TEXARG_DPDX = 5, PTXJIT_TEXARG_DPDY = 8,
       PTXJIT_TEXARG_OFFSET = 11, PTXJIT_TEXARG_VALUE = 14, PTXJIT_TEXARG_COUNT = 22 };

/* A .samplerref variable initialized in the module ({ addr_mode_0 = wrap,
 * filter_mode = linear, ... }) holds its state in the handle itself: the
 * tag bit, CUDA address modes in bits 0-2, 3-5 and 6-8, the filter mode in
 * bit 9 and force_unnormalized_coords in bit 10. */
#define PTXJIT_SAMPLER_TAG (1ull << 63)
enum { PTXJIT_SAMPLER_FILTER_SHIFT = 9, PTXJIT_SAMPLER_UNNORMALIZED_SHIFT = 10 };

/* Runtime entry points, resolved by name when code is loaded. */
#define PTXJIT_RT_ENTRY_POINTS(X)                                                                  \
    X(ptxjit_rt_bar, uint32_t, (ptxjit_cta * cta, uint32_t warp, uint32_t id, uint32_t threads,    \
                                uint32_t op, uint32_t value))                                     \
    X(ptxjit_rt_yield, void, (ptxjit_cta * cta, uint32_t warp))                                    \
    X(ptxjit_rt_mbarrier, uint64_t, (uint64_t * bar, uint32_t op, uint64_t arg))                   \
    X(ptxjit_rt_local_window, void, (ptxjit_cta * cta, uint32_t warp, uint64_t * bounds))          \
    X(ptxjit_rt_vprintf, int32_t, (ptxjit_cta * cta, uint32_t thread, const char *fmt,            \
                                   const void *args))                                             \
    X(ptxjit_rt_trap, void, (ptxjit_cta * cta, uint32_t line))                                     \
    X(ptxjit_rt_barrier_diverged, void, (ptxjit_cta * cta, uint32_t line))                         \
    X(ptxjit_rt_bulk_misaligned, void, (ptxjit_cta * cta, uint32_t line))                          \
    X(ptxjit_rt_misaligned, void, (ptxjit_cta * cta, uint32_t line, uint64_t addr,                 \
                                   uint32_t align))                                               \
    X(ptxjit_rt_assertfail, void, (ptxjit_cta * cta, uint32_t thread, const char *msg,             \
                                   const char *file, uint32_t line, const char *func))            \
    X(ptxjit_rt_clock64, uint64_t, (void))                                                         \
    X(ptxjit_rt_globaltimer, uint64_t, (void))                                                     \
    X(ptxjit_rt_malloc, void *, (uint64_t size))                                                   \
    X(ptxjit_rt_free, void, (void *p))                                                             \
    X(ptxjit_rt_texture, void, (ptxjit_cta * cta, const uint32_t *op, uint32_t mask,               \
                                const uint64_t *handles, const uint64_t *samplers,                \
                                const uint32_t *args, uint32_t *out))

/* Vector math the generated code calls, by glibc libmvec's names and
 * vector ABI: _ZGV<isa>N<lanes>v_<name> with isa b (SSE, 4 lanes), d
 * (AVX2, 8 lanes) or e (AVX-512, 16 lanes), e.g. _ZGVdN8v_sinf(__m256).  The runtime binds them to
 * libmvec, or to loops over libm where libmvec lacks one. */
#define PTXJIT_VECMATH(X) X(sinf) X(cosf) X(exp2f) X(log2f) X(tanhf)

#endif
