package perfdata

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// fixtures are the recordings made by the real perf record (see
// testdata/perf/README.md).
func fixtures(t testing.TB) []string {
	m, err := filepath.Glob("../testdata/perf/*.data")
	if err != nil || len(m) == 0 {
		t.Fatalf("no fixtures in ../testdata/perf: %v", err)
	}
	return m
}

// perfLine is one record as `perf report -D` prints it.
type perfLine struct {
	time      uint64
	offset    int64
	size      int
	name      string
	rest      string
	callchain int // "... FP chain: nr:N", -1 when absent
	extra     map[string]string
}

var (
	dumpLineRE  = regexp.MustCompile(`^((?:-?\d+ )*)(0x[0-9a-f]+|0) \[(0x[0-9a-f]+)\]: PERF_RECORD_([A-Z0-9_]+)(.*)$`)
	statsLineRE = regexp.MustCompile(`^\s*([A-Z0-9_]+) events:\s+(\d+)`)
	sampleRE    = regexp.MustCompile(`^\(IP, 0x([0-9a-f]+)\): (-?\d+)/(-?\d+): 0x([0-9a-f]+) period: (\d+)`)
	chainRE     = regexp.MustCompile(`^\.\.\. FP chain: nr:(\d+)`)
	// extraREs are the sample detail lines compared by checkFields.
	extraREs = map[string]*regexp.Regexp{
		"data_src":  regexp.MustCompile(`^ \. data_src: (0x[0-9a-f]+)`),
		"phys_addr": regexp.MustCompile(`^ \.\. phys_addr: (0x[0-9a-f]+)`),
		"weight":    regexp.MustCompile(`^\.\.\. weight: (\S+)`),
		"regs":      regexp.MustCompile(`^\.\.\. user regs: mask (0x[0-9a-f]+) ABI`),
		"ustack":    regexp.MustCompile(`^\.\.\. ustack: size (\d+)`),
	}
)

// perfDump runs perf report -D and parses the record lines and the first
// block of event counts.
func perfDump(t *testing.T, path string) ([]perfLine, map[string]int) {
	perf, err := exec.LookPath("perf")
	if err != nil {
		t.Skip("perf not installed: cannot compare with perf report -D")
	}
	cmd := exec.Command(perf, "report", "-D", "-i", path)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("perf report -D -i %s: %v\n%s", path, err, stderr.String())
	}
	var lines []perfLine
	counts := map[string]int{}
	inStats, statsDone := false, false
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if m := dumpLineRE.FindStringSubmatch(l); m != nil {
			pl := perfLine{name: m[4], rest: m[5], callchain: -1}
			if f := strings.Fields(m[1]); len(f) > 0 {
				pl.time, _ = strconv.ParseUint(f[len(f)-1], 10, 64)
			}
			pl.offset, _ = strconv.ParseInt(strings.TrimPrefix(m[2], "0x"), 16, 64)
			sz, _ := strconv.ParseInt(m[3][2:], 16, 64)
			pl.size = int(sz)
			lines = append(lines, pl)
			continue
		}
		if m := chainRE.FindStringSubmatch(l); m != nil && len(lines) > 0 {
			lines[len(lines)-1].callchain, _ = strconv.Atoi(m[1])
			continue
		}
		if len(lines) > 0 && strings.HasPrefix(l, " .") || strings.HasPrefix(l, "...") {
			for k, re := range extraREs {
				if m := re.FindStringSubmatch(l); m != nil && len(lines) > 0 {
					pl := &lines[len(lines)-1]
					if pl.extra == nil {
						pl.extra = map[string]string{}
					}
					pl.extra[k] = m[1]
				}
			}
		}
		if m := statsLineRE.FindStringSubmatch(l); m != nil && !statsDone {
			inStats = true
			counts[m[1]], _ = strconv.Atoi(m[2])
			continue
		}
		if inStats {
			statsDone = true
		}
	}
	return lines, counts
}

// TestPerfReportD compares, record for record, what perfdata reads in
// time order with what perf report -D prints (perf dumps records as its
// ordered-events queue delivers them).
func TestPerfReportD(t *testing.T) {
	for _, path := range fixtures(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			want, wantCounts := perfDump(t, path)
			f, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			rs := f.Records(TimeOrder)
			counts := map[string]int{}
			i := 0
			for rs.Next() {
				c := rs.Record.Common()
				counts[c.Type.Name()]++
				counts["TOTAL"]++
				if i >= len(want) {
					t.Fatalf("record %d at %#x: perf printed only %d records", i, c.Offset, len(want))
				}
				w := want[i]
				i++
				got := perfLine{offset: c.Offset, size: c.Size, name: c.Type.Name(), time: c.Time, callchain: -1}
				if c.Type.IsUser() {
					got.time = 0
				}
				if got.offset != w.offset || got.size != w.size || got.name != w.name || got.time != w.time {
					t.Fatalf("record %d: got %#x [%#x] %s time %d, perf has %#x [%#x] %s time %d",
						i-1, got.offset, got.size, got.name, got.time, w.offset, w.size, w.name, w.time)
				}
				if err := checkFields(rs.Record, w); err != nil {
					t.Errorf("record %d at %#x %s: %v", i-1, c.Offset, c.Type, err)
				}
			}
			if err := rs.Err(); err != nil {
				t.Fatal(err)
			}
			if i != len(want) {
				t.Fatalf("read %d records, perf printed %d", i, len(want))
			}
			if n := rs.CompressedRecords(); n > 0 {
				counts["COMPRESSED"] += n
				counts["TOTAL"] += n
			}
			for name, n := range wantCounts {
				if counts[name] != n {
					t.Errorf("%s events: got %d, perf %d", name, counts[name], n)
				}
			}
			t.Logf("%d records match perf report -D", i)
		})
	}
}

// checkFields compares the decoded fields perf prints on the record line.
func checkFields(r Record, w perfLine) error {
	switch r := r.(type) {
	case *RecordSample:
		m := sampleRE.FindStringSubmatch(w.rest)
		if m == nil {
			return fmt.Errorf("cannot parse perf's sample line %q", w.rest)
		}
		got := fmt.Sprintf("%x %d %d %x %d", r.Misc, r.PID, r.TID, r.IP, r.Period)
		want := strings.Join(m[1:], " ")
		if got != want {
			return fmt.Errorf("misc pid tid ip period: got %s, perf %s", got, want)
		}
		if w.callchain >= 0 && w.callchain != len(r.Callchain) {
			return fmt.Errorf("callchain: got %d entries, perf %d", len(r.Callchain), w.callchain)
		}
		extra := map[string]string{}
		st := r.Attr.SampleType
		if st&SampleFormatDataSrc != 0 {
			extra["data_src"] = fmt.Sprintf("%#x", r.DataSrc)
		}
		if st&SampleFormatPhysAddr != 0 {
			extra["phys_addr"] = fmt.Sprintf("%#x", r.PhysAddr)
		}
		if st&SampleFormatWeightStruct != 0 {
			extra["weight"] = fmt.Sprintf("%d,%#x,%#x", uint32(r.Weight), uint16(r.Weight>>32), uint16(r.Weight>>48))
		} else if st&SampleFormatWeight != 0 {
			extra["weight"] = fmt.Sprint(r.Weight)
		}
		if st&SampleFormatRegsUser != 0 && r.RegsUserABI != 0 {
			extra["regs"] = fmt.Sprintf("%#x", r.Attr.SampleRegsUser)
		}
		if st&SampleFormatStackUser != 0 && len(r.StackUser) > 0 {
			extra["ustack"] = fmt.Sprint(r.StackUserDynSize)
		}
		for k, v := range w.extra {
			if extra[k] != v {
				return fmt.Errorf("%s: got %q, perf %q", k, extra[k], v)
			}
		}
		for k := range extra {
			if _, ok := w.extra[k]; !ok {
				return fmt.Errorf("%s: got %q, perf printed none", k, extra[k])
			}
		}
	case *RecordComm:
		want := fmt.Sprintf("%s:%d/%d", r.Comm, r.PID, r.TID)
		if !strings.HasSuffix(w.rest, want) {
			return fmt.Errorf("got %s, perf %q", want, w.rest)
		}
	case *RecordMmap2:
		want := fmt.Sprintf(" %d/%d: [%#x(%#x) @ %s ", r.PID, r.TID, r.Addr, r.Len, cHex(r.PgOff))
		if !strings.HasPrefix(w.rest, want) || !strings.HasSuffix(w.rest, " "+r.Filename) {
			return fmt.Errorf("got %q...%s, perf %q", want, r.Filename, w.rest)
		}
	case *RecordMmap:
		want := fmt.Sprintf(" %d/%d: [%#x(%#x) @ %s]", r.PID, r.TID, r.Addr, r.Len, cHex(r.PgOff))
		if !strings.HasPrefix(w.rest, want) || !strings.HasSuffix(w.rest, " "+r.Filename) {
			return fmt.Errorf("got %q...%s, perf %q", want, r.Filename, w.rest)
		}
	}
	return nil
}

// cHex formats v like C's %#x (0 without a prefix).
func cHex(v uint64) string {
	if v == 0 {
		return "0"
	}
	return fmt.Sprintf("%#x", v)
}
