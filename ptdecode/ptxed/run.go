package ptxed

import (
	"bufio"
	"bytes"
	"debug/elf"
	"fmt"
	"io"
	"sync"

	"github.com/perfpt/perfpt/ptdecode/flow"
	"github.com/perfpt/perfpt/ptdecode/image"
	"github.com/perfpt/perfpt/ptdecode/ptdump"
)

// loadFile reads size bytes (0: to the end) from offset of a file, with
// libipt's load_file errors (ptdump.LoadRange). Large files are mapped
// rather than read: no copy before decoding starts, and the pages are
// read in by the decode (by its workers with -j). release unmaps the
// file; the data must not be used after it.
func loadFile(f fileArg) (data []byte, release func(), err error) {
	end := uint64(0)
	if f.Size != 0 {
		end = f.Offset + f.Size
	}
	if data, release, err = ptdump.LoadRange(f.Name, f.Offset, end); err != nil {
		return nil, nil, fmt.Errorf("%w.", err)
	}
	return data, release, nil
}

// BuildImage loads the --raw and --elf arguments into an image.
func BuildImage(o *Options, cache *image.Cache) (*image.Image, error) {
	img := image.New("ptxed")
	for _, a := range o.Images {
		if a.ELF {
			if _, err := img.AddELF(cache, a.File.Name, a.Base, a.HasBase); err != nil {
				return nil, err
			}
			continue
		}
		if err := img.AddFile(cache, a.File.Name, a.File.Offset, a.File.Size, a.Base); err != nil {
			return nil, fmt.Errorf("failed to load %s: %w", a.File.Name, err)
		}
	}
	return img, nil
}

// Run decodes as the options say and writes ptxed's output to w.
func Run(o *Options, w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	defer bw.Flush()
	e, badCPU, err := o.cpuErrata()
	if err != nil {
		return err
	}
	if badCPU {
		bw.WriteString("[0, 0: config error: unknown cpu]\n")
	}
	o.Flow.Query.Errata = e
	listLoads(bw, o.loads)
	cache := image.NewCache()
	cache.Limited, cache.Limit = o.IscacheLimited, o.IscacheLimit
	img, err := BuildImage(o, cache)
	if err != nil {
		return err
	}
	trace, release, err := loadFile(o.PT)
	if err != nil {
		return err
	}
	defer release()
	p := &printer{w: bw, o: o}
	if p.sb, err = newSession(o, p, cache); err != nil {
		return err
	}
	wopt := flow.WalkOptions{ResyncOnError: o.ResyncOnError}
	if o.InsnDecoder {
		d := flow.NewInsnDecoder(trace, img, &o.Flow)
		p.img = d.Blocks().Image
		p.setImage = d.Blocks().SetImage
		flow.WalkInsns(d, wopt, p)
	} else if o.Jobs > 1 && p.sb == nil && !o.ShowBlocks && !o.StatBlocks {
		// (Block boundaries, when shown or counted, are libipt's: they
		// depend on its block cache, so on the order of decoding.)
		p.img = func() *image.Image { return img }
		walkChunks(trace, img, o, wopt, p)
	} else {
		cfg := o.Flow
		cfg.ColdBlocks = true
		d := flow.NewBlockDecoder(trace, img, &cfg)
		p.img = d.Image
		p.setImage = d.SetImage
		flow.WalkBlocks(d, wopt, p)
	}
	p.stats()
	return nil
}

// Main runs ptxed with args (without the program name) and returns the
// exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	for _, a := range args {
		if a == "--help" || a == "-h" {
			io.WriteString(stdout, Usage)
			return 0
		}
	}
	o, err := Parse(args)
	if err != nil {
		fmt.Fprintf(stderr, "ptxed: %v\n", err)
		return 1
	}
	if err := Run(o, stdout); err != nil {
		fmt.Fprintf(stderr, "ptxed: %v\n", err)
		return 1
	}
	return 0
}

// walkChunks prints the chunks of a parallel decode on the workers, each
// into its own buffer, and writes the buffers in order.
func walkChunks(trace []byte, img *image.Image, o *Options, wopt flow.WalkOptions, p *printer) {
	imgf := func() *image.Image { return img }
	// Chunk printers (with their buffers) are reused: there are many
	// chunks, and few in use at once.
	pool := sync.Pool{New: func() any {
		buf := new(bytes.Buffer)
		return &printer{w: bufio.NewWriterSize(buf, 64<<10), o: o, img: imgf, out: buf}
	}}
	flow.WalkChunks(trace, img, &o.Flow, wopt, o.Jobs, func(int) flow.Handler {
		cp := pool.Get().(*printer)
		cp.out.Reset()
		cp.w.Reset(cp.out)
		cp.insns, cp.blocks, cp.time = 0, 0, 0
		return cp
	}, func(_ int, h flow.Handler) {
		cp := h.(*printer)
		cp.w.Flush()
		p.w.Write(cp.out.Bytes())
		p.insns += cp.insns
		p.blocks += cp.blocks
		pool.Put(cp)
	}, p)
}

// listLoads prints the load segments of the ELF files loaded with --verbose
// in effect, as libipt's load_elf does when it tracks the image:
// "<file>: offset=0x.. size=0x.. vaddr=0x..". per PT_LOAD segment with bytes.
// A file that cannot be read is reported when it is loaded.
func listLoads(w io.Writer, loads []imageArg) {
	for _, a := range loads {
		if !a.Verbose {
			continue
		}
		f, err := elf.Open(a.File.Name)
		if err != nil {
			continue
		}
		var bias uint64
		if a.HasBase {
			low := ^uint64(0)
			for _, ph := range f.Progs {
				if ph.Type == elf.PT_LOAD && ph.Filesz != 0 {
					low = min(low, ph.Vaddr)
				}
			}
			bias = a.Base - low
		}
		for _, ph := range f.Progs {
			if ph.Type != elf.PT_LOAD || ph.Filesz == 0 {
				continue
			}
			fmt.Fprintf(w, "%s: offset=0x%x size=0x%x vaddr=0x%x.\n", a.File.Name, ph.Off, ph.Filesz, ph.Vaddr+bias)
		}
		f.Close()
	}
}
