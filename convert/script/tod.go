package script

import "time"

// Clock is the reference of HEADER_CLOCK_DATA (perf's env.clock): the
// wall-clock time TODNs (ns since the epoch) that was the recording's
// clock time ClockNs, when Enabled (a pipe's clock data comes as a record,
// before the samples).
type Clock struct {
	Enabled        bool
	TODNs, ClockNs uint64
}

// appendTOD mirrors tod_scnprintf: the sample time as local wall-clock
// time, "%F %H:%M:%S" and microseconds (nanoseconds with --ns), or
// "disabled" without clock data. The arithmetic is perf's, in u64.
func (p *Printer) appendTOD(b []byte, t uint64) []byte {
	c := p.o.Clock
	if c == nil || !c.Enabled {
		return append(b, "disabled"...)
	}
	tod := c.TODNs
	if t > c.ClockNs {
		tod += t - c.ClockNs
	} else {
		tod -= c.ClockNs - t
	}
	sec := tod / 1e9
	nsec := tod - sec*1e9
	b = time.Unix(int64(sec), 0).AppendFormat(b, "2006-01-02 15:04:05")
	b = append(b, '.')
	if p.o.Nanosecs {
		return appendZeroPad(b, nsec, 9)
	}
	return appendZeroPad(b, nsec/1000, 6)
}

func appendZeroPad(b []byte, v uint64, width int) []byte {
	var d [20]byte
	for i := width - 1; i >= 0; i-- {
		d[i] = byte('0' + v%10)
		v /= 10
	}
	return append(b, d[:width]...)
}
