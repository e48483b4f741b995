package packet

import (
	"errors"
	"strconv"
)

// The sentinel errors wrapped by [*Error]; test with errors.Is. Their texts
// are libipt's (pt_errstr) so that tools print the same messages.
var (
	ErrEOS       = errors.New("reached end of trace stream") // packet runs past the end of the buffer
	ErrBadOpcode = errors.New("unknown opcode")              // reserved or unknown opcode
	ErrBadPacket = errors.New("unknown packet")              // known opcode with a bad payload
	ErrNoSync    = errors.New("decoder out of sync")         // no PSB at the offset asked for
	ErrNoIP      = errors.New("no ip")                       // last IP not known yet
	ErrSuppress  = errors.New("ip has been suppressed")      // last IP update was suppressed
	ErrBadConfig = errors.New("bad configuration")           // invalid packet given to the encoder
)

// Error is a packet-layer error at a byte offset of the trace buffer.
type Error struct {
	Offset int   // byte offset of the packet (or sync point) in the buffer
	Err    error // one of the sentinels above
}

func (e *Error) Error() string {
	return "pt packet at offset 0x" + strconv.FormatUint(uint64(e.Offset), 16) + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// errAt builds the error for offset off. Kept out of line so that the
// decoder's hot path stays small.
//
//go:noinline
func errAt(off int, err error) error { return &Error{Offset: off, Err: err} }
