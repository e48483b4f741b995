package gcov

import (
	"fmt"
	"io"
	"strconv"
)

// percent2 formats top/bottom as gcov's summaries do (two decimals).
func percent2(top, bottom int) string {
	var ratio float64
	if bottom != 0 {
		ratio = 100 * float64(top) / float64(bottom)
	}
	return strconv.FormatFloat(ratio, 'f', 2, 64) + "%"
}

func writeLinesSummary(w io.Writer, executed, total int) {
	if total == 0 {
		fmt.Fprintf(w, "No executable lines\n")
		return
	}
	fmt.Fprintf(w, "Lines executed:%s of %d\n", percent2(executed, total), total)
}

// SummaryOptions select the parts of WriteSummary's output, like gcov's
// flags.
type SummaryOptions struct {
	Functions bool // -f: a summary per function first
	Branches  bool // -b: branch and call coverage
	Demangle  bool // -m: demangled function names
}

// WriteSummary prints what gcov prints on standard output for f: with
// functions (-f) a summary per function first, then the file's line
// coverage, and with branches (-b) its branch and call coverage.
func (r *Report) WriteSummary(w io.Writer, f *File, opt SummaryOptions) {
	if opt.Functions {
		for _, fn := range f.Functions {
			name := fn.Name
			if opt.Demangle {
				name = fn.DemangledName()
			}
			fmt.Fprintf(w, "Function '%s'\n", name)
			writeLinesSummary(w, fn.LinesExecuted, fn.LinesWithCode)
			fmt.Fprintln(w)
		}
	}
	fmt.Fprintf(w, "File '%s'\n", f.Name)
	executed := 0
	for _, l := range f.Lines {
		if l.Count > 0 {
			executed++
		}
	}
	writeLinesSummary(w, executed, len(f.Lines))
	if opt.Branches {
		var nb, exec, taken, nc, called int
		for _, l := range f.Lines {
			for _, b := range l.Branches {
				nb++
				if b.Executed {
					exec++
				}
				if b.Count > 0 {
					taken++
				}
			}
			for _, c := range l.Calls {
				nc++
				if c.Executed > 0 {
					called++
				}
			}
		}
		if nb > 0 {
			fmt.Fprintf(w, "Branches executed:%s of %d\n", percent2(exec, nb), nb)
			fmt.Fprintf(w, "Taken at least once:%s of %d\n", percent2(taken, nb), nb)
		} else {
			fmt.Fprintf(w, "No branches\n")
		}
		if nc > 0 {
			fmt.Fprintf(w, "Calls executed:%s of %d\n", percent2(called, nc), nc)
		} else {
			fmt.Fprintf(w, "No calls\n")
		}
	}
}
