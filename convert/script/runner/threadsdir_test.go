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

// TestThreadsDirectoryTurns: perf reads a perf.data directory's files
// 2 MB of records at a time from each in turn; perfpt read each file
// whole, so that unordered output (--show-round-events) of a recording
// with a data.N of 2 MB or more came in another order than perf's
// (37,118 of 70,178 lines differed on a 13 MB -a recording).
func TestThreadsDirectoryTurns(t *testing.T) {
	if testing.Short() {
		t.Skip("records with perf")
	}
	need(t, "perf")
	data := filepath.Join(t.TempDir(), "turns.data")
	// cpu-clock every 10 us on every CPU, idle or not, with call chains:
	// about 3 MB a CPU.
	if err := perfTo(t, data, false, "record", "-q", "-o", data, "--threads", "-a", "-e", "cpu-clock", "-c", "10000", "-g",
		"--", "sleep", "0.2"); err != nil {
		t.Skipf("perf record --threads -a: %v", err)
	}
	parts, _ := filepath.Glob(filepath.Join(data, "data.*"))
	full, big := 0, 0
	for _, p := range parts {
		if st, err := os.Stat(p); err == nil && st.Size() > 0 {
			full++
			if st.Size() >= 2<<20 {
				big++
			}
		}
	}
	if full < 2 || big == 0 {
		t.Skipf("perf record --threads wrote %d data.N files with records, %d of 2 MB or more: nothing read in turns", full, big)
	}
	compare(t, data, "--show-round-events", "-F", "tid,time,event")
}

// TestThreadsDirectoryCompressed: perf record --threads -z compresses
// the records of each file of the directory as a zstd stream of its own
// (each mmap's zstd_data), and perf decompresses each with its reader's
// own stream; perfpt fed them all to one, which failed at the first
// COMPRESSED record of the second file ("COMPRESSED zstd data: window
// size exceeded", exit 1).
func TestThreadsDirectoryCompressed(t *testing.T) {
	if testing.Short() {
		t.Skip("records with perf")
	}
	need(t, "perf")
	data := filepath.Join(t.TempDir(), "threads-z.data")
	// -a: every CPU's file has samples (of the idle task at least).
	if err := perfTo(t, data, false, "record", "-q", "-o", data, "--threads", "-z", "-a", "-e", "cpu-clock", "-c", "100000",
		"--", "dd", "if=/dev/zero", "of=/dev/null", "bs=4k", "count=20000"); err != nil {
		t.Skipf("perf record --threads -z -a: %v", err)
	}
	// (-D would print the random name perf gives its copy of the vdso,
	// which -a samples.)
	for _, args := range [][]string{nil, {"--show-task-events", "--show-mmap-events"}, {"--show-round-events"}} {
		compare(t, data, args...)
	}
}
