package unwind

import "github.com/perfpt/perfpt/internal/dwarfbuf"

// cur reads little-endian CFI data with a sticky failure (dwarfbuf's
// cursor, shared with srcline and gcov).
type cur = dwarfbuf.Cursor

// Pointer encodings (DW_EH_PE_*) used by the CFI parser.
const (
	peAbsptr = dwarfbuf.PEAbsptr
	peUdata4 = dwarfbuf.PEUdata4
	peUdata8 = dwarfbuf.PEUdata8
	peSdata4 = dwarfbuf.PESdata4
	peSdata8 = dwarfbuf.PESdata8
	pePcrel  = dwarfbuf.PEPcrel
	peOmit   = dwarfbuf.PEOmit
)
