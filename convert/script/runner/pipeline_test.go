package runner

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/convert/script"
	"github.com/perfpt/perfpt/convert/symbol"
	"github.com/perfpt/perfpt/internal/benchcpu"
)

var (
	benchInsnEv = &sample.Event{Name: "instructions:u", Config: 1,
		SampleType: sample.SampleIP | sample.SampleTID | sample.SampleTime | sample.SampleCPU}
	benchBranchEv = &sample.Event{Name: "branches:u", Config: 4, SamplePeriod: 1,
		SampleType: sample.SampleIP | sample.SampleTID | sample.SampleTime | sample.SampleAddr | sample.SampleCPU}
)

type fakeRes struct{ syms []*symbol.Symbol }

func (r *fakeRes) ResolveAddr(addr uint64) sample.Loc {
	return sample.Loc{HasMap: true, DSO: "/bin/prog", MapStart: 0x400000, Addr: addr - 0x400000, Sym: r.syms[addr/64%uint64(len(r.syms))]}
}

func (r *fakeRes) Srcline(*sample.Loc) string { return "" }

// testSamples returns n samples of two threads in two DSOs, with runs in
// a few functions, instructions and branches interleaved, some with
// callchains and synth payloads (sent whole), and the Resolver.
func testSamples(n int) ([]sample.Sample, []*sample.ErrorLine) {
	syms := []*symbol.Symbol{{Start: 0, End: 64, Name: "main"}, {Start: 64, End: 128, Name: "f"}, {Start: 128, End: 192, Name: "g"}}
	res := &fakeRes{syms}
	comms := []string{"prog", "worker"}
	out := make([]sample.Sample, n)
	var errs []*sample.ErrorLine
	for i := range out {
		ip := 0x400000 + uint64(i*7%200)
		ev := benchInsnEv
		if i%5 == 4 {
			ev = benchBranchEv
		}
		th := i / 97 % 2
		dso := "/bin/prog"
		if i/301%3 == 2 {
			dso = "/lib/libc.so"
		}
		s := sample.Sample{Ev: ev, Comm: comms[th], PID: 10, TID: 10 + int32(th), CPU: uint32(th), Time: uint64(i) * 1000,
			Period: 1, IP: ip, Addr: ip + 64, Flags: sample.FlagBranch | sample.FlagCall, InsnLen: 3, Insn: []byte{0x48, 0x89, 0xe5},
			IPLoc: sample.Loc{HasMap: true, DSO: dso, MapStart: 0x400000, Addr: ip - 0x400000, Sym: syms[(ip-0x400000)/64%3]},
			Res:   res, Depth: i % 4}
		if i%1000 == 999 {
			s.Callchain = []sample.Frame{{IP: ip, Loc: s.IPLoc}, {IP: ip + 5, Loc: s.IPLoc}}
		}
		if i%1500 == 1499 {
			s.Synth = sample.Synth{Kind: sample.SynthCBR, CBR: 20, Freq: 2000000}
		}
		if i%1700 == 1699 {
			s.Synth = sample.Synth{Kind: sample.SynthPTWrite, IP: true, Payload: 0x6f6c6c6568}
		}
		if i%333 == 7 {
			s.BranchStack = []sample.BranchEntry{{From: ip, To: ip + 70, Predicted: true}, {From: ip + 3, To: ip + 140, Cycles: 3}}
		}
		if i%700 == 0 {
			errs = append(errs, &sample.ErrorLine{Type: 1, Code: 6, IP: ip, Msg: "Trace doesn't match instruction"})
		}
		out[i] = s
	}
	return out, errs
}

// TestPipelineSame prints the same samples directly and through the
// pipeline, for several field sets: the bytes must be equal. Some
// instruction samples come as straight runs (Handler.IPRun: PrintIPs, or
// the pipeline's ipRun), where the printer prints them so, a few of them
// too deep in a thread stack for a rec (sent whole, one by one).
func TestPipelineSame(t *testing.T) {
	samples, errs := testSamples(20000)
	for _, fields := range []string{"ip,sym", "comm,tid,pid,cpu,time,ip,sym,symoff,dso,addr,period,event",
		"+flags,+addr", "+callindent", "ip,sym,insn,insnlen", "ip,sym,brstacksym", "ip,dso,brstack", "+synth",
		"comm,tid,time,period,event,ip,sym,symoff,dso"} {
		var direct, piped bytes.Buffer
		runs := 0
		for k, w := range []*bytes.Buffer{&direct, &piped} {
			f := script.DefaultFields()
			if _, err := f.Parse(fields); err != nil {
				t.Fatal(err)
			}
			p := script.NewPrinter(w, script.Options{Fields: f, NameWidth: 14})
			// The runner's IPRunOK: a printer of the producer's own.
			chk := script.NewPrinter(nil, script.Options{Fields: f, NameWidth: 14})
			var pl *pipeline
			if k == 1 {
				pl = newPipeline(p, f.Has(script.TypeHardware, script.FieldInsn), true, true)
			}
			for i := range samples {
				s := samples[i] // the session reuses its Sample
				useCC := i%2000 < 1000
				if i%700 == 0 {
					if pl != nil {
						pl.errorLine(errs[i/700])
					} else {
						p.PrintError(errs[i/700])
					}
				}
				if i%900 == 5 {
					// text formatted by a decode worker
					text := []byte(strings.Repeat("worker line\n", i%7+1))
					if pl != nil {
						pl.drain()
					}
					p.Write(text)
				}
				if chk.SetUseCallchain(useCC); i%11 == 3 && s.Ev == benchInsnEv && s.Callchain == nil &&
					s.Synth.Kind == sample.SynthNone && s.BranchStack == nil && chk.PrintsLines(s.Ev) {
					s.InsnLen, s.Insn, s.Flags = 0, nil, 0 // (IPRun's samples have none)
					if i%77 == 3 {
						s.Depth = maxDepth + 1
					}
					var ips []uint64
					for ip := s.IP; ip < s.IP+5 && (ip-0x400000)%64 != 0 || ip == s.IP; ip++ {
						ips = append(ips, ip)
					}
					if pl != nil {
						pl.ipRun(&s, ips, useCC)
					} else {
						p.SetUseCallchain(useCC)
						p.PrintIPs(&s, ips)
					}
					runs++
					continue
				}
				if pl != nil {
					pl.sample(&s, useCC)
					// The session's Sample is its own: left as it was.
					if !reflect.DeepEqual(&s, &samples[i]) {
						t.Fatalf("sample %d changed by the pipeline", i)
					}
				} else {
					p.SetUseCallchain(useCC)
					p.Print(&s)
				}
			}
			if pl != nil {
				pl.close()
			}
			if err := p.Flush(); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(direct.Bytes(), piped.Bytes()) {
			n, first := diffLines(piped.Bytes(), direct.Bytes())
			t.Errorf("-F %s: %d lines differ through the pipeline; %s", fields, n, first)
		}
		t.Logf("-F %s: %d straight runs", fields, runs/2)
	}
}

// BenchmarkPipeline prints samples as -F ip,sym directly and through the
// pipeline; cpu-ns/op is the CPU of both goroutines together.
func BenchmarkPipeline(b *testing.B) {
	samples, _ := testSamples(4096)
	for _, piped := range []bool{false, true} {
		name := "direct"
		if piped {
			name = "piped"
		}
		b.Run(name, func(b *testing.B) {
			f := script.DefaultFields()
			if _, err := f.Parse("ip,sym"); err != nil {
				b.Fatal(err)
			}
			p := script.NewPrinter(discard{}, script.Options{Fields: f})
			var pl *pipeline
			if piped {
				pl = newPipeline(p, false, true, true)
			}
			var s sample.Sample
			b.ReportAllocs()
			start := benchcpu.Now()
			for i := 0; i < b.N; i++ {
				s = samples[i%len(samples)]
				if pl != nil {
					pl.sample(&s, false)
				} else {
					p.Print(&s)
				}
			}
			if pl != nil {
				pl.close()
			}
			p.Flush()
			benchcpu.Report(b, start)
		})
	}
}

type discard struct{}

func (discard) Write(b []byte) (int, error) { return len(b), nil }
