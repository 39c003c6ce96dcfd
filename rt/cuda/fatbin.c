/* fatbin.c - recognising driver-API images and extracting their PTX (see
 * fatbin.h for the layouts).  Parsing only reads headers and records where
 * payloads are; decompression happens for the one entry asked for. */
#include "fatbin.h"

#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "lz4.h"

#define CONTAINER_HEADER 16u
#define ENTRY_HEADER_MIN 0x40u
#define WRAPPER_SIZE 24u

/* --- little-endian reads (the formats are little endian on every host) -- */

static uint64_t rd_le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static uint32_t rd16(const uint8_t *p) { return (uint32_t)rd_le(p, 2); }
static uint32_t rd32(const uint8_t *p) { return (uint32_t)rd_le(p, 4); }
static uint64_t rd64(const uint8_t *p) { return rd_le(p, 8); }

/* --- recognising the image ----------------------------------------------- */

/* How the first bytes of p relate to the 4-byte little-endian magic: 1 when
 * all four match, -1 when the image ends (size known) inside a matching
 * prefix, 0 on a mismatch.  Compares byte by byte: every magic byte is
 * nonzero, so with an unknown size a NUL-terminated string shorter than 4
 * bytes is never read past its terminator. */
static int magic_match(const uint8_t *p, size_t avail, uint32_t magic)
{
    for (unsigned i = 0; i < 4; i++) {
        if (i == avail)
            return -1;
        if (p[i] != (uint8_t)(magic >> (8 * i)))
            return 0;
    }
    return 1;
}

/* Plain text and a bare cubin are images of one uncompressed entry. */
static rt_fatbin_status single_entry(rt_fatbin *out, rt_fatbin_format format, unsigned kind,
                                     const uint8_t *p, size_t n)
{
    rt_fatbin_entry *e = calloc(1, sizeof *e);
    if (!e)
        return RT_FATBIN_NOMEM;
    e->kind = kind;
    e->payload = p;
    e->stored_size = e->size = n;
    *out = (rt_fatbin){.format = format, .container = p, .container_size = n, .count = 1,
                       .entries = e};
    return RT_FATBIN_OK;
}

static int is_text_byte(uint8_t c)
{
    return (c >= 0x20 && c != 0x7f) || (c >= '\t' && c <= '\r');
}

/* Plain PTX: text up to the NUL (or the known size), not all whitespace. */
static rt_fatbin_status parse_text(const uint8_t *p, size_t avail, rt_fatbin *out)
{
    size_t n = 0;
    int ink = 0;
    for (; n < avail && p[n] != 0; n++) {
        if (!is_text_byte(p[n]))
            return RT_FATBIN_NOT_FATBIN;
        ink |= p[n] > ' ';
    }
    if (!ink)
        return RT_FATBIN_NOT_FATBIN;
    return single_entry(out, RT_FATBIN_FMT_PTX, RT_FATBIN_KIND_PTX, p, n);
}

/* A bare ELF (cubin): its extent is the size if known, else where the
 * later of its header tables ends (ELF64: e_phoff 0x20, e_shoff 0x28,
 * e_phentsize 0x36, e_phnum 0x38, e_shentsize 0x3a, e_shnum 0x3c); nvcc
 * puts the program headers last. */
static size_t elf_extent(const uint8_t *p)
{
    uint64_t ph = rd64(p + 0x20) + (uint64_t)rd16(p + 0x36) * rd16(p + 0x38);
    uint64_t sh = rd64(p + 0x28) + (uint64_t)rd16(p + 0x3a) * rd16(p + 0x3c);
    return (size_t)(ph > sh ? ph : sh);
}

static rt_fatbin_status parse_elf(const uint8_t *p, size_t avail, rt_fatbin *out)
{
    if (avail < 64)
        return RT_FATBIN_CORRUPT;
    size_t n = avail == SIZE_MAX ? elf_extent(p) : avail;
    return single_entry(out, RT_FATBIN_FMT_ELF, RT_FATBIN_KIND_ELF, p, n);
}

/* --- the container ------------------------------------------------------- */

/* A string field (offset, length from the entry start) must lie inside the
 * entry header; length 0 means absent. */
static int header_string(const uint8_t *e, uint32_t hs, uint32_t off, uint32_t len,
                         const char **s, size_t *slen)
{
    if (len == 0)
        return 1;
    if (off > hs || len > hs - off)
        return 0;
    *s = (const char *)e + off;
    *slen = len;
    return 1;
}

/* The options record: u32 string offset, u32 string length. */
static int entry_options(const uint8_t *e, uint32_t hs, rt_fatbin_entry *out)
{
    uint32_t rec = rd32(e + 0x14);
    if (rec == 0)
        return 1;
    if (rec > hs || hs - rec < 8)
        return 0;
    return header_string(e, hs, rd32(e + rec), rd32(e + rec + 4), &out->options,
                         &out->options_len);
}

/* Sizes of the payload: what is stored and what it decompresses to. */
static int entry_sizes(const uint8_t *e, uint64_t payload, rt_fatbin_entry *out)
{
    uint64_t flags = out->flags;
    uint64_t lz4 = flags & RT_FATBIN_FLAG_LZ4, zstd = flags & RT_FATBIN_FLAG_ZSTD;
    if (lz4 && zstd)
        return 0;
    if (!lz4 && !zstd) {
        out->compression = RT_FATBIN_COMP_NONE;
        out->stored_size = out->size = (size_t)payload;
        return 1;
    }
    uint32_t csz = rd32(e + 0x10);
    uint64_t usz = rd64(e + 0x38);
    if (csz == 0 || csz > payload || usz > RT_FATBIN_MAX_PAYLOAD)
        return 0;
    out->compression = lz4 ? RT_FATBIN_COMP_LZ4 : RT_FATBIN_COMP_ZSTD;
    out->stored_size = csz;
    out->size = (size_t)usz;
    return 1;
}

/* One entry at e with `left` bytes of container after it; *next is the
 * offset of the following entry. */
static rt_fatbin_status parse_entry(const uint8_t *e, size_t left, rt_fatbin_entry *out,
                                    size_t *next)
{
    if (left < ENTRY_HEADER_MIN)
        return RT_FATBIN_CORRUPT;
    uint32_t hs = rd32(e + 4);
    uint64_t payload = rd64(e + 8);
    if (hs < ENTRY_HEADER_MIN || hs > left || payload > left - hs)
        return RT_FATBIN_CORRUPT;
    *out = (rt_fatbin_entry){
        .kind = rd16(e),
        .version_minor = rd16(e + 0x18),
        .version_major = rd16(e + 0x1a),
        .arch = rd32(e + 0x1c),
        .flags = rd64(e + 0x28),
        .payload = e + hs,
    };
    if (!entry_sizes(e, payload, out) || !entry_options(e, hs, out) ||
        !header_string(e, hs, rd32(e + 0x20), rd32(e + 0x24), &out->ident, &out->ident_len))
        return RT_FATBIN_CORRUPT;
    *next = hs + (size_t)payload;
    return RT_FATBIN_OK;
}

static rt_fatbin_status push_entry(rt_fatbin *fb, size_t *cap, const rt_fatbin_entry *e)
{
    if (fb->count == *cap) {
        size_t ncap = *cap ? 2 * *cap : 4;
        rt_fatbin_entry *n = realloc(fb->entries, ncap * sizeof *n);
        if (!n)
            return RT_FATBIN_NOMEM;
        fb->entries = n;
        *cap = ncap;
    }
    fb->entries[fb->count++] = *e;
    return RT_FATBIN_OK;
}

/* The container at p (magic already checked when avail >= 4). */
static rt_fatbin_status parse_container(const uint8_t *p, size_t avail, rt_fatbin *out)
{
    if (avail < CONTAINER_HEADER || magic_match(p, avail, RT_FATBIN_MAGIC) != 1)
        return RT_FATBIN_CORRUPT;
    uint32_t version = rd16(p + 4), hs = rd16(p + 6);
    uint64_t body = rd64(p + 8);
    if (version != 1 || hs < CONTAINER_HEADER || hs > avail || body > avail - hs)
        return RT_FATBIN_CORRUPT;
    rt_fatbin fb = {.format = RT_FATBIN_FMT_CONTAINER, .container = p,
                    .container_size = hs + (size_t)body};
    size_t cap = 0, off = hs;
    rt_fatbin_status st = RT_FATBIN_OK;
    while (st == RT_FATBIN_OK && off < fb.container_size) {
        rt_fatbin_entry e;
        size_t next;
        st = parse_entry(p + off, fb.container_size - off, &e, &next);
        if (st == RT_FATBIN_OK)
            st = push_entry(&fb, &cap, &e);
        off += next;
    }
    if (st != RT_FATBIN_OK) {
        free(fb.entries);
        return st;
    }
    *out = fb;
    return RT_FATBIN_OK;
}

/* The wrapper points at a container whose size only its header knows. */
static rt_fatbin_status parse_wrapper(const uint8_t *p, size_t avail, rt_fatbin *out)
{
    if (avail < WRAPPER_SIZE)
        return RT_FATBIN_CORRUPT;
    uint32_t version = rd32(p + 4);
    const uint8_t *data = (const uint8_t *)(uintptr_t)rd64(p + 8);
    if ((version != 1 && version != 2) || !data)
        return RT_FATBIN_CORRUPT;
    rt_fatbin_status st = parse_container(data, SIZE_MAX, out);
    if (st == RT_FATBIN_OK) {
        out->format = RT_FATBIN_FMT_WRAPPER;
        out->wrapper_version = version;
    }
    return st;
}

rt_fatbin_status rt_fatbin_parse(const void *image, size_t size, rt_fatbin *out)
{
    const uint8_t *p = image;
    size_t avail = size ? size : SIZE_MAX;
    *out = (rt_fatbin){0};
    if (!p)
        return RT_FATBIN_NOT_FATBIN;
    static const uint32_t elf_magic = 0x464c457fu; /* "\x7f" "ELF" */
    const uint32_t magics[] = {RT_FATBIN_MAGIC, RT_FATBIN_WRAPPER_MAGIC, elf_magic};
    for (unsigned i = 0; i < 3; i++) {
        int m = magic_match(p, avail, magics[i]);
        if (m < 0)
            return RT_FATBIN_CORRUPT; /* a known magic cut short */
        if (m == 0)
            continue;
        if (i == 0)
            return parse_container(p, avail, out);
        return i == 1 ? parse_wrapper(p, avail, out) : parse_elf(p, avail, out);
    }
    return parse_text(p, avail, out);
}

void rt_fatbin_release(rt_fatbin *fb)
{
    if (!fb)
        return;
    free(fb->entries);
    *fb = (rt_fatbin){0};
}

/* --- choosing the entry -------------------------------------------------- */

int rt_fatbin_compatible(const rt_fatbin_entry *e, unsigned cc)
{
    if (e->arch == 0)
        return 1;
    if (e->flags & RT_FATBIN_FLAG_ARCH_SPECIFIC)
        return e->arch == cc;
    if (e->flags & RT_FATBIN_FLAG_FAMILY_SPECIFIC)
        return e->arch / 10 == cc / 10 && e->arch <= cc;
    return e->arch <= cc;
}

static unsigned specificity(const rt_fatbin_entry *e)
{
    if (e->flags & RT_FATBIN_FLAG_ARCH_SPECIFIC)
        return 2;
    return (e->flags & RT_FATBIN_FLAG_FAMILY_SPECIFIC) ? 1 : 0;
}

/* Whether a beats b (both compatible): higher arch, then more specific. */
static int better(const rt_fatbin_entry *a, const rt_fatbin_entry *b)
{
    if (a->arch != b->arch)
        return a->arch > b->arch;
    return specificity(a) > specificity(b);
}

rt_fatbin_status rt_fatbin_select_ptx(const rt_fatbin *fb, unsigned cc, size_t *index)
{
    const rt_fatbin_entry *best = NULL;
    int any_ptx = 0;
    for (size_t i = 0; i < fb->count; i++) {
        const rt_fatbin_entry *e = &fb->entries[i];
        if (e->kind != RT_FATBIN_KIND_PTX)
            continue;
        any_ptx = 1;
        if (rt_fatbin_compatible(e, cc) && (!best || better(e, best))) {
            best = e;
            *index = i;
        }
    }
    if (best)
        return RT_FATBIN_OK;
    return any_ptx ? RT_FATBIN_NO_COMPATIBLE_PTX : RT_FATBIN_NO_PTX;
}

/* --- payloads ------------------------------------------------------------ */

static int decode_lz4(const rt_fatbin_entry *e, uint8_t *dst)
{
    /* A byte of LZ4 input yields at most 255 bytes of output: a cheap test
     * against a lying size before anything is decoded. */
    if (e->size / 255 > e->stored_size)
        return 0;
    size_t n;
    return rt_lz4_decode_block(e->payload, e->stored_size, dst, e->size, &n) == RT_LZ4_OK &&
           n == e->size;
}

static int decode_zstd(const rt_fatbin_entry *e, uint8_t *dst)
{
    unsigned long long fcs = ZSTD_getFrameContentSize(e->payload, e->stored_size);
    if (fcs == ZSTD_CONTENTSIZE_ERROR || (fcs != ZSTD_CONTENTSIZE_UNKNOWN && fcs != e->size))
        return 0;
    size_t n = ZSTD_decompress(dst, e->size, e->payload, e->stored_size);
    return !ZSTD_isError(n) && n == e->size;
}

rt_fatbin_status rt_fatbin_entry_data(const rt_fatbin_entry *e, uint8_t **data, size_t *len)
{
    *data = NULL;
    *len = 0;
    if (e->size > RT_FATBIN_MAX_PAYLOAD)
        return RT_FATBIN_CORRUPT;
    uint8_t *buf = malloc(e->size + 1);
    if (!buf)
        return RT_FATBIN_NOMEM;
    int ok = 1;
    switch (e->compression) {
    case RT_FATBIN_COMP_NONE: memcpy(buf, e->payload, e->size); break;
    case RT_FATBIN_COMP_LZ4: ok = decode_lz4(e, buf); break;
    case RT_FATBIN_COMP_ZSTD: ok = decode_zstd(e, buf); break;
    }
    if (!ok) {
        free(buf);
        return RT_FATBIN_DECOMPRESS;
    }
    buf[e->size] = 0;
    *data = buf;
    *len = e->size;
    return RT_FATBIN_OK;
}

rt_fatbin_status rt_fatbin_ptx(const void *image, size_t size, unsigned cc, char **ptx,
                               size_t *len)
{
    *ptx = NULL;
    rt_fatbin fb;
    rt_fatbin_status st = rt_fatbin_parse(image, size, &fb);
    if (st != RT_FATBIN_OK)
        return st;
    size_t i = 0, n = 0;
    uint8_t *data = NULL;
    st = rt_fatbin_select_ptx(&fb, cc, &i);
    if (st == RT_FATBIN_OK)
        st = rt_fatbin_entry_data(&fb.entries[i], &data, &n);
    rt_fatbin_release(&fb);
    if (st != RT_FATBIN_OK)
        return st;
    /* The payload is the text, its NUL and zero padding. */
    *ptx = (char *)data;
    if (len)
        *len = strlen(*ptx);
    return RT_FATBIN_OK;
}

const char *rt_fatbin_strerror(rt_fatbin_status s)
{
    switch (s) {
    case RT_FATBIN_OK: return "ok";
    case RT_FATBIN_NOT_FATBIN: return "not PTX, a cubin or a fat binary";
    case RT_FATBIN_CORRUPT: return "truncated or corrupt fat binary";
    case RT_FATBIN_NO_PTX: return "fat binary holds only GPU machine code, no PTX";
    case RT_FATBIN_NO_COMPATIBLE_PTX: return "fat binary holds no PTX for this compute capability";
    case RT_FATBIN_DECOMPRESS: return "fat binary entry does not decompress";
    case RT_FATBIN_NOMEM: return "out of memory";
    }
    return "unknown fat binary error";
}
