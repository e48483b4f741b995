package ptxed

import (
	"bufio"
	"bytes"
	"strconv"

	"github.com/perfpt/perfpt/ptdecode/flow"
	"github.com/perfpt/perfpt/ptdecode/image"
	"github.com/perfpt/perfpt/ptdecode/insn"
	"github.com/perfpt/perfpt/ptdecode/query"
	"github.com/perfpt/perfpt/ptdecode/sideband"
)

// printer is the flow.Handler that prints ptxed's output.
type printer struct {
	w      *bufio.Writer
	o      *Options
	img    func() *image.Image
	time   uint64
	insns  uint64
	blocks uint64
	buf    []byte
	out    *bytes.Buffer // the buffer w writes to, for chunk printers

	sb       *sideband.Session  // perf_event sideband, if any
	setImage func(*image.Image) // switches the decoder's image
}

func (p *printer) hex16(v uint64) {
	var b [16]byte
	s := strconv.AppendUint(b[:0], v, 16)
	for i := len(s); i < 16; i++ {
		p.w.WriteByte('0')
	}
	p.w.Write(s)
}

func (p *printer) hex(v uint64) {
	var b [16]byte
	p.w.Write(strconv.AppendUint(b[:0], v, 16))
}

func (p *printer) Block(b *flow.Block, offset uint64) {
	if p.o.Stats {
		p.insns += uint64(b.NInsn)
		p.blocks++
	}
	if p.o.Quiet && !p.o.Check {
		return // --quiet: the decode's cost alone
	}
	p.block(b, offset)
}

// block checks and prints a block for Block (apart, so that Block stays
// cheap to call with --quiet: block's deferred check has a cost at every
// call).
func (p *printer) block(b *flow.Block, offset uint64) {
	if p.o.Check && b.NInsn != 0 {
		img := p.img()
		defer p.checkBlock(blockView{ip: b.IP, endIP: b.EndIP, ninsn: b.NInsn, mode: b.Mode, class: b.Class,
			code: func(ip uint64) []byte {
				if ip == b.EndIP && b.Truncated {
					return b.Raw[:b.RawSize]
				}
				if m, ok := img.Find(ip); ok {
					return m.Bytes(ip)
				}
				return nil
			}}, offset)
	}
	if p.o.Quiet {
		return
	}
	if p.o.ShowBlocks {
		p.w.WriteString("[block")
		if p.o.Stats {
			p.w.WriteByte(' ')
			p.hex(p.blocks)
		}
		p.w.WriteString("]\n")
	}
	if b.NInsn == 0 {
		return
	}
	img := p.img()
	ip := b.IP
	for n := b.NInsn; ; {
		var in insn.Insn
		in.IP, in.Mode = ip, b.Mode
		var code []byte
		if ip == b.EndIP && b.Truncated {
			code = b.Raw[:b.RawSize]
		} else if m, ok := img.Find(ip); ok {
			code = m.Bytes(ip)
		}
		err := insn.Decode(&in, code, b.Mode)
		p.insnLine(ip, b.Speculative, offset, code, b.Mode, err)
		if err != nil {
			return
		}
		n--
		if n == 0 {
			break
		}
		ip = nextIPForPrint(&in)
	}
}

// nextIPForPrint follows direct jumps and calls inside a block.
func nextIPForPrint(in *insn.Insn) uint64 {
	if ip, ok := in.NextIP(); ok {
		return ip
	}
	return in.IP + uint64(in.Size)
}

func (p *printer) insnLine(ip uint64, spec bool, offset uint64, code []byte, mode insn.Mode, err error) {
	w := p.w
	if p.o.Offset {
		p.hex16(offset)
		w.WriteString("  ")
	}
	if p.o.Time {
		p.hex16(p.time)
		w.WriteString("  ")
	}
	if spec {
		w.WriteString("? ")
	}
	p.hex16(ip)
	if err != nil {
		w.WriteString(" [fetch error: ")
		w.WriteString(query.CodeBadInsn.Error())
		w.WriteString("]\n")
		return
	}
	if !p.o.NoInst {
		var in insn.Insn
		_ = insn.Decode(&in, code, mode)
		if p.o.RawInsn {
			w.WriteString("  ")
			for i := 0; i < int(in.Size) && i < len(code); i++ {
				if i > 0 {
					w.WriteByte(' ')
				}
				b := code[i]
				w.WriteByte("0123456789abcdef"[b>>4])
				w.WriteByte("0123456789abcdef"[b&15])
			}
		}
		w.WriteString("  ")
		w.WriteString(insn.Disasm(code, mode, ip))
	}
	w.WriteByte('\n')
}

func (p *printer) Insn(in *flow.Insn, offset uint64) {
	if p.o.Stats {
		p.insns++
	}
	if !p.o.Quiet {
		var code []byte
		if !p.o.NoInst {
			if m, ok := p.img().Find(in.IP); ok {
				code = m.Bytes(in.IP)
			}
		}
		p.insnLine(in.IP, in.Speculative, offset, code, in.Mode, nil)
	}
	if p.o.Check {
		if m, ok := p.img().Find(in.IP); ok {
			p.checkClass(offset, in.IP, m.Bytes(in.IP), in.Mode, in.Class)
		}
	}
}

func (p *printer) Event(ev *query.Event, offset uint64) {
	p.time = ev.TSC
	if !p.o.Quiet && !ev.StatusUpdate {
		p.buf = appendEvent(p.buf[:0], ev, p.o, offset)
		p.w.Write(p.buf)
	}
	if p.sb != nil {
		if img := sbEvent(p.sb, p, ev); img != nil {
			p.setImage(img)
		}
	}
}

func (p *printer) Error(e *flow.DecodeError) {
	w := p.w
	w.WriteByte('[')
	p.hex(e.Offset)
	w.WriteString(", ")
	p.hex(e.IP)
	w.WriteString(": ")
	w.WriteString(e.Kind.String())
	w.WriteString(": ")
	w.WriteString(flow.ErrorCode(e.Err).Error())
	w.WriteString("]\n")
}

func (p *printer) EndOfTrace() {
	if !p.o.Quiet {
		p.w.WriteString("[end of trace]\n")
	}
}

func (p *printer) ResyncDisabled() {
	if !p.o.Quiet {
		p.w.WriteString("[disabled]\n")
	}
}

func (p *printer) stats() {
	if !p.o.Stats {
		return
	}
	if p.o.StatInsn {
		p.w.WriteString("insn: " + strconv.FormatUint(p.insns, 10) + ".\n")
	}
	if p.o.StatBlocks {
		p.w.WriteString("blocks:\t" + strconv.FormatUint(p.blocks, 10) + ".\n")
	}
}
