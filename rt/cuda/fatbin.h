/* fatbin.h - the images cuModuleLoadData, cuModuleLoadFatBinary and
 * cuLibraryLoadData receive: plain PTX text, a bare ELF (cubin), a fatbin
 * container, or the wrapper nvcc embeds in executables.  Lists the entries
 * and extracts the PTX of the entry best suited to a compute capability,
 * decompressing LZ4 or zstd payloads.
 *
 * Layouts (little endian; established from nvcc 13 / fatbinary output, see
 * tests/cuda/fatbin/README.md):
 *
 *   wrapper (24 bytes, section .nvFatBinSegment, symbol __fatDeviceText)
 *     0  u32 magic 0x466243B1      4  u32 version (1; 2 in -rdc executables)
 *     8  ptr fatbin container      16 ptr v1: file name (NULL), v2: prelinked fatbins
 *   container header (16 bytes, section .nv_fatbin)
 *     0  u32 magic 0xBA55ED50      4  u16 version 1
 *     6  u16 header size (16)      8  u64 bytes of entries after the header
 *   entry header (0x40 bytes for ELF, 0x50+ for PTX), then the payload
 *     0x00 u16 kind (1 PTX, 2 ELF)  0x02 u16 0x0101
 *     0x04 u32 header size          0x08 u64 payload bytes (padded to 8)
 *     0x10 u32 compressed bytes (exact; 0 = stored plain)
 *     0x14 u32 options record offset (from the entry; 0 = none): u32 string
 *          offset, u32 string length (ptxas options given to fatbinary)
 *     0x18 u16 minor, 0x1a u16 major version (PTX ISA for PTX entries)
 *     0x1c u32 arch (80 = sm_80 / compute_80)
 *     0x20 u32 identifier offset, 0x24 u32 identifier length (--ident)
 *     0x28 u64 flags: 0x1 64-bit, 0x2 debug, 0x10 Linux, 0x2000 LZ4,
 *          0x8000 zstd, 0x100000 arch-specific (sm_90a), 0x200000
 *          family-specific (sm_100f)
 *     0x30 u64 0                    0x38 u64 uncompressed bytes (0 = plain)
 *   A PTX payload is the text with comments blanked, NUL-terminated,
 *   zero-padded.
 *
 * When `size` is given every read stays inside [image, image + size) and
 * lies in the headers are errors.  With size 0 (the driver API passes no
 * size) the headers' own sizes are trusted, as NVIDIA's driver does; plain
 * text then ends at its NUL. */
#ifndef RT_CUDA_FATBIN_H
#define RT_CUDA_FATBIN_H

#include <stddef.h>
#include <stdint.h>

#define RT_FATBIN_MAGIC 0xBA55ED50u
#define RT_FATBIN_WRAPPER_MAGIC 0x466243B1u

enum {
    RT_FATBIN_KIND_PTX = 1,
    RT_FATBIN_KIND_ELF = 2,
};

#define RT_FATBIN_FLAG_64BIT 0x1ull
#define RT_FATBIN_FLAG_DEBUG 0x2ull
#define RT_FATBIN_FLAG_LINUX 0x10ull
#define RT_FATBIN_FLAG_LZ4 0x2000ull
#define RT_FATBIN_FLAG_ZSTD 0x8000ull
#define RT_FATBIN_FLAG_ARCH_SPECIFIC 0x100000ull   /* compute_90a: that arch only */
#define RT_FATBIN_FLAG_FAMILY_SPECIFIC 0x200000ull /* compute_100f: same major */

/* Largest payload decompressed (a guard against lying headers). */
#define RT_FATBIN_MAX_PAYLOAD ((size_t)1 << 30)

/* Each status maps to one CUresult (noted) in the API layer. */
typedef enum rt_fatbin_status {
    RT_FATBIN_OK = 0,
    RT_FATBIN_NOT_FATBIN,        /* no known magic, not text: CUDA_ERROR_INVALID_IMAGE */
    RT_FATBIN_CORRUPT,           /* truncated or inconsistent: CUDA_ERROR_INVALID_IMAGE */
    RT_FATBIN_NO_PTX,            /* machine code only: CUDA_ERROR_NO_BINARY_FOR_GPU */
    RT_FATBIN_NO_COMPATIBLE_PTX, /* PTX for newer/other arches only: CUDA_ERROR_NO_BINARY_FOR_GPU */
    RT_FATBIN_DECOMPRESS,        /* payload does not decode to its size: CUDA_ERROR_INVALID_IMAGE */
    RT_FATBIN_NOMEM,             /* CUDA_ERROR_OUT_OF_MEMORY */
} rt_fatbin_status;

typedef enum rt_fatbin_format {
    RT_FATBIN_FMT_PTX,       /* plain PTX text: one PTX entry, arch 0 */
    RT_FATBIN_FMT_ELF,       /* a bare cubin: one ELF entry */
    RT_FATBIN_FMT_CONTAINER, /* magic 0xBA55ED50 */
    RT_FATBIN_FMT_WRAPPER,   /* magic 0x466243B1, pointing at a container */
} rt_fatbin_format;

typedef enum rt_fatbin_compression {
    RT_FATBIN_COMP_NONE,
    RT_FATBIN_COMP_LZ4,
    RT_FATBIN_COMP_ZSTD,
} rt_fatbin_compression;

typedef struct rt_fatbin_entry {
    unsigned kind;             /* RT_FATBIN_KIND_*, other values kept as found */
    unsigned arch;             /* 10 * major + minor; 0 for plain text */
    unsigned version_major, version_minor;
    uint64_t flags;            /* RT_FATBIN_FLAG_* */
    rt_fatbin_compression compression;
    const uint8_t *payload;    /* inside the image */
    size_t stored_size;        /* bytes at payload (compressed size if compressed) */
    size_t size;               /* bytes once decompressed */
    const char *ident;         /* --ident name, not NUL-terminated; NULL if none */
    size_t ident_len;
    const char *options;       /* ptxas options, not NUL-terminated; NULL if none */
    size_t options_len;
} rt_fatbin_entry;

typedef struct rt_fatbin {
    rt_fatbin_format format;
    unsigned wrapper_version;  /* RT_FATBIN_FMT_WRAPPER only */
    const uint8_t *container;  /* the container / text / ELF itself */
    size_t container_size;     /* its bytes (text: up to the NUL) */
    size_t count;
    rt_fatbin_entry *entries;  /* owned; in image order */
} rt_fatbin;

/* Recognises the image and lists its entries (no decompression).  size 0
 * means unknown (see above).  On an error *out is empty (count 0) and needs
 * no release; on success release it with rt_fatbin_release. */
rt_fatbin_status rt_fatbin_parse(const void *image, size_t size, rt_fatbin *out);
void rt_fatbin_release(rt_fatbin *fb);

/* Whether entry e may run on a device of compute capability cc (10 * major
 * + minor): a generic entry if e->arch <= cc, an arch-specific one if
 * e->arch == cc, a family-specific one if same major and e->arch <= cc.
 * Plain text (arch 0) fits every device. */
int rt_fatbin_compatible(const rt_fatbin_entry *e, unsigned cc);

/* Picks the PTX entry to JIT for a device of capability cc, as NVIDIA's
 * driver does when no cubin fits: among the compatible PTX entries, the
 * highest arch (so the same major wins when there is one); at equal arch the
 * more specific (arch-specific, then family, then generic); then the first.
 * NO_PTX if the image holds no PTX at all, NO_COMPATIBLE_PTX if its PTX is
 * all for newer (or other specific) arches. */
rt_fatbin_status rt_fatbin_select_ptx(const rt_fatbin *fb, unsigned cc, size_t *index);

/* The payload of e decompressed into a malloc'd buffer with a NUL appended
 * (*len excludes it).  DECOMPRESS if it does not decode to exactly e->size
 * bytes. */
rt_fatbin_status rt_fatbin_entry_data(const rt_fatbin_entry *e, uint8_t **data, size_t *len);

/* All of the above: the PTX text (malloc'd, NUL-terminated, *len = strlen)
 * the image holds for a device of capability cc.  len may be NULL. */
rt_fatbin_status rt_fatbin_ptx(const void *image, size_t size, unsigned cc, char **ptx,
                               size_t *len);

const char *rt_fatbin_strerror(rt_fatbin_status s);

#endif
