package gcov

import (
	"bufio"

	"fmt"
	"github.com/ianlancetaylor/demangle"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// TextOptions select the optional parts of the .gcov text, like gcov's
// flags.
type TextOptions struct {
	Branches bool // -b: function summaries, branch and call lines
	Counts   bool // -c: branch and call counts instead of percentages
	Demangle bool // -m: demangled function names (with parameters)
	// Graph and Data name the notes and data files in the preamble; empty
	// means the name of the primary source of the file's compilation unit
	// (the file itself, or the source that includes a header) with .gcno
	// and .gcda.
	Graph, Data string
}

// formatPercent mirrors gcov's format_gcov with decimal_places 0: a float
// percentage, rounded like printf's %.0f, with small non-zero values shown
// as 1%.
func formatPercent(top, bottom uint64) string {
	var ratio float32
	if bottom != 0 {
		ratio = 100 * float32(top) / float32(bottom)
	}
	if ratio > 0 && ratio < 0.5 {
		ratio = 1
	}
	return strconv.FormatFloat(float64(ratio), 'f', 0, 32) + "%"
}

func formatCountOrPercent(top, bottom uint64, counts bool) string {
	if counts {
		return strconv.FormatUint(top, 10)
	}
	return formatPercent(top, bottom)
}

// linePrefix returns gcov's "%9s:%5u:" beginning of a source line.
func linePrefix(w *bufio.Writer, s string, n int) {
	fmt.Fprintf(w, "%9s:%5d:", s, n)
}

// WriteText writes f as gcc 12's gcov writes a .gcov file. src holds the
// source lines (index 0 is line 1); missing lines print as /*EOF*/.
func (r *Report) WriteText(out io.Writer, f *File, src []string, opt TextOptions) error {
	w := bufio.NewWriter(out)
	unit := f.Name
	if f.unit != "" {
		unit = f.unit
	}
	base := strings.TrimSuffix(unit, filepath.Ext(unit))
	graph, data := opt.Graph, opt.Data
	if graph == "" {
		graph = base + ".gcno"
	}
	if data == "" {
		data = base + ".gcda"
	}
	pre := func(k, v string) { linePrefix(w, "-", 0); w.WriteString(k + ":" + v + "\n") }
	pre("Source", f.Name)
	pre("Graph", graph)
	pre("Data", data)
	pre("Runs", strconv.Itoa(r.Runs))

	byLine := map[int]*Line{}
	last := len(src)
	maxCode := 0 // gcov's lines vector ends after the last line with code
	for _, l := range f.Lines {
		byLine[l.Number] = l
		last = max(last, l.Number)
		maxCode = max(maxCode, l.Number)
	}
	fnAt := map[int][]*Function{}
	for _, fn := range f.Functions {
		fnAt[fn.StartLine] = append(fnAt[fn.StartLine], fn)
	}
	header := func(fn *Function) {
		if !opt.Branches {
			return
		}
		name := fn.Name
		if opt.Demangle {
			name = fn.DemangledName()
		}
		fmt.Fprintf(w, "function %s called %d returned %s blocks executed %s\n", name, fn.Called,
			formatPercent(fn.Returned, fn.Called), formatPercent(uint64(fn.BlocksExecuted), uint64(fn.Blocks)))
	}
	srcLine := func(n int) string {
		if n <= len(src) {
			return src[n-1]
		}
		return "/*EOF*/"
	}
	groupEnd := 0 // the last line of the group of functions starting here
	var group []*Function
	for n := 1; n <= last; n++ {
		if groupEnd == 0 {
			switch fns := fnAt[n]; {
			case len(fns) > 1:
				// gcov's groups: several functions start on this line;
				// each gets a section after the group's last line.
				group = append([]*Function(nil), fns...)
				sortGroup(group)
				for _, fn := range group {
					groupEnd = max(groupEnd, fn.EndLine)
				}
			case len(fns) == 1:
				header(fns[0])
			}
		}
		writeLine(w, byLine[n], n, srcLine(n), opt)
		// gcov prints a group's sections after its last line, unless no
		// line with code follows the group's first (output_lines skips
		// lines past the last one with code before it gets there).
		if n == groupEnd && n > maxCode {
			groupEnd, group = 0, nil
		}
		if n == groupEnd {
			byNum := map[int]*Line{}
			for _, fn := range group {
				w.WriteString("------------------\n")
				name := fn.Name
				if opt.Demangle {
					name = fn.DemangledName()
				}
				w.WriteString(name + ":\n")
				header(fn)
				clear(byNum)
				for _, l := range fn.Lines {
					byNum[l.Number] = l
				}
				for ln := fn.StartLine; ln <= fn.EndLine; ln++ {
					writeLine(w, byNum[ln], ln, srcLine(ln), opt)
				}
			}
			w.WriteString("------------------\n")
			groupEnd, group = 0, nil
		}
	}
	return w.Flush()
}

// writeLine writes one line of a .gcov text: count, number, source and,
// with -b, its branch and call records (gcov's output_line_beginning and
// output_line_details).
func writeLine(w *bufio.Writer, l *Line, n int, text string, opt TextOptions) {
	switch {
	case l == nil:
		linePrefix(w, "-", n)
	case l.Count == 0 && l.Exceptional:
		linePrefix(w, "=====", n)
	case l.Count == 0:
		linePrefix(w, "#####", n)
	default:
		s := strconv.FormatUint(l.Count, 10)
		if l.Unexecuted {
			s += "*"
		}
		linePrefix(w, s, n)
	}
	w.WriteString(text)
	w.WriteByte('\n')
	if opt.Branches && l != nil {
		writeBranches(w, l, opt.Counts)
	}
}

func writeBranches(w *bufio.Writer, l *Line, counts bool) {
	ix := 0
	for _, it := range l.items {
		if it.call {
			c := l.Calls[it.branch]
			if c.Executed == 0 {
				fmt.Fprintf(w, "call   %2d never executed\n", ix)
			} else {
				fmt.Fprintf(w, "call   %2d returned %s\n", ix, formatCountOrPercent(c.Returned, c.Executed, counts))
			}
			ix++
			continue
		}
		pair := l.Branches[it.branch : it.branch+it.n]
		var n uint64
		for _, b := range pair {
			n += b.Count
		}
		for _, b := range pair {
			if !b.Executed {
				// gcov 12 prints no flag on a branch never executed.
				fmt.Fprintf(w, "branch %2d never executed\n", ix)
				ix++
				continue
			}
			flag := ""
			switch {
			case b.Fallthrough:
				flag = " (fallthrough)"
			case b.Throw:
				flag = " (throw)"
			}
			total := n
			if b.Source > 0 {
				total = b.Source
			}
			fmt.Fprintf(w, "branch %2d taken %s%s\n", ix, formatCountOrPercent(b.Count, total, counts), flag)
			ix++
		}
	}
}

// OutputName returns the name gcov gives the .gcov file of a source file:
// its base name with .gcov appended.
func OutputName(source string) string { return filepath.Base(source) + ".gcov" }

// DemangledName returns fn's name as gcov -m prints it: a C++ or Rust
// assembler name demangled with its parameters (libiberty's DMGL_PARAMS),
// other names as they are.
func (fn *Function) DemangledName() string {
	if !strings.HasPrefix(fn.Name, "_Z") && !strings.HasPrefix(fn.Name, "_R") {
		return fn.Name
	}
	if d, err := demangle.ToString(fn.Name); err == nil {
		return d
	}
	return fn.Name
}

// sortGroup orders the functions of a group as gcov lists them: by
// column, then in the order of gcc's notes file, which is the reverse of
// the order gcc emitted the functions in at -O0 (outputOrder).
func sortGroup(fns []*Function) {
	sort.SliceStable(fns, func(i, j int) bool {
		if fns[i].StartColumn != fns[j].StartColumn {
			return fns[i].StartColumn < fns[j].StartColumn
		}
		return fns[i].order > fns[j].order
	})
}
