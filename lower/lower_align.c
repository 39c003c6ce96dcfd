/* lower_align.c - misaligned accesses fault, as on a GPU.
 *
 * The ISA requires every ld, st, atom and red address to be a multiple of
 * the access size (a vector access: of the whole vector); a GPU stops the
 * kernel with CUDA_ERROR_MISALIGNED_ADDRESS otherwise, where a CPU would
 * carry on.  Before each access:
 *
 *     if (ptxjit.align.test(addrs, mask, align))   -- rarely true
 *         if (some active lane's address is misaligned)
 *             ptxjit_rt_misaligned(...)            -- does not return
 *
 * The first test is a placeholder that lower_shape.c decides once it sees
 * how the address vector is computed: for a proven shape (lane 0's address
 * plus constant offsets) every lane's low bits follow from lane 0's, so it
 * is one scalar and-compare (which LLVM folds away where it knows the base
 * is aligned: a shared variable at a constant offset); otherwise it is the
 * exact test below.  The exact test is repeated on the cold path, where
 * the scalar one may have fired for no active lane. */
#include "lower_internal.h"

#include <string.h>

/* True (i1) when an active lane's address has a bit below `align` set. */
LLVMValueRef misaligned_lanes(lw *L, LLVMValueRef addrs, LLVMValueRef mask, uint32_t align)
{
    LLVMTypeRef vt = vec_of(L->i32);
    LLVMValueRef low = LLVMBuildTrunc(L->b, addrs, vt, ""); /* the low bits are all that matter */
    LLVMValueRef active = LLVMBuildSelect(L->b, mask, low, LLVMConstNull(vt), "");
    LLVMValueRef any = call_intrinsic(L, "llvm.vector.reduce.or", &vt, 1, &active, 1);
    LLVMValueRef bad = LLVMBuildAnd(L->b, any, const_i32(L, align - 1), "");
    return LLVMBuildFreeze(L->b, LLVMBuildICmp(L->b, LLVMIntNE, bad, const_i32(L, 0), ""), "");
}

/* The lowest active lane's misaligned address (i64), for the message. */
static LLVMValueRef first_misaligned(lw *L, LLVMValueRef addrs, LLVMValueRef mask, uint32_t align)
{
    LLVMTypeRef vt = vec_of(L->i32);
    LLVMValueRef low = LLVMBuildAnd(L->b, LLVMBuildTrunc(L->b, addrs, vt, ""), splat(L, const_i32(L, align - 1)), "");
    LLVMValueRef bad = LLVMBuildAnd(L->b, LLVMBuildICmp(L->b, LLVMIntNE, low, LLVMConstNull(vt), ""), mask, "");
    return LLVMBuildExtractElement(L->b, addrs, lowest_lane(L, bad), "");
}

/* A branch that is almost never taken: laid out away from the hot path. */
static void unlikely_branch(lw *L, LLVMValueRef cond, LLVMBasicBlockRef yes, LLVMBasicBlockRef no)
{
    LLVMValueRef br = LLVMBuildCondBr(L->b, cond, yes, no);
    LLVMMetadataRef w[3] = {LLVMMDStringInContext2(L->ctx, "branch_weights", 14),
                            LLVMValueAsMetadata(const_i32(L, 1)), LLVMValueAsMetadata(const_i32(L, 1u << 20))};
    unsigned prof = LLVMGetMDKindIDInContext(L->ctx, "prof", 4);
    LLVMSetMetadata(br, prof, LLVMMetadataAsValue(L->ctx, LLVMMDNodeInContext2(L->ctx, w, 3)));
}

static LLVMValueRef fault_entry(lw *L)
{
    const char *name = "ptxjit_rt_misaligned";
    LLVMValueRef f = LLVMGetNamedFunction(L->mod, name);
    if (f)
        return f;
    LLVMTypeRef p[4] = {L->ptr, L->i32, L->i64, L->i32};
    f = declare_rt(L, name, L->voidt, p, 4);
    const char *attrs[] = {"noreturn", "cold", "nounwind"};
    for (unsigned i = 0; i < sizeof attrs / sizeof *attrs; i++) {
        unsigned kind = LLVMGetEnumAttributeKindForName(attrs[i], strlen(attrs[i]));
        LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(L->ctx, kind, 0));
    }
    return f;
}

void check_alignment(fn *F, const ptx_instr *in, LLVMValueRef addrs, LLVMValueRef mask, uint32_t align)
{
    if (align <= 1)
        return;
    lw *L = F->L;
    LLVMBasicBlockRef maybe = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "align.maybe");
    LLVMBasicBlockRef fault = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "align.fault");
    LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "align.ok");
    unlikely_branch(L, shape_align_test(F, addrs, mask, align), maybe, ok);
    LLVMPositionBuilderAtEnd(L->b, maybe);
    unlikely_branch(L, misaligned_lanes(L, addrs, mask, align), fault, ok);
    LLVMPositionBuilderAtEnd(L->b, fault);
    LLVMValueRef f = fault_entry(L);
    LLVMValueRef args[4] = {F->cta, const_i32(L, in->loc.line), first_misaligned(L, addrs, mask, align),
                            const_i32(L, align)};
    LLVMBuildCall2(L->b, LLVMGlobalGetValueType(f), f, args, 4, "");
    LLVMBuildUnreachable(L->b);
    LLVMPositionBuilderAtEnd(L->b, ok);
}
