/* fiber.c - fiber set-up, the switch wrapper, and guarded fiber stacks.
 *
 * The switch itself is rt__fiber_swap in fiber_switch.S.  This file builds
 * the initial frame a new fiber is "resumed" from, adds the AddressSanitizer
 * bookkeeping (compiled in only under ASan), and maps stacks. */
#include "fiber.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* --- AddressSanitizer support, chosen once for the whole file ----------- */

#if defined(__SANITIZE_ADDRESS__)
#define RT_FIBER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RT_FIBER_ASAN 1
#endif
#endif

#ifdef RT_FIBER_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>

/* ASan tracks which stack is current to tell stack from heap accesses and
 * to unwind; it must hear about every switch before and after it. */
static void asan_leaving(rt_fiber *from, const rt_fiber *to)
{
    __sanitizer_start_switch_fiber(&from->asan_fake_stack, to->asan_stack_bottom,
                                   to->asan_stack_size);
}

/* Called on arrival.  ASan reports the stack we came from; recording it in
 * `prev` is how a zero-initialized "main" fiber learns its own stack before
 * anything switches back to it. */
static void asan_arrived(void *fake_stack, rt_fiber *prev)
{
    const void *bottom;
    size_t size;
    __sanitizer_finish_switch_fiber(fake_stack, &bottom, &size);
    prev->asan_stack_bottom = bottom;
    prev->asan_stack_size = size;
}

/* A fiber abandoned mid-call leaves poisoned redzones on its stack; a new
 * fiber on the same stack must not inherit them. */
static void asan_unpoison(void *p, size_t n) { ASAN_UNPOISON_MEMORY_REGION(p, n); }
#else
static inline void asan_leaving(rt_fiber *from, const rt_fiber *to)
{
    (void)from;
    (void)to;
}
static inline void asan_arrived(void *fake_stack, rt_fiber *prev)
{
    (void)fake_stack;
    (void)prev;
}
static inline void asan_unpoison(void *p, size_t n)
{
    (void)p;
    (void)n;
}
#endif

/* --- the switch --------------------------------------------------------- */

/* fiber_switch.S */
rt_fiber *rt__fiber_swap(rt_fiber *from, rt_fiber *to) __attribute__((visibility("hidden")));
void rt__fiber_trampoline(void) __attribute__((visibility("hidden")));
_Noreturn void rt__fiber_start(rt_fiber *prev, void (*entry)(void *), void *arg)
    __attribute__((visibility("hidden")));

void rt_fiber_switch(rt_fiber *from, rt_fiber *to)
{
    asan_leaving(from, to);
    rt_fiber *prev = rt__fiber_swap(from, to);
    asan_arrived(from->asan_fake_stack, prev);
}

/* Reached from rt__fiber_trampoline on a fiber's first switch-in. */
_Noreturn void rt__fiber_start(rt_fiber *prev, void (*entry)(void *), void *arg)
{
    asan_arrived(NULL, prev);
    entry(arg);
    /* There is no frame to return to: the trampoline is the stack's root. */
    fputs("ptxjit: fatal: a fiber entry function returned; it must switch away "
          "when done (see rt/fiber.h)\n",
          stderr);
    abort();
}

/* --- the initial frame -------------------------------------------------- */

/* Word offsets from the saved sp; mirrors the layout in fiber_switch.S. */
enum {
    RT_FRAME_R15,
    RT_FRAME_R14,
    RT_FRAME_R13,
    RT_FRAME_R12,
    RT_FRAME_RBX,
    RT_FRAME_RBP,
    RT_FRAME_RET,
    RT_FRAME_WORDS
};

bool rt_fiber_init(rt_fiber *f, void *stack, size_t stack_size, void (*entry)(void *arg),
                   void *arg)
{
    if (!f || !stack || !entry || stack_size < RT_FIBER_MIN_STACK)
        return false;
    asan_unpoison(stack, stack_size);
    /* The trampoline's call needs rsp % 16 == 0 after the `ret` pops
     * RT_FRAME_RET; the top 16 bytes stay zero as a null return address. */
    uintptr_t top = ((uintptr_t)stack + stack_size) & ~(uintptr_t)15;
    uint64_t *frame = (uint64_t *)(top - 16 - RT_FRAME_WORDS * sizeof(uint64_t));
    for (int i = 0; i < RT_FRAME_WORDS + 2; i++)
        frame[i] = 0;
    frame[RT_FRAME_R12] = (uint64_t)(uintptr_t)entry;
    frame[RT_FRAME_R13] = (uint64_t)(uintptr_t)arg;
    frame[RT_FRAME_RET] = (uint64_t)(uintptr_t)rt__fiber_trampoline;
    f->sp = frame;
    f->asan_fake_stack = NULL;
    f->asan_stack_bottom = stack;
    f->asan_stack_size = stack_size;
    return true;
}

/* --- stacks ------------------------------------------------------------- */

/* Generated warp functions can have spill frames of several KiB and LLVM
 * does not probe the stack by default, so one 4 KiB page could be stepped
 * over.  Address space is cheap: guard 64 KiB (never less than a page). */
#define RT_STACK_GUARD ((size_t)64 * 1024)

static size_t page_size(void)
{
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096;
}

static size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

static size_t guard_size(void) { return round_up(RT_STACK_GUARD, page_size()); }

void *rt_stack_alloc(size_t size)
{
    size_t page = page_size(), guard = guard_size();
    if (size == 0 || size > SIZE_MAX / 2 - guard)
        return NULL;
    size_t usable = round_up(size, page);
    /* Map everything inaccessible, then open the part above the guard. */
    char *base = mmap(NULL, guard + usable, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK,
                      -1, 0);
    if (base == MAP_FAILED)
        return NULL;
    if (mprotect(base + guard, usable, PROT_READ | PROT_WRITE) != 0) {
        munmap(base, guard + usable);
        return NULL;
    }
    return base + guard;
}

void rt_stack_free(void *stack, size_t size)
{
    if (!stack)
        return;
    size_t guard = guard_size(), usable = round_up(size, page_size());
    /* The next mapping at this address must not see this fiber's poison. */
    asan_unpoison(stack, usable);
    munmap((char *)stack - guard, guard + usable);
}
