package cli

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// ptNumCase is one command line of ptdump or ptxed whose numeric
// arguments libipt reads with strtoull(arg, &rest, 0) (or pt_cpu_parse's
// strtol): the exit status and stderr libipt gives (F stands for the
// trace file, "" for a silent success).
type ptNumCase struct {
	args []string
	code int
	err  string
}

// ptNumCases lists the argument forms, for ptdump then for ptxed (whose
// --cpu must come before --pt, as libipt's wants).
func ptNumCases() map[string][]ptNumCase {
	var dump, xed []ptNumCase
	num := func(opt, val string, code int, err string) {
		dump = append(dump, ptNumCase{[]string{opt, val, "F"}, code, strings.ReplaceAll(err, "TOOL", "ptdump")})
		xed = append(xed, ptNumCase{[]string{opt, val, "--pt", "F"}, code, strings.ReplaceAll(err, "TOOL", "ptxed")})
	}
	for _, v := range []string{"3", "0x3", "0X3", "03", "+3", " 3", "\t\n3", "-0", "255", "0xff", "0377", "", "00"} {
		if v == "" {
			num("--mtc-freq", v, 1, "TOOL: --mtc-freq: missing argument.\n")
			continue
		}
		num("--mtc-freq", v, 0, "")
	}
	for _, v := range []string{"0b1", "0o7", "1_0", "0x", "08", "3 ", "3x", "- 3", "+-3", "99999999999999999999", "0x1p3", "1e3", "x"} {
		num("--nom-freq", v, 1, "TOOL: --nom-freq: bad argument: "+v+".\n")
	}
	for _, v := range []string{"-1", "256", "0x100", "18446744073709551615", "-18446744073709551615"} {
		if v == "-18446744073709551615" { // 1 modulo 2^64
			num("--mtc-freq", v, 0, "")
			continue
		}
		num("--mtc-freq", v, 1, "TOOL: --mtc-freq: value too big: "+v+".\n")
	}
	num("--mtc-freq", "--x", 1, "TOOL: --mtc-freq: missing argument.\n")
	num("--cpuid-0x15.eax", "4294967295", 0, "")
	num("--cpuid-0x15.eax", " -0", 0, "")
	num("--cpuid-0x15.eax", "4294967296", 1, "TOOL: --cpuid-0x15.eax: value too big: 4294967296.\n")
	num("--cpuid-0x15.ebx", "-4294967295", 1, "TOOL: --cpuid-0x15.ebx: value too big: -4294967295.\n")
	num("--cpuid-0x15.ebx", "0X10", 0, "")
	for _, v := range []string{"6/158", "6/158/9", "6/158/", "0x6/0x9e/0xa", " 6/ 158", "+6/+158/+1", "-0/0", "06/010",
		"65535/255/255", "none"} {
		num("--cpu", v, 0, "")
	}
	for _, v := range []string{"6", "6/", "/6", "6/158/x", "65536/1", "6/256", "6/-1", "-1/2", "6/158/9/1", "6/0b1",
		"6/1_0", "6/158/ ", "6 /158", "99999999999999999999/1", "6/158/-1", ""} {
		num("--cpu", v, 1, "TOOL: cpu must be specified as f/m[/s]\n")
	}

	// File ranges: the trace file is 32 bytes.
	rng := func(suffix string, code int, err string) {
		dump = append(dump, ptNumCase{[]string{"F" + suffix}, code, strings.ReplaceAll(err, "TOOL", "ptdump")})
		if code == 2 {
			code = 1 // ptxed returns -1 on its arguments
		}
		xed = append(xed, ptNumCase{[]string{"--pt", "F" + suffix}, code, strings.ReplaceAll(err, "TOOL", "ptxed")})
	}
	for _, s := range []string{"", ":0", ":0x10", ":1-17", ": 1", ":1- 17", ":+1", ":0-0x20", ":-0x20--0x10"} {
		if s == ":-0x20--0x10" {
			rng(s, 1, "TOOL: bad range 0xfffffffffffffff0 in F.\n")
			continue
		}
		rng(s, 0, "")
	}
	for _, s := range []string{":-", ":1-", ":2-1", ":-1-0", ":5-5"} {
		rng(s, 2, "TOOL: bad file F"+s+": invalid argument.\n")
	}
	for _, s := range []string{":", ":abc", ":0b1", ":1_0", ":0x", ":99999999999999999999", ":1-99999999999999999999", ":1-x", ":1 "} {
		rng(s, 1, "TOOL: failed to open F"+s+": 2.\n")
	}
	rng(":32", 1, "TOOL: bad offset 0x20 into F.\n")
	rng(":16-0x100", 1, "TOOL: bad range 0x100 in F.\n")
	rng(":-1", 1, "TOOL: failed to load F: 22.\n")
	rng(":0x8000000000000000", 1, "TOOL: failed to allocated memory F.\n")

	// ptxed's --raw <file>[:<range>]:<base> (libipt's extract_base, then
	// preprocess_filename).
	raw := func(arg string, code int, err string) {
		xed = append(xed, ptNumCase{[]string{"--raw", arg, "--pt", "F"}, code, err})
	}
	for _, a := range []string{"F:0x1000", "F: 0x1000", "F:-0x1000", "F:0:0x1000", "F:1-2:0x1000"} {
		raw(a, 0, "")
	}
	for _, a := range []string{"F", "F:", "F:0b1", "F:0x", "F:1_0", "F:99999999999999999999"} {
		raw(a, 1, "ptxed: failed to parse base addressfrom '"+a+"'.\nptxed: --raw: failed to load '"+a+"'.\n")
	}
	raw("F:1-0:0x1000", 1, "ptxed: bad file F:1-0: invalid argument.\nptxed: --raw: failed to load 'F:1-0'.\n")
	return map[string][]ptNumCase{"ptdump": dump, "ptxed": xed}
}

// libiptBin is the directory of libipt's ptdump and ptxed: LIBIPT_BIN, or
// that of PTXED (TestAgainstLibiptPtxed's), or "" when neither is set.
func libiptBin() string {
	if d := os.Getenv("LIBIPT_BIN"); d != "" {
		return d
	}
	if p := os.Getenv("PTXED"); p != "" {
		return filepath.Dir(p)
	}
	return ""
}

// TestPtNumericArgs: ptdump's and ptxed's numeric arguments, --cpu and
// file ranges are read as libipt reads them (strtoull base 0: leading
// blanks, signs taken modulo 2^64, no 0b/0o/_), with libipt's error lines
// and exit status; and, when LIBIPT_BIN (or PTXED) names libipt's
// tools, each outcome (stdout too) is the one they give.
func TestPtNumericArgs(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.pt")
	tr := bytes.Repeat([]byte{0x02, 0x82}, 8) // PSB
	tr = append(tr, 0x02, 0x23)               // PSBEND
	tr = append(tr, make([]byte, 14)...)      // PADs
	if err := os.WriteFile(trace, tr, 0o644); err != nil {
		t.Fatal(err)
	}
	bin := libiptBin()
	if bin == "" {
		t.Log("libipt not compared: set LIBIPT_BIN to the directory of libipt's ptdump and ptxed")
	}
	for tool, cases := range ptNumCases() {
		lib := ""
		if bin != "" {
			lib = filepath.Join(bin, tool)
			if _, err := os.Stat(lib); err != nil {
				t.Errorf("LIBIPT_BIN: %v", err)
				lib = ""
			}
		}
		same := 0
		for _, c := range cases {
			args := make([]string, len(c.args))
			for i, a := range c.args {
				args[i] = strings.ReplaceAll(a, "F", trace)
			}
			want := strings.ReplaceAll(c.err, "F", trace)
			r := perfpt(append([]string{tool}, args...)...)
			if r.code != c.code || r.err != want {
				t.Errorf("%s %q: exit %d, stderr %q; want exit %d, stderr %q", tool, c.args, r.code, r.err, c.code, want)
			}
			if lib == "" {
				continue
			}
			var o, e bytes.Buffer
			cmd := &exec.Cmd{Path: lib, Args: append([]string{tool}, args...), Stdout: &o, Stderr: &e}
			code := 0
			if err := cmd.Run(); err != nil {
				var ee *exec.ExitError
				if !errors.As(err, &ee) {
					t.Fatalf("%s: %v", lib, err)
				}
				code = ee.ExitCode()
			}
			if code != c.code || e.String() != want {
				t.Errorf("libipt %s %q: exit %d, stderr %q; the table says exit %d, stderr %q", tool, c.args, code, e.String(), c.code, want)
			}
			if code == r.code && e.String() == r.err && o.String() == r.out {
				same++
			} else if o.String() != r.out {
				t.Errorf("%s %q: stdout differs from libipt's:\n%.300s\nlibipt:\n%.300s", tool, c.args, r.out, o.String())
			}
		}
		if lib != "" {
			t.Logf("%s: %d of %d argument forms as libipt's", tool, same, len(cases))
		}
	}
}
