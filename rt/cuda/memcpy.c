/* memcpy.c - every cuMemcpy* and cuMemset*: 1D, 2D and 3D shapes, peer,
 * synchronous (the default stream, then wait) and stream-ordered.
 *
 * A device-side operand must lie inside one tracked allocation for its
 * whole extent, else CUDA_ERROR_INVALID_VALUE.  A host operand the driver
 * does not know (pageable memory from malloc, or garbage) is copied by the
 * kernel (process_vm_readv on our own process), which reports a bad
 * address as EFAULT instead of crashing the host. */
#define _GNU_SOURCE
#include "array.h"
#include "cu_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

/* A copy of depth x height rows of width bytes. */
typedef struct cu_copy {
    uintptr_t dst, src;
    size_t dpitch, spitch;   /* bytes between rows */
    size_t dslice, sslice;   /* bytes between slices */
    size_t width, height, depth;
    bool checked;            /* an operand is unknown host memory */
} cu_copy;

/* ---- kernel-checked copies ---------------------------------------------------------------- */

static _Atomic int pvm_state; /* 0 untested, 1 works, -1 unavailable */

/* Copies the listed pieces with process_vm_readv; false on a bad address.
 * Falls back to memcpy where the system forbids the call (seccomp). */
static bool pvm_copy(struct iovec *dst, struct iovec *src, size_t n)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += src[i].iov_len;
    if (atomic_load(&pvm_state) >= 0) {
        ssize_t got = process_vm_readv(getpid(), dst, n, src, n, 0);
        if (got >= 0 || (errno != ENOSYS && errno != EPERM)) {
            atomic_store(&pvm_state, 1);
            return got == (ssize_t)total;
        }
        atomic_store(&pvm_state, -1);
    }
    for (size_t i = 0; i < n; i++)
        memcpy(dst[i].iov_base, src[i].iov_base, src[i].iov_len);
    return true;
}

enum { BATCH = 256, PIECE_MAX = 1 << 30 };

/* Runs a copy row by row; checked copies go through the kernel in
 * batches of rows, each row cut into pieces the syscall accepts. */
static CUresult copy_run(const cu_copy *c)
{
    struct iovec d[BATCH], s[BATCH];
    size_t n = 0;
    for (size_t z = 0; z < c->depth; z++)
        for (size_t y = 0; y < c->height; y++) {
            char *dp = (char *)(c->dst + z * c->dslice + y * c->dpitch);
            const char *sp = (const char *)(c->src + z * c->sslice + y * c->spitch);
            if (!c->checked) {
                memmove(dp, sp, c->width);
                continue;
            }
            for (size_t off = 0; off < c->width; off += PIECE_MAX) {
                size_t len = c->width - off < PIECE_MAX ? c->width - off : PIECE_MAX;
                d[n] = (struct iovec){dp + off, len};
                s[n] = (struct iovec){(void *)(sp + off), len};
                if (++n == BATCH || len == PIECE_MAX) {
                    if (!pvm_copy(d, s, n))
                        return CUDA_ERROR_INVALID_VALUE;
                    n = 0;
                }
            }
        }
    if (n && !pvm_copy(d, s, n))
        return CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS;
}

CUresult cu_safe_copy(void *dst, const void *src, size_t n)
{
    cu_copy c = {(uintptr_t)dst, (uintptr_t)src, 0, 0, 0, 0, n, 1, 1, true};
    return copy_run(&c);
}

/* ---- operands ----------------------------------------------------------------------------- */

/* Bytes from the first to one past the last byte of a shape. */
static bool shape_span(size_t width, size_t height, size_t depth, size_t pitch, size_t slice,
                       size_t *span)
{
    if (!width || !height || !depth) {
        *span = 0;
        return true;
    }
    unsigned __int128 s = (unsigned __int128)(depth - 1) * slice +
                          (unsigned __int128)(height - 1) * pitch + width;
    *span = (size_t)s;
    return s <= SIZE_MAX;
}

typedef enum operand { OP_DEVICE, OP_HOST, OP_UNIFIED } operand;

/* Validates one side: device memory must be tracked for the whole span;
 * host or unified memory that the driver does not know at all makes the
 * copy checked, but a span that starts or ends inside a known allocation
 * must fit in it. */
static CUresult check_side(uintptr_t p, size_t span, operand kind, bool *checked)
{
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    if (!span || cu_map_find(p, span, NULL))
        return CUDA_SUCCESS;
    if (kind == OP_DEVICE || p + span < p || cu_map_find(p, 1, NULL) ||
        cu_map_find(p + span - 1, 1, NULL))
        return CUDA_ERROR_INVALID_VALUE;
    *checked = true;
    return CUDA_SUCCESS;
}

static CUresult copy_check(cu_copy *c, operand dkind, operand skind)
{
    size_t dspan, sspan;
    if (!shape_span(c->width, c->height, c->depth, c->dpitch, c->dslice, &dspan) ||
        !shape_span(c->width, c->height, c->depth, c->spitch, c->sslice, &sspan))
        return CUDA_ERROR_INVALID_VALUE;
    c->checked = false;
    CUresult r = check_side(c->dst, dspan, dkind, &c->checked);
    return r ? r : check_side(c->src, sspan, skind, &c->checked);
}

/* ---- stream-ordered operations --------------------------------------------------------------- */

typedef struct copy_op {
    cu_op op;
    cu_copy c;
} copy_op;

static CUresult copy_op_run(cu_op *op) { return copy_run(&((copy_op *)op)->c); }

static CUresult noop_run(cu_op *op)
{
    (void)op;
    return CUDA_SUCCESS;
}

/* Waits until the stream reached this point: an empty packet, so that the
 * legacy stream's implicit synchronisation applies to it as to the copy it
 * stands for, and then the stream's work. */
static CUresult stream_drain(struct CUstream_st *s)
{
    cu_op *op = malloc(sizeof *op);
    if (!op)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *op = (cu_op){noop_run, NULL, s->ctx};
    CUresult r = cu_stream_submit(s, op);
    return r ? r : cu_stream_sync(s);
}

/* Submits a validated copy.  A copy touching unknown host memory runs now
 * (after the stream's earlier work), as NVIDIA stages pageable memory
 * before returning; sync waits for the stream afterwards. */
static CUresult submit_copy(struct CUstream_st *s, const cu_copy *c, bool sync)
{
    if (!c->width || !c->height || !c->depth)
        return sync ? cu_stream_sync(s) : CUDA_SUCCESS;
    CUresult r;
    if (c->checked) {
        r = stream_drain(s);
        if (!r)
            r = copy_run(c);
        return r;
    }
    if (c->height == 1 && c->depth == 1) { /* the queue's own copy packet */
        r = cu_queue_result(rt_queue_copy(s->q, (void *)c->dst, (const void *)c->src, c->width));
        return r || !sync ? r : cu_stream_sync(s);
    }
    copy_op *op = malloc(sizeof *op);
    if (!op)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *op = (copy_op){{copy_op_run, NULL, s->ctx}, *c};
    r = cu_stream_submit(s, &op->op);
    return r || !sync ? r : cu_stream_sync(s);
}

/* Resolves the stream (NULL: the default stream of this call) and checks
 * and submits the copy. */
static CUresult do_copy(cu_copy c, operand dkind, operand skind, CUstream h, bool sync)
{
    struct CUctx_st *ctx;
    struct CUstream_st *s;
    CUresult r = cu_stream_hold(h, &ctx, &s);
    if (r)
        return r;
    if (!(r = cu_ctx_sticky(ctx)) && !(r = copy_check(&c, dkind, skind)))
        r = submit_copy(s, &c, sync);
    cu_ctx_release(ctx);
    return r;
}

static cu_copy linear(uintptr_t dst, uintptr_t src, size_t n)
{
    return (cu_copy){dst, src, n, n, n, n, n, 1, 1, false};
}

/* ---- 1D copies -------------------------------------------------------------------------------- */

CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t n)
{
    return do_copy(linear(dst, src, n), OP_UNIFIED, OP_UNIFIED, NULL, true);
}

CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream h)
{
    return do_copy(linear(dst, src, n), OP_UNIFIED, OP_UNIFIED, h, false);
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n)
{
    return do_copy(linear(dst, (uintptr_t)src, n), OP_DEVICE, OP_HOST, NULL, true);
}

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, CUstream h)
{
    return do_copy(linear(dst, (uintptr_t)src, n), OP_DEVICE, OP_HOST, h, false);
}

CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n)
{
    return do_copy(linear((uintptr_t)dst, src, n), OP_HOST, OP_DEVICE, NULL, true);
}

CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, CUstream h)
{
    return do_copy(linear((uintptr_t)dst, src, n), OP_HOST, OP_DEVICE, h, false);
}

CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t n)
{
    return do_copy(linear(dst, src, n), OP_DEVICE, OP_DEVICE, NULL, true);
}

CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream h)
{
    return do_copy(linear(dst, src, n), OP_DEVICE, OP_DEVICE, h, false);
}

/* One device: peers are contexts of the same device. */
static CUresult peer_check(CUcontext dst, CUcontext src)
{
    CUresult r = cu_check_init();
    if (r)
        return r;
    return cu_ctx_valid(dst) && cu_ctx_valid(src) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

CUresult cuMemcpyPeer(CUdeviceptr dst, CUcontext dstCtx, CUdeviceptr src, CUcontext srcCtx,
                      size_t n)
{
    CUresult r = peer_check(dstCtx, srcCtx);
    return r ? r : do_copy(linear(dst, src, n), OP_DEVICE, OP_DEVICE, NULL, true);
}

CUresult cuMemcpyPeerAsync(CUdeviceptr dst, CUcontext dstCtx, CUdeviceptr src, CUcontext srcCtx,
                           size_t n, CUstream h)
{
    CUresult r = peer_check(dstCtx, srcCtx);
    return r ? r : do_copy(linear(dst, src, n), OP_DEVICE, OP_DEVICE, h, false);
}

/* ---- 2D and 3D copies ----------------------------------------------------------------------- */

/* One side of a CUDA_MEMCPY2D/3D that is not an array: its address and kind. */
static CUresult memcpy_side(CUmemorytype t, const void *host, CUdeviceptr dev, uintptr_t *p,
                            operand *kind)
{
    switch (t) {
    case CU_MEMORYTYPE_HOST: *p = (uintptr_t)host; *kind = OP_HOST; return CUDA_SUCCESS;
    case CU_MEMORYTYPE_DEVICE: *p = (uintptr_t)dev; *kind = OP_DEVICE; return CUDA_SUCCESS;
    case CU_MEMORYTYPE_UNIFIED: *p = (uintptr_t)dev; *kind = OP_UNIFIED; return CUDA_SUCCESS;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
}

typedef struct shape3d {
    CUmemorytype dtype, stype;
    const void *shost;
    void *dhost;
    CUdeviceptr sdev, ddev;
    size_t sx, sy, sz, dx, dy, dz, spitch, dpitch, sheight, dheight, w, h, d;
    CUarray sarr, darr;
} shape3d;

/* An array side (array.c): its storage, as pitched host memory whose first
 * byte is the copy's; the offsets are then spent. */
static CUresult array_side(CUarray a, size_t *x, size_t *y, size_t *z, size_t *pitch, size_t *height,
                           const shape3d *m, uintptr_t *p, operand *kind)
{
    CUresult r = cu_array_region(a, *x, *y, *z, m->w, m->h, m->d, p, pitch, height);
    *x = *y = *z = 0;
    *kind = OP_HOST;
    return r;
}

static CUresult copy_3d(const shape3d *in, CUstream h, bool sync)
{
    operand dk, sk;
    uintptr_t dp, sp;
    shape3d copy = *in, *m = &copy;
    CUresult r = m->dtype == CU_MEMORYTYPE_ARRAY
                     ? array_side(m->darr, &m->dx, &m->dy, &m->dz, &m->dpitch, &m->dheight, m, &dp, &dk)
                     : memcpy_side(m->dtype, m->dhost, m->ddev, &dp, &dk);
    if (r || (r = m->stype == CU_MEMORYTYPE_ARRAY
                      ? array_side(m->sarr, &m->sx, &m->sy, &m->sz, &m->spitch, &m->sheight, m, &sp, &sk)
                      : memcpy_side(m->stype, m->shost, m->sdev, &sp, &sk)))
        return cu_init_or(r);
    size_t spitch = m->spitch ? m->spitch : m->w, dpitch = m->dpitch ? m->dpitch : m->w;
    if ((m->h > 1 || m->d > 1) && (spitch < m->w || dpitch < m->w))
        return cu_init_or(CUDA_ERROR_INVALID_VALUE);
    if (m->d > 1 && (m->sheight < m->h || m->dheight < m->h))
        return cu_init_or(CUDA_ERROR_INVALID_VALUE);
    /* the first byte of each side, with overflow checks */
    unsigned __int128 s0 = sp + m->sx + ((unsigned __int128)m->sz * m->sheight + m->sy) * spitch;
    unsigned __int128 d0 = dp + m->dx + ((unsigned __int128)m->dz * m->dheight + m->dy) * dpitch;
    if (s0 > UINTPTR_MAX || d0 > UINTPTR_MAX)
        return cu_init_or(CUDA_ERROR_INVALID_VALUE);
    cu_copy c = {(uintptr_t)d0, (uintptr_t)s0, dpitch, spitch, dpitch * m->dheight,
                 spitch * m->sheight, m->w, m->h, m->d, false};
    return do_copy(c, dk, sk, h, sync);
}

static shape3d from_2d(const CUDA_MEMCPY2D *p)
{
    return (shape3d){p->dstMemoryType, p->srcMemoryType, p->srcHost, p->dstHost, p->srcDevice,
                     p->dstDevice, p->srcXInBytes, p->srcY, 0, p->dstXInBytes, p->dstY, 0,
                     p->srcPitch, p->dstPitch, p->Height, p->Height, p->WidthInBytes, p->Height, 1,
                     p->srcArray, p->dstArray};
}

static CUresult copy_2d(const CUDA_MEMCPY2D *p, CUstream h, bool sync)
{
    if (!p)
        return cu_init_or(CUDA_ERROR_INVALID_VALUE);
    shape3d m = from_2d(p);
    return copy_3d(&m, h, sync);
}

CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D *p) { return copy_2d(p, NULL, true); }
CUresult cuMemcpy2DUnaligned_v2(const CUDA_MEMCPY2D *p) { return copy_2d(p, NULL, true); }
CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *p, CUstream h) { return copy_2d(p, h, false); }

static CUresult copy_3d_desc(const CUDA_MEMCPY3D *p, CUstream h, bool sync)
{
    if (!p || p->srcLOD || p->dstLOD)
        return cu_init_or(CUDA_ERROR_INVALID_VALUE);
    shape3d m = {p->dstMemoryType, p->srcMemoryType, p->srcHost, p->dstHost, p->srcDevice,
                 p->dstDevice, p->srcXInBytes, p->srcY, p->srcZ, p->dstXInBytes, p->dstY,
                 p->dstZ, p->srcPitch, p->dstPitch, p->srcHeight, p->dstHeight, p->WidthInBytes,
                 p->Height, p->Depth, p->srcArray, p->dstArray};
    return copy_3d(&m, h, sync);
}

CUresult cuMemcpy3D_v2(const CUDA_MEMCPY3D *p) { return copy_3d_desc(p, NULL, true); }
CUresult cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D *p, CUstream h) { return copy_3d_desc(p, h, false); }

static CUresult copy_3d_peer(const CUDA_MEMCPY3D_PEER *p, CUstream h, bool sync)
{
    if (!p || p->srcLOD || p->dstLOD)
        return cu_init_or(CUDA_ERROR_INVALID_VALUE);
    CUresult r = peer_check(p->dstContext, p->srcContext);
    if (r)
        return r;
    shape3d m = {p->dstMemoryType, p->srcMemoryType, p->srcHost, p->dstHost, p->srcDevice,
                 p->dstDevice, p->srcXInBytes, p->srcY, p->srcZ, p->dstXInBytes, p->dstY,
                 p->dstZ, p->srcPitch, p->dstPitch, p->srcHeight, p->dstHeight, p->WidthInBytes,
                 p->Height, p->Depth, NULL, NULL}; /* peer copies take no arrays */
    return copy_3d(&m, h, sync);
}

CUresult cuMemcpy3DPeer(const CUDA_MEMCPY3D_PEER *p) { return copy_3d_peer(p, NULL, true); }
CUresult cuMemcpy3DPeerAsync(const CUDA_MEMCPY3D_PEER *p, CUstream h)
{
    return copy_3d_peer(p, h, false);
}

/* ---- memsets ------------------------------------------------------------------------------- */

static CUresult fill(struct CUstream_st *s, CUdeviceptr dst, size_t pitch, size_t width,
                     size_t height, unsigned elem, uint32_t value, bool sync)
{
    CUresult r;
    if (!width || !height)
        return sync ? cu_stream_sync(s) : CUDA_SUCCESS;
    size_t span;
    if (!dst || dst % elem || (height > 1 && (pitch % elem || pitch < width * elem)) ||
        width > SIZE_MAX / elem || !shape_span(width * elem, height, 1, pitch, 0, &span) ||
        !cu_map_find((uintptr_t)dst, span, NULL))
        return CUDA_ERROR_INVALID_VALUE;
    r = cu_queue_result(rt_queue_memset(s->q, (void *)(uintptr_t)dst, pitch, value, elem, width,
                                        height));
    return r || !sync ? r : cu_stream_sync(s);
}

static CUresult do_fill(CUdeviceptr dst, size_t pitch, size_t width, size_t height, unsigned elem,
                        uint32_t value, CUstream h, bool sync)
{
    struct CUctx_st *ctx;
    struct CUstream_st *s;
    CUresult r = cu_stream_hold(h, &ctx, &s);
    if (r)
        return r;
    if (!(r = cu_ctx_sticky(ctx)))
        r = fill(s, dst, pitch, width, height, elem, value, sync);
    cu_ctx_release(ctx);
    return r;
}

CUresult cuMemsetD8_v2(CUdeviceptr d, unsigned char v, size_t n)
{
    return do_fill(d, n, n, 1, 1, v, NULL, true);
}
CUresult cuMemsetD16_v2(CUdeviceptr d, unsigned short v, size_t n)
{
    return do_fill(d, 2 * n, n, 1, 2, v, NULL, true);
}
CUresult cuMemsetD32_v2(CUdeviceptr d, unsigned int v, size_t n)
{
    return do_fill(d, 4 * n, n, 1, 4, v, NULL, true);
}
CUresult cuMemsetD2D8_v2(CUdeviceptr d, size_t pitch, unsigned char v, size_t w, size_t h)
{
    return do_fill(d, pitch, w, h, 1, v, NULL, true);
}
CUresult cuMemsetD2D16_v2(CUdeviceptr d, size_t pitch, unsigned short v, size_t w, size_t h)
{
    return do_fill(d, pitch, w, h, 2, v, NULL, true);
}
CUresult cuMemsetD2D32_v2(CUdeviceptr d, size_t pitch, unsigned int v, size_t w, size_t h)
{
    return do_fill(d, pitch, w, h, 4, v, NULL, true);
}
CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, CUstream s)
{
    return do_fill(d, n, n, 1, 1, v, s, false);
}
CUresult cuMemsetD16Async(CUdeviceptr d, unsigned short v, size_t n, CUstream s)
{
    return do_fill(d, 2 * n, n, 1, 2, v, s, false);
}
CUresult cuMemsetD32Async(CUdeviceptr d, unsigned int v, size_t n, CUstream s)
{
    return do_fill(d, 4 * n, n, 1, 4, v, s, false);
}
CUresult cuMemsetD2D8Async(CUdeviceptr d, size_t pitch, unsigned char v, size_t w, size_t h,
                           CUstream s)
{
    return do_fill(d, pitch, w, h, 1, v, s, false);
}
CUresult cuMemsetD2D16Async(CUdeviceptr d, size_t pitch, unsigned short v, size_t w, size_t h,
                            CUstream s)
{
    return do_fill(d, pitch, w, h, 2, v, s, false);
}
CUresult cuMemsetD2D32Async(CUdeviceptr d, size_t pitch, unsigned int v, size_t w, size_t h,
                            CUstream s)
{
    return do_fill(d, pitch, w, h, 4, v, s, false);
}
