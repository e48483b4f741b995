package pprof

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfpt/perfpt/convert/session"
	"github.com/perfpt/perfpt/perfdata"
)

// FuzzConvert converts damaged recordings, PT and sampled, at every
// granularity, on one worker and on two: a conversion may fail, but a
// profile it returns must pass CheckValid and be written.
func FuzzConvert(f *testing.F) {
	root := filepath.Join("..", "..", "testdata")
	for _, name := range []string{
		"ptwtsx/ptw-cyc.perf.data", "ptwtsx/ptw-fup.perf.data", "ptwtsx/rtmroll.perf.data", "ptwtsx/tsx.perf.data",
		"perf/cpu-clock-g.data", "perf/multi.data", "perf/switch.data", "perf/pipe-z.data",
	} {
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint8(0))
	}
	// The PT seeds' program; no kernel symbols (/proc/kallsyms is slow to
	// read on every run).
	symfs := filepath.Join(root, "ptwtsx", "symfs")
	const kallsyms = "/dev/null"
	grans := []Granularity{Function, Line, Address}
	f.Fuzz(func(t *testing.T, data []byte, opt uint8) {
		o := Options{Granularity: grans[int(opt)%len(grans)], Workers: 1 + int(opt>>2&1), Symfs: symfs}
		pf, err := perfdata.NewBytes(data)
		if err != nil {
			return
		}
		so := o.session()
		so.Kallsyms = kallsyms
		s, err := session.New(pf, so)
		if err != nil {
			return
		}
		defer s.Close()
		convert := FromSamples
		if isPT(s) {
			convert = fromPT
		}
		p, err := convert(s, o)
		if err != nil {
			return
		}
		if err := p.CheckValid(); err != nil {
			t.Fatalf("invalid profile: %v", err)
		}
		if err := Write(io.Discard, p); err != nil {
			t.Fatalf("write: %v", err)
		}
	})
}
