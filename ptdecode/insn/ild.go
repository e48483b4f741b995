package insn

import "errors"

// MaxSize is the maximal length of an x86 instruction.
const MaxSize = 15

var (
	// ErrBadInsn reports bytes that are not a valid instruction.
	ErrBadInsn = errors.New("bad instruction")
	// ErrShort reports that the bytes ran out before the instruction ended;
	// more bytes (up to MaxSize) may make it decodable.
	ErrShort = errors.New("truncated instruction")
)

// Insn is one decoded instruction: a fixed-size value.
type Insn struct {
	IP        uint64
	Disp      int64  // branch displacement (direct branches) or absolute target (jmpabs)
	Size      uint8  // length in bytes
	Mode      Mode   // execution mode it was decoded in
	Class     Class  // coarse class
	IClass    IClass // detailed class
	Direct    bool   // a direct (relative) branch: target = IP+Size+Disp
	Truncated bool   // the bytes came from more than one image section
}

// ild is the state of the instruction length decoder.
type ild struct {
	b        []byte
	mode     Mode
	osz, asz bool
	rexW     bool
	rexR     bool
	rex2     bool
	vex      uint8 // 0 legacy, 1 vex, 2 evex
	lastF2F3 uint8 // 0, 2 (F2) or 3 (F3)
	f3       bool
	mapn     uint8 // 0: one-byte, 1: 0F, 2: 0F38, 3: 0F3A, other vex maps, 0xff invalid
	opcode   uint8
	modrm    uint8
	disp     uint8 // displacement bytes (memory or branch)
	dispOff  uint8 // offset of the displacement
	imm1     uint8
	imm2     uint8
	branch   bool // disp is a branch displacement
}

// Decode decodes the instruction at the start of code in mode and fills in
// everything but in.IP (set it before or after). code may be longer than the
// instruction. It returns ErrShort when code ends inside the instruction and
// ErrBadInsn for an invalid encoding. It never allocates.
func Decode(in *Insn, code []byte, mode Mode) error {
	if len(code) > MaxSize {
		code = code[:MaxSize]
	}
	var d ild
	d.b = code
	d.mode = mode
	if mode == ModeUnknown || mode > Mode64 {
		return ErrBadInsn
	}
	n, err := d.prefixes()
	if err != nil {
		return err
	}
	in.Size = uint8(n)
	in.Mode = mode
	in.Direct = false
	in.Disp = 0
	in.Truncated = false
	d.classify(in, n)
	return nil
}

func (d *ild) short(n int) error {
	if n >= MaxSize {
		return ErrBadInsn
	}
	return ErrShort
}

func (d *ild) byteAt(n int) (byte, error) {
	if n >= len(d.b) {
		return 0, d.short(n)
	}
	return d.b[n], nil
}

// prefixes scans legacy, REX, REX2, VEX and EVEX prefixes and the opcode.
func (d *ild) prefixes() (int, error) {
	n := 0
	rex := byte(0)
	for {
		b, err := d.byteAt(n)
		if err != nil {
			return 0, err
		}
		switch b {
		case 0x66:
			d.osz = true
		case 0x67:
			d.asz = true
		case 0xf0, 0x2e, 0x3e, 0x26, 0x36, 0x64, 0x65:
		case 0xf2:
			d.lastF2F3 = 2
		case 0xf3:
			d.lastF2F3 = 3
			d.f3 = true
		default:
			if d.mode == Mode64 && b&0xf0 == 0x40 {
				rex = b
				n++
				continue
			}
			if rex != 0 {
				d.rexW = rex&8 != 0
				d.rexR = rex&4 != 0
			}
			switch b {
			case 0xc4, 0xc5:
				if d.isVEX(n) {
					return d.vexPrefix(n, b)
				}
			case 0x62:
				if d.isVEX(n) {
					return d.evexPrefix(n)
				}
			case 0xd5:
				if d.mode == Mode64 {
					return d.rex2Prefix(n)
				}
			}
			return d.opcodeDec(n)
		}
		rex = 0
		n++
		if n >= MaxSize {
			return 0, ErrBadInsn
		}
	}
}

// isVEX tells VEX/EVEX from LES/LDS/BOUND outside 64-bit mode.
func (d *ild) isVEX(n int) bool {
	if d.mode == Mode64 {
		return true
	}
	if n+1 >= len(d.b) {
		return false
	}
	return d.b[n+1]&0xc0 == 0xc0
}

func (d *ild) vexPrefix(n int, b byte) (int, error) {
	d.vex = 1
	if b == 0xc5 {
		p, err := d.byteAt(n + 1)
		if err != nil {
			return 0, err
		}
		d.rexR = p&0x80 == 0
		d.mapn = 1
		n += 2
	} else {
		p1, err := d.byteAt(n + 1)
		if err != nil {
			return 0, err
		}
		p2, err := d.byteAt(n + 2)
		if err != nil {
			return 0, err
		}
		d.rexR = p1&0x80 == 0
		d.rexW = p2&0x80 != 0
		d.mapn = p1 & 0x1f
		n += 3
		if d.mapn < 1 || d.mapn > 3 {
			return 0, ErrBadInsn
		}
	}
	op, err := d.byteAt(n)
	if err != nil {
		return 0, err
	}
	d.opcode = op
	n++
	if d.mapn == 1 && op == 0x77 { // vzeroupper/vzeroall
		return n, nil
	}
	return d.modrmDec(n, false)
}

func (d *ild) evexPrefix(n int) (int, error) {
	d.vex = 2
	p0, err := d.byteAt(n + 1)
	if err != nil {
		return 0, err
	}
	p1, err := d.byteAt(n + 3)
	if err != nil {
		return 0, err
	}
	d.rexR = p0&0x80 == 0
	d.rexW = p1&0x80 != 0
	d.mapn = p0 & 0x7
	if d.mapn == 0 || d.mapn == 7 {
		return 0, ErrBadInsn
	}
	n += 4
	op, err := d.byteAt(n)
	if err != nil {
		return 0, err
	}
	d.opcode = op
	return d.modrmDec(n+1, false)
}

func (d *ild) rex2Prefix(n int) (int, error) {
	p, err := d.byteAt(n + 1)
	if err != nil {
		return 0, err
	}
	d.rex2 = true
	d.rexW = p&0x08 != 0
	d.rexR = p&0x04 != 0
	n += 2
	op, err := d.byteAt(n)
	if err != nil {
		return 0, err
	}
	d.opcode = op
	d.mapn = p >> 7
	return d.modrmDec(n+1, d.mapn == 1 && op >= 0x20 && op <= 0x23)
}

func (d *ild) opcodeDec(n int) (int, error) {
	b := d.b[n]
	if b != 0x0f {
		d.mapn = 0
		d.opcode = b
		return d.modrmDec(n+1, false)
	}
	n++
	m, err := d.byteAt(n)
	if err != nil {
		return 0, err
	}
	switch {
	case m == 0x38:
		d.mapn = 2
	case m == 0x3a:
		d.mapn = 3
	case m&0xf8 == 0x38:
		return 0, ErrBadInsn
	default:
		d.mapn = 1
		d.opcode = m
		return d.modrmDec(n+1, m >= 0x20 && m <= 0x23)
	}
	n++
	op, err := d.byteAt(n)
	if err != nil {
		return 0, err
	}
	d.opcode = op
	return d.modrmDec(n+1, false)
}

// hasModRM reports whether the opcode takes a ModRM byte.
func (d *ild) hasModRM() bool {
	if d.vex != 0 {
		return true
	}
	switch d.mapn {
	case 0:
		return modrmMap0[d.opcode>>6]&(1<<(d.opcode&63)) != 0
	case 1:
		return modrmMap1[d.opcode>>6]&(1<<(d.opcode&63)) != 0
	case 2, 3:
		return true
	}
	return false
}

// eamode16 reports 16-bit addressing.
func (d *ild) eamode16() bool {
	switch d.mode {
	case Mode16:
		return !d.asz
	case Mode32:
		return d.asz
	}
	return false
}

func (d *ild) modrmDec(n int, ignoreMod bool) (int, error) {
	if !d.hasModRM() {
		return d.dispDec(n)
	}
	m, err := d.byteAt(n)
	if err != nil {
		return 0, err
	}
	d.modrm = m
	n++
	if ignoreMod {
		return d.dispDec(n)
	}
	mod, rm := m>>6, m&7
	if mod == 3 {
		return d.dispDec(n)
	}
	if d.eamode16() {
		switch {
		case mod == 0 && rm == 6, mod == 2:
			d.disp = 2
		case mod == 1:
			d.disp = 1
		}
		return d.dispDec(n)
	}
	switch mod {
	case 1:
		d.disp = 1
	case 2:
		d.disp = 4
	default:
		if rm == 5 {
			d.disp = 4
		}
	}
	if rm == 4 {
		sib, err := d.byteAt(n)
		if err != nil {
			return 0, err
		}
		n++
		if mod == 0 && sib&7 == 5 {
			d.disp = 4
		}
	}
	return d.dispDec(n)
}

// osz16 reports a 16-bit effective operand size.
func (d *ild) osz16() bool {
	switch d.mode {
	case Mode16:
		return !d.osz
	case Mode32:
		return d.osz
	}
	return d.osz && !d.rexW
}

// zBytes is the size of a z operand (16 or 32 bits).
func (d *ild) zBytes() uint8 {
	if d.osz16() {
		return 2
	}
	return 4
}

// vBytes is the size of a v operand (16, 32 or 64 bits).
func (d *ild) vBytes() uint8 {
	if d.mode == Mode64 && d.rexW {
		return 8
	}
	return d.zBytes()
}

// aBytes is the size of a memory offset (moffs).
func (d *ild) aBytes() uint8 {
	switch d.mode {
	case Mode16:
		if d.asz {
			return 4
		}
		return 2
	case Mode32:
		if d.asz {
			return 2
		}
		return 4
	}
	if d.asz {
		return 4
	}
	return 8
}

func (d *ild) reg() uint8 { return (d.modrm >> 3) & 7 }

// dispDec adds branch displacements and moffs, then immediates.
func (d *ild) dispDec(n int) (int, error) {
	if d.vex == 0 && !d.rex2 {
		switch d.mapn {
		case 0:
			switch op := d.opcode; {
			case op >= 0x70 && op <= 0x7f, op >= 0xe0 && op <= 0xe3, op == 0xeb:
				d.disp, d.branch = 1, true
			case op == 0xe8 || op == 0xe9:
				d.branch = true
				if d.mode == Mode64 {
					d.disp = 4
				} else {
					d.disp = d.zBytes()
				}
			case op >= 0xa0 && op <= 0xa3:
				d.disp = d.aBytes()
			case op == 0xc7 && d.reg() == 7 && d.modrm>>6 == 3: // xbegin
				d.disp, d.branch = d.zBytes(), true
			}
		case 1:
			if d.opcode >= 0x80 && d.opcode <= 0x8f {
				// BRDISPz, but BRDISP32 in 64-bit mode, where Intel
				// CPUs ignore an operand-size prefix on near
				// branches (libipt's PTI_DISP_BUCKET_0_l1; perf's
				// decoder reads Jz there as 4 bytes too).
				d.branch = true
				if d.mode == Mode64 {
					d.disp = 4
				} else {
					d.disp = d.zBytes()
				}
			}
		}
	} else if d.rex2 && d.mapn == 0 && d.opcode >= 0xa0 && d.opcode <= 0xa3 {
		d.disp = d.aBytes()
	}
	d.dispOff = uint8(n)
	n += int(d.disp)
	d.setImm()
	n += int(d.imm1) + int(d.imm2)
	if n > len(d.b) {
		return 0, d.short(n)
	}
	return n, nil
}

// setImm sets the immediate sizes.
func (d *ild) setImm() {
	op := d.opcode
	if d.vex != 0 {
		switch d.mapn {
		case 1:
			if (op >= 0x70 && op <= 0x73) || op == 0xc2 || (op >= 0xc4 && op <= 0xc6) {
				d.imm1 = 1
			}
		case 3:
			d.imm1 = 1
		case 4: // EVEX-promoted legacy instructions (APX)
			d.map0Imm(op)
		}
		return
	}
	switch d.mapn {
	case 0:
		d.map0Imm(op)
	case 1:
		switch {
		case op >= 0x70 && op <= 0x73, op == 0xa4, op == 0xac, op == 0xba, op == 0xc2,
			op >= 0xc4 && op <= 0xc6, op == 0x0f:
			d.imm1 = 1
		case op == 0x78:
			if d.osz || d.lastF2F3 == 2 {
				d.imm1, d.imm2 = 1, 1
			}
		}
	case 3:
		d.imm1 = 1
	}
}

func (d *ild) map0Imm(op uint8) {
	switch imm0[op] {
	case immB:
		d.imm1 = 1
	case immZ:
		d.imm1 = d.zBytes()
	case immV:
		d.imm1 = d.vBytes()
	case immW:
		d.imm1 = 2
	case immEnter:
		d.imm1, d.imm2 = 2, 1
	case immPtr:
		d.imm1, d.imm2 = d.zBytes(), 2
	case immGrp3b:
		if d.reg() < 2 {
			d.imm1 = 1
		}
	case immGrp3z:
		if d.reg() < 2 {
			d.imm1 = d.zBytes()
		}
	case immGrp11z:
		if d.reg() == 0 {
			d.imm1 = d.zBytes()
		}
	}
}

// readDisp returns the sign-extended displacement.
func (d *ild) readDisp() int64 {
	o := int(d.dispOff)
	switch d.disp {
	case 1:
		return int64(int8(d.b[o]))
	case 2:
		return int64(int16(uint16(d.b[o]) | uint16(d.b[o+1])<<8))
	case 4:
		return int64(int32(uint32(d.b[o]) | uint32(d.b[o+1])<<8 | uint32(d.b[o+2])<<16 | uint32(d.b[o+3])<<24))
	}
	return 0
}

func (d *ild) readImm64(o int) int64 {
	var v uint64
	for i := 7; i >= 0; i-- {
		v = v<<8 | uint64(d.b[o+i])
	}
	return int64(v)
}
