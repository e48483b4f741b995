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
// in it is read after the header file's data section, in the order the
// directory lists them (readdir's, which perf keeps: Readdirnames, not
// sorted). perf takes 2 MB of records from each in turn
// (__perf_session__process_dir_events), perfpt each whole, one after the
// other: the same while every file holds less than 2 MB. Every record
// goes through the time-order queue and --threads writes no
// FINISHED_ROUND, so that the order shows only in records of one
// timestamp and where records are taken unordered (--show-round-events;
// there files of 2 MB or more come in another order than perf's).
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

// nextDirFile moves the reader to the next data.N file once the one
// before is read; false when there is none left.
func (rr *rawReader) nextDirFile() bool {
	if rr.seg >= len(rr.f.dirFiles) {
		return false
	}
	d := rr.f.dirFiles[rr.seg]
	rr.seg++
	rr.mem, rr.dropMem = nil, false
	rr.r = io.NewSectionReader(d.fh, 0, d.size)
	rr.bs, rr.be = 0, 0
	rr.off, rr.limit = 0, d.size
	rr.eof = false
	return true
}

// SourcePath returns the path of a record's file (RecordCommon.Source):
// Path for 0, DIR/data.N for a perf.data directory's per-thread files.
func (f *File) SourcePath(source int) string {
	if source > 0 && source <= len(f.dirFiles) {
		return f.dirFiles[source-1].path
	}
	return f.path
}
