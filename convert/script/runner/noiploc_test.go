package runner

import (
	"testing"

	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/convert/script"
)

// TestPTNoIPLoc: PT samples skip resolving their IP only when nothing
// printed for them needs its symbol, DSO or source, and no call chain or
// branch stack comes with them.
func TestPTNoIPLoc(t *testing.T) {
	for _, c := range []struct {
		itrace, fields string
		want           bool
	}{
		{"i0ns", "ip", true},
		{"b", "ip,addr,flags,tid,time", true},
		{"i0ns", "ip,insn,insnlen", true},
		{"b", "ip,addr,brstacksym", true},
		{"i0ns", "ip,sym", false},
		{"i0ns", "ip,dso", false},
		{"b", "ip,sym,symoff", false},
		{"i0ns", "ip,srcline", false},
		{"b", "ip,callindent", false},
		{"i0ns", "synth:ip,sym", false},
		{"i100ig", "ip", false},
		{"i100il", "ip,brstack", false},
		{"", "", false}, // perf's defaults print symbols
	} {
		fields := script.DefaultFields()
		if c.fields != "" {
			if _, err := fields.Parse(c.fields); err != nil {
				t.Fatalf("-F %s: %v", c.fields, err)
			}
		}
		var it *sample.Itrace
		if c.itrace != "" {
			var err error
			if it, err = sample.ParseItrace(c.itrace); err != nil {
				t.Fatal(err)
			}
		}
		if got := ptNoIPLoc(fields, it); got != c.want {
			t.Errorf("--itrace=%s -F %s: NoIPLoc %v, want %v", c.itrace, c.fields, got, c.want)
		}
	}
}
