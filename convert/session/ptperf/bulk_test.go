package ptperf

import (
	"math/rand"
	"testing"

	"github.com/perfpt/perfpt/ptdecode/packet"
)

// TestTIPTarget compares TIPTarget with the decoder's reading of a TIP
// (packet.DecodeInto, calcIP) on random bytes after every first byte.
func TestTIPTarget(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	tips := 0
	for i := 0; i < 20000; i++ {
		b := make([]byte, 8+rng.Intn(3))
		rng.Read(b)
		b[0] = byte(i)
		last := rng.Uint64()
		ip, pl, size, ok := TIPTarget(b, last)
		var p packet.Packet
		want := len(b) >= 9 && packet.DecodeInto(&p, b, 0) == nil && p.Kind == packet.KindTIP && p.IPC != packet.IPCSuppressed
		if ok != want {
			t.Fatalf("% x: TIPTarget says %v, the decoder %v (%+v)", b, ok, want, p)
		}
		if !ok {
			continue
		}
		tips++
		if size != int(p.Size) || pl != p.Payload || ip != calcIP(&p, last) {
			t.Fatalf("% x after %#x: TIPTarget %#x %#x %d, the decoder %#x %+v", b, last, ip, pl, size, calcIP(&p, last), p)
		}
	}
	if tips == 0 {
		t.Fatal("no TIP read")
	}
}
