/* ptwtsx: PTWRITE and RTM (no libc). Our VMs lack both (#UD), so it runs
 * only under perfpt's emulating recorder, which performs them as a CPU with
 * PTWRITE and RTM whose transactions abort only on XABORT.
 *
 * - A loop writes its counter (ptwrite r64: 8-byte payload) and a 32-bit
 *   word from memory (ptwrite m32: 4-byte payload, 0x1000 + i), then the
 *   address of data (ptwrite r64) and 0xfeedface (ptwrite r32).
 * - A transaction with a nested one stores to data[0], checks XTEST and
 *   commits.
 * - A transaction stores to data[3], then XABORT 0x5a: the store is rolled
 *   back and EAX holds 0x5a000001.
 * - A transaction runs PTWRITE (0x7a7a7a7a) then a getpid syscall, which
 *   aborts it (EAX 0: not XABORT, no retry).
 * - XTEST outside a transaction, XABORT outside one (a NOP).
 * The exit status is 0 when every result is what the CPU would give. */

static unsigned long data[4];
static volatile unsigned int word;

static inline unsigned int xbegin(void)
{
	unsigned int status = ~0u; /* _XBEGIN_STARTED: XBEGIN leaves EAX alone */
	__asm__ volatile("xbegin 1f\n1:" : "+a"(status) : : "memory");
	return status;
}

static inline void xend(void) { __asm__ volatile("xend" : : : "memory"); }

static inline int xtest(void)
{
	unsigned char nz;
	__asm__ volatile("xtest\n\tsetnz %0" : "=r"(nz) : : "cc");
	return nz;
}

static __attribute__((noreturn)) void sys_exit(long code)
{
	__asm__ volatile("syscall" : : "a"(60), "D"(code) : "rcx", "r11", "memory");
	__builtin_unreachable();
}

void _start(void)
{
	int bad = 0;
	for (unsigned long i = 0; i < 3; i++) {
		word = 0x1000 + i;
		__asm__ volatile("ptwrite %0" : : "r"(i));
		__asm__ volatile("ptwritel %0" : : "m"(word));
	}
	__asm__ volatile("ptwrite %0" : : "r"((unsigned long)data));
	__asm__ volatile("ptwrite %0" : : "r"(0xfeedfaceu));

	unsigned int st = xbegin();
	if (st == ~0u) {
		data[0] = 42;
		if (xbegin() == ~0u) { /* nested: no MODE.TSX */
			data[1] = xtest();
			xend();
		}
		xend();
	} else {
		data[2] = st;
	}
	if (data[0] != 42 || data[1] != 1 || data[2] != 0)
		bad |= 1;

	st = xbegin();
	if (st == ~0u) {
		data[3] = 7;
		__asm__ volatile("xabort $0x5a" : : : "memory");
	}
	if (st != 0x5a000001u || data[3] != 0)
		bad |= 2;

	st = xbegin();
	if (st == ~0u) {
		long pid;
		__asm__ volatile("ptwrite %0" : : "r"(0x7a7a7a7aul));
		__asm__ volatile("syscall" : "=a"(pid) : "a"(39) : "rcx", "r11", "memory");
		xend();
	}
	if (st != 0)
		bad |= 8;

	if (xtest())
		bad |= 4;
	__asm__ volatile("xabort $1" : : : "memory"); /* a NOP here */
	sys_exit(bad);
}
