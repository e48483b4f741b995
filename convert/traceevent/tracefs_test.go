package traceevent

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/perfdata/tracing"
)

// perfFails lists the formats of this machine's kernel (6.18) whose print
// fmt perf 6.1's libtraceevent cannot parse either: perf prints them as
// "[FAILED TO PARSE]" with the raw fields, and so do we. The reason is the
// part of the parse error that must match.
var perfFails = map[string]string{
	"dma:dma_alloc_sgt":               "expected \",\"",            // sizeof(u64) inside __print_array
	"dma:dma_free_sgt":                "expected \",\"",            // same
	"dma:dma_map_sg":                  "bad op token {",            // a statement expression ({ ... })
	"dma:dma_map_sg_err":              "expected \",\"",            // sizeof
	"dma:dma_sync_sg_for_cpu":         "expected \",\"",            // sizeof
	"dma:dma_sync_sg_for_device":      "expected \",\"",            // sizeof
	"dma:dma_unmap_sg":                "expected \",\"",            // sizeof
	"ipi:ipi_send_cpumask":            "__get_cpumask not defined", // newer helper
	"jbd2:jbd2_checkpoint_stats":      "jiffies_to_msecs not defined",
	"jbd2:jbd2_run_stats":             "jiffies_to_msecs not defined",
	"kvm:kvm_inj_exception":           "bad op token }", // __print_symbolic(x, { })
	"kvmmmu:kvm_mmu_get_page":         "bad op token {", // statement expression
	"kvmmmu:kvm_mmu_prepare_zap_page": "bad op token {",
	"kvmmmu:kvm_mmu_sync_page":        "bad op token {",
	"kvmmmu:kvm_mmu_unsync_page":      "bad op token {",
	"ras:mc_event":                    "mc_event_error_type not defined",
}

// TestTracefsFormats evaluates the print fmt of every format file of this
// machine's tracefs on a synthetic record: each must print with its print
// fmt, except those perf's libtraceevent fails on too (perfFails), which
// must fail for that reason and print "[FAILED TO PARSE]".
func TestTracefsFormats(t *testing.T) {
	files, _ := filepath.Glob("/sys/kernel/tracing/events/*/*/format")
	if len(files) == 0 {
		t.Skip("no readable tracefs at /sys/kernel/tracing (needs root and a mounted tracefs)")
	}
	p := NewFor(binary.LittleEndian, 8, nil)
	n, failed := 0, 0
	var out []byte
	for _, file := range files {
		text, err := os.ReadFile(file)
		if err != nil || len(text) == 0 {
			continue
		}
		sys := filepath.Base(filepath.Dir(filepath.Dir(file)))
		f, err := tracing.ParseFormat(text, sys, 8)
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		n++
		key := f.System + ":" + f.Name
		raw := syntheticRecord(f)
		out = p.Append(out[:0], f, raw)
		err = p.Err(f)
		if f.Bprint {
			// ftrace:bprint takes its format from the record (a
			// trace_printk); perf record cannot record ftrace events, and
			// we refuse it with an error.
			if err == nil {
				t.Errorf("%s: no error", key)
			}
			continue
		}
		reason, known := perfFails[key]
		switch {
		case err == nil && known:
			t.Errorf("%s: parses, but perf's libtraceevent fails on it (%s)", key, reason)
		case err != nil && !known:
			t.Errorf("%s: %v", key, err)
		case err != nil:
			failed++
			if !strings.Contains(err.Error(), reason) {
				t.Errorf("%s: fails with %v, want %q", key, err, reason)
			}
			if !strings.HasPrefix(string(out), "[FAILED TO PARSE]") {
				t.Errorf("%s: printed %q", key, out)
			}
		}
	}
	t.Logf("%d formats evaluated: %d with their print fmt, %d as [FAILED TO PARSE] like perf", n, n-failed, failed)
}

// syntheticRecord makes a record for f: fields filled with a pattern,
// dynamic fields pointing at a short string after the fixed part.
func syntheticRecord(f *tracing.Format) []byte {
	size := 0
	for _, fl := range append(append([]*tracing.Field{}, f.Common...), f.Fields...) {
		if e := fl.Offset + fl.Size; e > size {
			size = e
		}
	}
	raw := make([]byte, size, size+16)
	for i := range raw {
		raw[i] = byte(i*7 + 1)
	}
	dyn := append([]byte("abc"), 0)
	for _, fl := range f.Fields {
		if fl.Flags&tracing.FieldDynamic == 0 || fl.Size != 4 {
			continue
		}
		off := len(raw)
		if fl.Flags&tracing.FieldRelative != 0 {
			off -= fl.Offset + fl.Size
		}
		binary.LittleEndian.PutUint32(raw[fl.Offset:], uint32(len(dyn))<<16|uint32(off))
	}
	return append(raw, dyn...)
}
