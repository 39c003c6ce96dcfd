/* completion.h - completion signals: the objects host threads and stream queues
 * wait on (HSA's signals, CUDA's events).  A signal starts pending and
 * completes once, carrying a status (0, or the error of the work it
 * follows) and the CLOCK_MONOTONIC time at which it completed.
 *
 * Signals are reference counted: an event, a barrier packet and a waiting
 * host thread may each hold one.  Waiting never spins: host threads sleep
 * on a condition variable, queues park (see queue.h) and are woken by the
 * completion callback.
 *
 * Return codes shared with queue.h: 0 is success, a positive value is the
 * error a packet reported (the API layer passes CUresult values through),
 * and the negative RT_Q_* values below are the queue layer's own. */
#ifndef RT_CUDA_COMPLETION_H
#define RT_CUDA_COMPLETION_H

#include <stdint.h>

enum {
    RT_Q_OK = 0,
    RT_Q_TIMEOUT = -1,   /* a bounded wait ran out */
    RT_Q_NOT_READY = -2, /* work still pending (query, elapsed time) */
    RT_Q_NOMEM = -3,     /* memory or threads could not be had */
    RT_Q_INVALID = -4,   /* a destroyed queue, a bad argument */
};

/* Wait forever. */
#define RT_WAIT_FOREVER UINT64_MAX

typedef struct rt_signal rt_signal;

/* A callback node for rt_signal_on_complete; owned by the caller and
 * untouched by the signal once the callback has run. */
typedef struct rt_signal_waiter {
    void (*fn)(void *arg);
    void *arg;
    struct rt_signal_waiter *next;
} rt_signal_waiter;

/* CLOCK_MONOTONIC in nanoseconds: the clock of every timestamp here. */
uint64_t rt_clock_ns(void);

/* A pending signal with one reference; NULL without memory. */
rt_signal *rt_signal_create(void);
void rt_signal_retain(rt_signal *s);
void rt_signal_release(rt_signal *s); /* NULL is ignored */

/* Completes s with status (0 or an error), timestamped now; wakes waiting
 * threads and runs the registered callbacks on the calling thread.  A
 * signal completes once; later calls are ignored. */
void rt_signal_complete(rt_signal *s, int status);

/* 1 once s has completed (never blocks). */
int rt_signal_done(const rt_signal *s);

/* Waits until s completes or timeout_ns passes: its status (0 or the
 * error), or RT_Q_TIMEOUT.  timeout_ns 0 polls. */
int rt_signal_wait(rt_signal *s, uint64_t timeout_ns);

/* Status and completion time of a completed signal; RT_Q_NOT_READY (and
 * *ns untouched) while pending. */
int rt_signal_status(const rt_signal *s);
int rt_signal_timestamp(const rt_signal *s, uint64_t *ns);

/* Milliseconds from start's completion to end's (negative if end completed
 * first), as cuEventElapsedTime; RT_Q_NOT_READY unless both completed. */
int rt_signal_elapsed_ms(const rt_signal *start, const rt_signal *end, float *ms);

/* Arranges for w->fn(w->arg) to run once s completes, on the completing
 * thread.  Returns 1 if registered, 0 if s had already completed (then fn
 * is not called: the caller goes on itself). */
int rt_signal_on_complete(rt_signal *s, rt_signal_waiter *w);

#endif
