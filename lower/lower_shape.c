/* lower_shape.c - address shapes known at compile time.
 *
 * A warp's 32 addresses are often lane 0's address plus offsets fixed at
 * compile time: consecutive (a[tid]), one address (a[k]), or rows of a 2D
 * block (a 16x16 block's warp is two rows of 16: a[ty][k] is two
 * addresses, b[k][tx] one run of 16 read twice).  Lowering emits each
 * access as
 *
 *     if (ptxjit.shape.guard(addrs)) ptxjit.shape.load(addrs, mask, align)
 *     else <test the addresses at run time: vector load, broadcast, gather>
 *
 * and once the registers are SSA values (after sroa and instcombine), this
 * file looks at how each address vector is computed.  Where it is provably
 * splat(scalar) + a constant vector - constants, splats, add, sub, or
 * disjoint, shl and mul by constants, through zext/sext when no lane wraps
 * (a cheap scalar test of lane 0 becomes the guard) - the placeholders
 * become that shape's loads and stores and the run-time test goes away with
 * the dead branch; otherwise the guard is false.  Offsets are modular in
 * the value's width, as PTX's address arithmetic is (a 32-bit shared offset
 * wraps).
 *
 * Rows a run-time pitch apart (in[y * nx + x]) are a multiple of one scalar
 * S per lane: a product by a broadcast scalar that can be computed again
 * at the access (a kernel parameter, a CTA field) makes lane l's value
 * lane 0's + off[l] + k[l] S; a run is then lanes of one k.  A widening
 * guard over S is tested per group of lanes with one k.  Where a guard's
 * value does not reach the access (its shape came through a phi or a
 * frame reload), the guard is one vector compare of the addresses with
 * the shape's instead. */
#include "lower_internal.h"

#include <llvm-c/Transforms/PassBuilder.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHAPE_GUARD "ptxjit.shape.guard"
#define SHAPE_LOAD "ptxjit.shape.load"
#define SHAPE_STORE "ptxjit.shape.store"
#define SHAPE_LANES "ptxjit.shape.lanes"
#define ALIGN_TEST "ptxjit.align.test"
enum { MAX_GUARDS = 4, MAX_RUNS = 4 };

/* ---- lowering side: the placeholders ---- */

static LLVMValueRef placeholder(lw *L, const char *base, LLVMTypeRef ret, LLVMTypeRef *params, unsigned n,
                                LLVMTypeRef elem)
{
    char name[96];
    char *t = elem ? LLVMPrintTypeToString(elem) : NULL;
    snprintf(name, sizeof name, "%s%s%s", base, t ? "." : "", t ? t : "");
    LLVMDisposeMessage(t);
    return declare_rt(L, name, ret, params, n);
}

static LLVMValueRef call(lw *L, LLVMValueRef f, LLVMValueRef *args, unsigned n)
{
    return LLVMBuildCall2(L->b, LLVMGlobalGetValueType(f), f, args, n, "");
}

/* Branches to `known` when the shape of addrs is proven, else `runtime`. */
void shape_branch(fn *F, LLVMValueRef addrs, LLVMValueRef mask, LLVMBasicBlockRef known, LLVMBasicBlockRef runtime)
{
    lw *L = F->L;
    LLVMTypeRef p[2] = {vec_of(L->i64), vec_of(L->i1)};
    LLVMValueRef g = placeholder(L, SHAPE_GUARD, L->i1, p, 2, NULL);
    LLVMValueRef args[2] = {addrs, mask};
    weighted_branch(L, call(L, g, args, 2), known, runtime, BRANCH_USUAL, BRANCH_RARE);
}

LLVMValueRef shape_load(fn *F, LLVMValueRef addrs, LLVMTypeRef elem, uint32_t align, LLVMValueRef mask)
{
    lw *L = F->L;
    LLVMTypeRef p[5] = {vec_of(L->i64), vec_of(L->i1), L->i32, L->ptr, L->i8};
    LLVMValueRef f = placeholder(L, SHAPE_LOAD, vec_of(elem), p, 5, elem);
    LLVMValueRef args[5] = {addrs, mask, const_i32(L, align), F->prefetch ? F->prefetch : LLVMConstNull(L->ptr),
                            LLVMConstInt(L->i8, prefetch_plan(F), false)};
    return call(L, f, args, 5);
}

void shape_store(fn *F, LLVMValueRef addrs, LLVMValueRef val, uint32_t align, LLVMValueRef mask)
{
    lw *L = F->L;
    LLVMTypeRef p[4] = {LLVMTypeOf(val), vec_of(L->i64), vec_of(L->i1), L->i32};
    LLVMValueRef f = placeholder(L, SHAPE_STORE, L->voidt, p, 4, LLVMGetElementType(LLVMTypeOf(val)));
    LLVMValueRef args[4] = {val, addrs, mask, const_i32(L, align)};
    call(L, f, args, 4);
}

LLVMValueRef shape_lanes(fn *F, LLVMValueRef addrs, LLVMValueRef mask)
{
    lw *L = F->L;
    LLVMTypeRef p[2] = {vec_of(L->i64), vec_of(L->i1)};
    LLVMValueRef f = placeholder(L, SHAPE_LANES, vec_of(L->i64), p, 2, NULL);
    LLVMValueRef args[2] = {addrs, mask};
    return call(L, f, args, 2);
}

LLVMValueRef shape_align_test(fn *F, LLVMValueRef addrs, LLVMValueRef mask, uint32_t align)
{
    lw *L = F->L;
    LLVMTypeRef p[3] = {vec_of(L->i64), vec_of(L->i1), L->i32};
    LLVMValueRef f = placeholder(L, ALIGN_TEST, L->i1, p, 3, NULL);
    LLVMValueRef args[3] = {addrs, mask, const_i32(L, align)};
    return call(L, f, args, 3);
}

/* ---- the analysis ---- */

/* A wrap test: lane 0's value x of `bits` bits plus every offset in
 * [lo, hi] stays in range (unsigned or signed), so that widening it
 * widens each lane's value exactly. */
typedef struct guard {
    LLVMValueRef x;
    int64_t xoff[W];   /* x's own offsets (lane 0's value from another lane's) */
    unsigned bits;
    bool is_signed;
    int64_t lo, hi;
    LLVMValueRef sym;  /* x's symbolic stride, or NULL */
    int sym_ext;       /* how x's shape widened it */
    int64_t xk[W];
} guard;

/* v[l] = v[0] + off[l] + k[l] * S modulo 2^bits, for all 32 lanes, where
 * S is a scalar the same in every lane (a row pitch: a 2D block's rows of
 * lanes are `pitch` apart) or absent (k all 0). */
typedef struct shape {
    enum { S_UNKNOWN, S_KNOWN, S_PENDING } state; /* pending: a phi being analyzed */
    bool hyp;                /* pending with offsets assumed (its first incoming value's) */
    bool cyc;                /* a phi or reload reached only from its own cycle: settled at the end */
    bool lanes;              /* holds for the access's lanes only (a register written under a mask) */
    bool verify;             /* a guard could not follow a phi: the addresses are checked instead */
    bool provisional;        /* built on a value still being analyzed: may miss the flags it gets later */
    LLVMValueRef v;
    unsigned bits;
    int64_t off[W];
    int64_t k[W];
    LLVMValueRef sym;        /* S, a scalar rebuilt where it is needed (rebuildable()) */
    enum { EXT_NONE, EXT_ZERO, EXT_SIGN } sym_ext; /* S widened to the shape's width */
    guard g[MAX_GUARDS];
    unsigned ng;
} shape;

typedef struct analysis {
    lw *L;
    ptrmap memo; /* LLVMValueRef -> shape* */
    shape **log; /* shapes in creation order: those built on a failed phi hypothesis are undone */
    unsigned nlog, caplog;
    LLVMValueRef mask; /* the access's lanes: only theirs matter */
    LLVMValueRef frame_fn;   /* the function whose frame stores are indexed below */
    LLVMValueRef *slot_val;  /* resumable kernels: the value saved at each frame offset */
    int64_t *slot_off;
    unsigned nslots;
    LLVMValueRef *reload_val; /* and the loads of the frame (reloads), by offset */
    int64_t *reload_off;
    unsigned nreloads;
    unsigned depth;
    bool masked;       /* some shape in memo holds for those lanes only */
    LLVMValueRef *copied; /* address arithmetic copied into run-time paths: erased at the end if unused */
    unsigned ncopied, capcopied;
} analysis;

/* Known, or a phi whose offsets are assumed while its loop is analyzed. */
static bool usable(const shape *s)
{
    return s->state == S_KNOWN || (s->state == S_PENDING && s->hyp);
}

enum { MAX_K = 1 << 20 }; /* stride multiples kept small: no overflow in the guards' arithmetic */

/* What a shape built from a carries over. */
static void inherit(shape *s, const shape *a)
{
    s->lanes |= a->lanes;
    s->verify |= a->verify;
    s->provisional |= a->provisional || a->state == S_PENDING;
}

static bool same_expr(LLVMValueRef a, LLVMValueRef b, unsigned depth);

static bool same_lin(const shape *a, const shape *b)
{
    return !memcmp(a->off, b->off, sizeof a->off) && !memcmp(a->k, b->k, sizeof a->k) &&
           (a->sym == b->sym || (a->sym && b->sym && same_expr(a->sym, b->sym, 0))) && a->sym_ext == b->sym_ext;
}

static void copy_lin(shape *d, const shape *a)
{
    memcpy(d->off, a->off, sizeof d->off);
    memcpy(d->k, a->k, sizeof d->k);
    d->sym = a->sym;
    d->sym_ext = a->sym_ext;
}

/* No lane is a multiple of S from lane 0 (a 32-wide warp's rows): no S. */
static void drop_unused_sym(shape *s)
{
    for (unsigned l = 0; l < W; l++)
        if (s->k[l])
            return;
    s->sym = NULL;
    s->sym_ext = EXT_NONE;
}

/* The stride parts of a and b combined: k = a.k + sign * b.k. */
static bool combine_sym(shape *s, const shape *a, const shape *b, int sign)
{
    if (a->sym && b->sym && (!same_expr(a->sym, b->sym, 0) || a->sym_ext != b->sym_ext))
        return false;
    const shape *w = a->sym ? a : b;
    s->sym = w->sym;
    s->sym_ext = w->sym_ext;
    for (unsigned l = 0; l < W; l++) {
        s->k[l] = a->k[l] + sign * b->k[l];
        if (s->k[l] > MAX_K || s->k[l] < -MAX_K)
            return false;
    }
    drop_unused_sym(s);
    return true;
}

static int64_t wrap(int64_t v, unsigned bits)
{
    if (bits >= 64)
        return v;
    uint64_t m = (1ull << bits) - 1, u = (uint64_t)v & m;
    return (int64_t)(u & (1ull << (bits - 1)) ? u | ~m : u); /* as signed in `bits` */
}

static unsigned elem_bits(LLVMValueRef v)
{
    LLVMTypeRef t = LLVMTypeOf(v);
    if (LLVMGetTypeKind(t) != LLVMVectorTypeKind || LLVMGetVectorSize(t) != W)
        return 0;
    LLVMTypeRef e = LLVMGetElementType(t);
    return LLVMGetTypeKind(e) == LLVMIntegerTypeKind ? LLVMGetIntTypeWidth(e) : 0;
}

/* The constant of a constant-int element, or false. */
static bool const_int_at(LLVMValueRef c, unsigned i, int64_t *out)
{
    LLVMValueRef e = LLVMGetAggregateElement(c, i);
    if (!e || !LLVMIsAConstantInt(e))
        return false;
    *out = LLVMConstIntGetSExtValue(e);
    return true;
}

/* A constant splat's value (shift amounts and multipliers). */
static bool const_splat(LLVMValueRef v, int64_t *k)
{
    if (!LLVMIsConstant(v) || !const_int_at(v, 0, k))
        return false;
    for (unsigned i = 1; i < W; i++) {
        int64_t x;
        if (!const_int_at(v, i, &x) || x != *k)
            return false;
    }
    return true;
}

static shape *analyze(analysis *A, LLVMValueRef v);

/* Every lane of mask m has c true: c is m, or m is an `and` with c. */
static bool mask_within(LLVMValueRef m, LLVMValueRef c)
{
    for (int depth = 0; m && depth < 8; depth++) {
        if (m == c)
            return true;
        if (!LLVMIsAInstruction(m) || LLVMGetInstructionOpcode(m) != LLVMAnd)
            return false;
        if (mask_within(LLVMGetOperand(m, 1), c))
            return true;
        m = LLVMGetOperand(m, 0);
    }
    return false;
}


static bool merge_guards(shape *s, const shape *a)
{
    for (unsigned i = 0; i < a->ng; i++) {
        if (s->ng == MAX_GUARDS)
            return false;
        s->g[s->ng++] = a->g[i];
    }
    return true;
}

/* Two operands combined lane by lane: off = a.off (op) b.off. */
static bool combine(analysis *A, shape *s, LLVMValueRef x, LLVMValueRef y, int sign)
{
    shape *a = analyze(A, x), *b = analyze(A, y);
    if (!usable(a) || !usable(b) || !merge_guards(s, a) || !merge_guards(s, b))
        return false;
    inherit(s, a);
    inherit(s, b);
    for (unsigned l = 0; l < W; l++)
        s->off[l] = wrap(a->off[l] + sign * b->off[l], s->bits);
    return combine_sym(s, a, b, sign);
}

static bool scale(analysis *A, shape *s, LLVMValueRef x, int64_t k)
{
    shape *a = analyze(A, x);
    if (!usable(a) || !merge_guards(s, a))
        return false;
    inherit(s, a);
    s->sym = a->sym;
    s->sym_ext = a->sym_ext;
    for (unsigned l = 0; l < W; l++) {
        s->off[l] = wrap((int64_t)((uint64_t)a->off[l] * (uint64_t)k), s->bits);
        s->k[l] = a->k[l] * k;
        if (a->sym && (k > MAX_K || k < -MAX_K || s->k[l] > MAX_K || s->k[l] < -MAX_K))
            return false;
    }
    return true;
}

/* zext/sext: exact when lane 0's value plus each offset does not wrap in
 * the narrow width; that becomes a guard. */
static bool widen(analysis *A, shape *s, LLVMValueRef x, bool is_signed)
{
    shape *a = analyze(A, x);
    if (!usable(a) || !merge_guards(s, a) || s->ng == MAX_GUARDS)
        return false;
    int ext = is_signed ? (int)EXT_SIGN : (int)EXT_ZERO;
    if (a->sym && ((a->sym_ext != EXT_NONE && (int)a->sym_ext != ext) || a->bits > 32))
        return false; /* widened one way, from 32 bits at most (guard arithmetic in i64) */
    inherit(s, a);
    copy_lin(s, a);
    if (a->sym)
        s->sym_ext = ext;
    int64_t lo = 0, hi = 0;
    for (unsigned l = 0; l < W; l++) {
        lo = a->off[l] < lo ? a->off[l] : lo;
        hi = a->off[l] > hi ? a->off[l] : hi;
    }
    if (lo || hi || a->sym) {
        guard *g = &s->g[s->ng++];
        *g = (guard){.x = x, .bits = a->bits, .is_signed = is_signed, .lo = lo, .hi = hi, .sym = a->sym,
                        .sym_ext = a->sym_ext};
        memcpy(g->xoff, a->off, sizeof g->xoff);
        memcpy(g->xk, a->k, sizeof g->xk);
        /* zext(y + c) (or y | c, disjoint), 0 <= c < 2^(bits-1) (a register plus an address's
         * immediate): y's lanes have x's offsets, and below 2^(bits-1)
         * (guard_cond) no c makes them wrap; one test for every immediate
         * from the register, which LLVM then merges (not over a pitch:
         * sym_guard tests x itself) */
        int64_t c;
        if (!is_signed && !a->sym && LLVMIsAInstruction(x) &&
            (LLVMGetInstructionOpcode(x) == LLVMAdd ||
             (LLVMGetInstructionOpcode(x) == LLVMOr && LLVMGetIsDisjoint(x))) &&
            const_splat(LLVMGetOperand(x, 1), &c) && c >= 0)
            g->x = LLVMGetOperand(x, 0);
    }
    return true;
}

/* All 32 lanes take the same element of a vector: a broadcast. */
static bool is_broadcast(LLVMValueRef v)
{
    int m0 = LLVMGetMaskValue(v, 0);
    if (m0 < 0)
        return false;
    for (unsigned l = 1; l < W; l++)
        if (LLVMGetMaskValue(v, l) != m0)
            return false;
    return true;
}

/* A phi or a frame reload: every value flowing in has the same offsets.
 * The first known one sets them; values around the loop are analyzed
 * assuming them (if the assumption fails, analyze() undoes every shape
 * built meanwhile). */
static bool merge_incoming(analysis *A, shape *s, const LLVMValueRef *in, unsigned n)
{
    bool ok = true;
    for (unsigned i = 0; ok && i < n; i++) {
        if (LLVMIsUndef(in[i]))
            continue; /* a register not yet written on that path: any value will do */
        if (LLVMTypeOf(in[i]) != LLVMTypeOf(s->v))
            return false;
        shape *a = analyze(A, in[i]);
        if (a == s || (a->state == S_PENDING && !a->hyp)) {
            s->provisional = true;
            continue; /* a value of the same cycle: it holds what the cycle's other values hold */
        }
        if (!usable(a)) {
            ok = false;
            continue;
        }
        s->verify |= a->ng > 0; /* its guard's values need not reach the access */
        inherit(s, a);
        if (!s->hyp) {
            copy_lin(s, a);
            s->hyp = true;
        } else {
            ok = same_lin(a, s);
        }
    }
    if (ok && !s->hyp)
        s->cyc = true; /* only values of its cycle so far: resolve() decides */
    return ok;
}

static bool phi_shape(analysis *A, shape *s, LLVMValueRef v)
{
    unsigned n = LLVMCountIncoming(v);
    LLVMValueRef *in = malloc(n * sizeof *in);
    if (!in)
        abort(); /* lowering has no partial-failure path */
    for (unsigned i = 0; i < n; i++)
        in[i] = LLVMGetIncomingValue(v, i);
    bool ok = merge_incoming(A, s, in, n);
    free(in);
    return ok;
}

/* frame + constant, the address of a slot of a resumable kernel's warp
 * frame (lower_resume.c; LLVM numbers the frame's copies "frame1", ...);
 * -1 otherwise. */
static int64_t frame_slot(LLVMValueRef p)
{
    if (!p || !LLVMIsAGetElementPtrInst(p) || LLVMGetNumOperands(p) != 2)
        return -1;
    size_t n;
    const char *name = LLVMGetValueName2(LLVMGetOperand(p, 0), &n);
    int64_t k;
    if (n < 5 || memcmp(name, "frame", 5) || !LLVMIsAConstantInt(LLVMGetOperand(p, 1)))
        return -1;
    k = LLVMConstIntGetSExtValue(LLVMGetOperand(p, 1));
    return k >= 0 ? k : -1;
}

/* The stores into the frame of f: what a waiting warp saves, by offset. */
static void index_frame(analysis *A, LLVMValueRef f)
{
    A->frame_fn = f;
    A->nslots = A->nreloads = 0;
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b))
        for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) {
            int64_t off = LLVMIsAStoreInst(i) ? frame_slot(LLVMGetOperand(i, 1)) : -1;
            int64_t at = LLVMIsALoadInst(i) ? frame_slot(LLVMGetOperand(i, 0)) : -1;
            if (at >= 0) {
                A->reload_val = realloc(A->reload_val, (A->nreloads + 1) * sizeof *A->reload_val);
                A->reload_off = realloc(A->reload_off, (A->nreloads + 1) * sizeof *A->reload_off);
                if (!A->reload_val || !A->reload_off)
                    abort();
                A->reload_val[A->nreloads] = i;
                A->reload_off[A->nreloads++] = at;
            }
            if (off < 0)
                continue;
            A->slot_val = realloc(A->slot_val, (A->nslots + 1) * sizeof *A->slot_val);
            A->slot_off = realloc(A->slot_off, (A->nslots + 1) * sizeof *A->slot_off);
            if (!A->slot_val || !A->slot_off)
                abort();
            A->slot_val[A->nslots] = LLVMGetOperand(i, 0);
            A->slot_off[A->nslots++] = off;
        }
}

/* A register reloaded from the frame holds what was saved there: like a
 * phi of the values saved there (the general save block and each
 * converged barrier's own save store into the same slot). */
static bool reload_shape(analysis *A, shape *s, LLVMValueRef v)
{
    int64_t off = frame_slot(LLVMGetOperand(v, 0));
    if (off < 0)
        return false;
    LLVMValueRef f = LLVMGetBasicBlockParent(LLVMGetInstructionParent(v));
    if (A->frame_fn != f)
        index_frame(A, f);
    LLVMValueRef *in = malloc((A->nslots + 1) * sizeof *in);
    if (!in)
        abort(); /* lowering has no partial-failure path */
    unsigned n = 0;
    for (unsigned i = 0; i < A->nslots; i++)
        if (A->slot_off[i] == off)
            in[n++] = A->slot_val[i];
    bool ok = n && merge_incoming(A, s, in, n);
    free(in);
    return ok;
}

/* A CTA or launch record's field (load_field: invariant loads from the
 * kernel's argument): a resumable kernel loads them per warp, outside the
 * entry block, and the same load again anywhere reads the same. */
static bool invariant_record(LLVMValueRef p, unsigned depth)
{
    for (; depth < 8; depth++) {
        if (LLVMIsAArgument(p))
            return true;
        if (!LLVMIsALoadInst(p) || !LLVMGetMetadata(p, LLVMGetMDKindID("invariant.load", 14)))
            return false;
        p = LLVMGetOperand(p, 0);
        if (LLVMIsAGetElementPtrInst(p) && LLVMGetNumOperands(p) == 2 && LLVMIsAConstantInt(LLVMGetOperand(p, 1)))
            p = LLVMGetOperand(p, 0);
    }
    return false;
}

static LLVMValueRef invariant_root(LLVMValueRef v);

/* The integer arithmetic a rebuildable value may be made of. */
static bool rebuild_arith(LLVMOpcode op)
{
    switch (op) {
    case LLVMAdd: case LLVMSub: case LLVMMul: case LLVMShl: case LLVMAnd: case LLVMOr: case LLVMXor:
    case LLVMZExt: case LLVMSExt: case LLVMTrunc:
        return true;
    default:
        return false;
    }
}

/* Whether v can be computed again anywhere in its function: constants,
 * arguments, the entry block's values (they dominate every block) and
 * pure arithmetic or loads of them at fixed offsets (the launch's
 * parameters and the CTA's fields, which a warp call never changes), also
 * through phis that merge copies of one such value. */
static bool rebuildable(LLVMValueRef v, unsigned depth)
{
    if (LLVMIsAConstantInt(v) || LLVMIsAArgument(v))
        return true;
    if (!LLVMIsAInstruction(v) || depth > 6)
        return false;
    if (LLVMIsAPHINode(v))
        return invariant_root(v) != NULL;
    LLVMBasicBlockRef b = LLVMGetInstructionParent(v);
    if (b == LLVMGetEntryBasicBlock(LLVMGetBasicBlockParent(b)))
        return true;
    switch (LLVMGetInstructionOpcode(v)) {
    case LLVMLoad: {
        LLVMValueRef p = LLVMGetOperand(v, 0);
        if (LLVMGetVolatile(v) || LLVMGetTypeKind(LLVMTypeOf(v)) != LLVMIntegerTypeKind)
            return false;
        if (LLVMIsAGetElementPtrInst(p) && LLVMGetNumOperands(p) == 2 && LLVMIsAConstantInt(LLVMGetOperand(p, 1)))
            p = LLVMGetOperand(p, 0);
        return LLVMIsAArgument(p) ||
               (LLVMIsAInstruction(p) && LLVMGetInstructionParent(p) == LLVMGetEntryBasicBlock(
                                                                         LLVMGetBasicBlockParent(b))) ||
               invariant_record(p, depth + 1);
    }
    default:
        if (!rebuild_arith(LLVMGetInstructionOpcode(v)))
            return false;
        for (int i = 0; i < LLVMGetNumOperands(v); i++)
            if (!rebuildable(LLVMGetOperand(v, i), depth + 1))
                return false;
        return true;
    }
}

/* a and b compute the same value wherever they are rebuilt (both
 * rebuildable): the same operations of the same operands. */
static bool same_expr(LLVMValueRef a, LLVMValueRef b, unsigned depth)
{
    if (a == b)
        return true;
    if (LLVMIsAPHINode(a))
        a = invariant_root(a);
    if (LLVMIsAPHINode(b))
        b = invariant_root(b);
    if (!a || !b || depth > 8 || !LLVMIsAInstruction(a) || !LLVMIsAInstruction(b))
        return a && a == b;
    LLVMOpcode op = LLVMGetInstructionOpcode(a);
    if (op != LLVMGetInstructionOpcode(b) || LLVMTypeOf(a) != LLVMTypeOf(b) ||
        LLVMGetNumOperands(a) != LLVMGetNumOperands(b))
        return false;
    if (op == LLVMGetElementPtr && LLVMGetGEPSourceElementType(a) != LLVMGetGEPSourceElementType(b))
        return false;
    if (op != LLVMGetElementPtr && op != LLVMLoad && !rebuild_arith(op))
        return false;
    for (int i = 0; i < LLVMGetNumOperands(a); i++)
        if (!same_expr(LLVMGetOperand(a, i), LLVMGetOperand(b, i), depth + 1))
            return false;
    return true;
}

/* A resumable kernel's register is a phi wherever paths meet (the
 * dispatcher, converged and general entries, frame reloads): when every
 * value flowing in is one rebuildable expression (a kernel parameter
 * loaded again after a barrier), the phi is that expression. */
enum { MAX_PHI_WALK = 64 };
typedef struct phi_walk {
    LLVMValueRef seen[MAX_PHI_WALK];
    unsigned n;
    LLVMValueRef root;
} phi_walk;

static bool phi_root(LLVMValueRef v, phi_walk *w)
{
    if (LLVMIsUndef(v))
        return true; /* a path where the register is not yet written: never read there */
    if (!LLVMIsAPHINode(v)) {
        if (!rebuildable(v, 0))
            return false;
        if (!w->root)
            w->root = v;
        return same_expr(w->root, v, 0);
    }
    for (unsigned i = 0; i < w->n; i++)
        if (w->seen[i] == v)
            return true; /* its own cycle: what the other values say */
    if (w->n == MAX_PHI_WALK)
        return false;
    w->seen[w->n++] = v;
    for (unsigned i = 0; i < LLVMCountIncoming(v); i++)
        if (!phi_root(LLVMGetIncomingValue(v, i), w))
            return false;
    return true;
}

static LLVMValueRef invariant_root(LLVMValueRef v)
{
    if (!LLVMIsAPHINode(v))
        return v;
    phi_walk w = {.n = 0};
    return phi_root(v, &w) ? w.root : NULL;
}

/* The scalar every lane of a broadcast holds, or NULL. */
static LLVMValueRef broadcast_scalar(LLVMValueRef v)
{
    if (!LLVMIsAShuffleVectorInst(v) || !is_broadcast(v))
        return NULL;
    int m0 = LLVMGetMaskValue(v, 0);
    LLVMValueRef ins = LLVMGetOperand(v, 0);
    if (m0 >= (int)W || !LLVMIsAInsertElementInst(ins) || !LLVMIsAConstantInt(LLVMGetOperand(ins, 2)) ||
        LLVMConstIntGetZExtValue(LLVMGetOperand(ins, 2)) != (unsigned long long)m0)
        return NULL;
    return LLVMGetOperand(ins, 1);
}

/* x * y with y the same scalar S in every lane: lane l is lane 0's value
 * plus x's offset times S, a stride. */
static bool stride(analysis *A, shape *s, LLVMValueRef x, LLVMValueRef y)
{
    LLVMValueRef S = broadcast_scalar(y);
    if (!S || !(S = invariant_root(S)) || !rebuildable(S, 0))
        return false;
    shape *a = analyze(A, x);
    if (!usable(a) || a->sym || !merge_guards(s, a))
        return false;
    inherit(s, a);
    s->sym = S;
    s->sym_ext = EXT_NONE;
    for (unsigned l = 0; l < W; l++) {
        s->off[l] = 0;
        s->k[l] = a->off[l];
        if (s->k[l] > MAX_K || s->k[l] < -MAX_K)
            return false;
    }
    drop_unused_sym(s);
    return true;
}

/* Any lane-wise operation of operands that hold one value in every lane
 * holds one value in every lane (a warp's first thread index shifted
 * right: `warp_sums[tid >> 5]`). */
static bool uniform_op(analysis *A, shape *s, LLVMValueRef v)
{
    for (int i = 0; i < LLVMGetNumOperands(v); i++) {
        shape *a = analyze(A, LLVMGetOperand(v, i));
        if (!usable(a) || a->sym || !merge_guards(s, a))
            return false;
        for (unsigned l = 0; l < W; l++)
            if (a->off[l] || a->k[l])
                return false;
        inherit(s, a);
    }
    return true; /* off = 0 */
}

static bool analyze_inst(analysis *A, shape *s, LLVMValueRef v)
{
    LLVMValueRef o0 = LLVMGetNumOperands(v) > 0 ? LLVMGetOperand(v, 0) : NULL;
    LLVMValueRef o1 = LLVMGetNumOperands(v) > 1 ? LLVMGetOperand(v, 1) : NULL;
    int64_t k;
    switch (LLVMGetInstructionOpcode(v)) {
    case LLVMShuffleVector:
        return is_broadcast(v); /* off = 0 */
    case LLVMAdd:
        return combine(A, s, o0, o1, 1);
    case LLVMSub:
        return combine(A, s, o0, o1, -1);
    case LLVMOr:
        return LLVMGetIsDisjoint(v) ? combine(A, s, o0, o1, 1) : uniform_op(A, s, v);
    case LLVMLShr: case LLVMAShr: case LLVMAnd: case LLVMXor:
    case LLVMUDiv: case LLVMSDiv: case LLVMURem: case LLVMSRem:
        return uniform_op(A, s, v);
    case LLVMShl:
        return const_splat(o1, &k) && k >= 0 && k < 64 && scale(A, s, o0, (int64_t)(1ull << k));
    case LLVMMul:
        if (const_splat(o1, &k))
            return scale(A, s, o0, k);
        if (const_splat(o0, &k))
            return scale(A, s, o1, k);
        return stride(A, s, o0, o1) || stride(A, s, o1, o0);
    case LLVMZExt:
        return widen(A, s, o0, false);
    case LLVMSExt:
        return widen(A, s, o0, true);
    case LLVMTrunc:
    case LLVMBitCast: {
        shape *a = analyze(A, o0);
        if (!usable(a) || !merge_guards(s, a))
            return false;
        bool back = a->sym && s->bits == LLVMGetIntTypeWidth(LLVMTypeOf(a->sym)); /* S widened, then cut back */
        if (a->sym && s->bits != a->bits && !back)
            return false; /* a truncated stride: not followed */
        inherit(s, a);
        copy_lin(s, a);
        if (back)
            s->sym_ext = EXT_NONE;
        for (unsigned l = 0; l < W; l++)
            s->off[l] = wrap(a->off[l], s->bits);
        return true;
    }
    case LLVMPHI:
        return phi_shape(A, s, v);
    case LLVMLoad:
        return reload_shape(A, s, v);
    case LLVMSelect: /* a register written under the block's mask: the access's lanes took the new value */
        if (!mask_within(A->mask, o0))
            return false;
        A->masked = true;
        s->lanes = true;
        return combine(A, s, LLVMGetOperand(v, 1), LLVMConstNull(LLVMTypeOf(v)), 1);
    default:
        return false;
    }
}

/* The values a phi or a frame reload takes (undef ones left out). */
static unsigned sources(analysis *A, const shape *s, LLVMValueRef *out, unsigned max)
{
    unsigned n = 0;
    if (LLVMIsAPHINode(s->v)) {
        for (unsigned i = 0; i < LLVMCountIncoming(s->v) && n < max; i++)
            if (!LLVMIsUndef(LLVMGetIncomingValue(s->v, i)))
                out[n++] = LLVMGetIncomingValue(s->v, i);
        return n;
    }
    int64_t off = frame_slot(LLVMGetOperand(s->v, 0));
    for (unsigned i = 0; i < A->nslots && n < max; i++)
        if (A->slot_off[i] == off)
            out[n++] = A->slot_val[i];
    return n;
}

/* Adds x to the set and the stack, once. */
static void reach(ptrmap *set, LLVMValueRef x, LLVMValueRef **stack, unsigned *n, unsigned *cap)
{
    if (ptrmap_get(set, x))
        return;
    ptrmap_put(set, x, (void *)1);
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        *stack = realloc(*stack, *cap * sizeof **stack);
        if (!*stack)
            abort(); /* lowering has no partial-failure path */
    }
    (*stack)[(*n)++] = x;
}

/* The values computed from v, v included: its users, and through the
 * frame (a value saved into a slot reaches every reload of the slot). */
static void dependents(analysis *A, LLVMValueRef v, ptrmap *set)
{
    LLVMValueRef f = LLVMGetBasicBlockParent(LLVMGetInstructionParent(v)), *stack = NULL;
    if (A->frame_fn != f)
        index_frame(A, f);
    unsigned n = 0, cap = 0;
    reach(set, v, &stack, &n, &cap);
    while (n) {
        LLVMValueRef x = stack[--n];
        for (LLVMUseRef u = LLVMGetFirstUse(x); u; u = LLVMGetNextUse(u)) {
            LLVMValueRef user = LLVMGetUser(u);
            int64_t off = LLVMIsAStoreInst(user) && LLVMGetOperand(user, 0) == x ? frame_slot(LLVMGetOperand(user, 1)) : -1;
            for (unsigned i = 0; off >= 0 && i < A->nreloads; i++)
                if (A->reload_off[i] == off)
                    reach(set, A->reload_val[i], &stack, &n, &cap);
            if (off < 0)
                reach(set, user, &stack, &n, &cap);
        }
    }
    free(stack);
}

/* A phi or reload v turned out to hold for some lanes only, or to need
 * its addresses checked: so do the provisional shapes built since `from`
 * on it (not the others built meanwhile: v's operands, other cycles). */
static void flag_dependents(analysis *A, LLVMValueRef v, unsigned from, bool lanes, bool verify)
{
    ptrmap set = {0};
    dependents(A, v, &set);
    for (unsigned i = from; i < A->nlog; i++) {
        shape *u = A->log[i];
        if (!u->provisional || !u->v || !ptrmap_get(&set, u->v))
            continue;
        u->lanes |= lanes;
        u->verify |= verify;
    }
    ptrmap_free(&set);
}

/* A phi or reload found to hold for some lanes only, or to need its
 * addresses checked, after shapes were built on it. */
typedef struct trigger {
    LLVMValueRef v;
    bool lanes, verify;
} trigger;

static trigger *add_trigger(trigger *list, unsigned *n, LLVMValueRef v, bool lanes, bool verify)
{
    trigger *t = realloc(list, (*n + 1) * sizeof *t);
    if (!t)
        abort(); /* lowering has no partial-failure path */
    t[*n].v = v, t[*n].lanes = lanes, t[*n].verify = verify;
    ++*n;
    return t;
}

/* After a top-level analysis: the cycles' unsettled phis and reloads take
 * the offsets of the values that flow into them, and then every phi and
 * reload must equal each value flowing into it (what the analysis assumed
 * while it skipped values of its own cycle).  Otherwise nothing built by
 * this analysis is trusted. */
static void resolve(analysis *A, unsigned from)
{
    enum { MAXSRC = 1024 };
    LLVMValueRef src[MAXSRC];
    bool ok = true;
    trigger *t = NULL; /* what was built on them may not know their flags */
    unsigned nt = 0;
    for (bool changed = true; ok && changed;) {
        changed = false;
        for (unsigned i = from; ok && i < A->nlog; i++) {
            shape *u = A->log[i];
            if (!u->cyc || u->state != S_PENDING)
                continue;
            unsigned n = sources(A, u, src, MAXSRC);
            ok = n < MAXSRC;
            for (unsigned k = 0; ok && k < n; k++) {
                shape *a = ptrmap_get(&A->memo, src[k]);
                if (!a || a->state == S_UNKNOWN || a->ng)
                    ok = false;
                else if (a->state == S_KNOWN && u->state == S_PENDING) {
                    copy_lin(u, a);
                    u->state = S_KNOWN;
                    changed = true;
                }
                bool lanes = ok && a->lanes && !u->lanes, verify = ok && a->verify && !u->verify;
                if (lanes || verify)
                    t = add_trigger(t, &nt, u->v, lanes, verify);
            }
        }
    }
    for (unsigned i = from; ok && i < A->nlog; i++) {
        shape *u = A->log[i];
        if (u->state == S_PENDING) {
            ok = false;
        } else if (u->state == S_KNOWN && u->v && (LLVMIsAPHINode(u->v) || LLVMIsALoadInst(u->v))) {
            unsigned n = sources(A, u, src, MAXSRC);
            ok = n < MAXSRC; /* every value checked, or none trusted */
            for (unsigned k = 0; ok && k < n; k++) {
                shape *a = ptrmap_get(&A->memo, src[k]);
                ok = a && a->state == S_KNOWN && same_lin(a, u);
                /* verify: a guard or check stayed behind this phi */
                bool verify = ok && (a->verify || a->ng) && !u->verify, lanes = ok && a->lanes && !u->lanes;
                if (lanes || verify)
                    t = add_trigger(t, &nt, u->v, lanes, verify);
            }
        }
    }
    for (unsigned i = from; !ok && i < A->nlog; i++)
        A->log[i]->state = S_UNKNOWN;
    for (unsigned i = 0; ok && i < nt; i++)
        flag_dependents(A, t[i].v, from, t[i].lanes, t[i].verify);
    free(t);
}

static shape *analyze(analysis *A, LLVMValueRef v)
{
    shape *s = ptrmap_get(&A->memo, v);
    if (s)
        return s;
    s = calloc(1, sizeof *s);
    if (A->nlog == A->caplog) {
        A->caplog = A->caplog ? 2 * A->caplog : 256;
        A->log = realloc(A->log, A->caplog * sizeof *A->log);
    }
    if (!s || !A->log)
        abort(); /* lowering has no partial-failure path */
    A->log[A->nlog++] = s;
    ptrmap_put(&A->memo, v, s);
    s->bits = elem_bits(v);
    if (!s->bits)
        return s; /* unknown */
    s->state = S_PENDING;
    s->v = v;
    unsigned mark = A->nlog;
    bool ok;
    A->depth++;
    if (LLVMIsConstant(v)) {
        int64_t c0 = 0, c = 0;
        ok = const_int_at(v, 0, &c0);
        for (unsigned l = 0; ok && l < W; l++) {
            ok = const_int_at(v, l, &c);
            s->off[l] = wrap(c - c0, s->bits);
        }
    } else {
        ok = LLVMIsAInstruction(v) && analyze_inst(A, s, v);
    }
    A->depth--;
    s->state = ok ? (s->cyc ? S_PENDING : S_KNOWN) : S_UNKNOWN;
    /* what was built meanwhile may have assumed this value, if it is one
     * the analysis of a cycle skips or assumes (a phi, a frame reload) */
    bool assumable = LLVMIsAPHINode(v) || LLVMIsALoadInst(v);
    for (unsigned i = mark; !ok && assumable && i < A->nlog; i++)
        A->log[i]->state = S_UNKNOWN;
    if (ok && assumable && (s->lanes || s->verify)) /* built on v while its flags were not yet known */
        flag_dependents(A, v, mark, s->lanes, s->verify);
    if (!A->depth)
        resolve(A, mark - 1);
    return s;
}

/* ---- rewriting the placeholders ---- */

/* v computed again at the builder's position (rebuildable() said how). */
static LLVMValueRef rebuild(lw *L, LLVMValueRef v)
{
    if (!LLVMIsAInstruction(v))
        return v;
    if (LLVMIsAPHINode(v))
        return rebuild(L, invariant_root(v));
    LLVMBasicBlockRef b = LLVMGetInstructionParent(v);
    if (b == LLVMGetEntryBasicBlock(LLVMGetBasicBlockParent(b)))
        return v;
    LLVMValueRef c = LLVMInstructionClone(v);
    for (int i = 0; i < LLVMGetNumOperands(v); i++)
        LLVMSetOperand(c, (unsigned)i, rebuild(L, LLVMGetOperand(v, i)));
    LLVMInsertIntoBuilder(L->b, c);
    return c;
}

/* S at `bits` bits, widened as the shape says. */
static LLVMValueRef sym_value(lw *L, LLVMValueRef sym, int ext, unsigned bits)
{
    LLVMValueRef v = rebuild(L, sym);
    LLVMTypeRef t = LLVMIntTypeInContext(L->ctx, bits);
    unsigned w = LLVMGetIntTypeWidth(LLVMTypeOf(v));
    if (w > bits)
        return LLVMBuildTrunc(L->b, v, t, "");
    if (w < bits)
        return ext == EXT_SIGN ? LLVMBuildSExt(L->b, v, t, "") : LLVMBuildZExt(L->b, v, t, "");
    return v;
}

static LLVMValueRef const_lanes(lw *L, const int64_t *c, unsigned bits)
{
    LLVMTypeRef t = LLVMIntTypeInContext(L->ctx, bits);
    LLVMValueRef e[W];
    for (unsigned l = 0; l < W; l++)
        e[l] = LLVMConstInt(t, (uint64_t)c[l], true);
    return LLVMConstVector(e, W);
}

static bool any_k(const int64_t *k)
{
    for (unsigned l = 0; l < W; l++)
        if (k[l])
            return true;
    return false;
}

/* Lane f of v, from scalars where v adds a splat to a vector or extends
 * one: accesses at several immediates from one register (a 32-bit shared
 * address wrapped as zext(r + imm)) then extract r once, and the address
 * vectors stay with the run-time path that needs them. */
static LLVMValueRef lane_of_depth(lw *L, LLVMValueRef v, LLVMValueRef f, unsigned depth)
{
    LLVMOpcode op = LLVMIsAInstruction(v) && depth ? LLVMGetInstructionOpcode(v) : LLVMRet;
    LLVMTypeRef t = LLVMGetElementType(LLVMTypeOf(v));
    if (op == LLVMZExt || op == LLVMSExt || op == LLVMTrunc)
        return LLVMBuildCast(L->b, op, lane_of_depth(L, LLVMGetOperand(v, 0), f, depth - 1), t, "");
    if (op == LLVMShuffleVector && is_broadcast(v)) {
        LLVMValueRef src = LLVMGetOperand(v, 0);
        int m = LLVMGetMaskValue(v, 0);
        if ((unsigned)m < LLVMGetVectorSize(LLVMTypeOf(src)))
            return LLVMBuildExtractElement(L->b, src, const_i32(L, (uint32_t)m), "");
    }
    /* through the integer arithmetic too: the run-time path has its own
     * copy of the vectors (own_addresses), which then leave the fast path */
    if (op == LLVMAdd || op == LLVMSub || op == LLVMMul || op == LLVMShl || op == LLVMOr || op == LLVMAnd ||
        op == LLVMXor) {
        LLVMValueRef a = lane_of_depth(L, LLVMGetOperand(v, 0), f, depth - 1);
        return LLVMBuildBinOp(L->b, op, a, lane_of_depth(L, LLVMGetOperand(v, 1), f, depth - 1), "");
    }
    if (LLVMIsConstant(v) && const_splat(v, &(int64_t){0}))
        return LLVMGetAggregateElement(v, 0);
    if (LLVMIsConstant(v) && LLVMIsAConstantInt(f))
        return LLVMGetAggregateElement(v, (unsigned)LLVMConstIntGetZExtValue(f));
    return LLVMBuildExtractElement(L->b, v, f, "");
}

static LLVMValueRef lane_of(lw *L, LLVMValueRef v, LLVMValueRef f)
{
    return lane_of_depth(L, v, f, 8);
}

/* c[f] for lane f: a constant, or read from a table (a constant vector
 * indexed by a variable would be stored to the stack first, at every
 * access). */
static LLVMValueRef lane_const(lw *L, const int64_t *c, unsigned bits, LLVMValueRef f)
{
    LLVMTypeRef t = LLVMIntTypeInContext(L->ctx, bits);
    if (LLVMIsAConstantInt(f))
        return LLVMConstInt(t, (uint64_t)c[LLVMConstIntGetZExtValue(f) % W], true);
    LLVMValueRef e[W];
    for (unsigned l = 0; l < W; l++)
        e[l] = LLVMConstInt(t, (uint64_t)c[l], true);
    LLVMValueRef table = LLVMAddGlobal(L->mod, LLVMArrayType2(t, W), "ptxjit.lane.offsets");
    LLVMSetInitializer(table, LLVMConstArray2(t, e, W));
    LLVMSetGlobalConstant(table, true);
    LLVMSetLinkage(table, LLVMPrivateLinkage);
    LLVMSetUnnamedAddress(table, LLVMGlobalUnnamedAddr);
    LLVMValueRef idx[2] = {const_i32(L, 0), f};
    return LLVMBuildLoad2(L->b, t, LLVMBuildGEP2(L->b, LLVMArrayType2(t, W), table, idx, 2, ""), "");
}

/* Lane 0's value as the shape has it: lane f's minus f's offset (and
 * stride multiple, S given as sx).  f is the access's first active lane,
 * whose value holds the shape even where the others' were left over from
 * other blocks (lowest_lane); lane 0 itself when the shape holds for
 * every lane. */
static LLVMValueRef lane0_value(lw *L, LLVMValueRef v, const int64_t *off, const int64_t *k, LLVMValueRef sx,
                                unsigned bits, LLVMValueRef f)
{
    LLVMValueRef x = lane_of(L, v, f);
    if (!LLVMIsAConstantInt(f) || off[LLVMConstIntGetZExtValue(f) % W])
        x = LLVMBuildSub(L->b, x, lane_const(L, off, bits, f), "");
    if (sx && any_k(k))
        x = LLVMBuildSub(L->b, x, LLVMBuildMul(L->b, lane_const(L, k, bits, f), sx, ""), "");
    return x;
}

static LLVMValueRef shape_lane(lw *L, const shape *s, LLVMValueRef mask)
{
    return s->lanes ? lowest_lane(L, mask) : const_i32(L, 0);
}

static LLVMValueRef shape_sym(lw *L, const shape *s)
{
    return s->sym ? sym_value(L, s->sym, s->sym_ext, s->bits) : NULL;
}

/* x + lo .. x + hi stays in the narrow range: x and the bounds in i64. */
static LLVMValueRef in_range(lw *L, LLVMValueRef x64, int64_t lo, int64_t hi, unsigned bits, bool is_signed)
{
    int64_t min = is_signed ? -(int64_t)(1ull << (bits - 1)) : 0;
    int64_t max = is_signed ? (int64_t)((1ull << (bits - 1)) - 1) : (int64_t)((1ull << bits) - 1);
    LLVMValueRef a = LLVMBuildICmp(L->b, LLVMIntSGE, x64, const_i64(L, (uint64_t)(min - lo)), "");
    LLVMValueRef b = LLVMBuildICmp(L->b, LLVMIntSLE, x64, const_i64(L, (uint64_t)(max - hi)), "");
    return LLVMBuildAnd(L->b, a, b, "");
}

/* A guard over a stride: for each group of lanes with one multiple k of
 * S, lane 0's value + k S plus the group's offsets does not wrap. */
static LLVMValueRef sym_guard(lw *L, const guard *g, LLVMValueRef f)
{
    LLVMValueRef sx = sym_value(L, g->sym, g->sym_ext, g->bits);
    LLVMValueRef x = lane0_value(L, g->x, g->xoff, g->xk, sx, g->bits, f);
    LLVMTypeRef i64 = L->i64;
    LLVMValueRef x64 = g->is_signed ? LLVMBuildSExt(L->b, x, i64, "") : LLVMBuildZExt(L->b, x, i64, "");
    LLVMValueRef s64 = g->is_signed ? LLVMBuildSExt(L->b, sx, i64, "") : LLVMBuildZExt(L->b, sx, i64, "");
    LLVMValueRef ok = LLVMConstInt(L->i1, 1, false);
    bool done[W] = {false};
    for (unsigned l = 0; l < W; l++) {
        if (done[l])
            continue;
        int64_t lo = g->xoff[l], hi = g->xoff[l];
        for (unsigned m = l; m < W; m++)
            if (g->xk[m] == g->xk[l]) {
                done[m] = true;
                lo = g->xoff[m] < lo ? g->xoff[m] : lo;
                hi = g->xoff[m] > hi ? g->xoff[m] : hi;
            }
        LLVMValueRef base = LLVMBuildAdd(L->b, x64, LLVMBuildMul(L->b, const_i64(L, (uint64_t)g->xk[l]), s64, ""), "");
        ok = LLVMBuildAnd(L->b, ok, in_range(L, base, lo, hi, g->bits, g->is_signed), "");
    }
    return ok;
}

/* The access's lanes have exactly the shape's addresses: one vector
 * compare, for shapes whose guards stayed behind a phi. */
static LLVMValueRef addresses_match(lw *L, const shape *s, LLVMValueRef addrs, LLVMValueRef mask, LLVMValueRef f)
{
    LLVMValueRef sx = shape_sym(L, s);
    LLVMValueRef want = LLVMBuildAdd(L->b, splat(L, lane0_value(L, addrs, s->off, s->k, sx, s->bits, f)),
                                     const_lanes(L, s->off, s->bits), "");
    if (sx && any_k(s->k))
        want = LLVMBuildAdd(L->b, want, LLVMBuildMul(L->b, const_lanes(L, s->k, s->bits), splat(L, sx), ""), "");
    LLVMValueRef bad = LLVMBuildAnd(L->b, LLVMBuildICmp(L->b, LLVMIntNE, addrs, want, ""), mask, "");
    LLVMTypeRef vt = LLVMTypeOf(bad);
    LLVMValueRef any = call_intrinsic(L, "llvm.vector.reduce.or", &vt, 1, &bad, 1);
    return LLVMBuildNot(L->b, any, "");
}

/* The guard condition of a known shape: no widened lane wraps (or the
 * addresses checked). */
static LLVMValueRef guard_cond(lw *L, const shape *s, LLVMValueRef addrs, LLVMValueRef mask)
{
    LLVMValueRef ok = LLVMConstInt(L->i1, 1, false), f = shape_lane(L, s, mask);
    if (s->verify) /* every address compared: the no-wrap tests add nothing */
        return addresses_match(L, s, addrs, mask, f);
    for (unsigned i = 0; i < s->ng; i++) {
        const guard *g = &s->g[i];
        if (g->sym) {
            ok = LLVMBuildAnd(L->b, ok, sym_guard(L, g, f), "");
            continue;
        }
        LLVMTypeRef t = LLVMIntTypeInContext(L->ctx, g->bits);
        LLVMValueRef x = lane0_value(L, g->x, g->xoff, g->xk, NULL, g->bits, f);
        uint64_t top = g->bits >= 64 ? UINT64_MAX : (1ull << g->bits) - 1;
        if (g->is_signed) { /* x + lo >= MIN, x + hi <= MAX */
            int64_t min = g->bits >= 64 ? INT64_MIN : -(int64_t)(1ull << (g->bits - 1)), max = (int64_t)(top >> 1);
            LLVMValueRef a = LLVMBuildICmp(L->b, LLVMIntSGE, x, LLVMConstInt(t, (uint64_t)(min - g->lo), true), "");
            LLVMValueRef b = LLVMBuildICmp(L->b, LLVMIntSLE, x, LLVMConstInt(t, (uint64_t)(max - g->hi), true), "");
            ok = LLVMBuildAnd(L->b, ok, LLVMBuildAnd(L->b, a, b, ""), "");
        } else { /* x + lo >= 0, x + hi <= top (of the lower half: see widen) */
            top = g->bits >= 64 ? top : top >> 1;
            LLVMValueRef a = LLVMBuildICmp(L->b, LLVMIntUGE, x, LLVMConstInt(t, (uint64_t)-g->lo, false), "");
            LLVMValueRef b = LLVMBuildICmp(L->b, LLVMIntULE, x, LLVMConstInt(t, top - (uint64_t)g->hi, false), "");
            ok = LLVMBuildAnd(L->b, ok, LLVMBuildAnd(L->b, a, b, ""), "");
        }
    }
    return ok;
}

/* Runs of lanes: consecutive elements (step = access size) or one address
 * (step 0), each at an offset (and stride multiple) from lane 0. */
typedef struct run {
    unsigned first, n;
    int64_t off, step, k;
} run;

static unsigned find_runs(const shape *s, int64_t size, run *r, unsigned max)
{
    unsigned nr = 0;
    for (unsigned l = 0; l < W;) {
        int64_t step = l + 1 < W && s->k[l + 1] == s->k[l] ? s->off[l + 1] - s->off[l] : size;
        if (step != 0 && step != size)
            step = size; /* a run of one */
        unsigned n = 1;
        while (l + n < W && s->k[l + n] == s->k[l] && s->off[l + n] - s->off[l + n - 1] == step)
            n++;
        if (nr == max)
            return max + 1;
        r[nr++] = (run){l, n, s->off[l], step, s->k[l]};
        l += n;
    }
    return nr;
}

LLVMValueRef lane_range_mask(lw *L, LLVMValueRef mask, unsigned first, unsigned n)
{
    LLVMValueRef idx[W];
    for (unsigned i = 0; i < n; i++)
        idx[i] = const_i32(L, first + i);
    return LLVMBuildShuffleVector(L->b, mask, LLVMGetPoison(LLVMTypeOf(mask)), LLVMConstVector(idx, n), "");
}

static LLVMValueRef at_offset(lw *L, LLVMValueRef base, const run *r, LLVMValueRef sx)
{
    LLVMValueRef a = LLVMBuildAdd(L->b, base, const_i64(L, (uint64_t)r->off), "");
    if (r->k)
        a = LLVMBuildAdd(L->b, a, LLVMBuildMul(L->b, const_i64(L, (uint64_t)r->k), sx, ""), "");
    return LLVMBuildIntToPtr(L->b, a, L->ptr, "");
}

static LLVMValueRef vector_load(lw *L, LLVMValueRef p, LLVMTypeRef vt, LLVMValueRef mask, uint32_t align)
{
    LLVMTypeRef t[2] = {vt, L->ptr};
    LLVMValueRef a[4] = {p, const_i32(L, align), mask, LLVMConstNull(vt)};
    return call_intrinsic(L, "llvm.masked.load", t, 2, a, 4);
}

/* The run's lanes as mask bits. */
static uint32_t run_bits(const run *r)
{
    return (uint32_t)((r->n >= 32 ? ~0ull : (1ull << r->n) - 1) << r->first);
}

static bool same_run(const run *a, const run *b)
{
    return a->n == b->n && a->off == b->off && a->step == b->step && a->k == b->k;
}

/* One run's values under its lanes' mask `sub` (n elements): a masked
 * vector load, or a scalar load when some lane of `lanes` (bits of the
 * access's mask) is active, broadcast. */
static LLVMValueRef load_run(lw *L, LLVMValueRef base, const run *r, LLVMValueRef sx, LLVMTypeRef elem,
                             LLVMValueRef sub, LLVMValueRef lanes, uint32_t align)
{
    LLVMValueRef p = at_offset(L, base, r, sx);
    if (r->step) {
        LLVMValueRef v = vector_load(L, p, LLVMVectorType(elem, r->n), sub, align);
        return v;
    }
    /* one scalar load, from a harmless place when no lane of the run is
     * active (no branch, no masked one-element load); the test is on the
     * mask's bits (a reduction of the i1 subvector went through memory) */
    LLVMValueRef any = LLVMBuildICmp(L->b, LLVMIntNE, lanes, const_i32(L, 0), "");
    LLVMValueRef dummy = LLVMGetNamedGlobal(L->mod, "ptxjit.shape.dummy");
    if (!dummy) {
        LLVMTypeRef t = LLVMArrayType2(L->i64, 4);
        dummy = LLVMAddGlobal(L->mod, t, "ptxjit.shape.dummy");
        LLVMSetInitializer(dummy, LLVMConstNull(t));
        LLVMSetGlobalConstant(dummy, true);
        LLVMSetLinkage(dummy, LLVMPrivateLinkage);
        LLVMSetAlignment(dummy, 32);
    }
    LLVMValueRef x = LLVMBuildLoad2(L->b, elem, LLVMBuildSelect(L->b, any, p, dummy, ""), "");
    LLVMSetAlignment(x, align);
    LLVMValueRef v = LLVMBuildInsertElement(L->b, LLVMGetPoison(LLVMVectorType(elem, 1)), x, const_i32(L, 0), "");
    LLVMValueRef zeros[W];
    for (unsigned i = 0; i < r->n; i++)
        zeros[i] = const_i32(L, 0);
    return LLVMBuildShuffleVector(L->b, v, LLVMGetPoison(LLVMTypeOf(v)), LLVMConstVector(zeros, r->n), "");
}

/* Lanes [first, first + n) of the result from part (n elements). */
static LLVMValueRef place(lw *L, LLVMValueRef acc, LLVMValueRef part, const run *r)
{
    if (r->n == W)
        return part;
    LLVMValueRef wide[W], idx[W];
    for (unsigned i = 0; i < W; i++)
        wide[i] = i < r->n ? const_i32(L, i) : LLVMGetUndef(L->i32);
    LLVMValueRef w = LLVMBuildShuffleVector(L->b, part, LLVMGetPoison(LLVMTypeOf(part)), LLVMConstVector(wide, W), "");
    for (unsigned i = 0; i < W; i++)
        idx[i] = const_i32(L, i >= r->first && i < r->first + r->n ? W + i - r->first : i);
    return LLVMBuildShuffleVector(L->b, acc, w, LLVMConstVector(idx, W), "");
}

/* Whether run r starts on another line than `first`: another row (its
 * own multiple of the row stride) or 64 bytes or more along. */
static bool other_line(const run *r, const run *first)
{
    return r->k != first->k || r->off >= first->off + 64 || r->off + 64 <= first->off;
}

/* A known shape's load: its runs (equal runs loaded once), else a gather
 * without the run-time tests. */
static LLVMValueRef known_load(lw *L, const shape *s, LLVMValueRef addrs, LLVMValueRef mask, uint32_t align,
                               LLVMTypeRef vt, LLVMValueRef prefetch, enum prefetch_plan plan)
{
    LLVMTypeRef elem = LLVMGetElementType(vt);
    run r[MAX_RUNS + 1];
    unsigned nr = find_runs(s, align, r, MAX_RUNS);
    if (nr > MAX_RUNS) {
        LLVMTypeRef pvt = vec_of(L->ptr), t[2] = {vt, pvt};
        LLVMValueRef a[4] = {LLVMBuildIntToPtr(L->b, addrs, pvt, ""), const_i32(L, align), mask, LLVMConstNull(vt)};
        return call_intrinsic(L, "llvm.masked.gather", t, 2, a, 4);
    }
    /* runs over the same addresses (a row read by two rows of lanes) load
     * once, under the union of their lanes */
    LLVMValueRef sx = shape_sym(L, s);
    LLVMValueRef base = lane0_value(L, addrs, s->off, s->k, sx, 64, shape_lane(L, s, mask));
    /* a loop's site prefetches each row of the warp's access a step ahead
     * (SGEMM's B tile: rows 4 KiB apart, which no CPU prefetcher follows,
     * -8% on a Sapphire Rapids core); a site run once per warp one row:
     * its last, where a 2D block's warps read down the rows (the stencil's
     * in[p + nx]: the row below the CTA's band was prefetched by no warp,
     * -4%; both rows were 3% slower) */
    LLVMValueRef step = NULL;
    bool once = plan == PREFETCH_FIRST_ROW && (!prefetch || LLVMIsNull(prefetch));
    if (once && other_line(&r[nr - 1], &r[0]))
        prefetch_rows_ahead(L, LLVMBuildPtrToInt(L->b, at_offset(L, base, &r[nr - 1], sx), L->i64, ""),
                            r[nr - 1].n * align);
    else if (plan)
        step = prefetch_ahead(L, prefetch, base, r[0].n * align, plan);
    for (unsigned i = 1; step && plan == PREFETCH_EACH_ROW && i < nr; i++)
        if (other_line(&r[i], &r[0]))
            prefetch_stepped(L, LLVMBuildPtrToInt(L->b, at_offset(L, base, &r[i], sx), L->i64, ""), step,
                             r[i].n * align);
    LLVMValueRef acc = LLVMGetPoison(vt), parts[MAX_RUNS];
    for (unsigned i = 0; i < nr; i++) {
        unsigned j = 0;
        while (j < i && !same_run(&r[j], &r[i]))
            j++;
        if (j < i) {
            parts[i] = parts[j];
        } else {
            LLVMValueRef sub = lane_range_mask(L, mask, r[i].first, r[i].n);
            uint32_t bits = run_bits(&r[i]);
            for (unsigned k = i + 1; k < nr; k++)
                if (same_run(&r[k], &r[i])) {
                    sub = LLVMBuildOr(L->b, sub, lane_range_mask(L, mask, r[k].first, r[k].n), "");
                    bits |= run_bits(&r[k]);
                }
            LLVMValueRef lanes = LLVMBuildAnd(L->b, LLVMBuildBitCast(L->b, mask, L->i32, ""), const_i32(L, bits), "");
            parts[i] = load_run(L, base, &r[i], sx, elem, sub, lanes, align);
        }
        acc = place(L, acc, parts[i], &r[i]);
    }
    return acc;
}

/* The addresses as splat(lane 0) + off (+ k S).  A lane read out of it
 * by a constant index becomes the scalar sum at once: instcombine leaves
 * extracts of a vector with many uses alone. */
static LLVMValueRef known_lanes(lw *L, const shape *s, LLVMValueRef c)
{
    LLVMValueRef addrs = LLVMGetOperand(c, 0), sx = shape_sym(L, s);
    LLVMValueRef base = lane0_value(L, addrs, s->off, s->k, sx, 64, shape_lane(L, s, LLVMGetOperand(c, 1)));
    for (LLVMUseRef u = LLVMGetFirstUse(c), next; u; u = next) {
        next = LLVMGetNextUse(u);
        LLVMValueRef x = LLVMGetUser(u), i = LLVMIsAExtractElementInst(x) ? LLVMGetOperand(x, 1) : NULL;
        if (!i || !LLVMIsAConstantInt(i) || LLVMConstIntGetZExtValue(i) >= W)
            continue;
        unsigned l = (unsigned)LLVMConstIntGetZExtValue(i);
        LLVMPositionBuilderBefore(L->b, x);
        LLVMValueRef a = LLVMBuildAdd(L->b, base, const_i64(L, (uint64_t)s->off[l]), "");
        if (sx && s->k[l])
            a = LLVMBuildAdd(L->b, a, LLVMBuildMul(L->b, const_i64(L, (uint64_t)s->k[l]), sx, ""), "");
        LLVMReplaceAllUsesWith(x, a);
        LLVMInstructionEraseFromParent(x);
    }
    LLVMPositionBuilderBefore(L->b, c);
    LLVMValueRef v = LLVMBuildAdd(L->b, splat(L, base), const_lanes(L, s->off, 64), "");
    if (sx && any_k(s->k))
        v = LLVMBuildAdd(L->b, v, LLVMBuildMul(L->b, const_lanes(L, s->k, 64), splat(L, sx), ""), "");
    return v;
}

/* A known shape's store: consecutive runs as masked vector stores in lane
 * order; runs of one address (several lanes storing to one place) keep
 * the scatter's lane order. */
static void known_store(lw *L, const shape *s, LLVMValueRef val, LLVMValueRef addrs, LLVMValueRef mask,
                        uint32_t align)
{
    LLVMTypeRef vt = LLVMTypeOf(val);
    run r[MAX_RUNS + 1];
    unsigned nr = find_runs(s, align, r, MAX_RUNS);
    bool runs = nr <= MAX_RUNS;
    for (unsigned i = 0; runs && i < nr; i++)
        runs = r[i].step != 0 || r[i].n == 1 || (nr == 1 && r[i].n == W);
    if (!runs) {
        LLVMTypeRef pvt = vec_of(L->ptr), t[2] = {vt, pvt};
        LLVMValueRef a[4] = {val, LLVMBuildIntToPtr(L->b, addrs, pvt, ""), const_i32(L, align), mask};
        call_intrinsic(L, "llvm.masked.scatter", t, 2, a, 4);
        return;
    }
    LLVMValueRef sx = shape_sym(L, s);
    LLVMValueRef base = lane0_value(L, addrs, s->off, s->k, sx, 64, shape_lane(L, s, mask));
    if (nr == 1 && r[0].n == W && r[0].step == 0) { /* one address: the last active lane's value */
        LLVMTypeRef v1 = LLVMVectorType(LLVMGetElementType(vt), 1);
        LLVMValueRef bits = LLVMBuildBitCast(L->b, mask, L->i32, "");
        LLVMValueRef one = LLVMBuildInsertElement(L->b, LLVMGetPoison(v1), last_lane_value(L, val, bits),
                                                  const_i32(L, 0), "");
        LLVMValueRef any = LLVMBuildICmp(L->b, LLVMIntNE, bits, const_i32(L, 0), "");
        LLVMValueRef m1 = LLVMBuildInsertElement(L->b, LLVMGetPoison(LLVMVectorType(L->i1, 1)), any, const_i32(L, 0), "");
        LLVMTypeRef t[2] = {v1, L->ptr};
        LLVMValueRef a[4] = {one, at_offset(L, base, &r[0], sx), const_i32(L, align), m1};
        call_intrinsic(L, "llvm.masked.store", t, 2, a, 4);
        return;
    }
    for (unsigned i = 0; i < nr; i++) {
        LLVMValueRef part = lane_range_mask(L, val, r[i].first, r[i].n);
        LLVMTypeRef t[2] = {LLVMTypeOf(part), L->ptr};
        LLVMValueRef a[4] = {part, at_offset(L, base, &r[i], sx), const_i32(L, align),
                             lane_range_mask(L, mask, r[i].first, r[i].n)};
        call_intrinsic(L, "llvm.masked.store", t, 2, a, 4);
    }
}

static bool name_starts(LLVMValueRef f, const char *prefix)
{
    size_t n;
    const char *name = LLVMGetValueName2(f, &n);
    return n >= strlen(prefix) && !strncmp(name, prefix, strlen(prefix));
}

/* The guards (or the other placeholders) of the module, in one array. */
static LLVMValueRef *placeholder_calls(LLVMModuleRef m, unsigned *count, bool guards)
{
    LLVMValueRef *calls = NULL;
    unsigned n = 0, cap = 0;
    for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
        for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b))
            for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) {
                LLVMValueRef callee = LLVMIsACallInst(i) ? LLVMGetCalledValue(i) : NULL;
                if (!callee || !LLVMIsAFunction(callee) || !name_starts(callee, "ptxjit.shape.") ||
                    name_starts(callee, SHAPE_GUARD) != guards)
                    continue;
                if (n == cap) {
                    cap = cap ? 2 * cap : 64;
                    calls = realloc(calls, cap * sizeof *calls);
                    if (!calls)
                        abort();
                }
                calls[n++] = i;
            }
    *count = n;
    return calls;
}


/* The placeholder a guard branches to: the first instruction of the
 * branch's true successor (as lowering emitted it); NULL if not there. */
static LLVMValueRef guarded_placeholder(LLVMValueRef g)
{
    LLVMUseRef u = LLVMGetFirstUse(g);
    LLVMValueRef br = u ? LLVMGetUser(u) : NULL;
    if (!br || LLVMGetNextUse(u) || !LLVMIsABranchInst(br) || !LLVMIsConditional(br))
        return NULL;
    LLVMValueRef c = LLVMGetFirstInstruction(LLVMGetSuccessor(br, 0));
    LLVMValueRef callee = c && LLVMIsACallInst(c) ? LLVMGetCalledValue(c) : NULL;
    if (!callee || !LLVMIsAFunction(callee) || !name_starts(callee, "ptxjit.shape.") ||
        name_starts(callee, SHAPE_GUARD))
        return NULL;
    return c;
}

/* The access of a placeholder, with a known shape. */
static void emit_known(analysis *A, const shape *s, LLVMValueRef c)
{
    lw *L = A->L;
    LLVMPositionBuilderBefore(L->b, c);
    if (name_starts(LLVMGetCalledValue(c), SHAPE_LANES)) {
        LLVMReplaceAllUsesWith(c, known_lanes(L, s, c));
    } else if (name_starts(LLVMGetCalledValue(c), SHAPE_LOAD)) {
        uint32_t align = (uint32_t)LLVMConstIntGetZExtValue(LLVMGetOperand(c, 2));
        LLVMValueRef v = known_load(L, s, LLVMGetOperand(c, 0), LLVMGetOperand(c, 1), align, LLVMTypeOf(c),
                                    LLVMGetOperand(c, 3),
                                    (enum prefetch_plan)LLVMConstIntGetZExtValue(LLVMGetOperand(c, 4)));
        LLVMReplaceAllUsesWith(c, v);
    } else {
        uint32_t align = (uint32_t)LLVMConstIntGetZExtValue(LLVMGetOperand(c, 3));
        known_store(L, s, LLVMGetOperand(c, 0), LLVMGetOperand(c, 1), LLVMGetOperand(c, 2), align);
    }
    LLVMInstructionEraseFromParent(c);
}



/* ---- the run-time path's own address vectors ----
 * With a known shape the fast path needs lane 0's address only, but the
 * run-time path reads the address vectors, and LLVM computes them before
 * the guard's branch whenever several run-time paths share them (the
 * stencil's five loads from one base).  Each run-time path gets its own
 * copy of the pure vector arithmetic it reads, so the originals die on
 * the fast path. */
enum { MAX_REGION = 32, MAX_CLONES = 48 };

typedef struct region {
    LLVMBasicBlockRef bb[MAX_REGION];
    unsigned n;
    LLVMValueRef from[MAX_CLONES], to[MAX_CLONES];
    unsigned nclones;
} region;

static bool in_region(const region *r, LLVMBasicBlockRef b)
{
    for (unsigned i = 0; i < r->n; i++)
        if (r->bb[i] == b)
            return true;
    return false;
}

/* The blocks from entry up to (not including) join; false when the region
 * is larger than MAX_REGION or entered other than through entry. */
static bool collect_region(region *r, LLVMBasicBlockRef entry, LLVMBasicBlockRef join)
{
    r->n = 0;
    r->bb[r->n++] = entry;
    for (unsigned i = 0; i < r->n; i++) {
        LLVMValueRef t = LLVMGetBasicBlockTerminator(r->bb[i]);
        for (unsigned k = 0; t && k < LLVMGetNumSuccessors(t); k++) {
            LLVMBasicBlockRef s = LLVMGetSuccessor(t, k);
            if (s == join || in_region(r, s))
                continue;
            if (r->n == MAX_REGION)
                return false;
            r->bb[r->n++] = s;
        }
    }
    /* single entry: entry has one predecessor, the others theirs inside */
    LLVMUseRef e = LLVMGetFirstUse(LLVMBasicBlockAsValue(entry));
    if (!e || LLVMGetNextUse(e))
        return false;
    for (unsigned i = 1; i < r->n; i++)
        for (LLVMUseRef u = LLVMGetFirstUse(LLVMBasicBlockAsValue(r->bb[i])); u; u = LLVMGetNextUse(u)) {
            LLVMValueRef user = LLVMGetUser(u);
            if (!LLVMIsAInstruction(user) || !in_region(r, LLVMGetInstructionParent(user)))
                return false;
        }
    return true;
}

static bool cloneable(LLVMValueRef v)
{
    if (!LLVMIsAInstruction(v) || LLVMGetTypeKind(LLVMTypeOf(v)) != LLVMVectorTypeKind)
        return false;
    switch (LLVMGetInstructionOpcode(v)) {
    case LLVMAdd: case LLVMSub: case LLVMMul: case LLVMShl: case LLVMLShr: case LLVMAShr:
    case LLVMAnd: case LLVMOr: case LLVMXor: case LLVMZExt: case LLVMSExt: case LLVMTrunc:
    case LLVMShuffleVector: case LLVMInsertElement: case LLVMIntToPtr: case LLVMPtrToInt:
    case LLVMGetElementPtr:
        return true;
    default:
        return false;
    }
}

/* v, or its copy at the builder's place (operands first) when it is pure
 * vector arithmetic from outside the region. */
static LLVMValueRef clone_chain(lw *L, region *r, LLVMValueRef v)
{
    if (!cloneable(v) || in_region(r, LLVMGetInstructionParent(v)))
        return v;
    for (unsigned i = 0; i < r->nclones; i++)
        if (r->from[i] == v)
            return r->to[i];
    if (r->nclones == MAX_CLONES)
        return v;
    unsigned n = (unsigned)LLVMGetNumOperands(v);
    LLVMValueRef ops[4];
    if (n > 4)
        return v;
    for (unsigned i = 0; i < n; i++)
        ops[i] = clone_chain(L, r, LLVMGetOperand(v, i));
    if (r->nclones == MAX_CLONES)
        return v;
    LLVMValueRef c = LLVMInstructionClone(v);
    for (unsigned i = 0; i < n; i++)
        LLVMSetOperand(c, i, ops[i]);
    LLVMInsertIntoBuilder(L->b, c);
    r->from[r->nclones] = v;
    r->to[r->nclones++] = c;
    return c;
}

/* The run-time path entry..join reads copies of the address arithmetic;
 * the originals are remembered, to be erased once the fast path (which
 * computes lane 0 from scalars) no longer reads them: left in place they
 * would be merged back with the copies (CSE) and computed on the fast
 * path. */
static void own_addresses(analysis *A, LLVMBasicBlockRef entry, LLVMBasicBlockRef join)
{
    lw *L = A->L;
    region r = {.nclones = 0};
    if (!collect_region(&r, entry, join))
        return;
    LLVMValueRef first = LLVMGetFirstInstruction(entry);
    while (first && LLVMIsAPHINode(first))
        first = LLVMGetNextInstruction(first);
    if (!first)
        return;
    /* the copies go before `first`, behind the walk over entry: never
     * visited themselves */
    LLVMPositionBuilderBefore(L->b, first);
    for (unsigned i = 0; i < r.n; i++)
        for (LLVMValueRef in = i ? LLVMGetFirstInstruction(r.bb[i]) : first; in; in = LLVMGetNextInstruction(in)) {
            if (LLVMIsAPHINode(in))
                continue;
            unsigned n = (unsigned)LLVMGetNumOperands(in);
            for (unsigned k = 0; k < n; k++) {
                LLVMValueRef o = LLVMGetOperand(in, k);
                LLVMValueRef c = clone_chain(L, &r, o);
                if (c != o)
                    LLVMSetOperand(in, k, c);
            }
        }
    if (!r.nclones)
        return;
    if (A->ncopied + r.nclones > A->capcopied) {
        A->capcopied = 2 * (A->ncopied + r.nclones);
        A->copied = realloc(A->copied, A->capcopied * sizeof *A->copied);
        if (!A->copied)
            abort(); /* lowering has no partial-failure path */
    }
    memcpy(A->copied + A->ncopied, r.from, r.nclones * sizeof *r.from);
    A->ncopied += r.nclones;
}

/* The copied originals nothing reads any more (operands after users). */
static void erase_copied(analysis *A)
{
    for (bool again = true; again;) {
        again = false;
        for (unsigned i = 0; i < A->ncopied; i++)
            if (A->copied[i] && !LLVMGetFirstUse(A->copied[i])) {
                LLVMValueRef v = A->copied[i];
                for (unsigned j = 0; j < A->ncopied; j++) /* copied by several paths */
                    if (A->copied[j] == v)
                        A->copied[j] = NULL;
                LLVMInstructionEraseFromParent(v);
                again = true;
            }
    }
    free(A->copied);
}

/* One access: its guard and its placeholder decided together, from one
 * analysis (the placeholder's branch is dead when the guard is false). */
static void rewrite(analysis *A, LLVMValueRef g)
{
    lw *L = A->L;
    LLVMValueRef c = guarded_placeholder(g), mask = LLVMGetOperand(g, 1);
    LLVMValueRef br = c ? LLVMGetUser(LLVMGetFirstUse(g)) : NULL;
    if (A->mask != mask && A->masked) { /* shapes for other lanes */
        ptrmap_free(&A->memo);
        A->masked = false;
    }
    A->mask = mask;
    shape *s = c ? analyze(A, LLVMGetOperand(g, 0)) : NULL;
    bool known = s && s->state == S_KNOWN;
    LLVMPositionBuilderBefore(L->b, g);
    LLVMValueRef ok = known ? guard_cond(L, s, LLVMGetOperand(g, 0), A->mask) : LLVMConstInt(L->i1, 0, false);
    LLVMReplaceAllUsesWith(g, ok);
    LLVMInstructionEraseFromParent(g);
    if (!known)
        return;
    LLVMBasicBlockRef fast = LLVMGetSuccessor(br, 0), runtime = LLVMGetSuccessor(br, 1);
    emit_known(A, s, c);
    LLVMValueRef t = LLVMGetBasicBlockTerminator(fast);
    if (t && LLVMGetNumSuccessors(t) == 1)
        own_addresses(A, runtime, LLVMGetSuccessor(t, 0));
}

/* An alignment test, exact for the access's lanes.  With a known shape,
 * lane l's address is lane 0's (b) plus off[l] plus k[l] S, exactly in its
 * low bits whatever the guards say (every step of a shape is exact modulo
 * 2^32, and an alignment divides that), so lanes agreeing in k and in
 * off's low bits are aligned together: one scalar test of
 * b + off + k S per such group, under "some lane of the group is
 * active".  Without a shape (or with many groups), the vector test. */
enum { MAX_ALIGN_GROUPS = 4 };

/* v (a scalar) as t + *c modulo 2^32, the constant terms of its sums and
 * differences gathered into *c: accesses at several immediates from one
 * base then test the same t, which LLVM computes once and, as a fault
 * does not come back, tests once.  t is an i64, or NULL for 0. */
static LLVMValueRef low_terms(lw *L, LLVMValueRef v, int64_t *c, unsigned depth)
{
    if (LLVMIsAConstantInt(v)) {
        *c += LLVMConstIntGetSExtValue(v);
        return NULL;
    }
    LLVMOpcode op = LLVMIsAInstruction(v) ? LLVMGetInstructionOpcode(v) : LLVMRet;
    if (depth < 8 && (op == LLVMAdd || (op == LLVMSub && LLVMIsAConstantInt(LLVMGetOperand(v, 1))))) {
        LLVMValueRef a = low_terms(L, LLVMGetOperand(v, 0), c, depth + 1);
        if (op == LLVMSub) {
            *c -= LLVMConstIntGetSExtValue(LLVMGetOperand(v, 1));
            return a;
        }
        LLVMValueRef b = low_terms(L, LLVMGetOperand(v, 1), c, depth + 1);
        return a && b ? LLVMBuildAdd(L->b, a, b, "") : a ? a : b;
    }
    if (depth < 8 && (op == LLVMZExt || op == LLVMSExt || op == LLVMTrunc)) /* the low bits stay */
        return low_terms(L, LLVMGetOperand(v, 0), c, depth + 1);
    unsigned w = LLVMGetIntTypeWidth(LLVMTypeOf(v));
    return w == 64 ? v : w < 64 ? LLVMBuildZExt(L->b, v, L->i64, "") : LLVMBuildTrunc(L->b, v, L->i64, "");
}

static LLVMValueRef known_misaligned(lw *L, const shape *s, LLVMValueRef addrs, LLVMValueRef mask, uint32_t align)
{
    int64_t low[MAX_ALIGN_GROUPS], k[MAX_ALIGN_GROUPS];
    uint32_t lanes[MAX_ALIGN_GROUPS] = {0};
    unsigned n = 0;
    for (unsigned l = 0; l < W; l++) {
        int64_t r = s->off[l] & (int64_t)(align - 1), kl = s->sym ? s->k[l] : 0;
        unsigned g = 0;
        while (g < n && (low[g] != r || k[g] != kl))
            g++;
        if (g == MAX_ALIGN_GROUPS)
            return NULL;
        if (g == n)
            low[n] = r, k[n] = kl, n++;
        lanes[g] |= 1u << l;
    }
    LLVMValueRef sx = shape_sym(L, s);
    int64_t c = 0;
    LLVMValueRef b = low_terms(L, lane0_value(L, addrs, s->off, s->k, sx, 64, shape_lane(L, s, mask)), &c, 0);
    LLVMValueRef bits = LLVMBuildBitCast(L->b, mask, L->i32, ""), bad = LLVMConstInt(L->i1, 0, false);
    for (unsigned g = 0; g < n; g++) {
        LLVMValueRef a = b ? b : const_i64(L, 0);
        if ((c + low[g]) & (int64_t)(align - 1))
            a = LLVMBuildAdd(L->b, a, const_i64(L, (uint64_t)(c + low[g])), "");
        if (k[g])
            a = LLVMBuildAdd(L->b, a, LLVMBuildMul(L->b, const_i64(L, (uint64_t)k[g]), sx, ""), "");
        a = LLVMBuildAnd(L->b, a, const_i64(L, align - 1), "");
        LLVMValueRef mis = LLVMBuildICmp(L->b, LLVMIntNE, a, const_i64(L, 0), "");
        LLVMValueRef act = LLVMBuildAnd(L->b, bits, const_i32(L, lanes[g]), "");
        act = LLVMBuildICmp(L->b, LLVMIntNE, act, const_i32(L, 0), "");
        bad = LLVMBuildOr(L->b, bad, LLVMBuildAnd(L->b, mis, act, ""), "");
    }
    return bad;
}

static void resolve_align(analysis *A, LLVMValueRef c)
{
    lw *L = A->L;
    LLVMValueRef addrs = LLVMGetOperand(c, 0), mask = LLVMGetOperand(c, 1);
    uint32_t align = (uint32_t)LLVMConstIntGetZExtValue(LLVMGetOperand(c, 2));
    if (A->mask != mask && A->masked) {
        ptrmap_free(&A->memo);
        A->masked = false;
    }
    A->mask = mask;
    shape *s = analyze(A, addrs);
    LLVMUseRef u = LLVMGetFirstUse(c);
    LLVMValueRef br = u && !LLVMGetNextUse(u) ? LLVMGetUser(u) : NULL;
    LLVMPositionBuilderBefore(L->b, c);
    LLVMValueRef bad = s->state == S_KNOWN ? known_misaligned(L, s, addrs, mask, align) : NULL;
    if (!bad)
        bad = misaligned_lanes(L, addrs, mask, align);
    LLVMReplaceAllUsesWith(c, bad);
    LLVMInstructionEraseFromParent(c);
    if (bad && br && LLVMIsABranchInst(br) && LLVMIsConditional(br)) /* the fault path's own addresses */
        own_addresses(A, LLVMGetSuccessor(br, 0), NULL);
}

/* The alignment tests of the module. */
static LLVMValueRef *align_tests(LLVMModuleRef m, unsigned *count)
{
    LLVMValueRef f = LLVMGetNamedFunction(m, ALIGN_TEST), *calls = NULL;
    unsigned n = 0;
    for (LLVMUseRef u = f ? LLVMGetFirstUse(f) : NULL; u; u = LLVMGetNextUse(u))
        n++;
    calls = malloc((n ? n : 1) * sizeof *calls);
    if (!calls)
        abort();
    n = 0;
    for (LLVMUseRef u = f ? LLVMGetFirstUse(f) : NULL; u; u = LLVMGetNextUse(u))
        calls[n++] = LLVMGetUser(u);
    *count = n;
    return calls;
}

/* Placeholders whose guard was false: their branch is dead. */
static void drop_placeholder(LLVMValueRef c)
{
    if (LLVMGetTypeKind(LLVMTypeOf(c)) != LLVMVoidTypeKind)
        LLVMReplaceAllUsesWith(c, LLVMGetPoison(LLVMTypeOf(c)));
    LLVMInstructionEraseFromParent(c);
}

/* Whether lane_of computes v's lanes from scalars rather than extracting
 * them: lane arithmetic, extensions, broadcasts. */
static bool lane_arith(LLVMValueRef v)
{
    if (!LLVMIsAInstruction(v))
        return false;
    switch (LLVMGetInstructionOpcode(v)) {
    case LLVMAdd: case LLVMSub: case LLVMMul: case LLVMShl: case LLVMOr: case LLVMAnd: case LLVMXor:
    case LLVMZExt: case LLVMSExt: case LLVMTrunc:
        return true;
    case LLVMShuffleVector:
        return is_broadcast(v);
    default:
        return false;
    }
}

/* Whether the run-time path copied v (own_addresses): the fast path then
 * needs v only for what reads it there. */
static bool was_copied(const analysis *A, LLVMValueRef v)
{
    for (unsigned i = 0; i < A->ncopied; i++)
        if (A->copied[i] == v)
            return true;
    return false;
}

static bool ends_in_unreachable(LLVMBasicBlockRef bb)
{
    LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
    return t && LLVMGetInstructionOpcode(t) == LLVMUnreachable;
}

/* Extracts of one constant lane from address arithmetic the run-time
 * path has its own copy of (a store's prefetch of lanes 0 and 16) become
 * that lane's arithmetic in scalar code: instcombine leaves an extract of
 * a vector with other uses alone, and the 64-bit address vectors would be
 * built on the fast path only to read two of their lanes.  A fault
 * report's extract of the faulting lane goes the same way.  Where the
 * fast path needs the vector anyway, its extract is one instruction and
 * stays. */
static void scalarize_lane_extracts(analysis *A)
{
    lw *L = A->L;
    LLVMValueRef *list = NULL;
    unsigned n = 0, cap = 0;
    for (LLVMValueRef f = LLVMGetFirstFunction(L->mod); f; f = LLVMGetNextFunction(f))
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
                if (!LLVMIsAExtractElementInst(i) || !lane_arith(LLVMGetOperand(i, 0)) ||
                    !(ends_in_unreachable(bb) ||
                      (LLVMIsAConstantInt(LLVMGetOperand(i, 1)) && was_copied(A, LLVMGetOperand(i, 0)))))
                    continue;
                if (n == cap) {
                    LLVMValueRef *more = realloc(list, (cap ? 2 * cap : 64) * sizeof *list);
                    if (!more)
                        goto rewrite; /* the rest stay extracts: only slower */
                    list = more;
                    cap = cap ? 2 * cap : 64;
                }
                list[n++] = i;
            }
rewrite:
    for (unsigned k = 0; k < n; k++) {
        LLVMPositionBuilderBefore(L->b, list[k]);
        LLVMReplaceAllUsesWith(list[k], lane_of(L, LLVMGetOperand(list[k], 0), LLVMGetOperand(list[k], 1)));
        LLVMInstructionEraseFromParent(list[k]);
    }
    free(list);
}

/* After lowering: registers into SSA values, then every placeholder
 * replaced (see the top of the file). */
void lower_shapes(lw *L, LLVMTargetMachineRef tm)
{
    LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
    LLVMErrorRef e = LLVMRunPasses(L->mod, "function(sroa,early-cse,instcombine<no-verify-fixpoint>)", tm, opts);
    LLVMDisposePassBuilderOptions(opts);
    if (e)
        LLVMConsumeError(e); /* the placeholders still get replaced; shapes are then unknown */
    unsigned n;
    LLVMValueRef *calls = placeholder_calls(L->mod, &n, true);
    analysis A = {.L = L};
    for (unsigned i = 0; i < n; i++)
        rewrite(&A, calls[i]);
    free(calls);
    calls = align_tests(L->mod, &n);
    for (unsigned i = 0; i < n; i++)
        resolve_align(&A, calls[i]);
    free(calls);
    calls = placeholder_calls(L->mod, &n, false);
    for (unsigned i = 0; i < n; i++)
        drop_placeholder(calls[i]);
    for (unsigned i = 0; i < A.nlog; i++)
        free(A.log[i]);
    free(A.log);
    free(A.slot_val);
    free(A.slot_off);
    free(A.reload_val);
    free(A.reload_off);
    ptrmap_free(&A.memo);
    scalarize_lane_extracts(&A); /* before erasing: the extracts may be the originals' last readers */
    erase_copied(&A);
    free(calls);
    LLVMValueRef f = LLVMGetFirstFunction(L->mod);
    while (f) {
        LLVMValueRef next = LLVMGetNextFunction(f);
        if (name_starts(f, "ptxjit.shape.") || name_starts(f, ALIGN_TEST))
            LLVMDeleteFunction(f);
        f = next;
    }
}
