/* lower_math.c - the approximate instructions: ex2 lg2 sin cos tanh
 * (.f32; the f16/bf16 forms widen to f32 in lower_half.c), rsqrt,
 * rcp.approx, sqrt.approx, div.approx, div.full.
 *
 * ex2, lg2, sin, cos and tanh call glibc's vector math library (libmvec)
 * on whole vectors: 16 lanes per call with AVX-512 (_ZGVeN16v_sinf...), 8
 * with AVX2 (_ZGVdN8v_sinf...), 4 with SSE, never one libm call per lane.  The runtime binds
 * the names (rt/vecmath.c).  libmvec is accurate to a few ulp, inside the
 * bounds the ISA states (ex2 2 ulp, lg2 2^-22, sin and cos 2^-20.5
 * absolute, tanh 2^-11 relative); test_conform_float measures it.
 * sin and cos first reduce the argument as an H200 does (sincos_argument).
 * rsqrt, rcp, sqrt and the divisions use IEEE operations (at most two
 * roundings), except where the ISA defines other results: div.approx
 * gives 0 (NaN for infinite a) when 2^126 < |b| < 2^128, and
 * rcp/rsqrt.approx.ftz.f64 use and give 32 high bits (gross_f64). */
#include "lower_internal.h"

#include <math.h>

#include <stdio.h>
#include <string.h>

/* The libmvec variant for the target: the widest of AVX-512 (e, 16
 * lanes), AVX2 (d, 8) and SSE (b, 4). */
void lower_math_init(lw *L, LLVMTargetMachineRef tm)
{
    char *feat = LLVMGetTargetMachineFeatureString(tm);
    bool avx2 = feat && strstr(feat, "+avx2") != NULL;
    bool avx512 = feat && strstr(feat, "+avx512f") != NULL;
    LLVMDisposeMessage(feat);
    L->vm_isa = avx512 ? 'e' : avx2 ? 'd' : 'b';
    L->vm_width = avx512 ? 16 : avx2 ? 8 : 4;
}

static LLVMValueRef const_like(LLVMTypeRef vt, LLVMValueRef scalar)
{
    unsigned n = LLVMGetVectorSize(vt);
    LLVMValueRef e[2 * W];
    for (unsigned i = 0; i < n; i++)
        e[i] = scalar;
    return LLVMConstVector(e, n);
}

static LLVMValueRef real_like(LLVMValueRef v, double d)
{
    LLVMTypeRef vt = LLVMTypeOf(v);
    return const_like(vt, LLVMConstReal(LLVMGetElementType(vt), d));
}

/* Lanes [from, from + n) of v as a shorter vector. */
static LLVMValueRef lanes(fn *F, LLVMValueRef v, unsigned from, unsigned n)
{
    LLVMValueRef idx[2 * W];
    for (unsigned i = 0; i < n; i++)
        idx[i] = const_i32(F->L, from + i);
    return LLVMBuildShuffleVector(F->L->b, v, LLVMGetUndef(LLVMTypeOf(v)), LLVMConstVector(idx, n), "");
}

static LLVMValueRef concat(fn *F, LLVMValueRef a, LLVMValueRef b)
{
    unsigned n = LLVMGetVectorSize(LLVMTypeOf(a));
    LLVMValueRef idx[2 * W];
    for (unsigned i = 0; i < 2 * n; i++)
        idx[i] = const_i32(F->L, i);
    return LLVMBuildShuffleVector(F->L->b, a, b, LLVMConstVector(idx, 2 * n), "");
}

/* fname (a libm name: "sinf", "exp2f"...) on every lane of an f32 vector
 * (32 or 64 lanes), through libmvec's vector variant. */
LLVMValueRef lower_vmath(fn *F, const char *fname, LLVMValueRef x)
{
    lw *L = F->L;
    unsigned n = LLVMGetVectorSize(LLVMTypeOf(x)), w = L->vm_width;
    char name[40];
    snprintf(name, sizeof name, "_ZGV%cN%uv_%s", L->vm_isa, w, fname);
    LLVMTypeRef vt = LLVMVectorType(L->f32, w), ft = LLVMFunctionType(vt, &vt, 1, false);
    LLVMValueRef f = LLVMGetNamedFunction(L->mod, name);
    if (!f) {
        f = LLVMAddFunction(L->mod, name, ft);
        const char *attrs[] = {"nounwind", "willreturn", "nosync", "nofree"};
        for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++)
            LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                                    LLVMCreateEnumAttribute(L->ctx, LLVMGetEnumAttributeKindForName(attrs[i], strlen(attrs[i])), 0));
        /* memory(none): no memory effects, so calls can be hoisted or CSEd */
        LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                                LLVMCreateEnumAttribute(L->ctx, LLVMGetEnumAttributeKindForName("memory", 6), 0));
    }
    if (w == 16) { /* pass 512-bit vectors in zmm registers even where the
                    * target prefers 256-bit ones (otherwise split in two) */
        LLVMValueRef fnc = LLVMGetBasicBlockParent(LLVMGetInsertBlock(L->b));
        LLVMAddAttributeAtIndex(fnc, LLVMAttributeFunctionIndex,
                                LLVMCreateStringAttribute(L->ctx, "min-legal-vector-width", 22, "512", 3));
    }
    LLVMValueRef parts[2 * W];
    unsigned np = 0;
    for (unsigned i = 0; i < n; i += w) {
        LLVMValueRef arg = lanes(F, x, i, w);
        parts[np++] = LLVMBuildCall2(L->b, ft, f, &arg, 1, "");
    }
    while (np > 1) { /* pairwise back to n lanes */
        for (unsigned i = 0; i < np / 2; i++)
            parts[i] = concat(F, parts[2 * i], parts[2 * i + 1]);
        np /= 2;
    }
    return parts[0];
}

static bool has(const ptx_instr *in, unsigned flag) { return (in->flags & flag) != 0; }

/* div.approx: a * (1/b), whose reciprocal is flushed to zero for
 * 2^126 < |b| < 2^128; elsewhere the IEEE quotient (within the 2 ulp the
 * ISA allows). */
static LLVMValueRef div_approx(fn *F, LLVMValueRef a, LLVMValueRef b)
{
    lw *L = F->L;
    LLVMBuilderRef bd = L->b;
    LLVMTypeRef vt = LLVMTypeOf(a);
    LLVMValueRef q = LLVMBuildFDiv(bd, a, b, "");
    LLVMValueRef mag = call_intrinsic(L, "llvm.fabs", &vt, 1, &b, 1);
    LLVMValueRef big = LLVMBuildAnd(bd, LLVMBuildFCmp(bd, LLVMRealOGT, mag, real_like(b, 0x1p126), ""),
                                    LLVMBuildFCmp(bd, LLVMRealOLT, mag, real_like(b, INFINITY), ""), "");
    LLVMValueRef z = call_intrinsic(L, "llvm.copysign", &vt, 1, (LLVMValueRef[]){LLVMConstNull(vt), b}, 2);
    return LLVMBuildSelect(bd, big, LLVMBuildFMul(bd, a, z, ""), q, "");
}

/* rsqrt.approx: f32 through one f64 1/sqrt (one rounding that matters);
 * f64 as 1/sqrt(x) corrected by one Newton step whose residual 1 - x*y*y
 * is exact (y*y split by fma), so the result is within an ulp like the
 * GPU's (CUDA's rsqrt() is this instruction; sqrt-then-divide alone is
 * 1.25 ulp).  x is scaled by 2^-+1000 outside [2^-900, 2^900] so y*y
 * neither overflows nor loses its low part; zero, negative, infinite and
 * NaN inputs keep the plain quotient (inf, NaN, +0). */
static LLVMValueRef rsqrt_approx(fn *F, LLVMValueRef x, bool f32)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMTypeRef vt = LLVMTypeOf(x), dt = vec_of(L->f64);
    if (f32) {
        LLVMValueRef xd = LLVMBuildFPExt(b, x, dt, "");
        LLVMValueRef q = LLVMBuildFDiv(b, real_like(xd, 1.0), call_intrinsic(L, "llvm.sqrt", &dt, 1, &xd, 1), "");
        return LLVMBuildFPTrunc(b, q, vt, "");
    }
    LLVMValueRef small = LLVMBuildFCmp(b, LLVMRealOLT, x, real_like(x, 0x1p-900), "");
    LLVMValueRef large = LLVMBuildFCmp(b, LLVMRealOGT, x, real_like(x, 0x1p900), "");
    LLVMValueRef xs = LLVMBuildFMul(b, x, LLVMBuildSelect(b, small, real_like(x, 0x1p1000),
                                    LLVMBuildSelect(b, large, real_like(x, 0x1p-1000), real_like(x, 1.0), ""), ""), "");
    LLVMValueRef back = LLVMBuildSelect(b, small, real_like(x, 0x1p500),
                                        LLVMBuildSelect(b, large, real_like(x, 0x1p-500), real_like(x, 1.0), ""), "");
    LLVMValueRef y = LLVMBuildFDiv(b, real_like(x, 1.0), call_intrinsic(L, "llvm.sqrt", &vt, 1, &xs, 1), "");
    LLVMValueRef p = LLVMBuildFMul(b, y, y, "");
    LLVMValueRef pe = call_intrinsic(L, "llvm.fma", &vt, 1, (LLVMValueRef[]){y, y, LLVMBuildFNeg(b, p, "")}, 3);
    LLVMValueRef nx = LLVMBuildFNeg(b, xs, "");
    LLVMValueRef t = call_intrinsic(L, "llvm.fma", &vt, 1, (LLVMValueRef[]){nx, p, real_like(x, 1.0)}, 3);
    t = call_intrinsic(L, "llvm.fma", &vt, 1, (LLVMValueRef[]){nx, pe, t}, 3);
    LLVMValueRef hy = LLVMBuildFMul(b, y, real_like(x, 0.5), "");
    LLVMValueRef yr = call_intrinsic(L, "llvm.fma", &vt, 1, (LLVMValueRef[]){hy, t, y}, 3);
    LLVMValueRef ok = LLVMBuildAnd(b, LLVMBuildFCmp(b, LLVMRealOGT, x, real_like(x, 0.0), ""),
                                   LLVMBuildFCmp(b, LLVMRealOLT, x, real_like(x, INFINITY), ""), "");
    LLVMValueRef plain = LLVMBuildFDiv(b, real_like(x, 1.0), call_intrinsic(L, "llvm.sqrt", &vt, 1, &x, 1), "");
    return LLVMBuildSelect(b, ok, LLVMBuildFMul(b, yr, back, ""), plain, "");
}

/* sin/cos.approx as an H200 reduces the argument: x times 1/(2 pi) in f32
 * rounded toward zero (its FMUL.RZ ahead of MUFU.SIN/COS), in turns; the
 * whole turns dropped exactly, the rest (in [-1/2, 1/2]) back to radians.
 * From |x| = 2^26 or so the turns have no fraction left (sin 0, cos 1). */
static LLVMValueRef sincos_argument(fn *F, LLVMValueRef x)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMTypeRef dt = vec_of(L->f64), ft = vec_of(L->f32);
    LLVMValueRef xd = LLVMBuildFPExt(b, x, dt, "");
    LLVMValueRef turns = narrow_directed(F, LLVMBuildFMul(b, xd, real_like(xd, 0x1.45f306p-3), ""), PTX_ROUND_RZ);
    LLVMValueRef frac = LLVMBuildFSub(b, turns, call_intrinsic(L, "llvm.roundeven", &ft, 1, &turns, 1), "");
    LLVMValueRef whole = LLVMBuildFCmp(b, LLVMRealOEQ, frac, LLVMConstNull(ft), ""); /* sin(-0) is -0 */
    frac = LLVMBuildSelect(b, whole, call_intrinsic(L, "llvm.copysign", &ft, 1, (LLVMValueRef[]){frac, turns}, 2), frac, "");
    LLVMValueRef rad = LLVMBuildFMul(b, LLVMBuildFPExt(b, frac, dt, ""), real_like(xd, 6.283185307179586), "");
    return LLVMBuildFPTrunc(b, rad, ft, "");
}

/* rcp.approx.ftz.f64, rsqrt.approx.ftz.f64: the ISA's gross approximation,
 * from the operand's high 32 bits only, with the result's low 32 bits
 * zero.  Computed from the high word in f64 and truncated: an H200's bits
 * for 93-95% of inputs, and within a unit of the 20th significand bit
 * for all.  A NaN gives 0x7fffffff00000000, as there. */
static LLVMValueRef gross_f64(fn *F, LLVMValueRef x, bool rsqrt)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMTypeRef vt = LLVMTypeOf(x), it = vec_of(L->i64);
    LLVMValueRef high = splat(L, const_i64(L, 0xffffffff00000000ull));
    LLVMValueRef xh = LLVMBuildBitCast(b, LLVMBuildAnd(b, LLVMBuildBitCast(b, x, it, ""), high, ""), vt, "");
    LLVMValueRef den = rsqrt ? call_intrinsic(L, "llvm.sqrt", &vt, 1, &xh, 1) : xh;
    LLVMValueRef r = fl_ftz(F, LLVMBuildFDiv(b, real_like(x, 1.0), den, ""));
    LLVMValueRef rb = LLVMBuildAnd(b, LLVMBuildBitCast(b, r, it, ""), high, "");
    rb = LLVMBuildSelect(b, fl_is_nan(F, r), splat(L, const_i64(L, 0x7fffffff00000000ull)), rb, "");
    return LLVMBuildBitCast(b, rb, vt, "");
}

bool lower_math(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    ptx_type t = (ptx_type)in->types[0];
    LLVMValueRef x = fl_src(F, in, 1, t), r;
    LLVMTypeRef vt = LLVMTypeOf(x);
    bool f32 = t == PTX_TYPE_F32, has_ftz = (in->flags & PTX_FLAG_BIT(FTZ)) != 0;
    switch (in->op) {
    case PTX_OP_EX2: case PTX_OP_LG2: case PTX_OP_SIN: case PTX_OP_COS: case PTX_OP_TANH: {
        if (!f32)
            return false;
        static const char *names[] = {[PTX_OP_EX2] = "exp2f", [PTX_OP_LG2] = "log2f", [PTX_OP_SIN] = "sinf",
                                      [PTX_OP_COS] = "cosf", [PTX_OP_TANH] = "tanhf"};
        bool sincos = in->op == PTX_OP_SIN || in->op == PTX_OP_COS;
        r = lower_vmath(F, names[in->op], sincos ? sincos_argument(F, x) : x);
        break;
    }
    case PTX_OP_RSQRT:
        r = !f32 && has_ftz ? gross_f64(F, x, true) : rsqrt_approx(F, x, f32);
        break;
    case PTX_OP_RCP:
        r = !f32 && has_ftz ? gross_f64(F, x, false) : LLVMBuildFDiv(b, real_like(x, 1.0), x, "");
        break;
    case PTX_OP_SQRT:
        r = call_intrinsic(L, "llvm.sqrt", &vt, 1, &x, 1);
        break;
    case PTX_OP_DIV: {
        LLVMValueRef y = fl_src(F, in, 2, t);
        r = has(in, PTX_FLAG_BIT(APPROX)) ? div_approx(F, x, y) : LLVMBuildFDiv(b, x, y, "");
        break;
    }
    default:
        return false;
    }
    r = fl_result(F, in, r);
    write_reg(F, &in->opds[0], r, t, false, mask);
    return true;
}
