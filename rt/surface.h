/* surface.h - surface accesses of one lane (surface.c). */
#ifndef RT_SURFACE_H
#define RT_SURFACE_H

#include "ptxjit/abi.h"
#include "texture.h"

/* op: the instruction's PTXJIT_TEXOP_* words; coord: its coordinates;
 * values and results as 32-bit words (two per .b64 element). */
void rt_surf_load(const rt_texture *t, const uint32_t *op, const uint32_t *coord, uint32_t *out);
void rt_surf_store(const rt_texture *t, const uint32_t *op, const uint32_t *coord, const uint32_t *val);
void rt_surf_reduce(const rt_texture *t, const uint32_t *op, const uint32_t *coord, const uint32_t *val);

#endif
