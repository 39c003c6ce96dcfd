/* lower_rows.c - a kernel entry that runs one warp of several CTAs.
 *
 * The runtime runs a kernel whose warps cannot see one another warp by
 * warp across each grid row of CTAs (rt/launch.c, run_rows).  One call per
 * warp and CTA set the function up each time: the callee-saved registers,
 * the parameters and launch fields, the warp's %tid vectors and the
 * constant vectors of its code.  Called with PTXJIT_WARP_ROW (abi.h), the
 * entry runs its warp for ptxjit_cta.row_ctas CTAs in a loop around the
 * warp's code, inlined, stepping ctaid.x and the CTA's linear index in the
 * CTA object between them, where the code reads them: what does not
 * depend on the CTA is set up once.  Any other call runs the one warp. */
#include "lower_internal.h"

#include <stdlib.h>
#include <string.h>

/* Adds 1 to the 32-bit or 64-bit field of the CTA object at offset. */
static void step_field(lw *L, LLVMValueRef cta, uint32_t offset, LLVMTypeRef t)
{
    LLVMValueRef idx = const_i64(L, offset);
    LLVMValueRef p = LLVMBuildGEP2(L->b, L->i8, cta, &idx, 1, "");
    LLVMValueRef v = LLVMBuildLoad2(L->b, t, p, "");
    LLVMBuildStore(L->b, LLVMBuildAdd(L->b, v, LLVMConstInt(t, 1, false), ""), p);
}

void wrap_row_loop(lw *L, LLVMValueRef entry)
{
    size_t len;
    const char *name = LLVMGetValueName2(entry, &len);
    char *sym = malloc(len + 1), *body_name = malloc(len + 6);
    if (!sym || !body_name)
        abort(); /* lowering has no partial-failure path */
    memcpy(sym, name, len + 1);
    memcpy(body_name, name, len);
    memcpy(body_name + len, ".body", 6);
    LLVMSetValueName2(entry, body_name, len + 5);
    LLVMSetLinkage(entry, LLVMInternalLinkage);
    unsigned always = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
    LLVMAddAttributeAtIndex(entry, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(L->ctx, always, 0));
    LLVMTypeRef ft = LLVMGlobalGetValueType(entry);
    LLVMValueRef f = LLVMAddFunction(L->mod, sym, ft);
    free(sym);
    free(body_name);

    LLVMBuilderRef b = L->b;
    LLVMBasicBlockRef start = LLVMAppendBasicBlockInContext(L->ctx, f, "row.start");
    LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(L->ctx, f, "row.cta");
    LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(L->ctx, f, "row.next");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(L->ctx, f, "row.done");
    LLVMPositionBuilderAtEnd(b, start);
    LLVMValueRef cta = LLVMGetParam(f, 0), arg = LLVMGetParam(f, 1);
    LLVMValueRef row = LLVMBuildICmp(b, LLVMIntNE, LLVMBuildAnd(b, arg, const_i32(L, PTXJIT_WARP_ROW), ""),
                                     const_i32(L, 0), "");
    LLVMValueRef warp = LLVMBuildAnd(b, arg, const_i32(L, ~PTXJIT_WARP_ROW), "");
    LLVMValueRef idx = const_i64(L, PTXJIT_CTA_ROW_CTAS);
    LLVMValueRef count = LLVMBuildLoad2(b, L->i32, LLVMBuildGEP2(b, L->i8, cta, &idx, 1, ""), "row.ctas");
    LLVMValueRef n = LLVMBuildSelect(b, row, count, const_i32(L, 1), "");
    LLVMBuildBr(b, loop);

    LLVMPositionBuilderAtEnd(b, loop);
    LLVMValueRef i = LLVMBuildPhi(b, L->i32, "row.i");
    LLVMValueRef args[2] = {cta, warp};
    LLVMBuildCall2(b, ft, entry, args, 2, "");
    LLVMValueRef i1 = LLVMBuildNUWAdd(b, i, const_i32(L, 1), "");
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, i1, n, ""), next, done);

    LLVMPositionBuilderAtEnd(b, next);
    step_field(L, cta, PTXJIT_CTA_CTAID, L->i32);
    step_field(L, cta, PTXJIT_CTA_LINEAR, L->i64);
    LLVMBuildBr(b, loop);
    LLVMValueRef in_v[2] = {const_i32(L, 0), i1};
    LLVMBasicBlockRef in_b[2] = {start, next};
    LLVMAddIncoming(i, in_v, in_b, 2);

    LLVMPositionBuilderAtEnd(b, done);
    LLVMBuildRetVoid(b);
}
