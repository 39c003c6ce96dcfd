/* lower_control.c - control flow and calls.
 *
 * Each lane's next block lives in the pc vector.  A block ends by updating
 * pc for the lanes that ran it; the dispatcher then runs the lowest pending
 * block with the lanes waiting there (thread-frontier reconvergence, valid
 * for any CFG).  So that lanes spinning on a lock held by a lane of the
 * same warp cannot livelock, every 64th dispatch runs the highest pending
 * block instead.  Lanes parked at a sync point are not picked until the
 * lanes they wait for arrive (lower_converge.c). */
#include "lower_internal.h"

#include <stdlib.h>
#include <string.h>

static LLVMValueRef load_pc(fn *F)
{
    return LLVMBuildLoad2(F->L->b, vec_of(F->L->i32), F->pc, "pc");
}

static void set_pc(fn *F, LLVMValueRef lanes, uint32_t target)
{
    lw *L = F->L;
    LLVMValueRef np = LLVMBuildSelect(L->b, lanes, splat(L, const_i32(L, target)), load_pc(F), "");
    LLVMBuildStore(L->b, np, F->pc);
}

static uint32_t label_block(fn *F, const ptx_operand *o)
{
    return F->block_of_stmt[o->label];
}

/* Continues at `to` when cond holds, else in a new block. */
static void branch_if(fn *F, LLVMValueRef cond, LLVMBasicBlockRef to)
{
    lw *L = F->L;
    LLVMBasicBlockRef other = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "not.taken");
    LLVMBuildCondBr(L->b, cond, to, other);
    LLVMPositionBuilderAtEnd(L->b, other);
}

/* ---- converged entries ----
 * A warp whose pending lanes are all at one block needs no pc vector:
 * each block has a second entry, conv[b], taken with the lanes in
 * mask_slot, and a uniform branch there goes straight to the next block's
 * converged entry.  The pc vector then holds stale values for those lanes
 * (and exact ones for the others: exited, returned); it is written again
 * when the lanes split, wait or meet a block that reads it (sync points,
 * calls), whose converged entry writes it and enters as before. */

/* Whether block b's instructions may run with a stale pc vector.  Warp
 * collectives may: a converged warp's lanes are all present, and a stale
 * pc still counts them pending (it is a block number, below PC_RET), so
 * the arrival check lets them through.  Blocks that may park (CTA
 * barriers) and calls need the pc exact. */
static bool plain_block(fn *F, uint32_t b, uint32_t first)
{
    if (F->park_block[b])
        return false;
    for (uint32_t i = first; i < F->f->nbody && F->block_of_stmt[i] == b; i++) {
        const ptx_stmt *s = &F->f->body[i];
        if (s->kind == PTX_STMT_INSTR && (s->instr->op == PTX_OP_CALL || (ptx_op_effects(s->instr->op) & E_SYNC)))
            return false;
    }
    return true;
}

/* A converged entry (at `at`) of a block that reads the pc: write it,
 * enter as before. */
static void converged_entry_to_pc(fn *F, LLVMBasicBlockRef at, uint32_t b)
{
    lw *L = F->L;
    LLVMPositionBuilderAtEnd(L->b, at);
    LLVMValueRef lanes = LLVMBuildLoad2(L->b, vec_of(L->i1), F->mask_slot, "");
    set_pc(F, lanes, b);
    LLVMBuildBr(L->b, F->blocks[b]);
}

static void converged_to_pc(fn *F, uint32_t b) { converged_entry_to_pc(F, F->conv[b], b); }

/* Block b (first statement: first) holds nothing but a barrier a warp
 * waits at with a constant id and no thread count: its instruction. */
static const ptx_instr *plain_barrier_block(fn *F, uint32_t b, uint32_t first)
{
    const ptx_instr *bar = NULL;
    for (uint32_t i = first; i < F->f->nbody && F->block_of_stmt[i] == b; i++) {
        const ptx_stmt *s = &F->f->body[i];
        if (s->kind != PTX_STMT_INSTR)
            continue;
        if (bar)
            return NULL;
        bar = s->instr;
    }
    if (!bar || bar->has_guard || bar->nopds > 1 || (bar->nopds == 1 && bar->opds[0].kind != PTX_OPD_IMM))
        return NULL;
    switch (bar->op) {
    case PTX_OP_BAR_SYNC:
    case PTX_OP_BAR_CTA_SYNC:
    case PTX_OP_BARRIER_SYNC:
    case PTX_OP_BARRIER_CTA_SYNC:
        return bar;
    default:
        return NULL;
    }
}

void enter_converged(fn *F, LLVMValueRef lanes, uint32_t b)
{
    LLVMBuildStore(F->L->b, lanes, F->mask_slot);
    LLVMBuildBr(F->L->b, F->conv[b]);
}

/* Both entries of block b (its first statement: first), then its body
 * with F->mask and F->converged. */
void begin_block(fn *F, uint32_t b, uint32_t first)
{
    lw *L = F->L;
    LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "body");
    LLVMPositionBuilderAtEnd(L->b, F->blocks[b]);
    LLVMValueRef pc = load_pc(F);
    LLVMBuildStore(L->b, LLVMBuildICmp(L->b, LLVMIntEQ, pc, splat(L, const_i32(L, b)), "mask"), F->mask_slot);
    LLVMBuildStore(L->b, LLVMConstInt(L->i1, 0, false), F->conv_slot);
    LLVMBuildBr(L->b, body);
    const ptx_instr *bar = F->resumable ? plain_barrier_block(F, b, first) : NULL;
    if (plain_block(F, b, first)) {
        LLVMPositionBuilderAtEnd(L->b, F->conv[b]);
        LLVMBuildStore(L->b, LLVMConstInt(L->i1, 1, false), F->conv_slot);
        LLVMBuildBr(L->b, body);
    } else if (bar) {
        LLVMPositionBuilderAtEnd(L->b, F->conv[b]);
        LLVMBasicBlockRef generic = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "conv.generic");
        resume_converged_wait(F, bar, generic);
        converged_entry_to_pc(F, generic, b);
    } else {
        converged_to_pc(F, b);
    }
    LLVMPositionBuilderAtEnd(L->b, body);
    F->mask = LLVMBuildLoad2(L->b, vec_of(L->i1), F->mask_slot, "mask");
    F->converged = LLVMBuildLoad2(L->b, L->i1, F->conv_slot, "converged");
}

/* Converged entries of blocks never lowered (none in practice). */
void finish_converged_entries(fn *F)
{
    for (uint32_t b = 0; b < F->nblocks; b++)
        if (!LLVMGetBasicBlockTerminator(F->conv[b]))
            converged_to_pc(F, b);
}

/* ---- converged if-bodies ----
 * `@p bra join` over a block that falls into join is an if: a converged
 * warp that splits there runs a copy of the body, lowered in place with
 * its other lanes as the mask, and enters the join converged with all its
 * lanes, where the dispatcher would have met them after a round trip
 * through the pc vector (the lower-numbered body first).  The body must
 * not look at pending lanes or leave early: no sync point, call or
 * terminator; and it must be short (it is lowered twice).  The copy
 * leaves the block's own entries, which warps that do not split take,
 * exactly as they were. */
enum { IF_BODY_MAX = 32 }; /* instructions */

void find_if_bodies(fn *F)
{
    const ptx_func *f = F->f;
    F->if_join = calloc(F->nblocks, sizeof *F->if_join);
    F->if_first = calloc(F->nblocks, sizeof *F->if_first);
    uint32_t *size = calloc(F->nblocks, sizeof *size);
    uint8_t *bad = calloc(F->nblocks, 1);
    if (!F->if_join || !F->if_first || !size || !bad)
        abort(); /* lowering has no partial-failure path */
    for (uint32_t i = f->nbody; i-- > 0;) {
        const ptx_stmt *s = &f->body[i];
        uint32_t b = F->block_of_stmt[i];
        F->if_first[b] = i;
        if (s->kind == PTX_STMT_VAR)
            bad[b] = 1;
        if (s->kind != PTX_STMT_INSTR)
            continue;
        const ptx_instr *in = s->instr;
        size[b]++;
        if (is_sync_point(in) || in->op == PTX_OP_CALL || in->op == PTX_OP_BRA || in->op == PTX_OP_BRX_IDX ||
            in->op == PTX_OP_RET || in->op == PTX_OP_EXIT)
            bad[b] = 1;
    }
    for (uint32_t b = 0; b < F->nblocks; b++)
        if (!bad[b] && size[b] <= IF_BODY_MAX && !F->park_block[b] && !F->sync_block[b] &&
            F->next_block[b] < F->nblocks && F->next_block[b] != b)
            F->if_join[b] = F->next_block[b] + 1;
    free(bad);
    free(size);
}

/* The body n's instructions for `lanes` (a converged split's other lanes),
 * at the builder's position. */
static void lower_if_body(fn *F, uint32_t n, LLVMValueRef lanes)
{
    uint32_t block = F->cur_block, end = F->if_first[n];
    LLVMValueRef mask = F->mask, converged = F->converged;
    while (end < F->f->nbody && F->block_of_stmt[end] == n)
        end++;
    F->cur_block = n;
    F->converged = LLVMConstInt(F->L->i1, 1, false);
    lower_stmts(F, F->if_first[n], end, lanes);
    F->cur_block = block;
    F->mask = mask;
    F->converged = converged;
}

/* When cond holds, `lanes` (every pending lane) enter block x converged;
 * else the code continues in a new block. */
static void converge_if(fn *F, LLVMValueRef cond, LLVMValueRef lanes, uint32_t x)
{
    lw *L = F->L;
    LLVMBasicBlockRef go = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "converged.to");
    branch_if(F, cond, go);
    LLVMBasicBlockRef rest = LLVMGetInsertBlock(L->b);
    LLVMPositionBuilderAtEnd(L->b, go);
    enter_converged(F, lanes, x);
    LLVMPositionBuilderAtEnd(L->b, rest);
}

/* A converged block's exit: a uniform branch (or lanes exiting while the
 * others continue) stays converged; a split falls to `split`. */
static void leave_converged(fn *F, LLVMValueRef taken, uint32_t t, uint32_t n, LLVMBasicBlockRef split)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef lanes = F->mask;
    if (!taken) {
        if (n < F->nblocks)
            enter_converged(F, lanes, n);
        else
            LLVMBuildBr(b, split);
        return;
    }
    LLVMValueRef tb = mask_bits(F, taken), lb = mask_bits(F, lanes);
    if (t < F->nblocks)
        converge_if(F, LLVMBuildICmp(b, LLVMIntEQ, tb, lb, "uniform.taken"), lanes, t);
    if (n < F->nblocks) {
        converge_if(F, LLVMBuildICmp(b, LLVMIntEQ, tb, const_i32(L, 0), "uniform.not"), lanes, n);
        if (t >= F->nblocks) { /* some lanes exit or return, the others go on together */
            LLVMValueRef all = LLVMBuildICmp(b, LLVMIntEQ, tb, lb, "");
            LLVMBasicBlockRef part = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "some.leave");
            LLVMBuildCondBr(b, all, split, part);
            LLVMPositionBuilderAtEnd(b, part);
            set_pc(F, taken, t);
            enter_converged(F, LLVMBuildAnd(b, lanes, LLVMBuildNot(b, taken, ""), ""), n);
            return;
        }
        if (t < F->nblocks && t != n && F->if_join[n] == t + 1 && !L->opts.skip_verify) {
            /* an if: its body, then all at the join (lowering for errors only: the copy finds none) */
            lower_if_body(F, n, LLVMBuildAnd(b, lanes, LLVMBuildNot(b, taken, ""), ""));
            enter_converged(F, lanes, t);
            return;
        }
    }
    LLVMBuildBr(b, split);
}

/* Ends a block: its lanes (F->mask) in `taken` go to block t, the others
 * to n (taken NULL: all to n).  When every lane of the warp still pending
 * is then at one block, the jump is direct (the dispatcher would pick that
 * block); otherwise the dispatcher picks the next block. */
void leave_block(fn *F, LLVMValueRef taken, uint32_t t, uint32_t n)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMBasicBlockRef conv = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "leave.converged");
    LLVMBasicBlockRef general = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "leave");
    weighted_branch(L, F->converged, conv, general, BRANCH_USUAL, BRANCH_RARE);
    LLVMPositionBuilderAtEnd(b, conv);
    leave_converged(F, taken, t, n, general);
    LLVMPositionBuilderAtEnd(b, general);
    LLVMValueRef pc = load_pc(F);
    LLVMValueRef np = LLVMBuildSelect(b, F->mask, splat(L, const_i32(L, n)), pc, "");
    if (taken)
        np = LLVMBuildSelect(b, taken, splat(L, const_i32(L, t)), np, "");
    LLVMBuildStore(b, np, F->pc);
    /* Direct when every pending lane is then at the same block: the warp
     * stays converged, or the block's lanes join the lanes waiting there. */
    LLVMValueRef all = mask_bits(F, LLVMBuildICmp(b, LLVMIntULT, np, splat(L, const_i32(L, PC_RET)), ""));
    LLVMValueRef at_n = mask_bits(F, LLVMBuildICmp(b, LLVMIntEQ, np, splat(L, const_i32(L, n)), ""));
    LLVMValueRef at_t = taken ? mask_bits(F, LLVMBuildICmp(b, LLVMIntEQ, np, splat(L, const_i32(L, t)), "")) : NULL;
    branch_if(F, LLVMBuildICmp(b, LLVMIntEQ, all, const_i32(L, 0), "none"), F->done);
    if (n < F->nblocks)
        converge_if(F, LLVMBuildICmp(b, LLVMIntEQ, at_n, all, "joined"), lanes_of(F, all), n);
    if (taken && t < F->nblocks)
        converge_if(F, LLVMBuildICmp(b, LLVMIntEQ, at_t, all, ""), lanes_of(F, all), t);
    if (taken && t < F->nblocks && n < F->nblocks && t != n) {
        /* A split with no other lane pending: the lower block runs first,
         * as the dispatcher would run it, except at its fairness picks. */
        LLVMValueRef split = LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildOr(b, at_t, at_n, ""), all, "split");
        LLVMValueRef s1 = LLVMBuildAdd(b, LLVMBuildLoad2(b, L->i32, F->sched, ""), const_i32(L, 1), "");
        LLVMValueRef fair = LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildAnd(b, s1, const_i32(L, 63), ""), const_i32(L, 0), "");
        LLVMBasicBlockRef go = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "split");
        LLVMBasicBlockRef other = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "not.split");
        LLVMBuildCondBr(b, LLVMBuildAnd(b, split, LLVMBuildNot(b, fair, ""), ""), go, other);
        LLVMPositionBuilderAtEnd(b, go);
        LLVMBuildStore(b, s1, F->sched);
        LLVMBuildBr(b, F->blocks[t < n ? t : n]);
        LLVMPositionBuilderAtEnd(b, other);
    }
    LLVMBuildBr(b, F->dispatch);
}

void lower_terminator(fn *F, const ptx_instr *in, uint32_t block, LLVMValueRef gmask)
{
    lw *L = F->L;
    uint32_t next = F->next_block[block];
    /* Lanes of the block not taking a guarded terminator fall through. */
    LLVMValueRef taken = in->has_guard ? gmask : F->mask;
    switch (in->op) {
    case PTX_OP_BRA:
        leave_block(F, taken, label_block(F, &in->opds[0]), next);
        return;
    case PTX_OP_BRX_IDX: {
        if (in->has_guard)
            set_pc(F, F->mask, next);
        const ptx_stmt *table = &F->f->body[in->opds[1].label];
        LLVMValueRef idx = read_opd(F, &in->opds[0], PTX_TYPE_U32, false);
        for (uint32_t k = 0; k < table->ntargets; k++) {
            LLVMValueRef hit = LLVMBuildICmp(L->b, LLVMIntEQ, idx, splat(L, const_i32(L, k)), "");
            set_pc(F, LLVMBuildAnd(L->b, gmask, hit, ""), label_block(F, &table->targets[k]));
        }
        LLVMBuildBr(L->b, F->dispatch);
        return;
    }
    case PTX_OP_RET:
        leave_block(F, taken, F->is_entry ? PC_EXIT : PC_RET, next);
        return;
    default: /* exit */
        leave_block(F, taken, PC_EXIT, next);
        return;
    }
}

void emit_dispatcher(fn *F)
{
    lw *L = F->L;
    LLVMTypeRef v32 = vec_of(L->i32);
    LLVMPositionBuilderAtEnd(L->b, F->dispatch);
    LLVMValueRef pc = load_pc(F);
    /* Lanes parked at a sync point wait for the others, and the fairness
     * pick never jumps into a sync point's block (lower_converge.c). */
    LLVMValueRef cand = dispatch_candidates(F, pc);
    LLVMValueRef lowpc = LLVMBuildSelect(L->b, cand, pc, splat(L, const_i32(L, UINT32_MAX)), "");
    LLVMValueRef lo = call_intrinsic(L, "llvm.vector.reduce.umin", &v32, 1, &lowpc, 1);
    LLVMValueRef fair_cand = fairness_candidates(F, pc, cand);
    LLVMValueRef only = LLVMBuildSelect(L->b, fair_cand, LLVMBuildAdd(L->b, pc, splat(L, const_i32(L, 1)), ""),
                                        LLVMConstNull(v32), "");
    LLVMValueRef hi1 = call_intrinsic(L, "llvm.vector.reduce.umax", &v32, 1, &only, 1); /* 0: none */
    LLVMValueRef hi = LLVMBuildSub(L->b, hi1, const_i32(L, 1), "");
    LLVMValueRef n = LLVMBuildLoad2(L->b, L->i32, F->sched, "");
    LLVMValueRef n1 = LLVMBuildAdd(L->b, n, const_i32(L, 1), "");
    LLVMBuildStore(L->b, n1, F->sched);
    LLVMValueRef fair = LLVMBuildICmp(
        L->b, LLVMIntEQ, LLVMBuildAnd(L->b, n1, const_i32(L, 63), ""), const_i32(L, 0), "");
    LLVMValueRef runnable = LLVMBuildICmp(L->b, LLVMIntNE, hi1, const_i32(L, 0), ""); /* hi exists */
    LLVMValueRef target = LLVMBuildSelect(L->b, LLVMBuildAnd(L->b, fair, runnable, ""), hi, lo, "");
    LLVMValueRef sw = LLVMBuildSwitch(L->b, target, F->done, F->nblocks);
    for (uint32_t b = 0; b < F->nblocks; b++)
        LLVMAddCase(sw, const_i32(L, b), F->blocks[b]);
    LLVMPositionBuilderAtEnd(L->b, F->done);
    if (F->is_entry) {
        if (F->resumable)
            resume_exit(F);
        else
            LLVMBuildRetVoid(L->b);
        return;
    }
    LLVMValueRef ret = LLVMBuildICmp(L->b, LLVMIntEQ, load_pc(F), splat(L, const_i32(L, PC_RET)), "");
    LLVMBuildRet(L->b, mask_bits(F, ret));
}

/* ---- calls ---- */

/* Binds a .func's parameters and return values to the caller's storage:
 * .param ones are per-lane memory, .reg ones a <32 x iN> slot. */
void bind_func_params(fn *F)
{
    const ptx_func *f = F->f;
    for (uint32_t i = 0; i < f->nrets + f->nparams; i++) {
        const ptx_var *v = i < f->nrets ? f->rets[i] : f->params[i - f->nrets];
        LLVMValueRef arg = LLVMGetParam(F->fn, 3 + i);
        if (v->space == PTX_SP_PARAM) {
            ptrmap_put(&F->params, v, arg);
        } else {
            reg_slot *s = calloc(1, sizeof *s);
            s->alloca = arg;
            s->type = vec_of(storage_int(F->L, v->type));
            s->blend = true;
            ptrmap_put(&F->regs, v, s);
        }
    }
}

/* Storage to pass for one call operand matching callee declaration v. */
static LLVMValueRef call_operand(fn *F, const ptx_operand *o, const ptx_var *v, bool is_ret,
                                 LLVMValueRef *temp)
{
    lw *L = F->L;
    *temp = NULL;
    if (o->kind == PTX_OPD_NAME && o->var && o->var->space == PTX_SP_PARAM)
        return param_storage(F, o->var);
    if (v->space == PTX_SP_PARAM) {
        lw_error(L, o->loc, "argument for .param parameter '%s' must be a .param variable", v->name);
        return LLVMConstNull(L->ptr);
    }
    LLVMTypeRef st = vec_of(storage_int(L, v->type));
    LLVMValueRef tmp = entry_alloca(F, st, "arg");
    if (!is_ret)
        LLVMBuildStore(L->b, read_opd(F, o, v->type, false), tmp);
    *temp = tmp;
    return tmp;
}

/* The 8-byte value a lane stored into per-lane .param storage. */
static LLVMValueRef lane_param(fn *F, LLVMValueRef storage, uint32_t size, LLVMValueRef lane,
                               LLVMTypeRef t)
{
    lw *L = F->L;
    LLVMValueRef off = LLVMBuildMul(L->b, LLVMBuildZExt(L->b, lane, L->i64, ""), const_i64(L, size), "");
    LLVMValueRef p = LLVMBuildGEP2(L->b, L->i8, storage, &off, 1, "");
    LLVMValueRef v = LLVMBuildLoad2(L->b, t, p, "");
    LLVMSetAlignment(v, 1);
    return v;
}

static void store_lane_param(fn *F, LLVMValueRef storage, uint32_t size, LLVMValueRef lane,
                             LLVMValueRef v)
{
    lw *L = F->L;
    LLVMValueRef off = LLVMBuildMul(L->b, LLVMBuildZExt(L->b, lane, L->i64, ""), const_i64(L, size), "");
    LLVMValueRef st = LLVMBuildStore(L->b, v, LLVMBuildGEP2(L->b, L->i8, storage, &off, 1, ""));
    LLVMSetAlignment(st, 1);
}

typedef struct extern_call {
    const ptx_func *callee;
    LLVMValueRef ret, args[5];
    uint32_t nargs;
} extern_call;

/* Thread index within the CTA of `lane`. */
static LLVMValueRef thread_of(fn *F, LLVMValueRef lane)
{
    lw *L = F->L;
    return LLVMBuildAdd(L->b, LLVMBuildMul(L->b, current_warp(F), const_i32(L, W), ""), lane, "");
}

static void extern_lane(fn *F, LLVMValueRef lane, void *ctx)
{
    lw *L = F->L;
    extern_call *c = ctx;
    const char *name = c->callee->name;
    LLVMValueRef a[5];
    for (uint32_t i = 0; i < c->nargs; i++) { /* each parameter at its own size */
        ptx_type t = c->callee->params[i]->type;
        a[i] = lane_param(F, c->args[i], ptx_type_size(t), lane, storage_int(L, t));
        a[i] = LLVMBuildZExt(L->b, a[i], L->i64, "");
    }
    if (!strcmp(name, "vprintf")) {
        LLVMTypeRef p[4] = {L->ptr, L->i32, L->ptr, L->ptr};
        LLVMValueRef f = declare_rt(L, "ptxjit_rt_vprintf", L->i32, p, 4);
        LLVMValueRef args[4] = {F->cta, thread_of(F, lane), LLVMBuildIntToPtr(L->b, a[0], L->ptr, ""),
                                LLVMBuildIntToPtr(L->b, a[1], L->ptr, "")};
        LLVMValueRef r = LLVMBuildCall2(L->b, LLVMGlobalGetValueType(f), f, args, 4, "");
        if (c->ret)
            store_lane_param(F, c->ret, 4, lane, r);
    } else if (!strcmp(name, "malloc")) {
        LLVMValueRef f = declare_rt(L, "ptxjit_rt_malloc", L->ptr, &L->i64, 1);
        LLVMValueRef r = LLVMBuildCall2(L->b, LLVMGlobalGetValueType(f), f, a, 1, "");
        if (c->ret)
            store_lane_param(F, c->ret, 8, lane, LLVMBuildPtrToInt(L->b, r, L->i64, ""));
    } else if (!strcmp(name, "free")) {
        LLVMValueRef f = declare_rt(L, "ptxjit_rt_free", L->voidt, &L->ptr, 1);
        LLVMValueRef p = LLVMBuildIntToPtr(L->b, a[0], L->ptr, "");
        LLVMBuildCall2(L->b, LLVMGlobalGetValueType(f), f, &p, 1, "");
    } else { /* __assertfail(msg, file, line, func, charsize) */
        LLVMTypeRef p[6] = {L->ptr, L->i32, L->ptr, L->ptr, L->i32, L->ptr};
        LLVMValueRef f = declare_rt(L, "ptxjit_rt_assertfail", L->voidt, p, 6);
        LLVMValueRef line = LLVMBuildTrunc(L->b, a[2], L->i32, "");
        LLVMValueRef args[6] = {F->cta, thread_of(F, lane), LLVMBuildIntToPtr(L->b, a[0], L->ptr, ""),
                                LLVMBuildIntToPtr(L->b, a[1], L->ptr, ""), line,
                                LLVMBuildIntToPtr(L->b, a[3], L->ptr, "")};
        LLVMBuildCall2(L->b, LLVMGlobalGetValueType(f), f, args, 6, "");
    }
}

static bool lower_extern_call(fn *F, const ptx_instr *in, const ptx_func *callee,
                              const ptx_operand *rets, const ptx_operand *args, LLVMValueRef mask)
{
    static const char *const known[] = {"vprintf", "malloc", "free", "__assertfail"};
    bool ok = false;
    for (size_t i = 0; i < 4; i++)
        ok |= !strcmp(callee->name, known[i]);
    if (!ok) {
        lw_error(F->L, in->loc, "call to external function '%s', which ptxjit does not provide",
                 callee->name);
        return true;
    }
    extern_call c = {.callee = callee};
    LLVMValueRef tmp;
    if (rets && rets->nelems)
        c.ret = call_operand(F, &rets->elems[0], callee->rets[0], true, &tmp);
    for (uint32_t i = 0; args && i < args->nelems && i < 5; i++)
        c.args[c.nargs++] = call_operand(F, &args->elems[i], callee->params[i], false, &tmp);
    if (c.nargs < callee->nparams) {
        lw_error(F->L, in->loc, "'%s' called with too few arguments", callee->name);
        return true;
    }
    for_each_lane(F, mask, extern_lane, &c);
    return true;
}

/* The declaration an indirect call goes by: its .callprototype, or the
 * first function of its .calltargets list. */
static const ptx_func *indirect_signature(fn *F, const ptx_instr *in, uint32_t proto_index)
{
    if (proto_index >= in->nopds || in->opds[proto_index].label < 0)
        return NULL;
    const ptx_stmt *s = &F->f->body[in->opds[proto_index].label];
    if (s->kind == PTX_STMT_PROTOTYPE)
        return s->proto;
    return s->kind == PTX_STMT_CALLTARGETS && s->ntargets ? s->targets[0].func : NULL;
}

/* Calls through per-lane function addresses: one call per distinct target,
 * each with the lanes holding it; returns the lanes that returned. */
static LLVMValueRef call_indirect(fn *F, const ptx_operand *target, LLVMTypeRef ft,
                                  LLVMValueRef *av, unsigned n, LLVMValueRef mask)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef addrs = read_opd(F, target, PTX_TYPE_U64, false);
    LLVMValueRef all = mask_bits(F, mask);
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(b);
    LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "icall.loop");
    LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "icall.body");
    LLVMBasicBlockRef out = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "icall.done");
    LLVMBuildBr(b, loop);
    LLVMPositionBuilderAtEnd(b, loop);
    LLVMValueRef left = LLVMBuildPhi(b, L->i32, "left"), done = LLVMBuildPhi(b, L->i32, "returned");
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntNE, left, const_i32(L, 0), ""), body, out);
    LLVMPositionBuilderAtEnd(b, body);
    LLVMValueRef first = call_intrinsic(L, "llvm.cttz", &L->i32, 1,
                                        (LLVMValueRef[]){left, LLVMConstInt(L->i1, 1, false)}, 2);
    LLVMValueRef t = LLVMBuildExtractElement(b, addrs, first, "");
    LLVMValueRef same = LLVMBuildICmp(b, LLVMIntEQ, addrs, splat(L, t), "");
    LLVMValueRef group = LLVMBuildAnd(b, mask_bits(F, same), left, "");
    av[2] = group;
    LLVMValueRef r = LLVMBuildCall2(b, ft, LLVMBuildIntToPtr(b, t, L->ptr, ""), av, n, "");
    LLVMValueRef left2 = LLVMBuildAnd(b, left, LLVMBuildNot(b, group, ""), "");
    LLVMValueRef done2 = LLVMBuildOr(b, done, r, "");
    LLVMBuildBr(b, loop);
    LLVMValueRef lv[2] = {all, left2}, dv[2] = {const_i32(L, 0), done2};
    LLVMBasicBlockRef from[2] = {pre, body};
    LLVMPositionBuilderAtEnd(b, out);
    LLVMAddIncoming(left, lv, from, 2);
    LLVMAddIncoming(done, dv, from, 2);
    return done;
}

bool lower_call(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    if (in->op != PTX_OP_CALL)
        return false;
    lw *L = F->L;
    uint32_t i = 0;
    const ptx_operand *rets = NULL, *args = NULL;
    if (in->opds[i].kind == PTX_OPD_LIST)
        rets = &in->opds[i++];
    const ptx_operand *target = &in->opds[i++];
    if (i < in->nopds && in->opds[i].kind == PTX_OPD_LIST)
        args = &in->opds[i++];
    const ptx_func *callee = target->func ? target->func : indirect_signature(F, in, i);
    LLVMValueRef fnv = target->func ? ptrmap_get(&L->funcs, callee) : NULL;
    if (!callee) {
        lw_error(L, in->loc, "indirect call without a usable .callprototype");
        return true;
    }
    if (target->func && !fnv)
        return lower_extern_call(F, in, callee, rets, args, mask);
    uint32_t nr = rets ? rets->nelems : 0, na = args ? args->nelems : 0;
    if (nr != callee->nrets || na != callee->nparams) {
        lw_error(L, in->loc, "call to '%s' does not match its declaration", callee->name);
        return true;
    }
    uint32_t n = 3 + nr + na;
    LLVMValueRef *av = calloc(n, sizeof *av), *temps = calloc(nr + 1, sizeof *temps);
    av[0] = F->cta;
    av[1] = LLVMBuildOr(L->b, current_warp(F), LLVMBuildShl(L->b, F->row_off, const_i32(L, ROW_SHIFT), ""), "");
    av[2] = mask_bits(F, mask);
    for (uint32_t k = 0; k < nr; k++)
        av[3 + k] = call_operand(F, &rets->elems[k], callee->rets[k], true, &temps[k]);
    for (uint32_t k = 0; k < na; k++) {
        LLVMValueRef unused;
        av[3 + nr + k] = call_operand(F, &args->elems[k], callee->params[k], false, &unused);
    }
    LLVMValueRef returned = fnv ? LLVMBuildCall2(L->b, LLVMGlobalGetValueType(fnv), fnv, av, n, "")
                                : call_indirect(F, target, lower_func_type(L, callee), av, n, mask);
    LLVMValueRef rmask = LLVMBuildBitCast(L->b, returned, vec_of(L->i1), "");
    for (uint32_t k = 0; k < nr; k++)
        if (temps[k]) {
            ptx_type rt = callee->rets[k]->type;
            LLVMValueRef v = LLVMBuildLoad2(L->b, vec_of(storage_int(L, rt)), temps[k], "");
            write_reg(F, &rets->elems[k], to_type(F, v, rt, rt, false), rt, false, rmask);
        }
    /* Lanes that executed `exit` inside the callee are gone. */
    LLVMValueRef exited = LLVMBuildAnd(L->b, mask, LLVMBuildNot(L->b, rmask, ""), "");
    set_pc(F, exited, PC_EXIT);
    F->mask = LLVMBuildAnd(L->b, F->mask, LLVMBuildNot(L->b, exited, ""), "");
    free(av);
    free(temps);
    return true;
}

/* ---- synchronization ---- */

/* A value the instruction's lanes agree on (a barrier id or thread
 * count), read in the first lane of mask. */
static LLVMValueRef uniform_u32(fn *F, const ptx_operand *o, LLVMValueRef mask)
{
    lw *L = F->L;
    if (o->kind == PTX_OPD_IMM)
        return const_i32(L, (uint32_t)o->imm);
    LLVMValueRef v = read_opd(F, o, PTX_TYPE_U32, false);
    return LLVMBuildExtractElement(L->b, v, first_lane(F, mask), "");
}

/* Calls ptxjit_rt_bar for the warp when lanes of mask still have to
 * arrive (none execute it, or the warp already arrived for them at
 * another barrier instruction: lower_converge.c); returns the result, 0
 * when skipped. */
static LLVMValueRef call_bar(fn *F, const ptx_instr *in, LLVMValueRef mask, LLVMValueRef id,
                             LLVMValueRef threads, uint32_t op, LLVMValueRef value)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef sib = const_i32(L, 0);
    LLVMValueRef lanes = op == PTXJIT_BAR_CLUSTER_WAIT ? mask_bits(F, mask) : barrier_arrivals(F, mask, &sib);
    LLVMValueRef opv = const_i32(L, op);
    if (op >= PTXJIT_BAR_RED_POPC && op <= PTXJIT_BAR_RED_OR) {
        /* the other lanes' predicates are not at hand: an error, not a guess */
        LLVMValueRef split = LLVMBuildICmp(b, LLVMIntNE, sib, const_i32(L, 0), "");
        opv = LLVMBuildSelect(b, split, const_i32(L, PTXJIT_BAR_RED_SPLIT), opv, "");
        id = LLVMBuildSelect(b, split, const_i32(L, in->loc.line), id, "");
    }
    LLVMValueRef any = LLVMBuildICmp(b, LLVMIntNE, lanes, const_i32(L, 0), "");
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(b);
    LLVMBasicBlockRef call = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "bar");
    LLVMBasicBlockRef after = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "bar.done");
    LLVMBuildCondBr(b, any, call, after);
    LLVMPositionBuilderAtEnd(b, call);
    F->bar_arrives |= op == PTXJIT_BAR_ARRIVE;
    if (F->resumable && op != PTXJIT_BAR_ARRIVE) {
        resume_wait(F, in, mask, id, threads, opv, value);
        LLVMPositionBuilderAtEnd(b, after);
        return const_i32(L, 0); /* reached only when siblings arrived for these lanes */
    }
    LLVMTypeRef p[6] = {L->ptr, L->i32, L->i32, L->i32, L->i32, L->i32};
    LLVMValueRef f = declare_rt(L, "ptxjit_rt_bar", L->i32, p, 6);
    LLVMValueRef args[6] = {F->cta, current_warp(F), id, threads, opv, value};
    LLVMValueRef r = LLVMBuildCall2(b, LLVMGlobalGetValueType(f), f, args, 6, "");
    LLVMBuildBr(b, after);
    LLVMPositionBuilderAtEnd(b, after);
    LLVMValueRef phi = LLVMBuildPhi(b, L->i32, "");
    LLVMValueRef vals[2] = {const_i32(L, 0), r};
    LLVMBasicBlockRef from[2] = {pre, call};
    LLVMAddIncoming(phi, vals, from, 2);
    return phi;
}

/* bar.sync / barrier.sync a{, b}; bar.arrive / barrier.arrive a, b. */
static void lower_barrier(fn *F, const ptx_instr *in, LLVMValueRef mask, uint32_t op)
{
    lw *L = F->L;
    LLVMValueRef id = in->nopds > 0 ? uniform_u32(F, &in->opds[0], mask) : const_i32(L, 0);
    LLVMValueRef threads = in->nopds > 1 ? uniform_u32(F, &in->opds[1], mask) : const_i32(L, 0);
    call_bar(F, in, mask, id, threads, op, const_i32(L, 0));
}

/* bar.red.{popc.u32, and.pred, or.pred} d, a{, b}, {!}c */
static void lower_barrier_red(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    lw *L = F->L;
    uint32_t n = in->nopds;
    LLVMValueRef id = uniform_u32(F, &in->opds[1], mask);
    LLVMValueRef threads = n == 4 ? uniform_u32(F, &in->opds[2], mask) : const_i32(L, 0);
    LLVMValueRef p = read_opd(F, &in->opds[n - 1], PTX_TYPE_PRED, false);
    LLVMTypeRef i32t = L->i32;
    LLVMValueRef bits = mask_bits(F, mask);
    LLVMValueRef on = mask_bits(F, LLVMBuildAnd(L->b, p, mask, ""));
    uint32_t op;
    LLVMValueRef value;
    switch (in->mod[PTX_CAT_RED]) {
    case PTX_RED_POPC:
        op = PTXJIT_BAR_RED_POPC;
        value = call_intrinsic(L, "llvm.ctpop", &i32t, 1, &on, 1);
        break;
    case PTX_RED_AND:
        op = PTXJIT_BAR_RED_AND;
        value = LLVMBuildZExt(L->b, LLVMBuildICmp(L->b, LLVMIntEQ, on, bits, ""), L->i32, "");
        break;
    default:
        op = PTXJIT_BAR_RED_OR;
        value = LLVMBuildZExt(L->b, LLVMBuildICmp(L->b, LLVMIntNE, on, const_i32(L, 0), ""), L->i32, "");
        break;
    }
    LLVMValueRef r = call_bar(F, in, mask, id, threads, op, value);
    if (op == PTXJIT_BAR_RED_POPC)
        write_reg(F, &in->opds[0], splat(L, r), PTX_TYPE_U32, false, mask);
    else
        write_reg(F, &in->opds[0], splat(L, LLVMBuildTrunc(L->b, r, L->i1, "")), PTX_TYPE_PRED, false, mask);
}

/* nanosleep, and waits that may take a while: let the CTA's other warps run. */
void yield_warp(fn *F)
{
    lw *L = F->L;
    LLVMTypeRef p[2] = {L->ptr, L->i32};
    LLVMValueRef f = declare_rt(L, "ptxjit_rt_yield", L->voidt, p, 2);
    LLVMValueRef args[2] = {F->cta, current_warp(F)};
    LLVMBuildCall2(L->b, LLVMGlobalGetValueType(f), f, args, 2, "");
}

/* trap: the runtime unwinds the launch, so only lanes that run it matter. */
static void lower_trap(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    lw *L = F->L;
    LLVMTypeRef v1 = vec_of(L->i1);
    LLVMValueRef any = call_intrinsic(L, "llvm.vector.reduce.or", &v1, 1, &mask, 1);
    LLVMBasicBlockRef trap = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "trap");
    LLVMBasicBlockRef cont = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "cont");
    LLVMBuildCondBr(L->b, any, trap, cont);
    LLVMPositionBuilderAtEnd(L->b, trap);
    LLVMTypeRef p[2] = {L->ptr, L->i32};
    LLVMValueRef f = declare_rt(L, "ptxjit_rt_trap", L->voidt, p, 2);
    LLVMValueRef args[2] = {F->cta, const_i32(L, in->loc.line)};
    LLVMBuildCall2(L->b, LLVMGlobalGetValueType(f), f, args, 2, "");
    LLVMBuildUnreachable(L->b);
    LLVMPositionBuilderAtEnd(L->b, cont);
}

bool lower_sync(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    switch (in->op) {
    case PTX_OP_BAR_SYNC: /* bar{.cta}.sync = barrier{.cta}.sync.aligned */
    case PTX_OP_BAR_CTA_SYNC:
    case PTX_OP_BARRIER_SYNC:
    case PTX_OP_BARRIER_CTA_SYNC:
        lower_barrier(F, in, mask, PTXJIT_BAR_SYNC);
        return true;
    case PTX_OP_BAR_ARRIVE:
    case PTX_OP_BAR_CTA_ARRIVE:
    case PTX_OP_BARRIER_ARRIVE:
    case PTX_OP_BARRIER_CTA_ARRIVE:
        lower_barrier(F, in, mask, PTXJIT_BAR_ARRIVE);
        return true;
    case PTX_OP_BARRIER_CLUSTER_ARRIVE: /* a cluster is the one CTA */
        lower_barrier(F, in, mask, PTXJIT_BAR_CLUSTER_ARRIVE);
        return true;
    case PTX_OP_BARRIER_CLUSTER_WAIT:
        lower_barrier(F, in, mask, PTXJIT_BAR_CLUSTER_WAIT);
        return true;
    case PTX_OP_BAR_RED:
    case PTX_OP_BAR_CTA_RED:
    case PTX_OP_BARRIER_RED:
    case PTX_OP_BARRIER_CTA_RED:
        lower_barrier_red(F, in, mask);
        return true;
    case PTX_OP_TRAP:
    case PTX_OP_BRKPT: /* no debugger attached: a breakpoint stops the kernel */
        lower_trap(F, in, mask);
        return true;
    case PTX_OP_NANOSLEEP: /* a warp sleeping in a spin loop lets the others run */
        yield_warp(F);
        return true;
    case PTX_OP_GRIDDEPCONTROL_WAIT: /* launches run one after another */
    case PTX_OP_GRIDDEPCONTROL_LAUNCH_DEPENDENTS:
    case PTX_OP_SETMAXNREG: /* a register budget: CPU code keeps its own */
        return true;
    default:
        return false;
    }
}
