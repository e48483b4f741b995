package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/convert/timeline/readback"
)

// TestTimelineCommand runs perfpt timeline on the PTWRITE and TSX
// recordings: the untimed one says so on stderr, transactions are slices
// whose aborts are marked, PTWRITEs instants with their payloads, and a
// .json.gz output is compressed JSON that reads back well formed.
func TestTimelineCommand(t *testing.T) {
	dir := t.TempDir()
	symfs := "../../testdata/ptwtsx/symfs"
	read := func(path string) (map[string]int, map[string]bool) {
		t.Helper()
		seen, args := map[string]int{}, map[string]bool{}
		c := readback.NewChecker()
		if _, err := readback.ReadFile(path, func(e *readback.Event) error {
			seen[string(e.Phase)+" "+e.Cat+" "+e.Name]++
			for _, a := range e.Args {
				args[e.Name+"."+a.Name] = true
			}
			return c.Event(e)
		}); err != nil {
			t.Fatal(err)
		}
		if err := c.Finish(); err != nil {
			t.Fatal(err)
		}
		return seen, args
	}

	out := filepath.Join(dir, "tsx.json.gz")
	r := ok(t, "timeline", "-i", "../../testdata/ptwtsx/tsx.perf.data", "--symfs", symfs, "-o", out)
	if !strings.Contains(r.err, "no timestamps: the timeline counts instructions") {
		t.Errorf("untimed recording: stderr %q", r.err)
	}
	seen, _ := read(out)
	if seen["B transaction transaction"] == 0 || seen["i transaction transaction abort"] == 0 || seen["E abort transaction"] == 0 {
		t.Errorf("transactions: %v", seen)
	}

	out = filepath.Join(dir, "ptw.fxt")
	r = ok(t, "timeline", "-i", "../../testdata/ptwtsx/ptw-fup.perf.data", "--symfs", symfs, "-o", out)
	if strings.Contains(r.err, "no timestamps") {
		t.Errorf("timed recording: stderr %q", r.err)
	}
	seen, args := read(out)
	if seen["i ptwrite ptwrite"] == 0 || !args["ptwrite.payload"] {
		t.Errorf("ptwrite: %v %v", seen, args)
	}
}
