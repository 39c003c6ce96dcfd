/* store_forward.h - stored values forwarded to loads in the same block */
#ifndef PTXJIT_STORE_FORWARD_H
#define PTXJIT_STORE_FORWARD_H

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <stdbool.h>

/* Loads (masked or not) that read back only what earlier stores of their
 * block wrote take the stored lanes instead; true if any did.
 * PTXJIT_NO_STORE_FORWARD=1 turns it off. */
bool forward_stores(LLVMModuleRef m);

#endif
