package script

import (
	"bytes"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/convert/sample"
)

// TestAppendSynth checks the payload text of each synthesised event
// against perf 6.1's format strings, worked by hand (printf's %#x prints
// 0 as "0"; lines shorter than 34 columns are padded).
func TestAppendSynth(t *testing.T) {
	pad := func(s string) string {
		if len(s) < 34 {
			s += strings.Repeat(" ", 34-len(s))
		}
		return s
	}
	for _, c := range []struct {
		sy   sample.Synth
		want string
	}{
		{sample.Synth{Kind: sample.SynthPSB, Offset: 0x1a0}, pad(" psb offs: 0x1a0")},
		{sample.Synth{Kind: sample.SynthPSB}, pad(" psb offs: 0")},
		{sample.Synth{Kind: sample.SynthCBR, CBR: 36, Freq: 3600000, MaxNonTurbo: 30}, pad(" cbr: 36 freq: 3600 MHz (120%) ")},
		{sample.Synth{Kind: sample.SynthPTWrite, IP: true, Payload: 0x6f6c6c6568}, " IP: 1 payload: 0x6f6c6c6568 hello "},
		{sample.Synth{Kind: sample.SynthPTWrite}, pad(" IP: 0 payload: 0  ")},
		{sample.Synth{Kind: sample.SynthPTWrite, Payload: 0x1234}, pad(" IP: 0 payload: 0x1234  ")},
		{sample.Synth{Kind: sample.SynthPTWrite, Payload: 0x4100000041}, pad(" IP: 0 payload: 0x4100000041  ")},
		{sample.Synth{Kind: sample.SynthPTWrite, Payload: 0x4847464544434241}, " IP: 0 payload: 0x4847464544434241 ABCDEFGH "},
		{sample.Synth{Kind: sample.SynthMWait, Hints: 0x20, Extensions: 1}, pad(" hints: 0x20 extensions: 0x1 ")},
		{sample.Synth{Kind: sample.SynthPwrE, HW: true, CState: 2, SubCState: 1}, pad(" hw: 1 cstate: 2 sub-cstate: 1 ")},
		{sample.Synth{Kind: sample.SynthExStop, IP: true}, pad(" IP: 1 ")},
		{sample.Synth{Kind: sample.SynthPwrX, DeepestCState: 6, LastCState: 2, WakeReason: 4}, " deepest cstate: 6 last cstate: 2 wake reason: 0x4 "},
		{sample.Synth{}, ""},
	} {
		if got := string(appendSynth(nil, &c.sy)); got != c.want {
			t.Errorf("%+v:\n got %q\nwant %q", c.sy, got, c.want)
		}
	}
}

// TestBrstack prints a two-entry branch stack as brstack, brstack with
// dso, and brstacksym (perf 6.1's formats; the sym form follows the
// previous column without a space, as perf prints it).
func TestBrstack(t *testing.T) {
	s := sample.Sample{Ev: insnEv, IP: 0x1004, IPLoc: loc("/bin/prog", symMain, 0x1004),
		BranchStack: []sample.BranchEntry{
			{From: 0x1010, To: 0x1100, Predicted: true, Cycles: 12, Type: 4},
			{From: 0x1180, To: 0x9000, InTx: true, Abort: true, Mispred: true, Type: 15, NewType: 1},
		},
		BranchLocs: []sample.Loc{loc("/bin/prog", symMain, 0x1010), loc("/bin/prog", symF, 0x1100),
			loc("/bin/prog", symF, 0x1180), loc("", nil, 0x9000)},
	}
	for _, c := range []struct {
		fields, want string
	}{
		{"ip,brstack", "             1004 0x1010/0x1100/P/-/-/12/CALL  0x1180/0x9000/M/X/A/0/FAULT_DATA \n"},
		{"ip,dso,brstack", "             1004 (/bin/prog) 0x1010(/bin/prog)/0x1100(/bin/prog)/P/-/-/12/CALL  0x1180(/bin/prog)/0x9000([unknown])/M/X/A/0/FAULT_DATA \n"},
		{"ip,sym,brstacksym", "             1004 mainmain+0x10/f+0x0/P/-/-/12/CALL f+0x80/[unknown]/M/X/A/0/FAULT_DATA \n"},
		{"ip,brstackoff", "             1004 0x1010/0x1100/P/-/-/12/CALL  0x1180/0x9000/M/X/A/0/FAULT_DATA \n"},
		{"ip,dso,brstackoff", "             1004 (/bin/prog) 0x1010(/bin/prog)/0x1100(/bin/prog)/P/-/-/12/CALL  0x1180(/bin/prog)/0x9000([unknown])/M/X/A/0/FAULT_DATA \n"},
	} {
		f := DefaultFields()
		if _, err := f.Parse(c.fields); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		p := NewPrinter(&out, Options{Fields: f})
		p.Print(&s)
		p.Flush()
		if out.String() != c.want {
			t.Errorf("-F %s:\n got %q\nwant %q", c.fields, out.String(), c.want)
		}
	}
	// Without pre-resolved locations the Resolver is asked; unknown
	// types print as "".
	s.BranchLocs = nil
	s.Res = fixedRes{loc("/lib/x.so", symF, 0x1104)}
	s.BranchStack = s.BranchStack[:1]
	s.BranchStack[0].Type = 0
	f := DefaultFields()
	f.Parse("ip,brstacksym")
	var out bytes.Buffer
	p := NewPrinter(&out, Options{Fields: f})
	p.Print(&s)
	p.Flush()
	if want := "             1004f+0x4/f+0x4/P/-/-/12/ \n"; out.String() != want {
		t.Errorf("resolved: got %q want %q", out.String(), want)
	}
}

// TestBrstackoff prints each branch address as its map tells
// (machine.Map.BranchOffset: an offset in a DSO whose symbols are not
// adjusted, else the address), and one without a map as it is.
func TestBrstackoff(t *testing.T) {
	l := loc("/lib/x.so", symF, 0x1100)
	l.Ref = offsetMap{}
	s := sample.Sample{Ev: insnEv, IP: 0x1004, IPLoc: loc("/bin/prog", symMain, 0x1004),
		BranchStack: []sample.BranchEntry{{From: 0x7f0000001010, To: 0x9000, Predicted: true}},
		BranchLocs:  []sample.Loc{l, loc("", nil, 0x9000)},
	}
	f := DefaultFields()
	if _, err := f.Parse("ip,dso,brstackoff"); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	p := NewPrinter(&out, Options{Fields: f})
	p.Print(&s)
	p.Flush()
	if want := "             1004 (/bin/prog) 0x1010(/lib/x.so)/0x9000([unknown])/P/-/-/0/ \n"; out.String() != want {
		t.Errorf("got %q want %q", out.String(), want)
	}
}

type offsetMap struct{}

func (offsetMap) BranchOffset(addr uint64) uint64 { return addr - 0x7f0000000000 }

type fixedRes struct{ l sample.Loc }

func (r fixedRes) ResolveAddr(uint64) sample.Loc { return r.l }
func (r fixedRes) Srcline(*sample.Loc) string    { return "" }
