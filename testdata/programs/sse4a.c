/* sse4a: no libc; runs AMD's SSE4a EXTRQ and INSERTQ (66/F2 0F 78-79),
 * which the CPU executes and libipt decodes but perf 6.1's instruction
 * decoder refuses (x86-opcode-map.txt has those opcodes for EVEX only):
 * perf's PT walk fails there with "Failed to get instruction" and
 * resyncs. Between them, calls and loops; only CPUs with SSE4a (AMD)
 * run it. */

__attribute__((noinline)) static unsigned long f(unsigned long x)
{
	return x & 1 ? 3 * x + 1 : x / 2;
}

__attribute__((noinline)) static void bits(void)
{
	__asm__ volatile("extrq $8, $4, %%xmm0\n\tinsertq %%xmm1, %%xmm0" : : : "xmm0", "xmm1");
}

void _start(void)
{
	unsigned long n = 27, steps = 0;
	for (int i = 0; i < 3; i++) {
		while (n != 1) {
			n = f(n);
			steps++;
		}
		bits();
		n = 7 + i;
	}
	__asm__ volatile("syscall" : : "a"(60), "D"(steps & 0x7f) : "rcx", "r11", "memory");
	for (;;)
		;
}
