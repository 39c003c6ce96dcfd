/* condwait.h - condition variables on CLOCK_MONOTONIC with relative timeouts,
 * shared by signals, queues and the processor threads. */
#ifndef RT_CUDA_CONDWAIT_H
#define RT_CUDA_CONDWAIT_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>

/* Initialises cv to time out against CLOCK_MONOTONIC (wall-clock jumps do
 * not stretch or cut waits).  0 or an errno value. */
int rt_cond_init(pthread_cond_t *cv);

/* The absolute deadline timeout_ns from now (ignored for RT_WAIT_FOREVER). */
void rt_deadline(struct timespec *deadline, uint64_t timeout_ns);

/* One wait on cv: unbounded when timeout_ns is RT_WAIT_FOREVER, else until
 * the deadline.  0 (woken, maybe spuriously) or ETIMEDOUT. */
int rt_cond_wait_until(pthread_cond_t *cv, pthread_mutex_t *m, uint64_t timeout_ns,
                       const struct timespec *deadline);

#endif
