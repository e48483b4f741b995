/* forkexec: fork a child that runs a little, then execs argv[1]; the
 * parent sleeps meanwhile (under ptrace, the child's SIGCHLD interrupts the
 * sleep and the kernel restarts it), then waits for it. With -v first,
 * vfork and exec argv[2] instead. */
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
	if (argc > 2 && argv[1][0] == '-' && argv[1][1] == 'v') {
		/* vfork: the child borrows the parent's memory until it execs. */
		pid_t pid = vfork();
		if (pid == 0) {
			execv(argv[2], argv + 2);
			_exit(127);
		}
		int st = 0;
		waitpid(pid, &st, 0);
		printf("vfork %d\n", WEXITSTATUS(st));
		return 0;
	}
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
