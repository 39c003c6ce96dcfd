// cudart_test.h - what the runtime-API test programs share: checks that
// count failures and print a FAIL line with the place, one "ok NAME" line
// per group of checks, and PASSED or FAILED at the end (tests/cudart/run.sh
// reads them).
#ifndef CUDART_TEST_H
#define CUDART_TEST_H

#include <cstdio>

static int failures;

#define CHECK(cond, ...)                                                                  \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                        \
            printf(__VA_ARGS__);                                                          \
            printf("\n");                                                                 \
            failures++;                                                                   \
        }                                                                                 \
    } while (0)
#define EXPECT(want, call)                                                                \
    do {                                                                                  \
        cudaError_t e_ = (call);                                                          \
        CHECK(e_ == (want), "%s returned %s, expected %s", #call, cudaGetErrorName(e_),   \
              cudaGetErrorName(want));                                                    \
    } while (0)
#define CUDA_OK(call) EXPECT(cudaSuccess, call)

// Ends a group of checks that began when failures was `before`.
static void report(const char *name, int before)
{
    printf("%s %s\n", failures == before ? "ok" : "FAILED", name);
    fflush(stdout);
}

static int finish()
{
    printf("%s\n", failures ? "FAILED" : "PASSED");
    return failures ? 1 : 0;
}

#endif
