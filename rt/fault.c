/* fault.c - signal-based fault containment for kernel code.  Handlers run
 * on an alternate stack (a stack overflow must still be caught) and
 * siglongjmp to the recovery point armed by the worker. */
#include "fault.h"

#include "launch.h"

#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local rt_fault *current;
static _Thread_local void *altstack;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int installed;
static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
static struct sigaction saved[4];

static void handler(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    rt_fault *f = current;
    if (!f) { /* not kernel code: behave as if we were not here */
        for (int i = 0; i < 4; i++)
            if (sigs[i] == sig)
                sigaction(sig, &saved[i], NULL);
        raise(sig);
        return;
    }
    f->kind = RT_ERR_FAULT;
    f->sig = sig;
    f->addr = (uintptr_t)si->si_addr;
    current = NULL;
    siglongjmp(f->jb, 1);
}

void rt_fault_install(void)
{
    pthread_mutex_lock(&lock);
    if (installed++ == 0) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = handler;
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
        sigemptyset(&sa.sa_mask);
        for (int i = 0; i < 4; i++)
            sigaction(sigs[i], &sa, &saved[i]);
    }
    pthread_mutex_unlock(&lock);
}

void rt_fault_uninstall(void)
{
    pthread_mutex_lock(&lock);
    if (installed > 0 && --installed == 0)
        for (int i = 0; i < 4; i++)
            sigaction(sigs[i], &saved[i], NULL);
    pthread_mutex_unlock(&lock);
}

/* Each worker thread gets an alternate signal stack once; it lives as
 * long as the thread (freed by nobody: threads of the pool are long-lived). */
static void ensure_altstack(void)
{
    if (altstack)
        return;
    stack_t cur;
    if (sigaltstack(NULL, &cur) == 0 && !(cur.ss_flags & SS_DISABLE)) {
        altstack = cur.ss_sp; /* someone (e.g. ASan) installed one: keep it */
        return;
    }
    size_t size = 64 * 1024;
    altstack = malloc(size);
    if (!altstack)
        return;
    stack_t ss = {.ss_sp = altstack, .ss_size = size, .ss_flags = 0};
    sigaltstack(&ss, NULL);
}

void rt_fault_arm(rt_fault *f)
{
    ensure_altstack();
    f->kind = 0;
    current = f;
}

void rt_fault_disarm(void) { current = NULL; }

void rt_fault_raise(int kind, const char *fmt, ...)
{
    rt_fault *f = current;
    if (!f) {
        fprintf(stderr, "ptxjit: fault outside kernel code\n");
        abort();
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->msg, sizeof f->msg, fmt, ap);
    va_end(ap);
    f->kind = kind;
    f->sig = 0; /* raised by a check, not a signal */
    current = NULL;
    siglongjmp(f->jb, 1);
}
