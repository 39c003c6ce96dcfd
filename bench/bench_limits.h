/* bench_limits.h - what the machine itself can do, measured in the same
 * run as the kernels (and interleaved with them) so that a kernel's speed
 * can be given as a fraction of it: STREAM-like bandwidth over a given
 * working set (the bandwidth a kernel moving that much data
 * can see: a large L3 holds more than DRAM-sized sets would suggest), the
 * peak rate of fused multiply-adds, and the cost of an empty OpenMP
 * parallel for.  All on OpenMP's threads. */
#ifndef BENCH_LIMITS_H
#define BENCH_LIMITS_H

#include <stddef.h>

/* A working set of stream arrays, first touched by the threads that use
 * them. */
typedef struct stream_probe stream_probe;

/* The loops: STREAM's copy (b = a, two arrays of half the set) and triad
 * (a = b + s * c, three arrays of a third), STREAM2's daxpy (b = b + s * a,
 * two halves; in single precision, the access pattern of saxpy). */
enum { STREAM_COPY, STREAM_TRIAD, STREAM_AXPY, STREAM_LOOPS };
extern const char *const stream_loop_names[STREAM_LOOPS];

/* NULL when working_set bytes cannot be allocated. */
stream_probe *stream_probe_create(size_t working_set);
void stream_probe_destroy(stream_probe *s);
size_t stream_probe_working_set(const stream_probe *s);
/* One run of each loop: bw[loop] becomes its bytes moved per second where
 * that is more than it holds.  Bytes moved count the read for ownership
 * of a line that is written without being read (x86 without streaming
 * stores reads it first): copy moves 12 bytes per element, triad 16, axpy
 * 12.  The kernels' bytes are counted the same way. */
void stream_probe_run(stream_probe *s, double bw[STREAM_LOOPS]);

/* FLOP/s of one run of independent FMA chains in vector registers, on all
 * the threads (some 5 ms on two cores of 2 x 16-wide FMAs per cycle). */
double fma_peak_run(void);

/* Seconds per empty parallel for (one iteration per thread), the mean of
 * reps of them. */
double omp_empty_run(int reps);

#endif
