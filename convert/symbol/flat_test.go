package symbol

import (
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// bigELFFiles are real ELF files to build tables from: the corpus's
// programs and some of the system's libraries and programs.
func bigELFFiles() []string {
	var files []string
	for _, pat := range []string{"../../testdata/machine/bin/*", "/usr/lib/x86_64-linux-gnu/libc.so.6",
		"/usr/lib/x86_64-linux-gnu/libstdc++.so.6", "/usr/lib/x86_64-linux-gnu/libm.so.6", "/usr/bin/node",
		"/usr/bin/perf", "/bin/bash", "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"} {
		m, _ := filepath.Glob(pat)
		files = append(files, m...)
	}
	return files
}

// TestListTableMatchesTree builds the symbol table of real ELF files both
// ways: from the sorted list with lazy names and ties (as perfpt does),
// and through perf's tree in perf's insertion order with every name
// demangled as it is inserted; every lookup around every symbol's bounds
// must give the same symbol, name included.
func TestListTableMatchesTree(t *testing.T) {
	files := bigELFFiles()
	if len(files) == 0 {
		t.Skip("no ELF files found")
	}
	zoned := 0
	for _, path := range files {
		fh, err := os.Open(path)
		if err != nil {
			continue
		}
		ef, err := elf.NewFile(fh)
		if err != nil {
			fh.Close()
			continue
		}
		dm := (*Options)(nil).demangler()
		b := buildTable(ef, ef, dm, buildTreeEager)
		for _, mode := range []buildMode{buildList, buildTree} {
			a := buildTable(ef, ef, dm, mode)
			if a.exact != nil {
				zoned++
			}
			compareTables(t, fmt.Sprintf("%s (mode %d)", path, mode), a, b)
		}
		fh.Close()
	}
	t.Logf("%d files, %d with overlapping symbols", len(files), zoned)
}

// compareTables checks that a answers every lookup around b's symbols
// as b does.
func compareTables(t *testing.T, path string, a, b *Table) {
	t.Helper()
	bad := 0
	for _, s := range b.Symbols() {
		for _, addr := range []uint64{s.Start - 1, s.Start, s.Start + 1, s.End - 1, s.End, s.End + 1} {
			x, y := a.Find(addr), b.Find(addr)
			same := x == nil && y == nil
			if x != nil && y != nil {
				xs, ys := *x, *y
				xs.pending, ys.pending = 0, 0
				same = xs == ys
			}
			if !same {
				if bad++; bad < 5 {
					t.Errorf("%s: Find(%#x) = %+v, the tree's %+v", path, addr, x, y)
				}
			}
			sym, lo, hi := a.FindRange(addr)
			if sym != x || addr < lo || addr >= hi && hi != ^uint64(0) {
				t.Errorf("%s: FindRange(%#x) = %v [%#x, %#x), Find %v", path, addr, sym, lo, hi, x)
			}
		}
	}
	if a.Len() != b.Len() {
		t.Errorf("%s: %d symbols, the tree has %d", path, a.Len(), b.Len())
	}
}

// TestConcurrentLookups looks up every symbol of a C++ program from
// several goroutines at once (the PT decoder's workers share tables):
// lazy names and ties are settled once, and every goroutine sees them
// (run with -race).
func TestConcurrentLookups(t *testing.T) {
	ref, err := LoadFile("../../testdata/machine/bin/cxx-O2")
	if err != nil {
		t.Fatal(err) // the program is in the repository: LoadFile failed
	}
	var starts []uint64
	for _, s := range ref.Symbols() {
		starts = append(starts, s.Start)
	}
	tab, _ := LoadFile("../../testdata/machine/bin/cxx-O2")
	var wg sync.WaitGroup
	names := make([][]string, 4)
	for g := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, a := range starts {
				if s := tab.Find(a); s != nil {
					names[g] = append(names[g], s.Name)
				}
			}
		}()
	}
	wg.Wait()
	for g := 1; g < len(names); g++ {
		if len(names[g]) != len(names[0]) {
			t.Fatalf("goroutine %d found %d symbols, goroutine 0 %d", g, len(names[g]), len(names[0]))
		}
		for i := range names[g] {
			if names[g][i] != names[0][i] {
				t.Fatalf("goroutine %d: %q, goroutine 0: %q", g, names[g][i], names[0][i])
			}
		}
	}
}

// BenchmarkLoadDSO loads the symbol tables of big real binaries as a
// recording's first lookups do (every name left to its first lookup).
func BenchmarkLoadDSO(b *testing.B) {
	for _, path := range []string{"/usr/local/go/pkg/tool/linux_amd64/compile", "/usr/bin/perf",
		"/usr/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libstdc++.so.6", "/usr/bin/node"} {
		if _, err := os.Stat(path); err != nil {
			continue
		}
		b.Run(filepath.Base(path), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				tab, _ := LoadDSO(nil, path, nil)
				tab.Find(0)
			}
		})
	}
}
