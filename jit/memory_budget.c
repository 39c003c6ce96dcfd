/* memory_budget.c - a compile refused before LLVM starts when it cannot
 * fit under the process's memory limits.
 *
 * LLVM aborts the process when an allocation fails (it is built without
 * exceptions: "LLVM ERROR: out of memory", or an uncaught std::bad_alloc),
 * and its fatal-error hooks may not return into it, so a failure cannot
 * be caught once a compile has started.  Where a limit is set (ulimit -v,
 * ulimit -d), a compile estimated not to fit in what the limit leaves is
 * an out-of-memory error instead.  The estimate is per PTX statement,
 * about twice what straight-line integer code was measured to take with
 * LLVM 19 (lowering, optimization and code generation of 45,000
 * statements: ~1.6 KiB each), tensor-core forms weighted by what they
 * expand to (weight()); other instructions that expand further can still
 * take more.  Without a limit the system's
 * overcommit decides, as for any process. */
#include "memory_budget.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define BYTES_PER_STATEMENT ((uint64_t)3 << 10)
#define BYTES_FIXED ((uint64_t)16 << 20) /* an LLVM context, passes, the target machine */

/* Statements a statement counts as: the tensor-core products expand to
 * whole matrix products (an mma.sync m16n8k16 took ~175 KiB to compile,
 * about 110 straight-line statements), the fragment moves to shuffles. */
static uint64_t weight(const ptx_stmt *s)
{
    if (s->kind != PTX_STMT_INSTR)
        return 1;
    switch (s->instr->op) {
    case PTX_OP_MMA:
    case PTX_OP_WMMA_MMA:
        return 128;
    case PTX_OP_WMMA_LOAD:
    case PTX_OP_WMMA_STORE:
    case PTX_OP_LDMATRIX:
    case PTX_OP_STMATRIX:
    case PTX_OP_MOVMATRIX:
        return 16;
    default:
        return 1;
    }
}

uint64_t memory_budget_statements(const ptx_module *m, const char *kernel)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < m->nitems; i++) {
        const ptx_func *f = m->items[i].kind == PTX_ITEM_FUNC ? m->items[i].func : NULL;
        if (f && (!kernel || !f->is_entry || !strcmp(f->name, kernel)))
            for (uint32_t k = 0; k < f->nbody; k++)
                n += weight(&f->body[k]);
    }
    return n;
}

/* What /proc/self/statm says the process maps (field 0: everything;
 * field 5: data and stack), in bytes. */
static bool mapped(uint64_t *total, uint64_t *data)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long v[6];
    bool ok = f && fscanf(f, "%lu %lu %lu %lu %lu %lu", &v[0], &v[1], &v[2], &v[3], &v[4],
                          &v[5]) == 6;
    if (f)
        fclose(f);
    long page = sysconf(_SC_PAGESIZE);
    *total = (uint64_t)v[0] * (uint64_t)page;
    *data = (uint64_t)v[5] * (uint64_t)page;
    return ok && page > 0;
}

/* Bytes the limit `which` leaves over `used`; UINT64_MAX without one. */
static uint64_t left_under(int which, uint64_t used)
{
    struct rlimit r;
    if (getrlimit(which, &r) || r.rlim_cur == RLIM_INFINITY)
        return UINT64_MAX;
    return (uint64_t)r.rlim_cur > used ? (uint64_t)r.rlim_cur - used : 0;
}

bool memory_budget_fits(uint64_t statements, char *err, size_t errlen)
{
    uint64_t total, data;
    if (!mapped(&total, &data))
        return true; /* no /proc: nothing to go by */
    uint64_t left = left_under(RLIMIT_AS, total), left_data = left_under(RLIMIT_DATA, data);
    if (left_data < left)
        left = left_data;
    if (left == UINT64_MAX)
        return true;
    uint64_t need = BYTES_FIXED + statements * BYTES_PER_STATEMENT;
    if (need <= left)
        return true;
    snprintf(err, errlen,
             "out of memory: compiling %llu PTX statements needs about %llu MiB, and the "
             "process's memory limit leaves %llu MiB",
             (unsigned long long)statements, (unsigned long long)(need >> 20),
             (unsigned long long)(left >> 20));
    return false;
}
