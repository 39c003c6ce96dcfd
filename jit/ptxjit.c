/* ptxjit.c - the whole pipeline in order, behind the embedding API:
 *
 *   load:   PTX text -> cache key -> cache lookup
 *     hit:  (module metadata + variables' object) from the cache
 *     miss: parse -> check -> lower the whole module (its errors show at
 *           load) -> keep the variables -> optimize -> codegen ->
 *           (module metadata + variables' object) -> cache store
 *     -> a JIT unit with the variables -> look them up
 *   launch: the kernel's code for the launch's block shape, built once
 *           (kernel_code.c: cache lookup, or parse, lower this kernel
 *           alone, optimize, codegen, store) -> run it (rt)
 *
 * Each stage only runs on the previous stage's clean output.  Object files
 * and their metadata are the seam where the compiled-code cache sits:
 * loading needs neither the PTX nor LLVM IR.  Codegen is most of a
 * compile, so a module's kernels wait for their first launch: a module of
 * hundreds of kernels loads in the time its parse and lowering take. */
#include "ptxjit_internal.h"

#include "lower.h"
#include "module_key.h"
#include "memory_budget.h"
#include "devmem.h"
#include "heap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double ptxjit_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *dispose_context(void *llvm)
{
    LLVMContextDispose(llvm);
    return NULL;
}

/* Waits until the IR of the previous load is freed. */
static void join_janitor(ptxjit_ctx *c)
{
    if (c->janitor_running)
        pthread_join(c->janitor, NULL);
    c->janitor_running = false;
}

/* The whole module's IR was built for its errors and metadata only, and
 * freeing it takes half as long as building it: a helper thread does that
 * while the program goes on (the next load or ptxjit_destroy waits). */
static void dispose_later(ptxjit_ctx *c, LLVMContextRef llvm)
{
    join_janitor(c);
    c->janitor_running = !pthread_create(&c->janitor, NULL, dispose_context, llvm);
    if (!c->janitor_running)
        LLVMContextDispose(llvm);
}

ptxjit_ctx *ptxjit_create(unsigned threads, char *err, size_t errlen)
{
    ptxjit_ctx *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&c->lock, NULL);
    pthread_rwlock_init(&c->cache_lock, NULL);
    c->spec = spec_mode_from_env();
    size_t n, nv;
    const rt_symbol *rs = rt_entry_points(&n), *vs = rt_vecmath_symbols(&nv);
    jit_symbol *syms = calloc(n + nv, sizeof *syms);
    for (size_t i = 0; syms && i < n + nv; i++)
        syms[i] = i < n ? (jit_symbol){rs[i].name, rs[i].addr} : (jit_symbol){vs[i - n].name, vs[i - n].addr};
    n += nv;
    c->jit = syms ? jit_create(syms, n, err, errlen) : NULL;
    free(syms);
    c->dev = c->jit ? rt_device_create(threads) : NULL;
    c->heap = c->dev ? rt_heap_create(RT_HEAP_DEFAULT) : NULL;
    if (!c->heap) {
        if (c->jit)
            snprintf(err, errlen, c->dev ? "out of memory" : "cannot start the worker pool");
        ptxjit_destroy(c);
        return NULL;
    }
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
    join_janitor(c);
    rt_device_destroy(c->dev);
    rt_heap_destroy(c->heap);
    jit_destroy(c->jit);
    cache_close(c->cache);
    pthread_mutex_destroy(&c->lock);
    pthread_rwlock_destroy(&c->cache_lock);
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
    /* loads and kernel compiles on other threads use c->cache */
    pthread_rwlock_wrlock(&c->cache_lock);
    cache_close(c->cache);
    c->cache = cc;
    pthread_rwlock_unlock(&c->cache_lock);
    return PTXJIT_OK;
}

const char *ptxjit_cache_dir(const ptxjit_ctx *c) { return c->cache ? cache_dir(c->cache) : NULL; }

cache *ptxjit_cache_acquire(ptxjit_ctx *c)
{
    pthread_rwlock_rdlock(&c->cache_lock);
    return c->cache;
}

void ptxjit_cache_release(ptxjit_ctx *c) { pthread_rwlock_unlock(&c->cache_lock); }

char *ptxjit_render_log(const ptx_diags *d, const char *name, const char *src, size_t len)
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

/* The object of a module's variables (one storage per loaded module,
 * which every kernel's object refers to).  0, or -1 with a message. */
static int compile_variables(ptxjit_ctx *c, const ptx_module *ir, void **obj, size_t *objsize,
                             ptxjit_stats *st, char *err, size_t errlen)
{
    double t0 = ptxjit_now();
    LLVMContextRef llvm = LLVMContextCreate();
    lower_options o = {.variables_only = true};
    lower_result lr;
    ptx_diags d = {0};
    int rc = -1;
    if (lower_module(ir, llvm, jit_target_machine(c->jit), &o, &lr, &d)) {
        snprintf(err, errlen, "internal error: the variables do not lower: %s",
                 d.n ? d.v[0].msg : "?");
    } else {
        /* Functions their initializers name are private copies: a kernel's
         * own object defines the kernel's symbol. */
        for (LLVMValueRef f = LLVMGetFirstFunction(lr.mod); f; f = LLVMGetNextFunction(f))
            if (LLVMCountBasicBlocks(f))
                LLVMSetLinkage(f, LLVMInternalLinkage);
        st->lower += ptxjit_now() - t0;
        jit_times jt = {0};
        rc = jit_compile(c->jit, lr.mod, obj, objsize, &jt, err, errlen);
        st->optimize = jt.optimize;
        st->codegen = jt.codegen;
        lower_result_free(&lr);
    }
    ptx_diags_free(&d);
    LLVMContextDispose(llvm);
    return rc;
}

static const ptx_func *find_entry(const ptx_module *ir, const char *name);

/* A kernel's static shared memory beyond ptxas's limit is an error at the
 * kernel, as ptxas makes it (counted per kernel: what it uses).  Returns
 * whether any was. */
static bool static_shared_too_large(const ptx_module *ir, const module_meta *mm, ptx_diags *d)
{
    bool any = false;
    for (uint32_t i = 0; i < mm->nkernels; i++) {
        const ptxjit_kernel_info *ki = &mm->kernels[i].info;
        if (ki->static_smem <= RT_MAX_STATIC_SHARED)
            continue;
        const ptx_func *f = find_entry(ir, ki->name);
        ptx_diag_add(d, f ? f->loc : (ptx_loc){1, 1},
                     "kernel '%s' uses too much shared data (%u bytes of static .shared, at most "
                     "%u; more only as dynamic shared memory)",
                     ki->name, ki->static_smem, RT_MAX_STATIC_SHARED);
        any = true;
    }
    return any;
}

/* Stage 1: PTX text -> metadata + the variables' object (and the parsed
 * module, kept for ptxjit_kernel_decl and the kernels' compiles).  The
 * whole module is lowered, so that its errors show at load and for its
 * metadata, but neither verified nor compiled: each kernel is lowered
 * again, alone and verified, when it is compiled.  Returns 0, or the
 * number of errors in d; *nomem when memory ran out (or would, in LLVM). */
static uint32_t compile_ptx(ptxjit_ctx *c, const char *src, size_t len, const char *name,
                            ptx_module **ir, void **obj, size_t *objsize, module_meta *mm,
                            ptx_diags *d, ptxjit_stats *st, bool *nomem)
{
    double t0 = ptxjit_now();
    *ir = ptx_parse(src, len, name, d);
    *nomem = !*ir;
    if (!*ir)
        return ptx_diag_add(d, (ptx_loc){1, 1}, "out of memory"), d->n;
    if (d->n || ptx_check(*ir, d))
        return d->n;
    char why[256];
    if (!memory_budget_fits(memory_budget_statements(*ir, NULL), why, sizeof why)) {
        *nomem = true;
        return ptx_diag_add(d, (ptx_loc){1, 1}, "%s", why), d->n;
    }
    double t1 = ptxjit_now();
    LLVMContextRef llvm = LLVMContextCreate();
    lower_options o = {.skip_verify = true};
    lower_result lr;
    uint32_t errors = lower_module(*ir, llvm, jit_target_machine(c->jit), &o, &lr, d);
    st->parse = t1 - t0;
    st->lower = ptxjit_now() - t1;
    int meta = errors ? 0 : module_meta_from_lower(&lr, mm);
    bool vars = !errors && lr.nglobals;
    if (!errors)
        lower_result_free(&lr); /* lr.mod goes with its context */
    dispose_later(c, llvm);
    if (errors)
        return d->n;
    if (!meta && static_shared_too_large(*ir, mm, d)) {
        module_meta_free(mm);
        return d->n;
    }
    char err[512];
    if (meta) {
        ptx_diag_add(d, (ptx_loc){1, 1}, "out of memory");
    } else if (vars && compile_variables(c, *ir, obj, objsize, st, err, sizeof err)) {
        module_meta_free(mm);
        ptx_diag_add(d, (ptx_loc){1, 1}, "%s", err);
    }
    return d->n;
}

/* Stage 2: metadata + the variables' object -> a loaded module, its
 * kernels not compiled yet.  Takes ownership of mm.  NULL with a message
 * in err. */
static ptxjit_module *instantiate(ptxjit_ctx *c, const void *obj, size_t size, module_meta *mm,
                                  const char *src, size_t len, const char *name, char *err,
                                  size_t errlen)
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
    pthread_mutex_init(&m->lock, NULL);
    pthread_mutex_init(&m->ir_lock, NULL);
    pthread_cond_init(&m->compiled, NULL);
    m->ptx = malloc(len ? len : 1);
    m->len = len;
    m->name = strdup(name);
    m->kernels = calloc(m->meta.nkernels ? m->meta.nkernels : 1, sizeof *m->kernels);
    m->globals = calloc(m->meta.nglobals ? m->meta.nglobals : 1, sizeof *m->globals);
    const char **syms = calloc(m->meta.nglobals ? m->meta.nglobals : 1, sizeof *syms);
    void **addrs = calloc(m->meta.nglobals ? m->meta.nglobals : 1, sizeof *addrs);
    if (!m->ptx || !m->name || !m->kernels || !m->globals || !syms || !addrs) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    memcpy(m->ptx, src, len);
    m->unit = jit_unit_create(c->jit, err, errlen);
    for (uint32_t i = 0; i < m->meta.nglobals; i++)
        syms[i] = m->meta.globals[i].symbol;
    if (!m->unit || (size && jit_unit_add(m->unit, obj, size, syms, addrs, m->meta.nglobals,
                                          err, errlen)))
        goto fail;
    for (uint32_t i = 0; i < m->meta.nglobals; i++, m->nglobals++) {
        const mm_global *g = &m->meta.globals[i];
        m->globals[i] = (ptxjit_global_info){g->name, addrs[i], g->size, g->is_const, g->managed};
    }
    for (uint32_t i = 0; i < m->meta.nkernels; i++, m->nkernels++) {
        const mm_kernel *mk = &m->meta.kernels[i];
        ptxjit_kernel *k = &m->kernels[i];
        k->mod = m;
        k->info = &mk->info;
        k->symbol = mk->symbol;
        k->nv = 1; /* the generic version, built when first needed */
        k->rt = (rt_kernel){mk->info.name, NULL, mk->info.static_smem, mk->info.dyn_smem_align,
                            mk->info.uses_barriers, mk->info.frame_size};
    }
    free(syms);
    free(addrs);
    return m;
fail:
    free(syms);
    free(addrs);
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

/* A cache hit: the metadata and variables of an earlier load, without the
 * PTX.  An entry that passed the cache's checks but does not unpack or
 * load is deleted, and the caller compiles. */
static ptxjit_module *load_cached(ptxjit_ctx *c, cache *cc, const cache_key *key,
                                  const char *src, size_t len, const char *name,
                                  ptxjit_stats *st)
{
    void *payload;
    module_meta mm;
    const void *obj;
    size_t objsize;
    char why[512];
    int got = ptxjit_cache_get(cc, key, &payload, &mm, &obj, &objsize, why, sizeof why, st);
    if (got > 0)
        return NULL;
    ptxjit_module *m = NULL;
    if (!got) {
        double t0 = ptxjit_now();
        m = instantiate(c, obj, objsize, &mm, src, len, name, why, sizeof why);
        st->load = ptxjit_now() - t0;
    }
    if (!m)
        cache_drop(cc, key, why);
    free(payload);
    return m;
}

int ptxjit_cache_get(cache *cc, const cache_key *key, void **payload, module_meta *mm,
                     const void **obj, size_t *objsize, char *why, size_t whylen,
                     ptxjit_stats *st)
{
    double t0 = ptxjit_now();
    size_t size;
    *payload = NULL;
    int rc = 1;
    if (!cache_get(cc, key, payload, &size))
        rc = module_meta_unpack(*payload, size, mm, obj, objsize, why, whylen);
    st->cache += ptxjit_now() - t0;
    return rc;
}

void ptxjit_cache_put(cache *cc, const cache_key *key, const module_meta *mm, const void *obj,
                      size_t objsize, ptxjit_stats *st)
{
    double t0 = ptxjit_now();
    void *payload;
    size_t size;
    if (!module_meta_pack(mm, obj, objsize, &payload, &size)) {
        cache_put(cc, key, payload, size);
        free(payload);
    }
    st->cache += ptxjit_now() - t0;
}

/* A miss (or no cache): compile, store when cc is given, load. */
static ptxjit_module *load_compiled(ptxjit_ctx *c, cache *cc, const cache_key *key,
                                    const char *src, size_t len, const char *name, char **log,
                                    ptxjit_stats *st)
{
    ptx_diags d = {0};
    ptx_module *ir = NULL;
    void *obj = NULL;
    size_t objsize = 0;
    module_meta mm = {0};
    ptxjit_module *m = NULL;
    bool nomem = false;
    if (!compile_ptx(c, src, len, name, &ir, &obj, &objsize, &mm, &d, st, &nomem)) {
        if (cc)
            ptxjit_cache_put(cc, key, &mm, obj, objsize, st);
        char err[512];
        double t0 = ptxjit_now();
        m = instantiate(c, obj, objsize, &mm, src, len, name, err, sizeof err);
        st->load = ptxjit_now() - t0;
        if (!m)
            ptx_diag_add(&d, (ptx_loc){1, 1}, "%s", err);
    }
    free(obj);
    if (!m) {
        if (log && !nomem) /* no log: out of memory */
            *log = ptxjit_render_log(&d, name, src, len);
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
    cache *cc = ptxjit_cache_acquire(c);
    /* A dump of the IR or assembly needs a compile: no lookup then. */
    if (jit_dumps_requested())
        cc = NULL;
    cache_key key = {{0}};
    ptxjit_module *m = NULL;
    if (cc) {
        double t0 = ptxjit_now();
        module_key_inputs in;
        module_key_inputs_of(c->jit, src, len, &in);
        module_key(&in, &key);
        st.cache = ptxjit_now() - t0;
        m = load_cached(c, cc, &key, src, len, name, &st);
        st.cache_result = m ? PTXJIT_CACHE_HIT : PTXJIT_CACHE_MISS;
    }
    if (!m)
        m = load_compiled(c, cc, &key, src, len, name, log, &st);
    if (cc && m) { /* counts modules loaded, not PTX errors */
        double t0 = ptxjit_now();
        cache_record(cc, st.cache_result == PTXJIT_CACHE_HIT);
        st.cache += ptxjit_now() - t0;
        m->keyed = true; /* its kernels are cached under keys made from this one */
        m->key = key;
    }
    ptxjit_cache_release(c);
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
    if (len > PTXJIT_MAX_PTX_BYTES) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s: error: %zu bytes of PTX; at most %zu are taken\n",
                 name ? name : "<ptx>", len, PTXJIT_MAX_PTX_BYTES);
        if (log)
            *log = strdup(msg);
        if (stats)
            *stats = (ptxjit_stats){0};
        return NULL;
    }
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
    for (uint32_t i = 0; i < m->nkernels; i++)
        kernel_code_free(&m->kernels[i]);
    module_meta_free(&m->meta);
    free(m->kernels);
    free(m->globals);
    free(m->ptx);
    free(m->name);
    pthread_mutex_destroy(&m->lock);
    pthread_mutex_destroy(&m->ir_lock);
    pthread_cond_destroy(&m->compiled);
    free(m);
}

ptxjit_stats ptxjit_module_stats(const ptxjit_module *m)
{
    ptxjit_module *mm = (ptxjit_module *)m; /* kernels compiled since add to the figures */
    pthread_mutex_lock(&mm->lock);
    ptxjit_stats st = m->stats;
    pthread_mutex_unlock(&mm->lock);
    return st;
}

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

ptxjit_status ptxjit_kernel_compile(const ptxjit_kernel *k, const uint32_t block[3], char *err,
                                    size_t errlen)
{
    if (!block_fits_bounds(k->info, block, err, errlen))
        return PTXJIT_ERR_INVALID;
    ptxjit_warp_fn fn;
    bool generic;
    return kernel_code((ptxjit_kernel *)k, block, &fn, &generic, err, errlen);
}

ptxjit_status ptxjit_launch_with(ptxjit_ctx *c, const ptxjit_kernel *k,
                                 const ptxjit_launch_cfg *cfg, const ptxjit_launch_opts *opts,
                                 char *err, size_t errlen)
{
    if (!block_fits_bounds(k->info, cfg->block, err, errlen))
        return PTXJIT_ERR_INVALID;
    /* The handle is const for the caller; the code behind it is built on
     * demand (under the module's lock). */
    ptxjit_kernel *kk = (ptxjit_kernel *)k;
    rt_kernel rk = k->rt;
    bool generic;
    ptxjit_status st = kernel_code(kk, cfg->block, &rk.fn, &generic, err, errlen);
    if (st)
        return st;
    rt_launch_cfg rc = {.dyn_smem = cfg->shared_bytes, .params = cfg->params,
                        .printf_out = cfg->printf_out, .cooperative = opts->cooperative,
                        .heap = opts->heap ? opts->heap : c->heap};
    memcpy(rc.grid, cfg->grid, sizeof rc.grid);
    memcpy(rc.block, cfg->block, sizeof rc.block);
    double t0 = ptxjit_now();
    rt_status rs = rt_launch(c->dev, &rk, &rc, err, errlen);
    if (generic && c->spec == SPEC_AUTO)
        kernel_ran(kk, cfg->block, ptxjit_now() - t0);
    switch (rs) {
    case RT_OK: return PTXJIT_OK;
    case RT_ERR_CONFIG: return PTXJIT_ERR_INVALID;
    case RT_ERR_FAULT: return PTXJIT_ERR_FAULT;
    case RT_ERR_TRAP: return PTXJIT_ERR_TRAP;
    case RT_ERR_ASSERT: return PTXJIT_ERR_ASSERT;
    case RT_ERR_MISALIGNED: return PTXJIT_ERR_MISALIGNED;
    default: return PTXJIT_ERR_NOMEM;
    }
}

ptxjit_status ptxjit_launch(ptxjit_ctx *c, const ptxjit_kernel *k, const ptxjit_launch_cfg *cfg,
                            char *err, size_t errlen)
{
    return ptxjit_launch_with(c, k, cfg, &(ptxjit_launch_opts){.cooperative = false}, err, errlen);
}

ptxjit_status ptxjit_launch_cooperative(ptxjit_ctx *c, const ptxjit_kernel *k,
                                        const ptxjit_launch_cfg *cfg, char *err, size_t errlen)
{
    return ptxjit_launch_with(c, k, cfg, &(ptxjit_launch_opts){.cooperative = true}, err, errlen);
}

ptxjit_heap *ptxjit_heap_create(size_t limit) { return rt_heap_create(limit); }

bool ptxjit_heap_set_limit(ptxjit_heap *h, size_t limit) { return rt_heap_set_limit(h, limit); }

void ptxjit_heap_destroy(ptxjit_heap *h) { rt_heap_destroy(h); }

void *ptxjit_mem_alloc(size_t size) { return rt_devmem_alloc(size); }

void ptxjit_mem_free(void *p, size_t size) { rt_devmem_free(p, size); }
