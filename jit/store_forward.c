/* store_forward.c - values stored by masked vector stores, handed to the
 * loads that read them back in the same block.
 *
 * After optimization, regions run by one warp (the tree reduction's last
 * levels, `if (tid < 8) s[tid] += s[tid + 8]`, with warps past the first
 * left out) are one straight block: a masked store of 32 lanes, then
 * masked loads of fewer lanes at other offsets.  LLVM does not forward
 * through masked accesses, and the CPU cannot either: a load that starts
 * inside an earlier vector store waits until the store has reached the
 * cache (a fifth of the tree reduction's time).  Here a load whose every
 * active lane reads bytes one active lane of an earlier store in the block
 * wrote, at the same root pointer plus constant offsets, becomes those
 * lanes of the stored values.  Calls, atomics, fences, volatile accesses
 * and stores through other roots end what is known. */
#include "store_forward.h"

#include <stdlib.h>
#include <string.h>

enum { MAX_LANES = 64, MAX_STORES = 32 };

typedef struct stored {
    LLVMValueRef root, value; /* value: a vector, or a scalar (one lane) */
    int64_t off;
    uint64_t size;            /* of an element, in bytes */
    unsigned n;
    uint64_t lanes;           /* written lanes */
} stored;

typedef struct access {
    LLVMValueRef root;
    int64_t off;
    uint64_t size;
    unsigned n;
    uint64_t lanes;
} access;

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
    return true;
}

/* The store and lane that last wrote lane i's bytes of a, or NULL when
 * none or only part of them: then memory must be read. */
static const stored *source(const stored *s, unsigned ns, const access *a, unsigned i, unsigned *lane)
{
    int64_t lo = a->off + (int64_t)(i * a->size), hi = lo + (int64_t)a->size;
    for (unsigned k = ns; k-- > 0;) {
        int64_t size = (int64_t)s[k].size, end = s[k].off + size * s[k].n;
        if (s[k].root != a->root || end <= lo || s[k].off >= hi)
            continue;
        int64_t d = lo - s[k].off;
        if (size == (int64_t)a->size && d % size == 0) { /* one lane covers it exactly */
            if (!(s[k].lanes >> (d / size) & 1))
                continue;
            *lane = (unsigned)(d / size);
            return &s[k];
        }
        for (unsigned j = 0; j < s[k].n; j++) {
            int64_t slo = s[k].off + size * j;
            if (s[k].lanes >> j & 1 && slo < hi && slo + size > lo)
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
    LLVMValueRef v = s->n == 1 && LLVMGetTypeKind(LLVMTypeOf(src)) != LLVMVectorTypeKind
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

/* A store: kept (s, ns) when its place is known, and what other roots
 * held is forgotten (they may alias); everything is when its place is
 * not known. */
static void note_store(LLVMTargetDataRef td, stored *s, unsigned *ns, LLVMValueRef val, LLVMValueRef p,
                       LLVMValueRef mask)
{
    access a;
    if (!describe(td, p, LLVMTypeOf(val), mask, &a)) {
        *ns = 0;
        return;
    }
    unsigned keep = 0;
    for (unsigned k = 0; k < *ns; k++)
        if (s[k].root == a.root)
            s[keep++] = s[k];
    if (keep == MAX_STORES)
        memmove(s, s + 1, --keep * sizeof *s);
    s[keep++] = (stored){a.root, val, a.off, a.size, a.n, a.lanes};
    *ns = keep;
}

static bool forward_block(LLVMTargetDataRef td, LLVMBuilderRef b, LLVMBasicBlockRef bb)
{
    stored s[MAX_STORES];
    unsigned ns = 0;
    bool changed = false;
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb), next; i; i = next) {
        next = LLVMGetNextInstruction(i);
        access a;
        if (LLVMIsAStoreInst(i)) {
            if (LLVMGetVolatile(i) || LLVMGetOrdering(i) != LLVMAtomicOrderingNotAtomic)
                ns = 0;
            else
                note_store(td, s, &ns, LLVMGetOperand(i, 0), LLVMGetOperand(i, 1), NULL);
        } else if (LLVMIsALoadInst(i)) {
            if (ns && !LLVMGetVolatile(i) && LLVMGetOrdering(i) == LLVMAtomicOrderingNotAtomic &&
                describe(td, LLVMGetOperand(i, 0), LLVMTypeOf(i), NULL, &a))
                changed |= forward(b, s, ns, i, &a, NULL);
        } else if (LLVMIsACallInst(i) && !strncmp(callee_name(i), "llvm.masked.store", 17)) {
            note_store(td, s, &ns, LLVMGetOperand(i, 0), LLVMGetOperand(i, 1), LLVMGetOperand(i, 3));
        } else if (LLVMIsACallInst(i) && !strncmp(callee_name(i), "llvm.masked.load", 16)) {
            if (ns && describe(td, LLVMGetOperand(i, 0), LLVMTypeOf(i), LLVMGetOperand(i, 2), &a))
                changed |= forward(b, s, ns, i, &a, LLVMGetOperand(i, 3));
        } else if (clobbers(i)) {
            ns = 0;
        }
    }
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
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
            changed |= forward_block(td, b, bb);
    LLVMDisposeBuilder(b);
    return changed;
}
