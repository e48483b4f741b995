package machine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/perfdata"
)

// TestForkClonesMaps: a new process gets a copy of its parent's maps
// (thread__clone_maps), but not when perf synthesised the FORK for a task
// that ran before the recording (PERF_RECORD_MISC_FORK_EXEC): its own
// synthesised MMAPs follow. Seen on a -a recording: a compiler's cc1plus,
// forked by g++ before the recording, had a call chain address in its
// unrecorded read-only segment at 0x410000, inside g++'s text, which perf
// prints [unknown] ([unknown]).
func TestForkClonesMaps(t *testing.T) {
	for _, c := range []struct {
		misc   uint16
		cloned bool
	}{{0, true}, {perfdata.MiscForkExec, false}} {
		m := New(nil, "")
		m.ProcessMmap(100, 100, 0x403000, 0x9a000, 0x3000, "/usr/bin/g++", nil, perfdata.MiscUser, true)
		m.ProcessFork(&perfdata.RecordFork{RecordCommon: perfdata.RecordCommon{Type: perfdata.RecordTypeFork, Misc: c.misc},
			PID: 101, PPID: 100, TID: 101, PTID: 100})
		m.ProcessMmap(101, 101, 0x658000, 0x1533000, 0x258000, "/usr/lib/gcc/cc1plus", nil, perfdata.MiscUser, true)
		child := m.FindThread(101)
		if got := child.Maps.Find(0x410000) != nil; got != c.cloned {
			t.Errorf("misc %#x: child has the parent's map: %v, want %v", c.misc, got, c.cloned)
		}
		if child.Maps.Find(0x700000) == nil {
			t.Errorf("misc %#x: child lacks its own map", c.misc)
		}
	}
}

// TestUnwindArch: DWARF unwinding is set up for an address space as perf
// 6.1's unwind__prepare_access does with the recording's architecture and
// the class of the first ELF file mapped: its arm64 and x86_32 unwinders
// are not built in, so a 64-bit file of an aarch64 recording (simpleperf's
// --call-graph dwarf ones) leaves the space without unwinding, with perf's
// warning at each try (each map, each new thread of the process), where
// perfpt unwound arm64 registers as x86's; other pairs get the x86_64
// unwinder.
func TestUnwindArch(t *testing.T) {
	dir := t.TempDir()
	elf64, elf32 := filepath.Join(dir, "lib64.so"), filepath.Join(dir, "lib32.so")
	for p, class := range map[string]byte{elf64: 2, elf32: 1} {
		if err := os.WriteFile(p, []byte{0x7f, 'E', 'L', 'F', class, 1, 1, 0}, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		arch   string
		lib    string
		unwind bool
		warns  int
	}{
		{"aarch64", elf64, false, 2},
		{"aarch64", elf32, true, 0},
		{"armv7l", elf64, false, 2},
		{"x86_64", elf64, true, 0},
		{"x86_64", elf32, false, 2},
		{"i686", elf32, false, 2},
		{"ppc64le", elf64, true, 0},
		{"", elf32, true, 0}, // no HEADER_ARCH: set up at once
	} {
		var warns []string
		m := New(nil, "")
		m.DwarfUnwind, m.ArchKnown, m.Arch = true, c.arch != "", c.arch
		m.Warn = func(s string) { warns = append(warns, s) }
		m.ProcessMmap(100, 100, 0x400000, 0x1000, 0, filepath.Join(dir, "missing"), nil, perfdata.MiscUser, true)
		m.ProcessMmap(100, 100, 0x500000, 0x1000, 0, c.lib, nil, perfdata.MiscUser, true)
		m.ProcessFork(&perfdata.RecordFork{RecordCommon: perfdata.RecordCommon{Type: perfdata.RecordTypeFork},
			PID: 100, PPID: 100, TID: 101, PTID: 100})
		if got := m.FindThread(101).Maps.unwind; got != c.unwind {
			t.Errorf("%q %s: unwinding set up: %v, want %v", c.arch, filepath.Base(c.lib), got, c.unwind)
		}
		if len(warns) != c.warns || c.warns > 0 && !strings.HasPrefix(warns[0], "unwind: target platform=") {
			t.Errorf("%q %s: warnings %q, want %d of perf's", c.arch, filepath.Base(c.lib), warns, c.warns)
		}
	}
}
