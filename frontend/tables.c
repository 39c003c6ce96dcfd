/* tables.c - lookups over the X-macro tables (types, opcodes, modifiers,
 * special registers).  Tables are small; lookups are linear or binary. */
#include "ptx.h"

#include <string.h>

/* ---- types ---- */

static const struct {
    const char *name;
    uint8_t size;
    char cls;
} types[] = {
    {"", 0, 0},
#define X(e, n, sz, cls) {n, sz, #cls[0]},
#include "types.def"
#undef X
};

const char *ptx_type_name(ptx_type t) { return t < PTX_TYPE_COUNT ? types[t].name : "?"; }
uint32_t ptx_type_size(ptx_type t) { return t < PTX_TYPE_COUNT ? types[t].size : 0; }
uint32_t ptx_type_bits(ptx_type t)
{
    return t == PTX_TYPE_S4 || t == PTX_TYPE_U4 ? 4 : t == PTX_TYPE_B1 ? 1 : 8 * ptx_type_size(t);
}
char ptx_type_class(ptx_type t) { return t < PTX_TYPE_COUNT ? types[t].cls : 0; }

static bool eq(const char *a, const char *s, size_t n)
{
    /* the first character rules out most names without a call (opcode
     * lookup is a scan, once per instruction parsed) */
    return a[0] == (n ? s[0] : 0) && strncmp(a, s, n) == 0 && a[n] == 0;
}

ptx_type ptx_type_lookup(const char *s, size_t n)
{
    for (int t = 1; t < PTX_TYPE_COUNT; t++)
        if (eq(types[t].name, s, n))
            return (ptx_type)t;
    return PTX_TYPE_NONE;
}

uint32_t ptx_vec_count(const ptx_instr *in)
{
    switch (in->mod[PTX_CAT_VEC]) {
    case PTX_VEC_V2: return 2;
    case PTX_VEC_V4: return 4;
    case PTX_VEC_V8: return 8;
    default: return 1;
    }
}

/* ---- opcodes ---- */

#define C(cat) (1u << PTX_CAT_##cat)
#define F(f) PTX_FLAG_BIT(f)

static const struct {
    const char *name, *shape;
    uint32_t cats, flags, effects;
} ops[] = {
    {"", "", 0, 0, 0},
#define X(e, n, shape, cats, flags, eff) {n, shape, cats, flags, eff},
#include "ops.def"
#undef X
};

const char *ptx_op_name(ptx_opcode op) { return op < PTX_OP_COUNT ? ops[op].name : "?"; }
const char *ptx_op_shape(ptx_opcode op) { return ops[op].shape; }
uint32_t ptx_op_cats(ptx_opcode op) { return ops[op].cats; }
uint32_t ptx_op_flags(ptx_opcode op) { return ops[op].flags; }
uint32_t ptx_op_effects(ptx_opcode op) { return ops[op].effects; }

ptx_opcode ptx_op_lookup(const char *s, size_t n)
{
    for (int i = 1; i < PTX_OP_COUNT; i++)
        if (eq(ops[i].name, s, n))
            return (ptx_opcode)i;
    return PTX_OP_NONE;
}

bool ptx_op_is_prefix(const char *s, size_t n)
{
    for (int i = 1; i < PTX_OP_COUNT; i++)
        if (strncmp(ops[i].name, s, n) == 0 && ops[i].name[n] == '.')
            return true;
    return false;
}

/* ---- modifiers ---- */

static const struct {
    uint8_t cat;
    const char *text;
} mods[] = {
#define X(cat, val, text) {PTX_CAT_##cat, text},
#include "mods.def"
#undef X
};

enum { NMODS = sizeof mods / sizeof mods[0] };
_Static_assert(PTX_SUFFIX_TYPE + PTX_TYPE_COUNT < 256, "modifier codes must fit in uint8_t");
_Static_assert(PTX_MODENUM_COUNT - PTX_MODENUM_FLAG_FTZ <= 32, "flags must fit in 32 bits");

bool ptx_mod_lookup(const char *s, size_t n, uint32_t cats, ptx_modcat *cat, uint8_t *val)
{
    for (int i = 0; i < NMODS; i++)
        if ((cats & (1u << mods[i].cat)) && eq(mods[i].text, s, n)) {
            *cat = (ptx_modcat)mods[i].cat;
            *val = (uint8_t)(i + 1);
            return true;
        }
    return false;
}

bool ptx_mod_exists(const char *s, size_t n)
{
    for (int i = 0; i < NMODS; i++)
        if (eq(mods[i].text, s, n))
            return true;
    return false;
}

const char *ptx_mod_text(ptx_modcat cat, uint8_t val)
{
    (void)cat;
    return val >= 1 && val <= NMODS ? mods[val - 1].text : "?";
}

/* ---- special registers ---- */

static const struct {
    const char *name;
    ptx_type type;
    bool comp;
} sregs[] = {
    {"", PTX_TYPE_NONE, 0},
#define X(e, n, t, comp) {n, PTX_TYPE_##t, comp},
#include "sregs.def"
#undef X
};

const char *ptx_sreg_name(ptx_sreg r) { return sregs[r].name; }
ptx_type ptx_sreg_type(ptx_sreg r) { return sregs[r].type; }
bool ptx_sreg_has_comp(ptx_sreg r) { return sregs[r].comp; }

ptx_sreg ptx_sreg_lookup(const char *s, size_t n, uint32_t *index)
{
    *index = 0;
    for (int i = 1; i < PTX_SREG_COUNT; i++)
        if (eq(sregs[i].name, s, n))
            return (ptx_sreg)i;
    /* Register families with an index: %envreg0..31, %pm0..7, %pm0_64.. */
    static const struct { ptx_sreg r; const char *prefix, *suffix; uint32_t count; } fam[] = {
        {PTX_SREG_ENVREG, "%envreg", "", 32},
        {PTX_SREG_PM64, "%pm", "_64", 8},
        {PTX_SREG_PM, "%pm", "", 8},
    };
    for (size_t f = 0; f < sizeof fam / sizeof fam[0]; f++) {
        size_t pl = strlen(fam[f].prefix), sl = strlen(fam[f].suffix);
        if (n <= pl + sl || strncmp(s, fam[f].prefix, pl) != 0 ||
            strncmp(s + n - sl, fam[f].suffix, sl) != 0)
            continue;
        uint32_t v = 0;
        size_t i = pl;
        for (; i < n - sl && s[i] >= '0' && s[i] <= '9' && i - pl < 3; i++)
            v = v * 10 + (uint32_t)(s[i] - '0');
        if (i == n - sl && i > pl && v < fam[f].count) {
            *index = v;
            return fam[f].r;
        }
    }
    return PTX_SREG_NONE;
}

/* ---- declaration state spaces ---- */

static const char *const spaces[PTX_SP_COUNT] = {
    "", "reg", "sreg", "const", "global", "local", "param", "shared", "tex",
};

const char *ptx_space_name(ptx_space s) { return s < PTX_SP_COUNT ? spaces[s] : "?"; }
