/* jit_options.c - the CU_JIT_* options of module loads, library loads and
 * the linker: log buffers and wall time are honoured (written back through
 * the option values as NVIDIA's driver does); options that steer NVIDIA's
 * code generator are accepted and have no effect. */
#include "cu_internal.h"

#include <stdio.h>
#include <string.h>

CUresult cu_jit_opts_parse(unsigned n, const CUjit_option *opts, void **vals, cu_jit_opts *out)
{
    *out = (cu_jit_opts){.wall_time_slot = -1, .info_slot = -1, .error_slot = -1};
    if (n && (!opts || !vals))
        return CUDA_ERROR_INVALID_VALUE;
    for (unsigned i = 0; i < n; i++) {
        uintptr_t v = (uintptr_t)vals[i];
        switch (opts[i]) {
        case CU_JIT_WALL_TIME: out->wall_time_slot = (int)i; break;
        case CU_JIT_INFO_LOG_BUFFER: out->info_log = vals[i]; break;
        case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES:
            out->info_size = (unsigned)v;
            out->info_slot = (int)i;
            break;
        case CU_JIT_ERROR_LOG_BUFFER: out->error_log = vals[i]; break;
        case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES:
            out->error_size = (unsigned)v;
            out->error_slot = (int)i;
            break;
        case CU_JIT_LOG_VERBOSE: out->verbose = v != 0; break;
        case CU_JIT_OPTIMIZATION_LEVEL:
            if ((unsigned)v > 4)
                return CUDA_ERROR_INVALID_VALUE;
            break;
        case CU_JIT_TARGET: {
            unsigned t = (unsigned)v & 0xffff;
            if (t < 30 || t > 121)
                return CUDA_ERROR_INVALID_VALUE;
            break;
        }
        case CU_JIT_FALLBACK_STRATEGY:
            if ((unsigned)v > CU_PREFER_BINARY)
                return CUDA_ERROR_INVALID_VALUE;
            break;
        default:
            if ((unsigned)opts[i] >= CU_JIT_NUM_OPTIONS)
                return CUDA_ERROR_INVALID_VALUE;
            break; /* accepted, no effect */
        }
    }
    return CUDA_SUCCESS;
}

/* Copies text into a caller's buffer (truncated, NUL-terminated) and
 * returns the bytes written, NUL excluded. */
static size_t fill(char *buf, size_t size, const char *text)
{
    if (!buf || !size)
        return 0;
    snprintf(buf, size, "%s", text ? text : "");
    return strlen(buf);
}

void cu_jit_opts_finish(const cu_jit_opts *o, void **vals, const char *info, const char *error,
                        float wall_ms)
{
    if (!vals)
        return;
    size_t ni = fill(o->info_log, o->info_size, info);
    size_t ne = fill(o->error_log, o->error_size, error);
    if (o->info_slot >= 0)
        vals[o->info_slot] = (void *)(uintptr_t)ni;
    if (o->error_slot >= 0)
        vals[o->error_slot] = (void *)(uintptr_t)ne;
    if (o->wall_time_slot >= 0) {
        /* the float travels in the low bytes of the value slot */
        void *slot = NULL;
        memcpy(&slot, &wall_ms, sizeof wall_ms);
        vals[o->wall_time_slot] = slot;
    }
}
