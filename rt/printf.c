/* printf.c - CUDA device-side printf: the formatter that walks a format
 * string over a vprintf argument buffer, and the log that collects the
 * lines of a launch from many workers and writes them in a deterministic
 * order.  See printf.h for the layout rules and the decisions taken. */
#include "printf.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Growable string                                                          */

static int sb_reserve(rt_strbuf *b, size_t extra)
{
    if (extra > SIZE_MAX - 1 - b->len)
        return -1;
    size_t need = b->len + extra + 1;
    if (need <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    char *s = realloc(b->s, cap);
    if (!s)
        return -1;
    b->s = s;
    b->cap = cap;
    return 0;
}

int rt_strbuf_append(rt_strbuf *b, const char *s, size_t n)
{
    if (n == 0)
        return 0;
    if (sb_reserve(b, n))
        return -1;
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
    return 0;
}

static int sb_fill(rt_strbuf *b, char c, size_t n)
{
    if (n == 0)
        return 0;
    if (sb_reserve(b, n))
        return -1;
    memset(b->s + b->len, c, n);
    b->len += n;
    b->s[b->len] = '\0';
    return 0;
}

void rt_strbuf_clear(rt_strbuf *b)
{
    b->len = 0;
    if (b->s)
        b->s[0] = '\0';
}

void rt_strbuf_free(rt_strbuf *b)
{
    free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
}

/* ------------------------------------------------------------------------ */
/* Formatter                                                                */

enum { F_MINUS = 1, F_PLUS = 2, F_SPACE = 4, F_HASH = 8, F_ZERO = 16 };
enum { LEN_NONE, LEN_HH, LEN_H, LEN_L, LEN_LL, LEN_BIGL, LEN_Q, LEN_J, LEN_Z, LEN_T };

typedef struct spec {
    unsigned flags;
    int width;      /* -1: none; else 0..RT_PRINTF_MAX_FIELD */
    int prec;       /* -1: none; else >= 0 (clamped where it sizes output) */
    bool width_star, prec_star;
    int len;        /* LEN_* */
    char conv;      /* '\0' if the format ended inside the spec */
} spec;

typedef struct fmt_state {
    rt_strbuf *out;            /* NULL: layout only, nothing read or written */
    const unsigned char *args;
    size_t size;               /* readable bytes at args */
    size_t off;                /* next free offset in the argument buffer */
    int nargs;
    bool short_args, oom;
} fmt_state;

static void emit(fmt_state *st, const char *s, size_t n)
{
    if (st->out && !st->oom && rt_strbuf_append(st->out, s, n))
        st->oom = true;
}

static void emit_fill(fmt_state *st, char c, size_t n)
{
    if (st->out && !st->oom && sb_fill(st->out, c, n))
        st->oom = true;
}

/* Takes the next n-byte (n = 4 or 8) argument, aligned to n.  In layout-only
 * mode the offset advances and *dst is zeroed. */
static bool take(fmt_state *st, size_t n, void *dst)
{
    size_t o = (st->off + n - 1) & ~(n - 1);
    if (o > st->size || n > st->size - o) {
        st->short_args = true;
        return false;
    }
    if (st->args)
        memcpy(dst, st->args + o, n);
    else
        memset(dst, 0, n);
    st->off = o + n;
    return true;
}

static int clamp_field(int v)
{
    return v > RT_PRINTF_MAX_FIELD ? RT_PRINTF_MAX_FIELD : v;
}

/* Parses the spec after '%'; returns the position after it (after the
 * conversion character, or at the terminating NUL). */
static const char *parse_spec(const char *p, spec *sp)
{
    memset(sp, 0, sizeof *sp);
    sp->width = sp->prec = -1;
    for (;; p++) {
        switch (*p) {
        case '-': sp->flags |= F_MINUS; continue;
        case '+': sp->flags |= F_PLUS; continue;
        case ' ': sp->flags |= F_SPACE; continue;
        case '#': sp->flags |= F_HASH; continue;
        case '0': sp->flags |= F_ZERO; continue;
        case '\'': case 'I': continue;
        default: break;
        }
        break;
    }
    if (*p == '*') {
        sp->width_star = true;
        p++;
    } else if (*p >= '1' && *p <= '9') {
        int w = 0;
        for (; *p >= '0' && *p <= '9'; p++) {
            int d = *p - '0';
            w = w > (INT_MAX - d) / 10 ? INT_MAX : w * 10 + d;
        }
        sp->width = clamp_field(w);
    }
    if (*p == '.') {
        p++;
        if (*p == '*') {
            sp->prec_star = true;
            p++;
        } else {
            int v = 0;
            for (; *p >= '0' && *p <= '9'; p++) {
                int d = *p - '0';
                v = v > (INT_MAX - d) / 10 ? INT_MAX : v * 10 + d;
            }
            sp->prec = v;
        }
    }
    switch (*p) {
    case 'h':
        sp->len = p[1] == 'h' ? LEN_HH : LEN_H;
        p += p[1] == 'h' ? 2 : 1;
        break;
    case 'l':
        sp->len = p[1] == 'l' ? LEN_LL : LEN_L;
        p += p[1] == 'l' ? 2 : 1;
        break;
    case 'L': sp->len = LEN_BIGL; p++; break;
    case 'q': sp->len = LEN_Q; p++; break;
    case 'j': sp->len = LEN_J; p++; break;
    case 'z': case 'Z': sp->len = LEN_Z; p++; break;
    case 't': sp->len = LEN_T; p++; break;
    default: break;
    }
    sp->conv = *p;
    return *p ? p + 1 : p;
}

static bool is_int_conv(char c)
{
    return c == 'd' || c == 'i' || c == 'u' || c == 'o' || c == 'x' || c == 'X';
}

static bool is_float_conv(char c)
{
    return strchr("fFeEgGaA", c) != NULL;
}

static bool known_conv(char c)
{
    return c && strchr("diouxXcCsSpnfFeEgGaA%", c) != NULL;
}

/* Integer-like output: [sign][prefix][zeros]digits, padded to the width. */
static void emit_number(fmt_state *st, const spec *sp, char sign, const char *prefix,
                        uint64_t mag, unsigned base, bool upper, bool octal_alt)
{
    const char *digs = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    char rev[24], buf[24];
    size_t nd = 0;
    if (!(mag == 0 && sp->prec == 0)) {
        do {
            rev[nd++] = digs[mag % base];
            mag /= base;
        } while (mag);
    }
    for (size_t i = 0; i < nd; i++)
        buf[i] = rev[nd - 1 - i];
    size_t prec = sp->prec < 0 ? 1 : (size_t)clamp_field(sp->prec);
    size_t zeros = prec > nd ? prec - nd : 0;
    if (octal_alt && zeros == 0 && (nd == 0 || buf[0] != '0'))
        zeros = 1;
    char pre[3];
    size_t npre = 0;
    if (sign)
        pre[npre++] = sign;
    for (; prefix && *prefix; prefix++)
        pre[npre++] = *prefix;
    size_t body = npre + zeros + nd;
    size_t width = sp->width < 0 ? 0 : (size_t)sp->width;
    size_t pad = width > body ? width - body : 0;
    if (sp->flags & F_MINUS) {
        emit(st, pre, npre);
        emit_fill(st, '0', zeros);
        emit(st, buf, nd);
        emit_fill(st, ' ', pad);
    } else if ((sp->flags & F_ZERO) && sp->prec < 0) {
        emit(st, pre, npre);
        emit_fill(st, '0', pad + zeros);
        emit(st, buf, nd);
    } else {
        emit_fill(st, ' ', pad);
        emit(st, pre, npre);
        emit_fill(st, '0', zeros);
        emit(st, buf, nd);
    }
}

/* Text padded with spaces to the width (the 0 flag does not apply). */
static void emit_padded(fmt_state *st, const spec *sp, const char *s, size_t n)
{
    size_t width = sp->width < 0 ? 0 : (size_t)sp->width;
    size_t pad = width > n ? width - n : 0;
    if (!(sp->flags & F_MINUS))
        emit_fill(st, ' ', pad);
    emit(st, s, n);
    if (sp->flags & F_MINUS)
        emit_fill(st, ' ', pad);
}

static char narrow(uint32_t wc)
{
    return wc < 0x80 ? (char)wc : '?';
}

/* %ls: a string of 32-bit wide characters (read bytewise: it may be
 * unaligned). */
static void emit_wide_string(fmt_state *st, const spec *sp, const unsigned char *ws)
{
    size_t n = 0;
    uint32_t wc;
    for (; sp->prec < 0 || n < (size_t)sp->prec; n++) {
        memcpy(&wc, ws + 4 * n, sizeof wc);
        if (!wc)
            break;
    }
    size_t width = sp->width < 0 ? 0 : (size_t)sp->width;
    size_t pad = width > n ? width - n : 0;
    if (!(sp->flags & F_MINUS))
        emit_fill(st, ' ', pad);
    for (size_t i = 0; i < n; i++) {
        memcpy(&wc, ws + 4 * i, sizeof wc);
        char c = narrow(wc);
        emit(st, &c, 1);
    }
    if (sp->flags & F_MINUS)
        emit_fill(st, ' ', pad);
}

static void emit_double(fmt_state *st, const spec *sp, double d)
{
    char f[12];
    int k = 0;
    f[k++] = '%';
    if (sp->flags & F_MINUS) f[k++] = '-';
    if (sp->flags & F_PLUS) f[k++] = '+';
    if (sp->flags & F_SPACE) f[k++] = ' ';
    if (sp->flags & F_HASH) f[k++] = '#';
    if (sp->flags & F_ZERO) f[k++] = '0';
    f[k++] = '*';
    f[k++] = '.';
    f[k++] = '*';
    f[k++] = sp->conv;
    f[k] = '\0';
    /* "%*.*f" with a negative precision is "no precision", as in C. */
    int w = sp->width < 0 ? 0 : sp->width;
    int p = sp->prec < 0 ? -1 : clamp_field(sp->prec);
    rt_strbuf *o = st->out;
    if (!o || st->oom)
        return;
    /* Usually one call: render into the spare room, grow only if short. */
    if (sb_reserve(o, 64)) {
        st->oom = true;
        return;
    }
    size_t room = o->cap - o->len;
    int n = snprintf(o->s + o->len, room, f, w, p, d);
    if (n < 0) { /* cannot happen for these conversions; keep the text intact */
        o->s[o->len] = '\0';
        return;
    }
    if ((size_t)n >= room) {
        if (sb_reserve(o, (size_t)n)) {
            o->s[o->len] = '\0';
            st->oom = true;
            return;
        }
        snprintf(o->s + o->len, (size_t)n + 1, f, w, p, d);
    }
    o->len += (size_t)n;
}

/* One conversion whose '*' fields are already resolved into sp. */
static bool convert(fmt_state *st, spec *sp)
{
    bool wide8 = sp->len == LEN_L || sp->len == LEN_LL || sp->len == LEN_BIGL ||
                 sp->len == LEN_Q || sp->len == LEN_J || sp->len == LEN_Z || sp->len == LEN_T;
    char c = sp->conv;
    if (is_int_conv(c)) {
        uint64_t u;
        if (wide8) {
            if (!take(st, 8, &u))
                return false;
        } else {
            uint32_t v;
            if (!take(st, 4, &v))
                return false;
            u = (c == 'd' || c == 'i') ? (uint64_t)(int64_t)(int32_t)v : v;
        }
        if (c == 'd' || c == 'i') {
            int64_t v = (int64_t)u;
            if (sp->len == LEN_H)
                v = (int16_t)v;
            else if (sp->len == LEN_HH)
                v = (int8_t)v;
            uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
            char sign = v < 0 ? '-' : (sp->flags & F_PLUS) ? '+' : (sp->flags & F_SPACE) ? ' ' : 0;
            emit_number(st, sp, sign, NULL, mag, 10, false, false);
        } else {
            if (sp->len == LEN_H)
                u = (uint16_t)u;
            else if (sp->len == LEN_HH)
                u = (uint8_t)u;
            bool alt = (sp->flags & F_HASH) != 0;
            if (c == 'u')
                emit_number(st, sp, 0, NULL, u, 10, false, false);
            else if (c == 'o')
                emit_number(st, sp, 0, NULL, u, 8, false, alt);
            else
                emit_number(st, sp, 0, alt && u ? (c == 'X' ? "0X" : "0x") : NULL, u, 16,
                            c == 'X', false);
        }
        return true;
    }
    if (is_float_conv(c)) {
        double d;
        if (!take(st, 8, &d))
            return false;
        if (st->out)
            emit_double(st, sp, d);
        return true;
    }
    switch (c) {
    case 'c':
    case 'C': {
        uint32_t v;
        if (!take(st, 4, &v))
            return false;
        char ch = (c == 'C' || sp->len == LEN_L) ? narrow(v) : (char)(unsigned char)v;
        emit_padded(st, sp, &ch, 1);
        return true;
    }
    case 's':
    case 'S': {
        uint64_t a;
        if (!take(st, 8, &a))
            return false;
        if (!st->out)
            return true;
        if (a == 0) {
            /* glibc: "(null)", or nothing if the precision cannot hold it. */
            if (sp->prec >= 0 && sp->prec < 6)
                emit_padded(st, sp, "", 0);
            else
                emit_padded(st, sp, "(null)", 6);
        } else if (c == 'S' || sp->len == LEN_L) {
            emit_wide_string(st, sp, (const unsigned char *)(uintptr_t)a);
        } else {
            const char *s = (const char *)(uintptr_t)a;
            size_t n = sp->prec >= 0 ? strnlen(s, (size_t)sp->prec) : strlen(s);
            emit_padded(st, sp, s, n);
        }
        return true;
    }
    case 'p': {
        uint64_t a;
        if (!take(st, 8, &a))
            return false;
        if (a == 0) {
            emit_padded(st, sp, "(nil)", 5);
        } else {
            char sign = (sp->flags & F_PLUS) ? '+' : (sp->flags & F_SPACE) ? ' ' : 0;
            emit_number(st, sp, sign, "0x", a, 16, false, false);
        }
        return true;
    }
    case 'n': {
        uint64_t a; /* CUDA has no %n: skip its pointer, store nothing */
        return take(st, 8, &a);
    }
    default:
        return true;
    }
}

/* The walk shared by formatting and layout-only mode. */
static void run_format(fmt_state *st, const char *fmt)
{
    const char *p = fmt;
    while (*p) {
        const char *pct = strchr(p, '%');
        if (!pct) {
            emit(st, p, strlen(p));
            return;
        }
        emit(st, p, (size_t)(pct - p));
        spec sp;
        const char *next = parse_spec(pct + 1, &sp);
        if (!sp.conv) { /* format ends inside the spec: print it as it stands */
            emit(st, pct, (size_t)(next - pct));
            return;
        }
        p = next;
        if (!known_conv(sp.conv)) {
            emit(st, pct, (size_t)(next - pct));
            continue;
        }
        if (sp.conv == '%') {
            emit(st, "%", 1);
            continue;
        }
        int need = 1 + sp.width_star + sp.prec_star;
        if (st->nargs + need > RT_PRINTF_MAX_ARGS) { /* CUDA: as it stands */
            emit(st, pct, (size_t)(next - pct));
            continue;
        }
        st->nargs += need;
        if (sp.width_star) {
            int32_t w;
            if (!take(st, 4, &w))
                return;
            if (w < 0) {
                sp.flags |= F_MINUS;
                sp.width = w == INT32_MIN ? RT_PRINTF_MAX_FIELD : clamp_field(-w);
            } else {
                sp.width = clamp_field(w);
            }
        }
        if (sp.prec_star) {
            int32_t v;
            if (!take(st, 4, &v))
                return;
            sp.prec = v < 0 ? -1 : v;
        }
        if (!convert(st, &sp))
            return;
        if (st->oom)
            return;
    }
}

int rt_printf_format(rt_strbuf *out, const char *fmt, const void *argbuf, size_t argbuf_size)
{
    if (!out || !fmt)
        return -1;
    fmt_state st = {
        .out = out,
        .args = argbuf,
        .size = argbuf ? argbuf_size : 0,
    };
    size_t start = out->len;
    run_format(&st, fmt);
    if (st.short_args || st.oom) {
        out->len = start;
        if (out->s)
            out->s[start] = '\0';
        return -1;
    }
    size_t n = out->len - start;
    return n > INT_MAX ? INT_MAX : (int)n;
}

int rt_printf_arg_layout(const char *fmt, size_t *args_size)
{
    if (!fmt)
        return -1;
    fmt_state st = {.size = SIZE_MAX};
    run_format(&st, fmt);
    if (args_size)
        *args_size = st.off;
    return st.nargs;
}

/* ------------------------------------------------------------------------ */
/* Ordered log                                                              */

typedef struct rec {
    uint64_t cta;
    uint32_t thread, seq;
    size_t len;
    char text[];
} rec;

#define NSHARDS 32

typedef struct shard {
    pthread_mutex_t mu;
    rec **v;
    size_t n, cap;
} __attribute__((aligned(64))) shard;

struct rt_printf_log {
    shard shards[NSHARDS];
    _Atomic size_t bytes;     /* text bytes buffered */
    _Atomic size_t limit;
    _Atomic uint64_t dropped;
    /* Overflow mode: entered when an add does not fit, left by a flush.  In
     * it every record lives in `heap` (a max-heap in flush order) and all
     * adds go through ovf_mu; `cutoff` is the smallest record dropped so far:
     * nothing at or after it is admitted again. */
    pthread_mutex_t ovf_mu;   /* taken before any shard lock */
    _Atomic bool overflow;    /* written with ovf_mu and all shard locks held */
    rec **heap;
    size_t hn, hcap;
    rec *cutoff;
    _Atomic uint64_t cutoff_cta; /* cutoff->cta, UINT64_MAX if none: lock-free reject */
};

static int rec_cmp(const rec *a, const rec *b)
{
    if (a->cta != b->cta)
        return a->cta < b->cta ? -1 : 1;
    if (a->thread != b->thread)
        return a->thread < b->thread ? -1 : 1;
    if (a->seq != b->seq)
        return a->seq < b->seq ? -1 : 1;
    int c = memcmp(a->text, b->text, a->len < b->len ? a->len : b->len);
    if (c)
        return c;
    return a->len < b->len ? -1 : a->len > b->len ? 1 : 0;
}

static int rec_qsort_cmp(const void *a, const void *b)
{
    return rec_cmp(*(rec *const *)a, *(rec *const *)b);
}

static bool grow(rec ***v, size_t *cap, size_t need)
{
    if (need <= *cap)
        return true;
    size_t c = *cap ? *cap : 16;
    while (c < need) {
        if (c > SIZE_MAX / 2 / sizeof(rec *))
            return false;
        c *= 2;
    }
    rec **nv = realloc(*v, c * sizeof(rec *));
    if (!nv)
        return false;
    *v = nv;
    *cap = c;
    return true;
}

static void heap_up(rec **h, size_t i)
{
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (rec_cmp(h[parent], h[i]) >= 0)
            break;
        rec *t = h[parent];
        h[parent] = h[i];
        h[i] = t;
        i = parent;
    }
}

static void heap_down(rec **h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && rec_cmp(h[l], h[m]) > 0)
            m = l;
        if (r < n && rec_cmp(h[r], h[m]) > 0)
            m = r;
        if (m == i)
            return;
        rec *t = h[m];
        h[m] = h[i];
        h[i] = t;
        i = m;
    }
}

static void drop(rt_printf_log *log, rec *r)
{
    free(r);
    atomic_fetch_add(&log->dropped, 1);
}

/* Makes r the cutoff if it sorts before the current one (else frees it). */
static void lower_cutoff(rt_printf_log *log, rec *r)
{
    if (!log->cutoff || rec_cmp(r, log->cutoff) < 0) {
        free(log->cutoff);
        log->cutoff = r;
        atomic_store(&log->cutoff_cta, r->cta);
    } else {
        free(r);
    }
    atomic_fetch_add(&log->dropped, 1);
}

/* Moves every shard's records into the heap and enters overflow mode.
 * Called with ovf_mu held. */
static bool enter_overflow(rt_printf_log *log)
{
    for (int i = 0; i < NSHARDS; i++)
        pthread_mutex_lock(&log->shards[i].mu);
    size_t total = log->hn;
    for (int i = 0; i < NSHARDS; i++)
        total += log->shards[i].n;
    bool ok = grow(&log->heap, &log->hcap, total + 1);
    if (ok) {
        for (int i = 0; i < NSHARDS; i++) {
            shard *s = &log->shards[i];
            if (s->n)
                memcpy(log->heap + log->hn, s->v, s->n * sizeof(rec *));
            log->hn += s->n;
            s->n = 0;
        }
        for (size_t i = log->hn / 2; i-- > 0;)
            heap_down(log->heap, log->hn, i);
        atomic_store(&log->overflow, true);
    }
    for (int i = NSHARDS; i-- > 0;)
        pthread_mutex_unlock(&log->shards[i].mu);
    return ok;
}

/* The add when the fast path could not take the record. */
static void add_slow(rt_printf_log *log, rec *r)
{
    pthread_mutex_lock(&log->ovf_mu);
    if (!atomic_load(&log->overflow) && !enter_overflow(log)) {
        pthread_mutex_unlock(&log->ovf_mu);
        drop(log, r); /* out of memory */
        return;
    }
    if (log->cutoff && rec_cmp(r, log->cutoff) >= 0) {
        pthread_mutex_unlock(&log->ovf_mu);
        drop(log, r);
        return;
    }
    size_t limit = atomic_load(&log->limit);
    size_t bytes = atomic_load(&log->bytes); /* stable: changed only under ovf_mu now */
    while (r->len > limit || bytes > limit - r->len) {
        if (log->hn > 0 && rec_cmp(log->heap[0], r) > 0) {
            rec *top = log->heap[0];
            log->heap[0] = log->heap[--log->hn];
            heap_down(log->heap, log->hn, 0);
            bytes -= top->len;
            atomic_fetch_sub(&log->bytes, top->len);
            lower_cutoff(log, top);
        } else {
            lower_cutoff(log, r);
            pthread_mutex_unlock(&log->ovf_mu);
            return;
        }
    }
    if (!grow(&log->heap, &log->hcap, log->hn + 1)) {
        pthread_mutex_unlock(&log->ovf_mu);
        drop(log, r);
        return;
    }
    log->heap[log->hn] = r;
    heap_up(log->heap, log->hn++);
    atomic_fetch_add(&log->bytes, r->len);
    pthread_mutex_unlock(&log->ovf_mu);
}

static atomic_uint next_shard_slot;

static shard *my_shard(rt_printf_log *log)
{
    static _Thread_local unsigned slot = UINT_MAX;
    if (slot == UINT_MAX)
        slot = atomic_fetch_add(&next_shard_slot, 1) % NSHARDS;
    return &log->shards[slot];
}

void rt_printf_log_add(rt_printf_log *log, uint64_t cta_linear, uint32_t thread_in_cta,
                       uint32_t seq, const char *text, size_t len)
{
    if (!log || len == 0 || !text)
        return;
    /* Cheap rejections: larger than the whole cap, or after the cutoff. */
    if (len > atomic_load(&log->limit) || cta_linear > atomic_load(&log->cutoff_cta)) {
        atomic_fetch_add(&log->dropped, 1);
        return;
    }
    if (len > SIZE_MAX - sizeof(rec)) {
        atomic_fetch_add(&log->dropped, 1);
        return;
    }
    rec *r = malloc(sizeof(rec) + len);
    if (!r) {
        atomic_fetch_add(&log->dropped, 1);
        return;
    }
    r->cta = cta_linear;
    r->thread = thread_in_cta;
    r->seq = seq;
    r->len = len;
    memcpy(r->text, text, len);

    shard *s = my_shard(log);
    pthread_mutex_lock(&s->mu);
    if (!atomic_load(&log->overflow)) {
        if (!grow(&s->v, &s->cap, s->n + 1)) {
            pthread_mutex_unlock(&s->mu);
            drop(log, r);
            return;
        }
        size_t limit = atomic_load(&log->limit);
        size_t cur = atomic_load(&log->bytes);
        while (len <= limit && cur <= limit - len) {
            if (atomic_compare_exchange_weak(&log->bytes, &cur, cur + len)) {
                s->v[s->n++] = r;
                pthread_mutex_unlock(&s->mu);
                return;
            }
        }
    }
    pthread_mutex_unlock(&s->mu);
    add_slow(log, r);
}

int rt_printf_log_vprintf(rt_printf_log *log, uint64_t cta_linear, uint32_t thread_in_cta,
                          uint32_t seq, const char *fmt, const void *argbuf)
{
    if (!fmt)
        return -1;
    rt_strbuf b = RT_STRBUF_INIT;
    if (rt_printf_format(&b, fmt, argbuf, SIZE_MAX) < 0) {
        rt_strbuf_free(&b);
        return -2;
    }
    rt_printf_log_add(log, cta_linear, thread_in_cta, seq, b.s, b.len);
    rt_strbuf_free(&b);
    return rt_printf_arg_layout(fmt, NULL);
}

rt_printf_log *rt_printf_log_create(void)
{
    rt_printf_log *log = aligned_alloc(64, sizeof *log);
    if (!log)
        return NULL;
    memset(log, 0, sizeof *log);
    for (int i = 0; i < NSHARDS; i++)
        pthread_mutex_init(&log->shards[i].mu, NULL);
    pthread_mutex_init(&log->ovf_mu, NULL);
    atomic_init(&log->bytes, 0);
    atomic_init(&log->limit, RT_PRINTF_DEFAULT_LIMIT);
    atomic_init(&log->dropped, 0);
    atomic_init(&log->overflow, false);
    atomic_init(&log->cutoff_cta, UINT64_MAX);
    return log;
}

void rt_printf_log_destroy(rt_printf_log *log)
{
    if (!log)
        return;
    for (int i = 0; i < NSHARDS; i++) {
        shard *s = &log->shards[i];
        for (size_t j = 0; j < s->n; j++)
            free(s->v[j]);
        free(s->v);
        pthread_mutex_destroy(&s->mu);
    }
    for (size_t j = 0; j < log->hn; j++)
        free(log->heap[j]);
    free(log->heap);
    free(log->cutoff);
    pthread_mutex_destroy(&log->ovf_mu);
    free(log);
}

size_t rt_printf_log_flush(rt_printf_log *log, FILE *out)
{
    if (!log)
        return 0;
    pthread_mutex_lock(&log->ovf_mu);
    for (int i = 0; i < NSHARDS; i++)
        pthread_mutex_lock(&log->shards[i].mu);
    size_t n = log->hn;
    for (int i = 0; i < NSHARDS; i++)
        n += log->shards[i].n;
    rec **all = n ? malloc(n * sizeof(rec *)) : NULL;
    bool ok = n == 0 || all != NULL;
    size_t k = 0, taken = 0;
    if (ok) {
        for (int i = 0; i < NSHARDS; i++) {
            shard *s = &log->shards[i];
            for (size_t j = 0; j < s->n; j++)
                all[k++] = s->v[j];
            s->n = 0;
        }
        for (size_t j = 0; j < log->hn; j++)
            all[k++] = log->heap[j];
        log->hn = 0;
        for (size_t j = 0; j < n; j++)
            taken += all[j]->len;
        atomic_fetch_sub(&log->bytes, taken);
        free(log->cutoff);
        log->cutoff = NULL;
        atomic_store(&log->cutoff_cta, UINT64_MAX);
        atomic_store(&log->overflow, false);
    }
    for (int i = NSHARDS; i-- > 0;)
        pthread_mutex_unlock(&log->shards[i].mu);
    pthread_mutex_unlock(&log->ovf_mu);
    if (!ok || n == 0)
        return 0;

    qsort(all, n, sizeof(rec *), rec_qsort_cmp);
    size_t written = 0;
    for (size_t j = 0; j < n; j++) {
        if (out)
            written += fwrite(all[j]->text, 1, all[j]->len, out);
        free(all[j]);
    }
    free(all);
    return written;
}

void rt_printf_log_set_limit(rt_printf_log *log, size_t bytes)
{
    atomic_store(&log->limit, bytes);
}

size_t rt_printf_log_limit(const rt_printf_log *log)
{
    return atomic_load(&((rt_printf_log *)log)->limit);
}

uint64_t rt_printf_log_dropped(const rt_printf_log *log)
{
    return atomic_load(&((rt_printf_log *)log)->dropped);
}

size_t rt_printf_log_buffered(const rt_printf_log *log)
{
    return atomic_load(&((rt_printf_log *)log)->bytes);
}
