package ptdump

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// corpusDir returns ../shared/conformance/libipt relative to the repository
// root, or "" when it is absent.
func corpusDir(t testing.TB) string {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	dir := filepath.Join(root, "..", "shared", "conformance", "libipt")
	if _, err := os.Stat(filepath.Join(dir, "manifest.json")); err != nil {
		return ""
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

// normalize compares like libipt's runner (diff -ub): runs of blanks are
// one blank, trailing blanks are ignored.
func normalize(text string) []string {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if text == "" {
		lines = nil
	}
	for i, l := range lines {
		lines[i] = strings.Join(strings.Fields(l), " ")
	}
	return lines
}

// TestCorpus runs every ptdump case of the libipt conformance corpus (see
// ../shared/conformance/libipt/README.md) through Main and compares stdout.
func TestCorpus(t *testing.T) {
	dir := corpusDir(t)
	if dir == "" {
		t.Skip("no libipt corpus: ../shared/conformance/libipt is absent")
	}
	data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Cases []corpusCase `json:"cases"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	passed, total := 0, 0
	for _, c := range m.Cases {
		if c.Tool != "ptdump" {
			continue
		}
		total++
		ok := t.Run(c.Name, func(t *testing.T) {
			t.Chdir(filepath.Join(dir, c.Dir))
			want, err := os.ReadFile(c.Expected)
			if err != nil {
				t.Fatal(err)
			}
			for _, argv := range c.Argv {
				var out, errOut bytes.Buffer
				Main(argv[1:], &out, &errOut)
				got, exp := normalize(out.String()), normalize(string(want))
				for i := range max(len(got), len(exp)) {
					var g, e string
					if i < len(got) {
						g = got[i]
					}
					if i < len(exp) {
						e = exp[i]
					}
					if g != e {
						t.Fatalf("%s: line %d: want %q, got %q (stderr %q)", strings.Join(argv, " "), i+1, e, g, errOut.String())
					}
				}
			}
		})
		if ok {
			passed++
		}
	}
	t.Logf("libipt corpus: %d of %d ptdump cases pass", passed, total)
	if total == 0 {
		t.Fatal("no ptdump cases in the manifest")
	}
}
