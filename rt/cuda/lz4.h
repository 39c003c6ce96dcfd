/* lz4.h - decoder for raw LZ4 blocks (the block format only: no frame
 * header, no checksums), as nvcc stores fatbin entries compressed under
 * --compress-mode=speed (entry flag 0x2000).
 *
 * A block is a run of sequences.  Each starts with a token byte: the high
 * nibble is the literal count, the low nibble the match length minus 4;
 * a nibble of 15 continues in following bytes (each added, until one is
 * not 255).  Then come the literals, then a 2-byte little-endian offset
 * (1..65535, counted back from the output position) and the match, which
 * may overlap its own output.  The last sequence stops after its literals:
 * the block ends exactly where the input ends.
 *
 * The decoder never reads outside [src, src + src_len) nor writes outside
 * [dst, dst + dst_cap), whatever the input. */
#ifndef RT_LZ4_H
#define RT_LZ4_H

#include <stddef.h>
#include <stdint.h>

typedef enum rt_lz4_status {
    RT_LZ4_OK = 0,
    RT_LZ4_TRUNCATED,   /* input ends inside a sequence (length, literals or offset) */
    RT_LZ4_OVERFLOW,    /* output would exceed dst_cap */
    RT_LZ4_BAD_OFFSET,  /* offset 0, or reaching before the start of the output */
} rt_lz4_status;

/* Decodes the block src[0..src_len) into dst; on RT_LZ4_OK *out_len is the
 * number of bytes written.  On an error *out_len is the count written so far
 * and dst's contents are unspecified.  An empty input is an empty block. */
rt_lz4_status rt_lz4_decode_block(const uint8_t *src, size_t src_len, uint8_t *dst,
                                  size_t dst_cap, size_t *out_len);

/* A short English phrase for a status ("truncated input" ...). */
const char *rt_lz4_strerror(rt_lz4_status s);

#endif
