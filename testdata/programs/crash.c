/* crash: no libc; runs a little, then dies of SIGSEGV (no handler). */
static int sum(int n) { return n ? n + sum(n - 1) : 0; }

void _start(void) {
	volatile int *p = (volatile int *)(long)sum(10);
	*p = 1; /* address 55: SIGSEGV */
	for (;;)
		;
}
