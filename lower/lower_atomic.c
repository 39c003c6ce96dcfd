/* lower_atomic.c - atom and red (DESIGN.md "Memory model and atomics").
 *
 * Global and generic addresses: per active lane, in lane order, one
 * atomicrmw where LLVM has the PTX operation exactly (integer add, and, or,
 * xor, min, max, exch, inc/dec wrap) and otherwise a compare-and-swap loop
 * that computes the PTX result (float and packed adds).  Shared addresses:
 * a CTA runs on one OS thread, so a plain load/op/store per lane, in lane
 * order, is atomic for everyone who can see the memory.  When every active
 * lane hits one address and the operation is associative and commutative
 * (integer add, and, or, xor, min, max), the warp reduces first and does one
 * read-modify-write; each lane gets the value it would have seen in lane
 * order (lower_aggregate.c).  With every lane active, a lane's shared offset
 * computed from a global load in the same block is recomputed from the
 * element it loaded rather than read back from the spill
 * (lower_lane_value.c).
 *
 * Ordering: RMWs on global/generic memory are LLVM seq_cst whatever the
 * .sem: on x86 every locked RMW is a full fence anyway, so the stronger
 * order costs nothing, and fence-less patterns that NVIDIA hardware honours
 * (a volatile read after an atomicInc ticket) stay ordered in the compiler.
 * .scope needs nothing more: every scope is at most the whole process. */
#include "lower_internal.h"

/* One atom/red instruction, decoded. */
typedef struct atom_op {
    const ptx_instr *in;
    uint8_t red;              /* PTX_RED_* */
    ptx_type t;               /* element type */
    uint32_t size, nvec;      /* bytes per element, elements per lane */
    bool shared, generic;
    LLVMTypeRef it;           /* the element as an integer */
    LLVMValueRef addrs;       /* <32 x i64> (in the lane loop: its spill slot) */
    LLVMValueRef window, offs; /* shared: addrs as window + <32 x i32> offsets (the loop spills offs), or NULL */
    LLVMValueRef b[8], c;     /* operands, <32 x iN> per element (likewise) */
    LLVMValueRef out[8];      /* per-lane results (atom), <32 x iN> allocas */
    LLVMValueRef win_end;     /* generic f32 add: end of the shared window (i64) */
    LLVMValueRef lane_off;    /* shared, in the unrolled sequence: this lane's offset recomputed, or NULL */
} atom_op;

static bool is_pair(ptx_type t) { return t == PTX_TYPE_F16X2 || t == PTX_TYPE_BF16X2; }
static bool is_half(ptx_type t) { return t == PTX_TYPE_F16 || t == PTX_TYPE_BF16; }
static bool is_bf(ptx_type t) { return t == PTX_TYPE_BF16 || t == PTX_TYPE_BF16X2; }

/* The operation/type pairs the ISA defines (checked against ptxas 13). */
static bool scalar_form_ok(uint8_t red, ptx_type t)
{
    switch (red) {
    case PTX_RED_ADD:
        return t == PTX_TYPE_U32 || t == PTX_TYPE_S32 || t == PTX_TYPE_U64 || t == PTX_TYPE_F32 ||
               t == PTX_TYPE_F64 || is_half(t) || is_pair(t);
    case PTX_RED_INC:
    case PTX_RED_DEC: return t == PTX_TYPE_U32;
    case PTX_RED_MIN:
    case PTX_RED_MAX:
        return t == PTX_TYPE_U32 || t == PTX_TYPE_S32 || t == PTX_TYPE_U64 || t == PTX_TYPE_S64;
    case PTX_RED_AND:
    case PTX_RED_OR:
    case PTX_RED_XOR: return t == PTX_TYPE_B32 || t == PTX_TYPE_B64;
    case PTX_RED_EXCH: return t == PTX_TYPE_B32 || t == PTX_TYPE_B64 || t == PTX_TYPE_B128;
    case PTX_RED_CAS:
        return t == PTX_TYPE_B16 || t == PTX_TYPE_B32 || t == PTX_TYPE_B64 || t == PTX_TYPE_B128;
    default: return false;
    }
}

static uint32_t vec_len(const ptx_instr *in)
{
    switch (in->mod[PTX_CAT_VEC]) {
    case PTX_VEC_V2: return 2;
    case PTX_VEC_V4: return 4;
    case PTX_VEC_V8: return 8;
    default: return 1;
    }
}

/* NULL if the form is one we lower exactly, else why not. */
static const char *form_error(const ptx_instr *in, uint8_t red, ptx_type t, uint32_t nvec)
{
    uint8_t sp = in->mod[PTX_CAT_SPACE];
    if (sp && sp != PTX_SPACE_GLOBAL && sp != PTX_SPACE_SHARED && sp != PTX_SPACE_SHARED_CTA &&
        sp != PTX_SPACE_SHARED_CLUSTER)
        return "is only defined on .global and .shared memory";
    if (in->op == PTX_OP_RED && (red == PTX_RED_CAS || red == PTX_RED_EXCH))
        return "has no .cas or .exch form";
    if ((is_half(t) || is_pair(t)) && !(in->flags & PTX_FLAG_BIT(NOFTZ)))
        return "on f16/bf16 types needs .noftz";
    if (nvec == 1)
        return scalar_form_ok(red, t) ? NULL : "is not defined for this operation and type";
    if (sp && sp != PTX_SPACE_GLOBAL)
        return "vector forms are only defined on .global memory";
    if (red == PTX_RED_MIN || red == PTX_RED_MAX)
        return "vector .min/.max is not supported yet";
    if (red != PTX_RED_ADD)
        return "vector forms are only defined for .add, .min and .max";
    if (t == PTX_TYPE_F32 || is_pair(t))
        return nvec <= 4 ? NULL : "is not defined with .v8 on 32-bit elements";
    return is_half(t) ? NULL : "vector forms are only defined on f32, f16, bf16 and their pairs";
}

/* ---- the PTX operations on scalar bits ---- */

static LLVMValueRef int_const(LLVMTypeRef t, uint64_t v) { return LLVMConstInt(t, v, false); }

/* Sign-preserving flush of a subnormal float (when `on`). */
static LLVMValueRef flush(fn *F, LLVMValueRef x, LLVMValueRef on)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef tiny = LLVMBuildFCmp(b, LLVMRealOLT, call_intrinsic(L, "llvm.fabs", &L->f32, 1, &x, 1),
                                      LLVMConstReal(L->f32, 0x1p-126), "");
    LLVMValueRef sign = LLVMBuildAnd(b, LLVMBuildBitCast(b, x, L->i32, ""), const_i32(L, 0x80000000u), "");
    LLVMValueRef zero = LLVMBuildBitCast(b, sign, L->f32, "");
    return LLVMBuildSelect(b, LLVMBuildAnd(b, tiny, on, ""), zero, x, "");
}

/* f32/f64 add rounded to nearest even; a NaN result is the canonical NaN.
 * `ftz` (i1 or NULL): flush subnormal inputs and result, as atom.add.f32
 * does on global memory. */
static LLVMValueRef float_add(fn *F, ptx_type t, LLVMValueRef x, LLVMValueRef y, LLVMValueRef ftz)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMTypeRef ft = t == PTX_TYPE_F64 ? L->f64 : L->f32, it = LLVMTypeOf(x);
    LLVMValueRef fx = LLVMBuildBitCast(b, x, ft, ""), fy = LLVMBuildBitCast(b, y, ft, "");
    if (ftz)
        fx = flush(F, fx, ftz), fy = flush(F, fy, ftz);
    LLVMValueRef r = LLVMBuildFAdd(b, fx, fy, "");
    if (ftz)
        r = flush(F, r, ftz);
    LLVMValueRef nan = LLVMBuildFCmp(b, LLVMRealUNO, r, r, "");
    uint64_t canon = t == PTX_TYPE_F64 ? 0x7fffffffffffffffull : 0x7fffffffu;
    return LLVMBuildSelect(b, nan, int_const(it, canon), LLVMBuildBitCast(b, r, it, ""), "");
}

/* f16/bf16 add (.noftz): widened to f32 exactly, added, rounded back once
 * to nearest even (f32 has more than twice the precision, so this is the
 * correctly rounded sum); a NaN result is the canonical 0x7fff. */
static LLVMValueRef half_add(fn *F, bool bf, LLVMValueRef x, LLVMValueRef y)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef w[2], in[2] = {x, y};
    for (int k = 0; k < 2; k++)
        w[k] = bf ? LLVMBuildBitCast(b, LLVMBuildShl(b, LLVMBuildZExt(b, in[k], L->i32, ""), const_i32(L, 16), ""), L->f32, "")
                  : LLVMBuildFPExt(b, LLVMBuildBitCast(b, in[k], L->f16, ""), L->f32, "");
    LLVMValueRef s = LLVMBuildFAdd(b, w[0], w[1], ""), r;
    if (bf) { /* round the low 16 bits away, ties to even */
        LLVMValueRef bits = LLVMBuildBitCast(b, s, L->i32, "");
        LLVMValueRef lsb = LLVMBuildAnd(b, LLVMBuildLShr(b, bits, const_i32(L, 16), ""), const_i32(L, 1), "");
        r = LLVMBuildAdd(b, bits, LLVMBuildAdd(b, const_i32(L, 0x7fff), lsb, ""), "");
        r = LLVMBuildTrunc(b, LLVMBuildLShr(b, r, const_i32(L, 16), ""), L->i16, "");
    } else {
        r = LLVMBuildBitCast(b, LLVMBuildFPTrunc(b, s, L->f16, ""), L->i16, "");
    }
    LLVMValueRef nan = LLVMBuildFCmp(b, LLVMRealUNO, s, s, "");
    return LLVMBuildSelect(b, nan, LLVMConstInt(L->i16, 0x7fff, false), r, "");
}

/* Packed pair: each 16-bit half added on its own. */
static LLVMValueRef pair_add(fn *F, bool bf, LLVMValueRef x, LLVMValueRef y)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef r = const_i32(L, 0);
    for (uint32_t k = 0; k < 2; k++) {
        LLVMValueRef sh = const_i32(L, 16 * k);
        LLVMValueRef xk = LLVMBuildTrunc(b, LLVMBuildLShr(b, x, sh, ""), L->i16, "");
        LLVMValueRef yk = LLVMBuildTrunc(b, LLVMBuildLShr(b, y, sh, ""), L->i16, "");
        LLVMValueRef s = LLVMBuildZExt(b, half_add(F, bf, xk, yk), L->i32, "");
        r = LLVMBuildOr(b, r, LLVMBuildShl(b, s, sh, ""), "");
    }
    return r;
}

/* The value the ISA stores: op(old, v) (cas handled by the caller). */
static LLVMValueRef apply(fn *F, const atom_op *o, LLVMValueRef old, LLVMValueRef v, LLVMValueRef ftz)
{
    LLVMBuilderRef b = F->L->b;
    bool s = ptx_type_class(o->t) == 'S';
    LLVMValueRef lt;
    switch (o->red) {
    case PTX_RED_ADD:
        if (o->t == PTX_TYPE_F32 || o->t == PTX_TYPE_F64)
            return float_add(F, o->t, old, v, ftz);
        if (is_half(o->t))
            return half_add(F, is_bf(o->t), old, v);
        if (is_pair(o->t))
            return pair_add(F, is_bf(o->t), old, v);
        return LLVMBuildAdd(b, old, v, "");
    case PTX_RED_MIN:
    case PTX_RED_MAX:
        lt = LLVMBuildICmp(b, s ? LLVMIntSLT : LLVMIntULT, old, v, "");
        return o->red == PTX_RED_MIN ? LLVMBuildSelect(b, lt, old, v, "") : LLVMBuildSelect(b, lt, v, old, "");
    case PTX_RED_INC: /* old >= v ? 0 : old + 1 */
        return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntUGE, old, v, ""), LLVMConstNull(o->it),
                               LLVMBuildAdd(b, old, int_const(o->it, 1), ""), "");
    case PTX_RED_DEC: { /* old == 0 || old > v ? v : old - 1 */
        LLVMValueRef wrap = LLVMBuildOr(b, LLVMBuildICmp(b, LLVMIntEQ, old, LLVMConstNull(o->it), ""),
                                        LLVMBuildICmp(b, LLVMIntUGT, old, v, ""), "");
        return LLVMBuildSelect(b, wrap, v, LLVMBuildSub(b, old, int_const(o->it, 1), ""), "");
    }
    case PTX_RED_AND: return LLVMBuildAnd(b, old, v, "");
    case PTX_RED_OR: return LLVMBuildOr(b, old, v, "");
    case PTX_RED_XOR: return LLVMBuildXor(b, old, v, "");
    default: return v; /* exch */
    }
}

/* The LLVM atomicrmw that is exactly the PTX operation, if there is one. */
static bool native_rmw(const atom_op *o, LLVMAtomicRMWBinOp *op)
{
    bool s = ptx_type_class(o->t) == 'S';
    if (ptx_type_class(o->t) == 'F' || o->size > 8)
        return false;
    switch (o->red) {
    case PTX_RED_ADD: *op = LLVMAtomicRMWBinOpAdd; return true;
    case PTX_RED_MIN: *op = s ? LLVMAtomicRMWBinOpMin : LLVMAtomicRMWBinOpUMin; return true;
    case PTX_RED_MAX: *op = s ? LLVMAtomicRMWBinOpMax : LLVMAtomicRMWBinOpUMax; return true;
    case PTX_RED_INC: *op = LLVMAtomicRMWBinOpUIncWrap; return true; /* old >= v ? 0 : old + 1 */
    case PTX_RED_DEC: *op = LLVMAtomicRMWBinOpUDecWrap; return true; /* old == 0 || old > v ? v : old - 1 */
    case PTX_RED_AND: *op = LLVMAtomicRMWBinOpAnd; return true;
    case PTX_RED_OR: *op = LLVMAtomicRMWBinOpOr; return true;
    case PTX_RED_XOR: *op = LLVMAtomicRMWBinOpXor; return true;
    case PTX_RED_EXCH: *op = LLVMAtomicRMWBinOpXchg; return true;
    default: return false;
    }
}

/* ---- one read-modify-write at one address ---- */

static void set_align(LLVMValueRef v, uint32_t size) { LLVMSetAlignment(v, size); }

/* Global/generic: atomic.  Returns the old value. */
static LLVMValueRef rmw_atomic(fn *F, const atom_op *o, LLVMValueRef p, LLVMValueRef v, LLVMValueRef c,
                               LLVMValueRef ftz)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    const LLVMAtomicOrdering sc = LLVMAtomicOrderingSequentiallyConsistent;
    LLVMAtomicRMWBinOp op;
    if (o->red == PTX_RED_CAS) {
        LLVMValueRef pair = LLVMBuildAtomicCmpXchg(b, p, v, c, sc, sc, false);
        set_align(pair, o->size);
        return LLVMBuildExtractValue(b, pair, 0, "");
    }
    if (native_rmw(o, &op)) {
        LLVMValueRef old = LLVMBuildAtomicRMW(b, op, p, v, sc, false);
        set_align(old, o->size);
        return old;
    }
    /* compare-and-swap loop on the bits */
    LLVMValueRef first = LLVMBuildLoad2(b, o->it, p, "");
    LLVMSetOrdering(first, LLVMAtomicOrderingMonotonic);
    set_align(first, o->size);
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(b);
    LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "cas.loop");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "cas.done");
    LLVMBuildBr(b, loop);
    LLVMPositionBuilderAtEnd(b, loop);
    LLVMValueRef old = LLVMBuildPhi(b, o->it, "old");
    LLVMValueRef pair = LLVMBuildAtomicCmpXchg(b, p, old, apply(F, o, old, v, ftz), sc, sc, false);
    set_align(pair, o->size);
    LLVMSetWeak(pair, true);
    LLVMValueRef seen = LLVMBuildExtractValue(b, pair, 0, "");
    LLVMBuildCondBr(b, LLVMBuildExtractValue(b, pair, 1, ""), done, loop);
    LLVMValueRef vals[2] = {first, seen};
    LLVMBasicBlockRef from[2] = {pre, LLVMGetInsertBlock(b)};
    LLVMAddIncoming(old, vals, from, 2);
    LLVMPositionBuilderAtEnd(b, done);
    return old;
}

/* Shared: the CTA's only OS thread is running this, so a plain RMW. */
static LLVMValueRef rmw_plain(fn *F, const atom_op *o, LLVMValueRef p, LLVMValueRef v, LLVMValueRef c)
{
    LLVMBuilderRef b = F->L->b;
    LLVMValueRef old = LLVMBuildLoad2(b, o->it, p, "");
    set_align(old, o->size);
    LLVMValueRef nv = o->red == PTX_RED_CAS
                          ? LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, old, v, ""), c, old, "")
                          : apply(F, o, old, v, NULL);
    set_align(LLVMBuildStore(b, nv, p), o->size);
    return old;
}

/* atom.add.f32 flushes subnormals on global memory but not on shared; a
 * generic address decides per lane. */
static LLVMValueRef ftz_for(fn *F, const atom_op *o, LLVMValueRef addr)
{
    lw *L = F->L;
    if (o->t != PTX_TYPE_F32 || o->red != PTX_RED_ADD)
        return NULL;
    if (!o->generic)
        return LLVMConstInt(L->i1, 1, false);
    LLVMValueRef off = LLVMBuildSub(L->b, addr, LLVMBuildPtrToInt(L->b, F->shared_base, L->i64, ""), "");
    return LLVMBuildICmp(L->b, LLVMIntUGE, off, o->win_end, "");
}

LLVMValueRef atomic_rmw_at(fn *F, const atom_op *o, LLVMValueRef addr, LLVMValueRef v)
{
    LLVMValueRef p = LLVMBuildIntToPtr(F->L->b, addr, F->L->ptr, "");
    return o->shared ? rmw_plain(F, o, p, v, NULL) : rmw_atomic(F, o, p, v, NULL, ftz_for(F, o, addr));
}

/* cp.reduce.async.bulk (lower_bulk.c): `n` bytes at `src` combined element
 * by element into `dst`, each element one read-modify-write as atom does
 * it (f32 add flushes subnormals into global memory, as red.global.add.f32
 * does).  dst/src are i64 addresses, n an i64 multiple of the element size. */
void atomic_bulk_reduce(fn *F, uint8_t red, ptx_type t, bool shared, LLVMValueRef dst, LLVMValueRef src,
                        LLVMValueRef n)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    atom_op o = {.red = red, .t = t, .size = ptx_type_size(t), .nvec = 1, .shared = shared};
    o.it = LLVMIntTypeInContext(L->ctx, 8 * o.size);
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(b);
    LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "bulkred.head");
    LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "bulkred.body");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "bulkred.done");
    LLVMBuildBr(b, head);
    LLVMPositionBuilderAtEnd(b, head);
    LLVMValueRef off = LLVMBuildPhi(b, L->i64, "off");
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, off, n, ""), body, done);
    LLVMPositionBuilderAtEnd(b, body);
    LLVMValueRef v = LLVMBuildLoad2(b, o.it, LLVMBuildIntToPtr(b, LLVMBuildAdd(b, src, off, ""), L->ptr, ""), "");
    set_align(v, o.size);
    atomic_rmw_at(F, &o, LLVMBuildAdd(b, dst, off, ""), v);
    LLVMValueRef next = LLVMBuildAdd(b, off, const_i64(L, o.size), "");
    LLVMBuildBr(b, head);
    LLVMValueRef vals[2] = {const_i64(L, 0), next};
    LLVMBasicBlockRef from[2] = {pre, LLVMGetInsertBlock(b)};
    LLVMAddIncoming(off, vals, from, 2);
    LLVMPositionBuilderAtEnd(b, done);
}

/* ---- per lane, in lane order ---- */

/* Lane `lane` of a vector spilled by spill(). */
static LLVMValueRef lane_of(fn *F, LLVMValueRef slot, LLVMTypeRef t, LLVMValueRef lane)
{
    return LLVMBuildLoad2(F->L->b, t, LLVMBuildGEP2(F->L->b, t, slot, &lane, 1, ""), "");
}

/* Lane `lane`'s address (or shared offset).  In the unrolled full-warp
 * sequence (constant lanes) it is read from the spill with a volatile
 * load: left to LLVM it comes out of the vector register at once, and
 * with every address known early the CPU runs the read-modify-writes'
 * loads ahead of the older stores they alias (two lanes on one bin): on a
 * Zen 4 the histogram's unrolled warp took 29 ms instead of 11. */
static LLVMValueRef lane_addr(fn *F, LLVMValueRef slot, LLVMTypeRef t, LLVMValueRef lane)
{
    LLVMValueRef v = lane_of(F, slot, t, lane);
    if (LLVMIsConstant(lane))
        LLVMSetVolatile(v, true);
    return v;
}

/* An operand's lane: from its spill, or from the constant itself (a
 * histogram's 1: no load per lane). */
static LLVMValueRef operand_lane(fn *F, LLVMValueRef v, LLVMTypeRef t, LLVMValueRef lane)
{
    return LLVMIsConstant(v) ? LLVMBuildExtractElement(F->L->b, v, lane, "") : lane_of(F, v, t, lane);
}

/* The lane loop reads operands from memory: variable-index extracts from
 * wide vectors (<32 x i128> above all) are slow to compile. */
static LLVMValueRef spill(fn *F, LLVMValueRef v)
{
    LLVMValueRef slot = entry_alloca(F, LLVMTypeOf(v), "atom.in");
    LLVMBuildStore(F->L->b, v, slot);
    return slot;
}

static void atom_lane(fn *F, LLVMValueRef lane, void *ctx)
{
    lw *L = F->L;
    atom_op *o = ctx;
    LLVMBuilderRef b = L->b;
    LLVMValueRef base;
    if (o->offs) /* shared: the window plus the lane's 32-bit offset */
        base = LLVMBuildAdd(b, o->window,
                            LLVMBuildZExt(b, o->lane_off ? o->lane_off : lane_addr(F, o->offs, L->i32, lane), L->i64, ""),
                            "");
    else
        base = lane_addr(F, o->addrs, L->i64, lane);
    for (uint32_t k = 0; k < o->nvec; k++) {
        LLVMValueRef addr = k ? LLVMBuildAdd(b, base, const_i64(L, (uint64_t)k * o->size), "") : base;
        LLVMValueRef p = LLVMBuildIntToPtr(b, addr, L->ptr, "");
        LLVMValueRef v = operand_lane(F, o->b[k], o->it, lane);
        LLVMValueRef c = o->c ? operand_lane(F, o->c, o->it, lane) : NULL;
        LLVMValueRef old = o->shared ? rmw_plain(F, o, p, v, c) : rmw_atomic(F, o, p, v, c, ftz_for(F, o, addr));
        if (o->out[k])
            LLVMBuildStore(b, old, LLVMBuildGEP2(b, o->it, o->out[k], &lane, 1, ""));
    }
}

/* Integer add, and, or, xor, min, max: one RMW for the warp when every
 * active lane hits one address. */
static bool can_aggregate(const atom_op *o)
{
    if (o->nvec != 1 || ptx_type_class(o->t) == 'F' || o->size < 4)
        return false;
    switch (o->red) {
    case PTX_RED_ADD: case PTX_RED_AND: case PTX_RED_OR: case PTX_RED_XOR:
    case PTX_RED_MIN: case PTX_RED_MAX:
        return true;
    default:
        return false;
    }
}

/* o with its operands spilled for the lane loop (the addresses too
 * unless the lanes recompute them), in the block being built: each path
 * spills what it reads, so a path that reads no spill stores none. */
static atom_op spilled(fn *F, const atom_op *o, bool addresses)
{
    atom_op s = *o;
    if (addresses && o->offs)
        s.offs = spill(F, o->offs);
    else if (addresses)
        s.addrs = spill(F, o->addrs);
    for (uint32_t k = 0; k < o->nvec; k++) /* constants stay (operand_lane) */
        s.b[k] = LLVMIsConstant(o->b[k]) ? o->b[k] : spill(F, o->b[k]);
    if (o->c)
        s.c = LLVMIsConstant(o->c) ? o->c : spill(F, o->c);
    return s;
}

/* The unrolled sequence with each lane's shared offset recomputed from
 * the global load it came from (lower_lane_value.c), where the load's
 * addresses have a known shape; false if the offset is not such. */
static bool recomputed_lanes(fn *F, const atom_op *o, LLVMValueRef mask, LLVMBasicBlockRef done)
{
    lw *L = F->L;
    const ptx_operand *a = &o->in->opds[o->in->op == PTX_OP_ATOM ? 1 : 0];
    if (!o->offs || a->kind != PTX_OPD_ADDR || a->nelems != 1)
        return false;
    uint32_t at_stmt;
    const ptx_instr *ld = lane_value_load(F, o->in, &a->elems[0], PTX_TYPE_U32, &at_stmt);
    if (!ld)
        return false;
    LLVMValueRef addrs = address_of(F, ld, &ld->opds[1], PTX_SPACE_GLOBAL);
    LLVMBasicBlockRef known = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "atom.lanes.known");
    LLVMBasicBlockRef plain = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "atom.lanes.spilled");
    shape_branch(F, addrs, mask, known, plain);
    LLVMPositionBuilderAtEnd(L->b, known);
    LLVMValueRef lanes = shape_lanes(F, addrs, mask);
    atom_op s = spilled(F, o, false);
    for (uint32_t l = 0; l < W; l++) {
        LLVMValueRef at = LLVMBuildExtractElement(L->b, lanes, const_i32(L, l), "");
        LLVMValueRef v = lane_value(F, at_stmt, &a->elems[0], PTX_TYPE_U32, at, l);
        s.lane_off = LLVMBuildAdd(L->b, LLVMBuildTrunc(L->b, v, L->i32, ""), const_i32(L, (uint32_t)a->imm), "");
        atom_lane(F, const_i32(L, l), &s);
    }
    LLVMBuildBr(L->b, done);
    LLVMPositionBuilderAtEnd(L->b, plain);
    return true;
}

/* Every lane active: the 32 read-modify-writes one after another, lane
 * numbers constant (no lane search), for shared integer operations whose
 * body is a load, an operation and a store (a histogram's bins). */
static void all_lanes(fn *F, const atom_op *o, LLVMValueRef mask)
{
    lw *L = F->L;
    LLVMBasicBlockRef full = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "atom.all");
    LLVMBasicBlockRef some = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "atom.some");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "atom.done");
    LLVMValueRef bits = mask_bits(F, mask);
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntEQ, bits, const_i32(L, UINT32_MAX), ""), full, some);
    LLVMPositionBuilderAtEnd(L->b, full);
    recomputed_lanes(F, o, mask, done);
    atom_op s = spilled(F, o, true);
    for (uint32_t l = 0; l < W; l++)
        atom_lane(F, const_i32(L, l), &s);
    LLVMBuildBr(L->b, done);
    LLVMPositionBuilderAtEnd(L->b, some);
    s = spilled(F, o, true);
    for_each_lane(F, mask, atom_lane, &s);
    LLVMBuildBr(L->b, done);
    LLVMPositionBuilderAtEnd(L->b, done);
}

static void lanes_in_order(fn *F, atom_op *o, LLVMValueRef mask)
{
    if (o->shared && can_aggregate(o)) {
        all_lanes(F, o, mask);
    } else {
        atom_op s = spilled(F, o, true);
        for_each_lane(F, mask, atom_lane, &s);
    }
}

/* Reads b (each element of a vector form) and c (cas) as raw bits. */
static void read_operands(fn *F, atom_op *o)
{
    const ptx_instr *in = o->in;
    bool is_atom = in->op == PTX_OP_ATOM;
    const ptx_operand *bo = &in->opds[is_atom ? 2 : 1];
    ptx_type bits = bit_type_of_size(o->size);
    for (uint32_t k = 0; k < o->nvec; k++)
        o->b[k] = read_opd(F, o->nvec > 1 ? &bo->elems[k] : bo, bits, false);
    if (o->red == PTX_RED_CAS)
        o->c = read_opd(F, &in->opds[3], bits, false);
    if (is_atom)
        for (uint32_t k = 0; k < o->nvec; k++)
            o->out[k] = entry_alloca(F, vec_of(o->it), "atom.old");
}

static void write_results(fn *F, const atom_op *o, LLVMValueRef mask)
{
    const ptx_operand *d = &o->in->opds[0];
    ptx_type bits = bit_type_of_size(o->size);
    for (uint32_t k = 0; k < o->nvec; k++) {
        LLVMValueRef v = LLVMBuildLoad2(F->L->b, vec_of(o->it), o->out[k], "");
        write_reg(F, o->nvec > 1 ? &d->elems[k] : d, v, bits, false, mask);
    }
}

static bool is_shared_space(uint8_t sp)
{
    return sp == PTX_SPACE_SHARED || sp == PTX_SPACE_SHARED_CTA || sp == PTX_SPACE_SHARED_CLUSTER;
}

bool lower_atomic(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    if (in->op != PTX_OP_ATOM && in->op != PTX_OP_RED)
        return false;
    lw *L = F->L;
    atom_op o = {.in = in, .red = in->mod[PTX_CAT_RED], .t = (ptx_type)in->types[0], .nvec = vec_len(in)};
    const char *why = form_error(in, o.red, o.t, o.nvec);
    if (why) {
        lw_error(L, in->loc, "'%s.%s.%s': %s", ptx_op_name(in->op), ptx_mod_text(PTX_CAT_RED, o.red),
                 ptx_type_name(o.t), why);
        return true;
    }
    yield_before_poll(F, in);
    uint8_t sp = in->mod[PTX_CAT_SPACE];
    o.size = ptx_type_size(o.t);
    o.it = LLVMIntTypeInContext(L->ctx, 8 * o.size);
    o.shared = is_shared_space(sp);
    o.generic = !sp;
    o.addrs = address_of(F, in, &in->opds[in->op == PTX_OP_ATOM ? 1 : 0], sp);
    check_alignment(F, in, o.addrs, mask, o.size * o.nvec);
    if (o.generic && o.t == PTX_TYPE_F32) {
        LLVMValueRef dyn = LLVMBuildExtractElement(L->b, F->sregs[PTX_SREG_DYNAMIC_SMEM_SIZE][0], const_i32(L, 0), "");
        o.win_end = LLVMBuildAdd(L->b, dyn_smem_offset(L), LLVMBuildZExt(L->b, dyn, L->i64, ""), "");
    }
    read_operands(F, &o);
    if (o.shared && !window_offsets(o.addrs, &o.window, &o.offs))
        o.window = o.offs = NULL;
    if (can_aggregate(&o)) {
        LLVMBasicBlockRef one = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "atom.warp");
        LLVMBasicBlockRef each = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "atom.lanes");
        LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "atom.join");
        LLVMBuildCondBr(L->b, lanes_share_address(F, o.offs ? o.offs : o.addrs, mask), one, each);
        LLVMPositionBuilderAtEnd(L->b, one);
        atomic_aggregate(F, &o, o.red, ptx_type_class(o.t) == 'S', o.addrs, o.b[0], o.out[0], mask);
        LLVMBuildBr(L->b, join);
        LLVMPositionBuilderAtEnd(L->b, each);
        lanes_in_order(F, &o, mask);
        LLVMBuildBr(L->b, join);
        LLVMPositionBuilderAtEnd(L->b, join);
    } else {
        lanes_in_order(F, &o, mask);
    }
    if (in->op == PTX_OP_ATOM)
        write_results(F, &o, mask);
    return true;
}
