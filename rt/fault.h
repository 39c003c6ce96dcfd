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

/* Installs the process-wide handlers (reference counted, idempotent). */
void rt_fault_install(void);
void rt_fault_uninstall(void);

/* Arms f for the calling thread; use as: if (RT_FAULT_TRY(f)) { run } else { handle }. */
#define RT_FAULT_TRY(f) (rt_fault_arm(f), sigsetjmp((f)->jb, 1) == 0)
void rt_fault_arm(rt_fault *f);
void rt_fault_disarm(void);

/* Reports a fault from runtime code on a worker thread (trap, assert). */
_Noreturn void rt_fault_raise(int kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
