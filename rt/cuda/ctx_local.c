/* ctx_local.c - context-local storage: values a client keeps per context
 * under keys of its own, each with a destructor that runs when the context
 * goes away (cuCtxDestroy, the primary context's last release or reset).
 * NVIDIA's runtime keeps its per-context state this way (export_tables.c)
 * and reads it before nearly every call, so a lookup is one short critical
 * section over a handful of entries.  Destructors run with no lock of the
 * library held: they may call back into the driver. */
#include "cu_internal.h"

#include <stdlib.h>

typedef struct local_entry {
    void *key, *value;
    cu_ctx_local_dtor dtor;
} local_entry;

struct cu_ctx_local {
    local_entry *e;
    uint32_t n, cap;
};

/* ctx, or the calling thread's current context (an unretained primary
 * context included) when ctx is NULL. */
static CUresult resolve(CUcontext ctx, struct CUctx_st **out)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    if (!ctx)
        ctx = cu_ctx_top();
    if (!ctx || !cu_handle_valid(ctx, CU_KIND_CONTEXT))
        return CUDA_ERROR_INVALID_CONTEXT;
    *out = ctx;
    return CUDA_SUCCESS;
}

/* The entry of key (ctx->lock held), or NULL. */
static local_entry *find(struct CUctx_st *c, const void *key)
{
    struct cu_ctx_local *l = c->local;
    for (uint32_t i = 0; l && i < l->n; i++)
        if (l->e[i].key == key)
            return &l->e[i];
    return NULL;
}

CUresult cu_ctx_local_put(CUcontext ctx, void *key, void *value, cu_ctx_local_dtor dtor)
{
    struct CUctx_st *c;
    CUresult r = resolve(ctx, &c);
    if (r)
        return r;
    pthread_mutex_lock(&c->lock);
    local_entry *e = find(c, key);
    struct cu_ctx_local *l = c->local;
    if (!e && !l && (l = c->local = calloc(1, sizeof *l)) == NULL)
        r = CUDA_ERROR_OUT_OF_MEMORY;
    if (!e && !r && l->n == l->cap) {
        uint32_t cap = l->cap ? 2 * l->cap : 4;
        local_entry *grown = realloc(l->e, cap * sizeof *grown);
        if (grown) {
            l->e = grown;
            l->cap = cap;
        } else {
            r = CUDA_ERROR_OUT_OF_MEMORY;
        }
    }
    if (!e && !r)
        e = &l->e[l->n++];
    if (e)
        *e = (local_entry){key, value, dtor};
    pthread_mutex_unlock(&c->lock);
    return r;
}

CUresult cu_ctx_local_delete(CUcontext ctx, void *key)
{
    struct CUctx_st *c;
    CUresult r = resolve(ctx, &c);
    if (r)
        return r;
    pthread_mutex_lock(&c->lock);
    local_entry *e = find(c, key);
    if (e)
        *e = c->local->e[--c->local->n];
    pthread_mutex_unlock(&c->lock);
    return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult cu_ctx_local_get(void **value, CUcontext ctx, void *key)
{
    struct CUctx_st *c;
    CUresult r = resolve(ctx, &c);
    if (r)
        return r;
    if (!value)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&c->lock);
    local_entry *e = find(c, key);
    if (e)
        *value = e->value;
    pthread_mutex_unlock(&c->lock);
    return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

/* Takes the context's storage away from it (NULL if it has none). */
static struct cu_ctx_local *take(struct CUctx_st *c)
{
    pthread_mutex_lock(&c->lock);
    struct cu_ctx_local *l = c->local;
    c->local = NULL;
    pthread_mutex_unlock(&c->lock);
    return l;
}

void cu_ctx_local_release(struct CUctx_st *c)
{
    /* A destructor may store a value again: a few more rounds take those,
     * then whatever is left goes without its destructor. */
    struct cu_ctx_local *l;
    for (int round = 0; (l = take(c)) != NULL; round++) {
        /* Newest first, as values set up later may depend on earlier ones. */
        for (uint32_t i = l->n; round < 4 && i-- > 0;)
            if (l->e[i].dtor)
                l->e[i].dtor(c, l->e[i].key, l->e[i].value);
        free(l->e);
        free(l);
    }
}
