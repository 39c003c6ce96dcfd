/* run.c - `ptxjit run`: load a PTX module, build the kernel's arguments
 * from --arg specs, launch it (optionally repeatedly, timed), then write or
 * print buffers.  Exit codes: 0 success, 1 kernel failure, 2 usage or PTX
 * error. */
#include "run.h"

#include "ptxjit/ptxjit.h"
#include "read_file.h"
#include "run_args.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { EXIT_OK = 0, EXIT_KERNEL = 1, EXIT_USAGE = 2 };

typedef struct run_opts {
    const char *path, *kernel;
    uint32_t grid[3], block[3];
    bool block_given, stats, no_cache, cooperative;
    uint64_t shared, repeat;
    const char **args, **outs, **prints;
    size_t nargs, nouts, nprints;
} run_opts;

static int usage_error(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "ptxjit run: ");
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, "\n(see ptxjit --help)\n");
    return EXIT_USAGE;
}

static bool push(const char ***v, size_t *n, const char *s)
{
    const char **nv = realloc(*v, (*n + 1) * sizeof *nv);
    if (!nv)
        return false;
    nv[(*n)++] = s;
    *v = nv;
    return true;
}

static int parse_opts(int argc, char **argv, run_opts *o)
{
    static const struct option longs[] = {
        {"kernel", required_argument, 0, 'k'}, {"grid", required_argument, 0, 'g'},
        {"block", required_argument, 0, 'b'}, {"shared", required_argument, 0, 's'},
        {"arg", required_argument, 0, 'a'},    {"out", required_argument, 0, 'o'},
        {"print", required_argument, 0, 'p'}, {"repeat", required_argument, 0, 'r'},
        {"stats", no_argument, 0, 'S'},        {"no-cache", no_argument, 0, 'C'},
        {"cooperative", no_argument, 0, 'c'},
        {0, 0, 0, 0},
    };
    char err[256];
    o->grid[0] = o->grid[1] = o->grid[2] = 1;
    o->block[0] = o->block[1] = o->block[2] = 1;
    o->repeat = 1;
    optind = 1;
    opterr = 0;
    for (int c; (c = getopt_long(argc, argv, "k:g:b:", longs, NULL)) != -1;) {
        bool ok = true;
        switch (c) {
        case 'k': o->kernel = optarg; break;
        case 'g':
            if (runargs_parse_dim3(optarg, RUNARGS_DIM_GRID, o->grid, err, sizeof err))
                return usage_error("%s", err, "");
            break;
        case 'b':
            if (runargs_parse_dim3(optarg, RUNARGS_DIM_BLOCK, o->block, err, sizeof err))
                return usage_error("%s", err, "");
            o->block_given = true;
            break;
        case 's':
            if (runargs_parse_u64(optarg, 0, UINT32_MAX, &o->shared, err, sizeof err))
                return usage_error("--shared: %s", err, "");
            break;
        case 'r':
            if (runargs_parse_u64(optarg, 1, 1000000, &o->repeat, err, sizeof err))
                return usage_error("--repeat: %s", err, "");
            break;
        case 'a': ok = push(&o->args, &o->nargs, optarg); break;
        case 'o': ok = push(&o->outs, &o->nouts, optarg); break;
        case 'p': ok = push(&o->prints, &o->nprints, optarg); break;
        case 'S': o->stats = true; break;
        case 'C': o->no_cache = true; break;
        case 'c': o->cooperative = true; break;
        default:
            return usage_error("unknown or incomplete option '%s'%s", argv[optind - 1], "");
        }
        if (!ok)
            return usage_error("out of memory%s%s", "", "");
    }
    if (optind == argc)
        return usage_error("no PTX file given%s%s", "", "");
    if (optind + 1 < argc)
        return usage_error("unexpected argument '%s'%s", argv[optind + 1], "");
    o->path = argv[optind];
    return EXIT_OK;
}

static const ptxjit_kernel *pick_kernel(const ptxjit_module *m, const char *name, const char *path)
{
    uint32_t n = ptxjit_kernel_count(m);
    if (!name && n == 1)
        return ptxjit_kernel_at(m, 0);
    const ptxjit_kernel *k = name ? ptxjit_kernel_get(m, name) : NULL;
    if (k)
        return k;
    if (!n)
        fprintf(stderr, "ptxjit run: '%s' has no .entry kernels\n", path);
    else if (name)
        fprintf(stderr, "ptxjit run: no kernel '%s' in '%s'; its kernels are:\n", name, path);
    else
        fprintf(stderr, "ptxjit run: '%s' has %u kernels; choose one with -k:\n", path, n);
    for (uint32_t i = 0; i < n; i++)
        fprintf(stderr, "  %s\n", ptxjit_kernel_name(ptxjit_kernel_at(m, i)));
    return NULL;
}

/* Parses, checks against the kernel and materializes every --arg. */
static int build_args(const run_opts *o, const ptxjit_kernel_info *ki, runargs_arg *args)
{
    char err[512];
    for (size_t i = 0; i < o->nargs; i++)
        if (runargs_parse_arg(o->args[i], i, &args[i], err, sizeof err))
            return usage_error("%s%s", err, "");
    if (runargs_check_kernel(ki, args, o->nargs, err, sizeof err))
        return usage_error("%s%s", err, "");
    for (size_t i = 0; i < o->nouts; i++) {
        runargs_out out;
        if (runargs_parse_out(o->outs[i], &out, err, sizeof err) ||
            runargs_check_ref("--out", out.index, args, o->nargs, err, sizeof err))
            return usage_error("%s%s", err, "");
    }
    for (size_t i = 0; i < o->nprints; i++) {
        runargs_print pr;
        if (runargs_parse_print(o->prints[i], &pr, err, sizeof err) ||
            runargs_check_ref("--print", pr.index, args, o->nargs, err, sizeof err))
            return usage_error("%s%s", err, "");
    }
    for (size_t i = 0; i < o->nargs; i++)
        if (args[i].is_buffer && runargs_materialize(&args[i], err, sizeof err))
            return usage_error("%s%s", err, "");
    return EXIT_OK;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int launch_timed(ptxjit_ctx *ctx, const ptxjit_kernel *k, const ptxjit_launch_cfg *cfg,
                        bool cooperative, uint64_t repeat, double *times)
{
    char err[700];
    /* compiled first: the kernel time is the kernel's */
    ptxjit_status cs = ptxjit_kernel_compile(k, cfg->block, err, sizeof err);
    if (cs == PTXJIT_ERR_INVALID) {
        fprintf(stderr, "ptxjit run: %s\n", err);
        return EXIT_USAGE;
    }
    if (cs != PTXJIT_OK) {
        fprintf(stderr, "ptxjit run: error: %s\n", err);
        return cs == PTXJIT_ERR_NOMEM ? EXIT_KERNEL : EXIT_USAGE; /* else a PTX error */
    }
    for (uint64_t r = 0; r < repeat; r++) {
        double t0 = now();
        ptxjit_status st = cooperative ? ptxjit_launch_cooperative(ctx, k, cfg, err, sizeof err)
                                       : ptxjit_launch(ctx, k, cfg, err, sizeof err);
        times[r] = now() - t0;
        fflush(stdout);
        if (st == PTXJIT_ERR_INVALID) {
            fprintf(stderr, "ptxjit run: %s\n", err);
            return EXIT_USAGE;
        }
        if (st != PTXJIT_OK) {
            fprintf(stderr, "ptxjit run: error: %s\n", err);
            return EXIT_KERNEL;
        }
    }
    return EXIT_OK;
}

static int write_outputs(const run_opts *o, const runargs_arg *args)
{
    char err[512];
    for (size_t i = 0; i < o->nouts; i++) {
        runargs_out out;
        runargs_parse_out(o->outs[i], &out, err, sizeof err);
        if (runargs_write_buffer(&args[out.index], out.path, err, sizeof err)) {
            fprintf(stderr, "ptxjit run: --out %s: %s\n", o->outs[i], err);
            return EXIT_USAGE;
        }
    }
    for (size_t i = 0; i < o->nprints; i++) {
        runargs_print pr;
        runargs_parse_print(o->prints[i], &pr, err, sizeof err);
        runargs_print_buffer(stdout, &args[pr.index], pr.count);
    }
    return EXIT_OK;
}

static void print_stats(const ptxjit_ctx *ctx, const ptxjit_stats *s, const double *times,
                        uint64_t repeat)
{
    qsort((double *)times, repeat, sizeof *times, cmp_double);
    fprintf(stderr, "parse %.3f ms, lower %.3f ms, optimize %.3f ms, codegen %.3f ms, load %.3f ms\n",
            s->parse * 1e3, s->lower * 1e3, s->optimize * 1e3, s->codegen * 1e3, s->load * 1e3);
    if (s->cache_result == PTXJIT_CACHE_OFF)
        fprintf(stderr, "cache: off\n");
    else
        fprintf(stderr, "cache: %s, %.3f ms (%s)\n",
                s->cache_result == PTXJIT_CACHE_HIT ? "hit" : "miss", s->cache * 1e3,
                ptxjit_cache_dir(ctx));
    fprintf(stderr, "kernels: %u compiled, %u from the cache\n", s->kernels_compiled,
            s->kernels_cached);
    fprintf(stderr, "kernel time: min %.3f ms, median %.3f ms over %llu run%s\n", times[0] * 1e3,
            times[repeat / 2] * 1e3, (unsigned long long)repeat, repeat == 1 ? "" : "s");
}

static int run_loaded(ptxjit_ctx *ctx, const ptxjit_module *m, run_opts *o)
{
    const ptxjit_kernel *k = pick_kernel(m, o->kernel, o->path);
    if (!k)
        return EXIT_USAGE;
    const ptxjit_kernel_info *ki = ptxjit_kernel_info_of(k);
    if (!o->block_given && ki->reqntid[0])
        for (int i = 0; i < 3; i++)
            o->block[i] = ki->reqntid[i] ? ki->reqntid[i] : 1;
    runargs_arg *args = calloc(o->nargs + 1, sizeof *args);
    double *times = calloc(o->repeat, sizeof *times);
    void *params = NULL;
    size_t psize;
    char err[512];
    int rc = args && times ? build_args(o, ki, args) : EXIT_USAGE;
    if (rc == EXIT_OK && runargs_pack_params(ki, args, o->nargs, &params, &psize, NULL, err, sizeof err))
        rc = usage_error("%s%s", err, "");
    if (rc == EXIT_OK) {
        ptxjit_launch_cfg cfg = {.shared_bytes = (uint32_t)o->shared, .params = params};
        memcpy(cfg.grid, o->grid, sizeof cfg.grid);
        memcpy(cfg.block, o->block, sizeof cfg.block);
        rc = launch_timed(ctx, k, &cfg, o->cooperative, o->repeat, times);
    }
    if (rc == EXIT_OK)
        rc = write_outputs(o, args);
    if (rc == EXIT_OK && (o->stats || o->repeat > 1)) {
        ptxjit_stats st = ptxjit_module_stats(m);
        print_stats(ctx, &st, times, o->repeat);
    }
    for (size_t i = 0; args && i < o->nargs; i++)
        runargs_free(&args[i]);
    free(args);
    free(times);
    free(params);
    return rc;
}

int cmd_run(int argc, char **argv)
{
    run_opts o = {0};
    int rc = parse_opts(argc, argv, &o);
    if (rc != EXIT_OK)
        goto out;
    size_t len;
    char *src = cli_read_file(o.path, PTXJIT_MAX_PTX_BYTES, &len);
    if (!src) {
        fprintf(stderr, "ptxjit run: cannot read '%s': %s%s\n", o.path, strerror(errno),
                errno == EFBIG ? " (PTX input is limited to 64 MiB)" : "");
        rc = EXIT_USAGE;
        goto out;
    }
    char err[512], *log = NULL;
    ptxjit_ctx *ctx = ptxjit_create(0, err, sizeof err);
    if (!ctx) {
        fprintf(stderr, "ptxjit run: %s\n", err);
        free(src);
        rc = EXIT_KERNEL;
        goto out;
    }
    if (o.no_cache)
        ptxjit_set_cache(ctx, &(ptxjit_cache_opts){.enabled = false});
    const char *name = strcmp(o.path, "-") ? o.path : "<stdin>";
    ptxjit_module *m = ptxjit_load(ctx, src, len, name, &log, NULL);
    if (!m) { /* no log: memory ran out, not the PTX's fault */
        fputs(log ? log : "ptxjit run: out of memory (or over the process's memory limit)\n",
              stderr);
        rc = log ? EXIT_USAGE : EXIT_KERNEL;
    } else {
        rc = run_loaded(ctx, m, &o);
    }
    /* Output that could not be written (a full disk, /dev/full) is a
     * failure, not a silent loss. */
    if (fflush(stdout) || ferror(stdout)) {
        fprintf(stderr, "ptxjit run: cannot write the output: %s\n", strerror(errno));
        if (rc == EXIT_OK)
            rc = EXIT_KERNEL;
    }
    free(log);
    ptxjit_module_unload(m);
    ptxjit_destroy(ctx);
    free(src);
out:
    free(o.args);
    free(o.outs);
    free(o.prints);
    return rc;
}
