/* jit.h - host target machine, optimization, object emission and loading
 * (ORC LLJIT) for modules produced by lower/.
 *
 * Compiling and loading are separate steps with the object file's bytes in
 * between, so that the cache can store objects and load them without LLVM
 * IR.  Each loaded module lives in its own JITDylib ("unit"): its variables'
 * object and its kernels' objects, added one by one as they are needed, link
 * to each other; two units may define the same symbols, and unloading one
 * frees its code and data. */
#ifndef PTXJIT_JIT_H
#define PTXJIT_JIT_H

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct jit_engine jit_engine;
typedef struct jit_unit jit_unit;

typedef struct jit_symbol {
    const char *name;
    void *addr;
} jit_symbol;

/* Creates an engine for the host CPU; runtime entry points are defined as
 * absolute symbols in every unit.  NULL with a message in err on failure. */
jit_engine *jit_create(const jit_symbol *syms, size_t nsyms, char *err, size_t errlen);
void jit_destroy(jit_engine *j);

/* The engine's target machine: lower/ must build modules for it. */
LLVMTargetMachineRef jit_target_machine(jit_engine *j);
/* What the generated code depends on (cache keys include all three). */
const char *jit_triple(jit_engine *j);
const char *jit_cpu(jit_engine *j);
const char *jit_features(jit_engine *j);
/* Every other setting that shapes the object (pass pipeline, codegen
 * level, relocation and code models), as one string for cache keys: a new
 * option must be added here. */
const char *jit_options(jit_engine *j);
/* A hash of the compiler's own sources (frontend, lower, jit, the ABI
 * header), made at build time: objects of another build are never reused. */
extern const char jit_build_id[];
/* Whether PTXJIT_DUMP_IR or PTXJIT_DUMP_ASM asks to see each compiled
 * module: a cached object would skip the dump. */
bool jit_dumps_requested(void);

typedef struct jit_times {
    double optimize, codegen, load;
} jit_times;

/* Optimizes (O2-class pipeline) and emits an object file into *obj
 * (malloc'd, *size bytes).  Takes ownership of m.  Returns 0, or -1 with a
 * message.  Fills times->optimize and times->codegen (seconds).
 * Thread-safe: modules of different LLVM contexts compile in parallel. */
int jit_compile(jit_engine *j, LLVMModuleRef m, void **obj, size_t *size, jit_times *times,
                char *err, size_t errlen);

/* A new, empty unit.  NULL with a message on failure.  Thread-safe. */
jit_unit *jit_unit_create(jit_engine *j, char *err, size_t errlen);

/* Adds an object file (the bytes are copied) to a unit and resolves the
 * addresses of its symbols syms[0..nsyms) into addrs: its undefined
 * symbols resolve to the unit's other objects, the runtime entry points
 * and the process.  0, or -1 with a message and the unit as it was (the
 * object's names free again).  Thread-safe. */
int jit_unit_add(jit_unit *u, const void *obj, size_t size, const char *const *syms,
                 void **addrs, size_t nsyms, char *err, size_t errlen);

/* Frees the code and data of all the unit's objects; their addresses
 * become invalid. */
void jit_unit_free(jit_unit *u);

#endif
