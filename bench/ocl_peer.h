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
 * is read back into out (size bytes) by ocl_task_read. */
typedef struct ocl_arg {
    bool buffer;
    size_t size;
    const void *value;
    void *out;
} ocl_arg;

/* One kernel to run: its argument list and its NDRange. */
typedef struct ocl_job {
    const char *kernel;
    unsigned dims;
    size_t global[3], local[3];
    const ocl_arg *args;
    unsigned nargs;
} ocl_job;

/* A job made ready to run again and again: the kernel with its buffers
 * created and its arguments set, so a caller can interleave single runs of
 * it with other work. */
typedef struct ocl_task ocl_task;

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
/* The job as a task of the built program (buffers copied from the
 * arguments' host data now); NULL with the reason in err. */
ocl_task *ocl_task_create(ocl_peer *p, const ocl_job *job, char *err, size_t errlen);
/* One enqueue to completion (clFinish): its seconds, or a negative value
 * with the reason in err.  pocl compiles the work-group function for the
 * local size at the first run. */
double ocl_task_run(ocl_task *t, char *err, size_t errlen);
/* Reads every buffer argument with an out pointer back into it. */
bool ocl_task_read(ocl_task *t, char *err, size_t errlen);
void ocl_task_destroy(ocl_task *t);

#endif
