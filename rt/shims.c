/* shims.c - runtime entry points called from generated code (see
 * PTXJIT_RT_ENTRY_POINTS in ptxjit/abi.h): printf, trap, assert, clocks,
 * device heap. */
#include "fault.h"
#include "heap.h"
#include "launch.h"
#include "printf.h"
#include "shims.h"

#include <stdlib.h>
#include <time.h>

/* Returns what CUDA's printf returns: the number of arguments, or < 0. */
int32_t ptxjit_rt_vprintf(ptxjit_cta *cta, uint32_t thread, const char *fmt, const void *args)
{
    if (!fmt)
        return -1;
    rt_strbuf sb = {0};
    size_t bytes;
    int n = rt_printf_format(&sb, fmt, args, SIZE_MAX);
    if (n >= 0)
        rt_shim_printf_record(cta, thread, sb.s ? sb.s : "", sb.len);
    rt_strbuf_free(&sb);
    return n < 0 ? -2 : rt_printf_arg_layout(fmt, &bytes);
}

void ptxjit_rt_trap(ptxjit_cta *cta, uint32_t line)
{
    (void)cta;
    rt_fault_raise(RT_ERR_TRAP, "trap instruction executed (PTX line %u)", line);
}

/* Code compiled for barriers every warp reaches together
 * (lower_resume.c, barriers_uniform) found warps of a CTA apart: the
 * analysis was wrong, so stop rather than complete a barrier early. */
void ptxjit_rt_barrier_diverged(ptxjit_cta *cta, uint32_t line)
{
    (void)cta;
    rt_fault_raise(RT_ERR_TRAP, "internal error: the warps of a block reached different barriers in code "
                                "compiled for barriers all warps reach together (PTX line %u)",
                   line);
}

/* A bulk copy or reduction whose addresses or size are not multiples of
 * 16 bytes: the hardware raises a misaligned-address error. */
void ptxjit_rt_bulk_misaligned(ptxjit_cta *cta, uint32_t line)
{
    (void)cta;
    rt_fault_raise(RT_ERR_MISALIGNED, "misaligned address: bulk copy address or size not a multiple "
                                      "of 16 bytes (PTX line %u)", line);
}

/* A load, store or atomic whose address is not a multiple of its size. */
void ptxjit_rt_misaligned(ptxjit_cta *cta, uint32_t line, uint64_t addr, uint32_t align)
{
    (void)cta;
    rt_fault_raise(RT_ERR_MISALIGNED, "misaligned address 0x%llx for a %u-byte access (PTX line %u)",
                   (unsigned long long)addr, align, line);
}

/* A failed device assert: the line a GPU prints (through the printf
 * stream, so in order with the kernel's printf output), then the fault. */
void ptxjit_rt_assertfail(ptxjit_cta *cta, uint32_t thread, const char *msg, const char *file,
                          uint32_t line, const char *func)
{
    const uint32_t *ntid = cta->launch->ntid;
    uint32_t tx = thread % ntid[0], ty = thread / ntid[0] % ntid[1], tz = thread / ntid[0] / ntid[1], id[3];
    rt_cta_index(cta, id);
    char text[1024];
    int n = snprintf(text, sizeof text,
                     "%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.\n",
                     file ? file : "?", line, func ? func : "?", id[0], id[1], id[2], tx, ty, tz,
                     msg ? msg : "?");
    size_t len = n < 0 ? 0 : (size_t)n < sizeof text ? (size_t)n : sizeof text - 1;
    rt_shim_printf_record(cta, thread, text, len);
    text[len && text[len - 1] == '\n' ? len - 1 : len] = '\0';
    rt_fault_raise(RT_ERR_ASSERT, "%s", text);
}

uint64_t ptxjit_rt_clock64(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t ptxjit_rt_globaltimer(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The launch's heap (heap.h): NULL when it is used up, as on a GPU. */
void *ptxjit_rt_malloc(uint64_t size) { return rt_heap_malloc(rt_heap_current(), size); }
void ptxjit_rt_free(void *p) { rt_heap_free(rt_heap_current(), p); }

const rt_symbol *rt_entry_points(size_t *n)
{
    static const rt_symbol syms[] = {
#define X(name, ret, params) {#name, (void *)name},
        PTXJIT_RT_ENTRY_POINTS(X)
#undef X
    };
    *n = sizeof syms / sizeof syms[0];
    return syms;
}
