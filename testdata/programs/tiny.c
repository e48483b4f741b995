/* tiny: no libc at all, a few branches, a call and a REP STOSB (which
 * traps once per iteration when single-stepped but is one instruction);
 * the smallest trace. */
static int f(int x) { return x & 1 ? 3 * x + 1 : x / 2; }

void _start(void) {
	int n = 27, steps = 0;
	char buf[64];
	void *dst = buf;
	unsigned long cnt = sizeof buf;
	__asm__ volatile("rep stosb" : "+D"(dst), "+c"(cnt) : "a"(0) : "memory");
	while (n != 1) {
		n = f(n);
		steps++;
	}
	__asm__ volatile("syscall" : : "a"(60), "D"(steps & 0x7f) : "rcx", "r11", "memory");
	for (;;)
		;
}
