package perfdata

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestModesAgree reads every fixture through mmap (Open), io.ReaderAt
// (New), and an os.Pipe (NewReader, streaming) and expects the same
// records in time order.
func TestModesAgree(t *testing.T) {
	for _, path := range fixtures(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			read := func(f *File, err error) []Record {
				t.Helper()
				if err != nil {
					t.Fatal(err)
				}
				var out []Record
				rs := f.Records(TimeOrder)
				for rs.Next() {
					out = append(out, normalize(rs.Record))
				}
				if err := rs.Err(); err != nil {
					t.Fatal(err)
				}
				return out
			}
			want := read(Open(path))
			if got := read(New(bytes.NewReader(b))); !reflect.DeepEqual(got, want) {
				t.Errorf("New(io.ReaderAt) differs from Open")
			}
			pr, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			go func() {
				pw.Write(b)
				pw.Close()
			}()
			f, err := NewReader(pr)
			got := read(f, err)
			pr.Close()
			if !reflect.DeepEqual(got, want) {
				t.Errorf("NewReader(pipe) differs from Open")
			}
		})
	}
}
