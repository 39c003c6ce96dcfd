/* ptxjit.h - the embedding API: load PTX, look up kernels, launch them.
 *
 *   ptxjit_ctx *ctx = ptxjit_create(0, err, sizeof err);
 *   ptxjit_module *m = ptxjit_load(ctx, ptx, len, "k.ptx", &log, NULL);
 *   const ptxjit_kernel *k = ptxjit_kernel_get(m, "vadd");
 *   ptxjit_launch(ctx, k, &cfg, err, sizeof err);
 *
 * Device pointers are host pointers: pass buffers from malloc.  A context
 * may be used from several threads: loads are serialized; launches run
 * concurrently, sharing the worker threads. */
#ifndef PTXJIT_PTXJIT_H
#define PTXJIT_PTXJIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct ptxjit_ctx ptxjit_ctx;
typedef struct ptxjit_module ptxjit_module;
typedef struct ptxjit_kernel ptxjit_kernel;

/* What the compiled-code cache did for a ptxjit_load. */
typedef enum ptxjit_cache_result {
    PTXJIT_CACHE_OFF = 0, /* not used: disabled, or PTXJIT_DUMP_IR/ASM asked for a compile */
    PTXJIT_CACHE_MISS,    /* compiled (and stored, if the cache is writable) */
    PTXJIT_CACHE_HIT,     /* loaded from the cache: no parse, no LLVM */
} ptxjit_cache_result;

/* Seconds spent in each stage.  ptxjit_load reports the load: parsing,
 * checking and lowering the whole module (so that its errors show at
 * load), and compiling its variables.  A kernel is compiled (optimize,
 * codegen) or fetched from the cache when first launched, and again for
 * each block shape it is specialized for: ptxjit_module_stats adds those
 * to the load's figures.  On a cache hit parse, lower, optimize and
 * codegen are 0 unless a kernel had to be compiled. */
typedef struct ptxjit_stats {
    double parse, lower, optimize, codegen, load;
    double cache;                     /* key, lookup, decompression, store */
    ptxjit_cache_result cache_result; /* of the module (its kernels: below) */
    uint32_t kernels_compiled;        /* kernel versions compiled by LLVM */
    uint32_t kernels_cached;          /* kernel versions loaded from the cache */
} ptxjit_stats;

typedef enum ptxjit_status {
    PTXJIT_OK = 0,
    PTXJIT_ERR_INVALID,  /* bad arguments or launch configuration */
    PTXJIT_ERR_PTX,      /* the PTX has errors (see the log) */
    PTXJIT_ERR_FAULT,    /* the kernel made an invalid memory access */
    PTXJIT_ERR_TRAP,     /* the kernel executed trap */
    PTXJIT_ERR_ASSERT,   /* a device-side assert failed */
    PTXJIT_ERR_NOMEM,
    PTXJIT_ERR_MISALIGNED, /* the kernel accessed memory at an address not aligned to the access */
} ptxjit_status;

/* threads = 0: $PTXJIT_THREADS, else one worker per online CPU.  The
 * context's compiled-code cache is set up from the environment (see
 * ptxjit_set_cache). */
ptxjit_ctx *ptxjit_create(unsigned threads, char *err, size_t errlen);
void ptxjit_destroy(ptxjit_ctx *ctx);
/* Number of worker threads that run a launch's CTAs. */
unsigned ptxjit_workers(const ptxjit_ctx *ctx);

/* The compiled-code cache of a context: a second load of the same PTX
 * skips parsing and LLVM.  Entries live in dir (NULL: $PTXJIT_CACHE_PATH,
 * else $XDG_CACHE_HOME/ptxjit, else ~/.cache/ptxjit), whose entries are
 * kept under max_bytes (0: $PTXJIT_CACHE_MAXSIZE, else 256 MiB) by
 * evicting the least recently used.  PTXJIT_CACHE_DISABLE=1 in the
 * environment turns it off whatever is asked here. */
typedef struct ptxjit_cache_opts {
    bool enabled;
    const char *dir;
    uint64_t max_bytes;
} ptxjit_cache_opts;

/* Replaces the context's cache settings (opts NULL: from the environment,
 * as ptxjit_create does).  PTXJIT_OK, or PTXJIT_ERR_NOMEM.  Loads already
 * running on other threads finish with the old settings. */
ptxjit_status ptxjit_set_cache(ptxjit_ctx *ctx, const ptxjit_cache_opts *opts);
/* The cache directory in use, or NULL when the context has no cache; valid
 * until the next ptxjit_set_cache. */
const char *ptxjit_cache_dir(const ptxjit_ctx *ctx);

/* Parses, checks and lowers a PTX module and compiles its variables, or
 * loads what an earlier load of the same PTX stored in the cache.  Its
 * kernels are compiled when first launched (each once, whatever the
 * number of threads launching it).  On failure returns NULL and, if log
 * is non-NULL, *log receives the diagnostics as "name:line:col: error:
 * ..." lines (free() it); *log stays NULL when memory ran out, or when
 * compiling is estimated not to fit under the process's memory limit
 * (RLIMIT_AS, RLIMIT_DATA: LLVM would abort the process). */
/* The largest PTX text ptxjit takes (64 MiB): files and images beyond it
 * are refused before anything is parsed, so that an endless or absurd
 * input (/dev/zero) is an error, never a hang or an exhausted memory. */
#define PTXJIT_MAX_PTX_BYTES ((size_t)64 << 20)

ptxjit_module *ptxjit_load(ptxjit_ctx *ctx, const char *ptx, size_t len, const char *name,
                           char **log, ptxjit_stats *stats);
/* Builds every kernel's generic code now (from the cache, or compiling
 * several kernels at once, one thread per worker) instead of at each
 * kernel's first launch: for programs that would rather pay at load.
 * PTXJIT_OK, or the first failure with its message in err (the other
 * kernels are built all the same). */
ptxjit_status ptxjit_module_compile(ptxjit_module *m, char *err, size_t errlen);
/* Frees the module's code and variables; its kernels must not be running. */
void ptxjit_module_unload(ptxjit_module *m);
/* The stage timings of the ptxjit_load that produced m, plus those of
 * every kernel version compiled or loaded from the cache for it since. */
ptxjit_stats ptxjit_module_stats(const ptxjit_module *m);

#define PTXJIT_MAX_DIMS 4

/* A kernel parameter, as CUDA lays it out in the parameter buffer. */
typedef struct ptxjit_param_info {
    const char *name;
    const char *type;        /* PTX type without the dot: "u64", "f32", "b8" */
    uint32_t vec;            /* 0, 2 or 4 (.v2, .v4) */
    uint64_t count;          /* array elements; 1 for a scalar, 0 for an unsized [] */
    uint32_t offset;         /* bytes from the start of the buffer */
    uint32_t size, align;    /* bytes */
    uint32_t ndims;          /* array dimensions as declared: .b8 a[2][3] is */
    uint64_t dims[PTXJIT_MAX_DIMS]; /* ndims 2, dims {2, 3}; 0 for [] */
} ptxjit_param_info;

/* What launching a kernel needs to know, available without the PTX. */
typedef struct ptxjit_kernel_info {
    const char *name;
    uint32_t nparams;
    const ptxjit_param_info *params;
    uint32_t param_bytes;    /* size of the parameter buffer */
    uint32_t static_smem;    /* bytes of static .shared */
    uint32_t dyn_smem_align; /* alignment of the dynamic .shared area */
    uint32_t reqntid[3], maxntid[3]; /* 0: not declared */
    uint32_t minnctapersm, maxnreg;  /* 0: not declared */
    bool uses_barriers;      /* warps run as fibers */
    uint32_t frame_size;     /* >0: barriers return to the runtime; bytes of a warp's frame */
} ptxjit_kernel_info;

/* A module-scope .global or .const variable. */
typedef struct ptxjit_global_info {
    const char *name;
    void *addr;
    uint64_t size;
    bool is_const;
    bool managed;            /* .attribute(.managed): the driver makes it managed memory */
} ptxjit_global_info;

/* Kernels of a module, by name or index; NULL if absent. */
const ptxjit_kernel *ptxjit_kernel_get(const ptxjit_module *m, const char *name);
uint32_t ptxjit_kernel_count(const ptxjit_module *m);
const ptxjit_kernel *ptxjit_kernel_at(const ptxjit_module *m, uint32_t i);
const char *ptxjit_kernel_name(const ptxjit_kernel *k);
const ptxjit_kernel_info *ptxjit_kernel_info_of(const ptxjit_kernel *k);
/* The kernel's declaration in the parsed module (const ptx_func *), or
 * NULL when the module was loaded without parsing (from the cache). */
const void *ptxjit_kernel_decl(const ptxjit_kernel *k);

/* Module variables by name or index; NULL if absent.  Each loaded module
 * has its own copy, initialized from the PTX. */
const ptxjit_global_info *ptxjit_global_get(const ptxjit_module *m, const char *name);
uint32_t ptxjit_global_count(const ptxjit_module *m);
const ptxjit_global_info *ptxjit_global_at(const ptxjit_module *m, uint32_t i);

/* Device memory for kernel buffers: a mapping of its own between guard
 * pages, page aligned and zero-filled, so that a kernel overrunning it
 * faults (or stays within its last page) instead of corrupting the host's
 * heap.  NULL if size is 0 or memory is short; free with the same size. */
void *ptxjit_mem_alloc(size_t size);
void ptxjit_mem_free(void *p, size_t size);

/* A device malloc heap (in-kernel malloc/free) of a fixed size, mapped at
 * the first malloc: malloc returns NULL when it is used up, free ignores
 * pointers it did not hand out.  Each context has one of 8 MiB; a driver
 * gives each of its contexts its own.  set_limit fails once a kernel has
 * allocated from the heap. */
typedef struct ptxjit_heap ptxjit_heap;
ptxjit_heap *ptxjit_heap_create(size_t limit);
bool ptxjit_heap_set_limit(ptxjit_heap *h, size_t limit);
void ptxjit_heap_destroy(ptxjit_heap *h);

typedef struct ptxjit_launch_cfg {
    uint32_t grid[3], block[3];
    uint32_t shared_bytes;   /* dynamic shared memory */
    const void *params;      /* parameter buffer laid out as CUDA lays it out */
    FILE *printf_out;        /* NULL = stdout */
} ptxjit_launch_cfg;

/* Runs a kernel to completion.  Kernel faults are contained: the status
 * says what happened and err names the kernel.  The first launch of a
 * kernel compiles it (PTXJIT_ERR_PTX with the reason in err if that
 * fails).  A launch may use code specialized for its block shape:
 * PTXJIT_SPECIALIZE=0 in the environment turns that off, =always
 * specializes every shape at its first launch (the default decides by
 * the work launched, see README). */
ptxjit_status ptxjit_launch(ptxjit_ctx *ctx, const ptxjit_kernel *k, const ptxjit_launch_cfg *cfg,
                            char *err, size_t errlen);

/* Builds the code that a launch of k with this block shape would use,
 * now (what its first launch would do): the time of a launch after it is
 * the kernel's alone.  PTXJIT_OK, PTXJIT_ERR_INVALID for a block the
 * kernel's bounds refuse, PTXJIT_ERR_PTX with the reason in err. */
ptxjit_status ptxjit_kernel_compile(const ptxjit_kernel *k, const uint32_t block[3], char *err,
                                    size_t errlen);

/* A cooperative launch (cuLaunchCooperativeKernel): every block runs at
 * once, so grid-wide barriers (cg::this_grid().sync()) work; a grid larger
 * than ptxjit_max_cooperative_blocks is PTXJIT_ERR_INVALID.  In a plain
 * launch such a barrier traps (the kernel finds no grid workspace). */
ptxjit_status ptxjit_launch_cooperative(ptxjit_ctx *ctx, const ptxjit_kernel *k,
                                        const ptxjit_launch_cfg *cfg, char *err, size_t errlen);

/* How a launch runs beyond its shape: what a driver context brings. */
typedef struct ptxjit_launch_opts {
    bool cooperative;        /* as ptxjit_launch_cooperative */
    ptxjit_heap *heap;       /* the kernels' malloc heap; NULL = the ptxjit_ctx's own */
} ptxjit_launch_opts;
ptxjit_status ptxjit_launch_with(ptxjit_ctx *ctx, const ptxjit_kernel *k,
                                 const ptxjit_launch_cfg *cfg, const ptxjit_launch_opts *opts,
                                 char *err, size_t errlen);

/* The largest cooperative grid of blocks of `threads` threads: each worker
 * holds its share at once, at most 32 blocks and 2048 threads (in whole
 * warps), like an SM.  0 if threads is 0 or over 1024. */
uint64_t ptxjit_max_cooperative_blocks(const ptxjit_ctx *ctx, uint32_t threads);

#endif
