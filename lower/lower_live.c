/* lower_live.c - two facts per register that shape the generated code.
 *
 * Blend: a write under the active mask must keep the old value of the
 * inactive lanes (they may be waiting at another block and read it later),
 * which turns every register written in a loop into a loop-carried vector.
 * A register that is never live into a block - every read is preceded, in
 * the same block, by an unguarded write - cannot be read across blocks, so
 * its writes need no blend.  nvcc's virtual registers are mostly like that.
 *
 * Uniform: a register with a single definition computing a pure function
 * of immutable uniform values (constants, kernel parameters, %ctaid,
 * %ntid, variable addresses, other uniform registers) holds the same value
 * in every lane whenever it is read, however the lanes diverge; it is kept
 * as a scalar.  Loop bounds, base pointers and strides are like that. */
#include "lower_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct reg_info {
    uint32_t n;
    uint32_t *def_block;   /* block + 1 of the last unguarded write, per element */
    uint8_t *exposed;      /* read before written in some block */
    uint8_t *uniform;      /* candidate, then result */
    const ptx_instr **def; /* the single defining instruction */
    uint32_t base;         /* index of element 0 in block liveness bit sets */
    uint8_t *remat;        /* resumable kernels: recomputed after a wait, not saved */
    uint32_t *ndefs_exact; /* writes seen */
    uint8_t *opaque;       /* written opaquely (calls, components, across a call boundary): never uniform */
    uint8_t *immutable;    /* uniform by its single definition over immutable values */
    uint32_t *defs_seen;   /* analyze_multi_uniform's count of checked definitions */
    uint8_t *sides;        /* analyze_multi_uniform: touched past a leaving branch (READ_T ..) */
} reg_info;

static reg_info *info_of(fn *F, const ptx_var *v)
{
    reg_info *ri = ptrmap_get(&F->live, v);
    if (!ri) {
        uint32_t vec = v->vec ? v->vec : 1;
        ri = calloc(1, sizeof *ri);
        if (!ri)
            abort();
        ri->n = (v->nreg ? v->nreg : 1) * vec;
        ri->def_block = calloc(ri->n, sizeof *ri->def_block);
        ri->exposed = calloc(ri->n, 1);
        ri->uniform = calloc(ri->n, 1);
        ri->remat = calloc(ri->n, 1);
        ri->def = calloc(ri->n, sizeof *ri->def);
        ri->ndefs_exact = calloc(ri->n, sizeof *ri->ndefs_exact);
        ri->opaque = calloc(ri->n, 1);
        ri->immutable = calloc(ri->n, 1);
        ri->defs_seen = calloc(ri->n, sizeof *ri->defs_seen);
        ri->sides = calloc(ri->n, 1);
        if (!ri->sides || !ri->def_block || !ri->exposed || !ri->uniform || !ri->remat || !ri->def ||
            !ri->ndefs_exact || !ri->opaque || !ri->immutable || !ri->defs_seen)
            abort();
        ptrmap_put(&F->live, v, ri);
    }
    return ri;
}

typedef enum role { ROLE_USE, ROLE_DEF, ROLE_UNKNOWN } role;

/* The role of operand 0.  When unsure, ROLE_UNKNOWN: the register is then
 * treated as both read and written by an opaque instruction. */
static role first_role(const ptx_instr *in)
{
    if (in->nopds == 0 || (ptx_op_effects(in->op) & E_BRANCH))
        return ROLE_USE;
    switch (in->op) {
    case PTX_OP_MOV: case PTX_OP_CVTA: case PTX_OP_POPC: case PTX_OP_CLZ: case PTX_OP_BFIND:
    case PTX_OP_DP4A: case PTX_OP_DP2A: case PTX_OP_FNS: case PTX_OP_BAR_RED:
    case PTX_OP_BARRIER_RED: case PTX_OP_BAR_CTA_RED: case PTX_OP_BARRIER_CTA_RED:
    case PTX_OP_VSET: case PTX_OP_VSET2: case PTX_OP_VSET4: case PTX_OP_GETCTARANK: case PTX_OP_MBARRIER_PENDING_COUNT:
        return ROLE_DEF;
    case PTX_OP_BAR_SYNC: case PTX_OP_BARRIER_SYNC: case PTX_OP_BAR_ARRIVE:
    case PTX_OP_BARRIER_ARRIVE: case PTX_OP_BAR_WARP_SYNC: case PTX_OP_NANOSLEEP:
    case PTX_OP_BAR_CTA_SYNC: case PTX_OP_BARRIER_CTA_SYNC: case PTX_OP_BAR_CTA_ARRIVE:
    case PTX_OP_BARRIER_CTA_ARRIVE:
        return ROLE_USE;
    default:
        break;
    }
    char c = ptx_op_shape(in->op)[0];
    if (strchr("012DQRM", c))
        return ROLE_DEF;
    return strchr("ALPI", c) ? ROLE_USE : ROLE_UNKNOWN;
}

typedef enum visit { V_USE, V_DEF, V_PARTIAL_DEF, V_OPAQUE } visit;

/* Applies one access to every register in o (vectors, pairs, addresses). */
static void touch(fn *F, const ptx_operand *o, uint32_t block, visit how, const ptx_instr *in)
{
    if (is_reg_opd(o)) {
        reg_info *ri = info_of(F, o->var);
        uint32_t k = reg_elem(o);
        if (k >= ri->n)
            return;
        bool read = how == V_USE || how == V_PARTIAL_DEF || how == V_OPAQUE;
        if (read && ri->def_block[k] != block + 1)
            ri->exposed[k] = 1;
        if (how == V_DEF)
            ri->def_block[k] = block + 1;
        if (how != V_USE) {
            ri->ndefs_exact[k]++;
            ri->def[k] = in;
            if (how == V_OPAQUE || o->comp)
                ri->opaque[k] = 1;
        }
    }
    for (uint32_t i = 0; i < o->nelems; i++)
        touch(F, &o->elems[i], block, how, in);
}

static void scan_instr(fn *F, const ptx_instr *in, uint32_t block)
{
    role r = first_role(in);
    bool call = in->op == PTX_OP_CALL;
    if (in->has_guard)
        touch(F, &in->guard, block, V_USE, in);
    for (uint32_t i = r == ROLE_USE ? 0 : 1; i < in->nopds; i++)
        touch(F, &in->opds[i], block, call ? V_OPAQUE : V_USE, in);
    if (r == ROLE_DEF) /* a guarded write keeps old lanes: it reads the register too */
        touch(F, &in->opds[0], block, in->has_guard ? V_PARTIAL_DEF : V_DEF, in);
    else if (r == ROLE_UNKNOWN)
        touch(F, &in->opds[0], block, V_OPAQUE, in);
}

/* ---- uniformity ---- */

static bool is_kernel_param(fn *F, const ptx_var *v)
{
    for (uint32_t i = 0; F->is_entry && i < F->f->nparams; i++)
        if (v == F->f->params[i])
            return true;
    return false;
}

static bool opd_uniform(fn *F, const ptx_operand *o)
{
    switch (o->kind) {
    case PTX_OPD_IMM: case PTX_OPD_F32: case PTX_OPD_F64:
        return true;
    case PTX_OPD_SREG:
        switch (o->sreg) {
        case PTX_SREG_NTID: case PTX_SREG_NCTAID: case PTX_SREG_CTAID: case PTX_SREG_WARPID:
        case PTX_SREG_NWARPID: case PTX_SREG_DYNAMIC_SMEM_SIZE: case PTX_SREG_ENVREG:
            return true;
        default:
            return false;
        }
    case PTX_OPD_NAME:
        if (is_reg_opd(o)) {
            reg_info *ri = ptrmap_get(&F->live, o->var);
            uint32_t k = reg_elem(o);
            return ri && k < ri->n && ri->uniform[k];
        }
        if (o->func)
            return true;
        /* addresses: the same for every lane, except per-lane storage */
        return o->var && (o->var->space == PTX_SP_GLOBAL || o->var->space == PTX_SP_CONST ||
                          o->var->space == PTX_SP_SHARED || is_kernel_param(F, o->var));
    default:
        return false;
    }
}

static bool is_kernel_param_load(fn *F, const ptx_instr *in)
{
    const ptx_operand *a = &in->opds[1];
    return in->mod[PTX_CAT_SPACE] == PTX_SPACE_PARAM && a->kind == PTX_OPD_ADDR && a->nelems == 1 &&
           a->elems[0].var && is_kernel_param(F, a->elems[0].var);
}

/* Instructions whose result depends only on their operands. */
static bool pure(const ptx_instr *in)
{
    switch (in->op) {
    case PTX_OP_MOV: case PTX_OP_CVT: case PTX_OP_CVTA: case PTX_OP_ADD: case PTX_OP_SUB:
    case PTX_OP_MUL: case PTX_OP_MAD: case PTX_OP_DIV: case PTX_OP_REM: case PTX_OP_AND:
    case PTX_OP_OR: case PTX_OP_XOR: case PTX_OP_NOT: case PTX_OP_CNOT: case PTX_OP_SHL:
    case PTX_OP_SHR: case PTX_OP_MIN: case PTX_OP_MAX: case PTX_OP_ABS: case PTX_OP_NEG:
    case PTX_OP_SETP: case PTX_OP_SELP: case PTX_OP_SLCT: case PTX_OP_SET: case PTX_OP_BFE:
    case PTX_OP_BFI: case PTX_OP_PRMT: case PTX_OP_POPC: case PTX_OP_CLZ: case PTX_OP_BREV:
    case PTX_OP_BFIND: case PTX_OP_LOP3: case PTX_OP_SHF: case PTX_OP_FMA: case PTX_OP_SQRT:
    case PTX_OP_RCP: case PTX_OP_COPYSIGN:
        return !(in->flags & PTX_FLAG_BIT(CC)) && in->op != PTX_OP_ADDC;
    default:
        return false;
    }
}

/* A pure definition of one register (a kernel parameter load included)
 * whose operands all pass `ok`. */
static bool pure_def_over(fn *F, const ptx_instr *in, bool (*ok)(fn *, const ptx_operand *))
{
    if (!in->nopds || in->opds[0].kind != PTX_OPD_NAME) /* no result (trap), pairs, vector unpacking */
        return false;
    if (in->op == PTX_OP_LD)
        return is_kernel_param_load(F, in) && !in->mod[PTX_CAT_VEC];
    if (!pure(in))
        return false;
    for (uint32_t i = 1; i < in->nopds; i++)
        if (!ok(F, &in->opds[i]))
            return false;
    return true;
}

static bool any_opd(fn *F, const ptx_operand *o)
{
    (void)F, (void)o;
    return true;
}

bool pure_def(fn *F, const ptx_instr *in)
{
    return pure_def_over(F, in, any_opd);
}

/* Operand o is %tid.x, or a register whose one definition copies it. */
static bool is_tid_x(fn *F, const ptx_operand *o)
{
    if (o->kind == PTX_OPD_SREG)
        return o->sreg == PTX_SREG_TID && o->comp == 1;
    if (!is_reg_opd(o))
        return false;
    reg_info *ri = ptrmap_get(&F->live, o->var);
    uint32_t k = reg_elem(o);
    if (!ri || k >= ri->n || ri->ndefs_exact[k] != 1 || ri->opaque[k])
        return false;
    const ptx_instr *def = ri->def[k];
    return def->op == PTX_OP_MOV && !def->has_guard && def->nopds == 2 && def->opds[1].kind == PTX_OPD_SREG &&
           def->opds[1].sreg == PTX_SREG_TID && def->opds[1].comp == 1;
}

/* %tid.x >> 5 (or more) where the block's rows are whole warps (its shape
 * known): a warp's 32 threads lie in one row, 32 apart from a multiple
 * of 32, so the warp's index in its row is the same in every lane. */
bool warp_in_row(fn *F, const ptx_instr *in)
{
    if (in->op != PTX_OP_SHR || in->has_guard || in->nopds != 3 || !F->ntid[0] || F->ntid[0] % W)
        return false;
    const ptx_operand *k = &in->opds[2];
    return k->kind == PTX_OPD_IMM && k->imm >= 5 && k->imm < 32 && ptx_type_size((ptx_type)in->types[0]) == 4 &&
           is_tid_x(F, &in->opds[1]);
}

static bool def_uniform_over_operands(fn *F, const ptx_instr *in)
{
    return (!in->has_guard || opd_uniform(F, &in->guard)) && pure_def_over(F, in, opd_uniform);
}

static bool def_uniform(fn *F, const ptx_instr *in)
{
    return warp_in_row(F, in) || def_uniform_over_operands(F, in);
}

static uint8_t *uniform_flags(reg_info *ri) { return ri->uniform; }
static uint8_t *remat_flags(reg_info *ri) { return ri->remat; }

/* The registers with one definition that def_ok accepts, given the
 * others' flags: every single-definition register starts as a candidate
 * and candidates are dropped until stable. */
static void settle_single_defs(fn *F, uint8_t *(*flags)(reg_info *), bool (*def_ok)(fn *, const ptx_instr *))
{
    for (uint32_t i = 0; i < F->live.cap; i++)
        if (F->live.keys[i]) {
            reg_info *ri = F->live.vals[i];
            uint8_t *flag = flags(ri);
            for (uint32_t k = 0; k < ri->n; k++)
                flag[k] = ri->ndefs_exact[k] == 1 && !ri->opaque[k];
        }
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t i = 0; i < F->live.cap; i++) {
            if (!F->live.keys[i])
                continue;
            reg_info *ri = F->live.vals[i];
            uint8_t *flag = flags(ri);
            for (uint32_t k = 0; k < ri->n; k++)
                if (flag[k] && !def_ok(F, ri->def[k])) {
                    flag[k] = 0;
                    changed = true;
                }
        }
    }
}

/* ---- uniform registers with several definitions ----
 * In a kernel whose every conditional branch is uniform or splits a
 * converged warp around a plain if-body (lower_control.c), and that makes
 * no call and no indexed branch, a warp is converged in every block but
 * those bodies: each runs with all the warp's live lanes.  There every
 * definition of a register from uniform values writes the same value in
 * all live lanes, so the register is uniform however many definitions it
 * has (a loop counter: 0, then += 16).  In an if-body only some lanes
 * write: a definition there must be the register's only one and read
 * immutable values only (then any lane computes the same value, whenever
 * it runs); with another definition, the lanes that skip the body keep
 * the other value (`x = 0; if (tid == 40) x = 1;`). */

static bool reads_immutable(fn *F, const ptx_instr *in)
{
    for (uint32_t i = 0; i <= in->nopds; i++) {
        const ptx_operand *o = i < in->nopds ? &in->opds[i] : in->has_guard ? &in->guard : NULL;
        if (!o || (i == 0 && in->nopds && first_role(in) == ROLE_DEF))
            continue;
        if (is_reg_opd(o)) {
            reg_info *ri = ptrmap_get(&F->live, o->var);
            uint32_t k = reg_elem(o);
            if (!ri || k >= ri->n || !ri->immutable[k])
                return false;
        } else if (!opd_uniform(F, o)) {
            return false;
        }
    }
    return true;
}

/* Whether the branch at statement i jumps over an if-body to its join
 * (lower_control.c, find_if_bodies). */
bool branch_skips_if_body(fn *F, uint32_t i)
{
    const ptx_instr *in = F->f->body[i].instr;
    uint32_t b = F->block_of_stmt[i], n = F->next_block[b], t = F->block_of_stmt[in->opds[0].label];
    return n < F->nblocks && t != n && F->if_join[n] == t + 1;
}

/* Divergent branches that are no if-body split: lanes that go one way may
 * never touch a register again that the others write (a grid-stride
 * loop's exit). */
enum { MAX_LEAVING = 8 };
typedef struct leaving {
    uint32_t n, stmt[MAX_LEAVING];
} leaving;

/* A barrier, a warp collective or another wait. */
static bool waits(const ptx_instr *in)
{
    return is_sync_point(in) || (ptx_op_effects(in->op) & E_SYNC);
}

/* Marks the if-bodies of divergent branches; false when a branch is
 * neither uniform nor such a split nor one of MAX_LEAVING leaving ones (or
 * the kernel calls, branches through a table, or waits under a divergent
 * guard). */
static bool branches_converge(fn *F, uint8_t *body, leaving *lv)
{
    const ptx_func *f = F->f;
    memset(body, 0, F->nblocks);
    lv->n = 0;
    for (uint32_t i = 0; i < f->nbody; i++) {
        if (f->body[i].kind != PTX_STMT_INSTR)
            continue;
        const ptx_instr *in = f->body[i].instr;
        if (in->op == PTX_OP_CALL || in->op == PTX_OP_BRX_IDX)
            return false;
        if (!in->has_guard || opd_uniform(F, &in->guard))
            continue;
        if (in->op == PTX_OP_BRA) {
            if (branch_skips_if_body(F, i))
                body[F->next_block[F->block_of_stmt[i]]] = 1;
            else if (lv->n < MAX_LEAVING)
                lv->stmt[lv->n++] = i;
            else
                return false;
        } else if (waits(in)) {
            return false;
        }
    }
    return true;
}

/* Whether block b starts with a CTA barrier every thread meets: after it,
 * the warp's lanes that arrived there go on together. */
static bool starts_with_barrier(fn *F, uint32_t b, const uint32_t *first)
{
    if (first[b] >= F->f->nbody)
        return false;
    const ptx_instr *in = F->f->body[first[b]].instr;
    return !in->has_guard && in->nopds <= 1 &&
           (in->op == PTX_OP_BAR_SYNC || in->op == PTX_OP_BARRIER_SYNC || in->op == PTX_OP_BAR_CTA_SYNC ||
            in->op == PTX_OP_BARRIER_CTA_SYNC);
}

/* The blocks reachable from block `from` (itself included); with `first`
 * (each block's first instruction), not past blocks that start with a
 * barrier: *stop is then the one such block met, UINT32_MAX for none,
 * UINT32_MAX - 1 for several. */
static void reach_from(fn *F, uint32_t from, uint8_t *seen, const ptx_instr **last, uint32_t *stack,
                       const uint32_t *first, uint32_t *stop)
{
    memset(seen, 0, F->nblocks);
    uint32_t top = 0;
    if (stop)
        *stop = UINT32_MAX;
    if (from >= F->nblocks)
        return;
    seen[from] = 1;
    stack[top++] = from;
    while (top) {
        uint32_t b = stack[--top], succ[64];
        if (first && starts_with_barrier(F, b, first)) {
            seen[b] = 0;
            *stop = *stop == UINT32_MAX || *stop == b ? b : UINT32_MAX - 1;
            continue;
        }
        uint32_t ns = block_successors(F, b, last[b], succ, 64);
        for (uint32_t e = 0; e < ns; e++)
            if (succ[e] < F->nblocks && !seen[succ[e]])
                seen[succ[e]] = 1, stack[top++] = succ[e];
    }
}

enum { READ_T = 1, WRITE_T = 2, READ_F = 4, WRITE_F = 8 };

static void mark_sides(fn *F, const ptx_operand *o, uint8_t bits)
{
    if (is_reg_opd(o)) {
        reg_info *ri = ptrmap_get(&F->live, o->var);
        uint32_t k = reg_elem(o);
        if (ri && k < ri->n)
            ri->sides[k] |= bits;
    }
    for (uint32_t e = 0; e < o->nelems; e++)
        mark_sides(F, &o->elems[e], bits);
}

/* Drops the uniform registers that lanes on one side of a leaving branch
 * write while lanes on the other side read or write them (but those with
 * one definition over immutable values: any lane writes the same).  Where
 * both sides meet the same barrier before any other, the lanes are
 * together again past it: the sides end there (the histogram's `tid <
 * 256` clear of its bins before the grid-stride loop), and what is read
 * past it counts as read on both sides (each lane reads what its own side
 * wrote). */
static bool drop_split_registers(fn *F, const leaving *lv)
{
    const ptx_func *f = F->f;
    uint32_t nb = F->nblocks;
    uint8_t *taken = calloc(nb, 1), *fall = calloc(nb, 1), *after = calloc(nb, 1);
    const ptx_instr **last = calloc(nb, sizeof *last);
    uint32_t *stack = calloc(nb, sizeof *stack);
    if (!taken || !fall || !after || !last || !stack)
        abort();
    uint32_t *first = malloc(nb * sizeof *first);
    if (!first)
        abort();
    for (uint32_t b = 0; b < nb; b++)
        first[b] = UINT32_MAX;
    for (uint32_t i = f->nbody; i-- > 0;)
        if (f->body[i].kind == PTX_STMT_INSTR && F->block_of_stmt[i] < nb)
            first[F->block_of_stmt[i]] = i;
    for (uint32_t i = 0; i < f->nbody; i++)
        if (f->body[i].kind == PTX_STMT_INSTR && F->block_of_stmt[i] < nb)
            last[F->block_of_stmt[i]] = f->body[i].instr;
    bool changed = false;
    for (uint32_t j = 0; j < lv->n; j++) {
        const ptx_instr *br = f->body[lv->stmt[j]].instr;
        uint32_t to = F->block_of_stmt[br->opds[0].label], on = F->next_block[F->block_of_stmt[lv->stmt[j]]];
        uint32_t stop_t, stop_f;
        reach_from(F, to, taken, last, stack, first, &stop_t);
        reach_from(F, on, fall, last, stack, first, &stop_f);
        if (stop_t != stop_f || stop_t >= nb) { /* apart past a barrier too */
            reach_from(F, to, taken, last, stack, NULL, NULL);
            reach_from(F, on, fall, last, stack, NULL, NULL);
            memset(after, 0, nb);
        } else { /* each lane reads there what its side left: as if both sides read */
            reach_from(F, stop_t, after, last, stack, NULL, NULL);
        }
        for (uint32_t i = 0; i < F->live.cap; i++)
            if (F->live.keys[i]) {
                reg_info *ri = F->live.vals[i];
                memset(ri->sides, 0, ri->n);
            }
        for (uint32_t i = 0; i < f->nbody; i++) {
            uint32_t b = F->block_of_stmt[i];
            if (f->body[i].kind != PTX_STMT_INSTR || b >= nb || (!taken[b] && !fall[b] && !after[b]))
                continue;
            const ptx_instr *in = f->body[i].instr;
            uint8_t apart = (taken[b] ? READ_T : 0) | (fall[b] ? READ_F : 0), w = (uint8_t)(apart << 1);
            uint8_t r = after[b] ? READ_T | READ_F : apart;
            bool def = in->nopds && first_role(in) != ROLE_USE;
            if (in->has_guard)
                mark_sides(F, &in->guard, r);
            for (uint32_t k = 0; k < in->nopds; k++)
                mark_sides(F, &in->opds[k], k == 0 && def ? (uint8_t)(r | w) : r);
        }
        for (uint32_t i = 0; i < F->live.cap; i++)
            if (F->live.keys[i]) {
                reg_info *ri = F->live.vals[i];
                for (uint32_t k = 0; k < ri->n; k++) {
                    uint8_t s = ri->sides[k];
                    if (ri->uniform[k] && !ri->immutable[k] && (((s & WRITE_T) && (s & (READ_F | WRITE_F))) ||
                                           ((s & WRITE_F) && (s & (READ_T | WRITE_T))))) {
                        ri->uniform[k] = 0;
                        changed = true;
                    }
                }
            }
    }
    free(taken), free(fall), free(after), free(last), free(stack), free(first);
    return changed;
}

static void analyze_multi_uniform(fn *F)
{
    const ptx_func *f = F->f;
    if (!F->is_entry || !F->nblocks || !F->if_join)
        return;
    uint8_t *body = calloc(F->nblocks, 1);
    if (!body)
        abort();
    /* optimistic start: every register some plain instructions define */
    for (uint32_t i = 0; i < F->live.cap; i++)
        if (F->live.keys[i]) {
            reg_info *ri = F->live.vals[i];
            memcpy(ri->immutable, ri->uniform, ri->n);
            for (uint32_t k = 0; k < ri->n; k++)
                ri->uniform[k] = ri->ndefs_exact[k] && !ri->opaque[k];
        }
    bool converge = true;
    leaving lv;
    for (bool changed = true; changed;) {
        changed = false;
        if (!branches_converge(F, body, &lv)) {
            for (uint32_t i = 0; i < F->live.cap; i++)
                if (F->live.keys[i]) {
                    reg_info *ri = F->live.vals[i];
                    memcpy(ri->uniform, ri->immutable, ri->n);
                }
            converge = false;
            break;
        }
        /* every definition must write a uniform value: the ones seen here
         * are counted, any other (vector destinations) drops the register */
        for (uint32_t i = 0; i < F->live.cap; i++)
            if (F->live.keys[i]) {
                reg_info *ri = F->live.vals[i];
                memset(ri->defs_seen, 0, ri->n * sizeof *ri->defs_seen);
            }
        for (uint32_t i = 0; i < f->nbody; i++) {
            if (f->body[i].kind != PTX_STMT_INSTR)
                continue;
            const ptx_instr *in = f->body[i].instr;
            if (first_role(in) != ROLE_DEF || !is_reg_opd(&in->opds[0]))
                continue;
            reg_info *ri = ptrmap_get(&F->live, in->opds[0].var);
            uint32_t k = reg_elem(&in->opds[0]);
            if (!ri || k >= ri->n || !ri->uniform[k])
                continue;
            if (def_uniform(F, in) &&
                (!body[F->block_of_stmt[i]] || (ri->ndefs_exact[k] == 1 && reads_immutable(F, in)))) {
                ri->defs_seen[k]++;
            } else {
                ri->uniform[k] = 0;
                changed = true;
            }
        }
        for (uint32_t i = 0; i < F->live.cap; i++)
            if (F->live.keys[i]) {
                reg_info *ri = F->live.vals[i];
                for (uint32_t k = 0; k < ri->n; k++)
                    if (ri->uniform[k] && ri->defs_seen[k] != ri->ndefs_exact[k]) {
                        ri->uniform[k] = 0;
                        changed = true;
                    }
            }
        if (lv.n && drop_split_registers(F, &lv))
            changed = true;
    }
    if (converge && lv.n) /* some lanes may have left: no block runs the whole warp for sure */
        converge = false;
    if (converge) { /* the blocks outside if-bodies */
        for (uint32_t b = 0; b < F->nblocks; b++)
            body[b] = !body[b];
        F->whole_warp = body;
        return;
    }
    free(body);
}

static void analyze_uniform(fn *F)
{
    settle_single_defs(F, uniform_flags, def_uniform);
    analyze_multi_uniform(F);
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
            memset(ri->opaque, 1, ri->n);
        }
    }
    for (uint32_t i = 0; i < f->nbody; i++)
        if (f->body[i].kind == PTX_STMT_INSTR)
            scan_instr(F, f->body[i].instr, F->block_of_stmt[i]);
    analyze_uniform(F);
    analyze_nan(F);
}

bool reg_needs_blend(fn *F, const ptx_var *v, uint32_t elem)
{
    reg_info *ri = ptrmap_get(&F->live, v);
    return !ri || elem >= ri->n || ri->exposed[elem];
}

bool reg_is_uniform(fn *F, const ptx_var *v, uint32_t elem)
{
    reg_info *ri = ptrmap_get(&F->live, v);
    return ri && elem < ri->n && ri->uniform[elem];
}

void liveness_free(fn *F)
{
    for (uint32_t i = 0; i < F->live.cap; i++)
        if (F->live.keys[i]) {
            reg_info *ri = F->live.vals[i];
            free(ri->def_block);
            free(ri->exposed);
            free(ri->uniform);
            free(ri->remat);
            free(ri->def);
            free(ri->ndefs_exact);
            free(ri->opaque);
            free(ri->immutable);
            free(ri->defs_seen);
            free(ri->sides);
            free(ri);
        }
    ptrmap_free(&F->live);
    nan_free(F);
    forwarding_free(F);
}

/* For lowerings that can use one value for the whole warp (shfl's lane
 * operand): whether o is the same in every lane. */
bool opd_is_uniform(fn *F, const ptx_operand *o)
{
    return opd_uniform(F, o);
}

bool instr_defines_first(const ptx_instr *in)
{
    return first_role(in) == ROLE_DEF;
}

bool instr_writes_opaque(const ptx_instr *in)
{
    return first_role(in) == ROLE_UNKNOWN;
}

/* ---- liveness per block ----
 * What a resumable kernel's waiting warp must save: the registers live
 * into the blocks its lanes continue at.  Classic backward dataflow over
 * the blocks as lowered, one bit per register element. */

static void set_bit(uint64_t *s, uint32_t i) { s[i / 64] |= 1ull << (i % 64); }
static bool has_bit(const uint64_t *s, uint32_t i) { return s[i / 64] >> (i % 64) & 1; }

static void gen_kill(fn *F, const ptx_operand *o, visit how, uint64_t *gen, uint64_t *kill)
{
    if (is_reg_opd(o)) {
        reg_info *ri = info_of(F, o->var);
        uint32_t k = reg_elem(o);
        if (k < ri->n) {
            uint32_t bit = ri->base + k;
            if (how != V_DEF && !has_bit(kill, bit))
                set_bit(gen, bit);
            if (how == V_DEF)
                set_bit(kill, bit);
        }
    }
    for (uint32_t i = 0; i < o->nelems; i++)
        gen_kill(F, &o->elems[i], how, gen, kill);
}

/* The same accesses as scan_instr, in the same order (reads first). */
static void instr_gen_kill(fn *F, const ptx_instr *in, uint64_t *gen, uint64_t *kill)
{
    role r = first_role(in);
    if (in->has_guard)
        gen_kill(F, &in->guard, V_USE, gen, kill);
    for (uint32_t i = r == ROLE_USE ? 0 : 1; i < in->nopds; i++)
        gen_kill(F, &in->opds[i], V_USE, gen, kill);
    if (r == ROLE_DEF)
        gen_kill(F, &in->opds[0], in->has_guard ? V_PARTIAL_DEF : V_DEF, gen, kill);
    else if (r == ROLE_UNKNOWN)
        gen_kill(F, &in->opds[0], V_OPAQUE, gen, kill);
}

/* Successors of each block in the lowered numbering (at most 2 + brx targets). */
uint32_t block_successors(fn *F, uint32_t b, const ptx_instr *last, uint32_t *out, uint32_t max)
{
    uint32_t n = 0;
    ptx_opcode op = last ? last->op : PTX_OP_NONE;
    bool term = op == PTX_OP_BRA || op == PTX_OP_BRX_IDX || op == PTX_OP_RET || op == PTX_OP_EXIT;
    if ((!term || last->has_guard) && F->next_block[b] < F->nblocks)
        out[n++] = F->next_block[b];
    if (op == PTX_OP_BRA && n < max)
        out[n++] = F->block_of_stmt[last->opds[0].label];
    if (op == PTX_OP_BRX_IDX) {
        const ptx_stmt *t = &F->f->body[last->opds[1].label];
        for (uint32_t j = 0; j < t->ntargets && n < max; j++)
            out[n++] = F->block_of_stmt[t->targets[j].label];
    }
    return n;
}

void analyze_block_liveness(fn *F)
{
    const ptx_func *f = F->f;
    uint32_t nbits = 0, nb = F->nblocks;
    for (uint32_t i = 0; i < F->live.cap; i++)
        if (F->live.keys[i]) {
            reg_info *ri = F->live.vals[i];
            ri->base = nbits;
            nbits += ri->n;
        }
    uint32_t w = F->live_words = (nbits + 63) / 64 + 1;
    uint64_t *gen = calloc((size_t)nb * w, 8), *kill = calloc((size_t)nb * w, 8);
    const ptx_instr **last = calloc(nb, sizeof *last);
    F->live_in = calloc((size_t)nb * w, 8);
    if (!gen || !kill || !last || !F->live_in)
        abort(); /* lowering has no partial-failure path */
    for (uint32_t i = 0; i < f->nbody; i++)
        if (f->body[i].kind == PTX_STMT_INSTR) {
            uint32_t b = F->block_of_stmt[i];
            instr_gen_kill(F, f->body[i].instr, gen + (size_t)b * w, kill + (size_t)b * w);
            last[b] = f->body[i].instr;
        }
    uint64_t *out = calloc(w, 8);
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t b = nb; b-- > 0;) {
            uint32_t succ[64], ns = block_successors(F, b, last[b], succ, 64);
            memset(out, 0, w * 8);
            for (uint32_t e = 0; e < ns; e++)
                for (uint32_t j = 0; j < w; j++)
                    out[j] |= F->live_in[(size_t)succ[e] * w + j];
            for (uint32_t j = 0; j < w; j++) {
                uint64_t v = gen[(size_t)b * w + j] | (out[j] & ~kill[(size_t)b * w + j]);
                if (v != F->live_in[(size_t)b * w + j]) {
                    F->live_in[(size_t)b * w + j] = v;
                    changed = true;
                }
            }
        }
    }
    free(out), free(gen), free(kill), free(last);
}

bool reg_live_in(fn *F, uint32_t block, const ptx_var *v, uint32_t elem)
{
    reg_info *ri = ptrmap_get(&F->live, v);
    if (!ri || elem >= ri->n || !F->live_in)
        return true;
    return has_bit(F->live_in + (size_t)block * F->live_words, ri->base + elem);
}

/* ---- rematerialization ----
 * A register with one unguarded, pure definition from immutable values -
 * constants, kernel parameters, %ctaid, %tid, %laneid, addresses, other
 * such registers - holds the same value whenever a lane reads it.  A
 * waiting warp need not save it: the resume path computes it again, which
 * also keeps its shape (lane 0's value plus constants) visible to the
 * address analysis, where a reload from the frame would hide it. */

static bool remat_opd(fn *F, const ptx_operand *o)
{
    o = forwarded(F, o);
    if (o->kind == PTX_OPD_SREG)
        switch (o->sreg) {
        case PTX_SREG_TID: case PTX_SREG_LANEID: case PTX_SREG_LANEMASK_EQ: case PTX_SREG_LANEMASK_LT:
        case PTX_SREG_LANEMASK_LE: case PTX_SREG_LANEMASK_GE: case PTX_SREG_LANEMASK_GT:
            return true;
        default:
            break;
        }
    if (is_reg_opd(o)) {
        reg_info *ri = ptrmap_get(&F->live, o->var);
        uint32_t k = reg_elem(o);
        return ri && k < ri->n && ri->remat[k];
    }
    return opd_uniform(F, o);
}

static bool def_remat(fn *F, const ptx_instr *in)
{
    return !in->has_guard && pure_def_over(F, in, remat_opd);
}

void analyze_remat(fn *F)
{
    settle_single_defs(F, remat_flags, def_remat);
}

/* A private register written by a copy of `def` (lower_forward.c): one
 * definition, live where the original element is. */
void reg_add_copy(fn *F, const ptx_var *copy, const ptx_instr *def, const ptx_var *orig, uint32_t elem)
{
    reg_info *o = ptrmap_get(&F->live, orig), *ri = info_of(F, copy);
    ri->ndefs_exact[0] = 1;
    ri->def[0] = def;
    ri->exposed[0] = 1;
    ri->base = o ? o->base + elem : 0;
}

bool reg_is_remat(fn *F, const ptx_var *v, uint32_t elem)
{
    reg_info *ri = ptrmap_get(&F->live, v);
    return ri && elem < ri->n && ri->remat[elem];
}

/* The one definition of a rematerialized register operand (through its
 * forwarded copy), or NULL. */
const ptx_instr *remat_def_of(fn *F, const ptx_operand *o)
{
    o = forwarded(F, o);
    if (!is_reg_opd(o))
        return NULL;
    reg_info *ri = ptrmap_get(&F->live, o->var);
    uint32_t k = reg_elem(o);
    return ri && k < ri->n && ri->remat[k] ? ri->def[k] : NULL;
}

/* The one definition of a register operand, written whole and unguarded
 * (so every read sees what it wrote), or NULL. */
const ptx_instr *single_def(fn *F, const ptx_operand *o)
{
    if (!is_reg_opd(o))
        return NULL;
    reg_info *ri = ptrmap_get(&F->live, o->var);
    uint32_t k = reg_elem(o);
    if (!ri || k >= ri->n || ri->ndefs_exact[k] != 1 || ri->opaque[k] || ri->def[k]->has_guard)
        return NULL;
    return ri->def[k];
}

/* The defining instruction of a rematerialized register operand 0 of in. */
bool instr_defines_remat(fn *F, const ptx_instr *in)
{
    const ptx_operand *d = in->nopds ? &in->opds[0] : NULL;
    return d && is_reg_opd(d) && reg_is_remat(F, d->var, reg_elem(d)) && ptrmap_get(&F->live, d->var) &&
           ((reg_info *)ptrmap_get(&F->live, d->var))->def[reg_elem(d)] == in;
}
