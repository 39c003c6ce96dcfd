/* lower_resume.c - CTA barriers by returning instead of switching fibers.
 *
 * A kernel whose waits are all CTA barriers in its own body (no barrier in
 * a .func, no polling loop, no .local memory, which lives in the warp's
 * stack frame) compiles to a resumable warp function.  A warp that must
 * wait at a barrier stores the barrier's arguments and its state - the pc
 * vector, the dispatcher's lane sets, and every register that some block
 * reads before writing - into its frame (abi.h: ptxjit_warp_frame, then
 * this file's layout) and returns.  The runtime runs the CTA's warps in a
 * loop and calls a warp again once its barrier completed; the warp then
 * reloads its state and continues at the dispatcher, whose lanes are
 * pending after the barrier.  Registers live only inside a block are never
 * saved: nvcc's virtual registers are mostly like that.
 *
 * Called with PTXJIT_WARP_CTA_LOOP (abi.h), the function runs the CTA's
 * warps itself, one after another in a loop around the per-warp code, and
 * completes plain barriers without returning: the runtime's loop and its
 * bookkeeping cost more than a short region between two barriers.
 *
 * A barrier that waits ends its block (place_sync_points splits after it),
 * so no LLVM value of the block crosses the return.  The register state
 * is stored and reloaded through the registers' allocas, which LLVM still
 * promotes to SSA values. */
#include "lower_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a warp of the CTA loop stopped at (wait_code): a plain barrier's
 * id, or one of these. */
enum { WAIT_EXITED = -1, WAIT_OTHER = -2, SWEEP_NONE = -3 };

/* Frame layout after the runtime's header: the pc vector, the
 * dispatcher's four counters and lane sets, the carry flag, registers. */
enum {
    FRAME_PC = 64,
    FRAME_SCHED = FRAME_PC + 4 * W,
    FRAME_PARKED = FRAME_SCHED + 4,
    FRAME_FORCED = FRAME_PARKED + 4,
    FRAME_BAR_DONE = FRAME_FORCED + 4,
    FRAME_CONV = FRAME_BAR_DONE + 4, /* converged wait: the lanes stand for the pc vector */
    FRAME_CARRY = FRAME_CONV + 4,
    FRAME_REGS = FRAME_CARRY + W + 32,
};

/* Waits that need the warp's stack kept: everything but CTA barriers. */
static bool waits_for_warps_except_barrier(const ptx_instr *in)
{
    ptx_opcode op = in->op;
    if (op == PTX_OP_BARRIER_CLUSTER_ARRIVE || op == PTX_OP_BARRIER_CLUSTER_WAIT)
        return true;
    return op == PTX_OP_MBARRIER_TEST_WAIT || op == PTX_OP_MBARRIER_TRY_WAIT ||
           op == PTX_OP_NANOSLEEP || is_polling_access(in);
}

static bool body_blocks_resume(const ptx_func *f, bool is_kernel, bool *barriers)
{
    for (uint32_t i = 0; i < f->nbody; i++) {
        const ptx_stmt *s = &f->body[i];
        if (s->kind == PTX_STMT_VAR && s->var->space == PTX_SP_LOCAL && is_kernel)
            return true;
        if (s->kind != PTX_STMT_INSTR)
            continue;
        const ptx_instr *in = s->instr;
        if (waits_for_warps_except_barrier(in) || (is_kernel && in->op == PTX_OP_ALLOCA))
            return true;
        if (ptx_op_effects(in->op) & E_SYNC) {
            if (!is_kernel)
                return true; /* a barrier inside a call cannot return to the runtime */
            *barriers = true;
        }
    }
    return false;
}

bool kernel_resumes(lw *L, const ptx_func *f)
{
    if (!f->is_entry)
        return false;
    bool barriers = false;
    if (body_blocks_resume(f, true, &barriers) || !barriers)
        return false;
    for (uint32_t i = 0; i < L->m->nitems; i++) {
        const ptx_func *g = L->m->items[i].func;
        bool unused;
        if (L->m->items[i].kind == PTX_ITEM_FUNC && !g->is_entry && body_blocks_resume(g, false, &unused))
            return false;
    }
    return true;
}

LLVMValueRef current_warp(fn *F)
{
    return F->resumable ? LLVMBuildLoad2(F->L->b, F->L->i32, F->loop_warp, "warp") : F->warp;
}

/* Slot `offset` of the current warp's frame (recomputed where it is
 * needed: the CTA loop moves on to other warps inside the function). */
static LLVMValueRef frame_at(fn *F, uint32_t offset)
{
    lw *L = F->L;
    LLVMValueRef frames = load_field(F, F->cta, PTXJIT_CTA_FRAMES, L->ptr);
    LLVMValueRef size = LLVMBuildLoad2(L->b, L->i64, F->frame_size, "frame.size");
    LLVMValueRef off = LLVMBuildMul(L->b, LLVMBuildZExt(L->b, current_warp(F), L->i64, ""), size, "");
    LLVMValueRef frame = LLVMBuildGEP2(L->b, L->i8, frames, &off, 1, "frame"), idx = const_i64(L, offset);
    return LLVMBuildGEP2(L->b, L->i8, frame, &idx, 1, "");
}

static void frame_store(fn *F, uint32_t offset, LLVMValueRef v)
{
    LLVMValueRef st = LLVMBuildStore(F->L->b, v, frame_at(F, offset));
    LLVMSetAlignment(st, offset % 64 ? 4 : 64);
}

static LLVMValueRef frame_load(fn *F, uint32_t offset, LLVMTypeRef t)
{
    LLVMValueRef v = LLVMBuildLoad2(F->L->b, t, frame_at(F, offset), "");
    LLVMSetAlignment(v, offset % 64 ? 4 : 64);
    return v;
}

/* Bits 0 .. nwarps - 1: the CTA's warps. */
static LLVMValueRef all_warps(fn *F)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef nwarps = F->ntid[0] ? const_i32(L, (F->ntid[0] * F->ntid[1] * F->ntid[2] + W - 1) / W)
                                     : load_field(F, F->cta, PTXJIT_CTA_NWARPS, L->i32);
    LLVMValueRef all64 = LLVMBuildSub(b, LLVMBuildShl(b, const_i64(L, 1), LLVMBuildZExt(b, nwarps, L->i64, ""), ""),
                                      const_i64(L, 1), "");
    return LLVMBuildTrunc(b, all64, L->i32, "");
}

/* The loop over the CTA's warps: the entry block keeps the allocas and
 * picks the first warp; the per-warp prologue follows at warp.top.  Its
 * state lives in allocas, which become SSA values.  A sweep's warps still
 * to run are a set (todo): the step pops its lowest. */
void resume_loop_begin(fn *F, LLVMValueRef arg)
{
    lw *L = F->L;
    F->cta_loop = LLVMBuildICmp(L->b, LLVMIntEQ, arg, const_i32(L, PTXJIT_WARP_CTA_LOOP), "cta.loop");
    F->loop_warp = entry_alloca(F, L->i32, "loop.warp");
    LLVMBuildStore(L->b, LLVMBuildSelect(L->b, F->cta_loop, const_i32(L, 0), arg, ""), F->loop_warp);
    F->todo = entry_alloca(F, L->i32, "sweep.todo");
    LLVMBuildStore(L->b, LLVMBuildAnd(L->b, all_warps(F), const_i32(L, ~1u), ""), F->todo);
    F->wait_code = entry_alloca(F, L->i32, "wait.code");
    F->wait_conv = entry_alloca(F, L->i1, "wait.conv");
    F->sweep_bar = entry_alloca(F, L->i32, "sweep.bar");
    F->sweep_ok = entry_alloca(F, L->i1, "sweep.ok");
    F->sweep_live = entry_alloca(F, L->i1, "sweep.live");
    F->exited = entry_alloca(F, L->i32, "exited");
    LLVMBuildStore(L->b, const_i32(L, 0), F->exited);
    F->sweep_from = entry_alloca(F, L->i32, "sweep.from");
    LLVMBuildStore(L->b, const_i32(L, 0), F->sweep_from);
    F->entry_grouped = entry_alloca(F, L->i1, "entry.grouped");
    LLVMBuildStore(L->b, LLVMConstInt(L->i1, 0, false), F->entry_grouped);
    LLVMBuildStore(L->b, const_i32(L, SWEEP_NONE), F->sweep_bar);
    LLVMBuildStore(L->b, LLVMConstInt(L->i1, 1, false), F->sweep_ok);
    LLVMBuildStore(L->b, LLVMConstInt(L->i1, 0, false), F->sweep_live);
    F->warp_top = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "warp.top");
    F->warp_next = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "warp.next");
    LLVMBuildBr(L->b, F->warp_top);
    LLVMPositionBuilderAtEnd(L->b, F->warp_top);
    F->warp = LLVMBuildLoad2(L->b, L->i32, F->loop_warp, "warp");
}

/* In the entry block: the warp's frame, and the blocks that save and
 * restore its state (filled by resume_finish, once every register is
 * known). */
void resume_begin(fn *F)
{
    lw *L = F->L;
    char name[300];
    snprintf(name, sizeof name, "ptxjit.framesize.%s", F->f->name);
    F->frame_size = LLVMAddGlobal(L->mod, L->i64, name);
    LLVMSetLinkage(F->frame_size, LLVMPrivateLinkage);
    LLVMSetGlobalConstant(F->frame_size, true);
    F->save = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "save");
    F->restore = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "restore");
    F->warp_exit = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "warp.exit");
}

/* The end of the entry block: a fresh warp starts at the dispatcher's
 * first pick, a waiting one reloads its state first (resume_finish
 * decides where a warp waits: resume_pick). */
void resume_entry_branch(fn *F, LLVMBasicBlockRef start)
{
    F->resume_start = start;
    F->resume_pick = LLVMAppendBasicBlockInContext(F->L->ctx, F->fn, "resume.pick");
    LLVMBuildBr(F->L->b, F->resume_pick);
}

/* The warp is done: on to the next warp (emit_warp_exit).  Ends the
 * current LLVM block. */
void resume_exit(fn *F)
{
    LLVMBuildBr(F->L->b, F->warp_exit);
}

/* An exiting warp's frame says so for the runtime, unless the code runs
 * the CTA whole (uniform barriers): the runtime then reads no frame. */
static void emit_warp_exit(fn *F, bool uniform)
{
    lw *L = F->L;
    LLVMPositionBuilderAtEnd(L->b, F->warp_exit);
    if (!uniform)
        frame_store(F, PTXJIT_FRAME_RESUME, const_i32(L, 0));
    LLVMBuildStore(L->b, const_i32(L, (uint32_t)WAIT_EXITED), F->wait_code);
    LLVMBuildBr(L->b, F->warp_next);
}

/* A barrier the CTA loop may complete itself: bar.sync with a constant id
 * (one of the CTA's 16) and no thread count. */
static int32_t wait_code(LLVMValueRef id, LLVMValueRef threads, LLVMValueRef op)
{
    if (!LLVMIsAConstantInt(id) || !LLVMIsAConstantInt(threads) || !LLVMIsAConstantInt(op))
        return WAIT_OTHER;
    if (LLVMConstIntGetZExtValue(op) != PTXJIT_BAR_SYNC || LLVMConstIntGetZExtValue(threads) != 0 ||
        LLVMConstIntGetZExtValue(id) >= 16)
        return WAIT_OTHER;
    return (int32_t)LLVMConstIntGetZExtValue(id);
}

/* A barrier the warp waits at: record it, move the block's lanes past it
 * (converged: all pending lanes are in mask, the others exited, so the
 * lanes stand for the pc vector), save, and on to the next warp or back
 * to the runtime.  Ends the current LLVM block. */
static void wait_at(fn *F, const ptx_instr *in, LLVMValueRef mask, LLVMValueRef id, LLVMValueRef threads,
                    LLVMValueRef op, LLVMValueRef value, bool converged)
{
    lw *L = F->L;
    uint32_t next = F->next_block[F->cur_block];
    const ptx_instr **s = realloc(F->waits, (F->nwaits + 1) * sizeof *s);
    uint32_t *t = realloc(F->wait_next, (F->nwaits + 1) * sizeof *t);
    LLVMBasicBlockRef *v = realloc(F->wait_save, (F->nwaits + 1) * sizeof *v);
    uint32_t *at = realloc(F->wait_block, (F->nwaits + 1) * sizeof *at);
    LLVMValueRef *ln = realloc(F->wait_lanes, (F->nwaits + 1) * sizeof *ln);
    if (!s || !t || !v || !at || !ln)
        abort(); /* lowering has no partial-failure path */
    F->waits = s;
    F->wait_next = t;
    F->wait_save = v;
    F->wait_block = at;
    F->wait_lanes = ln;
    at[F->nwaits] = F->cur_block;
    int32_t code = wait_code(id, threads, op);
    bool fast = converged && code >= 0 && next < F->nblocks;
    F->wait_save[F->nwaits] = fast ? LLVMAppendBasicBlockInContext(L->ctx, F->fn, "save.conv") : NULL;
    F->wait_next[F->nwaits] = next;
    F->wait_lanes[F->nwaits] = mask_bits(F, mask);
    F->waits[F->nwaits++] = in;
    if (fast) { /* its save block writes the frame (emit_converged_save) */
        LLVMBuildBr(L->b, F->wait_save[F->nwaits - 1]);
        return;
    }
    frame_store(F, PTXJIT_FRAME_RESUME, const_i32(L, F->nwaits));
    frame_store(F, PTXJIT_FRAME_OP, op);
    frame_store(F, PTXJIT_FRAME_ID, id);
    frame_store(F, PTXJIT_FRAME_THREADS, threads);
    frame_store(F, PTXJIT_FRAME_VALUE, value);
    frame_store(F, PTXJIT_FRAME_LANES, F->wait_lanes[F->nwaits - 1]);
    LLVMBuildStore(L->b, const_i32(L, (uint32_t)code), F->wait_code);
    LLVMBuildStore(L->b, LLVMConstInt(L->i1, converged, false), F->wait_conv);
    if (!converged) {
        LLVMValueRef pc = LLVMBuildLoad2(L->b, vec_of(L->i32), F->pc, "pc");
        LLVMBuildStore(L->b, LLVMBuildSelect(L->b, F->mask, splat(L, const_i32(L, next)), pc, ""), F->pc);
    }
    LLVMBuildBr(L->b, F->save);
}

void resume_wait(fn *F, const ptx_instr *in, LLVMValueRef mask, LLVMValueRef id, LLVMValueRef threads,
                 LLVMValueRef op, LLVMValueRef value)
{
    wait_at(F, in, mask, id, threads, op, value, false);
}

/* The converged entry of a block that holds only `bar` (a plain barrier,
 * constant id): every pending lane of the warp is here, so none parks and
 * none waits elsewhere; what arrive_sync_point and barrier_arrivals would
 * compute follows from the lanes alone.  Lanes a sibling group already
 * arrived for take `generic`.  Ends the current LLVM block. */
void resume_converged_wait(fn *F, const ptx_instr *bar, LLVMBasicBlockRef generic)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef lanes = LLVMBuildLoad2(b, vec_of(L->i1), F->mask_slot, "lanes");
    LLVMValueRef present = mask_bits(F, lanes), gone = LLVMBuildNot(b, present, "");
    LLVMValueRef done = LLVMBuildLoad2(b, L->i32, F->bar_done, "bar.done");
    LLVMBasicBlockRef wait = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "conv.wait");
    weighted_branch(L, LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildAnd(b, present, done, ""), const_i32(L, 0), ""), wait,
                    generic, BRANCH_USUAL, BRANCH_RARE);
    LLVMPositionBuilderAtEnd(b, wait);
    LLVMBuildStore(b, LLVMBuildAnd(b, done, gone, ""), F->bar_done);
    LLVMBuildStore(b, LLVMBuildAnd(b, LLVMBuildLoad2(b, L->i32, F->parked, ""), gone, ""), F->parked);
    LLVMBuildStore(b, LLVMBuildAnd(b, LLVMBuildLoad2(b, L->i32, F->forced, ""), gone, ""), F->forced);
    LLVMValueRef id = const_i32(L, bar->nopds ? (uint32_t)bar->opds[0].imm : 0);
    F->mask = lanes;
    wait_at(F, bar, lanes, id, const_i32(L, 0), const_i32(L, PTXJIT_BAR_SYNC), const_i32(L, 0), true);
}

/* Bytes of a saved value of type t (predicates as bytes). */
static uint32_t saved_size(LLVMTypeRef t)
{
    bool vec = LLVMGetTypeKind(t) == LLVMVectorTypeKind;
    LLVMTypeRef e = vec ? LLVMGetElementType(t) : t;
    uint32_t bytes = LLVMGetIntTypeWidth(e) == 1 ? 1 : LLVMGetIntTypeWidth(e) / 8;
    return vec ? bytes * W : bytes;
}

/* One value between an alloca and the frame, in the direction asked;
 * predicates travel as bytes (cheap both ways, unlike i1 bit masks). */
static bool is_pred_type(LLVMTypeRef t)
{
    bool vec = LLVMGetTypeKind(t) == LLVMVectorTypeKind;
    return LLVMGetIntTypeWidth(vec ? LLVMGetElementType(t) : t) == 1;
}

/* A value of type t (a register's) into the frame at off. */
static void store_value(fn *F, LLVMValueRef v, LLVMTypeRef t, uint32_t off)
{
    lw *L = F->L;
    bool vec = LLVMGetTypeKind(t) == LLVMVectorTypeKind;
    frame_store(F, off, is_pred_type(t) ? LLVMBuildZExt(L->b, v, vec ? vec_of(L->i8) : L->i8, "") : v);
}

static void move_value(fn *F, LLVMValueRef alloca, LLVMTypeRef t, uint32_t off, bool save)
{
    lw *L = F->L;
    bool vec = LLVMGetTypeKind(t) == LLVMVectorTypeKind;
    bool pred = is_pred_type(t);
    LLVMTypeRef ft = pred ? (vec ? vec_of(L->i8) : L->i8) : t;
    if (save) {
        store_value(F, LLVMBuildLoad2(L->b, t, alloca, ""), t, off);
    } else {
        LLVMValueRef v = frame_load(F, off, ft);
        LLVMBuildStore(L->b, pred ? LLVMBuildTrunc(L->b, v, t, "") : v, alloca);
    }
}

/* A register some lane of a waiting warp may still read: live into a block
 * where lanes continue after a barrier, or where lanes may be pending
 * meanwhile (other barriers, parked at warp collectives). */
static bool live_at_wait(fn *F, const ptx_var *v, uint32_t k)
{
    for (uint32_t w = 0; w < F->nwaits; w++)
        if (F->wait_next[w] < F->nblocks && reg_live_in(F, F->wait_next[w], v, k))
            return true;
    for (uint32_t b = 0; b < F->nblocks; b++)
        if ((F->sync_block[b] || F->park_block[b]) && reg_live_in(F, b, v, k))
            return true;
    return false;
}

/* A register a wait saves, at its place in the frame. */
typedef struct {
    const ptx_var *var;
    uint32_t elem, off;
    reg_slot *slot;
} saved_reg;

/* Lays out the registers live at some wait (rematerialized ones excluded)
 * in declaration order; returns the end of the frame. */
static uint32_t layout_registers(fn *F, saved_reg **out, uint32_t *count)
{
    const ptx_func *f = F->f;
    uint32_t off = FRAME_REGS, n = 0, cap = 0;
    saved_reg *r = NULL;
    for (uint32_t i = 0; i < f->nbody; i++) {
        const ptx_stmt *st = &f->body[i];
        if (st->kind != PTX_STMT_VAR || st->var->space != PTX_SP_REG)
            continue;
        const ptx_var *v = st->var;
        reg_slot *slots = ptrmap_get(&F->regs, v);
        uint32_t nel = (v->nreg ? v->nreg : 1) * (v->vec ? v->vec : 1);
        for (uint32_t k = 0; slots && k < nel; k++) {
            reg_slot *s = &slots[k];
            if (!s->alloca || reg_is_remat(F, v, k) || !live_at_wait(F, v, k))
                continue;
            uint32_t size = saved_size(s->type), align = size >= 64 ? 64 : size;
            off = (off + align - 1) / align * align;
            if (n == cap) {
                cap = cap ? 2 * cap : 16;
                r = realloc(r, cap * sizeof *r);
                if (!r)
                    abort(); /* lowering has no partial-failure path */
            }
            r[n++] = (saved_reg){v, k, off, s};
            off += size;
        }
    }
    *out = r;
    *count = n;
    return (off + 63) / 64 * 64;
}

/* Saves (or restores) the laid-out registers: all of them, or those live
 * into block `only` (< nblocks). */
static void move_registers(fn *F, const saved_reg *r, uint32_t n, bool save, uint32_t only)
{
    for (uint32_t i = 0; i < n; i++)
        if (only >= F->nblocks || reg_live_in(F, only, r[i].var, r[i].elem))
            move_value(F, r[i].slot->alloca, r[i].slot->type, r[i].off, save);
}

/* The dispatcher's state but the pc vector. */
static void move_state(fn *F, bool save)
{
    lw *L = F->L;
    move_value(F, F->sched, L->i32, FRAME_SCHED, save);
    move_value(F, F->parked, L->i32, FRAME_PARKED, save);
    move_value(F, F->forced, L->i32, FRAME_FORCED, save);
    move_value(F, F->bar_done, L->i32, FRAME_BAR_DONE, save);
    if (F->carry)
        move_value(F, F->carry, vec_of(L->i1), FRAME_CARRY, save);
}

/* The dispatcher's state at a converged plain barrier: every lane still
 * running is at the barrier, so no lane is parked, forced or arrived for
 * (resume_converged_wait keeps those bits for the other lanes only, which
 * have exited and are never read again): the sets are saved as 0 and
 * restored as constants; the carry travels.  The fairness counter stays
 * the function's (it starts at 0 in each call): any start keeps every
 * 64th dispatch a fairness pick, and only the general restore, of waits
 * the general save stored it for, reads it from the frame.  Its store was
 * 8% of an empty 10-barrier kernel's time. */
static void move_converged_state(fn *F, bool save)
{
    lw *L = F->L;
    LLVMValueRef sets[3] = {F->parked, F->forced, F->bar_done};
    uint32_t offs[3] = {FRAME_PARKED, FRAME_FORCED, FRAME_BAR_DONE};
    for (int i = 0; i < 3; i++) {
        if (save)
            frame_store(F, offs[i], const_i32(L, 0));
        else
            LLVMBuildStore(L->b, const_i32(L, 0), sets[i]);
    }
    if (F->carry && !save) /* saved with the registers (emit_converged_save) */
        move_value(F, F->carry, vec_of(L->i1), FRAME_CARRY, false);
}

/* The registers recomputed rather than saved, in program order (their
 * operands first), for every lane. */
static void rematerialize(fn *F)
{
    const ptx_func *f = F->f;
    LLVMValueRef all = LLVMConstAllOnes(vec_of(F->L->i1));
    for (uint32_t i = 0; i < f->nbody; i++) {
        if (f->body[i].kind != PTX_STMT_INSTR)
            continue;
        const ptx_instr *in = f->body[i].instr, *copy = forward_copy(F, in);
        F->mask = all;
        if (instr_defines_remat(F, in))
            lower_instr(F, in);
        if (copy)
            lower_instr(F, copy);
    }
}

/* bar.red's destination gets the runtime's result after the wait. */
static void write_reductions(fn *F)
{
    lw *L = F->L;
    LLVMValueRef r = frame_load(F, PTXJIT_FRAME_RESUME, L->i32);
    LLVMValueRef red = frame_load(F, PTXJIT_FRAME_RED, L->i32);
    LLVMValueRef lanes = lanes_of(F, frame_load(F, PTXJIT_FRAME_LANES, L->i32));
    for (uint32_t k = 0; k < F->nwaits; k++) {
        const ptx_instr *in = F->waits[k];
        if (in->op != PTX_OP_BAR_RED && in->op != PTX_OP_BAR_CTA_RED && in->op != PTX_OP_BARRIER_RED &&
            in->op != PTX_OP_BARRIER_CTA_RED)
            continue;
        LLVMBasicBlockRef set = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "red.result");
        LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "red.next");
        LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntEQ, r, const_i32(L, k + 1), ""), set, next);
        LLVMPositionBuilderAtEnd(L->b, set);
        if (in->mod[PTX_CAT_RED] == PTX_RED_POPC)
            write_reg(F, &in->opds[0], splat(L, red), PTX_TYPE_U32, false, lanes);
        else
            write_reg(F, &in->opds[0], splat(L, LLVMBuildTrunc(L->b, red, L->i1, "")), PTX_TYPE_PRED, false,
                      lanes);
        LLVMBuildBr(L->b, next);
        LLVMPositionBuilderAtEnd(L->b, next);
    }
}

/* After a converged wait: the pc vector from the lanes, and on into the
 * block after the barrier; other waits take `other`. */
/* A converged warp's lanes (restored) go on at block next together: the
 * pc vector from them, then the block's converged entry. */
static void enter_after_wait(fn *F, LLVMValueRef lanes, uint32_t next)
{
    lw *L = F->L;
    LLVMValueRef pc = LLVMBuildSelect(L->b, lanes, splat(L, const_i32(L, next)), splat(L, const_i32(L, PC_EXIT)), "");
    LLVMBuildStore(L->b, pc, F->pc);
    enter_converged(F, lanes, next);
}

static void resume_converged(fn *F, LLVMValueRef r, LLVMBasicBlockRef other)
{
    lw *L = F->L;
    LLVMValueRef lanes = lanes_of(F, frame_load(F, PTXJIT_FRAME_LANES, L->i32));
    LLVMValueRef sw = LLVMBuildSwitch(L->b, r, other, F->nwaits);
    /* converged plain waits never come here (the restore switch sends them
     * to their own path first), but their cases stay: left out, LLVM laid
     * the CTA loop out otherwise and SGEMM ran 10% slower */
    for (uint32_t k = 0; k < F->nwaits; k++) {
        uint32_t next = F->wait_next[k];
        if (next >= F->nblocks)
            continue;
        LLVMBasicBlockRef bb = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "resume.conv");
        LLVMAddCase(sw, const_i32(L, k + 1), bb);
        LLVMPositionBuilderAtEnd(L->b, bb);
        enter_after_wait(F, lanes, next);
    }
}

/* After a restore: a converged wait goes on from its lanes; when every
 * pending lane is at the block after the barrier (the warp was converged),
 * straight there; else the dispatcher. */
static void resume_jump(fn *F)
{
    lw *L = F->L;
    LLVMValueRef r = frame_load(F, PTXJIT_FRAME_RESUME, L->i32);
    LLVMBasicBlockRef conv = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "restore.conv");
    LLVMBasicBlockRef vec = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "restore.pc");
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntNE, frame_load(F, FRAME_CONV, L->i32), const_i32(L, 0), ""),
                    conv, vec);
    LLVMPositionBuilderAtEnd(L->b, conv);
    resume_converged(F, r, vec);
    LLVMPositionBuilderAtEnd(L->b, vec);
    move_value(F, F->pc, vec_of(L->i32), FRAME_PC, false);
    LLVMValueRef pc = LLVMBuildLoad2(L->b, vec_of(L->i32), F->pc, "pc");
    LLVMValueRef pending = pending_bits(F);
    LLVMValueRef sw = LLVMBuildSwitch(L->b, r, F->dispatch, F->nwaits);
    for (uint32_t k = 0; k < F->nwaits; k++) {
        uint32_t next = F->wait_next[k];
        if (next >= F->nblocks)
            continue;
        LLVMBasicBlockRef bb = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "resume.at");
        LLVMAddCase(sw, const_i32(L, k + 1), bb);
        LLVMPositionBuilderAtEnd(L->b, bb);
        LLVMValueRef at = mask_bits(F, LLVMBuildICmp(L->b, LLVMIntEQ, pc, splat(L, const_i32(L, next)), ""));
        LLVMBasicBlockRef go = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "resume.converged");
        LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntEQ, at, pending, ""), go, F->dispatch);
        LLVMPositionBuilderAtEnd(L->b, go);
        enter_converged(F, lanes_of(F, pending), next);
    }
}

/* The lowest warp of `set` (nonzero) goes next; the others are the
 * sweep's rest. */
static void pop_warp(fn *F, LLVMValueRef set)
{
    lw *L = F->L;
    LLVMTypeRef i32t = L->i32;
    LLVMValueRef w = call_intrinsic(L, "llvm.cttz", &i32t, 1, (LLVMValueRef[]){set, LLVMConstInt(L->i1, 1, false)}, 2);
    LLVMBuildStore(L->b, w, F->loop_warp);
    LLVMBuildStore(L->b, LLVMBuildAnd(L->b, set, LLVMBuildSub(L->b, set, const_i32(L, 1), ""), ""), F->todo);
}

static void next_warp(fn *F, LLVMValueRef set)
{
    pop_warp(F, set);
    LLVMBuildBr(F->L->b, F->warp_top);
}

/* Warps found apart where barriers_uniform said they cannot be: a fault
 * (PTX line: the barrier's, 0 if unknown).  Ends the current LLVM block. */
static void warps_apart(fn *F, uint32_t line)
{
    lw *L = F->L;
    LLVMTypeRef p[2] = {L->ptr, L->i32};
    LLVMValueRef f = declare_rt(L, "ptxjit_rt_barrier_diverged", L->voidt, p, 2);
    LLVMBuildCall2(L->b, LLVMGlobalGetValueType(f), f, (LLVMValueRef[]){F->cta, const_i32(L, line)}, 2, "");
    LLVMBuildUnreachable(L->b);
}

/* The CTA ran whole (every warp exited): the runtime is told, and the
 * call returns.  Ends the current LLVM block. */
static void mark_whole(fn *F)
{
    lw *L = F->L;
    LLVMValueRef idx = const_i64(L, PTXJIT_CTA_WHOLE);
    LLVMBuildStore(L->b, const_i32(L, 1), LLVMBuildGEP2(L->b, L->i8, F->cta, &idx, 1, ""));
    LLVMBuildBr(L->b, F->cta_return);
}

/* With uniform barriers a CTA loop's warp stops here only when it exits
 * (general waits fault), and then every warp of the sweep exits: the next
 * one starts where this one did; after the last, the CTA is done. */
static void uniform_exit_step(fn *F)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "uniform.exit.next");
    LLVMBasicBlockRef last = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "uniform.exit.last");
    LLVMBasicBlockRef apart = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "uniform.exit.apart");
    LLVMValueRef bit = LLVMBuildShl(b, const_i32(L, 1), current_warp(F), "");
    LLVMValueRef exited = LLVMBuildOr(b, LLVMBuildLoad2(b, L->i32, F->exited, ""), bit, "");
    LLVMBuildStore(b, exited, F->exited);
    LLVMValueRef todo = LLVMBuildLoad2(b, L->i32, F->todo, "");
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntNE, todo, const_i32(L, 0), ""), next, last);
    LLVMPositionBuilderAtEnd(b, next);
    next_warp(F, todo);
    LLVMPositionBuilderAtEnd(b, last);
    LLVMBasicBlockRef whole = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "uniform.whole");
    weighted_branch(L, LLVMBuildICmp(b, LLVMIntEQ, exited, all_warps(F), ""), whole, apart, BRANCH_USUAL,
                    BRANCH_RARE);
    LLVMPositionBuilderAtEnd(b, whole);
    mark_whole(F);
    LLVMPositionBuilderAtEnd(b, apart);
    warps_apart(F, 0);
}

/* After a warp stopped: account for it in the sweep, then the CTA loop's
 * step (emit_cta_step) or back to the runtime; with uniform barriers only
 * exits come here. */
static void emit_warp_next(fn *F, bool uniform)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMPositionBuilderAtEnd(b, F->warp_next);
    if (uniform) {
        uniform_exit_step(F);
        return;
    }
    LLVMValueRef code = LLVMBuildLoad2(b, L->i32, F->wait_code, "");
    LLVMValueRef gone = LLVMBuildICmp(b, LLVMIntEQ, code, const_i32(L, (uint32_t)WAIT_EXITED), "");
    LLVMValueRef bit = LLVMBuildShl(b, const_i32(L, 1), current_warp(F), "");
    LLVMValueRef exited = LLVMBuildOr(b, LLVMBuildLoad2(b, L->i32, F->exited, ""),
                                      LLVMBuildSelect(b, gone, bit, const_i32(L, 0), ""), "");
    LLVMBuildStore(b, exited, F->exited);
    LLVMValueRef seen = LLVMBuildLoad2(b, L->i32, F->sweep_bar, "");
    LLVMValueRef first = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntEQ, seen, const_i32(L, (uint32_t)SWEEP_NONE), ""),
                                      LLVMBuildNot(b, gone, ""), "");
    seen = LLVMBuildSelect(b, first, code, seen, "");
    LLVMBuildStore(b, seen, F->sweep_bar);
    LLVMValueRef plain = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntSGE, code, const_i32(L, 0), ""),
                                      LLVMBuildICmp(b, LLVMIntEQ, code, seen, ""), "");
    LLVMValueRef ok = LLVMBuildAnd(b, LLVMBuildLoad2(b, L->i1, F->sweep_ok, ""), LLVMBuildOr(b, gone, plain, ""), "");
    LLVMBuildStore(b, ok, F->sweep_ok);
    LLVMValueRef live = LLVMBuildOr(b, LLVMBuildLoad2(b, L->i1, F->sweep_live, ""), LLVMBuildNot(b, gone, ""), "");
    LLVMBuildStore(b, live, F->sweep_live);
    LLVMBuildCondBr(b, F->cta_loop, F->cta_more, F->cta_return);
}

/* The CTA loop's step: the next warp of the sweep that has not exited,
 * the next sweep when all live warps wait at one plain barrier (which
 * thereby completes), or back to the runtime. */
static void emit_cta_step(fn *F)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMPositionBuilderAtEnd(b, F->cta_return);
    LLVMBuildRetVoid(b);

    LLVMPositionBuilderAtEnd(b, F->cta_more);
    LLVMValueRef todo = LLVMBuildLoad2(b, L->i32, F->todo, "");
    LLVMBasicBlockRef go = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "cta.next.warp");
    LLVMBasicBlockRef end = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "cta.sweep.end");
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntNE, todo, const_i32(L, 0), ""), go, end);
    LLVMPositionBuilderAtEnd(b, go);
    next_warp(F, todo);

    /* every live warp waits at one plain barrier: it completes, all go on */
    LLVMPositionBuilderAtEnd(b, end);
    LLVMValueRef again = LLVMBuildAnd(b, LLVMBuildLoad2(b, L->i1, F->sweep_live, ""),
                                      LLVMBuildLoad2(b, L->i1, F->sweep_ok, ""), "");
    if (F->bar_arrives) /* arrivals the runtime counted */
        again = LLVMConstInt(L->i1, 0, false);
    LLVMBasicBlockRef sweep = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "cta.sweep");
    LLVMBuildCondBr(b, again, sweep, F->cta_return);
    LLVMPositionBuilderAtEnd(b, sweep);
    LLVMBuildStore(b, const_i32(L, (uint32_t)SWEEP_NONE), F->sweep_bar);
    LLVMBuildStore(b, LLVMConstInt(L->i1, 1, false), F->sweep_ok);
    LLVMBuildStore(b, LLVMConstInt(L->i1, 0, false), F->sweep_live);
    LLVMValueRef exited = LLVMBuildLoad2(b, L->i32, F->exited, "");
    next_warp(F, LLVMBuildAnd(b, all_warps(F), LLVMBuildNot(b, exited, ""), ""));
}

/* ---- handing over to the next warp in place ----
 * Within a sweep every warp runs the same stretch of code between two
 * barriers, as a rule.  When the barrier a warp stops at can only be
 * reached from one resume point, the next warp of the sweep that waits
 * there (its frame says so) continues right from that resume point's
 * restore: what the code reads of the current warp (its frame, its %tid)
 * is computed from the warp index where it is read, so each stretch
 * becomes a loop over the CTA's warps, without the warp top's dispatch on
 * the resume point. */

/* Each block's last instruction (NULL: none). */
static const ptx_instr **last_instrs(fn *F)
{
    const ptx_instr **last = calloc(F->nblocks, sizeof *last);
    if (!last)
        abort(); /* lowering has no partial-failure path */
    for (uint32_t i = 0; i < F->f->nbody; i++)
        if (F->f->body[i].kind == PTX_STMT_INSTR)
            last[F->block_of_stmt[i]] = F->f->body[i].instr;
    return last;
}

/* 1 for each block that holds a barrier a warp waits at. */
static uint8_t *barrier_blocks(fn *F)
{
    uint8_t *barrier = calloc(F->nblocks, 1);
    if (!barrier)
        abort(); /* lowering has no partial-failure path */
    for (uint32_t k = 0; k < F->nwaits; k++)
        barrier[F->wait_block[k]] = 1;
    return barrier;
}

/* Marks (in reach) the barrier blocks a warp starting at block `from` can
 * stop at first. */
static void barriers_reached(fn *F, uint32_t from, const ptx_instr **last, const uint8_t *barrier, uint8_t *reach)
{
    uint8_t *seen = calloc(F->nblocks, 1);
    uint32_t *stack = malloc(F->nblocks * sizeof *stack), sp = 0, succ[64];
    if (!seen || !stack)
        abort(); /* lowering has no partial-failure path */
    stack[sp++] = from;
    seen[from] = 1;
    while (sp) {
        uint32_t b = stack[--sp];
        if (barrier[b]) {
            reach[b] = 1;
            continue;
        }
        uint32_t ns = block_successors(F, b, last[b], succ, 64);
        for (uint32_t e = 0; e < ns; e++)
            if (!seen[succ[e]]) {
                seen[succ[e]] = 1;
                stack[sp++] = succ[e];
            }
    }
    free(seen);
    free(stack);
}

/* For each converged plain wait k, the converged plain wait whose resume
 * point is the only start from which a warp reaches k's barrier, or
 * UINT32_MAX. */
static uint32_t *handover_from(fn *F)
{
    uint32_t nb = F->nblocks, *from = malloc((F->nwaits + 1) * sizeof *from), *start = malloc(nb * sizeof *start);
    const ptx_instr **last = last_instrs(F);
    uint8_t *barrier = barrier_blocks(F), *reach = calloc(nb, 1);
    if (!from || !start || !reach)
        abort(); /* lowering has no partial-failure path */
    for (uint32_t b = 0; b < nb; b++)
        start[b] = UINT32_MAX; /* the one start block reaching b's barrier */
    /* starts: the entry block and every resume point's block */
    for (uint32_t j = 0; j <= F->nwaits; j++) {
        uint32_t s = j ? F->wait_next[j - 1] : 0;
        if (s >= nb)
            continue;
        memset(reach, 0, nb);
        barriers_reached(F, s, last, barrier, reach);
        for (uint32_t b = 0; b < nb; b++)
            if (reach[b])
                start[b] = start[b] == UINT32_MAX || start[b] == s ? s : UINT32_MAX - 1;
    }
    for (uint32_t k = 0; k < F->nwaits; k++) {
        uint32_t s = start[F->wait_block[k]];
        from[k] = UINT32_MAX;
        for (uint32_t j = 0; F->wait_save[k] && j < F->nwaits && from[k] == UINT32_MAX; j++)
            if (F->wait_save[j] && F->wait_next[j] == s)
                from[k] = j;
    }
    free(last), free(start), free(barrier), free(reach);
    return from;
}

/* The CTA loop's step after a converged wait whose stretch starts at
 * converged wait j: the sweep's next warp, straight into j's restore when
 * it waits there; else the loop's general step. */
static void hand_over(fn *F, uint32_t j, LLVMBasicBlockRef restore_j)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMBasicBlockRef pop = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "handover");
    LLVMBasicBlockRef there = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "handover.there");
    LLVMValueRef todo = LLVMBuildLoad2(b, L->i32, F->todo, "");
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntNE, todo, const_i32(L, 0), ""), pop, F->cta_more);
    LLVMPositionBuilderAtEnd(b, pop);
    pop_warp(F, todo);
    LLVMValueRef r = frame_load(F, PTXJIT_FRAME_RESUME, L->i32);
    weighted_branch(L, LLVMBuildICmp(b, LLVMIntEQ, r, const_i32(L, j + 1), ""), there, F->warp_top, BRANCH_USUAL,
                    BRANCH_RARE);
    LLVMPositionBuilderAtEnd(b, there);
    LLVMBuildBr(b, restore_j);
}

/* ---- two warps at a time ----
 * With uniform barriers, a region that is one straight block (SGEMM's
 * k-loop: shared loads and two 16-lane FMA chains per warp) waits on the
 * FMA latency when run one warp after another: the CPU's schedulers fill
 * with one chain before the next warp's instructions arrive.  The CTA loop
 * runs such a region for two warps in one stretch of code: restore, block
 * and restore, block, then both saves, so that all frame loads come before
 * any frame store and LLVM's scheduler interleaves four chains (the second
 * warp is the first's successor, which LLVM sees as another frame).  A
 * block that ends in an if-split over a plain body joining at the barrier
 * (a tree reduction's level) pairs too, its body masked: two warps share
 * one step of the CTA loop. */

/* A paired block has at most PAIR_MAX instructions (its code is emitted
 * GROUP_MAX times more); four warps at a time ran SGEMM no faster. */
enum { PAIR_MAX = 256, GROUP_MAX = 2 };

/* The statements of block b: [*first, *end). */
static void block_range(fn *F, uint32_t b, uint32_t *first, uint32_t *end)
{
    *first = *end = 0;
    for (uint32_t i = 0; i < F->f->nbody; i++)
        if (F->block_of_stmt[i] == b) {
            if (*first == *end)
                *first = i;
            *end = i + 1;
        }
}

/* A region a group of warps runs in one stretch: a chain of blocks, each
 * falling into the next or ending in an if-split (the tree reduction's
 * `if (tid < s)`, a bounds check around a load) over a body y to the next
 * block, the join; the last one reaches the barrier's block.  A warp runs
 * each block of the chain with all 32 lanes (uniform barriers: converged
 * with full lanes after a barrier, and the if-bodies rejoin), so warp
 * collectives may lie there (the shuffle reduction's butterfly), not in
 * the bodies. */
enum { GROUP_SEGMENTS = 8 };
typedef struct group_region {
    uint32_t n;
    struct {
        uint32_t x_first, x_end, y_first, y_end;
        const ptx_instr *split; /* x's branch over y, or NULL */
        const ptx_instr *skip;  /* x's warp-uniform branch to the exit, or NULL */
        const ptx_instr *leave; /* x's CTA-uniform branch out of the region, or NULL */
        uint32_t leave_to;      /* the block it leaves to */
        bool leave_taken;       /* it leaves when taken (else by falling through) */
    } seg[GROUP_SEGMENTS];
    bool back; /* the chain jumps back (a loop that goes on: its exit leaves) */
} group_region;

/* Adds the instructions of statements [first, end) to *size; false if one
 * is not plain (a branch, call, barrier, or a warp collective where not
 * all 32 lanes may run it: !whole). */
static bool plain_range(fn *F, uint32_t first, uint32_t end, uint32_t *size, bool whole)
{
    for (uint32_t i = first; i < end; i++) {
        const ptx_stmt *st = &F->f->body[i];
        if (st->kind != PTX_STMT_INSTR) /* declarations: the block's first lowering made them */
            continue;
        if (is_terminator(st))
            return false;
        if ((is_sync_point(st->instr) && !whole) || st->instr->op == PTX_OP_CALL ||
            (ptx_op_effects(st->instr->op) & E_SYNC))
            return false;
        (*size)++;
    }
    return true;
}

/* Block x's last instruction when it is an unguarded ret or exit. */
static bool ends_in_exit(const ptx_stmt *term)
{
    return term && is_terminator(term) && !term->instr->has_guard &&
           (term->instr->op == PTX_OP_RET || term->instr->op == PTX_OP_EXIT);
}

/* A warp-uniform branch to a block that only exits (the shuffle
 * reduction's `if (warp == 0)` around its last stage). */
static bool skips_to_exit(fn *F, const ptx_instr *in)
{
    if (in->op != PTX_OP_BRA || !in->has_guard || !opd_is_uniform(F, &in->guard))
        return false;
    uint32_t i = (uint32_t)in->opds[0].label;
    while (i < F->f->nbody && F->f->body[i].kind != PTX_STMT_INSTR)
        i++;
    return i < F->f->nbody && ends_in_exit(&F->f->body[i]);
}

/* A guarded branch whose guard the whole CTA shares (uniform barriers:
 * a uniform guard not computed from the warp index): SGEMM's tile loop
 * test, whose other way leaves the region to the kernel's exit. */
static bool reads_any(const ptrmap *t, const ptx_operand *o);

static bool cta_uniform_branch(fn *F, const ptx_instr *in)
{
    return in->op == PTX_OP_BRA && in->has_guard && opd_is_uniform(F, &in->guard) &&
           !reads_any(&F->warp_values, &in->guard);
}

/* The chain of a group region from block x (segment g->n on) to barrier k
 * (k >= nwaits: to the kernel's exit, the last block's ret or exit left
 * out), its instructions counted in *size.  At a CTA-uniform branch the
 * chain goes on along the way that reaches k (the branch target first);
 * the other way leaves the region (run_group: the group's first warp goes
 * there alone, and every warp after it, as the CTA's warps all do). */
static bool group_chain(fn *F, uint32_t x, uint32_t k, group_region *g, uint32_t *size)
{
    bool to_exit = k >= F->nwaits;
    for (; to_exit || x != F->wait_block[k]; g->n++) {
        if (g->n == GROUP_SEGMENTS || x >= F->nblocks || F->park_block[x])
            return false;
        uint32_t first, end, last, n = g->n;
        block_range(F, x, &first, &end);
        for (last = end; last > first && F->f->body[last - 1].kind != PTX_STMT_INSTR;)
            last--;
        g->seg[n].x_first = first;
        g->seg[n].x_end = end;
        g->seg[n].y_first = g->seg[n].y_end = 0;
        g->seg[n].split = g->seg[n].skip = g->seg[n].leave = NULL;
        const ptx_stmt *term = last > first ? &F->f->body[last - 1] : NULL;
        if (to_exit && ends_in_exit(term)) {
            g->seg[n].x_end = last - 1;
            g->n++;
            return plain_range(F, first, last - 1, size, true);
        }
        if (to_exit && term && skips_to_exit(F, term->instr)) {
            g->seg[n].skip = term->instr;
            g->seg[n].x_end = last - 1;
            x = F->next_block[x];
        } else if (term && is_terminator(term)) {
            const ptx_instr *in = term->instr;
            g->seg[n].x_end = last - 1;
            if (in->op == PTX_OP_BRA && in->has_guard && F->if_join && branch_skips_if_body(F, last - 1)) {
                uint32_t y = F->next_block[x], join = F->block_of_stmt[in->opds[0].label];
                if (F->next_block[y] != join || F->park_block[y] || F->sync_block[y])
                    return false;
                block_range(F, y, &g->seg[n].y_first, &g->seg[n].y_end);
                if (!plain_range(F, g->seg[n].y_first, g->seg[n].y_end, size, false))
                    return false;
                g->seg[n].split = in;
                x = join;
            } else if (in->op == PTX_OP_BRA && !in->has_guard && !to_exit) { /* a jump */
                uint32_t t = F->block_of_stmt[in->opds[0].label];
                g->back |= (uint32_t)in->opds[0].label < first;
                if (!plain_range(F, first, last - 1, size, true))
                    return false;
                g->n++;
                return group_chain(F, t, k, g, size);
            } else if (!to_exit && cta_uniform_branch(F, in)) {
                uint32_t t = F->block_of_stmt[in->opds[0].label], nx = F->next_block[x];
                if (!plain_range(F, first, last - 1, size, true) || nx >= F->nblocks)
                    return false;
                group_region tried = *g;
                g->seg[n].leave = in;
                g->seg[n].leave_to = nx;
                g->seg[n].leave_taken = false;
                g->n++;
                g->back |= (uint32_t)in->opds[0].label < first;
                uint32_t along = *size;
                if (group_chain(F, t, k, g, &along)) {
                    *size = along;
                    return true;
                }
                *g = tried;
                g->seg[n].leave = in;
                g->seg[n].leave_to = t;
                g->seg[n].leave_taken = true;
                g->n++;
                return group_chain(F, nx, k, g, size);
            } else {
                return false;
            }
        } else {
            x = F->next_block[x];
        }
        if (!plain_range(F, g->seg[n].x_first, g->seg[n].x_end, size, true)) /* all 32 lanes here */
            return false;
    }
    return true;
}

/* Whether the region from block x to barrier k (k >= nwaits: to the
 * kernel's exit) is such a region (*g: its statements). */
static bool group_region_at(fn *F, uint32_t x, uint32_t k, group_region *g)
{
    uint32_t size = 0;
    g->n = 0;
    g->back = false;
    return !F->carry && group_chain(F, x, k, g, &size) && g->n && size && size <= PAIR_MAX;
}

/* Whether statements [first, end) only compute registers that are dead
 * at block `after` (none when after >= nblocks: the exit), or that every
 * warp computes again there (rematerialized: the tree reduction's `tid !=
 * 0`, read again after the last barrier). */
static bool computes_dead(fn *F, uint32_t first, uint32_t end, uint32_t after)
{
    for (uint32_t i = first; i < end; i++) {
        const ptx_stmt *st = &F->f->body[i];
        if (st->kind != PTX_STMT_INSTR)
            continue;
        if (!pure_def(F, st->instr)) /* also: no operands, no opds[0] */
            return false;
        const ptx_operand *d = &st->instr->opds[0];
        if (!is_reg_opd(d) ||
            (after < F->nblocks && reg_live_in(F, after, d->var, reg_elem(d)) &&
             !reg_is_remat(F, d->var, reg_elem(d))))
            return false;
    }
    return true;
}

/* Whether warp w may do anything in group region g: run an if-body (its
 * branch's guard not known to skip it in every lane) or an instruction
 * whose effect outlives the region (segment sg's is: lasting[sg]), on its
 * way to the exit. */
static bool warp_acts(fn *F, const group_region *g, const bool *lasting, uint32_t w)
{
    for (uint32_t sg = 0; sg < g->n; sg++) {
        bool v;
        if (lasting[sg] || g->seg[sg].leave) /* a warp that may leave acts */
            return true;
        if (g->seg[sg].split && !(warp_guard_known(F, &g->seg[sg].split->guard, w, &v) && v))
            return true;
        if (g->seg[sg].skip && warp_guard_known(F, &g->seg[sg].skip->guard, w, &v) && v)
            return false;
    }
    return false;
}

/* The sweep's warps for the group region from block x to barrier k (k >=
 * nwaits: to the exit): every warp, but with the block shape known, the
 * range from the first to the last warp that acts there (warp_acts).  The
 * others' frames keep what the region would leave in them, so they skip
 * it: the tree reduction's `tid < 64` region runs warps 0 and 1, of 8.
 * A range, as a uniform sweep's warps are contiguous (run_group). */
static LLVMValueRef region_warps(fn *F, uint32_t x, uint32_t k)
{
    group_region g;
    uint32_t threads = F->ntid[0] * F->ntid[1] * F->ntid[2], nwarps = (threads + W - 1) / W, acts = 0;
    uint32_t after = k < F->nwaits ? F->wait_next[k] : UINT32_MAX;
    bool lasting[GROUP_SEGMENTS];
    if (!F->ntid[0] || nwarps > 32 || !group_region_at(F, x, k, &g))
        return all_warps(F);
    for (uint32_t sg = 0; sg < g.n; sg++) /* the same for every warp */
        lasting[sg] = !computes_dead(F, g.seg[sg].x_first, g.seg[sg].x_end, after);
    for (uint32_t w = 0; w < nwarps; w++)
        if (warp_acts(F, &g, lasting, w))
            acts |= 1u << w;
    if (acts) {
        uint32_t lo = (uint32_t)__builtin_ctz(acts), hi = 31 - (uint32_t)__builtin_clz(acts);
        acts = (uint32_t)(((2ull << hi) - 1) & ~((1ull << lo) - 1));
    }
    return const_i32(F->L, acts);
}

/* Whether group region g goes on where a branch may leave it: no branch
 * leaves, or the chain loops back (a loop that goes on, whose exit
 * leaves).  From a tile loop's last barrier the region to the loop's
 * exit is a group region too, and would pair only in the loop's last
 * round. */
static bool region_goes_on(const group_region *g)
{
    for (uint32_t sg = 0; sg < g->n; sg++)
        if (g->seg[sg].leave)
            return g->back;
    return true;
}

/* The barrier resume point j's region pairs to (a group region from it
 * to that barrier), one that goes on first (region_goes_on); else
 * UINT32_MAX. */
static uint32_t pair_target(fn *F, uint32_t j)
{
    uint32_t goes_on = UINT32_MAX, any = UINT32_MAX;
    for (uint32_t k = 0; F->wait_save[j] && k < F->nwaits; k++) {
        group_region g;
        if (!F->wait_save[k] || !group_region_at(F, F->wait_next[j], k, &g))
            continue;
        any = k;
        if (region_goes_on(&g))
            goes_on = k;
    }
    return goes_on < F->nwaits ? goes_on : any;
}

/* The barrier whose region starts at the kernel's first block, when a
 * group of fresh warps may run it (the shuffle reduction's loads and
 * butterflies): the only barrier reached from block 0, reached from no
 * resume point, block 0 no resume point's; else UINT32_MAX. */
static uint32_t entry_group_barrier(fn *F)
{
    uint32_t nb = F->nblocks, found = UINT32_MAX, k0 = UINT32_MAX;
    const ptx_instr **last = last_instrs(F);
    uint8_t *barrier = barrier_blocks(F), *reach = calloc(nb, 1);
    if (!reach)
        abort(); /* lowering has no partial-failure path */
    barriers_reached(F, 0, last, barrier, reach);
    for (uint32_t b = 0; b < nb; b++)
        if (reach[b])
            found = found == UINT32_MAX ? b : UINT32_MAX - 1;
    for (uint32_t k = 0; found < nb && k < F->nwaits; k++)
        if (F->wait_save[k] && F->wait_block[k] == found)
            k0 = k;
    for (uint32_t j = 0; k0 < F->nwaits && j < F->nwaits; j++) {
        if (F->wait_next[j] == 0) {
            k0 = UINT32_MAX;
            break;
        }
        if (F->wait_next[j] >= nb)
            continue;
        memset(reach, 0, nb);
        barriers_reached(F, F->wait_next[j], last, barrier, reach);
        if (reach[found])
            k0 = UINT32_MAX;
    }
    group_region g;
    if (k0 < F->nwaits && !group_region_at(F, 0, k0, &g))
        k0 = UINT32_MAX;
    free(last), free(barrier), free(reach);
    return k0;
}

/* The if-body of a group region for the lanes that do not branch, when
 * there are any: masked-off lanes of a skipped body could read past the
 * shared window (`s[tid + 128]`), where a masked access costs a microcode
 * assist on the guard page. */
static void lower_if_body(fn *F, uint32_t y_first, uint32_t y_end, const ptx_instr *split)
{
    lw *L = F->L;
    LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "group.body");
    LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "group.join");
    F->mask = LLVMConstAllOnes(vec_of(L->i1));
    LLVMValueRef lanes = LLVMBuildNot(L->b, guard_mask(F, split), "body.lanes");
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntNE, mask_bits(F, lanes), const_i32(L, 0), ""), body, join);
    LLVMPositionBuilderAtEnd(L->b, body);
    F->cur_block = F->block_of_stmt[y_first];
    if (body_copy_pays(F, y_first, y_end)) {
        F->mask = lanes;
        lower_block_twice(F, y_first, y_end);
    } else {
        lower_stmts(F, y_first, y_end, lanes);
    }
    LLVMBuildBr(L->b, join);
    LLVMPositionBuilderAtEnd(L->b, join);
}

/* Where group region g's segment sg branches out of the region for the
 * group's warp number `which`: the first warp leaves alone, the group's
 * other warps back in the sweep (todo, w0: the first), on into the block
 * it leaves to with all its lanes, as its converged restore would enter
 * the block after a barrier.  The others follow it, as their guard is the
 * CTA's: where one did not, the analysis was wrong, and the code stops
 * (warps_apart). */
static void leave_group(fn *F, const group_region *g, uint32_t sg, uint32_t which, LLVMValueRef todo,
                        LLVMValueRef w0)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    const ptx_instr *in = g->seg[sg].leave;
    LLVMValueRef all = LLVMConstAllOnes(vec_of(L->i1));
    F->mask = all;
    LLVMValueRef hit = mask_bits(F, guard_mask(F, in));
    LLVMValueRef out = LLVMBuildICmp(b, g->seg[sg].leave_taken ? LLVMIntNE : LLVMIntEQ, hit, const_i32(L, 0), "leaves");
    LLVMBasicBlockRef away = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "group.leave");
    LLVMBasicBlockRef stay = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "group.stay");
    weighted_branch(L, out, away, stay, BRANCH_RARE, BRANCH_USUAL);
    LLVMPositionBuilderAtEnd(b, away);
    if (which) {
        warps_apart(F, in->loc.line);
    } else {
        LLVMValueRef bit = LLVMBuildShl(b, const_i32(L, 1), w0, "");
        LLVMBuildStore(b, LLVMBuildAnd(b, todo, LLVMBuildNot(b, bit, ""), ""), F->todo);
        enter_after_wait(F, all, g->seg[sg].leave_to);
    }
    LLVMPositionBuilderAtEnd(b, stay);
}

/* The group region from block blk to barrier k (k >= nwaits: to the
 * exit, and nothing to save) for the sweep's next `count` warps (todo:
 * that many or more, contiguous, as a uniform sweep pops them; fresh:
 * they start there, nothing to restore), then on to `check`. */
static void run_group(fn *F, uint32_t blk, uint32_t k, const saved_reg *r, uint32_t n, LLVMValueRef todo,
                      LLVMBasicBlockRef check, uint32_t count, bool fresh)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    bool to_exit = k >= F->nwaits;
    uint32_t after = to_exit ? UINT32_MAX : F->wait_next[k], cur = F->cur_block;
    group_region reg;
    group_region_at(F, blk, k, &reg);
    LLVMTypeRef i32t = L->i32;
    LLVMValueRef w[GROUP_MAX];
    w[0] = call_intrinsic(L, "llvm.cttz", &i32t, 1, (LLVMValueRef[]){todo, LLVMConstInt(L->i1, 1, false)}, 2);
    for (uint32_t g = 1; g < count; g++)
        w[g] = LLVMBuildNUWAdd(b, w[0], const_i32(L, g), "");
    LLVMValueRef taken = LLVMBuildShl(b, const_i32(L, (1u << count) - 1), w[0], "");
    LLVMBuildStore(b, LLVMBuildAnd(b, todo, LLVMBuildNot(b, taken, ""), ""), F->todo);
    LLVMValueRef mask = F->mask, converged = F->converged, *kept = calloc((n ? n : 1) * count, sizeof *kept);
    if (!kept)
        abort(); /* lowering has no partial-failure path */
    for (uint32_t g = 0; g < count; g++) {
        LLVMBuildStore(b, w[g], F->loop_warp);
        move_converged_state(F, false);
        if (!fresh)
            move_registers(F, r, n, false, blk);
        rematerialize(F);
        F->converged = LLVMConstInt(L->i1, 1, false);
        LLVMBasicBlockRef done = to_exit ? LLVMAppendBasicBlockInContext(L->ctx, F->fn, "group.exited") : NULL;
        for (uint32_t sg = 0; sg < reg.n; sg++) {
            F->cur_block = F->block_of_stmt[reg.seg[sg].x_first];
            lower_stmts(F, reg.seg[sg].x_first, reg.seg[sg].x_end, LLVMConstAllOnes(vec_of(L->i1)));
            if (reg.seg[sg].split)
                lower_if_body(F, reg.seg[sg].y_first, reg.seg[sg].y_end, reg.seg[sg].split);
            if (reg.seg[sg].leave)
                leave_group(F, &reg, sg, g, todo, w[0]);
            if (reg.seg[sg].skip) { /* the whole warp exits here, or none of it */
                LLVMBasicBlockRef on = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "group.on");
                LLVMValueRef leave = mask_bits(F, guard_mask(F, reg.seg[sg].skip));
                LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntNE, leave, const_i32(L, 0), ""), done, on);
                LLVMPositionBuilderAtEnd(b, on);
            }
        }
        if (done) {
            LLVMBuildBr(b, done);
            LLVMPositionBuilderAtEnd(b, done);
        }
        for (uint32_t i = 0; !to_exit && g + 1 < count && i < n; i++)
            if (reg_live_in(F, after, r[i].var, r[i].elem))
                kept[g * n + i] = LLVMBuildLoad2(b, r[i].slot->type, r[i].slot->alloca, "");
    }
    for (uint32_t g = 0; g + 1 < count; g++) {
        LLVMBuildStore(b, w[g], F->loop_warp);
        for (uint32_t i = 0; i < n; i++)
            if (kept[g * n + i])
                store_value(F, kept[g * n + i], r[i].slot->type, r[i].off);
    }
    LLVMBuildStore(b, w[count - 1], F->loop_warp);
    if (!to_exit)
        move_registers(F, r, n, true, after);
    free(kept);
    F->mask = mask;
    F->converged = converged;
    F->cur_block = cur;
    LLVMBuildBr(b, check);
}

/* Where at least GROUP_MAX (then fewer, down to 2) of the sweep's warps
 * are left in todo, that many run the group region from blk to k
 * (run_group); the builder ends where fewer than 2 are left. */
static void run_groups(fn *F, uint32_t blk, uint32_t k, const saved_reg *r, uint32_t n, LLVMValueRef todo,
                       LLVMBasicBlockRef check, bool fresh)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMTypeRef i32t = L->i32;
    LLVMValueRef count = call_intrinsic(L, "llvm.ctpop", &i32t, 1, &todo, 1);
    for (uint32_t g = GROUP_MAX; g >= 2; g /= 2) {
        LLVMBasicBlockRef group = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "uniform.group");
        LLVMBasicBlockRef fewer = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "uniform.fewer");
        LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntUGE, count, const_i32(L, g), ""), group, fewer);
        LLVMPositionBuilderAtEnd(b, group);
        run_group(F, blk, k, r, n, todo, check, g, fresh);
        LLVMPositionBuilderAtEnd(b, fewer);
    }
}

/* After barrier k, the CTA's last region (a group region to the exit)
 * for all warps, GROUP_MAX at a time and fewer at the end: then every
 * warp has exited, and the CTA ran whole.  No warp goes through the
 * loop's exit step, whose per-warp dispatch was a third of a tree
 * reduction's last region. */
static void exit_groups(fn *F, uint32_t k, const saved_reg *r, uint32_t n)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMBasicBlockRef check = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "exit.check");
    LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "exit.next");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "exit.done");
    LLVMBuildStore(b, region_warps(F, F->wait_next[k], UINT32_MAX), F->todo);
    LLVMBuildBr(b, check);
    LLVMPositionBuilderAtEnd(b, check);
    LLVMValueRef todo = LLVMBuildLoad2(b, L->i32, F->todo, "");
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntNE, todo, const_i32(L, 0), ""), next, done);
    LLVMPositionBuilderAtEnd(b, next);
    run_groups(F, F->wait_next[k], UINT32_MAX, r, n, todo, check, false);
    run_group(F, F->wait_next[k], UINT32_MAX, r, n, todo, check, 1, false);
    LLVMPositionBuilderAtEnd(b, done);
    mark_whole(F);
}

/* The CTA loop's step after a warp stopped at plain barrier k of a
 * kernel with uniform barriers (barriers_uniform): the sweep's next warp
 * starts where this one did (the one resume point reaching k, else the
 * sweep's), and after the last one every warp goes on from k, from the
 * first.  No frame but the registers: no other warp can be elsewhere. */
static void uniform_step(fn *F, uint32_t k, uint32_t from, LLVMBasicBlockRef restore_from,
                         LLVMBasicBlockRef restore_k, const saved_reg *r, uint32_t n)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMBasicBlockRef check = F->uniform_check[k];
    LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "uniform.next");
    LLVMBasicBlockRef sweep = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "uniform.sweep");
    LLVMBasicBlockRef again = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "uniform.again");
    LLVMBasicBlockRef apart = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "uniform.apart");
    LLVMBuildBr(b, check);
    LLVMPositionBuilderAtEnd(b, check);
    LLVMValueRef todo = LLVMBuildLoad2(b, L->i32, F->todo, "");
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntNE, todo, const_i32(L, 0), ""), next, sweep);
    LLVMPositionBuilderAtEnd(b, next);
    bool entry = F->entry_group == k;
    if ((from < F->nwaits && F->pair_after[from] == k) || entry) {
        run_groups(F, entry ? 0 : F->wait_next[from], k, r, n, todo, check, entry);
    } else if (from >= F->nwaits) {
        /* several regions reach k (SGEMM's first tile and the tile loop's
         * back edge): the sweep's start picks the one that pairs */
        for (uint32_t j = 0; j < F->nwaits; j++) {
            if (F->pair_after[j] != k)
                continue;
            LLVMBasicBlockRef group = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "uniform.region");
            LLVMBasicBlockRef single = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "uniform.single");
            LLVMValueRef started = LLVMBuildLoad2(b, L->i32, F->sweep_from, "");
            LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, started, const_i32(L, j + 1), ""), group, single);
            LLVMPositionBuilderAtEnd(b, group);
            run_groups(F, F->wait_next[j], k, r, n, todo, check, false);
            LLVMBuildBr(b, single);
            LLVMPositionBuilderAtEnd(b, single);
        }
    }
    pop_warp(F, todo);
    LLVMBuildBr(b, from < F->nwaits ? restore_from : F->warp_top);
    /* a warp gone while the others wait: the analysis was wrong */
    LLVMPositionBuilderAtEnd(b, sweep);
    LLVMValueRef exited = LLVMBuildLoad2(b, L->i32, F->exited, "");
    weighted_branch(L, LLVMBuildICmp(b, LLVMIntEQ, exited, const_i32(L, 0), ""), again, apart, BRANCH_USUAL,
                    BRANCH_RARE);
    LLVMPositionBuilderAtEnd(b, apart);
    warps_apart(F, F->waits[k]->loc.line);
    LLVMPositionBuilderAtEnd(b, again);
    LLVMBuildStore(b, const_i32(L, k + 1), F->sweep_from);
    group_region g;
    if (group_region_at(F, F->wait_next[k], UINT32_MAX, &g)) {
        exit_groups(F, k, r, n);
        return;
    }
    if (F->pair_after[k] < F->nwaits) { /* the first warp pairs too */
        LLVMBuildStore(b, region_warps(F, F->wait_next[k], F->pair_after[k]), F->todo);
        LLVMBuildBr(b, F->uniform_check[F->pair_after[k]]);
        return;
    }
    pop_warp(F, all_warps(F));
    LLVMBuildBr(b, restore_k);
}

/* A converged warp at plain barrier k (wait_at's fast case): its state and
 * the registers live after the barrier, then the sweep's accounting with
 * the barrier known here.  With uniform barriers the CTA loop keeps only
 * the registers (uniform_step). */
static void emit_converged_save(fn *F, uint32_t k, const saved_reg *r, uint32_t n, uint32_t from,
                                LLVMBasicBlockRef restore_from, LLVMBasicBlockRef restore_k, bool uniform)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMPositionBuilderAtEnd(b, F->wait_save[k]);
    move_registers(F, r, n, true, F->wait_next[k]);
    if (F->carry)
        move_value(F, F->carry, vec_of(L->i1), FRAME_CARRY, true);
    if (uniform) {
        uniform_step(F, k, from, restore_from, restore_k, r, n);
        return;
    }
    const ptx_instr *bar = F->waits[k];
    LLVMValueRef code = const_i32(L, bar->nopds ? (uint32_t)bar->opds[0].imm : 0);
    frame_store(F, PTXJIT_FRAME_RESUME, const_i32(L, k + 1));
    frame_store(F, PTXJIT_FRAME_OP, const_i32(L, PTXJIT_BAR_SYNC));
    frame_store(F, PTXJIT_FRAME_ID, code);
    frame_store(F, PTXJIT_FRAME_THREADS, const_i32(L, 0));
    frame_store(F, PTXJIT_FRAME_VALUE, const_i32(L, 0));
    frame_store(F, PTXJIT_FRAME_LANES, F->wait_lanes[k]);
    frame_store(F, FRAME_CONV, const_i32(L, 1));
    move_converged_state(F, true);
    LLVMValueRef seen = LLVMBuildLoad2(b, L->i32, F->sweep_bar, "");
    seen = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, seen, const_i32(L, (uint32_t)SWEEP_NONE), ""), code, seen, "");
    LLVMBuildStore(b, seen, F->sweep_bar);
    LLVMValueRef same = LLVMBuildICmp(b, LLVMIntEQ, seen, code, "");
    LLVMBuildStore(b, LLVMBuildAnd(b, LLVMBuildLoad2(b, L->i1, F->sweep_ok, ""), same, ""), F->sweep_ok);
    LLVMBuildStore(b, LLVMConstInt(L->i1, 1, false), F->sweep_live);
    if (from == UINT32_MAX) {
        LLVMBuildCondBr(b, F->cta_loop, F->cta_more, F->cta_return);
        return;
    }
    LLVMBasicBlockRef more = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "cta.more.here");
    LLVMBuildCondBr(b, F->cta_loop, more, F->cta_return);
    LLVMPositionBuilderAtEnd(b, more);
    hand_over(F, from, restore_from);
}

/* Whether block b's last instruction can part a warp's lanes: a branch
 * or exit under a guard that is not warp-uniform, an indexed branch. */
static bool may_split(fn *F, const ptx_instr *last)
{
    if (!last)
        return false;
    switch (last->op) {
    case PTX_OP_BRX_IDX:
        return true;
    case PTX_OP_BRA:
    case PTX_OP_RET:
    case PTX_OP_EXIT:
        return last->has_guard && !opd_is_uniform(F, &last->guard);
    default:
        return false;
    }
}

/* Marks each block that is seeded, or that is no wall and has a marked
 * successor (walls are marked only where seeded; wall NULL: none). */
static void mark_backward(fn *F, const ptx_instr **last, const uint8_t *seed, const uint8_t *wall, uint8_t *mark)
{
    for (uint32_t b = 0; b < F->nblocks; b++)
        mark[b] = seed[b];
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t b = F->nblocks; b-- > 0;) { /* successors mostly come later: one pass settles most */
            uint32_t succ[64], ns = mark[b] || (wall && wall[b]) ? 0 : block_successors(F, b, last[b], succ, 64);
            for (uint32_t e = 0; e < ns && !mark[b]; e++)
                if (mark[succ[e]])
                    mark[b] = changed = 1;
        }
    }
}

/* Whether every warp has all 32 lanes at each of the kernel's barriers:
 * its blocks are whole warps (the block shape is known, a multiple of 32
 * threads), it calls nothing (a .func may exit), and no lane can leave
 * while another of its warp still has a barrier ahead: no block where the
 * lanes may part and from which a barrier is reachable reaches an exit
 * without passing a barrier first (lanes that all leave together leave
 * no one waiting). */
static bool lanes_full_at_barriers(fn *F)
{
    uint32_t nb = F->nblocks, nthreads = F->ntid[0] * F->ntid[1] * F->ntid[2];
    if (!F->ntid[0] || nthreads % W)
        return false;
    const ptx_instr **last = last_instrs(F);
    uint8_t *barrier = barrier_blocks(F), *exits = calloc(nb, 1), *reaches = calloc(nb, 1), *leaves = calloc(nb, 1);
    if (!exits || !reaches || !leaves)
        abort(); /* lowering has no partial-failure path */
    bool full = true;
    for (uint32_t i = 0; i < F->f->nbody; i++)
        full &= F->f->body[i].kind != PTX_STMT_INSTR || F->f->body[i].instr->op != PTX_OP_CALL;
    for (uint32_t b = 0; b < nb; b++)
        exits[b] = !barrier[b] && last[b] && (last[b]->op == PTX_OP_RET || last[b]->op == PTX_OP_EXIT);
    mark_backward(F, last, barrier, NULL, reaches);  /* a barrier lies ahead */
    mark_backward(F, last, exits, barrier, leaves);  /* an exit lies ahead, before any barrier */
    for (uint32_t d = 0; full && d < nb; d++)
        full = !(reaches[d] && leaves[d] && may_split(F, last[d]));
    free(last), free(barrier), free(exits), free(reaches), free(leaves);
    return full;
}

/* Whether the kernel reads %warpid: the uniformity analysis counts it
 * uniform (the same in a warp), but it differs between warps.  Every
 * other uniform value is the whole CTA's: parameters, %ctaid, constants,
 * and registers written from them (in an if-body, only registers with no
 * other definition: analyze_multi_uniform). */
static bool reads_warpid(const ptx_func *f)
{
    for (uint32_t i = 0; i < f->nbody; i++) {
        const ptx_stmt *st = &f->body[i];
        for (uint32_t o = 0; st->kind == PTX_STMT_INSTR && o < st->instr->nopds; o++)
            if (st->instr->opds[o].kind == PTX_OPD_SREG && st->instr->opds[o].sreg == PTX_SREG_WARPID)
                return true;
    }
    return false;
}

/* Whether operand o reads a register of set t (an address's base or a
 * vector's elements included). */
static bool reads_any(const ptrmap *t, const ptx_operand *o)
{
    if (o->kind == PTX_OPD_NAME)
        return o->var && ptrmap_get(t, o->var);
    if (o->kind == PTX_OPD_ADDR || o->kind == PTX_OPD_VEC || o->kind == PTX_OPD_PAIR || o->kind == PTX_OPD_LIST)
        for (uint32_t e = 0; e < o->nelems; e++)
            if (reads_any(t, &o->elems[e]))
                return true;
    return false;
}

/* The registers computed, through any instructions, from the warp index
 * in its row (warp_in_row): the same in a warp's lanes, but not in the
 * CTA's warps, which may then take different ways to a barrier. */
static void warp_index_values(fn *F, ptrmap *t)
{
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t i = 0; i < F->f->nbody; i++) {
            const ptx_stmt *st = &F->f->body[i];
            if (st->kind != PTX_STMT_INSTR || !st->instr->nopds || !instr_defines_first(st->instr))
                continue;
            const ptx_instr *in = st->instr;
            bool from = warp_in_row(F, in) || (in->has_guard && reads_any(t, &in->guard));
            for (uint32_t o = 1; !from && o < in->nopds; o++)
                from = reads_any(t, &in->opds[o]);
            const ptx_operand *d = &in->opds[0];
            uint32_t n = d->kind == PTX_OPD_PAIR || d->kind == PTX_OPD_VEC ? d->nelems : 1;
            for (uint32_t e = 0; from && e < n; e++) {
                const ptx_operand *x = n > 1 || d->kind == PTX_OPD_PAIR ? &d->elems[e] : d;
                if (x->kind == PTX_OPD_NAME && x->var && !ptrmap_get(t, x->var)) {
                    ptrmap_put(t, x->var, (void *)x->var);
                    changed = true;
                }
            }
        }
    }
}

/* Whether every divergent branch, indexed branch, call or warp collective
 * with a divergent guard from which a barrier can be reached is an
 * if-split (a branch over a plain body to its join): a warp then meets
 * every barrier converged, and its other branches read values the whole
 * CTA shares (a value from the warp index is uniform in a warp only: its
 * branches count as divergent here).  Past the last barrier anything goes
 * (the shuffle reduction's `if (warp == 0)`). */
static bool splits_before_barriers(fn *F)
{
    const ptx_instr **last = last_instrs(F);
    uint8_t *barrier = barrier_blocks(F), *reaches = calloc(F->nblocks, 1);
    if (!reaches)
        abort(); /* lowering has no partial-failure path */
    mark_backward(F, last, barrier, NULL, reaches);
    bool ok = true;
    for (uint32_t i = 0; ok && i < F->f->nbody; i++) {
        const ptx_stmt *st = &F->f->body[i];
        if (st->kind != PTX_STMT_INSTR || !reaches[F->block_of_stmt[i]])
            continue;
        const ptx_instr *in = st->instr;
        if (in->op == PTX_OP_CALL || in->op == PTX_OP_BRX_IDX)
            ok = false;
        else if (in->has_guard && (!opd_is_uniform(F, &in->guard) || reads_any(&F->warp_values, &in->guard)))
            ok = in->op == PTX_OP_BRA ? branch_skips_if_body(F, i) : !is_sync_point(in);
    }
    free(last), free(barrier), free(reaches);
    return ok;
}

/* Whether every warp of a CTA meets the same barriers in the same order,
 * converged with all its lanes: splits_before_barriers, so every branch
 * that may lead to a barrier but an if-split reads values the whole CTA
 * shares (but %warpid); every barrier is a plain one with a converged
 * wait; no bar.arrive; and lanes_full_at_barriers (full).  Then a sweep's warps
 * all start at its first warp's resume point and stop at the barrier it
 * stops at (the tree reduction, the tiled SGEMM). */
static bool barriers_uniform(fn *F, bool full)
{
    if (F->bar_arrives || reads_warpid(F->f) || !full || !splits_before_barriers(F))
        return false;
    for (uint32_t k = 0; k < F->nwaits; k++) {
        bool plain = false;
        for (uint32_t j = 0; j < F->nwaits && !plain; j++)
            plain = F->wait_save[j] && F->waits[j] == F->waits[k];
        if (!plain)
            return false;
    }
    return true;
}

/* The restore path of a converged plain wait: the registers live after
 * it, and straight into the block after the barrier with its lanes (all
 * 32 where lanes_full_at_barriers says so). */
static void emit_converged_restore(fn *F, uint32_t k, const saved_reg *r, uint32_t n, bool full)
{
    lw *L = F->L;
    uint32_t next = F->wait_next[k];
    move_converged_state(F, false);
    move_registers(F, r, n, false, next);
    rematerialize(F);
    LLVMValueRef lanes = full ? LLVMConstAllOnes(vec_of(L->i1)) : lanes_of(F, frame_load(F, PTXJIT_FRAME_LANES, L->i32));
    enter_after_wait(F, lanes, next);
}

/* A warp that starts at the kernel's first block: the CTA's first one
 * takes every warp to the first block's group region (entry_group), the
 * others (left over from it) go there alone. */
static void emit_fresh_start(fn *F, LLVMBasicBlockRef fresh)
{
    lw *L = F->L;
    LLVMPositionBuilderAtEnd(L->b, fresh);
    if (F->entry_group >= F->nwaits) {
        LLVMBuildBr(L->b, F->resume_start);
        return;
    }
    LLVMBasicBlockRef group = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "entry.group");
    LLVMBuildCondBr(L->b, LLVMBuildLoad2(L->b, L->i1, F->entry_grouped, ""), F->resume_start, group);
    LLVMPositionBuilderAtEnd(L->b, group);
    LLVMBuildStore(L->b, LLVMConstInt(L->i1, 1, false), F->entry_grouped);
    LLVMBuildStore(L->b, all_warps(F), F->todo);
    LLVMBuildBr(L->b, F->uniform_check[F->entry_group]);
}

/* The save block of general waits: the pc vector unless converged, the
 * dispatcher's state, every laid-out register; then the CTA loop's step. */
static void emit_general_save(fn *F, const saved_reg *regs, uint32_t nregs)
{
    lw *L = F->L;
    LLVMValueRef conv = LLVMBuildLoad2(L->b, L->i1, F->wait_conv, "");
    frame_store(F, FRAME_CONV, LLVMBuildZExt(L->b, conv, L->i32, ""));
    LLVMBasicBlockRef save_pc = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "save.pc");
    LLVMBasicBlockRef save_rest = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "save.rest");
    LLVMBuildCondBr(L->b, conv, save_rest, save_pc);
    LLVMPositionBuilderAtEnd(L->b, save_pc);
    move_value(F, F->pc, vec_of(L->i32), FRAME_PC, true);
    LLVMBuildBr(L->b, save_rest);
    LLVMPositionBuilderAtEnd(L->b, save_rest);
    move_state(F, true);
    move_registers(F, regs, nregs, true, UINT32_MAX);
    LLVMBuildBr(L->b, F->warp_next);
}

/* Fills the save and restore blocks and the CTA loop's step; returns the
 * frame size. */
uint32_t resume_finish(fn *F)
{
    lw *L = F->L;
    saved_reg *regs;
    uint32_t nregs, size = layout_registers(F, &regs, &nregs);
    warp_index_values(F, &F->warp_values); /* barriers_uniform and the group regions read it */
    bool full = lanes_full_at_barriers(F), uniform = barriers_uniform(F, full);
    /* The runtime calls single warps only after the CTA loop returned with
     * warps waiting, which uniform barriers never do: the function is the
     * CTA loop, and no path for single warps is emitted. */
    if (uniform) {
        LLVMReplaceAllUsesWith(F->cta_loop, LLVMConstInt(L->i1, 1, false));
        F->cta_loop = LLVMConstInt(L->i1, 1, false);
    }
    F->cta_more = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "cta.more");
    F->cta_return = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "cta.return");
    /* where the warp's call starts: with uniform barriers the warps wait
     * where the sweep started, and their frames are not kept */
    LLVMPositionBuilderAtEnd(L->b, F->resume_pick);
    LLVMValueRef r = uniform ? LLVMBuildLoad2(L->b, L->i32, F->sweep_from, "")
                             : frame_load(F, PTXJIT_FRAME_RESUME, L->i32);
    LLVMBasicBlockRef fresh = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "resume.fresh");
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntNE, r, const_i32(L, 0), ""), F->restore, fresh);
    LLVMPositionBuilderAtEnd(L->b, F->save);
    if (uniform) /* a general wait cannot happen there */
        warps_apart(F, 0);
    else
        emit_general_save(F, regs, nregs);
    emit_warp_exit(F, uniform);
    emit_warp_next(F, uniform);
    emit_cta_step(F);
    LLVMBasicBlockRef *conv_restore = calloc(F->nwaits + 1, sizeof *conv_restore);
    uint32_t *from = handover_from(F);
    if (!conv_restore)
        abort(); /* lowering has no partial-failure path */
    for (uint32_t k = 0; k < F->nwaits; k++)
        if (F->wait_save[k])
            conv_restore[k] = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "restore.conv.plain");
    F->uniform_check = calloc(F->nwaits + 1, sizeof *F->uniform_check);
    F->pair_after = malloc((F->nwaits + 1) * sizeof *F->pair_after);
    if (!F->uniform_check || !F->pair_after)
        abort(); /* lowering has no partial-failure path */
    for (uint32_t k = 0; k < F->nwaits; k++) {
        F->pair_after[k] = UINT32_MAX;
        if (uniform && F->wait_save[k])
            F->uniform_check[k] = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "uniform.check");
    }
    for (uint32_t j = 0; uniform && j < F->nwaits; j++)
        F->pair_after[j] = pair_target(F, j);
    F->entry_group = uniform ? entry_group_barrier(F) : UINT32_MAX;
    emit_fresh_start(F, fresh);
    for (uint32_t k = 0; k < F->nwaits; k++)
        if (F->wait_save[k])
            emit_converged_save(F, k, regs, nregs, from[k], from[k] < F->nwaits ? conv_restore[from[k]] : NULL,
                                conv_restore[k], uniform);

    /* a converged plain wait resumes by its own path, the others here */
    LLVMPositionBuilderAtEnd(L->b, F->restore);
    LLVMBasicBlockRef generic = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "restore.generic");
    LLVMValueRef sw = LLVMBuildSwitch(L->b, r, generic, F->nwaits);
    for (uint32_t k = 0; k < F->nwaits; k++) {
        if (!F->wait_save[k])
            continue;
        LLVMAddCase(sw, const_i32(L, k + 1), conv_restore[k]);
        LLVMPositionBuilderAtEnd(L->b, conv_restore[k]);
        emit_converged_restore(F, k, regs, nregs, full);
    }
    free(conv_restore);
    free(from);
    free(F->uniform_check);
    free(F->pair_after);
    ptrmap_free(&F->warp_values);
    LLVMPositionBuilderAtEnd(L->b, generic);
    move_state(F, false);
    move_registers(F, regs, nregs, false, UINT32_MAX);
    rematerialize(F);
    write_reductions(F);
    resume_jump(F);
    if (size < L->opts.frame_stride) /* a specialized version's frames, laid out as the generic one's */
        size = L->opts.frame_stride;
    LLVMSetInitializer(F->frame_size, const_i64(L, size));
    free(regs);
    free(F->waits);
    free(F->wait_next);
    free(F->wait_save);
    free(F->wait_block);
    free(F->wait_lanes);
    return size;
}
