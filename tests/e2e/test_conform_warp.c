/* test_conform_warp.c - warp-level PTX instructions (shfl.sync, vote.sync,
 * match.sync, redux.sync, elect.sync, activemask, %lanemask_*) through
 * the whole pipeline, each against a C reference written from the ISA
 * pseudo-code, under every way lanes can take part:
 *
 *   full      every lane of two full warps, full member mask
 *   partial   blocks of 100 threads: the last warp has 4 lanes, the
 *             member mask is still 0xffffffff (absent lanes count as exited)
 *   diverge   random lanes branch around the instruction; the member mask
 *             names the lanes that execute it (as __activemask() gives)
 *   exited    random lanes exit first; full member mask
 *   rejoin    random lanes first run a 100-iteration detour loop (past the
 *             dispatcher's fairness tick) and then execute the instruction
 *             with everyone else; full member mask: all lanes take part
 *   looptop   the same with a top-tested loop, whose body ptxjit numbers
 *             after the instruction (the lanes waiting there must park)
 *   guard     single instructions under a random guard predicate, member
 *             mask = the guarded-on lanes; the others keep their value
 *
 * Operands b and c (shfl's lane and clamp/segment word) and the inputs
 * vary per lane, with the ISA's edge values: clamp and segment masks of
 * every CUDA width, garbage in the ignored bits, out-of-range lanes; the
 * shfl_*_imm and shfl_*_cta cases hold b (and c) the same in every lane:
 * immediates, constants in registers as nvcc writes them, and values
 * computed from %ctaid.x (uniform, not constant). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ptxjit/ptxjit.h"

enum { W = 32, MAXT = 256, SENT = 0x5a5a5a5a, GUARD_INIT = 0x0badcafe };
enum scenario { SC_FULL, SC_PARTIAL, SC_DIVERGE, SC_EXITED, SC_REJOIN, SC_LOOPTOP, SC_GUARD, NSC };
static const char *const sc_name[NSC] = {"full", "partial", "diverge", "exited", "rejoin", "looptop", "guard"};

/* One warp's worth of a case: inputs, who takes part, what must come out. */
typedef struct warp_io {
    uint64_t a[W], b[W], c[W];
    uint32_t mm;     /* member mask */
    uint32_t part;   /* lanes executing the instruction */
    uint32_t d[W], p[W];
    uint32_t check_d, check_p; /* lanes whose d / p the ISA defines */
} warp_io;

typedef void (*warp_ref)(warp_io *w);

/* %ra %rb %rc (32-bit a b c), %xa (64-bit a), %rm (member mask); results
 * in %rd and %q.  `single`: one instruction, so it can be guarded. */
typedef struct warp_case {
    const char *name, *body;
    warp_ref ref;
    bool single, no_rejoin;
    void (*gen)(uint64_t *a, uint64_t *b, uint64_t *c, int n, uint64_t *seed);
} warp_case;

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}

/* ---- references (ISA pseudo-code) ---- */

static bool in(uint32_t set, int lane) { return (set >> lane) & 1u; }

static void shfl_ref(warp_io *w, int mode)
{
    for (int lane = 0; lane < W; lane++) {
        if (!in(w->part, lane))
            continue;
        int bval = (int)(w->b[lane] & 31), cval = (int)(w->c[lane] & 31);
        int seg = (int)((w->c[lane] >> 8) & 31);
        int max_lane = (lane & seg) | (cval & ~seg), min_lane = lane & seg, j;
        bool pval;
        switch (mode) {
        case 0: j = lane - bval; pval = j >= max_lane; break;           /* up */
        case 1: j = lane + bval; pval = j <= max_lane; break;           /* down */
        case 2: j = lane ^ bval; pval = j <= max_lane; break;           /* bfly */
        default: j = min_lane | (bval & ~seg); pval = j <= max_lane; break; /* idx */
        }
        if (!pval)
            j = lane;
        w->p[lane] = pval;
        w->check_p |= 1u << lane;
        if (j == lane || in(w->part, j)) { /* a source lane not taking part is unpredictable */
            w->d[lane] = (uint32_t)w->a[j];
            w->check_d |= 1u << lane;
        }
    }
}
static void r_shfl_up(warp_io *w) { shfl_ref(w, 0); }
static void r_shfl_down(warp_io *w) { shfl_ref(w, 1); }
static void r_shfl_bfly(warp_io *w) { shfl_ref(w, 2); }
static void r_shfl_idx(warp_io *w) { shfl_ref(w, 3); }
static void r_shfl_idx_nop(warp_io *w)
{
    shfl_ref(w, 3);
    w->check_p = 0;
}

/* Lanes taking part whose predicate (a & 1, negated if neg) is true. */
static uint32_t pred_bits(const warp_io *w, bool neg)
{
    uint32_t r = 0;
    for (int l = 0; l < W; l++)
        if (in(w->part, l) && ((w->a[l] & 1) != 0) != neg)
            r |= 1u << l;
    return r;
}

static void set_all(warp_io *w, uint32_t d, uint32_t p, bool has_d, bool has_p)
{
    for (int l = 0; l < W; l++)
        if (in(w->part, l)) {
            w->d[l] = d, w->p[l] = p;
            w->check_d |= has_d ? 1u << l : 0;
            w->check_p |= has_p ? 1u << l : 0;
        }
}

static void vote_ref(warp_io *w, char mode, bool neg)
{
    uint32_t on = pred_bits(w, neg);
    switch (mode) {
    case 'a': set_all(w, 0, on == w->part, false, true); break;
    case 'y': set_all(w, 0, on != 0, false, true); break;
    case 'u': set_all(w, 0, on == 0 || on == w->part, false, true); break;
    default: set_all(w, on, 0, true, false); break;
    }
}
static void r_vote_all(warp_io *w) { vote_ref(w, 'a', false); }
static void r_vote_all_not(warp_io *w) { vote_ref(w, 'a', true); }
static void r_vote_any(warp_io *w) { vote_ref(w, 'y', false); }
static void r_vote_any_not(warp_io *w) { vote_ref(w, 'y', true); }
static void r_vote_uni(warp_io *w) { vote_ref(w, 'u', false); }
static void r_vote_uni_not(warp_io *w) { vote_ref(w, 'u', true); }
static void r_ballot(warp_io *w) { vote_ref(w, 'b', false); }
static void r_ballot_not(warp_io *w) { vote_ref(w, 'b', true); }

static void match_ref(warp_io *w, bool all, bool wide)
{
    uint64_t m = wide ? ~0ull : 0xffffffffull;
    bool same = true;
    int first = __builtin_ctz(w->part);
    for (int l = 0; l < W; l++)
        if (in(w->part, l) && (w->a[l] & m) != (w->a[first] & m))
            same = false;
    for (int l = 0; l < W; l++) {
        if (!in(w->part, l))
            continue;
        uint32_t eq = 0;
        for (int k = 0; k < W; k++)
            if (in(w->part, k) && (w->a[k] & m) == (w->a[l] & m))
                eq |= 1u << k;
        w->d[l] = all ? (same ? w->part : 0) : eq;
        w->p[l] = same;
        w->check_d |= 1u << l;
        w->check_p |= all ? 1u << l : 0;
    }
}
static void r_match_any32(warp_io *w) { match_ref(w, false, false); }
static void r_match_any64(warp_io *w) { match_ref(w, false, true); }
static void r_match_all32(warp_io *w) { match_ref(w, true, false); }
static void r_match_all64(warp_io *w) { match_ref(w, true, true); }

static void redux_int_ref(warp_io *w, char op, bool s)
{
    uint32_t acc = op == '&' ? 0xffffffffu : op == '<' ? (s ? 0x7fffffffu : 0xffffffffu)
                 : op == '>' ? (s ? 0x80000000u : 0) : 0;
    for (int l = 0; l < W; l++) {
        if (!in(w->part, l))
            continue;
        uint32_t x = (uint32_t)w->a[l];
        switch (op) {
        case '+': acc += x; break;
        case '&': acc &= x; break;
        case '|': acc |= x; break;
        case '^': acc ^= x; break;
        case '<': acc = s ? ((int32_t)x < (int32_t)acc ? x : acc) : (x < acc ? x : acc); break;
        default: acc = s ? ((int32_t)x > (int32_t)acc ? x : acc) : (x > acc ? x : acc); break;
        }
    }
    set_all(w, acc, 0, true, false);
}
static void r_redux_add(warp_io *w) { redux_int_ref(w, '+', false); }
static void r_redux_and(warp_io *w) { redux_int_ref(w, '&', false); }
static void r_redux_or(warp_io *w) { redux_int_ref(w, '|', false); }
static void r_redux_xor(warp_io *w) { redux_int_ref(w, '^', false); }
static void r_redux_min_u(warp_io *w) { redux_int_ref(w, '<', false); }
static void r_redux_max_u(warp_io *w) { redux_int_ref(w, '>', false); }
static void r_redux_min_s(warp_io *w) { redux_int_ref(w, '<', true); }
static void r_redux_max_s(warp_io *w) { redux_int_ref(w, '>', true); }

/* f32 min/max: +0 > -0; NaNs ignored (all NaN: canonical NaN) or, with
 * .NaN, any NaN gives the canonical NaN; .abs takes |x| first. */
static void redux_f32_ref(warp_io *w, bool is_min, bool abs_, bool nan)
{
    bool any_nan = false, any_num = false;
    uint32_t best = 0;
    for (int l = 0; l < W; l++) {
        if (!in(w->part, l))
            continue;
        uint32_t x = (uint32_t)w->a[l];
        if (abs_)
            x &= 0x7fffffffu;
        if ((x & 0x7fffffffu) > 0x7f800000u) {
            any_nan = true;
            continue;
        }
        float fx, fb;
        memcpy(&fx, &x, 4);
        memcpy(&fb, &best, 4);
        bool better;
        if (!any_num)
            better = true;
        else if (fx == fb) /* only the zeros' signs differ */
            better = is_min ? (x >> 31) > (best >> 31) : (x >> 31) < (best >> 31);
        else
            better = is_min ? fx < fb : fx > fb;
        if (better)
            best = x;
        any_num = true;
    }
    if (!any_num || (nan && any_nan))
        best = 0x7fffffffu;
    set_all(w, best, 0, true, false);
}
static void r_redux_fmin(warp_io *w) { redux_f32_ref(w, true, false, false); }
static void r_redux_fmax(warp_io *w) { redux_f32_ref(w, false, false, false); }
static void r_redux_fmin_abs(warp_io *w) { redux_f32_ref(w, true, true, false); }
static void r_redux_fmax_nan(warp_io *w) { redux_f32_ref(w, false, false, true); }
static void r_redux_fmin_abs_nan(warp_io *w) { redux_f32_ref(w, true, true, true); }

/* elect.sync: ptxjit elects the lowest lane taking part (the ISA asks for
 * a deterministic choice of one active lane in the member mask). */
static void r_elect(warp_io *w)
{
    int leader = __builtin_ctz(w->part);
    for (int l = 0; l < W; l++)
        if (in(w->part, l)) {
            w->d[l] = (uint32_t)leader, w->p[l] = l == leader;
            w->check_d |= 1u << l, w->check_p |= 1u << l;
        }
}
static void r_elect_p(warp_io *w)
{
    r_elect(w);
    w->check_d = 0;
}

static void r_activemask(warp_io *w) { set_all(w, w->part, 0, true, false); }

/* Each lane stores its a to shared memory, bar.warp.sync, reads lane+1's. */
static void r_syncwarp_exchange(warp_io *w)
{
    for (int l = 0; l < W; l++) {
        int src = (l + 1) % W;
        if (in(w->part, l) && in(w->part, src)) {
            w->d[l] = (uint32_t)w->a[src];
            w->check_d |= 1u << l;
        }
    }
}

static void lanemask_ref(warp_io *w, char kind)
{
    for (int l = 0; l < W; l++) {
        if (!in(w->part, l))
            continue;
        uint32_t eq = 1u << l, lt = eq - 1, le = lt | eq;
        w->d[l] = kind == 'e' ? eq : kind == 'l' ? lt : kind == 'L' ? le : kind == 'g' ? ~le : ~lt;
        w->check_d |= 1u << l;
    }
}
static void r_lanemask_eq(warp_io *w) { lanemask_ref(w, 'e'); }
static void r_lanemask_lt(warp_io *w) { lanemask_ref(w, 'l'); }
static void r_lanemask_le(warp_io *w) { lanemask_ref(w, 'L'); }
static void r_lanemask_gt(warp_io *w) { lanemask_ref(w, 'g'); }
static void r_lanemask_ge(warp_io *w) { lanemask_ref(w, 'G'); }

/* ---- input generators ---- */

/* shfl: b anywhere in 0..63 (bits above 4 ignored), c one of the words
 * CUDA builds for each width, or random (garbage outside c[12:8], c[4:0]). */
static void gen_shfl(uint64_t *a, uint64_t *b, uint64_t *c, int n, uint64_t *s)
{
    static const uint32_t words[] = {0x1f, 0x0, 0x101f, 0x1000, 0x181f, 0x1800, 0x1c1f, 0x1c00,
                                     0x1e1f, 0x1e00, 0x1f1f, 0x1f00, 0x0007, 0x0818, 0x1f03};
    for (int i = 0; i < n; i++) {
        a[i] = (uint32_t)rnd(s);
        uint64_t r = rnd(s);
        int warp = i / W;
        if (warp % 3 == 0) { /* uniform per warp, like CUDA's intrinsics */
            b[i] = (uint64_t)((warp * 7) % 40);
            c[i] = words[(warp / 3) % 15];
        } else if (warp % 3 == 1) {
            b[i] = r % 64;
            c[i] = words[(r >> 8) % 15];
        } else {
            b[i] = r % 256;
            c[i] = (uint32_t)(r >> 16);
        }
    }
}

/* match/vote: few distinct values so lanes agree often; some warps all
 * equal; 64-bit values that differ only in the high half. */
static void gen_few(uint64_t *a, uint64_t *b, uint64_t *c, int n, uint64_t *s)
{
    for (int i = 0; i < n; i++) {
        uint64_t r = rnd(s);
        int warp = i / W;
        uint64_t v = warp % 4 == 0 ? 5 : r % 3;
        a[i] = v | (warp % 4 == 1 ? (r >> 40 & 1) << 40 : 0) | (warp % 4 == 2 ? 0x700000000ull : 0);
        if (warp % 4 == 3)
            a[i] = (r & 1) ? 0xffffffffffffffffull : 0x00000000ffffffffull;
        b[i] = c[i] = 0;
    }
}

static void gen_int(uint64_t *a, uint64_t *b, uint64_t *c, int n, uint64_t *s)
{
    static const uint32_t edge[] = {0, 1, 0x7fffffff, 0x80000000u, 0xffffffffu, 0xfffffffeu, 0x80000001u};
    for (int i = 0; i < n; i++) {
        uint64_t r = rnd(s);
        a[i] = (i / W) % 2 ? (uint32_t)r : edge[r % 7];
        b[i] = c[i] = 0;
    }
}

static void gen_f32(uint64_t *a, uint64_t *b, uint64_t *c, int n, uint64_t *s)
{
    static const uint32_t edge[] = {0x00000000, 0x80000000u, 0x7f800000, 0xff800000u, 0x7fc00000,
                                    0xffc00001u, 0x7f800001, 0x00000001, 0x80000001u, 0x3f800000,
                                    0xbf800000u, 0x7f7fffff, 0xff7fffffu};
    for (int i = 0; i < n; i++) {
        uint64_t r = rnd(s);
        int warp = i / W;
        if (warp % 4 == 0)
            a[i] = edge[r % 13];
        else if (warp % 4 == 1) /* zeros of both signs and NaNs only */
            a[i] = (r & 1) ? 0x80000000u : (r & 2) ? 0 : 0x7fc00000;
        else if (warp % 4 == 2)
            a[i] = 0x7fc00000u | (uint32_t)(r & 0x3fffff); /* all NaN */
        else
            a[i] = (uint32_t)r;
        b[i] = c[i] = 0;
    }
}

/* ---- cases ---- */

#define PRED_IN "and.b32 %t6, %ra, 1; setp.ne.u32 %pin, %t6, 0; "
static const warp_case cases[] = {
    {"shfl_up", "shfl.sync.up.b32 %rd|%q, %ra, %rb, %rc, %rm;", r_shfl_up, true, false, gen_shfl},
    {"shfl_down", "shfl.sync.down.b32 %rd|%q, %ra, %rb, %rc, %rm;", r_shfl_down, true, false, gen_shfl},
    {"shfl_bfly", "shfl.sync.bfly.b32 %rd|%q, %ra, %rb, %rc, %rm;", r_shfl_bfly, true, false, gen_shfl},
    {"shfl_idx", "shfl.sync.idx.b32 %rd|%q, %ra, %rb, %rc, %rm;", r_shfl_idx, true, false, gen_shfl},
    {"shfl_idx_nopred", "shfl.sync.idx.b32 %rd, %ra, %rb, %rc, %rm;", r_shfl_idx_nop, true, false, gen_shfl},
    {"shfl_down_nosync", "shfl.down.b32 %rd|%q, %ra, %rb, %rc;", r_shfl_down, true, false, gen_shfl},
    {"shfl_down_imm16", "shfl.sync.down.b32 %rd|%q, %ra, 16, 0x1f, %rm;", r_shfl_down, true, false, gen_shfl},
    {"shfl_down_imm1", "shfl.sync.down.b32 %rd|%q, %ra, 1, 0x1f, %rm;", r_shfl_down, true, false, gen_shfl},
    {"shfl_down_imm_w8", "shfl.sync.down.b32 %rd|%q, %ra, 3, 0x181f, %rm;", r_shfl_down, true, false, gen_shfl},
    {"shfl_down_imm_clamp", "shfl.sync.down.b32 %rd|%q, %ra, 2, 0x0818, %rm;", r_shfl_down, true, false, gen_shfl},
    {"shfl_up_imm", "shfl.sync.up.b32 %rd|%q, %ra, 1, 0, %rm;", r_shfl_up, true, false, gen_shfl},
    {"shfl_up_imm_w8", "shfl.sync.up.b32 %rd|%q, %ra, 6, 0x1800, %rm;", r_shfl_up, true, false, gen_shfl},
    {"shfl_bfly_imm", "shfl.sync.bfly.b32 %rd|%q, %ra, 4, 0x1f, %rm;", r_shfl_bfly, true, false, gen_shfl},
    {"shfl_bfly_imm_w4", "shfl.sync.bfly.b32 %rd|%q, %ra, 9, 0x1c1f, %rm;", r_shfl_bfly, true, false, gen_shfl},
    {"shfl_idx_imm", "shfl.sync.idx.b32 %rd|%q, %ra, 7, 0x1f, %rm;", r_shfl_idx, true, false, gen_shfl},
    {"shfl_idx_imm_w4", "shfl.sync.idx.b32 %rd|%q, %ra, 3, 0x1c1f, %rm;", r_shfl_idx, true, false, gen_shfl},
    {"shfl_idx_imm_w8", "shfl.sync.idx.b32 %rd|%q, %ra, 29, 0x181f, %rm;", r_shfl_idx, true, false, gen_shfl},
    {"shfl_idx_imm_garbage", "shfl.sync.idx.b32 %rd|%q, %ra, 45, 0xe0e0ff, %rm;", r_shfl_idx, true, false, gen_shfl},
    {"shfl_down_reg", "mov.u32 %u1, 8; mov.u32 %u2, 31; shfl.sync.down.b32 %rd|%q, %ra, %u1, %u2, %rm;",
     r_shfl_down, false, false, gen_shfl},
    {"shfl_up_cta", "mov.u32 %u1, %ctaid.x; mad.lo.u32 %u2, %u1, 13, 5; shfl.sync.up.b32 %rd|%q, %ra, %u2, 0x1800, %rm;",
     r_shfl_up, false, false, gen_shfl},
    {"shfl_up_cta_lane_c", "mov.u32 %u1, %ctaid.x; mad.lo.u32 %u2, %u1, 13, 5; shfl.sync.up.b32 %rd|%q, %ra, %u2, %rc, %rm;",
     r_shfl_up, false, false, gen_shfl},
    {"shfl_down_cta", "mov.u32 %u1, %ctaid.x; mad.lo.u32 %u2, %u1, 17, 2; mad.lo.u32 %u3, %u1, 0x1000, 0x1f; "
     "shfl.sync.down.b32 %rd|%q, %ra, %u2, %u3, %rm;", r_shfl_down, false, false, gen_shfl},
    {"shfl_bfly_cta", "mov.u32 %u1, %ctaid.x; mad.lo.u32 %u2, %u1, 30, 1; shfl.sync.bfly.b32 %rd|%q, %ra, %u2, %rc, %rm;",
     r_shfl_bfly, false, false, gen_shfl},
    {"shfl_idx_cta", "mov.u32 %u1, %ctaid.x; mad.lo.u32 %u2, %u1, 13, 5; shfl.sync.idx.b32 %rd|%q, %ra, %u2, 0x181f, %rm;",
     r_shfl_idx, false, false, gen_shfl},
    {"shfl_idx_cta_c", "mov.u32 %u1, %ctaid.x; mad.lo.u32 %u2, %u1, 13, 5; mad.lo.u32 %u3, %u1, 0x800, 0x101f; "
     "shfl.sync.idx.b32 %rd|%q, %ra, %u2, %u3, %rm;", r_shfl_idx, false, false, gen_shfl},
    {"shfl_idx_cta_lane_c", "mov.u32 %u1, %ctaid.x; mad.lo.u32 %u2, %u1, 13, 5; shfl.sync.idx.b32 %rd|%q, %ra, %u2, %rc, %rm;",
     r_shfl_idx, false, false, gen_shfl},
    {"vote_all", PRED_IN "vote.sync.all.pred %q, %pin, %rm;", r_vote_all, false, false, gen_few},
    {"vote_all_not", PRED_IN "vote.sync.all.pred %q, !%pin, %rm;", r_vote_all_not, false, false, gen_few},
    {"vote_any", PRED_IN "vote.sync.any.pred %q, %pin, %rm;", r_vote_any, false, false, gen_few},
    {"vote_any_not", PRED_IN "vote.sync.any.pred %q, !%pin, %rm;", r_vote_any_not, false, false, gen_few},
    {"vote_uni", PRED_IN "vote.sync.uni.pred %q, %pin, %rm;", r_vote_uni, false, false, gen_few},
    {"vote_uni_not", PRED_IN "vote.sync.uni.pred %q, !%pin, %rm;", r_vote_uni_not, false, false, gen_few},
    {"ballot", PRED_IN "vote.sync.ballot.b32 %rd, %pin, %rm;", r_ballot, false, false, gen_few},
    {"vote_any_nosync", PRED_IN "vote.any.pred %q, %pin;", r_vote_any, false, false, gen_few},
    {"ballot_nosync", PRED_IN "vote.ballot.b32 %rd, !%pin;", r_ballot_not, false, false, gen_few},
    {"ballot_not", PRED_IN "vote.sync.ballot.b32 %rd, !%pin, %rm;", r_ballot_not, false, false, gen_few},
    {"match_any_b32", "match.any.sync.b32 %rd, %ra, %rm;", r_match_any32, true, false, gen_few},
    {"match_any_b64", "match.any.sync.b64 %rd, %xa, %rm;", r_match_any64, true, false, gen_few},
    {"match_all_b32", "match.all.sync.b32 %rd|%q, %ra, %rm;", r_match_all32, true, false, gen_few},
    {"match_all_b64", "match.all.sync.b64 %rd|%q, %xa, %rm;", r_match_all64, true, false, gen_few},
    {"redux_add_u32", "redux.sync.add.u32 %rd, %ra, %rm;", r_redux_add, true, false, gen_int},
    {"redux_add_s32", "redux.sync.add.s32 %rd, %ra, %rm;", r_redux_add, true, false, gen_int},
    {"redux_and", "redux.sync.and.b32 %rd, %ra, %rm;", r_redux_and, true, false, gen_int},
    {"redux_or", "redux.sync.or.b32 %rd, %ra, %rm;", r_redux_or, true, false, gen_int},
    {"redux_xor", "redux.sync.xor.b32 %rd, %ra, %rm;", r_redux_xor, true, false, gen_int},
    {"redux_min_u32", "redux.sync.min.u32 %rd, %ra, %rm;", r_redux_min_u, true, false, gen_int},
    {"redux_max_u32", "redux.sync.max.u32 %rd, %ra, %rm;", r_redux_max_u, true, false, gen_int},
    {"redux_min_s32", "redux.sync.min.s32 %rd, %ra, %rm;", r_redux_min_s, true, false, gen_int},
    {"redux_max_s32", "redux.sync.max.s32 %rd, %ra, %rm;", r_redux_max_s, true, false, gen_int},
    {"redux_min_f32", "redux.sync.min.f32 %rd, %ra, %rm;", r_redux_fmin, true, false, gen_f32},
    {"redux_max_f32", "redux.sync.max.f32 %rd, %ra, %rm;", r_redux_fmax, true, false, gen_f32},
    {"redux_min_abs_f32", "redux.sync.min.abs.f32 %rd, %ra, %rm;", r_redux_fmin_abs, true, false, gen_f32},
    {"redux_max_nan_f32", "redux.sync.max.NaN.f32 %rd, %ra, %rm;", r_redux_fmax_nan, true, false, gen_f32},
    {"redux_min_abs_nan_f32", "redux.sync.min.abs.NaN.f32 %rd, %ra, %rm;", r_redux_fmin_abs_nan, true, false, gen_f32},
    {"elect", "elect.sync %rd|%q, %rm;", r_elect, true, false, gen_int},
    {"elect_sink", "elect.sync _|%q, %rm;", r_elect_p, true, false, gen_int},
    {"activemask", "activemask.b32 %rd;", r_activemask, true, true, gen_int},
    {"syncwarp_exchange",
     "shl.b32 %t0, %t3, 2; mov.u32 %t6, sx; add.u32 %t0, %t6, %t0; st.shared.u32 [%t0], %ra; "
     "bar.warp.sync %rm; "
     "add.u32 %t0, %t3, 1; and.b32 %t0, %t0, 31; and.b32 %t6, %t3, -32; or.b32 %t0, %t0, %t6; "
     "shl.b32 %t0, %t0, 2; mov.u32 %t6, sx; add.u32 %t0, %t6, %t0; ld.shared.u32 %rd, [%t0];",
     r_syncwarp_exchange, false, false, gen_int},
    {"lanemask_eq", "mov.u32 %rd, %lanemask_eq;", r_lanemask_eq, true, false, gen_int},
    {"lanemask_lt", "mov.u32 %rd, %lanemask_lt;", r_lanemask_lt, true, false, gen_int},
    {"lanemask_le", "mov.u32 %rd, %lanemask_le;", r_lanemask_le, true, false, gen_int},
    {"lanemask_gt", "mov.u32 %rd, %lanemask_gt;", r_lanemask_gt, true, false, gen_int},
    {"lanemask_ge", "mov.u32 %rd, %lanemask_ge;", r_lanemask_ge, true, false, gen_int},
};
enum { NCASES = sizeof cases / sizeof cases[0] };

/* shfl cases whose b and c are the same in every lane of a block
 * (immediates, or registers uniform across the warp): b = kb + kbs *
 * %ctaid.x where FIX_B, c likewise where FIX_C, as the body computes them. */
enum { FIX_B = 1, FIX_C = 2 };
static const struct fixed_bc {
    const char *name;
    unsigned fix;
    uint32_t kb, kbs, kc, kcs;
} fixed_bc[] = {
    {"shfl_down_imm16", FIX_B | FIX_C, 16, 0, 0x1f, 0},
    {"shfl_down_imm1", FIX_B | FIX_C, 1, 0, 0x1f, 0},
    {"shfl_down_imm_w8", FIX_B | FIX_C, 3, 0, 0x181f, 0},
    {"shfl_down_imm_clamp", FIX_B | FIX_C, 2, 0, 0x0818, 0},
    {"shfl_up_imm", FIX_B | FIX_C, 1, 0, 0, 0},
    {"shfl_up_imm_w8", FIX_B | FIX_C, 6, 0, 0x1800, 0},
    {"shfl_bfly_imm", FIX_B | FIX_C, 4, 0, 0x1f, 0},
    {"shfl_bfly_imm_w4", FIX_B | FIX_C, 9, 0, 0x1c1f, 0},
    {"shfl_idx_imm", FIX_B | FIX_C, 7, 0, 0x1f, 0},
    {"shfl_idx_imm_w4", FIX_B | FIX_C, 3, 0, 0x1c1f, 0},
    {"shfl_idx_imm_garbage", FIX_B | FIX_C, 45, 0, 0xe0e0ff, 0},
    {"shfl_idx_imm_w8", FIX_B | FIX_C, 29, 0, 0x181f, 0},
    {"shfl_down_reg", FIX_B | FIX_C, 8, 0, 0x1f, 0},
    {"shfl_up_cta", FIX_B | FIX_C, 5, 13, 0x1800, 0},
    {"shfl_up_cta_lane_c", FIX_B, 5, 13, 0, 0},
    {"shfl_down_cta", FIX_B | FIX_C, 2, 17, 0x1f, 0x1000},
    {"shfl_bfly_cta", FIX_B, 1, 30, 0, 0},
    {"shfl_idx_cta", FIX_B | FIX_C, 5, 13, 0x181f, 0},
    {"shfl_idx_cta_c", FIX_B | FIX_C, 5, 13, 0x101f, 0x800},
    {"shfl_idx_cta_lane_c", FIX_B, 5, 13, 0, 0},
};

static const struct fixed_bc *fixed_of(const warp_case *c)
{
    for (size_t i = 0; i < sizeof fixed_bc / sizeof fixed_bc[0]; i++)
        if (!strcmp(fixed_bc[i].name, c->name))
            return &fixed_bc[i];
    return NULL;
}

/* ---- kernels ---- */

static size_t emit_kernel(char *out, size_t len, const warp_case *c, int sc)
{
    char body[512];
    const char *pre = "";
    if (sc == SC_DIVERGE)
        pre = "  @!%pact bra $Lskip;\n";
    else if (sc == SC_EXITED)
        pre = "  @!%pact exit;\n";
    /* Inactive lanes loop 100 times, then join.  The inputs are scrambled
     * before and restored at the join: a lane reading another lane's input
     * before that lane arrived reads garbage. */
    else if (sc == SC_REJOIN)
        pre = "  xor.b32 %ra, %ra, 0x13579bdf; xor.b64 %xa, %xa, 0x2468;\n"
              "  @%pact bra $Ljoin;\n  mov.u32 %t7, 0;\n$Lloop:\n  add.u32 %t7, %t7, 1;\n"
              "  setp.lt.u32 %t6p, %t7, 100;\n  @%t6p bra $Lloop;\n$Ljoin:\n"
              "  xor.b32 %ra, %ra, 0x13579bdf; xor.b64 %xa, %xa, 0x2468;\n";
    else if (sc == SC_LOOPTOP)
        pre = "  xor.b32 %ra, %ra, 0x13579bdf; xor.b64 %xa, %xa, 0x2468;\n"
              "  mov.u32 %t7, 0;\n  @%pact bra $Ljoin;\n$Lhead:\n  setp.ge.u32 %t6p, %t7, 100;\n"
              "  @%t6p bra $Ljoin;\n  add.u32 %t7, %t7, 1;\n  bra.uni $Lhead;\n$Ljoin:\n"
              "  xor.b32 %ra, %ra, 0x13579bdf; xor.b64 %xa, %xa, 0x2468;\n";
    if (sc == SC_GUARD)
        snprintf(body, sizeof body, "@%%pact %s", c->body);
    else
        snprintf(body, sizeof body, "%s", c->body);
    return (size_t)snprintf(out, len,
        ".visible .entry k_%s_%s(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pact,\n"
        "    .param .u64 pmm, .param .u64 pd, .param .u64 pp)\n{\n"
        "  .reg .pred %%pact, %%pin, %%q, %%t6p; .reg .b32 %%ra, %%rb, %%rc, %%rm, %%rd, %%t<8>, %%u<4>;\n"
        "  .reg .b64 %%xa, %%xb, %%xc, %%x<16>; .shared .align 4 .b32 sx[128];\n"
        "  ld.param.u64 %%x1, [pa]; ld.param.u64 %%x2, [pb]; ld.param.u64 %%x3, [pc];\n"
        "  ld.param.u64 %%x4, [pact]; ld.param.u64 %%x5, [pmm]; ld.param.u64 %%x6, [pd];\n"
        "  ld.param.u64 %%x7, [pp];\n"
        "  mov.u32 %%t1, %%ctaid.x; mov.u32 %%t2, %%ntid.x; mov.u32 %%t3, %%tid.x;\n"
        "  mad.lo.s32 %%t1, %%t1, %%t2, %%t3;\n"
        "  mul.wide.u32 %%x8, %%t1, 8; mul.wide.u32 %%x9, %%t1, 4;\n"
        "  add.s64 %%x10, %%x1, %%x8; ld.global.u64 %%xa, [%%x10]; cvt.u32.u64 %%ra, %%xa;\n"
        "  add.s64 %%x10, %%x2, %%x8; ld.global.u64 %%xb, [%%x10]; cvt.u32.u64 %%rb, %%xb;\n"
        "  add.s64 %%x10, %%x3, %%x8; ld.global.u64 %%xc, [%%x10]; cvt.u32.u64 %%rc, %%xc;\n"
        "  add.s64 %%x10, %%x4, %%x9; ld.global.u32 %%t4, [%%x10]; setp.ne.u32 %%pact, %%t4, 0;\n"
        "  add.s64 %%x10, %%x5, %%x9; ld.global.u32 %%rm, [%%x10];\n"
        "  mov.u32 %%rd, %u; setp.eq.u32 %%q, %%t4, 12345;\n"
        "%s  %s\n"
        "  add.s64 %%x10, %%x6, %%x9; st.global.u32 [%%x10], %%rd;\n"
        "  selp.u32 %%t5, 1, 0, %%q; add.s64 %%x10, %%x7, %%x9; st.global.u32 [%%x10], %%t5;\n"
        "$Lskip:\n  ret;\n}\n",
        c->name, sc_name[sc], (unsigned)GUARD_INIT, pre, body);
}

/* ---- driver ---- */

typedef struct launch_shape {
    uint32_t grid, block;
} launch_shape;

static launch_shape shape_of(int sc)
{
    if (sc == SC_FULL)
        return (launch_shape){2, 64};
    if (sc == SC_PARTIAL)
        return (launch_shape){2, 100};
    return (launch_shape){2, 128};
}

/* Which lanes execute, per scenario (before the absent lanes are cut). */
static uint32_t active_bits(int sc, int warp, uint64_t *s)
{
    if (sc == SC_FULL || sc == SC_PARTIAL)
        return 0xffffffffu;
    uint32_t r = (uint32_t)rnd(s);
    switch (warp % 4) {
    case 0: return r;
    case 1: return r & (uint32_t)rnd(s);            /* sparse */
    case 2: return 1u << (r % 32);                 /* a single lane */
    default: return r | 0x80000001u;               /* both ends */
    }
}

static ptxjit_ctx *ctx;
static ptxjit_module *mod;

static int group_setup(void **state)
{
    size_t cap = 1 << 21, n = 0;
    char *src = malloc(cap), err[256], *log = NULL;
    n += (size_t)snprintf(src, cap, ".version 8.6\n.target sm_90\n.address_size 64\n");
    for (int k = 0; k < NCASES; k++)
        for (int sc = 0; sc < NSC; sc++)
            if ((sc != SC_GUARD || cases[k].single) && ((sc != SC_REJOIN && sc != SC_LOOPTOP) || !cases[k].no_rejoin))
                n += emit_kernel(src + n, cap - n, &cases[k], sc);
    ctx = ptxjit_create(2, err, sizeof err);
    if (!ctx)
        return -1;
    mod = ptxjit_load(ctx, src, n, "warp.ptx", &log, NULL);
    if (!mod)
        fprintf(stderr, "%s\n", log ? log : "load failed");
    free(log);
    free(src);
    return mod ? 0 : -1;
}

static int group_teardown(void **state)
{
    ptxjit_module_unload(mod);
    ptxjit_destroy(ctx);
    return 0;
}

static int run_case(const warp_case *c, int sc)
{
    static uint64_t a[MAXT], b[MAXT], cc[MAXT];
    static uint32_t act[MAXT], mm[MAXT], d[MAXT], p[MAXT];
    launch_shape sh = shape_of(sc);
    uint32_t n = sh.grid * sh.block, wpb = (sh.block + W - 1) / W;
    uint64_t seed = 0x9E3779B97F4A7C15ull ^ (uint64_t)(c - cases) * 1000003u ^ (uint64_t)sc;
    c->gen(a, b, cc, (int)n, &seed);
    const struct fixed_bc *fx = fixed_of(c);
    for (uint32_t i = 0; fx && i < n; i++) { /* what the body computes */
        uint32_t blk = i / sh.block;
        if (fx->fix & FIX_B)
            b[i] = fx->kb + fx->kbs * blk;
        if (fx->fix & FIX_C)
            cc[i] = fx->kc + fx->kcs * blk;
    }
    warp_io io[2 * (MAXT / W + 1)];
    memset(io, 0, sizeof io);
    int nw = 0;
    for (uint32_t blk = 0; blk < sh.grid; blk++)
        for (uint32_t wi = 0; wi < wpb; wi++, nw++) {
            warp_io *w = &io[nw];
            uint32_t first = blk * sh.block + wi * W, lanes = sh.block - wi * W < W ? sh.block - wi * W : W;
            uint32_t exist = lanes == W ? 0xffffffffu : (1u << lanes) - 1;
            uint32_t on = active_bits(sc, nw, &seed) & exist;
            w->part = sc == SC_REJOIN || sc == SC_LOOPTOP ? exist : on;
            w->mm = sc == SC_DIVERGE || sc == SC_GUARD ? on : 0xffffffffu;
            for (uint32_t l = 0; l < lanes; l++) {
                w->a[l] = a[first + l], w->b[l] = b[first + l], w->c[l] = cc[first + l];
                act[first + l] = in(on, (int)l);
                mm[first + l] = w->mm;
                d[first + l] = p[first + l] = SENT;
            }
            if (w->part)
                c->ref(w);
        }
    char name[96];
    snprintf(name, sizeof name, "k_%s_%s", c->name, sc_name[sc]);
    const ptxjit_kernel *k = ptxjit_kernel_get(mod, name);
    assert_non_null(k);
    struct { void *a, *b, *c, *act, *mm, *d, *p; } prm = {a, b, cc, act, mm, d, p};
    ptxjit_launch_cfg cfg = {{sh.grid, 1, 1}, {sh.block, 1, 1}, 0, &prm, NULL};
    char err[256];
    if (ptxjit_launch(ctx, k, &cfg, err, sizeof err) != PTXJIT_OK)
        fail_msg("%s: %s", name, err);
    int bad = 0;
    nw = 0;
    for (uint32_t blk = 0; blk < sh.grid; blk++)
        for (uint32_t wi = 0; wi < wpb; wi++, nw++) {
            const warp_io *w = &io[nw];
            uint32_t first = blk * sh.block + wi * W, lanes = sh.block - wi * W < W ? sh.block - wi * W : W;
            for (uint32_t l = 0; l < lanes; l++) {
                uint32_t gd = d[first + l], gp = p[first + l];
                bool ok = true;
                if (!in(w->part, (int)l)) { /* skipped, exited, or guarded off */
                    bool stored = sc == SC_GUARD || sc == SC_FULL || sc == SC_PARTIAL;
                    ok = stored ? gd == GUARD_INIT && gp == 0 : gd == SENT && gp == SENT;
                } else {
                    if (in(w->check_d, (int)l) && gd != w->d[l])
                        ok = false;
                    if (in(w->check_p, (int)l) && gp != w->p[l])
                        ok = false;
                }
                if (!ok && bad++ < 6)
                    print_error("%s warp %d lane %u: part=%08x mm=%08x a=%#llx b=%#llx c=%#llx: "
                                "got d=%#x p=%u, want d=%#x p=%u (checked %d%d)\n",
                                name, nw, l, w->part, w->mm, (unsigned long long)w->a[l],
                                (unsigned long long)w->b[l], (unsigned long long)w->c[l], gd, gp,
                                w->d[l], w->p[l], in(w->check_d, (int)l), in(w->check_p, (int)l));
            }
        }
    return bad;
}

static void run_family(const char *prefix)
{
    int bad = 0, ran = 0;
    for (int k = 0; k < NCASES; k++) {
        if (strncmp(cases[k].name, prefix, strlen(prefix)))
            continue;
        for (int sc = 0; sc < NSC; sc++)
            if ((sc != SC_GUARD || cases[k].single) && ((sc != SC_REJOIN && sc != SC_LOOPTOP) || !cases[k].no_rejoin)) {
                bad += run_case(&cases[k], sc);
                ran++;
            }
    }
    assert_true(ran > 0);
    assert_int_equal(bad, 0);
}

static void test_shfl(void **state) { run_family("shfl"); }
static void test_vote(void **state) { run_family("vote"); run_family("ballot"); }
static void test_match(void **state) { run_family("match"); }
static void test_redux(void **state) { run_family("redux"); }
static void test_elect(void **state) { run_family("elect"); }
static void test_activemask(void **state) { run_family("activemask"); }
static void test_lanemask(void **state) { run_family("lanemask"); }
static void test_syncwarp(void **state) { run_family("syncwarp"); }

/* Lanes of a warp at two different shfl.sync instructions with a full
 * member mask, inside a loop: each waits for lanes that are waiting at
 * the other.  ptxjit lets each group pass with the lanes it has (a warp
 * never deadlocks on itself); with sources in the same group the result is
 * what a GPU gives either way: acc = sum_i (in[lane ^ 2] + i), 3 rounds. */
static const char split_src[] =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry split(.param .u64 in, .param .u64 out)\n{\n"
    "  .reg .pred %p, %odd; .reg .b32 %r<12>; .reg .b64 %rd<6>;\n"
    "  ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out];\n"
    "  mov.u32 %r1, %tid.x; mul.wide.u32 %rd3, %r1, 4; add.s64 %rd4, %rd1, %rd3; ld.global.u32 %r2, [%rd4];\n"
    "  and.b32 %r3, %r1, 1; setp.ne.u32 %odd, %r3, 0; mov.u32 %r4, 0; mov.u32 %r5, 0;\n"
    "$Lhead:\n"
    "  setp.ge.u32 %p, %r4, 3; @%p bra $Ldone;\n"
    "  @%odd bra $Lodd;\n"
    "  shfl.sync.bfly.b32 %r6, %r2, 2, 0x1f, -1;\n"
    "  bra.uni $Lnext;\n"
    "$Lodd:\n"
    "  shfl.sync.bfly.b32 %r6, %r2, 2, 0x1f, -1;\n"
    "$Lnext:\n"
    "  add.u32 %r5, %r5, %r6; add.u32 %r2, %r2, 1; add.u32 %r4, %r4, 1; bra.uni $Lhead;\n"
    "$Ldone:\n"
    "  add.s64 %rd4, %rd2, %rd3; st.global.u32 [%rd4], %r5;\n"
    "  ret;\n}\n";

static void test_split_collectives(void **state)
{
    char *log = NULL, err[256];
    ptxjit_module *m = ptxjit_load(ctx, split_src, strlen(split_src), "split.ptx", &log, NULL);
    if (!m)
        fail_msg("%s", log ? log : "");
    static uint32_t in[64], out[64];
    for (uint32_t i = 0; i < 64; i++)
        in[i] = i * 1000 + 7;
    struct { uint32_t *in, *out; } p = {in, out};
    ptxjit_launch_cfg cfg = {{1, 1, 1}, {64, 1, 1}, 0, &p, NULL};
    assert_int_equal(ptxjit_launch(ctx, ptxjit_kernel_get(m, "split"), &cfg, err, sizeof err), PTXJIT_OK);
    for (uint32_t t = 0; t < 64; t++)
        assert_int_equal(out[t], 3 * in[t ^ 2] + 0 + 1 + 2);
    ptxjit_module_unload(m);
    free(log);
}

/* Converged lanes passing different member masks to one collective: each
 * 8-lane tile names itself (mask = 0xff << (lane & ~7), as
 * cooperative_groups' thread_block_tile<8> does), so every lane's result is
 * over its own tile.  Reference: the ISA's per-thread definition. */
static const char tile_src[] =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry tiles(.param .u64 in, .param .u64 out)\n{\n"
    "  .reg .pred %p, %q; .reg .b32 %r<16>; .reg .b64 %rd<6>;\n"
    "  ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out];\n"
    "  mov.u32 %r1, %tid.x; mul.wide.u32 %rd3, %r1, 4; add.s64 %rd4, %rd1, %rd3; ld.global.u32 %r2, [%rd4];\n"
    "  mov.u32 %r3, %laneid; and.b32 %r3, %r3, -8; mov.u32 %r4, 255; shl.b32 %r4, %r4, %r3;\n"
    "  and.b32 %r5, %r2, 1; setp.ne.u32 %p, %r5, 0;\n"
    "  vote.sync.ballot.b32 %r6, %p, %r4;\n"
    "  vote.sync.all.pred %q, %p, %r4; selp.u32 %r7, 1, 0, %q;\n"
    "  vote.sync.any.pred %q, %p, %r4; selp.u32 %r8, 1, 0, %q;\n"
    "  redux.sync.add.u32 %r9, %r2, %r4;\n"
    "  redux.sync.min.s32 %r10, %r2, %r4;\n"
    "  rem.u32 %r11, %r2, 3; match.any.sync.b32 %r12, %r11, %r4;\n"
    "  mul.wide.u32 %rd3, %r1, 24; add.s64 %rd4, %rd2, %rd3;\n"
    "  st.global.v2.u32 [%rd4], {%r6, %r7}; st.global.v2.u32 [%rd4+8], {%r8, %r9};\n"
    "  st.global.v2.u32 [%rd4+16], {%r10, %r12};\n"
    "  ret;\n}\n";

static void test_tile_member_masks(void **state)
{
    char *log = NULL, err[256];
    ptxjit_module *m = ptxjit_load(ctx, tile_src, strlen(tile_src), "tiles.ptx", &log, NULL);
    if (!m)
        fail_msg("%s", log ? log : "");
    static uint32_t in[64], out[64 * 6];
    uint64_t x = 12345;
    for (uint32_t i = 0; i < 64; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        in[i] = (uint32_t)(x >> 40) % 50 - (i % 5 == 0 ? 30 : 0);
    }
    in[8] = in[10] = in[12] = in[14] = 1, in[9] = in[11] = in[13] = in[15] = 3; /* a tile all odd */
    struct { uint32_t *in, *out; } p = {in, out};
    ptxjit_launch_cfg cfg = {{1, 1, 1}, {64, 1, 1}, 0, &p, NULL};
    assert_int_equal(ptxjit_launch(ctx, ptxjit_kernel_get(m, "tiles"), &cfg, err, sizeof err), PTXJIT_OK);
    for (uint32_t t = 0; t < 64; t++) {
        uint32_t base = t & ~7u, lane = t % 32, ballot = 0, sum = 0, match = 0;
        int32_t mn = INT32_MAX;
        for (uint32_t j = 0; j < 8; j++) {
            uint32_t v = in[base + j], l = (lane & ~7u) + j;
            ballot |= (v & 1) << l;
            sum += v;
            mn = (int32_t)v < mn ? (int32_t)v : mn;
            match |= (uint32_t)(v % 3 == in[t] % 3) << l;
        }
        uint32_t want[6] = {ballot, ballot == 0xffu << (lane & ~7u), ballot != 0, sum, (uint32_t)mn, match};
        for (int k = 0; k < 6; k++)
            if (out[6 * t + k] != want[k])
                fail_msg("thread %u result %d: got 0x%x, want 0x%x", t, k, out[6 * t + k], want[k]);
    }
    ptxjit_module_unload(m);
    free(log);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shfl),      cmocka_unit_test(test_vote),
        cmocka_unit_test(test_match),     cmocka_unit_test(test_redux),
        cmocka_unit_test(test_elect),     cmocka_unit_test(test_activemask),
        cmocka_unit_test(test_lanemask),  cmocka_unit_test(test_syncwarp),
        cmocka_unit_test(test_split_collectives), cmocka_unit_test(test_tile_member_masks),
    };
    return cmocka_run_group_tests_name("conform_warp", tests, group_setup, group_teardown);
}
