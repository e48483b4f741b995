package traceevent

import (
	"encoding/binary"
	"strconv"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/perfdata/tracing"
)

// helperFormat's fields; the print fmt is replaced per case.
const helperFormat = `name: helpers
ID: 7
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;

	field:int a;	offset:8;	size:4;	signed:1;
	field:__data_loc char[] name;	offset:12;	size:4;	signed:0;
	field:unsigned long flags;	offset:16;	size:8;	signed:0;
	field:char comm[8];	offset:24;	size:8;	signed:0;
	field:__data_loc unsigned long[] mask;	offset:32;	size:4;	signed:0;
	field:__data_loc u8[] buf;	offset:36;	size:4;	signed:0;
	field:unsigned char mac[6];	offset:40;	size:6;	signed:0;
	field:unsigned char saddr[4];	offset:46;	size:4;	signed:0;
	field:short s;	offset:50;	size:2;	signed:1;
	field:unsigned int arr[3];	offset:52;	size:12;	signed:0;
	field:u64 val;	offset:64;	size:8;	signed:0;

print fmt: "%d", REC->a
`

func helperRecord() []byte {
	r := make([]byte, 87)
	le := binary.LittleEndian
	le.PutUint16(r[0:], 7)
	le.PutUint32(r[4:], 42)
	le.PutUint32(r[8:], uint32(0xfffffffb)) // a = -5
	le.PutUint32(r[12:], 4<<16|72)          // name: "xyz"
	le.PutUint64(r[16:], 0x13)
	copy(r[24:], "abc")
	le.PutUint32(r[32:], 8<<16|76) // mask
	le.PutUint32(r[36:], 3<<16|84) // buf
	copy(r[40:], []byte{0, 0x11, 0x22, 0x33, 0x44, 0x55})
	copy(r[46:], []byte{192, 168, 1, 2})
	le.PutUint16(r[50:], 0xfffe) // s = -2
	le.PutUint32(r[52:], 1)
	le.PutUint32(r[56:], 2)
	le.PutUint32(r[60:], 3)
	le.PutUint64(r[64:], 0x1234)
	copy(r[72:], "xyz\x00")
	copy(r[76:], []byte{0x0f, 0x01})
	copy(r[84:], []byte{0xde, 0xad, 0xbe})
	return r
}

// TestHelpers checks each print fmt helper and conversion on one record,
// with what libtraceevent (perf 6.1's) prints for it.
func TestHelpers(t *testing.T) {
	cases := []struct{ fmt, want string }{
		{`"%d %u %x", REC->a, REC->a, REC->a`, "-5 4294967291 fffffffb"},
		{`"%5d|%-5d|%05d", REC->a, REC->a, REC->a`, "   -5|-5   |-0005"},
		{`"%lx %#lx %llx %08lx", REC->flags, REC->flags, REC->flags, REC->flags`, "13 0x13 13 00000013"},
		{`"%s", __get_str(name)`, "xyz"},
		{`"[%-6s|%6s]", REC->comm, __get_str(name)`, "[abc   |   xyz]"},
		{`"%s", __print_flags(REC->flags, "|", { 1, "A" }, { 2, "B" }, { 0x10, "C" })`, "A|B|C"},
		{`"%s", __print_flags(REC->flags, "|", { 1, "A" })`, "A|0x12"},
		{`"%s", __print_flags(REC->flags & 0, "|", { 0, "NONE" }, { 1, "A" })`, ""}, // a zero value matches no flag, not even 0
		{`"%s", __print_symbolic(REC->s, { 1, "one" }, { 2, "two" })`, "0xfffe"},
		{`"%s", __print_symbolic(REC->arr[1], { 0, "HI" }, { 2, "TWO" })`, "TWO"},
		{`"%s", __print_symbolic(REC->arr[0], { HI_SOFTIRQ, "hi" }, { TIMER_SOFTIRQ, "timer" })`, "timer"},
		{`"%s", __print_hex(__get_dynamic_array(buf), __get_dynamic_array_len(buf))`, "de ad be"},
		{`"%s", __print_hex_str(__get_dynamic_array(buf), __get_dynamic_array_len(buf))`, "deadbe"},
		{`"%s", __print_hex(REC->mac, 3)`, "00 11 22"},
		{`"%s", __print_array(REC->arr, 3, 4)`, "1 2 3"},
		{`"%s", __get_bitmask(mask)`, "00000000,0000010f"},
		{`"%pM %pm %pMR", REC->mac, REC->mac, REC->mac`, "00:11:22:33:44:55 001122334455 55:44:33:22:11:00"},
		{`"%pI4 %pi4", REC->saddr, REC->saddr`, "192.168.1.2 192.168.001.002"},
		{`"%d", REC->a > 0 ? 1 : 2`, "1"}, // the field is read unsigned
		{`"%d", (int)REC->s`, "65534"},    // a cast to int does not sign-extend
		{`"%d", REC->val * 2 + 1`, "9321"},
		{`"%llu", REC->val >> 4 & 0xff`, "35"},
		{`"%s", REC->a ? "yes" : "no"`, "yes"},
		{`"%p %p", REC->val, 0`, "0x1234 (nil)"},
		{`"%c|", REC->a`, ">c<|"},
		{`"%d", REC->nofield`, "0"},
		{`"%*ph", 2, __get_dynamic_array(buf)`, "de ad"},
		{`"%d %d", __get_dynamic_array_len(buf), sizeof`, "3 0"},
		{`"100%% %d\n", REC->common_pid`, "100% 42\n"},
		{`"%pS", REC->val`, "0x1234"},
		// an unknown function fails the event: the raw fields follow (a
		// char array starting with NUL is an empty string)
		{`"%d", foo(REC->a)`, "[FAILED TO PARSE] a=-5 name=xyz flags=0x13 comm=abc mask=ARRAY[0f, 01, 00, 00, 00, 00, 00, 00] buf=ARRAY[de, ad, be] mac= saddr=ARRAY[c0, a8, 01, 02] s=-2 arr=ARRAY[01, 00, 00, 00, 02, 00, 00, 00, 03, 00, 00, 00] val=4660"},
	}
	raw := helperRecord()
	p := NewFor(binary.LittleEndian, 8, nil)
	for _, c := range cases {
		text := strings.Replace(helperFormat, `"%d", REC->a`, c.fmt, 1)
		f, err := tracing.ParseFormat([]byte(text), "test", 8)
		if err != nil {
			t.Fatalf("%s: %v", c.fmt, err)
		}
		if got := string(p.Append(nil, f, raw)); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.fmt, got, c.want)
		}
	}
}

// TestAppendHex checks appendHex against strconv at every digit count and
// the edges between them, appended to a slice with and without room.
func TestAppendHex(t *testing.T) {
	vals := []uint64{0, 1, 9, 10, 15, 16, 255, 256, 0x7ffc42b7b75c, 1<<63 - 1, 1 << 63, ^uint64(0)}
	for sh := 0; sh < 64; sh++ {
		vals = append(vals, 1<<sh, 1<<sh-1, 0xa5a5a5a5a5a5a5a5>>sh)
	}
	for _, v := range vals {
		for _, pre := range []string{"", "x", "0123456789abcdef0"} {
			want := pre + strconv.FormatUint(v, 16)
			for _, room := range []int{0, 32} {
				b := append(make([]byte, 0, len(pre)+room), pre...)
				if got := string(appendHex(b, v)); got != want {
					t.Errorf("appendHex(%q, %#x) = %q, want %q", pre, v, got, want)
				}
			}
		}
	}
}
