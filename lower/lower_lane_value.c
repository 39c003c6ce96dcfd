/* lower_lane_value.c - one lane's value of a register, recomputed in
 * scalar code.
 *
 * An operation done lane by lane (the shared-memory atomics of a
 * histogram) reads each lane's operand from the spilled vector, and a
 * scalar load from a vector store just made waits until the store reaches
 * the cache (the CPU forwards a store's bytes only to a load that starts
 * where it does: ~20 cycles per warp on a Zen 4, with the 32
 * read-modify-writes behind it).  Where the operand was computed in the
 * same block by integer arithmetic from one ld.global and values that have
 * not changed since, lane l's operand is that arithmetic over the byte
 * (or word) lane l loaded, loaded again at its address: nothing between
 * the load and the use writes memory, and ld.global cannot read the
 * shared memory the atomics write.  Its address comes from the load's
 * address shape (lower_shape.c), so the scalar code is a load at lane 0's
 * address plus a constant. */
#include "lower_internal.h"

enum { DEPTH = 12 };

typedef struct walk {
    fn *F;
    uint32_t at, block;      /* the reading instruction's statement and block */
    uint32_t first;          /* the earliest statement the value is computed from */
    const ptx_instr *load;   /* the one ld.global */
    LLVMValueRef addr;       /* emitting: the lane's address of the load (i64); NULL while checking */
    uint32_t lane;
} walk;

static uint32_t stmt_of(const fn *F, const ptx_instr *in)
{
    for (uint32_t i = 0; i < F->f->nbody; i++)
        if (F->f->body[i].kind == PTX_STMT_INSTR && F->f->body[i].instr == in)
            return i;
    return UINT32_MAX;
}

/* The definition's statement when it is in the block before `before`. */
static uint32_t stmt_in_block(const walk *w, const ptx_instr *def, uint32_t before)
{
    uint32_t i = before;
    while (i > 0 && w->F->block_of_stmt[i - 1] == w->block) {
        i--;
        if (w->F->f->body[i].kind == PTX_STMT_INSTR && w->F->f->body[i].instr == def)
            return i;
    }
    return UINT32_MAX;
}

/* Instructions that write nothing but operand 0 (registers) and read
 * memory at most: the stretch from the value's first instruction to its
 * reader may hold only these. */
static bool pure(const ptx_instr *in)
{
    switch (in->op) {
    case PTX_OP_MOV: case PTX_OP_ADD: case PTX_OP_SUB: case PTX_OP_MUL: case PTX_OP_MAD:
    case PTX_OP_SHL: case PTX_OP_SHR: case PTX_OP_AND: case PTX_OP_OR: case PTX_OP_XOR:
    case PTX_OP_NOT: case PTX_OP_CVT: case PTX_OP_CVTA: case PTX_OP_SETP: case PTX_OP_SELP:
    case PTX_OP_MIN: case PTX_OP_MAX: case PTX_OP_NEG: case PTX_OP_ABS:
        return true;
    case PTX_OP_LD:
        return in->mod[PTX_CAT_SEM] == 0 || in->mod[PTX_CAT_SEM] == PTX_SEM_WEAK;
    default:
        return false;
    }
}

static bool names(const ptx_operand *d, const ptx_operand *o)
{
    if (d->kind == PTX_OPD_NAME)
        return d->var == o->var && reg_elem(d) == reg_elem(o);
    for (uint32_t i = 0; i < d->nelems; i++)
        if ((d->kind == PTX_OPD_VEC || d->kind == PTX_OPD_PAIR) && names(&d->elems[i], o))
            return true;
    return false;
}

/* o's register is written in statements (from, to) of the block. */
static bool written_between(const walk *w, const ptx_operand *o, uint32_t from, uint32_t to)
{
    for (uint32_t i = from + 1; i < to; i++) {
        const ptx_stmt *s = &w->F->f->body[i];
        if (s->kind == PTX_STMT_INSTR && s->instr->nopds && names(&s->instr->opds[0], o))
            return true;
    }
    return false;
}

static bool int_class(ptx_type t)
{
    char c = ptx_type_class(t);
    return (c == 'U' || c == 'S' || c == 'B') && ptx_type_size(t) <= 8;
}

/* ---- emitting: values as i64 whose low `bits` bits count ---- */

static LLVMValueRef low(walk *w, LLVMValueRef x, unsigned bits)
{
    lw *L = w->F->L;
    return bits >= 64 ? x : LLVMBuildAnd(L->b, x, const_i64(L, (1ull << bits) - 1), "");
}

static LLVMValueRef sext(walk *w, LLVMValueRef x, unsigned bits)
{
    lw *L = w->F->L;
    if (bits >= 64)
        return x;
    LLVMValueRef k = const_i64(L, 64 - bits);
    return LLVMBuildAShr(L->b, LLVMBuildShl(L->b, x, k, ""), k, "");
}

/* PTX shifts clamp the amount to the width. */
static LLVMValueRef shift(walk *w, const ptx_instr *in, LLVMValueRef a, LLVMValueRef b, unsigned bits, bool sign)
{
    lw *L = w->F->L;
    LLVMBuilderRef B = L->b;
    b = low(w, b, 32);
    LLVMValueRef big = LLVMBuildICmp(B, LLVMIntUGE, b, const_i64(L, bits), "");
    if (in->op == PTX_OP_SHL)
        return LLVMBuildSelect(B, big, const_i64(L, 0), LLVMBuildShl(B, a, b, ""), "");
    if (sign)
        return LLVMBuildAShr(B, sext(w, a, bits), LLVMBuildSelect(B, big, const_i64(L, bits - 1), b, ""), "");
    return LLVMBuildSelect(B, big, const_i64(L, 0), LLVMBuildLShr(B, low(w, a, bits), b, ""), "");
}

static bool operand(walk *w, const ptx_operand *o, ptx_type t, uint32_t use, unsigned depth, LLVMValueRef *out);

/* The loaded element, extended to the register as ld does. */
static bool load_value(walk *w, const ptx_instr *in, LLVMValueRef *out)
{
    ptx_type t = (ptx_type)in->types[0];
    const ptx_operand *d = &in->opds[0];
    unsigned bits = 8 * ptx_type_size(t), reg_bits = 8 * ptx_type_size(d->var->type);
    if (!w->addr)
        return true;
    lw *L = w->F->L;
    LLVMTypeRef it = LLVMIntTypeInContext(L->ctx, bits);
    LLVMValueRef v = LLVMBuildLoad2(L->b, it, LLVMBuildIntToPtr(L->b, w->addr, L->ptr, ""), "");
    LLVMSetAlignment(v, bits / 8);
    *out = ptx_type_class(t) == 'S' ? low(w, LLVMBuildSExt(L->b, v, L->i64, ""), reg_bits)
                                    : LLVMBuildZExt(L->b, v, L->i64, "");
    return true;
}

/* The one global load the value comes from: weak, one integer element
 * into a register, nothing between it and the reader writing memory. */
static bool load_ok(walk *w, const ptx_instr *in, uint32_t stmt)
{
    ptx_type t = (ptx_type)in->types[0];
    const ptx_operand *d = &in->opds[0], *a = in->nopds == 2 ? &in->opds[1] : NULL;
    char c = ptx_type_class(t);
    if (w->load || in->mod[PTX_CAT_SPACE] != PTX_SPACE_GLOBAL || in->mod[PTX_CAT_VEC] || !pure(in) ||
        (c != 'U' && c != 'S') || ptx_type_size(t) > 8 || d->kind != PTX_OPD_NAME ||
        ptx_type_size(d->var->type) < ptx_type_size(t) || !a || a->kind != PTX_OPD_ADDR || a->nelems != 1 ||
        !is_reg_opd(&a->elems[0]) || written_between(w, &a->elems[0], stmt, w->at))
        return false;
    w->load = in;
    return true;
}

static bool cvt_value(walk *w, const ptx_instr *in, uint32_t use, unsigned depth, LLVMValueRef *out)
{
    ptx_type dt = (ptx_type)in->types[0], st = (ptx_type)in->types[1];
    if (in->flags || !int_class(dt) || !int_class(st))
        return false;
    LLVMValueRef a = NULL;
    if (!operand(w, &in->opds[1], st, use, depth + 1, &a))
        return false;
    if (w->addr) {
        unsigned sbits = 8 * ptx_type_size(st);
        *out = low(w, ptx_type_class(st) == 'S' ? sext(w, a, sbits) : low(w, a, sbits), 8 * ptx_type_size(dt));
    }
    return true;
}

/* The value an instruction writes to its register operand 0. */
static bool instr_value(walk *w, const ptx_instr *in, uint32_t stmt, unsigned depth, LLVMValueRef *out)
{
    if (in->op == PTX_OP_LD)
        return load_ok(w, in, stmt) && load_value(w, in, out);
    if (in->op == PTX_OP_CVT)
        return cvt_value(w, in, stmt, depth, out);
    ptx_type t = (ptx_type)in->types[0];
    if (in->flags || !int_class(t) || in->nopds < 2 || in->nopds > 4)
        return false;
    unsigned bits = 8 * ptx_type_size(t);
    bool sign = ptx_type_class(t) == 'S', wide = in->mod[PTX_CAT_WIDTH] == PTX_WIDTH_WIDE;
    LLVMValueRef v[4] = {0};
    for (uint32_t i = 1; i < in->nopds; i++) {
        ptx_type ot = (in->op == PTX_OP_SHL || in->op == PTX_OP_SHR) && i == 2 ? PTX_TYPE_U32 : t;
        if (!operand(w, &in->opds[i], ot, stmt, depth + 1, &v[i]))
            return false;
    }
    switch (in->op) {
    case PTX_OP_MOV: case PTX_OP_NOT:
        if (in->nopds != 2)
            return false;
        break;
    case PTX_OP_ADD: case PTX_OP_SUB: case PTX_OP_AND: case PTX_OP_OR: case PTX_OP_XOR:
    case PTX_OP_SHL: case PTX_OP_SHR:
        if (in->nopds != 3)
            return false;
        break;
    case PTX_OP_MUL:
        if (in->nopds != 3 || (wide && bits > 32) || (!wide && in->mod[PTX_CAT_WIDTH] != PTX_WIDTH_LO))
            return false;
        break;
    case PTX_OP_MAD:
        if (in->nopds != 4 || in->mod[PTX_CAT_WIDTH] != PTX_WIDTH_LO)
            return false;
        break;
    default:
        return false;
    }
    if (!w->addr)
        return true;
    LLVMBuilderRef B = w->F->L->b;
    LLVMValueRef a = v[1], b = v[2], r;
    switch (in->op) {
    case PTX_OP_MOV: r = a; break;
    case PTX_OP_NOT: r = LLVMBuildNot(B, a, ""); break;
    case PTX_OP_ADD: r = LLVMBuildAdd(B, a, b, ""); break;
    case PTX_OP_SUB: r = LLVMBuildSub(B, a, b, ""); break;
    case PTX_OP_AND: r = LLVMBuildAnd(B, a, b, ""); break;
    case PTX_OP_OR: r = LLVMBuildOr(B, a, b, ""); break;
    case PTX_OP_XOR: r = LLVMBuildXor(B, a, b, ""); break;
    case PTX_OP_SHL: case PTX_OP_SHR: r = shift(w, in, a, b, bits, sign); break;
    case PTX_OP_MAD: r = LLVMBuildAdd(B, LLVMBuildMul(B, a, b, ""), v[3], ""); break;
    default: /* mul */
        if (wide) {
            r = sign ? LLVMBuildMul(B, sext(w, a, bits), sext(w, b, bits), "")
                     : LLVMBuildMul(B, low(w, a, bits), low(w, b, bits), "");
            *out = low(w, r, 2 * bits);
            return true;
        }
        r = LLVMBuildMul(B, a, b, "");
        break;
    }
    *out = low(w, r, bits);
    return true;
}

/* An operand read as type t by the instruction at statement `use`:
 * an immediate, a register computed in the block (recomputed), or one
 * unchanged since `use` (its lane of the vector: constants and
 * broadcasts fold). */
static bool operand(walk *w, const ptx_operand *o, ptx_type t, uint32_t use, unsigned depth, LLVMValueRef *out)
{
    lw *L = w->F->L;
    if (depth > DEPTH || o->neg || o->comp || o->vsel || o->minus || o->has_offset)
        return false;
    if (o->kind == PTX_OPD_IMM) {
        if (w->addr)
            *out = low(w, const_i64(L, o->imm), 8 * ptx_type_size(t));
        return true;
    }
    if (o->kind != PTX_OPD_NAME || !o->var)
        return false;
    if (is_reg_opd(o)) {
        const ptx_instr *def = single_def(w->F, o);
        uint32_t s = def ? stmt_in_block(w, def, use) : UINT32_MAX;
        if (s != UINT32_MAX) {
            if (s < w->first)
                w->first = s;
            return instr_value(w, def, s, depth, out);
        }
        if (written_between(w, o, use, w->at))
            return false;
    }
    if (w->addr) {
        LLVMValueRef v = read_opd(w->F, o, bit_type_of_size(ptx_type_size(t)), false);
        *out = LLVMBuildZExt(L->b, LLVMBuildExtractElement(L->b, v, const_i32(L, w->lane), ""), L->i64, "");
    }
    return true;
}

/* A walk from the instruction at statement `at`. */
static walk walk_at(fn *F, uint32_t at)
{
    return (walk){.F = F, .at = at, .block = F->block_of_stmt[at], .first = at};
}

const ptx_instr *lane_value_load(fn *F, const ptx_instr *at, const ptx_operand *o, ptx_type t, uint32_t *at_stmt)
{
    const ptx_func *f = F->f;
    uint32_t stmt = stmt_of(F, at);
    if (stmt == UINT32_MAX)
        return NULL;
    walk w = walk_at(F, stmt);
    if (!operand(&w, o, t, w.at, 0, NULL) || !w.load)
        return NULL;
    for (uint32_t i = w.first; i < w.at; i++)
        if (f->body[i].kind == PTX_STMT_INSTR && !pure(f->body[i].instr))
            return NULL;
    *at_stmt = stmt;
    return w.load;
}

LLVMValueRef lane_value(fn *F, uint32_t at_stmt, const ptx_operand *o, ptx_type t, LLVMValueRef addr, uint32_t lane)
{
    walk w = walk_at(F, at_stmt);
    w.addr = addr, w.lane = lane;
    LLVMValueRef v = NULL;
    return operand(&w, o, t, w.at, 0, &v) ? v : NULL;
}
