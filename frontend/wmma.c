/* wmma.c - operand geometry of the wmma instructions (PTX ISA 9.7.14.4):
 * the matrix sizes of each shape, the element types each fragment may
 * hold, and the registers a lane holds them in.  The checker and the
 * lowering (lower/lower_wmma.c) both read it. */
#include "ptx.h"

bool ptx_wmma_dims(uint8_t shape, uint32_t *m, uint32_t *n, uint32_t *k)
{
    static const struct {
        uint8_t shape, m, n, k;
    } dims[] = {
        {PTX_SHAPE_M16N16K16, 16, 16, 16}, {PTX_SHAPE_M32N8K16, 32, 8, 16}, {PTX_SHAPE_M8N32K16, 8, 32, 16},
        {PTX_SHAPE_M16N16K8, 16, 16, 8},   {PTX_SHAPE_M8N8K4, 8, 8, 4},     {PTX_SHAPE_M8N8K32, 8, 8, 32},
        {PTX_SHAPE_M8N8K128, 8, 8, 128},
    };
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++)
        if (dims[i].shape == shape) {
            *m = dims[i].m, *n = dims[i].n, *k = dims[i].k;
            return true;
        }
    return false;
}

/* Whether a fragment of `shape` may hold elements of type t: a and b the
 * multiplicands, c and d the accumulators. */
static bool type_allowed(uint8_t shape, bool acc, ptx_type t)
{
    switch (shape) {
    case PTX_SHAPE_M16N16K16:
    case PTX_SHAPE_M32N8K16:
    case PTX_SHAPE_M8N32K16:
        return acc ? t == PTX_TYPE_F16 || t == PTX_TYPE_F32 || t == PTX_TYPE_S32
                   : t == PTX_TYPE_F16 || t == PTX_TYPE_BF16 || t == PTX_TYPE_S8 || t == PTX_TYPE_U8;
    case PTX_SHAPE_M16N16K8: return t == (acc ? PTX_TYPE_F32 : PTX_TYPE_TF32);
    case PTX_SHAPE_M8N8K4: return t == PTX_TYPE_F64;
    case PTX_SHAPE_M8N8K32: return acc ? t == PTX_TYPE_S32 : t == PTX_TYPE_S4 || t == PTX_TYPE_U4;
    case PTX_SHAPE_M8N8K128: return t == (acc ? PTX_TYPE_S32 : PTX_TYPE_B1);
    default: return false;
    }
}

bool ptx_wmma_frag(uint8_t shape, uint8_t frag, ptx_type t, ptx_wmma_fragment *f)
{
    uint32_t m, n, k;
    bool acc = frag == PTX_FRAG_C || frag == PTX_FRAG_D;
    if (!ptx_wmma_dims(shape, &m, &n, &k) || !type_allowed(shape, acc, t))
        return false;
    f->rows = frag == PTX_FRAG_B ? k : m;
    f->cols = frag == PTX_FRAG_A ? k : n;
    f->type = t;
    f->elems = f->rows * f->cols / 32;
    if (t == PTX_TYPE_F16 && !acc) /* f16 multiplicands: 8 .f16x2 registers in every shape */
        f->elems = 16;
    f->reg_bits = t == PTX_TYPE_F64 ? 64 : 32;
    f->nregs = f->elems * ptx_type_bits(t) / f->reg_bits;
    f->reg_type = t == PTX_TYPE_F16 ? PTX_TYPE_F16X2
                  : t == PTX_TYPE_F32 || t == PTX_TYPE_S32 || t == PTX_TYPE_F64 ? t
                                                                                 : PTX_TYPE_B32;
    return true;
}
