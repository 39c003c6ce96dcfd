/* ocl_peer.c - the OpenCL peer of bench_kernels on a CPU device (pocl). */
#define _POSIX_C_SOURCE 200809L
#define CL_TARGET_OPENCL_VERSION 120
#include "ocl_peer.h"

#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MAX_ARGS = 16 };

struct ocl_peer {
    cl_context ctx;
    cl_device_id dev;
    cl_command_queue q;
    cl_program prog;
    cl_uint units;
    char name[256];
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static bool failed(cl_int rc, const char *what, char *err, size_t errlen)
{
    if (rc == CL_SUCCESS)
        return false;
    snprintf(err, errlen, "%s failed: OpenCL error %d", what, (int)rc);
    return true;
}

/* The first platform with a CPU device; its "platform / device" name. */
static bool find_cpu(cl_platform_id *plat, cl_device_id *dev, char *why, size_t whylen)
{
    cl_platform_id ps[16];
    cl_uint n = 0;
    if (clGetPlatformIDs(16, ps, &n) != CL_SUCCESS || n == 0) {
        snprintf(why, whylen, "no OpenCL platform (is pocl-opencl-icd installed?)");
        return false;
    }
    for (cl_uint i = 0; i < n && i < 16; i++)
        if (clGetDeviceIDs(ps[i], CL_DEVICE_TYPE_CPU, 1, dev, NULL) == CL_SUCCESS) {
            *plat = ps[i];
            return true;
        }
    snprintf(why, whylen, "no OpenCL CPU device among %u platform(s)", (unsigned)n);
    return false;
}

/* pocl reads its settings when the ICD loader first loads it: the thread
 * count, and no kernel cache so that every build is a real compile. */
static void configure_pocl(unsigned threads)
{
    char buf[32];
    if (threads) {
        snprintf(buf, sizeof buf, "%u", threads);
        setenv("POCL_MAX_PTHREAD_COUNT", buf, 1);
    }
    setenv("POCL_KERNEL_CACHE", "0", 1);
}

ocl_peer *ocl_peer_open(unsigned threads, char *why, size_t whylen)
{
    configure_pocl(threads);
    cl_platform_id plat;
    ocl_peer *p = calloc(1, sizeof *p);
    if (!p || !find_cpu(&plat, &p->dev, why, whylen)) {
        free(p);
        return NULL;
    }
    cl_int rc;
    p->ctx = clCreateContext(NULL, 1, &p->dev, NULL, NULL, &rc);
    if (!failed(rc, "clCreateContext", why, whylen))
        p->q = clCreateCommandQueue(p->ctx, p->dev, 0, &rc);
    if (failed(rc, "clCreateCommandQueue", why, whylen)) {
        ocl_peer_close(p);
        return NULL;
    }
    char pn[120] = "", dn[120] = "";
    clGetPlatformInfo(plat, CL_PLATFORM_VERSION, sizeof pn, pn, NULL);
    clGetDeviceInfo(p->dev, CL_DEVICE_NAME, sizeof dn, dn, NULL);
    clGetDeviceInfo(p->dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof p->units, &p->units, NULL);
    snprintf(p->name, sizeof p->name, "%s / %s", pn, dn);
    return p;
}

void ocl_peer_close(ocl_peer *p)
{
    if (!p)
        return;
    if (p->prog)
        clReleaseProgram(p->prog);
    if (p->q)
        clReleaseCommandQueue(p->q);
    if (p->ctx)
        clReleaseContext(p->ctx);
    free(p);
}

const char *ocl_peer_name(const ocl_peer *p) { return p->name; }
unsigned ocl_peer_units(const ocl_peer *p) { return p->units; }

double ocl_peer_build(ocl_peer *p, const char *src, char *err, size_t errlen)
{
    if (p->prog)
        clReleaseProgram(p->prog);
    cl_int rc;
    double t = now();
    p->prog = clCreateProgramWithSource(p->ctx, 1, &src, NULL, &rc);
    if (failed(rc, "clCreateProgramWithSource", err, errlen))
        return -1;
    rc = clBuildProgram(p->prog, 1, &p->dev, "", NULL, NULL);
    t = now() - t;
    if (rc != CL_SUCCESS) {
        size_t n = snprintf(err, errlen, "clBuildProgram failed (%d):\n", (int)rc);
        if (n < errlen)
            clGetProgramBuildInfo(p->prog, p->dev, CL_PROGRAM_BUILD_LOG, errlen - n, err + n, NULL);
        return -1;
    }
    return t;
}

/* Buffers for the job's buffer arguments, set as kernel arguments. */
static bool set_args(ocl_peer *p, cl_kernel k, const ocl_job *job, cl_mem *mem, char *err,
                     size_t errlen)
{
    for (unsigned i = 0; i < job->nargs; i++) {
        const ocl_arg *a = &job->args[i];
        cl_int rc = CL_SUCCESS;
        if (a->buffer) {
            mem[i] = clCreateBuffer(p->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, a->size,
                                    (void *)a->value, &rc);
            if (failed(rc, "clCreateBuffer", err, errlen))
                return false;
            rc = clSetKernelArg(k, i, sizeof mem[i], &mem[i]);
        } else {
            rc = clSetKernelArg(k, i, a->size, a->value);
        }
        if (failed(rc, "clSetKernelArg", err, errlen))
            return false;
    }
    return true;
}

/* One enqueue of the job to completion; its seconds, or a negative value. */
static double run_once(ocl_peer *p, cl_kernel k, const ocl_job *job, char *err, size_t errlen)
{
    double t = now();
    cl_int rc = clEnqueueNDRangeKernel(p->q, k, job->dims, NULL, job->global, job->local, 0,
                                       NULL, NULL);
    if (rc == CL_SUCCESS)
        rc = clFinish(p->q);
    t = now() - t;
    return failed(rc, "clEnqueueNDRangeKernel", err, errlen) ? -1 : t;
}

static bool time_runs(ocl_peer *p, cl_kernel k, const ocl_job *job, ocl_times *t, char *err,
                      size_t errlen)
{
    t->first = t->best = 1e30;
    for (unsigned r = 0; r < job->warmup + job->runs; r++) {
        double s = run_once(p, k, job, err, errlen);
        if (s < 0)
            return false;
        if (r == 0)
            t->first = s;
        if (r >= job->warmup && s < t->best)
            t->best = s;
    }
    return true;
}

static bool read_back(ocl_peer *p, const ocl_job *job, const cl_mem *mem, char *err,
                      size_t errlen)
{
    for (unsigned i = 0; i < job->nargs; i++) {
        const ocl_arg *a = &job->args[i];
        if (a->buffer && a->out &&
            failed(clEnqueueReadBuffer(p->q, mem[i], CL_TRUE, 0, a->size, a->out, 0, NULL, NULL),
                   "clEnqueueReadBuffer", err, errlen))
            return false;
    }
    return true;
}

bool ocl_peer_time(ocl_peer *p, const ocl_job *job, ocl_times *t, char *err, size_t errlen)
{
    if (!p->prog || job->nargs > MAX_ARGS || job->warmup == 0) {
        snprintf(err, errlen, "ocl_peer_time: no program, too many arguments or no warm-up");
        return false;
    }
    cl_int rc;
    cl_kernel k = clCreateKernel(p->prog, job->kernel, &rc);
    if (failed(rc, job->kernel, err, errlen))
        return false;
    cl_mem mem[MAX_ARGS] = {0};
    bool ok = set_args(p, k, job, mem, err, errlen) && time_runs(p, k, job, t, err, errlen) &&
              read_back(p, job, mem, err, errlen);
    for (unsigned i = 0; i < job->nargs; i++)
        if (mem[i])
            clReleaseMemObject(mem[i]);
    clReleaseKernel(k);
    return ok;
}
