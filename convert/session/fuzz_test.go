package session

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/perfdata"
)

// fuzzSessionSeeds are small recordings of every kind the session reads:
// Intel PT (PTWRITE, TSX, CYC, FUP) and sampled ones (call chains, several
// events, context switches, zstd, pipe mode).
var fuzzSessionSeeds = []string{
	"ptwtsx/ptw-cyc.perf.data", "ptwtsx/ptw-fup.perf.data", "ptwtsx/rtmroll.perf.data", "ptwtsx/tsx.perf.data",
	"perf/compressed.data", "perf/fields.data", "perf/multi.data", "perf/switch.data", "perf/pipe.data", "perf/pipe-z.data",
}

// FuzzSession runs whole sessions on damaged recordings: samples as
// perf script asks for them, then runs as pprof does, on one worker and on
// two. Any error is fine; a panic or a hang is not.
func FuzzSession(f *testing.F) {
	root := filepath.Join("..", "..", "testdata")
	for _, name := range fuzzSessionSeeds {
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	it, err := sample.ParseItrace("ibxwpe")
	if err != nil {
		f.Fatal(err)
	}
	// The PT seeds' program; no kernel symbols (/proc/kallsyms is slow
	// to read on every run).
	symfs := filepath.Join(root, "ptwtsx", "symfs")
	const kallsyms = "/dev/null"
	f.Fuzz(func(t *testing.T, data []byte) {
		// A hang is a crash, whose input the fuzzer keeps: the watchdog
		// prints every goroutine and panics.
		done := make(chan struct{})
		defer close(done)
		go func() {
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				buf := make([]byte, 1<<20)
				os.Stderr.Write(buf[:runtime.Stack(buf, true)])
				panic("FuzzSession: a session ran for 20 s")
			}
		}()
		for _, workers := range []int{1, 2} {
			fuzzSession(data, Options{Workers: workers, Itrace: it, Callchains: true, BuildIDDir: "-", Symfs: symfs, Kallsyms: kallsyms},
				Handler{Sample: func(*sample.Sample) {}, Error: func(*sample.ErrorLine) {}})
			fuzzSession(data, Options{Workers: workers, BuildIDDir: "-", Symfs: symfs, Kallsyms: kallsyms},
				Handler{Runs: func(rb *RunBatch) {
					for i := range rb.Runs {
						if m := rb.Runs[i].Mark; m != 0 && int(m) > len(rb.Marks) {
							t.Fatalf("run %d has mark %d of %d", i, m, len(rb.Marks))
						}
					}
				}})
		}
	})
}

// fuzzSession opens data (file or pipe mode: NewBytes takes both) and runs a session on it,
// ignoring errors.
func fuzzSession(data []byte, o Options, h Handler) {
	pf, err := perfdata.NewBytes(data)
	if err != nil {
		return
	}
	s, err := New(pf, o)
	if err != nil {
		return
	}
	defer s.Close()
	_ = s.Run(h)
}
