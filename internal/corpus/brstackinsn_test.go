package corpus

import (
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
	c, files := corpusWithPrograms(t, "brstackinsn", "branch stacks", func(path string) ([]string, bool) {
		return recordingWith(path, func(a *perfdata.Attr) bool {
			return a.SampleType&perfdata.SampleFormatBranchStack != 0
		})
	})
	same := 0
	for _, f := range files {
		for _, opts := range brstackinsnSets {
			r := c.compare(c.dir, f, opts)
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
	t.Logf("%d of %d runs identical", same, len(files)*len(brstackinsnSets))
}
