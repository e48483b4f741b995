package pprof

import (
	"bytes"
	"testing"

	"github.com/google/pprof/profile"
)

// TestWriteRoundTrip: what Write writes, profile.Parse reads back whole.
func TestWriteRoundTrip(t *testing.T) {
	bin := buildShared(t, "recurse")
	data := writeLBRData(t, bin, 3, []lbrBranch{{"main", "fib", false}})
	p, err := Convert(data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, p); err != nil {
		t.Fatal(err)
	}
	q, err := profile.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.CheckValid(); err != nil {
		t.Fatal(err)
	}
	if len(q.Sample) != len(p.Sample) || len(q.Location) != len(p.Location) || len(q.SampleType) != len(p.SampleType) {
		t.Errorf("read back %d samples, %d locations, %d types; wrote %d, %d, %d",
			len(q.Sample), len(q.Location), len(q.SampleType), len(p.Sample), len(p.Location), len(p.SampleType))
	}
	for i := range p.Sample {
		for j, v := range p.Sample[i].Value {
			if q.Sample[i].Value[j] != v {
				t.Fatalf("sample %d value %d: read %d, wrote %d", i, j, q.Sample[i].Value[j], v)
			}
		}
	}
}
