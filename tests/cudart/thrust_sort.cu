// thrust_sort.cu - Thrust on device_vector through NVIDIA's runtime on
// ptxjit (tests/cudart/run.sh): sort and reduce, checked against the
// host's std::sort and sum (3,000 elements: each CUB kernel takes seconds
// to compile on a CPU).  Prints "ok NAME" per check, exits 1 on failure.
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "cudart_test.h"

int main()
{
    const int n = 3000;
    std::vector<int> h(n);
    unsigned x = 12345;
    for (int i = 0; i < n; i++) {
        x = x * 1664525u + 1013904223u;
        h[i] = (int)(x >> 8) - (1 << 23);
    }
    try {
        int before = failures;
        thrust::device_vector<int> d(h.begin(), h.end());
        long long sum = thrust::reduce(d.begin(), d.end(), 0LL);
        long long want_sum = 0;
        for (int v : h)
            want_sum += v;
        CHECK(sum == want_sum, "reduce: %lld, host %lld", sum, want_sum);
        report("reduce", before);

        before = failures;
        thrust::sort(d.begin(), d.end());
        std::vector<int> want = h;
        std::sort(want.begin(), want.end());
        thrust::host_vector<int> got = d;
        for (int i = 0, bad = 0; i < n && bad < 5; i++) {
            CHECK(got[i] == want[i], "sorted[%d] = %d, host %d", i, got[i], want[i]);
            bad += got[i] != want[i];
        }
        report("sort", before);
    } catch (const std::exception &e) {
        CHECK(false, "thrust threw: %s", e.what());
    }
    return finish();
}
