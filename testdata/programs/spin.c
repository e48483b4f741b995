/* spin: no libc; loops for a long time (the SIGINT test kills it). */
void _start(void) {
	for (volatile unsigned long i = 0;; i++)
		;
}
