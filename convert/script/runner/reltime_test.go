package runner

import (
	"bytes"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/internal/perfopt"
)

// TestRelDeltaTime: --reltime prints each time less the first one printed
// and --deltatime less the previous one (0 first), as
// perf_sample__fprintf_start does (checked with perf 6.1 on the corpus of
// recordings made elsewhere: file and pipe mode, PT, side-band lines);
// both together are perf's error.
func TestRelDeltaTime(t *testing.T) {
	in := filepath.Join("..", "..", "..", "testdata", "perf", "fields.data")
	times := func(cfg Config) []int64 {
		t.Helper()
		cfg.Input, cfg.Nanosecs, cfg.Fields = in, true, []string{"time"}
		var out, stderr bytes.Buffer
		if err := Run(cfg, &out, &stderr); err != nil {
			t.Fatalf("%+v: %v\n%s", cfg, err, stderr.String())
		}
		var ts []int64
		for _, ln := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			s := strings.TrimSuffix(strings.TrimSpace(ln), ":")
			sec, ns, ok := strings.Cut(s, ".")
			a, err1 := strconv.ParseInt(sec, 10, 64)
			b, err2 := strconv.ParseInt(ns, 10, 64)
			if !ok || err1 != nil || err2 != nil || len(ns) != 9 {
				t.Fatalf("line %q", ln)
			}
			ts = append(ts, a*1e9+b)
		}
		return ts
	}
	abs, rel, delta := times(Config{}), times(Config{RelTime: true}), times(Config{DeltaTime: true})
	if len(abs) < 3 || len(rel) != len(abs) || len(delta) != len(abs) {
		t.Fatalf("%d, %d, %d lines", len(abs), len(rel), len(delta))
	}
	for i := range abs {
		wantDelta := int64(0)
		if i > 0 {
			wantDelta = abs[i] - abs[i-1]
		}
		if rel[i] != abs[i]-abs[0] || delta[i] != wantDelta {
			t.Fatalf("line %d: time %d, reltime %d (want %d), deltatime %d (want %d)", i, abs[i], rel[i], abs[i]-abs[0], delta[i], wantDelta)
		}
	}
	var ex *perfopt.Exit
	if err := Run(Config{Input: in, RelTime: true, DeltaTime: true}, &bytes.Buffer{}, &bytes.Buffer{}); !errors.As(err, &ex) || ex.Status != 255 {
		t.Errorf("--reltime --deltatime: %v, want perf's error (status 255)", err)
	}
}
