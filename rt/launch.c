/* launch.c - the grid scheduler: CTAs in chunks on the worker pool; warps
 * in a loop, or as fibers switched at barriers; faults contained per
 * worker; printf output collected and flushed in a deterministic order. */
#include "launch.h"

#include "fault.h"
#include "fiber.h"
#include "fpenv.h"
#include "heap.h"
#include "pool.h"
#include "printf.h"
#include "shared_window.h"
#include "shims.h"

#include <pthread.h>
#include <signal.h>
#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Fiber stacks are reserved, not committed: generous sizes cost only
 * address space, and warp frames hold 32 copies of every .local array. */
enum { FIBER_STACK = 4 << 20, MAX_WARPS = 32 };
/* Barrier slots: the sixteen named CTA barriers, then barrier.cluster's. */
enum { NBARRIERS = 16, CLUSTER_BARRIER = NBARRIERS, NSLOTS };
enum warp_state { WARP_RUNNABLE, WARP_DONE, WARP_BLOCKED /* + barrier slot */ };

/* A CTA barrier counts arriving warps (a warp arrives as a whole once its
 * lanes met, lower_converge.c); it completes when `expected` warps have
 * arrived, or, without a thread count, every warp still running. */
typedef struct cta_barrier {
    uint32_t arrived, expected; /* expected 0: all live warps */
    uint32_t phase;             /* completions so far */
    uint32_t red_acc;           /* bar.red of the current phase */
} cta_barrier;

typedef struct launch_ctx launch_ctx;
typedef struct worker worker;

/* One resident CTA: its warps' fibers, barriers and shared window.  A
 * worker runs one CTA at a time, or, for a cooperative launch, every CTA
 * of its share of the grid at once (interleaved as fibers), so that a
 * grid-wide barrier can complete. */
typedef struct cta_slot {
    ptxjit_cta cta;
    worker *w;
    rt_shared_window shared;
    rt_fiber *fibers;
    void **stacks;
    uint32_t nfibers;
    uint8_t state[MAX_WARPS];          /* enum warp_state of each warp */
    uint32_t cur_warp;
    uint32_t live_warps;
    cta_barrier bars[NSLOTS];
    bool bars_used;                    /* a warp arrived at one of bars since they were cleared */
    uint32_t red_out[MAX_WARPS];       /* bar.red result for each waiting warp */
    uint32_t cluster_phase[MAX_WARPS]; /* the barrier.cluster phase each warp arrived at */
    uint32_t *printf_seq;
    uint32_t nseq;
    char *frames;                      /* resumable kernels: the warps' frames */
    size_t frames_size;
    bool whole_code;                   /* this launch's CTA loop ran a CTA whole (cta.whole) */
    uint64_t serial;                   /* CTAs this slot has begun */
    uint64_t seq_serial;               /* the CTA printf_seq counts for */
} cta_slot;

struct worker {
    launch_ctx *lc;
    rt_fiber sched;
    cta_slot *slots;                   /* grown to the most CTAs a chunk held */
    uint32_t nslots;
    cta_slot *cur;                     /* the CTA running (or faulting) now */
    void *stack_top;                   /* warps as a loop: the frame below which they run */
    uint32_t yields;                   /* spin-wait yields, to give the CPU up now and then */
    rt_fault fault;
};

/* Launches from several threads run at once: each worker index (pool
 * thread or launching thread) has its own state, grown by the chunk that
 * needs it. */
struct rt_device {
    rt_pool *pool;
    unsigned nworkers;       /* pool size: the device's parallelism */
    unsigned nslots;         /* worker indices, launching threads included */
    worker *workers;
    pthread_mutex_t faults_lock;
    atomic_bool faults_installed; /* holds a reference on the fault handlers */
    bool interleave;         /* run_rows may order warps row-wise (PTXJIT_NO_INTERLEAVE unset) */
};

struct launch_ctx {
    rt_device *d;
    const rt_kernel *k;
    ptxjit_grid launch;
    size_t smem;             /* shared bytes per CTA, static and dynamic */
    uint32_t nwarps;
    uint32_t resident;       /* cooperative: CTAs a worker runs at once; else 0 */
    _Atomic(rt_printf_log *) log; /* made at the launch's first printf */
    struct ptxjit_heap *heap;      /* device malloc */
    atomic_int failed;
    pthread_mutex_t lock;
    rt_status status;
    char msg[640];
    /* The grid barrier's workspace (cooperative launches): generated code
     * finds it through %envreg1:%envreg2 and counts arrivals at word 1. */
    alignas(16) uint32_t grid_workspace[4];
    alignas(64) uint32_t tids[MAX_WARPS * 3 * PTXJIT_WARP_SIZE]; /* launch.tids */
};

/* The offsets abi.h gives the generated code. */
_Static_assert(offsetof(ptxjit_grid, nctaid) == PTXJIT_GRID_NCTAID, "abi.h");
_Static_assert(offsetof(ptxjit_grid, ntid) == PTXJIT_GRID_NTID, "abi.h");
_Static_assert(offsetof(ptxjit_grid, dynamic_smem) == PTXJIT_GRID_DYNAMIC_SMEM, "abi.h");
_Static_assert(offsetof(ptxjit_grid, nthreads) == PTXJIT_GRID_NTHREADS, "abi.h");
_Static_assert(offsetof(ptxjit_grid, params) == PTXJIT_GRID_PARAMS, "abi.h");
_Static_assert(offsetof(ptxjit_grid, envreg) == PTXJIT_GRID_ENVREG, "abi.h");
_Static_assert(offsetof(ptxjit_grid, tids) == PTXJIT_GRID_TIDS, "abi.h");
_Static_assert(offsetof(ptxjit_cta, launch) == PTXJIT_CTA_GRID, "abi.h");
_Static_assert(offsetof(ptxjit_cta, ctaid) == PTXJIT_CTA_CTAID, "abi.h");
_Static_assert(offsetof(ptxjit_cta, nwarps) == PTXJIT_CTA_NWARPS, "abi.h");
_Static_assert(offsetof(ptxjit_cta, cta_linear) == PTXJIT_CTA_LINEAR, "abi.h");
_Static_assert(offsetof(ptxjit_cta, shared) == PTXJIT_CTA_SHARED, "abi.h");
_Static_assert(offsetof(ptxjit_cta, frames) == PTXJIT_CTA_FRAMES, "abi.h");
_Static_assert(offsetof(ptxjit_cta, whole) == PTXJIT_CTA_WHOLE, "abi.h");
_Static_assert(offsetof(ptxjit_cta, row_ctas) == PTXJIT_CTA_ROW_CTAS, "abi.h");
_Static_assert(offsetof(ptxjit_warp_frame, resume) == PTXJIT_FRAME_RESUME, "abi.h");
_Static_assert(offsetof(ptxjit_warp_frame, op) == PTXJIT_FRAME_OP, "abi.h");
_Static_assert(offsetof(ptxjit_warp_frame, id) == PTXJIT_FRAME_ID, "abi.h");
_Static_assert(offsetof(ptxjit_warp_frame, threads) == PTXJIT_FRAME_THREADS, "abi.h");
_Static_assert(offsetof(ptxjit_warp_frame, value) == PTXJIT_FRAME_VALUE, "abi.h");
_Static_assert(offsetof(ptxjit_warp_frame, red) == PTXJIT_FRAME_RED, "abi.h");
_Static_assert(offsetof(ptxjit_warp_frame, lanes) == PTXJIT_FRAME_LANES, "abi.h");

rt_device *rt_device_create(unsigned threads)
{
    rt_device *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    pthread_mutex_init(&d->faults_lock, NULL);
    d->pool = rt_pool_create(threads);
    if (!d->pool) {
        rt_device_destroy(d);
        return NULL;
    }
    d->nworkers = rt_pool_size(d->pool);
    d->nslots = rt_pool_slots(d->pool);
    const char *off = getenv("PTXJIT_NO_INTERLEAVE");
    d->interleave = !(off && *off && strcmp(off, "0"));
    d->workers = calloc(d->nslots, sizeof *d->workers);
    if (!d->workers) {
        rt_device_destroy(d);
        return NULL;
    }
    return d;
}

static void slot_free(cta_slot *s)
{
    for (uint32_t i = 0; i < s->nfibers; i++)
        rt_stack_free(s->stacks[i], FIBER_STACK);
    free(s->stacks);
    free(s->fibers);
    rt_shared_window_free(&s->shared);
    free(s->printf_seq);
    free(s->frames);
}

static void worker_free(worker *w)
{
    for (uint32_t i = 0; i < w->nslots; i++)
        slot_free(&w->slots[i]);
    free(w->slots);
}

void rt_device_destroy(rt_device *d)
{
    if (!d)
        return;
    for (unsigned i = 0; d->workers && i < d->nslots; i++)
        worker_free(&d->workers[i]);
    free(d->workers);
    rt_pool_destroy(d->pool);
    if (atomic_load(&d->faults_installed))
        rt_fault_uninstall();
    pthread_mutex_destroy(&d->faults_lock);
    free(d);
}

unsigned rt_device_workers(const rt_device *d) { return d->nworkers; }

/* A cooperative launch interleaves its resident CTAs, so their warps are
 * always fibers; otherwise warps are fibers only when they can wait for
 * each other. */
static bool runs_fibers(const launch_ctx *lc, uint32_t nwarps)
{
    if (lc->k->frame_size) /* resumable: warps return at barriers */
        return false;
    return lc->resident ? true : lc->k->uses_barriers && nwarps > 1;
}

/* The frames of a resumable kernel's warps. */
static bool slot_prepare_frames(cta_slot *s, uint32_t nwarps, uint32_t frame_size)
{
    size_t need = (size_t)nwarps * frame_size;
    if (need > s->frames_size) {
        free(s->frames);
        s->frames = aligned_alloc(64, need);
        s->frames_size = s->frames ? need : 0;
        if (!s->frames)
            return false;
    }
    return true;
}

/* Grows one CTA slot's reusable state for this launch's shape. */
static bool slot_prepare(cta_slot *s, const launch_ctx *lc, size_t smem)
{
    const rt_kernel *k = lc->k;
    uint32_t nwarps = lc->nwarps, nthreads = lc->launch.nthreads;
    size_t align = k->dyn_smem_align > PTXJIT_SHARED_ALIGN ? k->dyn_smem_align : PTXJIT_SHARED_ALIGN;
    if (!rt_shared_window_resize(&s->shared, smem, align))
        return false;
    if (nthreads > s->nseq) {
        free(s->printf_seq);
        s->printf_seq = calloc(nthreads, sizeof *s->printf_seq);
        s->nseq = s->printf_seq ? nthreads : 0;
        if (!s->printf_seq)
            return false;
    }
    if (k->frame_size && !slot_prepare_frames(s, nwarps, k->frame_size))
        return false;
    s->whole_code = false;
    if (!(lc->resident || k->uses_barriers) || nwarps <= s->nfibers)
        return true;
    rt_fiber *f = realloc(s->fibers, nwarps * sizeof *f);
    if (f)
        s->fibers = f;
    void **st = realloc(s->stacks, nwarps * sizeof *st);
    if (st)
        s->stacks = st;
    if (!f || !st)
        return false;
    for (; s->nfibers < nwarps; s->nfibers++)
        if (!(s->stacks[s->nfibers] = rt_stack_alloc(FIBER_STACK)))
            return false;
    return true;
}

/* Makes room for `n` resident CTAs and prepares each. */
static bool worker_prepare(worker *w, const launch_ctx *lc, uint32_t n, size_t smem)
{
    if (n > w->nslots) {
        cta_slot *s = realloc(w->slots, n * sizeof *s);
        if (!s)
            return false;
        memset(s + w->nslots, 0, (n - w->nslots) * sizeof *s);
        w->slots = s;
        w->nslots = n;
    }
    for (uint32_t i = 0; i < n; i++)
        if (!slot_prepare(&w->slots[i], lc, smem))
            return false;
    return true;
}

/* ---- warps as fibers ---- */

/* The CTA's next runnable warp after the one that ran last; -1 if none. */
static int next_runnable(const cta_slot *s)
{
    uint32_t n = s->cta.nwarps;
    for (uint32_t k = 1; k <= n; k++) {
        uint32_t i = (s->cur_warp + k) % n;
        if (s->state[i] == WARP_RUNNABLE)
            return (int)i;
    }
    return -1;
}

/* Leaves warp `from` for the next runnable warp of its CTA, round robin,
 * switching straight to it; back to the scheduler only when none can run. */
static void yield_to_next(cta_slot *s, uint32_t from)
{
    s->cur_warp = from;
    int i = next_runnable(s);
    if (i == (int)from)
        return; /* only this warp can run: keep going */
    if (i < 0) {
        rt_fiber_switch(&s->fibers[from], &s->w->sched);
        return;
    }
    s->cur_warp = (uint32_t)i;
    rt_fiber_switch(&s->fibers[from], &s->fibers[i]);
}

static void barrier_complete(cta_slot *s, uint32_t slot)
{
    cta_barrier *b = &s->bars[slot];
    b->arrived = 0;
    b->phase++;
    for (uint32_t i = 0; i < s->cta.nwarps; i++)
        if (s->state[i] == WARP_BLOCKED + slot) {
            s->state[i] = WARP_RUNNABLE;
            s->red_out[i] = b->red_acc;
        }
}

/* Barriers waiting for every live warp may now be complete. */
static void warp_exited(cta_slot *s)
{
    s->live_warps--;
    for (uint32_t slot = 0; slot < NSLOTS; slot++) {
        cta_barrier *b = &s->bars[slot];
        if (b->arrived && !b->expected && b->arrived >= s->live_warps)
            barrier_complete(s, slot);
    }
}

static void fiber_main(void *arg)
{
    cta_slot *s = arg;
    uint32_t warp = s->cur_warp;
    s->w->lc->k->fn(&s->cta, warp);
    s->state[warp] = WARP_DONE;
    warp_exited(s);
    yield_to_next(s, warp);
}

/* Every live warp is blocked: nothing can arrive any more, so the
 * barriers they wait at complete with the warps they have. */
static void release_all(cta_slot *s)
{
    for (uint32_t i = 0; i < s->cta.nwarps; i++)
        if (s->state[i] >= WARP_BLOCKED)
            barrier_complete(s, s->state[i] - WARP_BLOCKED);
}

static void start_fibers(cta_slot *s)
{
    for (uint32_t i = 0; i < s->cta.nwarps; i++) {
        s->state[i] = WARP_RUNNABLE;
        rt_fiber_init(&s->fibers[i], s->stacks[i], FIBER_STACK, fiber_main, s);
    }
    s->cur_warp = s->cta.nwarps - 1; /* warp 0 runs first */
}

/* Runs the warps of the worker's first n CTAs until all have exited.  Warps
 * of one CTA pass control among themselves; the scheduler takes over when
 * none of them can run, or when one yields to the other CTAs. */
static void run_fibers(worker *w, uint32_t n)
{
    for (uint32_t c = 0; c < n; c++)
        start_fibers(&w->slots[c]);
    for (bool live = true; live;) {
        live = false;
        for (uint32_t c = 0; c < n; c++) {
            cta_slot *s = &w->slots[c];
            if (!s->live_warps)
                continue;
            live = true;
            int i = next_runnable(s);
            if (i < 0) {
                release_all(s);
                i = next_runnable(s);
            }
            if (i < 0)
                continue;
            s->cur_warp = (uint32_t)i;
            w->cur = s;
            rt_fiber_switch(&w->sched, &s->fibers[i]);
        }
    }
}

static bool as_fibers(const cta_slot *s)
{
    return runs_fibers(s->w->lc, s->cta.nwarps);
}

/* Warp `warp` arrives at barrier `slot` (threads: the expected thread
 * count, 0 for all); `red` is its bar.red contribution under `op`. */
static void barrier_arrive(cta_slot *s, uint32_t slot, uint32_t threads, uint32_t op, uint32_t red)
{
    cta_barrier *b = &s->bars[slot];
    s->bars_used = true;
    if (!b->arrived) {
        b->expected = (threads + PTXJIT_WARP_SIZE - 1) / PTXJIT_WARP_SIZE;
        b->red_acc = op == PTXJIT_BAR_RED_AND;
    }
    if (op == PTXJIT_BAR_RED_POPC)
        b->red_acc += red;
    else if (op == PTXJIT_BAR_RED_AND)
        b->red_acc &= red;
    else if (op == PTXJIT_BAR_RED_OR)
        b->red_acc |= red;
    b->arrived++;
    if (b->arrived >= (b->expected ? b->expected : s->live_warps))
        barrier_complete(s, slot);
}

/* Blocks warp `warp` until barrier `slot` has completed phase `phase`,
 * running the other warps meanwhile. */
static void barrier_wait(cta_slot *s, uint32_t warp, uint32_t slot, uint32_t phase)
{
    while (s->bars[slot].phase == phase) {
        s->state[warp] = (uint8_t)(WARP_BLOCKED + slot);
        yield_to_next(s, warp);
    }
}

uint32_t ptxjit_rt_bar(ptxjit_cta *cta, uint32_t warp, uint32_t id, uint32_t threads, uint32_t op,
                       uint32_t value)
{
    cta_slot *s = cta->worker;
    if (op == PTXJIT_BAR_RED_SPLIT)
        rt_fault_raise(RT_ERR_TRAP, "barrier reduction at PTX line %u reached by the lanes of one warp "
                                    "at different instructions (not supported)", id);
    uint32_t slot = op >= PTXJIT_BAR_CLUSTER_ARRIVE ? CLUSTER_BARRIER : id % NBARRIERS;
    if (op == PTXJIT_BAR_CLUSTER_WAIT) {
        if (as_fibers(s))
            barrier_wait(s, warp, slot, s->cluster_phase[warp]);
        return 0;
    }
    cta_barrier *b = &s->bars[slot];
    uint32_t phase = b->phase;
    if (op == PTXJIT_BAR_CLUSTER_ARRIVE)
        s->cluster_phase[warp] = phase;
    barrier_arrive(s, slot, threads, op, value);
    if (op == PTXJIT_BAR_ARRIVE || op == PTXJIT_BAR_CLUSTER_ARRIVE)
        return 0;
    if (b->phase != phase) /* this arrival completed it */
        return b->red_acc;
    if (as_fibers(s))
        barrier_wait(s, warp, slot, phase);
    return s->red_out[warp];
}

/* A warp waiting for another (mbarrier tests, nanosleep, polling loads in
 * grid barriers) lets the others run: in a cooperative launch the other
 * resident CTAs too.  It may be waiting for a CTA on another worker, so
 * now and then the worker also gives its CPU up. */
void ptxjit_rt_yield(ptxjit_cta *cta, uint32_t warp)
{
    cta_slot *s = cta->worker;
    worker *w = s->w;
    if ((++w->yields & 63) == 0)
        sched_yield();
    if (w->lc->resident && atomic_load(&w->lc->failed))
        rt_fault_raise(RT_ERR_TRAP, "stopped: another block of the cooperative launch failed");
    if (w->lc->resident) {
        s->cur_warp = warp;
        rt_fiber_switch(&s->fibers[warp], &w->sched);
    } else if (as_fibers(s)) {
        yield_to_next(s, warp);
    }
}

/* The .local window of a warp: its fiber stack, or the stack below the
 * frame that runs the warps in a loop (which holds every .local frame). */
void ptxjit_rt_local_window(ptxjit_cta *cta, uint32_t warp, uint64_t *bounds)
{
    cta_slot *s = cta->worker;
    if (as_fibers(s)) {
        bounds[0] = (uint64_t)(uintptr_t)s->stacks[warp];
        bounds[1] = bounds[0] + FIBER_STACK;
        return;
    }
    bounds[0] = (uint64_t)(uintptr_t)__builtin_frame_address(0);
    bounds[1] = (uint64_t)(uintptr_t)s->w->stack_top;
}

/* The launch's printf log, made by its first printf: most kernels print
 * nothing, and making, flushing and freeing a log (33 mutexes) for every
 * launch was a fifth of an empty one.  Without memory for it the launch
 * fails as it did when the log was made up front. */
static rt_printf_log *launch_log(launch_ctx *lc)
{
    rt_printf_log *log = atomic_load_explicit(&lc->log, memory_order_acquire);
    if (log)
        return log;
    rt_printf_log *made = rt_printf_log_create();
    if (!made)
        rt_fault_raise(RT_ERR_NOMEM, "out of memory for the output of printf");
    if (atomic_compare_exchange_strong(&lc->log, &log, made))
        return made;
    rt_printf_log_destroy(made); /* another worker's came first */
    return log;
}

void rt_shim_printf_record(ptxjit_cta *cta, uint32_t thread, const char *text, size_t len)
{
    cta_slot *s = cta->worker;
    if (s->seq_serial != s->serial) { /* this CTA's first printf */
        memset(s->printf_seq, 0, cta->launch->nthreads * sizeof *s->printf_seq);
        s->seq_serial = s->serial;
    }
    uint32_t seq = thread < s->nseq ? s->printf_seq[thread]++ : 0;
    rt_printf_log_add(launch_log(s->w->lc), cta->cta_linear, thread, seq, text, len);
}

/* ---- CTAs ---- */

void rt_cta_index(const ptxjit_cta *cta, uint32_t id[3])
{
    const uint32_t *n = cta->launch->nctaid;
    uint64_t linear = cta->cta_linear;
    if (n[1] == 1 && n[2] == 1) { /* 1D grids: no 64-bit divisions */
        id[0] = (uint32_t)linear;
        id[1] = id[2] = 0;
        return;
    }
    id[0] = (uint32_t)(linear % n[0]);
    id[1] = (uint32_t)(linear / n[0] % n[1]);
    id[2] = (uint32_t)(linear / n[0] / n[1]);
}

/* Makes slot s the CTA `linear` of the launch. */
static void cta_begin(worker *w, cta_slot *s, uint64_t linear)
{
    launch_ctx *lc = w->lc;
    const ptxjit_grid *L = &lc->launch;
    s->w = w;
    s->cta.launch = L;
    s->cta.worker = s;
    s->cta.shared = s->shared.base;
    s->cta.frames = s->frames;
    s->cta.nwarps = lc->nwarps;
    s->cta.cta_linear = linear;
    rt_cta_index(&s->cta, s->cta.ctaid);
    s->serial++; /* printf_seq is reset at the CTA's first printf, if any */
    /* Only arrivals change barrier state (resumable kernels whose code
     * completes its barriers never arrive here).  The reset was 8% of a
     * 32-thread vec_add, and 6% of an empty 10-barrier kernel. */
    if (s->bars_used) {
        memset(s->bars, 0, sizeof s->bars);
        s->bars_used = false;
    }
    s->live_warps = s->cta.nwarps;
}

/* A resumable kernel's CTA: its warps in a loop, each called until it
 * waits at a barrier (it returns with the barrier in its frame) or exits;
 * a warp whose barrier completed is called again and continues there. */
static ptxjit_warp_frame *warp_frame(const cta_slot *s, uint32_t frame_size, uint32_t warp)
{
    return (ptxjit_warp_frame *)(s->frames + (size_t)warp * frame_size);
}

/* A warp stopped in the code's CTA loop: waiting at a barrier (it
 * arrives) or exited. */
static void warp_stopped(cta_slot *s, uint32_t i, const ptxjit_warp_frame *f)
{
    if (!f->resume) {
        s->state[i] = WARP_DONE;
        warp_exited(s);
        return;
    }
    if (f->op == PTXJIT_BAR_RED_SPLIT)
        ptxjit_rt_bar(&s->cta, i, f->id, 0, f->op, 0); /* raises the fault */
    uint32_t slot = f->id % NBARRIERS;
    s->state[i] = (uint8_t)(WARP_BLOCKED + slot); /* completion makes it runnable */
    barrier_arrive(s, slot, f->threads, f->op, f->value);
}

static void run_resumable(worker *w, cta_slot *s)
{
    const rt_kernel *k = w->lc->k;
    uint32_t n = s->cta.nwarps;
    /* Code that ran a CTA whole (uniform barriers) runs every CTA whole
     * and reads no frame header: nothing to set up, nothing to look at
     * after (the frames' header stores were a third of an empty CTA). */
    for (uint32_t i = 0; !s->whole_code && i < n; i++) {
        s->state[i] = WARP_RUNNABLE;
        s->red_out[i] = 0;
        ptxjit_warp_frame *f = warp_frame(s, k->frame_size, i);
        f->resume = 0;
        f->red = 0;
    }
    w->stack_top = __builtin_frame_address(0);
    /* The code runs the CTA while its barriers are plain ones; the loop
     * below takes over from where that stopped. */
    s->cur_warp = 0;
    s->cta.whole = 0;
    k->fn(&s->cta, PTXJIT_WARP_CTA_LOOP);
    if (s->cta.whole) {
        s->whole_code = true;
        s->live_warps = 0;
        return;
    }
    bool all_exited = true;
    for (uint32_t i = 0; i < n && all_exited; i++)
        all_exited = !warp_frame(s, k->frame_size, i)->resume;
    if (all_exited) {
        s->live_warps = 0;
        return;
    }
    for (uint32_t i = 0; i < n; i++)
        warp_stopped(s, i, warp_frame(s, k->frame_size, i));
    while (s->live_warps) {
        bool ran = false;
        for (uint32_t i = 0; i < n; i++) {
            if (s->state[i] != WARP_RUNNABLE)
                continue;
            ptxjit_warp_frame *f = warp_frame(s, k->frame_size, i);
            ran = true;
            f->red = s->red_out[i];
            s->cur_warp = i;
            k->fn(&s->cta, i);
            warp_stopped(s, i, f);
        }
        if (!ran)
            release_all(s);
    }
}

static void run_cta(worker *w, uint64_t linear)
{
    cta_slot *s = &w->slots[0];
    cta_begin(w, s, linear);
    w->cur = s;
    if (w->lc->k->frame_size) {
        run_resumable(w, s);
        return;
    }
    if (as_fibers(s)) {
        run_fibers(w, 1);
        return;
    }
    w->stack_top = __builtin_frame_address(0);
    for (uint32_t i = 0; i < s->cta.nwarps; i++)
        w->lc->k->fn(&s->cta, i);
}

/* ---- warps in rows ----
 * A kernel whose warps cannot see one another - no barrier or other wait
 * (its warps would run as fibers or return at barriers), no shared memory
 * - may run its warps in any order.  In a 2D block a warp is a few short
 * rows (16 threads of a 16x16 block), and CTA after CTA the warps run
 * through 16 rows at once, 64 bytes of each: more streams than the CPU's
 * prefetchers follow.  Warp w of every CTA of a grid row, then warp w+1,
 * walks each row from end to end instead (the 5-point stencil -15% on one
 * core).  1D blocks keep CTA order: their warps already follow one row. */

/* The end of the row call starting at CTA `first` of [first, end): the
 * end of its grid row or of the chunk, at most PTXJIT_ROW_MAX CTAs. */
static uint64_t row_call_end(const launch_ctx *lc, uint64_t first, uint64_t end)
{
    uint64_t width = lc->launch.nctaid[0], row_end = (first / width + 1) * width;
    uint64_t last = row_end < end ? row_end : end;
    return last - first > PTXJIT_ROW_MAX ? first + PTXJIT_ROW_MAX : last;
}

/* Whether the launch's warps run row-wise (run_rows). */
static bool runs_rows(const launch_ctx *lc)
{
    const ptxjit_grid *g = &lc->launch;
    return lc->d->interleave && !lc->k->frame_size && !lc->k->uses_barriers && !lc->resident && !lc->smem &&
           lc->nwarps > 1 && (g->ntid[1] > 1 || g->ntid[2] > 1) && g->nctaid[0] > 1;
}

/* CTAs [begin, end) warp by warp: each warp index across the CTAs of one
 * grid row, then the next, in one call (PTXJIT_WARP_ROW: the code steps
 * the CTA's index).  One slot serves them all: only the CTA's index
 * differs.  printf's sequence numbers go on across the call's CTAs, which
 * keeps each thread's lines in order (the log sorts by CTA, thread and
 * sequence number). */
static void run_rows(worker *w, uint64_t begin, uint64_t end)
{
    cta_slot *s = &w->slots[0];
    w->cur = s;
    w->stack_top = __builtin_frame_address(0);
    for (uint64_t first = begin; first < end && !atomic_load(&w->lc->failed);) {
        uint64_t last = row_call_end(w->lc, first, end);
        cta_begin(w, s, first);
        for (uint32_t warp = 0; warp < s->cta.nwarps; warp++) {
            s->cta.cta_linear = first; /* the call steps it through the row */
            s->cta.row_ctas = (uint32_t)(last - first);
            s->serial++;
            w->lc->k->fn(&s->cta, PTXJIT_WARP_ROW | warp);
        }
        first = last;
    }
}

/* A resumable kernel's CTAs [begin, end) in order.  Once a CTA ran whole
 * (uniform barriers: then every CTA does), one call runs the rest of its
 * grid row (PTXJIT_WARP_CTA_LOOP | PTXJIT_WARP_ROW): the per-CTA call and
 * the function's setup were a tenth of a tree reduction's CTA.  A CTA
 * that did not run whole ends the call; it is an error of the code. */
static void run_whole_rows(worker *w, uint64_t begin, uint64_t end)
{
    launch_ctx *lc = w->lc;
    cta_slot *s = &w->slots[0];
    for (uint64_t first = begin; first < end && !atomic_load(&lc->failed);) {
        if (!s->whole_code) {
            run_cta(w, first++);
            continue;
        }
        uint64_t last = row_call_end(lc, first, end);
        cta_begin(w, s, first);
        w->cur = s;
        w->stack_top = __builtin_frame_address(0);
        s->cur_warp = 0;
        s->cta.whole = 0;
        s->cta.row_ctas = (uint32_t)(last - first);
        lc->k->fn(&s->cta, PTXJIT_WARP_CTA_LOOP | PTXJIT_WARP_ROW);
        if (!s->cta.whole)
            rt_fault_raise(RT_ERR_FAULT, "internal error: code that runs CTAs whole stopped in one");
        s->live_warps = 0;
        first = last;
    }
}

/* The pool's chunk for a row-wise launch: whole grid rows, as many as
 * the pool's own choice of an eighth of a worker's share holds (0: its
 * choice, where the grid has fewer rows). */
static uint64_t row_chunk(const launch_ctx *lc, uint64_t nctas)
{
    if (!runs_rows(lc))
        return 0;
    uint64_t width = lc->launch.nctaid[0], rows = nctas / width / (8 * (uint64_t)lc->d->nworkers);
    return rows ? rows * width : 0;
}

/* A cooperative chunk: all its CTAs are resident together. */
static void run_resident(worker *w, uint64_t begin, uint64_t end)
{
    uint32_t n = (uint32_t)(end - begin);
    for (uint32_t c = 0; c < n; c++)
        cta_begin(w, &w->slots[c], begin + c);
    run_fibers(w, n);
}

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGSEGV: return "invalid memory access (SIGSEGV)";
    case SIGBUS: return "misaligned or invalid memory access (SIGBUS)";
    case SIGFPE: return "arithmetic exception (SIGFPE)";
    default: return "illegal instruction (SIGILL)";
    }
}

static void record_failure(launch_ctx *lc, worker *w)
{
    pthread_mutex_lock(&lc->lock);
    if (!lc->status) {
        lc->status = (rt_status)w->fault.kind;
        uint32_t id[3] = {0, 0, 0};
        if (w->cur)
            rt_cta_index(&w->cur->cta, id);
        if (w->fault.kind == RT_ERR_FAULT && w->fault.sig)
            snprintf(lc->msg, sizeof lc->msg, "kernel '%s': %s at address 0x%lx in block (%u,%u,%u)",
                     lc->k->name, signal_name(w->fault.sig), (unsigned long)w->fault.addr, id[0],
                     id[1], id[2]);
        else
            snprintf(lc->msg, sizeof lc->msg, "kernel '%s': %s in block (%u,%u,%u)", lc->k->name,
                     w->fault.msg, id[0], id[1], id[2]);
    }
    pthread_mutex_unlock(&lc->lock);
    atomic_store(&lc->failed, 1);
}

static int run_chunk(void *ctx, unsigned wi, uint64_t begin, uint64_t end)
{
    launch_ctx *lc = ctx;
    worker *w = &lc->d->workers[wi];
    if (atomic_load(&lc->failed))
        return 1;
    w->lc = lc;
    w->cur = NULL;
    rt_heap_enter(lc->heap);
    if (!worker_prepare(w, lc, lc->resident ? (uint32_t)(end - begin) : 1, lc->smem ? lc->smem : 1)) {
        w->fault.kind = RT_ERR_NOMEM;
        snprintf(w->fault.msg, sizeof w->fault.msg, "out of memory preparing a worker");
        record_failure(lc, w);
        return 1;
    }
    if (RT_FAULT_TRY(&w->fault)) {
        if (lc->resident && !lc->k->frame_size)
            run_resident(w, begin, end);
        else if (runs_rows(lc))
            run_rows(w, begin, end);
        else if (lc->k->frame_size)
            run_whole_rows(w, begin, end);
        else
            for (uint64_t i = begin; i < end && !atomic_load(&lc->failed); i++)
                run_cta(w, i);
        rt_fault_disarm();
        return 0;
    }
    record_failure(lc, w);
    return 1;
}

static rt_status check_config(const rt_kernel *k, const rt_launch_cfg *c, char *msg,
                              size_t msglen)
{
    uint64_t threads = (uint64_t)c->block[0] * c->block[1] * c->block[2];
    uint64_t smem = (uint64_t)k->static_smem + c->dyn_smem;
    if (smem > RT_MAX_SHARED_PER_BLOCK) {
        snprintf(msg, msglen,
                 "%llu bytes of shared memory per block (%u static, %u dynamic) exceed the "
                 "limit of %u",
                 (unsigned long long)smem, k->static_smem, c->dyn_smem, RT_MAX_SHARED_PER_BLOCK);
        return RT_ERR_CONFIG;
    }
    for (int i = 0; i < 3; i++)
        if (!c->grid[i] || !c->block[i]) {
            snprintf(msg, msglen, "grid and block dimensions must be at least 1");
            return RT_ERR_CONFIG;
        }
    if (threads > 1024) {
        snprintf(msg, msglen, "block of %llu threads exceeds the limit of 1024",
                 (unsigned long long)threads);
        return RT_ERR_CONFIG;
    }
    return RT_OK;
}

/* Every CTA of a cooperative grid must be resident at once. */
static rt_status check_cooperative(const rt_device *d, const rt_launch_cfg *c, char *msg,
                                   size_t msglen)
{
    uint32_t threads = c->block[0] * c->block[1] * c->block[2];
    uint64_t nctas = (uint64_t)c->grid[0] * c->grid[1] * c->grid[2];
    uint64_t max = rt_cooperative_max(d, threads);
    if (!c->cooperative || nctas <= max)
        return RT_OK;
    snprintf(msg, msglen, "cooperative grid of %llu blocks exceeds the %llu blocks of %u threads "
             "that %u workers run at once", (unsigned long long)nctas, (unsigned long long)max,
             threads, d->nworkers);
    return RT_ERR_CONFIG;
}

uint64_t rt_cooperative_max(const rt_device *d, uint32_t threads)
{
    if (!threads || threads > 1024)
        return 0;
    uint32_t warps = (threads + PTXJIT_WARP_SIZE - 1) / PTXJIT_WARP_SIZE;
    uint32_t per_worker = RT_COOP_THREADS / PTXJIT_WARP_SIZE / warps;
    if (per_worker > RT_COOP_CTAS)
        per_worker = RT_COOP_CTAS;
    return (uint64_t)per_worker * d->nworkers;
}

/* %tid of each thread of a block, so that warps need no divisions; the
 * table itself counted x, y and z up (five divisions per thread were half
 * of an empty 256-thread launch).  Lanes past the block continue the
 * count as the divisions did. */
static void fill_tids(launch_ctx *lc)
{
    const uint32_t *n = lc->launch.ntid;
    uint32_t x = 0, y = 0, z = 0;
    for (uint32_t w = 0; w < lc->nwarps; w++) {
        uint32_t *row = &lc->tids[3 * PTXJIT_WARP_SIZE * w];
        for (uint32_t l = 0; l < PTXJIT_WARP_SIZE; l++) {
            row[l] = x, row[PTXJIT_WARP_SIZE + l] = y, row[2 * PTXJIT_WARP_SIZE + l] = z;
            if (++x == n[0] && (x = 0, ++y == n[1]))
                y = 0, z++;
        }
    }
    lc->launch.tids = lc->tids;
}

/* A cooperative grid runs all at once: each worker holds an equal share
 * (one chunk each, so no chunk waits for a worker another chunk holds),
 * and the grid barrier's workspace is zeroed and published in %envreg1
 * (high half of its address) and %envreg2 (low half). */
static void cooperative_setup(launch_ctx *lc, uint64_t nctas)
{
    uint64_t workers = lc->d->nworkers;
    lc->resident = (uint32_t)((nctas + workers - 1) / workers);
    memset(lc->grid_workspace, 0, sizeof lc->grid_workspace);
    uint64_t ws = (uint64_t)(uintptr_t)lc->grid_workspace;
    lc->launch.envreg[1] = (uint32_t)(ws >> 32);
    lc->launch.envreg[2] = (uint32_t)ws;
}

/* The fault handlers go in at a device's first launch and stay until it
 * is destroyed: swapping them per launch took 8 sigaction calls, more than
 * an empty launch costs.  Late, because hosts install their own handlers
 * at start-up; one that replaced ours since is put behind ours again. */
static void install_faults(rt_device *d)
{
    if (atomic_load_explicit(&d->faults_installed, memory_order_acquire)) {
        rt_fault_ensure();
        return;
    }
    pthread_mutex_lock(&d->faults_lock);
    if (!atomic_load(&d->faults_installed)) {
        rt_fault_install();
        atomic_store(&d->faults_installed, true);
    }
    pthread_mutex_unlock(&d->faults_lock);
}

rt_status rt_launch(rt_device *d, const rt_kernel *k, const rt_launch_cfg *cfg, char *msg,
                    size_t msglen)
{
    rt_status st = check_config(k, cfg, msg, msglen);
    if (st || (st = check_cooperative(d, cfg, msg, msglen)))
        return st;
    launch_ctx lc = {.d = d, .k = k, .heap = cfg->heap};
    pthread_mutex_init(&lc.lock, NULL);
    for (int i = 0; i < 3; i++) {
        lc.launch.nctaid[i] = cfg->grid[i];
        lc.launch.ntid[i] = cfg->block[i];
    }
    lc.launch.nthreads = cfg->block[0] * cfg->block[1] * cfg->block[2];
    lc.launch.dynamic_smem = cfg->dyn_smem;
    lc.launch.params = cfg->params;
    size_t align = k->dyn_smem_align ? k->dyn_smem_align : 16;
    lc.smem = ((k->static_smem + align - 1) & ~(align - 1)) + cfg->dyn_smem;
    lc.nwarps = (lc.launch.nthreads + PTXJIT_WARP_SIZE - 1) / PTXJIT_WARP_SIZE;
    fill_tids(&lc);
    uint64_t nctas = (uint64_t)cfg->grid[0] * cfg->grid[1] * cfg->grid[2];
    if (cfg->cooperative)
        cooperative_setup(&lc, nctas);
    install_faults(d);
    rt_fpenv host; /* pool threads run in the default mode already */
    rt_fpenv_enter(&host);
    rt_pool_parallel_for(d->pool, nctas, lc.resident ? lc.resident : row_chunk(&lc, nctas), run_chunk, &lc);
    rt_fpenv_leave(&host);
    rt_printf_log *log = atomic_load(&lc.log);
    if (log) {
        rt_printf_log_flush(log, cfg->printf_out ? cfg->printf_out : stdout);
        rt_printf_log_destroy(log);
    }
    pthread_mutex_destroy(&lc.lock);
    if (lc.status)
        snprintf(msg, msglen, "%s", lc.msg);
    return lc.status;
}
