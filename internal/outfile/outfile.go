// Package outfile writes a large output file (a timeline: hundreds of MB
// to GB) at a low CPU cost to the writer: the bytes are gathered in
// page-aligned blocks of BlockSize, which a goroutine of the file's own
// writes while the caller fills the next (at most Blocks of them in
// memory), and a regular file is written with O_DIRECT where the file
// system allows it: the blocks go to the device from the process's
// memory, without the copy into the page cache that costs the writer
// about as much system time as a fifth of a PT decode of the same
// recording (and fills the cache with data nobody reads back soon). The
// last, partial block is written through the page cache (O_DIRECT wants
// whole blocks), so the file's size is what was written.
package outfile

import (
	"errors"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// BlockSize is the size of the writes (a multiple of any device's block
// size), and Blocks the number of blocks in memory.
const (
	BlockSize = 1 << 20
	Blocks    = 4
)

// File is an output file being written.
type File struct {
	f      *os.File
	direct bool // O_DIRECT is set
	mem    []byte
	cur    []byte // the block being filled
	free   chan []byte
	full   chan []byte
	done   chan struct{}
	closed bool

	mu  sync.Mutex
	err error // the writer goroutine's first error
}

// Create creates (or truncates) the file path for writing.
func Create(path string) (*File, error) {
	fd, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	mem, err := unix.Mmap(-1, 0, Blocks*BlockSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		fd.Close()
		return nil, err
	}
	f := &File{f: fd, mem: mem, free: make(chan []byte, Blocks), full: make(chan []byte, Blocks), done: make(chan struct{})}
	if st, err := fd.Stat(); err == nil && st.Mode().IsRegular() {
		f.direct = setDirect(fd, true) == nil
	}
	for i := 1; i < Blocks; i++ {
		f.free <- mem[i*BlockSize : i*BlockSize : (i+1)*BlockSize]
	}
	f.cur = mem[:0:BlockSize]
	go f.writer()
	return f, nil
}

// Write copies p into the blocks; a full block goes to the writer
// goroutine. The writer's errors are returned by later calls and Close.
func (f *File) Write(p []byte) (int, error) {
	if f.closed {
		return 0, os.ErrClosed
	}
	n := len(p)
	for len(p) > 0 {
		k := copy(f.cur[len(f.cur):cap(f.cur)], p)
		f.cur, p = f.cur[:len(f.cur)+k], p[k:]
		if len(f.cur) == cap(f.cur) {
			f.full <- f.cur
			f.cur = <-f.free
			if err := f.error(); err != nil {
				return n - len(p), err
			}
		}
	}
	return n, nil
}

// Block returns the block being filled, for a writer that fills blocks
// in place (Next) instead of calling Write: it appends to it, up to its
// capacity, and hands it over with Next.
// After Close, its blocks are unmapped: Block and Next return a new
// block, whose bytes go nowhere.
func (f *File) Block() []byte {
	if f.closed {
		return make([]byte, 0, BlockSize)
	}
	return f.cur
}

// Next takes b, the block Block or Next returned, filled, and returns the
// next one to fill: empty but for the bytes of b past its last whole
// page, which go out with the next block (the writes of a file with
// O_DIRECT are of whole pages until Close). A b that grew out of the
// block (append moved it) is copied as Write would.
func (f *File) Next(b []byte) []byte {
	if f.closed {
		return make([]byte, 0, BlockSize)
	}
	if cap(b) != cap(f.cur) || cap(b) == 0 || &b[:1][0] != &f.cur[:1][0] {
		f.cur = f.cur[:0]
		f.Write(b) // (an error comes back from Close)
		return f.cur
	}
	k := len(b) &^ (os.Getpagesize() - 1)
	if k == 0 {
		f.cur = b
		return b
	}
	next := <-f.free
	next = append(next, b[k:]...)
	f.full <- b[:k]
	f.cur = next
	return next
}

func (f *File) error() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// writer writes the blocks in order, the first error ending the writes.
func (f *File) writer() {
	defer close(f.done)
	for b := range f.full {
		if f.error() == nil {
			if err := f.write(b); err != nil {
				f.mu.Lock()
				f.err = err
				f.mu.Unlock()
			}
		}
		f.free <- b[:0]
	}
}

// write writes block b, the last one when it is not full: its part past
// the last whole page through the page cache.
func (f *File) write(b []byte) error {
	if page := os.Getpagesize(); f.direct && len(b)%page != 0 {
		k := len(b) &^ (page - 1)
		if err := f.writeOut(b[:k]); err != nil {
			return err
		}
		b = b[k:]
		if err := f.setDirect(false); err != nil {
			return err
		}
	}
	return f.writeOut(b)
}

func (f *File) writeOut(b []byte) error {
	n, err := f.f.Write(b)
	if err != nil && f.direct && errors.Is(err, unix.EINVAL) {
		// The file system took O_DIRECT but refuses the write: on
		// through the page cache.
		if err := f.setDirect(false); err != nil {
			return err
		}
		_, err = f.f.Write(b[n:])
	}
	return err
}

func (f *File) setDirect(on bool) error {
	if f.direct == on {
		return nil
	}
	err := setDirect(f.f, on)
	if err == nil {
		f.direct = on
	}
	return err
}

// Close writes what is left and closes the file.
func (f *File) Close() error {
	if f.closed {
		return os.ErrClosed
	}
	f.closed = true
	f.full <- f.cur
	close(f.full)
	<-f.done
	err := f.error()
	if e := unix.Munmap(f.mem); err == nil {
		err = e
	}
	if e := f.f.Close(); err == nil {
		err = e
	}
	return err
}

// setDirect sets or clears O_DIRECT on fd.
func setDirect(fd *os.File, on bool) error {
	rc, err := fd.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	err = rc.Control(func(d uintptr) {
		fl, err := unix.FcntlInt(d, unix.F_GETFL, 0)
		if err != nil {
			ferr = err
			return
		}
		if on {
			fl |= unix.O_DIRECT
		} else {
			fl &^= unix.O_DIRECT
		}
		_, ferr = unix.FcntlInt(d, unix.F_SETFL, fl)
	})
	if err != nil {
		return err
	}
	return ferr
}
