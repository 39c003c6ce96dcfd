/* lower_mem.c - addresses, state spaces and memory access.
 *
 * Address mapping (DESIGN.md "Memory"): global, const and local addresses
 * are real host addresses (a .local variable has one copy per lane, lane l
 * at base + l * size, so generic pointers into it work); shared-space
 * addresses are offsets into the CTA's shared window; kernel parameters are
 * read from the launch's parameter buffer.  Accesses test at run time
 * whether the lanes' addresses are consecutive: then one masked vector
 * access, else a masked gather/scatter. */
#include "lower_internal.h"

#include <stdlib.h>

/* CUDA's parameter layout: each at an offset aligned to its alignment. */
uint64_t kernel_param_offset(const ptx_func *f, const ptx_var *v)
{
    uint64_t off = 0;
    for (uint32_t i = 0; i < f->nparams; i++) {
        const ptx_var *p = f->params[i];
        uint64_t size = ptx_type_size(p->type) * (p->vec ? p->vec : 1);
        for (uint32_t d = 0; d < p->ndims; d++)
            size *= p->dims[d] ? p->dims[d] : 1;
        uint64_t align = decl_align(p);
        off = (off + align - 1) & ~(align - 1);
        if (p == v)
            return off;
        off += size;
    }
    return 0;
}

uint64_t decl_size(const ptx_var *v)
{
    uint64_t n = ptx_type_size(v->type) * (v->vec ? v->vec : 1);
    for (uint32_t i = 0; i < v->ndims; i++)
        n *= v->dims[i] ? v->dims[i] : 1;
    return n;
}

uint32_t decl_align(const ptx_var *v)
{
    return v->align ? v->align : ptx_type_size(v->type) * (v->vec ? v->vec : 1);
}

/* Per-lane copies (.local, .param of a .func) lie lane_stride apart: the
 * size rounded up to the alignment, so that every lane's copy is aligned
 * as declared (an access the declaration aligns never faults). */
uint64_t lane_stride(const ptx_var *v)
{
    uint64_t a = decl_align(v) ? decl_align(v) : 1;
    return (decl_size(v) + a - 1) / a * a;
}

static bool is_kernel_param(fn *F, const ptx_var *v)
{
    if (!F->is_entry || v->space != PTX_SP_PARAM)
        return false;
    for (uint32_t i = 0; i < F->f->nparams; i++)
        if (F->f->params[i] == v)
            return true;
    return false;
}

/* Per-lane storage (lane l at base + l * size) of a .param variable. */
LLVMValueRef param_storage(fn *F, const ptx_var *v)
{
    LLVMValueRef p = ptrmap_get(&F->params, v);
    if (!p) {
        p = entry_alloca(F, LLVMArrayType2(F->L->i8, lane_stride(v) * W), v->name);
        if (decl_align(v) > 64)
            LLVMSetAlignment(p, decl_align(v));
        ptrmap_put(&F->params, v, p);
    }
    return p;
}

static LLVMValueRef ptr_to_i64(lw *L, LLVMValueRef p)
{
    return LLVMBuildPtrToInt(L->b, p, L->i64, "");
}

/* base + lane * stride, as <32 x i64>. */
static LLVMValueRef per_lane(fn *F, LLVMValueRef base, uint64_t stride)
{
    lw *L = F->L;
    LLVMValueRef lane64 = LLVMBuildZExt(L->b, F->lane, vec_of(L->i64), "");
    LLVMValueRef off = LLVMBuildMul(L->b, lane64, splat(L, const_i64(L, stride)), "");
    return LLVMBuildAdd(L->b, splat(L, ptr_to_i64(L, base)), off, "");
}

/* Offset of dynamic shared memory: a constant fixed after all static
 * shared variables are laid out (see lower_module). */
LLVMValueRef dyn_smem_offset(lw *L)
{
    LLVMValueRef g = LLVMGetNamedGlobal(L->mod, "ptxjit.dynsmem");
    if (!g) {
        g = LLVMAddGlobal(L->mod, L->i64, "ptxjit.dynsmem");
        LLVMSetLinkage(g, LLVMInternalLinkage);
        LLVMSetGlobalConstant(g, true);
        LLVMSetInitializer(g, const_i64(L, 0));
    }
    return LLVMBuildLoad2(L->b, L->i64, g, "");
}

/* The value of a variable name used as an operand: its address in its own
 * state space (shared variables: the offset in the shared window). */
LLVMValueRef var_address(fn *F, const ptx_operand *o, ptx_loc loc)
{
    lw *L = F->L;
    if (o->func) {
        LLVMValueRef f = ptrmap_get(&L->funcs, o->func);
        if (!f) {
            lw_error(L, loc, "function '%s' has no body", o->func->name);
            return LLVMConstNull(vec_of(L->i64));
        }
        return splat(L, ptr_to_i64(L, f));
    }
    const ptx_var *v = o->var;
    LLVMValueRef g = ptrmap_get(&L->globals, v);
    if (g)
        return splat(L, ptr_to_i64(L, g));
    void *off = ptrmap_get(&L->shared_off, v);
    if (off) {
        uintptr_t k = (uintptr_t)off;
        return splat(L, k == UINT32_MAX ? dyn_smem_offset(L) : const_i64(L, k - 1));
    }
    if (is_kernel_param(F, v)) {
        LLVMValueRef idx = const_i64(L, kernel_param_offset(F->f, v));
        return splat(L, ptr_to_i64(L, LLVMBuildGEP2(L->b, L->i8, F->params_base, &idx, 1, "")));
    }
    LLVMValueRef local = ptrmap_get(&F->locals, v);
    if (local)
        return per_lane(F, local, lane_stride(v));
    if (v->space == PTX_SP_PARAM)
        return per_lane(F, param_storage(F, v), lane_stride(v));
    lw_error(L, loc, "cannot take the address of '%s'", v->name);
    return LLVMConstNull(vec_of(L->i64));
}

static bool is_shared(uint8_t space)
{
    return space == PTX_SPACE_SHARED || space == PTX_SPACE_SHARED_CTA ||
           space == PTX_SPACE_SHARED_CLUSTER;
}

/* An address register that is a pure function of each lane's immutable
 * values (lower_live.c's rematerialization) is computed again at the
 * access, its operands first.  Read through the divergence dispatcher's
 * phis, its address shape (lower_shape.c) would be checked lane by lane
 * at run time; computed here, LLVM merges it with the original where
 * that dominates and the shape keeps its scalar guards.  Lowering a pure
 * definition again writes, in every lane, the value each lane that reads
 * the register computed. */
enum { RECOMPUTE_BUDGET = 24 };

static void recompute(fn *F, const ptx_operand *o, unsigned *budget)
{
    const ptx_instr *d = remat_def_of(F, o);
    if (!d || !*budget)
        return;
    (*budget)--;
    for (uint32_t i = 1; i < d->nopds; i++)
        recompute(F, &d->opds[i], budget);
    lower_instr(F, d);
}

void recompute_register(fn *F, const ptx_operand *base)
{
    unsigned budget = RECOMPUTE_BUDGET;
    LLVMValueRef mask = F->mask;
    F->mask = LLVMConstAllOnes(vec_of(F->L->i1));
    recompute(F, base, &budget);
    F->mask = mask;
}

/* The base of an [..] operand plus its immediate, added in the base's
 * width as the ISA's address arithmetic is: a 32-bit register, a shared
 * variable's offset and a bare [imm] in a 32-bit space wrap modulo 2^32
 * (nvcc keeps bases such as buf - 64 * tid that are "negative" as 32-bit
 * values), a 64-bit register modulo 2^64.  <32 x i32> or <32 x i64>. */
static LLVMValueRef base_plus_imm(fn *F, const ptx_instr *in, const ptx_operand *a, bool narrow_space)
{
    lw *L = F->L;
    const ptx_operand *b = a->nelems ? &a->elems[0] : NULL;
    LLVMValueRef v;
    if (!b) {
        v = splat(L, narrow_space ? const_i32(L, 0) : const_i64(L, 0));
    } else if (b->var && b->var->space == PTX_SP_REG) {
        recompute_register(F, b);
        v = read_opd(F, b, ptx_type_size(b->var->type) <= 4 ? PTX_TYPE_U32 : PTX_TYPE_U64, false);
    } else {
        v = var_address(F, b, in->loc);
        if (b->var && ptrmap_get(&L->shared_off, b->var))
            v = LLVMBuildTrunc(L->b, v, vec_of(L->i32), "");
    }
    if (a->imm)
        v = LLVMBuildAdd(L->b, v, splat(L, LLVMConstInt(LLVMGetElementType(LLVMTypeOf(v)), a->imm, false)), "");
    return v;
}

/* The warp's stack top (i64), which every .local frame of the warp lies
 * below: computed once, in the entry block. */
static LLVMValueRef local_top(fn *F)
{
    if (!F->local_top) {
        LLVMBuilderRef b = LLVMCreateBuilderInContext(F->L->ctx);
        LLVMPositionBuilderBefore(b, F->alloca_ip);
        LLVMValueRef w[2];
        local_window(F, b, w);
        F->local_top = w[1];
        LLVMDisposeBuilder(b);
    }
    return F->local_top;
}

/* A 32-bit .local address is the low half of a real one: the window is
 * the 4 GiB below the warp's stack top T, where a maps to
 * T - 2^32 + ((a - T) mod 2^32).  (64-bit .local addresses are real
 * addresses, so mov.u32 of a .local variable and cvta.local.u32 truncate
 * and this inverts them.) */
static LLVMValueRef local32_to_real(fn *F, LLVMValueRef a32)
{
    lw *L = F->L;
    LLVMValueRef top = local_top(F);
    LLVMValueRef below = LLVMBuildSub(L->b, a32, splat(L, LLVMBuildTrunc(L->b, top, L->i32, "")), "");
    LLVMValueRef start = LLVMBuildSub(L->b, top, const_i64(L, 1ull << 32), "");
    return LLVMBuildAdd(L->b, splat(L, start), LLVMBuildZExt(L->b, below, vec_of(L->i64), ""), "");
}

/* Real addresses <32 x i64> of an [..] operand in `space`: the base plus
 * the immediate in the base's width, then placed in the space's window
 * (shared offsets in the CTA's shared window; other addresses are real,
 * zero-extended from 32 bits, but for the .local window above). */
LLVMValueRef address_of(fn *F, const ptx_instr *in, const ptx_operand *a, uint8_t space)
{
    lw *L = F->L;
    const ptx_var *bv = a->nelems ? a->elems[0].var : NULL;
    bool shared = is_shared(space) || (bv && ptrmap_get(&L->shared_off, bv));
    LLVMValueRef v = base_plus_imm(F, in, a, shared);
    bool narrow = LLVMGetIntTypeWidth(LLVMGetElementType(LLVMTypeOf(v))) == 32;
    if (narrow && space == PTX_SPACE_LOCAL)
        return local32_to_real(F, v);
    if (narrow)
        v = LLVMBuildZExt(L->b, v, vec_of(L->i64), "");
    if (shared)
        v = LLVMBuildAdd(L->b, splat(L, ptr_to_i64(L, F->shared_base)), v, "");
    return v;
}

/* An address vector as address_of builds it for a 32-bit address: a
 * window plus 32-bit offsets, splat(window) + zext(off).  The run-time
 * tests then compare 32-bit lanes (half the vector work), and lane 0's
 * address is a scalar sum. */
bool window_offsets(LLVMValueRef addrs, LLVMValueRef *window, LLVMValueRef *off)
{
    if (!LLVMIsAInstruction(addrs) || LLVMGetInstructionOpcode(addrs) != LLVMAdd)
        return false;
    LLVMValueRef w = LLVMGetOperand(addrs, 0), z = LLVMGetOperand(addrs, 1);
    LLVMValueRef ins = LLVMIsAShuffleVectorInst(w) ? LLVMGetOperand(w, 0) : NULL;
    if (!ins || !LLVMIsAInsertElementInst(ins) || !LLVMIsAZExtInst(z))
        return false;
    *window = LLVMGetOperand(ins, 1);
    *off = LLVMGetOperand(z, 0);
    return true;
}

/* Lane 0's address (i64). */
static LLVMValueRef first_address(fn *F, LLVMValueRef addrs)
{
    lw *L = F->L;
    LLVMValueRef window, off;
    if (!window_offsets(addrs, &window, &off))
        return LLVMBuildExtractElement(L->b, addrs, const_i32(L, 0), "");
    LLVMValueRef o = LLVMBuildExtractElement(L->b, off, const_i32(L, 0), "");
    return LLVMBuildAdd(L->b, window, LLVMBuildZExt(L->b, o, L->i64, ""), "");
}

/* The lanes' pointers for a gather or scatter, built where it is: from
 * the window and offsets when there are, as a getelementptr (not the
 * address vector's own add, which CSE would reuse), so that the 64-bit
 * vector exists on that path only. */
static LLVMValueRef lane_pointers(fn *F, LLVMValueRef addrs)
{
    lw *L = F->L;
    LLVMValueRef window, off;
    if (!window_offsets(addrs, &window, &off))
        return LLVMBuildIntToPtr(L->b, addrs, vec_of(L->ptr), "");
    LLVMValueRef idx = LLVMBuildZExt(L->b, off, vec_of(L->i64), "");
    return LLVMBuildGEP2(L->b, L->i8, LLVMBuildIntToPtr(L->b, window, L->ptr, ""), &idx, 1, "");
}

/* Branches on whether the lanes' addresses are base, base+s, base+2s, ...
 * (32-bit offsets: consecutive and not wrapping past 2^32 before the last
 * lane's end). */
static LLVMValueRef is_contiguous(fn *F, LLVMValueRef addrs, uint32_t size)
{
    lw *L = F->L;
    LLVMTypeRef vt = vec_of(L->i1);
    LLVMValueRef window, off;
    if (window_offsets(addrs, &window, &off)) {
        LLVMValueRef first = LLVMBuildExtractElement(L->b, off, const_i32(L, 0), "");
        LLVMValueRef steps = LLVMBuildMul(L->b, F->lane, splat(L, const_i32(L, size)), "");
        LLVMValueRef eq = LLVMBuildICmp(L->b, LLVMIntEQ, off, LLVMBuildAdd(L->b, splat(L, first), steps, ""), "");
        LLVMValueRef fits = LLVMBuildICmp(L->b, LLVMIntULE, first, const_i32(L, 0u - W * size), "");
        return LLVMBuildAnd(L->b, call_intrinsic(L, "llvm.vector.reduce.and", &vt, 1, &eq, 1), fits, "");
    }
    LLVMValueRef first = LLVMBuildExtractElement(L->b, addrs, const_i32(L, 0), "");
    LLVMValueRef expect = per_lane(F, LLVMBuildIntToPtr(L->b, first, L->ptr, ""), size);
    LLVMValueRef eq = LLVMBuildICmp(L->b, LLVMIntEQ, addrs, expect, "");
    return call_intrinsic(L, "llvm.vector.reduce.and", &vt, 1, &eq, 1);
}

/* All lanes read one address (and at least one lane is active). */
static LLVMValueRef is_uniform_addr(fn *F, LLVMValueRef addrs, LLVMValueRef mask)
{
    lw *L = F->L;
    LLVMValueRef window, lanes;
    if (!window_offsets(addrs, &window, &lanes)) /* else the 32-bit offsets */
        lanes = addrs;
    LLVMValueRef first = LLVMBuildExtractElement(L->b, lanes, const_i32(L, 0), "");
    LLVMValueRef eq = LLVMBuildICmp(L->b, LLVMIntEQ, lanes, splat(L, first), "");
    LLVMTypeRef vt = vec_of(L->i1);
    LLVMValueRef all = call_intrinsic(L, "llvm.vector.reduce.and", &vt, 1, &eq, 1);
    LLVMValueRef any = call_intrinsic(L, "llvm.vector.reduce.or", &vt, 1, &mask, 1);
    return LLVMBuildAnd(L->b, all, any, "");
}

/* Two rows of consecutive lanes (a 2D block of width 16 reading a tile:
 * lanes 0-15 and 16-31 each consecutive from their first lane), the
 * addresses or the 32-bit window offsets (*lanes), each row's first in
 * first[2]. */
static LLVMValueRef is_two_rows(fn *F, LLVMValueRef addrs, uint32_t size, LLVMValueRef first[2])
{
    lw *L = F->L;
    LLVMValueRef window, lanes;
    if (!window_offsets(addrs, &window, &lanes))
        lanes = addrs;
    LLVMTypeRef et = LLVMGetElementType(LLVMTypeOf(lanes));
    LLVMValueRef pair = LLVMGetPoison(LLVMVectorType(et, 2)), idx[W], step[W];
    for (unsigned h = 0; h < 2; h++) {
        first[h] = LLVMBuildExtractElement(L->b, lanes, const_i32(L, h * W / 2), "");
        pair = LLVMBuildInsertElement(L->b, pair, first[h], const_i32(L, h), "");
    }
    for (unsigned l = 0; l < W; l++) {
        idx[l] = const_i32(L, l / (W / 2));
        step[l] = LLVMConstInt(et, (l % (W / 2)) * size, false);
    }
    LLVMValueRef base = LLVMBuildShuffleVector(L->b, pair, LLVMGetPoison(LLVMTypeOf(pair)), LLVMConstVector(idx, W), "");
    LLVMValueRef eq = LLVMBuildICmp(L->b, LLVMIntEQ, lanes, LLVMBuildAdd(L->b, base, LLVMConstVector(step, W), ""), "");
    LLVMTypeRef vt = vec_of(L->i1);
    LLVMValueRef ok = call_intrinsic(L, "llvm.vector.reduce.and", &vt, 1, &eq, 1);
    for (unsigned h = 0; h < 2; h++) {
        if (lanes != addrs) { /* no offset wraps past 2^32 within its row */
            LLVMValueRef fits = LLVMBuildICmp(L->b, LLVMIntULE, first[h], const_i32(L, 0u - W / 2 * size), "");
            ok = LLVMBuildAnd(L->b, ok, fits, "");
            first[h] = LLVMBuildAdd(L->b, window, LLVMBuildZExt(L->b, first[h], L->i64, ""), "");
        }
    }
    return ok;
}

/* The addresses classified at run time: consecutive, one, two rows of
 * consecutive lanes, or a gather. */
static LLVMValueRef classified_load(fn *F, LLVMValueRef addrs, LLVMTypeRef elem, uint32_t align,
                                    LLVMValueRef mask)
{
    lw *L = F->L;
    LLVMTypeRef vt = vec_of(elem), pvt = vec_of(L->ptr);
    LLVMValueRef passthru = LLVMConstNull(vt);
    LLVMValueRef alignv = const_i32(L, align);
    LLVMBasicBlockRef uni = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "ld.uniform");
    LLVMBasicBlockRef vary = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "ld.varying");
    LLVMBasicBlockRef fast = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "ld.vec");
    LLVMBasicBlockRef slow = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "ld.gather");
    LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "ld.join");
    if (F->prefetching)
        prefetch_ahead(L, F->prefetch, first_address(F, addrs), W * align, prefetch_plan(F));
    /* consecutive first: the common case */
    LLVMBuildCondBr(L->b, is_contiguous(F, addrs, align), fast, vary);
    LLVMPositionBuilderAtEnd(L->b, vary);
    LLVMBasicBlockRef rows_test = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "ld.rows.test");
    LLVMBasicBlockRef rows = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "ld.rows");
    LLVMBuildCondBr(L->b, is_uniform_addr(F, addrs, mask), uni, rows_test);
    LLVMPositionBuilderAtEnd(L->b, rows_test);
    LLVMValueRef row_first[2];
    LLVMBuildCondBr(L->b, is_two_rows(F, addrs, align, row_first), rows, slow);
    LLVMPositionBuilderAtEnd(L->b, rows); /* two masked loads of half a warp */
    LLVMTypeRef ht = LLVMVectorType(elem, W / 2), th[2] = {ht, L->ptr};
    LLVMValueRef half[2];
    for (unsigned h = 0; h < 2; h++) {
        LLVMValueRef a[4] = {LLVMBuildIntToPtr(L->b, row_first[h], L->ptr, ""), alignv,
                             lane_range_mask(L, mask, h * W / 2, W / 2), LLVMConstNull(ht)};
        half[h] = call_intrinsic(L, "llvm.masked.load", th, 2, a, 4);
    }
    LLVMValueRef cat[W];
    for (unsigned l = 0; l < W; l++)
        cat[l] = const_i32(L, l);
    LLVMValueRef v3 = LLVMBuildShuffleVector(L->b, half[0], half[1], LLVMConstVector(cat, W), "");
    LLVMBuildBr(L->b, join);
    LLVMPositionBuilderAtEnd(L->b, uni); /* one scalar load, broadcast */
    LLVMValueRef p = LLVMBuildIntToPtr(L->b, first_address(F, addrs), L->ptr, "");
    LLVMValueRef sv = LLVMBuildLoad2(L->b, elem, p, "");
    LLVMSetAlignment(sv, align);
    LLVMValueRef v0 = splat(L, sv);
    LLVMBuildBr(L->b, join);
    LLVMPositionBuilderAtEnd(L->b, fast);
    LLVMValueRef p0 = LLVMBuildIntToPtr(L->b, first_address(F, addrs), L->ptr, "");
    LLVMTypeRef t1[2] = {vt, L->ptr};
    LLVMValueRef a1[4] = {p0, alignv, mask, passthru};
    LLVMValueRef v1 = call_intrinsic(L, "llvm.masked.load", t1, 2, a1, 4);
    LLVMBuildBr(L->b, join);
    LLVMPositionBuilderAtEnd(L->b, slow);
    LLVMTypeRef t2[2] = {vt, pvt};
    LLVMValueRef a2[4] = {lane_pointers(F, addrs), alignv, mask, passthru};
    LLVMValueRef v2 = call_intrinsic(L, "llvm.masked.gather", t2, 2, a2, 4);
    LLVMBuildBr(L->b, join);
    LLVMPositionBuilderAtEnd(L->b, join);
    LLVMValueRef phi = LLVMBuildPhi(L->b, vt, "");
    LLVMValueRef vals[4] = {v0, v1, v2, v3};
    LLVMBasicBlockRef bbs[4] = {uni, fast, slow, rows};
    LLVMAddIncoming(phi, vals, bbs, 4);
    return phi;
}

/* The value of the highest lane in bits (i32; none: lane 0's): lanes
 * store in lane order, so a warp's stores to one address leave it.  Lane
 * 0 stands for none (bits | 1) so that where LLVM knows only lane 0 can
 * be active (`if (lane == 0) sums[warp] = v`) the lane folds to 0: an
 * extract at a variable lane goes through the stack, and reading a word
 * of a vector just stored there waits for the store. */
LLVMValueRef last_lane_value(lw *L, LLVMValueRef val, LLVMValueRef bits)
{
    LLVMTypeRef i32t = L->i32;
    LLVMValueRef lz = call_intrinsic(L, "llvm.ctlz", &i32t, 1,
                                     (LLVMValueRef[]){LLVMBuildOr(L->b, bits, const_i32(L, 1), ""),
                                                      LLVMConstInt(L->i1, 1, false)}, 2);
    LLVMValueRef last = LLVMBuildSub(L->b, const_i32(L, W - 1), lz, "last.lane");
    return LLVMBuildExtractElement(L->b, val, last, "");
}

static void classified_store(fn *F, LLVMValueRef addrs, LLVMValueRef val, uint32_t align, LLVMValueRef mask)
{
    lw *L = F->L;
    LLVMTypeRef vt = LLVMTypeOf(val), pvt = vec_of(L->ptr);
    LLVMValueRef alignv = const_i32(L, align);
    LLVMBasicBlockRef fast = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "st.vec");
    LLVMBasicBlockRef vary = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "st.varying");
    LLVMBasicBlockRef one = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "st.one");
    LLVMBasicBlockRef slow = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "st.scatter");
    LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "st.join");
    LLVMBuildCondBr(L->b, is_contiguous(F, addrs, align), fast, vary);
    /* one address (lane 0 storing a warp's result, every lane storing one
     * flag): the last active lane's value, as lanes store in lane order */
    LLVMPositionBuilderAtEnd(L->b, vary);
    LLVMBuildCondBr(L->b, is_uniform_addr(F, addrs, mask), one, slow);
    LLVMPositionBuilderAtEnd(L->b, one);
    LLVMValueRef st = LLVMBuildStore(L->b, last_lane_value(L, val, mask_bits(F, mask)),
                                     LLVMBuildIntToPtr(L->b, first_address(F, addrs), L->ptr, ""));
    LLVMSetAlignment(st, align);
    LLVMBuildBr(L->b, join);
    LLVMPositionBuilderAtEnd(L->b, fast);
    LLVMValueRef p0 = LLVMBuildIntToPtr(L->b, first_address(F, addrs), L->ptr, "");
    LLVMTypeRef t1[2] = {vt, L->ptr};
    LLVMValueRef a1[4] = {val, p0, alignv, mask};
    call_intrinsic(L, "llvm.masked.store", t1, 2, a1, 4);
    LLVMBuildBr(L->b, join);
    LLVMPositionBuilderAtEnd(L->b, slow);
    LLVMTypeRef t2[2] = {vt, pvt};
    LLVMValueRef a2[4] = {val, lane_pointers(F, addrs), alignv, mask};
    call_intrinsic(L, "llvm.masked.scatter", t2, 2, a2, 4);
    LLVMBuildBr(L->b, join);
    LLVMPositionBuilderAtEnd(L->b, join);
}

/* An access whose address shape lower_shape.c may prove at compile time;
 * the run-time classification is the other branch. */
LLVMValueRef masked_load(fn *F, LLVMValueRef addrs, LLVMTypeRef elem, uint32_t align, LLVMValueRef mask)
{
    lw *L = F->L;
    LLVMBasicBlockRef known = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "ld.shape");
    LLVMBasicBlockRef runtime = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "ld.test");
    LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "ld.done");
    shape_branch(F, addrs, mask, known, runtime);
    LLVMPositionBuilderAtEnd(L->b, known);
    LLVMValueRef v1 = shape_load(F, addrs, elem, align, mask);
    LLVMBuildBr(L->b, join);
    LLVMPositionBuilderAtEnd(L->b, runtime);
    LLVMValueRef v2 = classified_load(F, addrs, elem, align, mask);
    LLVMBasicBlockRef end = LLVMGetInsertBlock(L->b);
    LLVMBuildBr(L->b, join);
    LLVMPositionBuilderAtEnd(L->b, join);
    LLVMValueRef phi = LLVMBuildPhi(L->b, vec_of(elem), "");
    LLVMValueRef vals[2] = {v1, v2};
    LLVMBasicBlockRef bbs[2] = {known, end};
    LLVMAddIncoming(phi, vals, bbs, 2);
    return phi;
}

void masked_store(fn *F, LLVMValueRef addrs, LLVMValueRef val, uint32_t align, LLVMValueRef mask)
{
    lw *L = F->L;
    LLVMBasicBlockRef known = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "st.shape");
    LLVMBasicBlockRef runtime = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "st.test");
    LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "st.done");
    shape_branch(F, addrs, mask, known, runtime);
    LLVMPositionBuilderAtEnd(L->b, known);
    shape_store(F, addrs, val, align, mask);
    LLVMBuildBr(L->b, join);
    LLVMPositionBuilderAtEnd(L->b, runtime);
    classified_store(F, addrs, val, align, mask);
    LLVMBuildBr(L->b, join);
    LLVMPositionBuilderAtEnd(L->b, join);
}

static uint32_t vec_count(const ptx_instr *in)
{
    switch (in->mod[PTX_CAT_VEC]) {
    case PTX_VEC_V2: return 2;
    case PTX_VEC_V4: return 4;
    case PTX_VEC_V8: return 8;
    default: return 1;
    }
}

/* ld.param of a kernel parameter: one scalar load, broadcast. */
static bool lower_kernel_param_load(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    const ptx_operand *a = &in->opds[1];
    if (!a->nelems || !a->elems[0].var || !is_kernel_param(F, a->elems[0].var))
        return false;
    lw *L = F->L;
    ptx_type t = (ptx_type)in->types[0];
    uint32_t n = vec_count(in), size = ptx_type_size(t);
    uint64_t off = kernel_param_offset(F->f, a->elems[0].var) + a->imm;
    for (uint32_t k = 0; k < n; k++) {
        LLVMValueRef idx = const_i64(L, off + k * size);
        LLVMValueRef p = LLVMBuildGEP2(L->b, L->i8, F->params_base, &idx, 1, "");
        LLVMValueRef v = LLVMBuildLoad2(L->b, storage_int(L, t), p, "");
        LLVMSetAlignment(v, 1);
        const ptx_operand *d = n > 1 ? &in->opds[0].elems[k] : &in->opds[0];
        LLVMValueRef vv = to_type(F, splat(L, v), t, t, false);
        write_reg(F, d, vv, t, ptx_type_class(t) == 'S', mask);
    }
    return true;
}

/* .b128 as two 8-byte halves: LLVM's masked loads, stores, gathers and
 * scatters of <32 x i128> take seconds to compile; of i64 they are quick.
 * A weak access promises no single-copy atomicity, so halves are exact. */
static LLVMValueRef load_halves(fn *F, LLVMValueRef addrs, LLVMValueRef mask)
{
    lw *L = F->L;
    LLVMTypeRef wide = vec_of(LLVMInt128TypeInContext(L->ctx));
    LLVMValueRef hi_addrs = LLVMBuildAdd(L->b, addrs, splat(L, const_i64(L, 8)), "");
    LLVMValueRef lo = LLVMBuildZExt(L->b, masked_load(F, addrs, L->i64, 8, mask), wide, "");
    F->prefetching = false; /* one prefetch for both halves */
    LLVMValueRef hi = LLVMBuildZExt(L->b, masked_load(F, hi_addrs, L->i64, 8, mask), wide, "");
    LLVMValueRef sixty_four = splat(L, LLVMConstInt(LLVMInt128TypeInContext(L->ctx), 64, false));
    return LLVMBuildOr(L->b, lo, LLVMBuildShl(L->b, hi, sixty_four, ""), "");
}

static void store_halves(fn *F, LLVMValueRef addrs, LLVMValueRef v, LLVMValueRef mask)
{
    lw *L = F->L;
    LLVMTypeRef half = vec_of(L->i64);
    LLVMValueRef hi_addrs = LLVMBuildAdd(L->b, addrs, splat(L, const_i64(L, 8)), "");
    LLVMValueRef sixty_four = splat(L, LLVMConstInt(LLVMInt128TypeInContext(L->ctx), 64, false));
    masked_store(F, addrs, LLVMBuildTrunc(L->b, v, half, ""), 8, mask);
    masked_store(F, hi_addrs, LLVMBuildTrunc(L->b, LLVMBuildLShr(L->b, v, sixty_four, ""), half, ""), 8, mask);
}

/* Grid-stride loops step each warp's loads a page or more apart (the
 * grid's width): a CPU's prefetchers stay within a page, and the warps of
 * a CTA run one after another rather than side by side as on a GPU, so
 * every step waits for memory.  Each global load site in a loop or a CTA
 * loop keeps the address it read last (prefetch_slot); a step of 4 KiB to
 * 64 MiB prefetches four steps ahead (otherwise the prefetch is of the
 * address being read, which costs nothing).  Every load also prefetches
 * four lines along: CTAs tiling rows (2D blocks, transposes) read each row
 * 64-128 bytes after the CTA before them, more rows at once than the
 * CPU's stream prefetchers track.  The address is lane 0's as a scalar:
 * the known-shape path has it without the address vector. */
enum { PREFETCH_STEPS = 4, PREFETCH_MIN_STEP = 4096, PREFETCH_MAX_STEP = 1 << 26, PREFETCH_ALONG = 256,
       PREFETCH_ROWS_ALONG = 512, PREFETCH_STREAM_ALONG = 2048, MAX_STRIDE_SITES = 16 };

/* Outside loops in a 1D block the next warp reads on where this one
 * stopped, and the next CTA on where this one did (a reduction's loads):
 * one stream per worker, which the CPU's prefetchers lose at every 4 KiB
 * page.  It is prefetched PREFETCH_STREAM_ALONG ahead: half a page, the
 * time of 8-16 warps' loads (a Sapphire Rapids core at two threads: tree
 * reduction -15%, shuffle reduction -26%; 1 KiB -9%, 4 KiB as 2 KiB; the
 * other kernels' sites 2-4% slower with it). */
enum prefetch_plan prefetch_plan(fn *F)
{
    bool warps_contiguous = F->ntid[0] && F->ntid[1] == 1 && F->ntid[2] == 1;
    if (!F->prefetching)
        return PREFETCH_NONE;
    if (F->may_repeat[F->cur_block])
        return PREFETCH_EACH_ROW;
    return warps_contiguous ? PREFETCH_STREAM : PREFETCH_FIRST_ROW;
}

static LLVMValueRef prefetch_slot(fn *F)
{
    lw *L = F->L;
    /* a site runs again for the same warp in a loop, and for the next warp
     * in a resumable kernel's CTA loop; elsewhere its slot would hold 0.
     * A stream (above) has no stride to find, and the slot's bookkeeping
     * was a sixth of the reductions' per-warp instructions (tree reduction
     * -12% at two threads).  At most MAX_STRIDE_SITES per function: the
     * rest prefetch along */
    enum prefetch_plan plan = prefetch_plan(F);
    if (plan == PREFETCH_STREAM || (plan == PREFETCH_FIRST_ROW && !F->warp_top) ||
        F->stride_sites >= MAX_STRIDE_SITES)
        return NULL;
    F->stride_sites++;
    LLVMValueRef last = entry_alloca(F, L->i64, "last.addr");
    LLVMBuilderRef b = LLVMCreateBuilderInContext(L->ctx);
    LLVMPositionBuilderBefore(b, F->alloca_ip);
    LLVMBuildStore(b, const_i64(L, 0), last);
    LLVMDisposeBuilder(b);
    return last;
}

/* A read prefetch of the line holding address a (i64): into every cache
 * level (locality 3), or down to L2 (2). */
static void prefetch_line(lw *L, LLVMValueRef a, int locality)
{
    LLVMTypeRef pt = L->ptr;
    LLVMValueRef args[4] = {LLVMBuildIntToPtr(L->b, a, L->ptr, ""), const_i32(L, 0), const_i32(L, locality),
                            const_i32(L, 1)};
    call_intrinsic(L, "llvm.prefetch", &pt, 1, args, 4);
}

/* The lines of one warp's access from a, `span` bytes (at least one line,
 * at most four: a warp's f32 access is two lines, and one prefetch alone
 * left every other line to the CPU's prefetchers). */
static void prefetch_lines(lw *L, LLVMValueRef a, uint32_t span, int locality)
{
    uint32_t lines = span <= 64 ? 1 : span >= 256 ? 4 : (span + 63) / 64;
    for (uint32_t i = 0; i < lines; i++)
        prefetch_line(L, i ? LLVMBuildAdd(L->b, a, const_i64(L, 64 * (uint64_t)i), "") : a, locality);
}

/* A site that repeats (a loop: `last` is its slot) prefetches into L2
 * only: a grid-stride warp walks 16-32 streams a grid apart before the
 * next warp reads the lines prefetched along, and lines brought into L1
 * were gone by then (a Zen 4 core: saxpy 11.7 -> 7.5 ms, the transpose
 * 27 -> 23 ms, SGEMM -4%).  A site run once per warp (a 2D block's rows,
 * the stencil) reads them soon: into L1 (into L2 it was 4% slower). */
LLVMValueRef prefetch_ahead(lw *L, LLVMValueRef last, LLVMValueRef a, uint32_t span, enum prefetch_plan plan)
{
    bool repeats = last && !LLVMIsNull(last);
    int locality = repeats ? 2 : 3;
    uint64_t along = plan == PREFETCH_STREAM ? PREFETCH_STREAM_ALONG : PREFETCH_ALONG;
    prefetch_lines(L, LLVMBuildAdd(L->b, a, const_i64(L, along), ""), span, locality);
    if (!repeats)
        return NULL;
    /* the slot stays in memory (volatile): promoted to SSA it would be a phi
     * in every block of the dispatcher's loops, which LLVM's SLP vectorizer
     * took minutes over in large modules */
    LLVMValueRef prev = LLVMBuildLoad2(L->b, L->i64, last, "");
    LLVMSetVolatile(prev, true);
    LLVMValueRef step = LLVMBuildSub(L->b, a, prev, "");
    LLVMSetVolatile(LLVMBuildStore(L->b, a, last), true);
    LLVMValueRef wide = LLVMBuildICmp(L->b, LLVMIntULE, LLVMBuildAdd(L->b, step, const_i64(L, PREFETCH_MAX_STEP), ""),
                                      const_i64(L, 2 * PREFETCH_MAX_STEP), "");
    LLVMValueRef near = LLVMBuildICmp(L->b, LLVMIntULT, LLVMBuildAdd(L->b, step, const_i64(L, PREFETCH_MIN_STEP), ""),
                                      const_i64(L, 2 * PREFETCH_MIN_STEP), "");
    LLVMValueRef strided = LLVMBuildAnd(L->b, wide, LLVMBuildNot(L->b, near, ""), "");
    LLVMValueRef ahead = LLVMBuildSelect(L->b, strided, LLVMBuildMul(L->b, step, const_i64(L, PREFETCH_STEPS), ""),
                                         const_i64(L, 0), "");
    prefetch_stepped(L, a, ahead, span);
    return ahead;
}

/* A site run once per warp whose rows lie on other lines (a 16-wide 2D
 * block's: 64 bytes of a row per CTA) prefetches PREFETCH_ROWS_ALONG
 * ahead: the stencil 3-4% faster than at 256 bytes (1 KiB: as 256). */
void prefetch_rows_ahead(lw *L, LLVMValueRef a, uint32_t span)
{
    prefetch_lines(L, LLVMBuildAdd(L->b, a, const_i64(L, PREFETCH_ROWS_ALONG), ""), span, 3);
}

void prefetch_stepped(lw *L, LLVMValueRef a, LLVMValueRef ahead, uint32_t span)
{
    prefetch_lines(L, LLVMBuildAdd(L->b, a, ahead, ""), span, 2);
}

static void lower_ld(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    if (in->mod[PTX_CAT_SPACE] == PTX_SPACE_PARAM && lower_kernel_param_load(F, in, mask))
        return;
    lw *L = F->L;
    ptx_type t = (ptx_type)in->types[0];
    uint32_t n = vec_count(in), size = ptx_type_size(t);
    LLVMValueRef addrs = address_of(F, in, &in->opds[1], in->mod[PTX_CAT_SPACE]);
    check_alignment(F, in, addrs, mask, n * size);
    uint8_t space = in->mod[PTX_CAT_SPACE];
    F->prefetching = space == PTX_SPACE_GLOBAL || space == 0;
    F->prefetch = F->prefetching ? prefetch_slot(F) : NULL;
    for (uint32_t k = 0; k < n; k++) {
        LLVMValueRef ak = k ? LLVMBuildAdd(L->b, addrs, splat(L, const_i64(L, k * size)), "") : addrs;
        LLVMValueRef v = size == 16 ? load_halves(F, ak, mask) : masked_load(F, ak, storage_int(L, t), size, mask);
        const ptx_operand *d = n > 1 ? &in->opds[0].elems[k] : &in->opds[0];
        write_reg(F, d, to_type(F, v, t, t, false), t, ptx_type_class(t) == 'S', mask);
        F->prefetching = false; /* the first element's address stands for the access */
    }
}

/* A store site run once per warp (a 2D block's rows) writes lines the
 * next warps' stores are near: each half warp's line PREFETCH_ALONG ahead
 * is fetched for writing, so that stores do not wait for their lines. */
static void prefetch_for_store(fn *F, LLVMValueRef addrs)
{
    lw *L = F->L;
    if (F->may_repeat[F->cur_block])
        return;
    LLVMTypeRef pt = L->ptr;
    for (uint32_t lane = 0; lane < W; lane += W / 2) {
        LLVMValueRef a = LLVMBuildExtractElement(L->b, addrs, const_i32(L, lane), "");
        LLVMValueRef p = LLVMBuildIntToPtr(L->b, LLVMBuildAdd(L->b, a, const_i64(L, PREFETCH_ALONG), ""), pt, "");
        LLVMValueRef args[4] = {p, const_i32(L, 1), const_i32(L, 3), const_i32(L, 1)};
        call_intrinsic(L, "llvm.prefetch", &pt, 1, args, 4);
    }
}

static void lower_st(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    lw *L = F->L;
    ptx_type t = (ptx_type)in->types[0];
    uint32_t n = vec_count(in), size = ptx_type_size(t);
    uint8_t space = in->mod[PTX_CAT_SPACE];
    LLVMValueRef addrs = address_of(F, in, &in->opds[0], space);
    check_alignment(F, in, addrs, mask, n * size);
    if (space == PTX_SPACE_GLOBAL || space == 0)
        prefetch_for_store(F, addrs);
    ptx_type it = bit_type_of_size(size); /* store the bits: read as the same-size integer type */
    for (uint32_t k = 0; k < n; k++) {
        const ptx_operand *s = n > 1 ? &in->opds[1].elems[k] : &in->opds[1];
        LLVMValueRef v = read_opd(F, s, it, false);
        LLVMValueRef ak = k ? LLVMBuildAdd(L->b, addrs, splat(L, const_i64(L, k * size)), "") : addrs;
        if (size == 16)
            store_halves(F, ak, v, mask);
        else
            masked_store(F, ak, v, size, mask);
    }
}

/* cvta: shared offsets <-> generic addresses; other spaces are identity.
 * In the instruction's width: a .u32 conversion wraps modulo 2^32. */
static void lower_cvta(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    lw *L = F->L;
    ptx_type t = (ptx_type)in->types[0];
    const ptx_operand *a = &in->opds[1];
    bool is_var = a->kind == PTX_OPD_NAME && a->var && a->var->space != PTX_SP_REG; /* cvta.space d, var */
    bool to = in->flags & PTX_FLAG_BIT(TO);
    LLVMValueRef v = read_opd(F, a, t, false);
    if (is_shared(in->mod[PTX_CAT_SPACE]) && !(is_var && to)) {
        LLVMValueRef base = splat(L, LLVMBuildTrunc(L->b, ptr_to_i64(L, F->shared_base), storage_int(L, t), ""));
        v = to ? LLVMBuildSub(L->b, v, base, "") : LLVMBuildAdd(L->b, v, base, "");
    }
    write_reg(F, &in->opds[0], v, t, false, mask);
}

/* ld/st with .relaxed/.acquire/.release/.volatile/.mmio: one scalar access
 * per active lane, in lane order, atomic (monotonic, acquire, release) as
 * DESIGN.md's memory-model table says; .volatile and .mmio are also LLVM
 * volatile, and .volatile is atomic monotonic (the ISA makes it
 * .relaxed.sys), so fences order it and racing on it is defined. */
typedef struct sem_access {
    LLVMValueRef addrs, vals, out;
    LLVMTypeRef t;
    uint32_t size;
    LLVMAtomicOrdering order;
    bool is_volatile, is_store;
} sem_access;

static void sem_lane(fn *F, LLVMValueRef lane, void *ctx)
{
    lw *L = F->L;
    sem_access *a = ctx;
    LLVMValueRef p = LLVMBuildIntToPtr(L->b, LLVMBuildExtractElement(L->b, a->addrs, lane, ""), L->ptr, "");
    LLVMValueRef v;
    if (a->is_store)
        v = LLVMBuildStore(L->b, LLVMBuildExtractElement(L->b, a->vals, lane, ""), p);
    else
        v = LLVMBuildLoad2(L->b, a->t, p, "");
    LLVMSetAlignment(v, a->size);
    if (a->is_volatile)
        LLVMSetVolatile(v, true);
    if (a->order != LLVMAtomicOrderingNotAtomic)
        LLVMSetOrdering(v, a->order);
    if (!a->is_store)
        LLVMBuildStore(L->b, v, LLVMBuildGEP2(L->b, a->t, a->out, &lane, 1, ""));
}

static void lower_sem_access(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    lw *L = F->L;
    bool store = in->op == PTX_OP_ST;
    ptx_type t = (ptx_type)in->types[0];
    uint32_t n = vec_count(in), size = ptx_type_size(t);
    ptx_type it = bit_type_of_size(size);
    sem_access a = {.t = storage_int(L, t), .size = size, .is_store = store};
    switch (in->mod[PTX_CAT_SEM]) {
    case PTX_SEM_RELAXED: a.order = LLVMAtomicOrderingMonotonic; break;
    case PTX_SEM_ACQUIRE: a.order = LLVMAtomicOrderingAcquire; break;
    case PTX_SEM_RELEASE: a.order = LLVMAtomicOrderingRelease; break;
    default: /* .volatile: relaxed at system scope, and never merged or dropped */
        a.order = size <= 8 ? LLVMAtomicOrderingMonotonic : LLVMAtomicOrderingNotAtomic;
        a.is_volatile = true;
        break;
    }
    if (in->flags & PTX_FLAG_BIT(MMIO))
        a.is_volatile = true;
    yield_before_poll(F, in);
    LLVMValueRef base = address_of(F, in, &in->opds[store ? 0 : 1], in->mod[PTX_CAT_SPACE]);
    check_alignment(F, in, base, mask, n * size);
    for (uint32_t k = 0; k < n; k++) {
        a.addrs = k ? LLVMBuildAdd(L->b, base, splat(L, const_i64(L, k * size)), "") : base;
        const ptx_operand *o = &in->opds[store ? 1 : 0];
        const ptx_operand *e = n > 1 ? &o->elems[k] : o;
        if (store) {
            a.vals = read_opd(F, e, it, false);
        } else {
            a.out = entry_alloca(F, vec_of(a.t), "ld.sem");
            LLVMBuildStore(L->b, LLVMConstNull(vec_of(a.t)), a.out);
        }
        for_each_lane(F, mask, sem_lane, &a);
        if (!store) {
            LLVMValueRef v = LLVMBuildLoad2(L->b, vec_of(a.t), a.out, "");
            write_reg(F, e, to_type(F, v, t, t, false), t, ptx_type_class(t) == 'S', mask);
        }
    }
}

/* cp.async [dst], [src], cp-size{, src-size}: the copy happens at once
 * (a completed async copy satisfies every later wait); bytes past
 * src-size are zero-filled. */
typedef struct async_copy {
    LLVMValueRef dst, src, src_size;
    uint64_t cp_size;
} async_copy;

static void copy_lane(fn *F, LLVMValueRef lane, void *ctx)
{
    lw *L = F->L;
    async_copy *c = ctx;
    LLVMBuilderRef b = L->b;
    LLVMValueRef d = LLVMBuildIntToPtr(b, LLVMBuildExtractElement(b, c->dst, lane, ""), L->ptr, "");
    LLVMValueRef s = LLVMBuildIntToPtr(b, LLVMBuildExtractElement(b, c->src, lane, ""), L->ptr, "");
    LLVMValueRef n = c->src_size ? LLVMBuildExtractElement(b, c->src_size, lane, "") : const_i64(L, c->cp_size);
    n = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntUGT, n, const_i64(L, c->cp_size), ""), const_i64(L, c->cp_size), n, "");
    LLVMBuildMemCpy(b, d, 1, s, 1, n);
    LLVMValueRef rest = LLVMBuildSub(b, const_i64(L, c->cp_size), n, "");
    LLVMBuildMemSet(b, LLVMBuildGEP2(b, L->i8, d, &n, 1, ""), LLVMConstInt(L->i8, 0, false), rest, 1);
}

static bool lower_cp_async(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    lw *L = F->L;
    if (in->opds[2].kind != PTX_OPD_IMM) {
        lw_error(L, in->loc, "cp.async needs a constant copy size");
        return true;
    }
    async_copy c = {.cp_size = in->opds[2].imm};
    c.dst = address_of(F, in, &in->opds[0], in->mod[PTX_CAT_SPACE]);
    c.src = address_of(F, in, &in->opds[1], in->mod[PTX_CAT_SPACE2]);
    if (c.cp_size != 4 && c.cp_size != 8 && c.cp_size != 16) {
        lw_error(L, in->loc, "cp.async copies 4, 8 or 16 bytes, not %llu", (unsigned long long)c.cp_size);
        return true;
    }
    check_alignment(F, in, c.dst, mask, (uint32_t)c.cp_size); /* both aligned to the copy's size */
    check_alignment(F, in, c.src, mask, (uint32_t)c.cp_size);
    if (in->nopds > 3 && in->opds[3].kind != PTX_OPD_NAME) /* src-size (not a cache policy) */
        c.src_size = read_opd(F, &in->opds[3], PTX_TYPE_U64, false);
    else if (in->nopds > 3 && in->opds[3].var && ptx_type_size(in->opds[3].var->type) == 4)
        c.src_size = read_opd(F, &in->opds[3], PTX_TYPE_U64, false);
    for_each_lane(F, mask, copy_lane, &c);
    return true;
}

/* alloca.u64 ptr, size{, align}: per-lane stack memory in the warp's frame
 * (a local-space address is a real address here); stacksave/stackrestore
 * bracket it.  The stack pointer is one for the warp. */
typedef struct stack_alloc {
    LLVMValueRef sizes, out;
    uint32_t align;
} stack_alloc;

static void alloca_lane(fn *F, LLVMValueRef lane, void *ctx)
{
    lw *L = F->L;
    stack_alloc *a = ctx;
    LLVMValueRef n = LLVMBuildExtractElement(L->b, a->sizes, lane, "");
    LLVMValueRef p = LLVMBuildArrayAlloca(L->b, L->i8, n, "alloca");
    LLVMSetAlignment(p, a->align);
    LLVMBuildStore(L->b, LLVMBuildPtrToInt(L->b, p, L->i64, ""),
                   LLVMBuildGEP2(L->b, L->i64, a->out, &lane, 1, ""));
}

static bool lower_stack(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    lw *L = F->L;
    if (in->op == PTX_OP_ALLOCA) {
        stack_alloc a = {.align = in->nopds > 2 ? (uint32_t)in->opds[2].imm : 8};
        if (a.align == 0 || (a.align & (a.align - 1))) {
            lw_error(L, in->loc, "alloca alignment must be a power of two");
            return true;
        }
        a.sizes = read_opd(F, &in->opds[1], PTX_TYPE_U64, false);
        a.out = entry_alloca(F, vec_of(L->i64), "alloca.ptrs");
        for_each_lane(F, mask, alloca_lane, &a);
        LLVMValueRef v = LLVMBuildLoad2(L->b, vec_of(L->i64), a.out, "");
        write_reg(F, &in->opds[0], to_type(F, v, PTX_TYPE_U64, (ptx_type)in->types[0], false),
                  (ptx_type)in->types[0], false, mask);
    } else if (in->op == PTX_OP_STACKSAVE) {
        LLVMValueRef sp = call_intrinsic(L, "llvm.stacksave", &L->ptr, 1, NULL, 0);
        write_reg(F, &in->opds[0], splat(L, LLVMBuildPtrToInt(L->b, sp, L->i64, "")), PTX_TYPE_U64,
                  false, mask);
    } else {
        LLVMValueRef v = read_opd(F, &in->opds[0], PTX_TYPE_U64, false);
        LLVMValueRef sp = LLVMBuildIntToPtr(L->b, LLVMBuildExtractElement(L->b, v, const_i32(L, 0), ""),
                                            L->ptr, "");
        call_intrinsic(L, "llvm.stackrestore", &L->ptr, 1, &sp, 1);
    }
    return true;
}

/* An ld with a memory order (.volatile, .relaxed, .acquire) or .mmio: the
 * loads a warp waits on. */
static bool is_strong(const ptx_instr *in)
{
    return (in->mod[PTX_CAT_SEM] && in->mod[PTX_CAT_SEM] != PTX_SEM_WEAK) || (in->flags & PTX_FLAG_BIT(MMIO));
}

/* The accesses a warp waits with: loads with a memory order, and the
 * exch and cas that take a lock. */
bool is_polling_access(const ptx_instr *in)
{
    if (in->op == PTX_OP_ATOM)
        return in->mod[PTX_CAT_RED] == PTX_RED_CAS || in->mod[PTX_CAT_RED] == PTX_RED_EXCH;
    return (in->op == PTX_OP_LD || in->op == PTX_OP_LDU) && is_strong(in);
}

/* A warp polling in a loop lets the others run first: the flag's writer or
 * the lock's holder may be another warp of this CTA (or, in a cooperative
 * launch, another CTA on this worker), which runs only when this one
 * yields.  Weak loads and other atomics never wait, so they stay cheap. */
void yield_before_poll(fn *F, const ptx_instr *in)
{
    if (is_polling_access(in) && F->may_repeat[F->cur_block])
        yield_warp(F);
}

/* createpolicy: a cache policy is an opaque 64-bit value that only cache
 * hints read, and a CPU has no L2 priorities to set.  The value encodes the
 * form (so equal requests give equal policies, as a program may compare
 * them); .cvt passes the access property through. */
static void lower_createpolicy(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    lw *L = F->L;
    LLVMValueRef v;
    if (in->mod[PTX_CAT_MODE] == PTX_MODE_CVT) {
        v = read_opd(F, &in->opds[1], PTX_TYPE_B64, false);
    } else {
        uint64_t form = (uint64_t)in->mod[PTX_CAT_MODE] | (uint64_t)in->mod[PTX_CAT_L2] << 8 |
                        (uint64_t)in->mod[PTX_CAT_L2B] << 16;
        v = splat(L, const_i64(L, form));
        if (in->mod[PTX_CAT_MODE] == PTX_MODE_FRACTIONAL) { /* the fraction defaults to 1.0 */
            LLVMValueRef frac = in->nopds == 2 ? LLVMBuildBitCast(L->b, read_opd(F, &in->opds[1], PTX_TYPE_F32, false),
                                                                  vec_of(L->i32), "")
                                               : splat(L, const_i32(L, 0x3f800000));
            frac = LLVMBuildShl(L->b, LLVMBuildZExt(L->b, frac, vec_of(L->i64), ""), splat(L, const_i64(L, 32)), "");
            v = LLVMBuildOr(L->b, v, frac, "");
        }
    }
    write_reg(F, &in->opds[0], v, PTX_TYPE_B64, false, mask);
}

bool lower_mem(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    switch (in->op) {
    case PTX_OP_LD:
    case PTX_OP_LDU:
    case PTX_OP_ST:
        if (is_strong(in))
            lower_sem_access(F, in, mask);
        else if (in->op == PTX_OP_ST)
            lower_st(F, in, mask);
        else
            lower_ld(F, in, mask);
        return true;
    case PTX_OP_CVTA:
        lower_cvta(F, in, mask);
        return true;
    case PTX_OP_CP_ASYNC:
        return lower_cp_async(F, in, mask);
    case PTX_OP_ALLOCA:
    case PTX_OP_STACKSAVE:
    case PTX_OP_STACKRESTORE:
        return lower_stack(F, in, mask);
    case PTX_OP_CP_ASYNC_COMMIT_GROUP:
    case PTX_OP_CP_ASYNC_WAIT_GROUP:
    case PTX_OP_CP_ASYNC_WAIT_ALL:
        return true; /* copies complete when issued */
    case PTX_OP_PREFETCH:
    case PTX_OP_PREFETCHU:
    case PTX_OP_APPLYPRIORITY:
    case PTX_OP_DISCARD: /* leaves the data undefined: keeping it is allowed */
        return true; /* cache hints */
    case PTX_OP_CREATEPOLICY:
        lower_createpolicy(F, in, mask);
        return true;
    default:
        return false;
    }
}
