package timeline

import (
	"io"
	"path/filepath"
	"testing"
)

// BenchmarkWriters writes a call (a Begin with two arguments and its End)
// per iteration: the bytes per call of each format, and no allocation.
func BenchmarkWriters(b *testing.B) {
	for _, f := range []Format{FormatFXT, FormatJSON} {
		b.Run(f.String(), func(b *testing.B) {
			strs := NewStrings()
			cw := &countWriter{}
			w := NewWriter(f, cw, strs)
			w.Process(1, strs.Intern("bench"))
			w.Thread(0, 1, 1, strs.Intern("bench"))
			names := make([]Str, 64)
			for i := range names {
				names[i] = strs.Intern("function_" + string(rune('a'+i%26)) + string(rune('a'+i/26)))
			}
			args := []Arg{{Name: strs.Intern("dso"), Kind: ArgString, S: strs.Intern("/usr/lib/libc.so.6")},
				{Name: strs.Intern("src"), Kind: ArgString, S: strs.Intern("malloc.c:3287")}}
			call, ret := strs.Intern("call"), strs.Intern("return")
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				n := names[i&63]
				t := uint64(i) * 10
				w.Begin(0, t, call, n, args)
				w.End(0, t+5, ret, n)
			}
			w.Close()
			b.ReportMetric(float64(cw.n)/float64(b.N), "bytes/call")
		})
	}
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// BenchmarkConvertExample converts the example recording (7219 calls).
func BenchmarkConvertExample(b *testing.B) {
	r := repo()
	in := filepath.Join(r, "testdata/example/primes.perf.data")
	for _, f := range []Format{FormatFXT, FormatJSON} {
		b.Run(f.String(), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				strs := NewStrings()
				w := NewWriter(f, io.Discard, strs)
				if _, err := Convert(in, w, strs, Options{Symfs: filepath.Join(r, "testdata/example/symfs"), Workers: 1}); err != nil {
					b.Fatal(err)
				}
				w.Close()
			}
		})
	}
}
