package timeline

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfpt/perfpt/perfdata"
	"github.com/perfpt/perfpt/record"
	"github.com/perfpt/perfpt/record/testprog"
)

// TestTriggerSnapshot records with a trigger (record.EmulateTrigger, what
// perfpt record --emulate --trigger does): the recording ends at the N-th
// call of the function, each AUX stream holds at most the snapshot's size,
// and the timeline of it reads back well formed, its last call being the
// trigger's function entered N times (at most: the snapshot may begin in
// the middle).
func TestTriggerSnapshot(t *testing.T) {
	if testing.Short() {
		t.Skip("records programs")
	}
	need(t, "gcc", "make")
	for _, tc := range []struct {
		prog, spec string
		keep       int
		opt        record.Options
	}{
		{"mix-dyn-O2", "table:30", 2048, perThread},   // PIE, dynamic
		{"mix-static-O0", "table:5", 1 << 20, perCPU}, // static: the whole trace up to it
		{"threads-static-O2", "worker:2", 4096, perCPU},
	} {
		t.Run(tc.prog+"/"+tc.spec, func(t *testing.T) {
			prog := testprog.Path(t, tc.prog)
			if _, err := record.FindTrigger("no_such_function", prog); err == nil || !strings.Contains(err.Error(), "no function no_such_function") {
				t.Fatalf("a missing symbol: %v", err)
			}
			trig, err := record.FindTrigger(tc.spec, prog)
			if err != nil {
				t.Fatal(err)
			}
			opt := tc.opt
			opt.Output = filepath.Join(t.TempDir(), "trig.data")
			opt.BuildIDDir = filepath.Join(t.TempDir(), "debug")
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			if _, err := record.EmulateTrigger(ctx, []string{prog}, opt, trig, tc.keep); err != nil {
				testprog.EmulateFailed(t, prog, err)
			}
			f, err := perfdata.Open(opt.Output)
			if err != nil {
				t.Fatal(err)
			}
			per := map[[2]int32]uint64{}
			rs := f.Records(perfdata.FileOrder)
			for rs.Next() {
				if r, ok := rs.Record.(*perfdata.RecordAuxtrace); ok {
					per[[2]int32{r.CPU, r.TID}] += r.AuxSize
				}
			}
			f.Close()
			for s, n := range per {
				if n > uint64(tc.keep) {
					t.Errorf("AUX stream %v holds %d bytes, more than the snapshot's %d", s, n, tc.keep)
				}
			}
			out, _ := convertFile(t, opt.Output, FormatFXT, Options{Workers: 1})
			evs, _ := readChecked(t, out)
			fn := strings.Split(tc.spec, ":")[0]
			calls, lastCall := 0, ""
			for _, e := range evs {
				if e.Phase == 'B' && e.Cat == "call" {
					lastCall = e.Name
					if e.Name == fn {
						calls++
					}
				}
			}
			if calls == 0 || calls > trig.N {
				t.Errorf("%d calls of %s in the snapshot, want 1 to %d", calls, fn, trig.N)
			}
			if tc.prog != "threads-static-O2" && lastCall != fn {
				t.Errorf("the last call is %s, want the trigger's %s", lastCall, fn)
			}
		})
	}
	t.Run("not hit", func(t *testing.T) {
		prog := testprog.Path(t, "tiny")
		trig, err := record.FindTrigger("_start:2", prog)
		if err != nil {
			t.Fatal(err)
		}
		opt := perThread
		opt.Output = filepath.Join(t.TempDir(), "trig.data")
		opt.BuildIDDir = "-"
		_, err = record.EmulateTrigger(context.Background(), []string{prog}, opt, trig, 4096)
		if !errors.Is(err, record.ErrTriggerNotHit) {
			t.Fatalf("_start:2: %v, want ErrTriggerNotHit", err)
		}
	})
}
