/* test_store_forward.c - jit/store_forward: masked loads that read back
 * what masked stores of their block wrote take the stored lanes, and the
 * compiled code computes what memory would have held; loads that read
 * bytes no whole stored lane covers, or past a call, read memory.  And
 * jit/constant_masks: masked accesses of a constant run of lanes become
 * plain ones of those lanes, with the same effect. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>

#include "jit.h"
#include "constant_masks.h"
#include "store_forward.h"

typedef struct ir {
    LLVMContextRef ctx;
    LLVMModuleRef m;
    LLVMBuilderRef b;
    LLVMValueRef buf;
    LLVMTypeRef i32, v8, m8, ptr;
} ir;

/* A module for the engine's target, with i32, <8 x i32> and ptr types. */
static void new_module(ir *x, jit_engine *j, const char *name)
{
    memset(x, 0, sizeof *x);
    x->ctx = LLVMContextCreate();
    x->m = LLVMModuleCreateWithNameInContext(name, x->ctx);
    LLVMTargetDataRef td = LLVMCreateTargetDataLayout(jit_target_machine(j));
    char *layout = LLVMCopyStringRepOfTargetData(td);
    LLVMSetDataLayout(x->m, layout);
    LLVMDisposeMessage(layout);
    LLVMDisposeTargetData(td);
    LLVMSetTarget(x->m, jit_triple(j));
    x->b = LLVMCreateBuilderInContext(x->ctx);
    x->i32 = LLVMInt32TypeInContext(x->ctx), x->v8 = LLVMVectorType(x->i32, 8);
    x->ptr = LLVMPointerTypeInContext(x->ctx, 0);
}

static LLVMValueRef at(ir *x, int64_t bytes)
{
    LLVMValueRef off = LLVMConstInt(LLVMInt64TypeInContext(x->ctx), (uint64_t)bytes, true);
    return LLVMBuildGEP2(x->b, LLVMInt8TypeInContext(x->ctx), x->buf, &off, 1, "");
}

static LLVMValueRef mask(ir *x, unsigned bits)
{
    LLVMValueRef e[8];
    for (unsigned i = 0; i < 8; i++)
        e[i] = LLVMConstInt(LLVMInt1TypeInContext(x->ctx), bits >> i & 1, false);
    return LLVMConstVector(e, 8);
}

static LLVMValueRef intrinsic(ir *x, const char *name, LLVMValueRef *args, unsigned n)
{
    LLVMTypeRef t[2] = {x->v8, x->ptr};
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    LLVMValueRef f = LLVMGetIntrinsicDeclaration(x->m, id, t, 2);
    return LLVMBuildCall2(x->b, LLVMGlobalGetValueType(f), f, args, n, "");
}

static LLVMValueRef masked_load(ir *x, int64_t bytes, unsigned bits)
{
    LLVMValueRef pass = LLVMConstVector((LLVMValueRef[]){LLVMConstInt(x->i32, 100, false), LLVMConstInt(x->i32, 101, false),
                                                         LLVMConstInt(x->i32, 102, false), LLVMConstInt(x->i32, 103, false),
                                                         LLVMConstInt(x->i32, 104, false), LLVMConstInt(x->i32, 105, false),
                                                         LLVMConstInt(x->i32, 106, false), LLVMConstInt(x->i32, 107, false)},
                                        8);
    LLVMValueRef a[4] = {at(x, bytes), LLVMConstInt(x->i32, 4, false), mask(x, bits), pass};
    return intrinsic(x, "llvm.masked.load", a, 4);
}

static void masked_store(ir *x, LLVMValueRef v, int64_t bytes, unsigned bits)
{
    LLVMValueRef a[4] = {v, at(x, bytes), LLVMConstInt(x->i32, 4, false), mask(x, bits)};
    intrinsic(x, "llvm.masked.store", a, 4);
}

static void store(ir *x, LLVMValueRef v, int64_t bytes)
{
    LLVMSetAlignment(LLVMBuildStore(x->b, v, at(x, bytes)), 4);
}

static unsigned count_calls(LLVMModuleRef m, const char *prefix)
{
    unsigned n = 0;
    for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
                size_t len;
                LLVMValueRef c = LLVMIsACallInst(i) ? LLVMGetCalledValue(i) : NULL;
                if (c && !strncmp(LLVMGetValueName2(c, &len), prefix, strlen(prefix)))
                    n++;
            }
    return n;
}

/* Scalar loads that stay apart (volatile) in m. */
static unsigned count_lane_loads(LLVMModuleRef m)
{
    unsigned n = 0;
    for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
                n += LLVMIsALoadInst(i) && LLVMGetVolatile(i) &&
                     LLVMGetTypeKind(LLVMTypeOf(i)) != LLVMVectorTypeKind;
    return n;
}

/* buf (i32 words): 16..23 the values a; 32.. the results.
 *   store a at 0 (all 8 lanes);  b = load 4..7 (lanes 0-3, 100+ past);
 *   store b + 1 at 1 (lanes 1-2: words 2, 3);  c = load 0..7;
 *   a u16 store at byte 8 (half of word 2);  d = load 0..7 (memory);
 *   store a at 0 again;  opaque();  e = load 4..11 (lanes 0-3: memory). */
static void build(ir *x, LLVMValueRef opaque)
{
    LLVMTypeRef params[1] = {x->ptr};
    LLVMValueRef f = LLVMAddFunction(x->m, "f", LLVMFunctionType(LLVMVoidTypeInContext(x->ctx), params, 1, false));
    LLVMPositionBuilderAtEnd(x->b, LLVMAppendBasicBlockInContext(x->ctx, f, "entry"));
    x->buf = LLVMGetParam(f, 0);
    LLVMValueRef a = LLVMBuildLoad2(x->b, x->v8, at(x, 64), "a");
    LLVMSetAlignment(a, 4);
    masked_store(x, a, 0, 0xff);
    LLVMValueRef b = masked_load(x, 16, 0x0f);
    LLVMValueRef one = LLVMConstVector((LLVMValueRef[]){LLVMConstInt(x->i32, 1, false), LLVMConstInt(x->i32, 1, false),
                                                        LLVMConstInt(x->i32, 1, false), LLVMConstInt(x->i32, 1, false),
                                                        LLVMConstInt(x->i32, 1, false), LLVMConstInt(x->i32, 1, false),
                                                        LLVMConstInt(x->i32, 1, false), LLVMConstInt(x->i32, 1, false)},
                                       8);
    masked_store(x, LLVMBuildAdd(x->b, b, one, ""), 4, 0x06);
    LLVMValueRef c = masked_load(x, 0, 0xff);
    store(x, LLVMConstInt(LLVMInt16TypeInContext(x->ctx), 0x7777, false), 8);
    LLVMValueRef d = masked_load(x, 0, 0xff);
    masked_store(x, a, 0, 0xff);
    LLVMBuildCall2(x->b, LLVMGlobalGetValueType(opaque), opaque, NULL, 0, "");
    LLVMValueRef e = masked_load(x, 16, 0x0f);
    store(x, b, 128), store(x, c, 160), store(x, d, 192), store(x, e, 224);
    LLVMBuildRetVoid(x->b);
}

/* Compiles m (the engine takes it) into a new unit *u; function name's
 * address. */
static void *compiled(jit_engine *j, LLVMModuleRef m, const char *name, jit_unit **u)
{
    char err[512];
    void *obj, *addr;
    size_t size;
    assert_int_equal(jit_compile(j, m, &obj, &size, NULL, err, sizeof err), 0);
    *u = jit_unit_create(j, err, sizeof err);
    assert_non_null(*u);
    assert_int_equal(jit_unit_add(*u, obj, size, &name, &addr, 1, err, sizeof err), 0);
    free(obj); /* the unit keeps a copy */
    return addr;
}

/* An engine (knowing syms) and a module for it in *x. */
static jit_engine *engine_and_module(ir *x, const jit_symbol *syms, unsigned nsyms, const char *name)
{
    char err[512];
    jit_engine *j = jit_create(syms, nsyms, err, sizeof err);
    assert_non_null(j);
    new_module(x, j, name);
    return j;
}

static void dispose(ir *x, jit_engine *j, jit_unit *u)
{
    jit_unit_free(u);
    LLVMDisposeBuilder(x->b);
    LLVMContextDispose(x->ctx);
    jit_destroy(j);
}

static void opaque_fn(void) {}

static void test_forwards_masked_lanes(void **state)
{
    (void)state;
    jit_symbol sym = {"opaque", (void *)opaque_fn};
    ir x;
    jit_engine *j = engine_and_module(&x, &sym, 1, "forward");
    LLVMValueRef opaque = LLVMAddFunction(x.m, "opaque", LLVMFunctionType(LLVMVoidTypeInContext(x.ctx), NULL, 0, false));
    build(&x, opaque);

    assert_int_equal(count_calls(x.m, "llvm.masked.load"), 4);
    assert_true(forward_stores(x.m));
    assert_false(LLVMVerifyModule(x.m, LLVMPrintMessageAction, NULL)); /* dominance kept */
    assert_int_equal(count_calls(x.m, "llvm.masked.load"), 2); /* b and c; d and e read memory */

    jit_unit *u;
    void *addr = compiled(j, x.m, "f", &u);
    uint32_t buf[64] = {0};
    for (int i = 0; i < 8; i++)
        buf[16 + i] = 10 * (uint32_t)i + 7;
    void (*f)(uint32_t *) = (void (*)(uint32_t *))addr;
    f(buf);
    const uint32_t *a = &buf[16], *b = &buf[32], *c = &buf[40], *d = &buf[48], *e = &buf[56];
    uint32_t want_c[8], want_d[8];
    for (int i = 0; i < 8; i++)
        want_c[i] = want_d[i] = a[i];
    want_c[2] = a[5] + 1, want_c[3] = a[6] + 1;
    want_d[2] = ((a[5] + 1) & 0xffff0000u) | 0x7777u, want_d[3] = a[6] + 1; /* little-endian u16 */
    for (int i = 0; i < 8; i++) {
        uint32_t past = 100u + (uint32_t)i;
        if (b[i] != (i < 4 ? a[4 + i] : past) || c[i] != want_c[i] || d[i] != want_d[i] ||
            e[i] != (i < 4 ? a[4 + i] : past))
            fail_msg("lane %d: b %u c %u d %u e %u, want %u %u %u %u", i, b[i], c[i], d[i], e[i],
                     i < 4 ? a[4 + i] : past, want_c[i], want_d[i], i < 4 ? a[4 + i] : past);
    }
    dispose(&x, j, u);
}

static unsigned count_uses(LLVMValueRef v)
{
    unsigned n = 0;
    for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u))
        n++;
    return n;
}

/* A canonicalised f32 vector (select (fcmp uno x, 0), NaNs, x) stored:
 * a load read by an fadd takes x itself, one read by a store the
 * canonical value. */
static void test_additions_skip_canonicalisation(void **state)
{
    (void)state;
    ir x = {.ctx = LLVMContextCreate()};
    x.m = LLVMModuleCreateWithNameInContext("canon", x.ctx);
    x.b = LLVMCreateBuilderInContext(x.ctx);
    x.i32 = LLVMInt32TypeInContext(x.ctx), x.ptr = LLVMPointerTypeInContext(x.ctx, 0);
    LLVMTypeRef f32 = LLVMFloatTypeInContext(x.ctx), vf = LLVMVectorType(f32, 8);
    x.v8 = vf;
    LLVMValueRef f = LLVMAddFunction(x.m, "g", LLVMFunctionType(LLVMVoidTypeInContext(x.ctx), &x.ptr, 1, false));
    LLVMPositionBuilderAtEnd(x.b, LLVMAppendBasicBlockInContext(x.ctx, f, "entry"));
    x.buf = LLVMGetParam(f, 0);
    LLVMValueRef a = LLVMBuildLoad2(x.b, vf, at(&x, 64), "a");
    LLVMValueRef nan[8];
    for (int i = 0; i < 8; i++)
        nan[i] = LLVMConstBitCast(LLVMConstInt(x.i32, 0x7fffffff, false), f32);
    LLVMValueRef uno = LLVMBuildFCmp(x.b, LLVMRealUNO, a, LLVMConstNull(vf), "");
    LLVMValueRef sel = LLVMBuildSelect(x.b, uno, LLVMConstVector(nan, 8), a, "canon");
    masked_store(&x, sel, 0, 0xff);
    LLVMValueRef pass = LLVMConstNull(vf);
    LLVMValueRef l1 = intrinsic(&x, "llvm.masked.load", (LLVMValueRef[]){at(&x, 0), LLVMConstInt(x.i32, 4, false),
                                                                          mask(&x, 0x0f), pass}, 4);
    store(&x, LLVMBuildFAdd(x.b, l1, l1, ""), 128);
    LLVMValueRef l2 = intrinsic(&x, "llvm.masked.load", (LLVMValueRef[]){at(&x, 0), LLVMConstInt(x.i32, 4, false),
                                                                          mask(&x, 0x0f), pass}, 4);
    store(&x, l2, 160);
    LLVMBuildRetVoid(x.b);
    assert_int_equal(count_uses(sel), 1);
    assert_true(forward_stores(x.m));
    assert_false(LLVMVerifyModule(x.m, LLVMPrintMessageAction, NULL)); /* dominance kept */
    assert_int_equal(count_calls(x.m, "llvm.masked.load"), 0);
    /* the store and l2's four lanes read the select; l1's lanes read a */
    assert_int_equal(count_uses(sel), 1 + 4);
    LLVMDisposeBuilder(x.b);
    LLVMContextDispose(x.ctx);
}

/* A pointer at byte offset `field` of the function's first parameter, as
 * lowered code reads the CTA record's fields (invariant loads). */
static LLVMValueRef cta_field(ir *x, LLVMValueRef cta, int64_t field)
{
    LLVMValueRef off = LLVMConstInt(LLVMInt64TypeInContext(x->ctx), (uint64_t)field, true);
    LLVMValueRef p = LLVMBuildGEP2(x->b, LLVMInt8TypeInContext(x->ctx), cta, &off, 1, "");
    LLVMValueRef v = LLVMBuildLoad2(x->b, x->ptr, p, "");
    LLVMSetMetadata(v, LLVMGetMDKindIDInContext(x->ctx, "invariant.load", 14),
                    LLVMMetadataAsValue(x->ctx, LLVMMDNodeInContext2(x->ctx, NULL, 0)));
    return v;
}

typedef struct record {
    uint32_t pad[8];
    uint32_t *shared;   /* byte 32 */
    uint32_t *other;    /* byte 40: any pointer */
    uint32_t *frames;   /* byte 48 */
    uint32_t pad2[2];
    uint32_t a[8];      /* byte 64 */
    uint32_t out[4][4]; /* byte 96 */
} record;

/* k(rec, c): the shared words 0-7 get a; a frame word and an alloca are
 * written (neither reaches shared memory); c == 1 writes word 1 in one
 * arm of a branch; after the join out[0] = words 0-3 (memory: an arm
 * wrote one), out[1] = words 4-7 (the stored lanes); then a store through
 * `other` (which may point into shared memory) and out[2] = words 4-7
 * again, from memory. */
static void build_join(ir *x)
{
    LLVMTypeRef i32 = x->i32, params[2] = {x->ptr, i32};
    LLVMValueRef f = LLVMAddFunction(x->m, "k", LLVMFunctionType(LLVMVoidTypeInContext(x->ctx), params, 2, false));
    LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(x->ctx, f, "entry");
    LLVMBasicBlockRef arm = LLVMAppendBasicBlockInContext(x->ctx, f, "arm");
    LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(x->ctx, f, "join");
    LLVMPositionBuilderAtEnd(x->b, entry);
    LLVMValueRef rec = LLVMGetParam(f, 0);
    x->buf = rec;
    LLVMValueRef a = LLVMBuildLoad2(x->b, x->v8, at(x, 64), "a");
    LLVMSetAlignment(a, 4);
    LLVMValueRef sh = cta_field(x, rec, 32), frames = cta_field(x, rec, 48);
    x->buf = sh;
    masked_store(x, a, 0, 0xff);
    LLVMSetAlignment(LLVMBuildStore(x->b, LLVMConstInt(i32, 9, false), frames), 4);
    LLVMValueRef slot = LLVMBuildAlloca(x->b, x->v8, "slot");
    LLVMSetVolatile(LLVMBuildStore(x->b, a, slot), true);
    LLVMBuildCondBr(x->b, LLVMBuildICmp(x->b, LLVMIntEQ, LLVMGetParam(f, 1), LLVMConstInt(i32, 1, false), ""),
                    arm, join);
    LLVMPositionBuilderAtEnd(x->b, arm);
    store(x, LLVMConstInt(i32, 77, false), 4);
    LLVMBuildBr(x->b, join);
    LLVMPositionBuilderAtEnd(x->b, join);
    LLVMValueRef lo = masked_load(x, 0, 0x0f), hi = masked_load(x, 16, 0x0f);
    x->buf = rec;
    store(x, lo, 96), store(x, hi, 112);
    LLVMValueRef other = LLVMBuildLoad2(x->b, x->ptr, at(x, 40), "other");
    LLVMSetAlignment(LLVMBuildStore(x->b, LLVMConstInt(i32, 5, false), other), 4);
    x->buf = sh;
    LLVMValueRef again = masked_load(x, 16, 0x0f);
    x->buf = rec;
    store(x, again, 128);
    LLVMBuildRetVoid(x->b);
}

static void test_forwards_across_blocks(void **state)
{
    (void)state;
    ir x;
    jit_engine *j = engine_and_module(&x, NULL, 0, "join");
    build_join(&x);
    assert_int_equal(count_calls(x.m, "llvm.masked.load"), 3);
    assert_true(forward_stores(x.m));
    assert_false(LLVMVerifyModule(x.m, LLVMPrintMessageAction, NULL)); /* dominance kept */
    assert_int_equal(count_calls(x.m, "llvm.masked.load"), 2); /* words 4-7 only */
    jit_unit *u;
    void *addr = compiled(j, x.m, "k", &u);
    void (*k)(record *, uint32_t) = (void (*)(record *, uint32_t))addr;
    for (uint32_t c = 0; c < 2; c++) {
        uint32_t shared[8] = {0}, frame = 0;
        record r = {.shared = shared, .other = &shared[5], .frames = &frame};
        for (int i = 0; i < 8; i++)
            r.a[i] = 100 + (uint32_t)i;
        k(&r, c);
        for (int i = 0; i < 4; i++) {
            uint32_t lo = c && i == 1 ? 77 : r.a[i], again = i == 1 ? 5 : r.a[4 + i];
            if (r.out[0][i] != lo || r.out[1][i] != r.a[4 + i] || r.out[2][i] != again)
                fail_msg("c %u, lane %d: %u %u %u, want %u %u %u", c, i, r.out[0][i], r.out[1][i], r.out[2][i], lo,
                         r.a[4 + i], again);
        }
        assert_int_equal(frame, 9);
    }
    dispose(&x, j, u);
}

/* buf (i32 words): 16..23 the values a.  Masked stores of a: lanes 2-5
 * at word 0, lane 0 at word 8, lanes 0 and 2 at word 48 (not one run:
 * stays masked); b = lanes 3-4 loaded at word 0, c = lane 7 at word 8
 * (100 + lane elsewhere), stored at words 32 and 40.  The loads go lane
 * by lane (a load spanning several stores waits for them). */
static void test_narrows_constant_runs(void **state)
{
    (void)state;
    ir x;
    jit_engine *j = engine_and_module(&x, NULL, 0, "narrow");
    LLVMTypeRef params[1] = {x.ptr};
    LLVMValueRef f = LLVMAddFunction(x.m, "f", LLVMFunctionType(LLVMVoidTypeInContext(x.ctx), params, 1, false));
    LLVMPositionBuilderAtEnd(x.b, LLVMAppendBasicBlockInContext(x.ctx, f, "entry"));
    x.buf = LLVMGetParam(f, 0);
    LLVMValueRef a = LLVMBuildLoad2(x.b, x.v8, at(&x, 64), "a");
    LLVMSetAlignment(a, 4);
    masked_store(&x, a, 0, 0x3c);
    masked_store(&x, a, 32, 0x01);
    masked_store(&x, a, 192, 0x05);
    LLVMValueRef b = masked_load(&x, 0, 0x18), c = masked_load(&x, 32, 0x80);
    store(&x, b, 128), store(&x, c, 160);
    LLVMBuildRetVoid(x.b);

    assert_true(narrow_constant_masks(x.m));
    assert_false(LLVMVerifyModule(x.m, LLVMPrintMessageAction, NULL));
    assert_int_equal(count_calls(x.m, "llvm.masked.store"), 1);
    assert_int_equal(count_calls(x.m, "llvm.masked.load"), 0);
    assert_int_equal(count_lane_loads(x.m), 3); /* b's two lanes and c's one, each its own load */

    jit_unit *u;
    void *addr = compiled(j, x.m, "f", &u);
    uint32_t buf[64], want[64];
    for (int i = 0; i < 64; i++)
        buf[i] = 0xdead0000u + (uint32_t)i;
    for (int i = 0; i < 8; i++)
        buf[16 + i] = 10 * (uint32_t)i + 7;
    memcpy(want, buf, sizeof want);
    for (int i = 2; i <= 5; i++)
        want[i] = want[16 + i];
    want[8] = want[16], want[48] = want[16], want[50] = want[18];
    for (int i = 0; i < 8; i++) {
        want[32 + i] = i == 3 || i == 4 ? want[i] : 100u + (uint32_t)i;
        want[40 + i] = i == 7 ? want[15] : 100u + (uint32_t)i;
    }
    ((void (*)(uint32_t *))addr)(buf);
    for (int i = 0; i < 64; i++)
        if (buf[i] != want[i])
            fail_msg("word %d: %#x, want %#x", i, buf[i], want[i]);
    dispose(&x, j, u);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forwards_masked_lanes),
        cmocka_unit_test(test_additions_skip_canonicalisation),
        cmocka_unit_test(test_forwards_across_blocks),
        cmocka_unit_test(test_narrows_constant_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
