/* rtmroll: RTM aborts must roll back memory (no libc; only the emulating
 * recorder runs it on CPUs without RTM). Transactions write a static
 * buffer and a stack array with REP STOSB in called functions, bump a
 * counter through a pointer and push and pop, then XABORT: every write is
 * undone. A nested transaction aborts to the outermost fallback with the
 * nested bit in the status. A fault in a transaction aborts it (status 0)
 * and is not delivered. The exit status is 0 when all is as on a CPU
 * with RTM. With an argument it checks faults outside transactions
 * instead: `x` runs XEND (#GP), `p` PTWRITE from address 0 (#PF); both
 * must die of SIGSEGV; `c` exits 0 when CPUID reports RTM (leaf 7 EBX
 * bit 11) and PTWRITE (leaf 0x14 EBX bit 4), else 1. */

static unsigned char buf[256];
static unsigned long counter;
static int *volatile nullp;

static inline unsigned int xbegin(void)
{
	unsigned int status = ~0u;
	__asm__ volatile("xbegin 1f\n1:" : "+a"(status) : : "memory");
	return status;
}

__attribute__((noinline)) static void fill(unsigned char *p, unsigned long n, int c)
{
	__asm__ volatile("rep stosb" : "+D"(p), "+c"(n) : "a"(c) : "memory");
}

__attribute__((noinline)) static unsigned long bump(unsigned long *p) { return ++*p; }

static __attribute__((noreturn)) void sys_exit(long code)
{
	__asm__ volatile("syscall" : : "a"(60), "D"(code) : "rcx", "r11", "memory");
	__builtin_unreachable();
}

__asm__(".globl _start\n_start:\n\tmov %rsp, %rdi\n\tand $-16, %rsp\n\tcall cstart\n\thlt");

static void cpuid(unsigned int leaf, unsigned int r[4])
{
	__asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(leaf), "c"(0));
}

static void faults(char what)
{
	if (what == 'c') {
		unsigned int r[4];
		cpuid(0, r);
		if (r[0] < 0x14)
			sys_exit(1);
		cpuid(7, r);
		int rtm = r[1] >> 11 & 1;
		cpuid(0x14, r);
		sys_exit(rtm && (r[1] >> 4 & 1) ? 0 : 1);
	}
	if (what == 'x')
		__asm__ volatile("xend" : : : "memory");
	else
		__asm__ volatile("ptwritel %0" : : "m"(*nullp));
	sys_exit(99);
}

__attribute__((used)) void cstart(long *sp)
{
	int bad = 0;
	if (sp[0] > 1)
		faults(((char **)(sp + 1))[1][0]);
	volatile unsigned char local[64];
	for (int i = 0; i < 64; i++)
		local[i] = i;
	counter = 5;

	unsigned int st = xbegin();
	if (st == ~0u) {
		fill(buf, sizeof buf, 0xaa);
		fill((unsigned char *)local, sizeof local, 0x55);
		bump(&counter);
		__asm__ volatile("push %%rax\n\tpush %%rax\n\tpop %%rax\n\tpop %%rax" : : : "memory");
		__asm__ volatile("xabort $0x11" : : : "memory");
	}
	if (st != 0x11000001u)
		bad |= 1;
	for (int i = 0; i < 256; i++)
		if (buf[i] != 0)
			bad |= 2;
	for (int i = 0; i < 64; i++)
		if (local[i] != i)
			bad |= 4;
	if (counter != 5)
		bad |= 8;

	st = xbegin();
	if (st == ~0u) {
		if (xbegin() == ~0u) {
			counter = 9;
			__asm__ volatile("xabort $0x22" : : : "memory");
		}
		__asm__ volatile("xend" : : : "memory");
		__asm__ volatile("xend" : : : "memory");
	}
	if (st != (0x22000001u | 0x20))
		bad |= 16;
	if (counter != 5)
		bad |= 32;

	st = xbegin();
	if (st == ~0u) {
		counter = 7;
		*nullp = 1; /* #PF: aborts the transaction, no SIGSEGV */
		__asm__ volatile("xend" : : : "memory");
	}
	if (st != 0 || counter != 5)
		bad |= 64;
	sys_exit(bad);
}
