/* module_meta.c - building module metadata from the lowering's result, and
 * freeing it. */
#include "module_meta.h"

#include "lower.h"

#include <stdlib.h>
#include <string.h>

static void free_kernel(mm_kernel *k)
{
    for (uint32_t i = 0; i < k->info.nparams; i++) {
        free((char *)k->info.params[i].name);
        free((char *)k->info.params[i].type);
    }
    free((ptxjit_param_info *)k->info.params);
    free((char *)k->info.name);
    free(k->symbol);
}

void module_meta_free(module_meta *mm)
{
    for (uint32_t i = 0; i < mm->nkernels; i++)
        free_kernel(&mm->kernels[i]);
    for (uint32_t i = 0; i < mm->nglobals; i++) {
        free(mm->globals[i].name);
        free(mm->globals[i].symbol);
    }
    free(mm->kernels);
    free(mm->globals);
    memset(mm, 0, sizeof *mm);
}

_Static_assert(PTX_MAX_DIMS <= PTXJIT_MAX_DIMS, "parameter dimensions do not fit");

/* CUDA's layout: each parameter at the next multiple of its alignment
 * (.align if given, else the element size). */
static int param_info(const ptx_var *p, uint32_t *off, ptxjit_param_info *pi)
{
    uint32_t esz = ptx_type_size(p->type) * (p->vec ? p->vec : 1);
    uint64_t count = 1;
    for (uint32_t d = 0; d < p->ndims && d < PTX_MAX_DIMS; d++) {
        count *= p->dims[d]; /* an unsized [] gives 0 bytes */
        pi->dims[pi->ndims++] = p->dims[d];
    }
    uint64_t size = esz * count;
    uint32_t align = p->align ? p->align : (esz ? esz : 1);
    if (size > UINT32_MAX / 2)
        return -1;
    *off = (*off + align - 1) / align * align;
    pi->name = strdup(p->name ? p->name : "");
    pi->type = strdup(ptx_type_name(p->type));
    pi->vec = p->vec;
    pi->count = count;
    pi->offset = *off;
    pi->size = (uint32_t)size;
    pi->align = align;
    *off += (uint32_t)size;
    return pi->name && pi->type ? 0 : -1;
}

static int kernel_meta(const lower_kernel *lk, mm_kernel *k)
{
    const ptx_func *f = lk->func;
    ptxjit_kernel_info *ki = &k->info;
    ki->name = strdup(f->name);
    k->symbol = strdup(lk->symbol);
    ptxjit_param_info *params = calloc(f->nparams ? f->nparams : 1, sizeof *params);
    ki->params = params;
    if (!ki->name || !k->symbol || !params)
        return -1;
    uint32_t off = 0;
    for (uint32_t i = 0; i < f->nparams; i++, ki->nparams++)
        if (param_info(f->params[i], &off, &params[i]))
            return -1;
    ki->param_bytes = off;
    ki->static_smem = lk->static_smem;
    ki->dyn_smem_align = lk->dyn_smem_align;
    memcpy(ki->reqntid, f->reqntid, sizeof ki->reqntid);
    memcpy(ki->maxntid, f->maxntid, sizeof ki->maxntid);
    ki->minnctapersm = f->minnctapersm;
    ki->maxnreg = f->maxnreg;
    ki->uses_barriers = lk->uses_barriers;
    ki->frame_size = lk->frame_size;
    return 0;
}

int module_meta_from_lower(const lower_result *lr, module_meta *mm)
{
    memset(mm, 0, sizeof *mm);
    mm->kernels = calloc(lr->nkernels ? lr->nkernels : 1, sizeof *mm->kernels);
    mm->globals = calloc(lr->nglobals ? lr->nglobals : 1, sizeof *mm->globals);
    if (!mm->kernels || !mm->globals)
        goto fail;
    for (uint32_t i = 0; i < lr->nkernels; i++)
        if (mm->nkernels++, kernel_meta(&lr->kernels[i], &mm->kernels[i]))
            goto fail;
    for (uint32_t i = 0; i < lr->nglobals; i++) {
        mm_global *g = &mm->globals[mm->nglobals++];
        g->name = strdup(lr->globals[i].var->name);
        g->symbol = strdup(lr->globals[i].symbol);
        g->size = lr->globals[i].size;
        g->is_const = lr->globals[i].is_const;
        g->managed = lr->globals[i].managed;
        if (!g->name || !g->symbol)
            goto fail;
    }
    return 0;
fail:
    module_meta_free(mm);
    return -1;
}
