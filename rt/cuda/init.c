/* init.c - cuInit, the driver version, and the one CPU device's
 * configuration: compute capability ($PTXJIT_CC, default 8.0), SM count
 * (the JIT engine's worker threads), memory, clock, name and UUID. */
#include "cu_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static CUresult init_result = CUDA_ERROR_NOT_INITIALIZED;
static _Atomic bool initialized;
static cu_device_cfg cfg;
static ptxjit_ctx *engine;

double cu_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

unsigned long long cu_next_id(void)
{
    static _Atomic unsigned long long next = 1;
    return atomic_fetch_add(&next, 1);
}

/* "9.0", "90", "sm_90", "compute_90" -> 9, 0; false if unrecognised. */
static bool parse_cc(const char *s, int *major, int *minor)
{
    if (!strncmp(s, "sm_", 3))
        s += 3;
    else if (!strncmp(s, "compute_", 8))
        s += 8;
    int ma = 0, mi = 0;
    char dot = 0, rest = 0;
    if (sscanf(s, "%d%c%d%c", &ma, &dot, &mi, &rest) == 3 && dot == '.') {
        /* major.minor */
    } else if (sscanf(s, "%d%c", &ma, &rest) == 1 && ma >= 10) {
        mi = ma % 10;
        ma /= 10;
    } else {
        return false;
    }
    if (ma < 1 || ma > 99 || mi < 0 || mi > 9)
        return false;
    *major = ma;
    *minor = mi;
    return true;
}

static void read_cpu_model(char *out, size_t len)
{
    snprintf(out, len, "x86-64");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (colon && !strncmp(line, "model name", 10)) {
            colon++;
            while (isspace((unsigned char)*colon))
                colon++;
            colon[strcspn(colon, "\n")] = '\0';
            snprintf(out, len, "%s", colon);
            break;
        }
    }
    fclose(f);
}

static int read_clock_khz(void)
{
    FILE *f = fopen("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "r");
    long khz = 0;
    if (f) {
        if (fscanf(f, "%ld", &khz) != 1)
            khz = 0;
        fclose(f);
    }
    if (khz <= 0 && (f = fopen("/proc/cpuinfo", "r"))) {
        char line[512];
        double mhz;
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "cpu MHz : %lf", &mhz) == 1) {
                khz = (long)(mhz * 1000);
                break;
            }
        fclose(f);
    }
    return khz > 0 && khz < 100000000 ? (int)khz : 1000000;
}

/* A stable UUID for this machine: FNV-1a of /etc/machine-id (or the
 * hostname), version 4 / variant 1 bits set like a random UUID. */
static void make_uuid(CUuuid *u)
{
    char id[256] = "ptxjit";
    FILE *f = fopen("/etc/machine-id", "r");
    if (!f || !fgets(id, sizeof id, f))
        gethostname(id, sizeof id - 1);
    if (f)
        fclose(f);
    uint64_t h[2] = {0xcbf29ce484222325ull, 0x84222325cbf29ce4ull};
    for (int k = 0; k < 2; k++)
        for (const char *p = id; *p; p++)
            h[k] = (h[k] ^ (unsigned char)*p ^ (uint64_t)k) * 0x100000001b3ull;
    memcpy(u->bytes, h, 16);
    u->bytes[6] = (char)((u->bytes[6] & 0x0f) | 0x40);
    u->bytes[8] = (char)((u->bytes[8] & 0x3f) | 0x80);
}

static void init_once(void)
{
    cfg.cc_major = 8;
    cfg.cc_minor = 0;
    const char *cc = getenv("PTXJIT_CC");
    if (cc && *cc && !parse_cc(cc, &cfg.cc_major, &cfg.cc_minor))
        fprintf(stderr, "ptxjit: ignoring PTXJIT_CC='%s' (want e.g. 9.0); using 8.0\n", cc);
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    cfg.total_mem = pages > 0 && psize > 0 ? (size_t)pages * (size_t)psize : (size_t)1 << 32;
    cfg.clock_khz = read_clock_khz();
    char model[200];
    read_cpu_model(model, sizeof model);
    snprintf(cfg.name, sizeof cfg.name, "ptxjit CPU (%s)", model);
    make_uuid(&cfg.uuid);
    char err[256];
    engine = ptxjit_create(0, err, sizeof err);
    if (!engine) {
        init_result = CUDA_ERROR_OUT_OF_MEMORY;
        return;
    }
    cfg.sm_count = (int)ptxjit_workers(engine);
    init_result = CUDA_SUCCESS;
    atomic_store(&initialized, true);
}

CUresult cuInit(unsigned int Flags)
{
    if (Flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_once(&once, init_once);
    return init_result;
}

CUresult cu_check_init(void)
{
    return atomic_load(&initialized) ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED;
}

const cu_device_cfg *cu_device(void) { return &cfg; }
ptxjit_ctx *cu_engine(void) { return engine; }

CUresult cu_check_device(CUdevice dev)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    return dev == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

/* Shared memory and residency limits of NVIDIA's parts per compute
 * capability (CUDA programming guide, "Compute Capabilities"). */
cu_arch_limits cu_arch(void)
{
    int cc = cfg.cc_major * 10 + cfg.cc_minor;
    if (cc < 80)
        return (cu_arch_limits){65536, 65536, 1024, 16};
    if (cc == 80 || cc == 87)
        return (cu_arch_limits){166912, 167936, cc == 80 ? 2048 : 1536, 32};
    if (cc < 90)
        return (cu_arch_limits){101376, 102400, 1536, cc == 89 ? 24 : 16};
    if (cc >= 120)
        return (cu_arch_limits){101376, 102400, 1536, 32};
    return (cu_arch_limits){232448, 233472, 2048, 32};
}

CUresult cuDriverGetVersion(int *driverVersion)
{
    if (!driverVersion)
        return CUDA_ERROR_INVALID_VALUE;
    *driverVersion = cu_abi12() ? 12090 : CUDA_VERSION;
    return CUDA_SUCCESS;
}

CUresult cuProfilerStart(void) { return cu_check_init(); }
CUresult cuProfilerStop(void) { return cu_check_init(); }
