// inline_asm.cu -- hand-written PTX embedded with asm(): bit-field extract and
// insert, prmt byte permutes, lop3 with immediate truth tables, funnel shifts,
// 128-bit add/sub carry chains (add.cc / addc / sub.cc / subc), multi-word
// multiply with mad.lo.cc / madc.hi, mad.hi, testp float classification,
// copysign, bfind, scoped { .reg } blocks, predicates, vector mov packing,
// red.global without a result, and special registers.

// bitfield_ops(const unsigned *a, const unsigned *b, unsigned *out, int n)
//   For gid < n, x = a[gid], y = b[gid], pos = y & 31, len = (y >> 8) & 31; out[8*gid + k]:
//   k=0 bfe.u32 x, pos, len   (zero-extended field; len 0 -> 0)
//   k=1 bfe.s32 (int)x, pos, len   (sign-extended field)
//   k=2 bfi.b32 y, x, pos, len     (insert the low len bits of y into x at pos)
//   k=3 prmt.b32 x, y, 0x3210 ^ (y >> 16 & 0x7777)   (generic byte permute of {y,x})
//   k=4 prmt.b32 x, y, 0x0123 (byte reverse of x, immediate selector)
//   k=5 lop3.b32 x, y, pos*0x01010101, 0x96   (3-input XOR: x ^ y ^ z)
//   k=6 lop3.b32 x, y, ~x, 0xe8             (majority(x, y, ~x) = y)
//   k=7 bfind.u32 x   (bit index of the most significant 1, 0xffffffff for x == 0)
extern "C" __global__ void bitfield_ops(const unsigned *a, const unsigned *b, unsigned *out, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    unsigned x = a[gid], y = b[gid];
    unsigned pos = y & 31u, len = (y >> 8) & 31u;
    unsigned r0, r2, r3, r4, r5, r6, r7;
    int r1;
    asm("bfe.u32 %0, %1, %2, %3;" : "=r"(r0) : "r"(x), "r"(pos), "r"(len));
    asm("bfe.s32 %0, %1, %2, %3;" : "=r"(r1) : "r"((int)x), "r"(pos), "r"(len));
    asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(r2) : "r"(y), "r"(x), "r"(pos), "r"(len));
    unsigned sel = 0x3210u ^ ((y >> 16) & 0x7777u);
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r3) : "r"(x), "r"(y), "r"(sel));
    asm("prmt.b32 %0, %1, %2, 0x0123;" : "=r"(r4) : "r"(x), "r"(y));
    unsigned z = pos * 0x01010101u;
    asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(r5) : "r"(x), "r"(y), "r"(z));
    asm("lop3.b32 %0, %1, %2, %3, 0xe8;" : "=r"(r6) : "r"(x), "r"(y), "r"(~x));
    asm("bfind.u32 %0, %1;" : "=r"(r7) : "r"(x));
    unsigned *o = out + 8 * gid;
    o[0] = r0; o[1] = (unsigned)r1; o[2] = r2; o[3] = r3;
    o[4] = r4; o[5] = r5; o[6] = r6; o[7] = r7;
}

// funnel_shifts(const unsigned *lo, const unsigned *hi, const unsigned *sh, unsigned *out, int n)
//   For gid < n; s = sh[gid]; out[4*gid + k]:
//   k=0 shf.l.wrap.b32 lo, hi, s   k=1 shf.r.wrap.b32 lo, hi, s
//   k=2 shf.l.clamp.b32 lo, hi, s  k=3 shf.r.clamp.b32 lo, hi, s   (see PTX ISA shf)
extern "C" __global__ void funnel_shifts(const unsigned *lo, const unsigned *hi, const unsigned *sh, unsigned *out,
                                         int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    unsigned l = lo[gid], h = hi[gid], s = sh[gid], r[4];
    asm("shf.l.wrap.b32 %0, %1, %2, %3;" : "=r"(r[0]) : "r"(l), "r"(h), "r"(s));
    asm("shf.r.wrap.b32 %0, %1, %2, %3;" : "=r"(r[1]) : "r"(l), "r"(h), "r"(s));
    asm("shf.l.clamp.b32 %0, %1, %2, %3;" : "=r"(r[2]) : "r"(l), "r"(h), "r"(s));
    asm("shf.r.clamp.b32 %0, %1, %2, %3;" : "=r"(r[3]) : "r"(l), "r"(h), "r"(s));
    for (int k = 0; k < 4; ++k)
        out[4 * gid + k] = r[k];
}

// add_sub_u128(const uint4 *a, const uint4 *b, uint4 *sum, uint4 *diff, int n)
//   128-bit little-endian words (x = least significant 32 bits). For gid < n:
//   sum[gid] = a + b mod 2^128 (add.cc.u32 / addc.cc.u32 / addc.u32 chain);
//   diff[gid] = a - b mod 2^128 (sub.cc.u32 / subc.cc.u32 / subc.u32 chain).
extern "C" __global__ void add_sub_u128(const uint4 *a, const uint4 *b, uint4 *sum, uint4 *diff, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    uint4 p = a[gid], q = b[gid], s, d;
    asm("add.cc.u32 %0, %4, %8;\n\t"
        "addc.cc.u32 %1, %5, %9;\n\t"
        "addc.cc.u32 %2, %6, %10;\n\t"
        "addc.u32 %3, %7, %11;"
        : "=r"(s.x), "=r"(s.y), "=r"(s.z), "=r"(s.w)
        : "r"(p.x), "r"(p.y), "r"(p.z), "r"(p.w), "r"(q.x), "r"(q.y), "r"(q.z), "r"(q.w));
    asm("sub.cc.u32 %0, %4, %8;\n\t"
        "subc.cc.u32 %1, %5, %9;\n\t"
        "subc.cc.u32 %2, %6, %10;\n\t"
        "subc.u32 %3, %7, %11;"
        : "=r"(d.x), "=r"(d.y), "=r"(d.z), "=r"(d.w)
        : "r"(p.x), "r"(p.y), "r"(p.z), "r"(p.w), "r"(q.x), "r"(q.y), "r"(q.z), "r"(q.w));
    sum[gid] = s;
    diff[gid] = d;
}

// mul_64x64_128(const unsigned long long *a, const unsigned long long *b, uint4 *prod, unsigned *mh, int n)
//   For gid < n: prod[gid] = full 128-bit product a[gid] * b[gid] (x = lowest 32 bits), computed with
//   32-bit mul.lo/mul.hi and mad.lo.cc / madc.hi.cc / addc carry chains;
//   mh[gid] = mad.hi.u32(lo32(a), lo32(b), hi32(a)) = ((lo32(a) * lo32(b)) >> 32) + hi32(a) (mod 2^32).
extern "C" __global__ void mul_64x64_128(const unsigned long long *a, const unsigned long long *b, uint4 *prod,
                                         unsigned *mh, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    unsigned a0, a1, b0, b1;
    asm("mov.b64 {%0, %1}, %2;" : "=r"(a0), "=r"(a1) : "l"(a[gid]));
    asm("mov.b64 {%0, %1}, %2;" : "=r"(b0), "=r"(b1) : "l"(b[gid]));
    unsigned r0, r1, r2, r3;
    asm("{\n\t"
        ".reg .u32 t1, t2;\n\t"
        "mul.lo.u32     %0, %4, %6;\n\t"      // r0 = lo(a0*b0)
        "mul.hi.u32     %1, %4, %6;\n\t"      // r1 = hi(a0*b0)
        "mad.lo.cc.u32  %1, %5, %6, %1;\n\t"  // r1 += lo(a1*b0)
        "madc.hi.u32    %2, %5, %6, 0;\n\t"   // r2 = hi(a1*b0) + carry
        "mad.lo.cc.u32  %1, %4, %7, %1;\n\t"  // r1 += lo(a0*b1)
        "madc.hi.cc.u32 %2, %4, %7, %2;\n\t"  // r2 += hi(a0*b1) + carry
        "addc.u32       %3, 0, 0;\n\t"        // r3 = carry
        "mul.lo.u32     t1, %5, %7;\n\t"
        "mul.hi.u32     t2, %5, %7;\n\t"
        "add.cc.u32     %2, %2, t1;\n\t"      // r2 += lo(a1*b1)
        "addc.u32       %3, %3, t2;\n\t"      // r3 += hi(a1*b1) + carry
        "}"
        : "=r"(r0), "=&r"(r1), "=&r"(r2), "=&r"(r3)
        : "r"(a0), "r"(a1), "r"(b0), "r"(b1));
    prod[gid] = make_uint4(r0, r1, r2, r3);
    unsigned m;
    asm("mad.hi.u32 %0, %1, %2, %3;" : "=r"(m) : "r"(a0), "r"(b0), "r"(a1));
    mh[gid] = m;
}

// float_classify(const float *x, const float *y, unsigned *cls, float *cs, int n)
//   For gid < n, v = x[gid]: cls[gid] bits: bit0 testp.finite, bit1 testp.infinite,
//   bit2 testp.number (not NaN), bit3 testp.notanumber, bit4 testp.normal, bit5 testp.subnormal
//   (zero is neither normal nor subnormal); cs[gid] = copysign.f32 (magnitude of x, sign of y)
//   -- note PTX operand order: copysign.f32 d, a, b takes the sign from a, magnitude from b.
extern "C" __global__ void float_classify(const float *x, const float *y, unsigned *cls, float *cs, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    float v = x[gid];
    unsigned r;
    asm("{\n\t"
        ".reg .pred p0, p1, p2, p3, p4, p5;\n\t"
        ".reg .u32 t;\n\t"
        "testp.finite.f32 p0, %1;\n\t"
        "testp.infinite.f32 p1, %1;\n\t"
        "testp.number.f32 p2, %1;\n\t"
        "testp.notanumber.f32 p3, %1;\n\t"
        "testp.normal.f32 p4, %1;\n\t"
        "testp.subnormal.f32 p5, %1;\n\t"
        "selp.u32 %0, 1, 0, p0;\n\t"
        "selp.u32 t, 2, 0, p1;\n\t"
        "or.b32 %0, %0, t;\n\t"
        "selp.u32 t, 4, 0, p2;\n\t"
        "or.b32 %0, %0, t;\n\t"
        "selp.u32 t, 8, 0, p3;\n\t"
        "or.b32 %0, %0, t;\n\t"
        "selp.u32 t, 16, 0, p4;\n\t"
        "or.b32 %0, %0, t;\n\t"
        "selp.u32 t, 32, 0, p5;\n\t"
        "or.b32 %0, %0, t;\n\t"
        "}"
        : "=r"(r)
        : "f"(v));
    cls[gid] = r;
    float c;
    asm("copysign.f32 %0, %1, %2;" : "=f"(c) : "f"(y[gid]), "f"(v));
    cs[gid] = c;
}

// double_classify(const double *x, unsigned *cls, int n)
//   For gid < n: cls[gid] = (testp.finite.f64 ? 1 : 0) | (testp.notanumber.f64 ? 2 : 0)
//   | (testp.subnormal.f64 ? 4 : 0) | 8, where bit 3 comes from the sign bit of
//   copysign.f64(sign of -1.0, magnitude of x), which is always negative.
extern "C" __global__ void double_classify(const double *x, unsigned *cls, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    double v = x[gid];
    unsigned r;
    double neg;
    asm("{\n\t"
        ".reg .pred p<3>;\n\t"
        ".reg .u32 t<2>;\n\t"
        "testp.finite.f64 p0, %2;\n\t"
        "testp.notanumber.f64 p1, %2;\n\t"
        "testp.subnormal.f64 p2, %2;\n\t"
        "selp.u32 %0, 1, 0, p0;\n\t"
        "selp.u32 t0, 2, 0, p1;\n\t"
        "selp.u32 t1, 4, 0, p2;\n\t"
        "or.b32 %0, %0, t0;\n\t"
        "or.b32 %0, %0, t1;\n\t"
        "copysign.f64 %1, 0dBFF0000000000000, %2;\n\t"
        "}"
        : "=r"(r), "=d"(neg)
        : "d"(v));
    cls[gid] = r | (signbit(neg) ? 8u : 0u);
}

// predicated_select(const int *a, const int *b, int *out, int n)
//   For gid < n: out[gid] = a[gid] < b[gid] ? a[gid] * 2 : b[gid] - a[gid], computed with a
//   guarded asm block: setp.lt.s32 p, a, b; @p mul.lo.s32 r, a, 2; @!p sub.s32 r, b, a.
extern "C" __global__ void predicated_select(const int *a, const int *b, int *out, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    int r;
    asm("{\n\t"
        ".reg .pred p;\n\t"
        "setp.lt.s32 p, %1, %2;\n\t"
        "@p  mul.lo.s32 %0, %1, 2;\n\t"
        "@!p sub.s32 %0, %2, %1;\n\t"
        "}"
        : "=r"(r)
        : "r"(a[gid]), "r"(b[gid]));
    out[gid] = r;
}

// asm_red_and_loads(const unsigned *in, unsigned *counter, unsigned *copy, int n)
//   For gid < n: red.global.add.u32 [counter], in[gid] (no result) -- *counter += sum of in[0..n);
//   copy[gid] = ld.global.nc.u32 of in[gid] (asm with memory operand) + ld.global.cg of in[gid]
//   (= 2 * in[gid] mod 2^32); also red.global.max.u32 [counter + 1], in[gid] (max).
extern "C" __global__ void asm_red_and_loads(const unsigned *in, unsigned *counter, unsigned *copy, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    unsigned v1, v2;
    size_t gin = __cvta_generic_to_global(in + gid);
    size_t gctr = __cvta_generic_to_global(counter);
    asm volatile("ld.global.nc.u32 %0, [%1];" : "=r"(v1) : "l"(gin));
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v2) : "l"(gin));
    asm volatile("red.global.add.u32 [%0], %1;" ::"l"(gctr), "r"(v1) : "memory");
    asm volatile("red.global.max.u32 [%0+4], %1;" ::"l"(gctr), "r"(v1) : "memory");
    copy[gid] = v1 + v2;
}

// pack_unpack(const unsigned short *h, unsigned *packed, unsigned long long *wide, int n2)
//   For gid < n2: packed[gid] = mov.b32 {h[2g], h[2g+1]} (h[2g] in bits 0..15);
//   wide[gid] = mov.b64 {packed[gid], ~packed[gid]} (packed in the low word).
extern "C" __global__ void pack_unpack(const unsigned short *h, unsigned *packed, unsigned long long *wide, int n2)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n2)
        return;
    unsigned short lo = h[2 * gid], hi = h[2 * gid + 1];
    unsigned p;
    asm("mov.b32 %0, {%1, %2};" : "=r"(p) : "h"(lo), "h"(hi));
    unsigned long long w;
    asm("mov.b64 %0, {%1, %2};" : "=l"(w) : "r"(p), "r"(~p));
    packed[gid] = p;
    wide[gid] = w;
}
