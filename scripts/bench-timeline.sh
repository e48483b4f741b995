#!/usr/bin/env bash
# bench-timeline.sh: what perfpt timeline costs, in interleaved rounds (the
# machine is shared: each round runs every command once, and the medians
# and the spread of the rounds are reported).
#
#   1. a timeline of a generated recording of about 200 M instructions
#      (scripts/ptgen) against a bare decode of it (perfpt script
#      --itrace=e: everything decoded, nothing printed), with one worker
#      and with two (the timeline with --itrace=e, whose decode can run in
#      parallel chunks);
#   2. the file size per million calls, in both formats;
#   3. the peak RSS of a timeline of 4, 64 and 256 MiB of PT.
#
# Environment: BENCH_DIR (default ${TMPDIR:-/tmp}/perfpt-bench-timeline),
# ROUNDS (default 3), PERFPT (default: build bin/perfpt).
set -u
cd "$(dirname "$0")/.." || exit 1
DIR=${BENCH_DIR:-${TMPDIR:-/tmp}/perfpt-bench-timeline}
ROUNDS=${ROUNDS:-3}
mkdir -p "$DIR"
PERFPT=${PERFPT:-}
if [ -z "$PERFPT" ]; then
	go build -o bin/perfpt ./cmd/perfpt || exit 1
	PERFPT=$PWD/bin/perfpt
fi
gen() { # gen MB: $DIR/g<MB>.data
	[ -f "$DIR/g$1.data" ] && return 0
	go run ./scripts/ptgen -mb "$1" -pt "$DIR/g$1.pt" -bin "$DIR/g$1.bin" -data "$DIR/g$1.data" >"$DIR/g$1.info" && rm -f "$DIR/g$1.pt"
}
# run NAME CMD...: one timed run; appends "NAME cpu_seconds maxrss_kb
# elapsed" to $DIR/times. The ratios are of CPU time (user+system): on a
# shared machine the elapsed time says more about the neighbours.
run() {
	local name=$1
	shift
	/usr/bin/time -f "$name %U %S %M %e" -a -o "$DIR/times.raw" "$@" >/dev/null 2>>"$DIR/stderr" || echo "FAILED $name" >&2
	tail -1 "$DIR/times.raw" | awk '{printf "%s %.2f %s %s\n", $1, $2+$3, $4, $5}' >>"$DIR/times"
}
stats() { # stats NAME: median and spread (min..max) of the seconds of NAME
	awk -v n="$1" '$1==n{print $2}' "$DIR/times" | sort -n | awk '{a[NR]=$1} END{if(NR==0){print "-";exit} m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.2f s (%.2f..%.2f, %d runs)", m, a[1], a[NR], NR}'
}
median() { awk -v n="$1" '$1==n{print $2}' "$DIR/times" | sort -n | awk '{a[NR]=$1} END{m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; print m}'; }
rss() { awk -v n="$1" '$1==n{print $3}' "$DIR/times" | sort -n | tail -1; }

gen 18.4 || exit 1
IN=$DIR/g18.4.data
: >"$DIR/times"
: >"$DIR/times.raw"
for r in $(seq "$ROUNDS"); do
	run bare-j1 "$PERFPT" script -j 1 --itrace=e -i "$IN"
	run fxt-j1 "$PERFPT" timeline -j 1 -i "$IN" -o "$DIR/t.fxt"
	run json-j1 "$PERFPT" timeline -j 1 -i "$IN" -o "$DIR/t.json"
	run bare-j2 "$PERFPT" script -j 2 --itrace=e -i "$IN"
	run fxt-j2 "$PERFPT" timeline -j 2 --itrace=e -i "$IN" -o "$DIR/t2.fxt"
done
calls=$("$PERFPT" timeline -j 1 -i "$IN" -o "$DIR/t.fxt" 2>&1 | sed -n 's/.* \([0-9]*\) slices.*/\1/p')
insns=$(sed -n 's/^insns=//p' "$DIR/g18.4.info")
echo "== timeline of $insns instructions ($calls slices) against a bare decode, $ROUNDS interleaved rounds, CPU time (user+system)"
for j in j1 j2; do
	echo "bare decode (script --itrace=e, -$j): $(stats bare-$j)"
	for f in fxt json; do
		grep -q "^$f-$j " "$DIR/times" || continue
		ratio=$(awk -v a="$(median $f-$j)" -v b="$(median bare-$j)" 'BEGIN{printf "%.2f", a/b}')
		echo "timeline .$f (-$j): $(stats $f-$j): ${ratio}x the bare decode"
	done
done
"$PERFPT" timeline -j 1 -i "$IN" -o "$DIR/t.json" 2>/dev/null
for f in t.fxt t.json; do
	sz=$(stat -c %s "$DIR/$f")
	echo "$f: $sz bytes, $(awk -v s="$sz" -v c="$calls" 'BEGIN{printf "%.1f MB per million calls", s/c}')"
done
gzip -1 -c "$DIR/t.fxt" | wc -c | awk -v c="$calls" '{printf "t.fxt.gz (gzip -1): %.1f MB per million calls\n", $1/c}'
echo "== peak RSS of a timeline (.fxt) by size of PT"
for mb in 4 64 256; do
	gen $mb || continue
	run rss-$mb "$PERFPT" timeline -j 1 -i "$DIR/g$mb.data" -o "$DIR/r.fxt"
	echo "$(du -m "$DIR/g$mb.data" | cut -f1) MB perf.data ($(sed -n 's/^insns=//p' "$DIR/g$mb.info") instructions): peak RSS $(rss rss-$mb) KB, $(stats rss-$mb)"
done
rm -f "$DIR/t.fxt" "$DIR/t.json" "$DIR/t2.fxt" "$DIR/r.fxt"
