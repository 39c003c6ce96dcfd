/* lower_bits.c - bit manipulation per the ISA pseudo-code: popc, clz,
 * brev, bfind, bfe, bfi, prmt (all modes), lop3, shf, bmsk, szext, fns,
 * copysign, testp.  Shift amounts are kept below the width (LLVM makes
 * larger ones poison); the ISA's clamping is done with selects. */
#include "lower_internal.h"

static LLVMValueRef vconst(fn *F, LLVMTypeRef t, uint64_t v)
{
    return splat(F->L, LLVMConstInt(t, v, false));
}

static LLVMValueRef intrin(fn *F, const char *name, LLVMValueRef *args, unsigned n)
{
    LLVMTypeRef t = LLVMTypeOf(args[0]);
    return call_intrinsic(F->L, name, &t, 1, args, n);
}

static LLVMValueRef to_u32(fn *F, LLVMValueRef v)
{
    lw *L = F->L;
    unsigned bits = LLVMGetIntTypeWidth(LLVMGetElementType(LLVMTypeOf(v)));
    if (bits > 32)
        return LLVMBuildTrunc(L->b, v, vec_of(L->i32), "");
    return bits < 32 ? LLVMBuildZExt(L->b, v, vec_of(L->i32), "") : v;
}

/* Low `count` bits set, count in [0, width]. */
static LLVMValueRef low_mask(fn *F, LLVMValueRef count, LLVMTypeRef et, unsigned width)
{
    lw *L = F->L;
    LLVMValueRef full = LLVMBuildICmp(L->b, LLVMIntUGE, count, vconst(F, et, width), "");
    LLVMValueRef safe = LLVMBuildSelect(L->b, full, vconst(F, et, 0), count, "");
    LLVMValueRef m = LLVMBuildSub(L->b, LLVMBuildShl(L->b, vconst(F, et, 1), safe, ""), vconst(F, et, 1), "");
    return LLVMBuildSelect(L->b, full, LLVMConstAllOnes(vec_of(et)), m, "");
}

/* pos/len operands: the low 8 bits for 32-bit values (the ISA's rule);
 * 64-bit forms take all 32 bits, clamped by the callers (what an H200
 * does: pos 0x100 inserts nothing, len 0x100 is a whole field). */
static LLVMValueRef field_opd(fn *F, const ptx_operand *o, LLVMTypeRef et)
{
    lw *L = F->L;
    LLVMValueRef v = read_opd(F, o, PTX_TYPE_U32, false);
    if (LLVMGetIntTypeWidth(et) > 32)
        return LLVMBuildZExt(L->b, v, vec_of(et), "");
    return LLVMBuildAnd(L->b, v, vconst(F, L->i32, 0xff), "");
}

/* Bits [pos, pos+len) of a; signed forms fill with a[min(pos+len-1, msb)]. */
static LLVMValueRef bfe(fn *F, const ptx_instr *in, ptx_type t)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMTypeRef et = storage_int(L, t);
    unsigned w = 8 * ptx_type_size(t);
    LLVMValueRef a = read_opd(F, &in->opds[1], t, false);
    LLVMValueRef pos = field_opd(F, &in->opds[2], et), len = field_opd(F, &in->opds[3], et);
    LLVMValueRef msb = vconst(F, et, w - 1);
    LLVMValueRef in_range = LLVMBuildICmp(b, LLVMIntULE, pos, msb, "");
    LLVMValueRef spos = LLVMBuildSelect(b, in_range, pos, vconst(F, et, 0), "");
    LLVMValueRef shifted = LLVMBuildSelect(b, in_range, LLVMBuildLShr(b, a, spos, ""), vconst(F, et, 0), "");
    LLVMValueRef avail = LLVMBuildSub(b, vconst(F, et, w), spos, "");
    LLVMValueRef count = LLVMBuildSelect(b, in_range, intrin(F, "llvm.umin", (LLVMValueRef[]){len, avail}, 2),
                                         vconst(F, et, 0), "");
    LLVMValueRef m = low_mask(F, count, et, w);
    LLVMValueRef field = LLVMBuildAnd(b, shifted, m, "");
    if (ptx_type_class(t) != 'S')
        return field;
    LLVMValueRef last = LLVMBuildSub(b, LLVMBuildAdd(b, pos, len, ""), vconst(F, et, 1), "");
    LLVMValueRef sidx = intrin(F, "llvm.umin", (LLVMValueRef[]){last, msb}, 2);
    LLVMValueRef sbit = LLVMBuildAnd(b, LLVMBuildLShr(b, a, sidx, ""), vconst(F, et, 1), "");
    /* a zero-length field has no sign bit: the result is 0 */
    LLVMValueRef empty = LLVMBuildICmp(b, LLVMIntEQ, len, vconst(F, et, 0), "");
    sbit = LLVMBuildSelect(b, empty, vconst(F, et, 0), sbit, "");
    LLVMValueRef fill = LLVMBuildNeg(b, sbit, ""); /* 0 or all ones */
    return LLVMBuildOr(b, field, LLVMBuildAnd(b, fill, LLVMBuildNot(b, m, ""), ""), "");
}

/* Inserts the low len bits of a into b at pos. */
static LLVMValueRef bfi(fn *F, const ptx_instr *in, ptx_type t)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMTypeRef et = storage_int(L, t);
    unsigned w = 8 * ptx_type_size(t);
    LLVMValueRef a = read_opd(F, &in->opds[1], t, false), base = read_opd(F, &in->opds[2], t, false);
    LLVMValueRef pos = field_opd(F, &in->opds[3], et), len = field_opd(F, &in->opds[4], et);
    LLVMValueRef in_range = LLVMBuildICmp(b, LLVMIntULT, pos, vconst(F, et, w), "");
    LLVMValueRef spos = LLVMBuildSelect(b, in_range, pos, vconst(F, et, 0), "");
    LLVMValueRef m = LLVMBuildShl(b, low_mask(F, len, et, w), spos, "");
    m = LLVMBuildSelect(b, in_range, m, vconst(F, et, 0), "");
    LLVMValueRef ins = LLVMBuildAnd(b, LLVMBuildShl(b, a, spos, ""), m, "");
    return LLVMBuildOr(b, LLVMBuildAnd(b, base, LLVMBuildNot(b, m, ""), ""), ins, "");
}

/* Byte selector of result byte i for prmt's modes (ISA table). */
static LLVMValueRef prmt_sel(fn *F, uint8_t mode, LLVMValueRef c, unsigned i)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMTypeRef i32 = L->i32;
    LLVMValueRef c2 = LLVMBuildAnd(b, c, vconst(F, i32, 3), "");
    switch (mode) {
    case PTX_MODE_F4E: return LLVMBuildAnd(b, LLVMBuildAdd(b, c2, vconst(F, i32, i), ""), vconst(F, i32, 7), "");
    case PTX_MODE_B4E: return LLVMBuildAnd(b, LLVMBuildSub(b, c2, vconst(F, i32, i), ""), vconst(F, i32, 7), "");
    case PTX_MODE_RC8: return c2;
    case PTX_MODE_ECL: return intrin(F, "llvm.umax", (LLVMValueRef[]){c2, vconst(F, i32, i)}, 2);
    case PTX_MODE_ECR: return intrin(F, "llvm.umin", (LLVMValueRef[]){c2, vconst(F, i32, i)}, 2);
    case PTX_MODE_RC16:
        return LLVMBuildOr(b, LLVMBuildShl(b, LLVMBuildAnd(b, c, vconst(F, i32, 1), ""), vconst(F, i32, 1), ""),
                           vconst(F, i32, i & 1), "");
    default: /* generic: 4-bit selector per byte, bit 3 replicates the sign */
        return LLVMBuildAnd(b, LLVMBuildLShr(b, c, vconst(F, i32, 4 * i), ""), vconst(F, i32, 15), "");
    }
}

static LLVMValueRef prmt(fn *F, const ptx_instr *in)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMTypeRef i64 = L->i64, i32 = L->i32;
    LLVMValueRef a = read_opd(F, &in->opds[1], PTX_TYPE_B32, false);
    LLVMValueRef bb = read_opd(F, &in->opds[2], PTX_TYPE_B32, false);
    LLVMValueRef c = read_opd(F, &in->opds[3], PTX_TYPE_B32, false);
    LLVMValueRef tmp = LLVMBuildOr(b, LLVMBuildZExt(b, a, vec_of(i64), ""),
                                   LLVMBuildShl(b, LLVMBuildZExt(b, bb, vec_of(i64), ""), vconst(F, i64, 32), ""), "");
    uint8_t mode = in->mod[PTX_CAT_MODE];
    LLVMValueRef d = vconst(F, i32, 0);
    for (unsigned i = 0; i < 4; i++) {
        LLVMValueRef sel = prmt_sel(F, mode, c, i);
        LLVMValueRef idx = LLVMBuildAnd(b, sel, vconst(F, i32, 7), "");
        LLVMValueRef sh = LLVMBuildZExt(b, LLVMBuildShl(b, idx, vconst(F, i32, 3), ""), vec_of(i64), "");
        LLVMValueRef byte = LLVMBuildTrunc(b, LLVMBuildAnd(b, LLVMBuildLShr(b, tmp, sh, ""), vconst(F, i64, 0xff), ""),
                                           vec_of(i32), "");
        if (!mode) {
            LLVMValueRef rep = LLVMBuildICmp(b, LLVMIntNE, LLVMBuildAnd(b, sel, vconst(F, i32, 8), ""), vconst(F, i32, 0), "");
            LLVMValueRef neg = LLVMBuildICmp(b, LLVMIntNE, LLVMBuildAnd(b, byte, vconst(F, i32, 0x80), ""), vconst(F, i32, 0), "");
            LLVMValueRef fill = LLVMBuildSelect(b, neg, vconst(F, i32, 0xff), vconst(F, i32, 0), "");
            byte = LLVMBuildSelect(b, rep, fill, byte, "");
        }
        d = LLVMBuildOr(b, d, LLVMBuildShl(b, byte, vconst(F, i32, 8 * i), ""), "");
    }
    return d;
}

/* lop3: the 8-bit truth table over (a, b, c), as a sum of minterms. */
static LLVMValueRef lop3(fn *F, const ptx_instr *in, ptx_type t)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef x[3];
    for (int i = 0; i < 3; i++)
        x[i] = read_opd(F, &in->opds[1 + i], t, false);
    uint8_t lut = (uint8_t)in->opds[4].imm;
    LLVMValueRef d = LLVMConstNull(LLVMTypeOf(x[0]));
    for (unsigned k = 0; k < 8; k++) {
        if (!(lut >> k & 1))
            continue;
        LLVMValueRef term = NULL;
        for (int i = 0; i < 3; i++) {
            LLVMValueRef v = (k >> (2 - i) & 1) ? x[i] : LLVMBuildNot(b, x[i], "");
            term = term ? LLVMBuildAnd(b, term, v, "") : v;
        }
        d = LLVMBuildOr(b, d, term, "");
    }
    return d;
}

/* shf.l/.r: funnel shift of {b, a}; .clamp limits n to 32, .wrap uses n % 32. */
static LLVMValueRef shf(fn *F, const ptx_instr *in)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMTypeRef i32 = L->i32;
    LLVMValueRef a = read_opd(F, &in->opds[1], PTX_TYPE_B32, false);
    LLVMValueRef hi = read_opd(F, &in->opds[2], PTX_TYPE_B32, false);
    LLVMValueRef n = read_opd(F, &in->opds[3], PTX_TYPE_U32, false);
    bool left = in->mod[PTX_CAT_MODE] == PTX_MODE_L;
    LLVMValueRef r = intrin(F, left ? "llvm.fshl" : "llvm.fshr", (LLVMValueRef[]){hi, a, n}, 3);
    if (in->flags & PTX_FLAG_BIT(WRAP))
        return r;
    LLVMValueRef big = LLVMBuildICmp(b, LLVMIntUGE, n, vconst(F, i32, 32), "");
    return LLVMBuildSelect(b, big, left ? a : hi, r, "");
}

/* Ones from bit n up (n in [0, 31]). */
static LLVMValueRef ones_from(fn *F, LLVMValueRef n)
{
    return LLVMBuildShl(F->L->b, vconst(F, F->L->i32, UINT32_MAX), n, "");
}

/* bmsk.mode.b32 d, a, b: bits [a, a + b) set, per the ISA pseudo-code:
 * with .wrap a and b are taken mod 32; with .clamp a >= 32 gives 0 and
 * b >= 32 reaches the top bit; a field passing bit 31 stops there. */
static LLVMValueRef bmsk(fn *F, const ptx_instr *in)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMTypeRef i32 = L->i32;
    LLVMValueRef a = read_opd(F, &in->opds[1], PTX_TYPE_U32, false);
    LLVMValueRef w = read_opd(F, &in->opds[2], PTX_TYPE_U32, false);
    LLVMValueRef a1 = LLVMBuildAnd(b, a, vconst(F, i32, 31), ""), b1 = LLVMBuildAnd(b, w, vconst(F, i32, 31), "");
    LLVMValueRef sum = LLVMBuildAdd(b, a1, b1, "");
    LLVMValueRef mask0 = ones_from(F, a1);
    LLVMValueRef mask1 = ones_from(F, LLVMBuildAnd(b, sum, vconst(F, i32, 31), ""));
    LLVMValueRef none = LLVMBuildICmp(b, LLVMIntUGE, sum, vconst(F, i32, 32), ""); /* mask1 = 0 */
    if (in->flags & PTX_FLAG_BIT(CLAMP)) {
        LLVMValueRef apos = LLVMBuildICmp(b, LLVMIntUGE, a, vconst(F, i32, 32), "");
        LLVMValueRef bwid = LLVMBuildICmp(b, LLVMIntUGE, w, vconst(F, i32, 32), "");
        mask0 = LLVMBuildSelect(b, apos, vconst(F, i32, 0), mask0, "");
        none = LLVMBuildOr(b, none, LLVMBuildOr(b, apos, bwid, ""), "");
    }
    LLVMValueRef zero_w = LLVMBuildICmp(b, LLVMIntEQ, b1, vconst(F, i32, 0), "");
    mask1 = LLVMBuildSelect(b, zero_w, vconst(F, i32, UINT32_MAX), mask1, "");
    mask1 = LLVMBuildSelect(b, none, vconst(F, i32, 0), mask1, "");
    return LLVMBuildAnd(b, mask0, LLVMBuildNot(b, mask1, ""), "");
}

/* szext.mode.type d, a, b: the low N bits of a sign- or zero-extended;
 * N = b mod 32 with .wrap; with .clamp, b >= 32 keeps a whole.  N = 0
 * gives 0. */
static LLVMValueRef szext(fn *F, const ptx_instr *in, ptx_type t)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMTypeRef i32 = L->i32;
    LLVMValueRef a = read_opd(F, &in->opds[1], PTX_TYPE_U32, false);
    LLVMValueRef n = read_opd(F, &in->opds[2], PTX_TYPE_U32, false);
    LLVMValueRef b1 = LLVMBuildAnd(b, n, vconst(F, i32, 31), "");
    LLVMValueRef mask = ones_from(F, b1), keep_all = NULL;
    if (in->flags & PTX_FLAG_BIT(CLAMP)) {
        keep_all = LLVMBuildICmp(b, LLVMIntUGE, n, vconst(F, i32, 32), "");
        mask = LLVMBuildSelect(b, keep_all, vconst(F, i32, 0), mask, "");
    }
    LLVMValueRef d = LLVMBuildAnd(b, a, LLVMBuildNot(b, mask, ""), "");
    if (ptx_type_class(t) != 'S')
        return d;
    LLVMValueRef spos = LLVMBuildAnd(b, LLVMBuildSub(b, b1, vconst(F, i32, 1), ""), vconst(F, i32, 31), "");
    LLVMValueRef sign = LLVMBuildTrunc(b, LLVMBuildLShr(b, a, spos, ""), vec_of(L->i1), "");
    sign = LLVMBuildAnd(b, sign, LLVMBuildICmp(b, LLVMIntNE, b1, vconst(F, i32, 0), ""), "");
    if (keep_all)
        sign = LLVMBuildAnd(b, sign, LLVMBuildNot(b, keep_all, ""), "");
    return LLVMBuildSelect(b, sign, LLVMBuildOr(b, d, mask, ""), d, "");
}

/* The position of the n-th (n >= 1) set bit of x from the bottom, by
 * halving: 5 popcount steps.  Meaningful when popc(x) >= n. */
static LLVMValueRef nth_set_bit(fn *F, LLVMValueRef x, LLVMValueRef n)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMTypeRef i32 = L->i32;
    LLVMValueRef pos = vconst(F, i32, 0);
    for (unsigned w = 16; w; w /= 2) {
        LLVMValueRef low = LLVMBuildAnd(b, x, vconst(F, i32, (1u << w) - 1), "");
        LLVMValueRef c = intrin(F, "llvm.ctpop", (LLVMValueRef[]){low}, 1);
        LLVMValueRef up = LLVMBuildICmp(b, LLVMIntULT, c, n, "");
        n = LLVMBuildSelect(b, up, LLVMBuildSub(b, n, c, ""), n, "");
        x = LLVMBuildSelect(b, up, LLVMBuildLShr(b, x, vconst(F, i32, w), ""), x, "");
        pos = LLVMBuildSelect(b, up, LLVMBuildAdd(b, pos, vconst(F, i32, w), ""), pos, "");
    }
    return pos;
}

/* fns.b32 d, mask, base, offset: the |offset|-th set bit of mask counting
 * from base up (offset > 0) or down (offset < 0); offset 0 tests bit base;
 * 0xffffffff when there is none.  base > 31 is undefined: base & 31. */
static LLVMValueRef fns(fn *F, const ptx_instr *in)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMTypeRef i32 = L->i32;
    LLVMValueRef m = read_opd(F, &in->opds[1], PTX_TYPE_B32, false);
    LLVMValueRef base = LLVMBuildAnd(b, read_opd(F, &in->opds[2], PTX_TYPE_U32, false), vconst(F, i32, 31), "");
    LLVMValueRef off = read_opd(F, &in->opds[3], PTX_TYPE_S32, false);
    LLVMValueRef zero = vconst(F, i32, 0), none = vconst(F, i32, UINT32_MAX);
    LLVMValueRef down = LLVMBuildICmp(b, LLVMIntSLT, off, zero, "");
    LLVMValueRef n = LLVMBuildSelect(b, down, LLVMBuildSub(b, zero, off, ""), off, ""); /* |offset| */
    /* the bits at and above base (up), or at and below it, reversed (down) */
    LLVMValueRef upm = LLVMBuildAnd(b, m, ones_from(F, base), "");
    LLVMValueRef dnm = LLVMBuildAnd(b, m, LLVMBuildLShr(b, vconst(F, i32, UINT32_MAX),
                                                         LLVMBuildSub(b, vconst(F, i32, 31), base, ""), ""), "");
    dnm = intrin(F, "llvm.bitreverse", (LLVMValueRef[]){dnm}, 1);
    LLVMValueRef x = LLVMBuildSelect(b, down, dnm, upm, "");
    LLVMValueRef pos = nth_set_bit(F, x, n);
    pos = LLVMBuildSelect(b, down, LLVMBuildSub(b, vconst(F, i32, 31), pos, ""), pos, "");
    LLVMValueRef enough = LLVMBuildICmp(b, LLVMIntUGE, intrin(F, "llvm.ctpop", (LLVMValueRef[]){x}, 1), n, "");
    LLVMValueRef r = LLVMBuildSelect(b, enough, pos, none, "");
    LLVMValueRef at_base = LLVMBuildTrunc(b, LLVMBuildLShr(b, m, base, ""), vec_of(L->i1), "");
    LLVMValueRef r0 = LLVMBuildSelect(b, at_base, base, none, "");
    r = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, off, zero, ""), r0, r, "");
    /* offset INT_MIN gives 0 on a GPU, whatever the mask (an H200 shows it) */
    return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, off, vconst(F, i32, 0x80000000u), ""), zero, r, "");
}

static LLVMValueRef bfind(fn *F, const ptx_instr *in, ptx_type t)
{
    lw *L = F->L;
    LLVMBuilderRef b = L->b;
    LLVMTypeRef et = storage_int(L, t);
    unsigned w = 8 * ptx_type_size(t);
    LLVMValueRef a = read_opd(F, &in->opds[1], t, false);
    if (ptx_type_class(t) == 'S') { /* negative: the highest 0 bit */
        LLVMValueRef neg = LLVMBuildICmp(b, LLVMIntSLT, a, LLVMConstNull(vec_of(et)), "");
        a = LLVMBuildSelect(b, neg, LLVMBuildNot(b, a, ""), a, "");
    }
    LLVMValueRef lz = to_u32(F, intrin(F, "llvm.ctlz", (LLVMValueRef[]){a, LLVMConstInt(L->i1, 0, false)}, 2));
    LLVMValueRef none = LLVMBuildICmp(b, LLVMIntEQ, lz, vconst(F, L->i32, w), "");
    LLVMValueRef pos = (in->flags & PTX_FLAG_BIT(SHIFTAMT)) ? lz : LLVMBuildSub(b, vconst(F, L->i32, w - 1), lz, "");
    return LLVMBuildSelect(b, none, vconst(F, L->i32, UINT32_MAX), pos, "");
}

/* testp classes as llvm.is.fpclass masks; .normal counts +-0 as normal,
 * as an H200 does (the ISA says only "normal"). */
static LLVMValueRef testp(fn *F, const ptx_instr *in, ptx_type t)
{
    lw *L = F->L;
    uint32_t cls;
    switch (in->mod[PTX_CAT_MODE]) {
    case PTX_MODE_FINITE: cls = 0x1F8; break;
    case PTX_MODE_INFINITE: cls = 0x204; break;
    case PTX_MODE_NUMBER: cls = 0x3FC; break;
    case PTX_MODE_NOTANUMBER: cls = 0x003; break;
    case PTX_MODE_NORMAL: cls = 0x168; break; /* zeros too, as on an H200 */
    default: cls = 0x090; break; /* subnormal */
    }
    LLVMValueRef a = read_opd(F, &in->opds[1], t, false);
    LLVMTypeRef ty = LLVMTypeOf(a);
    LLVMValueRef args[2] = {a, const_i32(L, cls)};
    return call_intrinsic(L, "llvm.is.fpclass", &ty, 1, args, 2);
}

/* The integer widths an instruction is defined for (bit mask of sizes). */
static bool width_ok(fn *F, const ptx_instr *in, ptx_type t, unsigned sizes)
{
    if (ptx_type_class(t) != 'F' && (sizes & ptx_type_size(t)))
        return true;
    lw_error(F->L, in->loc, "'%s.%s' is not defined by the ISA", ptx_op_name(in->op), ptx_type_name(t));
    return false;
}

bool lower_bits(fn *F, const ptx_instr *in, LLVMValueRef mask)
{
    lw *L = F->L;
    ptx_type t = in->ntypes ? (ptx_type)in->types[0] : PTX_TYPE_NONE;
    LLVMValueRef r;
    ptx_type rt = t;
    switch (in->op) {
    case PTX_OP_POPC: case PTX_OP_CLZ: case PTX_OP_BREV: case PTX_OP_BFIND: case PTX_OP_BFE: case PTX_OP_BFI:
        if (!width_ok(F, in, t, 4 | 8))
            return true;
        break;
    case PTX_OP_LOP3: case PTX_OP_BMSK: case PTX_OP_SZEXT: case PTX_OP_FNS: case PTX_OP_PRMT: case PTX_OP_SHF:
        if (!width_ok(F, in, t, 4))
            return true;
        break;
    default: break;
    }
    switch (in->op) {
    case PTX_OP_POPC:
        r = to_u32(F, intrin(F, "llvm.ctpop", (LLVMValueRef[]){read_opd(F, &in->opds[1], t, false)}, 1));
        rt = PTX_TYPE_U32;
        break;
    case PTX_OP_CLZ:
        r = to_u32(F, intrin(F, "llvm.ctlz", (LLVMValueRef[]){read_opd(F, &in->opds[1], t, false),
                                                             LLVMConstInt(L->i1, 0, false)}, 2));
        rt = PTX_TYPE_U32;
        break;
    case PTX_OP_BREV: r = intrin(F, "llvm.bitreverse", (LLVMValueRef[]){read_opd(F, &in->opds[1], t, false)}, 1); break;
    case PTX_OP_BFIND: r = bfind(F, in, t), rt = PTX_TYPE_U32; break;
    case PTX_OP_BFE: r = bfe(F, in, t); break;
    case PTX_OP_BFI: r = bfi(F, in, t); break;
    case PTX_OP_PRMT: r = prmt(F, in), rt = PTX_TYPE_B32; break;
    case PTX_OP_LOP3: r = lop3(F, in, t); break;
    case PTX_OP_SHF: r = shf(F, in), rt = PTX_TYPE_B32; break;
    case PTX_OP_BMSK: r = bmsk(F, in), rt = PTX_TYPE_B32; break;
    case PTX_OP_SZEXT: r = szext(F, in, t), rt = PTX_TYPE_B32; break;
    case PTX_OP_FNS: r = fns(F, in), rt = PTX_TYPE_B32; break;
    case PTX_OP_COPYSIGN: {
        LLVMValueRef a = read_opd(F, &in->opds[1], t, false), b = read_opd(F, &in->opds[2], t, false);
        r = intrin(F, "llvm.copysign", (LLVMValueRef[]){b, a}, 2);
        break;
    }
    case PTX_OP_TESTP: r = testp(F, in, t), rt = PTX_TYPE_PRED; break;
    default: return false;
    }
    write_reg(F, &in->opds[0], r, rt, false, mask);
    return true;
}
