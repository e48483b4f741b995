package perfdata

import (
	"io"
	"iter"

	"github.com/klauspost/compress/zstd"
)

// maxDecompressed caps the bytes one COMPRESSED record may expand to
// (perf's decomp buffer is comp_mmap_len, the ring buffer size: a few MB).
const maxDecompressed = 64 << 20

// decompressor decodes the zstd stream that `perf record -z` splits over
// COMPRESSED records. perf compresses with one ZSTD_CStream and flushes it
// at the end of each record, so the records are consecutive pieces of one
// zstd frame: they must be fed, in order, to one streaming decoder, and
// each piece yields exactly the blocks flushed into it. The decoder runs
// as a coroutine (iter.Pull) that asks for the next piece when it needs
// input; everything it produced before asking belongs to the current one.
type decompressor struct {
	in     []byte // rest of the current piece
	next   func() ([]byte, bool)
	stop   func()
	err    error
	closed bool
}

// chunk is what the decoding coroutine yields: output, a request for the
// next piece, or an error.
type chunk struct {
	b         []byte
	needInput bool
	err       error
}

func newDecompressor() *decompressor {
	d := &decompressor{}
	seq := func(yield func(chunk) bool) {
		feeder := &feedReader{d: d, yield: yield}
		dec, err := zstd.NewReader(feeder, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxDecompressed), zstd.WithDecoderMaxWindow(64<<20), zstd.WithDecoderLowmem(true))
		if err != nil {
			yield(chunk{err: err})
			return
		}
		defer dec.Close()
		buf := make([]byte, 64<<10)
		for {
			n, err := dec.Read(buf)
			if n > 0 {
				if !yield(chunk{b: buf[:n]}) {
					return
				}
			}
			if err != nil {
				if feeder.stopped {
					return
				}
				if err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				yield(chunk{err: err})
				return
			}
		}
	}
	next, stop := iter.Pull2(func(yield func([]byte, bool) bool) {
		seq(func(c chunk) bool {
			if c.err != nil {
				d.err = c.err
				return yield(nil, false)
			}
			return yield(c.b, c.needInput)
		})
	})
	d.next = func() ([]byte, bool) {
		b, needInput, ok := next()
		if !ok {
			return nil, true
		}
		return b, needInput
	}
	d.stop = stop
	return d
}

// feedReader hands the decoder the current piece and, when it is used up,
// tells the consumer through yield and waits for the next one.
type feedReader struct {
	d       *decompressor
	yield   func(chunk) bool
	stopped bool
}

func (r *feedReader) Read(p []byte) (int, error) {
	for len(r.d.in) == 0 {
		if r.stopped || !r.yield(chunk{needInput: true}) {
			r.stopped = true
			return 0, io.EOF
		}
	}
	n := copy(p, r.d.in)
	r.d.in = r.d.in[n:]
	return n, nil
}

// decompress appends to dst what piece decodes to.
func (d *decompressor) decompress(dst, piece []byte) ([]byte, error) {
	if d.err != nil {
		return dst, d.err
	}
	d.in = piece
	start := len(dst)
	for {
		b, needInput := d.next()
		if d.err != nil {
			return dst, d.err
		}
		if needInput {
			if len(d.in) != 0 {
				continue
			}
			return dst, nil
		}
		if b == nil {
			return dst, io.ErrUnexpectedEOF
		}
		if len(dst)-start+len(b) > maxDecompressed {
			d.err = ErrBadSize
			return dst, d.err
		}
		dst = append(dst, b...)
	}
}

func (d *decompressor) close() {
	if d != nil && d.stop != nil && !d.closed {
		d.closed = true
		d.stop()
	}
}
