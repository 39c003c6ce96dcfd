/* lower.c - the lowering driver: module variables, function signatures,
 * body partitioning into blocks, and per-instruction dispatch by family.
 * Order matters: variables and function declarations first (bodies refer
 * to them), then bodies, then the LLVM verifier. */
#include "lower_internal.h"

#include <llvm-c/Analysis.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- small helpers ---- */

void lw_error(lw *L, ptx_loc loc, const char *fmt, ...)
{
    char buf[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    ptx_diag_add(L->diags, loc, "%s", buf);
    L->errors++;
}

LLVMTypeRef vec_of(LLVMTypeRef t) { return LLVMVectorType(t, W); }

LLVMValueRef splat(lw *L, LLVMValueRef scalar)
{
    if (LLVMIsConstant(scalar)) { /* folding insert + shuffle costs more (lowering time) */
        LLVMValueRef e[W];
        for (uint32_t i = 0; i < W; i++)
            e[i] = scalar;
        return LLVMConstVector(e, W);
    }
    LLVMTypeRef vt = vec_of(LLVMTypeOf(scalar));
    LLVMValueRef undef = LLVMGetPoison(vt);
    LLVMValueRef one = LLVMBuildInsertElement(L->b, undef, scalar, const_i32(L, 0), "");
    return LLVMBuildShuffleVector(L->b, one, undef, LLVMConstNull(vec_of(L->i32)), "");
}

LLVMValueRef const_i32(lw *L, uint32_t v) { return LLVMConstInt(L->i32, v, false); }
LLVMValueRef const_i64(lw *L, uint64_t v) { return LLVMConstInt(L->i64, v, false); }

LLVMValueRef entry_alloca(fn *F, LLVMTypeRef t, const char *name)
{
    LLVMBuilderRef b = LLVMCreateBuilderInContext(F->L->ctx);
    LLVMPositionBuilderBefore(b, F->alloca_ip);
    LLVMValueRef a = LLVMBuildAlloca(b, t, name);
    LLVMSetAlignment(a, 64);
    LLVMDisposeBuilder(b);
    return a;
}

LLVMValueRef call_intrinsic(lw *L, const char *name, LLVMTypeRef *types, unsigned ntypes,
                            LLVMValueRef *args, unsigned nargs)
{
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    LLVMValueRef f = LLVMGetIntrinsicDeclaration(L->mod, id, types, ntypes);
    LLVMTypeRef ft = LLVMIntrinsicGetType(L->ctx, id, types, ntypes);
    return LLVMBuildCall2(L->b, ft, f, args, nargs, "");
}

/* A conditional branch taken about yes_w times for every no_w times it is
 * not: LLVM lays the hot side out straight and keeps its values in
 * registers, spilling on the cold side. */
LLVMValueRef weighted_branch(lw *L, LLVMValueRef cond, LLVMBasicBlockRef yes, LLVMBasicBlockRef no,
                             uint32_t yes_w, uint32_t no_w)
{
    LLVMValueRef br = LLVMBuildCondBr(L->b, cond, yes, no);
    LLVMMetadataRef w[3] = {LLVMMDStringInContext2(L->ctx, "branch_weights", 14),
                            LLVMValueAsMetadata(const_i32(L, yes_w)), LLVMValueAsMetadata(const_i32(L, no_w))};
    LLVMSetMetadata(br, LLVMGetMDKindIDInContext(L->ctx, "prof", 4),
                    LLVMMetadataAsValue(L->ctx, LLVMMDNodeInContext2(L->ctx, w, 3)));
    return br;
}

LLVMValueRef declare_rt(lw *L, const char *name, LLVMTypeRef ret, LLVMTypeRef *params,
                        unsigned nparams)
{
    LLVMValueRef f = LLVMGetNamedFunction(L->mod, name);
    if (!f)
        f = LLVMAddFunction(L->mod, name, LLVMFunctionType(ret, params, nparams, false));
    return f;
}

LLVMValueRef mask_and(fn *F, LLVMValueRef a, LLVMValueRef b)
{
    return LLVMBuildAnd(F->L->b, a, b, "");
}

LLVMValueRef mask_bits(fn *F, LLVMValueRef mask)
{
    return LLVMBuildBitCast(F->L->b, mask, F->L->i32, "");
}

LLVMValueRef load_field(fn *F, LLVMValueRef base, uint32_t offset, LLVMTypeRef t)
{
    lw *L = F->L;
    LLVMValueRef idx = const_i64(L, offset);
    LLVMValueRef p = LLVMBuildGEP2(L->b, L->i8, base, &idx, 1, "");
    LLVMValueRef v = LLVMBuildLoad2(L->b, t, p, "");
    /* The CTA and launch records do not change while the code runs: such
     * loads may leave the CTA loop (stores to the frames cannot alias). */
    LLVMSetMetadata(v, LLVMGetMDKindIDInContext(L->ctx, "invariant.load", 14),
                    LLVMMetadataAsValue(L->ctx, LLVMMDNodeInContext2(L->ctx, NULL, 0)));
    return v;
}

/* Runs body(lane) for each lane in mask, in lane order (a scalar loop
 * over the set bits: no test per inactive lane). */
void for_each_lane(fn *F, LLVMValueRef mask, lane_fn body, void *ctx)
{
    lw *L = F->L;
    LLVMTypeRef i32t = L->i32;
    LLVMValueRef bits = mask_bits(F, mask);
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(L->b);
    LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "lane.loop");
    LLVMBasicBlockRef out = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "lane.done");
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntNE, bits, const_i32(L, 0), ""), loop, out);
    LLVMPositionBuilderAtEnd(L->b, loop);
    LLVMValueRef left = LLVMBuildPhi(L->b, L->i32, "lanes.left");
    LLVMValueRef i = call_intrinsic(L, "llvm.cttz", &i32t, 1, (LLVMValueRef[]){left, LLVMConstInt(L->i1, 1, false)}, 2);
    body(F, i, ctx);
    LLVMValueRef rest = LLVMBuildAnd(L->b, left, LLVMBuildSub(L->b, left, const_i32(L, 1), ""), "");
    LLVMBasicBlockRef end = LLVMGetInsertBlock(L->b);
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntNE, rest, const_i32(L, 0), ""), loop, out);
    LLVMValueRef vals[2] = {bits, rest};
    LLVMBasicBlockRef from[2] = {pre, end};
    LLVMAddIncoming(left, vals, from, 2);
    LLVMPositionBuilderAtEnd(L->b, out);
}

/* ---- pointer map ---- */

static uint32_t ptr_hash(const void *p) { return (uint32_t)(((uintptr_t)p >> 4) * 2654435761u); }

void *ptrmap_get(const ptrmap *m, const void *key)
{
    if (!m->cap)
        return NULL;
    for (uint32_t i = ptr_hash(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (m->keys[i] == key)
            return m->vals[i];
        if (!m->keys[i])
            return NULL;
    }
}

void ptrmap_put(ptrmap *m, const void *key, void *val)
{
    if ((m->n + 1) * 2 > m->cap) {
        ptrmap old = *m;
        m->cap = old.cap ? old.cap * 2 : 64;
        m->n = 0;
        m->keys = calloc(m->cap, sizeof *m->keys);
        m->vals = calloc(m->cap, sizeof *m->vals);
        if (!m->keys || !m->vals)
            abort(); /* lowering has no partial-failure path for maps */
        for (uint32_t i = 0; i < old.cap; i++)
            if (old.keys[i])
                ptrmap_put(m, old.keys[i], old.vals[i]);
        free(old.keys);
        free(old.vals);
    }
    uint32_t i = ptr_hash(key) & (m->cap - 1);
    while (m->keys[i] && m->keys[i] != key)
        i = (i + 1) & (m->cap - 1);
    if (!m->keys[i])
        m->n++;
    m->keys[i] = key;
    m->vals[i] = val;
}

void ptrmap_free(ptrmap *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

/* ---- module variables ---- */

/* An initializer flattened to bytes plus address relocations. */
typedef struct reloc {
    uint64_t pos;
    const ptx_init *in;
} reloc;

typedef struct flat_init {
    uint8_t *bytes;
    uint64_t size, pos;
    reloc *relocs;
    uint32_t nrelocs;
} flat_init;

static void flatten(lw *L, const ptx_var *v, const ptx_init *in, flat_init *fi)
{
    uint32_t es = ptx_type_size(v->type);
    if (v->type == PTX_TYPE_SAMPLERREF && fi->size >= 8) { /* the state is the handle (lower_tex.c) */
        uint64_t bits = lower_sampler_bits(in);
        memcpy(fi->bytes, &bits, 8);
        return;
    }
    if (in->kind == PTX_INIT_LIST) {
        for (uint32_t i = 0; i < in->nelems; i++)
            flatten(L, v, in->elems[i], fi);
        return;
    }
    if (fi->pos + es > fi->size)
        return;
    uint64_t bits = in->ival;
    if (in->kind == PTX_INIT_F64 && v->type == PTX_TYPE_F32) {
        double d;
        memcpy(&d, &bits, 8);
        float f = (float)d;
        uint32_t u;
        memcpy(&u, &f, 4);
        bits = u;
    } else if (in->kind == PTX_INIT_F32 && v->type == PTX_TYPE_F64) {
        float f;
        uint32_t u = (uint32_t)bits;
        memcpy(&f, &u, 4);
        double d = f;
        memcpy(&bits, &d, 8);
    } else if (in->kind == PTX_INIT_MASK) {
        lw_error(L, in->loc, "masked address initializers are not supported yet");
        return;
    } else if (in->kind == PTX_INIT_SYM || in->kind == PTX_INIT_GENERIC) {
        reloc *r = realloc(fi->relocs, (fi->nrelocs + 1) * sizeof *r);
        if (!r)
            abort();
        fi->relocs = r;
        r[fi->nrelocs++] = (reloc){fi->pos, in};
        bits = 0;
    }
    memcpy(fi->bytes + fi->pos, &bits, es); /* little-endian host */
    fi->pos += es;
}

/* The address of a module variable plus an offset, as an integer of the
 * element size, for an initializer. */
static LLVMValueRef reloc_value(lw *L, const ptx_var *v, const ptx_init *in)
{
    LLVMValueRef g = NULL;
    for (uint32_t i = 0; i < L->m->nitems && !g; i++) {
        const ptx_item *it = &L->m->items[i];
        if (it->kind == PTX_ITEM_VAR && !strcmp(it->var->name, in->sym))
            g = ptrmap_get(&L->globals, it->var);
        else if (it->kind == PTX_ITEM_FUNC && !strcmp(it->func->name, in->sym))
            g = ptrmap_get(&L->funcs, it->func);
    }
    if (!g) {
        lw_error(L, in->loc, "initializer refers to '%s', which has no global address", in->sym);
        return LLVMConstNull(storage_int(L, v->type));
    }
    LLVMValueRef off = const_i64(L, in->ival);
    LLVMValueRef p = LLVMConstGEP2(L->i8, g, &off, 1);
    return LLVMConstPtrToInt(p, storage_int(L, v->type));
}

/* A packed struct of byte runs and relocated addresses. */
static LLVMValueRef initializer(lw *L, const ptx_var *v, flat_init *fi)
{
    if (!fi->nrelocs)
        return LLVMConstStringInContext2(L->ctx, (const char *)fi->bytes, fi->size, true);
    uint32_t es = ptx_type_size(v->type), n = 0;
    LLVMValueRef *parts = calloc(2 * fi->nrelocs + 1, sizeof *parts);
    uint64_t at = 0;
    for (uint32_t i = 0; i < fi->nrelocs; i++) {
        if (fi->relocs[i].pos > at)
            parts[n++] = LLVMConstStringInContext2(L->ctx, (const char *)fi->bytes + at,
                                                   fi->relocs[i].pos - at, true);
        parts[n++] = reloc_value(L, v, fi->relocs[i].in);
        at = fi->relocs[i].pos + es;
    }
    if (at < fi->size)
        parts[n++] = LLVMConstStringInContext2(L->ctx, (const char *)fi->bytes + at, fi->size - at, true);
    LLVMValueRef s = LLVMConstStructInContext(L->ctx, parts, n, true);
    free(parts);
    return s;
}

/* Symbols of kernels and module variables: each module is loaded into its
 * own JIT unit, so the names only need to be unique within the module (and
 * the same object file can be cached and loaded any number of times). */
static char *prefixed_symbol(const char *prefix, const char *name)
{
    size_t n = strlen(prefix) + strlen(name) + 1;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s%s", prefix, name);
    return s;
}

/* A kernel specialized for a block shape gets its own symbol, so that its
 * versions can live in one JIT unit. */
static char *entry_symbol(const lw *L, const char *name)
{
    const uint32_t *n = L->opts.ntid;
    if (!n[0])
        return prefixed_symbol("ptxjit.entry.", name);
    char prefix[64];
    snprintf(prefix, sizeof prefix, "ptxjit.entry.%ux%ux%u.", n[0], n[1] ? n[1] : 1,
             n[2] ? n[2] : 1);
    return prefixed_symbol(prefix, name);
}

/* Remembers an exported variable for lower_result.globals. */
static void record_global(lw *L, const ptx_var *v, char *sym, uint64_t size)
{
    if (!sym)
        return;
    if (L->nglobals == L->capglobals) {
        uint32_t cap = L->capglobals ? 2 * L->capglobals : 8;
        lower_global *g = realloc(L->globals_out, cap * sizeof *g);
        if (!g) {
            free(sym);
            return;
        }
        L->globals_out = g;
        L->capglobals = cap;
    }
    L->globals_out[L->nglobals++] =
        (lower_global){.var = v, .symbol = sym, .size = size, .is_const = v->space == PTX_SP_CONST,
                       .managed = v->managed};
}

/* With one kernel lowered (lower_options.kernel), the module's variables
 * live in another object, one storage per loaded module shared by all its
 * kernels: here they are declarations, resolved when the JIT links the
 * kernel's object.  Same names in the same order as the definitions, so
 * that a clash is renamed the same way. */
static void declare_module_var(lw *L, const ptx_var *v, uint64_t size)
{
    char *sym = prefixed_symbol(LOWER_VAR_PREFIX, v->name);
    LLVMValueRef g = LLVMAddGlobal(L->mod, LLVMArrayType2(L->i8, size), sym ? sym : v->name);
    LLVMSetAlignment(g, decl_align(v) < 16 ? 16 : decl_align(v));
    free(sym);
    record_global(L, v, strdup(LLVMGetValueName(g)), size);
    ptrmap_put(&L->globals, v, g);
}

static void lower_module_var(lw *L, const ptx_var *v)
{
    uint64_t size = decl_size(v);
    if (v->space == PTX_SP_SHARED) {
        if (ptrmap_get(&L->shared_off, v))
            return; /* laid out up front (layout_function_vars) */
        if (L->opts.kernel && !ptrmap_get(L->need, v))
            return; /* another kernel's: not in this one's window (shared_bytes) */
        uint32_t align = decl_align(v) < 16 ? 16 : decl_align(v);
        if (v->linkage & PTX_LINK_EXTERN) { /* dynamic shared memory */
            if (align > L->dyn_smem_align)
                L->dyn_smem_align = align;
            ptrmap_put(&L->shared_off, v, (void *)(uintptr_t)UINT32_MAX);
            return;
        }
        L->static_smem = (L->static_smem + align - 1) & ~(align - 1);
        ptrmap_put(&L->shared_off, v, (void *)(uintptr_t)(L->static_smem + 1));
        L->static_smem += (uint32_t)size;
        return;
    }
    if (v->space != PTX_SP_GLOBAL && v->space != PTX_SP_CONST) {
        lw_error(L, v->loc, "module variables in .%s are not supported", ptx_space_name(v->space));
        return;
    }
    if (v->linkage & PTX_LINK_EXTERN) {
        lw_error(L, v->loc, ".extern variable '%s' needs linking, not supported yet", v->name);
        return;
    }
    if (L->opts.kernel) {
        declare_module_var(L, v, size);
        return;
    }
    flat_init fi = {.bytes = calloc(1, size ? size : 1), .size = size};
    if (v->init)
        flatten(L, v, v->init, &fi);
    LLVMValueRef init = initializer(L, v, &fi);
    /* Exported, so that the host can find it (cuModuleGetGlobal) and
     * write it (cudaMemcpyToSymbol, even for .const). */
    char *sym = prefixed_symbol(LOWER_VAR_PREFIX, v->name);
    LLVMValueRef g = LLVMAddGlobal(L->mod, LLVMTypeOf(init), sym ? sym : v->name);
    LLVMSetInitializer(g, init);
    LLVMSetAlignment(g, decl_align(v) < 16 ? 16 : decl_align(v));
    /* LLVM renames a clash (function-scope statics of the same name). */
    free(sym);
    record_global(L, v, strdup(LLVMGetValueName(g)), size);
    free(fi.bytes);
    free(fi.relocs);
    ptrmap_put(&L->globals, v, g);
}

/* ---- functions ---- */

/* .func signature: i32 f(ptr cta, i32 warp, i32 mask, ptr ret..., ptr param...)
 * returning the lanes that returned normally (the others exited). */
LLVMTypeRef lower_func_type(lw *L, const ptx_func *f)
{
    uint32_t n = 3 + f->nrets + f->nparams;
    LLVMTypeRef *p = calloc(n, sizeof *p);
    p[0] = L->ptr;
    p[1] = L->i32;
    p[2] = L->i32;
    for (uint32_t i = 3; i < n; i++)
        p[i] = L->ptr;
    LLVMTypeRef t = LLVMFunctionType(L->i32, p, n, false);
    free(p);
    return t;
}



/* Warps run as fibers when one may wait for another: CTA barriers, the
 * waits that yield (mbarrier tests, nanosleep) and polling accesses, which
 * yield inside loops (a warp spinning on a flag or lock of another warp). */
static bool waits_for_warps(const ptx_instr *in)
{
    ptx_opcode op = in->op;
    return (ptx_op_effects(op) & E_SYNC) || op == PTX_OP_MBARRIER_TEST_WAIT ||
           op == PTX_OP_MBARRIER_TRY_WAIT || op == PTX_OP_NANOSLEEP || is_polling_access(in);
}

static bool body_waits_for_warps(const ptx_func *f)
{
    for (uint32_t k = 0; k < f->nbody; k++)
        if (f->body[k].kind == PTX_STMT_INSTR && waits_for_warps(f->body[k].instr))
            return true;
    return false;
}

/* Some .func of the module waits for warps: any kernel may call it (also
 * through pointers), so every kernel's warps may wait; otherwise a kernel's
 * own body decides, the other kernels' barriers being theirs alone. */
static bool funcs_wait_for_warps(const ptx_module *m)
{
    for (uint32_t i = 0; i < m->nitems; i++) {
        const ptx_func *f = m->items[i].func;
        if (m->items[i].kind == PTX_ITEM_FUNC && !f->is_entry && body_waits_for_warps(f))
            return true;
    }
    return false;
}

static void declare_function(lw *L, const ptx_func *f)
{
    if (ptrmap_get(&L->funcs, f))
        return;
    LLVMValueRef fnv;
    if (f->is_entry) {
        LLVMTypeRef p[2] = {L->ptr, L->i32};
        char *sym = entry_symbol(L, f->name);
        fnv = LLVMAddFunction(L->mod, sym, LLVMFunctionType(L->voidt, p, 2, false));
        free(sym);
    } else {
        /* A prototype and the later definition are one LLVM function. */
        char name[512];
        snprintf(name, sizeof name, "ptxjit.func.%s", f->name);
        fnv = LLVMGetNamedFunction(L->mod, name);
        if (!fnv) {
            fnv = LLVMAddFunction(L->mod, name, lower_func_type(L, f));
            LLVMSetLinkage(fnv, LLVMInternalLinkage);
        }
    }
    ptrmap_put(&L->funcs, f, fnv);
}

bool is_terminator(const ptx_stmt *s)
{
    if (s->kind != PTX_STMT_INSTR)
        return false;
    ptx_opcode op = s->instr->op;
    return op == PTX_OP_BRA || op == PTX_OP_BRX_IDX || op == PTX_OP_RET || op == PTX_OP_EXIT;
}

/* Blocks start at labels and after terminators; lower_cfg.c then numbers
 * them by priority (reverse post-order). */
/* Blocks start at labels, after terminators and at the statements marked
 * in `split`; lower_cfg.c then numbers them by priority (reverse
 * post-order). */
void split_blocks(fn *F, const uint8_t *split)
{
    const ptx_func *f = F->f;
    free(F->block_of_stmt);
    free(F->next_block);
    free(F->from_later);
    free(F->may_repeat);
    F->block_of_stmt = calloc(f->nbody + 1, sizeof *F->block_of_stmt);
    uint32_t b = 0;
    bool fresh = true;
    for (uint32_t i = 0; i < f->nbody; i++) {
        if ((f->body[i].kind == PTX_STMT_LABEL || split[i]) && !fresh) {
            b++;
            fresh = true;
        }
        F->block_of_stmt[i] = b;
        if (f->body[i].kind == PTX_STMT_INSTR)
            fresh = false;
        if (is_terminator(&f->body[i]) && i + 1 < f->nbody) {
            b++;
            fresh = true;
        }
    }
    F->nblocks = b + 1;
    order_blocks(F);
}

static void partition(fn *F)
{
    place_sync_points(F); /* splits the body into blocks */
    F->blocks = calloc(F->nblocks, sizeof *F->blocks);
    F->conv = calloc(F->nblocks, sizeof *F->conv);
    if (!F->blocks || !F->conv)
        abort();
    for (uint32_t k = 0; k < F->nblocks; k++) {
        char name[32];
        snprintf(name, sizeof name, "b%u", k);
        F->blocks[k] = LLVMAppendBasicBlockInContext(F->L->ctx, F->fn, name);
        snprintf(name, sizeof name, "c%u", k);
        F->conv[k] = LLVMAppendBasicBlockInContext(F->L->ctx, F->fn, name);
    }
}

LLVMValueRef guard_mask(fn *F, const ptx_instr *in)
{
    if (!in->has_guard)
        return F->mask;
    LLVMValueRef p = read_opd(F, &in->guard, PTX_TYPE_PRED, false);
    return mask_and(F, F->mask, p);
}

void lower_instr(fn *F, const ptx_instr *in)
{
    if (F->iv_sums.n && ptrmap_get(&F->iv_sums, in))
        recompute_register(F, &in->opds[1]); /* the split's start, for its shape */
    LLVMValueRef mask = guard_mask(F, in);
    if (lower_wmma(F, in, mask) || lower_matrix(F, in, mask) || lower_tex(F, in, mask) || lower_half(F, in, mask) || lower_arith(F, in, mask) || lower_bits(F, in, mask) ||
        lower_intmix(F, in, mask) || lower_video(F, in, mask) || lower_mem(F, in, mask) || lower_atomic(F, in, mask) ||
        lower_fence(F, in, mask) || lower_warp(F, in, mask) || lower_call(F, in, mask) ||
        lower_sync(F, in, mask) || lower_mbarrier(F, in, mask) || lower_bulk(F, in, mask) ||
        lower_space(F, in, mask))
        return;
    lw_error(F->L, in->loc, "instruction '%s' is not supported yet", ptx_op_name(in->op));
}

void lower_stmts(fn *F, uint32_t first, uint32_t end, LLVMValueRef mask)
{
    for (uint32_t i = first; i < end; i++) {
        const ptx_stmt *s = &F->f->body[i];
        if (s->kind != PTX_STMT_INSTR || is_terminator(s))
            continue;
        F->mask = mask;
        lower_instr(F, s->instr);
        const ptx_instr *copy = forward_copy(F, s->instr);
        if (copy)
            lower_instr(F, copy);
    }
}

static void lower_local_decl(fn *F, const ptx_var *v)
{
    if (v->space == PTX_SP_LOCAL) {
        LLVMValueRef a = entry_alloca(F, LLVMArrayType2(F->L->i8, lane_stride(v) * W), v->name);
        if (decl_align(v) > 64)
            LLVMSetAlignment(a, decl_align(v));
        ptrmap_put(&F->locals, v, a);
    } else if (v->space == PTX_SP_PARAM) {
        param_storage(F, v);
    } else if (v->space == PTX_SP_SHARED) {
        lower_module_var(F->L, v);
    } else if (v->space == PTX_SP_GLOBAL || v->space == PTX_SP_CONST) {
        return; /* one storage per module, defined up front (layout_function_vars) */
    } else if (v->space != PTX_SP_REG) {
        lw_error(F->L, v->loc, "function-scope .%s variables are not supported",
                 ptx_space_name(v->space));
    }
}

static void lower_block_end(fn *F, uint32_t block, const ptx_stmt *last)
{
    if (last && is_terminator(last)) {
        lower_terminator(F, last->instr, block, guard_mask(F, last->instr));
        return;
    }
    leave_block(F, NULL, 0, F->next_block[block]);
}

static void lower_body(fn *F)
{
    lw *L = F->L;
    const ptx_func *f = F->f;
    partition(F);
    find_if_bodies(F);
    analyze_liveness(F);
    analyze_block_liveness(F);
    analyze_forwarding(F);
    analyze_remat(F);
    prune_forwarding(F);
    uint32_t cur = UINT32_MAX;
    const ptx_stmt *last = NULL;
    for (uint32_t i = 0; i <= f->nbody; i++) {
        uint32_t b = i < f->nbody ? F->block_of_stmt[i] : UINT32_MAX;
        if (b != cur) {
            if (cur != UINT32_MAX)
                lower_block_end(F, cur, last);
            if (b == UINT32_MAX)
                break;
            /* Blocks skipped by numbering (none in practice) fall through. */
            cur = F->cur_block = b;
            last = NULL;
            begin_block(F, b, i);
            uint32_t end = i;
            while (end < f->nbody && F->block_of_stmt[end] == b)
                end++;
            if (full_copy_pays(F, b, i, end)) {
                lower_block_twice(F, i, end);
                for (; i < end; i++) /* the terminator, if any, ends the block as usual */
                    if (f->body[i].kind == PTX_STMT_INSTR)
                        last = &f->body[i];
                i--;
                continue;
            }
        }
        const ptx_stmt *s = &f->body[i];
        if (s->kind == PTX_STMT_INSTR) {
            if (!last && F->park_block[b])
                arrive_sync_point(F, s->instr);
            last = s;
            if (!is_terminator(s)) {
                lower_instr(F, s->instr);
                const ptx_instr *copy = forward_copy(F, s->instr);
                if (copy)
                    lower_instr(F, copy);
            }
        } else if (s->kind == PTX_STMT_VAR) {
            lower_local_decl(F, s->var);
        }
    }
    if (!f->nbody) {
        LLVMPositionBuilderAtEnd(L->b, F->blocks[0]);
        F->mask = LLVMConstNull(vec_of(L->i1));
        F->converged = LLVMConstInt(L->i1, 0, false);
        lower_block_end(F, 0, NULL);
    }
    finish_converged_entries(F);
}

/* Entry block: arguments, lane constants, the initial pc vector. */
static void lower_prologue(fn *F)
{
    lw *L = F->L;
    LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "entry");
    LLVMPositionBuilderAtEnd(L->b, entry);
    F->cta = LLVMGetParam(F->fn, 0);
    /* before the marker: local_top's call reads the warp there */
    LLVMValueRef arg = row_arg_split(F, LLVMGetParam(F->fn, 1));
    F->alloca_ip = LLVMBuildAlloca(L->b, L->i8, "ip"); /* allocas go before this marker */
    if (F->resumable)
        resume_loop_begin(F, arg); /* the rest of the prologue is per warp */
    else
        F->warp = arg;
    LLVMValueRef lanes[W];
    for (uint32_t i = 0; i < W; i++)
        lanes[i] = const_i32(L, i);
    F->lane = LLVMConstVector(lanes, W);
    F->pc = entry_alloca(F, vec_of(L->i32), "pc");
    F->mask_slot = entry_alloca(F, vec_of(L->i1), "lanes");
    F->conv_slot = entry_alloca(F, L->i1, "converged");
    F->sched = entry_alloca(F, L->i32, "sched");
    LLVMBuildStore(L->b, const_i32(L, 0), F->sched);
    F->parked = entry_alloca(F, L->i32, "parked");
    LLVMBuildStore(L->b, const_i32(L, 0), F->parked);
    F->forced = entry_alloca(F, L->i32, "forced");
    LLVMBuildStore(L->b, const_i32(L, 0), F->forced);
    F->bar_done = entry_alloca(F, L->i32, "bar.done");
    LLVMBuildStore(L->b, const_i32(L, 0), F->bar_done);
    LLVMValueRef launch = load_field(F, F->cta, PTXJIT_CTA_GRID, L->ptr);
    F->shared_base = load_field(F, F->cta, PTXJIT_CTA_SHARED, L->ptr);
    LLVMMetadataRef align = LLVMValueAsMetadata(const_i64(L, PTXJIT_SHARED_ALIGN));
    LLVMSetMetadata(F->shared_base, LLVMGetMDKindIDInContext(L->ctx, "align", 5),
                    LLVMMetadataAsValue(L->ctx, LLVMMDNodeInContext2(L->ctx, &align, 1)));
    if (F->is_entry) {
        F->params_base = load_field(F, launch, PTXJIT_GRID_PARAMS, L->ptr);
        LLVMValueRef nthreads = F->ntid[0] ? const_i32(L, F->ntid[0] * F->ntid[1] * F->ntid[2])
                                           : load_field(F, launch, PTXJIT_GRID_NTHREADS, L->i32);
        LLVMValueRef first = LLVMBuildMul(L->b, F->warp, const_i32(L, W), "");
        LLVMValueRef tid = LLVMBuildAdd(L->b, splat(L, first), F->lane, "linear");
        F->entry_mask = LLVMBuildICmp(L->b, LLVMIntULT, tid, splat(L, nthreads), "live");
    } else {
        F->entry_mask = lanes_of(F, LLVMGetParam(F->fn, 2));
    }
    init_sregs(F);
    if (!F->is_entry)
        bind_func_params(F);
    if (F->resumable)
        resume_begin(F);
    LLVMValueRef pc0 = LLVMBuildSelect(L->b, F->entry_mask, LLVMConstNull(vec_of(L->i32)),
                                       splat(L, const_i32(L, PC_EXIT)), "");
    LLVMBuildStore(L->b, pc0, F->pc);
    F->dispatch = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "dispatch");
    F->done = LLVMAppendBasicBlockInContext(L->ctx, F->fn, "done");
}

/* The block shape an entry's code may assume: the launch's, when lowering
 * specializes, else .reqntid's; unknown for .func bodies (any caller). */
static void known_block_shape(fn *F)
{
    const uint32_t *n = F->L->opts.ntid[0] ? F->L->opts.ntid : F->f->reqntid;
    if (F->is_entry && n[0])
        for (int i = 0; i < 3; i++)
            F->ntid[i] = n[i] ? n[i] : 1;
}

/* Returns the size of the warp frame of a resumable kernel, else 0. */
static uint32_t lower_function(lw *L, const ptx_func *f)
{
    fn F = {.L = L, .f = f, .is_entry = f->is_entry, .fn = ptrmap_get(&L->funcs, f)};
    F.f = f = split_inductions(&F);
    known_block_shape(&F);
    F.resumable = kernel_resumes(L, f);
    if (f->is_entry)
        check_cluster_dims(L, f);
    lower_prologue(&F);
    LLVMBasicBlockRef entry = LLVMGetInsertBlock(L->b);
    lower_body(&F);
    LLVMPositionBuilderAtEnd(L->b, entry);
    /* A warp starts with its live lanes (lane 0 at least) at block 0, which
     * is the dispatcher's first pick. */
    LLVMBasicBlockRef start = f->is_entry && F.nblocks ? F.conv[0] : F.dispatch;
    if (f->is_entry && F.nblocks)
        LLVMBuildStore(L->b, F.entry_mask, F.mask_slot);
    if (F.resumable)
        resume_entry_branch(&F, start);
    else
        LLVMBuildBr(L->b, start);
    emit_dispatcher(&F);
    uint32_t frame_size = F.resumable ? resume_finish(&F) : 0;
    for (uint32_t i = 0; i < F.regs.cap; i++)
        free(F.regs.keys[i] ? F.regs.vals[i] : NULL);
    ptrmap_free(&F.regs);
    liveness_free(&F);
    inductions_free(&F);
    ptrmap_free(&F.params);
    ptrmap_free(&F.locals);
    free(F.blocks);
    free(F.conv);
    free(F.block_of_stmt);
    free(F.next_block);
    free(F.sync_block);
    free(F.park_block);
    free(F.if_join);
    free(F.if_first);
    free(F.whole_warp);
    free(F.cta_barrier_block);
    free(F.from_later);
    free(F.may_repeat);
    free(F.live_in);
    return frame_size;
}

/* ---- one kernel (lower_options.kernel) ---- */

static void mark_needed(const ptx_module *m, ptrmap *need, const ptx_func *f);

static void mark_operand(const ptx_module *m, ptrmap *need, const ptx_operand *o)
{
    if (o->func)
        mark_needed(m, need, o->func);
    if (o->var && o->var->space == PTX_SP_SHARED) /* its own shared memory (see shared_bytes) */
        ptrmap_put(need, o->var, (void *)1);
    for (uint32_t i = 0; i < o->nelems; i++)
        mark_operand(m, need, &o->elems[i]);
}

/* Marks f and every function it calls or takes the address of, and the
 * .shared variables they name.  A prototype and the definition of the
 * same name are one function. */
static void mark_needed(const ptx_module *m, ptrmap *need, const ptx_func *f)
{
    if (ptrmap_get(need, f))
        return;
    ptrmap_put(need, f, (void *)1);
    for (uint32_t i = 0; i < m->nitems; i++)
        if (m->items[i].kind == PTX_ITEM_FUNC && !strcmp(m->items[i].func->name, f->name))
            mark_needed(m, need, m->items[i].func);
    for (uint32_t i = 0; i < f->nbody; i++) {
        const ptx_stmt *s = &f->body[i];
        for (uint32_t k = 0; s->kind == PTX_STMT_INSTR && k < s->instr->nopds; k++)
            mark_operand(m, need, &s->instr->opds[k]);
        for (uint32_t k = 0; s->kind == PTX_STMT_CALLTARGETS && k < s->ntargets; k++)
            mark_operand(m, need, &s->targets[k]);
    }
}

/* Functions named by a variable's initializer (tables of function
 * addresses). */
static void mark_init(const ptx_module *m, ptrmap *need, const ptx_init *in)
{
    for (uint32_t i = 0; in->kind == PTX_INIT_LIST && i < in->nelems; i++)
        mark_init(m, need, in->elems[i]);
    if (in->kind != PTX_INIT_SYM && in->kind != PTX_INIT_GENERIC)
        return;
    for (uint32_t i = 0; i < m->nitems; i++)
        if (m->items[i].kind == PTX_ITEM_FUNC && !strcmp(m->items[i].func->name, in->sym))
            mark_needed(m, need, m->items[i].func);
}

/* The functions to lower: all; or the kernel asked for and what it needs
 * (.func bodies are internal, so each kernel's object has its own copy);
 * or, for the variables alone, what their initializers refer to. */
static void find_needed(lw *L, ptrmap *need)
{
    const ptx_module *m = L->m;
    for (uint32_t i = 0; L->opts.variables_only && i < m->nitems; i++)
        if (m->items[i].kind == PTX_ITEM_VAR && m->items[i].var->init)
            mark_init(m, need, m->items[i].var->init);
    if (!L->opts.kernel)
        return;
    for (uint32_t i = 0; i < m->nitems; i++) {
        const ptx_func *f = m->items[i].func;
        if (m->items[i].kind == PTX_ITEM_FUNC && f->is_entry && f->has_body &&
            !strcmp(f->name, L->opts.kernel)) {
            mark_needed(m, need, f);
            return;
        }
    }
    lw_error(L, (ptx_loc){1, 1}, "no kernel named '%s'", L->opts.kernel);
}

static bool wanted(const lw *L, const ptrmap *need, const ptx_func *f)
{
    return (!L->opts.kernel && !L->opts.variables_only) || ptrmap_get(need, f);
}

/* Function-scope .shared, .global and .const variables are laid out before
 * any body, in module order (after the module-scope ones): a kernel lowered
 * alone lays out the .shared ones it names, as shared_bytes counts them for
 * the module's metadata, and each .global/.const has one storage (a static:
 * every kernel and .func copy that uses it shares it). */
static void layout_function_vars(lw *L)
{
    for (uint32_t i = 0; i < L->m->nitems; i++) {
        const ptx_func *f = L->m->items[i].func;
        if (L->m->items[i].kind != PTX_ITEM_FUNC || !f->has_body)
            continue;
        for (uint32_t k = 0; k < f->nbody; k++) {
            ptx_space sp = f->body[k].kind == PTX_STMT_VAR ? f->body[k].var->space : PTX_SP_NONE;
            if (sp == PTX_SP_SHARED || sp == PTX_SP_GLOBAL || sp == PTX_SP_CONST)
                lower_module_var(L, f->body[k].var);
        }
    }
}

static uint32_t add_shared(uint32_t n, const ptx_var *v, const ptrmap *used)
{
    if (v->space != PTX_SP_SHARED || (v->linkage & PTX_LINK_EXTERN) || !ptrmap_get(used, v))
        return n;
    uint32_t align = decl_align(v) < 16 ? 16 : decl_align(v);
    return ((n + align - 1) & ~(align - 1)) + (uint32_t)decl_size(v);
}

/* A kernel's static shared memory: the .shared variables it and its
 * functions name, laid out in the order lower_module_var and
 * layout_function_vars give them when the kernel is lowered alone. */
static uint32_t shared_bytes(const ptx_module *m, const ptx_func *kernel)
{
    ptrmap used = {0};
    mark_needed(m, &used, kernel);
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->nitems; i++)
        if (m->items[i].kind == PTX_ITEM_VAR)
            n = add_shared(n, m->items[i].var, &used);
    for (uint32_t i = 0; i < m->nitems; i++) {
        const ptx_func *f = m->items[i].func;
        for (uint32_t k = 0; m->items[i].kind == PTX_ITEM_FUNC && f->has_body && k < f->nbody; k++)
            if (f->body[k].kind == PTX_STMT_VAR)
                n = add_shared(n, f->body[k].var, &used);
    }
    ptrmap_free(&used);
    return n;
}

static void init_types(lw *L)
{
    L->i1 = LLVMInt1TypeInContext(L->ctx);
    L->i8 = LLVMInt8TypeInContext(L->ctx);
    L->i16 = LLVMInt16TypeInContext(L->ctx);
    L->i32 = LLVMInt32TypeInContext(L->ctx);
    L->i64 = LLVMInt64TypeInContext(L->ctx);
    L->f16 = LLVMHalfTypeInContext(L->ctx);
    L->bf16 = LLVMBFloatTypeInContext(L->ctx);
    L->f32 = LLVMFloatTypeInContext(L->ctx);
    L->f64 = LLVMDoubleTypeInContext(L->ctx);
    L->ptr = LLVMPointerTypeInContext(L->ctx, 0);
    L->voidt = LLVMVoidTypeInContext(L->ctx);
}

uint32_t lower_module(const ptx_module *m, LLVMContextRef ctx, LLVMTargetMachineRef tm,
                      const lower_options *opts, lower_result *out, ptx_diags *diags)
{
    lw L = {.ctx = ctx, .m = m, .diags = diags};
    if (opts)
        L.opts = *opts;
    memset(out, 0, sizeof *out);
    init_types(&L);
    L.mod = LLVMModuleCreateWithNameInContext(m->filename, ctx);
    char *triple = LLVMGetTargetMachineTriple(tm);
    LLVMSetTarget(L.mod, triple);
    LLVMDisposeMessage(triple);
    LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(tm);
    char *dls = LLVMCopyStringRepOfTargetData(dl);
    LLVMSetDataLayout(L.mod, dls);
    LLVMDisposeMessage(dls);
    LLVMDisposeTargetData(dl);
    L.b = LLVMCreateBuilderInContext(ctx);
    L.dyn_smem_align = 16;
    lower_math_init(&L, tm);
    ptrmap need = {0};
    find_needed(&L, &need);
    L.need = &need;
    uint32_t nkernels = 0;
    for (uint32_t i = 0; i < m->nitems; i++) {
        const ptx_item *it = &m->items[i];
        if (it->kind == PTX_ITEM_VAR)
            lower_module_var(&L, it->var);
        else if (it->kind != PTX_ITEM_FUNC || !wanted(&L, &need, it->func))
            continue;
        else if (it->func->has_body) {
            declare_function(&L, it->func);
            nkernels += it->func->is_entry;
        } else if (!(it->func->linkage & PTX_LINK_EXTERN)) {
            declare_function(&L, it->func);
        }
    }
    layout_function_vars(&L);
    out->kernels = calloc(nkernels ? nkernels : 1, sizeof *out->kernels);
    for (uint32_t i = 0; i < m->nitems && !L.errors; i++) {
        const ptx_func *f = m->items[i].func;
        if (m->items[i].kind != PTX_ITEM_FUNC || !f->has_body || !wanted(&L, &need, f))
            continue;
        uint32_t frame_size = lower_function(&L, f);
        if (f->is_entry) {
            wrap_row_loop(&L, f, ptrmap_get(&L.funcs, f), frame_size != 0);
            lower_kernel *k = &out->kernels[out->nkernels++];
            k->func = f;
            k->frame_size = frame_size;
            k->symbol = entry_symbol(&L, f->name);
            memcpy(k->ntid, L.opts.ntid, sizeof k->ntid);
        }
    }
    LLVMValueRef dyn = LLVMGetNamedGlobal(L.mod, "ptxjit.dynsmem");
    uint32_t dyn_off = (L.static_smem + L.dyn_smem_align - 1) & ~(L.dyn_smem_align - 1);
    if (dyn)
        LLVMSetInitializer(dyn, const_i64(&L, dyn_off));
    bool funcs_wait = funcs_wait_for_warps(m);
    for (uint32_t i = 0; i < out->nkernels; i++) {
        lower_kernel *k = &out->kernels[i];
        k->static_smem = shared_bytes(m, k->func);
        k->dyn_smem_align = L.dyn_smem_align;
        k->uses_barriers = !k->frame_size && (funcs_wait || body_waits_for_warps(k->func));
    }
    char *msg = NULL;
    if (!L.errors && !L.opts.skip_verify &&
        LLVMVerifyModule(L.mod, LLVMReturnStatusAction, &msg)) {
        lw_error(&L, (ptx_loc){1, 1}, "internal error: invalid LLVM IR: %.300s", msg);
    }
    LLVMDisposeMessage(msg);
    msg = NULL;
    if (!L.errors && !L.opts.skip_verify) { /* needs valid IR: it runs passes (a load's lowering for
                                              * its errors alone needs no shapes) */
        lower_shapes(&L, tm);
        if (LLVMVerifyModule(L.mod, LLVMReturnStatusAction, &msg))
            lw_error(&L, (ptx_loc){1, 1}, "internal error: invalid LLVM IR after address shapes: %.300s", msg);
        LLVMDisposeMessage(msg);
    }
    LLVMDisposeBuilder(L.b);
    ptrmap_free(&L.globals);
    ptrmap_free(&L.shared_off);
    ptrmap_free(&L.funcs);
    ptrmap_free(&need);
    if (L.errors) {
        for (uint32_t i = 0; i < L.nglobals; i++)
            free(L.globals_out[i].symbol);
        free(L.globals_out);
        LLVMDisposeModule(L.mod);
        lower_result_free(out);
        return L.errors;
    }
    out->mod = L.mod;
    out->globals = L.globals_out;
    out->nglobals = L.nglobals;
    return 0;
}

void lower_result_free(lower_result *r)
{
    for (uint32_t i = 0; i < r->nkernels; i++)
        free(r->kernels[i].symbol);
    free(r->kernels);
    for (uint32_t i = 0; i < r->nglobals; i++)
        free(r->globals[i].symbol);
    free(r->globals);
    memset(r, 0, sizeof *r);
}
