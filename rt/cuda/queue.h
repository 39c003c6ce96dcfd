/* queue.h - CUDA streams as HSA-style user-mode queues.
 *
 * A stream is an rt_queue: a ring of packets (kernel dispatch, copy,
 * memset, barrier-AND on signals, marker, host callback) consumed in order
 * by a packet processor.  An rt_sched owns the queues of one context and
 * the processor threads that run them.
 *
 * Processors: an elastic pool.  A queue that gets work while idle becomes
 * runnable; a processor thread takes it and runs its packets until the
 * queue is empty or its head is a barrier whose signals are pending.  Then
 * the queue parks on the signal (the thread is free for other queues) and
 * the signal's completion makes it runnable again.  When a queue becomes
 * runnable and no thread is idle, a thread is started (up to max_threads),
 * so every stream with work gets a thread of its own and streams run
 * concurrently, as on a GPU; threads idle for `linger_ns` exit.  Blocking
 * packets (a kernel, a host callback that sleeps) hold only their own
 * stream's thread; barrier waits hold none, so cross-stream waits cannot
 * starve the pool.  Among runnable queues waiting for a thread, lower
 * priority values go first (CUDA: lower is higher priority).  Shortly
 * after activity idle processors look for work every 100 us instead of
 * waiting to be woken, so back-to-back launches wake no thread (sched.c).
 *
 * Legacy default stream: each rt_sched has one queue created with
 * RT_QUEUE_LEGACY (the NULL stream).  Every enqueue applies CUDA's implicit
 * synchronisation itself: work on the legacy queue first waits (a barrier)
 * for markers of all prior work in the blocking queues, and work on a
 * blocking queue first waits for a marker of prior legacy work.  Queues
 * created RT_QUEUE_NON_BLOCKING (CU_STREAM_NON_BLOCKING) do neither.
 * Per-thread default streams are ordinary blocking queues the API layer
 * keys by thread.
 *
 * Errors: a kernel callback's nonzero return is recorded in its queue and,
 * as a GPU fault is, made sticky for the whole rt_sched: later kernel,
 * copy and memset packets (of any queue) are skipped, host callbacks get
 * the error as their status, markers complete with it, and every sync
 * returns it.  A return marked RT_TRANSIENT (resources that ran out, not
 * the kernel's fault) is not sticky: later work runs, and the next sync
 * of the queue (or of the scheduler) returns it once.
 *
 * Every function is thread-safe; waits take a timeout in nanoseconds
 * (RT_WAIT_FOREVER for none) and never spin.  Return codes: see completion.h. */
#ifndef RT_CUDA_QUEUE_H
#define RT_CUDA_QUEUE_H

#include <stddef.h>
#include <stdint.h>

#include "completion.h"

typedef struct rt_sched rt_sched;
typedef struct rt_queue rt_queue;

#define RT_QUEUE_NON_BLOCKING 0x1u /* no implicit sync with the legacy queue */
#define RT_QUEUE_LEGACY 0x2u       /* internal: the legacy default stream */

typedef struct rt_sched_config {
    unsigned max_threads; /* 0: 256 */
    uint64_t linger_ns;   /* how long an idle processor waits for work; 0: 1 s */
} rt_sched_config;

/* Kernel dispatch: runs the work, returns 0 or an error (a CUresult),
 * or RT_TRANSIENT | error for one that must not stick. */
#define RT_TRANSIENT 0x40000000
typedef int (*rt_kernel_fn)(void *arg);
/* Releases a packet's argument once the packet ran or was skipped. */
typedef void (*rt_release_fn)(void *arg);
/* Host callback: status is 0 or the sticky error. */
typedef void (*rt_host_fn)(void *arg, int status);

/* --- the scheduler (one per context) ---------------------------------------- */

/* cfg may be NULL for the defaults.  Creates the legacy queue; starts no
 * thread until work arrives.  NULL without memory. */
rt_sched *rt_sched_create(const rt_sched_config *cfg);

/* Destroys every queue still alive (as rt_queue_destroy), waits for all
 * their work to finish, stops the threads and frees s. */
void rt_sched_destroy(rt_sched *s);

/* The legacy default stream (owned by s; do not destroy it). */
rt_queue *rt_sched_legacy(rt_sched *s);

/* Waits for all work of every queue of s (cuCtxSynchronize): 0, the sticky
 * error, or RT_Q_TIMEOUT. */
int rt_sched_sync(rt_sched *s, uint64_t timeout_ns);

/* The sticky error (0 if none). */
int rt_sched_error(const rt_sched *s);

/* Processor threads alive now (for tests and statistics). */
unsigned rt_sched_threads(rt_sched *s);

/* --- queues -------------------------------------------------------------------- */

/* A blocking (flags 0) or RT_QUEUE_NON_BLOCKING queue; priority is stored
 * as given (the API layer clamps it to its range).  NULL without memory. */
rt_queue *rt_queue_create(rt_sched *s, unsigned flags, int priority);

/* Returns at once; the queue's pending work still runs (CUDA semantics)
 * and the queue is freed when it drains.  Signals obtained from it stay
 * valid.  q must not be used afterwards.  The legacy queue is refused
 * (RT_Q_INVALID). */
int rt_queue_destroy(rt_queue *q);

unsigned rt_queue_flags(const rt_queue *q);
int rt_queue_priority(const rt_queue *q);

/* Enqueue.  Each returns 0, RT_Q_NOMEM, or RT_Q_INVALID (destroyed queue,
 * bad argument); on an error nothing was enqueued and, for kernels,
 * release(arg) has not been called. */
int rt_queue_kernel(rt_queue *q, rt_kernel_fn fn, void *arg, rt_release_fn release);
int rt_queue_copy(rt_queue *q, void *dst, const void *src, size_t bytes);
/* width elements of elem_size (1, 2 or 4) bytes, set to the low elem_size
 * bytes of value, in each of height rows pitch bytes apart (cuMemsetD*). */
int rt_queue_memset(rt_queue *q, void *dst, size_t pitch, uint32_t value, unsigned elem_size,
                    size_t width, size_t height);
int rt_queue_host(rt_queue *q, rt_host_fn fn, void *arg);
/* Later packets of q wait until every signal in deps (NULL entries and
 * completed signals are skipped) has completed: cuStreamWaitEvent. */
int rt_queue_barrier(rt_queue *q, rt_signal *const *deps, size_t n);

/* A new signal (the caller owns one reference) that completes, timestamped,
 * when all work enqueued on q before it has finished: cuEventRecord.  On an
 * idle queue it is complete at once.  NULL without memory. */
rt_signal *rt_queue_marker(rt_queue *q);

/* Waits for all work enqueued on q before the call (cuStreamSynchronize):
 * 0, the queue's or the sticky error, or RT_Q_TIMEOUT.  An unbounded wait
 * on a queue no processor has taken yet runs those packets on the calling
 * thread, in order, instead of sleeping until a processor has: a launch
 * followed by a sync needs no thread hand-off.  rt_sched_sync does the
 * same for each queue. */
int rt_queue_sync(rt_queue *q, uint64_t timeout_ns);

/* cuStreamQuery: RT_Q_NOT_READY while work is pending, else as sync. */
int rt_queue_query(rt_queue *q);

#endif
