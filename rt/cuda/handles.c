/* handles.c - the registry of live handles.  An open-addressing hash set
 * keyed by address, under one mutex: lookups are a few loads, and a
 * destroyed or forged handle is simply absent. */
#include "cu_internal.h"

#include <stdlib.h>

typedef struct slot {
    uintptr_t key; /* 0 empty, 1 deleted */
    cu_kind kind;
} slot;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static slot *slots;
static size_t cap, used, live; /* used counts live + deleted slots */

enum { DELETED = 1 };

static size_t hash(uintptr_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return (size_t)k;
}

/* Index of key, or of the empty slot where it would go. */
static size_t probe(const slot *s, size_t n, uintptr_t key)
{
    size_t i = hash(key) & (n - 1);
    size_t tomb = SIZE_MAX;
    while (s[i].key != 0) {
        if (s[i].key == key)
            return i;
        if (s[i].key == DELETED && tomb == SIZE_MAX)
            tomb = i;
        i = (i + 1) & (n - 1);
    }
    return tomb != SIZE_MAX ? tomb : i;
}

static bool grow(void)
{
    size_t n = cap ? cap * 2 : 256;
    while (live * 2 >= n)
        n *= 2;
    slot *s = calloc(n, sizeof *s);
    if (!s)
        return false;
    for (size_t i = 0; i < cap; i++)
        if (slots[i].key > DELETED)
            s[probe(s, n, slots[i].key)] = slots[i];
    free(slots);
    slots = s;
    cap = n;
    used = live;
    return true;
}

bool cu_handle_add(const void *h, cu_kind kind)
{
    uintptr_t key = (uintptr_t)h;
    pthread_mutex_lock(&lock);
    bool ok = (used + 1) * 4 < cap * 3 || grow();
    if (ok) {
        size_t i = probe(slots, cap, key);
        if (slots[i].key != key) {
            used += slots[i].key == 0;
            live++;
        }
        slots[i] = (slot){key, kind};
    }
    pthread_mutex_unlock(&lock);
    return ok;
}

void cu_handle_remove(const void *h)
{
    uintptr_t key = (uintptr_t)h;
    pthread_mutex_lock(&lock);
    if (cap) {
        size_t i = probe(slots, cap, key);
        if (slots[i].key == key) {
            slots[i].key = DELETED;
            live--;
        }
    }
    pthread_mutex_unlock(&lock);
}

bool cu_handle_valid(const void *h, cu_kind kind)
{
    uintptr_t key = (uintptr_t)h;
    if (key <= DELETED)
        return false;
    pthread_mutex_lock(&lock);
    bool ok = false;
    if (cap) {
        size_t i = probe(slots, cap, key);
        ok = slots[i].key == key && slots[i].kind == kind;
    }
    pthread_mutex_unlock(&lock);
    return ok;
}
