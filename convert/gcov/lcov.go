package gcov

import (
	"bufio"
	"fmt"
	"io"
)

// WriteLCOV writes r as an lcov tracefile (the format geninfo writes and
// genhtml reads): per source file its functions (FN/FNDA), branches (BRDA),
// lines (DA) and the totals.
func (r *Report) WriteLCOV(out io.Writer, testName string) error {
	w := bufio.NewWriter(out)
	fmt.Fprintf(w, "TN:%s\n", testName)
	for _, f := range r.Files {
		fmt.Fprintf(w, "SF:%s\n", f.Name)
		fnh := 0
		for _, fn := range f.Functions {
			fmt.Fprintf(w, "FN:%d,%s\n", fn.StartLine, fn.Name)
		}
		for _, fn := range f.Functions {
			fmt.Fprintf(w, "FNDA:%d,%s\n", fn.Called, fn.Name)
			if fn.Called > 0 {
				fnh++
			}
		}
		fmt.Fprintf(w, "FNF:%d\nFNH:%d\n", len(f.Functions), fnh)
		brf, brh := 0, 0
		for _, l := range f.Lines {
			for bi, b := range l.Branches {
				block := bi / 2
				if !b.Executed {
					fmt.Fprintf(w, "BRDA:%d,%d,%d,-\n", l.Number, block, bi%2)
				} else {
					fmt.Fprintf(w, "BRDA:%d,%d,%d,%d\n", l.Number, block, bi%2, b.Count)
				}
				brf++
				if b.Count > 0 {
					brh++
				}
			}
		}
		fmt.Fprintf(w, "BRF:%d\nBRH:%d\n", brf, brh)
		lh := 0
		for _, l := range f.Lines {
			fmt.Fprintf(w, "DA:%d,%d\n", l.Number, l.Count)
			if l.Count > 0 {
				lh++
			}
		}
		fmt.Fprintf(w, "LF:%d\nLH:%d\nend_of_record\n", len(f.Lines), lh)
	}
	return w.Flush()
}
