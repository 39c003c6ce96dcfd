/* library.c - the context-independent library API of CUDA 12
 * (cuLibrary*, cuKernel*).  A library keeps its PTX; it is compiled at
 * load (so errors surface there) and that instance, the library's home,
 * goes to the first context that uses the library; every further context
 * gets its own instance, with its own variables, as CUDA's per-context
 * modules have.  The home lives as long as the library: when its context
 * goes away it waits, variables back at their initial values, for the
 * next context, except its .managed variables, which are the library's
 * managed memory (cuLibraryGetManaged, with or without a context; another
 * context using the library at the same time has its own copy).
 * A CUkernel names a kernel of the library by index and resolves to the
 * CUfunction of the current context's instance. */
#include "cu_internal.h"

#include <stdlib.h>
#include <string.h>

struct CUkern_st {
    struct CUlib_st *lib;
    uint32_t index;
    const char *name;            /* in the library's first instance */
    int max_dyn_smem;            /* set by cuKernelSetAttribute; -1 unset */
    int carveout;
    CUfunc_cache cache_config;
    bool cache_set;
};

typedef struct lib_mod {
    struct CUmod_st *mod;
    unsigned long long ctx_id;   /* 0: not yet claimed */
    struct CUctx_st *ctx;
} lib_mod;

struct CUlib_st {
    cu_list_node node;           /* in libs */
    char *ptx;
    size_t len;
    lib_mod *mods;
    uint32_t nmods, capmods;
    struct CUkern_st *kernels;
    uint32_t nkernels;
    struct CUmod_st *home;       /* the instance compiled at load */
    uint8_t *home_init;          /* initial bytes of home's variables but the managed ones */
};

/* Libraries and their per-context instances: one lock for all. */
static pthread_mutex_t lib_lock = PTHREAD_MUTEX_INITIALIZER;
static cu_list_node libs = {&libs, &libs};

static bool lib_valid(const struct CUlib_st *l) { return l && cu_handle_valid(l, CU_KIND_LIBRARY); }
static bool kernel_valid(const struct CUkern_st *k)
{
    return k && cu_handle_valid(k, CU_KIND_KERNEL);
}

static void apply_kernel_attrs(const struct CUkern_st *k, struct CUfunc_st *f)
{
    if (k->max_dyn_smem >= 0)
        f->max_dyn_smem = k->max_dyn_smem;
    if (k->carveout >= 0)
        f->carveout = k->carveout;
    if (k->cache_set)
        f->cache_config = k->cache_config;
}

/* Marks the globals of a claimed instance as its context's memory. */
static void set_ctx(cu_alloc *a, void *ctx) { a->ctx = ctx; }

static void mark_globals(struct CUmod_st *mod, struct CUctx_st *ctx)
{
    for (uint32_t i = 0; i < ptxjit_global_count(mod->m); i++)
        cu_map_update((uintptr_t)ptxjit_global_at(mod->m, i)->addr, 1, set_ctx, ctx);
}

/* Copies the home's variables but the managed ones to (save) or from the
 * snapshot. */
static void home_variables(struct CUlib_st *lib, bool save)
{
    uint8_t *p = lib->home_init;
    for (uint32_t i = 0; i < ptxjit_global_count(lib->home->m); i++) {
        const ptxjit_global_info *g = ptxjit_global_at(lib->home->m, i);
        if (g->managed)
            continue;
        if (save)
            memcpy(p, g->addr, g->size);
        else
            memcpy(g->addr, p, g->size);
        p += g->size;
    }
}

static bool home_snapshot(struct CUlib_st *lib)
{
    size_t bytes = 0;
    for (uint32_t i = 0; i < ptxjit_global_count(lib->home->m); i++) {
        const ptxjit_global_info *g = ptxjit_global_at(lib->home->m, i);
        bytes += g->managed ? 0 : g->size;
    }
    if (!(lib->home_init = malloc(bytes ? bytes : 1)))
        return false;
    home_variables(lib, true);
    return true;
}

/* The library's instance in ctx, claiming or compiling one (lib_lock held). */
static CUresult instance(struct CUlib_st *lib, struct CUctx_st *ctx, struct CUmod_st **out)
{
    lib_mod *spare = NULL;
    for (uint32_t i = 0; i < lib->nmods; i++) {
        if (lib->mods[i].ctx_id == ctx->id) {
            *out = lib->mods[i].mod;
            return CUDA_SUCCESS;
        }
        if (!lib->mods[i].ctx_id)
            spare = &lib->mods[i];
    }
    if (spare) {
        spare->ctx_id = ctx->id;
        spare->ctx = ctx;
        spare->mod->ctx = ctx;
        mark_globals(spare->mod, ctx);
        *out = spare->mod;
        return CUDA_SUCCESS;
    }
    if (lib->nmods == lib->capmods) {
        uint32_t cap = lib->capmods ? lib->capmods * 2 : 4;
        lib_mod *grown = realloc(lib->mods, cap * sizeof *grown);
        if (!grown)
            return CUDA_ERROR_OUT_OF_MEMORY;
        lib->mods = grown;
        lib->capmods = cap;
    }
    struct CUmod_st *mod;
    CUresult r = cu_module_load(ctx, lib->ptx, lib->len, "library", 0, NULL, NULL, &mod);
    if (r)
        return r;
    mod->lib = lib;
    for (uint32_t i = 0; i < lib->nkernels && i < mod->nfuncs; i++)
        apply_kernel_attrs(&lib->kernels[i], &mod->funcs[i]);
    lib->mods[lib->nmods++] = (lib_mod){mod, ctx->id, ctx};
    *out = mod;
    return CUDA_SUCCESS;
}

static CUresult current_instance(struct CUlib_st *lib, struct CUmod_st **out)
{
    struct CUctx_st *c;
    CUresult r = cu_ctx_enter(&c);
    if (r)
        return r;
    pthread_mutex_lock(&lib_lock);
    r = lib_valid(lib) ? instance(lib, c, out) : CUDA_ERROR_INVALID_HANDLE;
    pthread_mutex_unlock(&lib_lock);
    return r;
}

/* ---- loading and unloading ------------------------------------------------------------------ */

static void lib_free(struct CUlib_st *lib)
{
    for (uint32_t i = 0; i < lib->nkernels; i++)
        cu_handle_remove(&lib->kernels[i]);
    for (uint32_t i = 0; i < lib->nmods; i++)
        cu_module_free(lib->mods[i].mod);
    free(lib->kernels);
    free(lib->mods);
    free(lib->ptx);
    free(lib->home_init);
    free(lib);
}

static CUresult lib_load(CUlibrary *library, const void *code, size_t size, const char *name,
                         CUjit_option *jitOptions, void **jitOptionsValues,
                         unsigned int numJitOptions, CUlibraryOption *libraryOptions,
                         unsigned int numLibraryOptions)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!library || !code || (numLibraryOptions && !libraryOptions))
        return CUDA_ERROR_INVALID_VALUE;
    for (unsigned i = 0; i < numLibraryOptions; i++)
        if (libraryOptions[i] < 0 || libraryOptions[i] >= CU_LIBRARY_NUM_OPTIONS)
            return CUDA_ERROR_INVALID_VALUE;
    struct CUlib_st *lib = calloc(1, sizeof *lib);
    if (!lib)
        return CUDA_ERROR_OUT_OF_MEMORY;
    char *why = NULL;
    r = cu_image_ptx(code, size, &lib->ptx, &lib->len, &why);
    free(why); /* cu_module_load reports it again, through the log options */
    struct CUmod_st *mod = NULL;
    r = cu_module_load(NULL, r ? code : lib->ptx, r ? size : lib->len, name, numJitOptions,
                       jitOptions, jitOptionsValues, &mod);
    if (!r && (!(lib->mods = malloc(sizeof *lib->mods)) ||
               !(lib->kernels = calloc(mod->nfuncs ? mod->nfuncs : 1, sizeof *lib->kernels))))
        r = CUDA_ERROR_OUT_OF_MEMORY;
    lib->home = mod;
    if (!r && !home_snapshot(lib))
        r = CUDA_ERROR_OUT_OF_MEMORY;
    if (r) {
        cu_module_free(mod);
        lib_free(lib);
        return r;
    }
    mod->lib = lib;
    lib->mods[0] = (lib_mod){mod, 0, NULL};
    lib->nmods = lib->capmods = 1;
    lib->nkernels = mod->nfuncs;
    bool ok = cu_handle_add(lib, CU_KIND_LIBRARY);
    for (uint32_t i = 0; i < lib->nkernels; i++) {
        lib->kernels[i] = (struct CUkern_st){lib, i, mod->funcs[i].info->name, -1, -1,
                                             CU_FUNC_CACHE_PREFER_NONE, false};
        ok = ok && cu_handle_add(&lib->kernels[i], CU_KIND_KERNEL);
    }
    if (!ok) {
        cu_handle_remove(lib);
        lib_free(lib);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    pthread_mutex_lock(&lib_lock);
    cu_list_push(&libs, &lib->node);
    pthread_mutex_unlock(&lib_lock);
    *library = lib;
    return CUDA_SUCCESS;
}

CUresult cuLibraryLoadData(CUlibrary *library, const void *code, CUjit_option *jitOptions,
                           void **jitOptionsValues, unsigned int numJitOptions,
                           CUlibraryOption *libraryOptions, void **libraryOptionValues,
                           unsigned int numLibraryOptions)
{
    (void)libraryOptionValues;
    return lib_load(library, code, 0, "library", jitOptions, jitOptionsValues, numJitOptions,
                    libraryOptions, numLibraryOptions);
}

CUresult cuLibraryLoadFromFile(CUlibrary *library, const char *fileName, CUjit_option *jitOptions,
                               void **jitOptionsValues, unsigned int numJitOptions,
                               CUlibraryOption *libraryOptions, void **libraryOptionValues,
                               unsigned int numLibraryOptions)
{
    (void)libraryOptionValues;
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!library || !fileName)
        return CUDA_ERROR_INVALID_VALUE;
    char *data;
    size_t len;
    if ((r = cu_read_file(fileName, &data, &len)))
        return r;
    r = lib_load(library, data, len, fileName, jitOptions, jitOptionsValues, numJitOptions,
                 libraryOptions, numLibraryOptions);
    free(data);
    return r;
}

/* Waits for the work of every context using the library first. */
CUresult cuLibraryUnload(CUlibrary library)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    pthread_mutex_lock(&lib_lock);
    bool ok = lib_valid(library);
    if (ok) {
        cu_handle_remove(library);
        cu_list_unlink(&library->node);
    }
    pthread_mutex_unlock(&lib_lock);
    if (!ok)
        return CUDA_ERROR_INVALID_HANDLE;
    for (uint32_t i = 0; i < library->nmods; i++)
        if (library->mods[i].ctx && cu_ctx_valid(library->mods[i].ctx))
            cu_ctx_sync(library->mods[i].ctx);
    lib_free(library);
    return CUDA_SUCCESS;
}

/* A destroyed context's instances go, its home instance back to waiting
 * for a context; the library stays usable elsewhere. */
void cu_ctx_free_libraries(struct CUctx_st *ctx)
{
    pthread_mutex_lock(&lib_lock);
    for (cu_list_node *n = libs.next; n != &libs; n = n->next) {
        struct CUlib_st *lib = CU_CONTAINER(n, struct CUlib_st, node);
        uint32_t kept = 0;
        for (uint32_t i = 0; i < lib->nmods; i++) {
            lib_mod *lm = &lib->mods[i];
            if (lm->ctx_id == ctx->id && lm->mod == lib->home) {
                *lm = (lib_mod){lm->mod, 0, NULL};
                lm->mod->ctx = NULL;
                mark_globals(lm->mod, NULL);
                home_variables(lib, false);
            } else if (lm->ctx_id == ctx->id) {
                cu_module_free(lm->mod);
                continue;
            }
            lib->mods[kept++] = *lm;
        }
        lib->nmods = kept;
    }
    pthread_mutex_unlock(&lib_lock);
}

/* ---- lookups ------------------------------------------------------------------------------- */

CUresult cuLibraryGetKernel(CUkernel *pKernel, CUlibrary library, const char *name)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!lib_valid(library))
        return CUDA_ERROR_INVALID_HANDLE;
    if (!pKernel || !name)
        return CUDA_ERROR_INVALID_VALUE;
    for (uint32_t i = 0; i < library->nkernels; i++)
        if (!strcmp(library->kernels[i].name, name)) {
            *pKernel = &library->kernels[i];
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_NOT_FOUND;
}

CUresult cuLibraryGetKernelCount(unsigned int *count, CUlibrary lib)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!lib_valid(lib))
        return CUDA_ERROR_INVALID_HANDLE;
    if (!count)
        return CUDA_ERROR_INVALID_VALUE;
    *count = lib->nkernels;
    return CUDA_SUCCESS;
}

CUresult cuLibraryEnumerateKernels(CUkernel *kernels, unsigned int numKernels, CUlibrary lib)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!lib_valid(lib))
        return CUDA_ERROR_INVALID_HANDLE;
    if (!kernels)
        return CUDA_ERROR_INVALID_VALUE;
    for (unsigned i = 0; i < numKernels && i < lib->nkernels; i++)
        kernels[i] = &lib->kernels[i];
    return CUDA_SUCCESS;
}

CUresult cuLibraryGetModule(CUmodule *pMod, CUlibrary library)
{
    if (!pMod)
        return cu_init_or(CUDA_ERROR_INVALID_VALUE);
    return current_instance(library, pMod);
}

CUresult cuLibraryGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUlibrary library, const char *name)
{
    struct CUmod_st *mod;
    CUresult r = current_instance(library, &mod);
    if (r)
        return r;
    if (!name)
        return CUDA_ERROR_INVALID_VALUE;
    return cu_module_global(mod, name, dptr, bytes);
}

/* A .managed variable: the home instance's, whatever context is current
 * (none at all when NVIDIA's runtime asks, at its start). */
CUresult cuLibraryGetManaged(CUdeviceptr *dptr, size_t *bytes, CUlibrary library, const char *name)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!name)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&lib_lock);
    const ptxjit_global_info *g = NULL;
    if (!lib_valid(library))
        r = CUDA_ERROR_INVALID_HANDLE;
    else if (!(g = ptxjit_global_get(library->home->m, name)) || !g->managed)
        r = CUDA_ERROR_NOT_FOUND;
    if (!r && dptr)
        *dptr = (CUdeviceptr)(uintptr_t)g->addr;
    if (!r && bytes)
        *bytes = g->size;
    pthread_mutex_unlock(&lib_lock);
    return r;
}

/* Unified functions (host-callable device functions) do not exist here. */
CUresult cuLibraryGetUnifiedFunction(void **fptr, CUlibrary library, const char *symbol)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!lib_valid(library))
        return CUDA_ERROR_INVALID_HANDLE;
    if (!fptr || !symbol)
        return CUDA_ERROR_INVALID_VALUE;
    return CUDA_ERROR_NOT_FOUND;
}

/* ---- kernels ----------------------------------------------------------------------------- */

static CUresult kernel_function(CUkernel k, struct CUfunc_st **out)
{
    struct CUctx_st *c;
    CUresult r = cu_ctx_enter(&c);
    if (r)
        return r;
    pthread_mutex_lock(&lib_lock);
    struct CUmod_st *mod = NULL;
    r = kernel_valid(k) ? instance(k->lib, c, &mod) : CUDA_ERROR_INVALID_HANDLE;
    if (!r)
        *out = &mod->funcs[k->index];
    pthread_mutex_unlock(&lib_lock);
    return r;
}

CUresult cu_func_resolve(CUfunction h, struct CUfunc_st **out)
{
    if (cu_func_valid(h)) {
        *out = h;
        return CUDA_SUCCESS;
    }
    if (kernel_valid((struct CUkern_st *)h))
        return kernel_function((struct CUkern_st *)h, out);
    return CUDA_ERROR_INVALID_HANDLE;
}

CUresult cuKernelGetFunction(CUfunction *pFunc, CUkernel kernel)
{
    if (!pFunc)
        return cu_init_or(CUDA_ERROR_INVALID_VALUE);
    return kernel_function(kernel, pFunc);
}

CUresult cuKernelGetLibrary(CUlibrary *pLib, CUkernel kernel)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!kernel_valid(kernel))
        return CUDA_ERROR_INVALID_HANDLE;
    if (!pLib)
        return CUDA_ERROR_INVALID_VALUE;
    *pLib = kernel->lib;
    return CUDA_SUCCESS;
}

CUresult cuKernelGetName(const char **name, CUkernel hfunc)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!kernel_valid(hfunc))
        return CUDA_ERROR_INVALID_HANDLE;
    if (!name)
        return CUDA_ERROR_INVALID_VALUE;
    *name = hfunc->name;
    return CUDA_SUCCESS;
}

/* Kernel facts that do not depend on the context come from the library's
 * first instance (lib_lock held). */
static const struct CUfunc_st *any_instance(const struct CUkern_st *k)
{
    return &k->lib->mods[0].mod->funcs[k->index];
}

CUresult cuKernelGetParamInfo(CUkernel kernel, size_t paramIndex, size_t *paramOffset,
                              size_t *paramSize)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    pthread_mutex_lock(&lib_lock);
    if (!kernel_valid(kernel)) {
        r = CUDA_ERROR_INVALID_HANDLE;
    } else {
        const ptxjit_kernel_info *ki = any_instance(kernel)->info;
        if (paramIndex >= ki->nparams) {
            r = CUDA_ERROR_INVALID_VALUE;
        } else {
            if (paramOffset)
                *paramOffset = ki->params[paramIndex].offset;
            if (paramSize)
                *paramSize = ki->params[paramIndex].size;
        }
    }
    pthread_mutex_unlock(&lib_lock);
    return r;
}

CUresult cuKernelGetAttribute(int *pi, CUfunction_attribute attrib, CUkernel kernel, CUdevice dev)
{
    CUresult r = cu_check_device(dev);
    if (r)
        return r;
    pthread_mutex_lock(&lib_lock);
    if (!kernel_valid(kernel)) {
        r = CUDA_ERROR_INVALID_HANDLE;
    } else {
        struct CUfunc_st f = *any_instance(kernel);
        apply_kernel_attrs(kernel, &f);
        r = pi ? cu_func_get_attr(&f, attrib, pi) : CUDA_ERROR_INVALID_VALUE;
    }
    pthread_mutex_unlock(&lib_lock);
    return r;
}

/* Applies to the kernel in every context, present and future. */
CUresult cuKernelSetAttribute(CUfunction_attribute attrib, int val, CUkernel kernel, CUdevice dev)
{
    CUresult r = cu_check_device(dev);
    if (r)
        return r;
    pthread_mutex_lock(&lib_lock);
    if (!kernel_valid(kernel)) {
        r = CUDA_ERROR_INVALID_HANDLE;
    } else {
        struct CUfunc_st probe = *any_instance(kernel);
        r = cu_func_set_attr(&probe, attrib, val);
        if (!r) {
            if (attrib == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)
                kernel->max_dyn_smem = probe.max_dyn_smem;
            if (attrib == CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT)
                kernel->carveout = probe.carveout;
            for (uint32_t i = 0; i < kernel->lib->nmods; i++)
                cu_func_set_attr(&kernel->lib->mods[i].mod->funcs[kernel->index], attrib, val);
        }
    }
    pthread_mutex_unlock(&lib_lock);
    return r;
}

CUresult cuKernelSetCacheConfig(CUkernel kernel, CUfunc_cache config, CUdevice dev)
{
    CUresult r = cu_check_device(dev);
    if (r)
        return r;
    if (config < CU_FUNC_CACHE_PREFER_NONE || config > CU_FUNC_CACHE_PREFER_EQUAL)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&lib_lock);
    if (!kernel_valid(kernel)) {
        r = CUDA_ERROR_INVALID_HANDLE;
    } else {
        kernel->cache_config = config;
        kernel->cache_set = true;
        for (uint32_t i = 0; i < kernel->lib->nmods; i++)
            kernel->lib->mods[i].mod->funcs[kernel->index].cache_config = config;
    }
    pthread_mutex_unlock(&lib_lock);
    return r;
}
