# phalanx: build, test, generate, verify, bench. `make help` lists the targets.
GO        ?= go
BIN       ?= bin
PKGS      := ./...
TOOLS_MOD := hack/tools/go.mod
# The release a build is stamped with: the git tag (v0.1.0), or a describe of the commit.
VERSION    ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
GIT_COMMIT ?= $(shell git rev-parse HEAD 2>/dev/null)
IMAGE      ?= ghcr.io/phalanx-dev/phalanx
LDFLAGS    := -X github.com/phalanx-dev/phalanx/pkg/version.gitVersion=$(VERSION) \
              -X github.com/phalanx-dev/phalanx/pkg/version.gitCommit=$(GIT_COMMIT)

.PHONY: help build image test test-race verify generate fuzz bench bench-sim bench-whatif bench-cluster bench-scale e2e clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 14

build: ## build bin/phalanx, stamped with VERSION, and bin/kubectl-phalanx (kubectl's plugin)
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/phalanx ./cmd/phalanx
	ln -sf phalanx $(BIN)/kubectl-phalanx

image: ## build the image $(IMAGE):$(VERSION): docker/podman, else in Go into bin/image, checked (PUSH=1 pushes)
	IMAGE=$(IMAGE) VERSION=$(VERSION) GIT_COMMIT=$(GIT_COMMIT) hack/image.sh

test: ## unit, scenario and CLI tests; the differential test against kube-scheduler (short); the image builder's; the HTML reports in headless Chromium
	$(GO) test -count=1 $(PKGS)
	cd hack/schedulerdiff && $(GO) test -count=1 ./...
	cd hack/image && GOWORK=off $(GO) test -count=1 -timeout 30m ./...
	@mkdir -p $(BIN) && rm -f $(BIN)/browser-figures.txt
	cd hack/browsertest && BROWSERTEST_FIGURES=$(CURDIR)/$(BIN)/browser-figures.txt $(GO) test -count=1 ./...
	@cat $(BIN)/browser-figures.txt

test-race: ## the tests with the race detector
	$(GO) test -race -count=1 $(PKGS)

verify: ## gofmt, go vet, staticcheck, generated files, the chart, the pure core
	hack/verify.sh

generate: ## regenerate deepcopy, the CRD, the chart's copies and the release manifest
	hack/update-codegen.sh
	hack/update-chart.sh

fuzz: ## run each fuzz target briefly (FUZZTIME=10s by default)
	hack/fuzz.sh

bench: ## Go benchmarks of the scheduling cycles (pods/s)
	hack/bench.sh

.PHONY: bench-browser
bench-browser: ## time opening the 5,000-node HTML report in headless Chromium (must be under 3 s)
	cd hack/browsertest && $(GO) test -count=1 -run '^$$' -bench OpenLargeReport -benchtime 5x ./...

bench-sim: ## time the whole `phalanx simulate` process on the benchmark cluster
	hack/bench-simulate.sh

bench-whatif: ## time phalanx snapshot and whatif on 5,000 kwok nodes and 50,000 pods (NODES, PODS)
	hack/bench-whatif.sh

bench-cluster: ## phalanx vs kube-scheduler on a real control plane (BENCH_ARGS: sizes; ~15 min)
	hack/bench-cluster.sh $(BENCH_ARGS)

# The cluster sizes of bench-scale: 15-20 minutes at the default, mostly kube-scheduler; the issue's sizes are
# NODES=5000,20000,65000,130000 (hours for kube-scheduler at the largest).
NODES ?= 5000
bench-scale: ## phalanx vs kube-scheduler in process on a generated AI cluster (NODES=5000,20000,...; BENCH_ARGS)
	cd hack/bench-scale && $(GO) run . -nodes $(NODES) $(BENCH_ARGS)

# The e2e tests that use Kubernetes' own PodGroups (the bad inputs of its native PodGroup
# version too), and the one of a cluster without CompositePodGroups, which also run on the
# previous release.
E2E_NATIVE_TESTS := TestIndexedJobGangScheduled|TestPodGroupNameClash|TestPodGroupPreemption/native|TestBadInputDifferential|TestWithoutCompositeAPIs

e2e: ## end-to-end tests on real v1.37.2 and v1.36.3 control planes (E2E_ARGS: go test flags)
	E2E_KUBE_VERSION=v1.36.3 hack/e2e.sh --build-only
	E2E_KUBE_VERSION=v1.37.2 hack/e2e.sh $(E2E_ARGS)
	E2E_KUBE_VERSION=v1.36.3 hack/e2e.sh -run '$(E2E_NATIVE_TESTS)' $(E2E_ARGS)

clean:
	rm -rf $(BIN)
