/* check_internal.h - the checker's state and operand rules, shared by
 * check.c and the per-family rule files (check_tex.c). */
#ifndef PTX_CHECK_INTERNAL_H
#define PTX_CHECK_INTERNAL_H

#include "ptx.h"
#include "symtab.h"

typedef struct checker {
    ptx_module *m;
    ptx_diags *diags;
    uint32_t errors;
    symtab globals;      /* module variables and functions */
    symtab locals;       /* params, body variables (scoped) */
    symtab labels;       /* labels, prototypes, branch/call target tables */
    const ptx_func *func;
} checker;

#define ERR(c, loc, ...) ((c)->errors++, ptx_diag_add((c)->diags, (loc), __VA_ARGS__))

typedef enum role { SRC, DST } role;

bool check_is_reg(const ptx_operand *o);
/* A value operand of type `want` (relaxed: ld/st/cvt's size rules). */
void check_value(checker *c, const ptx_operand *o, ptx_type want, role r, bool relaxed);
void check_pred(checker *c, const ptx_operand *o, role r);

/* check_forms.c: type and target rules of ordinary instructions */
void check_forms(checker *c, const ptx_instr *in);
/* check_mma.c: mma.sync, ldmatrix, stmatrix, movmatrix (false: another instruction) */
bool check_matrix(checker *c, const ptx_instr *in);

/* check_tex.c: tex, tld4, txq, suld, sust, sured, suq, istypep (others: nothing) */
void check_texture(checker *c, const ptx_instr *in);
/* The initializer of a .texref/.samplerref/.surfref variable; false for
 * other variables (checked as data). */
bool check_ref_init(checker *c, const ptx_var *v);

/* check_wmma.c: wmma.load, wmma.store, wmma.mma */
void check_wmma(checker *c, const ptx_instr *in);

#endif
