package script

import (
	"unsafe"

	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/convert/symbol"
)

// lineText is the last line printed for a plan whose lines change only
// with the IP while the thread and the symbol stay, as with -F ip,sym or
// comm,tid,ip,sym,dso: the next such line is a copy of it with the IP's
// 16 columns rewritten.
type lineText struct {
	pl       *plan
	sym      *symbol.Symbol
	hasMap   bool
	dso      string
	comm     string
	pid, tid int32
	cpu      uint32
	hexAt    int // offset of the IP's 16 columns
	text     []byte
	short    [64]byte // the start of text
}

// sameStr is a == b, quick when both are the same string header.
func sameStr(a, b string) bool {
	return len(a) == len(b) && (len(a) == 0 || unsafe.StringData(a) == unsafe.StringData(b) || a == b)
}

// printLine prints s with a plan of lineText lines.
func (p *Printer) printLine(s *sample.Sample, pl *plan) {
	lt := &p.lineText
	l := &s.IPLoc
	if lt.pl != pl || l.Sym != lt.sym || s.TID != lt.tid || s.PID != lt.pid || s.CPU != lt.cpu ||
		!sameStr(s.Comm, lt.comm) || l.HasMap != lt.hasMap || !sameStr(l.DSO, lt.dso) {
		p.makeLine(s, pl)
	}
	b := p.out
	n := len(lt.text)
	if n <= len(lt.short) && cap(b)-len(b) >= len(lt.short) {
		*(*[64]byte)(b[len(b) : len(b)+64]) = lt.short
		b = b[:len(b)+n]
	} else {
		b = append(b, lt.text...)
	}
	putHex16((*[16]byte)(b[len(b)-n+lt.hexAt:]), s.IP)
	p.out = b
	if len(b) >= flushSize {
		p.flush()
	}
}

// makeLine composes the line of s as Print does, keeping where the IP
// goes.
func (p *Printer) makeLine(s *sample.Sample, pl *plan) {
	lt := &p.lineText
	t := lt.text[:0]
	if pl.start {
		t = p.appendStart(t, s, pl)
	}
	if pl.f&FieldEvent != 0 {
		t = append(t, pl.name...)
	}
	t = append(t, ' ')
	lt.hexAt = len(t)
	t = p.ipSym(t, s, pl.opts)
	t = append(t, '\n')
	lt.text = t
	lt.short = [64]byte{}
	copy(lt.short[:], t)
	l := &s.IPLoc
	lt.pl, lt.sym, lt.hasMap, lt.dso = pl, l.Sym, l.HasMap, l.DSO
	lt.comm, lt.pid, lt.tid, lt.cpu = s.Comm, s.PID, s.TID, s.CPU
}

// putHex16 writes v as "%16" PRIx64 into t.
func putHex16(t *[16]byte, v uint64) {
	*t = [16]byte{' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '}
	i := 16
	for v >= 0x100 {
		i -= 2
		x := (v & 0xff) * 2
		t[i], t[i+1] = hex2[x], hex2[x+1]
		v >>= 8
	}
	if v >= 0x10 {
		t[i-2], t[i-1] = hex2[v*2], hex2[v*2+1]
	} else {
		t[i-1] = hexDigits[v]
	}
}

// PrintsLines reports whether Print prints the samples of ev without a
// callchain as lines that differ only in the IP (and the symbol offset it
// makes) while the thread, the time, the period and the symbol stay (or
// prints nothing of them): what PrintIPs prints.
func (p *Printer) PrintsLines(ev *sample.Event) bool {
	pl := p.planOf(ev)
	return pl.f == 0 || pl.line || pl.ipRun
}

// PrintIPs prints s once for each of ips, as Print would print s with
// that IP, for an event PrintsLines says yes to and a sample without a
// callchain: all of ips resolve to s.IPLoc (but for its Addr, which moves
// with the IP: the same map).
func (p *Printer) PrintIPs(s *sample.Sample, ips []uint64) {
	pl := p.planOf(s.Ev)
	p.curF = pl.f
	if pl.f == 0 {
		return
	}
	if !pl.line {
		p.printIPsRun(s, ips, pl)
		return
	}
	lt := &p.lineText
	l := &s.IPLoc
	if lt.pl != pl || l.Sym != lt.sym || s.TID != lt.tid || s.PID != lt.pid || s.CPU != lt.cpu ||
		!sameStr(s.Comm, lt.comm) || l.HasMap != lt.hasMap || !sameStr(l.DSO, lt.dso) {
		p.makeLine(s, pl)
	}
	n := len(lt.text)
	b := p.out
	for _, ip := range ips {
		if n <= len(lt.short) && cap(b)-len(b) >= len(lt.short) {
			*(*[64]byte)(b[len(b) : len(b)+64]) = lt.short
			b = b[:len(b)+n]
		} else {
			b = append(b, lt.text...)
		}
		putHex16((*[16]byte)(b[len(b)-n+lt.hexAt:]), ip)
		if len(b) >= flushSize {
			p.out = b
			p.flush()
			b = p.out
		}
	}
	p.out = b
}

// printIPsRun is PrintIPs for an ipRun plan: Print's text before the IP
// made once, then each IP with its symbol, offset and DSO.
func (p *Printer) printIPsRun(s *sample.Sample, ips []uint64, pl *plan) {
	head := append(p.appendHead(p.runHead[:0], s, pl), ' ')
	p.runHead = head
	loc := s.IPLoc
	symOpts := pl.opts & (optSym | optSymOff | optDSO)
	b := p.out
	for _, ip := range ips {
		b = append(b, head...)
		if pl.opts&optIP != 0 {
			b = appendHex16(b, ip)
		}
		if symOpts&(optSym|optDSO) != 0 {
			loc.Addr = s.IPLoc.Addr + (ip - s.IP)
			b = p.ipText.append(b, &loc, symOpts)
		}
		b = append(b, '\n')
		if len(b) >= flushSize {
			p.out = b
			p.flush()
			b = p.out
		}
	}
	p.out = b
}
