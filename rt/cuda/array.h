/* array.h - CUDA arrays and mipmapped arrays (array.c) as the copy,
 * texture and surface files use them.  An array is host memory laid out
 * row by row (no tiling): rt_image describes it to the sampler. */
#ifndef RT_CUDA_ARRAY_H
#define RT_CUDA_ARRAY_H

#include "cu_internal.h"
#include "texture.h"

#pragma GCC visibility push(hidden)

struct CUarray_st {
    rt_image img;
    CUDA_ARRAY3D_DESCRIPTOR desc;
    struct CUmipmappedArray_st *owner; /* a level of a mipmapped array (not freed alone) */
};

struct CUmipmappedArray_st {
    rt_image *levels;
    struct CUarray_st *level_arrays;
    unsigned nlevels;
    CUDA_ARRAY3D_DESCRIPTOR desc;
};

/* Whether h is a live array (any level) / mipmapped array. */
bool cu_array_valid(CUarray h);
bool cu_mipmapped_valid(CUmipmappedArray h);
/* The storage of a copy's array side: the byte at (x bytes, y, z) must start
 * a w x h x d box inside the array; returns its address, row pitch and
 * rows per slice.  CUDA_ERROR_INVALID_VALUE otherwise. */
CUresult cu_array_region(CUarray a, size_t x, size_t y, size_t z, size_t w, size_t h, size_t d, uintptr_t *p,
                         size_t *pitch, size_t *rows);
/* Describes image storage of a format and channel count; false when the
 * pair is not one CUDA has (or ptxjit cannot sample). */
bool cu_image_format(rt_image *img, CUarray_format format, unsigned channels);

#pragma GCC visibility pop

#endif
