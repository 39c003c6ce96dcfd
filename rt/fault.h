/* fault.h - fault containment: a SIGSEGV/SIGBUS/SIGFPE/SIGILL raised while
 * a worker runs kernel code jumps back to that worker's recovery point
 * instead of killing the process; trap and assert use the same path. */
#ifndef RT_FAULT_H
#define RT_FAULT_H

#include <setjmp.h>
#include <stdint.h>

typedef struct rt_fault {
    sigjmp_buf jb;
    int kind;            /* rt_status of the fault, 0 = none */
    int sig;
    uintptr_t addr;
    char msg[512];
} rt_fault;

/* Installs the process-wide handlers, reference counted: a device takes
 * a reference at its first launch and drops it when destroyed, so handlers
 * are not swapped per launch.  Faults outside kernel code go on to the
 * handler that was installed before ours (or to the default action). */
void rt_fault_install(void);
/* Per launch, while installed: if the host has installed a SIGSEGV handler
 * since (a test harness between tests, say), puts ours back in front of
 * it.  One sigaction query when nothing changed. */
void rt_fault_ensure(void);
void rt_fault_uninstall(void);

/* Arms f for the calling thread; use as: if (RT_FAULT_TRY(f)) { run } else { handle }.
 * The signal mask is not saved: the handler leaves it as it found it. */
#define RT_FAULT_TRY(f) (rt_fault_arm(f), sigsetjmp((f)->jb, 0) == 0)
void rt_fault_arm(rt_fault *f);
void rt_fault_disarm(void);

/* Reports a fault from runtime code on a worker thread (trap, assert). */
_Noreturn void rt_fault_raise(int kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
