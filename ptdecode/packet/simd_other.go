//go:build !amd64

package packet

// useSIMD is false: the kernel is amd64 assembly.
var useSIMD = false

// simdScan is never called without the kernel.
func simdScan(buf *byte, pos, lim int, out *Item, max int, tab *simdTabT) (n, next int, stop bool) {
	return 0, pos, false
}
