package script

import (
	"strconv"

	"github.com/perfpt/perfpt/convert/sample"
)

// appendSynth mirrors perf_sample__fprintf_synth: the payload of a
// synthesised PT event, padded to 34 columns
// (perf_sample__fprintf_pt_spacing).
func appendSynth(b []byte, sy *sample.Synth) []byte {
	start := len(b)
	switch sy.Kind {
	case sample.SynthPSB:
		b = append(b, " psb offs: "...)
		b = appendAltHex(b, sy.Offset)
	case sample.SynthCBR:
		b = append(b, " cbr: "...)
		b = appendUintPad(b, uint64(sy.CBR), 2)
		b = append(b, " freq: "...)
		b = appendUintPad(b, uint64((sy.Freq+500)/1000), 4)
		b = append(b, " MHz "...)
		if sy.MaxNonTurbo != 0 {
			pct := (5 + (1000*sy.CBR)/sy.MaxNonTurbo) / 10
			b = append(b, '(')
			b = appendUintPad(b, uint64(pct), 3)
			b = append(b, "%) "...)
		}
	case sample.SynthPTWrite:
		// " IP: %u payload: %#lx %s ", the string when the payload
		// is printable ASCII padded with NULs (ptw_is_prt).
		b = append(b, " IP: "...)
		b = appendBool(b, sy.IP)
		b = append(b, " payload: "...)
		b = appendAltHex(b, sy.Payload)
		b = append(b, ' ')
		b = appendPTWString(b, sy.Payload)
		b = append(b, ' ')
	case sample.SynthMWait:
		b = append(b, " hints: "...)
		b = appendAltHex(b, uint64(sy.Hints))
		b = append(b, " extensions: "...)
		b = appendAltHex(b, uint64(sy.Extensions))
		b = append(b, ' ')
	case sample.SynthPwrE:
		b = append(b, " hw: "...)
		b = appendBool(b, sy.HW)
		b = append(b, " cstate: "...)
		b = strconv.AppendUint(b, uint64(sy.CState), 10)
		b = append(b, " sub-cstate: "...)
		b = strconv.AppendUint(b, uint64(sy.SubCState), 10)
		b = append(b, ' ')
	case sample.SynthExStop:
		b = append(b, " IP: "...)
		b = appendBool(b, sy.IP)
		b = append(b, ' ')
	case sample.SynthPwrX:
		b = append(b, " deepest cstate: "...)
		b = strconv.AppendUint(b, uint64(sy.DeepestCState), 10)
		b = append(b, " last cstate: "...)
		b = strconv.AppendUint(b, uint64(sy.LastCState), 10)
		b = append(b, " wake reason: "...)
		b = appendAltHex(b, uint64(sy.WakeReason))
		b = append(b, ' ')
	default:
		return b
	}
	if n := len(b) - start; n < 34 {
		b = appendSpaces(b, 34-n)
	}
	return b
}

// appendAltHex appends v as printf's %#x: "0" for zero, else 0x and the
// digits.
func appendAltHex(b []byte, v uint64) []byte {
	if v == 0 {
		return append(b, '0')
	}
	b = append(b, "0x"...)
	return strconv.AppendUint(b, v, 16)
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, '1')
	}
	return append(b, '0')
}

// appendPTWString appends the ptwrite payload as text when its bytes (in
// little-endian order) are printable ASCII followed only by NULs, as
// ptw_is_prt decides; nothing otherwise.
func appendPTWString(b []byte, v uint64) []byte {
	var s [8]byte
	n := 0
	for ; n < 8; n++ {
		c := byte(v >> (8 * n))
		if c == 0 {
			break
		}
		if c < 0x20 || c > 0x7e {
			return b
		}
		s[n] = c
	}
	if n < 8 && v>>(8*n) != 0 {
		return b
	}
	return append(b, s[:n]...)
}
