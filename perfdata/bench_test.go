package perfdata

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// The benchmarks read a file of about 40,000 records (3.5 MB) built from
// the cpu-clock -g recording: its records repeated 200 times with times
// shifted, and a FINISHED_ROUND every 500 records as perf writes them.
var (
	benchOnce sync.Once
	benchPath string
	benchErr  error
)

func benchData(b *testing.B) string {
	benchOnce.Do(func() {
		dir, err := mkdirTemp()
		if err != nil {
			benchErr = err
			return
		}
		benchPath = filepath.Join(dir, "bench.data")
		f, err := Open("../testdata/perf/cpu-clock-g.data")
		if err != nil {
			benchErr = err
			return
		}
		defer f.Close()
		recs := readAll(b, f)
		w, err := Create(benchPath)
		if err != nil {
			benchErr = err
			return
		}
		for _, a := range f.Attrs {
			w.AddAttr(a.EventAttr, a.IDs, a.Name)
		}
		n := 0
		for rep := uint64(0); rep < 200; rep++ {
			for _, r := range recs {
				switch r.(type) {
				case *RecordFinishedRound, *RecordFinishedInit, *RecordIDIndex, *RecordThreadMap, *RecordCPUMap, *RecordEventUpdate:
					continue
				}
				c := r.Common()
				if c.Time != 0 {
					c.Time += rep * 100_000_000
				}
				if s, ok := r.(*RecordSample); ok {
					s.Time = c.Time
				}
				if err := w.WriteRecord(r); err != nil {
					benchErr = err
					return
				}
				if c.Time != 0 {
					c.Time -= rep * 100_000_000
				}
				if n++; n%500 == 0 {
					w.WriteRecord(&RecordFinishedRound{})
				}
			}
		}
		benchErr = w.Close()
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchPath
}

func mallocs() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.Mallocs
}

func benchRecords(b *testing.B, order Order, reuse bool) {
	f, err := Open(benchData(b))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	b.SetBytes(f.Data.Size)
	b.ReportAllocs()
	records := 0
	m0 := mallocs()
	for b.Loop() {
		rs := f.Records(order)
		rs.Reuse = reuse
		for rs.Next() {
			records++
		}
		if err := rs.Err(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(mallocs()-m0)/float64(records), "allocs/record")
	b.ReportMetric(float64(records)/float64(b.N), "records/op")
}

// BenchmarkRecords decodes every record in file order, a new value each.
func BenchmarkRecords(b *testing.B) { benchRecords(b, FileOrder, false) }

// BenchmarkRecordsReuse decodes into reused values (Records.Reuse).
func BenchmarkRecordsReuse(b *testing.B) { benchRecords(b, FileOrder, true) }

// BenchmarkRecordsTimeOrder adds perf's ordered-events queue.
func BenchmarkRecordsTimeOrder(b *testing.B) { benchRecords(b, TimeOrder, true) }

// BenchmarkReadIntoSamples is the allocation-free hot loop: raw records
// and DecodeSample into one reused RecordSample.
func BenchmarkReadIntoSamples(b *testing.B) {
	f, err := Open(benchData(b))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	b.SetBytes(f.Data.Size)
	b.ReportAllocs()
	var raw RawRecord
	var s RecordSample
	records := 0
	m0 := mallocs()
	for b.Loop() {
		rs := f.Records(FileOrder)
		for {
			err := rs.ReadInto(&raw)
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			records++
			if raw.Type == RecordTypeSample {
				if err := f.DecodeSample(&raw, &s); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	b.ReportMetric(float64(mallocs()-m0)/float64(records), "allocs/record")
}

func mkdirTemp() (string, error) {
	dir, err := os.MkdirTemp("", "perfdata-bench")
	benchDir = dir
	return dir, err
}

// benchDir is removed by TestMain.
var benchDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}
