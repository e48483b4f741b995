package corpus

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/perfdata"
)

// brstackinsnSets are the perf script command lines compared on the
// recordings with branch stacks.
var brstackinsnSets = [][]string{
	{"-F", "+brstackinsn"},
	{"-F", "+brstackinsnlen,+brstack"},
	{"-F", "ip,brstackinsn,brstackinsnlen"},
}

// TestCorpusBrstackinsn compares perfpt script with perf script on the
// recordings below $PERFPT_CORPUS that have branch stacks (LBR), with
// the programs that came with them as TestCorpusCallchains finds them,
// and fails on any difference: brstackinsn disassembles the code between
// the branches where the binaries are at hand (most of them are not:
// then only what perf prints without them), and refuses recordings
// without an all-branch filter as perf does. The settings of TestCorpus
// apply.
func TestCorpusBrstackinsn(t *testing.T) {
	dir, all := corpusFiles(t)
	var files []string
	symfs := map[string]string{}
	tmp := t.TempDir()
	for _, f := range all {
		path := filepath.Join(dir, f)
		maps, ok := recordingWith(path, func(a *perfdata.Attr) bool {
			return a.SampleType&perfdata.SampleFormatBranchStack != 0
		})
		if !ok {
			continue
		}
		files = append(files, f)
		if s := symfsFor(t, path, maps, filepath.Join(tmp, "symfs", f)); s != "" {
			symfs[path] = s
		}
	}
	if len(files) == 0 {
		t.Skipf("no recordings with branch stacks in %s", dir)
	}
	home := filepath.Join(tmp, "home")
	buildIDCache(t, dir, filepath.Join(home, ".debug", ".build-id"))
	t.Setenv("HOME", home)
	t.Setenv("PERF_BUILDID_DIR", "")
	bin := buildPerfpt(t)
	version, _ := exec.Command("perf", "version").Output()
	c := &comparer{bin: bin, perfVersion: strings.TrimSpace(string(version)),
		cache: os.Getenv("PERFPT_CORPUS_CACHE"), out: os.Getenv("PERFPT_CORPUS_OUT"), tmp: t.TempDir(),
		symfs: symfs, mode: "brstackinsn"}
	same := 0
	for _, f := range files {
		for _, opts := range brstackinsnSets {
			r := c.compare(dir, f, opts)
			switch {
			case r.fatal != "":
				t.Errorf("%s %s: %s", f, optString(opts), r.fatal)
			case r.cause != "":
				t.Errorf("%s %s: %s%s", f, optString(opts), r.cause, r.example)
			default:
				same++
			}
		}
	}
	t.Logf("%d recordings with branch stacks, %d with a --symfs folder: %d of %d runs identical",
		len(files), len(symfs), same, len(files)*len(brstackinsnSets))
}
