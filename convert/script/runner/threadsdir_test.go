package runner

import (
	"os"
	"path/filepath"
	"testing"
)

// TestThreadsDirectory: perf record --threads writes a perf.data
// directory whose records are in "data" and in one data.N file per
// thread (HEADER_DIR_FORMAT); perfpt read "data" alone and printed
// nothing of the samples. perfpt script, -D (records of data.N as
// "OFFSET@DIR/data.N"), --header ("captured on": the data file's time,
// not the directory's) and --show-round-events (unordered: the files in
// readdir's order) print what perf script prints.
func TestThreadsDirectory(t *testing.T) {
	if testing.Short() {
		t.Skip("records with perf")
	}
	need(t, "perf")
	data := filepath.Join(t.TempDir(), "threads.data")
	if err := perfTo(t, data, false, "record", "-q", "-o", data, "--threads", "-e", "cpu-clock", "-c", "100000",
		"--", "dd", "if=/dev/zero", "of=/dev/null", "bs=4k", "count=20000"); err != nil {
		t.Skipf("perf record --threads: %v", err)
	}
	parts, _ := filepath.Glob(filepath.Join(data, "data.*"))
	full := 0
	for _, p := range parts {
		if st, err := os.Stat(p); err == nil && st.Size() > 0 {
			full++
		}
	}
	if full == 0 {
		t.Fatalf("no data.N file with records in %s", data)
	}
	// --show-round-events takes the records unordered: data.N files in
	// the directory's order.
	for _, args := range [][]string{nil, {"-D"}, {"--header"}, {"--show-task-events", "--show-mmap-events"}, {"--show-round-events"}} {
		compare(t, data, args...)
	}
}
