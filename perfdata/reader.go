package perfdata

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// maxAuxChunk is the most read at once while filling a big AUXTRACE
// payload from a stream, so a bad size costs no more memory than the input
// actually holds.
const maxAuxChunk = 4 << 20

// rawReader yields the records of the data section (or pipe stream) in
// file order, unpacking COMPRESSED records.
type rawReader struct {
	f *File
	readPos

	// pins, where records are queued as slices of the mapping, says
	// from where the mapping must stay (orderedQueue.pinnedFrom).
	pins *orderedQueue

	// ownAux allocates a new AuxData per record instead of reusing auxBuf.
	ownAux bool
	// lazyAux skips AUXTRACE data instead of reading it (seekable
	// streams only).
	lazyAux bool
	auxBuf  []byte

	// compressed counts the COMPRESSED records unpacked.
	compressed int
	hdrCopy    []byte

	// seg is the file being read: 0 for the opened one, N for
	// File.dirFiles[N-1] (RecordCommon.Source).
	seg int
	// A perf.data directory's files, read in turns (dirdata.go): the
	// positions of the files not being read (segs[seg] is stale while
	// readPos holds it), the files read to their end, and the bytes of
	// records read in the current turn.
	segs []readPos
	done []bool
	turn int
}

// readPos is where a rawReader is in one file: its data section, or a
// perf.data directory's data.N file.
type readPos struct {
	// Memory mode: the data section, as far as the file holds it.
	mem     []byte
	memBase int64
	pos     int
	// memLen is the data section's size; readable, where its bytes can
	// be read (File.readable): past len(mem) they are zeros.
	memLen, readable int
	// dropMem: mem is a file mapping whose pages the reader gives back
	// (dropMapped) every dropStep bytes, up to dropped, so that a pass
	// over a big file leaves no more of it resident than the records
	// kept since (reading a header maps up to 64 KiB around it).
	dropMem bool
	dropped int
	// nextDrop is where the reader next tries to give pages back.
	nextDrop int

	// Stream mode (ReaderAt section or pipe).
	r      io.Reader
	buf    []byte
	bs, be int   // valid bytes are buf[bs:be]
	off    int64 // file offset of buf[bs]
	limit  int64 // end offset of the data, -1 for none
	eof    bool

	// Records unpacked from COMPRESSED records, and their zstd stream:
	// perf record --threads -z compresses each data.N file's records as
	// a stream of its own, and perf keeps one per reader too (struct
	// reader's zstd_data and decomp_data).
	decomp  *decompressor
	dbuf    []byte
	dpos    int
	doff    int64
	dnext   []byte // spare buffer
	dactive bool
}

func (f *File) newRawReader() (*rawReader, error) {
	if f.closer == nil && f.mem == nil && f.ra == nil && f.pipe == nil {
		return nil, ErrClosed
	}
	rr := &rawReader{f: f, readPos: readPos{limit: -1}}
	switch {
	case f.Pipe:
		if f.used {
			return nil, fmt.Errorf("perfdata: a pipe-mode stream can be iterated once")
		}
		f.used = true
		rr.r = f.pipe
		rr.off = f.pipeOff
	case f.mem != nil:
		start := min(f.Data.Offset, int64(len(f.mem)))
		rr.mem = f.mem[start:min(f.Data.Offset+f.Data.Size, int64(len(f.mem)))]
		rr.memBase = f.Data.Offset
		rr.dropMem = f.mapped
		rr.memLen = int(f.Data.Size)
		rr.readable = int(max(f.readable()-f.Data.Offset, 0))
	default:
		rr.r = io.NewSectionReader(f.ra, f.Data.Offset, f.Data.Size)
		if f.size >= 0 && f.size < f.Data.Offset+f.Data.Size {
			// Zeros after the end of the file, to the page's end.
			real := max(f.size-f.Data.Offset, 0)
			rr.r = io.MultiReader(io.NewSectionReader(f.ra, f.Data.Offset, real),
				io.LimitReader(zeros{}, max(f.readable()-f.Data.Offset-real, 0)))
		}
		rr.off = f.Data.Offset
		rr.limit = f.Data.Offset + f.Data.Size
	}
	rr.addDirFiles()
	return rr, nil
}

func (rr *rawReader) close() {
	rr.decomp.close()
	for i := range rr.segs {
		rr.segs[i].decomp.close()
	}
}

// next reads the next record into raw; io.EOF at the end. An error in
// a perf.data directory's data.N file names it (Error.File).
func (rr *rawReader) next(raw *RawRecord) (err error) {
	defer func() {
		var pe *Error
		if err != nil && rr.seg > 0 && errors.As(err, &pe) && pe.File == "" {
			pe.File = rr.f.SourcePath(rr.seg)
		}
	}()
	raw.Source = rr.seg
	for {
		if rr.dactive {
			ok, err := rr.nextDecomp(raw)
			if err != nil || ok {
				raw.Source = rr.seg
				return err
			}
		}
		if rr.turn >= dirTurnBytes {
			rr.nextTurn()
		}
		var err error
		if rr.mem != nil || rr.r == nil {
			err = rr.nextMem(raw)
		} else {
			err = rr.nextStream(raw)
		}
		if err == io.EOF && rr.segs != nil {
			if err := rr.checkEnd(); err != nil {
				return err
			}
			if rr.endOfFile() {
				continue
			}
		}
		if err != nil {
			return err
		}
		raw.Source = rr.seg
		if rr.segs != nil {
			n, _ := payloadSize(raw)
			rr.turn += raw.Size + int(n)
		}
		if raw.Type != RecordTypeCompressed && raw.Type != RecordTypeCompressed2 {
			return nil
		}
		rr.compressed++
		if err := rr.unpack(raw); err != nil {
			return err
		}
	}
}

// payloadSize returns the size of the data following the record (AUXTRACE
// data, tracing data).
func payloadSize(raw *RawRecord) (uint64, bool) {
	switch raw.Type {
	case RecordTypeAuxtrace:
		if len(raw.Data) < 16 {
			return 0, false
		}
		return le64(raw.Data[8:]), true
	case RecordTypeHeaderTracing:
		if len(raw.Data) < 12 {
			return 0, false
		}
		n := uint64(le32(raw.Data[8:]))
		return (n + 7) &^ 7, true
	}
	return 0, true
}

func header(raw *RawRecord, b []byte, off int64) {
	raw.Offset = off
	raw.Type = RecordType(binary.LittleEndian.Uint32(b))
	raw.Misc = binary.LittleEndian.Uint16(b[4:])
	raw.Size = int(binary.LittleEndian.Uint16(b[6:]))
	raw.Compressed = false
	raw.AuxData = nil
}

// dropStep is how far a reader of a mapped file reads between two calls
// of dropMapped.
const dropStep = 1 << 20

func (rr *rawReader) nextMem(raw *RawRecord) error {
	if rr.dropMem && rr.pos >= rr.nextDrop && rr.pos <= len(rr.mem) {
		// The records before this one have been returned, or are
		// queued and pinned; slices of them stay valid (the pages come
		// back from the page cache if read).
		limit := rr.pos
		if rr.pins != nil {
			if from, ok := rr.pins.pinnedFrom(); ok {
				limit = min(limit, from)
			}
		}
		if limit-rr.dropped >= dropStep {
			dropMapped(rr.mem[rr.dropped:limit])
			rr.dropped = limit
		}
		rr.nextDrop = max(rr.dropped+dropStep, rr.pos+dropStep/8)
	}
	left := rr.memLen - rr.pos
	off := rr.memBase + int64(rr.pos)
	if left <= 0 {
		return io.EOF
	}
	if left < 8 {
		return errAt(off, "record header", ErrTruncated)
	}
	hdr, err := rr.memBytes(rr.pos, 8)
	if err != nil {
		return err
	}
	header(raw, hdr, off)
	if raw.Size < 8 {
		return headerSizeError(off, raw)
	}
	if raw.Size > left {
		return errAt(off, fmt.Sprintf("%v of size %d with %d bytes left in the data section", raw.Type, raw.Size, left), ErrTruncated)
	}
	if raw.Data, err = rr.memBytes(rr.pos, raw.Size); err != nil {
		return err
	}
	n, ok := payloadSize(raw)
	if !ok {
		return errAt(off, raw.Type.String()+" (record too small)", ErrBadSize)
	}
	if n > uint64(left-raw.Size) {
		return errAt(off+int64(raw.Size), fmt.Sprintf("%v data of %d bytes with %d bytes left in the data section", raw.Type, n, left-raw.Size), ErrTruncated)
	}
	if raw.Type == RecordTypeAuxtrace || raw.Type == RecordTypeHeaderTracing {
		if raw.AuxData, err = rr.memBytes(rr.pos+raw.Size, int(n)); err != nil {
			return err
		}
	}
	rr.pos += raw.Size + int(n)
	return nil
}

// memBytes returns the n bytes of the data section at pos: a slice of
// the file, or, where the file ends before them, a copy with the zeros
// perf reads there. Bytes past the readable end are an error (perf dies
// of SIGBUS reading them).
func (rr *rawReader) memBytes(pos, n int) ([]byte, error) {
	if pos+n <= len(rr.mem) {
		return rr.mem[pos : pos+n], nil
	}
	if pos+n > rr.readable {
		end := rr.memBase + int64(len(rr.mem))
		return nil, errAt(rr.memBase+int64(pos), fmt.Sprintf("record cut short by the end of the file at %#x (perf dies of SIGBUS reading past the page it ends in)", end), ErrTruncated)
	}
	b := make([]byte, n)
	if pos < len(rr.mem) {
		copy(b, rr.mem[pos:])
	}
	return b, nil
}

// zeros reads as an endless run of zero bytes.
type zeros struct{}

func (zeros) Read(b []byte) (int, error) {
	clear(b)
	return len(b), nil
}

// fill makes at least n bytes available in buf[bs:be]; it returns false at
// the end of input.
func (rr *rawReader) fill(n int) (bool, error) {
	for rr.be-rr.bs < n {
		if rr.eof {
			return false, nil
		}
		if rr.bs > 0 && (len(rr.buf)-rr.bs < n || rr.be == len(rr.buf)) {
			copy(rr.buf, rr.buf[rr.bs:rr.be])
			rr.be -= rr.bs
			rr.bs = 0
		}
		if len(rr.buf) < n || rr.be == len(rr.buf) {
			nb := make([]byte, max(2*len(rr.buf), n, 64<<10))
			copy(nb, rr.buf[rr.bs:rr.be])
			rr.be -= rr.bs
			rr.bs = 0
			rr.buf = nb
		}
		m, err := rr.r.Read(rr.buf[rr.be:])
		rr.be += m
		if err == io.EOF {
			rr.eof = true
		} else if err != nil {
			return false, errAt(rr.off+int64(rr.be-rr.bs), "read", err)
		}
	}
	return true, nil
}

func (rr *rawReader) consume(n int) {
	rr.bs += n
	rr.off += int64(n)
}

func (rr *rawReader) nextStream(raw *RawRecord) error {
	ok, err := rr.fill(8)
	if err != nil {
		return err
	}
	if !ok {
		if rr.be == rr.bs {
			return io.EOF
		}
		return errAt(rr.off, "record header", ErrTruncated)
	}
	off := rr.off
	header(raw, rr.buf[rr.bs:], off)
	if raw.Size < 8 {
		return headerSizeError(off, raw)
	}
	if ok, err := rr.fill(raw.Size); err != nil {
		return err
	} else if !ok {
		return errAt(off, fmt.Sprintf("%v of size %d with %d bytes left", raw.Type, raw.Size, rr.be-rr.bs), ErrTruncated)
	}
	raw.Data = rr.buf[rr.bs : rr.bs+raw.Size]
	n, ok := payloadSize(raw)
	if !ok {
		return errAt(off, raw.Type.String()+" (record too small)", ErrBadSize)
	}
	if rr.limit >= 0 && n > uint64(rr.limit-off-int64(raw.Size)) {
		return errAt(off+int64(raw.Size), fmt.Sprintf("%v data of %d bytes past the end of the data section", raw.Type, n), ErrTruncated)
	}
	if n == 0 {
		if raw.Type == RecordTypeAuxtrace || raw.Type == RecordTypeHeaderTracing {
			raw.AuxData = []byte{}
		}
		rr.consume(raw.Size)
		return nil
	}
	// Copy the record out: reading the payload may move the buffer.
	if raw.Type == RecordTypeAuxtrace || raw.Type == RecordTypeHeaderTracing {
		hdr := append(rr.hdrCopy[:0], raw.Data...)
		rr.hdrCopy = hdr
		raw.Data = hdr
	}
	rr.consume(raw.Size)
	if sk, ok := rr.r.(io.Seeker); ok && rr.lazyAux && rr.limit >= 0 && raw.Type == RecordTypeAuxtrace {
		avail := uint64(rr.be - rr.bs)
		if n <= avail {
			rr.consume(int(n))
			return nil
		}
		rr.consume(int(avail))
		rest := int64(n - avail)
		if _, err := sk.Seek(rest, io.SeekCurrent); err != nil {
			return errAt(rr.off, "seek past AUXTRACE data", err)
		}
		rr.off += rest
		rr.bs, rr.be = 0, 0
		return nil
	}
	var aux []byte
	if !rr.ownAux {
		aux = rr.auxBuf[:0]
	}
	for uint64(len(aux)) < n {
		want := int(min(n-uint64(len(aux)), maxAuxChunk))
		ok, err := rr.fill(want)
		if err != nil {
			return err
		}
		avail := min(rr.be-rr.bs, want)
		if !ok && avail < want {
			return errAt(rr.off, fmt.Sprintf("%v data of %d bytes with %d bytes left", raw.Type, n, uint64(len(aux))+uint64(rr.be-rr.bs)), ErrTruncated)
		}
		aux = append(aux, rr.buf[rr.bs:rr.bs+avail]...)
		rr.consume(avail)
	}
	if !rr.ownAux {
		rr.auxBuf = aux
	}
	raw.AuxData = aux
	return nil
}

// unpack decompresses a COMPRESSED record's payload and queues its records.
func (rr *rawReader) unpack(raw *RawRecord) error {
	if rr.decomp == nil {
		rr.decomp = newDecompressor()
	}
	payload := raw.Data[8:]
	if raw.Type == RecordTypeCompressed2 {
		if len(payload) < 8 {
			return errAt(raw.Offset, "COMPRESSED2 data_size", ErrTruncated)
		}
		n := le64(payload)
		payload = payload[8:]
		if n > uint64(len(payload)) {
			return errAt(raw.Offset+8, "COMPRESSED2 data_size", ErrBadSize)
		}
		payload = payload[:n]
	}
	// Keep a partial record left from the previous piece (perf's
	// decomp_last_rem).
	rem := rr.dbuf[rr.dpos:]
	nb := append(rr.dnext[:0], rem...)
	rr.dnext = rr.dbuf
	out, err := rr.decomp.decompress(nb, payload)
	rr.dbuf, rr.dpos = out, 0
	if err != nil {
		return errAt(raw.Offset, "COMPRESSED zstd data", err)
	}
	rr.doff = raw.Offset
	rr.dactive = true
	return nil
}

// nextDecomp returns the next complete record of the unpacked data.
func (rr *rawReader) nextDecomp(raw *RawRecord) (bool, error) {
	rest := rr.dbuf[rr.dpos:]
	if len(rest) < 8 {
		rr.dactive = false
		return false, nil
	}
	header(raw, rest, rr.doff)
	raw.Compressed = true
	if raw.Size < 8 {
		return false, errAt(rr.doff, fmt.Sprintf("%v size %d inside COMPRESSED (smaller than its header)", raw.Type, raw.Size), ErrBadSize)
	}
	if raw.Size > len(rest) {
		rr.dactive = false
		return false, nil
	}
	raw.Data = rest[:raw.Size]
	n, ok := payloadSize(raw)
	if !ok {
		return false, errAt(rr.doff, raw.Type.String()+" inside COMPRESSED (record too small)", ErrBadSize)
	}
	if n > uint64(len(rest)-raw.Size) {
		rr.dactive = false
		return false, nil
	}
	if raw.Type == RecordTypeAuxtrace || raw.Type == RecordTypeHeaderTracing {
		raw.AuxData = rest[raw.Size : raw.Size+int(n)]
	}
	rr.dpos += raw.Size + int(n)
	return true, nil
}

// checkEnd reports leftover bytes of an unfinished record in the
// decompressed data at the end of input.
func (rr *rawReader) checkEnd() error {
	if len(rr.dbuf)-rr.dpos > 0 {
		return errAt(rr.doff, fmt.Sprintf("%d bytes of a partial record at the end of the compressed data", len(rr.dbuf)-rr.dpos), ErrTruncated)
	}
	return nil
}
