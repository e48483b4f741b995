package traceevent

import (
	"strconv"

	"github.com/perfpt/perfpt/perfdata/tracing"
)

// appendPointer prints a %p conversion (print_arg_pointer).
func (r *rec) appendPointer(b []byte, pc *piece, plen int) []byte {
	f := pc.text
	i := 0
	for i < len(f) && f[i] != 'p' {
		i++
	}
	f = f[min(i+1, len(f)):]
	var c byte
	if len(f) > 0 {
		c = f[0]
	}
	a := pc.arg
	switch c {
	case 'F', 'f', 'S', 's':
		v := r.num(a)
		if r.p.syms != nil {
			if name, start, ok := r.p.syms.Resolve(v); ok {
				b = append(b, name...)
				if c == 'F' || c == 'S' {
					b = append(b, "+0x"...)
					b = strconv.AppendUint(b, v-start, 16)
				}
				return b
			}
		}
		b = append(b, "0x"...)
		if r.p.longSize == 4 {
			v = uint64(uint32(v))
		}
		return strconv.AppendUint(b, v, 16)
	case 'M', 'm':
		return r.appendMAC(b, f, a)
	case 'I', 'i':
		return r.appendIP(b, f, a)
	case 'U':
		return r.appendUUID(b, f, a)
	case 'h':
		return r.appendRawBuf(b, f, a, plen)
	}
	v := r.num(a)
	if v == 0 {
		return append(b, "(nil)"...)
	}
	b = append(b, "0x"...)
	return strconv.AppendUint(b, v, 16)
}

// fieldOf strips casts and returns the field an address conversion
// prints, or writes libtraceevent's complaint.
func (r *rec) fieldOf(b []byte, a *tracing.Arg) ([]byte, *tracing.Field) {
	for a.Kind == tracing.ArgType {
		a = a.Item
	}
	if a.Kind != tracing.ArgField {
		b = append(b, "ARG TYPE NOT FIELD BUT "...)
		return strconv.AppendInt(b, int64(tepKind(a.Kind)), 10), nil
	}
	return b, a.Field
}

// tepKind numbers an argument kind as libtraceevent's enum
// tep_print_arg_type does (it shows in error text).
func tepKind(k tracing.ArgKind) int {
	switch k {
	case tracing.ArgNull:
		return 0
	case tracing.ArgAtom:
		return 1
	case tracing.ArgField:
		return 2
	case tracing.ArgFlags:
		return 3
	case tracing.ArgSymbol:
		return 4
	case tracing.ArgHex:
		return 5
	case tracing.ArgIntArray:
		return 6
	case tracing.ArgType:
		return 7
	case tracing.ArgString:
		return 8
	case tracing.ArgDynArray:
		return 10
	case tracing.ArgOp:
		return 11
	case tracing.ArgFunc:
		return 12
	case tracing.ArgBitmask:
		return 13
	case tracing.ArgDynArrayLen:
		return 14
	case tracing.ArgHexStr:
		return 15
	}
	return -1
}

func (r *rec) appendMAC(b []byte, f string, a *tracing.Arg) []byte {
	b, fl := r.fieldOf(b, a)
	if fl == nil {
		return b
	}
	if fl.Size != 6 {
		return append(b, "INVALIDMAC"...)
	}
	sep := ":"
	if f[0] == 'm' {
		sep = ""
	} else if len(f) > 1 && f[1] == 'F' {
		sep = "-"
	}
	rev := len(f) > 1 && f[1] == 'R'
	buf := r.slice(fl.Offset, 6)
	if len(buf) < 6 {
		return b
	}
	for i := 0; i < 6; i++ {
		if i > 0 {
			b = append(b, sep...)
		}
		c := buf[i]
		if rev {
			c = buf[5-i]
		}
		b = appendHex2(b, c)
	}
	return b
}

func (r *rec) appendIP(b []byte, f string, a *tracing.Arg) []byte {
	if len(f) < 2 {
		return b
	}
	switch f[1] {
	case '4':
		b, fl := r.fieldOf(b, a)
		if fl == nil {
			return b
		}
		if fl.Size != 4 {
			return append(b, "INVALIDIPv4"...)
		}
		buf := r.slice(fl.Offset, 4)
		if len(buf) < 4 {
			return b
		}
		rev := false
		if len(f) > 2 {
			switch f[2] {
			case 'h':
				rev = !r.p.bigEndian
			case 'l':
				rev = true
			}
		}
		return appendIPv4(b, f[0], rev, buf)
	case '6':
		b, fl := r.fieldOf(b, a)
		if fl == nil {
			return b
		}
		if fl.Size != 16 {
			return append(b, "INVALIDIPv6"...)
		}
		buf := r.slice(fl.Offset, 16)
		if len(buf) < 16 {
			return b
		}
		if f[0] == 'I' && len(f) > 2 && f[2] == 'c' {
			return appendIPv6c(b, buf)
		}
		return appendIPv6(b, f[0], buf)
	}
	// %pIS (sockaddr) is not supported: print the value as %p would.
	v := r.num(a)
	b = append(b, "0x"...)
	return strconv.AppendUint(b, v, 16)
}

func appendIPv4(b []byte, i byte, rev bool, buf []byte) []byte {
	for k := 0; k < 4; k++ {
		if k > 0 {
			b = append(b, '.')
		}
		c := buf[k]
		if rev {
			c = buf[3-k]
		}
		if i == 'i' {
			b = append(b, '0'+c/100, '0'+c/10%10, '0'+c%10)
		} else {
			b = strconv.AppendUint(b, uint64(c), 10)
		}
	}
	return b
}

// appendIPv6 prints 8 groups of 4 hex digits, with ':' for %pI6.
func appendIPv6(b []byte, i byte, buf []byte) []byte {
	for k := 0; k < 16; k += 2 {
		if i == 'I' && k > 0 {
			b = append(b, ':')
		}
		b = appendHex2(b, buf[k])
		b = appendHex2(b, buf[k+1])
	}
	return b
}

// appendIPv6c prints the compressed form (print_ip6c_addr): the longest
// run of zero words as "::", v4-mapped and ISATAP tails in dotted quad.
func appendIPv6c(b []byte, buf []byte) []byte {
	var words [8]uint16
	for k := range words {
		words[k] = uint16(buf[2*k])<<8 | uint16(buf[2*k+1])
	}
	v4 := (words[0] == 0 && words[1] == 0 && words[2] == 0 && words[3] == 0 && words[4] == 0 && words[5] == 0xffff) ||
		(words[4]|0x0200 == 0x0200 && words[5] == 0x5efe)
	n := 8
	if v4 {
		n = 6
	}
	// the longest run of zero words
	longest, colonpos := 1, -1
	for k := 0; k < n; k++ {
		j := 0
		for k+j < n && words[k+j] == 0 {
			j++
		}
		if j > longest {
			longest, colonpos = j, k
		}
	}
	if longest == 1 {
		colonpos = -1
	}
	needColon := false
	for k := 0; k < n; k++ {
		if k == colonpos {
			if needColon || k == 0 {
				b = append(b, ':')
			}
			b = append(b, ':')
			needColon = false
			k += longest - 1
			continue
		}
		if needColon {
			b = append(b, ':')
		}
		hi, lo := byte(words[k]>>8), byte(words[k])
		if hi != 0 {
			if hi > 0x0f {
				b = appendHex2(b, hi)
			} else {
				b = append(b, hexDigits[hi])
			}
			b = appendHex2(b, lo)
		} else if lo > 0x0f {
			b = appendHex2(b, lo)
		} else {
			b = append(b, hexDigits[lo])
		}
		needColon = true
	}
	if v4 {
		if needColon {
			b = append(b, ':')
		}
		b = appendIPv4(b, 'I', false, buf[12:16])
	}
	return b
}

var guidIndex = [16]int{3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15}

func (r *rec) appendUUID(b []byte, f string, a *tracing.Arg) []byte {
	upper, guid := false, false
	if len(f) > 1 {
		switch f[1] {
		case 'L':
			upper, guid = true, true
		case 'l':
			guid = true
		case 'B':
			upper = true
		}
	}
	b, fl := r.fieldOf(b, a)
	if fl == nil {
		return b
	}
	if fl.Size != 16 {
		return append(b, "INVALIDUUID"...)
	}
	buf := r.slice(fl.Offset, 16)
	if len(buf) < 16 {
		return b
	}
	for k := 0; k < 16; k++ {
		idx := k
		if guid {
			idx = guidIndex[k]
		}
		c := buf[idx]
		if upper {
			b = append(b, "0123456789ABCDEF"[c>>4], "0123456789ABCDEF"[c&15])
		} else {
			b = appendHex2(b, c)
		}
		if k == 3 || k == 5 || k == 7 || k == 9 {
			b = append(b, '-')
		}
	}
	return b
}

// appendRawBuf prints %*ph: up to plen bytes of a dynamic array
// (print_raw_buff_arg).
func (r *rec) appendRawBuf(b []byte, f string, a *tracing.Arg, plen int) []byte {
	delim := " "
	if len(f) > 1 {
		switch f[1] {
		case 'C':
			delim = ":"
		case 'D':
			delim = "-"
		case 'N':
			delim = ""
		}
	}
	if a.Kind != tracing.ArgDynArray {
		b = append(b, "ARG TYPE NOT FIELD BUT "...)
		return strconv.AppendInt(b, int64(tepKind(a.Kind)), 10)
	}
	off, n := r.dynamic(a.Field)
	if n < plen {
		plen = n
	}
	buf := r.slice(off, plen)
	for k, c := range buf {
		if k > 0 {
			b = append(b, delim...)
		}
		b = appendHex2(b, c)
	}
	return b
}
