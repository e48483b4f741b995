package timeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/convert/timeline/readback"
)

// TestCuts converts the example with each cut and checks that the
// timeline stays well formed and that the cut holds.
func TestCuts(t *testing.T) {
	r := repo()
	in := filepath.Join(r, "testdata/example/primes.perf.data")
	base := Options{Symfs: filepath.Join(r, "testdata/example/symfs"), Workers: 1}
	// depth is the deepest Begin nesting of a track.
	depth := func(evs []readback.Event) int {
		d, most := map[[2]int64]int{}, 0
		for _, e := range evs {
			k := [2]int64{e.Pid, e.Tid}
			switch e.Phase {
			case 'B':
				d[k]++
				most = max(most, d[k])
			case 'E':
				d[k]--
			}
		}
		return most
	}
	for _, f := range []Format{FormatFXT, FormatJSON} {
		_, full := convertFile(t, in, f, base)
		o := base
		o.MinDuration = 2000
		out, sum := convertFile(t, in, f, o)
		evs, _ := readChecked(t, out)
		open := map[[2]int64][]uint64{}
		for _, e := range evs {
			k := [2]int64{e.Pid, e.Tid}
			switch e.Phase {
			case 'B':
				open[k] = append(open[k], e.Ts)
			case 'E':
				st := open[k][len(open[k])-1]
				open[k] = open[k][:len(open[k])-1]
				if e.Ts-st < 2000 {
					t.Errorf("%s --min-duration 2us: %s lasts %d ns", f, e.Name, e.Ts-st)
				}
			case 'X':
				if e.End-e.Ts < 2000 {
					t.Errorf("%s --min-duration 2us: %s lasts %d ns", f, e.Name, e.End-e.Ts)
				}
			}
		}
		if sum.CutShort == 0 || sum.Slices+sum.CutShort < full.Slices {
			t.Errorf("%s --min-duration: %d slices and %d cut, of %d", f, sum.Slices, sum.CutShort, full.Slices)
		}

		o = base
		o.MaxDepth = 3
		out, sum = convertFile(t, in, f, o)
		evs, _ = readChecked(t, out)
		if dd := depth(evs); dd > 3 || sum.CutDepth == 0 {
			t.Errorf("%s --max-depth 3: depth %d, %d cut", f, dd, sum.CutDepth)
		}

		o = base
		o.TimeFrom, o.TimeTo = 1000000100000, 1000000200000
		out, sum = convertFile(t, in, f, o)
		evs, _ = readChecked(t, out)
		lo, hi := o.TimeFrom-sum.Base, o.TimeTo-sum.Base
		for _, e := range evs {
			end := e.Ts
			if e.Phase == 'X' {
				end = e.End
			}
			if e.Ts < lo || end > hi {
				t.Errorf("%s --time: %c %s at %d-%d, outside [%d, %d]", f, e.Phase, e.Name, e.Ts, end, lo, hi)
				break
			}
		}
		if len(evs) == 0 || sum.CutTime == 0 {
			t.Errorf("%s --time: %d events, %d cut", f, len(evs), sum.CutTime)
		}

		o = base
		o.TIDs = map[int32]bool{1: true}
		out, sum = convertFile(t, in, f, o)
		evs, _ = readChecked(t, out)
		calls := 0
		for _, e := range evs {
			if e.Phase == 'B' && e.Cat == "call" {
				calls++
			}
		}
		if calls != 0 || sum.Slices != 0 || sum.Filtered == 0 {
			t.Errorf("%s --tid 1: %d calls, %d slices, %d runs filtered", f, calls, sum.Slices, sum.Filtered)
		}
	}
}

// TestSampled converts sampled recordings: samples are instants with
// their call stacks, tracepoints instants with their fields, and context
// switches (SWITCH records, or sched_switch samples) state slices.
func TestSampled(t *testing.T) {
	r := repo()
	for _, tc := range []struct {
		file string
		want []string // "phase cat name" or "arg NAME" that must appear
	}{
		{"testdata/perf/cpu-clock-g.data", []string{"i cpu-clock handle_amd", "arg stack"}},
		{"testdata/perf/switch.data", []string{"X  Running", "X  Sleeping", "arg cpu"}},
		{"testdata/tracepoints/sched.data", []string{"i tracepoint sched:sched_switch", "arg prev_comm", "arg next_pid", "X  Running", "X  Runnable"}},
	} {
		in := filepath.Join(r, tc.file)
		if _, err := os.Stat(in); err != nil {
			t.Fatal(err)
		}
		for _, f := range []Format{FormatFXT, FormatJSON} {
			out, sum := convertFile(t, in, f, Options{Workers: 1})
			evs, _ := readChecked(t, out)
			seen := map[string]bool{}
			for _, e := range evs {
				seen[string(e.Phase)+" "+e.Cat+" "+e.Name] = true
				for _, a := range e.Args {
					seen["arg "+a.Name] = true
				}
			}
			for _, w := range tc.want {
				if !seen[w] {
					t.Errorf("%s (%s): no %q in the timeline", tc.file, f, w)
				}
			}
			if sum.Samples == 0 {
				t.Errorf("%s: no samples", tc.file)
			}
			if strings.Contains(tc.file, "cpu-clock") && sum.Instants != sum.Samples {
				t.Errorf("%s: %d instants of %d samples", tc.file, sum.Instants, sum.Samples)
			}
		}
	}
}
