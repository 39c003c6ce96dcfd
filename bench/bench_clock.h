/* bench_clock.h - the one clock every bench measurement reads, and the
 * pause between measurements. */
#ifndef BENCH_CLOCK_H
#define BENCH_CLOCK_H

#include <time.h>

/* Seconds on the monotonic clock. */
static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Waits until the threads of the peer that ran last have stopped spinning
 * for more work (libgomp spins for some 4 ms of CPU after a parallel
 * region, ptxjit's pool for 100 us): on a machine with as many cores as
 * threads, a spinning thread takes a core from whatever runs next. */
static inline void bench_quiesce(void)
{
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
}

#endif
