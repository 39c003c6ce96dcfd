/* cache_key.c - cache keys: BLAKE2b-256 over "label NUL length data"
 * records after a domain tag. */
#include "cache.h"

#include <string.h>

static const char domain[] = "ptxjit cache key v1";

void cache_key_begin(cache_keyer *k)
{
    cache_b2b_init(&k->h, CACHE_KEY_BYTES, NULL, 0);
    cache_b2b_update(&k->h, domain, sizeof domain);
}

void cache_key_add(cache_keyer *k, const char *label, const void *data, size_t len)
{
    uint8_t n[8];
    for (int i = 0; i < 8; i++)
        n[i] = (uint8_t)((uint64_t)len >> (8 * i));
    cache_b2b_update(&k->h, label, strlen(label) + 1);
    cache_b2b_update(&k->h, n, sizeof n);
    cache_b2b_update(&k->h, data, len);
}

void cache_key_add_str(cache_keyer *k, const char *label, const char *s)
{
    cache_key_add(k, label, s ? s : "", s ? strlen(s) : 0);
}

void cache_key_end(cache_keyer *k, cache_key *out) { cache_b2b_final(&k->h, out->b); }

void cache_key_hex(const cache_key *k, char *hex)
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < CACHE_KEY_BYTES; i++) {
        hex[2 * i] = digits[k->b[i] >> 4];
        hex[2 * i + 1] = digits[k->b[i] & 15];
    }
    hex[CACHE_KEY_HEX] = 0;
}
