#!/usr/bin/env bash
# bench-percpu.sh: issue 19's benchmark. perfpt against perf script on a
# per-CPU recording of a 200 M-instruction program (testdata/programs/hot.c,
# emulated on 2 virtual CPUs, the thread migrating between them), with the
# per-thread recording of the same program beside it: perf script and
# perfpt script --itrace=i0ns -F ip,sym, perfpt pprof and gcov, at -j 1 and
# -j 2, in interleaved rounds, each command once plain and once under
# nice -n -20 (when allowed), reporting the median and the range of wall
# and CPU (user+sys) time and the load average seen.
#
# Environment (all optional):
#   BENCH_DIR     where the recordings and the log go (default ${TMPDIR:-/tmp}/perfpt-bench-percpu)
#   BENCH_ROUNDS  interleaved rounds (default 3)
#   BENCH_ROUNDS_PERF  rounds that run perf script too (default: all; it takes
#                 about two minutes of CPU per run)
#   BENCH_ROUNDS_HOT  hot.c rounds: 4000 gives about 200 M instructions
#   PERFPT_BIN    time this perfpt binary instead of building bin/perfpt
#   PERF          perf to compare with (default: perf on PATH)
set -u
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
WORK=${BENCH_DIR:-${TMPDIR:-/tmp}/perfpt-bench-percpu}
ROUNDS=${BENCH_ROUNDS:-3}
PERF_ROUNDS=${BENCH_ROUNDS_PERF:-$ROUNDS}
HOT=${BENCH_ROUNDS_HOT:-4000}
PERF=${PERF:-$(command -v perf || true)}
mkdir -p "$WORK" || exit 1
LOG=$WORK/times.txt

PERFPT=${PERFPT_BIN:-$ROOT/bin/perfpt}
if [ -z "${PERFPT_BIN:-}" ]; then
	go build -o "$PERFPT" ./cmd/perfpt || exit 1
fi
make -s -f testdata/programs/Makefile OUT="$WORK" SRC="$ROOT/testdata/programs/" "$WORK/hot-static-O2" || exit 1
for layout in percpu perthread; do
	data=$WORK/hot-$layout.data
	[ -s "$data" ] && continue
	args=(--emulate-cpus 2 --emulate-quantum 2000)
	[ $layout = perthread ] && args=(--per-thread)
	"$PERFPT" record --emulate -N "${args[@]}" -o "$data" -- "$WORK/hot-static-O2" "$HOT" >/dev/null || exit 1
done

NICE=""
if nice -n -20 true 2>/dev/null; then
	NICE="nice -n -20"
fi

# timed NAME CMD...: one line of NAME, wall, CPU and the load average.
timed() {
	local name=$1
	shift
	/usr/bin/time -o "$WORK/time.out" -f "%e %U %S" "$@" >/dev/null 2>&1
	set -- $(tail -1 "$WORK/time.out")
	printf '%s %s %.2f %s\n' "$name" "$1" "$(echo "$2 + $3" | bc)" "$(cut -d' ' -f1 /proc/loadavg)" | tee -a "$LOG"
}

: >"$LOG"
for r in $(seq "$ROUNDS"); do
	for n in plain nice; do
		pre=""
		if [ $n = nice ]; then
			[ -z "$NICE" ] && continue
			pre=$NICE
		fi
		for layout in percpu perthread; do
			d=$WORK/hot-$layout.data
			if [ -n "$PERF" ] && [ "$r" -le "$PERF_ROUNDS" ]; then
				timed "$layout/$n/perf-script" $pre "$PERF" script -i "$d" --itrace=i0ns -F ip,sym
			fi
			for j in 1 2; do
				timed "$layout/$n/script-j$j" $pre "$PERFPT" script -j $j -i "$d" --itrace=i0ns -F ip,sym
				timed "$layout/$n/pprof-j$j" $pre "$PERFPT" pprof -j $j -i "$d" -o "$WORK/out.pb.gz"
				timed "$layout/$n/gcov-j$j" $pre "$PERFPT" gcov -j $j -i "$d" -o "$WORK/gcov"
			done
		done
	done
done

# Medians and ranges, and the ratios of the medians.
awk '
{ w[$1] = w[$1] " " $2; c[$1] = c[$1] " " $3; l[$1] = l[$1] " " $4 }
function med(s,   a, n, i, j, t) {
	n = split(s, a, " ")
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	lo = a[1]; hi = a[n]
	return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
END {
	printf "%-32s %28s %28s %s\n", "command", "wall s: median [min-max]", "CPU s: median [min-max]", "load seen"
	for (k in w) {
		mw = med(w[k]); wlo = lo; whi = hi
		mc = med(c[k]); clo = lo; chi = hi
		ml = med(l[k]); llo = lo; lhi = hi
		MW[k] = mw; MC[k] = mc
		printf "%-32s %8.2f [%6.2f-%6.2f] %10.2f [%6.2f-%6.2f] %s-%s\n", k, mw, wlo, whi, mc, clo, chi, llo, lhi | "sort"
	}
	close("sort")
	print ""
	for (k in MW) {
		split(k, p, "/")
		base = p[1] "/" p[2] "/perf-script"
		if (p[3] ~ /^script/ && (base in MW))
			printf "%-32s perf script / perfpt: wall %.1fx, CPU %.1fx\n", k, MW[base] / MW[k], MC[base] / MC[k] | "sort"
		if (p[3] ~ /-j2$/) {
			one = p[1] "/" p[2] "/" substr(p[3], 1, length(p[3]) - 1) "1"
			if (one in MW)
				printf "%-32s -j 1 / -j 2: wall %.2fx, CPU %.2fx\n", k, MW[one] / MW[k], MC[one] / MC[k] | "sort"
		}
	}
}' "$LOG"
