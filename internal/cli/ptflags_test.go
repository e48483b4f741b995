package cli

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/internal/conformance"
	"github.com/perfpt/perfpt/perfdata"
)

// The checks of ptdump's and ptxed's options. Most take a command line of
// the libipt conformance corpus (../shared) that uses the option and show
// that changing it changes the output; the others run on the example
// recording's trace.

// argvEdit changes a command line.
type argvEdit func(argv []string) []string

// drop removes opt and, when n > 0, the n values after it.
func drop(opt string, n int) argvEdit {
	return func(a []string) []string {
		i := slices.Index(a, opt)
		if i < 0 {
			return nil
		}
		return slices.Delete(slices.Clone(a), i, i+1+n)
	}
}

// insert puts opts before the first of before (or after the tool name when
// before is "" or absent).
func insert(before string, opts ...string) argvEdit {
	return func(a []string) []string {
		i := 1
		if j := slices.Index(a, before); before != "" && j >= 0 {
			i = j
		}
		return slices.Insert(slices.Clone(a), i, opts...)
	}
}

// replace changes the value after opt (or opt itself when val is "").
func replace(opt, with string, value bool) argvEdit {
	return func(a []string) []string {
		i := slices.Index(a, opt)
		if i < 0 {
			return nil
		}
		a = slices.Clone(a)
		if value {
			a[i+1] = with
		} else {
			a[i] = with
		}
		return a
	}
}

func chain(edits ...argvEdit) argvEdit {
	return func(a []string) []string {
		for _, e := range edits {
			if a = e(a); a == nil {
				return nil
			}
		}
		return a
	}
}

// corpusChanges finds command lines of tool in the corpus for which edit
// applies and checks that the edited line prints something else (stdout or
// stderr) than the line from the corpus — or, with base, than base's edit
// of it. pick restricts the cases (nil: all).
func corpusChanges(tool string, pick func(conformance.Case) bool, base, edit argvEdit) func(t *testing.T) {
	return func(t *testing.T) {
		dir := conformance.Dir(t)
		tried := 0
		for _, c := range conformance.Cases(t, dir, tool) {
			if pick != nil && !pick(c) {
				continue
			}
			for _, argv := range c.Argv {
				a := argv
				if base != nil {
					a = base(argv)
				}
				b := edit(argv)
				if a == nil || b == nil {
					continue
				}
				tried++
				if corpusRun(t, dir, c, a) != corpusRun(t, dir, c, b) {
					return
				}
			}
		}
		t.Errorf("%d command lines of the corpus tried: the edit changes none", tried)
	}
}

func corpusRun(t *testing.T, dir string, c conformance.Case, argv []string) string {
	t.Chdir(filepath.Join(dir, c.Dir))
	r := perfpt(argv...)
	return r.out + "\x00" + r.err
}

// has picks the cases whose first command line contains every opt.
func has(opts ...string) func(conformance.Case) bool {
	return func(c conformance.Case) bool {
		for _, o := range opts {
			if !slices.Contains(c.Argv[0], o) {
				return false
			}
		}
		return true
	}
}

// onExample runs tool on the example recording's trace with and without
// extra (ptdump: before the trace file; ptxed: with the primes binary).
func onExample(tool string, extra ...string) func(t *testing.T) {
	return func(t *testing.T) {
		pt := ptFile(t)
		if tool == "ptdump" {
			a := append(append([]string{"ptdump"}, extra...), pt)
			base, with := perfpt("ptdump", pt), perfpt(a...)
			if base.code != 0 || with.code != 0 || base.out == with.out {
				t.Errorf("ptdump %v: exit %d/%d, output changed: %v", extra, base.code, with.code, base.out != with.out)
			}
			return
		}
		differs([]string{"ptxed", "--elf", exBin, "--pt", pt}, extra...)(t)
	}
}

// sameOnExample runs tool on the example's trace with and without extra and
// wants the same output: options that change how, not what.
func sameOnExample(tool string, extra ...string) func(t *testing.T) {
	return func(t *testing.T) {
		pt := ptFile(t)
		var a, b []string
		if tool == "ptdump" {
			a, b = []string{"ptdump", pt}, append(append([]string{"ptdump"}, extra...), pt)
		} else {
			a = []string{"ptxed", "--elf", exBin, "--pt", pt}
			b = append(append([]string{"ptxed"}, extra...), a[1:]...)
		}
		sameOutput(nil, a, b)(t)
	}
}

func ptChecks() map[string]func(t *testing.T) {
	sbFile := func(a []string) int {
		for i, s := range a {
			if strings.HasPrefix(s, "--pevent") && strings.HasSuffix(a[min(i+1, len(a)-1)], ".sb") {
				return i
			}
		}
		return -1
	}
	dropSB := func(a []string) []string { // every sideband file
		for {
			i := sbFile(a)
			if i < 0 {
				return a
			}
			a = slices.Delete(slices.Clone(a), i, i+2)
		}
	}
	ptdumpOpts := map[string]func(t *testing.T){
		"help":      func(t *testing.T) { helpText(t, "ptdump", "--help") },
		"h":         func(t *testing.T) { helpText(t, "ptdump", "-h") },
		"version":   func(t *testing.T) { ok(t, "ptdump", "--version") },
		"no-sync":   corpusChanges("ptdump", nil, nil, drop("--no-sync", 0)),
		"quiet":     onExample("ptdump", "--quiet"),
		"no-pad":    onExample("ptdump", "--no-pad"),
		"no-timing": onExample("ptdump", "--no-timing"),
		"no-cyc":    corpusChanges("ptdump", nil, nil, drop("--no-cyc", 0)),
		"no-offset": corpusChanges("ptdump", nil, nil, drop("--no-offset", 0)),
		"raw":       onExample("ptdump", "--raw"),
		"lastip":    corpusChanges("ptdump", nil, nil, drop("--lastip", 0)),
		"exec-mode": corpusChanges("ptdump", nil, nil, drop("--exec-mode", 0)),
		"time": all(corpusChanges("ptdump", nil, nil, drop("--time", 0)),
			refused("specify either --time or --tcal", "ptdump", "--time", "--tcal", "x.pt")),
		"tcal":             corpusChanges("ptdump", nil, nil, drop("--tcal", 0)),
		"time-delta":       corpusChanges("ptdump", nil, nil, drop("--time-delta", 0)),
		"no-tcal":          onCYCTrace("--no-tcal"),
		"no-wall-clock":    corpusChanges("ptdump", nil, nil, drop("--no-wall-clock", 0)),
		"keep-tcal-on-ovf": corpusChanges("ptdump", nil, nil, drop("--keep-tcal-on-ovf", 0)),
		"block-items":      blockItems,
		"sb":               corpusChanges("ptdump", has("--sb:compact"), drop("--sb:compact", 0), replace("--sb:compact", "--sb", false)),
		"sb:compact":       corpusChanges("ptdump", nil, nil, drop("--sb:compact", 0)),
		"sb:verbose":       corpusChanges("ptdump", nil, nil, drop("--sb:verbose", 0)),
		"sb:filename":      corpusChanges("ptdump", has("--sb:compact"), nil, insert("", "--sb:filename")),
		"sb:offset":        corpusChanges("ptdump", nil, nil, drop("--sb:offset", 0)),
		"sb:time":          corpusChanges("ptdump", nil, nil, drop("--sb:time", 0)),
		// libipt's ptdump prints the sideband records without applying
		// them, so no warning ever comes (ptdump_print_error drops
		// warnings without --sb:warn, but pt_sb_dump reports none):
		// perfpt's does the same, on a LOST record too.
		"sb:warn": func(t *testing.T) {
			sbf := sidebandFile(t, sbRecord(2, le64s(1, 5), 0))
			a := perfpt("ptdump", "--sb:compact", "--pevent:sample-type", "0x6", "--pevent:primary", sbf, ptFile(t))
			b := perfpt("ptdump", "--sb:compact", "--sb:warn", "--pevent:sample-type", "0x6", "--pevent:primary", sbf, ptFile(t))
			if a.code != 0 || a.out != b.out || !strings.Contains(a.out, "PERF_RECORD_LOST") {
				t.Errorf("--sb:warn: exit %d, output changed %v:\n%.300s", a.code, a.out != b.out, a.out)
			}
		},
		"pevent":           corpusChanges("ptdump", has("--pevent:primary"), dropSB, replace("--pevent:primary", "--pevent", false)),
		"pevent:primary":   corpusChanges("ptdump", has("--pevent:primary"), dropSB, func(a []string) []string { return a }),
		"pevent:secondary": corpusChanges("ptdump", has("--pevent:secondary"), nil, drop("--pevent:secondary", 1)),
		"pevent:sample-type": corpusChanges("ptdump", has("--pevent:sample-type", "--sb:compact"), nil,
			replace("--pevent:sample-type", "0x6", true)),
		// Records whose sample_id has TID, TIME and IDENTIFIER 5 read with
		// a sample type of IDENTIFIER only unless the config of id 5 says.
		"pevent:sample-config": func(t *testing.T) {
			sbf := sidebandFile(t, sbRecord(3, append(le32s(1, 1), "x\x00\x00\x00\x00\x00\x00\x00"...), 5))
			a := perfpt("ptdump", "--sb:compact", "--sb:time", "--pevent:sample-type", "0x10000", "--pevent:primary", sbf, ptFile(t))
			b := perfpt("ptdump", "--sb:compact", "--sb:time", "--pevent:sample-type", "0x10000", "--pevent:sample-config", "5:0x10006",
				"--pevent:primary", sbf, ptFile(t))
			if a.out+a.err == b.out+b.err || !strings.Contains(b.out, "PERF_RECORD_COMM") {
				t.Errorf("--pevent:sample-config changes nothing:\n%.300s", b.out)
			}
		},
		"pevent:time-zero":  corpusChanges("ptdump", has("--sb:time"), nil, replace("--pevent:time-zero", "0x1000", true)),
		"pevent:time-shift": corpusChanges("ptdump", has("--sb:time"), replace("--pevent:time-mult", "0x3", true), chain(replace("--pevent:time-mult", "0x3", true), replace("--pevent:time-shift", "0x1", true))),
		"pevent:time-mult":  corpusChanges("ptdump", has("--sb:time"), nil, replace("--pevent:time-mult", "0x3", true)),
		"pevent:tsc-offset": corpusChanges("ptdump", has("--sb:time"), nil, insert("--pevent:primary", "--pevent:tsc-offset", "0x10")),
		// libipt's ptdump takes these and ignores them, as its help says:
		// perfpt's does the same, and wants their argument.
		"pevent:kernel-start": ptdumpIgnored("--pevent:kernel-start", "0xffffffff80000000"),
		"pevent:sysroot":      ptdumpIgnored("--pevent:sysroot", "/nonexistent"),
		"pevent:kcore":        ptdumpIgnored("--pevent:kcore", "/nonexistent"),
		"pevent:vdso-x64":     ptdumpIgnored("--pevent:vdso-x64", "/nonexistent"),
		"pevent:vdso-x32":     ptdumpIgnored("--pevent:vdso-x32", "/nonexistent"),
		"pevent:vdso-ia32":    ptdumpIgnored("--pevent:vdso-ia32", "/nonexistent"),
		"cpu": all(corpusChanges("ptdump", nil, nil, drop("--cpu", 1)),
			refused("cpu must be specified as f/m[/s]", "ptdump", "--cpu", "x", "x.pt")),
		"mtc-freq":       corpusChanges("ptdump", has("--mtc-freq"), nil, replace("--mtc-freq", "1", true)),
		"nom-freq":       corpusChanges("ptdump", has("--nom-freq"), nil, replace("--nom-freq", "1", true)),
		"cpuid-0x15.eax": corpusChanges("ptdump", has("--cpuid-0x15.eax"), nil, replace("--cpuid-0x15.eax", "3", true)),
		"cpuid-0x15.ebx": corpusChanges("ptdump", has("--cpuid-0x15.ebx"), nil, replace("--cpuid-0x15.ebx", "9", true)),
	}
	ptxedOpts := map[string]func(t *testing.T){
		"pt":  all(func(t *testing.T) { ok(t, "ptxed", "--elf", exBin, "--pt", ptFile(t)) }, refused("no pt", "ptxed", "--elf", exBin)),
		"raw": rawImage,
		"elf": func(t *testing.T) { differs([]string{"ptxed", "--pt", ptFile(t)}, "--elf", exBin)(t) },
		// perfpt prints AT&T syntax only, which --att asks for.
		"att": func(t *testing.T) {
			if r := ok(t, "ptxed", "--att", "--elf", exBin, "--pt", ptFile(t)); !strings.Contains(r.out, "%rsp") {
				t.Errorf("--att: no AT&T syntax:\n%.300s", r.out)
			}
		},
		"verbose":         verboseLoads("--verbose"),
		"v":               verboseLoads("-v"),
		"no-inst":         onExample("ptxed", "--no-inst"),
		"quiet":           onExample("ptxed", "--quiet"),
		"q":               onExample("ptxed", "-q"),
		"offset":          onExample("ptxed", "--offset"),
		"time":            onExample("ptxed", "--time"),
		"raw-insn":        onExample("ptxed", "--raw-insn"),
		"check":           checkInsns,
		"resync-on-error": corpusChanges("ptxed", nil, nil, drop("--resync-on-error", 0)),
		"event:time":      corpusChanges("ptxed", nil, nil, drop("--event:time", 0)),
		"event:ip":        corpusChanges("ptxed", nil, nil, drop("--event:ip", 0)),
		"event:tick":      corpusChanges("ptxed", nil, nil, drop("--event:tick", 0)),
		"event:iflags":    corpusChanges("ptxed", nil, nil, drop("--event:iflags", 0)),
		"filter:addrN": all(corpusChanges("ptxed", has("--filter:addr0_cfg"), nil,
			chain(drop("--filter:addr0_cfg", 1), drop("--filter:addr0_a", 1), drop("--filter:addr0_b", 1))),
			refused("value too big", "ptxed", "--filter:addr0_cfg", "16"),
			refused("unknown option", "ptxed", "--filter:addr5_a", "1")),
		// libipt's cap on the memory of its image section cache: perfpt
		// keeps the image files whole, so it decodes the same within a
		// limit their size fits (the example's binary: 766400 bytes) and
		// refuses a smaller one, which libipt meets by unmapping.
		"iscache-limit": all(sameOnExample("ptxed", "--iscache-limit", "1000000"),
			func(t *testing.T) {
				refused("--iscache-limit 4096", "ptxed", "--iscache-limit", "4096", "--elf", exBin, "--pt", ptFile(t))(t)
			},
			refused("--iscache-limit", "ptxed", "--iscache-limit", "x")),
		"stat":        onExample("ptxed", "--stat"),
		"stat:insn":   onExample("ptxed", "--stat:insn"),
		"stat:blocks": onExample("ptxed", "--stat:blocks"),
		"cpu": all(corpusChanges("ptxed", nil, nil, drop("--cpu", 1)),
			func(t *testing.T) { refused("cpu must be specified", "ptxed", "--cpu", "x", "--pt", ptFile(t))(t) }),
		"mtc-freq":       corpusChanges("ptxed", has("--mtc-freq"), nil, replace("--mtc-freq", "1", true)),
		"nom-freq":       corpusChanges("ptxed", has("--nom-freq"), nil, replace("--nom-freq", "1", true)),
		"cpuid-0x15.eax": corpusChanges("ptxed", has("--cpuid-0x15.eax"), nil, replace("--cpuid-0x15.eax", "3", true)),
		"cpuid-0x15.ebx": corpusChanges("ptxed", has("--cpuid-0x15.ebx"), nil, replace("--cpuid-0x15.ebx", "9", true)),
		"insn-decoder": func(t *testing.T) {
			differs([]string{"ptxed", "--block:show-blocks", "--elf", exBin, "--pt", ptFile(t)}, "--insn-decoder")(t)
		},
		"block-decoder": func(t *testing.T) {
			pt := ptFile(t)
			differs([]string{"ptxed", "--insn-decoder", "--block:show-blocks", "--elf", exBin, "--pt", pt}, "--block-decoder")(t)
		},
		"insn:keep-tcal-on-ovf":  corpusChanges("ptxed", nil, nil, drop("--insn:keep-tcal-on-ovf", 0)),
		"block:keep-tcal-on-ovf": corpusChanges("ptxed", nil, nil, drop("--block:keep-tcal-on-ovf", 0)),
		"block:show-blocks":      corpusChanges("ptxed", nil, nil, drop("--block:show-blocks", 0)),
		"block:end-on-call":      corpusChanges("ptxed", nil, nil, drop("--block:end-on-call", 0)),
		"block:end-on-jump":      corpusChanges("ptxed", nil, nil, drop("--block:end-on-jump", 0)),
		// -j shares the decode among workers: the output is the same.
		"jobs":             all(sameOnExample("ptxed", "--jobs", "3"), refused("--jobs", "ptxed", "--jobs", "x")),
		"j":                all(sameOnExample("ptxed", "-j", "3"), refused("-j", "ptxed", "-j", "x")),
		"sb":               corpusChanges("ptxed", has("--sb:compact"), drop("--sb:compact", 0), replace("--sb:compact", "--sb", false)),
		"sb:compact":       corpusChanges("ptxed", nil, nil, drop("--sb:compact", 0)),
		"sb:verbose":       corpusChanges("ptxed", has("--sb:compact"), nil, replace("--sb:compact", "--sb:verbose", false)),
		"sb:filename":      corpusChanges("ptxed", has("--sb:compact"), nil, insert("", "--sb:filename")),
		"sb:offset":        corpusChanges("ptxed", nil, nil, drop("--sb:offset", 0)),
		"sb:time":          corpusChanges("ptxed", has("--sb:compact"), nil, insert("", "--sb:time")),
		"sb:switch":        corpusChanges("ptxed", nil, nil, drop("--sb:switch", 0)),
		"sb:warn":          corpusChanges("ptxed", nil, nil, drop("--sb:warn", 0)),
		"pevent":           corpusChanges("ptxed", has("--pevent:primary", "--sb:compact"), dropSB, replace("--pevent:primary", "--pevent", false)),
		"pevent:primary":   corpusChanges("ptxed", has("--pevent:primary", "--sb:compact"), dropSB, func(a []string) []string { return a }),
		"pevent:secondary": corpusChanges("ptxed", has("--pevent:secondary"), nil, drop("--pevent:secondary", 1)),
		"pevent:sample-type": corpusChanges("ptxed", has("--pevent:sample-type", "--sb:compact"), nil,
			replace("--pevent:sample-type", "0x6", true)),
		"pevent:sample-config": corpusChanges("ptxed", has("--pevent:sample-type", "--sb:compact"), replace("--pevent:sample-type", "0x10004", true),
			chain(replace("--pevent:sample-type", "0x10004", true), insert("--pevent:primary", "--pevent:sample-config", "0:0x4"))),
		"pevent:time-zero":  corpusChanges("ptxed", has("--sb:compact"), insert("", "--sb:time"), chain(insert("", "--sb:time"), replace("--pevent:time-zero", "0x1000", true))),
		"pevent:time-shift": corpusChanges("ptxed", has("--sb:compact"), chain(insert("", "--sb:time"), replace("--pevent:time-mult", "0x3", true)), chain(insert("", "--sb:time"), replace("--pevent:time-mult", "0x3", true), replace("--pevent:time-shift", "0x1", true))),
		"pevent:time-mult":  corpusChanges("ptxed", has("--sb:compact"), insert("", "--sb:time"), chain(insert("", "--sb:time"), replace("--pevent:time-mult", "0x3", true))),
		"pevent:tsc-offset": corpusChanges("ptxed", has("--sb:compact"), insert("", "--sb:time"), chain(insert("", "--sb:time"), insert("--pevent:primary", "--pevent:tsc-offset", "0x10"))),
		// Where the decoder is (user or kernel) at an event with an IP:
		// the corpus has no such event near a switch, so only the
		// refusal of a bad value is shown here (ptdecode/sideband's
		// tests cover the location rules).
		"pevent:kernel-start": all(refused("--pevent:kernel-start", "ptxed", "--pevent:kernel-start", "x"),
			refused("--pevent:kernel-start", "ptxed", "--pevent:kernel-start")),
		"pevent:sysroot": corpusChanges("ptxed", has("--pevent:primary"), insert("", "--sb:warn"),
			chain(insert("", "--sb:warn"), insert("--pevent:primary", "--pevent:sysroot", "/nonexistent"))),
		"pevent:kcore":     all(refused("--pevent:kcore", "ptxed", "--pevent:kcore"), kcoreImage),
		"pevent:vdso-x64":  vdsoImage("--pevent:vdso-x64", elfClass64, 62),
		"pevent:vdso-x32":  vdsoImage("--pevent:vdso-x32", elfClass32, 62),
		"pevent:vdso-ia32": vdsoImage("--pevent:vdso-ia32", elfClass32, 3),
	}
	out := map[string]func(t *testing.T){}
	for n, c := range ptdumpOpts {
		out["ptdump/"+n] = c
	}
	for n, c := range ptxedOpts {
		out["ptxed/"+n] = c
	}
	return out
}

func helpText(t *testing.T, args ...string) {
	if r := ok(t, args...); !strings.Contains(r.out, "usage:") {
		t.Errorf("%v: %q", args, r.out)
	}
}

// ptdumpIgnored: the option needs its argument and changes nothing, as in
// libipt's ptdump.
func ptdumpIgnored(opt, val string) func(t *testing.T) {
	return all(refused("missing argument", "ptdump", opt), sameOnExample("ptdump", opt, val))
}

// blockItems: BBP/BIP/BEP packets (PEBS via PT) are decoded only with
// --block-items.
func blockItems(t *testing.T) {
	tr := bytes.Repeat([]byte{0x02, 0x82}, 8) // PSB
	tr = append(tr, 0x02, 0x23)               // PSBEND
	tr = append(tr, 0x02, 0x63, 0x00)         // BBP, 64-bit, type 0
	p := filepath.Join(t.TempDir(), "bbp.pt")
	if err := os.WriteFile(p, tr, 0o644); err != nil {
		t.Fatal(err)
	}
	a, b := perfpt("ptdump", p), perfpt("ptdump", "--block-items", p)
	if a.out+a.err == b.out+b.err {
		t.Errorf("--block-items changes nothing on a BBP packet: %q", a.out)
	}
}

func rawImage(t *testing.T) {
	pt := ptFile(t)
	refused("--raw", "ptxed", "--raw", exBin, "--pt", pt)(t) // no base address
	// The static primes binary's first PT_LOAD is at file offset 0.
	differs([]string{"ptxed", "--pt", pt}, "--raw", exBin+":0x400000")(t)
}

// verboseLoads: the ELF files after -v have their load segments listed, as
// libipt's load_elf does.
func verboseLoads(flag string) func(t *testing.T) {
	return func(t *testing.T) {
		pt := ptFile(t)
		r := ok(t, "ptxed", flag, "--elf", exBin, "--no-inst", "--pt", pt)
		re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(exBin) + `: offset=0x[0-9a-f]+ size=0x[0-9a-f]+ vaddr=0x[0-9a-f]+\.$`)
		if len(re.FindAllString(r.out, -1)) < 2 {
			t.Errorf("%s: the load segments not listed:\n%.400s", flag, r.out)
		}
		if r := ok(t, "ptxed", "--elf", exBin, flag, "--no-inst", "--pt", pt); strings.Contains(r.out, "offset=0x") {
			t.Errorf("%s after --elf listed its segments", flag)
		}
	}
}

// checkInsns: --check finds nothing on the example's decode (the output is
// the same), and prints the iclass error of a misclassified instruction
// (ptdecode/ptxed's TestCheck).
func checkInsns(t *testing.T) {
	pt := ptFile(t)
	a := ok(t, "ptxed", "--elf", exBin, "--pt", pt)
	b := ok(t, "ptxed", "--elf", exBin, "--check", "--pt", pt)
	if a.out != b.out {
		t.Errorf("--check reports errors on a correct decode: %s", firstDifferentLine(a.out, b.out))
	}
	for _, dec := range []string{"--insn-decoder", "--block-decoder"} {
		if r := ok(t, "ptxed", dec, "--elf", exBin, "--check", "--no-inst", "--pt", pt); strings.Contains(r.out, "error") &&
			strings.Contains(r.out, "iclass") {
			t.Errorf("%s --check: %s", dec, r.out)
		}
	}
}

func firstDifferentLine(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return al[i] + " / " + bl[i]
		}
	}
	return "(lengths differ)"
}

// kcoreImage: --pevent:kcore loads an ELF file as the kernel image: one that
// cannot be read is an error.
func kcoreImage(t *testing.T) {
	dir := conformance.Dir(t)
	for _, c := range conformance.Cases(t, dir, "ptxed") {
		if !has("--pevent:primary")(c) {
			continue
		}
		a := c.Argv[0]
		i := slices.Index(a, "--pevent:primary")
		b := slices.Insert(slices.Clone(a), i, "--pevent:kcore", "/nonexistent")
		if corpusRun(t, dir, c, a) == corpusRun(t, dir, c, b) {
			t.Errorf("%s: --pevent:kcore /nonexistent changes nothing", c.Name)
		}
		return
	}
	t.Fatal("no pevent case in the corpus")
}

const (
	elfClass32 = 1
	elfClass64 = 2
)

// vdsoImage: a process whose first mapping is an ELF file of the option's
// ABI maps [vdso] from the option's file; without it the mapping is refused
// (libipt's pt_sb_pevent_map). The sideband file is written here: MMAP of
// the ABI's file, then MMAP of [vdso], both at time 0.
func vdsoImage(opt string, class byte, machine uint16) func(t *testing.T) {
	return func(t *testing.T) {
		dir := t.TempDir()
		first := filepath.Join(dir, "first")
		hdr := make([]byte, 64)
		copy(hdr, "\x7fELF")
		hdr[4], hdr[5], hdr[6] = class, 1, 1
		binary.LittleEndian.PutUint16(hdr[18:], machine)
		if err := os.WriteFile(first, hdr, 0o644); err != nil {
			t.Fatal(err)
		}
		var sb []byte
		for _, m := range []struct {
			addr uint64
			name string
		}{{0x10000, first}, {0x7fff0000, "[vdso]"}} {
			body := binary.LittleEndian.AppendUint32(nil, 1) // pid
			body = binary.LittleEndian.AppendUint32(body, 1) // tid
			body = binary.LittleEndian.AppendUint64(body, m.addr)
			body = binary.LittleEndian.AppendUint64(body, 64)
			body = binary.LittleEndian.AppendUint64(body, 0)
			body = append(body, m.name...)
			body = append(body, 0)
			for len(body)%8 != 0 {
				body = append(body, 0)
			}
			body = binary.LittleEndian.AppendUint64(body, 0) // sample_id: time
			h := binary.LittleEndian.AppendUint32(nil, uint32(perfdata.RecordTypeMmap))
			h = binary.LittleEndian.AppendUint16(h, 0)
			h = binary.LittleEndian.AppendUint16(h, uint16(8+len(body)))
			sb = append(append(sb, h...), body...)
		}
		sbf := filepath.Join(dir, "vdso.sb")
		if err := os.WriteFile(sbf, sb, 0o644); err != nil {
			t.Fatal(err)
		}
		pt := ptFile(t)
		run := func(extra ...string) cmdResult {
			args := append(append([]string{"ptxed", "--no-inst", "--sb:compact", "--sb:warn", "--pevent:sample-type", "0x4"}, extra...),
				"--pevent:primary", sbf, "--elf", exBin, "--pt", pt)
			return perfpt(args...)
		}
		a, b := run(), run(opt, first)
		if a.out+a.err == b.out+b.err {
			t.Errorf("%s changes nothing on a process of its ABI that maps [vdso]", opt)
		}
	}
}

// onCYCTrace runs ptdump --time on a trace with CYC packets (tiny recorded
// with --timing cyc) with and without extra.
func onCYCTrace(extra ...string) func(t *testing.T) {
	return func(t *testing.T) {
		needTiny(t)
		dir := t.TempDir()
		data := filepath.Join(dir, "cyc.data")
		ok(t, "record", "--emulate", "-N", "--per-thread", "--timing", "cyc", "-o", data, "--", tinyPath)
		f, err := perfdata.Open(data)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		raw, err := os.ReadFile(data)
		if err != nil {
			t.Fatal(err)
		}
		var pt []byte
		rs := f.Records(perfdata.FileOrder)
		for rs.Next() {
			if r, ok := rs.Record.(*perfdata.RecordAuxtrace); ok {
				pt = append(pt, raw[r.DataOffset:r.DataOffset+int64(r.AuxSize)]...)
			}
		}
		p := filepath.Join(dir, "cyc.pt")
		if err := os.WriteFile(p, pt, 0o644); err != nil {
			t.Fatal(err)
		}
		base := []string{"ptdump", "--time", "--mtc-freq", "3", "--cpuid-0x15.eax", "1", "--cpuid-0x15.ebx", "2", "--nom-freq", "20"}
		a, b := perfpt(append(base, p)...), perfpt(append(append(base, extra...), p)...)
		if a.code != 0 || a.out+a.err == b.out+b.err {
			t.Errorf("%v changes nothing on a trace with CYC packets (exit %d)", extra, a.code)
		}
	}
}

func le32s(v ...uint32) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, x)
	}
	return b
}

func le64s(v ...uint64) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, x)
	}
	return b
}

// sbRecord is a perf_event record with a sample_id of pid/tid 1 and time
// 0x1234, and the identifier ident when it is not 0.
func sbRecord(typ uint32, body []byte, ident uint64) []byte {
	for len(body)%8 != 0 {
		body = append(body, 0)
	}
	body = append(body, le32s(1, 1)...)
	body = append(body, le64s(0x1234)...)
	if ident != 0 {
		body = append(body, le64s(ident)...)
	}
	h := le32s(typ)
	h = binary.LittleEndian.AppendUint16(h, 0)
	h = binary.LittleEndian.AppendUint16(h, uint16(8+len(body)))
	return append(h, body...)
}

// sidebandFile writes records to a sideband file.
func sidebandFile(t *testing.T, recs ...[]byte) string {
	p := filepath.Join(t.TempDir(), "sb.sb")
	if err := os.WriteFile(p, bytes.Join(recs, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
