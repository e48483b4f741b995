package srcline

// DWARF attribute forms.
const (
	formAddr          = 0x01
	formBlock2        = 0x03
	formBlock4        = 0x04
	formData2         = 0x05
	formData4         = 0x06
	formData8         = 0x07
	formString        = 0x08
	formBlock         = 0x09
	formBlock1        = 0x0a
	formData1         = 0x0b
	formFlag          = 0x0c
	formSdata         = 0x0d
	formStrp          = 0x0e
	formUdata         = 0x0f
	formRefAddr       = 0x10
	formRef1          = 0x11
	formRef2          = 0x12
	formRef4          = 0x13
	formRef8          = 0x14
	formRefUdata      = 0x15
	formIndirect      = 0x16
	formSecOffset     = 0x17
	formExprloc       = 0x18
	formFlagPresent   = 0x19
	formStrx          = 0x1a
	formAddrx         = 0x1b
	formRefSup4       = 0x1c
	formStrpSup       = 0x1d
	formData16        = 0x1e
	formLineStrp      = 0x1f
	formRefSig8       = 0x20
	formImplicitConst = 0x21
	formLoclistx      = 0x22
	formRnglistx      = 0x23
	formRefSup8       = 0x24
	formStrx1         = 0x25
	formStrx2         = 0x26
	formStrx3         = 0x27
	formStrx4         = 0x28
	formAddrx1        = 0x29
	formAddrx2        = 0x2a
	formAddrx3        = 0x2b
	formAddrx4        = 0x2c
	formGNUAddrIndex  = 0x1f01
	formGNUStrIndex   = 0x1f02
	formGNURefAlt     = 0x1f20
	formGNUStrpAlt    = 0x1f21
)

// formUint reads a constant of an unsigned data form.
func formUint(form uint64, c *cursor) (uint64, bool) {
	switch form {
	case formData1:
		return uint64(c.U8()), !c.Bad
	case formData2:
		return uint64(c.U16()), !c.Bad
	case formData4:
		return uint64(c.U32()), !c.Bad
	case formData8:
		return c.U64(), !c.Bad
	case formUdata:
		return c.ULEB(), !c.Bad
	}
	return 0, false
}

// skipForm skips a value of form; false for a form it does not know.
// Forms of one size take formSize's.
func skipForm(form uint64, c *cursor, uf unitFormat) bool {
	if n := formSize(form, uf); n >= 0 {
		c.Take(uint64(n))
		return !c.Bad
	}
	switch form {
	case formSdata:
		c.SLEB()
	case formUdata, formRefUdata, formStrx, formAddrx, formLoclistx, formRnglistx, formGNUAddrIndex, formGNUStrIndex:
		c.ULEB()
	case formString:
		c.CString()
	case formBlock1:
		c.Take(uint64(c.U8()))
	case formBlock2:
		c.Take(uint64(c.U16()))
	case formBlock4:
		c.Take(uint64(c.U32()))
	case formBlock, formExprloc:
		c.Take(c.ULEB())
	default:
		return false
	}
	return !c.Bad
}
