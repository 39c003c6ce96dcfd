/* ptxjit.c - the whole pipeline in order, behind the embedding API:
 *
 *   PTX text -> parse -> check -> lower (LLVM IR, verified) -> optimize ->
 *   codegen -> load (LLJIT) -> look up warp functions -> launch (rt)
 *
 * Each stage only runs on the previous stage's clean output. */
#include "ptxjit/ptxjit.h"

#include "jit.h"
#include "launch.h"
#include "lower.h"
#include "ptx.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct ptxjit_kernel {
    rt_kernel rt;
    const ptx_func *decl;
};

struct ptxjit_module {
    ptxjit_ctx *ctx;
    ptx_module *ir;
    ptxjit_kernel *kernels;
    uint32_t nkernels;
    ptxjit_stats stats;
};

struct ptxjit_ctx {
    rt_device *dev;
    jit_engine *jit;
    LLVMContextRef llvm;
    pthread_mutex_t lock; /* LLVM contexts are single-threaded: one load at a time */
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

ptxjit_ctx *ptxjit_create(unsigned threads, char *err, size_t errlen)
{
    ptxjit_ctx *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    size_t n;
    const rt_symbol *rs = rt_entry_points(&n);
    jit_symbol *syms = calloc(n, sizeof *syms);
    for (size_t i = 0; syms && i < n; i++)
        syms[i] = (jit_symbol){rs[i].name, rs[i].addr};
    c->jit = syms ? jit_create(syms, n, err, errlen) : NULL;
    free(syms);
    c->dev = c->jit ? rt_device_create(threads) : NULL;
    if (!c->dev) {
        if (c->jit)
            snprintf(err, errlen, "cannot start the worker pool");
        ptxjit_destroy(c);
        return NULL;
    }
    c->llvm = LLVMContextCreate();
    pthread_mutex_init(&c->lock, NULL);
    return c;
}

void ptxjit_destroy(ptxjit_ctx *c)
{
    if (!c)
        return;
    rt_device_destroy(c->dev);
    jit_destroy(c->jit);
    if (c->llvm) {
        LLVMContextDispose(c->llvm);
        pthread_mutex_destroy(&c->lock);
    }
    free(c);
}

/* Renders diagnostics into a malloc'd log (the same text ptxjit check prints). */
static char *render_log(const ptx_diags *d, const char *name, const char *src, size_t len)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    if (!f)
        return NULL;
    ptx_diags_print(d, name, src, len, f);
    fclose(f);
    return buf;
}

static ptxjit_module *fail(ptxjit_module *m, ptx_diags *d, const char *name, const char *src,
                           size_t len, char **log)
{
    if (log)
        *log = render_log(d, name, src, len);
    ptx_diags_free(d);
    ptxjit_module_unload(m);
    return NULL;
}

static ptxjit_module *load_locked(ptxjit_ctx *c, const char *src, size_t len, const char *name,
                                  char **log, ptxjit_stats *stats);

ptxjit_module *ptxjit_load(ptxjit_ctx *c, const char *src, size_t len, const char *name,
                           char **log, ptxjit_stats *stats)
{
    pthread_mutex_lock(&c->lock);
    ptxjit_module *m = load_locked(c, src, len, name, log, stats);
    pthread_mutex_unlock(&c->lock);
    return m;
}

static ptxjit_module *load_locked(ptxjit_ctx *c, const char *src, size_t len, const char *name,
                                  char **log, ptxjit_stats *stats)
{
    ptxjit_stats st = {0};
    ptx_diags d = {0};
    if (log)
        *log = NULL;
    ptxjit_module *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->ctx = c;
    double t0 = now();
    m->ir = ptx_parse(src, len, name, &d);
    if (!m->ir || d.n || ptx_check(m->ir, &d))
        return fail(m, &d, name, src, len, log);
    double t1 = now();
    lower_result lr;
    if (lower_module(m->ir, c->llvm, jit_target_machine(c->jit), &lr, &d))
        return fail(m, &d, name, src, len, log);
    st.parse = t1 - t0;
    st.lower = now() - t1;
    m->kernels = calloc(lr.nkernels ? lr.nkernels : 1, sizeof *m->kernels);
    char err[512];
    jit_times jt;
    if (!m->kernels || jit_add_module(c->jit, lr.mod, &jt, err, sizeof err)) {
        ptx_diag_add(&d, (ptx_loc){1, 1}, "%s", m->kernels ? err : "out of memory");
        lower_result_free(&lr);
        return fail(m, &d, name, src, len, log);
    }
    double t2 = now();
    for (uint32_t i = 0; i < lr.nkernels; i++) {
        lower_kernel *lk = &lr.kernels[i];
        ptxjit_kernel *k = &m->kernels[m->nkernels];
        k->decl = lk->func;
        k->rt = (rt_kernel){lk->func->name, (ptxjit_warp_fn)jit_lookup(c->jit, lk->symbol),
                            lk->static_smem, lk->dyn_smem_align, lk->uses_barriers};
        if (!k->rt.fn) {
            ptx_diag_add(&d, lk->func->loc, "internal error: kernel '%s' did not load",
                         lk->func->name);
            lower_result_free(&lr);
            return fail(m, &d, name, src, len, log);
        }
        m->nkernels++;
    }
    lower_result_free(&lr);
    st.optimize = jt.optimize;
    st.codegen = jt.codegen;
    st.load = jt.load + (now() - t2);
    m->stats = st;
    if (stats)
        *stats = st;
    ptx_diags_free(&d);
    return m;
}

/* Loaded code stays in the JIT until the context is destroyed. */
void ptxjit_module_unload(ptxjit_module *m)
{
    if (!m)
        return;
    ptx_module_free(m->ir);
    free(m->kernels);
    free(m);
}

ptxjit_stats ptxjit_module_stats(const ptxjit_module *m) { return m->stats; }

const ptxjit_kernel *ptxjit_kernel_get(const ptxjit_module *m, const char *name)
{
    for (uint32_t i = 0; i < m->nkernels; i++)
        if (!strcmp(m->kernels[i].rt.name, name))
            return &m->kernels[i];
    return NULL;
}

uint32_t ptxjit_kernel_count(const ptxjit_module *m) { return m->nkernels; }
const ptxjit_kernel *ptxjit_kernel_at(const ptxjit_module *m, uint32_t i)
{
    return i < m->nkernels ? &m->kernels[i] : NULL;
}
const char *ptxjit_kernel_name(const ptxjit_kernel *k) { return k->rt.name; }
const void *ptxjit_kernel_decl(const ptxjit_kernel *k) { return k->decl; }

ptxjit_status ptxjit_launch(ptxjit_ctx *c, const ptxjit_kernel *k, const ptxjit_launch_cfg *cfg,
                            char *err, size_t errlen)
{
    rt_launch_cfg rc = {.dyn_smem = cfg->shared_bytes, .params = cfg->params,
                        .printf_out = cfg->printf_out};
    memcpy(rc.grid, cfg->grid, sizeof rc.grid);
    memcpy(rc.block, cfg->block, sizeof rc.block);
    switch (rt_launch(c->dev, &k->rt, &rc, err, errlen)) {
    case RT_OK: return PTXJIT_OK;
    case RT_ERR_CONFIG: return PTXJIT_ERR_INVALID;
    case RT_ERR_FAULT: return PTXJIT_ERR_FAULT;
    case RT_ERR_TRAP: return PTXJIT_ERR_TRAP;
    case RT_ERR_ASSERT: return PTXJIT_ERR_ASSERT;
    default: return PTXJIT_ERR_NOMEM;
    }
}
