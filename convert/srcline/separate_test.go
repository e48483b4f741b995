package srcline

import (
	"debug/elf"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"
)

// TestSeparateDebug checks that OpenAddr2line of a file whose DWARF objcopy moved to a
// separate file answers as the unstripped file does, when that file is
// where binutils looks: by build id below DEBUGDIR, by .gnu_debuglink
// beside it or in its .debug folder; and that a debug link whose CRC is
// not the file's is not followed.
func TestSeparateDebug(t *testing.T) {
	objcopy, err := exec.LookPath("objcopy")
	if err != nil {
		t.Skip("objcopy not installed")
	}
	const orig = "../../testdata/unwind/cwork-dyn"
	tmp := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		if out, err := exec.Command(objcopy, args...).CombinedOutput(); err != nil {
			t.Fatalf("objcopy %v: %v\n%s", args, err, out)
		}
	}
	old := debugDir
	debugDir = filepath.Join(tmp, "usr-lib-debug")
	defer func() { debugDir = old }()

	want := answers(t, orig)
	if want.inlined == 0 {
		t.Fatal("the unstripped file has no inlined frames")
	}

	// By build id.
	ef, err := elf.Open(orig)
	if err != nil {
		t.Fatal(err)
	}
	h := hex.EncodeToString(noteBuildID(ef))
	ef.Close()
	if h == "" {
		t.Fatal("no build id in " + orig)
	}
	byID := filepath.Join(debugDir, ".build-id", h[:2], h[2:]+".debug")
	if err := os.MkdirAll(filepath.Dir(byID), 0o755); err != nil {
		t.Fatal(err)
	}
	run("--only-keep-debug", orig, byID)
	stripped := filepath.Join(tmp, "bid", "prog")
	os.MkdirAll(filepath.Dir(stripped), 0o755)
	run("--strip-debug", orig, stripped)
	if got := answers(t, stripped); !reflect.DeepEqual(got, want) {
		for i := range got.frames {
			if !reflect.DeepEqual(got.frames[i], want.frames[i]) || !reflect.DeepEqual(got.recs[i], want.recs[i]) {
				t.Logf("%d: %+v %+v\n%+v %+v", i, got.frames[i], got.recs[i], want.frames[i], want.recs[i])
				break
			}
		}
		t.Errorf("by build id: %d inlined frames, %d lines; want %d, %d", got.inlined, got.lines, want.inlined, want.lines)
	}
	os.Remove(byID)
	if got := answers(t, stripped); got.inlined != 0 {
		t.Errorf("without the debug file: %d inlined frames", got.inlined)
	}

	// By debug link, beside the file and in its .debug folder.
	for _, sub := range []string{"", ".debug"} {
		dir := filepath.Join(tmp, "link"+sub)
		dbg := filepath.Join(dir, sub, "prog.debug")
		os.MkdirAll(filepath.Dir(dbg), 0o755)
		run("--only-keep-debug", orig, dbg)
		prog := filepath.Join(dir, "prog")
		run("--strip-debug", "--add-gnu-debuglink="+dbg, orig, prog)
		if got := answers(t, prog); !reflect.DeepEqual(got, want) {
			t.Errorf("debug link in %q: %d inlined frames, %d lines; want %d, %d", sub, got.inlined, got.lines, want.inlined, want.lines)
		}
		// Another file under the link's name: its CRC differs.
		f, err := os.OpenFile(dbg, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte{0})
		f.Close()
		if got := answers(t, prog); got.inlined != 0 {
			t.Errorf("debug link in %q with a wrong CRC: %d inlined frames", sub, got.inlined)
		}
	}
}

type sepAnswers struct {
	frames         [][]Frame
	recs           [][]Record
	inlined, lines int
}

// answers asks every fourth address of .text for its frames and
// addr2line records.
func answers(t *testing.T, path string) sepAnswers {
	t.Helper()
	f, err := OpenAddr2line(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	text := f.ef.Section(".text")
	var a sepAnswers
	for pc := text.Addr; pc < text.Addr+text.Size; pc += 4 {
		fr := f.Frames(pc, nil)
		recs, _ := f.Addr2line(pc, nil)
		if len(fr) > 1 {
			a.inlined += len(fr) - 1
		}
		for _, r := range recs {
			if r.Line != 0 {
				a.lines++
			}
		}
		a.frames = append(a.frames, fr)
		a.recs = append(a.recs, recs)
	}
	return a
}
