/* function.c - function attributes and the occupancy calculator.
 *
 * ptxjit allocates no GPU registers, so a kernel reports its .maxnreg, or
 * 32 registers per thread when it declares none; occupancy follows NVIDIA's
 * rules for the configured compute capability (warps, blocks, registers and
 * shared memory per SM), so launch-shape heuristics in CUDA programs pick
 * the shapes they would pick on such a GPU. */
#include "cu_internal.h"

#include <string.h>

enum { DEFAULT_REGS = 32, REGS_PER_SM = 65536, STATIC_SMEM_LIMIT = 49152 };

static int func_regs(const struct CUfunc_st *f)
{
    return f->info->maxnreg ? (int)f->info->maxnreg : DEFAULT_REGS;
}

/* The block size a launch may use: 1024, the declared .maxntid/.reqntid,
 * and what the registers allow. */
static int func_max_threads(const struct CUfunc_st *f)
{
    int n = 1024;
    const uint32_t *d = f->info->reqntid[0] ? f->info->reqntid : f->info->maxntid;
    if (d[0]) {
        long long t = (long long)d[0] * (d[1] ? d[1] : 1) * (d[2] ? d[2] : 1);
        n = t < n ? (int)t : n;
    }
    int by_regs = REGS_PER_SM / (func_regs(f) * 32) * 32;
    return by_regs < n ? by_regs : n;
}

static int const_bytes(const struct CUmod_st *mod)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < ptxjit_global_count(mod->m); i++)
        if (ptxjit_global_at(mod->m, i)->is_const)
            n += ptxjit_global_at(mod->m, i)->size;
    return n > 65536 ? 65536 : (int)n;
}

CUresult cu_func_get_attr(const struct CUfunc_st *f, CUfunction_attribute attrib, int *pi)
{
    const cu_device_cfg *d = cu_device();
    switch (attrib) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *pi = func_max_threads(f); break;
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *pi = (int)f->info->static_smem; break;
    case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: *pi = const_bytes(f->mod); break;
    case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: *pi = 0; break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS: *pi = func_regs(f); break;
    /* the virtual architecture of .target (75 for sm_75), as NVIDIA's driver
     * reports it: CUB picks its tuning policies from it */
    case CU_FUNC_ATTRIBUTE_PTX_VERSION: *pi = f->mod->binary_version; break;
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *pi = d->cc_major * 10 + d->cc_minor; break;
    case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA: *pi = 0; break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *pi = f->max_dyn_smem; break;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: *pi = f->carveout; break;
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED: *pi = f->non_portable_cluster; break;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
    case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE: *pi = 0; break;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

CUresult cu_func_set_attr(struct CUfunc_st *f, CUfunction_attribute attrib, int value)
{
    switch (attrib) {
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
        if (value < 0 || (long long)value + f->info->static_smem > cu_arch().smem_per_block_optin)
            return CUDA_ERROR_INVALID_VALUE;
        f->max_dyn_smem = value;
        return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
        if (value < -1 || value > 100)
            return CUDA_ERROR_INVALID_VALUE;
        f->carveout = value;
        return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
        if (value != 0 && value != 1)
            return CUDA_ERROR_INVALID_VALUE;
        f->non_portable_cluster = value;
        return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
        /* clusters of one block only */
        return value == 1 || value == 0 ? CUDA_SUCCESS : CUDA_ERROR_NOT_SUPPORTED;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
        return value >= 0 && value <= 2 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    default:
        return CUDA_ERROR_INVALID_VALUE; /* read-only or unknown */
    }
}

/* A function handle of a live module (not a CUkernel: NVIDIA's
 * cuFuncGetAttribute takes functions only). */
static CUresult func_check(CUfunction f)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    return cu_func_valid(f) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult cuFuncGetAttribute(int *pi, CUfunction_attribute attrib, CUfunction hfunc)
{
    CUresult r = func_check(hfunc);
    if (r)
        return r;
    if (!pi)
        return CUDA_ERROR_INVALID_VALUE;
    return cu_func_get_attr(hfunc, attrib, pi);
}

CUresult cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value)
{
    CUresult r = func_check(hfunc);
    return r ? r : cu_func_set_attr(hfunc, attrib, value);
}

CUresult cuFuncSetCacheConfig(CUfunction hfunc, CUfunc_cache config)
{
    CUresult r = func_check(hfunc);
    if (r)
        return r;
    if (config < CU_FUNC_CACHE_PREFER_NONE || config > CU_FUNC_CACHE_PREFER_EQUAL)
        return CUDA_ERROR_INVALID_VALUE;
    hfunc->cache_config = config;
    return CUDA_SUCCESS;
}

CUresult cuFuncSetSharedMemConfig(CUfunction hfunc, CUsharedconfig config)
{
    CUresult r = func_check(hfunc);
    if (r)
        return r;
    if (config < CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE ||
        config > CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE)
        return CUDA_ERROR_INVALID_VALUE;
    hfunc->smem_config = config;
    return CUDA_SUCCESS;
}

CUresult cuFuncGetModule(CUmodule *hmod, CUfunction hfunc)
{
    CUresult r = func_check(hfunc);
    if (r)
        return r;
    if (!hmod)
        return CUDA_ERROR_INVALID_VALUE;
    *hmod = hfunc->mod;
    return CUDA_SUCCESS;
}

CUresult cuFuncGetName(const char **name, CUfunction hfunc)
{
    CUresult r = func_check(hfunc);
    if (r)
        return r;
    if (!name)
        return CUDA_ERROR_INVALID_VALUE;
    *name = hfunc->info->name;
    return CUDA_SUCCESS;
}

CUresult cuFuncGetParamInfo(CUfunction func, size_t paramIndex, size_t *paramOffset,
                            size_t *paramSize)
{
    CUresult r = func_check(func);
    if (r)
        return r;
    if (paramIndex >= func->info->nparams)
        return CUDA_ERROR_INVALID_VALUE;
    if (paramOffset)
        *paramOffset = func->info->params[paramIndex].offset;
    if (paramSize)
        *paramSize = func->info->params[paramIndex].size;
    return CUDA_SUCCESS;
}

/* Modules load eagerly: every function is loaded. */
CUresult cuFuncIsLoaded(CUfunctionLoadingState *state, CUfunction function)
{
    CUresult r = func_check(function);
    if (r)
        return r;
    if (!state)
        return CUDA_ERROR_INVALID_VALUE;
    *state = CU_FUNCTION_LOADING_STATE_LOADED;
    return CUDA_SUCCESS;
}

CUresult cuFuncLoad(CUfunction function) { return func_check(function); }

/* ---- occupancy ------------------------------------------------------------------------------ */

/* Blocks of blockSize threads one SM holds at once (NVIDIA's rules). */
int cu_func_blocks_per_sm(const struct CUfunc_st *f, int block, size_t dyn_smem)
{
    if (block <= 0 || block > func_max_threads(f))
        return 0;
    cu_arch_limits a = cu_arch();
    int warps = (block + 31) / 32;
    int by_warps = a.threads_per_sm / 32 / warps;
    int regs_per_warp = (func_regs(f) * 32 + 255) / 256 * 256;
    int by_regs = REGS_PER_SM / (regs_per_warp * warps);
    size_t smem = f->info->static_smem + dyn_smem;
    if (smem > (size_t)a.smem_per_block_optin)
        return 0;
    int by_smem = smem ? (int)((size_t)a.smem_per_sm / smem) : a.blocks_per_sm;
    int n = a.blocks_per_sm;
    n = by_warps < n ? by_warps : n;
    n = by_regs < n ? by_regs : n;
    return by_smem < n ? by_smem : n;
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, CUfunction func,
                                                              int blockSize,
                                                              size_t dynamicSMemSize,
                                                              unsigned int flags)
{
    struct CUfunc_st *f;
    CUresult r = cu_func_resolve(func, &f);
    if (r)
        return cu_init_or(r);
    if (!numBlocks || blockSize <= 0 || flags > CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE)
        return CUDA_ERROR_INVALID_VALUE;
    *numBlocks = cu_func_blocks_per_sm(f, blockSize, dynamicSMemSize);
    return CUDA_SUCCESS;
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, CUfunction func,
                                                     int blockSize, size_t dynamicSMemSize)
{
    return cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize,
                                                                dynamicSMemSize, 0);
}

/* The block size (a multiple of the warp size) with the most resident
 * threads per SM, the largest on a tie; minGridSize fills every SM. */
CUresult cuOccupancyMaxPotentialBlockSizeWithFlags(int *minGridSize, int *blockSize,
                                                   CUfunction func,
                                                   CUoccupancyB2DSize blockSizeToDynamicSMemSize,
                                                   size_t dynamicSMemSize, int blockSizeLimit,
                                                   unsigned int flags)
{
    struct CUfunc_st *f;
    CUresult r = cu_func_resolve(func, &f);
    if (r)
        return cu_init_or(r);
    if (!minGridSize || !blockSize || blockSizeLimit < 0 ||
        flags > CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE)
        return CUDA_ERROR_INVALID_VALUE;
    int limit = func_max_threads(f);
    if (blockSizeLimit && blockSizeLimit < limit)
        limit = blockSizeLimit;
    int best = 0, best_blocks = 0, best_threads = -1;
    for (int b = (limit + 31) / 32 * 32; b > 0; b -= 32) {
        int bs = b > limit ? limit : b;
        size_t smem = blockSizeToDynamicSMemSize ? blockSizeToDynamicSMemSize(bs) : dynamicSMemSize;
        int nb = cu_func_blocks_per_sm(f, bs, smem);
        if (nb * bs > best_threads) {
            best_threads = nb * bs;
            best = bs;
            best_blocks = nb;
        }
    }
    *blockSize = best;
    *minGridSize = best_blocks * cu_device()->sm_count;
    return CUDA_SUCCESS;
}

CUresult cuOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize, CUfunction func,
                                          CUoccupancyB2DSize blockSizeToDynamicSMemSize,
                                          size_t dynamicSMemSize, int blockSizeLimit)
{
    return cuOccupancyMaxPotentialBlockSizeWithFlags(
        minGridSize, blockSize, func, blockSizeToDynamicSMemSize, dynamicSMemSize, blockSizeLimit, 0);
}

CUresult cuOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, CUfunction func,
                                                 int numBlocks, int blockSize)
{
    struct CUfunc_st *f;
    CUresult r = cu_func_resolve(func, &f);
    if (r)
        return cu_init_or(r);
    if (!dynamicSmemSize || numBlocks <= 0 || blockSize <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    cu_arch_limits a = cu_arch();
    if (blockSize > func_max_threads(f) || cu_func_blocks_per_sm(f, blockSize, 0) < numBlocks) {
        *dynamicSmemSize = 0;
        return CUDA_SUCCESS;
    }
    size_t per_block = (size_t)a.smem_per_sm / (size_t)numBlocks;
    if (per_block > (size_t)a.smem_per_block_optin)
        per_block = (size_t)a.smem_per_block_optin;
    *dynamicSmemSize = per_block > f->info->static_smem ? per_block - f->info->static_smem : 0;
    return CUDA_SUCCESS;
}
