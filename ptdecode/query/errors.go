package query

import (
	"errors"
	"fmt"
)

// Code is a decoder error code. The values and messages are libipt's
// enum pt_error_code and pt_errstr, so that tools print the same text
// ("[<offset>, <ip>: error: <message>]"). The instruction and block
// decoders use the codes above CodeBadImage too.
//
// A Code is an error itself, so errors.Is(err, query.CodeEOS) works on
// every error the decoders return.
type Code uint8

const (
	CodeOK              Code = iota // OK
	CodeInternal                    // internal error
	CodeInvalid                     // invalid argument
	CodeNoSync                      // decoder out of sync
	CodeBadOpc                      // unknown opcode
	CodeBadPacket                   // unknown packet
	CodeBadContext                  // unexpected packet context
	CodeEOS                         // reached end of trace stream
	CodeBadQuery                    // trace stream does not match query
	CodeNoMem                       // out of memory
	CodeBadConfig                   // bad configuration
	CodeNoIP                        // no ip
	CodeIPSuppressed                // ip has been suppressed
	CodeNoMap                       // no memory mapped at this address
	CodeBadInsn                     // unknown instruction
	CodeNoTime                      // no timing information
	CodeNoCBR                       // no core:bus ratio
	CodeBadImage                    // bad image
	CodeBadLock                     // locking error
	CodeNotSupported                // not supported
	CodeRetstackEmpty               // compressed return without call
	CodeBadRetcomp                  // bad compressed return
	CodeBadStatusUpdate             // bad status update
	CodeNoEnable                    // expected tracing enabled event
	CodeEventIgnored                // event ignored
	CodeOverflow                    // overflow
	CodeBadFile                     // bad file
	CodeBadCPU                      // unknown cpu
	numCodes
)

var codeText = [numCodes]string{
	CodeOK:              "OK",
	CodeInternal:        "internal error",
	CodeInvalid:         "invalid argument",
	CodeNoSync:          "decoder out of sync",
	CodeBadOpc:          "unknown opcode",
	CodeBadPacket:       "unknown packet",
	CodeBadContext:      "unexpected packet context",
	CodeEOS:             "reached end of trace stream",
	CodeBadQuery:        "trace stream does not match query",
	CodeNoMem:           "out of memory",
	CodeBadConfig:       "bad configuration",
	CodeNoIP:            "no ip",
	CodeIPSuppressed:    "ip has been suppressed",
	CodeNoMap:           "no memory mapped at this address",
	CodeBadInsn:         "unknown instruction",
	CodeNoTime:          "no timing information",
	CodeNoCBR:           "no core:bus ratio",
	CodeBadImage:        "bad image",
	CodeBadLock:         "locking error",
	CodeNotSupported:    "not supported",
	CodeRetstackEmpty:   "compressed return without call",
	CodeBadRetcomp:      "bad compressed return",
	CodeBadStatusUpdate: "bad status update",
	CodeNoEnable:        "expected tracing enabled event",
	CodeEventIgnored:    "event ignored",
	CodeOverflow:        "overflow",
	CodeBadFile:         "bad file",
	CodeBadCPU:          "unknown cpu",
}

// Error returns libipt's message for the code (pt_errstr).
func (c Code) Error() string {
	if c < numCodes {
		return codeText[c]
	}
	return "internal error."
}

// Error is a decoder error at a trace offset: the offset of the packet the
// decoder was processing (what libipt's pt_*_get_offset reports after the
// error). It wraps its Code, and the packet layer's error if there is one.
type Error struct {
	Code   Code
	Offset uint64
	Err    error // the underlying packet-layer error, or nil
}

func (e *Error) Error() string {
	return fmt.Sprintf("trace offset %#x: %s", e.Offset, e.Code.Error())
}

// Unwrap returns the Code and the packet-layer error.
func (e *Error) Unwrap() []error {
	if e.Err != nil {
		return []error{e.Code, e.Err}
	}
	return []error{e.Code}
}

// CodeOf returns the Code of err: the Code of the first *Error or Code in
// its chain, CodeOK for nil, and CodeInternal for anything else.
func CodeOf(err error) Code {
	switch e := err.(type) {
	case nil:
		return CodeOK
	case Code:
		return e
	case *Error:
		return e.Code
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	var c Code
	if errors.As(err, &c) {
		return c
	}
	return CodeInternal
}
