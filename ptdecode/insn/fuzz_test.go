package insn

import "testing"

func FuzzDecode(f *testing.F) {
	f.Add([]byte{0x90}, uint8(3))
	f.Add([]byte{0xf3, 0x0f, 0xae, 0x20}, uint8(3))
	f.Add([]byte{0x62, 0xf1, 0x7c, 0x48, 0x10, 0x04, 0x24}, uint8(3))
	f.Add([]byte{0xc4, 0xe2, 0x7d, 0x18, 0xc0}, uint8(2))
	f.Fuzz(func(t *testing.T, code []byte, mode uint8) {
		var in Insn
		if err := Decode(&in, code, Mode(mode%5)); err == nil {
			if in.Size == 0 || int(in.Size) > len(code) || in.Size > MaxSize {
				t.Fatalf("size %d for %d bytes", in.Size, len(code))
			}
		}
	})
}
