/* pool.h - the worker pool that runs a grid's CTAs.
 *
 * A launch is one rt_pool_parallel_for over the grid's CTAs: the index
 * range is cut into chunks that workers claim one at a time from a shared
 * counter, so uneven CTAs balance themselves.  The calling thread takes part
 * in its own launch; pool threads are workers 1..size-1 and take chunks of
 * whichever launch is running (the oldest first).  Launches from several
 * threads run at the same time, sharing the pool threads.
 *
 * Worker indices are exclusive (at most one thread runs as a given index at
 * a time), so a caller can keep per-worker state - shared-memory windows,
 * fiber stacks - in an array of rt_pool_slots() entries indexed by `worker`
 * without locks.  A launching thread runs as worker 0 when no other launch
 * holds it, else as one of the caller indices size .. slots-1.
 *
 * Idle workers spin briefly and then sleep on a futex, so back-to-back
 * launches cost microseconds and an idle pool costs no CPU. */
#ifndef RT_POOL_H
#define RT_POOL_H

#include <stdint.h>

typedef struct rt_pool rt_pool;

/* Largest pool; larger requests (argument or environment) are clamped. */
#define RT_POOL_MAX_THREADS 1024u

/* Creates a pool of nthreads workers, the caller's slot included, so
 * nthreads - 1 threads are started.  nthreads 0 means $PTXJIT_THREADS when
 * it is a positive decimal integer, else the number of online CPUs.  Pool
 * threads block every signal except the synchronous fault signals (SIGSEGV,
 * SIGBUS, SIGFPE, SIGILL, SIGTRAP), which fault containment handles on the
 * faulting thread.  They run in the default floating-point mode (round to
 * nearest, no FTZ/DAZ; rt/fpenv.h), not the creating thread's.  Returns
 * NULL if memory or threads cannot be had. */
rt_pool *rt_pool_create(unsigned nthreads);

/* Stops and joins the workers and frees the pool.  No parallel_for may be
 * running.  NULL is ignored. */
void rt_pool_destroy(rt_pool *p);

/* Number of workers, including the calling thread's slot (worker 0). */
unsigned rt_pool_size(const rt_pool *p);

/* Launches that can run at once; a further one waits for a free index. */
#define RT_POOL_CALLERS 64u

/* Number of distinct worker indices: size - 1 pool threads plus
 * RT_POOL_CALLERS launching threads. */
unsigned rt_pool_slots(const rt_pool *p);

/* Runs items [begin, end) as worker `worker` (0 <= worker < slots).  A
 * nonzero return stops the launch (see rt_pool_parallel_for). */
typedef int (*rt_pool_fn)(void *ctx, unsigned worker, uint64_t begin, uint64_t end);

/* Calls fn over [0, n) in chunks of `chunk` items (the last may be short);
 * chunk 0 picks about n / (8 * size), at least 1.  Returns when every
 * started chunk has finished: 0 if all chunks ran, else the first nonzero
 * value an fn returned; after that no further chunks start (chunks already
 * claimed by other workers finish).  n 0 returns 0 without calling fn.
 *
 * Calls from different threads run concurrently.  fn must not call
 * rt_pool_parallel_for on the same pool (a worker would wait for work it
 * holds up). */
int rt_pool_parallel_for(rt_pool *p, uint64_t n, uint64_t chunk, rt_pool_fn fn, void *ctx);

#endif
