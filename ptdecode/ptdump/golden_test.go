package ptdump

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden dumps in testdata/pt")

// goldenCases are dumps of the trace fixtures in testdata/pt with option
// sets the corpus uses little; the golden files were checked to be
// byte-identical to libipt's ptdump (see testdata/pt/README.md).
var goldenCases = []struct {
	golden string
	args   []string
}{
	{"all-kinds.ptdump", []string{"all-kinds.pt"}},
	{"all-kinds-raw.ptdump", []string{"--raw", "--lastip", "--exec-mode", "--no-pad", "all-kinds.pt"}},
	{"mix-time.ptdump", []string{"--time", "--lastip", "--cpuid-0x15.eax", "2", "--cpuid-0x15.ebx", "11", "--mtc-freq", "3", "mix.pt:0-0x800"}},
	{"mix-tcal.ptdump", []string{"--tcal", "--time-delta", "--nom-freq", "8", "--no-offset", "mix.pt:0x1000-0x1800"}},
	{"blocks.ptdump", []string{"--block-items", "--raw", "blocks.pt"}},
	{"mix-quiet.ptdump", []string{"--quiet", "--lastip", "--time", "mix.pt:0-0x1000"}},
}

func TestGolden(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "pt")
	t.Chdir(dir)
	for _, c := range goldenCases {
		t.Run(c.golden, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if code := Main(c.args, &out, &errOut); code != 0 {
				t.Fatalf("ptdump %s: exit %d: %s", strings.Join(c.args, " "), code, errOut.String())
			}
			if *update {
				if err := os.WriteFile(c.golden, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(c.golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out.Bytes(), want) {
				t.Errorf("ptdump %s differs from %s (go test -update rewrites it)", strings.Join(c.args, " "), c.golden)
			}
		})
	}
}

// TestUsage checks the command-line errors and exit statuses of Main.
func TestUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		err  string
	}{
		{nil, 1, "No processor trace file specified"},
		{[]string{"--bogus", "x.pt"}, 1, "unknown option: --bogus"},
		{[]string{"--time", "--tcal", "x.pt"}, 1, "specify either --time or --tcal"},
		{[]string{"--mtc-freq", "300", "x.pt"}, 1, "value too big"},
		{[]string{"--mtc-freq"}, 1, "missing argument"},
		{[]string{"--cpu", "6", "x.pt"}, 1, "cpu must be specified as f/m[/s]"},
		{[]string{"a.pt", "b.pt"}, 1, "Use --help"},
		{[]string{"/nonexistent/x.pt"}, 1, "failed to open"},
		{[]string{"--help"}, 0, ""},
	} {
		var out, errOut bytes.Buffer
		code := Main(c.args, &out, &errOut)
		if code != c.code || !strings.Contains(errOut.String(), c.err) {
			t.Errorf("ptdump %v: exit %d, stderr %q; want %d and %q", c.args, code, errOut.String(), c.code, c.err)
		}
	}
}

// TestQuietErrors: --quiet (which decodes in batches) prints exactly the
// bracketed error lines of the full dump, on a damaged trace long enough
// for Decoder.Batch's parallel lanes: 64 copies of mix.pt with bytes
// overwritten here and there, each error followed by a resync.
func TestQuietErrors(t *testing.T) {
	mix, err := os.ReadFile(filepath.Join("..", "..", "testdata", "pt", "mix.pt"))
	if err != nil {
		t.Fatal(err)
	}
	buf := bytes.Repeat(mix, 64)
	for i := 1000; i < len(buf); i += 7919 {
		buf[i] ^= 0x5a
	}
	for _, c := range []struct {
		name string
		opt  Options
	}{{"plain", Options{ShowOffset: true}}, {"lastip", Options{ShowOffset: true, LastIP: true}}, {"no-sync", Options{ShowOffset: true, NoSync: true}}} {
		o := c.opt
		var full, quiet bytes.Buffer
		if err := Dump(&full, buf, &o); err != nil {
			t.Fatal(err)
		}
		q := o
		q.Quiet = true
		if err := Dump(&quiet, buf, &q); err != nil {
			t.Fatal(err)
		}
		var want []byte
		for _, l := range bytes.SplitAfter(full.Bytes(), []byte("\n")) {
			if bytes.HasPrefix(l, []byte("[")) {
				want = append(want, l...)
			}
		}
		if len(want) == 0 {
			t.Fatalf("%s: no error in the damaged trace", c.name)
		}
		if !bytes.Equal(quiet.Bytes(), want) {
			t.Errorf("%s: --quiet printed\n%s\nthe full dump's errors are\n%s", c.name, quiet.Bytes(), want)
		}
		t.Logf("%s: %d error lines", c.name, bytes.Count(want, []byte("\n")))
	}
}
