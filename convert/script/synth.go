package script

import "strconv"

// appendSynth mirrors perf_sample__fprintf_synth for psb and cbr, padded
// to 34 columns (perf_sample__fprintf_pt_spacing).
func appendSynth(b []byte, sy *Synth) []byte {
	start := len(b)
	switch sy.Kind {
	case SynthPSB:
		b = append(b, " psb offs: "...)
		if sy.Offset == 0 {
			b = append(b, '0')
		} else {
			b = append(b, "0x"...)
			b = strconv.AppendUint(b, sy.Offset, 16)
		}
	case SynthCBR:
		b = append(b, " cbr: "...)
		b = padLeft(b, strconv.AppendUint(nil, uint64(sy.CBR), 10), 2)
		b = append(b, " freq: "...)
		b = padLeft(b, strconv.AppendUint(nil, uint64((sy.Freq+500)/1000), 10), 4)
		b = append(b, " MHz "...)
		if sy.MaxNonTurbo != 0 {
			pct := (5 + (1000*sy.CBR)/sy.MaxNonTurbo) / 10
			b = append(b, '(')
			b = padLeft(b, strconv.AppendUint(nil, uint64(pct), 10), 3)
			b = append(b, "%) "...)
		}
	default:
		return b
	}
	if n := len(b) - start; n < 34 {
		b = appendSpaces(b, 34-n)
	}
	return b
}
