/* lz4.c - raw LZ4 block decoder, written from the public description of
 * the block format (see lz4.h).  Every length is checked against what is
 * left of the input or the output before it is used. */
#include "lz4.h"

#include <string.h>

typedef struct lz4_in {
    const uint8_t *p, *end;
} lz4_in;

/* Reads the continuation bytes of a nibble that was 15.  The sum saturates
 * so a long run of 255s cannot wrap a size_t; the caller's bounds check
 * then reports the overflow. */
static rt_lz4_status read_length(lz4_in *in, size_t *len)
{
    uint8_t b;
    do {
        if (in->p == in->end)
            return RT_LZ4_TRUNCATED;
        b = *in->p++;
        *len = b > SIZE_MAX - *len ? SIZE_MAX : *len + b;
    } while (b == 255);
    return RT_LZ4_OK;
}

/* Copies a match byte by byte when it overlaps its own output (offset <
 * length repeats the last `offset` bytes), else in one memcpy. */
static void copy_match(uint8_t *out, size_t offset, size_t len)
{
    const uint8_t *from = out - offset;
    if (offset >= len) {
        memcpy(out, from, len);
        return;
    }
    for (size_t i = 0; i < len; i++)
        out[i] = from[i];
}

rt_lz4_status rt_lz4_decode_block(const uint8_t *src, size_t src_len, uint8_t *dst,
                                  size_t dst_cap, size_t *out_len)
{
    lz4_in in = {src, src + src_len};
    size_t pos = 0;
    rt_lz4_status st = RT_LZ4_OK;
    *out_len = 0;
    while (in.p < in.end) {
        uint8_t token = *in.p++;
        size_t lit = token >> 4;
        if (lit == 15 && (st = read_length(&in, &lit)) != RT_LZ4_OK)
            break;
        if (lit > dst_cap - pos) {
            st = RT_LZ4_OVERFLOW;
            break;
        }
        if (lit > (size_t)(in.end - in.p)) {
            st = RT_LZ4_TRUNCATED;
            break;
        }
        memcpy(dst + pos, in.p, lit);
        in.p += lit;
        pos += lit;
        if (in.p == in.end)
            break; /* the last sequence: literals only */
        if (in.end - in.p < 2) {
            st = RT_LZ4_TRUNCATED;
            break;
        }
        size_t offset = (size_t)in.p[0] | (size_t)in.p[1] << 8;
        in.p += 2;
        if (offset == 0 || offset > pos) {
            st = RT_LZ4_BAD_OFFSET;
            break;
        }
        size_t mlen = token & 15;
        if (mlen == 15 && (st = read_length(&in, &mlen)) != RT_LZ4_OK)
            break;
        if (mlen > dst_cap - pos || dst_cap - pos - mlen < 4) {
            st = RT_LZ4_OVERFLOW;
            break;
        }
        mlen += 4;
        copy_match(dst + pos, offset, mlen);
        pos += mlen;
    }
    *out_len = pos;
    return st;
}

const char *rt_lz4_strerror(rt_lz4_status s)
{
    switch (s) {
    case RT_LZ4_OK: return "ok";
    case RT_LZ4_TRUNCATED: return "truncated LZ4 block";
    case RT_LZ4_OVERFLOW: return "LZ4 block larger than its stated size";
    case RT_LZ4_BAD_OFFSET: return "LZ4 match offset out of range";
    }
    return "unknown LZ4 error";
}
