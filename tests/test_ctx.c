/* test_ctx.c - see test_ctx.h. */
#include "test_ctx.h"

#include <stddef.h>

ptxjit_ctx *test_ctx;

int test_ctx_setup(void **state)
{
    (void)state;
    char err[256];
    test_ctx = ptxjit_create(2, err, sizeof err);
    return test_ctx ? 0 : -1;
}

int test_ctx_teardown(void **state)
{
    (void)state;
    ptxjit_destroy(test_ctx);
    test_ctx = NULL;
    return 0;
}
