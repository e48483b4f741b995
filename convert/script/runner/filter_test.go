package runner

import (
	"bufio"
	"bytes"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/record"
	"github.com/perfpt/perfpt/record/synth"
	"github.com/perfpt/perfpt/record/testprog"
)

// TestPTFilters compares --tid, --pid and --time on a timed recording of a
// threaded program.
func TestPTFilters(t *testing.T) {
	if testing.Short() {
		t.Skip("records programs")
	}
	need(t, "perf", "gcc", "make")
	opt := record.Options{WriteOptions: record.WriteOptions{PT: synth.Config{TSC: true}}}
	data := recordPT(t, testprog.Path(t, "threads-static-O2"), opt)
	out, err := exec.Command("perf", "script", "-i", data, "--itrace=b", "-F", "pid,tid,time", "--ns").Output()
	if err != nil {
		t.Fatal(err)
	}
	// The second thread seen, and a time in the middle.
	var pid, tid string
	var times []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 {
			continue
		}
		pt := strings.SplitN(f[0], "/", 2)
		if len(pt) == 2 && pt[0] != pt[1] && tid == "" {
			pid, tid = pt[0], pt[1]
		}
		times = append(times, strings.TrimSuffix(f[len(f)-1], ":"))
	}
	if tid == "" || len(times) < 10 {
		t.Fatalf("the recording of threads-static-O2 shows no second thread (%d lines)", len(times))
	}
	mid := times[len(times)/2]
	if _, err := strconv.ParseFloat(mid, 64); err != nil {
		t.Fatalf("time %q", mid)
	}
	compare(t, data, "--tid="+tid)
	compare(t, data, "--pid="+pid, "--itrace=b", "-F", "+flags,+addr")
	compare(t, data, "--time="+mid+",", "--ns")
	compare(t, data, "--time="+mid+","+times[len(times)*3/4], "--itrace=b", "-F", "+flags,+addr", "--ns")
	compare(t, data, "--time=,"+mid, "--itrace=i0ns", "-F", "tid,time,ip,sym", "--ns")
	// Several ranges: the decoder fast-forwards to each start
	// (intel_pt_next_time).
	distinct := slices.Compact(slices.Clone(times))
	tm := func(f float64) string { return distinct[int(f*float64(len(distinct)))] }
	compare(t, data, "--time="+tm(.1)+","+tm(.2)+" "+tm(.5)+","+tm(.6)+" "+tm(.8)+",", "--itrace=b", "-F", "+flags,+addr", "--ns")
	compare(t, data, "--time=,"+tm(.3)+" "+tm(.7)+","+tm(.9), "--itrace=i0ns", "-F", "tid,time,ip,sym", "--ns")
}
