#!/usr/bin/env bash
# bench-sampled.sh: the speed of sampled recordings (issues 16, 17, 18).
# perf script against perfpt script and perf report --stdio against perfpt
# pprof on recordings made here with perf record:
#   cxx-g      cpu-clock -g of a C++ program (testdata/machine/cxxwork.cpp, -O2)
#   cxx-flat   the same without -g
#   syswide    -a -g cpu-clock while the C++ program runs
#   dwarf      --call-graph dwarf of the C++ program
#   trace      about a million tracepoint samples (raw_syscalls and
#              syscalls:*_getppid of a loop calling getppid)
# Each command runs under perf stat -e task-clock (the CPU time of the
# whole process and its children: perf's addr2line and objdump included),
# in interleaved rounds; the median and range per command are printed.
# perfpt runs twice per round: with its kallsyms cache cold (an empty
# XDG_CACHE_HOME, so /proc/kallsyms is read, parsed and the cache written)
# and warm (the cache of the run before).
#
# Environment (all optional):
#   BENCH_DIR     recordings, caches and the log (default ${TMPDIR:-/tmp}/perfpt-bench-sampled)
#   BENCH_ROUNDS  interleaved rounds (default 5)
#   BENCH_ONLY    recordings to time, space-separated (default: all)
#   PERFPT_BIN    time this perfpt binary instead of building bin/perfpt
#   PERFPT_BASE   also time this perfpt binary (warm cache), e.g. main's
#                 before a change: its ratio is printed last
set -u
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
WORK=${BENCH_DIR:-${TMPDIR:-/tmp}/perfpt-bench-sampled}
ROUNDS=${BENCH_ROUNDS:-5}
ONLY=${BENCH_ONLY:-cxx-g cxx-flat syswide dwarf trace}
mkdir -p "$WORK" || exit 1
PERFPT=${PERFPT_BIN:-$ROOT/bin/perfpt}
if [ -z "${PERFPT_BIN:-}" ]; then
	go build -o "$PERFPT" ./cmd/perfpt || exit 1
fi

prog=$WORK/cxxwork
[ -x "$prog" ] || g++ -O2 -g -fno-omit-frame-pointer -o "$prog" testdata/machine/cxxwork.cpp || exit 1
rec() {
	local name=$1
	shift
	[ -s "$WORK/$name.data" ] && return
	perf record -q -o "$WORK/$name.data" "$@" >/dev/null 2>"$WORK/$name.rec.err" || {
		cat "$WORK/$name.rec.err"
		exit 1
	}
}
rec cxx-g -e cpu-clock -F 4000 -g -- "$prog" 1500
rec cxx-flat -e cpu-clock -F 4000 -- "$prog" 1500
rec syswide -a -g -e cpu-clock -F 1000 -- "$prog" 1500
rec dwarf -e cpu-clock -F 1000 --call-graph dwarf -- "$prog" 1500
if [ ! -s "$WORK/trace.data" ]; then
	scripts/tracepoint-recording.sh "$WORK/trace.data" 2>"$WORK/trace.rec.err" || {
		cat "$WORK/trace.rec.err"
		exit 1
	}
fi

# cpu NAME CMD...: the task-clock of CMD in ms, appended to NAME's times.
cpu() {
	local name=$1
	shift
	perf stat -x, -e task-clock -o "$WORK/stat" -- "$@" >/dev/null 2>"$WORK/err" || {
		echo "failed: $*" >&2
		head -5 "$WORK/err" >&2
		return
	}
	awk -F, '$3 == "task-clock" { print $1 }' "$WORK/stat" >>"$WORK/t.$name"
}

rm -f "$WORK"/t.*
WARM=$WORK/cache-warm
COLD=$WORK/cache-cold
for r in $(seq "$ROUNDS"); do
	for d in $ONLY; do
		data=$WORK/$d.data
		cpu "$d.script.perf" perf script -i "$data"
		rm -rf "$COLD"
		cpu "$d.script.cold" env XDG_CACHE_HOME="$COLD" "$PERFPT" script -i "$data"
		cpu "$d.script.warm" env XDG_CACHE_HOME="$WARM" "$PERFPT" script -i "$data"
		[ -n "${PERFPT_BASE:-}" ] && cpu "$d.script.base" env XDG_CACHE_HOME="$WARM" "$PERFPT_BASE" script -i "$data"
		cpu "$d.report.perf" perf report --stdio -i "$data"
		rm -rf "$COLD"
		cpu "$d.report.cold" env XDG_CACHE_HOME="$COLD" "$PERFPT" pprof -i "$data" -o "$WORK/out.pb.gz"
		cpu "$d.report.warm" env XDG_CACHE_HOME="$WARM" "$PERFPT" pprof -i "$data" -o "$WORK/out.pb.gz"
		[ -n "${PERFPT_BASE:-}" ] && cpu "$d.report.base" env XDG_CACHE_HOME="$WARM" "$PERFPT_BASE" pprof -i "$data" -o "$WORK/out.pb.gz"
	done
done

# median and range in ms of a times file
stats() {
	sort -n "$1" | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.1f %.1f %.1f", m, v[1], v[NR] }'
}
printf '%-9s %-7s %22s %22s %22s %6s %6s\n' recording cmd "perf ms (min-max)" "perfpt cold" "perfpt warm" cold warm
for d in $ONLY; do
	for c in script report; do
		read -r p pl ph <<<"$(stats "$WORK/t.$d.$c.perf")"
		read -r k kl kh <<<"$(stats "$WORK/t.$d.$c.cold")"
		read -r w wl wh <<<"$(stats "$WORK/t.$d.$c.warm")"
		base=""
		if [ -n "${PERFPT_BASE:-}" ]; then
			read -r b bl bh <<<"$(stats "$WORK/t.$d.$c.base")"
			base=$(printf '  base %s (%s-%s) %.2fx' "$b" "$bl" "$bh" "$(echo "$p / $b" | bc -l)")
		fi
		printf '%-9s %-7s %8s (%5s-%5s) %8s (%5s-%5s) %8s (%5s-%5s) %5.2fx %5.2fx%s\n' "$d" "$c" \
			"$p" "$pl" "$ph" "$k" "$kl" "$kh" "$w" "$wl" "$wh" \
			"$(echo "$p / $k" | bc -l)" "$(echo "$p / $w" | bc -l)" "$base"
	done
done
echo "samples: $(for d in $ONLY; do printf '%s %s  ' "$d" "$(perf script -i "$WORK/$d.data" -F time 2>/dev/null | wc -l)"; done)"
echo "ratios are perf/perfpt CPU time (above 1: perfpt faster); load average $(cut -d' ' -f1-3 /proc/loadavg)"
