/* link.c - the JIT linker (cuLinkCreate, cuLinkAddData/File, cuLinkComplete,
 * cuLinkDestroy).  ptxjit links at the PTX level: the inputs (PTX text, or
 * the PTX in a fat binary) are merged into one PTX module (ptx_link.c),
 * which cuLinkComplete returns as the "cubin"; cuModuleLoadData accepts it
 * like any PTX image.  Host objects and static libraries (nvcc -rdc, -lib)
 * give the PTX of the fat binaries embedded in them (archive.c).  GPU
 * machine code alone (cubins) has nothing ptxjit can run. */
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

/* Appends an input, taking ptx and name (freed on failure). */
static CUresult push_input(CUlinkState s, char *ptx, size_t len, char *name)
{
    if (name && s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 4;
        link_input *grown = realloc(s->in, cap * sizeof *grown);
        if (grown) {
            s->in = grown;
            s->cap = cap;
        }
    }
    if (!name || s->n == s->cap) {
        free(ptx);
        free(name);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    s->in[s->n++] = (link_input){ptx, len, name};
    return CUDA_SUCCESS;
}

/* Objects and libraries: the PTX of every fat binary nvcc embedded. */
typedef struct embedded {
    CUlinkState s;
    const char *file;
    CUresult r;
    size_t added;
} embedded;

static void add_embedded(const void *fatbin, size_t size, const char *member, void *arg)
{
    embedded *e = arg;
    char *ptx = NULL, *why = NULL, *name = NULL;
    size_t len;
    if (e->r || cu_fatbin_ptx(fatbin, size, &ptx, &len, &why)) {
        free(why); /* machine code only, or not for this device: nothing to link */
        return;
    }
    if (asprintf(&name, "%s(%s)", e->file, member) < 0)
        name = NULL;
    e->r = push_input(e->s, ptx, len, name);
    e->added += !e->r;
}

static CUresult add_object(CUlinkState s, CUjitInputType type, const void *data, size_t size,
                           const char *name, char **why)
{
    embedded e = {s, name, CUDA_SUCCESS, 0};
    bool ok = type == CU_JIT_INPUT_LIBRARY ? cu_archive_fatbins(data, size, add_embedded, &e)
                                           : cu_object_fatbins(data, size, name, add_embedded, &e);
    if (e.r)
        return e.r;
    if (!ok) {
        *why = strdup(type == CU_JIT_INPUT_LIBRARY ? "not an `ar` archive of objects"
                                                  : "not a 64-bit ELF object");
        return CUDA_ERROR_INVALID_IMAGE;
    }
    if (!e.added) {
        *why = strdup("no PTX for this device in its device code (GPU machine code cannot be "
                      "linked on ptxjit)");
        return CUDA_ERROR_NO_BINARY_FOR_GPU;
    }
    return CUDA_SUCCESS;
}

/* Takes one input's PTX (from text, a fat binary, or the fat binaries
 * embedded in a host object or a static library of them). */
static CUresult add_input(CUlinkState s, CUjitInputType type, const void *data, size_t size,
                          const char *name)
{
    char *why = NULL, *ptx = NULL;
    size_t len = 0;
    CUresult r;
    name = name ? name : "input";
    switch (type) {
    case CU_JIT_INPUT_PTX:
    case CU_JIT_INPUT_FATBINARY:
        r = cu_image_ptx(data, size, &ptx, &len, &why);
        if (!r)
            r = push_input(s, ptx, len, strdup(name));
        break;
    case CU_JIT_INPUT_OBJECT:
    case CU_JIT_INPUT_LIBRARY:
        r = size ? add_object(s, type, data, size, name, &why) : CUDA_ERROR_INVALID_VALUE;
        break;
    case CU_JIT_INPUT_CUBIN:
        why = strdup("GPU machine code cannot be linked on ptxjit: give the linker PTX");
        r = CUDA_ERROR_NO_BINARY_FOR_GPU;
        break;
    case CU_JIT_INPUT_NVVM:
        why = strdup("NVVM IR inputs are not supported: give the linker PTX");
        r = CUDA_ERROR_NOT_SUPPORTED;
        break;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
    if (r) {
        char *line = NULL;
        if (why && asprintf(&line, "%s: error: %s\n", name, why) >= 0)
            log_error(s, line);
        free(line);
        free(why);
    }
    return r;
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
