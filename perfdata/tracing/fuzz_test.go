package tracing

import (
	"errors"
	"testing"

	"github.com/perfpt/perfpt/perfdata"
)

const sampleFormat = `name: sched_switch
ID: 316
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;

	field:char prev_comm[16];	offset:8;	size:16;	signed:0;
	field:pid_t prev_pid;	offset:24;	size:4;	signed:1;
	field:int prev_prio;	offset:28;	size:4;	signed:1;
	field:long prev_state;	offset:32;	size:8;	signed:1;
	field:__data_loc char[] name;	offset:40;	size:4;	signed:0;

print fmt: "prev_comm=%s prev_pid=%d prev_state=%s%s name=%s x=%d", REC->prev_comm, REC->prev_pid, (REC->prev_state & ((((0x00000000 + 1) << 1) << 1) - 1)) ? __print_flags(REC->prev_state & ((((0x00000000 + 1) << 1) << 1) - 1), "|", { 0x00000001, "S" }, { 0x00000002, "D" }) : "R", REC->prev_state & (((0x00000000 + 1) << 1) << 1) ? "+" : "", __get_str(name), REC->prev_prio > 100 ? -REC->prev_pid : (int)REC->prev_prio * 3
`

// FuzzParseFormat feeds format files to the parser: never a panic, and an
// error or a format.
func FuzzParseFormat(f *testing.F) {
	f.Add([]byte(sampleFormat), "sched")
	f.Add([]byte("name: x\nID: 1\nformat:\n\nprint fmt: \"%d\", REC->y ? : (\n"), "ftrace")
	f.Fuzz(func(t *testing.T, text []byte, sys string) {
		fm, err := ParseFormat(text, sys, 8)
		if err == nil && fm == nil {
			t.Fatal("no format and no error")
		}
	})
}

// FuzzParse feeds tracing data sections: never a panic; framing errors are
// *Error values.
func FuzzParse(f *testing.F) {
	if pf, err := perfdata.Open("../../testdata/tracepoints/probes.data"); err == nil {
		if b, ok := pf.FeatureData(perfdata.FeatTracingData); ok {
			f.Add(append([]byte(nil), b...))
		}
		pf.Close()
	}
	f.Add([]byte("\x17\x08\x44tracing0.6\x00\x00\x08\x00\x10\x00\x00header_page\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := Parse(b)
		var e *Error
		if err != nil && !errors.As(err, &e) {
			t.Fatalf("error %v is no *Error", err)
		}
		if err == nil && d == nil {
			t.Fatal("no data and no error")
		}
	})
}

// TestTruncatedTracingData cuts the tracing data of a recording at every
// point: each cut is a clear error with an offset, never a panic.
func TestTruncatedTracingData(t *testing.T) {
	pf, err := perfdata.Open("../../testdata/tracepoints/probes.data")
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	b, ok := pf.FeatureData(perfdata.FeatTracingData)
	if !ok {
		t.Fatal("no tracing data")
	}
	d, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if d.Size != int64(len(b)) || len(d.Events) == 0 || d.LongSize != 8 {
		t.Fatalf("size %d of %d, %d events, long size %d", d.Size, len(b), len(d.Events), d.LongSize)
	}
	for n := 0; n < len(b); n += 1 + n/64 {
		_, err := Parse(b[:n])
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrBadValue) || e.Offset > int64(n) {
			t.Fatalf("cut at %d: %v", n, err)
		}
	}
}
