package ptxed

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/perfpt/perfpt/ptdecode/flow"
	"github.com/perfpt/perfpt/ptdecode/flow/flowtest"
)

// TestJobs runs ptxed on a generated trace over this test binary's code
// with -j 1, 2, 4 and 8 and compares the full outputs, disassembly, blocks
// and statistics included.
func TestJobs(t *testing.T) {
	p := flowtest.LoadProgram(t)
	exe, _ := os.Executable()
	defer func(n int) { flow.ChunkBytes = n }(flow.ChunkBytes)
	flow.ChunkBytes = 4 << 10
	size := 24 << 10
	if testing.Short() || raceEnabled {
		size = 8 << 10
	}
	trace, _ := flowtest.Generate(p, size, 2048, 11)
	trace[len(trace)/3] ^= 0x5a // an error in the middle
	pt := filepath.Join(t.TempDir(), "gen.pt")
	if err := os.WriteFile(pt, trace, 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(jobs int, opts ...string) []byte {
		var out, errb bytes.Buffer
		args := append([]string{"--block-decoder", "--elf", exe, "--event:ip", "--pt", pt,
			"-j", strconv.Itoa(jobs)}, opts...)
		if code := Main(args, &out, &errb); code != 0 {
			t.Fatalf("-j %d: exit %d: %s", jobs, code, errb.String())
		}
		return out.Bytes()
	}
	// Instructions go through per-chunk printers; shown or counted blocks
	// are decoded in order (libipt's cold block cache ends blocks).
	for _, opts := range [][]string{{"--stat:insn"}, {"--block:show-blocks", "--stat"}} {
		want := run(1, opts...)
		t.Logf("%v: %d bytes of trace, %d bytes of output", opts, len(trace), len(want))
		for _, jobs := range []int{2, 4, 8} {
			if got := run(jobs, opts...); !bytes.Equal(got, want) {
				t.Errorf("%v -j %d: output differs from -j 1 (%d bytes, want %d)", opts, jobs, len(got), len(want))
			}
		}
	}
}
