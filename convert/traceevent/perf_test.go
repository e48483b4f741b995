package traceevent

import (
	"bytes"
	"os"
	"os/exec"
	"testing"

	"github.com/perfpt/perfpt/convert/symbol"
	"github.com/perfpt/perfpt/perfdata"
	"github.com/perfpt/perfpt/perfdata/tracing"
)

// traceLines prints the trace field of every tracepoint sample of a
// recording, one line each.
func traceLines(t testing.TB, path string) ([]byte, map[string]bool) {
	f, err := perfdata.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var td *tracing.Data
	if b, ok := f.FeatureData(perfdata.FeatTracingData); ok {
		if td, err = tracing.Parse(b); err != nil {
			t.Fatal(err)
		}
	}
	var out []byte
	seen := map[string]bool{}
	var p *Printer
	rs := f.Records(perfdata.TimeOrder)
	for rs.Next() {
		switch r := rs.Record.(type) {
		case *perfdata.RecordTracingData:
			if td, err = tracing.Parse(r.Data); err != nil {
				t.Fatal(err)
			}
		case *perfdata.RecordSample:
			if r.Attr == nil || r.Attr.Type != 2 || td == nil {
				continue
			}
			if p == nil {
				ks, _ := symbol.LoadKallsyms("/proc/kallsyms")
				p = New(td, Kallsyms{ks})
			}
			fm := td.Event(int(r.Attr.Config))
			if fm == nil {
				t.Fatalf("no format for id %d", r.Attr.Config)
			}
			seen[fm.System+":"+fm.Name] = true
			out = p.Append(out, fm, r.Raw)
			out = append(out, '\n')
		}
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return out, seen
}

func TestCompareFileWithPerf(t *testing.T) {
	path := os.Getenv("PERFPT_TRACE_FILE")
	if path == "" {
		t.Skip("PERFPT_TRACE_FILE not set")
	}
	want, err := exec.Command("perf", "script", "-F", "trace", "-i", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	got, seen := traceLines(t, path)
	gl, wl := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	bad := 0
	for i := 0; i < len(gl) && i < len(wl); i++ {
		if !bytes.Equal(gl[i], wl[i]) {
			bad++
			if bad < 30 {
				t.Errorf("line %d:\n got %q\nwant %q", i+1, gl[i], wl[i])
			}
		}
	}
	t.Logf("%d lines, %d differ, %d/%d lines, %d events", len(gl), bad, len(gl), len(wl), len(seen))
}
