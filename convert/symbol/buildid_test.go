package symbol

import "testing"

// TestBuildIDEqual: a recorded 20-byte build id with trailing zeros names
// a file whose note is shorter (perf.data files whose BUILD_ID table has
// no sizes pad an 8-byte id to 20 bytes: autofdo's propeller_sample_1
// recording), as dso__build_id_equal allows; otherwise the ids must be
// equal.
func TestBuildIDEqual(t *testing.T) {
	short := []byte{0x57, 0x2a, 0xc7, 0x24, 0x87, 0xae, 0x19, 0x66}
	padded := append(append([]byte(nil), short...), make([]byte, 12)...)
	for _, c := range []struct {
		recorded, file []byte
		want           bool
	}{
		{padded, short, true},
		{short, short, true},
		{padded, padded, true},
		{append(append([]byte(nil), short...), 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), short, false},
		{short, padded, false},
		{padded[:19], short, false}, // only a full 20-byte id is padded
		{padded, []byte{0x57, 0x2a, 0xc7, 0x24, 0x87, 0xae, 0x19, 0x67}, false},
	} {
		if got := BuildIDEqual(c.recorded, c.file); got != c.want {
			t.Errorf("BuildIDEqual(%x, %x) = %v, want %v", c.recorded, c.file, got, c.want)
		}
	}
}
