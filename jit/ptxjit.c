/* ptxjit.c - the whole pipeline in order, behind the embedding API:
 *
 *   PTX text -> cache key -> cache lookup
 *     hit:  (object file + module metadata) from the cache
 *     miss: parse -> check -> lower (LLVM IR, verified) -> optimize ->
 *           codegen -> (object file + module metadata) -> cache store
 *   -> load (a JIT unit) -> look up warp functions and variables -> launch (rt)
 *
 * Each stage only runs on the previous stage's clean output.  The object
 * file and its metadata are the seam where the compiled-code cache sits:
 * loading needs neither the PTX nor LLVM IR. */
#include "ptxjit/ptxjit.h"

#include "cache.h"
#include "jit.h"
#include "launch.h"
#include "lower.h"
#include "module_key.h"
#include "module_meta.h"
#include "ptx.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct ptxjit_kernel {
    rt_kernel rt;
    const ptx_func *decl;    /* NULL without a parse */
    const ptxjit_kernel_info *info;
};

struct ptxjit_module {
    ptxjit_ctx *ctx;
    ptx_module *ir;          /* NULL when loaded without a parse */
    jit_unit *unit;
    module_meta meta;
    ptxjit_kernel *kernels;
    uint32_t nkernels;
    ptxjit_global_info *globals;
    uint32_t nglobals;
    ptxjit_stats stats;
};

struct ptxjit_ctx {
    rt_device *dev;
    jit_engine *jit;
    LLVMContextRef llvm;
    cache *cache;         /* NULL: off */
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
    size_t n, nv;
    const rt_symbol *rs = rt_entry_points(&n), *vs = rt_vecmath_symbols(&nv);
    jit_symbol *syms = calloc(n + nv, sizeof *syms);
    for (size_t i = 0; syms && i < n + nv; i++)
        syms[i] = i < n ? (jit_symbol){rs[i].name, rs[i].addr} : (jit_symbol){vs[i - n].name, vs[i - n].addr};
    n += nv;
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
    if (ptxjit_set_cache(c, NULL)) {
        snprintf(err, errlen, "out of memory");
        ptxjit_destroy(c);
        return NULL;
    }
    return c;
}

void ptxjit_destroy(ptxjit_ctx *c)
{
    if (!c)
        return;
    rt_device_destroy(c->dev);
    jit_destroy(c->jit);
    cache_close(c->cache);
    if (c->llvm) {
        LLVMContextDispose(c->llvm);
        pthread_mutex_destroy(&c->lock);
    }
    free(c);
}

unsigned ptxjit_workers(const ptxjit_ctx *c) { return rt_device_workers(c->dev); }

uint64_t ptxjit_max_cooperative_blocks(const ptxjit_ctx *c, uint32_t threads)
{
    return rt_cooperative_max(c->dev, threads);
}

ptxjit_status ptxjit_set_cache(ptxjit_ctx *c, const ptxjit_cache_opts *opts)
{
    cache_config env;
    char warn[256];
    if (cache_config_from_env(&env, warn, sizeof warn))
        return PTXJIT_ERR_NOMEM;
    /* The environment's PTXJIT_CACHE_DISABLE wins: it is the user's switch. */
    bool on = env.enabled && (!opts || opts->enabled);
    const char *dir = opts && opts->dir ? opts->dir : env.dir;
    uint64_t max = opts && opts->max_bytes ? opts->max_bytes : env.max_bytes;
    if (on && warn[0] && !(opts && opts->max_bytes))
        fprintf(stderr, "ptxjit: warning: %s\n", warn);
    if (on && !dir)
        fprintf(stderr, "ptxjit: warning: no home directory and no PTXJIT_CACHE_PATH: "
                "compilation cache off\n");
    cache *cc = on && dir ? cache_open(dir, max) : NULL;
    cache_config_free(&env);
    if (on && dir && !cc)
        return PTXJIT_ERR_NOMEM;
    pthread_mutex_lock(&c->lock); /* loads on other threads use c->cache */
    cache_close(c->cache);
    c->cache = cc;
    pthread_mutex_unlock(&c->lock);
    return PTXJIT_OK;
}

const char *ptxjit_cache_dir(const ptxjit_ctx *c) { return c->cache ? cache_dir(c->cache) : NULL; }

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

/* Stage 1: PTX text -> object file + metadata (and the parsed module, kept
 * for ptxjit_kernel_decl).  Returns 0, or the number of errors in d. */
static uint32_t compile_ptx(ptxjit_ctx *c, const char *src, size_t len, const char *name,
                            ptx_module **ir, void **obj, size_t *objsize, module_meta *mm,
                            ptx_diags *d, ptxjit_stats *st)
{
    double t0 = now();
    *ir = ptx_parse(src, len, name, d);
    if (!*ir)
        return ptx_diag_add(d, (ptx_loc){1, 1}, "out of memory"), d->n;
    if (d->n || ptx_check(*ir, d))
        return d->n;
    double t1 = now();
    lower_result lr;
    if (lower_module(*ir, c->llvm, jit_target_machine(c->jit), NULL, &lr, d))
        return d->n;
    st->parse = t1 - t0;
    st->lower = now() - t1;
    char err[512];
    jit_times jt = {0};
    if (module_meta_from_lower(&lr, mm)) {
        LLVMDisposeModule(lr.mod);
        ptx_diag_add(d, (ptx_loc){1, 1}, "out of memory");
    } else if (jit_compile(c->jit, lr.mod, obj, objsize, &jt, err, sizeof err)) {
        module_meta_free(mm);
        ptx_diag_add(d, (ptx_loc){1, 1}, "%s", err);
    }
    lower_result_free(&lr);
    st->optimize = jt.optimize;
    st->codegen = jt.codegen;
    return d->n;
}

/* Stage 2: object file + metadata -> a loaded module.  Takes ownership of
 * mm.  NULL with a message in err. */
static ptxjit_module *instantiate(ptxjit_ctx *c, const void *obj, size_t size, module_meta *mm,
                                  char *err, size_t errlen)
{
    ptxjit_module *m = calloc(1, sizeof *m);
    if (!m) {
        module_meta_free(mm);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    m->ctx = c;
    m->meta = *mm;
    memset(mm, 0, sizeof *mm);
    m->kernels = calloc(m->meta.nkernels ? m->meta.nkernels : 1, sizeof *m->kernels);
    m->globals = calloc(m->meta.nglobals ? m->meta.nglobals : 1, sizeof *m->globals);
    if (!m->kernels || !m->globals) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    m->unit = jit_load(c->jit, obj, size, err, errlen);
    if (!m->unit)
        goto fail;
    for (uint32_t i = 0; i < m->meta.nkernels; i++) {
        const mm_kernel *mk = &m->meta.kernels[i];
        ptxjit_kernel *k = &m->kernels[m->nkernels];
        k->info = &mk->info;
        k->rt = (rt_kernel){mk->info.name, (ptxjit_warp_fn)jit_unit_lookup(m->unit, mk->symbol),
                            mk->info.static_smem, mk->info.dyn_smem_align, mk->info.uses_barriers,
                            mk->info.frame_size};
        if (!k->rt.fn) {
            snprintf(err, errlen, "internal error: kernel '%s' did not load", mk->info.name);
            goto fail;
        }
        m->nkernels++;
    }
    for (uint32_t i = 0; i < m->meta.nglobals; i++) {
        const mm_global *g = &m->meta.globals[i];
        m->globals[i] = (ptxjit_global_info){g->name, jit_unit_lookup(m->unit, g->symbol),
                                             g->size, g->is_const};
        if (!m->globals[i].addr) {
            snprintf(err, errlen, "internal error: variable '%s' did not load", g->name);
            goto fail;
        }
        m->nglobals++;
    }
    return m;
fail:
    ptxjit_module_unload(m);
    return NULL;
}

static const ptx_func *find_entry(const ptx_module *ir, const char *name)
{
    for (uint32_t i = 0; i < ir->nitems; i++)
        if (ir->items[i].kind == PTX_ITEM_FUNC && ir->items[i].func->is_entry &&
            !strcmp(ir->items[i].func->name, name))
            return ir->items[i].func;
    return NULL;
}

/* A cache hit: the object and metadata of an earlier compile, loaded
 * without the PTX.  An entry that passed the cache's checks but does not
 * unpack or load is deleted, and the caller compiles. */
static ptxjit_module *load_cached(ptxjit_ctx *c, const cache_key *key, ptxjit_stats *st)
{
    double t0 = now();
    void *payload;
    size_t size;
    if (cache_get(c->cache, key, &payload, &size)) {
        st->cache += now() - t0;
        return NULL;
    }
    module_meta mm;
    const void *obj;
    size_t objsize;
    char why[512];
    ptxjit_module *m = NULL;
    int bad = module_meta_unpack(payload, size, &mm, &obj, &objsize, why, sizeof why);
    st->cache += now() - t0;
    if (!bad) {
        t0 = now();
        m = instantiate(c, obj, objsize, &mm, why, sizeof why);
        st->load = now() - t0;
    }
    if (!m)
        cache_drop(c->cache, key, why);
    free(payload);
    return m;
}

static void store(ptxjit_ctx *c, const cache_key *key, const module_meta *mm, const void *obj,
                  size_t objsize, ptxjit_stats *st)
{
    double t0 = now();
    void *payload;
    size_t size;
    if (!module_meta_pack(mm, obj, objsize, &payload, &size)) {
        cache_put(c->cache, key, payload, size);
        free(payload);
    }
    st->cache += now() - t0;
}

/* A miss (or no cache): compile, store when key is given, load. */
static ptxjit_module *load_compiled(ptxjit_ctx *c, const char *src, size_t len, const char *name,
                                    const cache_key *key, char **log, ptxjit_stats *st)
{
    ptx_diags d = {0};
    ptx_module *ir = NULL;
    void *obj = NULL;
    size_t objsize = 0;
    module_meta mm = {0};
    ptxjit_module *m = NULL;
    if (!compile_ptx(c, src, len, name, &ir, &obj, &objsize, &mm, &d, st)) {
        if (key)
            store(c, key, &mm, obj, objsize, st);
        char err[512];
        double t0 = now();
        m = instantiate(c, obj, objsize, &mm, err, sizeof err);
        st->load = now() - t0;
        if (!m)
            ptx_diag_add(&d, (ptx_loc){1, 1}, "%s", err);
    }
    free(obj);
    if (!m) {
        if (log)
            *log = render_log(&d, name, src, len);
        ptx_diags_free(&d);
        ptx_module_free(ir);
        return NULL;
    }
    m->ir = ir;
    for (uint32_t i = 0; i < m->nkernels; i++)
        m->kernels[i].decl = find_entry(ir, m->kernels[i].rt.name);
    ptx_diags_free(&d);
    return m;
}

/* key -> lookup -> hit: load | miss: compile, store, load. */
static ptxjit_module *load_locked(ptxjit_ctx *c, const char *src, size_t len, const char *name,
                                  char **log, ptxjit_stats *stats)
{
    ptxjit_stats st = {0};
    /* A dump of the IR or assembly needs a compile: no lookup then. */
    bool use_cache = c->cache && !jit_dumps_requested();
    cache_key key;
    ptxjit_module *m = NULL;
    if (use_cache) {
        double t0 = now();
        module_key_inputs in;
        module_key_inputs_of(c->jit, src, len, &in);
        module_key(&in, &key);
        st.cache = now() - t0;
        m = load_cached(c, &key, &st);
        st.cache_result = m ? PTXJIT_CACHE_HIT : PTXJIT_CACHE_MISS;
    }
    if (!m)
        m = load_compiled(c, src, len, name, use_cache ? &key : NULL, log, &st);
    if (use_cache && m) { /* counts modules loaded, not PTX errors */
        double t0 = now();
        cache_record(c->cache, st.cache_result == PTXJIT_CACHE_HIT);
        st.cache += now() - t0;
    }
    if (m)
        m->stats = st;
    if (stats)
        *stats = st;
    return m;
}

ptxjit_module *ptxjit_load(ptxjit_ctx *c, const char *src, size_t len, const char *name,
                           char **log, ptxjit_stats *stats)
{
    if (log)
        *log = NULL;
    pthread_mutex_lock(&c->lock);
    ptxjit_module *m = load_locked(c, src, len, name, log, stats);
    pthread_mutex_unlock(&c->lock);
    return m;
}

void ptxjit_module_unload(ptxjit_module *m)
{
    if (!m)
        return;
    jit_unit_free(m->unit);
    ptx_module_free(m->ir);
    module_meta_free(&m->meta);
    free(m->kernels);
    free(m->globals);
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
const ptxjit_kernel_info *ptxjit_kernel_info_of(const ptxjit_kernel *k) { return k->info; }
const void *ptxjit_kernel_decl(const ptxjit_kernel *k) { return k->decl; }

const ptxjit_global_info *ptxjit_global_get(const ptxjit_module *m, const char *name)
{
    for (uint32_t i = 0; i < m->nglobals; i++)
        if (!strcmp(m->globals[i].name, name))
            return &m->globals[i];
    return NULL;
}

uint32_t ptxjit_global_count(const ptxjit_module *m) { return m->nglobals; }
const ptxjit_global_info *ptxjit_global_at(const ptxjit_module *m, uint32_t i)
{
    return i < m->nglobals ? &m->globals[i] : NULL;
}

/* A GPU refuses a block over the kernel's .maxntid (a bound on the total
 * thread count) or other than its .reqntid. */
static bool block_fits_bounds(const ptxjit_kernel_info *ki, const uint32_t block[3], char *err,
                              size_t errlen)
{
    uint64_t threads = (uint64_t)block[0] * block[1] * block[2], max = 1;
    for (int i = 0; i < 3; i++)
        max *= ki->maxntid[i] ? ki->maxntid[i] : 1;
    if (ki->maxntid[0] && threads > max) {
        snprintf(err, errlen, "kernel '%s': block of %llu threads exceeds its .maxntid (%llu)",
                 ki->name, (unsigned long long)threads, (unsigned long long)max);
        return false;
    }
    if (ki->reqntid[0])
        for (int i = 0; i < 3; i++)
            if (block[i] != (ki->reqntid[i] ? ki->reqntid[i] : 1)) {
                snprintf(err, errlen, "kernel '%s': block (%u,%u,%u) differs from its .reqntid "
                         "(%u,%u,%u)", ki->name, block[0], block[1], block[2], ki->reqntid[0],
                         ki->reqntid[1] ? ki->reqntid[1] : 1, ki->reqntid[2] ? ki->reqntid[2] : 1);
                return false;
            }
    return true;
}

static ptxjit_status launch(ptxjit_ctx *c, const ptxjit_kernel *k, const ptxjit_launch_cfg *cfg,
                            bool cooperative, char *err, size_t errlen)
{
    if (!block_fits_bounds(k->info, cfg->block, err, errlen))
        return PTXJIT_ERR_INVALID;
    rt_launch_cfg rc = {.dyn_smem = cfg->shared_bytes, .params = cfg->params,
                        .printf_out = cfg->printf_out, .cooperative = cooperative};
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

ptxjit_status ptxjit_launch(ptxjit_ctx *c, const ptxjit_kernel *k, const ptxjit_launch_cfg *cfg,
                            char *err, size_t errlen)
{
    return launch(c, k, cfg, false, err, errlen);
}

ptxjit_status ptxjit_launch_cooperative(ptxjit_ctx *c, const ptxjit_kernel *k,
                                        const ptxjit_launch_cfg *cfg, char *err, size_t errlen)
{
    return launch(c, k, cfg, true, err, errlen);
}
