package session

import (
	"fmt"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/record/synth"
)

// TestNoIPLoc checks that Options.NoIPLoc changes nothing but IPLoc, which
// then holds the IP only, sequentially and in parallel.
func TestNoIPLoc(t *testing.T) {
	data := recordPT(t, "mix-dyn-O2", synth.Config{})
	run := func(itrace string, workers int, noLoc bool) string {
		s := openItrace(t, data, itrace, Options{Workers: workers, NoIPLoc: noLoc})
		var b strings.Builder
		err := s.Run(Handler{Sample: func(smp *sample.Sample) {
			if noLoc && (smp.IPLoc.Addr != smp.IP || smp.IPLoc.HasMap || smp.IPLoc.Sym != nil) {
				t.Fatalf("IPLoc %+v with NoIPLoc, IP %#x", smp.IPLoc, smp.IP)
			}
			fmt.Fprintf(&b, "%s %x %x %x %d %d\n", smp.Ev.Name, smp.IP, smp.Addr, smp.Flags, smp.Period, smp.Time)
		}})
		if err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	for _, it := range []string{"i0ns", "b", "cre"} {
		for _, w := range []int{1, 2} {
			if want, got := run(it, w, false), run(it, w, true); got != want {
				t.Errorf("--itrace=%s -j %d: samples differ with NoIPLoc", it, w)
			}
		}
	}
}
