/* ocl_peer_none.c - bench_kernels built without OpenCL: no peer, and why. */
#include "ocl_peer.h"

#include <stdio.h>

ocl_peer *ocl_peer_open(unsigned threads, char *why, size_t whylen)
{
    (void)threads;
    snprintf(why, whylen, "built without OpenCL (install ocl-icd-opencl-dev opencl-headers "
                          "pocl-opencl-icd and re-run cmake)");
    return NULL;
}

void ocl_peer_close(ocl_peer *p) { (void)p; }
const char *ocl_peer_name(const ocl_peer *p) { (void)p; return ""; }
unsigned ocl_peer_units(const ocl_peer *p) { (void)p; return 0; }

double ocl_peer_build(ocl_peer *p, const char *src, char *err, size_t errlen)
{
    (void)p, (void)src;
    snprintf(err, errlen, "no OpenCL");
    return -1;
}

ocl_task *ocl_task_create(ocl_peer *p, const ocl_job *job, char *err, size_t errlen)
{
    (void)p, (void)job;
    snprintf(err, errlen, "no OpenCL");
    return NULL;
}

double ocl_task_run(ocl_task *t, char *err, size_t errlen)
{
    (void)t;
    snprintf(err, errlen, "no OpenCL");
    return -1;
}

bool ocl_task_read(ocl_task *t, char *err, size_t errlen)
{
    (void)t;
    snprintf(err, errlen, "no OpenCL");
    return false;
}

void ocl_task_destroy(ocl_task *t) { (void)t; }
