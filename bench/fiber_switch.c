/* fiber_switch.c - cost of one rt_fiber_switch (main <-> fiber ping-pong).
 *
 * Not part of the CMake build.  From the repository root:
 *
 *   gcc -O2 -Irt bench/fiber_switch.c rt/fiber.c rt/fiber_switch.S -o /tmp/fiber_switch
 *   /tmp/fiber_switch [round_trips]
 *
 * Prints nanoseconds per switch (a round trip is two switches), best of
 * several runs so that a preemption does not spoil the figure. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "fiber.h"

#define STACK_SIZE ((size_t)64 * 1024)

static rt_fiber main_fiber, other;
static volatile uint64_t bounces;

static void bounce(void *arg)
{
    (void)arg;
    for (;;) {
        bounces++;
        rt_fiber_switch(&other, &main_fiber);
    }
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    long trips = argc > 1 ? atol(argv[1]) : 10000000;
    if (trips <= 0)
        trips = 10000000;
    void *stack = rt_stack_alloc(STACK_SIZE);
    if (!stack || !rt_fiber_init(&other, stack, STACK_SIZE, bounce, NULL)) {
        fprintf(stderr, "fiber_switch: cannot set up a fiber\n");
        return 1;
    }
    double best = 1e30;
    for (int run = 0; run < 5; run++) {
        double t0 = now_ns();
        for (long i = 0; i < trips; i++)
            rt_fiber_switch(&main_fiber, &other);
        double per_switch = (now_ns() - t0) / (2.0 * (double)trips);
        if (per_switch < best)
            best = per_switch;
    }
    printf("rt_fiber_switch: %.2f ns per switch (best of 5 x %ld round trips)\n", best, trips);
    rt_stack_free(stack, STACK_SIZE);
    return bounces == 5 * (uint64_t)trips ? 0 : 1;
}
