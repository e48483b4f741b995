// Package cachedir says where perfpt keeps what it caches between runs: its
// directory in the user's cache directory ($XDG_CACHE_HOME, else ~/.cache).
package cachedir

import (
	"os"
	"path/filepath"
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
