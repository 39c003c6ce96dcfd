/* cu_internal.h - what the driver API files share: the objects behind the
 * CUDA handles, the handle registry, the current-context stack, the
 * allocation map and stream submission.
 *
 * Every entry point validates its handles against the registry before
 * touching them, so a stale or forged handle is CUDA_ERROR_INVALID_HANDLE
 * (or _CONTEXT), never a crash.  Only functions whose names start with "cu"
 * and a capital letter leave libcuda.so.1 (exports.map); everything here is
 * hidden. */
#ifndef RT_CUDA_CU_INTERNAL_H
#define RT_CUDA_CU_INTERNAL_H

#pragma GCC visibility push(default)
#include "ptxjit/cuda_driver.h"
#pragma GCC visibility pop

#include "ptxjit/ptxjit.h"
#include "queue.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* ---- the device ------------------------------------------------------------ */

/* One CPU device, configured once by cuInit. */
typedef struct cu_device_cfg {
    int cc_major, cc_minor;   /* $PTXJIT_CC, default 8.0 */
    int sm_count;             /* worker threads */
    size_t total_mem;         /* physical memory */
    int clock_khz;
    char name[256];
    CUuuid uuid;
} cu_device_cfg;

/* Limits that depend on the compute capability (as NVIDIA documents them). */
typedef struct cu_arch_limits {
    int smem_per_block_optin, smem_per_sm, threads_per_sm, blocks_per_sm;
} cu_arch_limits;

/* CUDA_SUCCESS once cuInit succeeded, else CUDA_ERROR_NOT_INITIALIZED. */
CUresult cu_check_init(void);
/* cu_check_init's error if the driver is not initialized, else r: the
 * first thing a failing entry point reports. */
static inline CUresult cu_init_or(CUresult r)
{
    CUresult i = cu_check_init();
    return i ? i : r;
}
const cu_device_cfg *cu_device(void);
cu_arch_limits cu_arch(void);
ptxjit_ctx *cu_engine(void);
/* CUDA_ERROR_INVALID_DEVICE unless dev is device 0. */
CUresult cu_check_device(CUdevice dev);

/* ---- handles ---------------------------------------------------------------- */

typedef enum cu_kind {
    CU_KIND_CONTEXT = 1,
    CU_KIND_MODULE,
    CU_KIND_FUNCTION,
    CU_KIND_LIBRARY,
    CU_KIND_KERNEL,
    CU_KIND_STREAM,
    CU_KIND_EVENT,
    CU_KIND_LINK,
    CU_KIND_POOL,
    CU_KIND_ARRAY,           /* array.c */
    CU_KIND_MIPMAPPED_ARRAY,
    CU_KIND_TEXREF,          /* texref.c */
} cu_kind;

/* Live handles by address and kind.  add fails only for lack of memory. */
bool cu_handle_add(const void *h, cu_kind kind);
void cu_handle_remove(const void *h);
bool cu_handle_valid(const void *h, cu_kind kind);

/* ---- contexts ------------------------------------------------------------------ */

typedef struct cu_list_node {
    struct cu_list_node *prev, *next;
} cu_list_node;

struct CUctx_st {
    unsigned long long id;           /* unique for the process's lifetime */
    unsigned flags;
    bool primary;
    bool active;                     /* a primary context between retain and last release */
    bool stopping;                   /* a primary context's last release or reset under way */
    int primary_refs;
    unsigned api_version;
    rt_sched *sched;                 /* the streams' queues and processors; the sticky error */
    ptxjit_heap *heap;               /* in-kernel malloc, CU_LIMIT_MALLOC_HEAP_SIZE bytes */
    atomic_int users;                /* calls working in it (cu_ctx_hold); destroy waits for 0 */
    pthread_mutex_t lock;            /* the fields below */
    size_t limits[CU_LIMIT_MAX];
    CUfunc_cache cache_config;
    CUsharedconfig smem_config;
    cu_list_node modules, libraries, streams, events;
    struct CUstream_st *legacy;      /* the NULL stream */
    CUmemoryPool default_pool, current_pool;
    struct cu_ctx_local *local;      /* context-local storage (ctx_local.c), under lock */
};

/* The calling thread's current context, validated: CUDA_SUCCESS and *out,
 * CUDA_ERROR_INVALID_CONTEXT when none is current, or
 * CUDA_ERROR_CONTEXT_IS_DESTROYED when it was destroyed (or is an inactive
 * primary context). */
CUresult cu_ctx_current(struct CUctx_st **out);
/* cu_ctx_current, then the context's sticky error if a kernel faulted. */
CUresult cu_ctx_enter(struct CUctx_st **out);
/* Keeps a context from being destroyed (or its primary context reset)
 * while a call works in it, until cu_ctx_release: the current context, or
 * stream's when a stream handle is given (validated in the same step).
 * CUDA_ERROR_CONTEXT_IS_DESTROYED once destruction has begun, so that
 * threads still launching into a context being destroyed fail cleanly. */
CUresult cu_ctx_hold(CUstream stream, struct CUctx_st **out);
void cu_ctx_release(struct CUctx_st *c);
/* A context handle passed explicitly: live and active. */
bool cu_ctx_valid(const struct CUctx_st *c);
/* The context's sticky error: the first kernel fault, until the context is
 * destroyed or (primary) reset. */
CUresult cu_ctx_sticky(const struct CUctx_st *c);
/* The primary context object of device 0 (always allocated). */
struct CUctx_st *cu_primary(void);
/* The calling thread's current context as set, unvalidated (NULL if none). */
struct CUctx_st *cu_ctx_top(void);

/* Context-local storage (ctx_local.c).  ctx NULL: the current context;
 * none current is CUDA_ERROR_INVALID_CONTEXT, a missing key
 * CUDA_ERROR_INVALID_HANDLE. */
typedef void (*cu_ctx_local_dtor)(CUcontext ctx, void *key, void *value);
CUresult cu_ctx_local_put(CUcontext ctx, void *key, void *value, cu_ctx_local_dtor dtor);
CUresult cu_ctx_local_delete(CUcontext ctx, void *key);
CUresult cu_ctx_local_get(void **value, CUcontext ctx, void *key);
/* Runs the destructors of a context that goes away and forgets its values;
 * the caller holds no lock of the library. */
void cu_ctx_local_release(struct CUctx_st *ctx);

void cu_list_init(cu_list_node *head);
void cu_list_push(cu_list_node *head, cu_list_node *n);
void cu_list_unlink(cu_list_node *n);
bool cu_list_empty(const cu_list_node *head);
#define CU_CONTAINER(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))

/* ---- modules, functions, libraries ------------------------------------------------------ */

struct CUfunc_st {
    struct CUmod_st *mod;
    const ptxjit_kernel *k;
    const ptxjit_kernel_info *info;
    int max_dyn_smem;                /* CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES */
    int carveout;
    int non_portable_cluster;
    CUfunc_cache cache_config;
    CUsharedconfig smem_config;
};

struct CUmod_st {
    struct CUctx_st *ctx;
    cu_list_node node;               /* in ctx->modules (not for a library's module) */
    struct CUlib_st *lib;            /* owning library, or NULL */
    ptxjit_module *m;
    struct CUfunc_st *funcs;
    uint32_t nfuncs;
    int ptx_version;                 /* 10 * major + minor of .version */
    int binary_version;              /* 10 * major + minor of the target */
};

/* JIT options a load understood (CU_JIT_*). */
typedef struct cu_jit_opts {
    char *info_log, *error_log;
    size_t info_size, error_size;
    int wall_time_slot, info_slot, error_slot; /* option indices to write back, -1 if none */
    bool verbose;
} cu_jit_opts;

CUresult cu_jit_opts_parse(unsigned n, const CUjit_option *opts, void **vals, cu_jit_opts *out);
/* Writes logs, their sizes and the wall time back through the option values. */
void cu_jit_opts_finish(const cu_jit_opts *o, void **vals, const char *info, const char *error,
                        float wall_ms);

/* The PTX text in a module image (malloc'd, NUL-terminated, *len bytes).
 * On failure *why may hold a malloc'd explanation for the error log. */
CUresult cu_image_ptx(const void *image, size_t size, char **ptx, size_t *len, char **why);
/* The same for a fat binary container or nvcc's wrapper of one. */
CUresult cu_fatbin_ptx(const void *image, size_t size, char **ptx, size_t *len, char **why);
/* NVIDIA's header checks: .version no newer than 9.0, .target no newer
 * than the device.  *why gets a "name:line:col: error:" line. */
CUresult cu_ptx_check_header(const char *ptx, size_t len, const char *name, char **why);

/* Loads a module image (PTX text, fat binary, wrapper) into ctx.  name is
 * used in diagnostics.  size 0: unknown (text ends at its NUL). */
CUresult cu_module_load(struct CUctx_st *ctx, const void *image, size_t size, const char *name,
                        unsigned nopts, CUjit_option *opts, void **vals, struct CUmod_st **out);
/* Frees a module (its functions and variables); the caller unlinked it. */
void cu_module_free(struct CUmod_st *mod);
bool cu_module_valid(const struct CUmod_st *mod);
bool cu_func_valid(const struct CUfunc_st *f);
/* A module's kernel or variable by name: CUDA_ERROR_NOT_FOUND if absent. */
CUresult cu_module_function(struct CUmod_st *mod, const char *name, struct CUfunc_st **out);
CUresult cu_module_global(struct CUmod_st *mod, const char *name, CUdeviceptr *dptr,
                          size_t *bytes);
/* Builds the module object around a compiled module (ctx may be NULL for
 * a library's not yet claimed instance); consumes m. */
struct CUmod_st *cu_module_new(struct CUctx_st *ctx, ptxjit_module *m, int ptx_version,
                               int binary_version);
/* Frees the library modules of a context being destroyed. */
void cu_ctx_free_libraries(struct CUctx_st *ctx);
/* A CUfunction argument: a function, or a CUkernel resolved in the current
 * context (CUDA 12 accepts both). */
CUresult cu_func_resolve(CUfunction h, struct CUfunc_st **out);
/* Function attributes shared by cuFuncGet/SetAttribute and the kernel forms. */
CUresult cu_func_get_attr(const struct CUfunc_st *f, CUfunction_attribute attrib, int *pi);
CUresult cu_func_set_attr(struct CUfunc_st *f, CUfunction_attribute attrib, int value);
/* Blocks of `block` threads an SM holds at once (0 if none fits). */
int cu_func_blocks_per_sm(const struct CUfunc_st *f, int block, size_t dyn_smem);
/* Links PTX texts into one module (see ptx_link.c).  *out is malloc'd and
 * NUL-terminated; on failure *errors may hold the diagnostics. */
CUresult cu_ptx_link(const char **texts, const size_t *lens, const char **names, size_t n,
                     char **out, size_t *outlen, char **errors);
/* The fat binaries embedded in a host ELF object or in each object of an
 * `ar` archive (archive.c): visit gets each with the object's name.  False
 * if data is not an object (an archive). */
typedef void (*cu_fatbin_visit)(const void *fatbin, size_t size, const char *member, void *arg);
bool cu_object_fatbins(const void *data, size_t size, const char *name, cu_fatbin_visit visit,
                       void *arg);
bool cu_archive_fatbins(const void *data, size_t size, cu_fatbin_visit visit, void *arg);
/* Reads a whole file for cuModuleLoad/cuLibraryLoadFromFile/cuLinkAddFile. */
CUresult cu_read_file(const char *path, char **data, size_t *len);
/* Frees every module and library of a context being destroyed. */
void cu_ctx_free_modules(struct CUctx_st *ctx);

/* ---- memory ------------------------------------------------------------------------------ */

typedef enum cu_mem_kind {
    CU_MEM_DEVICE = 1,       /* cuMemAlloc, cuMemAllocPitch */
    CU_MEM_HOST,             /* cuMemAllocHost, cuMemHostAlloc */
    CU_MEM_REGISTERED,       /* cuMemHostRegister */
    CU_MEM_MANAGED,          /* cuMemAllocManaged */
    CU_MEM_POOL,             /* cuMemAllocAsync, cuMemAllocFromPoolAsync */
    CU_MEM_GLOBAL,           /* a module's .global/.const variable */
} cu_mem_kind;

typedef struct cu_alloc {
    uintptr_t base;
    size_t size;
    cu_mem_kind kind;
    struct CUctx_st *ctx;
    unsigned flags;          /* host alloc/register flags, attach flags */
    unsigned long long id;   /* CU_POINTER_ATTRIBUTE_BUFFER_ID */
    CUmemoryPool pool;
    bool sync_memops;
    /* cuMemAdvise / cuMemPrefetchAsync state of managed memory */
    bool read_mostly, accessed_by;
    CUmemLocation preferred, last_prefetch;
} cu_alloc;

/* The allocation map: every range handed out, looked up by any address in it. */
bool cu_map_insert(const cu_alloc *a);
bool cu_map_remove(uintptr_t base, cu_mem_kind kind, cu_alloc *removed);
/* Copies the allocation containing [p, p + len) into *out; false if none does. */
bool cu_map_find(uintptr_t p, size_t len, cu_alloc *out);
/* Calls fn on the stored allocation containing [p, p + len) under the
 * map's lock; false if none does. */
bool cu_map_update(uintptr_t p, size_t len, void (*fn)(cu_alloc *a, void *arg), void *arg);
/* Removes and frees every allocation of a context (at destroy). */
void cu_map_release_ctx(struct CUctx_st *ctx);

/* Device memory (devmem.h: own mappings between guard pages): page
 * aligned, zero bytes never.  Returns NULL when the request is impossible
 * (over physical memory) or fails. */
void *cu_mem_alloc_raw(size_t size);
void cu_mem_free_raw(void *p, size_t size);
CUresult cu_mem_alloc_kind(struct CUctx_st *ctx, size_t size, cu_mem_kind kind, unsigned flags,
                           CUmemoryPool pool, void **out);
/* Frees the allocation starting at base if it is of one of the kinds in mask. */
CUresult cu_mem_free_kind(uintptr_t base, unsigned kind_mask);
#define CU_MEM_BIT(k) (1u << (k))

/* Whether [p, p + len) lies inside memory a kernel or copy may use as device
 * memory: a tracked allocation (device, managed, pool, module variable, or
 * host memory, all of which are unified). */
bool cu_mem_is_device(uintptr_t p, size_t len);

/* Whether [p, p + n) is mapped readable (and writable if asked) host memory. */
bool cu_host_range_accessible(uintptr_t p, size_t n, bool writable);

/* Copies through the kernel: a bad host pointer is an error, not a crash.
 * Returns CUDA_SUCCESS or CUDA_ERROR_INVALID_VALUE. */
CUresult cu_safe_copy(void *dst, const void *src, size_t n);


/* ---- streams, events, submission ------------------------------------------------------------ */

/* Work a stream runs in order.  run returns CUDA_SUCCESS or an error that
 * becomes the context's sticky error (kernel faults) or the stream's. */
typedef struct cu_op {
    CUresult (*run)(struct cu_op *op);
    void (*release)(struct cu_op *op); /* frees the op; NULL: free() */
    struct CUctx_st *ctx;
} cu_op;

typedef enum cu_stream_type { CU_STREAM_USER, CU_STREAM_LEGACY_NULL, CU_STREAM_PTDS } cu_stream_type;

struct CUstream_st {
    struct CUctx_st *ctx;
    cu_list_node node;
    cu_stream_type type;
    unsigned flags;
    int priority;
    unsigned long long id;
    rt_queue *q;                     /* the legacy one belongs to ctx->sched */
    CUstream handle;                 /* what the API hands out (stream_handles.c) */
};

/* Generation-checked CUstream values (stream_handles.c): add returns NULL
 * without memory; get returns NULL for a destroyed or forged handle. */
CUstream cu_stream_handle_add(struct CUstream_st *s);
void cu_stream_handle_remove(CUstream h);
struct CUstream_st *cu_stream_handle_get(CUstream h);

struct CUevent_st {
    struct CUctx_st *ctx;
    cu_list_node node;
    unsigned flags;
    pthread_mutex_t lock;
    rt_signal *sig;                  /* the latest record's marker; NULL if never recorded */
};

/* A queue.h return code as the CUresult the API reports. */
CUresult cu_queue_result(int rc);

/* Resolves a stream argument (NULL, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD
 * or a handle) against the current context. */
CUresult cu_stream_resolve(CUstream h, struct CUctx_st **ctx, struct CUstream_st **out);
/* Enqueues op to run in stream order on a processor thread, taking
 * ownership of it; an error it returns becomes the context's sticky
 * error.  Returns an enqueue-time error or CUDA_SUCCESS. */
CUresult cu_stream_submit(struct CUstream_st *s, cu_op *op);
/* cu_stream_resolve holding the context (cu_ctx_hold): cu_ctx_release it. */
CUresult cu_stream_hold(CUstream h, struct CUctx_st **ctx, struct CUstream_st **out);
/* Waits for everything submitted to s; returns its error or the sticky one. */
CUresult cu_stream_sync(struct CUstream_st *s);
/* Waits for every stream of the context. */
CUresult cu_ctx_sync(struct CUctx_st *ctx);
struct CUstream_st *cu_stream_new(struct CUctx_st *ctx, cu_stream_type type, unsigned flags,
                                  int priority);
void cu_stream_free(struct CUstream_st *s);
/* Frees every stream and event of a context being destroyed. */
void cu_ctx_free_streams(struct CUctx_st *ctx);
void cu_ctx_free_events(struct CUctx_st *ctx);


/* Set by the _ptds/_ptsz entry points for the duration of the call: the
 * NULL stream means the per-thread default stream. */
extern _Thread_local bool cu_tls_ptds;

/* ---- launching ---------------------------------------------------------------------------- */

/* Launch-time validation and submission shared by every launch entry point. */
typedef struct cu_launch_req {
    struct CUfunc_st *f;
    unsigned grid[3], block[3], smem;
    CUstream stream;
    void **params, **extra;
    bool cooperative;
} cu_launch_req;

CUresult cu_launch(const cu_launch_req *r);
/* Maps a ptxjit launch status to the CUresult a GPU reports. */
CUresult cu_result_of(ptxjit_status st);

/* ---- misc ----------------------------------------------------------------------------------- */

double cu_now_ms(void);
/* PTXJIT_CUDA_ABI=12: the names CUDA 13 re-used act as CUDA 12's (abi.c). */
bool cu_abi12(void);
unsigned long long cu_next_id(void);
/* Parses "major.minor" of a PTX .version/.target-style directive in PTX text. */
int cu_ptx_directive_version(const char *ptx, size_t len, const char *directive);

#pragma GCC visibility pop

#endif
