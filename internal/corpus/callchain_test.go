package corpus

import (
	"debug/elf"
	"encoding/hex"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/perfdata"
)

// callchainSets are the perf script command lines compared on the
// recordings with call stacks (issue 17's list).
var callchainSets = [][]string{
	nil,
	{"-G"},
	{"-F", "ip,sym"},
	{"--no-inline"},
	{"--max-stack", "4"},
}

// TestCorpusCallchains compares perfpt script with perf script, as
// TestCorpus does, on the recordings below $PERFPT_CORPUS that have call
// stacks (frame pointers, DWARF registers and stack, LBR call stacks),
// with the programs that came with them: every ELF file of the corpus is
// put in a fresh build-id cache ($HOME/.debug), and a recording whose
// folder holds programs gets a --symfs folder where each is found at the
// path the recording maps it from (recordings made elsewhere name paths
// of other machines, and most of them no build ids). Both tools run with
// the same HOME and --symfs. The settings of TestCorpus apply; perf's
// outputs are cached apart from TestCorpus's.
func TestCorpusCallchains(t *testing.T) {
	c, files := corpusWithPrograms(t, "callchain", "call stacks", func(path string) ([]string, bool) {
		return callchainRecording(path)
	})
	c.compareAll(t, c.dir, files, callchainSets)
}

// corpusWithPrograms returns the recordings below $PERFPT_CORPUS that
// pick says to compare (pick also returns the files their maps name,
// what), and a comparer that runs both tools with the programs that came
// with them (see TestCorpusCallchains), mode keeping its cache of perf's
// outputs apart. It skips the test when there are none.
func corpusWithPrograms(t *testing.T, mode, what string, pick func(path string) ([]string, bool)) (*comparer, []string) {
	dir, all := corpusFiles(t)
	var files []string
	symfs := map[string]string{}
	tmp := t.TempDir()
	for _, f := range all {
		path := filepath.Join(dir, f)
		maps, ok := pick(path)
		if !ok {
			continue
		}
		files = append(files, f)
		if s := symfsFor(t, path, maps, filepath.Join(tmp, "symfs", f)); s != "" {
			symfs[path] = s
		}
	}
	if len(files) == 0 {
		t.Skipf("no recordings with %s in %s", what, dir)
	}
	home := filepath.Join(tmp, "home")
	n := buildIDCache(t, dir, filepath.Join(home, ".debug", ".build-id"))
	t.Logf("%d recordings with %s, %d with a --symfs folder; %d programs in the build-id cache", len(files), what, len(symfs), n)
	t.Setenv("HOME", home)
	t.Setenv("PERF_BUILDID_DIR", "")
	bin := buildPerfpt(t)
	version, _ := exec.Command("perf", "version").Output()
	return &comparer{bin: bin, perfVersion: strings.TrimSpace(string(version)),
		cache: os.Getenv("PERFPT_CORPUS_CACHE"), out: os.Getenv("PERFPT_CORPUS_OUT"), tmp: t.TempDir(),
		symfs: symfs, mode: mode, dir: dir}, files
}

// callchainRecording reports whether the recording at path has an event
// with a call stack, and returns the files its user-space maps name.
func callchainRecording(path string) (maps []string, ok bool) {
	const dwarf = perfdata.SampleFormatRegsUser | perfdata.SampleFormatStackUser
	return recordingWith(path, func(a *perfdata.Attr) bool {
		return a.SampleType&perfdata.SampleFormatCallchain != 0 || a.SampleType&dwarf == dwarf ||
			a.SampleType&perfdata.SampleFormatBranchStack != 0 && a.BranchSampleType&perfdata.BranchSampleCallStack != 0
	})
}

// recordingWith reports whether the recording at path has an event that
// has, and returns the files its user-space maps name.
func recordingWith(path string, has func(a *perfdata.Attr) bool) (maps []string, ok bool) {
	f, err := perfdata.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	check := func() {
		for _, a := range f.Attrs {
			if has(a) {
				ok = true
			}
		}
	}
	check()
	seen := map[string]bool{}
	rs := f.Records(perfdata.FileOrder)
	for rs.Next() {
		var name string
		switch r := rs.Record.(type) {
		case *perfdata.RecordMmap:
			name = r.Filename
		case *perfdata.RecordMmap2:
			name = r.Filename
		}
		if strings.HasPrefix(name, "/") && !seen[name] {
			seen[name] = true
			maps = append(maps, name)
		}
	}
	check() // a pipe's attrs come with its records
	return maps, ok
}

// symfsFor makes a --symfs folder at dst for the recording at path: each
// ELF file in the recording's folder at every mapped path with its base
// name. It returns dst, or "" when no program matched.
func symfsFor(t *testing.T, path string, maps []string, dst string) string {
	ents, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		return ""
	}
	progs := map[string]string{}
	for _, e := range ents {
		p := filepath.Join(filepath.Dir(path), e.Name())
		if e.Type().IsRegular() && isELF(p) {
			progs[e.Name()] = p
		}
	}
	made := false
	for _, m := range maps {
		src, ok := progs[filepath.Base(m)]
		if !ok {
			continue
		}
		to := filepath.Join(dst, m)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		abs, _ := filepath.Abs(src)
		if err := os.Symlink(abs, to); err != nil && !os.IsExist(err) {
			t.Fatal(err)
		}
		made = true
	}
	if !made {
		return ""
	}
	return dst
}

// buildIDCache copies every ELF file with a build id below dir into a
// build-id cache at cache (.build-id/xx/rest, the flat layout perf
// reads) and returns how many.
func buildIDCache(t *testing.T, dir, cache string) int {
	n := 0
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || !isELF(p) {
			return nil
		}
		id := buildID(p)
		if len(id) < 2 {
			return nil
		}
		h := hex.EncodeToString(id)
		to := filepath.Join(cache, h[:2], h[2:])
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		abs, _ := filepath.Abs(p)
		if os.Symlink(abs, to) == nil {
			n++
		}
		return nil
	})
	return n
}

func isELF(p string) bool {
	b, err := readHead(p, 4)
	return err == nil && string(b) == "\x7fELF"
}

// buildID returns the GNU build id note of the ELF file at p.
func buildID(p string) []byte {
	f, err := elf.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	for _, s := range f.Sections {
		if s.Type != elf.SHT_NOTE {
			continue
		}
		b, err := s.Data()
		if err != nil {
			continue
		}
		for len(b) >= 12 {
			nsz, dsz, typ := f.ByteOrder.Uint32(b), f.ByteOrder.Uint32(b[4:]), f.ByteOrder.Uint32(b[8:])
			name := (int(nsz) + 3) &^ 3
			desc := (int(dsz) + 3) &^ 3
			if 12+name+desc > len(b) || name < 0 || desc < 0 {
				break
			}
			if typ == 3 && nsz == 4 && string(b[12:15]) == "GNU" {
				return b[12+name : 12+name+int(dsz)]
			}
			b = b[12+name+desc:]
		}
	}
	return nil
}
