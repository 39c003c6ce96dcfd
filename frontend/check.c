/* check.c - semantic checks: resolves every name to its declaration
 * (registers and variables by scope, labels per function, functions per
 * module), reports duplicates and undeclared names, and checks operands
 * against the opcode table's shapes and the ISA's type-compatibility rules. */
#include "arena.h"
#include "check_internal.h"

#include <string.h>

/* ---- name resolution ---- */

/* %r17 against a declaration %r<100>: splits off the trailing number. */
static const sym *find_param_reg(const symtab *t, const char *name, uint32_t *index)
{
    size_t n = strlen(name), k = n;
    while (k > 0 && name[k - 1] >= '0' && name[k - 1] <= '9')
        k--;
    if (k == n || k == 0 || n - k > 9 || (name[k] == '0' && n - k > 1))
        return NULL;
    uint32_t v = 0;
    for (size_t i = k; i < n; i++)
        v = v * 10 + (uint32_t)(name[i] - '0');
    const sym *s = symtab_find(t, name, k);
    if (!s || s->kind != SYM_VAR || v >= ((ptx_var *)s->decl)->nreg)
        return NULL;
    *index = v;
    return s;
}

static void resolve_name(checker *c, ptx_operand *o)
{
    size_t n = strlen(o->name);
    const sym *s = symtab_find(&c->locals, o->name, n);
    if (!s)
        s = find_param_reg(&c->locals, o->name, &o->reg_index);
    if (!s)
        s = symtab_find(&c->globals, o->name, n);
    if (!s)
        s = symtab_find(&c->labels, o->name, n);
    if (!s) {
        ERR(c, o->loc, "use of undeclared identifier '%s'", o->name);
        return;
    }
    if (s->kind == SYM_VAR) {
        o->var = s->decl;
        if (o->var->nreg && !strcmp(o->var->name, o->name))
            ERR(c, o->loc, "'%s' names %u registers; use one of them, e.g. %s0", o->name,
                o->var->nreg, o->name);
    } else if (s->kind == SYM_FUNC) {
        o->func = s->decl;
    } else {
        o->label = s->label;
    }
}

static void resolve_operand(checker *c, ptx_operand *o)
{
    if (o->kind == PTX_OPD_NAME)
        resolve_name(c, o);
    for (uint32_t i = 0; i < o->nelems; i++)
        resolve_operand(c, &o->elems[i]);
}

/* ---- type rules ---- */

bool check_is_reg(const ptx_operand *o)
{
    return o->kind == PTX_OPD_NAME && o->var && o->var->space == PTX_SP_REG;
}

static ptx_type widen(ptx_type t)
{
    switch (t) {
    case PTX_TYPE_U8: return PTX_TYPE_U16;
    case PTX_TYPE_U16: return PTX_TYPE_U32;
    case PTX_TYPE_U32: return PTX_TYPE_U64;
    case PTX_TYPE_S8: return PTX_TYPE_S16;
    case PTX_TYPE_S16: return PTX_TYPE_S32;
    case PTX_TYPE_S32: return PTX_TYPE_S64;
    case PTX_TYPE_B8: return PTX_TYPE_B16;
    case PTX_TYPE_B16: return PTX_TYPE_B32;
    case PTX_TYPE_B32: return PTX_TYPE_B64;
    case PTX_TYPE_F32: return PTX_TYPE_F64;
    default: return PTX_TYPE_NONE;
    }
}

static bool is_intlike(char cls) { return cls == 'B' || cls == 'U' || cls == 'S'; }

/* ISA "type checking": bit types match any type of their size, signed and
 * unsigned match each other, floats match themselves or bits.  `relaxed`
 * (ld/st/cvt) also allows integer and bit-size registers wider than the type. */
static bool type_compatible(ptx_type want, ptx_type have, bool relaxed)
{
    char w = ptx_type_class(want), h = ptx_type_class(have);
    uint32_t ws = ptx_type_size(want), hs = ptx_type_size(have);
    if (w == 'P' || h == 'P')
        return w == h;
    if (relaxed && is_intlike(w) && is_intlike(h) && hs > ws)
        return true;
    /* ISA "operand size exceeding instruction-type size": a float type may
     * use a wider bit-size register (ld zero-extends, st truncates). */
    if (relaxed && w == 'F' && h == 'B' && hs > ws)
        return true;
    if (ws != hs)
        return false;
    if (w == 'B' || h == 'B')
        return true;
    if (w == 'F' || h == 'F')
        return want == have;
    return true;
}

static ptx_type reg_type(const ptx_operand *o)
{
    return o->kind == PTX_OPD_SREG ? ptx_sreg_type((ptx_sreg)o->sreg) : o->var->type;
}

static void check_vector_comp(checker *c, const ptx_operand *o)
{
    if (o->kind == PTX_OPD_NAME && o->var && o->comp && o->var->vec == 0)
        ERR(c, o->loc, "'%s' is not a vector register; it has no components", o->name);
    if (o->kind == PTX_OPD_NAME && o->var && o->comp > o->var->vec && o->var->vec)
        ERR(c, o->loc, "component out of range for .v%u register '%s'", o->var->vec, o->name);
}


/* A value operand of type `want`. */
void check_value(checker *c, const ptx_operand *o, ptx_type want, role r, bool relaxed)
{
    char cls = ptx_type_class(want);
    switch (o->kind) {
    case PTX_OPD_SINK:
        if (r == SRC)
            ERR(c, o->loc, "'_' can only be a destination");
        return;
    case PTX_OPD_IMM:
    case PTX_OPD_F32:
    case PTX_OPD_F64:
        if (r == DST)
            ERR(c, o->loc, "destination must be a register");
        else if (o->kind != PTX_OPD_IMM && cls != 'F' && cls != 'B')
            ERR(c, o->loc, "floating-point constant used with .%s", ptx_type_name(want));
        else if (o->kind == PTX_OPD_F32 && cls == 'F' && want != PTX_TYPE_F32 &&
                 ptx_type_size(want) != 4)
            ERR(c, o->loc, "0f constant (32 bits) used with .%s", ptx_type_name(want));
        return;
    case PTX_OPD_SREG:
        if (r == DST) {
            ERR(c, o->loc, "special register %s is read-only", ptx_sreg_name((ptx_sreg)o->sreg));
            return;
        }
        break;
    case PTX_OPD_NAME:
        if (!o->var && !o->func && o->label < 0)
            return; /* undeclared: already reported */
        if (!check_is_reg(o)) {
            ERR(c, o->loc, "'%s' is not a register", o->name);
            return;
        }
        check_vector_comp(c, o);
        if (o->var->vec && !o->comp) {
            ERR(c, o->loc, "vector register '%s' needs a component (.x, .y, .z, .w) here", o->name);
            return;
        }
        if (o->has_offset && (r == DST || !is_intlike(cls) || !is_intlike(ptx_type_class(o->var->type)))) {
            ERR(c, o->loc, "'%s+%lld': a register plus an offset is only an integer source", o->name,
                (long long)o->imm);
            return;
        }
        break;
    default:
        ERR(c, o->loc, "expected a %s operand of type .%s", r == DST ? "register" : "register or constant",
            ptx_type_name(want));
        return;
    }
    ptx_type have = reg_type(o);
    if (!type_compatible(want, have, relaxed))
        ERR(c, o->loc, "operand '%s' has type .%s, incompatible with .%s",
            o->kind == PTX_OPD_SREG ? ptx_sreg_name((ptx_sreg)o->sreg) : o->name,
            ptx_type_name(have), ptx_type_name(want));
}

void check_pred(checker *c, const ptx_operand *o, role r)
{
    if (o->neg && r == DST)
        ERR(c, o->loc, "a destination cannot be negated");
    check_value(c, o, PTX_TYPE_PRED, r, false);
}

static void check_int(checker *c, const ptx_operand *o, uint32_t size)
{
    if (o->kind == PTX_OPD_IMM)
        return;
    check_value(c, o, size == 8 ? PTX_TYPE_B64 : PTX_TYPE_B32, SRC, false);
    if (check_is_reg(o) && ptx_type_class(o->var->type) == 'F')
        ERR(c, o->loc, "'%s' is a floating-point register; an integer is expected", o->name);
}

static void check_address(checker *c, const ptx_instr *in, const ptx_operand *o)
{
    if (o->kind != PTX_OPD_ADDR) {
        ERR(c, o->loc, "'%s' expects an address operand [..]", ptx_op_name(in->op));
        return;
    }
    if (!o->nelems)
        return;
    const ptx_operand *b = &o->elems[0];
    if (b->kind == PTX_OPD_NAME && b->var && b->var->space == PTX_SP_REG) {
        ptx_type t = b->var->type;
        if (!is_intlike(ptx_type_class(t)) || (ptx_type_size(t) != 4 && ptx_type_size(t) != 8))
            ERR(c, b->loc, "address register '%s' must be a 32- or 64-bit integer", b->name);
    } else if (b->kind == PTX_OPD_NAME && (b->func || b->label >= 0)) {
        ERR(c, b->loc, "'%s' is not a variable", b->name);
    } else if (b->kind == PTX_OPD_SREG) {
        ERR(c, b->loc, "a special register cannot be an address");
    }
}

/* ld/st value: a vector under .v2/.v4/.v8, else a single register. */
static void check_memval(checker *c, const ptx_instr *in, const ptx_operand *o, ptx_type t,
                         role r)
{
    uint32_t vec = in->mod[PTX_CAT_VEC] ? (uint32_t)(ptx_mod_text(PTX_CAT_VEC,
                                                                  in->mod[PTX_CAT_VEC])[1] - '0')
                                        : 0;
    /* only ld, ldu and st relax the size rules, not atom and red */
    bool relaxed = in->op == PTX_OP_LD || in->op == PTX_OP_LDU || in->op == PTX_OP_ST;
    if (!vec) {
        if (o->kind == PTX_OPD_VEC)
            ERR(c, o->loc, "vector operand needs a .v2/.v4 modifier");
        else
            check_value(c, o, t, r, relaxed);
        return;
    }
    if (o->kind != PTX_OPD_VEC || o->nelems != vec) {
        ERR(c, o->loc, ".v%u needs a vector operand of %u elements", vec, vec);
        return;
    }
    for (uint32_t i = 0; i < o->nelems; i++)
        check_value(c, &o->elems[i], t, r, relaxed);
}

static void check_label(checker *c, const ptx_instr *in, const ptx_operand *o)
{
    if (o->kind != PTX_OPD_NAME || (o->var || o->func)) {
        ERR(c, o->loc, "'%s' expects a label", ptx_op_name(in->op));
        return;
    }
    if (o->label < 0)
        return; /* undeclared, reported */
    const ptx_stmt *s = &c->func->body[o->label];
    bool table = s->kind == PTX_STMT_BRANCHTARGETS;
    if (in->op == PTX_OP_BRX_IDX && !table)
        ERR(c, o->loc, "brx.idx needs a .branchtargets label, '%s' is not one", o->name);
    else if (in->op != PTX_OP_BRX_IDX && s->kind != PTX_STMT_LABEL)
        ERR(c, o->loc, "'%s' is not a code label", o->name);
}

/* The instruction's type for shape code k (a digit). */
static ptx_type type_for(const ptx_instr *in, char code)
{
    int k = code == 'D' ? 0 : code - '0';
    ptx_type t = k < in->ntypes ? (ptx_type)in->types[k] : PTX_TYPE_NONE;
    if (code == 'D' && in->mod[PTX_CAT_WIDTH] == PTX_WIDTH_WIDE)
        t = widen(t);
    return t;
}

static void check_operand(checker *c, const ptx_instr *in, const ptx_operand *o, char code,
                          role r)
{
    switch (code) {
    case '0': case '1': case '2': case 'D': {
        ptx_type t = type_for(in, code);
        if (t == PTX_TYPE_NONE && code == 'D')
            ERR(c, o->loc, ".wide is not defined for .%s", ptx_type_name((ptx_type)in->types[0]));
        else if (t != PTX_TYPE_NONE)
            check_value(c, o, t, r, in->op == PTX_OP_CVT || in->op == PTX_OP_CVT_PACK);
        break;
    }
    case 'P': check_pred(c, o, SRC); break;
    case 'Q':
        if (o->kind == PTX_OPD_PAIR) {
            check_pred(c, &o->elems[0], DST);
            check_pred(c, &o->elems[1], DST);
        } else {
            check_pred(c, o, DST);
        }
        break;
    case 'R':
        if (o->kind == PTX_OPD_PAIR) {
            check_value(c, &o->elems[0], type_for(in, '0'), DST, false);
            check_pred(c, &o->elems[1], DST);
        } else {
            check_value(c, o, type_for(in, '0'), DST, false);
        }
        break;
    case 'u': check_int(c, o, 4); break;
    case 'U': check_int(c, o, 8); break;
    case 'I':
        if (o->kind != PTX_OPD_IMM)
            ERR(c, o->loc, "'%s' expects an integer constant here", ptx_op_name(in->op));
        break;
    case 'A': check_address(c, in, o); break;
    case 'M': check_memval(c, in, o, type_for(in, '0'), r); break;
    case 'L': check_label(c, in, o); break;
    default: break; /* X: opcode-specific */
    }
}

/* ---- opcode-specific rules ---- */

/* mov.v2/.v4: element by element between vector operands. */
static void check_mov_vector(checker *c, const ptx_instr *in, ptx_type t)
{
    uint32_t n = in->mod[PTX_CAT_VEC] == PTX_VEC_V2 ? 2 : in->mod[PTX_CAT_VEC] == PTX_VEC_V4 ? 4 : 0;
    /* what ptxas takes: 16- to 64-bit integers, f32 and f64, at most 128 bits */
    char cls = ptx_type_class(t);
    uint32_t size = ptx_type_size(t);
    bool ok_type = (cls == 'B' || cls == 'U' || cls == 'S' || t == PTX_TYPE_F32 || t == PTX_TYPE_F64) &&
                   size >= 2 && size <= 8 && t != PTX_TYPE_F16X2 && t != PTX_TYPE_BF16X2 && t != PTX_TYPE_U16X2 &&
                   t != PTX_TYPE_S16X2;
    if (!n || !ok_type || n * size > 16) {
        ERR(c, in->loc, "mov takes .v2 or .v4 of 16- to 64-bit integers, .f32 or .f64, at most 128 bits");
        return;
    }
    for (uint32_t k = 0; k < 2; k++) {
        const ptx_operand *o = &in->opds[k];
        if (o->kind != PTX_OPD_VEC || o->nelems != n) {
            ERR(c, o->loc, ".v%u needs a vector operand of %u elements", n, n);
            continue;
        }
        for (uint32_t i = 0; i < n; i++)
            check_value(c, &o->elems[i], t, k == 0 ? DST : SRC, false);
    }
}

static void check_mov(checker *c, const ptx_instr *in)
{
    ptx_type t = type_for(in, '0');
    const ptx_operand *d = &in->opds[0], *a = &in->opds[1];
    uint32_t size = ptx_type_size(t);
    if (in->mod[PTX_CAT_VEC]) {
        check_mov_vector(c, in, t);
        return;
    }
    /* mov.b64 d, {a,b} packs; mov.b64 {a,b}, d unpacks: elements split the size. */
    if (d->kind == PTX_OPD_VEC || a->kind == PTX_OPD_VEC) {
        const ptx_operand *v = d->kind == PTX_OPD_VEC ? d : a, *s = v == d ? a : d;
        if (d->kind == PTX_OPD_VEC && a->kind == PTX_OPD_VEC) {
            ERR(c, a->loc, "mov cannot have vector operands on both sides");
            return;
        }
        if (v->nelems < 2 || size % v->nelems) {
            ERR(c, v->loc, "cannot split .%s into %u parts", ptx_type_name(t), v->nelems);
            return;
        }
        uint32_t part = size / v->nelems;
        ptx_type pt = part == 1 ? PTX_TYPE_B8 : part == 2 ? PTX_TYPE_B16 : part == 4 ? PTX_TYPE_B32
                                                                                      : PTX_TYPE_B64;
        for (uint32_t i = 0; i < v->nelems; i++)
            check_value(c, &v->elems[i], pt, v == d ? DST : SRC, false);
        check_value(c, s, t, s == d ? DST : SRC, false);
        return;
    }
    check_value(c, d, t, DST, false);
    if (a->kind == PTX_OPD_NAME && (a->func || (a->var && a->var->space != PTX_SP_REG))) {
        if (size != 4 && size != 8)
            ERR(c, a->loc, "the address of '%s' needs a 32- or 64-bit mov", a->name);
    } else if (a->kind == PTX_OPD_NAME && a->label >= 0) {
        ERR(c, a->loc, "'%s' is a label; mov cannot take its address", a->name);
    } else {
        check_value(c, a, t, SRC, false);
    }
}

static void check_cvta(checker *c, const ptx_instr *in)
{
    const ptx_operand *a = &in->opds[1];
    ptx_type t = type_for(in, '0');
    if (ptx_type_size(t) != 4 && ptx_type_size(t) != 8)
        ERR(c, in->loc, "cvta needs .u32 or .u64");
    if (!in->mod[PTX_CAT_SPACE])
        ERR(c, in->loc, "cvta needs a state space (.global, .shared, .local, .const, .param)");
    if (a->kind == PTX_OPD_NAME && a->var && a->var->space != PTX_SP_REG)
        return; /* cvta.space d, var: address of a variable */
    check_value(c, a, t, SRC, false);
}

static void check_call(checker *c, const ptx_instr *in)
{
    uint32_t i = 0, nrets = 0, nargs = 0;
    const ptx_operand *o = in->opds;
    if (i < in->nopds && o[i].kind == PTX_OPD_LIST)
        nrets = o[i++].nelems;
    if (i == in->nopds || o[i].kind != PTX_OPD_NAME) {
        ERR(c, in->loc, "call needs a function name or a register holding its address");
        return;
    }
    const ptx_operand *target = &o[i++];
    if (i < in->nopds && o[i].kind == PTX_OPD_LIST)
        nargs = o[i++].nelems;
    const ptx_operand *proto = i < in->nopds ? &o[i++] : NULL;
    if (i < in->nopds) {
        ERR(c, o[i].loc, "unexpected operand in call");
        return;
    }
    for (uint32_t k = 0; k < in->nopds; k++)
        if (o[k].kind == PTX_OPD_LIST)
            for (uint32_t e = 0; e < o[k].nelems; e++) {
                const ptx_operand *x = &o[k].elems[e];
                if (x->kind == PTX_OPD_NAME && (x->func || x->label >= 0))
                    ERR(c, x->loc, "'%s' cannot be a call argument", x->name);
            }
    const ptx_func *f = target->func;
    if (target->var) {
        if (!proto)
            ERR(c, target->loc, "an indirect call needs a .callprototype or .calltargets label");
        else if (proto->kind != PTX_OPD_NAME || proto->label < 0)
            ERR(c, proto->loc, "expected a .callprototype or .calltargets label");
        else if (c->func->body[proto->label].kind == PTX_STMT_PROTOTYPE)
            f = c->func->body[proto->label].proto;
        check_int(c, target, ptx_type_size(target->var->type));
    } else if (!f) {
        if (target->label >= 0)
            ERR(c, target->loc, "'%s' is a label, not a function", target->name);
        return;
    }
    if (!f)
        return;
    if (nargs != f->nparams)
        ERR(c, target->loc, "'%s' takes %u arguments, %u given", f->name, f->nparams, nargs);
    if (nrets != f->nrets)
        ERR(c, target->loc, "'%s' returns %u values, %u received", f->name, f->nrets, nrets);
}

/* cp.async.bulk: the completion mechanism fixes the direction and what the
 * operands after [dst], [src], size are:
 *   .mbarrier::complete_tx::bytes  into shared memory: [mbar]
 *                                  {, ctaMask (.multicast)} {, policy (.L2::cache_hint)}
 *   .bulk_group                    shared::cta to global: {policy} {, byteMask (.cp_mask)} */
static void check_cp_async_bulk(checker *c, const ptx_instr *in)
{
    uint8_t dst = in->mod[PTX_CAT_SPACE], src = in->mod[PTX_CAT_SPACE2];
    bool to_shared = dst == PTX_SPACE_SHARED_CLUSTER || dst == PTX_SPACE_SHARED_CTA;
    bool hint = in->mod[PTX_CAT_L2] == PTX_L2_CACHE_HINT;
    bool multicast = in->flags & PTX_FLAG_BIT(MULTICAST), mask = in->flags & PTX_FLAG_BIT(CP_MASK);
    uint32_t k = 3, want;
    if (in->mod[PTX_CAT_L2] && !hint)
        ERR(c, in->loc, "cp.async.bulk takes only .L2::cache_hint");
    switch (in->mod[PTX_CAT_COMPLETION]) {
    case PTX_COMPLETION_MBARRIER_TX:
        if (!to_shared || (src != PTX_SPACE_GLOBAL && src != PTX_SPACE_SHARED_CTA))
            ERR(c, in->loc, "cp.async.bulk with .mbarrier::complete_tx::bytes copies .global or "
                            ".shared::cta into .shared::cluster or .shared::cta");
        if (mask || (src != PTX_SPACE_GLOBAL && (multicast || hint)))
            ERR(c, in->loc, "modifier not valid for this cp.async.bulk direction");
        want = 4 + multicast + hint;
        if (in->nopds == want) {
            check_operand(c, in, &in->opds[k++], 'A', SRC);
            if (multicast)
                check_value(c, &in->opds[k++], PTX_TYPE_U16, SRC, false);
        }
        break;
    case PTX_COMPLETION_BULK_GROUP:
        if (dst != PTX_SPACE_GLOBAL || src != PTX_SPACE_SHARED_CTA)
            ERR(c, in->loc, "cp.async.bulk with .bulk_group copies .shared::cta into .global");
        if (multicast)
            ERR(c, in->loc, ".multicast::cluster needs .mbarrier::complete_tx::bytes");
        want = 3 + hint + mask;
        break;
    default:
        ERR(c, in->loc, "cp.async.bulk needs a completion mechanism (.mbarrier::complete_tx::bytes or "
                        ".bulk_group)");
        return;
    }
    if (in->nopds != want) {
        ERR(c, in->loc, "this cp.async.bulk takes %u operands, %u given", want, in->nopds);
        return;
    }
    if (hint)
        check_operand(c, in, &in->opds[k++], 'U', SRC);
    if (mask)
        check_value(c, &in->opds[k++], PTX_TYPE_U16, SRC, false);
}

/* cp.reduce.async.bulk: the .redOp/.type pairs ptxas 13 accepts for sm_90.
 * Into .shared::cluster only 32-bit operations (and .add.u64); into .global
 * also 64-bit ones, f32/f64 add, f16/bf16 add (.noftz) and min/max. */
static bool bulk_reduce_form_ok(uint8_t red, ptx_type t, bool global)
{
    bool b32 = t == PTX_TYPE_B32, u32 = t == PTX_TYPE_U32, s32 = t == PTX_TYPE_S32;
    bool half = t == PTX_TYPE_F16 || t == PTX_TYPE_BF16;
    switch (red) {
    case PTX_RED_AND: case PTX_RED_OR: case PTX_RED_XOR:
        return b32 || (global && t == PTX_TYPE_B64);
    case PTX_RED_INC: case PTX_RED_DEC:
        return u32;
    case PTX_RED_ADD:
        return u32 || s32 || t == PTX_TYPE_U64 ||
               (global && (t == PTX_TYPE_F32 || t == PTX_TYPE_F64 || half));
    case PTX_RED_MIN: case PTX_RED_MAX:
        return u32 || s32 || (global && (t == PTX_TYPE_U64 || t == PTX_TYPE_S64 || half));
    default:
        return false;
    }
}

/* cp.reduce.async.bulk.dst.src.completion{.L2::cache_hint}.redOp{.noftz}.type
 *   .shared::cluster.shared::cta.mbarrier::complete_tx::bytes  [dst], [src], size, [mbar]
 *   .global.shared::cta.bulk_group{.L2::cache_hint}              [dst], [src], size{, policy}
 * .noftz goes with .add on f16/bf16 and nothing else. */
static void check_cp_reduce_bulk(checker *c, const ptx_instr *in)
{
    uint8_t dst = in->mod[PTX_CAT_SPACE], red = in->mod[PTX_CAT_RED];
    bool hint = in->mod[PTX_CAT_L2] == PTX_L2_CACHE_HINT, global = dst == PTX_SPACE_GLOBAL;
    bool noftz = in->flags & PTX_FLAG_BIT(NOFTZ);
    ptx_type t = in->ntypes == 1 ? (ptx_type)in->types[0] : PTX_TYPE_NONE;
    bool half = t == PTX_TYPE_F16 || t == PTX_TYPE_BF16;
    uint32_t want;
    if (in->mod[PTX_CAT_SPACE2] != PTX_SPACE_SHARED_CTA)
        ERR(c, in->loc, "cp.reduce.async.bulk reads .shared::cta");
    switch (in->mod[PTX_CAT_COMPLETION]) {
    case PTX_COMPLETION_MBARRIER_TX:
        if (dst != PTX_SPACE_SHARED_CLUSTER || in->mod[PTX_CAT_L2])
            ERR(c, in->loc, "cp.reduce.async.bulk with .mbarrier::complete_tx::bytes writes "
                            ".shared::cluster and takes no cache hint");
        want = 4;
        break;
    case PTX_COMPLETION_BULK_GROUP:
        if (!global || (in->mod[PTX_CAT_L2] && !hint))
            ERR(c, in->loc, "cp.reduce.async.bulk with .bulk_group writes .global "
                            "{.L2::cache_hint}");
        want = 3 + hint;
        break;
    default:
        ERR(c, in->loc, "cp.reduce.async.bulk needs a completion mechanism "
                        "(.mbarrier::complete_tx::bytes or .bulk_group)");
        return;
    }
    if (!t || !red)
        ERR(c, in->loc, "cp.reduce.async.bulk needs one reduction operation and one type");
    else if (!bulk_reduce_form_ok(red, t, global) || noftz != (red == PTX_RED_ADD && half))
        ERR(c, in->loc, "'cp.reduce.async.bulk.%s%s.%s' is not defined into %s", ptx_mod_text(PTX_CAT_RED, red),
            noftz ? ".noftz" : "", ptx_type_name(t), global ? ".global" : ".shared::cluster");
    if (in->nopds != want) {
        ERR(c, in->loc, "this cp.reduce.async.bulk takes %u operands, %u given", want, in->nopds);
        return;
    }
    if (want == 4)
        check_operand(c, in, &in->opds[3], hint ? 'U' : 'A', SRC);
}

/* cp.async.bulk.prefetch.L2.global{.L2::cache_hint} [src], size{, policy} */
static void check_bulk_prefetch(checker *c, const ptx_instr *in)
{
    bool hint = in->mod[PTX_CAT_L2] == PTX_L2_CACHE_HINT;
    if (in->mod[PTX_CAT_LEVEL] != PTX_LEVEL_L2 || in->mod[PTX_CAT_SPACE] != PTX_SPACE_GLOBAL ||
        in->mod[PTX_CAT_SPACE2] || (in->mod[PTX_CAT_L2] && !hint))
        ERR(c, in->loc, "expected cp.async.bulk.prefetch.L2.global{.L2::cache_hint}");
    else if (in->nopds != 2u + hint)
        ERR(c, in->loc, "this cp.async.bulk.prefetch takes %u operands, %u given", 2u + hint, in->nopds);
}

/* createpolicy (sm_80), the ISA's three forms:
 *   createpolicy.fractional.L2::primary{.L2::secondary}.b64 d{, fraction};
 *   createpolicy.range{.global}.L2::primary{.L2::secondary}.b64 d, [a], primary-size, total-size;
 *   createpolicy.cvt.L2.b64 d, access-property;
 * primary: evict_last, evict_normal, evict_first, evict_unchanged;
 * secondary: evict_first, evict_unchanged; fraction in (0, 1]. */
static void check_createpolicy(checker *c, const ptx_instr *in)
{
    uint8_t mode = in->mod[PTX_CAT_MODE], l2 = in->mod[PTX_CAT_L2], second = in->mod[PTX_CAT_L2B];
    uint8_t space = in->mod[PTX_CAT_SPACE];
    if (in->types[0] != PTX_TYPE_B64 || in->ntypes != 1) {
        ERR(c, in->loc, "createpolicy makes a .b64 cache policy");
        return;
    }
    if (mode == PTX_MODE_CVT) {
        if (in->mod[PTX_CAT_LEVEL] != PTX_LEVEL_L2 || l2 || space)
            ERR(c, in->loc, "expected createpolicy.cvt.L2.b64");
        else if (in->nopds != 2)
            ERR(c, in->loc, "createpolicy.cvt takes 2 operands, %u given", in->nopds);
        else
            check_operand(c, in, &in->opds[1], 'U', SRC);
        return;
    }
    if ((mode != PTX_MODE_FRACTIONAL && mode != PTX_MODE_RANGE) || in->mod[PTX_CAT_LEVEL]) {
        ERR(c, in->loc, "expected createpolicy.fractional, createpolicy.range or createpolicy.cvt.L2");
        return;
    }
    bool primary_ok = l2 == PTX_L2_EVICT_LAST || l2 == PTX_L2_EVICT_NORMAL || l2 == PTX_L2_EVICT_FIRST ||
                      l2 == PTX_L2_EVICT_UNCHANGED;
    if (!primary_ok || (second && second != PTX_L2_EVICT_FIRST && second != PTX_L2_EVICT_UNCHANGED)) {
        ERR(c, in->loc, "createpolicy takes a primary priority (.L2::evict_last, _normal, _first or "
                        "_unchanged), then optionally .L2::evict_first or .L2::evict_unchanged");
        return;
    }
    if (mode == PTX_MODE_RANGE) {
        if (space && space != PTX_SPACE_GLOBAL)
            ERR(c, in->loc, "createpolicy.range applies to .global addresses");
        else if (in->nopds != 4)
            ERR(c, in->loc, "createpolicy.range takes 4 operands, %u given", in->nopds);
        else
            for (uint32_t k = 1; k < 4; k++)
                check_operand(c, in, &in->opds[k], "Auu"[k - 1], SRC);
        return;
    }
    if (space || in->nopds > 2) {
        ERR(c, in->loc, "expected createpolicy.fractional...b64 d{, fraction}");
        return;
    }
    if (in->nopds < 2)
        return; /* fraction 1.0 */
    const ptx_operand *f = &in->opds[1];
    if (f->kind != PTX_OPD_F32 && f->kind != PTX_OPD_F64) {
        check_value(c, f, PTX_TYPE_F32, SRC, false);
        return;
    }
    double v = f->kind == PTX_OPD_F64 ? (union { uint64_t u; double d; }){f->imm}.d
                                      : (union { uint32_t u; float f; }){(uint32_t)f->imm}.f;
    if (!(v > 0.0 && v <= 1.0))
        ERR(c, f->loc, "the fraction of createpolicy must be in (0, 1]");
}

/* setmaxnreg.{inc,dec}.sync.aligned.u32 n: n in [24, 256], a multiple of 8. */
static void check_setmaxnreg(checker *c, const ptx_instr *in)
{
    uint8_t dir = in->mod[PTX_CAT_RED];
    const ptx_operand *n = &in->opds[0];
    if ((dir != PTX_RED_INC && dir != PTX_RED_DEC) || in->ntypes != 1 || in->types[0] != PTX_TYPE_U32 ||
        !(in->flags & PTX_FLAG_BIT(SYNC)) || !(in->flags & PTX_FLAG_BIT(ALIGNED)))
        ERR(c, in->loc, "expected setmaxnreg.inc.sync.aligned.u32 or setmaxnreg.dec.sync.aligned.u32");
    else if (n->imm < 24 || n->imm > 256 || n->imm % 8)
        ERR(c, n->loc, "setmaxnreg's register count must be a multiple of 8 in [24, 256]");
}

/* ---- scalar video instructions ---- */

static bool is_scalar_video(ptx_opcode op)
{
    switch (op) {
    case PTX_OP_VADD: case PTX_OP_VSUB: case PTX_OP_VABSDIFF: case PTX_OP_VMIN: case PTX_OP_VMAX:
    case PTX_OP_VSHL: case PTX_OP_VSHR: case PTX_OP_VMAD: case PTX_OP_VSET: return true;
    default: return false;
    }
}

static bool is_simd_video(ptx_opcode op)
{
    switch (op) {
    case PTX_OP_VADD2: case PTX_OP_VADD4: case PTX_OP_VSUB2: case PTX_OP_VSUB4:
    case PTX_OP_VAVRG2: case PTX_OP_VAVRG4: case PTX_OP_VABSDIFF2: case PTX_OP_VABSDIFF4:
    case PTX_OP_VMIN2: case PTX_OP_VMIN4: case PTX_OP_VMAX2: case PTX_OP_VMAX4:
    case PTX_OP_VSET2: case PTX_OP_VSET4: return true;
    default: return false;
    }
}

/* Selectors (%r.b0) belong to the scalar video instructions' d, a and b;
 * '-' to vmad's sources.  Elsewhere they are errors, as in ptxas, except
 * the SIMD forms' masks (vadd4 d.b0), which are valid but not done. */
static void check_operand_marks(checker *c, const ptx_instr *in)
{
    bool video = is_scalar_video(in->op);
    if (is_simd_video(in->op) && in->mod[PTX_CAT_RED] && in->mod[PTX_CAT_RED] != PTX_RED_ADD)
        ERR(c, in->loc, "'%s' takes only the .add secondary operation", ptx_op_name(in->op));
    uint8_t cmp = in->mod[PTX_CAT_CMP];
    if ((in->op == PTX_OP_VSET2 || in->op == PTX_OP_VSET4) && (cmp < PTX_CMP_EQ || cmp > PTX_CMP_GE))
        ERR(c, in->loc, "'%s' needs one of .eq, .ne, .lt, .le, .gt, .ge", ptx_op_name(in->op));
    for (uint32_t i = 0; i < in->nopds; i++) {
        const ptx_operand *o = &in->opds[i];
        if (o->vsel && is_simd_video(in->op))
            ERR(c, o->loc, "SIMD video masks and selectors are not supported yet");
        else if (o->vsel && (!video || i > 2))
            ERR(c, o->loc, "operand selector not allowed %s of '%s'",
                video ? "on operand c" : "on operands", ptx_op_name(in->op));
        if (o->minus && (in->op != PTX_OP_VMAD || i == 0))
            ERR(c, o->loc, "operand negation '-' not allowed here (only on vmad's sources)");
    }
}

/* vop.dtype.atype.btype{.sat}{.op2} d{.dsel}, a{.asel}, b{.bsel}{, c};
 * vset.atype.btype.cmp{.op2} likewise; vshl/vshr take a .u32 shift amount
 * and one of .clamp/.wrap; vmad takes no .op2 or d selector, and negates
 * a*b or c, not both, never with .po (ptxas agrees on each refusal). */
static void check_video(checker *c, const ptx_instr *in)
{
    const char *name = ptx_op_name(in->op);
    uint8_t op2 = in->mod[PTX_CAT_RED];
    const ptx_operand *o = in->opds;
    unsigned nt = in->op == PTX_OP_VSET ? 2 : 3;
    bool types_ok = in->ntypes == nt;
    for (unsigned k = 0; k < in->ntypes; k++)
        types_ok &= in->types[k] == PTX_TYPE_U32 || in->types[k] == PTX_TYPE_S32;
    bool shift = in->op == PTX_OP_VSHL || in->op == PTX_OP_VSHR;
    bool wrap = in->flags & PTX_FLAG_BIT(WRAP), clamp = in->flags & PTX_FLAG_BIT(CLAMP);
    uint8_t cmp = in->mod[PTX_CAT_CMP];
    if (!types_ok)
        ERR(c, in->loc, "'%s' takes %s types, each .u32 or .s32", name, nt == 2 ? "two (.atype.btype)" : "three (.dtype.atype.btype)");
    else if (shift && in->types[2] != PTX_TYPE_U32)
        ERR(c, in->loc, "'%s' takes a .u32 shift amount (btype)", name);
    else if (shift && wrap == clamp)
        ERR(c, in->loc, "'%s' needs exactly one of .clamp and .wrap", name);
    else if (in->op == PTX_OP_VSET && (cmp < PTX_CMP_EQ || cmp > PTX_CMP_GE))
        ERR(c, in->loc, "'vset' needs one of .eq, .ne, .lt, .le, .gt, .ge");
    else if (op2 && op2 != PTX_RED_ADD && op2 != PTX_RED_MIN && op2 != PTX_RED_MAX)
        ERR(c, in->loc, "'.%s' is not a secondary operation of '%s' (.add, .min or .max)",
            ptx_mod_text(PTX_CAT_RED, op2), name);
    else if (op2 && in->nopds != 4)
        ERR(c, in->loc, "'%s.%s' needs the third source operand c", name, ptx_mod_text(PTX_CAT_RED, op2));
    else if (o[0].vsel && in->op == PTX_OP_VMAD)
        ERR(c, o[0].loc, "'vmad' takes no destination selector");
    else if (o[0].vsel && (op2 || in->nopds != 4))
        ERR(c, o[0].loc, "a destination selector needs the merge form (operand c, no secondary operation)");
    else if (in->mod[PTX_CAT_MODE] && in->mod[PTX_CAT_MODE] != PTX_MODE_PO)
        ERR(c, in->loc, "'.%s' is not a mode of 'vmad'", ptx_mod_text(PTX_CAT_MODE, in->mod[PTX_CAT_MODE]));
    else if (in->op == PTX_OP_VMAD && (o[1].minus || o[2].minus || o[3].minus) && in->mod[PTX_CAT_MODE])
        ERR(c, in->loc, "'vmad.po' takes no negated operands");
    else if (in->op == PTX_OP_VMAD && (o[1].minus != o[2].minus) && o[3].minus)
        ERR(c, in->loc, "'vmad' negates a*b or c, not both");
}

/* ---- memory-model qualifiers ---- */

/* ld/st: the ISA's forms (ptxas agrees):
 *   ld{.weak}{.ss}{.cop}...   ld.volatile{.ss}{.L2::prefetch}...
 *   ld.relaxed.scope / ld.acquire.scope{.ss}{.L1/.L2 hints}...
 *   ld.mmio.relaxed.sys{.global}.type (no vector)
 * and st likewise with .release.  .volatile, .relaxed, .acquire and
 * .release apply to .global and .shared (or generic addresses); .mmio to
 * .global; none of them takes a cache operator or .nc. */
static void check_ld_st(checker *c, const ptx_instr *in)
{
    const char *op = ptx_op_name(in->op);
    uint8_t sem = in->mod[PTX_CAT_SEM], scope = in->mod[PTX_CAT_SCOPE], sp = in->mod[PTX_CAT_SPACE];
    bool mmio = in->flags & PTX_FLAG_BIT(MMIO);
    bool ordered = sem == PTX_SEM_RELAXED || sem == (in->op == PTX_OP_ST ? PTX_SEM_RELEASE : PTX_SEM_ACQUIRE);
    bool strong = ordered || sem == PTX_SEM_VOLATILE || mmio;
    bool data_space = !sp || sp == PTX_SPACE_GLOBAL || sp == PTX_SPACE_SHARED || sp == PTX_SPACE_SHARED_CTA ||
                      sp == PTX_SPACE_SHARED_CLUSTER;
    if (sem && sem != PTX_SEM_WEAK && sem != PTX_SEM_VOLATILE && !ordered)
        ERR(c, in->loc, "'.%s' is not a memory order of '%s'", ptx_mod_text(PTX_CAT_SEM, sem), op);
    else if (ordered && !scope)
        ERR(c, in->loc, "'%s.%s' needs a scope (.cta, .cluster, .gpu or .sys)", op, ptx_mod_text(PTX_CAT_SEM, sem));
    else if (scope && !ordered)
        ERR(c, in->loc, "a scope on '%s' needs .relaxed or .%s", op, in->op == PTX_OP_ST ? "release" : "acquire");
    else if (scope == PTX_SCOPE_GL)
        ERR(c, in->loc, "'.gl' is not a scope of '%s'", op);
    else if (strong && !data_space)
        ERR(c, in->loc, "'%s.%s' is only defined on .global and .shared (or generic addresses)", op,
            mmio ? "mmio" : ptx_mod_text(PTX_CAT_SEM, sem));
    else if (strong && (in->mod[PTX_CAT_CACHE] || (in->flags & PTX_FLAG_BIT(NC))))
        ERR(c, in->loc, "'%s.%s' takes no cache operator or .nc", op, mmio ? "mmio" : ptx_mod_text(PTX_CAT_SEM, sem));
    else if (sem == PTX_SEM_VOLATILE && (in->mod[PTX_CAT_L1] || in->mod[PTX_CAT_L2]))
        ERR(c, in->loc, "'%s.volatile' takes no eviction priority or cache hint", op);
    else if (mmio && (sem != PTX_SEM_RELAXED || scope != PTX_SCOPE_SYS))
        ERR(c, in->loc, "'.mmio' needs '.relaxed.sys'");
    else if (mmio && ((sp && sp != PTX_SPACE_GLOBAL) || in->mod[PTX_CAT_VEC]))
        ERR(c, in->loc, "'%s.mmio' is a scalar access to .global (or a generic address)", op);
}

/* fence{.sem}.scope (a scope is required); membar.{cta,gl,sys}. */
static void check_fence(checker *c, const ptx_instr *in)
{
    uint8_t scope = in->mod[PTX_CAT_SCOPE];
    if (in->op == PTX_OP_MEMBAR && scope != PTX_SCOPE_CTA && scope != PTX_SCOPE_GL && scope != PTX_SCOPE_SYS)
        ERR(c, in->loc, "membar needs .cta, .gl or .sys");
    else if (in->op == PTX_OP_FENCE && (!scope || scope == PTX_SCOPE_GL))
        ERR(c, in->loc, "fence needs a scope (.cta, .cluster, .gpu or .sys)");
}

/* ---- instructions ---- */

/* atom and red with .L2::cache_hint end with a .b64 cache policy, where
 * the shape table has cas's third value (atom) or nothing checked (red);
 * atom.cas takes none (ptxas agrees).  False after an error. */
static bool policy_operand(checker *c, const ptx_instr *in, char *codes, uint32_t n)
{
    bool hint = in->mod[PTX_CAT_L2] == PTX_L2_CACHE_HINT;
    if (!hint || (in->op != PTX_OP_ATOM && in->op != PTX_OP_RED))
        return true;
    if (in->mod[PTX_CAT_RED] == PTX_RED_CAS) {
        ERR(c, in->loc, "atom.cas takes no .L2::cache_hint");
        return false;
    }
    if (in->nopds < 2 || in->nopds > n) {
        ERR(c, in->loc, "'%s' with .L2::cache_hint takes its operands and a cache policy", ptx_op_name(in->op));
        return false;
    }
    codes[in->nopds - 1] = 'U';
    return true;
}

static void check_shape(checker *c, const ptx_instr *in)
{
    const char *shape = ptx_op_shape(in->op);
    char codes[16];
    bool optional[16];
    uint32_t n = 0, required = 0;
    for (const char *s = shape; *s && n < 16; s++) {
        if (*s == ',')
            continue;
        codes[n] = *s;
        optional[n] = s[1] == '?';
        required += !optional[n];
        n++;
        if (s[1] == '?')
            s++;
    }
    if (in->nopds < required || in->nopds > n) {
        if (required == n)
            ERR(c, in->loc, "'%s' takes %u operands, %u given", ptx_op_name(in->op), n, in->nopds);
        else
            ERR(c, in->loc, "'%s' takes %u to %u operands, %u given", ptx_op_name(in->op),
                required, n, in->nopds);
        return;
    }
    if (!policy_operand(c, in, codes, n))
        return;
    for (uint32_t k = 0; k < n; k++)
        if (codes[k] >= '0' && codes[k] <= '2' && (uint32_t)(codes[k] - '0') >= in->ntypes) {
            ERR(c, in->loc, "'%s' needs %u type modifier%s (e.g. .u32)", ptx_op_name(in->op),
                codes[k] - '0' + 1, codes[k] == '0' ? "" : "s");
            return;
        }
    if (in->op == PTX_OP_MOV && in->ntypes == 0) {
        ERR(c, in->loc, "'mov' needs a type modifier (e.g. .u32)");
        return;
    }
    uint32_t extra = in->nopds - required, i = 0;
    bool first_is_dst = !(ptx_op_effects(in->op) & (E_BRANCH | E_CALL)) && in->op != PTX_OP_ST &&
                        in->op != PTX_OP_RED && in->nopds > 0 && codes[0] != 'A' &&
                        codes[0] != 'P' && codes[0] != 'I';
    for (uint32_t k = 0; k < n; k++) {
        if (optional[k]) {
            if (!extra)
                continue;
            extra--;
        }
        check_operand(c, in, &in->opds[i], codes[k], i == 0 && first_is_dst ? DST : SRC);
        i++;
    }
}

/* A whole vector register (`.reg .v4 .f32 w;` used as `w`) where the ISA
 * takes a vector operand stands for its components {w.x, w.y, w.z, w.w}. */
static void expand_vector_reg(checker *c, ptx_operand *o)
{
    if (!check_is_reg(o) || !o->var->vec || o->comp || o->has_offset || o->neg)
        return;
    uint32_t n = o->var->vec;
    ptx_operand *e = arena_alloc(c->m->arena, n * sizeof *e);
    if (!e) {
        ERR(c, o->loc, "out of memory while checking");
        return;
    }
    for (uint32_t k = 0; k < n; k++) {
        e[k] = *o;
        e[k].comp = (uint8_t)(k + 1);
    }
    ptx_loc loc = o->loc;
    memset(o, 0, sizeof *o);
    *o = (ptx_operand){.kind = PTX_OPD_VEC, .loc = loc, .label = -1, .elems = e, .nelems = n};
}

static void expand_vector_regs(checker *c, ptx_instr *in)
{
    if (in->op == PTX_OP_MOV) { /* mov.v2 v, w; mov.b64 d, v packs; mov.b64 v, d unpacks */
        uint32_t size = in->ntypes ? ptx_type_size((ptx_type)in->types[0]) : 0;
        for (uint32_t i = 0; i < in->nopds && i < 2; i++) {
            const ptx_operand *o = &in->opds[i];
            if (in->mod[PTX_CAT_VEC] || (check_is_reg(o) && o->var->vec * ptx_type_size(o->var->type) == size))
                expand_vector_reg(c, &in->opds[i]);
        }
    } else if ((in->op == PTX_OP_LD || in->op == PTX_OP_LDU) && in->mod[PTX_CAT_VEC] && in->nopds) {
        expand_vector_reg(c, &in->opds[0]);
    } else if (in->op == PTX_OP_ST && in->mod[PTX_CAT_VEC] && in->nopds > 1) {
        expand_vector_reg(c, &in->opds[1]);
    }
}

/* cvt.pack.sat.{u16,s16}.s32 d, a, b; cvt.pack.sat.{u8,s8}.s32.b32 d, a, b, c */
static void check_cvt_pack(checker *c, const ptx_instr *in)
{
    ptx_type ct = (ptx_type)in->types[0];
    bool half = ct == PTX_TYPE_U16 || ct == PTX_TYPE_S16, byte = ct == PTX_TYPE_U8 || ct == PTX_TYPE_S8;
    if (!(in->flags & PTX_FLAG_BIT(SAT)))
        ERR(c, in->loc, "cvt.pack needs .sat");
    if ((!half && !byte) || in->ntypes < 2 || in->types[1] != PTX_TYPE_S32 || in->ntypes != (half ? 2 : 3) ||
        (byte && in->types[2] != PTX_TYPE_B32))
        ERR(c, in->loc, "cvt.pack takes .u16/.s16 with .s32, or .u8/.s8 with .s32.b32");
    else if (in->nopds != (half ? 3u : 4u))
        ERR(c, in->loc, "cvt.pack.sat.%s takes %u operands", ptx_type_name(ct), half ? 3 : 4);
    check_value(c, &in->opds[0], PTX_TYPE_B32, DST, true);
    if (in->nopds == 4)
        check_value(c, &in->opds[3], PTX_TYPE_B32, SRC, true);
}

/* .s4 .u4 .b1 are element types of the matrix products only. */
static void check_subbyte_types(checker *c, const ptx_instr *in)
{
    bool matrix = in->op == PTX_OP_MMA || in->op == PTX_OP_WMMA_LOAD || in->op == PTX_OP_WMMA_MMA ||
                  in->op == PTX_OP_WMMA_STORE;
    for (uint32_t i = 0; i < in->ntypes && !matrix; i++)
        if (!ptx_type_size((ptx_type)in->types[i])) {
            ERR(c, in->loc, ".%s is only an element type of mma and wmma", ptx_type_name((ptx_type)in->types[i]));
            return;
        }
}

static void check_instr(checker *c, ptx_instr *in)
{
    uint32_t before = c->errors;
    if (in->has_guard) {
        resolve_operand(c, &in->guard);
        if (c->errors == before)
            check_pred(c, &in->guard, SRC);
    }
    for (uint32_t i = 0; i < in->nopds; i++)
        resolve_operand(c, &in->opds[i]);
    if (c->errors != before)
        return; /* one report per instruction for undeclared names */
    expand_vector_regs(c, in);
    check_subbyte_types(c, in);
    if (c->errors != before)
        return;
    check_shape(c, in);
    check_operand_marks(c, in);
    if (c->errors != before)
        return;
    if (is_scalar_video(in->op))
        check_video(c, in);
    else if (in->op == PTX_OP_MOV)
        check_mov(c, in);
    else if (in->op == PTX_OP_CVTA)
        check_cvta(c, in);
    else if (in->op == PTX_OP_CALL)
        check_call(c, in);
    else if (in->op == PTX_OP_CP_ASYNC_BULK)
        check_cp_async_bulk(c, in);
    else if (in->op == PTX_OP_CP_ASYNC_BULK_PREFETCH)
        check_bulk_prefetch(c, in);
    else if (in->op == PTX_OP_CP_REDUCE_ASYNC_BULK)
        check_cp_reduce_bulk(c, in);
    else if (in->op == PTX_OP_LD || in->op == PTX_OP_ST)
        check_ld_st(c, in);
    else if (in->op == PTX_OP_FENCE || in->op == PTX_OP_MEMBAR)
        check_fence(c, in);
    else if (in->op == PTX_OP_CREATEPOLICY)
        check_createpolicy(c, in);
    else if (in->op == PTX_OP_SETMAXNREG)
        check_setmaxnreg(c, in);
    else if (in->op == PTX_OP_CVT_PACK)
        check_cvt_pack(c, in);
    else if (in->op == PTX_OP_WMMA_LOAD || in->op == PTX_OP_WMMA_STORE || in->op == PTX_OP_WMMA_MMA)
        check_wmma(c, in);
    else if (!check_matrix(c, in))
        check_texture(c, in);
    check_forms(c, in);
}

/* ---- declarations ---- */

/* What a device holds: ptxas refuses constant data beyond the 64 KiB
 * constant bank, and no .global variable may be larger than 4 GiB here
 * (its storage is allocated when the module loads). */
#define CONST_BANK_BYTES (64ull << 10)
#define GLOBAL_VAR_BYTES (4ull << 30)

/* Bytes of a module-scope variable's storage; false when that overflows. */
static bool var_bytes(const ptx_var *v, uint64_t *bytes)
{
    uint64_t n = ptx_type_size(v->type) * (v->vec ? v->vec : 1);
    for (uint32_t i = 0; i < v->ndims; i++)
        if (v->dims[i] && __builtin_mul_overflow(n, v->dims[i], &n))
            return false;
    *bytes = n;
    return true;
}

static void check_var_size(checker *c, const ptx_var *v)
{
    const char *space = v->space == PTX_SP_CONST ? ".const" : ".global";
    uint64_t max = v->space == PTX_SP_CONST ? CONST_BANK_BYTES : GLOBAL_VAR_BYTES, n;
    if (!var_bytes(v, &n))
        ERR(c, v->loc, "%s variable '%s' is too large (over 2^64 bytes; at most %llu)", space,
            v->name, (unsigned long long)max);
    else if (n > max)
        ERR(c, v->loc, "%s variable '%s' is too large (%llu bytes; at most %llu)", space, v->name,
            (unsigned long long)n, (unsigned long long)max);
}

static void check_var_decl(checker *c, const ptx_var *v, bool module_scope)
{
    if (v->space == PTX_SP_REG) {
        if (v->ndims)
            ERR(c, v->loc, "registers cannot be arrays");
        if (v->init)
            ERR(c, v->loc, "registers cannot have initializers");
        if (module_scope)
            ERR(c, v->loc, ".reg variables must be declared inside a function");
    } else if (v->nreg) {
        ERR(c, v->loc, "only registers can use the %s<N> form", v->name);
    }
    else if (v->init && v->space != PTX_SP_GLOBAL && v->space != PTX_SP_CONST)
        ERR(c, v->loc, "only .global and .const variables can have initializers");
    if (v->init && (v->linkage & PTX_LINK_EXTERN))
        ERR(c, v->loc, "an .extern variable cannot have an initializer");
    if (!ptx_type_size(v->type))
        ERR(c, v->loc, "'%s': .%s is only an element type of mma and wmma", v->name,
            ptx_type_name(v->type));
    if (v->type == PTX_TYPE_PRED && v->space != PTX_SP_REG)
        ERR(c, v->loc, ".pred variables must be registers");
    if (v->vec && v->vec * ptx_type_size(v->type) > 16)
        ERR(c, v->loc, "'%s': a vector type of more than 128 bits", v->name);
    for (uint32_t i = 1; i < v->ndims; i++)
        if (!v->dims[i])
            ERR(c, v->loc, "only the first array dimension may be unsized");
    if (module_scope && (v->space == PTX_SP_GLOBAL || v->space == PTX_SP_CONST))
        check_var_size(c, v);
}

/* ptxas rejects a float initializer for an integer variable and the
 * reverse; addresses need an integer type wide enough for a pointer. */
static void check_init_value(checker *c, const ptx_var *v, const ptx_init *in)
{
    char cls = ptx_type_class(v->type);
    uint32_t size = ptx_type_size(v->type);
    bool ok = true;
    switch (in->kind) {
    case PTX_INIT_INT: ok = is_intlike(cls); break;
    case PTX_INIT_F32:
    case PTX_INIT_F64: ok = cls == 'F' || cls == 'B'; break;
    case PTX_INIT_MASK: ok = is_intlike(cls); break;
    default: ok = is_intlike(cls) && (size == 4 || size == 8); break;
    }
    if (!ok)
        ERR(c, in->loc, "initializer value does not match the type .%s of '%s'",
            ptx_type_name(v->type), v->name);
    if (in->sym && !symtab_find(&c->globals, in->sym, strlen(in->sym)))
        ERR(c, in->loc, "use of undeclared identifier '%s' in initializer", in->sym);
}

/* Walks nested braces against the array dimensions, then the vector. */
static void check_init(checker *c, const ptx_var *v, const ptx_init *in, uint32_t dim)
{
    bool vec_level = dim == v->ndims && v->vec;
    if (in->kind != PTX_INIT_LIST) {
        if (dim < v->ndims || vec_level)
            ERR(c, in->loc, "'%s' needs a braced initializer", v->name);
        else
            check_init_value(c, v, in);
        return;
    }
    if (dim >= v->ndims + (v->vec ? 1 : 0)) {
        ERR(c, in->loc, "too many braces in the initializer of '%s'", v->name);
        return;
    }
    uint64_t limit = vec_level ? v->vec : v->dims[dim];
    if (limit && in->nelems > limit)
        ERR(c, in->loc, "%u initializers for %llu elements of '%s'", in->nelems,
            (unsigned long long)limit, v->name);
    for (uint32_t i = 0; i < in->nelems; i++)
        check_init(c, v, in->elems[i], dim + 1);
}

static void declare(checker *c, symtab *t, const char *name, sym_kind k, void *decl,
                    ptx_loc loc, int32_t label)
{
    const sym *prev = symtab_add(t, name, k, decl, label);
    if (prev)
        ERR(c, loc, "redefinition of '%s'", name);
}

static void declare_labels(checker *c, ptx_func *f)
{
    for (uint32_t i = 0; i < f->nbody; i++) {
        ptx_stmt *s = &f->body[i];
        if (s->kind == PTX_STMT_LABEL || s->kind == PTX_STMT_PROTOTYPE ||
            s->kind == PTX_STMT_BRANCHTARGETS || s->kind == PTX_STMT_CALLTARGETS)
            declare(c, &c->labels, s->name, SYM_LABEL, s, s->loc, (int32_t)i);
    }
}

static void check_targets(checker *c, ptx_stmt *s)
{
    for (uint32_t i = 0; i < s->ntargets; i++) {
        ptx_operand *o = &s->targets[i];
        resolve_operand(c, o);
        bool ok = s->kind == PTX_STMT_BRANCHTARGETS
                      ? o->label >= 0 && c->func->body[o->label].kind == PTX_STMT_LABEL
                      : o->func != NULL;
        if (!ok && (o->var || o->func || o->label >= 0))
            ERR(c, o->loc, "'%s' is not a %s", o->name,
                s->kind == PTX_STMT_BRANCHTARGETS ? "code label" : "function");
    }
}

static void check_body(checker *c, ptx_func *f)
{
    c->func = f;
    symtab_init(&c->locals);
    symtab_init(&c->labels);
    for (uint32_t i = 0; i < f->nrets; i++)
        declare(c, &c->locals, f->rets[i]->name, SYM_VAR, f->rets[i], f->rets[i]->loc, -1);
    for (uint32_t i = 0; i < f->nparams; i++)
        declare(c, &c->locals, f->params[i]->name, SYM_VAR, f->params[i], f->params[i]->loc, -1);
    symtab_push(&c->locals);
    declare_labels(c, f);
    for (uint32_t i = 0; i < f->nbody; i++) {
        ptx_stmt *s = &f->body[i];
        switch (s->kind) {
        case PTX_STMT_SCOPE_BEGIN: symtab_push(&c->locals); break;
        case PTX_STMT_SCOPE_END: symtab_pop(&c->locals); break;
        case PTX_STMT_VAR:
            check_var_decl(c, s->var, false);
            declare(c, &c->locals, s->var->name, SYM_VAR, s->var, s->var->loc, -1);
            break;
        case PTX_STMT_INSTR: check_instr(c, s->instr); break;
        case PTX_STMT_BRANCHTARGETS:
        case PTX_STMT_CALLTARGETS: check_targets(c, s); break;
        default: break;
        }
    }
    symtab_free(&c->locals);
    symtab_free(&c->labels);
    c->func = NULL;
}

static bool same_signature(const ptx_func *a, const ptx_func *b)
{
    if (a->is_entry != b->is_entry || a->nparams != b->nparams || a->nrets != b->nrets)
        return false;
    for (uint32_t i = 0; i < a->nparams; i++)
        if (a->params[i]->type != b->params[i]->type ||
            a->params[i]->space != b->params[i]->space)
            return false;
    return true;
}

/* A function may be declared (prototype) before it is defined, once. */
static void declare_func(checker *c, ptx_func *f)
{
    const sym *prev = symtab_find(&c->globals, f->name, strlen(f->name));
    if (prev && prev->kind == SYM_FUNC) {
        ptx_func *p = prev->decl;
        if (!same_signature(p, f))
            ERR(c, f->loc, "'%s' redeclared with a different signature", f->name);
        else if (p->has_body && f->has_body)
            ERR(c, f->loc, "redefinition of '%s'", f->name);
        else if (f->has_body)
            ((sym *)prev)->decl = f; /* calls resolve to the definition */
        return;
    }
    declare(c, &c->globals, f->name, SYM_FUNC, f, f->loc, -1);
}

uint32_t ptx_check(ptx_module *m, ptx_diags *diags)
{
    checker c = {.m = m, .diags = diags};
    symtab_init(&c.globals);
    if (!m->version_major)
        ERR(&c, ((ptx_loc){1, 1}), "missing .version directive");
    if (!m->sm)
        ERR(&c, ((ptx_loc){1, 1}), "missing .target directive (e.g. .target sm_80)");
    for (uint32_t i = 0; i < m->nitems; i++) {
        ptx_item *it = &m->items[i];
        if (it->kind == PTX_ITEM_VAR) {
            check_var_decl(&c, it->var, true);
            if (it->var->init && !check_ref_init(&c, it->var))
                check_init(&c, it->var, it->var->init, 0);
            declare(&c, &c.globals, it->var->name, SYM_VAR, it->var, it->var->loc, -1);
        } else if (it->kind == PTX_ITEM_FUNC) {
            declare_func(&c, it->func);
            if (it->func->has_body)
                check_body(&c, it->func);
        }
    }
    if (c.globals.oom)
        ERR(&c, ((ptx_loc){1, 1}), "out of memory while checking");
    symtab_free(&c.globals);
    return c.errors;
}
