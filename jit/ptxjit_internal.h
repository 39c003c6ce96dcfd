/* ptxjit_internal.h - the embedding API's objects, shared by the load
 * pipeline (ptxjit.c) and the per-kernel compiler (kernel_code.c).
 * Internal to jit/. */
#ifndef PTXJIT_PTXJIT_INTERNAL_H
#define PTXJIT_PTXJIT_INTERNAL_H

#include "ptxjit/ptxjit.h"

#include "cache.h"
#include "jit.h"
#include "launch.h"
#include "module_meta.h"
#include "ptx.h"
#include "specialize.h"

#include <pthread.h>

struct ptxjit_ctx {
    rt_device *dev;
    struct ptxjit_heap *heap;      /* device malloc of launches that bring none */
    jit_engine *jit;
    pthread_mutex_t lock;          /* one load at a time */
    pthread_rwlock_t cache_lock;   /* users of cache read; ptxjit_set_cache writes */
    cache *cache;                  /* NULL: off */
    spec_mode spec;                /* PTXJIT_SPECIALIZE, read at creation */
    pthread_t janitor;             /* frees the last load's IR (under lock) */
    bool janitor_running;
};

/* One compiled version of a kernel: generic, or for one block shape. */
typedef enum kv_state { KV_EMPTY, KV_BUSY, KV_READY, KV_FAILED } kv_state;

typedef struct kversion {
    uint32_t ntid[3];              /* 0s: the generic version */
    kv_state state;
    ptxjit_warp_fn fn;             /* KV_READY */
    char *error;                   /* KV_FAILED: why (malloc'd) */
} kversion;

/* The generic version and at most SPEC_MAX_SHAPES specialized ones. */
#define KV_MAX (1 + SPEC_MAX_SHAPES)

struct ptxjit_kernel {
    rt_kernel rt;                  /* rt.fn: set per launch, from a version */
    ptxjit_module *mod;
    const ptx_func *decl;          /* NULL when the load did not parse */
    const ptxjit_kernel_info *info;
    const char *symbol;            /* of the generic version */
    kversion v[KV_MAX];            /* v[0] generic; under mod->lock */
    uint32_t nv;
    spec_history history;          /* launches by shape; under mod->lock */
    double compile_s;              /* the last compile of a version (0: none yet) */
};

struct ptxjit_module {
    ptxjit_ctx *ctx;
    char *ptx;                     /* a copy of the text, for compiling kernels */
    size_t len;
    char *name;
    ptx_module *ir;                /* NULL until parsed (a load from the cache doesn't) */
    pthread_mutex_t ir_lock;       /* parse once */
    bool keyed;                    /* key is set: kernels use the cache */
    cache_key key;
    jit_unit *unit;                /* the variables' object and the kernels' */
    module_meta meta;
    ptxjit_kernel *kernels;
    uint32_t nkernels;
    ptxjit_global_info *globals;
    uint32_t nglobals;
    pthread_mutex_t lock;          /* versions, histories, stats */
    pthread_cond_t compiled;       /* a version left KV_BUSY */
    ptxjit_stats stats;            /* the load, plus kernels compiled since */
};

double ptxjit_now(void);

/* Renders diagnostics into a malloc'd log (the same text ptxjit check
 * prints); NULL when out of memory. */
char *ptxjit_render_log(const ptx_diags *d, const char *name, const char *src, size_t len);

/* The context's cache, held until ptxjit_cache_release (NULL: off). */
cache *ptxjit_cache_acquire(ptxjit_ctx *c);
void ptxjit_cache_release(ptxjit_ctx *c);

/* An entry of the cache, unpacked (module_meta_io.c's format): 0, with
 * *payload and mm for the caller to free (*obj points into *payload); 1
 * for a miss; -1 for an entry that does not unpack, why saying why.  The
 * time goes to st->cache. */
int ptxjit_cache_get(cache *cc, const cache_key *key, void **payload, module_meta *mm,
                     const void **obj, size_t *objsize, char *why, size_t whylen,
                     ptxjit_stats *st);
/* Packs and stores an entry (a cache that cannot store is no error). */
void ptxjit_cache_put(cache *cc, const cache_key *key, const module_meta *mm, const void *obj,
                      size_t objsize, ptxjit_stats *st);

/* The code to run a launch of k with this block shape: a version built
 * earlier, or built now (compiled, or fetched from the cache).  *generic:
 * the generic version.  PTXJIT_OK, or an error with a message in err. */
ptxjit_status kernel_code(ptxjit_kernel *k, const uint32_t block[3], ptxjit_warp_fn *fn,
                          bool *generic, char *err, size_t errlen);

/* Builds k's generic version now, unless built. */
ptxjit_status kernel_code_generic(ptxjit_kernel *k, char *err, size_t errlen);

/* A launch of k's generic version with this block shape took `seconds`
 * (what the specialization policy weighs). */
void kernel_ran(ptxjit_kernel *k, const uint32_t block[3], double seconds);

/* Frees the versions' error messages. */
void kernel_code_free(ptxjit_kernel *k);

#endif
