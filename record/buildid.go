package record

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/perfpt/perfpt/internal/elfid"
)

// buildID returns the GNU build id of the ELF image in r, or nil.
func buildID(r io.ReaderAt) []byte {
	f, err := elf.NewFile(r)
	if err != nil {
		return nil
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type != elf.PT_NOTE || p.Filesz > 1<<20 {
			continue
		}
		data := make([]byte, p.Filesz)
		if _, err := p.ReadAt(data, 0); err != nil {
			continue
		}
		if id := elfid.NotesBuildID(data, binary.LittleEndian); id != nil {
			return id
		}
	}
	return nil
}

func fileBuildID(path string) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	return buildID(f)
}

// DefaultBuildIDDir returns the build-id cache perf uses: $PERF_BUILDID_DIR,
// else $HOME/.debug.
func DefaultBuildIDDir() string {
	if d := os.Getenv("PERF_BUILDID_DIR"); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".debug")
}

// saveVdso writes the vdso image into the build-id cache dir the way perf
// record does: <dir>/[vdso]/<build id>/vdso, plus the
// <dir>/.build-id/<xx>/<rest> link. It returns the image's path. Other
// processes may read the cache meanwhile (perf script, tests decoding
// other recordings): a file or link already right is left alone, and one
// that changes is replaced by a rename, never truncated or removed first.
func saveVdso(dir string, image, id []byte) (string, error) {
	sid := hex.EncodeToString(id)
	d := filepath.Join(dir, "[vdso]", sid)
	if err := os.MkdirAll(d, 0o755); err != nil {
		return "", err
	}
	p := filepath.Join(d, "vdso")
	if old, err := os.ReadFile(p); err != nil || !bytes.Equal(old, image) {
		f, err := os.CreateTemp(d, ".vdso-*")
		if err != nil {
			return "", err
		}
		_, err = f.Write(image)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Chmod(f.Name(), 0o644)
		}
		if err == nil {
			err = os.Rename(f.Name(), p)
		}
		if err != nil {
			os.Remove(f.Name())
			return "", err
		}
	}
	if len(sid) > 2 {
		ld := filepath.Join(dir, ".build-id", sid[:2])
		if err := os.MkdirAll(ld, 0o755); err == nil {
			link := filepath.Join(ld, sid[2:])
			want := filepath.Join("..", "..", "[vdso]", sid)
			if got, err := os.Readlink(link); err != nil || got != want {
				tmp := link + ".tmp" + strconv.Itoa(os.Getpid())
				os.Remove(tmp)
				if os.Symlink(want, tmp) == nil && os.Rename(tmp, link) != nil {
					os.Remove(tmp)
				}
			}
		}
	}
	return p, nil
}
