package perfdata

import (
	"bytes"
	"os"
	"testing"
	"time"
)

// FuzzReader feeds arbitrary bytes to every reading path: it must return
// errors, never panic or allocate without bound. On a loaded machine pass
// -fuzzminimizetime 3s: minimizing an interesting input of several kB
// otherwise shows as minutes of "0 execs/sec".
func FuzzReader(f *testing.F) {
	for _, name := range []string{"pipe.data", "pipe-z.data", "compressed.data", "switch.data", "multi.data"} {
		b, err := os.ReadFile("../testdata/perf/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		// A hang crashes the worker so that the fuzzer keeps the input.
		watchdog := time.AfterFunc(20*time.Second, func() { panic("FuzzReader: input takes over 20 s") })
		defer watchdog.Stop()
		for _, order := range []Order{FileOrder, TimeOrder} {
			file, err := NewBytes(b)
			if err != nil {
				return
			}
			rs := file.Records(order)
			rs.Reuse = order == TimeOrder
			n := 0
			for rs.Next() && n < 100000 {
				n++
				r := rs.Record
				if info, ok := r.(*RecordAuxtraceInfo); ok {
					ParseIntelPTInfo(info.Priv)
				}
				if _, ok := r.(*RecordUnknown); !ok {
					AppendRecord(nil, r, r.Common().Attr)
				}
			}
			rs.Close()
			file.Features()
		}
		file, err := New(bytes.NewReader(b))
		if err != nil {
			return
		}
		rs := file.Records(FileOrder)
		for rs.Next() {
		}
	})
}
