/* printf.h - CUDA device-side printf (vprintf) for the runtime.
 *
 * nvcc compiles a kernel's printf(fmt, a, b, ...) to vprintf(fmt, argbuf):
 * argbuf holds the arguments after the default promotions (char, short and
 * bool become int; float becomes double), each at the next offset aligned to
 * its own size, from offset 0.  Sizes follow from the format string alone:
 *
 *   %d %i %u %o %x %X                  4 bytes; 8 with l ll L q z Z j t
 *                                      (h and hh: 4 bytes, printed truncated)
 *   %c %lc %C                          4 bytes
 *   %f %F %e %E %g %G %a %A            8 bytes (double; l and L ignored)
 *   %s %ls %S %p %n                    8 bytes (a 64-bit generic address)
 *   '*' width or precision             4 bytes (int), before the value
 *
 * A NULL argbuf is fine when the format has no conversions.
 *
 * Output follows the host's (glibc's) printf, with these decisions:
 *   - %f/%e/%g/%a are rendered by the host snprintf (correctly rounded);
 *     integers, %c, %s and %p are rendered here, bit-for-bit as glibc does
 *     (%p of a null pointer is "(nil)"; "+" and " " apply to %p).
 *   - %s of a null pointer prints "(null)" (empty if the precision is below 6,
 *     as glibc does).  A precision bounds how many bytes of the string are
 *     read, so an unterminated string with a precision is safe.
 *   - %lc/%ls (and %C/%S): 32-bit wide characters; ASCII is printed as is,
 *     anything else as '?'.
 *   - %n is not supported by CUDA: it consumes its pointer slot, writes
 *     nothing anywhere and prints nothing.
 *   - Width and precision (literal or from '*') are clamped to
 *     RT_PRINTF_MAX_FIELD so that "%999999999d" cannot allocate without
 *     bound; a %s precision is not clamped (it only limits reading).
 *     A negative '*' width means '-' plus its magnitude; a negative '*'
 *     precision means none, as in C.
 *   - As on CUDA, at most RT_PRINTF_MAX_ARGS arguments (each '*' counts) are
 *     used per call; a conversion beyond that is printed as it stands.
 *   - An unknown conversion ("%y", "%5k") or an incomplete one at the end of
 *     the format ("%", "%-5") is printed as it stands and consumes nothing.
 *     Positional arguments ("%1$d") are not supported (printed as they stand).
 *   - The ' (grouping) and I flags are accepted and ignored (the C locale has
 *     no grouping).
 */
#ifndef PTXJIT_RT_PRINTF_H
#define PTXJIT_RT_PRINTF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define RT_PRINTF_MAX_ARGS 32
#define RT_PRINTF_MAX_FIELD 4096
#define RT_PRINTF_DEFAULT_LIMIT ((size_t)1 << 20)

/* Growable string.  Zero-initialised is empty; whenever s is non-NULL it is
 * NUL-terminated at s[len] (text may also contain NULs, e.g. from %c). */
typedef struct rt_strbuf {
    char *s;
    size_t len, cap;
} rt_strbuf;

#define RT_STRBUF_INIT {NULL, 0, 0}

/* Appends n bytes; 0 on success, -1 when out of memory (nothing appended). */
int rt_strbuf_append(rt_strbuf *b, const char *s, size_t n);
/* Empties the buffer, keeping its memory. */
void rt_strbuf_clear(rt_strbuf *b);
/* Frees the memory; the buffer is empty (and reusable) afterwards. */
void rt_strbuf_free(rt_strbuf *b);

/* Formats fmt with the arguments in argbuf (laid out as above) and appends
 * the text to out.  argbuf_size is the number of readable bytes at argbuf,
 * SIZE_MAX if unknown (a device call: trust the format); bytes past it are
 * never read.  Returns the number of bytes appended (saturated at INT_MAX),
 * or -1 - with nothing appended - if the format needs more argument bytes
 * than argbuf_size, if out or fmt is NULL, or if memory runs out. */
int rt_printf_format(rt_strbuf *out, const char *fmt, const void *argbuf, size_t argbuf_size);

/* The argument layout that fmt implies: returns the number of arguments
 * consumed (what CUDA's printf returns; at most RT_PRINTF_MAX_ARGS) and, if
 * args_size is not NULL, stores the bytes of argbuf they span.  -1 if fmt is
 * NULL. */
int rt_printf_arg_layout(const char *fmt, size_t *args_size);

/* ---- Ordered collection of the lines printed by a launch ----
 *
 * Workers add records concurrently; a flush writes them sorted by
 * (cta_linear, thread_in_cta, seq) - and, for equal keys, by text - so the
 * output does not depend on which worker ran what, or when.
 *
 * Adds take a per-worker shard lock (workers are spread over shards by a
 * thread-local index) plus one atomic add on the byte count.
 *
 * Limit: like CUDA's printf FIFO (cudaLimitPrintfFifoSize), the text bytes
 * buffered between flushes are capped (default RT_PRINTF_DEFAULT_LIMIT).
 * Records that do not fit are dropped and counted.  Which ones are dropped
 * is deterministic too: the log keeps exactly the longest prefix, in flush
 * order, of the records added that fits in the cap (once the cap is reached
 * it evicts later-sorting records to make room for earlier-sorting ones), so
 * the output and the drop count do not depend on scheduling - provided the
 * limit is not changed and no flush runs during the adds.  A single record
 * longer than the whole cap is dropped on its own and does not end the
 * prefix.  Only text bytes count towards the cap (memory use is that plus
 * about 48 bytes per record); empty records are neither stored nor counted
 * as dropped. */
typedef struct rt_printf_log rt_printf_log;

/* NULL when out of memory. */
rt_printf_log *rt_printf_log_create(void);
/* Frees the log and any records not flushed (they are discarded). */
void rt_printf_log_destroy(rt_printf_log *log);

/* Thread-safe.  Stores a copy of text[0..len). */
void rt_printf_log_add(rt_printf_log *log, uint64_t cta_linear, uint32_t thread_in_cta,
                       uint32_t seq, const char *text, size_t len);

/* Formats (rt_printf_format with an unbounded argbuf) and adds the result:
 * the body of a device vprintf.  Returns what CUDA's printf returns: the
 * number of arguments parsed, -1 if fmt is NULL, -2 on an internal error
 * (out of memory).  A record dropped because of the limit is not an error. */
int rt_printf_log_vprintf(rt_printf_log *log, uint64_t cta_linear, uint32_t thread_in_cta,
                          uint32_t seq, const char *fmt, const void *argbuf);

/* Writes every record (sorted) to out and removes them; returns the bytes
 * written.  out == NULL discards the records.  May run while workers add;
 * records added meanwhile stay for the next flush.  If memory for sorting
 * cannot be had, nothing is written or removed and 0 is returned. */
size_t rt_printf_log_flush(rt_printf_log *log, FILE *out);

/* Sets the cap on buffered text bytes (0: drop everything).  Records already
 * buffered are kept even if above a lowered cap. */
void rt_printf_log_set_limit(rt_printf_log *log, size_t bytes);
size_t rt_printf_log_limit(const rt_printf_log *log);
/* Records dropped since the log was created (the cap, or out of memory). */
uint64_t rt_printf_log_dropped(const rt_printf_log *log);
/* Text bytes currently buffered. */
size_t rt_printf_log_buffered(const rt_printf_log *log);

#endif
