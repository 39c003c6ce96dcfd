/* archive.c - the device code inside host objects and static libraries
 * (CU_JIT_INPUT_OBJECT, CU_JIT_INPUT_LIBRARY): the fat binaries nvcc
 * embeds in an ELF object's .nv_fatbin section (__nv_relfatbin for
 * relocatable device code, -rdc), and the objects of a System V `ar`
 * archive (nvcc -lib, libcudadevrt.a).  Every offset and size read from
 * the input is bounds-checked. */
#include "cu_internal.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

enum { FATBIN_MAGIC = 0xBA55ED50u, AR_HEADER = 60 };

static bool is_fatbin_section(const char *name)
{
    return !strcmp(name, ".nv_fatbin") || !strcmp(name, "__nv_relfatbin");
}

/* The fat binaries laid end to end in one section (each 8-byte aligned). */
static void section_fatbins(const uint8_t *p, size_t size, const char *name,
                            cu_fatbin_visit visit, void *arg)
{
    size_t off = 0;
    while (off + 16 <= size) {
        uint32_t magic;
        uint16_t header;
        uint64_t body;
        memcpy(&magic, p + off, 4);
        memcpy(&header, p + off + 6, 2);
        memcpy(&body, p + off + 8, 8);
        if (magic != FATBIN_MAGIC || header < 16 || body > size - off - header)
            return;
        size_t total = header + (size_t)body;
        visit(p + off, total, name, arg);
        off += (total + 7) & ~(size_t)7;
    }
}

bool cu_object_fatbins(const void *data, size_t size, const char *name, cu_fatbin_visit visit,
                       void *arg)
{
    const uint8_t *p = data;
    Elf64_Ehdr eh;
    if (size < sizeof eh || memcmp(p, ELFMAG, SELFMAG))
        return false;
    memcpy(&eh, p, sizeof eh);
    if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
        eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > size ||
        (size - eh.e_shoff) / sizeof(Elf64_Shdr) < eh.e_shnum || eh.e_shstrndx >= eh.e_shnum)
        return false;
    Elf64_Shdr names;
    memcpy(&names, p + eh.e_shoff + (size_t)eh.e_shstrndx * sizeof names, sizeof names);
    if (names.sh_offset > size || names.sh_size > size - names.sh_offset)
        return false;
    for (unsigned i = 0; i < eh.e_shnum; i++) {
        Elf64_Shdr sh;
        memcpy(&sh, p + eh.e_shoff + (size_t)i * sizeof sh, sizeof sh);
        if (sh.sh_type == SHT_NOBITS || sh.sh_offset > size || sh.sh_size > size - sh.sh_offset ||
            sh.sh_name >= names.sh_size)
            continue;
        const char *sname = (const char *)p + names.sh_offset + sh.sh_name;
        if (memchr(sname, '\0', names.sh_size - sh.sh_name) && is_fatbin_section(sname))
            section_fatbins(p + sh.sh_offset, sh.sh_size, name, visit, arg);
    }
    return true;
}

/* A member's name: "name/" (GNU), or "/N", offset N in the long-name table. */
static void member_name(const uint8_t *h, const uint8_t *longnames, size_t nlong, char *out,
                        size_t outlen)
{
    size_t n = 0;
    if (h[0] == '/' && h[1] >= '0' && h[1] <= '9' && longnames) {
        size_t off = strtoul((const char *)h + 1, NULL, 10); /* ends at the blank padding */
        while (off < nlong && longnames[off] != '/' && longnames[off] != '\n' && n + 1 < outlen)
            out[n++] = (char)longnames[off++];
    } else {
        while (n < 16 && h[n] != '/' && h[n] != ' ' && n + 1 < outlen) {
            out[n] = (char)h[n];
            n++;
        }
    }
    out[n] = '\0';
}

bool cu_archive_fatbins(const void *data, size_t size, cu_fatbin_visit visit, void *arg)
{
    const uint8_t *p = data;
    if (size < 8 || memcmp(p, "!<arch>\n", 8))
        return false;
    const uint8_t *longnames = NULL;
    size_t nlong = 0, off = 8;
    while (off + AR_HEADER <= size) {
        const uint8_t *h = p + off;
        char digits[11] = {0};
        memcpy(digits, h + 48, 10);
        char *end;
        unsigned long long len = strtoull(digits, &end, 10);
        if (end == digits || h[58] != '`' || h[59] != '\n' || len > size - off - AR_HEADER)
            return true; /* a damaged archive: what came before it stands */
        const uint8_t *body = h + AR_HEADER;
        if (!memcmp(h, "//", 2)) {
            longnames = body;
            nlong = len;
        } else if (h[0] != '/' || (h[1] >= '0' && h[1] <= '9')) { /* not a symbol table */
            char name[256];
            member_name(h, longnames, nlong, name, sizeof name);
            cu_object_fatbins(body, len, name, visit, arg);
        }
        off += AR_HEADER + len + (len & 1);
    }
    return true;
}
