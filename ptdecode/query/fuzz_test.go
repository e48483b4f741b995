package query

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecoder: on any bytes the decoder must not panic, and decoding with
// resynchronisation after errors must end within a bound linear in the
// size of the input. The query layer is driven alongside.
func FuzzDecoder(f *testing.F) {
	for _, tt := range decoderTests {
		f.Add(encode(f, tt.pkts...), uint8(0))
	}
	// The corpus streams, when present.
	if files, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "conformance", "libipt", "cases", "*", "*.pt")); len(files) > 0 {
		for _, file := range files[:min(len(files), 60)] {
			if b, err := os.ReadFile(file); err == nil {
				f.Add(b, uint8(1))
			}
		}
	}
	f.Fuzz(func(t *testing.T, buf []byte, flags uint8) {
		cfg := Config{IFlagsEvents: flags&1 != 0, KeepTcalOnOvf: flags&2 != 0}
		if flags&4 != 0 {
			for _, n := range []string{"bdm70", "skd010", "apl11", "apl12", "skd007", "skz84"} {
				cfg.Errata.Set(n)
			}
		}
		limit := 64 + 40*len(buf)
		steps := 0
		d := NewDecoder(buf, &cfg)
		err := d.SyncForward()
		var ev Event
		for ; steps < limit; steps++ {
			if err != nil {
				if CodeOf(err) == CodeEOS {
					break
				}
				err = d.SyncForward()
				continue
			}
			if e := d.Next(&ev); e != nil {
				err = d.SyncForward()
			}
		}
		if steps >= limit {
			t.Fatalf("no end after %d steps on %d bytes", steps, len(buf))
		}

		// Backward synchronisation ends too, each time further back.
		d = NewDecoder(buf, &cfg)
		last := uint64(len(buf)) + 1
		for steps = 0; steps < limit; steps++ {
			err := d.SyncBackward()
			if CodeOf(err) == CodeEOS {
				break
			}
			if err == nil {
				if d.SyncOffset() >= last {
					t.Fatalf("SyncBackward went from %d to %d", last, d.SyncOffset())
				}
				last = d.SyncOffset()
			}
		}
		if steps >= limit {
			t.Fatalf("SyncBackward: no end after %d steps on %d bytes", steps, len(buf))
		}

		q := NewQuery(buf, &cfg)
		_, _, err = q.SyncForward()
		for steps = 0; steps < limit; steps++ {
			if err != nil {
				if CodeOf(err) == CodeEOS {
					break
				}
				_, _, err = q.SyncForward()
				continue
			}
			switch steps % 3 {
			case 0:
				_, err = q.Event(&ev)
			case 1:
				_, _, err = q.CondBranch()
			case 2:
				_, _, err = q.IndirectBranch()
			}
			if CodeOf(err) == CodeBadQuery {
				err = nil
				// Consume whatever comes next so that the loop moves.
				if _, e := q.Event(&ev); CodeOf(e) == CodeBadQuery {
					if _, _, e = q.CondBranch(); CodeOf(e) == CodeBadQuery {
						_, _, e = q.IndirectBranch()
					}
					err = e
				} else {
					err = e
				}
			}
		}
		if steps >= limit {
			t.Fatalf("query: no end after %d steps on %d bytes", steps, len(buf))
		}
	})
}
