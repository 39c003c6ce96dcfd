/* errors.c - cuGetErrorName and cuGetErrorString, from cuda_results.def. */
#include "cu_internal.h"

typedef struct result_text {
    CUresult code;
    const char *name, *text;
} result_text;

static const result_text results[] = {
#define X(name, value, text) {name, #name, text},
#include "ptxjit/cuda_results.def"
#undef X
};

static const result_text *lookup(CUresult e)
{
    for (size_t i = 0; i < sizeof results / sizeof results[0]; i++)
        if (results[i].code == e)
            return &results[i];
    return NULL;
}

/* Neither needs cuInit; an unknown code is CUDA_ERROR_INVALID_VALUE with
 * *pStr set to NULL, as NVIDIA documents. */
CUresult cuGetErrorName(CUresult error, const char **pStr)
{
    if (!pStr)
        return CUDA_ERROR_INVALID_VALUE;
    const result_text *r = lookup(error);
    *pStr = r ? r->name : NULL;
    return r ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuGetErrorString(CUresult error, const char **pStr)
{
    if (!pStr)
        return CUDA_ERROR_INVALID_VALUE;
    const result_text *r = lookup(error);
    *pStr = r ? r->text : NULL;
    return r ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
