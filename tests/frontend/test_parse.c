/* test_parse.c - parser unit tests, one group per PTX construct (ISA
 * chapter in the test name).  Each parses a snippet and checks the IR
 * fields against values worked out by hand from the ISA text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ptx.h"

#define HDR ".version 8.5\n.target sm_80\n.address_size 64\n"

static ptx_module *parse_ok(const char *src)
{
    ptx_diags d = {0};
    ptx_module *m = ptx_parse(src, strlen(src), "t.ptx", &d);
    assert_non_null(m);
    if (d.n == 0)
        ptx_check(m, &d);
    if (d.n) {
        print_error("unexpected diagnostic %u:%u: %s\n", d.v[0].loc.line, d.v[0].loc.col,
                    d.v[0].msg);
        fail();
    }
    ptx_diags_free(&d);
    return m;
}

static ptx_func *func(ptx_module *m, const char *name)
{
    for (uint32_t i = 0; i < m->nitems; i++)
        if (m->items[i].kind == PTX_ITEM_FUNC && !strcmp(m->items[i].func->name, name))
            return m->items[i].func;
    fail_msg("no function %s", name);
    return NULL;
}

static ptx_var *module_var(ptx_module *m, const char *name)
{
    for (uint32_t i = 0; i < m->nitems; i++)
        if (m->items[i].kind == PTX_ITEM_VAR && !strcmp(m->items[i].var->name, name))
            return m->items[i].var;
    fail_msg("no variable %s", name);
    return NULL;
}

/* The k-th instruction of a function body. */
static ptx_instr *instr(ptx_func *f, uint32_t k)
{
    for (uint32_t i = 0; i < f->nbody; i++)
        if (f->body[i].kind == PTX_STMT_INSTR && k-- == 0)
            return f->body[i].instr;
    fail_msg("no instruction %u", k);
    return NULL;
}

/* A kernel with common registers declared, wrapping `body`. */
static ptx_module *kernel(const char *body)
{
    static char buf[8192];
    snprintf(buf, sizeof buf,
             HDR ".global .b32 gv[4];\n"
                 ".visible .entry k(.param .u64 k_p0)\n{\n"
                 ".reg .pred %%p<4>;\n.reg .b16 %%rs<4>;\n.reg .b32 %%r<16>;\n"
                 ".reg .b64 %%rd<8>;\n.reg .f32 %%f<8>;\n.reg .f64 %%fd<4>;\n%s\n}\n",
             body);
    return parse_ok(buf);
}

static void test_module_header(void **state)
{
    ptx_module *m = parse_ok(".version 7.8\n.target sm_90a, texmode_independent, debug\n"
                             ".address_size 64\n");
    assert_int_equal(m->version_major, 7);
    assert_int_equal(m->version_minor, 8);
    assert_int_equal(m->sm, 90);
    assert_int_equal(m->sm_suffix, 'a');
    assert_int_equal(m->target_flags, PTX_TARGET_TEXMODE_INDEPENDENT | PTX_TARGET_DEBUG);
    assert_int_equal(m->address_size, 64);
    ptx_module_free(m);
}

static void test_5_module_variables(void **state)
{
    ptx_module *m = parse_ok(HDR
        ".global .align 8 .b8 tab[16] = {1, 2, 0x3, -1};\n"
        ".const .align 4 .f32 cv[2] = {0f3F800000, 2.5};\n"
        ".extern .shared .align 16 .b8 dyn[];\n"
        ".visible .global .v4 .u32 vec4;\n"
        ".global .u32 grid[3][4];\n"
        ".global .u64 ptrs[2] = {generic(tab), tab+4};\n"
        ".global .u8 bytes[2] = {0xFF(tab), 0xFF00(tab+8)};\n"
        ".weak .global .attribute(.managed) .u32 man;\n"
        ".common .global .u32 com, com2 = 7;\n");
    ptx_var *v = module_var(m, "tab");
    assert_int_equal(v->space, PTX_SP_GLOBAL);
    assert_int_equal(v->align, 8);
    assert_int_equal(v->type, PTX_TYPE_B8);
    assert_int_equal(v->ndims, 1);
    assert_int_equal(v->dims[0], 16);
    assert_int_equal(v->init->kind, PTX_INIT_LIST);
    assert_int_equal(v->init->nelems, 4);
    assert_int_equal(v->init->elems[3]->ival, UINT64_MAX); /* -1 */
    v = module_var(m, "cv");
    assert_int_equal(v->init->elems[0]->kind, PTX_INIT_F32);
    assert_int_equal(v->init->elems[0]->ival, 0x3F800000);
    assert_int_equal(v->init->elems[1]->kind, PTX_INIT_F64);
    assert_int_equal(v->init->elems[1]->ival, 0x4004000000000000ull); /* 2.5 */
    v = module_var(m, "dyn");
    assert_int_equal(v->linkage, PTX_LINK_EXTERN);
    assert_int_equal(v->space, PTX_SP_SHARED);
    assert_int_equal(v->dims[0], 0);
    v = module_var(m, "vec4");
    assert_int_equal(v->vec, 4);
    assert_int_equal(v->linkage, PTX_LINK_VISIBLE);
    v = module_var(m, "grid");
    assert_int_equal(v->ndims, 2);
    assert_int_equal(v->dims[1], 4);
    v = module_var(m, "ptrs");
    assert_int_equal(v->init->elems[0]->kind, PTX_INIT_GENERIC);
    assert_string_equal(v->init->elems[0]->sym, "tab");
    assert_int_equal(v->init->elems[1]->kind, PTX_INIT_SYM);
    assert_int_equal(v->init->elems[1]->ival, 4);
    v = module_var(m, "bytes");
    assert_int_equal(v->init->elems[1]->kind, PTX_INIT_MASK);
    assert_int_equal(v->init->elems[1]->mask, 0xFF00);
    assert_int_equal(v->init->elems[1]->ival, 8);
    v = module_var(m, "man");
    assert_true(v->managed);
    assert_int_equal(v->linkage, PTX_LINK_WEAK);
    v = module_var(m, "com2");
    assert_int_equal(v->linkage, PTX_LINK_COMMON);
    assert_int_equal(v->init->ival, 7);
    ptx_module_free(m);
}

static void test_11_entry_and_func(void **state)
{
    ptx_module *m = parse_ok(HDR
        ".extern .func (.param .b32 r) ext (.param .b64 a);\n"
        ".func (.param .b32 out) f (.reg .b32 x, .param .align 16 .b8 blob[16]) .noreturn\n"
        "{\n ret;\n}\n"
        ".visible .entry k(.param .u64 .ptr .global .align 16 p, .param .u32 n)\n"
        ".maxntid 128, 2, 1\n.reqntid 64\n.minnctapersm 4\n.maxnreg 32\n"
        ".pragma \"nounroll\";\n"
        "{\n ret;\n}\n");
    ptx_func *e = func(m, "ext");
    assert_false(e->has_body);
    assert_int_equal(e->linkage, PTX_LINK_EXTERN);
    assert_int_equal(e->nrets, 1);
    ptx_func *f = func(m, "f");
    assert_true(f->noreturn);
    assert_int_equal(f->nparams, 2);
    assert_int_equal(f->params[0]->space, PTX_SP_REG);
    assert_int_equal(f->params[1]->align, 16);
    ptx_func *k = func(m, "k");
    assert_true(k->is_entry);
    assert_true(k->params[0]->is_ptr);
    assert_int_equal(k->params[0]->ptr_space, PTX_SP_GLOBAL);
    assert_int_equal(k->params[0]->ptr_align, 16);
    assert_int_equal(k->maxntid[0], 128);
    assert_int_equal(k->maxntid[1], 2);
    assert_int_equal(k->reqntid[0], 64);
    assert_int_equal(k->reqntid[1], 0);
    assert_int_equal(k->minnctapersm, 4);
    assert_int_equal(k->maxnreg, 32);
    assert_int_equal(k->npragmas, 1);
    assert_string_equal(k->pragmas[0], "nounroll");
    ptx_module_free(m);
}

static void test_5_parameterized_registers(void **state)
{
    ptx_module *m = kernel("mov.u32 %r15, %r0;");
    ptx_instr *in = instr(func(m, "k"), 0);
    assert_string_equal(in->opds[0].name, "%r15");
    assert_non_null(in->opds[0].var);
    assert_int_equal(in->opds[0].var->nreg, 16);
    assert_int_equal(in->opds[0].reg_index, 15);
    assert_int_equal(in->opds[1].reg_index, 0);
    ptx_module_free(m);
}

static void test_9_modifiers_are_structured(void **state)
{
    ptx_module *m = kernel(
        "ld.global.nc.v4.f32 {%f0, %f1, %f2, %f3}, [%rd1+16];\n"
        "atom.global.acq_rel.gpu.cas.b32 %r1, [%rd1], %r2, %r3;\n"
        "setp.lt.and.f32 %p1|%p2, %f1, %f2, !%p3;\n"
        "mul.wide.s32 %rd2, %r1, 4;\n"
        "cvt.rzi.s32.f32 %r4, %f1;\n"
        "cp.async.ca.shared.global [%r5], [%rd1], 16;\n"
        "ld.relaxed.gpu.global.L1::evict_last.u32 %r6, [%rd1];\n"
        "min.NaN.f32 %f4, %f1, %f2;\n"
        "shf.l.wrap.b32 %r7, %r1, %r2, %r3;\n"
        "add.cc.u32 %r8, %r1, %r2;\n"
        "addc.u32 %r9, %r1, %r2;\n"
        "fence.sc.gpu;\n"
        "membar.gl;\n");
    ptx_func *f = func(m, "k");
    ptx_instr *in = instr(f, 0);
    assert_int_equal(in->op, PTX_OP_LD);
    assert_int_equal(in->mod[PTX_CAT_SPACE], PTX_SPACE_GLOBAL);
    assert_int_equal(in->mod[PTX_CAT_VEC], PTX_VEC_V4);
    assert_true(in->flags & PTX_FLAG_BIT(NC));
    assert_int_equal(in->types[0], PTX_TYPE_F32);
    assert_int_equal(in->opds[0].kind, PTX_OPD_VEC);
    assert_int_equal(in->opds[0].nelems, 4);
    assert_int_equal(in->opds[1].kind, PTX_OPD_ADDR);
    assert_int_equal(in->opds[1].imm, 16);
    in = instr(f, 1);
    assert_int_equal(in->mod[PTX_CAT_RED], PTX_RED_CAS);
    assert_int_equal(in->mod[PTX_CAT_SEM], PTX_SEM_ACQ_REL);
    assert_int_equal(in->mod[PTX_CAT_SCOPE], PTX_SCOPE_GPU);
    in = instr(f, 2);
    assert_int_equal(in->mod[PTX_CAT_CMP], PTX_CMP_LT);
    assert_int_equal(in->mod[PTX_CAT_BOOL], PTX_BOOL_AND);
    assert_int_equal(in->opds[0].kind, PTX_OPD_PAIR);
    assert_true(in->opds[3].neg);
    in = instr(f, 3);
    assert_int_equal(in->mod[PTX_CAT_WIDTH], PTX_WIDTH_WIDE);
    in = instr(f, 4);
    assert_int_equal(in->mod[PTX_CAT_ROUND], PTX_ROUND_RZI);
    assert_int_equal(in->ntypes, 2);
    assert_int_equal(in->types[1], PTX_TYPE_F32);
    in = instr(f, 5);
    assert_int_equal(in->op, PTX_OP_CP_ASYNC);
    assert_int_equal(in->mod[PTX_CAT_CACHE], PTX_CACHE_CA);
    assert_int_equal(in->mod[PTX_CAT_SPACE], PTX_SPACE_SHARED);
    assert_int_equal(in->mod[PTX_CAT_SPACE2], PTX_SPACE_GLOBAL);
    in = instr(f, 6);
    assert_int_equal(in->mod[PTX_CAT_SEM], PTX_SEM_RELAXED);
    assert_int_equal(in->mod[PTX_CAT_L1], PTX_L1_EVICT_LAST);
    in = instr(f, 7);
    assert_true(in->flags & PTX_FLAG_BIT(NAN));
    in = instr(f, 8);
    assert_int_equal(in->mod[PTX_CAT_MODE], PTX_MODE_L);
    assert_true(in->flags & PTX_FLAG_BIT(WRAP));
    assert_true(instr(f, 9)->flags & PTX_FLAG_BIT(CC));
    assert_int_equal(instr(f, 10)->op, PTX_OP_ADDC);
    in = instr(f, 11);
    assert_int_equal(in->op, PTX_OP_FENCE);
    assert_int_equal(in->mod[PTX_CAT_SEM], PTX_SEM_SC);
    assert_int_equal(instr(f, 12)->mod[PTX_CAT_SCOPE], PTX_SCOPE_GL);
    ptx_module_free(m);
}

static void test_9_compound_opcodes(void **state)
{
    ptx_module *m = kernel(
        "bar.sync 0;\n"
        "barrier.sync.aligned 1, 64;\n"
        "bar.warp.sync -1;\n"
        "vote.sync.ballot.b32 %r1, %p1, -1;\n"
        "shfl.sync.bfly.b32 %r2|%p2, %r1, 16, 31, -1;\n"
        "bar.red.popc.u32 %r3, 0, %p1;\n"
        "cp.async.commit_group;\n"
        "cp.async.wait_group 0;\n"
        "mbarrier.try_wait.parity.shared::cta.b64 %p3, [%rd1], %r1;\n"
        "fence.proxy.async.shared::cta;\n"
        "griddepcontrol.wait;\n"
        "cvt.pack.sat.u8.s32.b32 %r4, %r1, %r2, %r3;\n");
    ptx_func *f = func(m, "k");
    static const ptx_opcode want[] = {
        PTX_OP_BAR_SYNC, PTX_OP_BARRIER_SYNC, PTX_OP_BAR_WARP_SYNC, PTX_OP_VOTE,
        PTX_OP_SHFL, PTX_OP_BAR_RED, PTX_OP_CP_ASYNC_COMMIT_GROUP, PTX_OP_CP_ASYNC_WAIT_GROUP,
        PTX_OP_MBARRIER_TRY_WAIT, PTX_OP_FENCE_PROXY, PTX_OP_GRIDDEPCONTROL_WAIT,
        PTX_OP_CVT_PACK,
    };
    for (uint32_t i = 0; i < sizeof want / sizeof want[0]; i++)
        assert_int_equal(instr(f, i)->op, want[i]);
    assert_true(instr(f, 1)->flags & PTX_FLAG_BIT(ALIGNED));
    assert_int_equal(instr(f, 3)->mod[PTX_CAT_MODE], PTX_MODE_BALLOT);
    assert_true(instr(f, 3)->flags & PTX_FLAG_BIT(SYNC));
    assert_int_equal(instr(f, 4)->opds[0].kind, PTX_OPD_PAIR);
    assert_int_equal(instr(f, 5)->mod[PTX_CAT_RED], PTX_RED_POPC);
    assert_int_equal(instr(f, 8)->mod[PTX_CAT_SPACE], PTX_SPACE_SHARED_CTA);
    assert_int_equal(instr(f, 9)->mod[PTX_CAT_MODE], PTX_MODE_ASYNC);
    ptx_module_free(m);
}

static void test_6_operands(void **state)
{
    ptx_module *m = kernel(
        "mov.u32 %r1, %tid.y;\n"
        "mov.u32 %r2, %envreg3;\n"
        "mov.f32 %f1, 0f3F800000;\n"
        "mov.f64 %fd1, 0d4000000000000000;\n"
        "mov.f64 %fd2, 1.5;\n"
        "mov.u32 %r3, 0x10;\n"
        "mov.u32 %r4, 0b101;\n"
        "mov.u32 %r5, 017;\n"
        "mov.u32 %r6, 5U;\n"
        "mov.s32 %r7, -1;\n"
        "mov.u32 %r8, (1 << 4) + 2 * 3;\n"
        "ld.global.u32 %r9, [gv+8];\n"
        "ld.global.u32 %r10, [%rd1+-4];\n"
        "ld.global.u32 %r11, [256];\n"
        "mov.u64 %rd2, gv;\n"
        "@!%p1 mov.b64 {%r12, _}, %rd2;\n"
        "mov.u32 %r13, %laneid;\n");
    ptx_func *f = func(m, "k");
    ptx_instr *in = instr(f, 0);
    assert_int_equal(in->opds[1].kind, PTX_OPD_SREG);
    assert_int_equal(in->opds[1].sreg, PTX_SREG_TID);
    assert_int_equal(in->opds[1].comp, 2);
    in = instr(f, 1);
    assert_int_equal(in->opds[1].sreg, PTX_SREG_ENVREG);
    assert_int_equal(in->opds[1].sreg_index, 3);
    assert_int_equal(instr(f, 2)->opds[1].kind, PTX_OPD_F32);
    assert_int_equal(instr(f, 2)->opds[1].imm, 0x3F800000);
    assert_int_equal(instr(f, 3)->opds[1].kind, PTX_OPD_F64);
    assert_int_equal(instr(f, 3)->opds[1].imm, 0x4000000000000000ull);
    assert_int_equal(instr(f, 4)->opds[1].imm, 0x3FF8000000000000ull);
    assert_int_equal(instr(f, 5)->opds[1].imm, 16);
    assert_int_equal(instr(f, 6)->opds[1].imm, 5);
    assert_int_equal(instr(f, 7)->opds[1].imm, 15);
    assert_int_equal(instr(f, 8)->opds[1].imm, 5);
    assert_int_equal(instr(f, 9)->opds[1].imm, UINT64_MAX);
    assert_int_equal(instr(f, 10)->opds[1].imm, 22);
    in = instr(f, 11);
    assert_string_equal(in->opds[1].elems[0].name, "gv");
    assert_int_equal(in->opds[1].imm, 8);
    assert_non_null(in->opds[1].elems[0].var);
    assert_int_equal(instr(f, 12)->opds[1].imm, (uint64_t)-4);
    assert_int_equal(instr(f, 13)->opds[1].nelems, 0);
    assert_int_equal(instr(f, 13)->opds[1].imm, 256);
    in = instr(f, 15);
    assert_true(in->has_guard);
    assert_true(in->guard.neg);
    assert_int_equal(in->opds[0].elems[1].kind, PTX_OPD_SINK);
    assert_int_equal(instr(f, 16)->opds[1].sreg, PTX_SREG_LANEID);
    ptx_module_free(m);
}

/* Triton braces the one value of a scalar ld/st (ptxas takes it): the
 * operand is the register itself; .v2 keeps its vector. */
static void test_scalar_braces(void **state)
{
    ptx_module *m = kernel("@%p1 ld.global.b32 { %r1 }, [ %rd1 + 0 ];\n"
                           "@%p1 st.global.b32 [ %rd1 + 4 ], { %r1 };\n"
                           "ld.global.v2.b32 { %r2, %r3 }, [ %rd1 + 8 ];\n");
    ptx_func *f = func(m, "k");
    assert_int_equal(instr(f, 0)->opds[0].kind, PTX_OPD_NAME);
    assert_string_equal(instr(f, 0)->opds[0].name, "%r1");
    assert_int_equal(instr(f, 1)->opds[1].kind, PTX_OPD_NAME);
    assert_int_equal(instr(f, 2)->opds[0].kind, PTX_OPD_VEC);
    assert_int_equal(instr(f, 2)->opds[0].nelems, 2);
    ptx_module_free(m);
}

static uint64_t eval(const char *expr)
{
    char buf[512];
    snprintf(buf, sizeof buf, "mov.u64 %%rd1, %s;", expr);
    ptx_module *m = kernel(buf);
    uint64_t v = instr(func(m, "k"), 0)->opds[1].imm;
    ptx_module_free(m);
    return v;
}

/* ISA 4.6.1: 64-bit evaluation, unsigned if either operand is unsigned. */
static void test_4_constant_expressions(void **state)
{
    assert_int_equal(eval("1 + 2 * 3"), 7);
    assert_int_equal(eval("(1 + 2) * 3"), 9);
    assert_int_equal(eval("-7 / 2"), (uint64_t)-3);
    assert_int_equal(eval("-7 % 2"), (uint64_t)-1);
    assert_int_equal(eval("0xFFFFFFFFFFFFFFFF / 2"), 0x7FFFFFFFFFFFFFFFull); /* needs .u64 */
    assert_int_equal(eval("0x7FFFFFFFFFFFFFFF / -2"), (uint64_t)-0x3FFFFFFFFFFFFFFFll);
    assert_int_equal(eval("0xFFFFFFFFFFFFFFFFU / 2"), 0x7FFFFFFFFFFFFFFFull);
    assert_int_equal(eval("-8 >> 1"), (uint64_t)-4);
    assert_int_equal(eval("0x8000000000000000U >> 63"), 1);
    assert_int_equal(eval("-1 < 0"), 1);
    assert_int_equal(eval("-1 < 0U"), 0);
    assert_int_equal(eval("1 ? 5 : 6"), 5);
    assert_int_equal(eval("0 ? 5 : 1 ? 7 : 8"), 7);
    assert_int_equal(eval("!0 + ~0"), 0);
    assert_int_equal(eval("3 & 5 | 8 ^ 1"), 9);
    assert_int_equal(eval("1 << 2 + 1"), 8);
    assert_int_equal(eval("4 == 4 && 3 != 3 || 1"), 1);
    assert_int_equal(eval("(-9223372036854775807 - 1) / -1"), 0x8000000000000000ull);
}

static void test_10_control_flow(void **state)
{
    ptx_module *m = parse_ok(HDR
        ".func (.param .b32 r) callee (.param .b32 a)\n{\n"
        "  .reg .b32 %x;\n  ld.param.b32 %x, [a];\n  st.param.b32 [r], %x;\n  ret;\n}\n"
        ".visible .entry k()\n{\n"
        "  .reg .b32 %r<4>;\n  .reg .b64 %rd<2>;\n"
        "  ts: .branchtargets L0, L1;\n"
        "  brx.idx %r1, ts;\n"
        "L0:\n  bra.uni L1;\n"
        "L1:\n"
        "  { .param .b32 p0; .param .b32 r0;\n"
        "    st.param.b32 [p0], %r1;\n"
        "    call.uni (r0), callee, (p0);\n"
        "    ld.param.b32 %r2, [r0];\n  }\n"
        "  proto: .callprototype (.param .b32 _) _ (.param .b32 _);\n"
        "  mov.u64 %rd1, callee;\n"
        "  { .param .b32 p0; .param .b32 r0;\n"
        "    call (r0), %rd1, (p0), proto;\n  }\n"
        "  ret;\n}\n");
    ptx_func *k = func(m, "k");
    ptx_instr *brx = instr(k, 0);
    assert_int_equal(brx->op, PTX_OP_BRX_IDX);
    assert_int_equal(k->body[brx->opds[1].label].kind, PTX_STMT_BRANCHTARGETS);
    ptx_instr *bra = instr(k, 1);
    assert_int_equal(k->body[bra->opds[0].label].kind, PTX_STMT_LABEL);
    assert_string_equal(k->body[bra->opds[0].label].name, "L1");
    ptx_instr *call = instr(k, 3);
    assert_int_equal(call->op, PTX_OP_CALL);
    assert_int_equal(call->nopds, 3);
    assert_int_equal(call->opds[0].kind, PTX_OPD_LIST);
    assert_ptr_equal(call->opds[1].func, func(m, "callee"));
    assert_true(call->flags & PTX_FLAG_BIT(UNI));
    ptx_instr *icall = instr(k, 6);
    assert_int_equal(icall->nopds, 4);
    assert_non_null(icall->opds[1].var);
    assert_int_equal(k->body[icall->opds[3].label].kind, PTX_STMT_PROTOTYPE);
    ptx_module_free(m);
}

static void test_scopes_shadow(void **state)
{
    ptx_module *m = kernel(
        "{ .reg .f32 %x; mov.f32 %x, 0f00000000;\n"
        "  { .reg .b32 %x; mov.b32 %x, 1; }\n"
        "  mov.f32 %x, 0f3F800000; }\n");
    ptx_func *f = func(m, "k");
    assert_int_equal(instr(f, 0)->opds[0].var->type, PTX_TYPE_F32);
    assert_int_equal(instr(f, 1)->opds[0].var->type, PTX_TYPE_B32);
    assert_int_equal(instr(f, 2)->opds[0].var->type, PTX_TYPE_F32);
    ptx_module_free(m);
}

static void test_debug_directives_ignored(void **state)
{
    ptx_module *m = parse_ok(HDR
        ".file 1 \"/tmp/x.cu\", 1700000000, 1234\n"
        ".visible .entry k()\n{\n"
        "  .loc 1 5 3\n"
        "  .loc 1 6 1, function_name $L__info_string0, inlined_at 1 2 3\n"
        "  ret;\n}\n"
        ".section .debug_info\n{\n .b32 45\n .b8 2, 0\n .b64 $L__func_begin0\n"
        " { .b8 1 }\n}\n"
        ".section .debug_str\n{\n$L__info_string0:\n .b8 95,0\n}\n");
    assert_int_equal(m->nitems, 1);
    assert_int_equal(func(m, "k")->nbody, 1);
    ptx_module_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_module_header),
        cmocka_unit_test(test_5_module_variables),
        cmocka_unit_test(test_11_entry_and_func),
        cmocka_unit_test(test_5_parameterized_registers),
        cmocka_unit_test(test_9_modifiers_are_structured),
        cmocka_unit_test(test_9_compound_opcodes),
        cmocka_unit_test(test_6_operands),
        cmocka_unit_test(test_scalar_braces),
        cmocka_unit_test(test_4_constant_expressions),
        cmocka_unit_test(test_10_control_flow),
        cmocka_unit_test(test_scopes_shadow),
        cmocka_unit_test(test_debug_directives_ignored),
    };
    return cmocka_run_group_tests_name("parse", tests, NULL, NULL);
}
