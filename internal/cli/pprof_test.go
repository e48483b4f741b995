package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/pprof/profile"
)

func TestPprofCommandPT(t *testing.T) {
	_, data := emulateC(t, "recurse", "10", "2")
	out := filepath.Join(t.TempDir(), "pt.pb.gz")
	var stdout, stderr bytes.Buffer
	code := Main([]string{"perfpt", "pprof", "-i", data, "-o", out, "--granularity", "function"}, nil, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	if p.SampleType[0].Type != "instructions" {
		t.Errorf("sample types %v", p.SampleType)
	}
	var fib int64
	for _, s := range p.Sample {
		if l := s.Location[0].Line; len(l) > 0 && l[0].Function.Name == "fib" {
			fib += s.Value[0]
		}
	}
	if fib == 0 {
		t.Errorf("no instructions in fib")
	}
}

func TestPprofCommandFlags(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"perfpt", "pprof", "--granularity", "bogus"}, nil, &stdout, &stderr); code != 1 {
		t.Errorf("bad granularity: exit %d", code)
	}
	ids, err := parseIDList("1,2, 3")
	if err != nil || len(ids) != 3 || !ids[3] {
		t.Errorf("parseIDList: %v %v", ids, err)
	}
	from, to, err := parseTimeRange("1000.5,1001")
	if err != nil || from != 1000_500_000_000 || to != 1001_000_000_000 {
		t.Errorf("parseTimeRange: %d %d %v", from, to, err)
	}
	if _, _, err := parseTimeRange("x,"); err == nil {
		t.Error("bad time accepted")
	}
}
