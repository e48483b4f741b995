#!/usr/bin/env bash
# tracepoint-recording.sh OUT: records about a million tracepoint samples
# into OUT with perf record: raw_syscalls:sys_enter/sys_exit and
# syscalls:sys_enter_getppid/sys_exit_getppid of a loop calling getppid
# 250,000 times (the program is built beside OUT). Used by bench-sampled.sh
# and pgo.sh. perf's errors go to stderr; the status is perf's or gcc's.
set -u
out=$1
dir=$(dirname "$out")
mkdir -p "$dir" || exit 1
prog=$dir/getppid
if [ ! -x "$prog" ]; then
	printf '#include <unistd.h>\nint main(void){for(int i=0;i<250000;i++)getppid();return 0;}\n' >"$dir/getppid.c"
	gcc -O2 -o "$prog" "$dir/getppid.c" || exit 1
fi
perf record -q -o "$out" -m 64M -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit \
	-e syscalls:sys_enter_getppid -e syscalls:sys_exit_getppid -- "$prog" >/dev/null
