# legalfuzz: the two newcomer commands are `make campaign` and `make test`.
GO        ?= go
FUZZTIME  ?= 10s
DURATION  ?= 60s
OUT       ?= legalfuzz-out
PKG       := github.com/legalfuzz/legalfuzz
FUZZCACHE := $(shell $(GO) env GOCACHE)/fuzz/$(PKG)/fuzz

.PHONY: all build fuzzbin gpu-kit oracles campaign report test vet fuzz coverage bench clean

all: build

build:
	CGO_ENABLED=0 $(GO) build -buildvcs=auto -o bin/legalfuzz ./cmd/legalfuzz

# The native fuzz targets as one coverage-instrumented test binary, run by
# workers without a Go toolchain.
fuzzbin:
	$(GO) test -c -fuzz=. -o bin/fuzz.test ./fuzz

# What a GPU machine's check needs, in gpu-kit/ (docs/gpu-worker.md); there:
# gpu-kit/legalfuzz gpu-check --out DIR
gpu-kit:
	GO=$(GO) ./scripts/gpu-kit.sh gpu-kit

# A real campaign: embedded NATS, local workers, every installed oracle, a local
# bbolt store. Exit status 1 (new findings) is reported, not treated as a failure.
campaign: oracles build fuzzbin
	@bin/legalfuzz campaign --duration $(DURATION) --out $(OUT); rc=$$?; \
	if [ $$rc -eq 1 ]; then echo "the campaign found new buckets (exit status 1)"; elif [ $$rc -ne 0 ]; then exit $$rc; fi

# Install the external oracles (ptxas 12.4; LLVM/MLIR 19, 22, 23, trunk as .oracles/llvm/<label>/) into .oracles/; idempotent.
oracles:
	./scripts/install-oracles.sh

vet:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	$(GO) vet ./...

# Chromium renders the HTML report in a real browser test. The concurrent
# packages (coordinator, NATS transport, workers) run again under the race
# detector with -short, which skips there only the two tests that judge
# with the real tools (TestExpectationsEarnTheirPlace, two minutes of it
# under race, and TestReplayVersionsSaysWhatHappened) and the generator's
# one-goroutine statistics (TestFewCasesBelowFirstPTX, half a minute): what
# they run concurrently (oracles.Local, ReplayVersions, the generator) runs
# under race in shorter tests.
#
# The race pass runs beside the main one, its output shown after: most of its
# time is waiting (embedded NATS, test oracles with fixed latencies), and the
# two passes one after the other kept the two cores busy three quarters of
# the time.
test: oracles vet
	./scripts/install-chromium.sh
	@race=$$(mktemp); \
	$(GO) test -race -short -count=1 -timeout 30m ./coordinator/... ./worker/... >$$race 2>&1 & pid=$$!; \
	$(GO) test -count=1 -timeout 30m ./...; rc=$$?; \
	wait $$pid; rrc=$$?; echo "== go test -race -short ./coordinator/... ./worker/..."; cat $$race; rm -f $$race; \
	test $$rc -eq 0 -a $$rrc -eq 0

# Run every native fuzz target for FUZZTIME, then replay the seed corpus plus
# everything the fuzzer found and print per-rule coverage.
fuzz: oracles
	@for target in $$($(GO) test -list '^Fuzz' ./fuzz | grep '^Fuzz'); do \
		echo "== $$target ($(FUZZTIME))"; \
		$(GO) test ./fuzz -run '^$$' -fuzz "^$$target$$" -fuzztime $(FUZZTIME) 2>&1 | tail -n 3 || exit 1; \
	done
	$(MAKE) --no-print-directory coverage

coverage:
	$(GO) test -count=1 ./fuzz -run '^TestRuleCoverage$$' -args -corpus=$(FUZZCACHE) | grep -v '^\(ok\|PASS\)'

bench:
	$(GO) test -run '^$$' -bench . -benchtime 2000x ./fuzz

# Reports on the last campaign's store: HTML (with plots and the claims matrix), Markdown, JSON, JUnit.
report: build
	@bin/legalfuzz report --db $(OUT)/legalfuzz.db --out $(OUT)/report; rc=$$?; [ $$rc -le 1 ] || exit $$rc
	@echo "report: $(OUT)/report/report.html"

clean:
	rm -rf bin gpu-kit $(OUT)
