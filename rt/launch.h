/* launch.h - running a compiled kernel over a grid.
 *
 * A device owns the worker pool and each worker's reusable state (shared
 * memory window, warp fibers).  A launch hands CTAs to workers in chunks;
 * each CTA runs its warps in a loop, or as fibers when the kernel has
 * barriers.  A fault, trap or failed assert stops the launch and is
 * reported; the host process survives. */
#ifndef RT_LAUNCH_H
#define RT_LAUNCH_H

#include "ptxjit/abi.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct rt_kernel {
    const char *name;
    ptxjit_warp_fn fn;
    uint32_t static_smem;    /* bytes */
    uint32_t dyn_smem_align; /* alignment of the dynamic area */
    bool uses_barriers;      /* run warps as fibers */
    uint32_t frame_size;     /* >0: resumable (abi.h): bytes of a warp frame */
} rt_kernel;

typedef struct rt_launch_cfg {
    uint32_t grid[3], block[3];
    uint32_t dyn_smem;
    const void *params;
    FILE *printf_out;        /* kernel printf output; NULL = stdout */
    bool cooperative;        /* all CTAs resident at once, grid barrier workspace */
    struct ptxjit_heap *heap; /* in-kernel malloc/free (heap.h) */
} rt_launch_cfg;

typedef enum rt_status {
    RT_OK = 0,
    RT_ERR_CONFIG,           /* bad grid/block/shared size */
    RT_ERR_FAULT,            /* invalid memory access, bus error, FPE */
    RT_ERR_TRAP,             /* trap instruction */
    RT_ERR_ASSERT,           /* failed device assert */
    RT_ERR_NOMEM,
    RT_ERR_MISALIGNED,       /* an access not aligned to its size */
} rt_status;

typedef struct rt_device rt_device;

/* The most shared memory (static and dynamic) a block may have: the
 * largest any GPU gives one, opting in (sm_90, 227 KiB). */
#define RT_MAX_SHARED_PER_BLOCK 232448u
/* The most static .shared a kernel may declare: ptxas's limit (more is
 * only had dynamically). */
#define RT_MAX_STATIC_SHARED 49152u

/* threads = 0: $PTXJIT_THREADS, else the online CPU count. */
rt_device *rt_device_create(unsigned threads);
void rt_device_destroy(rt_device *d);
unsigned rt_device_workers(const rt_device *d);

/* Most CTAs of `threads` threads a cooperative launch may have: each
 * worker runs its share at once, up to RT_COOP_CTAS CTAs and
 * RT_COOP_THREADS threads (whole warps), an SM's limits. */
enum { RT_COOP_CTAS = 32, RT_COOP_THREADS = 2048 };
uint64_t rt_cooperative_max(const rt_device *d, uint32_t threads);

/* The index of the CTA running in cta, from its linear index (a row call,
 * PTXJIT_WARP_ROW, keeps ctaid at the row's first CTA). */
void rt_cta_index(const ptxjit_cta *cta, uint32_t id[3]);

/* Runs the kernel to completion.  On failure writes a message naming the
 * kernel to msg. */
rt_status rt_launch(rt_device *d, const rt_kernel *k, const rt_launch_cfg *cfg, char *msg,
                    size_t msglen);

/* The runtime entry points for jit_create(), from PTXJIT_RT_ENTRY_POINTS. */
typedef struct rt_symbol {
    const char *name;
    void *addr;
} rt_symbol;
const rt_symbol *rt_entry_points(size_t *n);
/* The vector math routines of PTXJIT_VECMATH (vecmath.c). */
const rt_symbol *rt_vecmath_symbols(size_t *n);

#endif
