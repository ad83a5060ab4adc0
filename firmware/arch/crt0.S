/* Start-up: stack, global pointer, trap vector, zeroed .bss, constructors, main, then exit. */
  .section .text.init, "ax"
  .globl _start
_start:
  .option push
  .option norelax
  la gp, __global_pointer$
  .option pop
  la sp, __stack_top
  la t0, strata_trap_entry
  csrw mtvec, t0
  la a0, __bss_start
  la a1, __bss_end
1:
  bgeu a0, a1, 2f
  sw zero, 0(a0)
  addi a0, a0, 4
  j 1b
2:
  la s0, __init_array_start
  la s1, __init_array_end
3:
  bgeu s0, s1, 4f
  lw t0, 0(s0)
  jalr t0
  addi s0, s0, 4
  j 3b
4:
  li a0, 0
  li a1, 0
  call main
  call strata_exit
5:
  j 5b

/* HTIF mailbox: the simulator ends the run when a nonzero value is stored to tohost. */
  .section .tohost, "aw", @progbits
  .align 6
  .globl tohost
tohost:
  .dword 0
  .align 6
  .globl fromhost
fromhost:
  .dword 0
