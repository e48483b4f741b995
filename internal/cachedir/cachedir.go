// Package cachedir says where perfpt keeps what it caches between runs: its
// directory in the user's cache directory ($XDG_CACHE_HOME, else ~/.cache).
package cachedir

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Path is elem joined under perfpt's cache directory, or "" (no cache)
// when the user has no cache directory.
func Path(elem ...string) string {
	dir, err := os.UserCacheDir()
	if err != nil || dir == "" {
		return ""
	}
	return filepath.Join(append([]string{dir, "perfpt"}, elem...)...)
}

// Trim removes the cache files of dir whose names start with one of
// prefixes, those used least recently first (by modification time: a
// cache touches its files when it reads them), until they hold at most
// limit bytes; and temporary files (".tmp" in their names) of those
// prefixes more than an hour old, left by runs that ended while writing.
func Trim(dir string, limit int64, prefixes ...string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type ent struct {
		name string
		size int64
		used time.Time
	}
	var files []ent
	var total int64
	for _, e := range ents {
		ours := false
		for _, p := range prefixes {
			ours = ours || strings.HasPrefix(e.Name(), p)
		}
		if !ours {
			continue
		}
		fi, err := e.Info()
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if strings.Contains(e.Name(), ".tmp") {
			if time.Since(fi.ModTime()) > time.Hour {
				os.Remove(filepath.Join(dir, e.Name()))
			}
			continue
		}
		files = append(files, ent{e.Name(), fi.Size(), fi.ModTime()})
		total += fi.Size()
	}
	sort.Slice(files, func(i, j int) bool { return files[i].used.Before(files[j].used) })
	for _, f := range files {
		if total <= limit {
			break
		}
		if os.Remove(filepath.Join(dir, f.name)) == nil {
			total -= f.size
		}
	}
}
