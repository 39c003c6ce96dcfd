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
    /* The magic: no magic has a zero byte, so a size-less image (text
     * ending at its NUL) is read no further than that NUL. */
    uint32_t magic = 0;
    unsigned char m[4] = {0};
    for (size_t i = 0; i < 4 && (size ? i < size : i == 0 || m[i - 1]); i++)
        m[i] = p[i];
    if (size == 0 || size >= 4)
        memcpy(&magic, m, 4);
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

/* A decimal number at *s (advanced past it), saturating at VERSION_CAP so
 * that `.version 2147483648.0` cannot overflow; -1 if there is none. */
enum { VERSION_CAP = 100000 };
static int read_number(const char **s)
{
    if (!isdigit((unsigned char)**s))
        return -1;
    int v = 0;
    for (; isdigit((unsigned char)**s); (*s)++)
        v = v >= VERSION_CAP ? VERSION_CAP : v * 10 + (**s - '0');
    return v;
}

/* "major.minor" as 10 * major + minor (both saturated), -1 if malformed. */
static int read_version(const char *s, int *ma, int *mi)
{
    if ((*ma = read_number(&s)) < 0 || *s++ != '.' || (*mi = read_number(&s)) < 0)
        return -1;
    return *ma * 10 + (*mi > 9 ? 9 : *mi);
}

/* "sm_NN" as NN, and the letter after it (0 if none); -1 if malformed. */
static int read_target(const char *s, char *suffix)
{
    if (strncmp(s, "sm_", 3))
        return -1;
    s += 3;
    int sm = read_number(&s);
    *suffix = sm >= 0 && isalpha((unsigned char)*s) ? *s : 0;
    return sm;
}

int cu_ptx_directive_version(const char *ptx, size_t len, const char *which)
{
    directive d;
    int ma, mi;
    char suffix;
    if (!find_directive(ptx, len, which, &d))
        return 0;
    int v = !strcmp(which, ".target") ? read_target(d.arg, &suffix) : read_version(d.arg, &ma, &mi);
    return v < 0 ? 0 : v;
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
    if (find_directive(ptx, len, ".version", &d) && read_version(d.arg, &ma, &mi) > 90) {
        *why = printf_alloc("%s:%d:%d: error: PTX ISA %d.%d is newer than this driver's 9.0\n",
                            name, d.line, d.col, ma, mi);
        return CUDA_ERROR_UNSUPPORTED_PTX_VERSION;
    }
    char suffix = 0;
    int sm = find_directive(ptx, len, ".target", &d) ? read_target(d.arg, &suffix) : -1;
    if (sm < 0)
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
