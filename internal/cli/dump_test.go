package cli

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/perfdata"
	"github.com/perfpt/perfpt/perfdata/perftext"
)

const dumpFixture = "../../testdata/perf/cpu-clock-g.data"

// TestDumpCommand runs perfpt dump on a file and on standard input (pipe
// and file mode) and compares with perftext.Dump.
func TestDumpCommand(t *testing.T) {
	f, err := perfdata.Open(dumpFixture)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := perftext.Dump(&want, f, perftext.DumpOptions{Order: perfdata.TimeOrder}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var out, errb bytes.Buffer
	if code := Main([]string{"perfpt", "dump", "-i", dumpFixture}, nil, &out, &errb); code != 0 || out.String() != want.String() {
		t.Fatalf("exit %d, stderr %q, output equal %v", code, errb.String(), out.String() == want.String())
	}
	for _, name := range []string{dumpFixture, "../../testdata/perf/pipe.data"} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		out.Reset()
		if code := Main([]string{"perfpt", "dump", "-i", "-", "--file-order"}, bytes.NewReader(b), &out, &errb); code != 0 {
			t.Fatalf("%s from stdin: exit %d: %s", name, code, errb.String())
		}
		if !strings.Contains(out.String(), "PERF_RECORD_SAMPLE(IP, 0x2)") || !strings.Contains(out.String(), "SAMPLE events:") {
			t.Errorf("%s from stdin: unexpected output %.200s", name, out.String())
		}
	}
}

// TestHeaderCommand runs perfpt header and checks a bad file's error.
func TestHeaderCommand(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Main([]string{"perfpt", "header", "-i", dumpFixture}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"# hostname : ", "# event : name = cpu-clock", "# CPU_TOPOLOGY info available, use -I to display"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
	out.Reset()
	if code := Main([]string{"perfpt", "header", "-I", "-i", dumpFixture}, nil, &out, &errb); code != 0 || !strings.Contains(out.String(), "# sibling threads :") {
		t.Errorf("-I: exit %d, output %.300s", code, out.String())
	}
	errb.Reset()
	code := Main([]string{"perfpt", "header", "-i", "dump_test.go"}, nil, &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "perfpt: perf.data offset 0x0: magic") {
		t.Errorf("bad file: exit %d, stderr %q", code, errb.String())
	}
}
