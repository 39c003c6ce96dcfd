/* module.c - modules: load (file, image, image with JIT options, fat
 * binary), unload, functions and variables.  A module is one ptxjit
 * compilation; its .global/.const variables are entered in the allocation
 * map as device memory of its context. */
#define _GNU_SOURCE
#include "cu_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

bool cu_module_valid(const struct CUmod_st *mod)
{
    return mod && cu_handle_valid(mod, CU_KIND_MODULE);
}

bool cu_func_valid(const struct CUfunc_st *f) { return f && cu_handle_valid(f, CU_KIND_FUNCTION); }

CUresult cu_read_file(const char *path, char **data, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return errno == ENOMEM ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_ERROR_FILE_NOT_FOUND;
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n > PTXJIT_MAX_PTX_BYTES) { /* endless (/dev/zero) or absurd: no module */
            free(buf);
            fclose(f);
            return CUDA_ERROR_INVALID_IMAGE;
        }
        if (n + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 65536;
            char *grown = realloc(buf, cap);
            if (!grown) {
                free(buf);
                fclose(f);
                return CUDA_ERROR_OUT_OF_MEMORY;
            }
            buf = grown;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    bool bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return CUDA_ERROR_FILE_NOT_FOUND;
    }
    buf[n] = '\0';
    *data = buf;
    *len = n;
    return CUDA_SUCCESS;
}

/* ---- building the module object ---------------------------------------------------------- */

/* Enters the module's variables in the allocation map and its handles in
 * the registry. */
static bool module_register(struct CUmod_st *mod)
{
    if (!cu_handle_add(mod, CU_KIND_MODULE))
        return false;
    for (uint32_t i = 0; i < mod->nfuncs; i++)
        if (!cu_handle_add(&mod->funcs[i], CU_KIND_FUNCTION))
            return false;
    for (uint32_t i = 0; i < ptxjit_global_count(mod->m); i++) {
        const ptxjit_global_info *g = ptxjit_global_at(mod->m, i);
        /* a .managed variable is managed memory (attached globally) */
        cu_alloc a = {.base = (uintptr_t)g->addr, .size = g->size, .kind = CU_MEM_GLOBAL,
                      .ctx = mod->ctx, .id = cu_next_id(),
                      .flags = g->managed ? CU_MEM_ATTACH_GLOBAL : 0,
                      .preferred = {CU_MEM_LOCATION_TYPE_INVALID, 0},
                      .last_prefetch = {CU_MEM_LOCATION_TYPE_INVALID, 0}};
        if (g->size && !cu_map_insert(&a))
            return false;
    }
    return true;
}

void cu_module_free(struct CUmod_st *mod)
{
    if (!mod)
        return;
    cu_handle_remove(mod);
    for (uint32_t i = 0; i < mod->nfuncs; i++)
        cu_handle_remove(&mod->funcs[i]);
    for (uint32_t i = 0; mod->m && i < ptxjit_global_count(mod->m); i++) {
        const ptxjit_global_info *g = ptxjit_global_at(mod->m, i);
        if (g->size)
            cu_map_remove((uintptr_t)g->addr, CU_MEM_GLOBAL, NULL);
    }
    ptxjit_module_unload(mod->m);
    free(mod->funcs);
    free(mod);
}

struct CUmod_st *cu_module_new(struct CUctx_st *ctx, ptxjit_module *m, int ptx_version,
                               int binary_version)
{
    struct CUmod_st *mod = calloc(1, sizeof *mod);
    uint32_t n = ptxjit_kernel_count(m);
    if (mod)
        mod->funcs = calloc(n ? n : 1, sizeof *mod->funcs);
    if (!mod || !mod->funcs) {
        free(mod);
        ptxjit_module_unload(m);
        return NULL;
    }
    mod->ctx = ctx;
    mod->m = m;
    mod->nfuncs = n;
    mod->ptx_version = ptx_version;
    mod->binary_version = binary_version;
    cu_list_init(&mod->node);
    for (uint32_t i = 0; i < n; i++) {
        struct CUfunc_st *f = &mod->funcs[i];
        f->mod = mod;
        f->k = ptxjit_kernel_at(m, i);
        f->info = ptxjit_kernel_info_of(f->k);
        f->max_dyn_smem = 49152 - (int)f->info->static_smem;
        if (f->max_dyn_smem < 0)
            f->max_dyn_smem = 0;
        f->carveout = -1;
        f->cache_config = CU_FUNC_CACHE_PREFER_NONE;
    }
    if (!module_register(mod)) {
        cu_module_free(mod);
        return NULL;
    }
    return mod;
}

/* ---- loading --------------------------------------------------------------------------- */

/* CUDA_MODULE_LOADING=EAGER compiles every kernel at load, as NVIDIA's
 * driver then does; by default (LAZY, NVIDIA's default since CUDA 12.2) a
 * kernel is compiled when first launched. */
static bool eager_loading(void)
{
    const char *v = getenv("CUDA_MODULE_LOADING");
    return v && !strcasecmp(v, "EAGER");
}

static char *info_log(const char *name, const ptxjit_module *m, const ptxjit_stats *st,
                      double ms, bool verbose)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    if (!f)
        return NULL;
    fprintf(f, "ptxjit: %s: %u kernel(s) loaded in %.3f ms (parse %.3f, lower %.3f, "
               "optimize %.3f, codegen %.3f, load %.3f ms; %u kernel(s) compiled, %u from the "
               "cache)\n",
            name, ptxjit_kernel_count(m), ms, st->parse * 1e3, st->lower * 1e3,
            st->optimize * 1e3, st->codegen * 1e3, st->load * 1e3, st->kernels_compiled,
            st->kernels_cached);
    for (uint32_t i = 0; verbose && i < ptxjit_kernel_count(m); i++) {
        const ptxjit_kernel_info *k = ptxjit_kernel_info_of(ptxjit_kernel_at(m, i));
        fprintf(f, "ptxjit: %s: kernel '%s': %u parameter bytes, %u bytes of static shared "
                   "memory\n",
                name, k->name, k->param_bytes, k->static_smem);
    }
    fclose(f);
    return buf;
}

CUresult cu_module_load(struct CUctx_st *ctx, const void *image, size_t size, const char *name,
                        unsigned nopts, CUjit_option *opts, void **vals, struct CUmod_st **out)
{
    cu_jit_opts jo;
    CUresult r = cu_jit_opts_parse(nopts, opts, vals, &jo);
    if (r)
        return r;
    double t0 = cu_now_ms();
    char *ptx = NULL, *why = NULL, *log = NULL;
    size_t len = 0;
    ptxjit_module *m = NULL;
    ptxjit_stats st = {0};
    r = cu_image_ptx(image, size, &ptx, &len, &why);
    if (!r)
        r = cu_ptx_check_header(ptx, len, name, &why);
    if (!r) {
        m = ptxjit_load(cu_engine(), ptx, len, name, &log, &st);
        if (!m)
            r = log ? CUDA_ERROR_INVALID_PTX : CUDA_ERROR_OUT_OF_MEMORY;
    }
    char err[1024];
    if (m && eager_loading() && ptxjit_module_compile(m, err, sizeof err)) {
        why = strdup(err);
        ptxjit_module_unload(m);
        m = NULL;
        r = CUDA_ERROR_INVALID_PTX;
    }
    if (m)
        st = ptxjit_module_stats(m);
    struct CUmod_st *mod = NULL;
    if (m && !(mod = cu_module_new(ctx, m, cu_ptx_directive_version(ptx, len, ".version"),
                                cu_ptx_directive_version(ptx, len, ".target"))))
        r = CUDA_ERROR_OUT_OF_MEMORY;
    double ms = cu_now_ms() - t0;
    char *info = mod ? info_log(name, m, &st, ms, jo.verbose) : NULL;
    cu_jit_opts_finish(&jo, vals, info, why ? why : log, (float)ms);
    free(info);
    free(why);
    free(log);
    free(ptx);
    if (r)
        return r;
    *out = mod;
    return CUDA_SUCCESS;
}

static CUresult load_into(struct CUctx_st *c, CUmodule *module, const void *image, size_t size,
                          const char *name, unsigned nopts, CUjit_option *opts, void **vals)
{
    CUresult r = cu_ctx_sticky(c);
    if (r)
        return r;
    if (!module || !image)
        return CUDA_ERROR_INVALID_VALUE;
    struct CUmod_st *mod;
    r = cu_module_load(c, image, size, name, nopts, opts, vals, &mod);
    if (r)
        return r;
    pthread_mutex_lock(&c->lock);
    cu_list_push(&c->modules, &mod->node);
    pthread_mutex_unlock(&c->lock);
    *module = mod;
    return CUDA_SUCCESS;
}

/* Holds the context (cu_ctx_hold): a cuCtxDestroy meanwhile waits for the
 * module to be in its list, and so frees it. */
static CUresult load_into_current(CUmodule *module, const void *image, size_t size,
                                  const char *name, unsigned nopts, CUjit_option *opts,
                                  void **vals)
{
    struct CUctx_st *c;
    CUresult r = cu_ctx_hold(NULL, &c);
    if (r)
        return r;
    r = load_into(c, module, image, size, name, nopts, opts, vals);
    cu_ctx_release(c);
    return r;
}

CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int numOptions,
                            CUjit_option *options, void **optionValues)
{
    return load_into_current(module, image, 0, "ptx", numOptions, options, optionValues);
}

CUresult cuModuleLoadData(CUmodule *module, const void *image)
{
    return load_into_current(module, image, 0, "ptx", 0, NULL, NULL);
}

CUresult cuModuleLoadFatBinary(CUmodule *module, const void *fatCubin)
{
    return load_into_current(module, fatCubin, 0, "fatbin", 0, NULL, NULL);
}

CUresult cuModuleLoad(CUmodule *module, const char *fname)
{
    struct CUctx_st *c;
    CUresult r = cu_ctx_enter(&c);
    if (r)
        return r;
    if (!module || !fname)
        return CUDA_ERROR_INVALID_VALUE;
    char *data;
    size_t len;
    if ((r = cu_read_file(fname, &data, &len)))
        return r;
    r = load_into_current(module, data, len, fname, 0, NULL, NULL);
    free(data);
    return r;
}

/* Waits for the context's work (a kernel of the module may be running). */
CUresult cuModuleUnload(CUmodule hmod)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!cu_module_valid(hmod) || hmod->lib)
        return CUDA_ERROR_INVALID_HANDLE;
    struct CUctx_st *c = hmod->ctx;
    cu_ctx_sync(c);
    pthread_mutex_lock(&c->lock);
    cu_list_unlink(&hmod->node);
    pthread_mutex_unlock(&c->lock);
    cu_module_free(hmod);
    return cu_ctx_sticky(c);
}

void cu_ctx_free_modules(struct CUctx_st *ctx)
{
    cu_ctx_free_libraries(ctx);
    pthread_mutex_lock(&ctx->lock);
    while (!cu_list_empty(&ctx->modules)) {
        struct CUmod_st *mod = CU_CONTAINER(ctx->modules.next, struct CUmod_st, node);
        cu_list_unlink(&mod->node);
        pthread_mutex_unlock(&ctx->lock);
        cu_module_free(mod);
        pthread_mutex_lock(&ctx->lock);
    }
    pthread_mutex_unlock(&ctx->lock);
}

CUresult cuModuleGetLoadingMode(CUmoduleLoadingMode *mode)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!mode)
        return CUDA_ERROR_INVALID_VALUE;
    *mode = eager_loading() ? CU_MODULE_EAGER_LOADING : CU_MODULE_LAZY_LOADING;
    return CUDA_SUCCESS;
}

/* ---- lookups ------------------------------------------------------------------------------ */

CUresult cu_module_function(struct CUmod_st *mod, const char *name, struct CUfunc_st **out)
{
    for (uint32_t i = 0; i < mod->nfuncs; i++)
        if (!strcmp(mod->funcs[i].info->name, name)) {
            *out = &mod->funcs[i];
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_NOT_FOUND;
}

CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!cu_module_valid(hmod))
        return CUDA_ERROR_INVALID_HANDLE;
    if (!hfunc || !name)
        return CUDA_ERROR_INVALID_VALUE;
    return cu_module_function(hmod, name, hfunc);
}

CUresult cuModuleGetFunctionCount(unsigned int *count, CUmodule mod)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!cu_module_valid(mod))
        return CUDA_ERROR_INVALID_HANDLE;
    if (!count)
        return CUDA_ERROR_INVALID_VALUE;
    *count = mod->nfuncs;
    return CUDA_SUCCESS;
}

CUresult cuModuleEnumerateFunctions(CUfunction *functions, unsigned int numFunctions, CUmodule mod)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!cu_module_valid(mod))
        return CUDA_ERROR_INVALID_HANDLE;
    if (!functions)
        return CUDA_ERROR_INVALID_VALUE;
    for (unsigned i = 0; i < numFunctions && i < mod->nfuncs; i++)
        functions[i] = &mod->funcs[i];
    return CUDA_SUCCESS;
}

CUresult cu_module_global(struct CUmod_st *mod, const char *name, CUdeviceptr *dptr,
                          size_t *bytes)
{
    const ptxjit_global_info *g = ptxjit_global_get(mod->m, name);
    if (!g)
        return CUDA_ERROR_NOT_FOUND;
    if (dptr)
        *dptr = (CUdeviceptr)(uintptr_t)g->addr;
    if (bytes)
        *bytes = g->size;
    return CUDA_SUCCESS;
}

CUresult cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes, CUmodule hmod, const char *name)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!cu_module_valid(hmod))
        return CUDA_ERROR_INVALID_HANDLE;
    if (!name)
        return CUDA_ERROR_INVALID_VALUE;
    return cu_module_global(hmod, name, dptr, bytes);
}
