// thrust_sort.cu - Thrust on device_vector through NVIDIA's runtime on
// ptxjit (tests/cudart/run.sh): sort and reduce, checked against the
// host's std::sort and sum.  Prints "ok NAME" per check, exits 1 on failure.
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>

#include <algorithm>
#include <cstdio>
#include <vector>

int main()
{
    const int n = 3000;
    std::vector<int> h(n);
    unsigned x = 12345;
    for (int i = 0; i < n; i++) {
        x = x * 1664525u + 1013904223u;
        h[i] = (int)(x >> 8) - (1 << 23);
    }
    int failures = 0;
    try {
        thrust::device_vector<int> d(h.begin(), h.end());
        long long sum = thrust::reduce(d.begin(), d.end(), 0LL);
        long long want_sum = 0;
        for (int v : h)
            want_sum += v;
        if (sum != want_sum) {
            printf("FAIL reduce: %lld, host %lld\n", sum, want_sum);
            failures++;
        }
        printf("%s reduce\n", sum == want_sum ? "ok" : "FAILED");
        thrust::sort(d.begin(), d.end());
        std::vector<int> want = h;
        std::sort(want.begin(), want.end());
        thrust::host_vector<int> got = d;
        int bad = 0;
        for (int i = 0; i < n; i++)
            if (got[i] != want[i] && bad++ < 5)
                printf("FAIL sort: [%d] = %d, host %d\n", i, got[i], want[i]);
        failures += bad != 0;
        printf("%s sort\n", bad ? "FAILED" : "ok");
    } catch (const std::exception &e) {
        printf("FAIL thrust threw: %s\n", e.what());
        failures++;
    }
    printf("%s\n", failures ? "FAILED" : "PASSED");
    return failures ? 1 : 0;
}
