/* ocl_peer.h - the OpenCL peer of bench_kernels: builds OpenCL C kernels and
 * times them on pocl's CPU device (any CPU OpenCL device will do).  Optional:
 * built from ocl_peer.c when CMake finds OpenCL, else from ocl_peer_none.c,
 * whose ocl_peer_open says why there is no peer. */
#ifndef BENCH_OCL_PEER_H
#define BENCH_OCL_PEER_H

#include <stdbool.h>
#include <stddef.h>

typedef struct ocl_peer ocl_peer;

/* A kernel argument: a scalar (buffer false: size bytes at value) or a
 * buffer initialized from size bytes at value; a buffer with out non-NULL
 * is read back into out (size bytes) after the timed runs. */
typedef struct ocl_arg {
    bool buffer;
    size_t size;
    const void *value;
    void *out;
} ocl_arg;

/* One kernel to time: warmup untimed enqueues, then runs timed ones. */
typedef struct ocl_job {
    const char *kernel;
    unsigned dims;
    size_t global[3], local[3];
    const ocl_arg *args;
    unsigned nargs;
    unsigned warmup, runs;
} ocl_job;

/* Seconds: build = clBuildProgram of the source; first = the first enqueue
 * to completion (pocl compiles the work-group function for the local size
 * there); best = the fastest timed run (enqueue to clFinish). */
typedef struct ocl_times {
    double first, best;
} ocl_times;

/* Opens the first CPU device with threads compute units (0: the
 * implementation's default; set before the implementation starts, through
 * POCL_MAX_PTHREAD_COUNT).  NULL with the reason in why when there is none. */
ocl_peer *ocl_peer_open(unsigned threads, char *why, size_t whylen);
void ocl_peer_close(ocl_peer *p);
/* "platform / device" and the compute units the device reports. */
const char *ocl_peer_name(const ocl_peer *p);
unsigned ocl_peer_units(const ocl_peer *p);
/* Compiles the OpenCL C source (replacing the previous program); returns
 * the build time in seconds, or a negative value with the log in err. */
double ocl_peer_build(ocl_peer *p, const char *src, char *err, size_t errlen);
/* Runs the job on the built program; false with the reason in err. */
bool ocl_peer_time(ocl_peer *p, const ocl_job *job, ocl_times *t, char *err, size_t errlen);

#endif
