#!/usr/bin/env bash
# bench.sh: end-to-end speed of perfpt against the reference tools, in one run.
#
# Called by `make bench` after the Go benchmarks; runs on its own too. It
# builds bin/perfpt, generates (or reuses) large inputs outside the repository,
# then times with hyperfine, reporting means, throughput, ratios to the
# reference tool and peak RSS (GNU time):
#
#   ptdump   perfpt ptdump               vs libipt ptdump (PTDUMP, or ptdump on PATH)
#   ptxed    perfpt ptxed -j 1 / -j 2    vs libipt ptxed --block-decoder (PTXED, or ptxed on PATH)
#   bigscript  perfpt script on a large generated recording (throughput, peak RSS)
#   script   perfpt script               vs perf script (PERF, or perf on PATH)
#   pprof    perfpt pprof / perfpt gcov  vs a bare decode (BARE_DECODE)
#   benchset traces of programs nobody tuned the decoders on (an interpreter,
#            compression, sorting, C++ virtual calls, deep recursion), made
#            from qemu-user's exec log by scripts/qemuflow: libipt ptxed,
#            perf script --itrace=e, perfpt ptxed, bare decode, pprof and gcov
#            at -j 1 and -j 2, in interleaved rounds (median, min-max, CPU
#            time, peak RSS), every ratio against libipt and perf; and checks
#            that the instruction counts agree
#
# A comparison whose tools or inputs are missing is skipped with the reason;
# a command that fails is reported and left out; the script itself exits 0
# unless bin/perfpt cannot be built.
#
# Environment (all optional):
#   BENCH_DIR      where generated inputs and results go (default ${TMPDIR:-/tmp}/perfpt-bench)
#   BENCH_RUNS     timed runs per command (default 3); BENCH_WARMUP warmup runs (default 1)
#   BENCH_PT_MB    size of the generated PT stream in MiB (default 32)
#   PERFPT_BIN     time this perfpt binary instead of building bin/perfpt
#   BENCH_BIG_MB   size in MiB of PT of the large generated perf.data (default 8)
#   BENCH_ITERS    work units of the recorded program (default 10000: about 12M instructions)
#   BENCH_PT, BENCH_BIN, BENCH_BASE  use this raw PT stream and code image (loaded at
#                  BENCH_BASE, default 0x400000) instead of generating them
#   BENCH_PERF_DATA  use this recording instead of recording the bench program
#   BENCH_REGEN=1  regenerate inputs even when cached
#   BENCH_ONLY     space-separated subset of: ptdump ptxed bigscript script pprof benchset
#   BENCH_SET      the programs of the benchmark set (default: interp compress sort virt recurse)
#   BENCH_SET_INSNS  instructions traced per program (default 120000000: about 3 minutes
#                  and 4-7 GB of memory each to generate under qemu-user, once)
#   BENCH_SET_ROUNDS interleaved rounds per command (default 3)
#   BENCH_PERF_BIG=1  also time perf script on the large generated recording (slow)
#   HYPERFINE      hyperfine to use (empty: time with a plain loop)
#   PTDUMP PTXED PERF   reference tools; BARE_DECODE perfpt arguments of the bare decode
#                  (default "script --itrace=e": decode everything, print only errors)

set -u
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
GO=${GO:-go}
PERFPT=$ROOT/bin/perfpt
WORK=${BENCH_DIR:-${TMPDIR:-/tmp}/perfpt-bench}
RUNS=${BENCH_RUNS:-3}
WARMUP=${BENCH_WARMUP:-1}
PT_MB=${BENCH_PT_MB:-32}
BIG_MB=${BENCH_BIG_MB:-8}
ITERS=${BENCH_ITERS:-10000}
ONLY=${BENCH_ONLY:-ptdump ptxed bigscript script pprof benchset}
BARE=${BARE_DECODE:-script --itrace=e}
RAWADDR=${BENCH_BASE:-0x400000}

say() { printf 'bench: %s\n' "$*"; }
skip() { printf 'bench: SKIP %s\n' "$*"; }
want() { case " $ONLY " in *" $1 "*) return 0 ;; esac; return 1; }

mkdir -p "$WORK" || exit 1
SUMMARY=$WORK/summary.txt
: >"$SUMMARY"
line() { printf '%s\n' "$*" | tee -a "$SUMMARY"; }

# tool ENVVAR NAME: the reference tool from $ENVVAR, else NAME on PATH, else empty.
tool() {
	local v=${!1:-}
	if [ -n "$v" ]; then
		if [ -x "$v" ] || command -v "$v" >/dev/null 2>&1; then
			command -v "$v"
			return
		fi
		skip "$1=$v is not an executable" >&2
		return
	fi
	command -v "$2" 2>/dev/null || true
}

# apt_install PKG: install a Debian package when apt-get is there and we may.
apt_install() {
	command -v apt-get >/dev/null 2>&1 || return 1
	local sudo=
	if [ "$(id -u)" != 0 ]; then
		command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null || return 1
		sudo="sudo -n"
	fi
	say "installing $1 with apt-get"
	$sudo apt-get install -y -q "$1" >"$WORK/apt-$1.log" 2>&1 ||
		{ $sudo apt-get update -q >/dev/null 2>&1 && $sudo apt-get install -y -q "$1" >"$WORK/apt-$1.log" 2>&1; }
}

if [ -z "${HYPERFINE+set}" ]; then # HYPERFINE= (empty) times with the plain loop
	HYPERFINE=$(command -v hyperfine || true)
	[ -n "$HYPERFINE" ] || { apt_install hyperfine && HYPERFINE=$(command -v hyperfine || true); }
fi
[ -n "$HYPERFINE" ] || say "hyperfine not found: timing with a plain loop instead"
GNUTIME=
if /usr/bin/time -v true >/dev/null 2>&1 || { apt_install time && /usr/bin/time -v true >/dev/null 2>&1; }; then
	GNUTIME=/usr/bin/time
else
	say "GNU time not found: no peak RSS figures"
fi

# --- build --------------------------------------------------------------------

if [ -n "${PERFPT_BIN:-}" ]; then
	PERFPT=$(command -v "$PERFPT_BIN") || { say "PERFPT_BIN=$PERFPT_BIN is not an executable"; exit 1; }
else
	say "building bin/perfpt"
	if ! $GO build -tags urfave_cli_no_docs -o "$PERFPT" ./cmd/perfpt; then
		say "FAILED to build bin/perfpt"
		exit 1
	fi
fi

# --- measuring ----------------------------------------------------------------

# check NAME CMD: run CMD once (output discarded) under GNU time. On success
# prints nothing and sets RSS_KB and WALL; on failure says why and returns 1.
check() {
	local name=$1 cmd=$2 rc
	RSS_KB= WALL=
	if [ -n "$GNUTIME" ]; then
		$GNUTIME -v -o "$WORK/time.txt" sh -c "$cmd" >/dev/null 2>"$WORK/stderr.txt"
		rc=$?
		RSS_KB=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$WORK/time.txt")
		WALL=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$WORK/time.txt")
	else
		sh -c "$cmd" >/dev/null 2>"$WORK/stderr.txt"
		rc=$?
	fi
	if [ "$rc" != 0 ]; then
		line "  FAILED  $name (exit $rc): $(grep -v '^$' "$WORK/stderr.txt" | head -n 3 | tr '\n' ' ' | cut -c1-200)"
		line "          command: $cmd"
		return 1
	fi
	return 0
}

# loop_time NAME CMD: mean and stddev wall seconds without hyperfine.
loop_time() {
	local i t0 t1 times=
	for ((i = 0; i < WARMUP; i++)); do sh -c "$2" >/dev/null 2>&1; done
	for ((i = 0; i < RUNS; i++)); do
		t0=$(date +%s.%N)
		sh -c "$2" >/dev/null 2>&1
		t1=$(date +%s.%N)
		times="$times $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.6f", b-a}')"
	done
	printf '%s\n' $times | awk -v n="$1" '{s+=$1; q+=$1*$1; c++}
		END {m=s/c; v=q/c-m*m; if (v<0) v=0; printf "%s,%.6f,%.6f,\n", n, m, sqrt(v)}'
}

# compare TITLE WORK_AMOUNT UNIT NAME1 CMD1 [NAME2 CMD2 ...]
# Times every command that works; the first working one is the baseline of the
# ratios. WORK_AMOUNT (in UNIT per run, e.g. MB or insn) gives a throughput
# column when it is not empty.
compare() {
	local title=$1 amount=$2 unit=$3
	shift 3
	line ""
	line "== $title"
	local names=() cmds=() rss=() args=() n
	while [ $# -ge 2 ]; do
		if check "$1" "$2"; then
			names+=("$1")
			cmds+=("$2")
			rss+=("${RSS_KB:-?}")
		fi
		shift 2
	done
	if [ ${#names[@]} -eq 0 ]; then
		line "  nothing to time"
		return
	fi
	local csv=$WORK/result.csv
	if [ -n "$HYPERFINE" ]; then
		# hyperfine's CSV quotes names with commas: name the commands by index
		for n in "${!names[@]}"; do args+=(-n "c$n" "${cmds[$n]}"); done
		if ! "$HYPERFINE" --warmup "$WARMUP" --runs "$RUNS" --style basic \
			--export-csv "$csv" "${args[@]}" >"$WORK/hyperfine.txt" 2>&1; then
			line "  FAILED  hyperfine: $(tail -n 2 "$WORK/hyperfine.txt" | tr '\n' ' ')"
			return
		fi
		# keep name,mean,stddev,user+system
		awk -F, 'NR>1 {print $1","$2","$3","$5+$6}' "$csv" >"$csv.3"
	else
		for n in "${!names[@]}"; do loop_time "c$n" "${cmds[$n]}"; done >"$csv.3"
	fi
	local i base= name mean sd
	while IFS=, read -r name mean sd cpu; do
		[ -n "$base" ] || base=$mean
		i=${name#c}
		awk -v name="${names[$i]}" -v m="$mean" -v sd="$sd" -v b="$base" -v amt="$amount" \
			-v unit="$unit" -v rss="${rss[$i]}" -v first="$i" -v cpu="$cpu" 'BEGIN {
			tp = ""
			if (amt != "" && m > 0) {
				r = amt / m
				if (r >= 1e9) tp = sprintf("%.2f G%s/s", r/1e9, unit)
				else if (r >= 1e6) tp = sprintf("%.2f M%s/s", r/1e6, unit)
				else tp = sprintf("%.1f %s/s", r, unit)
				if (unit == "MB") tp = sprintf("%.1f MB/s", r)
			}
			ratio = (first == 0) ? "baseline" : sprintf("%.2fx faster", b / m)
			if (first != 0 && m > b) ratio = sprintf("%.2fx slower", m / b)
			mem = (rss == "?") ? "?" : sprintf("%.1f MiB", rss / 1024)
			cpu = (cpu == "") ? "     ?" : sprintf("%6.2f", cpu)
			printf "  %-44s %8.3f s ± %6.3f  (cpu %s s)  %16s  %-14s  peak RSS %s\n", name, m, sd, cpu, tp, ratio, mem
		}' | tee -a "$SUMMARY"
	done <"$csv.3"
	for n in "${!cmds[@]}"; do line "  cmd: ${names[$n]}: ${cmds[$n]}"; done
}

mb() { awk -v s="$(stat -c %s "$1")" 'BEGIN{printf "%.3f", s/1e6}'; }

# --- inputs -------------------------------------------------------------------

# A large raw PT stream and the code image it runs on, from scripts/ptgen
# (synthetic branchy code, return compression, PSB+ every 4 KiB, MTC timing).
# ptgen MB: generate (or reuse) $WORK/gen-<MB>m.{pt,bin,info,data,elf}.
ptgen() {
	local g=$WORK/gen-${1}m
	if [ "${BENCH_REGEN:-0}" != 1 ] && [ -s "$g.pt" ] && [ -s "$g.bin" ] && [ -s "$g.info" ] && [ -s "$g.data" ] &&
		[ "$g.info" -nt scripts/ptgen/trace.go ] && [ "$g.info" -nt scripts/ptgen/program.go ]; then
		return 0
	fi
	if [ ! -f scripts/ptgen/main.go ]; then
		skip "no PT generator (scripts/ptgen) in this tree"
		return 1
	fi
	say "generating ${1} MiB of PT with scripts/ptgen"
	if ! $GO run ./scripts/ptgen -mb "$1" -base "$RAWADDR" -pt "$g.pt" -bin "$g.bin" -data "$g.data" >"$g.info" 2>"$WORK/ptgen.err"; then
		say "FAILED scripts/ptgen: $(head -n 3 "$WORK/ptgen.err" | tr '\n' ' ')"
		rm -f "$g.pt" "$g.bin" "$g.info" "$g.data"
		return 1
	fi
}

# The raw PT stream and code image for ptdump and ptxed.
PT=$WORK/gen-${PT_MB}m.pt
BIN=$WORK/gen-${PT_MB}m.bin
INFO=$WORK/gen-${PT_MB}m.info
gen_pt() {
	if [ -n "${BENCH_PT:-}" ]; then
		PT=$BENCH_PT BIN=${BENCH_BIN:-} INFO=/dev/null
		[ -s "$PT" ] || { skip "BENCH_PT=$PT does not exist"; return 1; }
		return 0
	fi
	ptgen "$PT_MB"
}
# info KEY [FILE]: a fact printed by ptgen
info() { awk -F= -v k="$1" '$1 == k {print $2}' "${2:-$INFO}" 2>/dev/null; }

# A perf.data of the bench program recorded with `perfpt record --emulate`.
PROG=$WORK/branchy
REC=${BENCH_PERF_DATA:-$WORK/branchy-$ITERS.data}
gen_rec() {
	if [ -n "${BENCH_PERF_DATA:-}" ]; then
		[ -s "$REC" ] || { skip "BENCH_PERF_DATA=$REC does not exist"; return 1; }
		return 0
	fi
	if [ "${BENCH_REGEN:-0}" != 1 ] && [ -s "$REC" ] && [ "$REC" -nt "$PROG" ] && [ "$REC" -nt scripts/bench/branchy.c ]; then
		return 0
	fi
	local cc=${CC:-cc}
	command -v "$cc" >/dev/null 2>&1 || cc=gcc
	if ! command -v "$cc" >/dev/null 2>&1; then
		skip "no C compiler to build the recorded program (set BENCH_PERF_DATA)"
		return 1
	fi
	# -O0 -g: what gcov compares against; the binary stays where perf looks for it.
	if ! "$cc" -g -O0 -o "$PROG" scripts/bench/branchy.c 2>"$WORK/cc.err"; then
		say "FAILED to build scripts/bench/branchy.c: $(head -n 3 "$WORK/cc.err" | tr '\n' ' ')"
		return 1
	fi
	say "recording $PROG $ITERS with perfpt record --emulate --timing mtc (TSC+MTC, as perf records intel_pt//u)"
	rm -f "$REC"
	if ! "$PERFPT" record --emulate --timing mtc -o "$REC" -- "$PROG" "$ITERS" >/dev/null 2>"$WORK/record.err"; then
		say "FAILED perfpt record --emulate: $(grep -v '^$' "$WORK/record.err" | head -n 3 | tr '\n' ' ')"
		rm -f "$REC"
		return 1
	fi
}

# same_output DATA OPTS: check that perfpt script -j 2 prints what perf script prints.
same_output() {
	"$PERF_REF" script -i "$1" $2 2>/dev/null | cksum >"$WORK/perf.sum"
	"$PERFPT" script -j 2 -i "$1" $2 2>/dev/null | cksum >"$WORK/perfpt.sum"
	if cmp -s "$WORK/perf.sum" "$WORK/perfpt.sum"; then
		line "  check: perfpt script -j 2 prints exactly what perf script prints"
	else
		line "  check: MISMATCH between perf script and perfpt script -j 2 output"
	fi
}

# --- comparisons ----------------------------------------------------------------

line "perfpt bench $(date -u '+%Y-%m-%d %H:%M UTC') on $(uname -m), $(nproc 2>/dev/null || echo '?') CPUs;" \
	"$WARMUP warmup + $RUNS runs per command; output to /dev/null"
rev=$(git rev-parse --short HEAD 2>/dev/null) && { git diff --quiet HEAD -- . 2>/dev/null || rev="$rev+dirty"; }
line "perfpt ${rev:-(no git)} ($PERFPT); inputs in $WORK"

PTDUMP_REF=$(tool PTDUMP ptdump)
PTXED_REF=$(tool PTXED ptxed)
PERF_REF=$(tool PERF perf)

if want ptdump || want ptxed; then
	gen_pt || PT=
fi
if want ptdump; then
	if [ -z "$PT" ]; then
		skip "ptdump: no PT input"
	else
		size=$(mb "$PT")
		[ -n "$PTDUMP_REF" ] || skip "ptdump: libipt ptdump not found (set PTDUMP or put ptdump on PATH); timing perfpt alone"
		set --
		[ -n "$PTDUMP_REF" ] && set -- "libipt ptdump --quiet" "$PTDUMP_REF --quiet $PT"
		compare "ptdump --quiet: packet loop, $size MB PT ($PT)" "$size" MB "$@" \
			"perfpt ptdump --quiet" "$PERFPT ptdump --quiet $PT"
		set --
		[ -n "$PTDUMP_REF" ] && set -- "libipt ptdump" "$PTDUMP_REF $PT"
		compare "ptdump: full text, $size MB PT" "$size" MB "$@" \
			"perfpt ptdump" "$PERFPT ptdump $PT"
	fi
fi

if want ptxed; then
	if [ -z "$PT" ] || [ -z "$BIN" ]; then
		skip "ptxed: no PT input with its code image"
	else
		insns=$(info insns)
		image="--raw $BIN:$RAWADDR --pt $PT"
		[ -n "$PTXED_REF" ] || skip "ptxed: libipt ptxed not found (set PTXED or put ptxed on PATH); timing perfpt alone"
		set --
		[ -n "$PTXED_REF" ] && set -- "libipt ptxed --block-decoder --quiet" "$PTXED_REF --block-decoder --quiet $image"
		compare "ptxed: ${insns:-?} instructions, $(mb "$PT") MB PT, $(mb "$BIN") MB code" "$insns" insn "$@" \
			"perfpt ptxed --block-decoder --quiet -j 1" "$PERFPT ptxed -j 1 --block-decoder --quiet $image" \
			"perfpt ptxed --block-decoder --quiet -j 2" "$PERFPT ptxed -j 2 --block-decoder --quiet $image"
		# the instruction count must be the generator's (and libipt's)
		if [ -n "$insns" ]; then
			got=$("$PERFPT" ptxed -j 2 --block-decoder --quiet --stat $image 2>/dev/null | awk '/^insn:/ {print $2+0}')
			if [ "$got" = "$insns" ]; then
				line "  check: perfpt ptxed -j 2 --stat counts $got instructions, as generated"
			else
				line "  check: MISMATCH perfpt ptxed -j 2 --stat counts '${got:-nothing}', generated $insns"
			fi
		fi
	fi
fi

# The large generated recording: perfpt's throughput and peak RSS at scale
# (perf script would take minutes; BENCH_PERF_BIG=1 times it too).
if want bigscript; then
	GEN=$WORK/gen-${BIG_MB}m
	if ! ptgen "$BIG_MB"; then
		skip "bigscript: no generated perf.data"
	else
		insns=$(info insns "$GEN.info")
		opts="--itrace=i0ns -F ip,sym"
		set --
		if [ "${BENCH_PERF_BIG:-0}" = 1 ] && [ -n "$PERF_REF" ]; then
			set -- "perf script $opts" "$PERF_REF script -i $GEN.data $opts"
		else
			skip "bigscript: perf script not timed on the large recording (set BENCH_PERF_BIG=1)"
		fi
		compare "script, large generated recording: ${insns:-?} instructions, $(mb "$GEN.data") MB perf.data ($GEN.data)" "$insns" insn "$@" \
			"perfpt script $opts -j 1" "$PERFPT script -j 1 -i $GEN.data $opts" \
			"perfpt script $opts -j 2" "$PERFPT script -j 2 -i $GEN.data $opts"
		[ "${BENCH_PERF_BIG:-0}" = 1 ] && [ -n "$PERF_REF" ] && same_output "$GEN.data" "$opts"
	fi
fi

if want script || want pprof; then
	gen_rec || REC=
fi

if want script; then
	if [ -z "$REC" ]; then
		skip "script: no recording"
	else
		opts="--itrace=i0ns -F ip,sym"
		[ -n "$PERF_REF" ] || skip "script: perf not found (set PERF or put perf on PATH); timing perfpt alone"
		set --
		[ -n "$PERF_REF" ] && set -- "perf script $opts" "$PERF_REF script -i $REC $opts"
		compare "script: $(mb "$REC") MB perf.data ($REC)" "" "" "$@" \
			"perfpt script $opts -j 1" "$PERFPT script -j 1 -i $REC $opts" \
			"perfpt script $opts -j 2" "$PERFPT script -j 2 -i $REC $opts"
		[ -n "$PERF_REF" ] && same_output "$REC" "$opts"
	fi
fi

if want pprof; then
	if [ -z "$REC" ]; then
		skip "pprof/gcov: no recording"
	else
		mkdir -p "$WORK/gcov"
		compare "pprof and gcov against a bare decode (one worker each): $(mb "$REC") MB perf.data" "" "" \
			"bare decode (perfpt $BARE -j 1)" "$PERFPT $BARE -j 1 -i $REC" \
			"perfpt pprof -j 1" "$PERFPT pprof -j 1 -i $REC -o $WORK/bench.pb.gz" \
			"perfpt gcov -j 1" "$PERFPT gcov -j 1 -i $REC -o $WORK/gcov"
	fi
	# decode-dominated: the large generated recording (no DWARF, so no gcov)
	GEN=$WORK/gen-${BIG_MB}m
	if ptgen "$BIG_MB"; then
		compare "pprof against a bare decode (one worker each, then pprof's default -j): $(info insns "$GEN.info") instructions, $(mb "$GEN.data") MB generated perf.data" "" "" \
			"bare decode (perfpt $BARE -j 1)" "$PERFPT $BARE -j 1 -i $GEN.data" \
			"perfpt pprof -j 1" "$PERFPT pprof -j 1 -i $GEN.data -o $WORK/bench-gen.pb.gz" \
			"perfpt pprof" "$PERFPT pprof -i $GEN.data -o $WORK/bench-gen.pb.gz"
	fi
fi

# --- the benchmark set ------------------------------------------------------

# set_gen NAME ARG: build scripts/bench/progs/NAME.{c,cpp} static and trace it
# under qemu-user into $SET/NAME.{pt,data,info} (cached).
SET=$WORK/benchset
SET_INSNS=${BENCH_SET_INSNS:-120000000}
set_gen() {
	local name=$1 arg=$2 src cc
	mkdir -p "$SET"
	if [ "${BENCH_REGEN:-0}" != 1 ] && [ -s "$SET/$name.info" ] && [ -s "$SET/$name.pt" ] && [ -s "$SET/$name.data" ] &&
		grep -q "^max=$SET_INSNS\$" "$SET/$name.info"; then
		return 0
	fi
	src=scripts/bench/progs/$name.c cc=${CC:-gcc}
	[ -f "$src" ] || { src=scripts/bench/progs/$name.cpp cc=${CXX:-g++}; }
	if [ ! -f "$src" ] || ! command -v "$cc" >/dev/null 2>&1; then
		skip "benchset $name: no $src or no $cc"
		return 1
	fi
	if ! "$cc" -O2 -g -static -no-pie -o "$SET/$name" "$src" 2>"$WORK/cc.err"; then
		skip "benchset $name: $cc -static failed: $(head -n 2 "$WORK/cc.err" | tr '\n' ' ')"
		return 1
	fi
	say "tracing $name $arg under qemu-user ($SET_INSNS instructions; minutes)"
	if ! (cd "$SET" && "$QEMUFLOW" -o "$name" -max-insns "$SET_INSNS" -- "./$name" $arg) >"$WORK/qemuflow.err" 2>&1; then
		say "FAILED scripts/qemuflow $name: $(tail -n 3 "$WORK/qemuflow.err" | tr '\n' ' ')"
		rm -f "$SET/$name.info"
		return 1
	fi
	echo "max=$SET_INSNS" >>"$SET/$name.info"
}

# rounds TITLE INSNS NAME1 CMD1 ...: every command once per round, the
# rounds interleaved (the machine is shared: a burst of load hits every
# command alike); median and range of wall time, median CPU time, peak RSS,
# and each ratio to the first command (libipt when there) and to the one
# named "perf script --itrace=e".
rounds() {
	local title=$1 insns=$2 nr=${BENCH_SET_ROUNDS:-3}
	shift 2
	local names=() cmds=() r i
	while [ $# -ge 2 ]; do
		names+=("$1")
		cmds+=("$2")
		shift 2
	done
	line ""
	line "== $title"
	local res=$WORK/rounds.txt
	: >"$res"
	for ((r = 0; r < nr; r++)); do
		for i in "${!cmds[@]}"; do
			if [ -n "$GNUTIME" ]; then
				$GNUTIME -f "$i %e %U %S %M" -o "$WORK/t1.txt" sh -c "${cmds[$i]}" >/dev/null 2>"$WORK/stderr.txt" ||
					echo "$i FAIL" >"$WORK/t1.txt"
				cat "$WORK/t1.txt" >>"$res"
			else
				local t0 t1
				t0=$(date +%s.%N)
				sh -c "${cmds[$i]}" >/dev/null 2>&1 || t0=FAIL
				t1=$(date +%s.%N)
				awk -v i="$i" -v a="$t0" -v b="$t1" 'BEGIN{ if (a == "FAIL") print i, "FAIL"; else print i, b-a, 0, 0, 0 }' >>"$res"
			fi
		done
	done
	local perfidx=-1
	for i in "${!names[@]}"; do [ "${names[$i]}" = "perf script --itrace=e" ] && perfidx=$i; done
	awk -v n="${#cmds[@]}" -v insns="$insns" -v perfidx="$perfidx" -v names="$(printf '%s\n' "${names[@]}")" '
	function median(a, k,   t, i, j) { for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return (k % 2) ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2 }
	BEGIN { split(names, nm, "\n"); for (k in nm) idx[nm[k]] = k - 1 }
	$2 == "FAIL" { fail[$1] = 1; next }
	{ c = ++cnt[$1]; w[$1, c] = $2; cpu[$1, c] = $3 + $4; if ($5 > rss[$1]) rss[$1] = $5 }
	END {
		for (i = 0; i < n; i++) {
			if (fail[i] || !cnt[i]) { med[i] = -1; continue }
			k = cnt[i]; lo = hi = w[i, 1]
			for (j = 1; j <= k; j++) { x[j] = w[i, j]; y[j] = cpu[i, j]; if (w[i, j] < lo) lo = w[i, j]; if (w[i, j] > hi) hi = w[i, j] }
			med[i] = median(x, k); mcpu[i] = median(y, k); mlo[i] = lo; mhi[i] = hi
		}
		for (i = 0; i < n; i++) {
			if (med[i] < 0) { printf "  %-40s FAILED (see %s)\n", nm[i + 1], "the command below"; continue }
			tp = (insns > 0 && med[i] > 0) ? sprintf("%7.1f M insn/s", insns / med[i] / 1e6) : ""
			r0 = (i > 0 && med[0] > 0 && med[i] > 0) ? sprintf("%5.2fx libipt", med[0] / med[i]) : ""
			if (i == 0) r0 = "baseline"
			rp = (perfidx >= 0 && i != perfidx && med[perfidx] > 0 && med[i] > 0) ? sprintf("%6.2fx perf", med[perfidx] / med[i]) : ""
			rc = (i > 0 && mcpu[0] > 0 && mcpu[i] > 0) ? sprintf("cpu %5.2fx", mcpu[0] / mcpu[i]) : ""
			# a -j 2 command: its speed-up over the same command at -j 1
			# (wall time; and its CPU time over that of -j 1, the cost of
			# the parallel decode: on a loaded machine the wall ratio
			# says little, the CPU ratio bounds what 2 idle cores give)
			rj = ""
			j1 = nm[i + 1]; sub(/-j 2$/, "-j 1", j1)
			if (j1 != nm[i + 1] && (j1 in idx) && med[idx[j1]] > 0 && med[i] > 0 && mcpu[idx[j1]] > 0)
				rj = sprintf(" -j2/-j1: %.2fx wall, cpu %.2fx", med[idx[j1]] / med[i], mcpu[i] / mcpu[idx[j1]])
			printf "  %-40s %7.3f s [%7.3f-%7.3f] cpu %7.3f s  %16s  %-14s %-12s %-11s RSS %6.1f MiB%s\n", nm[i + 1], med[i], mlo[i], mhi[i], mcpu[i], tp, r0, rp, rc, rss[i] / 1024, rj
		}
	}' "$res" | tee -a "$SUMMARY"
	for i in "${!cmds[@]}"; do line "  cmd: ${names[$i]}: ${cmds[$i]}"; done
}

if want benchset; then
	QEMUFLOW=$WORK/qemuflow
	if ! command -v qemu-x86_64 >/dev/null 2>&1; then
		skip "benchset: qemu-x86_64 not installed (Debian package qemu-user)"
	elif ! $GO build -o "$QEMUFLOW" ./scripts/qemuflow; then
		say "FAILED to build scripts/qemuflow"
	else
		[ -n "$PTXED_REF" ] || skip "benchset: libipt ptxed not found (set PTXED): no libipt ratios"
		[ -n "$PERF_REF" ] || skip "benchset: perf not found (set PERF): no perf ratios"
		for spec in ${BENCH_SET_SPECS:-interp:400000 compress:32768 sort:4000000 virt:2000000 recurse:60}; do
			name=${spec%%:*} arg=${spec#*:}
			case " ${BENCH_SET:-interp compress sort virt recurse} " in *" $name "*) ;; *) continue ;; esac
			set_gen "$name" "$arg" || continue
			insns=$(info insns "$SET/$name.info")
			pt=$SET/$name.pt data=$SET/$name.data bin=$SET/$name
			mkdir -p "$SET/gcov-$name"
			set --
			[ -n "$PTXED_REF" ] && set -- "libipt ptxed --block-decoder --quiet" "$PTXED_REF --block-decoder --quiet --elf $bin --pt $pt"
			[ -n "$PERF_REF" ] && set -- "$@" "perf script --itrace=e" "$PERF_REF script -i $data --itrace=e"
			rounds "benchset $name: $insns instructions, $(mb "$pt") MB PT ($data)" "$insns" "$@" \
				"perfpt ptxed --block-decoder -j 1" "$PERFPT ptxed -j 1 --block-decoder --quiet --elf $bin --pt $pt" \
				"perfpt ptxed --block-decoder -j 2" "$PERFPT ptxed -j 2 --block-decoder --quiet --elf $bin --pt $pt" \
				"perfpt script --itrace=e -j 1" "$PERFPT script -j 1 --itrace=e -i $data" \
				"perfpt script --itrace=e -j 2" "$PERFPT script -j 2 --itrace=e -i $data" \
				"perfpt pprof -j 1" "$PERFPT pprof -j 1 -i $data -o $SET/$name.pb.gz" \
				"perfpt pprof -j 2" "$PERFPT pprof -j 2 -i $data -o $SET/$name.pb.gz" \
				"perfpt gcov -j 1" "$PERFPT gcov -j 1 -i $data -o $SET/gcov-$name" \
				"perfpt gcov -j 2" "$PERFPT gcov -j 2 -i $data -o $SET/gcov-$name"
			got=$("$PERFPT" ptxed -j 1 --block-decoder --quiet --stat --elf "$bin" --pt "$pt" 2>/dev/null | awk '/^insn:/ {print $2+0}')
			ref=
			[ -n "$PTXED_REF" ] && ref=$("$PTXED_REF" --block-decoder --quiet --stat --elf "$bin" --pt "$pt" 2>/dev/null | awk '/^insn:/ {print $2+0}')
			if [ "$got" = "$insns" ] && { [ -z "$ref" ] || [ "$ref" = "$insns" ]; }; then
				line "  check: perfpt ptxed --stat counts $got instructions${ref:+, as libipt does}, as traced"
			else
				line "  check: MISMATCH instructions: traced $insns, perfpt ptxed ${got:-?}, libipt ${ref:-?}"
			fi
		done
	fi
fi

line ""
say "summary in $SUMMARY"
exit 0
