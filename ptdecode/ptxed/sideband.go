package ptxed

import (
	"bufio"

	"github.com/perfpt/perfpt/ptdecode/image"
	"github.com/perfpt/perfpt/ptdecode/query"
	"github.com/perfpt/perfpt/ptdecode/sideband"
)

// sbImage adapts an image.Image to the sideband session's process images.
type sbImage struct {
	img   *image.Image
	cache *image.Cache
}

func (s *sbImage) AddFile(path string, offset, size, vaddr uint64) error {
	return s.img.AddFile(s.cache, path, offset, size, vaddr)
}

func (s *sbImage) CopyFrom(src sideband.Image) error {
	for _, m := range src.(*sbImage).img.Mappings() {
		if err := s.img.Add(m.Sec, m.Offset, m.End-m.Start, m.Start); err != nil {
			return err
		}
	}
	return nil
}

// newSession sets up the perf_event sideband session of the options, or
// returns nil if there is none. Process images start with the --pevent:kcore
// kernel.
func newSession(o *Options, p *printer, cache *image.Cache) (*sideband.Session, error) {
	if len(o.Pevents) == 0 {
		return nil, nil
	}
	kernel := image.New("kernel")
	for _, k := range o.Kcore {
		if _, err := kernel.AddELF(cache, k.File.Name, k.Base, k.HasBase); err != nil {
			return nil, err
		}
	}
	s := sideband.NewSession()
	for _, c := range o.Pevents {
		if err := s.AddPevent(c); err != nil {
			return nil, err
		}
	}
	s.SetDumpFlags(o.SBFlags)
	s.SetWarnings(o.SBWarn)
	s.SetSeverity(true)
	s.SetImages(func(name string) sideband.Image {
		img := kernel.Clone()
		img.Name = name
		return &sbImage{img: img, cache: cache}
	})
	if o.SBSwitch {
		s.NotifySwitch(func(w *bufio.Writer, c *sideband.Context) {
			w.WriteString("[context: " + c.Name + "]\n")
		})
	}
	s.Init(p.w)
	return s, nil
}

// sbEvent tells the sideband session about a trace event (libipt's
// ptxed_sb_event) and returns the image to switch to, or nil.
func sbEvent(s *sideband.Session, p *printer, ev *query.Event) *image.Image {
	e := sideband.Event{TSC: ev.TSC, IP: ev.IP, IPSuppressed: ev.IPSuppressed, At: ev.From}
	switch ev.Type {
	case query.EventEnabled, query.EventAsyncBranch, query.EventTIP, query.EventOverflow,
		query.EventExecMode, query.EventTSX, query.EventExstop, query.EventMwait, query.EventPtwrite,
		query.EventTick, query.EventIFlags, query.EventInterrupt, query.EventIret, query.EventSMI,
		query.EventRSM, query.EventInit, query.EventVMEntry, query.EventVMExit, query.EventShutdown,
		query.EventUintr, query.EventUiret:
		e.Loc = sideband.LocIP
	case query.EventDisabled:
		e.Loc = sideband.LocDisabled
	case query.EventAsyncDisabled:
		e.Loc = sideband.LocAsyncDisabled
	case query.EventPaging:
		e.Loc = sideband.LocPaging
	case query.EventAsyncPaging:
		e.Loc = sideband.LocAsyncPaging
	}
	if img := s.Event(p.w, &e); img != nil {
		return img.(*sbImage).img
	}
	return nil
}
