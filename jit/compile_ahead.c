/* compile_ahead.c - ptxjit_module_compile: every kernel of a module built
 * now rather than at its first launch, several at once.  Kernels build
 * independently (each in an LLVM context of its own), so threads just
 * take the next kernel until none is left; the first failure is
 * reported and the others still build. */
#include "ptxjit_internal.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ahead {
    ptxjit_module *m;
    atomic_uint next;
    pthread_mutex_t lock;      /* the first failure */
    ptxjit_status status;
    char err[512];
} ahead;

static void *build_some(void *arg)
{
    ahead *a = arg;
    for (;;) {
        unsigned i = atomic_fetch_add(&a->next, 1);
        if (i >= a->m->nkernels)
            return NULL;
        char err[512];
        ptxjit_status st = kernel_code_generic(&a->m->kernels[i], err, sizeof err);
        pthread_mutex_lock(&a->lock);
        if (st && !a->status) {
            a->status = st;
            snprintf(a->err, sizeof a->err, "%s", err);
        }
        pthread_mutex_unlock(&a->lock);
    }
}

ptxjit_status ptxjit_module_compile(ptxjit_module *m, char *err, size_t errlen)
{
    ahead a = {.m = m, .lock = PTHREAD_MUTEX_INITIALIZER};
    unsigned n = ptxjit_workers(m->ctx);
    if (n > m->nkernels)
        n = m->nkernels;
    pthread_t *t = calloc(n ? n : 1, sizeof *t);
    unsigned started = 0;
    /* The caller builds too: without threads (none could start) it
     * builds them all. */
    while (t && started + 1 < n && !pthread_create(&t[started], NULL, build_some, &a))
        started++;
    build_some(&a);
    for (unsigned i = 0; i < started; i++)
        pthread_join(t[i], NULL);
    free(t);
    pthread_mutex_destroy(&a.lock);
    if (a.status)
        snprintf(err, errlen, "%s", a.err);
    return a.status;
}
