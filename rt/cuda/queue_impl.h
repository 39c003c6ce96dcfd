/* queue_impl.h - what queue.c (rings, packets, enqueue, sync) and sched.c
 * (processor threads, runnable list) share.  Not for the API layer.
 *
 * Locks: q->lock guards a queue's ring, counters and error; s->lock guards
 * scheduling state (q->state, the runnable list, the queue list, threads).
 * Order: q->lock, then a signal's lock (a marker completes under q->lock),
 * then s->lock (a signal's callbacks wake parked queues); never two queue
 * locks at once. */
#ifndef RT_CUDA_QUEUE_IMPL_H
#define RT_CUDA_QUEUE_IMPL_H

#include <pthread.h>
#include <stdatomic.h>

#include "queue.h"

typedef enum rt_packet_kind {
    RT_PKT_KERNEL,
    RT_PKT_COPY,
    RT_PKT_MEMSET,
    RT_PKT_HOST,
    RT_PKT_BARRIER,
    RT_PKT_MARKER,
} rt_packet_kind;

typedef struct rt_packet {
    rt_packet_kind kind;
    rt_signal *signal; /* completed after the packet (markers), or NULL */
    union {
        struct { rt_kernel_fn fn; void *arg; rt_release_fn release; } kernel;
        struct { rt_host_fn fn; void *arg; } host;
        struct { void *dst; const void *src; size_t bytes; } copy;
        struct { void *dst; size_t pitch, width, height; uint32_t value; unsigned elem; } memset;
        struct { rt_signal **deps; size_t n; } barrier; /* deps owned (retained) */
    } u;
} rt_packet;

/* Scheduling state, under s->lock. */
typedef enum rt_queue_state {
    RT_QS_IDLE,     /* ring empty, no packet running */
    RT_QS_RUNNABLE, /* on the runnable list */
    RT_QS_RUNNING,  /* a processor owns it */
    RT_QS_PARKED,   /* head barrier waits on a signal's callback */
} rt_queue_state;

struct rt_queue {
    rt_sched *sched;
    unsigned flags;
    int priority;
    _Atomic unsigned refs; /* owner handle + 1 while not idle + temporary */

    pthread_mutex_t lock;
    pthread_cond_t drained;   /* `completed` advanced, for sync waiters */
    unsigned sync_waiters;
    rt_packet *ring;          /* cap slots, power of two; grows when full */
    size_t cap, head, count;
    uint64_t enqueued, completed;
    int error;                /* first error of a packet of this queue */
    int transient;            /* an RT_TRANSIENT error the next sync returns */
    int destroyed;
    int active;               /* not idle: holds a reference, is scheduled */

    rt_queue_state state;      /* s->lock */
    int by_processor;          /* s->lock: its owner is a processor, not a sync */
    rt_queue *next_runnable;   /* s->lock */
    rt_queue *prev, *next;     /* s->queues, s->lock */
    rt_signal_waiter park;     /* the callback node while parked */
};

struct rt_sched_thread;

struct rt_sched {
    pthread_mutex_t lock;
    pthread_cond_t work;      /* idle processors wait for runnable queues */
    pthread_cond_t poll;      /* never signalled: polling processors sleep on it */
    pthread_cond_t gone;      /* a queue was freed or a processor exited */
    rt_queue *runnable;       /* by priority, FIFO within one */
    size_t nrunnable;
    rt_queue *queues;         /* every queue not yet freed */
    size_t nqueues;
    rt_queue *legacy;
    unsigned nthreads, max_threads;
    unsigned nrunning;        /* processors owning a queue (RUNNING) */
    unsigned npolling;        /* idle processors that look again soon */
    uint64_t last_activity;   /* rt_clock_ns of the last enqueue or packet run */
    uint64_t linger_ns;
    int shutdown;
    struct rt_sched_thread *dead; /* exited threads to join */
    _Atomic int sticky;
};

/* sched.c: a referenced snapshot of s's queues (unref each, free the
 * array); NULL without memory. */
rt_queue **rt__sched_snapshot(rt_sched *s, size_t *n);
/* sched.c: makes an idle queue runnable (called with q->lock held);
 * RT_Q_NOMEM if no processor exists and none could be started. */
int rt__sched_activate(rt_queue *q);
/* sched.c: a parked queue's signal completed (a signal callback). */
void rt__sched_wake(void *queue);
/* sched.c: takes a RUNNABLE queue off the runnable list for the calling
 * thread, which then owns it (RUNNING): 1, or 0 if q was not runnable. */
int rt__sched_claim(rt_queue *q);
/* sched.c: gives a RUNNING queue with packets left back to the processors. */
void rt__sched_requeue(rt_queue *q);
/* sched.c: moves q to state st (s->lock held); keeps s->nrunning. */
void rt__sched_set_state(rt_queue *q, rt_queue_state st);
/* sched.c: registers and unregisters a queue in s->queues. */
void rt__sched_add_queue(rt_sched *s, rt_queue *q);
void rt__sched_remove_queue(rt_sched *s, rt_queue *q);

/* queue.c: runs q's packets until it is empty (then idle), parked, or
 * `until` packets of it have completed (then requeued for a processor).
 * q is RUNNING and owned by the calling thread. */
void rt__queue_process(rt_queue *q, uint64_t until);
/* queue.c: a queue of s (RT_QUEUE_LEGACY allowed), registered in s. */
rt_queue *rt__queue_new(rt_sched *s, unsigned flags, int priority);
/* queue.c: drops the owner's reference once (rt_queue_destroy's work). */
void rt__queue_retire(rt_queue *q);
/* queue.c: reference counting; the last unref frees the queue. */
int rt__queue_tryref(rt_queue *q);
void rt__queue_unref(rt_queue *q);

#endif
