/* kernel_code.c - kernels compiled when first launched.
 *
 * A kernel has a generic version (any block shape) and up to
 * SPEC_MAX_SHAPES versions specialized for one block shape each
 * (specialize.c decides which).  A version is built once, by the first
 * launch that needs it, while other launches of it wait; versions of
 * different kernels build in parallel.  Building a version:
 *
 *   cache lookup (module key + kernel + shape)
 *     hit:  object -> the module's JIT unit
 *     miss: parse the module (once; a load from the cache did not) ->
 *           lower this kernel and the .funcs it needs -> optimize ->
 *           codegen -> cache store -> the module's JIT unit
 *
 * The kernel's object refers to the module's variables, which the unit
 * already holds (ptxjit.c loads them with the module). */
#include "ptxjit_internal.h"

#include "lower.h"
#include "memory_budget.h"
#include "module_key.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool same_shape(const uint32_t a[3], const uint32_t b[3])
{
    return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}

/* ---- the module's IR, parsed at most once ---- */

static const ptx_module *module_ir(ptxjit_module *m, ptxjit_stats *st, char *err, size_t errlen)
{
    pthread_mutex_lock(&m->ir_lock);
    if (!m->ir) {
        double t0 = ptxjit_now();
        ptx_diags d = {0};
        ptx_module *ir = ptx_parse(m->ptx, m->len, m->name, &d);
        if (ir && !d.n)
            ptx_check(ir, &d);
        if (ir && !d.n)
            m->ir = ir;
        else /* it parsed when it was stored, or this load would have failed */
            ptx_module_free(ir);
        ptx_diags_free(&d);
        st->parse += ptxjit_now() - t0;
    }
    const ptx_module *ir = m->ir;
    pthread_mutex_unlock(&m->ir_lock);
    if (!ir)
        snprintf(err, errlen, "internal error: module '%s' no longer parses", m->name);
    return ir;
}

/* ---- the cache ---- */

/* A kernel's entry: the packing of a module with this kernel alone, its
 * symbol naming the version in the object. */
static ptxjit_warp_fn fetch(ptxjit_kernel *k, const cache_key *key, ptxjit_stats *st)
{
    ptxjit_ctx *c = k->mod->ctx;
    cache *cc = ptxjit_cache_acquire(c);
    void *payload = NULL, *fn = NULL;
    module_meta mm;
    const void *obj;
    size_t objsize;
    char why[512];
    int got = cc ? ptxjit_cache_get(cc, key, &payload, &mm, &obj, &objsize, why, sizeof why, st)
                 : 1;
    if (!got && (mm.nkernels != 1 || mm.nglobals ||
                 strcmp(mm.kernels[0].info.name, k->info->name))) {
        snprintf(why, sizeof why, "not an entry of kernel '%s'", k->info->name);
        module_meta_free(&mm);
        got = -1;
    }
    if (!got) {
        double t0 = ptxjit_now();
        const char *sym = mm.kernels[0].symbol;
        if (jit_unit_add(k->mod->unit, obj, objsize, &sym, &fn, 1, why, sizeof why))
            fn = NULL;
        st->load += ptxjit_now() - t0;
        module_meta_free(&mm);
    }
    if (got <= 0 && !fn)
        cache_drop(cc, key, why);
    ptxjit_cache_release(c);
    free(payload);
    st->kernels_cached += fn != NULL;
    return (ptxjit_warp_fn)fn;
}

static void store(ptxjit_kernel *k, const cache_key *key, const char *symbol, const void *obj,
                  size_t objsize, ptxjit_stats *st)
{
    mm_kernel one = {.info = *k->info, .symbol = (char *)symbol};
    module_meta mm = {.kernels = &one, .nkernels = 1};
    cache *cc = ptxjit_cache_acquire(k->mod->ctx);
    if (cc)
        ptxjit_cache_put(cc, key, &mm, obj, objsize, st);
    ptxjit_cache_release(k->mod->ctx);
}

/* ---- compiling ---- */

/* Lowering already succeeded for the whole module at load, so an error
 * here is unexpected: the first lines of the log say what it was. */
static void lowering_failed(const ptxjit_module *m, const ptx_diags *d, char *err, size_t errlen)
{
    char *log = ptxjit_render_log(d, m->name, m->ptx, m->len);
    snprintf(err, errlen, "%s", log ? log : "out of memory");
    free(log);
}

/* The object of one version: lower, optimize, codegen.  NULL symbol on
 * failure, with a message in err; *nomem when it would not fit in memory
 * (memory_budget.c), a failure that a later try may not have. */
static char *compile(ptxjit_kernel *k, const uint32_t ntid[3], void **obj, size_t *objsize,
                     ptxjit_stats *st, bool *nomem, char *err, size_t errlen)
{
    ptxjit_module *m = k->mod;
    const ptx_module *ir = module_ir(m, st, err, errlen);
    if (!ir)
        return NULL;
    if (!memory_budget_fits(memory_budget_statements(ir, k->info->name), err, errlen)) {
        *nomem = true;
        return NULL;
    }
    double t0 = ptxjit_now();
    /* A context of its own: kernels compile in parallel. */
    LLVMContextRef llvm = LLVMContextCreate();
    lower_options o = {.kernel = k->info->name, .ntid = {ntid[0], ntid[1], ntid[2]},
                       .frame_stride = k->info->frame_size};
    lower_result lr;
    ptx_diags d = {0};
    char *sym = NULL;
    if (lower_module(ir, llvm, jit_target_machine(m->ctx->jit), &o, &lr, &d)) {
        lowering_failed(m, &d, err, errlen);
    } else {
        st->lower += ptxjit_now() - t0;
        sym = strdup(lr.kernels[0].symbol);
        jit_times jt = {0};
        if (!sym)
            LLVMDisposeModule(lr.mod), snprintf(err, errlen, "out of memory");
        else if (lr.kernels[0].frame_size != k->info->frame_size) /* the runtime sizes frames by info;
                                                                   * smaller ones are padded to it */
            LLVMDisposeModule(lr.mod), free(sym), sym = NULL,
                snprintf(err, errlen, "internal error: kernel '%s' compiled with another warp frame size",
                         k->info->name);
        else if (jit_compile(m->ctx->jit, lr.mod, obj, objsize, &jt, err, errlen))
            free(sym), sym = NULL;
        st->optimize += jt.optimize;
        st->codegen += jt.codegen;
        lower_result_free(&lr);
    }
    LLVMContextDispose(llvm);
    ptx_diags_free(&d);
    return sym;
}

static ptxjit_warp_fn compile_and_load(ptxjit_kernel *k, const uint32_t ntid[3],
                                       const cache_key *key, ptxjit_stats *st, bool *nomem,
                                       char *err, size_t errlen)
{
    void *obj = NULL, *fn = NULL;
    size_t objsize = 0;
    char *sym = compile(k, ntid, &obj, &objsize, st, nomem, err, errlen);
    if (sym && key)
        store(k, key, sym, obj, objsize, st);
    if (sym) {
        double t0 = ptxjit_now();
        const char *s = sym;
        if (jit_unit_add(k->mod->unit, obj, objsize, &s, &fn, 1, err, errlen))
            fn = NULL;
        st->load += ptxjit_now() - t0;
    }
    st->kernels_compiled += fn != NULL;
    free(sym);
    free(obj);
    return (ptxjit_warp_fn)fn;
}

/* Fills v->fn, or v->error; or, when the compile would not fit in memory
 * now, neither (the message in nomem_msg).  Runs without the module's lock. */
static void build(ptxjit_kernel *k, kversion *v, ptxjit_stats *st, char *nomem_msg, size_t len)
{
    ptxjit_module *m = k->mod;
    char err[1024] = "";
    cache_key key;
    bool cached = m->keyed && !jit_dumps_requested(); /* a dump needs a compile */
    if (cached)
        kernel_key(&m->key, k->info->name, v->ntid, &key);
    v->fn = cached ? fetch(k, &key, st) : NULL;
    bool nomem = false;
    if (!v->fn)
        v->fn = compile_and_load(k, v->ntid, cached ? &key : NULL, st, &nomem, err, sizeof err);
    if (nomem) {
        snprintf(nomem_msg, len, "kernel '%s' cannot be compiled now: %s", k->info->name, err);
        return;
    }
    if (!v->fn) {
        size_t n = strlen(err) + strlen(k->info->name) + 64;
        v->error = malloc(n);
        if (v->error)
            snprintf(v->error, n, "kernel '%s' cannot be compiled: %s", k->info->name, err);
    }
}

static void add_stats(ptxjit_stats *to, const ptxjit_stats *st)
{
    to->parse += st->parse;
    to->lower += st->lower;
    to->optimize += st->optimize;
    to->codegen += st->codegen;
    to->load += st->load;
    to->cache += st->cache;
    to->kernels_compiled += st->kernels_compiled;
    to->kernels_cached += st->kernels_cached;
}

/* ---- choosing a version (under the module's lock) ---- */

static kversion *choose(ptxjit_kernel *k, const uint32_t block[3])
{
    spec_mode mode = k->mod->ctx->spec;
    /* .reqntid: lowering specializes the generic version already */
    if (mode == SPEC_OFF || k->info->reqntid[0])
        return &k->v[0];
    for (uint32_t i = 1; i < k->nv; i++)
        if (same_shape(k->v[i].ntid, block))
            return &k->v[i];
    bool first = k->nv == 1 && k->v[0].state == KV_EMPTY;
    if (k->nv < KV_MAX && spec_wanted(mode, &k->history, block, first, k->compile_s)) {
        kversion *v = &k->v[k->nv++];
        memcpy(v->ntid, block, sizeof v->ntid);
        return v;
    }
    return &k->v[0];
}

/* Builds v unless built; waits while another thread builds it.  Called
 * and returns with the module's lock held. */
static ptxjit_status ensure(ptxjit_kernel *k, kversion *v, char *err, size_t errlen)
{
    ptxjit_module *m = k->mod;
    while (v->state == KV_BUSY)
        pthread_cond_wait(&m->compiled, &m->lock);
    if (v->state == KV_EMPTY) {
        v->state = KV_BUSY;
        pthread_mutex_unlock(&m->lock);
        ptxjit_stats st = {0};
        char nomem[768] = "";
        build(k, v, &st, nomem, sizeof nomem);
        pthread_mutex_lock(&m->lock);
        add_stats(&m->stats, &st);
        if (st.kernels_compiled)
            k->compile_s = st.lower + st.optimize + st.codegen;
        /* a compile that did not fit in memory is tried again by a later launch */
        v->state = v->fn ? KV_READY : nomem[0] ? KV_EMPTY : KV_FAILED;
        pthread_cond_broadcast(&m->compiled);
        if (nomem[0]) {
            snprintf(err, errlen, "%s", nomem);
            return PTXJIT_ERR_NOMEM;
        }
    }
    if (v->state != KV_FAILED)
        return PTXJIT_OK;
    snprintf(err, errlen, "%s", v->error ? v->error : "out of memory");
    return v->error ? PTXJIT_ERR_PTX : PTXJIT_ERR_NOMEM;
}

ptxjit_status kernel_code(ptxjit_kernel *k, const uint32_t block[3], ptxjit_warp_fn *fn,
                          bool *generic, char *err, size_t errlen)
{
    pthread_mutex_lock(&k->mod->lock);
    kversion *v = choose(k, block);
    ptxjit_status rc = ensure(k, v, err, errlen);
    *fn = v->fn;
    *generic = v == &k->v[0];
    pthread_mutex_unlock(&k->mod->lock);
    return rc;
}

ptxjit_status kernel_code_generic(ptxjit_kernel *k, char *err, size_t errlen)
{
    pthread_mutex_lock(&k->mod->lock);
    ptxjit_status rc = ensure(k, &k->v[0], err, errlen);
    pthread_mutex_unlock(&k->mod->lock);
    return rc;
}

void kernel_ran(ptxjit_kernel *k, const uint32_t block[3], double seconds)
{
    pthread_mutex_lock(&k->mod->lock);
    spec_record(&k->history, block, seconds);
    pthread_mutex_unlock(&k->mod->lock);
}

void kernel_code_free(ptxjit_kernel *k)
{
    for (uint32_t i = 0; i < k->nv; i++)
        free(k->v[i].error);
}
