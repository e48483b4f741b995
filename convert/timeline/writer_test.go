package timeline

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/convert/timeline/readback"
)

// script writes a small timeline through w: two processes, three threads,
// nested slices, a complete event, instants, counters and every argument
// kind, and returns what a reader should see, as text.
func writeScript(w Writer, strs *Strings, nstr int) []string {
	s := strs.Intern
	w.Process(10, s("proc ten"))
	w.Thread(0, 10, 10, s("main"))
	w.Thread(1, 10, 11, s("worker \"1\"\n"))
	w.Process(20, s("other"))
	w.Thread(2, 20, 20, s("other"))
	var want []string
	args := []Arg{{Name: s("dso"), Kind: ArgString, S: s("/lib/libc.so.6")},
		{Name: s("u"), Kind: ArgUint, U: 1 << 40}, {Name: s("small"), Kind: ArgUint, U: 7},
		{Name: s("i"), Kind: ArgInt, U: uint64(1<<63 | 5)}, {Name: s("neg"), Kind: ArgInt, U: ^uint64(2)},
		{Name: s("f"), Kind: ArgFloat, U: math.Float64bits(2.5)}, {Name: s("p"), Kind: ArgPointer, U: 0x401000}}
	w.Begin(0, 1000, s("call"), s("main"), args)
	want = append(want, "B 10/10 1000 call main")
	for i := 0; i < nstr; i++ {
		// Many distinct names: the Fuchsia string table wraps.
		name := s(fmt.Sprintf("f%d", i))
		w.Begin(0, 1001+uint64(i)*2, s("call"), name, args[:1])
		w.End(0, 1002+uint64(i)*2, s("return"), name)
		want = append(want, fmt.Sprintf("B 10/10 %d call f%d", 1001+i*2, i), fmt.Sprintf("E 10/10 %d return f%d", 1002+i*2, i))
	}
	t := 1002 + uint64(nstr)*2
	w.Instant(1, 5, s("error"), s("instruction trace error"), []Arg{{Name: s("code"), Kind: ArgUint, U: 8}})
	w.Begin(1, 6, s("syscall"), s("syscall"), nil)
	w.End(1, 9, s("syscall"), s("syscall"))
	w.Complete(1, 2, 10, s("inferred"), s("start_thread"), nil)
	w.Counter(2, 7, s("cbr"), s("CPU frequency"), []Arg{{Name: s("MHz"), Kind: ArgUint, U: 2400}})
	w.End(0, t, s("return"), s("main"))
	want = append(want, "i 10/11 5 error instruction trace error", "B 10/11 6 syscall syscall", "E 10/11 9 syscall syscall",
		"X 10/11 2-10 inferred start_thread", "C 20/20 7 cbr CPU frequency", fmt.Sprintf("E 10/10 %d return main", t))
	return want
}

func eventText(e *readback.Event) string {
	when := fmt.Sprint(e.Ts)
	if e.Phase == 'X' {
		when = fmt.Sprintf("%d-%d", e.Ts, e.End)
	}
	return fmt.Sprintf("%c %d/%d %s %s %s", e.Phase, e.Pid, e.Tid, when, e.Cat, e.Name)
}

// TestWritersReadBack writes the same events in both formats, reads them
// back with readback's readers and compares, then checks the timeline.
func TestWritersReadBack(t *testing.T) {
	for _, f := range []Format{FormatFXT, FormatJSON} {
		for _, nstr := range []int{3, 40000} {
			t.Run(fmt.Sprintf("%s/%d", f, nstr), func(t *testing.T) {
				var buf bytes.Buffer
				strs := NewStrings()
				w := NewWriter(f, &buf, strs)
				want := writeScript(w, strs, nstr)
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
				var got []string
				var mainArgs []readback.Arg
				c := readback.NewChecker()
				info, err := readback.Read(bytes.NewReader(buf.Bytes()), func(e *readback.Event) error {
					got = append(got, eventText(e))
					if e.Name == "main" && e.Phase == 'B' {
						mainArgs = append([]readback.Arg(nil), e.Args...)
					}
					return c.Event(e)
				})
				if err != nil {
					t.Fatal(err)
				}
				if err := c.Finish(); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("read back\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
				if info.Threads[[2]int64{10, 11}] != "worker \"1\"\n" || info.Processes[20] != "other" {
					t.Errorf("names: %v %v", info.Threads, info.Processes)
				}
				vals := map[string]any{}
				for _, a := range mainArgs {
					vals[a.Name] = a.Val
				}
				wantVals := map[string]any{"dso": "/lib/libc.so.6", "u": uint64(1 << 40), "small": uint64(7),
					"i": int64(-1<<63 + 5), "neg": int64(-3), "f": 2.5, "p": uint64(0x401000)}
				if f == FormatJSON {
					wantVals["p"] = "0x401000"
				}
				if !reflect.DeepEqual(vals, wantVals) {
					t.Errorf("args %v, want %v", vals, wantVals)
				}
			})
		}
	}
}

// TestCheckerCatches feeds the checker timelines that break each rule.
func TestCheckerCatches(t *testing.T) {
	B := func(ts uint64, n string) readback.Event { return readback.Event{Phase: 'B', Ts: ts, Name: n} }
	E := func(ts uint64, n string) readback.Event { return readback.Event{Phase: 'E', Ts: ts, Name: n} }
	X := func(a, b uint64, n string) readback.Event { return readback.Event{Phase: 'X', Ts: a, End: b, Name: n} }
	for _, tc := range []struct {
		name string
		evs  []readback.Event
		want string
	}{
		{"ok", []readback.Event{B(1, "a"), B(2, "b"), E(3, "b"), E(4, "a"), X(0, 5, "c")}, ""},
		{"backwards", []readback.Event{B(5, "a"), E(4, "a")}, "after an event"},
		{"wrong end", []readback.Event{B(1, "a"), B(2, "b"), E(3, "a")}, "closes"},
		{"open", []readback.Event{B(1, "a")}, "never ends"},
		{"overlap", []readback.Event{B(1, "a"), E(4, "a"), X(2, 6, "c")}, "overlaps"},
	} {
		c := readback.NewChecker()
		var err error
		for i := range tc.evs {
			if err = c.Event(&tc.evs[i]); err != nil {
				break
			}
		}
		if err == nil {
			err = c.Finish()
		}
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestFXTRecentRecords writes a function's Begin and End (from the
// records FXT caches) among enough other names that the string table
// reuses every index several times: each must read back with its own
// name and argument.
func TestFXTRecentRecords(t *testing.T) {
	var buf bytes.Buffer
	strs := NewStrings()
	w := NewFXT(&buf, strs)
	s := strs.Intern
	w.Process(1, s("p"))
	w.Thread(0, 1, 1, s("t"))
	hot := &fnInfo{name: s("hot"), nargs: 1}
	hot.args[0] = Arg{Name: s("dso"), Kind: ArgString, S: s("/lib/hot.so")}
	call, ret := s("call"), s("return")
	const n = 100000
	for i := range n {
		ts := uint64(i) * 4
		name := s(fmt.Sprintf("f%d", i))
		w.Begin(0, ts, call, name, nil)
		w.Begin(0, ts+1, call, hot.name, hot.argList())
		w.End(0, ts+2, ret, hot.name)
		w.End(0, ts+3, ret, name)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	k := 0
	c := readback.NewChecker()
	_, err := readback.Read(bytes.NewReader(buf.Bytes()), func(e *readback.Event) error {
		i := k / 4
		want := fmt.Sprintf("f%d", i)
		if k%4 == 1 || k%4 == 2 {
			want = "hot"
		}
		if e.Name != want || k%4 == 1 && (len(e.Args) != 1 || e.Args[0].Name != "dso" || e.Args[0].Val != "/lib/hot.so") {
			return fmt.Errorf("event %d: %s %v, want %s", k, e.Name, e.Args, want)
		}
		k++
		return c.Event(e)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Finish(); err != nil {
		t.Fatal(err)
	}
	if k != 4*n {
		t.Fatalf("%d events, want %d", k, 4*n)
	}
}

// TestSpanIsInterp checks span.at against interp on intervals of every
// size, with products past 64 bits.
func TestSpanIsInterp(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		var t0, t1, p0, p1 uint64
		switch rng.IntN(3) {
		case 0:
			t0, t1 = rng.Uint64N(1<<40), rng.Uint64N(1<<40)
			p0, p1 = rng.Uint64N(1<<20), rng.Uint64N(1<<20)
		case 1:
			t0, t1 = rng.Uint64(), rng.Uint64()
			p0, p1 = rng.Uint64(), rng.Uint64()
		default:
			t0 = rng.Uint64N(1 << 50)
			t1 = t0 + rng.Uint64N(1000)
			p0 = rng.Uint64N(1 << 30)
			p1 = p0 + 1 + rng.Uint64N(100)
		}
		sp := newSpan(t0, t1, p0, p1)
		for range 4 {
			p := p0 + rng.Uint64N(max(p1-p0, 1)+2) - 1
			if rng.IntN(8) == 0 {
				p = rng.Uint64()
			}
			if got, want := sp.at(p), interp(t0, t1, p0, p1, p); got != want {
				t.Fatalf("span(%d, %d, %d, %d).at(%d) = %d, interp %d", t0, t1, p0, p1, p, got, want)
			}
		}
	}
}
