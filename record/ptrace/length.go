package ptrace

// x86asm does not know a few encodings that glibc uses (VEX forms it
// mis-sizes or rejects, ENDBR64, CET shadow-stack and PKU instructions).
// None of them is a branch, so fallbackLen only needs their length.

// needsFallback says whether x86asm's answer for code cannot be trusted.
func needsFallback(code []byte, n int, err error) bool {
	if err != nil || len(code) == 0 {
		return true
	}
	switch code[0] {
	case 0xc4, 0xc5, 0x62:
		return true // VEX/EVEX: x86asm mis-sizes VZEROUPPER and rejects FMA4
	case 0xf3, 0xf2, 0x66:
		return n == 1 // a prefix decoded alone
	}
	return false
}

// fallbackLen returns the length of the (non-branch) instruction at code,
// or 0 when it cannot tell.
func fallbackLen(code []byte) int {
	i := 0
	for i < len(code) && i < 14 {
		switch b := code[i]; {
		case b == 0x66 || b == 0x67 || b == 0xf2 || b == 0xf3 || b == 0x2e || b == 0x3e || b == 0x26 ||
			b == 0x36 || b == 0x64 || b == 0x65 || b == 0xf0:
			i++
			continue
		}
		break
	}
	if i < len(code) && code[i]&0xf0 == 0x40 { // REX
		i++
	}
	if i >= len(code) {
		return 0
	}
	var mapSel int
	var op byte
	switch code[i] {
	case 0xc5:
		if i+3 > len(code) {
			return 0
		}
		mapSel, op, i = 1, code[i+2], i+3
	case 0xc4:
		if i+4 > len(code) {
			return 0
		}
		mapSel, op, i = int(code[i+1]&0x1f), code[i+3], i+4
	case 0x62:
		if i+5 > len(code) {
			return 0
		}
		mapSel, op, i = int(code[i+1]&0x7), code[i+4], i+5
	case 0x0f:
		if i+2 > len(code) {
			return 0
		}
		switch code[i+1] {
		case 0x38:
			mapSel, op, i = 2, code[i+2], i+3
		case 0x3a:
			mapSel, op, i = 3, code[i+2], i+3
		default:
			mapSel, op, i = 1, code[i+1], i+2
		}
	default:
		return 0
	}
	if mapSel == 1 && op == 0x77 && code[0] != 0x0f {
		return i // VZEROUPPER, VZEROALL
	}
	if i >= len(code) {
		return 0
	}
	modrm := code[i]
	i++
	mod, rm := modrm>>6, modrm&7
	if mod != 3 {
		if rm == 4 {
			if i >= len(code) {
				return 0
			}
			if code[i]&7 == 5 && mod == 0 {
				i += 4
			}
			i++
		}
		switch {
		case mod == 0 && rm == 5:
			i += 4
		case mod == 1:
			i++
		case mod == 2:
			i += 4
		}
	}
	if mapSel == 3 || mapSel == 1 && (op >= 0x70 && op <= 0x73 || op == 0xc2 || op >= 0xc4 && op <= 0xc6) {
		i++
	}
	if i > len(code) {
		return 0
	}
	return i
}
