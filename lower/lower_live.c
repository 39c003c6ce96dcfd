/* lower_live.c - which registers are live into some block.
 *
 * A write under the active mask must keep the old value of the inactive
 * lanes (they may be waiting at another block and read it later), which
 * turns every register written in a loop into a loop-carried vector.  A
 * register that is never live into a block - every read is preceded, in the
 * same block, by an unguarded write - cannot be read across blocks, so its
 * writes need no blend and LLVM keeps it in a local SSA value.  nvcc's
 * virtual registers are mostly like that. */
#include "lower_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct reg_info {
    uint32_t n;
    uint32_t *def_block;  /* block + 1 of the last unguarded write, per element */
    uint8_t *exposed;     /* read before written in some block */
} reg_info;

static reg_info *info_of(fn *F, const ptx_var *v)
{
    reg_info *ri = ptrmap_get(&F->live, v);
    if (!ri) {
        uint32_t vec = v->vec ? v->vec : 1;
        ri = calloc(1, sizeof *ri);
        ri->n = (v->nreg ? v->nreg : 1) * vec;
        ri->def_block = calloc(ri->n, sizeof *ri->def_block);
        ri->exposed = calloc(ri->n, 1);
        if (!ri->def_block || !ri->exposed)
            abort();
        ptrmap_put(&F->live, v, ri);
    }
    return ri;
}

static uint32_t elem_of(const ptx_operand *o)
{
    uint32_t vec = o->var->vec ? o->var->vec : 1;
    return o->reg_index * vec + (o->comp ? o->comp - 1 : 0);
}

static bool is_reg(const ptx_operand *o)
{
    return o->kind == PTX_OPD_NAME && o->var && o->var->space == PTX_SP_REG;
}

/* Visits every register in o (through vectors, pairs, addresses, lists). */
static void each_reg(fn *F, const ptx_operand *o, uint32_t block, bool def, bool exposed_always)
{
    if (is_reg(o)) {
        reg_info *ri = info_of(F, o->var);
        uint32_t k = elem_of(o);
        if (k >= ri->n)
            return;
        if (exposed_always)
            ri->exposed[k] = 1;
        else if (def)
            ri->def_block[k] = block + 1;
        else if (ri->def_block[k] != block + 1)
            ri->exposed[k] = 1;
    }
    for (uint32_t i = 0; i < o->nelems; i++)
        each_reg(F, &o->elems[i], block, def, exposed_always);
}

/* Whether operand 0 is certainly a full destination.  When unsure, say
 * no: treating a write as a read only costs a blend. */
static bool writes_first(const ptx_instr *in)
{
    if (in->nopds == 0 || (ptx_op_effects(in->op) & (E_BRANCH | E_CALL)))
        return false;
    switch (in->op) {
    case PTX_OP_POPC: case PTX_OP_CLZ: case PTX_OP_BFIND: case PTX_OP_DP4A: case PTX_OP_DP2A:
    case PTX_OP_FNS: case PTX_OP_BAR_RED: case PTX_OP_BARRIER_RED:
        return true;
    default:
        return strchr("012DQRM", ptx_op_shape(in->op)[0]) != NULL;
    }
}

static void scan_instr(fn *F, const ptx_instr *in, uint32_t block)
{
    bool dst = writes_first(in), call = in->op == PTX_OP_CALL;
    if (in->has_guard)
        each_reg(F, &in->guard, block, false, false);
    for (uint32_t i = dst ? 1 : 0; i < in->nopds; i++)
        each_reg(F, &in->opds[i], block, false, call);
    if (dst) /* a guarded write keeps old lanes: it reads the register too */
        each_reg(F, &in->opds[0], block, !in->has_guard, false);
}

void analyze_liveness(fn *F)
{
    const ptx_func *f = F->f;
    /* .reg parameters and return values live across the call boundary */
    for (uint32_t i = 0; i < f->nrets + f->nparams; i++) {
        const ptx_var *v = i < f->nrets ? f->rets[i] : f->params[i - f->nrets];
        if (v->space == PTX_SP_REG) {
            reg_info *ri = info_of(F, v);
            memset(ri->exposed, 1, ri->n);
        }
    }
    for (uint32_t i = 0; i < f->nbody; i++)
        if (f->body[i].kind == PTX_STMT_INSTR)
            scan_instr(F, f->body[i].instr, F->block_of_stmt[i]);
}

bool reg_needs_blend(fn *F, const ptx_var *v, uint32_t elem)
{
    reg_info *ri = ptrmap_get(&F->live, v);
    return !ri || elem >= ri->n || ri->exposed[elem];
}

void liveness_free(fn *F)
{
    for (uint32_t i = 0; i < F->live.cap; i++)
        if (F->live.keys[i]) {
            reg_info *ri = F->live.vals[i];
            free(ri->def_block);
            free(ri->exposed);
            free(ri);
        }
    ptrmap_free(&F->live);
}
