// Package linediff compares two texts line by line, for the tests that
// diff perfpt's output with a reference tool's (perf script, perf report
// -D).
package linediff

import (
	"strconv"
	"strings"
)

// Result says how two texts differ.
type Result struct {
	N     int    // lines that differ (a missing line compares as an empty one)
	Lines int    // lines of the second text
	First int    // index of the first differing line, -1 when none
	A, B  string // the first differing lines, "(none)" for a missing one
}

// Compare compares a and b line by line.
func Compare(a, b string) Result {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	r := Result{Lines: len(bl), First: -1}
	for i := 0; i < max(len(al), len(bl)); i++ {
		if get(al, i, "") == get(bl, i, "") {
			continue
		}
		if r.First < 0 {
			r.First, r.A, r.B = i, get(al, i, "(none)"), get(bl, i, "(none)")
		}
		r.N++
	}
	return r
}

// String describes the first difference, naming the two sides.
func (r Result) String(nameA, nameB string) string {
	if r.N == 0 {
		return ""
	}
	w := max(len(nameA), len(nameB)) + 1
	return "line " + strconv.Itoa(r.First+1) + ":\n  " + pad(nameA+":", w) + " " + r.A + "\n  " + pad(nameB+":", w) + " " + r.B
}

// get returns line i of l, or missing past its end.
func get(l []string, i int, missing string) string {
	if i < len(l) {
		return l[i]
	}
	return missing
}

func pad(s string, n int) string { return s + strings.Repeat(" ", max(0, n-len(s))) }
