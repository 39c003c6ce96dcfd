/* perf_map.c - PTXJIT_PERF_MAP=1 names the JIT's code for perf(1): perf
 * reads /tmp/perf-PID.map ("START SIZE NAME", hex) to attribute samples
 * that fall in anonymous memory.  Each loaded object's functions are
 * written once, placed by one of the symbols the loader looked up (an
 * ELF section is linked as one block, so offsets within it hold). */
#include "perf_map.h"

#include <llvm-c/Core.h>
#include <llvm-c/Object.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t map_lock = PTHREAD_MUTEX_INITIALIZER;

bool jit_perf_map_enabled(void)
{
    const char *v = getenv("PTXJIT_PERF_MAP");
    return v && *v && strcmp(v, "0") != 0;
}

/* The load address of offset 0 of the anchor's section, or 0 if no looked-up
 * symbol is in the object. */
static uintptr_t section_base(LLVMBinaryRef bin, const char *const *syms, void *const *addrs,
                              size_t n, char *section, size_t seclen)
{
    uintptr_t base = 0;
    LLVMSymbolIteratorRef si = LLVMObjectFileCopySymbolIterator(bin);
    LLVMSectionIteratorRef sec = LLVMObjectFileCopySectionIterator(bin);
    for (; !base && !LLVMObjectFileIsSymbolIteratorAtEnd(bin, si); LLVMMoveToNextSymbol(si)) {
        const char *name = LLVMGetSymbolName(si);
        for (size_t i = 0; i < n && !base; i++)
            if (addrs[i] && name && strcmp(name, syms[i]) == 0) {
                LLVMMoveToContainingSection(sec, si);
                const char *s = LLVMGetSectionName(sec);
                snprintf(section, seclen, "%s", s ? s : "");
                base = (uintptr_t)addrs[i] - (uintptr_t)LLVMGetSymbolAddress(si);
            }
    }
    LLVMDisposeSectionIterator(sec);
    LLVMDisposeSymbolIterator(si);
    return base;
}

static void write_symbols(FILE *f, LLVMBinaryRef bin, uintptr_t base, const char *section)
{
    LLVMSymbolIteratorRef si = LLVMObjectFileCopySymbolIterator(bin);
    LLVMSectionIteratorRef sec = LLVMObjectFileCopySectionIterator(bin);
    for (; !LLVMObjectFileIsSymbolIteratorAtEnd(bin, si); LLVMMoveToNextSymbol(si)) {
        const char *name = LLVMGetSymbolName(si);
        uint64_t size = LLVMGetSymbolSize(si);
        if (!name || !*name || !size)
            continue;
        LLVMMoveToContainingSection(sec, si);
        const char *s = LLVMGetSectionName(sec);
        if (s && strcmp(s, section) == 0)
            fprintf(f, "%lx %lx %s\n", (unsigned long)(base + LLVMGetSymbolAddress(si)),
                    (unsigned long)size, name);
    }
    LLVMDisposeSectionIterator(sec);
    LLVMDisposeSymbolIterator(si);
}

void jit_perf_map_add(const void *obj, size_t size, const char *const *syms, void *const *addrs,
                      size_t n)
{
    LLVMMemoryBufferRef buf =
        LLVMCreateMemoryBufferWithMemoryRange(obj, size, "ptxjit-object", 0);
    char *msg = NULL;
    LLVMBinaryRef bin = LLVMCreateBinary(buf, NULL, &msg);
    if (!bin) {
        LLVMDisposeMessage(msg);
        LLVMDisposeMemoryBuffer(buf);
        return;
    }
    char section[64];
    uintptr_t base = section_base(bin, syms, addrs, n, section, sizeof section);
    if (base) {
        char path[64];
        snprintf(path, sizeof path, "/tmp/perf-%ld.map", (long)getpid());
        pthread_mutex_lock(&map_lock);
        FILE *f = fopen(path, "a");
        if (f) {
            write_symbols(f, bin, base, section);
            fclose(f);
        }
        pthread_mutex_unlock(&map_lock);
    }
    LLVMDisposeBinary(bin);
    LLVMDisposeMemoryBuffer(buf);
}
