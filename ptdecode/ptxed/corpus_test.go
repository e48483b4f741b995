package ptxed

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// sharedDir returns ../shared relative to the repository root.
func sharedDir(t *testing.T) string {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	dir := filepath.Join(root, "..", "shared", "conformance", "libipt")
	if _, err := os.Stat(filepath.Join(dir, "manifest.json")); err != nil {
		t.Skip("libipt conformance corpus not found at", dir)
	}
	return dir
}

type corpusCase struct {
	Name     string     `json:"name"`
	Tool     string     `json:"tool"`
	Dir      string     `json:"dir"`
	Argv     [][]string `json:"argv"`
	Expected string     `json:"expected"`
}

func normLines(s string) []string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.Join(strings.Fields(l), " ")
	}
	return lines
}

// TestCorpus runs every ptxed case of the libipt conformance corpus with
// both decoders (as run.py does) and compares the output like diff -ub.
func TestCorpus(t *testing.T) {
	dir := sharedDir(t)
	data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct{ Cases []corpusCase }
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	passed, failed := 0, 0
	var fails []string
	for _, c := range m.Cases {
		if c.Tool != "ptxed" {
			continue
		}
		cdir := filepath.Join(dir, c.Dir)
		want, err := os.ReadFile(filepath.Join(cdir, c.Expected))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Chdir(cdir); err != nil {
			t.Fatal(err)
		}
		ok := true
		for _, argv := range c.Argv {
			var out, errb bytes.Buffer
			Main(argv[1:], &out, &errb)
			if strings.Join(normLines(out.String()), "\n") != strings.Join(normLines(string(want)), "\n") {
				ok = false
				fails = append(fails, c.Name+": "+strings.Join(argv, " "))
				break
			}
		}
		if ok {
			passed++
		} else {
			failed++
		}
	}
	t.Logf("libipt ptxed corpus: %d passed, %d failed", passed, failed)
	for _, f := range fails {
		t.Errorf("FAIL %s", f)
	}
}
