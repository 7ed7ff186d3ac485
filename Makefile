# agentstat: build, test, benchmark, regenerate golden files, demo.
GO ?= go
# An execution count, not a duration: a duration -fuzztime races Go 1.26's fuzz
# coordinator at its deadline under CPU load and fails with a bare "context
# deadline exceeded" and no crasher (golang/go#75804, fixed in Go 1.27).
# 10,000 keeps make test within 10 minutes on the 2-core machine; fuzz longer
# with make fuzz FUZZTIME=1000000x.
FUZZTIME ?= 10000x
# package:target for every fuzz target
FUZZ_TARGETS := $(addprefix logformat:,FuzzPlanexec FuzzSession FuzzDebugbundle FuzzPlanagent FuzzStructmsg FuzzJSONLines FuzzParallelLines FuzzClaudeRaw FuzzClaudeCode FuzzCodex FuzzOtel FuzzGemini FuzzRawDocument FuzzClampEachLine FuzzSmallDocument FuzzDecodeFragment) \
	logformat/claudecode:FuzzToolUseResult logformat/codex:FuzzRawExitCode logformat/debugbundle:FuzzEvents \
	logformat/clamp:FuzzClamp logformat/jsonscan:FuzzParseTimestamp logformat/jsonscan:FuzzAppendUnquoted internal/recordspill:FuzzReader render:FuzzMarkdownText render:FuzzHTMLText render:FuzzJSONString metrics:FuzzSafeName metrics:FuzzRedact metrics:FuzzNormalizeError metrics:FuzzCallCodec model:FuzzRequests

.PHONY: build test lint unit engine fuzz benchcheck bench gobench update-golden demo clean

build:
	$(GO) build -o agentstat ./cmd/agentstat

# The README's test command, and what CI runs: lint, each fuzz target briefly,
# each benchmark once so that they keep compiling, then every test.
test: lint fuzz benchcheck unit engine

ACTIONLINT := github.com/rhysd/actionlint/cmd/actionlint@v1.7.12

# actionlint checks the workflows; examples/ (a module of its own) decodes the
# Kubernetes Jobs strictly into Kubernetes' API types.
lint:
	$(GO) run $(ACTIONLINT) -shellcheck= examples/github/*.yml .github/workflows/*.yml
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	cd examples && $(GO) vet ./... && $(GO) test -count=1 ./...

unit:
	$(GO) test -race -count=1 ./...

# The Parquet tables and docs/sql/metrics.sql in DuckDB, against summary.json.
# A module of its own (cgo), so that agentstat itself stays pure Go.
engine:
	cd enginetest && $(GO) vet ./... && $(GO) test -count=1 ./...

fuzz:
	@for pt in $(FUZZ_TARGETS); do \
	  p=$${pt%%:*}; t=$${pt##*:}; echo "fuzz $$p $$t ($(FUZZTIME))"; \
	  $(GO) test ./$$p -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) $(FUZZFLAGS) >/tmp/agentstat-fuzz.log 2>&1 || { cat /tmp/agentstat-fuzz.log; exit 1; }; \
	done

benchcheck:
	$(GO) test -run '^$$' -bench . -benchtime 1x ./...

# The end-to-end comparison (cat, a plain Go read, agentstat) on generated
# 100 MB and 1 GB corpora, cached in the user cache directory: BENCHMARKS.md.
bench:
	$(GO) run ./internal/benchrun $(BENCHFLAGS)

# The Go benchmarks (readers, aggregation, pipeline, output formats) in MB/s, for benchstat.
gobench:
	$(GO) test -run '^$$' -bench . -benchmem -count $(or $(COUNT),1) ./...

update-golden:
	$(GO) test ./render -run Golden -update

demo:
	$(GO) run ./cmd/agentstat report testdata/logs -o agentstat-report

clean:
	rm -rf agentstat agentstat-report
