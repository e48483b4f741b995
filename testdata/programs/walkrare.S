/* walkrare: not a program but the text that hand-built flows walk
 * (convert/session's TestAggWalkRare): a direct recursion, a chain of
 * 1100 calls made at distinct sites (past ptagg's 1024-frame stack: a
 * recursion is folded at its repeated site, a chain is not), a
 * never-ending loop, and odd: jumps and a conditional branch to the next
 * instruction, and a syscall that a flow names an indirect jump (as where
 * the code is not the code traced). It is never run: the flows choose the branches'
 * outcomes. The test knows the instructions by their offsets from the
 * symbols. */
	.text
	.globl _start, spin, rec, chain, odd
_start:
	mov $3, %edi		/* +0, 5 bytes */
	call rec		/* +5 */
	call chain		/* +10 */
spin:
	jmp spin		/* +15 */
rec:
	test %edi, %edi		/* +0 */
	jne 1f			/* +2 */
	ret			/* +4 */
1:	dec %edi		/* +5 */
	call rec		/* +7 */
	ret			/* +12 */
chain:
	.rept 1100		/* 6 bytes each, at chain+6i */
	call 1f
	ret
1:
	.endr
	ret			/* chain+6600 */
odd:
	jmp 1f			/* +0, 2 bytes: rel 0 */
1:	jne 2f			/* +2, likewise */
2:	jmp 3f			/* +4, likewise */
3:	ret			/* +6 */
	syscall			/* +7 */
	ret			/* +9 */
