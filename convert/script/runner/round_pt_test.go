package runner

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/convert/session"
	"github.com/perfpt/perfpt/internal/perfopt"
)

// TestPTShowRoundRefused: --show-round-events turns the time ordering off,
// which Intel PT decoding needs: perf script fails on the first record
// after the PT setup with intel_pt_process_event's error and the record's
// line (exit status 234), printing nothing (checked with perf 6.1 on
// testdata's example and on quipper's perf.data.intel_pt-4.14, file and
// pipe mode: the pipe's line has no error name).
func TestPTShowRoundRefused(t *testing.T) {
	in := filepath.Join("..", "..", "..", "testdata", "example", "primes.perf.data")
	var out, stderr bytes.Buffer
	err := Run(Config{Input: in, Symfs: filepath.Join("..", "..", "..", "testdata", "example", "symfs"),
		Show: session.ShowRound | session.ShowTask}, &out, &stderr)
	var ex *perfopt.Exit
	const want = "Intel Processor Trace requires ordered events\n0x270 [0x30]: failed to process type: 15 [Invalid argument]"
	if !errors.As(err, &ex) || ex.Msg != want || ex.Status != 234 {
		t.Fatalf("got error %v, want status 234 and %q", err, want)
	}
	if out.Len() != 0 {
		t.Errorf("printed %q, want nothing", out.String())
	}
}

// TestPTPSBAddr: a psb sample's address is the decoder state's to IP, as
// intel_pt_prep_b_sample sets it for every synth event: here the IP of
// the PSB+'s FUP, where the walk resumes after code it cannot read
// (lines as perf 6.1 prints them on testdata's example without its
// programs; quipper's perf.data.intel_pt-4.14 printed 0 for 5 psb lines
// with -F +addr).
func TestPTPSBAddr(t *testing.T) {
	in := filepath.Join("..", "..", "..", "testdata", "example", "primes.perf.data")
	var out, stderr bytes.Buffer
	if err := Run(Config{Input: in, ItraceSet: true, Itrace: "pe", Fields: []string{"+addr"}}, &out, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	for _, want := range []string{
		"          primes  6049 [000]  1000.000000:         psb:  psb offs: 0                                     0                0 [unknown] ([unknown])\n",
		"          primes  6049 [000]  1000.000020:         psb:  psb offs: 0x1003                           41ee39                0 [unknown] ([unknown])\n",
		"          primes  6049 [000]  1000.000038:         psb:  psb offs: 0x2006                           4017f5                0 [unknown] ([unknown])\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no line %q in:\n%.600s", want, out.String())
		}
	}
}
