/* lower_space.c - which state space a generic address is in (isspacep),
 * and the cluster forms of a cluster of one CTA (mapa, getctarank, the
 * cluster special registers' launch rule).
 *
 * Windows (DESIGN.md "Memory"): .shared is the CTA's shared window,
 * [base, base + static + dynamic bytes); .local the running warp's stack
 * (the runtime knows its bounds); .param the kernel's parameter buffer;
 * .const the module's .const variables.  .global is every address in
 * neither the shared nor the local window: the ISA contains the .param
 * window in the .global one, and .const data is global memory too. */
#include "lower_internal.h"

static LLVMValueRef in_range(fn *F, LLVMValueRef a, LLVMValueRef lo, LLVMValueRef hi)
{
    lw *L = F->L;
    LLVMValueRef ge = LLVMBuildICmp(L->b, LLVMIntUGE, a, splat(L, lo), "");
    LLVMValueRef lt = LLVMBuildICmp(L->b, LLVMIntULT, a, splat(L, hi), "");
    return LLVMBuildAnd(L->b, ge, lt, "");
}

static LLVMValueRef in_shared(fn *F, LLVMValueRef a)
{
    lw *L = F->L;
    LLVMValueRef base = LLVMBuildPtrToInt(L->b, F->shared_base, L->i64, "");
    LLVMValueRef launch = load_field(F, F->cta, PTXJIT_CTA_GRID, L->ptr);
    LLVMValueRef dyn = load_field(F, launch, PTXJIT_GRID_DYNAMIC_SMEM, L->i32);
    LLVMValueRef size = LLVMBuildAdd(L->b, dyn_smem_offset(L), LLVMBuildZExt(L->b, dyn, L->i64, ""), "");
    return in_range(F, a, base, LLVMBuildAdd(L->b, base, size, ""));
}

/* The running warp's .local window [lo, hi) (i64s), asked of the runtime
 * by code emitted with b: lo is the stack pointer where it is asked, hi
 * the warp's stack top, the same wherever it is asked. */
void local_window(fn *F, LLVMBuilderRef b, LLVMValueRef out[2])
{
    lw *L = F->L;
    LLVMValueRef bounds = entry_alloca(F, LLVMArrayType2(L->i64, 2), "local.window");
    LLVMTypeRef p[3] = {L->ptr, L->i32, L->ptr};
    LLVMValueRef f = declare_rt(L, "ptxjit_rt_local_window", L->voidt, p, 3);
    LLVMValueRef args[3] = {F->cta, current_warp(F), bounds};
    LLVMBuildCall2(b, LLVMGlobalGetValueType(f), f, args, 3, "");
    LLVMValueRef one = const_i64(L, 1);
    out[0] = LLVMBuildLoad2(b, L->i64, bounds, "");
    out[1] = LLVMBuildLoad2(b, L->i64, LLVMBuildGEP2(b, L->i64, bounds, &one, 1, ""), "");
}

static LLVMValueRef in_local(fn *F, LLVMValueRef a)
{
    LLVMValueRef w[2];
    local_window(F, F->L->b, w);
    return in_range(F, a, w[0], w[1]);
}

static LLVMValueRef in_const(fn *F, LLVMValueRef a)
{
    lw *L = F->L;
    LLVMValueRef r = LLVMConstNull(vec_of(L->i1));
    for (uint32_t i = 0; i < L->m->nitems; i++) {
        const ptx_item *it = &L->m->items[i];
        LLVMValueRef g = it->kind == PTX_ITEM_VAR && it->var->space == PTX_SP_CONST
                             ? ptrmap_get(&L->globals, it->var) : NULL;
        if (!g)
            continue;
        LLVMValueRef lo = LLVMBuildPtrToInt(L->b, g, L->i64, "");
        LLVMValueRef hi = LLVMBuildAdd(L->b, lo, const_i64(L, decl_size(it->var)), "");
        r = LLVMBuildOr(L->b, r, in_range(F, a, lo, hi), "");
    }
    return r;
}

/* Bytes of a kernel's parameters (CUDA's layout). */
static uint64_t params_size(const ptx_func *f)
{
    if (!f->nparams)
        return 0;
    const ptx_var *last = f->params[f->nparams - 1];
    return kernel_param_offset(f, last) + decl_size(last);
}

/* The kernel parameter window.  A .func does not know its kernel: it uses
 * the largest parameter buffer of the module's kernels. */
static LLVMValueRef in_param(fn *F, LLVMValueRef a)
{
    lw *L = F->L;
    uint64_t size = 0;
    if (F->is_entry) {
        size = params_size(F->f);
    } else {
        for (uint32_t i = 0; i < L->m->nitems; i++) {
            const ptx_item *it = &L->m->items[i];
            if (it->kind == PTX_ITEM_FUNC && it->func->is_entry && params_size(it->func) > size)
                size = params_size(it->func);
        }
    }
    LLVMValueRef launch = load_field(F, F->cta, PTXJIT_CTA_GRID, L->ptr);
    LLVMValueRef base = LLVMBuildPtrToInt(L->b, load_field(F, launch, PTXJIT_GRID_PARAMS, L->ptr), L->i64, "");
    return in_range(F, a, base, LLVMBuildAdd(L->b, base, const_i64(L, size), ""));
}

static void lower_isspacep(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    lw *L = F->L;
    LLVMValueRef a = read_opd(F, &in->opds[1], PTX_TYPE_U64, false), r;
    switch (in->mod[PTX_CAT_SPACE]) {
    case PTX_SPACE_SHARED:
    case PTX_SPACE_SHARED_CTA:
    case PTX_SPACE_SHARED_CLUSTER: /* the cluster's shared memory is this CTA's */
        r = in_shared(F, a);
        break;
    case PTX_SPACE_LOCAL:
        r = in_local(F, a);
        break;
    case PTX_SPACE_CONST:
        r = in_const(F, a);
        break;
    case PTX_SPACE_PARAM:
    case PTX_SPACE_PARAM_ENTRY:
        r = in_param(F, a);
        break;
    case PTX_SPACE_GLOBAL:
        r = LLVMBuildNot(L->b, LLVMBuildOr(L->b, in_shared(F, a), in_local(F, a), ""), "");
        break;
    default:
        lw_error(L, in->loc, "isspacep needs .global, .shared, .local, .const or .param");
        return;
    }
    write_reg(F, &in->opds[0], r, PTX_TYPE_PRED, false, mask);
}

/* mapa{.shared::cluster}.type d, a, rank: a's counterpart in the CTA of
 * the given rank; the only CTA of the cluster is rank 0, itself. */
static void lower_mapa(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    ptx_type t = (ptx_type)in->types[0];
    const ptx_operand *a = &in->opds[1];
    LLVMValueRef v;
    if (a->kind == PTX_OPD_NAME && a->var && a->var->space != PTX_SP_REG)
        v = to_type(F, var_address(F, a, in->loc), PTX_TYPE_U64, t, false);
    else
        v = read_opd(F, a, t, false);
    write_reg(F, &in->opds[0], v, t, false, mask);
}

bool lower_space(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    switch (in->op) {
    case PTX_OP_ISSPACEP:
        lower_isspacep(F, in, mask);
        return true;
    case PTX_OP_MAPA:
        lower_mapa(F, in, mask);
        return true;
    case PTX_OP_GETCTARANK: /* every shared address is rank 0's */
        write_reg(F, &in->opds[0], LLVMConstNull(vec_of(F->L->i32)), PTX_TYPE_U32, false, mask);
        return true;
    default:
        return false;
    }
}

/* A kernel that needs clusters of more than one CTA cannot run exactly. */
void check_cluster_dims(lw *L, const ptx_func *f)
{
    const uint32_t *d = f->reqnctapercluster;
    uint64_t n = (uint64_t)(d[0] ? d[0] : 1) * (d[1] ? d[1] : 1) * (d[2] ? d[2] : 1);
    if (n > 1)
        lw_error(L, f->loc, "kernel '%s' needs clusters of %llu CTAs (.reqnctapercluster); "
                            "ptxjit runs clusters of one CTA", f->name, (unsigned long long)n);
}

bool kernel_is_explicit_cluster(const ptx_func *f)
{
    return f->is_entry && (f->explicitcluster || f->reqnctapercluster[0]);
}
