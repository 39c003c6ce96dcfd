/* fault.c - signal-based fault containment for kernel code.  Handlers run
 * on an alternate stack (a stack overflow must still be caught) and
 * siglongjmp to the recovery point armed by the worker. */
#include "fault.h"

#include "launch.h"

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local rt_fault *current;
static _Thread_local void *altstack;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int installed;
static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
enum { NSIGS = sizeof sigs / sizeof sigs[0] };
static struct sigaction saved[NSIGS]; /* the handlers ours went in front of */

static int sig_index(int sig)
{
    for (int i = 0; i < NSIGS; i++)
        if (sigs[i] == sig)
            return i;
    return 0;
}

static void handler(int sig, siginfo_t *si, void *uc);
static void reclaim(int i);

/* A fault outside kernel code goes to the handler installed before ours,
 * as the kernel would have delivered it: with that handler's mask, once
 * only under SA_RESETHAND, and with the default action (death, a core)
 * when there was none.  Ours stays installed for the next kernel fault,
 * or goes back in front if that handler replaced it (reclaim). */
static void chain(int sig, siginfo_t *si, void *uc)
{
    int i = sig_index(sig);
    struct sigaction old = saved[i];
    if (old.sa_flags & SA_RESETHAND)
        saved[i].sa_handler = SIG_DFL, saved[i].sa_flags &= ~SA_SIGINFO;
    if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_IGN)
        return;
    if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL) {
        signal(sig, SIG_DFL);
        raise(sig); /* not blocked (SA_NODEFER): delivered now */
        return;
    }
    sigset_t mask = old.sa_mask, prev;
    if (!(old.sa_flags & SA_NODEFER))
        sigaddset(&mask, sig);
    pthread_sigmask(SIG_BLOCK, &mask, &prev);
    if (old.sa_flags & SA_SIGINFO)
        old.sa_sigaction(sig, si, uc);
    else
        old.sa_handler(sig);
    pthread_sigmask(SIG_SETMASK, &prev, NULL);
    reclaim(i);
}

static void handler(int sig, siginfo_t *si, void *uc)
{
    rt_fault *f = current;
    if (!f) {
        chain(sig, si, uc);
        return;
    }
    f->kind = RT_ERR_FAULT;
    f->sig = sig;
    f->addr = (uintptr_t)si->si_addr;
    current = NULL;
    siglongjmp(f->jb, 1);
}

static bool is_ours(const struct sigaction *sa)
{
    return (sa->sa_flags & SA_SIGINFO) && sa->sa_sigaction == handler;
}

static struct sigaction ours(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    return sa;
}

/* After the host's handler ran for a fault of its own: a handler that
 * re-arms itself (the SA_RESETHAND or signal() idiom of runtimes) has just
 * replaced ours, which would leave the kernels' next faults to it, on a
 * worker thread.  What it installed becomes the handler we chain to, and
 * ours goes back in front.  Async-signal-safe: sigaction only. */
static void reclaim(int i)
{
    struct sigaction cur, sa = ours();
    if (sigaction(sigs[i], NULL, &cur) == 0 && !is_ours(&cur)) {
        saved[i] = cur;
        sigaction(sigs[i], &sa, NULL);
    }
}

/* Puts ours in front of whatever handles each signal now (lock held); a
 * handler installed since our last look becomes the one faults outside
 * kernel code go to.  SA_NODEFER: the handler leaves by siglongjmp, and
 * with the signal not blocked in it the recovery point need not save and
 * restore the signal mask (a system call per RT_FAULT_TRY). */
static void take_over(void)
{
    struct sigaction sa = ours(), old;
    for (int i = 0; i < NSIGS; i++)
        if (sigaction(sigs[i], &sa, &old) == 0 && !is_ours(&old))
            saved[i] = old;
}

void rt_fault_install(void)
{
    pthread_mutex_lock(&lock);
    installed++;
    take_over();
    pthread_mutex_unlock(&lock);
}

/* One system call: SIGSEGV stands for the four, since hosts that install
 * handlers install them together, and it is the fault kernels make. */
void rt_fault_ensure(void)
{
    struct sigaction cur;
    if (sigaction(SIGSEGV, NULL, &cur) == 0 && is_ours(&cur))
        return;
    pthread_mutex_lock(&lock);
    if (installed > 0)
        take_over();
    pthread_mutex_unlock(&lock);
}

/* A handler the host installed after ours stays: it is the host's now. */
void rt_fault_uninstall(void)
{
    pthread_mutex_lock(&lock);
    if (installed > 0 && --installed == 0)
        for (int i = 0; i < NSIGS; i++) {
            struct sigaction cur;
            if (sigaction(sigs[i], NULL, &cur) == 0 && is_ours(&cur))
                sigaction(sigs[i], &saved[i], NULL);
        }
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
