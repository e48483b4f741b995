package dwarfbuf

// Pointer encodings (DW_EH_PE_*, the LSB's .eh_frame and the Itanium
// C++ ABI's LSDA): a format in the low four bits, an application in the
// next three, and the indirect bit.
const (
	PEAbsptr   = 0x00
	PEUleb128  = 0x01
	PEUdata2   = 0x02
	PEUdata4   = 0x03
	PEUdata8   = 0x04
	PESleb128  = 0x09
	PESdata2   = 0x0a
	PESdata4   = 0x0b
	PESdata8   = 0x0c
	PEPcrel    = 0x10
	PETextrel  = 0x20
	PEDatarel  = 0x30
	PEFuncrel  = 0x40
	PEAligned  = 0x50
	PEIndirect = 0x80
	PEOmit     = 0xff
)

// Format reads a value in the format part (low four bits) of a pointer
// encoding (absptr is 8 bytes: 64-bit targets only). ok is false for
// short data or an unknown format; both set Bad.
func (c *Cursor) Format(enc uint8) (v uint64, ok bool) {
	switch enc & 0x0f {
	case PEAbsptr:
		v = c.U64()
	case PEUleb128:
		v = c.ULEB()
	case PEUdata2:
		v = uint64(c.U16())
	case PEUdata4:
		v = uint64(c.U32())
	case PEUdata8:
		v = c.U64()
	case PESleb128:
		v = uint64(c.SLEB())
	case PESdata2:
		v = uint64(int64(int16(c.U16())))
	case PESdata4:
		v = uint64(int64(int32(c.U32())))
	case PESdata8:
		v = c.U64()
	default:
		c.Bad = true
		return 0, false
	}
	return v, !c.Bad
}

// Encoded reads a pointer in encoding enc (libunwind's
// dwarf_read_encoded_pointer): base is the address of B[0] (for pcrel),
// data the datarel base, fn the funcrel base. An indirect pointer names
// memory of the process, which is not read here: it fails, as do omit,
// textrel and unknown applications (without setting Bad).
func (c *Cursor) Encoded(enc uint8, base, data, fn uint64) (v uint64, ok bool) {
	if enc == PEOmit {
		return 0, false
	}
	if enc&0x70 == PEAligned {
		if pad := c.Off & 7; pad != 0 {
			c.Take(uint64(8 - pad))
		}
		enc = PEAbsptr
	}
	at := base + uint64(c.Off)
	if v, ok = c.Format(enc); !ok || enc&PEIndirect != 0 {
		return 0, false
	}
	if v == 0 {
		return 0, true // libunwind: a zero stays zero whatever the application
	}
	switch enc & 0x70 {
	case PEAbsptr:
	case PEPcrel:
		v += at
	case PEDatarel:
		v += data
	case PEFuncrel:
		v += fn
	default:
		return 0, false
	}
	return v, true
}
