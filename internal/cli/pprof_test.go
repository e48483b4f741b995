package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
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
	for _, args := range [][]string{{"--time", "5,1"}, {"--time", "x,"}, {"--pid", "1;2"}, {"--time", "1.0123456789,"}} {
		stderr.Reset()
		// --time is parsed once the file is open, as perf report does.
		in := "/nonexistent"
		if args[0] == "--time" {
			in = example
		}
		if code := Main(append([]string{"perfpt", "pprof", "-i", in, "-o", filepath.Join(t.TempDir(), "p.pb.gz")}, args...), nil, &stdout, &stderr); code == 0 ||
			!strings.Contains(stderr.String(), args[0][2:]) {
			t.Errorf("pprof %v: exit %d, %q; want a refusal naming %s", args, code, stderr.String(), args[0])
		}
	}
}
