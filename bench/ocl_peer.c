/* ocl_peer.c - the OpenCL peer of bench_kernels on a CPU device (pocl). */
#define _POSIX_C_SOURCE 200809L
#define CL_TARGET_OPENCL_VERSION 120
#include "ocl_peer.h"
#include "bench_clock.h"

#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_ARGS = 16 };

struct ocl_peer {
    cl_context ctx;
    cl_device_id dev;
    cl_command_queue q;
    cl_program prog;
    cl_uint units;
    char name[256];
};

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
    double t = bench_now();
    p->prog = clCreateProgramWithSource(p->ctx, 1, &src, NULL, &rc);
    if (failed(rc, "clCreateProgramWithSource", err, errlen))
        return -1;
    rc = clBuildProgram(p->prog, 1, &p->dev, "", NULL, NULL);
    t = bench_now() - t;
    if (rc != CL_SUCCESS) {
        size_t n = snprintf(err, errlen, "clBuildProgram failed (%d):\n", (int)rc);
        if (n < errlen)
            clGetProgramBuildInfo(p->prog, p->dev, CL_PROGRAM_BUILD_LOG, errlen - n, err + n, NULL);
        return -1;
    }
    return t;
}

struct ocl_task {
    ocl_peer *peer;
    cl_kernel kernel;
    unsigned dims, nargs;
    size_t global[3], local[3];
    cl_mem mem[MAX_ARGS];   /* NULL for scalar arguments */
    size_t size[MAX_ARGS];
    void *out[MAX_ARGS];    /* where ocl_task_read puts a buffer, or NULL */
};

/* Buffers for the job's buffer arguments, set as kernel arguments. */
static bool set_args(ocl_task *t, const ocl_job *job, char *err, size_t errlen)
{
    for (unsigned i = 0; i < job->nargs; i++) {
        const ocl_arg *a = &job->args[i];
        cl_int rc = CL_SUCCESS;
        t->size[i] = a->size, t->out[i] = a->out;
        if (a->buffer) {
            t->mem[i] = clCreateBuffer(t->peer->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                       a->size, (void *)a->value, &rc);
            if (failed(rc, "clCreateBuffer", err, errlen))
                return false;
            rc = clSetKernelArg(t->kernel, i, sizeof t->mem[i], &t->mem[i]);
        } else {
            rc = clSetKernelArg(t->kernel, i, a->size, a->value);
        }
        if (failed(rc, "clSetKernelArg", err, errlen))
            return false;
    }
    return true;
}

ocl_task *ocl_task_create(ocl_peer *p, const ocl_job *job, char *err, size_t errlen)
{
    if (!p->prog || job->nargs > MAX_ARGS || job->dims < 1 || job->dims > 3) {
        snprintf(err, errlen, "ocl_task_create: no program, too many arguments or bad dims");
        return NULL;
    }
    ocl_task *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    t->peer = p, t->dims = job->dims, t->nargs = job->nargs;
    memcpy(t->global, job->global, sizeof t->global);
    memcpy(t->local, job->local, sizeof t->local);
    cl_int rc;
    t->kernel = clCreateKernel(p->prog, job->kernel, &rc);
    if (failed(rc, job->kernel, err, errlen) || !set_args(t, job, err, errlen)) {
        ocl_task_destroy(t);
        return NULL;
    }
    return t;
}

double ocl_task_run(ocl_task *t, char *err, size_t errlen)
{
    double s = bench_now();
    cl_int rc = clEnqueueNDRangeKernel(t->peer->q, t->kernel, t->dims, NULL, t->global,
                                       t->local, 0, NULL, NULL);
    if (rc == CL_SUCCESS)
        rc = clFinish(t->peer->q);
    s = bench_now() - s;
    return failed(rc, "clEnqueueNDRangeKernel", err, errlen) ? -1 : s;
}

bool ocl_task_read(ocl_task *t, char *err, size_t errlen)
{
    for (unsigned i = 0; i < t->nargs; i++)
        if (t->mem[i] && t->out[i] &&
            failed(clEnqueueReadBuffer(t->peer->q, t->mem[i], CL_TRUE, 0, t->size[i], t->out[i],
                                       0, NULL, NULL),
                   "clEnqueueReadBuffer", err, errlen))
            return false;
    return true;
}

void ocl_task_destroy(ocl_task *t)
{
    if (!t)
        return;
    for (unsigned i = 0; i < t->nargs; i++)
        if (t->mem[i])
            clReleaseMemObject(t->mem[i]);
    if (t->kernel)
        clReleaseKernel(t->kernel);
    free(t);
}
