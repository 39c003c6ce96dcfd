/* parse_instr.c - instructions: guard, opcode (compound names matched
 * longest-first), modifiers sorted into categories, and operands. */
#include "parse.h"

#include <string.h>

static ptx_operand *new_elems(parser *p, ptx_operand *tmp, uint32_t n)
{
    ptx_operand *v = palloc(p, n * sizeof *v);
    if (v)
        memcpy(v, tmp, n * sizeof *v);
    return v;
}

/* Glued ".x" component after a register: %tid.x, %v.w */
static uint8_t parse_component(parser *p)
{
    const token *t = peek(p);
    if (t->kind != T_DOT || t->space_before || t->len != 1)
        return 0;
    const char *c = strchr("xyzwrgba", t->text[0]);
    if (!c)
        return 0;
    next_tok(p);
    return (uint8_t)((c - "xyzwrgba") % 4 + 1);
}

/* Glued scalar video selector after a register: %r2.b0 .. .b3, .h0, .h1.
 * The checker allows it only where the video instructions take it. */
static bool parse_video_sel(parser *p, ptx_operand *o)
{
    const token *t = peek(p);
    if (t->kind != T_DOT || t->space_before || t->len != 2 || (t->text[0] != 'b' && t->text[0] != 'h') ||
        t->text[1] < '0' || t->text[1] > '9')
        return true;
    unsigned k = (unsigned)(t->text[1] - '0');
    if (k > (t->text[0] == 'b' ? 3u : 1u)) {
        perr(p, t, "unknown operand selector '.%.2s' (expected .b0 to .b3, .h0 or .h1)", t->text);
        return false;
    }
    next_tok(p);
    o->vsel = (uint8_t)(t->text[0] == 'b' ? PTX_VSEL_B0 + k : PTX_VSEL_H0 + k);
    return true;
}

static bool parse_name_operand(parser *p, ptx_operand *o)
{
    const token *t = next_tok(p);
    if (tok_is(t, T_IDENT, "_")) {
        o->kind = PTX_OPD_SINK;
        return true;
    }
    uint32_t index;
    ptx_sreg r = t->text[0] == '%' ? ptx_sreg_lookup(t->text, t->len, &index) : PTX_SREG_NONE;
    if (r != PTX_SREG_NONE) {
        o->kind = PTX_OPD_SREG;
        o->sreg = (uint16_t)r;
        o->sreg_index = index;
        o->comp = parse_component(p);
        if (ptx_sreg_has_comp(r) && !o->comp) {
            perr(p, t, "special register %s needs a component (.x, .y or .z)", ptx_sreg_name(r));
            return false;
        }
        if (!ptx_sreg_has_comp(r) && o->comp) {
            perr(p, t, "special register %s has no components", ptx_sreg_name(r));
            return false;
        }
        return true;
    }
    o->kind = PTX_OPD_NAME;
    o->name = pstr(p, t);
    o->comp = parse_component(p);
    return o->comp || parse_video_sel(p, o);
}

/* The rest of [tex, {c}] or [tex, sampler, {c}] after the first name:
 * texture, sampler or surface handles, then the coordinate vector. */
static bool parse_tex_address(parser *p, ptx_operand *o)
{
    if (!o->nelems) { /* [+imm, ...]: no handle to take */
        perr(p, peek(p), "expected a texture or surface handle");
        return false;
    }
    ptx_operand tmp[3] = {o->elems[0]};
    uint32_t n = 1;
    if (o->imm) {
        perr(p, peek(p), "a texture or surface operand takes no offset");
        return false;
    }
    while (accept_punct(p, ',')) {
        if (n == 3) {
            perr(p, peek(p), "too many texture address operands (at most [tex, sampler, {coords}])");
            return false;
        }
        memset(&tmp[n], 0, sizeof tmp[n]);
        if (!parse_operand(p, &tmp[n++], false))
            return false;
    }
    if (tmp[n - 1].kind != PTX_OPD_VEC) {
        perr(p, peek(p), "a texture or surface address ends with a coordinate vector {..}");
        return false;
    }
    o->kind = PTX_OPD_TEXADDR;
    o->nelems = n;
    return (o->elems = new_elems(p, tmp, n)) != NULL && expect_punct(p, ']', "address");
}

/* [base], [base+off], [base+-off], [off] */
static bool parse_address(parser *p, ptx_operand *o)
{
    next_tok(p); /* [ */
    o->kind = PTX_OPD_ADDR;
    if (peek(p)->kind == T_IDENT) {
        ptx_operand base = {.loc = peek(p)->loc, .label = -1};
        if (!parse_name_operand(p, &base))
            return false;
        if (base.kind == PTX_OPD_SINK) {
            perr(p, peek(p), "'_' cannot be an address");
            return false;
        }
        if (!(o->elems = new_elems(p, &base, 1)))
            return false;
        o->nelems = 1;
        if (is_punct(peek(p), '+') || is_punct(peek(p), '-')) {
            bool minus = is_punct(next_tok(p), '-');
            uint64_t off;
            if (!parse_int_const(p, &off, "address offset"))
                return false;
            o->imm = minus ? 0 - off : off;
        }
    } else if (!parse_int_const(p, &o->imm, "address")) {
        return false;
    }
    if (is_punct(peek(p), ','))
        return parse_tex_address(p, o);
    return expect_punct(p, ']', "address");
}

/* reg + imm, var + imm as a value: ptxas takes them outside vectors and
 * argument lists (the checker decides for which types). */
static bool parse_name_offset(parser *p, ptx_operand *o)
{
    next_tok(p); /* + */
    o->has_offset = true;
    return parse_int_const(p, &o->imm, "operand offset");
}

/* {a, b, ...} or (a, b, ...) */
static bool parse_group(parser *p, ptx_operand *o, char close, bool in_call)
{
    ptx_operand tmp[16];
    uint32_t n = 0;
    const token *open = next_tok(p);
    if (++p->depth > PARSE_MAX_DEPTH) {
        perr(p, open, "operands nested too deeply");
        return false;
    }
    if (!is_punct(peek(p), close))
        do {
            if (n == 16) {
                perr(p, peek(p), "too many elements in operand list (at most 16)");
                return false;
            }
            memset(&tmp[n], 0, sizeof tmp[n]);
            const token *at = peek(p);
            if (!parse_operand(p, &tmp[n++], in_call))
                return false;
            if (tmp[n - 1].has_offset) /* reported; the group still parses */
                perr(p, at, "an operand plus an offset is not allowed inside %s", close == '}' ? "{ }" : "( )");
        } while (accept_punct(p, ','));
    p->depth--;
    if (!expect_punct(p, close, close == '}' ? "vector operand" : "argument list"))
        return false;
    o->kind = close == '}' ? PTX_OPD_VEC : PTX_OPD_LIST;
    o->nelems = n;
    return n == 0 || (o->elems = new_elems(p, tmp, n)) != NULL;
}

bool parse_operand(parser *p, ptx_operand *o, bool in_call)
{
    const token *t = peek(p);
    o->loc = t->loc;
    o->label = -1;
    if (is_punct(t, '!') && peek_at(p, 1)->kind == T_IDENT) {
        next_tok(p);
        o->neg = true;
        return parse_name_operand(p, o);
    }
    if (is_punct(t, '-') && peek_at(p, 1)->kind == T_IDENT) { /* vmad's -a */
        next_tok(p);
        o->minus = true;
        return parse_name_operand(p, o);
    }
    if (is_punct(t, '['))
        return parse_address(p, o);
    if (is_punct(t, '{')) {
        if (!parse_group(p, o, '}', in_call))
            return false;
        if (!is_punct(peek(p), '|') || peek_at(p, 1)->kind != T_IDENT)
            return true;
        /* {d...}|p: tex and tld4's texel-residency predicate */
        ptx_operand pair[2] = {*o, {.loc = peek_at(p, 1)->loc, .label = -1}};
        next_tok(p);
        if (!parse_name_operand(p, &pair[1]))
            return false;
        *o = (ptx_operand){.kind = PTX_OPD_PAIR, .loc = pair[0].loc, .label = -1, .nelems = 2};
        return (o->elems = new_elems(p, pair, 2)) != NULL;
    }
    if (in_call && is_punct(t, '('))
        return parse_group(p, o, ')', in_call);
    if (t->kind == T_IDENT && !tok_is(t, T_IDENT, "WARP_SZ")) {
        if (!parse_name_operand(p, o))
            return false;
        if (is_punct(peek(p), '+') && o->kind == PTX_OPD_NAME && !o->neg && !o->minus)
            return parse_name_offset(p, o);
        if (is_punct(peek(p), '|') && peek_at(p, 1)->kind == T_IDENT) {
            ptx_operand pair[2] = {*o, {.loc = peek_at(p, 1)->loc, .label = -1}};
            next_tok(p);
            if (!parse_name_operand(p, &pair[1]))
                return false;
            memset(o, 0, sizeof *o);
            o->kind = PTX_OPD_PAIR;
            o->loc = pair[0].loc;
            o->label = -1;
            o->nelems = 2;
            return (o->elems = new_elems(p, pair, 2)) != NULL;
        }
        return true;
    }
    cval v;
    if (!parse_const(p, &v))
        return false;
    o->kind = v.kind == CV_INT ? PTX_OPD_IMM : v.kind == CV_F32 ? PTX_OPD_F32 : PTX_OPD_F64;
    o->imm = v.v;
    return true;
}

/* Opcode with compound names: "bar" ".warp" ".sync" -> bar.warp.sync. */
static ptx_opcode parse_opcode(parser *p)
{
    const token *t = next_tok(p);
    char name[96];
    if (t->len >= sizeof name) {
        perr(p, t, "unknown instruction '%.*s'", 40, t->text);
        return PTX_OP_NONE;
    }
    memcpy(name, t->text, t->len);
    size_t len = t->len;
    ptx_opcode best = ptx_op_lookup(name, len);
    size_t best_i = p->i;
    for (size_t k = 0;; k++) {
        const token *d = peek_at(p, k);
        if (d->kind != T_DOT || d->space_before || len + 1 + d->len >= sizeof name)
            break;
        name[len++] = '.';
        memcpy(name + len, d->text, d->len);
        len += d->len;
        ptx_opcode op = ptx_op_lookup(name, len);
        if (op) {
            best = op;
            best_i = p->i + k + 1;
        } else if (!ptx_op_is_prefix(name, len)) {
            break;
        }
    }
    if (!best) {
        perr(p, t, "unknown instruction '%.*s'", (int)(t->len > 40 ? 40 : t->len), t->text);
        return PTX_OP_NONE;
    }
    p->i = best_i;
    return best;
}

static bool record_suffix(parser *p, ptx_instr *in, const token *d, unsigned code)
{
    if (in->nsuffix == sizeof in->suffix) {
        perr(p, d, "too many modifiers");
        return false;
    }
    in->suffix[in->nsuffix++] = (uint8_t)code;
    return true;
}

static bool parse_modifier(parser *p, ptx_instr *in, const token *d)
{
    ptx_type ty = ptx_type_lookup(d->text, d->len);
    if (ty) {
        if (!record_suffix(p, in, d, PTX_SUFFIX_TYPE + ty))
            return false;
        if (in->ntypes == 4) {
            perr(p, d, "too many type modifiers");
            return false;
        }
        in->types[in->ntypes++] = (uint8_t)ty;
        return true;
    }
    ptx_modcat cat;
    uint8_t val;
    uint32_t cats = ptx_op_cats(in->op) | (ptx_op_flags(in->op) ? 1u << PTX_CAT_FLAG : 0);
    if (!ptx_mod_lookup(d->text, d->len, cats, &cat, &val)) {
        if (ptx_mod_exists(d->text, d->len))
            perr(p, d, "modifier '.%.*s' is not valid for '%s'", (int)d->len, d->text,
                 ptx_op_name(in->op));
        else
            perr(p, d, "unknown modifier '.%.*s'", (int)(d->len > 40 ? 40 : d->len), d->text);
        return false;
    }
    if (!record_suffix(p, in, d, val))
        return false;
    if (cat == PTX_CAT_FLAG) {
        uint32_t bit = 1u << (val - PTX_FLAG_FTZ);
        if (!(ptx_op_flags(in->op) & bit)) {
            perr(p, d, "modifier '.%.*s' is not valid for '%s'", (int)d->len, d->text,
                 ptx_op_name(in->op));
            return false;
        }
        if (in->flags & bit) {
            perr(p, d, "duplicate modifier '.%.*s'", (int)d->len, d->text);
            return false;
        }
        in->flags |= bit;
        return true;
    }
    if (cat == PTX_CAT_SPACE && in->mod[PTX_CAT_SPACE])
        cat = PTX_CAT_SPACE2; /* cp.async.shared.global: destination, then source */
    else if (cat == PTX_CAT_LAYOUT && in->mod[PTX_CAT_LAYOUT])
        cat = PTX_CAT_LAYOUT2; /* mma.row.col: layout of A, then of B */
    else if (cat == PTX_CAT_L2 && in->mod[PTX_CAT_L2] && in->op == PTX_OP_CREATEPOLICY)
        cat = PTX_CAT_L2B; /* createpolicy: primary, then secondary priority */
    if (in->mod[cat]) {
        perr(p, d, "conflicting modifier '.%.*s' (already .%s)", (int)d->len, d->text,
             ptx_mod_text(cat, in->mod[cat]));
        return false;
    }
    in->mod[cat] = val;
    return true;
}

/* ld/st/ldu without .v2/.v4 may still brace their one value, as Triton
 * writes them ("@%p ld.global.b32 { %r1 }, [ %rd1 + 0 ];"); ptxas takes
 * it as the scalar form, so the value is unwrapped. */
static void unwrap_scalar_braces(ptx_instr *in, ptx_operand *opds, uint32_t n)
{
    if ((in->op != PTX_OP_LD && in->op != PTX_OP_ST && in->op != PTX_OP_LDU) || in->mod[PTX_CAT_VEC])
        return;
    for (uint32_t i = 0; i < n; i++)
        if (opds[i].kind == PTX_OPD_VEC && opds[i].nelems == 1)
            opds[i] = opds[i].elems[0];
}

ptx_instr *parse_instr(parser *p)
{
    ptx_instr *in = palloc(p, sizeof *in);
    if (!in)
        return NULL;
    const token *start = peek(p);
    in->loc = start->loc;
    if (accept_punct(p, '@')) {
        const token *g = peek(p);
        in->has_guard = true;
        if (!parse_operand(p, &in->guard, false))
            return NULL;
        if (in->guard.kind != PTX_OPD_NAME) {
            perr(p, g, "a guard must be a predicate register");
            return NULL;
        }
    }
    const token *t = peek(p);
    if (t->kind != T_IDENT) {
        perr(p, t, "expected an instruction, found '%.*s'", (int)(t->len > 40 ? 40 : t->len),
             t->text);
        return NULL;
    }
    in->loc = t->loc;
    if (!(in->op = parse_opcode(p)))
        return NULL;
    while (peek(p)->kind == T_DOT && !peek(p)->space_before)
        if (!parse_modifier(p, in, next_tok(p)))
            return NULL;
    ptx_operand tmp[16];
    uint32_t n = 0;
    bool in_call = in->op == PTX_OP_CALL;
    if (!is_punct(peek(p), ';'))
        do {
            if (n == 16) {
                perr(p, peek(p), "too many operands");
                return NULL;
            }
            memset(&tmp[n], 0, sizeof tmp[n]);
            if (!parse_operand(p, &tmp[n++], in_call))
                return NULL;
        } while (accept_punct(p, ','));
    if (!expect_punct(p, ';', "instruction"))
        return NULL;
    unwrap_scalar_braces(in, tmp, n);
    in->nopds = n;
    if (n && !(in->opds = new_elems(p, tmp, n)))
        return NULL;
    return in;
}
