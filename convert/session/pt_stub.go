package session

import (
	"github.com/perfpt/perfpt/convert/script"
	"github.com/perfpt/perfpt/perfdata"
)

// ptState holds the Intel PT decoding state of a session.
type ptState struct{}

// Block is one run of sequential instructions of a decoded PT flow.
type Block struct {
	PID, TID int32
	CPU      int32
	Time     uint64
	Start    uint64 // first instruction
	End      uint64 // last instruction
	NInsn    uint64
	Flags    uint32 // how the last instruction left: script.Flag*
	To       uint64 // where execution went next (0: trace stopped)
}

func (s *Session) startPT(r *perfdata.RecordAuxtraceInfo) error { return nil }

func (p *ptState) isPTAttr(a *perfdata.Attr) bool             { return false }
func (p *ptState) flushUpTo(t uint64, h Handler) error        { return nil }
func (p *ptState) addBuffer(r *perfdata.RecordAuxtrace) error { return nil }
func (p *ptState) sideband(r perfdata.Record, h Handler)      {}
func (p *ptState) timeConv(r *perfdata.RecordTimeConv)        {}
func (p *ptState) finish(h Handler) error                     { return nil }

var _ = script.Sample{}
