/* lower_full.c - a full warp's copy of a hot block.
 *
 * A converged warp whose 32 lanes are all active pays for the mask as much
 * as a partial one: masked vector loads and stores, a "some lane active"
 * select against a dummy address per broadcast (SGEMM's As[ty][k]), blends
 * of the registers it writes.  A block in a loop that holds several memory
 * accesses is lowered twice: with the mask a constant, taken when all 32
 * lanes are in it, and as before for the others.  Only plain blocks (no
 * sync point, call or barrier): their instructions see the mask and
 * nothing else of the dispatcher's state. */
#include "lower_internal.h"

/* A copy pays from MIN_ACCESSES memory accesses; a function copies at most
 * COPY_BUDGET instructions (each costs compile time twice). */
enum { MIN_ACCESSES = 4, COPY_BUDGET = 512 };

/* Whether statements [first, end) are plain and copying them fits the
 * budget with at least min_accesses memory accesses (then it is spent). */
static bool copy_fits(fn *F, uint32_t first, uint32_t end, uint32_t min_accesses)
{
    if (F->L->opts.skip_verify) /* lowered for its errors only: the copy adds nothing to find */
        return false;
    uint32_t accesses = 0, size = 0;
    for (uint32_t i = first; i < end; i++) {
        const ptx_stmt *s = &F->f->body[i];
        if (s->kind == PTX_STMT_VAR)
            return false;
        if (s->kind != PTX_STMT_INSTR)
            continue;
        const ptx_instr *in = s->instr;
        size++;
        if (is_sync_point(in) || in->op == PTX_OP_CALL) /* sync points include CTA barriers */
            return false;
        if (in->op == PTX_OP_LD || in->op == PTX_OP_ST)
            accesses++;
    }
    if (accesses < min_accesses || F->full_copied + size > COPY_BUDGET)
        return false;
    F->full_copied += size;
    return true;
}

/* Block b (statements first .. end - 1) gains by a full-warp copy. */
bool full_copy_pays(fn *F, uint32_t b, uint32_t first, uint32_t end)
{
    if (F->park_block[b] || F->sync_block[b] || !F->may_repeat[b])
        return false;
    return copy_fits(F, first, end, MIN_ACCESSES);
}

/* An if-body between uniform barriers (a tree reduction's level) gains by
 * a full-warp copy from one access: its masked stores are read by the
 * next level's loads soon after, and a load waits for a masked store to
 * retire where a plain one forwards. */
bool body_copy_pays(fn *F, uint32_t first, uint32_t end)
{
    return copy_fits(F, first, end, 1);
}

/* The block's instructions but its terminator, twice; F->mask as before
 * afterwards. */
void lower_block_twice(fn *F, uint32_t first, uint32_t end)
{
    lw *L = F->L;
    LLVMValueRef mask = F->mask;
    LLVMBasicBlockRef full = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "full.warp");
    LLVMBasicBlockRef part = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "part.warp");
    LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "warp.join");
    LLVMValueRef all = LLVMBuildICmp(L->b, LLVMIntEQ, mask_bits(F, mask), const_i32(L, UINT32_MAX), "full");
    LLVMBuildCondBr(L->b, all, full, part);
    LLVMPositionBuilderAtEnd(L->b, full);
    lower_stmts(F, first, end, LLVMConstAllOnes(vec_of(L->i1)));
    LLVMBuildBr(L->b, join);
    LLVMPositionBuilderAtEnd(L->b, part);
    lower_stmts(F, first, end, mask);
    LLVMBuildBr(L->b, join);
    LLVMPositionBuilderAtEnd(L->b, join);
    F->mask = mask;
}
