/* stubs.c - entry points of NVIDIA's driver that ptxjit does not implement
 * (graphs, arrays and textures, IPC, virtual memory management, external
 * resources, green contexts, ...; stubs.def lists them).  They exist so
 * that programs linked against libcuda load and run their other paths;
 * each returns CUDA_ERROR_NOT_SUPPORTED.  The arguments, whatever they are,
 * stay unread (the x86-64 calling convention lets a callee ignore them). */
typedef enum { NOT_SUPPORTED = 801 } stub_result;

#define S(sym)                                                                                 \
    __attribute__((visibility("default"))) stub_result sym(void);                              \
    stub_result sym(void) { return NOT_SUPPORTED; }
#include "stubs.def"
#undef S
