/* launch.c - the grid scheduler: CTAs in chunks on the worker pool; warps
 * in a loop, or as fibers switched at barriers; faults contained per
 * worker; printf output collected and flushed in a deterministic order. */
#include "launch.h"

#include "fault.h"
#include "fiber.h"
#include "pool.h"
#include "printf.h"
#include "shared_window.h"
#include "shims.h"

#include <pthread.h>
#include <signal.h>
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

typedef struct worker {
    ptxjit_cta cta;
    launch_ctx *lc;
    rt_shared_window shared;
    rt_fiber sched;
    rt_fiber *fibers;
    void **stacks;
    uint32_t nfibers;
    uint8_t *state;
    uint32_t cur_warp;
    uint32_t live_warps;
    cta_barrier bars[NSLOTS];
    uint32_t red_out[MAX_WARPS];       /* bar.red result for each waiting warp */
    uint32_t cluster_phase[MAX_WARPS]; /* the barrier.cluster phase each warp arrived at */
    void *stack_top;                   /* warps as a loop: the frame below which they run */
    uint32_t *printf_seq;
    uint32_t nseq;
    rt_fault fault;
} worker;

/* Launches from several threads run at once: each worker index (pool
 * thread or launching thread) has its own state, grown by the chunk that
 * needs it. */
struct rt_device {
    rt_pool *pool;
    unsigned nworkers;       /* pool size: the device's parallelism */
    unsigned nslots;         /* worker indices, launching threads included */
    worker *workers;
};

struct launch_ctx {
    rt_device *d;
    const rt_kernel *k;
    ptxjit_grid launch;
    size_t smem;             /* shared bytes per CTA, static and dynamic */
    uint32_t nwarps;
    rt_printf_log *log;
    atomic_int failed;
    pthread_mutex_t lock;
    rt_status status;
    char msg[640];
};

rt_device *rt_device_create(unsigned threads)
{
    rt_device *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->pool = rt_pool_create(threads);
    if (!d->pool) {
        free(d);
        return NULL;
    }
    d->nworkers = rt_pool_size(d->pool);
    d->nslots = rt_pool_slots(d->pool);
    d->workers = calloc(d->nslots, sizeof *d->workers);
    if (!d->workers) {
        rt_device_destroy(d);
        return NULL;
    }
    return d;
}

static void worker_free(worker *w)
{
    for (uint32_t i = 0; i < w->nfibers; i++)
        rt_stack_free(w->stacks[i], FIBER_STACK);
    free(w->stacks);
    free(w->fibers);
    free(w->state);
    rt_shared_window_free(&w->shared);
    free(w->printf_seq);
}

void rt_device_destroy(rt_device *d)
{
    if (!d)
        return;
    for (unsigned i = 0; d->workers && i < d->nslots; i++)
        worker_free(&d->workers[i]);
    free(d->workers);
    rt_pool_destroy(d->pool);
    free(d);
}

unsigned rt_device_workers(const rt_device *d) { return d->nworkers; }

/* Grows the worker's reusable state for this launch's shape. */
static bool worker_prepare(worker *w, const rt_kernel *k, uint32_t nwarps, size_t smem,
                           uint32_t nthreads)
{
    if (!rt_shared_window_resize(&w->shared, smem, k->dyn_smem_align > 64 ? k->dyn_smem_align : 64))
        return false;
    if (nthreads > w->nseq) {
        free(w->printf_seq);
        w->printf_seq = calloc(nthreads, sizeof *w->printf_seq);
        w->nseq = w->printf_seq ? nthreads : 0;
        if (!w->printf_seq)
            return false;
    }
    if (!k->uses_barriers || nwarps <= w->nfibers)
        return true;
    rt_fiber *f = realloc(w->fibers, nwarps * sizeof *f);
    if (f)
        w->fibers = f;
    void **s = realloc(w->stacks, nwarps * sizeof *s);
    if (s)
        w->stacks = s;
    uint8_t *st = realloc(w->state, nwarps);
    if (st)
        w->state = st;
    if (!f || !s || !st)
        return false;
    for (; w->nfibers < nwarps; w->nfibers++)
        if (!(w->stacks[w->nfibers] = rt_stack_alloc(FIBER_STACK)))
            return false;
    return true;
}

/* ---- warps as fibers ---- */

/* Leaves warp `from` for the next runnable warp, round robin, switching
 * straight to it; back to the scheduler only when none can run. */
static void yield_to_next(worker *w, uint32_t from)
{
    uint32_t n = w->cta.nwarps;
    for (uint32_t k = 1; k <= n; k++) {
        uint32_t i = (from + k) % n;
        if (w->state[i] == WARP_RUNNABLE) {
            if (i == from)
                return; /* only this warp can run: keep going */
            w->cur_warp = i;
            rt_fiber_switch(&w->fibers[from], &w->fibers[i]);
            return;
        }
    }
    rt_fiber_switch(&w->fibers[from], &w->sched);
}

static void barrier_complete(worker *w, uint32_t slot)
{
    cta_barrier *b = &w->bars[slot];
    b->arrived = 0;
    b->phase++;
    for (uint32_t i = 0; i < w->cta.nwarps; i++)
        if (w->state[i] == WARP_BLOCKED + slot) {
            w->state[i] = WARP_RUNNABLE;
            w->red_out[i] = b->red_acc;
        }
}

/* Barriers waiting for every live warp may now be complete. */
static void warp_exited(worker *w)
{
    w->live_warps--;
    for (uint32_t slot = 0; slot < NSLOTS; slot++) {
        cta_barrier *b = &w->bars[slot];
        if (b->arrived && !b->expected && b->arrived >= w->live_warps)
            barrier_complete(w, slot);
    }
}

static void fiber_main(void *arg)
{
    worker *w = arg;
    uint32_t warp = w->cur_warp;
    w->lc->k->fn(&w->cta, warp);
    w->state[warp] = WARP_DONE;
    warp_exited(w);
    yield_to_next(w, warp);
}

/* Every live warp is blocked: nothing can arrive any more, so the
 * barriers they wait at complete with the warps they have. */
static void release_all(worker *w, uint32_t nwarps)
{
    for (uint32_t i = 0; i < nwarps; i++)
        if (w->state[i] >= WARP_BLOCKED)
            barrier_complete(w, w->state[i] - WARP_BLOCKED);
}

static void run_warps_as_fibers(worker *w, uint32_t nwarps)
{
    for (uint32_t i = 0; i < nwarps; i++) {
        w->state[i] = WARP_RUNNABLE;
        rt_fiber_init(&w->fibers[i], w->stacks[i], FIBER_STACK, fiber_main, w);
    }
    for (;;) {
        uint32_t done = 0, runnable = 0;
        for (uint32_t i = 0; i < nwarps; i++) {
            done += w->state[i] == WARP_DONE;
            runnable += w->state[i] == WARP_RUNNABLE;
        }
        if (done == nwarps)
            return;
        if (!runnable)
            release_all(w, nwarps);
        for (uint32_t i = 0; i < nwarps; i++)
            if (w->state[i] == WARP_RUNNABLE) { /* warps pass control among themselves */
                w->cur_warp = i;
                rt_fiber_switch(&w->sched, &w->fibers[i]);
                break;
            }
    }
}

static bool as_fibers(const worker *w)
{
    return w->lc->k->uses_barriers && w->cta.nwarps > 1;
}

/* Warp `warp` arrives at barrier `slot` (threads: the expected thread
 * count, 0 for all); `red` is its bar.red contribution under `op`. */
static void barrier_arrive(worker *w, uint32_t slot, uint32_t threads, uint32_t op, uint32_t red)
{
    cta_barrier *b = &w->bars[slot];
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
    if (b->arrived >= (b->expected ? b->expected : w->live_warps))
        barrier_complete(w, slot);
}

/* Blocks warp `warp` until barrier `slot` has completed phase `phase`,
 * running the other warps meanwhile. */
static void barrier_wait(worker *w, uint32_t warp, uint32_t slot, uint32_t phase)
{
    while (w->bars[slot].phase == phase) {
        w->state[warp] = (uint8_t)(WARP_BLOCKED + slot);
        yield_to_next(w, warp);
    }
}

uint32_t ptxjit_rt_bar(ptxjit_cta *cta, uint32_t warp, uint32_t id, uint32_t threads, uint32_t op,
                       uint32_t value)
{
    worker *w = cta->worker;
    if (op == PTXJIT_BAR_RED_SPLIT)
        rt_fault_raise(RT_ERR_TRAP, "barrier reduction at PTX line %u reached by the lanes of one warp "
                                    "at different instructions (not supported)", id);
    uint32_t slot = op >= PTXJIT_BAR_CLUSTER_ARRIVE ? CLUSTER_BARRIER : id % NBARRIERS;
    if (op == PTXJIT_BAR_CLUSTER_WAIT) {
        if (as_fibers(w))
            barrier_wait(w, warp, slot, w->cluster_phase[warp]);
        return 0;
    }
    cta_barrier *b = &w->bars[slot];
    uint32_t phase = b->phase;
    if (op == PTXJIT_BAR_CLUSTER_ARRIVE)
        w->cluster_phase[warp] = phase;
    barrier_arrive(w, slot, threads, op, value);
    if (op == PTXJIT_BAR_ARRIVE || op == PTXJIT_BAR_CLUSTER_ARRIVE)
        return 0;
    if (b->phase != phase) /* this arrival completed it */
        return b->red_acc;
    if (as_fibers(w))
        barrier_wait(w, warp, slot, phase);
    return w->red_out[warp];
}

/* A warp waiting for another (mbarrier tests, nanosleep) lets the others run. */
void ptxjit_rt_yield(ptxjit_cta *cta, uint32_t warp)
{
    worker *w = cta->worker;
    if (as_fibers(w))
        yield_to_next(w, warp);
}

/* The .local window of a warp: its fiber stack, or the stack below the
 * frame that runs the warps in a loop (which holds every .local frame). */
void ptxjit_rt_local_window(ptxjit_cta *cta, uint32_t warp, uint64_t *bounds)
{
    worker *w = cta->worker;
    if (as_fibers(w)) {
        bounds[0] = (uint64_t)(uintptr_t)w->stacks[warp];
        bounds[1] = bounds[0] + FIBER_STACK;
        return;
    }
    bounds[0] = (uint64_t)(uintptr_t)__builtin_frame_address(0);
    bounds[1] = (uint64_t)(uintptr_t)w->stack_top;
}

void rt_shim_printf_record(ptxjit_cta *cta, uint32_t thread, const char *text, size_t len)
{
    worker *w = cta->worker;
    uint32_t seq = thread < w->nseq ? w->printf_seq[thread]++ : 0;
    rt_printf_log_add(w->lc->log, cta->cta_linear, thread, seq, text, len);
}

/* ---- CTAs ---- */

static void run_cta(worker *w, uint64_t linear)
{
    const ptxjit_grid *L = w->cta.launch;
    w->cta.cta_linear = linear;
    w->cta.ctaid[0] = (uint32_t)(linear % L->nctaid[0]);
    w->cta.ctaid[1] = (uint32_t)(linear / L->nctaid[0] % L->nctaid[1]);
    w->cta.ctaid[2] = (uint32_t)(linear / L->nctaid[0] / L->nctaid[1]);
    memset(w->printf_seq, 0, L->nthreads * sizeof *w->printf_seq);
    memset(w->bars, 0, sizeof w->bars);
    w->live_warps = w->cta.nwarps;
    if (as_fibers(w)) {
        run_warps_as_fibers(w, w->cta.nwarps);
        return;
    }
    w->stack_top = __builtin_frame_address(0);
    for (uint32_t i = 0; i < w->cta.nwarps; i++)
        w->lc->k->fn(&w->cta, i);
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

static void record_failure(launch_ctx *lc, worker *w, uint64_t cta)
{
    pthread_mutex_lock(&lc->lock);
    if (!lc->status) {
        lc->status = (rt_status)w->fault.kind;
        const uint32_t *id = w->cta.ctaid;
        if (w->fault.kind == RT_ERR_FAULT)
            snprintf(lc->msg, sizeof lc->msg, "kernel '%s': %s at address 0x%lx in block (%u,%u,%u)",
                     lc->k->name, signal_name(w->fault.sig), (unsigned long)w->fault.addr, id[0],
                     id[1], id[2]);
        else
            snprintf(lc->msg, sizeof lc->msg, "kernel '%s': %s in block (%u,%u,%u)", lc->k->name,
                     w->fault.msg, id[0], id[1], id[2]);
        (void)cta;
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
    if (!worker_prepare(w, lc->k, lc->nwarps, lc->smem ? lc->smem : 1, lc->launch.nthreads)) {
        w->fault.kind = RT_ERR_NOMEM;
        snprintf(w->fault.msg, sizeof w->fault.msg, "out of memory preparing a worker");
        record_failure(lc, w, begin);
        return 1;
    }
    w->lc = lc;
    w->cta.launch = &lc->launch;
    w->cta.worker = w;
    w->cta.shared = w->shared.base;
    w->cta.nwarps = (lc->launch.nthreads + PTXJIT_WARP_SIZE - 1) / PTXJIT_WARP_SIZE;
    volatile uint64_t i = begin;
    if (RT_FAULT_TRY(&w->fault)) {
        for (; i < end && !atomic_load(&lc->failed); i++)
            run_cta(w, i);
        rt_fault_disarm();
        return 0;
    }
    record_failure(lc, w, i);
    return 1;
}

static rt_status check_config(const rt_launch_cfg *c, char *msg, size_t msglen)
{
    uint64_t threads = (uint64_t)c->block[0] * c->block[1] * c->block[2];
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

rt_status rt_launch(rt_device *d, const rt_kernel *k, const rt_launch_cfg *cfg, char *msg,
                    size_t msglen)
{
    rt_status st = check_config(cfg, msg, msglen);
    if (st)
        return st;
    launch_ctx lc = {.d = d, .k = k};
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
    lc.log = rt_printf_log_create();
    if (!lc.log) {
        snprintf(msg, msglen, "out of memory");
        return RT_ERR_NOMEM;
    }
    uint64_t nctas = (uint64_t)cfg->grid[0] * cfg->grid[1] * cfg->grid[2];
    rt_fault_install();
    rt_pool_parallel_for(d->pool, nctas, 0, run_chunk, &lc);
    rt_fault_uninstall();
    rt_printf_log_flush(lc.log, cfg->printf_out ? cfg->printf_out : stdout);
    rt_printf_log_destroy(lc.log);
    pthread_mutex_destroy(&lc.lock);
    if (lc.status)
        snprintf(msg, msglen, "%s", lc.msg);
    return lc.status;
}
