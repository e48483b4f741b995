package session

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfpt/perfpt/convert/ptagg"
	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/perfdata"
	"github.com/perfpt/perfpt/record"
	"github.com/perfpt/perfpt/record/synth"
)

// withBulk runs f with the edge-graph path on or off.
func withBulk(on bool, f func()) {
	defer func(old bool) { bulkOff = old }(bulkOff)
	bulkOff = !on
	f()
}

// sameWithBulk decodes data as pprof and gcov do (decodeRuns: every run,
// successor, flag, time and cycle count, and the errors between them) with
// the edge-graph path and without it, at each number of workers, and
// fails where they differ.
func sameWithBulk(t *testing.T, data string, workers ...int) {
	t.Helper()
	for _, j := range workers {
		for _, lean := range []bool{false, true} {
			var want, got []byte
			var walked uint64
			withBulk(false, func() { want, _ = decodeRunsBulk(t, data, j, lean) })
			withBulk(true, func() { got, walked = decodeRunsBulk(t, data, j, lean) })
			if walked == 0 && j == 1 {
				t.Logf("%s: the edge-graph path walked nothing", filepath.Base(data))
			}
			bulkWalked += walked
			if !bytes.Equal(got, want) {
				t.Fatalf("%s -j %d lean %v: the edge-graph path differs%s", filepath.Base(data), j, lean, firstDiff(got, want))
			}
		}
	}
}

// TestBulkSameRuns checks that the edge-graph path (bulk.go) delivers
// exactly the runs and errors of the step-by-step walk, on the PT
// recordings of testdata and on the test programs recorded with every
// timing and return-compression setting, per thread and per CPU, whole and
// damaged.
func TestBulkSameRuns(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "*", "*.data"))
	for _, f := range files {
		if !hasAux(t, f) {
			continue
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			sameWithBulk(t, f, 1, 2)
			sameFolded(t, f)
		})
	}
	cfgs := []struct {
		name string
		wo   record.WriteOptions
	}{
		{"untimed", record.WriteOptions{PT: synth.Config{PSBPeriod: 512}}},
		{"noretcomp", record.WriteOptions{PT: synth.Config{NoRetComp: true}}},
		{"tsc", record.WriteOptions{PT: synth.Config{TSC: true}}},
		{"mtc", record.WriteOptions{PT: synth.Config{TSC: true, MTC: true, MTCPeriod: 3}}},
		{"cyc", record.WriteOptions{PT: synth.Config{TSC: true, MTC: true, CYC: true}}},
		{"percpu", record.WriteOptions{PT: synth.Config{TSC: true, MTC: true}, PerCPU: true}},
		{"cpus", record.WriteOptions{PT: synth.Config{TSC: true, MTC: true}, PerCPU: true, CPUs: 3, Quantum: 40}},
	}
	defer func() { t.Logf("%d instructions walked in bulk", bulkWalked) }()
	foldWalked = 0
	recorded := false // a recording subtest ran (they skip under -short or without gcc)
	defer func() {
		if t.Failed() || !recorded {
			return
		}
		t.Logf("%d instructions folded in foldConds' loop", foldWalked)
		if foldWalked == 0 {
			t.Error("the edge-graph walk's loop of conditional branches (foldConds) folded nothing: the comparisons did not test it")
		}
	}()
	for _, prog := range []string{"mix-dyn-O2", "mix-static-O0", "threads-dyn-O2"} {
		for _, c := range cfgs {
			t.Run(prog+"/"+c.name, func(t *testing.T) {
				data := recordPTOpt(t, prog, c.wo)
				recorded = true
				sameWithBulk(t, data, 1, 2)
				sameFolded(t, data)
				bad := corruptAux(t, data, 0x55, 8, 0.4)
				sameWithBulk(t, bad, 1)
				sameFolded(t, bad)
				bad = corruptAux(t, data, 0x00, 3, 0.7)
				sameWithBulk(t, bad, 1)
				sameFolded(t, bad)
			})
		}
	}
}

// bulkWalked adds up the instructions walked in bulk by sameWithBulk.
var bulkWalked uint64

// decodeRunsBulk is decodeRuns, returning the instructions walked in bulk.
func decodeRunsBulk(t *testing.T, data string, workers int, lean bool) ([]byte, uint64) {
	t.Helper()
	s := openItrace(t, data, "e", Options{Workers: workers})
	var out bytes.Buffer
	h := Handler{
		LeanRuns: lean,
		Error:    func(e *sample.ErrorLine) { printError(&out, e) },
		Runs:     runsText(&out),
	}
	n := runBulk(t, s, h) // (before out is read)
	return out.Bytes(), n
}

// runBulk runs s with h and returns the instructions walked in bulk.
func runBulk(t *testing.T, s *Session, h Handler) uint64 {
	t.Helper()
	if err := s.Run(h); err != nil {
		t.Fatal(err)
	}
	if s.pt == nil {
		return 0
	}
	return s.pt.bulkInsns.Load()
}

// runsText is a Handler.Runs that prints every run as decodeRuns does.
func runsText(out *bytes.Buffer) func(*RunBatch) {
	return func(b *RunBatch) {
		tm := b.Time
		for _, r := range b.Runs {
			var cyc uint64
			if r.Mark != 0 {
				tm, cyc = b.Marks[r.Mark-1].Time, b.Marks[r.Mark-1].Cycles
			}
			fmt.Fprintf(out, "%d/%d %d %d %x-%x %d %#x %x %d\n", b.PID, b.TID, b.CPU, tm, r.Start, r.End, r.NInsn, r.Flags, r.To, cyc)
		}
	}
}

// hasAux reports whether the recording f has AUX data (Intel PT).
func hasAux(t *testing.T, f string) bool {
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Contains(b, []byte("intel_pt"))
}

// FuzzBulkSameRuns compares the edge-graph path with the step-by-step walk
// on damaged PT: the fuzzer's bytes overwrite the AUX data of a testdata
// recording at a chosen place (a random or mutated stream where it lands),
// and the runs and errors of both walks, as pprof and gcov get them (one
// worker, full and lean runs), must be the same, and so must pprof's
// aggregation whether the decoder counts the blocks it walks itself or
// Agg.Runs takes every run (edge.go).
func FuzzBulkSameRuns(f *testing.F) {
	root := filepath.Join("..", "..", "testdata")
	seeds := []struct{ file, symfs string }{
		{"example/primes.perf.data", "example/symfs"},
		{"ptwtsx/ptw-cyc.perf.data", "ptwtsx/symfs"},
		{"ptwtsx/tsx.perf.data", "ptwtsx/symfs"},
	}
	type recording struct {
		data  []byte
		spans [][2]int64 // AUX data: offset, size
		symfs string
	}
	var recs []recording
	for _, s := range seeds {
		path := filepath.Join(root, s.file)
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		pf, err := perfdata.Open(path)
		if err != nil {
			f.Fatal(err)
		}
		var spans [][2]int64
		rs := pf.Records(perfdata.FileOrder)
		for rs.Next() {
			if r, ok := rs.Record.(*perfdata.RecordAuxtrace); ok && r.AuxSize > 0 {
				spans = append(spans, [2]int64{r.DataOffset, int64(r.AuxSize)})
			}
		}
		pf.Close()
		if len(spans) == 0 {
			f.Fatalf("%s: no AUX data", s.file)
		}
		recs = append(recs, recording{b, spans, filepath.Join(root, s.symfs)})
	}
	for i := range recs {
		f.Add(uint8(i), uint32(0), []byte{})
		f.Add(uint8(i), uint32(3000), []byte{0x55, 0x55})
		f.Add(uint8(i), uint32(9000), []byte{0x99, 0x02, 0xff, 0x00, 0x4d})
	}
	f.Fuzz(func(t *testing.T, which uint8, at uint32, patch []byte) {
		rec := recs[int(which)%len(recs)]
		b := bytes.Clone(rec.data)
		sp := rec.spans[int(at)%len(rec.spans)]
		off := sp[0] + int64(at)%sp[1]
		for i, c := range patch {
			if int64(i) >= sp[0]+sp[1]-off {
				break
			}
			b[off+int64(i)] = c
		}
		path := filepath.Join(t.TempDir(), "fuzz.data")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, lean := range []bool{false, true} {
			var want, got []byte
			var walked uint64
			withBulk(false, func() { want, _ = fuzzRuns(t, path, rec.symfs, lean) })
			withBulk(true, func() { got, walked = fuzzRuns(t, path, rec.symfs, lean) })
			if !bytes.Equal(got, want) {
				t.Fatalf("lean %v: the edge-graph path differs%s", lean, firstDiff(got, want))
			}
			if len(patch) == 0 && which == 0 && walked == 0 {
				t.Fatal("the edge-graph path walked nothing of the undamaged example")
			}
		}
		// pprof's aggregation: counted by the decoder (edge.go) and by
		// Agg.Runs; and in parallel chunks of 300 bytes, by each chunk
		// into its own Agg merged in order (ptagg's Merge).
		var want, got []byte
		withAgg(false, func() { want = fuzzAgg(t, path, rec.symfs, 1) })
		withAgg(true, func() { got = fuzzAgg(t, path, rec.symfs, 1) })
		if !bytes.Equal(got, want) {
			t.Fatalf("the counts of the decoder differ from Agg.Runs'%s", firstDiff(got, want))
		}
		defer func(n, m int) { chunkBytes, aggChunkBytes = n, m }(chunkBytes, aggChunkBytes)
		chunkBytes, aggChunkBytes = 300, 300
		withAgg(true, func() { got = fuzzAgg(t, path, rec.symfs, 2) })
		if !bytes.Equal(got, want) {
			t.Fatalf("-j 2: the counts of the chunks differ from Agg.Runs'%s", firstDiff(got, want))
		}
	})
}

// fuzzRuns is decodeRunsBulk's text of a recording whose code is in symfs;
// a recording the session refuses gives its error.
func fuzzRuns(t *testing.T, path, symfs string, lean bool) ([]byte, uint64) {
	it, err := sample.ParseItrace("e")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(path, Options{Itrace: it, BuildIDDir: "-", Symfs: symfs, Kallsyms: "/dev/null", Workers: 1})
	if err != nil {
		return []byte(err.Error()), 0
	}
	defer s.Close()
	var out bytes.Buffer
	h := Handler{
		LeanRuns: lean,
		Error:    func(e *sample.ErrorLine) { printError(&out, e) },
		Runs:     runsText(&out),
	}
	if err := s.Run(h); err != nil {
		fmt.Fprintf(&out, "error: %v\n", err)
	}
	var n uint64
	if s.pt != nil {
		n = s.pt.bulkInsns.Load()
	}
	return out.Bytes(), n
}

// fuzzAgg is aggText of a recording whose code is in symfs; a recording
// the session refuses gives its error.
func fuzzAgg(t *testing.T, path, symfs string, workers int) []byte {
	it, err := sample.ParseItrace("e")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(path, Options{Itrace: it, BuildIDDir: "-", Symfs: symfs, Kallsyms: "/dev/null", Workers: workers})
	if err != nil {
		return []byte(err.Error())
	}
	defer s.Close()
	b, _ := aggText(t, s, ptagg.Options{})
	return b
}

// TestBareParallel checks that the bare decode (--itrace=e: every error,
// nothing else), which now decodes in chunks on several workers, prints
// what one worker prints, on whole and damaged recordings, and that chunks
// were taken.
func TestBareParallel(t *testing.T) {
	defer func(n int) { chunkBytes = n }(chunkBytes)
	chunkBytes = 300
	taken := 0
	for _, c := range parCases {
		t.Run(c.name, func(t *testing.T) {
			data := recordPT(t, c.prog, c.pt)
			for _, d := range []string{data, corruptAux(t, data, 0x55, 8, 0.4), corruptAux(t, data, 0x02, 5, 0.6)} {
				want, _ := bareErrors(t, d, 1)
				for _, j := range []int{2, 4} {
					got, st := bareErrors(t, d, j)
					if !bytes.Equal(got, want) {
						t.Fatalf("--itrace=e -j %d differs from -j 1%s", j, firstDiff(got, want))
					}
					taken += st[0]
				}
			}
		})
	}
	if taken == 0 && !testing.Short() {
		t.Error("no chunk was decoded in parallel")
	}
}

// bareErrors is the bare decode's output (the errors) at workers, and the
// chunk statistics.
func bareErrors(t *testing.T, data string, workers int) ([]byte, [2]int) {
	t.Helper()
	s := openItrace(t, data, "e", Options{Workers: workers})
	var out bytes.Buffer
	h := Handler{Sample: func(*sample.Sample) { t.Fatal("a sample from --itrace=e") },
		Error: func(e *sample.ErrorLine) { printError(&out, e) }}
	if !s.ParallelDecode(h) && workers > 1 {
		t.Fatalf("--itrace=e -j %d: not decoded in parallel", workers)
	}
	if err := s.Run(h); err != nil {
		t.Fatal(err)
	}
	var st [2]int
	if s.pt != nil {
		st = s.pt.parStats
	}
	return out.Bytes(), st
}

// TestBulkSameEvents checks that the events a timeline asks for besides
// the flow (--itrace=ewxp: errors, ptwrite, transactions, psb, cbr and
// power events), which no longer keep the edge-graph path off, come
// exactly as from the step-by-step walk, in the same places among the
// runs (Handler.RunStarts, as the timeline reads them): on the PT
// recordings of testdata (ptwtsx's PTWRITE and TSX ones among them) and
// on test programs recorded with MTC, CYC and per CPU, whole and damaged.
func TestBulkSameEvents(t *testing.T) {
	kinds := map[string]int{}
	same := func(t *testing.T, data, symfs string, workers ...int) {
		t.Helper()
		for _, j := range workers {
			var want, got []byte
			var walked uint64
			withBulk(false, func() { want, _ = decodeEvents(t, data, symfs, j) })
			withBulk(true, func() { got, walked = decodeEvents(t, data, symfs, j) })
			bulkWalked += walked
			if !bytes.Equal(got, want) {
				t.Fatalf("%s -j %d: the edge-graph path differs%s", filepath.Base(data), j, firstDiff(got, want))
			}
			for _, k := range []string{"ptwrite", "transactions", "psb", "cbr"} {
				kinds[k] += bytes.Count(got, []byte("sample "+k+" "))
			}
		}
	}
	defer func() {
		t.Logf("samples compared: %v", kinds)
		for k, n := range kinds {
			if n == 0 {
				t.Errorf("no %s sample was compared", k)
			}
		}
	}()
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "*", "*.data"))
	for _, f := range files {
		if !hasAux(t, f) {
			continue
		}
		symfs := filepath.Join(filepath.Dir(f), "symfs")
		if _, err := os.Stat(symfs); err != nil {
			symfs = ""
		}
		t.Run(filepath.Base(f), func(t *testing.T) { same(t, f, symfs, 1, 2) })
	}
	cfgs := timingConfigs
	bulkWalked = 0
	recorded := false // a recording subtest ran (they skip under -short or without gcc)
	for _, prog := range []string{"mix-dyn-O2", "threads-dyn-O2"} {
		for _, c := range cfgs {
			t.Run(prog+"/"+c.name, func(t *testing.T) {
				data := recordPTOpt(t, prog, c.wo)
				recorded = true
				same(t, data, "", 1, 2)
				same(t, corruptAux(t, data, 0x55, 8, 0.4), "", 1)
				same(t, corruptAux(t, data, 0x00, 3, 0.7), "", 1)
			})
		}
	}
	if recorded && bulkWalked == 0 {
		t.Error("the edge-graph path walked nothing with --itrace=ewxp")
	}
}

// decodeEvents decodes data with --itrace=ewxp as the timeline does
// (runs with their trace starts, errors and the synthesised samples in
// the order they come) and returns them as text, with the instructions
// walked in bulk.
func decodeEvents(t *testing.T, data, symfs string, workers int) ([]byte, uint64) {
	t.Helper()
	s := openItrace(t, data, "ewxp", Options{Workers: workers, Symfs: symfs})
	var out bytes.Buffer
	h := Handler{
		RunStarts: true,
		Error:     func(e *sample.ErrorLine) { printError(&out, e) },
		Runs:      runsText(&out),
		Sample: func(smp *sample.Sample) {
			name := ""
			if smp.Ev != nil {
				name = smp.Ev.Name
			}
			fmt.Fprintf(&out, "sample %s %d/%d %d %d %x %x %#x %+v\n", name, smp.PID, smp.TID, smp.CPU, smp.Time,
				smp.IP, smp.Addr, smp.Flags, smp.Synth)
		},
	}
	n := runBulk(t, s, h) // (before out is read)
	return out.Bytes(), n
}
