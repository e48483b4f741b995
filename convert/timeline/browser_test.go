package timeline

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// speedscopeDir finds the app that the npm package speedscope bundles
// (dist/release): $SPEEDSCOPE_DIR, else the global npm modules.
func speedscopeDir(t *testing.T) string {
	t.Helper()
	var dirs []string
	if d := os.Getenv("SPEEDSCOPE_DIR"); d != "" {
		dirs = append(dirs, d)
	}
	if npm, err := exec.LookPath("npm"); err == nil {
		if out, err := exec.Command(npm, "root", "-g").Output(); err == nil {
			dirs = append(dirs, filepath.Join(strings.TrimSpace(string(out)), "speedscope", "dist", "release"))
		}
	}
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "index.html")); err == nil {
			return d
		}
	}
	t.Skip("speedscope (npm install -g speedscope) not installed: the JSON timeline is not opened in it")
	return ""
}

// TestSpeedscope opens the Chrome JSON timeline of the example recording
// in speedscope's bundled app under headless Chromium and checks that the
// page lists the program's functions (its sandwich view is a table).
func TestSpeedscope(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	browser := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			browser = p
			break
		}
	}
	if browser == "" {
		t.Skip("no chromium installed (Debian package chromium): the JSON timeline is not opened in a browser")
	}
	app := speedscopeDir(t)
	r := repo()
	out, _ := convertFile(t, filepath.Join(r, "testdata/example/primes.perf.data"), FormatJSON,
		Options{Symfs: filepath.Join(r, "testdata/example/symfs")})
	profile, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/profile.json", func(w http.ResponseWriter, _ *http.Request) { w.Write(profile) })
	mux.Handle("/", http.FileServer(http.Dir(app)))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	page := srv.URL + "/index.html#profileURL=" + srv.URL + "/profile.json&view=sandwich"

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// The flags that work on our machines (no sandbox as root, no GPU, no
	// network besides localhost).
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), "--virtual-time-budget=20000", "--dump-dom", page)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	dom, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", browser, err, stderr.String())
	}
	// The sandwich view's rows: "name {args}" of each function.
	for _, fn := range []string{"main", "sieve", "digits", "__libc_start_main_impl"} {
		if !bytes.Contains(dom, []byte(">"+fn+" {")) {
			t.Errorf("speedscope's page does not list %s:\n%s", fn, dom)
		}
	}
	if !bytes.Contains(dom, []byte("primes (tid ")) {
		t.Errorf("speedscope's page does not name the thread primes")
	}
}
