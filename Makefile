# codemode-host — build, test and check. `make help` lists the targets.

GO      ?= go
BIN     := bin/codemode-host
# Packages with no cgo hot path run under the race detector too; the V8
# packages (runtime, jsbindings, cmd, internal/v8shim) are cgo-heavy and
# are tested without it.
RACE_PKGS := ./protocol/... ./registry/... ./bridge/... ./internal/bm25/... ./toolsearch/... ./render/... ./tsdecl/... ./launch/... ./cmd/codemode-host/internal/fixture/... ./internal/nbpipe/... ./internal/wellformed/... ./internal/pipeconn/... ./internal/codexbin/... ./codexhost/codexpb/...
FUZZTIME ?= 5m

.PHONY: help setup build run test lint bench fuzz soak clean proto

help: ## List the targets.
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-8s %s\n", $$1, $$2}'

setup: node_modules/.installed test/codex/node_modules/.installed ## Install the npm packages the tests use (package-lock.json, test/codex/).

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

# Codex itself (@openai/codex, pinned): its codex and codex-code-mode-host
# binaries come in the optional platform package, no install script runs.
test/codex/node_modules/.installed: test/codex/package.json test/codex/package-lock.json
	npm ci --prefix test/codex --no-audit --no-fund --loglevel=error
	@touch $@

proto: ## Regenerate codexhost/codexpb from codexhost/proto (protocompile + the go.mod tools; no protoc).
	GO=$(GO) $(GO) run ./codexhost/internal/protogen -proto codexhost/proto -out codexhost/codexpb

stdlib: setup ## Rebuild jsbindings/stdlib/stdlib.js from its entry and the pinned core-js.
	$(GO) run ./jsbindings/internal/genstdlib

build: ## Build the host to bin/codemode-host.
	$(GO) build -o $(BIN) ./cmd/codemode-host
	@# Drop the fresh binary from the page cache: the linker's writes leave
	@# it there in 2 MB folios, which the kernel maps a whole 2 MB page per
	@# fault, and an idle host then measures 38-40 MB instead of 25.
	@sync $(BIN) 2>/dev/null && dd if=$(BIN) iflag=nocache count=0 status=none 2>/dev/null || true

run: setup build ## Set up, build and run examples/js/hello.
	./$(BIN) run examples/js/hello/hello.js

# The short fuzz in `test` counts executions rather than seconds: a timed
# run can fail with "context deadline exceeded" when a worker is busy as
# the time runs out.
test: setup lint ## Lint, then run every test (race detector on the pure-Go packages) and a short fuzz.
	$(GO) test -count=1 ./...
	$(GO) test -count=1 -race $(RACE_PKGS)
	sh protocol/fuzz.sh 30000x

lint: ## gofmt, go vet and staticcheck.
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './node_modules/*')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) vet -tags soak ./runtime/ ./bridge/
	$(GO) tool staticcheck ./...

# BENCHFLAGS go to bench/run, e.g. BENCHFLAGS='-n 200 -strict' (see
# `go run ./bench/run -h`).
BENCHFLAGS ?=

bench: build node_modules/.installed test/codex/node_modules/.installed bench/peer/node_modules/.installed ## Run the Go benchmarks, then compare the host with the peer, Codex's host, the pipe floor and a Node parent (table + bench/results/*.json).
	$(GO) test -run '^$$' -bench . -benchmem ./...
	$(GO) run ./bench/run -host $(BIN) -peer bench/peer -out bench/results $(BENCHFLAGS)
	$(GO) run ./bench/tokens

# The peer (@utcp/code-mode on isolated-vm, built natively by node-gyp).
bench/peer/node_modules/.installed: bench/peer/package.json bench/peer/package-lock.json bench/peer/.npmrc
	npm ci --prefix bench/peer --no-audit --no-fund --loglevel=error
	@touch $@

# The soak tests (the soak build tag) run thousands of cells and fill the
# host's memory on purpose; they are not part of `test`.
soak: setup ## Long soak tests: 10,000 cells through the runtime and the host, heap bombs.
	$(GO) test -count=1 -tags soak -run Soak -timeout 30m -v ./runtime/ ./bridge/

fuzz: ## Fuzz the protocol decoder and framing for FUZZTIME each (default 5m).
	sh protocol/fuzz.sh $(FUZZTIME)

clean: ## Remove build output.
	rm -rf bin
