#!/usr/bin/env bash
# pgo.sh: regenerate cmd/perfpt/default.pgo, the profile that `go build`
# uses for profile-guided optimisation of perfpt (Go 1.21+ reads
# default.pgo in the main package's directory).
#
# The profile covers the hot loops of every decoding path, each run long
# enough to weigh about the same:
#   ptxed  --block-decoder --quiet at -j 1 and -j 2 on a raw PT stream
#          (ptdecode/flow, query, packet);
#   script --itrace=e at -j 1 (the session's decoder, what every
#          perf.data command runs) and --itrace=i100ns;
#   pprof  at -j 1 and at the default -j (Handler.Runs and the aggregation);
#   script of a tracepoint recording (perfdata's reader and time-order
#          queue, the session's sample path, traceevent's printing) at the
#          default -j and at -j 1, where perf can record one (PGO_TRACE
#          names a recording to use instead: any perf.data of tracepoints).
# Inputs come from scripts/ptgen (a synthetic branchy program, its PT trace
# and a perf.data of it) and are generated outside the repository.
#
# Usage: scripts/pgo.sh   (then rebuild, measure, and commit default.pgo)
# Environment: PGO_DIR work directory (default ${TMPDIR:-/tmp}/perfpt-pgo),
# PGO_MB size of the generated PT in MiB (default 4), PGO_ROUNDS repeats of
# each workload (default 6).
set -eu
cd "$(dirname "$0")/.."
GO=${GO:-go}
WORK=${PGO_DIR:-${TMPDIR:-/tmp}/perfpt-pgo}
MB=${PGO_MB:-4}
ROUNDS=${PGO_ROUNDS:-6}
BASE=0x400000
mkdir -p "$WORK"
rm -f "$WORK"/*.prof

bin=$WORK/perfpt
$GO build -o "$bin" ./cmd/perfpt
g=$WORK/gen-${MB}m
if [ ! -s "$g.data" ] || [ ! -s "$g.pt" ]; then
	echo "pgo: generating $MB MiB of PT with scripts/ptgen"
	$GO run ./scripts/ptgen -mb "$MB" -base "$BASE" -pt "$g.pt" -bin "$g.bin" -data "$g.data" >"$g.info"
fi

# A tracepoint recording: about a million raw_syscalls and getppid
# samples of a loop calling getppid (scripts/tracepoint-recording.sh, as
# scripts/bench-sampled.sh makes it).
trace=${PGO_TRACE:-$WORK/trace.data}
if [ ! -s "$trace" ] && command -v perf >/dev/null; then
	if scripts/tracepoint-recording.sh "$trace" 2>/dev/null; then
		echo "pgo: recorded $trace"
	else
		echo "pgo: no tracepoint recording (perf record failed): its runs are left out"
		rm -f "$trace"
	fi
fi

# run NAME ARGS...: one profiled run of perfpt, output discarded.
n=0
run() {
	n=$((n + 1))
	PERFPT_CPUPROFILE=$WORK/$1-$n.prof "$bin" "${@:2}" >/dev/null
}
for _ in $(seq "$ROUNDS"); do
	run ptxed ptxed -j 1 --block-decoder --quiet --raw "$g.bin:$BASE" --pt "$g.pt"
	run ptxed ptxed -j 2 --block-decoder --quiet --raw "$g.bin:$BASE" --pt "$g.pt"
	run script script -j 1 --itrace=e -i "$g.data"
	run pprof pprof -j 1 -i "$g.data" -o "$WORK/out.pb.gz"
	run pprof pprof -i "$g.data" -o "$WORK/out.pb.gz"
	if [ -s "$trace" ]; then
		run trace script -i "$trace"
		run trace script -j 1 -i "$trace"
	fi
done
run script script --itrace=i100ns -i "$g.data"

$GO tool pprof -proto "$WORK"/*.prof >"$WORK/default.pgo" 2>/dev/null
cp "$WORK/default.pgo" cmd/perfpt/default.pgo
echo "pgo: wrote cmd/perfpt/default.pgo from $n runs"
$GO tool pprof -top -nodecount=12 cmd/perfpt/default.pgo 2>/dev/null | sed -n '5,$p'
