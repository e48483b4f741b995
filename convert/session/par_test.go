package session

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/internal/linediff"
	"github.com/perfpt/perfpt/record"
	"github.com/perfpt/perfpt/record/synth"
	"github.com/perfpt/perfpt/record/testprog"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testprog.Cleanup()
	os.Exit(code)
}

// recordPT records a test program with the emulated recorder, or skips.
func recordPT(t *testing.T, name string, pt synth.Config) string {
	t.Helper()
	return recordPTOpt(t, name, record.WriteOptions{PT: pt})
}

// recordPTOpt is recordPT with the recorder's write options (PerCPU...).
func recordPTOpt(t *testing.T, name string, wo record.WriteOptions) string {
	t.Helper()
	return recordPTArgs(t, name, nil, wo)
}

// recordPTArgs is recordPTOpt with the program's arguments.
func recordPTArgs(t *testing.T, name string, args []string, wo record.WriteOptions) string {
	t.Helper()
	if testing.Short() {
		t.Skip("records programs")
	}
	for _, tool := range []string{"gcc", "make"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s", tool)
		}
	}
	dir := t.TempDir()
	data := filepath.Join(dir, name+".data")
	opt := record.Options{Output: data, WriteOptions: wo}
	opt.BuildIDDir = filepath.Join(dir, "debug")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := record.Emulate(ctx, append([]string{testprog.Path(t, name)}, args...), opt); err != nil {
		testprog.EmulateFailed(t, name, err)
	}
	return data
}

// corruptAux copies data with n bytes of fill at a fraction of the way into
// each AUXTRACE payload.
var corruptAux = testprog.CorruptAux

// textSeg is a Segment printing as decodeText does.
type textSeg struct {
	buf   bytes.Buffer
	out   *bytes.Buffer
	drain func()
}

func (s *textSeg) Sample(smp *sample.Sample) { printSample(&s.buf, smp) }
func (s *textSeg) Error(e *sample.ErrorLine) { printError(&s.buf, e) }
func (s *textSeg) Len() int                  { return s.buf.Len() }
func (s *textSeg) Emit(from, to int) {
	s.out.Write(s.buf.Bytes()[from:to])
	if s.drain != nil {
		s.drain()
	}
}
func (s *textSeg) Reset() { s.buf.Reset() }

func printSample(out *bytes.Buffer, smp *sample.Sample) {
	sym := ""
	if smp.IPLoc.Sym != nil {
		sym = smp.IPLoc.Sym.Name
	}
	fmt.Fprintf(out, "%s %s %d/%d %d %d %x %x %d %x %s %s+%x %d %x\n", smp.Ev.Name, smp.Comm, smp.PID, smp.TID,
		smp.CPU, smp.Time, smp.IP, smp.Addr, smp.Period, smp.Flags, smp.IPLoc.DSO, sym, smp.IPLoc.Addr,
		smp.InsnLen, smp.Insn[:smp.InsnLen])
}

func printError(out *bytes.Buffer, e *sample.ErrorLine) {
	fmt.Fprintf(out, "error %d %d %d/%d %d %x %s\n", e.Code, e.CPU, e.PID, e.TID, e.Time, e.IP, e.Msg)
}

// decodeText runs a session and prints every sample and error it delivers
// with all the fields parallel decoding must keep; workers < 0 means -j
// -workers with Handler.Fork.
func decodeText(t testing.TB, data, itrace string, workers int) ([]byte, [2]int) {
	t.Helper()
	it, err := sample.ParseItrace(itrace)
	if err != nil {
		t.Fatal(err)
	}
	fork := workers < 0
	if fork {
		workers = -workers
	}
	s, err := Open(data, Options{Workers: workers, Itrace: it, BuildIDDir: "-"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var out bytes.Buffer
	h := Handler{
		Sample: func(smp *sample.Sample) { printSample(&out, smp) },
		Error:  func(e *sample.ErrorLine) { printError(&out, e) },
	}
	if fork {
		h.Fork = func() Segment { return &textSeg{out: &out} }
	}
	if hashOutput {
		// Large outputs: keep a running hash, not the text.
		sum := sha256.New()
		inner := h
		drain := func() {
			if out.Len() > 1<<20 {
				sum.Write(out.Bytes())
				out.Reset()
			}
		}
		h.Sample = func(smp *sample.Sample) { inner.Sample(smp); drain() }
		h.Error = func(e *sample.ErrorLine) { inner.Error(e); drain() }
		if fork {
			h.Fork = func() Segment { return &textSeg{out: &out, drain: drain} }
		}
		err = s.Run(h)
		sum.Write(out.Bytes())
		out.Reset()
		out.Write(sum.Sum(nil))
	} else {
		err = s.Run(h)
	}
	if err != nil {
		t.Fatal(err)
	}
	var st [2]int
	if s.pt != nil {
		st = s.pt.parStats
	}
	return out.Bytes(), st
}

// checkWorkers compares the output of each number of workers with one
// worker's and reports how many chunks were taken and redone.
func checkWorkers(t *testing.T, data, itrace string, workers ...int) {
	t.Helper()
	checkSame(t, itrace, false, func(j int) ([]byte, [2]int) { return decodeText(t, data, itrace, j) }, workers...)
}

// checkSame compares what decode gives with each number of workers with
// what it gives with one, and reports how many chunks were taken and
// redone; with needTaken some chunk must have been decoded ahead.
func checkSame(t *testing.T, what string, needTaken bool, decode func(workers int) ([]byte, [2]int), workers ...int) {
	t.Helper()
	want, _ := decode(1)
	if len(want) == 0 {
		t.Fatalf("%s: no output", what)
	}
	for _, j := range workers {
		got, st := decode(j)
		switch {
		case !bytes.Equal(got, want):
			t.Errorf("%s -j %d: output differs from -j 1 (%d vs %d bytes)%s", what, j, len(got), len(want), firstDiff(got, want))
		case needTaken && st[0] == 0:
			t.Errorf("%s -j %d: no chunk taken", what, j)
		default:
			t.Logf("%s -j %d: %d bytes identical; %d chunks taken, %d redone", what, j, len(got), st[0], st[1])
		}
	}
}

// parCase is a recording of prog with many PSBs for the parallel
// decoding tests.
type parCase struct {
	name, prog string
	pt         synth.Config
}

var parCases = []parCase{
	{"untimed", "mix-static-O0", synth.Config{PSBPeriod: 256}},
	{"tsc", "mix-dyn-O2", synth.Config{PSBPeriod: 256, TSC: true}},
	{"threads", "threads-static-O2", synth.Config{PSBPeriod: 256}},
	{"threads-mtc", "threads-dyn-O2", synth.Config{PSBPeriod: 512, TSC: true, MTC: true, MTCPeriod: 3}},
}

// redoEveryOther is a parRedo that drops every second chunk it is asked
// about (on Run's goroutine), so that a decode with few chunks still takes
// some (dropping by offset, pos%3 == 1, could drop all two of them).
func redoEveryOther() func(uint64) bool {
	n := 0
	return func(uint64) bool {
		n++
		return n%2 == 0
	}
}

// firstDiff describes the first line where a and b differ (linediff),
// after "; ", or "".
func firstDiff(a, b []byte) string {
	if r := linediff.Compare(string(a), string(b)); r.N > 0 {
		return "; " + r.String("got", "want")
	}
	return ""
}

// TestParallelDecode checks that chunked parallel decoding gives the
// sequential decode's samples and errors on recordings with many PSBs:
// untimed, TSC and TSC+MTC timed, several threads, corrupted AUX data.
func TestParallelDecode(t *testing.T) {
	defer func(n int) { chunkBytes = n }(chunkBytes)
	for _, c := range parCases {
		t.Run(c.name, func(t *testing.T) {
			data := recordPT(t, c.prog, c.pt)
			// Every PSB starts a chunk; then chunks of several PSBs.
			// (-j with Handler.Fork: negative)
			chunkBytes = 1
			checkWorkers(t, data, "i0nse", 2, -8)
			chunkBytes = 700
			checkWorkers(t, data, "i0nse", -4)
			chunkBytes = 300
			bad := corruptAux(t, data, 0x55, 8, 0.4)
			checkWorkers(t, bad, "i0nse", 2, -2)
			// Chunks dropped although equal: decoded again in sequence
			// between taken ones.
			parRedo = redoEveryOther()
			checkWorkers(t, data, "i0nse", 2, -2)
			parRedo = func(uint64) bool { return false }
			// Options that keep the sequential decode.
			checkWorkers(t, data, "i3ie", 2)
		})
	}
}

// hashOutput makes decodeText return a hash of its output.
var hashOutput bool

// TestParallelLarge compares -j 1 and -j 2 on $PERFPT_BENCH_DATA.
func TestParallelLarge(t *testing.T) {
	data := os.Getenv("PERFPT_BENCH_DATA")
	if data == "" || testing.Short() {
		t.Skip("PERFPT_BENCH_DATA not set")
	}
	hashOutput = true
	defer func() { hashOutput = false }()
	want, _ := decodeText(t, data, "i0ns", 1)
	for _, j := range []int{2, -2} {
		got, st := decodeText(t, data, "i0ns", j)
		if !bytes.Equal(got, want) {
			t.Fatalf("-j %d differs from -j 1%s", j, firstDiff(got, want))
		}
		t.Logf("-j %d: %d bytes identical; %d chunks taken, %d redone", j, len(got), st[0], st[1])
	}
}
