package perfdata

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// readAll reads every record (file order) with fresh values.
func readAll(t testing.TB, f *File) []Record {
	t.Helper()
	var rs []Record
	it := f.Records(FileOrder)
	for it.Next() {
		rs = append(rs, it.Record)
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return rs
}

// rewrite copies f's attrs, records and features into a new file.
func rewrite(t testing.TB, f *File, recs []Record, path string) {
	t.Helper()
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range f.Attrs {
		if _, err := w.AddAttr(a.EventAttr, a.IDs, a.Name); err != nil {
			t.Fatal(err)
		}
	}
	fs, err := f.Features()
	if err != nil {
		t.Fatal(err)
	}
	w.Features = *fs
	for _, r := range recs {
		if _, ok := r.(*RecordHeaderAttr); ok {
			continue // pipe mode: the attrs go to the attrs section
		}
		if _, ok := r.(*RecordHeaderFeature); ok {
			continue // pipe mode: the features go to the feature sections
		}
		if err := w.WriteRecord(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// normalize clears what legitimately changes in a copy.
func normalize(r Record) Record {
	c := r.Common()
	c.Offset, c.Compressed = 0, false
	if c.Attr != nil {
		c.Attr = &Attr{Index: c.Attr.Index}
	}
	if a, ok := r.(*RecordAuxtrace); ok {
		a.DataOffset = 0
	}
	return r
}

func TestRoundTrip(t *testing.T) {
	for _, path := range fixtures(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			f, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			recs := readAll(t, f)
			out := filepath.Join(t.TempDir(), "copy.data")
			rewrite(t, f, recs, out)
			g, err := Open(out)
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			got := readAll(t, g)
			var want []Record
			for _, r := range recs {
				switch r.(type) {
				case *RecordHeaderAttr, *RecordHeaderFeature:
					continue
				}
				want = append(want, r)
			}
			if len(got) != len(want) {
				t.Fatalf("%d records, want %d", len(got), len(want))
			}
			for i := range got {
				if !reflect.DeepEqual(normalize(got[i]), normalize(want[i])) {
					t.Fatalf("record %d:\n got %+v\nwant %+v", i, got[i], want[i])
				}
			}
			if len(g.Attrs) != len(f.Attrs) {
				t.Fatalf("%d attrs, want %d", len(g.Attrs), len(f.Attrs))
			}
			for i := range g.Attrs {
				a, b := *g.Attrs[i], *f.Attrs[i]
				b.Size = AttrSize
				if !reflect.DeepEqual(a, b) {
					t.Errorf("attr %d:\n got %+v\nwant %+v", i, a, b)
				}
			}
			gf, err := g.Features()
			if err != nil {
				t.Fatal(err)
			}
			ff, _ := f.Features()
			if !reflect.DeepEqual(gf, ff) {
				t.Errorf("features differ:\n got %+v\nwant %+v", gf, ff)
			}
			if !f.Pipe {
				comparePerfScript(t, path, out)
			}
		})
	}
}

// comparePerfScript checks that perf script prints the same for the copy
// as for the original, without warnings.
func comparePerfScript(t *testing.T, orig, copyPath string) {
	perf, err := exec.LookPath("perf")
	if err != nil {
		t.Log("perf not installed: skipping perf script comparison")
		return
	}
	run := func(path string, args ...string) (string, string) {
		cmd := exec.Command(perf, append(args, "-i", path)...)
		var out, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("perf %v -i %s: %v\n%s", args, path, err, stderr.String())
		}
		return out.String(), stderr.String()
	}
	want, wantErr := run(orig, "script", "--show-mmap-events", "--show-task-events", "--show-switch-events")
	got, stderr := run(copyPath, "script", "--show-mmap-events", "--show-task-events", "--show-switch-events")
	if got != want {
		t.Errorf("perf script output differs for the copy:\n%s", firstDiff(got, want))
	}
	// Warnings only where the original has them too (a recording with
	// LOST records makes perf warn about lost chunks).
	// The copy has no COMPRESSED records, so perf counts fewer events.
	events := regexp.MustCompile(`Processed \d+ events`)
	if events.ReplaceAllString(stderr, "") != events.ReplaceAllString(wantErr, "") {
		t.Errorf("perf script warned on the copy:\n%s\noriginal:\n%s", stderr, wantErr)
	}
	if _, stderr := run(copyPath, "report", "--header-only"); strings.TrimSpace(stderr) != "" {
		t.Errorf("perf report --header-only warned on the copy:\n%s", stderr)
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return "line " + strconv.Itoa(i+1) + ":\n got " + al[i] + "\nwant " + bl[i]
		}
	}
	return "lengths " + strconv.Itoa(len(al)) + " vs " + strconv.Itoa(len(bl))
}
