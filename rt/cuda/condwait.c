/* condwait.c - monotonic condition-variable waits (see condwait.h). */
#include "condwait.h"

#include <errno.h>

#include "completion.h"

int rt_cond_init(pthread_cond_t *cv)
{
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    int rc = pthread_cond_init(cv, &a);
    pthread_condattr_destroy(&a);
    return rc;
}

void rt_deadline(struct timespec *deadline, uint64_t timeout_ns)
{
    if (timeout_ns == RT_WAIT_FOREVER)
        return;
    uint64_t t = rt_clock_ns();
    /* Clamp far deadlines (a timeout of centuries is forever enough). */
    t = timeout_ns > UINT64_MAX / 2 - t ? UINT64_MAX / 2 : t + timeout_ns;
    deadline->tv_sec = (time_t)(t / 1000000000u);
    deadline->tv_nsec = (long)(t % 1000000000u);
}

int rt_cond_wait_until(pthread_cond_t *cv, pthread_mutex_t *m, uint64_t timeout_ns,
                       const struct timespec *deadline)
{
    if (timeout_ns == RT_WAIT_FOREVER)
        return pthread_cond_wait(cv, m);
    int rc = pthread_cond_timedwait(cv, m, deadline);
    return rc == ETIMEDOUT ? ETIMEDOUT : 0;
}
