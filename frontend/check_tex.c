/* check_tex.c - operand rules of the texture and surface instructions
 * (PTX ISA 9.7.9-9.7.10): tex, tld4, txq, suld, sust, sured, suq and
 * istypep.  A handle is a 64-bit register (a texture or surface object)
 * or a .texref/.surfref/.samplerref module variable (a reference). */
#include "check_internal.h"

#include <string.h>

/* Elements of the coordinate vector for a geometry: the array index and
 * sample number lead; 3-element forms are padded to .v4. */
static uint32_t coord_count(uint8_t geom)
{
    switch (geom) {
    case PTX_GEOM_1D: return 1;
    case PTX_GEOM_2D: case PTX_GEOM_A1D: return 2;
    default: return 4;
    }
}

static bool is_array_geom(uint8_t geom)
{
    return geom == PTX_GEOM_A1D || geom == PTX_GEOM_A2D || geom == PTX_GEOM_ACUBE || geom == PTX_GEOM_A2DMS;
}

/* A texture, sampler or surface operand: a .b64/.u64/.s64 register or a
 * variable of the reference type. */
static void check_handle(checker *c, const ptx_operand *o, ptx_type ref)
{
    if (o->kind == PTX_OPD_NAME && o->var && o->var->space != PTX_SP_REG) {
        if (o->var->type != ref && !(ref == PTX_TYPE_TEXREF && o->var->type == PTX_TYPE_SAMPLERREF))
            ERR(c, o->loc, "'%s' is not a .%s", o->name, ptx_type_name(ref));
        return;
    }
    check_value(c, o, PTX_TYPE_B64, SRC, false);
}

static void check_coords(checker *c, const ptx_instr *in, const ptx_operand *v, ptx_type ct, bool surface)
{
    uint8_t geom = in->mod[PTX_CAT_GEOM];
    uint32_t n = coord_count(geom);
    if (v->kind != PTX_OPD_VEC || v->nelems != n) {
        ERR(c, v->loc, "a .%s coordinate operand has %u element%s", ptx_mod_text(PTX_CAT_GEOM, geom), n,
            n == 1 ? "" : "s");
        return;
    }
    bool lead_int = is_array_geom(geom) || geom == PTX_GEOM_2DMS; /* array index or sample */
    for (uint32_t i = 0; i < n; i++)
        check_value(c, &v->elems[i], surface || (i == 0 && lead_int) ? PTX_TYPE_S32 : ct, SRC, false);
}

/* The texture address [a, c] or [a, b, c] (b: an explicit sampler). */
static void check_tex_address(checker *c, const ptx_instr *in, const ptx_operand *a, ptx_type ct, bool surface)
{
    if (a->kind != PTX_OPD_TEXADDR) {
        ERR(c, a->loc, "'%s' expects [%s, {coordinates}]", ptx_op_name(in->op), surface ? "surface" : "texture");
        return;
    }
    if (surface && a->nelems != 2)
        ERR(c, a->loc, "a surface address is [surface, {coordinates}]");
    check_handle(c, &a->elems[0], surface ? PTX_TYPE_SURFREF : PTX_TYPE_TEXREF);
    if (a->nelems == 3)
        check_handle(c, &a->elems[1], PTX_TYPE_SAMPLERREF);
    check_coords(c, in, &a->elems[a->nelems - 1], ct, surface);
}

static void check_vector(checker *c, const ptx_operand *o, uint32_t n, ptx_type t, role r, bool relaxed,
                         const char *what)
{
    if (o->kind != PTX_OPD_VEC || (n && o->nelems != n)) {
        ERR(c, o->loc, "%s is a vector of %u elements", what, n);
        return;
    }
    for (uint32_t i = 0; i < o->nelems; i++)
        check_value(c, &o->elems[i], t, r, relaxed);
}

/* A tex/tld4 destination: the vector, or {d...}|p with the residency predicate. */
static void check_tex_dest(checker *c, const ptx_operand *o, uint32_t n, ptx_type t)
{
    if (o->kind == PTX_OPD_PAIR) {
        check_pred(c, &o->elems[1], DST);
        o = &o->elems[0];
    }
    check_vector(c, o, n, t, DST, false, "the destination");
}

/* tex{.base,.level,.grad}.geom.v4.dtype.ctype d, [a, {b,} c] {, lod | dPdx, dPdy} {, e} {, f} */
static void check_tex(checker *c, const ptx_instr *in)
{
    uint8_t geom = in->mod[PTX_CAT_GEOM], mode = in->mod[PTX_CAT_TEXMODE];
    ptx_type dt = in->ntypes > 0 ? (ptx_type)in->types[0] : PTX_TYPE_NONE;
    ptx_type ct = in->ntypes > 1 ? (ptx_type)in->types[1] : PTX_TYPE_NONE;
    bool f16 = dt == PTX_TYPE_F16X2;
    if (!geom || in->ntypes != 2 || (dt != PTX_TYPE_U32 && dt != PTX_TYPE_S32 && dt != PTX_TYPE_F32 && !f16) ||
        (ct != PTX_TYPE_S32 && ct != PTX_TYPE_F32) || ptx_vec_count(in) != (f16 ? 2u : 4u)) {
        ERR(c, in->loc, "expected tex.geom.v4.{u32,s32,f32}.{s32,f32} or tex.geom.v2.f16x2.{s32,f32}");
        return;
    }
    if ((geom == PTX_GEOM_CUBE || geom == PTX_GEOM_ACUBE) && ct != PTX_TYPE_F32)
        ERR(c, in->loc, "cube textures take .f32 coordinates");
    if ((geom == PTX_GEOM_2DMS || geom == PTX_GEOM_A2DMS) && (ct != PTX_TYPE_S32 || mode))
        ERR(c, in->loc, "multi-sample textures take .s32 coordinates and no level of detail");
    check_tex_dest(c, &in->opds[0], ptx_vec_count(in), dt);
    check_tex_address(c, in, &in->opds[1], ct, false);
    uint32_t k = 2, ng = geom == PTX_GEOM_1D || geom == PTX_GEOM_A1D ? 1 : geom == PTX_GEOM_2D || geom == PTX_GEOM_A2D ? 2 : 4;
    if (mode == PTX_TEXMODE_LEVEL) {
        if (k >= in->nopds)
            ERR(c, in->loc, "tex.level needs a level of detail operand");
        else
            check_value(c, &in->opds[k++], PTX_TYPE_F32, SRC, false);
    } else if (mode == PTX_TEXMODE_GRAD) {
        if (k + 1 >= in->nopds) {
            ERR(c, in->loc, "tex.grad needs the gradients dPdx and dPdy");
            return;
        }
        check_vector(c, &in->opds[k++], ng, PTX_TYPE_F32, SRC, false, "a gradient");
        check_vector(c, &in->opds[k++], ng, PTX_TYPE_F32, SRC, false, "a gradient");
    }
    if (k < in->nopds && in->opds[k].kind == PTX_OPD_VEC)
        check_vector(c, &in->opds[k++], ng, PTX_TYPE_S32, SRC, false, "the offset");
    if (k < in->nopds)
        check_value(c, &in->opds[k++], PTX_TYPE_F32, SRC, false); /* depth compare */
    if (k < in->nopds)
        ERR(c, in->opds[k].loc, "unexpected operand after tex's address");
}

/* tld4.comp.{2d,a2d,cube,acube}.v4.dtype.f32 d, [a, {b,} c] {, e} {, f} */
static void check_tld4(checker *c, const ptx_instr *in)
{
    uint8_t geom = in->mod[PTX_CAT_GEOM];
    ptx_type dt = in->ntypes > 0 ? (ptx_type)in->types[0] : PTX_TYPE_NONE;
    if (!in->mod[PTX_CAT_COMP] || (geom != PTX_GEOM_2D && geom != PTX_GEOM_A2D && geom != PTX_GEOM_CUBE &&
                                   geom != PTX_GEOM_ACUBE) || in->ntypes != 2 || in->types[1] != PTX_TYPE_F32 ||
        (dt != PTX_TYPE_U32 && dt != PTX_TYPE_S32 && dt != PTX_TYPE_F32) || ptx_vec_count(in) != 4) {
        ERR(c, in->loc, "expected tld4.{r,g,b,a}.{2d,a2d,cube,acube}.v4.{u32,s32,f32}.f32");
        return;
    }
    check_tex_dest(c, &in->opds[0], 4, dt);
    check_tex_address(c, in, &in->opds[1], PTX_TYPE_F32, false);
    uint32_t k = 2;
    if (k < in->nopds && in->opds[k].kind == PTX_OPD_VEC)
        check_vector(c, &in->opds[k++], 2, PTX_TYPE_S32, SRC, false, "the offset");
    if (k < in->nopds)
        check_value(c, &in->opds[k++], PTX_TYPE_F32, SRC, false);
}

static bool is_sampler_query(uint8_t q)
{
    return q == PTX_QUERY_FORCE_UNNORMALIZED_COORDS || q == PTX_QUERY_FILTER_MODE || q == PTX_QUERY_ADDR_MODE_0 ||
           q == PTX_QUERY_ADDR_MODE_1 || q == PTX_QUERY_ADDR_MODE_2;
}

/* txq{.level}.query.b32 d, [a]{, lod};  suq.query.b32 d, [a] */
static void check_query(checker *c, const ptx_instr *in)
{
    uint8_t q = in->mod[PTX_CAT_QUERY], mode = in->mod[PTX_CAT_TEXMODE];
    bool surface = in->op == PTX_OP_SUQ;
    bool ok = q && in->ntypes == 1 && in->types[0] == PTX_TYPE_B32;
    if (surface)
        ok = ok && (q <= PTX_QUERY_CHANNEL_ORDER || q == PTX_QUERY_ARRAY_SIZE || q == PTX_QUERY_MEMORY_LAYOUT);
    else
        ok = ok && (!mode || (mode == PTX_TEXMODE_LEVEL && q <= PTX_QUERY_DEPTH));
    if (!ok) {
        ERR(c, in->loc, "unknown %s query (e.g. %s.width.b32)", ptx_op_name(in->op), ptx_op_name(in->op));
        return;
    }
    if ((mode == PTX_TEXMODE_LEVEL) != (in->nopds == 3))
        ERR(c, in->loc, "txq.level takes a level operand, other queries do not");
    const ptx_operand *a = &in->opds[1];
    if (a->kind != PTX_OPD_ADDR || a->nelems != 1 || a->imm) {
        ERR(c, a->loc, "'%s' expects [handle]", ptx_op_name(in->op));
        return;
    }
    /* sampler queries: a .samplerref, or a .texref (unified mode) */
    check_handle(c, &a->elems[0], surface ? PTX_TYPE_SURFREF : PTX_TYPE_TEXREF);
    if (!surface && !is_sampler_query(q) && a->elems[0].var && a->elems[0].var->type == PTX_TYPE_SAMPLERREF)
        ERR(c, a->elems[0].loc, "'%s' is a .samplerref; only sampler queries take one", a->elems[0].name);
    if (in->nopds == 3)
        check_value(c, &in->opds[2], PTX_TYPE_B32, SRC, false);
}

/* suld.b.geom{.cop}{.v2,.v4}.{b8,b16,b32,b64}.clamp d, [a, b];
 * sust.{b,p}.geom{.cop}{.vec}.ctype.clamp [a, b], c;
 * sured.{b,p}.op.geom.ctype.clamp [a, b], c */
static void check_surface(checker *c, const ptx_instr *in)
{
    uint8_t geom = in->mod[PTX_CAT_GEOM], fmt = in->mod[PTX_CAT_SUFMT];
    ptx_type t = in->ntypes == 1 ? (ptx_type)in->types[0] : PTX_TYPE_NONE;
    bool load = in->op == PTX_OP_SULD, red = in->op == PTX_OP_SURED;
    uint32_t n = ptx_vec_count(in), size = ptx_type_size(t);
    bool ok = fmt && in->mod[PTX_CAT_SUCLAMP] && geom && geom != PTX_GEOM_CUBE && geom != PTX_GEOM_ACUBE &&
              geom != PTX_GEOM_2DMS && geom != PTX_GEOM_A2DMS && n <= 4;
    if (red)
        ok = ok && in->mod[PTX_CAT_RED] && n == 1 && (size == 4 || size == 8) &&
             (fmt == PTX_SUFMT_B ? t != PTX_TYPE_B64 : ptx_type_class(t) == 'B') && geom <= PTX_GEOM_3D;
    else
        ok = ok && ptx_type_class(t) == 'B' && size <= 8 && (fmt == PTX_SUFMT_B || (!load && t == PTX_TYPE_B32));
    if (!ok) {
        ERR(c, in->loc, "expected %s", load ? "suld.b.geom{.v2,.v4}.{b8,b16,b32,b64}.{trap,clamp,zero}"
                                       : red ? "sured.{b,p}.op.{1d,2d,3d}.type.{trap,clamp,zero}"
                                             : "sust.{b,p}.geom{.v2,.v4}.type.{trap,clamp,zero}");
        return;
    }
    const ptx_operand *addr = &in->opds[load ? 1 : 0], *v = &in->opds[load ? 0 : 1];
    check_tex_address(c, in, addr, PTX_TYPE_B32, true);
    if (red)
        check_value(c, v, t, SRC, false);
    else if (v->kind == PTX_OPD_VEC)
        check_vector(c, v, n, t, load ? DST : SRC, true, load ? "the destination" : "the value");
    else if (n == 1)
        check_value(c, v, t, load ? DST : SRC, true);
    else
        ERR(c, v->loc, ".v%u needs a vector operand of %u elements", n, n);
}

/* istypep.{texref,samplerref,surfref} p, a */
static void check_istypep(checker *c, const ptx_instr *in)
{
    ptx_type t = in->ntypes == 1 ? (ptx_type)in->types[0] : PTX_TYPE_NONE;
    if (t != PTX_TYPE_TEXREF && t != PTX_TYPE_SAMPLERREF && t != PTX_TYPE_SURFREF) {
        ERR(c, in->loc, "expected istypep.{texref,samplerref,surfref}");
        return;
    }
    check_pred(c, &in->opds[0], DST);
    check_value(c, &in->opds[1], PTX_TYPE_B64, SRC, false); /* a handle in a register only */
}

/* .samplerref initializers (texmode_independent): { attribute = value, ... } */
static const char *const addr_values[] = {"wrap", "clamp_to_edge", "mirror", "clamp_to_border", "clamp_ogl", NULL};
static const char *const filter_values[] = {"nearest", "linear", NULL};

int ptx_sampler_value(const char *attr, const char *value)
{
    bool addr = !strcmp(attr, "addr_mode_0") || !strcmp(attr, "addr_mode_1") || !strcmp(attr, "addr_mode_2");
    const char *const *list = addr ? addr_values : !strcmp(attr, "filter_mode") ? filter_values : NULL;
    for (int i = 0; list && value && list[i]; i++)
        if (!strcmp(list[i], value))
            return i;
    return -1;
}

bool check_ref_init(checker *c, const ptx_var *v)
{
    const ptx_init *in = v->init;
    if (v->type != PTX_TYPE_SAMPLERREF && v->type != PTX_TYPE_TEXREF && v->type != PTX_TYPE_SURFREF)
        return false;
    if (v->type != PTX_TYPE_SAMPLERREF || in->kind != PTX_INIT_LIST) {
        ERR(c, in->loc, "only a .samplerref takes an initializer here ({ addr_mode_0 = wrap, ... })");
        return true;
    }
    for (uint32_t i = 0; i < in->nelems; i++) {
        const ptx_init *e = in->elems[i], *val = e->kind == PTX_INIT_NAMED ? e->elems[0] : NULL;
        bool force = e->kind == PTX_INIT_NAMED && !strcmp(e->sym, "force_unnormalized_coords");
        if (!val || (force ? val->kind != PTX_INIT_INT || val->ival > 1
                           : val->kind != PTX_INIT_SYM || val->ival || ptx_sampler_value(e->sym, val->sym) < 0))
            ERR(c, e->loc, "expected addr_mode_0..2 = wrap/mirror/clamp_to_edge/clamp_to_border/clamp_ogl, "
                           "filter_mode = nearest/linear or force_unnormalized_coords = 0/1");
    }
    return true;
}

void check_texture(checker *c, const ptx_instr *in)
{
    switch (in->op) {
    case PTX_OP_TEX: check_tex(c, in); break;
    case PTX_OP_TLD4: check_tld4(c, in); break;
    case PTX_OP_TXQ: case PTX_OP_SUQ: check_query(c, in); break;
    case PTX_OP_SULD: case PTX_OP_SUST: case PTX_OP_SURED: check_surface(c, in); break;
    case PTX_OP_ISTYPEP: check_istypep(c, in); break;
    default: break;
    }
}
