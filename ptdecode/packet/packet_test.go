package packet

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"
)

// samples is one or more packets of every kind, with the bytes the SDM says
// they encode to.
var samples = []struct {
	p    Packet
	want []byte
}{
	{Packet{Kind: KindPad}, []byte{0x00}},
	{Packet{Kind: KindPSB}, bytes.Repeat([]byte{0x02, 0x82}, 8)},
	{Packet{Kind: KindPSBEnd}, []byte{0x02, 0x23}},
	{Packet{Kind: KindTNT8, Bits: 3, Payload: 0b101}, []byte{0b00011010}},
	{Packet{Kind: KindTNT8, Bits: 6, Payload: 0b111111}, []byte{0xfe}},
	{Packet{Kind: KindTNT64, Bits: 47, Payload: 1<<47 - 1}, []byte{0x02, 0xa3, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
	{Packet{Kind: KindTNT64, Bits: 1, Payload: 0}, []byte{0x02, 0xa3, 0x02, 0, 0, 0, 0, 0}},
	{Packet{Kind: KindTIP, IPC: IPCSuppressed}, []byte{0x0d}},
	{Packet{Kind: KindTIP, IPC: IPCUpdate16, Payload: 0x1234}, []byte{0x2d, 0x34, 0x12}},
	{Packet{Kind: KindTIPPGE, IPC: IPCUpdate32, Payload: 0x12345678}, []byte{0x51, 0x78, 0x56, 0x34, 0x12}},
	{Packet{Kind: KindTIPPGD, IPC: IPCSext48, Payload: 0xffff_1234_5678}, []byte{0x61, 0x78, 0x56, 0x34, 0x12, 0xff, 0xff}},
	{Packet{Kind: KindFUP, IPC: IPCUpdate48, Payload: 0x1234_5678_9abc}, []byte{0x9d, 0xbc, 0x9a, 0x78, 0x56, 0x34, 0x12}},
	{Packet{Kind: KindFUP, IPC: IPCFull, Payload: 0x0102030405060708}, []byte{0xdd, 8, 7, 6, 5, 4, 3, 2, 1}},
	{Packet{Kind: KindModeExec, Flags: FlagCSL | FlagIF}, []byte{0x99, 0x05}},
	{Packet{Kind: KindModeTSX, Flags: FlagInTX}, []byte{0x99, 0x21}},
	{Packet{Kind: KindModeTSX, Flags: FlagTXAbort}, []byte{0x99, 0x22}},
	{Packet{Kind: KindPIP, Payload: 0xafafa0, Flags: FlagNR}, []byte{0x02, 0x43, 0xfb, 0xfa, 0x0a, 0, 0, 0}},
	{Packet{Kind: KindVMCS, Payload: 0xcdcdc000}, []byte{0x02, 0xc8, 0xdc, 0xdc, 0x0c, 0, 0}},
	{Packet{Kind: KindOVF}, []byte{0x02, 0xf3}},
	{Packet{Kind: KindStop}, []byte{0x02, 0x83}},
	{Packet{Kind: KindCBR, Payload: 0x23}, []byte{0x02, 0x03, 0x23, 0}},
	{Packet{Kind: KindTSC, Payload: 0x11223344556677}, []byte{0x19, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11}},
	{Packet{Kind: KindMTC, CTC: 0xab}, []byte{0x59, 0xab}},
	{Packet{Kind: KindTMA, CTC: 0x1234, FC: 0x1ff}, []byte{0x02, 0x73, 0x34, 0x12, 0, 0xff, 0x01}},
	{Packet{Kind: KindCYC, Payload: 0x1f}, []byte{0xfb}},
	{Packet{Kind: KindCYC, Payload: 0x20}, []byte{0x07, 0x02}},
	{Packet{Kind: KindCYC, Payload: 1<<61 - 1}, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe}},
	{Packet{Kind: KindMNT, Payload: 0xa000}, []byte{0x02, 0xc3, 0x88, 0, 0xa0, 0, 0, 0, 0, 0, 0}},
	{Packet{Kind: KindPTW, Bits: 0, Payload: 0xabcd, Flags: FlagIP}, []byte{0x02, 0x92, 0xcd, 0xab, 0, 0}},
	{Packet{Kind: KindPTW, Bits: 1, Payload: 0x1122334455667788}, []byte{0x02, 0x32, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11}},
	{Packet{Kind: KindExStop, Flags: FlagIP}, []byte{0x02, 0xe2}},
	{Packet{Kind: KindExStop}, []byte{0x02, 0x62}},
	{Packet{Kind: KindMWait, Payload: 7, Ext: 1}, []byte{0x02, 0xc2, 7, 0, 0, 0, 1, 0, 0, 0}},
	{Packet{Kind: KindPwrE, State: 1, SubState: 2, Flags: FlagHW}, []byte{0x02, 0x22, 0x08, 0x12}},
	{Packet{Kind: KindPwrX, State: 1, SubState: 2, Flags: FlagInterrupt | FlagAutonomous}, []byte{0x02, 0xa2, 0x12, 0x09, 0, 0, 0}},
	{Packet{Kind: KindBBP, Type: 3, Flags: FlagSZ}, []byte{0x02, 0x63, 0x83}},
	{Packet{Kind: KindBEP, Flags: FlagIP}, []byte{0x02, 0xb3}},
	{Packet{Kind: KindCFE, Type: 1, Vector: 14, Flags: FlagIP}, []byte{0x02, 0x13, 0x81, 14}},
	{Packet{Kind: KindEVD, Type: 2, Payload: 0x42}, []byte{0x02, 0x53, 0x02, 0x42, 0, 0, 0, 0, 0, 0, 0}},
	{Packet{Kind: KindTrig, Payload: 0xa1}, []byte{0xd9, 0x00, 0xa1}},
	{Packet{Kind: KindTrig, Payload: 0x3, Ext: 0x1234, Flags: FlagIP | FlagICNTV | FlagMult}, []byte{0xd9, 0xe0, 0x03, 0x34, 0x12}},
}

func TestEncodeDecode(t *testing.T) {
	for _, s := range samples {
		got, err := Append(nil, s.p)
		if err != nil {
			t.Errorf("Append(%+v): %v", s.p, err)
			continue
		}
		if !bytes.Equal(got, s.want) {
			t.Errorf("Append(%+v) = % x, want % x", s.p, got, s.want)
		}
		p, err := Decode(s.want, 0)
		if err != nil {
			t.Errorf("Decode(% x): %v", s.want, err)
			continue
		}
		want := s.p
		want.Size = uint8(len(s.want))
		if p != want {
			t.Errorf("Decode(% x) = %+v, want %+v", s.want, p, want)
		}
		// Every shorter prefix is cut short.
		for n := 1; n < len(s.want); n++ {
			if _, err := Decode(s.want[:n], 0); !errors.Is(err, ErrEOS) {
				t.Errorf("Decode(% x) error %v, want ErrEOS", s.want[:n], err)
			}
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, c := range []struct {
		in   []byte
		want error
	}{
		{[]byte{0x09}, ErrBadOpcode},
		{[]byte{0xc9}, ErrBadOpcode},
		{[]byte{0x02, 0x04}, ErrBadOpcode},
		{[]byte{0xad, 0, 0, 0, 0, 0, 0, 0, 0}, ErrBadPacket}, // TIP ipc 5
		{[]byte{0x99, 0x40}, ErrBadPacket},                   // mode leaf 2
		{[]byte{0x02, 0x73, 0, 0, 1, 0, 0}, ErrBadPacket},    // TMA reserved byte
		{[]byte{0x02, 0x52, 0, 0, 0, 0}, ErrBadPacket},       // PTW plc 2
		{[]byte{0x02, 0xa3, 0, 0, 0, 0, 0, 0}, ErrBadPacket}, // TNT-64 without stop bit
		{[]byte{0x02, 0xa3, 1, 0, 0, 0, 0, 0}, ErrBadPacket}, // TNT-64 without branches
		{[]byte{0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x83}, ErrBadPacket},
		{[]byte{0x07, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00}, ErrBadPacket}, // CYC too long
		{[]byte{0x02, 0xc3, 0x00}, ErrBadOpcode},
	} {
		_, err := Decode(append([]byte{0}, c.in...), 1)
		var pe *Error
		if !errors.Is(err, c.want) || !errors.As(err, &pe) || pe.Offset != 1 {
			t.Errorf("Decode(% x) error %v, want %v at 1", c.in, err, c.want)
		}
	}
}

func TestAppendRejects(t *testing.T) {
	for _, p := range []Packet{
		{},
		{Kind: KindTNT8, Bits: 7},
		{Kind: KindTNT8, Bits: 2, Payload: 4},
		{Kind: KindTIP, IPC: 5},
		{Kind: KindTIP, IPC: IPCUpdate16, Payload: 0x10000},
		{Kind: KindPIP, Payload: 0x1},
		{Kind: KindPad, Payload: 1},
		{Kind: KindPad, Flags: FlagIP},
		{Kind: KindCYC, Payload: 1 << 62},
		{Kind: KindTrig, Ext: 1},
	} {
		if b, err := Append(nil, p); !errors.Is(err, ErrBadConfig) {
			t.Errorf("Append(%+v) = % x, %v; want ErrBadConfig", p, b, err)
		}
	}
}

func TestLastIP(t *testing.T) {
	var l LastIP
	if _, err := l.Query(); err != ErrNoIP {
		t.Fatalf("Query on empty: %v", err)
	}
	steps := []struct {
		ipc     IPC
		payload uint64
		want    uint64
	}{
		{IPCSext48, 0xffff_8000_0000, 0xffff_ffff_8000_0000},
		{IPCUpdate16, 0x1234, 0xffff_ffff_8000_1234},
		{IPCUpdate32, 0xabcd_0000, 0xffff_ffff_abcd_0000},
		{IPCUpdate48, 0x1234_5678_9abc, 0xffff_1234_5678_9abc},
		{IPCFull, 42, 42},
	}
	for _, s := range steps {
		if err := l.Update(s.ipc, s.payload); err != nil {
			t.Fatal(err)
		}
		if ip, err := l.Query(); err != nil || ip != s.want {
			t.Errorf("after %d/%#x: %#x, %v; want %#x", s.ipc, s.payload, ip, err, s.want)
		}
	}
	_ = l.Update(IPCSuppressed, 0)
	if _, err := l.Query(); err != ErrSuppress {
		t.Errorf("suppressed: %v", err)
	}
}

func TestCompressIP(t *testing.T) {
	for _, c := range []struct {
		last LastIP
		ip   uint64
		want IPC
	}{
		{LastIP{}, 0x401000, IPCSext48},
		{LastIP{}, 0x8000_0000_0000_0000, IPCFull},
		{LastIP{Have: true, IP: 0x401000}, 0x401234, IPCUpdate16},
		{LastIP{Have: true, IP: 0x401000}, 0x7f00_0040_1000, IPCSext48},
		{LastIP{Have: true, IP: 0x401000}, 0x12345, IPCUpdate32},
		{LastIP{Have: true, IP: 0x1234_0000_0000_0000}, 0x1234_5678_0000_0000, IPCUpdate48},
	} {
		ipc, pl := CompressIP(c.last, c.ip)
		if ipc != c.want {
			t.Errorf("CompressIP(%+v, %#x) = %d, want %d", c.last, c.ip, ipc, c.want)
		}
		l := c.last
		_ = l.Update(ipc, pl)
		if l.IP != c.ip {
			t.Errorf("CompressIP(%+v, %#x) expands to %#x", c.last, c.ip, l.IP)
		}
	}
}

func TestSync(t *testing.T) {
	var e Encoder
	psb := Packet{Kind: KindPSB}
	_ = e.Append(Packet{Kind: KindPad})
	_ = e.Append(Packet{Kind: KindTNT8, Bits: 1, Payload: 1})
	_ = e.Append(Packet{Kind: KindPad})
	first := len(e.Buf)
	_ = e.Append(psb)
	_ = e.Append(Packet{Kind: KindPSBEnd})
	_ = e.AppendIP(KindTIP, 0x401000)
	second := len(e.Buf)
	_ = e.Append(psb)
	_ = e.Append(Packet{Kind: KindPSBEnd})
	buf := e.Buf
	if got := PSBIndex(nil, buf); len(got) != 2 || got[0] != first || got[1] != second {
		t.Fatalf("PSBIndex = %v, want [%d %d]", got, first, second)
	}
	if d := NewDecoder(buf); d.SyncBackward() != nil || d.Offset() != second {
		t.Fatalf("SyncBackward of a fresh decoder: at %d, want %d", d.Offset(), second)
	}
	d := NewDecoder(buf)
	if err := d.SyncForward(); err != nil || d.Offset() != first {
		t.Fatalf("SyncForward: %v at %d", err, d.Offset())
	}
	if err := d.SyncForward(); err != nil || d.Offset() != second {
		t.Fatalf("SyncForward 2: %v at %d", err, d.Offset())
	}
	if err := d.SyncForward(); !errors.Is(err, ErrEOS) {
		t.Fatalf("SyncForward 3: %v", err)
	}
	if err := d.SyncBackward(); err != nil || d.Offset() != first {
		t.Fatalf("SyncBackward: %v at %d", err, d.Offset())
	}
	var kinds []Kind
	for d.Next() {
		kinds = append(kinds, d.Packet().Kind)
	}
	if d.Err() != nil || len(kinds) != 5 || kinds[2] != KindTIP {
		t.Fatalf("kinds %v, err %v", kinds, d.Err())
	}
}

// TestLongCYC checks the fast decoding of CYC packets with extension bytes
// against the general decoder, for every length and random payloads.
func TestLongCYC(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for i := 0; i < 100000; i++ {
		b := make([]byte, 10)
		for j := range b {
			b[j] = byte(r.Uint32()) | 1
		}
		b[0] |= 7
		b[1+r.IntN(9)] &^= 1 // the last extension byte, or none of the 8
		var want Packet
		err := decode(&want, b)
		v, n := longCYC(b[0], le64(b[1:]))
		if n == 0 {
			if err == nil && want.Size <= 9 {
				t.Fatalf("% x: longCYC gives up, decode %+v", b, want)
			}
			continue
		}
		if err != nil || want.Size != uint8(n) || want.Payload != v {
			t.Fatalf("% x: longCYC %#x size %d, decode %+v %v", b, v, n, want, err)
		}
	}
}

// TestNextFastPath checks Decoder.Next, whose fast path decodes by tables
// and masks, against the general decoder for every first byte followed by
// second bytes that matter to it (extended opcodes, CYC continuation bits)
// and random ones, with and without SKD007.
func TestNextFastPath(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	seconds := []byte{0x00, 0x01, 0x02, 0x03, 0x23, 0x73, 0x82, 0x83, 0xa3, 0xf3, 0xfe, 0xff}
	for c := 0; c < 256; c++ {
		for i := 0; i < len(seconds)+64; i++ {
			buf := make([]byte, 24)
			for j := range buf {
				buf[j] = byte(r.Uint32())
			}
			if i&1 == 0 {
				for j := 2; j < 10; j++ {
					buf[j] |= 1 // long CYC continuation bits
				}
				buf[2+i/2%8] &^= 1
			}
			buf[0] = byte(c)
			if i < len(seconds) {
				buf[1] = seconds[i]
			}
			for _, skd007 := range []bool{false, true} {
				var want Packet
				err := decode(&want, buf)
				d := NewDecoder(buf)
				d.SetErrata(skd007, false)
				ok := d.Next()
				if skd007 && want.Kind == KindCYC && want.Size == 2 && buf[2] == extOVF {
					continue // SKD007's OVF, next's business
				}
				if err != nil {
					if ok || !errors.Is(d.Err(), err) {
						t.Fatalf("% x (skd007 %v): Next %v %+v err %v, want error %v", buf, skd007, ok, *d.Packet(), d.Err(), err)
					}
					continue
				}
				if !ok || *d.Packet() != want || d.Offset() != int(want.Size) || d.PacketOffset() != 0 {
					t.Fatalf("% x (skd007 %v): Next %v %+v at %d, want %+v", buf, skd007, ok, *d.Packet(), d.Offset(), want)
				}
			}
		}
	}
}
