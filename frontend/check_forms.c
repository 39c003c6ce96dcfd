/* check_forms.c - type and target rules of ordinary instructions that the
 * opcode table cannot say: the forms ptxas refuses although every
 * modifier and type on them exists (each rule as ptxas 13 applies it). */
#include "check_internal.h"

static bool is_int(ptx_type t)
{
    char k = ptx_type_class(t);
    return k == 'U' || k == 'S';
}

static bool is_x2(ptx_type t) { return t == PTX_TYPE_U16X2 || t == PTX_TYPE_S16X2; }

/* cvt.sat between integers where every source value fits the destination
 * (cvt.sat.s64.s16, cvt.sat.u32.u8, same types): ptxas refuses the .sat. */
static bool sat_is_moot(ptx_type d, ptx_type s)
{
    uint32_t db = ptx_type_size(d), sb = ptx_type_size(s);
    bool ds = ptx_type_class(d) == 'S', ss = ptx_type_class(s) == 'S';
    if (ds)
        return ss ? sb <= db : sb < db;
    return !ss && sb <= db;
}

static bool is_8bit_int(ptx_type t) { return t == PTX_TYPE_S8 || t == PTX_TYPE_U8; }

/* cvt's float forms ptxas refuses: .sat into bf16 and the packed x2 types
 * (.satfinite is theirs), bf16 to or from 8-bit integers, .satfinite tf32
 * rounded other than .rna before sm_100. */
static void check_cvt_float(checker *c, const ptx_instr *in, ptx_type d, ptx_type s)
{
    if ((in->flags & PTX_FLAG_BIT(SAT)) &&
        (d == PTX_TYPE_BF16 || d == PTX_TYPE_BF16X2 || d == PTX_TYPE_F16X2))
        ERR(c, in->loc, "cvt.sat does not apply to .%s (use .satfinite)", ptx_type_name(d));
    else if ((d == PTX_TYPE_BF16 && is_8bit_int(s)) || (s == PTX_TYPE_BF16 && is_8bit_int(d)))
        ERR(c, in->loc, "cvt has no .%s.%s form", ptx_type_name(d), ptx_type_name(s));
    else if (d == PTX_TYPE_TF32 && (in->flags & PTX_FLAG_BIT(SATFINITE)) && in->mod[PTX_CAT_ROUND] != PTX_ROUND_RNA &&
             c->m->sm < 100)
        ERR(c, in->loc, "cvt.%s.satfinite.tf32 needs .target sm_100 or higher", ptx_mod_text(PTX_CAT_ROUND,
            in->mod[PTX_CAT_ROUND]));
}

void check_forms(checker *c, const ptx_instr *in)
{
    ptx_type t = in->ntypes ? (ptx_type)in->types[0] : PTX_TYPE_COUNT;
    const char *op = ptx_op_name(in->op);
    switch (in->op) {
    case PTX_OP_CNOT:
        if (t != PTX_TYPE_B16 && t != PTX_TYPE_B32 && t != PTX_TYPE_B64)
            ERR(c, in->loc, "cnot takes .b16, .b32 or .b64, not .%s", ptx_type_name(t));
        break;
    case PTX_OP_ADD:
    case PTX_OP_MIN:
    case PTX_OP_MAX: {
        bool relu = in->flags & PTX_FLAG_BIT(RELU);
        if (is_x2(t) && (in->flags & PTX_FLAG_BIT(SAT)))
            ERR(c, in->loc, "%s.sat does not apply to .%s", op, ptx_type_name(t));
        else if (relu && is_int(t) && t != PTX_TYPE_S32 && t != PTX_TYPE_S16X2)
            ERR(c, in->loc, "%s.relu takes .s32 or .s16x2 among the integer types, not .%s", op,
                ptx_type_name(t));
        else if ((is_x2(t) || (relu && is_int(t))) && c->m->sm < 90)
            ERR(c, in->loc, "%s%s.%s needs .target sm_90 or higher", op, relu ? ".relu" : "", ptx_type_name(t));
        else if (in->op != PTX_OP_ADD && in->nopds == 4 && t != PTX_TYPE_F32)
            ERR(c, in->loc, "%s takes three sources only as .f32", op);
        else if (in->op != PTX_OP_ADD && in->nopds == 4 && c->m->sm < 100)
            ERR(c, in->loc, "%s.f32 with three sources needs .target sm_100 or higher", op);
        break;
    }
    case PTX_OP_SETP:
        if (in->nopds && in->opds[0].kind == PTX_OPD_PAIR && (t == PTX_TYPE_F16 || t == PTX_TYPE_BF16))
            ERR(c, in->loc, "setp.%s has one destination predicate (p|q is for .%sx2)", ptx_type_name(t),
                ptx_type_name(t));
        break;
    case PTX_OP_CVT:
        if (in->ntypes == 2)
            check_cvt_float(c, in, t, (ptx_type)in->types[1]);
        if ((in->flags & PTX_FLAG_BIT(SAT)) && in->ntypes == 2 && is_int(t) && is_int((ptx_type)in->types[1]) &&
            sat_is_moot(t, (ptx_type)in->types[1]))
            ERR(c, in->loc, "cvt.sat.%s.%s: every .%s value fits, .sat does not apply", ptx_type_name(t),
                ptx_type_name((ptx_type)in->types[1]), ptx_type_name((ptx_type)in->types[1]));
        break;
    case PTX_OP_SUB:
    case PTX_OP_MUL:
    case PTX_OP_MAD:
    case PTX_OP_DIV:
    case PTX_OP_REM:
    case PTX_OP_ABS:
    case PTX_OP_NEG:
        if (is_x2(t))
            ERR(c, in->loc, "%s does not take .%s (only add, min and max do)", op, ptx_type_name(t));
        break;
    default:
        break;
    }
}
