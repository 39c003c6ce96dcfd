/* specialize.c - the specialization policy.
 *
 * auto: a kernel's first code is specialized for the shape of its first
 * launch: it costs what generic code would, and most programs launch a
 * kernel with one block shape.  Another shape runs the generic code
 * until the time spent there reaches SPEC_PAYBACK times the kernel's
 * compile time, then gets code of its own (ski rental: the generic code's
 * extra cost is paid for at most as long as buying costs; SPEC_PAYBACK
 * is 1 / the gain measured, see README).  At most SPEC_MAX_SHAPES shapes
 * per kernel are specialized. */
#include "specialize.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SPEC_PAYBACK 5.0
/* A compile time to assume when the kernel's code came from the cache. */
#define SPEC_COMPILE_GUESS_S 0.2

spec_mode spec_mode_from_env(void)
{
    const char *v = getenv("PTXJIT_SPECIALIZE");
    if (!v || !*v || !strcmp(v, "1") || !strcmp(v, "auto"))
        return SPEC_AUTO;
    if (!strcmp(v, "0"))
        return SPEC_OFF;
    if (!strcmp(v, "always"))
        return SPEC_ALWAYS;
    fprintf(stderr, "ptxjit: warning: PTXJIT_SPECIALIZE=%s: not 0, 1, auto or always; "
                    "using auto\n", v);
    return SPEC_AUTO;
}

static int find(const spec_history *h, const uint32_t block[3])
{
    for (uint32_t i = 0; i < h->n; i++)
        if (!memcmp(h->shape[i], block, sizeof h->shape[i]))
            return (int)i;
    return -1;
}

bool spec_wanted(spec_mode mode, const spec_history *h, const uint32_t block[3], bool first,
                 double compile_s)
{
    if (mode != SPEC_AUTO)
        return mode == SPEC_ALWAYS;
    if (first)
        return true;
    int i = find(h, block);
    double cost = compile_s > 0 ? compile_s : SPEC_COMPILE_GUESS_S;
    return i >= 0 && h->seconds[i] >= SPEC_PAYBACK * cost;
}

void spec_record(spec_history *h, const uint32_t block[3], double seconds)
{
    int i = find(h, block);
    if (i < 0 && h->n < SPEC_TRACK) {
        i = (int)h->n++;
        memcpy(h->shape[i], block, sizeof h->shape[i]);
    }
    if (i >= 0)
        h->seconds[i] += seconds;
}
