/* main.c - the ptxjit command: a thin layer over the library.
 * Exit codes: 0 success, 1 kernel runtime failure, 2 usage or PTX error. */
#include "cache_cmd.h"
#include "ptx.h"
#include "ptxjit/ptxjit.h"
#include "read_file.h"
#include "run.h"

#include <errno.h>
#include <llvm-c/Core.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

static const char usage[] =
    "usage: ptxjit <command> [options]\n"
    "\n"
    "Runs NVIDIA PTX kernels on the CPU.\n"
    "\n"
    "commands:\n"
    "  check FILE.ptx...   parse and validate PTX; prints each problem as\n"
    "                      FILE:LINE:COL: error: MESSAGE and exits 2 if any\n"
    "  print FILE.ptx      parse, validate and print the module back as PTX\n"
    "  run FILE.ptx [-k NAME] [-g X[,Y[,Z]]] [-b X[,Y[,Z]]] [--shared BYTES]\n"
    "             [--arg SPEC]... [--out N=PATH]... [--print N[:COUNT]]...\n"
    "             [--repeat R] [--stats] [--no-cache] [--cooperative]\n"
    "                      compile and run a kernel on the CPU\n"
    "  cache stats         show the compilation cache: directory, entries, size,\n"
    "                      hits and misses\n"
    "  cache clear         delete every entry of the compilation cache\n"
    "\n"
    "options:\n"
    "  -h, --help          show this help\n"
    "  -V, --version       show the ptxjit and LLVM versions\n"
    "\n"
    "run options:\n"
    "  -k, --kernel NAME   the .entry to run (optional if the module has one)\n"
    "  -g, --grid X,Y,Z    grid dimensions in blocks (default 1)\n"
    "  -b, --block X,Y,Z   block dimensions in threads (default .reqntid, else 1)\n"
    "  --shared BYTES      dynamic shared memory per block\n"
    "  --arg SPEC          one per kernel parameter, in order:\n"
    "                        scalar  TYPE:VALUE          e.g. u32:1024, f32:2.5, u64:0x10\n"
    "                        buffer  TYPE[N]:INIT        INIT = zeros | fill=V | iota |\n"
    "                                                    rand[=SEED] | file=PATH\n"
    "                      TYPE: u8 s8 u16 s16 u32 s32 u64 s64 f16 bf16 f32 f64\n"
    "  --out N=PATH        write buffer argument N (0-based) to PATH as raw bytes\n"
    "  --print N[:COUNT]   print the first COUNT elements of buffer argument N\n"
    "  --repeat R          run R times; report min and median kernel time\n"
    "  --stats             print parse/lower/compile/run timings and whether the\n"
    "                      compilation cache had the kernel (hit) or not (miss)\n"
    "  --no-cache          compile even if cached, and do not store the result\n"
    "  --cooperative       a cooperative launch: all blocks at once, grid-wide\n"
    "                      barriers (cg::this_grid().sync()) work\n"
    "\n"
    "environment:\n"
    "  PTXJIT_THREADS        worker threads (default: one per CPU)\n"
    "  PTXJIT_CACHE_PATH     compilation cache directory (default:\n"
    "                        $XDG_CACHE_HOME/ptxjit, else ~/.cache/ptxjit)\n"
    "  PTXJIT_CACHE_MAXSIZE  cache size bound in bytes, suffixes K M G (default 256M)\n"
    "  PTXJIT_CACHE_DISABLE  1: no compilation cache\n"
    "  PTXJIT_DEBUG          debug channels, e.g. cache\n"
    "  PTXJIT_PERF_MAP       1: name the JIT's code for perf in /tmp/perf-PID.map\n"
    "FILE may be '-' for standard input.\n"
    "exit status: 0 success, 1 kernel failure, 2 usage or PTX error\n";

/* Parses and checks one file; prints diagnostics; returns the module or
 * NULL (with *status set) when the file is unreadable or invalid. */
static ptx_module *load(const char *path, int *status)
{
    size_t len;
    char *src = cli_read_file(path, PTXJIT_MAX_PTX_BYTES, &len);
    if (!src) {
        fprintf(stderr, "ptxjit: cannot read '%s': %s%s\n", path, strerror(errno),
                errno == EFBIG ? " (PTX input is limited to 64 MiB)" : "");
        *status = EXIT_USAGE;
        return NULL;
    }
    const char *name = strcmp(path, "-") ? path : "<stdin>";
    ptx_diags d = {0};
    ptx_module *m = ptx_parse(src, len, name, &d);
    if (m && d.n == 0)
        ptx_check(m, &d);
    if (!m)
        fprintf(stderr, "ptxjit: out of memory while parsing '%s'\n", name);
    ptx_diags_print(&d, name, src, len, stderr);
    bool bad = !m || d.n || d.dropped;
    ptx_diags_free(&d);
    free(src);
    if (bad) {
        ptx_module_free(m);
        *status = EXIT_USAGE;
        return NULL;
    }
    return m;
}

static int cmd_check(int argc, char **argv)
{
    if (argc < 1) {
        fprintf(stderr, "ptxjit check: no input file\n%s", usage);
        return EXIT_USAGE;
    }
    int status = EXIT_OK;
    for (int i = 0; i < argc; i++) {
        int s = EXIT_OK;
        ptx_module_free(load(argv[i], &s));
        if (s != EXIT_OK)
            status = s;
    }
    return status;
}

static int cmd_print(int argc, char **argv)
{
    if (argc != 1) {
        fprintf(stderr, "ptxjit print: expected exactly one input file\n");
        return EXIT_USAGE;
    }
    int status = EXIT_OK;
    ptx_module *m = load(argv[0], &status);
    if (!m)
        return status;
    char *text = ptx_print(m);
    ptx_module_free(m);
    if (!text) {
        fprintf(stderr, "ptxjit: out of memory\n");
        return EXIT_USAGE;
    }
    fputs(text, stdout);
    free(text);
    return EXIT_OK;
}

static int print_version(void)
{
    unsigned maj, min, patch;
    LLVMGetVersion(&maj, &min, &patch);
    printf("ptxjit %s (LLVM %u.%u.%u)\n", PTXJIT_VERSION, maj, min, patch);
    return EXIT_OK;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage, stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        fputs(usage, stdout);
        return EXIT_OK;
    }
    if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version"))
        return print_version();
    for (int i = 2; i < argc; i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            fputs(usage, stdout);
            return EXIT_OK;
        } else if (!strcmp(argv[i], "--")) {
            break;
        }
    if (!strcmp(cmd, "check"))
        return cmd_check(argc - 2, argv + 2);
    if (!strcmp(cmd, "print"))
        return cmd_print(argc - 2, argv + 2);
    if (!strcmp(cmd, "run"))
        return cmd_run(argc - 1, argv + 1);
    if (!strcmp(cmd, "cache"))
        return cmd_cache(argc - 1, argv + 1);
    fprintf(stderr, "ptxjit: unknown command '%s'\n%s", cmd, usage);
    return EXIT_USAGE;
}
