/* lower_nan.c - registers whose NaN bits nothing can see.
 *
 * The ISA makes every f32 NaN result the canonical NaN 0x7fffffff; the CPU
 * leaves other payloads, so fl_result canonicalises: a compare and a blend
 * per operation, on the critical path of an FMA accumulator chain.  The
 * payload only matters where the bits are seen: a store, an integer
 * operation, a call, a widening to f64.  An f32 operation reading a NaN
 * gives a NaN whatever its payload (and canonicalises its own result when
 * that is seen); a comparison, testp or a conversion to an integer sees
 * no payload at all.  A register whose every read is of that kind, or a
 * bit move (mov, selp, shfl's value, abs, neg) into another such register,
 * never shows its NaN bits: its writers skip the canonicalisation.
 *
 * Computed per register element as a greatest fixpoint: every register
 * starts unseen, and a read that shows the bits (or moves them into a
 * register that shows them) marks it seen, until nothing changes.  .reg
 * parameters and return values of a .func cross the call: always seen. */
#include "lower_internal.h"

#include <stdlib.h>
#include <string.h>

/* The flags of o's register (1: the NaN bits are never seen), created
 * all unseen. */
static uint8_t *flag_of(fn *F, const ptx_operand *o)
{
    uint8_t *fl = ptrmap_get(&F->nan, o->var);
    uint32_t n = reg_elems(o->var), k = reg_elem(o);
    if (!fl) {
        fl = malloc(n);
        if (!fl)
            abort();
        memset(fl, 1, n);
        ptrmap_put(&F->nan, o->var, fl);
    }
    return k < n ? &fl[k] : NULL;
}

/* Creates the (unseen) flags of every register in o. */
static void enter(fn *F, const ptx_operand *o)
{
    if (is_reg_opd(o))
        flag_of(F, o);
    for (uint32_t i = 0; i < o->nelems; i++)
        enter(F, &o->elems[i]);
}

/* Marks every register in o (vectors and addresses too) seen. */
static bool see(fn *F, const ptx_operand *o)
{
    bool changed = false;
    if (is_reg_opd(o)) {
        uint8_t *f = flag_of(F, o);
        changed = f && *f;
        if (f)
            *f = 0;
    }
    for (uint32_t i = 0; i < o->nelems; i++)
        changed |= see(F, &o->elems[i]);
    return changed;
}

typedef enum nan_read { READ_SEES, READ_BLIND, READ_MOVES } nan_read;

static ptx_type type_at(const ptx_instr *in, uint32_t i) { return in->ntypes > i ? (ptx_type)in->types[i] : PTX_TYPE_NONE; }

/* f32 arithmetic lowered by lower_float.c/lower_math.c: a NaN source gives
 * a NaN (or, under .sat, +0; min/max pick the other operand; abs and neg
 * the canonical NaN) whatever its payload.  .xorsign takes the sign of a NaN operand: not blind. */
static bool blind_arith(const ptx_instr *in)
{
    if (in->ntypes != 1 || type_at(in, 0) != PTX_TYPE_F32)
        return false;
    switch (in->op) {
    case PTX_OP_ADD: case PTX_OP_SUB: case PTX_OP_MUL: case PTX_OP_DIV: case PTX_OP_FMA: case PTX_OP_MAD:
    case PTX_OP_SQRT: case PTX_OP_RCP: case PTX_OP_RSQRT: case PTX_OP_EX2: case PTX_OP_LG2: case PTX_OP_SIN:
    case PTX_OP_COS: case PTX_OP_TANH: case PTX_OP_ABS: case PTX_OP_NEG:
        return true;
    case PTX_OP_MIN: case PTX_OP_MAX:
        return !(in->flags & PTX_FLAG_BIT(XORSIGN));
    default:
        return false;
    }
}

/* cvt from f32 to an integer (NaN -> a constant), to f32 (rounded, canonical) or
 * to tf32 with .rn/.rz (a constant NaN); not to f64, which keeps the
 * payload, nor .rna tf32, which truncates it. */
static bool blind_cvt(const ptx_instr *in)
{
    ptx_type dt = type_at(in, 0);
    char c = ptx_type_class(dt);
    bool tf32 = dt == PTX_TYPE_TF32 && in->mod[PTX_CAT_ROUND] != PTX_ROUND_RNA;
    return in->op == PTX_OP_CVT && in->nopds == 2 && type_at(in, 1) == PTX_TYPE_F32 &&
           (c == 'S' || c == 'U' || dt == PTX_TYPE_F32 || tf32);
}

static bool is_bits32(ptx_type t) { return t != PTX_TYPE_NONE && ptx_type_size(t) == 4 && t != PTX_TYPE_PRED; }

/* How `in` reads its operand i; for READ_MOVES, *to is the register that
 * gets the bits. */
static nan_read read_kind(const ptx_instr *in, uint32_t i, const ptx_operand **to)
{
    const ptx_operand *d = &in->opds[0];
    if (blind_arith(in) || blind_cvt(in))
        return READ_BLIND;
    switch (in->op) {
    case PTX_OP_SETP: case PTX_OP_TESTP:
        return type_at(in, 0) == PTX_TYPE_F32 ? READ_BLIND : READ_SEES;
    case PTX_OP_SET:
        return type_at(in, 1) == PTX_TYPE_F32 ? READ_BLIND : READ_SEES;
    case PTX_OP_MOV:
        *to = d;
        return is_bits32(type_at(in, 0)) && in->nopds == 2 ? READ_MOVES : READ_SEES;
    case PTX_OP_SELP:
        *to = d;
        return is_bits32(type_at(in, 0)) && i < 3 ? READ_MOVES : READ_SEES;
    case PTX_OP_SHFL: /* the value, lane by lane; b c and the mask are integers */
        *to = d->kind == PTX_OPD_PAIR ? &d->elems[0] : d;
        return i == 1 ? READ_MOVES : READ_SEES;
    default:
        return READ_SEES;
    }
}

/* Whether operand 0 of `in` is only written (lower_live.c's roles); where
 * unsure (calls, opaque forms) it counts as read, which only costs a
 * canonicalisation. */
static bool writes_first(const ptx_instr *in)
{
    return in->op != PTX_OP_CALL && instr_defines_first(in);
}

/* One pass over the reads of `in`; whether a flag changed. */
static bool scan_reads(fn *F, const ptx_instr *in)
{
    bool changed = false;
    for (uint32_t i = writes_first(in) ? 1 : 0; i < in->nopds; i++) {
        const ptx_operand *o = &in->opds[i], *to = NULL;
        nan_read r = is_reg_opd(o) ? read_kind(in, i, &to) : READ_SEES;
        if (r == READ_BLIND)
            continue;
        if (r == READ_MOVES && is_reg_opd(to)) {
            uint8_t *f = flag_of(F, to);
            if (f && *f)
                continue;
        }
        changed |= see(F, o);
    }
    return changed;
}

void analyze_nan(fn *F)
{
    const ptx_func *f = F->f;
    for (uint32_t i = 0; i < f->nrets + f->nparams; i++) {
        const ptx_var *v = i < f->nrets ? f->rets[i] : f->params[i - f->nrets];
        if (v->space == PTX_SP_REG) {
            uint8_t *fl = calloc(reg_elems(v), 1);
            if (!fl)
                abort();
            ptrmap_put(&F->nan, v, fl);
        }
    }
    for (uint32_t i = 0; i < f->nbody; i++)
        for (uint32_t k = 0; f->body[i].kind == PTX_STMT_INSTR && k < f->body[i].instr->nopds; k++)
            enter(F, &f->body[i].instr->opds[k]);
    /* Backwards: a chain of moves settles in one pass when written in order. */
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t i = f->nbody; i-- > 0;)
            if (f->body[i].kind == PTX_STMT_INSTR)
                changed |= scan_reads(F, f->body[i].instr);
    }
}

bool nan_bits_unseen(fn *F, const ptx_operand *d)
{
    if (!is_reg_opd(d))
        return false;
    const uint8_t *fl = ptrmap_get(&F->nan, d->var);
    uint32_t k = reg_elem(d);
    return fl && k < reg_elems(d->var) && fl[k];
}

void nan_free(fn *F)
{
    for (uint32_t i = 0; i < F->nan.cap; i++)
        free(F->nan.keys[i] ? F->nan.vals[i] : NULL);
    ptrmap_free(&F->nan);
}
