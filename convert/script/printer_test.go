package script

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/convert/symbol"
	"github.com/perfpt/perfpt/internal/benchcpu"
)

var (
	insnEv   = &sample.Event{Name: "instructions:u", AttrType: 0, Config: 1, SampleType: sample.SampleIP | sample.SampleTID | sample.SampleTime | sample.SampleCPU}
	branchEv = &sample.Event{Name: "branches:u", AttrType: 0, Config: 4, SamplePeriod: 1, SampleType: sample.SampleIP | sample.SampleTID | sample.SampleTime | sample.SampleAddr | sample.SampleCPU}
	symMain  = &symbol.Symbol{Start: 0x1000, End: 0x1100, Name: "main"}
	symF     = &symbol.Symbol{Start: 0x1100, End: 0x1200, Name: "f"}
)

func loc(dso string, sym *symbol.Symbol, addr uint64) sample.Loc {
	return sample.Loc{HasMap: dso != "", DSO: dso, MapStart: 0x400000, Addr: addr, Sym: sym}
}

// TestPrinterRuns prints runs of samples that share (or change) symbol,
// DSO, thread and event, so that every kept text is reused and renewed.
func TestPrinterRuns(t *testing.T) {
	samples := []sample.Sample{
		{Ev: insnEv, Comm: "prog", PID: 10, TID: 11, CPU: 1, Time: 1_500_000_123, Period: 3, IP: 0x1004, IPLoc: loc("/bin/prog", symMain, 0x1004)},
		{Ev: insnEv, Comm: "prog", PID: 10, TID: 11, CPU: 1, Time: 1_500_001_000, Period: 1, IP: 0x1008, IPLoc: loc("/bin/prog", symMain, 0x1008)},
		{Ev: insnEv, Comm: "prog", PID: 10, TID: 12, CPU: 0, Time: 12_000_000_000, Period: 1, IP: 0x1104, IPLoc: loc("/bin/prog", symF, 0x1104)},
		{Ev: insnEv, Comm: "other", PID: 10, TID: 12, CPU: 0, Time: 12_000_000_000, Period: 1, IP: 0x1104, IPLoc: loc("/lib/libf.so", symF, 0x1104)},
		{Ev: insnEv, Comm: "other", PID: 10, TID: 12, CPU: 0, Time: 12_000_000_000, Period: 1, IP: 0x9999, IPLoc: loc("", nil, 0x9999)},
		{Ev: branchEv, Comm: "other", PID: 10, TID: 12, CPU: 0, Time: 12_000_000_001, Period: 1, IP: 0x1104, Addr: 0x1004, Flags: sample.FlagBranch | sample.FlagCall,
			IPLoc: loc("/bin/prog", symF, 0x1104), AddrLoc: loc("/bin/prog", symMain, 0x1004), AddrOK: true},
		{Ev: branchEv, Comm: "other", PID: 10, TID: 12, CPU: 0, Time: 12_000_000_002, Period: 1, IP: 0x1008, Addr: 0x1104, Flags: sample.FlagBranch | sample.FlagReturn,
			IPLoc: loc("/bin/prog", symMain, 0x1008), AddrLoc: loc("/bin/prog", symF, 0x1104), AddrOK: true},
	}
	var out bytes.Buffer
	for _, c := range []struct {
		fields []string
		ns     bool
	}{
		{[]string{"ip,sym"}, false},
		{[]string{"comm,tid,pid,cpu,time,ip,sym,symoff,dso"}, false},
		{[]string{"tid,time,event,ip,addr,sym", "+flags"}, true},
		{[]string{"+callindent"}, false},
		{[]string{"comm,pid,tid,cpu,event,ip,sym,dso"}, false},
		{[]string{"ip,dso"}, false},
		{[]string{"ip"}, false},
	} {
		f := DefaultFields()
		for _, a := range c.fields {
			if _, err := f.Parse(a); err != nil {
				t.Fatal(err)
			}
		}
		fmt.Fprintf(&out, "# -F %s ns=%v\n", strings.Join(c.fields, " -F "), c.ns)
		p := NewPrinter(&out, Options{Fields: f, Nanosecs: c.ns, NameWidth: 14})
		for i := range samples {
			p.Print(&samples[i])
		}
		if err := p.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	golden(t, "testdata/printer_runs.golden", out.Bytes())
}

var update = flag.Bool("update", false, "rewrite the golden files")

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (-update to rewrite):\ngot:\n%s", path, got)
	}
}

// TestPrinterFieldsChange checks that a change of the field selection
// between samples of one event is seen.
func TestPrinterFieldsChange(t *testing.T) {
	f := DefaultFields()
	if _, err := f.Parse("ip,sym"); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	p := NewPrinter(&out, Options{Fields: f})
	s := sample.Sample{Ev: insnEv, IP: 0x1004, IPLoc: loc("/bin/prog", symMain, 0x1004)}
	p.Print(&s)
	f.Add(TypeHardware, FieldDSO)
	p.Print(&s)
	f.Remove(TypeHardware, FieldSym|FieldDSO)
	p.Print(&s)
	p.Flush()
	want := "            1004 main\n            1004 main (/bin/prog)\n            1004\n"
	want = strings.ReplaceAll(want, "    1004", "     1004")
	if out.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", out.String(), want)
	}
}

func TestAppendTimeWidths(t *testing.T) {
	for _, c := range []struct {
		t    uint64
		ns   bool
		want string
	}{
		{0, false, "    0.000000"},
		{1_234_567_891, false, "    1.234567"},
		{123456_000_001_000, false, "123456.000001"},
		{0, true, "    0.000000000"},
		{1_234_567_891, true, "    1.234567891"},
		{123456_000_000_001, true, "123456.000000001"},
	} {
		if got := string(AppendTime(nil, c.t, c.ns)); got != c.want {
			t.Errorf("AppendTime(%d, %v) = %q, want %q", c.t, c.ns, got, c.want)
		}
	}
}

// BenchmarkPrint prints runs of instruction samples as -F ip,sym and
// -F comm,tid,time,ip,sym,symoff,dso.
func BenchmarkPrint(b *testing.B) {
	samples := make([]sample.Sample, 64)
	for i := range samples {
		sym := symMain
		if i/16%2 == 1 {
			sym = symF
		}
		ip := sym.Start + uint64(i%16)*3
		samples[i] = sample.Sample{Ev: insnEv, Comm: "prog", PID: 10, TID: 11, CPU: 1, Time: uint64(i) * 1000, Period: 1,
			IP: ip, IPLoc: loc("/bin/prog", sym, ip)}
	}
	for _, fields := range []string{"ip,sym", "comm,tid,time,ip,sym,symoff,dso"} {
		b.Run(fields, func(b *testing.B) {
			f := DefaultFields()
			if _, err := f.Parse(fields); err != nil {
				b.Fatal(err)
			}
			p := NewPrinter(discard{}, Options{Fields: f})
			b.ReportAllocs()
			start := benchcpu.Now()
			for i := 0; i < b.N; i++ {
				p.Print(&samples[i%len(samples)])
			}
			p.Flush()
			benchcpu.Report(b, start)
		})
	}
}

type discard struct{}

func (discard) Write(b []byte) (int, error) { return len(b), nil }

// TestPrinterMemory formats on a printer without a writer and writes its
// text through another printer, between that printer's own lines: the
// same bytes as printing everything on one printer.
func TestPrinterMemory(t *testing.T) {
	f := DefaultFields()
	if _, err := f.Parse("ip,sym,dso"); err != nil {
		t.Fatal(err)
	}
	s := sample.Sample{Ev: insnEv, IP: 0x1004, IPLoc: loc("/bin/prog", symMain, 0x1004)}
	var one, two bytes.Buffer
	p1 := NewPrinter(&one, Options{Fields: f})
	p2 := NewPrinter(&two, Options{Fields: f})
	mem := NewPrinter(nil, Options{Fields: f})
	for i := 0; i < 30000; i++ { // over flushSize of text
		s.IP = 0x1000 + uint64(i%200)
		p1.Print(&s)
		if i%3 == 0 {
			p2.Print(&s)
			continue
		}
		mem.Print(&s)
		if i%3 == 2 {
			p2.Write(mem.Bytes())
			mem.Reset()
		}
	}
	big := bytes.Repeat([]byte("x\n"), flushSize)
	p1.Write(big)
	p2.Write(big)
	if err := p1.Flush(); err != nil {
		t.Fatal(err)
	}
	p2.Flush()
	if !bytes.Equal(one.Bytes(), two.Bytes()) {
		t.Errorf("memory printer + Write: %d bytes, want %d", two.Len(), one.Len())
	}
}

// TestTimeText checks the kept-second time text against AppendTime over
// second boundaries, in both units.
func TestTimeText(t *testing.T) {
	var c timeText
	for _, ns := range []bool{false, true, false} {
		for _, base := range []uint64{0, 999_999_000, 1_000_000_000, 12345_999_999_999, 1 << 62} {
			for d := uint64(0); d < 3000; d += 7 {
				v := base + d*333_333
				if got, want := string(c.append(nil, v, ns)), string(AppendTime(nil, v, ns)); got != want {
					t.Fatalf("%d ns=%v: %q want %q", v, ns, got, want)
				}
			}
		}
	}
}

func TestAppendHex16(t *testing.T) {
	for _, v := range []uint64{0, 1, 0xf, 0x10, 0xff, 0x100, 0xfff, 0x1000, 0x401234, 0xffffffff81000000, 1<<63 | 1, ^uint64(0)} {
		want := fmt.Sprintf("%16x", v)
		if got := string(appendHex16([]byte("x"), v)[1:]); got != want {
			t.Errorf("%#x: %q want %q", v, got, want)
		}
	}
}

// TestSymTextLengths prints symbol names around the 32-byte short copy.
func TestSymTextLengths(t *testing.T) {
	f := DefaultFields()
	if _, err := f.Parse("ip,sym"); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	var want strings.Builder
	p := NewPrinter(&out, Options{Fields: f})
	for _, n := range []int{1, 30, 31, 32, 33, 100, 31} {
		sym := &symbol.Symbol{Start: 0x1000, End: 0x2000, Name: strings.Repeat(string(rune('a'+n%26)), n)}
		for ip := uint64(0x1000); ip < 0x1003; ip++ {
			s := sample.Sample{Ev: insnEv, IP: ip, IPLoc: loc("/bin/prog", sym, ip)}
			p.Print(&s)
			fmt.Fprintf(&want, " %16x %s\n", ip, sym.Name)
		}
	}
	p.Flush()
	if out.String() != want.String() {
		t.Errorf("got:\n%s\nwant:\n%s", out.String(), want.String())
	}
}
