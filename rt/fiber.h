/* fiber.h - user-level fibers for the warps of one CTA (x86-64 SysV).
 *
 * Kernels with barriers run each warp as a fiber on the worker's OS thread;
 * bar.sync switches to the next runnable warp.  A switch is a few pushes and
 * pops in assembly (rt/fiber_switch.S): no syscalls, no signal mask, no
 * ucontext (swapcontext costs ~50x more, see DESIGN.md).
 *
 * What a switch preserves: rbx, rbp, r12-r15 and rsp.  Vector registers
 * are caller-saved in the SysV ABI, so the compiler already spills them
 * around the call to rt_fiber_switch.  MXCSR and the x87 control word are
 * per thread, not per fiber: a new fiber starts with the thread's, and a
 * mode one fiber sets is the mode of the next.  Kernel code never changes
 * them (the launch sets the defaults once per chunk of CTAs, rt/fpenv.h);
 * leaving them out of the switch makes it about five times cheaper.
 *
 * Under AddressSanitizer the switch tells ASan which stack it moves to, so
 * the same code works in the sanitizer build. */
#ifndef RT_FIBER_H
#define RT_FIBER_H

#include <stdbool.h>
#include <stddef.h>

/* A suspended execution context.  The thread that first calls
 * rt_fiber_switch uses a zero-initialized rt_fiber for itself ("main");
 * others are set up by rt_fiber_init.  The asan_* fields are used only by
 * the sanitizer build but are always present so the layout never depends on
 * compiler flags. */
typedef struct rt_fiber {
    void *sp;                     /* saved stack pointer; must stay first */
    void *asan_fake_stack;        /* ASan's fake stack while suspended */
    const void *asan_stack_bottom;/* lowest address of this fiber's stack */
    size_t asan_stack_size;
} rt_fiber;

/* Smallest stack rt_fiber_init accepts.  Real warps want >= 64 KiB. */
#define RT_FIBER_MIN_STACK 4096

/* Prepares f to run entry(arg) on [stack, stack + stack_size) the first time
 * something switches to it.  entry must never return: when a warp finishes,
 * the runtime switches away from it for good.  If entry does return, the
 * process aborts with a message (there is no context to return to).
 * Returns false if stack or entry is NULL or the stack is too small. */
bool rt_fiber_init(rt_fiber *f, void *stack, size_t stack_size, void (*entry)(void *arg),
                   void *arg);

/* Saves the current context into `from` and resumes `to`.  Returns when
 * something later switches back to `from`.  from != to. */
void rt_fiber_switch(rt_fiber *from, rt_fiber *to);

/* Allocates a fiber stack of at least `size` bytes (rounded up to pages)
 * with an inaccessible guard region below it, so an overflow faults
 * (SIGSEGV) instead of corrupting a neighbour.  NULL on failure or size 0. */
void *rt_stack_alloc(size_t size);

/* Frees a stack from rt_stack_alloc; size is the size asked for.  NULL is
 * ignored. */
void rt_stack_free(void *stack, size_t size);

#endif
