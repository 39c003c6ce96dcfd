/* run_args.c - the argument and buffer layer of `ptxjit run`; see run_args.h. */
#include "run_args.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "half.h"

/* ---- small helpers ---- */

__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static char *dupstr(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}

static void put_le(void *dst, uint64_t v, size_t n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(dst, &v, n);
#else
    unsigned char *d = dst;
    for (size_t i = 0; i < n; i++)
        d[i] = (unsigned char)(v >> (8 * i));
#endif
}

static uint64_t get_le(const void *src, size_t n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t v = 0;
    memcpy(&v, src, n);
    return v;
#else
    const unsigned char *s = src;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v |= (uint64_t)s[i] << (8 * i);
    return v;
#endif
}

static uint64_t f32_bits(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

static uint64_t f64_bits(double d)
{
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}

/* ---- types ---- */

static const struct {
    const char *name;
    uint8_t size;
    char cls; /* 'u', 's', 'f' */
} types[RUNARGS_TYPE_COUNT] = {
    [RUNARGS_U8] = {"u8", 1, 'u'},    [RUNARGS_S8] = {"s8", 1, 's'},
    [RUNARGS_U16] = {"u16", 2, 'u'},  [RUNARGS_S16] = {"s16", 2, 's'},
    [RUNARGS_U32] = {"u32", 4, 'u'},  [RUNARGS_S32] = {"s32", 4, 's'},
    [RUNARGS_U64] = {"u64", 8, 'u'},  [RUNARGS_S64] = {"s64", 8, 's'},
    [RUNARGS_F16] = {"f16", 2, 'f'},  [RUNARGS_BF16] = {"bf16", 2, 'f'},
    [RUNARGS_F32] = {"f32", 4, 'f'},  [RUNARGS_F64] = {"f64", 8, 'f'},
};

static bool type_valid(runargs_type t) { return (unsigned)t < RUNARGS_TYPE_COUNT; }

const char *runargs_type_name(runargs_type t) { return type_valid(t) ? types[t].name : "?"; }
size_t runargs_type_size(runargs_type t) { return type_valid(t) ? types[t].size : 0; }

bool runargs_type_lookup(const char *s, size_t n, runargs_type *out)
{
    for (int t = 0; t < RUNARGS_TYPE_COUNT; t++)
        if (strlen(types[t].name) == n && memcmp(types[t].name, s, n) == 0) {
            *out = (runargs_type)t;
            return true;
        }
    return false;
}

static uint64_t width_mask(size_t bytes)
{
    return bytes >= 8 ? UINT64_MAX : (UINT64_C(1) << (8 * bytes)) - 1;
}

/* ---- numbers ---- */

/* Parses an unsigned magnitude from s[0..len): decimal digits, or 0x/0X and
 * hex digits (only when allow_hex).  Returns 0, or 1 when malformed, 2 when
 * well-formed but above UINT64_MAX. */
static int parse_mag(const char *s, size_t len, bool allow_hex, uint64_t *mag, bool *hex)
{
    uint64_t v = 0;
    unsigned base = 10;
    if (allow_hex && len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
        len -= 2;
    }
    if (hex)
        *hex = base == 16;
    if (len == 0)
        return 1;
    bool over = false;
    for (size_t i = 0; i < len; i++) {
        unsigned d;
        char c = s[i];
        if (c >= '0' && c <= '9')
            d = (unsigned)(c - '0');
        else if (base == 16 && c >= 'a' && c <= 'f')
            d = (unsigned)(c - 'a' + 10);
        else if (base == 16 && c >= 'A' && c <= 'F')
            d = (unsigned)(c - 'A' + 10);
        else
            return 1;
        if (v > (UINT64_MAX - d) / base)
            over = true;
        else
            v = v * base + d;
    }
    if (over)
        return 2;
    *mag = v;
    return 0;
}

int runargs_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out, char *err,
                      size_t errlen)
{
    uint64_t v = 0;
    int r = parse_mag(s, strlen(s), true, &v, NULL);
    if (r == 1)
        return fail(err, errlen, "'%s' is not a non-negative integer", s);
    if (r == 2 || v < min || v > max)
        return fail(err, errlen, "'%s' is out of range (%" PRIu64 " to %" PRIu64 ")", s, min, max);
    *out = v;
    return 0;
}

static int parse_int(runargs_type t, const char *s, uint64_t *bits, char *err, size_t errlen)
{
    size_t size = types[t].size;
    bool is_signed = types[t].cls == 's';
    const char *p = s;
    bool neg = false;
    if (*p == '-' || *p == '+')
        neg = *p++ == '-';
    if (neg && !is_signed)
        return fail(err, errlen, "negative value '%s' for unsigned type %s", s, types[t].name);
    uint64_t mag = 0;
    bool hex = false;
    int r = parse_mag(p, strlen(p), true, &mag, &hex);
    if (r == 1)
        return fail(err, errlen, "'%s' is not a valid %s integer", s, types[t].name);
    uint64_t umax = width_mask(size);
    uint64_t smax = umax >> 1; /* 2^(bits-1) - 1 */
    if (!is_signed) {
        if (r == 2 || mag > umax)
            return fail(err, errlen, "value '%s' is out of range for %s (0 to %" PRIu64 ")", s,
                        types[t].name, umax);
        *bits = mag;
        return 0;
    }
    bool ok;
    if (r == 2)
        ok = false;
    else if (neg)
        ok = mag <= smax + 1;
    else if (hex && p == s) /* unsigned hex: a bit pattern */
        ok = mag <= umax;
    else
        ok = mag <= smax;
    if (!ok) {
        if (hex && p == s)
            return fail(err, errlen,
                        "value '%s' is out of range for %s (-%" PRIu64 " to %" PRIu64
                        ", or 0x0 to 0x%" PRIx64 " as a bit pattern)",
                        s, types[t].name, smax + 1, smax, umax);
        return fail(err, errlen,
                    "value '%s' is out of range for %s (-%" PRIu64 " to %" PRIu64 ")", s,
                    types[t].name, smax + 1, smax);
    }
    *bits = (neg ? (uint64_t)0 - mag : mag) & umax;
    return 0;
}

static int parse_float(runargs_type t, const char *s, uint64_t *bits, char *err, size_t errlen)
{
    const char *name = types[t].name;
    if (!*s || isspace((unsigned char)*s))
        return fail(err, errlen, "'%s' is not a valid %s number", s, name);
    char *end;
    errno = 0;
    if (t == RUNARGS_F32) {
        float f = strtof(s, &end);
        if (*end)
            return fail(err, errlen, "'%s' is not a valid %s number", s, name);
        if (errno == ERANGE && isinf(f))
            return fail(err, errlen, "value '%s' is out of range for f32 (magnitude at most %.9g)",
                        s, (double)FLT_MAX);
        *bits = f32_bits(f);
        return 0;
    }
    double d = strtod(s, &end);
    if (*end)
        return fail(err, errlen, "'%s' is not a valid %s number", s, name);
    bool over = errno == ERANGE && isinf(d);
    uint64_t b = 0;
    switch (t) {
    case RUNARGS_F64:
        b = f64_bits(d);
        break;
    case RUNARGS_F16:
        b = half_f16_from_double(d);
        over = over || (!isinf(d) && (b & 0x7FFF) == 0x7C00);
        break;
    case RUNARGS_BF16:
        b = half_bf16_from_double(d);
        over = over || (!isinf(d) && (b & 0x7FFF) == 0x7F80);
        break;
    default:
        break;
    }
    if (over) {
        double max = t == RUNARGS_F64 ? DBL_MAX
                   : t == RUNARGS_F16 ? 65504.0
                                      : (double)half_bf16_to_float(0x7F7F);
        return fail(err, errlen, "value '%s' is out of range for %s (magnitude at most %.17g)", s,
                    name, max);
    }
    *bits = b;
    return 0;
}

int runargs_parse_scalar(runargs_type t, const char *value, uint64_t *bits, char *err,
                         size_t errlen)
{
    if (!type_valid(t))
        return fail(err, errlen, "invalid type");
    if (types[t].cls == 'f')
        return parse_float(t, value, bits, err, errlen);
    return parse_int(t, value, bits, err, errlen);
}

/* ---- --arg ---- */

static const char type_list[] = "u8 s8 u16 s16 u32 s32 u64 s64 f16 bf16 f32 f64";
static const char init_list[] = "zeros, fill=V, iota, rand[=SEED] or file=PATH";

int runargs_parse_arg(const char *spec, size_t index, runargs_arg *out, char *err,
                      size_t errlen)
{
    memset(out, 0, sizeof *out);
    char msg[512];
    const char *colon = strchr(spec, ':');
    const char *bracket = strchr(spec, '[');
    if (bracket && colon && bracket > colon)
        bracket = NULL;
    const char *tend = bracket ? bracket : colon ? colon : spec + strlen(spec);
    runargs_type t;
    if (tend == spec)
        return fail(err, errlen, "--arg %zu (%s): expected TYPE:VALUE or TYPE[N]:INIT", index,
                    spec);
    if (!runargs_type_lookup(spec, (size_t)(tend - spec), &t))
        return fail(err, errlen, "--arg %zu (%s): unknown type '%.*s' (types: %s)", index, spec,
                    (int)(tend - spec), spec, type_list);
    if (!colon)
        return fail(err, errlen, "--arg %zu (%s): expected %s", index, spec,
                    bracket ? "TYPE[N]:INIT" : "TYPE:VALUE");

    runargs_arg a = {0};
    a.index = index;
    a.type = t;
    const char *rest = colon + 1;

    if (!bracket) {
        if (runargs_parse_scalar(t, rest, &a.scalar, msg, sizeof msg))
            return fail(err, errlen, "--arg %zu (%s): %s", index, spec, msg);
    } else {
        /* TYPE[N]:INIT */
        const char *close = bracket + 1;
        while (close < colon && *close != ']')
            close++;
        if (close >= colon || close + 1 != colon)
            return fail(err, errlen, "--arg %zu (%s): expected TYPE[N]:INIT", index, spec);
        const char *ntext = bracket + 1;
        int nlen = (int)(close - ntext);
        uint64_t n = 0;
        int r = parse_mag(ntext, (size_t)nlen, true, &n, NULL);
        if (r == 1)
            return fail(err, errlen,
                        "--arg %zu (%s): element count '%.*s' is not a positive integer", index,
                        spec, nlen, ntext);
        if (r == 0 && n == 0)
            return fail(err, errlen, "--arg %zu (%s): element count must be positive", index, spec);
        uint64_t esz = types[t].size;
        if (r == 2 || n > RUNARGS_MAX_BUFFER_BYTES / esz)
            return fail(err, errlen,
                        "--arg %zu (%s): %s[%.*s] needs more than the limit of %" PRIu64
                        " bytes (2^40) for a buffer",
                        index, spec, types[t].name, nlen, ntext, RUNARGS_MAX_BUFFER_BYTES);
        a.is_buffer = true;
        a.count = n;
        a.bytes = (size_t)(n * esz);

        if (!strcmp(rest, "zeros")) {
            a.init = RUNARGS_INIT_ZEROS;
        } else if (!strcmp(rest, "iota")) {
            a.init = RUNARGS_INIT_IOTA;
        } else if (!strncmp(rest, "fill=", 5)) {
            a.init = RUNARGS_INIT_FILL;
            if (runargs_parse_scalar(t, rest + 5, &a.fill, msg, sizeof msg))
                return fail(err, errlen, "--arg %zu (%s): fill: %s", index, spec, msg);
        } else if (!strcmp(rest, "rand")) {
            a.init = RUNARGS_INIT_RAND;
            a.seed = RUNARGS_DEFAULT_SEED;
        } else if (!strncmp(rest, "rand=", 5)) {
            a.init = RUNARGS_INIT_RAND;
            if (runargs_parse_u64(rest + 5, 0, UINT64_MAX, &a.seed, msg, sizeof msg))
                return fail(err, errlen, "--arg %zu (%s): rand seed: %s", index, spec, msg);
        } else if (!strncmp(rest, "file=", 5)) {
            a.init = RUNARGS_INIT_FILE;
            if (!rest[5])
                return fail(err, errlen, "--arg %zu (%s): file= needs a path", index, spec);
        } else {
            return fail(err, errlen, "--arg %zu (%s): unknown buffer initializer '%s' (expected %s)",
                        index, spec, rest, init_list);
        }
    }

    a.spec = dupstr(spec);
    if (a.init == RUNARGS_INIT_FILE)
        a.path = dupstr(rest + 5);
    if (!a.spec || (a.init == RUNARGS_INIT_FILE && !a.path)) {
        runargs_free(&a);
        return fail(err, errlen, "--arg %zu (%s): out of memory", index, spec);
    }
    *out = a;
    return 0;
}

/* The mapping behind a buffer: its bytes padded to RUNARGS_BUFFER_ALIGN
 * (at least one unit, so an empty buffer is a valid pointer). */
static size_t buffer_bytes(const runargs_arg *a)
{
    size_t units = (a->bytes + RUNARGS_BUFFER_ALIGN - 1) / RUNARGS_BUFFER_ALIGN;
    return (units ? units : 1) * RUNARGS_BUFFER_ALIGN;
}

void runargs_free(runargs_arg *a)
{
    if (!a)
        return;
    free(a->spec);
    free(a->path);
    if (a->is_buffer)
        ptxjit_mem_free(a->data, buffer_bytes(a));
    memset(a, 0, sizeof *a);
}

size_t runargs_arg_param_size(const runargs_arg *a)
{
    return a->is_buffer ? 8 : runargs_type_size(a->type);
}

/* ---- buffers ---- */

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Bits of the integer i converted to type t. */
static uint64_t iota_bits(runargs_type t, uint64_t i)
{
    switch (t) {
    case RUNARGS_F16: return half_f16_from_double((double)i);
    case RUNARGS_BF16: return half_bf16_from_double((double)i);
    case RUNARGS_F32: return f32_bits((float)i);
    case RUNARGS_F64: return f64_bits((double)i);
    default: return i & width_mask(types[t].size);
    }
}

/* Bits of a random element of type t from the 64-bit draw x. */
static uint64_t rand_bits(runargs_type t, uint64_t x)
{
    switch (t) {
    case RUNARGS_F16: return half_f16_from_double((double)(x >> 53) * 0x1p-11);
    case RUNARGS_BF16: return half_bf16_from_double((double)(x >> 56) * 0x1p-8);
    case RUNARGS_F32: return f32_bits((float)(x >> 40) * 0x1p-24f);
    case RUNARGS_F64: return f64_bits((double)(x >> 11) * 0x1p-53);
    default: return x & width_mask(types[t].size);
    }
}

static int read_file(runargs_arg *a, char *err, size_t errlen)
{
    FILE *f = fopen(a->path, "rb");
    if (!f)
        return fail(err, errlen, "--arg %zu (%s): cannot read '%s': %s", a->index, a->spec,
                    a->path, strerror(errno));
    struct stat st;
    uint64_t have;
    bool more = false; /* a stream with bytes to spare: its size is unknown */
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size != a->bytes) {
        have = (uint64_t)st.st_size;
        goto mismatch;
    }
    size_t got = fread(a->data, 1, a->bytes, f);
    have = got;
    if (got == a->bytes) { /* anything left over?  One byte says so (an
                              endless input such as /dev/zero never ends) */
        char extra;
        more = fread(&extra, 1, 1, f) == 1;
        have += more;
    }
    if (ferror(f)) {
        int e = errno;
        fclose(f);
        return fail(err, errlen, "--arg %zu (%s): cannot read '%s': %s", a->index, a->spec,
                    a->path, strerror(e));
    }
    if (have != a->bytes)
        goto mismatch;
    fclose(f);
    return 0;
mismatch:
    fclose(f);
    return fail(err, errlen,
                "--arg %zu (%s): file '%s' is %s%" PRIu64 " bytes but %s[%" PRIu64 "] needs %" PRIu64
                " bytes",
                a->index, a->spec, a->path, more ? "more than " : "", more ? (uint64_t)a->bytes : have,
                types[a->type].name, a->count,
                (uint64_t)a->bytes);
}

int runargs_materialize(runargs_arg *a, char *err, size_t errlen)
{
    if (!a->is_buffer || a->data)
        return 0;
    /* Device memory of its own (guard pages, zeroed, committed on first
     * touch): a kernel overrunning the buffer faults instead of corrupting
     * the host's heap, and a huge zeros buffer costs nothing untouched. */
    void *p = ptxjit_mem_alloc(buffer_bytes(a));
    if (!p)
        return fail(err, errlen, "--arg %zu (%s): cannot allocate %zu bytes", a->index, a->spec,
                    a->bytes);
    a->data = p;
    size_t esz = types[a->type].size;
    unsigned char *d = p;
    switch (a->init) {
    case RUNARGS_INIT_ZEROS:
        break;
    case RUNARGS_INIT_FILL:
        if (a->fill != 0)
            for (uint64_t i = 0; i < a->count; i++)
                put_le(d + i * esz, a->fill, esz);
        break;
    case RUNARGS_INIT_IOTA:
        for (uint64_t i = 0; i < a->count; i++)
            put_le(d + i * esz, iota_bits(a->type, i), esz);
        break;
    case RUNARGS_INIT_RAND: {
        uint64_t state = a->seed;
        for (uint64_t i = 0; i < a->count; i++)
            put_le(d + i * esz, rand_bits(a->type, splitmix64(&state)), esz);
        break;
    }
    case RUNARGS_INIT_FILE:
        if (read_file(a, err, errlen)) {
            ptxjit_mem_free(a->data, buffer_bytes(a));
            a->data = NULL;
            return -1;
        }
        break;
    case RUNARGS_INIT_NONE:
        break;
    }
    return 0;
}

/* ---- kernel parameters ---- */

int runargs_param_layout(const ptxjit_param_info *param, uint64_t *size, uint32_t *align)
{
    if (param->size == 0)
        return -1;
    *size = param->size;
    *align = param->align;
    return 0;
}

void runargs_param_type_str(const ptxjit_param_info *param, char *buf, size_t len)
{
    if (!len)
        return;
    size_t n = 0;
    buf[0] = 0;
#define APPEND(...)                                                    \
    do {                                                               \
        if (n < len) {                                                 \
            int w_ = snprintf(buf + n, len - n, __VA_ARGS__);          \
            n += w_ > 0 ? (size_t)w_ : 0;                              \
        }                                                              \
    } while (0)
    if (param->vec)
        APPEND(".v%u", (unsigned)param->vec);
    APPEND(".%s", param->type);
    for (uint32_t i = 0; i < param->ndims && i < PTXJIT_MAX_DIMS; i++) {
        if (param->dims[i])
            APPEND("[%" PRIu64 "]", param->dims[i]);
        else
            APPEND("[]");
    }
#undef APPEND
}

static const char *param_name(const ptxjit_param_info *p) { return p->name ? p->name : "?"; }

static int check_count(const ptxjit_kernel_info *k, size_t nargs, char *err, size_t errlen)
{
    if (k->nparams == nargs)
        return 0;
    if (k->nparams == 0)
        return fail(err, errlen, "kernel '%s' takes no parameters, %zu --arg given", k->name,
                    nargs);
    /* Build the name list, truncated gracefully by fail()'s vsnprintf. */
    size_t cap = 64;
    for (uint32_t i = 0; i < k->nparams; i++)
        cap += strlen(param_name(&k->params[i])) + 2;
    char *names = malloc(cap);
    if (!names)
        return fail(err, errlen, "kernel '%s' takes %u parameters, %zu --arg given", k->name,
                    k->nparams, nargs);
    size_t off = 0;
    for (uint32_t i = 0; i < k->nparams; i++) {
        const char *nm = param_name(&k->params[i]);
        size_t l = strlen(nm);
        if (i) {
            memcpy(names + off, ", ", 2);
            off += 2;
        }
        memcpy(names + off, nm, l);
        off += l;
    }
    names[off] = 0;
    fail(err, errlen, "kernel '%s' takes %u parameter%s (%s), %zu --arg given", k->name,
         k->nparams, k->nparams == 1 ? "" : "s", names, nargs);
    free(names);
    return -1;
}

int runargs_check_kernel(const ptxjit_kernel_info *kernel, const runargs_arg *args, size_t nargs,
                         char *err, size_t errlen)
{
    if (check_count(kernel, nargs, err, errlen))
        return -1;
    for (size_t i = 0; i < nargs; i++) {
        const ptxjit_param_info *p = &kernel->params[i];
        uint64_t psize;
        uint32_t palign;
        char ty[96];
        runargs_param_type_str(p, ty, sizeof ty);
        if (runargs_param_layout(p, &psize, &palign))
            return fail(err, errlen, "parameter '%s' of kernel '%s' has %s type %s",
                        param_name(p), kernel->name, p->ndims ? "an unsized array" : "no sized",
                        ty);
        const runargs_arg *a = &args[i];
        size_t asize = runargs_arg_param_size(a);
        if (asize == psize)
            continue;
        if (a->is_buffer)
            return fail(err, errlen,
                        "--arg %zu (%s) is a buffer (an 8-byte pointer) but parameter '%s' is %s (%"
                        PRIu64 " bytes)",
                        i, a->spec, param_name(p), ty, psize);
        return fail(err, errlen, "--arg %zu (%s) is %zu bytes but parameter '%s' is %s (%" PRIu64
                    " bytes)",
                    i, a->spec, asize, param_name(p), ty, psize);
    }
    return 0;
}

int runargs_pack_params(const ptxjit_kernel_info *kernel, const runargs_arg *args, size_t nargs,
                        void **buf, size_t *size, size_t *offsets, char *err, size_t errlen)
{
    *buf = NULL;
    *size = 0;
    if (runargs_check_kernel(kernel, args, nargs, err, errlen))
        return -1;
    for (size_t i = 0; i < nargs; i++) {
        if (args[i].is_buffer && !args[i].data)
            return fail(err, errlen, "--arg %zu (%s): buffer not materialized", i, args[i].spec);
        if (offsets)
            offsets[i] = kernel->params[i].offset;
    }
    size_t total = kernel->param_bytes;
    unsigned char *b = calloc(1, total ? total : 1);
    if (!b)
        return fail(err, errlen, "cannot allocate a %zu-byte parameter block", total);
    for (size_t i = 0; i < nargs; i++) {
        const ptxjit_param_info *p = &kernel->params[i];
        if (args[i].is_buffer)
            put_le(b + p->offset, (uint64_t)(uintptr_t)args[i].data, 8);
        else
            put_le(b + p->offset, args[i].scalar, p->size);
    }
    *buf = b;
    *size = total;
    return 0;
}

/* ---- -g / -b ---- */

int runargs_parse_dim3(const char *s, runargs_dim_kind kind, uint32_t out[3], char *err,
                       size_t errlen)
{
    const char *opt = kind == RUNARGS_DIM_GRID ? "-g" : "-b";
    const char *what = kind == RUNARGS_DIM_GRID ? "grid" : "block";
    static const char axis[3] = {'x', 'y', 'z'};
    uint32_t v[3] = {1, 1, 1};
    const char *p = s;
    int n = 0;
    for (;;) {
        if (n == 3)
            return fail(err, errlen, "%s '%s': expected X[,Y[,Z]] (at most 3 dimensions)", opt,
                        s);
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        uint64_t x = 0;
        int r = parse_mag(p, len, false, &x, NULL);
        if (r == 1 || (r == 0 && x == 0))
            return fail(err, errlen, "%s '%s': %s %c must be a positive integer, got '%.*s'", opt,
                        s, what, axis[n], (int)len, p);
        uint64_t max = kind == RUNARGS_DIM_GRID && n > 0 ? RUNARGS_GRID_YZ_MAX : RUNARGS_DIM_MAX;
        if (r == 2 || x > max)
            return fail(err, errlen, "%s '%s': %s %c is %.*s, more than %" PRIu64, opt, s, what,
                        axis[n], (int)len, p, max);
        v[n++] = (uint32_t)x;
        if (!e)
            break;
        p = e + 1;
    }
    if (kind == RUNARGS_DIM_BLOCK) {
        uint64_t threads = (uint64_t)v[0] * v[1] * v[2];
        if (threads > RUNARGS_BLOCK_THREADS_MAX)
            return fail(err, errlen, "-b '%s': block of %" PRIu64 " threads, more than %d", s,
                        threads, RUNARGS_BLOCK_THREADS_MAX);
    }
    memcpy(out, v, sizeof v);
    return 0;
}

/* ---- --out / --print ---- */

static int parse_index(const char *opt, const char *s, size_t len, size_t *out, char *err,
                       size_t errlen)
{
    uint64_t v = 0;
    int r = parse_mag(s, len, false, &v, NULL);
    if (r == 1)
        return fail(err, errlen, "%s '%s': argument index '%.*s' is not a non-negative integer",
                    opt, s, (int)len, s);
    if (r == 2 || v > SIZE_MAX)
        return fail(err, errlen, "%s '%s': argument index '%.*s' is too large", opt, s, (int)len,
                    s);
    *out = (size_t)v;
    return 0;
}

int runargs_parse_out(const char *s, runargs_out *out, char *err, size_t errlen)
{
    const char *eq = strchr(s, '=');
    if (!eq)
        return fail(err, errlen, "--out '%s': expected N=PATH", s);
    if (!eq[1])
        return fail(err, errlen, "--out '%s': empty PATH", s);
    runargs_out o;
    if (parse_index("--out", s, (size_t)(eq - s), &o.index, err, errlen))
        return -1;
    o.path = eq + 1;
    *out = o;
    return 0;
}

int runargs_parse_print(const char *s, runargs_print *out, char *err, size_t errlen)
{
    const char *colon = strchr(s, ':');
    runargs_print o = {0, 0};
    size_t len = colon ? (size_t)(colon - s) : strlen(s);
    if (parse_index("--print", s, len, &o.index, err, errlen))
        return -1;
    if (colon) {
        char msg[256];
        if (runargs_parse_u64(colon + 1, 1, UINT64_MAX, &o.count, msg, sizeof msg))
            return fail(err, errlen, "--print '%s': COUNT %s", s, msg);
    }
    *out = o;
    return 0;
}

int runargs_check_ref(const char *opt, size_t index, const runargs_arg *args, size_t nargs,
                      char *err, size_t errlen)
{
    if (index >= nargs)
        return fail(err, errlen, "%s %zu: there is no --arg %zu (%zu --arg given)", opt, index,
                    index, nargs);
    if (!args[index].is_buffer)
        return fail(err, errlen, "%s %zu: --arg %zu (%s) is a scalar, not a buffer", opt, index,
                    index, args[index].spec);
    return 0;
}

int runargs_format_elem(char *buf, size_t len, runargs_type t, const void *elem)
{
    size_t esz = runargs_type_size(t);
    uint64_t b = esz ? get_le(elem, esz) : 0;
    switch (t) {
    case RUNARGS_U8: case RUNARGS_U16: case RUNARGS_U32: case RUNARGS_U64:
        return snprintf(buf, len, "%" PRIu64, b);
    case RUNARGS_S8: return snprintf(buf, len, "%d", (int)(int8_t)(uint8_t)b);
    case RUNARGS_S16: return snprintf(buf, len, "%d", (int)(int16_t)(uint16_t)b);
    case RUNARGS_S32: return snprintf(buf, len, "%" PRId32, (int32_t)(uint32_t)b);
    case RUNARGS_S64: return snprintf(buf, len, "%" PRId64, (int64_t)b);
    case RUNARGS_F16: return snprintf(buf, len, "%.5g", (double)half_f16_to_float((uint16_t)b));
    case RUNARGS_BF16: return snprintf(buf, len, "%.4g", (double)half_bf16_to_float((uint16_t)b));
    case RUNARGS_F32: {
        float f;
        uint32_t u = (uint32_t)b;
        memcpy(&f, &u, sizeof f);
        return snprintf(buf, len, "%.9g", (double)f);
    }
    case RUNARGS_F64: {
        double d;
        memcpy(&d, &b, sizeof d);
        return snprintf(buf, len, "%.17g", d);
    }
    default:
        return snprintf(buf, len, "?");
    }
}

int runargs_print_buffer(FILE *f, const runargs_arg *a, uint64_t count)
{
    if (!a->is_buffer || !a->data)
        return -1;
    bool all = count == 0 || count >= a->count;
    if (all)
        count = a->count;
    size_t esz = types[a->type].size;
    const unsigned char *d = a->data;
    char tmp[64];
    int width = 1;
    for (uint64_t i = 0; i < count; i++) {
        int w = runargs_format_elem(tmp, sizeof tmp, a->type, d + i * esz);
        if (w > width)
            width = w;
    }
    int iwidth = snprintf(tmp, sizeof tmp, "%" PRIu64, (count - 1) / 8 * 8);
    if (all)
        fprintf(f, "arg %zu (%s[%" PRIu64 "]):\n", a->index, types[a->type].name, a->count);
    else
        fprintf(f, "arg %zu (%s[%" PRIu64 "]), first %" PRIu64 ":\n", a->index,
                types[a->type].name, a->count, count);
    for (uint64_t i = 0; i < count; i++) {
        if (i % 8 == 0)
            fprintf(f, "%*" PRIu64 ":", iwidth, i);
        runargs_format_elem(tmp, sizeof tmp, a->type, d + i * esz);
        fprintf(f, " %*s", width, tmp);
        if (i % 8 == 7 || i + 1 == count)
            fputc('\n', f);
    }
    return 0;
}

int runargs_write_buffer(const runargs_arg *a, const char *path, char *err, size_t errlen)
{
    if (!a->is_buffer || !a->data)
        return fail(err, errlen, "cannot write '%s': --arg %zu (%s) is not a materialized buffer",
                    path, a->index, a->spec ? a->spec : "?");
    FILE *f = fopen(path, "wb");
    if (!f)
        return fail(err, errlen, "cannot write '%s': %s", path, strerror(errno));
    size_t put = fwrite(a->data, 1, a->bytes, f);
    int e = errno;
    if (put != a->bytes) {
        fclose(f);
        return fail(err, errlen, "cannot write '%s': %s", path, strerror(e));
    }
    if (fclose(f) != 0)
        return fail(err, errlen, "cannot write '%s': %s", path, strerror(errno));
    return 0;
}
