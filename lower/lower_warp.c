/* lower_warp.c - warp collectives: shfl.sync, vote.sync, activemask,
 * match.sync, redux.sync, elect.sync, bar.warp.sync.  The warp is one
 * vector, so a collective is a cross-lane vector operation over the lanes
 * that execute it and that its member mask names; the lanes it names met
 * before it ran (lower_converge.c). */
#include "lower_internal.h"

/* a[j] for each lane: spill the 32-bit vector, gather it back by index. */
static LLVMValueRef permute(fn *F, LLVMValueRef a, LLVMValueRef j)
{
    lw *L = F->L;
    LLVMTypeRef vt = LLVMTypeOf(a), pvt = vec_of(L->ptr);
    LLVMValueRef tmp = entry_alloca(F, vt, "shfl");
    LLVMBuildStore(L->b, a, tmp);
    LLVMValueRef ptrs = LLVMBuildGEP2(L->b, L->i32, tmp, &j, 1, "");
    LLVMTypeRef tys[2] = {vt, pvt};
    LLVMValueRef args[4] = {ptrs, const_i32(L, 4), LLVMConstAllOnes(vec_of(L->i1)),
                            LLVMGetPoison(vt)};
    return call_intrinsic(L, "llvm.masked.gather", tys, 2, args, 4);
}

/* One fixed lane permutation: lane i takes v[i + 2^k mod 32], v[i ^ 2^k],
 * or v[i] with bit k set or cleared. */
typedef enum lane_step { STEP_ROT, STEP_XOR, STEP_SET, STEP_CLEAR } lane_step;

static LLVMValueRef step_lanes(fn *F, LLVMValueRef v, lane_step s, unsigned k)
{
    LLVMValueRef idx[W];
    for (unsigned i = 0, bit = 1u << k; i < W; i++) {
        unsigned j = s == STEP_ROT ? (i + bit) % W : s == STEP_XOR ? i ^ bit : s == STEP_SET ? i | bit : i & ~bit;
        idx[i] = const_i32(F->L, j);
    }
    return LLVMBuildShuffleVector(F->L->b, v, LLVMGetPoison(LLVMTypeOf(v)), LLVMConstVector(idx, W), "");
}

/* Bit k of the scalar i32 x, as an i1 (a constant when x is). */
static LLVMValueRef bit_of(fn *F, LLVMValueRef x, unsigned k)
{
    lw *L = F->L;
    return LLVMBuildICmp(L->b, LLVMIntNE, LLVMBuildAnd(L->b, x, const_i32(L, 1u << k), ""), const_i32(L, 0), "");
}

/* v stepped when the i1 `on` holds; no code when it is a constant. */
static LLVMValueRef step_if(fn *F, LLVMValueRef on, LLVMValueRef v, lane_step s, unsigned k)
{
    if (LLVMIsAConstantInt(on))
        return LLVMConstIntGetZExtValue(on) ? step_lanes(F, v, s, k) : v;
    return LLVMBuildSelect(F->L->b, on, step_lanes(F, v, s, k), v, "");
}

/* a[src(lane)] for a lane operand b that is the same in every lane (and,
 * for idx, the segment mask nseg too): src is then a composition of five
 * fixed permutations, one per bit of b, so the shuffle stays in registers.
 * down rotates by b, up by -b (in range, lane - b = lane - b mod 32), bfly
 * flips b's bits, idx replaces the bits of nseg by b's.  With constants
 * (CUDA's __shfl_down_sync(m, v, 16)) it folds to one shufflevector. */
static LLVMValueRef permute_uniform(fn *F, LLVMValueRef a, uint8_t mode, LLVMValueRef b, LLVMValueRef nseg)
{
    lw *L = F->L;
    if (mode == PTX_MODE_UP)
        b = LLVMBuildAnd(L->b, LLVMBuildNeg(L->b, b, ""), const_i32(L, 31), "");
    LLVMValueRef v = a;
    for (unsigned k = 0; k < 5; k++) {
        LLVMValueRef on = bit_of(F, b, k);
        if (mode != PTX_MODE_IDX) {
            v = step_if(F, on, v, mode == PTX_MODE_BFLY ? STEP_XOR : STEP_ROT, k);
            continue;
        }
        LLVMValueRef from_b = bit_of(F, nseg, k);
        if (LLVMIsAConstantInt(from_b) && !LLVMConstIntGetZExtValue(from_b))
            continue;
        LLVMValueRef forced = LLVMIsAConstantInt(on)
                                  ? step_lanes(F, v, LLVMConstIntGetZExtValue(on) ? STEP_SET : STEP_CLEAR, k)
                                  : LLVMBuildSelect(L->b, on, step_lanes(F, v, STEP_SET, k),
                                                    step_lanes(F, v, STEP_CLEAR, k), "");
        v = LLVMIsAConstantInt(from_b) ? forced : LLVMBuildSelect(L->b, from_b, forced, v, "");
    }
    return v;
}

static LLVMValueRef lane0(fn *F, LLVMValueRef v)
{
    return LLVMBuildExtractElement(F->L->b, v, const_i32(F->L, 0), "");
}

/* ISA: shfl.sync d|p, a, b, c, membermask (c packs clamp and segment mask).
 * A lane whose source is out of range keeps its own value. */
static void lower_shfl(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    uint8_t mode = in->mod[PTX_CAT_MODE];
    LLVMValueRef a = read_opd(F, &in->opds[1], PTX_TYPE_B32, false);
    LLVMValueRef bv = LLVMBuildAnd(b, read_opd(F, &in->opds[2], PTX_TYPE_U32, false),
                                   splat(L, const_i32(L, 31)), "");
    LLVMValueRef c = read_opd(F, &in->opds[3], PTX_TYPE_U32, false);
    LLVMValueRef cval = LLVMBuildAnd(b, c, splat(L, const_i32(L, 31)), "");
    LLVMValueRef seg = LLVMBuildAnd(b, LLVMBuildLShr(b, c, splat(L, const_i32(L, 8)), ""),
                                    splat(L, const_i32(L, 31)), "");
    LLVMValueRef nseg = LLVMBuildNot(b, seg, "");
    LLVMValueRef minl = LLVMBuildAnd(b, F->lane, seg, "");
    LLVMValueRef maxl = LLVMBuildOr(b, minl, LLVMBuildAnd(b, cval, nseg, ""), "");
    LLVMValueRef j, ok;
    switch (mode) {
    case PTX_MODE_UP:
        j = LLVMBuildSub(b, F->lane, bv, "");
        ok = LLVMBuildICmp(b, LLVMIntSGE, j, maxl, "");
        break;
    case PTX_MODE_DOWN:
        j = LLVMBuildAdd(b, F->lane, bv, "");
        ok = LLVMBuildICmp(b, LLVMIntSLE, j, maxl, "");
        break;
    case PTX_MODE_BFLY:
        j = LLVMBuildXor(b, F->lane, bv, "");
        ok = LLVMBuildICmp(b, LLVMIntSLE, j, maxl, "");
        break;
    default: /* idx */
        j = LLVMBuildOr(b, minl, LLVMBuildAnd(b, bv, nseg, ""), "");
        ok = LLVMBuildICmp(b, LLVMIntSLE, j, maxl, "");
        break;
    }
    LLVMValueRef d;
    if (opd_is_uniform(F, &in->opds[2]) && (mode != PTX_MODE_IDX || opd_is_uniform(F, &in->opds[3])))
        d = LLVMBuildSelect(b, ok, permute_uniform(F, a, mode, lane0(F, bv), lane0(F, nseg)), a, "");
    else
        d = permute(F, a, LLVMBuildSelect(b, ok, j, F->lane, ""));
    const ptx_operand *dst = &in->opds[0];
    if (dst->kind == PTX_OPD_PAIR) {
        write_reg(F, &dst->elems[0], d, PTX_TYPE_B32, false, mask);
        write_reg(F, &dst->elems[1], ok, PTX_TYPE_PRED, false, mask);
    } else {
        write_reg(F, dst, d, PTX_TYPE_B32, false, mask);
    }
}

static LLVMValueRef reduce(fn *F, const char *name, LLVMValueRef v)
{
    LLVMTypeRef t = LLVMTypeOf(v);
    return call_intrinsic(F->L, name, &t, 1, &v, 1);
}

/* The lanes taking part: those executing it that the member mask names
 * (as seen from the first executing lane; for elect.sync). */
static LLVMValueRef participants(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    lw *L = F->L;
    LLVMValueRef mm = membermask_bits(F, in, mask);
    return LLVMBuildAnd(L->b, mask, lanes_of(F, mm), "");
}

/* Each lane's own group, as lane bits: the executing lanes its member mask
 * names.  Lanes executing one collective together may name different
 * groups (cooperative_groups tiles: every 4-lane tile of a converged warp
 * passes its own mask), and each lane's result is over its own group. */
static LLVMValueRef group_bits(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    lw *L = F->L;
    const ptx_operand *o = membermask_operand(in);
    LLVMValueRef mm = !o ? splat(L, const_i32(L, UINT32_MAX))
                      : o->kind == PTX_OPD_IMM ? splat(L, const_i32(L, (uint32_t)o->imm))
                                               : read_opd(F, o, PTX_TYPE_B32, false);
    return LLVMBuildAnd(L->b, mm, splat(L, mask_bits(F, mask)), "group");
}

/* Whether every executing lane names the same group: the member mask is an
 * immediate (or absent). Then one reduction serves the whole warp. */
static bool uniform_group(const ptx_instr *in)
{
    const ptx_operand *o = membermask_operand(in);
    return !o || o->kind == PTX_OPD_IMM;
}

/* vote.sync.{all,any,uni}.pred d, {!}a, membermask; vote.sync.ballot.b32. */
static void lower_vote(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef grp = group_bits(F, in, mask);
    LLVMValueRef p = read_opd(F, &in->opds[1], PTX_TYPE_PRED, false);
    LLVMValueRef on = LLVMBuildAnd(b, splat(L, mask_bits(F, LLVMBuildAnd(b, p, mask, ""))), grp, "");
    LLVMValueRef zero = LLVMConstNull(vec_of(L->i32)), r;
    switch (in->mod[PTX_CAT_MODE]) {
    case PTX_MODE_BALLOT:
        write_reg(F, &in->opds[0], on, PTX_TYPE_B32, false, mask);
        return;
    case PTX_MODE_ALL: r = LLVMBuildICmp(b, LLVMIntEQ, on, grp, ""); break;
    case PTX_MODE_ANY: r = LLVMBuildICmp(b, LLVMIntNE, on, zero, ""); break;
    default: /* uni: all or none */
        r = LLVMBuildOr(b, LLVMBuildICmp(b, LLVMIntEQ, on, zero, ""), LLVMBuildICmp(b, LLVMIntEQ, on, grp, ""), "");
    }
    write_reg(F, &in->opds[0], r, PTX_TYPE_PRED, false, mask);
}

/* match.any: lanes of the group holding the same value; match.all: the
 * group if they all hold it, else 0. */
static void lower_match(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    ptx_type t = (ptx_type)in->types[0];
    LLVMValueRef a = read_opd(F, &in->opds[1], t, false);
    LLVMValueRef grp = group_bits(F, in, mask);
    LLVMValueRef acc = LLVMConstNull(vec_of(L->i32));
    for (uint32_t k = 0; k < W; k++) {
        LLVMValueRef ak = splat(L, LLVMBuildExtractElement(b, a, const_i32(L, k), ""));
        LLVMValueRef eq = LLVMBuildZExt(b, LLVMBuildICmp(b, LLVMIntEQ, a, ak, ""), vec_of(L->i32), "");
        acc = LLVMBuildOr(b, acc, LLVMBuildShl(b, eq, splat(L, const_i32(L, k)), ""), "");
    }
    acc = LLVMBuildAnd(b, acc, grp, "");
    const ptx_operand *d = &in->opds[0], *dv = d->kind == PTX_OPD_PAIR ? &d->elems[0] : d;
    if (in->mod[PTX_CAT_MODE] == PTX_MODE_ANY) {
        write_reg(F, dv, acc, PTX_TYPE_B32, false, mask);
        return;
    }
    LLVMValueRef all = LLVMBuildICmp(b, LLVMIntEQ, acc, grp, "");
    LLVMValueRef r = LLVMBuildSelect(b, all, grp, LLVMConstNull(vec_of(L->i32)), "");
    write_reg(F, dv, r, PTX_TYPE_B32, false, mask);
    if (d->kind == PTX_OPD_PAIR)
        write_reg(F, &d->elems[1], all, PTX_TYPE_PRED, false, mask);
}

typedef LLVMValueRef (*combine_fn)(fn *F, LLVMValueRef x, LLVMValueRef y, int op);

/* Each lane's reduction over its own group: lane k's value is combined
 * into the lanes whose group names k (identity elsewhere). */
static LLVMValueRef reduce_groups(fn *F, LLVMValueRef v, LLVMValueRef grp, LLVMValueRef id,
                                  combine_fn combine, int op)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef acc = splat(L, id), zero = LLVMConstNull(vec_of(L->i32));
    for (uint32_t k = 0; k < W; k++) {
        LLVMValueRef vk = splat(L, LLVMBuildExtractElement(b, v, const_i32(L, k), ""));
        LLVMValueRef in_grp = LLVMBuildICmp(b, LLVMIntNE, LLVMBuildAnd(b, grp, splat(L, const_i32(L, 1u << k)), ""),
                                            zero, "");
        acc = combine(F, acc, LLVMBuildSelect(b, in_grp, vk, splat(L, id), ""), op);
    }
    return acc;
}

static const char *const int_reduce_names[] = {
    "llvm.vector.reduce.add", "llvm.vector.reduce.and", "llvm.vector.reduce.or",
    "llvm.vector.reduce.xor", "llvm.vector.reduce.smin", "llvm.vector.reduce.umin",
    "llvm.vector.reduce.smax", "llvm.vector.reduce.umax"};
static const char *const int_pair_names[] = {NULL, NULL, NULL, NULL, "llvm.smin", "llvm.umin",
                                             "llvm.smax", "llvm.umax"};

static LLVMValueRef combine_int(fn *F, LLVMValueRef x, LLVMValueRef y, int op)
{
    lw *L = F->L;
    switch (op) {
    case 0: return LLVMBuildAdd(L->b, x, y, "");
    case 1: return LLVMBuildAnd(L->b, x, y, "");
    case 2: return LLVMBuildOr(L->b, x, y, "");
    case 3: return LLVMBuildXor(L->b, x, y, "");
    default: {
        LLVMTypeRef t = LLVMTypeOf(x);
        return call_intrinsic(L, int_pair_names[op], &t, 1, (LLVMValueRef[]){x, y}, 2);
    }
    }
}

/* redux.sync on .u32/.s32/.b32: integer reductions over the group. */
static void redux_int(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    lw *L = F->L;
    ptx_type t = (ptx_type)in->types[0];
    bool s = ptx_type_class(t) == 'S';
    LLVMValueRef a = read_opd(F, &in->opds[1], t, false);
    LLVMValueRef id;
    int op;
    switch (in->mod[PTX_CAT_RED]) {
    case PTX_RED_ADD: op = 0; id = const_i32(L, 0); break;
    case PTX_RED_AND: op = 1; id = const_i32(L, UINT32_MAX); break;
    case PTX_RED_OR: op = 2; id = const_i32(L, 0); break;
    case PTX_RED_XOR: op = 3; id = const_i32(L, 0); break;
    case PTX_RED_MIN: op = s ? 4 : 5; id = const_i32(L, s ? INT32_MAX : UINT32_MAX); break;
    default: op = s ? 6 : 7; id = const_i32(L, s ? (uint32_t)INT32_MIN : 0); break;
    }
    LLVMValueRef r;
    if (uniform_group(in))
        r = splat(L, reduce(F, int_reduce_names[op],
                            LLVMBuildSelect(L->b, participants(F, in, mask), a, splat(L, id), "")));
    else
        r = reduce_groups(F, a, group_bits(F, in, mask), id, combine_int, op);
    write_reg(F, &in->opds[0], r, t, false, mask);
}

/* Signed-integer keys ordering f32 values as floats. */
static LLVMValueRef float_key(fn *F, LLVMValueRef x)
{
    lw *L = F->L;
    LLVMValueRef neg = LLVMBuildICmp(L->b, LLVMIntSLT, x, LLVMConstNull(LLVMTypeOf(x)), "");
    LLVMValueRef flip = LLVMBuildSelect(L->b, neg, splat(L, const_i32(L, 0x7fffffff)), LLVMConstNull(LLVMTypeOf(x)), "");
    return LLVMBuildXor(L->b, x, flip, "");
}

/* redux.sync.{min,max}{.abs}{.NaN}.f32 (PTX 8.6): +0 > -0; NaN inputs are
 * ignored (all NaN: canonical NaN) or, with .NaN, make the result the
 * canonical NaN.  Floats are ordered as integers: flipping the magnitude
 * bits of negative values makes signed integer order the float order.
 * Per group: the key reduction, and or-reductions of the NaN and number
 * lanes as bit sets. */
static void redux_f32(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    bool is_min = in->mod[PTX_CAT_RED] == PTX_RED_MIN;
    LLVMValueRef grp = group_bits(F, in, mask);
    LLVMValueRef x = read_opd(F, &in->opds[1], PTX_TYPE_B32, false);
    LLVMValueRef mag = LLVMBuildAnd(b, x, splat(L, const_i32(L, 0x7fffffff)), "");
    if (in->flags & PTX_FLAG_BIT(ABS))
        x = mag;
    LLVMValueRef isnan = LLVMBuildICmp(b, LLVMIntUGT, mag, splat(L, const_i32(L, 0x7f800000)), "");
    LLVMValueRef nanbits = splat(L, mask_bits(F, isnan));
    LLVMValueRef any_nan = LLVMBuildICmp(b, LLVMIntNE, LLVMBuildAnd(b, grp, nanbits, ""), LLVMConstNull(vec_of(L->i32)), "");
    LLVMValueRef any_num = LLVMBuildICmp(b, LLVMIntNE, LLVMBuildAnd(b, grp, LLVMBuildNot(b, nanbits, ""), ""),
                                         LLVMConstNull(vec_of(L->i32)), "");
    LLVMValueRef id = const_i32(L, is_min ? INT32_MAX : (uint32_t)INT32_MIN);
    LLVMValueRef key = LLVMBuildSelect(b, isnan, splat(L, id), float_key(F, x), "");
    LLVMValueRef k = reduce_groups(F, key, grp, id, combine_int, is_min ? 4 : 6);
    LLVMValueRef r = float_key(F, k);
    LLVMValueRef to_nan = (in->flags & PTX_FLAG_BIT(NAN)) ? LLVMBuildOr(b, any_nan, LLVMBuildNot(b, any_num, ""), "")
                                                          : LLVMBuildNot(b, any_num, "");
    r = LLVMBuildSelect(b, to_nan, splat(L, const_i32(L, 0x7fffffff)), r, "");
    write_reg(F, &in->opds[0], r, PTX_TYPE_B32, false, mask);
}

static void lower_redux(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    if (ptx_type_class((ptx_type)in->types[0]) == 'F')
        redux_f32(F, in, mask);
    else
        redux_int(F, in, mask);
}

/* elect.sync d|p, membermask: the leader is the lowest participating lane
 * (the ISA asks only for a deterministic choice). */
static void lower_elect(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    lw *L = F->L;
    LLVMValueRef part = participants(F, in, mask);
    LLVMValueRef leader = first_lane(F, part);
    const ptx_operand *d = &in->opds[0];
    const ptx_operand *dv = d->kind == PTX_OPD_PAIR ? &d->elems[0] : d;
    if (dv->kind != PTX_OPD_SINK)
        write_reg(F, dv, splat(L, leader), PTX_TYPE_U32, false, mask);
    if (d->kind == PTX_OPD_PAIR && d->elems[1].kind != PTX_OPD_SINK) {
        LLVMValueRef is = LLVMBuildICmp(L->b, LLVMIntEQ, F->lane, splat(L, leader), "");
        write_reg(F, &d->elems[1], LLVMBuildAnd(L->b, is, part, ""), PTX_TYPE_PRED, false, mask);
    }
}

bool lower_warp(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    switch (in->op) {
    case PTX_OP_SHFL: lower_shfl(F, in, mask); return true;
    case PTX_OP_VOTE: lower_vote(F, in, mask); return true;
    case PTX_OP_MATCH: lower_match(F, in, mask); return true;
    case PTX_OP_REDUX: lower_redux(F, in, mask); return true;
    case PTX_OP_ELECT: lower_elect(F, in, mask); return true;
    case PTX_OP_ACTIVEMASK:
        write_reg(F, &in->opds[0], splat(F->L, mask_bits(F, mask)), PTX_TYPE_B32, false, mask);
        return true;
    case PTX_OP_BAR_WARP_SYNC:
        return true; /* the lanes met at the block's arrival check */
    default: return false;
    }
}
