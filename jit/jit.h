/* jit.h - host target machine, optimization, object emission and loading
 * (ORC LLJIT) for modules produced by lower/. */
#ifndef PTXJIT_JIT_H
#define PTXJIT_JIT_H

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>
#include <stddef.h>

typedef struct jit_engine jit_engine;

typedef struct jit_symbol {
    const char *name;
    void *addr;
} jit_symbol;

/* Creates an engine for the host CPU; runtime entry points are defined as
 * absolute symbols.  NULL with a message in err on failure. */
jit_engine *jit_create(const jit_symbol *syms, size_t nsyms, char *err, size_t errlen);
void jit_destroy(jit_engine *j);

/* The engine's target machine and data layout: lower/ must build modules
 * for this target. */
LLVMTargetMachineRef jit_target_machine(jit_engine *j);
const char *jit_triple(jit_engine *j);

/* Optimizes (O2-class pipeline), emits an object and loads it.  Takes
 * ownership of m.  Returns 0, or -1 with a message.  Times in seconds. */
typedef struct jit_times {
    double optimize, codegen, load;
} jit_times;
int jit_add_module(jit_engine *j, LLVMModuleRef m, jit_times *times, char *err, size_t errlen);

/* Address of a loaded symbol, or NULL. */
void *jit_lookup(jit_engine *j, const char *name);

#endif
