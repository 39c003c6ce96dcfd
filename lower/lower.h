/* lower.h - PTX IR -> LLVM IR.  One LLVM function per .entry runs one
 * warp: registers are <32 x T> vectors, every side effect is under the
 * active mask, and control flow uses a per-lane block index with a
 * dispatcher that runs the earliest pending block (thread-frontier
 * reconvergence; any CFG). */
#ifndef PTXJIT_LOWER_H
#define PTXJIT_LOWER_H

#include "ptx.h"

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

/* What lowering may assume about the launch.  A zero field is unknown:
 * the code then works for any value. */
typedef struct lower_options {
    const char *kernel;      /* lower only this .entry and the .funcs it needs
                                (NULL: every one); module variables are then
                                declarations, defined by another object */
    uint32_t ntid[3];        /* the block shape the code is specialized for */
    bool skip_verify;        /* the caller only wants the errors and metadata */
    bool variables_only;     /* lower the module's variables (defined) and the
                                functions their initializers name, no kernel */
    uint32_t frame_stride;   /* resumable: warp frames at least this far apart (the
                                runtime's stride, sized by the generic version) */
} lower_options;

typedef struct lower_kernel {
    const ptx_func *func;
    char *symbol;            /* the warp function's name in the LLVM module */
    uint32_t static_smem;    /* bytes of static .shared */
    uint32_t dyn_smem_align; /* alignment of the dynamic shared area */
    bool uses_barriers;      /* needs fibers */
    uint32_t frame_size;     /* resumable (barriers return, abi.h): bytes of a warp frame; 0: not */
    uint32_t ntid[3];        /* specialized for this block shape (0: any) */
} lower_kernel;

/* A .global or .const variable, exported from the object as
 * LOWER_VAR_PREFIX + its name (the symbol may differ when two
 * function-scope statics share a name). */
#define LOWER_VAR_PREFIX "ptxjit.var."
typedef struct lower_global {
    const ptx_var *var;
    char *symbol;
    uint64_t size;           /* bytes */
    bool is_const;
    bool managed;            /* .attribute(.managed) */
} lower_global;

typedef struct lower_result {
    LLVMModuleRef mod;
    lower_kernel *kernels;
    uint32_t nkernels;
    lower_global *globals;
    uint32_t nglobals;
} lower_result;

/* Lowers every function of a checked module.  Unsupported constructs are
 * errors with their location (never a silent miscompile).  Returns the
 * number of errors; on success out->mod is a verified module. */
uint32_t lower_module(const ptx_module *m, LLVMContextRef ctx, LLVMTargetMachineRef tm,
                      const lower_options *opts, lower_result *out, ptx_diags *diags);
void lower_result_free(lower_result *r);

#endif
