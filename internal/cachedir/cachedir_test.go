package cachedir

import (
	"path/filepath"
	"testing"
)

func TestPath(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", "/x/cache")
	if got, want := Path(), "/x/cache/perfpt"; got != want {
		t.Errorf("Path() = %q, want %q", got, want)
	}
	if got, want := Path("dwarf"), filepath.Join("/x/cache/perfpt", "dwarf"); got != want {
		t.Errorf("Path(dwarf) = %q, want %q", got, want)
	}
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "")
	if got := Path("dwarf"); got != "" {
		t.Errorf("no cache directory: Path = %q, want \"\"", got)
	}
}
