package sideband

import (
	"bufio"
	"errors"
	"os"
	"strconv"
	"strings"
)

// This file is the decoder side of a session (libipt's pt_sb_event and the
// pevent decoder's apply callback): as the trace decoder reports events,
// the session applies the sideband records whose time has come (printing
// them as Dump does) and maintains one process image per pid from MMAP,
// COMM.EXEC and FORK records. Context switches (SWITCH, SWITCH_CPU_WIDE,
// exec) are postponed until the trace is in the kernel, as told by the IPs
// of the events, and then handed back to the decoder as the image to use.

// Image is a process image the session maintains for a decoder, such as an
// adapter around ptdecode/image.Image.
type Image interface {
	// AddFile maps size bytes of the file at path from offset at vaddr.
	AddFile(path string, offset, size, vaddr uint64) error
	// CopyFrom adds all mappings of src, an Image of the same kind.
	CopyFrom(src Image) error
}

// EventLoc says what a trace event tells about where the CPU runs (libipt's
// ploc_from_event, by event type).
type EventLoc uint8

// The kinds of location information of an event.
const (
	// LocNone: the event tells nothing (the location becomes unknown).
	LocNone EventLoc = iota
	// LocIP: kernel or user by Event.IP, unknown if IPSuppressed (enabled,
	// async branch (IP = the target), TIP, overflow, exec mode, TSX,
	// exstop, mwait, ptwrite, tick, iflags and the event-trace events).
	LocIP
	// LocDisabled: by IP; if suppressed, likely the opposite of before.
	LocDisabled
	// LocAsyncDisabled: by IP; if suppressed, likely the opposite of
	// where Event.At is.
	LocAsyncDisabled
	// LocPaging: likely in the kernel (a PIP outside an async branch).
	LocPaging
	// LocAsyncPaging: by IP; if suppressed, likely in the kernel.
	LocAsyncPaging
)

// Event is what the session needs of a trace event.
type Event struct {
	TSC          uint64 // the event's time (used even without a TSC, as libipt)
	Loc          EventLoc
	IP           uint64
	IPSuppressed bool
	At           uint64 // LocAsyncDisabled: where tracing was disabled
}

// location is libipt's enum pt_sb_pevent_loc.
type location uint8

const (
	locUnknown location = iota
	locInKernel
	locInUser
	locLikelyInKernel
	locLikelyInUser
)

// ABIs of a process, from the ELF header of the files it maps.
const (
	abiUnknown uint8 = iota
	abiX64
	abiX32
	abiIA32
)

// Context is the state of one process: its pid and image.
type Context struct {
	PID   uint32
	Image Image
	Name  string // "pid-<hex pid>"
	abi   uint8
}

// Warnings of sideband decoding (libipt's pt_sb_error_code): named Warn*
// rather than Err* because decoding goes on after them.
var (
	WarnLost        = errors.New("sideband lost")      //lint:ignore ST1012 a warning, not an error (above)
	WarnTraceLost   = errors.New("trace lost")         //lint:ignore ST1012 a warning, not an error (above)
	WarnSectionLost = errors.New("image section lost") //lint:ignore ST1012 a warning, not an error (above)
)

func isWarning(err error) bool {
	return err == WarnLost || err == WarnTraceLost || err == WarnSectionLost
}

// SetImages turns on image tracking for a decoder (ptxed): newImage
// returns an empty image for a new process context with the given name,
// already holding the kernel's mappings if there are any.
func (s *Session) SetImages(newImage func(name string) Image) { s.newImage = newImage }

// NotifySwitch sets a function called when the session switches the
// decoder to a context, before Event returns its image (ptxed --sb:switch
// prints "[context: <name>]").
func (s *Session) NotifySwitch(fn func(w *bufio.Writer, c *Context)) { s.onSwitch = fn }

// SetSeverity chooses ptxed's error lines, "sideband warning: ..." or
// "sideband error: ...", over ptdump's, which say "sideband error" for
// both.
func (s *Session) SetSeverity(on bool) { s.severity = on }

// report prints a sideband error, or a warning when warnings are on.
func (s *Session) report(w *bufio.Writer, p *Pevent, err error) {
	if isWarning(err) && !s.warn {
		return
	}
	s.printError(w, p, err)
}

// contextByPID finds the context of pid, creating it if create is set.
func (s *Session) contextByPID(pid uint32, create bool) *Context {
	for _, c := range s.contexts {
		if c.PID == pid {
			return c
		}
	}
	if !create || s.newImage == nil {
		return nil
	}
	name := "pid-" + strconv.FormatUint(uint64(pid), 16)
	c := &Context{PID: pid, Image: s.newImage(name), Name: name}
	s.contexts = append([]*Context{c}, s.contexts...)
	return c
}

func (s *Session) removeContext(pid uint32) {
	for i, c := range s.contexts {
		if c.PID == pid {
			s.contexts = append(s.contexts[:i], s.contexts[i+1:]...)
			return
		}
	}
}

// Event presents a trace event to the session (libipt's pt_sb_event): the
// records of all files up to the event's time are printed (as Dump does)
// and applied, then every file sees the event to place postponed context
// switches. When the decoder must switch images it returns the new image
// (else nil). Problems with the sideband are printed as error lines, not
// returned.
func (s *Session) Event(w *bufio.Writer, ev *Event) Image {
	var img Image
	for len(s.decoders) > 0 && ev.TSC >= s.decoders[0].tsc {
		d := s.decoders[0]
		s.decoders = s.decoders[1:]
		if s.flags != 0 {
			s.print(w, d.pev)
		}
		if !s.apply(w, d, ev, &img) {
			continue
		}
		t, err := d.pev.Fetch()
		d.pending = err == nil
		if err != nil {
			if errors.Is(err, ErrEOS) {
				s.retired = append(s.retired, d)
			} else {
				s.printError(w, d.pev, err)
			}
			continue
		}
		d.tsc = t
		s.insert(d)
	}
	s.decoders = s.present(w, s.decoders, ev, &img)
	s.retired = s.present(w, s.retired, ev, &img)
	return img
}

// present shows ev to each decoder of list, dropping those that are done.
func (s *Session) present(w *bufio.Writer, list []*decoder, ev *Event, img *Image) []*decoder {
	kept := list[:0]
	for _, d := range list {
		if s.apply(w, d, ev, img) {
			kept = append(kept, d)
		}
	}
	return kept
}

// apply is the pevent decoder's apply callback; false drops the decoder.
func (s *Session) apply(w *bufio.Writer, d *decoder, ev *Event, img *Image) bool {
	p := d.pev
	r := &p.rec
	if d.pending && (r.Sample.Has&HasTime == 0 || r.Sample.TSC <= ev.TSC) {
		if err := s.applyRecord(w, d, img); err != nil {
			s.report(w, p, err)
		}
		return true
	}
	old := d.loc
	d.loc = s.locate(d, ev)
	if d.next == nil {
		return d.pending // the end once the last record and switch are done
	}
	if isKernelish(old) || isKernelish(d.loc) {
		s.switchContexts(w, d, img)
	}
	return true
}

func isKernelish(l location) bool {
	return l == locInKernel || l == locLikelyInKernel || l == locUnknown
}

func (d *decoder) fromIP(ip uint64) location {
	if ip < d.pev.Config.KernelStart {
		return locInUser
	}
	return locInKernel
}

func opposite(l location) location {
	switch l {
	case locInKernel, locLikelyInKernel:
		return locLikelyInUser
	case locInUser, locLikelyInUser:
		return locLikelyInKernel
	}
	return locUnknown
}

// locate is libipt's ploc_from_event.
func (s *Session) locate(d *decoder, ev *Event) location {
	switch ev.Loc {
	case LocIP:
		if !ev.IPSuppressed {
			return d.fromIP(ev.IP)
		}
	case LocDisabled:
		if !ev.IPSuppressed {
			return d.fromIP(ev.IP)
		}
		return opposite(d.loc)
	case LocAsyncDisabled:
		if !ev.IPSuppressed {
			return d.fromIP(ev.IP)
		}
		return opposite(d.fromIP(ev.At))
	case LocAsyncPaging:
		if !ev.IPSuppressed {
			return d.fromIP(ev.IP)
		}
		return locLikelyInKernel
	case LocPaging:
		return locLikelyInKernel
	}
	return locUnknown
}

// switchContexts installs the pending context.
func (s *Session) switchContexts(w *bufio.Writer, d *decoder, img *Image) {
	c := d.next
	if s.onSwitch != nil {
		s.onSwitch(w, c)
	}
	*img = c.Image
	d.next, d.context = nil, c
}

// prepareSwitch makes c the pending context of d, unless it is current.
func (s *Session) prepareSwitch(d *decoder, c *Context) {
	if d.next == c {
		return
	}
	d.next = nil
	if d.context != c {
		d.next = c
	}
}

// applyRecord applies the current record of d (libipt's
// pt_sb_pevent_apply_event_record). Only a primary file switches contexts
// and reports lost trace.
func (s *Session) applyRecord(w *bufio.Writer, d *decoder, img *Image) error {
	if s.newImage == nil {
		return nil
	}
	r := &d.pev.rec
	primary := d.pev.Config.Primary
	switch r.Type {
	case RecordItraceStart:
		if !primary {
			return nil
		}
		s.prepareSwitch(d, s.contextByPID(r.PID, true))
		if d.next != nil {
			s.switchContexts(w, d, img)
		}
	case RecordFork:
		if r.PPID == r.PID {
			return nil
		}
		if r.PID != r.TID {
			return ErrInternal
		}
		s.removeContext(r.PID)
		c := s.contextByPID(r.PID, true)
		if parent := s.contextByPID(r.PPID, false); parent != nil {
			return c.Image.CopyFrom(parent.Image)
		}
	case RecordComm:
		if r.Misc&MiscCommExec == 0 {
			return nil
		}
		s.removeContext(r.PID)
		c := s.contextByPID(r.PID, true)
		if primary {
			s.prepareSwitch(d, c)
		}
	case RecordSwitch:
		if !primary || r.Misc&MiscSwitchOut != 0 {
			return nil
		}
		if r.Sample.Has&HasTID == 0 {
			return ErrBadConfig
		}
		s.prepareSwitch(d, s.contextByPID(r.Sample.PID, true))
	case RecordSwitchCPUWide:
		if !primary {
			return nil
		}
		if r.Misc&MiscSwitchOut == 0 {
			if r.Sample.Has&HasTID == 0 {
				return nil
			}
			s.prepareSwitch(d, s.contextByPID(r.Sample.PID, true))
			return nil
		}
		s.prepareSwitch(d, s.contextByPID(r.PID, true))
	case RecordMmap, RecordMmap2:
		const cpuModeMask, cpuModeKernel = 7, 1
		if r.Misc&cpuModeMask == cpuModeKernel {
			return nil
		}
		return s.mmap(d, r)
	case RecordLost:
		return WarnLost
	case RecordAux:
		if primary && r.AuxFlags&AuxTruncated != 0 {
			return WarnTraceLost
		}
	}
	return nil
}

// mmap maps a file into the process's image (libipt's pt_sb_pevent_map).
func (s *Session) mmap(d *decoder, r *Record) error {
	c := s.contextByPID(r.PID, true)
	name := r.Filename
	cfg := &d.pev.Config
	switch {
	case strings.HasPrefix(name, "["):
		if name != "[vdso]" {
			return WarnSectionLost
		}
		switch c.abi {
		case abiX64:
			name = cfg.VDSOx64
		case abiX32:
			name = cfg.VDSOx32
		case abiIA32:
			name = cfg.VDSOia32
		default:
			name = ""
		}
		if name == "" {
			return ErrBadConfig
		}
	case name == "//anon", strings.Contains(name, " (deleted)"):
		return WarnSectionLost
	case cfg.Sysroot != "":
		name = cfg.Sysroot + name
	}
	if c.abi == abiUnknown {
		c.abi = elfABI(name)
	}
	return c.Image.AddFile(name, r.PgOff, r.Len, r.Addr)
}

// elfABI tells the ABI from the ELF header of the file at path.
func elfABI(path string) uint8 {
	f, err := os.Open(path)
	if err != nil {
		return abiUnknown
	}
	defer f.Close()
	var h [20]byte
	if _, err := f.ReadAt(h[:], 0); err != nil {
		return abiUnknown
	}
	if string(h[:4]) != "\x7fELF" || h[6] != 1 {
		return abiUnknown
	}
	switch h[4] {
	case 2:
		return abiX64
	case 1:
		switch uint16(h[18]) | uint16(h[19])<<8 {
		case 3:
			return abiIA32
		case 62:
			return abiX32
		}
	}
	return abiUnknown
}
