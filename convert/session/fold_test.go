package session

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/perfpt/perfpt/convert/sample"
)

// foldRun is a run as decodeFolded collects it: its thread, time and
// cycles; or an error line.
type foldRun struct {
	pid, tid, cpu int32
	tm, cyc       uint64
	r             Run
	err           string
}

// decodeFolded decodes data with the workers given and Handler.FoldRuns
// (or not) and returns its runs and errors as they came (raw) and folded as
// foldRuns does.
func decodeFolded(t *testing.T, data string, workers int, fold bool) (raw, folded []byte) {
	t.Helper()
	s := openItrace(t, data, "e", Options{Workers: workers})
	var rs []foldRun
	h := Handler{
		FoldRuns: fold,
		Error: func(e *sample.ErrorLine) {
			var b bytes.Buffer
			printError(&b, e)
			rs = append(rs, foldRun{tid: e.TID, err: b.String()})
		},
		Runs: func(b *RunBatch) {
			tm := b.Time
			for _, r := range b.Runs {
				var cyc uint64
				if r.Mark != 0 {
					tm, cyc = b.Marks[r.Mark-1].Time, b.Marks[r.Mark-1].Cycles
				}
				rs = append(rs, foldRun{pid: b.PID, tid: b.TID, cpu: b.CPU, tm: tm, cyc: cyc, r: r})
			}
		},
	}
	runBulk(t, s, h)
	lastFolded = 0
	for _, q := range s.pt.queues {
		lastFolded += q.rq.folded
	}
	return foldRuns(rs, false), foldRuns(rs, true)
}

// lastFolded is what the edge-graph walk's loop of conditional branches
// folded in decodeFolded's last decode (-j 1: the queues' own decoders);
// foldWalked adds it up over sameFolded's decodes with the edge-graph
// path at -j 1 (TestBulkSameRuns checks that the loop was tested).
var lastFolded, foldWalked uint64

// foldRuns folds (with fold) every run without cycles and with the same
// time into the run before it in its thread when that one ended in a
// conditional branch, as far as Handler.FoldRuns allows, and prints the
// runs as runsText does, thread by thread (fewer runs fill the batches
// later: the threads' batches may come in another order).
func foldRuns(rs []foldRun, fold bool) []byte {
	byTID := map[int32][]foldRun{}
	var tids []int32
	for _, x := range rs {
		th, ok := byTID[x.tid]
		if !ok {
			tids = append(tids, x.tid)
		}
		if n := len(th); fold && n > 0 && x.err == "" && x.cyc == 0 {
			// Not across a time change: a run without a mark that
			// starts a batch has the batch's time, not its
			// predecessor's.
			if l := &th[n-1]; l.err == "" && l.pid == x.pid && l.cpu == x.cpu && l.tm == x.tm &&
				uint32(l.r.Flags&^RunTaken) == sample.FlagBranch|sample.FlagConditional {
				l.r.End, l.r.NInsn, l.r.Flags, l.r.To = x.r.End, l.r.NInsn+x.r.NInsn, x.r.Flags, x.r.To
				continue
			}
		}
		byTID[x.tid] = append(th, x)
	}
	slices.Sort(tids)
	var out bytes.Buffer
	for _, tid := range tids {
		for _, x := range byTID[tid] {
			if x.err != "" {
				out.WriteString(x.err)
				continue
			}
			r := x.r
			fmt.Fprintf(&out, "%d/%d %d %d %x-%x %d %#x %x %d\n", x.pid, x.tid, x.cpu, x.tm, r.Start, r.End, r.NInsn, r.Flags, r.To, x.cyc)
		}
	}
	return out.Bytes()
}

// sameFolded checks that the runs Handler.FoldRuns gets are those
// without it folded wherever no time mark (a new time, cycles) falls
// between a run that ends in a conditional branch and the next (-j 1),
// and that they are the same whichever walk made them, -j 1, 2 and 4 (the
// same chunks at 2 and 4): where the edge-graph walk stops depends on the
// code the other workers have put in the shared code cache, the folds
// must not.
func sameFolded(t *testing.T, data string) {
	t.Helper()
	var want, got, raw, raw2 []byte
	withBulk(false, func() { _, want = decodeFolded(t, data, 1, false) })
	withBulk(false, func() { raw, got = decodeFolded(t, data, 1, true) })
	if !bytes.Equal(got, want) {
		t.Fatalf("%s: the runs folded cross a mark%s", filepath.Base(data), firstDiff(got, want))
	}
	withBulk(true, func() { raw2, _ = decodeFolded(t, data, 1, true) })
	foldWalked += lastFolded
	if !bytes.Equal(raw2, raw) {
		t.Fatalf("%s: the runs folded by the edge-graph walk differ%s", filepath.Base(data), firstDiff(raw2, raw))
	}
	withBulk(false, func() { raw, _ = decodeFolded(t, data, 2, true) })
	for _, j := range []int{2, 4} {
		withBulk(true, func() { raw2, _ = decodeFolded(t, data, j, true) })
		if !bytes.Equal(raw2, raw) {
			t.Fatalf("%s -j %d: the runs folded by the edge-graph walk differ%s", filepath.Base(data), j, firstDiff(raw2, raw))
		}
	}
}
