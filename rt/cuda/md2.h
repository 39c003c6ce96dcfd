/* md2.h - the MD2 message digest (RFC 1319) and HMAC over it (RFC 2104,
 * MD2's 16-byte block), which NVIDIA's runtime uses to check that it talks
 * to a driver it knows (export_tables.c). */
#ifndef RT_CUDA_MD2_H
#define RT_CUDA_MD2_H

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

enum { CU_MD2_BLOCK = 16, CU_MD2_DIGEST = 16 };

typedef struct cu_md2 {
    uint8_t state[48];            /* X of the RFC: the digest in its first 16 bytes */
    uint8_t checksum[CU_MD2_BLOCK];
    uint8_t pending[CU_MD2_BLOCK];
    size_t npending;
} cu_md2;

void cu_md2_init(cu_md2 *h);
void cu_md2_update(cu_md2 *h, const void *data, size_t len);
void cu_md2_final(cu_md2 *h, uint8_t out[CU_MD2_DIGEST]);
void cu_md2_digest(const void *data, size_t len, uint8_t out[CU_MD2_DIGEST]);
/* HMAC-MD2 with a key of at most one block (longer keys are hashed first). */
void cu_hmac_md2(const void *key, size_t keylen, const void *msg, size_t len,
                 uint8_t out[CU_MD2_DIGEST]);

#pragma GCC visibility pop

#endif
