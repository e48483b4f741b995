package timeline

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/perfpt/perfpt/convert/timeline/readback"
)

// repo is the repository's root.
func repo() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// convertFile writes the timeline of input in format f and returns its
// path.
func convertFile(t *testing.T, input string, f Format, o Options) (string, *Summary) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "tl."+f.String())
	strs := NewStrings()
	w, err := Create(out, f, false, strs)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Convert(input, w, strs, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out, sum
}

// readChecked reads a timeline back, checking it, and returns its events.
func readChecked(t *testing.T, path string) ([]readback.Event, *readback.Info) {
	t.Helper()
	c := readback.NewChecker()
	var evs []readback.Event
	info, err := readback.ReadFile(path, func(e *readback.Event) error {
		ev := *e
		ev.Args = append([]readback.Arg(nil), e.Args...)
		evs = append(evs, ev)
		return c.Event(e)
	})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if err := c.Finish(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return evs, info
}

func TestExample(t *testing.T) {
	r := repo()
	in := filepath.Join(r, "testdata/example/primes.perf.data")
	if _, err := os.Stat(in); err != nil {
		t.Fatal(err) // in the repository
	}
	for _, f := range []Format{FormatFXT, FormatJSON} {
		out, sum := convertFile(t, in, f, Options{Symfs: filepath.Join(r, "testdata/example/symfs"), Workers: 1})
		evs, _ := readChecked(t, out)
		t.Logf("%s: %s, %d events", f, sum, len(evs))
		if os.Getenv("TLDUMP") != "" {
			for _, e := range evs {
				t.Logf("%c %d %d-%d %s %s %v", e.Phase, e.Tid, e.Ts, e.End, e.Cat, e.Name, e.Args)
			}
		}
	}
}
