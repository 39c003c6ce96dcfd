/* lower_value.c - registers and operands.  A register is stored as an
 * integer vector <32 x iN> of its size (predicates as <32 x i1>); reads
 * bitcast to the instruction's type, so b32 registers holding floats and
 * the ISA's relaxed size rules cost nothing.  Writes blend under the mask. */
#include "lower_internal.h"

#include <stdlib.h>
#include <string.h>

LLVMTypeRef storage_int(lw *L, ptx_type t)
{
    if (t == PTX_TYPE_PRED)
        return L->i1;
    return LLVMIntTypeInContext(L->ctx, 8 * ptx_type_size(t));
}

ptx_type bit_type_of_size(uint32_t bytes)
{
    switch (bytes) {
    case 1: return PTX_TYPE_B8;
    case 2: return PTX_TYPE_B16;
    case 4: return PTX_TYPE_B32;
    case 8: return PTX_TYPE_B64;
    default: return PTX_TYPE_B128;
    }
}

LLVMTypeRef scalar_type(lw *L, ptx_type t)
{
    switch (t) {
    case PTX_TYPE_F16: return L->f16;
    case PTX_TYPE_BF16: return L->bf16;
    case PTX_TYPE_F32: return L->f32;
    case PTX_TYPE_F64: return L->f64;
    default: return storage_int(L, t);
    }
}

static bool is_float(ptx_type t)
{
    return t == PTX_TYPE_F16 || t == PTX_TYPE_BF16 || t == PTX_TYPE_F32 || t == PTX_TYPE_F64;
}

/* The storage slot of a register operand (element of %r<N>, component). */
static reg_slot *slot_of(fn *F, const ptx_operand *o)
{
    const ptx_var *v = o->var;
    uint32_t vec = v->vec ? v->vec : 1, n = (v->nreg ? v->nreg : 1) * vec;
    reg_slot *slots = ptrmap_get(&F->regs, v);
    if (!slots) {
        slots = calloc(n, sizeof *slots);
        ptrmap_put(&F->regs, v, slots);
    }
    uint32_t k = o->reg_index * vec + (o->comp ? o->comp - 1 : 0);
    reg_slot *s = &slots[k];
    if (!s->alloca) {
        s->uniform = reg_is_uniform(F, v, k);
        s->type = s->uniform ? storage_int(F->L, v->type) : vec_of(storage_int(F->L, v->type));
        s->alloca = entry_alloca(F, s->type, o->name);
        /* a pure function of each lane's immutable values: every lane that
         * reads it sees the same value, so it is written for all lanes */
        s->blend = !s->uniform && !reg_is_remat(F, v, k) && reg_needs_blend(F, v, k);
        /* Registers start as zero, not undef: reads of never-written
         * registers must not turn into poison that LLVM exploits.  One
         * that no path reads before writing needs no start value (and then
         * does not hide the shape of its later values, lower_shape.c). */
        if (!reg_live_in(F, 0, v, k))
            return s;
        LLVMBuilderRef b = LLVMCreateBuilderInContext(F->L->ctx);
        LLVMPositionBuilderBefore(b, F->alloca_ip);
        LLVMBuildStore(b, LLVMConstNull(s->type), s->alloca);
        LLVMDisposeBuilder(b);
    }
    return s;
}

/* Integer vector of `from`'s size -> `to`'s type, widening or narrowing
 * integers (relaxed ld/st/cvt rules) and bitcasting to floats. */
LLVMValueRef to_type(fn *F, LLVMValueRef v, ptx_type from, ptx_type to, bool sign_extend)
{
    lw *L = F->L;
    if (to == PTX_TYPE_PRED)
        return v;
    LLVMTypeRef want_int = vec_of(storage_int(L, to));
    uint32_t fs = ptx_type_size(from), ts = ptx_type_size(to);
    if (ts < fs)
        v = LLVMBuildTrunc(L->b, v, want_int, "");
    else if (ts > fs)
        v = sign_extend ? LLVMBuildSExt(L->b, v, want_int, "") : LLVMBuildZExt(L->b, v, want_int, "");
    if (is_float(to))
        v = LLVMBuildBitCast(L->b, v, vec_of(scalar_type(L, to)), "");
    return v;
}

/* Float constant from 0f/0d bits, as type t. */
static LLVMValueRef float_const(lw *L, const ptx_operand *o, ptx_type t)
{
    if (!is_float(t)) { /* raw bits into a b32/b64 */
        return LLVMConstInt(storage_int(L, t), o->imm, false);
    }
    double d;
    if (o->kind == PTX_OPD_F32) {
        float f;
        uint32_t u = (uint32_t)o->imm;
        memcpy(&f, &u, 4);
        if (t == PTX_TYPE_F32) /* keep NaN payloads exact */
            return LLVMConstBitCast(LLVMConstInt(L->i32, u, false), L->f32);
        d = f;
    } else {
        if (t == PTX_TYPE_F64)
            return LLVMConstBitCast(LLVMConstInt(L->i64, o->imm, false), L->f64);
        memcpy(&d, &o->imm, 8);
    }
    return LLVMConstReal(scalar_type(L, t), d);
}

static LLVMValueRef imm_const(lw *L, const ptx_operand *o, ptx_type t)
{
    if (o->kind != PTX_OPD_IMM)
        return float_const(L, o, t);
    if (is_float(t)) /* integer literal used as a float */
        return LLVMConstReal(scalar_type(L, t), (double)(int64_t)o->imm);
    return LLVMConstInt(storage_int(L, t), t == PTX_TYPE_PRED ? o->imm != 0 : o->imm, false);
}

LLVMValueRef read_opd(fn *F, const ptx_operand *o, ptx_type t, bool sign_extend)
{
    lw *L = F->L;
    switch (o->kind) {
    case PTX_OPD_IMM:
    case PTX_OPD_F32:
    case PTX_OPD_F64:
        return splat(L, imm_const(L, o, t));
    case PTX_OPD_SREG: {
        ptx_type st = ptx_sreg_type((ptx_sreg)o->sreg);
        return to_type(F, read_sreg(F, o), st, t, false);
    }
    case PTX_OPD_NAME:
        if (o->var && o->var->space == PTX_SP_REG) {
            reg_slot *s = slot_of(F, forwarded(F, o));
            LLVMValueRef v = LLVMBuildLoad2(L->b, s->type, s->alloca, "");
            if (s->uniform)
                v = splat(L, v);
            LLVMValueRef r = to_type(F, v, o->var->type, t, sign_extend);
            if (o->neg)
                r = LLVMBuildNot(L->b, r, "");
            if (o->has_offset) /* reg + imm: an integer sum at the instruction's width */
                r = LLVMBuildAdd(L->b, r, splat(L, LLVMConstInt(storage_int(L, t), o->imm, false)), "");
            return r;
        }
        if (o->var || o->func) { /* address of a variable or function (+ offset) */
            LLVMValueRef a = var_address(F, o, o->loc);
            if (o->has_offset)
                a = LLVMBuildAdd(L->b, a, splat(L, const_i64(L, o->imm)), "");
            return to_type(F, a, PTX_TYPE_U64, t, false);
        }
        break;
    default:
        break;
    }
    lw_error(L, o->loc, "unsupported operand");
    return LLVMGetPoison(vec_of(scalar_type(L, t)));
}

void write_reg(fn *F, const ptx_operand *o, LLVMValueRef v, ptx_type t, bool sign_extend,
               LLVMValueRef mask)
{
    lw *L = F->L;
    if (o->kind == PTX_OPD_SINK)
        return;
    if (o->kind != PTX_OPD_NAME || !o->var || o->var->space != PTX_SP_REG) {
        lw_error(L, o->loc, "destination must be a register");
        return;
    }
    reg_slot *s = slot_of(F, o);
    if (t != PTX_TYPE_PRED) {
        if (is_float(t))
            v = LLVMBuildBitCast(L->b, v, vec_of(storage_int(L, t)), "");
        ptx_type rt = o->var->type;
        uint32_t ts = ptx_type_size(t), rs = ptx_type_size(rt);
        if (rs > ts)
            v = sign_extend ? LLVMBuildSExt(L->b, v, vec_of(storage_int(L, rt)), "")
                            : LLVMBuildZExt(L->b, v, vec_of(storage_int(L, rt)), "");
        else if (rs < ts)
            v = LLVMBuildTrunc(L->b, v, vec_of(storage_int(L, rt)), "");
    }
    if (s->uniform) { /* every lane computed the same value */
        v = LLVMBuildExtractElement(L->b, v, const_i32(L, 0), "");
        if (mask != F->mask) { /* under a uniform guard: all lanes write or none */
            LLVMValueRef any = LLVMBuildICmp(L->b, LLVMIntNE, mask_bits(F, mask), const_i32(L, 0), "");
            v = LLVMBuildSelect(L->b, any, v, LLVMBuildLoad2(L->b, s->type, s->alloca, ""), "");
        }
    }
    /* Lanes outside the block's mask may skip the blend when the register
     * is not live into any block, or when they have exited (the block runs
     * with all of the warp's live lanes); lanes of the block masked off by
     * a guard (or a narrower mask) always keep their value. */
    bool whole = F->whole_warp && F->cur_block < F->nblocks && F->whole_warp[F->cur_block];
    if (!s->uniform && ((s->blend && !whole) || mask != F->mask)) {
        LLVMValueRef old = LLVMBuildLoad2(L->b, s->type, s->alloca, "");
        v = LLVMBuildSelect(L->b, mask, v, old, "");
    }
    LLVMBuildStore(L->b, v, s->alloca);
}

/* ---- special registers ---- */

static LLVMValueRef lanemask(fn *F, int kind)
{
    lw *L = F->L;
    LLVMValueRef one = splat(L, const_i32(L, 1));
    LLVMValueRef eq = LLVMBuildShl(L->b, one, F->lane, "");
    LLVMValueRef lt = LLVMBuildSub(L->b, eq, one, "");
    LLVMValueRef le = LLVMBuildOr(L->b, lt, eq, "");
    switch (kind) {
    case 0: return eq;
    case 1: return lt;
    case 2: return le;
    case 3: return LLVMBuildNot(L->b, lt, "");
    default: return LLVMBuildNot(L->b, le, "");
    }
}

/* %tid for a block shape known at compile time, as a warp-uniform part
 * plus a constant vector wherever the warp's 32 threads do not cross a row
 * (x) or plane (y) boundary in a way that depends on the warp: then the
 * address analysis sees the lanes' pattern (lower_shape.c).  Otherwise
 * divisions by constants. */
static void known_shape_tid(fn *F, LLVMValueRef warp, LLVMValueRef linear, LLVMValueRef *tid)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    uint32_t nx = F->ntid[0], ny = F->ntid[1];
    LLVMValueRef first = LLVMBuildMul(b, warp, const_i32(L, W), ""), lanes[W];
    if (nx % W == 0) { /* a warp lies in one row */
        LLVMValueRef row = LLVMBuildUDiv(b, first, const_i32(L, nx), "");
        tid[1] = LLVMBuildAdd(b, splat(L, LLVMBuildURem(b, first, const_i32(L, nx), "")), F->lane, "tid.x");
        tid[2] = splat(L, LLVMBuildURem(b, row, const_i32(L, ny), "tid.y"));
        tid[3] = splat(L, LLVMBuildUDiv(b, row, const_i32(L, ny), "tid.z"));
        return;
    }
    uint32_t rows = W / nx; /* rows per warp, when nx divides 32 */
    if (W % nx == 0 && ny % rows == 0) { /* and the warp's rows lie in one plane */
        LLVMValueRef row0 = LLVMBuildMul(b, warp, const_i32(L, rows), "");
        for (uint32_t l = 0; l < W; l++)
            lanes[l] = const_i32(L, l % nx);
        tid[1] = LLVMConstVector(lanes, W);
        for (uint32_t l = 0; l < W; l++)
            lanes[l] = const_i32(L, l / nx);
        tid[2] = LLVMBuildAdd(b, splat(L, LLVMBuildURem(b, row0, const_i32(L, ny), "")), LLVMConstVector(lanes, W),
                              "tid.y");
        tid[3] = splat(L, LLVMBuildUDiv(b, row0, const_i32(L, ny), "tid.z"));
        return;
    }
    LLVMValueRef vx = splat(L, const_i32(L, nx)), vy = splat(L, const_i32(L, ny));
    LLVMValueRef q = LLVMBuildUDiv(b, linear, vx, "");
    tid[1] = LLVMBuildURem(b, linear, vx, "tid.x");
    tid[2] = LLVMBuildURem(b, q, vy, "tid.y");
    tid[3] = LLVMBuildUDiv(b, q, vy, "tid.z");
}

/* %tid of the threads of `warp`. */
static void warp_tid(fn *F, LLVMValueRef warp, LLVMValueRef *tid)
{
    lw *L = F->L;
    LLVMValueRef first = LLVMBuildMul(L->b, warp, const_i32(L, W), "");
    LLVMValueRef linear = LLVMBuildAdd(L->b, splat(L, first), F->lane, "");
    if (F->ntid[0]) {
        known_shape_tid(F, warp, linear, tid);
        return;
    }
    /* the launch's table */
    LLVMValueRef launch = load_field(F, F->cta, PTXJIT_CTA_GRID, L->ptr);
    LLVMValueRef tids = load_field(F, launch, PTXJIT_GRID_TIDS, L->ptr);
    LLVMValueRef row = LLVMBuildMul(L->b, LLVMBuildZExt(L->b, warp, L->i64, ""), const_i64(L, 3 * 4 * W), "");
    for (int i = 0; i < 3; i++) {
        LLVMValueRef off = LLVMBuildAdd(L->b, row, const_i64(L, 4 * W * i), "");
        LLVMValueRef p = LLVMBuildGEP2(L->b, L->i8, tids, &off, 1, "");
        LLVMValueRef v = LLVMBuildLoad2(L->b, vec_of(L->i32), p, "tid");
        LLVMSetAlignment(v, 64);
        tid[i + 1] = v;
    }
}

/* Eagerly computed in the prologue; unused ones are deleted by LLVM. */
void init_sregs(fn *F)
{
    lw *L = F->L;
    LLVMValueRef launch = load_field(F, F->cta, PTXJIT_CTA_GRID, L->ptr);
    LLVMValueRef ntid[3], nctaid[3], ctaid[3];
    for (int i = 0; i < 3; i++) {
        ntid[i] = load_field(F, launch, PTXJIT_GRID_NTID + 4 * i, L->i32);
        nctaid[i] = load_field(F, launch, PTXJIT_GRID_NCTAID + 4 * i, L->i32);
        ctaid[i] = load_field(F, F->cta, PTXJIT_CTA_CTAID + 4 * i, L->i32);
        F->sregs[PTX_SREG_NTID][i + 1] = splat(L, ntid[i]);
        F->sregs[PTX_SREG_NCTAID][i + 1] = splat(L, nctaid[i]);
        F->sregs[PTX_SREG_CTAID][i + 1] = splat(L, i ? ctaid[i] : LLVMBuildAdd(L->b, ctaid[i], F->row_off, "ctaid.x"));
    }
    if (F->ntid[0])
        for (int i = 0; i < 3; i++)
            F->sregs[PTX_SREG_NTID][i + 1] = splat(L, const_i32(L, F->ntid[i]));
    if (!F->resumable) /* else per read: the CTA loop moves on to other warps inside the function */
        warp_tid(F, F->warp, F->sregs[PTX_SREG_TID]);
    F->sregs[PTX_SREG_LANEID][0] = F->lane;
    if (!F->resumable)
        F->sregs[PTX_SREG_WARPID][0] = splat(L, F->warp);
    F->sregs[PTX_SREG_NWARPID][0] = splat(L, load_field(F, F->cta, PTXJIT_CTA_NWARPS, L->i32));
    F->sregs[PTX_SREG_LANEMASK_EQ][0] = lanemask(F, 0);
    F->sregs[PTX_SREG_LANEMASK_LT][0] = lanemask(F, 1);
    F->sregs[PTX_SREG_LANEMASK_LE][0] = lanemask(F, 2);
    F->sregs[PTX_SREG_LANEMASK_GE][0] = lanemask(F, 3);
    F->sregs[PTX_SREG_LANEMASK_GT][0] = lanemask(F, 4);
    F->sregs[PTX_SREG_DYNAMIC_SMEM_SIZE][0] =
        splat(L, load_field(F, launch, PTXJIT_GRID_DYNAMIC_SMEM, L->i32));
}

static LLVMValueRef rt_time(fn *F, const char *name)
{
    lw *L = F->L;
    LLVMValueRef f = declare_rt(L, name, L->i64, NULL, 0);
    return LLVMBuildCall2(L->b, LLVMGlobalGetValueType(f), f, NULL, 0, "");
}

LLVMValueRef read_sreg(fn *F, const ptx_operand *o)
{
    lw *L = F->L;
    ptx_sreg r = (ptx_sreg)o->sreg;
    LLVMValueRef v = F->sregs[r][o->comp];
    if (v)
        return v;
    if (r == PTX_SREG_TID && F->resumable && o->comp >= 1 && o->comp <= 3) {
        LLVMValueRef tid[4];
        warp_tid(F, current_warp(F), tid);
        return tid[o->comp];
    }
    if (r == PTX_SREG_WARPID && F->resumable)
        return splat(L, current_warp(F));
    switch (r) {
    case PTX_SREG_CLOCK64: return splat(L, rt_time(F, "ptxjit_rt_clock64"));
    case PTX_SREG_CLOCK:
    case PTX_SREG_CLOCK_HI: {
        LLVMValueRef c = rt_time(F, "ptxjit_rt_clock64");
        if (r == PTX_SREG_CLOCK_HI)
            c = LLVMBuildLShr(L->b, c, const_i64(L, 32), "");
        return splat(L, LLVMBuildTrunc(L->b, c, L->i32, ""));
    }
    case PTX_SREG_GLOBALTIMER: return splat(L, rt_time(F, "ptxjit_rt_globaltimer"));
    case PTX_SREG_GLOBALTIMER_LO:
    case PTX_SREG_GLOBALTIMER_HI: {
        LLVMValueRef c = rt_time(F, "ptxjit_rt_globaltimer");
        if (r == PTX_SREG_GLOBALTIMER_HI)
            c = LLVMBuildLShr(L->b, c, const_i64(L, 32), "");
        return splat(L, LLVMBuildTrunc(L->b, c, L->i32, ""));
    }
    case PTX_SREG_NSMID:
        return splat(L, const_i32(L, 1));
    case PTX_SREG_ENVREG: { /* per launch, from the runtime (abi.h) */
        LLVMValueRef launch = load_field(F, F->cta, PTXJIT_CTA_GRID, L->ptr);
        return splat(L, load_field(F, launch, PTXJIT_GRID_ENVREG + 4 * (o->sreg_index % 32), L->i32));
    }
    /* A cluster is one CTA: cluster ids are CTA ids, the CTA is rank 0. */
    case PTX_SREG_CLUSTERID:
    case PTX_SREG_NCLUSTERID:
        v = F->sregs[r == PTX_SREG_CLUSTERID ? PTX_SREG_CTAID : PTX_SREG_NCTAID][o->comp];
        return v ? v : LLVMConstNull(vec_of(L->i32));
    case PTX_SREG_CLUSTER_NCTARANK:
    case PTX_SREG_CLUSTER_NCTAID:
        return splat(L, const_i32(L, o->comp <= 3 ? 1 : 0));
    case PTX_SREG_IS_EXPLICIT_CLUSTER:
        return splat(L, LLVMConstInt(L->i1, kernel_is_explicit_cluster(F->f), false));
    case PTX_SREG_SMID:
    case PTX_SREG_GRIDID:
    case PTX_SREG_CLUSTER_CTARANK:
    case PTX_SREG_CLUSTER_CTAID:
        return LLVMConstNull(vec_of(storage_int(L, ptx_sreg_type(r))));
    default:
        lw_error(L, o->loc, "special register %s is not supported", ptx_sreg_name(r));
        return LLVMConstNull(vec_of(storage_int(L, ptx_sreg_type(r))));
    }
}
