/* test_cu_abi.c - ptxjit's cuda_driver.h against NVIDIA's cuda.h: every
 * enumerator, constant, struct size and field offset ptxjit declares has
 * the value NVIDIA's header gives it (abi_facts.def; the two headers are
 * compiled in separate translation units, since their names clash).  Built
 * only where the CUDA toolkit is installed. */
#include <stdio.h>
#include <stddef.h>

extern const long long abi_ptxjit[], abi_nvidia[];
extern const size_t abi_ptxjit_count, abi_nvidia_count;
extern const char *const abi_names[];

int main(void)
{
    if (abi_ptxjit_count != abi_nvidia_count) {
        printf("fact lists differ in length\n");
        return 1;
    }
    int bad = 0;
    for (size_t i = 0; i < abi_ptxjit_count; i++)
        if (abi_ptxjit[i] != abi_nvidia[i]) {
            printf("%s: ptxjit %lld, NVIDIA %lld\n", abi_names[i], abi_ptxjit[i], abi_nvidia[i]);
            bad++;
        }
    printf("%zu facts compared, %d differ\n", abi_ptxjit_count, bad);
    return bad != 0;
}
