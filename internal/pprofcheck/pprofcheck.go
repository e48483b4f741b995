// Package pprofcheck compares the samples of a pprof profile with perf's
// view of the same recording, for the tests that check perfpt pprof's
// names against perf.
package pprofcheck

import (
	"fmt"
	"sort"
	"strings"

	"github.com/google/pprof/profile"
)

// LeafDiffs compares, per thread, the multiset of leaf functions of p (a
// profile at function granularity: the function of each sample's first
// location, "[unknown]" without one, weighted by its *_sample values)
// with the symbols of perf script -F tid,ip,sym -G's output perfOut (what
// perf report's self column counts). It returns the differences, sorted,
// one line each ("TID SYM: perf N, pprof M"); none when they agree. The
// profile format drops a numeric label of 0 (no unit): a sample without a
// tid label is the idle task's.
func LeafDiffs(p *profile.Profile, perfOut []byte) []string {
	want := map[string]int64{}
	for _, ln := range strings.Split(strings.TrimRight(string(perfOut), "\n"), "\n") {
		fs := strings.Fields(ln)
		if len(fs) < 2 {
			continue
		}
		sym := "[unknown]"
		if len(fs) > 2 {
			sym = strings.Join(fs[2:], " ")
		}
		want[fs[0]+" "+sym]++
	}
	got := map[string]int64{}
	for _, s := range p.Sample {
		sym := "[unknown]"
		if len(s.Location) > 0 && len(s.Location[0].Line) > 0 {
			l := s.Location[0].Line
			sym = strings.Join(strings.Fields(l[len(l)-1].Function.Name), " ")
		}
		var n int64
		for i, st := range p.SampleType {
			if strings.HasSuffix(st.Type, "_sample") {
				n += s.Value[i]
			}
		}
		tid := int64(0)
		if l := s.NumLabel["tid"]; len(l) > 0 {
			tid = l[0]
		}
		got[fmt.Sprintf("%d %s", tid, sym)] += n
	}
	var diffs []string
	for k, n := range want {
		if got[k] != n {
			diffs = append(diffs, fmt.Sprintf("%s: perf %d, pprof %d", k, n, got[k]))
		}
	}
	for k, n := range got {
		if _, ok := want[k]; !ok && n != 0 {
			diffs = append(diffs, fmt.Sprintf("%s: perf 0, pprof %d", k, n))
		}
	}
	sort.Strings(diffs)
	return diffs
}
