/* lower_internal.h - state shared by the lowering files (internal). */
#ifndef PTXJIT_LOWER_INTERNAL_H
#define PTXJIT_LOWER_INTERNAL_H

#include "lower.h"
#include "ptxjit/abi.h"

#define W PTXJIT_WARP_SIZE

/* Block index sentinels held in a lane's "pc": exited lanes, and lanes
 * that returned from a .func (waiting for the others). */
#define PC_EXIT 0xFFFFFFFFu
#define PC_RET 0xFFFFFFFEu

typedef struct ptrmap {
    const void **keys;
    void **vals;
    uint32_t n, cap;
} ptrmap;

void *ptrmap_get(const ptrmap *m, const void *key);
void ptrmap_put(ptrmap *m, const void *key, void *val);
void ptrmap_free(ptrmap *m);

/* Module-wide state. */
typedef struct lw {
    LLVMContextRef ctx;
    LLVMModuleRef mod;
    LLVMBuilderRef b;
    const ptx_module *m;
    lower_options opts;
    ptx_diags *diags;
    uint32_t errors;
    LLVMTypeRef i1, i8, i16, i32, i64, f16, bf16, f32, f64, ptr, voidt;
    ptrmap globals;      /* ptx_var* -> LLVM global (global/const space) */
    ptrmap shared_off;   /* ptx_var* -> (void*)(offset + 1) in the shared window */
    const ptrmap *need;  /* a kernel lowered alone: its functions and .shared variables */
    ptrmap funcs;        /* ptx_func* -> LLVMValueRef */
    uint32_t static_smem, dyn_smem_align;
    lower_global *globals_out; /* exported variables, for lower_result */
    uint32_t nglobals, capglobals;
    char vm_isa;         /* libmvec variant: 'e' (AVX-512, 16 lanes), 'd' (AVX2, 8), 'b' (SSE, 4) */
    unsigned vm_width;
} lw;

/* Storage of one register (or one element of a %r<N> family). */
typedef struct reg_slot {
    LLVMValueRef alloca;
    LLVMTypeRef type;    /* <32 x iN> or <32 x i1> */
    bool blend;          /* live into some block: writes keep inactive lanes */
    bool uniform;        /* one value for all lanes: a scalar alloca */
} reg_slot;

/* Per-function state. */
typedef struct fn {
    lw *L;
    const ptx_func *f;
    LLVMValueRef fn;
    bool is_entry;
    LLVMValueRef cta, warp;      /* arguments */
    LLVMValueRef row_off;        /* the CTA's place in its row's call (lower_rows.c): i32 */
    LLVMValueRef pc;             /* alloca <32 x i32>: each lane's next block */
    LLVMValueRef sched;          /* alloca i32: dispatch counter (fairness) */
    LLVMValueRef parked, forced; /* alloca i32 lane sets: waiting at a sync point; let through once */
    LLVMValueRef mask;           /* mask of the block being lowered: <32 x i1> */
    LLVMValueRef entry_mask;     /* lanes present at function entry */
    LLVMBasicBlockRef dispatch, done;
    LLVMBasicBlockRef *blocks;   /* LLVM block per PTX block: entered with lanes at several blocks */
    LLVMBasicBlockRef *conv;     /* its converged entry: every pending lane is there (lower_control.c) */
    LLVMValueRef mask_slot;      /* alloca <32 x i1>: the block's lanes, set by whoever enters it */
    LLVMValueRef conv_slot;      /* alloca i1: entered converged (the pc vector is stale for its lanes) */
    LLVMValueRef converged;      /* the block's conv_slot value */
    uint32_t *if_join;           /* per block: join + 1 when it is a plain if-body falling into join, else 0 */
    uint32_t *if_first;          /* per block: its first statement */
    uint8_t *whole_warp;         /* per block: every warp runs it with all its live lanes (lower_live.c), or NULL */
    uint32_t full_copied;        /* instructions lowered twice for full warps so far (lower_full.c) */
    uint32_t *block_of_stmt;     /* statement index -> PTX block (priority order) */
    uint32_t *next_block;        /* fall-through successor of each block (or PC_EXIT/PC_RET) */
    uint8_t *sync_block;         /* the block holds a sync point: no fairness pick (lower_converge.c) */
    uint8_t *park_block;         /* the block starts with a sync point whose lanes may park there */
    uint8_t *cta_barrier_block;  /* the block starts with a CTA barrier */
    LLVMValueRef bar_done;       /* alloca i32: lanes whose warp arrived at a barrier for them */
    uint8_t *from_later;         /* a block of higher number can reach the block (lower_cfg.c) */
    uint8_t *may_repeat;         /* from_later, or the block reaches itself: it may run again */
    bool parking;                /* some block parks lanes */
    uint32_t nblocks;
    uint32_t cur_block;          /* the block being lowered */
    ptrmap regs;                 /* ptx_var* -> reg_slot[] (one per element) */
    ptrmap params;               /* ptx_var* (.param of a .func or call site) -> per-lane storage */
    ptrmap locals;               /* ptx_var* (.local) -> per-lane storage */
    ptrmap live;                 /* ptx_var* -> liveness facts (lower_live.c) */
    ptrmap nan;                  /* ptx_var* -> per element: NaN bits never seen (lower_nan.c) */
    LLVMValueRef lane;           /* <32 x i32> 0..31 */
    LLVMValueRef sregs[PTX_SREG_COUNT][4];
    LLVMValueRef params_base;    /* kernel parameter buffer (entries) */
    LLVMValueRef shared_base;    /* CTA shared window */
    LLVMValueRef local_top;      /* i64: the warp's stack top, lazily (32-bit .local addresses) */
    LLVMValueRef alloca_ip;      /* allocas go before this in the entry block */
    bool prefetching;            /* a global load being lowered: it prefetches (lower_mem.c) */
    LLVMValueRef prefetch;       /* and its site's slot for strides, or NULL */
    uint32_t stride_sites;       /* slots made so far */
    LLVMValueRef carry;          /* carry flag of add.cc/addc chains, <32 x i1>, lazily */
    uint32_t ntid[3];            /* the block shape, when known at compile time (else 0) */
    bool resumable;              /* barriers return to the runtime (lower_resume.c) */
    LLVMValueRef frame_size;     /* resumable: constant global, set once the frame is laid out */
    LLVMBasicBlockRef save, restore;
    LLVMBasicBlockRef warp_exit; /* resumable: where an exiting warp goes (resume_finish fills it) */
    LLVMValueRef cta_loop;       /* resumable: i1, called with PTXJIT_WARP_CTA_LOOP */
    LLVMValueRef loop_warp, todo, wait_code, wait_conv, sweep_bar, sweep_ok, sweep_live, exited; /* its state (allocas) */
    LLVMBasicBlockRef warp_top, warp_next, cta_more, cta_return;
    bool bar_arrives;            /* resumable: the kernel has bar.arrive (no barrier completes in code) */
    LLVMValueRef sweep_from;     /* resumable: alloca, the resume point a sweep's warps start at (uniform barriers) */
    LLVMBasicBlockRef resume_pick, resume_start; /* resumable: where a warp's call starts, filled at the end */
    LLVMValueRef *wait_lanes;    /* resumable: a converged plain wait's lanes (bits), for its frame */
    LLVMBasicBlockRef *uniform_check; /* uniform barriers: each converged wait's CTA-loop step */
    uint32_t *pair_after;        /* uniform barriers: the barrier a resume point's region pairs to (lower_resume.c) */
    uint32_t entry_group;        /* uniform barriers: the barrier the first block's region pairs to, or UINT32_MAX */
    ptrmap warp_values;          /* resumable: registers computed from the warp index (uniform in a warp only) */
    LLVMValueRef entry_grouped;  /* uniform barriers: alloca, i1: the CTA's fresh warps went to entry_group */
    const ptx_instr **waits;     /* resumable: the barrier of each resume point */
    uint32_t *wait_next;         /* resumable: the block each resume point continues at */
    LLVMBasicBlockRef *wait_save; /* resumable: a converged plain wait's own save block, else NULL */
    uint32_t *wait_block;        /* resumable: the block of each resume point's barrier */
    uint32_t nwaits;
    uint64_t *live_in;           /* resumable: registers live into each block (lower_live.c) */
    uint32_t live_words;         /* 64-bit words per block in live_in */
    ptrmap fwd_read;             /* operand* -> the copy's operand it reads (lower_forward.c) */
    ptrmap fwd_copy;             /* ptx_instr* -> its copy */
    void **fwd_owned;            /* the copies' allocations */
    uint32_t nfwd_owned;
    ptrmap iv_sums;              /* ptx_instr* of each T = B + O (lower_induction.c) */
    void **iv_owned;             /* the rewritten body's allocations */
    uint32_t niv_owned;
    LLVMValueRef tex_buf;        /* staging buffer of the texture calls (lower_tex.c), lazily */
} fn;

/* lower.c */
void lw_error(lw *L, ptx_loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
LLVMTypeRef vec_of(LLVMTypeRef t);
LLVMValueRef splat(lw *L, LLVMValueRef scalar);
LLVMValueRef const_i32(lw *L, uint32_t v);
LLVMValueRef const_i64(lw *L, uint64_t v);
LLVMValueRef entry_alloca(fn *F, LLVMTypeRef t, const char *name);
LLVMValueRef call_intrinsic(lw *L, const char *name, LLVMTypeRef *types, unsigned ntypes,
                            LLVMValueRef *args, unsigned nargs);
LLVMValueRef declare_rt(lw *L, const char *name, LLVMTypeRef ret, LLVMTypeRef *params,
                        unsigned nparams);
LLVMValueRef weighted_branch(lw *L, LLVMValueRef cond, LLVMBasicBlockRef yes, LLVMBasicBlockRef no,
                             uint32_t yes_w, uint32_t no_w);
enum { BRANCH_RARE = 1, BRANCH_USUAL = 1u << 20 }; /* weights: a slow path against the fast one */
LLVMValueRef mask_and(fn *F, LLVMValueRef a, LLVMValueRef b);
LLVMValueRef load_field(fn *F, LLVMValueRef base, uint32_t offset, LLVMTypeRef t);
LLVMValueRef mask_bits(fn *F, LLVMValueRef mask); /* <32 x i1> -> i32 */
/* Runs body(lane) for each lane in mask, in lane order, as a scalar loop. */
typedef void (*lane_fn)(fn *F, LLVMValueRef lane, void *ctx);
void for_each_lane(fn *F, LLVMValueRef mask, lane_fn body, void *ctx);

/* The LLVM type of a .func (or .callprototype): i32 (ptr, i32, i32, ptr...). */
LLVMTypeRef lower_func_type(lw *L, const ptx_func *f);

/* lower_value.c: registers, operands, special registers */
LLVMTypeRef scalar_type(lw *L, ptx_type t);     /* the arithmetic type: iN, float, double, half */
LLVMTypeRef storage_int(lw *L, ptx_type t);     /* iN of the type's size (i1 for pred) */
ptx_type bit_type_of_size(uint32_t bytes);      /* .b8 .b16 .b32 .b64 .b128 */
LLVMValueRef read_opd(fn *F, const ptx_operand *o, ptx_type t, bool sign_extend);
void write_reg(fn *F, const ptx_operand *o, LLVMValueRef v, ptx_type t, bool sign_extend,
               LLVMValueRef mask);
LLVMValueRef read_sreg(fn *F, const ptx_operand *o);
LLVMValueRef to_type(fn *F, LLVMValueRef v, ptx_type from, ptx_type to, bool sign_extend);
void init_sregs(fn *F);
LLVMValueRef current_warp(fn *F);

/* lower_mem.c */
LLVMValueRef address_of(fn *F, const ptx_instr *in, const ptx_operand *a, uint8_t space);
LLVMValueRef var_address(fn *F, const ptx_operand *o, ptx_loc loc);
bool lower_mem(fn *F, const ptx_instr *in, LLVMValueRef mask);
bool is_polling_access(const ptx_instr *in);
void yield_before_poll(fn *F, const ptx_instr *in);
LLVMValueRef masked_load(fn *F, LLVMValueRef ptrs, LLVMTypeRef elem, uint32_t align,
                         LLVMValueRef mask);
void masked_store(fn *F, LLVMValueRef ptrs, LLVMValueRef val, uint32_t align, LLVMValueRef mask);
LLVMValueRef param_storage(fn *F, const ptx_var *v);
uint64_t decl_size(const ptx_var *v);                            /* bytes of a variable */
uint32_t decl_align(const ptx_var *v);                           /* .align, else natural */
uint64_t lane_stride(const ptx_var *v); /* bytes between lanes' copies of a per-lane variable */
uint64_t kernel_param_offset(const ptx_func *f, const ptx_var *v); /* CUDA's layout */
LLVMValueRef dyn_smem_offset(lw *L);   /* i64: where dynamic shared memory starts */

/* lower_shape.c: address shapes known at compile time */
void shape_branch(fn *F, LLVMValueRef addrs, LLVMValueRef mask, LLVMBasicBlockRef known,
                  LLVMBasicBlockRef runtime);
LLVMValueRef shape_load(fn *F, LLVMValueRef addrs, LLVMTypeRef elem, uint32_t align, LLVMValueRef mask);
/* How a global load prefetches (shape_load's last operand): not at all;
 * its first row ahead; each row (a loop's site); a stream of contiguous
 * warps, far ahead (lower_mem.c, prefetch_plan). */
enum prefetch_plan { PREFETCH_NONE, PREFETCH_FIRST_ROW, PREFETCH_EACH_ROW, PREFETCH_STREAM };
enum prefetch_plan prefetch_plan(fn *F);
/* A global load's prefetch (lower_mem.c): `last` is its site's slot (or
 * NULL: none), a lane 0's address (i64), span the bytes a warp's
 * consecutive access covers.  Returns the distance prefetched ahead by
 * the site's stride (i64, 0 when no stride was seen), or NULL without a
 * slot; prefetch_stepped prefetches another row of the access that far. */
LLVMValueRef prefetch_ahead(lw *L, LLVMValueRef last, LLVMValueRef a, uint32_t span, enum prefetch_plan plan);
void prefetch_stepped(lw *L, LLVMValueRef a, LLVMValueRef ahead, uint32_t span);
/* A known-shape site run once per warp, its rows on several lines: one
 * row's address a (i64), span bytes, prefetched further along. */
void prefetch_rows_ahead(lw *L, LLVMValueRef a, uint32_t span);
void shape_store(fn *F, LLVMValueRef addrs, LLVMValueRef val, uint32_t align, LLVMValueRef mask);
/* The addresses themselves, as the shape has them (splat(lane 0) + a
 * constant vector): a lane of it is a scalar sum.  Only on the known
 * side of a shape_branch, as its first instruction. */
LLVMValueRef shape_lanes(fn *F, LLVMValueRef addrs, LLVMValueRef mask);
void lower_shapes(lw *L, LLVMTargetMachineRef tm);
/* lower_rows.c: entry becomes the body of a loop over a grid row's CTAs
 * (PTXJIT_WARP_ROW), under its own name.  The body's warp argument
 * carries the CTA's place in the row above ROW_SHIFT (also passed on to
 * .func calls): %ctaid.x is the row's first plus that. */
enum { ROW_SHIFT = 8, ROW_BITS = 22 };
void wrap_row_loop(lw *L, const ptx_func *kernel, LLVMValueRef entry, bool resumable);
LLVMValueRef row_arg_split(fn *F, LLVMValueRef arg);
/* Lanes [first, first + n) of mask (<n x i1>). */
LLVMValueRef lane_range_mask(lw *L, LLVMValueRef mask, unsigned first, unsigned n);
/* The value of the highest lane in bits (lower_mem.c). */
LLVMValueRef last_lane_value(lw *L, LLVMValueRef val, LLVMValueRef bits);
/* i1: some active lane's address may be misaligned (a placeholder that
 * lower_shapes decides: see lower_align.c). */
LLVMValueRef shape_align_test(fn *F, LLVMValueRef addrs, LLVMValueRef mask, uint32_t align);

/* lower_align.c: misaligned accesses fault (CUDA_ERROR_MISALIGNED_ADDRESS) */
void check_alignment(fn *F, const ptx_instr *in, LLVMValueRef addrs, LLVMValueRef mask, uint32_t align);
LLVMValueRef misaligned_lanes(lw *L, LLVMValueRef addrs, LLVMValueRef mask, uint32_t align);

/* lower_space.c: isspacep, mapa, getctarank; clusters of one CTA */
bool lower_space(fn *F, const ptx_instr *in, LLVMValueRef mask);
void local_window(fn *F, LLVMBuilderRef b, LLVMValueRef out[2]); /* the warp's .local [lo, hi) */
void check_cluster_dims(lw *L, const ptx_func *f);
bool kernel_is_explicit_cluster(const ptx_func *f);

/* lower_bulk.c */
bool lower_bulk(fn *F, const ptx_instr *in, LLVMValueRef mask);

/* lower_mbarrier.c */
bool lower_mbarrier(fn *F, const ptx_instr *in, LLVMValueRef mask);

/* lower_arith.c */
bool lower_arith(fn *F, const ptx_instr *in, LLVMValueRef mask);

/* lower_warp.c, lower_atomic.c, lower_bits.c */
bool lower_warp(fn *F, const ptx_instr *in, LLVMValueRef mask);
bool lower_atomic(fn *F, const ptx_instr *in, LLVMValueRef mask);
/* lower_atomic.c: one read-modify-write of the instruction being lowered
 * at one address (a scalar i64); returns the old value. */
struct atom_op;
LLVMValueRef atomic_rmw_at(fn *F, const struct atom_op *o, LLVMValueRef addr, LLVMValueRef v);
/* lower_atomic.c: cp.reduce.async.bulk's element loop, `n` bytes (i64s). */
void atomic_bulk_reduce(fn *F, uint8_t red, ptx_type t, bool shared, LLVMValueRef dst, LLVMValueRef src,
                        LLVMValueRef n);
/* lower_aggregate.c: the warp-aggregated form (see there). */
/* addrs = splat(window) + zext(off): a shared access's window base (i64)
 * and 32-bit offsets, as address_of builds them. */
bool window_offsets(LLVMValueRef addrs, LLVMValueRef *window, LLVMValueRef *off);
LLVMValueRef lanes_share_address(fn *F, LLVMValueRef addrs, LLVMValueRef mask);
void atomic_aggregate(fn *F, const struct atom_op *o, uint8_t red, bool is_signed, LLVMValueRef addrs,
                      LLVMValueRef v, LLVMValueRef out, LLVMValueRef mask);
/* lower_fence.c: fence, membar, fence.proxy */
bool lower_fence(fn *F, const ptx_instr *in, LLVMValueRef mask);
bool lower_bits(fn *F, const ptx_instr *in, LLVMValueRef mask);
bool lower_intmix(fn *F, const ptx_instr *in, LLVMValueRef mask);
/* lower_arith.c: the integer predicate of a comparison (false: none). */
bool int_predicate(uint8_t cmp, bool sign, LLVMIntPredicate *p);
LLVMValueRef lower_int_sat(fn *F, LLVMValueRef a, ptx_type st, ptx_type dt); /* cvt.sat int -> int */
/* Part k of width w bits of the i32 vector x, sign- or zero-extended. */
LLVMValueRef int_part(fn *F, LLVMValueRef x, unsigned k, unsigned w, bool sign);
/* lower_tex.c: texture and surface instructions */
bool lower_tex(fn *F, const ptx_instr *in, LLVMValueRef mask);
uint64_t lower_sampler_bits(const ptx_init *in); /* a .samplerref initializer as a handle */
/* lower_mma_core.c: the warp matrix product D = A * B + C (mma, wmma).
 * A matrix is a flat row-major vector of its compute type (f32 for
 * f16/bf16/tf32/e4m3/e5m2/f32, f64, i32 for integers and b1 words),
 * `batch` matrices end to end (m8n8k4 .f16: one per quad pair). */
/* How a float product sums (lower_mma_float.c): what an H200 does. */
typedef enum mma_sum {
    MMA_SUM_ALIGNED,  /* f16/bf16/tf32 -> f32: one fixed-point sum, truncated */
    MMA_SUM_CHAIN,    /* fused multiply-adds in k order onto C (f64, f16 D) */
    MMA_SUM_C_LAST,   /* f32 adds in k order from 0, then C (m8n8k4 .f16) */
    MMA_SUM_EXACT,    /* the exact sum, rounded once to D (e4m3/e5m2) */
} mma_sum;

typedef struct mma_shape {
    unsigned batch, m, n, k; /* k: elements (b1: 32-bit words) */
    ptx_type a, b, c, d;     /* element types */
    bool satfinite, and_popc;
    mma_sum sum;
    uint8_t rnd;             /* f64: PTX_ROUND_RZ/RM/RP round each step so; else RN */
} mma_shape;
LLVMTypeRef mma_compute_type(lw *L, ptx_type t);
unsigned mma_elems_per_reg(ptx_type t); /* b1: 1 (the word) */
/* Registers (<32 x i32>, f64: <32 x i64>) -> elements of the compute type,
 * elems[r * per + e]; and back, rounding f16/bf16 to nearest. */
void mma_unpack(fn *F, const LLVMValueRef *regs, unsigned nregs, ptx_type t, LLVMValueRef *elems);
void mma_pack(fn *F, const LLVMValueRef *elems, unsigned nregs, ptx_type t, LLVMValueRef *regs);
/* Fragment elements -> matrix: position p comes from lane where[p] % 32
 * of elems[where[p] / 32]; matrix -> fragment elements: element e of lane
 * l comes from position pos[e * 32 + l]. */
LLVMValueRef mma_gather(fn *F, const LLVMValueRef *elems, unsigned nelems, const unsigned *where, unsigned npos);
void mma_scatter(fn *F, LLVMValueRef matrix, const unsigned *pos, unsigned nelems, LLVMValueRef *elems);
LLVMValueRef mma_product(fn *F, const mma_shape *s, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c);
/* Column k of A broadcast along the rows of the MxN result, row k of B
 * down its columns; a splat of a constant to n elements. */
void mma_rank1(fn *F, const mma_shape *s, LLVMValueRef a, LLVMValueRef b, unsigned k, LLVMValueRef *ak,
               LLVMValueRef *bk);
LLVMValueRef mma_splat(LLVMValueRef c, unsigned n);
/* The same for result elements [first, first + count) only; elements
 * [first, first + count) of v; parts of equal length end to end. */
void mma_rank1_part(fn *F, const mma_shape *s, LLVMValueRef a, LLVMValueRef b, unsigned k, unsigned first,
                    unsigned count, LLVMValueRef *ak, LLVMValueRef *bk);
LLVMValueRef mma_part(fn *F, LLVMValueRef v, unsigned first, unsigned count);
LLVMValueRef mma_join(fn *F, const LLVMValueRef *parts, unsigned n);
mma_sum mma_default_sum(const mma_shape *s); /* what mma.sync's m16n8k* forms do */
/* lower_mma_float.c */
LLVMValueRef mma_float_product(fn *F, const mma_shape *s, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c);
/* lower_mma.c: mma.sync, and dispatch of the matrix moves */
bool lower_matrix(fn *F, const ptx_instr *in, LLVMValueRef mask);
/* lower_matrix_move.c: ldmatrix, stmatrix, movmatrix */
void lower_matrix_move(fn *F, const ptx_instr *in, LLVMValueRef mask);

/* lower_wmma.c: wmma.load, wmma.store, wmma.mma */
bool lower_wmma(fn *F, const ptx_instr *in, LLVMValueRef mask);
/* lower_matmul.c: D = A * B + C with the tensor cores' precision rules,
 * on row-major matrices at byte pointers a, b, c, d (sub-byte A and B:
 * 32-bit words packed along K; B then has K / (32 / bits) rows). */
typedef struct matmul {
    unsigned m, n, k;
    ptx_type a, b, c, d;  /* element types */
    bool satfinite;       /* integers: clamp to s32 instead of wrapping */
    uint8_t bop;          /* b1: PTX_BOOL_XOR or PTX_BOOL_AND (then popc) */
    uint8_t rnd;          /* f64: PTX_ROUND_RZ/RM/RP round each step so; else RN */
} matmul;
void lower_matmul(fn *F, const matmul *mm, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c, LLVMValueRef d);
/* lower_video.c: scalar video instructions */
bool lower_video(fn *F, const ptx_instr *in, LLVMValueRef mask);

/* lower_half.c: f16/bf16 arithmetic; helpers for lower_halfcvt.c.  Pairs
 * are <64 x T> vectors, the low half of lane i at element 2i. */
bool lower_half(fn *F, const ptx_instr *in, LLVMValueRef mask);
bool half_is_pair(ptx_type t);
bool half_is_bf(ptx_type t);
LLVMValueRef half_splat(LLVMValueRef c, unsigned n);
LLVMValueRef half_bits(fn *F, const ptx_operand *o, ptx_type t);   /* <n x i16> */
LLVMValueRef half_widen(fn *F, LLVMValueRef h, ptx_type t);         /* exact, to f32 */
LLVMValueRef half_narrow(fn *F, LLVMValueRef v, ptx_type t);        /* RN, NaN -> 0x7fff */
LLVMValueRef half_odd(fn *F, LLVMValueRef s, LLVMValueRef pos, LLVMValueRef neg);
LLVMValueRef lane_half(fn *F, LLVMValueRef v, unsigned which);

/* lower_halfcvt.c */
bool lower_half_cvt(fn *F, const ptx_instr *in, LLVMValueRef mask);

/* lower_arith.c: float comparison predicates and setp's boolean combine */
LLVMValueRef lower_fcompare(fn *F, const ptx_instr *in, LLVMValueRef a, LLVMValueRef b);
LLVMValueRef lower_bool_combine(fn *F, const ptx_instr *in, LLVMValueRef r, LLVMValueRef c);

/* lower_float.c: f32/f64 arithmetic; helpers shared with the other float files */
bool lower_float(fn *F, const ptx_instr *in, LLVMValueRef mask);
LLVMValueRef fl_is_nan(fn *F, LLVMValueRef v);
LLVMValueRef fl_canon(fn *F, LLVMValueRef v);   /* f32 NaN -> 0x7fffffff */
/* r (f32) flushed under .ftz where e (f64) is tiny after rounding in mode to 24 bits */
LLVMValueRef fl_ftz_tiny(fn *F, LLVMValueRef e, uint8_t mode, LLVMValueRef r);
LLVMValueRef fl_ftz(fn *F, LLVMValueRef v);     /* f32 subnormal -> signed zero */
LLVMValueRef fl_sat(fn *F, LLVMValueRef v);     /* clamp to [+0, 1], NaN -> +0 */
LLVMValueRef fl_result(fn *F, const ptx_instr *in, LLVMValueRef v); /* .ftz, NaN, .sat */
LLVMValueRef fl_src(fn *F, const ptx_instr *in, uint32_t i, ptx_type t); /* .ftz'd source */
LLVMValueRef fl_minmax(fn *F, const ptx_instr *in, LLVMValueRef *x, uint32_t n);

/* lower_math.c: approximate instructions, vector math through libmvec */
void lower_math_init(lw *L, LLVMTargetMachineRef tm);
bool lower_math(fn *F, const ptx_instr *in, LLVMValueRef mask);
LLVMValueRef lower_vmath(fn *F, const char *fname, LLVMValueRef x);

/* lower_cvt.c */
bool lower_cvt(fn *F, const ptx_instr *in, LLVMValueRef mask);
/* The sign of (a - s) for a 64-bit integer a and its conversion s */
void cvt_int64_error(fn *F, LLVMValueRef a, bool sgn, LLVMValueRef s, LLVMValueRef *pos, LLVMValueRef *neg);
/* v (float -> integer dt) with NaN lanes of f replaced by what NVIDIA GPUs give */
LLVMValueRef cvt_int_nan(fn *F, LLVMValueRef f, LLVMValueRef v, ptx_type dt, bool from_f64);
/* An f64 NaN narrowed to a float of `width` bits, `mant` of significand: sign and top payload bits kept, quieted */
LLVMValueRef cvt_f64_nan_bits(fn *F, LLVMValueRef d, unsigned width, unsigned mant);

/* lower_round.c: directed rounding (.rz .rm .rp) of f32/f64 arithmetic */
LLVMValueRef round_directed(fn *F, const ptx_instr *in, ptx_type t, LLVMValueRef *x);
LLVMValueRef narrow_directed(fn *F, LLVMValueRef d, uint8_t mode);
/* a * b + c rounded once per mode (.rz/.rm/.rp), on <n x double> of any n */
LLVMValueRef fma_f64_directed(fn *F, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c, uint8_t mode);
/* s (rounded to nearest) stepped one ulp per mode; pos/neg: exact > s, exact < s */
LLVMValueRef round_step(fn *F, LLVMValueRef s, LLVMValueRef pos, LLVMValueRef neg, uint8_t mode);
LLVMValueRef step_bits(fn *F, LLVMValueRef bits, LLVMValueRef pos, LLVMValueRef neg, uint8_t mode);

/* lower_cfg.c */
void order_blocks(fn *F);

/* lower.c: blocks start at labels, after terminators, and where split[stmt] */
void split_blocks(fn *F, const uint8_t *split);

/* Register operands: a register (not a variable), its element count
 * (%r<N> families, vector registers) and the element an operand names. */
static inline bool is_reg_opd(const ptx_operand *o)
{
    return o->kind == PTX_OPD_NAME && o->var && o->var->space == PTX_SP_REG;
}
static inline uint32_t reg_elems(const ptx_var *v) { return (v->nreg ? v->nreg : 1) * (v->vec ? v->vec : 1); }
static inline uint32_t reg_elem(const ptx_operand *o)
{
    return o->reg_index * (o->var->vec ? o->var->vec : 1) + (o->comp ? o->comp - 1 : 0);
}

/* lower_live.c */
void analyze_liveness(fn *F);
bool reg_needs_blend(fn *F, const ptx_var *v, uint32_t elem);
bool reg_is_uniform(fn *F, const ptx_var *v, uint32_t elem);
bool branch_skips_if_body(fn *F, uint32_t stmt);
bool opd_is_uniform(fn *F, const ptx_operand *o);
/* Defines the warp's index in its row (tid.x >> 5 where rows are whole
 * warps): uniform in a warp, not across the CTA's warps. */
bool warp_in_row(fn *F, const ptx_instr *in);
bool instr_defines_first(const ptx_instr *in); /* operand 0 is only written */
void liveness_free(fn *F);
/* Registers live into each block. */
void analyze_block_liveness(fn *F);
bool reg_live_in(fn *F, uint32_t block, const ptx_var *v, uint32_t elem);
/* Registers with one pure definition from each lane's immutable values:
 * written for every lane, and recomputed after a wait instead of saved. */
void analyze_remat(fn *F);
bool reg_is_remat(fn *F, const ptx_var *v, uint32_t elem);
const ptx_instr *remat_def_of(fn *F, const ptx_operand *o);
const ptx_instr *single_def(fn *F, const ptx_operand *o); /* one whole, unguarded write */
bool instr_defines_remat(fn *F, const ptx_instr *in);
bool instr_writes_opaque(const ptx_instr *in); /* operand 0 may be read and written */
bool pure_def(fn *F, const ptx_instr *in);    /* depends on its operands only */
void reg_add_copy(fn *F, const ptx_var *copy, const ptx_instr *def, const ptx_var *orig, uint32_t elem);
uint32_t block_successors(fn *F, uint32_t b, const ptx_instr *last, uint32_t *out, uint32_t max);

/* lower_induction.c: per-lane registers stepped by uniform values become
 * a rematerialized start plus a uniform sum (before any analysis) */
const ptx_func *split_inductions(fn *F); /* F->f, or its rewritten copy */
void inductions_free(fn *F);
/* lower_thread_value.c: whether a guard (a predicate operand) has one
 * value in every lane of a warp, known at compile time from the block
 * shape; *value: that value */
bool warp_guard_known(fn *F, const ptx_operand *guard, uint32_t warp, bool *value);

/* lower_lane_value.c: operand o of instruction `at` (read as type t),
 * computed in at's block by integer arithmetic from one ld.global: that
 * load (and at's statement in *at_stmt), or NULL.  Then lane_value is
 * lane `lane`'s value (an i64 holding the operand's bits), the load's
 * element read again at addr, that lane's address of the load. */
const ptx_instr *lane_value_load(fn *F, const ptx_instr *at, const ptx_operand *o, ptx_type t, uint32_t *at_stmt);
LLVMValueRef lane_value(fn *F, uint32_t at_stmt, const ptx_operand *o, ptx_type t, LLVMValueRef addr, uint32_t lane);
/* lower_mem.c: recomputes a rematerialized register (its operands first) */
void recompute_register(fn *F, const ptx_operand *o);

/* lower_forward.c: a read with one reaching definition reads a copy of it */
void analyze_forwarding(fn *F); /* after analyze_block_liveness, before analyze_remat */
void prune_forwarding(fn *F);   /* after analyze_remat */
const ptx_operand *forwarded(fn *F, const ptx_operand *o);  /* the register o reads */
const ptx_instr *forward_copy(fn *F, const ptx_instr *in);  /* lowered right after in, or NULL */
void lower_stmts(fn *F, uint32_t first, uint32_t end, LLVMValueRef mask); /* instructions but terminators */
bool full_copy_pays(fn *F, uint32_t b, uint32_t first, uint32_t end);
bool body_copy_pays(fn *F, uint32_t first, uint32_t end); /* a group region's if-body */
void lower_block_twice(fn *F, uint32_t first, uint32_t end);
bool is_terminator(const ptx_stmt *s);
void forwarding_free(fn *F);
void lower_instr(fn *F, const ptx_instr *in);        /* lower.c */
LLVMValueRef guard_mask(fn *F, const ptx_instr *in); /* lower.c: the lanes of F->mask that run in */

/* lower_nan.c: where f32 NaN payloads can be seen (run by analyze_liveness) */
void analyze_nan(fn *F);
bool nan_bits_unseen(fn *F, const ptx_operand *d); /* writes of d may skip fl_canon */
void nan_free(fn *F);

/* lower_converge.c: lanes meeting at warp collectives and barriers */
bool is_sync_point(const ptx_instr *in);
void place_sync_points(fn *F);
const ptx_operand *membermask_operand(const ptx_instr *in);
LLVMValueRef membermask_bits(fn *F, const ptx_instr *in, LLVMValueRef mask);
LLVMValueRef first_lane(fn *F, LLVMValueRef mask);
LLVMValueRef lowest_lane(lw *L, LLVMValueRef mask); /* first_lane without a function's state */
LLVMValueRef pending_bits(fn *F);
LLVMValueRef pc_in_set(fn *F, LLVMValueRef pc, const uint8_t *set);
LLVMValueRef lanes_of(fn *F, LLVMValueRef bits); /* i32 lane bits -> <32 x i1> */
void arrive_sync_point(fn *F, const ptx_instr *in);
LLVMValueRef dispatch_candidates(fn *F, LLVMValueRef pc);
LLVMValueRef fairness_candidates(fn *F, LLVMValueRef pc, LLVMValueRef cand);
LLVMValueRef barrier_arrivals(fn *F, LLVMValueRef mask, LLVMValueRef *sib);

/* lower_resume.c: CTA barriers by returning to the runtime */
bool kernel_resumes(lw *L, const ptx_func *f);
void resume_loop_begin(fn *F, LLVMValueRef arg); /* arg: the warp argument, row_arg_split */
void resume_begin(fn *F);
void resume_entry_branch(fn *F, LLVMBasicBlockRef start);
void resume_exit(fn *F);
void resume_wait(fn *F, const ptx_instr *in, LLVMValueRef mask, LLVMValueRef id, LLVMValueRef threads,
                 LLVMValueRef op, LLVMValueRef value);
uint32_t resume_finish(fn *F);
void resume_converged_wait(fn *F, const ptx_instr *bar, LLVMBasicBlockRef generic);

/* lower_control.c */
void lower_terminator(fn *F, const ptx_instr *in, uint32_t block, LLVMValueRef mask);
bool lower_call(fn *F, const ptx_instr *in, LLVMValueRef mask);
bool lower_sync(fn *F, const ptx_instr *in, LLVMValueRef mask);
void yield_warp(fn *F);
void emit_dispatcher(fn *F);
void leave_block(fn *F, LLVMValueRef taken, uint32_t t, uint32_t n);
void enter_converged(fn *F, LLVMValueRef lanes, uint32_t b); /* jump to b's converged entry */
void begin_block(fn *F, uint32_t b, uint32_t first_stmt);
void finish_converged_entries(fn *F);
void find_if_bodies(fn *F); /* after the blocks are numbered */
void bind_func_params(fn *F);

#endif
