/* lower_thread_value.c - a register's value in one thread, known at
 * compile time.
 *
 * With the block shape known (a specialized version), %tid and %ntid are
 * constants in each thread, and so is every register computed from them
 * and immediates through integer arithmetic, one whole unguarded
 * definition each: the tree reduction's `tid > 127`, the shuffle
 * reduction's `(tid >> 5) != 0`.  The CTA loop uses it to leave out the
 * warps whose lanes all skip a region's work (lower_resume.c). */
#include "lower_internal.h"

enum { DEPTH = 12 };

static uint64_t low_bits(uint64_t v, unsigned bits)
{
    return bits >= 64 ? v : v & ((1ull << bits) - 1);
}

static int64_t sign_extend(uint64_t v, unsigned bits)
{
    return bits >= 64 ? (int64_t)v : (int64_t)(v << (64 - bits)) >> (64 - bits);
}

static bool value_of(fn *F, const ptx_operand *o, const uint32_t tid[3], unsigned depth, uint64_t *out);

/* The linear thread index t's %tid, by the layout of warps in a CTA:
 * x fastest, then y, then z. */
static void thread_tid(fn *F, uint32_t t, uint32_t tid[3])
{
    tid[0] = t % F->ntid[0];
    tid[1] = t / F->ntid[0] % F->ntid[1];
    tid[2] = t / (F->ntid[0] * F->ntid[1]);
}

static bool sreg_value(fn *F, const ptx_operand *o, const uint32_t tid[3], uint64_t *out)
{
    if (o->sreg == PTX_SREG_LANEID) {
        *out = (tid[0] + F->ntid[0] * (tid[1] + F->ntid[1] * tid[2])) % W;
        return true;
    }
    if (o->comp < 1 || o->comp > 3 || (o->sreg != PTX_SREG_TID && o->sreg != PTX_SREG_NTID))
        return false;
    *out = o->sreg == PTX_SREG_TID ? tid[o->comp - 1] : F->ntid[o->comp - 1];
    return true;
}

/* Integer comparison by a setp's condition code (int_predicate's
 * mapping, shared with the lowering of setp). */
static bool compare(uint8_t cmp, bool sign, uint64_t a, uint64_t b, unsigned bits, uint64_t *out)
{
    LLVMIntPredicate p;
    int64_t sa = sign_extend(a, bits), sb = sign_extend(b, bits);
    a = low_bits(a, bits), b = low_bits(b, bits);
    if (!int_predicate(cmp, sign, &p))
        return false;
    switch (p) {
    case LLVMIntEQ: *out = a == b; return true;
    case LLVMIntNE: *out = a != b; return true;
    case LLVMIntULT: *out = a < b; return true;
    case LLVMIntULE: *out = a <= b; return true;
    case LLVMIntUGT: *out = a > b; return true;
    case LLVMIntUGE: *out = a >= b; return true;
    case LLVMIntSLT: *out = sa < sb; return true;
    case LLVMIntSLE: *out = sa <= sb; return true;
    case LLVMIntSGT: *out = sa > sb; return true;
    case LLVMIntSGE: *out = sa >= sb; return true;
    default: return false;
    }
}

static bool setp_value(const ptx_instr *in, const uint64_t *v, uint64_t *out)
{
    ptx_type t = (ptx_type)in->types[0];
    char cls = ptx_type_class(t);
    if ((cls != 'U' && cls != 'S' && cls != 'B') ||
        !compare(in->mod[PTX_CAT_CMP], cls == 'S', v[1], v[2], 8 * ptx_type_size(t), out))
        return false;
    if (in->nopds < 4)
        return true;
    switch (in->mod[PTX_CAT_BOOL]) {
    case PTX_BOOL_AND: *out &= v[3]; return true;
    case PTX_BOOL_OR: *out |= v[3]; return true;
    case PTX_BOOL_XOR: *out ^= v[3]; return true;
    default: return false;
    }
}

/* Shifts by the amount PTX clamps to the width. */
static uint64_t shift(const ptx_instr *in, uint64_t a, uint64_t b, unsigned bits, bool sign)
{
    b = low_bits(b, 32);
    if (in->op == PTX_OP_SHL)
        return b >= bits ? 0 : a << b;
    if (sign)
        return (uint64_t)(sign_extend(a, bits) >> (b >= bits ? bits - 1 : b));
    return b >= bits ? 0 : low_bits(a, bits) >> b;
}

static bool mul_value(const ptx_instr *in, uint64_t a, uint64_t b, unsigned bits, bool sign, uint64_t *out)
{
    switch (in->mod[PTX_CAT_WIDTH]) {
    case PTX_WIDTH_WIDE:
        if (bits > 32)
            return false;
        *out = sign ? (uint64_t)(sign_extend(a, bits) * sign_extend(b, bits)) : low_bits(a, bits) * low_bits(b, bits);
        return true;
    case PTX_WIDTH_LO: case 0:
        *out = a * b;
        return true;
    default:
        return false;
    }
}

/* cvt between integer types: the source's bits, extended by its sign. */
static bool cvt_value(const ptx_instr *in, uint64_t a, uint64_t *out)
{
    ptx_type st = (ptx_type)in->types[1];
    char dc = ptx_type_class((ptx_type)in->types[0]), sc = ptx_type_class(st);
    if (in->flags || (dc != 'U' && dc != 'S' && dc != 'B') || (sc != 'U' && sc != 'S' && sc != 'B'))
        return false;
    unsigned sbits = 8 * ptx_type_size(st);
    *out = low_bits(sc == 'S' ? (uint64_t)sign_extend(a, sbits) : low_bits(a, sbits),
                    8 * ptx_type_size((ptx_type)in->types[0]));
    return true;
}

static bool instr_value(fn *F, const ptx_instr *in, const uint32_t tid[3], unsigned depth, uint64_t *out)
{
    uint64_t v[4] = {0};
    if (in->nopds < 2 || in->nopds > 4)
        return false;
    for (uint32_t i = 1; i < in->nopds; i++)
        if (!value_of(F, &in->opds[i], tid, depth + 1, &v[i]))
            return false;
    if (in->op == PTX_OP_SETP)
        return setp_value(in, v, out);
    if (in->op == PTX_OP_CVT)
        return cvt_value(in, v[1], out);
    ptx_type t = (ptx_type)in->types[0];
    char cls = ptx_type_class(t);
    bool sign = cls == 'S', pred = cls == 'P';
    unsigned bits = pred ? 1 : 8 * ptx_type_size(t);
    if (in->flags || (cls != 'U' && cls != 'S' && cls != 'B' && !pred))
        return false;
    uint64_t a = v[1], b = v[2];
    switch (in->op) {
    case PTX_OP_MOV: *out = a; break;
    case PTX_OP_ADD: *out = a + b; break;
    case PTX_OP_SUB: *out = a - b; break;
    case PTX_OP_AND: *out = a & b; break;
    case PTX_OP_OR: *out = a | b; break;
    case PTX_OP_XOR: *out = a ^ b; break;
    case PTX_OP_NOT: *out = ~a; break;
    case PTX_OP_SHL: case PTX_OP_SHR: *out = shift(in, a, b, bits, sign); break;
    case PTX_OP_MUL:
        if (!mul_value(in, a, b, bits, sign, out))
            return false;
        if (in->mod[PTX_CAT_WIDTH] == PTX_WIDTH_WIDE)
            return true; /* twice the width */
        break;
    case PTX_OP_MAD:
        if (in->mod[PTX_CAT_WIDTH] != PTX_WIDTH_LO)
            return false;
        *out = a * b + v[3];
        break;
    case PTX_OP_MIN: case PTX_OP_MAX: {
        bool less = sign ? sign_extend(a, bits) < sign_extend(b, bits) : low_bits(a, bits) < low_bits(b, bits);
        *out = (in->op == PTX_OP_MIN) == less ? a : b;
        break;
    }
    case PTX_OP_SELP: *out = v[3] ? a : b; break;
    default: return false;
    }
    *out = low_bits(*out, bits);
    return true;
}

static bool value_of(fn *F, const ptx_operand *o, const uint32_t tid[3], unsigned depth, uint64_t *out)
{
    if (depth > DEPTH || o->has_offset || o->minus || o->vsel)
        return false;
    bool ok = false;
    if (o->kind == PTX_OPD_IMM) {
        *out = o->imm, ok = true;
    } else if (o->kind == PTX_OPD_SREG) {
        ok = sreg_value(F, o, tid, out);
    } else if (is_reg_opd(o) && !o->comp) {
        const ptx_instr *def = single_def(F, o);
        const ptx_operand *d = def && def->nopds ? &def->opds[0] : NULL;
        ok = d && d->kind == PTX_OPD_NAME && d->var == o->var && !d->comp && reg_elem(d) == reg_elem(o) &&
             instr_value(F, def, tid, depth, out);
    }
    if (ok && o->neg)
        *out = !*out;
    return ok;
}

bool warp_guard_known(fn *F, const ptx_operand *guard, uint32_t warp, bool *value)
{
    uint32_t threads = F->ntid[0] * F->ntid[1] * F->ntid[2];
    bool first = true;
    if (!F->ntid[0])
        return false;
    for (uint32_t t = warp * W; t < threads && t < (warp + 1) * W; t++) {
        uint32_t tid[3];
        uint64_t v;
        thread_tid(F, t, tid);
        if (!value_of(F, guard, tid, 0, &v) || (!first && (v != 0) != *value))
            return false;
        *value = v != 0, first = false;
    }
    return !first;
}
