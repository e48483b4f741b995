package perfdata

import (
	"io"
	"os"
	"path/filepath"
	"strings"
)

// dirFile is one of the data.N files of a perf.data directory written by
// perf record --threads: records, with no header, from offset 0.
type dirFile struct {
	path string
	fh   *os.File
	size int64
}

// openDirFiles mirrors perf_data__open_dir for a directory whose header
// has HEADER_DIR_FORMAT: every regular file named "data.*" with records
// in it is read with the header file's data section, in the order the
// directory lists them (readdir's, which perf keeps: Readdirnames, not
// sorted), 2 MB of records from each in turn (rawReader.nextTurn). Every
// record goes through the time-order queue and --threads writes no
// FINISHED_ROUND, so that the order shows only in records of one
// timestamp, in dumps and where records are taken unordered
// (--show-round-events).
func (f *File) openDirFiles() error {
	if f.Dir == "" {
		return nil
	}
	fs, err := f.Features()
	if err != nil || !fs.Has(FeatDirFormat) {
		return nil
	}
	dh, err := os.Open(f.Dir)
	if err != nil {
		return err
	}
	names, err := dh.Readdirnames(-1)
	dh.Close()
	if err != nil {
		return err
	}
	var files []dirFile
	for _, name := range names {
		if !strings.HasPrefix(name, "data.") {
			continue
		}
		path := filepath.Join(f.Dir, name)
		st, err := os.Stat(path)
		if err != nil || !st.Mode().IsRegular() || st.Size() == 0 {
			continue
		}
		fh, err := os.Open(path)
		if err != nil {
			for _, d := range files {
				d.fh.Close()
			}
			return err
		}
		files = append(files, dirFile{path: path, fh: fh, size: st.Size()})
	}
	f.dirFiles = files
	return nil
}

// closeDirFiles closes the data.N files.
func (f *File) closeDirFiles() error {
	var first error
	for _, d := range f.dirFiles {
		if err := d.fh.Close(); err != nil && first == nil {
			first = err
		}
	}
	f.dirFiles = nil
	return first
}

// dirTurnBytes is how many bytes of records perf reads from one file of
// a perf.data directory before it turns to the next (READER_MAX_SIZE).
const dirTurnBytes = 2 << 20

// addDirFiles gives the reader a position in each data.N file after its
// own (the data section's), as __perf_session__process_dir_events makes
// a reader for each.
func (rr *rawReader) addDirFiles() {
	if len(rr.f.dirFiles) == 0 {
		return
	}
	rr.segs = make([]readPos, len(rr.f.dirFiles)+1)
	rr.done = make([]bool, len(rr.segs))
	for i, d := range rr.f.dirFiles {
		rr.segs[i+1] = readPos{r: io.NewSectionReader(d.fh, 0, d.size), limit: d.size}
	}
}

// nextTurn moves to the next file not read to its end, after the current
// one, which stays where it is: __perf_session__process_dir_events goes
// round the readers, taking records from each until they make
// READER_MAX_SIZE bytes (a COMPRESSED record counts its own size, and
// the records in it are all taken before the turn passes; an AUXTRACE
// record counts its data) or the file ends. false when every file is
// read.
func (rr *rawReader) nextTurn() bool {
	rr.turn = 0
	for i := 1; i <= len(rr.segs); i++ {
		s := (rr.seg + i) % len(rr.segs)
		if rr.done[s] {
			continue
		}
		if s != rr.seg {
			rr.segs[rr.seg] = rr.readPos
			rr.readPos = rr.segs[s]
			rr.seg = s
		}
		return true
	}
	return false
}

// endOfFile marks the current file read and moves to the next; false
// when none is left.
func (rr *rawReader) endOfFile() bool {
	rr.done[rr.seg] = true
	return rr.nextTurn()
}

// SourcePath returns the path of a record's file (RecordCommon.Source):
// Path for 0, DIR/data.N for a perf.data directory's per-thread files.
func (f *File) SourcePath(source int) string {
	if source > 0 && source <= len(f.dirFiles) {
		return f.dirFiles[source-1].path
	}
	return f.path
}
