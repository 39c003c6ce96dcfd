/* test_ctx.h - the cmocka group fixture of the end-to-end suites: one
 * ptxjit context with two workers for the whole group. */
#ifndef PTXJIT_TEST_CTX_H
#define PTXJIT_TEST_CTX_H

#include "ptxjit/ptxjit.h"

extern ptxjit_ctx *test_ctx;

/* cmocka group setup and teardown: create and destroy test_ctx. */
int test_ctx_setup(void **state);
int test_ctx_teardown(void **state);

#endif
