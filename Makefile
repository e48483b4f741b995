GO      ?= go
BIN     := bin/perfpt
PKGS    := ./...
FUZZTIME ?= 30s

.PHONY: all build test test-short bench fuzz lint example clean

all: build

# urfave_cli_no_docs leaves out urfave/cli's man-page writer, whose markdown
# package compiles a dozen regular expressions at every start (half of the
# start-up's instructions); perfpt never writes man pages.
BUILDTAGS ?= urfave_cli_no_docs

build:
	$(GO) build -tags '$(BUILDTAGS)' -o $(BIN) ./cmd/perfpt

# The test command of the README: vet, then every test with the race detector.
test: lint
	$(GO) test -race -timeout 80m $(PKGS)

test-short:
	$(GO) test -short $(PKGS)

# Benchmarks: go test benchmarks (compare runs with benchstat) and, where the
# reference tools are installed, hyperfine ratios against perf and ptxed.
bench: build
	$(GO) test -run '^$$' -bench . -benchmem -count 5 $(PKGS) | tee bench.txt
	@if [ -x scripts/bench.sh ]; then scripts/bench.sh; fi

# Runs every fuzz target for FUZZTIME each; crashers land in testdata/fuzz.
fuzz:
	@for pkg in $$($(GO) list $(PKGS)); do \
	  for t in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz'); do \
	    echo "== $$pkg $$t"; $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 3s $$pkg || exit 1; \
	  done; \
	done

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed: $$out"; exit 1; fi
	$(GO) vet $(PKGS)
	@if command -v staticcheck >/dev/null 2>&1 || [ -x "$$($(GO) env GOPATH)/bin/staticcheck" ]; then \
		PATH="$$($(GO) env GOPATH)/bin:$$PATH" staticcheck $(PKGS); \
	else echo "lint: staticcheck not installed (CI installs it): skipped"; fi

# The main job on the bundled example data.
EXAMPLE := testdata/example/primes.perf.data
EXOPTS  := -i $(EXAMPLE) --symfs testdata/example/symfs
EXOUT   ?= example-out

example: build
	@mkdir -p $(EXOUT)
	./$(BIN) script $(EXOPTS) > $(EXOUT)/script.txt
	./$(BIN) script $(EXOPTS) --itrace=cr -F+callindent > $(EXOUT)/calls.txt
	./$(BIN) pprof $(EXOPTS) -o $(EXOUT)/primes.pb.gz
	./$(BIN) gcov $(EXOPTS) -o $(EXOUT) > $(EXOUT)/gcov.txt
	./$(BIN) timeline $(EXOPTS) -o $(EXOUT)/timeline.fxt 2>/dev/null
	./$(BIN) timeline $(EXOPTS) -o $(EXOUT)/timeline.json 2>/dev/null
	@echo "== perf script text ($$(wc -l < $(EXOUT)/script.txt) lines in $(EXOUT)/script.txt), first lines:"
	@head -5 $(EXOUT)/script.txt
	@echo "== call/return trace ($(EXOUT)/calls.txt), first lines:"
	@head -5 $(EXOUT)/calls.txt
	@echo "== pprof profile $(EXOUT)/primes.pb.gz, top functions by instructions:"
	@$(GO) tool pprof -top -nodecount=8 -sample_index=instructions $(EXOUT)/primes.pb.gz 2>/dev/null | tail -n +5
	@echo "== coverage: $(EXOUT)/*.gcov"
	@cat $(EXOUT)/gcov.txt
	@echo "== timeline: $(EXOUT)/timeline.fxt and $(EXOUT)/timeline.json, every call as a slice over time"
	@echo "   open timeline.fxt (or .json) in Perfetto UI: https://ui.perfetto.dev, Open trace file;"
	@echo "   timeline.json also opens in chrome://tracing and speedscope (npx speedscope $(EXOUT)/timeline.json)"

clean:
	rm -rf bin bench.txt example-out
