/* kernel: a stand-in for a kernel's text, linked at a kernel address, for
 * synthesized kernel+user Intel PT recordings (record/ksynth): a syscall
 * entry, an interrupt entry and a few functions with direct, indirect and
 * conditional branches, loops and returns; and, for system-wide recordings
 * (ksynth.System), a scheduler: a rescheduling interrupt that calls
 * schedule, which switches tasks at __switch_to as Linux does (the
 * switch-out record written in __perf_event_task_sched_out before, the
 * switch-in record in finish_task_switch after), ret_from_fork where new
 * tasks start, and the idle task's loop around hlt. It is never run; the
 * recordings' kernel flow walks its code with chosen branch outcomes. */
	.text
	.globl _text, _stext, entry_SYSCALL_64, asm_common_interrupt
	.globl do_syscall_64, sys_read, sys_write, sys_exit, sys_other, handle_irq, helper
_text:
_stext:
entry_SYSCALL_64:
	push %rcx
	push %r11
	mov %rax, %rdi
	call do_syscall_64
	pop %r11
	pop %rcx
	sysretq

	.p2align 4
do_syscall_64:
	mov %rdi, %rdx
	and $3, %rdx
	lea sys_table(%rip), %r8
	call *(%r8,%rdx,8)
	mov $4, %ecx
1:	add %rcx, %rax
	dec %ecx
	jnz 1b
	test %rax, %rax
	js 2f
	call helper
2:	ret

	.p2align 4
helper:
	cmp $100, %rax
	ja 3f
	inc %rax
	cmp $50, %rax
	jb helper
3:	ret

	.p2align 4
sys_read:
	xor %eax, %eax
	test %rsi, %rsi
	jz 4f
	call helper
4:	ret

	.p2align 4
sys_write:
	mov %rdx, %rax
	cmp $8, %rdx
	jbe 5f
	shr $1, %rax
5:	ret

	.p2align 4
sys_exit:
	mov $60, %eax
	ret

	.p2align 4
sys_other:
	mov $-38, %rax
	ret

	.p2align 4
asm_common_interrupt:
	push %rax
	push %rcx
	call handle_irq
	pop %rcx
	pop %rax
	iretq

	.p2align 4
handle_irq:
	mov $3, %ecx
6:	dec %ecx
	jnz 6b
	call helper
	ret

	.globl asm_sysvec_reschedule_ipi, schedule, __perf_event_task_sched_out, __switch_to_asm, __switch_to
	.globl finish_task_switch, ret_from_fork, do_idle, default_idle

	.p2align 4
asm_sysvec_reschedule_ipi:
	push %rax
	call schedule
	pop %rax
	iretq

	.p2align 4
schedule:
	push %rbx
	call __perf_event_task_sched_out
	call __switch_to_asm
	call finish_task_switch
	pop %rbx
	ret

	.p2align 4
__perf_event_task_sched_out:
	mov $2, %ecx
7:	dec %ecx
	jnz 7b
	ret

	.p2align 4
__switch_to_asm:
	push %rbp
	mov %rsp, %rax
	pop %rbp
	jmp __switch_to

	.p2align 4
__switch_to:
	mov %rdi, %rax
	test %rsi, %rsi
	jz 8f
	mov %rsi, %rax
8:	ret

	.p2align 4
finish_task_switch:
	test %rax, %rax
	jz 9f
	call helper
9:	ret

	.p2align 4
ret_from_fork:
	call finish_task_switch
	iretq

	.p2align 4
do_idle:
	call default_idle
	jmp do_idle

	.p2align 4
default_idle:
	sti
	hlt
	ret

	/* The PTI entry trampoline (Linux 4.15's entry_SYSCALL_64_trampoline,
	 * kallsyms' _entry_trampoline): a page of its own, which each CPU's
	 * cpu_entry_area maps at 0xfffffe0000006000 + cpu * 0x2c000; it
	 * switches stacks and jumps to the entry code through a register,
	 * being mapped elsewhere than it is linked. */
	.globl _entry_trampoline
	.p2align 12
_entry_trampoline:
	swapgs
	mov %rsp, %r11
	push %rdi
	movabs $entry_SYSCALL_64, %rdi
	jmp *%rdi

	.section .rodata
	.p2align 3
sys_table:
	.quad sys_read, sys_write, sys_exit, sys_other
