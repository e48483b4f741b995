package perftext

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfpt/perfpt/internal/linediff"

	"github.com/perfpt/perfpt/perfdata"
)

func fixtures(t *testing.T) []string {
	m, _ := filepath.Glob("../../testdata/perf/*.data")
	if len(m) == 0 {
		t.Fatal("no fixtures")
	}
	return m
}

func runPerf(t *testing.T, args ...string) string {
	perf, err := exec.LookPath("perf")
	if err != nil {
		t.Skip("perf not installed: cannot compare with perf")
	}
	cmd := exec.Command(perf, args...)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("perf %v: %v\n%s", args, err, stderr.String())
	}
	return out.String()
}

// TestHeaderMatchesPerf compares Header with perf report --header-only.
func TestHeaderMatchesPerf(t *testing.T) {
	for _, path := range fixtures(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			compareHeader(t, path)
			compareHeader(t, path, "-I")
		})
	}
}

func diff(got, want string) string {
	r := linediff.Compare(got, want)
	if r.N == 0 {
		return ""
	}
	return "got:  " + r.A + "\nperf: " + r.B
}

// compareDump compares Dump with perf report -D on path, line by line
// (dumpLines).
func compareDump(t *testing.T, path string) {
	t.Helper()
	want := PerfDumpLines(runPerf(t, "report", "-D", "-i", path))
	f, err := perfdata.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b bytes.Buffer
	if err := Dump(&b, f, DumpOptions{Order: perfdata.TimeOrder}); err != nil {
		t.Fatal(err)
	}
	got := PerfDumpLines(b.String())
	r := linediff.Compare(strings.Join(got, "\n"), strings.Join(want, "\n"))
	if r.N != 0 {
		t.Errorf("%d of %d lines differ from perf report -D; %s", r.N, len(want), r.String("perfpt", "perf"))
	}
}

// TestDumpMatchesPerf compares Dump with perf report -D on the fixtures.
func TestDumpMatchesPerf(t *testing.T) {
	for _, path := range fixtures(t) {
		t.Run(filepath.Base(path), func(t *testing.T) { compareDump(t, path) })
	}
}

// TestDumpInjectedBuildIDs compares Dump with perf report -D on a
// recording with PERF_RECORD_HEADER_BUILD_ID records (perf inject -b),
// which perf's tools print nothing for.
func TestDumpInjectedBuildIDs(t *testing.T) {
	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("perf not installed: cannot compare with perf")
	}
	dir := t.TempDir()
	rec, inj := filepath.Join(dir, "rec.data"), filepath.Join(dir, "inj.data")
	if out, err := exec.Command("perf", "record", "-q", "-o", rec, "-e", "cpu-clock", "-c", "10000", "--", "true").CombinedOutput(); err != nil {
		t.Skipf("perf record does not work here: %v\n%s", err, out)
	}
	if out, err := exec.Command("perf", "inject", "-b", "-i", rec, "-o", inj).CombinedOutput(); err != nil {
		t.Fatalf("perf inject -b: %v\n%s", err, out)
	}
	if d := runPerf(t, "report", "-D", "-i", inj); !strings.Contains(d, "PERF_RECORD_BUILD_ID") {
		t.Fatal("perf inject -b wrote no build id record")
	}
	compareDump(t, inj)
}

// TestHeaderLiveFeatures records a group of events with a clock id and
// compares the header (group line, clockid and reference time).
func TestHeaderLiveFeatures(t *testing.T) {
	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("perf not installed: cannot compare with perf")
	}
	path := filepath.Join(t.TempDir(), "grp.data")
	if out, err := exec.Command("perf", "record", "-q", "-o", path, "-k", "mono",
		"-e", "{cpu-clock,task-clock}", "--", "true").CombinedOutput(); err != nil {
		t.Skipf("perf record: %v\n%s", err, out)
	}
	compareHeader(t, path)
}

// compareHeader compares Header with perf report --header-only on path
// (with -I: the full sections).
func compareHeader(t *testing.T, path string, args ...string) {
	t.Helper()
	want := runPerf(t, append([]string{"report", "--header-only", "-i", path}, args...)...)
	f, err := perfdata.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := os.Stat(path)
	var b bytes.Buffer
	opt := HeaderOptions{Captured: st.ModTime().In(time.Local), Full: len(args) > 0 && args[0] == "-I"}
	if err := Header(&b, f, opt); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != want {
		t.Errorf("differs from perf report --header-only %v:\n%s", args, diff(got, want))
	}
}

// TestHeaderDamagedFeature damages one feature section of a recording:
// as perf, the sections before it are kept (build ids), it and those
// after it are lost and printed from an empty perf_env; a feature
// section table cut short loses every feature.
func TestHeaderDamagedFeature(t *testing.T) {
	src := "../../testdata/perf/cpu-clock-g.data"
	orig, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	f, err := perfdata.NewBytes(orig)
	if err != nil {
		t.Fatal(err)
	}
	sec, ok := f.FeatureSections[perfdata.FeatCPUDesc]
	if !ok {
		t.Fatal("fixture has no cpudesc")
	}
	dir := t.TempDir()
	// A cpudesc string longer than the file: perf's do_read_string fails.
	b := append([]byte(nil), orig...)
	binary.LittleEndian.PutUint32(b[sec.Offset:], 1<<30)
	damaged := filepath.Join(dir, "cpudesc.data")
	if err := os.WriteFile(damaged, b, 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := perfdata.NewBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := g.Features()
	if err != nil {
		t.Fatal(err)
	}
	if !fs.Has(perfdata.FeatBuildID) || len(fs.BuildIDs) == 0 || fs.Has(perfdata.FeatCPUDesc) ||
		!fs.IsLost(perfdata.FeatCPUDesc) || fs.LostErr == nil {
		t.Errorf("build ids kept %v (%d), cpudesc lost %v, err %v", fs.Has(perfdata.FeatBuildID), len(fs.BuildIDs),
			fs.IsLost(perfdata.FeatCPUDesc), fs.LostErr)
	}
	compareHeader(t, damaged)

	// The file cut in the middle of the feature section table.
	table := f.Data.Offset + f.Data.Size
	cut := filepath.Join(dir, "table.data")
	if err := os.WriteFile(cut, orig[:table+20], 0o644); err != nil {
		t.Fatal(err)
	}
	compareHeader(t, cut)
}

// TestHeaderBadBPFProgInfo writes a recording whose BPF_PROG_INFO
// section holds a program info larger than perf 6.1's struct: perf stops
// processing the sections there (the ones after it print from an empty
// perf_env), and so must Header.
func TestHeaderBadBPFProgInfo(t *testing.T) {
	src, err := perfdata.Open("../../testdata/perf/cpu-clock-g.data")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	path := filepath.Join(t.TempDir(), "bpf.data")
	w, err := perfdata.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range src.Attrs {
		if _, err := w.AddAttr(a.EventAttr, a.IDs, a.Name); err != nil {
			t.Fatal(err)
		}
	}
	fs, err := src.Features()
	if err != nil {
		t.Fatal(err)
	}
	w.Features = *fs
	// One program whose info is 300 bytes (perf 6.1's is 232).
	bad := []byte{1, 0, 0, 0, 44, 1, 0, 0, 0, 0, 0, 0}
	bad = append(bad, make([]byte, 300)...)
	w.Features.Raw = map[perfdata.Feature][]byte{perfdata.FeatBPFProgInfo: bad}
	w.Features.Set(perfdata.FeatBPFProgInfo)
	w.Features.CPUPMUCaps = []perfdata.PMUCap{{Name: "branches", Value: "16"}}
	w.Features.Set(perfdata.FeatCPUPMUCaps)
	rs := src.Records(perfdata.FileOrder)
	for rs.Next() {
		if err := w.WriteRecord(rs.Record); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := perfdata.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := f.Features()
	if !got.IsLost(perfdata.FeatBPFProgInfo) || !got.IsLost(perfdata.FeatCPUPMUCaps) {
		t.Errorf("lost %v, want bpf_prog_info and the sections after it", got.Lost)
	}
	f.Close()
	compareHeader(t, path)
}

// TestRegNames: perf report -D names a sample's registers after the
// recording's arch (perf_reg_name), not the sample's register ABI: an
// aarch64 recording's 32-bit ABI registers are still x0..x29, lr, sp, pc
// (simpleperf's perf_with_arm_regs.data).
func TestRegNames(t *testing.T) {
	for _, c := range []struct {
		id   int
		arch string
		want string
	}{
		{0, "x86", "AX"}, {8, "x86", "IP"}, {33, "x86", "XMM0"}, {24, "x86", "(null)"},
		{0, "arm64", "x0"}, {29, "arm64", "x29"}, {30, "arm64", "lr"}, {31, "arm64", "sp"}, {32, "arm64", "pc"},
		{33, "arm64", "(null)"},
		{10, "arm", "r10"}, {11, "arm", "fp"}, {15, "arm", "pc"}, {16, "arm", "(null)"},
		{0, "powerpc", "unknown"},
	} {
		if got := RegName(c.id, c.arch); got != c.want {
			t.Errorf("RegName(%d, %q) = %q, want %q", c.id, c.arch, got, c.want)
		}
	}
	for uname, want := range map[string]string{"x86_64": "x86", "i686": "x86", "aarch64": "arm64", "armv7l": "arm"} {
		if got := NormArch(uname); got != want {
			t.Errorf("NormArch(%q) = %q, want %q", uname, got, want)
		}
	}
}
