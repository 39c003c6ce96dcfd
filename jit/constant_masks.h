/* constant_masks.h - masked accesses of a constant run of lanes made plain */
#ifndef PTXJIT_CONSTANT_MASKS_H
#define PTXJIT_CONSTANT_MASKS_H

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <stdbool.h>

/* Masked loads and stores whose mask is a constant, contiguous run of
 * some (not all) lanes become plain loads and stores of those lanes; true
 * if any did.  PTXJIT_NO_NARROW_MASKS=1 turns it off. */
bool narrow_constant_masks(LLVMModuleRef m);

#endif
