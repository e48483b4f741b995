package tracing

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tracefsFormats returns this machine's event format files, skipping the
// test when tracefs is not readable.
func tracefsFormats(t testing.TB) []string {
	files, _ := filepath.Glob("/sys/kernel/tracing/events/*/*/format")
	if len(files) == 0 {
		t.Skip("no readable tracefs at /sys/kernel/tracing (needs root and a mounted tracefs)")
	}
	return files
}

// TestTracefsFormats parses every format file of this machine's tracefs:
// the fields and print fmt of each must parse.
func TestTracefsFormats(t *testing.T) {
	files := tracefsFormats(t)
	n, failed := 0, 0
	for _, file := range files {
		text, err := os.ReadFile(file)
		if err != nil || len(text) == 0 {
			continue
		}
		sys := filepath.Base(filepath.Dir(filepath.Dir(file)))
		f, err := ParseFormat(text, sys, 8)
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		n++
		if f.Err != nil {
			failed++
			t.Errorf("%s: %v", file, f.Err)
		}
		if want := strings.TrimSuffix(filepath.Base(filepath.Dir(file)), ""); f.Name != want {
			t.Errorf("%s: name %q", file, f.Name)
		}
	}
	t.Logf("%d formats parsed, %d failed", n, failed)
}
