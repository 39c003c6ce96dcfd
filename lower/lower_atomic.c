/* lower_atomic.c - atom and red: one atomicrmw/cmpxchg per active lane, in
 * lane order (DESIGN.md "Memory model and atomics"); .sem maps to the LLVM
 * ordering.  Shared-memory atomics are atomic too, which is correct if not
 * the cheapest (a CTA runs on one OS thread). */
#include "lower_internal.h"

typedef struct atom_ctx {
    const ptx_instr *in;
    ptx_type t;
    LLVMValueRef addrs, b, c, out;
    LLVMAtomicRMWBinOp op;
    bool cas;
    LLVMAtomicOrdering order;
} atom_ctx;

static LLVMAtomicOrdering ordering(const ptx_instr *in)
{
    switch (in->mod[PTX_CAT_SEM]) {
    case PTX_SEM_ACQUIRE: return LLVMAtomicOrderingAcquire;
    case PTX_SEM_RELEASE: return LLVMAtomicOrderingRelease;
    case PTX_SEM_ACQ_REL: return LLVMAtomicOrderingAcquireRelease;
    case PTX_SEM_SC: return LLVMAtomicOrderingSequentiallyConsistent;
    default: return LLVMAtomicOrderingMonotonic; /* relaxed, the default */
    }
}

static bool rmw_op(const ptx_instr *in, ptx_type t, LLVMAtomicRMWBinOp *op)
{
    char cls = ptx_type_class(t);
    bool s = cls == 'S';
    switch (in->mod[PTX_CAT_RED]) {
    case PTX_RED_ADD: *op = cls == 'F' ? LLVMAtomicRMWBinOpFAdd : LLVMAtomicRMWBinOpAdd; return true;
    case PTX_RED_MIN:
        *op = cls == 'F' ? LLVMAtomicRMWBinOpFMin : s ? LLVMAtomicRMWBinOpMin : LLVMAtomicRMWBinOpUMin;
        return true;
    case PTX_RED_MAX:
        *op = cls == 'F' ? LLVMAtomicRMWBinOpFMax : s ? LLVMAtomicRMWBinOpMax : LLVMAtomicRMWBinOpUMax;
        return true;
    case PTX_RED_INC: *op = LLVMAtomicRMWBinOpUIncWrap; return cls != 'F';
    case PTX_RED_DEC: *op = LLVMAtomicRMWBinOpUDecWrap; return cls != 'F';
    case PTX_RED_AND: *op = LLVMAtomicRMWBinOpAnd; return cls != 'F';
    case PTX_RED_OR: *op = LLVMAtomicRMWBinOpOr; return cls != 'F';
    case PTX_RED_XOR: *op = LLVMAtomicRMWBinOpXor; return cls != 'F';
    case PTX_RED_EXCH: *op = LLVMAtomicRMWBinOpXchg; return true;
    default: return false;
    }
}

static void atom_lane(fn *F, LLVMValueRef lane, void *ctx)
{
    lw *L = F->L;
    atom_ctx *c = ctx;
    LLVMBuilderRef b = L->b;
    LLVMValueRef addr = LLVMBuildIntToPtr(b, LLVMBuildExtractElement(b, c->addrs, lane, ""), L->ptr, "");
    LLVMValueRef v = LLVMBuildExtractElement(b, c->b, lane, "");
    LLVMValueRef old;
    if (c->cas) {
        LLVMValueRef nv = LLVMBuildExtractElement(b, c->c, lane, "");
        LLVMAtomicOrdering fail = c->order == LLVMAtomicOrderingRelease ||
                                          c->order == LLVMAtomicOrderingAcquireRelease
                                      ? (c->order == LLVMAtomicOrderingRelease ? LLVMAtomicOrderingMonotonic
                                                                                : LLVMAtomicOrderingAcquire)
                                      : c->order;
        LLVMValueRef pair = LLVMBuildAtomicCmpXchg(b, addr, v, nv, c->order, fail, false);
        old = LLVMBuildExtractValue(b, pair, 0, "");
    } else {
        old = LLVMBuildAtomicRMW(b, c->op, addr, v, c->order, false);
    }
    if (c->out) {
        LLVMValueRef slot = LLVMBuildGEP2(b, LLVMTypeOf(v), c->out, &lane, 1, "");
        LLVMBuildStore(b, old, slot);
    }
}

bool lower_atomic(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    if (in->op != PTX_OP_ATOM && in->op != PTX_OP_RED)
        return false;
    lw *L = F->L;
    bool is_atom = in->op == PTX_OP_ATOM;
    ptx_type t = (ptx_type)in->types[0];
    uint32_t size = ptx_type_size(t);
    atom_ctx c = {.in = in, .t = t, .order = ordering(in)};
    c.cas = in->mod[PTX_CAT_RED] == PTX_RED_CAS;
    if (in->mod[PTX_CAT_VEC] || size < 2 || t == PTX_TYPE_F16X2 || t == PTX_TYPE_BF16X2 ||
        (!c.cas && !rmw_op(in, t, &c.op))) {
        lw_error(L, in->loc, "this form of '%s' is not supported yet", ptx_op_name(in->op));
        return true;
    }
    /* 16-bit integer atomics other than cas/exch do not exist in PTX;
     * f16/bf16 add is lowered as an LLVM half/bfloat atomicrmw. */
    const ptx_operand *a = &in->opds[is_atom ? 1 : 0];
    c.addrs = address_of(F, in, a, in->mod[PTX_CAT_SPACE]);
    c.b = read_opd(F, &in->opds[is_atom ? 2 : 1], t, false);
    if (c.cas)
        c.c = read_opd(F, &in->opds[3], t, false);
    if (is_atom)
        c.out = entry_alloca(F, vec_of(scalar_type(L, t)), "atom");
    for_each_lane(F, mask, atom_lane, &c);
    if (is_atom) {
        LLVMValueRef v = LLVMBuildLoad2(L->b, vec_of(scalar_type(L, t)), c.out, "");
        write_reg(F, &in->opds[0], v, t, false, mask);
    }
    return true;
}
