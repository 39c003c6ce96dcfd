/* mbarrier.c - the mbarrier object (PTX ISA "Parallel synchronization and
 * communication: mbarrier").  Its 64-bit contents are opaque to PTX; here
 * they pack the ISA's four parts:
 *
 *   bits  0-19  pending arrival count       (counts are 1 .. 2^20-1)
 *   bits 20-39  expected arrival count
 *   bits 40-60  tx-count, 21-bit two's complement (-(2^20-1) .. 2^20-1)
 *   bit  63     phase parity
 *
 * A phase completes when the pending count and the tx-count are both zero:
 * the parity flips, the pending count reloads from the expected count and
 * the tx-count restarts at zero.  The object lives in the CTA's shared
 * memory and a CTA runs on one OS thread, so plain accesses are atomic
 * with respect to every thread that can reach it. */
#include "shims.h"

#include <stdbool.h>

enum { COUNT_BITS = 20, TX_BITS = 21, EXPECTED_SHIFT = 20, TX_SHIFT = 40, PHASE_SHIFT = 63 };
#define COUNT_MASK ((1ull << COUNT_BITS) - 1)
#define TX_MASK ((1ull << TX_BITS) - 1)

typedef struct mbar {
    uint32_t pending, expected, phase;
    int32_t tx;
} mbar;

static mbar unpack(uint64_t v)
{
    mbar m;
    m.pending = (uint32_t)(v & COUNT_MASK);
    m.expected = (uint32_t)((v >> EXPECTED_SHIFT) & COUNT_MASK);
    uint32_t tx = (uint32_t)((v >> TX_SHIFT) & TX_MASK);
    m.tx = (int32_t)(tx << (32 - TX_BITS)) >> (32 - TX_BITS); /* sign-extend */
    m.phase = (uint32_t)(v >> PHASE_SHIFT);
    return m;
}

static uint64_t pack(mbar m)
{
    return (m.pending & COUNT_MASK) | (uint64_t)(m.expected & COUNT_MASK) << EXPECTED_SHIFT |
           ((uint64_t)(uint32_t)m.tx & TX_MASK) << TX_SHIFT | (uint64_t)(m.phase & 1) << PHASE_SHIFT;
}

static void complete_if_done(mbar *m)
{
    if (m->pending || m->tx)
        return;
    m->phase ^= 1;
    m->pending = m->expected;
}

/* One arrive-on operation of `count` arrivals (drop: also leaving every
 * later phase); returns the state token. */
static uint64_t arrive(mbar *m, uint32_t count, bool drop)
{
    if (drop)
        m->expected -= count;
    m->pending -= count;
    uint64_t token = (uint64_t)m->phase << PHASE_SHIFT | (m->pending & PTXJIT_MBAR_TOKEN_COUNT);
    complete_if_done(m);
    return token;
}

uint64_t ptxjit_rt_mbarrier(uint64_t *bar, uint32_t op, uint64_t arg)
{
    mbar m = unpack(*bar);
    uint32_t n = (uint32_t)arg;
    uint64_t r = 0;
    switch (op) {
    case PTXJIT_MBAR_INIT:
        m = (mbar){.pending = n, .expected = n};
        break;
    case PTXJIT_MBAR_INVAL:
        m = (mbar){0};
        break;
    case PTXJIT_MBAR_ARRIVE:
    case PTXJIT_MBAR_ARRIVE_DROP:
        r = arrive(&m, n, op == PTXJIT_MBAR_ARRIVE_DROP);
        break;
    case PTXJIT_MBAR_ARRIVE_TX: /* expect-tx first, then the arrive */
    case PTXJIT_MBAR_ARRIVE_DROP_TX:
        m.tx += (int32_t)n;
        r = arrive(&m, 1, op == PTXJIT_MBAR_ARRIVE_DROP_TX);
        break;
    case PTXJIT_MBAR_EXPECT_TX: /* may balance an earlier complete_tx */
        m.tx += (int32_t)n;
        complete_if_done(&m);
        break;
    case PTXJIT_MBAR_COMPLETE_TX:
        m.tx -= (int32_t)n;
        complete_if_done(&m);
        break;
    case PTXJIT_MBAR_TEST: /* the token's phase has completed once the parity moved on */
        return m.phase != (uint32_t)(arg >> PHASE_SHIFT);
    default: /* PTXJIT_MBAR_TEST_PARITY */
        return m.phase != (n & 1);
    }
    *bar = pack(m);
    return r;
}
