/* jit.c - LLVM-C recipe: host triple/CPU/features -> target machine (PIC,
 * small code model) -> LLVMRunPasses("default<O2>") -> object in memory ->
 * LLJIT.  Runtime entry points are absolute symbols, so no -rdynamic. */
#include "jit.h"

#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct jit_engine {
    LLVMTargetMachineRef tm;
    char *triple;
    LLVMOrcLLJITRef lljit;
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int fail_llvm_error(LLVMErrorRef e, const char *what, char *err, size_t errlen)
{
    char *msg = LLVMGetErrorMessage(e);
    snprintf(err, errlen, "%s: %s", what, msg);
    LLVMDisposeErrorMessage(msg);
    return -1;
}

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void init_llvm(void)
{
    LLVMInitializeNativeTarget();
    LLVMInitializeNativeAsmPrinter();
}

static LLVMTargetMachineRef host_machine(char **triple, char *err, size_t errlen)
{
    *triple = LLVMGetDefaultTargetTriple();
    LLVMTargetRef target;
    char *msg = NULL;
    if (LLVMGetTargetFromTriple(*triple, &target, &msg)) {
        snprintf(err, errlen, "no LLVM target for %s: %s", *triple, msg);
        LLVMDisposeMessage(msg);
        return NULL;
    }
    char *cpu = LLVMGetHostCPUName(), *features = LLVMGetHostCPUFeatures();
    LLVMTargetMachineRef tm =
        LLVMCreateTargetMachine(target, *triple, cpu, features, LLVMCodeGenLevelDefault,
                                LLVMRelocPIC, LLVMCodeModelSmall);
    LLVMDisposeMessage(cpu);
    LLVMDisposeMessage(features);
    if (!tm)
        snprintf(err, errlen, "cannot create a target machine for %s", *triple);
    return tm;
}

static int define_symbols(jit_engine *j, const jit_symbol *syms, size_t n, char *err,
                          size_t errlen)
{
    if (!n)
        return 0;
    LLVMOrcCSymbolMapPair *pairs = calloc(n, sizeof *pairs);
    if (!pairs)
        return snprintf(err, errlen, "out of memory"), -1;
    LLVMOrcExecutionSessionRef es = LLVMOrcLLJITGetExecutionSession(j->lljit);
    char prefix = LLVMOrcLLJITGetGlobalPrefix(j->lljit);
    for (size_t i = 0; i < n; i++) {
        char name[256];
        snprintf(name, sizeof name, "%s%s", prefix ? (char[]){prefix, 0} : "", syms[i].name);
        pairs[i].Name = LLVMOrcExecutionSessionIntern(es, name);
        pairs[i].Sym.Address = (LLVMOrcExecutorAddress)(uintptr_t)syms[i].addr;
        pairs[i].Sym.Flags.GenericFlags = LLVMJITSymbolGenericFlagsExported |
                                          LLVMJITSymbolGenericFlagsCallable;
    }
    LLVMOrcMaterializationUnitRef mu = LLVMOrcAbsoluteSymbols(pairs, n);
    free(pairs);
    LLVMErrorRef e = LLVMOrcJITDylibDefine(LLVMOrcLLJITGetMainJITDylib(j->lljit), mu);
    return e ? fail_llvm_error(e, "defining runtime symbols", err, errlen) : 0;
}

jit_engine *jit_create(const jit_symbol *syms, size_t nsyms, char *err, size_t errlen)
{
    pthread_once(&init_once, init_llvm);
    jit_engine *j = calloc(1, sizeof *j);
    if (!j) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    j->tm = host_machine(&j->triple, err, errlen);
    LLVMErrorRef e = j->tm ? LLVMOrcCreateLLJIT(&j->lljit, NULL) : NULL;
    if (!j->tm || e || define_symbols(j, syms, nsyms, err, errlen)) {
        if (e)
            fail_llvm_error(e, "creating the JIT", err, errlen);
        jit_destroy(j);
        return NULL;
    }
    return j;
}

void jit_destroy(jit_engine *j)
{
    if (!j)
        return;
    if (j->lljit) {
        LLVMErrorRef e = LLVMOrcDisposeLLJIT(j->lljit);
        if (e)
            LLVMConsumeError(e);
    }
    if (j->tm)
        LLVMDisposeTargetMachine(j->tm);
    LLVMDisposeMessage(j->triple);
    free(j);
}

LLVMTargetMachineRef jit_target_machine(jit_engine *j) { return j->tm; }
const char *jit_triple(jit_engine *j) { return j->triple; }

/* PTXJIT_DUMP_IR=FILE and PTXJIT_DUMP_ASM=FILE write the optimized IR and
 * the assembly of every module compiled (debugging aid). */
static void dump_module(jit_engine *j, LLVMModuleRef m)
{
    const char *ir = getenv("PTXJIT_DUMP_IR"), *as = getenv("PTXJIT_DUMP_ASM");
    char *msg = NULL;
    if (ir && *ir && LLVMPrintModuleToFile(m, ir, &msg))
        fprintf(stderr, "ptxjit: PTXJIT_DUMP_IR: %s\n", msg);
    LLVMDisposeMessage(msg);
    msg = NULL;
    if (as && *as && LLVMTargetMachineEmitToFile(j->tm, m, as, LLVMAssemblyFile, &msg))
        fprintf(stderr, "ptxjit: PTXJIT_DUMP_ASM: %s\n", msg);
    LLVMDisposeMessage(msg);
}

int jit_add_module(jit_engine *j, LLVMModuleRef m, jit_times *times, char *err, size_t errlen)
{
    jit_times t = {0};
    double t0 = now();
    LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
    LLVMErrorRef e = LLVMRunPasses(m, "default<O2>", j->tm, opts);
    LLVMDisposePassBuilderOptions(opts);
    if (e) {
        LLVMDisposeModule(m);
        return fail_llvm_error(e, "optimizing", err, errlen);
    }
    double t1 = now();
    dump_module(j, m);
    LLVMMemoryBufferRef obj = NULL;
    char *msg = NULL;
    if (LLVMTargetMachineEmitToMemoryBuffer(j->tm, m, LLVMObjectFile, &msg, &obj)) {
        snprintf(err, errlen, "code generation failed: %s", msg);
        LLVMDisposeMessage(msg);
        LLVMDisposeModule(m);
        return -1;
    }
    LLVMDisposeModule(m);
    double t2 = now();
    e = LLVMOrcLLJITAddObjectFile(j->lljit, LLVMOrcLLJITGetMainJITDylib(j->lljit), obj);
    if (e)
        return fail_llvm_error(e, "loading the object", err, errlen);
    t.optimize = t1 - t0;
    t.codegen = t2 - t1;
    t.load = now() - t2;
    if (times)
        *times = t;
    return 0;
}

void *jit_lookup(jit_engine *j, const char *name)
{
    LLVMOrcExecutorAddress addr = 0;
    LLVMErrorRef e = LLVMOrcLLJITLookup(j->lljit, &addr, name);
    if (e) {
        LLVMConsumeError(e);
        return NULL;
    }
    return (void *)(uintptr_t)addr;
}
