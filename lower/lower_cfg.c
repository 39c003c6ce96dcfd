/* lower_cfg.c - block numbering.  A block's number is its priority in the
 * dispatcher (lowest pending first), so blocks are numbered in reverse
 * post-order of the control-flow graph: a block comes after every block
 * that can reach it other than through a back edge.  Lanes that diverge
 * then meet again at the join before any of them goes past it, which also
 * keeps them from reaching a barrier separately (source order does not:
 * compilers often place a loop's latch before its header). */
#include "lower_internal.h"

#include <stdlib.h>

static bool terminates(const ptx_stmt *s, ptx_opcode *op)
{
    if (s->kind != PTX_STMT_INSTR)
        return false;
    *op = s->instr->op;
    return *op == PTX_OP_BRA || *op == PTX_OP_BRX_IDX || *op == PTX_OP_RET || *op == PTX_OP_EXIT;
}

typedef struct graph {
    uint32_t *succ, *nsucc, *first; /* successors of block b: succ[first[b] .. first[b]+nsucc[b]) */
} graph;

/* Successors in source-order block numbers; `seq` is the block of each
 * statement as partitioned. */
static void build_graph(const ptx_func *f, const uint32_t *seq, uint32_t n, graph *g)
{
    uint32_t cap = 4 * n + 16, used = 0;
    g->succ = malloc(cap * sizeof *g->succ);
    g->nsucc = calloc(n, sizeof *g->nsucc);
    g->first = calloc(n, sizeof *g->first);
    for (uint32_t b = 0, i = 0; b < n; b++) {
        uint32_t last = UINT32_MAX;
        for (; i < f->nbody && seq[i] == b; i++)
            if (f->body[i].kind == PTX_STMT_INSTR)
                last = i;
        g->first[b] = used;
        ptx_opcode op = PTX_OP_NONE;
        bool term = last != UINT32_MAX && terminates(&f->body[last], &op);
        const ptx_instr *in = term ? f->body[last].instr : NULL;
        uint32_t add[64], k = 0;
        if ((!term || in->has_guard) && b + 1 < n)
            add[k++] = b + 1;
        if (op == PTX_OP_BRA)
            add[k++] = seq[in->opds[0].label];
        if (op == PTX_OP_BRX_IDX) {
            const ptx_stmt *t = &f->body[in->opds[1].label];
            for (uint32_t j = 0; j < t->ntargets && k < 64; j++)
                add[k++] = seq[t->targets[j].label];
        }
        if (used + k > cap) {
            cap = (used + k) * 2;
            g->succ = realloc(g->succ, cap * sizeof *g->succ);
        }
        for (uint32_t j = 0; j < k; j++)
            g->succ[used++] = add[j];
        g->nsucc[b] = k;
    }
}

/* F->from_later[rpo block]: some block numbered after it can reach it,
 * so lanes pending there may still come (a loop, or a top-tested loop's
 * body numbered after its exit); F->may_repeat: that, or the block reaches
 * itself (a loop's last block, a self-loop).  A fixpoint of the highest number that
 * reaches each block, over the source-order graph. */
static void mark_from_later(fn *F, const graph *g, const uint32_t *rpo, uint32_t n)
{
    uint32_t *reach = calloc(n, sizeof *reach); /* highest rpo + 1 reaching, 0: none */
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t b = 0; b < n; b++)
            for (uint32_t e = 0; e < g->nsucc[b]; e++) {
                uint32_t s = g->succ[g->first[b] + e];
                uint32_t r = reach[b] > rpo[b] + 1 ? reach[b] : rpo[b] + 1;
                if (r > reach[s]) {
                    reach[s] = r;
                    changed = true;
                }
            }
    }
    F->from_later = calloc(n, 1);
    F->may_repeat = calloc(n, 1);
    for (uint32_t b = 0; b < n; b++) {
        F->from_later[rpo[b]] = reach[b] > rpo[b] + 1;
        F->may_repeat[rpo[b]] = reach[b] > rpo[b]; /* a later block or the block itself reaches it */
    }
    free(reach);
}

/* Renumbers F->block_of_stmt in reverse post-order from the entry block
 * (unreachable blocks last, in source order) and fills F->next_block with
 * each block's fall-through successor. */
void order_blocks(fn *F)
{
    const ptx_func *f = F->f;
    uint32_t n = F->nblocks;
    graph g;
    build_graph(f, F->block_of_stmt, n, &g);
    uint32_t *post = malloc(n * sizeof *post), *stack = malloc(n * sizeof *stack);
    uint32_t *edge = calloc(n, sizeof *edge), *rpo = malloc(n * sizeof *rpo);
    uint8_t *seen = calloc(n, 1);
    uint32_t np = 0, sp = 0;
    stack[sp++] = 0;
    seen[0] = 1;
    while (sp) { /* iterative DFS: deep CFGs must not overflow the C stack */
        uint32_t b = stack[sp - 1];
        if (edge[b] < g.nsucc[b]) {
            uint32_t s = g.succ[g.first[b] + edge[b]++];
            if (!seen[s]) {
                seen[s] = 1;
                stack[sp++] = s;
            }
        } else {
            post[np++] = b;
            sp--;
        }
    }
    uint32_t id = 0;
    for (uint32_t k = np; k-- > 0;)
        rpo[post[k]] = id++;
    for (uint32_t b = 0; b < n; b++)
        if (!seen[b])
            rpo[b] = id++;
    mark_from_later(F, &g, rpo, n);
    F->next_block = malloc(n * sizeof *F->next_block);
    for (uint32_t b = 0; b < n; b++)
        F->next_block[rpo[b]] = b + 1 < n ? rpo[b + 1] : (F->is_entry ? PC_EXIT : PC_RET);
    for (uint32_t i = 0; i < f->nbody; i++)
        F->block_of_stmt[i] = rpo[F->block_of_stmt[i]];
    free(g.succ), free(g.nsucc), free(g.first);
    free(post), free(stack), free(edge), free(rpo), free(seen);
}
