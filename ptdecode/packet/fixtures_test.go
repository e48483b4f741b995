package packet

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the trace fixtures in testdata/pt")

// fixtureDir is the repository's testdata/pt.
var fixtureDir = filepath.Join("..", "..", "testdata", "pt")

// allKinds is a trace with every packet kind the SDM defines, as ptdump
// can print it: a PSB+, then one or more of each kind.
func allKinds() []byte {
	var e Encoder
	for _, p := range []Packet{
		{Kind: KindPSB},
		{Kind: KindTSC, Payload: 0x1000},
		{Kind: KindTMA, CTC: 0x20, FC: 0x10},
		{Kind: KindCBR, Payload: 0x18},
		{Kind: KindModeExec, Flags: FlagCSL},
		{Kind: KindFUP, IPC: IPCSext48, Payload: 0x401000},
		{Kind: KindPSBEnd},
	} {
		if err := e.Append(p); err != nil {
			panic(err)
		}
	}
	for _, s := range samples {
		if s.p.Kind == KindPSB || s.p.Kind == KindBBP || s.p.Kind == KindBEP || s.p.Kind == KindBIP {
			continue // libipt knows no PEBS-via-PT blocks; keep the fixture comparable
		}
		if err := e.Append(s.p); err != nil {
			panic(err)
		}
	}
	return e.Buf
}

// blocks is a trace with PEBS-via-PT blocks: BBP, BIP items of 8 and 4
// bytes (whose first bytes would read as TNT outside a block), BEP.
func blocks() []byte {
	var e Encoder
	for _, p := range []Packet{
		{Kind: KindPSB},
		{Kind: KindPSBEnd},
		{Kind: KindTNT8, Bits: 1, Payload: 1},
		{Kind: KindBBP, Type: 1},
		{Kind: KindBIP, Type: 0, Bits: 8, Payload: 0x401000},
		{Kind: KindBIP, Type: 3, Bits: 8, Payload: 0x7fff0000},
		{Kind: KindBEP, Flags: FlagIP},
		{Kind: KindFUP, IPC: IPCSext48, Payload: 0x401000},
		{Kind: KindBBP, Type: 2, Flags: FlagSZ},
		{Kind: KindBIP, Type: 1, Bits: 4, Payload: 0x1234},
		{Kind: KindBEP},
		{Kind: KindTNT8, Bits: 1, Payload: 0},
	} {
		if err := e.Append(p); err != nil {
			panic(err)
		}
	}
	return e.Buf
}

// TestFixtures checks (or with -update writes) the generated traces of
// testdata/pt: mix.pt (genTrace, 16 KiB), all-kinds.pt and blocks.pt.
func TestFixtures(t *testing.T) {
	for name, data := range map[string][]byte{
		"mix.pt":       genTrace(16<<10, 3),
		"all-kinds.pt": allKinds(),
		"blocks.pt":    blocks(),
	} {
		path := filepath.Join(fixtureDir, name)
		if *update {
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -update to create it)", err)
		}
		if !bytes.Equal(got, data) {
			t.Errorf("%s differs from what the generator writes; run go test -update", path)
		}
		d := NewDecoder(got)
		n := 0
		for d.Next() {
			n++
		}
		if d.Err() != nil || n == 0 {
			t.Errorf("%s: %d packets, %v", name, n, d.Err())
		}
	}
}
