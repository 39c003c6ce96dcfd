/* lower_align.c - misaligned accesses fault, as on a GPU.
 *
 * The ISA requires every ld, st, atom and red address to be a multiple of
 * the access size (a vector access: of the whole vector); a GPU stops the
 * kernel with CUDA_ERROR_MISALIGNED_ADDRESS otherwise, where a CPU would
 * carry on.  Before each access:
 *
 *     if (ptxjit.align.test(addrs, mask, align))   -- an active lane is misaligned
 *         ptxjit_rt_misaligned(...)                -- cold, does not return
 *
 * The test is a placeholder that lower_shape.c decides once it sees how
 * the address vector is computed.  For a proven shape (lane 0's address
 * plus constant offsets) the low bits of every lane follow from lane 0's:
 * a scalar and-compare, which LLVM folds away where it knows the base is
 * aligned (a shared variable at a constant offset) and merges where
 * accesses share a base (the fault path does not come back, so a test
 * that passed holds for the code after it).  Otherwise it is the exact
 * test below: an OR over the active lanes' low address bits in 32-bit
 * lanes, or one scalar test where the lanes differ by multiples of the
 * size (a base plus scaled indices). */
#include "lower_internal.h"

#include <string.h>

/* Every lane of the constant c passes ok(lane, m). */
static bool const_lanes(LLVMValueRef c, bool (*ok)(uint64_t, uint64_t), uint64_t m)
{
    if (!LLVMIsAConstant(c))
        return false;
    for (unsigned l = 0; l < W; l++) {
        LLVMValueRef e = LLVMGetAggregateElement(c, l);
        if (!e || !LLVMIsAConstantInt(e) || !ok(LLVMConstIntGetZExtValue(e), m))
            return false;
    }
    return true;
}

static bool multiple(uint64_t x, uint64_t m) { return (x & m) == 0; }
static bool shifts_out(uint64_t x, uint64_t m) { return x < 64 && (m >> x) == 0; }
static bool below_32(uint64_t x, uint64_t m) { return (void)m, x < 32; }

/* Every lane of v has no bit of m set (offsets scaled by the access size,
 * say): a sum may leave it out of the low bits. */
static bool low_zero(LLVMValueRef v, uint64_t m, unsigned depth)
{
    if (LLVMIsAConstant(v))
        return const_lanes(v, multiple, m);
    if (depth >= 6 || !LLVMIsAInstruction(v) || LLVMGetNumOperands(v) < 1)
        return false;
    LLVMOpcode op = LLVMGetInstructionOpcode(v);
    LLVMValueRef a = LLVMGetOperand(v, 0), b = LLVMGetNumOperands(v) > 1 ? LLVMGetOperand(v, 1) : NULL;
    switch (op) {
    case LLVMZExt: case LLVMSExt: case LLVMTrunc:
        return low_zero(a, m, depth + 1);
    case LLVMShl:
        return const_lanes(b, shifts_out, m) || low_zero(a, m, depth + 1);
    case LLVMMul: case LLVMAnd:
        return low_zero(a, m, depth + 1) || low_zero(b, m, depth + 1);
    case LLVMAdd: case LLVMSub: case LLVMOr: case LLVMXor:
        return low_zero(a, m, depth + 1) && low_zero(b, m, depth + 1);
    default:
        return false;
    }
}

/* The scalar a broadcast vector holds, else NULL. */
static LLVMValueRef broadcast_of(LLVMValueRef v)
{
    if (!LLVMIsAShuffleVectorInst(v))
        return NULL;
    LLVMValueRef ins = LLVMGetOperand(v, 0);
    if (!LLVMIsAInsertElementInst(ins) || !LLVMIsAConstantInt(LLVMGetOperand(ins, 2)) ||
        LLVMConstIntGetZExtValue(LLVMGetOperand(ins, 2)) != 0)
        return NULL;
    for (unsigned l = 0; l < W; l++)
        if (LLVMGetMaskValue(v, l) != 0)
            return NULL;
    return LLVMGetOperand(ins, 1);
}

/* A vector with the low bits (m) of v, as 32-bit lanes: terms that add
 * nothing to them left out, the rest computed in 32 bits (addresses are
 * a base plus widened 32-bit offsets), so that the 64-bit vector is not
 * built on the hot path and a base plus scaled offsets is just the base. */
static LLVMValueRef low_bits(lw *L, LLVMValueRef v, uint64_t m, unsigned depth)
{
    LLVMTypeRef vt = vec_of(L->i32);
    LLVMOpcode op = LLVMIsAInstruction(v) ? LLVMGetInstructionOpcode(v) : LLVMRet;
    if (depth < 6 && (op == LLVMAdd || op == LLVMOr || op == LLVMXor || op == LLVMSub)) {
        LLVMValueRef a = LLVMGetOperand(v, 0), b = LLVMGetOperand(v, 1);
        if (low_zero(b, m, 0))
            return low_bits(L, a, m, depth + 1);
        if (op != LLVMSub && low_zero(a, m, 0))
            return low_bits(L, b, m, depth + 1);
    }
    if (LLVMGetIntTypeWidth(LLVMGetElementType(LLVMTypeOf(v))) == 32)
        return v;
    LLVMValueRef s = broadcast_of(v);
    if (s)
        return splat(L, LLVMBuildTrunc(L->b, s, L->i32, ""));
    if (depth < 6 && (op == LLVMZExt || op == LLVMSExt)) {
        LLVMValueRef x = LLVMGetOperand(v, 0);
        unsigned w = LLVMGetIntTypeWidth(LLVMGetElementType(LLVMTypeOf(x)));
        return w == 32 ? x : w < 32 ? LLVMBuildCast(L->b, op, x, vt, "") : low_bits(L, x, m, depth + 1);
    }
    if (depth < 6 && (op == LLVMAdd || op == LLVMSub || op == LLVMMul || op == LLVMOr || op == LLVMAnd ||
                      op == LLVMXor || (op == LLVMShl && const_lanes(LLVMGetOperand(v, 1), below_32, 0))))
        return LLVMBuildBinOp(L->b, op, low_bits(L, LLVMGetOperand(v, 0), m, depth + 1),
                              low_bits(L, LLVMGetOperand(v, 1), m, depth + 1), ""); /* exact modulo 2^32 */
    return LLVMBuildTrunc(L->b, v, vt, "");
}

/* True (i1) when an active lane's address has a bit below `align` set. */
LLVMValueRef misaligned_lanes(lw *L, LLVMValueRef addrs, LLVMValueRef mask, uint32_t align)
{
    LLVMTypeRef vt = vec_of(L->i32);
    LLVMValueRef low = low_bits(L, addrs, align - 1, 0), one = broadcast_of(low);
    if (one) { /* every lane alike: that lane, if any is active */
        LLVMValueRef bad = LLVMBuildAnd(L->b, one, const_i32(L, align - 1), "");
        LLVMValueRef any = LLVMBuildICmp(L->b, LLVMIntNE, LLVMBuildBitCast(L->b, mask, L->i32, ""), const_i32(L, 0), "");
        return LLVMBuildAnd(L->b, LLVMBuildICmp(L->b, LLVMIntNE, bad, const_i32(L, 0), ""), any, "");
    }
    LLVMValueRef active = LLVMBuildSelect(L->b, mask, low, LLVMConstNull(vt), "");
    LLVMValueRef any = call_intrinsic(L, "llvm.vector.reduce.or", &vt, 1, &active, 1);
    LLVMValueRef bad = LLVMBuildAnd(L->b, any, const_i32(L, align - 1), "");
    return LLVMBuildICmp(L->b, LLVMIntNE, bad, const_i32(L, 0), "");
}

/* The lowest active lane's misaligned address (i64), for the message. */
static LLVMValueRef first_misaligned(lw *L, LLVMValueRef addrs, LLVMValueRef mask, uint32_t align)
{
    LLVMTypeRef vt = vec_of(L->i32);
    LLVMValueRef low = LLVMBuildAnd(L->b, LLVMBuildTrunc(L->b, addrs, vt, ""), splat(L, const_i32(L, align - 1)), "");
    LLVMValueRef bad = LLVMBuildAnd(L->b, LLVMBuildICmp(L->b, LLVMIntNE, low, LLVMConstNull(vt), ""), mask, "");
    return LLVMBuildExtractElement(L->b, addrs, lowest_lane(L, bad), "");
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
    LLVMBasicBlockRef fault = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "align.fault");
    LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "align.ok");
    weighted_branch(L, shape_align_test(F, addrs, mask, align), fault, ok, BRANCH_RARE, BRANCH_USUAL);
    LLVMPositionBuilderAtEnd(L->b, fault);
    LLVMValueRef f = fault_entry(L);
    LLVMValueRef args[4] = {F->cta, const_i32(L, in->loc.line), first_misaligned(L, addrs, mask, align),
                            const_i32(L, align)};
    LLVMBuildCall2(L->b, LLVMGlobalGetValueType(f), f, args, 4, "");
    LLVMBuildUnreachable(L->b);
    LLVMPositionBuilderAtEnd(L->b, ok);
}
