/* check_mma.c - rules of the warp matrix instructions: mma.sync, ldmatrix,
 * stmatrix, movmatrix (what ptxas takes for sm_90; wmma is elsewhere). */
#include "check_internal.h"

/* .sync and .aligned: ptxas requires both on every form here. */
static bool check_sync_aligned(checker *c, const ptx_instr *in)
{
    uint32_t need = PTX_FLAG_BIT(SYNC) | PTX_FLAG_BIT(ALIGNED);
    if ((in->flags & need) == need)
        return true;
    ERR(c, in->loc, "'%s' needs .sync.aligned", ptx_op_name(in->op));
    return false;
}

/* Whether a register of type rt may hold a fragment register of elements
 * of type et (ptxas: packed halves in .b32 or .f16x2/.bf16x2, f32 in .f32
 * or .b32, f64 in 64-bit registers, b16 pairs of the matrix moves in any
 * 32-bit register, everything else in 32-bit integers). */
static bool reg_holds(ptx_type rt, ptx_type et)
{
    char cls = ptx_type_class(rt);
    uint32_t size = ptx_type_size(rt);
    switch (et) {
    case PTX_TYPE_F16: return rt == PTX_TYPE_B32 || rt == PTX_TYPE_F16X2;
    case PTX_TYPE_BF16: return rt == PTX_TYPE_B32 || rt == PTX_TYPE_BF16X2;
    case PTX_TYPE_F32: return rt == PTX_TYPE_B32 || rt == PTX_TYPE_F32;
    case PTX_TYPE_F64: return size == 8 && (cls == 'B' || cls == 'U' || cls == 'S' || rt == PTX_TYPE_F64);
    case PTX_TYPE_B16: return size == 4; /* ldmatrix, stmatrix, movmatrix: any 32-bit register */
    default: return size == 4 && (cls == 'B' || cls == 'U' || cls == 'S');
    }
}

/* How an operand lists its registers. */
typedef enum frag_form {
    FRAG_BRACED,    /* {r0, r1, ...}, even for one register */
    FRAG_CONSTANTS, /* braced, constants allowed (mma's C) */
    FRAG_BARE,      /* one register, no braces (movmatrix) */
} frag_form;

/* n registers each able to hold elements of type et. */
static void check_fragment(checker *c, const ptx_instr *in, const ptx_operand *o, unsigned n, ptx_type et,
                           frag_form form, const char *what)
{
    bool braced = o->kind == PTX_OPD_VEC;
    if (braced != (form != FRAG_BARE)) {
        ERR(c, o->loc, "%s of '%s' %s", what, ptx_op_name(in->op),
            braced ? "is one register, without braces" : "is a braced list of registers");
        return;
    }
    const ptx_operand *e = braced ? o->elems : o;
    unsigned got = braced ? o->nelems : 1;
    if (got != n) {
        ERR(c, o->loc, "%s of '%s' is %u register%s, not %u", what, ptx_op_name(in->op), n, n == 1 ? "" : "s",
            got);
        return;
    }
    for (unsigned i = 0; i < n; i++) {
        const ptx_operand *x = &e[i];
        bool constant = x->kind == PTX_OPD_IMM || x->kind == PTX_OPD_F32 || x->kind == PTX_OPD_F64;
        if (constant && form == FRAG_CONSTANTS)
            continue;
        if (!check_is_reg(x) || x->var->vec || x->has_offset || x->neg) {
            ERR(c, x->loc, "%s of '%s' must be %s", what, ptx_op_name(in->op),
                form == FRAG_CONSTANTS ? "registers or constants" : "registers");
            return;
        }
        if (!reg_holds(x->var->type, et)) {
            ERR(c, x->loc, "a .%s register cannot hold .%s elements of %s", ptx_type_name(x->var->type),
                ptx_type_name(et), what);
            return;
        }
    }
}

static void check_mma(checker *c, const ptx_instr *in)
{
    if (!check_sync_aligned(c, in))
        return;
    ptx_mma_form f;
    const char *why = ptx_mma_form_of(in, &f);
    if (why && f.m && f.d)
        ERR(c, in->loc, "%s (mma.%s with .%s.%s.%s.%s)", why, ptx_mod_text(PTX_CAT_SHAPE, in->mod[PTX_CAT_SHAPE]),
            ptx_type_name(f.d), ptx_type_name(f.a), ptx_type_name(f.b), ptx_type_name(f.c));
    else if (why)
        ERR(c, in->loc, "%s", why);
    if (why)
        return;
    unsigned need_sm = f.a != PTX_TYPE_F64 ? 0 : f.m == 8 ? 80 : 90; /* ptxas: the f64 tensor cores */
    if (c->m->sm && c->m->sm < need_sm) {
        ERR(c, in->loc, "mma.%s with .f64 needs .target sm_%u or higher",
            ptx_mod_text(PTX_CAT_SHAPE, in->mod[PTX_CAT_SHAPE]), need_sm);
        return;
    }
    if (in->nopds != 4) {
        ERR(c, in->loc, "'mma' takes 4 operands (D, A, B, C), %u given", in->nopds);
        return;
    }
    static const char *const what[4] = {"operand A", "operand B", "operand C", "operand D"};
    static const uint8_t opd[4] = {1, 2, 3, 0};
    ptx_type t[4] = {f.a, f.b, f.c, f.d};
    for (int w = 0; w < 4; w++)
        check_fragment(c, in, &in->opds[opd[w]], f.nregs[w], t[w], w == 2 ? FRAG_CONSTANTS : FRAG_BRACED, what[w]);
}

/* ldmatrix/stmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}.shared{::cta}.b16 */
static void check_ldst_matrix(checker *c, const ptx_instr *in)
{
    if (!check_sync_aligned(c, in))
        return;
    uint8_t num = in->mod[PTX_CAT_NUM], sp = in->mod[PTX_CAT_SPACE];
    if (in->mod[PTX_CAT_SHAPE] != PTX_SHAPE_M8N8 || !num || in->ntypes != 1 || in->types[0] != PTX_TYPE_B16) {
        ERR(c, in->loc, "'%s' takes .m8n8, one of .x1/.x2/.x4 and .b16", ptx_op_name(in->op));
        return;
    }
    if (sp && sp != PTX_SPACE_SHARED && sp != PTX_SPACE_SHARED_CTA) {
        ERR(c, in->loc, "'%s' accesses .shared memory only", ptx_op_name(in->op));
        return;
    }
    unsigned n = num == PTX_NUM_X1 ? 1 : num == PTX_NUM_X2 ? 2 : 4;
    bool ld = in->op == PTX_OP_LDMATRIX;
    check_fragment(c, in, &in->opds[ld ? 0 : 1], n, PTX_TYPE_B16, FRAG_BRACED, "the matrix");
}

/* movmatrix.sync.aligned.m8n8.trans.b16 d, a */
static void check_movmatrix(checker *c, const ptx_instr *in)
{
    if (!check_sync_aligned(c, in))
        return;
    if (in->mod[PTX_CAT_SHAPE] != PTX_SHAPE_M8N8 || !(in->flags & PTX_FLAG_BIT(TRANS)) || in->ntypes != 1 ||
        in->types[0] != PTX_TYPE_B16) {
        ERR(c, in->loc, "movmatrix takes .m8n8.trans.b16");
        return;
    }
    check_fragment(c, in, &in->opds[0], 1, PTX_TYPE_B16, FRAG_BARE, "the destination");
    check_fragment(c, in, &in->opds[1], 1, PTX_TYPE_B16, FRAG_BARE, "the source");
}

bool check_matrix(checker *c, const ptx_instr *in)
{
    switch (in->op) {
    case PTX_OP_MMA: check_mma(c, in); return true;
    case PTX_OP_LDMATRIX:
    case PTX_OP_STMATRIX: check_ldst_matrix(c, in); return true;
    case PTX_OP_MOVMATRIX: check_movmatrix(c, in); return true;
    default: return false;
    }
}
