/* store_forward.c - stored lanes handed to the loads that read them back.
 *
 * After optimization, regions run by one warp (the tree reduction's last
 * levels, `if (tid < 8) s[tid] += s[tid + 8]`, with warps past the first
 * left out) are straight code: a masked store of 32 lanes, then masked
 * loads of fewer lanes at other offsets.  LLVM does not forward through
 * masked accesses, and the CPU cannot forward a load that starts inside an
 * earlier vector store or spans several stores: it waits until they reach
 * the cache (a fifth of the tree reduction's time).  Here a load whose
 * every active lane reads bytes one active lane of an earlier store wrote,
 * at the same root pointer plus constant offsets, becomes those lanes of
 * the stored values: within a block, and across blocks in reverse
 * post-order where every path leaves the same stores.  Calls, atomics and
 * fences end what is known; a store through a root that may alias
 * another (volatile and atomic stores too) ends what is known of that
 * one. */
#include "store_forward.h"

#include "ptxjit/abi.h"

#include <stdlib.h>
#include <string.h>

enum { MAX_LANES = 64, MAX_STORES = 32 };

/* Where an access goes: root + off, n elements of size bytes, under a
 * lane mask; kind: the root's, for aliasing (root_kind). */
typedef struct access {
    LLVMValueRef root;
    int kind;
    int64_t off;
    uint64_t size;
    unsigned n;
    uint64_t lanes;
} access;

typedef struct stored {
    access at;                /* lanes: the ones written */
    LLVMValueRef value;       /* a vector, or a scalar (one lane) */
} stored;

static bool const_int(LLVMValueRef v, int64_t *out)
{
    if (!LLVMIsAConstantInt(v))
        return false;
    *out = LLVMConstIntGetSExtValue(v);
    return true;
}

static bool is_op(LLVMValueRef v, LLVMOpcode op)
{
    return LLVMIsAInstruction(v) && LLVMGetInstructionOpcode(v) == op;
}

/* A pointer or address as root + constant: through inttoptr, ptrtoint,
 * add and disjoint or of constants, and byte GEPs with constant indices. */
static LLVMValueRef decompose(LLVMTargetDataRef td, LLVMValueRef v, int64_t *off)
{
    *off = 0;
    for (int depth = 0; depth < 16; depth++) {
        int64_t c;
        if (is_op(v, LLVMIntToPtr) || is_op(v, LLVMPtrToInt)) {
            v = LLVMGetOperand(v, 0);
        } else if ((is_op(v, LLVMAdd) || (is_op(v, LLVMOr) && LLVMGetIsDisjoint(v))) &&
                   const_int(LLVMGetOperand(v, 1), &c)) {
            *off += c;
            v = LLVMGetOperand(v, 0);
        } else if (LLVMIsAGetElementPtrInst(v) && LLVMGetNumOperands(v) == 2 &&
                   const_int(LLVMGetOperand(v, 1), &c)) {
            *off += c * (int64_t)LLVMABISizeOfType(td, LLVMGetGEPSourceElementType(v));
            v = LLVMGetOperand(v, 0);
        } else {
            return v;
        }
    }
    return v;
}

/* A constant mask's lanes as bits (false: not a constant of 0s and 1s). */
static bool mask_bits(LLVMValueRef m, unsigned n, uint64_t *bits)
{
    *bits = 0;
    if (n > MAX_LANES || !LLVMIsAConstant(m))
        return false;
    for (unsigned i = 0; i < n; i++) {
        LLVMValueRef e = LLVMGetAggregateElement(m, i);
        int64_t v;
        if (!e || !const_int(e, &v))
            return false;
        if (v & 1)
            *bits |= 1ull << i;
    }
    return true;
}

static const char *callee_name(LLVMValueRef call)
{
    LLVMValueRef f = LLVMGetCalledValue(call);
    size_t len;
    return f && LLVMIsAFunction(f) ? LLVMGetValueName2(f, &len) : "";
}

/* What a root is, for aliasing: an alloca (a stack slot nothing else
 * reaches), a field of the CTA record the function gets (its shared
 * window, its warp frames: separate allocations), or anything else. */
enum { ROOT_OTHER, ROOT_ALLOCA, ROOT_SHARED, ROOT_FRAMES };

static int root_kind(LLVMTargetDataRef td, LLVMValueRef r)
{
    if (LLVMIsAAllocaInst(r))
        return ROOT_ALLOCA;
    if (!LLVMIsALoadInst(r))
        return ROOT_OTHER;
    int64_t off;
    LLVMValueRef base = decompose(td, LLVMGetOperand(r, 0), &off);
    LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInstructionParent(r));
    LLVMContextRef ctx = LLVMGetTypeContext(LLVMTypeOf(r));
    if (!LLVMIsAArgument(base) || !LLVMCountParams(fn) || base != LLVMGetParam(fn, 0) ||
        !LLVMGetMetadata(r, LLVMGetMDKindIDInContext(ctx, "invariant.load", 14)))
        return ROOT_OTHER;
    return off == PTXJIT_CTA_SHARED ? ROOT_SHARED : off == PTXJIT_CTA_FRAMES ? ROOT_FRAMES : ROOT_OTHER;
}

/* An access of type t at pointer p under mask (NULL: every lane). */
static bool describe(LLVMTargetDataRef td, LLVMValueRef p, LLVMTypeRef t, LLVMValueRef mask, access *a)
{
    bool vec = LLVMGetTypeKind(t) == LLVMVectorTypeKind;
    LLVMTypeRef elem = vec ? LLVMGetElementType(t) : t;
    LLVMTypeKind k = LLVMGetTypeKind(elem);
    if (k != LLVMIntegerTypeKind && k != LLVMFloatTypeKind && k != LLVMDoubleTypeKind && k != LLVMHalfTypeKind)
        return false;
    a->n = vec ? LLVMGetVectorSize(t) : 1;
    a->size = LLVMABISizeOfType(td, elem);
    if (a->n > MAX_LANES || LLVMSizeOfTypeInBits(td, elem) != 8 * a->size)
        return false;
    if (mask ? !mask_bits(mask, a->n, &a->lanes) : false)
        return false;
    if (!mask)
        a->lanes = a->n == MAX_LANES ? ~0ull : (1ull << a->n) - 1;
    a->root = decompose(td, p, &a->off);
    a->kind = root_kind(td, a->root);
    return true;
}

/* The store and lane that last wrote lane i's bytes of a, or NULL when
 * none or only part of them: then memory must be read. */
static const stored *source(const stored *s, unsigned ns, const access *a, unsigned i, unsigned *lane)
{
    int64_t lo = a->off + (int64_t)(i * a->size), hi = lo + (int64_t)a->size;
    for (unsigned k = ns; k-- > 0;) {
        const access *w = &s[k].at;
        int64_t size = (int64_t)w->size, end = w->off + size * w->n;
        if (w->root != a->root || end <= lo || w->off >= hi)
            continue;
        int64_t d = lo - w->off;
        if (size == (int64_t)a->size && d % size == 0) { /* one lane covers it exactly */
            if (!(w->lanes >> (d / size) & 1))
                continue;
            *lane = (unsigned)(d / size);
            return &s[k];
        }
        for (unsigned j = 0; j < w->n; j++) {
            int64_t slo = w->off + size * j;
            if (w->lanes >> j & 1 && slo < hi && slo + size > lo)
                return NULL; /* part of it */
        }
    }
    return NULL;
}

/* x where v is [a bitcast of] `select (fcmp uno x, _), NaNs, x)`: the
 * canonical NaN lower/ gives f32 results whose bits a store shows. */
static LLVMValueRef uncanonical(LLVMValueRef v)
{
    if (is_op(v, LLVMBitCast))
        v = LLVMGetOperand(v, 0);
    if (!is_op(v, LLVMSelect))
        return NULL;
    LLVMValueRef c = LLVMGetOperand(v, 0), nan = LLVMGetOperand(v, 1), x = LLVMGetOperand(v, 2);
    LLVMValueRef e = LLVMIsAConstant(nan) ? LLVMGetAggregateElement(nan, 0) : NULL;
    LLVMBool loses;
    if (!e || !LLVMIsAConstantFP(e) || LLVMConstRealGetDouble(e, &loses) == LLVMConstRealGetDouble(e, &loses))
        return NULL;
    if (!is_op(c, LLVMFCmp) || LLVMGetFCmpPredicate(c) != LLVMRealUNO || LLVMGetOperand(c, 0) != x)
        return NULL;
    return x;
}

/* Whether every use of v (through bitcasts) is floating-point arithmetic,
 * which gives a NaN for a NaN operand whatever its payload (and makes its
 * own result canonical where that is seen). */
static bool nan_blind_uses(LLVMValueRef v, int depth)
{
    for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef user = LLVMGetUser(u);
        if (is_op(user, LLVMBitCast) && depth < 2) {
            if (!nan_blind_uses(user, depth + 1))
                return false;
        } else if (!is_op(user, LLVMFAdd) && !is_op(user, LLVMFSub) && !is_op(user, LLVMFMul) &&
                   !is_op(user, LLVMFDiv) &&
                   !(LLVMIsACallInst(user) && (!strncmp(callee_name(user), "llvm.fma.", 9) ||
                                               !strncmp(callee_name(user), "llvm.fmuladd.", 13)))) {
            return false;
        }
    }
    return true;
}

/* Lane j of a store's value, as elem; before its NaN canonicalisation
 * where every reader of the load is blind to NaN payloads (the tree
 * reduction's levels: the compare and blend leave each level's chain). */
static LLVMValueRef lane_value(LLVMBuilderRef b, const stored *s, unsigned j, LLVMTypeRef elem, bool blind)
{
    LLVMValueRef src = s->value, raw = blind ? uncanonical(src) : NULL;
    LLVMTypeRef st = LLVMTypeOf(src), rt = raw ? LLVMTypeOf(raw) : NULL;
    bool vec = LLVMGetTypeKind(st) == LLVMVectorTypeKind;
    if (raw && vec == (LLVMGetTypeKind(rt) == LLVMVectorTypeKind) && (!vec || LLVMGetVectorSize(rt) == LLVMGetVectorSize(st)))
        src = raw; /* the same lanes */
    LLVMValueRef v = s->at.n == 1 && LLVMGetTypeKind(LLVMTypeOf(src)) != LLVMVectorTypeKind
                         ? src
                         : LLVMBuildExtractElement(b, src, LLVMConstInt(LLVMInt32TypeInContext(LLVMGetTypeContext(LLVMTypeOf(src))), j, false), "");
    return LLVMTypeOf(v) == elem ? v : LLVMBuildBitCast(b, v, elem, "");
}

/* Replaces load `ld` (type t, inactive lanes from passthru) when every
 * active lane has a source; true if it did. */
static bool forward(LLVMBuilderRef b, const stored *s, unsigned ns, LLVMValueRef ld, const access *a,
                    LLVMValueRef passthru)
{
    const stored *src[MAX_LANES];
    unsigned lane[MAX_LANES];
    LLVMTypeRef t = LLVMTypeOf(ld);
    bool vec = LLVMGetTypeKind(t) == LLVMVectorTypeKind;
    LLVMTypeRef elem = vec ? LLVMGetElementType(t) : t;
    for (unsigned i = 0; i < a->n; i++) {
        if (!(a->lanes >> i & 1))
            continue;
        src[i] = source(s, ns, a, i, &lane[i]);
        if (!src[i] || LLVMGetTypeKind(LLVMTypeOf(src[i]->value)) == LLVMPointerTypeKind)
            return false;
    }
    LLVMPositionBuilderBefore(b, ld);
    LLVMValueRef v = passthru ? passthru : LLVMGetPoison(t);
    bool blind = nan_blind_uses(ld, 0);
    for (unsigned i = 0; i < a->n; i++) {
        if (!(a->lanes >> i & 1))
            continue;
        LLVMValueRef e = lane_value(b, src[i], lane[i], elem, blind);
        v = vec ? LLVMBuildInsertElement(b, v, e, LLVMConstInt(LLVMInt32TypeInContext(LLVMGetTypeContext(t)), i, false), "") : e;
    }
    LLVMReplaceAllUsesWith(ld, v);
    LLVMInstructionEraseFromParent(ld);
    return true;
}

/* Whether instruction i may write memory that loads of other roots read
 * (everything but the accesses tracked here and pure intrinsics). */
static bool clobbers(LLVMValueRef i)
{
    if (LLVMIsAFenceInst(i) || LLVMIsAAtomicRMWInst(i) || LLVMIsAAtomicCmpXchgInst(i))
        return true;
    if (!LLVMIsACallInst(i))
        return false;
    const char *name = callee_name(i);
    static const char *const pure[] = {"llvm.masked.load", "llvm.prefetch", "llvm.assume", "llvm.fabs",
                                       "llvm.fma", "llvm.fmuladd", "llvm.ctpop", "llvm.cttz", "llvm.ctlz",
                                       "llvm.vector.reduce", "llvm.minnum", "llvm.maxnum", "llvm.umin",
                                       "llvm.umax", "llvm.smin", "llvm.smax", "llvm.masked.gather",
                                       "llvm.experimental.noalias.scope.decl", "llvm.lifetime"};
    for (size_t k = 0; k < sizeof pure / sizeof *pure; k++)
        if (!strncmp(name, pure[k], strlen(pure[k])))
            return false;
    return true;
}

/* Whether stores through root a may change what root b holds.  Kernel
 * code reaches the shared window through generic addresses too, never
 * the frames. */
static bool may_alias(const access *a, const access *b)
{
    if (a->root == b->root)
        return true;
    int ka = a->kind, kb = b->kind;
    if (ka == ROOT_ALLOCA || kb == ROOT_ALLOCA || (ka != ROOT_OTHER && kb != ROOT_OTHER && ka != kb))
        return false;
    return ka != ROOT_FRAMES && kb != ROOT_FRAMES;
}

/* A store through pointer p: what it may overwrite is forgotten; it is
 * kept (as a source) when val's lanes and place are known. */
static void note_store(LLVMTargetDataRef td, stored *s, unsigned *ns, LLVMValueRef val, LLVMValueRef p,
                       LLVMValueRef mask, bool source)
{
    access a;
    bool known = source && describe(td, p, LLVMTypeOf(val), mask, &a);
    if (!known) {
        a.root = decompose(td, p, &a.off);
        a.kind = root_kind(td, a.root);
    }
    unsigned keep = 0;
    for (unsigned k = 0; k < *ns; k++)
        if ((known && s[k].at.root == a.root) || !may_alias(&s[k].at, &a))
            s[keep++] = s[k];
    if (known) {
        if (keep == MAX_STORES)
            memmove(s, s + 1, --keep * sizeof *s);
        s[keep++] = (stored){a, val};
    }
    *ns = keep;
}

/* Forwards within block bb, starting from what is known on entry (s,
 * ns); leaves what is known at its end there. */
static bool forward_block(LLVMTargetDataRef td, LLVMBuilderRef b, LLVMBasicBlockRef bb, stored *s, unsigned *ns)
{
    bool changed = false;
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb), next; i; i = next) {
        next = LLVMGetNextInstruction(i);
        access a;
        if (LLVMIsAStoreInst(i)) {
            bool plain = !LLVMGetVolatile(i) && LLVMGetOrdering(i) == LLVMAtomicOrderingNotAtomic;
            note_store(td, s, ns, LLVMGetOperand(i, 0), LLVMGetOperand(i, 1), NULL, plain);
        } else if (LLVMIsALoadInst(i)) {
            if (*ns && !LLVMGetVolatile(i) && LLVMGetOrdering(i) == LLVMAtomicOrderingNotAtomic &&
                describe(td, LLVMGetOperand(i, 0), LLVMTypeOf(i), NULL, &a))
                changed |= forward(b, s, *ns, i, &a, NULL);
        } else if (LLVMIsACallInst(i) && !strncmp(callee_name(i), "llvm.masked.store", 17)) {
            note_store(td, s, ns, LLVMGetOperand(i, 0), LLVMGetOperand(i, 1), LLVMGetOperand(i, 3), true);
        } else if (LLVMIsACallInst(i) && !strncmp(callee_name(i), "llvm.masked.load", 16)) {
            if (*ns && describe(td, LLVMGetOperand(i, 0), LLVMTypeOf(i), LLVMGetOperand(i, 2), &a))
                changed |= forward(b, s, *ns, i, &a, LLVMGetOperand(i, 3));
        } else if (clobbers(i)) {
            *ns = 0;
        }
    }
    return changed;
}

/* ---- across blocks ----
 * A block starts with what every predecessor's end knows, when each of
 * them came before it in reverse post-order; else with nothing (loop
 * headers).  Every path to the block then ran those stores, so their
 * values dominate it. */

typedef struct block_facts {
    LLVMBasicBlockRef *blocks;
    unsigned n, cap;           /* hash of blocks -> index */
    LLVMBasicBlockRef *keys;
    unsigned *vals;
    unsigned *npred, *pred_at, *preds; /* predecessor lists, flat */
    stored *out;               /* MAX_STORES per block */
    unsigned *nout;
    bool *done;
} block_facts;

static unsigned slot_of(const block_facts *bf, LLVMBasicBlockRef bb)
{
    unsigned h = (unsigned)(((uintptr_t)bb >> 4) * 2654435761u) & (bf->cap - 1);
    while (bf->keys[h] && bf->keys[h] != bb)
        h = (h + 1) & (bf->cap - 1);
    return h;
}

static unsigned index_of(const block_facts *bf, LLVMBasicBlockRef bb)
{
    unsigned h = slot_of(bf, bb);
    return bf->keys[h] ? bf->vals[h] : UINT32_MAX;
}

static bool facts_init(block_facts *bf, LLVMValueRef f)
{
    memset(bf, 0, sizeof *bf);
    bf->n = LLVMCountBasicBlocks(f);
    for (bf->cap = 16; bf->cap < 2 * bf->n; bf->cap *= 2)
        ;
    bf->blocks = malloc(bf->n * sizeof *bf->blocks);
    bf->keys = calloc(bf->cap, sizeof *bf->keys);
    bf->vals = malloc(bf->cap * sizeof *bf->vals);
    bf->npred = calloc(bf->n + 1, sizeof *bf->npred);
    bf->pred_at = calloc(bf->n + 1, sizeof *bf->pred_at);
    bf->out = malloc((size_t)bf->n * MAX_STORES * sizeof *bf->out);
    bf->nout = calloc(bf->n, sizeof *bf->nout);
    bf->done = calloc(bf->n, sizeof *bf->done);
    if (!bf->blocks || !bf->keys || !bf->vals || !bf->npred || !bf->pred_at || !bf->out || !bf->nout || !bf->done)
        return false;
    unsigned i = 0, edges = 0;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb), i++) {
        unsigned h = slot_of(bf, bb);
        bf->keys[h] = bb, bf->vals[h] = i, bf->blocks[i] = bb;
    }
    for (i = 0; i < bf->n; i++) {
        LLVMValueRef t = LLVMGetBasicBlockTerminator(bf->blocks[i]);
        for (unsigned k = 0; t && k < LLVMGetNumSuccessors(t); k++, edges++)
            bf->npred[index_of(bf, LLVMGetSuccessor(t, k))]++;
    }
    bf->preds = malloc((edges ? edges : 1) * sizeof *bf->preds);
    if (!bf->preds)
        return false;
    for (i = 1; i <= bf->n; i++)
        bf->pred_at[i] = bf->pred_at[i - 1] + bf->npred[i - 1];
    unsigned *fill = calloc(bf->n, sizeof *fill);
    if (!fill)
        return false;
    for (i = 0; i < bf->n; i++) {
        LLVMValueRef t = LLVMGetBasicBlockTerminator(bf->blocks[i]);
        for (unsigned k = 0; t && k < LLVMGetNumSuccessors(t); k++) {
            unsigned to = index_of(bf, LLVMGetSuccessor(t, k));
            bf->preds[bf->pred_at[to] + fill[to]++] = i;
        }
    }
    free(fill);
    return true;
}

static void facts_free(block_facts *bf)
{
    free(bf->blocks), free(bf->keys), free(bf->vals), free(bf->npred), free(bf->pred_at);
    free(bf->preds), free(bf->out), free(bf->nout), free(bf->done);
}

/* The same store (its lanes may have been narrowed on some path). */
static bool same_store(const stored *a, const stored *b)
{
    return a->at.root == b->at.root && a->value == b->value && a->at.off == b->at.off && a->at.size == b->at.size &&
           a->at.n == b->at.n;
}

/* Where c is in a predecessor's list, or -1. */
static int position(const block_facts *bf, unsigned q, const stored *c)
{
    for (unsigned m = 0; m < bf->nout[q]; m++)
        if (same_store(c, &bf->out[(size_t)q * MAX_STORES + m]))
            return (int)m;
    return -1;
}

/* e's lanes but those whose bytes x's lanes write. */
static uint64_t lanes_not_under(const access *e, const access *x)
{
    uint64_t keep = e->lanes;
    if (e->root != x->root)
        return keep;
    for (unsigned j = 0; j < e->n; j++) {
        int64_t lo = e->off + (int64_t)(j * e->size), hi = lo + (int64_t)e->size;
        for (unsigned m = 0; m < x->n && keep >> j & 1; m++) {
            int64_t xlo = x->off + (int64_t)(m * x->size);
            if (x->lanes >> m & 1 && xlo < hi && xlo + (int64_t)x->size > lo)
                keep &= ~(1ull << j);
        }
    }
    return keep;
}

/* What block i starts with (s, newest last): the stores known at the end
 * of every predecessor, all of them done (none: the entry, a loop header),
 * each with the lanes that are its own on every path: a lane a newer
 * store of some predecessor writes is dropped, unless that store is kept
 * too, newer here as well. */
static unsigned facts_in(const block_facts *bf, unsigned i, stored *s)
{
    unsigned np = bf->npred[i], ns = 0;
    const unsigned *pred = &bf->preds[bf->pred_at[i]];
    if (!np)
        return 0;
    for (unsigned p = 0; p < np; p++)
        if (!bf->done[pred[p]])
            return 0;
    for (unsigned k = 0; k < bf->nout[pred[0]]; k++) {
        stored c = bf->out[(size_t)pred[0] * MAX_STORES + k];
        for (unsigned p = 1; p < np && c.at.lanes; p++) {
            int at = position(bf, pred[p], &c);
            c.at.lanes = at < 0 ? 0 : c.at.lanes & bf->out[(size_t)pred[p] * MAX_STORES + (unsigned)at].at.lanes;
        }
        if (c.at.lanes)
            s[ns++] = c;
    }
    for (bool narrowed = true; narrowed;) {
        narrowed = false;
        for (unsigned k = 0; k < ns; k++) {
            uint64_t lanes = s[k].at.lanes;
            for (unsigned p = 0; p < np; p++) {
                const stored *list = &bf->out[(size_t)pred[p] * MAX_STORES];
                for (unsigned m = (unsigned)position(bf, pred[p], &s[k]) + 1; m < bf->nout[pred[p]]; m++) {
                    unsigned j = k + 1;
                    while (j < ns && !same_store(&list[m], &s[j]))
                        j++;
                    if (j == ns) /* not kept newer: its lanes are not e's */
                        lanes &= lanes_not_under(&s[k].at, &list[m].at);
                }
            }
            if (lanes != s[k].at.lanes) {
                s[k].at.lanes = lanes;
                narrowed = true;
            }
        }
        unsigned keep = 0;
        for (unsigned k = 0; k < ns; k++)
            if (s[k].at.lanes)
                s[keep++] = s[k];
        ns = keep;
    }
    return ns;
}

/* The blocks in reverse post-order from the entry (into order; n of
 * them are reachable): every predecessor but a loop's back edge first. */
static unsigned reverse_post_order(const block_facts *bf, unsigned *order)
{
    unsigned *stack = malloc(bf->n * sizeof *stack), *edge = calloc(bf->n, sizeof *edge), top = 0, n = bf->n;
    bool *seen = calloc(bf->n, sizeof *seen);
    if (!stack || !edge || !seen) {
        free(stack), free(edge), free(seen);
        return 0;
    }
    stack[top++] = 0, seen[0] = true;
    while (top) {
        unsigned b = stack[top - 1];
        LLVMValueRef t = LLVMGetBasicBlockTerminator(bf->blocks[b]);
        unsigned ns = t ? LLVMGetNumSuccessors(t) : 0;
        if (edge[b] < ns) {
            unsigned to = index_of(bf, LLVMGetSuccessor(t, edge[b]++));
            if (to < bf->n && !seen[to])
                seen[to] = true, stack[top++] = to;
            continue;
        }
        order[--n] = b; /* finished: before everything finished after it */
        top--;
    }
    unsigned reached = bf->n - n;
    memmove(order, order + n, reached * sizeof *order);
    free(stack), free(edge), free(seen);
    return reached;
}

static bool forward_function(LLVMTargetDataRef td, LLVMBuilderRef b, LLVMValueRef f)
{
    block_facts bf;
    bool changed = false;
    unsigned *order = NULL, n = 0;
    if (facts_init(&bf, f) && (order = malloc(bf.n * sizeof *order)))
        n = reverse_post_order(&bf, order);
    if (!n) { /* out of memory: block by block */
        free(order);
        facts_free(&bf);
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb)) {
            stored s[MAX_STORES];
            unsigned ns = 0;
            changed |= forward_block(td, b, bb, s, &ns);
        }
        return changed;
    }
    for (unsigned k = 0; k < n; k++) {
        unsigned i = order[k];
        stored *s = &bf.out[(size_t)i * MAX_STORES];
        bf.nout[i] = facts_in(&bf, i, s);
        changed |= forward_block(td, b, bf.blocks[i], s, &bf.nout[i]);
        bf.done[i] = true;
    }
    free(order);
    facts_free(&bf);
    return changed;
}

bool forward_stores(LLVMModuleRef m)
{
    const char *off = getenv("PTXJIT_NO_STORE_FORWARD");
    if (off && *off && strcmp(off, "0"))
        return false;
    LLVMTargetDataRef td = LLVMGetModuleDataLayout(m);
    LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
    bool changed = false;
    for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
        if (LLVMCountBasicBlocks(f))
            changed |= forward_function(td, b, f);
    LLVMDisposeBuilder(b);
    return changed;
}
