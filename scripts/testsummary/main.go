// Command testsummary reads `go test -json` on standard input, prints what a
// plain `go test` prints (each package's ok/FAIL line, and the whole output
// of failed tests), and ends with the count of passed, failed and skipped
// tests and, for each skipped test, the reason it gave. CI (.ci/run) runs
// the test suite through it so that every skip is seen; it exits 1 when a
// test or a package failed.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// event is one line of go test -json (test2json's TestEvent).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

type key struct{ pkg, test string }

func main() {
	code, err := summarize(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		os.Exit(2)
	}
	os.Exit(code)
}

func summarize(r io.Reader, w io.Writer) (int, error) {
	out := map[key][]string{}
	var skips []string
	passed, failed, skipped, pkgFailed := 0, 0, 0, 0
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			// Not JSON: a build error or a message of go itself.
			fmt.Fprintln(w, sc.Text())
			continue
		}
		k := key{e.Package, e.Test}
		switch e.Action {
		case "output":
			if e.Test == "" {
				// Package lines: "ok", "FAIL", "?", panics and build
				// errors outside any test.
				if !strings.HasPrefix(e.Output, "=== ") && !strings.HasPrefix(e.Output, "PASS") {
					fmt.Fprint(w, e.Output)
				}
				continue
			}
			out[k] = append(out[k], e.Output)
		case "pass":
			if e.Test != "" {
				passed++
			}
			delete(out, k)
		case "fail":
			if e.Test == "" {
				pkgFailed++
				continue
			}
			failed++
			for _, l := range out[k] {
				fmt.Fprint(w, l)
			}
			delete(out, k)
		case "skip":
			if e.Test == "" {
				continue // a package without tests
			}
			skipped++
			skips = append(skips, fmt.Sprintf("%s %s: %s", e.Package, e.Test, reason(out[k])))
			delete(out, k)
		}
	}
	if err := sc.Err(); err != nil {
		return 2, err
	}
	sort.Strings(skips)
	fmt.Fprintf(w, "\n%d skipped tests:\n", len(skips))
	for _, s := range skips {
		fmt.Fprintln(w, "  "+s)
	}
	fmt.Fprintf(w, "\n%d passed, %d failed, %d skipped\n", passed, failed, skipped)
	if failed > 0 || pkgFailed > 0 {
		return 1, nil
	}
	return 0, nil
}

// reason is what a skipped test printed, less the === and --- lines.
func reason(lines []string) string {
	var r []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- SKIP") {
			continue
		}
		r = append(r, t)
	}
	if len(r) == 0 {
		return "(no reason given)"
	}
	return strings.Join(r, " / ")
}
