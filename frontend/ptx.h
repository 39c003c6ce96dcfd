/* ptx.h - the PTX frontend: IR, parser, checker, printer.
 *
 * A module is parsed into one arena; every node records its source location.
 * Parsing builds the syntax tree with names; ptx_check() then resolves names
 * to declarations and checks types.  Nothing here depends on LLVM. */
#ifndef PTX_H
#define PTX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ptx_arena ptx_arena;

typedef struct ptx_loc {
    uint32_t line, col;
} ptx_loc;

/* ---- enumerations generated from the tables ---- */

typedef enum ptx_type {
    PTX_TYPE_NONE,
#define X(e, n, sz, cls) PTX_TYPE_##e,
#include "types.def"
#undef X
    PTX_TYPE_COUNT
} ptx_type;

typedef enum ptx_opcode {
    PTX_OP_NONE,
#define X(e, n, shape, cats, flags, eff) PTX_OP_##e,
#include "ops.def"
#undef X
    PTX_OP_COUNT
} ptx_opcode;

typedef enum ptx_sreg {
    PTX_SREG_NONE,
#define X(e, n, t, comp) PTX_SREG_##e,
#include "sregs.def"
#undef X
    PTX_SREG_COUNT
} ptx_sreg;

/* Modifier categories; each instruction holds one value per category. */
typedef enum ptx_modcat {
    PTX_CAT_SPACE, PTX_CAT_SPACE2, PTX_CAT_ROUND, PTX_CAT_CMP, PTX_CAT_BOOL,
    PTX_CAT_RED, PTX_CAT_MODE, PTX_CAT_WIDTH, PTX_CAT_SEM, PTX_CAT_SCOPE,
    PTX_CAT_CACHE, PTX_CAT_L1, PTX_CAT_L2, PTX_CAT_PREFSZ, PTX_CAT_LEVEL,
    PTX_CAT_VEC, PTX_CAT_SHAPE, PTX_CAT_LAYOUT, PTX_CAT_LAYOUT2, PTX_CAT_NUM,
    PTX_CAT_FRAG, PTX_CAT_COMPLETION, PTX_CAT_L2B, PTX_CAT_SCALE,
    /* textures and surfaces */
    PTX_CAT_GEOM, PTX_CAT_TEXMODE, PTX_CAT_COMP, PTX_CAT_QUERY, PTX_CAT_SUCLAMP, PTX_CAT_SUFMT,
    PTX_CAT_FLAG, PTX_CAT_COUNT
} ptx_modcat;

/* Modifier values: PTX_<CATEGORY>_<VALUE>, unique across categories (the
 * table index + 1) so that 0 means absent.  FLAG values are turned into bits
 * of ptx_instr.flags by PTX_FLAG_BIT. */
#define X(cat, val, text) PTX_MODENUM_##cat##_##val,
enum ptx_modenum_all {
#include "mods.def"
    PTX_MODENUM_COUNT
};
#undef X


#define X(cat, val, text) PTX_##cat##_##val = PTX_MODENUM_##cat##_##val + 1,
enum ptx_mod_value {
#include "mods.def"
};
#undef X

#define PTX_SUFFIX_TYPE (PTX_MODENUM_COUNT + 1)
#define PTX_FLAG_BIT(f) (1u << (PTX_FLAG_##f - PTX_FLAG_FTZ))

/* State spaces for declarations (instruction spaces use PTX_SPACE_*). */
typedef enum ptx_space {
    PTX_SP_NONE, PTX_SP_REG, PTX_SP_SREG, PTX_SP_CONST, PTX_SP_GLOBAL,
    PTX_SP_LOCAL, PTX_SP_PARAM, PTX_SP_SHARED, PTX_SP_TEX, PTX_SP_COUNT
} ptx_space;

enum ptx_linkage {
    PTX_LINK_VISIBLE = 1, PTX_LINK_EXTERN = 2, PTX_LINK_WEAK = 4, PTX_LINK_COMMON = 8,
};

/* ---- initializers ---- */

typedef enum ptx_init_kind {
    PTX_INIT_INT,     /* ival */
    PTX_INIT_F32,     /* bits of a 0f literal */
    PTX_INIT_F64,     /* bits of a 0d or decimal literal */
    PTX_INIT_SYM,     /* address of sym + ival */
    PTX_INIT_GENERIC, /* generic(sym) + ival */
    PTX_INIT_MASK,    /* mask(sym + ival): bits of the address selected by mask */
    PTX_INIT_LIST,    /* { elems } */
    PTX_INIT_NAMED,   /* sym = elems[0]: a .samplerref attribute (addr_mode_0 = wrap) */
} ptx_init_kind;

typedef struct ptx_init {
    ptx_init_kind kind;
    ptx_loc loc;
    uint64_t ival;
    uint64_t mask;
    const char *sym;
    struct ptx_init **elems;
    uint32_t nelems;
} ptx_init;

/* ---- declarations ---- */

#define PTX_MAX_DIMS 4
#define PTX_WARP_SZ 32 /* the predefined constant WARP_SZ */

typedef struct ptx_var {
    const char *name;
    ptx_loc loc;
    ptx_space space;
    uint8_t space_sub;   /* PTX_SPACE_* qualifier, e.g. shared::cluster */
    ptx_type type;
    uint8_t vec;         /* 0, 2, 4 or 8 */
    uint32_t align;      /* 0 = natural */
    uint32_t linkage;    /* PTX_LINK_* */
    uint32_t nreg;       /* %r<100>: 100; 0 for a plain name */
    uint32_t ndims;
    uint64_t dims[PTX_MAX_DIMS]; /* 0 = unsized [] */
    bool is_ptr;         /* kernel param .ptr attribute */
    uint8_t ptr_space;   /* PTX_SP_* of .ptr.<space> */
    uint32_t ptr_align;
    bool managed;        /* .attribute(.managed) */
    ptx_init *init;
} ptx_var;

/* ---- operands ---- */

typedef enum ptx_opd_kind {
    PTX_OPD_NAME,  /* register, variable, function or label; see var/func/label */
    PTX_OPD_SREG,  /* special register: sreg, sreg_index, comp */
    PTX_OPD_IMM,   /* integer constant: imm */
    PTX_OPD_F32,   /* imm holds f32 bits */
    PTX_OPD_F64,   /* imm holds f64 bits */
    PTX_OPD_ADDR,  /* [base + imm]: elems[0] is the base, or nelems = 0 */
    PTX_OPD_VEC,   /* {a, b, ...} */
    PTX_OPD_LIST,  /* (a, b, ...) in call */
    PTX_OPD_PAIR,  /* d|p: elems[0], elems[1] */
    PTX_OPD_SINK,  /* _ */
    PTX_OPD_TEXADDR, /* [tex, {coords}] or [tex, sampler, {coords}]: elems, the last a vector */
} ptx_opd_kind;

/* Byte and half-word selectors of scalar video operands (%r.b0 .. %r.h1). */
typedef enum ptx_vsel {
    PTX_VSEL_NONE, PTX_VSEL_B0, PTX_VSEL_B1, PTX_VSEL_B2, PTX_VSEL_B3, PTX_VSEL_H0, PTX_VSEL_H1
} ptx_vsel;

typedef struct ptx_operand {
    ptx_opd_kind kind;
    ptx_loc loc;
    bool neg;            /* !p */
    uint8_t comp;        /* .x .y .z .w = 1..4 */
    uint8_t vsel;        /* scalar video selector: ptx_vsel */
    bool minus;          /* -a: a vmad operand negated */
    bool has_offset;     /* NAME + imm (a register or variable plus a constant): imm */
    uint16_t sreg;       /* ptx_sreg for PTX_OPD_SREG */
    uint32_t sreg_index; /* %envreg3 -> 3 */
    const char *name;
    uint64_t imm;
    struct ptx_operand *elems;
    /* resolved by ptx_check(): */
    ptx_var *var;        /* register or variable */
    struct ptx_func *func;
    uint32_t nelems;     /* of elems (the 32-bit fields last: no padding) */
    uint32_t reg_index;  /* resolved: element of a parameterized register */
    int32_t label;       /* resolved: statement index of the label, -1 if none */
} ptx_operand;

/* ---- instructions and function bodies ---- */

typedef struct ptx_instr {
    ptx_loc loc;
    ptx_opcode op;
    uint8_t ntypes;
    uint8_t types[4];                /* ptx_type */
    uint8_t mod[PTX_CAT_COUNT];      /* ptx_mod_value per category; FLAG unused */
    uint32_t flags;                  /* PTX_FLAG_BIT(...) */
    uint8_t nsuffix;                 /* the modifiers in source order, for printing: */
    uint8_t suffix[16];              /* a mod value, or PTX_SUFFIX_TYPE + type */
    bool has_guard;
    ptx_operand guard;               /* @p or @!p */
    ptx_operand *opds;
    uint32_t nopds;
} ptx_instr;

typedef enum ptx_stmt_kind {
    PTX_STMT_INSTR,
    PTX_STMT_LABEL,         /* name */
    PTX_STMT_VAR,           /* var: .reg/.local/.shared/.param declaration */
    PTX_STMT_SCOPE_BEGIN,   /* { */
    PTX_STMT_SCOPE_END,     /* } */
    PTX_STMT_PRAGMA,        /* text */
    PTX_STMT_PROTOTYPE,     /* name: .callprototype; proto */
    PTX_STMT_BRANCHTARGETS, /* name: .branchtargets labels */
    PTX_STMT_CALLTARGETS,   /* name: .calltargets funcs */
} ptx_stmt_kind;

typedef struct ptx_stmt {
    ptx_stmt_kind kind;
    ptx_loc loc;
    const char *name;
    ptx_instr *instr;
    ptx_var *var;
    const char *text;
    struct ptx_func *proto;
    ptx_operand *targets; /* labels or functions, as PTX_OPD_NAME */
    uint32_t ntargets;
} ptx_stmt;

typedef struct ptx_func {
    const char *name;
    ptx_loc loc;
    bool is_entry;
    bool has_body;
    bool noreturn;
    uint32_t linkage;
    ptx_var **params;
    uint32_t nparams;
    ptx_var **rets;
    uint32_t nrets;
    uint32_t maxntid[3], reqntid[3], reqnctapercluster[3];
    uint32_t minnctapersm, maxnctapersm, maxnreg, maxclusterrank;
    bool explicitcluster;
    const char **pragmas;
    uint32_t npragmas;
    ptx_stmt *body;
    uint32_t nbody;
} ptx_func;

typedef enum ptx_item_kind { PTX_ITEM_VAR, PTX_ITEM_FUNC, PTX_ITEM_PRAGMA } ptx_item_kind;

typedef struct ptx_item {
    ptx_item_kind kind;
    ptx_var *var;
    ptx_func *func;
    const char *text;
} ptx_item;

enum ptx_target_flags {
    PTX_TARGET_TEXMODE_UNIFIED = 1, PTX_TARGET_TEXMODE_INDEPENDENT = 2,
    PTX_TARGET_DEBUG = 4, PTX_TARGET_MAP_F64_TO_F32 = 8,
};

typedef struct ptx_module {
    ptx_arena *arena;
    const char *filename;
    uint32_t version_major, version_minor;
    uint32_t sm;          /* 80 for sm_80 */
    char sm_suffix;       /* 'a', 'f' or 0 */
    uint32_t target_flags;
    uint32_t address_size;
    ptx_item *items;
    uint32_t nitems;
} ptx_module;

/* ---- diagnostics ---- */

typedef struct ptx_diag {
    ptx_loc loc;
    char *msg;
} ptx_diag;

typedef struct ptx_diags {
    ptx_diag *v;
    uint32_t n, cap;
    uint32_t dropped;    /* errors beyond the cap, counted but not stored */
} ptx_diags;

#define PTX_MAX_DIAGS 200

/* ---- API ---- */

/* Parses src[0..len) (need not be NUL-terminated).  Always returns a module
 * (possibly partial); errors go to diags.  Returns NULL only when out of
 * memory. */
ptx_module *ptx_parse(const char *src, size_t len, const char *filename, ptx_diags *diags);

/* Resolves names and checks types; returns the number of errors added. */
uint32_t ptx_check(ptx_module *m, ptx_diags *diags);

void ptx_module_free(ptx_module *m);

/* Writes m as PTX text; returns a malloc'd NUL-terminated string. */
char *ptx_print(const ptx_module *m);

/* Structural equality of two modules (names, types, modifiers, operands).
 * On a difference, writes a short description to why (if non-NULL). */
bool ptx_module_equal(const ptx_module *a, const ptx_module *b, char *why, size_t whylen);

void ptx_diags_free(ptx_diags *d);
void ptx_diag_add(ptx_diags *d, ptx_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Prints "file:line:col: error: msg" plus the source line and a caret. */
void ptx_diags_print(const ptx_diags *d, const char *filename, const char *src, size_t len,
                     void *stream);

/* ---- tables ---- */

const char *ptx_type_name(ptx_type t);
uint32_t ptx_type_size(ptx_type t);
uint32_t ptx_type_bits(ptx_type t); /* of an element: 4 for .s4/.u4, 1 for .b1 */
/* A .samplerref attribute's value (check_tex.c): addr_mode_N: 0 wrap,
 * 1 clamp_to_edge, 2 mirror, 3 clamp_to_border, 4 clamp_ogl; filter_mode:
 * 0 nearest, 1 linear; -1 when unknown. */
int ptx_sampler_value(const char *attr, const char *value);
/* Elements of an instruction's .v2/.v4/.v8 modifier (1 without one). */
uint32_t ptx_vec_count(const ptx_instr *in);
char ptx_type_class(ptx_type t); /* 'B','U','S','F','P','O' */
ptx_type ptx_type_lookup(const char *s, size_t n);

const char *ptx_op_name(ptx_opcode op);
const char *ptx_op_shape(ptx_opcode op);
uint32_t ptx_op_cats(ptx_opcode op);   /* bit per ptx_modcat */
uint32_t ptx_op_flags(ptx_opcode op);  /* allowed PTX_FLAG_BIT()s */
uint32_t ptx_op_effects(ptx_opcode op);
ptx_opcode ptx_op_lookup(const char *s, size_t n);
bool ptx_op_is_prefix(const char *s, size_t n); /* some compound name starts with s. */

enum ptx_effect { E_BRANCH = 1, E_TERM = 2, E_CALL = 4, E_MEM = 8, E_SYNC = 16, E_WARP = 32 };

/* Finds the modifier `text` in a category allowed by `cats`; returns its
 * category and value, or false. */
bool ptx_mod_lookup(const char *s, size_t n, uint32_t cats, ptx_modcat *cat, uint8_t *val);
const char *ptx_mod_text(ptx_modcat cat, uint8_t val);
bool ptx_mod_exists(const char *s, size_t n);

const char *ptx_sreg_name(ptx_sreg r);
ptx_type ptx_sreg_type(ptx_sreg r);
bool ptx_sreg_has_comp(ptx_sreg r);
ptx_sreg ptx_sreg_lookup(const char *s, size_t n, uint32_t *index);

const char *ptx_space_name(ptx_space s);

/* ---- mma.sync forms (mma_form.c) ---- */

/* One mma.sync form: D (MxN) = A (MxK) * B (KxN) + C.  Per lane, operand
 * w (A, B, C, D) holds elems[w] elements in nregs[w] registers of
 * regbytes[w] bytes, lowest element in the lowest bits. */
typedef struct ptx_mma_form {
    uint16_t m, n, k;
    ptx_type a, b, c, d;
    bool quad_pairs;   /* m8n8k4 .f16: four products, one per quad pair of lanes */
    bool a_col, b_col; /* column-major A, B (only m8n8k4 .f16 differs from .row.col) */
    bool satfinite, and_popc;
    uint8_t rnd;       /* f64: PTX_ROUND_RN/RZ/RM/RP, 0 when not written (RN) */
    uint8_t nregs[4], regbytes[4];
    uint16_t elems[4];
} ptx_mma_form;

/* Fills *f and returns NULL when ptxas takes the mma instruction in for
 * sm_90; otherwise returns why not. */
const char *ptx_mma_form_of(const ptx_instr *in, ptx_mma_form *f);

/* ---- wmma operand geometry (wmma.c) ---- */

/* The M, N, K of a wmma shape; false for shapes wmma does not have. */
bool ptx_wmma_dims(uint8_t shape, uint32_t *m, uint32_t *n, uint32_t *k);

/* One fragment: the matrix it is a part of (A MxK, B KxN, C and D MxN), its
 * elements per lane and the registers that hold them. */
typedef struct ptx_wmma_fragment {
    uint32_t rows, cols;
    ptx_type type;       /* element type */
    uint32_t elems;      /* per lane */
    uint32_t nregs, reg_bits;
    ptx_type reg_type;   /* what each register is checked against */
} ptx_wmma_fragment;

/* Fragment `frag` (PTX_FRAG_*) of `shape` with elements of type t; false
 * when the shape has no such fragment type. */
bool ptx_wmma_frag(uint8_t shape, uint8_t frag, ptx_type t, ptx_wmma_fragment *f);

#endif
