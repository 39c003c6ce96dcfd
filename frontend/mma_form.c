/* mma_form.c - the shapes and type combinations of mma.sync that ptxas
 * takes for sm_70..sm_90, and what each operand holds per lane.  The
 * checker refuses the others; the lowering reads the register counts. */
#include "ptx.h"

#include <string.h>

static bool is_int8(ptx_type t) { return t == PTX_TYPE_S8 || t == PTX_TYPE_U8; }
static bool is_int4(ptx_type t) { return t == PTX_TYPE_S4 || t == PTX_TYPE_U4; }
static bool is_fp8(ptx_type t) { return t == PTX_TYPE_E4M3 || t == PTX_TYPE_E5M2; }
static bool is_f16_f32(ptx_type t) { return t == PTX_TYPE_F16 || t == PTX_TYPE_F32; }

static const struct {
    uint8_t shape;
    uint16_t m, n, k;
} SHAPES[] = {
    {PTX_SHAPE_M8N8K4, 8, 8, 4},       {PTX_SHAPE_M16N8K4, 16, 8, 4},    {PTX_SHAPE_M16N8K8, 16, 8, 8},
    {PTX_SHAPE_M16N8K16, 16, 8, 16},   {PTX_SHAPE_M16N8K32, 16, 8, 32},  {PTX_SHAPE_M16N8K64, 16, 8, 64},
    {PTX_SHAPE_M16N8K128, 16, 8, 128}, {PTX_SHAPE_M16N8K256, 16, 8, 256}, {PTX_SHAPE_M8N8K16, 8, 8, 16},
    {PTX_SHAPE_M8N8K32, 8, 8, 32},     {PTX_SHAPE_M8N8K128, 8, 8, 128},
};

/* The input family a shape takes with these A and B types (both checked
 * to be of one family), or false. */
static bool shape_takes(uint16_t m, uint16_t k, ptx_type a, ptx_type b, ptx_type c, ptx_type d)
{
    bool same_ab = a == b, dc = d == c;
    if (a == PTX_TYPE_F16 && same_ab) /* m8n8k4: an f16 C makes an f16 or f32 D; else D is C */
        return m == 8 ? k == 4 && is_f16_f32(d) && is_f16_f32(c) && (c == PTX_TYPE_F16 || d == PTX_TYPE_F32)
                      : (k == 8 || k == 16) && dc && is_f16_f32(d);
    if (a == PTX_TYPE_BF16 && same_ab)
        return m == 16 && (k == 8 || k == 16) && d == PTX_TYPE_F32 && dc;
    if (a == PTX_TYPE_TF32 && same_ab)
        return m == 16 && (k == 4 || k == 8) && d == PTX_TYPE_F32 && dc;
    if (a == PTX_TYPE_F64 && same_ab)
        return d == PTX_TYPE_F64 && dc && (m == 8 ? k == 4 : k == 4 || k == 8 || k == 16);
    if (d != PTX_TYPE_S32 && !is_fp8(a))
        return false;
    if (is_int8(a) && is_int8(b))
        return dc && (m == 8 ? k == 16 : k == 16 || k == 32);
    if (is_int4(a) && is_int4(b))
        return dc && (m == 8 ? k == 32 : k == 32 || k == 64);
    if (a == PTX_TYPE_B1 && same_ab)
        return dc && (m == 8 ? k == 128 : k == 128 || k == 256);
    if (is_fp8(a) && is_fp8(b))
        return m == 16 && (k == 16 || k == 32) && dc && is_f16_f32(d);
    return false;
}

const char *ptx_mma_form_of(const ptx_instr *in, ptx_mma_form *f)
{
    memset(f, 0, sizeof *f);
    for (unsigned i = 0; i < sizeof SHAPES / sizeof SHAPES[0]; i++)
        if (SHAPES[i].shape == in->mod[PTX_CAT_SHAPE]) {
            f->m = SHAPES[i].m;
            f->n = SHAPES[i].n;
            f->k = SHAPES[i].k;
        }
    if (!f->m)
        return "mma needs a shape (.m16n8k16, .m8n8k4, ...)";
    if (in->ntypes != 4)
        return "mma takes four types: .dtype.atype.btype.ctype";
    f->d = (ptx_type)in->types[0];
    f->a = (ptx_type)in->types[1];
    f->b = (ptx_type)in->types[2];
    f->c = (ptx_type)in->types[3];
    if (!shape_takes(f->m, f->k, f->a, f->b, f->c, f->d))
        return "this shape does not take these types";
    f->quad_pairs = f->m == 8 && f->a == PTX_TYPE_F16;
    f->a_col = in->mod[PTX_CAT_LAYOUT] == PTX_LAYOUT_COL;
    f->b_col = in->mod[PTX_CAT_LAYOUT2] == PTX_LAYOUT_COL;
    if (!in->mod[PTX_CAT_LAYOUT] || !in->mod[PTX_CAT_LAYOUT2])
        return "mma needs the layouts of A and B (.row.col)";
    if (!f->quad_pairs && (f->a_col || !f->b_col))
        return "only mma.m8n8k4 with .f16 takes layouts other than .row.col";
    bool is_int = f->d == PTX_TYPE_S32;
    if ((in->flags & PTX_FLAG_BIT(SATFINITE)) && (!is_int || f->a == PTX_TYPE_B1))
        return ".satfinite is only for integer mma with .s8/.u8/.s4/.u4 inputs";
    f->satfinite = (in->flags & PTX_FLAG_BIT(SATFINITE)) != 0;
    bool bop = in->mod[PTX_CAT_BOOL] == PTX_BOOL_XOR || in->mod[PTX_CAT_BOOL] == PTX_BOOL_AND;
    if (f->a == PTX_TYPE_B1 ? !bop || in->mod[PTX_CAT_RED] != PTX_RED_POPC
                            : in->mod[PTX_CAT_BOOL] || in->mod[PTX_CAT_RED])
        return f->a == PTX_TYPE_B1 ? ".b1 mma needs .xor.popc or .and.popc" : "only .b1 mma takes .xor/.and.popc";
    f->and_popc = in->mod[PTX_CAT_BOOL] == PTX_BOOL_AND;
    uint8_t rnd = in->mod[PTX_CAT_ROUND];
    if (rnd && f->a != PTX_TYPE_F64)
        return "only .f64 mma takes a rounding mode";
    if (rnd > PTX_ROUND_RP)
        return ".f64 mma rounds .rn, .rz, .rm or .rp only";
    f->rnd = rnd;
    unsigned lanes = f->quad_pairs ? 8 : 32;
    unsigned elems[4] = {f->m * f->k / lanes, f->k * f->n / lanes, f->m * f->n / lanes, f->m * f->n / lanes};
    ptx_type t[4] = {f->a, f->b, f->c, f->d};
    for (int w = 0; w < 4; w++) {
        f->regbytes[w] = t[w] == PTX_TYPE_F64 ? 8 : 4;
        f->nregs[w] = (uint8_t)(elems[w] * ptx_type_bits(t[w]) / (f->regbytes[w] * 8u));
        f->elems[w] = (uint16_t)elems[w];
    }
    return NULL;
}

