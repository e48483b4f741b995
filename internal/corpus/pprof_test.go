package corpus

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/perfpt/perfpt/internal/pprofcheck"
	"github.com/perfpt/perfpt/perfdata"
)

// TestCorpusPprofNames checks on every recording below $PERFPT_CORPUS
// that perfpt pprof names the samples as perf does: per thread, the
// multiset of leaf functions of the profile at function granularity (the
// function of each sample's first location, "[unknown]" without one)
// equals the symbols perf script -F tid,ip,sym -G prints for the samples
// (what perf report's self column counts). Recordings perf cannot read
// (a newer ABI: its older-ABI copy; a pipe it cannot read by name: on
// its standard input) are handled as in TestCorpus; those perf fails on
// are left out. PT recordings are left out (their profiles count
// instructions, not samples). It fails on any difference, a perfpt
// crash or a failure where perf printed.
func TestCorpusPprofNames(t *testing.T) {
	dir, files := corpusFiles(t)
	bin := buildPerfpt(t)
	c := &comparer{bin: bin, perfVersion: perfVersion(), cache: os.Getenv("PERFPT_CORPUS_CACHE"),
		tmp: t.TempDir(), mode: "pprof-names"}
	opts := []string{"-F", "tid,ip,sym", "-G"}
	same, left := 0, 0
	for _, f := range files {
		path := filepath.Join(dir, f)
		want := c.perf(path, "", opts)
		in := path
		switch {
		case want.status != 0 && bytes.Contains(want.stderr, []byte("incompatible file format")) && newerABI(path):
			cp, err := olderABICopy(path, c.tmp)
			if err != nil {
				t.Errorf("%s: cannot make an older-ABI copy: %v", f, err)
				continue
			}
			defer os.Remove(cp)
			in, want = cp, c.perf(cp, "", opts)
		case bytes.Contains(want.stderr, []byte("bad event header size")) && isPipe(path):
			want = c.perfStdin(path, "", opts)
		}
		if want.status != 0 || bytes.Contains(want.stdout, []byte("instruction trace error")) || isPTRecording(in) {
			left++
			continue
		}
		out := filepath.Join(c.tmp, "profile.pb.gz")
		r := execRun(bin, "pprof", "-i", in, "-o", out, "--granularity", "function")
		if r.status != 0 {
			t.Errorf("%s: perfpt pprof failed (status %d): %s", f, r.status, firstLine(r.stderr))
			continue
		}
		diffs, err := pprofNameDiffs(out, want.stdout)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if len(diffs) > 0 {
			if len(diffs) > 10 {
				diffs = append(diffs[:10], "...")
			}
			t.Errorf("%s: samples per thread and function differ:\n%s", f, strings.Join(diffs, "\n"))
			continue
		}
		same++
	}
	t.Logf("%d of %d recordings name every sample as perf does (%d left out: perf fails or PT)", same, len(files)-left, left)
}

// pprofNameDiffs compares the profile at path with perf script -F
// tid,ip,sym -G's output.
func pprofNameDiffs(path string, perfOut []byte) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		return nil, err
	}
	return pprofcheck.LeafDiffs(p, perfOut), nil
}

func perfVersion() string {
	v, _ := exec.Command("perf", "version").Output()
	return strings.TrimSpace(string(v))
}

// isPTRecording reports whether the recording at path has AUX area
// tracing (an AUXTRACE_INFO record).
func isPTRecording(path string) bool {
	f, err := perfdata.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	rs := f.Records(perfdata.FileOrder)
	for rs.Next() {
		if _, ok := rs.Record.(*perfdata.RecordAuxtraceInfo); ok {
			return true
		}
	}
	return false
}
