// Package conformance runs the libipt conformance corpus
// (../shared/conformance/libipt beside the repository, see its README)
// against perfpt's ptdump and ptxed in tests. It compares output the way
// libipt's runner and run.py do (diff -ub): runs of blanks are one blank and
// trailing blanks are ignored.
package conformance

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Case is one (test, tool, cpu) case of the corpus manifest.
type Case struct {
	Name     string     `json:"name"`
	Test     string     `json:"test"`
	Tool     string     `json:"tool"`
	Area     string     `json:"area"`
	Dir      string     `json:"dir"`
	Argv     [][]string `json:"argv"`
	Expected string     `json:"expected"`
}

// Dir returns the corpus directory, or skips t when the corpus is absent
// (a fresh machine without ../shared).
func Dir(t testing.TB) string {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	dir := filepath.Join(root, "..", "shared", "conformance", "libipt")
	if _, err := os.Stat(filepath.Join(dir, "manifest.json")); err != nil {
		t.Skip("libipt conformance corpus not found at", dir)
	}
	return dir
}

// Cases reads the manifest in dir and returns the cases of tool ("ptdump"
// or "ptxed"; "" for all).
func Cases(t testing.TB, dir, tool string) []Case {
	data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Cases []Case `json:"cases"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v", filepath.Join(dir, "manifest.json"), err)
	}
	var out []Case
	for _, c := range m.Cases {
		if tool == "" || c.Tool == tool {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no %s cases in the manifest", tool)
	}
	return out
}

// Lines normalises text for comparison like diff -ub.
func Lines(text string) []string {
	if text == "" {
		return nil
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.Join(strings.Fields(l), " ")
	}
	return lines
}

// Main is a tool's entry point: its arguments without the tool name.
type Main func(args []string, stdout, stderr io.Writer) int

// Run runs every case of tool through main in a subtest per case, in the
// case's directory, for each of its command lines, and logs the pass count.
func Run(t *testing.T, tool string, main Main) {
	dir := Dir(t)
	cases := Cases(t, dir, tool)
	passed := 0
	for _, c := range cases {
		ok := t.Run(c.Name, func(t *testing.T) {
			t.Chdir(filepath.Join(dir, c.Dir))
			want, err := os.ReadFile(c.Expected)
			if err != nil {
				t.Fatal(err)
			}
			exp := Lines(string(want))
			for _, argv := range c.Argv {
				var out, errOut bytes.Buffer
				main(argv[1:], &out, &errOut)
				if line, e, g := firstDiff(exp, Lines(out.String())); line > 0 {
					t.Fatalf("%s: line %d: want %q, got %q (stderr %q)",
						strings.Join(argv, " "), line, e, g, errOut.String())
				}
			}
		})
		if ok {
			passed++
		}
	}
	t.Logf("libipt corpus: %d of %d %s cases pass", passed, len(cases), tool)
}

// firstDiff returns the 1-based number of the first line where want and got
// differ, with both lines, or 0 when they are equal.
func firstDiff(want, got []string) (int, string, string) {
	for i := range max(len(want), len(got)) {
		var w, g string
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g || i >= len(want) || i >= len(got) {
			return i + 1, w, g
		}
	}
	return 0, "", ""
}
