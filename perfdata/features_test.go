package perfdata

import (
	"path/filepath"
	"testing"
)

func TestFeatures(t *testing.T) {
	for _, path := range fixtures(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			f, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if f.Pipe {
				rs := f.Records(FileOrder)
				for rs.Next() {
				}
				if err := rs.Err(); err != nil {
					t.Fatal(err)
				}
			}
			fs, err := f.Features()
			if err != nil {
				t.Fatal(err)
			}
			if fs.Hostname == "" || fs.Arch != "x86_64" || fs.NrCPUs.Online == 0 || fs.TotalMem == 0 || len(fs.Cmdline) == 0 {
				t.Errorf("missing basics: %+v", fs)
			}
			if len(fs.EventDesc) != len(f.Attrs) {
				t.Errorf("%d event descs for %d attrs", len(fs.EventDesc), len(f.Attrs))
			}
			for _, a := range f.Attrs {
				if a.Name == "" {
					t.Errorf("attr %d has no name", a.Index)
				}
			}
			t.Logf("features %v attrs %d first %q cmdline %q", fs.List(), len(f.Attrs), f.Attrs[0].Name, fs.Cmdline)
		})
	}
}
