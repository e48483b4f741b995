/* kmod: a stand-in for a loaded kernel module ("ptmod"), linked at a module
 * address, for synthesized kernel+user Intel PT recordings
 * (record/ksynth.LoadModule): the stand-in kernel's indirect calls may go
 * to its global functions, whose code has direct calls, loops and
 * conditional branches of its own and returns to the kernel. It is never
 * run; the recordings' kernel flow walks its code with chosen branch
 * outcomes. */
	.text
	.globl ptmod_ioctl, ptmod_read
	.p2align 4
ptmod_ioctl:
	push %rbx
	mov %rdi, %rbx
	and $7, %rbx
	jz 1f
	call ptmod_work
1:	mov $3, %ecx
2:	add %rcx, %rax
	dec %ecx
	jnz 2b
	pop %rbx
	ret

	.p2align 4
ptmod_work:
	cmp $20, %rax
	ja 3f
	inc %rax
	cmp $10, %rax
	jb ptmod_work
3:	ret

	.p2align 4
ptmod_read:
	xor %eax, %eax
	test %rsi, %rsi
	jz 4f
	call ptmod_work
4:	ret
