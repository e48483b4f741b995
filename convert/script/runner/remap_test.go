package runner

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/convert/symbol"
	"github.com/perfpt/perfpt/perfdata"
)

// remapDwarf copies the --call-graph dwarf recording data with the maps
// of the program it names changed by remap (which returns false to drop
// a map), without its build-id table (so that both tools find files by
// the paths the maps name).
func remapDwarf(t *testing.T, data string, remap func(r *perfdata.RecordMmap2) bool) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), filepath.Base(data))
	rewriteRecording(t, data, out, nil, func(fs *perfdata.Features) {
		fs.BuildIDs = nil
		fs.Clear(perfdata.FeatBuildID)
	}, func(r perfdata.Record) perfdata.Record {
		if m, ok := r.(*perfdata.RecordMmap2); ok && !remap(m) {
			return nil
		}
		return r
	})
	return out
}

// rewriteRecording copies the file-mode recording in to out with perfpt's
// writer: each event's attr as attr changes it, the features as feats
// changes them, and each record as rec returns it (nil: left out); nil
// functions change nothing.
func rewriteRecording(t *testing.T, in, out string, attr func(*perfdata.EventAttr), feats func(*perfdata.Features),
	rec func(perfdata.Record) perfdata.Record) {
	t.Helper()
	f, err := perfdata.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := perfdata.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range f.Attrs {
		ea := a.EventAttr
		if attr != nil {
			attr(&ea)
		}
		if _, err := w.AddAttr(ea, a.IDs, a.Name); err != nil {
			t.Fatal(err)
		}
	}
	fs, err := f.Features()
	if err != nil {
		t.Fatal(err)
	}
	w.Features = *fs
	if feats != nil {
		feats(&w.Features)
	}
	rs := f.Records(perfdata.FileOrder)
	for rs.Next() {
		r := rs.Record
		if rec != nil {
			if r = rec(r); r == nil {
				continue
			}
		}
		if err := w.WriteRecord(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestDwarfUnwindFilesElsewhere compares perfpt with perf on a dwarf
// recording read where its program is not the one recorded, as with
// recordings made on other machines:
//   - no map of the process has a file perf can open (the program's path
//     does not exist, no vdso): perf never sets up unwinding for the
//     address space (unwind__prepare_access), so samples have no user
//     frames at all, not even the sampled ip;
//   - another program at the recorded path (its build id is not the
//     recorded one), or the program with its data recorded at another
//     offset: perf unwinds with the file's CFI read through the recorded
//     maps (the search table and FDEs at the recorded mappings'
//     offsets), garbage that perfpt reads the same way.
func TestDwarfUnwindFilesElsewhere(t *testing.T) {
	need(t, "perf")
	t.Setenv("HOME", t.TempDir())
	static, err := filepath.Abs(filepath.Join(unwindDir, "cwork-static"))
	if err != nil {
		t.Fatal(err)
	}
	other, err := filepath.Abs(filepath.Join(unwindDir, "cwork-dyn"))
	if err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(unwindDir, "cwork-static.data")
	missing := remapDwarf(t, data, func(r *perfdata.RecordMmap2) bool {
		if r.Filename == "[vdso]" {
			return false
		}
		if strings.HasSuffix(r.Filename, "/cwork-static") {
			r.Filename = "/nonexistent/cwork-static"
		}
		return true
	})
	recordedID := symbol.ReadBuildID(static)
	elsewhere := remapDwarf(t, data, func(r *perfdata.RecordMmap2) bool {
		if strings.HasSuffix(r.Filename, "/cwork-static") {
			// Another program at the path, the recorded build id with
			// the map.
			r.Filename = other
			r.Misc |= perfdata.MiscMmapBuildID
			r.BuildID = recordedID
		}
		return true
	})
	// The program itself, but recorded with another build id and its
	// read-only data (where .eh_frame is) one page off in the file, as
	// another build of it could be: perf reads the tables through the
	// maps, so at the wrong offset.
	shifted := remapDwarf(t, data, func(r *perfdata.RecordMmap2) bool {
		if strings.HasSuffix(r.Filename, "/cwork-static") {
			r.Filename = static
			r.Misc |= perfdata.MiscMmapBuildID
			r.BuildID = symbol.ReadBuildID(other)
			if r.Prot == 1 && r.PgOff > 0 {
				r.PgOff -= 0x1000
			}
		}
		return true
	})
	for _, d := range []string{missing, elsewhere, shifted} {
		for _, args := range [][]string{{"-F", "ip"}, {"-F", "ip,dso"}} {
			compare(t, d, args...)
		}
	}
}
