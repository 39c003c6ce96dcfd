/* test_cache_procs.c - many processes compiling the same and different
 * PTX into one cache directory at once: every process loads and runs its
 * kernel correctly (against the C reference), and afterwards the directory
 * holds one valid entry per module and one per kernel compiled.  The processes are forked before this
 * process starts any thread (fork and threads do not mix). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cache.h"
#include "cache_kernel.h"
#include "cache_test_util.h"

enum { PROCS = 8, VARIANTS = 3, WAVES = 2 };

/* A child: waits for the start signal, loads variant v, runs it.  Exit
 * status 0 if right, 1 if the kernel is wrong, 2 if the load failed. */
static int child(const char *dir, int start_fd, uint32_t v)
{
    char c;
    if (read(start_fd, &c, 1) != 0) /* EOF: all children are forked */
        return 3;
    char err[256], *log = NULL;
    ptxjit_ctx *ctx = ptxjit_create(1, err, sizeof err);
    if (!ctx)
        return 2;
    ptxjit_set_cache(ctx, &(ptxjit_cache_opts){.enabled = true, .dir = dir});
    char *ptx = ck_ptx(10 + v, v);
    ptxjit_stats st;
    ptxjit_module *m = ptxjit_load(ctx, ptx, strlen(ptx), "v.ptx", &log, &st);
    int rc = !m ? 2 : ck_check(ctx, m, 10 + v, v) ? 1 : 0;
    if (m && st.cache_result == PTXJIT_CACHE_OFF)
        rc = 4;
    ptxjit_module_unload(m);
    ptxjit_destroy(ctx);
    free(ptx);
    free(log);
    return rc;
}

static void wave(const char *dir)
{
    int pipefd[2];
    assert_int_equal(pipe(pipefd), 0);
    pid_t pids[PROCS];
    for (int p = 0; p < PROCS; p++) {
        pids[p] = fork();
        assert_true(pids[p] >= 0);
        if (pids[p] == 0) {
            close(pipefd[1]);
            _exit(child(dir, pipefd[0], (uint32_t)(p % VARIANTS)));
        }
    }
    close(pipefd[0]);
    close(pipefd[1]); /* go */
    for (int p = 0; p < PROCS; p++) {
        int status;
        assert_int_equal(waitpid(pids[p], &status, 0), pids[p]);
        if (!WIFEXITED(status) || WEXITSTATUS(status))
            fail_msg("process %d (variant %d) failed: status 0x%x", p, p % VARIANTS, status);
    }
}

static void test_concurrent_processes(void **state)
{
    (void)state;
    char *dir = ct_tmpdir();
    for (int w = 0; w < WAVES; w++)
        wave(dir);
    cache_usage u;
    assert_int_equal(cache_usage_of(dir, &u), 0);
    assert_int_equal(u.entries, 2 * VARIANTS); /* a module's, its kernel's */
    /* every load was counted once: no update of the statistics was lost */
    assert_int_equal(u.hits + u.misses, WAVES * PROCS);
    assert_true(u.misses >= VARIANTS && u.misses <= PROCS);
    assert_int_equal(ct_count_files(dir, ".tmp-"), 0);
    /* the entries are valid: this process hits each and runs it right */
    char err[256];
    ptxjit_ctx *ctx = ptxjit_create(1, err, sizeof err);
    ptxjit_set_cache(ctx, &(ptxjit_cache_opts){.enabled = true, .dir = dir});
    for (uint32_t v = 0; v < VARIANTS; v++) {
        char *ptx = ck_ptx(10 + v, v);
        ptxjit_stats st;
        ptxjit_module *m = ptxjit_load(ctx, ptx, strlen(ptx), "v.ptx", NULL, &st);
        assert_non_null(m);
        assert_int_equal(st.cache_result, PTXJIT_CACHE_HIT);
        assert_int_equal(ck_check(ctx, m, 10 + v, v), 0);
        st = ptxjit_module_stats(m);
        assert_int_equal(st.kernels_compiled, 0);
        assert_int_equal(st.kernels_cached, 1);
        ptxjit_module_unload(m);
        free(ptx);
    }
    ptxjit_destroy(ctx);
    ct_rmrf(dir);
    free(dir);
}

int main(void)
{
    unsetenv("PTXJIT_CACHE_DISABLE");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_concurrent_processes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
