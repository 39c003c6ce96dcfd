/* lower_tex.c - texture and surface instructions (tex, tld4, txq, suld,
 * sust, sured, suq, istypep) as one call of the runtime's
 * ptxjit_rt_texture over the warp's active lanes (ptxjit/abi.h): the
 * lanes' handles and operands go to a per-function staging buffer, the
 * runtime samples or accesses each lane, and the results come back as
 * rows of 32 words.  Correctness first: fetches are per-lane runtime
 * work, not vector loads. */
#include "lower_internal.h"

#include <string.h>

enum { HANDLES = 0, SAMPLERS = 32 * 8, ARGS = 2 * 32 * 8, OUT = ARGS + PTXJIT_TEXARG_COUNT * 32 * 4,
       BUF_BYTES = OUT + 8 * 32 * 4 };

static LLVMValueRef buf_at(fn *F, uint32_t offset)
{
    lw *L = F->L;
    if (!F->tex_buf)
        F->tex_buf = entry_alloca(F, LLVMArrayType2(L->i8, BUF_BYTES), "texbuf");
    LLVMValueRef idx = const_i64(L, offset);
    return LLVMBuildGEP2(L->b, L->i8, F->tex_buf, &idx, 1, "");
}

static void store_at(fn *F, uint32_t offset, LLVMValueRef v)
{
    LLVMSetAlignment(LLVMBuildStore(F->L->b, v, buf_at(F, offset)), 8);
}

static void store_row(fn *F, uint32_t row, LLVMValueRef v32) { store_at(F, ARGS + row * 32 * 4, v32); }

static LLVMValueRef load_row(fn *F, uint32_t row)
{
    LLVMValueRef v = LLVMBuildLoad2(F->L->b, vec_of(F->L->i32), buf_at(F, OUT + row * 32 * 4), "");
    LLVMSetAlignment(v, 8);
    return v;
}

/* A handle operand: a register, or a .texref/.surfref/.samplerref variable
 * whose 8 bytes hold the bound object (cuTexRefSet*, cuSurfRefSetArray). */
static LLVMValueRef handle_of(fn *F, const ptx_operand *o)
{
    lw *L = F->L;
    if (o->kind == PTX_OPD_NAME && o->var && o->var->space != PTX_SP_REG) {
        LLVMValueRef a = LLVMBuildExtractElement(L->b, var_address(F, o, o->loc), const_i32(L, 0), "");
        LLVMValueRef h = LLVMBuildLoad2(L->b, L->i64, LLVMBuildIntToPtr(L->b, a, L->ptr, ""), "texref");
        return splat(L, h);
    }
    return read_opd(F, o, PTX_TYPE_B64, false);
}

/* Elements of an operand vector (or the operand alone) into rows from `row`. */
static void store_elems(fn *F, const ptx_operand *v, uint32_t row, uint32_t max)
{
    lw *L = F->L;
    uint32_t n = v->kind == PTX_OPD_VEC ? v->nelems : 1;
    for (uint32_t i = 0; i < n && i < max; i++) {
        const ptx_operand *e = v->kind == PTX_OPD_VEC ? &v->elems[i] : v;
        if (e->kind == PTX_OPD_SINK)
            continue;
        store_row(F, row + i, LLVMBuildBitCast(L->b, read_opd(F, e, PTX_TYPE_B32, false), vec_of(L->i32), ""));
    }
}

/* The value operand of sust/sured: elements of esize bytes, two words per .b64. */
static void store_values(fn *F, const ptx_operand *v, uint32_t esize)
{
    lw *L = F->L;
    uint32_t n = v->kind == PTX_OPD_VEC ? v->nelems : 1;
    ptx_type t = bit_type_of_size(esize);
    for (uint32_t i = 0; i < n; i++) {
        const ptx_operand *e = v->kind == PTX_OPD_VEC ? &v->elems[i] : v;
        LLVMValueRef x = read_opd(F, e, t, false);
        if (esize < 8) {
            store_row(F, PTXJIT_TEXARG_VALUE + i, LLVMBuildZExtOrBitCast(L->b, x, vec_of(L->i32), ""));
            continue;
        }
        LLVMValueRef hi = LLVMBuildLShr(L->b, x, splat(L, const_i64(L, 32)), "");
        store_row(F, PTXJIT_TEXARG_VALUE + 2 * i, LLVMBuildTrunc(L->b, x, vec_of(L->i32), ""));
        store_row(F, PTXJIT_TEXARG_VALUE + 2 * i + 1, LLVMBuildTrunc(L->b, hi, vec_of(L->i32), ""));
    }
}

/* Result rows into the destination elements (esize 8: two rows each). */
static void write_results(fn *F, const ptx_operand *d, uint32_t esize, ptx_type t, LLVMValueRef mask)
{
    lw *L = F->L;
    uint32_t n = d->kind == PTX_OPD_VEC ? d->nelems : 1;
    for (uint32_t i = 0; i < n; i++) {
        const ptx_operand *e = d->kind == PTX_OPD_VEC ? &d->elems[i] : d;
        if (e->kind == PTX_OPD_SINK)
            continue;
        if (esize == 8) {
            LLVMValueRef lo = LLVMBuildZExt(L->b, load_row(F, 2 * i), vec_of(L->i64), "");
            LLVMValueRef hi = LLVMBuildZExt(L->b, load_row(F, 2 * i + 1), vec_of(L->i64), "");
            hi = LLVMBuildShl(L->b, hi, splat(L, const_i64(L, 32)), "");
            write_reg(F, e, LLVMBuildOr(L->b, lo, hi, ""), PTX_TYPE_B64, false, mask);
        } else if (esize < 4) {
            ptx_type bt = bit_type_of_size(esize);
            write_reg(F, e, LLVMBuildTrunc(L->b, load_row(F, i), vec_of(storage_int(L, bt)), ""), bt, false, mask);
        } else {
            write_reg(F, e, load_row(F, i), t, false, mask);
        }
    }
}

static uint32_t geom_code(uint8_t g) { return g ? (uint32_t)(g - PTX_GEOM_1D) + PTXJIT_GEOM_1D : 0; }

static uint32_t dtype_code(ptx_type t)
{
    switch (t) {
    case PTX_TYPE_S32: return PTXJIT_TEXD_S32;
    case PTX_TYPE_U32: return PTXJIT_TEXD_U32;
    case PTX_TYPE_F16X2: return PTXJIT_TEXD_F16X2;
    case PTX_TYPE_S64: return PTXJIT_TEXD_S64;
    case PTX_TYPE_U64: case PTX_TYPE_B64: return PTXJIT_TEXD_U64;
    default: return PTXJIT_TEXD_F32;
    }
}

static uint32_t kind_of(const ptx_instr *in)
{
    switch (in->op) {
    case PTX_OP_TEX: return PTXJIT_TEX_TEX;
    case PTX_OP_TLD4: return PTXJIT_TEX_TLD4;
    case PTX_OP_TXQ: return PTXJIT_TEX_TXQ;
    case PTX_OP_SULD: return PTXJIT_TEX_SULD;
    case PTX_OP_SUST: return PTXJIT_TEX_SUST;
    case PTX_OP_SURED: return PTXJIT_TEX_SURED;
    case PTX_OP_SUQ: return PTXJIT_TEX_SUQ;
    default:
        return in->types[0] == PTX_TYPE_SURFREF ? PTXJIT_TEX_ISTYPEP_SURF
             : in->types[0] == PTX_TYPE_SAMPLERREF ? PTXJIT_TEX_ISTYPEP_SAMPLER : PTXJIT_TEX_ISTYPEP_TEX;
    }
}

/* The instruction's PTXJIT_TEXOP_* words as a constant of the module. */
static LLVMValueRef op_words(fn *F, const ptx_instr *in, bool offset)
{
    lw *L = F->L;
    uint32_t w[PTXJIT_TEXOP_COUNT] = {0};
    ptx_type t0 = in->ntypes ? (ptx_type)in->types[0] : PTX_TYPE_NONE;
    w[PTXJIT_TEXOP_KIND] = kind_of(in);
    w[PTXJIT_TEXOP_GEOM] = geom_code(in->mod[PTX_CAT_GEOM]);
    w[PTXJIT_TEXOP_MODE] = in->mod[PTX_CAT_TEXMODE] == PTX_TEXMODE_LEVEL ? 1 : in->mod[PTX_CAT_TEXMODE] == PTX_TEXMODE_GRAD ? 2 : 0;
    w[PTXJIT_TEXOP_CFLOAT] = in->op == PTX_OP_TLD4 || (in->ntypes > 1 && in->types[1] == PTX_TYPE_F32);
    w[PTXJIT_TEXOP_DTYPE] = dtype_code(t0);
    w[PTXJIT_TEXOP_COMP] = in->mod[PTX_CAT_COMP] ? (uint32_t)(in->mod[PTX_CAT_COMP] - PTX_COMP_R) : 0;
    w[PTXJIT_TEXOP_QUERY] = in->mod[PTX_CAT_QUERY] ? (uint32_t)(in->mod[PTX_CAT_QUERY] - PTX_QUERY_WIDTH) : 0;
    w[PTXJIT_TEXOP_CLAMP] = in->mod[PTX_CAT_SUCLAMP] ? (uint32_t)(in->mod[PTX_CAT_SUCLAMP] - PTX_SUCLAMP_TRAP) : 0;
    w[PTXJIT_TEXOP_FORMATTED] = in->mod[PTX_CAT_SUFMT] == PTX_SUFMT_P;
    w[PTXJIT_TEXOP_VEC] = ptx_vec_count(in);
    w[PTXJIT_TEXOP_ESIZE] = t0 ? ptx_type_size(t0) : 4;
    static const uint8_t reds[][2] = {{PTX_RED_ADD, PTXJIT_SURED_ADD}, {PTX_RED_MIN, PTXJIT_SURED_MIN},
                                      {PTX_RED_MAX, PTXJIT_SURED_MAX}, {PTX_RED_AND, PTXJIT_SURED_AND},
                                      {PTX_RED_OR, PTXJIT_SURED_OR}};
    for (unsigned i = 0; i < sizeof reds / sizeof reds[0]; i++)
        if (in->mod[PTX_CAT_RED] == reds[i][0])
            w[PTXJIT_TEXOP_RED] = reds[i][1];
    w[PTXJIT_TEXOP_OFFSET] = offset;
    w[PTXJIT_TEXOP_LINE] = in->loc.line;
    LLVMValueRef c[PTXJIT_TEXOP_COUNT];
    for (unsigned i = 0; i < PTXJIT_TEXOP_COUNT; i++)
        c[i] = const_i32(L, w[i]);
    LLVMValueRef g = LLVMAddGlobal(L->mod, LLVMArrayType2(L->i32, PTXJIT_TEXOP_COUNT), "ptxjit.texop");
    LLVMSetInitializer(g, LLVMConstArray2(L->i32, c, PTXJIT_TEXOP_COUNT));
    LLVMSetGlobalConstant(g, true);
    LLVMSetLinkage(g, LLVMPrivateLinkage);
    return g;
}

/* tex/tld4's operands after the address: lod or gradients, offsets, depth. */
static bool stage_tex_extras(fn *F, const ptx_instr *in, bool *offset)
{
    uint32_t k = 2;
    uint8_t mode = in->mod[PTX_CAT_TEXMODE];
    if (mode == PTX_TEXMODE_LEVEL)
        store_elems(F, &in->opds[k++], PTXJIT_TEXARG_LOD, 1);
    else if (mode == PTX_TEXMODE_GRAD) {
        store_elems(F, &in->opds[k++], PTXJIT_TEXARG_DPDX, 3);
        store_elems(F, &in->opds[k++], PTXJIT_TEXARG_DPDY, 3);
    }
    *offset = k < in->nopds && in->opds[k].kind == PTX_OPD_VEC;
    if (*offset)
        store_elems(F, &in->opds[k++], PTXJIT_TEXARG_OFFSET, 3);
    if (k < in->nopds) {
        lw_error(F->L, in->opds[k].loc, "depth comparison in '%s' is not supported", ptx_op_name(in->op));
        return false;
    }
    return true;
}

static void call_runtime(fn *F, LLVMValueRef op, LLVMValueRef mask)
{
    lw *L = F->L;
    LLVMTypeRef p[7] = {L->ptr, L->ptr, L->i32, L->ptr, L->ptr, L->ptr, L->ptr};
    LLVMValueRef f = declare_rt(L, "ptxjit_rt_texture", L->voidt, p, 7);
    LLVMValueRef a[7] = {F->cta, op, mask_bits(F, mask), buf_at(F, HANDLES), buf_at(F, SAMPLERS), buf_at(F, ARGS),
                         buf_at(F, OUT)};
    LLVMBuildCall2(L->b, LLVMGlobalGetValueType(f), f, a, 7, "");
}

bool lower_tex(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    lw *L = F->L;
    bool tex = in->op == PTX_OP_TEX || in->op == PTX_OP_TLD4, surf_store = in->op == PTX_OP_SUST || in->op == PTX_OP_SURED;
    if (!tex && !surf_store && in->op != PTX_OP_SULD && in->op != PTX_OP_TXQ && in->op != PTX_OP_SUQ &&
        in->op != PTX_OP_ISTYPEP)
        return false;
    const ptx_operand *a = &in->opds[surf_store ? 0 : 1];
    LLVMValueRef sampler = LLVMConstNull(vec_of(L->i64));
    if (in->op == PTX_OP_ISTYPEP) {
        store_at(F, HANDLES, handle_of(F, a));
    } else {
        store_at(F, HANDLES, handle_of(F, &a->elems[0]));
        if (a->kind == PTX_OPD_TEXADDR) {
            if (a->nelems == 3)
                sampler = handle_of(F, &a->elems[1]);
            store_elems(F, &a->elems[a->nelems - 1], PTXJIT_TEXARG_COORD, 4);
        }
    }
    store_at(F, SAMPLERS, sampler);
    bool offset = false;
    if (tex && !stage_tex_extras(F, in, &offset))
        return true;
    if (in->op == PTX_OP_TXQ && in->nopds == 3)
        store_elems(F, &in->opds[2], PTXJIT_TEXARG_LOD, 1);
    ptx_type t0 = in->ntypes ? (ptx_type)in->types[0] : PTX_TYPE_B32;
    if (surf_store)
        store_values(F, &in->opds[1], ptx_type_size(t0));
    call_runtime(F, op_words(F, in, offset), mask);
    if (surf_store)
        return true;
    if (in->op == PTX_OP_ISTYPEP) {
        LLVMValueRef p = LLVMBuildICmp(L->b, LLVMIntNE, load_row(F, 0), splat(L, const_i32(L, 0)), "");
        write_reg(F, &in->opds[0], p, PTX_TYPE_PRED, false, mask);
    } else if (in->op == PTX_OP_SULD) {
        write_results(F, &in->opds[0], ptx_type_size(t0), t0, mask);
    } else if (in->opds[0].kind == PTX_OPD_PAIR) { /* {d}|p: arrays are never sparse: resident */
        write_results(F, &in->opds[0].elems[0], 4, PTX_TYPE_B32, mask);
        write_reg(F, &in->opds[0].elems[1], splat(L, LLVMConstInt(L->i1, 1, false)), PTX_TYPE_PRED, false, mask);
    } else {
        write_results(F, &in->opds[0], 4, PTX_TYPE_B32, mask);
    }
    return true;
}

/* A .samplerref initializer as the handle the runtime decodes
 * (PTXJIT_SAMPLER_TAG): clamp_ogl clamps to the edge like clamp_to_edge. */
uint64_t lower_sampler_bits(const ptx_init *in)
{
    static const uint64_t addr_mode[] = {0 /* wrap */, 1 /* clamp */, 2 /* mirror */, 3 /* border */, 1};
    uint64_t bits = PTXJIT_SAMPLER_TAG;
    for (uint32_t i = 0; in->kind == PTX_INIT_LIST && i < in->nelems; i++) {
        const ptx_init *e = in->elems[i];
        if (e->kind != PTX_INIT_NAMED)
            continue;
        int v = ptx_sampler_value(e->sym, e->elems[0]->sym);
        if (!strncmp(e->sym, "addr_mode_", 10) && v >= 0)
            bits |= addr_mode[v] << (3 * (unsigned)(e->sym[10] - '0'));
        else if (!strcmp(e->sym, "filter_mode") && v >= 0)
            bits |= (uint64_t)v << PTXJIT_SAMPLER_FILTER_SHIFT;
        else if (!strcmp(e->sym, "force_unnormalized_coords") && e->elems[0]->ival)
            bits |= 1ull << PTXJIT_SAMPLER_UNNORMALIZED_SHIFT;
    }
    return bits;
}
