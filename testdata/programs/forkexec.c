/* forkexec: fork a child that runs a little, then execs argv[1]; the
 * parent sleeps meanwhile (under ptrace, the child's SIGCHLD interrupts the
 * sleep and the kernel restarts it), then waits for it. */
#include <stdio.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

static int spin(int n) {
	int s = 0;
	for (int i = 0; i < n; i++)
		s += i % 7;
	return s;
}

int main(int argc, char **argv) {
	pid_t pid = fork();
	if (pid == 0) {
		spin(30);
		if (argc > 1)
			execv(argv[1], argv + 1);
		_exit(spin(5) & 1);
	}
	int st = 0;
	struct timespec ts = {0, 100 * 1000 * 1000};
	nanosleep(&ts, 0);
	waitpid(pid, &st, 0);
	printf("forkexec %d %d\n", spin(20), WEXITSTATUS(st));
	return 0;
}
