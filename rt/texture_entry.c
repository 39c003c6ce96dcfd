/* texture_entry.c - ptxjit_rt_texture, the one runtime entry point of the
 * texture and surface instructions: for each active lane of a warp it
 * resolves the lane's handle in the registry of live objects (a bad
 * handle is an illegal-address fault, as on a GPU) and samples, queries,
 * loads, stores or reduces.  Fetches are per-lane calls: correctness
 * first; the warp-wide call keeps the generated code small. */
#include "fault.h"
#include "launch.h"
#include "shims.h"
#include "surface.h"
#include "texture.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- the registry: an open-addressed set of live objects ---- */

static pthread_rwlock_t reg_lock = PTHREAD_RWLOCK_INITIALIZER;
static const rt_texture **reg_slots; /* NULL: empty; TOMB: removed */
static size_t reg_cap, reg_used;
static const rt_texture tomb_obj;
#define TOMB (&tomb_obj)

static size_t slot_of(const void *p, size_t cap)
{
    uint64_t h = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 17) & (cap - 1);
}

static bool grow(void)
{
    size_t cap = reg_cap ? 2 * reg_cap : 64;
    const rt_texture **s = calloc(cap, sizeof *s);
    if (!s)
        return false;
    for (size_t i = 0; i < reg_cap; i++)
        if (reg_slots[i] && reg_slots[i] != TOMB) {
            size_t k = slot_of(reg_slots[i], cap);
            while (s[k])
                k = (k + 1) & (cap - 1);
            s[k] = reg_slots[i];
        }
    free(reg_slots);
    reg_slots = s;
    reg_cap = cap;
    return true;
}

bool rt_texture_register(const rt_texture *t)
{
    pthread_rwlock_wrlock(&reg_lock);
    bool ok = (reg_used + 1) * 2 <= reg_cap || grow();
    if (ok) {
        size_t k = slot_of(t, reg_cap);
        while (reg_slots[k] && reg_slots[k] != TOMB)
            k = (k + 1) & (reg_cap - 1);
        if (!reg_slots[k])
            reg_used++;
        reg_slots[k] = t;
    }
    pthread_rwlock_unlock(&reg_lock);
    return ok;
}

static size_t find(const void *p)
{
    if (!reg_cap)
        return SIZE_MAX;
    for (size_t k = slot_of(p, reg_cap), n = 0; reg_slots[k] && n < reg_cap; k = (k + 1) & (reg_cap - 1), n++)
        if (reg_slots[k] == p)
            return k;
    return SIZE_MAX;
}

void rt_texture_unregister(const rt_texture *t)
{
    pthread_rwlock_wrlock(&reg_lock);
    size_t k = find(t);
    if (k != SIZE_MAX)
        reg_slots[k] = TOMB;
    pthread_rwlock_unlock(&reg_lock);
}

const rt_texture *rt_texture_lookup(uint64_t handle, uint32_t kind)
{
    const rt_texture *t = (const rt_texture *)(uintptr_t)handle;
    pthread_rwlock_rdlock(&reg_lock);
    bool live = handle && find(t) != SIZE_MAX && (t->kind & kind);
    pthread_rwlock_unlock(&reg_lock);
    return live ? t : NULL;
}

/* ---- the entry point ---- */

static uint32_t arg(const uint32_t *args, unsigned row, unsigned lane) { return args[row * 32 + lane]; }

static float argf(const uint32_t *args, unsigned row, unsigned lane) { return rt_bits_f32(arg(args, row, lane)); }

static rt_tex_req request(const uint32_t *op, const uint32_t *args, unsigned lane)
{
    rt_tex_req r = {.geom = op[PTXJIT_TEXOP_GEOM], .float_coords = op[PTXJIT_TEXOP_CFLOAT] != 0,
                    .mode = op[PTXJIT_TEXOP_MODE], .lod = argf(args, PTXJIT_TEXARG_LOD, lane),
                    .integer_result = op[PTXJIT_TEXOP_DTYPE] == PTXJIT_TEXD_S32 ||
                                      op[PTXJIT_TEXOP_DTYPE] == PTXJIT_TEXD_U32,
                    .gather = op[PTXJIT_TEXOP_KIND] == PTXJIT_TEX_TLD4 ? (int)op[PTXJIT_TEXOP_COMP] : -1};
    for (unsigned k = 0; k < 4; k++)
        r.coord[k] = arg(args, PTXJIT_TEXARG_COORD + k, lane);
    for (unsigned k = 0; k < 3; k++) {
        r.dpdx[k] = argf(args, PTXJIT_TEXARG_DPDX + k, lane);
        r.dpdy[k] = argf(args, PTXJIT_TEXARG_DPDY + k, lane);
        r.offset[k] = op[PTXJIT_TEXOP_OFFSET] ? (int32_t)arg(args, PTXJIT_TEXARG_OFFSET + k, lane) : 0;
    }
    return r;
}

static _Noreturn void bad_handle(const uint32_t *op, uint64_t h)
{
    rt_fault_raise(RT_ERR_FAULT, "invalid texture or surface handle 0x%llx (PTX line %u)", (unsigned long long)h,
                   op[PTXJIT_TEXOP_LINE]);
}

/* An explicit sampler: its address and filter modes over the texture's
 * state; a module-initialized .samplerref carries them in the handle. */
static rt_sampler sampler_of(const rt_texture *t, uint64_t h, const uint32_t *op)
{
    rt_sampler s = t->s;
    if (h & PTXJIT_SAMPLER_TAG) {
        for (int d = 0; d < 3; d++)
            s.address[d] = (uint32_t)(h >> (3 * d)) & 7;
        s.filter = (uint32_t)(h >> PTXJIT_SAMPLER_FILTER_SHIFT) & 1;
        if ((h >> PTXJIT_SAMPLER_UNNORMALIZED_SHIFT) & 1)
            s.flags &= ~(uint32_t)RT_TEXF_NORMALIZED;
        return s;
    }
    const rt_texture *st = rt_texture_lookup(h, RT_TEXTURE);
    if (!st)
        bad_handle(op, h);
    memcpy(s.address, st->s.address, sizeof s.address);
    s.filter = st->s.filter;
    s.flags = (s.flags & ~(uint32_t)RT_TEXF_NORMALIZED) | (st->s.flags & RT_TEXF_NORMALIZED);
    return s;
}

static void lane_op(const uint32_t *op, unsigned lane, const uint64_t *handles, const uint64_t *samplers,
                    const uint32_t *args, uint32_t *out)
{
    uint32_t kind = op[PTXJIT_TEXOP_KIND], res[8] = {0};
    if (kind >= PTXJIT_TEX_ISTYPEP_TEX) {
        uint32_t want = kind == PTXJIT_TEX_ISTYPEP_SURF ? RT_SURFACE : RT_TEXTURE;
        bool tagged = kind == PTXJIT_TEX_ISTYPEP_SAMPLER && (handles[lane] & PTXJIT_SAMPLER_TAG);
        out[lane] = tagged || rt_texture_lookup(handles[lane], want) != NULL;
        return;
    }
    bool surface = kind >= PTXJIT_TEX_SULD && kind <= PTXJIT_TEX_SUQ;
    const rt_texture *t = rt_texture_lookup(handles[lane], surface ? RT_SURFACE : RT_TEXTURE);
    if (!t)
        bad_handle(op, handles[lane]);
    rt_sampler own;
    const rt_sampler *s = samplers[lane] ? (own = sampler_of(t, samplers[lane], op), &own) : &t->s;
    const uint32_t *coord = &args[PTXJIT_TEXARG_COORD * 32];
    uint32_t c[4], v[8];
    for (unsigned k = 0; k < 4; k++)
        c[k] = coord[k * 32 + lane];
    for (unsigned k = 0; k < 8; k++)
        v[k] = arg(args, PTXJIT_TEXARG_VALUE + k, lane);
    switch (kind) {
    case PTXJIT_TEX_TEX:
    case PTXJIT_TEX_TLD4: {
        rt_tex_req r = request(op, args, lane);
        rt_tex_sample(t, s, &r, res);
        if (op[PTXJIT_TEXOP_DTYPE] == PTXJIT_TEXD_F16X2) {
            /* f32 results as f16x2 pairs (tex.v2.f16x2) */
            res[0] = rt_half_bits(res[0]) | (uint32_t)rt_half_bits(res[1]) << 16;
            res[1] = rt_half_bits(res[2]) | (uint32_t)rt_half_bits(res[3]) << 16;
        }
        break;
    }
    case PTXJIT_TEX_TXQ: res[0] = rt_tex_query(t, s, op[PTXJIT_TEXOP_QUERY], arg(args, PTXJIT_TEXARG_LOD, lane)); break;
    case PTXJIT_TEX_SUQ: res[0] = rt_tex_query(t, &t->s, op[PTXJIT_TEXOP_QUERY], 0); break;
    case PTXJIT_TEX_SULD: rt_surf_load(t, op, c, res); break;
    case PTXJIT_TEX_SUST: rt_surf_store(t, op, c, v); return;
    case PTXJIT_TEX_SURED: rt_surf_reduce(t, op, c, v); return;
    default: return;
    }
    for (unsigned k = 0; k < 8; k++)
        out[k * 32 + lane] = res[k];
}

void ptxjit_rt_texture(ptxjit_cta *cta, const uint32_t *op, uint32_t mask, const uint64_t *handles,
                       const uint64_t *samplers, const uint32_t *args, uint32_t *out)
{
    (void)cta;
    for (uint32_t m = mask; m; m &= m - 1)
        lane_op(op, (unsigned)__builtin_ctz(m), handles, samplers, args, out);
}
