package record

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/ptdecode/ptxed"
	"github.com/perfpt/perfpt/record/flow"
	"github.com/perfpt/perfpt/record/ptrace"
	"github.com/perfpt/perfpt/record/synth"
	"github.com/perfpt/perfpt/record/testprog"
)

// traceProg single-steps argv and returns its flow and retired IPs per
// thread.
func traceProg(t *testing.T, argv ...string) (*ptrace.Result, map[int][]uint64) {
	t.Helper()
	null := devnull(t)
	ips := map[int][]uint64{}
	res, err := ptrace.Run(context.Background(), argv, ptrace.Options{Mode: ptrace.Step, Pin: true, Stdout: null, Stderr: null,
		ClockStart: DefaultClockStart, OnInsn: func(tid int, ip uint64) { ips[tid] = append(ips[tid], ip) }})
	if err != nil {
		t.Fatal(err)
	}
	return res, ips
}

// ptwTx lists what a flow's PTWRITEs and transactions should look like in
// perf script --itrace=w (ip, payload) and --itrace=x (ip, flags).
type ptwTx struct {
	ptwIPs, payloads []uint64
	txIPs            []uint64
	txFlags          []string
}

func flowPTWTx(th *flow.Thread) ptwTx {
	var w ptwTx
	for _, e := range th.Events {
		switch e.Kind {
		case flow.PTWrite:
			w.ptwIPs, w.payloads = append(w.ptwIPs, e.From), append(w.payloads, e.Back)
		case flow.TxBegin:
			w.txIPs, w.txFlags = append(w.txIPs, e.From), append(w.txFlags, "x")
		case flow.TxCommit:
			w.txIPs, w.txFlags = append(w.txIPs, e.From), append(w.txFlags, "")
		case flow.TxAbort:
			w.txIPs, w.txFlags = append(w.txIPs, e.From), append(w.txFlags, "tx abrt")
		}
	}
	return w
}

var ptwLine = regexp.MustCompile(`^\s*\d+\s+IP: ([01]) payload: (0x[0-9a-f]+|0)\s.*?([0-9a-f]+)$`)

// perfPTW parses perf script --itrace=w -F tid,ip,synth: the IP bit, the
// payloads and the IPs.
func perfPTW(t *testing.T, out string) (ipBits []bool, payloads, ips []uint64) {
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		m := ptwLine.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("bad ptwrite line %q", line)
		}
		v, _ := strconv.ParseUint(strings.TrimPrefix(m[2], "0x"), 16, 64)
		ip, _ := strconv.ParseUint(m[3], 16, 64)
		ipBits, payloads, ips = append(ipBits, m[1] == "1"), append(payloads, v), append(ips, ip)
	}
	return
}

// perfTx parses perf script --itrace=x -F tid,ip,flags.
func perfTx(out string) (ips []uint64, flags []string) {
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		ip, _ := strconv.ParseUint(f[len(f)-1], 16, 64)
		ips, flags = append(ips, ip), append(flags, strings.Join(f[1:len(f)-1], " "))
	}
	return
}

// TestPerfPTWriteTSX records ptwtsx and rtmroll (PTWRITE and RTM,
// performed by the tracer) with several packet configurations and checks that perf decodes
// it without errors: the same instructions and branches as the tracer saw,
// the PTWRITE payloads (--itrace=w, at the PTWRITEs' IPs with fup_on_ptw,
// none with ptw off) and the transactions (--itrace=x: begin, commit,
// abort at the XBEGIN, XEND and XABORT).
func TestPerfPTWriteTSX(t *testing.T) {
	needPerf(t)
	for _, name := range testprog.Extra {
		t.Run(name, func(t *testing.T) { perfPTWriteTSX(t, name) })
	}
}

func perfPTWriteTSX(t *testing.T, name string) {
	prog := testprog.Path(t, name)
	res, ips := traceProg(t, prog)
	if res.Exit != 0 {
		t.Fatalf("%s exit %d", name, res.Exit)
	}
	th := res.Trace.Threads[0]
	want := flowPTWTx(th)
	dir := t.TempDir()
	for _, c := range []struct {
		name   string
		cfg    synth.Config
		perCPU bool
	}{
		{"ptw-fup", synth.Config{PTW: true, FUPOnPTW: true}, false},
		{"ptw", synth.Config{PTW: true, TSC: true, MTC: true, CYC: true}, false},
		{"ptw-off", synth.Config{}, false},
		{"ptw-fup-psb64", synth.Config{PTW: true, FUPOnPTW: true, PSBPeriod: 64, NoRetComp: true}, false},
		{"ptw-fup-percpu", synth.Config{PTW: true, FUPOnPTW: true, TSC: true}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := filepath.Join(dir, c.name+".data")
			if _, err := WriteTrace(data, res.Trace, WriteOptions{PT: c.cfg, BuildIDDir: "-", PerCPU: c.perCPU}); err != nil {
				t.Fatal(err)
			}
			got := perfInsns(perfScript(t, data, "--itrace=i0ns", "-F", "tid,ip"))
			if g, w := got[th.Tid], ips[th.Tid]; !slicesEqual(g, w) {
				t.Errorf("perf prints %d instructions, tracer saw %d (first difference at %d)", len(g), len(w), firstDiff(g, w))
			}
			gotB := perfBranches(perfScript(t, data, "--itrace=b", "-F", "tid,ip,addr"))[th.Tid]
			if wb := flowBranches(th); !slicesEqual(gotB, wb) {
				i := firstDiff(gotB, wb)
				t.Errorf("perf prints %d branches, flow has %d; first difference at %d: perf %x, flow %x",
					len(gotB), len(wb), i, gotB[i:min(i+3, len(gotB))], wb[i:min(i+3, len(wb))])
			}
			bits, payloads, pips := perfPTW(t, perfScript(t, data, "--itrace=w", "-F", "tid,ip,synth"))
			if !c.cfg.PTW {
				if len(payloads) != 0 {
					t.Errorf("ptw off: perf shows %d ptwrites", len(payloads))
				}
			} else {
				if !slicesEqual(payloads, want.payloads) {
					t.Errorf("perf's ptwrite payloads %x, want %x", payloads, want.payloads)
				}
				for i := range bits {
					if bits[i] != c.cfg.FUPOnPTW {
						t.Errorf("ptwrite %d: IP bit %v", i, bits[i])
					}
				}
				if c.cfg.FUPOnPTW && !slicesEqual(pips, want.ptwIPs) {
					t.Errorf("perf's ptwrite IPs %x, want %x", pips, want.ptwIPs)
				}
			}
			tips, tflags := perfTx(perfScript(t, data, "--itrace=x", "-F", "tid,ip,flags"))
			if !slicesEqual(tips, want.txIPs) || !slicesEqual(tflags, want.txFlags) {
				t.Errorf("perf's transactions %x %q, want %x %q", tips, tflags, want.txIPs, want.txFlags)
			}
		})
	}
}

// TestPtxedPTWriteTSX decodes ptwtsx's stream with our ptxed (libipt's
// output): the instructions the tracer retired, a ptwrite event with each
// payload at its PTWRITE, and the transaction events.
func TestPtxedPTWriteTSX(t *testing.T) {
	prog := testprog.Path(t, "ptwtsx")
	res, ips := traceProg(t, prog)
	th := res.Trace.Threads[0]
	want := flowPTWTx(th)
	s, err := synth.Encode(th, synth.Config{PTW: true, FUPOnPTW: true, PSBPeriod: 64})
	if err != nil {
		t.Fatal(err)
	}
	pt := filepath.Join(t.TempDir(), "ptwtsx.pt")
	if err := os.WriteFile(pt, s.Data, 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if rc := ptxed.Main([]string{"--block-decoder", "--no-inst", "--event:ip", "--pt", pt, "--elf", prog}, &out, &errb); rc != 0 {
		t.Fatalf("ptxed: exit %d: %s", rc, errb.String())
	}
	var gotIPs []uint64
	var events []string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if strings.HasPrefix(line, "[") {
			events = append(events, line)
			continue
		}
		ip, err := strconv.ParseUint(strings.TrimSpace(strings.TrimPrefix(line, "?")), 16, 64)
		if err != nil {
			t.Fatalf("bad line %q", line)
		}
		gotIPs = append(gotIPs, ip)
	}
	if !slicesEqual(gotIPs, ips[th.Tid]) {
		t.Errorf("ptxed prints %d instructions, tracer saw %d (first difference at %d)", len(gotIPs), len(ips[th.Tid]), firstDiff(gotIPs, ips[th.Tid]))
	}
	var wantEv []string
	for i, v := range want.payloads {
		wantEv = append(wantEv, fmt.Sprintf("[ptwrite: %x, ip: %016x]", v, want.ptwIPs[i]))
	}
	names := map[string]string{"x": "[begin transaction, ip: %016x]", "": "[committed, ip: %016x]", "tx abrt": "[aborted, ip: %016x]"}
	for i, f := range want.txFlags {
		wantEv = append(wantEv, fmt.Sprintf(names[f], want.txIPs[i]))
	}
	var gotEv []string
	for _, e := range events {
		if strings.HasPrefix(e, "[ptwrite") || strings.Contains(e, "transaction") || strings.HasPrefix(e, "[committed") || strings.HasPrefix(e, "[aborted") {
			gotEv = append(gotEv, e)
		}
	}
	// ptxed interleaves the kinds; compare them sorted.
	slices.Sort(gotEv)
	slices.Sort(wantEv)
	if !slices.Equal(gotEv, wantEv) {
		t.Errorf("ptxed events:\n%s\nwant:\n%s", strings.Join(gotEv, "\n"), strings.Join(wantEv, "\n"))
	}
}
