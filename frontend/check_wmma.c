/* check_wmma.c - the forms of wmma.load, wmma.store and wmma.mma that ptxas
 * takes (PTX ISA 9.7.14.4): shape, fragment, type and layout combinations,
 * state spaces, and fragment operands of the right register count and
 * type (wmma.c has the geometry). */
#include "check_internal.h"

static bool is_sub_byte(ptx_type t) { return t == PTX_TYPE_S4 || t == PTX_TYPE_U4 || t == PTX_TYPE_B1; }

/* {r0, ..., rn-1}: a brace list of f's registers. */
static void check_fragment(checker *c, const ptx_operand *o, const ptx_wmma_fragment *f, role r, char name)
{
    if (o->kind != PTX_OPD_VEC || o->nelems != f->nregs) {
        ERR(c, o->loc, "wmma fragment %c of .%s is a vector of %u register%s", name, ptx_type_name(f->type), f->nregs,
            f->nregs == 1 ? "" : "s");
        return;
    }
    for (uint32_t i = 0; i < o->nelems; i++)
        check_value(c, &o->elems[i], f->reg_type, r, false);
}

static bool common_ok(checker *c, const ptx_instr *in)
{
    uint32_t need = PTX_FLAG_BIT(SYNC) | PTX_FLAG_BIT(ALIGNED);
    if ((in->flags & need) != need) {
        ERR(c, in->loc, "'%s' needs .sync.aligned", ptx_op_name(in->op));
        return false;
    }
    uint32_t m, n, k;
    if (!ptx_wmma_dims(in->mod[PTX_CAT_SHAPE], &m, &n, &k)) {
        ERR(c, in->loc, "'%s' needs a shape (.m16n16k16, .m32n8k16, .m8n32k16, .m16n16k8, .m8n8k4, .m8n8k32, .m8n8k128)",
            ptx_op_name(in->op));
        return false;
    }
    return true;
}

/* wmma.load.{a,b,c} and wmma.store.d: layout, space, type, operand. */
static void check_move(checker *c, const ptx_instr *in)
{
    bool load = in->op == PTX_OP_WMMA_LOAD;
    uint8_t frag = in->mod[PTX_CAT_FRAG], space = in->mod[PTX_CAT_SPACE];
    if (load ? !frag || frag == PTX_FRAG_D : frag != PTX_FRAG_D) {
        ERR(c, in->loc, load ? "wmma.load takes .a, .b or .c" : "wmma.store takes .d");
        return;
    }
    if (!in->mod[PTX_CAT_LAYOUT] || in->mod[PTX_CAT_LAYOUT2]) {
        ERR(c, in->loc, "'%s' takes one layout, .row or .col", ptx_op_name(in->op));
        return;
    }
    if (space && space != PTX_SPACE_GLOBAL && space != PTX_SPACE_SHARED && space != PTX_SPACE_SHARED_CTA) {
        ERR(c, in->loc, "'%s' accesses .global or .shared{::cta} (or a generic address)", ptx_op_name(in->op));
        return;
    }
    ptx_wmma_fragment f;
    ptx_type t = in->ntypes == 1 ? (ptx_type)in->types[0] : PTX_TYPE_NONE;
    if (!ptx_wmma_frag(in->mod[PTX_CAT_SHAPE], frag, t, &f)) {
        ERR(c, in->loc, "'%s' has no .%s fragment .%s of this shape", ptx_op_name(in->op),
            ptx_mod_text(PTX_CAT_FRAG, frag), t ? ptx_type_name(t) : "(type)");
        return;
    }
    uint8_t want = frag == PTX_FRAG_A ? PTX_LAYOUT_ROW : PTX_LAYOUT_COL;
    if (is_sub_byte(t) && frag != PTX_FRAG_C && in->mod[PTX_CAT_LAYOUT] != want) {
        ERR(c, in->loc, "sub-byte fragment %s is .%s only", frag == PTX_FRAG_A ? "a" : "b", ptx_mod_text(PTX_CAT_LAYOUT, want));
        return;
    }
    check_fragment(c, &in->opds[load ? 0 : 1], &f, load ? DST : SRC, load ? *ptx_mod_text(PTX_CAT_FRAG, frag) : 'd');
}

/* The element types of wmma.mma's d, a, b, c: .dtype.ctype with f16
 * multiplicands, else .dtype.atype.btype.ctype. */
static bool mma_types(checker *c, const ptx_instr *in, ptx_type t[4])
{
    if (in->ntypes == 2) {
        t[0] = (ptx_type)in->types[0], t[3] = (ptx_type)in->types[1];
        t[1] = t[2] = PTX_TYPE_F16;
        if ((t[0] == PTX_TYPE_F16 || t[0] == PTX_TYPE_F32) && (t[3] == PTX_TYPE_F16 || t[3] == PTX_TYPE_F32))
            return true;
    } else if (in->ntypes == 4) {
        for (int i = 0; i < 4; i++)
            t[i] = (ptx_type)in->types[i];
        /* the multiplicands share one type, the accumulators another */
        if (t[1] == t[2] && t[0] == t[3] && t[1] != PTX_TYPE_F16)
            return true;
    }
    ERR(c, in->loc, "wmma.mma takes .dtype.ctype (f16 inputs) or .dtype.atype.btype.ctype");
    return false;
}

static void check_mma(checker *c, const ptx_instr *in)
{
    if (!in->mod[PTX_CAT_LAYOUT2]) {
        ERR(c, in->loc, "wmma.mma needs the layouts of a and b (e.g. .row.col)");
        return;
    }
    ptx_type t[4];
    if (!mma_types(c, in, t))
        return;
    uint8_t shape = in->mod[PTX_CAT_SHAPE];
    static const uint8_t frags[4] = {PTX_FRAG_D, PTX_FRAG_A, PTX_FRAG_B, PTX_FRAG_C};
    ptx_wmma_fragment f[4];
    for (int i = 0; i < 4; i++)
        if (!ptx_wmma_frag(shape, frags[i], t[i], &f[i])) {
            ERR(c, in->loc, "wmma.mma of this shape takes no .%s %c", ptx_type_name(t[i]), "dabc"[i]);
            return;
        }
    bool integer = t[1] == PTX_TYPE_S8 || t[1] == PTX_TYPE_U8 || t[1] == PTX_TYPE_S4 || t[1] == PTX_TYPE_U4;
    bool bits = t[1] == PTX_TYPE_B1;
    if ((in->flags & PTX_FLAG_BIT(SATFINITE)) && !integer)
        ERR(c, in->loc, "wmma.mma takes .satfinite with s8/u8/s4/u4 multiplicands only");
    else if (in->mod[PTX_CAT_ROUND] && (t[1] != PTX_TYPE_F64 || in->mod[PTX_CAT_ROUND] > PTX_ROUND_RP))
        ERR(c, in->loc, "wmma.mma takes a rounding mode (.rn, .rz, .rm, .rp) with .f64 only");
    else if (bits != (in->mod[PTX_CAT_BOOL] != 0) || bits != (in->mod[PTX_CAT_RED] == PTX_RED_POPC) ||
             (bits && in->mod[PTX_CAT_BOOL] == PTX_BOOL_OR))
        ERR(c, in->loc, "wmma.mma takes .xor.popc or .and.popc with .b1 multiplicands, and only there");
    else if ((integer || bits) && shape != PTX_SHAPE_M16N16K16 && shape != PTX_SHAPE_M32N8K16 &&
             shape != PTX_SHAPE_M8N32K16 &&
             (in->mod[PTX_CAT_LAYOUT] != PTX_LAYOUT_ROW || in->mod[PTX_CAT_LAYOUT2] != PTX_LAYOUT_COL))
        ERR(c, in->loc, "sub-byte wmma.mma is .row.col only");
    else
        for (int i = 0; i < 4; i++)
            check_fragment(c, &in->opds[i], &f[i], i == 0 ? DST : SRC, "dabc"[i]);
}

void check_wmma(checker *c, const ptx_instr *in)
{
    if (!common_ok(c, in))
        return;
    if (in->op == PTX_OP_WMMA_MMA)
        check_mma(c, in);
    else
        check_move(c, in);
}
