/* kernel: a stand-in for a kernel's text, linked at a kernel address, for
 * synthesized kernel+user Intel PT recordings (record/ksynth): a syscall
 * entry, an interrupt entry and a few functions with direct, indirect and
 * conditional branches, loops and returns. It is never run; the
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

	.section .rodata
	.p2align 3
sys_table:
	.quad sys_read, sys_write, sys_exit, sys_other
