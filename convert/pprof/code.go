package pprof

import (
	"debug/elf"
	"os"
)

// codeReader reads instruction bytes of mapped files, for splitting blocks
// into instructions. Only the pages of executed code are read (a
// conversion touches a few hundred KB of code, not the whole text of
// libc), each once.
type codeReader struct {
	files map[string]*codeFile
	buf   []byte
}

type codeFile struct {
	f     *os.File
	segs  []segRange // executable PT_LOAD segments, as file ranges
	pages map[uint64]*[pageSize]byte
}

type segRange struct{ off, end uint64 }

const pageSize = 4096

func newCodeReader() *codeReader {
	return &codeReader{files: map[string]*codeFile{}}
}

// read returns up to n bytes of path's loaded code at file offset off, at
// least need of them, or nil. The bytes are valid until the next read.
func (c *codeReader) read(path string, off uint64, need, n int) []byte {
	cf, ok := c.files[path]
	if !ok {
		cf = openCode(path)
		c.files[path] = cf
	}
	if cf == nil {
		return nil
	}
	for _, s := range cf.segs {
		if off < s.off || off+uint64(need) > s.end {
			continue
		}
		end := min(off+uint64(n), s.end)
		if off/pageSize == (end-1)/pageSize {
			p := cf.page(off / pageSize)
			if p == nil {
				return nil
			}
			return p[off%pageSize : off%pageSize+(end-off)]
		}
		c.buf = c.buf[:0]
		for at := off; at < end; {
			p := cf.page(at / pageSize)
			if p == nil {
				return nil
			}
			stop := min(end, (at/pageSize+1)*pageSize)
			c.buf = append(c.buf, p[at%pageSize:at%pageSize+(stop-at)]...)
			at = stop
		}
		return c.buf
	}
	return nil
}

func openCode(path string) *codeFile {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	ef, err := elf.NewFile(f)
	if err != nil {
		f.Close()
		return nil
	}
	cf := &codeFile{f: f, pages: map[uint64]*[pageSize]byte{}}
	for _, p := range ef.Progs {
		if p.Type == elf.PT_LOAD && p.Flags&elf.PF_X != 0 && p.Off+p.Filesz >= p.Off {
			cf.segs = append(cf.segs, segRange{p.Off, p.Off + p.Filesz})
		}
	}
	return cf
}

// page returns page i of the file, reading it on first use; nil when it
// cannot be read. The last page may be short: its tail is zeros, outside
// every segment.
func (cf *codeFile) page(i uint64) *[pageSize]byte {
	if p, ok := cf.pages[i]; ok {
		return p
	}
	p := new([pageSize]byte)
	if n, _ := cf.f.ReadAt(p[:], int64(i*pageSize)); n == 0 {
		p = nil
	}
	cf.pages[i] = p
	return p
}

func (c *codeReader) close() {
	for _, cf := range c.files {
		if cf != nil {
			cf.f.Close()
		}
	}
	clear(c.files)
}
