package script

import "strconv"

const hexDigits = "0123456789abcdef"

// appendHex16 appends v as "%16" PRIx64 (v has at most 16 digits, so
// the field is always 16 bytes: spaces, then the digits filled from the
// right, two at a time).
func appendHex16(b []byte, v uint64) []byte {
	b = append(b, "                "...)
	putHex16((*[16]byte)(b[len(b)-16:]), v)
	return b
}

// hex2 holds the two hex digits of each byte value.
var hex2 = func() (t [512]byte) {
	for i := range 256 {
		t[2*i], t[2*i+1] = hexDigits[i>>4], hexDigits[i&15]
	}
	return
}()

const spaces = "                                                                "

func appendSpaces(b []byte, n int) []byte {
	for n > len(spaces) {
		b = append(b, spaces...)
		n -= len(spaces)
	}
	if n > 0 {
		b = append(b, spaces[:n]...)
	}
	return b
}

// appendUintPad appends v as "%*lu" with width w.
func appendUintPad(b []byte, v uint64, w int) []byte {
	var d [20]byte
	i := len(d)
	for {
		i--
		d[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			break
		}
	}
	b = appendSpaces(b, w-(len(d)-i))
	return append(b, d[i:]...)
}

// appendIntPad appends v as "%*d" with width w.
func appendIntPad(b []byte, v int64, w int) []byte {
	var num [24]byte
	return padLeft(b, strconv.AppendInt(num[:0], v, 10), w)
}

func padLeft(b, v []byte, w int) []byte {
	b = appendSpaces(b, w-len(v))
	return append(b, v...)
}

func padLeftStr(b []byte, v string, w int) []byte {
	b = appendSpaces(b, w-len(v))
	return append(b, v...)
}

func padRightStr(b []byte, v string, w int) []byte {
	b = append(b, v...)
	return appendSpaces(b, w-len(v))
}

// padZero pads a non-negative number's digits with zeros to width w; a
// leading '-' stays in front like printf's %0*d.
func padZero(b, v []byte, w int) []byte {
	if len(v) > 0 && v[0] == '-' {
		b = append(b, '-')
		for n := w - len(v); n > 0; n-- {
			b = append(b, '0')
		}
		return append(b, v[1:]...)
	}
	for n := w - len(v); n > 0; n-- {
		b = append(b, '0')
	}
	return append(b, v...)
}
