#!/usr/bin/env bash
# record.sh: makes the recordings of testdata/machine with the real perf.
# The programs are built and run from /tmp/perfpt-corpus, the path the
# recordings name (the tests copy bin/ back there). Needs perf, g++, gcc,
# rustc, node and a JDK; run it from this directory.
set -eu
here=$(pwd)
w=/tmp/perfpt-corpus
rm -rf "$w" && mkdir -p "$w" && cd "$w"
cp "$here"/cxxwork.cpp "$here"/rustwork.rs "$here"/cwork.c "$here"/nodework.js "$here"/Work.java .
g++ -O0 -g -fno-omit-frame-pointer -o cxx-O0 cxxwork.cpp
g++ -O2 -g -fno-omit-frame-pointer -o cxx-O2 cxxwork.cpp
RUSTC_BOOTSTRAP=1 rustc -Z unstable-options -O -C force-frame-pointers=yes -C strip=debuginfo \
	-C symbol-mangling-version=legacy -o rust-legacy rustwork.rs
rustc -O -C force-frame-pointers=yes -C strip=debuginfo -C symbol-mangling-version=v0 -o rust-v0 rustwork.rs
gcc -O2 -fno-omit-frame-pointer -static -o c-static cwork.c && strip --strip-debug c-static
gcc -O2 -g -fno-omit-frame-pointer -o c-dyn cwork.c
javac Work.java
rec() { local out=$1; shift; perf record -q -e cpu-clock -F "${F:-2000}" -g -o "$here/$out.data" "$@" >/dev/null 2>&1; }
rec cxx-O0 ./cxx-O0 300
rec cxx-O2 ./cxx-O2 1500
rec rust-legacy ./rust-legacy 3000
rec rust-v0 ./rust-v0 3000
rec c-static ./c-static 600
F=500 rec node-basic-prof node --perf-basic-prof nodework.js
F=500 rec java-perfmap java -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit -XX:+PreserveFramePointer Work
F=200 rec system-wide -a -- ./c-dyn 300
# the idle task's stacks: on the boot CPU they end in .init.text
# (start_kernel, x86_64_start_kernel), past the kernel MMAP's _etext
perf record -q -e cpu-clock -F 1000 -a -g -o "$here/idle-a.data" -- sleep 0.3 >/dev/null 2>&1
# groups of software events read with the leader's samples (:S), a group
# and an event in none: perf script -F metric
perf record -q -g -c 1000000 -e '{cpu-clock,page-faults,context-switches,task-clock}:S' \
	-e '{task-clock,minor-faults}:S' -e cpu-clock -o "$here/sw-groups.data" ./c-dyn 300 >/dev/null 2>&1
# the same with the clock data -F tod needs
perf record -q -k CLOCK_MONOTONIC -c 1000000 -e '{cpu-clock,page-faults}:S' -o "$here/sw-groups-tod.data" ./c-dyn 100 >/dev/null 2>&1
# per-thread counts: PERF_RECORD_READ when a child exits (perf report -D)
perf record -q -s -e cpu-clock -F 1000 -g -o "$here/inherit-stat.data" -- sh -c './c-dyn 60; ./c-dyn 60' >/dev/null 2>&1
# pipe mode: build ids come at the end, kallsyms is relocated by _text
perf record -q -e cpu-clock -F 2000 -g -o - ./cxx-O2 1000 2>/dev/null >"$here/cxx-O2-pipe.data"
# the perf maps the JITs wrote, by the pid the recordings name
for d in node-basic-prof java-perfmap; do
	pid=$(perf script -i "$here/$d.data" -F pid 2>/dev/null | awk '{print $1; exit}')
	cp "/tmp/perf-$pid.map" "$here/perf-$pid.map"
done
# a recording whose kernel is not this machine's (another build id)
(cd "$here/../.." && go run ./scripts/kbuildid -i testdata/machine/c-static.data -o testdata/machine/other-kernel.data)
mkdir -p "$here/bin"
cp cxx-O0 cxx-O2 rust-legacy rust-v0 c-static c-dyn Work.class "$here/bin/"
