/* fiber_switch.S - the context switch behind rt_fiber_switch (x86-64 SysV).
 *
 * A suspended fiber's stack holds, from its saved sp upward:
 *
 *     sp+0   r15, r14, r13, r12, rbx, rbp
 *     sp+48  return address
 *
 * MXCSR and the x87 control word are not switched: kernel code never
 * changes them (rt/fpenv.h), and saving and loading them was 80% of a
 * switch.
 *
 * rt_fiber_init (fiber.c) builds that frame by hand for a new fiber, with
 * the return address pointing at rt__fiber_trampoline.  Keep the two in
 * step: RT_FRAME_* in fiber.c mirrors this layout. */

        .text

/* rt_fiber *rt__fiber_swap(rt_fiber *from, rt_fiber *to)
 *
 * Saves the callee-saved state on the current stack, stores sp into
 * from->sp (offset 0), loads to->sp and restores the state found there.
 * Returns `from` in the resumed context: the fiber that just switched away,
 * which the sanitizer build needs to record where that stack lives. */
        .globl  rt__fiber_swap
        .hidden rt__fiber_swap
        .type   rt__fiber_swap, @function
        .p2align 4
rt__fiber_swap:
        .cfi_startproc
        pushq   %rbp
        .cfi_adjust_cfa_offset 8
        pushq   %rbx
        .cfi_adjust_cfa_offset 8
        pushq   %r12
        .cfi_adjust_cfa_offset 8
        pushq   %r13
        .cfi_adjust_cfa_offset 8
        pushq   %r14
        .cfi_adjust_cfa_offset 8
        pushq   %r15
        .cfi_adjust_cfa_offset 8
        movq    %rsp, (%rdi)
        /* From here on we run on the destination stack. */
        movq    (%rsi), %rsp
        popq    %r15
        .cfi_adjust_cfa_offset -8
        popq    %r14
        .cfi_adjust_cfa_offset -8
        popq    %r13
        .cfi_adjust_cfa_offset -8
        popq    %r12
        .cfi_adjust_cfa_offset -8
        popq    %rbx
        .cfi_adjust_cfa_offset -8
        popq    %rbp
        .cfi_adjust_cfa_offset -8
        movq    %rdi, %rax
        ret
        .cfi_endproc
        .size   rt__fiber_swap, .-rt__fiber_swap

/* First code a new fiber runs, reached by the `ret` above.  rt_fiber_init
 * left entry in r12 and arg in r13; rax is the fiber we came from.  rsp is
 * 16-byte aligned here, as a call requires.  rt__fiber_start never returns;
 * the ud2 only marks that.  The CFI says there is no caller, so debuggers
 * and unwinders stop here. */
        .globl  rt__fiber_trampoline
        .hidden rt__fiber_trampoline
        .type   rt__fiber_trampoline, @function
        .p2align 4
rt__fiber_trampoline:
        .cfi_startproc
        .cfi_undefined rip
        movq    %rax, %rdi
        movq    %r12, %rsi
        movq    %r13, %rdx
        call    rt__fiber_start
        ud2
        .cfi_endproc
        .size   rt__fiber_trampoline, .-rt__fiber_trampoline

        .section .note.GNU-stack,"",@progbits
