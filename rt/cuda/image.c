/* image.c - what a module image holds: PTX text (used as is), an ELF cubin
 * (GPU machine code only: CUDA_ERROR_NO_BINARY_FOR_GPU), a fat binary or
 * the wrapper nvcc embeds (the PTX inside, see fatbin.h), or garbage
 * (CUDA_ERROR_INVALID_IMAGE); and the checks NVIDIA's JIT makes on the
 * PTX header (.version, .target against the device). */
#define _GNU_SOURCE
#include "cu_internal.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Text: printable characters and whitespace up to the NUL (or size). */
static bool is_text(const unsigned char *p, size_t size, size_t *len)
{
    size_t n = 0;
    while ((size == 0 || n < size) && p[n]) {
        if (!isprint(p[n]) && !isspace(p[n]))
            return false;
        n++;
    }
    *len = n;
    return n > 0;
}

CUresult cu_image_ptx(const void *image, size_t size, char **ptx, size_t *len, char **why)
{
    const unsigned char *p = image;
    *ptx = NULL;
    *why = NULL;
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    uint32_t magic = 0;
    if (size == 0 || size >= 4)
        memcpy(&magic, p, 4);
    if (!memcmp(&magic, "\x7f" "ELF", 4)) {
        *why = strdup("the image is a cubin (GPU machine code only); ptxjit needs PTX");
        return CUDA_ERROR_NO_BINARY_FOR_GPU;
    }
    if (magic == 0xBA55ED50u || magic == 0x466243B1u)
        return cu_fatbin_ptx(image, size, ptx, len, why);
    size_t n;
    if (!is_text(p, size, &n)) {
        *why = strdup("the image is neither PTX text, a fat binary nor a cubin");
        return CUDA_ERROR_INVALID_IMAGE;
    }
    *ptx = malloc(n + 1);
    if (!*ptx)
        return CUDA_ERROR_OUT_OF_MEMORY;
    memcpy(*ptx, p, n);
    (*ptx)[n] = '\0';
    *len = n;
    return CUDA_SUCCESS;
}

/* ---- header checks ---------------------------------------------------------------------- */

typedef struct directive {
    const char *arg; /* first character after the directive and blanks */
    int line, col;
} directive;

/* Finds the first occurrence of directive d (".version", ".target")
 * outside comments. */
static bool find_directive(const char *s, size_t len, const char *d, directive *out)
{
    size_t dl = strlen(d);
    int line = 1, col = 1;
    for (size_t i = 0; i < len; i++, col++) {
        if (s[i] == '\n') {
            line++;
            col = 0;
        } else if (s[i] == '/' && i + 1 < len && s[i + 1] == '/') {
            while (i + 1 < len && s[i + 1] != '\n')
                i++;
        } else if (s[i] == '/' && i + 1 < len && s[i + 1] == '*') {
            for (i += 2; i + 1 < len && !(s[i] == '*' && s[i + 1] == '/'); i++)
                if (s[i] == '\n')
                    line++, col = 0;
            i++;
        } else if (i + dl < len && !strncmp(s + i, d, dl) && isspace((unsigned char)s[i + dl])) {
            size_t j = i + dl;
            while (j < len && (s[j] == ' ' || s[j] == '\t'))
                j++;
            *out = (directive){s + j, line, col};
            return true;
        }
    }
    return false;
}

int cu_ptx_directive_version(const char *ptx, size_t len, const char *which)
{
    directive d;
    int ma = 0, mi = 0;
    if (!find_directive(ptx, len, which, &d))
        return 0;
    if (!strcmp(which, ".target"))
        return sscanf(d.arg, "sm_%d", &ma) == 1 ? ma : 0;
    return sscanf(d.arg, "%d.%d", &ma, &mi) == 2 ? ma * 10 + mi : 0;
}

static char *printf_alloc(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *printf_alloc(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0)
        s = NULL;
    va_end(ap);
    return s;
}

/* NVIDIA's JIT refuses a .target newer than the device (and an
 * architecture-specific one other than the device's), and a PTX ISA newer
 * than the driver's (9.0 for CUDA 13.0). */
CUresult cu_ptx_check_header(const char *ptx, size_t len, const char *name, char **why)
{
    directive d;
    *why = NULL;
    int ma, mi;
    if (find_directive(ptx, len, ".version", &d) && sscanf(d.arg, "%d.%d", &ma, &mi) == 2 &&
        ma * 10 + mi > 90) {
        *why = printf_alloc("%s:%d:%d: error: PTX ISA %d.%d is newer than this driver's 9.0\n",
                            name, d.line, d.col, ma, mi);
        return CUDA_ERROR_UNSUPPORTED_PTX_VERSION;
    }
    int sm;
    char suffix = 0;
    if (!find_directive(ptx, len, ".target", &d) || sscanf(d.arg, "sm_%d%c", &sm, &suffix) < 1)
        return CUDA_SUCCESS;
    const cu_device_cfg *dev = cu_device();
    int cc = dev->cc_major * 10 + dev->cc_minor;
    bool ok = sm <= cc;
    if (suffix == 'a')
        ok = sm == cc;
    else if (suffix == 'f')
        ok = sm <= cc && sm / 10 == cc / 10;
    if (ok)
        return CUDA_SUCCESS;
    *why = printf_alloc("%s:%d:%d: error: .target sm_%d%s needs a device of compute capability "
                        "%d.%d, this one is %d.%d (set PTXJIT_CC=%d.%d)\n",
                        name, d.line, d.col, sm, suffix == 'a' ? "a" : suffix == 'f' ? "f" : "",
                        sm / 10, sm % 10, dev->cc_major, dev->cc_minor, sm / 10, sm % 10);
    return CUDA_ERROR_INVALID_PTX;
}
