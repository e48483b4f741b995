package corpus

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfpt/perfpt/internal/linediff"
)

// optionSets are the perf script command lines compared on every
// recording (issue 16's list and the fields and side-band records that
// differed on recordings made elsewhere), then perf report --header-only with perfpt
// header ("@header") and perf report -D with perfpt dump ("@dump").
var optionSets = [][]string{
	nil,
	{"-F", "comm,tid,time,ip,sym,dso"},
	{"-G"},
	{"-F", "+period,+event"},
	{"--show-task-events"},
	{"--show-mmap-events"},
	{"--no-demangle"},
	// The other side-band records, in file order (--show-round-events
	// turns the time ordering off, which PT decoding refuses).
	{"--show-switch-events", "--show-namespace-events", "--show-lost-events", "--show-round-events",
		"--show-bpf-events", "--show-cgroup-events", "--show-text-poke-events"},
	// Every field a sampled recording usually has, and those of
	// branches and synthesized events (addr of psb and cbr) and the
	// instruction length perf reads from the local binary.
	{"-F", "comm,tid,pid,time,cpu,event,ip,sym,dso,symoff,period,misc"},
	{"-F", "+addr,+flags"},
	{"-F", "+ipc,+insnlen"},
	{"--reltime"},
	{"--deltatime", "--ns", "--show-task-events"},
	// perf script -D: perf report -D's lines around perf script's.
	{"-D"},
	{"@header"},
	{"@dump"},
}

// dumps reports whether an option set's output has record dumps (perf
// report -D, perf script -D), whose file and vdso copy names dumpFilter
// evens out.
func dumps(opts []string) bool {
	return command(opts) == "dump" || slices.Contains(opts, "-D")
}

// command says which comparison an option set is: "script", "header" or
// "dump".
func command(opts []string) string {
	if len(opts) == 1 && strings.HasPrefix(opts[0], "@") {
		return opts[0][1:]
	}
	return "script"
}

// perfArgs and perfptArgs are the command lines of the two tools for an
// option set on path.
func perfArgs(path string, opts []string) []string {
	switch command(opts) {
	case "header":
		return []string{"report", "--header-only", "-i", path}
	case "dump":
		return []string{"report", "-D", "-i", path}
	}
	return append([]string{"script", "-i", path}, opts...)
}

func perfptArgs(path string, opts []string) []string {
	switch cmd := command(opts); cmd {
	case "header", "dump":
		return []string{cmd, "-i", path}
	}
	return append([]string{"script", "-i", path}, opts...)
}

// vdsoCopy is the name of perf's copy of its own vdso, which perf report
// -D prints as the DSO of samples there: mkstemp makes it anew in each run
// (perfpt dump prints the same form).
var vdsoCopy = regexp.MustCompile(`/tmp/perf-vdso\.so-[A-Za-z0-9]{6}`)

// rawEventPath is the file name in each record's hex dump header
// ("OFFSET@PATH [SIZE]: event: TYPE"), which is the older-ABI copy's for
// recordings compared through one.
var rawEventPath = regexp.MustCompile(`(?m)^(0x[0-9a-f]+|0)@.* (\[0x[0-9a-f]+\]: event: \d+)$`)

// dumpFilter makes the vdso copy's name and the file name the same in
// both dumps.
func dumpFilter(b []byte) []byte {
	b = vdsoCopy.ReplaceAll(b, []byte("/tmp/perf-vdso.so-XXXXXX"))
	return rawEventPath.ReplaceAll(b, []byte("$1@FILE $2"))
}

// TestCorpus runs perf script and perfpt script on every recording below
// $PERFPT_CORPUS with each of optionSets and reports, per recording and
// in total, how many runs are byte-identical (same standard output, same
// exit status), with the differences grouped by cause.
//
// Optional settings: PERFPT_CORPUS_MIN fails the test when fewer runs are
// identical; PERFPT_CORPUS_CACHE keeps perf's outputs in that folder
// (keyed by the recording's hash, the options and perf's version);
// PERFPT_CORPUS_OUT writes both outputs of every differing run there;
// PERFPT_CORPUS_RUN keeps only the recordings whose path matches that
// regular expression. A perfpt crash or time-out always fails.
func TestCorpus(t *testing.T) {
	dir, files := corpusFiles(t)
	bin := buildPerfpt(t)
	version, _ := exec.Command("perf", "version").Output()
	c := &comparer{bin: bin, perfVersion: strings.TrimSpace(string(version)),
		cache: os.Getenv("PERFPT_CORPUS_CACHE"), out: os.Getenv("PERFPT_CORPUS_OUT"), tmp: t.TempDir()}
	c.compareAll(t, dir, files, optionSets)
}

// corpusFiles returns $PERFPT_CORPUS and the recordings below it that
// $PERFPT_CORPUS_RUN keeps; it skips the test without them or perf.
func corpusFiles(t *testing.T) (string, []string) {
	dir := os.Getenv("PERFPT_CORPUS")
	if dir == "" {
		t.Skip("PERFPT_CORPUS not set: point it at a folder of perf.data recordings made elsewhere (see its SOURCES.md)")
	}
	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("perf not installed")
	}
	files, err := recordings(dir)
	if err != nil {
		t.Fatal(err)
	}
	if re := os.Getenv("PERFPT_CORPUS_RUN"); re != "" {
		keep, err := regexp.Compile(re)
		if err != nil {
			t.Fatal(err)
		}
		var fs []string
		for _, f := range files {
			if keep.MatchString(f) {
				fs = append(fs, f)
			}
		}
		files = fs
	}
	if len(files) == 0 {
		t.Skipf("no recordings in %s", dir)
	}
	return dir, files
}

// compareAll compares perf with perfpt on every file with every option
// set, two runs at a time, and logs per file and in total how many runs
// are identical, with the differences grouped by cause; it fails the
// test on a perfpt crash or time-out, or when fewer than
// $PERFPT_CORPUS_MIN runs are identical.
func (c *comparer) compareAll(t *testing.T, dir string, files []string, optionSets [][]string) {
	type key struct{ file, opts int }
	results := make(map[key]result)
	var mu sync.Mutex
	work := make(chan key)
	var wg sync.WaitGroup
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range work {
				r := c.compare(dir, files[k.file], optionSets[k.opts])
				mu.Lock()
				results[k] = r
				mu.Unlock()
			}
		}()
	}
	for i := range files {
		for j := range optionSets {
			work <- key{i, j}
		}
	}
	close(work)
	wg.Wait()

	identical, stderrSame := 0, 0
	perCmd := map[string][2]int{} // identical, runs
	perSet := make([]int, len(optionSets))
	causes := map[string][]string{}
	filesAll := 0
	for i, f := range files {
		n := 0
		var bad []string
		for j, opts := range optionSets {
			r := results[key{i, j}]
			if r.fatal != "" {
				t.Errorf("%s %s: %s", f, optString(opts), r.fatal)
			}
			pc := perCmd[command(opts)]
			pc[1]++
			if r.cause == "" {
				pc[0]++
			}
			perCmd[command(opts)] = pc
			if r.cause == "" {
				n++
				identical++
				perSet[j]++
			} else {
				bad = append(bad, fmt.Sprintf("    [%s] %s", optString(opts), r.cause))
				causes[r.cause] = append(causes[r.cause], f+" ["+optString(opts)+"]"+r.example)
			}
			if r.stderrSame {
				stderrSame++
			}
		}
		if n == len(optionSets) {
			filesAll++
		}
		t.Logf("%s: %d/%d identical\n%s", f, n, len(optionSets), strings.Join(bad, "\n"))
	}
	total := len(files) * len(optionSets)
	var names []string
	for c := range causes {
		names = append(names, c)
	}
	sort.Slice(names, func(a, b int) bool {
		if len(causes[names[a]]) != len(causes[names[b]]) {
			return len(causes[names[a]]) > len(causes[names[b]])
		}
		return names[a] < names[b]
	})
	var sb strings.Builder
	fmt.Fprintf(&sb, "corpus: %d of %d runs byte-identical (%d recordings x %d option sets); %d of %d recordings identical with every option set; stderr also identical in %d runs\n",
		identical, total, len(files), len(optionSets), filesAll, len(files), stderrSame)
	for _, cmd := range []string{"script", "header", "dump"} {
		if perCmd[cmd][1] > 0 {
			fmt.Fprintf(&sb, "  %s: %d of %d identical\n", cmd, perCmd[cmd][0], perCmd[cmd][1])
		}
	}
	for j, opts := range optionSets {
		fmt.Fprintf(&sb, "  [%s]: %d of %d recordings identical\n", optString(opts), perSet[j], len(files))
	}
	fmt.Fprintf(&sb, "differences by cause (runs, first example):\n")
	for _, n := range names {
		fmt.Fprintf(&sb, "  %4d  %s\n        e.g. %s\n", len(causes[n]), n, causes[n][0])
	}
	t.Log(sb.String())
	if min := os.Getenv("PERFPT_CORPUS_MIN"); min != "" {
		want, err := strconv.Atoi(min)
		if err != nil {
			t.Fatalf("PERFPT_CORPUS_MIN=%q: %v", min, err)
		}
		if identical < want {
			t.Errorf("%d runs identical, PERFPT_CORPUS_MIN is %d", identical, want)
		}
	}
}

// recordings lists the files below dir that look like perf.data
// recordings: a perf.data magic, or a name with "perf.data" in it (broken
// files are compared too: perf's error and exit status).
func recordings(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && path != dir {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		var magic [8]byte
		n, _ := f.Read(magic[:])
		f.Close()
		m := string(magic[:n])
		name := d.Name()
		if m == "PERFILE2" || m == "2ELIFREP" || m == "PERFFILE" ||
			(strings.Contains(name, "perf.data") && !strings.HasSuffix(name, ".buildids") && m != "\x7fELF") {
			rel, _ := filepath.Rel(dir, path)
			out = append(out, rel)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// buildPerfpt builds cmd/perfpt into a temporary folder: each run is a
// process of its own, so that a crash or a hang is one failed run.
func buildPerfpt(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go not in PATH: cannot build cmd/perfpt")
	}
	bin := filepath.Join(t.TempDir(), "perfpt")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/perfpt/perfpt/cmd/perfpt")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func optString(opts []string) string {
	if len(opts) == 0 {
		return "default"
	}
	return strings.Join(opts, " ")
}

type comparer struct {
	bin, perfVersion string
	cache, out       string
	tmp              string // a folder for older-ABI copies
	// symfs gives a recording's --symfs folder (by path), and mode keeps
	// the cached outputs of runs made with them apart.
	symfs map[string]string
	mode  string
	dir   string // the corpus (corpusWithPrograms)
}

// result is one run's comparison: cause is empty when identical.
type result struct {
	cause, example string
	stderrSame     bool
	fatal          string // a perfpt crash or time-out
}

// run is one tool's run: its output, error stream and exit status (-1
// when it did not finish in time).
type run struct {
	stdout, stderr []byte
	status         int
}

const runTimeout = 3 * time.Minute

func execRun(name string, args ...string) run { return execRunStdin(nil, name, args...) }

func execRunStdin(stdin io.Reader, name string, args ...string) run {
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdin = stdin
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := run{stdout: out.Bytes(), stderr: errb.Bytes()}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		r.status = -1
	case errors.As(err, &ee):
		r.status = ee.ExitCode()
	case err != nil:
		r.status = -1
		r.stderr = append(r.stderr, err.Error()...)
	}
	return r
}

// perf runs perf script, through the cache when there is one.
func (c *comparer) perf(path, symfs string, opts []string) run {
	return c.cached(path, opts, "", func() run {
		return execRun("perf", perfArgs(path, withSymfs(symfs, opts))...)
	})
}

// withSymfs adds --symfs=dir to a script option set (dir "": none).
func withSymfs(dir string, opts []string) []string {
	if dir != "" && command(opts) == "script" {
		return append(append([]string(nil), opts...), "--symfs="+dir)
	}
	return opts
}

// perfStdin runs perf script -i - with the recording on standard input,
// through a pipe: perf 6.1 seeks to a piped AUXTRACE record's data by an
// offset that does not count the pipe header, which a regular file on
// its standard input lets it do (reading 16 bytes early).
func (c *comparer) perfStdin(path, symfs string, opts []string) run {
	return c.cached(path, opts, "stdin-pipe", func() run {
		f, err := os.Open(path)
		if err != nil {
			return run{stderr: []byte(err.Error()), status: -1}
		}
		defer f.Close()
		return execRunStdin(struct{ io.Reader }{f}, "perf", perfArgs("-", withSymfs(symfs, opts))...)
	})
}

// cached returns perf's run on path from the cache, or does it and keeps
// it there.
func (c *comparer) cached(path string, opts []string, how string, do func() run) run {
	if c.cache == "" {
		return do()
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return do()
	}
	h := sha256.New()
	h.Write(data)
	fmt.Fprintf(h, "\x00%s\x00%q", c.perfVersion, opts)
	if c.mode != "" {
		fmt.Fprintf(h, "\x00mode %s", c.mode)
	}
	if how != "" {
		fmt.Fprintf(h, "\x00%s", how)
	}
	if command(opts) == "header" {
		// "# captured on" is the file's modification time: the same
		// bytes fetched again print another.
		if st, err := os.Stat(path); err == nil {
			fmt.Fprintf(h, "\x00mtime %d", st.ModTime().UnixNano())
		}
	}
	base := filepath.Join(c.cache, hex.EncodeToString(h.Sum(nil))[:32])
	stdout, err1 := os.ReadFile(base + ".out")
	stderr, err2 := os.ReadFile(base + ".err")
	st, err3 := os.ReadFile(base + ".status")
	if err1 == nil && err2 == nil && err3 == nil {
		if n, err := strconv.Atoi(string(st)); err == nil {
			return run{stdout: stdout, stderr: stderr, status: n}
		}
	}
	r := do()
	if r.status != -1 && os.MkdirAll(c.cache, 0o755) == nil {
		os.WriteFile(base+".out", r.stdout, 0o644)
		os.WriteFile(base+".err", r.stderr, 0o644)
		os.WriteFile(base+".status", []byte(strconv.Itoa(r.status)), 0o644)
	}
	return r
}

func (c *comparer) compare(dir, file string, opts []string) result {
	path := filepath.Join(dir, file)
	symfs := c.symfs[path]
	want := c.perf(path, symfs, opts)
	got := execRun(c.bin, perfptArgs(path, withSymfs(symfs, opts))...)
	var r result
	switch {
	case want.status != 0 && bytes.Contains(want.stderr, []byte("incompatible file format")) && newerABI(path):
		// perf 6.1 refuses attrs larger than its own (perf 6.3 added
		// config3): compare both tools on a copy with perf 6.1's
		// attrs, and perfpt on the copy with perfpt on the original.
		cp, err := olderABICopy(path, c.tmp)
		if err != nil {
			r.cause = "cannot make an older-ABI copy: " + err.Error()
			return r
		}
		defer os.Remove(cp)
		want = c.perf(cp, symfs, opts)
		got2 := execRun(c.bin, perfptArgs(cp, withSymfs(symfs, opts))...)
		if dumps(opts) {
			got.stdout, got2.stdout = dumpFilter(got.stdout), dumpFilter(got2.stdout)
		}
		if !bytes.Equal(got.stdout, got2.stdout) || got.status != got2.status {
			r.cause = "perfpt prints another text for the older-ABI copy"
			return r
		}
	case bytes.Contains(want.stderr, []byte("bad event header size")) && isPipe(path):
		// perf 6.1 cannot read some piped files by name (fixed
		// later); it reads them on standard input. (perf report
		// says so but exits 0.)
		want = c.perfStdin(path, symfs, opts)
		if command(opts) == "header" {
			// Its "captured on" is then the pipe's time (fstat of
			// standard input), the time of the run: not compared.
			want.stdout, got.stdout = withoutCapturedOn(want.stdout), withoutCapturedOn(got.stdout)
		}
	}
	if dumps(opts) {
		want.stdout, got.stdout = dumpFilter(want.stdout), dumpFilter(got.stdout)
	}
	r.stderrSame = bytes.Equal(want.stderr, got.stderr)
	r.cause, r.example = classify(want, got)
	if got.status == -1 {
		r.fatal = "perfpt did not finish in " + runTimeout.String()
	} else if i := bytes.Index(got.stderr, []byte("panic: ")); i >= 0 && got.status == 2 {
		r.fatal = "perfpt crashed: " + firstLine(got.stderr[i:])
	}
	if r.cause != "" && c.out != "" {
		base := filepath.Join(c.out, strings.NewReplacer("/", "_", " ", "").Replace(file+"@"+optString(opts)))
		if os.MkdirAll(c.out, 0o755) == nil {
			os.WriteFile(base+".perf", append(want.stdout, want.stderr...), 0o644)
			os.WriteFile(base+".perfpt", append(got.stdout, got.stderr...), 0o644)
		}
	}
	return r
}

// withoutCapturedOn drops perf's "# captured on" header line.
func withoutCapturedOn(b []byte) []byte {
	var out []byte
	for _, l := range bytes.SplitAfter(b, []byte("\n")) {
		if !bytes.HasPrefix(l, []byte("# captured on")) {
			out = append(out, l...)
		}
	}
	return out
}

func firstLine(b []byte) string {
	s := string(b)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

var (
	reNum  = regexp.MustCompile(`\b(0x)?[0-9a-f]*[0-9][0-9a-f]*\b`)
	rePath = regexp.MustCompile(`(/[^ :'"]+)+`)
)

// norm turns a message into a cause key: numbers and paths replaced.
func norm(s string) string {
	s = rePath.ReplaceAllString(s, "PATH")
	s = reNum.ReplaceAllString(s, "N")
	if len(s) > 110 {
		s = s[:110] + "..."
	}
	return s
}

// classify names the cause of a difference between perf's run (want)
// and perfpt's (got), with an example; empty when they are identical.
func classify(want, got run) (cause, example string) {
	if bytes.Equal(want.stdout, got.stdout) && want.status == got.status {
		return "", ""
	}
	switch {
	case got.status == -1:
		return "perfpt time-out", ""
	case want.status == -1:
		return "perf time-out", ""
	case got.status == 2 && bytes.Contains(got.stderr, []byte("panic: ")):
		return "perfpt crash", ": " + firstLine(got.stderr[bytes.Index(got.stderr, []byte("panic: ")):])
	case got.status != 0 && want.status == 0:
		msg := firstLine(got.stderr)
		return "perfpt fails where perf prints: " + norm(strings.TrimPrefix(msg, "perfpt: ")), ": " + msg
	case want.status != 0 && got.status == 0:
		msg := lastLine(want.stderr)
		return "perf fails (status " + strconv.Itoa(want.status) + ": " + norm(msg) + "), perfpt prints", ": " + msg
	case want.status != got.status:
		return fmt.Sprintf("both fail, status perf %d perfpt %d", want.status, got.status),
			": perf: " + lastLine(want.stderr) + " | perfpt: " + firstLine(got.stderr)
	}
	d := linediff.Compare(string(got.stdout), string(want.stdout))
	if d.N == 0 {
		// Only a final newline differs.
		return "trailing newline", ""
	}
	ex := fmt.Sprintf(" line %d (%d of %d lines differ):\n          perf:   %s\n          perfpt: %s", d.First+1, d.N, d.Lines, d.B, d.A)
	return diffCause(d.B, d.A), ex
}

func lastLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

var reRecord = regexp.MustCompile(`PERF_RECORD_[A-Z_0-9]+`)

// diffCause describes how perfpt's line (got) differs from perf's (want).
func diffCause(want, got string) string {
	if got == "(none)" {
		return "perfpt prints fewer lines"
	}
	if want == "(none)" {
		return "perfpt prints more lines"
	}
	kind := "sample line"
	switch {
	case reRecord.MatchString(want) || reRecord.MatchString(got):
		w, g := reRecord.FindString(want), reRecord.FindString(got)
		if w != g {
			return fmt.Sprintf("record order: perf %s, perfpt %s", orNone(w), orNone(g))
		}
		kind = w + " line"
	case strings.HasPrefix(want, "\t") || strings.HasPrefix(got, "\t"):
		kind = "callchain line"
	case strings.TrimSpace(want) == "" || strings.TrimSpace(got) == "":
		kind = "blank line"
	}
	wf, gf := strings.Fields(want), strings.Fields(got)
	if strings.Join(wf, " ") == strings.Join(gf, " ") {
		return kind + ": spacing"
	}
	if len(wf) != len(gf) {
		return fmt.Sprintf("%s: %d fields in perf, %d in perfpt", kind, len(wf), len(gf))
	}
	for i := range wf {
		w, g := wf[i], gf[i]
		if w == g {
			continue
		}
		switch {
		case g == "[unknown]":
			return kind + ": perf resolves, perfpt [unknown]"
		case w == "[unknown]":
			return kind + ": perfpt resolves, perf [unknown]"
		case strings.Contains(g, "_Z") && !strings.Contains(w, "_Z"):
			return kind + ": perf demangles"
		case strings.HasPrefix(w, "(") && strings.HasPrefix(g, "("):
			return kind + ": DSO differs"
		case i == 0 && kind == "sample line":
			return kind + ": comm differs"
		case strings.HasSuffix(w, ":") && strings.HasSuffix(g, ":"):
			return kind + ": event name or time differs"
		case strings.Contains(w, "+0x") || strings.Contains(g, "+0x"):
			return kind + ": symbol differs"
		}
		return fmt.Sprintf("%s: field %d differs", kind, i+1)
	}
	return kind + ": other"
}

func orNone(s string) string {
	if s == "" {
		return "a sample"
	}
	return s
}

// perf61AttrSize is sizeof(struct perf_event_attr) in perf 6.1
// (PERF_ATTR_SIZE_VER7).
const perf61AttrSize = 128

// isPipe reports whether path holds a pipe-mode recording (a 16-byte
// header: magic and size).
func isPipe(path string) bool {
	b, err := readHead(path, 16)
	return err == nil && string(b[:8]) == "PERFILE2" && binary.LittleEndian.Uint64(b[8:]) == 16
}

func readHead(path string, n int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, n)
	_, err = io.ReadFull(f, b)
	return b, err
}

// newerABI reports whether path is a little-endian file-mode recording
// whose attrs are larger than perf 6.1's.
func newerABI(path string) bool {
	b, err := readHead(path, 24)
	return err == nil && string(b[:8]) == "PERFILE2" && binary.LittleEndian.Uint64(b[8:]) > 16 &&
		binary.LittleEndian.Uint64(b[16:]) > perf61AttrSize+16
}

// olderABICopy writes a copy of the file-mode recording at path whose
// attrs section holds perf 6.1's 128-byte attrs (the newer fields, such
// as config3, dropped) and returns its name. The attrs section only
// shrinks, so every other section stays where it was.
func olderABICopy(path, dir string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	le := binary.LittleEndian
	if len(b) < 104 {
		return "", errors.New("short header")
	}
	attrSize := le.Uint64(b[16:])
	off, size := le.Uint64(b[24:]), le.Uint64(b[32:])
	if attrSize <= perf61AttrSize+16 || off+size > uint64(len(b)) || size%attrSize != 0 {
		return "", errors.New("unexpected attrs section")
	}
	var attrs []byte
	for o := off; o < off+size; o += attrSize {
		e := b[o : o+attrSize]
		a := append([]byte(nil), e[:perf61AttrSize]...)
		if le.Uint32(a[4:]) > perf61AttrSize {
			le.PutUint32(a[4:], perf61AttrSize)
		}
		attrs = append(append(attrs, a...), e[attrSize-16:]...)
	}
	copy(b[off:], attrs)
	le.PutUint64(b[16:], perf61AttrSize+16)
	le.PutUint64(b[32:], uint64(len(attrs)))
	f, err := os.CreateTemp(dir, "abi-*.data")
	if err != nil {
		return "", err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	// The header's "captured on" line is the file's time.
	if st, err := os.Stat(path); err == nil {
		os.Chtimes(f.Name(), st.ModTime(), st.ModTime())
	}
	return f.Name(), nil
}
