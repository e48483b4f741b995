package tracing

import (
	"maps"
	"testing"
)

// TestParsePrintk reads printk formats as perf's parse_ftrace_printk and
// tep_register_print_string: the kernel's "0x" addresses (which
// strconv.ParseUint refused, so that every format went to address 0 and
// perf's "%s" of rcu_utilization's "const char *s" printed as hex), quotes
// and a trailing "\n" escape stripped, lines without ':' skipped.
func TestParsePrintk(t *testing.T) {
	in := "0xffffffff8281a72b : \"End scheduler-tick\"\n" +
		"0xffffffff8281a73e : \"Start scheduler-tick\"\n" +
		"\n" +
		"ffffffff81000010 : \"no prefix\\n\"\n" +
		"0x20 : unquoted\\n\n" +
		"0x30 :\"x\"\n" +
		"no colon\n"
	want := map[uint64]string{
		0xffffffff8281a72b: "End scheduler-tick",
		0xffffffff8281a73e: "Start scheduler-tick",
		0xffffffff81000010: "no prefix",
		0x20:               "unquoted\\n",
		0x30:               "x",
	}
	if got := parsePrintk([]byte(in)); !maps.Equal(got, want) {
		t.Errorf("parsePrintk = %v, want %v", got, want)
	}
}
