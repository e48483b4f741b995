package perfdata

import (
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
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
// in it is read after the header file's data section. perf takes them in
// readdir's order and reads each in turn (up to 2 MB at a time,
// __perf_session__process_dir_events), queueing every record for its
// time order; --threads writes no FINISHED_ROUND, so the order of the
// files only matters to records of one timestamp: they are taken here by
// their numbers.
func (f *File) openDirFiles() error {
	if f.Dir == "" {
		return nil
	}
	fs, err := f.Features()
	if err != nil || !fs.Has(FeatDirFormat) {
		return nil
	}
	ents, err := os.ReadDir(f.Dir)
	if err != nil {
		return err
	}
	var files []dirFile
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), "data.") {
			continue
		}
		path := filepath.Join(f.Dir, e.Name())
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
	num := func(name string) (int, bool) {
		n, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(name), "data."))
		return n, err == nil
	}
	sort.SliceStable(files, func(i, j int) bool {
		a, aok := num(files[i].path)
		b, bok := num(files[j].path)
		if aok != bok {
			return aok
		}
		if aok && a != b {
			return a < b
		}
		return files[i].path < files[j].path
	})
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
