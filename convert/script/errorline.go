package script

import (
	"strconv"

	"github.com/perfpt/perfpt/convert/sample"
)

// PrintError prints an error line as perf_event__fprintf_auxtrace_error.
func (p *Printer) PrintError(e *sample.ErrorLine) {
	b := p.out
	b = append(b, ' ')
	if e.Type == 1 {
		b = append(b, "instruction trace"...)
	} else {
		b = append(b, "unknown"...)
	}
	b = append(b, " error type "...)
	b = strconv.AppendUint(b, uint64(e.Type), 10)
	if e.HasTime && e.Time != 0 {
		b = append(b, " time "...)
		b = strconv.AppendUint(b, e.Time/1e9, 10)
		b = append(b, '.')
		b = padZero(b, strconv.AppendUint(nil, e.Time%1e9, 10), 9)
	} else {
		b = append(b, " time 0"...)
	}
	b = append(b, " cpu "...)
	b = strconv.AppendInt(b, int64(e.CPU), 10)
	b = append(b, " pid "...)
	b = strconv.AppendInt(b, int64(e.PID), 10)
	b = append(b, " tid "...)
	b = strconv.AppendInt(b, int64(e.TID), 10)
	b = append(b, " ip "...)
	if e.IP == 0 {
		b = append(b, '0')
	} else {
		b = append(b, "0x"...)
		b = strconv.AppendUint(b, e.IP, 16)
	}
	b = append(b, " code "...)
	b = strconv.AppendUint(b, uint64(e.Code), 10)
	b = append(b, ": "...)
	b = append(b, e.Msg...)
	b = append(b, '\n')
	p.out = b
	if len(b) >= flushSize {
		p.flush()
	}
}
