package sideband

import (
	"bufio"
	"errors"
	"io"
	"math"
	"os"
)

// Pevent iterates the records of one perf_event sideband file (libipt's
// pt_sb_pevent decoder without the image part).
type Pevent struct {
	Config PeventConfig
	buf    []byte
	next   int // offset of the next record
	cur    int // offset of the current record, -1 before the first Fetch
	rec    Record
}

// NewPevent returns a decoder for buf, the contents of cfg.Filename's range.
func NewPevent(cfg PeventConfig, buf []byte) *Pevent {
	return &Pevent{Config: cfg, buf: buf, cur: -1}
}

// OpenPevent reads cfg.Filename's range [Begin, End) (End 0: to the end;
// an End past the end of the file is cut) and returns its decoder.
func OpenPevent(cfg PeventConfig) (*Pevent, error) {
	if cfg.End != 0 && cfg.End <= cfg.Begin {
		return nil, ErrInvalid
	}
	data, err := os.ReadFile(cfg.Filename)
	if err != nil {
		return nil, ErrBadFile
	}
	end := uint64(len(data))
	if cfg.End != 0 {
		end = min(end, cfg.End)
	}
	if cfg.Begin > end {
		return nil, ErrBadFile
	}
	return NewPevent(cfg, data[cfg.Begin:end]), nil
}

// Fetch reads the next record and returns the TSC at which it applies: the
// record's sample time converted to TSC, minus the configured TSC offset
// (without wrapping), or 0 for a record without time (libipt's
// pt_sb_pevent_fetch). At the end of the file the error is ErrEOS.
func (p *Pevent) Fetch() (uint64, error) {
	p.cur = p.next
	n, err := p.Config.ReadRecord(&p.rec, p.buf, p.next)
	if err != nil {
		return 0, err
	}
	p.next += n
	s := &p.rec.Sample
	if s.Has&HasTime == 0 {
		return 0, nil
	}
	off, tsc := p.Config.TSCOffset, s.TSC
	switch {
	case off <= tsc:
		tsc -= off
	case int64(off) >= 0:
		tsc = 0
	case tsc <= off:
		tsc -= off
	default:
		tsc = math.MaxUint64
	}
	s.TSC = tsc
	return tsc, nil
}

// Record returns the record read by the last Fetch.
func (p *Pevent) Record() *Record { return &p.rec }

// Offset returns the offset of the record read by the last Fetch (or where
// it failed) in the file's range.
func (p *Pevent) Offset() int { return max(p.cur, 0) }

// DumpFlags select what Session.Dump prints of each record (libipt's
// ptsbp_* flags, set by ptdump's and ptxed's --sb:* options).
type DumpFlags uint32

// The dump flags.
const (
	DumpCompact  DumpFlags = 1 << iota // --sb:compact: one line per record
	DumpVerbose                        // --sb:verbose: one field per line
	DumpFilename                       // --sb:filename: the file name first
	DumpOffset                         // --sb:offset: the record's offset first
	DumpTime                           // --sb:time: the record's TSC first
)

// decoder is a sideband source in a session.
type decoder struct {
	pev     *Pevent
	tsc     uint64
	pending bool     // the current record is not applied yet (libipt: current != next)
	loc     location // where the trace is, as far as this file's decoder knows
	context *Context // the current context (primary files of a decoder session)
	next    *Context // the context to switch to at the next kernel location
}

// Session merges sideband files by time (libipt's pt_sb_session, the dump
// part): Dump prints the records of all files whose time has come.
type Session struct {
	waiting  []*decoder // added, not yet initialised (newest last)
	decoders []*decoder // ordered by tsc; among equal ones the last (re)added first
	flags    DumpFlags
	warn     bool
	scratch  []byte

	// Decoder sessions (Event) only.
	retired  []*decoder // files at their end, still placing a context switch
	contexts []*Context // newest first
	newImage func(name string) Image
	onSwitch func(w *bufio.Writer, c *Context)
	severity bool
}

// NewSession returns an empty session.
func NewSession() *Session { return &Session{} }

// AddPevent opens a perf_event sideband file and adds it to the session.
func (s *Session) AddPevent(cfg PeventConfig) error {
	p, err := OpenPevent(cfg)
	if err != nil {
		return err
	}
	s.AddDecoder(p)
	return nil
}

// AddDecoder adds an opened sideband file to the session.
func (s *Session) AddDecoder(p *Pevent) { s.waiting = append(s.waiting, &decoder{pev: p}) }

// SetDumpFlags sets what Dump prints.
func (s *Session) SetDumpFlags(f DumpFlags) { s.flags = f }

// SetWarnings chooses whether sideband warnings are printed (--sb:warn).
// Errors are always printed.
func (s *Session) SetWarnings(on bool) { s.warn = on }

// Init fetches the first record of every file added (newest first, as
// libipt), dropping files that fail; failures other than an empty file are
// printed to w as error lines.
func (s *Session) Init(w io.Writer) {
	bw := bufio.NewWriter(w)
	defer bw.Flush()
	for i := len(s.waiting) - 1; i >= 0; i-- {
		d := s.waiting[i]
		tsc, err := d.pev.Fetch()
		if err != nil {
			if !errors.Is(err, ErrEOS) {
				s.printError(bw, d.pev, err)
			}
			continue
		}
		d.tsc, d.pending = tsc, true
		s.insert(d)
	}
	s.waiting = nil
}

// insert puts d before the first decoder with a TSC at least d's.
func (s *Session) insert(d *decoder) {
	i := 0
	for i < len(s.decoders) && s.decoders[i].tsc < d.tsc {
		i++
	}
	s.decoders = append(s.decoders, nil)
	copy(s.decoders[i+1:], s.decoders[i:])
	s.decoders[i] = d
}

// Dump prints, in time order, the records of all files up to and including
// time tsc (libipt's pt_sb_dump); a file whose next record cannot be read
// is dropped after an error line.
func (s *Session) Dump(w *bufio.Writer, tsc uint64) error {
	for len(s.decoders) > 0 && s.decoders[0].tsc <= tsc {
		d := s.decoders[0]
		s.decoders = s.decoders[1:]
		s.print(w, d.pev)
		t, err := d.pev.Fetch()
		if err != nil {
			if !errors.Is(err, ErrEOS) {
				s.printError(w, d.pev, err)
			}
			continue
		}
		d.tsc = t
		s.insert(d)
	}
	return nil
}
