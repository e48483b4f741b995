#!/bin/sh
# Records the tracepoint test files with perf 6.1 (as root). See README.md.
set -e
# perf record returns the workload's status; the workload ends with "true".
cd "$(dirname "$0")"
W=./workload.sh
rec() { out=$1; shift; perf record -q -o "$out" "$@" 2>/dev/null; }
# sched, irq, timer, signal and task: every event of the systems
rec sched.data -e 'sched:*' -e 'irq:*' -e 'timer:*' -e 'signal:*' -e 'task:*' -- $W
# raw_syscalls and every syscalls event (those that fire)
rec syscalls.data -z -e 'raw_syscalls:*' -e 'syscalls:*' -- $W light
# kmem and block
rec kmem.data -z -e 'kmem:*' -e 'block:*' -- $W light
# rcu, maple_tree and mmap: "%s" of "const char *" fields, which the printk
# formats name, and a TAB inside maple_tree's print fmt strings
rec misc.data -e 'rcu:rcu_utilization' -e 'maple_tree:*' -e 'mmap:*' -- $W light
# call chains on tracepoints
rec callchain.data -g -e 'sched:sched_switch' -e 'sched:sched_wakeup' -e 'syscalls:sys_enter_openat' -e 'signal:*' -- $W
# uprobe and uretprobe with arguments on probeprog. (This kernel has no
# CONFIG_KPROBES, so no kprobe/kretprobe recording: perf probe says
# kprobe_events does not exist.)
gcc -O1 -g -o /tmp/perfpt-probeprog probeprog.c
perf probe -q -d 'probe_perfpt:*' 2>/dev/null || true
perf probe -q -x /tmp/perfpt-probeprog -a 'compute a b'
perf probe -q -x /tmp/perfpt-probeprog -a 'compute_ret=compute%return $retval'
perf probe -q -x /tmp/perfpt-probeprog -a 'main'
rec probes.data -e 'probe_perfpt:*' -- /tmp/perfpt-probeprog 5
rec probes-g.data -g -e 'probe_perfpt:*' -- /tmp/perfpt-probeprog 3
perf probe -q -d 'probe_perfpt:*'
# pipe mode
perf record -q -o - -e 'sched:sched_switch' -e 'sched:sched_wakeup' -e 'sched:sched_process_exec' -e 'syscalls:sys_enter_openat' -e 'syscalls:sys_exit_openat' -- $W > pipe.data 2>/dev/null
chmod 644 *.data
