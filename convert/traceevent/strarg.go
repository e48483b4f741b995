package traceevent

import (
	"strconv"

	"github.com/perfpt/perfpt/perfdata/tracing"
)

// appendStrArg prints an argument with a %s conversion (print_str_arg).
func (r *rec) appendStrArg(b []byte, sp spec, a *tracing.Arg) []byte {
	switch a.Kind {
	case tracing.ArgAtom:
		return appendStr(b, sp, a.Atom)
	case tracing.ArgField:
		f := a.Field
		if f == nil {
			return b
		}
		if f.Flags&tracing.FieldArray == 0 && f.Size == r.p.longSize {
			// A long-sized field printed with %s is taken for a pointer:
			// a trace_printk format string, or the address in hex.
			addr := r.read(f.Offset, f.Size)
			if s, ok := r.p.printk[addr]; ok {
				return append(b, s...)
			}
			return strconv.AppendUint(b, addr, 16)
		}
		n := f.Size
		if n == 0 {
			n = len(r.data) - f.Offset
		}
		return appendStr(b, sp, r.slice(f.Offset, n))
	case tracing.ArgFlags:
		v := r.num(a.Item)
		printed := false
		for _, s := range a.Syms {
			fv := evalFlag(s.Value)
			if v == 0 && fv < 0 {
				b = appendStr(b, sp, s.Str)
				break
			}
			if fv > 0 && v&uint64(fv) == uint64(fv) {
				if printed && a.HasDelim {
					b = append(b, a.Delim...)
				}
				b = appendStr(b, sp, s.Str)
				printed = true
				v &^= uint64(fv)
			}
		}
		if v != 0 {
			if printed && a.HasDelim {
				b = append(b, a.Delim...)
			}
			b = append(b, "0x"...)
			b = strconv.AppendUint(b, v, 16)
		}
		return b
	case tracing.ArgSymbol:
		v := r.num(a.Item)
		for _, s := range a.Syms {
			if fv := evalFlag(s.Value); uint64(fv) == v {
				return appendStr(b, sp, s.Str)
			}
		}
		b = append(b, "0x"...)
		return strconv.AppendUint(b, v, 16)
	case tracing.ArgHex, tracing.ArgHexStr:
		data, ok := r.arrayData(a.Sub[0])
		if !ok {
			return b
		}
		n := int(r.num(a.Sub[1]))
		for i := 0; i < n && i < len(data); i++ {
			if i > 0 && a.Kind == tracing.ArgHex {
				b = append(b, ' ')
			}
			b = appendHex2(b, data[i])
		}
		return b
	case tracing.ArgIntArray:
		data, ok := r.arrayData(a.Sub[0])
		if !ok {
			return b
		}
		n := int(r.num(a.Sub[1]))
		el := int(int32(r.num(a.Sub[2])))
		for i := 0; i < n; i++ {
			if i > 0 {
				b = append(b, ' ')
			}
			switch el {
			case 1, 2, 4, 8:
				if len(data) < el {
					return b
				}
				var v uint64
				switch el {
				case 1:
					v = uint64(data[0])
				case 2:
					v = uint64(r.p.order.Uint16(data))
				case 4:
					v = uint64(r.p.order.Uint32(data))
				case 8:
					v = r.p.order.Uint64(data)
				}
				b = strconv.AppendUint(b, v, 10)
			default:
				var c byte
				if len(data) > 0 {
					c = data[0]
				}
				b = append(b, "BAD SIZE:"...)
				b = strconv.AppendInt(b, int64(el), 10)
				b = append(b, " 0x"...)
				b = strconv.AppendUint(b, uint64(c), 16)
				el = 1
			}
			if len(data) < el {
				return b
			}
			data = data[el:]
		}
		return b
	case tracing.ArgString:
		if a.Field == nil {
			return b
		}
		off, n := r.dynamic(a.Field)
		if n == 0 {
			return b
		}
		return appendStr(b, sp, r.bytesAt(off))
	case tracing.ArgBitmask:
		if a.Field == nil {
			return b
		}
		off, n := r.dynamic(a.Field)
		return r.appendBitmask(b, sp, r.slice(off, n))
	case tracing.ArgOp:
		if a.Op != "?" {
			return b
		}
		if r.num(a.Left) != 0 {
			return r.appendStrArg(b, sp, a.Right.Left)
		}
		return r.appendStrArg(b, sp, a.Right.Right)
	}
	return b
}

// slice returns n bytes at off, clipped to the record.
func (r *rec) slice(off, n int) []byte {
	if off < 0 || off > len(r.data) {
		return nil
	}
	if n < 0 || off+n > len(r.data) {
		n = len(r.data) - off
	}
	return r.data[off : off+n]
}

// arrayData returns the data of __print_hex/__print_array's first
// argument: a dynamic array or a field.
func (r *rec) arrayData(a *tracing.Arg) ([]byte, bool) {
	if a.Kind == tracing.ArgDynArray {
		off, _ := r.dynamic(a.Field)
		return r.bytesAt(off), true
	}
	if a.Kind != tracing.ArgField || a.Field == nil {
		return nil, false
	}
	return r.bytesAt(a.Field.Offset), true
}

// appendBitmask prints a bitmask as the kernel does: hex, most significant
// first, a comma every 32 bits (print_bitmask_to_seq).
func (r *rec) appendBitmask(b []byte, sp spec, data []byte) []byte {
	size := len(data)
	nbits := size * 8
	strSize := (nbits + 3) / 4
	if nbits > 0 {
		strSize += (nbits - 1) / 32
	}
	str := make([]byte, strSize)
	n := 0
	for i := strSize - 2; i >= 0; i -= 2 {
		idx := n
		if r.p.bigEndian {
			idx = size - (n + 1)
		}
		c := data[idx]
		str[i] = hexDigits[c>>4]
		str[i+1] = hexDigits[c&15]
		n++
		if n&3 == 0 && i > 0 {
			i--
			str[i] = ','
		}
	}
	return appendStr(b, sp, str)
}

const hexDigits = "0123456789abcdef"

func appendHex2(b []byte, c byte) []byte {
	return append(b, hexDigits[c>>4], hexDigits[c&15])
}

// evalFlag gives a flag or symbol value (eval_flag): a number, one of the
// softirq and hrtimer names libtraceevent knows, else -1.
func evalFlag(s string) int64 {
	if s != "" && s[0] >= '0' && s[0] <= '9' {
		v := tracing.Strtoull(s)
		return int64(v)
	}
	if v, ok := knownFlags[s]; ok {
		return v
	}
	return -1
}

var knownFlags = map[string]int64{
	"HI_SOFTIRQ": 0, "TIMER_SOFTIRQ": 1, "NET_TX_SOFTIRQ": 2, "NET_RX_SOFTIRQ": 3, "BLOCK_SOFTIRQ": 4,
	"IRQ_POLL_SOFTIRQ": 5, "TASKLET_SOFTIRQ": 6, "SCHED_SOFTIRQ": 7, "HRTIMER_SOFTIRQ": 8, "RCU_SOFTIRQ": 9,
	"HRTIMER_NORESTART": 0, "HRTIMER_RESTART": 1,
}

// appendFields prints every field raw after "[FAILED TO PARSE]"
// (tep_print_fields with print_field_raw).
func (r *rec) appendFields(b []byte) []byte {
	for _, f := range r.ev.f.Fields {
		b = append(b, ' ')
		b = append(b, f.Name...)
		b = append(b, '=')
		b = r.appendFieldRaw(b, f)
	}
	return b
}

func (r *rec) appendFieldRaw(b []byte, f *tracing.Field) []byte {
	if f.Flags&tracing.FieldArray != 0 {
		off, n := f.Offset, f.Size
		if f.Flags&tracing.FieldDynamic != 0 {
			off, n = r.dynamic(f)
		}
		data := r.slice(off, n)
		if f.Flags&tracing.FieldString != 0 && printable(data) {
			return appendStr(b, spec{width: -1, prec: -1}, r.bytesAt(off))
		}
		b = append(b, "ARRAY["...)
		for i, c := range data {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = appendHex2(b, c)
		}
		return append(b, ']')
	}
	v := r.read(f.Offset, f.Size)
	switch {
	case f.Flags&tracing.FieldPointer != 0:
		b = append(b, "0x"...)
		return strconv.AppendUint(b, v, 16)
	case f.Flags&tracing.FieldSigned != 0:
		switch f.Size {
		case 4:
			if f.Flags&tracing.FieldLong != 0 {
				b = append(b, "0x"...)
				return strconv.AppendUint(b, uint64(uint32(v)), 16)
			}
			return strconv.AppendInt(b, int64(int32(v)), 10)
		case 2:
			return spec{width: 2, prec: -1, bits: 32, conv: 'd'}.appendInt(b, uint64(uint32(int32(int16(v)))))
		case 1:
			return strconv.AppendInt(b, int64(int8(v)), 10)
		}
		return strconv.AppendInt(b, int64(v), 10)
	case f.Flags&tracing.FieldLong != 0:
		b = append(b, "0x"...)
		return strconv.AppendUint(b, v, 16)
	}
	return strconv.AppendUint(b, v, 10)
}

// printable says data up to its NUL is printable text
// (is_printable_array).
func printable(data []byte) bool {
	for _, c := range data {
		if c == 0 {
			break
		}
		if !(c >= 0x20 && c <= 0x7e) && !(c == ' ' || (c >= '\t' && c <= '\r')) {
			return false
		}
	}
	return true
}
