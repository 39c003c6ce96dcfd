/* link.c - the JIT linker (cuLinkCreate, cuLinkAddData/File, cuLinkComplete,
 * cuLinkDestroy).  ptxjit links at the PTX level: the inputs (PTX text, or
 * the PTX in a fat binary) are merged into one PTX module (ptx_link.c),
 * which cuLinkComplete returns as the "cubin"; cuModuleLoadData accepts it
 * like any PTX image.  GPU machine code (cubin, object, library inputs) has
 * nothing ptxjit can run. */
#define _GNU_SOURCE
#include "cu_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct link_input {
    char *ptx;
    size_t len;
    char *name;
} link_input;

struct CUlinkState_st {
    cu_jit_opts opts;
    void **vals;                 /* the caller's option values, written back */
    link_input *in;
    size_t n, cap;
    char *image;                 /* the result, owned until cuLinkDestroy */
    char *errors;                /* accumulated error log */
    double t0;
};

static bool state_valid(CUlinkState s) { return s && cu_handle_valid(s, CU_KIND_LINK); }

/* Appends a line to the state's error log and republishes the logs. */
static void log_error(CUlinkState s, const char *msg)
{
    char *joined = NULL;
    if (asprintf(&joined, "%s%s", s->errors ? s->errors : "", msg) >= 0) {
        free(s->errors);
        s->errors = joined;
    }
    cu_jit_opts_finish(&s->opts, s->vals, NULL, s->errors, (float)(cu_now_ms() - s->t0));
}

CUresult cuLinkCreate_v2(unsigned int numOptions, CUjit_option *options, void **optionValues,
                         CUlinkState *stateOut)
{
    struct CUctx_st *c;
    CUresult r = cu_ctx_enter(&c);
    if (r)
        return r;
    if (!stateOut)
        return CUDA_ERROR_INVALID_VALUE;
    struct CUlinkState_st *s = calloc(1, sizeof *s);
    if (!s)
        return CUDA_ERROR_OUT_OF_MEMORY;
    if ((r = cu_jit_opts_parse(numOptions, options, optionValues, &s->opts))) {
        free(s);
        return r;
    }
    s->vals = numOptions ? optionValues : NULL;
    s->t0 = cu_now_ms();
    if (!cu_handle_add(s, CU_KIND_LINK)) {
        free(s);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *stateOut = s;
    return CUDA_SUCCESS;
}

CUresult cuLinkDestroy(CUlinkState state)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!state_valid(state))
        return CUDA_ERROR_INVALID_HANDLE;
    cu_handle_remove(state);
    for (size_t i = 0; i < state->n; i++) {
        free(state->in[i].ptx);
        free(state->in[i].name);
    }
    free(state->in);
    free(state->image);
    free(state->errors);
    free(state);
    return CUDA_SUCCESS;
}

/* Takes one input's PTX (from text or a fat binary). */
static CUresult add_input(CUlinkState s, CUjitInputType type, const void *data, size_t size,
                          const char *name)
{
    char *why = NULL, *ptx = NULL;
    size_t len = 0;
    CUresult r;
    switch (type) {
    case CU_JIT_INPUT_PTX:
    case CU_JIT_INPUT_FATBINARY: r = cu_image_ptx(data, size, &ptx, &len, &why); break;
    case CU_JIT_INPUT_CUBIN:
    case CU_JIT_INPUT_OBJECT:
    case CU_JIT_INPUT_LIBRARY:
        why = strdup("GPU machine code cannot be linked on ptxjit: give the linker PTX");
        r = CUDA_ERROR_NO_BINARY_FOR_GPU;
        break;
    case CU_JIT_INPUT_NVVM:
        why = strdup("NVVM IR inputs are not supported: give the linker PTX");
        r = CUDA_ERROR_NOT_SUPPORTED;
        break;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
    if (!r && s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 4;
        link_input *grown = realloc(s->in, cap * sizeof *grown);
        if (grown) {
            s->in = grown;
            s->cap = cap;
        } else {
            r = CUDA_ERROR_OUT_OF_MEMORY;
        }
    }
    if (r) {
        char *line = NULL;
        if (why && asprintf(&line, "%s: error: %s\n", name ? name : "input", why) >= 0)
            log_error(s, line);
        free(line);
        free(why);
        free(ptx);
        return r;
    }
    s->in[s->n++] = (link_input){ptx, len, strdup(name ? name : "input")};
    return CUDA_SUCCESS;
}

CUresult cuLinkAddData_v2(CUlinkState state, CUjitInputType type, void *data, size_t size,
                          const char *name, unsigned int numOptions, CUjit_option *options,
                          void **optionValues)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!state_valid(state))
        return CUDA_ERROR_INVALID_HANDLE;
    cu_jit_opts ignored;
    if (!data || (r = cu_jit_opts_parse(numOptions, options, optionValues, &ignored)))
        return r ? r : CUDA_ERROR_INVALID_VALUE;
    return add_input(state, type, data, size, name);
}

CUresult cuLinkAddFile_v2(CUlinkState state, CUjitInputType type, const char *path,
                          unsigned int numOptions, CUjit_option *options, void **optionValues)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!state_valid(state))
        return CUDA_ERROR_INVALID_HANDLE;
    cu_jit_opts ignored;
    if (!path || (r = cu_jit_opts_parse(numOptions, options, optionValues, &ignored)))
        return r ? r : CUDA_ERROR_INVALID_VALUE;
    char *data;
    size_t len;
    if ((r = cu_read_file(path, &data, &len)))
        return r;
    r = add_input(state, type, data, len, path);
    free(data);
    return r;
}

CUresult cuLinkComplete(CUlinkState state, void **cubinOut, size_t *sizeOut)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!state_valid(state))
        return CUDA_ERROR_INVALID_HANDLE;
    if (!cubinOut || !sizeOut)
        return CUDA_ERROR_INVALID_VALUE;
    if (!state->n) {
        log_error(state, "error: nothing to link\n");
        return CUDA_ERROR_INVALID_VALUE;
    }
    const char *texts[state->n], *names[state->n];
    size_t lens[state->n];
    for (size_t i = 0; i < state->n; i++) {
        texts[i] = state->in[i].ptx;
        lens[i] = state->in[i].len;
        names[i] = state->in[i].name;
    }
    char *out = NULL, *errors = NULL;
    size_t len = 0;
    r = cu_ptx_link(texts, lens, names, state->n, &out, &len, &errors);
    if (r) {
        log_error(state, errors ? errors : "error: link failed\n");
        free(errors);
        return r;
    }
    free(state->image);
    state->image = out;
    *cubinOut = out;
    *sizeOut = len + 1;
    char *info = NULL;
    if (asprintf(&info, "ptxjit: linked %zu PTX input(s) into %zu bytes of PTX\n", state->n,
                 len) < 0)
        info = NULL;
    cu_jit_opts_finish(&state->opts, state->vals, info, state->errors,
                       (float)(cu_now_ms() - state->t0));
    free(info);
    return CUDA_SUCCESS;
}
