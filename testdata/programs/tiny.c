/* tiny: no libc at all, a few branches and a call; the smallest trace. */
static int f(int x) { return x & 1 ? 3 * x + 1 : x / 2; }

void _start(void) {
	int n = 27, steps = 0;
	while (n != 1) {
		n = f(n);
		steps++;
	}
	__asm__ volatile("syscall" : : "a"(60), "D"(steps & 0x7f) : "rcx", "r11", "memory");
	for (;;)
		;
}
