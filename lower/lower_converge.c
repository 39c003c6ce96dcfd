/* lower_converge.c - where the lanes of a warp wait for each other.
 *
 * A warp collective with a member mask (shfl.sync, vote.sync, match.sync,
 * redux.sync, elect.sync, bar.warp.sync) makes each lane wait until every
 * non-exited lane named in the mask executes it; a CTA barrier makes the
 * warp's lanes arrive together.
 *
 * The dispatcher runs the lowest-numbered pending block first (reverse
 * post-order), so the lanes that can still reach a block are normally
 * pending at lower numbers and run first: lanes meet at a sync point by
 * themselves, provided the fairness pick (which jumps to the highest
 * pending block) never jumps into a block holding one.  That is not
 * enough where a block of higher number can reach the sync point's block
 * (loops, a top-tested loop whose body is numbered after its exit): there
 * the sync point starts its own block, which begins with an arrival check.
 * When some lane the instruction needs is pending elsewhere, the lanes
 * present park and the dispatcher runs the others until they arrive.  When
 * every pending lane is parked (lanes at different collectives, or a mask
 * naming lanes that never come), each may pass the sync point it waits at
 * once: the dispatcher runs the lowest with the lanes it has.
 *
 * CTA barriers always start a block that parks: a warp arrives once, when
 * all its non-exited lanes reached a barrier instruction, possibly
 * different ones (non-aligned barrier.sync); the first group to run
 * arrives for the others (barrier_arrivals).
 *
 * Splitting a block costs compile time (values crossing the split need
 * masked writes), so a sync point that needs the same lanes as the one
 * before it in the same straight-line code does not split again. */
#include "lower_internal.h"

#include <stdlib.h>

bool is_sync_point(const ptx_instr *in)
{
    if (ptx_op_effects(in->op) & E_SYNC)
        return true;
    switch (in->op) {
    case PTX_OP_SHFL:
    case PTX_OP_VOTE:
    case PTX_OP_MATCH:
    case PTX_OP_REDUX:
    case PTX_OP_ELECT:
    case PTX_OP_BAR_WARP_SYNC:
    case PTX_OP_MMA: /* .sync.aligned: the whole warp meets */
    case PTX_OP_LDMATRIX:
    case PTX_OP_STMATRIX:
    case PTX_OP_MOVMATRIX:
    case PTX_OP_WMMA_LOAD:
    case PTX_OP_WMMA_STORE:
    case PTX_OP_WMMA_MMA:
        return true;
    default:
        return false;
    }
}

/* The member-mask operand of a warp collective; NULL: the whole warp
 * (CTA barriers, and shfl/vote without .sync). */
const ptx_operand *membermask_operand(const ptx_instr *in)
{
    uint32_t k;
    switch (in->op) {
    case PTX_OP_SHFL: k = 4; break;
    case PTX_OP_VOTE:
    case PTX_OP_MATCH:
    case PTX_OP_REDUX: k = 2; break;
    case PTX_OP_ELECT: k = 1; break;
    case PTX_OP_BAR_WARP_SYNC: k = 0; break;
    default: return NULL;
    }
    return k < in->nopds ? &in->opds[k] : NULL;
}

/* The member mask as an i32, read in the first lane of `mask` (a mask
 * names the same lanes in every lane that executes the instruction). */
LLVMValueRef membermask_bits(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    lw *L = F->L;
    const ptx_operand *o = membermask_operand(in);
    if (!o)
        return const_i32(L, UINT32_MAX);
    if (o->kind == PTX_OPD_IMM)
        return const_i32(L, (uint32_t)o->imm);
    LLVMValueRef v = read_opd(F, o, PTX_TYPE_B32, false);
    return LLVMBuildExtractElement(L->b, v, first_lane(F, mask), "membermask");
}

/* Index of the lowest lane of mask (0 when empty). */
LLVMValueRef lowest_lane(lw *L, LLVMValueRef mask)
{
    LLVMValueRef bits = LLVMBuildBitCast(L->b, mask, L->i32, "");
    LLVMValueRef tz = call_intrinsic(L, "llvm.cttz", &L->i32, 1,
                                     (LLVMValueRef[]){bits, LLVMConstInt(L->i1, 0, false)}, 2);
    return LLVMBuildAnd(L->b, tz, const_i32(L, W - 1), "");
}

LLVMValueRef first_lane(fn *F, LLVMValueRef mask) { return lowest_lane(F->L, mask); }

/* Lanes with a block still to run in this function (not exited, not
 * returned), as an i32. */
LLVMValueRef pending_bits(fn *F)
{
    lw *L = F->L;
    LLVMValueRef pc = LLVMBuildLoad2(L->b, vec_of(L->i32), F->pc, "pc");
    return mask_bits(F, LLVMBuildICmp(L->b, LLVMIntULT, pc, splat(L, const_i32(L, PC_RET)), ""));
}

static bool same_operand(const ptx_operand *a, const ptx_operand *b)
{
    if (a->kind != b->kind)
        return false;
    if (a->kind == PTX_OPD_IMM)
        return a->imm == b->imm;
    return a->kind == PTX_OPD_NAME && a->var && a->var == b->var && a->reg_index == b->reg_index;
}

/* The instruction's destination operand (op 0) names v. */
static bool writes_var(const ptx_instr *in, const ptx_var *v)
{
    if (!in->nopds)
        return false;
    const ptx_operand *o = &in->opds[0];
    if (o->var == v)
        return true;
    for (uint32_t e = 0; e < o->nelems; e++)
        if (o->elems[e].var == v)
            return true;
    return false;
}

/* Sync point i needs no lanes beyond those that met at sync point j
 * before it in the same block: j waited for all lanes (a CTA barrier or a
 * full mask) or for the same mask, which nothing in between rewrote. */
static bool covered_by(const ptx_func *f, uint32_t j, uint32_t i)
{
    const ptx_operand *mj = membermask_operand(f->body[j].instr);
    const ptx_operand *mi = membermask_operand(f->body[i].instr);
    if (!mj || (mj->kind == PTX_OPD_IMM && (uint32_t)mj->imm == UINT32_MAX))
        return true;
    if (!mi || !same_operand(mi, mj))
        return false;
    for (uint32_t k = j; k < i; k++)
        if (f->body[k].kind == PTX_STMT_INSTR && mj->kind == PTX_OPD_NAME &&
            writes_var(f->body[k].instr, mj->var))
            return false;
    return true;
}

static bool sync_stmt(const ptx_func *f, uint32_t i)
{
    return f->body[i].kind == PTX_STMT_INSTR && is_sync_point(f->body[i].instr);
}

/* Splits the body into blocks: CTA barriers always start one; warp
 * collectives where lanes may have to park (see above). */
void place_sync_points(fn *F)
{
    const ptx_func *f = F->f;
    uint8_t *split = calloc(f->nbody + 1, 1);
    for (uint32_t i = 0; i < f->nbody; i++)
        split[i] = sync_stmt(f, i) && (ptx_op_effects(f->body[i].instr->op) & E_SYNC);
    /* a warp that returns at a barrier resumes at the next block */
    for (uint32_t i = f->nbody; F->resumable && i-- > 0;)
        if (split[i])
            split[i + 1] = 1;
    split_blocks(F, split);
    bool more = false;
    for (uint32_t i = 0, last = UINT32_MAX; i < f->nbody; i++) {
        if (!sync_stmt(f, i) || split[i])
            last = sync_stmt(f, i) ? i : last;
        else if (F->from_later[F->block_of_stmt[i]]) {
            bool same_block = last != UINT32_MAX && F->block_of_stmt[last] == F->block_of_stmt[i];
            if (!same_block || !covered_by(f, last, i))
                split[i] = more = true;
            last = i;
        } else {
            last = i;
        }
    }
    if (more)
        split_blocks(F, split);
    F->sync_block = calloc(F->nblocks, 1);
    F->park_block = calloc(F->nblocks, 1);
    F->cta_barrier_block = calloc(F->nblocks, 1);
    for (uint32_t i = 0; i < f->nbody; i++) {
        if (!sync_stmt(f, i))
            continue;
        uint32_t b = F->block_of_stmt[i];
        bool cta = ptx_op_effects(f->body[i].instr->op) & E_SYNC;
        F->sync_block[b] = 1;
        F->cta_barrier_block[b] |= cta;
        if (split[i] && (cta || F->from_later[b])) /* a warp arrives at a barrier once */
            F->park_block[b] = 1, F->parking = true;
    }
    free(split);
}

/* Lanes whose pc is a block of `set` (nblocks flags): compares for a few
 * blocks, else a bit test per 32 blocks (a variable shift of a constant),
 * so that the cost does not grow with the number of such blocks. */
LLVMValueRef pc_in_set(fn *F, LLVMValueRef pc, const uint8_t *set)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    uint32_t count = 0;
    for (uint32_t k = 0; k < F->nblocks; k++)
        count += set[k] != 0;
    LLVMValueRef in = LLVMConstNull(vec_of(L->i1));
    if (count <= 2) {
        for (uint32_t k = 0; k < F->nblocks; k++)
            if (set[k])
                in = LLVMBuildOr(b, in, LLVMBuildICmp(b, LLVMIntEQ, pc, splat(L, const_i32(L, k)), ""), "");
        return in;
    }
    LLVMValueRef chunk = LLVMBuildLShr(b, pc, splat(L, const_i32(L, 5)), "");
    LLVMValueRef bit = LLVMBuildAnd(b, pc, splat(L, const_i32(L, 31)), "");
    for (uint32_t c = 0; c * 32 < F->nblocks; c++) {
        uint32_t bits = 0;
        for (uint32_t k = c * 32; k < F->nblocks && k < c * 32 + 32; k++)
            bits |= (uint32_t)(set[k] != 0) << (k - c * 32);
        if (!bits)
            continue;
        LLVMValueRef t = LLVMBuildLShr(b, splat(L, const_i32(L, bits)), bit, "");
        LLVMValueRef hit = LLVMBuildICmp(b, LLVMIntNE, LLVMBuildAnd(b, t, splat(L, const_i32(L, 1)), ""),
                                         LLVMConstNull(vec_of(L->i32)), "");
        LLVMValueRef here = LLVMBuildICmp(b, LLVMIntEQ, chunk, splat(L, const_i32(L, c)), "");
        in = LLVMBuildOr(b, in, LLVMBuildAnd(b, hit, here, ""), "");
    }
    return in;
}

/* Lanes of the warp at a CTA barrier: the present ones (mask) plus those
 * waiting at another barrier instruction, which the ISA lets a warp's
 * lanes reach apart ("waits for all non-exited threads of its warp").
 * The warp arrives once, for all of them: returns the lanes of mask that
 * still have to arrive (none when a sibling group arrived for them) and
 * records the siblings as arrived; *sib: the siblings (i32). */
LLVMValueRef barrier_arrivals(fn *F, LLVMValueRef mask, LLVMValueRef *sib)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef present = mask_bits(F, mask);
    LLVMValueRef done = LLVMBuildLoad2(b, L->i32, F->bar_done, "bar.done");
    LLVMValueRef arrive = LLVMBuildAnd(b, present, LLVMBuildNot(b, done, ""), "");
    LLVMValueRef pc = LLVMBuildLoad2(b, vec_of(L->i32), F->pc, "pc");
    LLVMValueRef at = pc_in_set(F, pc, F->cta_barrier_block);
    LLVMValueRef siblings = LLVMBuildAnd(b, mask_bits(F, at), LLVMBuildNot(b, present, ""), "");
    LLVMValueRef rest = LLVMBuildAnd(b, done, LLVMBuildNot(b, present, ""), "");
    LLVMValueRef any = LLVMBuildICmp(b, LLVMIntNE, arrive, const_i32(L, 0), "");
    LLVMBuildStore(b, LLVMBuildSelect(b, any, LLVMBuildOr(b, rest, siblings, ""), rest, ""), F->bar_done);
    *sib = siblings;
    return arrive;
}

/* Emitted at the top of a block that starts with sync point `in`: parks
 * the block's lanes while lanes the instruction needs are elsewhere. */
void arrive_sync_point(fn *F, const ptx_instr *in)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef present = mask_bits(F, F->mask);
    LLVMValueRef need = LLVMBuildAnd(b, membermask_bits(F, in, F->mask), pending_bits(F), "need");
    LLVMValueRef missing = LLVMBuildAnd(b, need, LLVMBuildNot(b, present, ""), "");
    LLVMValueRef forced = LLVMBuildLoad2(b, L->i32, F->forced, "forced");
    LLVMValueRef parked = LLVMBuildLoad2(b, L->i32, F->parked, "parked");
    LLVMValueRef unforced = LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildAnd(b, present, forced, ""), const_i32(L, 0), "");
    LLVMValueRef wait = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntNE, missing, const_i32(L, 0), ""), unforced, "");
    LLVMBasicBlockRef park = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "park");
    LLVMBasicBlockRef go = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "arrived");
    LLVMBuildCondBr(b, wait, park, go);
    LLVMPositionBuilderAtEnd(b, park);
    LLVMBuildStore(b, LLVMBuildOr(b, parked, present, ""), F->parked);
    LLVMBuildBr(b, F->dispatch);
    LLVMPositionBuilderAtEnd(b, go);
    LLVMValueRef gone = LLVMBuildNot(b, present, "");
    LLVMBuildStore(b, LLVMBuildAnd(b, parked, gone, ""), F->parked);
    LLVMBuildStore(b, LLVMBuildAnd(b, forced, gone, ""), F->forced);
}

/* <32 x i1> from an i32 of lane bits, mask_bits' inverse (bit i is lane
 * i): one mask-register move, where testing a splat against the lane bits
 * took four instructions. */
LLVMValueRef lanes_of(fn *F, LLVMValueRef bits)
{
    return LLVMBuildBitCast(F->L->b, bits, vec_of(F->L->i1), "");
}

/* Dispatcher part: the lanes it may pick from.  Parked lanes wait, unless
 * every pending lane is parked: then each may pass the sync point it is
 * parked at once (the forced set) and all are candidates. */
LLVMValueRef dispatch_candidates(fn *F, LLVMValueRef pc)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef pendv = LLVMBuildICmp(b, LLVMIntULT, pc, splat(L, const_i32(L, PC_RET)), "");
    if (!F->parking)
        return pendv;
    LLVMValueRef pend = mask_bits(F, pendv);
    LLVMValueRef parked = LLVMBuildLoad2(b, L->i32, F->parked, "parked");
    LLVMValueRef free_ = LLVMBuildAnd(b, pend, LLVMBuildNot(b, parked, ""), "");
    LLVMValueRef stuck = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntEQ, free_, const_i32(L, 0), ""),
                                      LLVMBuildICmp(b, LLVMIntNE, pend, const_i32(L, 0), ""), "stuck");
    LLVMValueRef forced = LLVMBuildLoad2(b, L->i32, F->forced, "");
    LLVMBuildStore(b, LLVMBuildSelect(b, stuck, const_i32(L, 0), parked, ""), F->parked);
    LLVMBuildStore(b, LLVMBuildSelect(b, stuck, pend, forced, ""), F->forced);
    return lanes_of(F, LLVMBuildSelect(b, stuck, pend, free_, ""));
}

/* Dispatcher part: the candidates the fairness pick may jump to (never
 * into a block holding a sync point: lanes meet there). */
LLVMValueRef fairness_candidates(fn *F, LLVMValueRef pc, LLVMValueRef cand)
{
    lw *L = F->L;
    return LLVMBuildAnd(L->b, cand, LLVMBuildNot(L->b, pc_in_set(F, pc, F->sync_block), ""), "");
}
