/* jit.c - LLVM-C recipe: host triple/CPU/features -> target machine (PIC,
 * small code model) -> LLVMRunPasses("default<O2>") -> object in memory ->
 * LLJIT.  Runtime entry points are absolute symbols, so no -rdynamic. */
#include "jit.h"
#include "perf_map.h"
#include "constant_masks.h"
#include "store_forward.h"

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

/* A growable stack of LLVM handles: spare dylibs, idle target machines, a
 * unit's trackers. */
typedef struct ptr_stack {
    void **v;
    size_t n, cap;
} ptr_stack;

/* false when out of memory (the caller keeps p). */
static bool push(ptr_stack *s, void *p)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 8;
        void **v = realloc(s->v, cap * sizeof *v);
        if (!v)
            return false;
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = p;
    return true;
}

static void *pop(ptr_stack *s) { return s->n ? s->v[--s->n] : NULL; }

struct jit_engine {
    LLVMTargetMachineRef tm; /* for lowering: data layout and features only */
    char *triple, *cpu, *features;
    LLVMOrcLLJITRef lljit;
    jit_symbol *syms;        /* runtime entry points, defined in every unit */
    size_t nsyms;
    pthread_mutex_t lock;    /* the free lists and the unit counter */
    ptr_stack spare;         /* units' dylibs whose objects were removed */
    unsigned long next_unit;
    /* Target machines are not thread-safe: each compile borrows one of
     * its own, so that kernels compile in parallel. */
    ptr_stack idle_tms;
};

struct jit_unit {
    jit_engine *j;
    LLVMOrcJITDylibRef jd;
    pthread_mutex_t lock;          /* objects are added from several threads */
    ptr_stack rts;                 /* each object's code and data */
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

/* The settings below, spelled for jit_options(). */
#define JIT_PASSES "default<O2>"
/* after store_forward (a standalone instcombine checks by default that one
 * round reached its fixpoint, and aborts the process where it did not) */
#define JIT_CLEANUP "instcombine<no-verify-fixpoint>,dce"
#define JIT_OPTIONS "passes=" JIT_PASSES ",store-forward,narrow-masks,row-loop," JIT_CLEANUP ";codegen=default;reloc=pic;model=small"

/* A target machine for the host (j->triple, cpu and features). */
static LLVMTargetMachineRef new_machine(jit_engine *j, char *err, size_t errlen)
{
    LLVMTargetRef target;
    char *msg = NULL;
    if (LLVMGetTargetFromTriple(j->triple, &target, &msg)) {
        snprintf(err, errlen, "no LLVM target for %s: %s", j->triple, msg);
        LLVMDisposeMessage(msg);
        return NULL;
    }
    LLVMTargetMachineRef tm =
        LLVMCreateTargetMachine(target, j->triple, j->cpu, j->features, LLVMCodeGenLevelDefault,
                                LLVMRelocPIC, LLVMCodeModelSmall);
    if (!tm)
        snprintf(err, errlen, "cannot create a target machine for %s", j->triple);
    return tm;
}

static LLVMTargetMachineRef host_machine(jit_engine *j, char *err, size_t errlen)
{
    j->triple = LLVMGetDefaultTargetTriple();
    j->cpu = LLVMGetHostCPUName();
    j->features = LLVMGetHostCPUFeatures();
    return new_machine(j, err, errlen);
}

static LLVMTargetMachineRef borrow_machine(jit_engine *j, char *err, size_t errlen)
{
    pthread_mutex_lock(&j->lock);
    LLVMTargetMachineRef tm = pop(&j->idle_tms);
    pthread_mutex_unlock(&j->lock);
    return tm ? tm : new_machine(j, err, errlen);
}

static void return_machine(jit_engine *j, LLVMTargetMachineRef tm)
{
    pthread_mutex_lock(&j->lock);
    bool kept = push(&j->idle_tms, tm);
    pthread_mutex_unlock(&j->lock);
    if (!kept)
        LLVMDisposeTargetMachine(tm);
}

static int copy_symbols(jit_engine *j, const jit_symbol *syms, size_t n)
{
    j->syms = calloc(n ? n : 1, sizeof *j->syms);
    if (!j->syms)
        return -1;
    for (size_t i = 0; i < n; i++) {
        j->syms[i] = (jit_symbol){strdup(syms[i].name), syms[i].addr};
        if (!j->syms[i].name)
            return -1;
        j->nsyms++;
    }
    return 0;
}

jit_engine *jit_create(const jit_symbol *syms, size_t nsyms, char *err, size_t errlen)
{
    pthread_once(&init_once, init_llvm);
    jit_engine *j = calloc(1, sizeof *j);
    if (!j || copy_symbols(j, syms, nsyms)) {
        snprintf(err, errlen, "out of memory");
        jit_destroy(j);
        return NULL;
    }
    pthread_mutex_init(&j->lock, NULL);
    j->tm = host_machine(j, err, errlen);
    LLVMErrorRef e = j->tm ? LLVMOrcCreateLLJIT(&j->lljit, NULL) : NULL;
    if (!j->tm || e) {
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
        pthread_mutex_destroy(&j->lock);
    }
    if (j->tm)
        LLVMDisposeTargetMachine(j->tm);
    for (size_t i = 0; i < j->idle_tms.n; i++)
        LLVMDisposeTargetMachine(j->idle_tms.v[i]);
    free(j->idle_tms.v);
    LLVMDisposeMessage(j->triple);
    LLVMDisposeMessage(j->cpu);
    LLVMDisposeMessage(j->features);
    for (size_t i = 0; i < j->nsyms; i++)
        free((char *)j->syms[i].name);
    free(j->syms);
    free(j->spare.v);
    free(j);
}

LLVMTargetMachineRef jit_target_machine(jit_engine *j) { return j->tm; }
const char *jit_triple(jit_engine *j) { return j->triple; }
const char *jit_cpu(jit_engine *j) { return j->cpu; }
const char *jit_features(jit_engine *j) { return j->features; }
const char *jit_options(jit_engine *j) { return JIT_OPTIONS; }

bool jit_dumps_requested(void)
{
    const char *ir = getenv("PTXJIT_DUMP_IR"), *as = getenv("PTXJIT_DUMP_ASM"), *obj = getenv("PTXJIT_DUMP_OBJ");
    return (ir && *ir) || (as && *as) || (obj && *obj);
}

/* PTXJIT_DUMP_IR=FILE and PTXJIT_DUMP_ASM=FILE write the optimized IR and
 * the assembly of every module compiled (debugging aid).  The assembly
 * comes from a codegen of its own, which CodeGenPrepare's changes to the
 * module make differ a little from the object's: profiles are annotated
 * from PTXJIT_DUMP_OBJ=FILE, the object itself. */
static void dump_module(LLVMTargetMachineRef tm, LLVMModuleRef m)
{
    const char *ir = getenv("PTXJIT_DUMP_IR"), *as = getenv("PTXJIT_DUMP_ASM");
    char *msg = NULL;
    if (ir && *ir && LLVMPrintModuleToFile(m, ir, &msg))
        fprintf(stderr, "ptxjit: PTXJIT_DUMP_IR: %s\n", msg);
    LLVMDisposeMessage(msg);
    msg = NULL;
    if (as && *as && LLVMTargetMachineEmitToFile(tm, m, as, LLVMAssemblyFile, &msg))
        fprintf(stderr, "ptxjit: PTXJIT_DUMP_ASM: %s\n", msg);
    LLVMDisposeMessage(msg);
}

static void dump_object(const char *bytes, size_t size)
{
    const char *path = getenv("PTXJIT_DUMP_OBJ");
    if (!path || !*path)
        return;
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(bytes, 1, size, f) != size)
        fprintf(stderr, "ptxjit: PTXJIT_DUMP_OBJ: cannot write %s\n", path);
    if (f)
        fclose(f);
}

int jit_compile(jit_engine *j, LLVMModuleRef m, void **obj, size_t *size, jit_times *times,
                char *err, size_t errlen)
{
    LLVMTargetMachineRef tm = borrow_machine(j, err, errlen);
    if (!tm) {
        LLVMDisposeModule(m);
        return -1;
    }
    double t0 = now();
    LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
    LLVMErrorRef e = LLVMRunPasses(m, JIT_PASSES, tm, opts);
    if (!e) {
        bool forwarded = forward_stores(m); /* the lanes it inserts become shuffles */
        if (narrow_constant_masks(m) || forwarded)
            e = LLVMRunPasses(m, JIT_CLEANUP, tm, opts);
    }
    LLVMDisposePassBuilderOptions(opts);
    if (e) {
        return_machine(j, tm);
        LLVMDisposeModule(m);
        return fail_llvm_error(e, "optimizing", err, errlen);
    }
    double t1 = now();
    dump_module(tm, m);
    LLVMMemoryBufferRef buf = NULL;
    char *msg = NULL;
    LLVMBool bad = LLVMTargetMachineEmitToMemoryBuffer(tm, m, LLVMObjectFile, &msg, &buf);
    return_machine(j, tm);
    LLVMDisposeModule(m);
    if (bad) {
        snprintf(err, errlen, "code generation failed: %s", msg);
        LLVMDisposeMessage(msg);
        return -1;
    }
    *size = LLVMGetBufferSize(buf);
    dump_object(LLVMGetBufferStart(buf), *size);
    *obj = malloc(*size ? *size : 1);
    if (*obj)
        memcpy(*obj, LLVMGetBufferStart(buf), *size);
    LLVMDisposeMemoryBuffer(buf);
    if (!*obj)
        return snprintf(err, errlen, "out of memory"), -1;
    if (times) {
        times->optimize = t1 - t0;
        times->codegen = now() - t1;
    }
    return 0;
}

/* A fresh dylib sees the runtime entry points (absolute symbols) and the
 * process's own symbols (libm, memcpy, ...). */
static LLVMErrorRef setup_dylib(jit_engine *j, LLVMOrcJITDylibRef jd)
{
    LLVMOrcExecutionSessionRef es = LLVMOrcLLJITGetExecutionSession(j->lljit);
    char prefix = LLVMOrcLLJITGetGlobalPrefix(j->lljit);
    LLVMOrcDefinitionGeneratorRef gen;
    LLVMErrorRef e = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(&gen, prefix, NULL, NULL);
    if (e)
        return e;
    LLVMOrcJITDylibAddGenerator(jd, gen);
    if (!j->nsyms)
        return NULL;
    LLVMOrcCSymbolMapPair *pairs = calloc(j->nsyms, sizeof *pairs);
    if (!pairs)
        return LLVMCreateStringError("out of memory");
    for (size_t i = 0; i < j->nsyms; i++) {
        char name[256];
        snprintf(name, sizeof name, "%s%s", prefix ? (char[]){prefix, 0} : "", j->syms[i].name);
        pairs[i].Name = LLVMOrcExecutionSessionIntern(es, name);
        pairs[i].Sym.Address = (LLVMOrcExecutorAddress)(uintptr_t)j->syms[i].addr;
        pairs[i].Sym.Flags.GenericFlags = LLVMJITSymbolGenericFlagsExported |
                                          LLVMJITSymbolGenericFlagsCallable;
    }
    LLVMOrcMaterializationUnitRef mu = LLVMOrcAbsoluteSymbols(pairs, j->nsyms);
    free(pairs);
    e = LLVMOrcJITDylibDefine(jd, mu);
    if (e)
        LLVMOrcDisposeMaterializationUnit(mu);
    return e;
}

/* A dylib for a new unit: a spare one (set up already) or a fresh one. */
static LLVMOrcJITDylibRef take_dylib(jit_engine *j, char *err, size_t errlen)
{
    pthread_mutex_lock(&j->lock);
    LLVMOrcJITDylibRef jd = pop(&j->spare);
    unsigned long id = j->next_unit++;
    pthread_mutex_unlock(&j->lock);
    if (jd)
        return jd;
    char name[64];
    snprintf(name, sizeof name, "ptxjit.unit.%lu", id);
    LLVMOrcExecutionSessionRef es = LLVMOrcLLJITGetExecutionSession(j->lljit);
    LLVMErrorRef e = LLVMOrcExecutionSessionCreateJITDylib(es, &jd, name);
    if (!e)
        e = setup_dylib(j, jd);
    if (e) {
        fail_llvm_error(e, "creating a code unit", err, errlen);
        return NULL;
    }
    return jd;
}

static void give_back_dylib(jit_engine *j, LLVMOrcJITDylibRef jd)
{
    pthread_mutex_lock(&j->lock);
    push(&j->spare, jd); /* when out of memory the (empty) dylib is just not reused */
    pthread_mutex_unlock(&j->lock);
}

jit_unit *jit_unit_create(jit_engine *j, char *err, size_t errlen)
{
    jit_unit *u = calloc(1, sizeof *u);
    if (!u)
        return snprintf(err, errlen, "out of memory"), NULL;
    u->j = j;
    u->jd = take_dylib(j, err, errlen);
    if (!u->jd) {
        free(u);
        return NULL;
    }
    pthread_mutex_init(&u->lock, NULL);
    return u;
}

/* ExecutionSession lookups report through a callback, possibly on another
 * thread: wait for it.  Results come as (name, address) pairs in any
 * order: names are matched by their interned entries. */
typedef struct lookup_wait {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int done;
    const LLVMOrcSymbolStringPoolEntryRef *names;
    void **addrs;
    size_t n;
    char *msg;
} lookup_wait;

static void lookup_done(LLVMErrorRef e, LLVMOrcCSymbolMapPairs res, size_t n, void *ctx)
{
    lookup_wait *w = ctx;
    pthread_mutex_lock(&w->mu);
    if (e)
        w->msg = LLVMGetErrorMessage(e);
    for (size_t i = 0; !e && i < n; i++)
        for (size_t k = 0; k < w->n; k++)
            if (res[i].Name == w->names[k])
                w->addrs[k] = (void *)(uintptr_t)res[i].Sym.Address;
    w->done = 1;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

/* Looking symbols up links the objects that define them (the first time). */
static int lookup(jit_unit *u, const char *const *syms, void **addrs, size_t n, char *err,
                  size_t errlen)
{
    LLVMOrcExecutionSessionRef es = LLVMOrcLLJITGetExecutionSession(u->j->lljit);
    LLVMOrcCJITDylibSearchOrderElement order = {
        u->jd, LLVMOrcJITDylibLookupFlagsMatchExportedSymbolsOnly};
    LLVMOrcSymbolStringPoolEntryRef *names = calloc(n ? n : 1, sizeof *names);
    LLVMOrcCLookupSetElement *set = calloc(n ? n : 1, sizeof *set);
    if (!names || !set) {
        free(names);
        free(set);
        return snprintf(err, errlen, "out of memory"), -1;
    }
    for (size_t i = 0; i < n; i++) {
        addrs[i] = NULL;
        names[i] = LLVMOrcLLJITMangleAndIntern(u->j->lljit, syms[i]);
        LLVMOrcRetainSymbolStringPoolEntry(names[i]); /* the lookup takes one reference */
        set[i] = (LLVMOrcCLookupSetElement){names[i], LLVMOrcSymbolLookupFlagsRequiredSymbol};
    }
    lookup_wait w = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, names, addrs, n, NULL};
    LLVMOrcExecutionSessionLookup(es, LLVMOrcLookupKindStatic, &order, 1, set, n, lookup_done, &w);
    pthread_mutex_lock(&w.mu);
    while (!w.done)
        pthread_cond_wait(&w.cv, &w.mu);
    pthread_mutex_unlock(&w.mu);
    int rc = w.msg ? -1 : 0;
    for (size_t i = 0; i < n; i++) {
        LLVMOrcReleaseSymbolStringPoolEntry(names[i]);
        if (!rc && !addrs[i]) {
            snprintf(err, errlen, "'%s' did not load", syms[i]);
            rc = -1;
        }
    }
    if (w.msg) {
        snprintf(err, errlen, "linking: %s", w.msg);
        LLVMDisposeErrorMessage(w.msg);
    }
    free(names);
    free(set);
    return rc;
}

static void remove_tracker(LLVMOrcResourceTrackerRef rt)
{
    LLVMErrorRef e = LLVMOrcResourceTrackerRemove(rt);
    if (e)
        LLVMConsumeError(e);
    LLVMOrcReleaseResourceTracker(rt);
}

static bool keep_tracker(jit_unit *u, LLVMOrcResourceTrackerRef rt)
{
    pthread_mutex_lock(&u->lock);
    bool ok = push(&u->rts, rt);
    pthread_mutex_unlock(&u->lock);
    return ok;
}

int jit_unit_add(jit_unit *u, const void *obj, size_t size, const char *const *syms,
                 void **addrs, size_t nsyms, char *err, size_t errlen)
{
    LLVMOrcResourceTrackerRef rt = LLVMOrcJITDylibCreateResourceTracker(u->jd);
    LLVMMemoryBufferRef buf =
        LLVMCreateMemoryBufferWithMemoryRangeCopy(obj, size, "ptxjit-object");
    LLVMErrorRef e = LLVMOrcLLJITAddObjectFileWithRT(u->j->lljit, rt, buf);
    bool ok = !e;
    if (e)
        fail_llvm_error(e, "loading the object", err, errlen);
    if (ok && nsyms)
        ok = !lookup(u, syms, addrs, nsyms, err, errlen);
    if (ok && nsyms && jit_perf_map_enabled())
        jit_perf_map_add(obj, size, syms, addrs, nsyms);
    if (ok && !keep_tracker(u, rt)) {
        snprintf(err, errlen, "out of memory");
        ok = false;
    }
    if (!ok) /* the unit as it was: the object's names are free again */
        remove_tracker(rt);
    return ok ? 0 : -1;
}

void jit_unit_free(jit_unit *u)
{
    if (!u)
        return;
    for (size_t i = 0; i < u->rts.n; i++)
        remove_tracker(u->rts.v[i]);
    free(u->rts.v);
    pthread_mutex_destroy(&u->lock);
    give_back_dylib(u->j, u->jd);
    free(u);
}
