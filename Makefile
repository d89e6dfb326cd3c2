# legalfuzz: the two newcomer commands are `make fuzz` and `make test`.
GO        ?= go
FUZZTIME  ?= 10s
PKG       := github.com/legalfuzz/legalfuzz
FUZZCACHE := $(shell $(GO) env GOCACHE)/fuzz/$(PKG)/fuzz

.PHONY: all build oracles test vet fuzz coverage bench clean

all: build

build:
	CGO_ENABLED=0 $(GO) build -o bin/legalfuzz ./cmd/legalfuzz

# Install the external oracles (ptxas 12.4, MLIR/LLVM 19, LLVM 22) into .oracles/; idempotent.
oracles:
	./scripts/install-oracles.sh

vet:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	$(GO) vet ./...

test: oracles vet
	$(GO) test -count=1 ./...

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

clean:
	rm -rf bin
