/* lower_rows.c - a kernel entry that runs one warp of several CTAs.
 *
 * The runtime runs a kernel whose warps cannot see one another warp by
 * warp across each grid row of CTAs (rt/launch.c, run_rows).  One call per
 * warp and CTA set the function up each time: the callee-saved registers,
 * the parameters and launch fields, the warp's %tid vectors and the
 * constant vectors of its code.  Called with PTXJIT_WARP_ROW (abi.h), the
 * entry runs its warp for ptxjit_cta.row_ctas CTAs in a loop around the
 * warp's code, inlined: what does not depend on the CTA is set up once.
 * The code's %ctaid.x is the CTA object's (the row's first, an invariant
 * load as every CTA field) plus the CTA's place in the row, which the
 * loop passes in the warp argument's high bits; the CTA's linear index,
 * which the runtime reads (printf), is stepped in the object.  Any other
 * call runs the one warp.
 * A resumable kernel's CTA loop (PTXJIT_WARP_CTA_LOOP) runs row_ctas
 * whole CTAs the same way: it stops after a CTA that did not run whole
 * (ptxjit_cta.whole 0), whose warps the runtime then takes over. */
#include "lower_internal.h"

#include <stdlib.h>
#include <string.h>

_Static_assert(1u << ROW_BITS == PTXJIT_ROW_MAX, "abi.h");

/* The warp argument without the CTA's place in the row, which goes to
 * F->row_off (0 unless a row loop called). */
LLVMValueRef row_arg_split(fn *F, LLVMValueRef arg)
{
    lw *L = F->L;
    LLVMValueRef mask = const_i32(L, ((1u << ROW_BITS) - 1) << ROW_SHIFT);
    F->row_off = LLVMBuildLShr(L->b, LLVMBuildAnd(L->b, arg, mask, ""), const_i32(L, ROW_SHIFT), "row.off");
    return LLVMBuildAnd(L->b, arg, LLVMBuildNot(L->b, mask, ""), "");
}

/* The CTA object's field at offset (a pointer). */
static LLVMValueRef cta_field(lw *L, LLVMValueRef cta, uint32_t offset)
{
    LLVMValueRef idx = const_i64(L, offset);
    return LLVMBuildGEP2(L->b, L->i8, cta, &idx, 1, "");
}

/* Whether f's body branches back: a loop, which makes a CTA long. */
static bool has_loop(const ptx_func *f)
{
    for (uint32_t i = 0; i < f->nbody; i++) {
        const ptx_stmt *st = &f->body[i];
        if (st->kind != PTX_STMT_INSTR)
            continue;
        for (uint32_t k = 0; k < st->instr->nopds; k++) {
            int32_t to = st->instr->opds[k].label;
            if (st->instr->opds[k].kind == PTX_OPD_NAME && to >= 0 && (uint32_t)to <= i)
                return true;
        }
    }
    return false;
}

void wrap_row_loop(lw *L, const ptx_func *kernel, LLVMValueRef entry, bool resumable)
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
    /* A kernel with a loop runs long CTAs: its code stays a function of its
     * own, as before, whose values LLVM does not hoist into the row loop
     * (SGEMM and the histogram ran 3% slower inlined). */
    const char *inl = has_loop(kernel) ? "noinline" : "alwaysinline";
    unsigned kind = LLVMGetEnumAttributeKindForName(inl, strlen(inl));
    LLVMAddAttributeAtIndex(entry, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(L->ctx, kind, 0));
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
    LLVMValueRef count = LLVMBuildLoad2(b, L->i32, cta_field(L, cta, PTXJIT_CTA_ROW_CTAS), "row.ctas");
    LLVMValueRef n = LLVMBuildSelect(b, row, count, const_i32(L, 1), "");
    LLVMBuildBr(b, loop);

    LLVMPositionBuilderAtEnd(b, loop);
    LLVMValueRef i = LLVMBuildPhi(b, L->i32, "row.i");
    LLVMValueRef args[2] = {cta, LLVMBuildOr(b, warp, LLVMBuildShl(b, i, const_i32(L, ROW_SHIFT), ""), "")};
    LLVMBuildCall2(b, ft, entry, args, 2, "");
    LLVMValueRef i1 = LLVMBuildNUWAdd(b, i, const_i32(L, 1), "");
    LLVMValueRef more = LLVMBuildICmp(b, LLVMIntULT, i1, n, "");
    LLVMValueRef whole = resumable ? cta_field(L, cta, PTXJIT_CTA_WHOLE) : NULL;
    if (whole) /* a CTA that did not run whole stops the row: the runtime goes on from it */
        more = LLVMBuildAnd(b, more, LLVMBuildICmp(b, LLVMIntNE, LLVMBuildLoad2(b, L->i32, whole, ""),
                                                   const_i32(L, 0), ""), "");
    LLVMBuildCondBr(b, more, next, done);

    LLVMPositionBuilderAtEnd(b, next);
    LLVMValueRef linear = cta_field(L, cta, PTXJIT_CTA_LINEAR);
    LLVMBuildStore(b, LLVMBuildAdd(b, LLVMBuildLoad2(b, L->i64, linear, ""), const_i64(L, 1), ""), linear);
    if (whole)
        LLVMBuildStore(b, const_i32(L, 0), whole);
    LLVMBuildBr(b, loop);
    LLVMValueRef in_v[2] = {const_i32(L, 0), i1};
    LLVMBasicBlockRef in_b[2] = {start, next};
    LLVMAddIncoming(i, in_v, in_b, 2);

    LLVMPositionBuilderAtEnd(b, done);
    LLVMBuildRetVoid(b);
}
