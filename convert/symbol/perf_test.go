package symbol

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestAgainstPerf records a small C program with perf's cpu-clock event and
// checks that every sample's sym+off resolves as perf script prints it.
func TestAgainstPerf(t *testing.T) {
	if testing.Short() {
		t.Skip("records with perf")
	}
	for _, tool := range []string{"perf", "gcc"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	dir := t.TempDir()
	for _, opt := range []string{"-O0", "-O2"} {
		prog := filepath.Join(dir, "prog"+opt)
		if out, err := exec.Command("gcc", opt, "-g", "-o", prog, "testdata/prog.c").CombinedOutput(); err != nil {
			t.Fatalf("gcc: %v\n%s", err, out)
		}
		data := filepath.Join(dir, "perf"+opt+".data")
		rec := exec.Command("perf", "record", "-q", "-e", "cpu-clock:u", "-c", "20000", "-o", data, prog, "20000")
		if out, err := rec.CombinedOutput(); err != nil {
			t.Skipf("perf record failed (no permission?): %v\n%s", err, out)
		}
		out, err := exec.Command("perf", "script", "-i", data, "--show-mmap-events", "-F", "ip,sym,symoff,dso").Output()
		if err != nil {
			t.Fatalf("perf script: %v", err)
		}
		checkPerfOutput(t, out)
	}
}

var (
	mmapRe   = regexp.MustCompile(`PERF_RECORD_MMAP2 \d+/\d+: \[0x([0-9a-f]+)\(0x([0-9a-f]+)\) @ 0x([0-9a-f]+|0) .*\]: r-xp (/\S+)$`)
	sampleRe = regexp.MustCompile(`^\s*([0-9a-f]+) (.*) \((.*)\)$`)
)

type testMap struct {
	start, len, pgoff uint64
	path              string
	tab               *Table
}

func checkPerfOutput(t *testing.T, out []byte) {
	t.Helper()
	var maps []*testMap
	tables := map[string]*Table{}
	checked, bad := 0, 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if m := mmapRe.FindStringSubmatch(line); m != nil {
			start, _ := strconv.ParseUint(m[1], 16, 64)
			ln, _ := strconv.ParseUint(m[2], 16, 64)
			pg, _ := strconv.ParseUint(strings.TrimPrefix(m[3], "0x"), 16, 64)
			tab := tables[m[4]]
			if tab == nil {
				tab, _ = LoadDSO(nil, m[4], nil)
				tables[m[4]] = tab
			}
			maps = append(maps, &testMap{start, ln, pg, m[4], tab})
			continue
		}
		m := sampleRe.FindStringSubmatch(line)
		if m == nil || strings.HasPrefix(m[3], "[") {
			continue
		}
		ip, _ := strconv.ParseUint(m[1], 16, 64)
		var mp *testMap
		for _, x := range maps {
			if ip >= x.start && ip < x.start+x.len {
				mp = x
			}
		}
		if mp == nil {
			continue
		}
		addr := ip - mp.start + mp.pgoff
		got := "[unknown]"
		if s := mp.tab.Find(addr); s != nil {
			got = fmt.Sprintf("%s+0x%x", s.Name, s.Offset(addr, mp.start))
		}
		checked++
		if got != m[2] {
			bad++
			if bad < 20 {
				t.Errorf("%s %#x: got %s, perf %s", mp.path, ip, got, m[2])
			}
		}
	}
	if checked == 0 {
		t.Fatal("no samples checked")
	}
	t.Logf("%d samples checked, %d differ", checked, bad)
}

func TestMain(m *testing.M) { os.Exit(m.Run()) }
