package gcov

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfpt/perfpt/convert/session"
	"github.com/perfpt/perfpt/perfdata"
)

// FuzzRecording computes coverage from damaged PT recordings of the
// PTWRITE/TSX test program (built -g), on one worker and two, and writes
// it in every format: errors are fine, panics are not.
func FuzzRecording(f *testing.F) {
	root := filepath.Join("..", "..", "testdata", "ptwtsx")
	for _, name := range []string{"ptw-cyc.perf.data", "ptw-fup.perf.data", "rtmroll.perf.data", "tsx.perf.data"} {
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, false)
	}
	symfs := filepath.Join(root, "symfs")
	const kallsyms = "/dev/null"
	f.Fuzz(func(t *testing.T, data []byte, two bool) {
		pf, err := perfdata.NewBytes(data)
		if err != nil {
			return
		}
		workers := 1
		if two {
			workers = 2
		}
		s, err := session.New(pf, session.Options{Symfs: symfs, Kallsyms: kallsyms, Workers: workers, Itrace: BareItrace()})
		if err != nil {
			return
		}
		defer s.Close()
		a := NewAggregator(s.Machine())
		a.Symfs = symfs
		if err := s.Run(session.Handler{Runs: a.Runs, LeanRuns: true}); err != nil {
			return
		}
		rep := a.Report()
		for _, fl := range rep.Files {
			if err := rep.WriteText(io.Discard, fl, nil, TextOptions{}); err != nil {
				t.Fatal(err)
			}
			rep.WriteSummary(io.Discard, fl, SummaryOptions{Functions: true, Branches: true, Demangle: true})
		}
		var buf bytes.Buffer
		if err := rep.WriteLCOV(&buf, "fuzz"); err != nil {
			t.Fatal(err)
		}
		if err := rep.WriteJSON(&buf, JSONOptions{}); err != nil {
			t.Fatal(err)
		}
	})
}
