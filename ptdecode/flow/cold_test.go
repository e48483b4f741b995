package flow

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/ptdecode/image"
	"github.com/perfpt/perfpt/ptdecode/packet"
)

// coldCode runs at 0x1000: a loop with an addr32 direct call, a call to the
// next instruction and a forward jump, then a loop with a backward jump.
var coldCode = func() []byte {
	code := make([]byte, 0x38)
	for i := range code {
		code[i] = 0xcc
	}
	put := func(at int, b ...byte) { copy(code[at-0x1000:], b) }
	put(0x1000, 0x90)                               // nop
	put(0x1001, 0x67, 0xe8, 0x19, 0x00, 0x00, 0x00) // addr32 call 0x1020
	put(0x1007, 0x90)                               // nop
	put(0x1008, 0xe8, 0x00, 0x00, 0x00, 0x00)       // call 0x100d (the next instruction)
	put(0x100d, 0x58)                               // pop rax
	put(0x100e, 0xeb, 0x02)                         // jmp 0x1012 (forward)
	put(0x1012, 0x75, 0xec)                         // jnz 0x1000
	put(0x1014, 0xeb, 0x1a)                         // jmp 0x1030 (forward)
	put(0x1020, 0xc3)                               // ret
	put(0x1030, 0x90)                               // nop
	put(0x1031, 0x74, 0x03)                         // jz 0x1036
	put(0x1033, 0xeb, 0xfb)                         // jmp 0x1030 (backward)
	put(0x1036, 0xff, 0xe0)                         // jmp rax
	return code
}()

// coldTrace runs coldCode's first loop twice and its second loop three
// times: returns and branches 1, 1, 1, 0, then 0, 0, 1.
func coldTrace(t testing.TB) []byte {
	return enabledTrace(t, 0x1000,
		packet.Packet{Kind: packet.KindTNT8, Bits: 6, Payload: 0b111000},
		packet.Packet{Kind: packet.KindTNT8, Bits: 1, Payload: 1})
}

// enabledTrace enables tracing at ip, has the packets pkts, and disables it.
func enabledTrace(t testing.TB, ip uint64, pkts ...packet.Packet) []byte {
	var e packet.Encoder
	for _, p := range []packet.Packet{
		{Kind: packet.KindPSB},
		{Kind: packet.KindModeExec, Flags: packet.FlagCSL},
		{Kind: packet.KindPSBEnd},
	} {
		if err := e.Append(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.AppendIP(packet.KindTIPPGE, ip); err != nil {
		t.Fatal(err)
	}
	for _, p := range append(pkts, packet.Packet{Kind: packet.KindTIPPGD}) {
		if err := e.Append(p); err != nil {
			t.Fatal(err)
		}
	}
	return e.Buf
}

// TestColdBlocks: with Config.ColdBlocks, blocks end where libipt's block
// decoder ends them on a cold block cache (pt_blk_proceed_no_event_fill_cache
// stops after every direct call and direct backward jump it adds to the
// cache): after the first execution of the addr32 call, of the call to the
// next instruction and of the backward jump, not after later ones nor after
// forward jumps. (libipt's ptxed --block:show-blocks --raw on these bytes
// shows the same blocks.) Without it, blocks are libipt's on a warm cache.
func TestColdBlocks(t *testing.T) {
	img := image.New("cold")
	if err := img.AddBytes("cold", coldCode, 0x1000); err != nil {
		t.Fatal(err)
	}
	trace := coldTrace(t)
	if dir := os.Getenv("PERFPT_COLD_DUMP"); dir != "" {
		_ = os.WriteFile(dir+"/cold.pt", trace, 0o644)
		_ = os.WriteFile(dir+"/cold.bin", coldCode, 0o644)
	}
	blocksIn := func(img *image.Image, cfg *Config) string { return walkedBlocks(trace, img, cfg) }
	blocks := func(cold bool) string { return blocksIn(img, &Config{ColdBlocks: cold}) }
	for _, tc := range []struct {
		cold bool
		want string
	}{
		{true, "0x1000:2 0x1020:1 0x1007:2 0x100d:3 0x1000:3 0x1007:5 0x1014:3 0x1033:1 0x1030:2 0x1033:3 0x1036:1"},
		{false, "0x1000:3 0x1007:5 0x1000:3 0x1007:5 0x1014:3 0x1033:3 0x1033:3 0x1036:1"},
	} {
		if got := blocks(tc.cold); got != tc.want {
			t.Errorf("ColdBlocks %v: blocks\n%s\nwant\n%s", tc.cold, got, tc.want)
		}
	}
	// The sites stay known in a shared cache, also to another image
	// mapping the same section (as libipt's cache is the section's).
	cfg := &Config{ColdBlocks: true, Cache: NewBlockCache()}
	blocksIn(img, cfg)
	img2 := image.New("again")
	if err := img2.Add(img.Mappings()[0].Sec, 0, 0, 0x1000); err != nil {
		t.Fatal(err)
	}
	if got, want := blocksIn(img2, cfg), blocks(false); got != want {
		t.Errorf("warm shared cache: blocks\n%s\nwant\n%s", got, want)
	}
}

func walkedBlocks(trace []byte, img *image.Image, cfg *Config) string {
	r := new(recording)
	WalkBlocks(NewBlockDecoder(trace, img, cfg), WalkOptions{}, r)
	var s []string
	for _, b := range r.blocks {
		if b.NInsn != 0 {
			s = append(s, fmt.Sprintf("%#x:%d", b.IP, b.NInsn))
		}
	}
	return strings.Join(s, " ")
}

// TestColdBlocksFillSteps: libipt's block decoder fills its cache
// bcache_fill_steps (1024) instructions at a time; where it stops it puts a
// trampoline and ends the block. 1100 nops, a jz and a jmp rax: libipt's
// ptxed --block:show-blocks shows a block of 1024 nops, then one of 76
// nops and the jz, then the jmp.
func TestColdBlocksFillSteps(t *testing.T) {
	code := append(bytes.Repeat([]byte{0x90}, 1100), 0x74, 0x00, 0xff, 0xe0) // jz 0x144e; jmp rax
	img := image.New("nops")
	if err := img.AddBytes("nops", code, 0x1000); err != nil {
		t.Fatal(err)
	}
	trace := enabledTrace(t, 0x1000, packet.Packet{Kind: packet.KindTNT8, Bits: 1, Payload: 0})
	for _, tc := range []struct {
		cold bool
		want string
	}{
		{true, "0x1000:1024 0x1400:77 0x144e:1"},
		{false, "0x1000:1101 0x144e:1"},
	} {
		if got := walkedBlocks(trace, img, &Config{ColdBlocks: tc.cold}); got != tc.want {
			t.Errorf("ColdBlocks %v: blocks %s, want %s", tc.cold, got, tc.want)
		}
	}
}
