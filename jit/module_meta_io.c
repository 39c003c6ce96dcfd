/* module_meta_io.c - module metadata and an object file as one byte
 * string (what a cache entry holds), and back.  A module's entry holds
 * all its kernels and variables and the object of its variables; a
 * kernel's entry holds that kernel alone (its symbol in the object) and
 * its object.  Compact, versioned, and every read is bounds-checked: a
 * payload that passed the cache's checksum is still not trusted to be
 * well-formed.
 *
 *   u32 version (MM_VERSION), u32 nkernels, u32 nglobals
 *   kernel:  str name, str symbol, u32 nparams, param x nparams,
 *            u32 param_bytes static_smem dyn_smem_align reqntid[3] maxntid[3]
 *                minnctapersm maxnreg, u8 uses_barriers, u32 frame_size
 *   param:   str name, str type, u32 vec, u64 count, u32 offset size align,
 *            u32 ndims, u64 dims[ndims]
 *   global:  str name, str symbol, u64 size, u8 flags (1: .const, 2: .managed)
 *   u64 object size, the object's bytes (to the end)
 *
 * Integers little-endian; str = u32 length + bytes without NUL. */
#include "module_meta.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MM_VERSION 4 /* 2: kernels compiled one by one, variables apart; 3: frame_size;
                      * 4: managed variables */

/* ---- writing ---- */

typedef struct wbuf {
    unsigned char *p;
    size_t n, cap;
    bool oom;
} wbuf;

static void put(wbuf *w, const void *data, size_t len)
{
    if (w->oom || !len) /* a module without variables has no object (NULL) */
        return;
    if (w->n + len > w->cap) {
        size_t cap = w->cap ? w->cap : 256;
        while (cap < w->n + len)
            cap *= 2;
        unsigned char *p = realloc(w->p, cap);
        if (!p) {
            w->oom = true;
            return;
        }
        w->p = p;
        w->cap = cap;
    }
    memcpy(w->p + w->n, data, len);
    w->n += len;
}

static void put_uint(wbuf *w, uint64_t v, int bytes)
{
    unsigned char b[8];
    for (int i = 0; i < bytes; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    put(w, b, (size_t)bytes);
}

#define put_u8(w, v) put_uint(w, v, 1)
#define put_u32(w, v) put_uint(w, v, 4)
#define put_u64(w, v) put_uint(w, v, 8)

static void put_str(wbuf *w, const char *s)
{
    size_t n = strlen(s);
    put_u32(w, n);
    put(w, s, n);
}

static void put_param(wbuf *w, const ptxjit_param_info *p)
{
    put_str(w, p->name);
    put_str(w, p->type);
    put_u32(w, p->vec);
    put_u64(w, p->count);
    put_u32(w, p->offset);
    put_u32(w, p->size);
    put_u32(w, p->align);
    put_u32(w, p->ndims);
    for (uint32_t d = 0; d < p->ndims; d++)
        put_u64(w, p->dims[d]);
}

static void put_kernel(wbuf *w, const mm_kernel *k)
{
    const ptxjit_kernel_info *ki = &k->info;
    put_str(w, ki->name);
    put_str(w, k->symbol);
    put_u32(w, ki->nparams);
    for (uint32_t i = 0; i < ki->nparams; i++)
        put_param(w, &ki->params[i]);
    put_u32(w, ki->param_bytes);
    put_u32(w, ki->static_smem);
    put_u32(w, ki->dyn_smem_align);
    for (int i = 0; i < 3; i++)
        put_u32(w, ki->reqntid[i]);
    for (int i = 0; i < 3; i++)
        put_u32(w, ki->maxntid[i]);
    put_u32(w, ki->minnctapersm);
    put_u32(w, ki->maxnreg);
    put_u8(w, ki->uses_barriers);
    put_u32(w, ki->frame_size);
}

int module_meta_pack(const module_meta *mm, const void *obj, size_t objsize, void **out,
                     size_t *outlen)
{
    wbuf w = {0};
    put_u32(&w, MM_VERSION);
    put_u32(&w, mm->nkernels);
    put_u32(&w, mm->nglobals);
    for (uint32_t i = 0; i < mm->nkernels; i++)
        put_kernel(&w, &mm->kernels[i]);
    for (uint32_t i = 0; i < mm->nglobals; i++) {
        const mm_global *g = &mm->globals[i];
        put_str(&w, g->name);
        put_str(&w, g->symbol);
        put_u64(&w, g->size);
        put_u8(&w, (uint8_t)(g->is_const | g->managed << 1));
    }
    put_u64(&w, objsize);
    put(&w, obj, objsize);
    if (w.oom) {
        free(w.p);
        return -1;
    }
    *out = w.p;
    *outlen = w.n;
    return 0;
}

/* ---- reading ---- */

typedef struct rbuf {
    const unsigned char *p, *end;
    char *why;
    size_t whylen;
    bool bad;       /* the first problem is in why; later reads yield zeros */
} rbuf;

static void fail(rbuf *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(rbuf *r, const char *fmt, ...)
{
    if (r->bad)
        return;
    r->bad = true;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->why, r->whylen, fmt, ap);
    va_end(ap);
}

static const unsigned char *take(rbuf *r, size_t n, const char *what)
{
    if (r->bad)
        return NULL;
    if ((size_t)(r->end - r->p) < n) {
        fail(r, "metadata truncated in %s", what);
        return NULL;
    }
    const unsigned char *p = r->p;
    r->p += n;
    return p;
}

static uint64_t get_uint(rbuf *r, int bytes, const char *what)
{
    const unsigned char *p = take(r, (size_t)bytes, what);
    uint64_t v = 0;
    for (int i = bytes - 1; p && i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

#define get_u8(r, what) ((uint8_t)get_uint(r, 1, what))
#define get_u32(r, what) ((uint32_t)get_uint(r, 4, what))
#define get_u64(r, what) get_uint(r, 8, what)

/* A malloc'd copy of a str; NULL (and r->bad) on any problem. */
static char *get_str(rbuf *r, const char *what)
{
    uint32_t n = get_u32(r, what);
    const unsigned char *p = take(r, n, what);
    if (!p)
        return NULL;
    if (memchr(p, 0, n)) {
        fail(r, "NUL byte in %s", what);
        return NULL;
    }
    char *s = malloc((size_t)n + 1);
    if (!s) {
        fail(r, "out of memory");
        return NULL;
    }
    memcpy(s, p, n);
    s[n] = 0;
    return s;
}

/* n records of at least `least` bytes each must fit in what is left:
 * a corrupt count cannot make us allocate gigabytes. */
static void *get_array(rbuf *r, uint32_t n, size_t least, size_t elem, const char *what)
{
    if (r->bad)
        return NULL;
    if ((uint64_t)n * least > (uint64_t)(r->end - r->p)) {
        fail(r, "metadata claims %u %s, more than it holds", n, what);
        return NULL;
    }
    void *v = calloc(n ? n : 1, elem);
    if (!v)
        fail(r, "out of memory");
    return v;
}

static bool pow2(uint32_t x) { return x && !(x & (x - 1)); }

static void get_param(rbuf *r, const ptxjit_kernel_info *ki, ptxjit_param_info *p)
{
    p->name = get_str(r, "a parameter name");
    p->type = get_str(r, "a parameter type");
    p->vec = get_u32(r, "a parameter");
    p->count = get_u64(r, "a parameter");
    p->offset = get_u32(r, "a parameter");
    p->size = get_u32(r, "a parameter");
    p->align = get_u32(r, "a parameter");
    p->ndims = get_u32(r, "a parameter");
    if (!r->bad && p->ndims > PTXJIT_MAX_DIMS)
        fail(r, "parameter '%s' of '%s' has %u dimensions", p->name, ki->name, p->ndims);
    for (uint32_t d = 0; !r->bad && d < p->ndims; d++)
        p->dims[d] = get_u64(r, "a parameter");
    if (!r->bad && (p->vec > 8 || !pow2(p->align) || p->offset % p->align))
        fail(r, "parameter '%s' of '%s' has a bad layout", p->name, ki->name);
}

static void get_kernel(rbuf *r, mm_kernel *k)
{
    ptxjit_kernel_info *ki = &k->info;
    ki->name = get_str(r, "a kernel name");
    k->symbol = get_str(r, "a kernel symbol");
    uint32_t n = get_u32(r, "a kernel");
    ptxjit_param_info *params = get_array(r, n, 36, sizeof *params, "parameters");
    ki->params = params;
    for (uint32_t i = 0; !r->bad && i < n; i++, ki->nparams++)
        get_param(r, ki, &params[i]);
    ki->param_bytes = get_u32(r, "a kernel");
    ki->static_smem = get_u32(r, "a kernel");
    ki->dyn_smem_align = get_u32(r, "a kernel");
    for (int i = 0; i < 3; i++)
        ki->reqntid[i] = get_u32(r, "a kernel");
    for (int i = 0; i < 3; i++)
        ki->maxntid[i] = get_u32(r, "a kernel");
    ki->minnctapersm = get_u32(r, "a kernel");
    ki->maxnreg = get_u32(r, "a kernel");
    ki->uses_barriers = get_u8(r, "a kernel") != 0;
    ki->frame_size = get_u32(r, "a kernel");
    for (uint32_t i = 0; !r->bad && i < ki->nparams; i++)
        if ((uint64_t)params[i].offset + params[i].size > ki->param_bytes)
            fail(r, "parameter '%s' of '%s' lies outside its %u-byte buffer", params[i].name,
                 ki->name, ki->param_bytes);
}

static void get_global(rbuf *r, mm_global *g)
{
    g->name = get_str(r, "a variable name");
    g->symbol = get_str(r, "a variable symbol");
    g->size = get_u64(r, "a variable");
    uint8_t flags = get_u8(r, "a variable");
    g->is_const = flags & 1;
    g->managed = (flags & 2) != 0;
}

int module_meta_unpack(const void *buf, size_t len, module_meta *mm, const void **obj,
                       size_t *objsize, char *why, size_t whylen)
{
    rbuf r = {buf, (const unsigned char *)buf + len, why, whylen, false};
    memset(mm, 0, sizeof *mm);
    uint32_t version = get_u32(&r, "the header");
    if (!r.bad && version != MM_VERSION)
        fail(&r, "metadata version %u, this ptxjit reads %d", version, MM_VERSION);
    uint32_t nk = get_u32(&r, "the header"), ng = get_u32(&r, "the header");
    mm->kernels = get_array(&r, nk, 57, sizeof *mm->kernels, "kernels");
    for (uint32_t i = 0; !r.bad && i < nk; i++, mm->nkernels++)
        get_kernel(&r, &mm->kernels[i]);
    mm->globals = get_array(&r, ng, 17, sizeof *mm->globals, "variables");
    for (uint32_t i = 0; !r.bad && i < ng; i++, mm->nglobals++)
        get_global(&r, &mm->globals[i]);
    uint64_t n = get_u64(&r, "the object size");
    if (!r.bad && n != (uint64_t)(r.end - r.p))
        fail(&r, "object of %llu bytes where %zu remain", (unsigned long long)n,
             (size_t)(r.end - r.p));
    if (r.bad) {
        module_meta_free(mm);
        return -1;
    }
    *obj = r.p;
    *objsize = (size_t)n;
    return 0;
}
