/* constant_masks.c - masked accesses whose mask is a constant run of
 * lanes become plain accesses of those lanes.
 *
 * A tree reduction's last levels (forwarded into straight code by
 * store_forward.c) store 8, 4, 2 lanes with constant masks, and the next
 * region reads s[1] back.  A load is not forwarded from a masked store:
 * it waits until the store reaches the cache (~12 cycles more on a Zen 4
 * than from a plain store of the same bytes).  LLVM turns only all-true
 * and all-false masks into plain accesses; here a contiguous run of n
 * lanes is a store (or load) of <n x T> at the run's first element; a
 * load of up to 8 lanes is one scalar load per lane (the shuffle
 * reduction's warp 0 reads eight warp sums stored one by one: a load
 * spanning several stores waits until they reach the cache).  The
 * inactive lanes' bytes are not touched either way, so nothing can fault
 * that did not before. */
#include "constant_masks.h"

#include <stdlib.h>
#include <string.h>

static const char *callee_name(LLVMValueRef call)
{
    LLVMValueRef f = LLVMGetCalledValue(call);
    size_t n;
    return f && LLVMIsAFunction(f) ? LLVMGetValueName2(f, &n) : "";
}

/* The run [*first, *first + *n) of true lanes of a constant mask; false
 * if the mask is not constant, not one run, or all or none of the lanes
 * (LLVM handles those itself). */
static bool lane_run(LLVMValueRef mask, unsigned *first, unsigned *n)
{
    if (!LLVMIsAConstant(mask) || LLVMGetTypeKind(LLVMTypeOf(mask)) != LLVMVectorTypeKind)
        return false;
    unsigned lanes = LLVMGetVectorSize(LLVMTypeOf(mask)), start = lanes, count = 0;
    if (lanes > 64)
        return false;
    for (unsigned l = 0; l < lanes; l++) {
        LLVMValueRef e = LLVMGetAggregateElement(mask, l);
        if (!e || !LLVMIsAConstantInt(e))
            return false;
        if (!LLVMConstIntGetZExtValue(e))
            continue;
        if (count && l != start + count)
            return false;
        if (!count)
            start = l;
        count++;
    }
    *first = start, *n = count;
    return count && count < lanes;
}

static unsigned min_align(unsigned align, unsigned long long offset)
{
    unsigned a = align ? align : 1;
    while (offset % a)
        a /= 2;
    return a;
}

/* Lanes [first, first + n) of v, as <n x T> (or T when n is 1). */
static LLVMValueRef lanes_of(LLVMBuilderRef b, LLVMValueRef v, unsigned first, unsigned n)
{
    LLVMContextRef ctx = LLVMGetTypeContext(LLVMTypeOf(v));
    LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
    if (n == 1)
        return LLVMBuildExtractElement(b, v, LLVMConstInt(i32, first, false), "");
    LLVMValueRef idx[64];
    for (unsigned j = 0; j < n; j++)
        idx[j] = LLVMConstInt(i32, first + j, false);
    return LLVMBuildShuffleVector(b, v, LLVMGetPoison(LLVMTypeOf(v)), LLVMConstVector(idx, n), "");
}

/* The run's first element's address and its alignment. */
static LLVMValueRef run_address(LLVMBuilderRef b, LLVMValueRef p, LLVMTypeRef elem, unsigned first,
                                unsigned align, unsigned *run_align, LLVMTargetDataRef td)
{
    unsigned long long size = LLVMABISizeOfType(td, elem);
    *run_align = min_align(align, first * size);
    if (!first)
        return p;
    LLVMValueRef off = LLVMConstInt(LLVMInt64TypeInContext(LLVMGetTypeContext(elem)), first, false);
    return LLVMBuildInBoundsGEP2(b, elem, p, &off, 1, "");
}

static void narrow_store(LLVMBuilderRef b, LLVMValueRef call, unsigned first, unsigned n, LLVMTargetDataRef td)
{
    LLVMValueRef v = LLVMGetOperand(call, 0), p = LLVMGetOperand(call, 1);
    unsigned align = (unsigned)LLVMConstIntGetZExtValue(LLVMGetOperand(call, 2)), run_align;
    LLVMTypeRef elem = LLVMGetElementType(LLVMTypeOf(v));
    LLVMPositionBuilderBefore(b, call);
    LLVMValueRef at = run_address(b, p, elem, first, align, &run_align, td);
    LLVMSetAlignment(LLVMBuildStore(b, lanes_of(b, v, first, n), at), run_align);
    LLVMInstructionEraseFromParent(call);
}

/* A run of up to this many lanes loads lane by lane: the shuffle
 * reduction's warp 0 reads the eight warp sums that eight warps stored
 * one by one, and a load spanning several stores is not forwarded from
 * them (it waits until they reach the cache). */
enum { SPLIT_LANES = 8 };

static void narrow_load(LLVMBuilderRef b, LLVMValueRef call, unsigned first, unsigned n, LLVMTargetDataRef td)
{
    LLVMValueRef p = LLVMGetOperand(call, 0), pass = LLVMGetOperand(call, 3);
    unsigned align = (unsigned)LLVMConstIntGetZExtValue(LLVMGetOperand(call, 1)), run_align;
    LLVMTypeRef vt = LLVMTypeOf(call), elem = LLVMGetElementType(vt);
    LLVMContextRef ctx = LLVMGetTypeContext(vt);
    LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
    unsigned lanes = LLVMGetVectorSize(vt);
    LLVMPositionBuilderBefore(b, call);
    LLVMValueRef at = run_address(b, p, elem, first, align, &run_align, td);
    LLVMValueRef v = pass;
    if (n <= SPLIT_LANES) {
        /* one load per lane: each forwards from the store that wrote it */
        unsigned long long size = LLVMABISizeOfType(td, elem);
        LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
        for (unsigned j = 0; j < n; j++) {
            LLVMValueRef off = LLVMConstInt(i64, j, false);
            LLVMValueRef e = LLVMBuildLoad2(b, elem, j ? LLVMBuildInBoundsGEP2(b, elem, at, &off, 1, "") : at, "");
            LLVMSetAlignment(e, min_align(run_align, j * size));
            LLVMSetVolatile(e, true); /* or codegen merges them into vector loads again */
            v = LLVMBuildInsertElement(b, v, e, LLVMConstInt(i32, first + j, false), "");
        }
        LLVMReplaceAllUsesWith(call, v);
        LLVMInstructionEraseFromParent(call);
        return;
    }
    LLVMValueRef part = LLVMBuildLoad2(b, LLVMVectorType(elem, n), at, "");
    LLVMSetAlignment(part, run_align);
    /* part widened to the vector's lanes, then each lane from it or from
     * the pass-through */
    LLVMValueRef wide[64], pick[64];
    for (unsigned l = 0; l < lanes; l++)
        wide[l] = l < n ? LLVMConstInt(i32, l, false) : LLVMGetUndef(i32);
    LLVMValueRef w = LLVMBuildShuffleVector(b, part, LLVMGetPoison(LLVMTypeOf(part)), LLVMConstVector(wide, lanes), "");
    for (unsigned l = 0; l < lanes; l++)
        pick[l] = LLVMConstInt(i32, l >= first && l < first + n ? l - first : lanes + l, false);
    v = LLVMBuildShuffleVector(b, w, pass, LLVMConstVector(pick, lanes), "");
    LLVMReplaceAllUsesWith(call, v);
    LLVMInstructionEraseFromParent(call);
}

bool narrow_constant_masks(LLVMModuleRef m)
{
    if (getenv("PTXJIT_NO_NARROW_MASKS"))
        return false;
    LLVMTargetDataRef td = LLVMGetModuleDataLayout(m);
    LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
    bool changed = false;
    for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb)) {
            LLVMValueRef i = LLVMGetFirstInstruction(bb);
            while (i) {
                LLVMValueRef next = LLVMGetNextInstruction(i);
                const char *name = LLVMIsACallInst(i) ? callee_name(i) : "";
                bool store = !strncmp(name, "llvm.masked.store.", 18), load = !strncmp(name, "llvm.masked.load.", 17);
                unsigned first, n;
                if ((store || load) && lane_run(LLVMGetOperand(i, store ? 3 : 2), &first, &n)) {
                    if (store)
                        narrow_store(b, i, first, n, td);
                    else
                        narrow_load(b, i, first, n, td);
                    changed = true;
                }
                i = next;
            }
        }
    LLVMDisposeBuilder(b);
    return changed;
}
